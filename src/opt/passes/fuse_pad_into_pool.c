/*
 * fuse_pad_into_pool.c: a Pad around the spatial axes of a MaxPool's or
 * an AveragePool's input becomes the pool's own pads, where that computes
 * the same:
 *
 *   MaxPool leaves its padding out of the maximum, which is padding with
 *   -infinity (for integer data, with the type's least value): the Pad
 *   must pad with that, not with 0 (a 0 is larger than an all-negative
 *   window's maximum);
 *   AveragePool counts its padding in the divisor only with
 *   count_include_pad = 1: the Pad must pad with 0, the pool gets
 *   count_include_pad = 1, and its own pads, if any, must already have
 *   been counted (count_include_pad 1), else the two paddings would
 *   differ; AveragePool before opset 7 has no count_include_pad.
 *
 * Left alone besides, with the reason: what fuse_pad_into_conv leaves
 * (fuse.h: scs_fuse_pad_source), ceil_mode 1 (the last window may then
 * start in the padding, where the pool and the padded input disagree), a
 * MaxPool whose Indices output is named (indices count positions in the
 * padded input), and a pad not below the kernel's extent on its axis
 * (ONNX Runtime refuses such pools).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"

/* The least value of integer type @dtype; 1 when it is one MaxPool takes. */
static int
int_least(int dtype, double *out)
{
	switch (dtype) {
	case SCS_DT_INT8:
		*out = -128;
		return 1;
	case SCS_DT_UINT8:
		*out = 0;
		return 1;
	default:
		return 0;
	}
}

/* 1 when padding with @p's value is what MaxPool's own padding does for data of type @dtype. */
static int
max_value_ok(const scs_fuse_pad *p, int dtype, char *why, size_t why_len)
{
	double least;

	if (dtype == 0 || scs_fuse_is_float(dtype)) {
		if (isinf(p->value) && p->value < 0)
			return 1;
		snprintf(why, why_len, "the Pad before it pads with %g, where a MaxPool leaves its padding out (as "
		    "-inf would)", p->value);
		return 0;
	}
	if (int_least(dtype, &least) && p->value == least)
		return 1;
	snprintf(why, why_len, "the Pad before it pads %s data with %g, not the least %s", scs_dtype_name(dtype), p->value,
	    scs_dtype_name(dtype));
	return 0;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *pool, void *payload)
{
	const Onnx__AttributeProto *k = scs_attr_find(pool, "kernel_shape"), *own;
	int is_max = strcmp(pool->op_type, "MaxPool") == 0, r;
	scs_fuse_pad p;
	scs_vfacts fx;
	char why[768];

	(void)payload;
	if ((r = scs_fuse_pad_source(&p, ctx, scope, pool, k ? k->n_ints + 2 : 0)) <= 0)
		return r;
	if (scs_attr_int(pool, "ceil_mode", 0) != 0)
		SCS_FUSE_REFUSE(ctx, scope, pool, "its ceil_mode is 1: its last window may start in the padding");
	if (!scs_fuse_pad_below_kernel(pool, &p, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, pool, "%s", why);
	if (is_max) {
		if (pool->n_output > 1 && pool->output[1][0])
			SCS_FUSE_REFUSE(ctx, scope, pool, "its Indices output '%s' would count positions in the unpadded "
			    "input", pool->output[1]);
		if ((r = scs_opt_facts(ctx, scope, p.pad->input[0], &fx)) < 0)
			return r;
		if (!max_value_ok(&p, p.value_dtype ? p.value_dtype : fx.elem, why, sizeof(why)))
			SCS_FUSE_REFUSE(ctx, scope, pool, "%s", why);
	} else {
		if (scs_opt_opset(ctx, scope, "") < 7)
			SCS_FUSE_REFUSE(ctx, scope, pool, "AveragePool before opset 7 has no count_include_pad");
		if (p.value != 0 || signbit(p.value))
			SCS_FUSE_REFUSE(ctx, scope, pool, "the Pad before it pads with %g, where an AveragePool pads with 0",
			    p.value);
		own = scs_attr_find(pool, "pads");
		for (size_t i = 0; own && scs_attr_int(pool, "count_include_pad", 0) == 0 && i < own->n_ints; i++)
			if (own->ints[i] != 0)
				SCS_FUSE_REFUSE(ctx, scope, pool, "its own pads are left out of the average (count_include_pad "
				    "0), the Pad's zeros are counted");
		if ((r = scs_opt_set_attr_int(pool, "count_include_pad", 1)) < 0)
			return r;
	}
	if ((r = scs_fuse_pad_apply(ctx, scope, pool, &p)) < 0)
		return r;
	return 1;
}

int
scs_opt_fuse_pad_into_pool(scs_opt_ctx *ctx, int *changed)
{
	int rc;

	if ((rc = scs_opt_each_op(ctx, "MaxPool", one, changed)) < 0)
		return rc;
	return scs_opt_each_op(ctx, "AveragePool", one, changed);
}
