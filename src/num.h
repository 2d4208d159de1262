/*
 * num.h: checked arithmetic, 64-bit to size_t narrowing, alignment and
 * explicit little-endian loads and stores. Header-only; no I/O.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_NUM_H
#define SCS_NUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"

/* *out = a + b; 0, or SCS_ERANGE on overflow. */
static inline int
scs_u64_add(uint64_t *out, uint64_t a, uint64_t b)
{
	if (a > UINT64_MAX - b)
		return SCS_ERANGE;
	*out = a + b;
	return SCS_OK;
}

/* *out = a * b; 0, or SCS_ERANGE on overflow. */
static inline int
scs_u64_mul(uint64_t *out, uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return SCS_ERANGE;
	*out = a * b;
	return SCS_OK;
}

/* Narrow a file-side size to memory; SCS_ERANGE rather than truncate. */
static inline int
scs_u64_to_size(size_t *out, uint64_t v)
{
	if (v > (uint64_t)SIZE_MAX)
		return SCS_ERANGE;
	*out = (size_t)v;
	return SCS_OK;
}

/* @v rounded up to a multiple of @align (a power of two). */
static inline uint64_t
scs_align_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

static inline uint16_t
scs_load_le16(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | (uint16_t)b[1] << 8);
}

static inline uint32_t
scs_load_le32(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t
scs_load_le64(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)scs_load_le32(b) | (uint64_t)scs_load_le32(b + 4) << 32;
}

static inline void
scs_store_le16(void *p, uint16_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void
scs_store_le32(void *p, uint32_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void
scs_store_le64(void *p, uint64_t v)
{
	scs_store_le32(p, (uint32_t)v);
	scs_store_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#endif
