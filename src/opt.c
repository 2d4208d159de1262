/*
 * opt.c: the optimizer's driver, its snapshot of the model and the
 * rewriting tools every pass shares (see opt.h).
 *
 * The snapshot (scopes, uses, producers, topological orders, labels) is
 * built by refresh() and holds pointers into the model; nothing the
 * passes queue is freed before the commit that rebuilds it, and names a
 * pass replaces in place are kept until then too, so the snapshot never
 * points at freed memory.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "dtype.h"
#include "eval.h"
#include "graph.h"
#include "num.h"
#include "opschema.h"
#include "rename.h"
#include "scope.h"
#include "store.h"

#define MAX_ROUNDS 100

/* ---- the table ---- */

const scs_opt_pass scs_opt_passes[] = {
#define SCS_OPT_PASS(name, dflt, what) { #name, what, dflt, scs_opt_##name },
#include "opt_passes.def"
#undef SCS_OPT_PASS
	{ NULL, NULL, 0, NULL }
};

const size_t scs_opt_n_passes = sizeof(scs_opt_passes) / sizeof(scs_opt_passes[0]) - 1;

const scs_opt_pass *
scs_opt_find(const char *name)
{
	for (size_t i = 0; i < scs_opt_n_passes; i++)
		if (strcmp(scs_opt_passes[i].name, name) == 0)
			return &scs_opt_passes[i];
	return NULL;
}

int
scs_opt_check_names(const char *const *names, size_t n)
{
	char known[2048];
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (scs_opt_find(names[i]))
			continue;
		known[0] = '\0';
		for (size_t k = 0; k < scs_opt_n_passes && used < sizeof(known); k++)
			used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s", k ? ", " : "",
			    scs_opt_passes[k].name);
		return scs_err_set(SCS_EUSAGE, "unknown pass '%s'; the passes are: %s", names[i],
		    scs_opt_n_passes ? known : "(none)");
	}
	return SCS_OK;
}

/* ---- small containers ---- */

/* Make room for one more element of @size in *@arr (count @n, capacity *@cap). */
static int
grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void **a = arr, *bigger;
	size_t c;

	if (n < *cap)
		return SCS_OK;
	c = *cap ? *cap * 2 : 16;
	if (c > SIZE_MAX / size || (bigger = realloc(*a, c * size)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot grow a list");
	*a = bigger;
	*cap = c;
	return SCS_OK;
}

/* A set of pointers (open addressing; NULL is never a member). */
typedef struct ptrset {
	const void **items;
	size_t n, cap;
} ptrset;

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

static int
ptrset_has(const ptrset *s, const void *p)
{
	return s->cap && p && s->items[ptr_slot(s, p)] == p;
}

static int
ptrset_add(ptrset *s, const void *p)
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

static void
ptrset_dispose(ptrset *s)
{
	free(s->items);
	memset(s, 0, sizeof(*s));
}

/* ---- state ---- */

typedef struct queued_drop {
	int scope;
	Onnx__NodeProto *node;              /* or */
	Onnx__TensorProto *init;
} queued_drop;

typedef struct slot_rename {
	char **slot;                        /* a node output or an initializer's name */
	char *to;                           /* owned */
} slot_rename;

struct scs_opt_state {
	/* the snapshot: per scope (n_scopes of each), rebuilt by refresh() */
	size_t n_scopes;
	scs_strmap *first_use;              /* name defined here -> index into uses */
	scs_strmap *producer;               /* node output -> index into producers */
	Onnx__NodeProto **producers;
	size_t n_producers, cap_producers;
	scs_strmap *init;                   /* initializer name -> index into inits */
	Onnx__TensorProto **inits;
	size_t n_inits, cap_inits;
	Onnx__NodeProto **owner;
	const char **attr_name;
	char **label;
	Onnx__NodeProto ***order;           /* nodes in topological order */
	size_t *n_order;
	char **cycle;                       /* the cycle message of a scope, or NULL */
	scs_opt_use *uses;
	size_t n_uses, cap_uses;
	scs_strmap names;                   /* every name defined or read */
	scs_infer infer;
	int have_infer;

	/* queued since the last commit */
	scs_renames renames;
	scs_strmap targets;                 /* names a queued rename leads to */
	slot_rename *slots;
	size_t n_slots, cap_slots;
	queued_drop *drops;
	size_t n_drops, cap_drops;
	ptrset dropped;
	char **garbage;
	size_t n_garbage, cap_garbage;
	int dirty;
	int deferred;

	/* the whole run */
	char **owned;                       /* fresh names and refusal keys */
	size_t n_owned, cap_owned;
	scs_strmap taken;
	scs_strmap refused;
	uint8_t *rbuf;
	scs_report_pass *stat;
};

static void
snapshot_dispose(scs_opt_ctx *ctx)
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

static int
own(scs_opt_ctx *ctx, char *s)
{
	scs_opt_state *st = ctx->st;
	int rc;

	if (s == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot copy a name");
	if ((rc = grow(&st->owned, &st->cap_owned, st->n_owned, sizeof(char *))) < 0) {
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
static void
subject_of(char *out, size_t len, const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *n)
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
			subject_of(subj, sizeof(subj), ctx, sc->parent, st->owner[s]);
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
	if ((rc = grow(&st->uses, &st->cap_uses, st->n_uses, sizeof(*st->uses))) < 0)
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
			    (rc = grow(&st->producers, &st->cap_producers, st->n_producers, sizeof(*st->producers))) < 0)
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
			    (rc = grow(&st->inits, &st->cap_inits, st->n_inits, sizeof(*st->inits))) < 0)
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

static int
refresh(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	size_t n;
	int rc;

	snapshot_dispose(ctx);
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

int
scs_opt_fresh_name(const char **out, scs_opt_ctx *ctx, const char *base)
{
	scs_opt_state *st = ctx->st;
	size_t len = strlen(base) + 32;
	char *name;
	int rc;

	if ((name = malloc(len)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a name");
	snprintf(name, len, "%s", base);
	for (unsigned i = 1; name[0] == '\0' || scs_strmap_get(&st->names, name, NULL) ||
	    scs_strmap_get(&st->taken, name, NULL); i++)
		snprintf(name, len, "%s_opt%u", base, i);
	if ((rc = own(ctx, name)) < 0)
		return rc;
	*out = name;
	return scs_strmap_put(&st->taken, name, 1);
}

/* ---- visiting ---- */

int
scs_opt_is_dropped(const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node)
{
	const scs_opt_state *st = ctx->st;

	if (ptrset_has(&st->dropped, node))
		return 1;
	for (int s = scope; s >= 0; s = ctx->scopes.items[s].parent)
		if (st->owner[s] && ptrset_has(&st->dropped, st->owner[s]))
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

			if (ptrset_has(&st->dropped, node))
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

/* ---- constants ---- */

int64_t
scs_opt_const_dim(const scs_opt_const *c, size_t i)
{
	if (c->t)
		return i < c->t->n_dims ? c->t->dims[i] : 1;
	return c->n_elems;     /* value_floats / value_ints: one dim */
}

/* A Constant node's value given by value_float(s) / value_int(s): the attribute, else NULL. */
static const Onnx__AttributeProto *
constant_list_attr(const Onnx__NodeProto *n)
{
	const Onnx__AttributeProto *a;

	if (!n->op_type || strcmp(n->op_type, "Constant") != 0 || !scs_is_onnx_domain(n->domain) || n->n_attribute != 1)
		return NULL;
	a = n->attribute[0];
	if (!a->name || (a->ref_attr_name && a->ref_attr_name[0]))
		return NULL;
	if (strcmp(a->name, "value_float") == 0 || strcmp(a->name, "value_floats") == 0 ||
	    strcmp(a->name, "value_int") == 0 || strcmp(a->name, "value_ints") == 0)
		return a;
	return NULL;
}

int
scs_opt_constant(scs_opt_const *out, scs_opt_ctx *ctx, int scope, const char *name, char *why, size_t why_len)
{
	int d = scs_opt_def_scope(ctx, scope, name);
	Onnx__NodeProto *p;
	const Onnx__AttributeProto *a;

	memset(out, 0, sizeof(*out));
	if (d < 0) {
		snprintf(why, why_len, "'%s' is defined nowhere", name);
		return 0;
	}
	out->scope = d;
	out->t = scs_opt_initializer(ctx, d, name);
	if (scs_opt_is_input(ctx, d, name)) {
		if (out->t)
			snprintf(why, why_len, "'%s' is a graph input with a default (an initializer): a caller may "
			    "override it", name);
		else
			snprintf(why, why_len, "'%s' is a graph input, not a constant", name);
		out->t = NULL;
		return 0;
	}
	if (out->t == NULL && (p = scs_opt_producer(ctx, d, name)) != NULL) {
		if ((out->t = scs_node_constant(p)) != NULL) {
			out->node = p;
		} else if ((a = constant_list_attr(p)) != NULL) {
			out->node = p;
			out->attr = a;
			out->dtype = a->name[6] == 'f' ? SCS_DT_FLOAT : SCS_DT_INT64;
			out->rank = a->name[strlen(a->name) - 1] == 's' ? 1 : 0;
			out->n_elems = out->rank ? (int64_t)(out->dtype == SCS_DT_FLOAT ? a->n_floats : a->n_ints) : 1;
			return 1;
		} else {
			snprintf(why, why_len, "'%s' is computed by a %s node, not a constant", name,
			    p->op_type ? p->op_type : "?");
			return 0;
		}
	}
	if (out->t == NULL) {
		snprintf(why, why_len, "'%s' is not a constant (a sparse initializer or a function input)", name);
		return 0;
	}
	out->dtype = out->t->data_type;
	out->rank = out->t->n_dims;
	if ((out->n_elems = scs_tensor_elems(out->t)) < 0) {
		snprintf(why, why_len, "constant '%s' has a negative or too large dim", name);
		return 0;
	}
	return 1;
}

int
scs_opt_readable(int dtype)
{
	switch (dtype) {
	case SCS_DT_FLOAT: case SCS_DT_DOUBLE: case SCS_DT_FLOAT16: case SCS_DT_BFLOAT16:
	case SCS_DT_INT8: case SCS_DT_INT16: case SCS_DT_INT32: case SCS_DT_INT64:
	case SCS_DT_UINT8: case SCS_DT_UINT16: case SCS_DT_UINT32: case SCS_DT_UINT64: case SCS_DT_BOOL:
		return 1;
	default:
		return 0;
	}
}

/* Element @k of raw little-endian bytes @p of type @dt, as a double or an int64 (*i). */
static double
elem_at(const uint8_t *p, int dt, int64_t *i)
{
	uint64_t u64;
	double d;

	switch (dt) {
	case SCS_DT_FLOAT: case SCS_DT_DOUBLE: case SCS_DT_FLOAT16: case SCS_DT_BFLOAT16:
		d = scs_eval_load_float(p, dt);
		*i = isfinite(d) && fabs(d) < 9.2e18 ? (int64_t)d : 0;
		return d;
	case SCS_DT_INT8: *i = (int8_t)p[0]; return (double)*i;
	case SCS_DT_UINT8: case SCS_DT_BOOL: *i = p[0]; return (double)*i;
	case SCS_DT_INT16: *i = (int16_t)scs_load_le16(p); return (double)*i;
	case SCS_DT_UINT16: *i = scs_load_le16(p); return (double)*i;
	case SCS_DT_INT32: *i = (int32_t)scs_load_le32(p); return (double)*i;
	case SCS_DT_UINT32: *i = scs_load_le32(p); return (double)*i;
	case SCS_DT_INT64: *i = (int64_t)scs_load_le64(p); return (double)*i;
	case SCS_DT_UINT64: u64 = scs_load_le64(p); *i = (int64_t)u64; return (double)u64;
	default: *i = 0; return 0;
	}
}

static int
read_elems(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, double *dv, int64_t *iv)
{
	scs_opt_state *st = ctx->st;
	unsigned bits = scs_dtype_bits(c->dtype);
	size_t esize = bits / 8, per, take;
	uint32_t id;
	int64_t ival;
	double dval;
	int rc;

	if (!scs_opt_readable(c->dtype))
		return scs_err_set(SCS_EUNSUPPORTED, "optimizer: cannot read %s values", scs_dtype_name(c->dtype));
	if (first > (uint64_t)c->n_elems || count > (uint64_t)c->n_elems - first)
		return scs_err_set(SCS_ERANGE, "optimizer: elements %llu..%llu of a constant of %lld",
		    (unsigned long long)first, (unsigned long long)(first + count), (long long)c->n_elems);
	if (c->attr) {
		for (size_t k = 0; k < count; k++) {
			const Onnx__AttributeProto *a = c->attr;
			size_t at = (size_t)first + k;

			if (c->dtype == SCS_DT_FLOAT) {
				dval = c->rank ? a->floats[at] : a->f;
				ival = isfinite(dval) && fabs(dval) < 9.2e18 ? (int64_t)dval : 0;
			} else {
				ival = c->rank ? a->ints[at] : a->i;
				dval = (double)ival;
			}
			if (dv)
				dv[k] = dval;
			if (iv)
				iv[k] = ival;
		}
		return SCS_OK;
	}
	if (count == 0)
		return SCS_OK;
	if (!scs_model_payload_of(ctx->m, c->t, &id))
		return scs_err_set(SCS_ECORRUPT, "constant '%s' has no data", c->t->name ? c->t->name : "");
	if (st->rbuf == NULL && (st->rbuf = malloc(SCS_CHUNK_LEN)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a read buffer");
	per = SCS_CHUNK_LEN / esize;
	for (size_t done = 0; done < count; done += take) {
		take = count - done < per ? count - done : per;
		if ((rc = scs_payloads_read(ctx->m->payloads, id, (first + done) * esize, st->rbuf, take * esize)) < 0)
			return rc;
		for (size_t k = 0; k < take; k++) {
			dval = elem_at(st->rbuf + k * esize, c->dtype, &ival);
			if (dv)
				dv[done + k] = dval;
			if (iv)
				iv[done + k] = ival;
		}
	}
	return SCS_OK;
}

int
scs_opt_read_doubles(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, double *out)
{
	return read_elems(ctx, c, first, count, out, NULL);
}

int
scs_opt_read_int64s(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, int64_t *out)
{
	return read_elems(ctx, c, first, count, NULL, out);
}

int
scs_opt_read_raw(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t off, size_t len, void *out)
{
	uint8_t *p = out;
	uint32_t id;

	if (c->attr) {
		int is_float = c->dtype == SCS_DT_FLOAT;
		size_t esize = is_float ? 4 : 8;
		uint64_t n = (uint64_t)c->n_elems;

		if (off > n * esize || len > n * esize - off)
			return scs_err_set(SCS_ERANGE, "optimizer: bytes past the end of a constant");
		for (size_t k = 0; k < len; k++) {
			uint64_t at = (off + k) / esize, byte = (off + k) % esize, u = 0;

			if (is_float) {
				float f = c->rank ? c->attr->floats[at] : c->attr->f;
				uint32_t u32;

				memcpy(&u32, &f, 4);
				u = u32;
			} else
				u = (uint64_t)(c->rank ? c->attr->ints[at] : c->attr->i);
			p[k] = (uint8_t)(u >> (8 * byte));
		}
		return SCS_OK;
	}
	if (len == 0)
		return SCS_OK;
	if (!scs_model_payload_of(ctx->m, c->t, &id))
		return scs_err_set(SCS_ECORRUPT, "constant '%s' has no data", c->t->name ? c->t->name : "");
	/* a read of any length: the store and derived payloads go a chunk at a time themselves */
	return scs_payloads_read(ctx->m->payloads, id, off, p, len);
}

/* ---- writing payloads ---- */

/*
 * @v rounded once to the binary format with @mant fraction bits and @expo
 * exponent bits (IEEE layout, sign on top): round to nearest, ties to even,
 * subnormals kept, overflow to infinity.
 */
static uint32_t
round_bits(double v, int mant, int expo)
{
	uint32_t sign = signbit(v) ? (uint32_t)1 << (mant + expo) : 0, all = ((uint32_t)1 << expo) - 1;
	int bias = (1 << (expo - 1)) - 1, emin = 1 - bias, e;
	double a = fabs(v), n;

	if (isnan(v))
		return sign | all << mant | (uint32_t)1 << (mant - 1);
	if (isinf(v))
		return sign | all << mant;
	if (a == 0)
		return sign;
	frexp(a, &e);
	e -= 1;                                  /* a = 1.f * 2^e */
	if (e < emin)
		e = emin;                            /* subnormal: the quantum of the smallest exponent */
	n = rint(ldexp(a, mant - e));            /* exact scaling, then the one rounding */
	if (n >= ldexp(1.0, mant + 1)) {         /* rounded up into the next binade */
		n = ldexp(n, -1);
		e++;
	}
	if (e > bias)
		return sign | all << mant;
	if (n < ldexp(1.0, mant))
		return sign | (uint32_t)n;           /* subnormal (only at emin) */
	return sign | (uint32_t)(e + bias) << mant | ((uint32_t)n - ((uint32_t)1 << mant));
}

uint16_t
scs_opt_to_float16(double v)
{
	return (uint16_t)round_bits(v, 10, 5);
}

uint16_t
scs_opt_to_bfloat16(double v)
{
	return (uint16_t)round_bits(v, 7, 8);
}

int
scs_opt_writer_open(scs_opt_writer *w, scs_opt_ctx *ctx, int dtype)
{
	scs_store_writer *sw;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!scs_opt_readable(dtype))
		return scs_err_set(SCS_EUNSUPPORTED, "optimizer: cannot write %s values", scs_dtype_name(dtype));
	if (ctx->m->payloads->store == NULL)
		return scs_err_set(SCS_EUSAGE, "optimizer: new payloads need a store");
	if ((w->buf = malloc(SCS_CHUNK_LEN)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate a write buffer");
	if ((rc = scs_store_writer_open(&sw, ctx->m->payloads->store)) < 0) {
		free(w->buf);
		w->buf = NULL;
		return rc;
	}
	w->ctx = ctx;
	w->w = sw;
	w->dtype = dtype;
	return SCS_OK;
}

static int
writer_flush(scs_opt_writer *w)
{
	int rc = SCS_OK;

	if (w->used)
		rc = scs_store_writer_write(w->w, w->buf, w->used);
	w->used = 0;
	return rc;
}

/* Append one element given as a double (@d) or an int64 (@i, when @is_int). */
static int
writer_put(scs_opt_writer *w, double d, int64_t i, int is_int)
{
	size_t esize = scs_dtype_bits(w->dtype) / 8;
	uint8_t *p;
	uint64_t u;
	float f;
	int rc;

	if (w->used + esize > SCS_CHUNK_LEN && (rc = writer_flush(w)) < 0)
		return rc;
	p = w->buf + w->used;
	if (!is_int && w->dtype != SCS_DT_FLOAT && w->dtype != SCS_DT_DOUBLE && w->dtype != SCS_DT_FLOAT16 &&
	    w->dtype != SCS_DT_BFLOAT16)
		i = isfinite(d) && fabs(d) < 9.2e18 ? (int64_t)d : 0;
	if (is_int)
		d = (double)i;
	switch (w->dtype) {
	case SCS_DT_FLOAT:
		f = (float)d;
		memcpy(&u, &f, 4);
		scs_store_le32(p, (uint32_t)u);
		break;
	case SCS_DT_DOUBLE:
		memcpy(&u, &d, 8);
		scs_store_le64(p, u);
		break;
	case SCS_DT_FLOAT16: scs_store_le16(p, scs_opt_to_float16(d)); break;
	case SCS_DT_BFLOAT16: scs_store_le16(p, scs_opt_to_bfloat16(d)); break;
	case SCS_DT_BOOL: p[0] = i != 0; break;
	case SCS_DT_INT8: case SCS_DT_UINT8: p[0] = (uint8_t)i; break;
	case SCS_DT_INT16: case SCS_DT_UINT16: scs_store_le16(p, (uint16_t)i); break;
	case SCS_DT_INT32: case SCS_DT_UINT32: scs_store_le32(p, (uint32_t)i); break;
	default: scs_store_le64(p, (uint64_t)i); break;
	}
	w->used += esize;
	w->n_elems++;
	return SCS_OK;
}

int
scs_opt_writer_put_doubles(scs_opt_writer *w, const double *v, size_t n)
{
	size_t k = 0;
	int rc;

	/* float and double: a run at a time (the general path costs a switch per element) */
	while (k < n && (w->dtype == SCS_DT_FLOAT || w->dtype == SCS_DT_DOUBLE)) {
		size_t esize = w->dtype == SCS_DT_FLOAT ? 4 : 8, room = (SCS_CHUNK_LEN - w->used) / esize, take;
		uint8_t *p = w->buf + w->used;

		if (room == 0) {
			if ((rc = writer_flush(w)) < 0)
				return rc;
			continue;
		}
		take = n - k < room ? n - k : room;
		for (size_t i = 0; i < take; i++, p += esize) {
			uint64_t u = 0;

			if (esize == 4) {
				float f = (float)v[k + i];

				memcpy(&u, &f, 4);
				scs_store_le32(p, (uint32_t)u);
			} else {
				memcpy(&u, &v[k + i], 8);
				scs_store_le64(p, u);
			}
		}
		w->used += take * esize;
		w->n_elems += take;
		k += take;
	}
	for (; k < n; k++)
		if ((rc = writer_put(w, v[k], 0, 0)) < 0)
			return rc;
	return SCS_OK;
}

int
scs_opt_writer_put_int64s(scs_opt_writer *w, const int64_t *v, size_t n)
{
	int rc;

	for (size_t k = 0; k < n; k++)
		if ((rc = writer_put(w, 0, v[k], 1)) < 0)
			return rc;
	return SCS_OK;
}

int
scs_opt_writer_put_raw(scs_opt_writer *w, const void *bytes, size_t len)
{
	const uint8_t *p = bytes;
	size_t esize = scs_dtype_bits(w->dtype) / 8, take;
	int rc;

	if (esize == 0 || len % esize)
		return scs_err_set(SCS_EUSAGE, "optimizer: %zu bytes of %s values", len, scs_dtype_name(w->dtype));
	while (len) {
		if (w->used == SCS_CHUNK_LEN && (rc = writer_flush(w)) < 0)
			return rc;
		take = SCS_CHUNK_LEN - w->used < len ? SCS_CHUNK_LEN - w->used : len;
		memcpy(w->buf + w->used, p, take);
		w->used += take;
		p += take;
		len -= take;
	}
	w->n_elems += (uint64_t)(p - (const uint8_t *)bytes) / esize;
	return SCS_OK;
}

int
scs_opt_writer_finish(uint32_t *payload, scs_opt_writer *w)
{
	scs_payload pl;
	scs_blob blob;
	int rc;

	if ((rc = writer_flush(w)) < 0) {
		scs_opt_writer_abort(w);
		return rc;
	}
	rc = scs_store_writer_finish(&blob, w->w);
	w->w = NULL;
	free(w->buf);
	w->buf = NULL;
	if (rc < 0)
		return rc;
	memset(&pl, 0, sizeof(pl));
	scs_payload_at_store(&pl, &blob);
	return scs_payloads_add(w->ctx->m->payloads, &pl, payload);
}

void
scs_opt_writer_abort(scs_opt_writer *w)
{
	if (w == NULL)
		return;
	if (w->w)
		scs_store_writer_abort(w->w);
	free(w->buf);
	w->w = NULL;
	w->buf = NULL;
}

/* ---- building ---- */

Onnx__TensorProto *
scs_opt_tensor_new(scs_opt_ctx *ctx, const char *name, int dtype, const int64_t *dims, size_t n_dims, uint32_t payload)
{
	Onnx__TensorProto *t = malloc(sizeof(*t));

	if (t == NULL)
		return NULL;
	onnx__tensor_proto__init(t);
	t->name = strdup(name);
	t->dims = malloc((n_dims ? n_dims : 1) * sizeof(*t->dims));
	if (t->name == NULL || t->dims == NULL) {
		free(t->name);
		free(t->dims);
		free(t);
		return NULL;
	}
	if (n_dims)
		memcpy(t->dims, dims, n_dims * sizeof(*dims));
	t->n_dims = n_dims;
	t->has_data_type = 1;
	t->data_type = dtype;
	scs_model_set_payload(ctx->m, t, payload);
	return t;
}

static Onnx__AttributeProto *
attr_new(const char *name, Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = malloc(sizeof(*a));

	if (a == NULL)
		return NULL;
	onnx__attribute_proto__init(a);
	if ((a->name = strdup(name)) == NULL) {
		free(a);
		return NULL;
	}
	a->has_type = 1;
	a->type = type;
	return a;
}

/* Replace attribute @name of @n with @a (or add it); @a is owned by @n afterwards, also on failure. */
static int
attr_put(Onnx__NodeProto *n, Onnx__AttributeProto *a)
{
	if (a == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot make an attribute");
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && strcmp(n->attribute[i]->name, a->name) == 0) {
			scs_model_free_part(&n->attribute[i]->base);
			n->attribute[i] = a;
			return SCS_OK;
		}
	if (scs_array_insert(&n->attribute, &n->n_attribute, a, 0) < 0) {
		protobuf_c_message_free_unpacked(&a->base, NULL);
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot add an attribute");
	}
	return SCS_OK;
}

int
scs_opt_set_attr_int(Onnx__NodeProto *node, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);

	if (a) {
		a->has_i = 1;
		a->i = v;
	}
	return attr_put(node, a);
}

int
scs_opt_set_attr_float(Onnx__NodeProto *node, const char *name, float v)
{
	Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);

	if (a) {
		a->has_f = 1;
		a->f = v;
	}
	return attr_put(node, a);
}

int
scs_opt_set_attr_ints(Onnx__NodeProto *node, const char *name, const int64_t *v, size_t n)
{
	Onnx__AttributeProto *a = attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);

	if (a && (a->ints = malloc((n ? n : 1) * sizeof(*v))) == NULL) {
		protobuf_c_message_free_unpacked(&a->base, NULL);
		a = NULL;
	}
	if (a) {
		if (n)
			memcpy(a->ints, v, n * sizeof(*v));
		a->n_ints = n;
	}
	return attr_put(node, a);
}

const Onnx__AttributeProto *
scs_opt_attr(const Onnx__NodeProto *node, const char *name)
{
	for (size_t i = 0; i < node->n_attribute; i++)
		if (node->attribute[i]->name && strcmp(node->attribute[i]->name, name) == 0)
			return node->attribute[i];
	return NULL;
}

int64_t
scs_opt_attr_int(const Onnx__NodeProto *node, const char *name, int64_t dflt)
{
	const Onnx__AttributeProto *a = scs_opt_attr(node, name);

	return a ? a->i : dflt;
}

float
scs_opt_attr_float(const Onnx__NodeProto *node, const char *name, float dflt)
{
	const Onnx__AttributeProto *a = scs_opt_attr(node, name);

	return a ? a->f : dflt;
}

static char **
names_copy(const char *const *names, size_t n)
{
	char **out = calloc(n ? n : 1, sizeof(*out));

	for (size_t i = 0; out && i < n; i++)
		if ((out[i] = strdup(names[i] ? names[i] : "")) == NULL) {
			for (size_t k = 0; k < i; k++)
				free(out[k]);
			free(out);
			return NULL;
		}
	return out;
}

Onnx__NodeProto *
scs_opt_node_new(const char *op_type, const char *name, const char *const *inputs, size_t n_inputs,
    const char *const *outputs, size_t n_outputs)
{
	Onnx__NodeProto *n = malloc(sizeof(*n));

	if (n == NULL)
		return NULL;
	onnx__node_proto__init(n);
	n->op_type = strdup(op_type);
	n->name = strdup(name ? name : "");
	n->input = names_copy(inputs, n_inputs);
	n->n_input = n->input ? n_inputs : 0;
	n->output = names_copy(outputs, n_outputs);
	n->n_output = n->output ? n_outputs : 0;
	if (!n->op_type || !n->name || !n->input || !n->output) {
		protobuf_c_message_free_unpacked(&n->base, NULL);
		return NULL;
	}
	return n;
}

void
scs_opt_node_free(scs_opt_ctx *ctx, Onnx__NodeProto *node)
{
	if (node)
		scs_model_free_message(ctx->m, &node->base);
}

int
scs_opt_insert_node(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *before, Onnx__NodeProto *node)
{
	Onnx__NodeProto ***arr, **grown;
	size_t *n, at;

	arr = scs_scope_nodes(&ctx->scopes.items[scope], &n);
	for (at = 0; before && at < *n && (*arr)[at] != before; at++)
		;
	if (!before)
		at = *n;
	if ((grown = scs_arena_grow(*arr, *n * sizeof(*grown), (*n + 1) * sizeof(*grown))) == NULL) {
		scs_opt_node_free(ctx, node);
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot insert a node");
	}
	memmove(grown + at + 1, grown + at, (*n - at) * sizeof(*grown));
	grown[at] = node;
	*arr = grown;
	(*n)++;
	ctx->st->dirty = 1;
	return SCS_OK;
}

int
scs_opt_add_constant(scs_opt_ctx *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *before)
{
	Onnx__GraphProto *g = ctx->scopes.items[scope].graph;
	Onnx__AttributeProto *a;
	Onnx__NodeProto *n;
	const char *out = t->name;

	/* below IR 4 a graph's initializers are its inputs too: a nested body's
	 * inputs are its operator's, so there a Constant node */
	if (g && (ctx->m->proto->ir_version >= 4 || ctx->scopes.items[scope].parent < 0)) {
		if (scs_array_insert(&g->initializer, &g->n_initializer, t, 0) < 0) {
			scs_model_free_message(ctx->m, &t->base);
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot add an initializer");
		}
		ctx->st->dirty = 1;
		return SCS_OK;
	}
	/* a function body has no initializers: a Constant node (and an IR 3 body) */
	if ((n = scs_opt_node_new("Constant", "", NULL, 0, &out, 1)) == NULL ||
	    (a = attr_new("value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR)) == NULL) {
		scs_opt_node_free(ctx, n);
		scs_model_free_message(ctx->m, &t->base);
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot add a Constant");
	}
	a->t = t;
	if (attr_put(n, a) < 0) {
		scs_opt_node_free(ctx, n);
		return SCS_ENOMEM;
	}
	if (before == NULL) {
		Onnx__NodeProto **nodes;
		size_t *cnt;

		nodes = *scs_scope_nodes(&ctx->scopes.items[scope], &cnt);
		before = *cnt ? nodes[0] : NULL;
	}
	return scs_opt_insert_node(ctx, scope, before, n);
}

/* ---- editing ---- */

int
scs_opt_set_input(scs_opt_ctx *ctx, Onnx__NodeProto *node, size_t i, const char *name)
{
	scs_opt_state *st = ctx->st;
	char *copy;
	int rc;

	/* past the end: the inputs in between are left out ("") */
	while (node->n_input <= i) {
		char **grown = scs_arena_grow(node->input, node->n_input * sizeof(*grown), (node->n_input + 1) * sizeof(*grown));

		if (grown == NULL || (grown[node->n_input] = strdup("")) == NULL) {
			if (grown)
				node->input = grown;
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot add an input");
		}
		node->input = grown;
		node->n_input++;
	}
	if ((copy = strdup(name)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot copy a name");
	/* the old name may key the snapshot: freed at the commit */
	if ((rc = grow(&st->garbage, &st->cap_garbage, st->n_garbage, sizeof(char *))) < 0) {
		free(copy);
		return rc;
	}
	st->garbage[st->n_garbage++] = node->input[i];
	node->input[i] = copy;
	st->dirty = 1;
	return SCS_OK;
}

static int
queue_drop(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, Onnx__TensorProto *init)
{
	scs_opt_state *st = ctx->st;
	int rc;

	if (ptrset_has(&st->dropped, node ? (void *)node : (void *)init))
		return SCS_OK;
	if ((rc = grow(&st->drops, &st->cap_drops, st->n_drops, sizeof(*st->drops))) < 0 ||
	    (rc = ptrset_add(&st->dropped, node ? (void *)node : (void *)init)) < 0)
		return rc;
	st->drops[st->n_drops++] = (queued_drop){ scope, node, init };
	st->dirty = 1;
	return SCS_OK;
}

int
scs_opt_drop_node(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node)
{
	return queue_drop(ctx, scope, node, NULL);
}

int
scs_opt_drop_initializer(scs_opt_ctx *ctx, int scope, Onnx__TensorProto *t)
{
	return queue_drop(ctx, scope, NULL, t);
}

void
scs_opt_touch(scs_opt_ctx *ctx)
{
	ctx->st->dirty = 1;
}

void
scs_opt_defer(scs_opt_ctx *ctx)
{
	ctx->st->deferred = 1;
}

int
scs_opt_rename(scs_opt_ctx *ctx, int scope, const char *from, const char *to, char *why, size_t why_len)
{
	scs_opt_state *st = ctx->st;
	int rc;

	why[0] = '\0';
	/* one rename per name per round: a chain waits for the commit */
	if (scs_strmap_get(&st->targets, from, NULL) || scs_renames_lookup(&st->renames, &ctx->scopes, scope, to) ||
	    scs_strmap_get(&st->renames.last, from, NULL)) {
		scs_opt_defer(ctx);
		return 0;
	}
	for (const scs_opt_use *u = scs_opt_first_use(ctx, scope, from); u; u = scs_opt_next_use(ctx, u))
		for (int s = u->scope; s != scope && s >= 0; s = ctx->scopes.items[s].parent)
			if (scs_strmap_get(&ctx->scopes.items[s].defs, to, NULL)) {
				snprintf(why, why_len, "'%s' is read%s, where '%s' names another value", from, st->label[s], to);
				return 0;
			}
	if ((rc = scs_renames_add(&st->renames, scope, from, to)) < 0 ||
	    (rc = scs_strmap_put(&st->targets, st->renames.items[st->renames.n - 1].to, 1)) < 0)
		return rc;
	st->dirty = 1;
	return 1;
}

/* @name as references from @scope will read it once the queued renames apply. */
static const char *
resolve(scs_opt_ctx *ctx, int scope, const char *name)
{
	const char *to;

	for (size_t hops = 0; hops <= ctx->st->renames.n && (to = scs_renames_lookup(&ctx->st->renames, &ctx->scopes,
	    scope, name)) != NULL; hops++)
		name = to;
	return name;
}

/* What kind of pinned name @name of scope @scope is, for messages. */
static const char *
pinned_kind(const scs_opt_ctx *ctx, int scope, const char *name)
{
	const scs_scope *sc = &ctx->scopes.items[scope];

	if (scs_opt_is_input(ctx, scope, name))
		return sc->parent >= 0 ? "an input of a nested graph" : "a graph input";
	if (sc->func)
		return "an output of the function";
	for (size_t i = 0; i < sc->graph->n_output; i++)
		if (sc->graph->output[i]->name && strcmp(sc->graph->output[i]->name, name) == 0)
			return sc->parent >= 0 ? "an output of a nested graph" : "a graph output";
	return "named by a quantization annotation";
}

static int
queue_slot_rename(scs_opt_ctx *ctx, char **slot, const char *to)
{
	scs_opt_state *st = ctx->st;
	int rc;

	if ((rc = grow(&st->slots, &st->cap_slots, st->n_slots, sizeof(*st->slots))) < 0)
		return rc;
	if ((st->slots[st->n_slots].to = strdup(to)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot copy a name");
	st->slots[st->n_slots++].slot = slot;
	return SCS_OK;
}

int
scs_opt_rename_def(scs_opt_ctx *ctx, int scope, char **slot, const char *to, char *why, size_t why_len)
{
	int r;

	if ((r = scs_opt_rename(ctx, scope, *slot, to, why, why_len)) <= 0)
		return r;
	return queue_slot_rename(ctx, slot, to) < 0 ? SCS_ENOMEM : 1;
}

int
scs_opt_forward(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t in, size_t out)
{
	char why[512];
	const char *x, *y, *kind;
	Onnx__NodeProto *p;
	size_t k;
	int r;

	if (in >= node->n_input || out >= node->n_output || !node->input[in][0] || !node->output[out][0])
		return scs_opt_refuse(ctx, scope, node, "it has no input %zu or output %zu to join", in, out);
	for (k = 0; k < node->n_output; k++) {
		const char *o = node->output[k];

		if (k == out || !o[0])
			continue;
		if (scs_opt_n_uses(ctx, scope, o) || scs_opt_is_pinned(ctx, scope, o))
			return scs_opt_refuse(ctx, scope, node, "its output %zu '%s' is read", k, o);
	}
	y = node->output[out];
	x = resolve(ctx, scope, node->input[in]);
	if (strcmp(x, y) == 0)
		return scs_opt_refuse(ctx, scope, node, "it reads its own output '%s'", y);
	if (!scs_opt_is_pinned(ctx, scope, y)) {
		if ((r = scs_opt_rename(ctx, scope, y, x, why, sizeof(why))) <= 0)
			return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, node, "%s", why) : 0;
		if ((r = scs_opt_drop_node(ctx, scope, node)) < 0)
			return r;
		return scs_opt_did(ctx, scope, node, "removed; its readers read '%s'", x) < 0 ? -1 : 1;
	}
	/* the output keeps its name: the input's producer, in this graph, takes it */
	kind = pinned_kind(ctx, scope, y);
	if (scs_opt_def_scope(ctx, scope, x) != scope)
		return scs_opt_refuse(ctx, scope, node, "'%s' is %s and '%s' comes from an enclosing graph, which a "
		    "graph output may not name directly", y, kind, x);
	if (scs_opt_is_input(ctx, scope, x))
		return scs_opt_refuse(ctx, scope, node, "'%s' is %s and '%s' is %s: both names must stay", y, kind, x,
		    pinned_kind(ctx, scope, x));
	if ((p = scs_opt_producer(ctx, scope, x)) == NULL)
		return scs_opt_refuse(ctx, scope, node, "'%s' is %s and '%s' is an initializer, which keeps its name", y,
		    kind, x);
	if (scs_opt_is_pinned(ctx, scope, x))
		return scs_opt_refuse(ctx, scope, node, "'%s' and '%s' are both names that must stay (%s; %s)", y, x,
		    kind, pinned_kind(ctx, scope, x));
	if (scs_opt_is_dropped(ctx, scope, p)) {
		scs_opt_defer(ctx);
		return 0;
	}
	for (k = 0; k < p->n_output && strcmp(p->output[k], x) != 0; k++)
		;
	if (k == p->n_output)
		return scs_opt_refuse(ctx, scope, node, "'%s' is not an output of its producer", x);
	if ((r = scs_opt_rename_def(ctx, scope, &p->output[k], y, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, node, "%s", why) : 0;
	if ((r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	return scs_opt_did(ctx, scope, node, "removed; '%s' is now made as '%s' (%s)", x, y, kind) < 0 ? -1 : 1;
}

/* ---- commit ---- */

static void
drop_value_info(Onnx__GraphProto *g, const scs_strmap *gone, const scs_strmap *alive)
{
	size_t keep = 0;

	for (size_t i = 0; i < g->n_value_info; i++) {
		Onnx__ValueInfoProto *vi = g->value_info[i];

		if (vi->name && scs_strmap_get(gone, vi->name, NULL) && !scs_strmap_get(alive, vi->name, NULL))
			scs_model_free_part(&vi->base);
		else
			g->value_info[keep++] = vi;
	}
	g->n_value_info = keep;
}

/* Value info of names that the queued drops end, in each graph that loses them. */
static int
prune_value_info(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	int rc = SCS_OK;

	for (size_t s = 0; rc == SCS_OK && s < ctx->scopes.n; s++) {
		Onnx__GraphProto *g = ctx->scopes.items[s].graph;
		scs_strmap gone = SCS_STRMAP_INIT, alive = SCS_STRMAP_INIT;

		if (g == NULL || g->n_value_info == 0 || (st->owner[s] && scs_opt_is_dropped(ctx, (int)s, NULL)))
			continue;
		for (size_t i = 0; rc == SCS_OK && i < st->n_drops; i++) {
			if (st->drops[i].scope != (int)s)
				continue;
			if (st->drops[i].init)
				rc = st->drops[i].init->name ? scs_strmap_put(&gone, st->drops[i].init->name, 1) : SCS_OK;
			for (size_t j = 0; rc == SCS_OK && st->drops[i].node && j < st->drops[i].node->n_output; j++)
				rc = scs_strmap_put(&gone, st->drops[i].node->output[j], 1);
		}
		if (gone.n) {
			for (size_t i = 0; rc == SCS_OK && i < g->n_input; i++)
				rc = g->input[i]->name ? scs_strmap_put(&alive, g->input[i]->name, 1) : SCS_OK;
			for (size_t i = 0; rc == SCS_OK && i < g->n_initializer; i++)
				if (g->initializer[i]->name && !ptrset_has(&st->dropped, g->initializer[i]))
					rc = scs_strmap_put(&alive, g->initializer[i]->name, 1);
			for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++)
				for (size_t j = 0; rc == SCS_OK && !ptrset_has(&st->dropped, g->node[i]) && j < g->node[i]->n_output; j++)
					rc = scs_strmap_put(&alive, g->node[i]->output[j], 1);
			if (rc == SCS_OK)
				drop_value_info(g, &gone, &alive);
		}
		scs_strmap_dispose(&gone);
		scs_strmap_dispose(&alive);
	}
	return rc;
}

/*
 * Remove from scope @s every node and initializer queued to go, in one pass
 * over each list (one list search and move per drop grew with the square
 * of the drops when a long chain folded at once).
 */
static void
drop_from_scope(scs_opt_ctx *ctx, int s)
{
	scs_opt_state *st = ctx->st;
	scs_scope *sc = &ctx->scopes.items[s];
	Onnx__NodeProto **nodes;
	size_t *n, keep = 0;

	nodes = *scs_scope_nodes(sc, &n);
	for (size_t i = 0; i < *n; i++) {
		if (ptrset_has(&st->dropped, nodes[i]))
			scs_model_free_message(ctx->m, &nodes[i]->base);
		else
			nodes[keep++] = nodes[i];
	}
	*n = keep;
	if (sc->graph == NULL)
		return;
	keep = 0;
	for (size_t i = 0; i < sc->graph->n_initializer; i++) {
		Onnx__TensorProto *t = sc->graph->initializer[i];

		if (ptrset_has(&st->dropped, t))
			scs_model_free_message(ctx->m, &t->base);
		else
			sc->graph->initializer[keep++] = t;
	}
	sc->graph->n_initializer = keep;
}

static int
cmp_drop(const void *pa, const void *pb)
{
	const queued_drop *a = pa, *b = pb;

	return a->scope != b->scope ? (a->scope < b->scope ? 1 : -1) : 0;
}

static void
queue_dispose(scs_opt_state *st)
{
	scs_renames_dispose(&st->renames);
	scs_strmap_dispose(&st->targets);
	for (size_t i = 0; i < st->n_slots; i++)
		free(st->slots[i].to);
	st->n_slots = 0;
	for (size_t i = 0; i < st->n_garbage; i++)
		scs_arena_release(st->garbage[i]);
	st->n_garbage = 0;
	st->n_drops = 0;
	ptrset_dispose(&st->dropped);
	st->dirty = 0;
}

int
scs_opt_commit(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	int rc;

	if (!st->dirty)
		return SCS_OK;
	if ((rc = scs_renames_apply(&st->renames, &ctx->scopes)) < 0)
		goto done;
	for (size_t i = 0; i < st->n_slots; i++) {
		scs_arena_release(*st->slots[i].slot);
		*st->slots[i].slot = st->slots[i].to;
		st->slots[i].to = NULL;
	}
	st->n_slots = 0;
	/*
	 * With nothing dropped, the scopes are not looked at again before the
	 * refresh: a pass may have freed a graph in place (opt.h, commit).
	 */
	if (st->n_drops && (rc = prune_value_info(ctx)) < 0)
		goto done;
	/* nested scopes first, so a node inside a dropped one is never freed twice */
	if (st->n_drops)
		qsort(st->drops, st->n_drops, sizeof(*st->drops), cmp_drop);
	for (size_t i = 0; i < st->n_drops; i++) {
		int s = st->drops[i].scope;

		if (i > 0 && st->drops[i - 1].scope == s)
			continue;     /* the scope's drops are made at once, at its first */
		if (st->owner[s] && scs_opt_is_dropped(ctx, ctx->scopes.items[s].parent, st->owner[s]))
			continue;     /* goes with the node that holds its graph */
		drop_from_scope(ctx, s);
	}
	queue_dispose(st);
	rc = refresh(ctx);
done:
	queue_dispose(st);
	return rc;
}

/* ---- reporting ---- */

static scs_report_pass *
pass_stat(scs_opt_ctx *ctx)
{
	scs_report *r = ctx->rep;
	const char *name;

	if (ctx->pass == NULL)
		return NULL;     /* about the model as a whole */
	name = ctx->pass->name;

	for (size_t i = 0; i < r->n_passes; i++)
		if (strcmp(r->passes[i].name, name) == 0)
			return &r->passes[i];
	if (r->n_passes == SCS_REPORT_MAX_PASSES)
		return NULL;
	memset(&r->passes[r->n_passes], 0, sizeof(r->passes[0]));
	snprintf(r->passes[r->n_passes].name, sizeof(r->passes[0].name), "%s", name);
	return &r->passes[r->n_passes++];
}

static int
record(scs_opt_ctx *ctx, int refusal, const char *subject, const char *fmt, va_list ap)
{
	scs_opt_state *st = ctx->st;
	scs_report_pass *stat = pass_stat(ctx);
	char msg[1024], line[1536], *key;
	const char *pass = ctx->pass ? ctx->pass->name : "optimize";
	int rc;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(line, sizeof(line), "%s: %s", subject, msg);
	if (refusal) {
		size_t len = strlen(pass) + strlen(line) + 2;

		if ((key = malloc(len)) == NULL)
			return scs_err_set(SCS_ENOMEM, "optimizer: cannot grow the report");
		snprintf(key, len, "%s\x1f%s", pass, line);
		if (scs_strmap_get(&st->refused, key, NULL)) {
			free(key);
			return SCS_OK;
		}
		if ((rc = own(ctx, key)) < 0 || (rc = scs_strmap_put(&st->refused, key, 1)) < 0)
			return rc;
		if (stat)
			stat->refusals++;
		return scs_report_add(&ctx->rep->left, pass, line);
	}
	if (stat)
		stat->changes++;
	return scs_report_add(&ctx->rep->changes, pass, line);
}

int
scs_opt_report(scs_opt_ctx *ctx, int refusal, int scope, const Onnx__NodeProto *node, const char *value,
    const char *fmt, ...)
{
	const char *where = scope >= 0 ? ctx->st->label[scope] : "";
	char subj[512];
	va_list ap;
	int rc;

	if (node)
		subject_of(subj, sizeof(subj), ctx, scope, node);
	else if (value)
		snprintf(subj, sizeof(subj), "'%s'%s", value, where);
	else
		snprintf(subj, sizeof(subj), "graph%s", where);
	va_start(ap, fmt);
	rc = record(ctx, refusal, subj, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- the driver ---- */

static uint64_t
count_nodes(const scs_opt_ctx *ctx)
{
	uint64_t n = 0;
	size_t *cnt;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		scs_scope_nodes(&ctx->scopes.items[s], &cnt);
		n += *cnt;
	}
	return n;
}

/*
 * A node the passes cannot read (ONNX requires both): one without an
 * operator (op_type absent or empty) or with an attribute without a name.
 * 1 and @why when @n is one, else 0.
 */
static int
unreadable_node(const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *n, char *why, size_t why_len)
{
	const char *name = n->name && n->name[0] ? n->name : NULL, *where = ctx->st->label[scope];

	if (!n->op_type || !n->op_type[0]) {
		if (name)
			snprintf(why, why_len, "node '%s'%s has no op_type", name, where);
		else if (n->n_output && n->output[0][0])
			snprintf(why, why_len, "the node writing '%s'%s has no op_type", n->output[0], where);
		else
			snprintf(why, why_len, "a node without outputs%s has no op_type", where);
		return 1;
	}
	for (size_t i = 0; i < n->n_attribute; i++)
		if (!n->attribute[i]->name || !n->attribute[i]->name[0]) {
			char subj[256];

			subject_of(subj, sizeof(subj), ctx, scope, n);
			snprintf(why, why_len, "%s has an attribute without a name", subj);
			return 1;
		}
	return 0;
}

/*
 * Whether the passes can reason about the model at all: every node has
 * an operator and named attributes, every graph defines each name once
 * and has no cycle, and no training_info graph reads the main graph's
 * names behind the scopes' back.
 * 0 when they can; 1 and @why when not; < 0 on error.
 */
static int
unfit(scs_opt_ctx *ctx, char *why, size_t why_len)
{
	int rc = SCS_OK;

	if (ctx->m->proto->n_training_info) {
		snprintf(why, why_len, "the model carries training_info, whose graphs read the main graph's names");
		return 1;
	}
	for (size_t s = 0; rc == SCS_OK && s < ctx->scopes.n; s++) {
		scs_scope *sc = &ctx->scopes.items[s];
		scs_strmap seen = SCS_STRMAP_INIT;
		Onnx__NodeProto **nodes;
		const char *twice = NULL;
		size_t *n;

		nodes = *scs_scope_nodes(sc, &n);
		for (size_t i = 0; i < *n; i++)
			if (unreadable_node(ctx, (int)s, nodes[i], why, why_len))
				return 1;
		if (ctx->st->cycle[s]) {
			snprintf(why, why_len, "%s%s", ctx->st->cycle[s], ctx->st->label[s]);
			return 1;
		}
		/* an initializer may also be an input (a default); a node output may be neither */
		if (sc->graph) {
			for (size_t i = 0; rc == SCS_OK && i < sc->graph->n_input; i++)
				rc = sc->graph->input[i]->name ? scs_strmap_put(&seen, sc->graph->input[i]->name, 1) : SCS_OK;
			for (size_t i = 0; rc == SCS_OK && i < sc->graph->n_initializer; i++)
				rc = sc->graph->initializer[i]->name ? scs_strmap_put(&seen, sc->graph->initializer[i]->name, 1) :
				    SCS_OK;
		} else {
			for (size_t i = 0; rc == SCS_OK && i < sc->func->n_input; i++)
				rc = scs_strmap_put(&seen, sc->func->input[i], 1);
		}
		for (size_t i = 0; rc == SCS_OK && !twice && i < *n; i++)
			for (size_t j = 0; rc == SCS_OK && !twice && j < nodes[i]->n_output; j++) {
				const char *o = nodes[i]->output[j];

				if (o[0] && scs_strmap_get(&seen, o, NULL))
					twice = o;
				else if (o[0])
					rc = scs_strmap_put(&seen, o, 1);
			}
		scs_strmap_dispose(&seen);
		if (rc == SCS_OK && twice) {
			snprintf(why, why_len, "'%s' is defined more than once%s", twice, ctx->st->label[s]);
			return 1;
		}
	}
	return rc;
}

int
scs_opt_begin(scs_opt_ctx *ctx, scs_model *m, scs_report *rep)
{
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	ctx->m = m;
	ctx->rep = rep;
	if ((ctx->st = calloc(1, sizeof(*ctx->st))) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot allocate its state");
	rep->optimized = 1;
	if ((rc = refresh(ctx)) < 0)
		scs_opt_end(ctx);
	return rc;
}

void
scs_opt_end(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;

	if (st == NULL)
		return;
	queue_dispose(st);
	snapshot_dispose(ctx);
	for (size_t i = 0; i < st->n_owned; i++)
		free(st->owned[i]);
	free(st->owned);
	scs_strmap_dispose(&st->taken);
	scs_strmap_dispose(&st->refused);
	free(st->uses);
	free(st->producers);
	free(st->inits);
	free(st->slots);
	free(st->drops);
	free(st->garbage);
	free(st->rbuf);
	free(st);
	ctx->st = NULL;
}

int
scs_opt_run(scs_model *m, scs_report *rep, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip)
{
	return scs_opt_run_with(m, rep, only, n_only, skip, n_skip, NULL);
}

/* 1 when every scope's nodes are listed in the snapshot's topological order (so every input is made before it is read). */
static int
all_in_order(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	Onnx__NodeProto **nodes;
	size_t *n;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		nodes = *scs_scope_nodes(&ctx->scopes.items[s], &n);
		if (st->cycle[s] || st->n_order[s] != *n || (*n && memcmp(nodes, st->order[s], *n * sizeof(*nodes)) != 0))
			return 0;
	}
	return 1;
}

/*
 * The safety net of node placement: a pass must put a node it makes or
 * rewires where all its inputs are defined (fuse_matmul_add_bias_into_gemm
 * once did not). Where a scope's list no longer is in topological order,
 * it is put in the snapshot's (stable) one, and the repair is reported.
 */
static int
put_in_order(scs_opt_ctx *ctx)
{
	scs_opt_state *st = ctx->st;
	Onnx__NodeProto **nodes;
	size_t *n;
	int rc;

	for (size_t s = 0; s < ctx->scopes.n; s++) {
		nodes = *scs_scope_nodes(&ctx->scopes.items[s], &n);
		if (st->cycle[s] || st->n_order[s] != *n || *n == 0 || memcmp(nodes, st->order[s], *n * sizeof(*nodes)) == 0)
			continue;
		memcpy(nodes, st->order[s], *n * sizeof(*nodes));
		if ((rc = scs_opt_report(ctx, 0, (int)s, NULL, NULL, "nodes put back in topological order (a pass placed a "
		    "node before one of its inputs)")) < 0)
			return rc;
	}
	return SCS_OK;
}

int
scs_opt_run_with(scs_model *m, scs_report *rep, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip, const scs_opt_settings *settings)
{
	scs_opt_ctx ctx;
	int enabled[64] = { 0 }, rc, any = 0, sorted;
	unsigned round;
	char why[1024];

	if ((rc = scs_opt_check_names(only, n_only)) < 0 || (rc = scs_opt_check_names(skip, n_skip)) < 0)
		return rc;
	if (scs_opt_n_passes > sizeof(enabled) / sizeof(enabled[0]))
		return scs_err_set(SCS_EUSAGE, "optimizer: too many passes in the table");
	for (size_t i = 0; i < scs_opt_n_passes; i++) {
		enabled[i] = n_only ? 0 : scs_opt_passes[i].in_default;
		for (size_t k = 0; k < n_only; k++)
			enabled[i] |= strcmp(only[k], scs_opt_passes[i].name) == 0;
		for (size_t k = 0; k < n_skip; k++)
			if (strcmp(skip[k], scs_opt_passes[i].name) == 0)
				enabled[i] = 0;
	}
	if ((rc = scs_opt_begin(&ctx, m, rep)) < 0)
		return rc;
	ctx.settings = settings;
	rep->nodes_before = rep->nodes_after = count_nodes(&ctx);
	for (size_t i = 0; i < scs_opt_n_passes; i++)
		if (enabled[i]) {
			ctx.pass = &scs_opt_passes[i];
			if (pass_stat(&ctx) == NULL)
				break;
		}
	ctx.pass = NULL;
	if ((rc = unfit(&ctx, why, sizeof(why))) != 0) {
		if (rc > 0)
			rc = scs_opt_refuse(&ctx, -1, NULL, "left as it is: %s", why);
		goto done;
	}
	sorted = all_in_order(&ctx);
	for (round = 0; round < MAX_ROUNDS; round++) {
		any = 0;
		for (size_t i = 0; i < scs_opt_n_passes; i++) {
			int changed = 0;

			if (!enabled[i])
				continue;
			ctx.pass = &scs_opt_passes[i];
			ctx.st->deferred = 0;
			if ((rc = ctx.pass->run(&ctx, &changed)) < 0)
				goto done;
			if (changed)
				ctx.st->dirty = 1;
			if ((rc = scs_opt_commit(&ctx)) < 0)
				goto done;
			any |= changed || ctx.st->deferred;
		}
		if (!any)
			break;
	}
	rep->rounds = round + (round < MAX_ROUNDS);
	ctx.pass = NULL;
	if (any)
		rc = scs_opt_refuse(&ctx, -1, NULL, "stopped after %d rounds with changes still coming", MAX_ROUNDS);
	if (rc >= 0 && sorted && (rc = put_in_order(&ctx)) < 0)
		goto done;
	rep->nodes_after = count_nodes(&ctx);
done:
	scs_opt_end(&ctx);
	return rc < 0 ? rc : SCS_OK;
}
