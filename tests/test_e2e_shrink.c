/*
 * test_e2e_shrink.c: scs4onnx-shrink end to end: every output passes
 * onnx.checker and computes, in ONNX Runtime, bit for bit what its input
 * computed for the same inputs.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "support.h"

/* names by value: parameters cross into the test's own process */
typedef struct model_name {
	char name[32];
} model_name;

ParameterizedTestParameters(e2e, every_model_computes_the_same)
{
	static model_name names[] = { { "dup_basic.onnx" }, { "dup_encodings.onnx" }, { "if_outer.onnx" },
		{ "shadow.onnx" }, { "downcast.onnx" }, { "external.onnx" }, { "loop_dup.onnx" }, { "nested_if.onnx" },
		{ "slice.onnx" }, { "func_dup.onnx" } };

	return cr_make_param_array(model_name, names, sizeof(names) / sizeof(names[0]));
}

ParameterizedTest(model_name *p, e2e, every_model_computes_the_same)
{
	char *dir = tmpdir_new(), *in = fixture(p->name), *out = path_in(dir, "out.onnx"), *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s'", in, out), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: groups merged"), "no summary: %s", text);
	free(text);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(e2e, external_data_in_and_out_is_aligned_and_loads)
{
	char *dir = tmpdir_new(), *in = fixture("external.onnx"), *out = path_in(dir, "m.onnx"), *data, *location,
	     *text;
	Onnx__ModelProto *m;
	int n_ext = 0;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --external-data -n", in, out), 0, "%s", text);
	cr_assert_str_eq(text, "", "--non-verbose printed: %s", text);
	free(text);
	data = data_file_beside(out);
	cr_assert_not_null(data, "no m.onnx.<16 hex>.data beside m.onnx");
	location = external_location(out);
	cr_assert_not_null(location);
	cr_assert_str_eq(location, strrchr(data, '/') + 1, "the model names another file than the one beside it");
	m = load_proto(out);
	cr_assert_not_null(m);
	for (size_t i = 0; i < m->graph->n_initializer; i++) {
		Onnx__TensorProto *t = m->graph->initializer[i];

		if (!t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
			continue;
		n_ext++;
		for (size_t j = 0; j < t->n_external_data; j++)
			if (strcmp(t->external_data[j]->key, "offset") == 0)
				cr_assert_eq(strtoull(t->external_data[j]->value, NULL, 10) % 4096, 0, "offset %s",
				    t->external_data[j]->value);
	}
	cr_assert_geq(n_ext, 2, "external tensors: %d", n_ext);
	free_proto(m);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	free(data);
	free(location);
	tmpdir_remove(dir);
}

Test(e2e, a_rewritten_output_keeps_one_data_file_and_an_inline_one_none)
{
	char *dir = tmpdir_new(), *in = fixture("external.onnx"), *other = fixture("dup_basic.onnx"),
	     *out = path_in(dir, "m.onnx"), *legacy = path_in(dir, "m.onnx.data"), *first, *second, *text;
	uint64_t size;

	/* a data file under the name earlier versions used, and the output twice */
	write_all(legacy, "stale", 5);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --external-data", in, out), 0, "%s", text);
	free(text);
	cr_assert(!file_exists(legacy), "the stale m.onnx.data was left");
	first = data_file_beside(out);
	cr_assert_not_null(first);
	size = file_size(first);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --external-data -f", in, out), 0, "%s", text);
	free(text);
	second = data_file_beside(out);
	cr_assert_str_eq(second, first, "the same contents, another name");
	cr_assert_eq(file_size(second), size, "second run: %llu bytes, first %llu", (unsigned long long)file_size(second),
	    (unsigned long long)size);
	expect_equivalent(in, out, NULL);
	/* another model, inline: its data file goes with the old model */
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -f", other, out), 0, "%s", text);
	free(text);
	cr_assert_null(data_file_beside(out), "an inline output kept the old data file");
	cr_assert_eq(count_files(dir, ""), 3, "m.onnx and nothing else");
	expect_equivalent(other, out, NULL);
	free(in);
	free(other);
	free(out);
	free(legacy);
	free(first);
	free(second);
	tmpdir_remove(dir);
}

Test(e2e, writing_over_the_input_is_refused)
{
	char *dir = tmpdir_new(), *src = fixture("dup_basic.onnx"), *in = path_in(dir, "m.onnx"), *text;
	size_t len;
	uint8_t *before = read_all(src, &len), *after;
	size_t len2;

	write_all(in, before, len);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s'", in, in), 1, "%s", text);
	cr_assert_not_null(strstr(text, "the input is read from this file"), "%s", text);
	free(text);
	after = read_all(in, &len2);
	cr_assert_eq(len2, len);
	cr_assert_arr_eq(after, before, len);
	free(before);
	free(after);
	free(src);
	free(in);
	tmpdir_remove(dir);
}

Test(e2e, scs4onnx_spellings_and_json_report)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *out = path_in(dir, "o.onnx"),
	     *json = path_in(dir, "r.json"), *text;
	size_t len;
	char *report;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --mode shrink --non_verbose -d --json '%s'", in, out,
	    json), 0, "%s", text);
	free(text);
	report = (char *)read_all(json, &len);
	cr_assert_not_null(report);
	cr_assert_not_null(strstr(report, "\"canonical\": \"W1\""), "%s", report);
	cr_assert_not_null(strstr(report, "\"merged\": [\"W2\", \"W3\", \"Cw\"]"), "%s", report);
	free(report);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "--help"), 0);
	cr_assert_not_null(strstr(text, "--forced-extraction-op-names"), "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --bogus", in, out), 2, "%s", text);
	free(text);
	free(in);
	free(out);
	free(json);
	tmpdir_remove(dir);
}

Test(e2e, a_kept_store_is_reused_and_gives_the_same_model)
{
	char *dir = tmpdir_new(), *in = fixture("dup_encodings.onnx"), *store = path_in(dir, "store"),
	     *o1 = path_in(dir, "one.onnx"), *o2 = path_in(dir, "two.onnx"), *text;
	uint8_t *a, *b;
	size_t la, lb;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --store '%s' -n", in, o1, store), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --store '%s' -n", in, o2, store), 0, "%s", text);
	free(text);
	cr_assert(file_exists(store), "the store folder is kept");
	a = read_all(o1, &la);
	b = read_all(o2, &lb);
	cr_assert_eq(la, lb);
	cr_assert_arr_eq(a, b, la, "a second run through the same store wrote another model");
	expect_equivalent(in, o2, NULL);
	free(a);
	free(b);
	free(in);
	free(store);
	free(o1);
	free(o2);
	tmpdir_remove(dir);
}
