/*
 * test_inputs.c: inputs the tools once misread, on the models of
 * tests/e2e/gen_inputs_models.py. IR 3 models, which list every initializer
 * among the graph inputs: their initializers are constants to every tool
 * (merged, narrowed, folded, in the main graph and a nested If), and the
 * output lists its initializers among its inputs again, in their places,
 * with their new types. IR 4+ initializers that are also inputs: counted
 * and left alone, or constants with --initializers-as-constants. QDQ models
 * at opsets 13, 19 and 21: DequantizeLinear / QuantizeLinear stay (and no
 * fusion reaches through them) unless --fold-qdq. --input-shape that
 * contradicts the declared rank or a fixed dim is refused. Every output
 * passes onnx.checker and computes in ONNX Runtime, bit for bit, what its
 * input computes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define dir run_dir
#define out run_out
#define rep run_rep

enum { TOOL_SHRINK, TOOL_SHRINK_OPT, TOOL_OPTIMIZE, TOOL_BIG, TOOL_BIG_OPT, N_TOOLS };
static const char *const tool_names[] = { "shrink", "shrink --optimize", "optimize", "big", "big --optimize" };

/* Run library call @tool on fixture @name into run_out with @as_constants
 * and @fold_qdq; the output, read back. */
static Onnx__ModelProto *
run_on(int tool, const char *name, int as_constants, int fold_qdq)
{
	char *in = fixture(name);
	scs_shrink_options so = { .version = SCS_SHRINK_OPTIONS_VERSION, .initializers_as_constants = as_constants,
		.fold_qdq = fold_qdq };
	scs_optimize_options oo = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .initializers_as_constants = as_constants,
		.fold_qdq = fold_qdq };
	scs_big_options bo;
	Onnx__ModelProto *m;
	int rc;

	scs_report_dispose(&rep);
	rep = (scs_report)SCS_REPORT_INIT;
	free(out);
	out = path_in(dir, name);
	so.optimize = tool == TOOL_SHRINK_OPT || tool == TOOL_BIG_OPT;
	bo = (scs_big_options)SCS_BIG_OPTIONS_INIT;
	bo.shrink = &so;
	bo.work_dir = dir;
	if (tool == TOOL_OPTIMIZE)
		rc = scs_optimize(&rep, in, out, &oo);
	else if (tool == TOOL_BIG || tool == TOOL_BIG_OPT)
		rc = scs_big(&rep, in, out, &bo);
	else
		rc = scs_shrink(&rep, in, out, &so);
	cr_assert_eq(rc, SCS_OK, "%s %s: %s", tool_names[tool], name, scs_err_msg());
	m = load_proto(out);
	cr_assert_not_null(m, "%s: output unreadable", name);
	free(in);
	return m;
}

static int
input_index(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_input; i++)
		if (strcmp(g->input[i]->name, name) == 0)
			return (int)i;
	return -1;
}

/* The IR 3 rule in an output: every initializer of the main graph is an
 * input of its element type and dims, the others in their order. */
static void
expect_ir3_inputs(const Onnx__ModelProto *m, const char *label)
{
	const Onnx__GraphProto *g = m->graph;

	cr_assert_eq(m->ir_version, 3, "%s: ir_version %lld", label, (long long)m->ir_version);
	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *t = g->initializer[i];
		int k = input_index(g, t->name);
		const Onnx__TypeProto__Tensor *tt;

		cr_assert_geq(k, 0, "%s: initializer %s is not among the inputs", label, t->name);
		tt = g->input[k]->type->tensor_type;
		cr_assert_eq(tt->elem_type, t->data_type, "%s: input %s declares type %d, the initializer is %d", label,
		    t->name, tt->elem_type, t->data_type);
		cr_assert_eq(tt->shape->n_dim, t->n_dims, "%s: input %s rank", label, t->name);
		for (size_t d = 0; d < t->n_dims; d++)
			cr_assert_eq(tt->shape->dim[d]->dim_value, t->dims[d], "%s: input %s dim %zu", label, t->name, d);
	}
	for (size_t i = 0; i < g->n_input; i++)
		cr_assert(find_init(g, g->input[i]->name) || strcmp(g->input[i]->name, "X") == 0 ||
		    strcmp(g->input[i]->name, "C") == 0, "%s: input %s names no initializer", label, g->input[i]->name);
	/* the inputs kept their places: X, W1, C */
	cr_assert(input_index(g, "X") == 0 && input_index(g, "W1") == 1 && input_index(g, "C") == 2,
	    "%s: inputs out of their order", label);
}

static void
ir3_every_tool(const char *name)
{
	char *in = fixture(name);

	for (int tool = 0; tool < N_TOOLS; tool++) {
		Onnx__ModelProto *m = run_on(tool, name, 0, 0);
		char label[128];

		snprintf(label, sizeof(label), "%s %s", tool_names[tool], name);
		cr_assert_eq(rep.n_default_inputs, 6, "%s: %llu initializers among the inputs", label,
		    (unsigned long long)rep.n_default_inputs);
		cr_assert_eq(rep.default_inputs_rule, SCS_DEFAULTS_CONSTANT_IR3, "%s", label);
		expect_ir3_inputs(m, label);
		expect_equivalent(in, out, NULL);
		if (tool != TOOL_OPTIMIZE) {
			/* merged and narrowed */
			cr_assert_geq(rep.n_groups, 1, "%s: W1 and W2 not merged", label);
			cr_assert_null(find_init(m->graph, "W2"), "%s", label);
			cr_assert_eq(input_index(m->graph, "W2"), -1, "%s: W2 (merged into W1) still an input", label);
			cr_assert_eq(find_init(m->graph, "idx")->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT32,
			    "%s: idx not narrowed", label);
		}
		if (tool == TOOL_OPTIMIZE || tool == TOOL_SHRINK_OPT || tool == TOOL_BIG_OPT) {
			const Onnx__GraphProto *then = subgraph(m->graph, "If", "then_branch");

			/* Add(A, B) folded into a new initializer (an input too); Reshape(W2, shp) gone */
			cr_assert_null(find_node_by_output(m->graph, "ab"), "%s: Add(A, B) not folded", label);
			cr_assert_eq(count_ops(m->graph, "Reshape"), 0, "%s: the no-op Reshape stays", label);
			cr_assert_eq(input_index(m->graph, "shp"), -1, "%s: shp, unread, still an input", label);
			/* in the branch (3 Adds), Add(K2, K3) folded into a Constant node (a body's inputs are If's) */
			cr_assert_eq(count_ops(then, "Add"), 2, "%s: Add(K2, K3) not folded in the branch", label);
			cr_assert_eq(then->n_initializer, 0, "%s: an initializer in an IR 3 branch", label);
			cr_assert_eq(then->n_input, 0, "%s", label);
		}
		free_proto(m);
	}
	free(in);
}

Test(inputs, ir3_raw_constants_to_every_tool, .init = run_setup, .fini = run_teardown, .timeout = 300)
{
	ir3_every_tool("ir3_raw.onnx");
}

Test(inputs, ir3_typed_constants_to_every_tool, .init = run_setup, .fini = run_teardown, .timeout = 300)
{
	ir3_every_tool("ir3_typed.onnx");
}

/* scs4onnx-big --keep-work: the kept shards of an IR 3 model list their initializers among their inputs too. */
Test(inputs, ir3_big_kept_shards, .init = run_setup, .fini = run_teardown, .timeout = 300)
{
	char *in = fixture("ir3_typed.onnx"), *o = path_in(dir, "o.onnx"), *work = path_in(dir, "work"),
	    *shards = path_in(work, "shards");
	scs_big_options bo = { .version = SCS_BIG_OPTIONS_VERSION, .max_shard_len = 600, .work_dir = work, .keep_work = 1 };
	int n;

	cr_assert_eq(scs_big(&rep, in, o, &bo), SCS_OK, "%s", scs_err_msg());
	free(shard_list(shards, &n));
	cr_assert_geq(n, 2, "%d shards", n);
	expect_shards_compute(in, shards);
	expect_equivalent(in, o, NULL);
	free(shards);
	free(work);
	free(o);
	free(in);
}

/* The CLI says what it took them for. */
Test(inputs, ir3_reported, .init = run_setup, .fini = run_teardown, .timeout = 120)
{
	char *in = fixture("ir3_raw.onnx"), *o = path_in(dir, "o.onnx"), *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --json -", in, o), 0, "%s", text);
	cr_assert_not_null(strstr(text, "\"default_inputs\": 6"), "%s", text);
	cr_assert_not_null(strstr(text, "\"default_inputs_rule\": \"constants_below_ir4\""), "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -f", in, o), 0, "%s", text);
	cr_assert_not_null(strstr(text, "initializers among the graph inputs: 6, constants (below IR version 4"), "%s",
	    text);
	free(text);
	free(o);
	free(in);
}

/* IR 4+: overridable defaults, counted and left alone; constants when asked. */
/* Initializers the optimizer's eliminate_duplicate_initializer merged, per @r. */
static size_t
merged_by_optimizer(const scs_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->changes.n; i++)
		n += strcmp(r->changes.items[i].name, "eliminate_duplicate_initializer") == 0;
	return n;
}

Test(inputs, ir8_defaults_left_alone_or_constants, .init = run_setup, .fini = run_teardown, .timeout = 300)
{
	char *in = fixture("defaults_ir8.onnx"), *json;

	for (int tool = 0; tool < N_TOOLS; tool++) {
		Onnx__ModelProto *m = run_on(tool, "defaults_ir8.onnx", 0, 0);

		cr_assert_eq(rep.n_default_inputs, 3, "%s: %llu", tool_names[tool], (unsigned long long)rep.n_default_inputs);
		cr_assert_eq(rep.default_inputs_rule, SCS_DEFAULTS_LEFT, "%s", tool_names[tool]);
		cr_assert_eq(rep.n_groups, 0, "%s: an overridable default merged", tool_names[tool]);
		cr_assert_eq(m->graph->n_input, 4, "%s", tool_names[tool]);
		cr_assert(find_init(m->graph, "W1") && find_init(m->graph, "W2"), "%s", tool_names[tool]);
		json = scs_report_json(&rep);
		cr_assert_not_null(strstr(json, "\"default_inputs\": 3"), "%s", json);
		cr_assert_not_null(strstr(json, "\"default_inputs_rule\": \"overridable\""), "%s", json);
		scs_free(json);
		expect_equivalent(in, out, NULL);
		free_proto(m);

		m = run_on(tool, "defaults_ir8.onnx", 1, 0);
		cr_assert_eq(rep.default_inputs_rule, SCS_DEFAULTS_CONSTANT_ASKED, "%s", tool_names[tool]);
		cr_assert_eq(m->graph->n_input, 1, "%s: the constants are still inputs", tool_names[tool]);
		cr_assert_str_eq(m->graph->input[0]->name, "X");
		/* merged by the dedup stage, or before it by the optimizer's eliminate_duplicate_initializer */
		if (tool != TOOL_OPTIMIZE)
			cr_assert_eq(rep.n_groups + merged_by_optimizer(&rep), 1, "%s: W1 and W2 not merged",
			    tool_names[tool]);
		cr_assert_null(find_init(m->graph, "W2"), "%s", tool_names[tool]);
		expect_equivalent(in, out, NULL);
		free_proto(m);
	}
	free(in);
}

Test(inputs, ir8_option_on_the_command_line, .init = run_setup, .fini = run_teardown, .timeout = 120)
{
	char *in = fixture("defaults_ir8.onnx"), *o = path_in(dir, "o.onnx"), *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s'", in, o), 0, "%s", text);
	cr_assert_not_null(strstr(text, "initializers among the graph inputs: 3, left alone"), "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -f --initializers-as-constants", in, o), 0, "%s",
	    text);
	cr_assert_not_null(strstr(text, "merged: W1 <- W2"), "%s", text);
	free(text);
	expect_equivalent(in, o, NULL);
	free(o);
	free(in);
}

/* 1 when the report leaves alone the node writing @value for a reason containing @what. */
static int
left_writing(const char *value, const char *what)
{
	char subject[128];

	snprintf(subject, sizeof(subject), "node writing '%s'", value);
	for (size_t i = 0; i < rep.left.n; i++)
		if (strstr(rep.left.items[i].detail, subject) && strstr(rep.left.items[i].detail, what))
			return 1;
	return 0;
}

/* QDQ: the DequantizeLinear of each weight and bias stays, reported; no Gemm through them. */
static void
qdq_model(const char *name)
{
	char *in = fixture(name);
	Onnx__ModelProto *src = load_proto(in);

	cr_assert_eq(count_ops(src->graph, "DequantizeLinear"), 8);
	for (int tool = TOOL_SHRINK_OPT; tool <= TOOL_BIG_OPT; tool++) {
		Onnx__ModelProto *m = run_on(tool, name, 0, 0);

		cr_assert_eq(count_ops(m->graph, "DequantizeLinear"), 8, "%s %s: a DequantizeLinear folded", tool_names[tool],
		    name);
		cr_assert_eq(count_ops(m->graph, "QuantizeLinear"), 4, "%s %s: a QuantizeLinear folded", tool_names[tool],
		    name);
		cr_assert_eq(count_ops(m->graph, "Gemm"), 0, "%s %s: MatMul and Add fused through DequantizeLinear",
		    tool_names[tool], name);
		if (tool == TOOL_OPTIMIZE) {
			cr_assert(left_writing("wd", "a quantization node"), "%s: the weight's DQ not reported", name);
			cr_assert(left_writing("bd", "--fold-qdq"), "%s: the bias's DQ not reported", name);
			cr_assert(left_writing("wfq", "a quantization node"), "%s: the float weight's Q not reported", name);
			cr_assert(left_writing("ma", "DequantizeLinear"), "%s: the fusion's refusal not reported",
			    name);
		}
		expect_equivalent(in, out, NULL);
		free_proto(m);
	}
	/* --fold-qdq: the biases' DequantizeLinear fold (float, computed as the runtime does) */
	{
		Onnx__ModelProto *m = run_on(TOOL_OPTIMIZE, name, 0, 1);

		cr_assert_lt(count_ops(m->graph, "DequantizeLinear"), 8, "%s: --fold-qdq folded nothing", name);
		expect_equivalent(in, out, "--graph-opt disabled");
		free_proto(m);
	}
	free_proto(src);
	free(in);
}

Test(inputs, qdq_opset13, .init = run_setup, .fini = run_teardown, .timeout = 300)
{
	qdq_model("qdq13.onnx");
}

Test(inputs, qdq_opset19, .init = run_setup, .fini = run_teardown, .timeout = 300)
{
	qdq_model("qdq19.onnx");
}

Test(inputs, qdq_opset21, .init = run_setup, .fini = run_teardown, .timeout = 300)
{
	qdq_model("qdq21.onnx");
}

/* --input-shape: a wrong rank or a fixed dim contradicted is refused (library and CLI); a symbolic or unknown dim takes any value. */
Test(inputs, input_shape_must_agree, .init = run_setup, .fini = run_teardown, .timeout = 120)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{ "x=1,3,224", "--input-shape 'x=1,3,224': input x is declared [1,3,H,?] (rank 4), not of rank 3" },
		{ "x=1,3,224,224,1", "input x is declared [1,3,H,?] (rank 4), not of rank 5" },
		{ "x=2,3,5,5", "input x is declared [1,3,H,?]: dim 0 is 1, not 2" },
		{ "x=1,4,5,5", "input x is declared [1,3,H,?]: dim 1 is 3, not 4" },
	};
	char *in = fixture("shape_decl.onnx"), *o = path_in(dir, "o.onnx"), *text;
	Onnx__ModelProto *m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *spec = bad[i].spec;
		scs_optimize_options oo = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .input_shapes = &spec, .n_input_shapes = 1 };
		scs_shrink_options so = { .version = SCS_SHRINK_OPTIONS_VERSION, .optimize = 1, .input_shapes = &spec, .n_input_shapes = 1 };
		scs_report r = SCS_REPORT_INIT;

		cr_assert_eq(scs_optimize(&r, in, o, &oo), SCS_EUSAGE, "%s accepted", spec);
		cr_assert_not_null(strstr(scs_err_msg(), bad[i].says), "%s", scs_err_msg());
		scs_report_dispose(&r);
		r = (scs_report)SCS_REPORT_INIT;
		cr_assert_eq(scs_shrink(&r, in, o, &so), SCS_EUSAGE, "shrink --optimize: %s accepted", spec);
		scs_report_dispose(&r);
		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' --input-shape '%s'", in, o, spec), 1, "%s",
		    text);
		cr_assert_not_null(strstr(text, bad[i].says), "%s", text);
		free(text);
		cr_assert(!file_exists(o), "%s: an output written", spec);
	}
	{
		const char *spec = "x=1,3,5,7";
		scs_optimize_options oo = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .input_shapes = &spec, .n_input_shapes = 1 };
		const Onnx__TensorShapeProto *s;

		m = run_optimize("shape_decl.onnx", &oo);
		s = m->graph->input[0]->type->tensor_type->shape;
		cr_assert_eq(s->n_dim, 4);
		cr_assert(s->dim[2]->dim_value == 5 && s->dim[3]->dim_value == 7, "the symbolic dims not set");
		cr_assert_eq(count_ops(m->graph, "Shape"), 0, "Shape not folded");
		free_proto(m);
		cr_assert_eq(onnx_check(&text, out), 0, "%s", text);
		free(text);
	}
	free(o);
	free(in);
}
