/*
 * test_transposed_readers.c: the readers of a constant Y that another
 * constant X holds transposed, rewritten to read X
 * (scs_transposed_readers_check / _rewrite, shrink/pass.h), on the models
 * of tests/e2e/gen_transposed_readers_models.py: each is loaded, its readers
 * of Y rewritten, Y's definition dropped, and the model written; the output
 * must pass onnx.checker and compute bit for bit what the input computes in
 * ONNX Runtime at optimization levels disabled and all.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "io/commit.h"
#include "io/store.h"
#include "onnx/dtype.h"
#include "model/emit.h"
#include "model/model.h"
#include "model/scope.h"
#include "shrink/pass.h"
#include "support.h"

static scs_store *st;

static void
open_store(void)
{
	scratch_setup();
	cr_assert_eq(scs_store_open(&st, NULL, scratch_dir), SCS_OK, "%s", scs_err_msg());
}

static void
close_store(void)
{
	scs_store_close(st);
	scratch_teardown();
}

/* Y's definition in the main graph: its tensor (and node, for a Constant). */
typedef struct found {
	Onnx__TensorProto *t;
	Onnx__NodeProto *node;
	int scope;
} found;

static int
match_y(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	found *f = ctx;

	if (scope != 0 || name == NULL || strcmp(name, "Y") != 0)
		return 0;
	f->t = t;
	f->node = node;
	f->scope = scope;
	return 1;
}

static scs_model *
load(const char *name)
{
	char *path = fixture(name);
	scs_model *m;

	cr_assert_eq(scs_model_load(&m, path, st, NULL), SCS_OK, "%s: %s", name, scs_err_msg());
	free(path);
	return m;
}

/* Y's element type and dims. */
static void
y_facts(scs_model *m, int *dtype, int64_t dims[2])
{
	scs_scopes s;
	found f = { 0 };

	cr_assert_eq(scs_scopes_build(&s, m->proto), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_scopes_each_constant(&s, match_y, &f), 1, "no constant Y");
	cr_assert_eq(f.t->n_dims, 2);
	*dtype = f.t->data_type;
	dims[0] = f.t->dims[0];
	dims[1] = f.t->dims[1];
	scs_scopes_dispose(&s);
}

/* Drop Y's initializer or Constant node (what the pass does once its readers read X). */
static void
drop_y(scs_model *m)
{
	scs_scopes s;
	found f = { 0 };

	cr_assert_eq(scs_scopes_build(&s, m->proto), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_scopes_each_constant(&s, match_y, &f), 1, "no constant Y");
	if (f.node)
		cr_assert_eq(scs_scope_drop_node(m, &s.items[0], f.node), 1);
	else
		cr_assert_eq(scs_scope_drop_initializer(m, &s.items[0], f.t), 1);
	scs_scopes_dispose(&s);
}

/* Write @m as scratch_dir/@name; its path. */
static char *
write_model(scs_model *m, const char *name)
{
	scs_emit_result res;
	scs_commit *c;

	cr_assert_eq(scs_commit_files(&c, scratch_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_emit_write(&res, m, c, name, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_run(c), SCS_OK, "%s", scs_err_msg());
	return path_in(scratch_dir, name);
}

/* The check's answer for Y of fixture @name (kept: X), with its reason in @why. */
static int
check(const char *name, char *why, size_t why_len)
{
	scs_model *m = load(name);
	int64_t dims[2];
	int dtype, rc;

	y_facts(m, &dtype, dims);
	rc = scs_transposed_readers_check(m, m->proto->graph, "Y", dtype, dims, NULL, why, why_len);
	scs_model_free(m);
	return rc;
}

/* Fixture @name with Y's readers reading X, Y dropped, written to the scratch folder; the output, read back. */
static Onnx__ModelProto *
rewrite(const char *name, char **out)
{
	scs_model *m = load(name);
	Onnx__ModelProto *p;
	int64_t dims[2];
	char why[512], *in;
	uint64_t ybytes;
	int dtype;

	y_facts(m, &dtype, dims);
	cr_assert_eq(scs_transposed_readers_check(m, m->proto->graph, "Y", dtype, dims, NULL, why, sizeof(why)), 1,
	    "%s: refused: %s", name, why);
	cr_assert_eq(scs_transposed_readers_rewrite(m, m->proto->graph, "Y", "X", dtype, dims, NULL), SCS_OK, "%s: %s",
	    name, scs_err_msg());
	drop_y(m);
	*out = write_model(m, name);
	scs_model_free(m);
	/* one copy fewer: the output is smaller by about Y's bytes (the new nodes take some hundred) */
	in = fixture(name);
	ybytes = (uint64_t)(dims[0] * dims[1]) * (dtype == SCS_DT_FLOAT16 ? 2 : 4);
	cr_assert_lt(file_size(*out) + ybytes, file_size(in) + 2048, "%s: %llu bytes in, %llu out", name,
	    (unsigned long long)file_size(in), (unsigned long long)file_size(*out));
	free(in);
	p = load_proto(*out);
	cr_assert_not_null(p, "%s: the output does not parse", name);
	return p;
}

/* Bit-identical in ONNX Runtime at levels disabled and all, and onnx.checker passes. */
static void
expect_same(const char *name, const char *out)
{
	char *in = fixture(name);

	expect_equivalent(in, out, "--graph-opt disabled");
	expect_equivalent(in, out, "--graph-opt all");
	free(in);
}

/* Nothing named Y is stored any more: no initializer, no Constant node. */
static void
expect_y_gone(const Onnx__GraphProto *g)
{
	const Onnx__NodeProto *n = find_node_by_output(g, "Y");

	cr_assert_null(find_init(g, "Y"), "Y is still an initializer");
	cr_assert(n == NULL || strcmp(n->op_type, "Transpose") == 0, "Y is still made by a %s node", n->op_type);
}

/* The one Gemm, reading X with transB=1, under the MatMul's output name (directly or through the Reshape back). */
static void
expect_gemm(const Onnx__GraphProto *g, int reshaped)
{
	const Onnx__NodeProto *gemm = NULL;

	cr_assert_eq(count_ops(g, "MatMul"), 0, "a MatMul is left");
	cr_assert_eq(count_ops(g, "Gemm"), 1);
	for (size_t i = 0; i < g->n_node; i++)
		if (strcmp(g->node[i]->op_type, "Gemm") == 0)
			gemm = g->node[i];
	cr_assert_eq(gemm->n_input, 2);
	cr_assert_str_eq(gemm->input[1], "X");
	cr_assert_eq(gemm->n_attribute, 1);
	cr_assert_str_eq(gemm->attribute[0]->name, "transB");
	cr_assert_eq(gemm->attribute[0]->i, 1);
	cr_assert_eq(count_ops(g, "Reshape"), reshaped ? 2 : 0);
	if (!reshaped)
		cr_assert_str_eq(gemm->output[0], "logits");
	else
		cr_assert_str_eq(find_node_by_output(g, "logits")->op_type, "Reshape");
}

/* A MatMul and a Gather reading Y: a Gemm and a Transpose of X; one copy stored. */
static void
both_forms(const char *name, int reshaped, int slice)
{
	char *out;
	Onnx__ModelProto *p = rewrite(name, &out);
	const Onnx__GraphProto *g = p->graph;
	const Onnx__NodeProto *t = find_node_by_output(g, "Y");

	expect_y_gone(g);
	expect_gemm(g, reshaped);
	cr_assert_not_null(t, "no node makes Y");
	cr_assert_str_eq(t->op_type, "Transpose");
	cr_assert_str_eq(t->input[0], "X");
	cr_assert_eq(count_ops(g, "Transpose"), 1);
	cr_assert_eq(count_ops(g, "Gather"), 2);
	cr_assert_eq(count_ops(g, "Slice"), slice);
	cr_assert_eq(count_ops(g, "Shape"), reshaped);
	expect_same(name, out);
	free_proto(p);
	free(out);
}

Test(transposed_readers, rank_2_float32_opset_13_gemm_and_transpose, .init = open_store, .fini = close_store)
{
	both_forms("trr_r2_f32_13.onnx", 0, 0);
}

Test(transposed_readers, rank_3_float32_opset_13_reshapes_through_a_slice, .init = open_store, .fini = close_store)
{
	both_forms("trr_r3_f32_13.onnx", 1, 1);
}

Test(transposed_readers, rank_3_float32_opset_17_kept_constant_node_after_the_readers, .init = open_store,
    .fini = close_store)
{
	both_forms("trr_r3_f32_17.onnx", 1, 0);
}

Test(transposed_readers, rank_3_float32_opset_21, .init = open_store, .fini = close_store)
{
	both_forms("trr_r3_f32_21.onnx", 1, 0);
}

Test(transposed_readers, rank_2_float16_opset_17_typed_encoding, .init = open_store, .fini = close_store)
{
	both_forms("trr_r2_f16_17.onnx", 0, 0);
}

/* MatMul readers only: no Transpose node is added. */
static void
gemm_only(const char *name, int slice)
{
	char *out;
	Onnx__ModelProto *p = rewrite(name, &out);
	const Onnx__GraphProto *g = p->graph;

	expect_y_gone(g);
	cr_assert_null(find_node_by_output(g, "Y"));
	cr_assert_eq(count_ops(g, "Transpose"), 0);
	expect_gemm(g, 1);
	cr_assert_eq(count_ops(g, "Slice"), slice);
	expect_same(name, out);
	free_proto(p);
	free(out);
}

Test(transposed_readers, rank_3_float16_opset_21_constant_node, .init = open_store, .fini = close_store)
{
	gemm_only("trr_r3_f16_21.onnx", 0);
}

Test(transposed_readers, rank_4_float32_opset_21, .init = open_store, .fini = close_store)
{
	gemm_only("trr_r4_f32_21.onnx", 0);
}

Test(transposed_readers, rank_3_opset_13_matmul_only, .init = open_store, .fini = close_store)
{
	gemm_only("trr_mm_only_13.onnx", 1);
}

Test(transposed_readers, data_movement_and_elementwise_readers_read_one_transpose, .init = open_store,
    .fini = close_store)
{
	char *out;
	Onnx__ModelProto *p = rewrite("trr_gather_only_21.onnx", &out);
	const Onnx__GraphProto *g = p->graph;

	expect_y_gone(g);
	cr_assert_eq(count_ops(g, "Transpose"), 1);
	cr_assert_eq(count_ops(g, "Gemm"), 0);
	cr_assert_str_eq(g->node[0]->op_type, "Transpose", "the Transpose of an initializer comes first");
	expect_same("trr_gather_only_21.onnx", out);
	free_proto(p);
	free(out);
}

/* Refused, with a reason naming @node; and the rewrite refuses too, changing nothing. */
static void
refused(const char *name, const char *node, const char *what)
{
	char why[512];
	scs_model *m;
	int64_t dims[2];
	int dtype;
	size_t n_node;

	cr_assert_eq(check(name, why, sizeof(why)), 0, "%s: not refused", name);
	cr_assert_not_null(strstr(why, node), "%s: the reason names no '%s': %s", name, node, why);
	cr_assert_not_null(strstr(why, what), "%s: the reason says no '%s': %s", name, what, why);
	m = load(name);
	y_facts(m, &dtype, dims);
	n_node = m->proto->graph->n_node;
	cr_assert_eq(scs_transposed_readers_rewrite(m, m->proto->graph, "Y", "X", dtype, dims, NULL), SCS_EUSAGE);
	cr_assert_eq(m->proto->graph->n_node, n_node);
	scs_model_free(m);
}

Test(transposed_readers, a_matmul_read_by_an_add_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_add.onnx", "bias_add", "Add");
}

Test(transposed_readers, a_conv_reader_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_conv.onnx", "conv_y", "Conv");
}

Test(transposed_readers, an_input_of_unknown_rank_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_rank.onnx", "lm_head", "unknown");
}

Test(transposed_readers, a_nested_reader_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_nested.onnx", "if_y", "nested");
}

Test(transposed_readers, a_scaled_input_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_mul_in.onnx", "scale_h", "Mul");
}

Test(transposed_readers, a_graph_output_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_output.onnx", "output", "graph");
}

Test(transposed_readers, a_graph_input_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_input.onnx", "input", "graph");
}

Test(transposed_readers, float64_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_f64.onnx", "lm_head", "float64");
}

Test(transposed_readers, opset_10_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_opset10.onnx", "lm_head", "opset 10");
}

Test(transposed_readers, an_unknown_inner_dim_below_opset_14_is_refused, .init = open_store, .fini = close_store)
{
	refused("trr_bad_seq13.onnx", "lm_head", "dim 1");
}

/* The rank known only to the caller (inference): the shapes callback says it. */
static int
rank_3(void *ctx, const char *name, int64_t *dims, int max)
{
	(void)ctx;
	if (strcmp(name, "hr") != 0 || max < 3)
		return -1;
	dims[0] = -1;
	dims[1] = -1;
	dims[2] = 256;
	return 3;
}

Test(transposed_readers, the_callers_shapes_give_the_rank, .init = open_store, .fini = close_store)
{
	scs_transposed_shapes sh = { rank_3, NULL };
	scs_model *m = load("trr_bad_rank.onnx");
	int64_t dims[2];
	char why[512], *out;
	int dtype;

	y_facts(m, &dtype, dims);
	cr_assert_eq(scs_transposed_readers_check(m, m->proto->graph, "Y", dtype, dims, &sh, why, sizeof(why)), 1, "%s",
	    why);
	cr_assert_eq(scs_transposed_readers_rewrite(m, m->proto->graph, "Y", "X", dtype, dims, &sh), SCS_OK, "%s",
	    scs_err_msg());
	drop_y(m);
	out = write_model(m, "rank.onnx");
	scs_model_free(m);
	expect_same("trr_bad_rank.onnx", out);
	free(out);
}

/* Loaded as scs4onnx-shrink loads (main-graph initializers sealed): Y a Constant node, X a sealed initializer. */
Test(transposed_readers, a_model_with_sealed_initializers, .init = open_store, .fini = close_store)
{
	char *path = fixture("trr_r3_f32_13.onnx"), why[512], *out;
	Onnx__ModelProto *p;
	scs_model *m;
	int64_t dims[2];
	int dtype;

	cr_assert_eq(scs_model_load_sealed(&m, path, st, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_not_null(scs_sealed_of(m->proto->graph), "nothing was sealed");
	y_facts(m, &dtype, dims);
	cr_assert_eq(scs_transposed_readers_check(m, m->proto->graph, "Y", dtype, dims, NULL, why, sizeof(why)), 1, "%s",
	    why);
	cr_assert_eq(scs_transposed_readers_rewrite(m, m->proto->graph, "Y", "X", dtype, dims, NULL), SCS_OK, "%s",
	    scs_err_msg());
	drop_y(m);
	out = write_model(m, "sealed.onnx");
	scs_model_free(m);
	p = load_proto(out);
	cr_assert_not_null(p);
	expect_y_gone(p->graph);
	expect_gemm(p->graph, 1);
	cr_assert_not_null(find_init(p->graph, "X"));
	expect_same("trr_r3_f32_13.onnx", out);
	free_proto(p);
	free(out);
	free(path);
}

/* The Constant Y of graph @g (a branch) rewritten and dropped; A's rank comes from the main graph. */
static void
rewrite_in(scs_model *m, Onnx__GraphProto *g)
{
	int64_t dims[2];
	char why[512];
	scs_scopes s;
	Onnx__NodeProto *y = NULL;
	Onnx__TensorProto *t;

	for (size_t i = 0; i < g->n_node; i++)
		if (strcmp(g->node[i]->op_type, "Constant") == 0 && strcmp(g->node[i]->output[0], "Y") == 0)
			y = g->node[i];
	cr_assert_not_null(y);
	t = scs_node_constant(y);
	dims[0] = t->dims[0];
	dims[1] = t->dims[1];
	cr_assert_eq(scs_transposed_readers_check(m, g, "Y", t->data_type, dims, NULL, why, sizeof(why)), 1, "%s", why);
	cr_assert_eq(scs_transposed_readers_rewrite(m, g, "Y", "X", t->data_type, dims, NULL), SCS_OK, "%s",
	    scs_err_msg());
	cr_assert_eq(scs_scopes_build(&s, m->proto), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_scope_drop_node(m, &s.items[scs_scopes_of(&s, g)], y), 1);
	scs_scopes_dispose(&s);
}

Test(transposed_readers, in_if_branches_reading_the_main_graph, .init = open_store, .fini = close_store)
{
	scs_model *m = load("trr_nested_17.onnx");
	Onnx__NodeProto *n = m->proto->graph->node[0];
	Onnx__ModelProto *p;
	char *out;

	cr_assert_str_eq(n->op_type, "If");
	for (size_t i = 0; i < n->n_attribute; i++)
		rewrite_in(m, n->attribute[i]->g);
	out = write_model(m, "nested.onnx");
	scs_model_free(m);
	p = load_proto(out);
	cr_assert_not_null(p);
	n = p->graph->node[0];
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__GraphProto *g = n->attribute[i]->g;

		cr_assert_eq(count_ops(g, "Gemm"), 1);
		cr_assert_eq(count_ops(g, "MatMul"), 0);
		cr_assert_eq(count_ops(g, "Transpose"), 1);
		cr_assert_str_eq(find_node_by_output(g, "Y")->op_type, "Transpose");
	}
	expect_same("trr_nested_17.onnx", out);
	free_proto(p);
	free(out);
}
