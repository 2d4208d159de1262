/*
 * eliminate_nop_monotone_argmax.c: onnxoptimizer makes an ArgMax read x
 * where its input is Exp(x), Log(x), Sqrt(x), or Softmax(x) or
 * LogSoftmax(x) along the ArgMax's axis, taking these as strictly
 * increasing. In floating point none of them keeps the index for every x,
 * so each such pair is reported and left as it is:
 *
 *   Exp, Softmax, LogSoftmax: rounding maps different inputs to one output
 *     (float Exp is 0 below about -104 and inf above about 89; Softmax of
 *     inputs close to the largest rounds to the same value). ArgMax then
 *     picks the first of the tie (the last with select_last_index), where
 *     on x it picks the largest: another index;
 *   Log, Sqrt: the same, and negative inputs give NaN.
 *
 * Softmax and LogSoftmax count as along the ArgMax's axis from opset 13
 * when the axes are the same, before opset 13 (a row of the input
 * flattened from their axis on) when the ArgMax's axis is at or after
 * theirs; a pair on other axes is not monotone at all and is not reported.
 * (Taking the pairs would need an opt-in for results that may differ,
 * which the settings do not have for this.)
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "onnx/attr.h"
#include "opt/opt.h"

/* @axis of rank @rank made non-negative; -1 when it is out of range or the rank is not known. */
static int64_t
norm_axis(int64_t axis, int rank)
{
	if (axis < 0 && rank >= 0)
		axis += rank;
	return axis < 0 || (rank >= 0 && axis >= rank) ? -1 : axis;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	Onnx__NodeProto *p;
	const char *op;
	scs_vfacts f;
	int r, softmax;

	(void)payload;
	if (node->n_input != 1 || !node->input[0][0])
		return 0;
	p = scs_opt_producer(ctx, scope, node->input[0]);
	if (p == NULL || scs_opt_is_dropped(ctx, scope, p) || p->n_input < 1 || !p->input[0][0] || p->n_output != 1)
		return 0;
	op = p->op_type;
	softmax = strcmp(op, "Softmax") == 0 || strcmp(op, "LogSoftmax") == 0;
	if (!softmax && strcmp(op, "Exp") != 0 && strcmp(op, "Log") != 0 && strcmp(op, "Sqrt") != 0)
		return 0;
	if ((r = scs_opt_is_op(ctx, scope, p, op)) <= 0)
		return r;
	if (softmax) {
		int64_t opset = scs_opt_opset(ctx, scope, ""), a, b;

		if ((r = scs_opt_facts(ctx, scope, p->input[0], &f)) < 0)
			return r;
		a = norm_axis(scs_attr_int(p, "axis", opset >= 13 ? -1 : 1), f.rank);
		b = norm_axis(scs_attr_int(node, "axis", 0), f.rank);
		if (a < 0 || b < 0)
			return scs_opt_refuse(ctx, scope, node, "the rank of '%s' is not known, so the axes of %s and ArgMax "
			    "cannot be compared", p->input[0], op);
		if (opset >= 13 ? a != b : b < a)
			return 0;     /* another axis: not monotone along the ArgMax's */
	}
	if (strcmp(op, "Log") == 0 || strcmp(op, "Sqrt") == 0)
		return scs_opt_refuse(ctx, scope, node, "%s gives NaN for negative inputs and rounds different inputs to one "
		    "output, so the index of the largest can change", op);
	return scs_opt_refuse(ctx, scope, node, "%s rounds different inputs to one output (a tie, where ArgMax picks "
	    "another index than on its input)", op);
}

int
scs_opt_eliminate_nop_monotone_argmax(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "ArgMax", one, changed);
}
