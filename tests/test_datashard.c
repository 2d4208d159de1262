/*
 * test_datashard.c: external data in numbered files of at most a given size
 * (--max-data-file-size, max_data_file_size), through every tool that
 * writes external data. Each output is looked at by
 * tests/e2e/check_datafiles.py (names, count, sizes, every tensor's place,
 * a payload written once, onnx.load alone), passes onnx.checker and
 * computes in ONNX Runtime bit for bit what its input computed. Fixtures:
 * tests/e2e/gen_datashard_models.py.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/commit.h"
#include "io/datafiles.h"
#include "io/store.h"
#include "model/emit.h"
#include "model/model.h"
#include "support.h"

#define K64 65536
#define M1 1048576

/* What check_datafiles.py saw. */
typedef struct seen {
	int files, places, shared;
	long long largest;
} seen;

/* check_datafiles.py on @model in @mode ("numbered", "single", "none", "any"; @max 0: none); it must pass. */
static seen
check_files(const char *model, const char *mode, uint64_t max, const char *extra)
{
	seen s = { -1, -1, -1, -1 };
	char *text, *ok;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/check_datafiles.py' '%s' %s --max %llu %s",
	    SCS_TEST_SRC_DIR, model, mode, (unsigned long long)max, extra ? extra : ""), 0, "%s", text);
	ok = strstr(text, "ok: files=");
	cr_assert_not_null(ok, "%s", text);
	cr_assert_eq(sscanf(ok, "ok: files=%d places=%d shared=%d largest=%lld", &s.files, &s.places, &s.shared,
	    &s.largest), 4, "%s", text);
	free(text);
	return s;
}

/* Files in @dir, "." and ".." left out. */
static int
files_in(const char *dir)
{
	return count_files(dir, "") - 2;
}

/* ds_many.onnx through scs4onnx-shrink with @size: its checks, the files, ONNX Runtime. */
static seen
shrink_many(const char *dir, const char *size, uint64_t max)
{
	char *in = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"), more[64];
	seen s;

	snprintf(more, sizeof(more), "--max-data-file-size %s", size);
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, more);
	s = check_files(out, "numbered", max, NULL);
	cr_assert_eq(files_in(dir), s.files + 1, "the model, its %d data files and nothing else: %d files", s.files,
	    files_in(dir));
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	return s;
}

Test(datashard, shrink_at_64k_puts_no_file_over_it_and_the_long_tensor_alone)
{
	char *dir = tmpdir_new();
	seen s = shrink_many(dir, "64K", K64);

	/* about 2.5 MB: 40 files or so; G (300,000 bytes) alone in its own */
	cr_assert_geq(s.files, 30, "%d files", s.files);
	cr_assert_eq(s.largest, 300000, "the longest file, G's own: %lld bytes", s.largest);
	/* 120 W, G, SA = SB (one place), the two branches' constants; D5 merged by dedup */
	cr_assert_eq(s.places, 124, "%d places", s.places);
	cr_assert_eq(s.shared, 1, "SA and SB hold the same bytes: one place for both (%d shared)", s.shared);
	tmpdir_remove(dir);
}

Test(datashard, shrink_at_1m_makes_three_files)
{
	char *dir = tmpdir_new();
	seen s = shrink_many(dir, "1M", M1);

	cr_assert_eq(s.files, 3, "%d files", s.files);
	cr_assert_leq(s.largest, M1);
	tmpdir_remove(dir);
}

Test(datashard, a_rewrite_removes_the_old_files_whatever_their_number_or_name)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"),
	     *legacy = path_in(dir, "m.onnx.data"), *other = path_in(dir, "other.onnx.0123456789abcdef-00001-of-00001.data");
	seen a, b;

	write_all(legacy, "stale", 5);
	write_all(other, "another model's", 15);
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n %s", in, out, "--max-data-file-size 64K");
	cr_assert(!file_exists(legacy), "the m.onnx.data of earlier versions was left");
	cr_assert(file_exists(other), "another model's data file was removed");
	unlink(other);
	a = shrink_many(dir, "64K", K64);
	/* the same again: the same names */
	b = shrink_many(dir, "64K", K64);
	cr_assert_eq(b.files, a.files);
	/* another maximum: another count, another digest; the old ones go */
	b = shrink_many(dir, "1M", M1);
	cr_assert_neq(b.files, a.files);
	/* no maximum: one data file of the plain name */
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f --external-data%s", in, out, NULL);
	check_files(out, "single", 0, "--copies");
	cr_assert_eq(files_in(dir), 2, "m.onnx and its data file: %d files", files_in(dir));
	expect_equivalent(in, out, NULL);
	/* from the plain name back to numbered files */
	shrink_many(dir, "64K", K64);
	/* inline: no data file at all */
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f%s", in, out, NULL);
	check_files(out, "none", 0, NULL);
	cr_assert_eq(files_in(dir), 1, "m.onnx alone: %d files", files_in(dir));
	free(in);
	free(out);
	free(legacy);
	free(other);
	tmpdir_remove(dir);
}

Test(datashard, an_input_reading_numbered_files_of_the_output_s_name_is_refused)
{
	char *dir = tmpdir_new(), *src = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"),
	     *in = path_in(dir, "a.onnx"), *text;
	size_t len;
	uint8_t *model;
	seen s;

	/* a.onnx reads m.onnx's numbered files, which a new m.onnx would remove */
	s = shrink_many(dir, "64K", K64);
	model = read_all(out, &len);
	write_all(in, model, len);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -f --max-data-file-size 1M", in, out), 1, "%s", text);
	cr_assert_not_null(strstr(text, "a data file of this output's name, which writing it would remove"), "%s", text);
	free(text);
	check_files(out, "numbered", K64, NULL);
	cr_assert_eq(files_in(dir), s.files + 2, "%d files", files_in(dir));
	expect_equivalent(src, in, NULL);
	free(model);
	free(src);
	free(out);
	free(in);
	tmpdir_remove(dir);
}

Test(datashard, with_a_store)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"),
	     *store = path_in(dir, "store"), more[4200];
	seen a, b;

	/* the store outside the output's folder would do as well; here it sits beside it */
	snprintf(more, sizeof(more), "--store '%s' --max-data-file-size 64K", store);
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, more);
	a = check_files(out, "numbered", K64, NULL);
	expect_equivalent(in, out, NULL);
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, more);
	b = check_files(out, "numbered", K64, NULL);
	cr_assert_eq(a.files, b.files);
	cr_assert_eq(files_in(dir), b.files + 2, "the model, its data files and the store: %d files", files_in(dir));
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	free(store);
	tmpdir_remove(dir);
}

/* Fixture @name through scs4onnx-shrink @options into @dir/out.onnx: numbered files of at most @max,
 * @places places, ONNX Runtime bit for bit. */
static seen
shrink_numbered(const char *dir, const char *name, const char *options, uint64_t max, int places)
{
	char *in = fixture(name), *out = path_in(dir, "out.onnx");
	seen s;

	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, options);
	s = check_files(out, "numbered", max, NULL);
	cr_assert_eq(s.places, places, "%d places, %d expected", s.places, places);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	return s;
}

Test(datashard, typed_encodings_at_the_smallest_maximum)
{
	char *dir = tmpdir_new();
	seen s;

	/* float_data, int64_data, int32_data (float16), double_data: payloads from the store */
	s = shrink_numbered(dir, "ds_typed.onnx", "-d --max-data-file-size 4K", 4096, 14);
	cr_assert_eq(s.files, 14, "every payload is over 2 KiB: one file each (%d files)", s.files);
	/* narrowed (int64 -> int32, float64 -> float32): new payloads, in files of 16K */
	shrink_numbered(dir, "ds_typed.onnx", "--max-data-file-size 16K", 16384, 14);
	tmpdir_remove(dir);
}

Test(datashard, ir3_initializers_listed_among_the_inputs)
{
	char *dir = tmpdir_new();
	seen s;

	/* the initializers go back among the graph inputs, each pointing into its file */
	s = shrink_numbered(dir, "ds_ir3.onnx", "--max-data-file-size 32K", 32768, 10);
	cr_assert_geq(s.files, 4, "%d files", s.files);
	tmpdir_remove(dir);
}

/* @tool from @in to @out (in the folder @out_dir) with @options and a maximum of 64K: 30 files or more,
 * nothing else beside the model, @shared places read by several tensors, computing in ONNX Runtime bit
 * for bit what @ref computes. */
static void
expect_numbered_64k(const char *tool, const char *in, const char *ref, const char *out, const char *out_dir,
    const char *options, int shared)
{
	seen s;

	tool_ok(tool, "'%s' '%s' -n %s", in, out, options);
	s = check_files(out, "numbered", K64, NULL);
	cr_assert_geq(s.files, 30, "%d files", s.files);
	cr_assert_eq(s.shared, shared, "%d shared, %d expected", s.shared, shared);
	cr_assert_eq(files_in(out_dir), s.files + 1, "the model and its %d data files: %d files", s.files,
	    files_in(out_dir));
	expect_equivalent(ref, out, NULL);
}

Test(datashard, optimize_writes_numbered_files)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "o.onnx");

	/* no dedup: D5 and W5 hold the same bytes, as SA and SB do; each pair in one place */
	expect_numbered_64k("scs4onnx-optimize", in, in, out, dir, "--max-data-file-size=64K", 2);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(datashard, merge_writes_numbered_files)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *shards = path_in(dir, "shards"),
	     *out_dir = path_in(dir, "out"), *out;

	mkdir(out_dir, 0777);
	out = path_in(out_dir, "j.onnx");
	tool_ok("scs4onnx-split", "'%s' '%s' -n %s", in, shards, "--max-shard-size 600K");
	cr_assert_geq(count_files(shards, "shard-"), 3);
	/* the shards are the input: the output computes what the model they came from computes */
	expect_numbered_64k("scs4onnx-merge", shards, in, out, out_dir, "--max-data-file-size 64K", 1);
	free(in);
	free(shards);
	free(out_dir);
	free(out);
	tmpdir_remove(dir);
}

Test(datashard, big_writes_numbered_files)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "b.onnx");

	expect_numbered_64k("scs4onnx-big", in, in, out, dir, "--max-shard-size 600K --max-data-file-size 64K", 1);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(datashard, a_maximum_under_4k_is_bad_usage)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"), *shards, *text;
	scs_shrink_options so = SCS_SHRINK_OPTIONS_INIT;
	scs_optimize_options oo = SCS_OPTIMIZE_OPTIONS_INIT;
	scs_merge_options mo = SCS_MERGE_OPTIONS_INIT;
	scs_big_options bo = SCS_BIG_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	static const char *const tools[] = { "scs4onnx-shrink", "scs4onnx-optimize", "scs4onnx-big" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		cr_assert_eq(run_tool(&text, tools[i], "'%s' '%s' --max-data-file-size 4000", in, out), 2, "%s: %s", tools[i],
		    text);
		cr_assert_not_null(strstr(text, "--max-data-file-size takes a size of at least 4K"), "%s", text);
		free(text);
		cr_assert_eq(run_tool(&text, tools[i], "'%s' '%s' --max-data-file-size x", in, out), 2, "%s", text);
		free(text);
	}
	cr_assert_eq(run_tool(&text, "scs4onnx-merge", "'%s' '%s' --max-data-file-size 1K", dir, out), 2, "%s", text);
	free(text);
	so.max_data_file_size = oo.max_data_file_size = mo.max_data_file_size = 4095;
	cr_assert_eq(scs_shrink(&rep, in, out, &so), SCS_EUSAGE);
	cr_assert_not_null(strstr(scs_err_msg(), "too small"), "%s", scs_err_msg());
	scs_report_dispose(&rep);
	cr_assert_eq(scs_optimize(&rep, in, out, &oo), SCS_EUSAGE);
	scs_report_dispose(&rep);
	bo.shrink = &so;
	cr_assert_eq(scs_big(&rep, in, out, &bo), SCS_EUSAGE);
	scs_report_dispose(&rep);
	shards = path_in(dir, "s");
	mkdir(shards, 0777);
	cr_assert_eq(scs_merge(&rep, shards, out, &mo), SCS_EUSAGE);
	scs_report_dispose(&rep);
	cr_assert_eq(files_in(dir), 1, "only the empty shard folder: %d files", files_in(dir));
	free(in);
	free(out);
	free(shards);
	tmpdir_remove(dir);
}

Test(datashard, more_files_than_descriptors_is_refused_before_anything_is_written)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"), *text;

	/* 124 payloads at 4K: a file each, and room for 200 - 128 */
	cr_assert_eq(run(&text, "ulimit -n 200 && '%s/scs4onnx-shrink' '%s' '%s' --max-data-file-size 4K", SCS_TOOLS_DIR,
	    in, out), 1, "%s", text);
	cr_assert_not_null(strstr(text, "data files, more than the process may hold open at once"), "%s", text);
	cr_assert_null(strchr(strchr(text, '\n') + 1, '\n'), "one line: %s", text);
	free(text);
	cr_assert_eq(files_in(dir), 0, "%d files", files_in(dir));
	/* at 64K, 44 files fit */
	cr_assert_eq(run(&text, "ulimit -n 200 && '%s/scs4onnx-shrink' '%s' '%s' -n --max-data-file-size 64K",
	    SCS_TOOLS_DIR, in, out), 0, "%s", text);
	free(text);
	check_files(out, "numbered", K64, NULL);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* rep->data_files against the files beside @out: each listed once, with its size; @n of them. */
static void
expect_listed(const scs_report *rep, const char *out, size_t n)
{
	uint64_t sum = 0;

	cr_assert_eq(rep->data_files.n, n, "%zu data files listed, %zu expected", rep->data_files.n, n);
	for (size_t i = 0; i < rep->data_files.n; i++) {
		const scs_report_item *it = &rep->data_files.items[i];

		cr_assert(strncmp(it->name, out, strlen(out)) == 0 && it->name[strlen(out)] == '.', "%s", it->name);
		cr_assert_eq(file_size(it->name), strtoull(it->detail, NULL, 10), "%s: %s bytes listed", it->name,
		    it->detail);
		if (i)
			cr_assert_lt(strcmp(rep->data_files.items[i - 1].name, it->name), 0, "not in order");
		sum += file_size(it->name);
	}
	cr_assert_eq(sum, rep->output_data_len);
}

Test(datashard, the_report_lists_each_data_file)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"), *text, *json,
	     more[4200];
	scs_shrink_options so = SCS_SHRINK_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	seen s;
	int n;

	/* the maximum alone asks for external data */
	so.max_data_file_size = M1;
	cr_assert_eq(scs_shrink(&rep, in, out, &so), SCS_OK, "%s", scs_err_msg());
	s = check_files(out, "numbered", M1, NULL);
	cr_assert(rep.external);
	expect_listed(&rep, out, (size_t)s.files);
	text = scs_report_text(&rep);
	json = scs_report_json(&rep);
	cr_assert_not_null(strstr(text, "in 3 external data files)"), "%s", text);
	cr_assert_not_null(strstr(text, "\nINFO: data file: "), "%s", text);
	cr_assert_not_null(strstr(json, "\"data_files\": [\n    {\"name\": "), "%s", json);
	cr_assert_not_null(strstr(json, rep.data_files.items[2].name), "%s", json);
	free(text);
	free(json);
	scs_report_dispose(&rep);
	/* many: the summary shows the first 32, the JSON every one */
	so.max_data_file_size = K64;
	cr_assert_eq(scs_shrink(&rep, in, out, &so), SCS_OK, "%s", scs_err_msg());
	s = check_files(out, "numbered", K64, NULL);
	expect_listed(&rep, out, (size_t)s.files);
	text = scs_report_text(&rep);
	json = scs_report_json(&rep);
	n = 0;
	for (const char *p = text; (p = strstr(p, "\nINFO: data file: ")) != NULL; p++)
		n++;
	cr_assert_eq(n, 32, "%d data file lines: %s", n, text);
	snprintf(more, sizeof(more), "INFO: data files: ... and %d more, to %s (--json lists every one)\n", s.files - 32,
	    rep.data_files.items[s.files - 1].name);
	cr_assert_not_null(strstr(text, more), "no '%s' in %s", more, text);
	cr_assert_not_null(strstr(json, rep.data_files.items[s.files - 1].name), "%s", json);
	free(text);
	free(json);
	scs_report_dispose(&rep);
	/* one data file is listed too */
	so.max_data_file_size = 0;
	so.external_data = 1;
	cr_assert_eq(scs_shrink(&rep, in, out, &so), SCS_OK, "%s", scs_err_msg());
	expect_listed(&rep, out, 1);
	text = scs_report_text(&rep);
	cr_assert_not_null(strstr(text, "in the external data file)"), "%s", text);
	free(text);
	scs_report_dispose(&rep);
	/* inline: none */
	so.external_data = 0;
	cr_assert_eq(scs_shrink(&rep, in, out, &so), SCS_OK, "%s", scs_err_msg());
	expect_listed(&rep, out, 0);
	scs_report_dispose(&rep);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

/* A snapshot of @path's bytes, to tell the old model from the new. */
static int
same_bytes(const char *path, const uint8_t *want, size_t want_len)
{
	size_t len;
	uint8_t *got = read_all(path, &len);
	int same = got && len == want_len && memcmp(got, want, len) == 0;

	free(got);
	return same;
}

/*
 * The old output in numbered files of 256K, rewritten in files of 1M by the
 * hooked tool killed before each step of its commit (@var: the tool, or the
 * tool and its committer): the model there is the old one or the new one,
 * every data file it names whole; with both killed, what is left over goes
 * with the next run.
 */
static void
killed_at_each_step(const char *var)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "m.onnx"), *text;
	uint8_t *old_model, *new_model;
	size_t old_len, new_len;
	int old_seen = 0, new_seen = 0, step;

	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, "--max-data-file-size 1M");
	new_model = read_all(out, &new_len);
	tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, "--max-data-file-size 256K");
	old_model = read_all(out, &old_len);
	for (step = 1; step < 200; step++) {
		int killed;

		tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, "--max-data-file-size 256K");
		/* a session of its own: the group the hook may kill is the tool's and its committer's */
		run(&text, "setsid -w env %s=%d '%s/hooked-scs4onnx-shrink' '%s' '%s' -n -f --max-data-file-size 1M", var, step,
		    SCS_HOOKED_TOOLS_DIR, in, out);
		killed = strstr(text, "test hook: killing") != NULL;
		free(text);
		if (same_bytes(out, old_model, old_len))
			old_seen++;
		else if (same_bytes(out, new_model, new_len))
			new_seen++;
		else
			cr_assert_fail("step %d: the model is neither the old one nor the new one", step);
		check_files(out, "any", 0, NULL);
		if (!killed)
			break;
		/* the next run leaves only its own files */
		tool_ok("scs4onnx-shrink", "'%s' '%s' -n -f %s", in, out, "--max-data-file-size 1M");
		check_files(out, "numbered", M1, NULL);
		cr_assert_eq(files_in(dir), 4, "step %d: the model and its 3 data files: %d files", step, files_in(dir));
	}
	cr_log_info("datashard: %s: %d steps; the old output %d times, the new %d", var, step - 1, old_seen, new_seen);
	cr_assert_gt(step, 5, "only %d steps", step);
	cr_assert_lt(step, 200);
	expect_equivalent(in, out, NULL);
	free(old_model);
	free(new_model);
	free(in);
	free(out);
	tmpdir_remove(dir);
}

Test(datashard, a_tool_killed_at_any_commit_step_leaves_the_old_or_the_new_output)
{
	killed_at_each_step("SCS_TEST_KILL_AT");
}

Test(datashard, both_killed_at_any_step_leave_a_whole_output_and_the_rerun_cleans_up)
{
	killed_at_each_step("SCS_TEST_KILL_GROUP_AT");
}

/* The payloads of a model's tensors of 1 KiB or more, appended to a list. */
typedef struct id_list {
	scs_model *m;
	uint32_t ids[1024];
	size_t n;
} id_list;

static int
add_id(void *ctx, Onnx__TensorProto *t)
{
	id_list *l = ctx;
	uint32_t id;

	if (scs_model_payload_of(l->m, t, &id) && l->m->payloads->items[id].key.len >= 1024 && l->n < 1024)
		l->ids[l->n++] = id;
	return 0;
}

/*
 * What scs4onnx-share builds on: two models of one payload set laid out once
 * (scs_data_layout_make over both models' payloads, equal bytes once), the
 * files written once (scs_data_layout_write), each model pointing into them
 * (scs_emit_write_into), all in one new folder.
 */
Test(datashard, two_models_share_one_set_of_numbered_files)
{
	char *dir = tmpdir_new(), *in = fixture("ds_many.onnx"), *out = path_in(dir, "out"), *a_path, *b_path;
	static id_list ids;
	scs_data_layout l;
	scs_emit_result ra, rb;
	scs_store *st;
	scs_model *a, *b;
	scs_commit *c;
	seen sa, sb;

	cr_assert_eq(scs_store_open(&st, NULL, dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load(&a, in, st, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load_with(&b, in, a, NULL), SCS_OK, "%s", scs_err_msg());
	ids.m = a;
	scs_model_each_tensor(a->proto, add_id, &ids);
	ids.m = b;
	scs_model_each_tensor(b->proto, add_id, &ids);
	cr_assert_eq(ids.n, 2 * 126, "%zu payloads", ids.n);
	cr_assert_eq(scs_data_layout_make(&l, a->payloads, ids.ids, ids.n, K64, SCS_DATA_SHARE_EQUAL), SCS_OK, "%s",
	    scs_err_msg());
	/* W5 = D5 and SA = SB in each, and b's bytes are a's: 124 places */
	cr_assert_eq(l.n, 124, "%zu places", l.n);
	cr_assert_eq(scs_commit_folder(&c, out), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_data_layout_write(&l, a->payloads, c, "weights", NULL, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_emit_write_into(&ra, a, c, "a.onnx", &l, "weights", NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_emit_write_into(&rb, b, c, "b.onnx", &l, "weights", NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(ra.n_external, 126);
	cr_assert_eq(scs_commit_run(c), SCS_OK, "%s", scs_err_msg());
	a_path = path_in(out, "a.onnx");
	b_path = path_in(out, "b.onnx");
	sa = check_files(a_path, "any", K64, NULL);
	sb = check_files(b_path, "any", K64, NULL);
	cr_assert_eq(sa.places, 124);
	cr_assert_eq(sb.places, 124);
	cr_assert_eq(sa.files, (int)l.n_files);
	cr_assert_eq(sb.files, (int)l.n_files);
	cr_assert_eq(count_files(out, "weights."), (int)l.n_files);
	cr_assert_eq(files_in(out), (int)l.n_files + 2, "the two models and the shared files: %d files", files_in(out));
	expect_equivalent(in, a_path, NULL);
	expect_equivalent(in, b_path, NULL);
	scs_data_layout_dispose(&l);
	scs_emit_result_dispose(&ra);
	scs_emit_result_dispose(&rb);
	scs_model_free(b);
	scs_model_free(a);
	scs_store_close(st);
	free(a_path);
	free(b_path);
	free(in);
	free(out);
	tmpdir_remove(dir);
}
