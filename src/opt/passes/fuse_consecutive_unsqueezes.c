/*
 * fuse_consecutive_unsqueezes.c: Unsqueeze(Unsqueeze(x, a1), a2) becomes
 * Unsqueeze(x, a) where a holds a2 (axes of the final output) and, for
 * each axis of a1 (an axis of the first's output), the axis of the final
 * output it becomes: the a1[k]-th axis not in a2. The second node is
 * rewritten in place (its axes: the attribute before opset 13, a new int64
 * constant input from 13); the first goes when nothing else reads it.
 *
 * Negative axes count from the rank of each node's output: they are made
 * non-negative with the rank known of x; when that rank is not known the
 * pair is left alone, with the reason.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "opt/fuse.h"

static const char *const UNSQUEEZE[] = { "Unsqueeze", NULL };

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *u2, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), out[2 * SCS_INFER_MAX_RANK], r1, r2;
	int as_input = scs_fuse_axes_as_input("Unsqueeze", opset), r;
	const char *x;
	scs_fuse_axes a1, a2;
	Onnx__NodeProto *u1;
	size_t n = 0;
	scs_vfacts f;
	char why[512];

	(void)payload;
	if ((u1 = scs_fuse_prev(ctx, scope, u2, 0, UNSQUEEZE, &r)) == NULL)
		return r;
	x = u1->n_input ? u1->input[0] : "";
	if (!x[0])
		return 0;
	if ((r = scs_fuse_axes_read(&a1, ctx, scope, u1, 1, as_input, why, sizeof(why))) <= 0 ||
	    (r = scs_fuse_axes_read(&a2, ctx, scope, u2, 1, as_input, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, u2, "%s", why) : 0;
	if (!a1.given || !a2.given)
		return 0;     /* an Unsqueeze needs axes: ONNX Runtime refuses it, leave it so */
	if ((r = scs_opt_facts(ctx, scope, x, &f)) < 0)
		return r;
	r1 = f.rank < 0 ? -1 : f.rank + (int64_t)a1.n;
	r2 = f.rank < 0 ? -1 : r1 + (int64_t)a2.n;
	if (!scs_fuse_axes_norm(a1.v, a1.n, r1, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, u2, "the Unsqueeze before it: %s", why);
	if (!scs_fuse_axes_norm(a2.v, a2.n, r2, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, u2, "%s", why);
	if (a1.n + a2.n > SCS_INFER_MAX_RANK)
		return 0;
	for (size_t i = 0; i < a2.n; i++)
		out[n++] = a2.v[i];
	/* axis j of the first's output is the j-th axis of the final output not in a2 */
	for (size_t i = 0; i < a1.n; i++)
		out[n++] = scs_fuse_nth_other(a2.v, a2.n, a1.v[i]);
	if (!scs_fuse_axes_norm(out, n, r2, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, u2, "%s", why);
	return scs_fuse_axes_join(ctx, scope, u1, &a1, u2, &a2, out, n, "unsqueezes");
}

int
scs_opt_fuse_consecutive_unsqueezes(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Unsqueeze", one, changed);
}
