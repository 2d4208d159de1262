/*
 * fdlimit.h: the tools' descriptor limit. The library keeps a bounded set
 * of input files open whatever the limit; raising the soft limit to the
 * hard one at start leaves the outputs, the store and that set room.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_FDLIMIT_H
#define SCS_FDLIMIT_H

/* Raise RLIMIT_NOFILE's soft limit to its hard limit; best effort. */
void cli_raise_fd_limit(void);

#endif
