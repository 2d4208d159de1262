/*
 * eliminate_nop_concat.c: Concat of a single input removed (its output is
 * that input, bit for bit, whatever the axis).
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	(void)payload;
	if (node->n_input != 1 || !node->input[0][0] || node->n_output != 1)
		return 0;
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_concat(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Concat", one, changed);
}
