/*
 * scs4onnx-split: cut an ONNX model of any size into standalone shards under 2 GiB.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "cli.h"
#include "fdlimit.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: scs4onnx-split INPUT.onnx OUTDIR [--max-shard-size 1.8G] [--store DIR]\n"
	    "           [--json REPORT] [--non-verbose]\n"
	    "\n"
	    "Cut a model, in topological order, into standalone shard models\n"
	    "OUTDIR/shard-000.onnx, shard-001.onnx, ... that ONNX Runtime, onnx and other\n"
	    "tools open on their own. Each shard's inputs are the original inputs it uses\n"
	    "plus the tensors earlier shards make for it; its outputs are the original\n"
	    "outputs it makes plus what later shards need. Running the shards in order,\n"
	    "feeding each the outputs of earlier ones, computes the original model.\n"
	    "scs4onnx-merge joins them again. OUTDIR must be missing or empty; it appears\n"
	    "with every shard in it at once, or not at all.\n"
	    "\n"
	    "options:\n"
	    "      --max-shard-size SIZE  the largest shard file (K, M, G suffixes; default 1.8G);\n"
	    "                             a tensor larger than that goes to a data file\n"
	    "                             beside its shard\n"
	    "      --store DIR            keep payloads in this store folder (reused)\n"
	    "  -n, --non-verbose          print nothing but errors\n"
	    "      --json FILE            write the report as JSON (- for stdout)\n"
	    "  -h, --help                 show this help\n"
	    "      --version              show the version\n"
	    "\n"
	    "Exit status: 0 done, 1 failed (nothing written), 2 bad usage.\n");
}

int
main(int argc, char **argv)
{
	scs_split_options o = { 0, NULL, NULL, NULL };
	scs_report rep;
	cli_args a;
	int rc;

	cli_set_prog("scs4onnx-split");
	cli_raise_fd_limit();
	if ((rc = cli_parse(&a, argc, argv, CLI_STORE | CLI_SHARDS, usage)) >= 0) {
		cli_args_dispose(&a);
		return rc;
	}
	o.max_shard_len = a.max_shard_len;
	o.store_dir = a.shrink.store_dir;
	o.progress = a.shrink.progress;
	return cli_finish(&a, &rep, scs_split(&rep, a.pos[0], a.pos[1], &o));
}
