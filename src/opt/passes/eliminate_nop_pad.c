/*
 * eliminate_nop_pad.c: Pad that adds nothing (every pad 0) removed,
 * whatever its mode, value and axes. The pads are the `paddings` attribute
 * (opset 1), `pads` (opsets 2 to 10), or from opset 11 the `pads` input,
 * which counts only as a constant (not a graph input, which a caller may
 * set).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/opt.h"

/* 1 when every one of the @n pads is 0, 0 when not, < 0 on error. */
static int
all_zero(scs_opt_ctx *ctx, const scs_opt_const *c)
{
	int64_t v[256];
	size_t take;
	int rc;

	for (int64_t done = 0; done < c->n_elems; done += (int64_t)take) {
		take = (size_t)(c->n_elems - done) < 256 ? (size_t)(c->n_elems - done) : 256;
		if ((rc = scs_opt_read_int64s(ctx, c, (uint64_t)done, take, v)) < 0)
			return rc;
		for (size_t k = 0; k < take; k++)
			if (v[k] != 0)
				return 0;
	}
	return 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	const Onnx__AttributeProto *a;
	scs_opt_const c;
	char why[512];
	int r;

	(void)payload;
	if (scs_opt_opset(ctx, scope, "") < 11) {
		a = scs_attr_find(node, scs_opt_opset(ctx, scope, "") < 2 ? "paddings" : "pads");
		if (a == NULL)
			return 0;
		for (size_t i = 0; i < a->n_ints; i++)
			if (a->ints[i] != 0)
				return 0;
		return scs_opt_forward(ctx, scope, node, 0, 0);
	}
	if (node->n_input < 2 || !node->input[1][0])
		return 0;
	if ((r = scs_opt_constant(&c, ctx, scope, node->input[1], why, sizeof(why))) <= 0)
		return r < 0 ? r : scs_opt_refuse(ctx, scope, node, "pads: %s", why);
	if (c.dtype != SCS_DT_INT64)
		return scs_opt_refuse(ctx, scope, node, "pads '%s' is %s, not int64", node->input[1], scs_dtype_name(c.dtype));
	if ((r = all_zero(ctx, &c)) <= 0)
		return r;
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_pad(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Pad", one, changed);
}
