/*
 * api.c: the public calls (scs4onnx.h): scan -> passes -> emit, owning the
 * store's lifetime and the output-path checks; here shrink, optimize and
 * the report's strings, and what every call shares (api_impl.h: a run's
 * start and end, its stages, the input, the passes, the output); split,
 * merge and big in api_shards.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include "scs4onnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

#include "api_impl.h"
#include "model/emit.h"
#include "shrink/npy.h"
#include "model/model.h"
#include "opt/opt.h"
#include "shrink/pass.h"
#include "util/path.h"
#include "precommit.h"
#include "report.h"
#include "io/sink.h"
#include "io/source.h"
#include "io/store.h"

void
scs_remove_temporaries(void)
{
	scs_temps_remove_all();
}

double
scs_api_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Forward a room's progress (done, total) as the current stage's. */
void
scs_api_stage_progress(void *payload, uint64_t done, uint64_t total)
{
	scs_api_progress *p = payload;

	p->last = total;
	/* one count for a stage that reads several files (merge's shards) */
	done += p->base;
	total += p->base + p->rest;
	if (total > 1)
		p->total = total;
	p->fn(p->payload, p->stage, done, total);
}


/* Start stage @name: progress line and clock. */
double
scs_api_stage_start(scs_api_progress *pc, const char *name)
{
	pc->stage = name;
	pc->total = pc->base = pc->rest = pc->last = 0;
	if (pc->fn)
		pc->fn(pc->payload, name, 0, 1);
	return scs_api_now();
}

/* End stage @name: its progress line at 100% when it counted bytes, and its time. */
void
scs_api_stage_end(scs_report *rep, scs_api_progress *pc, const char *name, double t0, uint64_t bytes)
{
	uint64_t total = bytes ? bytes : pc->total;   /* what was really read or written */

	if (pc->fn && total)
		pc->fn(pc->payload, name, total, total);
	scs_report_stage_add(rep, name, scs_api_now() - t0, bytes);
}

void
scs_api_scan_options(scs_scan_options *so, const char *store_dir, scs_api_progress *pc)
{
	memset(so, 0, sizeof(*so));
	so->hold_bytes = store_dir != NULL;
	if (pc->fn) {
		so->progress = scs_api_stage_progress;
		so->progress_payload = pc;
	}
}

/* Open the store and scan @in into *m; @seal: its main graph's initializers
 * kept sealed (model.h). */
int
scs_api_load_input(scs_model **m, scs_store **store, scs_report *rep, const char *in, const char *store_dir,
    const char *tmp_parent, scs_api_progress *pc, int seal)
{
	scs_scan_options so;
	int rc;

	if ((rc = scs_store_open(store, store_dir, tmp_parent)) < 0)
		return rc;
	scs_api_scan_options(&so, store_dir, pc);
	if ((rc = (seal ? scs_model_load_sealed : scs_model_load)(m, in, *store, &so)) < 0)
		return rc;
	for (size_t i = 0; i < (*m)->payloads->n_files; i++)
		rep->input_len += scs_source_size((*m)->payloads->files[i]);
	return SCS_OK;
}

/* A pass's notes at the end of report list @l. */
static int
report_notes(scs_report_list *l, const scs_pass_notes *notes)
{
	int rc;

	for (size_t i = 0; i < notes->n; i++)
		if ((rc = scs_report_add(l, notes->items[i].name, notes->items[i].detail)) < 0)
			return rc;
	return SCS_OK;
}

/*
 * What a pass returned (@res), into @rep, even when it failed (@rc: its
 * status, returned unless the report cannot take it): @count 0 for a
 * second look at the same constants, which adds nothing to what the report
 * counts as studied.
 */
static int
report_dedup(scs_report *rep, const scs_dedup_result *res, int count, int rc)
{
	int added = SCS_OK;

	if (count) {
		rep->n_constants += res->n_constants;
		rep->n_scalars += res->n_scalars;
	}
	for (size_t i = 0; added == SCS_OK && i < res->n_groups; i++) {
		const scs_dedup_group *g = &res->groups[i];

		added = scs_report_add_group(rep, g->canonical, (const char *const *)g->names, g->n_names, g->dtype,
		    g->bytes, g->lifted);
	}
	if (added == SCS_OK)
		added = report_notes(&rep->skipped, &res->skipped);
	return rc < 0 ? rc : added;
}

/* Dedup @m into @rep (@count: see report_dedup()). */
int
scs_api_dedup(scs_model *m, scs_report *rep, int count)
{
	scs_dedup_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = report_dedup(rep, &res, count, scs_pass_dedup(m, &res));
	scs_dedup_result_dispose(&res);
	return rc;
}

/* Count what a dedup of @m studies into @rep, merging nothing. */
int
scs_api_dedup_count(scs_model *m, scs_report *rep)
{
	scs_dedup_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = report_dedup(rep, &res, 1, scs_pass_dedup_count(m, &res));
	scs_dedup_result_dispose(&res);
	return rc;
}

/* Downcast @m into @rep; *@narrowed: how many constants it narrowed. */
static int
downcast(scs_model *m, scs_report *rep, size_t *narrowed)
{
	scs_downcast_result res;
	int rc, added;

	memset(&res, 0, sizeof(res));
	rc = scs_pass_downcast(m, &res);
	if ((added = report_notes(&rep->refused, &res.refused)) == SCS_OK)
		added = report_notes(&rep->narrowed, &res.narrowed);
	*narrowed = res.narrowed.n;
	scs_downcast_result_dispose(&res);
	return rc < 0 ? rc : added;
}

/* The transposed pass on @models (sharing one payload set), what it did into @rep. */
int
scs_api_transposed(scs_model *const *models, size_t n_models, scs_report *rep)
{
	scs_transposed_result res;
	int rc, added;

	memset(&res, 0, sizeof(res));
	rc = scs_pass_transposed(models, n_models, &res);
	if ((added = report_notes(&rep->transposed, &res.rewritten)) == SCS_OK)
		added = report_notes(&rep->skipped, &res.skipped);
	rep->bytes_transposed += res.bytes;
	scs_transposed_result_dispose(&res);
	return rc < 0 ? rc : added;
}

/* The initializers listed among @m's graph inputs (pass.h), counted in @rep. */
int
scs_api_lift_defaults(scs_defaults *d, scs_model *m, scs_report *rep, int as_constants)
{
	int rc = scs_pass_defaults_lift(d, m, as_constants);

	rep->n_default_inputs += d->n_listed;
	if (d->constants)
		rep->default_inputs_rule = d->below_ir4 ? SCS_DEFAULTS_CONSTANT_IR3 : SCS_DEFAULTS_CONSTANT_ASKED;
	return rc;
}

/* Give the graph inputs the dims of --input-shape's @specs ("NAME=1,3,224,224"). */
int
scs_api_set_input_shapes(scs_model *m, const char *const *specs, size_t n)
{
	int rc;

	for (size_t i = 0; i < n; i++)
		if ((rc = scs_infer_set_input_shape(m, specs[i])) < 0)
			return rc;
	return SCS_OK;
}

/* What the optimizer did (@res) into @rep's optimizer part: changes, left, passes, nodes, rounds. */
static int
report_optimizer(scs_report *rep, const scs_opt_result *res)
{
	int rc;

	rep->optimized = 1;
	for (size_t i = 0; i < res->changes.n; i++)
		if ((rc = scs_report_add(&rep->changes, res->changes.items[i].pass, res->changes.items[i].text)) < 0)
			return rc;
	for (size_t i = 0; i < res->left.n; i++)
		if ((rc = scs_report_add(&rep->left, res->left.items[i].pass, res->left.items[i].text)) < 0)
			return rc;
	for (size_t i = 0; i < res->n_passes; i++) {
		size_t k = 0;

		while (k < rep->n_pass_list && strcmp(rep->pass_list[k].name, res->passes[i].name) != 0)
			k++;
		if (k == rep->n_pass_list) {
			scs_report_pass *grown = realloc(rep->pass_list, (k + 1) * sizeof(*grown));

			if (grown == NULL)
				return scs_err_set(SCS_ENOMEM, "out of memory");
			rep->pass_list = grown;
			memset(&grown[k], 0, sizeof(*grown));
			snprintf(grown[k].name, sizeof(grown[k].name), "%s", res->passes[i].name);
			rep->n_pass_list++;
		}
		rep->pass_list[k].changes += res->passes[i].changes;
		rep->pass_list[k].refusals += res->passes[i].refusals;
	}
	/* the first ones also where a program built against version 2 reads them */
	rep->n_passes = rep->n_pass_list < SCS_REPORT_MAX_PASSES ? rep->n_pass_list : SCS_REPORT_MAX_PASSES;
	memcpy(rep->passes, rep->pass_list, rep->n_passes * sizeof(rep->passes[0]));
	rep->nodes_before = res->nodes_before;
	rep->nodes_after = res->nodes_after;
	rep->rounds = res->rounds;
	return SCS_OK;
}

/* The optimizer's passes on @m (scs_opt_run_with), what they did into @rep. */
int
scs_api_run_optimizer(scs_model *m, scs_report *rep, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip, const scs_opt_settings *settings)
{
	scs_opt_settings with = { 0, 0, 0, 0, NULL, NULL };
	scs_opt_result res;
	int rc, rc_rep;

	if (settings)
		with = *settings;
	/* each pass's result checked where a refused output is looked into (precommit.h) */
	with.after_pass = scs_precommit_opt_after;
	rc = scs_opt_run_with(m, &res, only, n_only, skip, n_skip, &with);

	rc_rep = report_optimizer(rep, &res);
	scs_opt_result_dispose(&res);
	return rc < 0 ? rc : rc_rep;
}

/*
 * Dedup, then downcast unless disabled, then dedup again when something was
 * narrowed (constants may be equal only once narrowed), then transposed
 * copies unless kept: what
 * scs4onnx-shrink does to a model, so that one run reaches what repeated
 * runs would. @count: what the first dedup studies is counted (not a
 * second look at constants counted before). @order, unless NULL, gets the
 * names of the constants the dedup meets, in its order, before it merges any
 * (scs_pass_dedup_order).
 */
int
scs_api_shrink_passes(scs_model *m, scs_report *rep, const scs_shrink_options *opts, int count, scs_pass_notes *order)
{
	size_t narrowed = 0, n_shapes;
	scs_opt_settings settings = { opts->fold_size_limit, opts->fold_grow, opts->fold_inexact, opts->fold_qdq,
	    NULL, NULL };
	int rc;

	/* the optimizer and the shapes see every initializer as a tensor (such
	 * a run loads none sealed: opening them all costs more than it saves) */
	if ((opts->optimize || opts->write_shapes) && (rc = scs_model_unseal(m)) < 0)
		return rc;
	if (opts->optimize && ((rc = scs_api_set_input_shapes(m, opts->input_shapes, opts->n_input_shapes)) < 0 ||
	    (rc = scs_api_run_optimizer(m, rep, NULL, 0, NULL, 0, &settings)) < 0))
		return rc;
	if ((order && (rc = scs_pass_dedup_order(m, order)) < 0) || (rc = scs_api_dedup(m, rep, count)) < 0 ||
	    (rc = scs_precommit_after(&m, 1, "dedup", 1)) < 0)
		return rc;
	if (!opts->disable_auto_downcast &&
	    ((rc = downcast(m, rep, &narrowed)) < 0 || (rc = scs_precommit_after(&m, 1, "downcast", narrowed > 0)) < 0))
		return rc;
	if (narrowed && ((rc = scs_api_dedup(m, rep, 0)) < 0 || (rc = scs_precommit_after(&m, 1, "dedup", 1)) < 0))
		return rc;
	/* after dedup, so that identical copies are merged first; not where constants are exported by name
	 * (npy mode, forced extraction), which a rewrite would take away */
	if (!opts->keep_transposed && opts->mode != SCS_MODE_NPY && !opts->n_forced_op_names &&
	    !opts->n_forced_constant_names &&
	    ((rc = scs_api_transposed(&m, 1, rep)) < 0 || (rc = scs_precommit_after(&m, 1, "transposed", 1)) < 0))
		return rc;
	/* last: the types downcast leaves */
	if (opts->write_shapes &&
	    ((rc = scs_opt_write_shapes(m, &n_shapes)) < 0 || (rc = scs_precommit_after(&m, 1, "write_shapes", 1)) < 0))
		return rc;
	return SCS_OK;
}

/* Refuse an output path that would overwrite a file the model is read from. */
static int
check_output(const scs_model *m, const char *path)
{
	if (scs_payloads_reads_from(m->payloads, path))
		return scs_err_set(SCS_EUSAGE, "%s: the input is read from this file; write the output elsewhere", path);
	return SCS_OK;
}

/* Do folders @a and @b name the same folder? */
int
scs_api_same_folder(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * The model @out, and the data files of its name beside it: a commit
 * removes those the new model does not use (sink.h), so none may be an input.
 */
int
scs_api_check_outputs(const scs_model *m, const char *out)
{
	const char *name = scs_path_base(out);
	char *out_dir, *dir;
	int rc;

	if ((rc = check_output(m, out)) < 0)
		return rc;
	if ((out_dir = scs_path_dir(out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	for (size_t i = 0; rc == SCS_OK && i < m->payloads->n_files; i++) {
		const char *path = scs_source_path(m->payloads->files[i]);

		if (!scs_sink_is_data_of(name, scs_path_base(path)))
			continue;
		if ((dir = scs_path_dir(path)) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
			break;
		}
		if (scs_api_same_folder(dir, out_dir))
			rc = scs_err_set(SCS_EUSAGE,
			    "%s: the input is read from %s, a data file of this output's name, which writing it would remove; "
			    "write the output elsewhere", out, path);
		free(dir);
	}
	free(out_dir);
	return rc;
}

/*
 * Before anything is read: the output path must name a file (not a folder)
 * in a folder that exists, so that a run never does its work only to fail
 * on where it was to write.
 */
static int
check_output_path(const char *out)
{
	struct stat st;
	size_t n = strlen(out);
	char *dir;
	int rc = SCS_OK;

	if (n == 0)
		return scs_err_set(SCS_EUSAGE, "the output path is empty; give a file name");
	if (out[n - 1] == '/' || (stat(out, &st) == 0 && S_ISDIR(st.st_mode)))
		return scs_err_set(SCS_EUSAGE, "%s is a folder; give a file name", out);
	if ((dir = scs_path_dir(out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if (stat(dir, &st) < 0)
		rc = errno == ENOENT ? scs_err_set(SCS_EUSAGE, "%s: the output's folder '%s' does not exist", out, dir) :
		    scs_err_errno(errno, "%s: cannot look at the output's folder '%s'", out, dir);
	else if (!S_ISDIR(st.st_mode))
		rc = scs_err_set(SCS_EUSAGE, "%s: '%s' is not a folder", out, dir);
	free(dir);
	return rc;
}

/*
 * The start of every public call: the clock, an empty report and the
 * caller's progress callback; then @check (NULL: none), the call's own
 * checks of @opts; then, for a call that writes a model (@out not NULL),
 * its path, checked before anything is read, and its folder in
 * r->out_dir. On failure the call returns at once: nothing is held (and
 * the report's seconds stay 0). Otherwise scs_api_run_end() closes the run.
 */
int
scs_api_run_begin(scs_api_run *r, scs_report *rep, scs_progress_fn fn, void *payload,
    int (*check)(scs_report *, const void *), const void *opts, const char *out)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->t0 = scs_api_now();
	r->rep = rep;
	memset(rep, 0, sizeof(*rep));
	rep->version = SCS_REPORT_VERSION;
	scs_report_io_begin(rep);
	r->pc.fn = fn;
	r->pc.payload = payload;
	r->pc.stage = NULL;
	if (check && (rc = check(rep, opts)) < 0)
		return rc;
	if (out == NULL)
		return SCS_OK;
	if ((rc = check_output_path(out)) < 0)
		return rc;
	if ((r->out_dir = scs_path_dir(out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	return SCS_OK;
}

/* The end of every public call that scs_api_run_begin() started: its time in the report. */
void
scs_api_run_end(scs_api_run *r)
{
	r->rep->seconds = scs_api_now() - r->t0;
	free(r->out_dir);
	r->out_dir = NULL;
}

/* Write each extracted constant as a .npy beside @out, a file of commit @c. */
static int
write_npys(scs_commit *c, scs_model *m, scs_report *rep, const scs_extract_list *list, const char *out,
    const char *out_dir)
{
	scs_buf head = SCS_BUF_INIT;
	scs_sink *sink;
	char *path = NULL;
	size_t i;
	int rc = SCS_OK;

	for (i = 0; i < list->n; i++) {
		const scs_extracted *e = &list->items[i];

		head.len = 0;
		/* beside the output, spelled the way the output was */
		path = strchr(out, '/') ? scs_path_join(out_dir, e->file) : strdup(e->file);
		if (path == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
			break;
		}
		if ((rc = check_output(m, path)) < 0 || (rc = scs_npy_header(&head, e->dtype, e->dims, e->n_dims)) < 0 ||
		    (rc = scs_commit_open(&sink, c, e->file, SCS_SINK_FILE)) < 0 ||
		    (rc = scs_sink_write(sink, head.data, head.len)) < 0 ||
		    (rc = scs_payloads_copy(m->payloads, e->payload, sink)) < 0)
			break;
		rep->npy_len += scs_sink_pos(sink);
		if ((rc = scs_sink_park(sink)) < 0 || (rc = scs_report_add(&rep->npy, e->constant, path)) < 0)
			break;
		free(path);
		path = NULL;
	}
	free(path);
	scs_buf_dispose(&head);
	return rc;
}

/* The data files of @l written beside @out (in @out_dir) into rep->data_files: path, bytes. */
static int
report_data_files(scs_report *rep, const scs_data_layout *l, const char *out, const char *out_dir)
{
	char bytes[32], *name, *path;
	int rc = SCS_OK;

	for (uint32_t f = 0; rc == SCS_OK && f < l->n_files; f++) {
		if ((name = scs_data_layout_name(l, scs_path_base(out), f)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		/* beside the output, spelled the way the output was */
		path = strchr(out, '/') ? scs_path_join(out_dir, name) : strdup(name);
		free(name);
		if (path == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)l->file_len[f]);
		rc = scs_report_add(&rep->data_files, path, bytes);
		free(path);
	}
	return rc;
}

/* SCS_EUSAGE when @max (a max_data_file_size) is neither 0 nor a data file's size. */
int
scs_api_check_data_file_size(uint64_t max)
{
	if (max && max < SCS_DATA_FILE_MIN)
		return scs_err_set(SCS_EUSAGE, "a maximum data file size of %llu bytes is too small: give at least %d (4K)",
		    (unsigned long long)max, SCS_DATA_FILE_MIN);
	return SCS_OK;
}

/* scs4onnx-shrink's options checked before anything is read. */
static int
shrink_check(scs_report *rep, const void *opts)
{
	(void)rep;
	return scs_api_check_data_file_size(((const scs_shrink_options *)opts)->max_data_file_size);
}

/* What extraction returned (@res, its status @rc) into @rep, even when it failed. */
static int
report_extract(scs_report *rep, const scs_extract_result *res, int rc)
{
	int added = report_notes(&rep->npy_renamed, &res->renamed);

	if (added == SCS_OK)
		added = report_notes(&rep->unexported, &res->unexported);
	return rc < 0 ? rc : added;
}

/* Extraction (npy mode, forced), then the model (its initializers listed
 * among its inputs again where its IR requires it: @dflt) and its .npy
 * files, all committed together. */
/* The emit options of @opts (external data, a cap on data files, progress through @pc). */
static void
emit_options(scs_emit_options *eo, const scs_shrink_options *opts, scs_api_progress *pc)
{
	memset(eo, 0, sizeof(*eo));
	/* a cap on the data files' size asks for data files */
	eo->external = opts->external_data || opts->max_data_file_size;
	eo->narrows = !opts->disable_auto_downcast;
	eo->max_file_len = opts->max_data_file_size;
	if (pc->fn) {
		eo->progress = scs_api_stage_progress;
		eo->progress_payload = pc;
	}
}

int
scs_api_spill(scs_commit **c, scs_model *m, const char *out, const scs_shrink_options *opts, int merge_equal,
    scs_api_progress *pc)
{
	scs_emit_options eo;
	char *out_dir;
	int rc, spilled = 0;

	*c = NULL;
	emit_options(&eo, opts, pc);
	if ((out_dir = scs_path_dir(out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if ((rc = scs_api_check_outputs(m, out)) == SCS_OK && (rc = scs_commit_files(c, out_dir)) < 0)
		rc = scs_err_wrap(rc, "%s", out);
	free(out_dir);
	if (rc == SCS_OK && (rc = scs_emit_spill(m, *c, scs_path_base(out), &eo, merge_equal, &spilled)) == SCS_OK &&
	    spilled)
		return SCS_OK;
	scs_commit_abort(*c);
	*c = NULL;
	return rc;
}

int
scs_api_write_result(scs_model *m, scs_report *rep, const char *out, const scs_shrink_options *opts,
    const scs_defaults *dflt, scs_api_progress *pc, scs_commit *c)
{
	scs_extract_result extracted;
	scs_extract_options xo;
	const char **canonicals = NULL;
	scs_emit_options eo;
	scs_emit_result res;
	char *out_dir;
	int rc = SCS_OK;

	memset(&extracted, 0, sizeof(extracted));
	memset(&res, 0, sizeof(res));
	if ((out_dir = scs_path_dir(out)) == NULL) {
		scs_commit_abort(c);
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	}
	if ((rc = scs_api_check_outputs(m, out)) < 0)
		goto done;
	if (c == NULL && (rc = scs_commit_files(&c, out_dir)) < 0) {
		rc = scs_err_wrap(rc, "%s", out);
		goto done;
	}
	memset(&xo, 0, sizeof(xo));
	xo.groups = opts->mode == SCS_MODE_NPY;
	if (xo.groups && rep->n_groups) {
		if ((canonicals = malloc(rep->n_groups * sizeof(*canonicals))) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a name list");
			goto done;
		}
		for (size_t i = 0; i < rep->n_groups; i++)
			canonicals[i] = rep->groups[i].canonical;
		xo.group_names = canonicals;
		xo.n_group_names = rep->n_groups;
	}
	xo.op_names = opts->forced_op_names;
	xo.n_op_names = opts->n_forced_op_names;
	xo.constant_names = opts->forced_constant_names;
	xo.n_constant_names = opts->n_forced_constant_names;
	xo.out_path = out;
	if ((xo.groups || xo.n_op_names || xo.n_constant_names) &&
	    ((rc = scs_model_unseal(m)) < 0 || (rc = report_extract(rep, &extracted, scs_pass_extract(m, &xo, &extracted))) < 0 ||
	    (rc = scs_precommit_after(&m, 1, "extract", 1)) < 0 ||
	    (rc = write_npys(c, m, rep, &extracted.extracted, out, out_dir)) < 0))
		goto done;
	/* what is written, checked before anything is (precommit.h) */
	if ((rc = scs_pass_defaults_restore(dflt, m)) < 0 || (rc = scs_precommit_output(&m, 1)) < 0)
		goto done;
	rep->bytes_after = scs_pass_payload_bytes(m);
	emit_options(&eo, opts, pc);
	if ((rc = scs_emit_write(&res, m, c, scs_path_base(out), &eo)) < 0)
		goto done;
	/* a spill the write did not take (an inline output) is no file of the output */
	scs_emit_spill_drop(m, c);
	rc = scs_commit_run(c);
	c = NULL;
	if (rc < 0)
		goto done;
	rep->external = res.external;
	rep->output_len = res.model_len;
	rep->output_data_len = res.data_len;
	rc = report_data_files(rep, &res.data, out, out_dir);
done:
	scs_emit_result_dispose(&res);
	scs_commit_abort(c);
	scs_extract_result_dispose(&extracted);
	free(canonicals);
	free(out_dir);
	return rc;
}

static int
shrink(scs_report *rep, const char *in, const char *out, const scs_shrink_options *opts)
{
	static const scs_shrink_options defaults;
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	scs_pass_notes order = { NULL, 0, 0 };
	scs_commit *c = NULL;
	scs_api_run r;
	double ts;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = scs_api_run_begin(&r, rep, opts->progress, opts->progress_payload, shrink_check, opts, out)) < 0)
		return rc;
	ts = scs_api_stage_start(&r.pc, "scan");
	if ((rc = scs_api_load_input(&m, &store, rep, in, opts->store_dir, r.out_dir, &r.pc,
	    !opts->optimize && !opts->write_shapes)) < 0 || (rc = scs_precommit_input(&m, 1, 0)) < 0 ||
	    (rc = scs_api_lift_defaults(&dflt, m, rep, opts->initializers_as_constants)) < 0 ||
	    (rc = scs_precommit_ready(&m, 1, NULL)) < 0 || (rc = scs_api_spill(&c, m, out, opts, 1, &r.pc)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = scs_pass_payload_bytes(m);
	ts = scs_api_stage_start(&r.pc, "shrink");
	if ((rc = scs_api_shrink_passes(m, rep, opts, 1, &order)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "shrink", ts, 0);
	ts = scs_api_stage_start(&r.pc, "write");
	rc = scs_api_write_result(m, rep, out, opts, &dflt, &r.pc, c);
	c = NULL;
	if (rc < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
	/* the groups listed in the order the model has their constants, as scs4onnx-big lists them (once
	 * written: npy mode exports the groups in the order they were merged) */
	rc = scs_report_order_groups(rep, 0, &order);
done:
	scs_commit_abort(c);
	scs_pass_notes_dispose(&order);
	scs_defaults_dispose(&dflt, m);
	scs_model_free(m);
	scs_store_close(store);
	scs_api_run_end(&r);
	return rc;
}

int
scs_api_shrink(scs_report *rep, const char *in, const char *out, const scs_shrink_options *opts)
{
	scs_precommit pre;
	int rc;

	scs_precommit_begin(&pre, out);
	do
		rc = shrink(rep, in, out, opts);
	while (scs_precommit_again(&pre, rep, rc));
	return scs_precommit_end(&pre, rep, rc);
}

/* ---- optimize ---- */

int
scs_optimize_pass(size_t i, scs_optimize_pass_info *out)
{
	if (i >= scs_opt_n_passes)
		return 0;
	out->name = scs_opt_passes[i].name;
	out->what = scs_opt_passes[i].what;
	out->in_default = scs_opt_passes[i].in_default;
	return 1;
}

int
scs_optimize_check_names(const char *const *names, size_t n)
{
	return scs_opt_check_names(names, n);
}

/* scs4onnx-optimize's report, and its pass names checked before its output path. */
static int
optimize_check(scs_report *rep, const void *opts)
{
	const scs_optimize_options *o = opts;
	int rc;

	rep->optimize_only = 1;
	if ((rc = scs_opt_check_names(o->passes, o->n_passes)) < 0 ||
	    (rc = scs_opt_check_names(o->skip, o->n_skip)) < 0 ||
	    (rc = scs_api_check_data_file_size(o->max_data_file_size)) < 0)
		return rc;
	return SCS_OK;
}

/* 1 when the run of @opts runs the pass @name (listed, or in the default set), and @skip leaves it in. */
static int
runs_pass(const scs_optimize_options *opts, const char *name)
{
	int runs = 0;

	if (opts->n_passes) {
		for (size_t i = 0; i < opts->n_passes; i++)
			runs |= strcmp(opts->passes[i], name) == 0;
	} else {
		for (size_t i = 0; i < scs_opt_n_passes; i++)
			runs |= scs_opt_passes[i].in_default && strcmp(scs_opt_passes[i].name, name) == 0;
	}
	for (size_t i = 0; i < opts->n_skip; i++)
		runs &= strcmp(opts->skip[i], name) != 0;
	return runs;
}

static int
optimize(scs_report *rep, const char *in, const char *out, const scs_optimize_options *opts)
{
	static const scs_optimize_options defaults;
	scs_shrink_options write_opts;
	scs_opt_settings settings;
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	scs_commit *c = NULL;
	scs_api_run r;
	double ts;
	size_t n_shapes;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = scs_api_run_begin(&r, rep, opts->progress, opts->progress_payload, optimize_check, opts, out)) < 0)
		return rc;
	ts = scs_api_stage_start(&r.pc, "scan");
	if ((rc = scs_api_load_input(&m, &store, rep, in, opts->store_dir, r.out_dir, &r.pc, 0)) < 0 ||
	    (rc = scs_api_check_outputs(m, out)) < 0 || (rc = scs_precommit_input(&m, 1, 0)) < 0 ||
	    (rc = scs_api_lift_defaults(&dflt, m, rep, opts->initializers_as_constants)) < 0 ||
	    (rc = scs_precommit_ready(&m, 1, NULL)) < 0)
		goto done;
	memset(&write_opts, 0, sizeof(write_opts));
	write_opts.external_data = opts->external_data;
	write_opts.max_data_file_size = opts->max_data_file_size;
	write_opts.disable_auto_downcast = 1;     /* no downcast runs */
	/* equal initializers are merged (the first kept) when that pass runs */
	if ((rc = scs_api_spill(&c, m, out, &write_opts, runs_pass(opts, "eliminate_duplicate_initializer"), &r.pc)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = scs_pass_payload_bytes(m);
	ts = scs_api_stage_start(&r.pc, "optimize");
	settings.fold_size_limit = opts->fold_size_limit;
	settings.fold_grow = opts->fold_grow;
	settings.fold_inexact = opts->fold_inexact;
	settings.fold_qdq = opts->fold_qdq;
	if ((rc = scs_api_set_input_shapes(m, opts->input_shapes, opts->n_input_shapes)) < 0)
		goto done;
	if ((rc = scs_api_run_optimizer(m, rep, opts->passes, opts->n_passes, opts->skip, opts->n_skip, &settings)) < 0)
		goto done;
	if (opts->write_shapes &&
	    ((rc = scs_opt_write_shapes(m, &n_shapes)) < 0 || (rc = scs_precommit_after(&m, 1, "write_shapes", 1)) < 0))
		goto done;
	scs_api_stage_end(rep, &r.pc, "optimize", ts, 0);
	ts = scs_api_stage_start(&r.pc, "write");
	rc = scs_api_write_result(m, rep, out, &write_opts, &dflt, &r.pc, c);
	c = NULL;
	if (rc < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
done:
	scs_commit_abort(c);
	scs_defaults_dispose(&dflt, m);
	scs_model_free(m);
	scs_store_close(store);
	scs_api_run_end(&r);
	return rc;
}

int
scs_api_optimize(scs_report *rep, const char *in, const char *out, const scs_optimize_options *opts)
{
	scs_precommit pre;
	int rc;

	scs_precommit_begin(&pre, out);
	do
		rc = optimize(rep, in, out, opts);
	while (scs_precommit_again(&pre, rep, rc));
	return scs_precommit_end(&pre, rep, rc);
}

scs_report *
scs_report_new(void)
{
	scs_report *rep = calloc(1, sizeof(scs_report));

	if (rep)
		rep->version = SCS_REPORT_VERSION;
	return rep;
}

void
scs_report_free(scs_report *rep)
{
	if (!rep)
		return;
	scs_report_dispose(rep);
	free(rep);
}

/* What @write puts into a FILE, as a string in memory (NULL when out of memory or on a write error). */
static char *
report_string(const scs_report *rep, int (*write)(const scs_report *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	int bad = write(rep, f) < 0;
	if (fclose(f) != 0 || bad) {
		free(text);
		return NULL;
	}
	return text;
}

static int
print_report(const scs_report *rep, FILE *f)
{
	scs_report_print(rep, f);
	return ferror(f) ? -1 : 0;
}

char *
scs_report_json(const scs_report *rep)
{
	return report_string(rep, scs_report_write_json);
}

char *
scs_report_text(const scs_report *rep)
{
	return report_string(rep, print_report);
}

void
scs_free(void *p)
{
	free(p);
}

const char *
scs_version(void)
{
	return SCS_VERSION;
}
