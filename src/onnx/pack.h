/*
 * pack.h: the protobuf writer. Packs any protobuf-c message by walking the
 * descriptors protobuf-c generates, with protobuf-c's own rules (fields in
 * descriptor order, which is field-number order; then the unknown fields as
 * they were read; packed repeated fields packed, empty ones left out), so
 * its output is byte for byte what protobuf_c_message_pack() would give,
 * with two differences: a graph's initializers go out before its other
 * fields, in runs (scs_pack_init_run(): large ones first), and a TensorProto that references a payload (its
 * scs_payload field is set, see model.h) is written with a raw_data field
 * of the payload's length, whose bytes the caller's @payload hook writes
 * (streamed from where the payload lies, never whole in memory), and its
 * scs_payload field is never written.
 *
 * A write makes two passes: the sizing pass records the length of every
 * nested message (one number each), the emitting pass writes tags, lengths
 * and values into a small buffer handed to the caller's @write hook.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_PACK_H
#define SCS_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "io/payload.h"

/* Elements this many bytes long (64 KiB) make an initializer large: written before the small ones,
 * which a pass removes or changes more often (unit scales, biases) and which cost little to read twice. */
#define SCS_PACK_LARGE ((uint64_t)64 << 10)

/*
 * The run of a graph's initializers tensor @t is written in: 0, a large one
 * (its elements SCS_PACK_LARGE bytes or more), but for 1, a large one of
 * int64 or int32 elements (indices and shapes: a downcast narrows the one to
 * the other, which then moves no constant to another run); 2, the rest
 * (small, strings, unknown types). Each run goes out in the list's order.
 * The run depends on the tensor's type and dims alone, not on where its
 * bytes lie: a model written inline, with external data, or read back and
 * written again puts its initializers in one order (a fixed point), which
 * the data files' order follows (scs_model_each_placed()).
 */
int scs_pack_init_run(const Onnx__TensorProto *t);

/* Where a packed message goes. Each hook returns SCS_OK or a negative
 * code, which ends the write and is returned by scs_pack_write(). */
typedef struct scs_pack_out {
	/* Append @len bytes (valid only during the call). */
	int (*write)(void *ctx, const void *data, size_t len);
	/* Append the bytes of payload @id of the set (its key.len of them). */
	int (*payload)(void *ctx, uint32_t id);
	void *ctx;
} scs_pack_out;

/*
 * More elements of one repeated message field of one message, written after
 * those the message holds (a graph's sealed initializers, model.h): @get
 * gives element @k of @n_items (valid until the next call), or NULL for
 * one to leave out; @n_live of them are not NULL. Both passes ask for each
 * element in turn.
 */
typedef struct scs_pack_more {
	const ProtobufCMessage *msg;
	size_t offset;            /* the field's offset in @msg (its descriptor's offset) */
	size_t n_items, n_live;
	const ProtobufCMessage *(*get)(void *ctx, size_t k);
	void *ctx;
} scs_pack_more;

/* The wire type of a (single, unpacked) value of @type. */
uint8_t scs_pack_wire_type(ProtobufCType type);

/* Bytes scs_pack_write() writes for @msg, payloads counted at their
 * length in @set (a reference past the end of @set counts as empty). */
uint64_t scs_pack_size(const ProtobufCMessage *msg, const scs_payloads *set);

/*
 * Write @msg through @out. Payload references are looked up in @set.
 * @return SCS_OK; the first negative code a hook returned; SCS_ENOMEM;
 * SCS_ECORRUPT (before a byte is written) when a tensor references a
 * payload @set does not have.
 */
int scs_pack_write(const ProtobufCMessage *msg, const scs_payloads *set, const scs_pack_out *out);

/*
 * The same in two steps, for a caller that wants the length before it
 * decides to write: the sizing pass (scs_pack_plan_make(), whose plan holds
 * the lengths of @msg's nested messages and borrows @msg and @set), then
 * the emitting pass (scs_pack_plan_write(), which needs @msg unchanged).
 * *out is the caller's until scs_pack_plan_free() (NULL is a no-op).
 * @return as scs_pack_write().
 */
typedef struct scs_pack_plan scs_pack_plan;
int scs_pack_plan_make(scs_pack_plan **out, const ProtobufCMessage *msg, const scs_payloads *set);
/* The same with elements @more adds (NULL: none; the plan keeps a copy,
 * and @more->ctx must outlive it). */
int scs_pack_plan_make_more(scs_pack_plan **out, const ProtobufCMessage *msg, const scs_payloads *set,
    const scs_pack_more *more);
/* Bytes the plan's message takes. */
uint64_t scs_pack_plan_len(const scs_pack_plan *plan);
int scs_pack_plan_write(const scs_pack_plan *plan, const scs_pack_out *out);
void scs_pack_plan_free(scs_pack_plan *plan);

#endif
