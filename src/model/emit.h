/*
 * emit.h: the streaming writer. Packs the skeleton with src/onnx/pack.c and
 * streams each payload from where it lies (input file or store) as the
 * writer reaches it: inline when the model stays under the protobuf
 * limit, otherwise (or on request) with ONNX external data beside the
 * model: one data file, or numbered ones of at most a given size
 * (io/datafiles.h), every payload at an offset aligned to 4096. All the
 * files appear together or not at all, as files of one commit (commit.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_EMIT_H
#define SCS_EMIT_H

#include <stdint.h>

#include "model/model.h"
#include "util/progress.h"
#include "io/commit.h"
#include "io/datafiles.h"

/* Largest inline model written: protobuf's 2 GiB limit. */
#define SCS_EMIT_INLINE_MAX (((uint64_t)2 << 30) - 1)

typedef struct scs_emit_options {
	int external;             /* 1: external data even when inline would fit */
	uint64_t external_min;    /* payloads at least this long go external (0: 1024) */
	uint64_t inline_max;      /* 0: SCS_EMIT_INLINE_MAX */
	uint64_t max_file_len;    /* external data in numbered files of at most this many bytes (0: one file) */
	int narrows;              /* 1: a downcast may narrow int64 and float64 constants before the write */
	scs_progress_cb progress; /* bytes written so far */
	void *progress_payload;
} scs_emit_options;

typedef struct scs_emit_result {
	int external;             /* 1 when a data file was written */
	uint64_t model_len;       /* bytes of the .onnx */
	uint64_t data_len;        /* bytes of the data files (0 when inline) */
	uint64_t n_external;      /* tensors stored externally */
	scs_data_layout data;     /* the data files written (n_files 0 when inline): their names
	                             by scs_data_layout_name(&data, name, k), lengths in data.file_len */
} scs_emit_result;

/*
 * Write model @m as the file @name of commit @c: the .onnx (role
 * SCS_SINK_MODEL) and, when external, its data files beside it, named by
 * their contents (io/datafiles.h: "<name>.<16 hex>.data", or with
 * max_file_len "<name>.<16 hex>-00001-of-00004.data" ...), which every
 * external tensor's location names. Nothing is visible before
 * scs_commit_run(@c); on failure the caller aborts the commit. The model is
 * unchanged afterwards. Dispose of *@res with scs_emit_result_dispose() in
 * any case.
 */
int scs_emit_write(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts);

/*
 * Write the @n models @ms, whose payloads are one set (scs_model_load_with),
 * as the files @names of commit @c, with one set of data files for them all
 * (io/datafiles.h: one file, or numbered files of at most opts->max_file_len
 * bytes): every payload of at least opts->external_min bytes (0: 1024) once,
 * payloads of equal bytes in one place, in the order the models (then their
 * tensors) first use them, each model's tensors pointing into the files
 * named for @stem; smaller payloads inline (opts->external and
 * opts->inline_max are not used). *@l gets the layout (no file when no
 * payload is that long: l->n_files 0); dispose of it in any case. res[i] is
 * model i's (data_len: the data files' bytes together, in each). @dry:
 * nothing is opened or written, the figures are what would be. The models
 * are unchanged afterwards.
 */
int scs_emit_write_shared(scs_emit_result *res, scs_model *const *ms, size_t n, scs_commit *c,
    const char *const *names, const char *stem, const scs_emit_options *opts, int dry, scs_data_layout *l);

/*
 * Write model @m as the file @name of commit @c, its tensors of at least
 * opts->external_min bytes (0: 1024) whose payloads the layout @l holds
 * pointing at their places in @l's data files named for @data_stem, which
 * the caller writes (scs_data_layout_write(), in the same commit); the
 * others stay inline. For several models sharing one set of data files:
 * their payloads in one set, laid out once over all their payloads. *@res
 * holds no layout (data_len 0). The model is unchanged afterwards.
 */
int scs_emit_write_into(scs_emit_result *res, scs_model *m, scs_commit *c, const char *name, const scs_data_layout *l,
    const char *data_stem, const scs_emit_options *opts);

/*
 * The figures scs_emit_write(@res, @m, c, @name, @opts) would give
 * (model_len, data_len, external, n_external, the layout's files and
 * lengths), nothing opened or written and no payload read: the data files'
 * digest is left as zeros (names of the same length). The model is
 * unchanged afterwards.
 */
int scs_emit_size(scs_emit_result *res, scs_model *m, const char *name, const scs_emit_options *opts);

/*
 * Before the passes of a run whose model @m goes out as the file @name of
 * commit @c through scs_emit_write(..., @opts): when that write will be
 * external (asked for, or the payloads too long to go inline even with
 * the equal ones of a class merged), read every payload the data file will
 * hold once, in the order the writer places them, into a spill of @c
 * (payload.h): the passes then find them keyed, a dedup's compares are
 * their strong digests, and the writer keeps the spill as the data file
 * where it matches. When the write may go inline, the main graph's large
 * initializers (64 MiB of them or more; any with SCS_TEST_SPILL=2) are
 * streamed the same way into the model file of @c (emit.c, "the inline
 * stream"), which scs_emit_write() keeps where it matches. @merge_equal: a
 * dedup runs that keeps the first of equal constants (equal payloads of a
 * class are taken back). *@spilled: 1 when it spilled or streamed. On
 * failure nothing of either stays in @c.
 */
int scs_emit_spill(scs_model *m, scs_commit *c, const char *name, const scs_emit_options *opts, int merge_equal,
    int *spilled);

/* Drop the spill or inline stream of @m in @c that no write took (an inline output, numbered files, a
 * failed write); nothing when none. */
void scs_emit_spill_drop(scs_model *m, scs_commit *c);

void scs_emit_result_dispose(scs_emit_result *res);

#endif
