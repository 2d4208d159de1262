/*
 * eval.h: the evaluator: one kernel per standard operator over whole
 * tensors in memory, for constant folding (opt/passes/fold_constants.c) and the
 * conformance tests. A tensor's bytes are raw_data's layout (little-endian
 * elements, row-major); the evaluator runs on little-endian hosts only
 * (scs_eval_host_ok).
 *
 * Results are what ONNX Runtime computes, bit for bit: float arithmetic in
 * the element type (float16 and bfloat16 computed in float and rounded
 * once, to nearest even), integer arithmetic wrapping at the element's
 * width. Where a runtime's result is not defined (integer division by
 * zero, a float out of an integer's range cast to it, an index out of
 * range) or depends on an order of operations a runtime may choose (a
 * float sum of more than two terms), the kernel declines instead
 * (SCS_EVAL_DECLINED, or sets *inexact), with the reason. The math
 * library's functions (Exp, Log, Pow, Tanh, Sigmoid, Erf, Sin, Cos, ...)
 * compute in double, round once, and set *inexact: a runtime's own
 * implementations round otherwise.
 *
 * The elementwise operators (Identity, Cast, CastLike, the arithmetic,
 * comparisons, logic, Min, Max, Where, DequantizeLinear, the math
 * library's functions) also run a window of output elements at a time
 * (scs_eval_ew_*): an operand that has the output's elements in order is
 * handed in a window at a time, the others whole; their kernels in memory
 * are the same code run over one window of every element, so both ways
 * give the same bits.
 *
 * eval_*.c hold the kernel families and include eval_impl.h. Nothing here reads the store: the caller hands
 * tensors (or windows of them) in, and converts attribute tensors through
 * tensor_of.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_EVAL_H
#define SCS_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"

#define SCS_EVAL_MAX_RANK 32

typedef struct scs_eval_tensor {
	int dtype;                          /* SCS_DT_*; 0: an absent optional input */
	size_t rank;
	int64_t dims[SCS_EVAL_MAX_RANK];
	uint64_t n;                         /* element count */
	uint8_t *data;                      /* n elements, raw_data layout; owned (malloc) */
} scs_eval_tensor;

/* Kernel results besides SCS_OK and errors (< 0): */
enum {
	SCS_EVAL_DECLINED = 1,              /* not computed: an unsupported case, *why says which */
	SCS_EVAL_TOO_BIG = 2,               /* an output over max_bytes */
	SCS_EVAL_TOO_LARGE = 3,             /* an output or working buffer over max_hold: too large to hold */
};

/* The attribute tensor @t as a tensor (*out owned by the caller); SCS_OK, DECLINED, or < 0. */
typedef int (*scs_eval_tensor_fn)(void *payload, const Onnx__TensorProto *t, scs_eval_tensor *out, char *why,
    size_t why_len);

typedef struct scs_eval_call {
	const Onnx__NodeProto *node;
	int64_t opset;                      /* of the default domain */
	const scs_eval_tensor *in;          /* node->n_input of them (dtype 0 where the name is "") */
	size_t n_in;
	scs_eval_tensor *out;               /* node->n_output of them, zeroed by the caller */
	size_t n_out;
	uint64_t max_bytes;                 /* cap on each output (0: none) */
	uint64_t max_hold;                  /* cap on each buffer a kernel allocates (0: none) */
	scs_eval_tensor_fn tensor_of;       /* for tensor attributes (ConstantOfShape's value) */
	void *tensor_payload;
	int inexact;                        /* set by the kernel: another runtime may round otherwise */
	char *why;                          /* the reason of a DECLINED / TOO_BIG */
	size_t why_len;
} scs_eval_call;

/* Broadcasting of up to SCS_EVAL_EW_MAX operands over an output's elements (eval_impl.h). */
#define SCS_EVAL_EW_MAX 4

typedef struct scs_eval_bcast {
	size_t rank, k;
	int64_t dims[SCS_EVAL_MAX_RANK];
	uint64_t stride[SCS_EVAL_EW_MAX][SCS_EVAL_MAX_RANK];
	uint64_t idx[SCS_EVAL_MAX_RANK];
	uint64_t off[SCS_EVAL_EW_MAX];
	uint64_t n;
} scs_eval_bcast;

/*
 * An elementwise node planned: what scs_eval_ew_plan() found in the call's
 * attributes and input types and dims (their data is not looked at).
 */
typedef struct scs_eval_ew {
	int fn, op, cl;                     /* private: the computation */
	int odt;                            /* output element type */
	size_t rank;                        /* output dims */
	int64_t dims[SCS_EVAL_MAX_RANK];
	uint64_t n;                         /* output elements */
	size_t k;                           /* operands */
	size_t in[SCS_EVAL_EW_MAX];         /* operand j is input in[j] of the call */
	int full[SCS_EVAL_EW_MAX];          /* 1: operand j's element i is read for output element i */
	scs_eval_bcast bc;                  /* private: operand offsets at output element 0 */
	size_t axis;                        /* private: DequantizeLinear */
	int64_t block;
	uint64_t st[SCS_EVAL_MAX_RANK];
} scs_eval_ew;

/* 1 when @op_type (default domain) is an elementwise operator scs_eval_ew_plan() takes. */
int scs_eval_ew_has(const char *op_type);

/*
 * Plan @c->node (an elementwise operator) from its attributes and the
 * element types and dims of c->in (data may be NULL). SCS_OK; DECLINED or
 * TOO_BIG (output over c->max_bytes) with c->why. Sets c->inexact.
 */
int scs_eval_ew_plan(scs_eval_ew *p, scs_eval_call *c);

/*
 * Output elements [@first, @first + @count) of plan @p into @out (raw_data
 * layout). @in[j] holds operand j (input p->in[j] of @c): from its element
 * @first when p->full[j], else whole. SCS_OK, or DECLINED with c->why
 * naming the element (an integer division by zero, a float out of an
 * integer's range).
 */
int scs_eval_ew_run(const scs_eval_ew *p, scs_eval_call *c, uint64_t first, uint64_t count, const uint8_t *const *in,
    uint8_t *out);

/* 1 when a kernel for @op_type (default domain) exists. */
int scs_eval_has(const char *op_type);

/* The operators with a kernel, in alphabetical order, NULL-terminated. */
const char *const *scs_eval_ops(void);

/* 1 when the host stores numbers little-endian (the evaluator's buffers are raw_data's layout). */
int scs_eval_host_ok(void);

/*
 * Run @c->node's kernel. SCS_OK with every output filled; SCS_EVAL_DECLINED
 * or SCS_EVAL_TOO_BIG with c->why (outputs freed); < 0 on memory errors.
 */
int scs_eval_run(scs_eval_call *c);

/* Bytes per element of @dtype, or 0 for strings and sub-byte types (which the evaluator declines). */
size_t scs_eval_esize(int dtype);

/* Bytes of @t's data. */
uint64_t scs_eval_bytes(const scs_eval_tensor *t);

/*
 * A zeroed buffer of @len bytes for the evaluator and the folding that
 * drives it (free()); NULL when out of memory. Test builds record the
 * largest (scs_eval_largest_for_tests).
 */
void *scs_eval_alloc(size_t len);

#ifdef SCS_TEST_HOOKS
/* Test builds only: the largest scs_eval_alloc() since the last call with @reset. */
uint64_t scs_eval_largest_for_tests(int reset);
#endif

/* Free @t's data and zero it. NULL-safe. */
void scs_eval_tensor_free(scs_eval_tensor *t);

/* @t of @dtype and @dims, data allocated (zeroed). SCS_EVAL_TOO_BIG over @max_bytes (0: none). */
int scs_eval_tensor_alloc(scs_eval_tensor *t, int dtype, size_t rank, const int64_t *dims, uint64_t max_bytes,
    char *why, size_t why_len);

/*
 * @t from a TensorProto whose data is in the message itself (raw_data or
 * the typed fields, as in a .pb file): SCS_OK, DECLINED (strings, external
 * data, sub-byte types), or < 0.
 */
int scs_eval_from_proto(const Onnx__TensorProto *t, scs_eval_tensor *out, char *why, size_t why_len);

/* Bit for bit equal (NaN equals NaN of any payload): 1; else 0 with the first difference in @why. */
int scs_eval_equal(const scs_eval_tensor *a, const scs_eval_tensor *b, double rtol, double atol, char *why,
    size_t why_len);

/* The float, double, float16 or bfloat16 at @p (little-endian), exactly. */
double scs_eval_load_float(const void *p, int dtype);

#endif
