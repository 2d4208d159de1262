/*
 * eliminate_nop_split.c: Split into a single output removed (the output is
 * the input). With split sizes given (the `split` attribute before opset
 * 13, the second input from opset 13, or either in opset 1) the one size
 * must be the input's dim on the axis, known (declarations, constants,
 * inference); a size that differs, or an axis out of the known rank, is a
 * model ONNX Runtime refuses, left so.
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/attr.h"
#include "opt/opt.h"

/* The one split size into *size: 1 when given, 0 when not (or not of one entry), < 0 on error;
 * a split input that is not a constant is refused (2). */
static int
split_size(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, int64_t *size)
{
	int64_t opset = scs_opt_opset(ctx, scope, "");
	const Onnx__AttributeProto *a = scs_attr_find(node, "split");
	scs_opt_const c;
	char why[512];
	int r;

	if (opset < 13 && a) {
		if (a->n_ints != 1)
			return 0;
		*size = a->ints[0];
		return 1;
	}
	if ((opset >= 13 || opset < 2) && node->n_input >= 2 && node->input[1][0]) {
		if ((r = scs_opt_constant(&c, ctx, scope, node->input[1], why, sizeof(why))) <= 0)
			return r < 0 ? r : (r = scs_opt_refuse(ctx, scope, node, "split: %s", why)) < 0 ? r : 2;
		if (c.n_elems != 1 || !scs_opt_readable(c.dtype))
			return 0;
		if ((r = scs_opt_read_int64s(ctx, &c, 0, 1, size)) < 0)
			return r;
		return 1;
	}
	return 0;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int64_t axis = scs_attr_int(node, "axis", 0), size = 0;
	scs_vfacts f;
	int r, r2;

	(void)payload;
	if (node->n_input < 1 || !node->input[0][0] || node->n_output != 1 || !node->output[0][0])
		return 0;
	if (scs_attr_int(node, "num_outputs", 1) != 1)
		return 0;
	if ((r = split_size(ctx, scope, node, &size)) < 0 || r == 2)
		return r < 0 ? r : 0;
	if ((r2 = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r2;
	if (f.rank >= 0 && (axis < -f.rank || axis >= f.rank))
		return 0;     /* an axis out of range (or a scalar): ONNX Runtime refuses it, leave it so */
	if (r == 1) {
		if (f.rank < 0)
			return scs_opt_refuse(ctx, scope, node, "the rank of '%s' is not known", node->input[0]);
		if (axis < 0)
			axis += f.rank;
		if (f.dims[axis] < 0)
			return scs_opt_refuse(ctx, scope, node, "dim %d of '%s' is not known, so the split of %lld need not "
			    "be all of it", (int)axis, node->input[0], (long long)size);
		if (f.dims[axis] != size)
			return 0;
	}
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_split(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Split", one, changed);
}
