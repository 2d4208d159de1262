/*
 * split.c: shards out (see split.h).
 *
 * The main graph's nodes are sorted topologically (stable: a node keeps its
 * place unless an input comes later), then taken in that order into the
 * current shard until the next would pass the budget. A node's cost is its
 * own serialized size (nested graphs included) plus the initializers and
 * Constant nodes it reads that the shard does not hold yet.
 *
 * SPDX-License-Identifier: MIT
 */
#include "split.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "dtype.h"
#include "err.h"
#include "hash.h"
#include "graph.h"
#include "infer.h"
#include "opschema.h"
#include "shard.h"

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
} split;

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
		len = i >= 0 ? protobuf_c_message_get_packed_size(&s->g->initializer[i]->base) :
		    protobuf_c_message_get_packed_size(&s->g->sparse_initializer[-1 - i]->base);
	else if (scs_strmap_get(&s->producer, name, &i) && s->replicable[i])
		len = protobuf_c_message_get_packed_size(&s->g->node[i]->base);
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
		node_len = protobuf_c_message_get_packed_size(&n->base);
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

#define APPEND(arr, n, item) \
	do { if ((rc = scs_array_insert(&(arr), &(n), (item), 0)) < 0) return rc; } while (0)

static int
add_copy(shard_build *b, ProtobufCMessage *msg, ProtobufCMessage **out)
{
	if ((*out = scs_model_copy(b->s->m, msg)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy into a shard");
	return SCS_OK;
}

/* Is @name produced by a node of a shard later than @k, or read by one? */
static int
read_after(split *s, const char *name, int k)
{
	for (size_t i = 0; i < s->n_nodes; i++) {
		if (s->shard_of[i] <= k)
			continue;
		for (size_t j = 0; j < s->uses[i].n; j++)
			if (strcmp(s->uses[i].items[j], name) == 0)
				return 1;
	}
	return 0;
}

static int
is_graph_output(split *s, const char *name)
{
	for (size_t i = 0; i < s->g->n_output; i++)
		if (s->g->output[i]->name && strcmp(s->g->output[i]->name, name) == 0)
			return 1;
	return 0;
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

static int
build_graph(shard_build *b, const char *fingerprint, const char *header)
{
	split *s = b->s;
	Onnx__GraphProto *g = b->p->graph, *src = s->g;
	ProtobufCMessage *copy;
	Onnx__ValueInfoProto *vi;
	int64_t p;
	char shard_tag[64];
	int rc;

	/* the nodes, in topological order, and everything they read */
	for (size_t k = 0; k < s->n_order; k++) {
		size_t i = s->order[k];

		if (s->shard_of[i] != b->k)
			continue;
		for (size_t j = 0; j < s->uses[i].n; j++)
			if ((rc = want_name(b, s->uses[i].items[j])) < 0)
				return rc;
	}
	for (size_t i = 0; i < src->n_output; i++)
		if (src->output[i]->name && output_home(s, src->output[i]->name) == b->k &&
		    (rc = want_name(b, src->output[i]->name)) < 0)
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
	for (size_t i = 0; i < s->n_nodes; i++) {
		if (!s->replicable[i] || !scs_strmap_get(&b->want, src->node[i]->output[0], NULL))
			continue;
		if ((rc = add_copy(b, &src->node[i]->base, &copy)) < 0)
			return rc;
		APPEND(g->node, g->n_node, (Onnx__NodeProto *)copy);
	}
	for (size_t k = 0; k < s->n_order; k++) {
		if (s->shard_of[s->order[k]] != b->k)
			continue;
		if ((rc = add_copy(b, &src->node[s->order[k]]->base, &copy)) < 0)
			return rc;
		APPEND(g->node, g->n_node, (Onnx__NodeProto *)copy);
	}
	for (size_t i = 0; i < src->n_initializer; i++) {
		if (!src->initializer[i]->name || !scs_strmap_get(&b->want, src->initializer[i]->name, NULL))
			continue;
		if ((rc = add_copy(b, &src->initializer[i]->base, &copy)) < 0)
			return rc;
		APPEND(g->initializer, g->n_initializer, (Onnx__TensorProto *)copy);
	}
	for (size_t i = 0; i < src->n_sparse_initializer; i++) {
		Onnx__SparseTensorProto *sp = src->sparse_initializer[i];

		if (!sp->values || !sp->values->name || !scs_strmap_get(&b->want, sp->values->name, NULL))
			continue;
		if ((rc = add_copy(b, &sp->base, &copy)) < 0)
			return rc;
		APPEND(g->sparse_initializer, g->n_sparse_initializer, (Onnx__SparseTensorProto *)copy);
	}
	/* inputs: the original ones it reads, in their order, then the cut tensors */
	for (size_t i = 0; i < src->n_input; i++) {
		if (!src->input[i]->name || !scs_strmap_get(&b->want, src->input[i]->name, NULL))
			continue;
		if ((rc = add_copy(b, &src->input[i]->base, &copy)) < 0)
			return rc;
		APPEND(g->input, g->n_input, (Onnx__ValueInfoProto *)copy);
	}
	for (size_t w = 0; w < b->want_list.n; w++) {
		const char *name = b->want_list.items[w];

		if (!scs_strmap_get(&s->producer, name, &p) || s->replicable[p] || s->shard_of[p] >= b->k)
			continue;
		if (!scs_infer_describable(&s->inf, name))
			return scs_err_set(SCS_EUNSUPPORTED,
			    "cannot tell the type and rank of '%s', which shard %d passes to shard %d (add value_info for it)",
			    name, s->shard_of[p], b->k);
		if ((vi = scs_infer_value_info(&s->inf, name)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot describe a cut tensor");
		APPEND(g->input, g->n_input, vi);
	}
	/* outputs: the original ones made here, in their order, then what later shards read */
	for (size_t i = 0; i < src->n_output; i++) {
		if (!src->output[i]->name || output_home(s, src->output[i]->name) != b->k)
			continue;
		if ((rc = add_copy(b, &src->output[i]->base, &copy)) < 0)
			return rc;
		APPEND(g->output, g->n_output, (Onnx__ValueInfoProto *)copy);
	}
	for (size_t k = 0; k < s->n_order; k++) {
		Onnx__NodeProto *n = src->node[s->order[k]];

		if (s->shard_of[s->order[k]] != b->k)
			continue;
		for (size_t j = 0; j < n->n_output; j++) {
			if (!n->output[j][0] || is_graph_output(s, n->output[j]) || !read_after(s, n->output[j], b->k))
				continue;
			if (!scs_infer_describable(&s->inf, n->output[j]))
				return scs_err_set(SCS_EUNSUPPORTED,
				    "cannot tell the type and rank of '%s', which shard %d passes on (add value_info for it)",
				    n->output[j], b->k);
			if ((vi = scs_infer_value_info(&s->inf, n->output[j])) == NULL)
				return scs_err_set(SCS_ENOMEM, "cannot describe a cut tensor");
			APPEND(g->output, g->n_output, vi);
		}
	}
	/* value_info of what this shard's nodes make and of the constants it holds */
	for (size_t i = 0; i < src->n_value_info; i++) {
		const char *name = src->value_info[i]->name;
		int64_t at;

		if (!name || !(scs_strmap_get(&s->producer, name, &p) ? (s->replicable[p] ?
		    scs_strmap_get(&b->want, name, NULL) : s->shard_of[p] == b->k) :
		    (scs_strmap_get(&s->inits, name, &at) && scs_strmap_get(&b->want, name, NULL))))
			continue;
		if ((rc = add_copy(b, &src->value_info[i]->base, &copy)) < 0)
			return rc;
		APPEND(g->value_info, g->n_value_info, (Onnx__ValueInfoProto *)copy);
	}
	for (size_t i = 0; i < src->n_quantization_annotation; i++) {
		const char *name = src->quantization_annotation[i]->tensor_name;

		if (!name || !(scs_strmap_get(&b->want, name, NULL) ||
		    (scs_strmap_get(&s->producer, name, &p) && s->shard_of[p] == b->k)))
			continue;
		if ((rc = add_copy(b, &src->quantization_annotation[i]->base, &copy)) < 0)
			return rc;
		APPEND(g->quantization_annotation, g->n_quantization_annotation, (Onnx__TensorAnnotation *)copy);
	}
	/* what the shard says of itself */
	snprintf(shard_tag, sizeof(shard_tag), "%d/%zu", b->k, s->n_shards);
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

/* The parts of the source every shard repeats: a copy of the model without its graph's contents. */
static int
new_shard_proto(split *s, Onnx__ModelProto **out)
{
	Onnx__ModelProto *src = s->m->proto, hollow;
	Onnx__GraphProto g;

	/* copy the model with an empty graph of the same name and doc */
	hollow = *src;
	onnx__graph_proto__init(&g);
	g.name = src->graph->name;
	g.doc_string = src->graph->doc_string;
	g.n_metadata_props = src->graph->n_metadata_props;
	g.metadata_props = src->graph->metadata_props;
	hollow.graph = &g;
	hollow.n_training_info = 0;
	*out = (Onnx__ModelProto *)scs_model_copy(s->m, &hollow.base);
	return *out ? SCS_OK : scs_err_set(SCS_ENOMEM, "cannot start a shard");
}

/* A fingerprint of the source: its structure, with each payload's content key. */
typedef struct hash_buf {
	ProtobufCBuffer base;
	scs_hash h;
	const scs_model *m;
} hash_buf;

static void
hash_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	hash_buf *hb = (hash_buf *)b;
	uint32_t id;

	if (scs_model_ref_id(hb->m, data, &id))
		scs_hash_update(&hb->h, &hb->m->payloads->items[id].key, sizeof(scs_key));
	else
		scs_hash_update(&hb->h, data, len);
}

static void
fingerprint(const scs_model *m, char out[33])
{
	hash_buf hb = { .base = { hash_append }, .m = m };
	scs_key k;

	scs_hash_init(&hb.h);
	protobuf_c_message_pack_to_buffer(&m->proto->base, &hb.base);
	scs_hash_final(&k, &hb.h);
	scs_key_hex(out, &k);
}

/* The source's facts merge restores: a ModelProto with inputs and outputs only. */
static int
make_header(split *s, scs_buf *out)
{
	Onnx__ModelProto hdr = *s->m->proto;
	Onnx__GraphProto g;
	scs_buf packed = SCS_BUF_INIT;
	int rc;

	onnx__graph_proto__init(&g);
	g.name = s->g->name;
	g.doc_string = s->g->doc_string;
	g.n_input = s->g->n_input;
	g.input = s->g->input;
	g.n_output = s->g->n_output;
	g.output = s->g->output;
	g.n_metadata_props = s->g->n_metadata_props;
	g.metadata_props = s->g->metadata_props;
	hdr.graph = &g;
	hdr.n_functions = 0;
	hdr.n_training_info = 0;
	hdr.base.n_unknown_fields = 0;
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
	if (rc < 0 || (rc = topo_sort(&s)) < 0 || (rc = scs_infer_graph(&s.inf, m, s.order, s.n_order)) < 0 || (rc = assign(&s)) < 0)
		goto done;
	fingerprint(m, fp);
	if ((rc = make_header(&s, &header)) < 0)
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
