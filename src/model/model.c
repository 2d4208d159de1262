/*
 * model.c: the skeleton (see model.h). Names the file
 * and the problem when protobuf-c refuses the skeleton.
 *
 * SPDX-License-Identifier: MIT
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"

/* ---- payload references ---- */

int
scs_model_payload_of(const scs_model *m, const Onnx__TensorProto *t, uint32_t *id)
{
	(void)m;
	if (!t->has_scs_payload)
		return 0;
	*id = (uint32_t)t->scs_payload;
	return 1;
}

static void *
heap_alloc(void *data, size_t size)
{
	(void)data;
	return malloc(size);
}

/* Unpacking into the model's arena: frees during the unpack are of protobuf-c's scratch space. */
static void *
arena_alloc(void *data, size_t size)
{
	return scs_arena_alloc(data, size);
}

static void
arena_free(void *data, void *p)
{
	(void)data;
	scs_arena_release(p);
}

/* Freeing a tree or a part of one: arena pieces stay with their arena, malloc's are freed. */
static ProtobufCAllocator part_allocator = { heap_alloc, arena_free, NULL };

void
scs_model_set_payload(scs_model *m, Onnx__TensorProto *t, uint32_t id)
{
	(void)m;
	if (t->has_raw_data)
		scs_arena_release(t->raw_data.data);
	t->raw_data.data = NULL;
	t->raw_data.len = 0;
	t->has_raw_data = 0;
	t->scs_payload = id;
	t->has_scs_payload = 1;
}

uint64_t
scs_model_packed_size(const scs_model *m, const ProtobufCMessage *msg)
{
	return scs_pack_size(msg, m->payloads);
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

int
scs_model_each_tensor(Onnx__ModelProto *m, scs_tensor_fn fn, void *ctx)
{
	scs_sealed *s = scs_sealed_of(m->graph);
	Onnx__TensorProto *t;
	int rc;

	if ((rc = scs_walk_tensors(&m->base, fn, ctx)) != 0 || s == NULL)
		return rc;
	for (size_t i = 0; i < s->n; i++)
		if ((t = scs_sealed_get(s, i)) != NULL && (rc = fn(ctx, t)) != 0)
			return rc;
	return 0;
}

int
scs_model_each_placed(Onnx__ModelProto *m, scs_tensor_fn fn, void *ctx)
{
	Onnx__GraphProto *g = m->graph;
	scs_sealed *s = scs_sealed_of(g);
	Onnx__TensorProto *t;
	size_t n_init;
	int rc = 0;

	/* in the writer's runs (pack.h) */
	for (int run = 0; run < 3; run++) {
		for (size_t i = 0; g && i < g->n_initializer; i++)
			if (scs_pack_init_run(g->initializer[i]) == run && (rc = fn(ctx, g->initializer[i])) != 0)
				return rc;
		for (size_t i = 0; s && i < s->n; i++)
			if ((t = scs_sealed_get(s, i)) != NULL && scs_pack_init_run(t) == run && (rc = fn(ctx, t)) != 0)
				return rc;
	}
	/* the rest in walk order, the main graph's initializers (visited above) out of sight */
	n_init = g ? g->n_initializer : 0;
	if (g)
		g->n_initializer = 0;
	rc = scs_walk_tensors(&m->base, fn, ctx);
	if (g)
		g->n_initializer = n_init;
	return rc;
}

/* ---- loading ---- */

typedef struct check_ctx {
	const scs_model *m;
	int rc;
} check_ctx;

/* The scanner wrote every reference; still, none may point past the set. */
static int
check_ref(void *ctx, Onnx__TensorProto *t)
{
	check_ctx *c = ctx;

	if (!t->has_scs_payload || t->scs_payload < c->m->payloads->n)
		return 0;
	c->rc = scs_err_set(SCS_ECORRUPT, "%s: tensor '%s': bad payload reference", c->m->path,
	    t->name ? t->name : "");
	return 1;
}

/* A deep copy of @msg whose pieces come from @alloc (NULL: malloc). */
static ProtobufCMessage *
copy_message(const scs_model *m, ProtobufCMessage *msg, ProtobufCAllocator *alloc)
{
	ProtobufCMessage *copy = NULL;
	uint8_t *bytes;
	size_t len;

	(void)m;
	if ((msg->descriptor == &onnx__model_proto__descriptor && scs_sealed_of(((Onnx__ModelProto *)msg)->graph)) ||
	    (msg->descriptor == &onnx__graph_proto__descriptor && scs_sealed_of((Onnx__GraphProto *)msg))) {
		scs_err_set(SCS_EUSAGE, "a graph with sealed initializers is copied (unseal it first)");
		return NULL;
	}
	/* protobuf-c's own packing: the copy keeps the private field, so each
	 * payload reference travels as the value it is */
	len = protobuf_c_message_get_packed_size(msg);
	if ((bytes = malloc(len ? len : 1)) != NULL) {
		protobuf_c_message_pack(msg, bytes);
		copy = protobuf_c_message_unpack(msg->descriptor, alloc, len, bytes);
		free(bytes);
	}
	if (copy == NULL)
		scs_err_set(SCS_ENOMEM, "cannot copy a message");
	return copy;
}

ProtobufCMessage *
scs_model_copy(const scs_model *m, ProtobufCMessage *msg)
{
	return copy_message(m, msg, NULL);
}

ProtobufCMessage *
scs_model_copy_kept(const scs_model *m, ProtobufCMessage *msg)
{
	ProtobufCAllocator into = { arena_alloc, arena_free, m->arena };

	return copy_message(m, msg, m->arena ? &into : NULL);
}

/* GraphProto field numbers are below this */
#define GRAPH_FIELDS 32

/* The main graph's repeated message fields (nodes, initializers, ...),
 * unpacked one element at a time as the scan finds them, by field number. */
typedef struct graph_parts {
	scs_model *m;
	ProtobufCAllocator *alloc;
	const char *path;
	scs_sealed *sealed;       /* NULL: initializers are unpacked like the rest */
	struct part_list {
		ProtobufCMessage **items;
		size_t n, cap;
	} lists[GRAPH_FIELDS];
} graph_parts;

/* An initializer of the main graph, into a record. */
static int
take_initializer(graph_parts *gp, const uint8_t *data, size_t len, uint64_t off)
{
	scs_sealed *s = gp->sealed;
	scs_sealed_tensor *r;
	Onnx__TensorProto *t;
	int rc;

	if ((rc = scs_sealed_reserve(s)) < 0)
		return rc;
	if ((t = (Onnx__TensorProto *)protobuf_c_message_unpack(&onnx__tensor_proto__descriptor, NULL, len, data)) == NULL)
		return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: the model's structure does not parse as an ONNX TensorProto",
		    gp->path, (unsigned long long)off);
	if ((r = scs_sealed_record(s->arena, t)) == NULL) {
		scs_model_free_part(&t->base);
		return scs_err_set(SCS_ENOMEM, "cannot keep an initializer");
	}
	s->items[s->n++] = r;
	return SCS_OK;
}

static int
take_part(void *ctx, uint32_t field, const uint8_t *data, size_t len, uint64_t off)
{
	graph_parts *gp = ctx;
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(&onnx__graph_proto__descriptor,
	    field);
	ProtobufCMessage *msg;
	struct part_list *l;
	int rc;

	if (fd == NULL || field >= GRAPH_FIELDS || fd->type != PROTOBUF_C_TYPE_MESSAGE)
		return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: graph field %u is not a list of messages", gp->path,
		    (unsigned long long)off, field);
	if (gp->sealed && fd->descriptor == &onnx__tensor_proto__descriptor && field == 5)
		return take_initializer(gp, data, len, off);
	l = &gp->lists[field];
	if ((rc = scs_grow(&l->items, &l->cap, l->n, sizeof(*l->items), 64, "a list of the graph")) < 0)
		return rc;
	if ((msg = protobuf_c_message_unpack(fd->descriptor, gp->alloc, len, data)) == NULL)
		return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: the model's structure does not parse as an ONNX %s",
		    gp->path, (unsigned long long)off, ((const ProtobufCMessageDescriptor *)fd->descriptor)->short_name);
	l->items[l->n++] = msg;
	return SCS_OK;
}

/* Put the lists into @g (after what it has already); SCS_ENOMEM. */
static int
attach_parts(Onnx__GraphProto *g, graph_parts *gp)
{
	for (uint32_t field = 0; field < GRAPH_FIELDS; field++) {
		const ProtobufCFieldDescriptor *fd;
		struct part_list *l = &gp->lists[field];
		ProtobufCMessage ***arr, **all;
		size_t *n;

		if (l->n == 0)
			continue;
		fd = protobuf_c_message_descriptor_get_field(&onnx__graph_proto__descriptor, field);
		n = (size_t *)((char *)g + fd->quantifier_offset);
		arr = (ProtobufCMessage ***)((char *)g + fd->offset);
		if ((all = scs_arena_grow(*arr, *n * sizeof(*all), (*n + l->n) * sizeof(*all))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot join a list of the graph");
		memcpy(all + *n, l->items, l->n * sizeof(*all));
		*arr = all;
		*n += l->n;
		l->n = 0;
	}
	return SCS_OK;
}

/* What the lists still hold. */
static void
dispose_parts(graph_parts *gp)
{
	for (uint32_t field = 0; field < GRAPH_FIELDS; field++) {
		for (size_t i = 0; i < gp->lists[field].n; i++)
			scs_model_free_message(gp->m, gp->lists[field].items[i]);
		free(gp->lists[field].items);
	}
}

/* Scan @path into @m, whose payloads and arena are set; @seal: keep the
 * main graph's initializers sealed. */
static int
load_into(scs_model *m, const char *path, const scs_scan_options *opts, int seal)
{
	ProtobufCAllocator into = { arena_alloc, arena_free, m->arena };
	graph_parts gp;
	scs_scan_options so;
	scs_buf skel = SCS_BUF_INIT;
	check_ctx c;
	int rc;

	memset(&gp, 0, sizeof(gp));
	if (opts)
		so = *opts;
	else
		memset(&so, 0, sizeof(so));
	gp.m = m;
	gp.alloc = &into;
	gp.path = path;
	if (seal) {
		if ((gp.sealed = calloc(1, sizeof(*gp.sealed))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a model");
		gp.sealed->arena = m->arena;
	}
	so.part = take_part;
	so.part_ctx = &gp;
	if ((m->path = strdup(path)) == NULL) {
		scs_sealed_free(gp.sealed);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a model");
	}
	if ((rc = scs_scan_file(&skel, m->payloads, path, &so)) < 0)
		goto done;
	m->proto = (Onnx__ModelProto *)protobuf_c_message_unpack(&onnx__model_proto__descriptor, &into,
	    skel.len, skel.data);
	if (m->proto != NULL && m->proto->graph != NULL && (rc = attach_parts(m->proto->graph, &gp)) < 0)
		goto done;
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
	if (gp.sealed) {
		gp.sealed->graph = m->proto->graph;
		if ((rc = scs_sealed_register(gp.sealed)) < 0)
			goto done;
		m->sealed = gp.sealed;
		gp.sealed = NULL;
	}
	c.m = m;
	c.rc = SCS_OK;
	scs_model_each_tensor(m->proto, check_ref, &c);
	rc = c.rc;
done:
	scs_sealed_free(gp.sealed);
	dispose_parts(&gp);
	scs_buf_dispose(&skel);
	return rc;
}

static int
load(scs_model **out, const char *path, scs_store *store, const scs_scan_options *opts, int seal)
{
	scs_model *m;
	int rc;

	*out = NULL;
	if ((m = calloc(1, sizeof(*m))) == NULL || (m->payloads = calloc(1, sizeof(*m->payloads))) == NULL) {
		free(m);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a model");
	}
	m->owner = 1;
	if ((rc = scs_arena_new(&m->arena)) < 0 || (rc = scs_payloads_init(m->payloads, store)) < 0 ||
	    (rc = load_into(m, path, opts, seal)) < 0)
		goto fail;
	*out = m;
	return SCS_OK;
fail:
	scs_model_free(m);
	return rc;
}

int
scs_model_load(scs_model **out, const char *path, scs_store *store, const scs_scan_options *opts)
{
	return load(out, path, store, opts, 0);
}

int
scs_model_load_sealed(scs_model **out, const char *path, scs_store *store, const scs_scan_options *opts)
{
	return load(out, path, store, opts, 1);
}

int
scs_model_new_with(scs_model **out, const scs_model *owner)
{
	scs_model *m;

	if ((*out = m = calloc(1, sizeof(*m))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a model");
	m->payloads = owner->payloads;
	m->arena = owner->arena;
	return SCS_OK;
}

int
scs_model_load_with(scs_model **out, const char *path, const scs_model *owner, const scs_scan_options *opts)
{
	int rc;

	if ((rc = scs_model_new_with(out, owner)) < 0)
		return rc;
	if ((rc = load_into(*out, path, opts, 0)) < 0) {
		scs_model_free(*out);
		*out = NULL;
	}
	return rc;
}

void
scs_model_free_message(const scs_model *m, ProtobufCMessage *msg)
{
	(void)m;
	scs_model_free_part(msg);
}

void
scs_model_free_part(ProtobufCMessage *msg)
{
	if (msg)
		protobuf_c_message_free_unpacked(msg, &part_allocator);
}

void
scs_model_free(scs_model *m)
{
	if (m == NULL)
		return;
	if (m->sealed) {
		scs_sealed_unregister(m->sealed);
		scs_sealed_free(m->sealed);
	}
	if (m->proto)
		scs_model_free_message(m, &m->proto->base);
	if (m->owner) {
		if (m->payloads)
			scs_payloads_dispose(m->payloads);
		free(m->payloads);
		scs_arena_free(m->arena);
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
	scs_arena_release(t->name);
	t->name = copy;
	return t;
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
