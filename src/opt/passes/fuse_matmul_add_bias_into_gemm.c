/*
 * fuse_matmul_add_bias_into_gemm.c: MatMul of a 2-D A [M,K] by a 2-D
 * B [K,N], followed by an Add of a C that broadcasts to [M,N] without
 * growing it (a scalar, [N], [1], [1,N], [M,1], [M,N], ...), becomes
 * Gemm(A, B, C) (alpha = beta = 1). No value is computed: the node is
 * rewired. Gemm adds C inside, so a runtime may round differently than
 * MatMul then Add (the tests state the largest difference seen).
 *
 * The Add becomes the Gemm, keeping its place and its output's name, and
 * the MatMul goes: C may be made by a node listed between the two, so only
 * the Add's place has every input of the Gemm defined before it.
 *
 * Left alone, with the reason: an A or B not known to be 2-D, a C whose
 * shape is not known or would broadcast the product to a larger shape, a
 * MatMul whose output something else reads or that is a graph output, an
 * element type Gemm does not take at the model's opset, or that ONNX
 * Runtime has no CPU Gemm kernel for (integers, float16, bfloat16: the
 * output must load wherever the input did), opsets before 7, and a MatMul
 * or Add reading a DequantizeLinear's output (a quantized graph's
 * DequantizeLinear -> op -> QuantizeLinear pattern).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "opt/fuse.h"
#include "onnx/opschema.h"

static void
facts_shape(char *out, size_t len, const scs_vfacts *f)
{
	size_t used = 0;

	if (f->rank < 0) {
		snprintf(out, len, "of unknown shape");
		return;
	}
	used += (size_t)snprintf(out, len, "[");
	for (int i = 0; i < f->rank && used < len; i++)
		used += f->dims[i] >= 0 ? (size_t)snprintf(out + used, len - used, "%s%lld", i ? "," : "",
		    (long long)f->dims[i]) : (size_t)snprintf(out + used, len - used, "%s?", i ? "," : "");
	if (used < len)
		snprintf(out + used, len - used, "]");
}

/* The input of MatMul @mm or the Add's other input @c that a DequantizeLinear
 * makes (a quantized graph's pattern, which a Gemm would hide), or NULL. */
static const char *
dequantized(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *mm, const char *c)
{
	const char *names[3] = { mm->input[0], mm->input[1], c };
	Onnx__NodeProto *p;

	for (size_t i = 0; i < 3; i++)
		if ((p = scs_opt_producer(ctx, scope, names[i])) != NULL && scs_fuse_op_is(p, "DequantizeLinear"))
			return names[i];
	return NULL;
}

static int
visit(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *add, void *payload)
{
	int *changed = payload, r;
	Onnx__NodeProto *mm = NULL;
	const scs_opschema *gemm;
	scs_vfacts fa, fb, fc;
	size_t which;
	int64_t M, N;
	const char *cname;
	char why[768], shape[160];
	char *op;

	if (!scs_fuse_op_is(add, "Add") || add->n_input != 2 || !add->input[0][0] || !add->input[1][0])
		return SCS_OK;
	for (which = 0; which < 2; which++) {
		mm = scs_opt_producer(ctx, scope, add->input[which]);
		if (mm && !scs_opt_is_dropped(ctx, scope, mm) && scs_fuse_op_is(mm, "MatMul"))
			break;
	}
	if (which == 2)
		return SCS_OK;
	cname = add->input[1 - which];
	if ((r = scs_opt_is_op(ctx, scope, add, "Add")) <= 0 || (r = scs_opt_is_op(ctx, scope, mm, "MatMul")) <= 0)
		return r;
	gemm = scs_opschema_find("", "Gemm", scs_opt_opset(ctx, scope, ""));
	if (gemm == NULL || gemm->since_version < 7)
		SCS_FUSE_REFUSE(ctx, scope, add, "Gemm before opset 7 broadcasts C by its own attribute");
	if (mm->n_input != 2 || !mm->input[0][0] || !mm->input[1][0])
		SCS_FUSE_REFUSE(ctx, scope, add, "the MatMul does not have two inputs");
	if ((cname = dequantized(ctx, scope, mm, add->input[1 - which])) != NULL)
		SCS_FUSE_REFUSE(ctx, scope, add, "'%s' comes from a DequantizeLinear: runtimes match DequantizeLinear -> "
		    "MatMul / Add -> QuantizeLinear to run quantized kernels", cname);
	cname = add->input[1 - which];
	if ((r = scs_opt_facts(ctx, scope, mm->input[0], &fa)) < 0 || (r = scs_opt_facts(ctx, scope, mm->input[1], &fb)) < 0 ||
	    (r = scs_opt_facts(ctx, scope, cname, &fc)) < 0)
		return r;
	if (fa.rank != 2 || fb.rank != 2) {
		facts_shape(shape, sizeof(shape), fa.rank != 2 ? &fa : &fb);
		SCS_FUSE_REFUSE(ctx, scope, add, "the MatMul's %s '%s' is %s, not 2-D", fa.rank != 2 ? "A" : "B",
		    fa.rank != 2 ? mm->input[0] : mm->input[1], shape);
	}
	M = fa.dims[0] < 0 ? -1 : fa.dims[0];     /* a named dim is unknown here */
	N = fb.dims[1] < 0 ? -1 : fb.dims[1];
	facts_shape(shape, sizeof(shape), &fc);
	if (fc.rank < 0 || fc.rank > 2)
		SCS_FUSE_REFUSE(ctx, scope, add, "'%s' is %s: not known to broadcast to the MatMul's [M,N]", cname, shape);
	for (int k = 0; k < fc.rank; k++) {
		int64_t d = fc.dims[k], want = k == fc.rank - 1 ? N : M;

		if (d != 1 && (d < 0 || want < 0 || d != want))
			SCS_FUSE_REFUSE(ctx, scope, add, "'%s' is %s: not known to broadcast to the MatMul's [%lld,%lld] "
			    "without growing it", cname, shape, (long long)M, (long long)N);
	}
	if (fa.elem <= 0 || fa.elem != fc.elem || (gemm->inputs[0].type_var >= 0 &&
	    !(gemm->type_vars[gemm->inputs[0].type_var].allowed & SCS_OPSCHEMA_BIT(fa.elem))))
		SCS_FUSE_REFUSE(ctx, scope, add, "element type %s (A) and %s (C): Gemm-%d does not take them",
		    fa.elem > 0 ? scs_dtype_name(fa.elem) : "unknown", fc.elem > 0 ? scs_dtype_name(fc.elem) : "unknown",
		    gemm->since_version);
	if (!scs_fuse_ort_kernel(ctx, scope, "Gemm", "T", fa.elem, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, add, "%s", why);
	if (add->n_attribute > 0)
		SCS_FUSE_REFUSE(ctx, scope, add, "the Add has attribute '%s', which Gemm does not take",
		    add->attribute[0]->name ? add->attribute[0]->name : "");
	if (!scs_fuse_only_reader(ctx, scope, mm, add, why, sizeof(why)))
		SCS_FUSE_REFUSE(ctx, scope, add, "%s", why);

	/* the Add's slots take A, B, C (the old names stay valid until the commit) */
	if ((r = scs_opt_set_input(ctx, add, 2, cname)) < 0 || (r = scs_opt_set_input(ctx, add, 0, mm->input[0])) < 0 ||
	    (r = scs_opt_set_input(ctx, add, 1, mm->input[1])) < 0 || (r = scs_opt_drop_node(ctx, scope, mm)) < 0)
		return r;
	if ((op = strdup("Gemm")) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot rename an operator");
	scs_arena_release(add->op_type);
	add->op_type = op;
	*changed = 1;
	return scs_opt_did(ctx, scope, add, "now a Gemm of '%s' by '%s' with C '%s' (the MatMul%s%s%s folded in)",
	    add->input[0], add->input[1], add->input[2], mm->name && mm->name[0] ? " '" : "",
	    mm->name && mm->name[0] ? mm->name : "", mm->name && mm->name[0] ? "'" : "");
}

int
scs_opt_fuse_matmul_add_bias_into_gemm(scs_opt_ctx *ctx, int *changed)
{
	return scs_opt_each_node(ctx, visit, changed);
}
