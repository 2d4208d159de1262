/*
 * eliminate_shape_gather.c: Gather of a Shape's output by constant indices
 * (on axis 0; negative ones count from the end) replaced by a constant
 * when the dims it picks are known, even when the Shape itself is not (the
 * batch dim unknown); the Shape stays for its other readers, or goes with
 * eliminate_deadend. shape_facts.c does the work.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/shape_facts.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	(void)payload;
	if (node->n_input < 2 || !scs_shape_is_shape_of(ctx, scope, node->input[0]))
		return 0;
	return scs_shape_fold(ctx, scope, node, 1, NULL);
}

int
scs_opt_eliminate_shape_gather(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Gather", one, changed);
}
