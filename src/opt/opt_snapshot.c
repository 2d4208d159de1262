/*
 * opt_snapshot.c: the optimizer's snapshot of the model and what it
 * answers (see opt.h): the state's small containers, the snapshot
 * (scopes, uses, producers, topological orders, labels), lookups of
 * names, definitions and uses, visiting nodes, and what is known of a
 * value.
 *
 * The snapshot is built by scs_opt_refresh() and holds pointers into the
 * model; nothing the passes queue is freed before the commit that
 * rebuilds it, and names a pass replaces in place are kept until then
 * too, so the snapshot never points at freed memory.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/opt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"
#include "util/buf.h"
#include "model/graph.h"
#include "onnx/opschema.h"
#include "model/scope.h"
#include "util/strmap.h"

/* ---- small containers ---- */

/* Make room for one more element of @size in *@arr (count @n, capacity *@cap). */
int
scs_opt_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	/* the optimizer's own message in place of scs_grow's */
	if (scs_grow(arr, cap, n, size, 16, "a list") < 0)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot grow a list");
	return SCS_OK;
}

static size_t
ptr_slot(const ptrset *s, const void *p)
{
	uintptr_t h = (uintptr_t)p;
	size_t i;

	h ^= h >> 17;
	h *= (uintptr_t)0x9e3779b97f4a7c15ULL;
	for (i = (size_t)(h >> 7) & (s->cap - 1); s->items[i] && s->items[i] != p; i = (i + 1) & (s->cap - 1))
		;
	return i;
}

int
scs_opt_ptrset_has(const ptrset *s, const void *p)
{
	return s->cap && p && s->items[ptr_slot(s, p)] == p;
}

int
scs_opt_ptrset_add(ptrset *s, const void *p)
{
	if (2 * (s->n + 1) > s->cap) {
		ptrset bigger = { NULL, 0, s->cap ? s->cap * 2 : 64 };

		if ((bigger.items = calloc(bigger.cap, sizeof(*bigger.items))) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot grow a node set");
		for (size_t i = 0; i < s->cap; i++)
			if (s->items[i])
				bigger.items[ptr_slot(&bigger, s->items[i])] = s->items[i];
		bigger.n = s->n;
		free(s->items);
		*s = bigger;
	}
	size_t i = ptr_slot(s, p);

	if (s->items[i] == NULL) {
		s->items[i] = p;
		s->n++;
	}
	return SCS_OK;
}

void
scs_opt_ptrset_dispose(ptrset *s)
{
	free(s->items);
	memset(s, 0, sizeof(*s));
}

/* ---- state ---- */

void
scs_opt_snapshot_dispose(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;

	for (size_t i = 0; i < st->n_scopes; i++) {
		if (st->first_use)
			scs_strmap_dispose(&st->first_use[i]);
		if (st->producer)
			scs_strmap_dispose(&st->producer[i]);
		if (st->init)
			scs_strmap_dispose(&st->init[i]);
		if (st->label)
			free(st->label[i]);
		if (st->order)
			free(st->order[i]);
		if (st->cycle)
			free(st->cycle[i]);
	}
	free(st->first_use);
	free(st->producer);
	free(st->init);
	free(st->label);
	free(st->order);
	free(st->n_order);
	free(st->cycle);
	free(st->owner);
	free(st->attr_name);
	st->first_use = st->producer = st->init = NULL;
	st->label = st->cycle = NULL;
	st->order = NULL;
	st->n_order = NULL;
	st->owner = NULL;
	st->attr_name = NULL;
	st->n_scopes = 0;
	st->n_uses = st->n_producers = st->n_inits = 0;
	scs_strmap_dispose(&st->names);
	if (st->have_infer)
		scs_infer_dispose(&st->infer);
	st->have_infer = 0;
	scs_scopes_dispose(&ctx->scopes);
}

int
scs_opt_own(scs_opt_ctx *ctx, char *s)
{
	scs_opt_state *st = ctx->st;
	int rc;

	if (s == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot copy a name");
	if ((rc = scs_opt_grow(&st->owned, &st->cap_owned, st->n_owned, sizeof(char *))) < 0) {
		free(s);
		return rc;
	}
	st->owned[st->n_owned++] = s;
	return SCS_OK;
}

/* ---- the snapshot ---- */

static Onnx__GraphProto *
attr_graph(const Onnx__AttributeProto *a, size_t k)
{
	return a->g && k == 0 ? a->g : a->graphs[k - (a->g ? 1 : 0)];
}

static size_t
attr_n_graphs(const Onnx__AttributeProto *a)
{
	return (a->g ? 1u : 0u) + a->n_graphs;
}

/* "node 'n' (Op)" or "Op node writing 'y'", then where it is. */
void
scs_opt_subject_of(char *out, size_t len, const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *n)
{
	const char *op = n->op_type ? n->op_type : "?", *where = scope >= 0 && ctx->st->label ? ctx->st->label[scope] : "";

	if (n->name && n->name[0])
		snprintf(out, len, "node '%s' (%s)%s", n->name, op, where);
	else if (n->n_output && n->output[0][0])
		snprintf(out, len, "%s node writing '%s'%s", op, n->output[0], where);
	else
		snprintf(out, len, "%s node%s", op, where);
}

/* Which node (and attribute) holds each nested scope's graph; labels. */
static int
find_owners(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	Onnx__NodeProto **nodes;
	char subj[256], buf[1024];
	size_t *n;

	for (size_t p = 0; p < ctx->scopes.n; p++) {
		nodes = *scs_scope_nodes(&ctx->scopes.items[p], &n);
		for (size_t i = 0; i < *n; i++)
			for (size_t j = 0; j < nodes[i]->n_attribute; j++)
				for (size_t k = 0; k < attr_n_graphs(nodes[i]->attribute[j]); k++) {
					Onnx__GraphProto *g = attr_graph(nodes[i]->attribute[j], k);

					/* children follow their parent, in this order (model.c's build_from) */
					for (size_t c = p + 1; c < ctx->scopes.n; c++)
						if (ctx->scopes.items[c].graph == g && ctx->scopes.items[c].parent == (int)p &&
						    st->owner[c] == NULL) {
							st->owner[c] = nodes[i];
							st->attr_name[c] = nodes[i]->attribute[j]->name;
							break;
						}
				}
	}
	for (size_t s = 0; s < ctx->scopes.n; s++) {
		scs_scope *sc = &ctx->scopes.items[s];

		if (sc->func)
			snprintf(buf, sizeof(buf), " in function '%s%s%s'", sc->func->domain ? sc->func->domain : "",
			    sc->func->domain && sc->func->domain[0] ? "." : "", sc->func->name ? sc->func->name : "");
		else if (st->owner[s]) {
			scs_opt_subject_of(subj, sizeof(subj), ctx, sc->parent, st->owner[s]);
			snprintf(buf, sizeof(buf), " in %s of %s", st->attr_name[s] ? st->attr_name[s] : "a graph", subj);
		} else
			buf[0] = '\0';
		if ((st->label[s] = strdup(buf)) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot label a graph");
	}
	return SCS_OK;
}

static int
add_use(scs_opt_ctx *ctx, int at, const char *name, int kind, Onnx__NodeProto *node, size_t index)
{
	scs_opt_state *st = ctx->st;
	int64_t head = -1;
	int d, rc;

	if (name == NULL || name[0] == '\0')
		return SCS_OK;
	if ((rc = scs_strmap_put(&st->names, name, 1)) < 0)
		return rc;
	if ((d = scs_opt_def_scope(ctx, at, name)) < 0)
		return SCS_OK;
	if ((rc = scs_opt_grow(&st->uses, &st->cap_uses, st->n_uses, sizeof(*st->uses))) < 0)
		return rc;
	scs_strmap_get(&st->first_use[d], name, &head);
	st->uses[st->n_uses] = (scs_opt_use){ kind, at, node, index, head };
	return scs_strmap_put(&st->first_use[d], name, (int64_t)st->n_uses++);
}

static int
index_scope(scs_opt_ctx *ctx, int s)
{
	scs_opt_state *st = ctx->st;
	scs_scope *sc = &ctx->scopes.items[s];
	Onnx__NodeProto **nodes;
	size_t *n;
	int rc = SCS_OK;

	nodes = *scs_scope_nodes(sc, &n);
	for (size_t i = 0; rc == SCS_OK && i < *n; i++) {
		for (size_t j = 0; rc == SCS_OK && j < nodes[i]->n_output; j++) {
			const char *o = nodes[i]->output[j];

			if (!o[0] || scs_strmap_get(&st->producer[s], o, NULL))
				continue;
			if ((rc = scs_strmap_put(&st->names, o, 1)) < 0 ||
			    (rc = scs_opt_grow(&st->producers, &st->cap_producers, st->n_producers, sizeof(*st->producers))) < 0)
				break;
			st->producers[st->n_producers] = nodes[i];
			rc = scs_strmap_put(&st->producer[s], o, (int64_t)st->n_producers++);
		}
		for (size_t j = 0; rc == SCS_OK && j < nodes[i]->n_input; j++)
			rc = add_use(ctx, s, nodes[i]->input[j], SCS_OPT_USE_INPUT, nodes[i], j);
	}
	if (sc->graph) {
		Onnx__GraphProto *g = sc->graph;

		for (size_t i = 0; rc == SCS_OK && i < g->n_input; i++)
			rc = g->input[i]->name ? scs_strmap_put(&st->names, g->input[i]->name, 1) : SCS_OK;
		for (size_t i = 0; rc == SCS_OK && i < g->n_initializer; i++) {
			const char *name = g->initializer[i]->name;

			if (!name || scs_strmap_get(&st->init[s], name, NULL))
				continue;
			if ((rc = scs_strmap_put(&st->names, name, 1)) < 0 ||
			    (rc = scs_opt_grow(&st->inits, &st->cap_inits, st->n_inits, sizeof(*st->inits))) < 0)
				break;
			st->inits[st->n_inits] = g->initializer[i];
			rc = scs_strmap_put(&st->init[s], name, (int64_t)st->n_inits++);
		}
		for (size_t i = 0; rc == SCS_OK && i < g->n_output; i++)
			rc = add_use(ctx, s, g->output[i]->name, SCS_OPT_USE_OUTPUT, NULL, i);
		for (size_t i = 0; rc == SCS_OK && i < g->n_quantization_annotation; i++) {
			Onnx__TensorAnnotation *a = g->quantization_annotation[i];

			rc = add_use(ctx, s, a->tensor_name, SCS_OPT_USE_ANNOTATION, NULL, i);
			for (size_t j = 0; rc == SCS_OK && j < a->n_quant_parameter_tensor_names; j++)
				rc = add_use(ctx, s, a->quant_parameter_tensor_names[j]->value, SCS_OPT_USE_ANNOTATION, NULL, i);
		}
	} else {
		for (size_t i = 0; rc == SCS_OK && i < sc->func->n_input; i++)
			rc = scs_strmap_put(&st->names, sc->func->input[i], 1);
		for (size_t i = 0; rc == SCS_OK && i < sc->func->n_output; i++)
			rc = add_use(ctx, s, sc->func->output[i], SCS_OPT_USE_OUTPUT, NULL, i);
	}
	return rc;
}

/*
 * The nodes @nodes[0 .. @n) in a stable topological order (positions into
 * @nodes, malloc'd). A cycle gives SCS_ECORRUPT with the message set.
 */
static int
order_now(size_t **out, size_t *n_out, Onnx__NodeProto **nodes, size_t n)
{
	Onnx__GraphProto fake = ONNX__GRAPH_PROTO__INIT;
	scs_names *reads;
	int rc = SCS_OK;

	*out = NULL;
	*n_out = 0;
	if ((reads = calloc(n ? n : 1, sizeof(*reads))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot order the nodes");
	for (size_t i = 0; rc == SCS_OK && i < n; i++)
		rc = scs_node_reads(nodes[i], &reads[i]);
	fake.node = nodes;
	fake.n_node = n;
	if (rc == SCS_OK)
		rc = scs_graph_order(out, n_out, &fake, reads, NULL, "the graph");
	for (size_t i = 0; i < n; i++)
		free(reads[i].items);
	free(reads);
	return rc;
}

/*
 * Give declared value @vi the shape of its facts in @inf where inference
 * refined the declared one (a number or a name for an unknown dim): 1 when
 * rewritten, 0 when not, SCS_ENOMEM.
 */
static int
refine_declared(const scs_infer *inf, Onnx__ValueInfoProto *vi)
{
	Onnx__ValueInfoProto *now;
	Onnx__TensorShapeProto *old;
	scs_vfacts f;

	if (!vi->name || !scs_infer_get(inf, vi->name, &f) || f.declared || f.rank < 0 || !vi->type ||
	    vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type ||
	    !(old = vi->type->tensor_type->shape) || old->n_dim != (size_t)f.rank)
		return 0;
	if ((now = scs_infer_value_info(inf, vi->name)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a value_info");
	vi->type->tensor_type->shape = now->type->tensor_type->shape;
	now->type->tensor_type->shape = old;
	scs_model_free_part(&now->base);     /* the old shape may lie in the model's arena */
	return 1;
}

int
scs_opt_write_shapes(scs_model *m, size_t *n_written)
{
	Onnx__GraphProto *g = m->proto->graph;
	scs_strmap declared = { 0 };
	scs_infer inf;
	size_t *order = NULL, n_order = 0;
	int64_t v;
	int rc;

	*n_written = 0;
	if (g == NULL)
		return SCS_OK;
	if ((rc = order_now(&order, &n_order, g->node, g->n_node)) < 0)
		return rc == SCS_ECORRUPT ? (scs_err_clear(), SCS_OK) : rc;
	if ((rc = scs_infer_graph(&inf, m, order, n_order)) < 0)
		goto done;
	/* (a declaration without a name declares nothing) */
	for (size_t i = 0; rc >= 0 && i < g->n_output; i++)
		if (g->output[i]->name && (rc = scs_strmap_put(&declared, g->output[i]->name, 1)) >= 0 &&
		    (rc = refine_declared(&inf, g->output[i])) > 0)
			(*n_written)++;
	for (size_t i = 0; rc >= 0 && i < g->n_value_info; i++)
		if (g->value_info[i]->name && (rc = scs_strmap_put(&declared, g->value_info[i]->name, 1)) >= 0 &&
		    (rc = refine_declared(&inf, g->value_info[i])) > 0)
			(*n_written)++;
	for (size_t k = 0; rc >= 0 && k < n_order; k++) {
		const Onnx__NodeProto *n = g->node[order[k]];

		for (size_t j = 0; rc >= 0 && j < n->n_output; j++) {
			scs_vfacts f;
			Onnx__ValueInfoProto *vi;

			if (!n->output[j][0] || !scs_infer_get(&inf, n->output[j], &f) || f.elem <= 0 ||
			    scs_strmap_get(&declared, n->output[j], &v))
				continue;
			if ((vi = scs_infer_value_info(&inf, n->output[j])) == NULL) {
				rc = scs_err_set(SCS_ENOMEM, "cannot allocate a value_info");
				break;
			}
			if ((rc = scs_array_insert(&g->value_info, &g->n_value_info, vi, 0)) < 0) {
				protobuf_c_message_free_unpacked(&vi->base, NULL);
				break;
			}
			(*n_written)++;
			rc = scs_strmap_put(&declared, n->output[j], 1);
		}
	}
	rc = rc < 0 ? rc : SCS_OK;
done:
	scs_infer_dispose(&inf);
	scs_strmap_dispose(&declared);
	free(order);
	return rc;
}

/* Topological order of scope @s (as node pointers); a cycle is noted, not an error. */
static int
order_scope(scs_opt_ctx *ctx, int s)
{
	scs_opt_state *st = ctx->st;
	Onnx__NodeProto **nodes;
	size_t *n, *order, n_order;
	int rc;

	nodes = *scs_scope_nodes(&ctx->scopes.items[s], &n);
	if ((st->order[s] = malloc((*n ? *n : 1) * sizeof(*st->order[s]))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot order the nodes");
	rc = order_now(&order, &n_order, nodes, *n);
	if (rc == SCS_ECORRUPT) {
		/* a cycle: keep the message (the model is left alone), visit in file order */
		const char *msg = strstr(scs_err_msg(), "the graph has a cycle");

		if ((st->cycle[s] = strdup(msg ? msg : scs_err_msg())) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot copy a message");
		scs_err_clear();
		memcpy(st->order[s], nodes, *n * sizeof(*nodes));
		st->n_order[s] = *n;
		return SCS_OK;
	}
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n_order; i++)
		st->order[s][i] = nodes[order[i]];
	st->n_order[s] = n_order;
	free(order);
	return SCS_OK;
}

int
scs_opt_refresh(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	size_t n;
	int rc;

	scs_opt_snapshot_dispose(ctx);
	if ((rc = scs_scopes_build(&ctx->scopes, ctx->m->proto)) < 0)
		return rc;
	n = ctx->scopes.n ? ctx->scopes.n : 1;
	st->first_use = calloc(n, sizeof(*st->first_use));
	st->producer = calloc(n, sizeof(*st->producer));
	st->init = calloc(n, sizeof(*st->init));
	st->owner = calloc(n, sizeof(*st->owner));
	st->attr_name = calloc(n, sizeof(*st->attr_name));
	st->label = calloc(n, sizeof(*st->label));
	st->order = calloc(n, sizeof(*st->order));
	st->n_order = calloc(n, sizeof(*st->n_order));
	st->cycle = calloc(n, sizeof(*st->cycle));
	if (!st->first_use || !st->producer || !st->init || !st->owner || !st->attr_name || !st->label || !st->order ||
	    !st->n_order || !st->cycle) {
		st->n_scopes = 0;
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot index the model");
	}
	st->n_scopes = ctx->scopes.n;
	if ((rc = find_owners(ctx)) < 0)
		return rc;
	for (size_t s = 0; s < ctx->scopes.n; s++)
		if ((rc = index_scope(ctx, (int)s)) < 0 || (rc = order_scope(ctx, (int)s)) < 0)
			return rc;
	return SCS_OK;
}

/* ---- lookups ---- */

int
scs_opt_def_scope(const scs_opt_ctx *ctx, int scope, const char *name)
{
	for (int s = scope; s >= 0; s = ctx->scopes.items[s].parent)
		if (scs_strmap_get(&ctx->scopes.items[s].defs, name, NULL))
			return s;
	return -1;
}

int
scs_opt_is_input(const scs_opt_ctx *ctx, int scope, const char *name)
{
	const scs_scope *sc = &ctx->scopes.items[scope];

	if (sc->graph) {
		for (size_t i = 0; i < sc->graph->n_input; i++)
			if (sc->graph->input[i]->name && strcmp(sc->graph->input[i]->name, name) == 0)
				return 1;
		return 0;
	}
	for (size_t i = 0; i < sc->func->n_input; i++)
		if (strcmp(sc->func->input[i], name) == 0)
			return 1;
	return 0;
}

int
scs_opt_is_pinned(const scs_opt_ctx *ctx, int scope, const char *name)
{
	return scs_strmap_get(&ctx->scopes.items[scope].pinned, name, NULL);
}

Onnx__NodeProto *
scs_opt_producer(const scs_opt_ctx *ctx, int scope, const char *name)
{
	int64_t i;

	return scs_strmap_get(&ctx->st->producer[scope], name, &i) ? ctx->st->producers[i] : NULL;
}

Onnx__TensorProto *
scs_opt_initializer(const scs_opt_ctx *ctx, int scope, const char *name)
{
	int64_t i;

	return scs_strmap_get(&ctx->st->init[scope], name, &i) ? ctx->st->inits[i] : NULL;
}

Onnx__NodeProto *
scs_opt_scope_owner(const scs_opt_ctx *ctx, int scope)
{
	return ctx->st->owner[scope];
}

const scs_opt_use *
scs_opt_first_use(const scs_opt_ctx *ctx, int scope, const char *name)
{
	int64_t i;

	return scs_strmap_get(&ctx->st->first_use[scope], name, &i) ? &ctx->st->uses[i] : NULL;
}

const scs_opt_use *
scs_opt_next_use(const scs_opt_ctx *ctx, const scs_opt_use *u)
{
	return u->next >= 0 ? &ctx->st->uses[u->next] : NULL;
}

size_t
scs_opt_n_uses(const scs_opt_ctx *ctx, int scope, const char *name)
{
	size_t n = 0;

	for (const scs_opt_use *u = scs_opt_first_use(ctx, scope, name); u; u = scs_opt_next_use(ctx, u))
		n++;
	return n;
}

int64_t
scs_opt_opset(const scs_opt_ctx *ctx, int scope, const char *domain)
{
	int root = scope;
	Onnx__FunctionProto *f;

	while (root >= 0 && ctx->scopes.items[root].parent >= 0)
		root = ctx->scopes.items[root].parent;
	if (root >= 0 && (f = ctx->scopes.items[root].func) != NULL)
		for (size_t i = 0; i < f->n_opset_import; i++) {
			const char *d = f->opset_import[i]->domain;

			if (scs_is_onnx_domain(domain) ? scs_is_onnx_domain(d) : (d && strcmp(d, domain) == 0))
				return f->opset_import[i]->version;
		}
	return scs_model_opset(ctx->m->proto, domain);
}

/* 1 when @name is a name of the model or one the optimizer already gave out. */
static int
name_taken(void *p, const char *name)
{
	const scs_opt_state *st = p;

	return scs_strmap_get(&st->names, name, NULL) || scs_strmap_get(&st->taken, name, NULL);
}

int
scs_opt_fresh_name(const char **out, scs_opt_ctx *ctx, const char *base)
{
	scs_opt_state *st = ctx->st;
	char *name;
	int rc;

	if ((name = scs_fresh_name(base, "_opt", name_taken, st, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a name");
	if ((rc = scs_opt_own(ctx, name)) < 0)
		return rc;
	*out = name;
	return scs_strmap_put(&st->taken, name, 1);
}

/* ---- visiting ---- */

int
scs_opt_is_dropped(const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node)
{
	const scs_opt_state *st = ctx->st;

	if (scs_opt_ptrset_has(&st->dropped, node))
		return 1;
	for (int s = scope; s >= 0; s = ctx->scopes.items[s].parent)
		if (st->owner[s] && scs_opt_ptrset_has(&st->dropped, st->owner[s]))
			return 1;
	return 0;
}

int
scs_opt_each_node(scs_opt_ctx *ctx, scs_opt_node_fn fn, void *payload)
{
	scs_opt_state *st = ctx->st;
	int rc;

	for (size_t s = 0; s < st->n_scopes; s++) {
		if (st->owner[s] && scs_opt_is_dropped(ctx, ctx->scopes.items[s].parent, st->owner[s]))
			continue;
		for (size_t k = 0; k < st->n_order[s]; k++) {
			Onnx__NodeProto *node = st->order[s][k];

			if (scs_opt_ptrset_has(&st->dropped, node))
				continue;
			if ((rc = fn(ctx, (int)s, node, payload)) < 0)
				return rc;
		}
	}
	return SCS_OK;
}

typedef struct each_op {
	const char *op_type;
	scs_opt_node_fn fn;
	int *changed;
} each_op;

static int
visit_op(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	each_op *e = payload;
	int r;

	if ((r = scs_opt_is_op(ctx, scope, node, e->op_type)) <= 0 || (r = e->fn(ctx, scope, node, NULL)) <= 0)
		return r;
	*e->changed = 1;
	return SCS_OK;
}

int
scs_opt_each_op(scs_opt_ctx *ctx, const char *op_type, scs_opt_node_fn fn, int *changed)
{
	each_op e = { op_type, fn, changed };

	return scs_opt_each_node(ctx, visit_op, &e);
}

int
scs_opt_is_op(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, const char *op_type)
{
	int64_t opset;
	int newest;

	if (!node->op_type || strcmp(node->op_type, op_type) != 0 || !scs_is_onnx_domain(node->domain))
		return 0;
	opset = scs_opt_opset(ctx, scope, node->domain);
	newest = scs_opschema_newest_opset("");
	if (opset <= 0)
		return scs_opt_refuse(ctx, scope, node, "the model imports no default-domain opset") < 0 ? -1 : 0;
	if (opset > newest)
		return scs_opt_refuse(ctx, scope, node, "the model imports opset %lld, newer than the operator schemas "
		    "known here (up to %d)", (long long)opset, newest) < 0 ? -1 : 0;
	if (scs_opschema_find("", op_type, opset) == NULL)
		return scs_opt_refuse(ctx, scope, node, "%s has no schema at opset %lld", op_type, (long long)opset) < 0 ?
		    -1 : 0;
	for (size_t i = 0; i < node->n_attribute; i++)
		if (node->attribute[i]->ref_attr_name && node->attribute[i]->ref_attr_name[0])
			return scs_opt_refuse(ctx, scope, node, "attribute '%s' takes the function's attribute '%s', unknown "
			    "here", node->attribute[i]->name ? node->attribute[i]->name : "",
			    node->attribute[i]->ref_attr_name) < 0 ? -1 : 0;
	return 1;
}

/* ---- facts ---- */

static void
facts_from_tensor(scs_vfacts *f, const Onnx__TensorProto *t)
{
	if (f->elem <= 0)
		f->elem = t->data_type;
	if (f->rank < 0 && t->n_dims <= SCS_INFER_MAX_RANK) {
		f->rank = (int)t->n_dims;
		for (size_t d = 0; d < t->n_dims; d++)
			f->dims[d] = t->dims[d];
	}
}

int
scs_opt_facts(scs_opt_ctx *ctx, int scope, const char *name, scs_vfacts *out)
{
	scs_opt_state *st = ctx->st;
	int d = scs_opt_def_scope(ctx, scope, name), rc;
	Onnx__GraphProto *g;
	Onnx__NodeProto *p;
	const Onnx__TensorProto *t;

	memset(out, 0, sizeof(*out));
	out->rank = -1;
	if (d < 0)
		return 0;
	g = ctx->scopes.items[d].graph;
	if (d == 0 && g == ctx->m->proto->graph) {
		if (!st->have_infer) {
			size_t *order, n_order;

			/* the graph as it is now (nodes inserted since the commit included) */
			if ((rc = order_now(&order, &n_order, g->node, g->n_node)) < 0)
				return rc == SCS_ECORRUPT ? (scs_err_clear(), 0) : rc;
			rc = scs_infer_graph(&st->infer, ctx->m, order, n_order);
			free(order);
			if (rc < 0) {
				scs_infer_dispose(&st->infer);
				return rc;
			}
			st->have_infer = 1;
		}
		if (!scs_infer_get(&st->infer, name, out))
			return 0;     /* out as set above: nothing known */
		return out->elem > 0 || out->rank >= 0;
	}
	if (g) {
		for (size_t i = 0; i < g->n_input; i++)
			if (g->input[i]->name && strcmp(g->input[i]->name, name) == 0)
				scs_infer_facts_from_type(out, g->input[i]->type, NULL);
		for (size_t i = 0; i < g->n_initializer; i++)
			if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0)
				facts_from_tensor(out, g->initializer[i]);
		for (size_t i = 0; i < g->n_output; i++)
			if (g->output[i]->name && strcmp(g->output[i]->name, name) == 0)
				scs_infer_facts_from_type(out, g->output[i]->type, NULL);
		for (size_t i = 0; i < g->n_value_info; i++)
			if (g->value_info[i]->name && strcmp(g->value_info[i]->name, name) == 0)
				scs_infer_facts_from_type(out, g->value_info[i]->type, NULL);
	}
	if ((p = scs_opt_producer(ctx, d, name)) != NULL && (t = scs_node_constant(p)) != NULL)
		facts_from_tensor(out, t);
	return out->elem > 0 || out->rank >= 0;
}

int
scs_opt_declare(Onnx__ValueInfoProto **out, scs_opt_ctx *ctx, const char *name)
{
	scs_vfacts f;
	int rc;

	*out = NULL;
	if ((rc = scs_opt_facts(ctx, 0, name, &f)) <= 0 || f.elem <= 0 || !ctx->st->have_infer)
		return rc < 0 ? rc : 0;
	if ((*out = scs_infer_value_info(&ctx->st->infer, name)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot declare '%s'", name);
	return 1;
}

int
scs_opt_broadcast_keeps(const scs_vfacts *x, const int64_t *dims, size_t n, int *at)
{
	*at = -1;
	if (n == 0)
		return 1;
	if (x->rank < 0)
		return -1;
	if (n > (size_t)x->rank)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int k = x->rank - (int)n + (int)i;

		if (dims[i] == 1)
			continue;
		if (x->dims[k] < 0) {
			*at = k;
			return -1;
		}
		if (x->dims[k] != dims[i])
			return 0;
	}
	return 1;
}
