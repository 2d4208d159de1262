/*
 * eliminate_nop_expand.c: Expand whose output provably has its input's
 * shape removed (Expand only copies, so the values are the input's). The
 * shape is a constant (not a graph input) of at most the input's rank
 * whose entries broadcast to the input's dims: 1, or the dim itself where
 * that dim is known (declarations, constants, inference: scs_opt_facts).
 * A longer shape, or an entry over a dim of 1, makes the output bigger.
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/dtype.h"
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int64_t v[SCS_INFER_MAX_RANK];
	scs_opt_const c;
	scs_vfacts f;
	char why[512];
	int r, at;

	(void)payload;
	if (node->n_input < 2 || !node->input[0][0] || !node->input[1][0])
		return 0;
	if ((r = scs_opt_constant(&c, ctx, scope, node->input[1], why, sizeof(why))) <= 0)
		return r < 0 ? r : scs_opt_refuse(ctx, scope, node, "shape: %s", why);
	if (c.dtype != SCS_DT_INT64 || c.rank != 1 || c.n_elems > SCS_INFER_MAX_RANK)
		return 0;     /* not a shape ONNX Runtime takes, or more dims than any input here has */
	if ((r = scs_opt_read_int64s(ctx, &c, 0, (size_t)c.n_elems, v)) < 0)
		return r;
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	switch (scs_opt_broadcast_keeps(&f, v, (size_t)c.n_elems, &at)) {
	case 1:
		return scs_opt_forward(ctx, scope, node, 0, 0);
	case 0:
		return 0;
	default:
		if (at < 0)
			return scs_opt_refuse(ctx, scope, node, "the rank of '%s' is not known", node->input[0]);
		return scs_opt_refuse(ctx, scope, node, "dim %d of '%s' is not known, so the shape need not keep it", at,
		    node->input[0]);
	}
}

int
scs_opt_eliminate_nop_expand(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Expand", one, changed);
}
