/*
 * fuse_add_bias_into_conv.c: Conv (or ConvTranspose) followed by an
 * Add of a constant that holds one value per output channel ([M,1,...],
 * [1,M,1,...], or one value: a scalar, [1], [1,1,...]) becomes the Conv's
 * bias: b + a, computed in double and rounded once to the weight's type
 * (fuse.h), a new bias [M] when the Conv had none.
 *
 * Conv adds its bias inside, before the Add would have: the result can
 * differ from the two steps by a rounding when the Conv already had a bias
 * (the tests state the largest difference seen).
 *
 * Left alone: an Add whose other input is a graph input (with a default or
 * not), a constant of another type or shape (one that would broadcast the
 * output to a larger shape, or vary along a spatial axis), a Conv whose
 * output something else reads or that is a graph output, a Conv whose
 * weight's shape is not known, an Add before opset 7 (its own broadcast
 * rules). An Add whose other input is computed is not a bias: skipped
 * silently.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"

static int
visit(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *add, void *payload)
{
	int *changed = payload, r;
	Onnx__NodeProto *conv = NULL;
	scs_opt_const a, b;
	scs_fuse_chan chan;
	scs_vfacts fw;
	size_t which = 0;
	uint64_t M = 0, per = 1;
	int64_t bias_dims[1], group;
	uint32_t b_id;
	const char *other, *has_b, *b_name;
	char why[768], shape[160], base[512];

	if (!scs_fuse_op_is(add, "Add") || add->n_input != 2 || !add->input[0][0] || !add->input[1][0])
		return SCS_OK;
	for (which = 0; which < 2; which++) {
		conv = scs_opt_producer(ctx, scope, add->input[which]);
		if (conv && !scs_opt_is_dropped(ctx, scope, conv) &&
		    (scs_fuse_op_is(conv, "Conv") || scs_fuse_op_is(conv, "ConvTranspose")))
			break;
	}
	if (which == 2)
		return SCS_OK;
	other = add->input[1 - which];
	if (!scs_opt_constant(&a, ctx, scope, other, why, sizeof(why))) {
		/* a computed value is no bias; a graph input is a value a caller may change */
		if (scs_opt_def_scope(ctx, scope, other) >= 0 && scs_opt_is_input(ctx, scs_opt_def_scope(ctx, scope, other),
		    other))
			SCS_FUSE_REFUSE(ctx, scope, add, "%s", why);
		return SCS_OK;
	}
	if ((r = scs_opt_is_op(ctx, scope, add, "Add")) <= 0 || (r = scs_opt_is_op(ctx, scope, conv, conv->op_type)) <= 0)
		return r;
	if (scs_opt_opset(ctx, scope, "") < 7)
		SCS_FUSE_REFUSE(ctx, scope, add, "Add before opset 7 broadcasts by its own attributes");
	if (conv->n_input < 2 || !conv->input[1][0])
		SCS_FUSE_REFUSE(ctx, scope, add, "the %s has no weight", conv->op_type);
	if ((r = scs_opt_facts(ctx, scope, conv->input[1], &fw)) < 0)
		return r;
	group = scs_attr_int(conv, "group", 1);
	if (fw.rank < 3 || fw.dims[0] <= 0 || fw.dims[1] <= 0 || group < 1)
		SCS_FUSE_REFUSE(ctx, scope, add, "the %s's weight '%s' has no known (channels, channels, kernel...) shape",
		    conv->op_type, conv->input[1]);
	M = scs_fuse_op_is(conv, "ConvTranspose") ? (uint64_t)group * (uint64_t)fw.dims[1] : (uint64_t)fw.dims[0];
	scs_fuse_shape(shape, sizeof(shape), &a);
	if (!scs_fuse_is_float(a.dtype) || (fw.elem > 0 && a.dtype != fw.elem))
		SCS_FUSE_REFUSE(ctx, scope, add, "'%s' is %s, not the %s's %s", other, scs_dtype_name(a.dtype),
		    conv->op_type, scs_dtype_name(fw.elem));
	/* right-aligned against the output [N, M, D1, ...], rank fw.rank: one value per channel at most */
	if (a.rank > (size_t)fw.rank)
		SCS_FUSE_REFUSE(ctx, scope, add, "'%s' of shape %s has more axes than the %s's output", other, shape,
		    conv->op_type);
	for (size_t k = 0; k < a.rank; k++) {
		size_t axis = (size_t)fw.rank - a.rank + k;
		int64_t d = scs_opt_const_dim(&a, k);

		if (d == 1)
			continue;
		if (axis != 1 || (uint64_t)d != M)
			SCS_FUSE_REFUSE(ctx, scope, add, "'%s' of shape %s is not one value per output channel (%llu)", other,
			    shape, (unsigned long long)M);
		per = M;
	}
	if ((uint64_t)a.n_elems != per)
		SCS_FUSE_REFUSE(ctx, scope, add, "'%s' of shape %s holds %lld values", other, shape, (long long)a.n_elems);
	has_b = conv->n_input > 2 && conv->input[2][0] ? conv->input[2] : NULL;
	if (has_b) {
		if (!scs_opt_constant(&b, ctx, scope, has_b, why, sizeof(why)))
			SCS_FUSE_REFUSE(ctx, scope, add, "the %s's bias: %s", conv->op_type, why);
		scs_fuse_shape(shape, sizeof(shape), &b);
		if (b.dtype != a.dtype || b.rank != 1 || (uint64_t)b.n_elems != M)
			SCS_FUSE_REFUSE(ctx, scope, add, "the %s's bias '%s' is %s of shape %s, not %s of [%llu]",
			    conv->op_type, has_b, scs_dtype_name(b.dtype), shape, scs_dtype_name(a.dtype),
			    (unsigned long long)M);
	}
	if (!scs_fuse_only_reader(ctx, scope, conv, add, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, add, "%s", why);

	if ((r = scs_opt_forward(ctx, scope, add, which, 0)) <= 0)
		return r;
	if ((r = scs_fuse_chan_open_add(&chan, ctx, &a, (int64_t)M)) < 0 ||
	    (r = scs_fuse_write_bias(&b_id, ctx, a.dtype, has_b ? &b : NULL, 1, M, 1.0, &chan, 1)) < 0) {
		scs_fuse_chan_close(&chan);
		return r;
	}
	scs_fuse_chan_close(&chan);
	bias_dims[0] = (int64_t)M;
	snprintf(base, sizeof(base), "%s_bias", has_b ? has_b : conv->name && conv->name[0] ? conv->name : conv->input[1]);
	if ((r = scs_fuse_put_input(&b_name, ctx, scope, conv, 2, has_b ? &b : NULL, a.dtype, bias_dims, 1, b_id,
	    base)) < 0 || (r = scs_fuse_drop_unread(ctx, &a, other, add)) < 0)
		return r;
	*changed = 1;
	return scs_opt_did(ctx, scope, conv, "the Add of '%s' folded into its bias '%s'", other, b_name);
}

int
scs_opt_fuse_add_bias_into_conv(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_node(ctx, visit, changed);
}
