/*
 * api_check.c: the public scs_check(): the model scanned the way the tools
 * scan their inputs (main-graph initializers sealed, large payloads neither
 * read nor hashed), checked (check/check.h), the problems handed back as
 * items; a model the scanner refuses is one item. Also the result's JSON
 * and lines.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_impl.h"
#include "check/check.h"
#include "util/path.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SCS_EUSAGE unless @v is a version of a struct of @max versions. */
static int
check_version(const char *what, const char *init, unsigned v, unsigned max)
{
	if (v == 0)
		return scs_err_set(SCS_EUSAGE, "scs_check: %s of version 0: declare it with %s", what, init);
	if (v > max)
		return scs_err_set(SCS_EUSAGE, "scs_check: %s of version %u, newer than this library's %u (scs4onnx %s): "
		    "the program was built against a newer scs4onnx.h", what, v, max, SCS_VERSION);
	return SCS_OK;
}

/* Room for one more item in @res. */
static scs_check_item *
new_item(scs_check_result *res)
{
	if (res->n_items == res->cap_items) {
		size_t cap = res->cap_items ? res->cap_items * 2 : 16;
		scs_check_item *items = realloc(res->items, cap * sizeof(*items));

		if (items == NULL)
			return NULL;
		res->items = items;
		res->cap_items = cap;
	}
	memset(&res->items[res->n_items], 0, sizeof(scs_check_item));
	return &res->items[res->n_items];
}

/* The scanner's refusal of @in (the thread's message) as one item. */
static int
refusal_item(scs_check_result *res, const char *in)
{
	const char *msg = scs_err_msg(), *rule = "model";
	size_t n = strlen(in);
	scs_check_item *it;

	if (strncmp(msg, in, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
		msg += n + 2;
	if (strstr(msg, "external data"))
		rule = "external-data";
	else if (strstr(msg, "tensor '"))
		rule = "tensor";
	if ((it = new_item(res)) == NULL || (it->rule = strdup(rule)) == NULL || (it->what = strdup(msg)) == NULL) {
		if (it)
			free(it->rule);
		return scs_err_set(SCS_ENOMEM, "cannot allocate the check's result");
	}
	res->n_items++;
	return SCS_OK;
}

/* The findings @f as items of @res (their strings moved). */
static int
take_findings(scs_check_result *res, scs_check_findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		scs_check_problem *p = &f->items[i];
		scs_check_item *it = new_item(res);

		if (it == NULL || (it->rule = strdup(scs_check_rule_name(p->rule))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate the check's result");
		it->graph = p->graph;
		it->node = p->node;
		it->what = p->what;
		it->op_type = p->op_type;
		p->graph = p->node = p->what = p->op_type = NULL;
		res->n_items++;
	}
	res->n_graphs = f->n_graphs;
	res->n_nodes = f->n_nodes;
	res->n_tensors = f->n_tensors;
	return SCS_OK;
}

static int
run_check(scs_check_result *res, const char *in, const scs_check_options *o)
{
	scs_api_progress pc = { 0 };
	scs_check_cfg cfg = { 0 };
	scs_check_findings f = { 0 };
	scs_scan_options so;
	scs_store *store = NULL;
	scs_model *m = NULL;
	char *dir = NULL;
	int rc;

	pc.fn = o->progress;
	pc.payload = o->progress_payload;
	scs_api_scan_options(&so, NULL, &pc);
	scs_api_stage_start(&pc, "scan");
	/* typed payloads are decoded into a temporary store, in the temporary folder (nothing is written beside the model) */
	if ((rc = scs_store_open(&store, NULL, getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp")) < 0)
		return rc;
	rc = scs_model_load_sealed(&m, in, store, &so);
	if (rc == SCS_ECORRUPT) {
		rc = refusal_item(res, in);
		goto done;
	}
	if (rc < 0)
		goto done;
	for (size_t i = 0; i < m->payloads->n_files; i++)
		res->input_len += scs_source_size(m->payloads->files[i]);
	if ((dir = scs_path_dir(in)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
		goto done;
	}
	scs_api_stage_start(&pc, "check");
	cfg.full = o->full;
	cfg.model_dir = dir;
	if ((rc = scs_check_model(m, &cfg, &f)) < 0)
		goto done;
	rc = take_findings(res, &f);
done:
	scs_check_findings_dispose(&f);
	free(dir);
	scs_model_free(m);
	scs_store_close(store);
	return rc;
}

int
scs_check(scs_check_result *res, const char *in, const scs_check_options *opts)
{
	scs_check_options o = SCS_CHECK_OPTIONS_INIT;
	double t0 = now();
	int rc;

	if (res == NULL || in == NULL)
		return scs_err_set(SCS_EUSAGE, "scs_check: no %s", res == NULL ? "result" : "model path");
	if ((rc = check_version("scs_check_result", "SCS_CHECK_RESULT_INIT", res->version, SCS_CHECK_RESULT_VERSION)) < 0)
		return rc;
	if (opts) {
		if ((rc = check_version("scs_check_options", "SCS_CHECK_OPTIONS_INIT", opts->version,
		    SCS_CHECK_OPTIONS_VERSION)) < 0)
			return rc;
		o = *opts;
	}
	scs_check_result_dispose(res);
	rc = run_check(res, in, &o);
	res->seconds = now() - t0;
	if (rc < 0)
		scs_check_result_dispose(res);
	return rc;
}

void
scs_check_result_dispose(scs_check_result *res)
{
	unsigned v;

	if (res == NULL)
		return;
	for (size_t i = 0; i < res->n_items; i++) {
		free(res->items[i].rule);
		free(res->items[i].graph);
		free(res->items[i].node);
		free((char *)res->items[i].op_type);
		free(res->items[i].what);
	}
	free(res->items);
	v = res->version;
	memset(res, 0, sizeof(*res));
	res->version = v;
}

char *
scs_check_item_line(const scs_check_item *it)
{
	scs_check_problem p;
	char *buf;
	int n;

	p.rule = 0;
	for (int r = 0; r < SCS_RULE_COUNT; r++)
		if (it->rule && strcmp(it->rule, scs_check_rule_name(r)) == 0)
			p.rule = r;
	p.graph = it->graph;
	p.node = it->node;
	p.op_type = (char *)it->op_type;
	p.what = it->what ? it->what : "";
	n = scs_check_problem_line(&p, NULL, 0);
	if (n < 0 || (buf = malloc((size_t)n + 1)) == NULL)
		return NULL;
	scs_check_problem_line(&p, buf, (size_t)n + 1);
	return buf;
}

/* @s as a JSON string; null for NULL. */
static void
json_str(FILE *f, const char *s)
{
	if (s == NULL)
		fputs("null", f);
	else
		scs_json_str(f, s);
}

char *
scs_check_result_json(const scs_check_result *res)
{
	char *text = NULL, *line;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ok = 1;

	if (f == NULL)
		return NULL;
	fprintf(f, "{\n  \"valid\": %s,\n  \"problems\": [", res->n_items ? "false" : "true");
	for (size_t i = 0; i < res->n_items; i++) {
		const scs_check_item *it = &res->items[i];

		fprintf(f, "%s\n    {\"rule\": ", i ? "," : "");
		json_str(f, it->rule);
		fputs(", \"graph\": ", f);
		json_str(f, it->graph);
		fputs(", \"node\": ", f);
		json_str(f, it->node);
		fputs(", \"op_type\": ", f);
		json_str(f, it->op_type);
		fputs(", \"what\": ", f);
		json_str(f, it->what);
		fputs(", \"line\": ", f);
		if ((line = scs_check_item_line(it)) == NULL)
			ok = 0;
		json_str(f, line ? line : "");
		free(line);
		fputc('}', f);
	}
	fprintf(f, "%s],\n  \"graphs\": %llu,\n  \"nodes\": %llu,\n  \"tensors\": %llu,\n  \"input_bytes\": %llu,\n"
	    "  \"seconds\": %.3f\n}\n", res->n_items ? "\n  " : "", (unsigned long long)res->n_graphs,
	    (unsigned long long)res->n_nodes, (unsigned long long)res->n_tensors, (unsigned long long)res->input_len,
	    res->seconds);
	if (fclose(f) != 0 || !ok) {
		free(text);
		return NULL;
	}
	return text;
}
