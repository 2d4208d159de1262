/*
 * test_fuse.c: the numeric fusions (fuse_bn_into_conv, fuse_bn_into_gemm,
 * fuse_add_bias_into_conv, fuse_matmul_add_bias_into_gemm).
 *
 * Each model comes from tests/e2e/gen_fuse_models.py. A fused model must
 * pass onnx.checker; the weights and biases the pass wrote must equal, bit
 * for bit, what numpy computes from the operator definitions
 * (fuse_check.py); and in ONNX Runtime, with its graph optimizations
 * disabled so that its own fusions do not hide a wrong weight, the outputs
 * must stay within the stated tolerance of the original's. The largest
 * difference seen is printed for each model ("fuse: NAME: largest
 * difference ..."). Refusals leave their nodes as they were and are
 * reported with their reason; bad input never crashes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

/* the scratch folder, output path and report of support.c's run_setup() */
#define dir run_dir
#define out run_out
#define rep run_rep
#define setup run_setup
#define teardown run_teardown

/* Run @passes (NULL-terminated; NULL: the default set) on fixture @name; the output, read back. */
static Onnx__ModelProto *
optimize(const char *name, const char *const *passes)
{
	return run_optimize_passes(name, passes);
}

/*
 * The output of optimize(@name) passes onnx.checker, holds the values
 * NAME.expect.npz names (when there is one), and, when @tol is not NULL,
 * computes in ONNX Runtime (graph optimizations disabled) what @name
 * computes within @tol ("REL,ABS"); the largest difference is printed.
 */
static void
expect_close(const char *name, const char *tol)
{
	char *in = fixture(name), *text, npz[512], *expect, *p;

	cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
	free(text);
	snprintf(npz, sizeof(npz), "%.*s.expect.npz", (int)(strlen(name) - 5), name);
	expect = fixture(npz);
	if (file_exists(expect)) {
		cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/fuse_check.py' '%s' '%s'", SCS_TEST_SRC_DIR, out,
		    expect), 0, "%s: %s", name, text);
		free(text);
	}
	if (tol) {
		cr_assert_eq(run(&text, "node '%s/tests/e2e/ort_compare.mjs' '%s' '%s' --runs 4 --graph-opt disabled "
		    "--tol %s", SCS_TEST_SRC_DIR, in, out, tol), 0, "%s: ONNX Runtime: %s", name, text);
		p = strstr(text, "largest difference");
		cr_assert_not_null(p, "%s: %s", name, text);
		p[strcspn(p, "\n")] = '\0';
		cr_log_info("fuse: %s: %s (tolerance %s)", name, p, tol);
		free(text);
	}
	free(expect);
	free(in);
}

/* 1 when the report lists node @node as left alone for a reason containing @what. */
static int
left_has(const char *node, const char *what)
{
	return report_left_has(&rep, node, what);
}

static const char *
left_all(void)
{
	return report_left_all(&rep);
}

#define EXPECT_LEFT(node, what) cr_expect(left_has(node, what), "no refusal of '%s' saying \"%s\"; left:%s", node, \
	what, left_all())

/* Every initializer of @a named @name has the same dims and bytes in @b. */
static void
expect_same_init(const Onnx__ModelProto *a, const Onnx__ModelProto *b, const char *name)
{
	Onnx__TensorProto *x = find_init(a->graph, name), *y = find_init(b->graph, name);

	cr_assert_not_null(x, "no '%s' in the input", name);
	cr_assert_not_null(y, "'%s' is gone", name);
	cr_assert_eq(x->n_dims, y->n_dims, "'%s': rank changed", name);
	cr_assert_eq(x->raw_data.len, y->raw_data.len, "'%s': length changed", name);
	cr_assert_arr_eq(x->raw_data.data, y->raw_data.data, x->raw_data.len, "'%s' changed", name);
}

static const char *const BN_CONV[] = { "fuse_bn_into_conv", NULL };
static const char *const BN_GEMM[] = { "fuse_bn_into_gemm", NULL };
static const char *const ALL[] = { "fuse_bn_into_conv", "fuse_bn_into_gemm", "fuse_add_bias_into_conv",
	"fuse_matmul_add_bias_into_gemm", NULL };

#define F32_TOL "1e-5,1e-5"

/* Fuse fixture @name with @passes: no BatchNormalization left, @n_op nodes of @op. */
static void
fused(const char *name, const char *const *passes, const char *op, int n_op, const char *tol)
{
	Onnx__ModelProto *m = optimize(name, passes);

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 0, "%s: a BatchNormalization is left:%s", name,
	    left_all());
	cr_assert_eq(count_ops(m->graph, op), n_op, "%s: %d %s nodes, want %d", name, count_ops(m->graph, op), op, n_op);
	expect_close(name, tol);
	free_proto(m);
}

TestSuite(fuse, .init = setup, .fini = teardown);

Test(fuse, conv_1d_with_bias)
{
	fused("bn_conv1d.onnx", BN_CONV, "Conv", 1, F32_TOL);
}

Test(fuse, conv_2d_dilated_without_bias_parameters_as_constant_nodes_output_read_twice)
{
	Onnx__ModelProto *m = optimize("bn_conv2d.onnx", BN_CONV);

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 0, "left:%s", left_all());
	cr_assert_eq(count_ops(m->graph, "Constant"), 0, "the BN's Constant nodes are left");
	cr_assert_not_null(find_node_by_output(m->graph, "conv_y"), "the Conv's output was renamed");
	cr_assert_eq(find_node_by_output(m->graph, "conv_y")->n_input, 3, "the Conv has no bias");
	expect_close("bn_conv2d.onnx", F32_TOL);
	free_proto(m);
}

Test(fuse, conv_3d_whose_batchnorm_is_a_graph_output)
{
	Onnx__ModelProto *m = optimize("bn_conv3d.onnx", BN_CONV);

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 0, "left:%s", left_all());
	cr_assert_not_null(find_node_by_output(m->graph, "Y"), "the graph output 'Y' is made by nothing");
	cr_assert_str_eq(find_node_by_output(m->graph, "Y")->op_type, "Conv");
	expect_close("bn_conv3d.onnx", F32_TOL);
	free_proto(m);
}

Test(fuse, conv_group_3)
{
	fused("bn_conv_group.onnx", BN_CONV, "Conv", 1, F32_TOL);
}

Test(fuse, depthwise_then_pointwise)
{
	fused("bn_conv_dw.onnx", BN_CONV, "Conv", 2, F32_TOL);
}

Test(fuse, conv_float16)
{
	fused("bn_conv_f16.onnx", BN_CONV, "Conv", 1, "1e-2,1e-2");
}

/*
 * a weight of 1.3 MB (more than one store chunk) scaled by 8,300 factors
 * (more than one window); the weight bit for bit, the outputs within what
 * 80 float16 products summed in float16 allow
 */
Test(fuse, conv_float16_of_8300_channels)
{
	fused("bn_conv_wide.onnx", BN_CONV, "Conv", 1, "5e-2,5e-2");
}

/*
 * The fused weight is computed while the output is written, and the old
 * weight (1.3 MB, more than the scan's window) is never hashed: the tool
 * reads the input at most twice (the scan's window reads through most of
 * the weight in passing, the output reads it once), where it read it 3.7
 * times when the scan hashed every payload and the new weight went
 * through the store
 */
Test(fuse, a_weight_replaced_by_its_fused_copy_is_read_once)
{
	char *in = fixture("bn_conv_wide.onnx");
	unsigned long long size = file_size(in);

	fused("bn_conv_wide.onnx", BN_CONV, "Conv", 1, NULL);
	cr_assert_eq(rep.has_io, 1, "no /proc/self/io here");
	cr_assert_leq(rep.bytes_read - rep.bytes_kernel_copied, 2 * size, "read %llu bytes of a %llu-byte input",
	    (unsigned long long)(rep.bytes_read - rep.bytes_kernel_copied), size);
	free(in);
}

/*
 * A weight in float_data (decoded into the store, so the fused copy is
 * computed from a store payload; 1.28 MB, more than one chunk) at opset
 * 18, with a kept store; the output optimized again with the same store
 * comes out byte for byte the same
 */
Test(fuse, a_float_data_weight_in_a_kept_store_fuses_once)
{
	char *store = path_in(dir, "store"), *again = path_in(dir, "again.onnx");
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .store_dir = store };
	Onnx__ModelProto *m = run_optimize("bn_conv_typed.onnx", &o);
	uint8_t *a, *b;
	size_t a_len, b_len;

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 0, "a BatchNormalization is left:%s", left_all());
	cr_assert_eq(count_ops(m->graph, "Conv"), 1);
	free_proto(m);
	expect_close("bn_conv_typed.onnx", "1e-4,1e-4");     /* sums of 500 products */
	scs_report_dispose(&rep);
	rep = (scs_report)SCS_REPORT_INIT;
	cr_assert_eq(scs_optimize(&rep, out, again, &o), SCS_OK, "second run: %s", scs_err_msg());
	a = read_all(out, &a_len);
	b = read_all(again, &b_len);
	cr_assert(a && b && a_len == b_len && memcmp(a, b, a_len) == 0, "the second run changed the model (%zu -> %zu "
	    "bytes)", a_len, b_len);
	free(a);
	free(b);
	free(again);
	free(store);
}

/* ONNX Runtime has no float64 Conv: the values alone, bit for bit */
Test(fuse, conv_float64_values)
{
	fused("bn_conv_f64.onnx", BN_CONV, "Conv", 1, NULL);
}

Test(fuse, conv_transpose_group_2_strides_output_padding)
{
	fused("bn_convt.onnx", BN_CONV, "ConvTranspose", 1, F32_TOL);
}

Test(fuse, conv_transpose_1d_without_bias)
{
	fused("bn_convt1d.onnx", BN_CONV, "ConvTranspose", 1, F32_TOL);
}

Test(fuse, gemm_trans_b_alpha_beta)
{
	Onnx__ModelProto *m = optimize("bn_gemm.onnx", BN_GEMM);
	Onnx__NodeProto *g = find_node_by_output(m->graph, "Y");

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 0, "left:%s", left_all());
	cr_assert_not_null(g);
	for (size_t i = 0; i < g->n_attribute; i++) {
		if (strcmp(g->attribute[i]->name, "beta") == 0)
			cr_assert_float_eq(g->attribute[i]->f, 1.0f, 0, "beta is %g", g->attribute[i]->f);
		if (strcmp(g->attribute[i]->name, "alpha") == 0)
			cr_assert_float_eq(g->attribute[i]->f, 0.5f, 0, "alpha changed to %g", g->attribute[i]->f);
	}
	expect_close("bn_gemm.onnx", F32_TOL);
	free_proto(m);
}

Test(fuse, gemm_trans_a_without_c)
{
	fused("bn_gemm_noc.onnx", BN_GEMM, "Gemm", 1, F32_TOL);
}

Test(fuse, gemm_c_one_per_row)
{
	fused("bn_gemm_crows.onnx", BN_GEMM, "Gemm", 1, F32_TOL);
}

Test(fuse, gemm_float64_scalar_c)
{
	fused("bn_gemm_f64.onnx", BN_GEMM, "Gemm", 1, "1e-12,1e-12");
}

/* B[3,9000]: each row of the weight runs through every channel's factor, 9,000 of them */
Test(fuse, gemm_of_9000_features)
{
	fused("bn_gemm_wide.onnx", BN_GEMM, "Gemm", 1, F32_TOL);
}

/* ONNX Runtime has no bfloat16 Gemm: the values alone, bit for bit */
Test(fuse, gemm_bfloat16_values)
{
	fused("bn_gemm_bf16.onnx", BN_GEMM, "Gemm", 1, NULL);
}

Test(fuse, matmul_becomes_gemm)
{
	Onnx__ModelProto *m = optimize("bn_matmul.onnx", BN_GEMM);

	cr_assert_eq(count_ops(m->graph, "MatMul"), 0);
	cr_assert_eq(count_ops(m->graph, "Gemm"), 1);
	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 0, "left:%s", left_all());
	expect_close("bn_matmul.onnx", F32_TOL);
	free_proto(m);
}

/* a weight read by others is copied; the last reader changes it in place */
Test(fuse, a_shared_weight_is_copied_not_changed)
{
	char *path = fixture("bn_shared.onnx");
	Onnx__ModelProto *in = load_proto(path), *m = optimize("bn_shared.onnx", BN_CONV);

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 0, "left:%s", left_all());
	expect_same_init(in, m, "W");
	cr_assert(uses(m->graph, "W"), "the ReduceSum no longer reads 'W'");
	expect_close("bn_shared.onnx", F32_TOL);
	free(path);
	free_proto(in);
	free_proto(m);
}

Test(fuse, conv_and_batchnorm_inside_an_if_branch)
{
	Onnx__ModelProto *m = optimize("bn_nested.onnx", BN_CONV);

	cr_assert_eq(count_ops(subgraph(m->graph, "If", "then_branch"), "BatchNormalization"), 0, "left:%s", left_all());
	expect_close("bn_nested.onnx", F32_TOL);
	free_proto(m);
}

Test(fuse, add_of_one_value_per_channel_becomes_the_bias)
{
	static const char *const passes[] = { "fuse_add_bias_into_conv", NULL };
	Onnx__ModelProto *m = optimize("add_bias.onnx", passes);

	cr_assert_eq(count_ops(m->graph, "Add"), 0, "an Add is left:%s", left_all());
	cr_assert_not_null(find_node_by_output(m->graph, "ya"));
	cr_assert_str_eq(find_node_by_output(m->graph, "yb")->op_type, "Conv");
	expect_close("add_bias.onnx", F32_TOL);
	free_proto(m);
}

Test(fuse, matmul_and_add_become_gemm)
{
	static const char *const passes[] = { "fuse_matmul_add_bias_into_gemm", NULL };
	Onnx__ModelProto *m = optimize("matmul_add.onnx", passes);

	cr_assert_eq(count_ops(m->graph, "Add"), 0, "an Add is left:%s", left_all());
	cr_assert_eq(count_ops(m->graph, "MatMul"), 0);
	cr_assert_eq(count_ops(m->graph, "Gemm"), 3);
	cr_assert_str_eq(find_node_by_output(m->graph, "y2")->input[2], "C2");
	expect_close("matmul_add.onnx", F32_TOL);
	free_proto(m);
}

/* the default set, over rounds: Add into the Conv's bias, then BN; MatMul+Add into Gemm, then BN */
Test(fuse, the_passes_feed_each_other)
{
	Onnx__ModelProto *m = optimize("chain.onnx", NULL);

	cr_assert_eq(m->graph->n_node, 3, "%zu nodes left:%s", m->graph->n_node, left_all());
	cr_assert_eq(count_ops(m->graph, "Conv"), 1);
	cr_assert_eq(count_ops(m->graph, "Gemm"), 1);
	cr_assert_eq(count_ops(m->graph, "Relu"), 1);
	expect_close("chain.onnx", F32_TOL);
	free_proto(m);
}

Test(fuse, every_refusal_leaves_its_node_and_says_why)
{
	char *path = fixture("fuse_refuse.onnx");
	Onnx__ModelProto *in = load_proto(path), *m = optimize("fuse_refuse.onnx", ALL);

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), count_ops(in->graph, "BatchNormalization") - 1,
	    "left:%s", left_all());
	cr_assert_null(find_node_by_output(m->graph, "r_ok_y"), "the one fusable pair was not fused");
	cr_assert_eq(count_ops(m->graph, "Add"), 2);
	EXPECT_LEFT("r_used_bn", "also read by node 'r_used_relu'");
	EXPECT_LEFT("r_out_bn", "also a graph output");
	EXPECT_LEFT("r_input_bn", "'gi' is a graph input with a default");
	EXPECT_LEFT("r_winput_bn", "'Wi' is a graph input");
	EXPECT_LEFT("r_comp_bn", "computed by a Abs node");
	EXPECT_LEFT("r_addin_add", "'ai' is a graph input");
	EXPECT_LEFT("r_addspat_add", "not one value per output channel");
	expect_same_init(in, m, "r_used_W");
	expect_same_init(in, m, "r_out_W");
	expect_same_init(in, m, "r_input_W");
	expect_same_init(in, m, "r_comp_W");
	expect_same_init(in, m, "gi");
	expect_same_init(in, m, "aspat");
	expect_close("fuse_refuse.onnx", F32_TOL);
	free(path);
	free_proto(in);
	free_proto(m);
}

Test(fuse, training_mode_is_left_alone)
{
	Onnx__ModelProto *m = optimize("fuse_train.onnx", ALL);

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 1);
	EXPECT_LEFT("bn_train", "statistics of training");
	cr_assert_eq(rep.nodes_before, rep.nodes_after);
	char *path = fixture("fuse_train.onnx");

	expect_equivalent(path, out, NULL);
	free(path);
	free_proto(m);
}

Test(fuse, extra_outputs_before_opset_14_mean_training)
{
	Onnx__ModelProto *m = optimize("fuse_train9.onnx", ALL);

	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), 1);
	EXPECT_LEFT("bn_train9", "statistics of training");
	free_proto(m);
}

Test(fuse, bad_input_is_refused_never_a_crash)
{
	char *path = fixture("fuse_bad.onnx");
	Onnx__ModelProto *in = load_proto(path), *m = optimize("fuse_bad.onnx", ALL);

	cr_assert_eq(rep.nodes_before, rep.nodes_after, "a node changed:%s", left_all());
	cr_assert_eq(count_ops(m->graph, "BatchNormalization"), count_ops(in->graph, "BatchNormalization"));
	EXPECT_LEFT("b_len_bn", "not [4]");
	EXPECT_LEFT("b_mix_bn", "input_var 'b_mix_var' has shape [3]");
	EXPECT_LEFT("b_rank_bn", "has shape [4,3]");
	EXPECT_LEFT("b_group_bn", "group 2 does not divide");
	EXPECT_LEFT("b_zero_bn", "not all finite");
	EXPECT_LEFT("b_gemmc_bn", "C 'gC'");
	expect_same_init(in, m, "b_len_W");
	expect_same_init(in, m, "b_zero_W");
	free(path);
	free_proto(in);
	free_proto(m);
}

Test(fuse, a_pass_that_finds_nothing_changes_nothing)
{
	Onnx__ModelProto *m = optimize("matmul_add.onnx", BN_CONV);

	cr_assert_eq(rep.nodes_before, rep.nodes_after);
	cr_assert_eq(rep.changes.n, 0);
	cr_assert_eq(count_ops(m->graph, "MatMul"), 3);
	free_proto(m);
}

/*
 * Written in small steps (test builds can drop an output's pages behind it
 * every 64 KiB, with 64 KiB buffers: the 1.3 MB fused weight goes in about
 * twenty steps), inline and as external data, the output is byte for byte
 * the one written in the usual steps, and nothing goes past the cache
 */
Test(fuse, a_fused_weight_written_in_small_steps_is_the_same)
{
	for (int external = 0; external <= 1; external++) {
		scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .external_data = external };
		char *in = fixture("bn_conv_wide.onnx"), *sub = path_in(dir, external ? "stepped_x" : "stepped"),
		    *direct = path_in(sub, "bn_conv_wide.onnx");    /* the same name: the model names its data file */
		uint8_t *a, *b;
		size_t a_len, b_len;

		free_proto(run_optimize("bn_conv_wide.onnx", &o));
		a = read_model_and_data(out, &a_len);
		cr_assert_eq(mkdir(sub, 0777), 0);
		setenv("SCS_TEST_WRITEBACK_STEP", "65536", 1);
		setenv("SCS_TEST_SINK_BUF", "65536", 1);
		scs_report_dispose(&rep);
		rep = (scs_report)SCS_REPORT_INIT;
		cr_assert_eq(scs_optimize(&rep, in, direct, &o), SCS_OK, "%s", scs_err_msg());
		unsetenv("SCS_TEST_WRITEBACK_STEP");
		unsetenv("SCS_TEST_SINK_BUF");
		b = read_model_and_data(direct, &b_len);
		cr_assert(a_len > 1000000 && a_len == b_len && memcmp(a, b, a_len) == 0,
		    "external %d: %zu bytes in the usual steps, %zu in small ones, not the same", external, a_len, b_len);
		cr_assert_eq(rep.bytes_written_direct, 0, "external %d: %llu bytes written direct", external,
		    (unsigned long long)rep.bytes_written_direct);
		free(a);
		free(b);
		free(in);
		free(sub);
		free(direct);
	}
}

/* Nodes of @g and of the graphs nested in its nodes. */
static size_t
count_all(const Onnx__GraphProto *g)
{
	size_t n = g->n_node;

	for (size_t i = 0; i < g->n_node; i++)
		for (size_t k = 0; k < g->node[i]->n_attribute; k++)
			if (g->node[i]->attribute[k]->g)
				n += count_all(g->node[i]->attribute[k]->g);
	return n;
}

/* One ort_compare --batch list per tolerance ("-": bit for bit). */
typedef struct pair_list {
	char tol[64];
	char *path;
	FILE *fp;
} pair_list;

/*
 * Every fusion on every element type its operators' schemas allow
 * (gen_fuse_types.py), and a MatMul + Add whose C is made by a node listed
 * between them: each output passes onnx.checker, and wherever ONNX Runtime
 * loads the input it loads the output and computes the same (bit for bit
 * where nothing is computed, within the stated tolerance where a fusion
 * changes arithmetic). Float32 must fuse; other types may be left alone,
 * with the reason ("no ONNX Runtime CPU kernel for Gemm-13 on int32").
 */
Test(fuse, every_fusion_on_every_element_type)
{
	char *d = tmpdir_new(), *manifest = path_in(d, "manifest.tsv"), *list = path_in(d, "checks.txt"), *text;
	char line[1024], file[256], pass[128], tol[64], name[512];
	pair_list lists[8];
	size_t n_lists = 0;
	int fuses, n = 0, n_ok = 0, n_skip = 0, n_fused = 0;
	FILE *in, *checks;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/gen_fuse_types.py' '%s'", SCS_TEST_SRC_DIR, d), 0, "%s",
	    text);
	free(text);
	cr_assert_not_null(in = fopen(manifest, "r"));
	cr_assert_not_null(checks = fopen(list, "w"));
	while (fgets(line, sizeof(line), in)) {
		Onnx__ModelProto *a, *b;
		char *src, *dst;
		size_t k;

		cr_assert_eq(sscanf(line, "%255s %127s %63s %d", file, pass, tol, &fuses), 4, "manifest: %s", line);
		snprintf(name, sizeof(name), "out_%s", file);
		src = path_in(d, file);
		dst = path_in(d, name);
		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' --verbose -p %s", src, dst, pass), 0, "%s: %s", file,
		    text);
		/* a MatMul left alone for its type says why */
		if (strncmp(file, "matmul_add_", 11) == 0 && !fuses && !strstr(file, "_double"))
			cr_assert_not_null(strstr(text, "no ONNX Runtime CPU kernel for Gemm-13 on "), "%s: %s", file, text);
		free(text);
		fprintf(checks, "'%s' ", dst);
		a = load_proto(src);
		b = load_proto(dst);
		cr_assert(a && b, "%s: cannot read", file);
		if (count_all(b->graph) < count_all(a->graph))
			n_fused++;
		else
			cr_assert(!fuses, "%s: %s did not fuse", file, pass);
		free_proto(a);
		free_proto(b);
		for (k = 0; k < n_lists && strcmp(lists[k].tol, tol) != 0; k++)
			;
		if (k == n_lists) {
			cr_assert_lt(n_lists, sizeof(lists) / sizeof(lists[0]));
			snprintf(lists[k].tol, sizeof(lists[k].tol), "%s", tol);
			snprintf(name, sizeof(name), "pairs%zu.tsv", k);
			lists[k].path = path_in(d, name);
			cr_assert_not_null(lists[k].fp = fopen(lists[k].path, "w"));
			n_lists++;
		}
		fprintf(lists[k].fp, "%s\t%s\n", src, dst);
		free(src);
		free(dst);
		n++;
	}
	fclose(in);
	fclose(checks);
	cr_expect_eq(run(&text, "xargs -a '%s' /usr/bin/python3 '%s/tests/e2e/check_model.py' --full-check --keep-going",
	    list, SCS_TEST_SRC_DIR), 0, "onnx.checker: %s", text);
	free(text);
	for (size_t k = 0; k < n_lists; k++) {
		fclose(lists[k].fp);
		run(&text, "node '%s/tests/e2e/ort_compare.mjs' --batch '%s' --runs 2 --graph-opt disabled %s%s",
		    SCS_TEST_SRC_DIR, lists[k].path, strcmp(lists[k].tol, "-") ? "--tol " : "",
		    strcmp(lists[k].tol, "-") ? lists[k].tol : "");
		for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
			if (strncmp(l, "ok: ", 4) == 0)
				n_ok++;
			else if (strncmp(l, "skip: ", 6) == 0)
				n_skip++;       /* ONNX Runtime does not load the input either */
			else
				cr_expect_fail("ONNX Runtime: %s", l);
		}
		free(text);
		free(lists[k].path);
	}
	cr_assert_eq(n_ok + n_skip, n, "ONNX Runtime answered for %d of %d", n_ok + n_skip, n);
	cr_log_info("fuse: %d models over every element type: %d fused, %d loaded and computed the same in ONNX Runtime, "
	    "%d whose input ONNX Runtime does not load", n, n_fused, n_ok, n_skip);
	free(manifest);
	free(list);
	tmpdir_remove(d);
}
