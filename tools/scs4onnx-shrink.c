/*
 * scs4onnx-shrink: merge identical constants of an ONNX model of any size.
 * Accepts the Python scs4onnx's spellings too (-m, -fo, -fc, -d, -n and the
 * underscore forms), so existing scripts carry over.
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
	    "usage: scs4onnx-shrink INPUT.onnx OUTPUT.onnx [options]\n"
	    "\n"
	    "Make an ONNX model smaller without changing what it computes: identical\n"
	    "non-scalar constants (initializers and Constant values, in every graph and\n"
	    "function) become one. Reads models of any size, inline or with external data.\n"
	    "\n"
	    "options:\n"
	    "  -m, --mode {shrink,npy}      shrink: share constants inside the model (default)\n"
	    "                               npy: move repeated constants to .npy files\n"
	    "  -fo, --forced-extraction-op-names NAME[,NAME...]\n"
	    "                               move the constants of these ops to .npy files\n"
	    "  -fc, --forced-extraction-constant-names NAME[,NAME...]\n"
	    "                               move these constants to .npy files\n"
	    "  -d, --disable-auto-downcast  keep float64 and int64 constants as they are\n"
	    "      --optimize               first run scs4onnx-optimize's default passes\n"
	    "      --fold-size-limit SIZE   with --optimize: no folded output over SIZE\n"
	    "                               (K, M, G suffixes; default 1M)\n"
	    "      --fold-grow              with --optimize: also folds that make the model bigger\n"
	    "      --fold-inexact           with --optimize: also fold Exp, Pow, Tanh, ... and\n"
	    "                               float sums, which a runtime may round otherwise\n"
	    "  -n, --non-verbose            print nothing but errors\n"
	    "      --external-data          write the data file OUTPUT.onnx.<16 hex>.data (ONNX\n"
	    "                               external data) even when inline fits (always\n"
	    "                               above 2 GiB)\n"
	    "      --store DIR              keep payloads in this store folder (reused)\n"
	    "      --json FILE              write the report as JSON (- for stdout)\n"
	    "  -f, --force                  replace OUTPUT even when it is read-only\n"
	    "  -h, --help                   show this help\n"
	    "      --version                show the version\n"
	    "\n"
	    "The scs4onnx spellings --forced_extraction_op_names, --forced_extraction_constant_names,\n"
	    "--disable_auto_downcast and --non_verbose work too. Lists take several words or\n"
	    "comma-separated names.\n"
	    "\n"
	    "Exit status: 0 done, 1 failed (nothing written), 2 bad usage.\n");
}

int
main(int argc, char **argv)
{
	scs_report rep;
	cli_args a;
	int rc;

	cli_set_prog("scs4onnx-shrink");
	cli_raise_fd_limit();
	if ((rc = cli_parse(&a, argc, argv, CLI_SHRINK | CLI_EXTERNAL | CLI_STORE | CLI_FORCE, usage)) >= 0) {
		cli_args_dispose(&a);
		return rc;
	}
	return cli_finish(&a, &rep, scs_shrink(&rep, a.pos[0], a.pos[1], &a.shrink));
}
