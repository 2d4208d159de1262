/*
 * opt_edit.c: the optimizer's edits (see opt.h): building tensors, nodes
 * and attributes, queueing renames, forwards and drops, and the commit
 * that applies what was queued and rebuilds the snapshot.
 *
 * SPDX-License-Identifier: MIT
 */
#include "opt/opt.h"
#include "opt/opt_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"
#include "onnx/attr.h"
#include "model/rename.h"
#include "model/scope.h"

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

int
scs_opt_set_attr_int(Onnx__NodeProto *node, const char *name, int64_t v)
{
	return scs_attr_put_int(node, name, v);
}

int
scs_opt_set_attr_float(Onnx__NodeProto *node, const char *name, float v)
{
	Onnx__AttributeProto *a = scs_attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);

	if (a) {
		a->has_f = 1;
		a->f = v;
	}
	return scs_attr_put(node, a);
}

int
scs_opt_set_attr_ints(Onnx__NodeProto *node, const char *name, const int64_t *v, size_t n)
{
	return scs_attr_put_ints(node, name, v, n);
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
	    (a = scs_attr_new("value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR)) == NULL) {
		scs_opt_node_free(ctx, n);
		scs_model_free_message(ctx->m, &t->base);
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot add a Constant");
	}
	a->t = t;
	if (scs_attr_put(n, a) < 0) {
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
	return scs_opt_set_name(ctx, &node->input[i], name);
}

int
scs_opt_set_name(scs_opt_ctx *ctx, char **slot, const char *name)
{
	scs_opt_state *st = ctx->st;
	char *copy;
	int rc;

	if ((copy = strdup(name)) == NULL)
		return scs_err_set(SCS_ENOMEM, "optimizer: cannot copy a name");
	/* the old name may key the snapshot: freed at the commit */
	if ((rc = scs_opt_grow(&st->garbage, &st->cap_garbage, st->n_garbage, sizeof(char *))) < 0) {
		free(copy);
		return rc;
	}
	st->garbage[st->n_garbage++] = *slot;
	*slot = copy;
	st->dirty = 1;
	return SCS_OK;
}

static int
queue_drop(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, Onnx__TensorProto *init)
{
	scs_opt_state *st = ctx->st;
	int rc;

	if (scs_opt_ptrset_has(&st->dropped, node ? (void *)node : (void *)init))
		return SCS_OK;
	if ((rc = scs_opt_grow(&st->drops, &st->cap_drops, st->n_drops, sizeof(*st->drops))) < 0 ||
	    (rc = scs_opt_ptrset_add(&st->dropped, node ? (void *)node : (void *)init)) < 0)
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

	if ((rc = scs_opt_grow(&st->slots, &st->cap_slots, st->n_slots, sizeof(*st->slots))) < 0)
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

/*
 * scs_opt_forward's case of an initializer @x passed through to @y, a name
 * that must stay. When @y is an output of the main graph (IR 4 and above,
 * where an initializer need not be an input) and @x is an initializer of it
 * that no other name pins, the initializer takes the name @y (its readers
 * follow) and the node goes: the graph output is the constant itself, as
 * ONNX Runtime writes it; the output's declaration stays as it is. A nested
 * body's output stays made by its node: a body output that no node of the
 * body makes is a form runtimes have handled unevenly, and nothing is
 * computed there per run that the node's removal would save but a copy.
 */
static int
forward_initializer(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, const char *x, const char *y,
    const char *kind)
{
	const scs_scope *sc = &ctx->scopes.items[scope];
	Onnx__TensorProto *t = scs_opt_initializer(ctx, scope, x);
	char why[512];
	int r;

	if (t == NULL || sc->graph != ctx->m->proto->graph || ctx->m->proto->ir_version < 4
	    || strcmp(kind, "a graph output") != 0)
		return scs_opt_refuse(ctx, scope, node, "'%s' is %s and '%s' is %s, which keeps its name", y, kind,
		    x, t == NULL ? "a constant of another kind" : sc->graph != ctx->m->proto->graph ?
		    "an initializer of a nested graph" : ctx->m->proto->ir_version < 4 ?
		    "an initializer, an input too below IR 4" : "an initializer");
	if (scs_opt_is_pinned(ctx, scope, x))
		return scs_opt_refuse(ctx, scope, node, "'%s' and '%s' are both names that must stay (%s; %s)", y, x,
		    kind, pinned_kind(ctx, scope, x));
	if ((r = scs_opt_rename_def(ctx, scope, &t->name, y, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, node, "%s", why) : 0;
	if ((r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	return scs_opt_did(ctx, scope, node, "removed; initializer '%s' is now the graph output '%s'", x, y) < 0 ?
	    -1 : 1;
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
		return forward_initializer(ctx, scope, node, x, y, kind);
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
				if (g->initializer[i]->name && !scs_opt_ptrset_has(&st->dropped, g->initializer[i]))
					rc = scs_strmap_put(&alive, g->initializer[i]->name, 1);
			for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++)
				for (size_t j = 0; rc == SCS_OK && !scs_opt_ptrset_has(&st->dropped, g->node[i]) && j < g->node[i]->n_output; j++)
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
		if (scs_opt_ptrset_has(&st->dropped, nodes[i]))
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

		if (scs_opt_ptrset_has(&st->dropped, t))
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

void
scs_opt_queue_dispose(scs_opt_state *st)
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
	scs_opt_ptrset_dispose(&st->dropped);
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
	scs_opt_queue_dispose(st);
	rc = scs_opt_refresh(ctx);
done:
	scs_opt_queue_dispose(st);
	return rc;
}

