/*
 * test_infer_overflow.c: shape inference on dims whose products pass
 * INT64_MAX (a fuzzer found a Reshape shape like that). Under the
 * sanitizer build the tools report any signed overflow as "runtime error";
 * the split must either refuse cleanly or write shards that pass
 * onnx.checker, with no such report.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

Test(infer, dims_whose_product_passes_int64_do_not_overflow)
{
	char *dir = tmpdir_new(), *model = path_in(dir, "reshape_overflow.onnx"), *shards = path_in(dir, "shards"),
	     *text, *list;
	int rc, count;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/gen_edge_models.py' reshape_overflow '%s'",
	    SCS_TEST_SRC_DIR, dir), 0, "%s", text);
	free(text);
	rc = run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 100 -n", model, shards);
	cr_assert_null(strstr(text, "runtime error"), "the sanitizer reported: %s", text);
	cr_assert(rc == 0 || (rc == 1 && strstr(text, "error:")), "status %d: %s", rc, text);
	free(text);
	if (rc == 0) {
		list = shard_list(shards, &count);
		cr_assert_gt(count, 1, "the tiny budget cuts the model");
		cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/check_model.py' %s", SCS_TEST_SRC_DIR, list), 0,
		    "%s", text);
		free(text);
		free(list);
	}
	free(model);
	free(shards);
	tmpdir_remove(dir);
}
