/*
 * test_padfuse.c: a Pad folded into the Conv or pool it feeds
 * (fuse_pad_into_conv, fuse_pad_into_pool), Where(Not(c), x, y) rewritten
 * (rewrite_where), and ONNX Runtime's basic-level rewrites that stay
 * standard ONNX.
 *
 * Each model comes from tests/e2e/gen_padfuse_models.py and holds several
 * cases side by side: case C reads X_C and makes Z_C, its Pad is pad_C and
 * the node it feeds conv_C or pool_C. onnxoptimizer's own cases for these
 * passes (optimizer_test.py) are among them, with the pads they expect.
 * A case that fuses has no Pad left and the pads it expects; a refused
 * one keeps its Pad, and the report names the reason. Every output passes
 * onnx.checker (opsets up to 17, what python3-onnx knows) and computes in
 * ONNX Runtime, bit for bit, what the input computes: these rewrites move
 * no arithmetic.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define dir run_dir
#define out run_out
#define rep run_rep
#define setup run_setup
#define teardown run_teardown

static const char *const PADS[] = { "fuse_pad_into_conv", "fuse_pad_into_pool", NULL };
static const char *const WHERE[] = { "rewrite_where", NULL };

/* Run @passes (NULL-terminated) on fixture @name; the output, read back. */
static Onnx__ModelProto *
optimize(const char *name, const char *const *passes)
{
	return run_optimize_passes(name, passes);
}

static const char *
left_all(void)
{
	return report_left_all(&rep);
}

/*
 * The output computes in ONNX Runtime what fixture @name computes, bit for
 * bit; checked by onnx.checker when @checked. ONNX Runtime's own graph
 * optimizations are off: its Pad fusion folds a Pad of 0 into a MaxPool
 * too, which would make the reference compute what a wrong fusion does.
 */
static void
expect_same(const char *name, int checked)
{
	char *in = fixture(name), *text;

	if (checked)
		expect_equivalent(in, out, "--graph-opt disabled");
	else {
		cr_assert_eq(ort_same(&text, in, out, "--graph-opt disabled"), 0, "%s: ONNX Runtime: %s", name, text);
		cr_assert_not_null(strstr(text, "identical"), "%s: %s", name, text);
		free(text);
	}
	free(in);
}

/* Case @c of @g: Z_@c is made by @op from X_@c directly, with pads @want (@n values). */
static void
expect_fused(const Onnx__GraphProto *g, const char *c, const char *op, const int64_t *want, size_t n)
{
	char z[64], x[64];
	const Onnx__NodeProto *node;
	const Onnx__AttributeProto *a = NULL;

	snprintf(z, sizeof(z), "Z_%s", c);
	snprintf(x, sizeof(x), "X_%s", c);
	node = find_node_by_output(g, z);
	cr_assert_not_null(node, "%s: nothing makes %s", c, z);
	cr_assert_str_eq(node->op_type, op, "%s: %s makes %s", c, node->op_type, z);
	cr_assert_str_eq(node->input[0], x, "%s: the %s reads '%s', not %s:%s", c, op, node->input[0], x, left_all());
	for (size_t i = 0; i < node->n_attribute; i++)
		if (strcmp(node->attribute[i]->name, "pads") == 0)
			a = node->attribute[i];
	cr_assert_not_null(a, "%s: no pads", c);
	cr_assert_eq(a->n_ints, n, "%s: %zu pads, want %zu", c, a->n_ints, n);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(a->ints[i], want[i], "%s: pad %zu is %lld, want %lld", c, i, (long long)a->ints[i],
		    (long long)want[i]);
}

#define FUSED(g, c, op, ...) \
	do { \
		static const int64_t want_[] = { __VA_ARGS__ }; \
		expect_fused((g), (c), (op), want_, sizeof(want_) / sizeof(want_[0])); \
	} while (0)

/* Case @c of @g kept its Pad, and the report says why node @node left it: @what. */
static void
expect_refused(const Onnx__GraphProto *g, const char *c, const char *node, const char *what)
{
	char p[64];

	snprintf(p, sizeof(p), "P_%s", c);
	cr_expect_not_null(find_node_by_output(g, p), "%s: the Pad is gone", c);
	cr_expect(report_left_has(&rep, node, what), "%s: no refusal of '%s' saying \"%s\"; left:%s", c, node, what,
	    left_all());
}

TestSuite(padfuse, .init = setup, .fini = teardown);

/* onnxoptimizer's cases at opset 10 (the pads attribute), and a non-zero value */
Test(padfuse, conv_opset10_pads_attribute)
{
	Onnx__ModelProto *m = optimize("pad_conv10.onnx", PADS);

	FUSED(m->graph, "c2d", "Conv", 0, 0, 1, 1);
	FUSED(m->graph, "c1d", "Conv", 1, 1);
	FUSED(m->graph, "cexist", "Conv", 1, 1, 1, 1);
	expect_refused(m->graph, "rfeat", "conv_rfeat", "pads axis 1 (the channels)");
	expect_refused(m->graph, "rneg", "conv_rneg", "crops");
	expect_refused(m->graph, "rrefl", "conv_rrefl", "does not pad with a constant");
	expect_refused(m->graph, "rval", "conv_rval", "pads with 1.5");
	cr_assert_eq(count_ops(m->graph, "Pad"), 4);
	free_proto(m);
	expect_same("pad_conv10.onnx", 1);
}

/* opset 2 (pads) and opset 1 ("paddings"), IR 3: every initializer a graph input, the pads attributes */
Test(padfuse, conv_opsets_1_and_2)
{
	Onnx__ModelProto *m = optimize("pad_conv2.onnx", PADS);

	FUSED(m->graph, "c2d", "Conv", 1, 1, 1, 1);
	free_proto(m);
	expect_same("pad_conv2.onnx", 1);
	m = optimize("pad_conv1.onnx", PADS);
	FUSED(m->graph, "c2d", "Conv", 1, 1, 1, 1);
	free_proto(m);
	/* ONNX Runtime does not load opset 1's Pad */
	cr_assert_eq(onnx_check(NULL, out), 0);
}

/* onnxoptimizer's cases at opset 11 (the pads input), and every refusal */
Test(padfuse, conv_opset11_pads_input_and_refusals)
{
	Onnx__ModelProto *m = optimize("pad_conv11.onnx", PADS);

	FUSED(m->graph, "c2d", "Conv", 0, 0, 1, 1);
	FUSED(m->graph, "cval0", "Conv", 0, 0, 1, 1);
	FUSED(m->graph, "c1d", "Conv", 1, 1);
	FUSED(m->graph, "cexist", "Conv", 1, 1, 1, 1);
	expect_refused(m->graph, "rval", "conv_rval", "pads with 25");
	expect_refused(m->graph, "rnegz", "conv_rnegz", "pads with -0");
	expect_refused(m->graph, "rfeat", "conv_rfeat", "pads axis 1 (the channels)");
	expect_refused(m->graph, "rbatch", "conv_rbatch", "pads axis 0 (the batch)");
	expect_refused(m->graph, "rneg", "conv_rneg", "crops");
	expect_refused(m->graph, "rrefl", "conv_rrefl", "does not pad with a constant");
	expect_refused(m->graph, "redge", "conv_redge", "does not pad with a constant");
	expect_refused(m->graph, "rauto", "conv_rauto", "auto_pad is not NOTSET");
	expect_refused(m->graph, "rcomp", "conv_rcomp", "its pads:");
	expect_refused(m->graph, "rdflt", "conv_rdflt", "its pads:");
	expect_refused(m->graph, "rtwo", "conv_rtwo", "also read by a Relu");
	expect_refused(m->graph, "rout", "conv_rout", "graph output");
	cr_assert_eq(count_ops(m->graph, "Pad"), 12, "%d Pads:%s", count_ops(m->graph, "Pad"), left_all());
	/* the fused cases' pads are gone with their Pads */
	cr_assert_null(find_init(m->graph, "pads_c2d"));
	cr_assert_null(find_init(m->graph, "value_cval0"));
	free_proto(m);
	expect_same("pad_conv11.onnx", 1);
}

/* pads in int64_data, values in float_data and as Constant nodes of raw data; strides and dilations */
Test(padfuse, conv_opset13_typed_encodings_and_constant_nodes)
{
	Onnx__ModelProto *m = optimize("pad_conv13.onnx", PADS);

	FUSED(m->graph, "ctyped", "Conv", 1, 0, 1, 2);
	FUSED(m->graph, "cconst", "Conv", 2, 2, 0, 1);
	FUSED(m->graph, "cstride", "Conv", 1, 0, 0, 0);
	cr_assert_eq(count_ops(m->graph, "Pad"), 0);
	cr_assert_eq(count_ops(m->graph, "Constant"), 0, "the Pads' Constant nodes stay");
	free_proto(m);
	expect_same("pad_conv13.onnx", 1);
}

/* the axes input from opset 18: listed axes, negative axes, axes in any order; an axis on the channels refused */
Test(padfuse, conv_opset18_axes)
{
	Onnx__ModelProto *m = optimize("pad_conv18.onnx", PADS);

	FUSED(m->graph, "caxes", "Conv", 1, 1, 1, 1);
	FUSED(m->graph, "cneg", "Conv", 0, 1, 0, 1);
	FUSED(m->graph, "cswap", "Conv", 0, 2, 1, 0);
	expect_refused(m->graph, "raxch", "conv_raxch", "pads axis 1 (the channels)");
	free_proto(m);
	expect_same("pad_conv18.onnx", 0);
}

/* opset 19 (mode wrap refused) and 21 (a 3-D Conv with pads of its own) */
Test(padfuse, conv_opsets_19_and_21)
{
	Onnx__ModelProto *m = optimize("pad_conv19.onnx", PADS);

	FUSED(m->graph, "c2d", "Conv", 1, 1, 1, 1);
	expect_refused(m->graph, "rwrap", "conv_rwrap", "does not pad with a constant");
	free_proto(m);
	expect_same("pad_conv19.onnx", 0);
	m = optimize("pad_conv21.onnx", PADS);
	FUSED(m->graph, "c2d", "Conv", 1, 1, 1, 1);
	FUSED(m->graph, "c3d", "Conv", 1, 1, 1, 1, 0, 1);
	free_proto(m);
	expect_same("pad_conv21.onnx", 0);
}

/*
 * MaxPool's padding is -inf (the type's least for integers), AveragePool's
 * is 0 counted with count_include_pad 1; every other combination refused
 */
Test(padfuse, pools)
{
	Onnx__ModelProto *m = optimize("pad_pool.onnx", PADS);
	const Onnx__NodeProto *avg;

	FUSED(m->graph, "cmax", "MaxPool", 1, 0, 0, 1);
	FUSED(m->graph, "cavg", "AveragePool", 1, 1, 1, 1);
	FUSED(m->graph, "cavgcnt", "AveragePool", 1, 1, 1, 1);
	FUSED(m->graph, "cu8", "MaxPool", 1, 1, 1, 1);
	FUSED(m->graph, "ci8", "MaxPool", 1, 1, 1, 1);
	avg = find_node_by_output(m->graph, "Z_cavg");
	for (size_t i = 0; i < avg->n_attribute; i++)
		if (strcmp(avg->attribute[i]->name, "count_include_pad") == 0)
			cr_assert_eq(avg->attribute[i]->i, 1);
	expect_refused(m->graph, "rmax0", "pool_rmax0", "pads with 0, where a MaxPool");
	expect_refused(m->graph, "ravg1", "pool_ravg1", "pads with 1, where an AveragePool pads with 0");
	expect_refused(m->graph, "ravgown", "pool_ravgown", "count_include_pad 0");
	expect_refused(m->graph, "rceil", "pool_rceil", "ceil_mode is 1");
	expect_refused(m->graph, "ridx", "pool_ridx", "Indices output 'I_ridx'");
	expect_refused(m->graph, "rbig", "pool_rbig", "not be below the kernel's 2");
	expect_refused(m->graph, "ri8", "pool_ri8", "pads int8 data with 0");
	expect_refused(m->graph, "rauto", "pool_rauto", "auto_pad is not NOTSET");
	free_proto(m);
	expect_same("pad_pool.onnx", 1);
}

/* opset 10 (the attribute; value -inf) and opset 6 (AveragePool has no count_include_pad before 7) */
Test(padfuse, pools_opsets_10_and_6)
{
	Onnx__ModelProto *m = optimize("pad_pool10.onnx", PADS);

	FUSED(m->graph, "cmax", "MaxPool", 1, 0, 0, 1);
	FUSED(m->graph, "cavg", "AveragePool", 1, 1, 1, 1);
	free_proto(m);
	expect_same("pad_pool10.onnx", 1);
	m = optimize("pad_pool6.onnx", PADS);
	FUSED(m->graph, "cmax", "MaxPool", 1, 0, 0, 1);
	expect_refused(m->graph, "ravg", "pool_ravg", "before opset 7 has no count_include_pad");
	free_proto(m);
	/* ONNX Runtime has no AveragePool-1 */
	cr_assert_eq(onnx_check(NULL, out), 0);
}

/* The subgraph of attribute @attr of the node of @g that makes @output. */
static const Onnx__GraphProto *
body_of(const Onnx__GraphProto *g, const char *output, const char *attr)
{
	const Onnx__NodeProto *n = find_node_by_output(g, output);

	cr_assert_not_null(n, "nothing makes %s", output);
	for (size_t i = 0; i < n->n_attribute; i++)
		if (strcmp(n->attribute[i]->name, attr) == 0)
			return n->attribute[i]->g;
	cr_assert_fail("no %s on the node making %s", attr, output);
	return NULL;
}

/* Pad -> Conv in both branches of an If (pads and weight read from the main graph), Pad -> MaxPool in a Loop body */
Test(padfuse, nested_graphs)
{
	Onnx__ModelProto *m = optimize("pad_nested.onnx", PADS);
	const Onnx__GraphProto *t = body_of(m->graph, "Z_if", "then_branch"), *e = body_of(m->graph, "Z_if", "else_branch");
	const Onnx__GraphProto *b = body_of(m->graph, "Z_loop", "body");

	cr_assert_eq(count_ops(t, "Pad") + count_ops(e, "Pad") + count_ops(b, "Pad"), 0, "left:%s", left_all());
	cr_assert_str_eq(find_node_by_output(t, "Z_t")->input[0], "X");
	cr_assert_str_eq(find_node_by_output(b, "x_out")->input[0], "x_in");
	cr_assert_null(find_init(m->graph, "pads"), "the main graph's pads stay");
	free_proto(m);
	expect_same("pad_nested.onnx", 1);
}

/* Where(Not(c), x, y) -> Where(c, y, x); at opset 9 (Where-9) and 13 (nested bodies too) */
Test(padfuse, rewrite_where)
{
	static const char *const models[] = { "where.onnx", "where9.onnx" };

	for (size_t k = 0; k < 2; k++) {
		Onnx__ModelProto *m = optimize(models[k], WHERE);
		const Onnx__NodeProto *w;

		w = find_node_by_output(m->graph, "Z_c1");
		cr_assert_str_eq(w->input[0], "C_c1", "%s:%s", models[k], left_all());
		cr_assert_str_eq(w->input[1], "Y_c1");
		cr_assert_str_eq(w->input[2], "X_c1");
		/* one Not read by two Where nodes: both rewritten, the Not gone */
		w = find_node_by_output(m->graph, "Z_c2");
		cr_assert_str_eq(w->input[0], "C_c2");
		cr_assert_str_eq(w->input[1], "Y_c2");
		w = find_node_by_output(m->graph, "Z_c2b");
		cr_assert_str_eq(w->input[0], "C_c2");
		cr_assert_str_eq(w->input[1], "X_c2");
		cr_assert_null(find_node_by_output(m->graph, "N_c2"));
		cr_expect(report_left_has(&rep, "where_rout", "also a graph output"), "left:%s", left_all());
		cr_expect(report_left_has(&rep, "where_rand", "also read by a And node 'and_rand'"), "left:%s", left_all());
		cr_assert_str_eq(find_node_by_output(m->graph, "Z_rout")->input[0], "N_rout");
		cr_assert_str_eq(find_node_by_output(m->graph, "Z_rand")->input[0], "N_rand");
		if (k == 0) {
			const Onnx__GraphProto *t = body_of(m->graph, "Z_cif", "then_branch");

			cr_assert_eq(count_ops(t, "Not"), 0, "left:%s", left_all());
			cr_assert_str_eq(find_node_by_output(t, "z_then")->input[0], "C_cif");
			cr_assert_str_eq(find_node_by_output(t, "z_then")->input[1], "Y_cif");
			cr_expect(report_left_has(&rep, "where_rnest", "Not is in an enclosing graph"), "left:%s", left_all());
			cr_assert_not_null(find_node_by_output(m->graph, "N_rnest"));
		}
		free_proto(m);
		expect_same(models[k], 1);
	}
}

/*
 * The output holds the weights NAME.expect.npz names, when there is one
 * (numpy's, bit for bit: tests/e2e/fuse_check.py), passes onnx.checker when @checked, and computes
 * in ONNX Runtime (its graph optimizations off) what fixture @name computes
 * within @tol ("REL,ABS"); the largest difference is printed.
 */
static void
expect_close(const char *name, const char *tol, int checked)
{
	char *in = fixture(name), *text, npz[512], *expect, *p;

	if (checked) {
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
		free(text);
	}
	snprintf(npz, sizeof(npz), "%.*s.expect.npz", (int)(strlen(name) - 5), name);
	expect = fixture(npz);
	if (file_exists(expect)) {
		cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/fuse_check.py' '%s' '%s'", SCS_TEST_SRC_DIR, out,
		    expect), 0, "%s: %s", name, text);
		free(text);
	}
	cr_assert_eq(run(&text, "node '%s/tests/e2e/ort_compare.mjs' '%s' '%s' --runs 4 --graph-opt disabled --tol %s",
	    SCS_TEST_SRC_DIR, in, out, tol), 0, "%s: ONNX Runtime: %s", name, text);
	p = strstr(text, "largest difference");
	cr_assert_not_null(p, "%s: %s", name, text);
	p[strcspn(p, "\n")] = '\0';
	cr_log_info("padfuse: %s: %s (tolerance %s)", name, p, tol);
	free(text);
	free(expect);
	free(in);
}

static const char *const MUL[] = { "fuse_mul_into_conv", NULL };

#define F32_TOL "1e-5,1e-5"

/* Case @c of @g: Z_@c is made by the Conv conv_@c (the Mul gone). */
static void
expect_mul_folded(const Onnx__GraphProto *g, const char *c)
{
	char z[64], conv[64];
	const Onnx__NodeProto *n;

	snprintf(z, sizeof(z), "Z_%s", c);
	snprintf(conv, sizeof(conv), "conv_%s", c);
	n = find_node_by_output(g, z);
	cr_assert_not_null(n, "%s: nothing makes %s", c, z);
	cr_assert_str_eq(n->op_type, "Conv", "%s: a %s makes %s:%s", c, n->op_type, z, left_all());
	cr_assert_str_eq(n->name, conv);
}

/* Case @c of @g keeps its Mul; the report says why: @what. */
static void
expect_mul_left(const Onnx__GraphProto *g, const char *c, const char *what)
{
	char z[64], mul[64];

	snprintf(z, sizeof(z), "Z_%s", c);
	snprintf(mul, sizeof(mul), "mul_%s", c);
	cr_expect_str_eq(find_node_by_output(g, z)->op_type, "Mul", "%s: the Mul is gone", c);
	cr_expect(report_left_has(&rep, mul, what), "%s: no refusal of '%s' saying \"%s\"; left:%s", c, mul, what,
	    left_all());
}

/*
 * Conv -> Mul by one value per output channel: [1,M,1,1] with a bias, a
 * scalar (Mul(s, y)) without one, [M,1,1] on a group-2 Conv, typed
 * encodings, a weight two Convs read (copied); and the refusals
 */
Test(padfuse, mul_into_conv)
{
	Onnx__ModelProto *m = optimize("mul_conv.onnx", MUL);

	expect_mul_folded(m->graph, "cper");
	expect_mul_folded(m->graph, "cscal");
	expect_mul_folded(m->graph, "cgroup");
	expect_mul_folded(m->graph, "ctyped");
	expect_mul_folded(m->graph, "cshared");
	cr_assert_eq(find_node_by_output(m->graph, "Z_cscal")->n_input, 2, "a bias appeared");
	cr_assert_str_neq(find_node_by_output(m->graph, "Z_cshared")->input[1], "W_cshared", "the shared weight changed");
	expect_mul_left(m->graph, "rspat", "is not one value per output channel");
	expect_mul_left(m->graph, "rinput", "graph input");
	expect_mul_left(m->graph, "rinf", "holds inf at 1");
	expect_mul_left(m->graph, "rtwo", "also read by a Relu");
	cr_assert_eq(count_ops(m->graph, "Mul"), 4);
	free_proto(m);
	expect_close("mul_conv.onnx", F32_TOL, 1);
}

/* a weight of 1.2 MB (over one store chunk), opset 21; float16; in an If branch reading the main graph's weight */
Test(padfuse, mul_into_conv_wide_float16_nested)
{
	Onnx__ModelProto *m = optimize("mul_conv_wide.onnx", MUL);

	expect_mul_folded(m->graph, "cwide");
	free_proto(m);
	/* 300 products a sum, each rounded once more (W * s) */
	expect_close("mul_conv_wide.onnx", "1e-4,1e-4", 0);
	m = optimize("mul_conv_f16.onnx", MUL);
	expect_mul_folded(m->graph, "cf16");
	free_proto(m);
	expect_close("mul_conv_f16.onnx", "1e-2,1e-2", 1);
	m = optimize("mul_conv_nest.onnx", MUL);
	cr_assert_eq(count_ops(body_of(m->graph, "Z", "then_branch"), "Mul"), 0, "left:%s", left_all());
	free_proto(m);
	expect_close("mul_conv_nest.onnx", F32_TOL, 1);
}

static const char *const DIV[] = { "replace_div_with_mul", NULL };

/* Case @c of @g: Z_@c is made by a Mul of X_@c (when @mul) or still by the Div div_@c. */
static void
expect_div(const Onnx__GraphProto *g, const char *c, int mul)
{
	char z[64], x[64];
	const Onnx__NodeProto *n;

	snprintf(z, sizeof(z), "Z_%s", c);
	snprintf(x, sizeof(x), "X_%s", c);
	n = find_node_by_output(g, z);
	cr_assert_not_null(n, "%s: nothing makes %s", c, z);
	cr_assert_str_eq(n->op_type, mul ? "Mul" : "Div", "%s: a %s makes %s:%s", c, n->op_type, z, left_all());
	cr_assert_str_eq(n->input[0], x);
}

/*
 * Div by powers of two (negative, in a Constant node's value_float, in
 * float_data, float16, shared with an Add, in an If branch) becomes a Mul
 * by the exact reciprocal, bit for bit in ONNX Runtime; by 3, or by a
 * float16 2^-16 (reciprocal 65536 over float16's largest) never, by 3 only
 * with --fold-inexact; by 0 or a graph input never; integer Div left alone
 */
Test(padfuse, div_by_a_power_of_two_becomes_mul)
{
	Onnx__ModelProto *m = optimize("div.onnx", DIV);
	const char *const yes[] = { "cpow", "cscal", "ctyped", "cf16", "cshared" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		expect_div(m->graph, yes[i], 1);
	cr_assert_eq(count_ops(body_of(m->graph, "Z_cif", "then_branch"), "Div"), 0, "left:%s", left_all());
	expect_div(m->graph, "rthree", 0);
	expect_div(m->graph, "rf16", 0);
	expect_div(m->graph, "rzero", 0);
	expect_div(m->graph, "rinput", 0);
	expect_div(m->graph, "rint", 0);
	cr_expect(report_left_has(&rep, "div_rthree", "element 1 of the divisor is 3, not a power of two"), "%s",
	    left_all());
	cr_expect(report_left_has(&rep, "div_rf16", "whose reciprocal is not a finite float16") ||
	    report_left_has(&rep, "div_rf16", "not a power of two whose reciprocal float16 holds exactly"), "%s", left_all());
	cr_expect(report_left_has(&rep, "div_rzero", "element 1 of the divisor is 0"), "%s", left_all());
	cr_expect(report_left_has(&rep, "div_rinput", "graph input"), "%s", left_all());
	cr_assert_not_null(find_init(m->graph, "D_cshared"), "the divisor the Add reads is gone");
	cr_assert_null(find_init(m->graph, "D_cpow"), "the old divisor stays");
	free_proto(m);
	expect_same("div.onnx", 1);
}

/* a divisor of 1.2 MB (over one store chunk) at opset 21, bit for bit */
Test(padfuse, div_by_a_divisor_over_one_chunk)
{
	Onnx__ModelProto *m = optimize("div21.onnx", DIV);

	expect_div(m->graph, "cwide", 1);
	free_proto(m);
	expect_same("div21.onnx", 0);
}

/* with --fold-inexact the division by 3 goes too, within a rounding; by 0 and by a float16 2^-16 (1/c overflows) not */
Test(padfuse, div_with_fold_inexact)
{
	scs_optimize_options o = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .passes = DIV, .n_passes = 1,
		.fold_inexact = 1 };
	Onnx__ModelProto *m = run_optimize("div.onnx", &o);

	expect_div(m->graph, "rthree", 1);
	expect_div(m->graph, "rzero", 0);
	expect_div(m->graph, "rf16", 0);
	free_proto(m);
	expect_close("div.onnx", "1e-3,1e-6", 1);
}

static const char *const RELU_CLIP[] = { "fuse_relu_clip", NULL };

/* The float a bound of @clip holds: input @slot's initializer in @g, or attribute @attr; @dflt when left out. */
static double
bound_of(const Onnx__GraphProto *g, const Onnx__NodeProto *clip, size_t slot, const char *attr, double dflt)
{
	const Onnx__TensorProto *t;
	float f;
	int32_t i;

	for (size_t k = 0; k < clip->n_attribute; k++)
		if (strcmp(clip->attribute[k]->name, attr) == 0)
			return clip->attribute[k]->f;
	if (clip->n_input <= slot || !clip->input[slot][0])
		return dflt;
	t = find_init(g, clip->input[slot]);
	cr_assert_not_null(t, "no initializer '%s'", clip->input[slot]);
	if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__INT32) {
		cr_assert_eq(t->raw_data.len, 4);
		memcpy(&i, t->raw_data.data, 4);
		return i;
	}
	cr_assert_eq(t->raw_data.len, 4, "'%s' is not one float in raw_data", clip->input[slot]);
	memcpy(&f, t->raw_data.data, 4);
	return f;
}

/* Case @c of @g: Z_@c made by one Clip of X_@c (@x when not NULL) with bounds @lo, @hi (NAN: left out). */
static void
expect_one_clip(const Onnx__GraphProto *g, const char *c, const char *x, double lo, double hi)
{
	char z[64], xn[64];
	const Onnx__NodeProto *n;
	double v;

	snprintf(z, sizeof(z), "Z_%s", c);
	snprintf(xn, sizeof(xn), "X_%s", c);
	n = find_node_by_output(g, z);
	cr_assert_not_null(n, "%s: nothing makes %s", c, z);
	cr_assert_str_eq(n->op_type, "Clip", "%s: a %s makes %s:%s", c, n->op_type, z, left_all());
	cr_assert_str_eq(n->input[0], x ? x : xn, "%s: the Clip reads '%s':%s", c, n->input[0], left_all());
	v = bound_of(g, n, 1, "min", NAN);
	cr_expect(isnan(lo) ? isnan(v) : v == lo, "%s: min %g, want %g", c, v, lo);
	v = bound_of(g, n, 2, "max", NAN);
	cr_expect(isnan(hi) ? isnan(v) : v == hi, "%s: max %g, want %g", c, v, hi);
}

/*
 * Relu -> Clip and Clip -> Relu become one Clip with bounds max(lo, 0)
 * (and max(hi, 0) after the Clip), bit for bit in ONNX Runtime, on random
 * inputs and on -0, NaN and infinities; a chain of three over rounds; a
 * min two Clips share; refusals
 */
Test(padfuse, relu_and_clip_become_one_clip)
{
	Onnx__ModelProto *m = optimize("relu_clip.onnx", RELU_CLIP);
	char *in = fixture("relu_clip.onnx"), *npy = fixture("relu_clip_special.npy"), extra[600], *text;

	expect_one_clip(m->graph, "c6", NULL, 0, 6);
	expect_one_clip(m->graph, "cneg", NULL, 0, 2);
	expect_one_clip(m->graph, "cnomin", NULL, 0, 3);
	expect_one_clip(m->graph, "cnone", NULL, 0, NAN);
	expect_one_clip(m->graph, "cpos", NULL, 1, 2);
	expect_one_clip(m->graph, "crelu", NULL, 0, 4);
	expect_one_clip(m->graph, "cneghi", NULL, 0, 0);
	expect_one_clip(m->graph, "cchain", NULL, 0, 5);
	expect_one_clip(m->graph, "cshare", NULL, 0, 2);
	expect_one_clip(m->graph, "cshare2", NULL, 0, 2);
	expect_one_clip(m->graph, "csp1", "X_sp", 0, 6);
	expect_one_clip(m->graph, "csp2", "X_sp", 0, 4);
	cr_assert_null(find_init(m->graph, "min_cshare"), "the shared min of -1 stays");
	cr_expect(report_left_has(&rep, "clip_rtwo", "also read by a Neg node"), "%s", left_all());
	cr_expect(report_left_has(&rep, "clip_rinput", "graph input"), "%s", left_all());
	cr_assert_eq(count_ops(m->graph, "Relu"), 2, "%d Relu:%s", count_ops(m->graph, "Relu"), left_all());
	free_proto(m);
	cr_assert_eq(onnx_check(&text, out), 0, "onnx.checker: %s", text);
	free(text);
	snprintf(extra, sizeof(extra), "--graph-opt disabled --feed-both X_sp='%s'", npy);
	cr_assert_eq(ort_same(&text, in, out, extra), 0, "ONNX Runtime: %s", text);
	cr_assert_not_null(strstr(text, "identical"), "%s", text);
	free(text);
	free(npy);
	free(in);
}

/* the min and max attributes (opset 10); opset 21 and int32 */
Test(padfuse, relu_and_clip_opsets_10_and_21)
{
	Onnx__ModelProto *m = optimize("relu_clip10.onnx", RELU_CLIP);

	expect_one_clip(m->graph, "c6", NULL, 0, 6);
	expect_one_clip(m->graph, "crelu", NULL, 0, 0);
	free_proto(m);
	expect_same("relu_clip10.onnx", 1);
	m = optimize("relu_clip21.onnx", RELU_CLIP);
	expect_one_clip(m->graph, "c6", NULL, 0, 6);
	expect_one_clip(m->graph, "cint", NULL, 0, 5);
	free_proto(m);
	expect_same("relu_clip21.onnx", 0);
}

static const char *const QKV[] = { "fuse_qkv", NULL };

/* Case @c of @g: q_@c, k_@c and v_@c made by one Split of one MatMul of X_@c by a Concat of the three weights. */
static void
expect_qkv(const Onnx__GraphProto *g, const char *c, int split_input)
{
	char name[64];
	const Onnx__NodeProto *split, *mm, *cat;

	snprintf(name, sizeof(name), "q_%s", c);
	split = find_node_by_output(g, name);
	cr_assert_not_null(split, "%s: nothing makes %s", c, name);
	cr_assert_str_eq(split->op_type, "Split", "%s: a %s makes %s:%s", c, split->op_type, name, left_all());
	cr_assert_eq(split->n_output, 3);
	cr_assert_eq(split->n_input, split_input ? 2 : 1, "%s: the Split's split is %s", c,
	    split_input ? "no input" : "an input");
	snprintf(name, sizeof(name), "k_%s", c);
	cr_assert_eq(find_node_by_output(g, name), split);
	snprintf(name, sizeof(name), "v_%s", c);
	cr_assert_eq(find_node_by_output(g, name), split);
	mm = find_node_by_output(g, split->input[0]);
	cr_assert_str_eq(mm->op_type, "MatMul");
	snprintf(name, sizeof(name), "X_%s", c);
	cr_assert_str_eq(mm->input[0], name);
	cat = find_node_by_output(g, mm->input[1]);
	cr_assert_str_eq(cat->op_type, "Concat");
	cr_assert_eq(cat->n_input, 3);
}

/*
 * Three MatMuls of one input by constant weights of one shape: a Concat,
 * one MatMul and a Split (its sizes an input from opset 13, the attribute
 * before), bit for bit in ONNX Runtime; batched weights; refusals; an
 * input read by a fourth node left alone (onnxoptimizer's rule)
 */
Test(padfuse, qkv)
{
	Onnx__ModelProto *m = optimize("qkv.onnx", QKV);

	expect_qkv(m->graph, "c", 1);
	cr_expect(report_left_has(&rep, "mmv_rshape", "differ in shape") ||
	    report_left_has(&rep, "mmq_rshape", "differ in shape"), "%s", left_all());
	cr_expect(report_left_has(&rep, "mmv_rinput", "graph input") ||
	    report_left_has(&rep, "mmq_rinput", "graph input"), "%s", left_all());
	cr_assert_eq(count_ops(m->graph, "MatMul"), 1 + 9, "left:%s", left_all());
	free_proto(m);
	expect_same("qkv.onnx", 1);
	m = optimize("qkv11.onnx", QKV);
	expect_qkv(m->graph, "c", 0);
	expect_qkv(m->graph, "cb", 0);
	free_proto(m);
	expect_same("qkv11.onnx", 1);
}

/*
 * With the default set, MatMul + Add pairs of one input become Gemms
 * (fuse_matmul_add_bias_into_gemm runs before fuse_qkv): fusing the three
 * MatMuls first would leave a Concat, a MatMul, a Split and three Adds where
 * three Gemms do (ONNX Runtime's basic level makes the Gemms).
 */
Test(padfuse, matmul_add_pairs_of_one_input_become_gemms_before_qkv)
{
	Onnx__ModelProto *m = optimize("matmul_add.onnx", NULL);

	cr_assert_eq(count_ops(m->graph, "Gemm"), 3, "left:%s", left_all());
	cr_assert_eq(count_ops(m->graph, "Split"), 0);
	cr_assert_eq(count_ops(m->graph, "Add"), 0);
	free_proto(m);
	expect_same("matmul_add.onnx", 1);
}
