/*
 * fuse_consecutive_transposes.c: Transpose(Transpose(x, p1), p2)
 * becomes Transpose(x, p) with p[i] = p1[p2[i]] (output axis i of the
 * second is axis p2[i] of the first's output, which is axis p1[p2[i]] of x).
 * The second node is rewritten in place; the first goes when nothing else
 * reads it, and then, when the two undo each other, the second goes too
 * (its readers read x; see scs_opt_forward for a graph output) where it
 * can (else it is left to eliminate_nop_transpose).
 * Both must be in the same graph, and a missing perm (reverse the axes)
 * needs the rank: from the other perm, or from what is known of x.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "onnx/attr.h"
#include "opt/opt.h"

/* The perm of @t into @out (@n entries): its attribute, or the reversal of rank @rank (< 0: unknown). */
static int
perm_of(const Onnx__NodeProto *t, int rank, int64_t *out, size_t *n)
{
	const Onnx__AttributeProto *p = scs_attr_find(t, "perm");

	if (p) {
		if (p->n_ints > SCS_INFER_MAX_RANK)
			return 0;
		*n = p->n_ints;
		for (size_t i = 0; i < *n; i++)
			out[i] = p->ints[i];
		return 1;
	}
	if (rank < 0)
		return 0;
	*n = (size_t)rank;
	for (size_t i = 0; i < *n; i++)
		out[i] = rank - 1 - (int64_t)i;
	return 1;
}

static int
is_permutation(const int64_t *p, size_t n)
{
	int seen[SCS_INFER_MAX_RANK] = { 0 };

	for (size_t i = 0; i < n; i++) {
		if (p[i] < 0 || (size_t)p[i] >= n || seen[p[i]])
			return 0;
		seen[p[i]] = 1;
	}
	return 1;
}

static int
is_identity(const int64_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (int64_t)i)
			return 0;
	return 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *t2, void *payload)
{
	int64_t p1[SCS_INFER_MAX_RANK], p2[SCS_INFER_MAX_RANK], p[SCS_INFER_MAX_RANK];
	const char *mid = t2->n_input ? t2->input[0] : "";
	Onnx__NodeProto *t1;
	size_t n1 = 0, n2 = 0;
	scs_vfacts f;
	int d, r, rank;

	(void)payload;
	if (!mid[0] || (d = scs_opt_def_scope(ctx, scope, mid)) < 0 || (t1 = scs_opt_producer(ctx, d, mid)) == NULL ||
	    scs_opt_is_dropped(ctx, d, t1))
		return 0;
	if ((r = scs_opt_is_op(ctx, d, t1, "Transpose")) <= 0)
		return r;
	if (d != scope)
		return scs_opt_refuse(ctx, scope, t2, "the Transpose before it is in an enclosing graph");
	if (t1->n_input < 1 || !t1->input[0][0])
		return 0;
	if ((r = scs_opt_facts(ctx, scope, t1->input[0], &f)) < 0)
		return r;
	rank = f.rank;
	if (rank < 0 && scs_attr_find(t1, "perm"))
		rank = (int)scs_attr_find(t1, "perm")->n_ints;
	if (rank < 0 && scs_attr_find(t2, "perm"))
		rank = (int)scs_attr_find(t2, "perm")->n_ints;
	if (!perm_of(t1, rank, p1, &n1) || !perm_of(t2, rank, p2, &n2))
		return scs_opt_refuse(ctx, scope, t2, "neither Transpose has a perm and the rank of '%s' is not known",
		    t1->input[0]);
	if (n1 != n2 || !is_permutation(p1, n1) || !is_permutation(p2, n2) || (rank >= 0 && (size_t)rank != n1))
		return scs_opt_refuse(ctx, scope, t2, "the perms do not compose (lengths %zu and %zu, rank %d)", n1, n2,
		    rank);
	for (size_t i = 0; i < n2; i++)
		p[i] = p1[p2[i]];
	if ((r = scs_opt_set_attr_ints(t2, "perm", p, n2)) < 0 || (r = scs_opt_set_input(ctx, t2, 0, t1->input[0])) < 0)
		return r;
	if (scs_opt_n_uses(ctx, scope, mid) == 1 && !scs_opt_is_pinned(ctx, scope, mid)) {
		if ((r = scs_opt_drop_node(ctx, scope, t1)) < 0)
			return r;
		/* the two undo each other: the second goes too, where scs_opt_forward can join its ends */
		if (is_identity(p, n2) && (r = scs_opt_forward(ctx, scope, t2, 0, 0)) != 0)
			return r < 0 ? r : 1;
		r = scs_opt_did(ctx, scope, t2, "composed with the Transpose before it, which is removed");
	} else {
		r = scs_opt_did(ctx, scope, t2, "composed with the Transpose before it, which stays for its other readers");
	}
	return r < 0 ? r : 1;
}

int
scs_opt_fuse_consecutive_transposes(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Transpose", one, changed);
}
