/*
 * wire.c: protobuf wire primitives (see wire.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/wire.h"

#include "util/err.h"

int
scs_wire_get_varint(uint64_t *out, const uint8_t *p, size_t avail, size_t *used)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < SCS_WIRE_VARINT_MAX; i++) {
		if (i == avail)
			return SCS_DONE;
		if (i == 9 && p[i] > 1)
			return scs_err_set(SCS_ECORRUPT, "varint overflows 64 bits");
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*out = v;
			*used = i + 1;
			return SCS_OK;
		}
	}
	return scs_err_set(SCS_ECORRUPT, "varint longer than 10 bytes");
}

size_t
scs_wire_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

size_t
scs_wire_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

int
scs_wire_split_tag(uint64_t tag, uint32_t *field, uint8_t *wire_type)
{
	uint64_t f = tag >> 3;

	if (f == 0 || f > 0x1fffffff)
		return scs_err_set(SCS_ECORRUPT, "bad field number %llu", (unsigned long long)f);
	*field = (uint32_t)f;
	*wire_type = (uint8_t)(tag & 7);
	if (*wire_type > 5)
		return scs_err_set(SCS_ECORRUPT, "field %u: unknown wire type %u", *field, *wire_type);
	return SCS_OK;
}

const char *
scs_wire_type_name(uint8_t wire_type)
{
	switch (wire_type) {
	case SCS_WIRE_VARINT: return "varint";
	case SCS_WIRE_I64: return "fixed64";
	case SCS_WIRE_LEN: return "length-delimited";
	case SCS_WIRE_SGROUP: return "start-group";
	case SCS_WIRE_EGROUP: return "end-group";
	case SCS_WIRE_I32: return "fixed32";
	default: return "unknown";
	}
}
