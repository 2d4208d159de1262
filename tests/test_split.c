/*
 * test_split.c: scs4onnx-split, scs4onnx-merge and scs4onnx-big on real
 * models. Shards are checked with onnx.checker and run in order in ONNX
 * Runtime; merged models are compared with their source structurally
 * (read back with protobuf-c) and in ONNX Runtime.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "support.h"

typedef struct model_name {
	char name[32];
} model_name;

ParameterizedTestParameters(split, shards_run_in_order_and_merge_back)
{
	static model_name names[] = { { "dup_basic.onnx" }, { "dup_encodings.onnx" }, { "if_outer.onnx" },
		{ "shadow.onnx" }, { "downcast.onnx" }, { "external.onnx" }, { "loop_dup.onnx" }, { "nested_if.onnx" },
		{ "func_dup.onnx" }, { "slice.onnx" } };

	return cr_make_param_array(model_name, names, sizeof(names) / sizeof(names[0]));
}

ParameterizedTest(model_name *p, split, shards_run_in_order_and_merge_back)
{
	char *dir = tmpdir_new(), *in = fixture(p->name), *shards = path_in(dir, "shards"), *out = path_in(dir, "m.onnx"),
	     *text;

	/* a tiny budget: every node (with what it reads) nearly a shard of its own */
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 300 -n", in, shards), 0, "%s", text);
	free(text);
	expect_shards_compute(in, shards);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' -n", shards, out), 0, "%s", text);
	free(text);
	expect_equivalent(in, out, NULL);
	free(in);
	free(shards);
	free(out);
	tmpdir_remove(dir);
}

static int
same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* A node of @g with the same op, inputs and outputs as @n. */
static int
has_same_node(const Onnx__GraphProto *g, const Onnx__NodeProto *n)
{
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *o = g->node[i];
		int same = same_str(o->op_type, n->op_type) && o->n_input == n->n_input && o->n_output == n->n_output;

		for (size_t j = 0; same && j < n->n_input; j++)
			same = strcmp(o->input[j], n->input[j]) == 0;
		for (size_t j = 0; same && j < n->n_output; j++)
			same = strcmp(o->output[j], n->output[j]) == 0;
		if (same)
			return 1;
	}
	return 0;
}

Test(split, merge_of_split_is_the_model_again)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *shards = path_in(dir, "shards"),
	     *out = path_in(dir, "m.onnx"), *text;
	Onnx__ModelProto *a, *b;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 300 -n", in, shards), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' --no-dedup -n", shards, out), 0, "%s", text);
	free(text);
	a = load_proto(in);
	b = load_proto(out);
	cr_assert(a && b);
	cr_assert_eq(b->ir_version, a->ir_version);
	cr_assert_str_eq(b->producer_name, a->producer_name);
	cr_assert_eq(b->n_opset_import, a->n_opset_import);
	for (size_t i = 0; i < a->n_opset_import; i++) {
		cr_assert(same_str(b->opset_import[i]->domain, a->opset_import[i]->domain));
		cr_assert_eq(b->opset_import[i]->version, a->opset_import[i]->version);
	}
	cr_assert_eq(b->n_metadata_props, a->n_metadata_props, "shard metadata must not survive the merge");
	cr_assert_eq(b->graph->n_input, a->graph->n_input);
	for (size_t i = 0; i < a->graph->n_input; i++)
		cr_assert_str_eq(b->graph->input[i]->name, a->graph->input[i]->name, "inputs keep their order");
	cr_assert_eq(b->graph->n_output, a->graph->n_output);
	for (size_t i = 0; i < a->graph->n_output; i++)
		cr_assert_str_eq(b->graph->output[i]->name, a->graph->output[i]->name, "outputs keep their order");
	cr_assert_eq(b->graph->n_node, a->graph->n_node, "nodes: %zu, source %zu", b->graph->n_node, a->graph->n_node);
	for (size_t i = 0; i < a->graph->n_node; i++)
		cr_assert(has_same_node(b->graph, a->graph->node[i]), "node %zu (%s) is missing", i, a->graph->node[i]->op_type);
	cr_assert_eq(b->graph->n_initializer, a->graph->n_initializer);
	for (size_t i = 0; i < a->graph->n_initializer; i++) {
		Onnx__TensorProto *ta = a->graph->initializer[i], *tb = find_init(b->graph, ta->name);

		cr_assert_not_null(tb, "initializer %s is missing", ta->name);
		cr_assert_eq(tb->data_type, ta->data_type);
		cr_assert_eq(tb->raw_data.len, ta->raw_data.len);
		cr_assert_arr_eq(tb->raw_data.data, ta->raw_data.data, ta->raw_data.len, "%s: other bytes", ta->name);
	}
	free_proto(a);
	free_proto(b);
	free(in);
	free(shards);
	free(out);
	tmpdir_remove(dir);
}

/* An LLM-shaped model with external data and one tensor larger than the budget. */
static char *llm_dir, *llm;

static void
make_llm(void)
{
	char *text;

	llm_dir = tmpdir_new();
	llm = path_in(llm_dir, "llm.onnx");
	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' llm '%s' --size 40M --external --big-tensor 9M",
	    SCS_TEST_SRC_DIR, llm), 0, "%s", text);
	free(text);
}

static void
drop_llm(void)
{
	free(llm);
	tmpdir_remove(llm_dir);
}

Test(split, every_shard_is_under_the_budget_and_big_tensors_go_beside, .init = make_llm, .fini = drop_llm)
{
	char *shards = path_in(llm_dir, "shards"), *text, *data;
	struct dirent **list;
	int n, n_onnx = 0;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 8M", llm, shards), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: shards: "), "%s", text);
	free(text);
	n = scandir(shards, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char *p = path_in(shards, list[i]->d_name);
		size_t nl = strlen(list[i]->d_name);

		if (nl > 5 && strcmp(list[i]->d_name + nl - 5, ".onnx") == 0) {
			n_onnx++;
			cr_assert_leq(file_size(p), (uint64_t)8 << 20, "%s: %llu bytes", p, (unsigned long long)file_size(p));
		}
		free(p);
		free(list[i]);
	}
	free(list);
	cr_assert_geq(n_onnx, 4, "shards: %d", n_onnx);
	{
		char *first = path_in(shards, "shard-000.onnx");

		data = data_file_beside(first);
		free(first);
	}
	cr_assert_not_null(data, "no data file beside shard-000.onnx");
	cr_assert_geq(file_size(data), (uint64_t)9 << 20, "the 9 MiB tensor goes beside its shard");
	free(data);
	expect_shards_compute(llm, shards);
	free(shards);
}

Test(split, big_equals_the_stepwise_pipeline, .init = make_llm, .fini = drop_llm)
{
	char *shards = path_in(llm_dir, "shards"), *shrunk = path_in(llm_dir, "shrunk"), *step = path_in(llm_dir, "step.onnx"),
	     *big = path_in(llm_dir, "big.onnx"), *text;
	uint8_t *a, *b;
	size_t la, lb;
	int count;
	char *list;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 8M -n", llm, shards), 0, "%s", text);
	free(text);
	list = shard_list(shards, &count);
	cr_assert_eq(run(&text, "mkdir '%s' && for f in %s; do '%s/scs4onnx-shrink' \"$f\" '%s'/$(basename \"$f\") -n || exit 1; done",
	    shrunk, list, SCS_TOOLS_DIR, shrunk), 0, "%s", text);
	free(text);
	free(list);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' -n", shrunk, step), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s' --max-shard-size 8M", llm, big), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: stage merge"), "no stage report: %s", text);
	free(text);
	a = read_all(step, &la);
	b = read_all(big, &lb);
	cr_assert_eq(la, lb, "big wrote %zu bytes, the pipeline %zu", lb, la);
	cr_assert_arr_eq(a, b, la, "big and the pipeline wrote different models");
	free(a);
	free(b);
	expect_equivalent(llm, big, NULL);
	free(shards);
	free(shrunk);
	free(step);
	free(big);
}

/* ---- bad shard sets ---- */

static char *bad_dir, *bad_shards, *bad_out;

static void
make_shards(void)
{
	char *in = fixture("dup_basic.onnx"), *text;

	bad_dir = tmpdir_new();
	bad_shards = path_in(bad_dir, "shards");
	bad_out = path_in(bad_dir, "out.onnx");
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 300 -n", in, bad_shards), 0, "%s", text);
	free(text);
	free(in);
}

static void
drop_shards(void)
{
	free(bad_shards);
	free(bad_out);
	tmpdir_remove(bad_dir);
}

static void
expect_merge_refused(const char *what)
{
	char *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s'", bad_shards, bad_out), 1, "%s", text);
	cr_assert_eq(strncmp(text, "scs4onnx-merge: error: ", 23), 0, "%s", text);
	cr_assert_not_null(strstr(text, what), "wanted '%s' in: %s", what, text);
	cr_assert_eq(strchr(text, '\n') - text + 1, (long)strlen(text), "more than one line: %s", text);
	cr_assert_not(file_exists(bad_out), "an output was written");
	free(text);
}

/* Rewrite a shard with protobuf-c (not with the code under test). */
static void
edit_shard(const char *name, void (*edit)(Onnx__ModelProto *))
{
	char *path = path_in(bad_shards, name);
	Onnx__ModelProto *m = load_proto(path);
	size_t len;
	uint8_t *buf;

	cr_assert_not_null(m);
	edit(m);
	len = onnx__model_proto__get_packed_size(m);
	buf = malloc(len);
	onnx__model_proto__pack(m, buf);
	write_all(path, buf, len);
	free(buf);
	free_proto(m);
	free(path);
}

Test(merge, a_missing_shard, .init = make_shards, .fini = drop_shards)
{
	run(NULL, "rm '%s/shard-001.onnx'", bad_shards);
	expect_merge_refused("a shard is missing");
}

Test(merge, two_shards_with_the_same_index, .init = make_shards, .fini = drop_shards)
{
	run(NULL, "cp '%s/shard-000.onnx' '%s/shard-000b.onnx' && rm '%s/shard-001.onnx'", bad_shards, bad_shards, bad_shards);
	expect_merge_refused("both are shard 0");
}

Test(merge, a_shard_of_another_model, .init = make_shards, .fini = drop_shards)
{
	char *other = fixture("downcast.onnx"), *odir = path_in(bad_dir, "other");

	cr_assert_eq(run_tool(NULL, "scs4onnx-split", "'%s' '%s' --max-shard-size 300 -n", other, odir), 0);
	run(NULL, "cp '%s/shard-001.onnx' '%s/shard-001.onnx'", odir, bad_shards);
	expect_merge_refused("a shard of another model");
	free(other);
	free(odir);
}

static void
rename_an_input(Onnx__ModelProto *m)
{
	Onnx__GraphProto *g = m->graph;
	const char *old = g->input[0]->name;

	for (size_t i = 0; i < g->n_node; i++)
		for (size_t j = 0; j < g->node[i]->n_input; j++)
			if (strcmp(g->node[i]->input[j], old) == 0) {
				free(g->node[i]->input[j]);
				g->node[i]->input[j] = strdup("made_by_nobody");
			}
	free(g->input[0]->name);
	g->input[0]->name = strdup("made_by_nobody");
}

Test(merge, a_cut_tensor_no_shard_makes, .init = make_shards, .fini = drop_shards)
{
	edit_shard("shard-002.onnx", rename_an_input);
	expect_merge_refused("input 'made_by_nobody' is neither an input of the model nor made by an earlier shard");
}

/* Replace the value of metadata @key of @m with @value. */
static void
set_meta(Onnx__ModelProto *m, const char *key, const char *value)
{
	for (size_t i = 0; i < m->n_metadata_props; i++)
		if (strcmp(m->metadata_props[i]->key, key) == 0) {
			free(m->metadata_props[i]->value);
			m->metadata_props[i]->value = strdup(value);
			return;
		}
	cr_assert_fail("no metadata '%s'", key);
}

static const char *new_header;

static void
set_header(Onnx__ModelProto *m)
{
	set_meta(m, "scs4onnx.header", new_header);
}

/* base64 that goes wrong after a few good quads (the fuzzer: the bytes
 * decoded so far were not freed) */
Test(merge, a_shard_header_that_is_not_base64, .init = make_shards, .fini = drop_shards)
{
	new_header = "CAgSFXNjczRvbm54!!!!";
	edit_shard("shard-000.onnx", set_header);
	expect_merge_refused("shard header: bad base64 character at 16");
}

/* an empty header parses as a ModelProto without a graph (the fuzzer: that
 * message was not freed) */
Test(merge, a_shard_header_without_a_graph, .init = make_shards, .fini = drop_shards)
{
	new_header = "";
	edit_shard("shard-000.onnx", set_header);
	expect_merge_refused("the shard header does not parse");
}

/* shard 0 of n, its index spelled 2^32 (sscanf's %d read it as 0) */
static void
index_past_int(Onnx__ModelProto *m)
{
	char tag[64] = "";

	for (size_t i = 0; i < m->n_metadata_props; i++)
		if (strcmp(m->metadata_props[i]->key, "scs4onnx.shard") == 0)
			snprintf(tag, sizeof(tag), "4294967296%s", strchr(m->metadata_props[i]->value, '/'));
	set_meta(m, "scs4onnx.shard", tag);
}

Test(merge, a_shard_index_past_int_is_no_index, .init = make_shards, .fini = drop_shards)
{
	edit_shard("shard-000.onnx", index_past_int);
	expect_merge_refused("shard-000.onnx: not a shard written by scs4onnx-split (no valid scs4onnx.shard metadata)");
}

static void
change_w1(Onnx__ModelProto *m)
{
	Onnx__TensorProto *t = find_init(m->graph, "W1");

	cr_assert_not_null(t, "this shard holds no copy of W1");
	t->raw_data.data[0] ^= 0x55;
}

Test(merge, conflicting_initializers_name_both_shards)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *shrunk = path_in(dir, "s.onnx"), *text;

	/* after dedup W1 is read by four nodes, so shards hold copies of it */
	bad_dir = dir;
	bad_shards = path_in(dir, "shards");
	bad_out = path_in(dir, "out.onnx");
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n", in, shrunk), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 120 -n", shrunk, bad_shards), 0, "%s", text);
	free(text);
	edit_shard("shard-001.onnx", change_w1);
	expect_merge_refused("initializer 'W1' differs between");
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s'", bad_shards, bad_out), 1);
	cr_assert_not_null(strstr(text, "shard-000.onnx and"), "both shards are named: %s", text);
	cr_assert_not_null(strstr(text, "shard-001.onnx"), "both shards are named: %s", text);
	free(text);
	free(in);
	free(shrunk);
	drop_shards();
}

Test(merge, an_output_folder_with_files_is_refused_by_split)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *stray = path_in(dir, "notes.txt"), *text;

	write_all(stray, "x", 1);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s'", in, dir), 1, "%s", text);
	cr_assert_not_null(strstr(text, "not empty"), "%s", text);
	cr_assert_eq(count_files(dir, ""), 3, "split wrote into a folder with files");
	free(text);
	free(in);
	free(stray);
	tmpdir_remove(dir);
}

Test(split, a_budget_under_every_node_gives_each_node_a_shard)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *shards = path_in(dir, "shards"), *text;
	int count;

	/* dup_basic: ten nodes besides one Constant (copied where read), every value typed */
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 1 -n", in, shards), 0, "%s", text);
	free(text);
	free(shard_list(shards, &count));
	cr_assert_eq(count, 10, "shards: %d", count);
	expect_shards_compute(in, shards);
	free(in);
	free(shards);
	tmpdir_remove(dir);
}

Test(split, a_shard_of_dead_ends_gives_what_its_nodes_make)
{
	char *dir = tmpdir_new(), *in = fixture("dead_end.onnx"), *shards = path_in(dir, "shards"), *text, *p;
	Onnx__ModelProto *m;
	int count;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 1 -n", in, shards), 0, "%s", text);
	free(text);
	free(shard_list(shards, &count));
	cr_assert_eq(count, 3, "shards: %d", count);
	for (int k = 0; k < count; k++) {
		char name[32];

		snprintf(name, sizeof(name), "shard-%03d.onnx", k);
		p = path_in(shards, name);
		m = load_proto(p);
		cr_assert_not_null(m, "%s", p);
		cr_assert_gt(m->graph->n_output, 0, "%s has no output", name);
		free_proto(m);
		free(p);
	}
	expect_shards_compute(in, shards);
	expect_split_merge_big(in, "1", 3);
	free(in);
	free(shards);
	tmpdir_remove(dir);
}

Test(split, nodes_written_out_of_order_are_sorted_first)
{
	char *dir = tmpdir_new(), *in = fixture("unsorted.onnx"), *shards = path_in(dir, "shards"), *text;
	Onnx__ModelProto *first;
	char *p;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 100 -n", in, shards), 0, "%s", text);
	free(text);
	p = path_in(shards, "shard-000.onnx");
	first = load_proto(p);
	cr_assert_not_null(first);
	cr_assert_str_eq(first->graph->node[0]->name, "first", "the first shard starts where the data flow starts");
	free_proto(first);
	free(p);
	expect_shards_compute(in, shards);
	free(in);
	free(shards);
	tmpdir_remove(dir);
}

Test(split, an_initializer_read_in_several_shards_is_copied_into_each)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *shrunk = path_in(dir, "s.onnx"),
	     *shards = path_in(dir, "shards"), *p0 = path_in(shards, "shard-000.onnx"), *p1 = path_in(shards, "shard-001.onnx"),
	     *text;
	Onnx__ModelProto *a, *b;

	/* after dedup, W1 is read by four Adds; a small budget puts them in two shards */
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n", in, shrunk), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 120 -n", shrunk, shards), 0, "%s", text);
	free(text);
	a = load_proto(p0);
	b = load_proto(p1);
	cr_assert(a && b);
	cr_assert_not_null(find_init(a->graph, "W1"));
	cr_assert_not_null(find_init(b->graph, "W1"));
	free_proto(a);
	free_proto(b);
	expect_shards_compute(shrunk, shards);
	free(in);
	free(shrunk);
	free(shards);
	free(p0);
	free(p1);
	tmpdir_remove(dir);
}

Test(merge, shards_rewritten_by_another_tool_merge_by_name)
{
	char *dir = tmpdir_new(), *in = fixture("dup_basic.onnx"), *shards = path_in(dir, "shards"),
	     *out = path_in(dir, "m.onnx"), *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 300 -n", in, shards), 0, "%s", text);
	free(text);
	/* onnx (python) rewrites shard 1: every node input now passes through an Identity first */
	cr_assert_eq(run(&text, "/usr/bin/python3 -c \"import onnx, onnx.helper as h; p = '%s/shard-001.onnx'; "
	    "m = onnx.load(p); g = m.graph; ids = []\n"
	    "for n in g.node:\n"
	    "    for k, x in enumerate(n.input):\n"
	    "        ids.append(h.make_node('Identity', [x], [x + '_via_id'])); n.input[k] = x + '_via_id'\n"
	    "nodes = ids + list(g.node); del g.node[:]; g.node.extend(nodes); onnx.save(m, p)\"", shards), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' -n", shards, out), 0, "%s", text);
	free(text);
	expect_equivalent(in, out, NULL);
	free(in);
	free(shards);
	free(out);
	tmpdir_remove(dir);
}

/*
 * A chain of 3,000 Adds (scripts/gen-model.py many: node i adds constant
 * const_i) cut at a 4 KiB budget: tens of shards, each a run of the chain
 * holding the constants its nodes read, whose one cut input is the one cut
 * output of the shard before; merged back, the chain is whole again; the
 * shards, the merged model and scs4onnx-big's output compute what the
 * chain computes.
 */
Test(split, a_long_chain_cuts_into_shards_that_chain)
{
	enum { COUNT = 3000 };
	char *dir = tmpdir_new(), *in = path_in(dir, "chain.onnx"), *shards = path_in(dir, "shards"),
	     *merged = path_in(dir, "merged.onnx"), *text, name[64];
	const char *prev_out = NULL;
	Onnx__ModelProto *prev = NULL, *m;
	size_t at = 0;
	int count, tagged;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' many '%s' --count %d", SCS_TEST_SRC_DIR, in,
	    COUNT), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 4K -n", in, shards), 0, "%s", text);
	free(text);
	free(shard_list(shards, &count));
	cr_assert_geq(count, 30, "shards: %d", count);
	for (int k = 0; k < count; k++) {
		Onnx__GraphProto *g;
		char *p;

		snprintf(name, sizeof(name), "shard-%03d.onnx", k);
		p = path_in(shards, name);
		m = load_proto(p);
		free(p);
		cr_assert_not_null(m, "shard %d does not parse", k);
		g = m->graph;
		cr_assert_gt(g->n_node, 0, "shard %d is empty", k);
		cr_assert_eq(g->n_initializer, g->n_node, "shard %d: %zu constants for %zu nodes", k, g->n_initializer, g->n_node);
		/* its nodes are the next run of the chain, each with its own constant */
		for (size_t i = 0; i < g->n_node; i++, at++) {
			snprintf(name, sizeof(name), "n%zu_Add", at);
			cr_assert_str_eq(g->node[i]->name, name, "shard %d, node %zu", k, i);
			snprintf(name, sizeof(name), "const_%zu", at);
			cr_assert_str_eq(g->node[i]->input[1], name);
			cr_assert_not_null(find_init(g, name), "shard %d lacks %s", k, name);
		}
		/* one input: the model's X, or what the shard before passes on */
		cr_assert_eq(g->n_input, 1, "shard %d: %zu inputs", k, g->n_input);
		cr_assert_str_eq(g->input[0]->name, k == 0 ? "X" : prev_out, "shard %d reads %s", k, g->input[0]->name);
		cr_assert_str_eq(g->node[0]->input[0], g->input[0]->name);
		/* one output: its last node's, Y at the end */
		cr_assert_eq(g->n_output, 1, "shard %d: %zu outputs", k, g->n_output);
		cr_assert_str_eq(g->output[0]->name, g->node[g->n_node - 1]->output[0]);
		if (k == count - 1)
			cr_assert_str_eq(g->output[0]->name, "Y");
		snprintf(name, sizeof(name), "%d/%d", k, count);
		tagged = 0;
		for (size_t i = 0; i < m->n_metadata_props; i++) {
			if (strcmp(m->metadata_props[i]->key, "scs4onnx.shard") != 0)
				continue;
			cr_assert_str_eq(m->metadata_props[i]->value, name, "shard %d says %s", k, m->metadata_props[i]->value);
			tagged++;
		}
		cr_assert_eq(tagged, 1, "shard %d: %d shard tags", k, tagged);
		free_proto(prev);
		prev = m;
		prev_out = g->output[0]->name;
	}
	free_proto(prev);
	cr_assert_eq(at, COUNT, "the shards hold %zu nodes", at);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' -n", shards, merged), 0, "%s", text);
	free(text);
	m = load_proto(merged);
	cr_assert_not_null(m);
	cr_assert_eq(m->graph->n_node, COUNT, "merged: %zu nodes", m->graph->n_node);
	cr_assert_eq(m->graph->n_initializer, COUNT, "merged: %zu constants", m->graph->n_initializer);
	cr_assert_eq(m->n_metadata_props, 0);
	free_proto(m);
	expect_split_merge_big(in, "4K", 30);
	free(in);
	free(shards);
	free(merged);
	tmpdir_remove(dir);
}

/* Slice reads K with E (one type variable), Reshape reads K as its shape. */
static const char kept_apart_py[] =
    "import sys, numpy as np, onnx\n"
    "from onnx import helper as h, numpy_helper as nh, TensorProto as T\n"
    "nodes = [h.make_node(\"Slice\", [\"X\", \"K\", \"E\"], [\"s\"], name=\"slice\"),\n"
    "         h.make_node(\"ReduceSum\", [\"s\"], [\"r\"], keepdims=1, name=\"sum\"),\n"
    "         h.make_node(\"Reshape\", [\"r\", \"K\"], [\"Y\"], name=\"reshape\")]\n"
    "inits = [nh.from_array(np.array([1], np.int64), \"K\"), nh.from_array(np.array([3], np.int64), \"E\")]\n"
    "g = h.make_graph(nodes, \"kept_apart\", [h.make_tensor_value_info(\"X\", T.FLOAT, [4])],\n"
    "                [h.make_tensor_value_info(\"Y\", T.FLOAT, [1])], inits)\n"
    "m = h.make_model(g, opset_imports=[h.make_opsetid(\"\", 13)])\n"
    "m.ir_version = 8\n"
    "onnx.checker.check_model(m)\n"
    "onnx.save(m, sys.argv[1])\n";

/*
 * Shards shrunk on their own hold K at two widths: narrowed with E where
 * Slice reads it, int64 where Reshape does. The wide K cannot serve Slice
 * alone (E shares its type variable), so merge keeps the narrow copy under
 * a fresh name and only Slice reads it.
 */
Test(merge, a_narrow_copy_kept_apart_is_read_under_its_fresh_name)
{
	char *dir = tmpdir_new(), *in = path_in(dir, "kept.onnx"), *shards = path_in(dir, "shards"),
	     *shrunk = path_in(dir, "shrunk"), *out = path_in(dir, "merged.onnx"), *text;
	Onnx__ModelProto *m;
	Onnx__TensorProto *k, *fresh;

	cr_assert_eq(run(&text, "/usr/bin/python3 -c '%s' '%s'", kept_apart_py, in), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s' --max-shard-size 1 -n", in, shards), 0, "%s", text);
	free(text);
	shrink_shards(shards, shrunk);
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' -n", shrunk, out), 0, "%s", text);
	free(text);
	m = load_proto(out);
	cr_assert_not_null(m);
	k = find_init(m->graph, "K");
	fresh = find_init(m->graph, "K_scs1");
	cr_assert(k && fresh, "K and its narrow copy K_scs1 are both kept");
	cr_assert_eq(k->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
	cr_assert_eq(fresh->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT32);
	cr_assert_str_eq(find_node_by_output(m->graph, "s")->input[1], "K_scs1", "Slice reads the narrow copy");
	cr_assert_str_eq(find_node_by_output(m->graph, "Y")->input[1], "K", "Reshape reads the wide K");
	free_proto(m);
	expect_equivalent(in, out, NULL);
	free(in);
	free(shards);
	free(shrunk);
	free(out);
	tmpdir_remove(dir);
}
