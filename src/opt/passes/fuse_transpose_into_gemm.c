/*
 * fuse_transpose_into_gemm.c: a Gemm's A or B made by a Transpose of a 2-D
 * value (perm [1,0], or no perm: the reversal, which for the 2-D input a
 * Gemm takes is the same) reads that value instead, its transA / transB
 * flipped: op(T(x), t) = op(x, !t). The Transpose goes when nothing else
 * reads it. Both inputs may be folded in at once, also when they are the
 * same Transpose. Nothing is computed: the result is the same bit for bit.
 *
 * Left alone: a Transpose with another perm (not a 2-D transpose), or in
 * an enclosing graph (reported).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "onnx/attr.h"
#include "opt/fuse.h"

static const char *const TRANSPOSE[] = { "Transpose", NULL };

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *gemm, void *payload)
{
	static const char *const flag[2] = { "transA", "transB" };
	Onnx__NodeProto *t[2] = { NULL, NULL };
	const Onnx__AttributeProto *perm;
	const char *mid[2] = { NULL, NULL };
	int any = 0, r;

	(void)payload;
	for (size_t i = 0; i < 2 && i < gemm->n_input; i++) {
		if ((t[i] = scs_fuse_prev(ctx, scope, gemm, i, TRANSPOSE, &r)) == NULL) {
			if (r < 0)
				return r;
			continue;
		}
		perm = scs_attr_find(t[i], "perm");
		if ((perm && (perm->n_ints != 2 || perm->ints[0] != 1 || perm->ints[1] != 0)) || t[i]->n_input < 1 ||
		    !t[i]->input[0][0]) {
			t[i] = NULL;
			continue;
		}
		mid[i] = gemm->input[i];
	}
	for (size_t i = 0; i < 2; i++) {
		if (!t[i])
			continue;
		if ((r = scs_opt_set_attr_int(gemm, flag[i], !scs_attr_int(gemm, flag[i], 0))) < 0 ||
		    (r = scs_opt_set_input(ctx, gemm, i, t[i]->input[0])) < 0)
			return r;
		any = 1;
	}
	for (size_t i = 0; i < 2; i++) {
		if (!t[i])
			continue;
		if ((i == 0 || t[1] != t[0]) && scs_fuse_live_readers(ctx, scope, mid[i], NULL) == 0 &&
		    (r = scs_opt_drop_node(ctx, scope, t[i])) < 0)
			return r;
		if ((r = scs_opt_did(ctx, scope, gemm, "reads '%s' with %s %d (the Transpose before it %s)",
		    t[i]->input[0], flag[i], (int)scs_attr_int(gemm, flag[i], 0),
		    scs_opt_is_dropped(ctx, scope, t[i]) ? "removed" : "kept for its other readers")) < 0)
			return r;
	}
	return any;
}

int
scs_opt_fuse_transpose_into_gemm(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Gemm", one, changed);
}
