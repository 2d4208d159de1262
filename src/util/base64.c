/*
 * base64.c: RFC 4648 base64 (see base64.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/base64.h"

#include <string.h>

#include "util/err.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int
scs_base64_encode(scs_buf *out, const void *data, size_t len)
{
	const uint8_t *p = data;
	char quad[4];
	uint32_t v;
	int rc;

	for (size_t i = 0; i < len; i += 3) {
		v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		quad[0] = alphabet[v >> 18];
		quad[1] = alphabet[(v >> 12) & 63];
		quad[2] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		quad[3] = i + 2 < len ? alphabet[v & 63] : '=';
		if ((rc = scs_buf_add(out, quad, 4)) < 0)
			return rc;
	}
	return scs_buf_add(out, "", 0);
}

int
scs_base64_decode(scs_buf *out, const char *text)
{
	size_t n = strlen(text), pad = 0;
	uint32_t v = 0;
	uint8_t tri[3];
	const char *hit;
	int rc;

	if (n % 4)
		return scs_err_set(SCS_ECORRUPT, "base64 text of %zu characters", n);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '=' && i >= n - 2) {
			pad++;
			v <<= 6;
		} else if (pad || (hit = strchr(alphabet, text[i])) == NULL || text[i] == '\0') {
			return scs_err_set(SCS_ECORRUPT, "bad base64 character at %zu", i);
		} else {
			v = v << 6 | (uint32_t)(hit - alphabet);
		}
		if (i % 4 == 3) {
			tri[0] = (uint8_t)(v >> 16);
			tri[1] = (uint8_t)(v >> 8);
			tri[2] = (uint8_t)v;
			if ((rc = scs_buf_add(out, tri, 3 - (i == n - 1 ? pad : 0))) < 0)
				return rc;
			v = 0;
		}
	}
	return SCS_OK;
}
