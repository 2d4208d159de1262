/*
 * emit.c: streaming model writer (see emit.h). src/onnx/pack.c computes every
 * length and writes the skeleton; each payload reference reaches us as the
 * payload's id, and the payload is streamed in pieces from where it lies,
 * so no payload is ever whole in memory.
 *
 * SPDX-License-Identifier: MIT
 */
#include "model/emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/array.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/num.h"
#include "onnx/pack.h"

#define DATA_ALIGN 4096

#define PROGRESS_STEP ((uint64_t)64 << 20)

typedef struct out_ctx {
	scs_model *m;
	scs_sink *sink;
	const scs_emit_options *opts;
	uint64_t total, reported;
} out_ctx;

/* Report progress every PROGRESS_STEP bytes of @sink. */
static void
tick(const scs_emit_options *opts, scs_sink *sink, uint64_t *reported, uint64_t total)
{
	if (opts->progress && scs_sink_pos(sink) - *reported >= PROGRESS_STEP) {
		*reported = scs_sink_pos(sink);
		opts->progress(opts->progress_payload, *reported, total);
	}
}

static int
out_write(void *ctx, const void *data, size_t len)
{
	out_ctx *o = ctx;

	return scs_sink_write(o->sink, data, len);
}

static int
out_payload(void *ctx, uint32_t id)
{
	out_ctx *o = ctx;
	int rc = scs_payloads_copy(o->m->payloads, id, o->sink);

	tick(o->opts, o->sink, &o->reported, o->total);
	return rc;
}

/* Write @m's skeleton, sized by @packing, and its payloads into @sink. */
static int
pack_to(const scs_pack_plan *packing, scs_model *m, scs_sink *sink, const scs_emit_options *opts, uint64_t total)
{
	out_ctx o = { m, sink, opts, total, 0 };
	scs_pack_out out = { out_write, out_payload, &o };
	int rc = scs_pack_plan_write(packing, &out);

	return rc < 0 ? rc : scs_sink_status(sink);
}

/* One tensor moved out, and what it held before. */
typedef struct moved {
	Onnx__TensorProto *t;
	int moved;                /* 1: t is pointed at the data file (its reference put aside) */
	int had_location;
	Onnx__TensorProto__DataLocation location;
	size_t n_ext;
	Onnx__StringStringEntryProto **ext;
} moved;

typedef struct plan {
	scs_model *m;
	uint64_t min_len;
	moved *items;
	size_t n, cap;
	uint64_t *offset_of;      /* per payload id: offset in the data file + 1, 0 when not placed */
	uint64_t data_len;
	int rc;
} plan;

static int
plan_tensor(void *ctx, Onnx__TensorProto *t)
{
	plan *p = ctx;
	uint32_t id;
	uint64_t len;
	int rc;

	if (!scs_model_payload_of(p->m, t, &id) || (len = p->m->payloads->items[id].key.len) < p->min_len)
		return 0;
	if ((rc = scs_grow(&p->items, &p->cap, p->n, sizeof(*p->items), 64, "the external data plan")) < 0) {
		p->rc = rc;
		return 1;
	}
	memset(&p->items[p->n], 0, sizeof(p->items[p->n]));
	p->items[p->n++].t = t;
	if (p->offset_of[id] == 0) {
		p->data_len = scs_align_up(p->data_len, DATA_ALIGN);
		p->offset_of[id] = p->data_len + 1;
		p->data_len += len;
	}
	return 0;
}

/* Point a tensor at its place in the data file. */
static int
move_out(plan *p, moved *mv, const char *location)
{
	Onnx__TensorProto *t = mv->t;
	Onnx__StringStringEntryProto **ext;
	uint32_t id;
	uint64_t off;
	char num[32];
	size_t k = 0;

	scs_model_payload_of(p->m, t, &id);
	off = p->offset_of[id] - 1;
	if ((ext = calloc(t->n_external_data + 3, sizeof(*ext))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate external data entries");
	if ((ext[k++] = scs_entry_new("location", location)) == NULL)
		goto fail;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)off);
	if ((ext[k++] = scs_entry_new("offset", num)) == NULL)
		goto fail;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)p->m->payloads->items[id].key.len);
	if ((ext[k++] = scs_entry_new("length", num)) == NULL)
		goto fail;
	mv->moved = 1;
	mv->had_location = t->has_data_location;
	mv->location = t->data_location;
	mv->n_ext = t->n_external_data;
	mv->ext = t->external_data;
	t->has_scs_payload = 0;    /* the writer leaves raw_data out */
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	t->external_data = ext;
	t->n_external_data = 3;
	return SCS_OK;
fail:
	while (k--)
		protobuf_c_message_free_unpacked(&ext[k]->base, NULL);
	free(ext);
	return scs_err_set(SCS_ENOMEM, "cannot allocate external data entries");
}

static void
move_back(moved *mv)
{
	Onnx__TensorProto *t = mv->t;

	if (!mv->moved)
		return;
	for (size_t i = 0; i < t->n_external_data; i++)
		protobuf_c_message_free_unpacked(&t->external_data[i]->base, NULL);
	free(t->external_data);
	t->external_data = mv->ext;
	t->n_external_data = mv->n_ext;
	t->has_data_location = mv->had_location;
	t->data_location = mv->location;
	t->has_scs_payload = 1;
}

/*
 * The data file's name comes from what it holds: its length and, for each
 * payload in it, the offset and the content key. The same contents get the
 * same name, so replacing a file of that name never changes what an older
 * model reads from it.
 */
static int
data_token(char out[SCS_DATA_TOKEN_LEN + 1], const plan *p)
{
	uint64_t end = 0, word[4];
	scs_hash h;
	scs_key k, key;
	int rc;

	scs_hash_init(&h);
	for (size_t b = 0; b < 8; b++) {
		uint8_t byte = (uint8_t)(p->data_len >> (8 * b));

		scs_hash_update(&h, &byte, 1);
	}
	for (size_t i = 0; i < p->n; i++) {
		uint32_t id;

		scs_model_payload_of(p->m, p->items[i].t, &id);
		word[0] = p->offset_of[id] - 1;
		if (word[0] < end)
			continue;    /* shared with an earlier tensor */
		if ((rc = scs_payloads_key(p->m->payloads, id, &key)) < 0)
			return rc;
		end = word[0] + key.len;
		word[1] = key.h[0];
		word[2] = key.h[1];
		word[3] = key.len;
		for (size_t j = 0; j < 4; j++) {
			uint8_t le[8];

			for (size_t b = 0; b < 8; b++)
				le[b] = (uint8_t)(word[j] >> (8 * b));
			scs_hash_update(&h, le, sizeof(le));
		}
	}
	scs_hash_final(&k, &h);
	snprintf(out, SCS_DATA_TOKEN_LEN + 1, "%016llx", (unsigned long long)(k.h[0] ^ k.h[1]));
	return SCS_OK;
}

/* External data: the data file first, then the model pointing into it. */
static int
write_external(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts)
{
	char token[SCS_DATA_TOKEN_LEN + 1];
	scs_sink *data = NULL, *model = NULL;
	scs_pack_plan *packing = NULL;
	uint64_t reported = 0;
	plan p;
	char *data_name = NULL;
	size_t i;
	int rc;

	memset(&p, 0, sizeof(p));
	p.m = m;
	p.min_len = opts->external_min ? opts->external_min : 1024;
	/* tensors move out and back: each must be one of its own */
	if ((rc = scs_model_unseal(m)) < 0)
		return rc;
	if ((p.offset_of = calloc(m->payloads->n ? m->payloads->n : 1, sizeof(*p.offset_of))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the external data plan");
		goto done;
	}
	scs_model_each_tensor(m->proto, plan_tensor, &p);
	if ((rc = p.rc) < 0)
		goto done;
	if (p.n == 0) {
		rc = SCS_DONE;        /* nothing to put beside the model: it goes inline */
		goto done;
	}
	if ((rc = data_token(token, &p)) < 0)
		goto done;
	if ((data_name = scs_sink_data_name(name, token)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		goto done;
	}
	if ((rc = scs_commit_open(&data, c, data_name, SCS_SINK_DATA)) < 0)
		goto done;
	for (i = 0; i < p.n; i++) {
		uint32_t id;
		uint64_t off;

		scs_model_payload_of(m, p.items[i].t, &id);
		off = p.offset_of[id] - 1;
		/* offsets were given in this same order; a smaller one is shared and written */
		if (off < scs_sink_pos(data))
			continue;
		if ((rc = scs_sink_pad_to(data, off)) < 0 ||
		    (rc = scs_payloads_copy(m->payloads, id, data)) < 0)
			goto done;
		tick(opts, data, &reported, p.data_len);
	}
	if ((rc = scs_sink_park(data)) < 0)
		goto done;
	for (i = 0; i < p.n; i++)
		if ((rc = move_out(&p, &p.items[i], data_name)) < 0)
			goto done;
	if ((rc = scs_pack_plan_make(&packing, &m->proto->base, m->payloads)) < 0 ||
	    (rc = scs_commit_open(&model, c, name, SCS_SINK_MODEL)) < 0 || (rc = pack_to(packing, m, model, opts, 0)) < 0 ||
	    (rc = scs_sink_park(model)) < 0)
		goto done;
	res->external = 1;
	res->data_len = scs_sink_pos(data);
	res->model_len = scs_sink_pos(model);
	res->n_external = p.n;
done:
	scs_pack_plan_free(packing);
	for (i = 0; i < p.n; i++)
		move_back(&p.items[i]);
	free(p.items);
	free(p.offset_of);
	free(data_name);
	return rc;
}

int
scs_emit_write(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts)
{
	static const scs_emit_options none;
	uint64_t inline_max, size;
	scs_pack_plan *packing;
	scs_pack_more more;
	scs_sink *model;
	int rc;

	if (opts == NULL)
		opts = &none;
	memset(res, 0, sizeof(*res));
	inline_max = opts->inline_max ? opts->inline_max : SCS_EMIT_INLINE_MAX;
	/* the sizing pass serves the inline write too; sealed initializers
	 * (model.h) are written from their records */
	if ((rc = scs_pack_plan_make_more(&packing, &m->proto->base, m->payloads,
	    scs_model_pack_more(m, &more) ? &more : NULL)) < 0)
		return rc;
	size = scs_pack_plan_len(packing);
	if (opts->external || size > inline_max) {
		scs_pack_plan_free(packing);
		packing = NULL;
		if ((rc = write_external(res, m, c, name, opts)) != SCS_DONE ||
		    (rc = scs_pack_plan_make(&packing, &m->proto->base, m->payloads)) < 0)
			return rc;
	}
	if ((rc = scs_commit_open(&model, c, name, SCS_SINK_MODEL)) == SCS_OK &&
	    (rc = pack_to(packing, m, model, opts, size)) == SCS_OK && (rc = scs_sink_park(model)) == SCS_OK)
		res->model_len = scs_sink_pos(model);
	scs_pack_plan_free(packing);
	return rc;
}

/* The payloads of plan @p into @data, each at its offset, once. */
static int
write_shared_data(const plan *p, scs_sink *data, const scs_emit_options *opts)
{
	uint64_t reported = 0;
	int rc;

	for (size_t i = 0; i < p->n; i++) {
		uint32_t id;
		uint64_t off;

		scs_model_payload_of(p->m, p->items[i].t, &id);
		off = p->offset_of[id] - 1;
		if (off < scs_sink_pos(data))
			continue;     /* written for an earlier tensor, of this model or another */
		if ((rc = scs_sink_pad_to(data, off)) < 0 || (rc = scs_payloads_copy(p->m->payloads, id, data)) < 0)
			return rc;
		tick(opts, data, &reported, p->data_len);
	}
	return scs_sink_status(data);
}

/* Model @m (its tensors moved out already) as the file @name of @c, into *res (@dry: sized only). */
static int
write_shared_model(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts,
    int dry)
{
	scs_pack_plan *packing = NULL;
	scs_sink *model;
	int rc;

	if ((rc = scs_pack_plan_make(&packing, &m->proto->base, m->payloads)) < 0)
		return rc;
	if (dry)
		res->model_len = scs_pack_plan_len(packing);
	else if ((rc = scs_commit_open(&model, c, name, SCS_SINK_MODEL)) == SCS_OK &&
	    (rc = pack_to(packing, m, model, opts, 0)) == SCS_OK && (rc = scs_sink_park(model)) == SCS_OK)
		res->model_len = scs_sink_pos(model);
	scs_pack_plan_free(packing);
	return rc;
}

int
scs_emit_write_shared(scs_emit_result *res, scs_model *const *ms, size_t n, scs_commit *c,
    const char *const *names, const char *stem, const scs_emit_options *opts, int dry, char **data_name)
{
	static const scs_emit_options none;
	char token[SCS_DATA_TOKEN_LEN + 1];
	scs_sink *data = NULL;
	size_t *first;            /* [k]: model k's first item in the plan; [n]: the end */
	plan p;
	size_t i, k;
	int rc = SCS_OK;

	if (opts == NULL)
		opts = &none;
	*data_name = NULL;
	memset(res, 0, n * sizeof(*res));
	if (n == 0)
		return SCS_OK;
	memset(&p, 0, sizeof(p));
	p.m = ms[0];              /* one payload set: any of the models reads it */
	p.min_len = opts->external_min ? opts->external_min : 1024;
	if ((first = calloc(n + 1, sizeof(*first))) == NULL ||
	    (p.offset_of = calloc(p.m->payloads->n ? p.m->payloads->n : 1, sizeof(*p.offset_of))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the external data plan");
		goto done;
	}
	for (k = 0; k < n; k++) {
		/* tensors move out and back: each must be one of its own */
		if ((rc = scs_model_unseal(ms[k])) < 0)
			goto done;
		first[k] = p.n;
		scs_model_each_tensor(ms[k]->proto, plan_tensor, &p);
		if ((rc = p.rc) < 0)
			goto done;
	}
	first[n] = p.n;
	if (p.n) {
		if ((rc = data_token(token, &p)) < 0)
			goto done;
		if ((*data_name = scs_sink_data_name(stem, token)) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
			goto done;
		}
		if (!dry && ((rc = scs_commit_open(&data, c, *data_name, SCS_SINK_DATA)) < 0 ||
		    (rc = write_shared_data(&p, data, opts)) < 0 || (rc = scs_sink_park(data)) < 0))
			goto done;
		for (i = 0; i < p.n; i++)
			if ((rc = move_out(&p, &p.items[i], *data_name)) < 0)
				goto done;
	}
	for (k = 0; k < n; k++) {
		if ((rc = write_shared_model(&res[k], ms[k], c, names[k], opts, dry)) < 0)
			goto done;
		res[k].external = first[k + 1] > first[k];
		res[k].n_external = first[k + 1] - first[k];
		res[k].data_len = p.n ? (dry ? p.data_len : scs_sink_pos(data)) : 0;
	}
done:
	for (i = 0; i < p.n; i++)
		move_back(&p.items[i]);
	if (rc < 0) {
		free(*data_name);
		*data_name = NULL;
	}
	free(p.items);
	free(p.offset_of);
	free(first);
	return rc;
}
