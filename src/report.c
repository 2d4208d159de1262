/*
 * report.c: run summaries as text and JSON (see report.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "onnx/dtype.h"
#include "util/buf.h"
#include "util/err.h"
#include "io/payload.h"
#include "util/strmap.h"

/*
 * rchar and wchar of the calling thread (/proc/thread-self/io: a call's own
 * I/O, whatever other threads do at once): 1; of the process where the
 * kernel has no thread-self (before Linux 3.17): 2; 0 when neither can be
 * read.
 */
static int
read_io(uint64_t *rchar, uint64_t *wchar)
{
	FILE *f = fopen("/proc/thread-self/io", "re");
	char line[128];
	unsigned long long v;
	int found = 0, of_thread = f != NULL;

	if (f == NULL && (f = fopen("/proc/self/io", "re")) == NULL)
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
	return found != 3 ? 0 : of_thread ? 1 : 2;
}

void
scs_report_io_begin(scs_report *r)
{
	r->has_io = read_io(&r->io_start[0], &r->io_start[1]) != 0;
	r->io_start[0] += scs_payloads_helper_read_bytes();   /* the reads of the threads it starts count as its own */
	r->io_start[2] = scs_payloads_mapped_bytes();
	r->io_start[3] = scs_sink_kernel_copied();
	r->io_start_direct = 0;
	r->io_start_copied = scs_sink_copied_through();
}

/* The run's I/O so far. */
static void
io_update(scs_report *r)
{
	uint64_t rchar, wchar;

	if (!r->has_io || read_io(&rchar, &wchar) == 0)
		return;
	r->bytes_read = rchar + scs_payloads_helper_read_bytes() - r->io_start[0];
	r->bytes_written = wchar - r->io_start[1];
	r->bytes_mapped = scs_payloads_mapped_bytes() - r->io_start[2];
	r->bytes_kernel_copied = scs_sink_kernel_copied() - r->io_start[3];
	r->bytes_written_direct = 0;    /* nothing is written past the cache (sink.c) */
	r->bytes_copied_through = scs_sink_copied_through() - r->io_start_copied;
}

int
scs_report_add_group(scs_report *r, const char *canonical, const char *const *names, size_t n_names,
    int dtype, uint64_t bytes, int lifted)
{
	scs_report_group *g;
	int rc;

	if ((rc = scs_grow(&r->groups, &r->cap_groups, r->n_groups, sizeof(*r->groups), 16, "the report")) < 0)
		return rc;
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

static void
group_dispose(scs_report_group *g)
{
	for (size_t j = 0; j < g->n_names; j++)
		free(g->names[j]);
	free(g->names);
	free(g->canonical);
	memset(g, 0, sizeof(*g));
}

/* 1 when @g is @name's group: its canonical or one of its names. */
static int
group_has(const scs_report_group *g, const char *name)
{
	if (strcmp(g->canonical, name) == 0)
		return 1;
	for (size_t k = 0; k < g->n_names; k++)
		if (strcmp(g->names[k], name) == 0)
			return 1;
	return 0;
}

/*
 * Move @from's names to the end of @to's (@from's canonical is @to's or one
 * of its names); a name both have (a constant split copied into two shards,
 * merged away in each) is kept once.
 */
static int
group_absorb(scs_report_group *to, scs_report_group *from)
{
	char **grown;

	if ((grown = realloc(to->names, (to->n_names + from->n_names + 1) * sizeof(*grown))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot grow the report");
	to->names = grown;
	for (size_t k = 0; k < from->n_names; k++) {
		if (group_has(to, from->names[k]))
			free(from->names[k]);
		else
			to->names[to->n_names++] = from->names[k];
	}
	from->n_names = 0;
	to->lifted |= from->lifted;
	return SCS_OK;
}

int
scs_report_fold_groups(scs_report *r, size_t from)
{
	scs_strmap live = SCS_STRMAP_INIT;    /* canonical -> index of the group that holds it (keys borrowed) */
	uint8_t *gone;                        /* groups absorbed by a later one */
	size_t kept = from;
	int64_t j;
	int rc = SCS_OK;

	if (r->n_groups <= from)
		return SCS_OK;
	if ((gone = calloc(r->n_groups, 1)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot grow the report");
	for (size_t i = from; rc == SCS_OK && i < r->n_groups; i++) {
		scs_report_group *g = &r->groups[i];
		size_t n_names = g->n_names;

		for (size_t k = 0; rc == SCS_OK && k <= n_names; k++) {
			const char *name = k == 0 ? g->canonical : g->names[k - 1];

			if (scs_strmap_get(&live, name, &j) && (size_t)j != i && !gone[j] &&
			    strcmp(r->groups[j].canonical, name) == 0) {
				rc = group_absorb(g, &r->groups[j]);
				gone[j] = 1;
			}
		}
		if (rc == SCS_OK)
			rc = scs_strmap_put(&live, g->canonical, (int64_t)i);
	}
	scs_strmap_dispose(&live);
	for (size_t i = from; i < r->n_groups; i++) {
		if (gone[i] && rc == SCS_OK)
			group_dispose(&r->groups[i]);
		else if (rc == SCS_OK)
			r->groups[kept++] = r->groups[i];
	}
	if (rc == SCS_OK)
		r->n_groups = kept;
	free(gone);
	return rc;
}

/* A name's place in a group or a group's place: where the model has it first, then where it was. */
typedef struct ranked {
	int64_t at;
	size_t was;
	void *item;
} ranked;

static int
cmp_ranked(const void *pa, const void *pb)
{
	const ranked *a = pa, *b = pb;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return a->was < b->was ? -1 : a->was > b->was;
}

/* @name's first place in @first, or INT64_MAX when it is not there. */
static int64_t
place_of(const scs_strmap *first, const char *name)
{
	int64_t at;

	return scs_strmap_get(first, name, &at) ? at : INT64_MAX;
}

int
scs_report_order_groups(scs_report *r, size_t from, const scs_pass_notes *order)
{
	scs_strmap first = SCS_STRMAP_INIT;      /* name -> its first index in @order (keys borrowed) */
	ranked *rk = NULL;
	scs_report_group *sorted = NULL;
	size_t most = r->n_groups > from ? r->n_groups - from : 0;
	int64_t at;
	int rc = SCS_OK;

	if (most == 0)
		return SCS_OK;
	for (size_t i = 0; i < r->n_groups; i++)
		if (r->groups[i].n_names > most)
			most = r->groups[i].n_names;
	for (size_t i = 0; rc == SCS_OK && i < order->n; i++)
		if (!scs_strmap_get(&first, order->items[i].name, &at))
			rc = scs_strmap_put(&first, order->items[i].name, (int64_t)i);
	if (rc == SCS_OK && ((rk = calloc(most, sizeof(*rk))) == NULL ||
	    (sorted = malloc((r->n_groups - from) * sizeof(*sorted))) == NULL))
		rc = scs_err_set(SCS_ENOMEM, "cannot order the report's groups");
	for (size_t i = from; rc == SCS_OK && i < r->n_groups; i++) {
		scs_report_group *g = &r->groups[i];

		for (size_t k = 0; k < g->n_names; k++)
			rk[k] = (ranked){ place_of(&first, g->names[k]), k, g->names[k] };
		qsort(rk, g->n_names, sizeof(*rk), cmp_ranked);
		for (size_t k = 0; k < g->n_names; k++)
			g->names[k] = rk[k].item;
	}
	for (size_t i = from; rc == SCS_OK && i < r->n_groups; i++) {
		scs_report_group *g = &r->groups[i];
		int64_t c = place_of(&first, g->canonical), n = g->n_names ? place_of(&first, g->names[0]) : INT64_MAX;

		rk[i - from] = (ranked){ c < n ? c : n, i, g };
	}
	if (rc == SCS_OK) {
		qsort(rk, r->n_groups - from, sizeof(*rk), cmp_ranked);
		for (size_t i = from; i < r->n_groups; i++)
			sorted[i - from] = *(scs_report_group *)rk[i - from].item;
		memcpy(r->groups + from, sorted, (r->n_groups - from) * sizeof(*sorted));
	}
	scs_strmap_dispose(&first);
	free(rk);
	free(sorted);
	return rc;
}

void
scs_report_list_unique(scs_report_list *l)
{
	size_t kept = 0;

	for (size_t i = 0; i < l->n; i++) {
		size_t k = 0;

		while (k < kept && (strcmp(l->items[k].name, l->items[i].name) != 0 ||
		    strcmp(l->items[k].detail, l->items[i].detail) != 0))
			k++;
		if (k < kept) {
			free(l->items[i].name);
			free(l->items[i].detail);
		} else {
			l->items[kept++] = l->items[i];
		}
	}
	l->n = kept;
}

int
scs_report_add(scs_report_list *l, const char *name, const char *detail)
{
	int rc;

	if ((rc = scs_grow(&l->items, &l->cap, l->n, sizeof(*l->items), 16, "the report")) < 0)
		return rc;
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

void
scs_report_list_dispose(scs_report_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].detail);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

void
scs_report_clear(scs_report *r)
{
	for (size_t i = 0; i < r->n_groups; i++)
		group_dispose(&r->groups[i]);
	free(r->groups);
	scs_report_list_dispose(&r->skipped);
	scs_report_list_dispose(&r->narrowed);
	scs_report_list_dispose(&r->refused);
	scs_report_list_dispose(&r->npy);
	scs_report_list_dispose(&r->unexported);
	scs_report_list_dispose(&r->npy_renamed);
	scs_report_list_dispose(&r->shards);
	scs_report_list_dispose(&r->changes);
	scs_report_list_dispose(&r->left);
	free(r->pass_list);
	scs_report_list_dispose(&r->transposed);
	scs_report_list_dispose(&r->data_files);
	scs_report_list_dispose(&r->models);
	scs_report_list_dispose(&r->shared);
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

/* "1.9 MiB", "512 bytes": @n for a person (powers of 1024). */
static const char *
human(char buf[32], uint64_t n)
{
	return scs_human_size(buf, n);
}

/* "82% smaller", "3% larger", "the same size": @after against @before. */
static void
print_change(FILE *f, uint64_t before, uint64_t after)
{
	double pct = before ? 100.0 * ((double)before - (double)after) / (double)before : 0.0;

	if (after == before)
		fputs("the same size", f);
	else if (pct >= 1.0 || pct <= -1.0)
		fprintf(f, "%.0f%% %s", pct > 0 ? pct : -pct, pct > 0 ? "smaller" : "larger");
	else
		fprintf(f, "%.2f%% %s", pct > 0 ? pct : -pct, pct > 0 ? "smaller" : "larger");
}

/* The first line: what became of the files, in words. */
static void
print_headline(const scs_report *r, FILE *f)
{
	uint64_t after = r->output_len + r->output_data_len + r->npy_len;
	char a[32], b[32];

	if (r->split_only) {
		fprintf(f, "INFO: %zu shard%s, %s in all, from %s\n", r->n_shards, r->n_shards == 1 ? "" : "s",
		    human(a, after), human(b, r->input_len));
		return;
	}
	fputs("INFO: ", f);
	print_change(f, r->input_len, after);
	fprintf(f, ": %s -> %s", human(b, r->input_len), human(a, after));
	if (r->npy_len)
		fputs(" (the model and its .npy files)", f);
	fputc('\n', f);
}

/* Names shown on one summary line; the JSON report has them all. */
#define SHOWN_NAMES 5

/* What dedup and downcast did. */
static void
print_dedup(const scs_report *r, FILE *f)
{
	fprintf(f, "INFO: constants studied: %llu (scalars left alone: %llu)\n",
	    (unsigned long long)r->n_constants, (unsigned long long)r->n_scalars);
	for (size_t i = 0; i < r->n_groups; i++) {
		const scs_report_group *g = &r->groups[i];
		size_t shown = g->n_names <= SHOWN_NAMES + 1 ? g->n_names : SHOWN_NAMES;

		fprintf(f, "INFO: merged: %s <- ", g->canonical);
		for (size_t j = 0; j < shown; j++)
			fprintf(f, "%s%s", j ? ", " : "", g->names[j]);
		if (shown < g->n_names)
			fprintf(f, " ... and %zu more", g->n_names - shown);
		fprintf(f, " (%s, %llu bytes each%s)\n", scs_dtype_name(g->dtype), (unsigned long long)g->bytes,
		    g->lifted ? ", lifted to the enclosing graph" : "");
	}
	fprintf(f, "INFO: groups merged: %zu\n", r->n_groups);
	print_list(f, "not merged", &r->skipped);
	print_list(f, "narrowed", &r->narrowed);
	print_list(f, "not narrowed", &r->refused);
	print_list(f, "transposed", &r->transposed);
	if (r->transposed.n)
		fprintf(f, "INFO: transposed copies removed (read through the kept one): %zu, %llu bytes\n", r->transposed.n,
		    (unsigned long long)r->bytes_transposed);
}

/* What the initializers listed among the graph inputs were taken for. */
static const char *
default_inputs_rule(const scs_report *r)
{
	switch (r->default_inputs_rule) {
	case SCS_DEFAULTS_CONSTANT_IR3:
		return "constants (below IR version 4 every initializer is listed as an input; runtimes take them as "
		    "constants)";
	case SCS_DEFAULTS_CONSTANT_ASKED:
		return "constants, as asked (--initializers-as-constants): no longer graph inputs";
	default:
		return "left alone (from IR version 4 on, a caller may override them; --initializers-as-constants "
		    "takes them as constants)";
	}
}

/* Is the quote at @s[@i] the start of a quoted name (at the start, or after a space or '(')? */
static int
opens_name(const char *s, size_t i)
{
	return s[i] == '\'' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '(');
}

/* Does the quote at @q close a quoted name (the end, or a space or punctuation after it)? */
static int
closes_name(const char *q)
{
	return *q == '\'' && (q[1] == '\0' || strchr(" ,;:.)", q[1]) != NULL);
}

/*
 * The reason of a "not optimized" @detail, to count alike ones together
 * (malloc'd; NULL when out of memory): a node's subject ("node 'n' (Op)",
 * and where the node is) becomes its operator, and each quoted name '...'.
 */
static char *
reason_of(const char *detail)
{
	const char *s = detail, *op = NULL, *colon;
	size_t op_len = 0, k = 0;
	char *out;

	if (strncmp(s, "node '", 6) == 0 && (op = strstr(s, "' (")) != NULL && (colon = strstr(op, "): ")) != NULL) {
		op += 3;
		op_len = strcspn(op, ")");
		s = strstr(op + op_len, ": ") + 2;
	}
	if ((out = malloc(op_len + 2 + 3 * strlen(s) + 1)) == NULL)
		return NULL;
	if (op) {
		memcpy(out, op, op_len);
		memcpy(out + op_len, ": ", 2);
		k = op_len + 2;
	}
	for (size_t i = 0; s[i]; i++) {
		const char *q = opens_name(s, i) ? strchr(s + i + 1, '\'') : NULL;

		while (q && !closes_name(q))
			q = strchr(q + 1, '\'');
		if (q == NULL) {
			out[k++] = s[i];
			continue;
		}
		memcpy(out + k, "'...'", 5);
		k += 5;
		i = (size_t)(q - s);
	}
	out[k] = '\0';
	return out;
}

/*
 * The optimizer's "left alone" entries counted per pass and reason, in the
 * order first met: "INFO: left alone by PASS (N): REASON".
 */
static void
print_left_counted(const scs_report *r, FILE *f)
{
	scs_strmap seen = SCS_STRMAP_INIT;   /* "pass\treason" -> index in keys */
	char **keys = calloc(r->left.n ? r->left.n : 1, sizeof(*keys));
	uint64_t *counts = calloc(r->left.n ? r->left.n : 1, sizeof(*counts));
	size_t n_keys = 0;
	int64_t at;

	for (size_t i = 0; keys && counts && i < r->left.n; i++) {
		char *reason = reason_of(r->left.items[i].detail), *key;
		size_t len;

		if (reason == NULL)
			break;
		len = strlen(r->left.items[i].name) + strlen(reason) + 2;
		if ((key = malloc(len)) == NULL) {
			free(reason);
			break;
		}
		snprintf(key, len, "%s\t%s", r->left.items[i].name, reason);
		free(reason);
		if (scs_strmap_get(&seen, key, &at)) {
			counts[at]++;
			free(key);
		} else if (scs_strmap_put(&seen, key, (int64_t)n_keys) == SCS_OK) {
			keys[n_keys] = key;
			counts[n_keys++] = 1;
		} else {
			free(key);
			break;
		}
	}
	for (size_t i = 0; i < n_keys; i++) {
		char *tab = strchr(keys[i], '\t');

		fprintf(f, "INFO: left alone by %.*s (%llu): %s\n", (int)(tab - keys[i]), keys[i],
		    (unsigned long long)counts[i], tab + 1);
		free(keys[i]);
	}
	scs_strmap_dispose(&seen);
	free(keys);
	free(counts);
}

/* The passes that ran, *@n of them: every one (pass_list), or, in the view
 * of a report of version 2 or older, the first SCS_REPORT_MAX_PASSES. */
static const scs_report_pass *
passes_of(const scs_report *r, size_t *n)
{
	if (r->pass_list) {
		*n = r->n_pass_list;
		return r->pass_list;
	}
	*n = r->n_passes;
	return r->passes;
}

/* The optimizer's summary: the passes run, the nodes before and after, each pass's counts, what was left and why. */
static void
print_optimized(const scs_report *r, FILE *f)
{
	size_t n;
	const scs_report_pass *p = passes_of(r, &n);

	fprintf(f, "INFO: passes:");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s", i ? "," : "", p[i].name);
	fputc('\n', f);
	fprintf(f, "INFO: nodes: %llu -> %llu (%u rounds)\n", (unsigned long long)r->nodes_before,
	    (unsigned long long)r->nodes_after, r->rounds);
	for (size_t i = 0; i < n; i++)
		if (p[i].changes || p[i].refusals)
			fprintf(f, "INFO: pass %s: %llu changes, %llu left alone\n", p[i].name,
			    (unsigned long long)p[i].changes, (unsigned long long)p[i].refusals);
	print_left_counted(r, f);
}

/* Data files listed one a line in the summary; the JSON report has them all. */
#define SHOWN_DATA_FILES 32

/* Each data file written, with its size: the first SHOWN_DATA_FILES, then how many more. */
static void
print_data_files(const scs_report *r, FILE *f)
{
	char a[32];
	size_t i;

	for (i = 0; i < r->data_files.n && i < SHOWN_DATA_FILES; i++)
		fprintf(f, "INFO: data file: %s: %s\n", r->data_files.items[i].name,
		    human(a, strtoull(r->data_files.items[i].detail, NULL, 10)));
	if (i < r->data_files.n)
		fprintf(f, "INFO: data files: ... and %zu more, to %s (--json lists every one)\n", r->data_files.n - i,
		    r->data_files.items[r->data_files.n - 1].name);
}

void
scs_report_put_text(const scs_report *r, FILE *f)
{
	char a[32], b[32];

	print_headline(r, f);
	if (r->optimized)
		print_optimized(r, f);
	if (r->n_default_inputs)
		fprintf(f, "INFO: initializers among the graph inputs: %llu, %s\n", (unsigned long long)r->n_default_inputs,
		    default_inputs_rule(r));
	if (!r->optimize_only && !r->split_only)
		print_dedup(r, f);
	print_list(f, "exported", &r->npy);
	print_list(f, "npy name made unique", &r->npy_renamed);
	print_list(f, "not exported", &r->unexported);
	if (r->n_shards)
		fprintf(f, "INFO: shards: %zu\n", r->n_shards);
	for (size_t i = 0; i < r->shards.n; i++)
		fprintf(f, "INFO: shard: %s: %s\n", r->shards.items[i].name,
		    human(a, strtoull(r->shards.items[i].detail, NULL, 10)));
	print_list(f, "model", &r->models);
	print_list(f, "shared", &r->shared);
	for (size_t i = 0; i < r->n_stages; i++) {
		fprintf(f, "INFO: stage %s: %.2f s", r->stages[i].name, r->stages[i].seconds);
		if (r->stages[i].bytes)
			fprintf(f, ", %s", human(a, r->stages[i].bytes));
		fputc('\n', f);
	}
	if (!r->split_only) {
		fprintf(f, "INFO: constant bytes: %llu -> %llu", (unsigned long long)r->bytes_before,
		    (unsigned long long)r->bytes_after);
		if (r->npy_len)
			fprintf(f, " in the model and %llu in .npy files", (unsigned long long)r->npy_len);
		else if (r->bytes_before) {
			fputs(" (", f);
			print_change(f, r->bytes_before, r->bytes_after);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	fprintf(f, "INFO: file bytes: %llu -> %llu", (unsigned long long)r->input_len,
	    (unsigned long long)(r->output_len + r->output_data_len + r->npy_len));
	if (r->external || r->npy_len) {
		fputs(" (", f);
		if (r->external && r->data_files.n > 1)
			fprintf(f, "%s in %zu external data files%s", human(a, r->output_data_len), r->data_files.n,
			    r->npy_len ? ", " : "");
		else if (r->external)
			fprintf(f, "%s in the external data file%s", human(a, r->output_data_len), r->npy_len ? ", " : "");
		if (r->npy_len)
			fprintf(f, "%s in %zu .npy file%s", human(b, r->npy_len), r->npy.n, r->npy.n == 1 ? "" : "s");
		fputc(')', f);
	}
	fputc('\n', f);
	print_data_files(r, f);
	fprintf(f, "INFO: finished in %.2f s\n", r->seconds);
}

void
scs_json_str(FILE *f, const char *s)
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
		scs_json_str(f, l->items[i].name);
		fprintf(f, ", \"%s\": ", detail_key);
		scs_json_str(f, l->items[i].detail);
		fputc('}', f);
	}
	if (l->n)
		fprintf(f, "\n%s", indent);
	fputc(']', f);
}

static void
json_list(FILE *f, const char *key, const scs_report_list *l, const char *detail_key)
{
	json_items(f, "  ", key, l, "name", detail_key);
}

static void
json_optimize(const scs_report *r, FILE *f)
{
	size_t n;
	const scs_report_pass *p = passes_of(r, &n);

	fprintf(f, ",\n  \"optimize\": {\n    \"nodes_before\": %llu,\n    \"nodes_after\": %llu,\n"
	    "    \"rounds\": %u,\n    \"passes\": [", (unsigned long long)r->nodes_before,
	    (unsigned long long)r->nodes_after, r->rounds);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n      {\"name\": ", i ? "," : "");
		scs_json_str(f, p[i].name);
		fprintf(f, ", \"changes\": %llu, \"left\": %llu}", (unsigned long long)p[i].changes,
		    (unsigned long long)p[i].refusals);
	}
	fprintf(f, "%s]", n ? "\n    " : "");
	json_items(f, "    ", "changes", &r->changes, "pass", "change");
	json_items(f, "    ", "left", &r->left, "pass", "reason");
	fprintf(f, "\n  }");
}

int
scs_report_put_json(const scs_report *r, FILE *f)
{
	fprintf(f, "{\n  \"constants\": %llu,\n  \"scalars\": %llu,\n  \"groups\": [",
	    (unsigned long long)r->n_constants, (unsigned long long)r->n_scalars);
	for (size_t i = 0; i < r->n_groups; i++) {
		const scs_report_group *g = &r->groups[i];

		fprintf(f, "%s\n    {\"canonical\": ", i ? "," : "");
		scs_json_str(f, g->canonical);
		fprintf(f, ", \"dtype\": \"%s\", \"bytes\": %llu, \"lifted\": %s, \"merged\": [",
		    scs_dtype_name(g->dtype), (unsigned long long)g->bytes, g->lifted ? "true" : "false");
		for (size_t j = 0; j < g->n_names; j++) {
			if (j)
				fputs(", ", f);
			scs_json_str(f, g->names[j]);
		}
		fputs("]}", f);
	}
	fprintf(f, "%s]", r->n_groups ? "\n  " : "");
	json_list(f, "not_merged", &r->skipped, "reason");
	json_list(f, "narrowed", &r->narrowed, "change");
	json_list(f, "not_narrowed", &r->refused, "reason");
	json_list(f, "transposed", &r->transposed, "rewrite");
	fprintf(f, ",\n  \"bytes_transposed\": %llu", (unsigned long long)r->bytes_transposed);
	json_list(f, "npy", &r->npy, "path");
	json_list(f, "npy_renamed", &r->npy_renamed, "reason");
	json_list(f, "not_exported", &r->unexported, "reason");
	if (r->optimized)
		json_optimize(r, f);
	fprintf(f, ",\n  \"default_inputs\": %llu,\n  \"default_inputs_rule\": ", (unsigned long long)r->n_default_inputs);
	scs_json_str(f, r->default_inputs_rule == SCS_DEFAULTS_CONSTANT_IR3 ? "constants_below_ir4" :
	    r->default_inputs_rule == SCS_DEFAULTS_CONSTANT_ASKED ? "constants_asked" : "overridable");
	fprintf(f, ",\n  \"n_shards\": %zu", r->n_shards);
	json_list(f, "shards", &r->shards, "bytes");
	json_items(f, "  ", "models", &r->models, "path", "holds");
	json_items(f, "  ", "shared", &r->shared, "constant", "models");
	json_list(f, "data_files", &r->data_files, "bytes");
	fprintf(f, ",\n  \"stages\": [");
	for (size_t i = 0; i < r->n_stages; i++)
		fprintf(f, "%s\n    {\"name\": \"%s\", \"seconds\": %.3f, \"bytes\": %llu}", i ? "," : "", r->stages[i].name,
		    r->stages[i].seconds, (unsigned long long)r->stages[i].bytes);
	fprintf(f, "%s]", r->n_stages ? "\n  " : "");
	if (r->has_io)
		fprintf(f, ",\n  \"bytes_read\": %llu,\n  \"bytes_written\": %llu,\n  \"bytes_kernel_copied\": %llu,\n"
		    "  \"bytes_compared_mapped\": %llu,\n  \"bytes_written_direct\": %llu,\n  \"bytes_copied_through\": %llu",
		    (unsigned long long)r->bytes_read, (unsigned long long)r->bytes_written,
		    (unsigned long long)r->bytes_kernel_copied, (unsigned long long)r->bytes_mapped,
		    (unsigned long long)r->bytes_written_direct, (unsigned long long)r->bytes_copied_through);
	fprintf(f, ",\n  \"constant_bytes_before\": %llu,\n  \"constant_bytes_after\": %llu,\n"
	    "  \"input_bytes\": %llu,\n  \"output_bytes\": %llu,\n  \"output_data_bytes\": %llu,\n"
	    "  \"npy_bytes\": %llu,\n  \"external_data\": %s,\n  \"seconds\": %.3f\n}\n",
	    (unsigned long long)r->bytes_before, (unsigned long long)r->bytes_after,
	    (unsigned long long)r->input_len, (unsigned long long)r->output_len,
	    (unsigned long long)r->output_data_len, (unsigned long long)r->npy_len, r->external ? "true" : "false",
	    r->seconds);
	return ferror(f) ? scs_err_set(SCS_EIO, "cannot write the JSON report") : SCS_OK;
}
