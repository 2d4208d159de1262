/*
 * fuse_consecutive_reduce_unsqueeze.c: a reduction (ReduceL1, ReduceL2,
 * ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMean, ReduceMin,
 * ReduceProd, ReduceSum, ReduceSumSquare) with keepdims 0 followed by an
 * Unsqueeze that puts back exactly the reduced axes is the reduction with
 * keepdims 1: same values, same shape. Both axes lists count from the rank
 * of the reduction's input x (the Unsqueeze's output has that rank again);
 * negative axes are made non-negative with it, and the pair is left alone
 * when it is not known. A reduction without axes reduces every axis
 * (fused when the rank is known), unless noop_with_empty_axes makes it
 * reduce none (left alone). Axes are the attribute, or from opset 13
 * (ReduceSum, Unsqueeze) or 18 (the other reductions) a constant input.
 *
 * The reduction takes keepdims 1 and the Unsqueeze's output name; the
 * Unsqueeze goes. Left alone, with the reason: a reduction whose output
 * something else reads or that is a graph output, axes that are not
 * constants.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "opt/fuse.h"

static const char *const REDUCES[] = { "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
	"ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", NULL };

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *u, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), out_rank;
	scs_fuse_axes ra, ua;
	Onnx__NodeProto *red;
	char why[768], txt[200];
	scs_vfacts f;
	int r;

	(void)payload;
	if ((red = scs_fuse_prev(ctx, scope, u, 0, REDUCES, &r)) == NULL)
		return r;
	if (scs_attr_int(red, "keepdims", 1) != 0 || red->n_input < 1 || !red->input[0][0] || u->n_output < 1 ||
	    !u->output[0][0])
		return 0;
	if ((r = scs_fuse_axes_read(&ra, ctx, scope, red, 1, scs_fuse_axes_as_input(red->op_type, opset), why,
	    sizeof(why))) <= 0 || (r = scs_fuse_axes_read(&ua, ctx, scope, u, 1, scs_fuse_axes_as_input("Unsqueeze",
	    opset), why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, u, "%s", why) : 0;
	if (!ua.given)
		return 0;     /* an Unsqueeze needs axes */
	if ((r = scs_opt_facts(ctx, scope, red->input[0], &f)) < 0)
		return r;
	if (!ra.given) {
		if (scs_attr_int(red, "noop_with_empty_axes", 0) != 0)
			return scs_opt_refuse(ctx, scope, u, "the %s has no axes and noop_with_empty_axes: it reduces nothing",
			    red->op_type);
		if (f.rank < 0)
			return scs_opt_refuse(ctx, scope, u, "the %s reduces every axis and the rank of '%s' is not known",
			    red->op_type, red->input[0]);
		ra.n = (size_t)f.rank;
		for (int i = 0; i < f.rank; i++)
			ra.v[i] = i;
	}
	if (!scs_fuse_axes_norm(ra.v, ra.n, f.rank, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, u, "the %s before it: %s", red->op_type, why);
	out_rank = f.rank < 0 ? -1 : f.rank - (int64_t)ra.n + (int64_t)ua.n;
	if (!scs_fuse_axes_norm(ua.v, ua.n, out_rank, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, u, "%s", why);
	if (ra.n != ua.n || (ra.n && memcmp(ra.v, ua.v, ra.n * sizeof(*ra.v)) != 0))
		return 0;     /* other axes: not keepdims */
	if (!scs_fuse_only_reader(ctx, scope, red, u, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, u, "%s", why);
	if ((r = scs_opt_rename_def(ctx, scope, &red->output[0], u->output[0], why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, u, "%s", why) : 0;
	if ((r = scs_opt_set_attr_int(red, "keepdims", 1)) < 0 || (r = scs_opt_drop_node(ctx, scope, u)) < 0 ||
	    (ua.have_c && (r = scs_fuse_drop_unread(ctx, &ua.c, u->input[1], u)) < 0))
		return r;
	scs_fuse_ints(txt, sizeof(txt), ra.v, ra.n);
	r = scs_opt_did(ctx, scope, u, "removed: the %s before it keeps the reduced axes %s (keepdims 1) and makes '%s'",
	    red->op_type, txt, u->output[0]);
	return r < 0 ? r : 1;
}

int
scs_opt_fuse_consecutive_reduce_unsqueeze(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Unsqueeze", one, changed);
}
