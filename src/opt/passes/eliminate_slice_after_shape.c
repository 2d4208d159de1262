/*
 * eliminate_slice_after_shape.c: Slice of a Shape's output by constant
 * starts, ends, axes and steps (attributes before opset 10; negative ones
 * count from the end, clamped as the spec says) replaced by a constant when
 * the dims it takes are known, even when the Shape itself is not; the
 * Shape stays for its other readers, or goes with eliminate_deadend.
 * shape_facts.c does the work.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/shape_facts.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	(void)payload;
	if (node->n_input < 1 || !scs_shape_is_shape_of(ctx, scope, node->input[0]))
		return 0;
	return scs_shape_fold(ctx, scope, node, 1, NULL);
}

int
scs_opt_eliminate_slice_after_shape(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Slice", one, changed);
}
