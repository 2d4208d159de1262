/*
 * fuse_relu_clip.c: a Relu and a Clip in a row become one Clip (ONNX
 * Runtime's basic level does the same for Relu -> Clip):
 *
 *   Clip(Relu(x), lo, hi)  =  Clip(x, max(lo, 0), hi)
 *   Relu(Clip(x, lo, hi))  =  Clip(x, max(lo, 0), max(hi, 0))
 *
 * as max and min compose (Relu is max(x, 0); Clip is min(max(x, lo),
 * hi)); a bound left out is -inf or +inf. The bounds are the min and max
 * attributes from opset 6 to 10 and the optional constant inputs from 11;
 * a bound that must become 0 is set to a new scalar constant 0 of the
 * element type (or the attribute to 0). The first node goes; its output
 * must be read by the second alone and be no graph output.
 *
 * Left alone, with the reason: bounds that are not constants (a graph
 * input included) or that are NaN; Clip before opset 6; an element type
 * that is not known where a new 0 is needed.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"

/* What a Clip's bounds are. */
typedef struct bounds {
	int attrs;                          /* 1: the min and max attributes (before opset 11) */
	int have[2];                        /* min, max given */
	double v[2];
	scs_opt_const c[2];                 /* the constants (inputs) */
	int dtype;                          /* of a constant bound; 0 when none */
} bounds;

/* The bounds of @clip into @b: 1, or 0 with the reason in @why; < 0 on error. */
static int
clip_bounds(bounds *b, scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *clip, char *why, size_t why_len)
{
	static const char *const what[2] = { "min", "max" };
	char reason[512];
	int rc;

	memset(b, 0, sizeof(*b));
	if (scs_opt_opset(ctx, scope, "") < 11) {
		b->attrs = 1;
		for (int k = 0; k < 2; k++)
			if ((b->have[k] = scs_attr_find(clip, what[k]) != NULL))
				b->v[k] = (double)scs_attr_float(clip, what[k], 0.0f);
	} else {
		for (int k = 0; k < 2; k++) {
			const char *name = clip->n_input > (size_t)k + 1 ? clip->input[k + 1] : "";

			if (!name[0])
				continue;
			if (!scs_opt_constant(&b->c[k], ctx, scope, name, reason, sizeof(reason))) {
				snprintf(why, why_len, "its %s: %s", what[k], reason);
				return 0;
			}
			if (b->c[k].n_elems != 1 || !scs_opt_readable(b->c[k].dtype)) {
				snprintf(why, why_len, "its %s '%s' is not one number", what[k], name);
				return 0;
			}
			if ((rc = scs_opt_read_doubles(ctx, &b->c[k], 0, 1, &b->v[k])) < 0)
				return rc;
			b->have[k] = 1;
			b->dtype = b->c[k].dtype;
		}
	}
	for (int k = 0; k < 2; k++)
		if (b->have[k] && isnan(b->v[k])) {
			snprintf(why, why_len, "its %s is NaN", what[k]);
			return 0;
		}
	return 1;
}

/*
 * Make bound @k (0 min, 1 max) of @clip 0: the attribute, or a new scalar
 * constant 0 of @dtype beside it; the old constant goes when nothing else
 * reads it.
 */
static int
set_zero(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *clip, const bounds *b, int k, int dtype)
{
	scs_opt_writer wr;
	Onnx__TensorProto *t;
	uint32_t id;
	const char *name, *old = clip->n_input > (size_t)k + 1 ? clip->input[k + 1] : "";
	double zero = 0;
	char base[512];
	int rc;

	if (b->attrs)
		return scs_opt_set_attr_float(clip, k ? "max" : "min", 0.0f);
	if ((rc = scs_opt_writer_open(&wr, ctx, dtype)) < 0 || (rc = scs_opt_writer_put_doubles(&wr, &zero, 1)) < 0 ||
	    (rc = scs_opt_writer_finish(&id, &wr)) < 0) {
		scs_opt_writer_abort(&wr);
		return rc;
	}
	snprintf(base, sizeof(base), "%s_%s", clip->name && clip->name[0] ? clip->name : clip->output[0],
	    k ? "max" : "min");
	if ((rc = scs_opt_fresh_name(&name, ctx, base)) < 0)
		return rc;
	if ((t = scs_opt_tensor_new(ctx, name, dtype, NULL, 0, id)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make constant '%s'", name);
	if ((rc = scs_opt_add_constant(ctx, scope, t, clip)) < 0)
		return rc;
	if (old[0] && (rc = scs_fuse_drop_unread(ctx, &b->c[k], old, clip)) < 0)
		return rc;
	return scs_opt_set_input(ctx, clip, (size_t)k + 1, name);
}

/* The element type a new bound of @clip (reading @x) takes: its other bound's, or @x's; 0 when unknown. */
static int
bound_type(scs_opt_ctx *ctx, int scope, const bounds *b, const char *x, int *out)
{
	scs_vfacts f;
	int rc;

	*out = b->dtype;
	if (*out || b->attrs)
		return SCS_OK;
	if ((rc = scs_opt_facts(ctx, scope, x, &f)) < 0)
		return rc;
	*out = f.elem > 0 ? f.elem : 0;
	return SCS_OK;
}

/* Clip(Relu(x), lo, hi) -> Clip(x, max(lo, 0), hi). */
static int
relu_then_clip(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *clip, void *payload)
{
	Onnx__NodeProto *relu;
	bounds b;
	int dtype = 0, r;
	char why[768];

	(void)payload;
	if (clip->n_input < 1 || !clip->input[0][0])
		return 0;
	relu = scs_opt_producer(ctx, scope, clip->input[0]);
	if (relu == NULL || scs_opt_is_dropped(ctx, scope, relu) || !scs_fuse_op_is(relu, "Relu"))
		return 0;
	if ((r = scs_opt_is_op(ctx, scope, relu, "Relu")) <= 0)
		return r;
	if (relu->n_input != 1 || !relu->input[0][0])
		return 0;
	if (scs_opt_opset(ctx, scope, "") < 6)
		SCS_FUSE_REFUSE(ctx, scope, clip, "Clip before opset 6 is left as it is");
	if ((r = clip_bounds(&b, ctx, scope, clip, why, sizeof(why))) <= 0) {
		if (r < 0)
			return r;
		SCS_FUSE_REFUSE(ctx, scope, clip, "%s", why);
	}
	if (!scs_fuse_only_reader(ctx, scope, relu, clip, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, clip, "%s", why);
	if (!b.have[0] || b.v[0] < 0) {
		if ((r = bound_type(ctx, scope, &b, relu->input[0], &dtype)) < 0)
			return r;
		if (!b.attrs && dtype == 0)
			SCS_FUSE_REFUSE(ctx, scope, clip, "the element type of '%s' is not known", relu->input[0]);
		if ((r = set_zero(ctx, scope, clip, &b, 0, dtype)) < 0)
			return r;
	}
	if ((r = scs_opt_set_input(ctx, clip, 0, relu->input[0])) < 0 || (r = scs_opt_drop_node(ctx, scope, relu)) < 0)
		return r;
	if ((r = scs_opt_did(ctx, scope, clip, "the Relu before it taken in (its min at least 0)")) < 0)
		return r;
	return 1;
}

/* Relu(Clip(x, lo, hi)) -> Clip(x, max(lo, 0), max(hi, 0)). */
static int
clip_then_relu(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *relu, void *payload)
{
	Onnx__NodeProto *clip;
	bounds b;
	int dtype = 0, r;
	char why[768];

	(void)payload;
	if (relu->n_input != 1 || !relu->input[0][0])
		return 0;
	clip = scs_opt_producer(ctx, scope, relu->input[0]);
	if (clip == NULL || scs_opt_is_dropped(ctx, scope, clip) || !scs_fuse_op_is(clip, "Clip"))
		return 0;
	if ((r = scs_opt_is_op(ctx, scope, clip, "Clip")) <= 0)
		return r;
	if (clip->n_input < 1 || !clip->input[0][0])
		return 0;
	if (scs_opt_opset(ctx, scope, "") < 6)
		SCS_FUSE_REFUSE(ctx, scope, relu, "Clip before opset 6 is left as it is");
	if ((r = clip_bounds(&b, ctx, scope, clip, why, sizeof(why))) <= 0) {
		if (r < 0)
			return r;
		SCS_FUSE_REFUSE(ctx, scope, relu, "the Clip before it: %s", why);
	}
	if (!scs_fuse_only_reader(ctx, scope, clip, relu, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, relu, "%s", why);
	if ((r = bound_type(ctx, scope, &b, clip->input[0], &dtype)) < 0)
		return r;
	if (!b.attrs && dtype == 0 && (!b.have[0] || b.v[0] < 0 || (b.have[1] && b.v[1] < 0)))
		SCS_FUSE_REFUSE(ctx, scope, relu, "the element type of '%s' is not known", clip->input[0]);
	if ((r = scs_opt_forward(ctx, scope, relu, 0, 0)) <= 0)
		return r;
	if ((!b.have[0] || b.v[0] < 0) && (r = set_zero(ctx, scope, clip, &b, 0, dtype)) < 0)
		return r;
	if (b.have[1] && b.v[1] < 0 && (r = set_zero(ctx, scope, clip, &b, 1, dtype)) < 0)
		return r;
	return 1;
}

int
scs_opt_fuse_relu_clip(scs_opt_ctx *ctx, int *changed)
{
	int rc;

	if ((rc = scs_opt_each_op(ctx, "Clip", relu_then_clip, changed)) < 0)
		return rc;
	/* a Clip changed here is read again after the commit, in the next round */
	if (*changed)
		return SCS_OK;
	return scs_opt_each_op(ctx, "Relu", clip_then_relu, changed);
}
