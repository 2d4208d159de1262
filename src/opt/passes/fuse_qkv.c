/*
 * fuse_qkv.c: three MatMuls that read the same input X by constant
 * weights of one type and one shape (an attention layer's query, key and
 * value projections) become one: Concat(Wq, Wk, Wv) along the last axis,
 * one MatMul of X by it, and a Split along the last axis into the three
 * outputs, which keep their names. Each output column is the same dot
 * product as before.
 *
 * As onnxoptimizer has it, X must be read by exactly these three MatMuls
 * (as their first input) and nothing else; the MatMuls are taken in the
 * order their uses are listed. The Concat of the constants is a node (as
 * onnxoptimizer makes it); fold_constants folds it where its size allows.
 *
 * Left alone, with the reason: weights that are not constants (a graph
 * input included), of different types or shapes, or of rank below 2 (a
 * vector weight has no column axis); MatMuls in different graphs; Split
 * before opset 2.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "onnx/dtype.h"
#include "opt/fuse.h"

/* The three MatMuls reading @x in scope @scope as input 0, and nothing else; 0 when not (silently). */
static int
three_readers(scs_opt_ctx *ctx, int scope, const char *x, Onnx__NodeProto **mm)
{
	int def = scs_opt_def_scope(ctx, scope, x), n = 0;

	if (def < 0)
		return 0;
	for (const scs_opt_use *u = scs_opt_first_use(ctx, def, x); u; u = scs_opt_next_use(ctx, u)) {
		if (n == 3 || u->kind != SCS_OPT_USE_INPUT || u->scope != scope || u->index != 0 ||
		    !scs_fuse_op_is(u->node, "MatMul") || scs_opt_is_dropped(ctx, scope, u->node))
			return 0;
		mm[n++] = u->node;
	}
	return n == 3;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	Onnx__NodeProto *mm[3], *cat, *mul, *split;
	scs_opt_const w[3];
	int64_t opset = scs_opt_opset(ctx, scope, ""), n_cols[3];
	const char *wcat, *y, *sizes = NULL, *ins[4], *outs[3];
	char why[768], base[512];
	int r;

	(void)payload;
	if (node->n_input != 2 || !node->input[0][0] || !node->input[1][0] || node->n_output != 1)
		return 0;
	if (!three_readers(ctx, scope, node->input[0], mm) || mm[0] != node)
		return 0;
	for (int k = 0; k < 3; k++) {
		if (mm[k]->n_input != 2 || !mm[k]->input[1][0] || mm[k]->n_output != 1 || !mm[k]->output[0][0])
			return 0;
		if (k && (r = scs_opt_is_op(ctx, scope, mm[k], "MatMul")) <= 0)
			return r;
		if (!scs_opt_constant(&w[k], ctx, scope, mm[k]->input[1], why, sizeof(why)))
			SCS_FUSE_REFUSE(ctx, scope, node, "the weight of '%s': %s", mm[k]->output[0], why);
		if (w[k].rank < 2)
			SCS_FUSE_REFUSE(ctx, scope, node, "the weight '%s' has rank %zu: no column axis", mm[k]->input[1],
			    w[k].rank);
		if (k && (w[k].dtype != w[0].dtype || w[k].rank != w[0].rank))
			SCS_FUSE_REFUSE(ctx, scope, node, "the weights '%s' and '%s' differ in type or rank", mm[0]->input[1],
			    mm[k]->input[1]);
		for (size_t d = 0; k && d < w[0].rank; d++)
			if (scs_opt_const_dim(&w[k], d) != scs_opt_const_dim(&w[0], d))
				SCS_FUSE_REFUSE(ctx, scope, node, "the weights '%s' and '%s' differ in shape", mm[0]->input[1],
				    mm[k]->input[1]);
		n_cols[k] = scs_opt_const_dim(&w[k], w[k].rank - 1);
	}
	if (opset < 2)
		SCS_FUSE_REFUSE(ctx, scope, node, "Split before opset 2 is left as it is");

	/* Concat(Wq, Wk, Wv) -> MatMul(X, .) -> Split(., sizes) into the three outputs */
	snprintf(base, sizeof(base), "%s_qkv", mm[0]->input[1]);
	if ((r = scs_opt_fresh_name(&wcat, ctx, base)) < 0)
		return r;
	snprintf(base, sizeof(base), "%s_qkv", mm[0]->output[0]);
	if ((r = scs_opt_fresh_name(&y, ctx, base)) < 0)
		return r;
	if (opset >= 13) {
		Onnx__TensorProto *t;
		scs_opt_writer wr;
		uint32_t id;
		int64_t three = 3;

		snprintf(base, sizeof(base), "%s_split", mm[0]->output[0]);
		if ((r = scs_opt_fresh_name(&sizes, ctx, base)) < 0)
			return r;
		if ((r = scs_opt_writer_open(&wr, ctx, SCS_DT_INT64)) < 0 ||
		    (r = scs_opt_writer_put_int64s(&wr, n_cols, 3)) < 0 || (r = scs_opt_writer_finish(&id, &wr)) < 0) {
			scs_opt_writer_abort(&wr);
			return r;
		}
		if ((t = scs_opt_tensor_new(ctx, sizes, SCS_DT_INT64, &three, 1, id)) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot make constant '%s'", sizes);
		if ((r = scs_opt_add_constant(ctx, scope, t, node)) < 0)
			return r;
	}
	for (int k = 0; k < 3; k++) {
		ins[k] = mm[k]->input[1];
		outs[k] = mm[k]->output[0];
	}
	if ((cat = scs_opt_node_new("Concat", "", ins, 3, &wcat, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make a Concat node");
	if ((r = scs_opt_insert_node(ctx, scope, node, cat)) < 0 ||
	    (r = scs_opt_set_attr_int(cat, "axis", (int64_t)w[0].rank - 1)) < 0)
		return r;
	ins[0] = node->input[0];
	ins[1] = wcat;
	if ((mul = scs_opt_node_new("MatMul", node->name, ins, 2, &y, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make a MatMul node");
	if ((r = scs_opt_insert_node(ctx, scope, node, mul)) < 0)
		return r;
	ins[0] = y;
	ins[1] = sizes;
	if ((split = scs_opt_node_new("Split", "", ins, sizes ? 2 : 1, outs, 3)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make a Split node");
	if ((r = scs_opt_insert_node(ctx, scope, node, split)) < 0 || (r = scs_opt_set_attr_int(split, "axis", -1)) < 0 ||
	    (!sizes && (r = scs_opt_set_attr_ints(split, "split", n_cols, 3)) < 0))
		return r;
	for (int k = 0; k < 3; k++)
		if ((r = scs_opt_drop_node(ctx, scope, mm[k])) < 0)
			return r;
	if ((r = scs_opt_did(ctx, scope, node, "one MatMul by '%s' (Concat of '%s', '%s', '%s') and a Split make '%s', "
	    "'%s', '%s'", wcat, mm[0]->input[1], mm[1]->input[1], mm[2]->input[1], outs[0], outs[1], outs[2])) < 0)
		return r;
	return 1;
}

int
scs_opt_fuse_qkv(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "MatMul", one, changed);
}
