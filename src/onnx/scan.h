/*
 * scan.h: the wire walk of a model file. Reads the file once, in bounded
 * windows with 64-bit offsets, so a 40 GiB .onnx is as readable as a small
 * one. Every message field is checked against the ONNX schema (wire types,
 * lengths, nesting depth); every TensorProto payload (raw_data, the typed
 * fields, external data) is hashed and recorded in the payload set, and
 * what is left, the skeleton, is returned as protobuf bytes for model.c.
 *
 * In the skeleton a tensor's payload is replaced by the private field
 * TensorProto.scs_payload (number SCS_SCAN_REF_FIELD, see proto/onnx.proto)
 * holding the payload id; string tensors keep their string_data. Unknown
 * fields are kept as they were.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SCAN_H
#define SCS_SCAN_H

#include <stdint.h>

#include "util/buf.h"
#include "io/payload.h"
#include "util/progress.h"

/* The largest field number protobuf allows; an input that uses it in a
 * TensorProto is refused rather than misread. */
#define SCS_SCAN_REF_FIELD 536870911u

/* Messages nested deeper than this are refused. */
#define SCS_SCAN_MAX_DEPTH 96

/*
 * Called, when set, with the skeleton of each element of a repeated message
 * field of the model's main graph (nodes, initializers, inputs, ...), in file
 * order, instead of adding it to the skeleton: so the skeleton of a model of
 * a million nodes is never whole in one buffer. @field is the GraphProto
 * field number, @off where the element's bytes start in the file. < 0 stops
 * the scan with that code.
 */
typedef int (*scs_scan_part_fn)(void *ctx, uint32_t field, const uint8_t *data, size_t len, uint64_t off);

typedef struct scs_scan_options {
	int hold_bytes;     /* 1: payloads go into the store even when a file holds them */
	scs_progress_cb progress;   /* bytes of the file read so far */
	void *progress_payload;
	scs_scan_part_fn part;      /* see above; NULL: everything goes into the skeleton */
	void *part_ctx;
} scs_scan_options;

/*
 * Scan the ModelProto in file @path.
 * @param[out] skeleton  receives the skeleton bytes (caller disposes)
 * @param set            payloads are appended; files are opened into it
 * @return SCS_OK; SCS_ECORRUPT with "path: offset N: what" for bad input.
 */
int scs_scan_file(scs_buf *skeleton, scs_payloads *set, const char *path, const scs_scan_options *opts);

#endif
