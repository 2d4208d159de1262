/*
 * test_dedup.c: the dedup rules, checked on real models (tests/e2e/gen_models.py)
 * by reading the output back with protobuf-c.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/hash.h"
#include "scs4onnx.h"
#include "support.h"

#define rep shrunk_rep

static Onnx__GraphProto *
shrink(const char *name)
{
	return shrink_fixture(name, NULL);
}

Test(dedup, initializers_and_constant_nodes_merge_into_the_first, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("dup_basic.onnx");

	cr_assert_not_null(find_init(g, "W1"));
	cr_assert_null(find_init(g, "W2"));
	cr_assert_null(find_init(g, "W3"));
	cr_assert_null(find_node_by_output(g, "Cw"), "the Constant copy is gone");
	cr_assert(uses(g, "W1"));
	cr_assert_not(uses(g, "W2") || uses(g, "W3") || uses(g, "Cw"), "a reference was not rewritten");
	cr_assert_eq(rep.n_groups, 3, "groups: %zu", rep.n_groups);
	cr_assert_eq(rep.bytes_before - rep.bytes_after, 4 * 48 + 4, "three copies of W1, one of G and O1b removed");
}

Test(dedup, graph_inputs_and_outputs_keep_their_names, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("dup_basic.onnx");

	cr_assert_not_null(find_init(g, "D"), "an overridable default must stay");
	cr_assert(has_input(g, "D"));
	cr_assert(uses(g, "D"));
	cr_assert_not_null(find_init(g, "G"), "a graph output keeps its constant");
	cr_assert_null(find_init(g, "G2"), "the copy of a graph output merges into it");
	cr_assert(uses(g, "G"));
}

Test(dedup, scalars_are_left_alone, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("dup_basic.onnx");

	cr_assert_not_null(find_init(g, "S"));
	cr_assert_not_null(find_init(g, "S2"), "rank-0 copies stay");
	cr_assert_eq(rep.n_scalars, 2, "scalars: %llu", (unsigned long long)rep.n_scalars);
	/* one element of rank 1 is not a scalar (as in scs4onnx) */
	cr_assert_not_null(find_init(g, "O1"));
	cr_assert_null(find_init(g, "O1b"));
}

Test(dedup, copies_in_both_branches_of_an_if_are_lifted, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("if_outer.onnx"), *then_g, *else_g;
	const char *name;

	cr_assert_eq(rep.n_groups, 1);
	cr_assert_eq(rep.groups[0].lifted, 1);
	name = rep.groups[0].canonical;
	cr_assert_not_null(find_init(g, name), "no lifted copy '%s' in the main graph", name);
	/* a lifted copy joins the graph's initializers at the end */
	cr_assert_eq(g->n_initializer, 2);
	cr_assert_str_eq(g->initializer[0]->name, "M");
	cr_assert_str_eq(g->initializer[1]->name, name);
	then_g = subgraph(g, "If", "then_branch");
	else_g = subgraph(g, "If", "else_branch");
	cr_assert_eq(count_ops(then_g, "Constant") + count_ops(else_g, "Constant"), 0);
	cr_assert(uses(then_g, name) && uses(else_g, name), "branches must read the lifted '%s'", name);
	cr_assert(uses(then_g, "M") && uses(else_g, "M"), "outer-scope references stay");
}

Test(dedup, a_loop_body_copy_reads_the_outer_constant, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("loop_dup.onnx"), *body = subgraph(g, "Loop", "body");

	cr_assert_not_null(find_init(g, "K"));
	cr_assert_eq(count_ops(body, "Constant"), 0, "the body's copy is gone");
	cr_assert(uses(body, "K"), "the body reads the outer K");
}

Test(dedup, nested_branches_share_the_outermost_copy, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("nested_if.onnx"), *outer_then = subgraph(g, "If", "then_branch");
	Onnx__GraphProto *outer_else = subgraph(g, "If", "else_branch");

	cr_assert_not_null(find_init(g, "P0"));
	cr_assert_null(find_node_by_output(outer_else, "out_else_P"));
	cr_assert_null(find_node_by_output(outer_else, "out_else_Q"), "an equal constant under another name too");
	cr_assert(uses(outer_else, "P0"));
	cr_assert(uses(subgraph(outer_then, "If", "then_branch"), "P0"));
	cr_assert(uses(subgraph(outer_then, "If", "else_branch"), "P0"));
}

Test(dedup, a_name_shadowed_in_a_nested_graph_is_not_captured, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("shadow.onnx");

	cr_assert_not_null(find_init(g, "A"));
	cr_assert_not_null(find_init(g, "B"), "B may not become A: a nested graph defines its own A");
	cr_assert(uses(subgraph(g, "If", "then_branch"), "B"));
	cr_assert_eq(rep.skipped.n, 1);
	cr_assert_str_eq(rep.skipped.items[0].name, "B");
}

Test(dedup, colliding_keys_never_merge_different_bytes, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g;

	scs_hash_collide_for_tests(1);
	g = shrink("dup_basic.onnx");
	scs_hash_collide_for_tests(0);
	/* W1 and G have equal type, dims and (forced) keys, but different bytes */
	cr_assert_not_null(find_init(g, "W1"));
	cr_assert_not_null(find_init(g, "G"));
	cr_assert_null(find_init(g, "W2"));
	cr_assert_null(find_init(g, "G2"));
	cr_assert_eq(rep.n_groups, 3, "groups: %zu", rep.n_groups);
}

Test(dedup, the_same_content_in_other_encodings_merges, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__GraphProto *g = shrink("dup_encodings.onnx");

	cr_assert_null(find_init(g, "F_typed"));
	cr_assert_null(find_init(g, "L_typed"));
	cr_assert_null(find_init(g, "H_typed"));
	cr_assert_null(find_init(g, "Dd_raw"));
	cr_assert_null(find_init(g, "Str2"), "string tensors merge too");
	cr_assert_eq(rep.n_groups, 5, "groups: %zu", rep.n_groups);
}

Test(dedup, copies_inside_a_function_body_merge, .init = shrink_setup, .fini = shrink_teardown)
{
	Onnx__FunctionProto *f;

	shrink("func_dup.onnx");
	cr_assert_eq(shrunk_model->n_functions, 1);
	f = shrunk_model->functions[0];
	cr_assert_eq(f->n_node, 3, "one Constant left: %zu nodes", f->n_node);
	cr_assert_str_eq(f->node[0]->op_type, "Constant");
	cr_assert_str_eq(f->node[0]->output[0], "fk1");
	cr_assert_str_eq(f->node[2]->input[1], "fk1", "the second Add reads the kept copy");
}

Test(dedup, a_heap_report_gives_the_json_the_tools_write)
{
	char *dir = tmpdir_new();
	char *in = fixture("dup_basic.onnx");
	char *out = path_in(dir, "out.onnx");
	scs_report *r = scs_report_new();
	cr_assert_not_null(r);
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	cr_assert_eq(scs_shrink(r, in, out, &o), SCS_OK, "%s", scs_err_msg());
	char *json = scs_report_json(r);
	cr_assert_not_null(json);
	cr_assert(strstr(json, "\"constants\": ") != NULL, "%s", json);
	cr_assert(strstr(json, "\"W2\"") != NULL, "the merged names are listed: %s", json);
	cr_assert_eq(r->n_groups, 3);
	cr_assert_str_eq(scs_version(), SCS_VERSION);
	scs_free(json);
	scs_report_free(r);
	scs_report_free(NULL);
	free(out);
	free(in);
	tmpdir_remove(dir);
}

/*
 * Thousands of copies in a few groups (scripts/gen-model.py dups: constant
 * i of the chain equals constant i mod 7): one group per value, kept under
 * the first name, the others listed in the model's order; every reference
 * rewritten, and the model computes what it did.
 */
Test(dedup, thousands_of_copies_merge_into_their_groups, .init = shrink_setup, .fini = shrink_teardown)
{
	enum { COUNT = 6000, GROUPS = 7 };
	char *in = path_in(shrunk_dir, "dups.onnx"), *out = path_in(shrunk_dir, "out.onnx"), *text, name[32];
	Onnx__GraphProto *g;
	size_t seen[GROUPS] = { 0 };

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' dups '%s' --count %d --groups %d",
	    SCS_TEST_SRC_DIR, in, COUNT, GROUPS), 0, "%s", text);
	free(text);
	cr_assert_eq(scs_shrink(&rep, in, out, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(rep.n_constants, COUNT);
	cr_assert_eq(rep.n_groups, GROUPS, "groups: %zu", rep.n_groups);
	for (size_t k = 0; k < rep.n_groups; k++) {
		scs_report_group *gr = &rep.groups[k];
		int v;

		cr_assert_eq(sscanf(gr->canonical, "const_%d", &v), 1, "canonical %s", gr->canonical);
		cr_assert(v >= 0 && v < GROUPS, "canonical %s: not the first copy", gr->canonical);
		cr_assert_eq(seen[v]++, 0, "two groups keep %s", gr->canonical);
		cr_assert_not(gr->lifted);
		cr_assert_eq(gr->n_names, (size_t)((COUNT - v + GROUPS - 1) / GROUPS - 1), "%s: %zu names", gr->canonical, gr->n_names);
		for (size_t j = 0; j < gr->n_names; j++) {
			snprintf(name, sizeof(name), "const_%zu", (size_t)v + (j + 1) * GROUPS);
			cr_assert_str_eq(gr->names[j], name, "%s: name %zu", gr->canonical, j);
		}
	}
	shrunk_model = load_proto(out);
	cr_assert_not_null(shrunk_model);
	g = shrunk_model->graph;
	cr_assert_eq(g->n_initializer, GROUPS, "initializers: %zu", g->n_initializer);
	cr_assert_eq(g->n_node, COUNT);
	for (size_t i = 0; i < g->n_node; i++) {
		snprintf(name, sizeof(name), "const_%zu", i % GROUPS);
		cr_assert_eq(g->node[i]->n_input, 2);
		cr_assert_str_eq(g->node[i]->input[1], name, "node %zu reads %s", i, g->node[i]->input[1]);
	}
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
}

/*
 * Thousands of distinct constants (scripts/gen-model.py many): each is
 * counted as studied, none merges, and the output keeps every one of them
 * in its place, under its name, with its value.
 */
Test(dedup, thousands_of_distinct_constants_stay_as_they_were, .init = shrink_setup, .fini = shrink_teardown)
{
	enum { COUNT = 5000 };
	char *in = path_in(shrunk_dir, "many.onnx"), *out = path_in(shrunk_dir, "out.onnx"), *text, name[32];
	Onnx__ModelProto *before;
	Onnx__GraphProto *g;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' many '%s' --count %d",
	    SCS_TEST_SRC_DIR, in, COUNT), 0, "%s", text);
	free(text);
	cr_assert_eq(scs_shrink(&rep, in, out, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(rep.n_constants, COUNT);
	cr_assert_eq(rep.n_groups, 0, "groups: %zu", rep.n_groups);
	cr_assert_eq(rep.bytes_before, rep.bytes_after);
	shrunk_model = load_proto(out);
	cr_assert_not_null(shrunk_model);
	before = load_proto(in);
	cr_assert_not_null(before);
	g = shrunk_model->graph;
	cr_assert_eq(g->n_initializer, COUNT, "initializers: %zu", g->n_initializer);
	for (size_t i = 0; i < g->n_initializer; i++) {
		Onnx__TensorProto *a = before->graph->initializer[i], *b = g->initializer[i];

		snprintf(name, sizeof(name), "const_%zu", i);
		cr_assert_str_eq(b->name, name);
		cr_assert_eq(b->data_type, a->data_type);
		cr_assert_eq(b->n_dims, 1);
		cr_assert_eq(b->dims[0], a->dims[0]);
		cr_assert_eq(b->raw_data.len, a->raw_data.len);
		cr_assert_arr_eq(b->raw_data.data, a->raw_data.data, a->raw_data.len, "%s: another value", name);
	}
	protobuf_c_message_free_unpacked(&before->base, NULL);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
}

/*
 * Initializers of every kind in one list (tests/e2e/gen_models.py
 * dup_mixed): the copies go, the others stay in their order, each with
 * what it had (a doc_string, strings), and the model computes what it did.
 */
Test(dedup, initializers_of_every_kind_keep_their_order_and_fields, .init = shrink_setup, .fini = shrink_teardown)
{
	static const char *const kept[] = { "A", "B_doc", "C_typed", "S_str", "E" };
	Onnx__GraphProto *g = shrink("dup_mixed.onnx");
	char *in = fixture("dup_mixed.onnx"), *out = path_in(shrunk_dir, "out.onnx");

	cr_assert_eq(rep.n_groups, 3, "groups: %zu", rep.n_groups);
	cr_assert_eq(g->n_initializer, 5, "initializers: %zu", g->n_initializer);
	for (size_t i = 0; i < 5; i++)
		cr_assert_str_eq(g->initializer[i]->name, kept[i], "initializer %zu", i);
	cr_assert_str_eq(g->initializer[1]->doc_string, "documented");
	cr_assert_eq(g->initializer[3]->n_string_data, 2);
	cr_assert_eq(g->initializer[3]->string_data[1].len, 2);
	cr_assert(uses(g, "A") && uses(g, "B_doc") && uses(g, "C_typed"));
	cr_assert_not(uses(g, "A2") || uses(g, "B2") || uses(g, "C2"), "a reference was not rewritten");
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
}
