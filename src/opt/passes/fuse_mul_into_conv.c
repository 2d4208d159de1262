/*
 * fuse_mul_into_conv.c: Conv followed by a Mul by a constant that holds
 * one value per output channel ([M,1,...], [1,M,1,...], or one value)
 * becomes one Conv with weight W * s and bias b * s (s the channel's
 * value), computed in double and rounded once to the weight's type, the
 * weight written in pieces as a derived payload (fuse.h). ONNX Runtime's
 * basic level makes the same fusion (ConvMulFusion); onnxoptimizer's
 * newer releases name it fuse_mul_into_conv.
 *
 * (x * W) * s and x * (W * s) round differently: the result is within
 * rounding of the original, not bit for bit (the tests state the largest
 * difference seen).
 *
 * Left alone, with the reason: a Mul by a graph input (with a default or
 * not), a constant of another type or shape (one that would broadcast the
 * output larger, or vary along a spatial axis) or with a value that is not
 * finite; a Conv whose output something else reads or that is a graph
 * output; a weight or bias that is not a constant; a Mul before opset 7
 * (its own broadcast rules). A Mul by a computed value is no scale: skipped
 * silently.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"

/* 1 when every value of @a is finite; 0 with the reason; < 0 on error. */
static int
all_finite(scs_opt_ctx *ctx, const scs_opt_const *a, const char *name, char *why, size_t why_len)
{
	scs_fuse_win w;
	double v = 0;
	int rc;

	if ((rc = scs_fuse_win_open(&w, ctx, a, 0)) < 0)
		goto done;
	for (uint64_t i = 0; i < (uint64_t)a->n_elems; i++) {
		if ((rc = scs_fuse_win_get(&w, i, &v)) < 0)
			goto done;
		if (!isfinite(v)) {
			snprintf(why, why_len, "'%s' holds %g at %llu: W * s would not compute what it did", name, v,
			    (unsigned long long)i);
			rc = 0;
			goto done;
		}
	}
	rc = 1;
done:
	scs_fuse_win_close(&w);
	return rc;
}

static int
visit(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *mul, void *payload)
{
	int *changed = payload, r;
	Onnx__NodeProto *conv = NULL;
	scs_opt_const a, w, b;
	scs_fuse_chan chan;
	size_t which;
	uint64_t M;
	int64_t bias_dims[1];
	uint32_t w_id, b_id;
	const char *other, *has_b, *w_name, *b_name = NULL;
	char why[768], shape[160], base[512];

	if (!scs_fuse_op_is(mul, "Mul") || mul->n_input != 2 || !mul->input[0][0] || !mul->input[1][0])
		return SCS_OK;
	for (which = 0; which < 2; which++) {
		conv = scs_opt_producer(ctx, scope, mul->input[which]);
		if (conv && !scs_opt_is_dropped(ctx, scope, conv) && scs_fuse_op_is(conv, "Conv"))
			break;
	}
	if (which == 2)
		return SCS_OK;
	other = mul->input[1 - which];
	if (!scs_opt_constant(&a, ctx, scope, other, why, sizeof(why))) {
		/* a computed value is no scale; a graph input is a value a caller may change */
		if (scs_opt_def_scope(ctx, scope, other) >= 0 && scs_opt_is_input(ctx, scs_opt_def_scope(ctx, scope, other),
		    other))
			SCS_FUSE_REFUSE(ctx, scope, mul, "%s", why);
		return SCS_OK;
	}
	if ((r = scs_opt_is_op(ctx, scope, mul, "Mul")) <= 0 || (r = scs_opt_is_op(ctx, scope, conv, "Conv")) <= 0)
		return r;
	if (scs_opt_opset(ctx, scope, "") < 7)
		SCS_FUSE_REFUSE(ctx, scope, mul, "Mul before opset 7 broadcasts by its own attributes");
	if (conv->n_input < 2 || !conv->input[1][0])
		SCS_FUSE_REFUSE(ctx, scope, mul, "the Conv has no weight");
	if (!scs_opt_constant(&w, ctx, scope, conv->input[1], why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, mul, "the Conv's weight: %s", why);
	scs_fuse_shape(shape, sizeof(shape), &w);
	if (!scs_fuse_is_float(w.dtype) || w.attr || w.rank < 3 || w.n_elems <= 0)
		SCS_FUSE_REFUSE(ctx, scope, mul, "the Conv's weight '%s' is %s of shape %s, not a floating-point "
		    "(channels, channels, kernel...) tensor", conv->input[1], scs_dtype_name(w.dtype), shape);
	M = (uint64_t)scs_opt_const_dim(&w, 0);
	if (a.dtype != w.dtype)
		SCS_FUSE_REFUSE(ctx, scope, mul, "'%s' is %s, not the Conv's %s", other, scs_dtype_name(a.dtype),
		    scs_dtype_name(w.dtype));
	if (!scs_fuse_per_channel(&a, other, w.rank, M, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, mul, "%s", why);
	if ((r = all_finite(ctx, &a, other, why, sizeof(why))) <= 0) {
		if (r < 0)
			return r;
		SCS_FUSE_REFUSE(ctx, scope, mul, "%s", why);
	}
	has_b = conv->n_input > 2 && conv->input[2][0] ? conv->input[2] : NULL;
	if (has_b) {
		if (!scs_opt_constant(&b, ctx, scope, has_b, why, sizeof(why)))
			SCS_FUSE_REFUSE(ctx, scope, mul, "the Conv's bias: %s", why);
		scs_fuse_shape(shape, sizeof(shape), &b);
		if (b.dtype != w.dtype || b.rank != 1 || (uint64_t)b.n_elems != M)
			SCS_FUSE_REFUSE(ctx, scope, mul, "the Conv's bias '%s' is %s of shape %s, not %s of [%llu]", has_b,
			    scs_dtype_name(b.dtype), shape, scs_dtype_name(w.dtype), (unsigned long long)M);
	}
	if (!scs_fuse_only_reader(ctx, scope, conv, mul, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, mul, "%s", why);

	if ((r = scs_opt_forward(ctx, scope, mul, which, 0)) <= 0)
		return r;
	if ((r = scs_fuse_chan_open_mul(&chan, ctx, &a, (int64_t)M)) < 0 ||
	    (r = scs_fuse_write_weight(&w_id, ctx, &w, &chan, (uint64_t)w.n_elems / M, M, 1)) < 0 ||
	    (has_b && (r = scs_fuse_write_bias(&b_id, ctx, w.dtype, &b, 1, M, 1.0, &chan, 1)) < 0)) {
		scs_fuse_chan_close(&chan);
		return r;
	}
	scs_fuse_chan_close(&chan);
	snprintf(base, sizeof(base), "%s_fused", conv->input[1]);
	if ((r = scs_fuse_put_input(&w_name, ctx, scope, conv, 1, &w, w.dtype, w.t->dims, w.t->n_dims, w_id, base)) < 0)
		return r;
	if (has_b) {
		bias_dims[0] = (int64_t)M;
		snprintf(base, sizeof(base), "%s_fused", has_b);
		if ((r = scs_fuse_put_input(&b_name, ctx, scope, conv, 2, &b, w.dtype, bias_dims, 1, b_id, base)) < 0)
			return r;
	}
	if ((r = scs_fuse_drop_unread(ctx, &a, other, mul)) < 0)
		return r;
	*changed = 1;
	return scs_opt_did(ctx, scope, conv, "the Mul by '%s' folded into its weight '%s'%s%s%s", other, w_name,
	    b_name ? " and bias '" : "", b_name ? b_name : "", b_name ? "'" : "");
}

int
scs_opt_fuse_mul_into_conv(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_node(ctx, visit, changed);
}
