/*
 * split.c: split_init and split_predict, onnxoptimizer's two halves of one
 * cut (they share the cut, so they share this file): the main graph's
 * values are on the init side when they come from constants only (the
 * initializers, defaults included, and what pure nodes compute from them
 * alone), on the predict side when they depend on a graph input without an
 * initializer or on a node that may not be moved: a random one (RandomNormal,
 * RandomUniform, their -Like forms, Multinomial, Bernoulli, Dropout), a node
 * with a graph attribute (If, Loop, Scan, ...), or one of another domain
 * (its effects are not known). The boundary is the init-side values a
 * predict-side node reads (directly or from a nested body) and the graph
 * outputs on the init side.
 *
 * split_init keeps the init side: its nodes, the initializers and the
 * defaults among the inputs; its outputs are the graph outputs on the init
 * side and the boundary. split_predict keeps the predict side: the boundary
 * values become graph inputs (a default stays an input, now without its
 * initializer), the initializers go, and inputs nothing reads any more go.
 * Running the init model, then the predict model on its outputs and the
 * original inputs, computes what the model did. Each result is a valid
 * model on its own; the interface changes, which is what asking for the
 * pass means (onnxoptimizer assumes, as this does, that the initializers
 * change only between runs of the init model). A boundary value whose
 * element type is not known cannot be declared: the pass refuses then, and
 * split_init refuses a cut that would leave it no output. Not in the
 * default set; asked for together, both refuse (each makes its half from
 * the whole model).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt.h"
#include "util/arena.h"
#include "util/strmap.h"

typedef struct cut {
	Onnx__GraphProto *g;
	scs_strmap predict;                 /* predict-side values (borrowed names) */
	scs_strmap boundary_set;
	const char **boundary;              /* in the order found */
	size_t n_boundary;
	size_t n_init_nodes, n_predict_nodes;
} cut;

static int
impure(const Onnx__NodeProto *n)
{
	static const char *const random_ops[] = { "RandomNormal", "RandomNormalLike", "RandomUniform",
		"RandomUniformLike", "Multinomial", "Bernoulli", "Dropout", NULL };

	if (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
		return 1;
	for (size_t a = 0; a < n->n_attribute; a++)
		if (n->attribute[a]->g || n->attribute[a]->n_graphs)
			return 1;
	for (const char *const *op = random_ops; *op; op++)
		if (strcmp(n->op_type, *op) == 0)
			return 1;
	return 0;
}

static int
on_predict_side(const cut *c, const Onnx__NodeProto *n)
{
	if (impure(n))
		return 1;
	for (size_t i = 0; i < n->n_input; i++)
		if (n->input[i][0] && scs_strmap_get(&c->predict, n->input[i], NULL))
			return 1;
	return 0;
}

static int
classify(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *n, void *payload)
{
	cut *c = payload;
	int rc;

	(void)ctx;
	if (scope != 0)
		return SCS_OK;
	if (!on_predict_side(c, n)) {
		c->n_init_nodes++;
		return SCS_OK;
	}
	c->n_predict_nodes++;
	for (size_t k = 0; k < n->n_output; k++)
		if (n->output[k][0] && (rc = scs_strmap_put(&c->predict, n->output[k], 1)) < 0)
			return rc;
	return SCS_OK;
}

/* @name (init side) joins the boundary when a predict-side node, a nested body or a graph output reads it. */
static int
check_boundary(scs_opt_ctx *ctx, cut *c, const char *name)
{
	const char **grown;

	if (scs_strmap_get(&c->boundary_set, name, NULL))
		return SCS_OK;
	for (const scs_opt_use *u = scs_opt_first_use(ctx, 0, name); u; u = scs_opt_next_use(ctx, u)) {
		if (u->kind == SCS_OPT_USE_ANNOTATION || (u->kind == SCS_OPT_USE_INPUT && u->scope == 0 &&
		    !on_predict_side(c, u->node)))
			continue;
		if ((grown = realloc(c->boundary, (c->n_boundary + 1) * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot list the values the split cuts");
		c->boundary = grown;
		c->boundary[c->n_boundary++] = name;
		return scs_strmap_put(&c->boundary_set, name, 1);
	}
	return SCS_OK;
}

static int
find_boundary(scs_opt_ctx *ctx, cut *c)
{
	int rc;

	for (size_t i = 0; i < c->g->n_initializer; i++)
		if ((rc = check_boundary(ctx, c, c->g->initializer[i]->name)) < 0)
			return rc;
	for (size_t i = 0; i < c->g->n_node; i++) {
		Onnx__NodeProto *n = c->g->node[i];

		if (on_predict_side(c, n))
			continue;
		for (size_t k = 0; k < n->n_output; k++)
			if (n->output[k][0] && (rc = check_boundary(ctx, c, n->output[k])) < 0)
				return rc;
	}
	return SCS_OK;
}

static int
cut_make(scs_opt_ctx *ctx, cut *c)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->g = ctx->scopes.items[0].graph;
	for (size_t i = 0; i < c->g->n_input; i++) {
		const char *name = c->g->input[i]->name;

		if (name && name[0] && !scs_opt_initializer(ctx, 0, name) && (rc = scs_strmap_put(&c->predict, name, 1)) < 0)
			return rc;
	}
	if ((rc = scs_opt_each_node(ctx, classify, c)) < 0)
		return rc;
	return find_boundary(ctx, c);
}

static void
cut_dispose(cut *c)
{
	scs_strmap_dispose(&c->predict);
	scs_strmap_dispose(&c->boundary_set);
	free(c->boundary);
}

/* Declarations of the boundary values @ctx's graph does not list in @have (inputs or outputs), into *@out. */
static int
declare_new(scs_opt_ctx *ctx, const cut *c, Onnx__ValueInfoProto *const *have, size_t n_have,
    Onnx__ValueInfoProto ***out, size_t *n_out)
{
	scs_strmap listed = SCS_STRMAP_INIT;
	int rc = SCS_OK;

	*n_out = 0;
	if ((*out = calloc(c->n_boundary + 1, sizeof(**out))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot declare the values the split cuts");
	for (size_t i = 0; rc == SCS_OK && i < n_have; i++)
		rc = have[i]->name ? scs_strmap_put(&listed, have[i]->name, 1) : SCS_OK;
	for (size_t i = 0; rc == SCS_OK && i < c->n_boundary; i++) {
		if (scs_strmap_get(&listed, c->boundary[i], NULL))
			continue;
		if ((rc = scs_opt_declare(&(*out)[*n_out], ctx, c->boundary[i])) > 0) {
			++*n_out;
			rc = SCS_OK;
		} else if (rc == 0) {
			rc = scs_opt_refuse_value(ctx, 0, c->boundary[i], "the graph is not split: the cut goes through it "
			    "and its element type is not known");
			rc = rc < 0 ? rc : 1;
		}
	}
	scs_strmap_dispose(&listed);
	if (rc != SCS_OK) {
		for (size_t i = 0; i < *n_out; i++)
			scs_model_free_part(&(*out)[i]->base);
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* Append @add (@n_add, taken) to the value list @list / @n. */
static int
append(Onnx__ValueInfoProto ***list, size_t *n, Onnx__ValueInfoProto **add, size_t n_add)
{
	Onnx__ValueInfoProto **grown;

	if (n_add == 0)
		return SCS_OK;
	/* the array may sit in the model's arena */
	if ((grown = scs_arena_grow(*list, *n * sizeof(*grown), (*n + n_add) * sizeof(*grown))) == NULL) {
		for (size_t i = 0; i < n_add; i++)
			scs_model_free_part(&add[i]->base);
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot grow the graph's inputs or outputs");
	}
	memcpy(grown + *n, add, n_add * sizeof(*add));
	*list = grown;
	*n += n_add;
	return SCS_OK;
}

/* Keep the entries of @list for which @keep says 1 (the others freed). */
static size_t
keep_where(Onnx__ValueInfoProto **list, size_t n, int (*keep)(scs_opt_ctx *, const cut *, const char *),
    scs_opt_ctx *ctx, const cut *c)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (list[i]->name && keep(ctx, c, list[i]->name))
			list[k++] = list[i];
		else
			scs_model_free_part(&list[i]->base);
	}
	return k;
}

/* 1 (and the refusal reported) when @other runs too: each pass makes one half of the cut, from the whole model. */
static int
both_asked(scs_opt_ctx *ctx, const char *other)
{
	for (size_t i = 0; i < ctx->res->n_passes; i++)
		if (strcmp(ctx->res->passes[i].name, other) == 0)
			return scs_opt_refuse(ctx, 0, NULL, "the graph is not split: split_init and split_predict each make "
			    "one half of the cut from the whole model; run them one at a time") < 0 ? -1 : 1;
	return 0;
}

/* How many entries of @list @keep says 1 to. */
static size_t
count_kept(Onnx__ValueInfoProto *const *list, size_t n, int (*keep)(scs_opt_ctx *, const cut *, const char *),
    scs_opt_ctx *ctx, const cut *c)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += list[i]->name && keep(ctx, c, list[i]->name);
	return k;
}

/* The cut of @ctx's main graph into @c, and the declarations of the boundary values its outputs (@outputs 1) or
 * inputs (0) do not list yet into *@add; != 0 when the pass stops there (a refusal reported, or an error). */
static int
cut_begin(scs_opt_ctx *ctx, cut *c, int outputs, Onnx__ValueInfoProto ***add, size_t *n_add)
{
	int rc = cut_make(ctx, c);

	if (rc < 0)
		return rc;
	return outputs ? declare_new(ctx, c, c->g->output, c->g->n_output, add, n_add) :
	    declare_new(ctx, c, c->g->input, c->g->n_input, add, n_add);
}

static int
init_keeps(scs_opt_ctx *ctx, const cut *c, const char *name)
{
	(void)ctx;
	return !scs_strmap_get(&c->predict, name, NULL);
}

/* The new declarations @add (*@n_add, taken: *@n_add becomes 0) appended to @list; the model changed. */
static int
install(scs_opt_ctx *ctx, Onnx__ValueInfoProto ***list, size_t *n, Onnx__ValueInfoProto **add, size_t *n_add,
    int *changed)
{
	int rc = append(list, n, add, *n_add);

	*n_add = 0;
	if (rc < 0)
		return rc;
	scs_opt_touch(ctx);
	*changed = 1;
	return SCS_OK;
}

/* Free the cut and the declarations not installed. */
static void
cut_end(cut *c, Onnx__ValueInfoProto **add, size_t n_add)
{
	for (size_t i = 0; i < n_add; i++)
		scs_model_free_part(&add[i]->base);
	free(add);
	cut_dispose(c);
}

static int
drop_side(scs_opt_ctx *ctx, const cut *c, int predict)
{
	int rc;

	for (size_t i = 0; i < c->g->n_node; i++)
		if (on_predict_side(c, c->g->node[i]) == predict && (rc = scs_opt_drop_node(ctx, 0, c->g->node[i])) < 0)
			return rc;
	return SCS_OK;
}

int
scs_opt_split_init(scs_opt_ctx *ctx, int *changed)
{
	Onnx__ValueInfoProto **add = NULL;
	size_t n_add = 0, n_out_kept, n_in_kept;
	cut c;
	int rc = SCS_OK;

	if (ctx->scopes.n == 0 || ctx->scopes.items[0].graph == NULL || (rc = both_asked(ctx, "split_predict")) != 0)
		return rc < 0 ? rc : SCS_OK;
	if ((rc = cut_begin(ctx, &c, 1, &add, &n_add)) != 0)
		goto done;
	n_out_kept = count_kept(c.g->output, c.g->n_output, init_keeps, ctx, &c);
	n_in_kept = count_kept(c.g->input, c.g->n_input, init_keeps, ctx, &c);
	if (c.n_predict_nodes == 0 && n_add == 0 && n_out_kept == c.g->n_output && n_in_kept == c.g->n_input)
		goto done;     /* the init model already */
	if (n_out_kept + n_add == 0) {
		rc = scs_opt_refuse(ctx, 0, NULL, "the graph is not split: no output comes from constants alone and no "
		    "node of the predict side reads any (the init model would compute nothing)");
		goto done;
	}
	if ((rc = drop_side(ctx, &c, 1)) < 0)
		goto done;
	c.g->n_output = keep_where(c.g->output, c.g->n_output, init_keeps, ctx, &c);
	c.g->n_input = keep_where(c.g->input, c.g->n_input, init_keeps, ctx, &c);
	rc = install(ctx, &c.g->output, &c.g->n_output, add, &n_add, changed);
	if (rc < 0)
		goto done;
	rc = scs_opt_did(ctx, 0, NULL, "split: the init model (%zu nodes on the init side kept, %zu of the predict side "
	    "removed; %zu outputs)", c.n_init_nodes, c.n_predict_nodes, c.g->n_output);
done:
	cut_end(&c, add, n_add);
	return rc < 0 ? rc : SCS_OK;
}

/* an input the predict model keeps: a boundary value, or one without an initializer that something reads */
static int
predict_keeps(scs_opt_ctx *ctx, const cut *c, const char *name)
{
	if (scs_strmap_get(&c->boundary_set, name, NULL))
		return 1;
	return !scs_opt_initializer(ctx, 0, name) && scs_opt_n_uses(ctx, 0, name) > 0;
}

int
scs_opt_split_predict(scs_opt_ctx *ctx, int *changed)
{
	Onnx__ValueInfoProto **add = NULL;
	size_t n_add = 0, n_in_kept;
	cut c;
	int rc = SCS_OK;

	if (ctx->scopes.n == 0 || ctx->scopes.items[0].graph == NULL || (rc = both_asked(ctx, "split_init")) != 0)
		return rc < 0 ? rc : SCS_OK;
	if ((rc = cut_begin(ctx, &c, 0, &add, &n_add)) != 0)
		goto done;
	n_in_kept = count_kept(c.g->input, c.g->n_input, predict_keeps, ctx, &c);
	if (c.n_init_nodes == 0 && c.g->n_initializer == 0 && n_add == 0 && n_in_kept == c.g->n_input)
		goto done;     /* the predict model already */
	if ((rc = drop_side(ctx, &c, 0)) < 0)
		goto done;
	for (size_t i = 0; i < c.g->n_initializer; i++)
		if ((rc = scs_opt_drop_initializer(ctx, 0, c.g->initializer[i])) < 0)
			goto done;
	c.g->n_input = keep_where(c.g->input, c.g->n_input, predict_keeps, ctx, &c);
	rc = install(ctx, &c.g->input, &c.g->n_input, add, &n_add, changed);
	if (rc < 0)
		goto done;
	rc = scs_opt_did(ctx, 0, NULL, "split: the predict model (%zu nodes on the init side removed, %zu kept; the "
	    "initializers removed; %zu inputs)", c.n_init_nodes, c.n_predict_nodes, c.g->n_input);
done:
	cut_end(&c, add, n_add);
	return rc < 0 ? rc : SCS_OK;
}
