/*
 * test_hygiene.c: tests leave nothing behind. A small part of the suite
 * (the dedup suite, in the unit tier, where some of its tests are skipped
 * before their .fini, and whole) runs with TMPDIR at a private folder, which
 * must be empty afterwards. scripts/test.sh, in a copy of the tree whose
 * setup, build and test binaries are stand-ins: it says first what it runs
 * and about how long, one line per stage, then only the failures (no note
 * a passing test prints) and the Criterion Synthesis line last; its logs go
 * to build/test-logs, nothing to work/. Its sanitizer stage reads its log
 * with scripts/sanitizer-reports.awk: every report fails but a leak of
 * Criterion's own runner.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char *dir;

static void
private_tmp(void)
{
	dir = tmpdir_new();
}

static void
remove_private_tmp(void)
{
	tmpdir_remove(dir);
}

/* Runs this binary's @filter with TMPDIR=dir (and @env), then expects dir empty. */
static void
expect_nothing_left(const char *env, const char *filter)
{
	char *text;
	/* BXFI_MAP marks a Criterion worker: the binary run again must not take itself for one */
	int rc = run(&text, "env -u BXFI_MAP %s TMPDIR='%s' '%s/../tests/unit' --filter='%s' -j1", env, dir, SCS_TOOLS_DIR,
	    filter);

	cr_assert_eq(rc, 0, "%s", text);
	cr_assert_not_null(strstr(text, "Failing: 0 | Crashing: 0"), "%s", text);
	free(text);
	cr_assert_eq(run(&text, "ls -A '%s'", dir), 0);
	cr_expect_str_empty(text, "%s left in TMPDIR:\n%s", filter, text);
	free(text);
}

Test(hygiene, the_unit_tier_leaves_nothing_in_tmpdir, .init = private_tmp, .fini = remove_private_tmp)
{
	expect_nothing_left("SCS_TEST_TIER=unit", "dedup/*");
}

Test(hygiene, a_suite_run_whole_leaves_nothing_in_tmpdir, .init = private_tmp, .fini = remove_private_tmp)
{
	expect_nothing_left("", "dedup/*");
}

/*
 * A stand-in for a Criterion binary: a passing test's note on stderr, a
 * failure, the Synthesis line; exit status 1.
 */
#define FAKE_UNIT "#!/bin/sh\n" \
	"echo 'note: not folded: a float16 result (a passing test)' >&2\n" \
	"echo '[----] t.c:1: Assertion Failed'\n" \
	"echo '[----]   what went wrong'\n" \
	"echo '[FAIL] s::t: (0.01s)'\n" \
	"echo '[====] Synthesis: Tested: 2 | Passing: 1 | Failing: 1 | Crashing: 0 '\n" \
	"exit 1\n"

/* scripts/test.sh copied into dir, its setup, build, builds and tests stand-ins. */
static void
test_script_in_scratch(void)
{
	char *text;

	dir = tmpdir_new();
	cr_assert_eq(run(&text, "cd '%s' && mkdir -p scripts build/tests build-asan/tests build-tsan/tests bin && "
	    "cp '%s/scripts/test.sh' '%s/scripts/sanitizer-reports.awk' scripts/ && "
	    "printf '#!/bin/sh\\n' > scripts/setup.sh && "
	    "cp scripts/setup.sh scripts/build.sh && cp scripts/setup.sh scripts/check-layers.sh && "
	    "printf '#!/bin/sh\\necho \"fuzz: 0 crashes\"\\n' > scripts/fuzz.sh && "
	    "cp scripts/setup.sh bin/ninja && cp scripts/setup.sh build-tsan/tests/threads-run && "
	    "touch build-asan/build.ninja build-tsan/build.ninja && "
	    "printf \"" FAKE_UNIT "\" > build/tests/unit && cp build/tests/unit build-asan/tests/unit && "
	    "chmod +x scripts/*.sh bin/* */tests/*", dir, SCS_TEST_SRC_DIR, SCS_TEST_SRC_DIR), 0, "%s", text);
	free(text);
}

/* test.sh's output, for @args, as the user sees it: what, how long, stages, failures, the Synthesis line last. */
static char *
expect_test_script_output(const char *args)
{
	char *text, *last, *stage;
	unsigned minutes, seconds;

	cr_assert_eq(run(&text, "cd '%s' && PATH=\"$PWD/bin:$PATH\" scripts/test.sh %s", dir, args), 1, "%s", text);
	cr_expect(strncmp(text, "test: ", 6) == 0 && strstr(text, "minutes on two cores") != NULL,
	    "no word first of what it runs and how long: %s", text);
	/* "[m:ss] setup and build": a stage and the time since the start */
	cr_assert_not_null(stage = strstr(text, "] setup and build\n"), "%s", text);
	while (stage > text && stage[-1] != '\n')
		stage--;
	cr_expect_eq(sscanf(stage, "[%u:%2u] setup", &minutes, &seconds), 2, "%s", text);
	cr_expect_not_null(strstr(text, "\n[----]   what went wrong\n[FAIL] s::t: (0.01s)\n"), "%s", text);
	cr_expect_null(strstr(text, "not folded"), "a passing test's note is printed: %s", text);
	text[strlen(text) - 1] = '\0';
	last = strrchr(text, '\n');
	cr_assert_not_null(last);
	cr_expect_str_eq(last + 1, "[====] Synthesis: Tested: 2 | Passing: 1 | Failing: 1 | Crashing: 0 ", "%s", text);
	cr_expect_eq(count_files(dir, "work"), 0, "work/ was made");
	return text;
}

Test(hygiene, test_script_quick_says_how_long_and_prints_failures_only, .init = test_script_in_scratch,
    .fini = remove_private_tmp)
{
	char *text = expect_test_script_output("--quick");

	cr_expect_not_null(strstr(text, "] unit tier\n"), "%s", text);
	cr_expect_null(strstr(text, "ASan"), "%s", text);
	free(text);
	cr_expect_eq(run(&text, "test -s '%s/build/test-logs/unit.log' && grep -c 'not folded' '%s/build/test-logs/unit.log'",
	    dir, dir), 0, "%s", text);
	free(text);
}

Test(hygiene, test_script_shows_each_stage, .init = test_script_in_scratch, .fini = remove_private_tmp)
{
	static const char *const stages[] = { "tests under ASan + UBSan", "threads under ThreadSanitizer (build-tsan)",
		"fuzzing (60 s)", "every test", "done" };
	char *text = expect_test_script_output("");

	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		char line[128];

		snprintf(line, sizeof(line), "] %s\n", stages[i]);
		cr_expect_not_null(strstr(text, line), "no stage line %s: %s", stages[i], text);
	}
	cr_expect_not_null(strstr(text, "\n[sanitizers] Synthesis: Tested: 2 | "), "%s", text);
	cr_expect_not_null(strstr(text, "about 75 minutes on two cores"), "%s", text);
	free(text);
	cr_expect_eq(run(&text, "test -s '%s/build/test-logs/asan.log'", dir), 0);
	free(text);
}

/* scripts/sanitizer-reports.awk on @log: its exit status; what it printed in *@out. */
static int
sanitizer_reports(const char *log, char **out)
{
	char *path = path_in(dir, "asan.log");
	int rc;

	write_all(path, log, strlen(log));
	rc = run(out, "awk -f '%s/scripts/sanitizer-reports.awk' '%s'", SCS_TEST_SRC_DIR, path);
	free(path);
	return rc;
}

/*
 * The sanitizer stage's reading of its log: a leak whose every frame is
 * the allocator's or Criterion's runner's is left out; a leak reaching any
 * other frame, an AddressSanitizer error and a UBSan runtime error fail.
 */
Test(hygiene, the_sanitizer_stage_fails_on_every_report_but_criterion_s_own_leak, .init = private_tmp,
    .fini = remove_private_tmp)
{
	static const char criterion_only[] =
	    "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
	    "Direct leak of 48 byte(s) in 1 object(s) allocated from:\n"
	    "    #0 0x7f in __interceptor_calloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:77\n"
	    "    #1 0x7f  (/lib/x86_64-linux-gnu/libcriterion.so.3+0x1a332)\n\n"
	    "SUMMARY: AddressSanitizer: 48 byte(s) leaked in 1 allocation(s).\n";
	static const char ours[] =
	    "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
	    "Direct leak of 48 byte(s) in 1 object(s) allocated from:\n"
	    "    #0 0x7f in __interceptor_calloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:77\n"
	    "    #1 0x7f  (/lib/x86_64-linux-gnu/libcriterion.so.3+0x1a332)\n\n"
	    "Indirect leak of 16 byte(s) in 1 object(s) allocated from:\n"
	    "    #0 0x7f in malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69\n"
	    "    #1 0x55 in scs_grow ../src/util/buf.c:40\n"
	    "    #2 0x7f  (/lib/x86_64-linux-gnu/libcriterion.so.3+0x1a332)\n\n"
	    "SUMMARY: AddressSanitizer: 64 byte(s) leaked in 2 allocation(s).\n";
	char *text;

	cr_assert_eq(sanitizer_reports(criterion_only, &text), 0, "%s", text);
	cr_assert_eq(text[0], '\0', "%s", text);
	free(text);
	cr_assert_neq(sanitizer_reports(ours, &text), 0, "a leak of ours passed");
	cr_assert_not_null(strstr(text, "scs_grow"), "%s", text);
	cr_assert_null(strstr(text, "48 byte"), "Criterion's own leak printed: %s", text);
	free(text);
	cr_assert_neq(sanitizer_reports("==2==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n", &text), 0);
	free(text);
	cr_assert_neq(sanitizer_reports("../src/infer/infer.c:806:21: runtime error: negation of -9223372036854775808\n", &text),
	    0);
	free(text);
}
