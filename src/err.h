/*
 * err.h: status codes and the one error message of the current thread.
 *
 * Every failing function returns a negative SCS_E* code and leaves a message
 * that reads outermost-first ("model.onnx: offset 12: initializer 'w':
 * length runs past end of file"). Callers add where they were with
 * scs_err_wrap(). The library never prints; the tools print scs_err_msg().
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_ERR_H
#define SCS_ERR_H

#include <stdarg.h>

enum {
	SCS_OK = 0,
	SCS_DONE = 1,            /* an iteration ended */
	SCS_ENOMEM = -1,
	SCS_EIO = -2,
	SCS_ECORRUPT = -3,       /* the input is not a valid model */
	SCS_ENOTFOUND = -4,
	SCS_EUNSUPPORTED = -5,
	SCS_ERANGE = -6,         /* a size does not fit */
	SCS_EUSAGE = -7,         /* the caller asked for something impossible */
};

#if defined(__GNUC__)
#define SCS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SCS_PRINTF(a, b)
#endif

/* Record the message made from @fmt and return @code. */
int scs_err_set(int code, const char *fmt, ...) SCS_PRINTF(2, 3);

/* Record "<fmt>: <strerror(errnum)>" and return SCS_EIO (SCS_ENOMEM for ENOMEM). */
int scs_err_errno(int errnum, const char *fmt, ...) SCS_PRINTF(2, 3);

/* Prefix the current message with "<fmt>: " and return @code unchanged. */
int scs_err_wrap(int code, const char *fmt, ...) SCS_PRINTF(2, 3);

/* The current message; valid until the next scs_err_* call of this thread. */
const char *scs_err_msg(void);

/* Forget the current message. */
void scs_err_clear(void);

/* A short name for a code ("corrupt input", "I/O error", ...). */
const char *scs_err_name(int code);

#endif
