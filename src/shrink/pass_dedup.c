/*
 * pass_dedup.c: one copy of each constant (see pass.h).
 *
 * Candidates are sorted by (element type, content key, dims) so equal
 * constants sit side by side: linear in the number of constants apart from
 * the sort, never pairwise. Inside a run of equal keys the bytes are
 * compared, so a key collision splits the run instead of merging. A first
 * walk takes the digest of every candidate's key: a constant whose digest
 * no other candidate has equals none, and is counted but gets no record, so
 * a model of many distinct constants sorts and keeps next to nothing.
 *
 * For each class of equal constants: a pinned copy (a graph output) that
 * encloses the others is kept; otherwise the first copy is kept where it is
 * when its scope encloses every other copy, or a new copy is lifted into
 * the nearest common enclosing graph. A rename that a nested scope could
 * capture is not made (the copy is reported as not merged).
 *
 * One run reaches what repeated runs would: a rename refused because a
 * nested graph defined the target name may become possible once that
 * nested definition was itself merged away, so while a round both merged
 * something and refused a rename for capture, another round runs on the
 * rewritten model. Each such round removes at least one constant, and in
 * practice the second round is the last.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"
#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "shrink/pass.h"
#include "model/rename.h"
#include "model/scope.h"
#include "util/strmap.h"

enum { K_INIT = 1, K_CONST = 2 };

/* One per constant that may equal another (a model may have millions): 64
 * bytes. A constant whose key digest no other candidate has gets none. */
typedef struct cand {
	Onnx__TensorProto *t;
	Onnx__NodeProto *node;    /* K_CONST: the Constant node */
	const char *name;
	scs_key key;
	uint32_t order;
	int32_t scope;
	int8_t kind;
	int8_t pinned;            /* a graph output of its scope */
	int8_t removed;
	int32_t data_type;        /* t's, here so that sorting rarely reads t */
} cand;

_Static_assert(sizeof(cand) <= 64, "a candidate outgrew 64 bytes");

/* A Constant node to put at the front of its scope's nodes (later ones before earlier ones). */
typedef struct front {
	int scope;
	int fresh;                /* a lifted copy, not yet in the model */
	Onnx__NodeProto *node;
} front;

typedef struct dedup {
	scs_model *m;
	scs_dedup_result *res;
	scs_scopes scopes;
	cand *c;
	size_t n, cap;
	scs_renames renames;
	scs_strmap taken;         /* names given to lifted copies */
	char **owned;             /* strings owned by this pass (lifted names) */
	size_t n_owned;
	int64_t ir_version;
	int count;                /* 1: add what is studied to the result (first round) */
	size_t n_captured;        /* renames refused for capture this round */
	size_t n_merged;          /* classes merged this round */
	front *fronts;            /* nodes for the front of their scope, in the order they came */
	size_t n_fronts, cap_fronts;
	/* the names nested scopes (not roots) define: first[name] and next, into nested_def */
	scs_strmap nested_first;
	struct nested_def { int scope; size_t next; } *nested_def;
	size_t n_nested_def;
	/* the first walk's key digests, sorted: a constant whose digest no
	 * other has is counted and left out (NULL: every one is kept) */
	uint64_t *digests;
	size_t n_digests, cap_digests;
} dedup;

static int
add_bytes(void *ctx, Onnx__TensorProto *t)
{
	struct { scs_model *m; uint64_t n; } *acc = ctx;
	uint32_t id;

	if (scs_model_payload_of(acc->m, t, &id))
		acc->n += acc->m->payloads->items[id].key.len;
	return 0;
}

uint64_t
scs_pass_payload_bytes(scs_model *m)
{
	struct { scs_model *m; uint64_t n; } acc = { m, 0 };

	scs_model_each_tensor(m->proto, add_bytes, &acc);
	return acc.n;
}

static int
string_key(scs_key *out, const Onnx__TensorProto *t)
{
	scs_hash h;
	uint64_t n;

	scs_hash_init(&h);
	for (size_t i = 0; i < t->n_string_data; i++) {
		n = t->string_data[i].len;
		scs_hash_update(&h, &n, sizeof(n));
		scs_hash_update(&h, t->string_data[i].data, t->string_data[i].len);
	}
	scs_hash_final(out, &h);
	return SCS_OK;
}

/*
 * What the pass makes of constant @t: 1 and *key for a candidate, 2 for a
 * scalar (left alone, counted), 0 for one it does not study (no name, an
 * overridable default, data it cannot compare), < 0 on error.
 */
static int
study(dedup *d, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name, scs_key *key)
{
	uint32_t id;
	int rc;

	if (name == NULL || name[0] == '\0')
		return 0;
	/* an initializer that is also a graph input is an overridable default */
	if (node == NULL && scs_strmap_get(&d->scopes.items[scope].inputs, name, NULL))
		return 0;
	/* scalars (rank 0) are left alone, as scs4onnx does */
	if (t->n_dims == 0)
		return 2;
	if (scs_model_payload_of(d->m, t, &id)) {
		if ((rc = scs_payloads_key(d->m->payloads, id, key)) < 0)
			return rc;
	} else if (t->data_type == SCS_DT_STRING) {
		string_key(key, t);
	} else {
		return 0;       /* no data we know how to compare */
	}
	return 1;
}

/* The first walk: the digest of every candidate's key (d->digests). */
static int
add_digest(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	dedup *d = ctx;
	scs_key key;
	int rc;

	if ((rc = study(d, scope, t, node, name, &key)) != 1)
		return rc < 0 ? rc : SCS_OK;
	if ((rc = scs_grow(&d->digests, &d->cap_digests, d->n_digests, sizeof(*d->digests), 256, "the key list")) < 0)
		return rc;
	d->digests[d->n_digests++] = key.h[0];
	return SCS_OK;
}


/* 1 when no other candidate's key has @key's digest (d->digests sorted):
 * such a constant equals no other, and needs no record. */
static int
alone(const dedup *d, const scs_key *key)
{
	size_t lo = 0, hi = d->n_digests;

	if (d->digests == NULL)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->digests[mid] < key->h[0])
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo + 1 >= d->n_digests || d->digests[lo + 1] != key->h[0];
}

static int
add_cand(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	dedup *d = ctx;
	int kind = node ? K_CONST : K_INIT, rc;
	scs_key key;

	if ((rc = study(d, scope, t, node, name, &key)) <= 0)
		return rc;
	if (rc == 2) {
		d->res->n_scalars += d->count;
		return SCS_OK;
	}
	d->res->n_constants += d->count;
	if (alone(d, &key))
		return SCS_OK;
	if (kind == K_INIT) {
		if ((t = scs_sealed_keep(t)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot keep a constant");
		name = t->name;
	}
	if (d->n == UINT32_MAX)
		return scs_err_set(SCS_ERANGE, "more than %u constants", UINT32_MAX);
	if ((rc = scs_grow(&d->c, &d->cap, d->n, sizeof(*d->c), 256, "the constant list")) < 0)
		return rc;
	cand *c = &d->c[d->n];
	memset(c, 0, sizeof(*c));
	c->key = key;
	c->scope = scope;
	c->kind = (int8_t)kind;
	c->data_type = t->data_type;
	c->t = t;
	c->node = node;
	c->name = name;
	c->pinned = (int8_t)scs_strmap_get(&d->scopes.items[scope].pinned, name, NULL);
	c->order = (uint32_t)d->n++;
	return SCS_OK;
}

static int
cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_digest(const void *pa, const void *pb)
{
	return cmp_u64(*(const uint64_t *)pa, *(const uint64_t *)pb);
}

/* Same element type, dims and content key. */
static int
cmp_content(const cand *a, const cand *b)
{
	int r;

	if ((r = cmp_u64((uint64_t)a->data_type, (uint64_t)b->data_type)) ||
	    (r = cmp_u64(a->key.h[0], b->key.h[0])) || (r = cmp_u64(a->key.h[1], b->key.h[1])) ||
	    (r = cmp_u64(a->key.len, b->key.len)) || (r = cmp_u64(a->t->n_dims, b->t->n_dims)))
		return r;
	for (size_t i = 0; i < a->t->n_dims; i++)
		if ((r = cmp_u64((uint64_t)a->t->dims[i], (uint64_t)b->t->dims[i])))
			return r;
	return 0;
}

static int
cmp_cand(const void *pa, const void *pb)
{
	const cand *a = pa, *b = pb;
	int r = cmp_content(a, b);

	return r ? r : cmp_u64(a->order, b->order);
}

/*
 * Index what nested scopes define (d->nested_*), so that a question about
 * the scopes below one, or about every scope, looks at the scopes that
 * define the name only. Roots (the main graph, functions) are few and
 * are asked directly.
 */
static int
index_nested_defs(dedup *d)
{
	size_t n = 0, k = 0;
	int64_t at;
	int rc = SCS_OK;

	for (size_t s = 0; s < d->scopes.n; s++)
		n += d->scopes.items[s].parent >= 0 ? d->scopes.items[s].defs.n : 0;
	if (n == 0)
		return SCS_OK;
	if ((d->nested_def = malloc(n * sizeof(*d->nested_def))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot index the nested names");
	for (size_t s = 0; rc == SCS_OK && s < d->scopes.n; s++) {
		const scs_strmap *defs = &d->scopes.items[s].defs;

		if (d->scopes.items[s].parent < 0)
			continue;
		for (size_t i = 0; rc == SCS_OK && i < defs->cap; i++) {
			if (!defs->keys[i])
				continue;
			d->nested_def[k] = (struct nested_def){ (int)s,
				scs_strmap_get(&d->nested_first, defs->keys[i], &at) ? (size_t)at : SIZE_MAX };
			rc = scs_strmap_put(&d->nested_first, defs->keys[i], (int64_t)k++);
		}
	}
	d->n_nested_def = k;
	return rc;
}

/* How many scopes define @name (at most 2 counted). */
static int
count_defs(const dedup *d, const char *name)
{
	int64_t at;
	int n = 0;

	for (size_t s = 0; s < d->scopes.n && n < 2; s++)
		if (d->scopes.items[s].parent < 0)
			n += scs_strmap_get(&d->scopes.items[s].defs, name, NULL);
	if (scs_strmap_get(&d->nested_first, name, &at))
		for (size_t e = (size_t)at; e != SIZE_MAX && n < 2; e = d->nested_def[e].next)
			n++;
	return n;
}

/* 1 when no scope from @from up to (not including) @top, nor any scope
 * below @from, defines @name, apart from the definition @self. */
static int
capture_free(dedup *d, int from, int top, const char *name, const cand *self)
{
	int64_t at;

	for (int s = from; s != top && s >= 0; s = d->scopes.items[s].parent)
		if (scs_strmap_get(&d->scopes.items[s].defs, name, NULL) && !(self && self->scope == s))
			return 0;
	/* a scope below @from is nested: among those the index holds */
	if (scs_strmap_get(&d->nested_first, name, &at))
		for (size_t e = (size_t)at; e != SIZE_MAX; e = d->nested_def[e].next)
			if (d->nested_def[e].scope != from && scs_scope_encloses(&d->scopes, from, d->nested_def[e].scope))
				return 0;
	return 1;
}

/* scs_fresh_name's test: @name is defined somewhere or already given out. */
static int
name_taken(void *ctx, const char *name)
{
	dedup *d = ctx;

	return count_defs(d, name) != 0 || scs_strmap_get(&d->taken, name, NULL);
}

/* A name for a lifted copy that no scope defines. */
static int
fresh_name(dedup *d, const char *base, const cand *first, char **out)
{
	/* the base itself when its one definition is @first's own */
	int keep = count_defs(d, base) == 1 && scs_strmap_get(&d->scopes.items[first->scope].defs, base, NULL) &&
	    !scs_strmap_get(&d->taken, base, NULL);

	*out = keep ? strdup(base) : scs_fresh_name(base, "_scs", name_taken, d, 0);
	return *out ? SCS_OK : scs_err_set(SCS_ENOMEM, "cannot allocate a name");
}

static int
own(dedup *d, char *s)
{
	char **grown = realloc(d->owned, (d->n_owned + 1) * sizeof(*grown));

	if (grown == NULL) {
		free(s);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name");
	}
	d->owned = grown;
	d->owned[d->n_owned++] = s;
	return scs_strmap_put(&d->taken, s, 1);
}

/* Put @node at the front of scope @s's nodes when the round settles. */
static int
add_front(dedup *d, int s, Onnx__NodeProto *node, int fresh)
{
	int rc;

	if ((rc = scs_grow(&d->fronts, &d->cap_fronts, d->n_fronts, sizeof(*d->fronts), 16, "the node list")) < 0)
		return rc;
	d->fronts[d->n_fronts++] = (front){ s, fresh, node };
	return SCS_OK;
}

Onnx__NodeProto *
scs_constant_node_new(Onnx__TensorProto *t)
{
	Onnx__NodeProto *node = malloc(sizeof(*node));
	Onnx__AttributeProto *a = malloc(sizeof(*a));

	if (node == NULL || a == NULL) {
		free(node);
		free(a);
		scs_model_free_part(&t->base);
		return NULL;
	}
	onnx__node_proto__init(node);
	onnx__attribute_proto__init(a);
	a->name = strdup("value");
	a->has_type = 1;
	a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
	a->t = t;
	node->op_type = strdup("Constant");
	node->output = malloc(sizeof(char *));
	node->attribute = malloc(sizeof(a));
	if (node->output)
		node->output[0] = strdup(t->name);
	if (!a->name || !node->op_type || !node->output || !node->output[0] || !node->attribute) {
		if (node->output && !node->output[0]) {
			free(node->output);
			node->output = NULL;
		}
		node->n_output = node->output ? 1 : 0;
		scs_model_free_part(&a->base);
		scs_model_free_part(&node->base);
		return NULL;
	}
	node->n_output = 1;
	node->attribute[0] = a;
	node->n_attribute = 1;
	return node;
}

/* Place a lifted copy in scope @s: an initializer in a graph (IR >= 4),
 * otherwise a Constant node at the front of the scope's nodes. */
static int
place_copy(dedup *d, int s, Onnx__TensorProto *t)
{
	scs_scope *sc = &d->scopes.items[s];
	Onnx__NodeProto *node;

	if (sc->graph && d->ir_version >= 4) {
		scs_sealed *sealed = scs_sealed_of(sc->graph);

		if (sealed ? scs_sealed_append(sealed, t) < 0 :
		    scs_array_insert(&sc->graph->initializer, &sc->graph->n_initializer, t, 0) < 0)
			goto fail;
		return SCS_OK;
	}
	if ((node = scs_constant_node_new(t)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a Constant node");
	if (add_front(d, s, node, 1) < 0) {
		scs_model_free_message(d->m, &node->base);
		return scs_err_set(SCS_ENOMEM, "cannot add a Constant node");
	}
	return SCS_OK;
fail:
	scs_model_free_message(d->m, &t->base);
	return scs_err_set(SCS_ENOMEM, "cannot add a lifted constant");
}

static void
group_dispose(scs_dedup_group *g)
{
	for (size_t j = 0; j < g->n_names; j++)
		free(g->names[j]);
	free(g->names);
	free(g->canonical);
	memset(g, 0, sizeof(*g));
}

/* Add a merged group to @r; @canonical and @names are copied. */
static int
add_group(scs_dedup_result *r, const char *canonical, const char *const *names, size_t n_names, int dtype,
    uint64_t bytes, int lifted)
{
	scs_dedup_group *g;
	int rc;

	if ((rc = scs_grow(&r->groups, &r->cap_groups, r->n_groups, sizeof(*r->groups), 16, "the report")) < 0)
		return rc;
	g = &r->groups[r->n_groups];
	memset(g, 0, sizeof(*g));
	if ((g->canonical = strdup(canonical)) == NULL || (g->names = calloc(n_names ? n_names : 1, sizeof(char *))) == NULL)
		goto fail;
	for (; g->n_names < n_names; g->n_names++)
		if ((g->names[g->n_names] = strdup(names[g->n_names])) == NULL)
			goto fail;
	g->dtype = dtype;
	g->bytes = bytes;
	g->lifted = lifted;
	r->n_groups++;
	return SCS_OK;
fail:
	group_dispose(g);
	return scs_err_set(SCS_ENOMEM, "cannot grow the report");
}

/* Merge one class of equal constants, @cls[0..n) in first-seen order. */
static int
merge_class(dedup *d, cand **cls, size_t n)
{
	const cand *keep = NULL, *first = NULL;
	const char **names = NULL;
	char *target = NULL;
	size_t n_free = 0, n_names = 0, i, w;
	int nca = -1, lifted = 0, rc = SCS_OK, target_scope;

	for (i = 0; i < n; i++) {
		if (cls[i]->pinned)
			continue;
		if (first == NULL)
			first = cls[i];
		nca = n_free++ ? scs_scope_common(&d->scopes, nca, cls[i]->scope) : cls[i]->scope;
	}
	if (first == NULL || nca < 0 || (n_free == 1 && n == 1))
		return SCS_OK;
	/* a pinned copy visible from every free copy serves as it is */
	for (i = 0; i < n && keep == NULL; i++) {
		if (!cls[i]->pinned || !scs_scope_encloses(&d->scopes, cls[i]->scope, nca))
			continue;
		keep = cls[i];
		for (size_t j = 0; j < n && keep; j++)
			if (!cls[j]->pinned && !capture_free(d, cls[j]->scope, keep->scope, keep->name, cls[j]))
				keep = NULL;
	}
	if (keep == NULL && n_free < 2)
		return SCS_OK;
	if (keep == NULL && first->scope == nca)
		keep = first;
	if (keep) {
		target_scope = keep->scope;
		if ((target = strdup(keep->name)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot copy a name");
	} else {
		lifted = 1;
		target_scope = nca;
		if ((rc = fresh_name(d, first->name, first, &target)) < 0)
			return rc;
	}
	if ((names = calloc(n, sizeof(*names))) == NULL) {
		free(target);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name list");
	}
	for (i = 0; i < n; i++) {
		cand *c = cls[i];

		if (c == keep || c->pinned)
			continue;
		if (!capture_free(d, c->scope, target_scope, target, lifted && c == first ? c : NULL)) {
			char why[256];

			d->n_captured++;
			snprintf(why, sizeof(why), "equal to '%s', but a nested graph defines that name", target);
			if ((rc = scs_pass_notes_add(&d->res->skipped, c->name, why)) < 0)
				goto done;
			if (lifted && c == first) {
				/* the lifted copy would be shadowed where the first copy is used */
				goto skip_all;
			}
			continue;
		}
		names[n_names++] = c->name;
	}
	if (n_names == 0 || (lifted && n_names < 2))
		goto done;
	/* names[] follows cls[] (each copy's own name string) */
	for (i = 0, w = 0; i < n && w < n_names; i++) {
		cand *c = cls[i];

		if (names[w] != c->name)
			continue;
		w++;
		c->removed = 1;
		if (strcmp(c->name, target) != 0 && (rc = scs_renames_add(&d->renames, c->scope, c->name, target)) < 0)
			goto done;
	}
	if (lifted) {
		Onnx__TensorProto *copy = scs_tensor_copy_named(d->m, first->t, target);

		if (copy == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot copy a constant");
			goto done;
		}
		if ((rc = place_copy(d, target_scope, copy)) < 0)
			goto done;
	} else if (keep->kind == K_CONST) {
		/* a kept Constant node goes to the front of its scope, before every use */
		if ((rc = add_front(d, keep->scope, keep->node, 0)) < 0)
			goto done;
	}
	{
		uint32_t id;
		uint64_t bytes = scs_model_payload_of(d->m, first->t, &id) ? d->m->payloads->items[id].key.len : 0;

		rc = add_group(d->res, target, names, n_names, first->t->data_type, bytes, lifted);
		d->n_merged++;
	}
	if (rc == SCS_OK) {
		rc = own(d, target);
		target = NULL;
	}
	goto done;
skip_all:
	for (i = 0; i < n; i++)
		cls[i]->removed = 0;
done:
	free(names);
	free(target);
	return rc;
}

int
scs_pass_cmp_ptr(const void *pa, const void *pb)
{
	uintptr_t a = (uintptr_t)*(void *const *)pa, b = (uintptr_t)*(void *const *)pb;

	return a < b ? -1 : a > b;
}

/* Keep the items of @arr[0..*n) not in @gone (sorted), in order; free those @free_gone says. */
static void
keep_all_but(dedup *d, void **arr, size_t *n, void **gone, size_t n_gone, int free_gone)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		if (!bsearch(&arr[i], gone, n_gone, sizeof(*gone), scs_pass_cmp_ptr))
			arr[k++] = arr[i];
		else if (free_gone)
			scs_model_free_message(d->m, (ProtobufCMessage *)arr[i]);
	}
	*n = k;
}

/*
 * Settle the round's edits of node and initializer lists, each list in one
 * pass: removed copies dropped (and freed), the front nodes put first
 * (the last one to come first, as if each had been moved there in turn).
 */
static int
settle_lists(dedup *d)
{
	void **gone = NULL, **moved = NULL;
	size_t n_gone = 0, n_moved = 0, *at = calloc(d->scopes.n ? d->scopes.n : 1, sizeof(*at));
	char *touched = calloc(d->scopes.n ? d->scopes.n : 1, 1);
	int rc = SCS_OK;

	if (at == NULL || touched == NULL || (gone = malloc((d->n ? d->n : 1) * sizeof(*gone))) == NULL ||
	    (moved = malloc((d->n_fronts ? d->n_fronts : 1) * sizeof(*moved))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the list edits");
		goto done;
	}
	for (size_t i = 0; i < d->n; i++) {
		if (!d->c[i].removed)
			continue;
		gone[n_gone++] = d->c[i].kind == K_INIT ? (void *)d->c[i].t : (void *)d->c[i].node;
		touched[d->c[i].scope] = 1;
	}
	for (size_t i = 0; i < d->n_fronts; i++) {
		if (!d->fronts[i].fresh)
			moved[n_moved++] = d->fronts[i].node;
		touched[d->fronts[i].scope] = 1;
		at[d->fronts[i].scope]++;
	}
	qsort(gone, n_gone, sizeof(*gone), scs_pass_cmp_ptr);
	qsort(moved, n_moved, sizeof(*moved), scs_pass_cmp_ptr);
	/* room for the front nodes first, so that a failure changes no list */
	for (size_t s = 0; s < d->scopes.n; s++) {
		Onnx__NodeProto ***nodes, **grown;
		size_t *n;

		if (at[s] == 0)
			continue;
		nodes = scs_scope_nodes(&d->scopes.items[s], &n);
		if ((grown = scs_arena_grow(*nodes, *n * sizeof(*grown), (*n + at[s]) * sizeof(*grown))) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot grow a node list");
			goto done;
		}
		*nodes = grown;
	}
	/* each touched list compacted, its front left free */
	for (size_t s = 0; s < d->scopes.n; s++) {
		scs_scope *sc = &d->scopes.items[s];
		Onnx__NodeProto **nodes;
		size_t *n;

		if (!touched[s])
			continue;
		if (sc->graph) {
			keep_all_but(d, (void **)sc->graph->initializer, &sc->graph->n_initializer, gone, n_gone, 1);
			scs_sealed_drop(scs_sealed_of(sc->graph), gone, n_gone);
		}
		nodes = *scs_scope_nodes(sc, &n);
		keep_all_but(d, (void **)nodes, n, gone, n_gone, 1);
		keep_all_but(d, (void **)nodes, n, moved, n_moved, 0);
		memmove(nodes + at[s], nodes, *n * sizeof(*nodes));
		*n += at[s];
		at[s] = 0;
	}
	/* the front nodes, the last one first */
	for (size_t i = d->n_fronts; i-- > 0;) {
		size_t *n;
		Onnx__NodeProto **nodes = *scs_scope_nodes(&d->scopes.items[d->fronts[i].scope], &n);

		nodes[at[d->fronts[i].scope]++] = d->fronts[i].node;
		d->fronts[i].fresh = 0;       /* in the model now */
	}
done:
	free(at);
	free(touched);
	free(gone);
	free(moved);
	return rc;
}

/* One round over the model; *@again when another round may merge more. */
static int
dedup_round(scs_model *m, scs_dedup_result *res, int count, int *again)
{
	dedup d;
	cand **cls = NULL;
	size_t i, j, k, n_cls;
	int rc, eq;

	memset(&d, 0, sizeof(d));
	d.m = m;
	d.res = res;
	d.count = count;
	d.ir_version = m->proto->has_ir_version ? m->proto->ir_version : 0;
	if ((rc = scs_scopes_build(&d.scopes, m->proto)) < 0 || (rc = index_nested_defs(&d)) < 0 ||
	    (rc = scs_scopes_each_constant(&d.scopes, add_digest, &d)) < 0)
		goto done;
	/* a model of many distinct constants keeps a record of none of them */
	if (d.n_digests)
		qsort(d.digests, d.n_digests, sizeof(*d.digests), cmp_digest);
	if ((rc = scs_scopes_each_constant(&d.scopes, add_cand, &d)) < 0)
		goto done;
	free(d.digests);
	d.digests = NULL;
	if (d.n)
		qsort(d.c, d.n, sizeof(*d.c), cmp_cand);
	if (d.n && (cls = malloc(d.n * sizeof(*cls))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the merge list");
		goto done;
	}
	for (i = 0; i < d.n; i = j) {
		for (j = i + 1; j < d.n && cmp_content(&d.c[i], &d.c[j]) == 0; j++)
			;
		/* split the run of equal keys into classes of equal bytes */
		for (k = i; k < j; k++) {
			if (d.c[k].removed != 0)
				continue;
			n_cls = 0;
			cls[n_cls++] = &d.c[k];
			for (size_t l = k + 1; l < j; l++) {
				if (d.c[l].removed != 0)
					continue;
				if ((eq = scs_tensors_equal(d.m, d.c[k].t, d.c[l].t)) < 0) {
					rc = eq;
					goto done;
				}
				if (eq) {
					cls[n_cls++] = &d.c[l];
					d.c[l].removed = -1;     /* taken by this class */
				}
			}
			for (size_t l = 0; l < n_cls; l++)
				cls[l]->removed = 0;
			if (n_cls > 1 && (rc = merge_class(&d, cls, n_cls)) < 0)
				goto done;
			for (size_t l = 0; l < n_cls; l++)
				if (cls[l]->removed == 0)
					cls[l]->removed = -2;    /* settled, kept */
		}
	}
	for (i = 0; i < d.n; i++)
		d.c[i].removed = d.c[i].removed == 1;
	if ((rc = scs_renames_apply(&d.renames, &d.scopes)) < 0)
		goto done;
	rc = settle_lists(&d);
done:
	for (i = 0; i < d.n_fronts; i++)
		if (d.fronts[i].fresh)
			scs_model_free_message(m, &d.fronts[i].node->base);
	free(d.fronts);
	free(d.nested_def);
	free(d.digests);
	scs_strmap_dispose(&d.nested_first);
	free(cls);
	free(d.c);
	scs_renames_dispose(&d.renames);
	scs_scopes_dispose(&d.scopes);
	scs_strmap_dispose(&d.taken);
	for (i = 0; i < d.n_owned; i++)
		free(d.owned[i]);
	free(d.owned);
	*again = rc == SCS_OK && d.n_captured && d.n_merged;
	return rc;
}

int
scs_pass_dedup(scs_model *m, scs_dedup_result *res)
{
	size_t skipped_at;
	int again = 1, rc = SCS_OK;

	for (int round = 0; rc == SCS_OK && again; round++) {
		/* a later round settles again what an earlier one could not merge */
		skipped_at = res->skipped.n;
		rc = dedup_round(m, res, round == 0, &again);
		if (rc == SCS_OK && again)
			scs_pass_notes_truncate(&res->skipped, skipped_at);
	}
	return rc;
}

void
scs_dedup_result_dispose(scs_dedup_result *r)
{
	for (size_t i = 0; i < r->n_groups; i++)
		group_dispose(&r->groups[i]);
	free(r->groups);
	scs_pass_notes_dispose(&r->skipped);
	memset(r, 0, sizeof(*r));
}

static int
count_cand(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	dedup *d = ctx;
	int rc;

	if ((rc = add_cand(ctx, scope, t, node, name)) == SCS_OK)
		d->n = 0;
	return rc;
}

int
scs_pass_dedup_count(scs_model *m, scs_dedup_result *res)
{
	dedup d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.m = m;
	d.res = res;
	d.count = 1;
	if ((rc = scs_scopes_build(&d.scopes, m->proto)) == SCS_OK)
		rc = scs_scopes_each_constant(&d.scopes, count_cand, &d);
	free(d.c);
	scs_scopes_dispose(&d.scopes);
	return rc;
}

static int
order_cand(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node, const char *name)
{
	(void)scope;
	(void)t;
	(void)node;
	return name ? scs_pass_notes_add(ctx, name, NULL) : SCS_OK;
}

int
scs_pass_dedup_order(scs_model *m, scs_pass_notes *order)
{
	scs_scopes scopes;
	int rc;

	memset(&scopes, 0, sizeof(scopes));
	if ((rc = scs_scopes_build(&scopes, m->proto)) == SCS_OK)
		rc = scs_scopes_each_constant(&scopes, order_cand, order);
	scs_scopes_dispose(&scopes);
	return rc;
}
