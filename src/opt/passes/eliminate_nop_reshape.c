/*
 * eliminate_nop_reshape.c: Reshape to the shape its input already has
 * removed, only where that is certain: the input's rank and the dims that
 * matter are known (declarations, constants, inference: scs_opt_facts),
 * and each entry of the target shape keeps its dim: the same number, or 0
 * without allowzero (copy the input's dim), or 0 with allowzero where the
 * dim is 0, or the one -1 when every other dim is known and not 0 (then -1
 * can only be that dim). The shape is the `shape` attribute before opset 5,
 * else the second input as a constant (not a graph input).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), v[SCS_INFER_MAX_RANK];
	int allowzero = opset >= 14 && scs_attr_int(node, "allowzero", 0) != 0, minus = -1, r;
	const Onnx__AttributeProto *a;
	scs_opt_const c;
	scs_vfacts f;
	char why[512];
	size_t k;

	(void)payload;
	if (node->n_input < 1 || !node->input[0][0])
		return 0;
	if (opset < 5) {
		if ((a = scs_attr_find(node, "shape")) == NULL || a->n_ints > SCS_INFER_MAX_RANK)
			return 0;
		k = a->n_ints;
		for (size_t i = 0; i < k; i++)
			v[i] = a->ints[i];
	} else {
		if (node->n_input < 2 || !node->input[1][0])
			return 0;
		if ((r = scs_opt_constant(&c, ctx, scope, node->input[1], why, sizeof(why))) <= 0)
			return r < 0 ? r : scs_opt_refuse(ctx, scope, node, "shape: %s", why);
		if (c.dtype != SCS_DT_INT64 || c.rank != 1 || c.n_elems > SCS_INFER_MAX_RANK)
			return 0;     /* not a shape ONNX Runtime takes, or a rank past what is known here */
		k = (size_t)c.n_elems;
		if ((r = scs_opt_read_int64s(ctx, &c, 0, k, v)) < 0)
			return r;
	}
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	if (f.rank < 0)
		return scs_opt_refuse(ctx, scope, node, "the shape of '%s' is not known", node->input[0]);
	if ((size_t)f.rank != k)
		return 0;     /* another rank: not a no-op */
	for (size_t i = 0; i < k; i++) {
		if (v[i] == -1 && minus < 0) {
			minus = (int)i;
		} else if (v[i] == 0 && !allowzero) {
			continue;
		} else if (v[i] < 0) {
			return 0;     /* a second -1, or a bad entry: ONNX Runtime refuses it, leave it so */
		} else if (f.dims[i] < 0) {
			return scs_opt_refuse(ctx, scope, node, "dim %zu of '%s' is not known", i, node->input[0]);
		} else if (f.dims[i] != v[i]) {
			return 0;
		}
	}
	for (size_t i = 0; minus >= 0 && i < k; i++)
		if ((int)i != minus && f.dims[i] <= 0)
			return f.dims[i] == 0 ? 0 : scs_opt_refuse(ctx, scope, node, "the shape has -1 and dim %zu of '%s' is not "
			    "known, so -1 need not be dim %d", i, node->input[0], minus);
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_reshape(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Reshape", one, changed);
}
