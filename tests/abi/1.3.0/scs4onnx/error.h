/*
 * scs4onnx/error.h: the status codes every call returns and the one error
 * message of the current thread.
 *
 * A failing call returns a negative SCS_E* code and leaves a message that
 * reads outermost-first ("model.onnx: offset 12: initializer 'w': length
 * runs past end of file"). The library never prints.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS4ONNX_ERROR_H
#define SCS4ONNX_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

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

/* The current message of the calling thread ("" when none; each thread has
 * its own): a buffer of the library that stays valid for the thread's life,
 * whose text the next failing library call of this thread replaces. Do not
 * free it. */
const char *scs_err_msg(void);

/* A short name for a code ("corrupt input", "I/O error", ...): a static
 * string, valid for the life of the process; do not free it. */
const char *scs_err_name(int code);

#ifdef __cplusplus
}
#endif

#endif
