/*
 * merge.c: shards in (see merge.h). The merged graph takes the source's
 * inputs, outputs, opsets and metadata from the shards' header; nodes come
 * in shard order; initializers and Constants that several shards carry
 * become one after their contents are compared.
 */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "err.h"
#include "graph.h"
#include "split.h"

typedef struct merge {
	scs_model *out;
	Onnx__GraphProto *g;
	scs_model *const *shards;
	const char *const *labels;
	size_t n;
	size_t *by_index;         /* shard index -> position in shards */
	scs_strmap defined;       /* name -> position of the shard that defined it */
	scs_strmap origin_in;     /* the source's graph inputs */
} merge;

#define APPEND(arr, n, item, rc) \
	do { if ((rc = scs_array_insert(&(arr), &(n), (item), 0)) < 0) break; } while (0)

/* Shard order from metadata; every check on the set of shards. */
static int
order_shards(merge *mg)
{
	const char *fp0 = NULL, *tag, *fp;
	int k, count, used;

	if ((mg->by_index = malloc(mg->n * sizeof(size_t))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot order the shards");
	for (size_t i = 0; i < mg->n; i++)
		mg->by_index[i] = (size_t)-1;
	for (size_t i = 0; i < mg->n; i++) {
		const Onnx__ModelProto *p = mg->shards[i]->proto;

		tag = scs_meta_get(p, SCS_META_SHARD);
		fp = scs_meta_get(p, SCS_META_SOURCE);
		if (!tag || !fp || !scs_meta_get(p, SCS_META_HEADER) || sscanf(tag, "%d/%d%n", &k, &count, &used) != 2 ||
		    tag[used] != '\0' || k < 0 || count <= 0 || k >= count)
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

	if ((rc = scs_base64_decode(&raw, text)) < 0)
		return scs_err_wrap(rc, "%s: shard header", mg->labels[mg->by_index[0]]);
	p = onnx__model_proto__unpack(NULL, raw.len, raw.data);
	scs_buf_dispose(&raw);
	if (p == NULL || p->graph == NULL)
		return scs_err_set(SCS_ECORRUPT, "%s: the shard header does not parse", mg->labels[mg->by_index[0]]);
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

static Onnx__TensorProto *
find_init(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name && strcmp(g->initializer[i]->name, name) == 0)
			return g->initializer[i];
	return NULL;
}

static Onnx__NodeProto *
find_maker(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_node; i++)
		for (size_t j = 0; j < g->node[i]->n_output; j++)
			if (strcmp(g->node[i]->output[j], name) == 0)
				return g->node[i];
	return NULL;
}

static int
take_shard(merge *mg, size_t k)
{
	size_t at = mg->by_index[k];
	scs_model *sh = mg->shards[at];
	Onnx__GraphProto *src = sh->proto->graph;
	ProtobufCMessage *copy;
	int64_t where;
	int rc = SCS_OK;

	/* every input is an input of the source or made by an earlier shard */
	for (size_t i = 0; i < src->n_input; i++) {
		const char *name = src->input[i]->name;

		if (!name || scs_strmap_get(&mg->origin_in, name, NULL) || scs_strmap_get(&mg->defined, name, NULL) ||
		    find_init(src, name))
			continue;
		return scs_err_set(SCS_ECORRUPT, "%s: input '%s' is neither an input of the model nor made by an earlier shard",
		    mg->labels[at], name);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_initializer; i++) {
		Onnx__TensorProto *t = src->initializer[i], *had;

		if (!t->name)
			continue;
		if ((had = find_init(mg->g, t->name)) != NULL) {
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
		if ((copy = scs_model_copy(mg->out, &t->base)) == NULL)
			return SCS_ENOMEM;
		APPEND(mg->g->initializer, mg->g->n_initializer, (Onnx__TensorProto *)copy, rc);
		if (rc == SCS_OK)
			rc = scs_strmap_put(&mg->defined, ((Onnx__TensorProto *)copy)->name, (int64_t)at);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_sparse_initializer; i++) {
		if ((copy = scs_model_copy(mg->out, &src->sparse_initializer[i]->base)) == NULL)
			return SCS_ENOMEM;
		APPEND(mg->g->sparse_initializer, mg->g->n_sparse_initializer, (Onnx__SparseTensorProto *)copy, rc);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_node; i++) {
		Onnx__NodeProto *n = src->node[i], *had;
		Onnx__TensorProto *value = scs_node_constant(n);

		if (value && (had = find_maker(mg->g, n->output[0])) != NULL) {
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
		if ((copy = scs_model_copy(mg->out, &n->base)) == NULL)
			return SCS_ENOMEM;
		/* Constants lead their shard; they keep leading when merged */
		APPEND(mg->g->node, mg->g->n_node, (Onnx__NodeProto *)copy, rc);
		for (size_t j = 0; rc == SCS_OK && j < n->n_output; j++)
			if (n->output[j][0])
				rc = scs_strmap_put(&mg->defined, ((Onnx__NodeProto *)copy)->output[j], (int64_t)at);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_value_info; i++) {
		const char *name = src->value_info[i]->name;
		int dup = 0;

		for (size_t j = 0; name && j < mg->g->n_value_info; j++)
			dup |= mg->g->value_info[j]->name && strcmp(mg->g->value_info[j]->name, name) == 0;
		if (dup)
			continue;
		if ((copy = scs_model_copy(mg->out, &src->value_info[i]->base)) == NULL)
			return SCS_ENOMEM;
		APPEND(mg->g->value_info, mg->g->n_value_info, (Onnx__ValueInfoProto *)copy, rc);
	}
	for (size_t i = 0; rc == SCS_OK && i < src->n_quantization_annotation; i++) {
		if ((copy = scs_model_copy(mg->out, &src->quantization_annotation[i]->base)) == NULL)
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
		if ((copy = scs_model_copy(mg->out, &f->base)) == NULL)
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
	    (rc = start_from_header(&mg)) < 0)
		goto done;
	for (size_t k = 0; rc == SCS_OK && k < n; k++)
		rc = take_shard(&mg, k);
	if (rc == SCS_OK)
		rc = check_outputs(&mg);
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
	scs_strmap_dispose(&mg.origin_in);
	return rc;
}
