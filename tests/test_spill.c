/*
 * test_spill.c: each payload read once (src/io/payload.h, "spill"). A run
 * whose output has external data streams every payload once, hashing it and
 * writing it into the data file on the way, and the writer keeps what of
 * that file matches its layout. These tests hold that the outputs are byte
 * for byte those of the runs without the spill (every fixture, every tool,
 * direct writes taking bytes back, a layout that differs from the spill
 * early or late, an inline output that drops it), that a run reads its
 * input's bytes once (the report's counts), that the outputs compute what
 * the inputs do (ONNX Runtime, onnx.checker), and that a run refused
 * before its commit leaves no file. The hooked tools read SCS_TEST_SPILL
 * (0: never, 1: whenever the output may be external).
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* The names in @dir, sorted, one per line (malloc'd). */
static char *
listing(const char *dir)
{
	char *text;

	cr_assert_eq(run(&text, "ls -1 '%s'", dir), 0, "%s", text);
	return text;
}

/* 1 when folders @a and @b hold files of the same names and bytes. */
static int
same_folders(const char *a, const char *b)
{
	char *text;
	int same = run(&text, "diff -r '%s' '%s' >/dev/null", a, b) == 0;

	free(text);
	return same;
}

/* Run hooked scs4onnx-@tool on @in into @dir/out.onnx with SCS_TEST_SPILL=@spill, @env before it and @args
 * after; the exit status, *@text the output (freed by the caller when not NULL). */
static int
run_spill(char **text, const char *tool, int spill, const char *env, const char *in, const char *dir, const char *args)
{
	char *out = NULL;
	int status;

	status = run(text ? text : &out, "env SCS_TEST_SPILL=%d %s '%s/hooked-scs4onnx-%s' '%s' '%s/out.onnx' -n -f %s",
	    spill, env, SCS_HOOKED_TOOLS_DIR, tool, in, dir, args);
	free(out);
	return status;
}

/* @tool on @in with @args: the same exit status and the same files with and without the spill; 1 when it wrote. */
static int
same_with_and_without(const char *tool, const char *env, const char *in, const char *args)
{
	char *root = tmpdir_new(), *a = path_in(root, "a"), *b = path_in(root, "b"), *ta, *tb;
	int sa, sb;

	cr_assert_eq(run(NULL, "mkdir '%s' '%s'", a, b), 0);
	sa = run_spill(&ta, tool, 0, "", in, a, args);
	sb = run_spill(&tb, tool, 1, env, in, b, args);
	cr_expect_eq(sa, sb, "%s %s %s: exit %d without the spill, %d with it: %s / %s", tool, in, args, sa, sb, ta, tb);
	cr_expect(same_folders(a, b), "%s %s %s: other files with the spill: %s / %s", tool, in, args, listing(a),
	    listing(b));
	free(ta);
	free(tb);
	free(a);
	free(b);
	tmpdir_remove(root);
	return sa == 0;
}

/* Every fixture the build makes: scs4onnx-shrink with external data, and with an inline output (which
 * drops the spill), writes the same files with the spill as without it, or fails alike. */
Test(spill, every_fixture_shrinks_to_the_same_bytes, .timeout = 1800)
{
	DIR *d = opendir(SCS_TEST_BUILD_DIR);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, written = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len > 5 && strcmp(e->d_name + len - 5, ".onnx") == 0) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	cr_assert_gt(n, 300, "only %zu fixtures", n);
	for (size_t i = 0; i < n; i++) {
		char *in = fixture(names[i]);

		if (file_size(in) <= ((uint64_t)64 << 20)) {
			written += same_with_and_without("shrink", "", in, "--external-data");
			same_with_and_without("shrink", "", in, "");
		}
		free(in);
		free(names[i]);
	}
	free(names);
	cr_expect_gt(written, 300, "only %zu fixtures shrunk", written);
}

/* The other tools that read a whole model and write one: optimize (which merges equal initializers and
 * drops unused ones), big, shrink --optimize, and merge of split shards. */
Test(spill, every_tool_writes_the_same_bytes, .timeout = 600)
{
	static const char *const models[] = { "spill_mix.onnx", "spill_inline.onnx", "spill_edit.onnx", "dup_basic.onnx",
		"dup_encodings.onnx", "external.onnx", "if_outer.onnx", "loop_dup.onnx", "func_dup.onnx",
		"gather_typed.onnx", "typed_pair.onnx", "downcast.onnx", "big_dups_ext.onnx" };
	static const struct { const char *tool, *args; } runs[] = {
		{ "optimize", "--external-data" }, { "big", "--external-data" }, { "big", "--external-data --max-shard-size 200K" },
		{ "shrink", "--external-data --optimize" }, { "shrink", "--external-data -d" },
		{ "shrink", "--external-data --keep-transposed" }, { "shrink", "--max-data-file-size 64K" },
	};

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]);

		for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++)
			cr_expect(same_with_and_without(runs[k].tool, "", in, runs[k].args), "%s %s %s failed", runs[k].tool,
			    models[i], runs[k].args);
		free(in);
	}
}

Test(spill, merge_of_shards_writes_the_same_bytes)
{
	char *dir = tmpdir_new(), *shards = path_in(dir, "shards"), *in = fixture("spill_mix.onnx");

	tool_ok("scs4onnx-split", "'%s' '%s' -n --max-shard-size 100K%s", in, shards, "");
	cr_expect(same_with_and_without("merge", "", shards, "--external-data"));
	free(in);
	free(shards);
	tmpdir_remove(dir);
}

/* Taking back bytes a direct sink wrote already: sinks turn direct at once, with buffers of two blocks. */
Test(spill, direct_writes_taken_back)
{
	static const char *const models[] = { "spill_inline.onnx", "spill_mix.onnx", "spill_edit.onnx", "big_dups_ext.onnx" };
	const char *env = "SCS_TEST_DIRECT_AFTER=0 SCS_TEST_DIRECT_BUF=8192";

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]);

		cr_expect(same_with_and_without("shrink", env, in, "--external-data"), "%s", models[i]);
		cr_expect(same_with_and_without("optimize", env, in, "--external-data"), "%s", models[i]);
		free(in);
	}
}

/*
 * The bytes a run reads (the report's bytes_read: read, pread and the
 * kernel's copies, and bytes_compared_mapped) are its input's once, plus a
 * page per payload that may equal another (its head) and what a pass reads
 * again; without the spill the same run reads the large payloads twice.
 */
Test(spill, each_byte_is_read_once)
{
	/* spill_edit: the data file differs from the spill, which the filesystem edits where it can
	 * (ext2/3/4 here; elsewhere the rest is written anew) */
	static const struct { const char *model, *tool; int edits; } runs[] = {
		{ "spill_inline.onnx", "shrink", 0 }, { "spill_inline.onnx", "big", 0 }, { "spill_inline.onnx", "optimize", 0 },
		{ "big_dups_ext.onnx", "shrink", 0 }, { "spill_edit.onnx", "optimize", 1 }, { "spill_edit.onnx", "shrink", 1 },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char *dir = tmpdir_new(), *in = fixture(runs[i].model), *json = path_in(dir, "r.json"), args[4200], *text;
		unsigned long long input, with, without;

		if (runs[i].edits && !statfs_is_ext(dir)) {
			free(in);
			free(json);
			tmpdir_remove(dir);
			continue;
		}
		snprintf(args, sizeof(args), "--external-data --json '%s'", json);
		cr_assert_eq(run_spill(&text, runs[i].tool, 0, "", in, dir, args), 0, "%s", text);
		free(text);
		cr_assert_eq(run(&text, "cat '%s'", json), 0);
		input = json_number(text, "input_bytes");
		without = json_number(text, "bytes_read") + json_number(text, "bytes_compared_mapped");
		free(text);
		cr_assert_eq(run_spill(&text, runs[i].tool, 1, "", in, dir, args), 0, "%s", text);
		free(text);
		cr_assert_eq(run(&text, "cat '%s'", json), 0);
		with = json_number(text, "bytes_read") + json_number(text, "bytes_compared_mapped");
		/* a page per payload that may equal another; spill_edit's K is read by the scan, the spill and
		 * the downcast (a payload the spill did not keep, C, would be 4 MiB more) */
		cr_expect_leq(with, input + input / (runs[i].edits ? 16 : 25), "%s %s: %llu bytes read for %llu of input",
		    runs[i].tool,
		    runs[i].model, with, input);
		cr_expect_geq(without, input + input / 2, "%s %s: %llu bytes read without the spill, for %llu of input",
		    runs[i].tool, runs[i].model, without, input);
		free(text);
		free(in);
		free(json);
		tmpdir_remove(dir);
	}
}

/* What the spill's runs write computes what their inputs do. */
Test(spill, outputs_compute_what_the_inputs_do)
{
	static const char *const tools[] = { "shrink", "optimize", "big" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *dir = tmpdir_new(), *in = fixture("spill_mix.onnx"), *out = path_in(dir, "out.onnx"), *text;

		cr_assert_eq(run_spill(&text, tools[i], 1, "", in, dir, "--external-data"), 0, "%s", text);
		free(text);
		cr_expect_eq(count_files(dir, "out.onnx."), 1, "%s: data files: %s", tools[i], listing(dir));
		expect_equivalent(in, out, NULL);
		free(in);
		free(out);
		tmpdir_remove(dir);
	}
}

/* A run refused after the spill (its output breaks a rule the input kept) leaves no file: neither the
 * spill nor a data file. */
Test(spill, a_refused_run_leaves_nothing)
{
	char *dir = tmpdir_new(), *in = fixture("spill_mix.onnx"), *text;
	int status;

	status = run_spill(&text, "shrink", 1, "SCS_TEST_BREAK_AFTER=dedup", in, dir, "--external-data");
	cr_expect_eq(status, 1, "exit %d: %s", status, text);
	cr_expect_not_null(strstr(text, "not written"), "%s", text);
	cr_expect_eq(count_files(dir, ""), 2, "files left (besides . and ..): %s", listing(dir));
	free(text);
	free(in);
	tmpdir_remove(dir);
}
