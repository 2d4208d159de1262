/*
 * fuse.h: what the numeric fusion passes share (opt/passes/fuse_bn_into_conv.c,
 * opt/passes/fuse_bn_into_gemm.c, opt/passes/fuse_add_bias_into_conv.c,
 * opt/passes/fuse_matmul_add_bias_into_gemm.c, opt/passes/fuse_mul_into_conv.c;
 * and the Pad folds, opt/passes/fuse_pad_into_conv.c and fuse_pad_into_pool.c): checking that a
 * BatchNormalization runs in inference mode on constant parameters,
 * per-channel factors, new weights and biases computed in double and
 * streamed into the store rounded once, and putting a new constant where
 * the old one was.
 *
 * The passes that join two nodes in a row (fuse_consecutive_*,
 * fuse_transpose_into_gemm) share finding the node before, reading and
 * composing axes lists (an attribute, or a constant input from some
 * opset on) and writing the joined list back.
 *
 * Nothing here holds a whole tensor: constants are read in windows of
 * SCS_FUSE_WIN elements, per-channel factors are computed for a window of
 * channels at a time, new biases go out through scs_opt_writer, and a new
 * weight is a derived payload (payload.h): the old weight's bytes scaled
 * per channel whenever they are read, so it costs one pass to hash it and
 * is computed again only while the output is written. So a pass's memory
 * stays a few MiB whatever the size of a weight.
 *
 * The arithmetic, for channel c (s the scale, m the mean, b the shift):
 *   BatchNormalization:  s = gamma / sqrt(var + epsilon), m = mean, b = beta
 *   a constant bias a:   s = 1, m = 0, b = a
 *   a constant scale a:  s = a, m = 0, b = 0
 *   new weight element:  w * s
 *   new bias element:    (f * old - m) * s + b   (f: Gemm's beta, else 1)
 * each evaluated in double in this order and rounded once to the element
 * type (tests/e2e/gen_fuse_models.py repeats it with numpy, bit for bit).
 *
 * Includes opt.h only. The passes include this header, never each other.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_FUSE_H
#define SCS_FUSE_H

#include <stddef.h>
#include <stdint.h>

#include "opt/opt.h"

/* Report a refusal by @node and return 0 from the calling function (or the error). */
#define SCS_FUSE_REFUSE(ctx, scope, node, ...) \
	do { \
		int rc_ = scs_opt_refuse((ctx), (scope), (node), __VA_ARGS__); \
		return rc_ < 0 ? rc_ : 0; \
	} while (0)

/* Elements read at once from a constant; channels computed at once. */
#define SCS_FUSE_WIN ((size_t)1 << 16)

/* 1 when @node is @op_type of the default domain (no schema check: scs_opt_is_op does that). */
int scs_fuse_op_is(const Onnx__NodeProto *node, const char *op_type);

/*
 * 1 when ONNX Runtime's CPU provider has a kernel of default-domain
 * @op_type at the opset scope @scope imports whose constraint @tv takes
 * @dtype (ortkernels.h): a node a pass makes must load wherever its input
 * did. 0 when not, with the reason in @why ("no ONNX Runtime CPU kernel
 * for Gemm-13 on int32").
 */
int scs_fuse_ort_kernel(scs_opt_ctx *ctx, int scope, const char *op_type, const char *tv, int dtype, char *why,
    size_t why_len);

/* "[2,3,4]" for the dims of @c into @out. */
void scs_fuse_shape(char *out, size_t len, const scs_opt_const *c);

/*
 * 1 when constant @a (read as @name), broadcast against an output of
 * rank @rank whose axis 1 has @M channels, holds one value per channel
 * or one value in all ([M,1,...], [1,M,1,...], a scalar, [1], [1,1,...])
 * and does not make the output larger; 0 when not, with the reason in @why.
 */
int scs_fuse_per_channel(const scs_opt_const *a, const char *name, size_t rank, uint64_t M, char *why,
    size_t why_len);

/* 1 for the element types the fusions compute in: float16, bfloat16, float, double. */
int scs_fuse_is_float(int dtype);

/* ---- reading a constant in windows ---- */

typedef struct scs_fuse_win {
	scs_opt_ctx *ctx;
	scs_opt_const c;
	int have;                           /* 0: no constant: every element is dflt */
	double dflt;
	double *v;                          /* SCS_FUSE_WIN elements from lo */
	uint64_t lo;
	size_t n;
} scs_fuse_win;

/* Read @c (NULL: a constant @dflt of any length). Close with scs_fuse_win_close, also after a failure. */
int scs_fuse_win_open(scs_fuse_win *w, scs_opt_ctx *ctx, const scs_opt_const *c, double dflt);
/* Load the window that starts at element @i; SCS_ERANGE past the constant's end. */
int scs_fuse_win_load(scs_fuse_win *w, uint64_t i);
void scs_fuse_win_close(scs_fuse_win *w);

static inline int
scs_fuse_win_get(scs_fuse_win *w, uint64_t i, double *out)
{
	int rc;

	if (!w->have) {
		*out = w->dflt;
		return 0;
	}
	if ((i < w->lo || i - w->lo >= w->n) && (rc = scs_fuse_win_load(w, i)) < 0)
		return rc;
	*out = w->v[i - w->lo];
	return 0;
}

/* ---- per-channel factors ---- */

typedef struct scs_fuse_bn {
	Onnx__NodeProto *node;
	scs_opt_const p[4];                 /* scale (gamma), B (beta), input_mean, input_var */
	double eps;
	int64_t n_ch;
} scs_fuse_bn;

/*
 * 1 and *out when BatchNormalization @bn of scope @scope can be folded into
 * the node that makes its input X, which has @n_ch channels: inference mode
 * (training_mode 0; is_test set before opset 7; spatial not 0; no extra
 * output named, since before opset 14 an extra output means training),
 * and scale, B, mean and var each a constant (not a graph input) of
 * float16, bfloat16, float or double, one-dimensional with @n_ch elements.
 * 0 when not: the refusal is reported, naming the reason. < 0 on error.
 */
int scs_fuse_bn_check(scs_fuse_bn *out, scs_opt_ctx *ctx, int scope, Onnx__NodeProto *bn, int64_t n_ch);

/*
 * The node that makes BatchNormalization @bn's input X when it is one of
 * @ops (NULL-terminated) in the same scope and passes may touch both
 * (scs_opt_is_op); NULL when not (*rc < 0 on error). Borrowed from the
 * model: valid until the scs_opt_commit() that drops it; do not free it.
 */
Onnx__NodeProto *scs_fuse_bn_source(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *bn, const char *const *ops, int *rc);

/* After @p->node was folded into @node: drop the parameters nothing else reads; report "...folded in@what". */
int scs_fuse_bn_done(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const scs_fuse_bn *p, const char *what);

typedef struct scs_fuse_chan {
	scs_fuse_win gamma, beta, mean, var, add;
	int bn;                             /* 1: BatchNormalization; 0: a constant bias (add) or scale (mul) */
	int mul;                            /* 1: add holds a scale: s = add, m = 0, b = 0 */
	int add_one;                        /* add has one element for every channel */
	double eps;
	uint64_t n_ch;
	double *s, *m, *b;                  /* SCS_FUSE_WIN channels from lo */
	uint64_t lo;
	size_t n;
} scs_fuse_chan;

/* Factors of a BatchNormalization (checked by scs_fuse_bn_check). Close with scs_fuse_chan_close. */
int scs_fuse_chan_open_bn(scs_fuse_chan *c, scs_opt_ctx *ctx, const scs_fuse_bn *bn);
/* Factors of adding constant @a (1 element, or @n_ch: one per channel) to every channel. */
int scs_fuse_chan_open_add(scs_fuse_chan *c, scs_opt_ctx *ctx, const scs_opt_const *a, int64_t n_ch);
/* Factors of multiplying every channel by constant @a (1 element, or @n_ch): s = a, m = 0, b = 0. */
int scs_fuse_chan_open_mul(scs_fuse_chan *c, scs_opt_ctx *ctx, const scs_opt_const *a, int64_t n_ch);
int scs_fuse_chan_load(scs_fuse_chan *c, uint64_t ch);
void scs_fuse_chan_close(scs_fuse_chan *c);

/* The factors of channel @ch. */
static inline int
scs_fuse_chan_get(scs_fuse_chan *c, uint64_t ch, double *s, double *m, double *b)
{
	int rc;
	size_t k;

	if ((ch < c->lo || ch - c->lo >= c->n) && (rc = scs_fuse_chan_load(c, ch)) < 0)
		return rc;
	k = (size_t)(ch - c->lo);
	*s = c->s[k];
	*m = c->m[k];
	*b = c->b[k];
	return 0;
}

/* ---- new payloads ---- */

/*
 * Weight @w with element i multiplied by the scale of channel
 *   ch(i) = (i / inner) % mid + (i / (inner * mid * rep)) * mid
 * (Conv (M, C/g, k...): inner = C/g * k..., mid = M, rep = 1;
 * ConvTranspose (C, M/g, k...): inner = k..., mid = M/g, rep = C/g;
 * Gemm B (K, N): inner = 1, mid = N, rep = K; B (N, K): inner = K, mid = N, rep = 1),
 * rounded once to @w's element type, into a new payload *payload: derived
 * from @w's (payload.h), with the factors of the channels in the store.
 */
int scs_fuse_write_weight(uint32_t *payload, scs_opt_ctx *ctx, const scs_opt_const *w, scs_fuse_chan *ch,
    uint64_t inner, uint64_t mid, uint64_t rep);

/*
 * A bias of @rows x ch->n_ch elements of @dtype: element (r, n) is
 * (@factor * old(r, n) - m(n)) * s(n) + b(n), old being @old broadcast from
 * @old_rows (1 or @rows) x @old_cols (1 or n_ch) elements, or 0 when @old
 * is NULL. Into a new payload *payload.
 */
int scs_fuse_write_bias(uint32_t *payload, scs_opt_ctx *ctx, int dtype, const scs_opt_const *old, uint64_t old_rows,
    uint64_t old_cols, double factor, scs_fuse_chan *ch, uint64_t rows);

/* ---- the graph ---- */

/*
 * How many references to @name, defined in scope @def, are live now: graph
 * outputs and annotations, and node inputs of nodes not dropped that still
 * read @name (a pass's in-place scs_opt_set_input counts at once), except
 * those of @except (NULL: none).
 */
size_t scs_fuse_live_readers(const scs_opt_ctx *ctx, int def, const char *name, const Onnx__NodeProto *except);

/*
 * 1 when output 0 of @producer (scope @scope) is read by @reader alone and
 * is no graph output, so its value may change; 0 when not, with the
 * reason in @why.
 */
int scs_fuse_only_reader(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *producer,
    const Onnx__NodeProto *reader, char *why, size_t why_len);

/*
 * Make input @slot of @node (scope @scope) read a constant of @dtype and
 * @dims holding @payload. When @old is the constant it reads now, @node is
 * its only live reader, it is no graph output and its type and dims agree,
 * @old takes the payload and keeps its name; else a new constant named from
 * @base (plus "_opt<N>" when taken) is put beside @node, and @old is dropped
 * when nothing else reads it. *name: the name @node reads now (borrowed).
 */
int scs_fuse_put_input(const char **name, scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t slot,
    const scs_opt_const *old, int dtype, const int64_t *dims, size_t n_dims, uint32_t payload, const char *base);

/* Drop constant @c (read as @name) when no live reader but those of @gone is left and it is no graph output. */
int scs_fuse_drop_unread(scs_opt_ctx *ctx, const scs_opt_const *c, const char *name, const Onnx__NodeProto *gone);

/* ---- chains of two nodes; axes lists ---- */

/*
 * The node of scope @scope that makes input @slot of @node when it is
 * default-domain, one of @ops (NULL-terminated), and
 * passes may touch it (scs_opt_is_op); NULL when not (*rc < 0 on error).
 * One in an enclosing graph is not taken: the refusal is reported by
 * @node. Borrowed from the model, valid until the commit that drops it.
 */
Onnx__NodeProto *scs_fuse_prev(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t slot, const char *const *ops,
    int *rc);

/* 1 when @op_type (Squeeze, Unsqueeze, Reduce*) takes its axes as input 1 at @opset, not as an attribute. */
int scs_fuse_axes_as_input(const char *op_type, int64_t opset);

/* A list of axes as a node has it: the attribute, or a constant input. */
typedef struct scs_fuse_axes {
	int64_t v[SCS_INFER_MAX_RANK];
	size_t n;
	int given;                          /* 0: no axes (attribute or input absent, "" or empty) */
	int as_input;                       /* 1: input @slot, 0: attribute */
	int have_c;                         /* c is the constant read (as_input) */
	scs_opt_const c;
} scs_fuse_axes;

/*
 * Read the axes of @node: attribute "axes", or (@as_input) its input @slot,
 * which must be an int64 1-D constant (not a graph input). 1 when read
 * (a->given 0 when absent); 0 when not readable, with the reason in @why,
 * or with @why empty when the input is a constant put in since the last
 * commit (another round is asked for); < 0 on error.
 */
int scs_fuse_axes_read(scs_fuse_axes *a, scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, size_t slot,
    int as_input, char *why, size_t why_len);

/*
 * @n axes @v made non-negative against @rank (< 0: unknown), checked and
 * sorted: 1; 0 with the reason in @why for a negative axis of unknown rank,
 * an axis out of range or one named twice.
 */
int scs_fuse_axes_norm(int64_t *v, size_t n, int64_t rank, char *why, size_t why_len);

/*
 * Make input @slot of @node read a new 1-D int64 constant of @n values @v
 * (named from @base); @old (NULL: none) is the constant it reads now
 * (scs_fuse_put_input's rule: it takes the values when @node alone reads it).
 */
int scs_fuse_put_int64s(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t slot, const scs_opt_const *old,
    const int64_t *v, size_t n, const char *base);

/* Set the axes of @node as @a holds them (attribute or input): @n values @v. */
int scs_fuse_axes_write(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const scs_fuse_axes *a, size_t slot,
    const int64_t *v, size_t n);

/* The @j-th (from 0) of the axes 0, 1, 2, ... that are not among the @n sorted axes @skip. */
int64_t scs_fuse_nth_other(const int64_t *skip, size_t n, int64_t j);

/*
 * Join @first into @second, the node reading its output (same op, both
 * with axes; @a1, @a2 their axes as read): @second reads @x, the input of
 * @first, with the @n axes @v (as @a2 holds them: attribute or input 1);
 * @first goes when nothing else reads its output (and its axes constant
 * with it when nothing else reads that); the change is reported as
 * "@verb 'x' at axes [...]". 1, or < 0 on error.
 */
int scs_fuse_axes_join(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *first, const scs_fuse_axes *a1,
    Onnx__NodeProto *second, const scs_fuse_axes *a2, const int64_t *v, size_t n, const char *verb);

/* "[0,2,-1]" for @n values @v into @out. */
void scs_fuse_ints(char *out, size_t len, const int64_t *v, size_t n);

/* ---- a Pad folded into the node it feeds (fuse_pad_into_conv, fuse_pad_into_pool) ---- */

#define SCS_FUSE_PAD_MAX_RANK 16

typedef struct scs_fuse_pad {
	Onnx__NodeProto *pad;
	size_t rank;                        /* of the padded data */
	int64_t pads[2 * SCS_FUSE_PAD_MAX_RANK];   /* every axis: the begins, then the ends */
	double value;                       /* the constant it pads with (0 when left out) */
	int value_dtype;                    /* its element type; 0 for the attribute of opsets before 11 */
	scs_opt_const c[3];                 /* pads, constant_value, axes when inputs (have[k]) */
	int have[3];
} scs_fuse_pad;

/*
 * 1 and *out when input 0 of @node (scope @scope, data of rank @rank)
 * is made by a Pad in mode "constant" whose pads (the attribute before
 * opset 11, else a constant input, with the constant axes input from
 * opset 18) and constant value are known, whose output @node alone
 * reads and is no graph output, with no negative pad and no pad on the
 * first two axes (batch and channels). 0 when there is no Pad, or when
 * there is one but it may not be folded (the refusal is reported by
 * @node, with the reason). < 0 on error.
 */
int scs_fuse_pad_source(scs_fuse_pad *out, scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t rank);

/*
 * Fold @p into @node: its "pads" attribute (spatial axes: begins, then
 * ends) gets the Pad's, it reads the Pad's input, the Pad and its
 * constants nothing else reads are dropped; reported.
 */
int scs_fuse_pad_apply(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const scs_fuse_pad *p);

/* 1 when the spatial pads @node's "pads" attribute would hold with @p folded in are each below its kernel_shape's. */
int scs_fuse_pad_below_kernel(const Onnx__NodeProto *node, const scs_fuse_pad *p, char *why, size_t why_len);

#endif
