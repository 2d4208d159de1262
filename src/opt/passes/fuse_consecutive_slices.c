/*
 * fuse_consecutive_slices.c: Slice(Slice(x, s1, e1, a1, p1), s2, e2, a2, p2)
 * where the two slice different axes becomes one Slice of x with the lists
 * joined (starts s1 s2, ends e1 e2, axes a1 a2, steps p1 p2): slicing along
 * one axis does not change the others, so the order does not matter and
 * each range keeps its meaning (negative starts and ends count from the
 * end of their own axis, which the other slice does not change). Axes are
 * compared after making negative ones non-negative with the rank of x; the
 * pair is left alone when that rank is not known. Missing axes are 0, 1,
 * ...; missing steps are 1.
 *
 * Before opset 10 the lists are attributes (no steps); from 10 they are
 * inputs, which must be constants (int32 or int64); the joined lists are
 * written as new int64 constants. The second node is rewritten in place;
 * the first goes when nothing else reads it.
 *
 * Left alone, with the reason: two slices of one axis (composing the two
 * ranges exactly needs the dim and both steps: not done), lists that are
 * not constants, lists of different lengths.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"

static const char *const SLICE[] = { "Slice", NULL };

#define MAXN SCS_INFER_MAX_RANK

/* What one Slice slices: its lists, the constants they are (from opset 10). */
typedef struct lists {
	int64_t v[4][MAXN];                 /* starts, ends, axes, steps */
	size_t n;
	int have[4];
	scs_opt_const c[4];
} lists;

static const char *const WHAT[4] = { "starts", "ends", "axes", "steps" };

/* Read @s's lists into @l: 1; 0 with the reason in @why; < 0 on error. */
static int
read_lists(lists *l, scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *s, int64_t opset, char *why, size_t len)
{
	char reason[512];
	int r;

	memset(l, 0, sizeof(*l));
	why[0] = '\0';
	for (int k = 0; k < 4; k++) {
		size_t n;

		if (opset < 10) {
			const Onnx__AttributeProto *a = k < 3 ? scs_attr_find(s, WHAT[k]) : NULL;

			if (a == NULL)
				continue;
			if (a->n_ints > MAXN)
				goto too_long;
			n = a->n_ints;
			if (n)
				memcpy(l->v[k], a->ints, n * sizeof(int64_t));
		} else {
			const char *name = (size_t)k + 1 < s->n_input ? s->input[k + 1] : "";

			if (!name[0])
				continue;
			if (scs_opt_def_scope(ctx, scope, name) < 0) {
				scs_opt_defer(ctx);     /* put in since the last commit: the next round reads it */
				return 0;
			}
			if ((r = scs_opt_constant(&l->c[k], ctx, scope, name, reason, sizeof(reason))) <= 0) {
				if (r == 0)
					snprintf(why, len, "its %s '%s' are not a constant: %s", WHAT[k], name, reason);
				return r;
			}
			if ((l->c[k].dtype != SCS_DT_INT64 && l->c[k].dtype != SCS_DT_INT32) || l->c[k].rank != 1) {
				snprintf(why, len, "its %s '%s' are not a 1-D int32 or int64 list", WHAT[k], name);
				return 0;
			}
			if (l->c[k].n_elems > MAXN)
				goto too_long;
			n = (size_t)l->c[k].n_elems;
			if (n && (r = scs_opt_read_int64s(ctx, &l->c[k], 0, n, l->v[k])) < 0)
				return r;
		}
		if (l->have[0] + l->have[1] + l->have[2] + l->have[3] && n != l->n) {
			snprintf(why, len, "its lists are of different lengths");
			return 0;
		}
		l->have[k] = 1;
		l->n = n;
	}
	if (!l->have[0] || !l->have[1])
		return 0;     /* starts and ends are required: ONNX Runtime refuses it, leave it so */
	if (!l->have[2])
		for (size_t i = 0; i < l->n; i++)
			l->v[2][i] = (int64_t)i;
	if (!l->have[3])
		for (size_t i = 0; i < l->n; i++)
			l->v[3][i] = 1;
	return 1;
too_long:
	snprintf(why, len, "it slices more than %d axes", MAXN);
	return 0;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *s2, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), v[4][2 * MAXN], norm[2 * MAXN];
	lists l1, l2;
	Onnx__NodeProto *s1;
	const char *x, *mid;
	char why[768], txt[200], base[256];
	scs_vfacts f;
	size_t n;
	int r;

	(void)payload;
	if ((s1 = scs_fuse_prev(ctx, scope, s2, 0, SLICE, &r)) == NULL)
		return r;
	mid = s2->input[0];
	x = s1->n_input ? s1->input[0] : "";
	if (!x[0] || s2->n_output < 1 || !s2->output[0][0])
		return 0;
	if ((r = read_lists(&l1, ctx, scope, s1, opset, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, s2, "the Slice before it: %s", why) : 0;
	if ((r = read_lists(&l2, ctx, scope, s2, opset, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, s2, "%s", why) : 0;
	n = l1.n + l2.n;
	if (n > MAXN)
		return 0;
	if ((r = scs_opt_facts(ctx, scope, x, &f)) < 0)
		return r;
	for (int k = 0; k < 4; k++) {
		memcpy(v[k], l1.v[k], l1.n * sizeof(int64_t));
		memcpy(v[k] + l1.n, l2.v[k], l2.n * sizeof(int64_t));
	}
	memcpy(norm, v[2], n * sizeof(int64_t));
	if (!scs_fuse_axes_norm(norm, n, f.rank, why, sizeof(why))) {
		if (strstr(why, "twice"))
			return scs_opt_refuse(ctx, scope, s2, "both Slices cut one axis (%s): composing two ranges of one axis "
			    "is not done", why);
		return scs_opt_refuse(ctx, scope, s2, "%s", why);
	}
	for (size_t i = 0; i < n; i++)
		if (v[3][i] == 0)
			return 0;     /* a step of 0: ONNX Runtime refuses it, leave it so */
	if ((r = scs_opt_set_input(ctx, s2, 0, x)) < 0)
		return r;
	if (opset < 10) {
		for (int k = 0; k < 3; k++)
			if ((r = scs_opt_set_attr_ints(s2, WHAT[k], v[k], n)) < 0)
				return r;
	} else {
		for (int k = 0; k < 4; k++) {
			snprintf(base, sizeof(base), "%s_%s", s2->output[0], WHAT[k]);
			if ((r = scs_fuse_put_int64s(ctx, scope, s2, (size_t)k + 1, l2.have[k] ? &l2.c[k] : NULL, v[k], n,
			    base)) < 0)
				return r;
		}
	}
	scs_fuse_ints(txt, sizeof(txt), v[2], n);
	if (scs_fuse_live_readers(ctx, scope, mid, NULL) == 0) {
		if ((r = scs_opt_drop_node(ctx, scope, s1)) < 0)
			return r;
		for (int k = 0; opset >= 10 && k < 4; k++)
			if (l1.have[k] && (r = scs_fuse_drop_unread(ctx, &l1.c[k], s1->input[k + 1], s1)) < 0)
				return r;
		r = scs_opt_did(ctx, scope, s2, "slices '%s' on axes %s; the Slice before it is removed", x, txt);
	} else {
		r = scs_opt_did(ctx, scope, s2, "slices '%s' on axes %s; the Slice before it stays for its other readers",
		    x, txt);
	}
	return r < 0 ? r : 1;
}

int
scs_opt_fuse_consecutive_slices(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Slice", one, changed);
}
