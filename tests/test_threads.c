/*
 * test_threads.c: the library's calls at once in several threads of one
 * process, as scs4onnx.h ("Threads") allows (threads_work.c): every public
 * call in two threads at once; many calls in four, also through named
 * temporaries. Every file a thread writes holds exactly the bytes the same
 * calls write in one thread alone; and a call starts no thread of its own.
 * scripts/test.sh runs the same through
 * threads-run in a ThreadSanitizer build, where a race fails the run.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>

#include "support.h"
#include "threads_work.h"

Test(threads, every_public_call_in_two_threads_at_once)
{
	char *dir = tmpdir_new(), msg[2048];

	cr_assert_eq(threads_every_call(SCS_TEST_BUILD_DIR, dir, 2, msg, sizeof(msg)), 0, "%s", msg);
	tmpdir_remove(dir);
}

Test(threads, four_threads_of_many_calls_write_what_one_writes)
{
	char *dir = tmpdir_new(), msg[2048];

	cr_assert_eq(threads_many_calls(SCS_TEST_BUILD_DIR, dir, 4, 8, 0, msg, sizeof(msg)), 0, "%s", msg);
	tmpdir_remove(dir);
}

/* Where outputs go through named temporaries (no O_TMPFILE), the list the
 * signal handler walks and the temporaries' mode are the threads' to share. */
Test(threads, four_threads_through_named_temporaries)
{
	char *dir = tmpdir_new(), msg[2048];

	cr_assert_eq(threads_many_calls(SCS_TEST_BUILD_DIR, dir, 4, 3, 1, msg, sizeof(msg)), 0, "%s", msg);
	tmpdir_remove(dir);
}

/* The threads of the process (/proc/self/task); 0 where it cannot be read. */
static int
threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

typedef struct seen {
	int most;                 /* the most threads a progress call saw */
	unsigned calls;
} seen;

static void
count_threads(void *payload, const char *stage, uint64_t done, uint64_t total)
{
	seen *s = payload;
	int n = threads_now();

	(void)stage;
	(void)done;
	(void)total;
	if (n > s->most)
		s->most = n;
	s->calls++;
}

/*
 * "A call starts no thread" (scs4onnx.h, "Threads"): while shrink, optimize
 * and big write an 80 MiB model, inline and with external data, each of
 * their progress calls sees the process's threads of before the call.
 */
Test(threads, a_call_starts_no_thread)
{
	char *dir = tmpdir_new(), *in = fixture("stream_threads.onnx"), *out = path_in(dir, "out.onnx");
	int before = threads_now();

	cr_assert_gt(before, 0, "/proc/self/task cannot be read");
	for (int external = 0; external <= 1; external++) {
		seen s = { 0, 0 };
		scs_shrink_options o = { .version = SCS_SHRINK_OPTIONS_VERSION, .external_data = external,
			.progress = count_threads, .progress_payload = &s };
		scs_optimize_options oo = { .version = SCS_OPTIMIZE_OPTIONS_VERSION, .external_data = external,
			.progress = count_threads, .progress_payload = &s };
		scs_big_options bo = { .version = SCS_BIG_OPTIONS_VERSION, .shrink = &o };
		scs_report rep = SCS_REPORT_INIT;

		cr_assert_eq(scs_shrink(&rep, in, out, &o), SCS_OK, "%s", scs_err_msg());
		scs_report_dispose(&rep);
		rep = (scs_report)SCS_REPORT_INIT;
		cr_assert_eq(scs_optimize(&rep, in, out, &oo), SCS_OK, "%s", scs_err_msg());
		scs_report_dispose(&rep);
		rep = (scs_report)SCS_REPORT_INIT;
		cr_assert_eq(scs_big(&rep, in, out, &bo), SCS_OK, "%s", scs_err_msg());
		scs_report_dispose(&rep);
		cr_assert_gt(s.calls, 10, "external %d: %u progress calls", external, s.calls);
		cr_assert_eq(s.most, before, "external %d: %d threads during the calls, %d before", external, s.most, before);
	}
	free(in);
	free(out);
	tmpdir_remove(dir);
}
