/*
 * eval_math.c: the evaluator's kernels that compute: Cast, CastLike, the
 * elementwise arithmetic, comparisons and logic, Min, Max, Range,
 * ReduceSum, ReduceProd, DequantizeLinear, and the math library's
 * functions (Exp, Log, Pow, Tanh, Sin, ...: results marked inexact, as a
 * runtime's own implementations round otherwise).
 *
 * Element types fall in four classes: float (float, float16, bfloat16:
 * computed in float, stored rounded once), double, signed and unsigned
 * integers (computed in 64 bits, wrapped to the element's width; bool is
 * an unsigned integer).
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval_impl.h"
#include "num.h"

enum { CL_NONE, CL_F, CL_D, CL_S, CL_U };

static int
class_of(int dt)
{
	switch (dt) {
	case SCS_DT_FLOAT: case SCS_DT_FLOAT16: case SCS_DT_BFLOAT16: return CL_F;
	case SCS_DT_DOUBLE: return CL_D;
	case SCS_DT_INT8: case SCS_DT_INT16: case SCS_DT_INT32: case SCS_DT_INT64: return CL_S;
	case SCS_DT_UINT8: case SCS_DT_UINT16: case SCS_DT_UINT32: case SCS_DT_UINT64: case SCS_DT_BOOL: return CL_U;
	default: return CL_NONE;
	}
}

/* A value of any class. */
typedef union val {
	float f;
	double d;
	int64_t s;
	uint64_t u;
} val;

static val
load(const uint8_t *p, int dt)
{
	val v;

	switch (dt) {
	case SCS_DT_FLOAT: case SCS_DT_FLOAT16: case SCS_DT_BFLOAT16: v.f = (float)scs_eval_load_float(p, dt); break;
	case SCS_DT_DOUBLE: v.d = scs_eval_load_float(p, dt); break;
	case SCS_DT_INT8: v.s = (int8_t)p[0]; break;
	case SCS_DT_INT16: v.s = (int16_t)scs_load_le16(p); break;
	case SCS_DT_INT32: v.s = (int32_t)scs_load_le32(p); break;
	case SCS_DT_INT64: v.s = (int64_t)scs_load_le64(p); break;
	case SCS_DT_UINT8: case SCS_DT_BOOL: v.u = p[0]; break;
	case SCS_DT_UINT16: v.u = scs_load_le16(p); break;
	case SCS_DT_UINT32: v.u = scs_load_le32(p); break;
	default: v.u = scs_load_le64(p); break;
	}
	return v;
}

static void
store(uint8_t *p, int dt, val v)
{
	uint32_t u32;
	uint64_t u64;

	switch (dt) {
	case SCS_DT_FLOAT:
		memcpy(&u32, &v.f, 4);
		scs_store_le32(p, u32);
		break;
	case SCS_DT_FLOAT16: scs_store_le16(p, scs_eval_float_to_half(v.f)); break;
	case SCS_DT_BFLOAT16: scs_store_le16(p, scs_eval_float_to_bf16(v.f)); break;
	case SCS_DT_DOUBLE:
		memcpy(&u64, &v.d, 8);
		scs_store_le64(p, u64);
		break;
	case SCS_DT_BOOL: p[0] = v.u != 0; break;
	case SCS_DT_INT8: case SCS_DT_UINT8: p[0] = (uint8_t)v.u; break;
	case SCS_DT_INT16: case SCS_DT_UINT16: scs_store_le16(p, (uint16_t)v.u); break;
	case SCS_DT_INT32: case SCS_DT_UINT32: scs_store_le32(p, (uint32_t)v.u); break;
	default: scs_store_le64(p, v.u); break;
	}
}

/* ---- binary ---- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX, OP_EQ, OP_LT, OP_GT, OP_LE, OP_GE, OP_AND, OP_OR, OP_XOR };

static const char *const bin_names[] = { "Add", "Sub", "Mul", "Div", "Min", "Max", "Equal", "Less", "Greater",
	"LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor" };

static int
bin_op(const char *name)
{
	for (int i = 0; i < (int)(sizeof(bin_names) / sizeof(bin_names[0])); i++)
		if (strcmp(bin_names[i], name) == 0)
			return i;
	return -1;
}

#define CMP(a, b) (op == OP_EQ ? (a) == (b) : op == OP_LT ? (a) < (b) : op == OP_GT ? (a) > (b) : \
	op == OP_LE ? (a) <= (b) : (a) >= (b))

/* One element of @op; 1 when the result is undefined (integer division by zero, overflow). */
static int
bin_apply(int op, int cl, int width, val a, val b, val *r)
{
	int64_t smin = width == 64 ? INT64_MIN : -((int64_t)1 << (width - 1));

	if (op >= OP_EQ && op <= OP_GE) {
		switch (cl) {
		case CL_F: r->u = CMP(a.f, b.f); break;
		case CL_D: r->u = CMP(a.d, b.d); break;
		case CL_S: r->u = CMP(a.s, b.s); break;
		default: r->u = CMP(a.u, b.u); break;
		}
		return 0;
	}
	if (op >= OP_AND) {
		r->u = op == OP_AND ? (a.u && b.u) : op == OP_OR ? (a.u || b.u) : (!a.u != !b.u);
		return 0;
	}
	switch (cl) {
	case CL_F:
		switch (op) {
		case OP_ADD: r->f = a.f + b.f; break;
		case OP_SUB: r->f = a.f - b.f; break;
		case OP_MUL: r->f = a.f * b.f; break;
		case OP_DIV: r->f = a.f / b.f; break;
		case OP_MIN: r->f = isnan(a.f) ? a.f : isnan(b.f) ? b.f : b.f < a.f ? b.f : a.f; break;
		default: r->f = isnan(a.f) ? a.f : isnan(b.f) ? b.f : b.f > a.f ? b.f : a.f; break;
		}
		return 0;
	case CL_D:
		switch (op) {
		case OP_ADD: r->d = a.d + b.d; break;
		case OP_SUB: r->d = a.d - b.d; break;
		case OP_MUL: r->d = a.d * b.d; break;
		case OP_DIV: r->d = a.d / b.d; break;
		case OP_MIN: r->d = isnan(a.d) ? a.d : isnan(b.d) ? b.d : b.d < a.d ? b.d : a.d; break;
		default: r->d = isnan(a.d) ? a.d : isnan(b.d) ? b.d : b.d > a.d ? b.d : a.d; break;
		}
		return 0;
	case CL_S:
		switch (op) {
		case OP_ADD: r->u = a.u + b.u; break;
		case OP_SUB: r->u = a.u - b.u; break;
		case OP_MUL: r->u = a.u * b.u; break;
		case OP_DIV:
			/* 8 and 16 bits compute in int (the quotient wraps); wider ones trap */
			if (b.s == 0 || (b.s == -1 && a.s == smin && width >= 32))
				return 1;
			r->s = b.s == -1 ? (int64_t)(0 - a.u) : a.s / b.s;
			break;
		case OP_MIN: r->s = b.s < a.s ? b.s : a.s; break;
		default: r->s = b.s > a.s ? b.s : a.s; break;
		}
		return 0;
	default:
		switch (op) {
		case OP_ADD: r->u = a.u + b.u; break;
		case OP_SUB: r->u = a.u - b.u; break;
		case OP_MUL: r->u = a.u * b.u; break;
		case OP_DIV:
			if (b.u == 0)
				return 1;
			r->u = a.u / b.u;
			break;
		case OP_MIN: r->u = b.u < a.u ? b.u : a.u; break;
		default: r->u = b.u > a.u ? b.u : a.u; break;
		}
		return 0;
	}
}

/* out = a op b, broadcast; @out may be @a (a fresh result replaces it). */
static int
binary(scs_eval_call *c, int op, const scs_eval_tensor *a, const scs_eval_tensor *b, scs_eval_tensor *out)
{
	const scs_eval_tensor *t[2] = { a, b };
	scs_eval_tensor r;
	scs_eval_bcast bc;
	int cl = class_of(a->dtype), odt, rc;
	size_t ea = scs_eval_esize(a->dtype), eo;
	unsigned width = (unsigned)ea * 8;

	if (cl == CL_NONE || a->dtype != b->dtype)
		return scs_eval_decline(c, "%s of %s and %s", bin_names[op], scs_dtype_name(a->dtype),
		    scs_dtype_name(b->dtype));
	if (op >= OP_AND && a->dtype != SCS_DT_BOOL)
		return scs_eval_decline(c, "%s of %s", bin_names[op], scs_dtype_name(a->dtype));
	odt = op >= OP_EQ ? SCS_DT_BOOL : a->dtype;
	if ((rc = scs_eval_bcast_init(c, &bc, t, 2, NULL, 0)) != SCS_OK ||
	    (rc = scs_eval_tensor_alloc(&r, odt, bc.rank, bc.dims, c->max_bytes, c->why, c->why_len)) != SCS_OK)
		return rc;
	eo = scs_eval_esize(odt);
	for (uint64_t k = 0; k < bc.n; k++, scs_eval_bcast_next(&bc)) {
		val x = load(a->data + bc.off[0] * ea, a->dtype), y = load(b->data + bc.off[1] * ea, b->dtype), z;

		if (bin_apply(op, cl, (int)width, x, y, &z)) {
			scs_eval_tensor_free(&r);
			return scs_eval_decline(c, "integer division by zero or overflow at element %llu",
			    (unsigned long long)k);
		}
		store(r.data + k * eo, odt, z);
	}
	scs_eval_tensor_free(out);
	*out = r;
	return SCS_OK;
}

int
scs_eval_k_binary(scs_eval_call *c)
{
	int op = bin_op(c->node->op_type);

	if (c->n_in != 2 || !c->in[0].dtype || !c->in[1].dtype || op < 0)
		return scs_eval_decline(c, "%s needs two inputs", c->node->op_type);
	if (c->opset < 7 && scs_eval_attr(c, "broadcast") && (c->in[0].rank != c->in[1].rank ||
	    memcmp(c->in[0].dims, c->in[1].dims, c->in[0].rank * sizeof(int64_t)) != 0))
		return scs_eval_decline(c, "the broadcast of opset %lld", (long long)c->opset);
	return binary(c, op, &c->in[0], &c->in[1], &c->out[0]);
}

int
scs_eval_k_variadic(scs_eval_call *c)
{
	int op = bin_op(c->node->op_type), rc;

	if (c->n_in == 0 || !c->in[0].dtype)
		return scs_eval_decline(c, "no inputs");
	if ((rc = scs_eval_out(c, 0, c->in[0].dtype, c->in[0].rank, c->in[0].dims)) != SCS_OK)
		return rc;
	memcpy(c->out[0].data, c->in[0].data, scs_eval_bytes(&c->in[0]));
	if (class_of(c->in[0].dtype) == CL_NONE)
		return scs_eval_decline(c, "%s of %s", c->node->op_type, scs_dtype_name(c->in[0].dtype));
	for (size_t i = 1; i < c->n_in; i++) {
		if (!c->in[i].dtype)
			return scs_eval_decline(c, "input %zu is missing", i);
		if ((rc = binary(c, op, &c->out[0], &c->in[i], &c->out[0])) != SCS_OK)
			return rc;
	}
	return SCS_OK;
}

/* ---- unary ---- */

static const char *const lib_names[] = { "Acos", "Asin", "Atan", "Cos", "Cosh", "Erf", "Exp", "Log", "Sigmoid", "Sin",
	"Sinh", "Tan", "Tanh" };

/* 1 for a function of the math library (computed in double, rounded once, marked inexact). */
static int
is_lib(const char *op)
{
	for (size_t i = 0; i < sizeof(lib_names) / sizeof(lib_names[0]); i++)
		if (strcmp(lib_names[i], op) == 0)
			return 1;
	return 0;
}

static double
math1(const char *op, double x)
{
	switch (op[0]) {
	case 'A': return op[1] == 'c' ? acos(x) : op[1] == 's' ? asin(x) : atan(x);
	case 'C': return op[3] == 'h' ? cosh(x) : cos(x);
	case 'E': return op[1] == 'r' ? erf(x) : exp(x);
	case 'L': return log(x);
	case 'T': return op[3] == 'h' ? tanh(x) : tan(x);
	default:
		if (op[1] == 'i' && op[2] == 'g')
			return 1.0 / (1.0 + exp(-x));
		return op[3] == 'h' ? sinh(x) : sin(x);
	}
}

int
scs_eval_k_unary(scs_eval_call *c)
{
	const char *op = c->node->op_type;
	const scs_eval_tensor *t = scs_eval_in(c, 0);
	int cl, rc, lib = is_lib(op);
	size_t e;

	if (t == NULL)
		return scs_eval_decline(c, "no input");
	cl = class_of(t->dtype);
	if (cl == CL_NONE || (strcmp(op, "Not") == 0) != (t->dtype == SCS_DT_BOOL) ||
	    ((lib || strcmp(op, "Sqrt") == 0 || strcmp(op, "Reciprocal") == 0) && cl != CL_F && cl != CL_D))
		return scs_eval_decline(c, "%s of %s", op, scs_dtype_name(t->dtype));
	if ((rc = scs_eval_out(c, 0, t->dtype, t->rank, t->dims)) != SCS_OK)
		return rc;
	e = scs_eval_esize(t->dtype);
	for (uint64_t k = 0; k < t->n; k++) {
		val v = load(t->data + k * e, t->dtype);

		if (lib && cl == CL_F)
			v.f = (float)math1(op, (double)v.f);
		else if (lib)
			v.d = math1(op, v.d);
		else switch (op[0]) {
		case 'A':                        /* Abs */
			if (cl == CL_F)
				v.f = fabsf(v.f);
			else if (cl == CL_D)
				v.d = fabs(v.d);
			else if (cl == CL_S && v.s < 0)
				v.u = 0 - v.u;
			break;
		case 'N':
			if (op[1] == 'o')            /* Not */
				v.u = !v.u;
			else if (cl == CL_F)
				v.f = -v.f;
			else if (cl == CL_D)
				v.d = -v.d;
			else
				v.u = 0 - v.u;
			break;
		case 'S':                        /* Sqrt */
			if (cl == CL_F)
				v.f = sqrtf(v.f);
			else
				v.d = sqrt(v.d);
			break;
		default:                         /* Reciprocal */
			if (cl == CL_F)
				v.f = 1.0f / v.f;
			else
				v.d = 1.0 / v.d;
			break;
		}
		store(c->out[0].data + k * e, t->dtype, v);
	}
	/* a runtime computes the math library's functions with its own, rounding otherwise */
	c->inexact = lib;
	return SCS_OK;
}

/* ---- Pow ---- */

/* Pow: a float base, an exponent of any number type (opset 12 on), broadcast. */
int
scs_eval_k_pow(scs_eval_call *c)
{
	const scs_eval_tensor *x = scs_eval_in(c, 0), *y = scs_eval_in(c, 1), *t[2];
	scs_eval_bcast bc;
	int cx, cy, rc;
	size_t ex, ey;

	if (x == NULL || y == NULL)
		return scs_eval_decline(c, "Pow needs two inputs");
	cx = class_of(x->dtype);
	cy = class_of(y->dtype);
	if ((cx != CL_F && cx != CL_D) || cy == CL_NONE || y->dtype == SCS_DT_BOOL || (c->opset < 12 && x->dtype != y->dtype))
		return scs_eval_decline(c, "Pow of %s to %s", scs_dtype_name(x->dtype), scs_dtype_name(y->dtype));
	if (c->opset < 7 && scs_eval_attr(c, "broadcast"))
		return scs_eval_decline(c, "the broadcast of opset %lld", (long long)c->opset);
	t[0] = x;
	t[1] = y;
	if ((rc = scs_eval_bcast_init(c, &bc, t, 2, NULL, 0)) != SCS_OK ||
	    (rc = scs_eval_out(c, 0, x->dtype, bc.rank, bc.dims)) != SCS_OK)
		return rc;
	ex = scs_eval_esize(x->dtype);
	ey = scs_eval_esize(y->dtype);
	for (uint64_t k = 0; k < bc.n; k++, scs_eval_bcast_next(&bc)) {
		val a = load(x->data + bc.off[0] * ex, x->dtype), b = load(y->data + bc.off[1] * ey, y->dtype);
		double base = cx == CL_F ? (double)a.f : a.d;
		double p = cy == CL_F ? (double)b.f : cy == CL_D ? b.d : cy == CL_S ? (double)b.s : (double)b.u;

		if (cx == CL_F)
			a.f = (float)pow(base, p);
		else
			a.d = pow(base, p);
		store(c->out[0].data + k * ex, x->dtype, a);
	}
	c->inexact = 1;
	return SCS_OK;
}

/* ---- Cast ---- */

/* @v of class @from as class @to's value for @dt; 1 when not representable (a float out of an integer's range). */
static int
convert(val v, int from, int dt, val *r)
{
	int to = class_of(dt);
	unsigned width = (unsigned)scs_eval_esize(dt) * 8;
	double d, lo, hi;

	if (dt == SCS_DT_BOOL) {
		r->u = from == CL_F ? v.f != 0 : from == CL_D ? v.d != 0 : v.u != 0;
		return 0;
	}
	if (from == CL_F || from == CL_D) {
		d = from == CL_F ? (double)v.f : v.d;
		if (to == CL_F) {
			r->f = (float)d;             /* a double goes to float16 through float, as ONNX Runtime does */
			return 0;
		}
		if (to == CL_D) {
			r->d = d;
			return 0;
		}
		if (isnan(d))
			return 1;
		lo = to == CL_S ? -ldexp(1.0, (int)width - 1) : 0;
		hi = to == CL_S ? ldexp(1.0, (int)width - 1) : ldexp(1.0, (int)width);
		if (!(d > lo - 1 && d < hi))
			return 1;
		if (to == CL_S)
			r->s = (int64_t)d;
		else
			r->u = (uint64_t)d;
		return 0;
	}
	if (to == CL_F)
		r->f = from == CL_S ? (float)v.s : (float)v.u;
	else if (to == CL_D)
		r->d = from == CL_S ? (double)v.s : (double)v.u;
	else
		r->u = v.u;                      /* integers wrap to the width (store keeps the low bits) */
	return 0;
}

static int
cast_to(scs_eval_call *c, int dt)
{
	const scs_eval_tensor *t = scs_eval_in(c, 0);
	int from, rc;
	size_t ei, eo;

	if (t == NULL)
		return scs_eval_decline(c, "no input");
	from = class_of(t->dtype);
	if (dt == t->dtype && scs_eval_esize(dt))
		return scs_eval_k_identity(c);
	if (from == CL_NONE || class_of(dt) == CL_NONE)
		return scs_eval_decline(c, "a cast from %s to %s", scs_dtype_name(t->dtype), scs_dtype_name(dt));
	if ((rc = scs_eval_out(c, 0, dt, t->rank, t->dims)) != SCS_OK)
		return rc;
	ei = scs_eval_esize(t->dtype);
	eo = scs_eval_esize(dt);
	for (uint64_t k = 0; k < t->n; k++) {
		val r = { 0 };

		if (convert(load(t->data + k * ei, t->dtype), from, dt, &r))
			return scs_eval_decline(c, "element %llu is out of %s's range", (unsigned long long)k,
			    scs_dtype_name(dt));
		store(c->out[0].data + k * eo, dt, r);
	}
	return SCS_OK;
}

int
scs_eval_k_cast(scs_eval_call *c)
{
	const Onnx__AttributeProto *to = scs_eval_attr(c, "to");

	if (to == NULL)
		return scs_eval_decline(c, "no 'to'");
	return cast_to(c, (int)to->i);
}

int
scs_eval_k_cast_like(scs_eval_call *c)
{
	const scs_eval_tensor *like = scs_eval_in(c, 1);

	if (like == NULL)
		return scs_eval_decline(c, "no target_type input");
	return cast_to(c, like->dtype);
}

/* ---- Range ---- */

int
scs_eval_k_range(scs_eval_call *c)
{
	const scs_eval_tensor *s = scs_eval_in(c, 0), *l = scs_eval_in(c, 1), *d = scs_eval_in(c, 2);
	int cl, rc;
	val v, lim, delta;
	double count;
	int64_t n;
	size_t e;

	if (s == NULL || l == NULL || d == NULL || s->n != 1 || l->n != 1 || d->n != 1 || s->dtype != l->dtype ||
	    s->dtype != d->dtype || (cl = class_of(s->dtype)) == CL_NONE || cl == CL_U)
		return scs_eval_decline(c, "Range needs three scalars of one signed type");
	v = load(s->data, s->dtype);
	lim = load(l->data, l->dtype);
	delta = load(d->data, d->dtype);
	/* the count as ONNX Runtime computes it: the difference in the element type, divided in double */
	if (cl == CL_F)
		count = ceil((double)(lim.f - v.f) / (double)delta.f);
	else if (cl == CL_D)
		count = ceil((lim.d - v.d) / delta.d);
	else {
		if ((lim.s > 0 && v.s < lim.s - INT64_MAX) || (lim.s < 0 && v.s > lim.s + INT64_MAX) || delta.s == 0)
			return scs_eval_decline(c, "a range that overflows");
		count = ceil((double)(lim.s - v.s) / (double)delta.s);
	}
	if (isnan(count))
		return scs_eval_decline(c, "a count that is not a number");
	if (count > 9e18)
		return scs_eval_decline(c, "a range of %g elements", count);
	n = count > 0 ? (int64_t)count : 0;
	if ((rc = scs_eval_out(c, 0, s->dtype, 1, &n)) != SCS_OK)
		return rc;
	e = scs_eval_esize(s->dtype);
	for (int64_t k = 0; k < n; k++) {
		store(c->out[0].data + (uint64_t)k * e, s->dtype, v);
		if (cl == CL_F)
			v.f += delta.f;              /* accumulated, as the spec's loop and ONNX Runtime do */
		else if (cl == CL_D)
			v.d += delta.d;
		else
			v.u += delta.u;
	}
	return SCS_OK;
}

/* ---- ReduceSum, ReduceProd ---- */

int
scs_eval_k_reduce(scs_eval_call *c)
{
	const scs_eval_tensor *t = scs_eval_in(c, 0);
	int prodop = strcmp(c->node->op_type, "ReduceProd") == 0, in_from = prodop ? 18 : 13;
	int64_t axes[SCS_EVAL_MAX_RANK], dims[SCS_EVAL_MAX_RANK], odims[SCS_EVAL_MAX_RANK];
	uint64_t idx[SCS_EVAL_MAX_RANK] = { 0 }, ost[SCS_EVAL_MAX_RANK], group = 1;
	int mask[SCS_EVAL_MAX_RANK] = { 0 }, present, cl, rc;
	int keep = (int)scs_eval_attr_int(c, "keepdims", 1);
	size_t n, orank = 0, e;
	val *acc;

	if (t == NULL || (cl = class_of(t->dtype)) == CL_NONE || t->dtype == SCS_DT_BOOL)
		return scs_eval_decline(c, "%s of %s", c->node->op_type, t ? scs_dtype_name(t->dtype) : "nothing");
	if ((rc = scs_eval_ints(c, c->opset >= in_from ? 1 : (size_t)-1, c->opset >= in_from ? NULL : "axes", axes,
	    SCS_EVAL_MAX_RANK, &n, &present)) != SCS_OK)
		return rc;
	if (n == 0 && scs_eval_attr_int(c, "noop_with_empty_axes", 0))
		return scs_eval_k_identity(c);
	for (size_t i = 0; i < n; i++) {
		size_t a;

		if ((rc = scs_eval_axis(c, axes[i], t->rank, &a)) != SCS_OK)
			return rc;
		mask[a] = 1;
	}
	for (size_t a = 0; a < t->rank; a++) {
		if (n == 0)
			mask[a] = 1;
		dims[a] = mask[a] ? 1 : t->dims[a];
		if (mask[a])
			group *= (uint64_t)t->dims[a];
		if (!mask[a] || keep)
			odims[orank++] = dims[a];
	}
	if ((rc = scs_eval_out(c, 0, t->dtype, orank, odims)) != SCS_OK)
		return rc;
	if ((acc = calloc(c->out[0].n ? c->out[0].n : 1, sizeof(*acc))) == NULL)
		return scs_err_set(SCS_ENOMEM, "evaluator: cannot allocate a reduction");
	for (uint64_t k = 0; k < c->out[0].n; k++)
		if (prodop) {
			if (cl == CL_F)
				acc[k].f = 1;
			else if (cl == CL_D)
				acc[k].d = 1;
			else
				acc[k].u = 1;
		}
	scs_eval_strides(dims, t->rank, ost);
	e = scs_eval_esize(t->dtype);
	for (uint64_t k = 0; k < t->n; k++) {
		uint64_t o = 0;
		val v = load(t->data + k * e, t->dtype), *a;

		for (size_t ax = 0; ax < t->rank; ax++)
			o += mask[ax] ? 0 : idx[ax] * ost[ax];
		a = &acc[o];
		if (cl == CL_F)
			a->f = prodop ? a->f * v.f : a->f + v.f;
		else if (cl == CL_D)
			a->d = prodop ? a->d * v.d : a->d + v.d;
		else
			a->u = prodop ? a->u * v.u : a->u + v.u;
		for (size_t ax = t->rank; ax-- > 0;) {
			if (++idx[ax] < (uint64_t)t->dims[ax])
				break;
			idx[ax] = 0;
		}
	}
	for (uint64_t k = 0; k < c->out[0].n; k++)
		store(c->out[0].data + k * e, t->dtype, acc[k]);
	free(acc);
	/* a float sum of more than two terms depends on the order a runtime adds them in */
	c->inexact = (cl == CL_F || cl == CL_D) && group > 2;
	return SCS_OK;
}

/* ---- DequantizeLinear ---- */

int
scs_eval_k_dequantize(scs_eval_call *c)
{
	const scs_eval_tensor *x = scs_eval_in(c, 0), *sc = scs_eval_in(c, 1), *zp = scs_eval_in(c, 2);
	int64_t block = scs_eval_attr_int(c, "block_size", 0);
	uint64_t st[SCS_EVAL_MAX_RANK], idx[SCS_EVAL_MAX_RANK] = { 0 };
	size_t axis = 0, ex, es;
	int per_axis, rc;

	if (x == NULL || sc == NULL)
		return scs_eval_decline(c, "x and x_scale needed");
	if (class_of(x->dtype) != CL_S && class_of(x->dtype) != CL_U)
		return scs_eval_decline(c, "x of %s", scs_dtype_name(x->dtype));
	if (class_of(sc->dtype) != CL_F || (zp && zp->dtype != x->dtype))
		return scs_eval_decline(c, "a scale of %s, a zero point of %s", scs_dtype_name(sc->dtype),
		    zp ? scs_dtype_name(zp->dtype) : "none");
	per_axis = sc->n != 1 || sc->rank > 1 || block > 0;
	if (per_axis && (rc = scs_eval_axis(c, scs_eval_attr_int(c, "axis", 1), x->rank, &axis)) != SCS_OK)
		return rc;
	if (per_axis && block <= 0 && (sc->rank != 1 || sc->dims[0] != x->dims[axis]))
		return scs_eval_decline(c, "a scale of %llu for dim %lld", (unsigned long long)sc->n,
		    (long long)x->dims[axis]);
	if (block > 0) {
		if (sc->rank != x->rank || block > (int64_t)1 << 48)
			return scs_eval_decline(c, "a block scale of rank %zu, blocks of %lld", sc->rank, (long long)block);
		for (size_t a = 0; a < x->rank; a++)
			if (sc->dims[a] != (a == axis ? (x->dims[a] + block - 1) / block : x->dims[a]))
				return scs_eval_decline(c, "a block scale of dim %lld at %zu", (long long)sc->dims[a], a);
	}
	if (zp && (zp->rank != sc->rank || memcmp(zp->dims, sc->dims, sc->rank * sizeof(int64_t)) != 0))
		return scs_eval_decline(c, "zero point and scale differ in shape");
	if ((rc = scs_eval_out(c, 0, sc->dtype, x->rank, x->dims)) != SCS_OK)
		return rc;
	scs_eval_strides(sc->dims, sc->rank, st);
	ex = scs_eval_esize(x->dtype);
	es = scs_eval_esize(sc->dtype);
	for (uint64_t k = 0; k < x->n; k++) {
		uint64_t j = 0;
		val v = load(x->data + k * ex, x->dtype), z = { 0 }, s, y;
		int64_t q = class_of(x->dtype) == CL_S ? v.s : (int64_t)v.u;

		if (block > 0)
			for (size_t a = 0; a < x->rank; a++)
				j += (a == axis ? idx[a] / (uint64_t)block : idx[a]) * st[a];
		else if (per_axis)
			j = idx[axis];
		if (zp)
			z = load(zp->data + j * ex, zp->dtype);
		s = load(sc->data + j * es, sc->dtype);
		q -= class_of(x->dtype) == CL_S ? z.s : (int64_t)z.u;
		y.f = (float)q * s.f;
		store(c->out[0].data + k * es, sc->dtype, y);
		for (size_t a = x->rank; a-- > 0;) {
			if (++idx[a] < (uint64_t)x->dims[a])
				break;
			idx[a] = 0;
		}
	}
	return SCS_OK;
}
