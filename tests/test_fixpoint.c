/*
 * test_fixpoint.c: one run of a tool reaches what repeated runs would, and
 * nothing depends on where the shard cuts fall: shrink, big and
 * split + merge are fixed points on every fixture, give the same bytes for
 * the same command, take one constant held at two widths by two shards,
 * and keep what shrink keeps; a second shrink or optimize changes no model
 * the build generates. Outputs are checked with ONNX Runtime and
 * onnx.checker, and read back with protobuf-c.
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

/* 1 when the files at @a and @b hold the same bytes. */
static int
same_bytes(const char *a, const char *b)
{
	size_t la, lb;
	uint8_t *da = read_all(a, &la), *db = read_all(b, &lb);
	int same = da && db && la == lb && memcmp(da, db, la) == 0;

	free(da);
	free(db);
	return same;
}

/* split @in into @dir/@name.d at @budget, then merge into @out. */
static void
split_merge(const char *dir, const char *in, const char *name, const char *out, const char *budget)
{
	char sub[256], *shards;

	snprintf(sub, sizeof(sub), "%s.d", name);
	shards = path_in(dir, sub);
	tool_ok("scs4onnx-split", "'%s' '%s' -n --max-shard-size %s", in, shards, budget);
	tool_ok("scs4onnx-merge", "'%s' '%s' -n -f%s", shards, out, "");
	free(shards);
}

/* scs4onnx-big @in -> @out at shard budget 100 succeeds and reports @want; @out computes what @in does. */
static void
big_reports(const char *in, const char *out, const char *want)
{
	char *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s' --max-shard-size 100", in, out), 0, "%s", text);
	cr_assert_not_null(strstr(text, want), "wanted '%s' in: %s", want, text);
	free(text);
	expect_equivalent(in, out, NULL);
}

/* ---- defect 7: one shrink run merges what a second would ---- */

Test(fixpoint, shrink_merges_what_a_nested_definition_hid, .init = shrink_setup, .fini = shrink_teardown)
{
	char *in = fixture("fp_capture.onnx"), *once = path_in(shrunk_dir, "out.onnx"), *twice = path_in(shrunk_dir, "2.onnx");
	Onnx__GraphProto *g = shrink_fixture("fp_capture.onnx", NULL);

	/* the branch's W became V, so W2 could then become W in the same run */
	cr_assert_null(find_init(g, "W2"), "W2 was not merged into W");
	cr_assert_eq(shrunk_rep.skipped.n, 0, "not merged: %s", shrunk_rep.skipped.n ? shrunk_rep.skipped.items[0].name : "");
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n%s", once, twice, "");
	cr_assert(same_bytes(once, twice), "a second shrink changed the model");
	expect_equivalent(in, once, NULL);
	free(in);
	free(once);
	free(twice);
}

Test(fixpoint, shrink_merges_constants_equal_once_narrowed, .init = shrink_setup, .fini = shrink_teardown)
{
	char *in = fixture("fp_narrow.onnx"), *once = path_in(shrunk_dir, "out.onnx"), *twice = path_in(shrunk_dir, "2.onnx");
	Onnx__GraphProto *g = shrink_fixture("fp_narrow.onnx", NULL);

	cr_assert_eq(g->n_initializer, 1, "initializers: %zu (A narrowed equals B)", g->n_initializer);
	cr_assert_eq(g->initializer[0]->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT32);
	cr_assert_eq(shrunk_rep.n_constants, 2, "constants studied: %llu", (unsigned long long)shrunk_rep.n_constants);
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n%s", once, twice, "");
	cr_assert(same_bytes(once, twice), "a second shrink changed the model");
	expect_equivalent(in, once, NULL);
	free(in);
	free(once);
	free(twice);
}

/* ---- defect 7: big's node order is its own fixed point ---- */

Test(fixpoint, big_twice_keeps_the_node_order)
{
	char *dir = tmpdir_new(), *in = fixture("fp_order.onnx"), *once = path_in(dir, "1.onnx"), *twice = path_in(dir, "2.onnx");

	/* P and Q merge in the first run, so the second cuts elsewhere */
	tool_ok("scs4onnx-big", "'%s' '%s' -n --max-shard-size 2000%s", in, once, "");
	tool_ok("scs4onnx-big", "'%s' '%s' -n --max-shard-size 2000%s", once, twice, "");
	cr_assert(same_bytes(once, twice), "a second big run reordered the model");
	expect_equivalent(in, once, NULL);
	free(in);
	free(once);
	free(twice);
	tmpdir_remove(dir);
}

/* ---- defect 6: one constant, narrowable in one shard and not in another ---- */

Test(fixpoint, merge_takes_a_constant_held_at_two_widths)
{
	char *dir = tmpdir_new(), *in = fixture("fp_widths.onnx"), *shards = path_in(dir, "shards"),
	     *shrunk = path_in(dir, "shrunk"), *step = path_in(dir, "step.onnx"), *text;
	Onnx__ModelProto *m;
	Onnx__TensorProto *k;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 100 -n", in, shards), 0, "%s", text);
	free(text);
	shrink_shards(shards, shrunk);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' -n", shrunk, step), 0, "%s", text);
	free(text);
	expect_equivalent(in, step, NULL);
	m = load_proto(step);
	cr_assert_not_null(m);
	k = find_init(m->graph, "K");
	cr_assert_not_null(k);
	cr_assert_eq(k->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, "Reshape reads K: it stays int64");
	free_proto(m);
	free(in);
	free(shards);
	free(shrunk);
	free(step);
	tmpdir_remove(dir);
}

Test(fixpoint, big_narrows_on_the_whole_model)
{
	char *dir = tmpdir_new(), *in = fixture("fp_widths.onnx"), *out = path_in(dir, "big.onnx");

	big_reports(in, out, "INFO: constants studied: 2 ");
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* ---- defect 8: what merge keeps, annotations, big's count ---- */

static void
expect_kept(const char *path)
{
	Onnx__ModelProto *m = load_proto(path);
	Onnx__GraphProto *g;
	int vi_kc = 0, vi_u = 0;

	cr_assert_not_null(m, "%s does not parse", path);
	g = m->graph;
	cr_assert_not_null(find_init(g, "U"), "%s: the unread initializer U was dropped", path);
	for (size_t i = 0; i < g->n_value_info; i++) {
		vi_kc += strcmp(g->value_info[i]->name, "KC") == 0;
		vi_u += strcmp(g->value_info[i]->name, "U") == 0;
	}
	cr_assert_eq(vi_kc, 1, "%s: value_info of the Constant KC: %d", path, vi_kc);
	cr_assert_eq(vi_u, 1, "%s: value_info of the initializer U: %d", path, vi_u);
	cr_assert_eq(g->n_quantization_annotation, 1, "%s: annotations: %zu", path, g->n_quantization_annotation);
	cr_assert_not_null(find_init(g, g->quantization_annotation[0]->tensor_name), "%s: annotation of a tensor gone",
	    path);
	for (size_t i = 0; i < g->quantization_annotation[0]->n_quant_parameter_tensor_names; i++) {
		const char *v = g->quantization_annotation[0]->quant_parameter_tensor_names[i]->value;

		cr_assert_not_null(find_init(g, v), "%s: the annotation names '%s', which is gone", path, v);
	}
	free_proto(m);
}

Test(fixpoint, shrink_rewrites_annotations)
{
	char *dir = tmpdir_new(), *in = fixture("fp_keep.onnx"), *out = path_in(dir, "s.onnx");

	tool_ok("scs4onnx-shrink", "'%s' '%s' -n%s", in, out, "");
	expect_kept(out);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(fixpoint, merge_keeps_what_shrink_keeps)
{
	char *dir = tmpdir_new(), *in = fixture("fp_keep.onnx"), *out = path_in(dir, "m.onnx");

	split_merge(dir, in, "keep", out, "100");
	expect_kept(out);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(fixpoint, big_counts_each_constant_once)
{
	char *dir = tmpdir_new(), *in = fixture("fp_keep.onnx"), *out = path_in(dir, "b.onnx");

	/* W1, W2, U and KC; several shards hold copies of W2 */
	big_reports(in, out, "INFO: constants studied: 4 ");
	expect_kept(out);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* ---- idempotence and determinism on every fixture ---- */

typedef struct fixture_name {
	char name[32];
} fixture_name;

ParameterizedTestParameters(fixpoint, every_tool_is_idempotent_and_deterministic)
{
	static fixture_name names[] = { { "tiny.onnx" }, { "encodings.onnx" }, { "slice.onnx" }, { "unsorted.onnx" },
		{ "downcast.onnx" }, { "dup_basic.onnx" }, { "dup_encodings.onnx" }, { "external.onnx" },
		{ "if_outer.onnx" }, { "loop_dup.onnx" }, { "nested_if.onnx" }, { "shadow.onnx" }, { "func_dup.onnx" },
		{ "fp_widths.onnx" }, { "fp_capture.onnx" }, { "fp_narrow.onnx" }, { "fp_order.onnx" },
		{ "fp_keep.onnx" }, { "gather_typed.onnx" }, { "gather_raw.onnx" }, { "typed_pair.onnx" },
		{ "concat70.onnx" }, { "sum70.onnx" }, { "relu254_split.onnx" }, { "split80.onnx" }, { "ops_matmul.onnx" },
		{ "ops_reshape.onnx" }, { "ops_reduce.onnx" } };

	return cr_make_param_array(fixture_name, names, sizeof(names) / sizeof(names[0]));
}

ParameterizedTest(fixture_name *p, fixpoint, every_tool_is_idempotent_and_deterministic)
{
	static const char *const budgets[] = { "300", "2000" };
	char *dir = tmpdir_new(), *in = fixture(p->name);
	char *s1 = path_in(dir, "s1.onnx"), *s2 = path_in(dir, "s2.onnx"), *s1b = path_in(dir, "s1b.onnx");
	char *b1 = path_in(dir, "b1.onnx"), *b2 = path_in(dir, "b2.onnx"), *b1b = path_in(dir, "b1b.onnx");
	char *m1 = path_in(dir, "m1.onnx"), *m2 = path_in(dir, "m2.onnx"), *m1b = path_in(dir, "m1b.onnx");

	tool_ok("scs4onnx-shrink", "'%s' '%s' -n%s", in, s1, "");
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n%s", in, s1b, "");
	cr_assert(same_bytes(s1, s1b), "%s: shrink twice on the same input gave different bytes", p->name);
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n%s", s1, s2, "");
	cr_assert(same_bytes(s1, s2), "%s: shrink(shrink(x)) differs from shrink(x)", p->name);
	for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		char name[32];

		tool_ok("scs4onnx-big", "'%s' '%s' -n -f --max-shard-size %s", in, b1, budgets[i]);
		tool_ok("scs4onnx-big", "'%s' '%s' -n -f --max-shard-size %s", in, b1b, budgets[i]);
		cr_assert(same_bytes(b1, b1b), "%s: big twice on the same input gave different bytes (%s)", p->name,
		    budgets[i]);
		tool_ok("scs4onnx-big", "'%s' '%s' -n -f --max-shard-size %s", b1, b2, budgets[i]);
		cr_assert(same_bytes(b1, b2), "%s: big(big(x)) differs from big(x) (budget %s)", p->name, budgets[i]);
		snprintf(name, sizeof(name), "x%zu", i);
		split_merge(dir, in, name, m1, budgets[i]);
		snprintf(name, sizeof(name), "xb%zu", i);
		split_merge(dir, in, name, m1b, budgets[i]);
		cr_assert(same_bytes(m1, m1b), "%s: merge(split(x)) twice gave different bytes (%s)", p->name, budgets[i]);
		snprintf(name, sizeof(name), "m%zu", i);
		split_merge(dir, m1, name, m2, budgets[i]);
		cr_assert(same_bytes(m1, m2), "%s: merge(split(m)) differs from m = merge(split(x)) (budget %s)", p->name,
		    budgets[i]);
	}
	free(in);
	free(s1);
	free(s2);
	free(s1b);
	free(b1);
	free(b2);
	free(b1b);
	free(m1);
	free(m2);
	free(m1b);
	tmpdir_remove(dir);
}

/* ---- a second run changes nothing, on every model the build generates ---- */

/* The .onnx files of the fixture folder, sorted; *n of them. */
static char **
every_fixture(size_t *n)
{
	char *text, *line, *save = NULL, **out = NULL;
	size_t cap = 0;

	*n = 0;
	cr_assert_eq(run(&text, "cd '%s' && ls -1 -- *.onnx | LC_ALL=C sort", SCS_TEST_BUILD_DIR), 0, "%s", text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			out = realloc(out, cap * sizeof(*out));
			cr_assert_not_null(out);
		}
		out[(*n)++] = strdup(line);
	}
	free(text);
	return out;
}

/*
 * shrink(shrink(x)) == shrink(x) and optimize(optimize(x)) == optimize(x),
 * byte for byte, for every model a generator of the build writes (so a new
 * fixture is covered the day it is added). A fixture the tool refuses (bad
 * input on purpose) is skipped; most are not.
 */
static void
twice_is_once(const char *tool, const char *flags)
{
	char *dir = tmpdir_new(), *once = path_in(dir, "1.onnx"), *twice = path_in(dir, "2.onnx"), *text;
	char **names, failures[8192] = "";
	size_t n, ran = 0, differ = 0;

	names = every_fixture(&n);
	for (size_t i = 0; i < n; i++) {
		char *in = fixture(names[i]);

		if (run_tool(&text, tool, "'%s' '%s' -f %s", in, once, flags) == 0) {
			free(text);
			cr_assert_eq(run_tool(&text, tool, "'%s' '%s' -f %s", once, twice, flags), 0,
			    "%s %s: its own output is refused: %s", tool, names[i], text);
			ran++;
			if (!same_bytes(once, twice)) {
				differ++;
				strncat(failures, " ", sizeof(failures) - strlen(failures) - 1);
				strncat(failures, names[i], sizeof(failures) - strlen(failures) - 1);
			}
		}
		free(text);
		run(NULL, "rm -f '%s'* '%s'*", once, twice);
		free(in);
		free(names[i]);
	}
	free(names);
	cr_assert_eq(differ, 0, "%s: a second run changed %zu of %zu fixtures:%s", tool, differ, ran, failures);
	cr_assert_geq(ran, 200, "%s ran on %zu fixtures only", tool, ran);
	free(once);
	free(twice);
	tmpdir_remove(dir);
}

Test(fixpoint, a_second_shrink_changes_no_fixture, .timeout = 1200)
{
	twice_is_once("scs4onnx-shrink", "-n");
}

Test(fixpoint, a_second_optimize_changes_no_fixture, .timeout = 1200)
{
	twice_is_once("scs4onnx-optimize", "-q");
}
