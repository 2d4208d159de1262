/*
 * base64.h: RFC 4648 base64, for binary values stored in string fields
 * (a shard's header in metadata_props).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_BASE64_H
#define SCS_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* Append the encoding of @len bytes to @out. */
int scs_base64_encode(scs_buf *out, const void *data, size_t len);

/* Append the decoded bytes of @text to @out; SCS_ECORRUPT on bad input. */
int scs_base64_decode(scs_buf *out, const char *text);

#endif
