/*
 * eliminate_duplicate_initializer.c: initializers of one graph that hold
 * the same element type, dims and bytes merged: readers of the later ones
 * read the first, the later ones removed; in every graph and nested body.
 *
 * Each graph's initializers are sorted by element type and dims, so equal
 * ones sit side by side; only those whose type and dims another shares are
 * keyed, by their payload's content key (its digest, computed once per
 * payload and kept), and only those whose key another shares are compared,
 * byte for byte in pieces: a collision never merges, and a model of
 * distinct weights reads none of them. Typed encodings (float_data,
 * int64_data, ...) and raw_data of the same values are equal: payloads hold
 * the canonical little-endian bytes.
 *
 * Never merged: an initializer that is also a graph input (the input's
 * default, which a caller may override), one whose name must stay (a graph
 * output keeps its name: it may be kept, not renamed), string tensors,
 * and names a nested graph defines again (the rename is refused there).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "io/payload.h"
#include "model/model.h"
#include "opt/opt.h"
#include "util/hash.h"

typedef struct cand {
	Onnx__TensorProto *t;
	scs_key key;
	uint32_t id;                        /* its payload */
	uint32_t order;                     /* its place among the graph's initializers */
	int pinned;                         /* its name must stay */
	int merged;
} cand;

static int
dims_cmp(const Onnx__TensorProto *a, const Onnx__TensorProto *b)
{
	if (a->data_type != b->data_type)
		return a->data_type < b->data_type ? -1 : 1;
	if (a->n_dims != b->n_dims)
		return a->n_dims < b->n_dims ? -1 : 1;
	for (size_t i = 0; i < a->n_dims; i++)
		if (a->dims[i] != b->dims[i])
			return a->dims[i] < b->dims[i] ? -1 : 1;
	return 0;
}

static int
by_dims(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	int r = dims_cmp(a->t, b->t);

	return r ? r : a->order < b->order ? -1 : a->order > b->order;
}

static int
by_key(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	int r = memcmp(&a->key, &b->key, sizeof(a->key));

	return r ? r : a->order < b->order ? -1 : a->order > b->order;
}

/* Merge @dup into @keep, both initializers of scope @scope: 1 when queued, 0 when refused, < 0 on error. */
static int
merge(scs_opt_ctx *ctx, int scope, cand *keep, cand *dup)
{
	char why[512];
	int r;

	if ((r = scs_opt_rename(ctx, scope, dup->t->name, keep->t->name, why, sizeof(why))) <= 0)
		return r < 0 ? r : why[0] ? scs_opt_refuse_value(ctx, scope, dup->t->name, "equals '%s', but %s",
		    keep->t->name, why) : 0;
	if ((r = scs_opt_drop_initializer(ctx, scope, dup->t)) < 0)
		return r;
	dup->merged = 1;
	return scs_opt_did_value(ctx, scope, dup->t->name, "removed: it equals '%s', which its readers read now",
	    keep->t->name) < 0 ? -1 : 1;
}

/* Within @c[0..n) (one content key, in graph order): each one merged into the first earlier one it equals. */
static int
merge_run(scs_opt_ctx *ctx, int scope, cand *c, size_t n, int *changed)
{
	int r;

	for (size_t j = 1; j < n; j++) {
		if (c[j].pinned)
			continue;
		for (size_t i = 0; i < j; i++) {
			if (c[i].merged)
				continue;
			if ((r = scs_tensors_equal(ctx->m, c[i].t, c[j].t)) < 0)
				return r;
			if (!r)
				continue;
			if ((r = merge(ctx, scope, &c[i], &c[j])) < 0)
				return r;
			*changed |= r;
			break;
		}
	}
	return SCS_OK;
}

/* Key the candidates of one (type, dims) class and merge the runs of equal keys. */
static int
merge_class(scs_opt_ctx *ctx, int scope, cand *c, size_t n, int *changed)
{
	size_t i, j;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = scs_payloads_key(ctx->m->payloads, c[i].id, &c[i].key)) < 0)
			return rc;
	qsort(c, n, sizeof(*c), by_key);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && scs_key_eq(&c[i].key, &c[j].key); j++)
			;
		if (j - i > 1 && (rc = merge_run(ctx, scope, c + i, j - i, changed)) < 0)
			return rc;
	}
	return SCS_OK;
}

static int
one_graph(scs_opt_ctx *ctx, int scope, Onnx__GraphProto *g, cand *c, int *changed)
{
	size_t n = 0, i, j;
	int rc;

	for (i = 0; i < g->n_initializer; i++) {
		Onnx__TensorProto *t = g->initializer[i];
		uint32_t id;

		if (!t->name || !t->name[0] || scs_opt_is_input(ctx, scope, t->name) || !scs_model_payload_of(ctx->m, t, &id))
			continue;
		c[n++] = (cand){ .t = t, .id = id, .order = (uint32_t)i, .pinned = scs_opt_is_pinned(ctx, scope, t->name) };
	}
	qsort(c, n, sizeof(*c), by_dims);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && dims_cmp(c[i].t, c[j].t) == 0; j++)
			;
		if (j - i > 1 && (rc = merge_class(ctx, scope, c + i, j - i, changed)) < 0)
			return rc;
	}
	return SCS_OK;
}

int
scs_opt_eliminate_duplicate_initializer(scs_opt_ctx *ctx, int *changed)
{
	int rc = SCS_OK;

	for (size_t s = 0; rc == SCS_OK && s < ctx->scopes.n; s++) {
		Onnx__GraphProto *g = ctx->scopes.items[s].graph;
		Onnx__NodeProto *owner = scs_opt_scope_owner(ctx, (int)s);
		cand *c;

		if (g == NULL || g->n_initializer < 2 || (owner && scs_opt_is_dropped(ctx, ctx->scopes.items[s].parent,
		    owner)))
			continue;
		if ((c = calloc(g->n_initializer, sizeof(*c))) == NULL)
			return scs_err_set(SCS_ENOMEM, "eliminate_duplicate_initializer: cannot allocate");
		rc = one_graph(ctx, (int)s, g, c, changed);
		free(c);
	}
	return rc;
}
