/*
 * adjust_add.c: an Add whose first input is a constant and whose second is
 * not reads them the other way round (constant second), the order backends
 * match as "MatMul then bias". Addition of two numbers is commutative in
 * every element type Add takes (IEEE addition included), and broadcasting
 * is symmetric, so the result is the same bit for bit. Before opset 7, an
 * Add with broadcast=1 broadcasts its second input only: swapping would
 * change (or break) it, so such a node is left alone. Not in the default set
 * (onnxoptimizer's rule).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "onnx/attr.h"
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	scs_opt_const c;
	char why[256];
	const char *a, *b;
	int r;

	(void)payload;
	if (node->n_input != 2 || !node->input[0][0] || !node->input[1][0])
		return 0;
	if ((r = scs_opt_constant(&c, ctx, scope, node->input[0], why, sizeof(why))) <= 0)
		return r;
	if ((r = scs_opt_constant(&c, ctx, scope, node->input[1], why, sizeof(why))) != 0)
		return r < 0 ? r : 0;     /* both constant: folding's business */
	if (scs_opt_opset(ctx, scope, NULL) < 7 && scs_attr_int(node, "broadcast", 0) != 0)
		return scs_opt_refuse(ctx, scope, node, "before opset 7, broadcast=1 stretches the second input only");
	a = node->input[0];
	b = node->input[1];
	/* the old names stay valid until the commit */
	if ((r = scs_opt_set_input(ctx, node, 0, b)) < 0 || (r = scs_opt_set_input(ctx, node, 1, a)) < 0)
		return r;
	return scs_opt_did(ctx, scope, node, "inputs swapped: '%s' first, the constant '%s' second", b, a) < 0 ? -1 : 1;
}

int
scs_opt_adjust_add(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Add", one, changed);
}
