/*
 * eliminate_nop_transpose.c: Transpose that keeps every axis in place
 * removed: perm [0, 1, ..., n-1], or no perm on a tensor of rank 0 or 1
 * (no perm reverses the axes, so the rank must be known).
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/attr.h"
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	const Onnx__AttributeProto *p = scs_attr_find(node, "perm");
	scs_vfacts f;
	int r;

	(void)payload;
	if (node->n_input < 1 || !node->input[0][0])
		return 0;
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	if (p) {
		for (size_t i = 0; i < p->n_ints; i++)
			if (p->ints[i] != (int64_t)i)
				return 0;
		if (f.rank >= 0 && (size_t)f.rank != p->n_ints)
			return 0;     /* the perm does not fit the input: ONNX Runtime refuses it, leave it so */
	} else if (f.rank < 0) {
		return scs_opt_refuse(ctx, scope, node, "it has no perm (it reverses the axes) and the rank of '%s' is not "
		    "known", node->input[0]);
	} else if (f.rank > 1) {
		return 0;
	}
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_transpose(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Transpose", one, changed);
}
