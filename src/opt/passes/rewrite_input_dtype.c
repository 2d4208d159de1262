/*
 * rewrite_input_dtype.c: the main graph's int64 inputs become int32 inputs,
 * each followed by a Cast back to int64 that its readers read (in nested
 * bodies too), onnxoptimizer's rewrite for runtimes that take int32 more
 * readily. This changes the model's interface, which is what asking for
 * the pass means: callers pass int32 now, so values outside int32's range
 * can no longer be given; for every value that fits, the model computes
 * what it did.
 *
 * Left alone, with the reason: an input with an initializer (a default a
 * caller may override: onnxoptimizer leaves it too), an input that is also a
 * graph output (the output's type would change), and any input before opset
 * 6 (Cast names its type as a string there). An input nothing reads is
 * retyped without a Cast.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "opt/opt.h"

typedef struct retyped {
	Onnx__ValueInfoProto *vi;
	const char *cast;                   /* the Cast's output (the ctx's), NULL when nothing reads the input */
} retyped;

/* 1 when @vi is an int64 tensor input. */
static int
is_int64(const Onnx__ValueInfoProto *vi)
{
	return vi->name && vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
	    vi->type->tensor_type && vi->type->tensor_type->elem_type == SCS_DT_INT64;
}

/* Which inputs to retype, into @list (*@n of them); their readers' renames queued. */
static int
choose(scs_opt_ctx *ctx, Onnx__GraphProto *g, retyped *list, size_t *n)
{
	char why[512], base[300];
	int r;

	for (size_t i = 0; i < g->n_input; i++) {
		Onnx__ValueInfoProto *vi = g->input[i];
		const char *cast = NULL;
		int out = 0;

		if (!is_int64(vi) || scs_opt_initializer(ctx, 0, vi->name))
			continue;
		for (size_t j = 0; j < g->n_output; j++)
			out |= g->output[j]->name && strcmp(g->output[j]->name, vi->name) == 0;
		if (out) {
			if (scs_opt_refuse_value(ctx, 0, vi->name, "left int64: it is a graph output too") < 0)
				return -1;
			continue;
		}
		if (scs_opt_opset(ctx, 0, NULL) < 6) {
			if (scs_opt_refuse_value(ctx, 0, vi->name, "left int64: before opset 6, Cast names its type as a "
			    "string") < 0)
				return -1;
			continue;
		}
		if (scs_opt_n_uses(ctx, 0, vi->name)) {
			snprintf(base, sizeof(base), "%.250s_int64", vi->name);
			if ((r = scs_opt_fresh_name(&cast, ctx, base)) < 0)
				return r;
			if ((r = scs_opt_rename(ctx, 0, vi->name, cast, why, sizeof(why))) <= 0) {
				if (r < 0)
					return r;
				if (scs_opt_refuse_value(ctx, 0, vi->name, "left int64: %s", why[0] ? why : "its readers "
				    "are being rewritten") < 0)
					return -1;
				continue;
			}
		}
		list[*n].vi = vi;
		list[(*n)++].cast = cast;
	}
	return SCS_OK;
}

int
scs_opt_rewrite_input_dtype(scs_opt_ctx *ctx, int *changed)
{
	Onnx__GraphProto *g = ctx->scopes.n ? ctx->scopes.items[0].graph : NULL;
	retyped *list;
	size_t n = 0;
	int r;

	if (g == NULL || g->n_input == 0)
		return SCS_OK;
	if ((list = malloc(g->n_input * sizeof(*list))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot list the inputs");
	/* the readers read the Cast's output from this commit on; the Casts come after it, reading the input */
	if ((r = choose(ctx, g, list, &n)) < 0 || n == 0 || (r = scs_opt_commit(ctx)) < 0)
		goto done;
	for (size_t k = 0; k < n; k++) {
		const char *in = list[k].vi->name;
		Onnx__NodeProto *cast;

		list[k].vi->type->tensor_type->elem_type = SCS_DT_INT32;
		if (list[k].cast) {
			if ((cast = scs_opt_node_new("Cast", list[k].cast, &in, 1, &list[k].cast, 1)) == NULL) {
				r = scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a node");
				goto done;
			}
			if ((r = scs_opt_set_attr_int(cast, "to", SCS_DT_INT64)) < 0) {
				scs_opt_node_free(ctx, cast);
				goto done;
			}
			if ((r = scs_opt_insert_node(ctx, 0, g->n_node ? g->node[0] : NULL, cast)) < 0)
				goto done;
		}
		if ((r = scs_opt_did_value(ctx, 0, in, "int64 input now int32%s", list[k].cast ? ", cast back to int64 "
		    "for its readers" : " (nothing reads it)")) < 0)
			goto done;
	}
	scs_opt_touch(ctx);
	*changed = 1;
done:
	free(list);
	return r < 0 ? r : SCS_OK;
}
