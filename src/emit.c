/*
 * emit.c: streaming model writer (see emit.h). protobuf-c computes every
 * length (a payload reference carries its real length, model.h) and hands
 * us the bytes field by field; a payload reference is replaced by the
 * payload itself, streamed in pieces, so no payload is ever whole in memory.
 */
#include "emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "num.h"

#define DATA_ALIGN 4096

#define PROGRESS_STEP ((uint64_t)64 << 20)

typedef struct out_buf {
	ProtobufCBuffer base;
	scs_model *m;
	scs_sink *sink;
	int rc;
	const scs_emit_options *opts;
	uint64_t total, reported;
} out_buf;

/* Report progress every PROGRESS_STEP bytes of @sink. */
static void
tick(const scs_emit_options *opts, scs_sink *sink, uint64_t *reported, uint64_t total)
{
	if (opts->progress && scs_sink_pos(sink) - *reported >= PROGRESS_STEP) {
		*reported = scs_sink_pos(sink);
		opts->progress(opts->progress_payload, *reported, total);
	}
}

static void
append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	out_buf *ob = (out_buf *)b;
	uint32_t id;
	int rc;

	if (ob->rc < 0)
		return;
	if (scs_model_ref_id(ob->m, data, &id)) {
		rc = scs_payloads_copy(ob->m->payloads, id, ob->sink);
		tick(ob->opts, ob->sink, &ob->reported, ob->total);
	} else {
		rc = scs_sink_write(ob->sink, data, len);
	}
	if (rc < 0)
		ob->rc = rc;
}

static int
pack_to(scs_model *m, scs_sink *sink, const scs_emit_options *opts, uint64_t total)
{
	out_buf ob = { { append }, m, sink, SCS_OK, opts, total, 0 };

	protobuf_c_message_pack_to_buffer(&m->proto->base, &ob.base);
	return ob.rc < 0 ? ob.rc : scs_sink_status(sink);
}

char *
scs_emit_data_path(const char *path)
{
	size_t n = strlen(path);
	char *p = malloc(n + 6);

	if (p) {
		memcpy(p, path, n);
		memcpy(p + n, ".data", 6);
	}
	return p;
}

/* One tensor moved out, and what it held before. */
typedef struct moved {
	Onnx__TensorProto *t;
	ProtobufCBinaryData raw;
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
	moved *grown;
	uint32_t id;
	uint64_t len;

	if (!scs_model_payload_of(p->m, t, &id) || (len = p->m->payloads->items[id].key.len) < p->min_len)
		return 0;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		if ((grown = realloc(p->items, p->cap * sizeof(*grown))) == NULL) {
			p->rc = scs_err_set(SCS_ENOMEM, "cannot grow the external data plan");
			return 1;
		}
		p->items = grown;
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
	mv->raw = t->raw_data;
	mv->had_location = t->has_data_location;
	mv->location = t->data_location;
	mv->n_ext = t->n_external_data;
	mv->ext = t->external_data;
	t->raw_data.data = NULL;
	t->raw_data.len = 0;
	t->has_raw_data = 0;
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

	if (mv->raw.data == NULL)
		return;    /* never moved */
	for (size_t i = 0; i < t->n_external_data; i++)
		protobuf_c_message_free_unpacked(&t->external_data[i]->base, NULL);
	free(t->external_data);
	t->external_data = mv->ext;
	t->n_external_data = mv->n_ext;
	t->has_data_location = mv->had_location;
	t->data_location = mv->location;
	t->raw_data = mv->raw;
	t->has_raw_data = 1;
}

/* Commit the model's sinks and the extra ones together; consumes all. */
static int
commit_all(scs_sink **own, size_t n_own, scs_sink **extra, size_t n_extra)
{
	scs_sink **all = calloc(n_own + n_extra, sizeof(*all));
	size_t i;
	int rc;

	if (all == NULL) {
		for (i = 0; i < n_own; i++)
			scs_sink_abort(own[i]);
		for (i = 0; i < n_extra; i++)
			scs_sink_abort(extra[i]);
		return scs_err_set(SCS_ENOMEM, "cannot allocate the commit list");
	}
	memcpy(all, own, n_own * sizeof(*all));
	if (n_extra)
		memcpy(all + n_own, extra, n_extra * sizeof(*all));
	rc = scs_sink_commit(all, n_own + n_extra);
	free(all);
	return rc;
}

static void
abort_all(scs_sink **extra, size_t n_extra)
{
	for (size_t i = 0; i < n_extra; i++)
		scs_sink_abort(extra[i]);
}

/* External data: OUT.data first, then the model pointing into it. */
static int
prepare_external(scs_emit_result *res, scs_model *m, const char *path, const scs_emit_options *opts,
    scs_sink *sinks[2])
{
	uint64_t reported = 0;
	plan p;
	char *data_path = NULL;
	size_t i;
	int rc;

	memset(&p, 0, sizeof(p));
	p.m = m;
	p.min_len = opts->external_min ? opts->external_min : 1024;
	if ((data_path = scs_emit_data_path(path)) == NULL ||
	    (p.offset_of = calloc(m->payloads->n ? m->payloads->n : 1, sizeof(*p.offset_of))) == NULL) {
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
	if ((rc = scs_sink_open(&sinks[0], data_path)) < 0)
		goto done;
	for (i = 0; i < p.n; i++) {
		uint32_t id;
		uint64_t off;

		scs_model_payload_of(m, p.items[i].t, &id);
		off = p.offset_of[id] - 1;
		/* offsets were given in this same order; a smaller one is shared and written */
		if (off < scs_sink_pos(sinks[0]))
			continue;
		if ((rc = scs_sink_pad_to(sinks[0], off)) < 0 ||
		    (rc = scs_payloads_copy(m->payloads, id, sinks[0])) < 0)
			goto done;
		tick(opts, sinks[0], &reported, p.data_len);
	}
	for (i = 0; i < p.n; i++)
		if ((rc = move_out(&p, &p.items[i], scs_path_base(data_path))) < 0)
			goto done;
	if ((rc = scs_sink_open(&sinks[1], path)) < 0 || (rc = pack_to(m, sinks[1], opts, 0)) < 0)
		goto done;
	res->external = 1;
	res->data_len = scs_sink_pos(sinks[0]);
	res->model_len = scs_sink_pos(sinks[1]);
	res->n_external = p.n;
done:
	for (i = 0; i < p.n; i++)
		move_back(&p.items[i]);
	free(p.items);
	free(p.offset_of);
	free(data_path);
	return rc;
}

int
scs_emit_prepare(scs_emit_result *res, scs_model *m, const char *path, const scs_emit_options *opts,
    scs_sink *sinks[2], size_t *n_sinks)
{
	static const scs_emit_options none;
	uint64_t inline_max, size;
	int rc;

	if (opts == NULL)
		opts = &none;
	memset(res, 0, sizeof(*res));
	sinks[0] = sinks[1] = NULL;
	*n_sinks = 0;
	inline_max = opts->inline_max ? opts->inline_max : SCS_EMIT_INLINE_MAX;
	size = protobuf_c_message_get_packed_size(&m->proto->base);
	rc = opts->external || size > inline_max ? prepare_external(res, m, path, opts, sinks) : SCS_DONE;
	if (rc == SCS_DONE && (rc = scs_sink_open(&sinks[0], path)) == SCS_OK &&
	    (rc = pack_to(m, sinks[0], opts, size)) == SCS_OK)
		res->model_len = scs_sink_pos(sinks[0]);
	for (size_t i = 0; i < 2; i++) {
		if (rc < 0) {
			scs_sink_abort(sinks[i]);
			sinks[i] = NULL;
		} else if (sinks[i] && (rc = scs_sink_park(sinks[i])) == SCS_OK) {
			(*n_sinks)++;
		}
	}
	if (rc < 0) {
		for (size_t i = 0; i < 2; i++) {
			scs_sink_abort(sinks[i]);
			sinks[i] = NULL;
		}
		*n_sinks = 0;
	}
	return rc;
}

int
scs_emit(scs_emit_result *res, scs_model *m, const char *path, const scs_emit_options *opts, scs_sink **extra,
    size_t n_extra)
{
	scs_sink *own[2];
	size_t n_own;
	int rc;

	if ((rc = scs_emit_prepare(res, m, path, opts, own, &n_own)) < 0) {
		abort_all(extra, n_extra);
		return rc;
	}
	return commit_all(own, n_own, extra, n_extra);
}
