/*
 * test_nop.c: the no-op eliminations (eliminate_nop_concat,
 * eliminate_nop_expand, eliminate_nop_flatten,
 * eliminate_nop_monotone_argmax, eliminate_nop_split,
 * eliminate_nop_with_unit, eliminate_consecutive_idempotent_ops,
 * eliminate_nop_slice, nop).
 *
 * Each model comes from tests/e2e/gen_nop_models.py: first the graphs of
 * onnxoptimizer's own test cases (onnxoptimizer/test/optimizer_test.py,
 * named after them) with the structure they expect, or, where that
 * structure would compute something else for some input, our refusal and
 * its reason; then the cases those tests leave out (unknown dims, graph
 * inputs and outputs, typed encodings, old and new opsets, nested
 * bodies). Every output passes onnx.checker and computes in ONNX Runtime
 * what the input computes, bit for bit (expect_equivalent).
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* the scratch folder, output path and report of support.c's run_setup() */
#define out run_out
#define rep run_rep

/* Run pass @pass (NULL: the default set) on fixture @name; the output, read back (free_proto). */
static Onnx__ModelProto *
optimize(const char *name, const char *pass)
{
	const char *passes[] = { pass, NULL };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = pass ? passes : NULL,
		.n_passes = pass ? 1 : 0 };

	return run_optimize(name, &o);
}

static const char *
left_all(void)
{
	return report_left_all(&rep);
}

#define EXPECT_LEFT(node, what) cr_expect(report_left_has(&rep, node, what), "no refusal of '%s' saying \"%s\"; " \
	"left:%s", node, what, left_all())

/* The node named @name in @g, or NULL. */
static Onnx__NodeProto *
node_named(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		if (g->node[i]->name && strcmp(g->node[i]->name, name) == 0)
			return g->node[i];
	return NULL;
}

#define GONE(g, name) cr_expect_null(node_named(g, name), "node '%s' is left; left:%s", name, left_all())
#define KEPT(g, name) cr_expect_not_null(node_named(g, name), "node '%s' was removed", name)

/* The output passes onnx.checker and computes what fixture @name computes (@extra: ort_compare's options). */
static void
same(const char *name, const char *extra)
{
	char *in = fixture(name);

	expect_equivalent(in, out, extra);
	free(in);
}

TestSuite(nop, .init = run_setup, .fini = run_teardown);

/* ---- onnxoptimizer's cases ---- */

Test(nop, not_fuse_non_nop_flatten)
{
	Onnx__ModelProto *m = optimize("nop_flatten_not_nop.onnx", "eliminate_nop_flatten");

	cr_assert_eq(m->graph->n_node, 2);
	cr_expect_str_eq(m->graph->node[0]->op_type, "Identity");
	cr_expect_str_eq(m->graph->node[1]->op_type, "Flatten");
	same("nop_flatten_not_nop.onnx", NULL);
	free_proto(m);
}

Test(nop, nop_flatten_axis0_graph_output)
{
	Onnx__ModelProto *m = optimize("nop_flatten_axis0_out.onnx", "eliminate_nop_flatten");

	cr_assert_eq(m->graph->n_node, 1, "left:%s", left_all());
	cr_expect_str_eq(m->graph->node[0]->op_type, "Add");
	cr_expect_str_eq(m->graph->node[0]->output[0], "B", "the graph output keeps its name");
	same("nop_flatten_axis0_out.onnx", NULL);
	free_proto(m);
}

Test(nop, nop_flatten_axis0_and_axis1)
{
	static const char *const names[] = { "nop_flatten_axis0.onnx", "nop_flatten_axis1.onnx" };

	for (size_t i = 0; i < 2; i++) {
		Onnx__ModelProto *m = optimize(names[i], "eliminate_nop_flatten");

		cr_assert_eq(m->graph->n_node, 1, "%s: left:%s", names[i], left_all());
		cr_expect_str_eq(m->graph->node[0]->op_type, "Identity");
		same(names[i], NULL);
		free_proto(m);
	}
}

Test(nop, eliminate_nop_expand)
{
	Onnx__ModelProto *m = optimize("nop_expand.onnx", "eliminate_nop_expand");

	cr_assert_eq(m->graph->n_node, 1, "left:%s", left_all());
	cr_expect_str_eq(m->graph->node[0]->op_type, "Identity");
	same("nop_expand.onnx", NULL);
	free_proto(m);
}

/*
 * onnxoptimizer leaves Neg, Cast, Identity; here both Adds of +0.0 stay
 * (x + 0.0 is +0.0 for x = -0.0) and Sub(+0.0, x) is not made Neg(x) (+0.0
 * where Neg gives -0.0 for x = +0.0); everything else goes
 */
Test(nop, eliminate_nop_with_unit_keeps_what_changes_minus_zero)
{
	Onnx__ModelProto *m = optimize("nop_with_unit.onnx", "eliminate_nop_with_unit");
	Onnx__GraphProto *g = m->graph;

	cr_assert_eq(g->n_node, 5, "%zu nodes; left:%s", g->n_node, left_all());
	GONE(g, "mul1");
	GONE(g, "mul2");
	GONE(g, "sub1");
	GONE(g, "div");
	GONE(g, "pow");
	GONE(g, "or");
	GONE(g, "and");
	KEPT(g, "add1");
	KEPT(g, "add2");
	KEPT(g, "sub2");
	cr_expect_str_eq(node_named(g, "sub2")->op_type, "Sub", "+0.0 - x is not Neg(x) for x = +0.0");
	EXPECT_LEFT("sub2", "+0.0 - y is +0.0 for y = +0.0");
	EXPECT_LEFT("add1", "turns -0.0 into +0.0");
	EXPECT_LEFT("add2", "turns -0.0 into +0.0");
	same("nop_with_unit.onnx", NULL);
	free_proto(m);
}

/* onnxoptimizer makes the ArgMax read X in each; rounding can tie, so each is reported and left */
Test(nop, eliminate_nop_monotone_argmax_refused_with_its_reason)
{
	Onnx__ModelProto *m = optimize("nop_argmax_exp.onnx", "eliminate_nop_monotone_argmax");

	cr_assert_eq(m->graph->n_node, 2);
	cr_expect_str_eq(node_named(m->graph, "argmax")->input[0], "Y");
	EXPECT_LEFT("argmax", "Exp rounds different inputs to one output");
	same("nop_argmax_exp.onnx", NULL);
	free_proto(m);
	m = optimize("nop_argmax_softmax.onnx", "eliminate_nop_monotone_argmax");
	cr_assert_eq(m->graph->n_node, 4);
	EXPECT_LEFT("argmax", "Softmax rounds");
	cr_expect_not(report_left_has(&rep, "argmax2", ""), "another axis is not reported:%s", left_all());
	free_proto(m);
	m = optimize("nop_argmax_log.onnx", "eliminate_nop_monotone_argmax");
	cr_assert_eq(m->graph->n_node, 4);
	EXPECT_LEFT("argmax", "Log gives NaN for negative inputs");
	EXPECT_LEFT("argmax2", "Sqrt gives NaN for negative inputs");
	free_proto(m);
}

Test(nop, preserve_value_info)
{
	Onnx__ModelProto *m = optimize("nop_preserve_vi.onnx", "nop");

	cr_assert_eq(m->graph->n_node, 3);
	cr_assert_eq(m->graph->n_value_info, 1);
	cr_expect_str_eq(m->graph->value_info[0]->name, "Y");
	cr_expect_eq(rep.changes.n, 0);
	same("nop_preserve_vi.onnx", NULL);
	free_proto(m);
}

/* ---- the cases onnxoptimizer's tests leave out ---- */

Test(nop, concat_of_one_input_goes_unless_both_names_must_stay)
{
	Onnx__ModelProto *m = optimize("nop_concat.onnx", "eliminate_nop_concat");

	GONE(m->graph, "cat1");
	KEPT(m->graph, "cat_io");
	KEPT(m->graph, "cat2");
	EXPECT_LEFT("cat_io", "both names must stay");
	cr_expect_str_eq(node_named(m->graph, "relu")->input[0], "X");
	same("nop_concat.onnx", NULL);
	free_proto(m);
}

Test(nop, split_of_one_output_as_input_attribute_or_absent)
{
	Onnx__ModelProto *m = optimize("nop_split.onnx", "eliminate_nop_split");

	GONE(m->graph, "split_none");
	GONE(m->graph, "split_four");
	KEPT(m->graph, "split_input");
	EXPECT_LEFT("split_input", "graph input");
	same("nop_split.onnx", NULL);
	free_proto(m);
	m = optimize("nop_split_op11.onnx", "eliminate_nop_split");
	GONE(m->graph, "split_attr");
	same("nop_split_op11.onnx", NULL);
	free_proto(m);
}

Test(nop, expand_that_grows_or_may_grow_stays)
{
	Onnx__ModelProto *m = optimize("nop_expand_more.onnx", "eliminate_nop_expand");

	KEPT(m->graph, "grow");
	KEPT(m->graph, "rank");
	GONE(m->graph, "keep_n");
	KEPT(m->graph, "unknown_n");
	EXPECT_LEFT("unknown_n", "dim 0 of 'N' is not known");
	same("nop_expand_more.onnx", NULL);
	free_proto(m);
}

Test(nop, flatten_by_axis_and_known_dims)
{
	Onnx__ModelProto *m = optimize("nop_flatten_more.onnx", "eliminate_nop_flatten");

	GONE(m->graph, "minus1");
	GONE(m->graph, "axis2");
	KEPT(m->graph, "unknown");
	KEPT(m->graph, "rank3");
	EXPECT_LEFT("unknown", "dim 0 of 'N' is 1, and it is not known");
	same("nop_flatten_more.onnx", NULL);
	free_proto(m);
}

/*
 * x + (-0.0) and x - (+0.0) go, x + (+0.0) and x - (-0.0) stay; integer
 * 0 - x becomes Neg(x), (+0.0) - x and (-0.0) - x stay (the second keeps a
 * NaN's sign, Neg flips it); fed -0.0, +0.0 and NaN the outputs (read
 * through Neg, which shows the sign) are the same bytes
 */
Test(nop, unit_zero_by_its_sign)
{
	Onnx__ModelProto *m = optimize("nop_unit_zero.onnx", "eliminate_nop_with_unit");
	Onnx__GraphProto *g = m->graph;
	char *npy = fixture("nop_unit_zero.X.npy"), extra[1024];

	KEPT(g, "add_pos");
	GONE(g, "add_neg");
	GONE(g, "sub_pos");
	KEPT(g, "sub_neg");
	GONE(g, "add_neg_first");
	GONE(g, "add_int");
	GONE(g, "sub_int");
	cr_expect_str_eq(node_named(g, "zero_minus")->op_type, "Neg");
	cr_expect_str_eq(node_named(g, "neg_zero_minus")->op_type, "Sub");
	EXPECT_LEFT("neg_zero_minus", "-0.0 - y keeps the sign of a NaN y where Neg(y) flips it");
	cr_expect_str_eq(node_named(g, "pos_zero_minus")->op_type, "Sub");
	EXPECT_LEFT("pos_zero_minus", "+0.0 - y is +0.0 for y = +0.0 where Neg(y) is -0.0");
	EXPECT_LEFT("add_pos", "x + +0.0 is not x for x = -0.0");
	EXPECT_LEFT("sub_neg", "x - -0.0 is not x for x = -0.0");
	snprintf(extra, sizeof(extra), "--feed-both 'X=%s'", npy);
	same("nop_unit_zero.onnx", extra);
	same("nop_unit_zero.onnx", NULL);
	free(npy);
	free_proto(m);
}

Test(nop, unit_that_broadcasts_stays_and_every_element_is_read)
{
	Onnx__ModelProto *m = optimize("nop_unit_shape.onnx", "eliminate_nop_with_unit");
	Onnx__GraphProto *g = m->graph;
	char *npy = fixture("nop_unit_shape.L.npy"), extra[1024];

	KEPT(g, "grow");
	KEPT(g, "rank");
	GONE(g, "keep_n");
	KEPT(g, "unknown_n");
	KEPT(g, "one_over");
	GONE(g, "half");
	GONE(g, "pow_int");
	GONE(g, "big");
	KEPT(g, "big_last");
	EXPECT_LEFT("grow", "'ones34' broadcasts 'X31' to another shape");
	EXPECT_LEFT("rank", "'ones12' broadcasts 'X2' to another shape");
	EXPECT_LEFT("unknown_n", "dim 0 of 'N' is not known");
	KEPT(g, "pow_i64");
	EXPECT_LEFT("pow_i64", "the element type of 'L' is int64");
	snprintf(extra, sizeof(extra), "--feed-both 'L=%s'", npy);
	same("nop_unit_shape.onnx", extra);
	same("nop_unit_shape.onnx", NULL);
	free(npy);
	free_proto(m);
}

Test(nop, unit_in_opset_6_broadcast)
{
	Onnx__ModelProto *m = optimize("nop_unit_op6.onnx", "eliminate_nop_with_unit");
	char *text;

	GONE(m->graph, "mul_bcast");
	cr_assert_eq(onnx_check(&text, out), 0, "%s", text);
	free(text);
	free_proto(m);
}

Test(nop, idempotent_pairs_and_reshape_with_zero)
{
	Onnx__ModelProto *m = optimize("nop_idempotent.onnx", "eliminate_consecutive_idempotent_ops");
	Onnx__GraphProto *g = m->graph;

	GONE(g, "relu2");
	GONE(g, "ceil2");
	KEPT(g, "ceil1");
	cr_expect_eq(count_ops(g, "Floor"), 1, "Floor x3 -> 1");
	KEPT(g, "sign2");
	EXPECT_LEFT("sign2", "both names that must stay");
	cr_expect_eq(count_ops(g, "Round"), 1);
	cr_expect_not_null(find_node_by_output(g, "Y5"), "the graph output Y5 is made by nothing");
	GONE(g, "reshape1");
	cr_expect_str_eq(node_named(g, "reshape2")->input[0], "R");
	KEPT(g, "reshape3");
	cr_expect_str_eq(node_named(g, "reshape4")->input[0], "q1");
	EXPECT_LEFT("reshape4", "its shape has a 0, which copies a dim of 'q1', not of 'R'");
	same("nop_idempotent.onnx", NULL);
	free_proto(m);
}

Test(nop, slice_that_keeps_everything)
{
	Onnx__ModelProto *m = optimize("nop_slice.onnx", "eliminate_nop_slice");
	Onnx__GraphProto *g = m->graph;

	GONE(g, "whole_axis1");
	GONE(g, "axes_0_2");
	KEPT(g, "cuts");
	KEPT(g, "step2");
	GONE(g, "int32");
	GONE(g, "n_whole");
	KEPT(g, "n_ten");
	KEPT(g, "starts_input");
	EXPECT_LEFT("n_ten", "dim 0 of 'N' is not known");
	EXPECT_LEFT("starts_input", "starts: ");
	same("nop_slice.onnx", NULL);
	free_proto(m);
	m = optimize("nop_slice_op9.onnx", "eliminate_nop_slice");
	GONE(m->graph, "attr_whole");
	KEPT(m->graph, "attr_cuts");
	same("nop_slice_op9.onnx", NULL);
	free_proto(m);
}

/* a model ONNX Runtime refuses is left so (not made one it runs) */
Test(nop, what_the_runtime_refuses_stays)
{
	Onnx__ModelProto *m = optimize("nop_bad.onnx", NULL);
	char *text;

	KEPT(m->graph, "cat_scalar");
	KEPT(m->graph, "split_axis5");
	cr_assert_eq(onnx_check(&text, out), 0, "%s", text);
	free(text);
	free_proto(m);
}

/* the default set reaches Loop and If bodies */
Test(nop, nested_bodies)
{
	Onnx__ModelProto *m = optimize("nop_nested.onnx", NULL);
	Onnx__GraphProto *body = subgraph(m->graph, "Loop", "body"), *then_g = subgraph(m->graph, "If", "then_branch");

	GONE(body, "body_cat");
	GONE(body, "body_split");
	GONE(body, "body_mul");
	cr_expect_eq(count_ops(body, "Relu"), 1);
	GONE(then_g, "then_flat");
	same("nop_nested.onnx", NULL);
	free_proto(m);
}
