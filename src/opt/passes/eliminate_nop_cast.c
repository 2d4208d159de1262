/*
 * eliminate_nop_cast.c: Cast to the element type its input already has
 * removed (a copy, bit for bit). The input's type comes from declarations,
 * constants and inference (scs_opt_facts); where it is not known the Cast
 * stays, and the report says so.
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	const Onnx__AttributeProto *to = scs_attr_find(node, "to");
	scs_vfacts f;
	int r;

	(void)payload;
	if (to == NULL || node->n_input < 1 || !node->input[0][0])
		return 0;
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	if (f.elem <= 0)
		return scs_opt_refuse(ctx, scope, node, "the element type of '%s' is not known", node->input[0]);
	if (f.elem != to->i)
		return 0;
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_cast(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Cast", one, changed);
}
