/*
 * graph.c: what the nodes of a graph read, and a stable topological order
 * (see graph.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "model/graph.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"

int
scs_names_add(scs_names *l, const char *name)
{
	int rc;

	if ((rc = scs_grow(&l->items, &l->cap, l->n, sizeof(*l->items), 4, "a name list")) < 0)
		return rc;
	l->items[l->n++] = name;
	return SCS_OK;
}

/* Names read inside @g that @g does not define, added to @out (once each, via @seen). */
static int
free_names(const Onnx__GraphProto *g, scs_names *out, scs_strmap *seen)
{
	scs_strmap local = SCS_STRMAP_INIT;
	size_t i, j, k;
	int rc = SCS_OK;

	for (i = 0; rc == SCS_OK && i < g->n_input; i++)
		if (g->input[i]->name)
			rc = scs_strmap_put(&local, g->input[i]->name, 1);
	for (i = 0; rc == SCS_OK && i < g->n_initializer; i++)
		if (g->initializer[i]->name)
			rc = scs_strmap_put(&local, g->initializer[i]->name, 1);
	for (i = 0; rc == SCS_OK && i < g->n_sparse_initializer; i++)
		if (g->sparse_initializer[i]->values && g->sparse_initializer[i]->values->name)
			rc = scs_strmap_put(&local, g->sparse_initializer[i]->values->name, 1);
	for (i = 0; rc == SCS_OK && i < g->n_node; i++)
		for (j = 0; rc == SCS_OK && j < g->node[i]->n_output; j++)
			rc = scs_strmap_put(&local, g->node[i]->output[j], 1);
	for (i = 0; rc == SCS_OK && i < g->n_node; i++) {
		Onnx__NodeProto *n = g->node[i];
		scs_names inner = { NULL, 0, 0 };
		scs_strmap inner_seen = SCS_STRMAP_INIT;

		for (j = 0; rc == SCS_OK && j < n->n_input; j++)
			if (n->input[j][0] && !scs_strmap_get(&local, n->input[j], NULL) &&
			    !scs_strmap_get(seen, n->input[j], NULL) && (rc = scs_strmap_put(seen, n->input[j], 1)) == SCS_OK)
				rc = scs_names_add(out, n->input[j]);
		for (j = 0; rc == SCS_OK && j < n->n_attribute; j++) {
			Onnx__AttributeProto *a = n->attribute[j];

			for (k = 0; rc == SCS_OK && k < (a->g ? 1u : 0u) + a->n_graphs; k++)
				rc = free_names(a->g && k == 0 ? a->g : a->graphs[k - (a->g ? 1 : 0)], &inner, &inner_seen);
		}
		for (k = 0; rc == SCS_OK && k < inner.n; k++)
			if (!scs_strmap_get(&local, inner.items[k], NULL) && !scs_strmap_get(seen, inner.items[k], NULL) &&
			    (rc = scs_strmap_put(seen, inner.items[k], 1)) == SCS_OK)
				rc = scs_names_add(out, inner.items[k]);
		free(inner.items);
		scs_strmap_dispose(&inner_seen);
	}
	for (i = 0; rc == SCS_OK && i < g->n_output; i++)
		if (g->output[i]->name && !scs_strmap_get(&local, g->output[i]->name, NULL) &&
		    !scs_strmap_get(seen, g->output[i]->name, NULL) && (rc = scs_strmap_put(seen, g->output[i]->name, 1)) == SCS_OK)
			rc = scs_names_add(out, g->output[i]->name);
	scs_strmap_dispose(&local);
	return rc;
}

int
scs_node_reads(const Onnx__NodeProto *n, scs_names *out)
{
	scs_strmap seen = SCS_STRMAP_INIT;
	int rc = SCS_OK;

	for (size_t j = 0; rc == SCS_OK && j < n->n_input; j++)
		if (n->input[j][0] && !scs_strmap_get(&seen, n->input[j], NULL) &&
		    (rc = scs_strmap_put(&seen, n->input[j], 1)) == SCS_OK)
			rc = scs_names_add(out, n->input[j]);
	for (size_t j = 0; rc == SCS_OK && j < n->n_attribute; j++) {
		Onnx__AttributeProto *a = n->attribute[j];

		for (size_t k = 0; rc == SCS_OK && k < (a->g ? 1u : 0u) + a->n_graphs; k++)
			rc = free_names(a->g && k == 0 ? a->g : a->graphs[k - (a->g ? 1 : 0)], out, &seen);
	}
	scs_strmap_dispose(&seen);
	return rc;
}

/* ---- topological order ---- */

/* A binary min-heap of node indices, so ready nodes leave in their original order. */
typedef struct heap {
	size_t *a;
	size_t n;
} heap;

static void
heap_push(heap *h, size_t v)
{
	size_t i = h->n++;

	while (i && h->a[(i - 1) / 2] > v) {
		h->a[i] = h->a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->a[i] = v;
}

static size_t
heap_pop(heap *h)
{
	size_t top = h->a[0], v = h->a[--h->n], i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1] < h->a[c])
			c++;
		if (h->a[c] >= v)
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = v;
	return top;
}

int
scs_graph_order(size_t **out, size_t *n_out, const Onnx__GraphProto *g, const scs_names *reads, const int *skip,
    const char *label)
{
	size_t n = g->n_node, *indeg = calloc(n ? n : 1, sizeof(size_t)), *n_next = calloc(n ? n : 1, sizeof(size_t));
	size_t **next = calloc(n ? n : 1, sizeof(size_t *)), *order = malloc((n ? n : 1) * sizeof(size_t)), n_order = 0;
	scs_strmap producer = SCS_STRMAP_INIT;
	heap h = { malloc((n ? n : 1) * sizeof(size_t)), 0 };
	int64_t p;
	int rc = SCS_OK;

	*out = NULL;
	*n_out = 0;
	if (!indeg || !n_next || !next || !h.a || !order) {
		rc = scs_err_set(SCS_ENOMEM, "cannot sort the graph");
		goto done;
	}
	for (size_t i = 0; rc == SCS_OK && i < n; i++)
		for (size_t j = 0; rc == SCS_OK && j < g->node[i]->n_output; j++)
			if (g->node[i]->output[j][0])
				rc = scs_strmap_put(&producer, g->node[i]->output[j], (int64_t)i);
	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		if (skip && skip[i])
			continue;
		for (size_t j = 0; j < reads[i].n; j++) {
			size_t *grown;

			if (!scs_strmap_get(&producer, reads[i].items[j], &p) || (skip && skip[p]) || (size_t)p == i)
				continue;
			if ((grown = realloc(next[p], (n_next[p] + 1) * sizeof(size_t))) == NULL) {
				rc = scs_err_set(SCS_ENOMEM, "cannot sort the graph");
				goto done;
			}
			next[p] = grown;
			next[p][n_next[p]++] = i;
			indeg[i]++;
		}
	}
	for (size_t i = 0; rc == SCS_OK && i < n; i++)
		if (!(skip && skip[i]) && indeg[i] == 0)
			heap_push(&h, i);
	while (rc == SCS_OK && h.n) {
		size_t i = heap_pop(&h);

		order[n_order++] = i;
		for (size_t k = 0; k < n_next[i]; k++)
			if (--indeg[next[i][k]] == 0)
				heap_push(&h, next[i][k]);
	}
	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		if (!(skip && skip[i]) && indeg[i])
			rc = scs_err_set(SCS_ECORRUPT, "%s: the graph has a cycle through node '%s' (%s)", label,
			    g->node[i]->name ? g->node[i]->name : "", g->node[i]->op_type ? g->node[i]->op_type : "?");
	}
done:
	for (size_t i = 0; next && i < n; i++)
		free(next[i]);
	free(next);
	free(indeg);
	free(n_next);
	free(h.a);
	scs_strmap_dispose(&producer);
	if (rc < 0) {
		free(order);
		return rc;
	}
	*out = order;
	*n_out = n_order;
	return SCS_OK;
}

/* A node that makes a value from nothing it reads: a Constant. */
static int
is_source_constant(const Onnx__NodeProto *n)
{
	return n->n_input == 0 && n->op_type && strcmp(n->op_type, "Constant") == 0 && scs_is_onnx_domain(n->domain);
}

int
scs_graph_sort(Onnx__GraphProto *g, const char *label)
{
	size_t n = g->n_node, *order = NULL, n_order = 0, n_sorted = 0;
	scs_names *reads = calloc(n ? n : 1, sizeof(*reads));
	Onnx__NodeProto **sorted = malloc((n ? n : 1) * sizeof(*sorted));
	int *constant = calloc(n ? n : 1, sizeof(int)), *placed = calloc(n ? n : 1, sizeof(int));
	scs_strmap producer = SCS_STRMAP_INIT;
	int64_t p;
	int rc = reads && sorted && constant && placed ? SCS_OK : scs_err_set(SCS_ENOMEM, "cannot sort the graph");

	for (size_t i = 0; rc == SCS_OK && i < n; i++) {
		constant[i] = is_source_constant(g->node[i]);
		if ((rc = scs_node_reads(g->node[i], &reads[i])) < 0)
			break;
		for (size_t j = 0; rc == SCS_OK && constant[i] && j < g->node[i]->n_output; j++)
			if (g->node[i]->output[j][0])
				rc = scs_strmap_put(&producer, g->node[i]->output[j], (int64_t)i);
	}
	if (rc == SCS_OK)
		rc = scs_graph_order(&order, &n_order, g, reads, constant, label);
	/* each Constant right before its first reader, in the order that reader reads */
	for (size_t k = 0; rc == SCS_OK && k < n_order; k++) {
		size_t i = order[k];

		for (size_t j = 0; j < reads[i].n; j++)
			if (scs_strmap_get(&producer, reads[i].items[j], &p) && !placed[p]) {
				placed[p] = 1;
				sorted[n_sorted++] = g->node[p];
			}
		sorted[n_sorted++] = g->node[i];
	}
	for (size_t i = 0; rc == SCS_OK && i < n; i++)
		if (constant[i] && !placed[i])
			sorted[n_sorted++] = g->node[i];
	if (rc == SCS_OK && n && n_sorted == n)     /* (a graph without nodes may have no list at all) */
		memcpy(g->node, sorted, n * sizeof(*sorted));
	for (size_t i = 0; reads && i < n; i++)
		free(reads[i].items);
	free(reads);
	free(sorted);
	free(order);
	free(constant);
	free(placed);
	scs_strmap_dispose(&producer);
	return rc;
}
