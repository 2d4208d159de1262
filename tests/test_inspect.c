/*
 * test_inspect.c: scs_inspect and scs4onnx-inspect, on the models of
 * tests/e2e/gen_inspect_models.py and other suites' fixtures. The JSON
 * (read by tests/e2e/check_inspect.py) gives the node counts python3-onnx
 * counts, the inputs' shapes with their symbolic dims, each constant's
 * bytes and place (typed fields, inline, which data file), the data files'
 * layout, the duplicates and downcasts; "shrink would save" equals, byte
 * for byte, what scs4onnx-shrink then saves (files on disk), and the
 * optimize dry run equals scs4onnx-optimize's report; the writer's sizing
 * equals what it writes, inline, external and in numbered files; the HTML
 * page, rendered in headless Chromium, shows the treemap's rectangles in
 * proportion to the bytes and fetches nothing; bad input gets one line and
 * exit status 1, and no file.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "io/commit.h"
#include "io/store.h"
#include "model/emit.h"
#include "model/model.h"

#define CHECK "/usr/bin/python3 '" SCS_TEST_SRC_DIR "/tests/e2e/check_inspect.py'"

static char *dir;

static void
setup(void)
{
	dir = tmpdir_new();
}

static void
teardown(void)
{
	tmpdir_remove(dir);
}

/* scs4onnx-inspect of fixture @name with --json into dir/@json (and @extra); it must succeed. */
static char *
inspect_json(const char *name, const char *json, const char *extra)
{
	char *in = fixture(name), *out = path_in(dir, json), *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-inspect", "'%s' -n --json '%s' %s", in, out, extra ? extra : ""), 0,
	    "%s: %s", name, text);
	free(text);
	free(in);
	return out;
}

/* check_inspect.py's answer to @args_fmt (one "ok" line wanted). */
static void
expect_check(const char *what, const char *args_fmt, ...) __attribute__((format(printf, 2, 3)));

static void
expect_check(const char *what, const char *args_fmt, ...)
{
	char args[8192], *text;
	va_list ap;

	va_start(ap, args_fmt);
	vsnprintf(args, sizeof(args), args_fmt, ap);
	va_end(ap);
	cr_assert_eq(run(&text, CHECK " %s", args), 0, "%s: %s", what, text);
	cr_expect_str_eq(text, "ok\n", "%s: %s", what, text);
	free(text);
}

/* The values of @keys (space-separated check_inspect.py keys) in @json, one a line, must be @want. */
static void
expect_values(const char *json, const char *keys, const char *want)
{
	char *text;

	cr_assert_eq(run(&text, CHECK " get '%s' %s", json, keys), 0, "%s", text);
	cr_expect_str_eq(text, want, "%s: %s", keys, text);
	free(text);
}

Test(inspect, nested_model_counts_shapes_constants_and_duplicates, .init = setup, .fini = teardown)
{
	char *json = inspect_json("insp_nested.onnx", "n.json", NULL), *model = fixture("insp_nested.onnx");

	expect_check("insp_nested node counts", "nodes '%s' '%s'", json, model);
	/* functions, quantized, opset 21 */
	for (size_t i = 0; i < 3; i++) {
		static const char *const others[] = { "func_dup.onnx", "qdq21.onnx", "bench_bert18.onnx" };
		char *other = fixture(others[i]), *other_json = inspect_json(others[i], "o.json", NULL);

		expect_check(others[i], "nodes '%s' '%s'", other_json, other);
		free(other_json);
		free(other);
	}
	expect_values(json, "ir_version opset_import nodes.main nodes.all nodes.graphs",
	    "8\n[{\"domain\": \"\", \"version\": 17}]\n10\n15\n4\n");
	expect_values(json, "inputs outputs.name=e.shape initializer_inputs",
	    "[{\"name\": \"x\", \"type\": \"float32\", \"shape\": [\"batch\", 8]}, "
	    "{\"name\": \"cond\", \"type\": \"bool\", \"shape\": []}, "
	    "{\"name\": \"trip\", \"type\": \"int64\", \"shape\": []}]\n[\"batch\", 20]\n0\n");
	/* every graph's constants, typed encodings included, with their readers */
	expect_values(json, "constants.count constants.bytes constants.unread",
	    "10\n3416\n0\n");
	expect_values(json, "constants.largest.name=B constants.largest.name=H16 constants.largest.name=D64.where "
	    "constants.largest.name=KT.read_by constants.largest.name=L.where",
	    "{\"name\": \"B\", \"type\": \"float32\", \"dims\": [16], \"bytes\": 64, \"where\": \"inline (typed fields)\", "
	    "\"read_by\": [\"Add\"]}\n"
	    "{\"name\": \"H16\", \"type\": \"float16\", \"dims\": [16], \"bytes\": 32, \"where\": \"inline (typed fields)\", "
	    "\"read_by\": [\"Cast\"]}\n\"inline (typed fields)\"\n[\"Add\"]\n\"inline\"\n");
	expect_values(json, "nodes.by_operator.op=MatMul.constant_bytes nodes.by_operator.op=Add.constants "
	    "nodes.by_operator.op=Add.constant_bytes",
	    "1792\n4\n256\n");
	/* B and its copies in the If branches and the Loop body; the transposed pair; the downcasts */
	expect_values(json, "duplicates.groups duplicates.transposed_bytes duplicates.downcast",
	    "[{\"kept\": \"B\", \"type\": \"float32\", \"bytes\": 64, \"copies\": [\"K2\", \"KT\", \"L\"]}]\n1280\n"
	    "[[\"idx\", \"int64 -> int32\"], [\"D64\", \"float64 -> float32\"]]\n");
	expect_values(json, "duplicates.transposed", "[[\"E_T\", \"Gemm(transB=1) of E [20, 16] float32, 1.2 KiB\"]]\n");
	free(model);
	free(json);
}

Test(inspect, text_summary_lists_what_the_json_holds, .init = setup, .fini = teardown)
{
	char *in = fixture("insp_nested.onnx"), *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-inspect", "'%s' --top 3", in), 0, "%s", text);
	cr_expect(strstr(text, "  x                        float32    [batch, 8]\n") != NULL, "%s", text);
	cr_expect(strstr(text, "nodes: 10 in the main graph, 15 in all 4 graphs") != NULL, "%s", text);
	cr_expect(strstr(text, "constants: 10, 3416 bytes (3.3 KiB); the 3 largest:\n") != NULL, "%s", text);
	cr_expect(strstr(text, "  W                                float32   [8, 16]  512 bytes, inline, read by MatMul\n")
	    != NULL, "%s", text);
	cr_expect(strstr(text, "  B                ") == NULL, "--top 3 lists B: %s", text);
	cr_expect(strstr(text, "  B (float32, 64 bytes) also as K2 KT L\n") != NULL, "%s", text);
	cr_expect(strstr(text, "  downcast: D64 float64 -> float32\n") != NULL, "%s", text);
	cr_expect(strstr(text, "scs4onnx-optimize would remove 4 nodes (15 -> 11)") != NULL, "%s", text);
	free(text);
	free(in);
}

Test(inspect, external_data_files_and_their_layout, .init = setup, .fini = teardown)
{
	char *json = inspect_json("insp_ext.onnx", "e.json", NULL), *a = fixture("insp_ext.a.data"),
	    *b = fixture("insp_ext.b.data"), want[8192];

	expect_values(json, "files.list.role=model.tensors files.list.role=model.tensor_bytes",
	    "1\n16\n");
	snprintf(want, sizeof(want), "{\"path\": \"%s\", \"role\": \"data\", \"bytes\": 8256, \"tensors\": 2, "
	    "\"tensor_bytes\": 8192, \"alignment\": 64}\n{\"path\": \"%s\", \"role\": \"data\", \"bytes\": 12288, "
	    "\"tensors\": 2, \"tensor_bytes\": 8192, \"alignment\": 8192}\n\"%s\"\n\"%s\"\n\"inline\"\n", a, b, a, b);
	{
		char keys[8192];

		snprintf(keys, sizeof(keys), "files.list.1 files.list.2 constants.largest.name=Q.where "
		    "constants.largest.name=S.where constants.largest.name=T.where");
		expect_values(json, keys, want);
	}
	expect_values(json, "files.bytes duplicates.groups", "21053\n[{\"kept\": \"P\", \"type\": \"float32\", "
	    "\"bytes\": 4096, \"copies\": [\"S\"]}]\n");
	free(a);
	free(b);
	free(json);
}

/* "shrink would save" of fixture @name against scs4onnx-shrink's run with its defaults. */
static void
expect_shrink_saving(const char *name)
{
	char *in = fixture(name), *json, *out_dir, *out, *rep, *text;

	json = inspect_json(name, "i.json", NULL);
	out_dir = path_in(dir, "out");
	cr_assert_eq(run(&text, "rm -rf '%s' && mkdir '%s'", out_dir, out_dir), 0, "%s", text);
	free(text);
	/* named like the input: a data file's name (in each location) starts with the output's */
	out = path_in(out_dir, name);
	rep = path_in(dir, "s.json");
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n --json '%s'", in, out, rep), 0, "%s: %s", name, text);
	free(text);
	expect_check(name, "vs-shrink '%s' '%s' '%s' '%s'", json, rep, in, out_dir);
	free(rep);
	free(out);
	free(out_dir);
	free(json);
	free(in);
}

Test(inspect, shrink_would_save_what_shrink_saves, .init = setup, .fini = teardown)
{
	/* nested bodies, external data (and its duplicate), typed encodings, a transposed pair, downcasts,
	 * IR 3 with every initializer an input, defaults among the inputs, many tensors */
	static const char *const names[] = { "insp_nested.onnx", "insp_ext.onnx", "insp_map.onnx", "tr_if.onnx",
		"tr_gpt_f16_17.onnx", "tr_ir3.onnx", "ir3_typed.onnx", "defaults_ir8.onnx", "downcast.onnx", "ds_typed.onnx",
		"ds_many.onnx", "shadow.onnx", "func_dup.onnx", "qdq21.onnx", "tr_qdq.onnx", "tr_gpt_f32_21.onnx",
		"nested_if.onnx" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		expect_shrink_saving(names[i]);
}

Test(inspect, optimize_dry_run_is_what_optimize_does, .init = setup, .fini = teardown)
{
	static const char *const names[] = { "insp_nested.onnx", "insp_ext.onnx", "nop_nested.onnx", "bench_bert13.onnx",
		"defaults_ir8.onnx", "tr_ir3.onnx", "func_dup.onnx", "qdq21.onnx", "tr_gpt_f32_21.onnx" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *in = fixture(names[i]), *json = inspect_json(names[i], "i.json", NULL), *out = path_in(dir, "o.onnx"),
		    *rep = path_in(dir, "o.json"), *text;

		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' -n -f --json '%s'", in, out, rep), 0, "%s: %s",
		    names[i], text);
		free(text);
		expect_check(names[i], "vs-optimize '%s' '%s'", json, rep);
		free(rep);
		free(out);
		free(json);
		free(in);
	}
}

/* scs_emit_size() of fixture @name with @eo against what scs_emit_write() writes with it; 1 when that is
 * external data. */
static int
expect_sized_as_written(const char *name, const scs_emit_options *eo)
{
	char *in = fixture(name), *out = path_in(dir, name);
	scs_emit_result sized, written;
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_commit *c = NULL;
	uint64_t on_disk = 0;
	char *text;

	cr_assert_eq(scs_store_open(&store, NULL, dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load_sealed(&m, in, store, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_emit_size(&sized, m, name, eo), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_files(&c, dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_emit_write(&written, m, c, name, eo), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_commit_run(c), SCS_OK, "%s", scs_err_msg());
	cr_expect_eq(sized.model_len, written.model_len, "%s: model %llu sized, %llu written", name,
	    (unsigned long long)sized.model_len, (unsigned long long)written.model_len);
	cr_expect_eq(sized.data_len, written.data_len, "%s: data %llu sized, %llu written", name,
	    (unsigned long long)sized.data_len, (unsigned long long)written.data_len);
	cr_expect_eq(sized.external, written.external, "%s", name);
	cr_expect_eq(sized.data.n_files, written.data.n_files, "%s", name);
	cr_assert_eq(run(&text, "cat '%s' '%s'.*.data 2>/dev/null | wc -c", out, out), 0, "%s", text);
	on_disk = strtoull(text, NULL, 10);
	free(text);
	cr_expect_eq(on_disk, sized.model_len + sized.data_len, "%s: %llu bytes on disk, %llu sized", name,
	    (unsigned long long)on_disk, (unsigned long long)(sized.model_len + sized.data_len));
	cr_assert_eq(run(&text, "rm -f '%s' '%s'.*.data", out, out), 0, "%s", text);
	free(text);
	scs_emit_result_dispose(&sized);
	scs_emit_result_dispose(&written);
	scs_model_free(m);
	scs_store_close(store);
	free(out);
	free(in);
	return written.external;
}

Test(inspect, writer_sizes_what_it_writes, .init = setup, .fini = teardown)
{
	static const char *const names[] = { "insp_nested.onnx", "insp_ext.onnx", "insp_map.onnx", "ds_many.onnx",
		"ds_typed.onnx", "tr_ir3.onnx" };
	scs_emit_options inline_opts = { 0 }, external = { 0 }, numbered = { 0 }, small = { 0 };
	int n_external = 0;

	external.external = 1;
	numbered.external = 1;
	numbered.max_file_len = 8192;
	/* over the inline maximum: external without asking */
	small.inline_max = 4096;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cr_expect_not(expect_sized_as_written(names[i], &inline_opts), "%s: external without asking", names[i]);
		n_external += expect_sized_as_written(names[i], &external);
		n_external += expect_sized_as_written(names[i], &numbered);
		n_external += expect_sized_as_written(names[i], &small);
	}
	/* every one but tr_ir3.onnx holds a tensor of 1 KiB or more */
	cr_expect_eq(n_external, 15, "%d runs wrote external data, 15 expected", n_external);
}

/* scs4onnx-inspect on @in must fail with one line naming @what, and write no --json file. */
static void
expect_refused(const char *in, const char *what)
{
	char *json = path_in(dir, "bad.json"), *text, *nl;

	cr_assert_eq(run_tool(&text, "scs4onnx-inspect", "'%s' --json '%s' --html '%s.html'", in, json, json), 1,
	    "%s: %s", in, text);
	nl = strchr(text, '\n');
	cr_expect(nl != NULL && nl[1] == '\0', "%s: not one line: %s", in, text);
	cr_expect(strncmp(text, "scs4onnx-inspect: error: ", 25) == 0, "%s: %s", in, text);
	cr_expect(strstr(text, what) != NULL, "%s: '%s' not named: %s", in, what, text);
	cr_expect_not(file_exists(json), "%s: a JSON file was written", in);
	free(text);
	free(json);
}

Test(inspect, bad_input_one_line_and_exit_1, .init = setup, .fini = teardown)
{
	char *missing = path_in(dir, "missing.onnx"), *junk = path_in(dir, "junk.onnx"), *cut = path_in(dir, "cut.onnx"),
	    *lone = path_in(dir, "insp_ext.onnx"), *src = fixture("insp_nested.onnx"), *ext = fixture("insp_ext.onnx"), *text;
	uint8_t *bytes;
	size_t len;

	expect_refused(missing, missing);
	write_all(junk, "this is not an ONNX model\n", 26);
	expect_refused(junk, junk);
	bytes = read_all(src, &len);
	write_all(cut, bytes, len / 2);
	free(bytes);
	expect_refused(cut, cut);
	/* external data missing beside the model */
	bytes = read_all(ext, &len);
	write_all(lone, bytes, len);
	free(bytes);
	expect_refused(lone, "insp_ext.a.data");
	expect_refused(dir, dir);
	/* usage: exit 2 */
	cr_expect_eq(run_tool(&text, "scs4onnx-inspect", "%s", ""), 2, "%s", text);
	free(text);
	cr_expect_eq(run_tool(&text, "scs4onnx-inspect", "'%s' --top 0", src), 2, "%s", text);
	free(text);
	cr_expect_eq(run_tool(&text, "scs4onnx-inspect", "'%s' --json '%s'", src, src), 2, "%s", text);
	free(text);
	bytes = read_all(src, &len);
	free(bytes);
	cr_expect_eq(file_size(src), len, "the model was written over");
	/* a data file (or any file but a report or a page) is never written over, checked before any work */
	cr_expect_eq(run_tool(&text, "scs4onnx-inspect", "'%s' -n --json '%s' --html '%s.html'", src, lone, junk), 1, "%s",
	    text);
	cr_expect(strstr(text, "exists and is not what --json writes") != NULL, "%s", text);
	free(text);
	cr_expect_eq(file_size(lone), file_size(ext), "--json wrote over a model");
	write_all(junk, "<!DOCTYPE html>\n", 16);
	cr_expect_eq(run_tool(&text, "scs4onnx-inspect", "'%s' -n --html '%s'", src, junk), 0, "a page not replaced: %s",
	    text);
	free(text);
	cr_expect_gt(file_size(junk), 1000, "the page was not written");
	cr_expect_eq(run_tool(&text, "scs4onnx-inspect", "'%s' -n --html '%s'", src, lone), 1, "%s", text);
	free(text);
	cr_expect_eq(file_size(lone), file_size(ext), "--html wrote over a model");
	free(missing);
	free(junk);
	free(cut);
	free(lone);
	free(src);
	free(ext);
}

Test(inspect, options_of_version_0_refused)
{
	scs_inspect_options o = { 0 };
	scs_inspect_result *r = (scs_inspect_result *)&o;
	char *in = fixture("insp_nested.onnx");

	cr_expect_eq(scs_inspect(&r, in, &o), SCS_EUSAGE);
	cr_expect_null(r);
	cr_expect(strstr(scs_err_msg(), "SCS_INSPECT_OPTIONS_INIT") != NULL, "%s", scs_err_msg());
	free(in);
}

Test(inspect, html_treemap_renders_in_chromium, .init = setup, .fini = teardown)
{
	char *in = fixture("insp_map.onnx"), *page = path_in(dir, "map.html"), *shot = path_in(dir, "map.png"),
	    *profile = path_in(dir, "profile"), *text;
	scs_inspect_options o = SCS_INSPECT_OPTIONS_INIT;
	scs_inspect_result *r = NULL;
	char *html;
	size_t len;

	cr_assert_eq(run_tool(&text, "scs4onnx-inspect", "'%s' -n --html '%s'", in, page), 0, "%s", text);
	free(text);
	/* the library's page is the tool's */
	cr_assert_eq(scs_inspect(&r, in, &o), SCS_OK, "%s", scs_err_msg());
	html = scs_inspect_html(r);
	cr_assert_not_null(html);
	text = (char *)read_all(page, &len);
	cr_assert_not_null(text);
	text[len] = '\0';
	cr_expect_str_eq(text, html, "the tool's page is not the library's");
	/* the tables: the largest constant's row */
	cr_expect(strstr(html, "<tr><td>T0</td><td>float32</td><td>[50000]</td><td class=\"n\">200000</td><td>inline</td>"
	    "<td>Add</td></tr>") != NULL, "%s", html);
	free(text);
	scs_free(html);
	scs_inspect_free(r);
	cr_assert_eq(run(&text, "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
	    "--force-device-scale-factor=1 --user-data-dir='%s' --screenshot='%s' --window-size=1200,900 'file://%s'",
	    profile, shot, page), 0, "%s", text);
	free(text);
	expect_check("treemap", "treemap '%s' '%s'", page, shot);
	free(profile);
	free(shot);
	free(page);
	free(in);
}
