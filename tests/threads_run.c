/*
 * threads_run.c: threads-run, the threads suite without Criterion (whose
 * runner does not start under ThreadSanitizer): every public call in two
 * threads at once, then many calls in four, also through named
 * temporaries (threads_work.h). Exit status 0 when every output equals the
 * one-thread reference; else 1 and one line. scripts/test.sh runs it in the
 * ThreadSanitizer build, where any race report fails the run. The scratch
 * folder is made under $TMPDIR (or /tmp) and removed at the end.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "threads_work.h"

/* A new folder @name in @dir (@out, @len bytes); 0 or -1. */
static int
new_dir(char *out, size_t len, const char *dir, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
	if (mkdir(out, 0777) < 0) {
		perror(out);
		return -1;
	}
	return 0;
}

int
main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char dir[4096], sub[4200], msg[2048], cmd[4200];
	int rc;

	snprintf(dir, sizeof(dir), "%s/threads-run.XXXXXX", base);
	if (mkdtemp(dir) == NULL) {
		perror(dir);
		return 1;
	}
	if ((rc = new_dir(sub, sizeof(sub), dir, "every")) == 0 &&
	    (rc = threads_every_call(SCS_TEST_BUILD_DIR, sub, 2, msg, sizeof(msg))) == 0 &&
	    (rc = new_dir(sub, sizeof(sub), dir, "many")) == 0 &&
	    (rc = threads_many_calls(SCS_TEST_BUILD_DIR, sub, 4, 2, 0, msg, sizeof(msg))) == 0 &&
	    (rc = new_dir(sub, sizeof(sub), dir, "named")) == 0)
		rc = threads_many_calls(SCS_TEST_BUILD_DIR, sub, 4, 1, 1, msg, sizeof(msg));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "threads-run: cannot remove %s\n", dir);
	if (rc < 0) {
		fprintf(stderr, "threads-run: %s\n", msg);
		return 1;
	}
	printf("threads-run: every public call in 2 threads, many in 4: outputs equal one thread's\n");
	return 0;
}
