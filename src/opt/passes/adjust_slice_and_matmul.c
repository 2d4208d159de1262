/*
 * adjust_slice_and_matmul.c: MatMul(Slice(A, starts, ends, axes[, steps]), B)
 * with A and B constants becomes Slice(MatMul(A, B), starts, ends, axes[,
 * steps]), so that folding can then compute the product of constants once.
 *
 * Row i of a matrix product depends on row i of A only, and each batch of it
 * on that batch of A, so slicing A's rows or batches before the product or
 * the product's after gives the same elements. What must hold for that:
 * the Slice has its axes as a constant input (opset 10 on; the attribute
 * form of older opsets is left alone), its output feeds the MatMul only and
 * is no graph output; no axis is A's last (the one the product sums over);
 * A and B have rank 2 or more and B no more than A (so the product has A's
 * rank and the axes mean the same axes); and B's dim against a sliced batch
 * axis is 1 or absent (a B batch of the full size would broadcast
 * differently). Each element is the same dot product, but a matrix kernel
 * may sum in another order for another shape, so floating-point results
 * may differ in rounding. Not in the default set (onnxoptimizer's rule).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>

#include "model/rename.h"
#include "opt/opt.h"

#define MAX_AXES 64

/* 0 with @why when the axes of @s (a constant @axes) may not move past the product of @a and @b. */
static int
axes_fit(scs_opt_ctx *ctx, const scs_opt_const *axes, const scs_opt_const *a, const scs_opt_const *b, char *why,
    size_t why_len)
{
	int64_t v[MAX_AXES], rl = (int64_t)a->rank, rr = (int64_t)b->rank;
	int r;

	if (!scs_opt_readable(axes->dtype) || axes->n_elems > MAX_AXES)
		return snprintf(why, why_len, "its axes are not a short list of integers"), 0;
	if ((r = scs_opt_read_int64s(ctx, axes, 0, (size_t)axes->n_elems, v)) < 0)
		return r;
	if (rl < 2 || rr < 2 || rr > rl)
		return snprintf(why, why_len, "the MatMul's inputs have ranks %lld and %lld (want 2 or more, the second "
		    "no more than the first)", (long long)rl, (long long)rr), 0;
	for (int64_t i = 0; i < axes->n_elems; i++) {
		int64_t ax = v[i] < 0 ? v[i] + rl : v[i], j = ax - (rl - rr);

		if (ax < 0 || ax >= rl)
			return snprintf(why, why_len, "axis %lld is out of range", (long long)v[i]), 0;
		if (ax == rl - 1)
			return snprintf(why, why_len, "it slices the axis the product sums over"), 0;
		if (ax < rl - 2 && j >= 0 && scs_opt_const_dim(b, (size_t)j) != 1)
			return snprintf(why, why_len, "it slices batch axis %lld, which the second input has too (it would "
			    "broadcast otherwise)", (long long)ax), 0;
	}
	return 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *mm, void *payload)
{
	scs_opt_const a, b, axes;
	Onnx__NodeProto *s, *prod;
	const char *sliced, *full, *in[2];
	char why[256], base[300];
	int r;

	(void)payload;
	if (mm->n_input != 2 || mm->n_output != 1 || !mm->input[0][0] || !mm->input[1][0])
		return 0;
	sliced = mm->input[0];
	if ((s = scs_opt_producer(ctx, scope, sliced)) == NULL || scs_opt_is_dropped(ctx, scope, s))
		return 0;
	if ((r = scs_opt_is_op(ctx, scope, s, "Slice")) <= 0)
		return r;
	if (s->n_input < 4 || !s->input[3][0] || scs_opt_opset(ctx, scope, NULL) < 10)
		return 0;     /* no axes input: onnxoptimizer's pattern names them */
	if ((r = scs_opt_constant(&a, ctx, scope, s->input[0], why, sizeof(why))) <= 0 ||
	    (r = scs_opt_constant(&b, ctx, scope, mm->input[1], why, sizeof(why))) <= 0)
		return r;
	if (scs_opt_n_uses(ctx, scope, sliced) != 1 || scs_opt_is_pinned(ctx, scope, sliced))
		return scs_opt_refuse(ctx, scope, mm, "the slice '%s' has other readers", sliced);
	if ((r = scs_opt_constant(&axes, ctx, scope, s->input[3], why, sizeof(why))) <= 0)
		return r < 0 ? r : scs_opt_refuse(ctx, scope, mm, "the Slice's axes are not a constant: %s", why);
	if ((r = axes_fit(ctx, &axes, &a, &b, why, sizeof(why))) <= 0)
		return r < 0 ? r : scs_opt_refuse(ctx, scope, mm, "%s", why);
	snprintf(base, sizeof(base), "%.250s_unsliced", mm->output[0]);
	if ((r = scs_opt_fresh_name(&full, ctx, base)) < 0)
		return r;
	in[0] = s->input[0];
	in[1] = mm->input[1];
	if ((prod = scs_opt_node_new("MatMul", full, in, 2, &full, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a node");
	if ((r = scs_opt_insert_node(ctx, scope, mm, prod)) < 0)
		return r;
	if (scs_opt_did(ctx, scope, mm, "the Slice of '%s' moved after the product: Slice(MatMul('%s', '%s'))", in[0],
	    in[0], in[1]) < 0)
		return -1;
	/* the MatMul node becomes the Slice, reading the product */
	for (size_t i = 0; i < s->n_input; i++)
		if ((r = scs_opt_set_input(ctx, mm, i, i ? s->input[i] : full)) < 0)
			return r;
	if ((r = scs_name_swap(&mm->op_type, "Slice")) < 0 || (r = scs_opt_drop_node(ctx, scope, s)) < 0)
		return r;
	scs_opt_touch(ctx);
	return 1;
}

int
scs_opt_adjust_slice_and_matmul(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "MatMul", one, changed);
}
