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
	uint8_t *buf;
	size_t n_buf;
	size_t cap;               /* bytes @buf holds: SINK_BUF_LEN, or DIRECT_BUF_LEN once direct */
	int direct;               /* 1: the file is O_DIRECT; -1: it will not be (see "direct writes") */
	struct direct_writer *dw; /* direct: the thread writing ... */
	uint8_t *spare;           /* ... the other buffer */
	uint64_t direct_after;    /* bytes in the file before it may turn direct */
	size_t direct_len;        /* bytes of each direct buffer: DIRECT_BUF_LEN */
	int direct_fail;          /* test builds: the second direct job fails halfway with this errno */
	uint64_t pos;
	uint64_t in_file;         /* bytes written to fd so far */
	uint64_t written_back;    /* ... of which writeback was asked to start */
	int status;
};

/* A sink with its write buffer and no file yet (fd -1): its commit opens
 * the file, then calls scs_sink_opened(). NULL when out of memory. */
scs_sink *scs_sink_new(void);

/* The sink's file is @s->fd now: it may turn direct on ext2/3/4 (sink.c,
 * "direct writes"). */
void scs_sink_opened(scs_sink *s);

/* Write all the buffer holds; a direct sink ends its direct writing (its
 * last buffer goes through the cache). SCS_OK or the sink's error. */
int scs_sink_flush(scs_sink *s);

/* End the direct writing, if any: the job in flight done, the thread gone,
 * the file writing through the cache from now on. Before the file closes. */
int scs_sink_leave_direct(scs_sink *s);

#ifdef SCS_TEST_HOOKS
/* Test builds: the SCS_TEST_* variable @name as a number; 0 when unset. */
long scs_sink_hook_value(const char *name);
#endif

#endif
