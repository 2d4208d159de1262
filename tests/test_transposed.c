/*
 * test_transposed.c: 2-D constants stored twice, once transposed
 * (tests/e2e/gen_transposed_models.py): one copy kept, the other read
 * through a Transpose, only where ONNX Runtime computes the same bits; the
 * outputs read back with protobuf-c, checked by onnx.checker and compared
 * with their inputs in ONNX Runtime at optimization levels disabled and all.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/scope.h"
#include "shrink/pass.h"
#include "scs4onnx.h"
#include "support.h"

#define rep shrunk_rep

/* @out computes what fixture @name computes in ONNX Runtime at levels disabled and all, and
 * passes onnx.checker when @check (python3-onnx knows no opset past 17). */
static void
expect_same_everywhere(const char *name, const char *out, int check)
{
	char *in = fixture(name), *text;
	static const char *const levels[] = { "disabled", "all" };

	if (check) {
		cr_assert_eq(onnx_check(&text, out), 0, "%s: onnx.checker: %s", name, text);
		free(text);
	}
	for (size_t i = 0; i < 2; i++) {
		char extra[64];

		snprintf(extra, sizeof(extra), "--graph-opt %s", levels[i]);
		cr_assert_eq(ort_same(&text, in, out, extra), 0, "%s at %s: ONNX Runtime: %s", name, levels[i], text);
		cr_assert_not_null(strstr(text, "identical"), "%s", text);
		free(text);
	}
	free(in);
}

/* The output of shrink_fixture(). */
static char *
shrunk_path(void)
{
	return path_in(shrunk_dir, "out.onnx");
}

/* The node of @g whose output is @name: a Transpose with perm [1, 0] reading @input. */
static const Onnx__NodeProto *
expect_transpose(const Onnx__GraphProto *g, const char *name, const char *input)
{
	const Onnx__NodeProto *n = find_node_by_output(g, name);

	cr_assert_not_null(n, "no node makes %s", name);
	cr_assert_str_eq(n->op_type, "Transpose", "%s is made by %s", name, n->op_type);
	cr_assert_eq(n->n_input, 1);
	cr_assert_str_eq(n->input[0], input);
	cr_assert_eq(n->n_attribute, 1);
	cr_assert_str_eq(n->attribute[0]->name, "perm");
	cr_assert_eq(n->attribute[0]->n_ints, 2);
	cr_assert(n->attribute[0]->ints[0] == 1 && n->attribute[0]->ints[1] == 0, "perm is not [1, 0]");
	return n;
}

/* @g has @n Gemm nodes, each reading @kept as B with transB=1, and no MatMul reading @gone. */
static void
expect_gemm(const Onnx__GraphProto *g, const char *kept, const char *gone, size_t n)
{
	size_t found = 0;

	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *node = g->node[i];

		if (strcmp(node->op_type, "MatMul") == 0)
			cr_assert(node->n_input < 2 || strcmp(node->input[1], gone) != 0, "a MatMul still reads %s", gone);
		if (strcmp(node->op_type, "Gemm") != 0)
			continue;
		cr_assert(node->n_input >= 2 && strcmp(node->input[1], kept) == 0, "a Gemm reads %s, not %s", node->input[1],
		    kept);
		cr_assert(node->n_attribute == 1 && strcmp(node->attribute[0]->name, "transB") == 0 &&
		    node->attribute[0]->i == 1, "a Gemm without transB=1");
		found++;
	}
	cr_assert_eq(found, n, "%zu Gemm nodes read %s, %zu expected", found, kept, n);
	cr_assert_null(find_node_by_output(g, gone), "a node still makes %s", gone);
}

/* The report lists @name as rewritten, its detail starting with @detail. */
static void
expect_listed(const scs_report *r, const char *name, const char *detail)
{
	for (size_t i = 0; i < r->transposed.n; i++)
		if (strcmp(r->transposed.items[i].name, name) == 0) {
			cr_assert(strncmp(r->transposed.items[i].detail, detail, strlen(detail)) == 0, "%s: %s", name,
			    r->transposed.items[i].detail);
			return;
		}
	cr_assert_fail("%s is not among the transposed copies (%zu)", name, r->transposed.n);
}

/* The report says @name was left alone for a reason containing @why. */
static void
expect_skipped(const scs_report *r, const char *name, const char *why)
{
	for (size_t i = 0; i < r->skipped.n; i++)
		if (strcmp(r->skipped.items[i].name, name) == 0) {
			cr_assert_not_null(strstr(r->skipped.items[i].detail, why), "%s: %s", name, r->skipped.items[i].detail);
			return;
		}
	cr_assert_fail("%s is not among the constants left alone (%zu)", name, r->skipped.n);
}

/* A second shrink of @out writes the same bytes and rewrites nothing. */
static void
expect_second_run_changes_nothing(const char *out, const scs_shrink_options *opts)
{
	scs_report again = SCS_REPORT_INIT;
	char *out2 = path_in(shrunk_dir, "again.onnx");
	uint8_t *a, *b;
	size_t la, lb;

	cr_assert_eq(scs_shrink(&again, out, out2, opts), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(again.transposed.n, 0, "the second run rewrote %zu", again.transposed.n);
	cr_assert_eq(again.bytes_before, again.bytes_after);
	a = read_model_and_data(out, &la);
	b = read_model_and_data(out2, &lb);
	cr_assert(la == lb && memcmp(a, b, la) == 0, "a second shrink changed the model (%zu -> %zu bytes)", la, lb);
	free(a);
	free(b);
	free(out2);
	scs_report_dispose(&again);
}

/*
 * The GPT-like tied embedding: wte [50, 12] read by two Gathers, wte_T
 * [12, 50] by two MatMuls (3-D and 2-D activations). ONNX Runtime prepacks a
 * MatMul's constant weight, so a MatMul of a Transpose node rounds otherwise
 * at level disabled: the MatMuls become Gemm(h, wte, transB=1) (with Reshape
 * around the 3-D one), wte is kept and wte_T goes; no Transpose is left.
 */
static void
expect_tied_embedding(const char *name, const char *dtype, size_t esize, int check)
{
	Onnx__GraphProto *g = shrink_fixture(name, NULL);
	char *out = shrunk_path(), detail[64];

	cr_assert_not_null(find_init(g, "wte"), "%s: the Gathers' copy is kept", name);
	cr_assert_null(find_init(g, "wte_T"), "%s: the MatMuls' copy is gone", name);
	expect_gemm(g, "wte", "wte_T", 2);
	cr_assert_eq(count_ops(g, "Transpose"), 0);
	cr_assert_eq(count_ops(g, "Gather"), 2);
	cr_assert_eq(count_ops(g, "MatMul"), 0);
	cr_assert_eq(count_ops(g, "Reshape"), 2, "the 3-D activation to 2-D and back");
	cr_assert_eq(rep.transposed.n, 1);
	snprintf(detail, sizeof(detail), "Gemm(transB=1) of wte [50, 12] %s, ", dtype);
	expect_listed(&rep, "wte_T", detail);
	cr_assert_eq(rep.bytes_transposed, 50 * 12 * esize);
	cr_assert_eq(rep.bytes_before, 2 * 50 * 12 * esize, "bytes before: %llu", (unsigned long long)rep.bytes_before);
	/* the constant bytes are halved (and the Reshape's few shape values added) */
	cr_assert(rep.bytes_after >= 50 * 12 * esize && rep.bytes_after <= 50 * 12 * esize + 64, "bytes after: %llu",
	    (unsigned long long)rep.bytes_after);
	expect_second_run_changes_nothing(out, NULL);
	expect_same_everywhere(name, out, check);
	free(out);
}

Test(transposed, tied_embedding_float32_opset17_float_data, .init = shrink_setup, .fini = shrink_teardown)
{
	expect_tied_embedding("tr_gpt_f32_17.onnx", "float32", 4, 1);
}

Test(transposed, tied_embedding_float32_opset21_raw, .init = shrink_setup, .fini = shrink_teardown)
{
	expect_tied_embedding("tr_gpt_f32_21.onnx", "float32", 4, 0);
}

Test(transposed, tied_embedding_float16_opset17_int32_data, .init = shrink_setup, .fini = shrink_teardown)
{
	expect_tied_embedding("tr_gpt_f16_17.onnx", "float16", 2, 1);
}

Test(transposed, tied_embedding_float16_opset21_raw, .init = shrink_setup, .fini = shrink_teardown)
{
	expect_tied_embedding("tr_gpt_f16_21.onnx", "float16", 2, 0);
}

/* wte [600, 512] (1.2 MiB, over one store chunk) of fixture @name: typed (in the store) against raw (in the
 * file), with @store_dir, and confirmed in blocks of @block bytes (0: the default). */
static void
expect_chunk_of(const char *name, const char *store_dir, size_t block)
{
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	Onnx__GraphProto *g;
	char *out;

	o.store_dir = store_dir;
	scs_pass_transposed_block_for_tests(block);
	g = shrink_fixture(name, &o);
	scs_pass_transposed_block_for_tests(0);
	out = shrunk_path();
	cr_assert_not_null(find_init(g, "wte"));
	cr_assert_null(find_init(g, "wte_T"));
	expect_gemm(g, "wte", "wte_T", 2);
	expect_listed(&rep, "wte_T", "Gemm(transB=1) of wte [600, 512] float32, 1.2 MiB");
	cr_assert_eq(rep.bytes_transposed, 600 * 512 * 4);
	cr_assert(rep.bytes_after >= 600 * 512 * 4 && rep.bytes_after <= 600 * 512 * 4 + 64);
	expect_same_everywhere(name, out, 1);
	free(out);
}

static void
expect_chunk(const char *store_dir, size_t block)
{
	expect_chunk_of("tr_chunk.onnx", store_dir, block);
}

/* wte in the file, wte_T in the store: the store's side is read in blocks, the file's in segments */
Test(transposed, a_payload_over_one_store_chunk_the_other_way_round, .init = shrink_setup, .fini = shrink_teardown)
{
	expect_chunk_of("tr_chunk_swap.onnx", NULL, 0);
	scs_report_dispose(&rep);
	free_proto(shrunk_model);
	shrunk_model = NULL;
	expect_chunk_of("tr_chunk_swap.onnx", NULL, 3000);
}

Test(transposed, a_payload_over_one_store_chunk, .init = shrink_setup, .fini = shrink_teardown)
{
	expect_chunk(NULL, 0);
}

Test(transposed, a_payload_over_one_store_chunk_with_a_store, .init = shrink_setup, .fini = shrink_teardown)
{
	char *store = path_in(shrunk_dir, "store");

	expect_chunk(store, 0);
	free(store);
}

Test(transposed, a_payload_confirmed_in_many_blocks, .init = shrink_setup, .fini = shrink_teardown)
{
	expect_chunk(NULL, 4096);       /* two rows a block */
}

Test(transposed, a_payload_confirmed_in_column_bands_from_a_store, .init = shrink_setup, .fini = shrink_teardown)
{
	char *store = path_in(shrunk_dir, "store");

	expect_chunk(store, 1000);      /* 250 of the 512 columns a band */
	free(store);
}

/* A difference past the first block is found: the near miss confirmed in blocks of 8 bytes. */
Test(transposed, a_difference_in_a_later_block_is_found, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g;

	scs_pass_transposed_block_for_tests(8);
	g = shrink_fixture("tr_near.onnx", NULL);
	scs_pass_transposed_block_for_tests(0);
	cr_assert_not_null(find_init(g, "N"));
	cr_assert_not_null(find_init(g, "N_T"));
	cr_assert_null(find_init(g, "R"));
	cr_assert_null(find_node_by_output(g, "R"));
	cr_assert_eq(count_ops(g, "Gemm"), 2, "R's MatMul and M_T's read R_T and M through Gemm");
}

Test(transposed, pairs_in_if_bodies, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_if.onnx", NULL), *then_g, *else_g;
	char *out = shrunk_path();
	const Onnx__NodeProto *n;

	then_g = subgraph(g, "If", "then_branch");
	else_g = subgraph(g, "If", "else_branch");
	cr_assert(then_g && else_g);
	/* both copies in the then branch: P (read by MatMul) kept, P_T a Transpose at the front */
	cr_assert_not_null(find_init(then_g, "P"));
	cr_assert_null(find_init(then_g, "P_T"));
	n = expect_transpose(then_g, "P_T", "P");
	cr_assert_eq(then_g->node[0], n);
	/* A_T, a Constant node of the else branch, reads A of the main graph: replaced where it was */
	cr_assert_not_null(find_init(g, "A"));
	n = expect_transpose(else_g, "A_T", "A");
	cr_assert_eq(else_g->node[1], n, "the Constant node is replaced in place");
	cr_assert_str_eq(n->name, "const_A_T");
	cr_assert_eq(count_ops(else_g, "Constant"), 0);
	cr_assert_eq(rep.transposed.n, 2);
	expect_listed(&rep, "P_T", "Transpose(P) [5, 7] float32");
	expect_listed(&rep, "A_T", "Transpose(A) [5, 6] float32");
	cr_assert_eq(rep.bytes_after * 2, rep.bytes_before);
	expect_second_run_changes_nothing(out, NULL);
	expect_same_everywhere("tr_if.onnx", out, 1);
	free(out);
}

Test(transposed, copies_in_sibling_bodies_are_left_with_a_reason, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_sibling.onnx", NULL);
	char *out = shrunk_path();

	cr_assert_eq(rep.transposed.n, 0);
	cr_assert_eq(count_ops(subgraph(g, "If", "then_branch"), "Constant"), 1);
	cr_assert_eq(count_ops(subgraph(g, "If", "else_branch"), "Constant"), 1);
	expect_skipped(&rep, "K_T", "equal to 'K' transposed, but the graph of the copy to keep does not enclose it");
	expect_same_everywhere("tr_sibling.onnx", out, 1);
	free(out);
}

/* A Loop body whose carried input has the kept copy's name: a Transpose there would read that input. */
Test(transposed, a_name_a_body_defines_again_is_not_captured, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_capture.onnx", NULL), *body = subgraph(g, "Loop", "body");
	char *out = shrunk_path();

	cr_assert_not_null(body);
	cr_assert_eq(count_ops(body, "Constant"), 1, "A_T stays");
	cr_assert_eq(count_ops(body, "Transpose"), 0);
	cr_assert_eq(rep.transposed.n, 0);
	expect_skipped(&rep, "A_T", "equal to 'A' transposed, but a graph between them defines that name");
	expect_same_everywhere("tr_capture.onnx", out, 1);
	free(out);
}

Test(transposed, constant_nodes, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_const.onnx", NULL);
	char *out = shrunk_path();
	const Onnx__NodeProto *c = find_node_by_output(g, "C");

	/* C_T came first but is read by a Gather: it reads C, whose Constant node moves to the front */
	expect_transpose(g, "C_T", "C");
	cr_assert_not_null(c);
	cr_assert_str_eq(c->op_type, "Constant");
	cr_assert_eq(g->node[0], c, "the kept Constant node goes first");
	cr_assert_eq(count_ops(g, "Constant"), 1);
	expect_listed(&rep, "C_T", "Transpose(C) [9, 4] float32, 144 bytes");
	cr_assert_eq(rep.bytes_after, 144);
	expect_second_run_changes_nothing(out, NULL);
	expect_same_everywhere("tr_const.onnx", out, 1);
	free(out);
}

Test(transposed, square_pairs_and_identical_copies, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_square.onnx", NULL);
	char *out = shrunk_path();

	cr_assert_not_null(find_init(g, "S_T"));
	cr_assert_null(find_init(g, "S"));
	cr_assert_eq(count_ops(g, "Transpose"), 0);
	/* the symmetric Q and its copy are the dedup's: merged, no Transpose */
	cr_assert_not_null(find_init(g, "Q"));
	cr_assert_null(find_init(g, "Q2"));
	cr_assert_null(find_node_by_output(g, "Q2"));
	cr_assert_eq(rep.n_groups, 1);
	cr_assert_eq(rep.transposed.n, 1);
	expect_listed(&rep, "S", "Gemm(transB=1) of S_T [8, 8] float32");
	expect_same_everywhere("tr_square.onnx", out, 1);
	free(out);
}

Test(transposed, int8_weights_read_by_dequantize_linear, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_qdq.onnx", NULL);
	char *out = shrunk_path();

	cr_assert_not_null(find_init(g, "W"));
	cr_assert_null(find_init(g, "W_T"));
	expect_transpose(g, "W_T", "W");
	expect_listed(&rep, "W_T", "Transpose(W) [8, 16] int8, 128 bytes");
	cr_assert_eq(rep.bytes_transposed, 128);
	expect_second_run_changes_nothing(out, NULL);
	expect_same_everywhere("tr_qdq.onnx", out, 1);
	free(out);
}

Test(transposed, ir_version_3, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_ir3.onnx", NULL);
	char *out = shrunk_path();

	cr_assert_not_null(find_init(g, "W"));
	cr_assert(has_input(g, "W"), "IR 3 lists the initializers among the inputs");
	cr_assert_null(find_init(g, "W_T"));
	cr_assert_not(has_input(g, "W_T"), "the removed copy is no input any more");
	expect_transpose(g, "W_T", "W");
	cr_assert_eq(rep.transposed.n, 1);
	expect_second_run_changes_nothing(out, NULL);
	expect_same_everywhere("tr_ir3.onnx", out, 1);
	free(out);
}

Test(transposed, near_misses_and_reshapes, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g;
	char *out;

	/* the element that differs is one the signatures do not read, so only the byte compare tells */
	cr_assert_not(scs_pass_transposed_sampled(12, 10, 3, 5));
	cr_assert_not(scs_pass_transposed_sampled(10, 12, 5, 3));
	g = shrink_fixture("tr_near.onnx", NULL);
	out = shrunk_path();
	cr_assert_not_null(find_init(g, "N"));
	cr_assert_not_null(find_init(g, "N_T"));
	cr_assert_eq(count_ops(g, "Transpose"), 0);
	/* [1, 20] and [20, 1]: the same bytes, a reshape or a transpose; R's MatMul reads R_T through Gemm */
	cr_assert_not_null(find_init(g, "R_T"));
	cr_assert_null(find_init(g, "R"));
	expect_listed(&rep, "R", "Gemm(transB=1) of R_T [20, 1] float32, 80 bytes");
	/* both read by MatMul's weight: the later one's MatMul reads the first through Gemm */
	cr_assert_not_null(find_init(g, "M"));
	cr_assert_null(find_init(g, "M_T"));
	expect_listed(&rep, "M_T", "Gemm(transB=1) of M [3, 4] float32");
	cr_assert_eq(count_ops(g, "Gemm"), 2);
	cr_assert_eq(count_ops(g, "MatMul"), 2, "those of N and of the kept M");
	cr_assert_eq(rep.transposed.n, 2);
	expect_same_everywhere("tr_near.onnx", out, 1);
	free(out);
}

Test(transposed, a_graph_output_is_kept_never_rewritten, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_outputs.onnx", NULL);
	char *out = shrunk_path();

	/* O came first, but O_T is a graph output: O reads it */
	cr_assert_not_null(find_init(g, "O_T"));
	cr_assert_null(find_init(g, "O"));
	expect_transpose(g, "O", "O_T");
	cr_assert_not_null(find_init(g, "G"));
	cr_assert_not_null(find_init(g, "G_T"));
	cr_assert_eq(rep.transposed.n, 1);
	expect_same_everywhere("tr_outputs.onnx", out, 1);
	free(out);
}

Test(transposed, an_overridable_default_is_never_touched, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_default.onnx", NULL);

	cr_assert_not_null(find_init(g, "D"));
	cr_assert(has_input(g, "D"));
	cr_assert_not_null(find_init(g, "D_T"));
	cr_assert_eq(count_ops(g, "Transpose"), 0);
	cr_assert_eq(rep.transposed.n, 0);
	cr_assert_eq(rep.bytes_before, rep.bytes_after);
	{
		char *out = shrunk_path();

		expect_same_everywhere("tr_default.onnx", out, 1);
		free(out);
	}
}

Test(transposed, keep_transposed_keeps_both_copies, .init = shrink_setup, .fini = shrink_teardown)
{
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	Onnx__GraphProto *g;

	o.keep_transposed = 1;
	g = shrink_fixture("tr_gpt_f32_21.onnx", &o);
	cr_assert_not_null(find_init(g, "wte"));
	cr_assert_not_null(find_init(g, "wte_T"));
	cr_assert_eq(count_ops(g, "Transpose"), 0);
	cr_assert_eq(rep.transposed.n, 0);
	cr_assert_eq(rep.bytes_transposed, 0);
}

/* A Transpose of the model's opset must take the element type: bfloat16 from opset 13 on. */
Test(transposed, only_where_the_opsets_transpose_takes_the_type, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink_fixture("tr_bf16_op12.onnx", NULL);

	cr_assert_not_null(find_init(g, "W"));
	cr_assert_not_null(find_init(g, "W_T"));
	cr_assert_eq(rep.transposed.n, 0);
	expect_skipped(&rep, "W_T", "Transpose of this opset does not take its element type");
	scs_report_dispose(&rep);
	free_proto(shrunk_model);
	g = shrink_fixture("tr_bf16_op13.onnx", NULL);
	cr_assert_null(find_init(g, "W_T"));
	expect_transpose(g, "W_T", "W");
	expect_listed(&rep, "W_T", "Transpose(W) [6, 4] bfloat16, 48 bytes");
}

/* npy mode and forced extraction export constants by name: no rewrite takes one away. */
Test(transposed, not_with_npy_mode_or_forced_extraction, .init = shrink_setup, .fini = shrink_teardown)
{
	const char *names[] = { "wte" };
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	Onnx__GraphProto *g;

	o.forced_constant_names = names;
	o.n_forced_constant_names = 1;
	g = shrink_fixture("tr_gpt_f32_21.onnx", &o);
	cr_assert_eq(rep.transposed.n, 0);
	cr_assert_eq(rep.npy.n, 1, "wte is exported");
	cr_assert_str_eq(rep.npy.items[0].name, "wte");
	cr_assert_null(find_init(g, "wte"), "wte is a graph input now");
	cr_assert_not_null(find_init(g, "wte_T"));
	cr_assert_eq(count_ops(g, "Transpose"), 0);
}

/* The tool's summary line and JSON, and --keep-transposed. */
Test(transposed, the_tool_reports_the_rewrite_and_takes_keep_transposed, .init = shrink_setup, .fini = shrink_teardown)
{
	char *in = fixture("tr_gpt_f16_21.onnx"), *out = path_in(shrunk_dir, "cli.onnx"),
	    *kept = path_in(shrunk_dir, "kept.onnx"), *json = path_in(shrunk_dir, "r.json"), *text, *j;
	Onnx__ModelProto *m;
	size_t len;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --json '%s'", in, out, json), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: transposed: wte_T: Gemm(transB=1) of wte [50, 12] float16, 1.2 KiB\n"),
	    "%s", text);
	cr_assert_not_null(strstr(text, "INFO: transposed copies removed (read through the kept one): 1, 1200 bytes\n"), "%s", text);
	free(text);
	j = (char *)read_all(json, &len);
	cr_assert_not_null(j);
	j[len] = '\0';
	cr_assert_not_null(strstr(j, "\"transposed\": [\n    {\"name\": \"wte_T\", \"rewrite\": \"Gemm(transB=1) of wte [50, 12] "
	    "float16, 1.2 KiB\"}"), "%s", j);
	cr_assert_not_null(strstr(j, "\"bytes_transposed\": 1200"), "%s", j);
	free(j);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' --keep-transposed", in, kept), 0, "%s", text);
	cr_assert_null(strstr(text, "transposed"), "%s", text);
	free(text);
	m = load_proto(kept);
	cr_assert_not_null(find_init(m->graph, "wte"));
	cr_assert_not_null(find_init(m->graph, "wte_T"));
	free_proto(m);
	free(in);
	free(out);
	free(kept);
	free(json);
}

/* scs4onnx-big: with a 3K shard budget wte and wte_T fall into different shards; the joined model finds them. */
Test(transposed, big_finds_a_pair_split_across_shards, .init = shrink_setup, .fini = shrink_teardown)
{
	scs_big_options o = SCS_BIG_OPTIONS_INIT;
	char *in = fixture("tr_gpt_f32_21.onnx"), *out = path_in(shrunk_dir, "big.onnx"), *shards = path_in(shrunk_dir, "sh"),
	    *text;
	Onnx__ModelProto *m;
	int n;

	/* the shards as split cuts them: each copy in a shard of its own */
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 3K", in, shards), 0, "%s", text);
	free(text);
	free(shard_list(shards, &n));
	cr_assert_geq(n, 2);
	for (int k = 0; k < n; k++) {
		char name[32], *p;
		Onnx__ModelProto *s;

		snprintf(name, sizeof(name), "shard-%03d.onnx", k);
		p = path_in(shards, name);
		s = load_proto(p);
		cr_assert_not(find_init(s->graph, "wte") && find_init(s->graph, "wte_T"), "%s holds both copies", name);
		free_proto(s);
		free(p);
	}
	o.max_shard_len = 3 << 10;
	cr_assert_eq(scs_big(&rep, in, out, &o), SCS_OK, "%s", scs_err_msg());
	cr_assert_geq(rep.n_shards, 2);
	cr_assert_eq(rep.transposed.n, 1);
	expect_listed(&rep, "wte_T", "Gemm(transB=1) of wte [50, 12] float32");
	m = load_proto(out);
	cr_assert_not_null(find_init(m->graph, "wte"));
	cr_assert_null(find_init(m->graph, "wte_T"));
	expect_gemm(m->graph, "wte", "wte_T", 2);
	cr_assert(rep.bytes_after >= 2400 && rep.bytes_after <= 2400 + 64);
	free_proto(m);
	expect_same_everywhere("tr_gpt_f32_21.onnx", out, 0);
	free(in);
	free(out);
	free(shards);
}

/* scs4onnx-merge of those shards: after its global dedup. */
Test(transposed, merge_finds_a_pair_split_across_shards, .init = shrink_setup, .fini = shrink_teardown)
{
	scs_merge_options o = SCS_MERGE_OPTIONS_INIT;
	char *in = fixture("tr_gpt_f32_21.onnx"), *out = path_in(shrunk_dir, "merged.onnx"),
	    *shards = path_in(shrunk_dir, "sh"), *text;
	Onnx__ModelProto *m;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 3K", in, shards), 0, "%s", text);
	free(text);
	cr_assert_eq(scs_merge(&rep, shards, out, &o), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(rep.transposed.n, 1);
	m = load_proto(out);
	expect_gemm(m->graph, "wte", "wte_T", 2);
	free_proto(m);
	scs_report_dispose(&rep);
	o.keep_transposed = 1;
	cr_assert_eq(scs_merge(&rep, shards, out, &o), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(rep.transposed.n, 0);
	m = load_proto(out);
	cr_assert_not_null(find_init(m->graph, "wte"));
	free_proto(m);
	free(in);
	free(out);
	free(shards);
}

/* Across models (the share tool's case): the rewritten copy reads a new constant of its own model holding
 * the kept copy's payload. The first model's copy is a MatMul's weight: its MatMul reads the second
 * model's table through Gemm(transB=1). */
Test(transposed, across_models_the_later_copy_reads_its_own_constant_of_the_kept_payload)
{
	scs_store *store = NULL;
	scs_model *a = NULL, *b = NULL, *both[2];
	scs_transposed_result res;
	char *pa = fixture("tr_pair_a.onnx"), *pb = fixture("tr_pair_b.onnx");
	Onnx__TensorProto *kept = NULL, *holder = NULL;
	uint32_t ida, idb;

	cr_assert_eq(scs_store_open(&store, NULL, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load(&a, pa, store, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load_with(&b, pb, a, NULL), SCS_OK, "%s", scs_err_msg());
	both[0] = a;
	both[1] = b;
	memset(&res, 0, sizeof(res));
	cr_assert_eq(scs_pass_transposed(both, 2, &res), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(res.rewritten.n, 1);
	cr_assert_str_eq(res.rewritten.items[0].name, "wte_T");
	cr_assert_eq(res.bytes, 2400);
	kept = find_init(b->proto->graph, "wte");
	cr_assert_not_null(kept, "the second model keeps its table");
	cr_assert_null(find_init(a->proto->graph, "wte_T"));
	holder = find_init(a->proto->graph, "wte");
	cr_assert_not_null(holder, "the first model holds a constant of its own");
	cr_assert(scs_model_payload_of(b, kept, &idb) && scs_model_payload_of(a, holder, &ida));
	cr_assert_eq(ida, idb, "the same payload");
	cr_assert(holder->n_dims == 2 && holder->dims[0] == 50 && holder->dims[1] == 12);
	expect_gemm(a->proto->graph, "wte", "wte_T", 1);
	scs_transposed_result_dispose(&res);
	scs_model_free(b);
	scs_model_free(a);
	scs_store_close(store);
	free(pa);
	free(pb);
}
