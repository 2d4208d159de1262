/*
 * eval.c: the evaluator's dispatch: the kernel of each operator (the
 * kernel families are eval_math.c and eval_shape.c, their toolkit
 * eval_util.c).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "eval/eval_impl.h"

typedef struct kernel_entry {
	const char *op;
	scs_eval_kernel fn;
} kernel_entry;

/* Alphabetical (scs_eval_ops lists them in this order). */
static const kernel_entry kernels[] = {
	{ "Abs", scs_eval_k_elementwise },
	{ "Acos", scs_eval_k_elementwise },
	{ "Add", scs_eval_k_elementwise },
	{ "And", scs_eval_k_elementwise },
	{ "ArgMax", scs_eval_k_arg },
	{ "ArgMin", scs_eval_k_arg },
	{ "Asin", scs_eval_k_elementwise },
	{ "Atan", scs_eval_k_elementwise },
	{ "Cast", scs_eval_k_elementwise },
	{ "CastLike", scs_eval_k_elementwise },
	{ "Concat", scs_eval_k_concat },
	{ "ConstantOfShape", scs_eval_k_constant_of_shape },
	{ "Cos", scs_eval_k_elementwise },
	{ "Cosh", scs_eval_k_elementwise },
	{ "DequantizeLinear", scs_eval_k_elementwise },
	{ "Div", scs_eval_k_elementwise },
	{ "Equal", scs_eval_k_elementwise },
	{ "Erf", scs_eval_k_elementwise },
	{ "Exp", scs_eval_k_elementwise },
	{ "Expand", scs_eval_k_expand },
	{ "Flatten", scs_eval_k_flatten },
	{ "Gather", scs_eval_k_gather },
	{ "GatherElements", scs_eval_k_gather_elements },
	{ "Greater", scs_eval_k_elementwise },
	{ "GreaterOrEqual", scs_eval_k_elementwise },
	{ "Identity", scs_eval_k_elementwise },
	{ "IsInf", scs_eval_k_isx },
	{ "IsNaN", scs_eval_k_isx },
	{ "Less", scs_eval_k_elementwise },
	{ "LessOrEqual", scs_eval_k_elementwise },
	{ "Log", scs_eval_k_elementwise },
	{ "Max", scs_eval_k_variadic },
	{ "Min", scs_eval_k_variadic },
	{ "Mul", scs_eval_k_elementwise },
	{ "Neg", scs_eval_k_elementwise },
	{ "Not", scs_eval_k_elementwise },
	{ "Or", scs_eval_k_elementwise },
	{ "Pad", scs_eval_k_pad },
	{ "Pow", scs_eval_k_pow },
	{ "Range", scs_eval_k_range },
	{ "Reciprocal", scs_eval_k_elementwise },
	{ "ReduceProd", scs_eval_k_reduce },
	{ "ReduceSum", scs_eval_k_reduce },
	{ "Reshape", scs_eval_k_reshape },
	{ "Shape", scs_eval_k_shape },
	{ "Sigmoid", scs_eval_k_elementwise },
	{ "Sin", scs_eval_k_elementwise },
	{ "Sinh", scs_eval_k_elementwise },
	{ "Size", scs_eval_k_size },
	{ "Slice", scs_eval_k_slice },
	{ "Split", scs_eval_k_split },
	{ "Sqrt", scs_eval_k_elementwise },
	{ "Squeeze", scs_eval_k_squeeze },
	{ "Sub", scs_eval_k_elementwise },
	{ "Tan", scs_eval_k_elementwise },
	{ "Tanh", scs_eval_k_elementwise },
	{ "Tile", scs_eval_k_tile },
	{ "Transpose", scs_eval_k_transpose },
	{ "Unsqueeze", scs_eval_k_unsqueeze },
	{ "Where", scs_eval_k_elementwise },
	{ "Xor", scs_eval_k_elementwise },
};

#define N_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

static const kernel_entry *
find(const char *op)
{
	for (size_t i = 0; op && i < N_KERNELS; i++)
		if (strcmp(kernels[i].op, op) == 0)
			return &kernels[i];
	return NULL;
}

int
scs_eval_has(const char *op_type)
{
	return find(op_type) != NULL;
}

const char *const *
scs_eval_ops(void)
{
	static const char *names[N_KERNELS + 1];

	for (size_t i = 0; i < N_KERNELS; i++)
		names[i] = kernels[i].op;
	return names;
}

int
scs_eval_host_ok(void)
{
	const uint16_t one = 1;
	uint8_t b;

	memcpy(&b, &one, 1);
	return b == 1;
}

int
scs_eval_run(scs_eval_call *c)
{
	const kernel_entry *k = find(c->node->op_type);
	int rc;

	c->inexact = 0;
	if (c->why_len)
		c->why[0] = '\0';
	if (k == NULL || (c->node->domain && c->node->domain[0] && strcmp(c->node->domain, "ai.onnx") != 0))
		return scs_eval_decline(c, "no kernel for %s", c->node->op_type ? c->node->op_type : "?");
	if (!scs_eval_host_ok())
		return scs_eval_decline(c, "a big-endian host");
	for (size_t i = 0; i < c->n_in; i++)
		if (c->in[i].dtype && scs_eval_esize(c->in[i].dtype) == 0)
			return scs_eval_decline(c, "input %zu is %s", i, scs_dtype_name(c->in[i].dtype));
	rc = k->fn(c);
	if (rc != SCS_OK)
		for (size_t i = 0; i < c->n_out; i++)
			scs_eval_tensor_free(&c->out[i]);
	return rc;
}
