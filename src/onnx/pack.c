/*
 * pack.c: the protobuf writer (see pack.h). Reads messages only through
 * protobuf-c's public descriptors (field offsets, labels, types, flags),
 * never through its packing code, so a payload reference is a value of the
 * skeleton and nothing depends on how protobuf-c packs nested messages.
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/pack.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/wire.h"
#include "onnx/dtype.h"

/* The emitting pass's buffer: the skeleton's small pieces reach @write in
 * runs this long at most. */
#define PACK_BUF_LEN ((size_t)64 << 10)

struct scs_pack_plan {
	const ProtobufCMessage *msg;
	const scs_payloads *set;
	uint64_t len;             /* bytes of the whole message */
	uint64_t *lens;           /* each nested message's length, in the order the emitting pass meets them */
	scs_pack_more more;       /* more->msg NULL: none */
};

typedef struct packer {
	const scs_payloads *set;
	const scs_pack_out *out;  /* the emitting pass: where bytes go */
	int record;               /* 1: the sizing pass records each nested message's length (and checks references) */
	uint64_t *lens;           /* ... in the order the emitting pass meets them */
	size_t n_lens, cap_lens, next;
	uint8_t *buf;
	size_t n_buf;
	const scs_pack_more *more;   /* NULL: none */
	int rc;
} packer;

/* 1 when field @f of @msg has elements @pk->more adds. */
static int
has_more(const packer *pk, const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	return pk->more && pk->more->msg == msg && f->offset == pk->more->offset &&
	    f->label == PROTOBUF_C_LABEL_REPEATED && f->type == PROTOBUF_C_TYPE_MESSAGE;
}

/* ---- the rules both passes share ---- */

static size_t
elt_size(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return 4;
	}
}

/* Bytes of one value of a fixed-length type on the wire; 0 for varints and
 * length-delimited types. */
static size_t
fixed_len(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return 4;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return 1;
	default:
		return 0;
	}
}

uint8_t
scs_pack_wire_type(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return SCS_WIRE_I32;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return SCS_WIRE_I64;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return SCS_WIRE_LEN;
	default:
		return SCS_WIRE_VARINT;
	}
}

/* A varint's value for one number; int32 and enums are sign-extended to 64
 * bits (a negative one takes 10 bytes), sint32/sint64 are zigzag. */
static uint64_t
varint_of(ProtobufCType type, const void *v)
{
	int32_t i32;
	int64_t i64;

	switch (type) {
	case PROTOBUF_C_TYPE_SINT32:
		memcpy(&i32, v, 4);
		return (uint32_t)(((uint32_t)i32 << 1) ^ (uint32_t)(i32 >> 31));
	case PROTOBUF_C_TYPE_ENUM:
	case PROTOBUF_C_TYPE_INT32:
		memcpy(&i32, v, 4);
		return (uint64_t)(int64_t)i32;
	case PROTOBUF_C_TYPE_UINT32:
		return *(const uint32_t *)v;
	case PROTOBUF_C_TYPE_SINT64:
		memcpy(&i64, v, 8);
		return ((uint64_t)i64 << 1) ^ (uint64_t)(i64 >> 63);
	case PROTOBUF_C_TYPE_BOOL:
		return *(const protobuf_c_boolean *)v ? 1 : 0;
	default:
		return *(const uint64_t *)v;
	}
}

static uint64_t
tag_of(uint32_t id, uint8_t wt)
{
	return ((uint64_t)id << 3) | wt;
}

/*
 * Values field @f of @msg puts on the wire, by protobuf-c's rules: a
 * repeated field its count; a required one always one; an optional string
 * or message when set and not its default; another optional one when its
 * has_ flag is set; a oneof member when it is the case chosen.
 */
static size_t
n_values(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	const char *base = (const char *)msg;
	const void *ptr;
	int pointer = f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_MESSAGE;

	if (f->label == PROTOBUF_C_LABEL_REPEATED)
		return *(const size_t *)(base + f->quantifier_offset);
	if (f->label == PROTOBUF_C_LABEL_REQUIRED)
		return 1;
	if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(const uint32_t *)(base + f->quantifier_offset) != f->id)
		return 0;
	if (pointer) {
		ptr = *(void *const *)(base + f->offset);
		return ptr != NULL && (f->label == PROTOBUF_C_LABEL_NONE || ptr != f->default_value);
	}
	if (f->label == PROTOBUF_C_LABEL_OPTIONAL && !(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF))
		return *(const protobuf_c_boolean *)(base + f->quantifier_offset) != 0;
	return 1;
}

/* The tensor @msg is, when it references a payload; NULL otherwise. */
static const Onnx__TensorProto *
ref_tensor(const ProtobufCMessage *msg)
{
	const Onnx__TensorProto *t = (const Onnx__TensorProto *)msg;

	return msg->descriptor == &onnx__tensor_proto__descriptor && t->has_scs_payload ? t : NULL;
}

/* The private field, which no output carries. */
static int
is_private(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	return msg->descriptor == &onnx__tensor_proto__descriptor &&
	    f->offset == offsetof(Onnx__TensorProto, scs_payload);
}

static int
is_raw_data(const ProtobufCFieldDescriptor *f)
{
	return f->offset == offsetof(Onnx__TensorProto, raw_data);
}

/* The length of the payload tensor @t references; 0 (and, in the sizing
 * pass of a write, an error) when the set has no such payload. */
static uint64_t
payload_len(packer *pk, const Onnx__TensorProto *t)
{
	if (t->scs_payload < pk->set->n)
		return pk->set->items[t->scs_payload].key.len;
	if (pk->record && pk->rc == SCS_OK)
		pk->rc = scs_err_set(SCS_ECORRUPT, "tensor '%s' references payload %llu, which is not in the set",
		    t->name ? t->name : "", (unsigned long long)t->scs_payload);
	return 0;
}

/*
 * The order fields go out in: descriptor order, except that a graph's
 * initializers come first. A writer that streams a graph's payloads before
 * it knows the nodes can then put them where they stay (emit.c, "the inline
 * stream"); protobuf takes a message's fields in any order.
 */
static const ProtobufCFieldDescriptor *
field_at(const ProtobufCMessageDescriptor *md, unsigned j)
{
	unsigned init_idx;

	if (md != &onnx__graph_proto__descriptor)
		return &md->fields[j];
	for (init_idx = 0; init_idx < md->n_fields && md->fields[init_idx].offset != offsetof(Onnx__GraphProto, initializer);
	    init_idx++)
		;
	if (j == 0)
		return &md->fields[init_idx];
	return &md->fields[j <= init_idx ? j - 1 : j];
}

/* 1 when field @f of @msg is a graph's initializer list. */
static int
is_initializers(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	return msg->descriptor == &onnx__graph_proto__descriptor && f->offset == offsetof(Onnx__GraphProto, initializer);
}

int
scs_pack_init_run(const Onnx__TensorProto *t)
{
	unsigned bits = t ? scs_dtype_bits(t->data_type) : 0;
	uint64_t n = 1, cap = SCS_PACK_LARGE * 8;    /* elements enough to be large at one bit each */

	if (bits == 0)
		return 2;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] <= 0)
			return 2;
		n = (uint64_t)t->dims[i] >= cap ? cap : n * (uint64_t)t->dims[i];
		if (n > cap)
			n = cap;
	}
	if (n * bits < SCS_PACK_LARGE * 8)
		return 2;
	return t->data_type == SCS_DT_INT64 || t->data_type == SCS_DT_INT32 ? 1 : 0;
}

static int
init_run(const packer *pk, const ProtobufCMessage *t)
{
	(void)pk;
	return t && t->descriptor == &onnx__tensor_proto__descriptor ? scs_pack_init_run((const Onnx__TensorProto *)t) : 2;
}

/* ---- the sizing pass ---- */

static uint64_t message_len(packer *pk, const ProtobufCMessage *msg);

static uint64_t
delimited_len(uint64_t len)
{
	return scs_wire_varint_len(len) + len;
}

/* A slot for a nested message's length, in emitting order. */
static size_t
reserve(packer *pk)
{
	uint64_t *grown;

	if (pk->n_lens == pk->cap_lens) {
		pk->cap_lens = pk->cap_lens ? 2 * pk->cap_lens : 1024;
		if ((grown = realloc(pk->lens, pk->cap_lens * sizeof(*grown))) == NULL) {
			if (pk->rc == SCS_OK)
				pk->rc = scs_err_set(SCS_ENOMEM, "cannot allocate the sizes of a message");
			pk->n_lens = 0;
			return 0;
		}
		pk->lens = grown;
	}
	return pk->n_lens++;
}

/* Bytes one value takes, without its tag. */
static uint64_t
value_len(packer *pk, ProtobufCType type, const void *v)
{
	const ProtobufCMessage *sub;
	const char *s;
	uint64_t len;
	size_t slot = 0;

	switch (type) {
	case PROTOBUF_C_TYPE_STRING:
		s = *(const char *const *)v;
		return delimited_len(s ? strlen(s) : 0);
	case PROTOBUF_C_TYPE_BYTES:
		return delimited_len(((const ProtobufCBinaryData *)v)->len);
	case PROTOBUF_C_TYPE_MESSAGE:
		if ((sub = *(const ProtobufCMessage *const *)v) == NULL)
			return 1;
		if (pk->record)
			slot = reserve(pk);
		len = message_len(pk, sub);
		if (pk->record && pk->rc == SCS_OK)
			pk->lens[slot] = len;
		return delimited_len(len);
	default:
		return fixed_len(type) ? fixed_len(type) : scs_wire_varint_len(varint_of(type, v));
	}
}

/* Bytes of the values of a repeated field, without tags. */
static uint64_t
values_len(packer *pk, const ProtobufCFieldDescriptor *f, const char *arr, size_t n)
{
	size_t esz = elt_size(f->type);
	uint64_t len = 0;

	if (fixed_len(f->type))
		return (uint64_t)n * fixed_len(f->type);
	for (size_t i = 0; i < n; i++)
		len += value_len(pk, f->type, arr + i * esz);
	return len;
}

/* Bytes of the elements @pk->more adds to field @f, with their tags. */
static uint64_t
more_len(packer *pk, const ProtobufCFieldDescriptor *f)
{
	uint64_t len = 0, tag_len = scs_wire_varint_len(tag_of(f->id, 0));

	for (size_t k = 0; k < pk->more->n_items; k++) {
		const ProtobufCMessage *sub = pk->more->get(pk->more->ctx, k);

		if (sub)
			len += tag_len + value_len(pk, f->type, &sub);
	}
	return len;
}

/* Element @k of a graph's initializers: its own, then those @pk->more adds (NULL: left out). */
static const ProtobufCMessage *
init_at(const packer *pk, const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f, size_t k)
{
	size_t n = *(const size_t *)((const char *)msg + f->quantifier_offset);

	if (k < n)
		return (*(const ProtobufCMessage *const *const *)((const char *)msg + f->offset))[k];
	return pk->more->get(pk->more->ctx, k - n);
}

static size_t
n_inits(const packer *pk, const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	return *(const size_t *)((const char *)msg + f->quantifier_offset) + (has_more(pk, msg, f) ? pk->more->n_items : 0);
}

/* Bytes of a graph's initializers, with their tags, in their runs (init_run()). */
static uint64_t
inits_len(packer *pk, const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	uint64_t len = 0, tag_len = scs_wire_varint_len(tag_of(f->id, 0));
	size_t n = n_inits(pk, msg, f);

	for (int run = 0; run < 3; run++)
		for (size_t k = 0; k < n; k++) {
			const ProtobufCMessage *t = init_at(pk, msg, f, k);

			if (t && init_run(pk, t) == run)
				len += tag_len + value_len(pk, f->type, &t);
		}
	return len;
}

static uint64_t
message_len(packer *pk, const ProtobufCMessage *msg)
{
	const ProtobufCMessageDescriptor *md = msg->descriptor;
	const Onnx__TensorProto *ref = ref_tensor(msg);
	const char *base = (const char *)msg;
	uint64_t len = 0, body;
	size_t n;

	for (unsigned i = 0; i < md->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = field_at(md, i);
		uint64_t tag_len;

		if (is_initializers(msg, f)) {
			len += inits_len(pk, msg, f);
			continue;
		}

		if (ref && is_raw_data(f)) {
			len += scs_wire_varint_len(tag_of(f->id, 0)) + delimited_len(payload_len(pk, ref));
			continue;
		}
		if ((n = n_values(msg, f)) == 0 || is_private(msg, f)) {
			if (has_more(pk, msg, f))
				len += more_len(pk, f);
			continue;
		}
		tag_len = scs_wire_varint_len(tag_of(f->id, 0));
		if (f->label != PROTOBUF_C_LABEL_REPEATED) {
			len += tag_len + value_len(pk, f->type, base + f->offset);
			continue;
		}
		body = values_len(pk, f, *(const char *const *)(base + f->offset), n);
		len += f->flags & PROTOBUF_C_FIELD_FLAG_PACKED ? tag_len + delimited_len(body) : n * tag_len + body;
		if (has_more(pk, msg, f))
			len += more_len(pk, f);
	}
	for (size_t i = 0; i < msg->n_unknown_fields; i++) {
		const ProtobufCMessageUnknownField *u = &msg->unknown_fields[i];

		len += scs_wire_varint_len(tag_of(u->tag, (uint8_t)u->wire_type)) + u->len;
	}
	return len;
}

uint64_t
scs_pack_size(const ProtobufCMessage *msg, const scs_payloads *set)
{
	packer pk;

	memset(&pk, 0, sizeof(pk));
	pk.set = set;
	return message_len(&pk, msg);
}

/* ---- the emitting pass ---- */

static void
flush(packer *pk)
{
	if (pk->n_buf && pk->rc == SCS_OK)
		pk->rc = pk->out->write(pk->out->ctx, pk->buf, pk->n_buf);
	pk->n_buf = 0;
}

static void
put_bytes(packer *pk, const void *data, size_t len)
{
	if (len > PACK_BUF_LEN - pk->n_buf) {
		flush(pk);
		if (len >= PACK_BUF_LEN / 2) {
			if (pk->rc == SCS_OK)
				pk->rc = pk->out->write(pk->out->ctx, data, len);
			return;
		}
	}
	if (len)
		memcpy(pk->buf + pk->n_buf, data, len);
	pk->n_buf += len;
}

static void
put_varint(packer *pk, uint64_t v)
{
	if (PACK_BUF_LEN - pk->n_buf < SCS_WIRE_VARINT_MAX)
		flush(pk);
	pk->n_buf += scs_wire_put_varint(pk->buf + pk->n_buf, v);
}

/* A fixed-length number in little-endian order, whatever the host's. */
static void
put_fixed(packer *pk, const void *v, size_t len)
{
	uint8_t le[8];
	uint64_t x = 0;

	if (len == 4) {
		uint32_t x32;

		memcpy(&x32, v, 4);
		x = x32;
	} else {
		memcpy(&x, v, 8);
	}
	for (size_t b = 0; b < len; b++)
		le[b] = (uint8_t)(x >> (8 * b));
	put_bytes(pk, le, len);
}

static void write_message(packer *pk, const ProtobufCMessage *msg);

/* One value, without its tag. */
static void
put_value(packer *pk, ProtobufCType type, const void *v)
{
	const ProtobufCMessage *sub;
	const ProtobufCBinaryData *bd;
	const char *s;
	size_t len;

	switch (type) {
	case PROTOBUF_C_TYPE_STRING:
		s = *(const char *const *)v;
		len = s ? strlen(s) : 0;
		put_varint(pk, len);
		put_bytes(pk, s, len);
		return;
	case PROTOBUF_C_TYPE_BYTES:
		bd = v;
		put_varint(pk, bd->len);
		put_bytes(pk, bd->data, bd->len);
		return;
	case PROTOBUF_C_TYPE_MESSAGE:
		if ((sub = *(const ProtobufCMessage *const *)v) == NULL) {
			put_varint(pk, 0);
			return;
		}
		put_varint(pk, pk->lens[pk->next++]);
		write_message(pk, sub);
		return;
	case PROTOBUF_C_TYPE_BOOL:
		put_varint(pk, varint_of(type, v));
		return;
	default:
		if (fixed_len(type))
			put_fixed(pk, v, fixed_len(type));
		else
			put_varint(pk, varint_of(type, v));
		return;
	}
}

/* The elements @pk->more adds to field @f, with their tags. */
static void
write_more(packer *pk, const ProtobufCFieldDescriptor *f)
{
	for (size_t k = 0; k < pk->more->n_items && pk->rc == SCS_OK; k++) {
		const ProtobufCMessage *sub = pk->more->get(pk->more->ctx, k);

		if (sub == NULL)
			continue;
		put_varint(pk, tag_of(f->id, SCS_WIRE_LEN));
		put_value(pk, f->type, &sub);
	}
}

/* A graph's initializers, with their tags, in their runs (init_run()). */
static void
write_inits(packer *pk, const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f)
{
	size_t n = n_inits(pk, msg, f);

	for (int run = 0; run < 3; run++)
		for (size_t k = 0; k < n && pk->rc == SCS_OK; k++) {
			const ProtobufCMessage *t = init_at(pk, msg, f, k);

			if (t && init_run(pk, t) == run) {
				put_varint(pk, tag_of(f->id, SCS_WIRE_LEN));
				put_value(pk, f->type, &t);
			}
		}
}

static void
write_message(packer *pk, const ProtobufCMessage *msg)
{
	const ProtobufCMessageDescriptor *md = msg->descriptor;
	const Onnx__TensorProto *ref = ref_tensor(msg);
	const char *base = (const char *)msg, *arr;
	size_t n, esz;

	for (unsigned i = 0; i < md->n_fields && pk->rc == SCS_OK; i++) {
		const ProtobufCFieldDescriptor *f = field_at(md, i);
		uint8_t wt;

		if (is_initializers(msg, f)) {
			write_inits(pk, msg, f);
			continue;
		}

		if (ref && is_raw_data(f)) {
			put_varint(pk, tag_of(f->id, SCS_WIRE_LEN));
			put_varint(pk, payload_len(pk, ref));
			flush(pk);
			if (pk->rc == SCS_OK)
				pk->rc = pk->out->payload(pk->out->ctx, (uint32_t)ref->scs_payload);
			continue;
		}
		if ((n = n_values(msg, f)) == 0 || is_private(msg, f)) {
			if (has_more(pk, msg, f))
				write_more(pk, f);
			continue;
		}
		wt = scs_pack_wire_type(f->type);
		if (f->label != PROTOBUF_C_LABEL_REPEATED) {
			put_varint(pk, tag_of(f->id, wt));
			put_value(pk, f->type, base + f->offset);
			continue;
		}
		arr = *(const char *const *)(base + f->offset);
		esz = elt_size(f->type);
		if (f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) {
			put_varint(pk, tag_of(f->id, SCS_WIRE_LEN));
			put_varint(pk, values_len(pk, f, arr, n));
			for (size_t k = 0; k < n; k++)
				put_value(pk, f->type, arr + k * esz);
		} else {
			for (size_t k = 0; k < n; k++) {
				put_varint(pk, tag_of(f->id, wt));
				put_value(pk, f->type, arr + k * esz);
			}
		}
		if (has_more(pk, msg, f))
			write_more(pk, f);
	}
	for (size_t i = 0; i < msg->n_unknown_fields && pk->rc == SCS_OK; i++) {
		const ProtobufCMessageUnknownField *u = &msg->unknown_fields[i];

		put_varint(pk, tag_of(u->tag, (uint8_t)u->wire_type));
		put_bytes(pk, u->data, u->len);
	}
}

int
scs_pack_plan_make(scs_pack_plan **out, const ProtobufCMessage *msg, const scs_payloads *set)
{
	return scs_pack_plan_make_more(out, msg, set, NULL);
}

int
scs_pack_plan_make_more(scs_pack_plan **out, const ProtobufCMessage *msg, const scs_payloads *set,
    const scs_pack_more *more)
{
	scs_pack_plan *plan;
	packer pk;

	*out = NULL;
	memset(&pk, 0, sizeof(pk));
	pk.set = set;
	pk.record = 1;
	if ((plan = calloc(1, sizeof(*plan))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the sizes of a message");
	if (more) {
		plan->more = *more;
		pk.more = &plan->more;
	}
	plan->len = message_len(&pk, msg);
	if (pk.rc < 0) {
		free(pk.lens);
		free(plan);
		return pk.rc;
	}
	plan->msg = msg;
	plan->set = set;
	plan->lens = pk.lens;
	*out = plan;
	return SCS_OK;
}

uint64_t
scs_pack_plan_len(const scs_pack_plan *plan)
{
	return plan->len;
}

int
scs_pack_plan_write(const scs_pack_plan *plan, const scs_pack_out *out)
{
	packer pk;

	memset(&pk, 0, sizeof(pk));
	pk.set = plan->set;
	pk.out = out;
	pk.lens = plan->lens;
	pk.more = plan->more.msg ? &plan->more : NULL;
	if ((pk.buf = malloc(PACK_BUF_LEN)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a write buffer");
	write_message(&pk, plan->msg);
	flush(&pk);
	free(pk.buf);
	return pk.rc;
}

void
scs_pack_plan_free(scs_pack_plan *plan)
{
	if (plan == NULL)
		return;
	free(plan->lens);
	free(plan);
}

int
scs_pack_write(const ProtobufCMessage *msg, const scs_payloads *set, const scs_pack_out *out)
{
	scs_pack_plan *plan;
	int rc;

	if ((rc = scs_pack_plan_make(&plan, msg, set)) < 0)
		return rc;
	rc = scs_pack_plan_write(plan, out);
	scs_pack_plan_free(plan);
	return rc;
}
