/*
 * wire.h: the protobuf wire format over a byte window: varints (at most 10
 * bytes), tags, zigzag. Pure and bounds-checked; no I/O, no allocation.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_WIRE_H
#define SCS_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum {
	SCS_WIRE_VARINT = 0,
	SCS_WIRE_I64 = 1,
	SCS_WIRE_LEN = 2,
	SCS_WIRE_SGROUP = 3,
	SCS_WIRE_EGROUP = 4,
	SCS_WIRE_I32 = 5,
};

#define SCS_WIRE_VARINT_MAX 10

/*
 * Decode a varint from @p (@avail bytes readable).
 * @return SCS_OK with *out and *used set; SCS_ECORRUPT when longer than 10
 * bytes or when the 10th byte carries bits past 64; SCS_DONE when @avail
 * ends before the varint does (the caller may need more bytes).
 */
int scs_wire_get_varint(uint64_t *out, const uint8_t *p, size_t avail, size_t *used);

/* Encode @v into @out (10 bytes room); returns the byte count. */
size_t scs_wire_put_varint(uint8_t *out, uint64_t v);

/* Bytes a varint of @v takes. */
size_t scs_wire_varint_len(uint64_t v);

/* Split a tag; SCS_ECORRUPT for field number 0 or > 2^29-1. */
int scs_wire_split_tag(uint64_t tag, uint32_t *field, uint8_t *wire_type);

/* A short name for a wire type ("varint", "length-delimited", ...): a static
 * string, valid for the life of the process; do not free it. */
const char *scs_wire_type_name(uint8_t wire_type);

#endif
