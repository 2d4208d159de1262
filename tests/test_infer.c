/*
 * test_infer.c: shape inference (src/infer.c) as scs4onnx-split and
 * scs4onnx-big use it. The models (tests/e2e/gen_infer_models.py) declare
 * no value_info, so every tensor a cut passes on is described by inference:
 * a wrong type or dim makes ONNX Runtime refuse or miscompute a shard.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "support.h"

/* Split @name (a generated model) small, chain, merge and big: all compute the model. */
static void
expect_round_trip(const char *name, const char *max_shard_size, int min_shards)
{
	char *in = fixture(name);

	expect_split_merge_big(in, max_shard_size, min_shards);
	free(in);
}

Test(infer, a_concat_of_70_inputs)
{
	expect_round_trip("concat70.onnx", "600", 4);
}

Test(infer, a_sum_of_70_broadcast_inputs)
{
	expect_round_trip("sum70.onnx", "600", 4);
}

Test(infer, a_split_whose_outputs_grow_the_facts)
{
	expect_round_trip("relu254_split.onnx", "1K", 4);
}

Test(infer, a_split_into_80_outputs)
{
	expect_round_trip("split80.onnx", "1K", 4);
}

/* Chains of operators, one shard or so each: what each rule infers is what ONNX Runtime is fed. */
Test(infer, matmul_gemm_transpose_gather_and_flatten)
{
	expect_round_trip("ops_matmul.onnx", "100", 8);
}

Test(infer, reshape_squeeze_unsqueeze_shape_expand_and_range)
{
	expect_round_trip("ops_reshape.onnx", "100", 8);
}

Test(infer, reductions_argmax_topk_casts_and_where)
{
	expect_round_trip("ops_reduce.onnx", "100", 6);
}
