/*
 * eliminate_common_subexpression.c: a node that computes what an earlier
 * node of the same graph computes (same operator, domain, overload,
 * attributes and inputs) removed, its readers reading the earlier node's
 * outputs; in every graph and nested body.
 *
 * Each scope's nodes are visited in topological order and keyed by a
 * 64-bit digest of their canonical form: the operator, the inputs as the
 * values they name (a value already merged away counts as the one that
 * replaced it, so chains of equal nodes go in one walk), the outputs that
 * are present, and the attributes sorted by name. Tensor attributes enter
 * by element type, dims and their payload's content key; equal digests are
 * confirmed by comparing the nodes field by field, and tensor payloads
 * byte for byte in pieces, so a collision never merges. One table for the
 * whole model: linear in the node count.
 *
 * Never merged: nodes of other domains or without a known schema (their
 * effects are unknown), random operators (RandomNormal, RandomUniform and
 * their Like forms, Multinomial, Bernoulli), Dropout that may be in
 * training mode, nodes with graph, sparse tensor or type attributes or
 * attributes that refer to a function's. Only nodes of one scope merge,
 * so what a nested graph reads never changes. When the later node's
 * output must keep its name (a graph output), the earlier node makes the
 * value under that name instead; when both must keep theirs, both stay.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>
#include <string.h>

#include "io/payload.h"
#include "model/model.h"
#include "onnx/attr.h"
#include "opt/opt.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/strmap.h"

#define MAX_ATTRS 64

typedef struct entry {
	uint64_t h;
	int scope;
	Onnx__NodeProto *node;              /* NULL: a free slot */
} entry;

typedef struct cse {
	scs_opt_ctx *ctx;
	entry *tab;
	size_t cap, n;                      /* cap: a power of two */
	scs_strmap *canon;                  /* per scope: a merged-away value -> its index in names */
	const char **names;                 /* the values they equal */
	size_t n_names, cap_names;
	scs_buf key;                        /* the canonical form being digested */
	int *changed;
} cse;

/* ---- what may merge ---- */

static int
is_random(const char *op)
{
	static const char *const ops[] = { "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
		"Multinomial", "Bernoulli" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(op, ops[i]) == 0)
			return 1;
	return 0;
}

/* 1 when @node's outputs follow from its inputs and attributes alone, as far as the cheap checks tell. */
static int
candidate(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node)
{
	int any = 0;

	if (!node->op_type || !scs_is_onnx_domain(node->domain) || is_random(node->op_type))
		return 0;
	if (strcmp(node->op_type, "Dropout") == 0) {
		int64_t opset = scs_opt_opset(ctx, scope, node->domain);

		if (opset < 7 ? scs_attr_int(node, "is_test", 0) == 0 : opset >= 12 && node->n_input > 2 &&
		    node->input[2][0])
			return 0;
	}
	if (node->n_attribute > MAX_ATTRS)
		return 0;
	for (size_t i = 0; i < node->n_attribute; i++) {
		const Onnx__AttributeProto *a = node->attribute[i];

		if (!a->name || (a->ref_attr_name && a->ref_attr_name[0]))
			return 0;
		switch (a->type) {
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
			if (!a->t)
				return 0;
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
			break;
		default:
			return 0;       /* graphs, sparse tensors, types, an absent type */
		}
	}
	for (size_t i = 0; i < node->n_output; i++)
		any |= node->output[i][0] != '\0';
	return any;
}

/* ---- values ---- */

/* The value @name read from @scope stands for: the node output it was found equal to, or itself; *def its scope. */
static const char *
canonical(const cse *c, int scope, const char *name, int *def)
{
	int64_t v;

	*def = name[0] ? scs_opt_def_scope(c->ctx, scope, name) : -1;
	if (*def >= 0 && scs_strmap_get(&c->canon[*def], name, &v))
		return c->names[v];
	return name;
}

static int
set_canonical(cse *c, int scope, const char *name, const char *to)
{
	int rc;

	if ((rc = scs_grow(&c->names, &c->cap_names, c->n_names, sizeof(*c->names), 64, "the merged values")) < 0)
		return rc;
	c->names[c->n_names] = to;
	return scs_strmap_put(&c->canon[scope], name, (int64_t)c->n_names++);
}

/* ---- the canonical form ---- */

static int
attr_cmp(const void *a, const void *b)
{
	return strcmp((*(const Onnx__AttributeProto *const *)a)->name, (*(const Onnx__AttributeProto *const *)b)->name);
}

/* @node's attributes into @out, sorted by name. */
static void
sorted_attrs(const Onnx__NodeProto *node, const Onnx__AttributeProto **out)
{
	for (size_t i = 0; i < node->n_attribute; i++)
		out[i] = node->attribute[i];
	qsort(out, node->n_attribute, sizeof(*out), attr_cmp);
}

static int
add_u64(scs_buf *b, uint64_t v)
{
	return scs_buf_add(b, &v, sizeof(v));
}

static int
add_bytes(scs_buf *b, const void *p, size_t len)
{
	int rc = add_u64(b, len);

	return rc < 0 || len == 0 ? rc : scs_buf_add(b, p, len);
}

static int
add_tensor(cse *c, const Onnx__TensorProto *t)
{
	scs_buf *b = &c->key;
	scs_key k;
	uint32_t id;
	int rc;

	if ((rc = add_u64(b, (uint64_t)t->data_type)) < 0 || (rc = add_bytes(b, t->dims, t->n_dims * sizeof(*t->dims))) < 0)
		return rc;
	if (scs_model_payload_of(c->ctx->m, t, &id)) {
		if ((rc = scs_payloads_key(c->ctx->m->payloads, id, &k)) < 0)
			return rc;
		return scs_buf_add(b, &k, sizeof(k));
	}
	for (size_t i = 0; i < t->n_string_data; i++)
		if ((rc = add_bytes(b, t->string_data[i].data, t->string_data[i].len)) < 0)
			return rc;
	return SCS_OK;
}

static int
add_attr(cse *c, const Onnx__AttributeProto *a)
{
	scs_buf *b = &c->key;
	int rc;

	if ((rc = add_bytes(b, a->name, strlen(a->name) + 1)) < 0 || (rc = add_u64(b, (uint64_t)a->type)) < 0)
		return rc;
	switch (a->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return scs_buf_add(b, &a->f, sizeof(a->f));
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return add_u64(b, (uint64_t)a->i);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return add_bytes(b, a->s.data, a->s.len);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return add_bytes(b, a->floats, a->n_floats * sizeof(float));
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return add_bytes(b, a->ints, a->n_ints * sizeof(int64_t));
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
		rc = add_u64(b, a->n_strings);
		for (size_t i = 0; rc == SCS_OK && i < a->n_strings; i++)
			rc = add_bytes(b, a->strings[i].data, a->strings[i].len);
		return rc;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return add_tensor(c, a->t);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
		rc = add_u64(b, a->n_tensors);
		for (size_t i = 0; rc == SCS_OK && i < a->n_tensors; i++)
			rc = add_tensor(c, a->tensors[i]);
		return rc;
	default:
		return SCS_OK;
	}
}

static int
add_str(scs_buf *b, const char *s)
{
	return add_bytes(b, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* The digest of @node's canonical form into *h. */
static int
digest(cse *c, int scope, const Onnx__NodeProto *node, uint64_t *h)
{
	const Onnx__AttributeProto *attrs[MAX_ATTRS];
	scs_buf *b = &c->key;
	const char *name;
	int def, rc;

	b->len = 0;
	if ((rc = add_str(b, node->op_type)) < 0 || (rc = add_str(b, scs_is_onnx_domain(node->domain) ? "" :
	    node->domain)) < 0 || (rc = add_str(b, node->overload)) < 0 || (rc = add_u64(b, node->n_input)) < 0)
		return rc;
	for (size_t i = 0; i < node->n_input; i++) {
		name = canonical(c, scope, node->input[i], &def);
		if ((rc = add_u64(b, (uint64_t)(int64_t)def)) < 0 || (rc = add_str(b, name)) < 0)
			return rc;
	}
	if ((rc = add_u64(b, node->n_output)) < 0)
		return rc;
	for (size_t i = 0; i < node->n_output; i++)
		if ((rc = scs_buf_add(b, node->output[i][0] ? "1" : "0", 1)) < 0)
			return rc;
	sorted_attrs(node, attrs);
	for (size_t i = 0; i < node->n_attribute; i++)
		if ((rc = add_attr(c, attrs[i])) < 0)
			return rc;
	*h = scs_hash64(b->data, b->len);
	return SCS_OK;
}

/* ---- equality ---- */

static int
same_bytes(const void *a, size_t na, const void *b, size_t nb)
{
	return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

static int
same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* 1 when attributes @a and @b (same name) hold the same value, 0 when not, < 0 on error. */
static int
same_attr(cse *c, const Onnx__AttributeProto *a, const Onnx__AttributeProto *b)
{
	int r;

	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return memcmp(&a->f, &b->f, sizeof(a->f)) == 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return a->i == b->i;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return same_bytes(a->s.data, a->s.len, b->s.data, b->s.len);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		return same_bytes(a->floats, a->n_floats * sizeof(float), b->floats, b->n_floats * sizeof(float));
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		return same_bytes(a->ints, a->n_ints * sizeof(int64_t), b->ints, b->n_ints * sizeof(int64_t));
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
		if (a->n_strings != b->n_strings)
			return 0;
		for (size_t i = 0; i < a->n_strings; i++)
			if (!same_bytes(a->strings[i].data, a->strings[i].len, b->strings[i].data, b->strings[i].len))
				return 0;
		return 1;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
		return scs_tensors_equal(c->ctx->m, a->t, b->t);
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
		if (a->n_tensors != b->n_tensors)
			return 0;
		for (size_t i = 0; i < a->n_tensors; i++)
			if ((r = scs_tensors_equal(c->ctx->m, a->tensors[i], b->tensors[i])) <= 0)
				return r;
		return 1;
	default:
		return 0;
	}
}

/* 1 when nodes @a and @b of @scope compute the same, 0 when not, < 0 on error. */
static int
same_node(cse *c, int scope, const Onnx__NodeProto *a, const Onnx__NodeProto *b)
{
	const Onnx__AttributeProto *aa[MAX_ATTRS], *ba[MAX_ATTRS];
	int da, db, r;

	if (!same_str(a->op_type, b->op_type) || scs_is_onnx_domain(a->domain) != scs_is_onnx_domain(b->domain) ||
	    !same_str(a->overload, b->overload) || a->n_input != b->n_input || a->n_output != b->n_output ||
	    a->n_attribute != b->n_attribute)
		return 0;
	for (size_t i = 0; i < a->n_input; i++)
		if (strcmp(canonical(c, scope, a->input[i], &da), canonical(c, scope, b->input[i], &db)) != 0 || da != db)
			return 0;
	for (size_t i = 0; i < a->n_output; i++)
		if ((a->output[i][0] == '\0') != (b->output[i][0] == '\0'))
			return 0;
	sorted_attrs(a, aa);
	sorted_attrs(b, ba);
	for (size_t i = 0; i < a->n_attribute; i++) {
		if (strcmp(aa[i]->name, ba[i]->name) != 0)
			return 0;
		if ((r = same_attr(c, aa[i], ba[i])) <= 0)
			return r;
	}
	return 1;
}

/* ---- the table ---- */

static int
grow(cse *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024;
	entry *t = calloc(cap, sizeof(*t));

	if (t == NULL)
		return scs_err_set(SCS_ENOMEM, "eliminate_common_subexpression: cannot grow the table of nodes");
	for (size_t i = 0; i < c->cap; i++) {
		size_t k;

		if (!c->tab[i].node)
			continue;
		for (k = c->tab[i].h & (cap - 1); t[k].node; k = (k + 1) & (cap - 1))
			;
		t[k] = c->tab[i];
	}
	free(c->tab);
	c->tab = t;
	c->cap = cap;
	return SCS_OK;
}

/*
 * The earlier node of @scope that @node equals into *@found (NULL: none;
 * @node is entered instead). < 0 on error.
 */
static int
lookup(cse *c, int scope, Onnx__NodeProto *node, Onnx__NodeProto **found)
{
	uint64_t h;
	size_t k;
	int r;

	*found = NULL;
	if ((r = digest(c, scope, node, &h)) < 0)
		return r;
	if ((c->n + 1) * 2 > c->cap && (r = grow(c)) < 0)
		return r;
	for (k = h & (c->cap - 1); c->tab[k].node; k = (k + 1) & (c->cap - 1)) {
		if (c->tab[k].h != h || c->tab[k].scope != scope)
			continue;
		if ((r = same_node(c, scope, c->tab[k].node, node)) < 0)
			return r;
		if (r) {
			*found = c->tab[k].node;
			return SCS_OK;
		}
	}
	c->tab[k] = (entry){ h, scope, node };
	c->n++;
	return SCS_OK;
}

/* ---- merging ---- */

/* Make @node's readers read what @first makes, and drop @node: 1 when queued, 0 when refused, < 0 on error. */
static int
merge(cse *c, int scope, Onnx__NodeProto *first, Onnx__NodeProto *node)
{
	scs_opt_ctx *ctx = c->ctx;
	size_t n_out = 0, pinned = 0, at = 0;
	char why[512];
	int r;

	for (size_t i = 0; i < node->n_output; i++) {
		if (!node->output[i][0])
			continue;
		n_out++;
		if (scs_opt_is_pinned(ctx, scope, node->output[i])) {
			pinned++;
			at = i;
		}
	}
	if (pinned) {
		/* the output keeps its name: the first node makes the value under it */
		if (n_out > 1)
			return scs_opt_refuse(ctx, scope, node, "it computes what '%s' computes, but its output '%s' "
			    "must keep its name and it has other outputs", first->name ? first->name : "", node->output[at]);
		if (scs_opt_is_pinned(ctx, scope, first->output[at]))
			return scs_opt_refuse(ctx, scope, node, "it computes what '%s' computes, but '%s' and '%s' "
			    "must both keep their names", first->name ? first->name : "", first->output[at],
			    node->output[at]);
		if ((r = scs_opt_rename_def(ctx, scope, &first->output[at], node->output[at], why, sizeof(why))) <= 0)
			return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, node, "%s", why) : 0;
		if ((r = scs_opt_drop_node(ctx, scope, node)) < 0)
			return r;
		return scs_opt_did(ctx, scope, node, "removed: it computes what '%s' computes, which now makes '%s'",
		    first->name ? first->name : "", node->output[at]) < 0 ? -1 : 1;
	}
	for (size_t i = 0; i < node->n_output; i++) {
		if (!node->output[i][0])
			continue;
		if ((r = scs_opt_rename(ctx, scope, node->output[i], first->output[i], why, sizeof(why))) <= 0)
			return r < 0 ? r : why[0] ? scs_opt_refuse(ctx, scope, node, "%s", why) : 0;
	}
	if ((r = scs_opt_drop_node(ctx, scope, node)) < 0)
		return r;
	return scs_opt_did(ctx, scope, node, "removed: it computes what '%s' computes; its readers read '%s'",
	    first->name ? first->name : "", first->output[0]) < 0 ? -1 : 1;
}

static int
one(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload)
{
	cse *c = payload;
	Onnx__NodeProto *first;
	int r;

	if (!candidate(ctx, scope, node))
		return SCS_OK;
	if ((r = lookup(c, scope, node, &first)) < 0 || first == NULL)
		return r;
	if ((r = scs_opt_is_op(ctx, scope, node, node->op_type)) <= 0)
		return r;
	/* equal values from here on, merged or not: later nodes reading them compare as reading the same */
	for (size_t i = 0; i < node->n_output; i++)
		if (node->output[i][0] && (r = set_canonical(c, scope, node->output[i], canonical(c, scope,
		    first->output[i], &(int){ 0 }))) < 0)
			return r;
	if ((r = merge(c, scope, first, node)) < 0)
		return r;
	if (r)
		*c->changed = 1;
	return SCS_OK;
}

int
scs_opt_eliminate_common_subexpression(scs_opt_ctx *ctx, int *changed)
{
	cse c = { .ctx = ctx, .changed = changed, .key = SCS_BUF_INIT };
	int rc;

	if ((c.canon = calloc(ctx->scopes.n ? ctx->scopes.n : 1, sizeof(*c.canon))) == NULL)
		return scs_err_set(SCS_ENOMEM, "eliminate_common_subexpression: cannot allocate");
	rc = scs_opt_each_node(ctx, one, &c);
	for (size_t s = 0; s < ctx->scopes.n; s++)
		scs_strmap_dispose(&c.canon[s]);
	free(c.canon);
	free(c.names);
	free(c.tab);
	scs_buf_dispose(&c.key);
	return rc;
}
