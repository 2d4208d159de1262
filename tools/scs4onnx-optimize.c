/*
 * scs4onnx-optimize: the ONNX optimizer's graph passes (onnxoptimizer's
 * names), for models of any size. -p and --skip take onnxoptimizer's pass
 * names; --list-passes prints them.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void
usage(FILE *f)
{
	static const cli_help opts[] = {
		{ "-p, --passes PASS [PASS ...]", "run only these passes (default: the default set)" },
		{ "    --skip PASS [PASS ...]", "leave these passes out" },
		{ "    --list-passes", "print every pass, what it does, and whether it\n"
		  "is in the default set" },
		{ "    --fold-size-limit SIZE", "fold_constants: no folded output over SIZE\n"
		  "(K, M, G suffixes; default 1M)" },
		{ "    --fold-grow", "fold_constants: also folds whose outputs take\n"
		  "more bytes than the constants they free" },
		{ "    --fold-inexact", "fold_constants: also fold the math library's\n"
		  "functions (Exp, Pow, Tanh, ...) and float sums of\n"
		  "more than two terms, which a runtime may round\n"
		  "otherwise; replace_div_with_mul: also Div by a\n"
		  "constant whose reciprocal rounds" },
		{ "    --fold-qdq", "fold_constants: also fold QuantizeLinear and\n"
		  "DequantizeLinear of constants (left by default for\n"
		  "the runtime's quantized kernels)" },
		{ "    --input-shape NAME=DIMS", "graph input NAME takes these dims (such as\n"
		  "x=1,3,224,224; repeatable), for shape inference\n"
		  "and folding, and in OUTPUT; it must agree with\n"
		  "the declared rank and fixed dims" },
		{ "    --write-shapes", "write the inferred shapes of the main graph's\n"
		  "values to value_info" },
		{ "    --initializers-as-constants", "take initializers that are also graph inputs\n"
		  "as constants (IR 4+: no longer inputs in OUTPUT;\n"
		  "below IR 4 they always are constants)" },
		CLI_HELP_VERBOSE, CLI_HELP_QUIET,
		{ "    --external-data", "write the data file OUTPUT.onnx.<16 hex>.data (ONNX\n"
		  "external data) even when the model fits inline\n"
		  "(always above 2 GiB)" },
		CLI_HELP_MAX_DATA,
		CLI_HELP_STORE, CLI_HELP_JSON, CLI_HELP_FORCE_NEW, CLI_HELP_END,
	};

	fprintf(f,
	    "usage: scs4onnx-optimize INPUT.onnx OUTPUT.onnx [-p PASS ...] [--skip PASS ...]\n"
	    "           [--list-passes] [--fold-size-limit SIZE] [--fold-grow] [--fold-inexact]\n"
	    "           [--fold-qdq] [--input-shape NAME=DIMS ...] [--write-shapes]\n"
	    "           [--initializers-as-constants]\n"
	    "           [--external-data] [--max-data-file-size SIZE] [--store DIR]\n"
	    "           [--json REPORT] [--non-verbose]\n"
	    "           [--verbose] [--force]\n"
	    "\n"
	    "Run graph passes (onnxoptimizer's names) on an ONNX model of any size until\n"
	    "nothing changes: no-op nodes removed, transposes composed, constant Ifs\n"
	    "replaced by their branch, dead nodes and unread initializers removed, in every\n"
	    "graph and nested body. Graph inputs and outputs keep their names, order, types\n"
	    "and shapes, but for the passes that change them when -p names them\n"
	    "(rename_input_output, rewrite_input_dtype, split_init, split_predict).\n"
	    "The summary gives the nodes before and after, each pass's changes,\n"
	    "and what was left alone counted by reason; --verbose lists each change and\n"
	    "each node left alone with its reason.\n"
	    "\n");
	cli_help_options(f, 33, opts, "Lists take several words or comma-separated names.\n");
}

static int
list_passes(void)
{
	scs_optimize_pass_info info;
	int width = 0;

	for (size_t i = 0; scs_optimize_pass(i, &info); i++)
		if ((int)strlen(info.name) > width)
			width = (int)strlen(info.name);
	for (size_t i = 0; scs_optimize_pass(i, &info); i++)
		printf("%-*s %-8s %s\n", width, info.name, info.in_default ? "default" : "-", info.what);
	return CLI_OK;
}

int
main(int argc, char **argv)
{
	scs_optimize_options o = SCS_OPTIMIZE_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	cli_args a;
	int rc;

	cli_set_prog("scs4onnx-optimize");
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--list-passes") == 0 || strcmp(argv[i], "--list_passes") == 0)
			return list_passes();
	if ((rc = cli_parse(&a, argc, argv, CLI_EXTERNAL | CLI_STORE | CLI_PASSES | CLI_FORCE | CLI_NEW_OUTPUT, usage)) >= 0) {
		cli_args_dispose(&a);
		return rc;
	}
	if (scs_optimize_check_names((const char *const *)a.passes.items, a.passes.n) < 0 ||
	    scs_optimize_check_names((const char *const *)a.skip.items, a.skip.n) < 0) {
		rc = cli_usage_error("%s", scs_err_msg());
		cli_args_dispose(&a);
		return rc;
	}
	o.passes = (const char *const *)a.passes.items;
	o.n_passes = a.passes.n;
	o.skip = (const char *const *)a.skip.items;
	o.n_skip = a.skip.n;
	o.external_data = a.shrink.external_data;
	o.max_data_file_size = a.shrink.max_data_file_size;
	o.store_dir = a.shrink.store_dir;
	o.progress = a.shrink.progress;
	o.fold_size_limit = a.shrink.fold_size_limit;
	o.fold_grow = a.shrink.fold_grow;
	o.fold_inexact = a.shrink.fold_inexact;
	o.input_shapes = a.shrink.input_shapes;
	o.n_input_shapes = a.shrink.n_input_shapes;
	o.write_shapes = a.shrink.write_shapes;
	o.fold_qdq = a.shrink.fold_qdq;
	o.initializers_as_constants = a.shrink.initializers_as_constants;
	return cli_finish(&a, &rep, scs_optimize(&rep, a.pos[0], a.pos[1], &o));
}
