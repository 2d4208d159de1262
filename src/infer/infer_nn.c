/*
 * infer_nn.c: the shape rules of the neural-network operators (see
 * infer_impl.h): convolution and pooling (auto_pad, ceil_mode, dilations,
 * ConvTranspose's output_shape), normalization outputs, recurrent layers,
 * losses, index operators (GatherND, OneHot, Split, ...), Resize with
 * constant scales or sizes, Einsum, window functions, and the like (If,
 * Loop and Scan: infer_flow.c). Every rule follows the ONNX operator
 * spec; a dim the spec leaves to the data, or that implementations
 * compute differently, stays unknown.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <string.h>

#include "onnx/dtype.h"
#include "infer/infer_impl.h"

#define MAX_RANK SCS_INFER_MAX_RANK

typedef scs_infer_rule rule;     /* the short name within this file */

/* 1 when input @i is given (a non-empty name). */
static int
given(const rule *r, size_t i)
{
	return i < r->n->n_input && r->n->input[i][0];
}

/* @o takes @f's rank and dims (not its type). */
static void
same_as(scs_vfacts *o, const scs_vfacts *f)
{
	if (f == NULL)
		return;
	o->rank = f->rank;
	memcpy(o->dims, f->dims, sizeof(o->dims));
}

static void
scalar(scs_vfacts *o)
{
	o->rank = 0;
}

static void
vector(scs_vfacts *o, int64_t len)
{
	o->rank = 1;
	o->dims[0] = len;     /* a dim, name and all */
}

/*
 * Integer list attribute @name of @k values into @out: 1 when present with
 * @k values, 0 when absent (then @out is @dflt everywhere), -1 when present
 * with another count.
 */
static int
ints_attr(const Onnx__NodeProto *n, const char *name, int64_t *out, int k, int64_t dflt)
{
	const Onnx__AttributeProto *a = scs_attr_find(n, name);

	if (a == NULL) {
		for (int i = 0; i < k; i++)
			out[i] = dflt;
		return 0;
	}
	if (a->n_ints != (size_t)k)
		return -1;
	if (k > 0)     /* an empty list's array may be NULL */
		memcpy(out, a->ints, (size_t)k * sizeof(out[0]));
	return 1;
}

/* The integral, non-negative value of scalar constant input @i, or -1. */
static int64_t
const_count(const rule *r, size_t i)
{
	double v;

	if (!given(r, i) || !scs_infer_const_number(r->inf, r->c, r->n->input[i], &v) || v < 0 || v > 9e18 ||
	    v != floor(v))
		return -1;
	return (int64_t)v;
}

/* ---- convolution and pooling ---- */

/*
 * The spatial dims of a convolution or pooling window over @x into
 * o->dims[2..]: explicit pads, or auto_pad, the way ONNX's shape inference
 * places them; with ceil_mode, a dim whose last window would start in the
 * end padding stays unknown (implementations differ there). @w: the
 * weights, whose dims give a kernel_shape that is not an attribute.
 */
static void
window_dims(const rule *r, scs_vfacts *o, const scs_vfacts *x, const scs_vfacts *w)
{
	const Onnx__NodeProto *n = r->n;
	int64_t k[MAX_RANK], s[MAX_RANK], d[MAX_RANK], p[2 * MAX_RANK];
	int sp = x->rank - 2, has_pads, ceil_mode = scs_attr_int(n, "ceil_mode", 0) != 0;
	int upper = scs_attr_is(n, "auto_pad", "SAME_UPPER", 0);
	int lower = scs_attr_is(n, "auto_pad", "SAME_LOWER", 0);

	if (ints_attr(n, "strides", s, sp, 1) < 0 || ints_attr(n, "dilations", d, sp, 1) < 0 ||
	    (has_pads = ints_attr(n, "pads", p, 2 * sp, 0)) < 0)
		return;
	if (!upper && !lower && !scs_attr_is(n, "auto_pad", "NOTSET", 1) &&
	    !scs_attr_is(n, "auto_pad", "VALID", 0))
		return;
	if (has_pads && !scs_attr_is(n, "auto_pad", "NOTSET", 1))
		return;     /* the spec forbids both; implementations pick one or the other */
	if (ints_attr(n, "kernel_shape", k, sp, -1) == 0) {
		if (w == NULL || w->rank != x->rank)
			return;
		memcpy(k, w->dims + 2, (size_t)sp * sizeof(k[0]));
	}
	for (int i = 0; i < sp; i++) {
		int64_t in = x->dims[2 + i], ek, total, pb = p[i], pe = p[sp + i], out;

		if (in < 0 || k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || k[i] > INT32_MAX || d[i] > INT32_MAX ||
		    in > INT64_MAX / 4)
			continue;
		ek = (k[i] - 1) * d[i] + 1;
		if ((upper || lower) && d[i] != 1 && strstr(n->op_type, "Pool"))
			continue;     /* ONNX Runtime pads a dilated pooling window as if it were not dilated */
		if (upper || lower) {
			/* the total padding that makes ceil(in / stride) windows */
			total = in % s[i] == 0 ? ek - s[i] : ek - in % s[i];
			total = total < 0 ? 0 : total;
			pb = upper ? total / 2 : total - total / 2;
			pe = total - pb;
		}
		if (pb < 0 || pe < 0 || pb > INT32_MAX || pe > INT32_MAX || in + pb + pe < ek)
			continue;
		if (strstr(n->op_type, "Pool") && (pb >= k[i] || pe >= k[i]))
			continue;     /* ONNX Runtime refuses a pooling pad as large as the window */
		out = (in + pb + pe - ek) / s[i] + 1;
		if (ceil_mode && (in + pb + pe - ek) % s[i]) {
			if (out * s[i] >= in + pb)
				continue;     /* the extra window starts in the end padding */
			out++;
		}
		o->dims[2 + i] = out;
	}
}

/* Conv, ConvInteger, QLinearConv (weights at @wi), and the pools (@wi < 0). */
static void
conv_pool(const rule *r, size_t j, scs_vfacts *o, int wi)
{
	const scs_vfacts *x = scs_infer_input(r, 0), *w = wi >= 0 ? scs_infer_input(r, (size_t)wi) : NULL;

	if (j > 1 || (j == 1 && strcmp(r->n->op_type, "MaxPool") != 0) || !x)
		return;
	if (w && w->rank != x->rank && !scs_attr_find(r->n, "kernel_shape"))
		return;     /* invalid: weights of another rank (ONNX infers the weights' rank, ONNX Runtime refuses) */
	scs_infer_unknown_dims(o, x->rank);     /* the Indices of MaxPool: Y's shape */
	if (x->rank < 2)
		return;
	o->dims[0] = x->dims[0];
	o->dims[1] = wi < 0 ? x->dims[1] : w && w->rank >= 1 ? w->dims[0] : -1;
	window_dims(r, o, x, w);
}

static void
conv(const rule *r, size_t j, scs_vfacts *o)
{
	conv_pool(r, j, o, strcmp(r->n->op_type, "QLinearConv") == 0 ? 3 : 1);
}

static void
pool(const rule *r, size_t j, scs_vfacts *o)
{
	conv_pool(r, j, o, -1);
}

static void
conv_transpose(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__NodeProto *n = r->n;
	const scs_vfacts *x = scs_infer_input(r, 0), *w = scs_infer_input(r, 1);
	int64_t k[MAX_RANK], s[MAX_RANK], d[MAX_RANK], op[MAX_RANK], p[2 * MAX_RANK], os[MAX_RANK];
	int sp, has_pads, has_os, same;

	if (j != 0 || !x)
		return;
	scs_infer_unknown_dims(o, x->rank);
	if ((sp = x->rank - 2) < 0)
		return;
	o->dims[0] = x->dims[0];
	o->dims[1] = w && w->rank >= 2 && scs_attr_int(n, "group", 1) >= 1 ?
	    scs_infer_dim_mul(w->dims[1], scs_attr_int(n, "group", 1)) : -1;
	same = scs_attr_is(n, "auto_pad", "SAME_UPPER", 0) || scs_attr_is(n, "auto_pad", "SAME_LOWER", 0);
	if (ints_attr(n, "strides", s, sp, 1) < 0 || ints_attr(n, "dilations", d, sp, 1) < 0 ||
	    ints_attr(n, "output_padding", op, sp, 0) < 0 || (has_pads = ints_attr(n, "pads", p, 2 * sp, 0)) < 0 ||
	    (has_os = ints_attr(n, "output_shape", os, sp, -1)) < 0)
		return;
	if (!same && !scs_attr_is(n, "auto_pad", "NOTSET", 1) && !scs_attr_is(n, "auto_pad", "VALID", 0))
		return;
	if (has_os) {
		/* the spatial shape as given; pads follow from it */
		for (int i = 0; i < sp; i++)
			o->dims[2 + i] = os[i] >= 0 && (x->dims[2 + i] < 0 || os[i] >= x->dims[2 + i]) ? os[i] : -1;
		return;
	}
	if (has_pads && !scs_attr_is(n, "auto_pad", "NOTSET", 1))
		return;
	if (ints_attr(n, "kernel_shape", k, sp, -1) == 0) {
		if (w == NULL || w->rank != x->rank)
			return;
		memcpy(k, w->dims + 2, (size_t)sp * sizeof(k[0]));
	}
	for (int i = 0; i < sp; i++) {
		int64_t in = x->dims[2 + i], ek, out;

		if (in < 1 || k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || op[i] < 0 || k[i] > INT32_MAX ||
		    d[i] > INT32_MAX || s[i] > INT32_MAX || op[i] > INT32_MAX || in > INT32_MAX || p[i] < 0 || p[sp + i] < 0)
			continue;
		ek = (k[i] - 1) * d[i] + 1;
		out = s[i] * (in - 1) + op[i] + ek - p[i] - p[sp + i];
		/* SAME: input * stride by the spec; known only where padding gets it there */
		if (same && (out = s[i] * (in - 1) + op[i] + ek - (ek > s[i] ? ek - s[i] : 0)) != in * s[i])
			continue;
		o->dims[2 + i] = out >= 0 ? out : -1;
	}
}

static void
global_pool(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);

	if (j != 0 || !x)
		return;
	same_as(o, x);
	for (int i = 2; i < x->rank; i++)
		o->dims[i] = 1;
}

static void
max_unpool(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__NodeProto *n = r->n;
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t k[MAX_RANK], s[MAX_RANK], p[2 * MAX_RANK], v[SCS_INFER_MAX_CONST];
	int sp;

	if (j != 0 || !x)
		return;
	scs_infer_unknown_dims(o, x->rank);
	if ((sp = x->rank - 2) < 0)
		return;
	if (given(r, 2)) {
		if (scs_infer_const_ints(r->inf, r->c, n->input[2], v) == x->rank)
			for (int i = 0; i < x->rank; i++)
				o->dims[i] = v[i] >= 0 ? v[i] : -1;
		return;
	}
	o->dims[0] = x->dims[0];
	o->dims[1] = x->dims[1];
	if (ints_attr(n, "kernel_shape", k, sp, -1) != 1 || ints_attr(n, "strides", s, sp, 1) < 0 ||
	    ints_attr(n, "pads", p, 2 * sp, 0) < 0)
		return;
	for (int i = 0; i < sp; i++) {
		int64_t in = x->dims[2 + i];

		if (in >= 1 && in <= INT32_MAX && s[i] > 0 && s[i] <= INT32_MAX && k[i] > 0 && k[i] <= INT32_MAX &&
		    p[i] >= 0 && p[sp + i] >= 0 && (in - 1) * s[i] + k[i] - p[i] - p[sp + i] >= 0)
			o->dims[2 + i] = (in - 1) * s[i] + k[i] - p[i] - p[sp + i];
	}
}

/* ---- normalization ---- */

static void
batch_norm(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);

	if (j == 0) {
		same_as(o, x);
		return;
	}
	/* running (or saved) mean and variance: one per channel (before opset 9, only when spatial) */
	if (r->opset < 9 && scs_attr_int(r->n, "spatial", 1) != 1)
		return;
	vector(o, x && x->rank >= 2 ? x->dims[1] : -1);
	for (size_t i = 1; i < 5 && o->dims[0] < 0; i++)
		if (scs_infer_input(r, i) && scs_infer_input(r, i)->rank == 1)
			o->dims[0] = scs_infer_dim_pick(o->dims[0], scs_infer_input(r, i)->dims[0]);
}

static void
layer_norm(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t axis = scs_attr_int(r->n, "axis", -1);

	if (j > 2)
		return;
	if (j > 0)
		o->elem = (int32_t)scs_attr_int(r->n, "stash_type", SCS_DT_FLOAT);
	if (!x)
		return;
	same_as(o, x);
	if (j == 0)
		return;
	/* Mean, InvStdDev: X's dims before axis, then ones */
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis > x->rank) {
		scs_infer_unknown_dims(o, x->rank);
		return;
	}
	for (int i = (int)axis; i < x->rank; i++)
		o->dims[i] = 1;
}

/* Output 0 of X's shape and type (and Dropout's mask, of X's shape). */
static void
like_input(const rule *r, size_t j, scs_vfacts *o)
{
	if (j == 0 && r->n->n_input > 0)
		o->elem = r->in[0].elem;     /* also where the schema lists no formals (GroupNormalization-18) */
	if (j == 0 || (j == 1 && strcmp(r->n->op_type, "Dropout") == 0))
		same_as(o, scs_infer_input(r, 0));
}

/* ---- rearranging and indexing ---- */

static void
depth_space(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t b = scs_attr_int(r->n, "blocksize", -1), bb;
	int to_space = r->n->op_type[0] == 'D';

	if (j != 0 || !x)
		return;
	scs_infer_unknown_dims(o, x->rank);
	if (x->rank != 4 || b <= 0 || (bb = scs_infer_dim_mul(b, b)) <= 0)
		return;
	o->dims[0] = x->dims[0];
	if (to_space) {
		o->dims[1] = x->dims[1] >= 0 && x->dims[1] % bb == 0 ? x->dims[1] / bb : -1;
		o->dims[2] = scs_infer_dim_mul(x->dims[2], b);
		o->dims[3] = scs_infer_dim_mul(x->dims[3], b);
	} else {
		o->dims[1] = scs_infer_dim_mul(x->dims[1], bb);
		o->dims[2] = x->dims[2] >= 0 && x->dims[2] % b == 0 ? x->dims[2] / b : -1;
		o->dims[3] = x->dims[3] >= 0 && x->dims[3] % b == 0 ? x->dims[3] / b : -1;
	}
}

static void
one_hot(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *ind = scs_infer_input(r, 0);
	int64_t axis = scs_attr_int(r->n, "axis", -1);
	int q;

	if (j != 0 || !ind || (q = ind->rank) + 1 > MAX_RANK || !scs_infer_axis_in(&axis, q + 1))
		return;
	o->rank = q + 1;
	for (int i = 0, k = 0; i <= q; i++)
		o->dims[i] = i == axis ? const_count(r, 1) : ind->dims[k++];
}

static void
gather_nd(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *data = scs_infer_input(r, 0), *ind = scs_infer_input(r, 1);
	int64_t b = scs_attr_int(r->n, "batch_dims", 0), k;
	int q;

	if (j != 0 || !data || !ind || (q = ind->rank) < 1 || (k = ind->dims[q - 1]) < 0 || b < 0 || b + k > data->rank)
		return;
	/* indices' leading dims, then the data dims the index tuples leave */
	o->rank = q - 1 + data->rank - (int)(b + k);
	if (o->rank > MAX_RANK) {
		o->rank = -1;
		return;
	}
	for (int i = 0; i < q - 1; i++)
		o->dims[i] = i >= b ? ind->dims[i] : scs_infer_dim_pick(ind->dims[i], data->dims[i]);
	for (int i = (int)(b + k); i < data->rank; i++)
		o->dims[q - 1 + i - (b + k)] = data->dims[i];
}

static void
gather_elements(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t axis = scs_attr_int(r->n, "axis", 0);

	/* constant indices outside the axis: invalid, unknown */
	if (j == 0 && x && scs_infer_axis_in(&axis, x->rank) && given(r, 1) &&
	    !scs_infer_indices_ok(r->inf, r->c, r->n->input[1], x->dims[axis]))
		return;
	if (j == 0)
		same_as(o, scs_infer_input(r, 1));
}

static void
eye_like(const rule *r, size_t j, scs_vfacts *o)
{
	if (j != 0)
		return;
	same_as(o, scs_infer_input(r, 0));
	o->elem = (int32_t)scs_attr_int(r->n, "dtype", r->in[0].elem);
}

/* Bernoulli, RandomUniformLike, RandomNormalLike: the input's shape, dtype or the input's type. */
static void
random_like(const rule *r, size_t j, scs_vfacts *o)
{
	if (j != 0)
		return;
	same_as(o, scs_infer_input(r, 0));
	o->elem = (int32_t)scs_attr_int(r->n, "dtype", r->n->n_input ? r->in[0].elem : 0);
}

static void
split(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__NodeProto *n = r->n;
	const Onnx__AttributeProto *a = scs_attr_find(n, "split");
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t axis = scs_attr_int(n, "axis", 0), v[SCS_INFER_MAX_CONST], parts, dim, chunk;
	int k = -1;

	if (!x)
		return;
	scs_infer_unknown_dims(o, x->rank);
	if (!scs_infer_axis_in(&axis, x->rank))
		return;
	same_as(o, x);
	o->dims[axis] = -1;
	dim = x->dims[axis];
	if (a && a->n_ints <= SCS_INFER_MAX_CONST) {
		k = (int)a->n_ints;
		if (k > 0)
			memcpy(v, a->ints, (size_t)k * sizeof(v[0]));
	} else if (given(r, 1)) {
		if ((k = scs_infer_const_ints(r->inf, r->c, n->input[1], v)) < 0)
			return;
	}
	if (k >= 0) {
		int64_t sum = 0;

		/* the parts, when each is known and they add up to the dim (else invalid) */
		for (int i = 0; i < k; i++)
			sum = v[i] < 0 || sum < 0 ? -1 : scs_infer_dim_add(sum, v[i]);
		if ((size_t)k == n->n_output && sum >= 0 && (dim < 0 || sum == dim))
			o->dims[axis] = v[j];
		return;
	}
	if (dim < 0)
		return;
	if ((parts = scs_attr_int(n, "num_outputs", -1)) > 0) {
		/* opset 18: ceil(dim / num_outputs) each, the last one what is left */
		if ((size_t)parts != n->n_output)
			return;
		chunk = dim / parts + (dim % parts != 0);
		o->dims[axis] = j + 1 < n->n_output ? chunk : dim - chunk * (parts - 1);
		if (o->dims[axis] < 0)
			o->dims[axis] = -1;
		return;
	}
	if (dim % (int64_t)n->n_output == 0)
		o->dims[axis] = dim / (int64_t)n->n_output;
}

static void
unique(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__AttributeProto *a = scs_attr_find(r->n, "axis");
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t axis = a ? a->i : 0, len = 1;

	if (j > 3)
		return;
	if (a && x && !scs_infer_axis_in(&axis, x->rank))
		return;
	if (j == 0) {
		if (!a) {
			vector(o, -1);
		} else if (x) {
			same_as(o, x);
			o->dims[axis] = -1;
		}
		return;
	}
	vector(o, -1);
	if (j != 2 || !x)
		return;
	/* inverse_indices: one per element of X, or per slice along axis */
	if (a) {
		o->dims[0] = x->dims[axis];
		return;
	}
	for (int i = 0; i < x->rank; i++)
		len = scs_infer_dim_mul(len, x->dims[i]);
	o->dims[0] = len;
}

static void
det(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);

	if (j != 0 || !x || x->rank < 2)
		return;
	same_as(o, x);
	o->rank -= 2;
}

static void
grid_sample(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0), *g = scs_infer_input(r, 1);

	if (j != 0 || !x)
		return;
	scs_infer_unknown_dims(o, x->rank);
	if (x->rank < 3 || !g || g->rank != x->rank)
		return;
	/* [N, C] of X, then the grid's output dims */
	o->dims[0] = scs_infer_dim_pick(x->dims[0], g->dims[0]);
	o->dims[1] = x->dims[1];
	for (int i = 2; i < x->rank; i++)
		o->dims[i] = g->dims[i - 1];
}

static void
roi_align(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0), *rois = scs_infer_input(r, 1), *bi = scs_infer_input(r, 2);

	if (j != 0)
		return;
	scs_infer_unknown_dims(o, 4);
	o->dims[0] = rois && rois->rank == 2 ? rois->dims[0] : -1;
	if (bi && bi->rank == 1)
		o->dims[0] = scs_infer_dim_pick(o->dims[0], bi->dims[0]);
	o->dims[1] = x && x->rank == 4 ? x->dims[1] : -1;
	o->dims[2] = scs_attr_int(r->n, "output_height", 1);
	o->dims[3] = scs_attr_int(r->n, "output_width", 1);
	for (int i = 2; i < 4; i++)
		o->dims[i] = o->dims[i] >= 0 ? o->dims[i] : -1;
}

static void
non_max_suppression(const rule *r, size_t j, scs_vfacts *o)
{
	(void)r;
	if (j != 0)
		return;
	o->rank = 2;
	o->dims[0] = -1;
	o->dims[1] = 3;
}

static void
tfidf(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__AttributeProto *a = scs_attr_find(r->n, "ngram_indexes");
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t top = -1;

	if (j != 0 || !x || x->rank < 1 || x->rank > 2)
		return;
	for (size_t i = 0; a && i < a->n_ints; i++)
		top = a->ints[i] > top ? a->ints[i] : top;
	o->rank = x->rank;
	o->dims[0] = x->dims[0];
	o->dims[x->rank - 1] = a && top >= 0 && top < INT64_MAX ? top + 1 : -1;
}

static void
string_normalizer(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);

	if (j != 0 || !x || x->rank < 1 || x->rank > 2)
		return;
	/* [C] or [1, C]: stopwords may drop any of the C */
	scs_infer_unknown_dims(o, x->rank);
	if (x->rank == 2)
		o->dims[0] = 1;
}

static void
dynamic_quantize(const rule *r, size_t j, scs_vfacts *o)
{
	if (j == 0)
		same_as(o, scs_infer_input(r, 0));
	else if (j < 3)
		scalar(o);
}

/* OptionalHasElement, SequenceLength */
static void
scalar_out(const rule *r, size_t j, scs_vfacts *o)
{
	(void)r;
	if (j == 0)
		scalar(o);
}

/* ---- resizing ---- */

static void
resize(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__NodeProto *n = r->n;
	const Onnx__AttributeProto *ax = scs_attr_find(n, "axes"), *sa;
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t axes[MAX_RANK], sizes[SCS_INFER_MAX_CONST];
	float scales[SCS_INFER_MAX_CONST];
	int up = n->op_type[0] == 'U', na, k;
	size_t si = up || r->opset < 11 ? 1 : 2;

	if (j != 0 || !x)
		return;
	scs_infer_unknown_dims(o, x->rank);
	if (scs_attr_is(n, "coordinate_transformation_mode", "tf_crop_and_resize", 0))
		return;     /* the output follows the roi */
	na = ax ? (int)ax->n_ints : x->rank;
	if (na > x->rank)
		return;
	for (int i = 0; i < na; i++) {
		axes[i] = ax ? ax->ints[i] : i;
		if (!scs_infer_axis_in(&axes[i], x->rank))
			return;
	}
	same_as(o, x);
	if (!up && r->opset >= 11 && given(r, 3) &&
	    (k = scs_infer_const_ints(r->inf, r->c, n->input[3], sizes)) > 0) {
		/* not_larger, not_smaller: the sizes bound the named dims, which keep the aspect ratio */
		for (int i = 0; i < na; i++)
			o->dims[axes[i]] = k == na && sizes[i] >= 0 &&
			    scs_attr_is(n, "keep_aspect_ratio_policy", "stretch", 1) ? sizes[i] : -1;
		return;
	}
	if (up && r->opset < 9 && (sa = scs_attr_find(n, "scales")) && sa->n_floats <= SCS_INFER_MAX_CONST) {
		k = (int)sa->n_floats;
		if (k > 0)
			memcpy(scales, sa->floats, (size_t)k * sizeof(float));
	} else if (!given(r, si) || (k = scs_infer_const_floats(r->inf, r->c, n->input[si], scales)) < 0) {
		k = -1;
	}
	if (k != na) {
		scs_infer_unknown_dims(o, x->rank);
		return;
	}
	/*
	 * floor(dim * scale), in float arithmetic as the reference and runtimes
	 * compute it; unknown where the exact product lies just off an integer
	 * (ONNX Runtime's kernel gives 13 for 7 * 1.857142925f, its own folding
	 * of Shape 12).
	 */
	for (int i = 0; i < na; i++) {
		int64_t in = x->dims[axes[i]];
		float prod = (float)in * scales[i];
		double exact = (double)in * scales[i], off = exact - floor(exact);

		o->dims[axes[i]] = in >= 0 && scales[i] > 0 && prod < 9e18f && (off == 0 || (off > 1e-4 && off < 1 - 1e-4)) ?
		    (int64_t)floorf(prod) : -1;
	}
}

/* ---- Einsum ---- */

/* The label number of @ch (A-Z, a-z), or -1. */
static int
label(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' : ch >= 'a' && ch <= 'z' ? 26 + ch - 'a' : -1;
}

/* Two sightings of one dim (@first: the first): equal, or a number but 1 and an unknown; anything else unknown. */
static int64_t
same_dim(int first, int64_t seen, int64_t d)
{
	return first || seen == d ? d : seen < 0 && d >= 0 && d != 1 ? d : d < 0 && seen >= 0 && seen != 1 ? seen : -1;
}

static void
einsum(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__AttributeProto *a = scs_attr_find(r->n, "equation");
	char eq[256];
	int64_t dims[52] = { 0 }, ell[MAX_RANK] = { 0 };
	int count[52] = { 0 }, ell_rank = -1, term = 0, pos = 0, len = 0, n_ell = 0, l;
	const char *arrow;
	size_t i;

	if (j != 0 || !a || a->s.len >= sizeof(eq))
		return;
	for (i = 0; i < a->s.len; i++)
		if (a->s.data[i] != ' ')
			eq[len++] = (char)a->s.data[i];
	eq[len] = 0;
	arrow = strstr(eq, "->");
	/* the inputs' terms: each label's dim, and the broadcast dims of the ellipses */
	for (const char *p = eq; p <= eq + len && (!arrow || p <= arrow); p++) {
		const scs_vfacts *x = (size_t)term < r->n->n_input ? scs_infer_input(r, (size_t)term) : NULL;

		if (*p == ',' || p == arrow || *p == 0) {
			if (!x || pos != x->rank)
				return;
			term++;
			pos = 0;
			if (p == arrow || *p == 0)
				break;
			continue;
		}
		if (!x)
			return;
		if (strncmp(p, "...", 3) == 0) {
			int here = x->rank - pos, labels_after = 0, er;

			for (const char *q = p + 3; *q && *q != ',' && *q != '-'; q++)
				labels_after++;
			if ((er = here - labels_after) < 0 || er > MAX_RANK)
				return;
			if (ell_rank < 0) {
				ell_rank = 0;
			}
			/* right-aligned numpy broadcasting of every ellipsis */
			for (int e = 0; e < er; e++) {
				int at = MAX_RANK - er + e;
				int64_t d = x->dims[pos + e];

				if (MAX_RANK - at > ell_rank || ell[at] == 1 || ell[at] == d || (ell[at] < 0 && d >= 0 && d != 1))
					ell[at] = d;
				else if (d != 1 && !(d < 0 && ell[at] >= 0))
					ell[at] = -1;
			}
			ell_rank = er > ell_rank ? er : ell_rank;
			n_ell++;
			pos += er;
			p += 2;
			continue;
		}
		if ((l = label(*p)) < 0 || pos >= x->rank)
			return;
		dims[l] = same_dim(count[l] == 0, dims[l], x->dims[pos++]);
		count[l]++;
	}
	if ((size_t)term != r->n->n_input)
		return;
	o->rank = 0;
	if (arrow) {
		for (const char *p = arrow + 2; *p; p++) {
			if (strncmp(p, "...", 3) == 0) {
				if (ell_rank < 0 || o->rank + ell_rank > MAX_RANK)
					goto unknown;
				for (int e = 0; e < ell_rank; e++)
					o->dims[o->rank++] = ell[MAX_RANK - ell_rank + e];
				p += 2;
			} else if ((l = label(*p)) < 0 || count[l] == 0 || o->rank >= MAX_RANK) {
				goto unknown;
			} else {
				o->dims[o->rank++] = dims[l];
			}
		}
		return;
	}
	/* implicit: the ellipsis dims, then the labels seen once, in alphabetical order */
	for (int e = 0; n_ell && e < ell_rank; e++)
		o->dims[o->rank++] = ell[MAX_RANK - ell_rank + e];
	for (l = 0; l < 52; l++)
		if (count[l] == 1) {
			if (o->rank >= MAX_RANK)
				goto unknown;
			o->dims[o->rank++] = dims[l];
		}
	return;
unknown:
	o->rank = -1;
}

/* ---- recurrent layers ---- */

static void
recurrent(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__NodeProto *n = r->n;
	const scs_vfacts *x = scs_infer_input(r, 0), *rw = scs_infer_input(r, 2);
	int64_t dirs = scs_attr_is(n, "direction", "bidirectional", 0) ? 2 :
	    scs_attr_is(n, "direction", "forward", 1) || scs_attr_is(n, "direction", "reverse", 0) ? 1 : -1;
	int64_t hidden = scs_attr_int(n, "hidden_size", -1), seq = -1, batch = -1;
	int batch_first = scs_attr_int(n, "layout", 0) != 0;

	if (r->opset < 7 || j > (strcmp(n->op_type, "LSTM") == 0 ? 2u : 1u))
		return;
	if (hidden <= 0)
		hidden = rw && rw->rank == 3 ? rw->dims[2] : -1;
	if (x && x->rank == 3) {
		seq = x->dims[batch_first ? 1 : 0];
		batch = x->dims[batch_first ? 0 : 1];
	}
	if (j == 0) {
		/* Y: [seq, dirs, batch, hidden], or [batch, seq, dirs, hidden] */
		o->rank = 4;
		o->dims[0] = batch_first ? batch : seq;
		o->dims[1] = batch_first ? seq : dirs;
		o->dims[2] = batch_first ? dirs : batch;
		o->dims[3] = hidden;
		return;
	}
	/* Y_h, Y_c: [dirs, batch, hidden], or [batch, dirs, hidden] */
	o->rank = 3;
	o->dims[0] = batch_first ? batch : dirs;
	o->dims[1] = batch_first ? dirs : batch;
	o->dims[2] = hidden;
}

/* ---- losses ---- */

/* NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss: the loss per element or reduced; SCE's log_prob. */
static void
loss(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);

	if (j == 1 && r->n->op_type[0] == 'S') {
		same_as(o, x);
		return;
	}
	if (j != 0)
		return;
	if (!scs_attr_is(r->n, "reduction", "none", 0)) {
		if (scs_attr_is(r->n, "reduction", "mean", 1) || scs_attr_is(r->n, "reduction", "sum", 0))
			scalar(o);
		return;
	}
	/* [N, d1, ...]: the input's dims without C */
	if (x && x->rank >= 2) {
		same_as(o, x);
		memmove(o->dims + 1, o->dims + 2, (size_t)(x->rank - 2) * sizeof(o->dims[0]));
		o->rank--;
	} else {
		same_as(o, scs_infer_input(r, 1));
	}
}

/* ---- generators ---- */

static void
window_fn(const rule *r, size_t j, scs_vfacts *o)
{
	if (j != 0)
		return;
	o->elem = (int32_t)scs_attr_int(r->n, "output_datatype", SCS_DT_FLOAT);
	vector(o, const_count(r, 0));
}

static void
mel_weight_matrix(const rule *r, size_t j, scs_vfacts *o)
{
	int64_t dft = const_count(r, 1);

	if (j != 0)
		return;
	o->elem = (int32_t)scs_attr_int(r->n, "output_datatype", SCS_DT_FLOAT);
	o->rank = 2;
	o->dims[0] = dft >= 0 ? dft / 2 + 1 : -1;
	o->dims[1] = const_count(r, 0);
}

static void
dft(const rule *r, size_t j, scs_vfacts *o)
{
	const scs_vfacts *x = scs_infer_input(r, 0);
	int64_t axis = scs_attr_int(r->n, "axis", 1), v[SCS_INFER_MAX_CONST], len;

	if (j != 0 || !x || x->rank < 2)
		return;
	scs_infer_unknown_dims(o, x->rank);
	if (r->opset >= 20) {
		axis = -2;
		if (given(r, 2) && scs_infer_const_ints(r->inf, r->c, r->n->input[2], v) != 1)
			return;
		if (given(r, 2))
			axis = v[0];
	}
	/* the signal's dims, the last one 2 (real, imaginary) */
	if (!scs_infer_axis_in(&axis, x->rank) || axis == x->rank - 1)
		return;
	same_as(o, x);
	o->dims[x->rank - 1] = 2;
	len = given(r, 1) ? const_count(r, 1) : x->dims[axis];
	if (scs_attr_int(r->n, "onesided", 0) && len >= 0)
		len = len / 2 + 1;
	o->dims[axis] = len;
}

/* Constant's value_* attributes (a `value` tensor is a constant the caller already knows). */
static void
constant(const rule *r, size_t j, scs_vfacts *o)
{
	const Onnx__AttributeProto *a;

	if (j != 0 || r->n->n_attribute != 1 || (a = r->n->attribute[0])->name == NULL)
		return;
	if (strcmp(a->name, "value_int") == 0 || strcmp(a->name, "value_float") == 0 ||
	    strcmp(a->name, "value_string") == 0)
		scalar(o);
	else if (strcmp(a->name, "value_ints") == 0)
		vector(o, (int64_t)a->n_ints);
	else if (strcmp(a->name, "value_floats") == 0)
		vector(o, (int64_t)a->n_floats);
	else if (strcmp(a->name, "value_strings") == 0)
		vector(o, (int64_t)a->n_strings);
	else
		return;
	o->elem = strstr(a->name, "int") ? SCS_DT_INT64 : strstr(a->name, "float") ? SCS_DT_FLOAT : SCS_DT_STRING;
}

typedef void (*rule_fn)(const rule *r, size_t j, scs_vfacts *o);

static const struct {
	const char *op;
	rule_fn fn;
} rules[] = {
	{ "AveragePool", pool },
	{ "BatchNormalization", batch_norm },
	{ "Bernoulli", random_like },
	{ "BlackmanWindow", window_fn },
	{ "Constant", constant },
	{ "Conv", conv },
	{ "ConvInteger", conv },
	{ "ConvTranspose", conv_transpose },
	{ "DFT", dft },
	{ "DepthToSpace", depth_space },
	{ "Det", det },
	{ "Dropout", like_input },
	{ "DynamicQuantizeLinear", dynamic_quantize },
	{ "Einsum", einsum },
	{ "EyeLike", eye_like },
	{ "GRU", recurrent },
	{ "GatherElements", gather_elements },
	{ "GatherND", gather_nd },
	{ "GlobalAveragePool", global_pool },
	{ "GlobalLpPool", global_pool },
	{ "GlobalMaxPool", global_pool },
	{ "GridSample", grid_sample },
	{ "GroupNormalization", like_input },
	{ "HammingWindow", window_fn },
	{ "HannWindow", window_fn },
	{ "If", scs_infer_if },
	{ "LSTM", recurrent },
	{ "Loop", scs_infer_loop },
	{ "LayerNormalization", layer_norm },
	{ "LpPool", pool },
	{ "MaxPool", pool },
	{ "MaxUnpool", max_unpool },
	{ "MelWeightMatrix", mel_weight_matrix },
	{ "NegativeLogLikelihoodLoss", loss },
	{ "NonMaxSuppression", non_max_suppression },
	{ "OneHot", one_hot },
	{ "OptionalHasElement", scalar_out },
	{ "QLinearConv", conv },
	{ "RNN", recurrent },
	{ "RandomNormalLike", random_like },
	{ "RandomUniformLike", random_like },
	{ "Resize", resize },
	{ "ReverseSequence", like_input },
	{ "RoiAlign", roi_align },
	{ "Scatter", like_input },
	{ "ScatterElements", like_input },
	{ "Scan", scs_infer_scan },
	{ "ScatterND", like_input },
	{ "SoftmaxCrossEntropyLoss", loss },
	{ "SpaceToDepth", depth_space },
	{ "SequenceLength", scalar_out },
	{ "Split", split },
	{ "StringNormalizer", string_normalizer },
	{ "TfIdfVectorizer", tfidf },
	{ "Unique", unique },
	{ "Upsample", resize },
};

int
scs_infer_nn(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, const scs_vfacts *in, size_t j,
    scs_vfacts *o)
{
	rule r = { inf, c, n, in, scs_model_opset(inf->m->proto, n->domain) };

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strcmp(n->op_type, rules[i].op) == 0) {
			rules[i].fn(&r, j, o);
			return 1;
		}
	return 0;
}
