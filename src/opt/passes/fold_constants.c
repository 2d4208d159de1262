/*
 * fold_constants.c: a node whose inputs are all constants (initializers
 * that are not graph inputs, Constant nodes), computed once by the
 * evaluator (eval.h) and replaced by constants; Shape and Size also when
 * the input's dims are all known (declarations, inference). Where some
 * dims are not known (the batch), a Shape from start to end, a Gather or
 * Slice of a Shape (through Concat, Unsqueeze, Squeeze, Cast, Identity)
 * still folds when the dims it reads are, and a Reshape whose target is
 * made from them gets a constant target where that is exact (0 copying the
 * data's own dim, one -1): shape_facts.h, which the shape passes share.
 * The new constants are written to the store in pieces.
 *
 * Left alone, and reported with the reason: random operators, nodes that
 * read an overridable default (an initializer that is also a graph input),
 * operators the evaluator has no kernel for or cases it declines, outputs
 * over the size limit (--fold-size-limit, 1 MiB by default) and, unless
 * --fold-grow, folds whose outputs take more bytes than the constants they
 * leave unread (results of at most SMALL bytes, shapes and scalars, count
 * as no growth). Results a runtime may round otherwise (the math library's
 * functions, float sums and products of more than two terms: the kernel
 * marks them inexact) fold only with --fold-inexact. Quantization nodes
 * (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear: a runtime
 * matches DequantizeLinear -> op -> QuantizeLinear to run a quantized
 * kernel, so folding a weight's DequantizeLinear makes the op run in
 * float) fold only with --fold-qdq; those of other domains never.
 *
 * Memory stays flat whatever the size. The elementwise operators
 * (scs_eval_ew_has: Identity, Cast, CastLike, the arithmetic, comparisons
 * and logic, Min, Max, Where, DequantizeLinear, the math library's) stream:
 * an input in step with the output is read a window at a time through the
 * store (WINDOW bytes of the widest element), the others (a broadcast
 * scalar or per-channel vector, a scale) are held whole up to HOLD_SMALL
 * bytes each, and the result goes to the store window by window. The
 * other kernels work on whole tensors: each input at most four times the
 * size limit, and inputs with each output together at most HOLD_MAX bytes
 * ("too large to hold" beyond).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "onnx/dtype.h"
#include "eval/eval.h"
#include "util/num.h"
#include "opt/opt.h"
#include "opt/shape_facts.h"

#define SMALL 64
#define MAX_IO 64
#define WINDOW SCS_CHUNK_LEN
#define HOLD_SMALL (4 * (uint64_t)SCS_CHUNK_LEN)
#define HOLD_MAX ((uint64_t)64 << 20)

/* Operators that only move elements: their float16 results are bits of their inputs. */
static const char *const moving_ops[] = { "Identity", "Shape", "Size", "Gather", "GatherElements", "Unsqueeze",
	"Squeeze", "Concat", "Split", "Reshape", "Flatten", "Transpose", "Slice", "ConstantOfShape", "Expand", "Tile", "Pad",
	"Where", NULL };

static const char *const random_ops[] = { "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
	"Multinomial", "Bernoulli", NULL };

/*
 * The constants folded in this walk, by the name their node wrote: a later
 * node of the walk reads such a value as the constant it now is, so that a
 * chain folds in one walk, not one node a walk (a walk of every node each
 * time made a chain's folding grow with the square of its length). Names
 * are borrowed from the folded nodes, freed only at the commit after it.
 */
typedef struct fold_made {
	scs_strmap by_name;                 /* output name -> index into items */
	struct made_const {
		Onnx__TensorProto *t;
		int scope;
	} *items;
	size_t n, cap;
} fold_made;

typedef struct fold_io {
	scs_eval_tensor in[MAX_IO], out[MAX_IO];
	scs_opt_const c[MAX_IO];
	int is_const[MAX_IO];
	int kind[MAX_IO];                   /* input_kind's answer */
	fold_made *made;
} fold_io;

typedef struct fold_state {
	fold_io io;
	fold_made made;
	int changed;                        /* a node was folded in this walk */
	scs_strmap refused;                 /* first output -> node, of nodes refused in this run of the pass */
} fold_state;

static uint64_t
limit_of(const scs_opt_ctx *ctx)
{
	return ctx->settings && ctx->settings->fold_size_limit ? ctx->settings->fold_size_limit : SCS_OPT_FOLD_SIZE_LIMIT;
}

/* @name, read in @scope, as a constant folded earlier in this walk: 1 and *c, else 0. */
static int
made_constant(scs_opt_ctx *ctx, const fold_made *made, int scope, const char *name, scs_opt_const *c)
{
	int64_t k;
	int d;

	if (!made->n || !scs_strmap_get(&made->by_name, name, &k) ||
	    (d = scs_opt_def_scope(ctx, scope, name)) != made->items[k].scope)
		return 0;
	memset(c, 0, sizeof(*c));
	c->scope = d;
	c->t = made->items[k].t;
	c->dtype = c->t->data_type;
	c->rank = c->t->n_dims;
	c->n_elems = scs_tensor_elems(c->t);
	return 1;
}

/* Remember that @name of @scope is now constant @t, for the rest of the walk. */
static int
made_add(fold_made *made, int scope, const char *name, Onnx__TensorProto *t)
{
	int rc;

	if ((rc = scs_grow(&made->items, &made->cap, made->n, sizeof(*made->items), 64, "the folded constants")) < 0)
		return rc;
	made->items[made->n] = (struct made_const){ t, scope };
	return scs_strmap_put(&made->by_name, name, (int64_t)made->n++);
}

static void
made_clear(fold_made *made)
{
	scs_strmap_dispose(&made->by_name);
	made->n = 0;
}

/*
 * What input @i of @node is: 1 a constant (*c); 2 known dims (*f) of a
 * value that is not a constant, 3 of a constant (Shape and Size read no
 * more); 0 none of these; -1 an overridable default.
 */
static int
input_kind(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, size_t i, fold_io *io, scs_vfacts *f)
{
	const char *name = node->input[i];
	int dims_only = i == 0 && (strcmp(node->op_type, "Shape") == 0 || strcmp(node->op_type, "Size") == 0);
	scs_opt_const *c = &io->c[i];
	char why[256];
	int def, r;

	if ((r = made_constant(ctx, io->made, scope, name, c)) != 0 ||
	    (r = scs_opt_constant(c, ctx, scope, name, why, sizeof(why))) != 0) {
		if (r < 0 || !dims_only)
			return r < 0 ? r : 1;
		if (c->rank > SCS_EVAL_MAX_RANK)
			return 0;
		f->rank = (int)c->rank;
		for (size_t a = 0; a < c->rank; a++)
			f->dims[a] = scs_opt_const_dim(c, a);
		return 3;
	}
	def = scs_opt_def_scope(ctx, scope, name);
	if (def >= 0 && scs_opt_is_input(ctx, def, name) && scs_opt_initializer(ctx, def, name))
		return -1;
	if (dims_only) {
		if ((r = scs_opt_facts(ctx, scope, name, f)) < 0)
			return r;
		if (f->rank < 0 || f->rank > SCS_EVAL_MAX_RANK)
			return 0;
		for (int a = 0; a < f->rank; a++)
			if (f->dims[a] < 0)
				return 0;
		return 2;
	}
	return 0;
}

static int
tensor_of(void *payload, const Onnx__TensorProto *t, scs_eval_tensor *out, char *why, size_t why_len)
{
	scs_opt_ctx *ctx = payload;
	uint32_t id;
	int rc;

	if (!scs_model_payload_of(ctx->m, t, &id))
		return scs_eval_from_proto(t, out, why, why_len);
	if (t->n_dims > SCS_EVAL_MAX_RANK)
		return SCS_EVAL_DECLINED;
	if ((rc = scs_eval_tensor_alloc(out, t->data_type, t->n_dims, t->dims, 1 << 20, why, why_len)) != SCS_OK)
		return rc;
	if ((rc = scs_payloads_read(ctx->m->payloads, id, 0, out->data, (size_t)scs_eval_bytes(out))) < 0)
		scs_eval_tensor_free(out);
	return rc;
}

/* Input @i's element type and dims into io->in[i], no data. SCS_OK, or 1 (@why). */
static int
describe_input(fold_io *io, size_t i, char *why, size_t why_len)
{
	const scs_opt_const *c = &io->c[i];
	scs_eval_tensor *t = &io->in[i];
	uint64_t bytes;

	memset(t, 0, sizeof(*t));
	if (!scs_opt_readable(c->dtype)) {
		snprintf(why, why_len, "input %zu is %s", i, scs_dtype_name(c->dtype));
		return 1;
	}
	if (c->rank > SCS_EVAL_MAX_RANK) {
		snprintf(why, why_len, "input %zu has rank %zu", i, c->rank);
		return 1;
	}
	t->dtype = c->dtype;
	t->rank = c->rank;
	t->n = 1;
	for (size_t a = 0; a < c->rank; a++) {
		t->dims[a] = scs_opt_const_dim(c, a);
		if (t->dims[a] < 0 || scs_u64_mul(&t->n, t->n, (uint64_t)t->dims[a]) < 0 ||
		    scs_u64_mul(&bytes, t->n, scs_eval_esize(t->dtype)) < 0) {
			snprintf(why, why_len, "input %zu has dims out of range", i);
			return 1;
		}
	}
	return SCS_OK;
}

/*
 * Input @i read whole into io->in[i] (dims only when @dims_only), at most
 * four times the size limit and what is left of HOLD_MAX (*held: bytes
 * held so far, updated). SCS_OK, 1 (@why) or < 0.
 */
static int
load_input(scs_opt_ctx *ctx, fold_io *io, size_t i, int kind, const scs_vfacts *f, uint64_t *held, char *why,
    size_t why_len)
{
	scs_eval_tensor *t = &io->in[i];
	uint64_t bytes;
	int rc;

	if (kind >= 2) {
		/* Shape and Size read dims only: an element of bool stands for the data */
		memset(t, 0, sizeof(*t));
		t->dtype = SCS_DT_BOOL;
		t->rank = (size_t)f->rank;
		t->n = 1;
		for (int a = 0; a < f->rank; a++) {
			t->dims[a] = f->dims[a];
			if (scs_u64_mul(&t->n, t->n, (uint64_t)f->dims[a]) < 0 || t->n > INT64_MAX) {
				/* no tensor has more elements than int64 counts (a runtime refuses it) */
				snprintf(why, why_len, "input %zu's dims multiply past INT64_MAX", i);
				return 1;
			}
		}
		return SCS_OK;
	}
	if ((rc = describe_input(io, i, why, why_len)) != SCS_OK)
		return rc;
	bytes = scs_eval_bytes(t);
	if (bytes > 4 * limit_of(ctx)) {
		snprintf(why, why_len, "over the budget: input %zu is over %llu bytes", i,
		    (unsigned long long)(4 * limit_of(ctx)));
		return 1;
	}
	if (bytes > HOLD_MAX - *held) {
		snprintf(why, why_len, "input too large to hold: %llu bytes (with the other inputs, over %llu)",
		    (unsigned long long)bytes, (unsigned long long)HOLD_MAX);
		return 1;
	}
	if ((t->data = scs_eval_alloc((size_t)bytes)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate %llu bytes for a fold", (unsigned long long)bytes);
	*held += bytes;
	return scs_opt_read_raw(ctx, &io->c[i], 0, (size_t)bytes, t->data);
}

/* Bytes of the constant inputs only @node reads (they go once it is folded). */
static uint64_t
bytes_freed(scs_opt_ctx *ctx, const Onnx__NodeProto *node, const fold_io *io)
{
	uint64_t freed = 0;

	for (size_t i = 0; i < node->n_input; i++) {
		const scs_opt_use *u;
		int other = 0, again = 0;

		if (!io->is_const[i])
			continue;
		for (size_t k = 0; k < i; k++)
			again |= strcmp(node->input[k], node->input[i]) == 0;
		if (again)
			continue;
		/* up to the first other reader: a constant thousands of nodes read is not walked for each */
		for (u = scs_opt_first_use(ctx, io->c[i].scope, node->input[i]); u && !other; u = scs_opt_next_use(ctx, u))
			other |= u->kind != SCS_OPT_USE_INPUT || u->node != node;
		if (!other)
			freed += (uint64_t)io->c[i].n_elems * scs_eval_esize(io->c[i].dtype);
	}
	return freed;
}

/* Output @j, now payload @payload of @dtype and @dims, as a new constant read by everything that read it. */
static int
install_output(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, fold_io *io, size_t j, uint32_t payload,
    int dtype, const int64_t *dims, size_t rank)
{
	Onnx__TensorProto *tp;
	int rc;

	if ((rc = scs_shape_install(ctx, scope, node, j, payload, dtype, dims, rank, &tp)) < 0)
		return rc;
	return made_add(io->made, scope, node->output[j], tp);
}

/* Output @j (in memory) written to the store and installed. */
static int
replace_output(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, fold_io *io, size_t j, const scs_eval_tensor *t)
{
	scs_opt_writer w;
	uint32_t payload;
	int rc;

	if ((rc = scs_opt_writer_open(&w, ctx, t->dtype)) < 0)
		return rc;
	if ((rc = scs_opt_writer_put_raw(&w, t->data, (size_t)scs_eval_bytes(t))) < 0) {
		scs_opt_writer_abort(&w);
		return rc;
	}
	if ((rc = scs_opt_writer_finish(&payload, &w)) < 0)
		return rc;
	return install_output(ctx, scope, node, io, j, payload, t->dtype, t->dims, t->rank);
}

/* A refusal reported (@rc from scs_opt_refuse): 2, or the error. */
static int
refused(int rc)
{
	return rc < 0 ? rc : 2;
}

static int
is_in(const char *const *list, const char *op)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(list[i], op) == 0)
			return 1;
	return 0;
}

static int
is_random(const char *op)
{
	return is_in(random_ops, op);
}

/* 1 when every reference to @name (defined in scope @scope) is an output of the main graph. */
static int
only_main_outputs(scs_opt_ctx *ctx, int scope, const char *name)
{
	const scs_opt_use *u;

	if (ctx->scopes.items[scope].graph != ctx->m->proto->graph)
		return 0;
	for (u = scs_opt_first_use(ctx, scope, name); u; u = scs_opt_next_use(ctx, u))
		if (u->kind != SCS_OPT_USE_OUTPUT || u->scope != scope)
			return 0;
	return 1;
}

/*
 * 1 when output @j of the node, of @out_dt, is a float16 or bfloat16 value
 * made by rounding (@in_dt: input 0's type). ONNX Runtime computes such
 * operators in float where it has no float16 kernel, and then drops the
 * Cast pairs around them: the roundings in between are skipped, so the
 * exact value a fold writes could differ from what it computes. Left
 * alone; but a Cast (or CastLike) that only the main graph's outputs read
 * is what ONNX Runtime's own Cast computes, rounded once.
 */
static int
rounds_to_half(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, size_t j, int in_dt, int out_dt)
{
	int cast = strcmp(node->op_type, "Cast") == 0 || strcmp(node->op_type, "CastLike") == 0;

	if ((out_dt != SCS_DT_FLOAT16 && out_dt != SCS_DT_BFLOAT16) || is_in(moving_ops, node->op_type) ||
	    (cast && in_dt == out_dt))
		return 0;
	return !(cast && only_main_outputs(ctx, scope, node->output[j]));
}

/* Operators that move elements but that ONNX Runtime computes in float for float16 (seen: NaNs come back changed). */
static const char *const half_in_float_ops[] = { "Pad", "Tile", NULL };

/*
 * 1 when a float16 or bfloat16 input of the node holds a NaN and ONNX
 * Runtime computes the node in float: the NaN's bits come back changed
 * (quieted, the payload dropped), so no fold can write what it computes.
 */
static int
half_nan_through_float(const Onnx__NodeProto *node, const fold_io *io)
{
	if (!is_in(half_in_float_ops, node->op_type))
		return 0;
	for (size_t i = 0; i < node->n_input && i < MAX_IO; i++) {
		const scs_eval_tensor *t = &io->in[i];
		uint16_t exp = t->dtype == SCS_DT_FLOAT16 ? 0x7c00 : 0x7f80;

		if ((t->dtype != SCS_DT_FLOAT16 && t->dtype != SCS_DT_BFLOAT16) || t->data == NULL)
			continue;
		for (uint64_t k = 0; k < t->n; k++) {
			uint16_t h;

			memcpy(&h, (const uint8_t *)t->data + 2 * k, 2);
			if ((h & exp) == exp && (h & (uint16_t)~(exp | 0x8000)) != 0)
				return 1;
		}
	}
	return 0;
}

/*
 * What a computed fold must pass before its outputs are written: not
 * inexact (unless --fold-inexact), no float16 made by rounding or NaN
 * that ONNX Runtime takes through float, no growth (unless --fold-grow).
 * 0 when it passes; else refused().
 */
static int
admit(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const fold_io *io, const scs_eval_call *c,
    const int *out_dt, uint64_t out_bytes)
{
	uint64_t freed;

	if (c->inexact && !(ctx->settings && ctx->settings->fold_inexact))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: %s (--fold-inexact)",
		    strncmp(node->op_type, "Reduce", 6) == 0 ? "a float sum or product of more than two terms, whose "
		    "rounding depends on the order a runtime takes them in" : "a result of the math library, which a "
		    "runtime computes with its own"));
	for (size_t j = 0; j < node->n_output; j++)
		if (rounds_to_half(ctx, scope, node, j, io->in[0].dtype, out_dt[j]))
			return refused(scs_opt_refuse(ctx, scope, node, "not folded: a float16 or bfloat16 result made by "
			    "rounding, which ONNX Runtime may compute in float without the roundings in between"));
	if (half_nan_through_float(node, io))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: a float16 or bfloat16 NaN, whose bits ONNX "
		    "Runtime changes as it computes %s in float", node->op_type));
	freed = bytes_freed(ctx, node, io);
	if (out_bytes > freed && out_bytes > SMALL && !(ctx->settings && ctx->settings->fold_grow))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: over the budget: its outputs take %llu bytes, "
		    "the constants it frees %llu (--fold-grow)", (unsigned long long)out_bytes, (unsigned long long)freed));
	return 0;
}

/* The node's kernel refused (@r, c->why): reported. */
static int
refuse_kernel(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, int r, const char *why)
{
	if (r == SCS_EVAL_TOO_BIG)
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: over the budget (%s; --fold-size-limit)", why));
	if (r == SCS_EVAL_TOO_LARGE)
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: %s", why));
	return refused(scs_opt_refuse(ctx, scope, node, "not folded: not supported (%s)", why));
}

/* The windows of a streamed fold: one per operand (NULL: not read) and the output's. */
typedef struct stream_bufs {
	uint8_t *in[SCS_EVAL_EW_MAX];
	uint8_t *out;
} stream_bufs;

/*
 * Plan @p's output computed a window at a time into writer @w: held
 * operands read whole first, the others window by window. SCS_OK; 1 when
 * refused (@why, *kernel_rc: the kernel's code, 0 when the pass refused);
 * < 0 on error.
 */
static int
stream(scs_opt_ctx *ctx, fold_io *io, scs_eval_call *c, const scs_eval_ew *p, stream_bufs *b, scs_opt_writer *w,
    int *kernel_rc)
{
	const uint8_t *in[SCS_EVAL_EW_MAX];
	size_t e[SCS_EVAL_EW_MAX], eo = scs_eval_esize(p->odt), widest = eo;
	uint64_t win, count;
	int rc;

	*kernel_rc = 0;
	for (size_t j = 0; j < p->k; j++) {
		const scs_eval_tensor *t = &c->in[p->in[j]];

		e[j] = scs_eval_esize(t->dtype);
		if (p->full[j]) {
			widest = e[j] > widest ? e[j] : widest;
			continue;
		}
		if (scs_eval_bytes(t) > HOLD_SMALL) {
			snprintf(c->why, c->why_len, "input too large to hold: %llu bytes (input %zu, broadcast, over %llu)",
			    (unsigned long long)scs_eval_bytes(t), p->in[j], (unsigned long long)HOLD_SMALL);
			return 1;
		}
		if ((b->in[j] = scs_eval_alloc((size_t)scs_eval_bytes(t))) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate an input of a fold");
		if ((rc = scs_opt_read_raw(ctx, &io->c[p->in[j]], 0, (size_t)scs_eval_bytes(t), b->in[j])) < 0)
			return rc;
		in[j] = b->in[j];
	}
	win = WINDOW / widest;
	win = p->n < win ? (p->n ? p->n : 1) : win;      /* a small result takes a small window */
	for (size_t j = 0; j < p->k; j++)
		if (p->full[j] && (b->in[j] = scs_eval_alloc((size_t)win * e[j])) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a window of a fold");
	if ((b->out = scs_eval_alloc((size_t)win * eo)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a window of a fold");
	for (uint64_t first = 0; first < p->n; first += count) {
		count = p->n - first < win ? p->n - first : win;
		for (size_t j = 0; j < p->k; j++) {
			if (!p->full[j])
				continue;
			if ((rc = scs_opt_read_raw(ctx, &io->c[p->in[j]], first * e[j], (size_t)count * e[j], b->in[j])) < 0)
				return rc;
			in[j] = b->in[j];
		}
		if ((*kernel_rc = scs_eval_ew_run(p, c, first, count, in, b->out)) != SCS_OK)
			return 1;
		if ((rc = scs_opt_writer_put_raw(w, b->out, (size_t)count * eo)) < 0)
			return rc;
	}
	return SCS_OK;
}

/* An elementwise node folded a window at a time (see the top of the file): as fold(). */
static int
fold_streaming(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, fold_io *io, scs_eval_call *c)
{
	stream_bufs b = { { NULL }, NULL };
	scs_opt_writer w;
	scs_eval_ew p;
	uint32_t payload;
	int r, kernel_rc;

	for (size_t i = 0; i < node->n_input; i++)
		if (node->input[i][0] && (r = describe_input(io, i, c->why, c->why_len)) != SCS_OK)
			return refused(scs_opt_refuse(ctx, scope, node, "not folded: %s", c->why));
	if ((r = scs_eval_ew_plan(&p, c)) != SCS_OK)
		return r < 0 ? r : refuse_kernel(ctx, scope, node, r, c->why);
	if ((r = admit(ctx, scope, node, io, c, &p.odt, p.n * scs_eval_esize(p.odt))) != 0)
		return r;
	if ((r = scs_opt_writer_open(&w, ctx, p.odt)) < 0)
		return r;
	r = stream(ctx, io, c, &p, &b, &w, &kernel_rc);
	for (size_t j = 0; j < SCS_EVAL_EW_MAX; j++)
		free(b.in[j]);
	free(b.out);
	if (r != SCS_OK) {
		scs_opt_writer_abort(&w);
		if (r < 0)
			return r;
		if (kernel_rc)
			return refuse_kernel(ctx, scope, node, kernel_rc, c->why);
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: %s", c->why));
	}
	if ((r = scs_opt_writer_finish(&payload, &w)) < 0 ||
	    (r = install_output(ctx, scope, node, io, 0, payload, p.odt, p.dims, p.rank)) < 0 ||
	    (r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	if ((r = scs_opt_did(ctx, scope, node, "folded into 1 constant of %llu bytes",
	    (unsigned long long)(p.n * scs_eval_esize(p.odt)))) < 0)
		return r;
	return 1;
}

/* QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear: the edges of a
 * quantized (QDQ) graph's patterns, which folding would undo. */
static int
is_qdq(const char *op)
{
	return strcmp(op, "QuantizeLinear") == 0 || strcmp(op, "DequantizeLinear") == 0 ||
	    strcmp(op, "DynamicQuantizeLinear") == 0;
}

/* Operators whose value shape_facts.c follows when some of their inputs are not constants. */
static const char *const dims_ops[] = { "Shape", "Gather", "Slice", "Concat", "Unsqueeze", "Squeeze", "Cast",
	"Identity", "Reshape", NULL };

/*
 * A node that reads a value not known as a whole: folded still when it
 * picks only known dims (Shape from start to end, Gather or Slice of a
 * Shape, ...); a Reshape whose target is made from dims gets a constant
 * target where that is exact (shape_facts.h). 1 when done, else 0.
 */
static int
fold_dims(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, fold_io *io)
{
	Onnx__TensorProto *t;
	int r;

	if (!is_in(dims_ops, node->op_type) ||
	    (strcmp(node->op_type, "Identity") == 0 && node->n_output && scs_opt_is_pinned(ctx, scope, node->output[0])))
		return 0;     /* an Identity making a graph output is what folding leaves */
	if ((r = scs_opt_is_op(ctx, scope, node, node->op_type)) <= 0)
		return r;
	if (strcmp(node->op_type, "Reshape") == 0) {
		scs_opt_const c;

		/* a target folded in this walk is a constant already (the rename reaches the Reshape at the commit) */
		if (node->n_input > 1 && made_constant(ctx, io->made, scope, node->input[1], &c))
			return 0;
		return scs_shape_reshape(ctx, scope, node, 0);     /* refusals: fuse_concat_into_reshape's to report */
	}
	if ((r = scs_shape_fold(ctx, scope, node, 0, &t)) <= 0)
		return r;
	return (r = made_add(io->made, scope, node->output[0], t)) < 0 ? r : 1;
}

static int
fold(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, fold_io *io)
{
	scs_vfacts f[MAX_IO];
	char why[512] = "";
	scs_eval_call c = { 0 };
	uint64_t out_bytes = 0, held = 0;
	int out_dt[MAX_IO];
	int kind, r, n_used = 0;

	if (!node->op_type || node->n_input > MAX_IO || node->n_output > MAX_IO || (node->domain && node->domain[0] &&
	    strcmp(node->domain, "ai.onnx") != 0) || strcmp(node->op_type, "Constant") == 0)
		return 0;
	if (node->n_input == 0) {
		if (is_random(node->op_type))
			return refused(scs_opt_refuse(ctx, scope, node, "not folded: non-deterministic"));
		return 0;
	}
	for (size_t i = 0; i < node->n_input; i++) {
		if (node->input[i][0] == '\0')
			continue;
		if ((kind = input_kind(ctx, scope, node, i, io, &f[i])) < -1)
			return kind;
		if (kind == -1)
			return refused(scs_opt_refuse(ctx, scope, node, "not folded: reads '%s', a graph input with a default",
			    node->input[i]));
		if (kind == 0)
			return fold_dims(ctx, scope, node, io);
		io->is_const[i] = kind == 1 || kind == 3;
		io->kind[i] = kind;
	}
	/* every input is known */
	if (is_random(node->op_type))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: non-deterministic"));
	if (is_qdq(node->op_type) && !(ctx->settings && ctx->settings->fold_qdq))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: a quantization node, which runtimes match "
		    "(DequantizeLinear -> op -> QuantizeLinear) to run quantized kernels (--fold-qdq folds it)"));
	/* an Identity making a graph output of a constant is what folding leaves */
	if (strcmp(node->op_type, "Identity") == 0 && node->n_output && scs_opt_is_pinned(ctx, scope, node->output[0]))
		return 0;
	if ((r = scs_opt_is_op(ctx, scope, node, node->op_type)) <= 0)
		return r;
	if (!scs_eval_has(node->op_type))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: operator not supported by the evaluator"));
	for (size_t j = 0; j < node->n_output; j++)
		n_used += node->output[j][0] && (scs_opt_n_uses(ctx, scope, node->output[j]) ||
		    scs_opt_is_pinned(ctx, scope, node->output[j]));
	if (n_used == 0)
		return 0;                        /* dead: eliminate_deadend's */
	c.node = node;
	c.opset = scs_opt_opset(ctx, scope, "");
	c.in = io->in;
	c.n_in = node->n_input;
	c.out = io->out;
	c.n_out = node->n_output;
	c.max_bytes = limit_of(ctx);
	c.tensor_of = tensor_of;
	c.tensor_payload = ctx;
	c.why = why;
	c.why_len = sizeof(why);
	if (scs_eval_ew_has(node->op_type) && node->n_input <= SCS_EVAL_EW_MAX && node->n_output == 1)
		return fold_streaming(ctx, scope, node, io, &c);
	for (size_t i = 0; i < node->n_input; i++) {
		if (node->input[i][0] == '\0')
			continue;
		if ((r = load_input(ctx, io, i, io->kind[i], &f[i], &held, why, sizeof(why))) != SCS_OK)
			return r < 0 ? r : refused(scs_opt_refuse(ctx, scope, node, "not folded: %s", why));
	}
	c.max_hold = HOLD_MAX - held > 0 ? HOLD_MAX - held : 1;
	if ((r = scs_eval_run(&c)) < 0)
		return r;
	if (r != SCS_OK)
		return refuse_kernel(ctx, scope, node, r, why);
	for (size_t j = 0; j < node->n_output; j++) {
		out_bytes += scs_eval_bytes(&io->out[j]);
		out_dt[j] = io->out[j].dtype;
	}
	if ((r = admit(ctx, scope, node, io, &c, out_dt, out_bytes)) != 0)
		return r;
	for (size_t j = 0; j < node->n_output; j++)
		if (node->output[j][0] && (scs_opt_n_uses(ctx, scope, node->output[j]) ||
		    scs_opt_is_pinned(ctx, scope, node->output[j])) &&
		    (r = replace_output(ctx, scope, node, io, j, &io->out[j])) < 0)
			return r;
	if ((r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	if ((r = scs_opt_did(ctx, scope, node, "folded into %d constant%s of %llu bytes", n_used, n_used > 1 ? "s" : "",
	    (unsigned long long)out_bytes)) < 0)
		return r;
	return 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	fold_state *st = payload;
	fold_io *io = &st->io;
	size_t n_in = node->n_input < MAX_IO ? node->n_input : MAX_IO, n_out = node->n_output < MAX_IO ? node->n_output :
	    MAX_IO;
	int64_t seen;
	int r;

	/* a node refused once is not evaluated again in each later walk */
	if (node->n_output && node->output[0][0] && scs_strmap_get(&st->refused, node->output[0], &seen) &&
	    seen == (int64_t)(intptr_t)node)
		return 0;
	/* fold() looks at no more inputs and outputs than the node has: only those are cleared and freed */
	memset(io->in, 0, n_in * sizeof(io->in[0]));
	memset(io->c, 0, n_in * sizeof(io->c[0]));
	memset(io->is_const, 0, n_in * sizeof(io->is_const[0]));
	memset(io->kind, 0, n_in * sizeof(io->kind[0]));
	memset(io->out, 0, n_out * sizeof(io->out[0]));
	io->made = &st->made;
	r = fold(ctx, scope, node, io);
	if (r == 2) {
		r = 0;
		if (node->n_output && node->output[0][0] &&
		    scs_strmap_put(&st->refused, node->output[0], (int64_t)(intptr_t)node) < 0)
			r = scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate the folding state");
	}
	for (size_t i = 0; i < n_in; i++)
		scs_eval_tensor_free(&io->in[i]);
	for (size_t j = 0; j < n_out; j++)
		scs_eval_tensor_free(&io->out[j]);
	if (r > 0)
		st->changed = 1;
	return r < 0 ? r : 0;
}

int
scs_opt_fold_constants(scs_opt_ctx *ctx, int *changed)
{
	fold_state *st;
	int rc = SCS_OK;

	if (!scs_eval_host_ok())
		return 0;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate the folding state");
	/* a chain folds one node further each time: commit and look again while anything folds */
	for (int round = 0; round < 1000; round++) {
		st->changed = 0;
		rc = scs_opt_each_node(ctx, one, st);
		made_clear(&st->made);     /* its names go with the commit */
		if (rc < 0 || !st->changed)
			break;
		*changed = 1;
		if ((rc = scs_opt_commit(ctx)) < 0)
			break;
	}
	scs_strmap_dispose(&st->refused);
	free(st->made.items);
	free(st);
	return rc;
}
