/*
 * eval_impl.h: what the kernel families (eval_*.c) share: attributes,
 * integer inputs, element loads and stores, broadcasting. Private to the
 * evaluator.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_EVAL_IMPL_H
#define SCS_EVAL_IMPL_H

#include <stdarg.h>
#include <string.h>

#include "dtype.h"
#include "err.h"
#include "eval.h"

/* Kernels: SCS_OK, SCS_EVAL_DECLINED / TOO_BIG (through scs_eval_decline), or < 0. */
typedef int (*scs_eval_kernel)(scs_eval_call *c);

int scs_eval_decline(scs_eval_call *c, const char *fmt, ...) SCS_PRINTF(2, 3);

/* Output @i allocated like scs_eval_tensor_alloc, under c->max_bytes. */
int scs_eval_out(scs_eval_call *c, size_t i, int dtype, size_t rank, const int64_t *dims);

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
 * Multidirectional broadcasting of @k tensors: output dims into @b, and
 * for each tensor its stride per output axis (0 where broadcast). DECLINED
 * when the shapes do not broadcast.
 */
typedef struct scs_eval_bcast {
	size_t rank, k;
	int64_t dims[SCS_EVAL_MAX_RANK];
	uint64_t stride[4][SCS_EVAL_MAX_RANK];
	uint64_t idx[SCS_EVAL_MAX_RANK];
	uint64_t off[4];
	uint64_t n;
} scs_eval_bcast;

int scs_eval_bcast_init(scs_eval_call *c, scs_eval_bcast *b, const scs_eval_tensor *const *t, size_t k,
    const int64_t *extra, size_t extra_rank);
/* Advance to the next output element (off[] updated). */
void scs_eval_bcast_next(scs_eval_bcast *b);

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
int scs_eval_k_where(scs_eval_call *c);

int scs_eval_k_cast(scs_eval_call *c);
int scs_eval_k_cast_like(scs_eval_call *c);
int scs_eval_k_binary(scs_eval_call *c);
int scs_eval_k_variadic(scs_eval_call *c);
int scs_eval_k_unary(scs_eval_call *c);
int scs_eval_k_range(scs_eval_call *c);
int scs_eval_k_reduce(scs_eval_call *c);
int scs_eval_k_dequantize(scs_eval_call *c);
int scs_eval_k_pow(scs_eval_call *c);

#endif
