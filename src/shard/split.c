/*
 * split.c: shards out (see split.h).
 *
 * The main graph's nodes are sorted topologically (stable: a node keeps its
 * place unless an input comes later), then taken in that order into the
 * current shard until the next would pass the budget. A node's cost is its
 * own serialized size (nested graphs included) plus the initializers and
 * Constant nodes it reads that the shard does not hold yet.
 *
 * Shards are built in time linear in the graph: a shard's nodes are one
 * run of the sorted order, and what it copies from the source is looked up
 * by name from the names it wants (never a scan of the source per shard).
 *
 * SPDX-License-Identifier: MIT
 */
#include "shard/split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"
#include "util/base64.h"
#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "util/hash.h"
#include "model/graph.h"
#include "infer/infer.h"
#include "onnx/opschema.h"
#include "onnx/pack.h"
#include "model/scope.h"
#include "shard/shard.h"

/*
 * The items of one of the source graph's lists (initializers, inputs,
 * value_info, ...) by name: first[name] is the first item of that name,
 * next[i] the next one after item i (SIZE_MAX: none).
 */
typedef struct name_index {
	scs_strmap first;
	size_t *next;
} name_index;

typedef struct split {
	scs_model *m;
	Onnx__GraphProto *g;
	uint64_t max_len;
	size_t n_nodes;
	scs_names *uses;          /* per node: names it reads (inputs, and outer names its bodies read) */
	int *replicable;          /* per node: a Constant node (copied where used) */
	size_t *order;            /* the nodes that are not replicable, topologically sorted */
	size_t n_order;
	int *shard_of;            /* per node */
	size_t n_shards;
	scs_strmap producer;      /* node output -> node index */
	scs_strmap inits;         /* initializer (or sparse) name -> index in g->initializer, or -1 - sparse index */
	scs_strmap inputs;        /* graph input name -> index */
	scs_infer inf;            /* element types and shapes of the main graph's values */
	size_t *shard_start;      /* per shard: its first position in order (n_shards + 1 entries) */
	scs_strmap last_shard;    /* name -> the last shard whose nodes read it */
	scs_strmap outputs;       /* graph output names */
	size_t *out_order;        /* graph outputs by the shard that gives them, in their order */
	size_t *out_start;        /* per shard: its first position in out_order (n_shards + 1 entries) */
	name_index *ix;           /* the source's lists by name (IX_*) */
} split;

/* The source graph's lists that shards copy from, indexed by name. */
enum { IX_CONSTANT, IX_INIT, IX_SPARSE, IX_INPUT, IX_VALUE_INFO, IX_ANNOTATION, IX_N };

/* A growing list of item indices, sorted before use. */
typedef struct index_list {
	size_t *items;
	size_t n, cap;
} index_list;

/* ---- name indices ---- */

static const char *item_name(const split *s, int ix, size_t i);

/* Index the @n items of the source's list @ix by name. */
static int
index_build(split *s, int ix, size_t n)
{
	name_index *x = &s->ix[ix];
	const char *name;
	int64_t f;
	int rc = SCS_OK;

	if ((x->next = malloc((n ? n : 1) * sizeof(*x->next))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name index");
	/* from the last item back, so chains run in the items' order */
	for (size_t i = n; rc == SCS_OK && i-- > 0;) {
		x->next[i] = SIZE_MAX;
		if ((name = item_name(s, ix, i)) == NULL || !name[0])
			continue;
		if (scs_strmap_get(&x->first, name, &f))
			x->next[i] = (size_t)f;
		rc = scs_strmap_put(&x->first, name, (int64_t)i);
	}
	return rc;
}

static void
index_dispose(name_index *x)
{
	scs_strmap_dispose(&x->first);
	free(x->next);
	memset(x, 0, sizeof(*x));
}

static int
list_add(index_list *l, size_t v)
{
	int rc;

	if ((rc = scs_grow(&l->items, &l->cap, l->n, sizeof(*l->items), 16, "an index list")) < 0)
		return rc;
	l->items[l->n++] = v;
	return SCS_OK;
}

/* Add every item of @x named @name to @l. */
static int
list_add_named(index_list *l, const name_index *x, const char *name)
{
	int64_t f;
	int rc = SCS_OK;

	if (!scs_strmap_get(&x->first, name, &f))
		return SCS_OK;
	for (size_t i = (size_t)f; rc == SCS_OK && i != SIZE_MAX; i = x->next[i])
		rc = list_add(l, i);
	return rc;
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort @l and drop repeats: the source order of the items it names. */
static void
list_settle(index_list *l)
{
	size_t k = 0;

	if (l->n)
		qsort(l->items, l->n, sizeof(*l->items), cmp_size);
	for (size_t i = 0; i < l->n; i++)
		if (k == 0 || l->items[i] != l->items[k - 1])
			l->items[k++] = l->items[i];
	l->n = k;
}

/* ---- topological order ---- */

static int
topo_sort(split *s)
{
	return scs_graph_order(&s->order, &s->n_order, s->g, s->uses, s->replicable,
	    s->m->path ? s->m->path : "model");
}

/* ---- assigning nodes to shards ---- */

/* Serialized bytes that count against the budget for replicable name @name. */
static uint64_t
replicable_len(split *s, const char *name)
{
	int64_t i;
	size_t len;

	if (scs_strmap_get(&s->inits, name, &i))
		len = i >= 0 ? scs_model_packed_size(s->m, &s->g->initializer[i]->base) :
		    scs_model_packed_size(s->m, &s->g->sparse_initializer[-1 - i]->base);
	else if (scs_strmap_get(&s->producer, name, &i) && s->replicable[i])
		len = scs_model_packed_size(s->m, &s->g->node[i]->base);
	else
		return 0;
	/* a tensor at the budget or over it goes to external data beside the shard */
	return len >= s->max_len ? 0 : len;
}

/*
 * Where each value made by a sorted node is last read (a position in
 * s->order), so a cut can be allowed only where every value alive across
 * it can be described as a graph input (known element type and rank).
 */
static int
last_reads(split *s, scs_strmap *last)
{
	int64_t p;
	int rc = SCS_OK;

	for (size_t k = 0; rc == SCS_OK && k < s->n_order; k++) {
		scs_names *u = &s->uses[s->order[k]];

		for (size_t j = 0; rc == SCS_OK && j < u->n; j++)
			if (scs_strmap_get(&s->producer, u->items[j], &p) && !s->replicable[p])
				rc = scs_strmap_put(last, u->items[j], (int64_t)k);
	}
	return rc;
}

static int
assign(split *s)
{
	scs_strmap held = SCS_STRMAP_INIT, last = SCS_STRMAP_INIT;
	uint64_t cur = 0, cost, node_len;
	size_t *blind_until = calloc(s->n_order + 1, sizeof(size_t)), blind = 0;
	int64_t lp;
	int rc;

	if (blind_until == NULL || (s->shard_of = malloc((s->n_nodes ? s->n_nodes : 1) * sizeof(int))) == NULL) {
		free(blind_until);
		return scs_err_set(SCS_ENOMEM, "cannot allocate the shard plan");
	}
	for (size_t i = 0; i < s->n_nodes; i++)
		s->shard_of[i] = -1;
	s->n_shards = 1;
	rc = last_reads(s, &last);
	for (size_t k = 0; rc == SCS_OK && k < s->n_order; k++) {
		size_t i = s->order[k];
		scs_names *u = &s->uses[i];
		Onnx__NodeProto *n = s->g->node[i];

		/*
		 * A node counts in full: only tensors go to external data, so a node
		 * at the budget or over it takes a shard of its own rather than none.
		 */
		node_len = scs_model_packed_size(s->m, &n->base);
		cost = node_len;
		for (size_t j = 0; j < u->n; j++)
			if (!scs_strmap_get(&held, u->items[j], NULL))
				cost += replicable_len(s, u->items[j]);
		/* cut before this node only where no value alive across the cut is indescribable */
		if (cur > 0 && cur + cost > s->max_len && blind == 0) {
			s->n_shards++;
			cur = 0;
			scs_strmap_dispose(&held);
			cost = node_len;
			for (size_t j = 0; j < u->n; j++)
				cost += replicable_len(s, u->items[j]);
		}
		for (size_t j = 0; rc == SCS_OK && j < u->n; j++)
			rc = scs_strmap_put(&held, u->items[j], 1);
		s->shard_of[i] = (int)s->n_shards - 1;
		cur += cost;
		for (size_t j = 0; j < n->n_output; j++) {
			if (!n->output[j][0] || !scs_strmap_get(&last, n->output[j], &lp) || (size_t)lp <= k ||
			    scs_infer_describable(&s->inf, n->output[j]))
				continue;
			blind++;
			blind_until[lp]++;
		}
		blind -= blind_until[k];
	}
	scs_strmap_dispose(&held);
	scs_strmap_dispose(&last);
	free(blind_until);
	return rc;
}

/* ---- building a shard ---- */

typedef struct shard_build {
	split *s;
	int k;
	Onnx__ModelProto *p;
	scs_model *model;
	scs_strmap want;          /* replicables the shard reads */
	scs_names want_list;
} shard_build;

#define APPEND_OR_DONE(arr, n, item) \
	do { if ((rc = scs_array_insert(&(arr), &(n), (item), 0)) < 0) goto done; } while (0)

static int
add_copy(shard_build *b, ProtobufCMessage *msg, ProtobufCMessage **out)
{
	if ((*out = scs_model_copy_kept(b->s->m, msg)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy into a shard");
	return SCS_OK;
}

/* Is @name read by a node of a shard later than @k? */
static int
read_after(split *s, const char *name, int k)
{
	int64_t last;

	return scs_strmap_get(&s->last_shard, name, &last) && last > k;
}

/* The shard where an original output that no node makes is given: the last. */
static int
output_home(split *s, const char *name)
{
	int64_t p;

	if (scs_strmap_get(&s->producer, name, &p) && !s->replicable[p])
		return s->shard_of[p];
	return (int)s->n_shards - 1;
}

/* The name of item @i of the source's list @ix (NULL: none). */
static const char *
item_name(const split *s, int ix, size_t i)
{
	const Onnx__GraphProto *g = s->g;

	switch (ix) {
	case IX_CONSTANT:
		return s->replicable[i] ? g->node[i]->output[0] : NULL;
	case IX_INIT:
		return g->initializer[i]->name;
	case IX_SPARSE:
		return g->sparse_initializer[i]->values ? g->sparse_initializer[i]->values->name : NULL;
	case IX_INPUT:
		return g->input[i]->name;
	case IX_VALUE_INFO:
		return g->value_info[i]->name;
	default:
		return g->quantization_annotation[i]->tensor_name;
	}
}

/* Index the source's lists that shards copy from by name (s->ix). */
static int
index_source(split *s)
{
	const Onnx__GraphProto *g = s->g;
	size_t n[IX_N] = { s->n_nodes, g->n_initializer, g->n_sparse_initializer, g->n_input, g->n_value_info,
		g->n_quantization_annotation };
	int rc = SCS_OK;

	if ((s->ix = calloc(IX_N, sizeof(*s->ix))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the name indices");
	for (int ix = 0; rc == SCS_OK && ix < IX_N; ix++)
		rc = index_build(s, ix, n[ix]);
	return rc;
}

/*
 * What every shard build looks up: where each shard's run of the order
 * starts, the last shard reading each name, the graph outputs by name and
 * by the shard giving them, and the source's lists by name.
 */
static int
plan_shards(split *s)
{
	size_t n_out = s->g->n_output, *at = NULL;
	int *home = NULL;
	int64_t last;
	int rc = SCS_OK;

	if ((s->shard_start = calloc(s->n_shards + 1, sizeof(*s->shard_start))) == NULL ||
	    (s->out_start = calloc(s->n_shards + 1, sizeof(*s->out_start))) == NULL ||
	    (s->out_order = malloc((n_out ? n_out : 1) * sizeof(*s->out_order))) == NULL ||
	    (home = malloc((n_out ? n_out : 1) * sizeof(*home))) == NULL) {
		free(home);
		return scs_err_set(SCS_ENOMEM, "cannot allocate the shard plan");
	}
	/* assign() fills shards in the order's sequence: each shard is one run of it */
	for (size_t k = s->n_order; k-- > 0;)
		s->shard_start[s->shard_of[s->order[k]]] = k;
	s->shard_start[s->n_shards] = s->n_order;
	for (size_t k = 0; rc == SCS_OK && k < s->n_order; k++) {
		size_t i = s->order[k];

		for (size_t j = 0; rc == SCS_OK && j < s->uses[i].n; j++)
			if (!scs_strmap_get(&s->last_shard, s->uses[i].items[j], &last) || last < s->shard_of[i])
				rc = scs_strmap_put(&s->last_shard, s->uses[i].items[j], s->shard_of[i]);
	}
	/* the outputs, stably bucketed by the shard that gives them */
	for (size_t i = 0; rc == SCS_OK && i < n_out; i++) {
		const char *name = s->g->output[i]->name;

		home[i] = name ? output_home(s, name) : -1;
		if (home[i] >= 0)
			s->out_start[home[i] + 1]++;
		if (name)
			rc = scs_strmap_put(&s->outputs, name, 1);
	}
	for (size_t k = 0; k < s->n_shards; k++)
		s->out_start[k + 1] += s->out_start[k];
	if (rc == SCS_OK && (at = calloc(s->n_shards, sizeof(*at))) == NULL)
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the shard plan");
	for (size_t i = 0; rc == SCS_OK && i < n_out; i++)
		if (home[i] >= 0)
			s->out_order[s->out_start[home[i]] + at[home[i]]++] = i;
	free(at);
	free(home);
	return rc == SCS_OK ? index_source(s) : rc;
}

static int
want_name(shard_build *b, const char *name)
{
	int rc;

	if (scs_strmap_get(&b->want, name, NULL))
		return SCS_OK;
	if ((rc = scs_strmap_put(&b->want, name, 1)) < 0)
		return rc;
	return scs_names_add(&b->want_list, name);
}

static int describe_shard(shard_build *b, const char *fingerprint, const char *header);

/*
 * The items of source list @ix that names in @b->want_list (and, with
 * @own, the values the shard's own nodes make) may bring, in source order.
 */
static int
candidates(shard_build *b, index_list *l, int ix, int own)
{
	split *s = b->s;
	int rc = SCS_OK;

	l->n = 0;
	for (size_t w = 0; rc == SCS_OK && w < b->want_list.n; w++)
		rc = list_add_named(l, &s->ix[ix], b->want_list.items[w]);
	for (size_t k = s->shard_start[b->k]; own && rc == SCS_OK && k < s->shard_start[b->k + 1]; k++) {
		Onnx__NodeProto *n = s->g->node[s->order[k]];

		for (size_t j = 0; rc == SCS_OK && j < n->n_output; j++)
			if (n->output[j][0])
				rc = list_add_named(l, &s->ix[ix], n->output[j]);
	}
	list_settle(l);
	return rc;
}

/* Does a value_info or annotation of @name belong in the shard? */
static int
describes(shard_build *b, const char *name, int annotation)
{
	split *s = b->s;
	int64_t p, at;

	if (!name)
		return 0;
	if (annotation)
		return scs_strmap_get(&b->want, name, NULL) ||
		    (scs_strmap_get(&s->producer, name, &p) && s->shard_of[p] == b->k);
	/* value_info of what this shard's nodes make and of the constants it holds */
	return scs_strmap_get(&s->producer, name, &p) ? (s->replicable[p] ?
	    scs_strmap_get(&b->want, name, NULL) : s->shard_of[p] == b->k) :
	    (scs_strmap_get(&s->inits, name, &at) && scs_strmap_get(&b->want, name, NULL));
}

/*
 * Copy into the shard (to @dst[0..*n_dst)) the items of source list
 * @items that the shard takes: those named by what it wants, and for
 * value_info and annotations, those the describes() rule keeps. @l is
 * scratch.
 */
static int
copy_listed(shard_build *b, index_list *l, int ix, ProtobufCMessage **items, void *dst, size_t *n_dst)
{
	int described = ix == IX_VALUE_INFO || ix == IX_ANNOTATION;
	ProtobufCMessage *copy;
	int rc;

	if ((rc = candidates(b, l, ix, described)) < 0)
		return rc;
	for (size_t c = 0; c < l->n; c++) {
		ProtobufCMessage *m = items[l->items[c]];

		if (ix == IX_VALUE_INFO && !describes(b, ((Onnx__ValueInfoProto *)m)->name, 0))
			continue;
		if (ix == IX_ANNOTATION && !describes(b, ((Onnx__TensorAnnotation *)m)->tensor_name, 1))
			continue;
		if ((rc = add_copy(b, m, &copy)) < 0)
			return rc;
		if ((rc = scs_array_insert(dst, n_dst, copy, 0)) < 0) {
			scs_model_free_message(b->s->m, copy);
			return rc;
		}
	}
	return SCS_OK;
}

/* The value_info of cut tensor @name, which shard @from passes to shard @to (-1: to later ones). */
static int
cut_info(split *s, const char *name, int from, int to, Onnx__ValueInfoProto **out)
{
	if (!scs_infer_describable(&s->inf, name)) {
		if (to < 0)
			return scs_err_set(SCS_EUNSUPPORTED,
			    "cannot tell the type and rank of '%s', which shard %d passes on (add value_info for it)", name, from);
		return scs_err_set(SCS_EUNSUPPORTED,
		    "cannot tell the type and rank of '%s', which shard %d passes to shard %d (add value_info for it)",
		    name, from, to);
	}
	if ((*out = scs_infer_value_info(&s->inf, name)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot describe a cut tensor");
	return SCS_OK;
}

static int
build_graph(shard_build *b, const char *fingerprint, const char *header)
{
	split *s = b->s;
	Onnx__GraphProto *g = b->p->graph, *src = s->g;
	ProtobufCMessage *copy;
	Onnx__ValueInfoProto *vi;
	index_list l = { NULL, 0, 0 };
	size_t first = s->shard_start[b->k], end = s->shard_start[b->k + 1];
	int64_t p;
	int rc;

	/* the nodes, in topological order, and everything they read */
	for (size_t k = first; k < end; k++) {
		size_t i = s->order[k];

		for (size_t j = 0; j < s->uses[i].n; j++)
			if ((rc = want_name(b, s->uses[i].items[j])) < 0)
				return rc;
	}
	for (size_t o = s->out_start[b->k]; o < s->out_start[b->k + 1]; o++)
		if ((rc = want_name(b, src->output[s->out_order[o]]->name)) < 0)
			return rc;
	/* constants no node reads stay in the model (as shrink keeps them): in the last shard */
	if ((size_t)b->k == s->n_shards - 1) {
		scs_strmap read = SCS_STRMAP_INIT;

		rc = SCS_OK;
		for (size_t i = 0; i < s->n_nodes; i++)
			for (size_t j = 0; j < s->uses[i].n; j++)
				if ((rc = scs_strmap_put(&read, s->uses[i].items[j], 1)) < 0)
					goto unread_done;
		for (size_t i = 0; rc == SCS_OK && i < src->n_input; i++)
			if (src->input[i]->name)
				rc = scs_strmap_put(&read, src->input[i]->name, 1);    /* inputs come with their readers */
		for (size_t i = 0; rc == SCS_OK && i < src->n_initializer; i++)
			if (src->initializer[i]->name && !scs_strmap_get(&read, src->initializer[i]->name, NULL))
				rc = want_name(b, src->initializer[i]->name);
		if (rc < 0)
			goto unread_done;
		for (size_t i = 0; i < s->n_nodes; i++)
			if (s->replicable[i] && !scs_strmap_get(&read, src->node[i]->output[0], NULL) &&
			    (rc = want_name(b, src->node[i]->output[0])) < 0)
				goto unread_done;
		rc = SCS_OK;
unread_done:
		scs_strmap_dispose(&read);
		if (rc < 0)
			return rc;
	}
	/* Constant nodes first (copied where read), then the shard's own nodes */
	if ((rc = copy_listed(b, &l, IX_CONSTANT, (ProtobufCMessage **)src->node, &g->node, &g->n_node)) < 0)
		goto done;
	for (size_t k = first; k < end; k++) {
		if ((rc = add_copy(b, &src->node[s->order[k]]->base, &copy)) < 0)
			goto done;
		APPEND_OR_DONE(g->node, g->n_node, (Onnx__NodeProto *)copy);
	}
	if ((rc = copy_listed(b, &l, IX_INIT, (ProtobufCMessage **)src->initializer, &g->initializer, &g->n_initializer)) < 0 ||
	    (rc = copy_listed(b, &l, IX_SPARSE, (ProtobufCMessage **)src->sparse_initializer, &g->sparse_initializer,
	    &g->n_sparse_initializer)) < 0)
		goto done;
	/* inputs: the original ones it reads, in their order, then the cut tensors */
	if ((rc = copy_listed(b, &l, IX_INPUT, (ProtobufCMessage **)src->input, &g->input, &g->n_input)) < 0)
		goto done;
	for (size_t w = 0; w < b->want_list.n; w++) {
		const char *name = b->want_list.items[w];

		if (!scs_strmap_get(&s->producer, name, &p) || s->replicable[p] || s->shard_of[p] >= b->k)
			continue;
		if ((rc = cut_info(s, name, s->shard_of[p], b->k, &vi)) < 0)
			goto done;
		APPEND_OR_DONE(g->input, g->n_input, vi);
	}
	/* outputs: the original ones made here, in their order, then what later shards read */
	for (size_t o = s->out_start[b->k]; o < s->out_start[b->k + 1]; o++) {
		if ((rc = add_copy(b, &src->output[s->out_order[o]]->base, &copy)) < 0)
			goto done;
		APPEND_OR_DONE(g->output, g->n_output, (Onnx__ValueInfoProto *)copy);
	}
	for (size_t k = first; k < end; k++) {
		Onnx__NodeProto *n = src->node[s->order[k]];

		for (size_t j = 0; j < n->n_output; j++) {
			if (!n->output[j][0] || scs_strmap_get(&s->outputs, n->output[j], NULL) || !read_after(s, n->output[j], b->k))
				continue;
			if ((rc = cut_info(s, n->output[j], b->k, -1, &vi)) < 0)
				goto done;
			APPEND_OR_DONE(g->output, g->n_output, vi);
		}
	}
	/*
	 * A shard whose nodes make nothing anyone reads (dead ends the cuts put
	 * on their own) would have no output, which no runtime loads: it gives
	 * what its nodes make. Merge takes the graph's outputs from the header,
	 * so these stay out of the merged model's.
	 */
	for (size_t k = first; g->n_output == 0 && k < end; k++) {
		Onnx__NodeProto *n = src->node[s->order[k]];

		for (size_t j = 0; j < n->n_output; j++) {
			if (!n->output[j][0])
				continue;
			if ((rc = cut_info(s, n->output[j], b->k, -1, &vi)) < 0)
				goto done;
			APPEND_OR_DONE(g->output, g->n_output, vi);
		}
	}
	/* value_info of what this shard's nodes make and of the constants it holds, and their annotations */
	if ((rc = copy_listed(b, &l, IX_VALUE_INFO, (ProtobufCMessage **)src->value_info, &g->value_info,
	    &g->n_value_info)) < 0 ||
	    (rc = copy_listed(b, &l, IX_ANNOTATION, (ProtobufCMessage **)src->quantization_annotation,
	    &g->quantization_annotation, &g->n_quantization_annotation)) < 0)
		goto done;
	rc = describe_shard(b, fingerprint, header);
done:
	free(l.items);
	return rc;
}

/* What the shard says of itself. */
static int
describe_shard(shard_build *b, const char *fingerprint, const char *header)
{
	char shard_tag[64];
	int rc;

	snprintf(shard_tag, sizeof(shard_tag), "%d/%zu", b->k, b->s->n_shards);
	{
		Onnx__StringStringEntryProto *e[3] = { scs_entry_new(SCS_META_SHARD, shard_tag),
			scs_entry_new(SCS_META_SOURCE, fingerprint), scs_entry_new(SCS_META_HEADER, header) };

		for (int i = 0; i < 3; i++) {
			if (e[i] == NULL) {
				for (int j = 0; j < 3; j++)
					if (e[j])
						protobuf_c_message_free_unpacked(&e[j]->base, NULL);
				return scs_err_set(SCS_ENOMEM, "cannot describe a shard");
			}
		}
		for (int i = 0; i < 3; i++) {
			if ((rc = scs_array_insert(&b->p->metadata_props, &b->p->n_metadata_props, e[i], 0)) < 0) {
				for (int j = i; j < 3; j++)
					protobuf_c_message_free_unpacked(&e[j]->base, NULL);
				return rc;
			}
		}
	}
	return SCS_OK;
}

/* @g: an empty graph with @src's name, doc and metadata (borrowed, not copied). */
static void
hollow_graph(Onnx__GraphProto *g, const Onnx__GraphProto *src)
{
	onnx__graph_proto__init(g);
	g->name = src->name;
	g->doc_string = src->doc_string;
	g->n_metadata_props = src->n_metadata_props;
	g->metadata_props = src->metadata_props;
}

/* The parts of the source every shard repeats: a copy of the model without its graph's contents. */
static int
new_shard_proto(split *s, Onnx__ModelProto **out)
{
	Onnx__ModelProto *src = s->m->proto, hollow;
	Onnx__GraphProto g;

	/* copy the model with an empty graph of the same name and doc */
	hollow = *src;
	hollow_graph(&g, src->graph);
	hollow.graph = &g;
	hollow.n_training_info = 0;
	*out = (Onnx__ModelProto *)scs_model_copy(s->m, &hollow.base);
	return *out ? SCS_OK : scs_err_set(SCS_ENOMEM, "cannot start a shard");
}

/* A fingerprint of the source: its structure, with each payload's content key. */
typedef struct hash_ctx {
	scs_hash h;
	const scs_model *m;
} hash_ctx;

static int
hash_write(void *ctx, const void *data, size_t len)
{
	hash_ctx *hc = ctx;

	scs_hash_update(&hc->h, data, len);
	return SCS_OK;
}

static int
hash_payload(void *ctx, uint32_t id)
{
	hash_ctx *hc = ctx;
	scs_key key;
	int rc;

	if ((rc = scs_payloads_key(hc->m->payloads, id, &key)) < 0)
		return rc;
	scs_hash_update(&hc->h, &key, sizeof(key));
	return SCS_OK;
}

static int
fingerprint(const scs_model *m, char out[33])
{
	hash_ctx hc = { .m = m };
	scs_pack_out po = { hash_write, hash_payload, &hc };
	scs_key k;
	int rc;

	scs_hash_init(&hc.h);
	if ((rc = scs_pack_write(&m->proto->base, m->payloads, &po)) < 0)
		return rc;
	scs_hash_final(&k, &hc.h);
	scs_key_hex(out, &k);
	return SCS_OK;
}

/* The source's facts merge restores: a ModelProto with inputs and outputs only. */
static int
make_header(split *s, scs_buf *out)
{
	Onnx__ModelProto hdr = *s->m->proto;
	Onnx__GraphProto g;
	scs_buf packed = SCS_BUF_INIT;
	int rc;

	hollow_graph(&g, s->g);
	g.n_input = s->g->n_input;
	g.input = s->g->input;
	g.n_output = s->g->n_output;
	g.output = s->g->output;
	hdr.graph = &g;
	hdr.n_functions = 0;
	hdr.n_training_info = 0;
	hdr.base.n_unknown_fields = 0;
	/* no tensor in it, so protobuf-c's packing writes it as ours would */
	if ((rc = scs_buf_reserve(&packed, protobuf_c_message_get_packed_size(&hdr.base))) < 0)
		return rc;
	packed.len = protobuf_c_message_pack(&hdr.base, packed.data);
	rc = scs_base64_encode(out, packed.data, packed.len);
	scs_buf_dispose(&packed);
	return rc;
}

static void
split_dispose(split *s)
{
	for (size_t i = 0; s->uses && i < s->n_nodes; i++)
		free(s->uses[i].items);
	free(s->uses);
	free(s->replicable);
	free(s->order);
	free(s->shard_of);
	scs_strmap_dispose(&s->producer);
	scs_strmap_dispose(&s->inits);
	scs_strmap_dispose(&s->inputs);
	scs_infer_dispose(&s->inf);
	free(s->shard_start);
	free(s->out_order);
	free(s->out_start);
	scs_strmap_dispose(&s->last_shard);
	scs_strmap_dispose(&s->outputs);
	for (int i = 0; s->ix && i < IX_N; i++)
		index_dispose(&s->ix[i]);
	free(s->ix);
}

void
scs_shards_dispose(scs_shards *s)
{
	/* in reverse: when the first shard owns the payloads, it goes last */
	for (size_t i = s->n; i-- > 0;)
		scs_model_free(s->items[i]);
	free(s->items);
	s->items = NULL;
	s->n = 0;
}

int
scs_split_model(scs_shards *out, scs_model *m, uint64_t max_len)
{
	split s;
	scs_buf header = SCS_BUF_INIT;
	char fp[33];
	int rc = SCS_OK;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.m = m;
	s.g = m->proto->graph;
	s.max_len = max_len ? max_len : SCS_SPLIT_DEFAULT_LEN;
	s.n_nodes = s.g->n_node;
	if (m->proto->n_training_info) {
		rc = scs_err_set(SCS_EUNSUPPORTED, "%s: models with training_info cannot be split", m->path ? m->path : "model");
		goto done;
	}
	if ((s.uses = calloc(s.n_nodes ? s.n_nodes : 1, sizeof(*s.uses))) == NULL ||
	    (s.replicable = calloc(s.n_nodes ? s.n_nodes : 1, sizeof(int))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the split plan");
		goto done;
	}
	for (size_t i = 0; rc == SCS_OK && i < s.n_nodes; i++) {
		Onnx__NodeProto *n = s.g->node[i];

		s.replicable[i] = scs_node_constant(n) != NULL;
		for (size_t j = 0; rc == SCS_OK && j < n->n_output; j++)
			if (n->output[j][0])
				rc = scs_strmap_put(&s.producer, n->output[j], (int64_t)i);
		if (rc == SCS_OK)
			rc = scs_node_reads(n, &s.uses[i]);
	}
	for (size_t i = 0; rc == SCS_OK && i < s.g->n_initializer; i++)
		if (s.g->initializer[i]->name)
			rc = scs_strmap_put(&s.inits, s.g->initializer[i]->name, (int64_t)i);
	for (size_t i = 0; rc == SCS_OK && i < s.g->n_sparse_initializer; i++)
		if (s.g->sparse_initializer[i]->values && s.g->sparse_initializer[i]->values->name)
			rc = scs_strmap_put(&s.inits, s.g->sparse_initializer[i]->values->name, -1 - (int64_t)i);
	if (rc < 0 || (rc = topo_sort(&s)) < 0 || (rc = scs_infer_graph(&s.inf, m, s.order, s.n_order)) < 0 || (rc = assign(&s)) < 0 ||
	    (rc = plan_shards(&s)) < 0)
		goto done;
	if ((rc = fingerprint(m, fp)) < 0 || (rc = make_header(&s, &header)) < 0)
		goto done;
	if ((out->items = calloc(s.n_shards, sizeof(*out->items))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the shard list");
		goto done;
	}
	for (size_t k = 0; rc == SCS_OK && k < s.n_shards; k++) {
		shard_build b;

		memset(&b, 0, sizeof(b));
		b.s = &s;
		b.k = (int)k;
		if ((rc = scs_model_new_with(&out->items[k], m)) < 0)
			break;
		out->n++;
		if ((rc = new_shard_proto(&s, &b.p)) < 0)
			break;
		out->items[k]->proto = b.p;
		rc = build_graph(&b, fp, (const char *)header.data);
		scs_strmap_dispose(&b.want);
		free(b.want_list.items);
	}
done:
	if (rc < 0)
		scs_shards_dispose(out);
	scs_buf_dispose(&header);
	split_dispose(&s);
	return rc;
}
