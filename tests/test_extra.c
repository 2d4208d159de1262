/*
 * test_extra.c: onnxoptimizer's passes outside the default set (adjust_add,
 * adjust_slice_and_matmul, replace_einsum_with_matmul,
 * set_unique_name_for_nodes, rename_input_output, rewrite_input_dtype,
 * split_init, split_predict, lift_lexical_references), on the models of
 * tests/e2e/gen_extra_models.py: onnxoptimizer's own test cases for them,
 * nested graphs, old and new opsets, and the cases each pass refuses.
 *
 * Every output passes onnx.checker (opsets python3-onnx knows) and computes
 * in ONNX Runtime what its input computes: bit for bit where the pass only
 * moves or renames things, within a stated tolerance (the largest
 * difference printed, "extra: NAME: largest difference ...") where a sum
 * may run in another order.
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

TestSuite(extra, .init = run_setup, .fini = run_teardown);

/* Run the one pass @pass on fixture @name; the output, read back. */
static Onnx__ModelProto *
optimize(const char *name, const char *pass)
{
	const char *passes[] = { pass };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = 1 };

	return run_optimize(name, &o);
}

static const char *
left_all(void)
{
	return report_left_all(&rep);
}

#define EXPECT_LEFT(node, what) cr_expect(report_left_has(&rep, node, what), "no refusal of '%s' saying \"%s\"; " \
	"left:%s", node, what, left_all())

/* The node named @name in @g (not nested), or NULL. */
static Onnx__NodeProto *
by_name(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		if (g->node[i]->name && strcmp(g->node[i]->name, name) == 0)
			return g->node[i];
	return NULL;
}

/* Node @name of @g has op type @op and inputs @in0, @in1 (NULL: not looked at). */
static void
expect_node(const Onnx__GraphProto *g, const char *name, const char *op, const char *in0, const char *in1)
{
	Onnx__NodeProto *n = by_name(g, name);

	cr_assert_not_null(n, "no node '%s'", name);
	cr_expect_str_eq(n->op_type, op, "'%s' is a %s, want %s", name, n->op_type, op);
	if (in0)
		cr_expect_str_eq(n->input[0], in0, "'%s' reads '%s' first, want '%s'", name, n->input[0], in0);
	if (in1) {
		cr_assert_geq(n->n_input, 2, "'%s' has one input", name);
		cr_expect_str_eq(n->input[1], in1, "'%s' reads '%s' second, want '%s'", name, n->input[1], in1);
	}
}

/*
 * The output passes onnx.checker when @checked (python3-onnx knows opsets
 * up to 17) and computes in ONNX Runtime what fixture @name does: bit for
 * bit when @tol is NULL, else within @tol ("REL,ABS", graph optimizations
 * disabled), the largest difference printed.
 */
static void
expect_same(const char *name, int checked, const char *tol)
{
	char *in = fixture(name), *text, *p;

	if (checked) {
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
		free(text);
	}
	if (tol == NULL) {
		cr_assert_eq(ort_same(&text, in, out, NULL), 0, "%s: ONNX Runtime: %s", name, text);
		cr_assert_not_null(strstr(text, "identical"), "%s: %s", name, text);
	} else {
		cr_assert_eq(run(&text, "node '%s/tests/e2e/ort_compare.mjs' '%s' '%s' --runs 4 --graph-opt disabled "
		    "--tol %s", SCS_TEST_SRC_DIR, in, out, tol), 0, "%s: ONNX Runtime: %s", name, text);
		p = strstr(text, "largest difference");
		cr_assert_not_null(p, "%s: %s", name, text);
		p[strcspn(p, "\n")] = '\0';
		cr_log_info("extra: %s: %s (tolerance %s)", name, p, tol);
	}
	free(text);
	free(in);
}

/* onnxoptimizer's test_get_available_passes: each pass takes a graph of nothing, and changes nothing */
Test(extra, every_pass_takes_an_empty_graph)
{
	static const char *const passes[] = { "adjust_add", "adjust_slice_and_matmul", "replace_einsum_with_matmul",
		"set_unique_name_for_nodes", "rename_input_output", "rewrite_input_dtype", "split_init", "split_predict",
		"lift_lexical_references" };
	char *text;

	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
		Onnx__ModelProto *m = optimize("extra_empty.onnx", passes[i]);

		cr_expect_eq(m->graph->n_node + m->graph->n_input + m->graph->n_output, 0, "%s", passes[i]);
		cr_expect_eq(rep.changes.n + rep.left.n, 0, "%s: %zu changes, %zu left", passes[i], rep.changes.n,
		    rep.left.n);
		free_proto(m);
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", passes[i], text);
		free(text);
	}
}

/* ---- adjust_add ---- */

/* onnxoptimizer's case (bias + MatMul) and one in an If branch swap; the rest stay as they were */
Test(extra, adjust_add_reads_the_constant_second)
{
	Onnx__ModelProto *m = optimize("extra_add.onnx", "adjust_add");

	expect_node(m->graph, "swap_bias", "Add", "mm", "bias");
	expect_node(subgraph(m->graph, "If", "then_branch"), "swap_nested", "Add", "cnt", "k");
	expect_node(m->graph, "k_second", "Add", "X", "c");
	expect_node(m->graph, "k_both", "Add", "c", "c");
	expect_node(m->graph, "k_default", "Add", "D", "X");
	free_proto(m);
	expect_same("extra_add.onnx", 1, NULL);
}

Test(extra, adjust_add_at_opset_21)
{
	Onnx__ModelProto *m = optimize("extra_add_op21.onnx", "adjust_add");

	expect_node(m->graph, "swap", "Add", "r", "c");
	free_proto(m);
	expect_same("extra_add_op21.onnx", 0, NULL);
}

/* before opset 7, broadcast=1 stretches the second input only: that Add is refused (ONNX Runtime has no Add-6) */
Test(extra, adjust_add_before_opset_7_leaves_a_one_sided_broadcast)
{
	Onnx__ModelProto *m = optimize("extra_add_op6.onnx", "adjust_add");
	char *text;

	expect_node(m->graph, "r_bcast", "Add", "c", "X");
	EXPECT_LEFT("r_bcast", "broadcast=1");
	expect_node(m->graph, "swap_same", "Add", "X", "c23");
	free_proto(m);
	cr_assert_eq(onnx_check(&text, out), 0, "onnx.checker: %s", text);
	free(text);
}

/* ---- replace_einsum_with_matmul ---- */

#define EINSUM_TOL "1e-6,1e-6"

/* onnxoptimizer's two cases, spaces, float64, int64, a Loop body; a diagonal, an ellipsis, an implicit output and
 * a transposed output are refused */
Test(extra, replace_einsum_with_matmul_on_matrix_products_only)
{
	Onnx__ModelProto *m = optimize("extra_einsum.onnx", "replace_einsum_with_matmul");
	Onnx__NodeProto *t;

	expect_node(m->graph, "tr_self", "MatMul", "X", NULL);
	t = find_node_by_output(m->graph, by_name(m->graph, "tr_self")->input[1]);
	cr_assert_not_null(t, "tr_self: its second input is made by nothing");
	cr_assert_str_eq(t->op_type, "Transpose");
	cr_assert_str_eq(t->input[0], "X");
	cr_assert_eq(t->attribute[0]->n_ints, 4);
	cr_expect(t->attribute[0]->ints[0] == 0 && t->attribute[0]->ints[1] == 1 && t->attribute[0]->ints[2] == 3 &&
	    t->attribute[0]->ints[3] == 2, "tr_self: the Transpose's perm is not [0, 1, 3, 2]");
	expect_node(m->graph, "plain", "MatMul", "X", "X6");
	expect_node(m->graph, "spaces", "MatMul", "A", "B");
	expect_node(m->graph, "f64", "MatMul", "A64", "B64");
	expect_node(m->graph, "i64", "MatMul", "I", NULL);
	cr_expect_eq(by_name(m->graph, "plain")->n_attribute, 0, "the equation stayed on the MatMul");
	expect_node(subgraph(m->graph, "Loop", "body"), "in_loop", "MatMul", "carry", "Wl");
	cr_expect_eq(count_ops(m->graph, "Transpose"), 2);
	cr_expect_eq(count_ops(m->graph, "Einsum"), 4, "%d Einsums left:%s", count_ops(m->graph, "Einsum"),
	    left_all());
	EXPECT_LEFT("r_diag", "repeats a letter");
	EXPECT_LEFT("r_ell", "ellipsis");
	EXPECT_LEFT("r_impl", "no '->'");
	EXPECT_LEFT("r_order", "rows are not");
	free_proto(m);
	expect_same("extra_einsum.onnx", 1, EINSUM_TOL);
}

Test(extra, replace_einsum_with_matmul_at_opset_21)
{
	Onnx__ModelProto *m = optimize("extra_einsum_op21.onnx", "replace_einsum_with_matmul");

	expect_node(m->graph, "tr", "MatMul", "P", NULL);
	cr_expect_eq(count_ops(m->graph, "Transpose"), 1);
	free_proto(m);
	expect_same("extra_einsum_op21.onnx", 0, EINSUM_TOL);
}

/* ---- adjust_slice_and_matmul ---- */

/* the Slice now reads a MatMul of the constants themselves */
static void
expect_moved(const Onnx__GraphProto *g, const char *name, const char *a, const char *b)
{
	Onnx__NodeProto *n = by_name(g, name), *p;

	cr_assert_not_null(n, "no node '%s'", name);
	cr_assert_str_eq(n->op_type, "Slice", "'%s' is a %s", name, n->op_type);
	p = find_node_by_output(g, n->input[0]);
	cr_assert_not_null(p, "'%s' reads nothing made", name);
	cr_assert_str_eq(p->op_type, "MatMul");
	cr_expect_str_eq(p->input[0], a);
	cr_expect_str_eq(p->input[1], b);
}

Test(extra, adjust_slice_and_matmul_moves_the_slice_after_the_product)
{
	Onnx__ModelProto *m = optimize("extra_slice.onnx", "adjust_slice_and_matmul");

	expect_moved(m->graph, "move_rows", "A", "B");
	cr_expect_eq(by_name(m->graph, "move_rows")->n_input, 5, "the steps input is gone");
	expect_moved(m->graph, "move_batch", "A3", "B");
	expect_moved(subgraph(m->graph, "If", "then_branch"), "move_nested", "A", "B");
	expect_node(m->graph, "r_last", "MatMul", "s3", "B2");
	EXPECT_LEFT("r_last", "sums over");
	expect_node(m->graph, "r_batch", "MatMul", "s4", "B4");
	EXPECT_LEFT("r_batch", "batch axis 0");
	expect_node(m->graph, "r_twice", "MatMul", "s5", "B");
	EXPECT_LEFT("r_twice", "other readers");
	expect_node(m->graph, "k_noaxes", "MatMul", "s6", "B");
	cr_expect_null(by_name(m->graph, "slice_rows"), "the first Slice stays");
	free_proto(m);
	expect_same("extra_slice.onnx", 1, EINSUM_TOL);
}

/* opset 9's Slice has attributes, not the axes input onnxoptimizer's pattern names: left alone */
Test(extra, adjust_slice_and_matmul_leaves_the_attribute_form)
{
	Onnx__ModelProto *m = optimize("extra_slice_op9.onnx", "adjust_slice_and_matmul");

	expect_node(m->graph, "k_attr", "MatMul", "s", "B");
	cr_expect_eq(rep.changes.n, 0);
	free_proto(m);
	expect_same("extra_slice_op9.onnx", 1, NULL);
}

/* ---- set_unique_name_for_nodes ---- */

typedef struct name_seen {
	const char *names[64];
	size_t n;
} name_seen;

static void
expect_named(const Onnx__GraphProto *g, name_seen *seen)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];

		cr_assert(n->name && n->name[0], "a %s node has no name", n->op_type);
		for (size_t k = 0; k < seen->n; k++)
			cr_assert_str_neq(seen->names[k], n->name, "two nodes are named '%s'", n->name);
		cr_assert_lt(seen->n, 64);
		seen->names[seen->n++] = n->name;
		for (size_t a = 0; a < n->n_attribute; a++)
			if (n->attribute[a]->g)
				expect_named(n->attribute[a]->g, seen);
	}
}

/* onnxoptimizer's case (an Add and an Identity without names), a name already taken, nodes in If branches */
Test(extra, set_unique_name_for_nodes_names_every_node_once)
{
	Onnx__ModelProto *m = optimize("extra_names.onnx", "set_unique_name_for_nodes");
	name_seen seen = { .n = 0 };

	expect_named(m->graph, &seen);
	cr_expect_eq(seen.n, 9);
	cr_expect_str_eq(find_node_by_output(m->graph, "X3")->name, "Add_1", "the name there was changed");
	free_proto(m);
	expect_same("extra_names.onnx", 1, NULL);
}

/* ---- rename_input_output ---- */

/* The output passes onnx.checker and, run between adapters that rename by position (iface_chain.py), computes in
 * ONNX Runtime what fixture @name does, bit for bit. */
static void
expect_same_renamed(const char *name)
{
	char *in = fixture(name), *chain, *text;

	cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
	free(text);
	cr_assert_eq(run(&chain, "/usr/bin/python3 '%s/tests/e2e/iface_chain.py' '%s' '%s' '%s'", SCS_TEST_SRC_DIR, in,
	    out, dir), 0, "%s: %s", name, chain);
	chain[strcspn(chain, "\n")] = '\0';
	cr_assert_eq(run(&text, "node '%s/tests/e2e/ort_compare.mjs' '%s' %s --chain --runs 4", SCS_TEST_SRC_DIR, in,
	    chain), 0, "%s: ONNX Runtime: %s", name, text);
	cr_assert_not_null(strstr(text, "identical"), "%s: %s", name, text);
	free(text);
	free(chain);
	free(in);
}

static void
expect_io(const Onnx__GraphProto *g, int input, size_t i, const char *name)
{
	Onnx__ValueInfoProto *const *v = input ? g->input : g->output;
	size_t n = input ? g->n_input : g->n_output;

	cr_assert_lt(i, n, "no %s %zu", input ? "input" : "output", i);
	cr_expect_str_eq(v[i]->name, name, "%s %zu is '%s', want '%s'", input ? "input" : "output", i, v[i]->name, name);
}

/* onnxoptimizer's case */
Test(extra, rename_input_output_names_by_position)
{
	Onnx__ModelProto *m = optimize("extra_rename.onnx", "rename_input_output");

	expect_io(m->graph, 1, 0, "input_0");
	expect_io(m->graph, 0, 0, "output_0");
	cr_expect_str_eq(find_node_by_output(m->graph, "output_0")->op_type, "Identity");
	cr_expect_str_eq(m->graph->node[0]->input[0], "input_0");
	free_proto(m);
	expect_same_renamed("extra_rename.onnx");
}

/* onnxoptimizer's case for the patterns it reads from the environment */
Test(extra, rename_input_output_takes_the_patterns_of_the_environment)
{
	Onnx__ModelProto *m;

	setenv("OPTIMIZER_RENAME_INPUT_PATTERN", "INPUT__%d_", 1);
	setenv("OPTIMIZER_RENAME_OUTPUT_PATTERN", "OUTPUT__%d_", 1);
	m = optimize("extra_rename_env.onnx", "rename_input_output");
	unsetenv("OPTIMIZER_RENAME_INPUT_PATTERN");
	unsetenv("OPTIMIZER_RENAME_OUTPUT_PATTERN");
	expect_io(m->graph, 1, 0, "INPUT__0_");
	expect_io(m->graph, 1, 1, "INPUT__1_");
	expect_io(m->graph, 0, 0, "OUTPUT__0_");
	free_proto(m);
	expect_same_renamed("extra_rename_env.onnx");
}

/* a default keeps its name (and counts for the positions); references in an If branch and value_info follow */
Test(extra, rename_input_output_reaches_nested_readers_and_leaves_defaults)
{
	Onnx__ModelProto *m = optimize("extra_rename_more.onnx", "rename_input_output");
	Onnx__NodeProto *mul = subgraph(m->graph, "If", "then_branch")->node[0];

	expect_io(m->graph, 1, 0, "input_0");
	expect_io(m->graph, 1, 1, "D");
	expect_io(m->graph, 1, 2, "input_2");
	expect_io(m->graph, 0, 0, "output_0");
	expect_io(m->graph, 0, 1, "output_1");
	expect_io(m->graph, 0, 2, "output_2");
	cr_expect_str_eq(mul->input[0], "output_0");
	cr_expect_str_eq(mul->input[1], "input_0");
	cr_expect_not_null(find_init(m->graph, "D"), "the default lost its initializer");
	free_proto(m);
	expect_same_renamed("extra_rename_more.onnx");
}

/* a name another value has, and a value that is both an input and an output, stay */
Test(extra, rename_input_output_refuses_taken_names_and_shared_values)
{
	Onnx__ModelProto *m = optimize("extra_rename_clash.onnx", "rename_input_output");

	expect_io(m->graph, 1, 0, "X");
	expect_io(m->graph, 1, 1, "Q");
	expect_io(m->graph, 0, 0, "output_0");
	expect_io(m->graph, 0, 1, "Q");
	cr_expect(strstr(left_all(), "'X': not renamed: another value is called 'input_0'"), "left:%s", left_all());
	cr_expect(strstr(left_all(), "'Q': not renamed: it is a graph output too"), "left:%s", left_all());
	free_proto(m);
	expect_same_renamed("extra_rename_clash.onnx");
}

/* names the model has already, at other positions, are reached over rounds through fresh ones: nothing is refused */
Test(extra, rename_input_output_swaps_names_over_rounds)
{
	Onnx__ModelProto *m = optimize("extra_rename_swap.onnx", "rename_input_output");

	expect_io(m->graph, 1, 0, "input_0");
	expect_io(m->graph, 1, 1, "input_1");
	expect_io(m->graph, 0, 0, "output_0");
	expect_io(m->graph, 0, 1, "output_1");
	cr_expect_eq(rep.left.n, 0, "left:%s", left_all());
	cr_expect_str_eq(by_name(m->graph, "relu")->input[0], "input_0");
	cr_expect_str_eq(by_name(m->graph, "relu")->output[0], "output_0");
	free_proto(m);
	expect_same_renamed("extra_rename_swap.onnx");
}

/* ---- rewrite_input_dtype ---- */

static int
elem_of(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_input; i++)
		if (strcmp(g->input[i]->name, name) == 0)
			return g->input[i]->type->tensor_type->elem_type;
	cr_assert_fail("no input '%s'", name);
	return -1;
}

/* int64 inputs (read by a Gather, a Loop's trip count and a Loop body, or by nothing) become int32; a default and a
 * graph output stay; ONNX Runtime gets the same values (up to int32's largest) as int64 and int32 */
Test(extra, rewrite_input_dtype_makes_int64_inputs_int32)
{
	Onnx__ModelProto *m = optimize("extra_dtype.onnx", "rewrite_input_dtype");
	Onnx__GraphProto *body = subgraph(m->graph, "Loop", "body");
	char *in = fixture("extra_dtype.onnx"), *text, feeds[4096];
	size_t used = 0;

	cr_expect_eq(elem_of(m->graph, "ids"), 6);
	cr_expect_eq(elem_of(m->graph, "n"), 6);
	cr_expect_eq(elem_of(m->graph, "u"), 6);
	cr_expect_eq(elem_of(m->graph, "x"), 1);
	cr_expect_eq(elem_of(m->graph, "d"), 7, "the default was retyped");
	cr_expect_eq(elem_of(m->graph, "p"), 7, "the input that is an output was retyped");
	cr_expect(strstr(left_all(), "'p': left int64: it is a graph output too"), "left:%s", left_all());
	cr_expect_eq(count_ops(m->graph, "Cast"), 2);
	cr_expect_str_eq(find_node_by_output(m->graph, body->node[0]->input[0])->op_type, "Cast",
	    "the Loop body reads '%s'", body->node[0]->input[0]);
	cr_expect_str_eq(find_node_by_output(m->graph, by_name(m->graph, "gather")->input[1])->input[0], "ids");
	cr_expect_str_eq(find_node_by_output(m->graph, by_name(m->graph, "loop")->input[0])->input[0], "n");
	free_proto(m);
	cr_assert_eq(onnx_check(&text, out), 0, "onnx.checker: %s", text);
	free(text);
	for (const char *const *n = (const char *const[]){ "ids", "n", "u", NULL }; *n; n++) {
		char *a, *b;

		snprintf(feeds + used, sizeof(feeds) - used, "extra_dtype_%s64.npy", *n);
		a = fixture(feeds + used);
		snprintf(feeds + used, sizeof(feeds) - used, "extra_dtype_%s32.npy", *n);
		b = fixture(feeds + used);
		used += (size_t)snprintf(feeds + used, sizeof(feeds) - used, " --feed-both %s='%s' --feed %s='%s'", *n, a,
		    *n, b);
		free(a);
		free(b);
	}
	cr_assert_eq(ort_same(&text, in, out, feeds), 0, "ONNX Runtime: %s", text);
	cr_assert_not_null(strstr(text, "identical"), "%s", text);
	free(text);
	free(in);
}

/* before opset 6 Cast's type is a string: refused, the model as it was */
Test(extra, rewrite_input_dtype_before_opset_6_is_refused)
{
	Onnx__ModelProto *m = optimize("extra_dtype_op5.onnx", "rewrite_input_dtype");

	cr_expect_eq(elem_of(m->graph, "ids"), 7);
	cr_expect_eq(count_ops(m->graph, "Cast"), 0);
	cr_expect(strstr(left_all(), "before opset 6"), "left:%s", left_all());
	free_proto(m);
	expect_same("extra_dtype_op5.onnx", 1, NULL);
}

/* ---- split_init, split_predict ---- */

/* @list (@n entries) names exactly the NULL-terminated @names, in that order. */
static void
expect_names(Onnx__ValueInfoProto *const *list, size_t n, const char *const *names, const char *what)
{
	size_t k = 0;

	for (; names[k]; k++) {
		cr_assert_lt(k, n, "%s: %zu entries, want '%s' at %zu", what, n, names[k], k);
		cr_expect_str_eq(list[k]->name, names[k], "%s %zu is '%s', want '%s'", what, k, list[k]->name, names[k]);
	}
	cr_expect_eq(n, k, "%s: %zu entries, want %zu", what, n, k);
}

/* Every node of @g (not nested) has a name starting with @prefix. */
static void
expect_side(const Onnx__GraphProto *g, const char *prefix, size_t n)
{
	for (size_t i = 0; i < g->n_node; i++)
		cr_expect(strncmp(g->node[i]->name, prefix, strlen(prefix)) == 0, "node '%s' is on the other side",
		    g->node[i]->name);
	cr_expect_eq(g->n_node, n, "%zu nodes, want %zu", g->n_node, n);
}

/* split_init, then split_predict, on fixture @name: both pass onnx.checker, and run one after the other in ONNX
 * Runtime they compute what @name does, bit for bit. The init model is left at dir/init.onnx, the predict one at out. */
static void
split_both(const char *name, Onnx__ModelProto **init, Onnx__ModelProto **predict)
{
	char *in = fixture(name), *first = path_in(dir, "init.onnx"), *text;

	*init = optimize(name, "split_init");
	cr_assert_eq(rename(out, first), 0);
	cr_assert_eq(onnx_check(&text, first), 0, "%s: init: onnx.checker: %s", name, text);
	free(text);
	*predict = optimize(name, "split_predict");
	cr_assert_eq(onnx_check(&text, out), 0, "%s: predict: onnx.checker: %s", name, text);
	free(text);
	cr_assert_eq(run(&text, "node '%s/tests/e2e/ort_compare.mjs' '%s' '%s' '%s' --chain --runs 4", SCS_TEST_SRC_DIR,
	    in, first, out), 0, "%s: ONNX Runtime: %s", name, text);
	cr_assert_not_null(strstr(text, "identical"), "%s: %s", name, text);
	free(text);
	free(first);
	free(in);
}

/*
 * The cut: W read by the predict side directly, chains of initializers and a Constant node, an init-side graph
 * output (C), a default read by the predict side (D: an input of both, with its initializer in the init model only),
 * a value read only inside an If branch (k)
 */
Test(extra, split_init_and_split_predict_cut_the_model_in_two)
{
	static const char *const init_in[] = { "D", NULL };
	static const char *const init_out[] = { "C", "W", "D", "zero", "w2", "bs", "k", NULL };
	static const char *const pred_in[] = { "X", "D", "W", "zero", "w2", "bs", "C", "k", NULL };
	static const char *const pred_out[] = { "Y", "Z", "C", "DD", "I", NULL };
	Onnx__ModelProto *init, *predict;

	split_both("extra_split.onnx", &init, &predict);
	expect_side(init->graph, "i_", 7);
	expect_names(init->graph->input, init->graph->n_input, init_in, "init input");
	expect_names(init->graph->output, init->graph->n_output, init_out, "init output");
	cr_expect_eq(init->graph->n_initializer, 5);
	expect_side(predict->graph, "p_", 7);
	expect_names(predict->graph->input, predict->graph->n_input, pred_in, "predict input");
	expect_names(predict->graph->output, predict->graph->n_output, pred_out, "predict output");
	cr_expect_eq(predict->graph->n_initializer, 0);
	free_proto(init);
	free_proto(predict);
}

/* IR 3: the initializers are inputs too, in the init model; the predict model has none */
Test(extra, split_at_ir_3)
{
	static const char *const init_in[] = { "W", NULL };
	static const char *const pred_in[] = { "X", "wt", NULL };
	Onnx__ModelProto *init, *predict;

	split_both("extra_split_ir3.onnx", &init, &predict);
	expect_side(init->graph, "i_", 1);
	expect_names(init->graph->input, init->graph->n_input, init_in, "init input");
	expect_side(predict->graph, "p_", 1);
	expect_names(predict->graph->input, predict->graph->n_input, pred_in, "predict input");
	free_proto(init);
	free_proto(predict);
}

/* a random node stays on the predict side although it reads no input (ONNX Runtime seeds it: the chain compares) */
Test(extra, split_keeps_random_nodes_on_the_predict_side)
{
	Onnx__ModelProto *init, *predict;

	split_both("extra_split_random.onnx", &init, &predict);
	expect_side(init->graph, "i_", 1);
	expect_side(predict->graph, "p_", 2);
	free_proto(init);
	free_proto(predict);
}

/* nothing comes from constants: split_init refuses (the init model would compute nothing); split_predict has nothing
 * to cut */
Test(extra, split_of_a_model_without_constants)
{
	Onnx__ModelProto *m = optimize("extra_split_none.onnx", "split_init");

	cr_expect_eq(m->graph->n_node, 1);
	cr_expect(strstr(left_all(), "the init model would compute nothing"), "left:%s", left_all());
	free_proto(m);
	expect_same("extra_split_none.onnx", 1, NULL);
	m = optimize("extra_split_none.onnx", "split_predict");
	cr_expect_eq(rep.changes.n, 0);
	cr_expect_eq(m->graph->n_node, 1);
	free_proto(m);
}

/* ---- lift_lexical_references ---- */

/* No node of @g, at any depth, has an attribute named @name. */
static void
expect_no_attr(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t a = 0; a < g->node[i]->n_attribute; a++) {
			cr_expect_str_neq(g->node[i]->attribute[a]->name, name, "node '%s' has '%s'", g->node[i]->name, name);
			if (g->node[i]->attribute[a]->g)
				expect_no_attr(g->node[i]->attribute[a]->g, name);
		}
}

/*
 * onnxoptimizer's example: its mark ('__control_inputs') is no ONNX attribute, so nothing is marked; each node
 * whose bodies read outer values is reported with them (the Loop: X and Y, and W5 that the If in its body reads; the
 * If: the body's own _Y3 and W5), and the model computes what it did
 */
Test(extra, lift_lexical_references_reports_and_marks_nothing)
{
	Onnx__ModelProto *m = optimize("extra_lift.onnx", "lift_lexical_references");

	expect_no_attr(m->graph, "__control_inputs");
	cr_expect_eq(rep.changes.n, 0);
	EXPECT_LEFT("loop", "read 3 values of enclosing graphs ('X', 'Y', 'W5')");
	EXPECT_LEFT("inner_if", "read 2 values of enclosing graphs ('_Y3', 'W5')");
	EXPECT_LEFT("loop", "no ONNX operator has");
	free_proto(m);
	expect_same("extra_lift.onnx", 1, NULL);
}

/*
 * onnxoptimizer's test of split_predict with lift_lexical_references on an exported model whose Loop body reads the
 * Constant "2" of the main graph: the predict model takes "1" and "2" as inputs, passes onnx.checker (onnxoptimizer's
 * output does not: its test skips the check), and after the init model it computes what the model did
 */
Test(extra, split_predict_with_lift_lexical_references_on_onnxoptimizers_model)
{
	static const char *const passes[] = { "lift_lexical_references", "split_predict" };
	static const char *const pred_in[] = { "x.1", "1", "2", NULL };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = 2 };
	char *in = fixture("extra_caffe2.onnx"), *first = path_in(dir, "init.onnx"), *text;
	Onnx__ModelProto *m = optimize("extra_caffe2.onnx", "split_init");

	cr_assert_eq(rename(out, first), 0);
	free_proto(m);
	m = run_optimize("extra_caffe2.onnx", &o);
	expect_names(m->graph->input, m->graph->n_input, pred_in, "predict input");
	cr_expect_eq(count_ops(m->graph, "Loop"), 1);
	cr_expect_eq(count_ops(m->graph, "Constant"), 0);
	expect_no_attr(m->graph, "__control_inputs");
	cr_expect(strstr(left_all(), "Loop node writing '3': not marked: its bodies read 1 value of enclosing graphs ('2')"),
	    "left:%s", left_all());
	free_proto(m);
	cr_assert_eq(onnx_check(&text, out), 0, "onnx.checker: %s", text);
	free(text);
	cr_assert_eq(run(&text, "node '%s/tests/e2e/ort_compare.mjs' '%s' '%s' '%s' --chain --runs 4", SCS_TEST_SRC_DIR,
	    in, first, out), 0, "ONNX Runtime: %s", text);
	cr_assert_not_null(strstr(text, "identical"), "%s", text);
	free(text);
	free(first);
	free(in);
}

/* both halves asked for at once: each would cut the other's result; both refuse, the model stays as it was */
Test(extra, split_init_with_split_predict_is_refused)
{
	static const char *const passes[] = { "split_init", "split_predict" };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = 2 };
	Onnx__ModelProto *m = run_optimize("extra_split.onnx", &o);

	cr_expect_eq(rep.changes.n, 0);
	cr_expect_eq(m->graph->n_node, 14);
	cr_expect_eq(m->graph->n_initializer, 5);
	cr_expect(strstr(left_all(), "run them one at a time"), "left:%s", left_all());
	free_proto(m);
	expect_same("extra_split.onnx", 1, NULL);
}
