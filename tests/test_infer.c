/*
 * test_infer.c: shape inference (src/infer/infer.c) as scs4onnx-split and
 * scs4onnx-big use it. The models (tests/e2e/gen_infer_models.py) declare
 * no value_info, so every tensor a cut passes on is described by inference:
 * a wrong type or dim makes ONNX Runtime refuse or miscompute a shard. The
 * rules of the neural-network operators (src/infer/infer_nn.c): the exact dims
 * --write-shapes writes for hand-made models of them. Named dims
 * (dim_param): kept through the rules, as onnx.shape_inference keeps them.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/infer_impl.h"
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

/*
 * What --write-shapes writes of value @name of @g: element type @elem and
 * the dims @dims ("1,4,5,5"; "batch" for a dim_param; "?" for a dim that
 * must stay unknown and nameless; "" for a scalar).
 */
static void
expect_value(const Onnx__GraphProto *g, const char *name, int32_t elem, const char *dims)
{
	const Onnx__TypeProto__Tensor *tt = NULL;
	char got[256] = "";

	for (size_t i = 0; i < g->n_value_info; i++)
		if (strcmp(g->value_info[i]->name, name) == 0)
			tt = g->value_info[i]->type->tensor_type;
	cr_assert_not_null(tt, "%s: no value_info written", name);
	cr_expect_eq(tt->elem_type, elem, "%s: element type %d, not %d", name, tt->elem_type, elem);
	cr_assert_not_null(tt->shape, "%s: no shape", name);
	for (size_t d = 0; d < tt->shape->n_dim; d++) {
		const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];

		size_t at = strlen(got);

		if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
			snprintf(got + at, sizeof(got) - at, "%s%lld", d ? "," : "", (long long)dim->dim_value);
		else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
			snprintf(got + at, sizeof(got) - at, "%s%s", d ? "," : "", dim->dim_param);
		else
			snprintf(got + at, sizeof(got) - at, "%s?", d ? "," : "");
	}
	cr_expect_str_eq(got, dims, "%s: dims [%s], not [%s]", name, got, dims);
}

/*
 * The shapes --write-shapes writes of fixture @name's values (no pass but
 * eliminate_deadend), read back; the output computes what the input does.
 * With @like_onnx, onnx.shape_inference infers nothing else of them (2: with
 * its data propagation).
 */
static Onnx__ModelProto *
written_shapes(const char *name, int like_onnx)
{
	static const char *const passes[] = { "eliminate_deadend" };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = 1, .write_shapes = 1 };
	Onnx__ModelProto *m = run_optimize(name, &o);
	char *in = fixture(name), *text;

	expect_equivalent(in, run_out, NULL);
	if (like_onnx) {
		cr_expect_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/compare_shapes.py' %s'%s'", SCS_TEST_SRC_DIR,
		    like_onnx == 2 ? "--data-prop " : "", run_out), 0, "%s", text);
		free(text);
	}
	free(in);
	return m;
}

Test(infer, convolution_and_pooling_windows, .init = run_setup, .fini = run_teardown)
{
	/* not compared with onnx.shape_inference: Debian's (1.12) counts pool_ceil_pad's extra window */
	Onnx__ModelProto *m = written_shapes("ops_conv.onnx", 0);
	const Onnx__GraphProto *g = m->graph;

	/* X [1,3,10,9] */
	expect_value(g, "conv_same_upper", 1, "1,4,5,5");     /* ceil(10/2), ceil(9/2) */
	expect_value(g, "conv_same_lower", 1, "1,4,4,3");     /* ceil(10/3), ceil(9/3) */
	expect_value(g, "conv_dilated", 1, "1,2,8,5");        /* (10+2-5)/1+1, (9+2-3)/2+1 */
	expect_value(g, "conv_group", 1, "1,6,8,7");
	expect_value(g, "pool_ceil", 1, "1,3,5,4");           /* ceil(7/2)+1, 6/2+1 */
	expect_value(g, "pool_ceil_idx", 7, "1,3,5,4");       /* MaxPool's Indices: Y's shape, int64 */
	/* ceil_mode's last window along W would start in the end padding: ONNX Runtime drops it, onnx 1.12 not */
	expect_value(g, "pool_ceil_pad", 1, "1,3,6,?");
	expect_value(g, "pool_dilated", 1, "1,3,8,6");        /* kernel 2 dilated by 2 and 3: 3 and 4 wide */
	/* SAME over a dilated window: the spec says ceil(10/1), ONNX Runtime pads as if undilated (8) */
	expect_value(g, "pool_same_dilated", 1, "1,3,?,9");
	expect_value(g, "avg_same_lower", 1, "1,3,5,5");
	expect_value(g, "lp", 1, "1,3,10,9");
	expect_value(g, "gap", 1, "1,3,1,1");
	expect_value(g, "convt_output_shape", 1, "1,2,20,18");     /* output_shape as given */
	expect_value(g, "convt_pads", 1, "1,2,29,20");        /* 3*9+1+3-2, 2*8+1+5-2 */
	expect_value(g, "convt_same", 1, "1,3,20,18");        /* SAME_UPPER: input * stride; W [3,1,3,3], group 3 */
	free_proto(m);
}

Test(infer, normalization_index_resize_recurrent_and_loss_outputs, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = written_shapes("ops_nn.onnx", 1);
	const Onnx__GraphProto *g = m->graph;

	expect_value(g, "bn_mean", 1, "3");                   /* BatchNormalization's running mean and variance */
	expect_value(g, "bn_var", 1, "3");
	expect_value(g, "ln_mean", 1, "1,3,1,1");             /* LayerNormalization, axis 2 */
	expect_value(g, "ln_inv", 1, "1,3,1,1");
	expect_value(g, "d2s", 1, "1,3,20,18");
	expect_value(g, "s2d", 1, "1,12,10,9");
	expect_value(g, "onehot", 1, "2,5,3");                /* depth 5 inserted at axis 1 */
	expect_value(g, "gathernd", 1, "2,1");
	expect_value(g, "split_a", 1, "1,3,3,9");             /* split [3, 7] on axis 2 */
	expect_value(g, "split_b", 1, "1,3,7,9");
	expect_value(g, "split_e", 1, "1,1,10,9");            /* three equal parts of axis 1 */
	expect_value(g, "resize_scales", 1, "1,3,20,4");      /* floor(9 * 0.5) */
	expect_value(g, "resize_sizes", 1, "1,3,5,5");
	expect_value(g, "einsum", 1, "2,3,5");                /* bij,bjk->bik */
	expect_value(g, "einsum_implicit", 1, "2,4,3");       /* bji: b, i, j */
	expect_value(g, "lstm_y", 1, "5,2,2,6");              /* bidirectional, hidden 6 */
	expect_value(g, "lstm_c", 1, "2,2,6");
	expect_value(g, "rnn_y", 1, "2,1,5,7");
	expect_value(g, "rnn_h", 1, "1,5,7");
	expect_value(g, "nll", 1, "2,3");                     /* reduction none: [N, d1] */
	expect_value(g, "sce", 1, "");                        /* reduction mean: a scalar */
	expect_value(g, "sce_log_prob", 1, "2,5,3");
	expect_value(g, "hann", 1, "8");
	expect_value(g, "uniq_y", 1, "?,3");                  /* axis 0: as many rows as are unique */
	expect_value(g, "uniq_inv", 7, "4");                  /* one per row of the input */
	expect_value(g, "eye", 7, "4,5");                     /* dtype int64 */
	expect_value(g, "grid_sample", 1, "1,3,6,7");
	expect_value(g, "gather_elements", 1, "4,2");         /* the indices' shape */
	expect_value(g, "dq_y", 2, "1,3,10,9");               /* DynamicQuantizeLinear: uint8, scalars */
	expect_value(g, "dq_scale", 1, "");
	expect_value(g, "dq_zero", 2, "");
	expect_value(g, "if_out", 1, "2,3");                  /* what both branches declare */
	expect_value(g, "scan_state", 1, "2");                /* the initial state and the body agree */
	expect_value(g, "scan_out", 1, "3,2");                /* one [2] per row of the [3,2] scan input */
	expect_value(g, "loop_state", 1, "2");
	expect_value(g, "loop_out", 1, "?,2");                /* one [2] per iteration, however many */
	free_proto(m);
}

/* The new rules feed the cuts of a split: every shard's boundary is described by them. */
Test(infer, convolution_and_pooling_chains_split)
{
	expect_round_trip("ops_conv.onnx", "100", 4);
}

Test(infer, normalization_index_resize_recurrent_and_loss_chains_split)
{
	expect_round_trip("ops_nn.onnx", "100", 4);
}

/* 40 windows of random attributes: each output crosses a cut, its dims declared as inferred, fed by ONNX Runtime. */
Test(infer, random_convolution_and_pooling_windows_split)
{
	expect_round_trip("ops_windows.onnx", "1K", 4);
}

/*
 * Named dims (dim_param) pass through every rule that passes a dim on, and
 * --write-shapes writes them: the names onnx.shape_inference gives
 * (compare_shapes.py). A dim computed from a named one has no name.
 */
Test(infer, named_dims_pass_through_the_rules, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = written_shapes("ops_symbolic.onnx", 1);
	const Onnx__GraphProto *g = m->graph;

	/* X [batch,seq,8], S [batch,1,8], T [1,seq,8], U [2,1,1], I [batch,3,16,16], G [batch,8] */
	expect_value(g, "b", 1, "batch,seq,8");               /* + [8] */
	expect_value(g, "c", 1, "batch,seq,8");               /* the same name on both sides; a name against 1 */
	expect_value(g, "d", 1, "batch,seq,8");
	expect_value(g, "e", 1, "2,seq,8");                   /* a name against a number: the number */
	expect_value(g, "mm", 1, "batch,seq,16");
	expect_value(g, "scores", 1, "batch,seq,seq");        /* batched MatMul of d and its transpose */
	expect_value(g, "mmt", 1, "seq,batch,16");
	expect_value(g, "heads", 1, "batch,seq,4,4");         /* Reshape's 0 copies the dim, name and all */
	expect_value(g, "flat", 1, "batch,?");                /* -1: seq * 16, no name */
	expect_value(g, "cat_last", 1, "batch,seq,16");
	expect_value(g, "cat_seq", 1, "batch,?,8");           /* seq + seq */
	expect_value(g, "sq", 1, "batch,seq,8");              /* through Unsqueeze and Squeeze */
	expect_value(g, "pool", 1, "batch,4,7,7");            /* Conv and MaxPool keep the batch */
	expect_value(g, "gemm", 1, "batch,5");
	expect_value(g, "flatten", 1, "batch,?");             /* 1 * batch is batch */
	expect_value(g, "gather", 1, "batch,seq");
	expect_value(g, "slice", 1, "batch,seq,4");
	expect_value(g, "slice_all", 1, "batch,seq,8");       /* seq from 0 to INT64_MAX: all of it */
	expect_value(g, "mean", 1, "batch,seq");
	expect_value(g, "pad", 1, "batch,seq,11");            /* the dims padded by 0 keep their names */
	expect_value(g, "top", 1, "batch,seq,2");
	expect_value(g, "top_idx", 7, "batch,seq,2");
	expect_value(g, "if_out", 1, "batch,seq,8");          /* what both branches declare */
	free_proto(m);
}

/*
 * Reshape by a target made of the data's own dims (Shape, Gather, Slice,
 * Unsqueeze/Squeeze, Casts, Concat, Div and Mul of numbers): its output
 * has those dims, names and all, as onnx.shape_inference's data
 * propagation gives them; a -1 beside a named dim stays unknown.
 */
Test(infer, reshape_by_a_concat_of_shape_pieces_gets_its_dims, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = written_shapes("ops_propagate.onnx", 2);
	const Onnx__GraphProto *g = m->graph;

	/* X [batch,seq,64] */
	expect_value(g, "p_split", 1, "batch,seq,4,16");     /* [batch], [seq], [4], [64] / 4 */
	expect_value(g, "p_merge", 1, "batch,seq,64");       /* Shape(end=2), Shape(start=-1) */
	expect_value(g, "p_cast", 1, "batch,seq,4,?");       /* through int32 and back; -1 */
	expect_value(g, "p_half", 1, "batch,?,32");          /* 16 * 2 */
	expect_value(g, "p_sq", 1, "batch,seq,64");          /* Squeeze and Unsqueeze of [seq] */
	expect_value(g, "p_cos", 1, "64");                   /* ConstantOfShape of Slice(Shape, 2, 3) */
	free_proto(m);
}

/*
 * A named dim in a Reshape's target is the output's dim only where a 0 it
 * may be at run time (which copies the data's dim there) gives the same:
 * the data's own dim there has the name, or allowzero. ONNX's data
 * propagation names them all (z_flat, z_bs); a batch of 0 shows it wrong.
 */
Test(infer, a_named_dim_of_a_target_that_may_copy_another_is_not_given, .init = run_setup, .fini = run_teardown)
{
	Onnx__ModelProto *m = written_shapes("ops_propagate_zero.onnx", 1);
	const Onnx__GraphProto *g = m->graph;

	/* X [batch,seq,64], Z [seq,batch,64] */
	expect_value(g, "z_flat", 1, "?,?");
	expect_value(g, "z_bs", 1, "?,?,64");
	expect_value(g, "z_az", 1, "batch,seq,64");
	expect_value(g, "x_bs", 1, "batch,seq,64");
	free_proto(m);
}

/*
 * The dims of @name in @list (@n ValueInfoProtos) as expect_value() writes
 * them, compared with @dims.
 */
static void
expect_declared(Onnx__ValueInfoProto **list, size_t n, const char *name, const char *dims)
{
	Onnx__GraphProto g = { .value_info = list, .n_value_info = n };

	expect_value(&g, name, 1, dims);
}

/*
 * Declared shapes whose unknown dims inference knows are rewritten: the
 * graph outputs declared of rank 3 with nameless dims take the names; and
 * value_info that names a dim --input-shape then makes a number (a model
 * whose shapes were written before) takes the number.
 */
Test(infer, declared_unknown_dims_take_what_inference_knows, .init = run_setup, .fini = run_teardown)
{
	static const char *const passes[] = { "eliminate_deadend" };
	static const char *const shapes[] = { "X=2,2,8", "I=2,3,16,16" };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = 1, .write_shapes = 1 };
	Onnx__ModelProto *m = run_optimize("ops_symbolic.onnx", &o);
	char *named = path_in(run_dir, "named.onnx"), *fixed = path_in(run_dir, "fixed.onnx");
	size_t n_vi = m->graph->n_value_info;
	scs_report rep = SCS_REPORT_INIT;

	expect_declared(m->graph->output, m->graph->n_output, "out_b", "batch,seq,8");
	expect_declared(m->graph->output, m->graph->n_output, "out_flat", "batch,?");
	expect_declared(m->graph->output, m->graph->n_output, "out_e", "2,seq,8");
	free_proto(m);
	rename(run_out, named);
	o.input_shapes = shapes;
	o.n_input_shapes = 2;
	cr_assert_eq(scs_optimize(&rep, named, fixed, &o), SCS_OK, "%s", scs_err_msg());
	scs_report_dispose(&rep);
	m = load_proto(fixed);
	cr_assert_eq(m->graph->n_value_info, n_vi, "%zu value_info, not %zu", m->graph->n_value_info, n_vi);
	expect_value(m->graph, "b", 1, "2,2,8");
	expect_value(m->graph, "scores", 1, "2,2,2");
	expect_value(m->graph, "flat", 1, "2,32");
	expect_value(m->graph, "pool", 1, "2,4,7,7");
	expect_value(m->graph, "gemm", 1, "batch,5");         /* G [batch,8] keeps its name */
	expect_declared(m->graph->output, m->graph->n_output, "out_b", "2,2,8");
	free_proto(m);
	expect_equivalent(named, fixed, NULL);     /* ONNX Runtime's inputs: 2 for every named dim */
	free(named);
	free(fixed);
}

/* A name that --input-shape makes a number is a number from there on. */
Test(infer, input_shape_turns_a_name_into_its_number, .init = run_setup, .fini = run_teardown)
{
	static const char *const passes[] = { "eliminate_deadend" };
	static const char *const shapes[] = { "X=2,5,8" };
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = passes, .n_passes = 1, .write_shapes = 1, .input_shapes = shapes,
		.n_input_shapes = 1 };
	Onnx__ModelProto *m = run_optimize("ops_symbolic.onnx", &o);
	const Onnx__GraphProto *g = m->graph;

	expect_value(g, "b", 1, "2,5,8");
	expect_value(g, "c", 1, "2,5,8");                     /* S [batch,1,8]: batch against 2 */
	expect_value(g, "scores", 1, "2,5,5");
	expect_value(g, "heads", 1, "2,5,4,4");
	expect_value(g, "flat", 1, "2,80");
	expect_value(g, "gemm", 1, "batch,5");                /* G keeps its own name */
	free_proto(m);
}

/* The inputs and outputs of a split's shards carry the names, and ONNX Runtime runs the shards. */
Test(infer, named_dims_reach_the_shards)
{
	char *in = fixture("ops_symbolic.onnx"), *dir = tmpdir_new(), *shards = path_in(dir, "shards"), *text, *list, *p;
	int count, named = 0;

	expect_split_merge_big(in, "100", 4);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 100 -n", in, shards), 0, "split: %s",
	    text);
	free(text);
	expect_shards_compute(in, shards);
	list = shard_list(shards, &count);
	/* the list: 'PATH' 'PATH' ... */
	for (p = strchr(list, '\''); p; p = strchr(strchr(p + 1, '\'') + 1, '\'')) {
		char path[4096];
		Onnx__ModelProto *m;
		const Onnx__GraphProto *g;

		snprintf(path, sizeof(path), "%.*s", (int)(strchr(p + 1, '\'') - p - 1), p + 1);
		cr_assert_not_null(m = load_proto(path), "%s", path);
		g = m->graph;

		for (size_t i = 0; i < g->n_input + g->n_output; i++) {
			const Onnx__ValueInfoProto *vi = i < g->n_input ? g->input[i] : g->output[i - g->n_input];
			const Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;

			if (strchr("XSTUIG", vi->name[0]) || strcmp(vi->name, "cond") == 0 || strncmp(vi->name, "out_", 4) == 0)
				continue;     /* the model's own inputs and outputs */
			cr_assert_not_null(sh, "%s: '%s' has no shape", path, vi->name);
			cr_assert_geq(sh->n_dim, 1, "%s: '%s'", path, vi->name);
			/* every value the model computes starts with the batch (mmt: [seq,batch,16]; e: [2,seq,8]) */
			cr_expect_str_eq(sh->dim[0]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ?
			    sh->dim[0]->dim_param : "",
			    strcmp(vi->name, "mmt") == 0 ? "seq" : strcmp(vi->name, "e") == 0 ? "" : "batch", "%s: '%s'", path,
			    vi->name);
			named++;
		}
		free_proto(m);
	}
	cr_assert_geq(named, 4, "%d cut values", named);
	free(list);
	free(shards);
	free(in);
	tmpdir_remove(dir);
}

/* Named dims in broadcasting, products and merges, as onnx.shape_inference takes them (batch, seq: two names). */
Test(infer, named_dims_broadcast_multiply_and_merge_as_onnx_does)
{
	const int64_t batch = -2, seq = -3;

	cr_assert_eq(scs_infer_broadcast_dim(batch, batch), batch);
	cr_assert_eq(scs_infer_broadcast_dim(batch, 1), batch);
	cr_assert_eq(scs_infer_broadcast_dim(1, batch), batch);
	cr_assert_eq(scs_infer_broadcast_dim(batch, 5), 5);
	cr_assert_eq(scs_infer_broadcast_dim(5, batch), 5);
	cr_assert_eq(scs_infer_broadcast_dim(batch, seq), -1);     /* either may be 1 at run time */
	cr_assert_eq(scs_infer_broadcast_dim(batch, -1), -1);
	cr_assert_eq(scs_infer_broadcast_dim(-1, batch), -1);
	cr_assert_eq(scs_infer_broadcast_dim(-1, 4), 4);
	cr_assert_eq(scs_infer_broadcast_dim(3, 1), 3);
	cr_assert_eq(scs_infer_dim_mul(1, batch), batch);
	cr_assert_eq(scs_infer_dim_mul(batch, 1), batch);
	cr_assert_eq(scs_infer_dim_mul(batch, 2), -1);
	cr_assert_eq(scs_infer_dim_mul(3, 4), 12);
	cr_assert_eq(scs_infer_dim_add(batch, 0), -1);
	cr_assert_eq(scs_infer_dim_pick(-1, batch), batch);
	cr_assert_eq(scs_infer_dim_pick(batch, seq), batch);
	cr_assert_eq(scs_infer_dim_pick(seq, 4), 4);
	cr_assert_eq(scs_infer_dim_pick(-1, -1), -1);
}

/* A declared shape's dim_params become symbols, one per name; without a table, nameless unknowns. */
Test(infer, dim_params_become_one_symbol_per_name)
{
	static const char *const params[] = { "batch", NULL, "seq", "batch", "" };
	Onnx__TensorShapeProto__Dimension dims[5], *dimp[5];
	Onnx__TensorShapeProto shape;
	Onnx__TypeProto__Tensor tt;
	Onnx__TypeProto type;
	scs_vfacts f;
	scs_infer inf;

	onnx__tensor_shape_proto__init(&shape);
	for (int i = 0; i < 5; i++) {
		onnx__tensor_shape_proto__dimension__init(&dims[i]);
		if (params[i]) {
			dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
			dims[i].dim_param = (char *)params[i];
		} else {
			dims[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			dims[i].dim_value = 3;
		}
		dimp[i] = &dims[i];
	}
	shape.dim = dimp;
	shape.n_dim = 5;
	onnx__type_proto__tensor__init(&tt);
	tt.has_elem_type = 1;
	tt.elem_type = 1;
	tt.shape = &shape;
	onnx__type_proto__init(&type);
	type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	type.tensor_type = &tt;
	memset(&inf, 0, sizeof(inf));
	memset(&f, 0, sizeof(f));
	f.rank = -1;
	scs_infer_facts_from_type(&f, &type, &inf);
	cr_assert_eq(f.rank, 5);
	cr_assert_lt(f.dims[0], -1, "%lld", (long long)f.dims[0]);
	cr_assert_eq(f.dims[1], 3);
	cr_assert_lt(f.dims[2], -1, "%lld", (long long)f.dims[2]);
	cr_assert_neq(f.dims[2], f.dims[0]);
	cr_assert_eq(f.dims[3], f.dims[0], "one name, one symbol");
	cr_assert_eq(f.dims[4], -1, "an empty dim_param names nothing");
	cr_assert_str_eq(scs_infer_dim_name(&inf, f.dims[0]), "batch");
	cr_assert_str_eq(scs_infer_dim_name(&inf, f.dims[2]), "seq");
	cr_assert_null(scs_infer_dim_name(&inf, -1));
	cr_assert_null(scs_infer_dim_name(&inf, -4), "no third symbol");
	cr_assert_null(scs_infer_dim_name(&inf, 3));
	scs_infer_dispose(&inf);
	memset(&f, 0, sizeof(f));
	f.rank = -1;
	scs_infer_facts_from_type(&f, &type, NULL);
	cr_assert(f.dims[0] == -1 && f.dims[2] == -1 && f.dims[3] == -1, "no table: nameless");
}
