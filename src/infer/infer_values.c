/*
 * infer_values.c: data propagation, as ONNX's shape inference does it. The
 * value of a small int64/int32 tensor (rank 0 or 1, SCS_INFER_MAX_PVAL
 * elements at most) is followed through Shape, Gather and Slice of it,
 * Concat, Unsqueeze/Squeeze, Cast between int32 and int64, Identity and
 * Add/Sub/Mul/Div of numbers, each element a number, the symbol of a named
 * dim, or unknown. Reshape's rule (infer.c) reads a target so made: one walk
 * then knows the dims of every layer of a deep model whose Reshapes take
 * their targets from the shapes of earlier ones.
 *
 * SPDX-License-Identifier: MIT
 */
#include "infer/infer.h"
#include "infer/infer_impl.h"

#include <stdlib.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "util/buf.h"
#include "util/err.h"
#include "model/model.h"

/* Element @i of @p: the dim @d (a number, a symbol, or unknown). */
static void
set_dim(scs_infer_pval *p, int i, int64_t d)
{
	p->v[i] = d;
	p->kind[i] = d >= 0 ? SCS_PV_NUM : d < -1 ? SCS_PV_SYM : SCS_PV_UNK;
}

/* Start @s and end @e of a range of @r elements counted from the end when negative, then clamped into [0, @r]. */
static void
clamp_range(int64_t *s, int64_t *e, int64_t r)
{
	*s = *s < 0 ? *s + r : *s;
	*e = *e < 0 ? *e + r : *e;
	*s = *s < 0 ? 0 : *s > r ? r : *s;
	*e = *e < 0 ? 0 : *e > r ? r : *e;
}

/* Shape of a value of known rank, from start to end (attributes from opset 15, clamped). */
static int
shape_value(scs_infer *inf, const Onnx__NodeProto *n, scs_infer_pval *o)
{
	scs_vfacts x;
	int64_t r, s, e;

	if (n->n_input < 1 || !scs_infer_get(inf, n->input[0], &x) || x.rank < 0)
		return 0;
	r = x.rank;
	s = scs_attr_int(n, "start", 0);
	e = scs_attr_int(n, "end", r);
	clamp_range(&s, &e, r);
	if (e - s > SCS_INFER_MAX_PVAL)
		return 0;
	o->n = (int8_t)(e > s ? e - s : 0);
	for (int i = 0; i < o->n; i++)
		set_dim(o, i, x.dims[s + i]);
	return 1;
}

/* 1 and the one number of input @i (an axis, an index, ...) in *out, from the input or attribute @attr. */
static int
one_int(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, size_t i, const char *attr, int64_t *out)
{
	const Onnx__AttributeProto *a;
	scs_infer_pval p;

	if (i < n->n_input && n->input[i][0]) {
		if (!scs_infer_value(inf, c, n->input[i], &p) || p.n != 1 || p.kind[0] != SCS_PV_NUM)
			return 0;
		*out = p.v[0];
		return 1;
	}
	if (attr && (a = scs_attr_find(n, attr)) != NULL && a->n_ints == 1) {
		*out = a->ints[0];
		return 1;
	}
	return 0;
}

/* 1 when the axis (input @i, or attribute @attr) is the one axis of a 1-D value: 0 or -1. */
static int
axis_is_0(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, size_t i, const char *attr)
{
	int64_t a;

	return one_int(inf, c, n, i, attr, &a) && (a == 0 || a == -1);
}

/* Slice of a 1-D value, step 1 (an attribute form before opset 10). */
static int
slice_value(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, int64_t opset, const scs_infer_pval *x,
    scs_infer_pval *o)
{
	int64_t s, e, step = 1, r = x->n;
	int attrs = opset < 10;

	if (x->scalar || !one_int(inf, c, n, attrs ? 99 : 1, "starts", &s) || !one_int(inf, c, n, attrs ? 99 : 2, "ends", &e))
		return 0;
	if ((attrs ? scs_attr_find(n, "axes") != NULL : n->n_input > 3 && n->input[3][0]) &&
	    !axis_is_0(inf, c, n, attrs ? 99 : 3, "axes"))
		return 0;
	if (!attrs && n->n_input > 4 && n->input[4][0] && (!one_int(inf, c, n, 4, NULL, &step) || step != 1))
		return 0;
	clamp_range(&s, &e, r);
	o->n = (int8_t)(e > s ? e - s : 0);
	memcpy(o->v, x->v + s, (size_t)o->n * sizeof(o->v[0]));
	memcpy(o->kind, x->kind + s, (size_t)o->n);
	return 1;
}

/* Add, Sub, Mul, Div elementwise (one side may be a single element): numbers where both are, 1 * d and d + 0 keep d. */
static int
arith_value(const char *op, const scs_infer_pval *a, const scs_infer_pval *b, scs_infer_pval *o)
{
	int n = a->n > b->n ? a->n : b->n;

	if (a->n != b->n && a->n != 1 && b->n != 1)
		return 0;
	o->n = (int8_t)n;
	o->scalar = a->scalar && b->scalar;
	for (int i = 0; i < n; i++) {
		int64_t x = a->v[a->n == 1 ? 0 : i], y = b->v[b->n == 1 ? 0 : i], r;
		int kx = a->kind[a->n == 1 ? 0 : i], ky = b->kind[b->n == 1 ? 0 : i];

		o->kind[i] = SCS_PV_UNK;
		o->v[i] = -1;
		if (kx == SCS_PV_NUM && ky == SCS_PV_NUM) {
			if (op[0] == 'A' ? __builtin_add_overflow(x, y, &r) : op[0] == 'S' ? __builtin_sub_overflow(x, y, &r) :
			    op[0] == 'M' ? __builtin_mul_overflow(x, y, &r) : (x < 0 || y <= 0 || (r = x / y, 0)))
				continue;     /* overflow, or a division whose rounding is not plain: unknown */
			o->v[i] = r;
			o->kind[i] = SCS_PV_NUM;
		} else if (kx == SCS_PV_SYM && ky == SCS_PV_NUM &&
		    ((op[0] == 'M' && y == 1) || (op[0] == 'D' && y == 1) || (op[0] != 'M' && op[0] != 'D' && y == 0))) {
			o->v[i] = x;
			o->kind[i] = SCS_PV_SYM;
		} else if (ky == SCS_PV_SYM && kx == SCS_PV_NUM && ((op[0] == 'M' && x == 1) || (op[0] == 'A' && x == 0))) {
			o->v[i] = y;
			o->kind[i] = SCS_PV_SYM;
		}
	}
	return 1;
}

/* The value of @n's output 0 into @o: 1 when followed. */
static int
value_rule(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, scs_infer_pval *o)
{
	const char *op = n->op_type;
	int64_t opset = scs_model_opset(inf->m->proto, n->domain);
	scs_infer_pval x, y;
	const Onnx__AttributeProto *a;

	memset(o, 0, sizeof(*o));
	if (strcmp(op, "Shape") == 0)
		return shape_value(inf, n, o);
	if (n->n_input < 1 || !n->input[0][0] || !scs_infer_value(inf, c, n->input[0], &x))
		return 0;
	if (strcmp(op, "Identity") == 0) {
		*o = x;
		return 1;
	}
	if (strcmp(op, "Cast") == 0) {
		if ((a = scs_attr_find(n, "to")) == NULL || (a->i != SCS_DT_INT64 && a->i != SCS_DT_INT32))
			return 0;
		for (int i = 0; i < x.n; i++)
			if (x.kind[i] == SCS_PV_NUM && a->i == SCS_DT_INT32 && (x.v[i] < INT32_MIN || x.v[i] > INT32_MAX))
				return 0;     /* wraps */
		*o = x;
		return 1;
	}
	if (strcmp(op, "Gather") == 0) {
		int64_t axis = scs_attr_int(n, "axis", 0);

		if (x.scalar || (axis != 0 && axis != -1) || n->n_input < 2 || !scs_infer_value(inf, c, n->input[1], &y))
			return 0;
		o->n = y.n;
		o->scalar = y.scalar;
		for (int i = 0; i < y.n; i++) {
			int64_t k = y.v[i];

			if (y.kind[i] != SCS_PV_NUM || k < -x.n || k >= x.n)
				return 0;     /* unknown, or refused by ONNX Runtime */
			k = k < 0 ? k + x.n : k;
			o->v[i] = x.v[k];
			o->kind[i] = x.kind[k];
		}
		return 1;
	}
	if (strcmp(op, "Slice") == 0)
		return slice_value(inf, c, n, opset, &x, o);
	if (strcmp(op, "Concat") == 0) {
		int64_t axis = scs_attr_int(n, "axis", 0);

		if (axis != 0 && axis != -1)
			return 0;
		for (size_t i = 0; i < n->n_input; i++) {
			if (!n->input[i][0] || !scs_infer_value(inf, c, n->input[i], &y) || y.scalar ||
			    o->n + y.n > SCS_INFER_MAX_PVAL)
				return 0;
			memcpy(o->v + o->n, y.v, (size_t)y.n * sizeof(y.v[0]));
			memcpy(o->kind + o->n, y.kind, (size_t)y.n);
			o->n = (int8_t)(o->n + y.n);
		}
		return 1;
	}
	if (strcmp(op, "Unsqueeze") == 0 || strcmp(op, "Squeeze") == 0) {
		int sq = op[0] == 'S';
		size_t ai = opset >= 13 ? 1 : 99;

		if (sq ? x.scalar || x.n != 1 : !x.scalar)
			return 0;
		if ((ai < n->n_input && n->input[ai][0]) || scs_attr_find(n, "axes")) {
			if (!axis_is_0(inf, c, n, ai, "axes"))
				return 0;
		} else if (!sq) {
			return 0;     /* Unsqueeze needs its axes */
		}
		*o = x;
		o->scalar = (int8_t)sq;
		return 1;
	}
	if ((strcmp(op, "Add") == 0 || strcmp(op, "Sub") == 0 || strcmp(op, "Mul") == 0 || strcmp(op, "Div") == 0) &&
	    n->n_input == 2 && n->input[1][0] && scs_infer_value(inf, c, n->input[1], &y))
		return arith_value(op, &x, &y, o);
	return 0;
}

int
scs_infer_values_node(scs_infer *inf, scs_infer_consts *c, const Onnx__NodeProto *n)
{
	scs_infer_pval o;
	int rc;

	if (!n->op_type || !scs_is_onnx_domain(n->domain) || n->n_output == 0 || !n->output[0][0] ||
	    !value_rule(inf, c, n, &o))
		return SCS_OK;
	if ((rc = scs_grow(&c->pv, &c->cap_pv, c->n_pv, sizeof(*c->pv), 64, "the followed values")) < 0)
		return rc;
	c->pv[c->n_pv] = o;
	return scs_strmap_put(&c->pv_by_name, n->output[0], (int64_t)c->n_pv++);
}
