/*
 * eliminate_nop_with_unit.c: an arithmetic node with a constant unit
 * removed, its readers reading the other input, where that gives the same
 * bytes for every input (IEEE 754 arithmetic, round to nearest):
 *
 *   x * 1, 1 * x, x / 1, x ^ 1     x, every x (-0 stays -0); x ^ 1 only for
 *                                  floating point and int32 x (ONNX Runtime
 *                                  takes int64 through double)
 *   x + 0, 0 + x, x - 0            x for integers
 *   x + (-0.0), (-0.0) + x         x for floating point, every x
 *   x - (+0.0)                     x for floating point, every x
 *   x and true, x or false         x (bool)
 *
 * and refused otherwise, with the reason: for floating point x + (+0.0) is
 * +0.0 where x is -0.0, and so is x - (-0.0). (A NaN x comes out NaN; its
 * bits stay for a quiet NaN, a signaling one comes out quiet.) Sub(0, y)
 * becomes Neg(y) (as onnxoptimizer does) where that is exact: for signed
 * integers (0 - y wraps as Neg does), where ONNX Runtime has a Neg kernel
 * for the type. For floating point it is refused: (+0.0) - y is +0.0 for
 * y = +0.0 where Neg(y) is -0.0, and (-0.0) - y, equal to -y elsewhere,
 * keeps the sign of a NaN y where Neg flips it. Every element of the
 * constant must be the unit
 * (read in pieces). The constant must broadcast to the kept input's shape
 * (at most its rank, each dim 1 or the same as the input's known dim), so
 * that the output is neither bigger than the input nor of another rank;
 * the output's element type is the kept input's (the same type, or for Pow
 * the base's). Before opset 7 (broadcast attribute, the second input
 * fitted to the first) only a constant second input is taken: the output
 * then has the first's shape.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <string.h>

#include "onnx/dtype.h"
#include "opt/fuse.h"
#include "opt/opt.h"

enum { UNIT_NO, UNIT_YES, UNIT_WRONG_ZERO };

static int
is_float(int dtype)
{
	return dtype == SCS_DT_FLOAT || dtype == SCS_DT_DOUBLE || dtype == SCS_DT_FLOAT16 || dtype == SCS_DT_BFLOAT16;
}

/* The unit @op needs: 1 (Mul, Div, Pow, And) or 0 (Add, Sub, Or). */
static int
unit_of(const char *op)
{
	return strcmp(op, "Add") != 0 && strcmp(op, "Sub") != 0 && strcmp(op, "Or") != 0;
}

/* Whether every element of @c is @op's unit; UNIT_WRONG_ZERO when each is a zero and some has the
 * sign that changes -0 (floating point). < 0 on error. */
static int
all_unit(scs_opt_ctx *ctx, const scs_opt_const *c, const char *op)
{
	double v[1024];
	int one = unit_of(op), fl = is_float(c->dtype), wrong = 0, r;
	int want_neg = strcmp(op, "Add") == 0;     /* Add keeps -0 with -0.0; Sub with +0.0 */

	for (int64_t at = 0; at < c->n_elems; at += 1024) {
		size_t k = (size_t)(c->n_elems - at < 1024 ? c->n_elems - at : 1024);

		if ((r = scs_opt_read_doubles(ctx, c, (uint64_t)at, k, v)) < 0)
			return r;
		for (size_t i = 0; i < k; i++) {
			if (v[i] != (one ? 1.0 : 0.0))
				return UNIT_NO;
			if (!one && fl && (signbit(v[i]) != 0) != want_neg)
				wrong = 1;
		}
	}
	return wrong ? UNIT_WRONG_ZERO : UNIT_YES;
}

/*
 * Pow's base is of a type ONNX Runtime raises to the power 1 exactly: 1 yes,
 * 0 not (refused), < 0 error. It computes Pow of int64 (and uint64) through
 * double, so a base past 2^53 comes out rounded: x ^ 1 is not x there (seen:
 * 3431000368545368591 ^ 1 gives 3431000368545368576).
 */
static int
pow_base_exact(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node)
{
	scs_vfacts f;
	int r;

	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	if (is_float(f.elem) || f.elem == SCS_DT_INT32)
		return 1;
	return scs_opt_refuse(ctx, scope, node, "the element type of '%s' is %s: ONNX Runtime computes Pow of it through "
	    "double, so x ^ 1 rounds x past 2^53", node->input[0], f.elem > 0 ? scs_dtype_name(f.elem) : "not known");
}

/* Constant @c (input @ci of @node) broadcasts to the other input's shape: 1 yes, 0 not (refused), < 0 error. */
static int
keeps_shape(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const scs_opt_const *c, size_t ci)
{
	const char *x = node->input[1 - ci];
	int64_t dims[SCS_INFER_MAX_RANK];
	scs_vfacts f;
	int r, at;

	if (c->rank > SCS_INFER_MAX_RANK)
		return 0;
	for (size_t i = 0; i < c->rank; i++)
		dims[i] = scs_opt_const_dim(c, i);
	if ((r = scs_opt_facts(ctx, scope, x, &f)) < 0)
		return r;
	switch (scs_opt_broadcast_keeps(&f, dims, c->rank, &at)) {
	case 1:
		return 1;
	case 0:
		return scs_opt_refuse(ctx, scope, node, "'%s' broadcasts '%s' to another shape", node->input[ci], x);
	default:
		if (at < 0)
			return scs_opt_refuse(ctx, scope, node, "the rank of '%s' is not known, so '%s' may broadcast it to "
			    "another shape", x, node->input[ci]);
		return scs_opt_refuse(ctx, scope, node, "dim %d of '%s' is not known, so '%s' may broadcast it to another "
		    "shape", at, x, node->input[ci]);
	}
}

/* Try input @ci of @node as the unit and the other as what remains: 1 done, 0 not, < 0 error. */
static int
try_side(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t ci)
{
	size_t xi = 1 - ci;
	scs_opt_const c;
	char why[512];
	int r;

	if ((r = scs_opt_constant(&c, ctx, scope, node->input[ci], why, sizeof(why))) <= 0)
		return r;     /* not a constant: an ordinary node */
	if (!scs_opt_readable(c.dtype))
		return 0;
	if (strcmp(node->op_type, "And") != 0 && strcmp(node->op_type, "Or") != 0 && c.dtype == SCS_DT_BOOL)
		return 0;
	if ((r = all_unit(ctx, &c, node->op_type)) <= 0)
		return r;
	if (strcmp(node->op_type, "Pow") == 0 && (r = pow_base_exact(ctx, scope, node)) <= 0)
		return r;
	if (r == UNIT_WRONG_ZERO)
		return scs_opt_refuse(ctx, scope, node, "'%s' is 0 with the sign that turns -0.0 into +0.0 (x %s %s0.0 is "
		    "not x for x = -0.0)", node->input[ci], strcmp(node->op_type, "Add") == 0 ? "+" : "-",
		    strcmp(node->op_type, "Add") == 0 ? "+" : "-");
	if (scs_opt_opset(ctx, scope, "") < 7)
		return scs_opt_forward(ctx, scope, node, xi, 0);     /* the second fits the first: the first's shape */
	if ((r = keeps_shape(ctx, scope, node, &c, ci)) <= 0)
		return r;
	return scs_opt_forward(ctx, scope, node, xi, 0);
}

/* Sub(@node's first input, y) as Neg(y): 1 done, 0 not (or refused), < 0 error. */
static int
sub_from_zero(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node)
{
	scs_opt_const c;
	Onnx__NodeProto *neg;
	char why[512];
	int r = 0;

	if (scs_opt_opset(ctx, scope, "") < 7 || (r = scs_opt_constant(&c, ctx, scope, node->input[0], why,
	    sizeof(why))) <= 0)
		return r < 0 ? r : 0;
	if (!scs_opt_readable(c.dtype) || (!is_float(c.dtype) && c.dtype != SCS_DT_INT8 && c.dtype != SCS_DT_INT16 &&
	    c.dtype != SCS_DT_INT32 && c.dtype != SCS_DT_INT64))
		return 0;     /* Neg takes no unsigned type */
	if ((r = all_unit(ctx, &c, "Add")) <= 0)     /* Add's unit: 0, and -0.0 in floating point */
		return r;
	if (r == UNIT_WRONG_ZERO)
		return scs_opt_refuse(ctx, scope, node, "'%s' is +0.0, and +0.0 - y is +0.0 for y = +0.0 where Neg(y) is "
		    "-0.0", node->input[0]);
	if (is_float(c.dtype))
		return scs_opt_refuse(ctx, scope, node, "'%s' is -0.0, and -0.0 - y keeps the sign of a NaN y where Neg(y) "
		    "flips it", node->input[0]);
	if ((r = keeps_shape(ctx, scope, node, &c, 0)) <= 0)
		return r;
	if (!scs_fuse_ort_kernel(ctx, scope, "Neg", "T", c.dtype, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, node, "as Neg: %s", why);
	if ((neg = scs_opt_node_new("Neg", node->name, (const char *const *)&node->input[1], 1,
	    (const char *const *)node->output, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make a Neg node");
	if ((r = scs_opt_insert_node(ctx, scope, node, neg)) < 0 || (r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	r = scs_opt_did(ctx, scope, node, "now Neg('%s'): '%s' is all zeros of the sign that keeps every y",
	    node->input[1], node->input[0]);
	return r < 0 ? r : 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int either = strcmp(node->op_type, "Sub") != 0 && strcmp(node->op_type, "Div") != 0 &&
	    strcmp(node->op_type, "Pow") != 0;
	int r;

	(void)payload;
	if (node->n_input != 2 || !node->input[0][0] || !node->input[1][0] || node->n_output != 1)
		return 0;
	if ((r = try_side(ctx, scope, node, 1)) != 0)
		return r;
	if (strcmp(node->op_type, "Sub") == 0)
		return sub_from_zero(ctx, scope, node);
	if (!either || scs_opt_opset(ctx, scope, "") < 7)
		return 0;
	return try_side(ctx, scope, node, 0);
}

int
scs_opt_eliminate_nop_with_unit(scs_opt_ctx *ctx, int *changed)
{
	static const char *const ops[] = { "Add", "Sub", "Mul", "Div", "Pow", "And", "Or" };
	int r;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if ((r = scs_opt_each_op(ctx, ops[i], one, changed)) < 0)
			return r;
	return 0;
}
