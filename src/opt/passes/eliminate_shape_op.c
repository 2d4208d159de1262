/*
 * eliminate_shape_op.c: Shape replaced by a constant when the dims it reads
 * (from start to end, opset 15 on) are known, even when other dims of its
 * input (the batch) are not. What is known comes from declarations,
 * constants and inference (scs_opt_facts); shape_facts.c does the work.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/shape_facts.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	(void)payload;
	return scs_shape_fold(ctx, scope, node, 1, NULL);
}

int
scs_opt_eliminate_shape_op(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Shape", one, changed);
}
