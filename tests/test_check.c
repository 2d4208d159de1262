/*
 * test_check.c: the checker (scs_check, scs4onnx-check). Each model of
 * tests/e2e/gen_check_models.py broken on purpose is refused with exactly
 * one problem naming its rule, graph and node, and onnx.checker refuses it
 * too (but for the rules we apply more strictly, which it passes); each
 * valid one passes both. The tool's lines, summary, exit statuses and JSON.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scs4onnx/scs4onnx.h>

#include "support.h"

/* scs_check() of fixture @name into @res, which must succeed. */
static void
check_fixture(scs_check_result *res, const char *name, int full)
{
	scs_check_options o = SCS_CHECK_OPTIONS_INIT;
	char *path = fixture(name);

	o.full = full;
	cr_assert_eq(scs_check(res, path, &o), SCS_OK, "%s: %s", name, scs_err_msg());
	free(path);
}

/* The one problem of fixture @name is of @rule at @graph (NULL: the model)
 * and @node (NULL: none); onnx.checker refuses it too unless @stricter. */
static void
expect_bad(const char *name, const char *rule, const char *graph, const char *node, int stricter)
{
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	char *path = fixture(name), *msg = NULL;

	check_fixture(&res, name, 0);
	for (size_t i = 0; i < res.n_items; i++)
		cr_log_info("%s: %s: %s", name, res.items[i].rule, res.items[i].what);
	cr_assert_eq(res.n_items, 1, "%s: %zu problems, one expected", name, res.n_items);
	cr_expect_str_eq(res.items[0].rule, rule, "%s: rule %s", name, res.items[0].rule);
	if (graph)
		cr_expect(res.items[0].graph && strcmp(res.items[0].graph, graph) == 0, "%s: graph %s, not %s", name,
		    res.items[0].graph ? res.items[0].graph : "(none)", graph);
	else
		cr_expect_null(res.items[0].graph, "%s: graph %s", name, res.items[0].graph);
	if (node)
		cr_expect(res.items[0].node && strcmp(res.items[0].node, node) == 0, "%s: node %s, not %s", name,
		    res.items[0].node ? res.items[0].node : "(none)", node);
	else
		cr_expect_null(res.items[0].node, "%s: node %s", name, res.items[0].node);
	cr_expect_not_null(res.items[0].what);
	scs_check_result_dispose(&res);
	if (stricter)
		cr_expect_eq(onnx_check(&msg, path), 0, "%s: onnx.checker refuses it: %s", name, msg);
	else
		cr_expect_neq(onnx_check(&msg, path), 0, "%s: onnx.checker passes it", name);
	free(msg);
	free(path);
}

/* Fixture @name is valid for both checkers; at least @graphs graphs checked. */
static void
expect_ok(const char *name, uint64_t graphs)
{
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	char *path = fixture(name), *msg = NULL;

	check_fixture(&res, name, 0);
	for (size_t i = 0; i < res.n_items; i++)
		cr_log_error("%s: %s: %s", name, res.items[i].rule, res.items[i].what);
	cr_expect_eq(res.n_items, 0, "%s: %zu problems", name, res.n_items);
	cr_expect_geq(res.n_graphs, graphs, "%s: %llu graphs checked", name, (unsigned long long)res.n_graphs);
	cr_expect_gt(res.n_nodes, 0);
	scs_check_result_dispose(&res);
	cr_expect_eq(onnx_check(&msg, path), 0, "%s: onnx.checker refuses it: %s", name, msg);
	free(msg);
	free(path);
}

#define BAD(name, rule, graph, node) \
	Test(check, bad_##name) { expect_bad("ck_bad_" #name ".onnx", rule, graph, node, 0); }
#define STRICTER(name, rule, graph, node) \
	Test(check, stricter_##name) { expect_bad("ck_bad_" #name ".onnx", rule, graph, node, 1); }
#define OK(name, graphs) \
	Test(check, ok_##name) { expect_ok("ck_ok_" #name ".onnx", graphs); }

BAD(unsorted, "order", "main", "relu")
BAD(twice, "ssa", "main", "relu")
BAD(missing, "order", "main", "add")
BAD(unknown_op, "operator", "main", "foo")
BAD(no_domain, "operator", "main", "bar")
BAD(deprecated, "operator", "main", "up")
BAD(attr_type, "attribute", "main", "lrelu")
BAD(attr_required, "attribute", "main", "cast")
BAD(attr_unknown, "attribute", "main", "add")
BAD(attr_twice, "attribute", "main", "tr")
BAD(too_many, "arity", "main", "add")
BAD(required_empty, "arity", "main", "add")
BAD(body_later, "order", "main/if.then_branch", "then_id")
BAD(body_shadow, "ssa", "main/loop.body", "b_t")
BAD(ir3_init, "tensor", "main", NULL)
BAD(no_data, "tensor", "main", NULL)
BAD(no_dtype, "tensor", "main", NULL)
BAD(string_raw, "tensor", "main", NULL)
BAD(no_opset, "model", NULL, NULL)
BAD(no_ir, "model", NULL, NULL)
BAD(metadata, "model", NULL, NULL)
BAD(input_shape, "value-info", "main", NULL)
BAD(graph_name, "value-info", "main", NULL)
BAD(sparse_order, "sparse", "main", NULL)
BAD(func_order, "order", "function local.f", "f_relu")
BAD(func_outputs, "function", "function local.f", NULL)
BAD(ai_onnx_domain, "operator", "main", "relu")
STRICTER(dims_payload, "tensor", NULL, NULL)
STRICTER(typed_payload, "tensor", NULL, NULL)
STRICTER(ext_offset, "external-data", NULL, NULL)

OK(nested, 4)
OK(function, 2)
OK(qdq, 1)
OK(typed, 1)
OK(external, 1)
OK(sparse, 1)
OK(ir3, 1)
OK(optional, 1)

/* Fixture @name passes without --full and, with it, gives one problem of
 * the infer rule at node @node; onnx.checker's full check refuses it too. */
static void
expect_full(const char *name, const char *node, const char *what)
{
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	char *path = fixture(name), *out = NULL;

	check_fixture(&res, name, 0);
	cr_expect_eq(res.n_items, 0, "%s: %zu problems without --full", name, res.n_items);
	scs_check_result_dispose(&res);
	check_fixture(&res, name, 1);
	for (size_t i = 0; i < res.n_items; i++)
		cr_log_info("%s: %s: %s", name, res.items[i].rule, res.items[i].what);
	cr_assert_eq(res.n_items, 1, "%s: %zu problems with --full, one expected", name, res.n_items);
	cr_expect_str_eq(res.items[0].rule, "infer");
	cr_expect_str_eq(res.items[0].graph, "main");
	cr_expect_str_eq(res.items[0].node, node);
	cr_expect(strstr(res.items[0].what, what) != NULL, "%s: %s", name, res.items[0].what);
	scs_check_result_dispose(&res);
	cr_expect_eq(onnx_check(&out, path), 0, "%s: onnx.checker refuses it: %s", name, out);
	free(out);
	/* (given a path, the full check writes the shapes it infers into the file: given the model, it does not) */
	cr_expect_neq(run(&out, "/usr/bin/python3 -c 'import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]), "
	    "full_check=True)' '%s'", path), 0, "%s: onnx.checker's full check passes it", name);
	free(out);
	free(path);
}

Test(check, full_output_type) { expect_full("ck_full_out_type.onnx", "add", "declared int64 [2, 2] but comes out float32 [2, 2]"); }
Test(check, full_output_rank) { expect_full("ck_full_out_rank.onnx", "relu", "declared float32 [2, 2, 1]"); }
Test(check, full_output_dim) { expect_full("ck_full_out_dim.onnx", "relu", "declared float32 [2, 3] but comes out float32 [2, 2]"); }
Test(check, full_input_types) { expect_full("ck_full_in_types.onnx", "add", "input 1 ('w') is int64 but input 0 is float32"); }

/* What ONNX's inference refuses where the ranks and dims are known: axes out of range (attributes,
 * constant inputs in raw_data and int64_data, a Constant node's), dims that do not broadcast, the
 * matrix and neural-network operators' ranks and inner dims, opset 6's arithmetic, an untyped value. */
Test(check, full_axis) { expect_full("ck_full_axis.onnx", "cat", "axis 2 is out of range for input 0 of rank 2"); }
Test(check, full_axes_input) { expect_full("ck_full_axes_input.onnx", "unsq", "axis 5 is out of range"); }
Test(check, full_axes_typed) { expect_full("ck_full_axes_typed.onnx", "sum", "axis 2 is out of range"); }
Test(check, full_axes_node) { expect_full("ck_full_axes_node.onnx", "slice", "axis 5 is out of range"); }
Test(check, full_perm) { expect_full("ck_full_perm.onnx", "tr", "perm's axis 2 is out of range"); }
Test(check, full_squeeze) { expect_full("ck_full_squeeze.onnx", "sq", "squeezes axis 0 of input 0, which is 2, not 1"); }
Test(check, full_broadcast) { expect_full("ck_full_broadcast.onnx", "add", "input 1 ('w') does not broadcast"); }
Test(check, full_broadcast3) { expect_full("ck_full_broadcast3.onnx", "where", "input 1 ('x') does not broadcast"); }
Test(check, full_legacy_add) { expect_full("ck_full_legacy_add.onnx", "add", "before opset 7 Add's output"); }
Test(check, full_matmul) { expect_full("ck_full_matmul.onnx", "mm", "inner dims of the matrix product differ"); }
Test(check, full_gemm_rank) { expect_full("ck_full_gemm_rank.onnx", "gemm", "input 1 is of rank 3"); }
Test(check, full_conv_rank) { expect_full("ck_full_conv_rank.onnx", "conv", "the weights) is of rank 3"); }
Test(check, full_pool_kernel) { expect_full("ck_full_pool_kernel.onnx", "pool", "kernel_shape has 3 dims"); }
Test(check, full_conv_low) { expect_full("ck_full_conv_low.onnx", "conv", "input 0 is of rank 1"); }
Test(check, full_reshape) { expect_full("ck_full_reshape.onnx", "reshape", "-1 2 times"); }
Test(check, full_concat_dims) { expect_full("ck_full_concat_dims.onnx", "cat", "only the dims along axis 0 may differ"); }
Test(check, full_split_sum) { expect_full("ck_full_split_sum.onnx", "split", "its sizes add up to 3"); }
Test(check, full_expand) { expect_full("ck_full_expand.onnx", "expand", "does not broadcast to the shape"); }
Test(check, full_tile) { expect_full("ck_full_tile.onnx", "tile", "it repeats 1 dims of input 0, which has 2"); }
Test(check, full_pad_count) { expect_full("ck_full_pad_count.onnx", "pad", "it has 2 pads for input 0 of rank 2"); }
Test(check, full_topk_axis) { expect_full("ck_full_topk_axis.onnx", "topk", "axis 2 is out of range"); }
Test(check, full_depth_rank) { expect_full("ck_full_depth_rank.onnx", "d2s", "input 0 is of rank 2"); }
Test(check, full_untyped) { expect_full("ck_full_untyped.onnx", "conv", "input 0 ('r') has no type"); }

/* Their near twins (axis -rank, dims of 1 and symbolic ones, ranks onnx.checker takes) pass both full checks. */
Test(check, full_passes_near_twins)
{
	static const char *const names[] = { "ck_fullok_axis.onnx", "ck_fullok_broadcast.onnx",
		"ck_fullok_legacy_add.onnx", "ck_fullok_conv_rank.onnx", "ck_fullok_old_axes.onnx", "ck_fullok_symbolic.onnx", "ck_fullok_untyped.onnx",
		"ck_fullok_shapes.onnx" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		scs_check_result res = SCS_CHECK_RESULT_INIT;
		char *path = fixture(names[i]), *out = NULL;

		check_fixture(&res, names[i], 1);
		for (size_t k = 0; k < res.n_items; k++)
			cr_log_error("%s: %s: %s", names[i], res.items[k].rule, res.items[k].what);
		cr_expect_eq(res.n_items, 0, "%s: %zu problems with --full", names[i], res.n_items);
		scs_check_result_dispose(&res);
		cr_expect_eq(run(&out, "/usr/bin/python3 -c 'import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]), "
		    "full_check=True)' '%s'", path), 0, "%s: onnx.checker's full check refuses it: %s", names[i], out);
		free(out);
		free(path);
	}
}

/* An operator unknown in an opset newer than our schemas is not refused (onnx.checker 1.12 refuses it). */
Test(check, unknown_operator_of_a_newer_opset_passes)
{
	scs_check_result res = SCS_CHECK_RESULT_INIT;

	check_fixture(&res, "ck_lenient_future_op.onnx", 0);
	cr_expect_eq(res.n_items, 0, "%zu problems: %s", res.n_items, res.n_items ? res.items[0].what : "");
	scs_check_result_dispose(&res);
}

/* --full passes the valid models. */
/* A sparse initializer is valid, but ONNX's inference types it sparse_tensor, which no operator takes. */
Test(check, full_sparse_initializer_read_by_an_operator)
{
	static const char *const nodes[] = { "add", "add2" };
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	char *path = fixture("ck_ok_sparse.onnx"), *out = NULL;

	check_fixture(&res, "ck_ok_sparse.onnx", 0);
	cr_expect_eq(res.n_items, 0, "%zu problems without --full", res.n_items);
	scs_check_result_dispose(&res);
	check_fixture(&res, "ck_ok_sparse.onnx", 1);
	cr_assert_eq(res.n_items, 2, "%zu problems with --full: one per Add reading a sparse initializer", res.n_items);
	for (size_t i = 0; i < 2; i++) {
		cr_expect_str_eq(res.items[i].rule, "infer");
		cr_expect_str_eq(res.items[i].node, nodes[i]);
		cr_expect(strstr(res.items[i].what, "is a sparse initializer") != NULL, "%s", res.items[i].what);
	}
	scs_check_result_dispose(&res);
	cr_expect_neq(run(&out, "/usr/bin/python3 -c 'import onnx,sys; onnx.checker.check_model(onnx.load(sys.argv[1]), "
	    "full_check=True)' '%s'", path), 0, "onnx.checker's full check passes it");
	free(out);
	free(path);
}

Test(check, full_passes_valid_models)
{
	static const char *const names[] = { "ck_ok_nested.onnx", "ck_ok_function.onnx", "ck_ok_qdq.onnx",
		"ck_ok_typed.onnx", "ck_ok_external.onnx", "ck_ok_ir3.onnx", "ck_ok_optional.onnx" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		scs_check_result res = SCS_CHECK_RESULT_INIT;

		check_fixture(&res, names[i], 1);
		for (size_t k = 0; k < res.n_items; k++)
			cr_log_error("%s: %s: %s", names[i], res.items[k].rule, res.items[k].what);
		cr_expect_eq(res.n_items, 0, "%s: %zu problems with --full", names[i], res.n_items);
		scs_check_result_dispose(&res);
	}
}

/* The problem's line shows its graph, node, op_type and rule. */
Test(check, line_names_graph_node_op_and_rule)
{
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	char *line;

	check_fixture(&res, "ck_bad_unsorted.onnx", 0);
	cr_assert_eq(res.n_items, 1);
	cr_expect_str_eq(res.items[0].op_type, "Relu");
	line = scs_check_item_line(&res.items[0]);
	cr_assert_not_null(line);
	cr_expect_str_eq(line, "graph 'main', node 'relu' (Relu): order: input 't' is not made by an earlier node, "
	    "nor a graph input or initializer");
	scs_free(line);
	scs_check_result_dispose(&res);
	cr_expect_eq(res.n_items, 0);
	{
		/* a name with a space keeps its op_type; "#INDEX OP" says it once */
		char named[] = "my node", unnamed[] = "#4 Relu";
		scs_check_item it = { "ssa", "main", named, "x", "Relu" };

		line = scs_check_item_line(&it);
		cr_expect_str_eq(line, "graph 'main', node 'my node' (Relu): ssa: x");
		scs_free(line);
		it.node = unnamed;
		line = scs_check_item_line(&it);
		cr_expect_str_eq(line, "graph 'main', node '#4 Relu': ssa: x");
		scs_free(line);
	}
	cr_expect_eq(res.version, SCS_CHECK_RESULT_VERSION);
}

/* A file that is no model is one problem, not an error; a missing file is an error. */
Test(check, unreadable_model_is_one_problem_missing_file_an_error)
{
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	char *dir = tmpdir_new(), *path = path_in(dir, "junk.onnx"), *gone = path_in(dir, "gone.onnx");
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	fputs("this is not a model\n", f);
	fclose(f);
	cr_assert_eq(scs_check(&res, path, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(res.n_items, 1);
	cr_expect_str_eq(res.items[0].rule, "model");
	cr_expect_null(res.items[0].graph);
	scs_check_result_dispose(&res);
	cr_expect_lt(scs_check(&res, gone, NULL), 0);
	cr_expect_eq(res.n_items, 0);
	free(path);
	free(gone);
	free(dir);
}

Test(check, versions_are_checked)
{
	scs_check_result res = SCS_CHECK_RESULT_INIT;
	scs_check_result zero = { 0 };
	scs_check_options o = { 0 };
	char *path = fixture("ck_ok_typed.onnx");

	cr_expect_eq(scs_check(&zero, path, NULL), SCS_EUSAGE);
	cr_expect_eq(scs_check(&res, path, &o), SCS_EUSAGE);
	o.version = SCS_CHECK_OPTIONS_VERSION + 1;
	cr_expect_eq(scs_check(&res, path, &o), SCS_EUSAGE);
	free(path);
}

/* The tool: a line per problem on stdout, the summary on stderr, exit 1. */
Test(check, tool_prints_problems_and_exits_1)
{
	char *path = fixture("ck_bad_unsorted.onnx"), *out, *want;

	cr_assert_eq(run(&out, "{ '" SCS_TOOLS_DIR "/scs4onnx-check' '%s' 2>/dev/null; }", path), 1, "%s", out);
	cr_assert(asprintf(&want, "%s: graph 'main', node 'relu' (Relu): order: input 't' is not made by an earlier "
	    "node, nor a graph input or initializer\n", path) > 0);
	cr_expect_str_eq(out, want);
	free(out);
	free(want);
	cr_assert_eq(run(&out, "{ '" SCS_TOOLS_DIR "/scs4onnx-check' '%s' >/dev/null; }", path), 1, "%s", out);
	cr_assert(asprintf(&want, "%s: 1 problem\n", path) > 0);
	cr_expect_str_eq(out, want);
	free(out);
	free(want);
	cr_assert_eq(run(&out, "{ '" SCS_TOOLS_DIR "/scs4onnx-check' '%s' -n >/dev/null; }", path), 1, "%s", out);
	cr_expect_str_eq(out, "");
	free(out);
	free(path);
}

Test(check, tool_says_valid_and_exits_0)
{
	char *path = fixture("ck_ok_nested.onnx"), *out, *want;

	cr_assert_eq(run_tool(&out, "scs4onnx-check", "'%s'", path), 0, "%s", out);
	cr_assert(asprintf(&want, "%s: valid (4 graphs, 6 nodes, 3 tensors checked)\n", path) > 0);
	cr_expect_str_eq(out, want);
	free(out);
	free(want);
	cr_assert_eq(run_tool(&out, "scs4onnx-check", "-n '%s'", path), 0, "%s", out);
	cr_expect_str_eq(out, "");
	free(out);
	free(path);
}

Test(check, tool_bad_usage_exits_2_missing_model_1)
{
	char *out;

	cr_expect_eq(run_tool(&out, "scs4onnx-check", "%s", ""), 2, "%s", out);
	free(out);
	cr_expect_eq(run_tool(&out, "scs4onnx-check", "--no-such-flag x.onnx"), 2, "%s", out);
	free(out);
	cr_expect_eq(run_tool(&out, "scs4onnx-check", "a.onnx b.onnx"), 2, "%s", out);
	free(out);
	cr_expect_eq(run_tool(&out, "scs4onnx-check", "--json"), 2, "%s", out);
	free(out);
	cr_expect_eq(run_tool(&out, "scs4onnx-check", "/no/such/model.onnx"), 1, "%s", out);
	cr_expect(strstr(out, "scs4onnx-check: error: ") != NULL, "%s", out);
	free(out);
}

/* --json: parsed by Python's json, its fields what the lines say. */
Test(check, tool_json_parses)
{
	char *dir = tmpdir_new(), *json = path_in(dir, "r.json"), *path = fixture("ck_bad_body_later.onnx"), *out;

	cr_assert_eq(run_tool(&out, "scs4onnx-check", "'%s' -n --json '%s'", path, json), 1, "%s", out);
	free(out);
	cr_assert_eq(run(&out, "/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); "
	    "p=r[\"problems\"]; assert r[\"valid\"] is False and len(p)==1, r; p=p[0]; "
	    "assert (p[\"rule\"],p[\"graph\"],p[\"node\"],p[\"op_type\"])==(\"order\",\"main/if.then_branch\","
	    "\"then_id\",\"Identity\"), p; assert \"later\" in p[\"what\"] and p[\"line\"].startswith(\"graph \"), p; "
	    "assert r[\"graphs\"]==3 and r[\"nodes\"]==5 and r[\"input_bytes\"]>0, r' '%s'", json), 0, "%s", out);
	free(out);
	free(path);
	path = fixture("ck_ok_external.onnx");
	cr_assert_eq(run_tool(&out, "scs4onnx-check", "'%s' --json -", path), 0, "%s", out);
	cr_expect(strstr(out, "\"valid\": true") != NULL, "%s", out);
	free(out);
	free(path);
	free(json);
	free(dir);
}
