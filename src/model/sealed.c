/*
 * sealed.c: the sealed initializers of a loaded model's main graph (see
 * sealed.h): records instead of tensors, the views and tensors that stand
 * for them, and the list of the thread's record sets. The loader
 * (model.c) makes the records.
 *
 * SPDX-License-Identifier: MIT
 */
#include "model/sealed.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/err.h"
#include "model/model.h"

/* the records of the thread's models, to be found by graph (a call makes
 * and frees its models in its own thread: no lock) */
static _Thread_local struct {
	scs_sealed **items;
	size_t n, cap;
} sealed_sets;

int
scs_sealed_register(scs_sealed *s)
{
	int rc = scs_grow(&sealed_sets.items, &sealed_sets.cap, sealed_sets.n, sizeof(*sealed_sets.items), 4,
	    "the list of sealed initializer sets");

	if (rc < 0)
		return rc;
	sealed_sets.items[sealed_sets.n++] = s;
	return SCS_OK;
}

void
scs_sealed_unregister(const scs_sealed *s)
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
int
scs_sealed_reserve(scs_sealed *s)
{
	return scs_grow(&s->items, &s->cap, s->n, sizeof(*s->items), 64, "the initializer list");
}

int
scs_sealed_append(scs_sealed *s, Onnx__TensorProto *t)
{
	scs_sealed_tensor *r;
	int rc;

	if ((rc = scs_sealed_reserve(s)) < 0)
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
void
scs_sealed_free(scs_sealed *s)
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
	scs_sealed_unregister(s);
	scs_sealed_free(s);
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
scs_sealed_tensor *
scs_sealed_record(scs_arena *arena, Onnx__TensorProto *t)
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
