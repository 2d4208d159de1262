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
#include "util/num.h"
#include "util/err.h"
#include "util/hash.h"
#include "util/wire.h"
#include "onnx/dtype.h"
#include "onnx/pack.h"

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
	const scs_data_layout *only; /* not NULL: only the tensors whose payload it holds */
	moved *items;
	uint32_t *ids;            /* per item: its payload */
	size_t n, cap, cap_ids;
	int rc;
} plan;

static int
plan_tensor(void *ctx, Onnx__TensorProto *t)
{
	plan *p = ctx;
	uint32_t id;
	int rc;

	if (!scs_model_payload_of(p->m, t, &id) || p->m->payloads->items[id].key.len < p->min_len ||
	    (p->only && scs_data_layout_find(p->only, id) == NULL))
		return 0;
	if ((rc = scs_grow(&p->items, &p->cap, p->n, sizeof(*p->items), 64, "the external data plan")) < 0 ||
	    (rc = scs_grow(&p->ids, &p->cap_ids, p->n, sizeof(*p->ids), 64, "the external data plan")) < 0) {
		p->rc = rc;
		return 1;
	}
	memset(&p->items[p->n], 0, sizeof(p->items[p->n]));
	p->ids[p->n] = id;
	p->items[p->n++].t = t;
	return 0;
}

/* Point a tensor at its place (@off in the data file @location). */
static int
move_out(plan *p, moved *mv, const char *location, uint64_t off)
{
	Onnx__TensorProto *t = mv->t;
	Onnx__StringStringEntryProto **ext;
	uint32_t id;
	char num[32];
	size_t k = 0;

	scs_model_payload_of(p->m, t, &id);
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

/* Point every planned tensor at its place in the data files of @l, named for @name. */
static int
move_all_out(plan *p, const scs_data_layout *l, const char *name)
{
	char **names = calloc(l->n_files ? l->n_files : 1, sizeof(*names));
	int rc = SCS_OK;

	if (names == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	for (uint32_t f = 0; f < l->n_files && rc == SCS_OK; f++)
		if ((names[f] = scs_data_layout_name(l, name, f)) == NULL)
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	for (size_t i = 0; i < p->n && rc == SCS_OK; i++) {
		const scs_data_place *at = scs_data_layout_find(l, p->ids[i]);

		rc = move_out(p, &p->items[i], names[at->file], at->offset);
	}
	for (uint32_t f = 0; f < l->n_files; f++)
		free(names[f]);
	free(names);
	return rc;
}

/* Collect the tensors that go external (plan_tensor) into @p, for model @m. */
static int
plan_start(plan *p, scs_model *m, const scs_emit_options *opts, const scs_data_layout *only)
{
	int rc;

	memset(p, 0, sizeof(*p));
	p->m = m;
	p->min_len = opts->external_min ? opts->external_min : 1024;
	p->only = only;
	/* tensors move out and back: each must be one of its own */
	if ((rc = scs_model_unseal(m)) < 0)
		return rc;
	scs_model_each_placed(m->proto, plan_tensor, p);
	return p->rc;
}

/* Every tensor of @p back as it was. */
static void
plan_end(plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		move_back(&p->items[i]);
	free(p->items);
	free(p->ids);
}

/* The model of @p as the file @name of @c, its planned tensors pointing into @l's files named for @stem. */
static int
write_pointing(scs_emit_result *res, plan *p, scs_commit *c, const char *name, const scs_data_layout *l,
    const char *stem, const scs_emit_options *opts)
{
	scs_sink *model = NULL;
	scs_pack_plan *packing = NULL;
	int rc;

	if ((rc = move_all_out(p, l, stem)) == SCS_OK &&
	    (rc = scs_pack_plan_make(&packing, &p->m->proto->base, p->m->payloads)) == SCS_OK &&
	    (rc = scs_commit_open(&model, c, name, SCS_SINK_MODEL)) == SCS_OK &&
	    (rc = pack_to(packing, p->m, model, opts, 0)) == SCS_OK && (rc = scs_sink_park(model)) == SCS_OK) {
		res->external = p->n > 0;
		res->model_len = scs_sink_pos(model);
		res->n_external = p->n;
	}
	scs_pack_plan_free(packing);
	return rc;
}

/* External data: the data files first (datafiles.h), then the model pointing into them. */
static int
write_external(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts)
{
	plan p;
	int rc;

	if ((rc = plan_start(&p, m, opts, NULL)) < 0)
		goto done;
	if (p.n == 0) {
		rc = SCS_DONE;        /* nothing to put beside the model: it goes inline */
		goto done;
	}
	/* with numbered files (a new layout), also payloads of equal bytes that tensors do not share are written once */
	if ((rc = scs_data_layout_make(&res->data, m->payloads, p.ids, p.n, opts->max_file_len,
	    opts->max_file_len ? SCS_DATA_SHARE_EQUAL : 0)) < 0 ||
	    (rc = scs_data_layout_write(&res->data, m->payloads, c, name, opts->progress, opts->progress_payload)) < 0 ||
	    (rc = write_pointing(res, &p, c, name, &res->data, name, opts)) < 0)
		goto done;
	res->data_len = scs_data_layout_len(&res->data);
done:
	plan_end(&p);
	if (rc < 0 || rc == SCS_DONE)
		scs_data_layout_dispose(&res->data);
	return rc;
}

int
scs_emit_write_into(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_data_layout *l,
    const char *data_stem, const scs_emit_options *opts)
{
	static const scs_emit_options none;
	plan p;
	int rc;

	if (opts == NULL)
		opts = &none;
	memset(res, 0, sizeof(*res));
	if ((rc = plan_start(&p, m, opts, l)) == SCS_OK)
		rc = write_pointing(res, &p, c, name, l, data_stem, opts);
	plan_end(&p);
	return rc;
}

/* ---- the spill ---- */

typedef struct spill_plan {
	scs_model *m;
	uint64_t min_len;
	scs_spill_item *items;
	size_t n, cap;
	int rc;
} spill_plan;

/* A tensor's element type and dims, digested: a class of tensors a dedup may merge (never 0). */
static uint64_t
tensor_class(const Onnx__TensorProto *t)
{
	uint64_t w[2] = { (uint64_t)(uint32_t)t->data_type, t->n_dims };

	w[0] = scs_hash64(w, sizeof(w));
	w[1] = t->n_dims ? scs_hash64(t->dims, t->n_dims * sizeof(*t->dims)) : 0;
	w[0] = scs_hash64(w, sizeof(w));
	return w[0] ? w[0] : 1;
}

static int
spill_tensor(void *ctx, Onnx__TensorProto *t)
{
	spill_plan *sp = ctx;
	uint32_t id;
	int rc;

	if (!scs_model_payload_of(sp->m, t, &id) || sp->m->payloads->items[id].key.len < sp->min_len)
		return 0;
	if ((rc = scs_grow(&sp->items, &sp->cap, sp->n, sizeof(*sp->items), 64, "the spill plan")) < 0) {
		sp->rc = rc;
		return 1;
	}
	memset(&sp->items[sp->n], 0, sizeof(sp->items[sp->n]));
	sp->items[sp->n].id = id;
	sp->items[sp->n++].cls = tensor_class(t);
	return 0;
}

/* What a payload may equal: tensors of one class and length, and a digest of its bytes (or head). */
typedef struct spill_sig {
	uint64_t cls, len, sig[2];
	uint32_t item;
	uint32_t file;
	uint64_t off;
	int head;                 /* 1: sig[1] is to be its head */
} spill_sig;

static int
by_class(const void *a, const void *b)
{
	const spill_sig *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->sig[0] != y->sig[0])
		return x->sig[0] < y->sig[0] ? -1 : 1;
	if (x->sig[1] != y->sig[1])
		return x->sig[1] < y->sig[1] ? -1 : 1;
	return 0;
}

static int
by_place(const void *a, const void *b)
{
	const spill_sig *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * Which payloads may equal another (items[i].strong: the spill takes their
 * strong digests), and into *@out the fewest bytes the data file can hold
 * once equal payloads of a class are merged. A class and length that one
 * payload alone has holds no equal; in one that several have, payloads are
 * told apart by key (when all are keyed) or by head (scs_payloads_head():
 * one page read each, in file order). Equal payloads have equal heads, so
 * *@out is a lower bound and no equal pair goes unmarked.
 */
/* Heads asked of the disk ahead of the one read, at most. */
#define HEAD_AHEAD 256

static int
mark_equal(spill_plan *sp, uint64_t *out)
{
	scs_payloads *set = sp->m->payloads;
	spill_sig *s;
	size_t n = sp->n, i, j, k;
	int rc = SCS_OK;

	*out = 0;
	if ((s = calloc(n ? n : 1, sizeof(*s))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the spill plan");
	for (i = 0; i < n; i++) {
		const scs_payload *p = &set->items[sp->items[i].id];

		s[i].cls = sp->items[i].cls;
		s[i].len = p->key.len;
		s[i].item = (uint32_t)i;
		s[i].file = p->where == SCS_AT_FILE ? p->file : UINT32_MAX;
		s[i].off = p->off;
	}
	qsort(s, n, sizeof(*s), by_class);
	for (i = 0; i < n; i = j) {
		int all_keyed = 1;

		for (j = i; j < n && s[j].cls == s[i].cls && s[j].len == s[i].len; j++)
			all_keyed &= !set->items[sp->items[s[j].item].id].unkeyed;
		for (k = i; k < j; k++) {
			const scs_payload *p = &set->items[sp->items[s[k].item].id];

			if (j - i == 1) {
				s[k].sig[1] = s[k].item;      /* alone: distinct */
			} else if (all_keyed) {
				s[k].sig[0] = p->key.h[0];
				s[k].sig[1] = p->key.h[1];
			} else {
				s[k].sig[0] = 1;
				s[k].head = 1;
			}
		}
	}
	qsort(s, n, sizeof(*s), by_place);
	for (i = 0, k = 0; i < n && rc == SCS_OK; i++) {
		if (!s[i].head)
			continue;
		/* the next HEAD_AHEAD pages asked of the disk while this one is read */
		for (; k < n && k < i + HEAD_AHEAD; k++)
			if (s[k].head)
				scs_payloads_prefetch(set, sp->items[s[k].item].id, 0, 4096);
		rc = scs_payloads_head(set, sp->items[s[i].item].id, &s[i].sig[1]);
	}
	if (rc == SCS_OK) {
		qsort(s, n, sizeof(*s), by_class);
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && by_class(&s[i], &s[j]) == 0; j++)
				;
			*out += s[i].len;
			for (k = i; k < j; k++)
				sp->items[s[k].item].strong = j - i > 1;
		}
	}
	free(s);
	return rc;
}

static int stream_inline(scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts,
    int merge_equal, int policy, int *spilled);

/* Where the spill's next numbered file is made. */
typedef struct spill_opener {
	scs_commit *c;
	const char *name;
} spill_opener;

static int
open_spill_file(void *ctx, scs_sink **out)
{
	spill_opener *to = ctx;

	return scs_commit_open(out, to->c, to->name, SCS_SINK_DATA);
}

/*
 * The most files a spill of @sp's items in files of at most @max bytes
 * makes: each file but the last was closed by a payload that did not fit
 * after it, so two consecutive files hold more than @max bytes of extents
 * (payloads up to the next multiple of SCS_DATA_ALIGN), and there is no
 * more than one file per payload.
 */
static uint64_t
spill_files_at_most(const spill_plan *sp, uint64_t max)
{
	uint64_t ext = 0;

	for (size_t i = 0; i < sp->n; i++)
		ext += scs_align_up(sp->m->payloads->items[sp->items[i].id].key.len, SCS_DATA_ALIGN);
	return ext / max * 2 + 2 < sp->n + 1 ? ext / max * 2 + 2 : sp->n + 1;
}

int
scs_emit_spill(scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts, int merge_equal,
    int *spilled)
{
	uint64_t max = opts->inline_max ? opts->inline_max : SCS_EMIT_INLINE_MAX, total = 0, kept;
	int policy = scs_payloads_spill_policy();
	spill_plan sp;
	scs_sink *sink = NULL;
	char *spill_name = NULL;
	scs_spill_next next;
	spill_opener to;
	int rc;

	*spilled = 0;
	if (policy == 0)
		return SCS_OK;
	memset(&sp, 0, sizeof(sp));
	sp.m = m;
	sp.min_len = opts->external_min ? opts->external_min : 1024;
	if (policy == 2 && !opts->external)
		goto inline_out;
	scs_model_each_placed(m->proto, spill_tensor, &sp);
	if ((rc = sp.rc) < 0)
		goto done;
	for (size_t i = 0; i < sp.n; i++)
		total += m->payloads->items[sp.items[i].id].key.len;
	/* a spill pays only when the write will be external: asked for, or too long for inline even merged */
	if (policy != 1 && !opts->external && total <= max)
		goto inline_out;
	if (merge_equal && (rc = mark_equal(&sp, &kept)) < 0)
		goto done;
	if (merge_equal && policy != 1 && !opts->external && kept <= max)
		goto inline_out;
	/* numbered files: each spill file holds a descriptor until the commit (the writer takes file f as
	 * its own file f, and opens those past the spill's) */
	if (opts->max_file_len && !scs_data_files_room(spill_files_at_most(&sp, opts->max_file_len)))
		goto done;        /* written whole */
	if ((spill_name = scs_sink_spill_name(name)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		goto done;
	}
	if ((rc = scs_commit_open(&sink, c, spill_name, SCS_SINK_DATA)) < 0)
		goto done;
	next.max_len = opts->max_file_len;
	next.open = open_spill_file;
	next.ctx = &to;
	to.c = c;
	to.name = spill_name;
	if ((rc = scs_payloads_spill(m->payloads, sink, c, sp.items, sp.n, merge_equal, 4096, &next, opts->progress,
	    opts->progress_payload)) < 0) {
		if (m->payloads->n_spill == 0)
			scs_commit_drop(c, sink);
		scs_emit_spill_drop(m, c);
		goto done;
	}
	*spilled = 1;
	goto done;
inline_out:
	/* the output may go inline: stream its large initializers into the model */
	rc = stream_inline(m, c, name, opts, merge_equal, policy, spilled);
done:
	free(spill_name);
	free(sp.items);
	return rc;
}

/* ---- the inline stream ---- */

/*
 * An output that goes inline and is long enough that reading its payloads
 * twice costs (from the disk twice, when the model is larger than the page
 * cache) is written while its input is read: the model's fields before its
 * graph, the graph's tag and a length left open, then the records of the
 * main graph's large initializers (the first run, scs_pack_init_run(), but
 * float64 ones a downcast may narrow), each payload hashed as it is copied
 * and taken back when it equals an earlier one of its class. The
 * writer then writes the whole model through match_write()/match_payload():
 * what equals the stream is kept, and from the first byte that differs
 * (a constant a pass narrowed, removed or renamed) the file is cut and
 * written on. Either way the file holds what the writer writes: the stream
 * only spares the reads.
 */

/* GraphProto.initializer's field number, ModelProto.graph's. */
#define INIT_FIELD 5u
#define GRAPH_FIELD 7u

/* Payloads a stream takes before it pays (unless a test asks for it). */
#define STREAM_MIN ((uint64_t)64 << 20)

typedef struct capture {
	scs_buf *b;
	size_t split;             /* where the payload goes: bytes before it are the head */
} capture;

static int
cap_write(void *ctx, const void *data, size_t len)
{
	return scs_buf_add(((capture *)ctx)->b, data, len);
}

static int
cap_payload(void *ctx, uint32_t id)
{
	capture *cp = ctx;

	(void)id;
	cp->split = cp->b->len;
	return SCS_OK;
}

typedef struct stream_plan {
	scs_model *m;
	int narrows;              /* 1: a downcast may narrow int64 and float64 constants */
	scs_buf bytes;            /* each item's record: head, then tail */
	scs_spill_item *items;
	size_t *at;               /* per item: its head's offset in bytes */
	size_t n, cap, cap_at;
	uint8_t *seen;            /* per payload id: 1 once an item has it */
	uint64_t total;
	int rc;
} stream_plan;

/* Add initializer @t's record to the stream when it will be of the first run as it is. */
static int
stream_tensor(stream_plan *st, Onnx__TensorProto *t)
{
	scs_payloads *set = st->m->payloads;
	uint8_t tag[1 + SCS_WIRE_VARINT_MAX];
	scs_pack_out out;
	capture cp;
	size_t start = st->bytes.len, n_tag;
	uint32_t id;
	int rc;

	/* the first run (pack.c), but a float64 constant a downcast may narrow */
	if (scs_pack_init_run(t) != 0 || !scs_model_payload_of(st->m, t, &id) || st->seen[id] ||
	    (st->narrows && t->data_type == SCS_DT_DOUBLE))
		return 0;
	st->seen[id] = 1;
	if ((rc = scs_grow(&st->items, &st->cap, st->n, sizeof(*st->items), 64, "the stream plan")) < 0 ||
	    (rc = scs_grow(&st->at, &st->cap_at, st->n, sizeof(*st->at), 64, "the stream plan")) < 0)
		goto fail;
	/* the record as the writer puts it: the initializer's tag and length, then the tensor */
	tag[0] = (uint8_t)((INIT_FIELD << 3) | SCS_WIRE_LEN);
	n_tag = 1 + scs_wire_put_varint(tag + 1, scs_pack_size(&t->base, set));
	cp.b = &st->bytes;
	cp.split = SIZE_MAX;
	out.write = cap_write;
	out.payload = cap_payload;
	out.ctx = &cp;
	if ((rc = scs_buf_add(&st->bytes, tag, n_tag)) < 0 || (rc = scs_pack_write(&t->base, set, &out)) < 0)
		goto fail;
	if (cp.split == SIZE_MAX) {
		st->bytes.len = start;
		return 0;
	}
	memset(&st->items[st->n], 0, sizeof(st->items[st->n]));
	st->items[st->n].id = id;
	st->items[st->n].cls = tensor_class(t);
	st->items[st->n].head_len = cp.split - start;
	st->items[st->n].tail_len = st->bytes.len - cp.split;
	st->at[st->n++] = start;
	st->total += set->items[id].key.len;
	return 0;
fail:
	st->rc = rc;
	return 1;
}

/* The main graph's initializers in the writer's order (its list, then the sealed records) into @st. */
static int
stream_collect(stream_plan *st)
{
	Onnx__GraphProto *g = st->m->proto->graph;
	scs_sealed *s = scs_sealed_of(g);
	Onnx__TensorProto *t;

	if ((st->seen = calloc(st->m->payloads->n ? st->m->payloads->n : 1, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the stream plan");
	for (size_t i = 0; g && i < g->n_initializer && st->rc == SCS_OK; i++)
		stream_tensor(st, g->initializer[i]);
	for (size_t i = 0; s && i < s->n && st->rc == SCS_OK; i++)
		if ((t = scs_sealed_get(s, i)) != NULL)
			stream_tensor(st, t);
	for (size_t i = 0; i < st->n; i++) {
		st->items[i].head = st->bytes.data + st->at[i];
		st->items[i].tail = st->items[i].head + st->items[i].head_len;
	}
	return st->rc;
}

static void
stream_plan_dispose(stream_plan *st)
{
	scs_buf_dispose(&st->bytes);
	free(st->items);
	free(st->at);
	free(st->seen);
}

/* The model's fields before its graph, packed (what the writer puts first). */
static int
model_head(const scs_model *m, scs_buf *b)
{
	Onnx__ModelProto h = *m->proto;
	capture cp = { b, SIZE_MAX };
	scs_pack_out out = { cap_write, cap_payload, &cp };

	h.base.n_unknown_fields = 0;
	h.base.unknown_fields = NULL;
	h.graph = NULL;
	h.n_opset_import = 0;
	h.n_metadata_props = 0;
	h.n_training_info = 0;
	h.n_functions = 0;
	return scs_pack_write(&h.base, m->payloads, &out);
}

/* Bytes the main graph packs to now (its sealed records included). */
static int
graph_len(scs_model *m, uint64_t *out)
{
	scs_pack_plan *packing;
	scs_pack_more more;
	int rc;

	rc = scs_pack_plan_make_more(&packing, &m->proto->graph->base, m->payloads,
	    scs_model_pack_more(m, &more) ? &more : NULL);
	if (rc == SCS_OK)
		*out = scs_pack_plan_len(packing);
	scs_pack_plan_free(packing);
	return rc;
}

static int
log_seg(scs_stream_log *lg, uint32_t id)
{
	int rc;

	if ((rc = scs_grow(&lg->segs, &lg->cap_segs, lg->n_segs, sizeof(*lg->segs), 64, "the stream log")) < 0)
		return rc;
	lg->segs[lg->n_segs].lit_end = lg->lit.len;
	lg->segs[lg->n_segs++].id = id;
	return SCS_OK;
}

/*
 * The inline stream (above) of model @m as the file @name of @c, when it
 * pays (or policy 2 asks); *@spilled 1 when it ran.
 */
static int
stream_inline(scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts, int merge_equal,
    int policy, int *spilled)
{
	scs_payloads *set = m->payloads;
	stream_plan st;
	spill_plan sp;
	scs_stream_log *lg = NULL;
	scs_sink *sink = NULL;
	uint64_t kept, glen = 0, pos;
	uint8_t tag = (uint8_t)((GRAPH_FIELD << 3) | SCS_WIRE_LEN), open[SCS_WIRE_VARINT_MAX];
	int rc = SCS_OK;

	memset(&st, 0, sizeof(st));
	st.m = m;
	st.narrows = opts->narrows;
	if (m->proto->graph == NULL || (rc = stream_collect(&st)) < 0 || st.n == 0 ||
	    (policy != 2 && st.total < STREAM_MIN))
		goto done;
	kept = st.total;
	memset(&sp, 0, sizeof(sp));
	sp.m = m;
	sp.items = st.items;
	sp.n = st.n;
	if (merge_equal && (rc = mark_equal(&sp, &kept)) < 0)
		goto done;
	/* the graph's length as it will likely be: a guess (a wrong one costs the stream, nothing else) */
	if ((rc = graph_len(m, &glen)) < 0)
		goto done;
	glen -= st.total - kept;
	if ((lg = calloc(1, sizeof(*lg))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the stream log");
		goto done;
	}
	if ((rc = model_head(m, &lg->lit)) < 0 || (rc = scs_buf_add(&lg->lit, &tag, 1)) < 0)
		goto done;
	lg->len_at = lg->lit.len;
	lg->len_width = (unsigned)scs_wire_varint_len(glen);
	memset(open, 0x80, sizeof(open));
	open[lg->len_width - 1] = 0;
	if ((rc = scs_buf_add(&lg->lit, open, lg->len_width)) < 0 ||
	    (rc = scs_commit_open(&sink, c, name, SCS_SINK_MODEL)) < 0)
		goto done;
	if ((rc = scs_sink_write(sink, lg->lit.data, lg->lit.len)) < 0 ||
	    (rc = scs_payloads_spill(set, sink, c, st.items, st.n, merge_equal, 1, NULL, opts->progress,
	    opts->progress_payload)) < 0) {
		scs_payloads_spill_forget(set);
		scs_commit_drop(c, sink);
		goto done;
	}
	/* not a data file's spill: the keys and strong digests stay, the sink is the stream's */
	scs_payloads_spill_forget(set);
	pos = lg->lit.len;
	for (size_t i = 0; i < st.n && rc == SCS_OK; i++) {
		if (scs_payloads_taken_back(set, st.items[i].id))
			continue;
		if ((rc = scs_buf_add(&lg->lit, st.items[i].head, st.items[i].head_len)) == SCS_OK &&
		    (rc = log_seg(lg, st.items[i].id)) == SCS_OK)
			rc = scs_buf_add(&lg->lit, st.items[i].tail, st.items[i].tail_len);
		pos += st.items[i].head_len + set->items[st.items[i].id].key.len + st.items[i].tail_len;
	}
	if (rc == SCS_OK)
		rc = log_seg(lg, UINT32_MAX);
	if (rc == SCS_OK && pos != scs_sink_pos(sink))
		rc = scs_err_set(SCS_EIO, "%s: the inline stream holds %llu bytes where its log has %llu",
		    scs_sink_target(sink), (unsigned long long)scs_sink_pos(sink), (unsigned long long)pos);
	if (rc < 0) {
		scs_commit_drop(c, sink);
		goto done;
	}
	lg->sink = sink;
	lg->owner = c;
	scs_payloads_stream_free(set);
	set->stream = lg;
	lg = NULL;
	*spilled = 1;
done:
	if (lg) {
		scs_buf_dispose(&lg->lit);
		free(lg->segs);
		free(lg);
	}
	stream_plan_dispose(&st);
	return rc;
}

/* ---- the writer's side of the stream: keep what matches ---- */

typedef struct match {
	out_ctx o;
	scs_stream_log *lg;
	int on;                   /* 1: still matching the stream */
	size_t seg;               /* the segment matched now */
	uint64_t lit;             /* the next literal byte to match */
	uint64_t pos;             /* the file position of the next byte */
	uint8_t len_bytes[SCS_WIRE_VARINT_MAX];
	unsigned len_got;         /* bytes of the graph's length seen */
	int rc;
} match;

/* Stop matching at the position now: the file ends here, what comes is written. */
static int
diverge(match *mt)
{
	int rc = SCS_OK;

	mt->on = 0;
	if (mt->len_got)
		rc = scs_sink_write_at(mt->o.sink, mt->lg->len_at, mt->len_bytes, mt->len_got);
	mt->len_got = 0;
	if (rc == SCS_OK && mt->pos < scs_sink_pos(mt->o.sink))
		rc = scs_sink_truncate(mt->o.sink, mt->pos);
	return rc;
}

static int
match_write(void *ctx, const void *data, size_t len)
{
	match *mt = ctx;
	const uint8_t *p = data;
	int rc;

	while (mt->on && len) {
		const scs_stream_seg *sg = &mt->lg->segs[mt->seg];

		if (mt->lit == sg->lit_end) {
			/* a payload is due (or the stream ends): bytes are not it */
			if (sg->id != UINT32_MAX || mt->seg + 1 == mt->lg->n_segs) {
				if ((rc = diverge(mt)) < 0)
					return rc;
				break;
			}
			mt->seg++;
			continue;
		}
		if (mt->lit >= mt->lg->len_at && mt->lit < mt->lg->len_at + mt->lg->len_width) {
			/* the graph's length: any number of this many bytes */
			unsigned k = (unsigned)(mt->lit - mt->lg->len_at);
			int last = k + 1 == mt->lg->len_width;

			if (((*p & 0x80) != 0) == last) {
				if ((rc = diverge(mt)) < 0)
					return rc;
				break;
			}
			mt->len_bytes[k] = *p;
			mt->len_got = k + 1;
			if (last && (rc = scs_sink_write_at(mt->o.sink, mt->lg->len_at, mt->len_bytes, mt->len_got)) < 0)
				return rc;
			if (last)
				mt->len_got = 0;
			mt->lit++, mt->pos++, p++, len--;
			continue;
		}
		{
			uint64_t run = sg->lit_end - mt->lit;
			size_t n = run < len ? (size_t)run : len, same = 0;

			if (mt->lit < mt->lg->len_at && mt->lg->len_at - mt->lit < n)
				n = (size_t)(mt->lg->len_at - mt->lit);
			while (same < n && p[same] == mt->lg->lit.data[mt->lit + same])
				same++;
			mt->lit += same, mt->pos += same, p += same, len -= same;
			if (same < n && (rc = diverge(mt)) < 0)
				return rc;
		}
	}
	return len ? scs_sink_write(mt->o.sink, p, len) : SCS_OK;
}

static int
match_payload(void *ctx, uint32_t id)
{
	match *mt = ctx;
	int rc;

	if (mt->on) {
		const scs_stream_seg *sg = &mt->lg->segs[mt->seg];

		if (mt->lit == sg->lit_end && sg->id == id) {
			mt->pos += mt->o.m->payloads->items[id].key.len;
			mt->seg++;
			return SCS_OK;
		}
		if ((rc = diverge(mt)) < 0)
			return rc;
	}
	return out_payload(&mt->o, id);
}

/* Write @m, sized by @packing, into the stream's sink, keeping what of the stream matches. */
static int
pack_matching(const scs_pack_plan *packing, scs_model *m, scs_stream_log *lg, const scs_emit_options *opts,
    uint64_t total)
{
	match mt;
	scs_pack_out out = { match_write, match_payload, &mt };
	int rc;

	memset(&mt, 0, sizeof(mt));
	mt.o.m = m;
	mt.o.sink = lg->sink;
	mt.o.opts = opts;
	mt.o.total = total;
	mt.lg = lg;
	mt.on = 1;
	if ((rc = scs_pack_plan_write(packing, &out)) == SCS_OK && mt.on)
		rc = diverge(&mt);        /* the stream went on past the model's end */
	return rc < 0 ? rc : scs_sink_status(lg->sink);
}

void
scs_emit_spill_drop(scs_model *m, scs_commit *c)
{
	if (m->payloads->spill_owner == c) {
		for (size_t i = 0; i < m->payloads->n_spill; i++)
			if (m->payloads->spill[i])
				scs_commit_drop(c, m->payloads->spill[i]);
		scs_payloads_spill_forget(m->payloads);
	}
	if (m->payloads->stream && m->payloads->stream->owner == c) {
		scs_commit_drop(c, m->payloads->stream->sink);
		scs_payloads_stream_free(m->payloads);
	}
}

void
scs_emit_result_dispose(scs_emit_result *res)
{
	scs_data_layout_dispose(&res->data);
}

/* The start of a write or its sizing: *@opts set (NULL: the defaults), @res emptied, @m packed whole
 * (sealed initializers, model.h, from their records) into *@packing; *@external: 1 when the options ask
 * for external data or the model is too long to go inline. */
static int
plan_whole(scs_emit_result *res, scs_pack_plan **packing, scs_model *m, const scs_emit_options **opts, int *external)
{
	static const scs_emit_options none;
	scs_pack_more more;
	int rc;

	if (*opts == NULL)
		*opts = &none;
	memset(res, 0, sizeof(*res));
	rc = scs_pack_plan_make_more(packing, &m->proto->base, m->payloads, scs_model_pack_more(m, &more) ? &more : NULL);
	if (rc == SCS_OK)
		*external = (*opts)->external ||
		    scs_pack_plan_len(*packing) > ((*opts)->inline_max ? (*opts)->inline_max : SCS_EMIT_INLINE_MAX);
	return rc;
}

int
scs_emit_write(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts)
{
	scs_pack_plan *packing;
	scs_stream_log *st = m->payloads->stream && m->payloads->stream->owner == c ? m->payloads->stream : NULL;
	scs_sink *model;
	uint64_t size;
	int rc, external;

	/* the sizing pass serves the inline write too */
	if ((rc = plan_whole(res, &packing, m, &opts, &external)) < 0)
		return rc;
	size = scs_pack_plan_len(packing);
	if (external) {
		scs_pack_plan_free(packing);
		packing = NULL;
		/* an inline stream of the model is no use to an external write */
		if (st) {
			scs_commit_drop(c, st->sink);
			scs_payloads_stream_free(m->payloads);
			st = NULL;
		}
		if ((rc = write_external(res, m, c, name, opts)) != SCS_DONE ||
		    (rc = scs_pack_plan_make(&packing, &m->proto->base, m->payloads)) < 0)
			return rc;
	}
	if (st) {
		model = st->sink;
		if ((rc = pack_matching(packing, m, st, opts, size)) == SCS_OK && (rc = scs_sink_park(model)) == SCS_OK)
			res->model_len = scs_sink_pos(model);
		scs_payloads_stream_free(m->payloads);
	} else if ((rc = scs_commit_open(&model, c, name, SCS_SINK_MODEL)) == SCS_OK &&
	    (rc = pack_to(packing, m, model, opts, size)) == SCS_OK && (rc = scs_sink_park(model)) == SCS_OK) {
		res->model_len = scs_sink_pos(model);
	}
	scs_pack_plan_free(packing);
	return rc;
}

/* Model @p's (its tensors pointed at @l's files for @stem) length as a file: what a write would give. */
static int
sized_pointing(scs_emit_result *res, plan *p, const scs_data_layout *l, const char *stem)
{
	scs_pack_plan *packing = NULL;
	int rc;

	if ((rc = move_all_out(p, l, stem)) == SCS_OK &&
	    (rc = scs_pack_plan_make(&packing, &p->m->proto->base, p->m->payloads)) == SCS_OK) {
		res->external = p->n > 0;
		res->model_len = scs_pack_plan_len(packing);
		res->n_external = p->n;
	}
	scs_pack_plan_free(packing);
	return rc;
}

/*
 * What scs_emit_write() would write, sized without writing: inline when the
 * model fits (the packing's length), otherwise the layout of the data files
 * (names of the same length, no digest read) and the model pointing into it.
 */
int
scs_emit_size(scs_emit_result *res, scs_model *m, const char *name, const scs_emit_options *opts)
{
	scs_pack_plan *packing;
	plan p;
	int rc, external;

	if ((rc = plan_whole(res, &packing, m, &opts, &external)) < 0)
		return rc;
	res->model_len = scs_pack_plan_len(packing);
	scs_pack_plan_free(packing);
	if (!external)
		return SCS_OK;
	if ((rc = plan_start(&p, m, opts, NULL)) == SCS_OK && p.n &&
	    (rc = scs_data_layout_make(&res->data, m->payloads, p.ids, p.n, opts->max_file_len,
	    (opts->max_file_len ? SCS_DATA_SHARE_EQUAL : 0) | SCS_DATA_SIZE_ONLY)) == SCS_OK &&
	    (rc = sized_pointing(res, &p, &res->data, name)) == SCS_OK)
		res->data_len = scs_data_layout_len(&res->data);
	plan_end(&p);
	return rc;
}

int
scs_emit_write_shared(scs_emit_result *res, scs_model *const *ms, size_t n, scs_commit *c,
    const char *const *names, const char *stem, const scs_emit_options *opts, int dry, scs_data_layout *l)
{
	static const scs_emit_options none;
	plan *p;
	uint32_t *ids = NULL;
	size_t i, k, n_ids = 0, started = 0;
	int rc = SCS_OK;

	if (opts == NULL)
		opts = &none;
	memset(l, 0, sizeof(*l));
	memset(res, 0, n * sizeof(*res));
	if (n == 0)
		return SCS_OK;
	if ((p = calloc(n, sizeof(*p))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the external data plan");
	for (k = 0; k < n && rc == SCS_OK; k++, started++) {
		rc = plan_start(&p[k], ms[k], opts, NULL);
		n_ids += p[k].n;
	}
	if (rc == SCS_OK && (ids = malloc((n_ids ? n_ids : 1) * sizeof(*ids))) == NULL)
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the external data plan");
	/* one layout over every model's payloads, in the order the models (then their tensors) first use them */
	for (k = 0, i = 0; k < n && rc == SCS_OK; k++) {
		if (p[k].n)     /* a model with no payload beside the others has no list */
			memcpy(ids + i, p[k].ids, p[k].n * sizeof(*ids));
		i += p[k].n;
	}
	if (rc == SCS_OK && n_ids && (rc = scs_data_layout_make(l, ms[0]->payloads, ids, n_ids, opts->max_file_len,
	    SCS_DATA_SHARE_EQUAL)) == SCS_OK && !dry)
		rc = scs_data_layout_write(l, ms[0]->payloads, c, stem, opts->progress, opts->progress_payload);
	for (k = 0; k < n && rc == SCS_OK; k++) {
		rc = dry ? sized_pointing(&res[k], &p[k], l, stem) : write_pointing(&res[k], &p[k], c, names[k], l, stem, opts);
		res[k].data_len = scs_data_layout_len(l);
	}
	for (k = 0; k < started; k++)
		plan_end(&p[k]);
	free(p);
	free(ids);
	if (rc < 0)
		scs_data_layout_dispose(l);
	return rc;
}
