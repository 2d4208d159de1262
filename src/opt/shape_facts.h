/*
 * shape_facts.h: what the shape passes share (opt/passes/eliminate_shape_op.c,
 * eliminate_shape_gather.c, eliminate_slice_after_shape.c,
 * fuse_concat_into_reshape.c, and fold_constants.c for the same chains):
 * the value of a small integer vector made from a tensor's dims, element by
 * element, where some dims are known and others (the batch) are not.
 *
 * Such a value is followed back through Shape (start and end from opset 15),
 * Gather on axis 0 by constant indices (negative ones counted from the end),
 * Slice by constant starts, ends, axes and steps (attributes before opset
 * 10), Concat on axis 0, Unsqueeze of a scalar and Squeeze of one element
 * (axes as attribute before opset 13), Cast between int32 and int64,
 * Identity, and constants. Each element is a number, or dim k of some
 * value: the number when what is known of that value (scs_opt_facts:
 * declarations, inference) has it; else its name (dim_param) when it has
 * one. Two unknown elements are the same dim when they are the same dim of
 * the same value, or carry the same name: inference passes a name on only
 * where a rule proves the dim the same, and a model's own names mean one
 * value wherever they occur (as a declared number is taken as given).
 *
 * Includes opt.h only. The passes include this header, never each other.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SHAPE_FACTS_H
#define SCS_SHAPE_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "opt/opt.h"

/* Elements a value followed here may have (a shape's rank at most). */
#define SCS_SHAPE_MAX SCS_INFER_MAX_RANK

typedef struct scs_shape_elem {
	int known;                  /* 1: v is the element */
	int64_t v;
	const char *of;             /* unknown: dim `dim` of value `of` as defined in scope `scope` */
	int scope;
	int dim;
	int64_t sym;                /* its symbol (< -1: named; -1: nameless; see infer.h) */
	int narrowed;               /* it went through a Cast to int32 (a dim of 2^31 or more would wrap) */
} scs_shape_elem;

typedef struct scs_shape_value {
	int rank;                   /* 0: a scalar; 1: a vector */
	int dtype;                  /* SCS_DT_INT64 or SCS_DT_INT32 */
	size_t n;
	scs_shape_elem e[SCS_SHAPE_MAX];
} scs_shape_value;

/*
 * The value of @name read in scope @scope, element by element: 1 and *out
 * when it is such a value (a constant counts, every element known); 0 when
 * it is not one this follows; < 0 on error.
 */
int scs_shape_value_of(scs_opt_ctx *ctx, int scope, const char *name, scs_shape_value *out);

/* 1 when @name, read in scope @scope, is the output of a Shape node. */
int scs_shape_is_shape_of(scs_opt_ctx *ctx, int scope, const char *name);

/* 1 when every element of @v is known. */
int scs_shape_all_known(const scs_shape_value *v);

/*
 * Output @j of @node (scope @scope) replaced by a new constant of @dtype and
 * @dims whose data is @payload: its readers read the constant (a name that
 * must stay, a graph output, is made by an Identity of it). *@t (may be
 * NULL) gets the tensor. The node itself is not dropped.
 */
int scs_shape_install(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t j, uint32_t payload, int dtype,
    const int64_t *dims, size_t rank, Onnx__TensorProto **t);

/*
 * @node's output 0, when its value (scs_shape_value_of) is known in every
 * element although the node reads values that are not constants: replaced
 * by a constant, the node dropped and the change reported. 1 when done
 * (*@t, may be NULL: the new constant); 0 when not such a node, or not
 * known in every element (with @explain, the first unknown dim is reported
 * as the refusal); < 0 on error.
 */
int scs_shape_fold(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, int explain, Onnx__TensorProto **t);

/*
 * A Reshape (opset 5 on) whose target is not a constant but is such a
 * value: the target replaced by a constant where that is exact. Known
 * elements stay; an unknown one that is the same dim as the data's dim at
 * its place becomes 0 (copy it; not with allowzero); then at most one
 * unknown may be left, which becomes -1 where the target has no -1 already
 * and every other output dim is provably not 0 (else -1 could not tell
 * it). An element that went through a Cast to int32 needs the same proof
 * for the others (then a wrapped dim would have made the original fail).
 * 1 when done (reported), 0 when not (with @explain, a refusal reported
 * when the target is such a value), < 0 on error.
 */
int scs_shape_reshape(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, int explain);

#endif
