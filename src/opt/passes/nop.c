/*
 * nop.c: the pass that does nothing (onnxoptimizer's "nop": a pipeline that
 * names it only writes the model out again, value_info and all).
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"

int
scs_opt_nop(scs_opt_ctx *ctx, int *changed)
{
	(void)ctx;
	(void)changed;
	return 0;
}
