/*
 * eliminate_nop_slice.c: Slice that keeps every element removed (ONNX
 * Runtime's basic level does the same; onnxoptimizer has no such pass).
 * On every axis it slices, the step is 1 (or absent), the start clamps to
 * 0 (0, or a negative start at or below minus the dim) and the end clamps
 * to the dim (at or past it, or INT64_MAX, the "to the end" of exporters),
 * with the dims that matter known (declarations, constants, inference).
 * starts, ends, axes and steps are attributes before opset 10, constant
 * inputs from opset 10 (one that is not a constant is refused).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>

#include "onnx/attr.h"
#include "opt/opt.h"

enum { S_STARTS, S_ENDS, S_AXES, S_STEPS, S_N };

/* Part @k of @node's slice into @v (*n entries; *n = SIZE_MAX when absent): 1 read, 0 not usable, < 0 error. */
static int
part(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, int k, int64_t *v, size_t *n)
{
	static const char *const names[S_N] = { "starts", "ends", "axes", "steps" };
	const Onnx__AttributeProto *a;
	scs_opt_const c;
	char why[512];
	int r;

	*n = SIZE_MAX;
	if (scs_opt_opset(ctx, scope, "") < 10) {
		if (k == S_STEPS || (a = scs_attr_find(node, names[k])) == NULL)
			return 1;
		if (a->n_ints > SCS_INFER_MAX_RANK)
			return 0;
		for (size_t i = 0; i < a->n_ints; i++)
			v[i] = a->ints[i];
		*n = a->n_ints;
		return 1;
	}
	if (node->n_input <= (size_t)k + 1 || !node->input[k + 1][0])
		return 1;
	if ((r = scs_opt_constant(&c, ctx, scope, node->input[k + 1], why, sizeof(why))) <= 0)
		return r < 0 ? r : scs_opt_refuse(ctx, scope, node, "%s: %s", names[k], why);
	if (!scs_opt_readable(c.dtype) || c.rank != 1 || c.n_elems > SCS_INFER_MAX_RANK)
		return 0;
	if ((r = scs_opt_read_int64s(ctx, &c, 0, (size_t)c.n_elems, v)) < 0)
		return r;
	*n = (size_t)c.n_elems;
	return 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int64_t v[S_N][SCS_INFER_MAX_RANK];
	size_t n[S_N];
	int seen[SCS_INFER_MAX_RANK] = { 0 };
	scs_vfacts f;
	int r;

	(void)payload;
	if (node->n_input < 1 || !node->input[0][0] || node->n_output != 1)
		return 0;
	for (int k = 0; k < S_N; k++)
		if ((r = part(ctx, scope, node, k, v[k], &n[k])) <= 0)
			return r;
	if (n[S_STARTS] == SIZE_MAX || n[S_ENDS] != n[S_STARTS] || (n[S_AXES] != SIZE_MAX && n[S_AXES] != n[S_STARTS]) ||
	    (n[S_STEPS] != SIZE_MAX && n[S_STEPS] != n[S_STARTS]))
		return 0;     /* not a Slice ONNX Runtime takes: leave it so */
	if ((r = scs_opt_facts(ctx, scope, node->input[0], &f)) < 0)
		return r;
	if (f.rank < 0)
		return scs_opt_refuse(ctx, scope, node, "the rank of '%s' is not known", node->input[0]);
	for (size_t i = 0; i < n[S_STARTS]; i++) {
		int64_t axis = n[S_AXES] == SIZE_MAX ? (int64_t)i : v[S_AXES][i], start = v[S_STARTS][i], end = v[S_ENDS][i];
		int64_t d;

		if (axis < 0)
			axis += f.rank;
		if (axis < 0 || axis >= f.rank || seen[axis]++)
			return 0;
		if (n[S_STEPS] != SIZE_MAX && v[S_STEPS][i] != 1)
			return 0;
		d = f.dims[axis];
		if (start > 0 || (d >= 0 && start < 0 && start + d > 0) || (d >= 0 && end < d && end != INT64_MAX))
			return 0;
		if (d < 0 && (start != 0 || end != INT64_MAX))
			return scs_opt_refuse(ctx, scope, node, "dim %d of '%s' is not known, so the slice [%lld, %lld) need not "
			    "keep all of it", (int)axis, node->input[0], (long long)start, (long long)end);
	}
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_slice(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Slice", one, changed);
}
