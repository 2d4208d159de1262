/*
 * api.c: the public calls (scs4onnx.h): scan -> passes -> emit, owning the
 * store's lifetime and the output-path checks.
 *
 * SPDX-License-Identifier: MIT
 */
#include "scs4onnx.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emit.h"
#include "merge.h"
#include "npy.h"
#include "graph.h"
#include "model.h"
#include "opt.h"
#include "pass.h"
#include "path.h"
#include "report.h"
#include "sink.h"
#include "source.h"
#include "split.h"
#include "store.h"

void
scs_remove_temporaries(void)
{
	scs_temps_remove_all();
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct progress_ctx {
	scs_progress_fn fn;
	void *payload;
	const char *stage;
	uint64_t total;           /* the current stage's byte count, once it reported one */
	uint64_t base;            /* bytes of the files this stage finished before the current one */
	uint64_t rest;            /* bytes of the files this stage reads after the current one */
	uint64_t last;            /* the current file's total, as last reported */
} progress_ctx;

/* Forward a room's progress (done, total) as the current stage's. */
static void
stage_progress(void *payload, uint64_t done, uint64_t total)
{
	progress_ctx *p = payload;

	p->last = total;
	/* one count for a stage that reads several files (merge's shards) */
	done += p->base;
	total += p->base + p->rest;
	if (total > 1)
		p->total = total;
	p->fn(p->payload, p->stage, done, total);
}


/* Start stage @name: progress line and clock. */
static double
stage_start(progress_ctx *pc, const char *name)
{
	pc->stage = name;
	pc->total = pc->base = pc->rest = pc->last = 0;
	if (pc->fn)
		pc->fn(pc->payload, name, 0, 1);
	return now();
}

/* End stage @name: its progress line at 100% when it counted bytes, and its time. */
static void
stage_end(scs_report *rep, progress_ctx *pc, const char *name, double t0, uint64_t bytes)
{
	uint64_t total = bytes ? bytes : pc->total;   /* what was really read or written */

	if (pc->fn && total)
		pc->fn(pc->payload, name, total, total);
	scs_report_stage_add(rep, name, now() - t0, bytes);
}

/* Open the store and scan @in into *m; @seal: its main graph's initializers
 * kept sealed (model.h). */
static int
load_input(scs_model **m, scs_store **store, scs_report *rep, const char *in, const char *store_dir,
    const char *tmp_parent, progress_ctx *pc, int seal)
{
	scs_scan_options so;
	int rc;

	if ((rc = scs_store_open(store, store_dir, tmp_parent)) < 0)
		return rc;
	memset(&so, 0, sizeof(so));
	so.hold_bytes = store_dir != NULL;
	if (pc->fn) {
		so.progress = stage_progress;
		so.progress_payload = pc;
	}
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
static int
dedup(scs_model *m, scs_report *rep, int count)
{
	scs_dedup_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = report_dedup(rep, &res, count, scs_pass_dedup(m, &res));
	scs_dedup_result_dispose(&res);
	return rc;
}

/* Count what a dedup of @m studies into @rep, merging nothing. */
static int
dedup_count(scs_model *m, scs_report *rep)
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

/* The initializers listed among @m's graph inputs (pass.h), counted in @rep. */
static int
lift_defaults(scs_defaults *d, scs_model *m, scs_report *rep, int as_constants)
{
	int rc = scs_pass_defaults_lift(d, m, as_constants);

	rep->n_default_inputs += d->n_listed;
	if (d->constants)
		rep->default_inputs_rule = d->below_ir4 ? SCS_DEFAULTS_CONSTANT_IR3 : SCS_DEFAULTS_CONSTANT_ASKED;
	return rc;
}

/* Give the graph inputs the dims of --input-shape's @specs ("NAME=1,3,224,224"). */
static int
set_input_shapes(scs_model *m, const char *const *specs, size_t n)
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

		while (k < rep->n_passes && strcmp(rep->passes[k].name, res->passes[i].name) != 0)
			k++;
		if (k == SCS_REPORT_MAX_PASSES)
			continue;
		if (k == rep->n_passes) {
			memset(&rep->passes[k], 0, sizeof(rep->passes[0]));
			snprintf(rep->passes[k].name, sizeof(rep->passes[0].name), "%s", res->passes[i].name);
			rep->n_passes++;
		}
		rep->passes[k].changes += res->passes[i].changes;
		rep->passes[k].refusals += res->passes[i].refusals;
	}
	rep->nodes_before = res->nodes_before;
	rep->nodes_after = res->nodes_after;
	rep->rounds = res->rounds;
	return SCS_OK;
}

/* The optimizer's passes on @m (scs_opt_run_with), what they did into @rep. */
static int
run_optimizer(scs_model *m, scs_report *rep, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip, const scs_opt_settings *settings)
{
	scs_opt_result res;
	int rc = scs_opt_run_with(m, &res, only, n_only, skip, n_skip, settings), rc_rep;

	rc_rep = report_optimizer(rep, &res);
	scs_opt_result_dispose(&res);
	return rc < 0 ? rc : rc_rep;
}

/*
 * Dedup, then downcast unless disabled, then dedup again when something was
 * narrowed (constants may be equal only once narrowed): what
 * scs4onnx-shrink does to a model, so that one run reaches what repeated
 * runs would. @count: what the first dedup studies is counted (not a
 * second look at constants counted before). @order, unless NULL, gets the
 * names of the constants the dedup meets, in its order, before it merges any
 * (scs_pass_dedup_order).
 */
static int
shrink_passes(scs_model *m, scs_report *rep, const scs_shrink_options *opts, int count, scs_pass_notes *order)
{
	size_t narrowed = 0, n_shapes;
	scs_opt_settings settings = { opts->fold_size_limit, opts->fold_grow, opts->fold_inexact, opts->fold_qdq };
	int rc;

	/* the optimizer and the shapes see every initializer as a tensor (such
	 * a run loads none sealed: opening them all costs more than it saves) */
	if ((opts->optimize || opts->write_shapes) && (rc = scs_model_unseal(m)) < 0)
		return rc;
	if (opts->optimize && ((rc = set_input_shapes(m, opts->input_shapes, opts->n_input_shapes)) < 0 ||
	    (rc = run_optimizer(m, rep, NULL, 0, NULL, 0, &settings)) < 0))
		return rc;
	if ((order && (rc = scs_pass_dedup_order(m, order)) < 0) || (rc = dedup(m, rep, count)) < 0)
		return rc;
	if (!opts->disable_auto_downcast && (rc = downcast(m, rep, &narrowed)) < 0)
		return rc;
	if (narrowed && (rc = dedup(m, rep, 0)) < 0)
		return rc;
	/* last: the types downcast leaves */
	if (opts->write_shapes && (rc = scs_opt_write_shapes(m, &n_shapes)) < 0)
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
static int
same_folder(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * The model @out, and the data files of its name beside it: a commit
 * removes those the new model does not use (sink.h), so none may be an input.
 */
static int
check_outputs(const scs_model *m, const char *out)
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
		if (same_folder(dir, out_dir))
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

/* One public call's run: its report, progress and clock, its output's folder. */
typedef struct run {
	scs_report *rep;
	progress_ctx pc;
	double t0;
	char *out_dir;            /* the output model's folder (NULL: a call that writes none) */
} run;

/*
 * The start of every public call: the clock, an empty report and the
 * caller's progress callback; then @check (NULL: none), the call's own
 * checks of @opts; then, for a call that writes a model (@out not NULL),
 * its path, checked before anything is read, and its folder in
 * r->out_dir. On failure the call returns at once: nothing is held (and
 * the report's seconds stay 0). Otherwise run_end() closes the run.
 */
static int
run_begin(run *r, scs_report *rep, scs_progress_fn fn, void *payload, int (*check)(scs_report *, const void *),
    const void *opts, const char *out)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->t0 = now();
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

/* The end of every public call that run_begin() started: its time in the report. */
static void
run_end(run *r)
{
	r->rep->seconds = now() - r->t0;
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
static int
write_result(scs_model *m, scs_report *rep, const char *out, const scs_shrink_options *opts, const scs_defaults *dflt,
    progress_ctx *pc)
{
	scs_extract_result extracted;
	scs_extract_options xo;
	const char **canonicals = NULL;
	scs_emit_options eo;
	scs_emit_result res;
	scs_commit *c = NULL;
	char *out_dir;
	int rc = SCS_OK;

	memset(&extracted, 0, sizeof(extracted));
	if ((out_dir = scs_path_dir(out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if ((rc = check_outputs(m, out)) < 0)
		goto done;
	if ((rc = scs_commit_files(&c, out_dir)) < 0) {
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
	    (rc = write_npys(c, m, rep, &extracted.extracted, out, out_dir)) < 0))
		goto done;
	if ((rc = scs_pass_defaults_restore(dflt, m)) < 0)
		goto done;
	rep->bytes_after = scs_pass_payload_bytes(m);
	memset(&eo, 0, sizeof(eo));
	eo.external = opts->external_data;
	if (pc->fn) {
		eo.progress = stage_progress;
		eo.progress_payload = pc;
	}
	if ((rc = scs_emit_write(&res, m, c, scs_path_base(out), &eo)) < 0)
		goto done;
	rc = scs_commit_run(c);
	c = NULL;
	if (rc < 0)
		goto done;
	rep->external = res.external;
	rep->output_len = res.model_len;
	rep->output_data_len = res.data_len;
done:
	scs_commit_abort(c);
	scs_extract_result_dispose(&extracted);
	free(canonicals);
	free(out_dir);
	return rc;
}

int
scs_api_shrink(scs_report *rep, const char *in, const char *out, const scs_shrink_options *opts)
{
	static const scs_shrink_options defaults;
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	scs_pass_notes order = { NULL, 0, 0 };
	run r;
	double ts;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = run_begin(&r, rep, opts->progress, opts->progress_payload, NULL, NULL, out)) < 0)
		return rc;
	ts = stage_start(&r.pc, "scan");
	if ((rc = load_input(&m, &store, rep, in, opts->store_dir, r.out_dir, &r.pc,
	    !opts->optimize && !opts->write_shapes)) < 0 ||
	    (rc = lift_defaults(&dflt, m, rep, opts->initializers_as_constants)) < 0)
		goto done;
	stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = scs_pass_payload_bytes(m);
	ts = stage_start(&r.pc, "shrink");
	if ((rc = shrink_passes(m, rep, opts, 1, &order)) < 0)
		goto done;
	stage_end(rep, &r.pc, "shrink", ts, 0);
	ts = stage_start(&r.pc, "write");
	if ((rc = write_result(m, rep, out, opts, &dflt, &r.pc)) < 0)
		goto done;
	stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
	/* the groups listed in the order the model has their constants, as scs4onnx-big lists them (once
	 * written: npy mode exports the groups in the order they were merged) */
	rc = scs_report_order_groups(rep, 0, &order);
done:
	scs_pass_notes_dispose(&order);
	scs_defaults_dispose(&dflt, m);
	scs_model_free(m);
	scs_store_close(store);
	run_end(&r);
	return rc;
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
	    (rc = scs_opt_check_names(o->skip, o->n_skip)) < 0)
		return rc;
	return SCS_OK;
}

int
scs_api_optimize(scs_report *rep, const char *in, const char *out, const scs_optimize_options *opts)
{
	static const scs_optimize_options defaults;
	scs_shrink_options write_opts;
	scs_opt_settings settings;
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	run r;
	double ts;
	size_t n_shapes;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = run_begin(&r, rep, opts->progress, opts->progress_payload, optimize_check, opts, out)) < 0)
		return rc;
	ts = stage_start(&r.pc, "scan");
	if ((rc = load_input(&m, &store, rep, in, opts->store_dir, r.out_dir, &r.pc, 0)) < 0 || (rc = check_outputs(m, out)) < 0 ||
	    (rc = lift_defaults(&dflt, m, rep, opts->initializers_as_constants)) < 0)
		goto done;
	stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = scs_pass_payload_bytes(m);
	ts = stage_start(&r.pc, "optimize");
	settings.fold_size_limit = opts->fold_size_limit;
	settings.fold_grow = opts->fold_grow;
	settings.fold_inexact = opts->fold_inexact;
	settings.fold_qdq = opts->fold_qdq;
	if ((rc = set_input_shapes(m, opts->input_shapes, opts->n_input_shapes)) < 0)
		goto done;
	if ((rc = run_optimizer(m, rep, opts->passes, opts->n_passes, opts->skip, opts->n_skip, &settings)) < 0)
		goto done;
	if (opts->write_shapes && (rc = scs_opt_write_shapes(m, &n_shapes)) < 0)
		goto done;
	stage_end(rep, &r.pc, "optimize", ts, 0);
	memset(&write_opts, 0, sizeof(write_opts));
	write_opts.external_data = opts->external_data;
	ts = stage_start(&r.pc, "write");
	if ((rc = write_result(m, rep, out, &write_opts, &dflt, &r.pc)) < 0)
		goto done;
	stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
done:
	scs_defaults_dispose(&dflt, m);
	scs_model_free(m);
	scs_store_close(store);
	run_end(&r);
	return rc;
}

/* ---- split ---- */

static int
has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The *.onnx files of @dir, sorted by name (malloc'd paths). */
static int
list_models(char ***out, size_t *n, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **list = NULL, **grown;
	int rc = SCS_OK;

	*out = NULL;
	*n = 0;
	if (d == NULL)
		return scs_err_errno(errno, "%s: cannot list the folder", dir);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || !has_suffix(e->d_name, ".onnx"))
			continue;
		if ((grown = realloc(list, (*n + 1) * sizeof(*grown))) == NULL ||
		    (grown[*n] = scs_path_join(dir, e->d_name)) == NULL) {
			if (grown)
				list = grown;
			rc = scs_err_set(SCS_ENOMEM, "cannot list the folder");
			break;
		}
		list = grown;
		(*n)++;
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++)     /* insertion sort: shard sets are small */
		for (size_t j = i; j > 0 && strcmp(list[j - 1], list[j]) > 0; j--) {
			char *t = list[j];

			list[j] = list[j - 1];
			list[j - 1] = t;
		}
	*out = list;
	return rc;
}

static void
free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* Emit options for a shard: inline while it fits the budget; else its giant
 * tensors (or, when that is not enough, every tensor over 1 KiB) go beside it. */
typedef struct giant_sum {
	scs_model *m;
	uint64_t min, sum;
} giant_sum;

static int
add_giant(void *ctx, Onnx__TensorProto *t)
{
	giant_sum *g = ctx;
	uint32_t id;

	if (scs_model_payload_of(g->m, t, &id) && g->m->payloads->items[id].key.len >= g->min)
		g->sum += g->m->payloads->items[id].key.len;
	return 0;
}

static void
shard_emit_options(scs_emit_options *eo, scs_model *shard, uint64_t max_len)
{
	uint64_t size = scs_model_packed_size(shard, &shard->proto->base);
	giant_sum g = { shard, max_len, 0 };

	memset(eo, 0, sizeof(*eo));
	eo->inline_max = max_len < SCS_EMIT_INLINE_MAX ? max_len : SCS_EMIT_INLINE_MAX;
	if (size <= eo->inline_max)
		return;
	scs_model_each_tensor(shard->proto, add_giant, &g);
	eo->external = 1;
	eo->external_min = size - g.sum <= eo->inline_max ? max_len : 1024;
}

/* Write @shards as shard-NNN.onnx files of the folder commit @c (for @dir),
 * each listing its initializers among its inputs where its IR requires it
 * (@dflt), and left as it was. */
static int
write_shards(scs_report *rep, const scs_shards *shards, scs_commit *c, const char *dir, uint64_t max_len,
    const scs_defaults *dflt, progress_ctx *pc)
{
	int width = 3, rc = SCS_OK;
	char name[64], bytes[32], *path;

	for (size_t k = shards->n; k >= 1000; k /= 10)
		width++;
	/* one progress count over every shard: those still to write by their packed size */
	for (size_t k = 0; pc->fn && k < shards->n; k++)
		pc->rest += scs_model_packed_size(shards->items[k], &shards->items[k]->proto->base);
	for (size_t k = 0; rc == SCS_OK && k < shards->n; k++) {
		scs_emit_options eo;
		scs_emit_result res;
		scs_defaults_undo undo;

		snprintf(name, sizeof(name), "shard-%0*zu.onnx", width, k);
		if ((path = scs_path_join(dir, name)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		shard_emit_options(&eo, shards->items[k], max_len);
		if (pc->fn) {
			uint64_t size = scs_model_packed_size(shards->items[k], &shards->items[k]->proto->base);

			pc->rest -= size < pc->rest ? size : pc->rest;
			eo.progress = stage_progress;
			eo.progress_payload = pc;
		}
		if ((rc = scs_pass_defaults_restore_for(dflt, shards->items[k], &undo)) < 0) {
			free(path);
			return rc;
		}
		rc = scs_emit_write(&res, shards->items[k], c, name, &eo);
		scs_pass_defaults_undo(&undo, shards->items[k]);
		if (rc == SCS_OK) {
			pc->base += res.model_len + res.data_len;
			snprintf(bytes, sizeof(bytes), "%llu", (unsigned long long)(res.model_len + res.data_len));
			rc = scs_report_add(&rep->shards, path, bytes);
			rep->output_len += res.model_len;
			rep->output_data_len += res.data_len;
		}
		free(path);
	}
	return rc;
}

int
scs_api_split(scs_report *rep, const char *in, const char *dir, const scs_split_options *opts)
{
	static const scs_split_options defaults;
	uint64_t max_len;
	scs_shards shards = { NULL, 0 };
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_commit *c = NULL;
	run r;
	double ts;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = run_begin(&r, rep, opts->progress, opts->progress_payload, NULL, NULL, NULL)) < 0)
		return rc;
	rep->split_only = 1;
	max_len = opts->max_shard_len ? opts->max_shard_len : SCS_SPLIT_DEFAULT_LEN;
	/* the folder is checked first, and made only when every shard is written */
	if ((rc = scs_commit_folder(&c, dir)) < 0)
		goto done;
	ts = stage_start(&r.pc, "scan");
	if ((rc = load_input(&m, &store, rep, in, opts->store_dir, scs_commit_tmp_dir(c), &r.pc, 0)) < 0)
		goto done;
	stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = rep->bytes_after = scs_pass_payload_bytes(m);
	ts = stage_start(&r.pc, "split");
	if ((rc = scs_split_model(&shards, m, max_len)) < 0)
		goto done;
	stage_end(rep, &r.pc, "split", ts, 0);
	rep->n_shards = shards.n;
	ts = stage_start(&r.pc, "write");
	if ((rc = write_shards(rep, &shards, c, dir, max_len, NULL, &r.pc)) < 0)
		goto done;
	rc = scs_commit_run(c);
	c = NULL;
	if (rc < 0)
		goto done;
	stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
done:
	scs_commit_abort(c);
	scs_shards_dispose(&shards);
	scs_model_free(m);
	scs_store_close(store);
	run_end(&r);
	return rc;
}

/* ---- merge ---- */

/* Load every shard of @dir into models sharing one payload set (the first owns it). */
static int
load_shards(scs_shards *out, char ***paths, size_t *n_paths, scs_store **store, scs_report *rep, const char *dir,
    const char *store_dir, const char *tmp_parent, progress_ctx *pc)
{
	scs_scan_options so;
	uint64_t *sizes;          /* each shard file's bytes, for one progress count over them all */
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = list_models(paths, n_paths, dir)) < 0)
		return rc;
	if (*n_paths == 0)
		return scs_err_set(SCS_EUSAGE, "%s: no .onnx shard files in the folder", dir);
	if ((out->items = calloc(*n_paths, sizeof(*out->items))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the shard list");
	if ((rc = scs_store_open(store, store_dir, tmp_parent)) < 0)
		return rc;
	memset(&so, 0, sizeof(so));
	so.hold_bytes = store_dir != NULL;
	if (pc->fn) {
		so.progress = stage_progress;
		so.progress_payload = pc;
	}
	if ((sizes = calloc(*n_paths, sizeof(*sizes))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the shard list");
	for (size_t i = 0; i < *n_paths; i++) {
		struct stat st;

		sizes[i] = stat((*paths)[i], &st) == 0 ? (uint64_t)st.st_size : 0;
		pc->rest += sizes[i];
	}
	for (size_t i = 0; i < *n_paths; i++) {
		pc->rest -= sizes[i];
		rc = i == 0 ? scs_model_load(&out->items[0], (*paths)[0], *store, &so) :
		    scs_model_load_with(&out->items[i], (*paths)[i], out->items[0], &so);
		if (rc < 0)
			break;
		out->n++;
		pc->base += pc->last;
		pc->last = 0;
	}
	free(sizes);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < out->items[0]->payloads->n_files; i++)
		rep->input_len += scs_source_size(out->items[0]->payloads->files[i]);
	return SCS_OK;
}

int
scs_api_merge(scs_report *rep, const char *dir, const char *out, const scs_merge_options *opts)
{
	static const scs_merge_options defaults;
	scs_shrink_options write_opts;
	scs_shards shards = { NULL, 0 };
	scs_store *store = NULL;
	scs_model *merged = NULL;
	char **paths = NULL;
	size_t n_paths = 0;
	run r;
	double ts;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = run_begin(&r, rep, opts->progress, opts->progress_payload, NULL, NULL, out)) < 0)
		return rc;
	/* an output among the shards would be read as one by the next merge of @dir */
	if (same_folder(dir, r.out_dir)) {
		rc = scs_err_set(SCS_EUSAGE, "%s is inside the shard folder %s, where the next merge would take it for a "
		    "shard; write it elsewhere", out, dir);
		goto done;
	}
	ts = stage_start(&r.pc, "scan");
	if ((rc = load_shards(&shards, &paths, &n_paths, &store, rep, dir, opts->store_dir, r.out_dir, &r.pc)) < 0)
		goto done;
	stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->n_shards = shards.n;
	ts = stage_start(&r.pc, "merge");
	if ((rc = scs_merge_models(&merged, shards.items, (const char *const *)paths, shards.n)) < 0)
		goto done;
	stage_end(rep, &r.pc, "merge", ts, 0);
	rep->bytes_before = scs_pass_payload_bytes(merged);
	if (!opts->no_dedup) {
		ts = stage_start(&r.pc, "dedup");
		if ((rc = dedup(merged, rep, 1)) < 0)
			goto done;
		stage_end(rep, &r.pc, "dedup", ts, 0);
	}
	/* one node order whatever the cuts and the passes did, so merge(split(m)) is m again */
	if ((rc = scs_graph_sort(merged->proto->graph, "merged model")) < 0)
		goto done;
	memset(&write_opts, 0, sizeof(write_opts));
	write_opts.external_data = opts->external_data;
	ts = stage_start(&r.pc, "write");
	if ((rc = write_result(merged, rep, out, &write_opts, NULL, &r.pc)) < 0)
		goto done;
	stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
done:
	scs_model_free(merged);
	scs_shards_dispose(&shards);
	free_list(paths, n_paths);
	scs_store_close(store);
	run_end(&r);
	return rc;
}

/* ---- big ---- */

/*
 * Where scs_big's temporary store goes for --work @dir (*where). A folder
 * that exists is used as it is. A missing one is made only with @keep (the
 * kept shards stay in it), registered in *made for the signal handlers
 * (scs_remove_temporaries removes it while empty); without @keep it is not
 * made at all: the store, unnamed, goes in its parent (*where, malloc'd
 * in *parent), on the filesystem the folder would be on (a missing folder
 * is no mount point), so that no kill, not even SIGKILL, leaves it behind.
 */
static int
work_folder(const char **where, char **parent, scs_temp_dir **made, const char *dir, int keep)
{
	struct stat st;

	*where = dir;
	if (stat(dir, &st) == 0 || errno != ENOENT)
		return SCS_OK;     /* used as it is; a file or an unreadable path fails where it is used */
	if (!keep) {
		if ((*parent = scs_path_dir(dir)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		if (stat(*parent, &st) < 0)
			return scs_err_errno(errno, "%s: cannot create the work folder", dir);
		if (!S_ISDIR(st.st_mode))
			return scs_err_errno(ENOTDIR, "%s: cannot create the work folder", dir);
		*where = *parent;
		return SCS_OK;
	}
	if ((*made = scs_temp_dir_add(dir)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if (mkdir(dir, 0777) < 0) {
		scs_temp_dir_drop(*made);
		*made = NULL;
		return errno == EEXIST ? SCS_OK : scs_err_errno(errno, "%s: cannot create the work folder", dir);
	}
	return SCS_OK;
}

int
scs_api_big(scs_report *rep, const char *in, const char *out, const scs_big_options *opts)
{
	static const scs_big_options defaults;
	static const scs_shrink_options shrink_defaults;
	const scs_shrink_options *so;
	uint64_t max_len;
	scs_shards shards = { NULL, 0 };
	scs_store *store = NULL;
	scs_model *m = NULL, *merged = NULL;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	scs_commit *kept = NULL;
	char *shard_dir = NULL, **labels = NULL, *work_parent = NULL;
	scs_temp_dir *made_work = NULL;
	scs_pass_notes order = { NULL, 0, 0 };
	const char *work, *store_parent;
	run r;
	double ts;
	size_t first_group;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	so = opts->shrink ? opts->shrink : &shrink_defaults;
	max_len = opts->max_shard_len ? opts->max_shard_len : SCS_SPLIT_DEFAULT_LEN;
	if ((rc = run_begin(&r, rep, so->progress, so->progress_payload, NULL, NULL, out)) < 0)
		return rc;
	work = store_parent = opts->work_dir ? opts->work_dir : r.out_dir;
	/* a work folder made here is removed at the end (it holds only the kept shards, if any) */
	if (opts->work_dir &&
	    (rc = work_folder(&store_parent, &work_parent, &made_work, opts->work_dir, opts->keep_work)) < 0)
		goto done;
	if (opts->keep_work) {
		if ((shard_dir = scs_path_join(work, "shards")) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
			goto done;
		}
		if ((rc = scs_commit_folder(&kept, shard_dir)) < 0) {
			struct stat st;

			if (rc == SCS_EUSAGE && stat(shard_dir, &st) == 0 && S_ISDIR(st.st_mode))
				rc = scs_err_set(rc, "%s: holds files already (the shards of an earlier --keep-work run?); "
				    "--keep-work needs it new or empty: remove it, or give --work another folder", shard_dir);
			goto done;
		}
	}
	ts = stage_start(&r.pc, "scan");
	if ((rc = load_input(&m, &store, rep, in, so->store_dir, store_parent, &r.pc, 0)) < 0 ||
	    (rc = check_outputs(m, out)) < 0 ||
	    (rc = lift_defaults(&dflt, m, rep, so->initializers_as_constants)) < 0)
		goto done;
	stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = scs_pass_payload_bytes(m);
	/*
	 * the optimizer on the whole model, before the cuts: what it adds then
	 * takes its place in the shards' order, so big(big(x)) is big(x)
	 */
	if (so->optimize) {
		ts = stage_start(&r.pc, "optimize");
		scs_opt_settings settings = { so->fold_size_limit, so->fold_grow, so->fold_inexact, so->fold_qdq };

		if ((rc = set_input_shapes(m, so->input_shapes, so->n_input_shapes)) < 0 ||
		    (rc = run_optimizer(m, rep, NULL, 0, NULL, 0, &settings)) < 0)
			goto done;
		stage_end(rep, &r.pc, "optimize", ts, 0);
	}
	/*
	 * each constant the dedup studies counted once, however many shards and
	 * passes see it: after the optimizer, as scs4onnx-shrink --optimize counts
	 */
	if ((rc = dedup_count(m, rep)) < 0 || (rc = scs_pass_dedup_order(m, &order)) < 0)
		goto done;
	ts = stage_start(&r.pc, "split");
	if ((rc = scs_split_model(&shards, m, max_len)) < 0)
		goto done;
	stage_end(rep, &r.pc, "split", ts, 0);
	rep->n_shards = shards.n;
	/* the shards as split made them (shrink changes them next); they appear after the output */
	if (kept && (rc = write_shards(rep, &shards, kept, shard_dir, max_len, &dflt, &r.pc)) < 0)
		goto done;
	/*
	 * each shard deduplicated on its own; narrowing waits for the whole
	 * model, so that no decision depends on where the cuts fell, and so
	 * does extraction
	 */
	ts = stage_start(&r.pc, "shrink");
	first_group = rep->n_groups;
	for (size_t k = 0; k < shards.n; k++)
		if ((rc = dedup(shards.items[k], rep, 0)) < 0)
			goto done;
	stage_end(rep, &r.pc, "shrink", ts, 0);
	ts = stage_start(&r.pc, "merge");
	if ((labels = calloc(shards.n, sizeof(*labels))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate shard labels");
		goto done;
	}
	for (size_t k = 0; k < shards.n; k++) {
		char name[32];

		snprintf(name, sizeof(name), "shard %zu", k);
		if ((labels[k] = strdup(name)) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate shard labels");
			goto done;
		}
	}
	if ((rc = scs_merge_models(&merged, shards.items, (const char *const *)labels, shards.n)) < 0)
		goto done;
	stage_end(rep, &r.pc, "merge", ts, 0);
	ts = stage_start(&r.pc, "dedup");
	{
		scs_shrink_options merged_opts = *so;

		merged_opts.optimize = 0;     /* done before the split */
		rc = shrink_passes(merged, rep, &merged_opts, 0, NULL);
	}
	/* merged in rounds (each shard, then the joined model): reported as one round would be */
	if (rc < 0 || (rc = scs_report_fold_groups(rep, first_group)) < 0 ||
	    (rc = scs_graph_sort(merged->proto->graph, "merged model")) < 0)
		goto done;
	scs_report_list_unique(&rep->skipped);     /* each shard holding the pair refused it once */
	stage_end(rep, &r.pc, "dedup", ts, 0);
	ts = stage_start(&r.pc, "write");
	if ((rc = write_result(merged, rep, out, so, &dflt, &r.pc)) < 0)
		goto done;
	stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
	/* listed in the order the input has the constants, as scs4onnx-shrink lists them (once written:
	 * npy mode exports the groups in the order they were merged) */
	if ((rc = scs_report_order_groups(rep, first_group, &order)) < 0)
		goto done;
	if (kept) {
		rc = scs_commit_run(kept);
		kept = NULL;
		if (rc < 0)
			rc = scs_err_wrap(rc, "%s was written, but the shards to keep were not", out);
	}
done:
	scs_commit_abort(kept);
	scs_pass_notes_dispose(&order);
	free_list(labels, labels ? shards.n : 0);
	scs_model_free(merged);
	scs_shards_dispose(&shards);
	scs_defaults_dispose(&dflt, m);
	scs_model_free(m);
	scs_store_close(store);
	if (made_work) {
		rmdir(opts->work_dir);
		scs_temp_dir_drop(made_work);
	}
	free(work_parent);
	free(shard_dir);
	run_end(&r);
	return rc;
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
