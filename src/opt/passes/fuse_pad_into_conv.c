/*
 * fuse_pad_into_conv.c: a Pad that adds zeros around the spatial axes of
 * a Conv's input becomes the Conv's own pads: Conv(Pad(X)) is Conv(X)
 * with the Pad's pads added to its pads attribute (begins, then ends).
 *
 * A Conv pads with zeros, so the Pad must be in mode "constant" with a
 * value of 0 (+0: a -0 would make a sum of zeros -0 where the Conv's
 * own padding makes +0). Its pads come from the attribute before opset
 * 11 ("paddings" at opset 1), from a constant input after, with the
 * constant axes input from opset 18.
 *
 * Left alone, with the reason: a Pad whose output something else reads
 * too or that is a graph output; a Conv whose auto_pad is not NOTSET
 * (its padding follows from the sizes, not the pads attribute); a Pad
 * with another mode (reflect, edge, wrap), a value other than 0, a
 * negative pad (a crop), a pad on the batch or channel axis, pads or
 * value that are not constants (a graph input with a default included).
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>

#include "onnx/attr.h"
#include "opt/fuse.h"

/* The rank of the Conv's data: 2 + its kernel_shape's length, else its weight's rank; 0 when neither is known. */
static size_t
conv_rank(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *conv, int *rc)
{
	const Onnx__AttributeProto *k = scs_attr_find(conv, "kernel_shape");
	scs_vfacts fw;

	*rc = SCS_OK;
	if (k)
		return k->n_ints + 2;
	if (conv->n_input < 2 || !conv->input[1][0])
		return 0;
	if ((*rc = scs_opt_facts(ctx, scope, conv->input[1], &fw)) < 0)
		return 0;
	return fw.rank > 2 ? (size_t)fw.rank : 0;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *conv, void *payload)
{
	scs_fuse_pad p;
	size_t rank;
	int r;

	(void)payload;
	rank = conv_rank(ctx, scope, conv, &r);
	if (r < 0)
		return r;
	if ((r = scs_fuse_pad_source(&p, ctx, scope, conv, rank)) <= 0)
		return r;
	if (p.value != 0 || signbit(p.value))
		SCS_FUSE_REFUSE(ctx, scope, conv, "the Pad before it pads with %g, where a Conv pads with 0", p.value);
	if ((r = scs_fuse_pad_apply(ctx, scope, conv, &p)) < 0)
		return r;
	return 1;
}

int
scs_opt_fuse_pad_into_conv(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Conv", one, changed);
}
