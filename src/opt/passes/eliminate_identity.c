/*
 * eliminate_identity.c: Identity nodes removed, their readers reading
 * the input (in every graph and nested body). An Identity whose output
 * must keep its name (a graph output, a nested body's output) goes when
 * its input is made by a node of the same graph, which then makes the
 * value under that name, or is an initializer of the main graph, which
 * then takes the output's name; it stays when the input is a graph input,
 * a nested body's initializer or an outer-scope value (a body output may
 * not name an outer value directly). See scs_opt_forward.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	(void)payload;
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_identity(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Identity", one, changed);
}
