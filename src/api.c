/*
 * api.c: the public calls (scs4onnx.h): scan -> passes -> emit, owning the
 * store's lifetime and the output-path checks.
 */
#include "scs4onnx.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emit.h"
#include "npy.h"
#include "model.h"
#include "pass.h"
#include "sink.h"
#include "source.h"
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
	const scs_shrink_options *opts;
	const char *stage;
} progress_ctx;

/* Forward a room's progress (done, total) as the current stage's. */
static void
stage_progress(void *payload, uint64_t done, uint64_t total)
{
	progress_ctx *p = payload;

	p->opts->progress(p->opts->progress_payload, p->stage, done, total);
}

/* Refuse an output path that would overwrite a file the model is read from. */
static int
check_output(const scs_model *m, const char *path)
{
	if (scs_payloads_reads_from(m->payloads, path))
		return scs_err_set(SCS_EUSAGE, "%s: the input is read from this file; write the output elsewhere", path);
	return SCS_OK;
}

static int
check_outputs(const scs_model *m, const char *out)
{
	char *data = scs_emit_data_path(out);
	int rc;

	if (data == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if ((rc = check_output(m, out)) == SCS_OK)
		rc = check_output(m, data);
	free(data);
	return rc;
}

/* Write each extracted constant as a .npy beside @out (under temporary
 * names: emit commits them with the model). */
static int
write_npys(scs_sink ***out_sinks, scs_model *m, scs_report *rep, const scs_extract_list *list, const char *out,
    const char *out_dir)
{
	scs_buf head = SCS_BUF_INIT;
	scs_sink **sinks;
	char *path = NULL;
	size_t i;
	int rc = SCS_OK;

	if ((sinks = calloc(list->n ? list->n : 1, sizeof(*sinks))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the .npy list");
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
		    (rc = scs_sink_open(&sinks[i], path)) < 0 || (rc = scs_sink_write(sinks[i], head.data, head.len)) < 0 ||
		    (rc = scs_payloads_copy(m->payloads, e->payload, sinks[i])) < 0 ||
		    (rc = scs_report_add(&rep->npy, e->constant, path)) < 0)
			break;
		free(path);
		path = NULL;
	}
	free(path);
	scs_buf_dispose(&head);
	if (rc < 0) {
		for (i = 0; i < list->n; i++)
			scs_sink_abort(sinks[i]);
		free(sinks);
		return rc;
	}
	*out_sinks = sinks;
	return SCS_OK;
}

int
scs_shrink(scs_report *rep, const char *in, const char *out, const scs_shrink_options *opts)
{
	static const scs_shrink_options defaults;
	scs_scan_options scan_opts;
	scs_emit_options emit_opts;
	scs_emit_result res;
	progress_ctx pc;
	scs_store *store = NULL;
	scs_model *m = NULL;
	scs_extract_list extracted = { NULL, 0, 0 };
	scs_extract_options xo;
	scs_sink **npy_sinks = NULL;
	char *out_dir = NULL;
	double t0 = now();
	int rc;

	memset(rep, 0, sizeof(*rep));
	if (opts == NULL)
		opts = &defaults;
	if ((out_dir = scs_path_dir(out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if ((rc = scs_store_open(&store, opts->store_dir, out_dir)) < 0)
		goto done;
	memset(&scan_opts, 0, sizeof(scan_opts));
	scan_opts.hold_bytes = opts->store_dir != NULL;
	if (opts->progress) {
		pc.opts = opts;
		pc.stage = "scan";
		scan_opts.progress = stage_progress;
		scan_opts.progress_payload = &pc;
	}
	if ((rc = scs_model_load(&m, in, store, &scan_opts)) < 0)
		goto done;
	if ((rc = check_outputs(m, out)) < 0)
		goto done;
	for (size_t i = 0; i < m->payloads->n_files; i++)
		rep->input_len += scs_source_size(m->payloads->files[i]);
	rep->bytes_before = scs_pass_payload_bytes(m);
	if ((rc = scs_pass_dedup(m, rep)) < 0)
		goto done;
	if (!opts->disable_auto_downcast && (rc = scs_pass_downcast(m, rep)) < 0)
		goto done;
	memset(&xo, 0, sizeof(xo));
	xo.groups = opts->mode == SCS_MODE_NPY;
	xo.op_names = opts->forced_op_names;
	xo.n_op_names = opts->n_forced_op_names;
	xo.constant_names = opts->forced_constant_names;
	xo.n_constant_names = opts->n_forced_constant_names;
	xo.out_path = out;
	if ((xo.groups || xo.n_op_names || xo.n_constant_names) &&
	    ((rc = scs_pass_extract(m, rep, &xo, &extracted)) < 0 ||
	    (rc = write_npys(&npy_sinks, m, rep, &extracted, out, out_dir)) < 0))
		goto done;
	rep->bytes_after = scs_pass_payload_bytes(m);
	memset(&emit_opts, 0, sizeof(emit_opts));
	emit_opts.external = opts->external_data;
	if (opts->progress) {
		pc.stage = "write";
		emit_opts.progress = stage_progress;
		emit_opts.progress_payload = &pc;
		opts->progress(opts->progress_payload, "write", 0, 1);
	}
	rc = scs_emit(&res, m, out, &emit_opts, npy_sinks, extracted.n);
	free(npy_sinks);
	npy_sinks = NULL;
	if (rc < 0)
		goto done;
	rep->external = res.external;
	rep->output_len = res.model_len;
	rep->output_data_len = res.data_len;
done:
	if (npy_sinks)
		for (size_t i = 0; i < extracted.n; i++)
			scs_sink_abort(npy_sinks[i]);
	free(npy_sinks);
	scs_extract_list_dispose(&extracted);
	rep->seconds = now() - t0;
	scs_model_free(m);
	scs_store_close(store);
	free(out_dir);
	return rc;
}
