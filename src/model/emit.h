/*
 * emit.h: the streaming writer. Packs the skeleton with src/onnx/pack.c and
 * streams each payload from where it lies (input file or store) as the
 * writer reaches it: inline when the model stays under the protobuf
 * limit, otherwise (or on request) with ONNX external data in one file
 * beside the model, every payload at an offset aligned to 4096. Both files
 * appear together or not at all, as files of one commit (sink.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_EMIT_H
#define SCS_EMIT_H

#include <stdint.h>

#include "model/model.h"
#include "util/progress.h"
#include "io/commit.h"

/* Largest inline model written: protobuf's 2 GiB limit. */
#define SCS_EMIT_INLINE_MAX (((uint64_t)2 << 30) - 1)

typedef struct scs_emit_options {
	int external;             /* 1: external data even when inline would fit */
	uint64_t external_min;    /* payloads at least this long go external (0: 1024) */
	uint64_t inline_max;      /* 0: SCS_EMIT_INLINE_MAX */
	scs_progress_cb progress; /* bytes written so far */
	void *progress_payload;
} scs_emit_options;

typedef struct scs_emit_result {
	int external;             /* 1 when a data file was written */
	uint64_t model_len;       /* bytes of the .onnx */
	uint64_t data_len;        /* bytes of the data file (0 when inline) */
	uint64_t n_external;      /* tensors stored externally */
} scs_emit_result;

/*
 * Write model @m as the file @name of commit @c: the .onnx (role
 * SCS_SINK_MODEL) and, when external, its data file beside it, named by
 * its contents (scs_sink_data_name(): "<name>.<16 hex>.data"), which every
 * external tensor's location names. Nothing is visible before
 * scs_commit_run(@c); on failure the caller aborts the commit. The model is
 * unchanged afterwards.
 */
int scs_emit_write(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts);

/*
 * Write the @n models @ms, whose payloads are one set (scs_model_load_with),
 * as the files @names of commit @c, with one data file for them all: every
 * payload of at least opts->external_min bytes (0: 1024) once in it, at an
 * offset aligned to 4096, in the order the models (then their tensors) first
 * reference it, each model's tensors pointing into it; smaller payloads
 * inline (opts->external and opts->inline_max are not used). The data file
 * is named "<@stem>.<16 hex>.data" (scs_sink_data_name(), from its
 * contents); *data_name gets that name (malloc'd; NULL when no payload is
 * that long and no data file is written). res[i] is model i's (data_len:
 * the shared file's bytes, in each). @dry: nothing is opened or written,
 * the figures are what would be. The models are unchanged afterwards.
 */
int scs_emit_write_shared(scs_emit_result *res, scs_model *const *ms, size_t n, scs_commit *c,
    const char *const *names, const char *stem, const scs_emit_options *opts, int dry, char **data_name);

#endif
