/*
 * eliminate_nop_dropout.c: Dropout that copies its input removed.
 *
 * ONNX: from opset 7 Dropout is a copy in inference (the runtime's mode);
 * from opset 12 unless its training_mode input is true, and then still a
 * copy when the ratio is 0. Before opset 7 it copies only with is_test set
 * (or a ratio of 0). The mask output must be unread: nothing here makes one.
 * training_mode and ratio count only as constants (not graph inputs, which
 * a caller may set).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/opt.h"

/*
 * The one value of constant input @i of @node, of type @dtype (0: any
 * floating type), as a double: 1 and *out; 0 with @why when it is not one.
 */
static int
scalar_input(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t i, int dtype, double *out, char *why,
    size_t len)
{
	scs_opt_const c;
	int r, ok;

	if ((r = scs_opt_constant(&c, ctx, scope, node->input[i], why, len)) <= 0)
		return r;
	ok = dtype ? c.dtype == dtype : c.dtype == SCS_DT_FLOAT || c.dtype == SCS_DT_DOUBLE || c.dtype == SCS_DT_FLOAT16;
	if (c.n_elems != 1 || !ok) {
		snprintf(why, len, "'%s' is not a single %s", node->input[i], dtype ? scs_dtype_name(dtype) : "number");
		return 0;
	}
	return scs_opt_read_doubles(ctx, &c, 0, 1, out) < 0 ? -1 : 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	int64_t opset = scs_opt_opset(ctx, scope, "");
	double training = 0, ratio = 0.5;
	char why[512];
	int r;

	(void)payload;
	if (opset < 7) {
		ratio = scs_attr_float(node, "ratio", 0.5f);
		if (scs_attr_int(node, "is_test", 0) == 0 && ratio != 0)
			return scs_opt_refuse(ctx, scope, node, "is_test is 0 (training mode) and the ratio is %g", ratio);
	} else if (opset >= 12 && node->n_input > 2 && node->input[2][0]) {
		if ((r = scalar_input(ctx, scope, node, 2, SCS_DT_BOOL, &training, why, sizeof(why))) <= 0)
			return r < 0 ? r : scs_opt_refuse(ctx, scope, node, "training_mode: %s", why);
		if (training != 0) {
			if (node->n_input > 1 && node->input[1][0] &&
			    (r = scalar_input(ctx, scope, node, 1, 0, &ratio, why, sizeof(why))) <= 0)
				return r < 0 ? r : scs_opt_refuse(ctx, scope, node, "training_mode is true; ratio: %s", why);
			if (ratio != 0)
				return scs_opt_refuse(ctx, scope, node, "training_mode is true and the ratio is %g", ratio);
		}
	}
	return scs_opt_forward(ctx, scope, node, 0, 0);
}

int
scs_opt_eliminate_nop_dropout(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_op(ctx, "Dropout", one, changed);
}
