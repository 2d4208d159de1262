/*
 * progress.h: the one callback through which a room reports how far a long
 * step has come. A room calls it with @done and @total in the room's unit
 * (bytes read or written), a few times a second at most, from the calling
 * thread; it prints nothing itself. api.c forwards these calls to the
 * public scs_progress_fn (scs4onnx.h) with the name of the current stage.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_PROGRESS_H
#define SCS_PROGRESS_H

#include <stdint.h>

/* @payload is the one the caller gave beside the callback, untouched. */
typedef void (*scs_progress_cb)(void *payload, uint64_t done, uint64_t total);

#endif
