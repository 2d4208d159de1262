/*
 * test_cli.c: what the tools say. Each message is checked word for word, with
 * what the run did or did not write; the summaries against the files they
 * describe; progress on a pseudo-terminal (util-linux's script). (Each
 * tool's --help against its man page: test_man.c.)
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "support.h"

/* Run shell command @fmt in the scratch folder, the built tools first on the PATH; as run(). */
static int __attribute__((format(printf, 2, 3)))
sh(char **out, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run(out, "cd '%s' && PATH='%s':\"$PATH\" && %s", scratch_dir, SCS_TOOLS_DIR, cmd);
}

/* Run @tool with @args (in the scratch folder); its output must be exactly @want and its status @status. */
static void
expect_says(const char *tool, const char *args, int status, const char *want)
{
	char *text;
	int rc = sh(&text, "%s %s", tool, args);

	cr_expect_eq(rc, status, "%s %s: exit %d, not %d: %s", tool, args, rc, status, text);
	cr_expect_str_eq(text, want, "%s %s", tool, args);
	free(text);
}

/* A whole small text file, NUL-terminated (malloc'd). */
static char *
read_text(const char *path)
{
	size_t len;
	char *text = (char *)read_all(path, &len);

	cr_assert_not_null(text, "cannot read %s", path);
	text[len] = '\0';
	return text;
}

/* A model (a copy of fixture @name) at scratch_dir/in.onnx. */
static void
put_input(const char *name)
{
	char *in = fixture(name);

	cr_assert_eq(run(NULL, "cp '%s' '%s/in.onnx'", in, scratch_dir), 0);
	free(in);
}

Test(cli, no_arguments_points_to_help_once, .init = scratch_setup, .fini = scratch_teardown)
{
	const char *tools[] = { "scs4onnx-shrink", "scs4onnx-split", "scs4onnx-merge", "scs4onnx-big",
		"scs4onnx-optimize" };
	char want[256];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(want, sizeof(want), "%s: needs two arguments\nTry '%s --help' for more information.\n", tools[i],
		    tools[i]);
		expect_says(tools[i], "", 2, want);
		snprintf(want, sizeof(want),
		    "%s: needs two arguments; only one was given\nTry '%s --help' for more information.\n", tools[i],
		    tools[i]);
		expect_says(tools[i], "in.onnx", 2, want);
	}
}

/* The output path is looked at before the input is read: the input here does not even exist. */
Test(cli, output_folder_refused_before_reading, .init = scratch_setup, .fini = scratch_teardown)
{
	cr_assert_eq(run(NULL, "mkdir '%s/d'", scratch_dir), 0);
	expect_says("scs4onnx-shrink", "nosuch.onnx d", 1, "scs4onnx-shrink: error: d is a folder; give a file name\n");
	expect_says("scs4onnx-shrink", "nosuch.onnx d/", 1, "scs4onnx-shrink: error: d/ is a folder; give a file name\n");
	expect_says("scs4onnx-shrink", "nosuch.onnx .", 1, "scs4onnx-shrink: error: . is a folder; give a file name\n");
	expect_says("scs4onnx-optimize", "nosuch.onnx d", 1, "scs4onnx-optimize: error: d is a folder; give a file name\n");
	expect_says("scs4onnx-big", "nosuch.onnx d", 1, "scs4onnx-big: error: d is a folder; give a file name\n");
	expect_says("scs4onnx-merge", "nosuch d", 1, "scs4onnx-merge: error: d is a folder; give a file name\n");
	cr_expect_eq(count_files(scratch_dir, ""), 3, "something was written beside d");   /* ., .., d */
	cr_expect_eq(count_files(scratch_dir, "d") + count_files(scratch_dir, ".d"), 1);
}

Test(cli, missing_output_folder_is_named, .init = scratch_setup, .fini = scratch_teardown)
{
	put_input("dup_basic.onnx");
	expect_says("scs4onnx-shrink", "in.onnx missing/out.onnx", 1,
	    "scs4onnx-shrink: error: missing/out.onnx: the output's folder 'missing' does not exist\n");
	expect_says("scs4onnx-big", "in.onnx a/b/out.onnx", 1,
	    "scs4onnx-big: error: a/b/out.onnx: the output's folder 'a/b' does not exist\n");
	cr_assert_eq(run(NULL, "touch '%s/f'", scratch_dir), 0);
	expect_says("scs4onnx-shrink", "in.onnx f/out.onnx", 1,
	    "scs4onnx-shrink: error: f/out.onnx: 'f' is not a folder\n");
}

Test(cli, split_usage_lists_every_option)
{
	char *text;

	cr_assert_eq(run_tool(&text, "scs4onnx-split", "--help"), 0);
	cr_expect(strncmp(text,
	    "usage: scs4onnx-split INPUT.onnx OUTDIR [--max-shard-size 1.8G] [--store DIR]\n"
	    "           [--json REPORT] [--non-verbose]\n", strlen("usage: scs4onnx-split INPUT.onnx OUTDIR "
	    "[--max-shard-size 1.8G] [--store DIR]\n           [--json REPORT] [--non-verbose]\n")) == 0, "%s", text);
	free(text);
}

/* --help names the data file as the tool writes it. */
static void make_llm(void);

Test(cli, help_names_the_data_file_written, .init = make_llm, .fini = scratch_teardown)
{
	const char *tools[] = { "scs4onnx-shrink", "scs4onnx-merge", "scs4onnx-big", "scs4onnx-optimize" };
	char *text, *out = path_in(scratch_dir, "out.onnx"), *data;

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		cr_assert_eq(run_tool(&text, tools[i], "--help"), 0);
		cr_expect_not_null(strstr(text, "OUTPUT.onnx.<16 hex>.data"), "%s: %s", tools[i], text);
		cr_expect_null(strstr(text, "OUTPUT.data"), "%s: %s", tools[i], text);
		cr_expect_null(strstr(text, "OUTPUT.<16 hex>"), "%s: %s", tools[i], text);
		free(text);
	}
	cr_assert_eq(sh(&text, "scs4onnx-shrink llm.onnx out.onnx --external-data -n"), 0, "%s", text);
	free(text);
	data = data_file_beside(out);
	cr_expect_not_null(data, "no out.onnx.<16 hex>.data");
	free(data);
	free(out);
}

/* As gzip does: a write-protected output is kept unless --force. */
Test(cli, read_only_output_needs_force, .init = scratch_setup, .fini = scratch_teardown)
{
	const char *tools[] = { "scs4onnx-shrink", "scs4onnx-merge", "scs4onnx-big", "scs4onnx-optimize" };
	char *text, *out = path_in(scratch_dir, "out.onnx"), want[256];
	struct stat st;

	put_input("dup_basic.onnx");
	cr_assert_eq(sh(&text, "scs4onnx-split in.onnx shards -n"), 0, "%s", text);
	free(text);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		const char *in = strcmp(tools[i], "scs4onnx-merge") == 0 ? "shards" : "in.onnx";
		char args[64];

		cr_assert_eq(sh(NULL, "rm -f out.onnx && echo old > out.onnx && chmod 444 out.onnx"), 0);
		snprintf(args, sizeof(args), "%s out.onnx", in);
		snprintf(want, sizeof(want), "%s: error: out.onnx is read-only; give --force to replace it\n", tools[i]);
		expect_says(tools[i], args, 1, want);
		cr_expect_eq(file_size(out), 4, "%s replaced a read-only output", tools[i]);
		snprintf(args, sizeof(args), "%s out.onnx --force -n", in);
		expect_says(tools[i], args, 0, "");
		cr_expect_gt(file_size(out), 4, "%s --force did not replace it", tools[i]);
		cr_expect_eq(stat(out, &st), 0);
		cr_expect_neq(st.st_mode & 0200, 0, "the new output is written with the usual mode");
	}
	free(out);
}

/*
 * An OUTPUT that exists is refused without --force (a swapped command line
 * would replace the model): each tool that writes a model, the model left
 * byte for byte; scs4onnx replaces it, as the Python scs4onnx does.
 */
Test(cli, existing_output_needs_force, .init = scratch_setup, .fini = scratch_teardown)
{
	const char *tools[] = { "scs4onnx-shrink", "scs4onnx-merge", "scs4onnx-big", "scs4onnx-optimize" };
	char *text, *orig = path_in(scratch_dir, "orig.onnx"), want[256];
	uint8_t *before, *after;
	size_t n_before, n_after;

	put_input("dup_basic.onnx");
	cr_assert_eq(sh(&text, "scs4onnx-split in.onnx shards -n && cp in.onnx orig.onnx"), 0, "%s", text);
	free(text);
	before = read_all(orig, &n_before);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		const char *in = strcmp(tools[i], "scs4onnx-merge") == 0 ? "shards" : "out.onnx";
		char args[64];

		/* the swap: a run's output given as INPUT, the original model as OUTPUT */
		cr_assert_eq(sh(&text, "rm -f out.onnx && scs4onnx-shrink in.onnx out.onnx -n"), 0, "%s", text);
		free(text);
		snprintf(args, sizeof(args), "%s orig.onnx", in);
		snprintf(want, sizeof(want), "%s: error: orig.onnx already exists; give --force to replace it\n", tools[i]);
		expect_says(tools[i], args, 1, want);
		after = read_all(orig, &n_after);
		cr_expect(n_after == n_before && memcmp(after, before, n_before) == 0, "%s replaced the model", tools[i]);
		free(after);
		snprintf(args, sizeof(args), "%s orig.onnx -f -n", in);
		expect_says(tools[i], args, 0, "");
		cr_assert_eq(sh(NULL, "cp in.onnx orig.onnx"), 0);
	}
	/* scs4onnx, as the Python tool: a re-run replaces its output */
	expect_says("scs4onnx", "in.onnx orig.onnx -n", 0, "");
	after = read_all(orig, &n_after);
	cr_expect_lt(n_after, n_before, "scs4onnx did not replace its output");
	free(after);
	free(before);
	free(orig);
}

/* The "INFO: merged" lines of @text, in order (malloc'd). */
static char *
merged_lines(const char *text)
{
	char *out = calloc(strlen(text) + 1, 1);
	const char *p = text, *nl;
	size_t n = 0, len;

	cr_assert_not_null(out);
	for (; *p; p += len) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p + 1) : strlen(p);
		if (strncmp(p, "INFO: merged: ", 14) == 0) {
			memcpy(out + n, p, len);
			n += len;
		}
	}
	return out;
}

/* The "groups" array of JSON report @path in the scratch folder (malloc'd). */
static char *
json_groups(const char *name, long *n_shards)
{
	char *path = path_in(scratch_dir, name), *text = read_text(path), *from, *to, *shards;

	from = strstr(text, "\"groups\": [");
	to = from ? strstr(from, "\"not_merged\"") : NULL;
	shards = strstr(text, "\"n_shards\": ");
	cr_assert(from && to && shards, "%s: %s", name, text);
	*n_shards = strtol(shards + 12, NULL, 10);
	*to = '\0';
	from = strdup(from);
	free(text);
	free(path);
	return from;
}

/*
 * scs4onnx-big merges a constant's copies shard by shard, then across the
 * joined model; scs4onnx-shrink in one pass: both list each group's names,
 * and the groups, in the order the input model has the constants.
 */
Test(cli, big_and_shrink_list_a_group_alike_in_the_order_of_the_model, .init = scratch_setup,
    .fini = scratch_teardown)
{
	static const char *const models[][2] = {
		{ "fold_op11.onnx", "INFO: merged: c0 <- c15, c16, c30 (float32, 80 bytes each)\n"
		  "INFO: merged: c21 <- c28, c29, c32, c33, c35 (float32, 96 bytes each)\n" },
		/* the initializers W* come before the Constant nodes C* */
		{ "straddle.onnx", "INFO: merged: C140 <- W140 (float32, 4 bytes each)\n"
		  "INFO: merged: C0 <- W0 (float32, 4 bytes each)\n" },
	};

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *text, *shrunk, *big, *js, *jb;
		long n_s, n_b;

		put_input(models[i][0]);
		cr_assert_eq(sh(&text, "rm -f s.onnx b.onnx *.data && scs4onnx-shrink in.onnx s.onnx --json s.json"), 0,
		    "%s", text);
		shrunk = merged_lines(text);
		free(text);
		cr_assert_eq(sh(&text, "scs4onnx-big in.onnx b.onnx --max-shard-size 2K --json b.json"), 0, "%s", text);
		big = merged_lines(text);
		free(text);
		cr_assert_eq(strncmp(shrunk, models[i][1], strlen(models[i][1])), 0, "%s: scs4onnx-shrink says:\n%s",
		    models[i][0], shrunk);
		cr_expect_str_eq(big, shrunk, "%s: scs4onnx-big lists the groups otherwise", models[i][0]);
		js = json_groups("s.json", &n_s);
		jb = json_groups("b.json", &n_b);
		cr_assert_gt(n_b, 1, "%s: one shard", models[i][0]);
		cr_expect_str_eq(jb, js, "%s: the JSON reports' groups differ", models[i][0]);
		free(js);
		free(jb);
		free(shrunk);
		free(big);
	}
}

/* The bytes of scratch file @name (malloc'd; NULL when missing), *len of them. */
static uint8_t *
scratch_bytes(const char *name, size_t *len)
{
	char *path = path_in(scratch_dir, name);
	uint8_t *data = read_all(path, len);

	free(path);
	return data;
}

Test(cli, json_report_never_lands_on_a_path_the_run_reads_or_writes, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const cases[][3] = {
		{ "scs4onnx-shrink", "in.onnx out.onnx --json in.onnx",
		  "scs4onnx-shrink: error: --json in.onnx names the input; give the report a file of its own\n" },
		{ "scs4onnx-shrink", "in.onnx out.onnx --json ./out.onnx",
		  "scs4onnx-shrink: error: --json ./out.onnx names the output; give the report a file of its own\n" },
		{ "scs4onnx-optimize", "in.onnx out.onnx --json=in.onnx",
		  "scs4onnx-optimize: error: --json in.onnx names the input; give the report a file of its own\n" },
		{ "scs4onnx-big", "in.onnx out.onnx --json out.onnx",
		  "scs4onnx-big: error: --json out.onnx names the output; give the report a file of its own\n" },
		{ "scs4onnx-merge", "shards out.onnx --json out.onnx",
		  "scs4onnx-merge: error: --json out.onnx names the output; give the report a file of its own\n" },
		{ "scs4onnx-shrink", "in.onnx out.onnx --json external_a.bin",
		  "scs4onnx-shrink: error: --json external_a.bin exists and is not a JSON report; it is left as it is "
		  "(remove it or give another file)\n" },
		{ "scs4onnx-shrink", "in.onnx out.onnx --json out.onnx.0123456789abcdef.data",
		  "scs4onnx-shrink: error: --json out.onnx.0123456789abcdef.data names a file written with the output (its "
		  "data file or a .npy file); give the report a file of its own\n" },
		{ "scs4onnx-big", "in.onnx out.onnx -m npy --json out_exported_W1.npy",
		  "scs4onnx-big: error: --json out_exported_W1.npy names a file written with the output (its data file or "
		  "a .npy file); give the report a file of its own\n" },
		{ "scs4onnx-shrink", "in.onnx out.onnx --store st --json st/r.json",
		  "scs4onnx-shrink: error: --json st/r.json is inside the store folder st; write it elsewhere\n" },
		{ "scs4onnx-big", "in.onnx out.onnx --work W --json W/r.json",
		  "scs4onnx-big: error: --json W/r.json is inside the work folder W; write it elsewhere\n" },
		{ "scs4onnx-split", "in.onnx new_shards --json new_shards/r.json",
		  "scs4onnx-split: error: --json new_shards/r.json is inside the shard folder new_shards; write it "
		  "elsewhere\n" },
		{ "scs4onnx-merge", "shards out.onnx --json shards/next.onnx",
		  "scs4onnx-merge: error: --json shards/next.onnx is inside the shard folder shards; write it elsewhere\n" },
		{ "scs4onnx-shrink", "in.onnx out.onnx --json nowhere/r.json",
		  "scs4onnx-shrink: error: --json nowhere/r.json: the folder nowhere does not exist\n" },
		{ "scs4onnx-split", "in.onnx new_shards --json in.onnx/r.json",
		  "scs4onnx-split: error: --json in.onnx/r.json: in.onnx is not a folder\n" },
		{ "scs4onnx-optimize", "in.onnx out.onnx --json shards",
		  "scs4onnx-optimize: error: --json shards is a folder; give a file name\n" },
		{ "scs4onnx-shrink", "in.onnx out.onnx --json /dev/null",
		  "scs4onnx-shrink: error: --json /dev/null is not a regular file (give - for stdout)\n" },
	};
	char *out = path_in(scratch_dir, "out.onnx"), *shards = path_in(scratch_dir, "shards"), *text;
	uint8_t *in_before, *data_before, *bytes;
	size_t in_len, data_len, len;

	/* an input with external data (external_a.bin beside it) and a folder of its shards */
	cr_assert_eq(sh(&text, "cp '%s'/external.onnx in.onnx && cp '%s'/external_?.bin . && "
	    "scs4onnx-split in.onnx shards --max-shard-size 4K -n", SCS_TEST_BUILD_DIR, SCS_TEST_BUILD_DIR), 0, "%s", text);
	free(text);
	in_before = scratch_bytes("in.onnx", &in_len);
	data_before = scratch_bytes("external_a.bin", &data_len);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		expect_says(cases[i][0], cases[i][1], 1, cases[i][2]);
		/* refused before any work: nothing written, nothing read changed */
		cr_expect_not(file_exists(out), "%s %s wrote the output", cases[i][0], cases[i][1]);
		cr_expect_eq(count_files(scratch_dir, "new_shards") + count_files(scratch_dir, "st") +
		    count_files(scratch_dir, "W") + count_files(scratch_dir, "out_exported"), 0, "%s %s made files",
		    cases[i][0], cases[i][1]);
		bytes = scratch_bytes("in.onnx", &len);
		cr_expect(len == in_len && memcmp(bytes, in_before, len) == 0, "%s %s changed the input", cases[i][0],
		    cases[i][1]);
		free(bytes);
		bytes = scratch_bytes("external_a.bin", &len);
		cr_expect(len == data_len && memcmp(bytes, data_before, len) == 0, "%s %s changed the input's data",
		    cases[i][0], cases[i][1]);
		free(bytes);
	}
	/* only "." and ".." */
	cr_expect_eq(count_files(scratch_dir, "."), 2, "a temporary or a probe was left");
	cr_expect_eq(count_files(shards, "."), 2, "a temporary was left among the shards");
	free(in_before);
	free(data_before);
	free(out);
	free(shards);
}

Test(cli, json_report_replaces_an_old_one_whole_by_a_rename, .init = scratch_setup, .fini = scratch_teardown)
{
	const char *tools[][2] = { { "scs4onnx-shrink", "in.onnx" }, { "scs4onnx-split", "in.onnx" },
		{ "scs4onnx-merge", "shards" }, { "scs4onnx-big", "in.onnx" }, { "scs4onnx-optimize", "in.onnx" } };
	char *json = path_in(scratch_dir, "r.json"), *old = path_in(scratch_dir, "old.json"), *text, args[128];
	struct stat st;

	put_input("dup_basic.onnx");
	cr_assert_eq(sh(&text, "scs4onnx-split in.onnx shards --max-shard-size 300 -n"), 0, "%s", text);
	free(text);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		/* an old report, with a second name: a file written in place would change under both */
		cr_assert_eq(sh(NULL, "rm -rf out out.onnx r.json old.json && echo '{\"old\": 1}' > r.json && "
		    "ln r.json old.json"), 0);
		snprintf(args, sizeof(args), "%s out%s --json r.json -n", tools[i][1],
		    strcmp(tools[i][0], "scs4onnx-split") == 0 ? "" : ".onnx");
		expect_says(tools[i][0], args, 0, "");
		text = read_text(json);
		cr_expect_eq(text[0], '{', "%s: %s", tools[i][0], text);
		cr_expect_null(strstr(text, "\"old\""), "%s: the old report is still there", tools[i][0]);
		free(text);
		text = read_text(old);
		cr_expect_str_eq(text, "{\"old\": 1}\n", "%s wrote into the old report's file", tools[i][0]);
		free(text);
		cr_expect_eq(stat(json, &st), 0);
		cr_expect_eq(st.st_mode & 0777, 0644, "%s: mode %o, not as a new file's", tools[i][0], st.st_mode & 0777);
		cr_expect_eq(count_files(scratch_dir, "."), 2, "%s left a temporary", tools[i][0]);
	}
	free(json);
	free(old);
}

Test(cli, merge_output_inside_the_shard_folder, .init = scratch_setup, .fini = scratch_teardown)
{
	char *text;

	put_input("dup_basic.onnx");
	cr_assert_eq(sh(&text, "scs4onnx-split in.onnx shards --max-shard-size 300 -n"), 0, "%s", text);
	free(text);
	expect_says("scs4onnx-merge", "shards shards/merged.onnx", 1,
	    "scs4onnx-merge: error: shards/merged.onnx is inside the shard folder shards, where the next merge would "
	    "take it for a shard; write it elsewhere\n");
	expect_says("scs4onnx-merge", "shards/ ./shards/merged.onnx", 1,
	    "scs4onnx-merge: error: ./shards/merged.onnx is inside the shard folder shards/, where the next merge would "
	    "take it for a shard; write it elsewhere\n");
	cr_expect_eq(count_files(scratch_dir, "merged"), 0);
	/* and the shards still merge */
	expect_says("scs4onnx-merge", "shards merged.onnx -n", 0, "");
}

Test(cli, big_keep_work_rerun_says_what_to_do, .init = scratch_setup, .fini = scratch_teardown)
{
	char *shards = path_in(scratch_dir, "W/shards");
	int n;

	put_input("dup_basic.onnx");
	expect_says("scs4onnx-big", "in.onnx out.onnx --work W --keep-work --max-shard-size 300 -n", 0, "");
	n = count_files(shards, "shard-");
	cr_assert_gt(n, 1);
	expect_says("scs4onnx-big", "in.onnx out.onnx --work W --keep-work --max-shard-size 300 -n -f", 1,
	    "scs4onnx-big: error: W/shards: holds files already (the shards of an earlier --keep-work run?); "
	    "--keep-work needs it new or empty: remove it, or give --work another folder\n");
	cr_expect_eq(count_files(shards, "shard-"), n, "the kept shards were changed");
	free(shards);
}

/* An LLM-shaped model (8 layers: every per-layer constant 8 times) at scratch_dir/llm.onnx, with external data. */
static void
make_llm(void)
{
	char *text;

	scratch_setup();
	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' llm '%s/llm.onnx' --size 2M --layers 8 --external",
	    SCS_TEST_SRC_DIR, scratch_dir), 0, "%s", text);
	free(text);
}

/* The lines of @text that start with @prefix, in order (malloc'd). */
static char *
lines_with(const char *text, const char *prefix)
{
	size_t len = 0, n = strlen(prefix);
	char *out = calloc(1, strlen(text) + 1);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *end = strchr(p, '\n');
		size_t line = end ? (size_t)(end - p + 1) : strlen(p);

		if (strncmp(p, prefix, n) == 0) {
			memcpy(out + len, p, line);
			len += line;
		}
	}
	return out;
}

/* The lines of @big starting with @prefix are those of @shrink (@what names the case). */
static void
expect_same_lines(const char *shrink, const char *big, const char *prefix, const char *what)
{
	char *a = lines_with(shrink, prefix), *b = lines_with(big, prefix);

	cr_expect_str_eq(b, a, "%s", what);
	free(a);
	free(b);
}

Test(cli, summary_names_a_few_per_group, .init = make_llm, .fini = scratch_teardown)
{
	char *text, *json;

	cr_assert_eq(sh(&text, "scs4onnx-shrink llm.onnx out.onnx --json out.json"), 0,
	    "%s", text);
	cr_expect_not_null(strstr(text, "INFO: merged: model.layers.0.causal_mask <- model.layers.1.causal_mask, "
	    "model.layers.2.causal_mask, model.layers.3.causal_mask, model.layers.4.causal_mask, "
	    "model.layers.5.causal_mask ... and 2 more (float32, 4096 bytes each)\n"), "%s", text);
	cr_expect_null(strstr(text, "model.layers.7.causal_mask"), "%s", text);
	json = path_in(scratch_dir, "out.json");
	free(text);
	text = read_text(json);
	cr_expect_not_null(strstr(text, "\"model.layers.7.causal_mask\""), "the JSON report lists every name");
	free(text);
	free(json);
}

/* big merges in rounds (each shard, then the whole model) but reports what shrink reports. */
Test(cli, big_counts_match_shrink, .init = make_llm, .fini = scratch_teardown)
{
	char *shrink, *big;

	cr_assert_eq(sh(&shrink, "scs4onnx-shrink llm.onnx s.onnx"), 0, "%s", shrink);
	cr_assert_eq(sh(&big, "scs4onnx-big llm.onnx b.onnx --max-shard-size 300K"),
	    0, "%s", big);
	cr_assert_not_null(strstr(big, "INFO: shards: "), "%s", big);
	cr_assert_null(strstr(big, "INFO: shards: 1\n"), "the model was not cut: %s", big);
	cr_expect_not_null(strstr(big, "INFO: groups merged: 8\n"), "%s", big);
	expect_same_lines(shrink, big, "INFO: constants studied", "llm");
	expect_same_lines(shrink, big, "INFO: groups merged", "llm");
	expect_same_lines(shrink, big, "INFO: constant bytes", "llm");
	free(shrink);
	free(big);
}

/* With --optimize too: big counts the constants once, after the optimizer, as shrink does. */
Test(cli, big_counts_match_shrink_with_optimize, .init = scratch_setup, .fini = scratch_teardown)
{
	const char *models[] = { "chain.onnx", "bn_shared.onnx", "dup_basic.onnx" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]), *shrink, *big;

		cr_assert_eq(sh(&shrink, "scs4onnx-shrink '%s' s.onnx --optimize -f", in), 0, "%s", shrink);
		cr_assert_eq(sh(&big, "scs4onnx-big '%s' b.onnx --optimize --max-shard-size 300 -f", in), 0, "%s", big);
		expect_same_lines(shrink, big, "INFO: constants studied", models[i]);
		expect_same_lines(shrink, big, "INFO: groups merged", models[i]);
		free(shrink);
		free(big);
		free(in);
	}
}

/* A pair each shard refuses to merge is listed once, as shrink lists it. */
Test(cli, big_lists_each_refusal_once, .init = scratch_setup, .fini = scratch_teardown)
{
	char *in = fixture("shadow.onnx"), *shrink, *big;

	cr_assert_eq(sh(&shrink, "scs4onnx-shrink '%s' s.onnx", in), 0, "%s", shrink);
	cr_assert_eq(sh(&big, "scs4onnx-big '%s' b.onnx --max-shard-size 300", in), 0, "%s", big);
	cr_assert_null(strstr(big, "INFO: shards: 1\n"), "not cut: %s", big);
	cr_expect_not_null(strstr(shrink, "INFO: not merged: B: equal to 'A', but a nested graph defines that name\n"),
	    "%s", shrink);
	expect_same_lines(shrink, big, "INFO: not merged", "shadow.onnx");
	free(shrink);
	free(big);
	free(in);
}

Test(cli, split_summary, .init = make_llm, .fini = scratch_teardown)
{
	char *text, *shard, want[128];
	uint64_t len;

	cr_assert_eq(sh(&text, "scs4onnx-split llm.onnx sh --max-shard-size 300K"), 0,
	    "%s", text);
	cr_expect_null(strstr(text, "constants studied"), "%s", text);
	cr_expect_null(strstr(text, "groups merged"), "%s", text);
	cr_expect_null(strstr(text, "constant bytes"), "%s", text);
	cr_expect_null(strstr(text, "%)"), "%s", text);
	cr_expect(strncmp(text, "INFO: 4 shards, ", strlen("INFO: 4 shards, ")) == 0, "%s", text);
	/* the shard and the data file beside it */
	cr_assert_eq(run(&shard, "cd '%s/sh' && cat shard-000.onnx* | wc -c", scratch_dir), 0);
	len = strtoull(shard, NULL, 10);
	snprintf(want, sizeof(want), "INFO: shard: sh/shard-000.onnx: %.1f KiB\n", (double)len / 1024.0);
	cr_expect_not_null(strstr(text, want), "%s in %s", want, text);
	free(shard);
	free(text);
}

/* npy mode: the .npy files count in the file bytes, and the first line says what happened in words. */
Test(cli, npy_mode_counts_the_npy_files, .init = scratch_setup, .fini = scratch_teardown)
{
	char *text, *json, *out = path_in(scratch_dir, "out.onnx"), want[256];
	uint64_t npy;

	put_input("dup_basic.onnx");
	cr_assert_eq(sh(&text, "scs4onnx-shrink in.onnx out.onnx -m npy"), 0, "%s",
	    text);
	free(text);
	cr_assert_eq(sh(&text, "cat out_exported_*.npy | wc -c"), 0);
	npy = strtoull(text, NULL, 10);
	free(text);
	cr_assert_gt(npy, 0);
	cr_assert_eq(sh(&text, "rm -f out.onnx out_exported_*.npy && scs4onnx-shrink in.onnx out.onnx -m npy --json r.json"),
	    0, "%s", text);
	snprintf(want, sizeof(want), " -> %llu (", (unsigned long long)(file_size(out) + npy));
	cr_expect_not_null(strstr(text, want), "file bytes without the .npy files: %s", text);
	snprintf(want, sizeof(want), "in the model and %llu in .npy files\n", (unsigned long long)npy);
	cr_expect_not_null(strstr(text, want), "%s", text);
	free(text);
	json = path_in(scratch_dir, "r.json");
	text = read_text(json);
	snprintf(want, sizeof(want), "\"npy_bytes\": %llu,", (unsigned long long)npy);
	cr_expect_not_null(strstr(text, want), "%s", text);
	free(text);
	free(json);
	free(out);
}

/* The first line: "N% smaller", from the files' bytes. */
Test(cli, first_line_says_how_much_smaller, .init = make_llm, .fini = scratch_teardown)
{
	char *text, *out = path_in(scratch_dir, "out.onnx"), *in = path_in(scratch_dir, "llm.onnx"),
	     *in_data = path_in(scratch_dir, "llm.onnx.data"),
	     *out_data, want[64];
	double before, after;

	cr_assert_eq(sh(&text, "scs4onnx-shrink llm.onnx out.onnx --external-data"), 0,
	    "%s", text);
	out_data = data_file_beside(out);
	before = (double)(file_size(in) + file_size(in_data));
	after = (double)(file_size(out) + file_size(out_data));
	snprintf(want, sizeof(want), "INFO: %.0f%% smaller: ", 100.0 * (before - after) / before);
	cr_expect(strncmp(text, want, strlen(want)) == 0, "want %s: %s", want, text);
	free(text);
	free(out_data);
	free(out);
	free(in);
	free(in_data);
}

/*
 * On a terminal, progress for an external-data model counts the data file's
 * bytes too, and every stage that counts bytes ends at 100%.
 */
Test(cli, progress_counts_every_byte, .init = make_llm, .fini = scratch_teardown)
{
	const char *tools[] = { "scs4onnx-shrink", "scs4onnx-big" };
	char *text, *in = path_in(scratch_dir, "llm.onnx"), *in_data = path_in(scratch_dir, "llm.onnx.data"), want[128];
	uint64_t in_len;

	in_len = file_size(in) + file_size(in_data);
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		cr_assert_eq(sh(&text, "script -qec '%s llm.onnx out.onnx -f --external-data' /dev/null", tools[i]), 0, "%s",
		    text);
		snprintf(want, sizeof(want), "%s: scan 100.0%% (%.1f KiB / %.1f KiB)", tools[i], (double)in_len / 1024.0,
		    (double)in_len / 1024.0);
		cr_expect_not_null(strstr(text, want), "%s in %s", want, text);
		snprintf(want, sizeof(want), "%s: write 100.0%% (", tools[i]);
		cr_expect_not_null(strstr(text, want), "%s in %s", want, text);
		cr_expect_null(strstr(text, "(0 / 0 MiB)"), "%s", text);
		cr_expect_null(strstr(text, "(0.0 KiB / 0.0 KiB)"), "%s", text);
		free(text);
	}
	/* merge reads several files: one count for them all, from 0 to 100% once */
	cr_assert_eq(sh(&text, "scs4onnx-split llm.onnx sh --max-shard-size 300K -n && cat sh/* | wc -c"), 0, "%s", text);
	in_len = strtoull(text, NULL, 10);
	free(text);
	cr_assert_eq(sh(&text, "script -qec 'scs4onnx-merge sh m.onnx' /dev/null"), 0, "%s", text);
	snprintf(want, sizeof(want), "scs4onnx-merge: scan 100.0%% (%.1f KiB / %.1f KiB)", (double)in_len / 1024.0,
	    (double)in_len / 1024.0);
	for (const char *p = strstr(text, "scan 100.0%"); p; p = strstr(p + 1, "scan 100.0%"))
		cr_expect(strncmp(p, want + strlen("scs4onnx-merge: "), strlen(want) - strlen("scs4onnx-merge: ")) == 0,
		    "a shard's own 100%%, not the stage's: %.60s (want %s)", p, want);
	cr_expect_not_null(strstr(text, want), "%s in %s", want, text);
	free(text);
	/* not on a terminal: no progress at all */
	cr_assert_eq(sh(&text, "scs4onnx-shrink llm.onnx out.onnx -f"), 0, "%s", text);
	cr_expect_null(strchr(text, '\r'), "%s", text);
	free(text);
	free(in);
	free(in_data);
}

/*
 * The harness's own environment keeps ONNX Runtime from writing its telemetry
 * files: /tmp/mat-debug-<pid>.log and a cache under ~/.cache/Microsoft/.
 */
Test(cli, onnx_runtime_writes_no_telemetry_files, .init = scratch_setup, .fini = scratch_teardown)
{
	char *model = fixture("dup_basic.onnx"), *text, *log = NULL, *cache = path_in(scratch_dir, ".cache/Microsoft");
	time_t started = time(NULL) - 1;
	struct stat st;
	long pid;

	/* as run by hand: without the suite's ORT_DISABLE_TELEMETRY (or CI) */
	cr_assert_eq(sh(&text, "env -u ORT_DISABLE_TELEMETRY -u CI HOME=\"$PWD\" "
	    "node '%s/tests/e2e/ort_compare.mjs' '%s' '%s' & pid=$!; wait $pid && echo pid=$pid",
	    SCS_TEST_SRC_DIR, model, model), 0, "%s", text);
	cr_assert_not_null(strstr(text, "pid="), "%s", text);
	pid = strtol(strstr(text, "pid=") + 4, NULL, 10);
	cr_assert_gt(pid, 0);
	cr_assert_geq(asprintf(&log, "/tmp/mat-debug-%ld.log", pid), 0);
	/* one left by an earlier process of the same pid is not this run's */
	cr_expect(stat(log, &st) < 0 || st.st_mtime < started, "%s was written", log);
	cr_expect(!file_exists(cache), "%s was written", cache);
	free(text);
	/* its usage names every form */
	cr_assert_eq(sh(&text, "node '%s/tests/e2e/ort_compare.mjs' --help", SCS_TEST_SRC_DIR), 1, "%s", text);
	cr_expect_not_null(strstr(text, "usage: node ort_compare.mjs REFERENCE.onnx CANDIDATE.onnx "), "%s", text);
	cr_expect_not_null(strstr(text, "\n       node ort_compare.mjs REFERENCE.onnx SHARD0.onnx SHARD1.onnx ... --chain "),
	    "%s", text);
	cr_expect_not_null(strstr(text, "\n       node ort_compare.mjs --batch LIST "), "%s", text);
	free(log);
	free(cache);
	free(text);
	free(model);
}

/*
 * scripts/demo.sh in a copy of the tree whose setup and build are done:
 * without Node.js it still shrinks and checks with onnx.checker, and says
 * the ONNX Runtime check was skipped; its work files go unless KEEP=1.
 */
Test(cli, demo_without_node, .init = scratch_setup, .fini = scratch_teardown)
{
	char *text;

	cr_assert_eq(sh(&text, "mkdir -p scripts build tests/e2e && cp '%s/scripts/demo.sh' scripts/ && "
	    "printf '#!/bin/sh\\n' > scripts/setup.sh && cp scripts/setup.sh scripts/build.sh && "
	    "chmod +x scripts/*.sh && ln -s '%s/scripts/gen-model.py' scripts/ && ln -s '%s' build/tools && "
	    "ln -s '%s/tests/e2e/check_model.py' '%s/tests/e2e/ort_compare.mjs' '%s/tests/e2e/node_modules' tests/e2e/",
	    SCS_TEST_SRC_DIR, SCS_TEST_SRC_DIR, SCS_TOOLS_DIR, SCS_TEST_SRC_DIR, SCS_TEST_SRC_DIR, SCS_TEST_SRC_DIR), 0,
	    "%s", text);
	free(text);
	cr_assert_eq(sh(&text, "DEMO_HW=64 NODE=/nonexistent/node scripts/demo.sh"), 0, "%s", text);
	cr_expect_not_null(strstr(text, "% smaller: "), "no summary: %s", text);
	cr_expect_not_null(strstr(text, "check_model: ok: work/demo/gmflow_shrunk.onnx\n"), "%s", text);
	cr_expect_not_null(strstr(text, "demo: ONNX Runtime check skipped: Node.js or onnxruntime-node is not installed\n"),
	    "%s", text);
	cr_expect_eq(count_files(scratch_dir, "work"), 0, "work/ was left: %s", text);
	free(text);
	cr_assert_eq(sh(&text, "KEEP=1 DEMO_HW=64 scripts/demo.sh"), 0, "%s", text);
	cr_expect_not_null(strstr(text, "ort_compare: ok"), "%s", text);
	cr_expect_not_null(strstr(text, "demo: work files kept in work/demo\n"), "%s", text);
	cr_expect_eq(sh(NULL, "test -s work/demo/gmflow.onnx && test -s work/demo/gmflow_shrunk.onnx"), 0);
	free(text);
}

/*
 * Groups merged in rounds fold into one per kept constant, each name once: a
 * constant split copied into two shards is merged away in each of them.
 */
Test(cli, folded_groups_name_each_constant_once)
{
	const char *b[] = { "b" }, *bc[] = { "b", "c" }, *a[] = { "a" }, *q[] = { "r" }, *e[] = { "e" };
	scs_report rep = SCS_REPORT_INIT;

	cr_assert_eq(scs_report_add_group(&rep, "p", q, 1, 1, 4, 0), SCS_OK);      /* before @from: untouched */
	cr_assert_eq(scs_report_add_group(&rep, "a", b, 1, 1, 4, 0), SCS_OK);      /* shard 0 */
	cr_assert_eq(scs_report_add_group(&rep, "a", bc, 2, 1, 4, 1), SCS_OK);     /* shard 1 */
	cr_assert_eq(scs_report_add_group(&rep, "d", e, 1, 1, 8, 0), SCS_OK);      /* another value, shard 1 */
	cr_assert_eq(scs_report_add_group(&rep, "x", a, 1, 1, 4, 0), SCS_OK);      /* the joined model */
	cr_assert_eq(scs_report_fold_groups(&rep, 1), SCS_OK);
	cr_assert_eq(rep.n_groups, 3);
	cr_expect_str_eq(rep.groups[0].canonical, "p");
	cr_expect_str_eq(rep.groups[1].canonical, "d");
	cr_expect_str_eq(rep.groups[2].canonical, "x");
	cr_assert_eq(rep.groups[2].n_names, 3);
	cr_expect_str_eq(rep.groups[2].names[0], "a");
	cr_expect_str_eq(rep.groups[2].names[1], "b");
	cr_expect_str_eq(rep.groups[2].names[2], "c");
	cr_expect_eq(rep.groups[2].lifted, 1);
	scs_report_dispose(&rep);
}

/*
 * scs4onnx, the shrink tool under the Python tool's name: scs4onnx's README
 * invocations write byte for byte what scs4onnx-shrink writes (the model and
 * its .npy files), with its exit statuses and messages under its own name.
 */
Test(cli, scs4onnx_writes_what_scs4onnx_shrink_writes, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const args[] = { "", "-m npy", "--mode shrink -n", "-m npy -fc W1 --non_verbose",
		"--disable_auto_downcast", "-d -fo MatMul" };
	char *text;

	put_input("dup_basic.onnx");
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		cr_assert_eq(sh(&text, "rm -rf a b && mkdir a b && scs4onnx in.onnx a/out.onnx %s && "
		    "scs4onnx-shrink in.onnx b/out.onnx %s && ls a && diff -r a b", args[i], args[i]), 0, "%s: %s", args[i],
		    text);
		cr_expect_not_null(strstr(text, "out.onnx\n"), "%s: %s", args[i], text);
		if (strstr(args[i], "npy"))
			cr_expect_not_null(strstr(text, ".npy\n"), "%s: no .npy file: %s", args[i], text);
		free(text);
	}
	expect_says("scs4onnx", "", 2, "scs4onnx: needs two arguments\nTry 'scs4onnx --help' for more information.\n");
	expect_says("scs4onnx", "in.onnx out.onnx -m zip", 2,
	    "scs4onnx: --mode takes shrink or npy, not 'zip'\nTry 'scs4onnx --help' for more information.\n");
	expect_says("scs4onnx", "nosuch.onnx out.onnx", 1,
	    "scs4onnx: error: nosuch.onnx: cannot open: No such file or directory\n");
	cr_assert_eq(sh(&text, "scs4onnx --help"), 0);
	cr_expect(strncmp(text, "usage: scs4onnx INPUT.onnx OUTPUT.onnx [options]\n", 49) == 0, "%s", text);
	free(text);
}

/*
 * Progress lines fit the terminal: each redraw is one column short of its
 * width (so it never wraps), on a 60-column terminal and an 80-column one.
 */
Test(cli, progress_fits_the_terminal_width, .init = make_llm, .fini = scratch_teardown)
{
	static const int widths[] = { 60, 80 };
	char *text, *line, *save;

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		int lines = 0;

		cr_assert_eq(sh(&text, "script -qec 'stty cols %d; scs4onnx-big llm.onnx out.onnx -f --external-data' "
		    "/dev/null", widths[i]), 0, "%s", text);
		for (line = strtok_r(text, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
			if (strncmp(line, "scs4onnx-big: ", 14) != 0)
				continue;
			lines++;
			cr_expect_lt(strlen(line), (size_t)widths[i], "%zu columns on a %d-column terminal: '%s'",
			    strlen(line), widths[i], line);
		}
		cr_expect_gt(lines, 2, "no progress lines: %s", text);
		free(text);
	}
}

/*
 * Each tool's --json report names its stages, in order, as the README and
 * docs/TOOLS.md describe them (a stage's name is what a progress callback
 * and a script reading the report see).
 */
Test(cli, every_tool_names_its_stages, .init = scratch_setup, .fini = scratch_teardown)
{
	static const struct {
		const char *cmd, *stages;
	} runs[] = {
		{ "scs4onnx-shrink '%s' o1.onnx", "scan shrink write check" },
		{ "scs4onnx-optimize '%s' o2.onnx", "scan optimize write check" },
		{ "scs4onnx-split '%s' shards", "scan split write check" },
		{ "scs4onnx-merge shards o3.onnx", "scan merge dedup write check" },
		{ "scs4onnx-big '%s' o4.onnx", "scan split shrink merge dedup write check" },
	};
	char *model = fixture("dup_basic.onnx");

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char cmd[1024], *out, names[256] = "";
		size_t used = 0;

		snprintf(cmd, sizeof(cmd), runs[i].cmd, model);
		cr_assert_eq(sh(&out, "%s --json - -n", cmd), 0, "%s: %s", cmd, out);
		for (const char *p = strstr(out, "\"stages\""); p && (p = strstr(p, "{\"name\": \"")) != NULL;) {
			p += strlen("{\"name\": \"");
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%.*s", used ? " " : "",
			    (int)strcspn(p, "\""), p);
		}
		cr_expect_str_eq(names, runs[i].stages, "%s", cmd);
		free(out);
	}
	free(model);
}

/*
 * The --json report is laid out as it nests: a list's closing bracket on a
 * line of its own at its key's indentation (once a stray "]    ," line), no
 * line ending in spaces; and it parses.
 */
Test(cli, the_json_report_closes_each_list_on_its_own_line, .init = scratch_setup, .fini = scratch_teardown)
{
	static const struct {
		const char *cmd, *model;
	} runs[] = {
		{ "scs4onnx-optimize '%s' o1.onnx --json r.json -n", "opt_identity.onnx" },
		{ "scs4onnx-shrink '%s' o2.onnx --optimize --json r.json -n", "opt_identity.onnx" },
		{ "scs4onnx-shrink '%s' o3.onnx --json r.json -n", "dup_basic.onnx" },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char cmd[1024], *out, *text, *path = path_in(scratch_dir, "r.json"), *model = fixture(runs[i].model);
		int line = 1;

		snprintf(cmd, sizeof(cmd), runs[i].cmd, model);
		free(model);
		cr_assert_eq(sh(&out, "rm -f r.json && %s", cmd), 0, "%s: %s", cmd, out);
		free(out);
		text = read_text(path);
		cr_assert_not_null(strstr(text, "\n  ]"), "%s: no list with items", cmd);
		for (const char *p = text; *p; p++) {
			if (*p != '\n')
				continue;
			cr_expect(p == text || p[-1] != ' ', "%s: line %d ends in spaces", cmd, line);
			line++;
		}
		for (const char *p = text; (p = strchr(p, ']')) != NULL; p++) {
			const char *q = p + 1;

			while (*q == ' ')
				q++;
			cr_expect(q == p + 1 || *q == '\n', "%s: ']' followed by spaces: %.20s", cmd, p);
		}
		cr_expect_eq(sh(&out, "/usr/bin/python3 -c 'import json; json.load(open(\"r.json\"))'"), 0, "%s: %s", cmd,
		    out);
		free(out);
		free(text);
		free(path);
	}
}
