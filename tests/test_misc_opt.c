/*
 * test_misc_opt.c: what the default passes make of graph outputs whose
 * value is a constant (an initializer passed through an Identity or a
 * no-op Cast, a Shape folded to a constant): in the main graph the
 * initializer itself becomes the output, under its name, as ONNX Runtime
 * writes it; an overridable default, IR 3, a nested body and a second
 * output of the same value keep their node, with the reason. Models of
 * tests/e2e/gen_misc_opt_models.py.
 *
 * Every output passes onnx.checker (opsets python3-onnx knows) and computes
 * in ONNX Runtime what its input computes, bit for bit.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define out run_out
#define rep run_rep

TestSuite(misc_opt, .init = run_setup, .fini = run_teardown);

static Onnx__ModelProto *
optimize(const char *name)
{
	scs_optimize_options o = SCS_OPTIMIZE_OPTIONS_INIT;

	return run_optimize(name, &o);
}

/* The one pass @pass on fixture @name. */
static Onnx__ModelProto *
optimize_with(const char *name, const char *pass)
{
	const char *passes[] = { pass };
	scs_optimize_options o = SCS_OPTIMIZE_OPTIONS_INIT;

	o.passes = passes;
	o.n_passes = 1;
	return run_optimize(name, &o);
}

static const char *
left_all(void)
{
	return report_left_all(&rep);
}

#define EXPECT_LEFT(node, what) cr_expect(report_left_has(&rep, node, what), "no refusal of '%s' saying \"%s\"; " \
	"left:%s", node, what, left_all())

/* The output passes onnx.checker when @checked and computes in ONNX Runtime, bit for bit, what fixture @name does. */
static void
expect_same(const char *name, int checked)
{
	char *in = fixture(name), *text;

	if (checked) {
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
		free(text);
	}
	cr_assert_eq(ort_same(&text, in, out, NULL), 0, "%s: ONNX Runtime: %s", name, text);
	cr_assert_not_null(strstr(text, "identical"), "%s: %s", name, text);
	free(text);
	free(in);
}

/* Output @name of @g: declared as @elem with @n_dim dims, the first @dim0 (-1: named). */
static void
expect_output(const Onnx__GraphProto *g, size_t i, const char *name, int elem, size_t n_dim, int64_t dim0)
{
	const Onnx__TypeProto__Tensor *tt;

	cr_assert_gt(g->n_output, i);
	cr_assert_str_eq(g->output[i]->name, name);
	tt = g->output[i]->type->tensor_type;
	cr_assert_eq(tt->elem_type, elem, "output '%s' is of type %d", name, tt->elem_type);
	cr_assert_eq(tt->shape->n_dim, n_dim, "output '%s' declares %zu dims", name, tt->shape->n_dim);
	if (dim0 < 0)
		cr_assert_not_null(tt->shape->dim[0]->dim_param, "output '%s' lost its named dim", name);
	else
		cr_assert_eq(tt->shape->dim[0]->dim_value, dim0);
}

/* The initializers become the outputs: no node makes Y, G, P or C; their declarations stay as they were */
Test(misc_opt, an_output_of_a_constant_is_the_initializer_itself)
{
	static const char *const outs[] = { "Y", "G", "P", "C" };
	Onnx__ModelProto *m = optimize("misc_out_const.onnx");
	Onnx__GraphProto *g = m->graph;

	cr_assert_eq(g->n_node, 1, "%zu nodes left", g->n_node);
	cr_assert_str_eq(g->node[0]->name, "add_w");
	cr_assert_str_eq(g->node[0]->input[1], "P", "add_w reads the initializer under its new name");
	for (size_t i = 0; i < 4; i++) {
		cr_assert_null(find_node_by_output(g, outs[i]), "a node still makes '%s'", outs[i]);
		cr_assert_not_null(find_init(g, outs[i]), "no initializer '%s'", outs[i]);
	}
	cr_assert_null(find_init(g, "W"));
	cr_assert_null(find_init(g, "K"));
	expect_output(g, 0, "Y", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, 3);
	expect_output(g, 1, "G", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, -1);
	expect_output(g, 2, "P", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, 2);
	expect_output(g, 4, "C", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, 4);
	free_proto(m);
	expect_same("misc_out_const.onnx", 1);
}

/* One initializer, two outputs: the first takes it, the second keeps its Identity (opset 21) */
Test(misc_opt, a_second_output_of_the_same_constant_keeps_its_identity)
{
	Onnx__ModelProto *m = optimize("misc_out_twice.onnx");

	cr_assert_null(find_node_by_output(m->graph, "P"));
	cr_assert_not_null(find_init(m->graph, "P"));
	cr_assert_not_null(find_node_by_output(m->graph, "R"));
	cr_assert_str_eq(find_node_by_output(m->graph, "R")->input[0], "P");
	EXPECT_LEFT("id_r", "'R' and 'P' are both names that must stay");
	free_proto(m);
	expect_same("misc_out_twice.onnx", 0);
}

/* An overridable default is no constant: the output follows what the caller feeds */
Test(misc_opt, an_output_of_a_default_keeps_its_identity)
{
	Onnx__ModelProto *m = optimize("misc_out_default.onnx");

	cr_assert_not_null(find_node_by_output(m->graph, "P"));
	cr_assert_not_null(find_init(m->graph, "W"));
	cr_assert(has_input(m->graph, "W"));
	EXPECT_LEFT("id_p", "'W' is a graph input");
	free_proto(m);
	expect_same("misc_out_default.onnx", 1);
}

/* Below IR 4 an initializer is listed among the inputs again on writing: the output would be an input */
Test(misc_opt, an_output_of_an_initializer_below_ir4_keeps_its_identity)
{
	Onnx__ModelProto *m = optimize("misc_out_ir3.onnx");

	cr_assert_not_null(find_node_by_output(m->graph, "P"));
	cr_assert_not_null(find_init(m->graph, "W"));
	EXPECT_LEFT("id_p", "an input too below IR 4");
	free_proto(m);
	expect_same("misc_out_ir3.onnx", 1);
}

/* A body output stays made by a node of the body */
Test(misc_opt, a_nested_body_output_of_its_initializer_keeps_its_identity)
{
	Onnx__ModelProto *m = optimize("misc_out_nested.onnx");
	Onnx__GraphProto *then_g = subgraph(m->graph, "If", "then_branch");

	cr_assert_eq(then_g->n_node, 1);
	cr_assert_str_eq(then_g->node[0]->op_type, "Identity");
	cr_assert_not_null(find_init(then_g, "K"));
	EXPECT_LEFT("body_id", "'K' is an initializer of a nested graph");
	free_proto(m);
	expect_same("misc_out_nested.onnx", 1);
}

/* ---- onnxoptimizer's cases for our existing passes ---- */

/* fuse_consecutive_transposes alone: a pair that undoes itself goes whole (onnxoptimizer's
 * test_fuse_transpose_default, _graph_output), but from a graph input to a graph output one stays */
Test(misc_opt, two_transposes_that_undo_each_other_go_both)
{
	Onnx__ModelProto *m = optimize_with("misc_tr_default.onnx", "fuse_consecutive_transposes");
	Onnx__GraphProto *g = m->graph;
	Onnx__NodeProto *n;

	cr_assert_str_eq(find_node_by_output(g, "B")->op_type, "Identity");
	cr_assert_str_eq(find_node_by_output(g, "B")->input[0], "X", "id_b reads what tr_1 read");
	cr_assert_str_eq(find_node_by_output(g, "C")->op_type, "Add", "the Add makes the output C");
	n = find_node_by_output(g, "O");
	cr_assert_str_eq(n->op_type, "Transpose", "input I to output O: both names stay");
	cr_assert_str_eq(n->input[0], "I");
	EXPECT_LEFT("tr_6", "both names must stay");
	n = find_node_by_output(g, "D");
	cr_assert_str_eq(n->op_type, "Transpose");
	cr_assert_str_eq(n->input[0], "A", "a default perm and [0,1,2] compose into one Transpose");
	cr_assert_eq(count_ops(g, "Transpose"), 2, "%d Transposes", count_ops(g, "Transpose"));
	cr_assert_eq(g->n_node, 5, "%zu nodes", g->n_node);
	free_proto(m);
	expect_same("misc_tr_default.onnx", 1);
}
