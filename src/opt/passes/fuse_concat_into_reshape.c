/*
 * fuse_concat_into_reshape.c: a Reshape whose target is made from dims
 * (Concat of Gather(Shape(x)) pieces and constants, Unsqueezed scalars,
 * Casts between int32 and int64, Slices of a Shape, ...) reshapes by a
 * constant instead, where that is exact: known dims stay, an unknown one
 * that is the data's own dim at its place becomes 0 (copy), and one left
 * unknown becomes -1 only when the target has no -1 and every other output
 * dim is provably not 0. Otherwise (allowzero with a dim to copy, two
 * unknown dims, ...) it stays, with the reason. The nodes that made the
 * target go with eliminate_deadend. shape_facts.c does the work.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/shape_facts.h"

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	(void)payload;
	return scs_shape_reshape(ctx, scope, node, 1);
}

int
scs_opt_fuse_concat_into_reshape(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Reshape", one, changed);
}
