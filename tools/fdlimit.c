/*
 * fdlimit.c: the tools' descriptor limit (see fdlimit.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "fdlimit.h"

#include <sys/resource.h>

void
cli_raise_fd_limit(void)
{
	struct rlimit rl;

	/* a failure (an unlimited hard limit the kernel caps lower) keeps the
	 * old limit: the library copes with any */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}
