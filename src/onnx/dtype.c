/*
 * dtype.c: element-type facts (see dtype.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/dtype.h"

#include <stddef.h>

static const struct {
	const char *name;
	unsigned bits;
	int field;
	const char *npy;
} facts[SCS_DT_COUNT] = {
	[SCS_DT_UNDEFINED] = { "undefined", 0, 0, NULL },
	[SCS_DT_FLOAT] = { "float32", 32, SCS_TF_FLOAT, "<f4" },
	[SCS_DT_UINT8] = { "uint8", 8, SCS_TF_INT32, "|u1" },
	[SCS_DT_INT8] = { "int8", 8, SCS_TF_INT32, "|i1" },
	[SCS_DT_UINT16] = { "uint16", 16, SCS_TF_INT32, "<u2" },
	[SCS_DT_INT16] = { "int16", 16, SCS_TF_INT32, "<i2" },
	[SCS_DT_INT32] = { "int32", 32, SCS_TF_INT32, "<i4" },
	[SCS_DT_INT64] = { "int64", 64, SCS_TF_INT64, "<i8" },
	[SCS_DT_STRING] = { "string", 0, SCS_TF_STRING, NULL },
	[SCS_DT_BOOL] = { "bool", 8, SCS_TF_INT32, "|b1" },
	[SCS_DT_FLOAT16] = { "float16", 16, SCS_TF_INT32, "<f2" },
	[SCS_DT_DOUBLE] = { "float64", 64, SCS_TF_DOUBLE, "<f8" },
	[SCS_DT_UINT32] = { "uint32", 32, SCS_TF_UINT64, "<u4" },
	[SCS_DT_UINT64] = { "uint64", 64, SCS_TF_UINT64, "<u8" },
	[SCS_DT_COMPLEX64] = { "complex64", 64, SCS_TF_FLOAT, "<c8" },
	[SCS_DT_COMPLEX128] = { "complex128", 128, SCS_TF_DOUBLE, "<c16" },
	[SCS_DT_BFLOAT16] = { "bfloat16", 16, SCS_TF_INT32, NULL },
	[SCS_DT_FLOAT8E4M3FN] = { "float8e4m3fn", 8, SCS_TF_INT32, NULL },
	[SCS_DT_FLOAT8E4M3FNUZ] = { "float8e4m3fnuz", 8, SCS_TF_INT32, NULL },
	[SCS_DT_FLOAT8E5M2] = { "float8e5m2", 8, SCS_TF_INT32, NULL },
	[SCS_DT_FLOAT8E5M2FNUZ] = { "float8e5m2fnuz", 8, SCS_TF_INT32, NULL },
	[SCS_DT_UINT4] = { "uint4", 4, SCS_TF_INT32, NULL },
	[SCS_DT_INT4] = { "int4", 4, SCS_TF_INT32, NULL },
	[SCS_DT_FLOAT4E2M1] = { "float4e2m1", 4, SCS_TF_INT32, NULL },
	[SCS_DT_FLOAT8E8M0] = { "float8e8m0", 8, SCS_TF_INT32, NULL },
	[SCS_DT_UINT2] = { "uint2", 2, SCS_TF_INT32, NULL },
	[SCS_DT_INT2] = { "int2", 2, SCS_TF_INT32, NULL },
};

int
scs_dtype_known(int64_t dt)
{
	return dt > SCS_DT_UNDEFINED && dt < SCS_DT_COUNT;
}

unsigned
scs_dtype_bits(int dt)
{
	return scs_dtype_known(dt) ? facts[dt].bits : 0;
}

const char *
scs_dtype_name(int dt)
{
	return dt >= 0 && dt < SCS_DT_COUNT ? facts[dt].name : "?";
}

int
scs_dtype_field(int dt)
{
	return scs_dtype_known(dt) ? facts[dt].field : 0;
}

const char *
scs_dtype_npy_descr(int dt)
{
	return scs_dtype_known(dt) ? facts[dt].npy : NULL;
}
