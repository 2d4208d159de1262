/*
 * eval_impl.h: what the kernel families (eval_math.c, eval_shape.c)
 * share, from their toolkit (eval_util.c): attributes, integer inputs,
 * element loads and stores, broadcasting. Private to the evaluator.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_EVAL_IMPL_H
#define SCS_EVAL_IMPL_H

#include <stdarg.h>
#include <string.h>

#include "onnx/dtype.h"
#include "util/err.h"
#include "eval/eval.h"

/* Kernels: SCS_OK, SCS_EVAL_DECLINED / TOO_BIG (through scs_eval_decline), or < 0. */
typedef int (*scs_eval_kernel)(scs_eval_call *c);

int scs_eval_decline(scs_eval_call *c, const char *fmt, ...) SCS_PRINTF(2, 3);

/* Output @i allocated like scs_eval_tensor_alloc, under c->max_bytes. */
int scs_eval_out(scs_eval_call *c, size_t i, int dtype, size_t rank, const int64_t *dims);

/*
 * *out = the bytes (*n_out, when not NULL: the elements) of a tensor of
 * @dtype and @dims: SCS_OK; DECLINED (element type, rank, dims), TOO_BIG
 * (over @max_bytes) or TOO_LARGE (over @max_hold) with @why. 0: no cap.
 */
int scs_eval_size(uint64_t *out, uint64_t *n_out, int dtype, size_t rank, const int64_t *dims, uint64_t max_bytes,
    uint64_t max_hold, char *why, size_t why_len);

/* Attribute @name of the node, or NULL. */
const Onnx__AttributeProto *scs_eval_attr(const scs_eval_call *c, const char *name);
int64_t scs_eval_attr_int(const scs_eval_call *c, const char *name, int64_t dflt);

/* Input @i, or NULL when absent (past the end or ""). */
const scs_eval_tensor *scs_eval_in(const scs_eval_call *c, size_t i);

/*
 * Integers of a list: input @i (int32 or int64, any rank) when present,
 * else attribute @attr when given. *n = count (at most @max); 0 when
 * neither is there (*present 0); DECLINED when malformed.
 */
int scs_eval_ints(scs_eval_call *c, size_t i, const char *attr, int64_t *out, size_t max, size_t *n, int *present);

/* @axis (may be negative) normalized into [0, rank); DECLINED when out of range. */
int scs_eval_axis(scs_eval_call *c, int64_t axis, size_t rank, size_t *out);

/* Element @k of @t as int64 (integers, bool; floats truncated) */
int64_t scs_eval_get_int(const scs_eval_tensor *t, uint64_t k);

/* Row-major strides (in elements) of dims. */
void scs_eval_strides(const int64_t *dims, size_t rank, uint64_t *strides);

/*
 * Multidirectional broadcasting of @k tensors (scs_eval_bcast, eval.h):
 * output dims into @b, and for each tensor its stride per output axis (0
 * where broadcast). DECLINED when the shapes do not broadcast.
 */
int scs_eval_bcast_init(scs_eval_call *c, scs_eval_bcast *b, const scs_eval_tensor *const *t, size_t k,
    const int64_t *extra, size_t extra_rank);
/* Advance to the next output element (off[] updated). */
void scs_eval_bcast_next(scs_eval_bcast *b);
/* Move to output element @k (idx[] and off[] set). */
void scs_eval_bcast_seek(scs_eval_bcast *b, uint64_t k);

/* Kernel families. */
int scs_eval_k_identity(scs_eval_call *c);
int scs_eval_k_shape(scs_eval_call *c);
int scs_eval_k_size(scs_eval_call *c);
int scs_eval_k_gather(scs_eval_call *c);
int scs_eval_k_gather_elements(scs_eval_call *c);
int scs_eval_k_unsqueeze(scs_eval_call *c);
int scs_eval_k_squeeze(scs_eval_call *c);
int scs_eval_k_concat(scs_eval_call *c);
int scs_eval_k_split(scs_eval_call *c);
int scs_eval_k_reshape(scs_eval_call *c);
int scs_eval_k_flatten(scs_eval_call *c);
int scs_eval_k_transpose(scs_eval_call *c);
int scs_eval_k_slice(scs_eval_call *c);
int scs_eval_k_constant_of_shape(scs_eval_call *c);
int scs_eval_k_expand(scs_eval_call *c);
int scs_eval_k_tile(scs_eval_call *c);
int scs_eval_k_pad(scs_eval_call *c);

/* Cast, CastLike, the elementwise arithmetic, logic, Where, DequantizeLinear: through scs_eval_ew_* */
int scs_eval_k_elementwise(scs_eval_call *c);
int scs_eval_k_variadic(scs_eval_call *c);
int scs_eval_k_range(scs_eval_call *c);
int scs_eval_k_reduce(scs_eval_call *c);
int scs_eval_k_pow(scs_eval_call *c);
int scs_eval_k_arg(scs_eval_call *c);                 /* ArgMax, ArgMin */
int scs_eval_k_isx(scs_eval_call *c);                 /* IsNaN, IsInf */

#endif
