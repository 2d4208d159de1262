/*
 * replace_div_with_mul.c: Div(x, c) by a constant c of floating point
 * becomes Mul(x, 1/c), where that computes the same: every value of c is
 * a power of two (±2^k) whose reciprocal the element type holds exactly
 * (normal or subnormal), so x / c and x * (1/c) are the same real number,
 * rounded once the same way. With the fold_inexact setting (--fold-inexact)
 * any c whose values and reciprocals are finite and not 0 is taken, the
 * reciprocal rounded once to the element type: then the result may differ
 * from the division by a rounding.
 *
 * The reciprocal is a new constant, computed in windows and written in
 * pieces; the old one goes when nothing else reads it. The Div's name and
 * output pass to the Mul.
 *
 * Left alone, with the reason: a divisor that is a graph input (with a
 * default or not), that holds a value that is not a power of two with an
 * exact reciprocal (without --fold-inexact), or 0, inf or NaN; a Div
 * before opset 7 (its own broadcast rules). Integer division and a
 * computed divisor are skipped silently.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onnx/dtype.h"
#include "opt/fuse.h"
#include "util/half.h"

#define MAX_RANK 64

/* @r rounded once to @dtype and back. */
static double
round_to(double r, int dtype)
{
	switch (dtype) {
	case SCS_DT_FLOAT:
		return (double)(float)r;
	case SCS_DT_FLOAT16:
		return (double)scs_half_to_float(scs_half_from_double(r));
	case SCS_DT_BFLOAT16:
		return (double)scs_bf16_to_float(scs_bf16_from_double(r));
	default:
		return r;
	}
}

/* 1 when x / @v may become x * (1 / @v): exactly, or (@inexact) within a rounding; else 0 with the reason. */
static int
divisor_ok(double v, int dtype, int inexact, char *why, size_t why_len)
{
	int e;
	double m = frexp(v, &e), r = 1.0 / v, rr = round_to(r, dtype);

	if (!isfinite(v) || v == 0 || !isfinite(r) || !isfinite(rr) || rr == 0) {
		snprintf(why, why_len, "%g, whose reciprocal is not a finite %s other than 0", v, scs_dtype_name(dtype));
		return 0;
	}
	if (inexact)
		return 1;
	if (fabs(m) != 0.5 || rr != r) {
		snprintf(why, why_len, "%g, not a power of two whose reciprocal %s holds exactly (--fold-inexact allows a "
		    "rounded one)", v, scs_dtype_name(dtype));
		return 0;
	}
	return 1;
}

/* Check every value of @c, then write the reciprocals into *payload; 0 with @why when one is refused. */
static int
reciprocals(uint32_t *payload, scs_opt_ctx *ctx, const scs_opt_const *c, int inexact, char *why, size_t why_len)
{
	scs_fuse_win w;
	scs_opt_writer wr;
	double v, r[256];
	size_t k = 0;
	int rc;

	memset(&wr, 0, sizeof(wr));
	if ((rc = scs_fuse_win_open(&w, ctx, c, 0)) < 0)
		goto done;
	for (uint64_t i = 0; i < (uint64_t)c->n_elems; i++) {
		char what[256];

		if ((rc = scs_fuse_win_get(&w, i, &v)) < 0)
			goto done;
		if (!divisor_ok(v, c->dtype, inexact, what, sizeof(what))) {
			snprintf(why, why_len, "element %llu of the divisor is %s", (unsigned long long)i, what);
			rc = 0;
			goto done;
		}
	}
	if ((rc = scs_opt_writer_open(&wr, ctx, c->dtype)) < 0)
		goto done;
	for (uint64_t i = 0; i < (uint64_t)c->n_elems; i++) {
		if ((rc = scs_fuse_win_get(&w, i, &v)) < 0)
			goto done;
		r[k++] = 1.0 / v;
		if (k == 256 && (rc = scs_opt_writer_put_doubles(&wr, r, k)) < 0)
			goto done;
		k %= 256;
	}
	if ((rc = scs_opt_writer_put_doubles(&wr, r, k)) < 0 || (rc = scs_opt_writer_finish(payload, &wr)) < 0)
		goto done;
	rc = 1;
done:
	scs_opt_writer_abort(&wr);
	scs_fuse_win_close(&w);
	return rc;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *div, void *payload)
{
	int inexact = ctx->settings && ctx->settings->fold_inexact, r, def;
	Onnx__NodeProto *mul;
	Onnx__TensorProto *t;
	scs_opt_const c;
	uint32_t id;
	int64_t dims[MAX_RANK];
	const char *name, *ins[2];
	char why[768], base[512];

	(void)payload;
	if (div->n_input != 2 || !div->input[0][0] || !div->input[1][0] || div->n_output != 1)
		return 0;
	if (!scs_opt_constant(&c, ctx, scope, div->input[1], why, sizeof(why))) {
		def = scs_opt_def_scope(ctx, scope, div->input[1]);
		if (def >= 0 && scs_opt_is_input(ctx, def, div->input[1]))
			SCS_FUSE_REFUSE(ctx, scope, div, "%s", why);
		return 0;
	}
	if (!scs_fuse_is_float(c.dtype))
		return 0;
	if (scs_opt_opset(ctx, scope, "") < 7)
		SCS_FUSE_REFUSE(ctx, scope, div, "Div before opset 7 broadcasts by its own attributes");
	if (c.rank > MAX_RANK)
		SCS_FUSE_REFUSE(ctx, scope, div, "the divisor has %zu axes", c.rank);
	if ((r = reciprocals(&id, ctx, &c, inexact, why, sizeof(why))) <= 0) {
		if (r < 0)
			return r;
		SCS_FUSE_REFUSE(ctx, scope, div, "%s", why);
	}
	snprintf(base, sizeof(base), "%s_reciprocal", div->input[1]);
	if ((r = scs_opt_fresh_name(&name, ctx, base)) < 0)
		return r;
	for (size_t k = 0; k < c.rank; k++)
		dims[k] = scs_opt_const_dim(&c, k);
	if ((t = scs_opt_tensor_new(ctx, name, c.dtype, dims, c.rank, id)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make constant '%s'", name);
	if ((r = scs_opt_add_constant(ctx, scope, t, div)) < 0)
		return r;
	ins[0] = div->input[0];
	ins[1] = name;
	if ((mul = scs_opt_node_new("Mul", div->name, ins, 2, (const char *const *)div->output, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make a Mul node");
	if ((r = scs_opt_insert_node(ctx, scope, div, mul)) < 0 || (r = scs_opt_drop_node(ctx, scope, div)) < 0 ||
	    (r = scs_fuse_drop_unread(ctx, &c, div->input[1], div)) < 0)
		return r;
	if ((r = scs_opt_did(ctx, scope, div, "the division by '%s' became a Mul by its reciprocal '%s'%s", div->input[1],
	    name, inexact ? " (rounded where not exact)" : "")) < 0)
		return r;
	return 1;
}

int
scs_opt_replace_div_with_mul(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Div", one, changed);
}
