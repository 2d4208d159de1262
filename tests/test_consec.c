/*
 * test_consec.c: the passes that join two nodes in a row into one (or
 * none): fuse_consecutive_squeezes, _unsqueezes, _squeeze_unsqueeze,
 * _reduce_unsqueeze, _concats, _slices, _log_softmax and
 * fuse_transpose_into_gemm.
 *
 * Each model comes from tests/e2e/gen_consec_models.py: onnxoptimizer's own
 * test graphs for these passes (optimizer_test.py) with the structure they
 * expect, and the forms real models take: attributes before opset 13 (18
 * for most reductions, 10 for Slice) and constant inputs after, opset 21,
 * axes in raw_data and in int64_data, negative axes, values read twice or
 * named as graph outputs, Loop and If bodies. Every output passes
 * onnx.checker (up to opset 17: python3-onnx knows no newer) and computes
 * in ONNX Runtime what the original does: bit for bit, except LogSoftmax,
 * which is not log of a rounded Softmax (within 1e-6). Each refusal leaves
 * its nodes as they were and is reported with its reason.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define dir run_dir
#define out run_out
#define rep run_rep

/* Run pass @pass (NULL: the default set) on fixture @name; the output, read back. */
static Onnx__ModelProto *
optimize(const char *name, const char *pass)
{
	const char *passes[] = { pass, NULL };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = pass ? passes : NULL,
		.n_passes = pass ? 1 : 0 };

	return run_optimize(name, &o);
}

/*
 * The output computes in ONNX Runtime what fixture @name computes (bit for
 * bit, or within @tol "REL,ABS"), and passes onnx.checker when @checked.
 */
static void
expect_same(const char *name, int checked, const char *tol, const char *extra)
{
	char *in = fixture(name), *text, args[1024];

	if (checked) {
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
		free(text);
	}
	snprintf(args, sizeof(args), "%s%s %s", tol ? "--tol " : "", tol ? tol : "", extra ? extra : "");
	cr_assert_eq(ort_same(&text, in, out, args), 0, "%s: ONNX Runtime: %s", name, text);
	cr_assert(strstr(text, tol ? "within" : "identical"), "%s: %s", name, text);
	free(text);
	free(in);
}

static const char *
left_all(void)
{
	return report_left_all(&rep);
}

#define EXPECT_LEFT(node, what) cr_expect(report_left_has(&rep, node, what), "no refusal of '%s' saying \"%s\"; " \
	"left:%s", node, what, left_all())

static Onnx__NodeProto *
node_named(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		if (g->node[i]->name && strcmp(g->node[i]->name, name) == 0)
			return g->node[i];
	return NULL;
}

static Onnx__NodeProto *
node_must(const Onnx__GraphProto *g, const char *name)
{
	Onnx__NodeProto *n = node_named(g, name);

	cr_assert_not_null(n, "no node '%s' left", name);
	return n;
}

static const Onnx__AttributeProto *
attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
}

static int64_t
attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt)
{
	const Onnx__AttributeProto *a = attr(n, name);

	return a ? a->i : dflt;
}

/* The int64 values of initializer @name of @g (raw_data or int64_data) into @v; how many. */
static size_t
init_ints(const Onnx__GraphProto *g, const char *name, int64_t *v, size_t cap)
{
	Onnx__TensorProto *t = find_init(g, name);
	size_t n;

	cr_assert_not_null(t, "no initializer '%s'", name);
	cr_assert_eq(t->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, "'%s' is not int64", name);
	if (t->raw_data.len) {
		n = t->raw_data.len / 8;
		cr_assert_leq(n, cap);
		memcpy(v, t->raw_data.data, n * 8);
		return n;
	}
	n = t->n_int64_data;
	cr_assert_leq(n, cap);
	for (size_t i = 0; i < n; i++)
		v[i] = t->int64_data[i];
	return n;
}

/* Input @slot of node @node of @g reads an int64 constant holding the @n values @want. */
static void
expect_input_ints(const Onnx__GraphProto *g, const Onnx__NodeProto *node, size_t slot, const int64_t *want, size_t n)
{
	int64_t v[32];
	size_t got;

	cr_assert_gt(node->n_input, slot, "'%s' has no input %zu", node->name, slot);
	got = init_ints(g, node->input[slot], v, 32);
	cr_assert_eq(got, n, "'%s' input %zu: %zu values, want %zu", node->name, slot, got, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(v[i], want[i], "'%s' input %zu [%zu]: %lld, want %lld", node->name, slot, i, (long long)v[i],
		    (long long)want[i]);
}

/* Attribute @name of @node holds the @n values @want. */
static void
expect_attr_ints(const Onnx__NodeProto *node, const char *name, const int64_t *want, size_t n)
{
	const Onnx__AttributeProto *a = attr(node, name);

	cr_assert_not_null(a, "'%s' has no %s", node->name, name);
	cr_assert_eq(a->n_ints, n, "'%s' %s: %zu values, want %zu", node->name, name, a->n_ints, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(a->ints[i], want[i], "'%s' %s[%zu]: %lld, want %lld", node->name, name, i,
		    (long long)a->ints[i], (long long)want[i]);
}

#define INTS(...) ((const int64_t[]){ __VA_ARGS__ }), sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)

TestSuite(consec, .init = run_setup, .fini = run_teardown);

/* ---- fuse_consecutive_squeezes ---- */

/* onnxoptimizer's test_fuse_consecutive_squeezes: the main graph and a Loop body reading the outer axes */
Test(consec, squeezes_in_the_main_graph_and_a_loop_body)
{
	Onnx__ModelProto *m = optimize("consec_sq13.onnx", "fuse_consecutive_squeezes");
	Onnx__GraphProto *body = subgraph(m->graph, "Loop", "body");

	cr_assert_eq(m->graph->n_node, 4, "%zu nodes:%s", m->graph->n_node, left_all());
	cr_assert_str_eq(m->graph->node[0]->op_type, "Squeeze");
	cr_assert_str_eq(m->graph->node[0]->input[0], "X");
	expect_input_ints(m->graph, m->graph->node[0], 1, INTS(0, 1, 4, 5, 6));
	cr_assert_eq(body->n_node, 1);
	cr_assert_str_eq(body->node[0]->input[0], "_X");
	expect_input_ints(body, body->node[0], 1, INTS(0, 1, 4, 5, 6));
	expect_same("consec_sq13.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* onnxoptimizer's test_fuse_consecutive_squeezes_default: three in a row become one */
Test(consec, three_squeezes_become_one)
{
	Onnx__ModelProto *m = optimize("consec_sq13_default.onnx", "fuse_consecutive_squeezes");

	cr_assert_eq(m->graph->n_node, 1, "%zu nodes:%s", m->graph->n_node, left_all());
	expect_input_ints(m->graph, m->graph->node[0], 1, INTS(0, 1, 4, 5, 6, 7));
	cr_assert_eq(rep.left.n, 0, "left:%s", left_all());
	expect_same("consec_sq13_default.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* onnxoptimizer's test_fuse_consecutive_squeezes_random, one draw: the first axes unsorted */
Test(consec, squeezes_with_unsorted_axes)
{
	Onnx__ModelProto *m = optimize("consec_sq13_random.onnx", "fuse_consecutive_squeezes");

	cr_assert_eq(m->graph->n_node, 1, "%zu nodes:%s", m->graph->n_node, left_all());
	expect_input_ints(m->graph, m->graph->node[0], 1, INTS(0, 1, 2, 5, 7, 8));
	expect_same("consec_sq13_random.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* onnxoptimizer's test_fuse_consecutive_squeezes_multi_uses: the first stays for its other reader */
Test(consec, a_squeeze_read_elsewhere_stays_and_the_second_reads_x)
{
	Onnx__ModelProto *m = optimize("consec_sq13_multi.onnx", "fuse_consecutive_squeezes");

	cr_assert_eq(m->graph->n_node, 3);
	expect_input_ints(m->graph, node_must(m->graph, "s1"), 1, INTS(0, 4, 5));
	cr_assert_str_eq(node_must(m->graph, "s2")->input[0], "X");
	expect_input_ints(m->graph, node_must(m->graph, "s2"), 1, INTS(0, 1, 4, 5, 6));
	expect_same("consec_sq13_multi.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* onnxoptimizer's graph as it is there: axes that are graph inputs may be overridden by a caller */
Test(consec, squeeze_axes_a_caller_may_override_are_refused)
{
	Onnx__ModelProto *m = optimize("consec_sq13_inputs.onnx", "fuse_consecutive_squeezes");

	cr_assert_eq(count_ops(m->graph, "Squeeze"), 2);
	EXPECT_LEFT("s2", "a caller may override it");
	free_proto(m);
}

/* attributes before opset 13: negative axes resolved with the known rank; a Squeeze without axes of known dims */
Test(consec, squeeze_attributes_negative_axes_and_no_axes_at_opset_11)
{
	Onnx__ModelProto *m = optimize("consec_sq11.onnx", "fuse_consecutive_squeezes");

	cr_assert_eq(m->graph->n_node, 2, "left:%s", left_all());
	expect_attr_ints(node_must(m->graph, "s2"), "axes", INTS(0, 1, 4, 5, 6));
	cr_assert_str_eq(node_must(m->graph, "w2")->input[0], "W");
	expect_attr_ints(node_must(m->graph, "w2"), "axes", INTS(0, 2, 4));
	expect_same("consec_sq11.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* opset 21, axes in int64_data; a Squeeze without axes of a value whose dims are not known is refused */
Test(consec, squeezes_at_opset_21_and_no_axes_of_unknown_dims_refused)
{
	Onnx__ModelProto *m = optimize("consec_sq21.onnx", "fuse_consecutive_squeezes");

	cr_assert_eq(m->graph->n_node, 3, "left:%s", left_all());
	expect_input_ints(m->graph, node_must(m->graph, "s3"), 1, INTS(0, 1, 4, 5, 6, 7));
	cr_assert_not_null(node_named(m->graph, "n1"));
	EXPECT_LEFT("n2", "dims of 'X2' are not known");
	expect_same("consec_sq21.onnx", 0, NULL, NULL);
	free_proto(m);
}

/*
 * 32 Squeeze pairs and 32 Unsqueeze pairs with drawn axes, each written as
 * itself or as its negative form, as attributes (opset 11) and as inputs
 * (13): every pair joins, and the shapes and values stay the same
 */
Test(consec, drawn_squeeze_and_unsqueeze_pairs_join_exactly)
{
	static const char *const names[] = { "consec_axes11.onnx", "consec_axes13.onnx" };
	const char *passes[] = { "fuse_consecutive_squeezes", "fuse_consecutive_unsqueezes" };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = 2 };

	for (size_t i = 0; i < 2; i++) {
		Onnx__ModelProto *m = run_optimize(names[i], &o);

		cr_assert_eq(m->graph->n_node, 64, "%s: %zu nodes:%s", names[i], m->graph->n_node, left_all());
		cr_assert_eq(rep.left.n, 0, "%s: left:%s", names[i], left_all());
		expect_same(names[i], 1, NULL, NULL);
		free_proto(m);
	}
}

/* ---- fuse_consecutive_unsqueezes ---- */

static void
unsqueezes_at(const char *name)
{
	Onnx__ModelProto *m = optimize(name, "fuse_consecutive_unsqueezes");

	cr_assert_eq(m->graph->n_node, 3, "%s:%s", name, left_all());
	cr_assert_null(node_named(m->graph, "u1"));
	cr_assert_str_eq(node_must(m->graph, "u2")->input[0], "X");
	expect_input_ints(m->graph, node_must(m->graph, "u2"), 1, INTS(0, 2, 3));
	/* M is a graph output: its Unsqueeze stays, the second reads X */
	cr_assert_not_null(node_named(m->graph, "m1"));
	expect_input_ints(m->graph, node_must(m->graph, "m2"), 1, INTS(0, 1));
	expect_input_ints(m->graph, node_must(m->graph, "m1"), 1, INTS(0));
	expect_same(name, strstr(name, "21") == NULL, NULL, NULL);
	free_proto(m);
}

Test(consec, unsqueezes_at_opset_13_one_intermediate_a_graph_output)
{
	unsqueezes_at("consec_un13.onnx");
}

Test(consec, unsqueezes_at_opset_21_axes_in_int64_data)
{
	unsqueezes_at("consec_un21.onnx");
}

Test(consec, unsqueeze_attributes_with_negative_axes_at_opset_11)
{
	Onnx__ModelProto *m = optimize("consec_un11.onnx", "fuse_consecutive_unsqueezes");

	cr_assert_eq(m->graph->n_node, 1, "left:%s", left_all());
	expect_attr_ints(m->graph->node[0], "axes", INTS(0, 3));
	expect_same("consec_un11.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* ---- fuse_consecutive_squeeze_unsqueeze ---- */

static void
squeeze_unsqueeze_at(const char *name)
{
	Onnx__ModelProto *m = optimize(name, "fuse_consecutive_squeeze_unsqueeze");

	cr_assert_null(node_named(m->graph, "sq"), "%s:%s", name, left_all());
	cr_assert_null(node_named(m->graph, "un"));
	cr_assert_str_eq(node_must(m->graph, "relu")->input[0], "X");
	/* Z is a graph output: an Identity of X2 makes it */
	cr_assert_str_eq(find_node_by_output(m->graph, "Z")->op_type, "Identity");
	cr_assert_str_eq(find_node_by_output(m->graph, "Z")->input[0], "X2");
	cr_assert_null(node_named(m->graph, "un2"));
	/* Squeeze [1] then Unsqueeze [2]: not the identity */
	cr_assert_not_null(node_named(m->graph, "sq3"));
	cr_assert_not_null(node_named(m->graph, "un3"));
	cr_assert_eq(m->graph->n_node, 4);
	expect_same(name, strstr(name, "21") == NULL, NULL, NULL);
	free_proto(m);
}

Test(consec, squeeze_then_unsqueeze_and_back_at_opset_13)
{
	squeeze_unsqueeze_at("consec_su13.onnx");
}

Test(consec, squeeze_then_unsqueeze_and_back_at_opset_21)
{
	squeeze_unsqueeze_at("consec_su21.onnx");
}

Test(consec, squeeze_without_axes_next_to_an_unsqueeze_at_opset_11)
{
	Onnx__ModelProto *m = optimize("consec_su11.onnx", "fuse_consecutive_squeeze_unsqueeze");

	cr_assert_str_eq(node_must(m->graph, "relu")->input[0], "X", "left:%s", left_all());
	cr_assert_str_eq(node_must(m->graph, "relu2")->input[0], "X2");
	cr_assert_not_null(node_named(m->graph, "un3"));
	cr_assert_not_null(node_named(m->graph, "sq3"));
	cr_assert_eq(m->graph->n_node, 4);
	expect_same("consec_su11.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* ---- fuse_consecutive_reduce_unsqueeze ---- */

/*
 * onnxoptimizer's test_fuse_reduction_unsqueeze: 180 pairs of which the 10
 * with keepdims 0 and the same axes fuse; and a reduction of every axis, a
 * negative axis, a reduction read twice (refused), noop_with_empty_axes
 * without axes (refused, from opset 18)
 */
static void
reduce_unsqueeze_at(const char *name, int opset)
{
	static const char *const fused[] = { "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
		"ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare" };
	Onnx__ModelProto *m = optimize(name, "fuse_consecutive_reduce_unsqueeze");
	int want = 180 - 10 + 1 + (opset >= 18);
	char u[16];

	cr_assert_eq(count_ops(m->graph, "Unsqueeze"), want, "%s: %d Unsqueeze, want %d:%s", name,
	    count_ops(m->graph, "Unsqueeze"), want, left_all());
	for (int k = 0; k < 10; k++) {
		Onnx__NodeProto *n;

		snprintf(u, sizeof(u), "u%d", 18 * k + 5);    /* axes [1], keepdims 0, Unsqueeze [1] */
		n = find_node_by_output(m->graph, u);
		cr_assert_not_null(n, "%s: nothing makes '%s'", name, u);
		cr_assert_str_eq(n->op_type, fused[k], "%s: '%s' made by a %s", name, u, n->op_type);
		cr_assert_eq(attr_int(n, "keepdims", 1), 1);
	}
	cr_assert_str_eq(find_node_by_output(m->graph, "u181")->op_type, "ReduceMean");
	cr_assert_str_eq(find_node_by_output(m->graph, "u182")->op_type, "ReduceMax");
	EXPECT_LEFT("uns183", "also read by node 'neg183'");
	if (opset >= 18)
		EXPECT_LEFT("uns184", "noop_with_empty_axes");
	expect_same(name, opset <= 17, NULL, NULL);
	free_proto(m);
}

Test(consec, reduce_unsqueeze_with_attributes_at_opset_11)
{
	reduce_unsqueeze_at("consec_ru11.onnx", 11);
}

Test(consec, reduce_unsqueeze_at_opset_13_reducesum_axes_an_input)
{
	reduce_unsqueeze_at("consec_ru13.onnx", 13);
}

Test(consec, reduce_unsqueeze_at_opset_18_every_axes_an_input)
{
	reduce_unsqueeze_at("consec_ru18.onnx", 18);
}

Test(consec, reduce_unsqueeze_at_opset_21)
{
	reduce_unsqueeze_at("consec_ru21.onnx", 21);
}

/* ---- fuse_consecutive_concats ---- */

/* onnxoptimizer's test_fuse_concats */
Test(consec, concats_of_concats_become_one)
{
	static const char *const want[] = { "A", "B", "C", "G", "D", "E", "F" };
	Onnx__ModelProto *m = optimize("consec_cc11.onnx", "fuse_consecutive_concats");

	cr_assert_eq(m->graph->n_node, 1, "left:%s", left_all());
	cr_assert_eq(m->graph->node[0]->n_input, 7);
	for (size_t i = 0; i < 7; i++)
		cr_assert_str_eq(m->graph->node[0]->input[i], want[i]);
	expect_same("consec_cc11.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* onnxoptimizer's test_fuse_concats_different_axis (refused), a negative axis of known rank, an inner Concat read twice */
Test(consec, concats_on_other_axes_or_read_elsewhere_are_refused)
{
	Onnx__ModelProto *m = optimize("consec_cc13.onnx", "fuse_consecutive_concats");
	Onnx__NodeProto *n2;

	cr_assert_not_null(node_named(m->graph, "d1"));
	cr_assert_not_null(node_named(m->graph, "d2"));
	EXPECT_LEFT("d3", "is a Concat on axis 0, this one is on axis 2");
	EXPECT_LEFT("d3", "is a Concat on axis 1, this one is on axis 2");
	cr_assert_null(node_named(m->graph, "n1"));
	n2 = node_must(m->graph, "n2");
	cr_assert_eq(n2->n_input, 3);
	cr_assert_str_eq(n2->input[0], "A");
	cr_assert_str_eq(n2->input[1], "C");
	cr_assert_str_eq(n2->input[2], "A");
	cr_assert_not_null(node_named(m->graph, "t1"));
	EXPECT_LEFT("t2", "also read by node 't3'");
	expect_same("consec_cc13.onnx", 1, NULL, NULL);
	free_proto(m);
}

Test(consec, three_levels_of_concats_at_opset_21_in_one_round)
{
	static const char *const want[] = { "B", "A", "B", "A", "A", "A" };
	Onnx__ModelProto *m = optimize("consec_cc21.onnx", "fuse_consecutive_concats");

	cr_assert_eq(m->graph->n_node, 1, "left:%s", left_all());
	cr_assert_eq(m->graph->node[0]->n_input, 6);
	for (size_t i = 0; i < 6; i++)
		cr_assert_str_eq(m->graph->node[0]->input[i], want[i]);
	expect_same("consec_cc21.onnx", 0, NULL, NULL);
	free_proto(m);
}

/* ---- fuse_consecutive_log_softmax ---- */

/* onnxoptimizer's test_fuse_consecutive_softmax_log_axis, _side_effect, _multiple_out */
Test(consec, log_of_softmax_becomes_log_softmax_at_opset_13)
{
	Onnx__ModelProto *m = optimize("consec_ls13.onnx", "fuse_consecutive_log_softmax");
	char name[16];

	for (int axis = 0; axis < 3; axis++) {
		Onnx__NodeProto *n;

		snprintf(name, sizeof(name), "log%d", axis);
		n = node_must(m->graph, name);
		cr_assert_str_eq(n->op_type, "LogSoftmax");
		cr_assert_str_eq(n->input[0], "X");
		cr_assert_eq(attr_int(n, "axis", -1), axis);
		snprintf(name, sizeof(name), "sm%d", axis);
		cr_assert_null(node_named(m->graph, name));
	}
	cr_assert_str_eq(node_must(m->graph, "log_side")->op_type, "Log");
	EXPECT_LEFT("log_side", "'Ys', the Softmax's output, is also a graph output");
	cr_assert_str_eq(node_must(m->graph, "log_multi")->op_type, "LogSoftmax");
	cr_assert_eq(attr_int(node_must(m->graph, "log_multi"), "axis", -1), 2);
	cr_assert_str_eq(node_must(m->graph, "exp_multi")->input[0], "Zm");
	cr_assert_str_eq(node_must(m->graph, "log_double")->op_type, "LogSoftmax");
	cr_assert_eq(m->graph->n_node, 8);
	expect_same("consec_ls13.onnx", 1, "1e-6,1e-6", NULL);
	free_proto(m);
}

/* ONNX Runtime's CPU LogSoftmax takes float and double: a float16 pair stays (ONNX Runtime cannot run either) */
Test(consec, log_of_a_float16_softmax_is_refused)
{
	Onnx__ModelProto *m = optimize("consec_ls_f16.onnx", "fuse_consecutive_log_softmax");
	char *text;

	cr_assert_eq(count_ops(m->graph, "Softmax"), 1);
	cr_assert_eq(count_ops(m->graph, "Log"), 1);
	EXPECT_LEFT("log_half", "takes float and double, not float16");
	cr_assert_eq(onnx_check(&text, out), 0, "onnx.checker: %s", text);
	free(text);
	free_proto(m);
}

/* before opset 13 both flatten at the axis (default 1): the same attribute, or none, means the same */
Test(consec, log_of_softmax_at_opset_11_keeps_the_default_axis)
{
	Onnx__ModelProto *m = optimize("consec_ls11.onnx", "fuse_consecutive_log_softmax");

	cr_assert_eq(m->graph->n_node, 2, "left:%s", left_all());
	cr_assert_str_eq(node_must(m->graph, "log_dflt")->op_type, "LogSoftmax");
	cr_assert_null(attr(node_must(m->graph, "log_dflt"), "axis"));
	cr_assert_eq(attr_int(node_must(m->graph, "log2"), "axis", -1), 2);
	expect_same("consec_ls11.onnx", 1, "1e-6,1e-6", NULL);
	free_proto(m);
}

/* ---- fuse_consecutive_slices ---- */

Test(consec, slices_become_one_at_opset_13)
{
	Onnx__ModelProto *m = optimize("consec_sl13.onnx", "fuse_consecutive_slices");
	Onnx__NodeProto *a2 = node_must(m->graph, "a2"), *c2 = node_must(m->graph, "c2"), *d2 = node_must(m->graph, "d2");

	cr_assert_null(node_named(m->graph, "a1"));
	cr_assert_str_eq(a2->input[0], "X");
	expect_input_ints(m->graph, a2, 1, INTS(1, -5));
	expect_input_ints(m->graph, a2, 2, INTS(3, 100));
	expect_input_ints(m->graph, a2, 3, INTS(0, 2));
	expect_input_ints(m->graph, a2, 4, INTS(1, 2));
	/* [1:3] of axis 1 twice: [2:3] */
	cr_assert_null(node_named(m->graph, "b1"));
	expect_input_ints(m->graph, node_must(m->graph, "b2"), 1, INTS(2));
	expect_input_ints(m->graph, node_must(m->graph, "b2"), 2, INTS(3));
	/* [1:max:2] then [-3:-1] of axis 2 (8 long): [3:7:2] */
	expect_input_ints(m->graph, node_must(m->graph, "f2"), 1, INTS(3));
	expect_input_ints(m->graph, node_must(m->graph, "f2"), 2, INTS(7));
	expect_input_ints(m->graph, node_must(m->graph, "f2"), 4, INTS(2));
	/* a negative step, and a dim not known, on an axis both slice */
	cr_assert_not_null(node_named(m->graph, "g1"));
	EXPECT_LEFT("g2", "both Slices cut axis 1, with a negative step");
	cr_assert_not_null(node_named(m->graph, "h1"));
	EXPECT_LEFT("h2", "both Slices cut axis 0, whose dim is not known");
	/* int32 starts and ends become int64 lists; axes -1 and 0 of a rank-3 value, written 2 and 0 */
	cr_assert_str_eq(c2->input[0], "X");
	expect_input_ints(m->graph, c2, 1, INTS(1, 1));
	expect_input_ints(m->graph, c2, 3, INTS(2, 0));
	/* no axes (0, 1) then axis 2 with step -1 */
	expect_input_ints(m->graph, d2, 3, INTS(0, 1, 2));
	expect_input_ints(m->graph, d2, 4, INTS(1, 1, -1));
	cr_assert_eq(m->graph->n_node, 9);
	expect_same("consec_sl13.onnx", 1, NULL, NULL);
	free_proto(m);
}

Test(consec, slice_attributes_at_opset_9)
{
	Onnx__ModelProto *m = optimize("consec_sl9.onnx", "fuse_consecutive_slices");

	cr_assert_eq(m->graph->n_node, 3, "left:%s", left_all());
	expect_attr_ints(node_must(m->graph, "c2"), "starts", INTS(4));
	expect_attr_ints(node_must(m->graph, "c2"), "ends", INTS(6));
	expect_attr_ints(node_must(m->graph, "a2"), "starts", INTS(1, -5));
	expect_attr_ints(node_must(m->graph, "a2"), "axes", INTS(0, 2));
	expect_attr_ints(node_must(m->graph, "b2"), "axes", INTS(0, 1, 2));
	expect_attr_ints(node_must(m->graph, "b2"), "ends", INTS(3, 4, 7));
	expect_same("consec_sl9.onnx", 1, NULL, NULL);
	free_proto(m);
}

Test(consec, slices_at_opset_21)
{
	Onnx__ModelProto *m = optimize("consec_sl21.onnx", "fuse_consecutive_slices");

	cr_assert_eq(m->graph->n_node, 2, "left:%s", left_all());
	expect_input_ints(m->graph, node_must(m->graph, "a2"), 3, INTS(0, 2));
	expect_input_ints(m->graph, node_must(m->graph, "b2"), 1, INTS(2));
	expect_same("consec_sl21.onnx", 0, NULL, NULL);
	free_proto(m);
}

/*
 * Two Slices of one axis compose exactly for positive steps of a known
 * dim: 64 pairs whose starts and ends reach past both ends (and the int64
 * extremes), steps 1 to 3, each one Slice in the output, the same values
 */
Test(consec, slices_of_one_axis_compose_exactly)
{
	Onnx__ModelProto *m = optimize("consec_sl_grid.onnx", "fuse_consecutive_slices");

	cr_assert_eq(m->graph->n_node, 64, "%zu nodes:%s", m->graph->n_node, left_all());
	cr_assert_eq(rep.left.n, 0, "left:%s", left_all());
	expect_same("consec_sl_grid.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* ---- fuse_transpose_into_gemm ---- */

/* onnxoptimizer's test_fuse_transpose_into_gemm: the main graph and a Loop body reading outer values */
Test(consec, transposes_into_gemm_in_the_main_graph_and_a_loop_body)
{
	Onnx__ModelProto *m = optimize("consec_tg13.onnx", "fuse_transpose_into_gemm");
	Onnx__GraphProto *body = subgraph(m->graph, "Loop", "body");
	Onnx__NodeProto *g = m->graph->node[0];

	cr_assert_eq(m->graph->n_node, 4, "left:%s", left_all());
	cr_assert_str_eq(g->op_type, "Gemm");
	cr_assert_str_eq(g->input[0], "X");
	cr_assert_str_eq(g->input[1], "Y");
	cr_assert_eq(attr_int(g, "transA", 0), 1);
	cr_assert_eq(attr_int(g, "transB", 0), 1);
	cr_assert_eq(body->n_node, 1);
	cr_assert_str_eq(body->node[0]->op_type, "Gemm");
	expect_same("consec_tg13.onnx", 1, NULL, NULL);
	free_proto(m);
}

/* a Transpose without perm into transA 1; one read by a Relu too (stays); one as both A and B */
Test(consec, transposes_into_gemm_flags_flipped_shared_kept)
{
	Onnx__ModelProto *m = optimize("consec_tg11.onnx", "fuse_transpose_into_gemm");
	Onnx__NodeProto *g1 = node_must(m->graph, "g1"), *g2 = node_must(m->graph, "g2"), *g3 = node_must(m->graph, "g3");

	cr_assert_eq(attr_int(g1, "transA", 0), 0);
	cr_assert_str_eq(g1->input[0], "X");
	cr_assert_str_eq(g2->input[1], "V");
	cr_assert_eq(attr_int(g2, "transB", 0), 1);
	cr_assert_not_null(node_named(m->graph, "tv"));
	cr_assert_str_eq(g3->input[0], "S");
	cr_assert_str_eq(g3->input[1], "S");
	cr_assert_eq(attr_int(g3, "transA", 0), 1);
	cr_assert_eq(attr_int(g3, "transB", 0), 1);
	cr_assert_null(node_named(m->graph, "ts"));
	cr_assert_eq(m->graph->n_node, 5);
	expect_same("consec_tg11.onnx", 1, NULL, NULL);
	free_proto(m);
}

Test(consec, transposes_into_gemm_at_opset_21)
{
	Onnx__ModelProto *m = optimize("consec_tg21.onnx", "fuse_transpose_into_gemm");

	cr_assert_eq(m->graph->n_node, 1, "left:%s", left_all());
	expect_same("consec_tg21.onnx", 0, NULL, NULL);
	free_proto(m);
}

/* ---- what every pass refuses; nested graphs; the default set ---- */

/*
 * Negative axes of a value whose rank is not known: onnxoptimizer composes
 * them as written (its known unsoundness); here each pair is left alone
 * with the reason, except Concats whose two axes are the same -1
 */
Test(consec, negative_axes_of_unknown_rank_are_refused_by_every_pass)
{
	Onnx__ModelProto *m = optimize("consec_norank.onnx", NULL);
	char *npy = fixture("consec_norank.X.npy"), extra[600];

	EXPECT_LEFT("sq2", "axis -1 is negative and the rank it counts from is not known");
	EXPECT_LEFT("un2", "axis -1 is negative and the rank it counts from is not known");
	EXPECT_LEFT("su2", "axis -1 is negative and the rank it counts from is not known");
	EXPECT_LEFT("ru", "axis -1 is negative and the rank it counts from is not known");
	EXPECT_LEFT("sl2", "axis -1 is negative and the rank it counts from is not known");
	EXPECT_LEFT("cc2", "one negative, and the rank is not known");
	cr_assert_null(node_named(m->graph, "cd1"));
	cr_assert_eq(node_must(m->graph, "cd2")->n_input, 3);
	/* su1 computes what sq1 does (Squeeze of X by m1): the default set's eliminate_common_subexpression merges them */
	cr_assert_null(node_named(m->graph, "su1"));
	cr_assert_eq(m->graph->n_node, 12);
	snprintf(extra, sizeof(extra), "--feed-both 'X=%s'", npy);
	expect_same("consec_norank.onnx", 0, NULL, extra);
	free(npy);
	free_proto(m);
}

/* every pass inside If branches, on values of the main graph, with the default set */
Test(consec, every_pass_works_inside_if_branches_with_the_default_set)
{
	Onnx__ModelProto *m = optimize("consec_nested.onnx", NULL);
	static const char *const attrs[] = { "then_branch", "else_branch" };

	for (size_t b = 0; b < 2; b++) {
		Onnx__GraphProto *g = subgraph(m->graph, "If", attrs[b]);

		cr_assert_eq(count_ops(g, "Squeeze"), 0, "%s:%s", attrs[b], left_all());
		cr_assert_eq(count_ops(g, "Unsqueeze"), 1, "%s", attrs[b]);
		cr_assert_eq(count_ops(g, "Concat"), 1, "%s", attrs[b]);
		cr_assert_eq(count_ops(g, "LogSoftmax"), 1, "%s", attrs[b]);
		cr_assert_eq(count_ops(g, "Slice"), 1, "%s", attrs[b]);
		cr_assert_eq(count_ops(g, "ReduceSum"), 1, "%s", attrs[b]);
		cr_assert_eq(count_ops(g, "Transpose"), 0, "%s", attrs[b]);
		cr_assert_eq(g->n_node, 7, "%s: %zu nodes", attrs[b], g->n_node);
	}
	expect_same("consec_nested.onnx", 1, "1e-6,1e-6", "--runs 4");
	free_proto(m);
}
