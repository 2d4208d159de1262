/*
 * infer_impl.h: what the shape rules (infer.c, infer_nn.c, infer_flow.c)
 * share, from their toolkit (infer_util.c): the constants a rule may read,
 * dim arithmetic and broadcasting (attributes: attr.h), and a rule's view
 * of its node. Private to shape inference.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_INFER_IMPL_H
#define SCS_INFER_IMPL_H

#include <stdint.h>

#include "onnx/attr.h"
#include "infer/infer.h"
#include "util/strmap.h"

/* At most this many values of a constant are read by a rule (Reshape's shape, axes, scales, ...). */
#define SCS_INFER_MAX_CONST 64

/* At most this many elements of a small integer value are followed (data propagation, infer_values.c). */
#define SCS_INFER_MAX_PVAL 16

/* What an element of a followed value is: a number, a dim's symbol (v < -1, as in scs_vfacts), or unknown. */
enum { SCS_PV_NUM = 0, SCS_PV_SYM = 1, SCS_PV_UNK = 2 };

/*
 * The value of a small int64/int32 tensor of rank 0 or 1 as far as it is
 * known (Shape's dims, Gather, Slice, Concat, ... of them; see
 * infer_values.c): each element a number, a symbol or unknown.
 */
typedef struct scs_infer_pval {
	int64_t v[SCS_INFER_MAX_PVAL];
	uint8_t kind[SCS_INFER_MAX_PVAL];
	int8_t n;                 /* elements */
	int8_t scalar;            /* rank 0 (then n is 1) */
} scs_infer_pval;

/* The constants of the graph (initializers, Constant nodes) by name, and the followed values. */
typedef struct scs_infer_consts {
	scs_strmap by_name;       /* name -> index into t */
	const Onnx__TensorProto **t;
	size_t n, cap;
	scs_strmap pv_by_name;    /* name -> index into pv */
	scs_infer_pval *pv;
	size_t n_pv, cap_pv;
} scs_infer_consts;

/* 1 and the value of @name (a small integer constant, or one followed) in *out; 0 when it is not known. */
int scs_infer_value(scs_infer *inf, const scs_infer_consts *c, const char *name, scs_infer_pval *out);

/* Follow the value of @n's output 0 when it is a small integer computed from known ones (infer_values.c). */
int scs_infer_values_node(scs_infer *inf, scs_infer_consts *c, const Onnx__NodeProto *n);

/* Add tensor @t as constant @name (none when @name is empty). */
int scs_infer_const_add(scs_infer_consts *c, const char *name, const Onnx__TensorProto *t);

/*
 * The int64 (or int32) values of constant @name into @out (SCS_INFER_MAX_CONST
 * at most), or of a followed value whose elements are all numbers: count, or -1.
 */
int scs_infer_const_ints(scs_infer *inf, const scs_infer_consts *c, const char *name, int64_t *out);

/* The one number of constant @name (int32, int64, float, double) in *out: 1, or 0 when it is not one. */
int scs_infer_const_number(scs_infer *inf, const scs_infer_consts *c, const char *name, double *out);

/*
 * 0 when constant indices @name (int64 or int32, a few) hold one outside
 * [-dim, dim), which ONNX Runtime refuses; 1 otherwise (also when @dim or
 * the indices are unknown).
 */
int scs_infer_indices_ok(scs_infer *inf, const scs_infer_consts *c, const char *name, int64_t dim);

/* The float (float32) values of constant @name into @out (SCS_INFER_MAX_CONST at most): count, or -1. */
int scs_infer_const_floats(scs_infer *inf, const scs_infer_consts *c, const char *name, float *out);

/* @f gets rank @rank, every dim unknown. */
void scs_infer_unknown_dims(scs_vfacts *f, int rank);

/* numpy broadcasting of @a and @b into @out (which may be @a); 0 when a rank is unknown. */
int scs_infer_broadcast(const scs_vfacts *a, const scs_vfacts *b, scs_vfacts *out);

/* Known dims add and multiply; -1 when either is unknown or the result passes INT64_MAX (a file's dims can). */
static inline int64_t
scs_infer_dim_add(int64_t a, int64_t b)
{
	return a < 0 || b < 0 || a > INT64_MAX - b ? -1 : a + b;
}

/* 1 * d is d, its name kept (as ONNX's shape inference does); @a and @b are dims (see scs_vfacts). */
static inline int64_t
scs_infer_dim_mul(int64_t a, int64_t b)
{
	if (a == 1 || b == 1)
		return a == 1 ? b : a;
	return a < 0 || b < 0 || (a != 0 && b > INT64_MAX / a) ? -1 : a * b;
}

/*
 * Two sightings of one dim (the same in a valid model): the number if either
 * gives one, else @a's name, else @b's (ONNX's merge of dims).
 */
static inline int64_t
scs_infer_dim_pick(int64_t a, int64_t b)
{
	return a >= 0 ? a : b >= 0 ? b : a < -1 ? a : b;
}

/*
 * numpy broadcasting of one dim: 1 gives the other; a number but 1 wins
 * over an unknown; two unknowns stay one only when they have the same name
 * (an unknown may be 1 at run time). Numbers that differ (an invalid
 * model, which ONNX Runtime refuses): unknown, so that nothing is folded
 * or written from it.
 */
static inline int64_t
scs_infer_broadcast_dim(int64_t a, int64_t b)
{
	return a == 1 ? b : b == 1 ? a : a == b ? a : a >= 0 && b >= 0 ? -1 : a >= 0 ? a : b >= 0 ? b : -1;
}

/*
 * What a neural-network rule (infer_nn.c, infer_flow.c) sees: the
 * inference, the constants, node @n, its inputs' facts @in, and the opset
 * of its domain.
 */
typedef struct scs_infer_rule {
	scs_infer *inf;
	const scs_infer_consts *c;
	const Onnx__NodeProto *n;
	const scs_vfacts *in;
	int64_t opset;
} scs_infer_rule;

/* Input @i's facts when its rank is known, else NULL. */
static inline const scs_vfacts *
scs_infer_input(const scs_infer_rule *r, size_t i)
{
	return i < r->n->n_input && r->n->input[i][0] && r->in[i].rank >= 0 ? &r->in[i] : NULL;
}

/* *@axis counted from the end when negative: 1 when it is then within [0, @rank). */
static inline int
scs_infer_axis_in(int64_t *axis, int rank)
{
	if (*axis < 0)
		*axis += rank;
	return *axis >= 0 && *axis < rank;
}

/* The control-flow rules (infer_flow.c), output @j of If, Loop, Scan into @o. */
void scs_infer_if(const scs_infer_rule *r, size_t j, scs_vfacts *o);
void scs_infer_loop(const scs_infer_rule *r, size_t j, scs_vfacts *o);
void scs_infer_scan(const scs_infer_rule *r, size_t j, scs_vfacts *o);

/*
 * The shapes and element types of the neural-network operators' outputs
 * (infer_nn.c: convolution, pooling, normalization, recurrent layers,
 * losses, index and quantization operators, window functions, ...).
 * Output @j of @n into @o (rank -1 when unknown; o->elem > 0 when the rule
 * settles the type, else the schema does), from its inputs' facts @in.
 * 1 when the rule knows @n's operator, 0 when the general rules must do.
 */
int scs_infer_nn(scs_infer *inf, const scs_infer_consts *c, const Onnx__NodeProto *n, const scs_vfacts *in, size_t j,
    scs_vfacts *o);

#endif
