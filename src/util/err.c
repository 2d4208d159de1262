/*
 * err.c: the thread-local error message. Messages are bounded (a long name
 * in an input is cut, never allowed to grow the buffer).
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MSG_LEN 1024

static _Thread_local char msg[MSG_LEN];

/* Names come from input files: keep control bytes off the user's terminal. */
static void
tame(char *p)
{
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

int
scs_err_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tame(msg);
	return code;
}

int
scs_err_errno(int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	used = strlen(msg);
	if (used + 2 < sizeof(msg)) {
		msg[used] = ':';
		msg[used + 1] = ' ';
		snprintf(msg + used + 2, sizeof(msg) - used - 2, "%s", strerror(errnum));
	}
	tame(msg);
	return errnum == ENOMEM ? SCS_ENOMEM : SCS_EIO;
}

int
scs_err_wrap(int code, const char *fmt, ...)
{
	char prefix[MSG_LEN], old[MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, msg, sizeof(old));
	if (old[0] == '\0')
		snprintf(msg, sizeof(msg), "%s", prefix);
	else
		snprintf(msg, sizeof(msg), "%s: %s", prefix, old);
	tame(msg);
	return code;
}

const char *
scs_err_msg(void)
{
	return msg;
}

void
scs_err_clear(void)
{
	msg[0] = '\0';
}

const char *
scs_err_name(int code)
{
	switch (code) {
	case SCS_OK: return "ok";
	case SCS_DONE: return "done";
	case SCS_ENOMEM: return "out of memory";
	case SCS_EIO: return "I/O error";
	case SCS_ECORRUPT: return "corrupt input";
	case SCS_ENOTFOUND: return "not found";
	case SCS_EUNSUPPORTED: return "unsupported";
	case SCS_ERANGE: return "out of range";
	case SCS_EUSAGE: return "usage error";
	case SCS_ECHECK: return "output fails a check";
	default: return "unknown error";
	}
}
