/*
 * test_shape.c: the passes eliminate_shape_op, eliminate_shape_gather,
 * eliminate_slice_after_shape and fuse_concat_into_reshape, and
 * fold_constants on the same chains, on the models of
 * tests/e2e/gen_shape_models.py: the optimizer's own test cases
 * (onnxoptimizer/test/optimizer_test.py: the same graphs, the structures
 * it expects, or where we do better the structure we make), transformer-like
 * graphs with a symbolic batch and sequence at opsets 9 to 21, nested
 * graphs, and the Reshapes left alone with their reasons. Every output
 * passes onnx.checker (opsets up to 17, which Debian's onnx knows) and
 * computes in ONNX Runtime, bit for bit, what the input computes, fed with
 * several batch sizes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* the scratch folder, output path and report of support.c's run_setup() */
#define dir run_dir
#define out run_out
#define rep run_rep

TestSuite(shape, .init = run_setup, .fini = run_teardown);

/* Passes @passes (NULL: the default set) on fixture @name; the output, read back. */
static Onnx__ModelProto *
optimize(const char *name, const char *const *passes, size_t n)
{
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = n };

	return run_optimize(name, &o);
}

/* How many changes pass @pass made in the last run. */
static uint64_t
changes_of(const char *pass)
{
	for (size_t i = 0; i < SCS_REPORT_MAX_PASSES; i++)
		if (rep.passes[i].name && strcmp(rep.passes[i].name, pass) == 0)
			return rep.passes[i].changes;
	return 0;
}

/* The int64 elements of initializer @t (raw or typed) into @v (at most @max): how many. */
static size_t
ints_of(const Onnx__TensorProto *t, int64_t *v, size_t max)
{
	size_t n = t->raw_data.len ? t->raw_data.len / 8 : t->n_int64_data;

	cr_assert_eq(t->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, "%s is not int64", t->name);
	cr_assert_leq(n, max);
	for (size_t i = 0; i < n; i++)
		if (t->raw_data.len)
			memcpy(&v[i], t->raw_data.data + 8 * i, 8);
		else
			v[i] = t->int64_data[i];
	return n;
}

/* Node @node_out of @g (by its output) is a Reshape whose target is the constant initializer @want (@n of them). */
static void
expect_target(const Onnx__GraphProto *g, const char *node_out, const int64_t *want, size_t n)
{
	Onnx__NodeProto *r = find_node_by_output(g, node_out);
	Onnx__TensorProto *t;
	int64_t v[16];
	size_t k;

	cr_assert_not_null(r, "no node makes '%s'", node_out);
	cr_assert_str_eq(r->op_type, "Reshape");
	t = find_init(g, r->input[1]);
	cr_assert_not_null(t, "'%s': the target '%s' is not an initializer", node_out, r->input[1]);
	k = ints_of(t, v, 16);
	cr_assert_eq(k, n, "'%s': target of %zu elements", node_out, k);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(v[i], want[i], "'%s': target[%zu] is %lld, not %lld", node_out, i, (long long)v[i],
		    (long long)want[i]);
}

/* The output computes what fixture @name computes in ONNX Runtime (checked by onnx.checker when @check),
 * fed each of the @n .npy fixtures in @feeds as input @input (none: the generated inputs). */
static void
expect_same(const char *name, int check, const char *input, const char *const *feeds, size_t n)
{
	char *in = fixture(name), *text, extra[4096];

	if (check) {
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
		free(text);
	}
	cr_assert_eq(ort_same(&text, in, out, NULL), 0, "%s: ONNX Runtime: %s", name, text);
	free(text);
	for (size_t i = 0; i < n; i++) {
		char *f = fixture(feeds[i]);

		snprintf(extra, sizeof(extra), "--feed-both '%s=%s'", input, f);
		cr_assert_eq(ort_same(&text, in, out, extra), 0, "%s fed %s: ONNX Runtime: %s", name, feeds[i], text);
		cr_assert_not_null(strstr(text, "identical"), "%s", text);
		free(text);
		free(f);
	}
	free(in);
}

static const char *const x_feeds[] = { "x_b1.npy", "x_b3.npy", "x_b6.npy", "x_b4s8.npy" };
static const char *const n_feeds[] = { "n_b3.npy", "n_b7.npy", "n_b0.npy" };

/* ---- the optimizer's own cases ---- */

Test(shape, shape_op_of_declared_dims_becomes_a_constant)
{
	static const char *const p[] = { "eliminate_shape_op" };
	Onnx__ModelProto *m = optimize("sh_op.onnx", p, 1);

	/* the optimizer: Relu alone; the graph output Y is made by an Identity of the constant here (opt.h) */
	cr_assert_eq(count_ops(m->graph, "Shape"), 0);
	cr_assert_eq(count_ops(m->graph, "Relu"), 1);
	cr_assert_eq(count_ops(m->graph, "Identity"), 1);
	cr_assert_eq(m->graph->n_node, 2);
	cr_assert_eq(changes_of("eliminate_shape_op"), 1);
	free_proto(m);
	expect_same("sh_op.onnx", 1, NULL, NULL, 0);
}

Test(shape, shape_gather_of_declared_dims_becomes_a_constant)
{
	static const char *const p[] = { "eliminate_shape_gather" };
	Onnx__ModelProto *m = optimize("sh_gather.onnx", p, 1);

	/* as the optimizer: Relu, Shape, Identity */
	cr_assert_eq(m->graph->n_node, 3);
	cr_assert_eq(count_ops(m->graph, "Gather"), 0);
	cr_assert_eq(count_ops(m->graph, "Shape"), 1);
	cr_assert_eq(changes_of("eliminate_shape_gather"), 1);
	free_proto(m);
	expect_same("sh_gather.onnx", 1, NULL, NULL, 0);
}

Test(shape, slice_after_shape_becomes_a_constant)
{
	static const char *const p[] = { "eliminate_slice_after_shape", "eliminate_deadend" };
	Onnx__ModelProto *m = optimize("sh_slice.onnx", p, 2);

	/* as the optimizer: Cast, Mul */
	cr_assert_eq(m->graph->n_node, 2);
	cr_assert_eq(count_ops(m->graph, "Cast"), 1);
	cr_assert_eq(count_ops(m->graph, "Mul"), 1);
	free_proto(m);
	expect_same("sh_slice.onnx", 1, NULL, NULL, 0);
}

Test(shape, concat_of_known_dims_into_reshape_becomes_a_constant_target)
{
	static const char *const p[] = { "fuse_concat_into_reshape", "eliminate_deadend" };
	static const int64_t want[] = { 3, 4, 5 };
	Onnx__ModelProto *m = optimize("sh_concat1.onnx", p, 2);

	cr_assert_eq(m->graph->n_node, 1);
	expect_target(m->graph, "Y", want, 3);
	free_proto(m);
	expect_same("sh_concat1.onnx", 1, NULL, NULL, 0);
}

/* The optimizer leaves these (its TODO); here the batch dim is the data's own, so it becomes 0 (copy). */
Test(shape, concat_with_the_data_s_own_batch_dim_copies_it)
{
	static const char *const p[] = { "fuse_concat_into_reshape", "eliminate_deadend" };
	static const int64_t want[] = { 0, 4, 5, 1 };
	Onnx__ModelProto *m = optimize("sh_concat2.onnx", p, 2);

	cr_assert_eq(m->graph->n_node, 1);
	expect_target(m->graph, "Y", want, 4);
	free_proto(m);
	expect_same("sh_concat2.onnx", 1, "X", n_feeds, 3);
	/* through Casts to int32 and back: as the optimizer, one node; the other dims (4, 5, 1) are not 0 */
	m = optimize("sh_concat3.onnx", p, 2);
	cr_assert_eq(m->graph->n_node, 1);
	expect_target(m->graph, "Y", want, 4);
	free_proto(m);
	expect_same("sh_concat3.onnx", 1, "X", n_feeds, 3);
}

/* ---- transformer-like graphs ---- */

static void
expect_attention(const char *name, int check)
{
	static const int64_t split[] = { 0, 0, 4, 16 }, merge[] = { 0, 0, 64 }, flat[] = { 0, -1 };
	static const char *const ops[] = { "Shape", "Gather", "Slice", "Concat", "Unsqueeze", "Div" };
	Onnx__ModelProto *m = optimize(name, NULL, 0);

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		cr_assert_eq(count_ops(m->graph, ops[i]), 0, "%s: a %s is left", name, ops[i]);
	/* 19: the default set's fuse_qkv makes the three projections one MatMul (by their folded Concat) and a Split */
	cr_assert_eq(count_ops(m->graph, "Split"), 1, "%s: the projections are not one MatMul and a Split", name);
	cr_assert_eq(m->graph->n_node, 19, "%s: %zu nodes", name, m->graph->n_node);
	expect_target(m->graph, "q_r", split, 4);
	expect_target(m->graph, "k_r", split, 4);
	expect_target(m->graph, "v_r", split, 4);
	expect_target(m->graph, "am", merge, 3);
	expect_target(m->graph, "y", flat, 2);     /* "of", renamed to the graph output its Identity made */
	free_proto(m);
	expect_same(name, check, "x", x_feeds, 4);
}

Test(shape, attention_reshapes_by_constant_targets_at_opsets_11_to_17, .timeout = 600)
{
	static const char *const models[] = { "sh_attn_op11.onnx", "sh_attn_op13.onnx", "sh_attn_op14.onnx",
		"sh_attn_op15.onnx", "sh_attn_op16.onnx", "sh_attn_op17.onnx" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		expect_attention(models[i], 1);
}

Test(shape, attention_reshapes_by_constant_targets_at_opsets_18_to_21, .timeout = 600)
{
	static const char *const models[] = { "sh_attn_op18.onnx", "sh_attn_op19.onnx", "sh_attn_op20.onnx",
		"sh_attn_op21.onnx" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		expect_attention(models[i], 0);
}

/*
 * A deep stack (12 layers, each reshaping by targets made from the dims of
 * the layer before): shape inference follows the targets' values, so it
 * knows every layer's dims at once. The shape passes alone make every merge
 * target (Concat(Shape(end=2), Shape(start=-1))) constant in their first
 * round, the second finding nothing (not one layer a round); the default
 * set, fold_constants with them, makes the head splits constant too, in as
 * few rounds. Both compute what the stack does.
 */
Test(shape, a_deep_stack_of_layers_settles_in_the_first_round, .timeout = 600)
{
	static const char *const p[] = { "eliminate_shape_op", "eliminate_shape_gather", "eliminate_slice_after_shape",
		"fuse_concat_into_reshape", "eliminate_deadend" };
	static const int64_t split[] = { 0, 0, 4, 16 }, merge[] = { 0, 0, 64 };
	Onnx__ModelProto *m = optimize("sh_layers.onnx", p, 5);
	char name[32];

	for (int l = 0; l < 12; l++) {
		snprintf(name, sizeof(name), "l%d_am", l);
		expect_target(m->graph, name, merge, 3);
	}
	cr_assert_eq(changes_of("fuse_concat_into_reshape"), 12);
	cr_assert_leq(rep.rounds, 2, "%u rounds", rep.rounds);
	free_proto(m);
	expect_same("sh_layers.onnx", 1, "x", x_feeds, 4);
	m = optimize("sh_layers.onnx", NULL, 0);
	cr_assert_leq(rep.rounds, 2, "%u rounds", rep.rounds);
	cr_assert_eq(count_ops(m->graph, "Shape") + count_ops(m->graph, "Gather") + count_ops(m->graph, "Concat"), 0);
	for (int l = 0; l < 12; l++) {
		snprintf(name, sizeof(name), "l%d_am", l);
		expect_target(m->graph, name, merge, 3);
		snprintf(name, sizeof(name), "l%d_q_r", l);
		expect_target(m->graph, name, split, 4);
	}
	free_proto(m);
	expect_same("sh_layers.onnx", 1, "x", x_feeds, 4);
}

/* fold_constants alone does what the four passes do (then eliminate_deadend clears the chains). */
Test(shape, fold_constants_alone_folds_the_same_chains)
{
	static const char *const p[] = { "fold_constants", "eliminate_deadend" };
	static const int64_t split[] = { 0, 0, 4, 16 }, flat[] = { 0, -1 };
	Onnx__ModelProto *m = optimize("sh_attn_op17.onnx", p, 2);

	cr_assert_eq(m->graph->n_node, 21, "%zu nodes", m->graph->n_node);     /* the default set's 20 and the Identity */
	cr_assert_eq(count_ops(m->graph, "Shape") + count_ops(m->graph, "Gather") + count_ops(m->graph, "Concat"), 0);
	expect_target(m->graph, "q_r", split, 4);
	expect_target(m->graph, "of", flat, 2);
	free_proto(m);
	expect_same("sh_attn_op17.onnx", 1, "x", x_feeds, 2);
	m = optimize("sh_concat3.onnx", p, 2);
	cr_assert_eq(m->graph->n_node, 1);
	free_proto(m);
	expect_same("sh_concat3.onnx", 1, "X", n_feeds, 3);
}

Test(shape, opset_9_slices_of_a_shape_by_attributes)
{
	static const int64_t want[] = { 0, 0, 4, 16 };
	Onnx__ModelProto *m = optimize("sh_attn_op9.onnx", NULL, 0);

	cr_assert_eq(m->graph->n_node, 1);
	expect_target(m->graph, "y", want, 4);
	cr_assert_eq(changes_of("eliminate_slice_after_shape"), 1);
	cr_assert(report_left_has(&rep, "bs", "dim 0 of 'x' is not known"), "the batch's Slice is not reported");
	free_proto(m);
	expect_same("sh_attn_op9.onnx", 1, "x", x_feeds, 4);
}

Test(shape, nested_graphs_reshape_by_constant_targets)
{
	static const int64_t then_t1[] = { 0, -1 }, else_r[] = { 0, 0, 64 }, body_r[] = { 0, -1, 16 };
	Onnx__ModelProto *m = optimize("sh_nested.onnx", NULL, 0);
	Onnx__GraphProto *g;

	g = subgraph(m->graph, "If", "then_branch");
	expect_target(g, "t_t1", then_t1, 2);
	/* the branch's own t1 has no known dims: its reshape back stays, with the reason */
	cr_assert_eq(count_ops(g, "Concat"), 1);
	cr_assert(report_left_has(&rep, "t_r", "2 of its dims are unknown"), "t_r's refusal is not reported");
	g = subgraph(m->graph, "If", "else_branch");
	expect_target(g, "e_r", else_r, 3);
	cr_assert_eq(g->n_node, 1);
	g = subgraph(m->graph, "Loop", "body");
	expect_target(g, "l_r", body_r, 3);
	cr_assert_eq(count_ops(g, "Shape") + count_ops(g, "Gather") + count_ops(g, "Concat"), 0);
	free_proto(m);
	expect_same("sh_nested.onnx", 1, "x", x_feeds, 4);
}

/* ---- what stays ---- */

Test(shape, reshapes_whose_constant_target_would_not_be_exact_stay)
{
	static const int64_t one[] = { -1, 64 };
	static const struct {
		const char *node, *why;
	} left[] = {
		{ "r_two", "2 of its dims are unknown" },
		{ "r_minus", "it has a -1 already and dim 0 is unknown" },
		{ "r_zero", "another output dim may be 0" },
		{ "r_allowzero", "2 of its dims are unknown" },
		{ "r_nameless", "2 of its dims are unknown" },
		{ "r_narrow", "went through a Cast to int32 and another output dim may be 0" },
	};
	static const char *const p[] = { "fuse_concat_into_reshape" };
	Onnx__ModelProto *m = optimize("sh_refuse.onnx", p, 1);

	for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++) {
		Onnx__NodeProto *r = find_node_by_output(m->graph, left[i].node);

		cr_assert(report_left_has(&rep, left[i].node, left[i].why), "%s: not reported as left for '%s'",
		    left[i].node, left[i].why);
		cr_assert_not_null(r);
		cr_assert_null(find_init(m->graph, r->input[1]), "%s: the target became a constant", left[i].node);
	}
	/* the dims of an overridable default are not folded into anything (silently: nothing to report but its kind) */
	cr_assert_null(find_init(m->graph, find_node_by_output(m->graph, "r_default")->input[1]));
	/* allowzero and one unknown dim beside 64: -1 is exact */
	expect_target(m->graph, "r_allowone", one, 2);
	cr_assert_eq(changes_of("fuse_concat_into_reshape"), 1);
	free_proto(m);
	expect_same("sh_refuse.onnx", 1, NULL, NULL, 0);
	/* the default set, fold_constants included, leaves them too */
	m = optimize("sh_refuse.onnx", NULL, 0);
	for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++)
		cr_assert_null(find_init(m->graph, find_node_by_output(m->graph, left[i].node)->input[1]), "%s",
		    left[i].node);
	cr_assert_null(find_init(m->graph, find_node_by_output(m->graph, "r_default")->input[1]));
	cr_assert_not_null(find_node_by_output(m->graph, "dd_shape"), "the Shape of the default was folded");
	free_proto(m);
	expect_same("sh_refuse.onnx", 1, NULL, NULL, 0);
}
