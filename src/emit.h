/*
 * emit.h: the streaming writer. Packs the skeleton with protobuf-c and
 * streams each payload from where it lies (input file or store) as
 * protobuf-c reaches it: inline when the model stays under the protobuf
 * limit, otherwise (or on request) with ONNX external data in one file
 * beside the model, every payload at an offset aligned to 4096. Both files
 * appear together or not at all (sink.h).
 */
#ifndef SCS_EMIT_H
#define SCS_EMIT_H

#include <stdint.h>

#include "model.h"

/* Largest inline model written: protobuf's 2 GiB limit. */
#define SCS_EMIT_INLINE_MAX (((uint64_t)2 << 30) - 1)

typedef struct scs_emit_options {
	int external;             /* 1: external data even when inline would fit */
	uint64_t external_min;    /* payloads at least this long go external (0: 1024) */
	uint64_t inline_max;      /* 0: SCS_EMIT_INLINE_MAX */
	void (*progress)(void *payload, uint64_t done, uint64_t total);   /* bytes written so far */
	void *progress_payload;
} scs_emit_options;

typedef struct scs_emit_result {
	int external;             /* 1 when OUT.data was written */
	uint64_t model_len;       /* bytes of the .onnx */
	uint64_t data_len;        /* bytes of OUT.data (0 when inline) */
	uint64_t n_external;      /* tensors stored externally */
} scs_emit_result;

/*
 * Write model @m to @path (and @path + ".data" when external). The @n_extra
 * sinks in @extra (other files of the same result, e.g. .npy files, written
 * already) are committed together with the model, or dropped with it; they
 * are consumed on every path. The model is unchanged afterwards.
 */
int scs_emit(scs_emit_result *res, scs_model *m, const char *path, const scs_emit_options *opts,
    scs_sink **extra, size_t n_extra);

/*
 * Write the files of model @m under temporary names without putting them in
 * place: @sinks[0..*n_sinks) (the .data file first when there is one) are
 * for scs_sink_commit(), together with other outputs of the same result.
 */
int scs_emit_prepare(scs_emit_result *res, scs_model *m, const char *path, const scs_emit_options *opts,
    scs_sink *sinks[2], size_t *n_sinks);

/* malloc'd "<path>.data"; NULL on ENOMEM. */
char *scs_emit_data_path(const char *path);

#endif
