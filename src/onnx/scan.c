/*
 * scan.c: the wire walk (see scan.h). The schema knowledge comes from the
 * protobuf-c descriptors generated from proto/onnx.proto, so field numbers
 * live in one place; this file only reads their tables (it neither packs
 * nor unpacks messages).
 *
 * A TensorProto is read twice: a first walk over its fields learns the
 * type, dims, name and where the payload lies (seeking past payload bytes),
 * the second streams the payload once through the hash (and the store when
 * the bytes must be decoded or held) and writes the skeleton tensor.
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/scan.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "util/err.h"
#include "util/num.h"
#include "onnx.pb-c.h"
#include "onnx/pack.h"
#include "util/path.h"
#include "io/source.h"
#include "util/wire.h"

#define WIN_LEN ((size_t)1 << 20)
/* The first refill after a jump (see need()). */
#define WIN_AFTER_JUMP ((size_t)16 << 10)
#define NAME_MAX_LEN 4096
#define MAX_DIMS 4096
#define DECODE_LEN ((size_t)64 << 10)

typedef struct scan {
	scs_payloads *set;
	scs_source *src;          /* the model file (owned by set) */
	uint32_t file;            /* its index in set */
	const char *path;
	char *dir;                /* the model's folder, for external data */
	const scs_scan_options *opts;
	uint8_t *win;             /* bytes [win_off, win_off + win_len) of the file */
	uint64_t win_off;
	size_t win_len;
	size_t win_next;          /* bytes the next refill reads (WIN_AFTER_JUMP .. WIN_LEN) */
	uint8_t *piece;           /* SCS_CHUNK_LEN, for streaming payloads */
	uint8_t *decode;          /* DECODE_LEN, typed fields decoded to raw form */
	struct tensor_info *ti;   /* the tensor being scanned (tensors do not nest) */
	uint64_t last_progress;   /* done when progress was last reported */
	uint64_t ext_len;         /* bytes of the external data files met so far */
	uint64_t ext_done;        /* external bytes read so far */
} scan;

/*
 * Report progress every 64 MiB (and when @force): every byte read so far, the
 * model's up to @off and its external data's, of the model file and the
 * external data files met so far.
 */
static void
progress(scan *sc, uint64_t off, int force)
{
	uint64_t done = off + sc->ext_done;

	if (sc->opts->progress && (force || done - sc->last_progress >= ((uint64_t)64 << 20))) {
		sc->last_progress = done;
		sc->opts->progress(sc->opts->progress_payload, done, scs_source_size(sc->src) + sc->ext_len);
	}
}

static int
at(const scan *sc, uint64_t off, int code, const char *what)
{
	return scs_err_set(code, "%s: offset %llu: %s", sc->path, (unsigned long long)off, what);
}

/* Make [off, off + len) readable in the window (len <= WIN_LEN). */
static int
need(scan *sc, uint64_t off, size_t len, const uint8_t **p)
{
	uint64_t size = scs_source_size(sc->src);
	size_t want, keep;
	int rc, jump;

	if (off >= sc->win_off && off - sc->win_off + len <= sc->win_len) {
		*p = sc->win + (off - sc->win_off);
		return SCS_OK;
	}
	if (off > size || len > size - off)
		return at(sc, off, SCS_ECORRUPT, "runs past the end of the file");
	/*
	 * a refill right after the window reads twice as far as the last one
	 * (up to WIN_LEN); one after a jump over a payload the scan leaves
	 * where it lies reads WIN_AFTER_JUMP, so the next tensor's fields come
	 * without the next megabyte of its payload, which is read later anyway
	 */
	jump = off > sc->win_off + sc->win_len || sc->win_next == 0;
	if (jump)
		sc->win_next = WIN_AFTER_JUMP;
	else if (sc->win_next < WIN_LEN)
		sc->win_next *= 2;
	want = sc->win_next > len ? sc->win_next : len;
	if (want > WIN_LEN)
		want = WIN_LEN;
	if (want > size - off)
		want = (size_t)(size - off);
	/* bytes the window holds already move to its front: each is read once */
	keep = off >= sc->win_off && off - sc->win_off < sc->win_len ? (size_t)(sc->win_off + sc->win_len - off) : 0;
	if (keep)
		memmove(sc->win, sc->win + (off - sc->win_off), keep);
	sc->win_len = 0;
	if ((rc = scs_source_read(sc->src, sc->win + keep, want - keep, off + keep)) < 0)
		return rc;
	sc->win_off = off;
	sc->win_len = want;
	*p = sc->win;
	progress(sc, off, 0);
	return SCS_OK;
}

/* The file ends inside @what: it was cut short (a message's end is the file's). */
static int
truncated(const scan *sc, const char *what)
{
	return scs_err_set(SCS_ECORRUPT, "%s: truncated: the file ends at byte %llu inside %s", sc->path,
	    (unsigned long long)scs_source_size(sc->src), what);
}

/* Bytes at @off start no protobuf field ONNX could hold (field number 0, a group, wire type 6 or 7). */
static int
not_onnx(const scan *sc, uint64_t off)
{
	return scs_err_set(SCS_ECORRUPT, "%s: not an ONNX model (offset %llu: bytes that start no field of an ONNX "
	    "message)", sc->path, (unsigned long long)off);
}

/* Decode a varint at *off, which must end before @end (in a message @md); advance *off. */
static int
get_varint(scan *sc, const ProtobufCMessageDescriptor *md, uint64_t *off, uint64_t end, uint64_t *v)
{
	const uint8_t *p;
	size_t avail, used;
	int rc;

	avail = end - *off < SCS_WIRE_VARINT_MAX ? (size_t)(end - *off) : SCS_WIRE_VARINT_MAX;
	if (avail == 0)
		goto past_the_end;
	if ((rc = need(sc, *off, avail, &p)) < 0)
		return rc;
	rc = scs_wire_get_varint(v, p, avail, &used);
	if (rc == SCS_DONE)
		goto past_the_end;
	if (rc < 0)
		return scs_err_wrap(rc, "%s: offset %llu", sc->path, (unsigned long long)*off);
	*off += used;
	return SCS_OK;
past_the_end:
	if (end == scs_source_size(sc->src))
		return truncated(sc, md->short_name);
	return at(sc, *off, SCS_ECORRUPT, "varint runs past the end of its message");
}

/* One field's place in the file. */
typedef struct field {
	uint64_t tag_off;     /* where the tag starts */
	uint64_t val_off;     /* where the value (after any length) starts */
	uint64_t val_len;
	uint64_t varint;      /* the value, for SCS_WIRE_VARINT */
	uint32_t num;
	uint8_t wt;
} field;

/* Read the field at *off (< end, in a message @md) and advance past it. */
static int
next_field(scan *sc, const ProtobufCMessageDescriptor *md, uint64_t *off, uint64_t end, field *f)
{
	uint64_t tag;
	const uint8_t *p;
	int rc;

	f->tag_off = *off;
	if ((rc = get_varint(sc, md, off, end, &tag)) < 0)
		return rc;
	if (scs_wire_split_tag(tag, &f->num, &f->wt) < 0)
		return not_onnx(sc, f->tag_off);
	switch (f->wt) {
	case SCS_WIRE_VARINT:
		f->val_off = *off;
		if ((rc = get_varint(sc, md, off, end, &f->varint)) < 0)
			return rc;
		f->val_len = *off - f->val_off;
		return SCS_OK;
	case SCS_WIRE_I64:
	case SCS_WIRE_I32:
		f->val_len = f->wt == SCS_WIRE_I64 ? 8 : 4;
		break;
	case SCS_WIRE_LEN:
		if ((rc = get_varint(sc, md, off, end, &f->val_len)) < 0)
			return rc;
		break;
	default:
		return not_onnx(sc, f->tag_off);
	}
	f->val_off = *off;
	if (f->val_len > end - *off) {
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(md, f->num);
		char what[160];

		if (f->val_len > scs_source_size(sc->src) - *off) {
			if (fd)
				snprintf(what, sizeof(what), "%s.%s (%llu bytes from offset %llu)", md->short_name,
				    fd->name, (unsigned long long)f->val_len, (unsigned long long)*off);
			else
				snprintf(what, sizeof(what), "%s field %u (%llu bytes from offset %llu)", md->short_name,
				    f->num, (unsigned long long)f->val_len, (unsigned long long)*off);
			return truncated(sc, what);
		}

		snprintf(what, sizeof(what), "field %u: length %llu runs past the end of its message", f->num,
		    (unsigned long long)f->val_len);
		return at(sc, f->tag_off, SCS_ECORRUPT, what);
	}
	*off += f->val_len;
	if (f->wt == SCS_WIRE_I32 || f->wt == SCS_WIRE_I64) {
		if ((rc = need(sc, f->val_off, (size_t)f->val_len, &p)) < 0)
			return rc;
		f->varint = f->wt == SCS_WIRE_I32 ? scs_load_le32(p) : scs_load_le64(p);
	}
	return SCS_OK;
}

/* Check a known field's wire type; NULL descriptor (unknown field) passes. */
static int
check_wire(scan *sc, const ProtobufCMessageDescriptor *md, const ProtobufCFieldDescriptor *fd, const field *f)
{
	uint8_t want;
	char what[192];

	if (fd == NULL)
		return SCS_OK;
	want = scs_pack_wire_type(fd->type);
	if (f->wt == want || (fd->label == PROTOBUF_C_LABEL_REPEATED && want != SCS_WIRE_LEN &&
	    f->wt == SCS_WIRE_LEN))
		return SCS_OK;
	snprintf(what, sizeof(what), "%s.%s (field %u) has wire type %s, expected %s", md->short_name,
	    fd->name, f->num, scs_wire_type_name(f->wt), scs_wire_type_name(want));
	return at(sc, f->tag_off, SCS_ECORRUPT, what);
}

/* Append file bytes [off, off + len) to @out. */
static int
copy_bytes(scan *sc, scs_buf *out, uint64_t off, uint64_t len)
{
	const uint8_t *p;
	size_t take;
	int rc;

	while (len) {
		take = len > WIN_LEN ? WIN_LEN : (size_t)len;
		if ((rc = need(sc, off, take, &p)) < 0 || (rc = scs_buf_add(out, p, take)) < 0)
			return rc;
		off += take;
		len -= take;
	}
	return SCS_OK;
}

static int scan_message(scan *sc, const ProtobufCMessageDescriptor *md, uint64_t start, uint64_t end,
    int depth, scs_buf *out);

/* ---- tensors ---- */

typedef struct tensor_info {
	int64_t dtype;
	int has_dtype;
	size_t n_dims;
	int64_t location;         /* data_location */
	int has_raw;              /* raw_data seen; raw is the last one */
	field raw;
	int n_typed;              /* occurrences of typed fields */
	int has_strings;
	int has_ext_location;
	uint64_t ext_offset, ext_length;
	int has_ext_offset, has_ext_length;
	/* the arrays last: a new tensor clears only what comes before them */
	int64_t dims[MAX_DIMS];
	char name[NAME_MAX_LEN];
	char ext_location[NAME_MAX_LEN];
} tensor_info;

static int
tensor_fail(scan *sc, const tensor_info *ti, uint64_t off, int code, const char *fmt, const char *arg)
{
	char what[512];

	snprintf(what, sizeof(what), fmt, arg);
	return scs_err_set(code, "%s: offset %llu: tensor '%s': %s", sc->path, (unsigned long long)off,
	    ti->name, what);
}

/* Copy a small string field into @dst (cut at @cap - 1 bytes). */
static int
small_string(scan *sc, const field *f, char *dst, size_t cap)
{
	const uint8_t *p;
	size_t n = f->val_len < cap - 1 ? (size_t)f->val_len : cap - 1;
	int rc;

	if ((rc = need(sc, f->val_off, n, &p)) < 0)
		return rc;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return SCS_OK;
}

static int
parse_ext_entry(scan *sc, tensor_info *ti, const field *f)
{
	uint64_t off = f->val_off, end = f->val_off + f->val_len, v;
	char key[64] = "", value[NAME_MAX_LEN] = "", *stop;
	field g;
	int rc;

	while (off < end) {
		if ((rc = next_field(sc, &onnx__string_string_entry_proto__descriptor, &off, end, &g)) < 0)
			return rc;
		if (g.wt != SCS_WIRE_LEN)
			continue;
		if (g.num == 1 && (rc = small_string(sc, &g, key, sizeof(key))) < 0)
			return rc;
		if (g.num == 2 && (rc = small_string(sc, &g, value, sizeof(value))) < 0)
			return rc;
	}
	if (strcmp(key, "location") == 0) {
		memcpy(ti->ext_location, value, sizeof(ti->ext_location));
		ti->has_ext_location = 1;
		return SCS_OK;
	}
	if (strcmp(key, "offset") != 0 && strcmp(key, "length") != 0)
		return SCS_OK;    /* checksum and others are informative */
	v = strtoull(value, &stop, 10);
	if (value[0] == '\0' || value[0] == '-' || *stop != '\0')
		return tensor_fail(sc, ti, f->tag_off, SCS_ECORRUPT, "external data %s is not a number", key);
	if (key[0] == 'o') {
		ti->ext_offset = v;
		ti->has_ext_offset = 1;
	} else {
		ti->ext_length = v;
		ti->has_ext_length = 1;
	}
	return SCS_OK;
}

static int
is_payload_field(uint32_t num)
{
	return num == SCS_TF_FLOAT || num == SCS_TF_INT32 || num == SCS_TF_INT64 || num == SCS_TF_RAW ||
	    num == SCS_TF_DOUBLE || num == SCS_TF_UINT64;
}

/* First walk: learn everything but the payload bytes. */
static int
tensor_first_walk(scan *sc, tensor_info *ti, uint64_t start, uint64_t end)
{
	const ProtobufCMessageDescriptor *md = &onnx__tensor_proto__descriptor;
	uint64_t off = start, v, sub;
	field f;
	int rc;

	while (off < end) {
		if ((rc = next_field(sc, md, &off, end, &f)) < 0)
			return rc;
		if (f.num == SCS_SCAN_REF_FIELD)
			return at(sc, f.tag_off, SCS_EUNSUPPORTED, "tensor uses field number 536870911");
		if ((rc = check_wire(sc, md, protobuf_c_message_descriptor_get_field(md, f.num), &f)) < 0)
			return rc;
		switch (f.num) {
		case 1:
			if (f.wt == SCS_WIRE_VARINT) {
				if (ti->n_dims == MAX_DIMS)
					return at(sc, f.tag_off, SCS_ECORRUPT, "tensor has more than 4096 dims");
				ti->dims[ti->n_dims++] = (int64_t)f.varint;
				break;
			}
			for (sub = f.val_off; sub < f.val_off + f.val_len;) {
				if ((rc = get_varint(sc, md, &sub, f.val_off + f.val_len, &v)) < 0)
					return rc;
				if (ti->n_dims == MAX_DIMS)
					return at(sc, f.tag_off, SCS_ECORRUPT, "tensor has more than 4096 dims");
				ti->dims[ti->n_dims++] = (int64_t)v;
			}
			break;
		case 2:
			ti->dtype = (int64_t)f.varint;
			ti->has_dtype = 1;
			break;
		case 8:
			if ((rc = small_string(sc, &f, ti->name, sizeof(ti->name))) < 0)
				return rc;
			break;
		case 13:
			if ((rc = parse_ext_entry(sc, ti, &f)) < 0)
				return rc;
			break;
		case 14:
			ti->location = (int64_t)f.varint;
			break;
		case SCS_TF_STRING:
			ti->has_strings = 1;
			break;
		case SCS_TF_RAW:
			ti->has_raw = 1;
			ti->raw = f;
			break;
		default:
			if (is_payload_field(f.num))
				ti->n_typed++;
		}
	}
	return SCS_OK;
}

/* Bytes of raw data a tensor of @ti's dims and type holds. */
static int
expected_len(scan *sc, const tensor_info *ti, uint64_t off, uint64_t *out)
{
	uint64_t n = 1;
	unsigned bits = scs_dtype_bits((int)ti->dtype);

	for (size_t i = 0; i < ti->n_dims; i++) {
		if (ti->dims[i] < 0)
			return tensor_fail(sc, ti, off, SCS_ECORRUPT, "has a negative dim%s", "");
		if (scs_u64_mul(&n, n, (uint64_t)ti->dims[i]) < 0)
			return tensor_fail(sc, ti, off, SCS_ECORRUPT, "element count overflows%s", "");
	}
	if (n > UINT64_MAX / 8)
		return tensor_fail(sc, ti, off, SCS_ECORRUPT, "element count overflows%s", "");
	*out = (n * bits + 7) / 8;
	return SCS_OK;
}

/* Stream file bytes [off, off + len) through the hash (and @w when set). */
static int
stream_range(scan *sc, scs_source *src, uint64_t off, uint64_t len, scs_hash *h, scs_store_writer *w)
{
	size_t take;
	int rc;

	while (len) {
		take = len > SCS_CHUNK_LEN ? SCS_CHUNK_LEN : (size_t)len;
		if ((rc = scs_source_read(src, sc->piece, take, off)) < 0)
			return rc;
		if (h)
			scs_hash_update(h, sc->piece, take);
		if (w && (rc = scs_store_writer_write(w, sc->piece, take)) < 0)
			return rc;
		off += take;
		len -= take;
	}
	return SCS_OK;
}

/* Finish @w (freed on every path): @pl is the stored blob. */
static int
finish_in_store(scs_payload *pl, scs_store_writer *w)
{
	scs_blob blob;
	int rc;

	if ((rc = scs_store_writer_finish(&blob, w)) < 0)
		return rc;
	scs_payload_at_store(pl, &blob);
	return SCS_OK;
}

typedef struct decoder {
	scs_store_writer *w;
	size_t n;
	uint64_t total;
} decoder;

static int
emit_raw(scan *sc, decoder *d, const void *p, size_t len)
{
	int rc;

	if (d->n + len > DECODE_LEN) {
		if ((rc = scs_store_writer_write(d->w, sc->decode, d->n)) < 0)
			return rc;
		d->n = 0;
	}
	memcpy(sc->decode + d->n, p, len);
	d->n += len;
	d->total += len;
	return SCS_OK;
}

/* One integer element of int32_data / int64_data / uint64_data, in raw form. */
static int
emit_int(scan *sc, decoder *d, int dtype, uint64_t v)
{
	uint8_t b[8];
	unsigned bits = scs_dtype_bits(dtype);

	scs_store_le64(b, v);
	/* sub-byte types keep one packed byte per int32 element */
	return emit_raw(sc, d, b, bits < 8 ? 1 : bits / 8);
}

/* Decode one occurrence of a typed field into @d. */
static int
decode_typed(scan *sc, const tensor_info *ti, decoder *d, const field *f)
{
	int dtype = (int)ti->dtype;
	uint64_t off, end, v;
	const uint8_t *p;
	size_t take;
	int rc;

	if ((int)f->num != scs_dtype_field(dtype)) {
		char what[96];

		snprintf(what, sizeof(what), "%s data in field %u, which does not carry that type",
		    scs_dtype_name(dtype), f->num);
		return tensor_fail(sc, ti, f->tag_off, SCS_ECORRUPT, "%s", what);
	}
	if (f->num == SCS_TF_FLOAT || f->num == SCS_TF_DOUBLE) {
		/* fixed-width little-endian: the wire bytes are the raw bytes */
		if (f->wt != SCS_WIRE_LEN) {
			uint8_t b[8];

			scs_store_le64(b, f->varint);
			return emit_raw(sc, d, b, (size_t)f->val_len);
		}
		if (f->val_len % (f->num == SCS_TF_FLOAT ? 4 : 8))
			return tensor_fail(sc, ti, f->tag_off, SCS_ECORRUPT, "packed %s is cut mid-element",
			    f->num == SCS_TF_FLOAT ? "float_data" : "double_data");
		for (off = f->val_off, end = off + f->val_len; off < end; off += take) {
			take = end - off > WIN_LEN ? WIN_LEN : (size_t)(end - off);
			if ((rc = need(sc, off, take, &p)) < 0 || (rc = emit_raw(sc, d, p, 0)) < 0)
				return rc;
			if (d->n && (rc = scs_store_writer_write(d->w, sc->decode, d->n)) < 0)
				return rc;
			d->n = 0;
			if ((rc = scs_store_writer_write(d->w, p, take)) < 0)
				return rc;
			d->total += take;
		}
		return SCS_OK;
	}
	if (f->wt == SCS_WIRE_VARINT)
		return emit_int(sc, d, dtype, f->varint);
	for (off = f->val_off, end = off + f->val_len; off < end;) {
		if ((rc = get_varint(sc, &onnx__tensor_proto__descriptor, &off, end, &v)) < 0 ||
		    (rc = emit_int(sc, d, dtype, v)) < 0)
			return rc;
	}
	return SCS_OK;
}

/* Second walk over the typed fields, in file order, into the store. */
static int
decode_tensor(scan *sc, const tensor_info *ti, uint64_t start, uint64_t end, scs_payload *pl)
{
	decoder d = { NULL, 0, 0 };
	uint64_t off = start;
	field f;
	int rc;

	if (sc->set->store == NULL)
		return scs_err_set(SCS_EUSAGE, "typed tensor data needs a store");
	if ((rc = scs_store_writer_open(&d.w, sc->set->store)) < 0)
		return rc;
	while (off < end) {
		if ((rc = next_field(sc, &onnx__tensor_proto__descriptor, &off, end, &f)) < 0)
			goto fail;
		if (is_payload_field(f.num) && f.num != SCS_TF_RAW && (rc = decode_typed(sc, ti, &d, &f)) < 0)
			goto fail;
	}
	if (d.n && (rc = scs_store_writer_write(d.w, sc->decode, d.n)) < 0)
		goto fail;
	return finish_in_store(pl, d.w);
fail:
	scs_store_writer_abort(d.w);
	return rc;
}

/* Hash (and maybe store) a payload that lies verbatim in file @file; a large one is hashed later. */
static int
take_file_range(scan *sc, uint32_t file, uint64_t off, uint64_t len, scs_payload *pl)
{
	uint64_t size = scs_source_size(sc->set->files[file]);
	scs_store_writer *w = NULL;
	const uint8_t *p;
	scs_hash h;
	int rc;

	if (!sc->opts->hold_bytes && off <= size && len <= size - off &&
	    (((file != sc->file || len > WIN_LEN) && len > SCS_PAYLOADS_SMALL_LEN) || (file != sc->file && len > 0))) {
		/* a large payload left where it lies is hashed when a pass asks
		 * (scs_payloads_key); a small one of an external file at the end
		 * of the scan, with the others (key_small_external()) */
		memset(pl, 0, sizeof(*pl));
		pl->key.len = len;
		pl->unkeyed = 1;
		pl->where = SCS_AT_FILE;
		pl->file = file;
		pl->off = off;
		return SCS_OK;
	}
	if (sc->opts->hold_bytes && (rc = scs_store_writer_open(&w, sc->set->store)) < 0)
		return rc;
	scs_hash_init(&h);
	if (file == sc->file && len <= WIN_LEN) {
		/* from the scan window: the bytes after the payload are the scan's next ones */
		rc = need(sc, off, (size_t)len, &p);
	} else if (len <= SCS_PAYLOADS_SMALL_LEN) {
		/* a small external payload: its neighbours come with it */
		rc = scs_payloads_peek(sc->set, file, off, (size_t)len, &p);
	} else {
		rc = stream_range(sc, sc->set->files[file], off, len, &h, w);
		p = NULL;
	}
	if (rc == SCS_OK && p) {
		scs_hash_update(&h, p, (size_t)len);
		if (w)
			rc = scs_store_writer_write(w, p, (size_t)len);
	}
	if (rc < 0) {
		scs_store_writer_abort(w);
		return rc;
	}
	if (w)
		return finish_in_store(pl, w);
	scs_hash_final(&pl->key, &h);
	pl->where = SCS_AT_FILE;
	pl->file = file;
	pl->off = off;
	return SCS_OK;
}

static int
take_external(scan *sc, const tensor_info *ti, uint64_t start, uint64_t want, scs_payload *pl)
{
	char *path = NULL;
	uint32_t file, n_files = sc->set->n_files;
	uint64_t size, off, len;
	int rc;

	if (!ti->has_ext_location)
		return tensor_fail(sc, ti, start, SCS_ECORRUPT, "external data without a location%s", "");
	if ((rc = scs_source_resolve_external(&path, sc->dir, ti->ext_location)) < 0)
		return scs_err_wrap(rc, "%s: offset %llu: tensor '%s'", sc->path, (unsigned long long)start,
		    ti->name);
	rc = scs_payloads_add_file(sc->set, path, &file);
	free(path);
	if (rc < 0)
		return scs_err_wrap(rc, "%s: tensor '%s'", sc->path, ti->name);
	size = scs_source_size(sc->set->files[file]);
	if (sc->set->n_files > n_files)
		sc->ext_len += size;
	off = ti->has_ext_offset ? ti->ext_offset : 0;
	len = ti->has_ext_length ? ti->ext_length : (off <= size ? size - off : 0);
	if (len != want) {
		char what[160];

		snprintf(what, sizeof(what), "external data length %llu, but its type and dims need %llu",
		    (unsigned long long)len, (unsigned long long)want);
		return tensor_fail(sc, ti, start, SCS_ECORRUPT, "%s", what);
	}
	if (off > size || len > size - off) {
		char what[400];

		snprintf(what, sizeof(what), "external data file '%.200s' is too short: %llu bytes, needs %llu at offset %llu",
		    ti->ext_location, (unsigned long long)size, (unsigned long long)len, (unsigned long long)off);
		return tensor_fail(sc, ti, start, SCS_ECORRUPT, "%s", what);
	}
	if ((rc = take_file_range(sc, file, off, len, pl)) < 0)
		return rc;
	sc->ext_done += len;
	progress(sc, start, 0);
	return SCS_OK;
}

static int
scan_tensor(scan *sc, uint64_t start, uint64_t end, scs_buf *out)
{
	tensor_info *ti;
	scs_payload pl;
	uint64_t want = 0, off;
	uint32_t id = 0;
	const uint8_t *p;
	field f;
	int rc, external, has_payload;
	uint8_t tag[SCS_WIRE_VARINT_MAX];

	ti = sc->ti;
	memset(ti, 0, offsetof(tensor_info, dims));
	ti->name[0] = '\0';
	ti->ext_location[0] = '\0';
	/* a tensor that fits the window is walked twice and hashed from one read */
	if (end - start <= WIN_LEN && (rc = need(sc, start, (size_t)(end - start), &p)) < 0)
		goto done;
	if ((rc = tensor_first_walk(sc, ti, start, end)) < 0)
		goto done;
	external = ti->location == 1;
	has_payload = external || ti->has_raw || ti->n_typed;
	if (ti->has_dtype && !scs_dtype_known(ti->dtype) && (has_payload || ti->dtype != 0)) {
		char what[64];

		snprintf(what, sizeof(what), "unknown data type %lld", (long long)ti->dtype);
		rc = tensor_fail(sc, ti, start, SCS_ECORRUPT, "%s", what);
		goto done;
	}
	if (ti->dtype == SCS_DT_STRING)
		has_payload = 0;      /* string_data stays in the skeleton */
	if (has_payload && (external + ti->has_raw + (ti->n_typed > 0)) > 1) {
		rc = tensor_fail(sc, ti, start, SCS_ECORRUPT, "holds its data in more than one way%s", "");
		goto done;
	}
	if (has_payload) {
		if (!scs_dtype_known(ti->dtype)) {
			rc = tensor_fail(sc, ti, start, SCS_ECORRUPT, "has data but no data type%s", "");
			goto done;
		}
		if ((rc = expected_len(sc, ti, start, &want)) < 0)
			goto done;
		memset(&pl, 0, sizeof(pl));
		if (external) {
			rc = take_external(sc, ti, start, want, &pl);
		} else if (ti->has_raw) {
			if (ti->raw.val_len != want) {
				char what[128];

				snprintf(what, sizeof(what), "raw_data has %llu bytes, its type and dims need %llu",
				    (unsigned long long)ti->raw.val_len, (unsigned long long)want);
				rc = tensor_fail(sc, ti, ti->raw.tag_off, SCS_ECORRUPT, "%s", what);
				goto done;
			}
			rc = take_file_range(sc, sc->file, ti->raw.val_off, ti->raw.val_len, &pl);
		} else {
			rc = decode_tensor(sc, ti, start, end, &pl);
			if (rc == SCS_OK && pl.key.len != want) {
				char what[128];

				snprintf(what, sizeof(what), "typed data has %llu bytes in raw form, its type and dims need %llu",
				    (unsigned long long)pl.key.len, (unsigned long long)want);
				rc = tensor_fail(sc, ti, start, SCS_ECORRUPT, "%s", what);
			}
		}
		if (rc < 0 || (rc = scs_payloads_add(sc->set, &pl, &id)) < 0)
			goto done;
	}
	/* the skeleton tensor: every field but the payload, then the reference */
	for (off = start; off < end;) {
		if ((rc = next_field(sc, &onnx__tensor_proto__descriptor, &off, end, &f)) < 0)
			goto done;
		if (has_payload && (is_payload_field(f.num) || (external && (f.num == 13 || f.num == 14))))
			continue;
		if ((rc = copy_bytes(sc, out, f.tag_off, off - f.tag_off)) < 0)
			goto done;
	}
	if (has_payload) {
		rc = scs_buf_add(out, tag, scs_wire_put_varint(tag, (uint64_t)SCS_SCAN_REF_FIELD << 3));
		if (rc == SCS_OK)
			rc = scs_buf_add_varint(out, id);
	}
done:
	return rc;
}

/* ---- messages ---- */

static int
scan_message(scan *sc, const ProtobufCMessageDescriptor *md, uint64_t start, uint64_t end, int depth,
    scs_buf *out)
{
	const ProtobufCFieldDescriptor *fd;
	scs_buf child = SCS_BUF_INIT;
	uint64_t off = start;
	field f;
	int rc = SCS_OK;

	if (depth > SCS_SCAN_MAX_DEPTH)
		return at(sc, start, SCS_ECORRUPT, "messages nested deeper than 96 levels");
	while (off < end) {
		if ((rc = next_field(sc, md, &off, end, &f)) < 0)
			break;
		fd = protobuf_c_message_descriptor_get_field(md, f.num);
		if ((rc = check_wire(sc, md, fd, &f)) < 0)
			break;
		if (fd == NULL || fd->type != PROTOBUF_C_TYPE_MESSAGE) {
			if ((rc = copy_bytes(sc, out, f.tag_off, off - f.tag_off)) < 0)
				break;
			continue;
		}
		child.len = 0;
		if (fd->descriptor == &onnx__tensor_proto__descriptor)
			rc = scan_tensor(sc, f.val_off, off, &child);
		else
			rc = scan_message(sc, fd->descriptor, f.val_off, off, depth + 1, &child);
		if (rc < 0)
			break;
		if (sc->opts->part && depth == 1 && md == &onnx__graph_proto__descriptor &&
		    fd->label == PROTOBUF_C_LABEL_REPEATED) {
			if ((rc = sc->opts->part(sc->opts->part_ctx, f.num, child.data, child.len, f.val_off)) < 0)
				break;
			continue;
		}
		if ((rc = scs_buf_add_varint(out, (uint64_t)f.num << 3 | SCS_WIRE_LEN)) < 0 ||
		    (rc = scs_buf_add_varint(out, child.len)) < 0 || (rc = scs_buf_add(out, child.data, child.len)) < 0)
			break;
	}
	scs_buf_dispose(&child);
	return rc;
}

/* Small external payloads asked of the disk ahead of the one being hashed, at most. */
#define KEY_AHEAD 256

/*
 * Hash the small payloads of external files that the scan of @sc left
 * unkeyed, ids from @first on. Read when met, each would wait for the disk
 * in turn (a few ms each, cold, when they lie between large payloads, as
 * the norms and biases of each layer of a model do); here the next
 * KEY_AHEAD are asked for while one is hashed, so the disk serves them at
 * once, and each is then read through the read-ahead buffer, in the
 * scan's order (neighbours still come in one read).
 */
static int
key_small_external(scan *sc, size_t first)
{
	scs_payloads *set = sc->set;
	size_t ahead = first;
	int rc;

	for (size_t i = first; i < set->n; i++) {
		scs_payload *p = &set->items[i];
		const uint8_t *q;
		scs_hash h;

		if (!p->unkeyed || p->where != SCS_AT_FILE || p->file == sc->file || p->key.len > SCS_PAYLOADS_SMALL_LEN)
			continue;
		for (; ahead < set->n && ahead < i + KEY_AHEAD; ahead++) {
			const scs_payload *a = &set->items[ahead];

			if (a->unkeyed && a->where == SCS_AT_FILE && a->file != sc->file &&
			    a->key.len <= SCS_PAYLOADS_SMALL_LEN)
				scs_payloads_prefetch(set, (uint32_t)ahead, 0, a->key.len);
		}
		if ((rc = scs_payloads_peek(set, p->file, p->off, (size_t)p->key.len, &q)) < 0)
			return rc;
		scs_hash_init(&h);
		scs_hash_update(&h, q, (size_t)p->key.len);
		scs_hash_final(&p->key, &h);
		p->unkeyed = 0;
	}
	return SCS_OK;
}

int
scs_scan_file(scs_buf *skeleton, scs_payloads *set, const char *path, const scs_scan_options *opts)
{
	size_t first = set->n;
	static const scs_scan_options none;
	scan sc;
	uint64_t size;
	int rc, fd;

	memset(&sc, 0, sizeof(sc));
	sc.set = set;
	sc.path = path;
	sc.opts = opts ? opts : &none;
	if ((rc = scs_payloads_add_file(set, path, &sc.file)) < 0)
		return rc;
	sc.src = set->files[sc.file];
	size = scs_source_size(sc.src);
	if (size == 0)
		return scs_err_set(SCS_ECORRUPT, "%s: the file is empty", path);
	if ((sc.dir = scs_path_dir(path)) == NULL || (sc.win = malloc(WIN_LEN)) == NULL ||
	    (sc.piece = malloc(SCS_CHUNK_LEN)) == NULL || (sc.decode = malloc(DECODE_LEN)) == NULL ||
	    (sc.ti = malloc(sizeof(*sc.ti))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate scan buffers");
		goto done;
	}
	/*
	 * the window is the scan's read-ahead: the kernel's own would read on
	 * into each large payload the scan skips (read later, when the run
	 * streams it, or never), and in a memory cgroup those pages are gone
	 * again by then
	 */
	if ((fd = scs_source_fd(sc.src)) >= 0)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	rc = scan_message(&sc, &onnx__model_proto__descriptor, 0, size, 0, skeleton);
	if ((fd = scs_source_fd(sc.src)) >= 0)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL);
	if (rc == SCS_OK)
		rc = key_small_external(&sc, first);
	if (rc == SCS_OK && sc.opts->progress)
		sc.opts->progress(sc.opts->progress_payload, size + sc.ext_len, size + sc.ext_len);
done:
	free(sc.dir);
	free(sc.win);
	free(sc.piece);
	free(sc.decode);
	free(sc.ti);
	return rc;
}
