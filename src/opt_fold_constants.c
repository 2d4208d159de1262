/*
 * opt_fold_constants.c: a node whose inputs are all constants (initializers
 * that are not graph inputs, Constant nodes), computed once by the
 * evaluator (eval.h) and replaced by constants; Shape and Size also when
 * the input's dims are all known (declarations, inference). The new
 * constants are written to the store in pieces.
 *
 * Left alone, and reported with the reason: random operators, nodes that
 * read an overridable default (an initializer that is also a graph input),
 * operators the evaluator has no kernel for or cases it declines, outputs
 * over the size limit (--fold-size-limit, 1 MiB by default) and, unless
 * --fold-grow, folds whose outputs take more bytes than the constants they
 * leave unread (results of at most SMALL bytes, shapes and scalars, count
 * as no growth). Results a runtime may round otherwise (the math library's
 * functions, float sums and products of more than two terms: the kernel
 * marks them inexact) fold only with --fold-inexact. A node's inputs are
 * read whole: each at most four times the size limit.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "eval.h"
#include "opt.h"

#define SMALL 64
#define MAX_IO 64

/* Operators that only move elements: their float16 results are bits of their inputs. */
static const char *const moving_ops[] = { "Identity", "Shape", "Size", "Gather", "GatherElements", "Unsqueeze",
	"Squeeze", "Concat", "Split", "Reshape", "Flatten", "Transpose", "Slice", "ConstantOfShape", "Expand", "Tile", "Pad",
	"Where", NULL };

static const char *const random_ops[] = { "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
	"Multinomial", "Bernoulli", NULL };

typedef struct fold_io {
	scs_eval_tensor in[MAX_IO], out[MAX_IO];
	scs_opt_const c[MAX_IO];
	int is_const[MAX_IO];
	int kind[MAX_IO];                   /* input_kind's answer */
} fold_io;

typedef struct fold_state {
	fold_io io;
	int changed;                        /* a node was folded in this walk */
	scs_strmap refused;                 /* first output -> node, of nodes refused in this run of the pass */
} fold_state;

static uint64_t
limit_of(const scs_opt_ctx *ctx)
{
	return ctx->settings && ctx->settings->fold_size_limit ? ctx->settings->fold_size_limit : SCS_OPT_FOLD_SIZE_LIMIT;
}

/*
 * What input @i of @node is: 1 a constant (*c); 2 known dims (*f) of a
 * value that is not a constant, 3 of a constant (Shape and Size read no
 * more); 0 none of these; -1 an overridable default.
 */
static int
input_kind(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, size_t i, scs_opt_const *c, scs_vfacts *f)
{
	const char *name = node->input[i];
	int dims_only = i == 0 && (strcmp(node->op_type, "Shape") == 0 || strcmp(node->op_type, "Size") == 0);
	char why[256];
	int def, r;

	if ((r = scs_opt_constant(c, ctx, scope, name, why, sizeof(why))) != 0) {
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

/* Input @i read whole into io->in[i] (dims only when @dims_only). SCS_OK, 1 (@why) or < 0. */
static int
load_input(scs_opt_ctx *ctx, fold_io *io, size_t i, int kind, const scs_vfacts *f, char *why, size_t why_len)
{
	const scs_opt_const *c = &io->c[i];
	int64_t dims[SCS_EVAL_MAX_RANK];
	scs_eval_tensor *t = &io->in[i];
	int rc;

	if (kind >= 2) {
		/* Shape and Size read dims only: an element of bool stands for the data */
		for (int a = 0; a < f->rank; a++)
			dims[a] = f->dims[a];
		memset(t, 0, sizeof(*t));
		t->dtype = SCS_DT_BOOL;
		t->rank = (size_t)f->rank;
		memcpy(t->dims, dims, sizeof(dims[0]) * (size_t)f->rank);
		t->n = 1;
		for (int a = 0; a < f->rank; a++)
			t->n *= (uint64_t)dims[a];
		return SCS_OK;
	}
	if (!scs_opt_readable(c->dtype)) {
		snprintf(why, why_len, "input %zu is %s", i, scs_dtype_name(c->dtype));
		return 1;
	}
	if (c->rank > SCS_EVAL_MAX_RANK) {
		snprintf(why, why_len, "input %zu has rank %zu", i, c->rank);
		return 1;
	}
	for (size_t a = 0; a < c->rank; a++)
		dims[a] = scs_opt_const_dim(c, a);
	rc = scs_eval_tensor_alloc(t, c->dtype, c->rank, dims, 4 * limit_of(ctx), why, why_len);
	if (rc == SCS_EVAL_TOO_BIG)
		snprintf(why, why_len, "over the budget: input %zu is over %llu bytes", i,
		    (unsigned long long)(4 * limit_of(ctx)));
	if (rc != SCS_OK)
		return rc < 0 ? rc : 1;
	return scs_opt_read_raw(ctx, c, 0, (size_t)scs_eval_bytes(t), t->data);
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
		for (u = scs_opt_first_use(ctx, io->c[i].scope, node->input[i]); u; u = scs_opt_next_use(ctx, u))
			other |= u->kind != SCS_OPT_USE_INPUT || u->node != node;
		if (!other)
			freed += (uint64_t)io->c[i].n_elems * scs_eval_esize(io->c[i].dtype);
	}
	return freed;
}

/* Output @j as a new constant read by everything that read it. */
static int
replace_output(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t j, const scs_eval_tensor *t)
{
	const char *out = node->output[j], *name, *in[1];
	scs_opt_writer w;
	Onnx__TensorProto *tp;
	Onnx__NodeProto *id;
	uint32_t payload;
	char why[256];
	int rc;

	if ((rc = scs_opt_fresh_name(&name, ctx, out)) < 0 || (rc = scs_opt_writer_open(&w, ctx, t->dtype)) < 0)
		return rc;
	if ((rc = scs_opt_writer_put_raw(&w, t->data, (size_t)scs_eval_bytes(t))) < 0) {
		scs_opt_writer_abort(&w);
		return rc;
	}
	if ((rc = scs_opt_writer_finish(&payload, &w)) < 0)
		return rc;
	if ((tp = scs_opt_tensor_new(ctx, name, t->dtype, t->dims, t->rank, payload)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a folded constant");
	if ((rc = scs_opt_add_constant(ctx, scope, tp, node)) < 0)
		return rc;
	if (!scs_opt_is_pinned(ctx, scope, out) && (rc = scs_opt_rename(ctx, scope, out, name, why, sizeof(why))) != 0)
		return rc < 0 ? rc : SCS_OK;
	/* a name that must stay (a graph output), or a rename refused: an Identity of the constant makes it */
	in[0] = name;
	if ((id = scs_opt_node_new("Identity", NULL, in, 1, &out, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a node");
	return scs_opt_insert_node(ctx, scope, node, id);
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

/*
 * 1 when the node makes a float16 or bfloat16 value by rounding. ONNX
 * Runtime computes such operators in float where it has no float16 kernel,
 * and then drops the Cast pairs around them: the roundings in between are
 * skipped, so the exact value a fold writes could differ from what it
 * computes. Left alone.
 */
static int
rounds_to_half(const Onnx__NodeProto *node, const fold_io *io)
{
	for (size_t j = 0; j < node->n_output; j++) {
		int dt = io->out[j].dtype;

		if ((dt == SCS_DT_FLOAT16 || dt == SCS_DT_BFLOAT16) && !is_in(moving_ops, node->op_type) &&
		    !(io->in[0].dtype == dt && (strcmp(node->op_type, "Cast") == 0 || strcmp(node->op_type, "CastLike") == 0)))
			return 1;
	}
	return 0;
}

static int
fold(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, fold_io *io)
{
	scs_vfacts f[MAX_IO];
	char why[512] = "";
	scs_eval_call c = { 0 };
	uint64_t out_bytes = 0, freed;
	int kind, r, n_used = 0;

	if (node->n_input > MAX_IO || node->n_output > MAX_IO || (node->domain && node->domain[0] &&
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
		if ((kind = input_kind(ctx, scope, node, i, &io->c[i], &f[i])) < -1)
			return kind;
		if (kind == -1)
			return refused(scs_opt_refuse(ctx, scope, node, "not folded: reads '%s', a graph input with a default",
			    node->input[i]));
		if (kind == 0)
			return 0;
		io->is_const[i] = kind == 1 || kind == 3;
		io->kind[i] = kind;
	}
	/* every input is known */
	if (is_random(node->op_type))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: non-deterministic"));
	/* an Identity making a graph output of a constant is what folding leaves */
	if (strcmp(node->op_type, "Identity") == 0 && scs_opt_is_pinned(ctx, scope, node->output[0]))
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
	for (size_t i = 0; i < node->n_input; i++) {
		if (node->input[i][0] == '\0')
			continue;
		if ((r = load_input(ctx, io, i, io->kind[i], &f[i], why, sizeof(why))) != SCS_OK)
			return r < 0 ? r : refused(scs_opt_refuse(ctx, scope, node, "not folded: %s", why));
	}
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
	if ((r = scs_eval_run(&c)) < 0)
		return r;
	if (r == SCS_EVAL_TOO_BIG)
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: over the budget (%s; --fold-size-limit)", why));
	if (r != SCS_OK)
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: not supported (%s)", why));
	if (c.inexact && !(ctx->settings && ctx->settings->fold_inexact))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: %s (--fold-inexact)",
		    strncmp(node->op_type, "Reduce", 6) == 0 ? "a float sum or product of more than two terms, whose "
		    "rounding depends on the order a runtime takes them in" : "a result of the math library, which a "
		    "runtime computes with its own"));
	if (rounds_to_half(node, io))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: a float16 or bfloat16 result made by rounding, "
		    "which ONNX Runtime may compute in float without the roundings in between"));
	for (size_t j = 0; j < node->n_output; j++)
		out_bytes += scs_eval_bytes(&io->out[j]);
	freed = bytes_freed(ctx, node, io);
	if (out_bytes > freed && out_bytes > SMALL && !(ctx->settings && ctx->settings->fold_grow))
		return refused(scs_opt_refuse(ctx, scope, node, "not folded: over the budget: its outputs take %llu bytes, "
		    "the constants it frees %llu (--fold-grow)", (unsigned long long)out_bytes, (unsigned long long)freed));
	for (size_t j = 0; j < node->n_output; j++)
		if (node->output[j][0] && (scs_opt_n_uses(ctx, scope, node->output[j]) ||
		    scs_opt_is_pinned(ctx, scope, node->output[j])) &&
		    (r = replace_output(ctx, scope, node, j, &io->out[j])) < 0)
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
	int64_t seen;
	int r;

	/* a node refused once is not evaluated again in each later walk */
	if (node->n_output && node->output[0][0] && scs_strmap_get(&st->refused, node->output[0], &seen) &&
	    seen == (int64_t)(intptr_t)node)
		return 0;
	memset(io, 0, sizeof(*io));
	r = fold(ctx, scope, node, io);
	if (r == 2) {
		r = 0;
		if (node->n_output && node->output[0][0] &&
		    scs_strmap_put(&st->refused, node->output[0], (int64_t)(intptr_t)node) < 0)
			r = scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate the folding state");
	}
	for (size_t i = 0; i < MAX_IO; i++) {
		scs_eval_tensor_free(&io->in[i]);
		scs_eval_tensor_free(&io->out[i]);
	}
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
		if ((rc = scs_opt_each_node(ctx, one, st)) < 0 || !st->changed)
			break;
		*changed = 1;
		if ((rc = scs_opt_commit(ctx)) < 0)
			break;
	}
	scs_strmap_dispose(&st->refused);
	free(st);
	return rc;
}
