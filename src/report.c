/*
 * report.c: run summaries as text and JSON (see report.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "err.h"
#include "payload.h"

/* rchar and wchar of /proc/self/io; 0 when it cannot be read. */
static int
read_io(uint64_t *rchar, uint64_t *wchar)
{
	FILE *f = fopen("/proc/self/io", "re");
	char line[128];
	unsigned long long v;
	int found = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "rchar: %llu", &v) == 1) {
			*rchar = v;
			found |= 1;
		} else if (sscanf(line, "wchar: %llu", &v) == 1) {
			*wchar = v;
			found |= 2;
		}
	}
	fclose(f);
	return found == 3;
}

void
scs_report_io_begin(scs_report *r)
{
	r->has_io = read_io(&r->io_start[0], &r->io_start[1]);
	r->io_start[2] = scs_payloads_mapped_bytes();
	r->io_start[3] = scs_sink_kernel_copied();
}

/* The run's I/O so far. */
static void
io_update(scs_report *r)
{
	uint64_t rchar, wchar;

	if (!r->has_io || !read_io(&rchar, &wchar))
		return;
	r->bytes_read = rchar - r->io_start[0];
	r->bytes_written = wchar - r->io_start[1];
	r->bytes_mapped = scs_payloads_mapped_bytes() - r->io_start[2];
	r->bytes_kernel_copied = scs_sink_kernel_copied() - r->io_start[3];
}

int
scs_report_add_group(scs_report *r, const char *canonical, const char *const *names, size_t n_names,
    int dtype, uint64_t bytes, int lifted)
{
	scs_report_group *g, *grown;
	size_t cap;

	if (r->n_groups == r->cap_groups) {
		cap = r->cap_groups ? r->cap_groups * 2 : 16;
		if ((grown = realloc(r->groups, cap * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow the report");
		r->groups = grown;
		r->cap_groups = cap;
	}
	g = &r->groups[r->n_groups];
	memset(g, 0, sizeof(*g));
	if ((g->canonical = strdup(canonical)) == NULL || (g->names = calloc(n_names ? n_names : 1, sizeof(char *))) == NULL)
		goto fail;
	for (; g->n_names < n_names; g->n_names++)
		if ((g->names[g->n_names] = strdup(names[g->n_names])) == NULL)
			goto fail;
	g->dtype = dtype;
	g->bytes = bytes;
	g->lifted = lifted;
	r->n_groups++;
	return SCS_OK;
fail:
	for (size_t i = 0; i < g->n_names; i++)
		free(g->names[i]);
	free(g->names);
	free(g->canonical);
	return scs_err_set(SCS_ENOMEM, "cannot grow the report");
}

int
scs_report_add(scs_report_list *l, const char *name, const char *detail)
{
	scs_report_item *grown;
	size_t cap;

	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 16;
		if ((grown = realloc(l->items, cap * sizeof(*grown))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow the report");
		l->items = grown;
		l->cap = cap;
	}
	l->items[l->n].name = strdup(name);
	l->items[l->n].detail = strdup(detail ? detail : "");
	if (!l->items[l->n].name || !l->items[l->n].detail) {
		free(l->items[l->n].name);
		free(l->items[l->n].detail);
		return scs_err_set(SCS_ENOMEM, "cannot grow the report");
	}
	l->n++;
	return SCS_OK;
}

static void
list_dispose(scs_report_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].detail);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

void
scs_report_dispose(scs_report *r)
{
	for (size_t i = 0; i < r->n_groups; i++) {
		for (size_t j = 0; j < r->groups[i].n_names; j++)
			free(r->groups[i].names[j]);
		free(r->groups[i].names);
		free(r->groups[i].canonical);
	}
	free(r->groups);
	list_dispose(&r->skipped);
	list_dispose(&r->narrowed);
	list_dispose(&r->refused);
	list_dispose(&r->npy);
	list_dispose(&r->unexported);
	list_dispose(&r->npy_renamed);
	list_dispose(&r->shards);
	list_dispose(&r->changes);
	list_dispose(&r->left);
	memset(r, 0, sizeof(*r));
}

void
scs_report_stage_add(scs_report *r, const char *name, double seconds, uint64_t bytes)
{
	if (r->n_stages == SCS_REPORT_MAX_STAGES)
		return;
	snprintf(r->stages[r->n_stages].name, sizeof(r->stages[r->n_stages].name), "%s", name);
	r->stages[r->n_stages].seconds = seconds;
	r->stages[r->n_stages].bytes = bytes;
	r->n_stages++;
	io_update(r);
}

static void
print_list(FILE *f, const char *title, const scs_report_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "INFO: %s: %s: %s\n", title, l->items[i].name, l->items[i].detail);
}

/* What dedup and downcast did. */
static void
print_dedup(const scs_report *r, FILE *f)
{
	fprintf(f, "INFO: constants studied: %llu (scalars left alone: %llu)\n",
	    (unsigned long long)r->n_constants, (unsigned long long)r->n_scalars);
	for (size_t i = 0; i < r->n_groups; i++) {
		const scs_report_group *g = &r->groups[i];

		fprintf(f, "INFO: merged: %s <- ", g->canonical);
		for (size_t j = 0; j < g->n_names; j++)
			fprintf(f, "%s%s", j ? ", " : "", g->names[j]);
		fprintf(f, " (%s, %llu bytes each%s)\n", scs_dtype_name(g->dtype), (unsigned long long)g->bytes,
		    g->lifted ? ", lifted to the enclosing graph" : "");
	}
	fprintf(f, "INFO: groups merged: %zu\n", r->n_groups);
	print_list(f, "not merged", &r->skipped);
	print_list(f, "narrowed", &r->narrowed);
	print_list(f, "not narrowed", &r->refused);
}

void
scs_report_print(const scs_report *r, FILE *f)
{
	double before = (double)r->bytes_before, after = (double)r->bytes_after;

	if (r->optimized) {
		print_list(f, "optimized", &r->changes);
		print_list(f, "not optimized", &r->left);
		fprintf(f, "INFO: passes:");
		for (size_t i = 0; i < r->n_passes; i++)
			fprintf(f, "%s %s", i ? "," : "", r->passes[i].name);
		fputc('\n', f);
		for (size_t i = 0; i < r->n_passes; i++)
			if (r->passes[i].changes || r->passes[i].refusals)
				fprintf(f, "INFO: pass %s: %llu changes, %llu left alone\n", r->passes[i].name,
				    (unsigned long long)r->passes[i].changes, (unsigned long long)r->passes[i].refusals);
		fprintf(f, "INFO: nodes: %llu -> %llu (%u rounds)\n", (unsigned long long)r->nodes_before,
		    (unsigned long long)r->nodes_after, r->rounds);
	}
	if (!r->optimize_only)
		print_dedup(r, f);
	print_list(f, "exported", &r->npy);
	print_list(f, "npy name made unique", &r->npy_renamed);
	print_list(f, "not exported", &r->unexported);
	if (r->n_shards)
		fprintf(f, "INFO: shards: %zu\n", r->n_shards);
	print_list(f, "shard", &r->shards);
	for (size_t i = 0; i < r->n_stages; i++) {
		fprintf(f, "INFO: stage %s: %.2f s", r->stages[i].name, r->stages[i].seconds);
		if (r->stages[i].bytes)
			fprintf(f, ", %llu bytes", (unsigned long long)r->stages[i].bytes);
		fputc('\n', f);
	}
	fprintf(f, "INFO: constant bytes: %llu -> %llu (%.1f%%)\n", (unsigned long long)r->bytes_before,
	    (unsigned long long)r->bytes_after, before > 0 ? 100.0 * after / before : 100.0);
	fprintf(f, "INFO: file bytes: %llu -> %llu%s\n", (unsigned long long)r->input_len,
	    (unsigned long long)(r->output_len + r->output_data_len), r->external ? " (with external data)" : "");
	fprintf(f, "INFO: finished in %.2f s\n", r->seconds);
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* ,"key": [{"<name_key>": name, "<detail_key>": detail}, ...] at indentation @indent. */
static void
json_items(FILE *f, const char *indent, const char *key, const scs_report_list *l, const char *name_key,
    const char *detail_key)
{
	fprintf(f, ",\n%s\"%s\": [", indent, key);
	for (size_t i = 0; i < l->n; i++) {
		fprintf(f, "%s\n%s  {\"%s\": ", i ? "," : "", indent, name_key);
		json_str(f, l->items[i].name);
		fprintf(f, ", \"%s\": ", detail_key);
		json_str(f, l->items[i].detail);
		fputc('}', f);
	}
	fprintf(f, "%s]", l->n ? "\n" : "");
	if (l->n)
		fputs(indent, f);
}

static void
json_list(FILE *f, const char *key, const scs_report_list *l, const char *detail_key)
{
	json_items(f, "  ", key, l, "name", detail_key);
}

static void
json_optimize(const scs_report *r, FILE *f)
{
	fprintf(f, ",\n  \"optimize\": {\n    \"nodes_before\": %llu,\n    \"nodes_after\": %llu,\n"
	    "    \"rounds\": %u,\n    \"passes\": [", (unsigned long long)r->nodes_before,
	    (unsigned long long)r->nodes_after, r->rounds);
	for (size_t i = 0; i < r->n_passes; i++) {
		fprintf(f, "%s\n      {\"name\": ", i ? "," : "");
		json_str(f, r->passes[i].name);
		fprintf(f, ", \"changes\": %llu, \"left\": %llu}", (unsigned long long)r->passes[i].changes,
		    (unsigned long long)r->passes[i].refusals);
	}
	fprintf(f, "%s]", r->n_passes ? "\n    " : "");
	json_items(f, "    ", "changes", &r->changes, "pass", "change");
	json_items(f, "    ", "left", &r->left, "pass", "reason");
	fprintf(f, "\n  }");
}

int
scs_report_write_json(const scs_report *r, FILE *f)
{
	fprintf(f, "{\n  \"constants\": %llu,\n  \"scalars\": %llu,\n  \"groups\": [",
	    (unsigned long long)r->n_constants, (unsigned long long)r->n_scalars);
	for (size_t i = 0; i < r->n_groups; i++) {
		const scs_report_group *g = &r->groups[i];

		fprintf(f, "%s\n    {\"canonical\": ", i ? "," : "");
		json_str(f, g->canonical);
		fprintf(f, ", \"dtype\": \"%s\", \"bytes\": %llu, \"lifted\": %s, \"merged\": [",
		    scs_dtype_name(g->dtype), (unsigned long long)g->bytes, g->lifted ? "true" : "false");
		for (size_t j = 0; j < g->n_names; j++) {
			if (j)
				fputs(", ", f);
			json_str(f, g->names[j]);
		}
		fputs("]}", f);
	}
	fprintf(f, "%s]", r->n_groups ? "\n  " : "");
	json_list(f, "not_merged", &r->skipped, "reason");
	json_list(f, "narrowed", &r->narrowed, "change");
	json_list(f, "not_narrowed", &r->refused, "reason");
	json_list(f, "npy", &r->npy, "path");
	json_list(f, "npy_renamed", &r->npy_renamed, "reason");
	json_list(f, "not_exported", &r->unexported, "reason");
	if (r->optimized)
		json_optimize(r, f);
	fprintf(f, ",\n  \"n_shards\": %zu", r->n_shards);
	json_list(f, "shards", &r->shards, "bytes");
	fprintf(f, ",\n  \"stages\": [");
	for (size_t i = 0; i < r->n_stages; i++)
		fprintf(f, "%s\n    {\"name\": \"%s\", \"seconds\": %.3f, \"bytes\": %llu}", i ? "," : "", r->stages[i].name,
		    r->stages[i].seconds, (unsigned long long)r->stages[i].bytes);
	fprintf(f, "%s]", r->n_stages ? "\n  " : "");
	if (r->has_io)
		fprintf(f, ",\n  \"bytes_read\": %llu,\n  \"bytes_written\": %llu,\n  \"bytes_kernel_copied\": %llu,\n"
		    "  \"bytes_compared_mapped\": %llu", (unsigned long long)r->bytes_read,
		    (unsigned long long)r->bytes_written, (unsigned long long)r->bytes_kernel_copied,
		    (unsigned long long)r->bytes_mapped);
	fprintf(f, ",\n  \"constant_bytes_before\": %llu,\n  \"constant_bytes_after\": %llu,\n"
	    "  \"input_bytes\": %llu,\n  \"output_bytes\": %llu,\n  \"output_data_bytes\": %llu,\n"
	    "  \"external_data\": %s,\n  \"seconds\": %.3f\n}\n",
	    (unsigned long long)r->bytes_before, (unsigned long long)r->bytes_after,
	    (unsigned long long)r->input_len, (unsigned long long)r->output_len,
	    (unsigned long long)r->output_data_len, r->external ? "true" : "false", r->seconds);
	return ferror(f) ? scs_err_set(SCS_EIO, "cannot write the JSON report") : SCS_OK;
}
