/*
 * infer.h: what is known of each value of a main graph: its element type
 * and its shape (rank, and each dim where it is known), from the model's
 * declarations (inputs, outputs, value_info, initializers) and, where
 * those are silent, inferred through the standard operators. Used to
 * describe the tensors a split cuts: a graph input or output needs both.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_INFER_H
#define SCS_INFER_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "util/strmap.h"

#define SCS_INFER_MAX_RANK 16

/*
 * A dim is a number (0 or more), or unknown: -1 when nameless, below -1 when
 * the model names it (dim_param), -1 - k for symbol k (1, 2, ...) of the
 * scs_infer's name table. A rule that passes a dim through keeps its name;
 * one that computes a dim from an unknown one gives -1 (names are never
 * invented), and a dim known as a number has no name.
 */
typedef struct scs_vfacts {
	int32_t elem;                               /* element type; 0 when unknown */
	int rank;                                   /* -1 when unknown */
	int64_t dims[SCS_INFER_MAX_RANK];           /* negative where unknown (see above) */
	const Onnx__TensorShapeProto *declared;     /* the model's own shape, when it has one that inference
	                                               did not refine */
} scs_vfacts;

/* What scs_infer holds of a value: 24 bytes, and its dims in a shared pool
 * (a graph may have millions of values, most of low rank). */
typedef struct scs_vfacts_packed {
	const Onnx__TensorShapeProto *declared;
	uint32_t dims_at;                           /* the rank dims at dims[dims_at] */
	int32_t elem;
	int8_t rank;                                /* -1 when unknown */
} scs_vfacts_packed;

typedef struct scs_infer {
	scs_model *m;
	scs_strmap index;                           /* name -> position in items */
	scs_vfacts_packed *items;
	size_t n, cap;
	int64_t *dims;                              /* every known rank's dims, written once */
	size_t n_dims, cap_dims;
	scs_strmap sym_index;                       /* dim_param -> symbol */
	char **syms;                                /* symbol k's name at syms[k - 1] */
	size_t n_syms, cap_syms;
	int nomem;                                  /* a name could not be kept */
	/* scs_infer_graph_checked(): called where a node's output as inferred
	 * (@inferred) contradicts what the model declares of it (@declared):
	 * another element type, another rank, another fixed dim */
	void (*conflict)(void *ctx, const Onnx__NodeProto *n, size_t output, const scs_vfacts *declared,
	    const scs_vfacts *inferred);
	void *conflict_ctx;
} scs_infer;

/* Learn the facts of @m's main graph, visiting nodes in @order (topological). */
int scs_infer_graph(scs_infer *out, scs_model *m, const size_t *order, size_t n_order);

/* The same, calling @conflict (when not NULL) with @ctx for each output
 * whose inferred type or shape contradicts its declaration (the declaration
 * is kept, as always). */
int scs_infer_graph_checked(scs_infer *out, scs_model *m, const size_t *order, size_t n_order,
    void (*conflict)(void *ctx, const Onnx__NodeProto *n, size_t output, const scs_vfacts *declared,
    const scs_vfacts *inferred), void *ctx);

/* 1 and the facts of @name in *out, or 0 when nothing is known. */
int scs_infer_get(const scs_infer *inf, const char *name, scs_vfacts *out);

/* 1 when @name's element type and rank are known (enough for a graph input or output). */
int scs_infer_describable(const scs_infer *inf, const char *name);

/* A ValueInfoProto for @name (the declared shape when there is one); NULL on ENOMEM.
 * A new message the caller owns: put it into a model (which then frees it) or
 * free it with scs_model_free_message(). */
Onnx__ValueInfoProto *scs_infer_value_info(const scs_infer *inf, const char *name);

void scs_infer_dispose(scs_infer *inf);

/*
 * Give graph input NAME of @m's main graph the dims of @spec
 * ("NAME=1,3,224,224"; "NAME=" for a scalar), replacing its declared shape,
 * as onnx-simplifier's --overwrite-input-shape does. SCS_EUSAGE when @spec
 * is malformed, names no graph input, or contradicts the declared shape
 * (another rank, or another value for a fixed dim; a symbolic or unknown
 * dim takes any).
 */
int scs_infer_set_input_shape(scs_model *m, const char *spec);

/*
 * Fill what @f does not know yet (elem <= 0, rank < 0) from a declared tensor
 * type; other types add nothing. Its dim_params become symbols of @inf (NULL:
 * nameless unknown dims).
 */
void scs_infer_facts_from_type(scs_vfacts *f, const Onnx__TypeProto *type, scs_infer *inf);

/* The dim_param of dim @dim (a symbol of @inf), or NULL when it has none. Borrowed, as scs_infer_get(). */
const char *scs_infer_dim_name(const scs_infer *inf, int64_t dim);

#endif
