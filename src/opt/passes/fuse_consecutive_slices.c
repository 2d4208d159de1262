/*
 * fuse_consecutive_slices.c: Slice(Slice(x, s1, e1, a1, p1), s2, e2, a2, p2)
 * becomes one Slice of x. Axes only one of them slices keep their range
 * (slicing one axis does not change the others, and negative starts and
 * ends count from the end of their own axis); an axis both slice gets one
 * range composed from the two: the first picks s + k * p for k below its
 * count, the second a range of those k, so the composition is
 * start = s + a * p, end = s + b * p, step = p * p2 with the starts and
 * ends first clamped as Slice does (b >= a). That is exact for positive
 * steps along a dim that is known; an axis with a negative step, or whose
 * dim is not known, leaves the pair alone with the reason. Axes are made
 * non-negative with the rank of x (left alone when it is not known and an
 * axis is negative). Missing axes are 0, 1, ...; missing steps are 1.
 *
 * Before opset 10 the lists are attributes (no steps); from 10 they are
 * inputs, which must be constants (int32 or int64); the joined lists are
 * written as new int64 constants. The second node is rewritten in place;
 * the first goes when nothing else reads it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
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

/* @n axes @v made non-negative against @rank (< 0: unknown), in place, in order: 1; 0 with the reason. */
static int
axes_resolve(int64_t *v, size_t n, int rank, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0 && rank < 0) {
			snprintf(why, len, "axis %lld is negative and the rank it counts from is not known", (long long)v[i]);
			return 0;
		}
		if (v[i] < 0)
			v[i] += rank;
		if (v[i] < 0 || (rank >= 0 && v[i] >= rank)) {
			snprintf(why, len, "an axis is out of range for rank %d", rank);
			return 0;
		}
		for (size_t k = 0; k < i; k++)
			if (v[k] == v[i]) {
				snprintf(why, len, "it slices axis %lld twice", (long long)v[i]);
				return 0;
			}
	}
	return 1;
}

/* A start or end @v of an axis of @d elements, as Slice takes it for a positive step. */
static int64_t
clamp(int64_t v, int64_t d)
{
	if (v < 0)
		v += d;
	return v < 0 ? 0 : v > d ? d : v;
}

/*
 * Slice [*s, *e) step *p of an axis of @d elements, then [s2, e2) step p2
 * of what it gave, as one slice into *s, *e, *p: the first picks
 * s1 + k * p for k < n1, the second those k from a to b by p2. Exact for
 * positive steps of a known dim; 1, or 0 with the reason.
 */
static int
compose(int64_t *s, int64_t *e, int64_t *p, int64_t s2, int64_t e2, int64_t p2, int64_t d, char *why, size_t len)
{
	int64_t s1, e1, n1, a, b;

	if (*p <= 0 || p2 <= 0) {
		snprintf(why, len, "a negative step");
		return 0;
	}
	if (*p > d || p2 > d || *p > INT64_MAX / p2) {
		snprintf(why, len, "a step longer than the axis");
		return 0;
	}
	s1 = clamp(*s, d);
	e1 = clamp(*e, d);
	n1 = e1 > s1 ? (e1 - s1 + *p - 1) / *p : 0;
	a = clamp(s2, n1);
	b = clamp(e2, n1);
	*s = s1 + a * *p;
	*e = s1 + (b > a ? b : a) * *p;
	*p *= p2;
	return 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *s2, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, ""), v[4][2 * MAXN];
	size_t n, merged = 0;
	lists l1, l2;
	Onnx__NodeProto *s1;
	const char *x, *mid;
	char why[768], txt[200], base[256];
	scs_vfacts f;
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
	if ((r = scs_opt_facts(ctx, scope, x, &f)) < 0)
		return r;
	if (!axes_resolve(l1.v[2], l1.n, f.rank, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, s2, "the Slice before it: %s", why);
	if (!axes_resolve(l2.v[2], l2.n, f.rank, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, s2, "%s", why);
	for (size_t i = 0; i < l1.n + l2.n; i++)
		if ((i < l1.n ? l1.v[3][i] : l2.v[3][i - l1.n]) == 0)
			return 0;     /* a step of 0: ONNX Runtime refuses it, leave it so */
	/* the first's lists, each axis the second slices again composed; then the second's other axes */
	n = l1.n;
	for (int k = 0; k < 4; k++)
		memcpy(v[k], l1.v[k], l1.n * sizeof(int64_t));
	for (size_t j = 0; j < l2.n; j++) {
		int64_t ax = l2.v[2][j];
		size_t i;

		for (i = 0; i < l1.n && l1.v[2][i] != ax; i++)
			;
		if (i == l1.n) {
			for (int k = 0; k < 4; k++)
				v[k][n] = l2.v[k][j];
			n++;
			continue;
		}
		if (f.rank < 0 || f.dims[ax] < 0)
			return scs_opt_refuse(ctx, scope, s2, "both Slices cut axis %lld, whose dim is not known", (long long)ax);
		if (!compose(&v[0][i], &v[1][i], &v[3][i], l2.v[0][j], l2.v[1][j], l2.v[3][j], f.dims[ax], why, sizeof(why)))
			return scs_opt_refuse(ctx, scope, s2, "both Slices cut axis %lld, with %s: not composed", (long long)ax,
			    why);
		merged++;
	}
	if (n > MAXN)
		return 0;
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
		r = scs_opt_did(ctx, scope, s2, "slices '%s' on axes %s (%zu composed); the Slice before it is removed", x,
		    txt, merged);
	} else {
		r = scs_opt_did(ctx, scope, s2, "slices '%s' on axes %s (%zu composed); the Slice before it stays for its "
		    "other readers", x, txt, merged);
	}
	return r < 0 ? r : 1;
}

int
scs_opt_fuse_consecutive_slices(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Slice", one, changed);
}
