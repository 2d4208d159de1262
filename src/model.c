/*
 * model.c: the skeleton and its graph facts (see model.h). Names the file
 * and the problem when protobuf-c refuses the skeleton.
 *
 * SPDX-License-Identifier: MIT
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "err.h"
#include "wire.h"

#define REF_RANGE ((size_t)1 << 32)

/* ---- payload references ---- */

static int
is_ref(const uint8_t *refs, const void *p)
{
	return refs && (uintptr_t)p >= (uintptr_t)refs && (uintptr_t)p < (uintptr_t)refs + REF_RANGE;
}

int
scs_model_ref_id(const scs_model *m, const void *p, uint32_t *id)
{
	if (!is_ref(m->refs, p))
		return 0;
	*id = (uint32_t)((uintptr_t)p - (uintptr_t)m->refs);
	return 1;
}

int
scs_model_payload_of(const scs_model *m, const Onnx__TensorProto *t, uint32_t *id)
{
	uintptr_t p = (uintptr_t)t->raw_data.data, base = (uintptr_t)m->refs;

	if (!t->has_raw_data || p < base || p >= base + REF_RANGE)
		return 0;
	*id = (uint32_t)(p - base);
	return 1;
}

/* The current model's reference range, for the allocator below. */
static _Thread_local uint8_t *freeing_refs;

static void *
ref_alloc(void *data, size_t size)
{
	(void)data;
	return malloc(size);
}

static void
ref_free(void *data, void *p)
{
	(void)data;
	if (!is_ref(freeing_refs, p))
		free(p);
}

static ProtobufCAllocator ref_allocator = { ref_alloc, ref_free, NULL };

static void
clear_data(Onnx__TensorProto *t, const uint8_t *refs)
{
	if (t->has_raw_data && !is_ref(refs, t->raw_data.data))
		free(t->raw_data.data);
	t->raw_data.data = NULL;
	t->raw_data.len = 0;
	t->has_raw_data = 0;
}

void
scs_model_set_payload(scs_model *m, Onnx__TensorProto *t, uint32_t id)
{
	clear_data(t, m->refs);
	t->raw_data.data = m->refs + id;
	t->raw_data.len = (size_t)m->payloads->items[id].key.len;
	t->has_raw_data = 1;
}

int
scs_tensors_equal(const scs_model *m, const Onnx__TensorProto *a, const Onnx__TensorProto *b)
{
	uint32_t ia, ib;
	int ha, hb;

	if (a->data_type != b->data_type || a->n_dims != b->n_dims ||
	    (a->n_dims && memcmp(a->dims, b->dims, a->n_dims * sizeof(*a->dims)) != 0))
		return 0;
	ha = scs_model_payload_of(m, a, &ia);
	hb = scs_model_payload_of(m, b, &ib);
	if (ha != hb)
		return 0;
	if (ha)
		return scs_payloads_equal(m->payloads, ia, ib);
	if (a->n_string_data != b->n_string_data)
		return 0;
	for (size_t i = 0; i < a->n_string_data; i++)
		if (a->string_data[i].len != b->string_data[i].len || (a->string_data[i].len &&
		    memcmp(a->string_data[i].data, b->string_data[i].data, a->string_data[i].len) != 0))
			return 0;
	return 1;
}

int64_t
scs_tensor_elems(const Onnx__TensorProto *t)
{
	int64_t n = 1;

	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || (t->dims[i] && n > INT64_MAX / t->dims[i]))
			return -1;
		n *= t->dims[i];
	}
	return n;
}

/* ---- walking ---- */

/*
 * Every TensorProto inside @msg, found through protobuf-c's descriptors, so
 * no message type that can hold a tensor is ever forgotten.
 */
static int
each_in(ProtobufCMessage *msg, scs_tensor_fn fn, void *ctx)
{
	const ProtobufCMessageDescriptor *md = msg->descriptor;
	int rc;

	if (md == &onnx__tensor_proto__descriptor)
		return fn(ctx, (Onnx__TensorProto *)msg);
	for (unsigned i = 0; i < md->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &md->fields[i];
		char *base = (char *)msg;

		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			if (*(uint32_t *)(base + f->quantifier_offset) != f->id)
				continue;
		}
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(size_t *)(base + f->quantifier_offset);
			ProtobufCMessage **arr = *(ProtobufCMessage ***)(base + f->offset);

			for (size_t k = 0; k < n; k++)
				if ((rc = each_in(arr[k], fn, ctx)) != 0)
					return rc;
		} else {
			ProtobufCMessage *sub = *(ProtobufCMessage **)(base + f->offset);

			if (sub && (rc = each_in(sub, fn, ctx)) != 0)
				return rc;
		}
	}
	return 0;
}

int
scs_model_each_tensor(Onnx__ModelProto *m, scs_tensor_fn fn, void *ctx)
{
	return each_in(&m->base, fn, ctx);
}

/* ---- loading ---- */

typedef struct bind_ctx {
	scs_model *m;
	int rc;
} bind_ctx;

/* Turn the scanner's private reference field into a payload reference. */
static int
bind_ref(void *ctx, Onnx__TensorProto *t)
{
	bind_ctx *b = ctx;
	ProtobufCMessageUnknownField *u;
	uint64_t id = 0;
	size_t i, used;

	for (i = 0; i < t->base.n_unknown_fields; i++) {
		u = &t->base.unknown_fields[i];
		if (u->tag != SCS_SCAN_REF_FIELD || u->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT)
			continue;
		if (scs_wire_get_varint(&id, u->data, u->len, &used) != SCS_OK || id >= b->m->payloads->n) {
			b->rc = scs_err_set(SCS_ECORRUPT, "%s: tensor '%s': bad payload reference", b->m->path,
			    t->name ? t->name : "");
			return 1;
		}
		free(u->data);
		memmove(u, u + 1, (t->base.n_unknown_fields - i - 1) * sizeof(*u));
		if (--t->base.n_unknown_fields == 0) {
			free(t->base.unknown_fields);
			t->base.unknown_fields = NULL;
		}
		scs_model_set_payload(b->m, t, (uint32_t)id);
		return 0;
	}
	return 0;
}

/* Put a payload reference back into the scanner's private field. */
static int
unbind_ref(void *ctx, Onnx__TensorProto *t)
{
	bind_ctx *b = ctx;
	ProtobufCMessageUnknownField *grown, *u;
	uint32_t id;
	uint8_t *data;

	if (!scs_model_payload_of(b->m, t, &id))
		return 0;
	grown = realloc(t->base.unknown_fields, (t->base.n_unknown_fields + 1) * sizeof(*grown));
	if (grown == NULL || (data = malloc(SCS_WIRE_VARINT_MAX)) == NULL) {
		if (grown)
			t->base.unknown_fields = grown;
		b->rc = scs_err_set(SCS_ENOMEM, "cannot copy a tensor");
		return 1;
	}
	t->base.unknown_fields = grown;
	u = &grown[t->base.n_unknown_fields++];
	u->tag = SCS_SCAN_REF_FIELD;
	u->wire_type = PROTOBUF_C_WIRE_TYPE_VARINT;
	u->len = scs_wire_put_varint(data, id);
	u->data = data;
	t->raw_data.data = NULL;
	t->raw_data.len = 0;
	t->has_raw_data = 0;
	return 0;
}

ProtobufCMessage *
scs_model_copy(const scs_model *m, ProtobufCMessage *msg)
{
	bind_ctx b = { (scs_model *)m, SCS_OK };
	ProtobufCMessage *copy = NULL;
	uint8_t *bytes;
	size_t len;

	/* references travel through packing as the scanner wrote them */
	each_in(msg, unbind_ref, &b);
	len = protobuf_c_message_get_packed_size(msg);
	if (b.rc == SCS_OK && (bytes = malloc(len ? len : 1)) != NULL) {
		protobuf_c_message_pack(msg, bytes);
		copy = protobuf_c_message_unpack(msg->descriptor, NULL, len, bytes);
		free(bytes);
	}
	b.rc = SCS_OK;
	each_in(msg, bind_ref, &b);
	if (copy) {
		each_in(copy, bind_ref, &b);
		if (b.rc < 0) {
			scs_model_free_message(m, copy);
			copy = NULL;
		}
	}
	if (copy == NULL)
		scs_err_set(SCS_ENOMEM, "cannot copy a message");
	return copy;
}

/* Scan @path into @m, whose payloads and refs are set. */
static int
load_into(scs_model *m, const char *path, const scs_scan_options *opts)
{
	scs_buf skel = SCS_BUF_INIT;
	bind_ctx b;
	int rc;

	if ((m->path = strdup(path)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a model");
	if ((rc = scs_scan_file(&skel, m->payloads, path, opts)) < 0)
		goto done;
	m->proto = (Onnx__ModelProto *)protobuf_c_message_unpack(&onnx__model_proto__descriptor, NULL,
	    skel.len, skel.data);
	if (m->proto == NULL) {
		rc = scs_err_set(SCS_ECORRUPT, "%s: the model's structure does not parse as an ONNX ModelProto",
		    path);
		goto done;
	}
	/* a cut file can still be well-formed protobuf: insist on what every model has */
	if (m->proto->graph == NULL || m->proto->n_opset_import == 0 || !m->proto->has_ir_version) {
		rc = scs_err_set(SCS_ECORRUPT, "%s: not a complete ONNX model (no %s); is the file cut short?", path,
		    m->proto->graph == NULL ? "graph" : m->proto->n_opset_import == 0 ? "opset_import" : "ir_version");
		goto done;
	}
	b.m = m;
	b.rc = SCS_OK;
	scs_model_each_tensor(m->proto, bind_ref, &b);
	rc = b.rc;
done:
	scs_buf_dispose(&skel);
	return rc;
}

int
scs_model_load(scs_model **out, const char *path, scs_store *store, const scs_scan_options *opts)
{
	scs_model *m;
	int rc;

	*out = NULL;
	if ((m = calloc(1, sizeof(*m))) == NULL || (m->payloads = calloc(1, sizeof(*m->payloads))) == NULL) {
		free(m);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a model");
	}
	m->owner = 1;
	m->refs = mmap(NULL, REF_RANGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m->refs == MAP_FAILED) {
		m->refs = NULL;
		rc = scs_err_set(SCS_ENOMEM, "cannot reserve address space for payload references");
		goto fail;
	}
	if ((rc = scs_payloads_init(m->payloads, store)) < 0 || (rc = load_into(m, path, opts)) < 0)
		goto fail;
	*out = m;
	return SCS_OK;
fail:
	scs_model_free(m);
	return rc;
}

int
scs_model_new_with(scs_model **out, const scs_model *owner)
{
	scs_model *m;

	if ((*out = m = calloc(1, sizeof(*m))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a model");
	m->payloads = owner->payloads;
	m->refs = owner->refs;
	return SCS_OK;
}

int
scs_model_load_with(scs_model **out, const char *path, const scs_model *owner, const scs_scan_options *opts)
{
	int rc;

	if ((rc = scs_model_new_with(out, owner)) < 0)
		return rc;
	if ((rc = load_into(*out, path, opts)) < 0) {
		scs_model_free(*out);
		*out = NULL;
	}
	return rc;
}

void
scs_model_free_message(const scs_model *m, ProtobufCMessage *msg)
{
	uint8_t *was = freeing_refs;

	freeing_refs = m->refs;
	protobuf_c_message_free_unpacked(msg, &ref_allocator);
	freeing_refs = was;
}

void
scs_model_free(scs_model *m)
{
	if (m == NULL)
		return;
	if (m->proto)
		scs_model_free_message(m, &m->proto->base);
	if (m->owner) {
		if (m->payloads)
			scs_payloads_dispose(m->payloads);
		free(m->payloads);
		if (m->refs)
			munmap(m->refs, REF_RANGE);
	}
	free(m->path);
	free(m);
}

Onnx__TensorProto *
scs_tensor_copy_named(const scs_model *m, Onnx__TensorProto *src, const char *name)
{
	Onnx__TensorProto *t = (Onnx__TensorProto *)scs_model_copy(m, &src->base);
	char *copy = strdup(name);

	if (t == NULL || copy == NULL) {
		free(copy);
		if (t)
			scs_model_free_message(m, &t->base);
		return NULL;
	}
	free(t->name);
	t->name = copy;
	return t;
}

int
scs_array_insert(void *arr, size_t *n, void *item, int front)
{
	void ***a = arr, **grown;
	size_t cap = 4;

	/*
	 * The array's capacity is not recorded (protobuf-c allocates exactly
	 * *n), so ask for the next power of two each time: realloc leaves a
	 * block already that large in place, and appends cost amortized O(1).
	 */
	while (cap < *n + 1)
		cap *= 2;
	if ((grown = realloc(*a, cap * sizeof(void *))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot grow a message list");
	if (front) {
		memmove(grown + 1, grown, *n * sizeof(void *));
		grown[0] = item;
	} else {
		grown[*n] = item;
	}
	*a = grown;
	(*n)++;
	return SCS_OK;
}

Onnx__StringStringEntryProto *
scs_entry_new(const char *key, const char *value)
{
	Onnx__StringStringEntryProto *e = malloc(sizeof(*e));

	if (e == NULL)
		return NULL;
	onnx__string_string_entry_proto__init(e);
	e->key = strdup(key);
	e->value = strdup(value);
	if (!e->key || !e->value) {
		protobuf_c_message_free_unpacked(&e->base, NULL);
		return NULL;
	}
	return e;
}

int
scs_is_onnx_domain(const char *domain)
{
	return domain == NULL || domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0;
}

int64_t
scs_model_opset(const Onnx__ModelProto *m, const char *domain)
{
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const char *d = m->opset_import[i]->domain;

		if (scs_is_onnx_domain(domain) ? scs_is_onnx_domain(d) : (d && strcmp(d, domain) == 0))
			return m->opset_import[i]->version;
	}
	return 0;
}

/* ---- scopes ---- */

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
	scs_scope *grown, *sc;
	size_t i, j;
	int rc = SCS_OK;

	if (s->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		if ((grown = realloc(s->items, *cap * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow the scope list");
		s->items = grown;
	}
	sc = &s->items[s->n++];
	memset(sc, 0, sizeof(*sc));
	sc->graph = g;
	sc->func = f;
	sc->parent = parent;
	sc->depth = parent < 0 ? 0 : s->items[parent].depth + 1;
#define DEF(name) do { if ((name) && (name)[0] && (rc = scs_strmap_put(&sc->defs, (name), 1)) < 0) return rc; } while (0)
#define PIN(name) do { if ((name) && (name)[0] && (rc = scs_strmap_put(&sc->pinned, (name), 1)) < 0) return rc; } while (0)
	if (g) {
		/* one table for every name at once: inputs, initializers, a name a node at least */
		if ((rc = scs_strmap_reserve(&sc->defs, g->n_input + g->n_initializer + g->n_node)) < 0)
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

		for (size_t j = 0; g && j < g->n_initializer; j++)
			if ((rc = fn(ctx, (int)i, g->initializer[j], NULL, g->initializer[j]->name)) != 0)
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

/* ---- renaming ---- */

int
scs_renames_add(scs_renames *r, int scope, const char *from, const char *to)
{
	scs_rename *grown;
	int64_t prev = -1;
	size_t cap;
	int rc;

	if (r->n == r->cap) {
		cap = r->cap ? r->cap * 2 : 16;
		if ((grown = realloc(r->items, cap * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow the rename list");
		r->items = grown;
		r->cap = cap;
	}
	scs_strmap_get(&r->last, from, &prev);
	if ((r->items[r->n].to = strdup(to)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy a name");
	r->items[r->n].scope = scope;
	r->items[r->n].from = from;
	r->items[r->n].next = prev;
	if ((rc = scs_strmap_put(&r->last, from, (int64_t)r->n)) < 0) {
		free(r->items[r->n].to);
		return rc;
	}
	r->n++;
	return SCS_OK;
}

void
scs_renames_dispose(scs_renames *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->items[i].to);
	free(r->items);
	scs_strmap_dispose(&r->last);
	memset(r, 0, sizeof(*r));
}

const char *
scs_renames_lookup(const scs_renames *r, const scs_scopes *s, int at, const char *name)
{
	int64_t i;
	int sc;

	if (!scs_strmap_get(&r->last, name, &i))
		return NULL;
	for (; i >= 0; i = r->items[i].next) {
		const scs_rename *e = &r->items[i];

		if (!scs_scope_encloses(s, e->scope, at))
			continue;
		/* shadowed when a scope below the rename's own defines the name again */
		for (sc = at; sc != e->scope; sc = s->items[sc].parent)
			if (scs_strmap_get(&s->items[sc].defs, name, NULL))
				break;
		if (sc == e->scope)
			return e->to;
	}
	return NULL;
}

int
scs_name_swap(char **slot, const char *to)
{
	char *copy = strdup(to);

	if (copy == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot copy a name");
	free(*slot);
	*slot = copy;
	return SCS_OK;
}

static int
apply_in(scs_renames *r, scs_scopes *s, int at)
{
	scs_scope *sc = &s->items[at];
	Onnx__NodeProto **nodes;
	size_t *n, i, j, keep;
	const char *to;
	int rc;

	nodes = *scs_scope_nodes(sc, &n);
	for (i = 0; i < *n; i++)
		for (j = 0; j < nodes[i]->n_input; j++)
			if (nodes[i]->input[j][0] && (to = scs_renames_lookup(r, s, at, nodes[i]->input[j])) &&
			    (rc = scs_name_swap(&nodes[i]->input[j], to)) < 0)
				return rc;
	if (sc->graph == NULL)
		return SCS_OK;
	/* a nested graph may output an outer value by name */
	if (sc->parent >= 0)
		for (i = 0; i < sc->graph->n_output; i++)
			if (sc->graph->output[i]->name && (to = scs_renames_lookup(r, s, at, sc->graph->output[i]->name)) &&
			    (rc = scs_name_swap(&sc->graph->output[i]->name, to)) < 0)
				return rc;
	/* quantization annotations name tensors too: the annotated one and its parameters */
	for (i = 0; i < sc->graph->n_quantization_annotation; i++) {
		Onnx__TensorAnnotation *a = sc->graph->quantization_annotation[i];

		if (a->tensor_name && (to = scs_renames_lookup(r, s, at, a->tensor_name)) && (rc = scs_name_swap(&a->tensor_name, to)) < 0)
			return rc;
		for (j = 0; j < a->n_quant_parameter_tensor_names; j++) {
			char **v = &a->quant_parameter_tensor_names[j]->value;

			if (*v && (to = scs_renames_lookup(r, s, at, *v)) && (rc = scs_name_swap(v, to)) < 0)
				return rc;
		}
	}
	for (i = keep = 0; i < sc->graph->n_value_info; i++) {
		Onnx__ValueInfoProto *vi = sc->graph->value_info[i];

		if (vi->name && scs_renames_lookup(r, s, at, vi->name))
			protobuf_c_message_free_unpacked(&vi->base, NULL);
		else
			sc->graph->value_info[keep++] = vi;
	}
	sc->graph->n_value_info = keep;
	return SCS_OK;
}

int
scs_renames_apply(scs_renames *r, scs_scopes *s)
{
	int rc;

	if (r->n == 0)
		return SCS_OK;
	for (size_t i = 0; i < s->n; i++)
		if ((rc = apply_in(r, s, (int)i)) < 0)
			return rc;
	return SCS_OK;
}
