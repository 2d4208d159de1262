/*
 * api_share.c: the public call that stores the weights of several models
 * once (scs4onnx.h, scs_share): every model loaded into one payload set,
 * each shrunk as scs_shrink shrinks it, then the payloads of equal bytes
 * across the models made one, and the models written into a new folder
 * with one data file that all of them reference (emit.h,
 * scs_emit_write_shared), the folder appearing whole (commit.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "scs4onnx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_impl.h"
#include "model/emit.h"
#include "model/model.h"
#include "shrink/pass.h"
#include "util/buf.h"
#include "util/path.h"
#include "precommit.h"
#include "report.h"
#include "io/source.h"
#include "io/store.h"

/* Payloads at least this long go into the shared data file (the writer's rule). */
#define SHARE_EXTERNAL_MIN 1024

/* The stem of the shared data file's name: "shared.<16 hex>.data". */
#define SHARE_DATA_STEM "shared"

/* One tensor's reference to a payload: which payload, in which model, in what order met. */
typedef struct share_ref {
	uint32_t id;
	uint32_t model;
	size_t order;
	const char *name;
} share_ref;

typedef struct share_refs {
	share_ref *items;
	size_t n, cap;
	scs_model *m;             /* the model walked */
	uint32_t model;
	int rc;
} share_refs;

static int
add_ref(void *ctx, Onnx__TensorProto *t)
{
	share_refs *r = ctx;
	uint32_t id;
	int rc;

	if (!scs_model_payload_of(r->m, t, &id))
		return 0;
	if ((rc = scs_grow(&r->items, &r->cap, r->n, sizeof(*r->items), 64, "the payload list")) < 0) {
		r->rc = rc;
		return 1;
	}
	r->items[r->n] = (share_ref){ id, r->model, r->n, t->name && *t->name ? t->name : "(unnamed)" };
	r->n++;
	return 0;
}

/* Every payload reference of the @n models @ms, in model order, then tensor order. */
static int
collect_refs(share_refs *r, scs_model *const *ms, size_t n)
{
	memset(r, 0, sizeof(*r));
	for (size_t k = 0; k < n && r->rc == SCS_OK; k++) {
		r->m = ms[k];
		r->model = (uint32_t)k;
		scs_model_each_tensor(ms[k]->proto, add_ref, r);
	}
	return r->rc;
}

/* A payload met in the walk, with its key, for sorting equal ones together. */
typedef struct share_payload {
	uint32_t id;
	size_t first;             /* the order of its first reference */
	scs_key key;
} share_payload;

static int
cmp_payload(const void *pa, const void *pb)
{
	const share_payload *a = pa, *b = pb;

	if (a->key.len != b->key.len)
		return a->key.len < b->key.len ? -1 : 1;
	if (a->key.h[0] != b->key.h[0])
		return a->key.h[0] < b->key.h[0] ? -1 : 1;
	if (a->key.h[1] != b->key.h[1])
		return a->key.h[1] < b->key.h[1] ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

typedef struct share_remap {
	scs_model *m;
	const uint32_t *to;
} share_remap;

static int
remap_tensor(void *ctx, Onnx__TensorProto *t)
{
	share_remap *r = ctx;
	uint32_t id;

	if (scs_model_payload_of(r->m, t, &id) && r->to[id] != id)
		scs_model_set_payload(r->m, t, r->to[id]);
	return 0;
}

/*
 * Payloads of equal bytes, in any of the models, become one: the one met
 * first. Candidates have the same key (length and digest); each is then
 * compared byte for byte with the kept ones of its key, so two payloads of
 * one digest and different bytes both stay.
 */
static int
share_payloads(scs_model *const *ms, size_t n)
{
	scs_payloads *set = ms[0]->payloads;
	share_payload *ps = NULL;
	share_refs refs;
	uint32_t *to = NULL;
	uint8_t *seen = NULL;
	size_t n_ps = 0;
	int rc;

	if ((rc = collect_refs(&refs, ms, n)) < 0)
		goto done;
	if ((to = malloc((set->n ? set->n : 1) * sizeof(*to))) == NULL || (seen = calloc(set->n ? set->n : 1, 1)) == NULL ||
	    (ps = malloc((refs.n ? refs.n : 1) * sizeof(*ps))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the payload list");
		goto done;
	}
	for (size_t i = 0; i < set->n; i++)
		to[i] = (uint32_t)i;
	for (size_t i = 0; i < refs.n; i++) {
		uint32_t id = refs.items[i].id;

		if (seen[id])
			continue;
		seen[id] = 1;
		ps[n_ps].id = id;
		ps[n_ps].first = refs.items[i].order;
		if ((rc = scs_payloads_key(set, id, &ps[n_ps].key)) < 0)
			goto done;
		n_ps++;
	}
	qsort(ps, n_ps, sizeof(*ps), cmp_payload);
	for (size_t a = 0, b; a < n_ps; a = b) {
		for (b = a + 1; b < n_ps && ps[b].key.len == ps[a].key.len && ps[b].key.h[0] == ps[a].key.h[0] &&
		    ps[b].key.h[1] == ps[a].key.h[1]; b++)
			;
		/* within a run of one key, each kept one is its own (to[id] == id), met first */
		for (size_t i = a + 1; i < b; i++)
			for (size_t j = a; j < i; j++) {
				if (to[ps[j].id] != ps[j].id)
					continue;
				if ((rc = scs_payloads_equal(set, ps[j].id, ps[i].id)) < 0)
					goto done;
				if (rc == 1) {
					to[ps[i].id] = ps[j].id;
					break;
				}
			}
	}
	rc = SCS_OK;
	for (size_t k = 0; k < n; k++) {
		share_remap r = { ms[k], to };

		scs_model_each_tensor(ms[k]->proto, remap_tensor, &r);
	}
done:
	free(refs.items);
	free(to);
	free(seen);
	free(ps);
	return rc;
}

static int
cmp_ref_by_id(const void *pa, const void *pb)
{
	const share_ref *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* A payload of the data file that several models use, for the report. */
typedef struct share_entry {
	size_t first;
	size_t ref;               /* its first reference, in the sorted list */
	size_t end;               /* past its last reference */
	uint64_t len;
} share_entry;

static int
cmp_entry(const void *pa, const void *pb)
{
	const share_entry *a = pa, *b = pb;

	return a->first < b->first ? -1 : a->first > b->first;
}

/* "a.onnx, b.onnx (as w2): 4096 bytes": the models of refs [from, to) (sorted by order: models ascending,
 * refs[from] the first), each with its name for the payload where it differs from the first's, and @len. */
static char *
shared_detail(const share_ref *refs, size_t from, size_t to, const char *const *names, uint64_t len)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int64_t last = -1;

	if (f == NULL)
		return NULL;
	for (size_t i = from; i < to; i++) {
		if ((int64_t)refs[i].model == last)
			continue;
		fprintf(f, "%s%s", last >= 0 ? ", " : "", names[refs[i].model]);
		/* a model that names it otherwise says how */
		if (strcmp(refs[i].name, refs[from].name) != 0)
			fprintf(f, " (as %s)", refs[i].name);
		last = refs[i].model;
	}
	fprintf(f, ": %llu bytes", (unsigned long long)len);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * What the written models hold (rep->models, rep->shared, rep->data_files,
 * bytes_after): each payload of the data file by the models that use it;
 * @names the models' file names, @paths where they are written, @res what
 * the writer wrote.
 */
static int
report_share(scs_report *rep, scs_model *const *ms, size_t n, const char *const *names, char *const *paths,
    const scs_emit_result *res, const scs_data_layout *l, const char *out_dir)
{
	share_refs refs;
	share_entry *entries = NULL;
	uint64_t *own = NULL;
	size_t n_entries = 0;
	char detail[96];
	int rc;

	if ((rc = collect_refs(&refs, ms, n)) < 0)
		goto done;
	if ((own = calloc(n, sizeof(*own))) == NULL || (entries = malloc((refs.n ? refs.n : 1) * sizeof(*entries))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the report");
		goto done;
	}
	qsort(refs.items, refs.n, sizeof(*refs.items), cmp_ref_by_id);
	rep->bytes_after = 0;
	for (size_t a = 0, b; a < refs.n; a = b) {
		uint64_t len = ms[0]->payloads->items[refs.items[a].id].key.len;
		int several = 0;
		size_t first = refs.items[a].order;

		for (b = a + 1; b < refs.n && refs.items[b].id == refs.items[a].id; b++) {
			several |= refs.items[b].model != refs.items[a].model;
			if (refs.items[b].order < first)
				first = refs.items[b].order;
		}
		rep->bytes_after += len;
		if (len < SHARE_EXTERNAL_MIN)
			continue;     /* inline: each model holds its own copy */
		if (!several)
			own[refs.items[a].model] += len;
		else
			entries[n_entries++] = (share_entry){ first, a, b, len };
	}
	/* in the order of the data file */
	qsort(entries, n_entries, sizeof(*entries), cmp_entry);
	for (size_t i = 0; i < n_entries; i++) {
		const share_entry *e = &entries[i];
		char *text = shared_detail(refs.items, e->ref, e->end, names, e->len);

		if (text == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate the report");
			goto done;
		}
		rc = scs_report_add(&rep->shared, refs.items[e->ref].name, text);
		free(text);
		if (rc < 0)
			goto done;
	}
	for (size_t k = 0; k < n; k++) {
		snprintf(detail, sizeof(detail), "%llu bytes, %llu bytes of data of its own",
		    (unsigned long long)res[k].model_len, (unsigned long long)own[k]);
		if ((rc = scs_report_add(&rep->models, paths[k], detail)) < 0)
			goto done;
		rep->output_len += res[k].model_len;
	}
	for (uint32_t f = 0; f < l->n_files; f++) {
		char *name = scs_data_layout_name(l, SHARE_DATA_STEM, f), *path = name ? scs_path_join(out_dir, name) : NULL;

		rep->external = 1;
		rep->output_data_len += l->file_len[f];
		snprintf(detail, sizeof(detail), "%llu", (unsigned long long)l->file_len[f]);
		rc = path ? scs_report_add(&rep->data_files, path, detail) : scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		free(name);
		free(path);
		if (rc < 0)
			goto done;
	}
	rc = SCS_OK;
done:
	free(refs.items);
	free(entries);
	free(own);
	return rc;
}

/* Before anything is read: models to write, each of a file name of its own. */
static int
check_models(const char *const *models, size_t n)
{
	if (n == 0)
		return scs_err_set(SCS_EUSAGE, "no model to write: give one or more");
	for (size_t i = 0; i < n; i++) {
		const char *name = scs_path_base(models[i]);

		if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			return scs_err_set(SCS_EUSAGE, "%s: not a file name", models[i]);
		for (size_t j = 0; j < i; j++)
			if (strcmp(name, scs_path_base(models[j])) == 0)
				return scs_err_set(SCS_EUSAGE, "%s and %s have the same file name %s, and the output folder "
				    "holds one file of each name; rename one", models[j], models[i], name);
	}
	return SCS_OK;
}

/* Load every model of @paths into @ms, one payload set (the first model owns it). */
static int
load_models(scs_model **ms, scs_store **store, scs_report *rep, const char *const *paths, size_t n,
    const char *store_dir, const char *tmp_parent, scs_api_progress *pc)
{
	scs_scan_options so;
	int rc;

	if ((rc = scs_store_open(store, store_dir, tmp_parent)) < 0)
		return rc;
	scs_api_scan_options(&so, store_dir, pc);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		pc->rest += stat(paths[i], &st) == 0 ? (uint64_t)st.st_size : 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		uint64_t size = stat(paths[i], &st) == 0 ? (uint64_t)st.st_size : 0;

		pc->rest -= size < pc->rest ? size : pc->rest;
		rc = i == 0 ? scs_model_load(&ms[0], paths[0], *store, &so) : scs_model_load_with(&ms[i], paths[i], ms[0], &so);
		if (rc < 0)
			return rc;
		pc->base += pc->last;
		pc->last = 0;
	}
	/* each file once, however many models read it (a data file they share) */
	for (size_t i = 0; i < ms[0]->payloads->n_files; i++)
		rep->input_len += scs_source_size(ms[0]->payloads->files[i]);
	return SCS_OK;
}

static int
share(scs_report *rep, const char *out_dir, const char *const *models, size_t n, const scs_share_options *opts)
{
	static const scs_share_options defaults;
	scs_shrink_options so;
	scs_emit_result *res = NULL;
	scs_store *store = NULL;
	scs_model **ms = NULL;
	scs_defaults *dflt = NULL;
	scs_commit *c = NULL;
	const char **names = NULL;
	char **paths = NULL;
	scs_data_layout layout;
	scs_api_run r;
	double ts;
	size_t k;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	memset(&layout, 0, sizeof(layout));
	if ((rc = scs_api_run_begin(&r, rep, opts->progress, opts->progress_payload, NULL, NULL, NULL)) < 0)
		return rc;
	if ((rc = check_models(models, n)) < 0 || (rc = scs_api_check_data_file_size(opts->max_data_file_size)) < 0)
		goto done;
	/* the folder is checked first, and made only when every file is written */
	if ((rc = scs_commit_folder(&c, out_dir)) < 0)
		goto done;
	if ((ms = calloc(n, sizeof(*ms))) == NULL || (dflt = calloc(n, sizeof(*dflt))) == NULL ||
	    (res = calloc(n, sizeof(*res))) == NULL || (names = calloc(n, sizeof(*names))) == NULL ||
	    (paths = calloc(n, sizeof(*paths))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the model list");
		goto done;
	}
	for (k = 0; k < n; k++) {
		names[k] = scs_path_base(models[k]);
		if ((paths[k] = scs_path_join(out_dir, names[k])) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
			goto done;
		}
	}
	ts = scs_api_stage_start(&r.pc, "scan");
	if ((rc = load_models(ms, &store, rep, models, n, opts->store_dir, scs_commit_tmp_dir(c), &r.pc)) < 0 ||
	    (rc = scs_precommit_input(ms, n, 1)) < 0)
		goto done;
	for (k = 0; k < n; k++) {
		/* below IR 4 the initializers listed among the inputs are constants, as scs4onnx-shrink takes them */
		if ((rc = scs_api_lift_defaults(&dflt[k], ms[k], rep, 0)) < 0)
			goto done;
		rep->bytes_before += scs_pass_payload_bytes(ms[k]);
	}
	if ((rc = scs_precommit_ready(ms, n, names)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "scan", ts, rep->input_len);
	/* each model as scs4onnx-shrink shrinks it */
	ts = scs_api_stage_start(&r.pc, "shrink");
	memset(&so, 0, sizeof(so));
	so.version = SCS_SHRINK_OPTIONS_VERSION;
	so.disable_auto_downcast = opts->disable_auto_downcast;
	so.keep_transposed = opts->keep_transposed;
	so.optimize = opts->optimize;
	for (k = 0; k < n; k++)
		if ((rc = scs_api_shrink_passes(ms[k], rep, &so, 1, NULL)) < 0)
			goto done;
	scs_api_stage_end(rep, &r.pc, "shrink", ts, 0);
	ts = scs_api_stage_start(&r.pc, "share");
	/*
	 * the transposed copies across the models (each model's own went with
	 * its passes above): a later model's copy becomes a Transpose of an
	 * initializer of its own holding the kept payload, which the sharing
	 * below then stores once
	 */
	if (!opts->keep_transposed && n > 1 &&
	    ((rc = scs_api_transposed(ms, n, rep)) < 0 || (rc = scs_precommit_after(ms, n, "transposed", 1)) < 0))
		goto done;
	if ((rc = share_payloads(ms, n)) < 0 || (rc = scs_precommit_after(ms, n, "share", 1)) < 0)
		goto done;
	scs_api_stage_end(rep, &r.pc, "share", ts, 0);
	for (k = 0; k < n; k++)
		if ((rc = scs_pass_defaults_restore(&dflt[k], ms[k])) < 0)
			goto done;
	/* every model checked before anything is written (precommit.h) */
	if ((rc = scs_precommit_output(ms, n)) < 0)
		goto done;
	ts = scs_api_stage_start(&r.pc, "write");
	{
		scs_emit_options eo;

		memset(&eo, 0, sizeof(eo));
		eo.external_min = SHARE_EXTERNAL_MIN;
		eo.max_file_len = opts->max_data_file_size;
		if (r.pc.fn) {
			eo.progress = scs_api_stage_progress;
			eo.progress_payload = &r.pc;
		}
		if ((rc = scs_emit_write_shared(res, ms, n, c, names, SHARE_DATA_STEM, &eo, opts->dry_run, &layout)) < 0)
			goto done;
	}
	if ((rc = report_share(rep, ms, n, names, paths, res, &layout, out_dir)) < 0)
		goto done;
	if (!opts->dry_run) {
		rc = scs_commit_run(c);
		c = NULL;
		if (rc < 0)
			goto done;
	}
	scs_api_stage_end(rep, &r.pc, "write", ts, opts->dry_run ? 0 : rep->output_len + rep->output_data_len);
done:
	scs_commit_abort(c);
	for (k = n; ms && k-- > 0;) {
		scs_defaults_dispose(&dflt[k], ms[k]);
		scs_model_free(ms[k]);     /* the owner, ms[0], last */
	}
	for (k = 0; paths && k < n; k++)
		free(paths[k]);
	free(paths);
	free(names);
	free(res);
	free(dflt);
	free(ms);
	scs_data_layout_dispose(&layout);
	scs_store_close(store);
	scs_api_run_end(&r);
	return rc;
}

int
scs_api_share(scs_report *rep, const char *out_dir, const char *const *models, size_t n,
    const scs_share_options *opts)
{
	scs_precommit pre;
	int rc;

	scs_precommit_begin(&pre, out_dir);
	do
		rc = share(rep, out_dir, models, n, opts);
	while (scs_precommit_again(&pre, rep, rc));
	return scs_precommit_end(&pre, rep, rc);
}
