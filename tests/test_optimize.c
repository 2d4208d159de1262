/*
 * test_optimize.c: the optimizer (src/opt*.c, scs_optimize, scs4onnx-optimize).
 * The rewriting tools are checked against values worked out by hand; the
 * passes against ONNX Runtime (bit-identical outputs) and onnx.checker.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/attr.h"
#include "onnx/dtype.h"
#include "util/half.h"
#include "opt/opt.h"
#include "pkg.h"
#include "io/store.h"
#include "support.h"

Test(optimize, float16_rounds_once_to_nearest_even)
{
	cr_assert_eq(scs_half_from_double(1.0), 0x3c00);
	cr_assert_eq(scs_half_from_double(-2.0), 0xc000);
	cr_assert_eq(scs_half_from_double(65504.0), 0x7bff, "largest finite");
	cr_assert_eq(scs_half_from_double(65520.0), 0x7c00, "halfway above the largest finite goes to infinity");
	cr_assert_eq(scs_half_from_double(65519.99), 0x7bff);
	cr_assert_eq(scs_half_from_double(ldexp(1.0, -24)), 0x0001, "smallest subnormal");
	cr_assert_eq(scs_half_from_double(ldexp(1.0, -25)), 0x0000, "half of it ties to even (zero)");
	cr_assert_eq(scs_half_from_double(ldexp(3.0, -26)), 0x0001, "three quarters of it rounds up");
	cr_assert_eq(scs_half_from_double(ldexp(1023.0, -24) + ldexp(1.0, -25)), 0x0400,
	    "the largest subnormal plus half a quantum ties up to the smallest normal");
	/* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even 1 */
	cr_assert_eq(scs_half_from_double(1.0 + ldexp(1.0, -11)), 0x3c00);
	cr_assert_eq(scs_half_from_double(1.0 + 3 * ldexp(1.0, -11)), 0x3c02);
	/* a value a float32 rounding would push onto the tie: rounded once from double it stays below */
	cr_assert_eq(scs_half_from_double(1.0 + ldexp(1.0, -11) - ldexp(1.0, -40)), 0x3c00);
	cr_assert_eq(scs_half_from_double(1.0 + ldexp(1.0, -11) + ldexp(1.0, -40)), 0x3c01);
	cr_assert_eq(scs_half_from_double(-0.0), 0x8000);
	cr_assert_eq(scs_half_from_double(INFINITY), 0x7c00);
	cr_assert_eq(scs_half_from_double(NAN) & 0x7e00, 0x7e00, "a quiet NaN");
}

Test(optimize, bfloat16_rounds_once_to_nearest_even)
{
	cr_assert_eq(scs_bf16_from_double(1.0), 0x3f80);
	cr_assert_eq(scs_bf16_from_double(1.0 + ldexp(1.0, -8)), 0x3f80, "tie to even");
	cr_assert_eq(scs_bf16_from_double(1.0 + 3 * ldexp(1.0, -8)), 0x3f82);
	cr_assert_eq(scs_bf16_from_double(1.0 + ldexp(1.0, -8) + ldexp(1.0, -30)), 0x3f81,
	    "above the tie, though float32 would round it onto the tie");
	cr_assert_eq(scs_bf16_from_double(3.5e38), 0x7f80, "past the largest finite: infinity");
	cr_assert_eq(scs_bf16_from_double(ldexp(1.0, -133)), 0x0001, "smallest subnormal");
}

Test(optimize, an_unknown_pass_is_a_usage_error_naming_it)
{
	const char *names[] = { "no_such_pass" };
	scs_optimize_options o = SCS_OPTIMIZE_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	char *dir = tmpdir_new(), *in = fixture("tiny.onnx"), *out = path_in(dir, "out.onnx");

	o.passes = names;
	o.n_passes = 1;
	cr_assert_eq(scs_optimize(&rep, in, out, &o), SCS_EUSAGE);
	cr_assert_not_null(strstr(scs_err_msg(), "'no_such_pass'"), "message was: %s", scs_err_msg());
	cr_assert_not(file_exists(out), "an output was written");
	scs_report_dispose(&rep);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(optimize, every_pass_in_the_table_has_a_name_a_line_and_a_function)
{
	scs_optimize_pass_info info;
	size_t n = 0;

	while (scs_optimize_pass(n, &info)) {
		cr_assert_not_null(info.name);
		cr_assert_not_null(info.what);
		cr_assert_null(strchr(info.what, '\n'), "%s: more than one line", info.name);
		cr_assert_eq(scs_opt_find(info.name), &scs_opt_passes[n]);
		cr_assert_not_null(scs_opt_passes[n].run);
		n++;
	}
	cr_assert_eq(n, scs_opt_n_passes);
}

Test(optimize, a_model_goes_through_unchanged_in_what_it_computes)
{
	char *dir = tmpdir_new(), *in = fixture("if_outer.onnx"), *out = path_in(dir, "out.onnx");
	scs_report rep = SCS_REPORT_INIT;

	cr_assert_eq(scs_optimize(&rep, in, out, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert(rep.optimized);
	expect_equivalent(in, out, NULL);
	scs_report_dispose(&rep);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* Every pass that ran is in the report's pass_list, in table order, however
 * many; passes[] (what a program built against version 2 reads) holds the
 * first SCS_REPORT_MAX_PASSES of them, and the JSON lists every one. */
Test(optimize, the_report_lists_every_pass_that_ran_past_the_old_structs_room)
{
	char *dir = tmpdir_new(), *in = fixture("opt_nops.onnx"), *out = path_in(dir, "out.onnx");
	const char *names[SCS_OPT_MAX_PASSES];
	scs_optimize_options o = SCS_OPTIMIZE_OPTIONS_INIT;
	scs_optimize_pass_info info;
	scs_report rep = SCS_REPORT_INIT;
	char *json, *p;
	size_t n = 0, listed = 0;

	while (scs_optimize_pass(n, &info))
		names[n++] = info.name;
	o.passes = names;
	o.n_passes = n;
	cr_assert_eq(scs_optimize(&rep, in, out, &o), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(rep.n_pass_list, n, "%zu passes in the report, %zu ran", rep.n_pass_list, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(rep.pass_list[i].name, names[i], "pass %zu", i);
	cr_assert_eq(rep.n_passes, n < SCS_REPORT_MAX_PASSES ? n : SCS_REPORT_MAX_PASSES);
	for (size_t i = 0; i < rep.n_passes; i++)
		cr_assert_str_eq(rep.passes[i].name, names[i], "passes[%zu]", i);
	json = scs_report_json(&rep);
	cr_assert_not_null(json);
	p = strstr(json, "\"passes\": [");
	cr_assert_not_null(p, "%s", json);
	for (char *end = strchr(p, ']'); (p = strstr(p, "{\"name\": \"")) != NULL && p < end; p++)
		listed++;
	cr_assert_eq(listed, n, "the JSON lists %zu passes, %zu ran:\n%s", listed, n, json);
	scs_free(json);
	scs_report_dispose(&rep);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* ---- the rewriting tools, on a loaded model ---- */

static scs_store *val_store;
static scs_model *val_model;
static scs_opt_result val_res;
static scs_opt_ctx val_ctx;
static char *val_dir;

/* Load fixture @name into val_model and begin a context on it. */
static void
ctx_load(const char *name)
{
	char *path = fixture(name);
	scs_scan_options so;

	val_dir = tmpdir_new();
	memset(&so, 0, sizeof(so));
	memset(&val_res, 0, sizeof(val_res));
	cr_assert_eq(scs_store_open(&val_store, NULL, val_dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load(&val_model, path, val_store, &so), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_begin(&val_ctx, val_model, &val_res), SCS_OK, "%s", scs_err_msg());
	free(path);
}

static void
values_setup(void)
{
	ctx_load("opt_values.onnx");
}

static void
values_teardown(void)
{
	scs_opt_end(&val_ctx);
	scs_model_free(val_model);
	scs_store_close(val_store);
	scs_opt_result_dispose(&val_res);
	tmpdir_remove(val_dir);
}

/* The constant @name of the main graph, which must be one. */
static scs_opt_const
constant(const char *name)
{
	scs_opt_const c;
	char why[256];

	cr_assert_eq(scs_opt_constant(&c, &val_ctx, 0, name, why, sizeof(why)), 1, "%s: %s", name, why);
	return c;
}

static void
expect_doubles(const char *name, const double *want, size_t n)
{
	scs_opt_const c = constant(name);
	double got[8];

	cr_assert_eq(c.n_elems, (int64_t)n, "%s: %lld elements", name, (long long)c.n_elems);
	cr_assert_eq(scs_opt_read_doubles(&val_ctx, &c, 0, n, got), SCS_OK, "%s: %s", name, scs_err_msg());
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "%s[%zu]: %.17g, want %.17g", name, i, got[i], want[i]);
}

Test(optimize, constants_read_the_same_in_every_encoding, .init = values_setup, .fini = values_teardown)
{
	const double f[] = { 1.5, -2.25, 3.0, (double)0.1f }, h[] = { 1.0, -0.5, 65504.0 }, bf[] = { 1.0, -2.0 },
	    d[] = { 0.1, -1e300 }, i64[] = { -5, 0, 1099511627776.0 }, u8[] = { 255, 7 }, cf[] = { 1, 2 },
	    ci[] = { 3, -4 }, cs[] = { 2.5 }, cv[] = { 7, -8 };
	int64_t ints[3];
	scs_opt_const c;

	expect_doubles("f_raw", f, 4);
	expect_doubles("f_typed", f, 4);
	expect_doubles("h_raw", h, 3);
	expect_doubles("bf_raw", bf, 2);
	expect_doubles("d_typed", d, 2);
	expect_doubles("i64_typed", i64, 3);
	expect_doubles("u8_raw", u8, 2);
	expect_doubles("cf", cf, 2);
	expect_doubles("ci", ci, 2);
	expect_doubles("cs", cs, 1);
	expect_doubles("cv", cv, 2);
	c = constant("i64_typed");
	cr_assert_eq(scs_opt_read_int64s(&val_ctx, &c, 1, 2, ints), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(ints[0], 0);
	cr_assert_eq(ints[1], (int64_t)1 << 40, "int64 read exactly: %lld", (long long)ints[1]);
	cr_assert_eq(scs_opt_read_int64s(&val_ctx, &c, 2, 2, ints), SCS_ERANGE, "a read past the end");
}

Test(optimize, a_graph_input_default_is_not_a_constant, .init = values_setup, .fini = values_teardown)
{
	scs_opt_const c;
	char why[256];

	cr_assert_eq(scs_opt_constant(&c, &val_ctx, 0, "dflt", why, sizeof(why)), 0);
	cr_assert_not_null(strstr(why, "override"), "why: %s", why);
	cr_assert_eq(scs_opt_constant(&c, &val_ctx, 0, "Y", why, sizeof(why)), 0);
	cr_assert_not_null(strstr(why, "Add"), "why: %s", why);
}

Test(optimize, a_large_constant_reads_across_chunks_and_a_new_one_is_written_in_pieces, .init = values_setup,
    .fini = values_teardown)
{
	scs_opt_const c = constant("big"), back;
	static double v[300000], got[300000];
	const int64_t dims[] = { 300000 };
	const char *name;
	scs_opt_writer w;
	uint32_t id;

	cr_assert_eq(scs_opt_read_doubles(&val_ctx, &c, 0, 300000, v), SCS_OK, "%s", scs_err_msg());
	for (size_t i = 0; i < 300000; i++)
		cr_assert_eq(v[i], (double)(float)((float)i / 2.0f), "element %zu: %g", i, v[i]);
	/* a new float16 payload from values over a piece's worth, rounded once each */
	for (size_t i = 0; i < 300000; i++)
		v[i] = (double)i * 1.0009765625 + 0.333;
	cr_assert_eq(scs_opt_writer_open(&w, &val_ctx, SCS_DT_FLOAT16), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_writer_put_doubles(&w, v, 100000), SCS_OK);
	cr_assert_eq(scs_opt_writer_put_doubles(&w, v + 100000, 200000), SCS_OK);
	cr_assert_eq(scs_opt_writer_finish(&id, &w), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_fresh_name(&name, &val_ctx, "big"), SCS_OK);
	cr_assert_str_eq(name, "big_opt1", "a fresh name: %s", name);
	cr_assert_eq(scs_opt_add_constant(&val_ctx, 0, scs_opt_tensor_new(&val_ctx, name, SCS_DT_FLOAT16, dims, 1, id),
	    NULL), SCS_OK);
	cr_assert_eq(scs_opt_commit(&val_ctx), SCS_OK, "%s", scs_err_msg());
	back = constant(name);
	cr_assert_eq(back.n_elems, 300000);
	cr_assert_eq(scs_opt_read_doubles(&val_ctx, &back, 0, 300000, got), SCS_OK, "%s", scs_err_msg());
	for (size_t i = 0; i < 300000; i += 997) {
		if (v[i] >= 65520) {
			cr_assert(isinf(got[i]), "element %zu: %g past float16's range", i, got[i]);
			continue;
		}
		/* float16 holds got[i] exactly, and it is v[i] to within half a unit in the last place */
		cr_assert_eq(scs_half_from_double(got[i]), scs_half_from_double(v[i]), "element %zu: %g from %g", i, got[i], v[i]);
		cr_assert(fabs(got[i] - v[i]) <= fabs(v[i]) / 2048, "element %zu: %g from %g", i, got[i], v[i]);
	}
}

/* ---- the passes, through scs4onnx-optimize ---- */

static char *opt_dir;
static Onnx__ModelProto *opt_model;
static char *opt_text;

static void
opt_setup(void)
{
	opt_dir = tmpdir_new();
	opt_model = NULL;
	opt_text = NULL;
}

static void
opt_teardown(void)
{
	free_proto(opt_model);
	free(opt_text);
	tmpdir_remove(opt_dir);
}

/*
 * scs4onnx-optimize on fixture @name with @args into opt_dir/out.onnx, which
 * must succeed; its output is read back (opt_model) and, unless @runs is 0,
 * checked against the fixture in ONNX Runtime and onnx.checker. The summary
 * is in opt_text. Returns the main graph.
 */
static Onnx__GraphProto *
optimize(const char *name, const char *args, int runs)
{
	char *in = fixture(name), *out = path_in(opt_dir, "out.onnx");

	cr_assert_eq(run_tool(&opt_text, "scs4onnx-optimize", "'%s' '%s' --verbose --force %s", in, out, args), 0, "%s",
	    opt_text);
	opt_model = load_proto(out);
	cr_assert_not_null(opt_model, "the output does not parse");
	if (runs)
		expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	return opt_model->graph;
}

static void
expect_said(const char *what)
{
	cr_assert_not_null(strstr(opt_text, what), "the summary does not say \"%s\":\n%s", what, opt_text);
}

static const char *
made_by(const Onnx__GraphProto *g, const char *output)
{
	Onnx__NodeProto *n = find_node_by_output(g, output);

	return n ? n->name : "(none)";
}

Test(optimize, identities_go_and_graph_outputs_keep_names_order_and_types, .init = opt_setup, .fini = opt_teardown)
{
	static const char *const outputs[] = { "Y", "Z", "P", "Q", "R" };
	Onnx__GraphProto *g = optimize("opt_identity.onnx", "", 1);

	cr_assert_eq(count_ops(g, "Identity"), 2, "Identities left: %d", count_ops(g, "Identity"));
	cr_assert_str_eq(made_by(g, "Y"), "relu_c", "the Relu makes the output under its name");
	cr_assert_str_eq(made_by(g, "Q"), "neg_d");
	cr_assert_str_eq(made_by(g, "Z"), "id_z", "an output of a graph input keeps its Identity");
	cr_assert_str_eq(made_by(g, "P"), "(none)", "an output of an initializer is the initializer itself");
	cr_assert_not_null(find_init(g, "P"));
	cr_assert_null(find_init(g, "W"), "the initializer W took the output's name");
	cr_assert_str_eq(made_by(g, "R"), "id_r", "a second output of the same value keeps its Identity");
	cr_assert_eq(g->n_output, 5);
	for (size_t i = 0; i < 5; i++) {
		cr_assert_str_eq(g->output[i]->name, outputs[i]);
		cr_assert_eq(g->output[i]->type->tensor_type->elem_type, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
		cr_assert_eq(g->output[i]->type->tensor_type->shape->n_dim, 2);
	}
	cr_assert_eq(g->n_value_info, 0, "value_info of a, b (gone) and c (now made as Y): %zu left", g->n_value_info);
	expect_said("node 'id_z' (Identity): 'Z' is a graph output and 'X' is a graph input");
	expect_said("node 'id_p' (Identity): removed; initializer 'W' is now the graph output 'P'");
	expect_said("node 'id_r' (Identity): 'R' and 'Q' are both names that must stay");
}

Test(optimize, an_identity_in_an_if_branch_forwarding_an_outer_value_survives, .init = opt_setup,
    .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_if_identity.onnx", "", 4), *then_g, *else_g;

	cr_assert_eq(count_ops(g, "Identity"), 0, "the main graph's Identity goes: the branches read X");
	then_g = subgraph(g, "If", "then_branch");
	else_g = subgraph(g, "If", "else_branch");
	cr_assert_eq(then_g->n_node, 1, "then_branch: %zu nodes", then_g->n_node);
	cr_assert_str_eq(then_g->node[0]->op_type, "Identity");
	cr_assert_str_eq(then_g->node[0]->input[0], "X", "the Identity before it went: it reads X itself");
	cr_assert_str_eq(then_g->output[0]->name, "then_out");
	cr_assert_eq(count_ops(else_g, "Identity"), 0, "else_branch's Identity of its own Neg goes");
	cr_assert_str_eq(made_by(else_g, "else_out"), "else_neg");
	expect_said("'then_out' is an output of a nested graph and 'X' comes from an enclosing graph");
}

Test(optimize, dead_nodes_inside_a_loop_body_go_and_the_body_still_runs, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_loop_dead.onnx", "", 4), *body = subgraph(g, "Loop", "body");

	cr_assert_eq(body->n_node, 2, "body: %zu nodes", body->n_node);
	cr_assert_eq(count_ops(body, "Mul") + count_ops(body, "Relu") + count_ops(body, "Neg"), 0);
	cr_assert_eq(count_ops(body, "Identity"), 1, "cond passes through a body input to a body output: it stays");
	cr_assert_eq(count_ops(g, "Sigmoid"), 0, "the dead node of the main graph goes");
	cr_assert_null(find_init(g, "U"), "an unread initializer goes");
	cr_assert_not_null(find_init(g, "DU"), "an unread graph input's default stays");
	cr_assert_not_null(find_init(g, "D"));
	cr_assert(has_input(g, "DU") && has_input(g, "D"), "graph inputs stay");
	expect_said("'DU': nothing reads it, but it is also a graph input");
}

Test(optimize, an_if_on_a_constant_becomes_its_branch, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_if_const.onnx", "", 4);
	Onnx__TensorProto *w = find_init(g, "W");
	Onnx__NodeProto *add;

	cr_assert_eq(count_ops(g, "If"), 1, "the If on a constant goes, the one on a default stays");
	cr_assert_str_eq(made_by(g, "t"), "if_default");
	cr_assert_str_eq(made_by(g, "Y1"), "then_relu", "the branch's last node makes the output under its name");
	cr_assert_not_null(w);
	/* the branch's own W moved in under another name; the main graph's W is still what main_mul reads */
	add = find_node_by_output(g, "s_opt1");
	cr_assert_not_null(add, "the branch's 's' was renamed, the main graph has an 's' already");
	cr_assert_str_eq(add->input[1], "W_opt1");
	cr_assert_not_null(find_init(g, "W_opt1"));
	cr_assert_str_eq(find_node_by_output(g, "s")->name, "main_mul");
	cr_assert_eq(count_ops(g, "Constant"), 0, "the condition went with the If");
	expect_said("node 'if_const' (If): the condition is true: replaced by its then_branch");
	expect_said("node 'if_default' (If): the condition 'CD' is a graph input with a default");
}

/* The pass alone (onnxoptimizer's test): the branch's last node makes the If's output, no Identity in between */
Test(optimize, an_if_on_a_constant_alone_leaves_no_identity, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_if_const.onnx", "-p eliminate_if_with_const_cond", 4);

	cr_assert_eq(count_ops(g, "If"), 1);
	cr_assert_eq(count_ops(g, "Identity"), 0, "%d Identities left", count_ops(g, "Identity"));
	cr_assert_str_eq(made_by(g, "Y1"), "then_relu", "the branch's last node makes the output under its name");
	cr_assert_eq(count_ops(g, "Constant"), 1, "the condition stays: the pass removes nothing else");
}

Test(optimize, no_op_nodes_go_and_each_refusal_leaves_its_node, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_nops.onnx", "", 4);
	Onnx__NodeProto *t;

	cr_assert_eq(count_ops(g, "Cast"), 3, "cast_same goes; to double, back, and of the mask stay");
	cr_assert_null(find_node_by_output(g, "c1"));
	cr_assert_eq(count_ops(g, "Dropout"), 2, "the one whose mask is read and the one on a graph input stay");
	cr_assert_str_eq(made_by(g, "mask"), "dropout_mask");
	cr_assert_str_eq(made_by(g, "d4"), "dropout_input");
	cr_assert_eq(count_ops(g, "Pad"), 1);
	cr_assert_str_eq(made_by(g, "o_pad"), "pad_input");
	cr_assert_eq(count_ops(g, "Reshape"), 2, "a real reshape and one whose dim is unknown stay");
	cr_assert_str_eq(made_by(g, "o_r3"), "reshape_real");
	cr_assert_str_eq(made_by(g, "o_q3"), "reshape2_23");
	cr_assert_eq(count_ops(g, "Transpose"), 1, "identities go, the pairs compose");
	t = find_node_by_output(g, "o_t5");
	cr_assert_str_eq(t->input[0], "X");
	cr_assert_eq(t->attribute[0]->n_ints, 3);
	cr_assert(t->attribute[0]->ints[0] == 2 && t->attribute[0]->ints[1] == 1 && t->attribute[0]->ints[2] == 0,
	    "perm [2, 0, 1] then [0, 2, 1] is [2, 1, 0]");
	cr_assert_null(find_init(g, "pads0"), "constants only the removed nodes read go too");
	expect_said("node 'dropout_mask' (Dropout): its output 1 'mask' is read");
	expect_said("node 'dropout_input' (Dropout): training_mode: 'TM' is a graph input, not a constant");
	expect_said("node 'pad_input' (Pad): pads: 'PADS' is a graph input, not a constant");
	expect_said("node 'reshape2_23' (Reshape): dim 0 of 'X2' is not known");
}

Test(optimize, a_function_body_is_optimized_and_its_call_left_alone, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_function.onnx", "", 2);

	cr_assert_eq(g->n_node, 1);
	cr_assert_str_eq(g->node[0]->op_type, "Twice");
	cr_assert_eq(opt_model->n_functions, 1);
	cr_assert_eq(opt_model->functions[0]->n_node, 1, "the body's Identity and dead Neg go");
	cr_assert_str_eq(opt_model->functions[0]->node[0]->input[0], "x");
}

Test(optimize, an_operator_without_a_known_schema_is_never_removed, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_custom.onnx", "", 0);

	cr_assert_eq(count_ops(g, "Foo"), 1);
	cr_assert_eq(count_ops(g, "Relu"), 0);
	expect_said("node 'custom_foo' (Foo): no graph output depends on it, but its operator has no known schema");
}

Test(optimize, a_rename_a_nested_graph_would_capture_is_not_made, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_capture.onnx", "", 0);

	cr_assert_str_eq(made_by(g, "y"), "id_y", "the Identity stays");
	cr_assert_str_eq(subgraph(g, "If", "then_branch")->node[1]->input[1], "y");
	expect_said("node 'id_y' (Identity): 'y' is read in then_branch of node 'if_c' (If), where 'X' names another value");
}

Test(optimize, a_graph_cycle_is_left_as_it_is, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_cycle.onnx", "", 0);

	cr_assert_eq(g->n_node, 5, "nothing removed");
	cr_assert_eq(count_ops(g, "Identity"), 2);
	expect_said("left as it is: the graph has a cycle through node 'relu_a'");
}

Test(optimize, a_value_made_twice_is_left_as_it_is, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_twice.onnx", "", 0);

	cr_assert_eq(g->n_node, 4, "nothing removed");
	expect_said("left as it is: 'y' is defined more than once");
}

Test(optimize, every_output_is_a_fixed_point_and_the_same_command_gives_the_same_bytes, .init = opt_setup,
    .fini = opt_teardown)
{
	static const char *const names[] = { "opt_identity.onnx", "opt_if_identity.onnx", "opt_loop_dead.onnx",
		"opt_if_const.onnx", "opt_nops.onnx", "opt_function.onnx", "opt_custom.onnx", "opt_cycle.onnx" };
	char *a = path_in(opt_dir, "a.onnx"), *b = path_in(opt_dir, "b.onnx"), *c = path_in(opt_dir, "c.onnx"), *text;
	size_t la, lb, lc;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *in = fixture(names[i]);
		uint8_t *da, *db, *dc;

		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' -n -f", in, a), 0, "%s", text);
		free(text);
		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' -n -f", in, b), 0, "%s", text);
		free(text);
		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' -n -f", a, c), 0, "%s", text);
		free(text);
		da = read_all(a, &la);
		db = read_all(b, &lb);
		dc = read_all(c, &lc);
		cr_assert(la == lb && memcmp(da, db, la) == 0, "%s: two runs wrote different bytes", names[i]);
		cr_assert(la == lc && memcmp(da, dc, la) == 0, "%s: optimizing the output changes it", names[i]);
		free(da);
		free(db);
		free(dc);
		free(in);
	}
	free(a);
	free(b);
	free(c);
}

/* ---- the tool's flags ---- */

Test(optimize, list_passes_prints_every_pass_with_its_line_and_default, .init = opt_setup, .fini = opt_teardown)
{
	scs_optimize_pass_info info;
	int lines = 0;
	long col = -1;

	cr_assert_eq(run_tool(&opt_text, "scs4onnx-optimize", "--list-passes"), 0, "%s", opt_text);
	for (const char *p = opt_text; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	cr_assert_eq((size_t)lines, scs_opt_n_passes, "%s", opt_text);
	for (size_t i = 0; scs_optimize_pass(i, &info); i++) {
		cr_assert_not_null(strstr(opt_text, info.name), "%s is not listed", info.name);
		cr_assert_not_null(strstr(opt_text, info.what), "%s: its line is not listed", info.name);
	}
	/* one column for the defaults, however long the longest name */
	for (const char *line = opt_text; *line; line += strcspn(line, "\n") + 1) {
		int len = (int)strcspn(line, "\n");
		const char *at = strstr(line, " default  ");

		if (at == NULL || at - line > len)
			at = strstr(line, " -        ");
		cr_assert(at && at - line < len, "a line without its default column: %.*s", len, line);
		if (col < 0)
			col = at - line;
		cr_assert_eq(at - line, col, "the default column moves: %.*s", len, line);
	}
	expect_said("eliminate_identity");
}

Test(optimize, an_unknown_pass_name_is_bad_usage_listing_the_known_ones, .init = opt_setup, .fini = opt_teardown)
{
	char *in = fixture("opt_nops.onnx"), *out = path_in(opt_dir, "out.onnx");

	cr_assert_eq(run_tool(&opt_text, "scs4onnx-optimize", "'%s' '%s' -p eliminate_identity fuse_everything", in, out),
	    2, "%s", opt_text);
	expect_said("unknown pass 'fuse_everything'");
	expect_said("eliminate_nop_transpose");
	cr_assert_not(file_exists(out));
	free(opt_text);
	cr_assert_eq(run_tool(&opt_text, "scs4onnx-optimize", "'%s' '%s' --skip nothing_such", in, out), 2, "%s", opt_text);
	cr_assert_not(file_exists(out));
	free(in);
	free(out);
}

Test(optimize, named_passes_run_alone_and_skipped_ones_do_not, .init = opt_setup, .fini = opt_teardown)
{
	Onnx__GraphProto *g = optimize("opt_nops.onnx", "-p eliminate_nop_pad", 2);

	cr_assert_eq(count_ops(g, "Pad"), 1, "pad_zero goes");
	cr_assert_eq(count_ops(g, "Cast"), 4, "no other pass ran");
	cr_assert_eq(count_ops(g, "Reshape"), 6);
	cr_assert_not_null(find_init(g, "pads0"), "eliminate_unused_initializer did not run");
	cr_assert_null(strstr(opt_text, "eliminate_nop_cast"), "%s", opt_text);
	free_proto(opt_model);
	free(opt_text);
	g = optimize("opt_loop_dead.onnx", "--skip eliminate_deadend,eliminate_unused_initializer", 2);
	cr_assert_eq(subgraph(g, "Loop", "body")->n_node, 5, "no dead node removed");
	cr_assert_not_null(find_init(g, "U"));
}

Test(optimize, the_json_report_lists_changes_and_refusals_per_pass, .init = opt_setup, .fini = opt_teardown)
{
	char *json = path_in(opt_dir, "r.json");
	size_t len;
	char *text;

	char *in = fixture("opt_nops.onnx"), *out = path_in(opt_dir, "out.onnx");

	cr_assert_eq(run_tool(&opt_text, "scs4onnx-optimize", "'%s' '%s' -n --json '%s'", in, out, json), 0, "%s", opt_text);
	cr_assert_str_eq(opt_text, "", "--non-verbose printed: %s", opt_text);
	free(in);
	free(out);
	text = (char *)read_all(json, &len);
	cr_assert_not_null(text);
	text[len] = '\0';
	cr_assert_not_null(strstr(text, "\"optimize\": {"), "%s", text);
	cr_assert_not_null(strstr(text, "\"nodes_before\": 26"), "%s", text);
	cr_assert_not_null(strstr(text, "{\"name\": \"eliminate_nop_dropout\", \"changes\": 2, \"left\": 2}"), "%s", text);
	cr_assert_not_null(strstr(text, "{\"pass\": \"eliminate_nop_pad\", \"reason\": \"node 'pad_input' (Pad): pads:"),
	    "%s", text);
	free(text);
	free(json);
}

/* ---- --optimize in scs4onnx-shrink and scs4onnx-big ---- */

Test(optimize, shrink_and_big_with_optimize_are_fixed_points, .init = opt_setup, .fini = opt_teardown)
{
	static const char *const names[] = { "opt_identity.onnx", "opt_loop_dead.onnx", "opt_if_const.onnx",
		"opt_nops.onnx", "opt_function.onnx" };
	static const char *const cmds[][2] = { { "scs4onnx-shrink", "" }, { "scs4onnx-big", "--max-shard-size 300" } };
	char *a = path_in(opt_dir, "a.onnx"), *c = path_in(opt_dir, "c.onnx"), *text;
	size_t la, lc;

	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char *in = fixture(names[i]);
			uint8_t *da, *dc;

			cr_assert_eq(run_tool(&text, cmds[k][0], "'%s' '%s' --optimize %s -n -f", in, a, cmds[k][1]), 0, "%s",
			    text);
			free(text);
			cr_assert_eq(run_tool(&text, cmds[k][0], "'%s' '%s' --optimize %s -n -f", a, c, cmds[k][1]), 0, "%s",
			    text);
			free(text);
			da = read_all(a, &la);
			dc = read_all(c, &lc);
			cr_assert(la == lc && memcmp(da, dc, la) == 0, "%s --optimize on %s: not a fixed point", cmds[k][0],
			    names[i]);
			free(da);
			free(dc);
			free(in);
		}
	free(a);
	free(c);
}

Test(optimize, shrink_and_big_run_the_passes_first_with_optimize, .init = opt_setup, .fini = opt_teardown)
{
	char *in = fixture("opt_nops.onnx"), *s = path_in(opt_dir, "s.onnx"), *b = path_in(opt_dir, "b.onnx");
	Onnx__ModelProto *m;

	cr_assert_eq(run_tool(&opt_text, "scs4onnx-shrink", "'%s' '%s' --optimize --verbose", in, s), 0, "%s", opt_text);
	expect_said("INFO: optimized: eliminate_nop_pad");
	expect_said("INFO: groups merged");
	expect_equivalent(in, s, NULL);
	m = load_proto(s);
	cr_assert_eq(m->graph->n_node, 13, "%zu nodes", m->graph->n_node);
	free_proto(m);
	free(opt_text);
	cr_assert_eq(run_tool(&opt_text, "scs4onnx-big", "'%s' '%s' --optimize --verbose --max-shard-size 300", in, b), 0, "%s",
	    opt_text);
	expect_said("INFO: optimized: eliminate_nop_pad");
	expect_equivalent(in, b, NULL);
	m = load_proto(b);
	cr_assert_eq(m->graph->n_node, 13, "%zu nodes", m->graph->n_node);
	free_proto(m);
	free(in);
	free(s);
	free(b);
}

/*
 * The summary first: the passes, the nodes before and after, each pass's
 * counts, what was left alone counted by pass and reason; each change and
 * each node left alone only with --verbose (after the summary) and in --json.
 */
Test(optimize, the_summary_comes_first_and_each_change_only_with_verbose, .init = opt_setup, .fini = opt_teardown)
{
	static const char head[] =
	    "INFO: 38% smaller: 484 bytes -> 301 bytes\n"
	    "INFO: passes: eliminate_identity, eliminate_if_with_const_cond, eliminate_nop_cast, "
	    "eliminate_nop_dropout, eliminate_nop_pad, eliminate_nop_reshape, fuse_consecutive_transposes, "
	    "fuse_consecutive_concats, fuse_consecutive_log_softmax, fuse_consecutive_reduce_unsqueeze, "
	    "fuse_consecutive_slices, fuse_consecutive_squeezes, fuse_consecutive_unsqueezes, "
	    "fuse_consecutive_squeeze_unsqueeze, fuse_transpose_into_gemm, eliminate_nop_transpose, "
	    "eliminate_shape_op, eliminate_shape_gather, eliminate_slice_after_shape, "
	    "fuse_concat_into_reshape, eliminate_nop_concat, eliminate_nop_expand, eliminate_nop_flatten, "
	    "eliminate_nop_monotone_argmax, eliminate_nop_split, eliminate_nop_with_unit, "
	    "eliminate_consecutive_idempotent_ops, eliminate_nop_slice, nop, fold_constants, "
	    "fuse_bn_into_conv, fuse_bn_into_gemm, fuse_add_bias_into_conv, fuse_pad_into_conv, "
	    "fuse_pad_into_pool, rewrite_where, fuse_mul_into_conv, replace_div_with_mul, fuse_relu_clip, "
	    "fuse_matmul_add_bias_into_gemm, fuse_qkv, extract_constant_to_initializer, "
	    "eliminate_duplicate_initializer, eliminate_common_subexpression, eliminate_deadend, "
	    "eliminate_unused_initializer\n"
	    "INFO: nodes: 9 -> 4 (2 rounds)\n"
	    "INFO: pass eliminate_identity: 5 changes, 2 left alone\n"
	    "INFO: left alone by eliminate_identity (1): Identity: '...' is a graph output and '...' is a graph input: "
	    "both names must stay\n"
	    "INFO: left alone by eliminate_identity (1): Identity: '...' and '...' are both names that must stay (a "
	    "graph output; a graph output)\n"
	    "INFO: stage scan: ";
	static const char tail[] = "INFO: --verbose lists each change and each node left alone\n";
	static const char detail[] =
	    "INFO: optimized: eliminate_identity: node 'id_a' (Identity): removed; its readers read 'X'\n"
	    "INFO: optimized: eliminate_identity: node 'id_b' (Identity): removed; its readers read 'X'\n"
	    "INFO: optimized: eliminate_identity: node 'id_y' (Identity): removed; 'c' is now made as 'Y' (a graph "
	    "output)\n"
	    "INFO: optimized: eliminate_identity: node 'id_p' (Identity): removed; initializer 'W' is now the graph "
	    "output 'P'\n"
	    "INFO: optimized: eliminate_identity: node 'id_q' (Identity): removed; 'd' is now made as 'Q' (a graph "
	    "output)\n"
	    "INFO: not optimized: eliminate_identity: node 'id_z' (Identity): 'Z' is a graph output and 'X' is a graph "
	    "input: both names must stay\n"
	    "INFO: not optimized: eliminate_identity: node 'id_r' (Identity): 'R' and 'Q' are both names that must "
	    "stay (a graph output; a graph output)\n";
	char *in = fixture("opt_identity.onnx"), *out = path_in(opt_dir, "out.onnx"), *json = path_in(opt_dir, "r.json");
	char *text;
	size_t n;

	cr_assert_eq(run_tool(&opt_text, "scs4onnx-optimize", "'%s' '%s'", in, out), 0, "%s", opt_text);
	cr_assert_eq(strncmp(opt_text, head, strlen(head)), 0, "the summary is:\n%s", opt_text);
	n = strlen(opt_text);
	cr_assert(n > strlen(tail) && strcmp(opt_text + n - strlen(tail), tail) == 0, "the summary is:\n%s", opt_text);
	cr_assert_null(strstr(opt_text, "INFO: optimized:"), "%s", opt_text);
	free(opt_text);
	cr_assert_eq(run_tool(&opt_text, "scs4onnx-optimize", "'%s' '%s' --verbose --force --json '%s'", in, out, json),
	    0, "%s", opt_text);
	cr_assert_eq(strncmp(opt_text, head, strlen(head)), 0, "the summary is:\n%s", opt_text);
	n = strlen(opt_text);
	cr_assert(n > strlen(detail) && strcmp(opt_text + n - strlen(detail), detail) == 0, "the output is:\n%s",
	    opt_text);
	text = text_of(json);
	cr_assert_not_null(strstr(text, "{\"pass\": \"eliminate_identity\", \"change\": \"node 'id_a' (Identity): "
	    "removed; its readers read 'X'\"}"), "%s", text);
	cr_assert_not_null(strstr(text, "{\"pass\": \"eliminate_identity\", \"reason\": \"node 'id_r' (Identity): "
	    "'R' and 'Q' are both names that must stay (a graph output; a graph output)\"}"), "%s", text);
	free(text);
	free(json);
	free(in);
	free(out);
}

Test(optimize, unusual_nodes_are_looked_at_and_left_alone, .init = opt_setup, .fini = opt_teardown)
{
	static const char *const kept[] = { "i0", "i1", "t0", "t2", "r0", "p0", "d0", "f0", "f1", "c0", "c1" };
	Onnx__GraphProto *g = optimize("opt_odd.onnx", "", 0);

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		cr_assert_not_null(find_node_by_output(g, kept[i]), "the node making '%s' went", kept[i]);
	expect_said("node 'pad_float' (Pad): pads 'fpads' is float32, not int64");
	expect_said("node 'dropout_two' (Dropout): training_mode: 'tm2' is not a single bool");
	expect_said("node 'if_short' (If): its then_branch has 1 outputs for 2 If outputs");
	expect_said("node 'tr_b' (Transpose): the perms do not compose");
}

/* ---- fields left out (tests/e2e/gen_absent_models.py) ---- */

/* The three tools that optimize, with the arguments that make them do it. */
/* each writes one output over the last (--force), listing what it left alone (--verbose) */
static const char *const optimizing_tools[][2] = {
	{ "scs4onnx-optimize", "--force --verbose" },
	{ "scs4onnx-shrink", "--optimize --force --verbose" },
	{ "scs4onnx-big", "--optimize --max-shard-size 300 --force --verbose" },
};

Test(optimize, a_node_without_op_type_or_an_attribute_name_leaves_the_model_as_it_is, .init = opt_setup,
    .fini = opt_teardown)
{
	static const char *const cases[][2] = {
		{ "absent_op.onnx", "left as it is: the node writing 'u' has no op_type" },
		{ "absent_op_empty.onnx", "left as it is: node 'bad' has no op_type" },
		{ "absent_op_branch.onnx",
		  "left as it is: the node writing 'then_out' in then_branch of node 'if_c' (If) has no op_type" },
		{ "absent_op_loop.onnx", "left as it is: a node without outputs in body of node 'loop' (Loop) has no op_type" },
		{ "absent_op_function.onnx", "left as it is: the node writing 'y' in function 'local.Odd' has no op_type" },
		{ "absent_attr_name.onnx", "left as it is: node 'tr' (Transpose) has an attribute without a name" },
	};
	char *out = path_in(opt_dir, "out.onnx");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *in = fixture(cases[i][0]);
		Onnx__ModelProto *before = load_proto(in), *after;

		for (size_t k = 0; k < sizeof(optimizing_tools) / sizeof(optimizing_tools[0]); k++) {
			cr_assert_eq(run_tool(&opt_text, optimizing_tools[k][0], "'%s' '%s' %s", in, out, optimizing_tools[k][1]),
			    0, "%s on %s: %s", optimizing_tools[k][0], cases[i][0], opt_text);
			cr_assert_not_null(strstr(opt_text, cases[i][1]), "%s on %s does not say \"%s\":\n%s",
			    optimizing_tools[k][0], cases[i][0], cases[i][1], opt_text);
			after = load_proto(out);
			cr_assert_not_null(after);
			/* the foldable Add of two constants and the Identity are still there */
			cr_assert_eq(after->graph->n_node, before->graph->n_node, "%s on %s: %zu nodes, not %zu",
			    optimizing_tools[k][0], cases[i][0], after->graph->n_node, before->graph->n_node);
			cr_assert_eq(count_ops(after->graph, "Identity"), 1);
			free_proto(after);
			free(opt_text);
			opt_text = NULL;
		}
		free_proto(before);
		free(in);
	}
	free(out);
}

Test(optimize, fields_onnx_lets_a_writer_leave_out_are_optimized_as_any_other, .init = opt_setup,
    .fini = opt_teardown)
{
	char *runs = fixture("absent_runs.onnx"), *typeless = fixture("absent_attr_type.onnx");
	char *ref = fixture("absent_attr_type_ref.onnx"), *out = path_in(opt_dir, "out.onnx");
	Onnx__ModelProto *m;

	for (size_t k = 0; k < sizeof(optimizing_tools) / sizeof(optimizing_tools[0]); k++) {
		/* no names, no domains, optional inputs and outputs "" */
		cr_assert_eq(run_tool(&opt_text, optimizing_tools[k][0], "'%s' '%s' %s", runs, out, optimizing_tools[k][1]),
		    0, "%s: %s", optimizing_tools[k][0], opt_text);
		free(opt_text);
		opt_text = NULL;
		expect_equivalent(runs, out, NULL);
		m = load_proto(out);
		cr_assert_eq(m->graph->n_node, 4, "%s: %zu nodes", optimizing_tools[k][0], m->graph->n_node);
		cr_assert_eq(count_ops(m->graph, "If"), 0, "the If on a constant went");
		free_proto(m);
		/* attributes without a type: the Constant, Cast and Transpose fold into one constant */
		cr_assert_eq(run_tool(&opt_text, optimizing_tools[k][0], "'%s' '%s' %s", typeless, out,
		    optimizing_tools[k][1]), 0, "%s: %s", optimizing_tools[k][0], opt_text);
		free(opt_text);
		opt_text = NULL;
		expect_equivalent(ref, out, NULL);
		m = load_proto(out);
		cr_assert_eq(m->graph->n_node, 1, "%s: %zu nodes", optimizing_tools[k][0], m->graph->n_node);
		free_proto(m);
	}
	free(runs);
	free(typeless);
	free(ref);
	free(out);
}

Test(optimize, declarations_without_a_name_are_left_as_they_are_by_write_shapes, .init = opt_setup,
    .fini = opt_teardown)
{
	char *in = fixture("absent_vi_name.onnx"), *out = path_in(opt_dir, "out.onnx");
	Onnx__ModelProto *m;

	for (size_t k = 0; k < sizeof(optimizing_tools) / sizeof(optimizing_tools[0]); k++) {
		cr_assert_eq(run_tool(&opt_text, optimizing_tools[k][0], "'%s' '%s' %s --write-shapes", in, out,
		    optimizing_tools[k][1]), 0, "%s: %s", optimizing_tools[k][0], opt_text);
		free(opt_text);
		opt_text = NULL;
		m = load_proto(out);
		cr_assert_not_null(m);
		cr_assert_eq(m->graph->n_output, 2, "%s: the nameless output went", optimizing_tools[k][0]);
		cr_assert_null(m->graph->output[1]->name);
		cr_assert_eq(count_ops(m->graph, "Add"), 1, "%s: the constants' Add is folded", optimizing_tools[k][0]);
		free_proto(m);
	}
	free(in);
	free(out);
}

Test(optimize, new_nodes_constants_and_inputs_join_the_snapshot_at_the_commit, .init = values_setup,
    .fini = values_teardown)
{
	const int64_t v[] = { 2, -3, 1099511627776 }, dims[] = { 3 };
	const char *in[] = { "X", "k" }, *out[] = { "prod" }, *kname;
	Onnx__NodeProto *add = scs_opt_producer(&val_ctx, 0, "Y"), *mul;
	const scs_opt_use *u;
	scs_opt_writer w;
	scs_opt_const c;
	int64_t got[3];
	uint32_t id;
	char why[256];

	cr_assert_not_null(add);
	cr_assert_eq(scs_opt_writer_open(&w, &val_ctx, SCS_DT_INT64), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_writer_put_int64s(&w, v, 3), SCS_OK);
	cr_assert_eq(scs_opt_writer_finish(&id, &w), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_fresh_name(&kname, &val_ctx, "k"), SCS_OK);
	cr_assert_eq(scs_opt_add_constant(&val_ctx, 0, scs_opt_tensor_new(&val_ctx, kname, SCS_DT_INT64, dims, 1, id), NULL),
	    SCS_OK);
	in[1] = kname;
	mul = scs_opt_node_new("Mul", "new_mul", in, 2, out, 1);
	cr_assert_not_null(mul);
	cr_assert_eq(scs_opt_set_attr_int(mul, "some_int", 7), SCS_OK);
	cr_assert_eq(scs_opt_set_attr_int(mul, "some_int", 8), SCS_OK, "replaced, not added twice");
	cr_assert_eq(scs_opt_set_attr_float(mul, "some_float", 0.5f), SCS_OK);
	cr_assert_eq(scs_opt_insert_node(&val_ctx, 0, add, mul), SCS_OK);
	/* an input past the last: the ones between are left out */
	cr_assert_eq(scs_opt_set_input(&val_ctx, add, 3, "prod"), SCS_OK);
	cr_assert_eq(add->n_input, 4);
	cr_assert_str_eq(add->input[2], "");
	cr_assert_null(scs_opt_producer(&val_ctx, 0, "prod"), "not in the snapshot before the commit");
	cr_assert_eq(scs_opt_commit(&val_ctx), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_producer(&val_ctx, 0, "prod"), mul);
	cr_assert_eq(scs_opt_n_uses(&val_ctx, 0, "prod"), 1);
	u = scs_opt_first_use(&val_ctx, 0, kname);
	cr_assert(u && u->kind == SCS_OPT_USE_INPUT && u->node == mul && u->index == 1);
	cr_assert_eq(scs_attr_int(mul, "some_int", 0), 8);
	cr_assert_eq(mul->n_attribute, 2);
	cr_assert_eq(scs_attr_float(mul, "some_float", 0), 0.5f);
	cr_assert_eq(scs_opt_constant(&c, &val_ctx, 0, kname, why, sizeof(why)), 1, "%s", why);
	cr_assert_eq(scs_opt_read_int64s(&val_ctx, &c, 0, 3, got), SCS_OK);
	cr_assert(got[0] == 2 && got[1] == -3 && got[2] == v[2], "%lld %lld %lld", (long long)got[0], (long long)got[1],
	    (long long)got[2]);
	/* dropped at the next commit, with its value info */
	cr_assert_eq(scs_opt_drop_node(&val_ctx, 0, mul), SCS_OK);
	cr_assert(scs_opt_is_dropped(&val_ctx, 0, mul));
	cr_assert_eq(scs_opt_commit(&val_ctx), SCS_OK, "%s", scs_err_msg());
	cr_assert_null(scs_opt_producer(&val_ctx, 0, "prod"));
}

Test(optimize, a_constant_added_to_a_function_body_is_a_constant_node, .fini = values_teardown)
{
	const int64_t dims[] = { 1 };
	const double one = 1.5;
	Onnx__FunctionProto *f;
	scs_opt_writer w;
	scs_opt_const c;
	const char *name;
	uint32_t id;
	char why[256];
	double got;

	ctx_load("opt_function.onnx");
	cr_assert_eq(val_ctx.scopes.n, 2);
	f = val_ctx.scopes.items[1].func;
	cr_assert_not_null(f, "scope 1 is the function");
	cr_assert_eq(scs_opt_writer_open(&w, &val_ctx, SCS_DT_FLOAT), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_writer_put_doubles(&w, &one, 1), SCS_OK);
	cr_assert_eq(scs_opt_writer_finish(&id, &w), SCS_OK);
	cr_assert_eq(scs_opt_fresh_name(&name, &val_ctx, "x"), SCS_OK);
	cr_assert_str_eq(name, "x_opt1", "'x' is the function's input: %s", name);
	cr_assert_eq(scs_opt_add_constant(&val_ctx, 1, scs_opt_tensor_new(&val_ctx, name, SCS_DT_FLOAT, dims, 1, id), NULL),
	    SCS_OK);
	cr_assert_eq(f->n_node, 4);
	cr_assert_str_eq(f->node[0]->op_type, "Constant", "first in the body");
	cr_assert_eq(scs_opt_commit(&val_ctx), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_opt_constant(&c, &val_ctx, 1, name, why, sizeof(why)), 1, "%s", why);
	cr_assert_eq(scs_opt_read_doubles(&val_ctx, &c, 0, 1, &got), SCS_OK);
	cr_assert_eq(got, 1.5);
	cr_assert_eq(scs_opt_constant(&c, &val_ctx, 1, "x", why, sizeof(why)), 0, "a function input is no constant");
}

/*
 * The models of gen_half_models.py, each through its pass: the nodes the
 * output keeps, and what ONNX Runtime computes from it. ONNX Runtime's CPU
 * provider computes in float the nodes it has no float16 kernel for, and
 * also a node with one whose float16 neighbours are all such nodes; a
 * removed node can change which nodes those are, and so which values are
 * rounded to float16 (docs/OPTIMIZER.md, the rules every pass keeps).
 */
enum half_rounds {
	HALF_SAME,        /* bit-identical, graph optimizations on or off */
	HALF_OFF,         /* differs with ONNX Runtime's graph optimizations off */
	HALF_ALWAYS,      /* differs with them on too */
	HALF_NO_LOAD,     /* ONNX Runtime loads neither the input nor the output */
};

typedef struct half_case {
	const char *model;
	const char *args;
	const char *ops;  /* the output's nodes, in order */
	enum half_rounds rounds;
} half_case;

static const half_case half_cases[] = {
	{ "h16_fold_shape_resize_op11", "--input-shape X=2,2,4,4", "Add Transpose Resize Mul", HALF_OFF },
	{ "h16_fold_shape_resize_op13", "--input-shape X=2,2,4,4", "Add Transpose Resize Mul", HALF_OFF },
	{ "h16_fold_shape_resize_op18", "--input-shape X=2,2,4,4", "Add Transpose Resize Mul", HALF_OFF },
	{ "h16_fold_shape_resize_op19", "--input-shape X=2,2,4,4", "Add Transpose Resize Mul", HALF_OFF },
	{ "h16_fold_shape_resize_op21", "--input-shape X=2,2,4,4", "Add Transpose Resize Mul", HALF_OFF },
	{ "h16_fold_shape_layernorm", "--input-shape X=2,2,4,4", "Add LayerNormalization Resize", HALF_ALWAYS },
	{ "h16_dead_shape_layernorm", "-p eliminate_deadend", "Add LayerNormalization Resize", HALF_ALWAYS },
	{ "h16_dead_shape_softmax", "-p eliminate_deadend", "Add Transpose Softmax", HALF_OFF },
	{ "h16_identity_resize", "-p eliminate_identity", "Add Transpose Resize", HALF_OFF },
	{ "h16_nop_transpose_sigmoid", "-p eliminate_nop_transpose", "Add Transpose Sigmoid", HALF_OFF },
	{ "h16_nop_reshape_resize", "-p eliminate_nop_reshape", "Add Transpose Resize", HALF_ALWAYS },
	{ "h16_nop_cast_conv", "-p eliminate_nop_cast", "Add Transpose Conv", HALF_OFF },
	{ "h16_nop_dropout_op11", "-p eliminate_nop_dropout", "Add Transpose Resize", HALF_OFF },
	{ "h16_consecutive_transposes", "-p fuse_consecutive_transposes", "Add Transpose Resize", HALF_OFF },
	{ "h16_nop_pad_layernorm", "-p eliminate_nop_pad", "Transpose LayerNormalization Resize", HALF_ALWAYS },
	{ "n16_nop_dropout_op13", "-p eliminate_nop_dropout", "Add Transpose Resize", HALF_SAME },
	{ "n16_fold_tile_concat", "", "Add Concat Resize", HALF_SAME },
	{ "n16_nop_pad_resize", "-p eliminate_nop_pad", "Add Transpose Resize", HALF_SAME },
	{ "n16_identity_between_floats", "-p eliminate_identity", "Add Resize", HALF_SAME },
	{ "b16_moves", "", "Cast Transpose Concat Cast", HALF_SAME },
	{ "b16_resize", "", "Cast Add Transpose Resize Cast", HALF_NO_LOAD },
};

/* "Op Op ..." of @g's nodes (malloc'd). */
static char *
op_list(const Onnx__GraphProto *g)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < g->n_node; i++)
		len += strlen(g->node[i]->op_type) + 1;
	s = calloc(1, len);
	for (size_t i = 0; i < g->n_node; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, g->node[i]->op_type);
	}
	return s;
}

/* The line of ort_compare --batch @text about @model ("ok: DIR/MODEL.onnx", ...): malloc'd. */
static char *
batch_line(const char *text, const char *model)
{
	char key[128];
	const char *p, *end;

	snprintf(key, sizeof(key), "/%s.onnx", model);
	p = strstr(text, key);
	cr_assert_not_null(p, "no line about %s in:\n%s", model, text);
	while (p > text && p[-1] != '\n')
		p--;
	end = strchr(p, '\n');
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

static int
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

Test(optimize, float16_outputs_differ_only_where_onnx_runtime_rounds_otherwise, .init = opt_setup,
    .fini = opt_teardown)
{
	size_t n = sizeof(half_cases) / sizeof(half_cases[0]);
	char *list = path_in(opt_dir, "pairs.txt"), *off = NULL, *on = NULL, *text;
	FILE *f = fopen(list, "w");

	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i++) {
		const half_case *c = &half_cases[i];
		char name[128], *in, *out, *ops;
		Onnx__ModelProto *m;

		snprintf(name, sizeof(name), "%s.onnx", c->model);
		in = fixture(name);
		snprintf(name, sizeof(name), "out_%s.onnx", c->model);
		out = path_in(opt_dir, name);
		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' %s", in, out, c->args), 0, "%s", text);
		free(text);
		m = load_proto(out);
		cr_assert_not_null(m);
		ops = op_list(m->graph);
		cr_assert_str_eq(ops, c->ops, "%s: the output's nodes", c->model);
		free(ops);
		free_proto(m);
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", c->model, text);
		free(text);
		fprintf(f, "%s\t%s\n", in, out);
		if (c->rounds == HALF_OFF || c->rounds == HALF_ALWAYS) {
			/* one float16 unit in the last place of the output's largest value at most */
			const char *rel;

			cr_assert_eq(ort_same(&text, in, out, "--graph-opt disabled --tol 0,1"), 0, "%s: %s", c->model, text);
			rel = strstr(text, "relative to the output's range ");
			cr_assert_not_null(rel, "%s", text);
			cr_assert(strstr(text, "largest difference 0.000e+0") == NULL, "%s: no difference: %s", c->model, text);
			cr_assert_leq(strtod(rel + strlen("relative to the output's range "), NULL), 9.8e-4, "%s: %s", c->model,
			    text);
			free(text);
		}
		if (c->rounds == HALF_NO_LOAD) {
			cr_assert_neq(ort_same(&text, out, in, NULL), 0);
			cr_assert_not_null(strstr(text, "cannot load reference"), "%s: the output loads: %s", c->model, text);
			free(text);
		}
		free(in);
		free(out);
	}
	fclose(f);
	cr_assert_leq(run(&off, "node '%s/tests/e2e/ort_compare.mjs' --batch '%s' --runs 4 --graph-opt disabled",
	    SCS_TEST_SRC_DIR, list), 1, "%s", off);
	cr_assert_leq(run(&on, "node '%s/tests/e2e/ort_compare.mjs' --batch '%s' --runs 4", SCS_TEST_SRC_DIR, list), 1,
	    "%s", on);
	for (size_t i = 0; i < n; i++) {
		const half_case *c = &half_cases[i];
		char *l_off = batch_line(off, c->model), *l_on = batch_line(on, c->model);

		switch (c->rounds) {
		case HALF_SAME:
			cr_expect(starts(l_off, "ok: ") && starts(l_on, "ok: "), "%s: not bit-identical:\n%s\n%s", c->model,
			    l_off, l_on);
			break;
		case HALF_OFF:
			cr_expect(starts(l_off, "FAIL: ") && strstr(l_off, "differs"), "%s: %s", c->model, l_off);
			break;
		case HALF_ALWAYS:
			cr_expect(starts(l_off, "FAIL: ") && strstr(l_off, "differs") && starts(l_on, "FAIL: ") &&
			    strstr(l_on, "differs"), "%s:\n%s\n%s", c->model, l_off, l_on);
			break;
		case HALF_NO_LOAD:
			cr_expect(starts(l_off, "skip: ") && strstr(l_off, "Could not find an implementation"), "%s: %s",
			    c->model, l_off);
			break;
		}
		free(l_off);
		free(l_on);
	}
	free(off);
	free(on);
	free(list);
}
