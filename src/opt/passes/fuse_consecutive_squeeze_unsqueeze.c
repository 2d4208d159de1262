/*
 * fuse_consecutive_squeeze_unsqueeze.c: a Squeeze followed by an Unsqueeze
 * of the same axes, or an Unsqueeze followed by a Squeeze of the same
 * axes, gives back its input: the second node's readers read the first
 * one's input, and both nodes go (the first stays while something else
 * reads it). Both axes lists count from the same rank, the one of the
 * Squeeze's input (= the Unsqueeze's output); negative axes are made
 * non-negative with it, and left alone when it is not known. A Squeeze
 * without axes removes every dim of size 1: its axes are taken from the
 * dims of x when they are known, else the pair is left alone.
 *
 * When the second node's output must keep its name (a graph output) or
 * cannot be renamed, it becomes an Identity of the first one's input
 * (eliminate_identity takes it from there).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include "opt/fuse.h"

static const char *const SQUEEZE[] = { "Squeeze", NULL };
static const char *const UNSQUEEZE[] = { "Unsqueeze", NULL };

/* Readers of @node's output read @x: renamed, or through an Identity put in its place. */
static int
bypass(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const char *x)
{
	const char *y = node->output[0];
	Onnx__NodeProto *id;
	char why[512];
	int r;

	if (!scs_opt_is_pinned(ctx, scope, y)) {
		if ((r = scs_opt_rename(ctx, scope, y, x, why, sizeof(why))) != 0) {
			if (r < 0 || (r = scs_opt_drop_node(ctx, scope, node)) < 0)
				return r;
			return scs_opt_did(ctx, scope, node, "removed with the %s before it; its readers read '%s'",
			    strcmp(node->op_type, "Squeeze") == 0 ? "Unsqueeze" : "Squeeze", x) < 0 ? -1 : 1;
		}
		if (!why[0])
			return 0;     /* waits for another rename's commit */
	}
	if ((id = scs_opt_node_new("Identity", node->name, &x, 1, &y, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make an Identity");
	if ((r = scs_opt_insert_node(ctx, scope, node, id)) < 0 || (r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	return scs_opt_did(ctx, scope, node, "replaced by an Identity of '%s' ('%s' keeps its name)", x, y) < 0 ? -1 : 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *n2, void *payload)
{
	int squeeze_first = strcmp(n2->op_type, "Unsqueeze") == 0, known = 1, r;
	int64_t opset = scs_opt_opset(ctx, scope, ""), outer, dims[SCS_INFER_MAX_RANK];
	int as_input = scs_fuse_axes_as_input("Squeeze", opset);
	scs_fuse_axes a1, a2, *sq, *unsq;
	Onnx__NodeProto *n1;
	const char *x, *mid;
	size_t nd = 0, k = 0;
	scs_vfacts f;
	char why[512];

	(void)payload;
	if ((n1 = scs_fuse_prev(ctx, scope, n2, 0, squeeze_first ? SQUEEZE : UNSQUEEZE, &r)) == NULL)
		return r;
	mid = n2->input[0];
	x = n1->n_input ? n1->input[0] : "";
	if (!x[0] || n2->n_output < 1 || !n2->output[0][0])
		return 0;
	if ((r = scs_fuse_axes_read(&a1, ctx, scope, n1, 1, as_input, why, sizeof(why))) <= 0 ||
	    (r = scs_fuse_axes_read(&a2, ctx, scope, n2, 1, as_input, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, n2, "%s", why) : 0;
	sq = squeeze_first ? &a1 : &a2;
	unsq = squeeze_first ? &a2 : &a1;
	if (!unsq->given)
		return 0;     /* an Unsqueeze needs axes */
	if ((r = scs_opt_facts(ctx, scope, x, &f)) < 0)
		return r;
	outer = f.rank < 0 ? -1 : squeeze_first ? f.rank : f.rank + (int64_t)unsq->n;
	if (!squeeze_first && !scs_fuse_axes_norm(unsq->v, unsq->n, outer, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, n2, "the Unsqueeze before it: %s", why);
	if (!sq->given) {
		for (int i = 0; i < f.rank; i++)
			known &= f.dims[i] >= 0;
		if (outer > SCS_INFER_MAX_RANK)
			return 0;
		if (f.rank < 0 || !known)
			return scs_opt_refuse(ctx, scope, n2, "a Squeeze without axes removes every dim of size 1, and the dims "
			    "of '%s' are not known", x);
		/* the dims the Squeeze reads: those of x, or of x unsqueezed */
		for (int64_t i = 0; i < outer; i++) {
			if (!squeeze_first && k < unsq->n && unsq->v[k] == i) {
				dims[nd++] = 1;
				k++;
			} else {
				dims[nd++] = f.dims[i - (int64_t)k];
			}
		}
		sq->n = 0;
		for (size_t i = 0; i < nd; i++)
			if (dims[i] == 1)
				sq->v[sq->n++] = (int64_t)i;
	}
	if (!scs_fuse_axes_norm(sq->v, sq->n, outer, why, sizeof(why)) ||
	    (squeeze_first && !scs_fuse_axes_norm(unsq->v, unsq->n, outer, why, sizeof(why))))
		return scs_opt_refuse(ctx, scope, n2, "%s", why);
	if (sq->n != unsq->n || (sq->n && memcmp(sq->v, unsq->v, sq->n * sizeof(*sq->v)) != 0))
		return 0;     /* other axes: not the identity */
	if ((r = bypass(ctx, scope, n2, x)) <= 0)
		return r;
	if (scs_fuse_live_readers(ctx, scope, mid, n2) == 0) {
		if ((r = scs_opt_drop_node(ctx, scope, n1)) < 0 ||
		    (a1.have_c && (r = scs_fuse_drop_unread(ctx, &a1.c, n1->input[1], n1)) < 0))
			return r;
	}
	if (a2.have_c && (r = scs_fuse_drop_unread(ctx, &a2.c, n2->input[1], n2)) < 0)
		return r;
	return 1;
}

int
scs_opt_fuse_consecutive_squeeze_unsqueeze(scs_opt_ctx *ctx, int *changed)
{
	int r = scs_opt_each_op(ctx, "Unsqueeze", one, changed);

	return r < 0 ? r : scs_opt_each_op(ctx, "Squeeze", one, changed);
}
