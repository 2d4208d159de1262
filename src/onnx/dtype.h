/*
 * dtype.h: ONNX element types (TensorProto.DataType numbers, all of the
 * current spec): bit widths, names, NumPy descriptors, and which typed
 * field of TensorProto carries them when raw_data is not used.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_DTYPE_H
#define SCS_DTYPE_H

#include <stdint.h>

enum {
	SCS_DT_UNDEFINED = 0, SCS_DT_FLOAT = 1, SCS_DT_UINT8 = 2, SCS_DT_INT8 = 3,
	SCS_DT_UINT16 = 4, SCS_DT_INT16 = 5, SCS_DT_INT32 = 6, SCS_DT_INT64 = 7,
	SCS_DT_STRING = 8, SCS_DT_BOOL = 9, SCS_DT_FLOAT16 = 10, SCS_DT_DOUBLE = 11,
	SCS_DT_UINT32 = 12, SCS_DT_UINT64 = 13, SCS_DT_COMPLEX64 = 14, SCS_DT_COMPLEX128 = 15,
	SCS_DT_BFLOAT16 = 16, SCS_DT_FLOAT8E4M3FN = 17, SCS_DT_FLOAT8E4M3FNUZ = 18,
	SCS_DT_FLOAT8E5M2 = 19, SCS_DT_FLOAT8E5M2FNUZ = 20, SCS_DT_UINT4 = 21, SCS_DT_INT4 = 22,
	SCS_DT_FLOAT4E2M1 = 23, SCS_DT_FLOAT8E8M0 = 24, SCS_DT_UINT2 = 25, SCS_DT_INT2 = 26,
	SCS_DT_COUNT
};

/* Field numbers of TensorProto's typed payload fields. */
enum {
	SCS_TF_FLOAT = 4, SCS_TF_INT32 = 5, SCS_TF_STRING = 6, SCS_TF_INT64 = 7,
	SCS_TF_RAW = 9, SCS_TF_DOUBLE = 10, SCS_TF_UINT64 = 11,
};

/* 1 when @dt is an element type this build knows. */
int scs_dtype_known(int64_t dt);

/* Bits one element takes in raw_data (0 for STRING and unknown types). */
unsigned scs_dtype_bits(int dt);

/* "float32", "int64", ... ("?" when unknown): a static string, valid for the
 * life of the process; do not free it. */
const char *scs_dtype_name(int dt);

/* The typed field that carries @dt outside raw_data (SCS_TF_*), 0 if none. */
int scs_dtype_field(int dt);

/* NumPy descr ("<f4"), or NULL when NumPy has no plain type for @dt: a
 * static string, valid for the life of the process; do not free it. */
const char *scs_dtype_npy_descr(int dt);

#endif
