/*
 * scope.c: the scopes of a model and the names each defines (see scope.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "model/scope.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"

Onnx__NodeProto ***
scs_scope_nodes(scs_scope *s, size_t **n)
{
	if (s->graph) {
		*n = &s->graph->n_node;
		return &s->graph->node;
	}
	*n = &s->func->n_node;
	return &s->func->node;
}

static int
add_scope(scs_scopes *s, size_t *cap, Onnx__GraphProto *g, Onnx__FunctionProto *f, int parent)
{
	scs_scope *sc;
	size_t i, j;
	int rc = SCS_OK;

	if ((rc = scs_grow(&s->items, cap, s->n, sizeof(*s->items), 16, "the scope list")) < 0)
		return rc;
	sc = &s->items[s->n++];
	memset(sc, 0, sizeof(*sc));
	sc->graph = g;
	sc->func = f;
	sc->parent = parent;
	sc->depth = parent < 0 ? 0 : s->items[parent].depth + 1;
#define DEF(name) do { if ((name) && (name)[0] && (rc = scs_strmap_put(&sc->defs, (name), 1)) < 0) return rc; } while (0)
#define PIN(name) do { if ((name) && (name)[0] && (rc = scs_strmap_put(&sc->pinned, (name), 1)) < 0) return rc; } while (0)
	if (g) {
		scs_sealed *sealed = scs_sealed_of(g);

		/* one table for every name at once: inputs, initializers, a name a node at least */
		if ((rc = scs_strmap_reserve(&sc->defs, g->n_input + g->n_initializer + (sealed ? sealed->n : 0) +
		    g->n_node)) < 0)
			return rc;
		for (i = 0; i < g->n_input; i++) {
			DEF(g->input[i]->name);
			PIN(g->input[i]->name);
			if (g->input[i]->name && g->input[i]->name[0] &&
			    (rc = scs_strmap_put(&sc->inputs, g->input[i]->name, 1)) < 0)
				return rc;
		}
		for (i = 0; i < g->n_output; i++)
			PIN(g->output[i]->name);
		for (i = 0; i < g->n_initializer; i++)
			DEF(g->initializer[i]->name);
		for (i = 0; sealed && i < sealed->n; i++)
			if (!sealed->items[i]->removed)
				DEF(scs_sealed_name(sealed->items[i]));
		for (i = 0; i < g->n_sparse_initializer; i++)
			if (g->sparse_initializer[i]->values)
				DEF(g->sparse_initializer[i]->values->name);
		for (i = 0; i < g->n_quantization_annotation; i++)
			PIN(g->quantization_annotation[i]->tensor_name);
		for (i = 0; i < g->n_node; i++)
			for (j = 0; j < g->node[i]->n_output; j++)
				DEF(g->node[i]->output[j]);
	} else {
		for (i = 0; i < f->n_input; i++) {
			DEF(f->input[i]);
			PIN(f->input[i]);
		}
		for (i = 0; i < f->n_output; i++)
			PIN(f->output[i]);
		for (i = 0; i < f->n_node; i++)
			for (j = 0; j < f->node[i]->n_output; j++)
				DEF(f->node[i]->output[j]);
	}
#undef DEF
#undef PIN
	return rc;
}

static int
build_from(scs_scopes *s, size_t *cap, int idx)
{
	Onnx__NodeProto **nodes;
	size_t n, i, j, k;
	int rc, here;

	/* the item array may move while children are added: index, never hold pointers */
	size_t *np;

	nodes = *scs_scope_nodes(&s->items[idx], &np);
	n = *np;
	for (i = 0; i < n; i++) {
		for (j = 0; j < nodes[i]->n_attribute; j++) {
			Onnx__AttributeProto *a = nodes[i]->attribute[j];

			for (k = 0; k < (a->g ? 1 : 0) + a->n_graphs; k++) {
				Onnx__GraphProto *g = k == 0 && a->g ? a->g : a->graphs[k - (a->g ? 1 : 0)];

				if ((rc = add_scope(s, cap, g, NULL, idx)) < 0)
					return rc;
				here = (int)s->n - 1;
				if ((rc = build_from(s, cap, here)) < 0)
					return rc;
			}
		}
	}
	return SCS_OK;
}

int
scs_scopes_build(scs_scopes *out, Onnx__ModelProto *m)
{
	size_t cap = 0, i;
	int rc = SCS_OK;

	memset(out, 0, sizeof(*out));
	if (m->graph && ((rc = add_scope(out, &cap, m->graph, NULL, -1)) < 0 ||
	    (rc = build_from(out, &cap, (int)out->n - 1)) < 0))
		goto fail;
	for (i = 0; i < m->n_functions; i++)
		if ((rc = add_scope(out, &cap, NULL, m->functions[i], -1)) < 0 ||
		    (rc = build_from(out, &cap, (int)out->n - 1)) < 0)
			goto fail;
	return SCS_OK;
fail:
	scs_scopes_dispose(out);
	return rc;
}

void
scs_scopes_dispose(scs_scopes *s)
{
	for (size_t i = 0; i < s->n; i++) {
		scs_strmap_dispose(&s->items[i].defs);
		scs_strmap_dispose(&s->items[i].pinned);
		scs_strmap_dispose(&s->items[i].inputs);
	}
	free(s->items);
	memset(s, 0, sizeof(*s));
}

int
scs_scopes_of(const scs_scopes *s, const Onnx__GraphProto *g)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->items[i].graph == g)
			return (int)i;
	return -1;
}

int
scs_scope_encloses(const scs_scopes *s, int a, int b)
{
	while (b >= 0 && s->items[b].depth > s->items[a].depth)
		b = s->items[b].parent;
	return a == b;
}

int
scs_scope_common(const scs_scopes *s, int a, int b)
{
	while (a != b && a >= 0 && b >= 0) {
		if (s->items[a].depth >= s->items[b].depth)
			a = s->items[a].parent;
		else
			b = s->items[b].parent;
	}
	return a == b ? a : -1;
}

int
scs_scopes_defined_anywhere(const scs_scopes *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (scs_strmap_get(&s->items[i].defs, name, NULL))
			return 1;
	return 0;
}

Onnx__TensorProto *
scs_node_constant(const Onnx__NodeProto *n)
{
	if (!n->op_type || strcmp(n->op_type, "Constant") != 0 || !scs_is_onnx_domain(n->domain) ||
	    n->n_output != 1 || n->n_attribute != 1 || !n->attribute[0]->name ||
	    strcmp(n->attribute[0]->name, "value") != 0)
		return NULL;
	return n->attribute[0]->t;
}

int
scs_scopes_each_constant(scs_scopes *s, scs_constant_fn fn, void *ctx)
{
	Onnx__NodeProto **nodes;
	Onnx__TensorProto *t;
	size_t *n;
	int rc;

	for (size_t i = 0; i < s->n; i++) {
		Onnx__GraphProto *g = s->items[i].graph;

		scs_sealed *sealed = scs_sealed_of(g);

		for (size_t j = 0; g && j < g->n_initializer; j++)
			if ((rc = fn(ctx, (int)i, g->initializer[j], NULL, g->initializer[j]->name)) != 0)
				return rc;
		/* then the records (model.h): views, which scs_sealed_keep() opens */
		for (size_t j = 0; sealed && j < sealed->n; j++)
			if ((t = scs_sealed_get(sealed, j)) && (rc = fn(ctx, (int)i, t, NULL, t->name)) != 0)
				return rc;
		nodes = *scs_scope_nodes(&s->items[i], &n);
		for (size_t j = 0; j < *n; j++)
			if ((t = scs_node_constant(nodes[j])) && (rc = fn(ctx, (int)i, t, nodes[j], nodes[j]->output[0])) != 0)
				return rc;
	}
	return 0;
}

/* Remove @item from @arr[0..*n) keeping order; 1 when found. */
static int
drop_ptr(void **arr, size_t *n, const void *item)
{
	size_t i;

	for (i = 0; i < *n && arr[i] != item; i++)
		;
	if (i == *n)
		return 0;
	memmove(arr + i, arr + i + 1, (*n - i - 1) * sizeof(*arr));
	(*n)--;
	return 1;
}

int
scs_scope_drop_initializer(const scs_model *m, scs_scope *s, Onnx__TensorProto *t)
{
	if (s->graph == NULL || !drop_ptr((void **)s->graph->initializer, &s->graph->n_initializer, t))
		return 0;
	scs_model_free_message(m, &t->base);
	return 1;
}

int
scs_scope_drop_node(const scs_model *m, scs_scope *s, Onnx__NodeProto *node)
{
	size_t *n;
	Onnx__NodeProto **nodes = *scs_scope_nodes(s, &n);

	if (!drop_ptr((void **)nodes, n, node))
		return 0;
	scs_model_free_message(m, &node->base);
	return 1;
}
