/*
 * sink_impl.h: a sink's insides, shared by the byte path (sink.c) and the
 * commit that opens the sink's file, names it and frees the sink
 * (commit.c). Private to the two.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SINK_IMPL_H
#define SCS_SINK_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/commit.h"
#include "io/sink.h"

struct scs_sink {
	scs_commit *c;
	int fd;
	scs_sink_role role;
	char *name;               /* its name in the commit's folder */
	char *target;             /* the path it will have, for messages */
	char *tmp;                /* without O_TMPFILE: the temporary's name in the temporaries' folder */
	struct temp_node *reg;    /* ... and its entry for the signal handler */
	char *hidden;             /* O_TMPFILE, files: the hidden name it takes on the way to a taken name */
	int existed;              /* a file had its name when the commit began */
	dev_t dev;                /* the temporary's identity, to tell whether a name is ours */
	ino_t ino;
	uint8_t *buf;             /* NULL: parked, or resting (scs_sink_rest()) */
	int resting;              /* 1: the buffer was released until the next write */
	size_t n_buf;
	size_t cap;               /* bytes @buf holds: SINK_BUF_LEN (less in tests) */
	uint64_t step;            /* bytes of each step of the drop behind the writes: WRITEBACK_STEP */
	uint64_t pos;
	uint64_t in_file;         /* bytes written to fd so far */
	uint64_t written_back;    /* ... of which writeback was asked to start */
	uint64_t dropped;         /* ... of which the pages were dropped from the cache */
	int status;
};

/* A sink with its write buffer and no file yet (fd -1): its commit opens
 * the file. NULL when out of memory. */
scs_sink *scs_sink_new(void);

/* Write all the buffer holds. SCS_OK or the sink's error. */
int scs_sink_flush(scs_sink *s);

#ifdef SCS_TEST_HOOKS
/* Test builds: the SCS_TEST_* variable @name as a number; 0 when unset. */
long scs_sink_hook_value(const char *name);
#endif

#endif
