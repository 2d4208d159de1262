/*
 * model.c: the skeleton (see model.h). Names the file
 * and the problem when protobuf-c refuses the skeleton.
 *
 * SPDX-License-Identifier: MIT
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "err.h"

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

/* ---- sealed initializers ---- */

/* the records of the thread's models, to be found by graph (a call makes
 * and frees its models in its own thread: no lock) */
static _Thread_local struct {
	scs_sealed **items;
	size_t n, cap;
} sealed_sets;

static int
sealed_register(scs_sealed *s)
{
	int rc = scs_grow(&sealed_sets.items, &sealed_sets.cap, sealed_sets.n, sizeof(*sealed_sets.items), 4,
	    "the list of sealed initializer sets");

	if (rc < 0)
		return rc;
	sealed_sets.items[sealed_sets.n++] = s;
	return SCS_OK;
}

static void
sealed_unregister(const scs_sealed *s)
{
	for (size_t i = 0; i < sealed_sets.n; i++) {
		if (sealed_sets.items[i] == s) {
			sealed_sets.items[i] = sealed_sets.items[--sealed_sets.n];
			break;
		}
	}
	if (sealed_sets.n == 0) {
		free(sealed_sets.items);
		memset(&sealed_sets, 0, sizeof(sealed_sets));
	}
}

scs_sealed *
scs_sealed_of(const Onnx__GraphProto *g)
{
	for (size_t i = 0; g && i < sealed_sets.n; i++)
		if (sealed_sets.items[i]->graph == g)
			return sealed_sets.items[i];
	return NULL;
}

static int64_t *
record_dims(const scs_sealed_tensor *r)
{
	return (int64_t *)(r + 1);
}

const char *
scs_sealed_name(const scs_sealed_tensor *r)
{
	return r->open ? r->open->name : (const char *)(record_dims(r) + r->n_dims);
}

Onnx__TensorProto *
scs_sealed_get(scs_sealed *s, size_t i)
{
	scs_sealed_tensor *r = s->items[i];
	Onnx__TensorProto *v = &s->view;

	if (r->removed)
		return NULL;
	if (r->open)
		return r->open;
	onnx__tensor_proto__init(v);
	v->n_dims = r->n_dims;
	v->dims = r->n_dims ? record_dims(r) : NULL;
	v->has_data_type = 1;
	v->data_type = r->data_type;
	v->name = (char *)scs_sealed_name(r);
	v->has_scs_payload = 1;
	v->scs_payload = r->payload;
	s->viewed = r;
	return v;
}

/* Record @r as a tensor of its own, which then stands for it. */
static Onnx__TensorProto *
open_record(scs_sealed *s, scs_sealed_tensor *r)
{
	const char *name;
	size_t name_len;
	Onnx__TensorProto *t;
	int64_t *dims = NULL;
	char *copy;

	if (r->open)
		return r->open;
	name = scs_sealed_name(r);
	name_len = strlen(name) + 1;
	t = scs_arena_alloc(s->arena, sizeof(*t));
	copy = scs_arena_alloc(s->arena, name_len);
	if (r->n_dims)
		dims = scs_arena_alloc(s->arena, r->n_dims * sizeof(*dims));
	if (t == NULL || copy == NULL || (r->n_dims && dims == NULL)) {
		scs_arena_release(t);
		scs_arena_release(copy);
		scs_arena_release(dims);
		scs_err_set(SCS_ENOMEM, "cannot open initializer '%s'", name);
		return NULL;
	}
	onnx__tensor_proto__init(t);
	memcpy(copy, name, name_len);
	if (r->n_dims)
		memcpy(dims, record_dims(r), r->n_dims * sizeof(*dims));
	t->n_dims = r->n_dims;
	t->dims = dims;
	t->has_data_type = 1;
	t->data_type = r->data_type;
	t->name = copy;
	t->has_scs_payload = 1;
	t->scs_payload = r->payload;
	r->open = t;
	return t;
}

Onnx__TensorProto *
scs_sealed_keep(Onnx__TensorProto *t)
{
	for (size_t i = 0; i < sealed_sets.n; i++)
		if (t == &sealed_sets.items[i]->view)
			return open_record(sealed_sets.items[i], sealed_sets.items[i]->viewed);
	return t;
}

/* Room for one more record in @s; SCS_ENOMEM. */
static int
reserve_record(scs_sealed *s)
{
	return scs_grow(&s->items, &s->cap, s->n, sizeof(*s->items), 64, "the initializer list");
}

int
scs_sealed_append(scs_sealed *s, Onnx__TensorProto *t)
{
	scs_sealed_tensor *r;
	int rc;

	if ((rc = reserve_record(s)) < 0)
		return rc;
	if ((r = scs_arena_alloc(s->arena, sizeof(*r))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot add an initializer");
	memset(r, 0, sizeof(*r));
	r->open = t;
	s->items[s->n++] = r;
	return SCS_OK;
}

static int
cmp_addr(const void *pa, const void *pb)
{
	uintptr_t a = (uintptr_t)*(void *const *)pa, b = (uintptr_t)*(void *const *)pb;

	return a < b ? -1 : a > b;
}

void
scs_sealed_drop(scs_sealed *s, void *const *gone, size_t n_gone)
{
	for (size_t i = 0; s && i < s->n; i++) {
		scs_sealed_tensor *r = s->items[i];

		if (r->removed || r->open == NULL || !bsearch(&r->open, gone, n_gone, sizeof(*gone), cmp_addr))
			continue;
		scs_model_free_part(&r->open->base);
		r->open = NULL;
		r->removed = 1;
	}
}

/* Free @s with the tensors of its live records (not registered, or no longer). */
static void
free_sealed(scs_sealed *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->items[i]->removed && s->items[i]->open)
			scs_model_free_part(&s->items[i]->open->base);
		scs_arena_release(s->items[i]);   /* a long one is malloc's */
	}
	free(s->items);
	free(s);
}

int
scs_model_unseal(scs_model *m)
{
	scs_sealed *s = m->sealed;
	Onnx__GraphProto *g;
	Onnx__TensorProto **all;
	size_t n_live = 0, k;

	if (s == NULL)
		return SCS_OK;
	g = s->graph;
	for (size_t i = 0; i < s->n; i++) {
		if (s->items[i]->removed)
			continue;
		if (open_record(s, s->items[i]) == NULL)
			return SCS_ENOMEM;
		n_live++;
	}
	if ((all = scs_arena_grow(g->initializer, g->n_initializer * sizeof(*all),
	    (g->n_initializer + n_live) * sizeof(*all))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot grow the initializer list");
	k = g->n_initializer;
	for (size_t i = 0; i < s->n; i++) {
		if (s->items[i]->removed)
			continue;
		all[k++] = s->items[i]->open;
		s->items[i]->removed = 1;     /* the list owns it now */
	}
	g->initializer = all;
	g->n_initializer = k;
	sealed_unregister(s);
	free_sealed(s);
	m->sealed = NULL;
	return SCS_OK;
}

static const ProtobufCMessage *
pack_get(void *ctx, size_t k)
{
	Onnx__TensorProto *t = scs_sealed_get(ctx, k);

	return t ? &t->base : NULL;
}

int
scs_model_pack_more(const scs_model *m, scs_pack_more *out)
{
	scs_sealed *s = m->sealed;

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return 0;
	out->msg = &s->graph->base;
	out->offset = offsetof(Onnx__GraphProto, initializer);
	out->n_items = s->n;
	for (size_t i = 0; i < s->n; i++)
		out->n_live += !s->items[i]->removed;
	out->get = pack_get;
	out->ctx = s;
	return 1;
}

/* 1 when @t holds a name, dims, an element type and a payload reference, and nothing else. */
static int
sealable(const Onnx__TensorProto *t)
{
	const ProtobufCMessageDescriptor *md = &onnx__tensor_proto__descriptor;
	const char *base = (const char *)t;

	if (t->name == NULL || !t->has_data_type || !t->has_scs_payload || t->scs_payload > UINT32_MAX ||
	    t->n_dims > UINT16_MAX || t->base.n_unknown_fields)
		return 0;
	for (unsigned i = 0; i < md->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &md->fields[i];

		if (f->offset == offsetof(Onnx__TensorProto, dims) || f->offset == offsetof(Onnx__TensorProto, name) ||
		    f->offset == offsetof(Onnx__TensorProto, data_type) ||
		    f->offset == offsetof(Onnx__TensorProto, scs_payload))
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			if (*(const size_t *)(base + f->quantifier_offset))
				return 0;
		} else if (f->label != PROTOBUF_C_LABEL_OPTIONAL || (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)) {
			return 0;
		} else if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE) {
			if (*(void *const *)(base + f->offset) != NULL)
				return 0;
		} else if (*(const protobuf_c_boolean *)(base + f->quantifier_offset)) {
			return 0;
		}
	}
	return 1;
}

/* A record of initializer @t, which is @alloc's: sealed when it can be
 * (then @t is freed), opened with @t otherwise. NULL on ENOMEM. */
static scs_sealed_tensor *
seal(scs_arena *arena, Onnx__TensorProto *t)
{
	size_t head = sizeof(scs_sealed_tensor), len;
	scs_sealed_tensor *r;

	if (!sealable(t)) {
		if ((r = scs_arena_alloc(arena, head)) == NULL)
			return NULL;
		memset(r, 0, head);
		r->open = t;
		return r;
	}
	len = head + t->n_dims * sizeof(int64_t) + strlen(t->name) + 1;
	/* records lie in the arena one after the other: each a multiple of 8 bytes long */
	if ((r = scs_arena_alloc(arena, (len + 7) & ~(size_t)7)) == NULL)
		return NULL;
	memset(r, 0, head);
	r->payload = (uint32_t)t->scs_payload;
	r->data_type = t->data_type;
	r->n_dims = (uint32_t)t->n_dims;
	if (t->n_dims)
		memcpy(record_dims(r), t->dims, t->n_dims * sizeof(int64_t));
	strcpy((char *)(record_dims(r) + r->n_dims), t->name);
	scs_model_free_part(&t->base);
	return r;
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

	if ((rc = reserve_record(s)) < 0)
		return rc;
	if ((t = (Onnx__TensorProto *)protobuf_c_message_unpack(&onnx__tensor_proto__descriptor, NULL, len, data)) == NULL)
		return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: the model's structure does not parse as an ONNX TensorProto",
		    gp->path, (unsigned long long)off);
	if ((r = seal(s->arena, t)) == NULL) {
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
		free_sealed(gp.sealed);
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
		if ((rc = sealed_register(gp.sealed)) < 0)
			goto done;
		m->sealed = gp.sealed;
		gp.sealed = NULL;
	}
	c.m = m;
	c.rc = SCS_OK;
	scs_model_each_tensor(m->proto, check_ref, &c);
	rc = c.rc;
done:
	free_sealed(gp.sealed);
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
		sealed_unregister(m->sealed);
		free_sealed(m->sealed);
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
