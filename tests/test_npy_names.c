/*
 * test_npy_names.c: npy mode gives every exported constant a file and an
 * input name of its own. "x:y" and "x_y" map to the same scs4onnx file name,
 * and the model may already use the next one: each still gets its own .npy,
 * the model its own input, and fed back, the model computes what it did.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "shrink/npy.h"
#include "support.h"

static int
inputs_named(const Onnx__GraphProto *g, const char *name)
{
	int n = 0;

	for (size_t i = 0; i < g->n_input; i++)
		n += strcmp(g->input[i]->name, name) == 0;
	return n;
}

Test(extract, constants_whose_npy_names_clash_get_names_of_their_own)
{
	char *dir = tmpdir_new(), *in = path_in(dir, "npy_clash.onnx"), *out = path_in(dir, "out.onnx"),
	     *first = path_in(dir, "out_exported_x_y.npy"), *second = path_in(dir, "out_exported_x_y_2.npy"), *text,
	     feeds[4096];
	Onnx__ModelProto *m;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/gen_edge_models.py' npy_clash '%s'", SCS_TEST_SRC_DIR, dir),
	    0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --mode npy", in, out), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: npy name made unique: x:y: out_exported_x_y_2.npy "
	    "(out_exported_x_y.npy is taken)"), "%s", text);
	free(text);
	cr_assert(file_exists(first), "no %s", first);
	cr_assert(file_exists(second), "no %s", second);
	cr_assert_eq(count_files(dir, "out_exported_"), 2, "one .npy a constant");
	m = load_proto(out);
	cr_assert_not_null(m);
	cr_assert_eq(inputs_named(m->graph, "out_exported_x_y.npy"), 1);
	cr_assert_eq(inputs_named(m->graph, "out_exported_x_y_1.npy"), 1, "the model's own input stays alone");
	cr_assert_eq(inputs_named(m->graph, "out_exported_x_y_2.npy"), 1);
	free_proto(m);
	snprintf(feeds, sizeof(feeds), "--feed out_exported_x_y.npy='%s' --feed out_exported_x_y_2.npy='%s'", first,
	    second);
	expect_equivalent(in, out, feeds);
	free(in);
	free(out);
	free(first);
	free(second);
	tmpdir_remove(dir);
}

Test(extract, numbered_npy_names_keep_the_sanitized_stem)
{
	char *plain = scs_npy_file_name_nth("dir/model.onnx", "a:b", 0), *third = scs_npy_file_name_nth("model", "a/b", 3);

	cr_assert_str_eq(plain, "model_exported_a_b.npy");
	cr_assert_str_eq(third, "model_exported_a_b_3.npy");
	free(plain);
	free(third);
}
