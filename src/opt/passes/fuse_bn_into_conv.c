/*
 * fuse_bn_into_conv.c: Conv (or ConvTranspose) followed by a
 * BatchNormalization in inference mode becomes one Conv with new weights
 * W * s and bias (b - mean) * s + beta, s = scale / sqrt(var + epsilon),
 * computed in double and rounded once to the weight's type (fuse.h).
 *
 * Conv's weight is (M, C/group, k...): output channel m is the slab
 * W[m]. ConvTranspose's is (C, M/group, k...): W[c, j] feeds output
 * channel (c / (C/group)) * (M/group) + j, for every group.
 *
 * Left alone, with the reason: a BatchNormalization that trains (or may),
 * a Conv whose output something else reads too or that is a graph output,
 * a weight, bias or parameter that is not a constant (a graph input with a
 * default included), of another type, or with a channel count that does
 * not agree. A weight or bias other nodes also read is copied, not changed.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"

static int
visit(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *bn, void *payload)
{
	int *changed = payload, is_t, r;
	Onnx__NodeProto *conv;
	scs_opt_const w, b;
	scs_fuse_bn p;
	scs_fuse_chan chan;
	uint64_t M, inner, mid, rep;
	int64_t group, bias_dims[1];
	uint32_t w_id, b_id;
	const char *w_name, *b_name, *has_b;
	char why[768], shape[160], base[512];

	static const char *const ops[] = { "Conv", "ConvTranspose", NULL };

	if ((conv = scs_fuse_bn_source(ctx, scope, bn, ops, &r)) == NULL)
		return r;
	is_t = scs_fuse_op_is(conv, "ConvTranspose");
	if (conv->n_input < 2 || !conv->input[1][0])
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s has no weight", conv->op_type);
	if (!scs_opt_constant(&w, ctx, scope, conv->input[1], why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's weight: %s", conv->op_type, why);
	scs_fuse_shape(shape, sizeof(shape), &w);
	if (!scs_fuse_is_float(w.dtype) || w.attr)
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's weight '%s' is %s, not a float16, bfloat16, float or double "
		    "tensor", conv->op_type, conv->input[1], scs_dtype_name(w.dtype));
	if (w.rank < 3 || w.n_elems <= 0)
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's weight '%s' has shape %s: not (channels, channels, kernel...)",
		    conv->op_type, conv->input[1], shape);
	group = scs_attr_int(conv, "group", 1);
	if (group < 1 || scs_opt_const_dim(&w, 0) % group != 0)
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's group %lld does not divide its weight '%s' of shape %s",
		    conv->op_type, (long long)group, conv->input[1], shape);
	if (is_t) {
		uint64_t C = (uint64_t)scs_opt_const_dim(&w, 0);

		mid = (uint64_t)scs_opt_const_dim(&w, 1);
		M = (uint64_t)group * mid;
		inner = (uint64_t)w.n_elems / (C * mid);
		rep = C / (uint64_t)group;
	} else {
		M = (uint64_t)scs_opt_const_dim(&w, 0);
		inner = (uint64_t)w.n_elems / M;
		mid = M;
		rep = 1;
	}
	has_b = conv->n_input > 2 && conv->input[2][0] ? conv->input[2] : NULL;
	if (has_b) {
		if (!scs_opt_constant(&b, ctx, scope, has_b, why, sizeof(why)))
			SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's bias: %s", conv->op_type, why);
		scs_fuse_shape(shape, sizeof(shape), &b);
		if (b.dtype != w.dtype || b.rank != 1 || (uint64_t)b.n_elems != M)
			SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's bias '%s' is %s of shape %s, not %s of [%llu]", conv->op_type,
			    has_b, scs_dtype_name(b.dtype), shape, scs_dtype_name(w.dtype), (unsigned long long)M);
	}
	if (!scs_fuse_only_reader(ctx, scope, conv, bn, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, bn, "%s", why);
	if ((r = scs_fuse_bn_check(&p, ctx, scope, bn, (int64_t)M)) <= 0)
		return r;

	/* the BatchNormalization becomes a pass-through once the weights are scaled */
	if ((r = scs_opt_forward(ctx, scope, bn, 0, 0)) <= 0)
		return r;
	if ((r = scs_fuse_chan_open_bn(&chan, ctx, &p)) < 0 ||
	    (r = scs_fuse_write_weight(&w_id, ctx, &w, &chan, inner, mid, rep)) < 0 ||
	    (r = scs_fuse_write_bias(&b_id, ctx, w.dtype, has_b ? &b : NULL, 1, M, 1.0, &chan, 1)) < 0) {
		scs_fuse_chan_close(&chan);
		return r;
	}
	scs_fuse_chan_close(&chan);
	snprintf(base, sizeof(base), "%s_fused", conv->input[1]);
	if ((r = scs_fuse_put_input(&w_name, ctx, scope, conv, 1, &w, w.dtype, w.t->dims, w.t->n_dims, w_id, base)) < 0)
		return r;
	bias_dims[0] = (int64_t)M;
	if (has_b)
		snprintf(base, sizeof(base), "%s_fused", has_b);
	else
		snprintf(base, sizeof(base), "%s_bias", conv->name && conv->name[0] ? conv->name : w_name);
	if ((r = scs_fuse_put_input(&b_name, ctx, scope, conv, 2, has_b ? &b : NULL, w.dtype, bias_dims, 1, b_id,
	    base)) < 0)
		return r;
	*changed = 1;
	snprintf(why, sizeof(why), ": weight '%s', bias '%s' (%llu channels)", w_name, b_name, (unsigned long long)M);
	return scs_fuse_bn_done(ctx, scope, conv, &p, why);
}

int
scs_opt_fuse_bn_into_conv(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_node(ctx, visit, changed);
}
