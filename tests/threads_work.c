/*
 * threads_work.c: the library's calls at once in several threads of one
 * process, as scs4onnx.h ("Threads") allows (see threads_work.h). Plain C
 * without Criterion, so that the ThreadSanitizer build can run it through
 * threads-run (Criterion's runner does not start under ThreadSanitizer);
 * the threads suite (test_threads.c) runs the same in the test binary.
 *
 * SPDX-License-Identifier: MIT
 */
#include "threads_work.h"

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scs4onnx.h"
#include "io/commit.h"

#define MSG_LEN 1024
#define MAX_THREADS 8

/* What one thread does, and how it went. */
typedef struct worker {
	const char *fixtures;     /* the folder of the models read */
	char *dir;                /* its own folder: every output goes there */
	int rounds;               /* many_calls: rounds of the calls */
	int failed;
	char msg[MSG_LEN];
	pthread_t thread;
} worker;

/* malloc'd "dir/name"; NULL when out of memory. */
static char *
join(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* Note the first failure of @w: -1. */
static int __attribute__((format(printf, 2, 3)))
failed(worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed) {
		va_start(ap, fmt);
		vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
		va_end(ap);
	}
	w->failed = 1;
	return -1;
}

static int
check_call(worker *w, const char *what, int rc)
{
	return rc < 0 ? failed(w, "%s: %s: %s", what, scs_err_name(rc), scs_err_msg()) : 0;
}

/* scs_shrink of model @name into @dir/@out with @o. */
static int
shrink_into(worker *w, const char *dir, const char *name, const char *out, const scs_shrink_options *o)
{
	char *in = join(w->fixtures, name), *dst = join(dir, out);
	scs_report rep = SCS_REPORT_INIT;
	int rc = in && dst ? scs_shrink(&rep, in, dst, o) : SCS_ENOMEM;

	scs_report_dispose(&rep);
	free(in);
	free(dst);
	return check_call(w, out, rc);
}

static int
optimize_into(worker *w, const char *dir, const char *name, const char *out)
{
	scs_optimize_options o = SCS_OPTIMIZE_OPTIONS_INIT;
	char *in = join(w->fixtures, name), *dst = join(dir, out);
	scs_report rep = SCS_REPORT_INIT;
	int rc = in && dst ? scs_optimize(&rep, in, dst, &o) : SCS_ENOMEM;

	scs_report_dispose(&rep);
	free(in);
	free(dst);
	return check_call(w, out, rc);
}

/* The calls of each round of many_calls: shrink inline, with external data
 * in and out (spilled: in one file, in numbered files, payloads whose heads
 * are equal), of nested graphs, with the optimizer first; optimize. */
static int
some_calls(worker *w, const char *dir)
{
	scs_shrink_options plain = SCS_SHRINK_OPTIONS_INIT, ext = SCS_SHRINK_OPTIONS_INIT, opt = SCS_SHRINK_OPTIONS_INIT;
	scs_shrink_options numbered = SCS_SHRINK_OPTIONS_INIT;

	ext.external_data = 1;
	numbered.max_data_file_size = (uint64_t)1536 << 10;
	opt.optimize = 1;
	return shrink_into(w, dir, "dup_basic.onnx", "shrink.onnx", &plain) < 0 ||
	    shrink_into(w, dir, "external.onnx", "ext.onnx", &ext) < 0 ||
	    shrink_into(w, dir, "spill_numbered.onnx", "numbered.onnx", &numbered) < 0 ||
	    shrink_into(w, dir, "spill_heads.onnx", "heads.onnx", &ext) < 0 ||
	    shrink_into(w, dir, "nested_if.onnx", "nested.onnx", &plain) < 0 ||
	    shrink_into(w, dir, "fold_chain.onnx", "shrink_opt.onnx", &opt) < 0 ||
	    optimize_into(w, dir, "fold_chain.onnx", "opt.onnx") < 0 ? -1 : 0;
}

/* The report functions on the heap report of a finished call. */
static int
report_calls(worker *w, const char *dir)
{
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	scs_report *rep = scs_report_new();
	char *in = join(w->fixtures, "dup_basic.onnx"), *dst = join(dir, "heap.onnx"), *json = NULL, *text = NULL,
	     *mem = NULL;
	size_t len = 0;
	FILE *f;

	if (rep == NULL || in == NULL || dst == NULL)
		failed(w, "out of memory");
	else if (check_call(w, "heap.onnx", scs_shrink(rep, in, dst, &o)) == 0) {
		json = scs_report_json(rep);
		text = scs_report_text(rep);
		if (json == NULL || strstr(json, "\"groups\"") == NULL)
			failed(w, "scs_report_json: %s", json ? json : "NULL");
		if (text == NULL || strstr(text, "INFO: ") == NULL)
			failed(w, "scs_report_text: %s", text ? text : "NULL");
		if ((f = open_memstream(&mem, &len)) != NULL) {
			scs_report_print(rep, f);
			if (scs_report_write_json(rep, f) != SCS_OK)
				failed(w, "scs_report_write_json");
			fclose(f);
		}
		if (mem == NULL || strstr(mem, "INFO: ") == NULL || strstr(mem, "\"groups\"") == NULL)
			failed(w, "scs_report_print: %s", mem ? mem : "NULL");
	}
	scs_free(json);
	scs_free(text);
	free(mem);
	scs_report_free(rep);
	free(in);
	free(dst);
	return w->failed ? -1 : 0;
}

/* Calls that fail: each thread's message names its own path. */
static int
failing_calls(worker *w, const char *dir)
{
	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	char *missing = join(dir, "missing.onnx"), *dst = join(dir, "never.onnx");
	const char *names[] = { "fold_constants", "no_such_pass" };
	struct stat st;
	int rc = missing && dst ? scs_shrink(&rep, missing, dst, &o) : SCS_ENOMEM;

	scs_report_dispose(&rep);
	if (rc >= 0 || rc == SCS_ENOMEM)
		failed(w, "shrinking a missing input: %d", rc);
	else if (strstr(scs_err_msg(), missing) == NULL)
		failed(w, "the message of another thread: %s", scs_err_msg());
	else if (scs_optimize_check_names(names, 2) != SCS_EUSAGE || strstr(scs_err_msg(), "no_such_pass") == NULL)
		failed(w, "an unknown pass is accepted: %s", scs_err_msg());
	else if (stat(dst, &st) == 0)
		failed(w, "a failing call wrote %s", dst);
	free(missing);
	free(dst);
	return w->failed ? -1 : 0;
}

/* The calls that read a table: any thread, any time. */
static int
table_calls(worker *w)
{
	scs_optimize_pass_info info;
	size_t n = 0;

	while (scs_optimize_pass(n, &info) == 1)
		n++;
	if (n == 0 || scs_optimize_check_names(NULL, 0) != SCS_OK)
		return failed(w, "scs_optimize_pass: %zu passes", n);
	if (strcmp(scs_version(), SCS_VERSION) != 0 || strcmp(scs_err_name(SCS_ECORRUPT), "corrupt input") != 0)
		return failed(w, "scs_version %s, scs_err_name %s", scs_version(), scs_err_name(SCS_ECORRUPT));
	return 0;
}

/* split, merge and big of dup_basic.onnx into @dir. */
static int
split_merge_big(worker *w, const char *dir)
{
	scs_shrink_options shrink = SCS_SHRINK_OPTIONS_INIT;
	scs_split_options so = SCS_SPLIT_OPTIONS_INIT;
	scs_merge_options mo = SCS_MERGE_OPTIONS_INIT;
	scs_big_options bo = SCS_BIG_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	char *in = join(w->fixtures, "dup_basic.onnx"), *shards = join(dir, "shards"), *merged = join(dir, "merged.onnx"),
	     *big = join(dir, "big.onnx");

	so.max_shard_len = 1;
	shrink.optimize = 1;
	bo.shrink = &shrink;
	bo.max_shard_len = 1;
	if (!in || !shards || !merged || !big)
		failed(w, "out of memory");
	else if (check_call(w, "split", scs_split(&rep, in, shards, &so)) == 0) {
		scs_report_dispose(&rep);
		if (check_call(w, "merge", scs_merge(&rep, shards, merged, &mo)) == 0) {
			scs_report_dispose(&rep);
			check_call(w, "big", scs_big(&rep, in, big, &bo));
		}
	}
	scs_report_dispose(&rep);
	free(in);
	free(shards);
	free(merged);
	free(big);
	return w->failed ? -1 : 0;
}

/* Every public call once, into the worker's folder. */
static void *
every_call(void *arg)
{
	worker *w = arg;
	scs_shrink_options npy = SCS_SHRINK_OPTIONS_INIT, plain = SCS_SHRINK_OPTIONS_INIT;

	npy.mode = SCS_MODE_NPY;
	/* stream_threads.onnx: large initializers streamed into the inline output (src/model/emit.c) */
	if (some_calls(w, w->dir) == 0 && report_calls(w, w->dir) == 0 && failing_calls(w, w->dir) == 0 &&
	    shrink_into(w, w->dir, "stream_threads.onnx", "stream.onnx", &plain) == 0 &&
	    shrink_into(w, w->dir, "dup_basic.onnx", "npy.onnx", &npy) == 0 && split_merge_big(w, w->dir) == 0 &&
	    table_calls(w) == 0)
		scs_remove_temporaries();
	return NULL;
}

/* some_calls() @rounds times, each round into a folder of its own. */
static void *
many_calls(void *arg)
{
	worker *w = arg;
	char name[32], *dir;

	for (int r = 0; r < w->rounds && !w->failed; r++) {
		snprintf(name, sizeof(name), "round-%d", r);
		if ((dir = join(w->dir, name)) == NULL || mkdir(dir, 0777) < 0)
			failed(w, "%s: cannot make it", dir ? dir : name);
		else
			some_calls(w, dir);
		free(dir);
	}
	return NULL;
}

/* 1 when the files @a and @b hold the same bytes. */
static int
same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca, cb, same = fa && fb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* Names in @dir other than "." and ".."; -1 when it cannot be read. A hidden
 * one (a temporary left behind) fails @w. */
static int
count_entries(worker *w, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return failed(w, "%s: cannot read the folder", dir);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_name[0] == '.')
			failed(w, "%s: %s left behind", dir, e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Every file under @dir equals the one of its name under @ref, and the other way round. */
static int
same_tree(worker *w, const char *ref, const char *dir)
{
	DIR *d = opendir(ref);
	struct dirent *e;
	struct stat st;
	int n_ref;

	if (d == NULL)
		return failed(w, "%s: cannot read the folder", ref);
	while (!w->failed && (e = readdir(d)) != NULL) {
		char *a, *b;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		a = join(ref, e->d_name);
		b = join(dir, e->d_name);
		if (!a || !b || stat(a, &st) < 0)
			failed(w, "%s: cannot stat", a ? a : e->d_name);
		else if (S_ISDIR(st.st_mode))
			same_tree(w, a, b);
		else if (!same_file(a, b))
			failed(w, "%s: not the bytes of %s", b, a);
		free(a);
		free(b);
	}
	closedir(d);
	if (!w->failed && (n_ref = count_entries(w, ref)) != count_entries(w, dir))
		failed(w, "%s: not the %d files of %s", dir, n_ref, ref);
	return w->failed ? -1 : 0;
}

/* @fn in this thread alone into @dir/ref, then in @n threads at once, each
 * into a folder of its own, which must then equal ref. */
static int
run_threads(const char *fixtures, const char *dir, int n, void *(*fn)(void *), int rounds, char *msg, size_t len)
{
	worker ref, w[MAX_THREADS];
	char name[16];
	int rc = 0;

	if (n > MAX_THREADS)
		n = MAX_THREADS;
	memset(&ref, 0, sizeof(ref));
	memset(w, 0, sizeof(w));
	ref.fixtures = fixtures;
	ref.rounds = rounds;
	if ((ref.dir = join(dir, "ref")) == NULL || mkdir(ref.dir, 0777) < 0)
		failed(&ref, "%s: cannot make it", dir);
	else
		fn(&ref);
	for (int i = 0; !ref.failed && i < n; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		w[i].fixtures = fixtures;
		w[i].rounds = rounds;
		if ((w[i].dir = join(dir, name)) == NULL || mkdir(w[i].dir, 0777) < 0 ||
		    pthread_create(&w[i].thread, NULL, fn, &w[i]) != 0) {
			failed(&w[i], "thread %d: cannot start it", i);
			n = i;
		}
	}
	for (int i = 0; !ref.failed && i < n; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; !ref.failed && i < n; i++)
		if (!w[i].failed)
			same_tree(&w[i], ref.dir, w[i].dir);
	if (ref.failed) {
		snprintf(msg, len, "one thread alone: %s", ref.msg);
		rc = -1;
	}
	for (int i = 0; i < MAX_THREADS; i++) {
		if (rc == 0 && w[i].failed) {
			snprintf(msg, len, "thread %d of %d: %s", i, n, w[i].msg);
			rc = -1;
		}
		free(w[i].dir);
	}
	free(ref.dir);
	return rc;
}

int
threads_every_call(const char *fixtures, const char *dir, int n_threads, char *msg, size_t len)
{
	return run_threads(fixtures, dir, n_threads, every_call, 0, msg, len);
}

int
threads_many_calls(const char *fixtures, const char *dir, int n_threads, int rounds, int named_temps, char *msg,
    size_t len)
{
	int rc;

	scs_commit_named_temporaries_for_tests(named_temps);
	rc = run_threads(fixtures, dir, n_threads, many_calls, rounds, msg, len);
	scs_commit_named_temporaries_for_tests(0);
	return rc;
}
