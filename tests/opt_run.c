/*
 * opt_run.c: run the optimizer's passes on a model from the command line,
 * for the tests and scripts/bench-optimize.sh until scs4onnx-optimize
 * exists. A test helper, not a tool: no progress, no usage beyond this.
 *
 *   opt-run IN.onnx OUT.onnx [PASS ...]     (no PASS: the default set)
 *
 * Prints the report (scs_report_print) on stderr; exit status 0 done,
 * 1 failed (one line), 2 bad usage.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "util/err.h"
#include "report.h"
#include "scs4onnx.h"

int
main(int argc, char **argv)
{
	scs_optimize_options o = SCS_OPTIMIZE_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: opt-run IN.onnx OUT.onnx [PASS ...]\n");
		return 2;
	}
	o.passes = (const char *const *)argv + 3;
	o.n_passes = (size_t)(argc - 3);
	rc = scs_optimize(&rep, argv[1], argv[2], &o);
	if (rc < 0)
		fprintf(stderr, "opt-run: error: %s\n", scs_err_msg());
	else
		scs_report_print(&rep, stderr);
	scs_report_dispose(&rep);
	return rc == SCS_EUSAGE ? 2 : rc < 0 ? 1 : 0;
}
