/*
 * threads_work.h: the library's public calls at once in several threads of
 * one process (threads_work.c), for the threads suite and for threads-run,
 * the program the ThreadSanitizer build runs. Each runs the calls once in
 * the calling thread alone (the reference), then in @n_threads threads at
 * once, each into a folder of its own under @dir: every file each thread
 * writes must hold the reference's bytes, and every call must succeed (or
 * fail as it should, with the thread's own message). 0, or -1 with @msg
 * saying what went wrong. @fixtures is the folder of the test models.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_TEST_THREADS_WORK_H
#define SCS_TEST_THREADS_WORK_H

#include <stddef.h>

/* Every public call once in each thread: shrink (inline, external data,
 * nested graphs, npy mode, with the optimizer), split, merge, big, optimize,
 * the report functions, failing calls, the table calls. */
int threads_every_call(const char *fixtures, const char *dir, int n_threads, char *msg, size_t len);

/* @rounds rounds of shrink and optimize calls in each thread; @named_temps:
 * outputs through named temporaries (as without O_TMPFILE). */
int threads_many_calls(const char *fixtures, const char *dir, int n_threads, int rounds, int named_temps, char *msg,
    size_t len);

#endif
