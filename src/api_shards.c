/*
 * api_shards.c: the public calls that cut a model into shards or join
 * them (scs4onnx.h): split, merge, and big (split, shrink each shard,
 * merge, shrink the whole), on the run and the helpers of api_impl.h.
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
#include <unistd.h>

#include "api_impl.h"
#include "model/emit.h"
#include "shard/merge.h"
#include "model/graph.h"
#include "model/model.h"
#include "opt/opt.h"
#include "shrink/pass.h"
#include "util/path.h"
#include "precommit.h"
#include "report.h"
#include "io/source.h"
#include "shard/split.h"
#include "io/store.h"

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
    const scs_defaults *dflt, scs_api_progress *pc)
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
			eo.progress = scs_api_stage_progress;
			eo.progress_payload = pc;
		}
		if ((rc = scs_pass_defaults_restore_for(dflt, shards->items[k], &undo)) < 0) {
			free(path);
			return rc;
		}
		rc = scs_emit_write(&res, shards->items[k], c, name, &eo);
		scs_emit_result_dispose(&res);
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

static int
split(scs_report *rep, const char *in, const char *dir, const scs_split_options *opts)
{
	static const scs_split_options defaults;
	uint64_t max_len;
	scs_shards shards = { NULL, 0 };
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_commit *c = NULL;
	scs_api_run r;
	double ts;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = scs_api_run_begin(&r, rep, opts->progress, opts->progress_payload, NULL, NULL, NULL)) < 0)
		return rc;
	rep->split_only = 1;
	max_len = opts->max_shard_len ? opts->max_shard_len : SCS_SPLIT_DEFAULT_LEN;
	/* the folder is checked first, and made only when every shard is written */
	if ((rc = scs_commit_folder(&c, dir)) < 0)
		goto done;
	ts = scs_api_stage_start(&r.pc, "scan");
	if ((rc = scs_api_load_input(&m, &store, rep, in, opts->store_dir, scs_commit_tmp_dir(c), &r.pc, 0)) < 0 ||
	    (rc = scs_precommit_input(&m, 1, 0)) < 0 || (rc = scs_precommit_ready(&m, 1, NULL)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = rep->bytes_after = scs_pass_payload_bytes(m);
	ts = scs_api_stage_start(&r.pc, "split");
	/* every shard checked before any is written (precommit.h) */
	if ((rc = scs_split_model(&shards, m, max_len)) < 0 ||
	    (rc = scs_precommit_after(shards.items, shards.n, "split", 1)) < 0 ||
	    (rc = scs_precommit_output(shards.items, shards.n)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "split", ts, 0);
	rep->n_shards = shards.n;
	ts = scs_api_stage_start(&r.pc, "write");
	if ((rc = write_shards(rep, &shards, c, dir, max_len, NULL, &r.pc)) < 0)
		goto done;
	rc = scs_commit_run(c);
	c = NULL;
	if (rc < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
done:
	scs_commit_abort(c);
	scs_shards_dispose(&shards);
	scs_model_free(m);
	scs_store_close(store);
	scs_api_run_end(&r);
	return rc;
}

int
scs_api_split(scs_report *rep, const char *in, const char *dir, const scs_split_options *opts)
{
	scs_precommit pre;
	int rc;

	scs_precommit_begin(&pre, dir);
	do
		rc = split(rep, in, dir, opts);
	while (scs_precommit_again(&pre, rep, rc));
	return scs_precommit_end(&pre, rep, rc);
}

/* ---- merge ---- */

/* Load every shard of @dir into models sharing one payload set (the first owns it). */
static int
load_shards(scs_shards *out, char ***paths, size_t *n_paths, scs_store **store, scs_report *rep, const char *dir,
    const char *store_dir, const char *tmp_parent, scs_api_progress *pc)
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
	scs_api_scan_options(&so, store_dir, pc);
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

/* scs4onnx-merge's options checked before anything is read. */
static int
merge_check(scs_report *rep, const void *opts)
{
	(void)rep;
	return scs_api_check_data_file_size(((const scs_merge_options *)opts)->max_data_file_size);
}

static int
merge(scs_report *rep, const char *dir, const char *out, const scs_merge_options *opts)
{
	static const scs_merge_options defaults;
	scs_shrink_options write_opts;
	scs_shards shards = { NULL, 0 };
	scs_store *store = NULL;
	scs_model *merged = NULL;
	scs_commit *c = NULL;
	char **paths = NULL;
	size_t n_paths = 0;
	scs_api_run r;
	double ts;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if ((rc = scs_api_run_begin(&r, rep, opts->progress, opts->progress_payload, merge_check, opts, out)) < 0)
		return rc;
	/* an output among the shards would be read as one by the next merge of @dir */
	if (scs_api_same_folder(dir, r.out_dir)) {
		rc = scs_err_set(SCS_EUSAGE, "%s is inside the shard folder %s, where the next merge would take it for a "
		    "shard; write it elsewhere", out, dir);
		goto done;
	}
	ts = scs_api_stage_start(&r.pc, "scan");
	if ((rc = load_shards(&shards, &paths, &n_paths, &store, rep, dir, opts->store_dir, r.out_dir, &r.pc)) < 0 ||
	    (rc = scs_precommit_input(shards.items, shards.n, 0)) < 0 ||
	    (rc = scs_precommit_ready(shards.items, shards.n, NULL)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->n_shards = shards.n;
	ts = scs_api_stage_start(&r.pc, "merge");
	if ((rc = scs_merge_models(&merged, shards.items, (const char *const *)paths, shards.n)) < 0 ||
	    (rc = scs_precommit_after(&merged, 1, "merge", 1)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "merge", ts, 0);
	memset(&write_opts, 0, sizeof(write_opts));
	write_opts.external_data = opts->external_data;
	write_opts.max_data_file_size = opts->max_data_file_size;
	write_opts.disable_auto_downcast = 1;     /* no downcast runs */
	if ((rc = scs_api_spill(&c, merged, out, &write_opts, !opts->no_dedup, &r.pc)) < 0)
		goto done;
	rep->bytes_before = scs_pass_payload_bytes(merged);
	if (!opts->no_dedup) {
		ts = scs_api_stage_start(&r.pc, "dedup");
		if ((rc = scs_api_dedup(merged, rep, 1)) < 0 || (rc = scs_precommit_after(&merged, 1, "dedup", 1)) < 0)
			goto done;
		/* after the global dedup: pairs that were in different shards */
		if (!opts->keep_transposed && ((rc = scs_api_transposed(&merged, 1, rep)) < 0 ||
		    (rc = scs_precommit_after(&merged, 1, "transposed", 1)) < 0))
			goto done;
		scs_api_stage_end(rep, &r.pc, "dedup", ts, 0);
	}
	/* one node order whatever the cuts and the passes did, so merge(split(m)) is m again */
	if ((rc = scs_graph_sort(merged->proto->graph, "merged model")) < 0 ||
	    (rc = scs_precommit_after(&merged, 1, "sort", 1)) < 0)
		goto done;
	ts = scs_api_stage_start(&r.pc, "write");
	rc = scs_api_write_result(merged, rep, out, &write_opts, NULL, &r.pc, c);
	c = NULL;
	if (rc < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
done:
	scs_commit_abort(c);
	scs_model_free(merged);
	scs_shards_dispose(&shards);
	free_list(paths, n_paths);
	scs_store_close(store);
	scs_api_run_end(&r);
	return rc;
}

int
scs_api_merge(scs_report *rep, const char *dir, const char *out, const scs_merge_options *opts)
{
	scs_precommit pre;
	int rc;

	scs_precommit_begin(&pre, out);
	do
		rc = merge(rep, dir, out, opts);
	while (scs_precommit_again(&pre, rep, rc));
	return scs_precommit_end(&pre, rep, rc);
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

/* scs4onnx-big's shrink options checked before anything is read. */
static int
big_check(scs_report *rep, const void *opts)
{
	(void)rep;
	return scs_api_check_data_file_size(((const scs_shrink_options *)opts)->max_data_file_size);
}

static int
big(scs_report *rep, const char *in, const char *out, const scs_big_options *opts)
{
	static const scs_big_options defaults;
	static const scs_shrink_options shrink_defaults;
	const scs_shrink_options *so;
	uint64_t max_len;
	scs_shards shards = { NULL, 0 };
	scs_store *store = NULL;
	scs_model *m = NULL, *merged = NULL;
	scs_defaults dflt = { NULL, NULL, 0, 0, 0, 0 };
	scs_commit *kept = NULL, *c = NULL;
	char *shard_dir = NULL, **labels = NULL, *work_parent = NULL;
	scs_temp_dir *made_work = NULL;
	scs_pass_notes order = { NULL, 0, 0 };
	const char *work, *store_parent;
	scs_api_run r;
	double ts;
	size_t first_group;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	so = opts->shrink ? opts->shrink : &shrink_defaults;
	max_len = opts->max_shard_len ? opts->max_shard_len : SCS_SPLIT_DEFAULT_LEN;
	if ((rc = scs_api_run_begin(&r, rep, so->progress, so->progress_payload, big_check, so, out)) < 0)
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
	ts = scs_api_stage_start(&r.pc, "scan");
	if ((rc = scs_api_load_input(&m, &store, rep, in, so->store_dir, store_parent, &r.pc, 0)) < 0 ||
	    (rc = scs_api_check_outputs(m, out)) < 0 || (rc = scs_precommit_input(&m, 1, 0)) < 0 ||
	    (rc = scs_api_lift_defaults(&dflt, m, rep, so->initializers_as_constants)) < 0 ||
	    (rc = scs_precommit_ready(&m, 1, NULL)) < 0 || (rc = scs_api_spill(&c, m, out, so, 1, &r.pc)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	rep->bytes_before = scs_pass_payload_bytes(m);
	/*
	 * the optimizer on the whole model, before the cuts: what it adds then
	 * takes its place in the shards' order, so big(big(x)) is big(x)
	 */
	if (so->optimize) {
		ts = scs_api_stage_start(&r.pc, "optimize");
		scs_opt_settings settings = { so->fold_size_limit, so->fold_grow, so->fold_inexact, so->fold_qdq,
		    NULL, NULL };

		if ((rc = scs_api_set_input_shapes(m, so->input_shapes, so->n_input_shapes)) < 0 ||
		    (rc = scs_api_run_optimizer(m, rep, NULL, 0, NULL, 0, &settings)) < 0)
			goto done;
		scs_api_stage_end(rep, &r.pc, "optimize", ts, 0);
	}
	/*
	 * each constant the dedup studies counted once, however many shards and
	 * passes see it: after the optimizer, as scs4onnx-shrink --optimize counts
	 */
	if ((rc = scs_api_dedup_count(m, rep)) < 0 || (rc = scs_pass_dedup_order(m, &order)) < 0)
		goto done;
	ts = scs_api_stage_start(&r.pc, "split");
	if ((rc = scs_split_model(&shards, m, max_len)) < 0 ||
	    (rc = scs_precommit_after(shards.items, shards.n, "split", 1)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "split", ts, 0);
	rep->n_shards = shards.n;
	/* the shards as split made them (shrink changes them next); they appear after the output */
	if (kept && (rc = write_shards(rep, &shards, kept, shard_dir, max_len, &dflt, &r.pc)) < 0)
		goto done;
	/*
	 * each shard deduplicated on its own; narrowing waits for the whole
	 * model, so that no decision depends on where the cuts fell, and so
	 * does extraction
	 */
	ts = scs_api_stage_start(&r.pc, "shrink");
	first_group = rep->n_groups;
	for (size_t k = 0; k < shards.n; k++)
		if ((rc = scs_api_dedup(shards.items[k], rep, 0)) < 0 ||
		    (rc = scs_precommit_after(&shards.items[k], 1, "dedup", 1)) < 0)
			goto done;
	scs_api_stage_end(rep, &r.pc, "shrink", ts, 0);
	ts = scs_api_stage_start(&r.pc, "merge");
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
	if ((rc = scs_merge_models(&merged, shards.items, (const char *const *)labels, shards.n)) < 0 ||
	    (rc = scs_precommit_after(&merged, 1, "merge", 1)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "merge", ts, 0);
	ts = scs_api_stage_start(&r.pc, "dedup");
	{
		scs_shrink_options merged_opts = *so;

		merged_opts.optimize = 0;     /* done before the split */
		rc = scs_api_shrink_passes(merged, rep, &merged_opts, 0, NULL);
	}
	/* merged in rounds (each shard, then the joined model): reported as one round would be */
	if (rc < 0 || (rc = scs_report_fold_groups(rep, first_group)) < 0 ||
	    (rc = scs_graph_sort(merged->proto->graph, "merged model")) < 0 ||
	    (rc = scs_precommit_after(&merged, 1, "sort", 1)) < 0)
		goto done;
	scs_report_list_unique(&rep->skipped);     /* each shard holding the pair refused it once */
	scs_api_stage_end(rep, &r.pc, "dedup", ts, 0);
	ts = scs_api_stage_start(&r.pc, "write");
	rc = scs_api_write_result(merged, rep, out, so, &dflt, &r.pc, c);
	c = NULL;
	if (rc < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "write", ts, rep->output_len + rep->output_data_len);
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
	scs_commit_abort(c);
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
	scs_api_run_end(&r);
	return rc;
}

int
scs_api_big(scs_report *rep, const char *in, const char *out, const scs_big_options *opts)
{
	scs_precommit pre;
	int rc;

	scs_precommit_begin(&pre, out);
	do
		rc = big(rep, in, out, opts);
	while (scs_precommit_again(&pre, rep, rc));
	return scs_precommit_end(&pre, rep, rc);
}
