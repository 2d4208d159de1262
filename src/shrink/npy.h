/*
 * npy.h: NumPy .npy headers (format version 1.0, or 2.0 when the header
 * outgrows 64 KiB), so a payload streamed after it makes a valid .npy file.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_NPY_H
#define SCS_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/*
 * Append the header for a C-order array of ONNX element type @dtype and
 * @dims to @out. SCS_EUNSUPPORTED when NumPy has no plain type for @dtype.
 */
int scs_npy_header(scs_buf *out, int dtype, const int64_t *dims, size_t n_dims);

/* The file name scs4onnx gives an exported constant: "<outbase>_exported_<name>.npy",
 * with ':', ';', '/' and ',' in @name replaced by '_'. malloc'd: the caller frees it.
 * NULL on ENOMEM. */
char *scs_npy_file_name(const char *out_path, const char *name);
/* The same with "_<nth>" before ".npy" when @nth > 0 ("<outbase>_exported_<name>_2.npy"),
 * to tell apart constants whose names map to one file name. malloc'd: the caller
 * frees it. NULL on ENOMEM. */
char *scs_npy_file_name_nth(const char *out_path, const char *name, unsigned nth);

#endif
