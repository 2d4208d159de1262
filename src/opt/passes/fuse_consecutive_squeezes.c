/*
 * fuse_consecutive_squeezes.c: Squeeze(Squeeze(x, a1), a2) becomes
 * Squeeze(x, a) where a holds a1 and, for each axis of a2 (an axis of the
 * first's output), the axis of x it is: the a2[k]-th axis of x not in a1.
 * The second node is rewritten in place (its axes: the attribute before
 * opset 13, a new int64 constant input from 13); the first goes when
 * nothing else reads it.
 *
 * Negative axes count from the rank of the value they apply to: they are
 * made non-negative with the rank known of x (onnxoptimizer composes them
 * as they stand, which removes the wrong axes); when that rank is not known
 * the pair is left alone, with the reason. A Squeeze without axes removes
 * every dim of size 1: it is fused only when the dims of x are known.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "opt/fuse.h"

static const char *const SQUEEZE[] = { "Squeeze", NULL };

/* The axes of size 1 among @n dims @dims (every one known) into @a. */
static void
ones_of(scs_fuse_axes *a, const int64_t *dims, size_t n)
{
	a->n = 0;
	for (size_t i = 0; i < n; i++)
		if (dims[i] == 1)
			a->v[a->n++] = (int64_t)i;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *s2, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), out[2 * SCS_INFER_MAX_RANK], mid_dims[SCS_INFER_MAX_RANK];
	int as_input = scs_fuse_axes_as_input("Squeeze", opset), known = 1, r;
	const char *x;
	scs_fuse_axes a1, a2;
	Onnx__NodeProto *s1;
	size_t n = 0, n_mid = 0, k1 = 0;
	scs_vfacts f;
	char why[512];

	(void)payload;
	if ((s1 = scs_fuse_prev(ctx, scope, s2, 0, SQUEEZE, &r)) == NULL)
		return r;
	x = s1->n_input ? s1->input[0] : "";
	if (!x[0])
		return 0;
	if ((r = scs_fuse_axes_read(&a1, ctx, scope, s1, 1, as_input, why, sizeof(why))) <= 0 ||
	    (r = scs_fuse_axes_read(&a2, ctx, scope, s2, 1, as_input, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, s2, "%s", why) : 0;
	if ((r = scs_opt_facts(ctx, scope, x, &f)) < 0)
		return r;
	for (int i = 0; i < f.rank; i++)
		known &= f.dims[i] >= 0;
	if ((!a1.given || !a2.given) && (f.rank < 0 || !known))
		return scs_opt_refuse(ctx, scope, s2, "a Squeeze without axes removes every dim of size 1, and the dims of "
		    "'%s' are not known", x);
	if (!a1.given)
		ones_of(&a1, f.dims, (size_t)f.rank);
	if (!scs_fuse_axes_norm(a1.v, a1.n, f.rank, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, s2, "the Squeeze before it: %s", why);
	for (int i = 0; f.rank >= 0 && i < f.rank; i++) {
		if (k1 < a1.n && a1.v[k1] == i)
			k1++;
		else
			mid_dims[n_mid++] = f.dims[i];
	}
	if (!a2.given)
		ones_of(&a2, mid_dims, n_mid);
	if (!scs_fuse_axes_norm(a2.v, a2.n, f.rank < 0 ? -1 : f.rank - (int64_t)a1.n, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, s2, "%s", why);
	if (a1.n + a2.n > SCS_INFER_MAX_RANK)
		return 0;
	/* axis j of the first's output is the j-th axis of x not in a1 */
	for (size_t i = 0; i < a1.n; i++)
		out[n++] = a1.v[i];
	for (size_t i = 0; i < a2.n; i++)
		out[n++] = scs_fuse_nth_other(a1.v, a1.n, a2.v[i]);
	if (!scs_fuse_axes_norm(out, n, f.rank, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, s2, "%s", why);
	return scs_fuse_axes_join(ctx, scope, s1, &a1, s2, &a2, out, n, "squeezes");
}

int
scs_opt_fuse_consecutive_squeezes(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Squeeze", one, changed);
}
