/*
 * buf.c: growable byte buffer (see buf.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/wire.h"

int
scs_buf_reserve(scs_buf *b, size_t extra)
{
	size_t want, cap;
	uint8_t *p;

	/* one spare byte keeps printf output NUL-terminated */
	if (extra > SIZE_MAX - b->len - 1)
		return scs_err_set(SCS_ENOMEM, "buffer size overflow");
	want = b->len + extra + 1;
	if (want <= b->cap)
		return SCS_OK;
	cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	if ((p = realloc(b->data, cap)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot grow a buffer to %zu bytes", cap);
	b->data = p;
	b->cap = cap;
	return SCS_OK;
}

int
scs_grow(void *items, size_t *cap, size_t n, size_t elem, size_t first, const char *what)
{
	size_t want = *cap ? *cap * 2 : first;
	void *p, *grown;

	if (n < *cap)
		return SCS_OK;
	if (*cap > SIZE_MAX / 2 / elem)
		return scs_err_set(SCS_ENOMEM, "cannot grow %s", what);
	memcpy(&p, items, sizeof(p));    /* the caller's pointer, whatever its type */
	if ((grown = realloc(p, want * elem)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot grow %s", what);
	memcpy(items, &grown, sizeof(grown));
	*cap = want;
	return SCS_OK;
}

int
scs_buf_add(scs_buf *b, const void *data, size_t len)
{
	int rc;

	if ((rc = scs_buf_reserve(b, len)) < 0)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = 0;
	return SCS_OK;
}

int
scs_buf_add_varint(scs_buf *b, uint64_t v)
{
	uint8_t tmp[SCS_WIRE_VARINT_MAX];

	return scs_buf_add(b, tmp, scs_wire_put_varint(tmp, v));
}

int
scs_buf_add_str(scs_buf *b, const char *s)
{
	return scs_buf_add(b, s, strlen(s));
}

int
scs_buf_printf(scs_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return scs_err_set(SCS_EUSAGE, "bad format");
	if ((rc = scs_buf_reserve(b, (size_t)n)) < 0)
		return rc;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return SCS_OK;
}

void
scs_buf_dispose(scs_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char *
scs_human_size(char buf[32], uint64_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	while (v >= 1024.0 && u < 3) {
		v /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(buf, 32, "%llu bytes", (unsigned long long)n);
	else
		snprintf(buf, 32, "%.1f %s", v, units[u]);
	return buf;
}
