/*
 * scs4onnx-merge: join the shards scs4onnx-split wrote into one model, and dedup globally.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "cli.h"

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "    --no-dedup", "join only; no global dedup" },
		CLI_HELP_KEEP_TRANSPOSED,
		{ "    --external-data", "write a data file even when the model fits inline" },
		CLI_HELP_MAX_DATA,
		CLI_HELP_STORE, CLI_HELP_QUIET, CLI_HELP_JSON, CLI_HELP_FORCE_NEW, CLI_HELP_END,
	};

	fprintf(f,
	    "usage: scs4onnx-merge SHARDDIR OUTPUT.onnx [--no-dedup] [--keep-transposed]\n"
	    "           [--external-data] [--store DIR] [--max-data-file-size SIZE] [--json REPORT]\n"
	    "           [--non-verbose] [--force]\n"
	    "\n"
	    "Join the shard models in SHARDDIR (every *.onnx there, as scs4onnx-split wrote\n"
	    "them, possibly changed since by other tools that kept their input and output\n"
	    "names) into one model with the original inputs, outputs, opsets and metadata,\n"
	    "then merge identical constants across the whole model (and a 2-D constant stored\n"
	    "again transposed: its readers read the other copy). The output is one file\n"
	    "under 2 GiB, otherwise OUTPUT.onnx plus its data file OUTPUT.onnx.<16 hex>.data.\n"
	    "OUTPUT goes outside SHARDDIR (the next merge would read it as a shard).\n"
	    "\n");
	cli_help_options(f, 26, opts, NULL);
}

int
main(int argc, char **argv)
{
	scs_merge_options o = SCS_MERGE_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	cli_args a;
	int rc;

	if ((rc = cli_start(&a, "scs4onnx-merge", argc, argv,
	    CLI_MERGE | CLI_IN_DIR | CLI_EXTERNAL | CLI_STORE | CLI_FORCE | CLI_NEW_OUTPUT, usage)) >= 0)
		return rc;
	o.no_dedup = a.no_dedup;
	o.keep_transposed = a.shrink.keep_transposed;
	o.external_data = a.shrink.external_data;
	o.max_data_file_size = a.shrink.max_data_file_size;
	o.store_dir = a.shrink.store_dir;
	o.progress = a.shrink.progress;
	return cli_finish(&a, &rep, scs_merge(&rep, a.pos[0], a.pos[1], &o));
}
