/*
 * test_cse.c: eliminate_common_subexpression, eliminate_duplicate_initializer
 * and extract_constant_to_initializer.
 *
 * Each model comes from tests/e2e/gen_cse_models.py (onnxoptimizer's own
 * cases for these passes, and the paths real models take: nested bodies,
 * random operators, attributes in another order, constants over one store
 * chunk equal and differing in their last byte, typed encodings, values
 * that are graph outputs, overridable defaults). An output must pass
 * onnx.checker and compute in ONNX Runtime, bit for bit, what its input
 * computes (but the random operators, which are checked by structure).
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "util/hash.h"

#define out run_out
#define rep run_rep

static const char *const CSE[] = { "eliminate_common_subexpression", NULL };

#define optimize run_optimize_passes

/* The output of the last optimize(@name) passes onnx.checker and computes what @name computes, bit for bit. */
static void
expect_same(const char *name)
{
	char *in = fixture(name);

	expect_equivalent(in, out, NULL);
	free(in);
}

/* The node of @g whose name is @name, or NULL. */
static Onnx__NodeProto *
node_named(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		if (g->node[i]->name && strcmp(g->node[i]->name, name) == 0)
			return g->node[i];
	return NULL;
}

#define EXPECT_LEFT(node, what) cr_expect(report_left_has(&rep, node, what), "no refusal of '%s' saying \"%s\"", \
	node, what)

/* onnxoptimizer's kind of case, at opsets 11, 13 and 21: equal nodes merge
 * (a chain in one walk, attributes in any order), different ones stay. */
static void
basic(const char *name)
{
	Onnx__ModelProto *m = optimize(name, CSE);
	Onnx__GraphProto *g = m->graph;

	cr_expect_eq(count_ops(g, "Add"), 1, "%s: the two Add(X, Y) merge", name);
	cr_expect_eq(count_ops(g, "Relu"), 1, "%s: the Relus of the merged Adds merge too", name);
	cr_expect_eq(count_ops(g, "Gemm"), 2, "%s: Gemm with the same attributes in another order merges; "
	    "another alpha stays", name);
	cr_expect_null(node_named(g, "gemm2"), "%s: the second Gemm goes", name);
	cr_expect_not_null(node_named(g, "gemm3"), "%s: the Gemm of another alpha stays", name);
	cr_expect_eq(count_ops(g, "LeakyRelu"), 2, "%s: other alphas stay apart", name);
	cr_expect_eq(count_ops(g, "Split"), 1, "%s: the Splits (two outputs each) merge", name);
	cr_expect_eq(count_ops(g, "Cast"), 4, "%s: Casts to other types stay", name);
	cr_expect_str_eq(node_named(g, "mul")->input[1], "r1", "%s: the Mul reads the first Relu twice", name);
	cr_expect_str_eq(node_named(g, "concat")->input[1], "s1b", "%s: the Concat reads the first Split", name);
	cr_expect_str_eq(node_named(g, "concat")->input[2], "s1a", "%s", name);
	free_proto(m);
	expect_same(name);
}

Test(cse, equal_nodes_merge_at_opset_13, .init = run_setup, .fini = run_teardown)
{
	basic("cse_basic.onnx");
}

Test(cse, equal_nodes_merge_at_opset_21, .init = run_setup, .fini = run_teardown)
{
	basic("cse_basic21.onnx");
}

Test(cse, equal_nodes_merge_at_opset_11, .init = run_setup, .fini = run_teardown)
{
	basic("cse_basic11.onnx");
}

/* Nodes merge within their own graph only: an If branch computing what the
 * main graph computes keeps its node; equal nodes of one branch or body merge. */
Test(cse, nested_bodies_merge_within_themselves_only, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = optimize("cse_nested.onnx", CSE);
	Onnx__GraphProto *g = m->graph, *then_g = subgraph(g, "If", "then_branch"),
	    *else_g = subgraph(g, "If", "else_branch"), *body = subgraph(g, "Loop", "body");

	cr_assert(then_g && else_g && body);
	cr_expect_eq(count_ops(g, "Add"), 1, "the main graph's second Add(X, Y) goes");
	cr_expect_str_eq(node_named(g, "sum")->input[2], "a1");
	cr_expect_eq(count_ops(then_g, "Add"), 1, "the then branch keeps its Add(X, Y)");
	cr_expect_str_eq(node_named(then_g, "then_add")->input[0], "X", "the branch still reads the outer X");
	cr_expect_eq(count_ops(else_g, "Add"), 1, "the else branch's two Adds merge");
	cr_expect_str_eq(node_named(else_g, "else_sub")->input[1], "e1");
	cr_expect_eq(count_ops(body, "Relu"), 1, "the Loop body's two Relus merge");
	free_proto(m);
	expect_same("cse_nested.onnx");
}

/* A function body and a Loop body: equal nodes merge there too, and their
 * outputs keep their names (the first node makes a later one's output). */
Test(cse, function_and_loop_bodies_merge_and_keep_their_outputs, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = optimize("cse_bodies.onnx", CSE);
	Onnx__FunctionProto *f;
	Onnx__GraphProto *body = subgraph(m->graph, "Loop", "body");
	size_t relus = 0, negs = 0;

	cr_assert_eq(m->n_functions, 1);
	f = m->functions[0];
	for (size_t i = 0; i < f->n_node; i++) {
		relus += strcmp(f->node[i]->op_type, "Relu") == 0;
		negs += strcmp(f->node[i]->op_type, "Neg") == 0;
		if (strcmp(f->node[i]->op_type, "Neg") == 0)
			cr_expect_str_eq(f->node[i]->output[0], "n2", "the function's output keeps its name");
	}
	cr_expect_eq(relus, 1, "the function's two Relus merge");
	cr_expect_eq(negs, 1, "the Neg making the function's output takes the first's place");
	cr_expect_str_eq(f->output[1], "n2");
	cr_assert_not_null(body);
	cr_expect_eq(count_ops(body, "Relu"), 1);
	cr_expect_str_eq(find_node_by_output(body, "v_out")->name, "body_relu1", "the first Relu makes 'v_out'");
	cr_expect_str_eq(node_named(body, "body_neg")->input[0], "v_out");
	free_proto(m);
	expect_same("cse_bodies.onnx");
}

/* Random operators, Dropout in training and nodes of other domains never merge. */
Test(cse, random_and_custom_nodes_never_merge, .init = run_setup, .fini = run_teardown)
{
	static const char *const ops[] = { "RandomNormalLike", "RandomUniformLike", "Bernoulli", "Multinomial",
		"RandomNormal", "RandomUniform", "Dropout", "Frob" };
	Onnx__ModelProto *m = optimize("cse_random.onnx", CSE);

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		cr_expect_eq(count_ops(m->graph, ops[i]), 2, "both %s stay", ops[i]);
	cr_expect_eq(count_ops(m->graph, "Add"), 8, "each pair still added");
	cr_expect_eq(count_ops(m->graph, "Constant"), 1, "the two equal Constants (true) merge");
	free_proto(m);
}

/* Constants over one store chunk: equal bytes merge (raw_data and float_data
 * alike), bytes differing in the last byte do not; the Adds reading the
 * merged constants merge after them. */
static void
constants(int collide)
{
	Onnx__ModelProto *m;
	Onnx__GraphProto *g;

	scs_hash_collide_for_tests(collide);
	m = optimize("cse_const.onnx", CSE);
	scs_hash_collide_for_tests(0);
	g = m->graph;

	cr_expect_eq(count_ops(g, "Constant"), 2, "k1 (with k2 and the float_data k3) and k4 stay");
	cr_expect_not_null(node_named(g, "k1"));
	cr_expect_not_null(node_named(g, "k4"), "the constant differing in its last byte stays");
	cr_expect_eq(count_ops(g, "Add"), 2, "add2 and add3 merge into add1; add4 stays");
	cr_expect_str_eq(node_named(g, "concat")->input[1], "a1");
	cr_expect_str_eq(node_named(g, "concat")->input[2], "a1");
	cr_expect_str_eq(node_named(g, "concat")->input[3], "a4");
	free_proto(m);
	expect_same("cse_const.onnx");
}

Test(cse, constants_merge_on_equal_bytes_only, .init = run_setup, .fini = run_teardown)
{
	constants(0);
}

/* The same with every content digest zero: the byte compare alone tells k4 apart. */
Test(cse, constants_are_compared_byte_for_byte_when_digests_collide, .init = run_setup, .fini = run_teardown)
{
	constants(1);
}

/* Graph outputs keep their names: the earlier node makes a later one's output,
 * and two nodes whose outputs are both graph outputs both stay. */
Test(cse, graph_outputs_keep_their_names, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = optimize("cse_outputs.onnx", CSE);
	Onnx__GraphProto *g = m->graph;
	static const char *const outs[] = { "O1", "O2", "O3", "O4", "O5", "O6" };

	cr_assert_eq(g->n_output, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_expect_str_eq(g->output[i]->name, outs[i]);
		cr_expect_not_null(find_node_by_output(g, outs[i]), "'%s' is still made", outs[i]);
	}
	cr_expect_eq(count_ops(g, "Relu"), 2, "both Relus make graph outputs: both stay");
	EXPECT_LEFT("relu2", "must both keep their names");
	cr_expect_eq(count_ops(g, "Sigmoid"), 1);
	cr_expect_str_eq(find_node_by_output(g, "O3")->name, "sig1", "the first Sigmoid now makes 'O3'");
	cr_expect_str_eq(node_named(g, "neg_s")->input[0], "O3");
	cr_expect_eq(count_ops(g, "Tanh"), 1);
	cr_expect_str_eq(node_named(g, "neg_t")->input[0], "O5");
	free_proto(m);
	expect_same("cse_outputs.onnx");
}

/* In the default set: the README's summary line and test_optimize.c list it. */
Test(cse, runs_in_the_default_set, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = optimize("cse_basic.onnx", NULL);

	cr_expect_eq(count_ops(m->graph, "Add"), 1);
	cr_expect_eq(count_ops(m->graph, "Split"), 1);
	free_proto(m);
	expect_same("cse_basic.onnx");
}

/* ---- eliminate_duplicate_initializer ---- */

static const char *const DUP[] = { "eliminate_duplicate_initializer", NULL };
static const char *const EXTRACT[] = { "extract_constant_to_initializer", NULL };

/* onnxoptimizer's case: two equal initializers, one left, read by both Adds. */
Test(cse, duplicate_initializers_merge, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = optimize("dupinit.onnx", DUP);
	Onnx__GraphProto *g = m->graph;

	cr_expect_eq(g->n_node, 2);
	cr_expect_eq(g->n_initializer, 1);
	cr_expect_eq(g->n_input, 1);
	cr_expect_str_eq(g->initializer[0]->name, "I_0");
	cr_expect_str_eq(g->node[0]->input[1], "I_0");
	cr_expect_str_eq(g->node[1]->input[1], "I_0");
	free_proto(m);
	expect_same("dupinit.onnx");
}

/* Over one store chunk: equal bytes merge whatever their encoding; a last byte
 * apart, other dims, or an overridable default (a graph input) stay. */
static void
duplicates(int collide)
{
	static const char *const kept[] = { "W_raw", "W_odd", "W_dims", "W_1d", "W_in", "N_typed", "W_flat" };
	static const char *const gone[] = { "W_raw2", "W_typed", "N_raw" };
	Onnx__ModelProto *m;
	Onnx__GraphProto *g;

	scs_hash_collide_for_tests(collide);
	m = optimize("dupinit_more.onnx", DUP);
	scs_hash_collide_for_tests(0);
	g = m->graph;

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		cr_expect_not_null(find_init(g, kept[i]), "'%s' stays", kept[i]);
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		cr_expect_null(find_init(g, gone[i]), "'%s' goes", gone[i]);
		cr_expect_not(uses(g, gone[i]), "nothing reads '%s'", gone[i]);
	}
	cr_expect_eq(g->n_initializer, 7);
	cr_expect_str_eq(find_node_by_output(g, "a_W_typed")->input[1], "W_raw", "float_data equals raw_data");
	cr_expect_str_eq(find_node_by_output(g, "a_W_in")->input[1], "W_in", "the default stays the input's");
	cr_expect_str_eq(find_node_by_output(g, "M")->input[1], "N_typed");
	free_proto(m);
	expect_same("dupinit_more.onnx");
}

Test(cse, duplicate_initializers_need_equal_type_dims_and_bytes, .init = run_setup, .fini = run_teardown)
{
	duplicates(0);
}

/* The same with every content digest zero: the byte compare alone tells W_odd apart. */
Test(cse, duplicate_initializers_are_compared_byte_for_byte_when_digests_collide, .init = run_setup,
    .fini = run_teardown)
{
	duplicates(1);
}

/* ---- extract_constant_to_initializer ---- */

/* onnxoptimizer's case: the Constant becomes initializer 'A' [16,1,1] float. */
Test(cse, a_constant_becomes_an_initializer, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = optimize("extract.onnx", EXTRACT);
	Onnx__GraphProto *g = m->graph;

	cr_assert_eq(g->n_initializer, 1);
	cr_expect_str_eq(g->initializer[0]->name, "A");
	cr_assert_eq(g->initializer[0]->n_dims, 3);
	cr_expect(g->initializer[0]->dims[0] == 16 && g->initializer[0]->dims[1] == 1 && g->initializer[0]->dims[2] == 1);
	cr_expect_eq(g->initializer[0]->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
	cr_assert_eq(g->n_node, 2);
	cr_expect_str_eq(g->node[0]->op_type, "Conv");
	cr_expect_str_eq(g->node[1]->op_type, "Add");
	free_proto(m);
	expect_same("extract.onnx");
}

/* Typed and value_floats Constants move; one that is a graph output, and one
 * in an If branch, stay nodes. */
Test(cse, constants_move_but_graph_outputs_and_nested_ones, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = optimize("extract_more.onnx", EXTRACT);
	Onnx__GraphProto *g = m->graph, *then_g = subgraph(g, "If", "then_branch");
	Onnx__TensorProto *f;

	cr_expect_not_null(find_init(g, "k_typed"));
	cr_assert_not_null(f = find_init(g, "k_floats"));
	cr_expect(f->n_dims == 1 && f->dims[0] == 4, "value_floats: one dim of 4");
	cr_expect_eq(count_ops(g, "Constant"), 1, "only the graph output's Constant stays");
	cr_expect_str_eq(find_node_by_output(g, "K_out")->op_type, "Constant");
	EXPECT_LEFT("k_out", "is a graph output");
	cr_assert_not_null(then_g);
	cr_expect_eq(count_ops(then_g, "Constant"), 1, "the branch's Constant stays");
	free_proto(m);
	expect_same("extract_more.onnx");
}
