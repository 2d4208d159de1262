/*
 * test_spill.c: each payload read once (src/io/payload.h, "spill"). A run
 * whose output has external data streams every payload once, hashing it and
 * writing it into the data file on the way, and the writer keeps what of
 * that file matches its layout. These tests hold that the outputs are byte
 * for byte those of the runs without the spill (every fixture, every tool,
 * pages dropped behind the writes taking bytes back, a layout that differs from the spill
 * early or late, an inline output that drops it), that a run reads its
 * input's bytes once (the report's counts), that the outputs compute what
 * the inputs do (ONNX Runtime, onnx.checker), and that a run refused
 * before its commit leaves no file. An output that goes inline is streamed
 * the same way into the model file (src/model/emit.c, "the inline stream"):
 * the same bytes as without, its reads once, the writer keeping what
 * matches when a pass (narrowing, a transposed copy, a fold, a drop) changed
 * what was streamed. The hooked tools read SCS_TEST_SPILL (0: never, 1:
 * whenever the output may be external, 2: every output not asked external
 * streamed inline).
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

/* run_spill() with @args, which write the report to @json: the bytes the run read (the report's bytes_read
 * and bytes_compared_mapped); *@input the input's bytes, *@written (when not NULL) the bytes written. */
static unsigned long long
reads_of(const char *tool, int spill, const char *env, const char *in, const char *dir, const char *args,
    const char *json, unsigned long long *input, unsigned long long *written)
{
	unsigned long long rd;
	char *text;

	cr_assert_eq(run_spill(&text, tool, spill, env, in, dir, args), 0, "%s", text);
	free(text);
	cr_assert_eq(run(&text, "cat '%s'", json), 0);
	*input = json_number(text, "input_bytes");
	rd = json_number(text, "bytes_read") + json_number(text, "bytes_compared_mapped");
	if (written)
		*written = json_number(text, "bytes_written");
	free(text);
	return rd;
}

/* @tool on @in with @args: the same exit status and the same files with and without the spill; 1 when it wrote. */
static int
same_with_and_without_as(const char *tool, int spill, const char *env, const char *in, const char *args)
{
	char *root = tmpdir_new(), *a = path_in(root, "a"), *b = path_in(root, "b"), *ta, *tb;
	int sa, sb;

	cr_assert_eq(run(NULL, "mkdir '%s' '%s'", a, b), 0);
	sa = run_spill(&ta, tool, 0, "", in, a, args);
	sb = run_spill(&tb, tool, spill, env, in, b, args);
	cr_expect_eq(sa, sb, "%s %s %s: exit %d without the spill, %d with it (SCS_TEST_SPILL=%d): %s / %s", tool, in,
	    args, sa, sb, spill, ta, tb);
	cr_expect(same_folders(a, b), "%s %s %s: other files with the spill (SCS_TEST_SPILL=%d): %s / %s", tool, in, args,
	    spill, listing(a), listing(b));
	free(ta);
	free(tb);
	free(a);
	free(b);
	tmpdir_remove(root);
	return sa == 0;
}

static int
same_with_and_without(const char *tool, const char *env, const char *in, const char *args)
{
	return same_with_and_without_as(tool, 1, env, in, args);
}

/* The same for an output that goes inline, streamed into the model file. */
static int
same_streamed(const char *tool, const char *env, const char *in, const char *args)
{
	return same_with_and_without_as(tool, 2, env, in, args);
}

/* Every fixture the build makes (QDQ graphs, IR 3, the newest opsets, operators with dozens of inputs,
 * every element type and encoding): scs4onnx-shrink with external data, in numbered files of 4 KiB (a
 * file for nearly each payload), with an inline output (which drops the spill), and with an inline
 * output streamed, writes the same files with the spill as without it, or fails alike. */
Test(spill, every_fixture_shrinks_to_the_same_bytes, .timeout = 1800)
{
	DIR *d = opendir(SCS_TEST_BUILD_DIR);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, written = 0, numbered = 0, streamed = 0;

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
			numbered += same_with_and_without("shrink", "", in, "--max-data-file-size 4K");
			same_with_and_without("shrink", "", in, "");
			streamed += same_streamed("shrink", "", in, "");
		}
		free(in);
		free(names[i]);
	}
	free(names);
	cr_expect_gt(written, 300, "only %zu fixtures shrunk", written);
	cr_expect_gt(numbered, 300, "only %zu fixtures shrunk into numbered files", numbered);
	cr_expect_gt(streamed, 300, "only %zu fixtures shrunk inline", streamed);
}

/* The other tools that read a whole model and write one: optimize (which merges equal initializers and
 * drops unused ones), big, shrink --optimize, and merge of split shards. */
Test(spill, every_tool_writes_the_same_bytes, .timeout = 600)
{
	static const char *const models[] = { "spill_mix.onnx", "spill_inline.onnx", "spill_edit.onnx", "dup_basic.onnx",
		"dup_encodings.onnx", "external.onnx", "if_outer.onnx", "loop_dup.onnx", "func_dup.onnx",
		"gather_typed.onnx", "typed_pair.onnx", "downcast.onnx", "big_dups_ext.onnx", "stream_diverge.onnx" };
	static const struct { const char *tool, *args; } runs[] = {
		{ "optimize", "--external-data" }, { "big", "--external-data" }, { "big", "--external-data --max-shard-size 200K" },
		{ "shrink", "--external-data --optimize" }, { "shrink", "--external-data -d" },
		{ "shrink", "--external-data --keep-transposed" }, { "shrink", "--max-data-file-size 64K" },
	};
	/* the same with inline outputs, streamed into the model file */
	static const struct { const char *tool, *args; } inline_runs[] = {
		{ "shrink", "" }, { "optimize", "" }, { "big", "" }, { "big", "--max-shard-size 200K" }, { "shrink", "--optimize" },
		{ "shrink", "-d" }, { "shrink", "--keep-transposed" }, { "shrink", "--mode npy" },
	};

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]);

		for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++)
			cr_expect(same_with_and_without(runs[k].tool, "", in, runs[k].args), "%s %s %s failed", runs[k].tool,
			    models[i], runs[k].args);
		for (size_t k = 0; k < sizeof(inline_runs) / sizeof(inline_runs[0]); k++)
			cr_expect(same_streamed(inline_runs[k].tool, "", in, inline_runs[k].args), "%s %s %s failed (streamed)",
			    inline_runs[k].tool, models[i], inline_runs[k].args);
		free(in);
	}
}

/* Merged shards: external, streamed inline, and in numbered data files (spill_numbered's sizes, and a
 * file per payload). */
Test(spill, merge_of_shards_writes_the_same_bytes)
{
	static const struct { const char *model, *shard, *args[3]; } runs[] = {
		{ "spill_mix.onnx", "100K", { "--external-data", NULL, NULL } },
		{ "spill_numbered.onnx", "1200K", { "--external-data", "--max-data-file-size 1536K", "--max-data-file-size 4K" } },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char *dir = tmpdir_new(), *shards = path_in(dir, "shards"), *in = fixture(runs[i].model);

		tool_ok("scs4onnx-split", "'%s' '%s' -n --max-shard-size %s", in, shards, runs[i].shard);
		for (size_t k = 0; k < 3 && runs[i].args[k]; k++)
			cr_expect(same_with_and_without("merge", "", shards, runs[i].args[k]), "%s %s", runs[i].model,
			    runs[i].args[k]);
		cr_expect(same_streamed("merge", "", shards, ""), "%s", runs[i].model);
		free(in);
		free(shards);
		tmpdir_remove(dir);
	}
}

/*
 * Numbered data files (--max-data-file-size): the spill starts a file where
 * the layout does (a payload that would take a file past the size, in a
 * file that holds something), takes back a copy that started a file and
 * goes on in the file before, and the writer keeps what of each file
 * matches. Every fixture of the suite, every tool, sizes from the smallest
 * (a file per payload) to one file: the same files as without the spill;
 * and with the sinks dropping behind every two blocks.
 */
Test(spill, numbered_files_the_same_bytes, .timeout = 900)
{
	static const char *const models[] = { "spill_numbered.onnx", "spill_mix.onnx", "spill_inline.onnx",
		"spill_edit.onnx", "big_dups_ext.onnx", "stream_diverge.onnx", "scattered.onnx", "loop_dup.onnx",
		"downcast.onnx", "dup_encodings.onnx" };
	static const char *const sizes[] = { "4K", "64K", "1536K", "2M", "3M", "5M" };
	static const char *const tools[] = { "shrink", "optimize", "big" };
	const char *hooks = "SCS_TEST_WRITEBACK_STEP=8192 SCS_TEST_SINK_BUF=4096";
	char args[64];
	size_t written = 0;

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]);

		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			snprintf(args, sizeof(args), "--max-data-file-size %s", sizes[k]);
			for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++)
				written += same_with_and_without(tools[t], "", in, args);
			if (i < 4)
				cr_expect(same_with_and_without("shrink", hooks, in, args), "%s %s with %s", models[i], args, hooks);
		}
		/* with --store: keys the second run of the pair finds kept by the first */
		if (i < 4) {
			char *dir = tmpdir_new(), *store = path_in(dir, "store"), with_store[4200];

			snprintf(with_store, sizeof(with_store), "--store '%s' --max-data-file-size 1536K", store);
			cr_expect(same_with_and_without("shrink", "", in, with_store), "%s %s", models[i], with_store);
			free(store);
			tmpdir_remove(dir);
		}
		free(in);
	}
	cr_expect_eq(written, sizeof(models) / sizeof(models[0]) * 6 * 3, "only %zu runs wrote", written);
}

/*
 * Numbered files of the kinds real models bring (gen_spill_models.py): a
 * QDQ graph at opset 21 (int8 weights, a copy, and one the same but its
 * last byte), IR 3 with every payload typed and inline, one Sum of 40
 * initializers (half of them copies, half typed). Every tool, in files of
 * 4 KiB and of 20 KiB: the same files as without the spill; shrunk, the
 * copies merged and the output computing what the input does.
 */
Test(spill, numbered_files_of_every_kind, .timeout = 300)
{
	static const struct { const char *model; size_t inits; } models[] = {
		{ "spill_qdq.onnx", 6 }, { "spill_ir3.onnx", 2 }, { "spill_sum40.onnx", 20 },
	};
	static const char *const sizes[] = { "4K", "20K" };
	static const char *const tools[] = { "shrink", "optimize", "big" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *dir = tmpdir_new(), *in = fixture(models[i].model), *out = path_in(dir, "out.onnx"), args[64], *text;
		Onnx__ModelProto *m;

		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			snprintf(args, sizeof(args), "--max-data-file-size %s", sizes[k]);
			for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++)
				cr_expect(same_with_and_without(tools[t], "", in, args), "%s %s %s", tools[t], models[i].model, args);
			cr_assert_eq(run_spill(&text, "shrink", 1, "", in, dir, args), 0, "%s", text);
			free(text);
			m = load_proto(out);
			cr_assert_not_null(m);
			cr_expect_eq(m->graph->n_initializer, models[i].inits, "%s %s: %zu initializers", models[i].model, args,
			    m->graph->n_initializer);
			free_proto(m);
			expect_equivalent(in, out, NULL);
		}
		free(out);
		free(in);
		tmpdir_remove(dir);
	}
}

/*
 * spill_numbered.onnx in data files of 1536 KiB: A in the first, D, c and
 * F in the second (B, E and G merged), each byte of the input read once
 * (the report's counts, as each_byte_is_read_once), where the run without
 * the spill reads the large payloads twice; the output computes what the
 * input does, and a second run on the output writes the same files. Were
 * the spill not to go back to the file before after the copy E that
 * started a file, c and F would lie in a third file, and the writer would
 * read them again (4% more; the runs read 1-2% more than their input,
 * optimize the most).
 */
Test(spill, numbered_files_read_once)
{
	static const char *const tools[] = { "shrink", "optimize", "big" };

	for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
		char *dir = tmpdir_new(), *in = fixture("spill_numbered.onnx"), *json = path_in(dir, "r.json");
		char *out = path_in(dir, "out.onnx"), args[4200], *text, *names;
		unsigned long long input, with, without;

		snprintf(args, sizeof(args), "--max-data-file-size 1536K --json '%s'", json);
		without = reads_of(tools[t], 0, "", in, dir, args, json, &input, NULL);
		with = reads_of(tools[t], 1, "", in, dir, args, json, &input, NULL);
		cr_expect_leq(with, input + input / 36, "%s: %llu bytes read for %llu of input", tools[t], with, input);
		cr_expect_geq(without, input + input / 3, "%s: %llu bytes read without the spill, for %llu of input",
		    tools[t], without, input);
		cr_assert_eq(run(&names, "cd '%s' && for f in out.onnx.*; do echo \"${f#out.onnx.????????????????}\" "
		    "$(stat -c %%s \"$f\"); done", dir), 0);
		cr_expect_str_eq(names, "-00001-of-00002.data 1048576\n-00002-of-00002.data 1178112\n", "%s: %s", tools[t],
		    names);
		free(names);
		expect_equivalent(in, out, NULL);
		/* a second run on its own output, into another folder: the same files */
		cr_assert_eq(run(&text, "mkdir '%s/again' && env SCS_TEST_SPILL=1 '%s/hooked-scs4onnx-%s' '%s' "
		    "'%s/again/out.onnx' -n --max-data-file-size 1536K && cd '%s' && for f in out.onnx*; do "
		    "cmp \"$f\" \"again/$f\" || exit 1; done && [ $(ls again | wc -l) = 3 ]", dir, SCS_HOOKED_TOOLS_DIR,
		    tools[t], out, dir, dir), 0, "%s: a second run changed its output: %s", tools[t], text);
		free(text);
		free(in);
		free(out);
		free(json);
		tmpdir_remove(dir);
	}
}

/*
 * A spill in numbered files holds a descriptor per file until the commit:
 * where the descriptor limit leaves no room for as many as it may make,
 * the files are written whole, as without the spill, and the run does not
 * fail. spill_unused.onnx optimized in files of 4 KiB under a limit of 300
 * descriptors: 400 payloads (a spill of 400 files), 10 kept (a layout of
 * 10 files).
 */
Test(spill, numbered_files_under_a_low_descriptor_limit)
{
	char *dir = tmpdir_new(), *in = fixture("spill_unused.onnx"), *text;

	for (int spill = 0; spill < 2; spill++) {
		cr_assert_eq(run(&text, "mkdir '%s/%d' && ulimit -n 300 && env SCS_TEST_SPILL=%d "
		    "'%s/hooked-scs4onnx-optimize' '%s' '%s/%d/out.onnx' -n --max-data-file-size 4K", dir, spill, spill,
		    SCS_HOOKED_TOOLS_DIR, in, dir, spill), 0, "SCS_TEST_SPILL=%d: %s", spill, text);
		free(text);
	}
	cr_expect_eq(run(&text, "diff -r '%s/0' '%s/1'", dir, dir), 0, "%s", text);
	free(text);
	cr_assert_eq(run(&text, "ls '%s/1' | wc -l", dir), 0);
	cr_expect_eq(atoi(text), 11, "%s files", text);
	free(text);
	free(in);
	tmpdir_remove(dir);
}

/*
 * Payloads whose first 4 KiB are equal are told apart by their whole
 * bytes (spill_heads.onnx: B is A but its last element, C a copy of A, D
 * of B). Every tool, one data file, numbered files and inline: the same
 * bytes as without the spill. With a sink buffer smaller than a payload
 * (so that what is written and taken back reaches the file), each byte of
 * the input read once and at most the four payloads written. B is kept
 * beside A, C and D merged into them, and the output computes what the
 * input does.
 */
Test(spill, same_heads_other_bytes_kept_apart)
{
	static const char *const args[] = { "--external-data", "--max-data-file-size 1M", "--max-data-file-size 1536K" };
	static const char *const tools[] = { "shrink", "optimize", "big" };
	char *dir = tmpdir_new(), *in = fixture("spill_heads.onnx"), *out = path_in(dir, "out.onnx");
	char *json = path_in(dir, "r.json"), opts[4200], *text;
	const unsigned long long mib = 1 << 20;
	Onnx__ModelProto *m;

	for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
		for (size_t k = 0; k < sizeof(args) / sizeof(args[0]); k++) {
			unsigned long long input, rd, wr;

			cr_expect(same_with_and_without(tools[t], "", in, args[k]), "%s %s", tools[t], args[k]);
			snprintf(opts, sizeof(opts), "%s --json '%s'", args[k], json);
			rd = reads_of(tools[t], 1, "SCS_TEST_SINK_BUF=65536", in, dir, opts, json, &input, &wr);
			cr_expect(wr >= 2 * mib && wr <= 4 * mib + mib / 16, "%s %s: %llu bytes written", tools[t], args[k], wr);
			cr_expect(rd >= input && rd <= input + input / 32, "%s %s: %llu bytes read for %llu", tools[t], args[k],
			    rd, input);
		}
		cr_expect(same_streamed(tools[t], "", in, ""), "%s inline", tools[t]);
	}
	cr_assert_eq(run_spill(&text, "shrink", 1, "", in, dir, "--external-data"), 0, "%s", text);
	free(text);
	m = load_proto(out);
	cr_assert_not_null(m);
	cr_expect_eq(m->graph->n_initializer, 2, "%zu initializers", m->graph->n_initializer);
	cr_expect_not_null(find_init(m->graph, "A"));
	cr_expect_not_null(find_init(m->graph, "B"));
	free_proto(m);
	expect_equivalent(in, out, NULL);
	free(json);
	free(out);
	free(in);
	tmpdir_remove(dir);
}

/* With --store (the keys kept in a store of the caller's, which the second run of each pair finds
 * filled by the first): the spill, external and inline, and the inline stream write what the runs
 * without them write. */
Test(spill, with_a_store_the_same_bytes)
{
	static const char *const models[] = { "spill_mix.onnx", "spill_inline.onnx", "stream_diverge.onnx",
		"big_dups_ext.onnx", "dup_encodings.onnx", "loop_dup.onnx" };
	static const char *const tools[] = { "shrink", "optimize", "big" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]);

		for (size_t k = 0; k < sizeof(tools) / sizeof(tools[0]); k++) {
			char *dir = tmpdir_new(), *store = path_in(dir, "store"), args[4200];

			snprintf(args, sizeof(args), "--store '%s' --external-data", store);
			cr_expect(same_with_and_without(tools[k], "", in, args), "%s %s %s failed", tools[k], models[i], args);
			snprintf(args, sizeof(args), "--store '%s'", store);
			cr_expect(same_streamed(tools[k], "", in, args), "%s %s %s failed (streamed)", tools[k], models[i], args);
			free(store);
			tmpdir_remove(dir);
		}
		free(in);
	}
}

/* Taking back bytes whose pages were dropped already: sinks drop behind every two blocks, with buffers of one. */
Test(spill, dropped_writes_taken_back)
{
	static const char *const models[] = { "spill_inline.onnx", "spill_mix.onnx", "spill_edit.onnx", "big_dups_ext.onnx" };
	const char *env = "SCS_TEST_WRITEBACK_STEP=8192 SCS_TEST_SINK_BUF=4096";

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]);

		cr_expect(same_with_and_without("shrink", env, in, "--external-data"), "%s", models[i]);
		cr_expect(same_with_and_without("optimize", env, in, "--external-data"), "%s", models[i]);
		cr_expect(same_streamed("shrink", env, in, ""), "%s", models[i]);
		cr_expect(same_streamed("optimize", env, in, ""), "%s", models[i]);
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
	/* stream: an inline output, streamed into the model file (SCS_TEST_SPILL=2); not optimize on
	 * big_dups_ext, whose Identity nodes the optimizer removes by renaming every initializer after the
	 * graph output it fed: no record of the stream stays, and the file is written anew */
	static const struct { const char *model, *tool; int edits, stream; } runs[] = {
		{ "spill_inline.onnx", "shrink", 0, 0 }, { "spill_inline.onnx", "big", 0, 0 },
		{ "spill_inline.onnx", "optimize", 0, 0 }, { "big_dups_ext.onnx", "shrink", 0, 0 },
		{ "spill_edit.onnx", "optimize", 1, 0 }, { "spill_edit.onnx", "shrink", 1, 0 },
		{ "spill_inline.onnx", "shrink", 0, 1 }, { "spill_inline.onnx", "big", 0, 1 },
		{ "spill_inline.onnx", "optimize", 0, 1 }, { "big_dups_ext.onnx", "shrink", 0, 1 },
		{ "big_dups_ext.onnx", "big", 0, 1 },
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
		snprintf(args, sizeof(args), "%s--json '%s'", runs[i].stream ? "" : "--external-data ", json);
		cr_assert_eq(run_spill(&text, runs[i].tool, 0, "", in, dir, args), 0, "%s", text);
		free(text);
		cr_assert_eq(run(&text, "cat '%s'", json), 0);
		input = json_number(text, "input_bytes");
		without = json_number(text, "bytes_read") + json_number(text, "bytes_compared_mapped");
		free(text);
		cr_assert_eq(run_spill(&text, runs[i].tool, runs[i].stream ? 2 : 1, "", in, dir, args), 0, "%s", text);
		free(text);
		cr_assert_eq(run(&text, "cat '%s'", json), 0);
		with = json_number(text, "bytes_read") + json_number(text, "bytes_compared_mapped");
		if (runs[i].stream)
			cr_expect_eq(count_files(dir, "out.onnx."), 0, "%s %s: an inline output has data files: %s",
			    runs[i].tool, runs[i].model, listing(dir));
		/* a page per payload that may equal another; spill_edit's K is read by the scan, the spill and
		 * the downcast (a payload the spill did not keep, C, would be 4 MiB more) */
		cr_expect_leq(with, input + input / (runs[i].edits ? 16 : 25), "%s %s%s: %llu bytes read for %llu of input",
		    runs[i].tool, runs[i].model, runs[i].stream ? " (inline)" : "", with, input);
		cr_expect_geq(without, input + input / 2, "%s %s%s: %llu bytes read without the spill, for %llu of input",
		    runs[i].tool, runs[i].model, runs[i].stream ? " (inline)" : "", without, input);
		free(text);
		free(in);
		free(json);
		tmpdir_remove(dir);
	}
}

/* What the spill's runs write computes what their inputs do: external outputs, and inline ones
 * streamed (where the passes changed what was streamed, in stream_diverge). */
Test(spill, outputs_compute_what_the_inputs_do)
{
	static const char *const tools[] = { "shrink", "optimize", "big" };
	static const char *const models[] = { "spill_mix.onnx", "stream_diverge.onnx", "spill_inline.onnx" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		for (size_t k = 0; k < sizeof(models) / sizeof(models[0]); k++)
			for (int stream = 0; stream < 2; stream++) {
				char *dir = tmpdir_new(), *in = fixture(models[k]), *out = path_in(dir, "out.onnx"), *text;

				cr_assert_eq(run_spill(&text, tools[i], stream ? 2 : 1, "", in, dir, stream ? "" : "--external-data"),
				    0, "%s", text);
				free(text);
				cr_expect_eq(count_files(dir, "out.onnx."), stream ? 0 : 1, "%s %s: data files: %s", tools[i],
				    models[k], listing(dir));
				if (strcmp(tools[i], "optimize") == 0 && strcmp(models[k], "stream_diverge.onnx") == 0) {
					/* its BatchNormalization folded into the Conv's weights: a rounding apart */
					cr_expect_eq(onnx_check(&text, out), 0, "onnx.checker: %s", text);
					free(text);
					cr_expect_eq(ort_same(&text, in, out, "--tol 1e-5,1e-5"), 0, "ONNX Runtime: %s", text);
					free(text);
				} else {
					expect_equivalent(in, out, NULL);
				}
				free(in);
				free(out);
				tmpdir_remove(dir);
			}
}

/*
 * The layout the inline stream relies on (src/onnx/pack.c): a graph's
 * initializers before its nodes, the large ones first, then the large int64
 * and int32 ones, then the rest, each run in the list's order; read back
 * and written again, the same order. Checked on the wire of stream_diverge
 * shrunk and optimized inline, with and without the stream.
 */
Test(spill, initializers_go_first_in_runs)
{
	static const char *const tools[] = { "shrink", "optimize" };

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		for (int spill = 0; spill <= 2; spill += 2) {
			char *dir = tmpdir_new(), *in = fixture("stream_diverge.onnx"), *out = path_in(dir, "out.onnx"),
			     *again = path_in(dir, "again"), *text;
			Onnx__ModelProto *m;
			int last = 0;

			cr_assert_eq(run_spill(&text, tools[i], spill, "", in, dir, ""), 0, "%s", text);
			free(text);
			cr_assert_eq(run(&text, "/usr/bin/python3 -c \"\n"
			    "import sys\n"
			    "b = open(sys.argv[1], 'rb').read()\n"
			    "def varint(p):\n"
			    "    v = s = 0\n"
			    "    while True:\n"
			    "        v |= (b[p] & 0x7f) << s; s += 7; p += 1\n"
			    "        if b[p - 1] < 0x80: return v, p\n"
			    "p = 0\n"
			    "while True:\n"
			    "    tag, p = varint(p)\n"
			    "    if tag == 0x3a: break\n"
			    "    if tag & 7 == 0: _, p = varint(p)\n"
			    "    else: n, p = varint(p); p += n\n"
			    "_, p = varint(p)\n"
			    "print('first graph field', b[p])\n"
			    "\" '%s'", out), 0, "%s", text);
			cr_expect_not_null(strstr(text, "first graph field 42"), "%s %d: the graph does not start with an "
			    "initializer (tag 42): %s", tools[i], spill, text);
			free(text);
			m = load_proto(out);
			cr_assert_not_null(m);
			for (size_t k = 0; k < m->graph->n_initializer; k++) {
				const Onnx__TensorProto *t = m->graph->initializer[k];
				int64_t n = 1;
				int run;

				for (size_t d = 0; d < t->n_dims; d++)
					n *= t->dims[d];
				run = n * (t->data_type == 11 || t->data_type == 7 ? 8 : 4) < 65536 ? 2 :
				    t->data_type == 7 || t->data_type == 6 ? 1 : 0;
				cr_expect_geq(run, last, "%s: initializer %zu (%s) of run %d after one of run %d", tools[i], k,
				    t->name, run, last);
				last = run;
			}
			cr_expect_gt(m->graph->n_initializer, 3, "%s: %zu initializers", tools[i], m->graph->n_initializer);
			free_proto(m);
			/* a fixed point: written again, the same bytes */
			cr_assert_eq(run(NULL, "mkdir '%s'", again), 0);
			cr_assert_eq(run_spill(&text, tools[i], spill, "", out, again, ""), 0, "%s", text);
			free(text);
			cr_expect_eq(run(&text, "cmp '%s' '%s/out.onnx'", out, again), 0, "%s %d: %s", tools[i], spill, text);
			free(text);
			free(in);
			free(out);
			free(again);
			tmpdir_remove(dir);
		}
}

/* A run refused after the spill (its output breaks a rule the input kept) leaves no file: neither the
 * spill nor a data file, nor the model file an inline stream began. */
Test(spill, a_refused_run_leaves_nothing)
{
	for (int stream = 0; stream < 2; stream++) {
		char *dir = tmpdir_new(), *in = fixture("spill_mix.onnx"), *text;
		int status;

		status = run_spill(&text, "shrink", stream ? 2 : 1, "SCS_TEST_BREAK_AFTER=dedup", in, dir,
		    stream ? "" : "--external-data");
		cr_expect_eq(status, 1, "exit %d: %s", status, text);
		cr_expect_not_null(strstr(text, "not written"), "%s", text);
		cr_expect_eq(count_files(dir, ""), 2, "files left (besides . and ..): %s", listing(dir));
		free(text);
		free(in);
		tmpdir_remove(dir);
	}
}

/*
 * Small payloads of external data files (up to 16 KiB) are hashed at the
 * end of the scan, asked of the disk ahead of their reads, and the
 * transposed pass asks ahead for the elements it samples
 * (scs_payloads_prefetch()): scattered.onnx has 300 biases between larger
 * weights in two data files, equal ones hundreds of payloads apart, and 70
 * transposed pairs (more than either asks for at once). Shrunk, with and
 * without the spill and from the same model in one file, the same bytes:
 * every bias equal to an earlier one merged into it, one of each
 * transposed pair kept, and the output computes what the input does.
 */
Test(spill, scattered_small_payloads_keyed_alike)
{
	char *dir = tmpdir_new(), *ext = fixture("scattered.onnx"), *one = fixture("scattered_inline.onnx");
	char *a = path_in(dir, "a.onnx"), *b = path_in(dir, "b.onnx"), *text, name[16];
	Onnx__ModelProto *m;
	int kept;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n", ext, a), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n", one, b), 0, "%s", text);
	free(text);
	cr_expect_eq(run(NULL, "cmp -s '%s' '%s'", a, b), 0, "scattered.onnx and scattered_inline.onnx shrink to other bytes");
	m = load_proto(a);
	cr_assert_not_null(m);
	cr_expect_eq(m->graph->n_initializer, 300 + 230 + 7, "%zu initializers", m->graph->n_initializer);
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		cr_expect_eq(find_init(m->graph, name) != NULL, i < 7, "%s kept: %d", name, find_init(m->graph, name) != NULL);
		snprintf(name, sizeof(name), "R%d", i);
		kept = find_init(m->graph, name) != NULL;
		snprintf(name, sizeof(name), "L%d", i);
		kept += find_init(m->graph, name) != NULL;
		cr_expect_eq(kept, i < 70 ? 1 : 2, "layer %d: %d of L and R kept", i, kept);
	}
	free_proto(m);
	expect_equivalent(ext, a, NULL);
	cr_expect(same_with_and_without("shrink", "", ext, "--external-data"));
	cr_expect(same_streamed("shrink", "", ext, ""));
	free(a);
	free(b);
	free(ext);
	free(one);
	tmpdir_remove(dir);
}

/*
 * A payload of 4 MiB or more in a file is read on a second thread, a ring of
 * four 256 KiB pieces ahead of the one that hashes and writes (test builds
 * take every payload of SCS_TEST_SPILL_THREAD_MIN bytes or more that way,
 * 16 KiB when unset, so that every suite's spills reach both ways). Every
 * tool, on models whose payloads run to megabytes (the ring goes round many
 * times, the reader waits for the writer) and to single bytes, in one data
 * file, numbered files, inline and streamed: the same files with every
 * payload read on the second thread as with none.
 */
Test(spill, reader_thread_writes_the_same_bytes, .timeout = 600)
{
	static const char *const models[] = { "spill_edit.onnx", "spill_inline.onnx", "big_dups_ext.onnx", "spill_mix.onnx",
		"dup_encodings.onnx", "spill_heads.onnx", "spill_sum40.onnx", "spill_qdq.onnx", "loop_dup.onnx" };
	static const struct { const char *tool, *args; int spill; } runs[] = {
		{ "shrink", "--external-data", 1 }, { "shrink", "--max-data-file-size 1M", 1 }, { "shrink", "", 2 },
		{ "optimize", "--external-data", 1 }, { "big", "--external-data --max-shard-size 2M", 1 },
		{ "shrink", "--external-data -d", 1 },
	};

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *in = fixture(models[i]);

		for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
			char *root = tmpdir_new(), *a = path_in(root, "a"), *b = path_in(root, "b"), *ta, *tb;
			int sa, sb;

			cr_assert_eq(run(NULL, "mkdir '%s' '%s'", a, b), 0);
			sa = run_spill(&ta, runs[k].tool, runs[k].spill, "SCS_TEST_SPILL_THREAD_MIN=0", in, a, runs[k].args);
			sb = run_spill(&tb, runs[k].tool, runs[k].spill, "SCS_TEST_SPILL_THREAD_MIN=1", in, b, runs[k].args);
			cr_expect_eq(sa, 0, "%s %s %s, no reader thread: exit %d: %s", runs[k].tool, models[i], runs[k].args, sa, ta);
			cr_expect_eq(sb, 0, "%s %s %s, every payload on the reader thread: exit %d: %s", runs[k].tool, models[i],
			    runs[k].args, sb, tb);
			cr_expect(same_folders(a, b), "%s %s %s: other files with the reader thread: %s / %s", runs[k].tool,
			    models[i], runs[k].args, listing(a), listing(b));
			free(ta);
			free(tb);
			free(a);
			free(b);
			tmpdir_remove(root);
		}
		free(in);
	}
}

/*
 * The reader thread's error is the run's: the input cut to 1 MiB while the
 * second thread reads a payload of spill_edit.onnx (17 MB, payloads of
 * megabytes) gives one line naming the input file, exit 1, and nothing in
 * the output's folder; the same cut with every payload read on the run's
 * own thread gives the same line.
 */
static int
newlines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

Test(spill, reader_thread_error_is_the_runs)
{
	char *lines[2] = { NULL, NULL };

	for (int threaded = 0; threaded < 2; threaded++) {
		char *root = tmpdir_new(), *in = path_in(root, "model.onnx"), *dir = path_in(root, "out"), *src = fixture("spill_edit.onnx"),
		     *text, env[160];
		int status;

		cr_assert_eq(run(NULL, "cp '%s' '%s' && mkdir '%s'", src, in, dir), 0);
		snprintf(env, sizeof(env), "SCS_TEST_SPILL_THREAD_MIN=%d SCS_TEST_CUT_AT_SPILL_READ=%d", threaded, 1 << 20);
		status = run_spill(&text, "shrink", 1, env, in, dir, "--external-data");
		cr_expect_eq(status, 1, "threaded %d: exit %d: %s", threaded, status, text);
		cr_assert_not_null(strstr(text, "model.onnx"), "threaded %d: the message names the input: %s", threaded, text);
		cr_expect_eq(newlines(text), 1, "threaded %d: one line: %s", threaded, text);
		cr_expect_eq(count_files(dir, ""), 2, "threaded %d: files left (besides . and ..): %s", threaded, listing(dir));
		lines[threaded] = text;
		free(src);
		free(in);
		free(dir);
		tmpdir_remove(root);
	}
	/* past the folder's name, which differs */
	cr_expect_str_eq(strstr(lines[0], "model.onnx"), strstr(lines[1], "model.onnx"), "the same message on either thread");
	free(lines[0]);
	free(lines[1]);
}
