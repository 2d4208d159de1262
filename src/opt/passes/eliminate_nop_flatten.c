/*
 * eliminate_nop_flatten.c: Flatten whose output has its input's shape
 * removed. Flatten makes [d0 * ... * d(axis-1), d(axis) * ... * d(n-1)],
 * so it keeps the shape only of a rank-2 input: axis 1 (or -1) always,
 * axis 0 (or -2) when d0 is 1, axis 2 when d1 is 1. The rank (and that dim)
 * must be known (declarations, constants, inference: scs_opt_facts).
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/attr.h"
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int64_t axis = scs_attr_int(node, "axis", 1);
	scs_vfacts f;
	int r;

	(void)payload;
	if (node->n_input < 1 || !node->input[0][0])
		return 0;
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	if (f.rank < 0)
		return scs_opt_refuse(ctx, scope, node, "the rank of '%s' is not known", node->input[0]);
	if (f.rank != 2)
		return 0;
	if (axis < 0)
		axis += 2;
	if (axis == 0 || axis == 2) {
		int64_t d = f.dims[axis == 0 ? 0 : 1];

		if (d < 0)
			return scs_opt_refuse(ctx, scope, node, "axis %d keeps the shape only when dim %d of '%s' is 1, "
			    "and it is not known", (int)axis, axis == 0 ? 0 : 1, node->input[0]);
		if (d != 1)
			return 0;
	} else if (axis != 1) {
		return 0;     /* an axis out of range: ONNX Runtime refuses it, leave it so */
	}
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_flatten(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Flatten", one, changed);
}
