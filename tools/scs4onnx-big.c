/*
 * scs4onnx-big: split -> shrink each shard -> merge -> global dedup -> write, in one process.
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
	    "usage: scs4onnx-big INPUT.onnx OUTPUT.onnx [scs4onnx-shrink options]\n"
	    "           [--max-shard-size SIZE] [--work DIR] [--keep-work]\n"
	    "\n"
	    "The one-shot driver for models of any size (2 GiB and over): reads INPUT once,\n"
	    "cuts it into shards, shrinks each as scs4onnx-shrink would, joins them, merges\n"
	    "identical constants across the whole model and writes OUTPUT (with its data\n"
	    "file OUTPUT.onnx.<16 hex>.data beside it when over 2 GiB). The result equals\n"
	    "scs4onnx-split, then scs4onnx-shrink on each shard, then scs4onnx-merge. npy\n"
	    "mode and forced extraction apply to the joined model.\n"
	    "\n"
	    "options:\n"
	    "  -m, --mode {shrink,npy}      as in scs4onnx-shrink\n"
	    "  -fo, --forced-extraction-op-names NAME[,NAME...]\n"
	    "  -fc, --forced-extraction-constant-names NAME[,NAME...]\n"
	    "  -d, --disable-auto-downcast\n"
	    "      --optimize               scs4onnx-optimize's default passes on the whole model\n"
	    "                               first (before the cuts and the global dedup)\n"
	    "      --fold-size-limit SIZE   with --optimize: no folded output over SIZE\n"
	    "                               (K, M, G suffixes; default 1M)\n"
	    "      --fold-grow              with --optimize: also folds that make the model bigger\n"
	    "      --fold-inexact           with --optimize: also fold Exp, Pow, Tanh, ... and\n"
	    "                               float sums, which a runtime may round otherwise\n"
	    "      --external-data          write a data file even when the model fits inline\n"
	    "      --store DIR              keep payloads in this store folder (reused)\n"
	    "      --max-shard-size SIZE    shard budget (K, M, G suffixes; default 1.8G)\n"
	    "      --work DIR               folder for the temporary store (default: beside\n"
	    "                               OUTPUT); made when missing, removed at the end\n"
	    "      --keep-work              also write the shards to DIR/shards (a new or\n"
	    "                               empty folder), after OUTPUT, for inspection\n"
	    "  -n, --non-verbose            print nothing but errors\n"
	    "      --json FILE              write the report as JSON (- for stdout)\n"
	    "  -f, --force                  replace OUTPUT even when it is read-only\n"
	    "  -h, --help                   show this help\n"
	    "      --version                show the version\n"
	    "\n"
	    "Exit status: 0 done, 1 failed (nothing written), 2 bad usage.\n");
}

int
main(int argc, char **argv)
{
	scs_big_options o;
	scs_report rep;
	cli_args a;
	int rc;

	cli_set_prog("scs4onnx-big");
	cli_raise_fd_limit();
	if ((rc = cli_parse(&a, argc, argv, CLI_SHRINK | CLI_EXTERNAL | CLI_STORE | CLI_SHARDS | CLI_WORK | CLI_FORCE,
	    usage)) >= 0) {
		cli_args_dispose(&a);
		return rc;
	}
	o.shrink = a.shrink;
	o.max_shard_len = a.max_shard_len;
	o.work_dir = a.work_dir;
	o.keep_work = a.keep_work;
	return cli_finish(&a, &rep, scs_big(&rep, a.pos[0], a.pos[1], &o));
}
