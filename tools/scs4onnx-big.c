/*
 * scs4onnx-big: split -> shrink each shard -> merge -> global dedup -> write, in one process.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "cli.h"

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "-m, --mode {shrink,npy}", "as in scs4onnx-shrink" },
		{ "-fo, --forced-extraction-op-names NAME[,NAME...]", "" },
		{ "-fc, --forced-extraction-constant-names NAME[,NAME...]", "" },
		{ "-d, --disable-auto-downcast", "" },
		{ "    --keep-transposed", "" },
		{ "    --optimize", "scs4onnx-optimize's default passes on the whole model\n"
		  "first (before the cuts and the global dedup)" },
		CLI_HELP_FOLD_LIMIT, CLI_HELP_FOLD_GROW, CLI_HELP_FOLD_INEXACT, CLI_HELP_FOLD_QDQ,
		CLI_HELP_INPUT_SHAPE, CLI_HELP_WRITE_SHAPES, CLI_HELP_INIT_CONST,
		{ "    --external-data", "write a data file even when the model fits inline" },
		CLI_HELP_MAX_DATA,
		CLI_HELP_STORE,
		{ "    --max-shard-size SIZE", "shard budget (K, M, G suffixes; default 1.8G)" },
		{ "    --work DIR", "folder for the temporary store (default: beside\n"
		  "OUTPUT); a missing DIR is never left behind" },
		{ "    --keep-work", "also write the shards to DIR/shards (a new or\n"
		  "empty folder), after OUTPUT, for inspection" },
		CLI_HELP_VERBOSE, CLI_HELP_QUIET, CLI_HELP_JSON, CLI_HELP_FORCE_NEW, CLI_HELP_END,
	};

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
	    "\n");
	cli_help_options(f, 31, opts, NULL);
}

int
main(int argc, char **argv)
{
	scs_big_options o = SCS_BIG_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	cli_args a;
	int rc;

	if ((rc = cli_start(&a, "scs4onnx-big", argc, argv,
	    CLI_SHRINK | CLI_EXTERNAL | CLI_STORE | CLI_SHARDS | CLI_WORK | CLI_FORCE | CLI_NEW_OUTPUT, usage)) >= 0)
		return rc;
	o.shrink = &a.shrink;
	o.max_shard_len = a.max_shard_len;
	o.work_dir = a.work_dir;
	o.keep_work = a.keep_work;
	return cli_finish(&a, &rep, scs_big(&rep, a.pos[0], a.pos[1], &o));
}
