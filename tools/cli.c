/*
 * cli.c: the terminal side of the tools (see cli.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "cli.h"
#include "fdlimit.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "scs4onnx";
static int progress_shown;
static char json_tmp[4096];             /* the JSON report's temporary while it is written */

static void
on_signal(int sig)
{
	scs_remove_temporaries();
	if (json_tmp[0])
		unlink(json_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

void
cli_set_prog(const char *p)
{
	struct sigaction sa;

	prog = p;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* past a file-size limit a write fails with EFBIG, reported as an error */
	signal(SIGXFSZ, SIG_IGN);
}

int
cli_fail(void)
{
	cli_progress_end();
	fprintf(stderr, "%s: error: %s\n", prog, scs_err_msg()[0] ? scs_err_msg() : "failed");
	return CLI_FAILED;
}

int
cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return CLI_USAGE;
}

int
cli_list_push(cli_list *l, const char *arg, size_t len)
{
	char **grown;

	if ((grown = realloc(l->items, (l->n + 1) * sizeof(*grown))) == NULL)
		return -1;
	l->items = grown;
	if ((l->items[l->n] = strndup(arg, len)) == NULL)
		return -1;
	l->n++;
	return 0;
}

int
cli_list_add(cli_list *l, const char *arg)
{
	const char *p = arg, *comma;
	size_t len;

	while (*p) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len && cli_list_push(l, p, len) < 0)
			return -1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

void
cli_list_dispose(cli_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

int
cli_stderr_is_tty(void)
{
	return isatty(STDERR_FILENO);
}

/* "12.3 MiB": @n in the unit of @scale (KiB below 1 MiB, else MiB, GiB from 10 GiB). */
static void
put_size(char buf[24], uint64_t n, uint64_t scale)
{
	if (scale < ((uint64_t)1 << 20))
		snprintf(buf, 24, "%.1f KiB", (double)n / 1024.0);
	else if (scale < ((uint64_t)10 << 30))
		snprintf(buf, 24, "%.1f MiB", (double)n / (1024.0 * 1024.0));
	else
		snprintf(buf, 24, "%.2f GiB", (double)n / (1024.0 * 1024.0 * 1024.0));
}

static double
seconds_since(const struct timespec *t0, const struct timespec *t)
{
	return (double)(t->tv_sec - t0->tv_sec) + (double)(t->tv_nsec - t0->tv_nsec) / 1e9;
}

/* Stages shorter than this show no throughput (too few samples to mean anything). */
#define RATE_AFTER_S 2.0

/* The width of the terminal stderr is on, else $COLUMNS, else 80. */
static int
term_width(void)
{
	struct winsize ws;
	const char *columns = getenv("COLUMNS");

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (columns && atoi(columns) > 0)
		return atoi(columns);
	return 80;
}

void
cli_progress(void *payload, const char *stage, uint64_t done, uint64_t total)
{
	static struct timespec last, started;
	static const char *last_stage;
	struct timespec now;
	char d[24], t[24], rate[24], line[256];
	size_t n;
	int width;
	double secs;

	(void)payload;
	/* a few redraws a second at most, but every new stage and every end */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (stage != last_stage)
		started = now;
	else if (done < total && seconds_since(&last, &now) < 0.25)
		return;
	last = now;
	last_stage = stage;
	if (total <= 1) {
		snprintf(line, sizeof(line), "%s: %s ...", prog, stage);
	} else {
		if (done > total)
			done = total;
		put_size(d, done, total);
		put_size(t, total, total);
		snprintf(line, sizeof(line), "%s: %s %5.1f%% (%s / %s", prog, stage, 100.0 * (double)done / (double)total,
		    d, t);
		secs = seconds_since(&started, &now);
		n = strlen(line);
		if (secs >= RATE_AFTER_S && done > 0) {
			double per_s = (double)done / secs;

			put_size(rate, (uint64_t)per_s, (uint64_t)per_s);
			if (done < total)
				snprintf(line + n, sizeof(line) - n, ", %s/s, %.0f s left)", rate,
				    (double)(total - done) / per_s);
			else
				snprintf(line + n, sizeof(line) - n, ", %s/s, %.1f s)", rate, secs);
		} else {
			snprintf(line + n, sizeof(line) - n, ")");
		}
	}
	/* one column short of the width, padded over what the last line left: no wrap, no stale tail */
	width = term_width() - 1;
	if (width > (int)sizeof(line) - 1)
		width = (int)sizeof(line) - 1;
	fprintf(stderr, "\r%-*.*s", width, width, line);
	fflush(stderr);
	progress_shown = 1;
}

void
cli_progress_end(void)
{
	if (progress_shown)
		fputc('\n', stderr);
	progress_shown = 0;
}

/* Hold every signal until sigprocmask(SIG_SETMASK, @old, NULL). */
static void
hold_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, old);
}

/* "dir/.name.XXXXXX" beside @path into @out (@len bytes): 0, or -1 when too long. */
static int
temp_beside(char *out, size_t len, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path + 1) : 0;

	return (size_t)snprintf(out, len, "%.*s.%s.XXXXXX", dir_len, path, slash ? slash + 1 : path) < len ? 0 : -1;
}

int
cli_write_json(const scs_report *rep, const char *path)
{
	char tmp[sizeof(json_tmp)];
	sigset_t old;
	mode_t mask;
	FILE *f;
	int fd, rc = -1;

	if (strcmp(path, "-") == 0) {
		if (scs_report_write_json(rep, stdout) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "%s: error: cannot write the JSON report to stdout\n", prog);
			return CLI_FAILED;
		}
		return CLI_OK;
	}
	/* a new file renamed over @path: an interrupted run leaves the old report, whole (and no temporary:
	 * the signal handler knows it from the moment it exists) */
	hold_signals(&old);
	if (temp_beside(tmp, sizeof(tmp), path) < 0 || (fd = mkstemp(tmp)) < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		fprintf(stderr, "%s: error: %s: cannot write the JSON report\n", prog, path);
		return CLI_FAILED;
	}
	memcpy(json_tmp, tmp, sizeof(tmp));
	sigprocmask(SIG_SETMASK, &old, NULL);
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) == 0 && (f = fdopen(fd, "w")) != NULL) {
		rc = scs_report_write_json(rep, f);
		if (fclose(f) != 0)
			rc = -1;
	} else {
		close(fd);
	}
	if (rc < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		json_tmp[0] = '\0';
		fprintf(stderr, "%s: error: %s: cannot write the JSON report\n", prog, path);
		return CLI_FAILED;
	}
	json_tmp[0] = '\0';
	return CLI_OK;
}

int
cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	double unit = 1;

	if (end == s || v < 0)
		return -1;
	switch (*end) {
	case 'K': case 'k': unit = 1024.0; end++; break;
	case 'M': case 'm': unit = 1024.0 * 1024; end++; break;
	case 'G': case 'g': unit = 1024.0 * 1024 * 1024; end++; break;
	case 'T': case 't': unit = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' ? (end[1] == 'B' ? 2 : 1) : 1;
	if (*end != '\0' || v * unit < 1 || v * unit > 1e18)
		return -1;
	*out = (uint64_t)(v * unit);
	return 0;
}

/* Match @arg against the spellings of one option; *value set for "--x=v". */
static int
is_opt(const char *arg, const char *const *names, const char **value)
{
	size_t n;

	for (; *names; names++) {
		n = strlen(*names);
		if (strncmp(arg, *names, n) != 0)
			continue;
		if (arg[n] == '\0') {
			*value = NULL;
			return 1;
		}
		if (arg[n] == '=' && (*names)[1] == '-') {
			*value = arg + n + 1;
			return 1;
		}
	}
	return 0;
}

static int
is_model_path(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && strcmp(s + n - 5, ".onnx") == 0;
}

/* A regular file nobody may write to (chmod a-w), whatever our own rights (root writes anything). */
static int
is_read_only(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0222) == 0;
}

/* A regular file (or a link to one) at @path? */
static int
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The option's value: after '=' or the next argument. */
static const char *
value_of(const char *value, int argc, char **argv, int *i)
{
	if (value)
		return value;
	return *i + 1 < argc ? argv[++*i] : NULL;
}

/* ---- where --json may write ---- */

/* @path without its trailing slashes (malloc'd; "/" stays). */
static char *
trimmed(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return strndup(path, n);
}

/*
 * @path as a full path: its folder resolved (symbolic links, "..") and its
 * last name kept; a folder that exists is resolved whole. malloc'd; NULL
 * when its folder does not exist (or out of memory).
 */
static char *
resolved(const char *path)
{
	char *p = trimmed(path), *dir, *real, *out = NULL;
	const char *slash, *base;
	struct stat st;
	size_t len;

	if (p == NULL)
		return NULL;
	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
		out = realpath(p, NULL);
		free(p);
		return out;
	}
	slash = strrchr(p, '/');
	base = slash ? slash + 1 : p;
	dir = slash ? strndup(p, slash == p ? 1 : (size_t)(slash - p)) : strdup(".");
	if (dir && (real = realpath(dir, NULL)) != NULL) {
		len = strlen(real) + strlen(base) + 2;
		if ((out = malloc(len)) != NULL)
			snprintf(out, len, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", base);
		free(real);
	}
	free(dir);
	free(p);
	return out;
}

/* Do @a and @b name one file: the same resolved path, or the same device and inode? */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ra, *rb;
	int same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)
		return 1;
	ra = resolved(a);
	rb = resolved(b);
	same = ra && rb && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

/* Does @path begin with folder @dir, at a slash ("/" is in every absolute path)? */
static int
begins_with_folder(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || (n == 1 && dir[0] == '/'));
}

/*
 * Is @path (resolved as @real, NULL when its folder is missing) inside
 * folder @dir, at any depth? Resolved where both can be; as written where
 * not (a folder the run will make).
 */
static int
is_inside(const char *path, const char *real, const char *dir)
{
	char *rd = real ? resolved(dir) : NULL, *p, *d;
	int in;

	if (rd) {
		in = begins_with_folder(real, rd);
		free(rd);
		return in;
	}
	p = trimmed(path);
	d = trimmed(dir);
	in = p && d && begins_with_folder(p, d);
	free(p);
	free(d);
	return in;
}

/* Does file name @name beside OUTPUT @out name one of the files written with it (its data file, a .npy file)? */
static int
is_written_beside(const char *name, const char *out)
{
	const char *base = strrchr(out, '/') ? strrchr(out, '/') + 1 : out, *dot = strrchr(base, '.');
	size_t n = strlen(base), len = strlen(name), stem = dot && dot != base ? (size_t)(dot - base) : n;

	if (strncmp(name, base, n) == 0 && name[n] == '.' && len > 5 && strcmp(name + len - 5, ".data") == 0)
		return 1;
	return strncmp(name, base, stem) == 0 && strncmp(name + stem, "_exported_", 10) == 0 && len > 4 &&
	    strcmp(name + len - 4, ".npy") == 0;
}

/* 1 when the file at @path is empty or holds a JSON report (it begins with '{'). */
static int
is_replaceable_report(const char *path)
{
	FILE *f = fopen(path, "r");
	int c = EOF;

	if (f == NULL)
		return 0;
	while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
		;
	fclose(f);
	return c == EOF || c == '{';
}

/* Can a file be made in folder @dir? (A probe, so that read-only mounts answer as they will.) */
static int
takes_files(const char *dir)
{
	char probe[4096];
	sigset_t old;
	int fd;

	if ((size_t)snprintf(probe, sizeof(probe), "%s/.scs4onnx-probe.XXXXXX", dir) >= sizeof(probe))
		return 0;
	/* made and removed with signals held: an interrupt never leaves it */
	hold_signals(&old);
	if ((fd = mkstemp(probe)) >= 0) {
		close(fd);
		unlink(probe);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd >= 0;
}

/* The folder of @path ("." for a bare name) into @dir (@len bytes). */
static void
folder_of(char *dir, size_t len, const char *path)
{
	const char *slash = strrchr(path, '/');

	snprintf(dir, len, "%.*s", slash ? (int)(slash == path ? 1 : slash - path) : 1, slash ? path : ".");
}

/* The line against --json @json for the command line in @a, or CLI_OK (@real: @json resolved, or NULL). */
static int
json_refused(const cli_args *a, unsigned flags, const char *json, const char *real)
{
	const char *in = a->pos[0], *out = a->pos[1], *slash = strrchr(json, '/'), *folder = NULL, *kind = NULL;
	char dir[4096], out_dir[4096];
	struct stat st;

	folder_of(dir, sizeof(dir), json);
	folder_of(out_dir, sizeof(out_dir), out);
	if (json[strlen(json) - 1] == '/' || (stat(json, &st) == 0 && S_ISDIR(st.st_mode)))
		return fprintf(stderr, "%s: error: --json %s is a folder; give a file name\n", prog, json), CLI_FAILED;
	if (same_file(json, in))
		return fprintf(stderr, "%s: error: --json %s names the input; give the report a file of its own\n", prog,
		    json), CLI_FAILED;
	if (same_file(json, out))
		return fprintf(stderr, "%s: error: --json %s names the output; give the report a file of its own\n", prog,
		    json), CLI_FAILED;
	if ((flags & CLI_IN_DIR) && is_inside(json, real, in))
		folder = in, kind = "shard";
	else if ((flags & CLI_OUT_DIR) && is_inside(json, real, out))
		folder = out, kind = "shard";
	else if (a->shrink.store_dir && is_inside(json, real, a->shrink.store_dir))
		folder = a->shrink.store_dir, kind = "store";
	else if (a->work_dir && is_inside(json, real, a->work_dir))
		folder = a->work_dir, kind = "work";
	if (folder)
		return fprintf(stderr, "%s: error: --json %s is inside the %s folder %s; write it elsewhere\n", prog, json,
		    kind, folder), CLI_FAILED;
	if (real == NULL || stat(dir, &st) < 0)
		return fprintf(stderr, "%s: error: --json %s: the folder %s does not exist\n", prog, json, dir), CLI_FAILED;
	if (!S_ISDIR(st.st_mode))
		return fprintf(stderr, "%s: error: --json %s: %s is not a folder\n", prog, json, dir), CLI_FAILED;
	if (!(flags & CLI_OUT_DIR) && same_file(dir, out_dir) && is_written_beside(slash ? slash + 1 : json, out))
		return fprintf(stderr, "%s: error: --json %s names a file written with the output (its data file or a "
		    ".npy file); give the report a file of its own\n", prog, json), CLI_FAILED;
	if (stat(json, &st) == 0 && !S_ISREG(st.st_mode))
		return fprintf(stderr, "%s: error: --json %s is not a regular file (give - for stdout)\n", prog, json),
		    CLI_FAILED;
	if (stat(json, &st) == 0 && !is_replaceable_report(json))
		return fprintf(stderr, "%s: error: --json %s exists and is not a JSON report; it is left as it is (remove it "
		    "or give another file)\n", prog, json), CLI_FAILED;
	if (!takes_files(dir))
		return fprintf(stderr, "%s: error: --json %s: cannot make a file in the folder %s\n", prog, json, dir),
		    CLI_FAILED;
	return CLI_OK;
}

/* Check --json before any work (cli.h, cli_parse). */
static int
check_json(const cli_args *a, unsigned flags)
{
	char *real;
	int rc;

	if (a->json == NULL || strcmp(a->json, "-") == 0)
		return CLI_OK;
	real = resolved(a->json);
	rc = json_refused(a, flags, a->json, real);
	free(real);
	return rc;
}

int
cli_parse(cli_args *a, int argc, char **argv, unsigned flags, void (*usage)(FILE *))
{
	static const char *const o_mode[] = { "-m", "--mode", NULL };
	static const char *const o_fo[] = { "-fo", "--forced-extraction-op-names", "--forced_extraction_op_names", NULL };
	static const char *const o_fc[] = { "-fc", "--forced-extraction-constant-names",
		"--forced_extraction_constant_names", NULL };
	static const char *const o_down[] = { "-d", "--disable-auto-downcast", "--disable_auto_downcast", NULL };
	static const char *const o_verbose[] = { "-v", "--verbose", NULL };
	static const char *const o_quiet[] = { "-n", "-q", "--non-verbose", "--non_verbose", "--quiet", NULL };
	static const char *const o_ext[] = { "--external-data", "--external_data", NULL };
	static const char *const o_max_data[] = { "--max-data-file-size", "--max_data_file_size", NULL };
	static const char *const o_store[] = { "--store", NULL };
	static const char *const o_json[] = { "--json", NULL };
	static const char *const o_shard[] = { "--max-shard-size", "--max_shard_size", NULL };
	static const char *const o_nodedup[] = { "--no-dedup", "--no_dedup", NULL };
	static const char *const o_work[] = { "--work", NULL };
	static const char *const o_keep[] = { "--keep-work", "--keep_work", NULL };
	static const char *const o_opt[] = { "--optimize", NULL };
	static const char *const o_passes[] = { "-p", "--passes", NULL };
	static const char *const o_skip[] = { "--skip", NULL };
	static const char *const o_fold_limit[] = { "--fold-size-limit", "--fold_size_limit", NULL };
	static const char *const o_fold_grow[] = { "--fold-grow", "--fold_grow", NULL };
	static const char *const o_fold_inexact[] = { "--fold-inexact", "--fold_inexact", NULL };
	static const char *const o_input_shape[] = { "--input-shape", "--input_shape", NULL };
	static const char *const o_write_shapes[] = { "--write-shapes", "--write_shapes", NULL };
	static const char *const o_fold_qdq[] = { "--fold-qdq", "--fold_qdq", NULL };
	static const char *const o_keep_tr[] = { "--keep-transposed", "--keep_transposed", NULL };
	static const char *const o_init_const[] = { "--initializers-as-constants", "--initializers_as_constants", NULL };
	static const char *const o_force[] = { "-f", "--force", NULL };
	static const char *const o_help[] = { "-h", "--help", NULL };
	static const char *const o_version[] = { "--version", NULL };
	const char *value, *v;
	int n_pos = 0, only_pos = 0;

	memset(a, 0, sizeof(*a));
	a->shrink = (scs_shrink_options)SCS_SHRINK_OPTIONS_INIT;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		cli_list *list = NULL;

		if (only_pos || arg[0] != '-' || arg[1] == '\0') {
			if (n_pos == 2)
				return cli_usage_error("unexpected argument '%s'", arg);
			a->pos[n_pos++] = arg;
			continue;
		}
		if (strcmp(arg, "--") == 0) {
			only_pos = 1;
		} else if (is_opt(arg, o_help, &value)) {
			usage(stdout);
			return CLI_OK;
		} else if (is_opt(arg, o_version, &value)) {
			printf("%s %s\n", prog, SCS_VERSION);
			return CLI_OK;
		} else if (is_opt(arg, o_quiet, &value) && value == NULL) {
			a->quiet = 1;
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_verbose, &value) && value == NULL) {
			a->verbose = 1;
		} else if (is_opt(arg, o_json, &value)) {
			if ((a->json = value_of(value, argc, argv, &i)) == NULL || a->json[0] == '\0')
				return cli_usage_error("--json needs a file (or -)");
		} else if ((flags & CLI_SHRINK) && is_opt(arg, o_mode, &value)) {
			if ((v = value_of(value, argc, argv, &i)) == NULL)
				return cli_usage_error("%s needs shrink or npy", arg);
			if (strcmp(v, "shrink") == 0)
				a->shrink.mode = SCS_MODE_SHRINK;
			else if (strcmp(v, "npy") == 0)
				a->shrink.mode = SCS_MODE_NPY;
			else
				return cli_usage_error("--mode takes shrink or npy, not '%s'", v);
		} else if ((flags & CLI_SHRINK) && is_opt(arg, o_fo, &value)) {
			list = &a->op_names;
		} else if ((flags & CLI_SHRINK) && is_opt(arg, o_fc, &value)) {
			list = &a->constant_names;
		} else if ((flags & CLI_SHRINK) && is_opt(arg, o_down, &value) && value == NULL) {
			a->shrink.disable_auto_downcast = 1;
		} else if ((flags & CLI_SHRINK) && is_opt(arg, o_opt, &value) && value == NULL) {
			a->shrink.optimize = 1;
		} else if ((flags & CLI_PASSES) && is_opt(arg, o_passes, &value)) {
			list = &a->passes;
		} else if ((flags & CLI_PASSES) && is_opt(arg, o_skip, &value)) {
			list = &a->skip;
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_fold_limit, &value)) {
			if ((v = value_of(value, argc, argv, &i)) == NULL || cli_parse_size(v, &a->shrink.fold_size_limit) < 0)
				return cli_usage_error("--fold-size-limit takes a size such as 1M, 64K or 4096");
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_fold_grow, &value) && value == NULL) {
			a->shrink.fold_grow = 1;
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_fold_inexact, &value) && value == NULL) {
			a->shrink.fold_inexact = 1;
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_input_shape, &value)) {
			if ((v = value_of(value, argc, argv, &i)) == NULL || strchr(v, '=') == NULL)
				return cli_usage_error("--input-shape takes NAME=DIM,DIM,... such as x=1,3,224,224");
			if (cli_list_push(&a->input_shapes, v, strlen(v)) < 0)
				return cli_usage_error("out of memory");
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_write_shapes, &value) && value == NULL) {
			a->shrink.write_shapes = 1;
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_fold_qdq, &value) && value == NULL) {
			a->shrink.fold_qdq = 1;
		} else if ((flags & (CLI_SHRINK | CLI_MERGE)) && is_opt(arg, o_keep_tr, &value) && value == NULL) {
			a->shrink.keep_transposed = 1;
		} else if ((flags & (CLI_SHRINK | CLI_PASSES)) && is_opt(arg, o_init_const, &value) && value == NULL) {
			a->shrink.initializers_as_constants = 1;
		} else if ((flags & CLI_EXTERNAL) && is_opt(arg, o_ext, &value) && value == NULL) {
			a->shrink.external_data = 1;
		} else if ((flags & CLI_EXTERNAL) && is_opt(arg, o_max_data, &value)) {
			if ((v = value_of(value, argc, argv, &i)) == NULL ||
			    cli_parse_size(v, &a->shrink.max_data_file_size) < 0 || a->shrink.max_data_file_size < 4096)
				return cli_usage_error("--max-data-file-size takes a size of at least 4K, such as 64M, 2G or 4096");
		} else if ((flags & CLI_STORE) && is_opt(arg, o_store, &value)) {
			if ((a->shrink.store_dir = value_of(value, argc, argv, &i)) == NULL)
				return cli_usage_error("--store needs a folder");
		} else if ((flags & CLI_SHARDS) && is_opt(arg, o_shard, &value)) {
			if ((v = value_of(value, argc, argv, &i)) == NULL || cli_parse_size(v, &a->max_shard_len) < 0)
				return cli_usage_error("--max-shard-size takes a size such as 1.8G, 512M or 4096");
		} else if ((flags & CLI_MERGE) && is_opt(arg, o_nodedup, &value) && value == NULL) {
			a->no_dedup = 1;
		} else if ((flags & CLI_WORK) && is_opt(arg, o_work, &value)) {
			if ((a->work_dir = value_of(value, argc, argv, &i)) == NULL)
				return cli_usage_error("--work needs a folder");
		} else if ((flags & CLI_WORK) && is_opt(arg, o_keep, &value) && value == NULL) {
			a->keep_work = 1;
		} else if ((flags & CLI_FORCE) && is_opt(arg, o_force, &value) && value == NULL) {
			a->force = 1;
		} else {
			return cli_usage_error("unknown option '%s'", arg);
		}
		if (list) {
			size_t before = list->n;

			if (value && cli_list_add(list, value) < 0)
				return cli_usage_error("out of memory");
			/* like argparse's nargs='+': the words up to the next option,
			 * but a model path (*.onnx) is left for the positionals */
			while (value == NULL && i + 1 < argc && argv[i + 1][0] != '-' && !is_model_path(argv[i + 1]))
				if (cli_list_add(list, argv[++i]) < 0)
					return cli_usage_error("out of memory");
			if (list->n == before)
				return cli_usage_error("%s needs at least one name", arg);
		}
	}
	if (n_pos < 2)
		return cli_usage_error(n_pos ? "needs two arguments; only one was given" : "needs two arguments");
	/* the optimizer's shapes: scs4onnx-optimize's own, the others' with --optimize */
	if (!(flags & CLI_PASSES) && !a->shrink.optimize && (a->input_shapes.n || a->shrink.write_shapes))
		return cli_usage_error("--input-shape and --write-shapes go with --optimize");
	/* as gzip does: a write-protected output is replaced only when asked to, and with CLI_NEW_OUTPUT
	 * any output that exists (INPUT given as OUTPUT is the run's own refusal) */
	if ((flags & CLI_FORCE) && !a->force && is_read_only(a->pos[1])) {
		fprintf(stderr, "%s: error: %s is read-only; give --force to replace it\n", prog, a->pos[1]);
		return CLI_FAILED;
	}
	if ((flags & CLI_NEW_OUTPUT) && !a->force && is_file(a->pos[1]) && !same_file(a->pos[0], a->pos[1])) {
		fprintf(stderr, "%s: error: %s already exists; give --force to replace it\n", prog, a->pos[1]);
		return CLI_FAILED;
	}
	/* where the report goes, before any work: never over the input, the output or what the run reads */
	if (check_json(a, flags) != CLI_OK)
		return CLI_FAILED;
	a->shrink.input_shapes = (const char *const *)a->input_shapes.items;
	a->shrink.n_input_shapes = a->input_shapes.n;
	a->shrink.forced_op_names = (const char *const *)a->op_names.items;
	a->shrink.n_forced_op_names = a->op_names.n;
	a->shrink.forced_constant_names = (const char *const *)a->constant_names.items;
	a->shrink.n_forced_constant_names = a->constant_names.n;
	if (!a->quiet && cli_stderr_is_tty())
		a->shrink.progress = cli_progress;
	return -1;
}

int
cli_start(cli_args *a, const char *p, int argc, char **argv, unsigned flags, void (*usage)(FILE *))
{
	int rc;

	cli_set_prog(p);
	cli_raise_fd_limit();
	if ((rc = cli_parse(a, argc, argv, flags, usage)) >= 0)
		cli_args_dispose(a);
	return rc;
}

void
cli_help_options(FILE *f, int col, const cli_help *opts, const char *note)
{
	cli_help_entries(f, col, opts, note);
	fputs("Exit status: 0 done, 1 failed (nothing written), 2 bad usage.\n", f);
}

void
cli_help_entries(FILE *f, int col, const cli_help *opts, const char *note)
{
	fputs("options:\n", f);
	for (; opts->flags; opts++) {
		const char *what = opts->what, *nl;
		int shown = 2 + (int)strlen(opts->flags);

		fprintf(f, "  %s", opts->flags);
		if (*what && shown >= col) {
			fputc('\n', f);
			shown = 0;
		}
		while (*what) {
			int len = (nl = strchr(what, '\n')) ? (int)(nl - what) : (int)strlen(what);

			fprintf(f, "%*s%.*s", col - shown, "", len, what);
			what += nl ? len + 1 : len;
			if (*what)
				fputc('\n', f);
			shown = 0;
		}
		fputc('\n', f);
	}
	fputc('\n', f);
	if (note)
		fprintf(f, "%s\n", note);
}

void
cli_args_dispose(cli_args *a)
{
	cli_list_dispose(&a->op_names);
	cli_list_dispose(&a->constant_names);
	cli_list_dispose(&a->passes);
	cli_list_dispose(&a->skip);
	cli_list_dispose(&a->input_shapes);
}

/*
 * The summary on stderr; then, @verbose, the optimizer's changes and what it
 * left alone one a line, else a line saying how to see them.
 */
static void
print_report(const scs_report *rep, int verbose)
{
	scs_report_print(rep, stderr);
	if (!rep->optimized || rep->changes.n + rep->left.n == 0)
		return;
	if (!verbose) {
		fprintf(stderr, "INFO: --verbose lists each change and each node left alone\n");
		return;
	}
	for (size_t i = 0; i < rep->changes.n; i++)
		fprintf(stderr, "INFO: optimized: %s: %s\n", rep->changes.items[i].name, rep->changes.items[i].detail);
	for (size_t i = 0; i < rep->left.n; i++)
		fprintf(stderr, "INFO: not optimized: %s: %s\n", rep->left.items[i].name, rep->left.items[i].detail);
}

int
cli_finish(cli_args *a, scs_report *rep, int rc)
{
	cli_progress_end();
	if (rc < 0) {
		rc = cli_fail();
	} else {
		if (!a->quiet)
			print_report(rep, a->verbose);
		rc = a->json ? cli_write_json(rep, a->json) : CLI_OK;
	}
	scs_report_dispose(rep);
	cli_args_dispose(a);
	return rc;
}
