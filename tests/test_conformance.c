/*
 * test_conformance.c: ONNX's own conformance suite (Debian's libonnx-testdata)
 * through every tool: shrink, split into one-node shards, merge, big and
 * optimize. On the suite's inputs each output (the shards as a chain)
 * computes, in ONNX Runtime, bit for bit what the original computes; every
 * run is deterministic and a fixed point. tests/e2e/conformance.py does the
 * work; known defects are named in tests/e2e/conformance-known.txt.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

Test(conformance, every_model_computes_the_same_through_every_tool, .timeout = 1800)
{
	long models = 0, run_models = 0;
	char *text, *summary;
	int rc;

	rc = run(&text, "/usr/bin/python3 '%s/tests/e2e/conformance.py' --tools '%s' --jobs 2 --stride %s",
	    SCS_TEST_SRC_DIR, SCS_TOOLS_DIR, test_stride());
	summary = strstr(text, "conformance: models ");
	cr_assert_not_null(summary, "no summary (exit %d): %s", rc, text);
	fprintf(stderr, "%.*s\n", (int)strcspn(summary, "\n"), summary);
	cr_assert_eq(rc, 0, "%s", text);
	cr_assert_eq(sscanf(summary, "conformance: models %ld, run %ld", &models, &run_models), 2, "%s", summary);
	/* the suite's inputs reach ONNX Runtime: most models run, not a handful */
	cr_assert_geq(run_models * 10, models * 8, "only %ld of %ld models ran: %s", run_models, models, text);
	free(text);
}
