/*
 * ortkernels.c: ONNX Runtime's CPU kernels as data (see ortkernels.h).
 *
 * Facts, written by hand from ONNX Runtime's docs/OperatorKernels.md
 * ("Operators implemented by CPUExecutionProvider", domain ai.onnx), the
 * copy of microsoft/onnxruntime at commit 001d12d2623f, whose newest rows
 * are opset 25 (the tests run onnxruntime-node 1.30.0). Each row below is
 * one row of that table: the operator, its opset range, and the types each
 * type constraint lists. OneHot's combinations are those its CPU source
 * (core/providers/cpu/tensor/onehot.cc) registers, one kernel per
 * (indices, depth, values) triple; the markdown lists only their union.
 * The other operators here with several constraints (Pow, CumSum, DFT,
 * STFT, Gather, Slice, ScatterElements, ...) dispatch on every combination
 * of their lists; the downcast_ops suite loads each narrowing in ONNX
 * Runtime with the other inputs retyped to every type their schema allows.
 *
 * An operator with no row of its own and an empty entry here (since 0)
 * is one ONNX Runtime lists no CPU kernel for: it runs the ONNX function
 * body instead, if the operator has one (CastLike, CumProd,
 * NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, CenterCropPad).
 *
 * To add an operator: copy its rows from OperatorKernels.md, newest last
 * within the operator, keeping the table sorted by op_type (strcmp).
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/ortkernels.h"

#include <string.h>

#include "onnx/dtype.h"

const char scs_ortkernels_source[] = "ONNX Runtime's docs/OperatorKernels.md (commit 001d12d2623f)";

#define B_(t) ((uint64_t)1 << SCS_DT_##t)

#define F32 B_(FLOAT)
#define F64 B_(DOUBLE)
#define F16 B_(FLOAT16)
#define BF16 B_(BFLOAT16)
#define I8 B_(INT8)
#define I16 B_(INT16)
#define I32 B_(INT32)
#define I64 B_(INT64)
#define U8 B_(UINT8)
#define U16 B_(UINT16)
#define U32 B_(UINT32)
#define U64 B_(UINT64)
#define BOOL B_(BOOL)
#define STR B_(STRING)
#define F8 (B_(FLOAT8E4M3FN) | B_(FLOAT8E4M3FNUZ) | B_(FLOAT8E5M2) | B_(FLOAT8E5M2FNUZ))

/* "double, float, int16, int32, int64, int8, uint16, uint32, uint64, uint8" */
#define NUM10 (F64 | F32 | I16 | I32 | I64 | I8 | U16 | U32 | U64 | U8)
/* "double, float, int32, int64, uint32, uint64" */
#define NUM6 (F64 | F32 | I32 | I64 | U32 | U64)
/* "bfloat16, bool, double, float, float16, int16, int32, int64, int8, string, uint16, uint32, uint64, uint8" */
#define ALL14 (BF16 | BOOL | F64 | F32 | F16 | I16 | I32 | I64 | I8 | STR | U16 | U32 | U64 | U8)
/* Size's: ALL14 without bfloat16 and float16 */
#define SIZE12 (BOOL | F64 | F32 | I16 | I32 | I64 | I8 | STR | U16 | U32 | U64 | U8)

/* OneHot: (indices T1, depth T2, values T3) per kernel of onehot.cc */
static const uint8_t onehot_combos[][SCS_ORTK_MAX_TV] = {
	{ SCS_DT_INT64, SCS_DT_INT64, SCS_DT_INT64 },
	{ SCS_DT_FLOAT, SCS_DT_INT64, SCS_DT_INT64 },
	{ SCS_DT_INT64, SCS_DT_INT64, SCS_DT_STRING },
	{ SCS_DT_FLOAT, SCS_DT_INT64, SCS_DT_STRING },
	{ SCS_DT_INT64, SCS_DT_INT64, SCS_DT_FLOAT },
	{ SCS_DT_INT32, SCS_DT_INT32, SCS_DT_FLOAT },
	{ SCS_DT_INT32, SCS_DT_FLOAT, SCS_DT_FLOAT },
	{ SCS_DT_FLOAT, SCS_DT_FLOAT, SCS_DT_FLOAT },
	{ SCS_DT_INT64, SCS_DT_FLOAT, SCS_DT_INT32 },
	{ SCS_DT_INT64, SCS_DT_FLOAT, SCS_DT_FLOAT },
	{ SCS_DT_INT64, SCS_DT_INT32, SCS_DT_FLOAT },
};
#define ONEHOT_COMBOS sizeof(onehot_combos) / sizeof(onehot_combos[0]), onehot_combos

#define TV1(a, ma) { { a, ma } }
#define TV2(a, ma, b, mb) { { a, ma }, { b, mb } }
#define TV3(a, ma, b, mb, c, mc) { { a, ma }, { b, mb }, { c, mc } }

/* Sorted by op_type; within an operator, by opset. */
const scs_ortkernel scs_ortkernels_table[] = {
	{ "Add", 7, 12, TV1("T", NUM6), 0, NULL },
	{ "Add", 13, 13, TV1("T", NUM6), 0, NULL },
	{ "Add", 14, 0, TV1("T", NUM10), 0, NULL },
	{ "ArgMax", 1, 10, TV1("T", F64 | F32 | I32 | I64 | I8 | U8), 0, NULL },
	{ "ArgMax", 11, 12, TV1("T", F64 | F32 | I32 | I64 | I8 | U8), 0, NULL },
	{ "ArgMax", 13, 0, TV1("T", F64 | F32 | I32 | I64 | I8 | U8), 0, NULL },
	{ "ArgMin", 1, 10, TV1("T", F64 | F32 | I32 | I64 | I8 | U8), 0, NULL },
	{ "ArgMin", 11, 12, TV1("T", F64 | F32 | I32 | I64 | I8 | U8), 0, NULL },
	{ "ArgMin", 13, 0, TV1("T", F64 | F32 | I32 | I64 | I8 | U8), 0, NULL },
	{ "Attention", 23, 23, TV3("T1", F32 | F16, "T2", F32 | F16, "U", BOOL | F32 | F16), 0, NULL },
	{ "Attention", 24, 0, TV3("T1", F32 | F16, "T2", F32 | F16, "U", BOOL | F32 | F16), 0, NULL },
	{ "BatchNormalization", 7, 8, TV1("T", F64 | F32), 0, NULL },
	{ "BatchNormalization", 9, 13, TV1("T", F64 | F32), 0, NULL },
	{ "BatchNormalization", 14, 14, TV2("T", F64 | F32, "U", F64 | F32), 0, NULL },
	{ "BatchNormalization", 15, 0, TV3("T", F64 | F32, "T1", F64 | F32, "T2", F64 | F32), 0, NULL },
	{ "CastLike", 0, 0, { { NULL, 0 } }, 0, NULL },
	{ "CenterCropPad", 0, 0, { { NULL, 0 } }, 0, NULL },
	{ "Conv", 1, 10, TV1("T", F32), 0, NULL },
	{ "Conv", 11, 21, TV1("T", F32), 0, NULL },
	{ "Conv", 22, 0, TV1("T", F32), 0, NULL },
	{ "ConvTranspose", 1, 10, TV1("T", F32), 0, NULL },
	{ "ConvTranspose", 11, 21, TV1("T", F32), 0, NULL },
	{ "ConvTranspose", 22, 0, TV1("T", F32), 0, NULL },
	{ "CumProd", 0, 0, { { NULL, 0 } }, 0, NULL },
	{ "CumSum", 11, 13, TV2("T", F64 | F32 | I32 | I64, "T2", I32 | I64), 0, NULL },
	{ "CumSum", 14, 0, TV2("T", F64 | F32 | I32 | I64, "T2", I32 | I64), 0, NULL },
	{ "DFT", 17, 19, TV2("T1", F64 | F32, "T2", I32 | I64), 0, NULL },
	{ "DFT", 20, 0, TV2("T1", F64 | F32, "T2", I32 | I64), 0, NULL },
	{ "Equal", 7, 10, TV2("T", BOOL | F64 | F32 | I32 | I64, "T1", BOOL), 0, NULL },
	{ "Equal", 11, 12, TV2("T", BOOL | F64 | F32 | I16 | I32 | I64 | I8 | U16 | U32 | U64 | U8, "T1", BOOL), 0, NULL },
	{ "Equal", 13, 18, TV2("T", BOOL | F64 | F32 | I16 | I32 | I64 | I8 | U16 | U32 | U64 | U8, "T1", BOOL), 0, NULL },
	{ "Equal", 19, 0, TV2("T", BOOL | F64 | F32 | I16 | I32 | I64 | I8 | STR | U16 | U32 | U64 | U8, "T1", BOOL), 0,
	    NULL },
	{ "Gather", 1, 10, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "Gather", 11, 12, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "Gather", 13, 0, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "GatherElements", 11, 12, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "GatherElements", 13, 0, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "Gemm", 7, 8, TV1("T", F64 | F32), 0, NULL },
	{ "Gemm", 9, 10, TV1("T", F64 | F32), 0, NULL },
	{ "Gemm", 11, 12, TV1("T", F64 | F32), 0, NULL },
	{ "Gemm", 13, 0, TV1("T", F64 | F32), 0, NULL },
	{ "Greater", 7, 8, TV2("T", F64 | F32, "T1", BOOL), 0, NULL },
	{ "Greater", 9, 12, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "Greater", 13, 0, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "GreaterOrEqual", 12, 15, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "GreaterOrEqual", 16, 0, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "IsInf", 10, 19, TV2("T1", F64 | F32, "T2", BOOL), 0, NULL },
	{ "IsInf", 20, 0, TV2("T1", BF16 | F64 | F32 | F16 | F8, "T2", BOOL), 0, NULL },
	{ "IsNaN", 9, 12, TV2("T1", F64 | F32 | F16, "T2", BOOL), 0, NULL },
	{ "IsNaN", 13, 19, TV2("T1", F64 | F32 | F16, "T2", BOOL), 0, NULL },
	{ "IsNaN", 20, 0, TV2("T1", BF16 | F64 | F32 | F16 | F8, "T2", BOOL), 0, NULL },
	{ "Less", 7, 8, TV2("T", F64 | F32, "T1", BOOL), 0, NULL },
	{ "Less", 9, 12, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "Less", 13, 0, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "LessOrEqual", 12, 15, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "LessOrEqual", 16, 0, TV2("T", NUM10, "T1", BOOL), 0, NULL },
	{ "MatMul", 1, 8, TV1("T", F64 | F32), 0, NULL },
	{ "MatMul", 9, 12, TV1("T", NUM6), 0, NULL },
	{ "MatMul", 13, 0, TV1("T", NUM6), 0, NULL },
	{ "Neg", 6, 12, TV1("T", F64 | F32 | I16 | I32 | I64 | I8), 0, NULL },
	{ "Neg", 13, 0, TV1("T", F64 | F32 | I16 | I32 | I64 | I8), 0, NULL },
	{ "NegativeLogLikelihoodLoss", 0, 0, { { NULL, 0 } }, 0, NULL },
	{ "NonZero", 9, 12, TV1("T", BOOL | F32 | I32 | I64 | U8), 0, NULL },
	{ "NonZero", 13, 0, TV1("T", BOOL | F32 | I32 | I64 | U8), 0, NULL },
	{ "OneHot", 9, 10, TV3("T1", F32 | I32 | I64, "T2", F32 | I32 | I64, "T3", F32 | I32 | I64 | STR), ONEHOT_COMBOS },
	{ "OneHot", 11, 0, TV3("T1", F32 | I32 | I64, "T2", F32 | I32 | I64, "T3", F32 | I32 | I64 | STR), ONEHOT_COMBOS },
	{ "Pow", 7, 11, TV1("T", F64 | F32), 0, NULL },
	{ "Pow", 12, 12, TV2("T", F64 | F32 | I32 | I64, "T1", F64 | F32 | I32 | I64), 0, NULL },
	{ "Pow", 13, 14, TV2("T", F64 | F32 | I32 | I64, "T1", F64 | F32 | I32 | I64), 0, NULL },
	{ "Pow", 15, 0, TV2("T", F64 | F32 | I32 | I64, "T1", F64 | F32 | I32 | I64), 0, NULL },
	{ "STFT", 17, 0, TV2("T1", F64 | F32, "T2", I32 | I64), 0, NULL },
	{ "Scatter", 9, 10, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "ScatterElements", 11, 12, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "ScatterElements", 13, 15, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "ScatterElements", 16, 17, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "ScatterElements", 18, 0, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "Shape", 1, 12, TV2("T", ALL14, "T1", I64), 0, NULL },
	{ "Shape", 13, 14, TV2("T", ALL14, "T1", I64), 0, NULL },
	{ "Shape", 15, 18, TV2("T", ALL14, "T1", I64), 0, NULL },
	{ "Shape", 19, 20, TV2("T", ALL14, "T1", I64), 0, NULL },
	{ "Shape", 21, 22, TV2("T", ALL14 | F8, "T1", I64), 0, NULL },
	{ "Shape", 23, 23, TV2("T", ALL14 | F8, "T1", I64), 0, NULL },
	{ "Shape", 24, 24, TV2("T", ALL14 | F8, "T1", I64), 0, NULL },
	{ "Shape", 25, 0, TV2("T", ALL14 | F8, "T1", I64), 0, NULL },
	{ "Size", 1, 12, TV2("T", SIZE12, "T1", I64), 0, NULL },
	{ "Size", 13, 18, TV2("T", SIZE12, "T1", I64), 0, NULL },
	{ "Size", 19, 20, TV2("T", SIZE12, "T1", I64), 0, NULL },
	{ "Size", 21, 22, TV2("T", SIZE12, "T1", I64), 0, NULL },
	{ "Size", 23, 23, TV2("T", SIZE12, "T1", I64), 0, NULL },
	{ "Size", 24, 24, TV2("T", SIZE12, "T1", I64), 0, NULL },
	{ "Size", 25, 0, TV2("T", SIZE12, "T1", I64), 0, NULL },
	{ "Slice", 1, 9, TV1("T", ALL14), 0, NULL },
	{ "Slice", 10, 10, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "Slice", 11, 12, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "Slice", 13, 0, TV2("T", ALL14, "Tind", I32 | I64), 0, NULL },
	{ "SoftmaxCrossEntropyLoss", 0, 0, { { NULL, 0 } }, 0, NULL },
	{ "TfIdfVectorizer", 9, 0, TV2("T", I32 | I64 | STR, "T1", F32), 0, NULL },
};

const size_t scs_ortkernels_len = sizeof(scs_ortkernels_table) / sizeof(scs_ortkernels_table[0]);

#define table scs_ortkernels_table
#define TABLE_LEN scs_ortkernels_len

int
scs_ortkernel_lookup(const scs_ortkernel **out, const char *domain, const char *op_type, int64_t opset)
{
	size_t lo = 0, hi = TABLE_LEN, mid;
	int listed = 0;

	*out = NULL;
	if (op_type == NULL || (domain && domain[0] && strcmp(domain, "ai.onnx") != 0))
		return SCS_ORTK_UNKNOWN;
	/* lo: the first row of @op_type */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(table[mid].op_type, op_type) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < TABLE_LEN && strcmp(table[lo].op_type, op_type) == 0; lo++) {
		listed = 1;
		if (table[lo].since > 0 && opset >= table[lo].since && (table[lo].until == 0 || opset <= table[lo].until)) {
			*out = &table[lo];
			return SCS_ORTK_FOUND;
		}
	}
	return listed ? SCS_ORTK_NONE : SCS_ORTK_UNKNOWN;
}

int
scs_ortkernel_tv(const scs_ortkernel *k, const char *tv)
{
	for (int i = 0; k && tv && i < SCS_ORTK_MAX_TV && k->tv[i].name; i++)
		if (strcmp(k->tv[i].name, tv) == 0)
			return i;
	return -1;
}

uint64_t
scs_ortkernel_types(const scs_ortkernel *k, const char *tv)
{
	int i = scs_ortkernel_tv(k, tv);

	return i < 0 ? 0 : k->tv[i].types;
}

int
scs_ortkernel_has(const scs_ortkernel *k, const int *dtypes)
{
	size_t c;
	int i;

	for (i = 0; i < SCS_ORTK_MAX_TV && k->tv[i].name; i++)
		if (dtypes[i] > 0 && (dtypes[i] >= 64 || !(k->tv[i].types & ((uint64_t)1 << dtypes[i]))))
			return 0;
	if (k->n_combos == 0)
		return 1;
	for (c = 0; c < k->n_combos; c++) {
		for (i = 0; i < SCS_ORTK_MAX_TV && k->tv[i].name; i++)
			if (dtypes[i] > 0 && k->combos[c][i] != dtypes[i])
				break;
		if (i == SCS_ORTK_MAX_TV || !k->tv[i].name)
			return 1;
	}
	return 0;
}
