/*
 * fuse_consecutive_log_softmax.c: Log(Softmax(x)) becomes LogSoftmax(x)
 * with the Softmax's axis. Softmax and LogSoftmax change together across
 * opsets (1, 11, 13: before 13 both flatten x to 2-D at the axis, default
 * 1; from 13 both work along one axis, default -1), so the same axis
 * attribute (or none) means the same thing at the scope's opset. The Log
 * becomes the LogSoftmax, keeping its place and its output's name; the
 * Softmax goes. LogSoftmax computes x - max - log(sum(exp(x - max))), not
 * log of a rounded quotient, so the result may differ in the last bits
 * (more exactly: log(softmax) loses what the quotient rounded away).
 *
 * Left alone, with the reason: a Softmax whose output something else reads
 * or that is a graph output, and an element type other than float and
 * double (ONNX Runtime's CPU LogSoftmax kernels, OperatorKernels.md: the
 * output must load wherever the input did).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"
#include "util/arena.h"

static const char *const SOFTMAX[] = { "Softmax", NULL };

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *log, void *payload)
{
	const Onnx__AttributeProto *axis;
	Onnx__NodeProto *sm;
	scs_vfacts f;
	char why[768];
	char *op;
	int r;

	(void)payload;
	if ((sm = scs_fuse_prev(ctx, scope, log, 0, SOFTMAX, &r)) == NULL)
		return r;
	if (sm->n_input < 1 || !sm->input[0][0] || log->n_attribute > 0)
		return 0;
	if (!scs_fuse_only_reader(ctx, scope, sm, log, why, sizeof(why)))
		return scs_opt_refuse(ctx, scope, log, "%s", why);
	if ((r = scs_opt_facts(ctx, scope, sm->input[0], &f)) < 0)
		return r;
	if (f.elem <= 0)
		return scs_opt_refuse(ctx, scope, log, "the element type of '%s' is not known", sm->input[0]);
	if (f.elem != SCS_DT_FLOAT && f.elem != SCS_DT_DOUBLE)
		return scs_opt_refuse(ctx, scope, log, "ONNX Runtime's CPU LogSoftmax takes float and double, not %s",
		    scs_dtype_name(f.elem));
	if ((axis = scs_attr_find(sm, "axis")) != NULL && (r = scs_opt_set_attr_int(log, "axis", axis->i)) < 0)
		return r;
	if ((r = scs_opt_set_input(ctx, log, 0, sm->input[0])) < 0 || (r = scs_opt_drop_node(ctx, scope, sm)) < 0)
		return r;
	if ((op = strdup("LogSoftmax")) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot rename an operator");
	scs_arena_release(log->op_type);
	log->op_type = op;
	r = scs_opt_did(ctx, scope, log, "now a LogSoftmax of '%s' (the Softmax folded in)", sm->input[0]);
	return r < 0 ? r : 1;
}

int
scs_opt_fuse_consecutive_log_softmax(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Log", one, changed);
}
