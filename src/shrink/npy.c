/*
 * npy.c: .npy headers and file names (see npy.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "shrink/npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "util/err.h"
#include "util/path.h"

int
scs_npy_header(scs_buf *out, int dtype, const int64_t *dims, size_t n_dims)
{
	const char *descr = scs_dtype_npy_descr(dtype);
	scs_buf dict = SCS_BUF_INIT;
	uint8_t head[12];
	size_t pre, total, start = out->len;
	int rc;

	if (descr == NULL)
		return scs_err_set(SCS_EUNSUPPORTED, "NumPy has no type for %s", scs_dtype_name(dtype));
	rc = scs_buf_printf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
	/* as NumPy spells tuples: (), (3,), (3, 4) */
	for (size_t i = 0; rc == SCS_OK && i < n_dims; i++)
		rc = scs_buf_printf(&dict, "%s%lld%s", i ? ", " : "", (long long)dims[i], n_dims == 1 ? "," : "");
	if (rc == SCS_OK)
		rc = scs_buf_add_str(&dict, "), }");
	if (rc < 0)
		goto done;
	/* magic, version, length field; the whole header pads to 64 bytes with spaces and '\n' */
	pre = dict.len + 1 + 10 > 65535 ? 12 : 10;
	total = (pre + dict.len + 1 + 63) / 64 * 64;
	memcpy(head, "\x93NUMPY", 6);
	head[6] = pre == 10 ? 1 : 2;
	head[7] = 0;
	if (pre == 10) {
		head[8] = (uint8_t)(total - pre);
		head[9] = (uint8_t)((total - pre) >> 8);
	} else {
		for (int i = 0; i < 4; i++)
			head[8 + i] = (uint8_t)((total - pre) >> (8 * i));
	}
	if ((rc = scs_buf_add(out, head, pre)) < 0 || (rc = scs_buf_add(out, dict.data, dict.len)) < 0)
		goto done;
	while (rc == SCS_OK && out->len - start < total - 1)
		rc = scs_buf_add(out, " ", 1);
	if (rc == SCS_OK)
		rc = scs_buf_add(out, "\n", 1);
done:
	scs_buf_dispose(&dict);
	return rc;
}

char *
scs_npy_file_name(const char *out_path, const char *name)
{
	return scs_npy_file_name_nth(out_path, name, 0);
}

char *
scs_npy_file_name_nth(const char *out_path, const char *name, unsigned nth)
{
	const char *base = scs_path_base(out_path), *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	size_t len = stem + strlen("_exported_") + strlen(name) + 16 + strlen(".npy") + 1;
	char *p = malloc(len), *q;

	if (p == NULL)
		return NULL;
	snprintf(p, len, "%.*s_exported_%s", (int)stem, base, name);
	for (q = p + stem + 10; *q; q++)
		if (*q == ':' || *q == ';' || *q == '/' || *q == ',')
			*q = '_';
	if (nth)
		snprintf(q, len - (size_t)(q - p), "_%u.npy", nth);
	else
		snprintf(q, len - (size_t)(q - p), ".npy");
	return p;
}
