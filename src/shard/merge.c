/*
 * merge.c: shards in (see merge.h). The merged graph takes the source's
 * inputs, outputs, opsets and metadata from the shards' header; nodes come
 * in shard order; initializers and Constants that several shards carry
 * become one after their contents are compared.
 *
 * Shards shrunk on their own may hold one constant at two widths (narrowed
 * where a shard's readers allowed it, not where another shard's did not).
 * The wide (original) value then serves a narrowed shard when each of that
 * shard's readers takes the wide type at that input on its own (no other
 * input or output shares its type variable); otherwise the shard keeps its
 * narrow copy under a fresh name. Either way every node reads what it read
 * in its shard or the original, so no decision depends on where cuts fell.
 *
 * SPDX-License-Identifier: MIT
 */
#include "shard/merge.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"
#include "util/base64.h"
#include "util/buf.h"
#include "onnx/dtype.h"
#include "util/err.h"
#include "model/graph.h"
#include "onnx/opschema.h"
#include "model/rename.h"
#include "model/scope.h"
#include "shard/shard.h"
#include "util/strmap.h"

/*
 * Where a shard graph's names are read: first[name] is the first read,
 * next[r] the one after read r (SIZE_MAX: none); a read is input @input of
 * node @node, or (input SIZE_MAX) somewhere in the node's nested graphs.
 * And the shard's outputs by name.
 */
typedef struct readers {
	const Onnx__GraphProto *of;
	scs_strmap first, outputs;
	struct read { size_t node, input, next; } *reads;
	size_t n, cap;
} readers;

typedef struct merge {
	scs_model *out;
	Onnx__GraphProto *g;
	scs_model *const *shards;
	const char *const *labels;
	size_t n;
	size_t *by_index;         /* shard index -> position in shards */
	scs_strmap defined;       /* name -> position of the shard that defined it */
	scs_strmap origin_in;     /* the source's graph inputs */
	scs_strmap all_names;     /* every name any shard uses (for fresh names) */
	scs_strmap wide;          /* int64 / float64 constant name -> index in wide_t */
	Onnx__TensorProto **wide_t;
	Onnx__NodeProto **wide_node;  /* the Constant node of wide_t[i], or NULL */
	size_t n_wide;
	char **fresh;             /* names given to kept narrow copies (owned) */
	const char **fresh_from;  /* the narrow name each fresh name stands for (borrowed) */
	size_t n_fresh;
	scs_strmap inits;         /* merged initializer name -> index in g->initializer */
	scs_strmap makers;        /* merged node output -> index in g->node of its first maker */
	scs_strmap described;     /* names the merged value_info describes */
	scs_strmap annotated;     /* the merged annotations, each packed and in hex (keys owned) */
	readers rd;               /* who reads what in the shard being taken (built when first needed) */
} merge;

#define APPEND(arr, n, item, rc) \
	do { if ((rc = scs_array_insert(&(arr), &(n), (item), 0)) < 0) break; } while (0)

/* A count in plain decimal digits, up to INT_MAX: where it ends, or NULL. */
static const char *
parse_count(const char *p, int *out)
{
	long long v = 0;

	if (*p < '0' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > INT_MAX)
			return NULL;
	*out = (int)v;
	return p;
}

/* A shard tag "k/n" with 0 <= k < n (no signs, spaces or values past int). */
static int
parse_shard_tag(const char *tag, int *k, int *count)
{
	const char *p = parse_count(tag, k);

	return p && *p == '/' && (p = parse_count(p + 1, count)) != NULL && *p == '\0' && *k < *count;
}

/* Shard order from metadata; every check on the set of shards. */
static int
order_shards(merge *mg)
{
	const char *fp0 = NULL, *tag, *fp;
	int k, count;

	if ((mg->by_index = malloc(mg->n * sizeof(size_t))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot order the shards");
	for (size_t i = 0; i < mg->n; i++)
		mg->by_index[i] = (size_t)-1;
	for (size_t i = 0; i < mg->n; i++) {
		const Onnx__ModelProto *p = mg->shards[i]->proto;

		tag = scs_meta_get(p, SCS_META_SHARD);
		fp = scs_meta_get(p, SCS_META_SOURCE);
		if (!tag || !fp || !scs_meta_get(p, SCS_META_HEADER) || !parse_shard_tag(tag, &k, &count))
			return scs_err_set(SCS_ECORRUPT, "%s: not a shard written by scs4onnx-split (no valid %s metadata)",
			    mg->labels[i], SCS_META_SHARD);
		if (fp0 == NULL) {
			fp0 = fp;
		} else if (strcmp(fp, fp0) != 0) {
			return scs_err_set(SCS_ECORRUPT, "%s: a shard of another model (source %s, not %s as %s)", mg->labels[i],
			    fp, fp0, mg->labels[0]);
		}
		if ((size_t)count != mg->n) {
			if ((size_t)count > mg->n) {
				return scs_err_set(SCS_ECORRUPT, "%s: says it is one of %d shards, but %zu are here: a shard is missing",
				    mg->labels[i], count, mg->n);
			}
			return scs_err_set(SCS_ECORRUPT, "%s: says it is one of %d shards, but %zu are here", mg->labels[i], count,
			    mg->n);
		}
		if (mg->by_index[k] != (size_t)-1)
			return scs_err_set(SCS_ECORRUPT, "%s and %s: both are shard %d", mg->labels[mg->by_index[k]],
			    mg->labels[i], k);
		mg->by_index[k] = i;
	}
	return SCS_OK;
}

/* The merged model's frame: the source as the header describes it. */
static int
start_from_header(merge *mg)
{
	const char *text = scs_meta_get(mg->shards[mg->by_index[0]]->proto, SCS_META_HEADER);
	scs_buf raw = SCS_BUF_INIT;
	Onnx__ModelProto *p;
	size_t keep = 0;
	int rc;

	if ((rc = scs_base64_decode(&raw, text)) < 0) {
		scs_buf_dispose(&raw);
		return scs_err_wrap(rc, "%s: shard header", mg->labels[mg->by_index[0]]);
	}
	p = onnx__model_proto__unpack(NULL, raw.len, raw.data);
	scs_buf_dispose(&raw);
	if (p == NULL || p->graph == NULL) {
		if (p)
			onnx__model_proto__free_unpacked(p, NULL);
		return scs_err_set(SCS_ECORRUPT, "%s: the shard header does not parse", mg->labels[mg->by_index[0]]);
	}
	/* the header holds no tensors, so it can live in the merged model as it is */
	mg->out->proto = p;
	mg->g = p->graph;
	for (size_t i = 0; i < p->n_metadata_props; i++) {
		Onnx__StringStringEntryProto *e = p->metadata_props[i];

		if (e->key && strncmp(e->key, SCS_META_PREFIX, strlen(SCS_META_PREFIX)) == 0)
			protobuf_c_message_free_unpacked(&e->base, NULL);
		else
			p->metadata_props[keep++] = e;
	}
	p->n_metadata_props = keep;
	for (size_t i = 0; i < mg->g->n_input; i++)
		if (mg->g->input[i]->name && (rc = scs_strmap_put(&mg->origin_in, mg->g->input[i]->name, 1)) < 0)
			return rc;
	return SCS_OK;
}

/* The merged graph's initializer named @name, or NULL. */
static Onnx__TensorProto *
find_init(const merge *mg, const char *name)
{
	int64_t i;

	return scs_strmap_get(&mg->inits, name, &i) ? mg->g->initializer[i] : NULL;
}

/* The merged graph's first node making @name, or NULL. */
static Onnx__NodeProto *
find_maker(const merge *mg, const char *name)
{
	int64_t i;

	return scs_strmap_get(&mg->makers, name, &i) ? mg->g->node[i] : NULL;
}

/* Append @t to the merged initializers, defined by shard @at. */
static int
add_init(merge *mg, Onnx__TensorProto *t, size_t at)
{
	int rc;

	if ((rc = scs_array_insert(&mg->g->initializer, &mg->g->n_initializer, t, 0)) < 0) {
		scs_model_free_message(mg->out, &t->base);
		return rc;
	}
	if (t->name && !scs_strmap_get(&mg->inits, t->name, NULL) &&
	    (rc = scs_strmap_put(&mg->inits, t->name, (int64_t)mg->g->n_initializer - 1)) < 0)
		return rc;
	return scs_strmap_put(&mg->defined, t->name ? t->name : "", (int64_t)at);
}

/* Append @n to the merged nodes; its outputs are defined by shard @at. */
static int
add_node(merge *mg, Onnx__NodeProto *n, size_t at)
{
	int rc;

	if ((rc = scs_array_insert(&mg->g->node, &mg->g->n_node, n, 0)) < 0) {
		scs_model_free_message(mg->out, &n->base);
		return rc;
	}
	for (size_t j = 0; rc == SCS_OK && j < n->n_output; j++) {
		if (!n->output[j][0])
			continue;
		if (!scs_strmap_get(&mg->makers, n->output[j], NULL) &&
		    (rc = scs_strmap_put(&mg->makers, n->output[j], (int64_t)mg->g->n_node - 1)) < 0)
			return rc;
		rc = scs_strmap_put(&mg->defined, n->output[j], (int64_t)at);
	}
	return rc;
}


/* ---- one constant at two widths ---- */

static int
wide_of(int dt)
{
	return dt == SCS_DT_INT32 ? SCS_DT_INT64 : dt == SCS_DT_FLOAT ? SCS_DT_DOUBLE : 0;
}

static int
collect_names(scs_strmap *names, const Onnx__GraphProto *g)
{
	int rc = SCS_OK;

	for (size_t i = 0; rc == SCS_OK && i < g->n_input; i++)
		if (g->input[i]->name)
			rc = scs_strmap_put(names, g->input[i]->name, 1);
	for (size_t i = 0; rc == SCS_OK && i < g->n_output; i++)
		if (g->output[i]->name)
			rc = scs_strmap_put(names, g->output[i]->name, 1);
	for (size_t i = 0; rc == SCS_OK && i < g->n_initializer; i++)
		if (g->initializer[i]->name)
			rc = scs_strmap_put(names, g->initializer[i]->name, 1);
	for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++) {
		Onnx__NodeProto *n = g->node[i];

		for (size_t j = 0; rc == SCS_OK && j < n->n_input; j++)
			rc = scs_strmap_put(names, n->input[j], 1);
		for (size_t j = 0; rc == SCS_OK && j < n->n_output; j++)
			rc = scs_strmap_put(names, n->output[j], 1);
		for (size_t j = 0; rc == SCS_OK && j < n->n_attribute; j++) {
			Onnx__AttributeProto *a = n->attribute[j];

			if (a->g)
				rc = collect_names(names, a->g);
			for (size_t k = 0; rc == SCS_OK && k < a->n_graphs; k++)
				rc = collect_names(names, a->graphs[k]);
		}
	}
	return rc;
}

/* Every name of every shard, and where each int64 / float64 constant is first held. */
static int
survey(merge *mg)
{
	int rc = SCS_OK;

	for (size_t k = 0; rc == SCS_OK && k < mg->n; k++) {
		const Onnx__GraphProto *g = mg->shards[mg->by_index[k]]->proto->graph;
		size_t count = g->n_initializer + g->n_node;

		if ((rc = collect_names(&mg->all_names, g)) < 0)
			return rc;
		for (size_t i = 0; rc == SCS_OK && i < count; i++) {
			Onnx__NodeProto *n = i < g->n_initializer ? NULL : g->node[i - g->n_initializer];
			Onnx__TensorProto *t = n ? scs_node_constant(n) : g->initializer[i];
			const char *name = n ? (t ? n->output[0] : NULL) : t->name;
			void *grown;

			if (t == NULL || name == NULL || (t->data_type != SCS_DT_INT64 && t->data_type != SCS_DT_DOUBLE) ||
			    scs_strmap_get(&mg->wide, name, NULL))
				continue;
			if ((grown = realloc(mg->wide_t, (mg->n_wide + 1) * sizeof(*mg->wide_t))) == NULL)
				return scs_err_set(SCS_ENOMEM, "cannot list the constants");
			mg->wide_t = grown;
			if ((grown = realloc(mg->wide_node, (mg->n_wide + 1) * sizeof(*mg->wide_node))) == NULL)
				return scs_err_set(SCS_ENOMEM, "cannot list the constants");
			mg->wide_node = grown;
			mg->wide_t[mg->n_wide] = t;
			mg->wide_node[mg->n_wide] = n;
			rc = scs_strmap_put(&mg->wide, name, (int64_t)mg->n_wide++);
		}
	}
	return rc;
}

/* 1 when @narrow (int32 / float32) holds @wide's (int64 / float64) values. */
static int
same_values(merge *mg, const Onnx__TensorProto *narrow, const Onnx__TensorProto *wide)
{
	scs_payloads *set = mg->out->payloads;
	uint32_t in, iw;
	uint64_t len, off;
	size_t take;
	int rc;

	if (wide_of(narrow->data_type) != wide->data_type || narrow->n_dims != wide->n_dims ||
	    (narrow->n_dims && memcmp(narrow->dims, wide->dims, narrow->n_dims * sizeof(*narrow->dims)) != 0) ||
	    !scs_model_payload_of(mg->out, narrow, &in) || !scs_model_payload_of(mg->out, wide, &iw))
		return 0;
	len = set->items[in].key.len;
	if (set->items[iw].key.len != 2 * len)
		return 0;
	for (off = 0; off < len; off += take) {
		take = len - off > SCS_CHUNK_LEN / 2 ? SCS_CHUNK_LEN / 2 : (size_t)(len - off);
		if ((rc = scs_payloads_read(set, in, off, set->piece[0], take)) < 0 ||
		    (rc = scs_payloads_read(set, iw, 2 * off, set->piece[1], 2 * take)) < 0)
			return rc;
		for (size_t k = 0; k + 4 <= take; k += 4) {
			const uint8_t *a = set->piece[0] + k, *b = set->piece[1] + 2 * k;
			uint32_t na = (uint32_t)a[0] | (uint32_t)a[1] << 8 | (uint32_t)a[2] << 16 | (uint32_t)a[3] << 24;
			uint64_t wb = 0;

			for (int j = 7; j >= 0; j--)
				wb = wb << 8 | b[j];
			if (narrow->data_type == SCS_DT_INT32) {
				if ((int64_t)(int32_t)na != (int64_t)wb)
					return 0;
			} else {
				float f;
				double d, w;

				memcpy(&f, &na, 4);
				memcpy(&w, &wb, 8);
				d = (double)f;
				if (memcmp(&d, &w, 8) != 0)
					return 0;
			}
		}
	}
	return 1;
}

static void
readers_dispose(readers *r)
{
	scs_strmap_dispose(&r->first);
	scs_strmap_dispose(&r->outputs);
	free(r->reads);
	memset(r, 0, sizeof(*r));
}

/* Note that node @node reads @name at input @input (SIZE_MAX: in a nested graph). */
static int
add_read(readers *r, const char *name, size_t node, size_t input)
{
	int64_t at;

	if (scs_grow(&r->reads, &r->cap, r->n, sizeof(*r->reads), 64, "the readers") < 0)
		return scs_err_set(SCS_ENOMEM, "cannot index the readers");     /* its own message */
	/* chains run backwards; the answer does not depend on their order */
	r->reads[r->n] = (struct read){ node, input, scs_strmap_get(&r->first, name, &at) ? (size_t)at : SIZE_MAX };
	return scs_strmap_put(&r->first, name, (int64_t)r->n++);
}

/* Index the reads and outputs of shard graph @g (once per shard). */
static int
readers_of(readers *r, const Onnx__GraphProto *g)
{
	int rc = SCS_OK;

	if (r->of == g)
		return SCS_OK;
	readers_dispose(r);
	for (size_t i = 0; rc == SCS_OK && i < g->n_output; i++)
		if (g->output[i]->name)
			rc = scs_strmap_put(&r->outputs, g->output[i]->name, 1);
	for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		int bodies = 0;

		for (size_t j = 0; j < n->n_attribute; j++)
			bodies |= n->attribute[j]->g != NULL || n->attribute[j]->n_graphs > 0;
		if (bodies) {
			scs_names reads = { NULL, 0, 0 };

			rc = scs_node_reads(n, &reads);
			for (size_t j = 0; rc == SCS_OK && j < reads.n; j++)
				rc = add_read(r, reads.items[j], i, SIZE_MAX);
			free(reads.items);
			continue;
		}
		for (size_t j = 0; rc == SCS_OK && j < n->n_input; j++)
			rc = add_read(r, n->input[j], i, j);
	}
	if (rc < 0) {
		readers_dispose(r);
		return rc;
	}
	r->of = g;
	return SCS_OK;
}

/*
 * 1 when every reader of @name in shard graph @g takes element type @wide
 * there as well, alone: a known schema, a type that no other input and no
 * output shares, and no nested graph reading it. <0 on ENOMEM.
 */
static int
wide_serves(merge *mg, const Onnx__GraphProto *g, const char *name, int wide)
{
	readers *r = &mg->rd;
	int64_t first;
	int rc;

	if ((rc = readers_of(r, g)) < 0)
		return rc;
	if (scs_strmap_get(&r->outputs, name, NULL))
		return 0;
	if (!scs_strmap_get(&r->first, name, &first))
		return 1;
	for (size_t at = (size_t)first; at != SIZE_MAX; at = r->reads[at].next) {
		const Onnx__NodeProto *n = g->node[r->reads[at].node];
		size_t j = r->reads[at].input;
		const scs_opschema *s;
		int fi, tv;

		/* a node with nested graphs that reads the name: not looked into */
		if (j == SIZE_MAX)
			return 0;
		if ((s = scs_opschema_find(n->domain, n->op_type,
		    scs_model_opset(mg->out->proto, n->domain ? n->domain : ""))) == NULL)
			return 0;
		if ((fi = scs_opschema_input_formal(s, j)) < 0 ||
		    !(scs_opschema_input_allowed(s, j) & SCS_OPSCHEMA_BIT(wide)))
			return 0;
		if ((tv = s->inputs[fi].type_var) < 0)
			continue;
		if (scs_opschema_typevar_types_output(s, tv))
			return 0;
		for (size_t o = 0; o < n->n_input; o++) {
			int fo = o == j || !n->input[o][0] ? -1 : scs_opschema_input_formal(s, o);

			if (fo >= 0 && s->inputs[fo].type_var == tv)
				return 0;
		}
	}
	return 1;
}

/* What a rename pass knows: the renames, and the names the nested graphs on the way down define. */
typedef struct renamer {
	const scs_strmap *to;     /* from -> index in names */
	char *const *names;
	const scs_strmap **shadow;
	size_t depth, cap;
} renamer;

/* The name @from becomes, or NULL when none (or a nested graph on the way defines it). */
static const char *
renamed(const renamer *r, const char *from)
{
	int64_t i;

	if (!scs_strmap_get(r->to, from, &i))
		return NULL;
	for (size_t d = 0; d < r->depth; d++)
		if (scs_strmap_get(r->shadow[d], from, NULL))
			return NULL;
	return r->names[i];
}

/* References in @g (and the graphs nested in it that do not define the name) renamed by @r. */
static int
rename_reads(Onnx__GraphProto *g, renamer *r, int nested)
{
	scs_strmap defs = SCS_STRMAP_INIT;
	const char *to;
	int rc = SCS_OK;

	if (nested) {
		for (size_t i = 0; rc == SCS_OK && i < g->n_input; i++)
			if (g->input[i]->name)
				rc = scs_strmap_put(&defs, g->input[i]->name, 1);
		for (size_t i = 0; rc == SCS_OK && i < g->n_initializer; i++)
			if (g->initializer[i]->name)
				rc = scs_strmap_put(&defs, g->initializer[i]->name, 1);
		for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++)
			for (size_t j = 0; rc == SCS_OK && j < g->node[i]->n_output; j++)
				rc = scs_strmap_put(&defs, g->node[i]->output[j], 1);
		if (rc == SCS_OK && scs_grow(&r->shadow, &r->cap, r->depth, sizeof(*r->shadow), 8, "the scopes") < 0)
			rc = scs_err_set(SCS_ENOMEM, "cannot rename");     /* its own message */
		if (rc < 0) {
			scs_strmap_dispose(&defs);
			return rc;
		}
		r->shadow[r->depth++] = &defs;
		for (size_t i = 0; rc == SCS_OK && i < g->n_output; i++)
			if (g->output[i]->name && (to = renamed(r, g->output[i]->name)) != NULL)
				rc = scs_name_swap(&g->output[i]->name, to);
	}
	for (size_t i = 0; rc == SCS_OK && i < g->n_node; i++) {
		Onnx__NodeProto *n = g->node[i];

		for (size_t j = 0; rc == SCS_OK && j < n->n_input; j++)
			if ((to = renamed(r, n->input[j])) != NULL)
				rc = scs_name_swap(&n->input[j], to);
		for (size_t j = 0; rc == SCS_OK && j < n->n_attribute; j++) {
			Onnx__AttributeProto *a = n->attribute[j];

			if (a->g)
				rc = rename_reads(a->g, r, 1);
			for (size_t k = 0; rc == SCS_OK && k < a->n_graphs; k++)
				rc = rename_reads(a->graphs[k], r, 1);
		}
	}
	if (nested) {
		r->depth--;
		scs_strmap_dispose(&defs);
	}
	return rc;
}

/* 1 when @name is in the name set @p (a scs_strmap). */
static int
name_taken(void *p, const char *name)
{
	return scs_strmap_get(p, name, NULL);
}

/*
 * Settle constant @name, held narrow as *@t by shard graph @src: *@t becomes
 * the wide tensor (and *@node its Constant node) when that serves the
 * shard, or *@fresh_name the name the narrow copy keeps. 0 when @name is
 * not such a constant; 1 when settled.
 */
static int
settle_width(merge *mg, const Onnx__GraphProto *src, const char *name, Onnx__TensorProto **t, Onnx__NodeProto **node,
    const char **fresh_name)
{
	int64_t w;
	char *fresh, **grown;
	int eq, rc;

	*fresh_name = NULL;
	if (!wide_of((*t)->data_type) || !scs_strmap_get(&mg->wide, name, &w))
		return 0;
	if ((eq = same_values(mg, *t, mg->wide_t[w])) <= 0)
		return eq;
	if ((rc = wide_serves(mg, src, name, mg->wide_t[w]->data_type)) < 0)
		return rc;
	if (rc) {
		*t = mg->wide_t[w];
		if (node)
			*node = mg->wide_node[w];
		return 1;
	}
	if ((fresh = scs_fresh_name(name, "_scs", name_taken, &mg->all_names, 0)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name");
	if ((grown = realloc(mg->fresh, (mg->n_fresh + 1) * sizeof(*grown))) == NULL) {
		free(fresh);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name");
	}
	mg->fresh = grown;
	mg->fresh[mg->n_fresh] = fresh;
	if ((grown = realloc(mg->fresh_from, (mg->n_fresh + 1) * sizeof(*mg->fresh_from))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a name");
	mg->fresh_from = (const char **)grown;
	mg->fresh_from[mg->n_fresh++] = name;
	if ((rc = scs_strmap_put(&mg->all_names, fresh, 1)) < 0)
		return rc;
	*fresh_name = fresh;
	return 1;
}

/* value_info of a constant says what the merged constant is. */
static void
retype_value_info(merge *mg)
{
	Onnx__GraphProto *g = mg->g;

	for (size_t i = 0; i < g->n_value_info; i++) {
		Onnx__ValueInfoProto *vi = g->value_info[i];
		Onnx__TensorProto *t = vi->name ? find_init(mg, vi->name) : NULL;
		Onnx__NodeProto *n;

		if (t == NULL && vi->name && (n = find_maker(mg, vi->name)) != NULL)
			t = scs_node_constant(n);
		if (t && vi->type && vi->type->tensor_type)
			vi->type->tensor_type->elem_type = t->data_type;
	}
}

/*
 * 1 when the merged graph holds an annotation packed like @a already;
 * otherwise 0, and @a's packing is remembered as held.
 */
static int
annotation_held(merge *mg, const Onnx__TensorAnnotation *a)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = protobuf_c_message_get_packed_size(&a->base);
	uint8_t *packed = malloc(len ? len : 1);
	char *key = malloc(2 * len + 1);
	int rc;

	if (packed == NULL || key == NULL) {
		free(packed);
		free(key);
		return scs_err_set(SCS_ENOMEM, "cannot compare an annotation");
	}
	protobuf_c_message_pack(&a->base, packed);
	for (size_t i = 0; i < len; i++) {
		key[2 * i] = hex[packed[i] >> 4];
		key[2 * i + 1] = hex[packed[i] & 15];
	}
	key[2 * len] = '\0';
	free(packed);
	if (scs_strmap_get(&mg->annotated, key, NULL)) {
		free(key);
		return 1;
	}
	if ((rc = scs_strmap_put(&mg->annotated, key, 1)) < 0)
		free(key);
	return rc < 0 ? rc : 0;
}

static int
take_shard(merge *mg, size_t k)
{
	size_t at = mg->by_index[k];
	scs_model *sh = mg->shards[at];
	Onnx__GraphProto *src = sh->proto->graph;
	ProtobufCMessage *copy;
	size_t fresh_at = mg->n_fresh, node_at = mg->g->n_node;
	scs_strmap own = SCS_STRMAP_INIT;
	int64_t where;
	int rc = SCS_OK;

	/* every input is an input of the source, made by an earlier shard or held by this one */
	for (size_t i = 0; rc == SCS_OK && i < src->n_initializer; i++)
		if (src->initializer[i]->name)
			rc = scs_strmap_put(&own, src->initializer[i]->name, 1);
	for (size_t i = 0; rc == SCS_OK && i < src->n_input; i++) {
		const char *name = src->input[i]->name;

		if (!name || scs_strmap_get(&mg->origin_in, name, NULL) || scs_strmap_get(&mg->defined, name, NULL) ||
		    scs_strmap_get(&own, name, NULL))
			continue;
		rc = scs_err_set(SCS_ECORRUPT, "%s: input '%s' is neither an input of the model nor made by an earlier shard",
		    mg->labels[at], name);
	}
	scs_strmap_dispose(&own);
	if (rc < 0)
		return rc;
	for (size_t i = 0; rc == SCS_OK && i < src->n_initializer; i++) {
		Onnx__TensorProto *t = src->initializer[i], *had;
		const char *fresh;
		int settled;

		if (!t->name)
			continue;
		if ((settled = settle_width(mg, src, t->name, &t, NULL, &fresh)) < 0)
			return settled;
		if (settled && (fresh || strcmp(t->name ? t->name : "", src->initializer[i]->name) != 0)) {
			/* the narrow copy under a fresh name, or the wide value held by a Constant elsewhere */
			const char *name = fresh ? fresh : src->initializer[i]->name;

			if (!fresh && find_init(mg, name))
				continue;
			if ((copy = (ProtobufCMessage *)scs_tensor_copy_named(mg->out, t, name)) == NULL)
				return scs_err_set(SCS_ENOMEM, "cannot copy a constant");
			rc = add_init(mg, (Onnx__TensorProto *)copy, at);
			continue;
		}
		if ((had = find_init(mg, t->name)) != NULL) {
			int eq = scs_tensors_equal(mg->out, had, t);

			if (eq < 0)
				return eq;
			if (!eq) {
				scs_strmap_get(&mg->defined, t->name, &where);
				return scs_err_set(SCS_ECORRUPT, "initializer '%s' differs between %s and %s", t->name,
				    mg->labels[where], mg->labels[at]);
			}
			continue;
		}
		if ((copy = scs_model_copy_kept(mg->out, &t->base)) == NULL)
			return SCS_ENOMEM;
		rc = add_init(mg, (Onnx__TensorProto *)copy, at);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_sparse_initializer; i++) {
		if ((copy = scs_model_copy_kept(mg->out, &src->sparse_initializer[i]->base)) == NULL)
			return SCS_ENOMEM;
		APPEND(mg->g->sparse_initializer, mg->g->n_sparse_initializer, (Onnx__SparseTensorProto *)copy, rc);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_node; i++) {
		Onnx__NodeProto *n = src->node[i], *had, *wide_node = NULL;
		Onnx__TensorProto *value = scs_node_constant(n), *settled_t = value;
		const char *fresh = NULL;
		int settled = 0;

		if (value && (settled = settle_width(mg, src, n->output[0], &settled_t, &wide_node, &fresh)) < 0)
			return settled;
		if (settled && !fresh && wide_node)
			n = wide_node, value = settled_t;
		if (settled && (fresh || !wide_node)) {
			/* the narrow copy under a fresh name, or the wide value an initializer holds elsewhere */
			Onnx__NodeProto *c;
			Onnx__TensorProto *tv;

			if (!fresh && find_maker(mg, n->output[0]))
				continue;
			if ((c = (Onnx__NodeProto *)scs_model_copy_kept(mg->out, &n->base)) == NULL)
				return SCS_ENOMEM;
			if (fresh) {
				scs_arena_release(c->output[0]);
				c->output[0] = strdup(fresh);
			} else if ((tv = scs_tensor_copy_named(mg->out, settled_t, value->name ? value->name : "")) != NULL) {
				scs_model_free_message(mg->out, &c->attribute[0]->t->base);
				c->attribute[0]->t = tv;
			} else {
				c->output[0][0] = '\0';
			}
			if (c->output[0] == NULL || c->output[0][0] == '\0') {
				scs_model_free_message(mg->out, &c->base);
				return scs_err_set(SCS_ENOMEM, "cannot copy a constant");
			}
			rc = add_node(mg, c, at);
			continue;
		}
		if (value && (had = find_maker(mg, n->output[0])) != NULL) {
			Onnx__TensorProto *old = scs_node_constant(had);
			int eq = old ? scs_tensors_equal(mg->out, old, value) : 0;

			if (eq < 0)
				return eq;
			if (!eq) {
				scs_strmap_get(&mg->defined, n->output[0], &where);
				return scs_err_set(SCS_ECORRUPT, "constant '%s' differs between %s and %s", n->output[0],
				    mg->labels[where], mg->labels[at]);
			}
			continue;
		}
		for (size_t j = 0; j < n->n_output; j++) {
			if (n->output[j][0] && scs_strmap_get(&mg->defined, n->output[j], &where) && !value)
				return scs_err_set(SCS_ECORRUPT, "'%s' is made both in %s and in %s", n->output[j], mg->labels[where],
				    mg->labels[at]);
		}
		if ((copy = scs_model_copy_kept(mg->out, &n->base)) == NULL)
			return SCS_ENOMEM;
		/* Constants lead their shard; they keep leading when merged */
		rc = add_node(mg, (Onnx__NodeProto *)copy, at);
	}
	/* this shard's readers of a narrow copy kept apart read it under its fresh name */
	if (rc == SCS_OK && fresh_at < mg->n_fresh) {
		scs_strmap to = SCS_STRMAP_INIT;
		renamer r = { &to, mg->fresh, NULL, 0, 0 };
		Onnx__GraphProto part;

		for (size_t f = fresh_at; rc == SCS_OK && f < mg->n_fresh; f++)
			if (!scs_strmap_get(&to, mg->fresh_from[f], NULL))
				rc = scs_strmap_put(&to, mg->fresh_from[f], (int64_t)f);
		onnx__graph_proto__init(&part);
		part.node = mg->g->node + node_at;
		part.n_node = mg->g->n_node - node_at;
		if (rc == SCS_OK)
			rc = rename_reads(&part, &r, 0);
		free(r.shadow);
		scs_strmap_dispose(&to);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_value_info; i++) {
		const char *name = src->value_info[i]->name;

		if (name && scs_strmap_get(&mg->described, name, NULL))
			continue;
		if ((copy = scs_model_copy_kept(mg->out, &src->value_info[i]->base)) == NULL)
			return SCS_ENOMEM;
		APPEND(mg->g->value_info, mg->g->n_value_info, (Onnx__ValueInfoProto *)copy, rc);
		if (rc == SCS_OK && name)
			rc = scs_strmap_put(&mg->described, ((Onnx__ValueInfoProto *)copy)->name, 1);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_quantization_annotation; i++) {
		/* split gives each shard the annotations of what it holds: keep one of each */
		int held = annotation_held(mg, src->quantization_annotation[i]);

		if (held < 0)
			return held;
		if (held)
			continue;
		if ((copy = scs_model_copy_kept(mg->out, &src->quantization_annotation[i]->base)) == NULL)
			return SCS_ENOMEM;
		APPEND(mg->g->quantization_annotation, mg->g->n_quantization_annotation, (Onnx__TensorAnnotation *)copy, rc);
	}
	/* functions: each (domain, name) once */
	for (size_t i = 0; rc == SCS_OK && i < sh->proto->n_functions; i++) {
		Onnx__FunctionProto *f = sh->proto->functions[i];
		int dup = 0;

		for (size_t j = 0; j < mg->out->proto->n_functions; j++) {
			Onnx__FunctionProto *h = mg->out->proto->functions[j];

			dup |= h->name && f->name && strcmp(h->name, f->name) == 0 &&
			    strcmp(h->domain ? h->domain : "", f->domain ? f->domain : "") == 0 &&
			    strcmp(h->overload ? h->overload : "", f->overload ? f->overload : "") == 0;
		}
		if (dup)
			continue;
		if ((copy = scs_model_copy_kept(mg->out, &f->base)) == NULL)
			return SCS_ENOMEM;
		APPEND(mg->out->proto->functions, mg->out->proto->n_functions, (Onnx__FunctionProto *)copy, rc);
	}
	return rc;
}

/* Every output of the source is made by some shard (or is an input or initializer). */
static int
check_outputs(merge *mg)
{
	for (size_t i = 0; i < mg->g->n_output; i++) {
		const char *name = mg->g->output[i]->name;

		if (name && !scs_strmap_get(&mg->defined, name, NULL) && !scs_strmap_get(&mg->origin_in, name, NULL))
			return scs_err_set(SCS_ECORRUPT, "output '%s' of the model is made by no shard", name);
	}
	return SCS_OK;
}

int
scs_merge_models(scs_model **out, scs_model *const *shards, const char *const *labels, size_t n)
{
	merge mg;
	int rc;

	*out = NULL;
	if (n == 0)
		return scs_err_set(SCS_EUSAGE, "no shards to merge");
	memset(&mg, 0, sizeof(mg));
	mg.shards = shards;
	mg.labels = labels;
	mg.n = n;
	if ((rc = order_shards(&mg)) < 0 || (rc = scs_model_new_with(&mg.out, shards[0])) < 0 ||
	    (rc = start_from_header(&mg)) < 0 || (rc = survey(&mg)) < 0)
		goto done;
	for (size_t k = 0; rc == SCS_OK && k < n; k++)
		rc = take_shard(&mg, k);
	if (rc == SCS_OK)
		rc = check_outputs(&mg);
	if (rc == SCS_OK)
		retype_value_info(&mg);
	/* shards arrive sorted, but other tools may have reordered a shard's nodes */
	if (rc == SCS_OK)
		rc = scs_graph_sort(mg.g, "merged model");
done:
	if (rc < 0) {
		scs_model_free(mg.out);
		mg.out = NULL;
	}
	*out = mg.out;
	free(mg.by_index);
	scs_strmap_dispose(&mg.defined);
	scs_strmap_dispose(&mg.inits);
	scs_strmap_dispose(&mg.makers);
	scs_strmap_dispose(&mg.described);
	for (size_t i = 0; i < mg.annotated.cap; i++)
		free((char *)mg.annotated.keys[i]);
	scs_strmap_dispose(&mg.annotated);
	readers_dispose(&mg.rd);
	scs_strmap_dispose(&mg.origin_in);
	scs_strmap_dispose(&mg.all_names);
	scs_strmap_dispose(&mg.wide);
	free(mg.wide_t);
	free(mg.wide_node);
	for (size_t i = 0; i < mg.n_fresh; i++)
		free(mg.fresh[i]);
	free(mg.fresh);
	free(mg.fresh_from);
	return rc;
}
