/*
 * test_threads.c: the library's calls at once in several threads of one
 * process, as scs4onnx.h ("Threads") allows (threads_work.c): every public
 * call in two threads at once; many calls in four, also through named
 * temporaries. Every file a thread writes holds exactly the bytes the same
 * calls write in one thread alone. scripts/test.sh runs the same through
 * threads-run in a ThreadSanitizer build, where a race fails the run.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
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
