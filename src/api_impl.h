/*
 * api_impl.h: what the public calls (api.c: shrink and optimize;
 * api_shards.c: split, merge and big) share, from api.c: a run's start and
 * end, its stages' progress and clock, loading the input, the passes a
 * report counts, the output checks and the writing of the result. Private
 * to the public calls.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_API_IMPL_H
#define SCS_API_IMPL_H

#include <stdint.h>

#include "model/model.h"
#include "opt/opt.h"
#include "shrink/pass.h"
#include "scs4onnx.h"
#include "io/commit.h"
#include "io/store.h"

typedef struct scs_api_progress {
	scs_progress_fn fn;
	void *payload;
	const char *stage;
	uint64_t total;           /* the current stage's byte count, once it reported one */
	uint64_t base;            /* bytes of the files this stage finished before the current one */
	uint64_t rest;            /* bytes of the files this stage reads after the current one */
	uint64_t last;            /* the current file's total, as last reported */
} scs_api_progress;

/* One public call's run: its report, progress and clock, its output's folder. */
typedef struct scs_api_run {
	scs_report *rep;
	scs_api_progress pc;
	double t0;
	char *out_dir;            /* the output model's folder (NULL: a call that writes none) */
} scs_api_run;

/* The start of every public call (the clock, the report, @check's checks of @opts, @out's path), and its end. */
int scs_api_run_begin(scs_api_run *r, scs_report *rep, scs_progress_fn fn, void *payload,
    int (*check)(scs_report *, const void *), const void *opts, const char *out);
void scs_api_run_end(scs_api_run *r);

/* The monotonic clock, in seconds. */
double scs_api_now(void);

/* Forward a room's progress (done, total) as the current stage's (@payload: a scs_api_progress). */
void scs_api_stage_progress(void *payload, uint64_t done, uint64_t total);

/* Start stage @name: progress line and clock. */
double scs_api_stage_start(scs_api_progress *pc, const char *name);

/* End stage @name: its progress line at 100% when it counted bytes, and its time. */
void scs_api_stage_end(scs_report *rep, scs_api_progress *pc, const char *name, double t0, uint64_t bytes);

/* The scan options of a run: the store holds the bytes when @store_dir is kept,
 * progress through @pc. */
void scs_api_scan_options(scs_scan_options *so, const char *store_dir, scs_api_progress *pc);

/* Open the store and scan @in into *m; @seal: its main graph's initializers kept sealed. */
int scs_api_load_input(scs_model **m, scs_store **store, scs_report *rep, const char *in, const char *store_dir,
    const char *tmp_parent, scs_api_progress *pc, int seal);

/* Dedup @m into @rep (@count 0: a second look at constants counted before). */
int scs_api_dedup(scs_model *m, scs_report *rep, int count);

/* The transposed pass on @models (sharing one payload set), what it did into @rep. */
int scs_api_transposed(scs_model *const *models, size_t n_models, scs_report *rep);

/* Count what a dedup of @m studies into @rep, merging nothing. */
int scs_api_dedup_count(scs_model *m, scs_report *rep);

/* The initializers listed among @m's graph inputs (pass.h), counted in @rep. */
int scs_api_lift_defaults(scs_defaults *d, scs_model *m, scs_report *rep, int as_constants);

/* Give the graph inputs the dims of --input-shape's @specs ("NAME=1,3,224,224"). */
int scs_api_set_input_shapes(scs_model *m, const char *const *specs, size_t n);

/* The optimizer's passes on @m (scs_opt_run_with), what they did into @rep. */
int scs_api_run_optimizer(scs_model *m, scs_report *rep, const char *const *only, size_t n_only,
    const char *const *skip, size_t n_skip, const scs_opt_settings *settings);

/* What scs4onnx-shrink does to a model: dedup, downcast, dedup again (see api.c). */
int scs_api_shrink_passes(scs_model *m, scs_report *rep, const scs_shrink_options *opts, int count,
    scs_pass_notes *order);

/* SCS_EUSAGE when @max (a max_data_file_size) is neither 0 nor at least SCS_DATA_FILE_MIN. */
int scs_api_check_data_file_size(uint64_t max);

/* Refuse an output @out that would overwrite, or remove, a file the model is read from. */
int scs_api_check_outputs(const scs_model *m, const char *out);

/* Do folders @a and @b name the same folder? */
int scs_api_same_folder(const char *a, const char *b);

/*
 * Before the passes of a run that writes @m as @out with @opts' external
 * data options: the commit of @out into *@c, with the spill of every
 * payload its data file will hold (scs_emit_spill(), @merge_equal as
 * there) when the output will be external; *@c NULL when there is none.
 */
int scs_api_spill(scs_commit **c, scs_model *m, const char *out, const scs_shrink_options *opts, int merge_equal,
    scs_api_progress *pc);

/* Extraction, then the model @out and its .npy files, all committed together: in @c (a commit of
 * scs_api_spill(), which the call takes over, run or aborted), or a commit of its own (@c NULL). */
int scs_api_write_result(scs_model *m, scs_report *rep, const char *out, const scs_shrink_options *opts,
    const scs_defaults *dflt, scs_api_progress *pc, scs_commit *c);

#endif
