/*
 * err.h: status codes and the one error message of the current thread.
 *
 * Every failing function returns a negative SCS_E* code and leaves a message
 * that reads outermost-first ("model.onnx: offset 12: initializer 'w':
 * length runs past end of file"). Callers add where they were with
 * scs_err_wrap(). The library never prints; the tools print scs_err_msg().
 * The codes, scs_err_msg() and scs_err_name() are public
 * (<scs4onnx/error.h>); setting a message is the library's own business.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_ERR_H
#define SCS_ERR_H

#include <stdarg.h>

#include <scs4onnx/error.h>

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

/* Forget the current message. */
void scs_err_clear(void);

#endif
