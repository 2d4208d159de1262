/*
 * codec.h: chunk compression, only where it pays. The only room that
 * includes zstd.h. A quick probe on a sample decides: random float weights
 * are stored raw (zstd would cost time and save ~7%), masks and integer
 * tables are compressed (they shrink 10-1000x).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_CODEC_H
#define SCS_CODEC_H

#include <stddef.h>

/* Room a packed chunk of @len bytes may need. */
size_t scs_codec_bound(size_t len);

/*
 * Compress @len bytes of @src into @dst (@dst_cap >= scs_codec_bound(len)).
 * @param[out] out_len  the compressed length, or 0 when compression does not
 *                      pay and the caller should store the bytes raw.
 */
int scs_codec_pack(void *dst, size_t dst_cap, const void *src, size_t len, size_t *out_len);

/* Decompress exactly @dst_len bytes; SCS_ECORRUPT when the frame is bad. */
int scs_codec_unpack(void *dst, size_t dst_len, const void *src, size_t len);

#endif
