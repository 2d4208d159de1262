/*
 * num.h: checked arithmetic, 64-bit to size_t narrowing, alignment,
 * explicit little-endian loads and stores, and Slice's and Pad's index
 * arithmetic (shared by shape inference and the evaluator). Header-only;
 * no I/O.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_NUM_H
#define SCS_NUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/err.h"

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

/*
 * One axis of a Slice of a dim of @dim elements: *first (the index taken
 * first) and *count (how many, every @step), as ONNX Runtime computes them
 * and the spec says: a negative start or end counts from the end; then for
 * a positive step both are clamped to [0, dim], for a negative one start to
 * [0, dim - 1] and end to [-1, dim - 1]; nothing of an empty dim. 0, or -1
 * when the result is not settled: step 0, or a negative step with an end of
 * INT32_MAX or INT64_MAX, which ONNX Runtime takes to the start (as numpy's
 * None) where the spec's clamping takes nothing. No overflow at any value.
 */
static inline int
scs_slice_span(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t *first, uint64_t *count)
{
	uint64_t span, mag;

	if (step == 0 || dim < 0 || (step < 0 && dim > 0 && (end == INT64_MAX || end == INT32_MAX)))
		return -1;
	*first = 0;
	*count = 0;
	if (dim == 0)
		return 0;
	if (start < 0)
		start += dim;                    /* no overflow: dim >= 0 */
	if (end < 0)
		end += dim;
	if (step > 0) {
		start = start < 0 ? 0 : start > dim ? dim : start;
		end = end < 0 ? 0 : end > dim ? dim : end;
		span = end > start ? (uint64_t)(end - start) : 0;
		mag = (uint64_t)step;
	} else {
		start = start < 0 ? 0 : start > dim - 1 ? dim - 1 : start;
		end = end < -1 ? -1 : end > dim - 1 ? dim - 1 : end;
		span = start > end ? (uint64_t)(start - end) : 0;
		mag = (uint64_t)-(step + 1) + 1;     /* |INT64_MIN| too */
	}
	*first = start;
	*count = span ? (span - 1) / mag + 1 : 0;
	return 0;
}

/* Pad's modes, and the pads of a mode but constant that ONNX Runtime refuses
 * (or computes otherwise than the spec): any negative pad, an empty dim, a
 * reflect pad of the dim or more, a wrap pad past the dim. 1 when refused. */
enum { SCS_PAD_CONSTANT, SCS_PAD_REFLECT, SCS_PAD_EDGE, SCS_PAD_WRAP };

static inline int
scs_pad_refused(int mode, int64_t dim, int64_t begin, int64_t end)
{
	if (mode == SCS_PAD_CONSTANT || (begin == 0 && end == 0))
		return 0;
	return begin < 0 || end < 0 || dim <= 0 || (mode == SCS_PAD_REFLECT && (begin >= dim || end >= dim)) ||
	    (mode == SCS_PAD_WRAP && (begin > dim || end > dim));
}

#endif
