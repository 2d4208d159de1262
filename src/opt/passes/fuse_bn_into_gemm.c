/*
 * fuse_bn_into_gemm.c: Gemm (transA, transB, alpha and beta as they
 * come, with or without C), or MatMul of a 2-D input by a constant 2-D
 * weight, followed by a BatchNormalization in inference mode over its
 * output features, becomes one Gemm:
 *
 *   B' = B * s along the output features n (B's columns, or rows with transB)
 *   C' = (beta * C - mean) * s + B_bn,  beta' = 1,  alpha unchanged
 *
 * with s = scale / sqrt(var + epsilon), computed in double and rounded
 * once to the weight's type (fuse.h). Over a 2-D input [N, C] a
 * BatchNormalization's channel is axis 1, the Gemm's output feature; a
 * MatMul whose input is not known to be 2-D is left alone. C' is [N], or
 * [R, N] when C was [R, N] or [R, 1].
 *
 * Left alone, with the reason: as in fuse_bn_into_conv (training, other
 * readers, non-constant or mistyped parameters, channel counts), a Gemm
 * before opset 7 (C broadcast by its own attribute), and a MatMul whose
 * element type ONNX Runtime has no CPU Gemm kernel for (float16,
 * bfloat16): the output must load wherever the input did.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "opt/fuse.h"
#include "onnx/opschema.h"

static int
visit(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *bn, void *payload)
{
	int *changed = payload, is_mm, r;
	Onnx__NodeProto *g;
	const scs_opschema *gemm;
	scs_opt_const b, c;
	scs_fuse_bn p;
	scs_fuse_chan chan;
	scs_vfacts fa;
	uint64_t N, K, rows = 1, old_rows = 1, old_cols = 1;
	int64_t c_dims[2];
	size_t c_rank;
	int trans_b;
	double beta;
	uint32_t b_id, c_id;
	const char *b_name, *c_name, *has_c;
	char why[768], shape[160], base[512];

	static const char *const ops[] = { "Gemm", "MatMul", NULL };

	if ((g = scs_fuse_bn_source(ctx, scope, bn, ops, &r)) == NULL)
		return r;
	is_mm = scs_fuse_op_is(g, "MatMul");
	gemm = scs_opschema_find("", "Gemm", scs_opt_opset(ctx, scope, ""));
	if (gemm == NULL || gemm->since_version < 7)
		SCS_FUSE_REFUSE(ctx, scope, bn, "Gemm before opset 7 broadcasts C by its own attribute");
	if (g->n_input < 2 || !g->input[0][0] || !g->input[1][0])
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s has no weight", g->op_type);
	if (!scs_opt_constant(&b, ctx, scope, g->input[1], why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's weight: %s", g->op_type, why);
	scs_fuse_shape(shape, sizeof(shape), &b);
	if (!scs_fuse_is_float(b.dtype) || b.attr)
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's weight '%s' is %s, not a float16, bfloat16, float or double "
		    "tensor", g->op_type, g->input[1], scs_dtype_name(b.dtype));
	if (b.rank != 2 || b.n_elems <= 0)
		SCS_FUSE_REFUSE(ctx, scope, bn, "the %s's weight '%s' has shape %s, not 2-D", g->op_type, g->input[1],
		    shape);
	if (gemm->inputs[0].type_var >= 0 &&
	    !(gemm->type_vars[gemm->inputs[0].type_var].allowed & SCS_OPSCHEMA_BIT(b.dtype)))
		SCS_FUSE_REFUSE(ctx, scope, bn, "Gemm-%d does not take %s", gemm->since_version, scs_dtype_name(b.dtype));
	if (is_mm && !scs_fuse_ort_kernel(ctx, scope, "Gemm", "T", b.dtype, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, bn, "the MatMul would become a Gemm: %s", why);
	trans_b = !is_mm && scs_attr_int(g, "transB", 0) != 0;
	N = (uint64_t)scs_opt_const_dim(&b, trans_b ? 0 : 1);
	K = (uint64_t)scs_opt_const_dim(&b, trans_b ? 1 : 0);
	beta = is_mm ? 1.0 : (double)scs_attr_float(g, "beta", 1.0f);
	if (is_mm) {
		if ((r = scs_opt_facts(ctx, scope, g->input[0], &fa)) < 0)
			return r;
		if (fa.rank != 2)
			SCS_FUSE_REFUSE(ctx, scope, bn, "the MatMul's input '%s' is %s: only over a 2-D input is the "
			    "BatchNormalization's channel the MatMul's last axis", g->input[0],
			    fa.rank < 0 ? "of unknown rank" : fa.rank == 1 ? "1-D" : "over 2-D");
	}
	has_c = !is_mm && g->n_input > 2 && g->input[2][0] ? g->input[2] : NULL;
	c_rank = 1;
	c_dims[0] = (int64_t)N;
	if (has_c) {
		if (!scs_opt_constant(&c, ctx, scope, has_c, why, sizeof(why)))
			SCS_FUSE_REFUSE(ctx, scope, bn, "the Gemm's C: %s", why);
		scs_fuse_shape(shape, sizeof(shape), &c);
		if (c.dtype != b.dtype || c.rank > 2 || (c.rank >= 1 && scs_opt_const_dim(&c, c.rank - 1) != 1 &&
		    (uint64_t)scs_opt_const_dim(&c, c.rank - 1) != N) || c.n_elems <= 0)
			SCS_FUSE_REFUSE(ctx, scope, bn, "the Gemm's C '%s' is %s of shape %s, not %s broadcastable to [M,%llu]",
			    has_c, scs_dtype_name(c.dtype), shape, scs_dtype_name(b.dtype), (unsigned long long)N);
		old_cols = c.rank >= 1 ? (uint64_t)scs_opt_const_dim(&c, c.rank - 1) : 1;
		if (c.rank == 2) {
			old_rows = rows = (uint64_t)scs_opt_const_dim(&c, 0);
			c_rank = 2;
			c_dims[0] = (int64_t)rows;
			c_dims[1] = (int64_t)N;
		}
	}
	if (!scs_fuse_only_reader(ctx, scope, g, bn, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, bn, "%s", why);
	if ((r = scs_fuse_bn_check(&p, ctx, scope, bn, (int64_t)N)) <= 0)
		return r;

	if ((r = scs_opt_forward(ctx, scope, bn, 0, 0)) <= 0)
		return r;
	if ((r = scs_fuse_chan_open_bn(&chan, ctx, &p)) < 0 ||
	    (r = scs_fuse_write_weight(&b_id, ctx, &b, &chan, trans_b ? K : 1, N, trans_b ? 1 : K)) < 0 ||
	    (r = scs_fuse_write_bias(&c_id, ctx, b.dtype, has_c ? &c : NULL, old_rows, old_cols, beta, &chan, rows)) < 0) {
		scs_fuse_chan_close(&chan);
		return r;
	}
	scs_fuse_chan_close(&chan);
	snprintf(base, sizeof(base), "%s_fused", g->input[1]);
	if ((r = scs_fuse_put_input(&b_name, ctx, scope, g, 1, &b, b.dtype, b.t->dims, b.t->n_dims, b_id, base)) < 0)
		return r;
	if (has_c)
		snprintf(base, sizeof(base), "%s_fused", has_c);
	else
		snprintf(base, sizeof(base), "%s_bias", g->name && g->name[0] ? g->name : b_name);
	if ((r = scs_fuse_put_input(&c_name, ctx, scope, g, 2, has_c ? &c : NULL, b.dtype, c_dims, c_rank, c_id,
	    base)) < 0)
		return r;
	if (is_mm) {
		char *op = strdup("Gemm");

		if (op == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot rename an operator");
		scs_arena_release(g->op_type);
		g->op_type = op;
	} else if (scs_attr_find(g, "beta") && beta != 1.0 && (r = scs_opt_set_attr_float(g, "beta", 1.0f)) < 0) {
		return r;
	}
	*changed = 1;
	snprintf(why, sizeof(why), "%s: weight '%s', C '%s' (%llu features)", is_mm ? ", now a Gemm" : "", b_name, c_name,
	    (unsigned long long)N);
	return scs_fuse_bn_done(ctx, scope, g, &p, why);
}

int
scs_opt_fuse_bn_into_gemm(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_node(ctx, visit, changed);
}
