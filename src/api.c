/*
 * api.c: the public calls (scs4onnx.h): scan -> passes -> emit, owning the
 * store's lifetime and the output-path checks.
 */
#include "scs4onnx.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emit.h"
#include "model.h"
#include "pass.h"
#include "source.h"
#include "store.h"

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

static void
scan_progress(void *payload, uint64_t done, uint64_t total)
{
	progress_ctx *p = payload;

	p->opts->progress(p->opts->progress_payload, p->stage, done, total);
}

/* Refuse outputs that would overwrite a file the model is read from. */
static int
check_outputs(const scs_model *m, const char *out)
{
	char *data = scs_emit_data_path(out);
	int rc = SCS_OK;

	if (data == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if (scs_payloads_reads_from(&m->payloads, out))
		rc = scs_err_set(SCS_EUSAGE, "%s: the input is read from this file; write the output elsewhere", out);
	else if (scs_payloads_reads_from(&m->payloads, data))
		rc = scs_err_set(SCS_EUSAGE, "%s: the input is read from this file; write the output elsewhere", data);
	free(data);
	return rc;
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
	char *out_dir = NULL;
	double t0 = now();
	int rc;

	memset(rep, 0, sizeof(*rep));
	if (opts == NULL)
		opts = &defaults;
	if (opts->mode != SCS_MODE_SHRINK || opts->n_forced_op_names || opts->n_forced_constant_names)
		return scs_err_set(SCS_EUNSUPPORTED, "npy mode and forced extraction are not available yet");
	if ((out_dir = scs_path_dir(out)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if ((rc = scs_store_open(&store, opts->store_dir, out_dir)) < 0)
		goto done;
	memset(&scan_opts, 0, sizeof(scan_opts));
	scan_opts.hold_bytes = opts->store_dir != NULL;
	if (opts->progress) {
		pc.opts = opts;
		pc.stage = "scan";
		scan_opts.progress = scan_progress;
		scan_opts.progress_payload = &pc;
	}
	if ((rc = scs_model_load(&m, in, store, &scan_opts)) < 0)
		goto done;
	if ((rc = check_outputs(m, out)) < 0)
		goto done;
	for (size_t i = 0; i < m->payloads.n_files; i++)
		rep->input_len += scs_source_size(m->payloads.files[i]);
	rep->bytes_before = scs_pass_payload_bytes(m);
	if ((rc = scs_pass_dedup(m, rep)) < 0)
		goto done;
	if (!opts->disable_auto_downcast && (rc = scs_pass_downcast(m, rep)) < 0)
		goto done;
	rep->bytes_after = scs_pass_payload_bytes(m);
	memset(&emit_opts, 0, sizeof(emit_opts));
	emit_opts.external = opts->external_data;
	if (opts->progress)
		opts->progress(opts->progress_payload, "write", 0, 1);
	if ((rc = scs_emit(&res, m, out, &emit_opts)) < 0)
		goto done;
	rep->external = res.external;
	rep->output_len = res.model_len;
	rep->output_data_len = res.data_len;
done:
	rep->seconds = now() - t0;
	scs_model_free(m);
	scs_store_close(store);
	free(out_dir);
	return rc;
}
