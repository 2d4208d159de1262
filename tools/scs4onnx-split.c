/*
 * scs4onnx-split: cut an ONNX model of any size into standalone shards under 2 GiB.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "cli.h"

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "    --max-shard-size SIZE", "the largest shard file (K, M, G suffixes; default 1.8G);\n"
		  "a tensor larger than that goes to a data file\n"
		  "beside its shard" },
		CLI_HELP_STORE, CLI_HELP_QUIET, CLI_HELP_JSON, CLI_HELP_END,
	};

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
	    "\n");
	cli_help_options(f, 29, opts, NULL);
}

int
main(int argc, char **argv)
{
	scs_split_options o = SCS_SPLIT_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	cli_args a;
	int rc;

	if ((rc = cli_start(&a, "scs4onnx-split", argc, argv, CLI_STORE | CLI_SHARDS | CLI_OUT_DIR, usage)) >= 0)
		return rc;
	o.max_shard_len = a.max_shard_len;
	o.store_dir = a.shrink.store_dir;
	o.progress = a.shrink.progress;
	return cli_finish(&a, &rep, scs_split(&rep, a.pos[0], a.pos[1], &o));
}
