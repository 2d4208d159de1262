/*
 * scs4onnx-shrink: merge identical constants of an ONNX model of any size.
 * Accepts the Python scs4onnx's spellings too (-m, -fo, -fc, -d, -n and the
 * underscore forms), so existing scripts carry over. Built a second time as
 * scs4onnx (SCS_TOOL), the Python tool's own name, so a script calling
 * `scs4onnx in.onnx out.onnx -m npy` runs unchanged.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "cli.h"

#ifndef SCS_TOOL
#define SCS_TOOL "scs4onnx-shrink"
#define TOOL_NEW_OUTPUT CLI_NEW_OUTPUT
#define TOOL_HELP_FORCE CLI_HELP_FORCE_NEW
#else
/* scs4onnx replaces an OUTPUT that exists, as the Python tool does (unless it is read-only) */
#define TOOL_NEW_OUTPUT 0
#define TOOL_HELP_FORCE CLI_HELP_FORCE
#endif

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "-m, --mode {shrink,npy}", "shrink: share constants inside the model (default)\n"
		  "npy: move repeated constants to .npy files" },
		{ "-fo, --forced-extraction-op-names NAME[,NAME...]", "move the constants of these ops to .npy files" },
		{ "-fc, --forced-extraction-constant-names NAME[,NAME...]", "move these constants to .npy files" },
		{ "-d, --disable-auto-downcast", "keep float64 and int64 constants as they are" },
		CLI_HELP_KEEP_TRANSPOSED,
		{ "    --optimize", "first run scs4onnx-optimize's default passes" },
		CLI_HELP_FOLD_LIMIT, CLI_HELP_FOLD_GROW, CLI_HELP_FOLD_INEXACT, CLI_HELP_FOLD_QDQ,
		CLI_HELP_INPUT_SHAPE, CLI_HELP_WRITE_SHAPES, CLI_HELP_INIT_CONST, CLI_HELP_VERBOSE, CLI_HELP_QUIET,
		{ "    --external-data", "write the data file OUTPUT.onnx.<16 hex>.data (ONNX\n"
		  "external data) even when inline fits (always\n"
		  "above 2 GiB)" },
		CLI_HELP_MAX_DATA,
		CLI_HELP_STORE, CLI_HELP_JSON, TOOL_HELP_FORCE, CLI_HELP_END,
	};

	fprintf(f,
	    "usage: " SCS_TOOL " INPUT.onnx OUTPUT.onnx [options]\n"
	    "\n"
	    "Make an ONNX model smaller without changing what it computes: identical\n"
	    "non-scalar constants (initializers and Constant values, in every graph and\n"
	    "function) become one, and a 2-D constant stored again transposed goes (its\n"
	    "MatMuls read the other through Gemm(transB=1), data movement through a\n"
	    "Transpose). Reads models of any size, inline or with\n"
	    "external data.\n"
	    "\n");
	cli_help_options(f, 31, opts,
	    "The scs4onnx spellings --forced_extraction_op_names, --forced_extraction_constant_names,\n"
	    "--disable_auto_downcast and --non_verbose work too. Lists take several words or\n"
	    "comma-separated names.\n");
}

int
main(int argc, char **argv)
{
	scs_report rep = SCS_REPORT_INIT;
	cli_args a;
	int rc;

	if ((rc = cli_start(&a, SCS_TOOL, argc, argv, CLI_SHRINK | CLI_EXTERNAL | CLI_STORE | CLI_FORCE | TOOL_NEW_OUTPUT,
	    usage)) >= 0)
		return rc;
	return cli_finish(&a, &rep, scs_shrink(&rep, a.pos[0], a.pos[1], &a.shrink));
}
