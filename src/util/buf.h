/*
 * buf.h: a growable byte buffer for small things (skeleton bytes, headers,
 * names). Never used for payloads: those move in fixed pieces.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_BUF_H
#define SCS_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct scs_buf {
	uint8_t *data;   /* owned; NULL while empty */
	size_t len;
	size_t cap;
} scs_buf;

#define SCS_BUF_INIT { NULL, 0, 0 }

/* Make room for @extra more bytes; SCS_ENOMEM. */
int scs_buf_reserve(scs_buf *b, size_t extra);
/* Append @len bytes; SCS_ENOMEM. */
int scs_buf_add(scs_buf *b, const void *data, size_t len);
/* Append a protobuf varint (encoded by scs_wire_put_varint()). */
int scs_buf_add_varint(scs_buf *b, uint64_t v);
/* Append a NUL-terminated string without its NUL. */
int scs_buf_add_str(scs_buf *b, const char *s);
/* Append printf output (without NUL; data stays NUL-terminated). */
int scs_buf_printf(scs_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/*
 * Make room for element @n of the array *@items (pass &list: a pointer to
 * the array's pointer), whose elements take @elem bytes and which has room
 * for *@cap: when @n is *@cap, the room doubles (@first the first time),
 * so appends cost amortized O(1). On failure the array is as it was and
 * the message says "cannot grow @what". SCS_OK or SCS_ENOMEM.
 */
int scs_grow(void *items, size_t *cap, size_t n, size_t elem, size_t first, const char *what);

/* Free the bytes; the buffer is empty and reusable afterwards. */
void scs_buf_dispose(scs_buf *b);

/* "512 bytes", "1.9 MiB": @n for a person (powers of 1024, one decimal), in @buf; returns @buf. */
const char *scs_human_size(char buf[32], uint64_t n);

#endif
