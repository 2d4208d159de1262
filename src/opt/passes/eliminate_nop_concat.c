/*
 * eliminate_nop_concat.c: Concat of a single input removed (its output is
 * that input, bit for bit, whatever the axis). One that ONNX Runtime
 * refuses (of a scalar, or an axis out of the known rank) is left so.
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/attr.h"
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int64_t axis = scs_attr_int(node, "axis", 0);
	scs_vfacts f;
	int r;

	(void)payload;
	if (node->n_input != 1 || !node->input[0][0] || node->n_output != 1)
		return 0;
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	if (f.rank == 0 || (f.rank > 0 && (axis < -f.rank || axis >= f.rank)))
		return 0;     /* a scalar, or an axis out of range: ONNX Runtime refuses it, leave it so */
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_concat(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Concat", one, changed);
}
