/*
 * codec.c: zstd behind a "does it pay" probe (see codec.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/codec.h"

#include <zstd.h>

#include "util/err.h"

#define PROBE_LEN 4096
#define LEVEL 1

size_t
scs_codec_bound(size_t len)
{
	return ZSTD_compressBound(len);
}

int
scs_codec_pack(void *dst, size_t dst_cap, const void *src, size_t len, size_t *out_len)
{
	const char *p = src;
	size_t n;

	*out_len = 0;
	if (len < 256)
		return SCS_OK;
	/* probe the middle of the chunk: headers and edges are not typical */
	if (len > 4 * PROBE_LEN) {
		n = ZSTD_compress(dst, dst_cap, p + len / 2, PROBE_LEN, LEVEL);
		if (ZSTD_isError(n) || n > PROBE_LEN / 2)
			return SCS_OK;
	}
	n = ZSTD_compress(dst, dst_cap, src, len, LEVEL);
	if (ZSTD_isError(n))
		return scs_err_set(SCS_EIO, "zstd: %s", ZSTD_getErrorName(n));
	if (n <= len - len / 4)
		*out_len = n;
	return SCS_OK;
}

int
scs_codec_unpack(void *dst, size_t dst_len, const void *src, size_t len)
{
	size_t n = ZSTD_decompress(dst, dst_len, src, len);

	if (ZSTD_isError(n))
		return scs_err_set(SCS_ECORRUPT, "zstd: %s", ZSTD_getErrorName(n));
	if (n != dst_len)
		return scs_err_set(SCS_ECORRUPT, "zstd: %zu bytes decoded, %zu expected", n, dst_len);
	return SCS_OK;
}
