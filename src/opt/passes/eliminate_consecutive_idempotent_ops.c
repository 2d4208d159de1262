/*
 * eliminate_consecutive_idempotent_ops.c: f(f(x)) is f(x) for Ceil, Floor,
 * Round, Relu and Sign (each maps its outputs to themselves, -0 and NaN
 * included): the second node is removed, its readers reading the first's
 * output (which may have other readers). Reshape(Reshape(x, s1), s2) is
 * Reshape(x, s2) when s2 has no 0 that copies a dim (no 0, or allowzero
 * set): the second reads x, and the first goes when nothing else reads it.
 * A 0 in s2 copies a dim of the first's output, not of x, so that pair
 * stays, and so does one whose s2 is not a constant.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/opt.h"

/* The Reshape's target has an entry 0 that copies a dim: 1 yes, 0 no, 2 not known (refused), < 0 error. */
static int
copies_a_dim(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), v[256];
	const Onnx__AttributeProto *a;
	scs_opt_const c;
	char why[512];
	int r;

	if (opset >= 14 && scs_attr_int(node, "allowzero", 0) != 0)
		return 0;
	if (opset < 5) {
		if ((a = scs_attr_find(node, "shape")) == NULL)
			return 1;
		for (size_t i = 0; i < a->n_ints; i++)
			if (a->ints[i] == 0)
				return 1;
		return 0;
	}
	if (node->n_input < 2 || !node->input[1][0])
		return 1;
	if ((r = scs_opt_constant(&c, ctx, scope, node->input[1], why, sizeof(why))) <= 0)
		return r < 0 ? r : (r = scs_opt_refuse(ctx, scope, node, "the shape is not a constant (%s), and a 0 in it "
		    "would copy a dim of the first Reshape's output", why)) < 0 ? r : 2;
	if (!scs_opt_readable(c.dtype))
		return 1;
	for (int64_t at = 0; at < c.n_elems; at += 256) {
		size_t k = (size_t)(c.n_elems - at < 256 ? c.n_elems - at : 256);

		if ((r = scs_opt_read_int64s(ctx, &c, (uint64_t)at, k, v)) < 0)
			return r;
		for (size_t i = 0; i < k; i++)
			if (v[i] == 0)
				return 1;
	}
	return 0;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	Onnx__NodeProto *first;
	const char *mid;
	int r;

	(void)payload;
	if (node->n_input < 1 || !node->input[0][0] || node->n_output != 1)
		return 0;
	first = scs_opt_producer(ctx, scope, node->input[0]);
	if (first == NULL || scs_opt_is_dropped(ctx, scope, first) || first->n_input < 1 || !first->input[0][0])
		return 0;
	if ((r = scs_opt_is_op(ctx, scope, first, node->op_type)) <= 0)
		return r;
	if (strcmp(node->op_type, "Reshape") != 0)
		return scs_opt_forward(ctx, scope, node, 0, 0);
	if ((r = copies_a_dim(ctx, scope, node)) != 0)
		return r < 0 ? r : r == 1 ? scs_opt_refuse(ctx, scope, node, "its shape has a 0, which copies a dim of "
		    "'%s', not of '%s'", node->input[0], first->input[0]) : 0;
	mid = first->output[0];
	if ((r = scs_opt_set_input(ctx, node, 0, first->input[0])) < 0)
		return r;
	if (scs_opt_n_uses(ctx, scope, mid) == 1 && !scs_opt_is_pinned(ctx, scope, mid)) {
		if ((r = scs_opt_drop_node(ctx, scope, first)) < 0)
			return r;
		r = scs_opt_did(ctx, scope, node, "reads '%s', the Reshape before it, which is removed", first->input[0]);
	} else {
		r = scs_opt_did(ctx, scope, node, "reads '%s', the Reshape before it, which stays for its other readers",
		    first->input[0]);
	}
	return r < 0 ? r : 1;
}

int
scs_opt_eliminate_consecutive_idempotent_ops(scs_opt_ctx *ctx, int *changed)
{
	static const char *const ops[] = { "Ceil", "Floor", "Round", "Relu", "Sign", "Reshape" };
	int r;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if ((r = scs_opt_each_op(ctx, ops[i], one, changed)) < 0)
			return r;
	return 0;
}
