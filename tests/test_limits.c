/*
 * test_limits.c: what the machine refuses becomes one error line and exit
 * status 1, never a signal or a hang, and leaves nothing behind: a FIFO for
 * an input or a data file, a file-size limit (SIGXFSZ), a full disk under
 * the output (also with numbered data files, several temporaries at once) or
 * under the store (with MDB_WRITEMAP a SIGBUS unless the
 * store reserves its blocks first); a machine without /proc (the temporary
 * store's O_TMPFILE is opened through it, with a named file as fallback).
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

/* Files in @dir other than those named in @keep (space-separated). */
static int
count_others(const char *dir, const char *keep)
{
	char *text;
	int n = 0;

	cr_assert_eq(run(&text, "ls -A '%s'", dir), 0, "%s", text);
	for (char *name = strtok(text, "\n"); name; name = strtok(NULL, "\n")) {
		char pad[512];

		snprintf(pad, sizeof(pad), " %s ", name);
		if (strstr(keep, pad) == NULL) {
			cr_log_error("left behind: %s", name);
			n++;
		}
	}
	free(text);
	return n;
}

/* @text is one line that names @what, the run exited 1. */
static void
expect_one_error_line(int status, const char *text, const char *what)
{
	cr_assert_eq(status, 1, "exit status %d: %s", status, text);
	cr_assert_not_null(strstr(text, "error: "), "%s", text);
	cr_assert_not_null(strstr(text, what), "the message names %s: %s", what, text);
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "one line: %s", text);
}

Test(limits, a_fifo_input_is_refused_at_once)
{
	char *dir = tmpdir_new(), *fifo = path_in(dir, "m.onnx"), *text;
	int status;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* timeout turns a hang into status 124 */
	status = run(&text, "timeout 10 '%s/scs4onnx-shrink' '%s' '%s/out.onnx'", SCS_TOOLS_DIR, fifo, dir);
	expect_one_error_line(status, text, "not a regular file");
	cr_assert_eq(count_others(dir, " m.onnx "), 0);
	free(text);
	free(fifo);
	tmpdir_remove(dir);
}

Test(limits, a_fifo_external_data_file_is_refused_at_once)
{
	char *dir = tmpdir_new(), *text;
	int status;

	cr_assert_eq(run(&text, "cp '%s/external.onnx' '%s/external_b.bin' '%s/' && mkfifo '%s/external_a.bin'",
	    SCS_TEST_BUILD_DIR, SCS_TEST_BUILD_DIR, dir, dir), 0, "%s", text);
	free(text);
	status = run(&text, "timeout 10 '%s/scs4onnx-shrink' '%s/external.onnx' '%s/out.onnx'", SCS_TOOLS_DIR,
	    dir, dir);
	expect_one_error_line(status, text, "external_a.bin");
	cr_assert_eq(count_others(dir, " external.onnx external_a.bin external_b.bin "), 0);
	free(text);
	tmpdir_remove(dir);
}

/* Under `ulimit -f`, past the limit a write is EFBIG (the tools ignore
 * SIGXFSZ). The store starts small, so a small model still shrinks. sh
 * counts 512-byte blocks: 2048 is 1 MiB. */
Test(limits, a_file_size_limit_is_an_error_and_a_small_model_fits_under_it)
{
	char *dir = tmpdir_new(), *text;
	int status;

	status = run(&text, "ulimit -f 2048 && '%s/scs4onnx-shrink' '%s/gather_typed.onnx' '%s/out.onnx' -n",
	    SCS_TOOLS_DIR, SCS_TEST_BUILD_DIR, dir);
	expect_one_error_line(status, text, "File too large");
	cr_assert_eq(count_others(dir, ""), 0);
	free(text);
	status = run(&text, "ulimit -f 2048 && '%s/scs4onnx-shrink' '%s/dup_encodings.onnx' '%s/out.onnx' -n",
	    SCS_TOOLS_DIR, SCS_TEST_BUILD_DIR, dir);
	cr_assert_eq(status, 0, "%s", text);
	free(text);
	cr_assert_eq(count_others(dir, " out.onnx "), 0);
	tmpdir_remove(dir);
}

/*
 * Run @args of scs4onnx-@tool with a tmpfs of @size (mount's spelling)
 * mounted at DIR/full, in a mount namespace of its own (so the mount ends
 * with the command); the files left in it printed after the tool's output.
 * Root only: skipped elsewhere. *status the tool's exit status.
 */
static char *
tool_on_a_full_disk(const char *dir, const char *tool, const char *size, const char *args, int *status)
{
	char *text;

	if (run(&text, "unshare -m true") != 0) {
		free(text);
		cr_skip_test("needs root to mount a small tmpfs (unshare -m)");
	}
	free(text);
	cr_assert_eq(run(&text, "mkdir '%s/full'", dir), 0, "%s", text);
	free(text);
	*status = run(&text, "unshare -m sh -c \"mount -t tmpfs -o size=%s tmpfs '%s/full' && "
	    "'%s/scs4onnx-%s' %s; s=\\$?; ls -A '%s/full' >&2; exit \\$s\"", size, dir, SCS_TOOLS_DIR, tool, args, dir);
	return text;
}

static char *
shrink_on_a_full_disk(const char *dir, const char *args, int *status)
{
	return tool_on_a_full_disk(dir, "shrink", "1m", args, status);
}

Test(limits, a_full_disk_under_the_output_is_an_error)
{
	char *dir = tmpdir_new(), *args, *text;
	int status;

	cr_assert_gt(asprintf(&args, "'%s/gather_raw.onnx' '%s/full/out.onnx' -n --disable-auto-downcast",
	    SCS_TEST_BUILD_DIR, dir), 0);
	text = shrink_on_a_full_disk(dir, args, &status);
	/* ls printed nothing: the tmpfs was left empty */
	expect_one_error_line(status, text, "No space left");
	free(text);
	free(args);
	tmpdir_remove(dir);
}

Test(limits, a_full_disk_under_the_store_is_an_error_not_a_signal)
{
	char *dir = tmpdir_new(), *args, *text;
	int status;

	/* a temporary store beside the output, on the full disk */
	cr_assert_gt(asprintf(&args, "'%s/gather_typed.onnx' '%s/full/out.onnx' -n", SCS_TEST_BUILD_DIR, dir), 0);
	text = shrink_on_a_full_disk(dir, args, &status);
	expect_one_error_line(status, text, "No space left");
	free(text);
	free(args);
	/* a kept store on the full disk, the output elsewhere */
	cr_assert_eq(run(&text, "rmdir '%s/full'", dir), 0, "%s", text);
	free(text);
	cr_assert_gt(asprintf(&args, "'%s/gather_typed.onnx' '%s/out.onnx' -n --store '%s/full/st'",
	    SCS_TEST_BUILD_DIR, dir, dir), 0);
	text = shrink_on_a_full_disk(dir, args, &status);
	cr_assert_eq(status, 1, "exit status %d: %s", status, text);
	cr_assert_not_null(strstr(text, "No space left"), "%s", text);
	free(text);
	free(args);
	cr_assert_eq(count_others(dir, " full "), 0);
	tmpdir_remove(dir);
}

/*
 * Numbered data files hold several temporaries at once (the spill's files,
 * then the writer's): a full disk or a file-size limit met in the first
 * spill file, in the second, or in the writer's second data file
 * (spill_numbered.onnx in files of 1536 KiB: 1 MiB and 1.1 MiB) is one
 * error line and exit status 1 for shrink, optimize and big, and leaves no
 * file behind; the same for merge of its shards; with room enough the
 * same run succeeds.
 */
Test(limits, numbered_data_files_on_a_full_disk_leave_nothing)
{
	static const char *const tools[] = { "shrink", "optimize", "big", "merge" };
	static const char *const sizes[] = { "1100k", "2200k", "2400k" };
	char *dir = tmpdir_new(), *args, *text;
	int status;

	tool_ok("scs4onnx-split", "'%s/spill_numbered.onnx' '%s/shards' -n --max-shard-size 1200K", SCS_TEST_BUILD_DIR, dir,
	    NULL);
	for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
		if (strcmp(tools[t], "merge") == 0)
			cr_assert_gt(asprintf(&args, "'%s/shards' '%s/full/out.onnx' -n --max-data-file-size 1536K", dir, dir), 0);
		else
			cr_assert_gt(asprintf(&args, "'%s/spill_numbered.onnx' '%s/full/out.onnx' -n --max-data-file-size 1536K",
			    SCS_TEST_BUILD_DIR, dir), 0);
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			/* ls printed nothing: the tmpfs was left empty */
			text = tool_on_a_full_disk(dir, tools[t], sizes[k], args, &status);
			expect_one_error_line(status, text, "No space left");
			free(text);
			cr_assert_eq(run(&text, "rmdir '%s/full'", dir), 0, "%s", text);
			free(text);
		}
		text = tool_on_a_full_disk(dir, tools[t], "3m", args, &status);
		cr_expect_eq(status, 0, "%s with room: %s", tools[t], text);
		free(text);
		cr_assert_eq(run(&text, "rm -r '%s/full'", dir), 0, "%s", text);
		free(text);
		/* sh's ulimit -f counts blocks of 512 bytes: the first spill file, the second */
		for (int limit = 2000; limit <= 2200; limit += 200) {
			status = run(&text, "mkdir '%s/full' && ulimit -f %d && '%s/scs4onnx-%s' %s", dir, limit, SCS_TOOLS_DIR,
			    tools[t], args);
			expect_one_error_line(status, text, "File too large");
			cr_expect(limit == 2000 || strstr(text, "-00002-of-00002.data"), "%s: not the second file: %s", tools[t],
			    text);
			free(text);
			cr_assert_eq(count_others(dir, " full shards "), 0);
			cr_assert_eq(run(&text, "rmdir '%s/full'", dir), 0, "%s: files left under ulimit -f %d: %s", tools[t],
			    limit, text);
			free(text);
		}
		free(args);
	}
	tmpdir_remove(dir);
}

/*
 * Without /proc (some containers): an empty tmpfs over it, in a mount
 * namespace of its own. Every tool makes its temporary store the other way
 * (a named file, unlinked at once) with its tables, and its output computes
 * what its input computes.
 */
Test(limits, without_proc_every_tool_makes_its_temporary_store)
{
	char *dir, *model, *shards, *text, *path;
	static const char *const outs[] = { "shrunk.onnx", "merged.onnx", "big.onnx", "optimized.onnx" };
	int status;

#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("the tools of a sanitizer build need /proc (LeakSanitizer stops a forked committer through it)");
#endif
	if (run(&text, "unshare -m true") != 0) {
		free(text);
		cr_skip_test("needs root to mount over /proc (unshare -m)");
	}
	free(text);
	dir = tmpdir_new();
	model = fixture("gather_typed.onnx");
	status = run(&text, "cd '%s' && unshare -m sh -c \"mount -t tmpfs none /proc && test ! -e /proc/self && "
	    "T='%s' && \\$T/scs4onnx-shrink '%s' shrunk.onnx -n && \\$T/scs4onnx-split '%s' shards && "
	    "\\$T/scs4onnx-merge shards merged.onnx && \\$T/scs4onnx-big '%s' big.onnx -n && "
	    "\\$T/scs4onnx-optimize '%s' optimized.onnx -n\"", dir, SCS_TOOLS_DIR, model, model, model, model);
	cr_assert_eq(status, 0, "%s", text);
	free(text);
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		path = path_in(dir, outs[i]);
		expect_equivalent(model, path, NULL);
		free(path);
	}
	shards = path_in(dir, "shards");
	expect_shards_compute(model, shards);
	free(shards);
	cr_assert_eq(count_others(dir, " shrunk.onnx shards merged.onnx big.onnx optimized.onnx "), 0);
	free(model);
	tmpdir_remove(dir);
}

/*
 * An input cut while dedup compares its payloads from mapped pages (the
 * hooked tools cut the first file of a compare to 1,000,000 bytes just
 * before it): the touched page is a SIGBUS, caught; the run names the file
 * that changed and its size now, exits 1 and writes nothing. The model
 * inline, and with its payloads in two data files; shrink and big.
 */
Test(limits, an_input_cut_while_its_payloads_are_compared_is_named_not_a_signal)
{
	static const struct {
		const char *files, *model, *cut;
	} cases[] = {
		{ "big_dups.onnx", "big_dups.onnx", "big_dups.onnx" },
		{ "big_dups_ext.onnx big_dups_ext_a.bin big_dups_ext_b.bin", "big_dups_ext.onnx", "big_dups_ext_a.bin" },
	};
	static const char *const tools[] = { "shrink", "big" };

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
			char *dir = tmpdir_new(), *text, want[160], keep[160];
			int status;

			cr_assert_eq(run(&text, "cd '%s' && for f in %s; do cp \"%s/$f\" .; done", dir, cases[c].files,
			    SCS_TEST_BUILD_DIR), 0, "%s", text);
			free(text);
			status = run(&text, "cd '%s' && SCS_TEST_CUT_AT_COMPARE=1000000 '%s/hooked-scs4onnx-%s' '%s' out.onnx",
			    dir, SCS_HOOKED_TOOLS_DIR, tools[t], cases[c].model);
			snprintf(want, sizeof(want), "%s: the file changed while it was read (now 1000000 bytes)",
			    cases[c].cut);
			expect_one_error_line(status, text, want);
			free(text);
			snprintf(keep, sizeof(keep), " %s ", cases[c].files);
			cr_assert_eq(count_others(dir, keep), 0, "%s, %s: something was written", cases[c].model, tools[t]);
			tmpdir_remove(dir);
		}
	}
}
