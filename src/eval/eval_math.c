/*
 * eval_math.c: the evaluator's kernels that compute: Cast, CastLike, the
 * elementwise arithmetic, comparisons and logic, Min, Max, Range,
 * ReduceSum, ReduceProd, ArgMax, ArgMin, IsNaN, IsInf, DequantizeLinear,
 * and the math library's functions (Exp, Log, Pow, Tanh, Sin, ...: results marked inexact, as a
 * runtime's own implementations round otherwise). The elementwise ones
 * (and Identity and Where) are planned once (scs_eval_ew_plan) and run a
 * window of output elements at a time (scs_eval_ew_run): in memory, the
 * window is every element.
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

#include "eval/eval_impl.h"
#include "util/half.h"
#include "util/num.h"

enum { CL_NONE, CL_F, CL_D, CL_S, CL_U };

/* Inlined where called, so that a call with a constant element type loses its switch (cast_span). */
#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

INLINE int
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

INLINE val
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

INLINE void
store(uint8_t *p, int dt, val v)
{
	uint32_t u32;
	uint64_t u64;

	switch (dt) {
	case SCS_DT_FLOAT:
		memcpy(&u32, &v.f, 4);
		scs_store_le32(p, u32);
		break;
	case SCS_DT_FLOAT16: scs_store_le16(p, scs_half_from_float(v.f)); break;
	case SCS_DT_BFLOAT16: scs_store_le16(p, scs_bf16_from_float(v.f)); break;
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

/*
 * Results whose bits a runtime chooses: a NaN (its payload and sign depend
 * on the operand order a kernel's vector code uses, on the host's default
 * NaN, and a signalling NaN is made quiet or not), and the sign of a zero
 * Min, Max or Where picks (ONNX Runtime's Where turns a chosen -0 into +0,
 * its Max(+0, -0) and Min(+0, -0) take either). Folds meeting one decline.
 */
INLINE int
is_nan(int cl, val v)
{
	return (cl == CL_F && isnan(v.f)) || (cl == CL_D && isnan(v.d));
}

INLINE int
is_neg_zero(int cl, val v)
{
	return (cl == CL_F && v.f == 0 && signbit(v.f)) || (cl == CL_D && v.d == 0 && signbit(v.d));
}

/* 1 when Min or Max of @a and @b is a tie of zeros of either sign. */
INLINE int
zero_tie(int cl, val a, val b)
{
	return (cl == CL_F && a.f == 0 && b.f == 0 && !signbit(a.f) != !signbit(b.f)) ||
	    (cl == CL_D && a.d == 0 && b.d == 0 && !signbit(a.d) != !signbit(b.d));
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

/* @v (of class @cl) through unary operator @op (not a math library's function). */
static void
unary_apply(const char *op, int cl, val *v)
{
	switch (op[0]) {
	case 'A':                        /* Abs */
		if (cl == CL_F)
			v->f = fabsf(v->f);
		else if (cl == CL_D)
			v->d = fabs(v->d);
		else if (cl == CL_S && v->s < 0)
			v->u = 0 - v->u;
		break;
	case 'N':
		if (op[1] == 'o')            /* Not */
			v->u = !v->u;
		else if (cl == CL_F)
			v->f = -v->f;
		else if (cl == CL_D)
			v->d = -v->d;
		else
			v->u = 0 - v->u;
		break;
	case 'S':                        /* Sqrt */
		if (cl == CL_F)
			v->f = sqrtf(v->f);
		else
			v->d = sqrt(v->d);
		break;
	default:                         /* Reciprocal */
		if (cl == CL_F)
			v->f = 1.0f / v->f;
		else
			v->d = 1.0 / v->d;
		break;
	}
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
		if (isnan(base) || isnan(p) || is_nan(cx, a))
			return scs_eval_decline(c, "a NaN at element %llu (a runtime chooses its bits)", (unsigned long long)k);
		store(c->out[0].data + k * ex, x->dtype, a);
	}
	c->inexact = 1;
	return SCS_OK;
}

/* ---- Cast ---- */

/*
 * @v of class @from as class @to's value for @dt; 1 when not representable
 * (a float out of an integer's range), 2 for a NaN between float types
 * (whether a signalling one stays signalling depends on the runtime's
 * conversion: ONNX Runtime keeps float16's, the F16C instruction does not).
 */
INLINE int
convert(val v, int from, int dt, val *r)
{
	int to = class_of(dt);
	unsigned width;
	double d, lo, hi, half;

	if (dt == SCS_DT_BOOL) {
		r->u = from == CL_F ? v.f != 0 : from == CL_D ? v.d != 0 : v.u != 0;
		return 0;
	}
	if (from == CL_F || from == CL_D) {
		d = from == CL_F ? (double)v.f : v.d;
		if ((to == CL_F || to == CL_D) && isnan(d))
			return 2;
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
		width = (unsigned)scs_eval_esize(dt) * 8;
		/* 2^(width-1) and 2^width exactly, without a call to the math library per element */
		half = (double)((uint64_t)1 << (width - 1));
		lo = to == CL_S ? -half : 0;
		hi = to == CL_S ? half : 2 * half;
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

/* ---- elementwise: planned once, run a window at a time ---- */

enum { EW_COPY, EW_UNARY, EW_CAST, EW_BINARY, EW_WHERE, EW_DEQUANTIZE };
enum { DQ_TENSOR, DQ_AXIS, DQ_BLOCK };

static const char *const unary_names[] = { "Abs", "Neg", "Not", "Reciprocal", "Sqrt" };

static int
is_unary(const char *op)
{
	for (size_t i = 0; i < sizeof(unary_names) / sizeof(unary_names[0]); i++)
		if (strcmp(unary_names[i], op) == 0)
			return 1;
	return is_lib(op);
}

int
scs_eval_ew_has(const char *op)
{
	return op && (is_unary(op) || bin_op(op) >= 0 || strcmp(op, "Identity") == 0 || strcmp(op, "Cast") == 0 ||
	    strcmp(op, "CastLike") == 0 || strcmp(op, "Where") == 0 || strcmp(op, "DequantizeLinear") == 0);
}

/* Operands: inputs @idx of @c, broadcast to the output's dims; *p's output of @odt, under c->max_bytes. */
static int
ew_operands(scs_eval_ew *p, scs_eval_call *c, int fn, int odt, const size_t *idx, size_t k)
{
	const scs_eval_tensor *t[SCS_EVAL_EW_MAX];
	uint64_t bytes;
	int rc;

	for (size_t j = 0; j < k; j++) {
		p->in[j] = idx[j];
		t[j] = &c->in[idx[j]];
	}
	p->k = k;
	p->fn = fn;
	p->odt = odt;
	if ((rc = scs_eval_bcast_init(c, &p->bc, t, k, NULL, 0)) != SCS_OK)
		return rc;
	p->rank = p->bc.rank;
	memcpy(p->dims, p->bc.dims, sizeof(p->dims));
	if ((rc = scs_eval_size(&bytes, &p->n, odt, p->rank, p->dims, c->max_bytes, 0, c->why, c->why_len)) != SCS_OK)
		return rc;
	for (size_t j = 0; j < k; j++)
		p->full[j] = t[j]->n == p->n;
	return SCS_OK;
}

static int
plan_cast(scs_eval_ew *p, scs_eval_call *c, int dt)
{
	const scs_eval_tensor *t = scs_eval_in(c, 0);
	static const size_t in0[1] = { 0 };

	if (t == NULL)
		return scs_eval_decline(c, "no input");
	if (dt == t->dtype && scs_eval_esize(dt))
		return ew_operands(p, c, EW_COPY, dt, in0, 1);
	p->cl = class_of(t->dtype);
	if (p->cl == CL_NONE || class_of(dt) == CL_NONE)
		return scs_eval_decline(c, "a cast from %s to %s", scs_dtype_name(t->dtype), scs_dtype_name(dt));
	return ew_operands(p, c, EW_CAST, dt, in0, 1);
}

static int
plan_unary(scs_eval_ew *p, scs_eval_call *c)
{
	const char *op = c->node->op_type;
	const scs_eval_tensor *t = scs_eval_in(c, 0);
	static const size_t in0[1] = { 0 };
	int lib = is_lib(op);

	if (t == NULL)
		return scs_eval_decline(c, "no input");
	p->cl = class_of(t->dtype);
	if (p->cl == CL_NONE || (strcmp(op, "Not") == 0) != (t->dtype == SCS_DT_BOOL) ||
	    ((lib || strcmp(op, "Sqrt") == 0 || strcmp(op, "Reciprocal") == 0) && p->cl != CL_F && p->cl != CL_D))
		return scs_eval_decline(c, "%s of %s", op, scs_dtype_name(t->dtype));
	p->op = lib;
	/* a runtime computes the math library's functions with its own, rounding otherwise */
	c->inexact = lib;
	return ew_operands(p, c, EW_UNARY, t->dtype, in0, 1);
}

/* The binary operators, and Min and Max of up to SCS_EVAL_EW_MAX inputs (folded left). */
static int
plan_binary(scs_eval_ew *p, scs_eval_call *c)
{
	const char *op = c->node->op_type;
	static const size_t idx[SCS_EVAL_EW_MAX] = { 0, 1, 2, 3 };
	int variadic = strcmp(op, "Min") == 0 || strcmp(op, "Max") == 0;
	const scs_eval_tensor *a = scs_eval_in(c, 0);

	p->op = bin_op(op);
	if (!variadic && (c->n_in != 2 || !c->in[0].dtype || !c->in[1].dtype))
		return scs_eval_decline(c, "%s needs two inputs", op);
	if (a == NULL)
		return scs_eval_decline(c, "no inputs");
	if (c->n_in > SCS_EVAL_EW_MAX)
		return scs_eval_decline(c, "%s of %zu inputs", op, c->n_in);
	if (c->opset < 7 && scs_eval_attr(c, "broadcast") && (c->in[0].rank != c->in[1].rank ||
	    memcmp(c->in[0].dims, c->in[1].dims, c->in[0].rank * sizeof(int64_t)) != 0))
		return scs_eval_decline(c, "the broadcast of opset %lld", (long long)c->opset);
	p->cl = class_of(a->dtype);
	if (variadic && p->cl == CL_NONE)
		return scs_eval_decline(c, "%s of %s", op, scs_dtype_name(a->dtype));
	for (size_t i = 1; i < c->n_in; i++) {
		if (!c->in[i].dtype)
			return scs_eval_decline(c, "input %zu is missing", i);
		if (p->cl == CL_NONE || c->in[i].dtype != a->dtype)
			return scs_eval_decline(c, "%s of %s and %s", op, scs_dtype_name(a->dtype),
			    scs_dtype_name(c->in[i].dtype));
	}
	if (p->op >= OP_AND && a->dtype != SCS_DT_BOOL)
		return scs_eval_decline(c, "%s of %s", op, scs_dtype_name(a->dtype));
	if (c->n_in == 1)
		return ew_operands(p, c, EW_COPY, a->dtype, idx, 1);
	return ew_operands(p, c, EW_BINARY, p->op >= OP_EQ ? SCS_DT_BOOL : a->dtype, idx, c->n_in);
}

static int
plan_where(scs_eval_ew *p, scs_eval_call *c)
{
	static const size_t idx[3] = { 0, 1, 2 };

	for (size_t i = 0; i < 3; i++)
		if (scs_eval_in(c, i) == NULL)
			return scs_eval_decline(c, "input %zu is missing", i);
	if (c->in[0].dtype != SCS_DT_BOOL || c->in[1].dtype != c->in[2].dtype)
		return scs_eval_decline(c, "types %s, %s, %s", scs_dtype_name(c->in[0].dtype), scs_dtype_name(c->in[1].dtype),
		    scs_dtype_name(c->in[2].dtype));
	return ew_operands(p, c, EW_WHERE, c->in[1].dtype, idx, 3);
}

/* DequantizeLinear per tensor, per axis or by blocks: x streams; the scale and zero point are indexed from x's. */
static int
plan_dequantize(scs_eval_ew *p, scs_eval_call *c)
{
	const scs_eval_tensor *x = scs_eval_in(c, 0), *sc = scs_eval_in(c, 1), *zp = scs_eval_in(c, 2);
	static const size_t idx[3] = { 0, 1, 2 };
	int rc;

	p->block = scs_eval_attr_int(c, "block_size", 0);
	if (x == NULL || sc == NULL)
		return scs_eval_decline(c, "x and x_scale needed");
	p->cl = class_of(x->dtype);
	if (p->cl != CL_S && p->cl != CL_U)
		return scs_eval_decline(c, "x of %s", scs_dtype_name(x->dtype));
	if (class_of(sc->dtype) != CL_F || (zp && zp->dtype != x->dtype))
		return scs_eval_decline(c, "a scale of %s, a zero point of %s", scs_dtype_name(sc->dtype),
		    zp ? scs_dtype_name(zp->dtype) : "none");
	p->op = p->block > 0 ? DQ_BLOCK : sc->n != 1 || sc->rank > 1 ? DQ_AXIS : DQ_TENSOR;
	if (p->op != DQ_TENSOR && (rc = scs_eval_axis(c, scs_eval_attr_int(c, "axis", 1), x->rank, &p->axis)) != SCS_OK)
		return rc;
	if (p->op == DQ_AXIS && (sc->rank != 1 || sc->dims[0] != x->dims[p->axis]))
		return scs_eval_decline(c, "a scale of %llu for dim %lld", (unsigned long long)sc->n,
		    (long long)x->dims[p->axis]);
	if (p->op == DQ_BLOCK) {
		if (sc->rank != x->rank || p->block > (int64_t)1 << 48)
			return scs_eval_decline(c, "a block scale of rank %zu, blocks of %lld", sc->rank, (long long)p->block);
		for (size_t a = 0; a < x->rank; a++)
			if (sc->dims[a] != (a == p->axis ? (x->dims[a] + p->block - 1) / p->block : x->dims[a]))
				return scs_eval_decline(c, "a block scale of dim %lld at %zu", (long long)sc->dims[a], a);
	}
	if (zp && (zp->rank != sc->rank || memcmp(zp->dims, sc->dims, sc->rank * sizeof(int64_t)) != 0))
		return scs_eval_decline(c, "zero point and scale differ in shape");
	/* only x broadcasts (onto itself): the others are indexed by x's multi-index */
	if ((rc = ew_operands(p, c, EW_DEQUANTIZE, sc->dtype, idx, 1)) != SCS_OK)
		return rc;
	p->k = zp ? 3 : 2;
	p->in[1] = 1;
	p->in[2] = 2;
	p->full[1] = p->full[2] = 0;
	scs_eval_strides(sc->dims, sc->rank, p->st);
	return SCS_OK;
}

int
scs_eval_ew_plan(scs_eval_ew *p, scs_eval_call *c)
{
	const char *op = c->node->op_type;
	const Onnx__AttributeProto *to;
	static const size_t in0[1] = { 0 };

	memset(p, 0, sizeof(*p));
	if (strcmp(op, "Identity") == 0) {
		if (scs_eval_in(c, 0) == NULL)
			return scs_eval_decline(c, "input 0 is missing");
		return ew_operands(p, c, EW_COPY, c->in[0].dtype, in0, 1);
	}
	if (strcmp(op, "Cast") == 0) {
		if ((to = scs_eval_attr(c, "to")) == NULL)
			return scs_eval_decline(c, "no 'to'");
		return plan_cast(p, c, (int)to->i);
	}
	if (strcmp(op, "CastLike") == 0) {
		if (scs_eval_in(c, 1) == NULL)
			return scs_eval_decline(c, "no target_type input");
		return plan_cast(p, c, c->in[1].dtype);
	}
	if (strcmp(op, "Where") == 0)
		return plan_where(p, c);
	if (strcmp(op, "DequantizeLinear") == 0)
		return plan_dequantize(p, c);
	if (is_unary(op))
		return plan_unary(p, c);
	if (bin_op(op) >= 0)
		return plan_binary(p, c);
	return scs_eval_decline(c, "%s is not elementwise", op);
}

/* One output element of a DequantizeLinear (@x at x's multi-index @idx; @s, @z the whole scale and zero point). */
static val
dequantize(const scs_eval_ew *p, const uint64_t *idx, const uint8_t *x, int xdt, const uint8_t *s, int sdt,
    const uint8_t *z)
{
	uint64_t j = 0;
	val v = load(x, xdt), zv = { 0 }, sv, y;
	int64_t q = p->cl == CL_S ? v.s : (int64_t)v.u;

	if (p->op == DQ_BLOCK)
		for (size_t a = 0; a < p->rank; a++)
			j += (a == p->axis ? idx[a] / (uint64_t)p->block : idx[a]) * p->st[a];
	else if (p->op == DQ_AXIS)
		j = idx[p->axis];
	if (z)
		zv = load(z + j * scs_eval_esize(xdt), xdt);
	sv = load(s + j * scs_eval_esize(sdt), sdt);
	q -= p->cl == CL_S ? zv.s : (int64_t)zv.u;
	y.f = (float)q * sv.f;
	return y;
}

/*
 * @count elements of element type @from (class @cl, @ex bytes) at @x cast
 * to @odt (@eo bytes) at @o: convert()'s 1 or 2 with *bad at the element it refuses.
 * Inlined: called with constant types, the compiler drops the switches.
 */
INLINE int
cast_span(const uint8_t *x, int from, int cl, size_t ex, int odt, size_t eo, uint8_t *o, uint64_t count, uint64_t *bad)
{
	for (uint64_t i = 0; i < count; i++) {
		val r = { 0 };
		int rc = convert(load(x + i * ex, from), cl, odt, &r);

		if (rc) {
			*bad = i;
			return rc;
		}
		store(o + i * eo, odt, r);
	}
	return 0;
}

/* A Cast (its operand always in step with the output): the common pairs with constant types. */
static int
cast_run(const scs_eval_ew *p, scs_eval_call *c, uint64_t first, uint64_t count, const uint8_t *x, uint8_t *o)
{
	int from = c->in[p->in[0]].dtype, r;
	uint64_t bad = 0;

	if (from == SCS_DT_FLOAT && p->odt == SCS_DT_FLOAT16)
		r = cast_span(x, SCS_DT_FLOAT, CL_F, 4, SCS_DT_FLOAT16, 2, o, count, &bad);
	else if (from == SCS_DT_FLOAT && p->odt == SCS_DT_BFLOAT16)
		r = cast_span(x, SCS_DT_FLOAT, CL_F, 4, SCS_DT_BFLOAT16, 2, o, count, &bad);
	else if (from == SCS_DT_FLOAT16 && p->odt == SCS_DT_FLOAT)
		r = cast_span(x, SCS_DT_FLOAT16, CL_F, 2, SCS_DT_FLOAT, 4, o, count, &bad);
	else if (from == SCS_DT_FLOAT && p->odt == SCS_DT_INT32)
		r = cast_span(x, SCS_DT_FLOAT, CL_F, 4, SCS_DT_INT32, 4, o, count, &bad);
	else if (from == SCS_DT_INT64 && p->odt == SCS_DT_INT32)
		r = cast_span(x, SCS_DT_INT64, CL_S, 8, SCS_DT_INT32, 4, o, count, &bad);
	else
		r = cast_span(x, from, p->cl, scs_eval_esize(from), p->odt, scs_eval_esize(p->odt), o, count, &bad);
	if (r == 2)
		return scs_eval_decline(c, "element %llu is a NaN (a runtime chooses its bits in %s)",
		    (unsigned long long)(first + bad), scs_dtype_name(p->odt));
	if (r)
		return scs_eval_decline(c, "element %llu is out of %s's range", (unsigned long long)(first + bad),
		    scs_dtype_name(p->odt));
	return SCS_OK;
}

int
scs_eval_ew_run(const scs_eval_ew *p, scs_eval_call *c, uint64_t first, uint64_t count, const uint8_t *const *in,
    uint8_t *out)
{
	scs_eval_bcast b;
	size_t e[SCS_EVAL_EW_MAX] = { 0 }, eo = scs_eval_esize(p->odt);
	int dt[SCS_EVAL_EW_MAX], width, walk = p->fn == EW_DEQUANTIZE && p->op != DQ_TENSOR;

	for (size_t j = 0; j < p->k; j++) {
		dt[j] = c->in[p->in[j]].dtype;
		e[j] = scs_eval_esize(dt[j]);
		/* an operand neither in step with the output nor a single element: follow the broadcast */
		walk |= j < p->bc.k && !p->full[j] && c->in[p->in[j]].n != 1;
	}
	width = (int)e[0] * 8;
	if (p->fn == EW_COPY) {
		if (count)
			memcpy(out, in[0], count * eo);
		return SCS_OK;
	}
	if (p->fn == EW_CAST)
		return cast_run(p, c, first, count, in[0], out);
	if (walk) {
		b = p->bc;
		scs_eval_bcast_seek(&b, first);
	}
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *x[SCS_EVAL_EW_MAX];
		uint8_t *o = out + i * eo;
		val r = { 0 }, b2;

		for (size_t j = 0; j < p->k; j++)
			x[j] = in[j] + (p->full[j] ? i * e[j] : walk && j < p->bc.k ? b.off[j] * e[j] : 0);
		switch (p->fn) {
		case EW_UNARY:
			r = load(x[0], dt[0]);
			if (is_nan(p->cl, r))
				return scs_eval_decline(c, "a NaN at element %llu (a runtime chooses its bits)",
				    (unsigned long long)(first + i));
			if (p->op && p->cl == CL_F)
				r.f = (float)math1(c->node->op_type, (double)r.f);
			else if (p->op)
				r.d = math1(c->node->op_type, r.d);
			else
				unary_apply(c->node->op_type, p->cl, &r);
			if (is_nan(p->cl, r))
				return scs_eval_decline(c, "a NaN made at element %llu (a runtime chooses its bits)",
				    (unsigned long long)(first + i));
			store(o, p->odt, r);
			break;
		case EW_BINARY:
			r = load(x[0], dt[0]);
			for (size_t j = 1; j < p->k; j++) {
				uint8_t tmp[8];

				if (j > 1) {
					/* Min and Max of more: each step's result in the element type, as pairwise */
					store(tmp, dt[0], r);
					r = load(tmp, dt[0]);
				}
				b2 = load(x[j], dt[j]);
				if (p->op < OP_EQ && (is_nan(p->cl, r) || is_nan(p->cl, b2) ||
				    ((p->op == OP_MIN || p->op == OP_MAX) && zero_tie(p->cl, r, b2))))
					return scs_eval_decline(c, "a %s at element %llu (a runtime chooses the result's bits)",
					    zero_tie(p->cl, r, b2) ? "tie of +0 and -0" : "NaN", (unsigned long long)(first + i));
				if (bin_apply(p->op, p->cl, width, r, b2, &r))
					return scs_eval_decline(c, "integer division by zero or overflow at element %llu",
					    (unsigned long long)(first + i));
			}
			if (p->op < OP_EQ && is_nan(p->cl, r))
				return scs_eval_decline(c, "a NaN made at element %llu (a runtime chooses its bits)",
				    (unsigned long long)(first + i));
			store(o, p->odt, r);
			break;
		case EW_WHERE:
			b2 = load(x[x[0][0] ? 1 : 2], p->odt);
			if (is_nan(class_of(p->odt), b2) || is_neg_zero(class_of(p->odt), b2))
				return scs_eval_decline(c, "a %s chosen at element %llu (ONNX Runtime's Where may change its bits)",
				    is_nan(class_of(p->odt), b2) ? "NaN" : "-0", (unsigned long long)(first + i));
			memcpy(o, x[x[0][0] ? 1 : 2], eo);
			break;
		default:
			store(o, p->odt, dequantize(p, walk ? b.idx : NULL, x[0], dt[0], in[1], dt[1], p->k > 2 ? in[2] : NULL));
			break;
		}
		if (walk)
			scs_eval_bcast_next(&b);
	}
	return SCS_OK;
}

int
scs_eval_k_elementwise(scs_eval_call *c)
{
	const uint8_t *in[SCS_EVAL_EW_MAX];
	scs_eval_ew p;
	int rc;

	if ((rc = scs_eval_ew_plan(&p, c)) != SCS_OK || (rc = scs_eval_out(c, 0, p.odt, p.rank, p.dims)) != SCS_OK)
		return rc;
	for (size_t j = 0; j < p.k; j++)
		in[j] = c->in[p.in[j]].data;
	return scs_eval_ew_run(&p, c, 0, p.n, in, c->out[0].data);
}

/* Min and Max of more inputs than a plan takes: pairwise, the result so far with the next input. */
int
scs_eval_k_variadic(scs_eval_call *c)
{
	scs_eval_tensor pair[2], r;
	scs_eval_call two;
	int rc = SCS_OK;

	if (c->n_in <= SCS_EVAL_EW_MAX)
		return scs_eval_k_elementwise(c);
	if (c->n_out < 1)
		return scs_eval_decline(c, "output 0 is not named");
	two = *c;
	two.in = pair;
	two.n_in = 2;
	two.out = &r;
	two.n_out = 1;
	pair[0] = c->in[0];
	for (size_t i = 1; i < c->n_in && rc == SCS_OK; i++) {
		pair[1] = c->in[i];
		memset(&r, 0, sizeof(r));
		rc = scs_eval_k_elementwise(&two);
		if (i > 1)
			scs_eval_tensor_free(&pair[0]);
		pair[0] = r;
	}
	if (rc != SCS_OK) {
		scs_eval_tensor_free(&r);
		return rc;
	}
	c->out[0] = r;
	return SCS_OK;
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
	    s->dtype != d->dtype)
		return scs_eval_decline(c, "Range needs three scalars of one type");
	/* the schema's types (ONNX Runtime refuses a model with others) */
	if (s->dtype != SCS_DT_FLOAT && s->dtype != SCS_DT_DOUBLE && s->dtype != SCS_DT_INT16 &&
	    s->dtype != SCS_DT_INT32 && s->dtype != SCS_DT_INT64)
		return scs_eval_decline(c, "Range of %s", scs_dtype_name(s->dtype));
	cl = class_of(s->dtype);
	v = load(s->data, s->dtype);
	lim = load(l->data, l->dtype);
	delta = load(d->data, d->dtype);
	/* the count as ONNX Runtime computes it: ceil((limit - start) / delta), all in double */
	if (cl == CL_F)
		count = ceil(((double)lim.f - (double)v.f) / (double)delta.f);
	else if (cl == CL_D)
		count = ceil((lim.d - v.d) / delta.d);
	else {
		if ((lim.s > 0 && v.s < lim.s - INT64_MAX) || (lim.s < 0 && v.s > lim.s + INT64_MAX) || delta.s == 0)
			return scs_eval_decline(c, "a range that overflows");
		/* each bound in double first, as ONNX Runtime does: Range(INT64_MAX - 5,
		 * INT64_MAX, 2) is empty there, both bounds being 2^63 in double */
		count = ceil(((double)lim.s - (double)v.s) / (double)delta.s);
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

/*
 * One step of an integer sum or product (*@a += or *= @v), declined once a
 * partial result leaves the element type or passes 2^53 either way: there
 * ONNX Runtime's result is not the exact one (it saturates, or rounds an
 * int64 sum through double), so no fold can give its bits.
 */
static int
int_partial(scs_eval_call *c, int dtype, int cl, int prodop, val *a, val v)
{
	const int64_t exact = (int64_t)1 << 53;
	int64_t lo = -exact, hi = exact, r;
	int over;

	if (cl == CL_U) {
		uint64_t u;

		over = prodop ? __builtin_mul_overflow(a->u, v.u, &u) : __builtin_add_overflow(a->u, v.u, &u);
		if (over || u > (uint64_t)exact || (scs_eval_esize(dtype) < 8 && u >> (8 * scs_eval_esize(dtype))))
			return scs_eval_decline(c, "an integer %s past what the element type or a double holds exactly",
			    prodop ? "product" : "sum");
		a->u = u;
		return SCS_OK;
	}
	if (scs_eval_esize(dtype) < 8) {
		hi = ((int64_t)1 << (8 * scs_eval_esize(dtype) - 1)) - 1;
		lo = -hi - 1;
	}
	over = prodop ? __builtin_mul_overflow(a->s, v.s, &r) : __builtin_add_overflow(a->s, v.s, &r);
	if (over || r < lo || r > hi)
		return scs_eval_decline(c, "an integer %s past what the element type or a double holds exactly",
		    prodop ? "product" : "sum");
	a->s = r;
	return SCS_OK;
}

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
	if (c->max_hold && c->out[0].n > c->max_hold / sizeof(*acc)) {
		scs_eval_decline(c, "a sum too large to hold: %llu bytes", (unsigned long long)(c->out[0].n * sizeof(*acc)));
		return SCS_EVAL_TOO_LARGE;
	}
	if ((acc = scs_eval_alloc((size_t)(c->out[0].n ? c->out[0].n : 1) * sizeof(*acc))) == NULL)
		return scs_err_set(SCS_ENOMEM, "evaluator: cannot allocate a reduction");
	/* a sum starts at -0 (-0 + x is x for every x, -0 too); an empty one is +0, as in ONNX Runtime */
	for (uint64_t k = 0; k < c->out[0].n; k++)
		if (prodop) {
			if (cl == CL_F)
				acc[k].f = 1;
			else if (cl == CL_D)
				acc[k].d = 1;
			else
				acc[k].u = 1;
		} else if (group > 0) {
			if (cl == CL_F)
				acc[k].f = -0.0f;
			else if (cl == CL_D)
				acc[k].d = -0.0;
		}
	scs_eval_strides(dims, t->rank, ost);
	e = scs_eval_esize(t->dtype);
	for (uint64_t k = 0; k < t->n; k++) {
		uint64_t o = 0;
		val v = load(t->data + k * e, t->dtype), *a;

		if (is_nan(cl, v)) {
			free(acc);
			return scs_eval_decline(c, "a NaN at element %llu (a runtime chooses the result's bits)",
			    (unsigned long long)k);
		}

		for (size_t ax = 0; ax < t->rank; ax++)
			o += mask[ax] ? 0 : idx[ax] * ost[ax];
		a = &acc[o];
		if (cl == CL_F)
			a->f = prodop ? a->f * v.f : a->f + v.f;
		else if (cl == CL_D)
			a->d = prodop ? a->d * v.d : a->d + v.d;
		else if (int_partial(c, t->dtype, cl, prodop, a, v) != SCS_OK) {
			free(acc);
			return SCS_EVAL_DECLINED;
		}
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

/* ---- ArgMax, ArgMin ---- */

/* -1, 0 or 1 as @a is below, equal to or above @b (no NaN; -0 equals +0). */
INLINE int
compare(int cl, val a, val b)
{
	switch (cl) {
	case CL_F: return a.f < b.f ? -1 : a.f > b.f;
	case CL_D: return a.d < b.d ? -1 : a.d > b.d;
	case CL_S: return a.s < b.s ? -1 : a.s > b.s;
	default: return a.u < b.u ? -1 : a.u > b.u;
	}
}

/*
 * The index of the largest (ArgMax) or smallest (ArgMin) element along
 * axis, int64: the first of equals, or the last with select_last_index
 * (opset 12). An axis of no elements has no answer (ONNX Runtime refuses
 * it), and a NaN none the spec gives: both decline.
 */
int
scs_eval_k_arg(scs_eval_call *c)
{
	const scs_eval_tensor *t = scs_eval_in(c, 0);
	int minop = strcmp(c->node->op_type, "ArgMin") == 0, cl, rc;
	int keep = (int)scs_eval_attr_int(c, "keepdims", 1);
	int last = c->opset >= 12 && scs_eval_attr_int(c, "select_last_index", 0);
	int64_t odims[SCS_EVAL_MAX_RANK];
	uint64_t outer = 1, inner = 1, len;
	size_t a, orank = 0, e;

	if (t == NULL || (cl = class_of(t->dtype)) == CL_NONE || t->dtype == SCS_DT_BOOL)
		return scs_eval_decline(c, "%s of %s", c->node->op_type, t ? scs_dtype_name(t->dtype) : "nothing");
	if (t->rank == 0)
		return scs_eval_decline(c, "%s of a scalar", c->node->op_type);
	if ((rc = scs_eval_axis(c, scs_eval_attr_int(c, "axis", 0), t->rank, &a)) != SCS_OK)
		return rc;
	if (t->dims[a] == 0)
		return scs_eval_decline(c, "%s along an axis of no elements", c->node->op_type);
	for (size_t ax = 0; ax < t->rank; ax++) {
		if (ax < a)
			outer *= (uint64_t)t->dims[ax];
		else if (ax > a)
			inner *= (uint64_t)t->dims[ax];
		if (ax != a || keep)
			odims[orank++] = ax == a ? 1 : t->dims[ax];
	}
	len = (uint64_t)t->dims[a];
	e = scs_eval_esize(t->dtype);
	for (uint64_t k = 0; k < t->n; k++)
		if (is_nan(cl, load(t->data + k * e, t->dtype)))
			return scs_eval_decline(c, "a NaN at element %llu (the spec gives no index for it)",
			    (unsigned long long)k);
	if ((rc = scs_eval_out(c, 0, SCS_DT_INT64, orank, odims)) != SCS_OK)
		return rc;
	for (uint64_t o = 0; o < outer; o++)
		for (uint64_t i = 0; i < inner; i++) {
			const uint8_t *base = t->data + (o * len * inner + i) * e;
			val best = load(base, t->dtype);
			uint64_t at = 0;

			for (uint64_t j = 1; j < len; j++) {
				val v = load(base + j * inner * e, t->dtype);
				int s = compare(cl, v, best);

				if (minop)
					s = -s;
				if (s > 0 || (s == 0 && last)) {
					best = v;
					at = j;
				}
			}
			scs_store_le64(c->out[0].data + (o * inner + i) * 8, at);
		}
	return SCS_OK;
}

/* ---- IsNaN, IsInf ---- */

/* bool of each element: a NaN (IsNaN); an infinity of a sign detect_positive / detect_negative asks for (IsInf). */
int
scs_eval_k_isx(scs_eval_call *c)
{
	const scs_eval_tensor *t = scs_eval_in(c, 0);
	int nanop = strcmp(c->node->op_type, "IsNaN") == 0, cl, rc;
	int pos = (int)scs_eval_attr_int(c, "detect_positive", 1), neg = (int)scs_eval_attr_int(c, "detect_negative", 1);
	size_t e;

	if (t == NULL || ((cl = class_of(t->dtype)) != CL_F && cl != CL_D))
		return scs_eval_decline(c, "%s of %s", c->node->op_type, t ? scs_dtype_name(t->dtype) : "nothing");
	if ((rc = scs_eval_out(c, 0, SCS_DT_BOOL, t->rank, t->dims)) != SCS_OK)
		return rc;
	e = scs_eval_esize(t->dtype);
	for (uint64_t k = 0; k < t->n; k++) {
		double v = scs_eval_load_float(t->data + k * e, t->dtype);

		c->out[0].data[k] = nanop ? isnan(v) != 0 : isinf(v) && (v > 0 ? pos : neg);
	}
	return SCS_OK;
}
