/*
 * test_commit.c: what a killed run leaves, and two runs at once. The tools
 * are killed at every step of their commit (copies of the tools built with
 * the commit's test hooks, tests/meson.build: SCS_TEST_KILL_AT=N kills the
 * tool before step N, SCS_TEST_KILL_COMMITTER_AT=N the process that does the
 * commit's steps, SCS_TEST_KILL_GROUP_AT=N both) and, with the installed
 * tools, at random moments of a run on a ~100 MB model. After each kill the
 * input is as it was, the output folder holds exactly the old output or
 * exactly the new one (no temporaries; when both processes died, at most
 * the hidden or unused files the next run removes), and a rerun succeeds.
 * Two runs writing one output at once, with a slowed commit, always leave a
 * model and the data file it names, computing what its input computes.
 * Folders split and big make are not left behind when they fail.
 *
 * No test here sets .timeout (only conformance does, alone): with two timed tests running at once,
 * Criterion 2.4.1's runner leaks a little memory, which the sanitizer build
 * reports (meson's timeout for the suite stands instead).
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

/* ---- running a tool in a process group of its own ---- */

/* Start @argv (a tool path first) with @env ("NAME=VALUE"s, NULL-ended, may be
 * NULL); *out_fd reads its stdout and stderr. */
static pid_t
start(int *out_fd, char *const env[], char *const argv[])
{
	int p[2];
	pid_t pid;

	/* a committer that outlives its tool becomes this process's child, to be reaped here */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	cr_assert_eq(pipe(p), 0);
	/* no assertion in the child: each one is a message to Criterion's runner */
	if ((pid = fork()) == 0) {
		setpgid(0, 0);
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		close(p[0]);
		close(p[1]);
		for (size_t i = 0; env && env[i]; i++)
			putenv(env[i]);
		execv(argv[0], argv);
		_exit(127);
	}
	cr_assert_geq(pid, 0);
	setpgid(pid, pid);
	close(p[1]);
	*out_fd = p[0];
	return pid;
}

typedef struct outcome {
	int killed;               /* SIGKILL ended the tool */
	int status;               /* its exit status otherwise */
	char *text;               /* everything written to stdout and stderr (malloc'd) */
} outcome;

/* Read until every process holding the output (the tool, and a committer
 * that outlives it) is gone, then reap the tool. */
static outcome
finish(pid_t pid, int fd)
{
	outcome o = { 0, -1, NULL };
	size_t len = 0, cap = 4096;
	ssize_t n;
	int status;

	o.text = malloc(cap);
	while ((n = read(fd, o.text + len, cap - len - 1)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		cr_assert_gt(n, 0, "read: %s", strerror(errno));
		len += (size_t)n;
		if (cap - len < 1024)
			o.text = realloc(o.text, cap *= 2);
	}
	o.text[len] = '\0';
	close(fd);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	while (waitpid(-pid, NULL, 0) > 0)
		;    /* the committer, when the tool died before it */
	o.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	o.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return o;
}

static outcome
run_env(char *const env[], char *const argv[])
{
	int fd;
	pid_t pid = start(&fd, env, argv);

	return finish(pid, fd);
}

/* ---- what a folder holds ---- */

/* FNV-1a 64 of a file's bytes. */
static uint64_t
digest(const char *path)
{
	static uint8_t buf[1 << 20];
	uint64_t h = 0xcbf29ce484222325u;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3u;
	close(fd);
	return h;
}

static void
append(char **s, size_t *len, const char *text)
{
	size_t n = strlen(text);

	*s = realloc(*s, *len + n + 1);
	memcpy(*s + *len, text, n + 1);
	*len += n;
}

/* "name size digest\n" for every entry under @dir (folders too, one level
 * down and more), in name order: two folders hold the same when the
 * strings are equal. */
static void
snap_into(char **s, size_t *len, const char *dir, const char *prefix)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);
	char line[4096];

	cr_assert_geq(n, 0, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		char *path = path_in(dir, list[i]->d_name), rel[2048];
		struct stat st;

		if (strcmp(list[i]->d_name, ".") == 0 || strcmp(list[i]->d_name, "..") == 0) {
			free(path);
			free(list[i]);
			continue;
		}
		snprintf(rel, sizeof(rel), "%s%s", prefix, list[i]->d_name);
		cr_assert_eq(lstat(path, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			char sub[2100];

			snprintf(line, sizeof(line), "%s/\n", rel);
			append(s, len, line);
			snprintf(sub, sizeof(sub), "%s/", rel);
			snap_into(s, len, path, sub);
		} else {
			snprintf(line, sizeof(line), "%s %llu %016llx\n", rel, (unsigned long long)st.st_size,
			    (unsigned long long)digest(path));
			append(s, len, line);
		}
		free(path);
		free(list[i]);
	}
	free(list);
}

static char *
snapshot(const char *dir)
{
	char *s = calloc(1, 1);
	size_t len = 0;

	snap_into(&s, &len, dir, "");
	return s;
}

/* ---- the cases ---- */

typedef enum { KILL_TOOL, KILL_COMMITTER, KILL_GROUP } kill_mode;

static const char *const mode_var[] = { "SCS_TEST_KILL_AT", "SCS_TEST_KILL_COMMITTER_AT", "SCS_TEST_KILL_GROUP_AT" };

static char *work;                 /* the test's scratch folder */
static char *in_dir;               /* inputs: a.onnx, b.onnx (~3 MB, external data) */

static void
gen(const char *kind, const char *path, const char *args)
{
	char *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' %s '%s' %s", SCS_TEST_SRC_DIR, kind, path,
	    args), 0, "%s", text);
	free(text);
}

static void
make_inputs(void)
{
	char *a, *b;

	work = tmpdir_new();
	in_dir = path_in(work, "in");
	cr_assert_eq(mkdir(in_dir, 0777), 0);
	a = path_in(in_dir, "a.onnx");
	b = path_in(in_dir, "b.onnx");
	gen("llm", a, "--size 3M --seed 1 --external");
	gen("llm", b, "--size 3M --seed 2 --external");
	free(a);
	free(b);
}

static void
drop_inputs(void)
{
	free(in_dir);
	tmpdir_remove(work);
}

/* A tool's command line; fills @argv (at most 8 words). */
typedef struct command {
	const char *tool;          /* "shrink", "split" */
	const char *input;         /* a file name in in_dir */
	const char *output;        /* a name in the output folder */
	const char *extra;         /* one more argument or NULL */
} command;

static void
make_argv(char *argv[8], char store[4][4096], int hooked, const command *cmd, const char *out_dir)
{
	int n = 0;

	snprintf(store[0], sizeof(store[0]), "%s/%sscs4onnx-%s", hooked ? SCS_HOOKED_TOOLS_DIR : SCS_TOOLS_DIR,
	    hooked ? "hooked-" : "", cmd->tool);
	snprintf(store[1], sizeof(store[1]), "%s/%s", in_dir, cmd->input);
	snprintf(store[2], sizeof(store[2]), "%s/%s", out_dir, cmd->output);
	argv[n++] = store[0];
	argv[n++] = store[1];
	argv[n++] = store[2];
	argv[n++] = (char *)"-n";
	/* the runs write over an old output (split's folder is new or empty) */
	if (strcmp(cmd->tool, "split") == 0)
		argv[n++] = (char *)"--max-shard-size=1M";
	else
		argv[n++] = (char *)"-f";
	if (cmd->extra)
		argv[n++] = (char *)cmd->extra;
	argv[n] = NULL;
}

/* Run @cmd (installed tool) into @out_dir; it must succeed. */
static void
run_ok(const command *cmd, const char *out_dir)
{
	char *argv[8], store[4][4096];
	outcome o;

	make_argv(argv, store, 0, cmd, out_dir);
	o = run_env(NULL, argv);
	cr_assert_eq(o.status, 0, "%s: %s", argv[0], o.text);
	free(o.text);
}

typedef struct kill_case {
	const char *what;
	command old;               /* makes the old output (tool NULL: none) */
	command cmd;               /* the run that is killed */
	int empty_dir;             /* split: the folder exists, empty */
} kill_case;

/*
 * When both processes died, the output folder may hold, besides exactly the
 * old or the new output, what the next run removes: hidden temporaries and
 * data files of the model's name the model does not use. @snap is what is
 * there; the visible output is compared by removing those lines.
 */
static char *
visible_part(const char *snap, const char *dir, const char *model)
{
	char *out = calloc(1, 1), *copy = strdup(snap), *save = NULL, *used = NULL, *path = path_in(dir, model);
	size_t len = 0, n = strlen(model);
	Onnx__ModelProto *m;

	if (n > 5 && strcmp(model + n - 5, ".onnx") == 0 && file_exists(path) && (m = load_proto(path)) != NULL) {
		free_proto(m);
		used = data_locations(path);
	}
	free(path);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *name = line;
		char pad[1024];

		if (name[0] == '.')
			continue;     /* a hidden temporary or folder */
		snprintf(pad, sizeof(pad), " %.*s ", (int)strcspn(name, " "), name);
		if (strncmp(name, model, n) == 0 && name[n] == '.' && strstr(name, ".data ") && !(used && strstr(used, pad)))
			continue;     /* a data file the model does not use */
		append(&out, &len, line);
		append(&out, &len, "\n");
	}
	free(copy);
	free(used);
	return out;
}

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The old output and the new one of a case, each made once in a folder of its own. */
typedef struct refs {
	char *old_dir, *new_dir;
	char *old_snap, *new_snap;
	double run_s;              /* how long the run that makes the new one took */
} refs;

static void
make_refs(refs *r, const kill_case *c)
{
	double t0;

	r->old_dir = path_in(work, "ref_old");
	r->new_dir = path_in(work, "ref_new");
	cr_assert_eq(run(NULL, "rm -rf '%s' '%s' && mkdir '%s' '%s'", r->old_dir, r->new_dir, r->old_dir, r->new_dir), 0);
	if (c->old.tool)
		run_ok(&c->old, r->old_dir);
	if (c->empty_dir) {
		char *d = path_in(r->old_dir, c->cmd.output);

		cr_assert_eq(mkdir(d, 0777), 0);
		free(d);
	}
	cr_assert_eq(run(NULL, "cp -a '%s/.' '%s'", r->old_dir, r->new_dir), 0);
	if (c->empty_dir)
		cr_assert_eq(run(NULL, "rmdir '%s/%s'", r->new_dir, c->cmd.output), 0);
	t0 = seconds();
	run_ok(&c->cmd, r->new_dir);
	r->run_s = seconds() - t0;
	r->old_snap = snapshot(r->old_dir);
	r->new_snap = snapshot(r->new_dir);
	cr_assert_str_neq(r->old_snap, r->new_snap, "%s: the old and the new output must differ", c->what);
}

static void
drop_refs(refs *r)
{
	run(NULL, "rm -rf '%s' '%s'", r->old_dir, r->new_dir);
	free(r->old_dir);
	free(r->new_dir);
	free(r->old_snap);
	free(r->new_snap);
}

/*
 * After a kill, folder @out (@got: its snapshot) holds exactly the old or
 * the new output of @c; when @both_died, it may also hold what the next run
 * removes. @when and @text say which kill, for the message.
 */
static void
expect_old_or_new(const refs *r, const kill_case *c, const char *out, const char *got, int both_died, const char *when,
    const char *text)
{
	if (both_died) {
		char *vis_got = visible_part(got, out, c->cmd.output), *vis_old = visible_part(r->old_snap, r->old_dir, c->cmd.output),
		     *vis_new = visible_part(r->new_snap, r->new_dir, c->cmd.output);

		cr_assert(strcmp(vis_got, vis_old) == 0 || strcmp(vis_got, vis_new) == 0,
		    "%s, %s: the output is neither the old nor the new one:\n%s\nold:\n%s\nnew:\n%s\n%s", c->what, when, got,
		    r->old_snap, r->new_snap, text);
		free(vis_got);
		free(vis_old);
		free(vis_new);
	} else {
		cr_assert(strcmp(got, r->old_snap) == 0 || strcmp(got, r->new_snap) == 0,
		    "%s, %s: the folder holds neither exactly the old nor exactly the new output:\n%s\nold:\n%s\nnew:\n%s\n%s",
		    c->what, when, got, r->old_snap, r->new_snap, text);
	}
}

/* The input folder is as it was (@before: its snapshot). */
static void
expect_input_kept(const char *before, const kill_case *c, const char *when)
{
	char *now = snapshot(in_dir);

	cr_assert_str_eq(now, before, "%s, %s: the input changed", c->what, when);
	free(now);
}

/* Kill @c's run before each commit step in turn, in @mode, until a run ends on its own. */
static void
kill_at_every_step(const kill_case *c, kill_mode mode, int named)
{
	char *out = path_in(work, "out"), *in_snap = snapshot(in_dir), *argv[8], store[4][4096], *text;
	char kill_env[64], named_env[] = "SCS_TEST_NO_TMPFILE=1", *env[3] = { kill_env, NULL, NULL }, when[128];
	int is_split = strcmp(c->cmd.tool, "split") == 0;
	unsigned step, n_new = 0, n_left = 0;
	refs r;

	if (named)
		env[1] = named_env;
	make_refs(&r, c);
	for (step = 1;; step++) {
		outcome o;
		char *got;

		cr_assert_lt(step, 100, "%s: the commit never ended", c->what);
		cr_assert_eq(run(NULL, "rm -rf '%s' && cp -a '%s' '%s'", out, r.old_dir, out), 0);
		snprintf(kill_env, sizeof(kill_env), "%s=%u", mode_var[mode], step);
		snprintf(when, sizeof(when), "%s%s", kill_env, named ? " (named temporaries)" : "");
		make_argv(argv, store, 1, &c->cmd, out);
		o = run_env(env, argv);
		got = snapshot(out);
		if (!strstr(o.text, "test hook")) {
			/* step N is past the last one: the run ended on its own, with the new output */
			cr_assert_eq(o.status, 0, "%s: %s", c->what, o.text);
			cr_assert_str_eq(got, r.new_snap, "%s: an unkilled run", c->what);
			free(o.text);
			free(got);
			break;
		}
		n_new += strcmp(got, r.new_snap) == 0;
		n_left += strcmp(got, r.new_snap) != 0 && strcmp(got, r.old_snap) != 0;
		expect_old_or_new(&r, c, out, got, mode == KILL_GROUP, when, o.text);
		if (mode == KILL_TOOL)
			cr_assert(o.killed, "%s, %s: the tool was not killed: %s", c->what, when, o.text);
		if (mode == KILL_COMMITTER)
			cr_assert_eq(o.status, 0, "%s, %s: the tool did not finish the commit itself: %s", c->what, when, o.text);
		expect_input_kept(in_snap, c, when);
		/* the same command again; a finished shard set is refused, as a folder with files */
		make_argv(argv, store, 0, &c->cmd, out);
		free(o.text);
		o = run_env(NULL, argv);
		text = snapshot(out);
		if (is_split && strcmp(got, r.new_snap) == 0) {
			cr_assert_eq(o.status, 1, "%s, %s: split into a full folder: %s", c->what, when, o.text);
			cr_assert_not_null(strstr(o.text, "not empty"), "%s", o.text);
		} else {
			cr_assert_eq(o.status, 0, "%s, %s: the rerun failed: %s", c->what, when, o.text);
		}
		cr_assert_str_eq(text, r.new_snap, "%s, %s: after a rerun:\n%s", c->what, when, text);
		free(text);
		free(o.text);
		free(got);
	}
	cr_assert_geq(step, 3, "%s: only %u commit steps", c->what, step - 1);
	fprintf(stderr, "commit: %s, %s%s: %u steps; killed before each, the new output %u times, the old %u, "
	    "with files for the rerun to remove %u\n", c->what, mode_var[mode], named ? " (named temporaries)" : "", step - 1,
	    n_new, step - 1 - n_new - n_left, n_left);
	drop_refs(&r);
	free(out);
	free(in_snap);
}

static const kill_case cases[] = {
	{ "shrink, inline, no old output", { NULL, NULL, NULL, NULL }, { "shrink", "a.onnx", "m.onnx", NULL }, 0 },
	{ "shrink, external data over an inline output", { "shrink", "b.onnx", "m.onnx", NULL },
		{ "shrink", "a.onnx", "m.onnx", "--external-data" }, 0 },
	{ "shrink, inline over an external-data output", { "shrink", "b.onnx", "m.onnx", "--external-data" },
		{ "shrink", "a.onnx", "m.onnx", NULL }, 0 },
	{ "shrink, external data over external data", { "shrink", "b.onnx", "m.onnx", "--external-data" },
		{ "shrink", "a.onnx", "m.onnx", "--external-data" }, 0 },
	{ "shrink, numbered data files over external data", { "shrink", "b.onnx", "m.onnx", "--external-data" },
		{ "shrink", "a.onnx", "m.onnx", "--max-data-file-size=1M" }, 0 },
	{ "shrink, numbered data files over numbered data files", { "shrink", "b.onnx", "m.onnx", "--max-data-file-size=1M" },
		{ "shrink", "a.onnx", "m.onnx", "--max-data-file-size=1M" }, 0 },
	{ "shrink, external data over numbered data files", { "shrink", "b.onnx", "m.onnx", "--max-data-file-size=1M" },
		{ "shrink", "a.onnx", "m.onnx", "--external-data" }, 0 },
	{ "split into a new folder", { NULL, NULL, NULL, NULL }, { "split", "a.onnx", "shards", NULL }, 0 },
	{ "split into an empty folder", { NULL, NULL, NULL, NULL }, { "split", "a.onnx", "shards", NULL }, 1 },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

Test(commit, a_tool_killed_at_any_commit_step_leaves_the_old_or_the_new_output, .init = make_inputs,
    .fini = drop_inputs)
{
	for (size_t i = 0; i < N_CASES; i++)
		kill_at_every_step(&cases[i], KILL_TOOL, 0);
}

Test(commit, with_named_temporaries_too, .init = make_inputs, .fini = drop_inputs)
{
	for (size_t i = 0; i < N_CASES; i++)
		kill_at_every_step(&cases[i], KILL_TOOL, 1);
}

Test(commit, a_committer_killed_at_any_step_is_finished_by_the_tool, .init = make_inputs, .fini = drop_inputs)
{
	for (size_t i = 0; i < N_CASES; i++)
		kill_at_every_step(&cases[i], KILL_COMMITTER, 0);
}

Test(commit, both_killed_at_any_step_leave_a_whole_output_and_the_rerun_cleans_up, .init = make_inputs,
    .fini = drop_inputs)
{
	for (size_t i = 0; i < N_CASES; i++) {
		kill_at_every_step(&cases[i], KILL_GROUP, 0);
		kill_at_every_step(&cases[i], KILL_GROUP, 1);
	}
}

/* ---- kills at random moments of a run on a ~100 MB model ---- */

static void
make_big_inputs(void)
{
	char *big;

	make_inputs();
	big = path_in(in_dir, "big.onnx");
	gen("llm", big, "--size 100M --seed 3");
	free(big);
}

/* Run @c's command with the installed tool @n_kills times, killing it (or,
 * every other time, its whole process group) after a random delay. */
static void
kill_at_random(const kill_case *c, int n_kills, unsigned *seed)
{
	char *out = path_in(work, "out"), *in_snap = snapshot(in_dir), *argv[8], store[4][4096], when[128];
	int is_split = strcmp(c->cmd.tool, "split") == 0, n_new = 0, n_old = 0, n_done = 0;
	refs r;

	make_refs(&r, c);
	for (int k = 0; k < n_kills; k++) {
		int group = k % 2, fd;
		double delay;
		struct timespec ts;
		outcome o;
		pid_t pid;
		char *got;

		*seed = *seed * 1103515245u + 12345u;
		delay = r.run_s * 1.1 * (double)((*seed >> 8) % 10000) / 10000.0;
		snprintf(when, sizeof(when), "killed%s after %.3f s", group ? " with its group" : "", delay);
		cr_assert_eq(run(NULL, "rm -rf '%s' && cp -a '%s' '%s'", out, r.old_dir, out), 0);
		make_argv(argv, store, 0, &c->cmd, out);
		pid = start(&fd, NULL, argv);
		ts.tv_sec = (time_t)delay;
		ts.tv_nsec = (long)((delay - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		kill(group ? -pid : pid, SIGKILL);
		o = finish(pid, fd);
		got = snapshot(out);
		if (!o.killed) {
			cr_assert_eq(o.status, 0, "%s: %s", c->what, o.text);
			n_done++;
		}
		expect_old_or_new(&r, c, out, got, group, when, o.text);
		n_new += strcmp(got, r.new_snap) == 0;
		n_old += strcmp(got, r.old_snap) == 0;
		expect_input_kept(in_snap, c, when);
		free(o.text);
		if (!(is_split && strcmp(got, r.new_snap) == 0)) {
			o = run_env(NULL, argv);
			cr_assert_eq(o.status, 0, "%s, %s: the rerun failed: %s", c->what, when, o.text);
			free(o.text);
			free(got);
			got = snapshot(out);
			cr_assert_str_eq(got, r.new_snap, "%s, %s: after the rerun", c->what, when);
		}
		free(got);
	}
	fprintf(stderr, "commit: %s: a run takes %.2f s; %d random kills: the old output %d times, the new %d, "
	    "the run ended first %d times\n", c->what, r.run_s, n_kills, n_old, n_new, n_done);
	cr_assert_gt(n_old, 0, "%s: no kill came before the commit", c->what);
	drop_refs(&r);
	run(NULL, "rm -rf '%s'", out);
	free(out);
	free(in_snap);
}

Test(commit, a_tool_killed_at_random_moments_on_a_100_mb_model, .init = make_big_inputs, .fini = drop_inputs)
{
	static const kill_case big_cases[] = {
		{ "shrink of 100 MB, inline over external data", { "shrink", "b.onnx", "m.onnx", "--external-data" },
			{ "shrink", "big.onnx", "m.onnx", NULL }, 0 },
		{ "shrink of 100 MB, external data over external data", { "shrink", "b.onnx", "m.onnx", "--external-data" },
			{ "shrink", "big.onnx", "m.onnx", "--external-data" }, 0 },
		{ "split of 100 MB", { NULL, NULL, NULL, NULL }, { "split", "big.onnx", "shards", "--max-shard-size=30M" }, 0 },
	};
	unsigned seed = 20240601;

	for (size_t i = 0; i < sizeof(big_cases) / sizeof(big_cases[0]); i++)
		kill_at_random(&big_cases[i], 10, &seed);
}

/* ---- two runs writing one output ---- */

Test(commit, two_runs_writing_one_output_leave_a_model_and_its_own_data, .init = make_inputs, .fini = drop_inputs)
{
	static const command a = { "shrink", "a.onnx", "m.onnx", "--external-data" },
			     b = { "shrink", "b.onnx", "m.onnx", "--external-data" };
	char *ref_a = path_in(work, "ref_a"), *ref_b = path_in(work, "ref_b"), *out = path_in(work, "out"),
	     *model = path_in(out, "m.onnx"), *in_a = path_in(in_dir, "a.onnx"), *in_b = path_in(in_dir, "b.onnx"), *snap_a,
	     *snap_b, *argv_a[8], *argv_b[8], store_a[4][4096], store_b[4][4096];
	char delay[] = "SCS_TEST_COMMIT_DELAY_MS=40", *env[] = { delay, NULL };
	int wins_a = 0;

	cr_assert_eq(run(NULL, "mkdir '%s' '%s'", ref_a, ref_b), 0);
	run_ok(&a, ref_a);
	run_ok(&b, ref_b);
	snap_a = snapshot(ref_a);
	snap_b = snapshot(ref_b);
	cr_assert_str_neq(snap_a, snap_b);
	for (int i = 0; i < 20; i++) {
		int fd_a, fd_b;
		pid_t pid_a, pid_b;
		outcome oa, ob;
		char *got, *data;

		cr_assert_eq(run(NULL, "rm -rf '%s' && mkdir '%s'", out, out), 0);
		make_argv(argv_a, store_a, 1, &a, out);
		make_argv(argv_b, store_b, 1, &b, out);
		pid_a = start(&fd_a, env, argv_a);
		pid_b = start(&fd_b, env, argv_b);
		oa = finish(pid_a, fd_a);
		ob = finish(pid_b, fd_b);
		cr_assert_eq(oa.status, 0, "%s", oa.text);
		cr_assert_eq(ob.status, 0, "%s", ob.text);
		got = snapshot(out);
		cr_assert(strcmp(got, snap_a) == 0 || strcmp(got, snap_b) == 0,
		    "round %d: the folder holds neither a's pair nor b's:\n%s\na:\n%s\nb:\n%s", i, got, snap_a, snap_b);
		data = data_file_beside(model);
		cr_assert_not_null(data, "round %d: no data file", i);
		wins_a += strcmp(got, snap_a) == 0;
		expect_equivalent(strcmp(got, snap_a) == 0 ? in_a : in_b, model, NULL);
		free(data);
		free(got);
		free(oa.text);
		free(ob.text);
	}
	fprintf(stderr, "commit: two writers, 20 rounds: a's output stayed %d times, b's %d\n", wins_a, 20 - wins_a);
	free(ref_a);
	free(ref_b);
	free(out);
	free(model);
	free(in_a);
	free(in_b);
	free(snap_a);
	free(snap_b);
}

/* ---- folders made by split and big ---- */

Test(commit, split_makes_no_folder_when_it_fails, .init = make_inputs, .fini = drop_inputs)
{
	char *bad = path_in(work, "bad.onnx"), *missing = path_in(work, "new/shards"), *shards = path_in(work, "shards"),
	     *empty = path_in(work, "empty"), *before, *after, *text;

	write_all(bad, "\x0a\xff\xff", 3);    /* a field whose length runs past the end */
	cr_assert_eq(mkdir(empty, 0777), 0);
	before = snapshot(work);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s'", bad, shards), 1, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s'", bad, empty), 1, "%s", text);
	free(text);
	after = snapshot(work);
	cr_assert_str_eq(after, before, "a failed split left:\n%s", after);
	/* a folder whose parent is missing is refused before the input is read */
	cr_assert_eq(run_tool(&text, "scs4onnx-split", "'%s' '%s'", bad, missing), 1, "%s", text);
	cr_assert_not_null(strstr(text, "new"), "%s", text);
	cr_assert_null(strstr(text, "bad.onnx"), "the input was read first: %s", text);
	free(text);
	free(before);
	free(after);
	free(bad);
	free(missing);
	free(shards);
	free(empty);
}

Test(commit, big_removes_the_work_folder_it_made, .init = make_inputs, .fini = drop_inputs)
{
	char *in = path_in(in_dir, "a.onnx"), *bad = path_in(work, "bad.onnx"), *out = path_in(work, "out"),
	     *w = path_in(work, "w"), *kept_shards = path_in(work, "w/shards"), *mine = path_in(work, "mine"), *text;
	int count;

	write_all(bad, "\x0a\xff\xff", 3);
	cr_assert_eq(mkdir(out, 0777), 0);
	cr_assert_eq(mkdir(mine, 0777), 0);
	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s/ok.onnx' --work '%s' -n", in, out, w), 0, "%s", text);
	free(text);
	cr_assert(!file_exists(w), "big left the work folder it made");
	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s/bad.onnx' --work '%s' -n", bad, out, w), 1, "%s", text);
	free(text);
	cr_assert(!file_exists(w), "a failed big left the work folder it made");
	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s/ok.onnx' --work '%s' -n -f", in, out, mine), 0, "%s", text);
	free(text);
	cr_assert(file_exists(mine), "big removed a work folder it did not make");
	cr_assert_eq(count_files(mine, ""), 2, "big left something in the work folder");
	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s/kept.onnx' --work '%s' --keep-work --max-shard-size 1M -n",
	    in, out, w), 0, "%s", text);
	free(text);
	free(shard_list(kept_shards, &count));
	cr_assert_geq(count, 2, "kept shards: %d", count);
	cr_assert_eq(count_files(out, ""), 2 + 2, "ok.onnx and kept.onnx, nothing else");
	free(in);
	free(bad);
	free(out);
	free(w);
	free(kept_shards);
	free(mine);
}

/* ---- the work folder of an interrupted scs4onnx-big ---- */

/* Does folder @dir hold a hidden file (a named temporary)? */
static int
holds_hidden(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (d && (e = readdir(d)) != NULL)
		found |= e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return found;
}

/*
 * scs4onnx-big (the hooked copy: named temporaries, each commit step slowed)
 * on a.onnx into work/out/big.onnx with --work work/W (@keep: --keep-work),
 * sent @sig once its output's temporary is there, mid-run: it dies of @sig
 * and neither W nor a temporary is left.
 */
static void
interrupt_big(int sig, int keep)
{
	char *out = path_in(work, "out"), *w = path_in(work, "W"), *in = path_in(in_dir, "a.onnx"), big[4200], target[4200];
	char *argv[] = { big, in, target, "--work", w, "--max-shard-size", "1M", "-n", keep ? "--keep-work" : NULL, NULL };
	char slow[] = "SCS_TEST_COMMIT_DELAY_MS=300", named[] = "SCS_TEST_NO_TMPFILE=1", *env[] = { slow, named, NULL };
	outcome o;
	int fd, i;
	pid_t pid;

	snprintf(big, sizeof(big), "%s/hooked-scs4onnx-big", SCS_HOOKED_TOOLS_DIR);
	snprintf(target, sizeof(target), "%s/big.onnx", out);
	cr_assert_eq(run(NULL, "rm -rf '%s' '%s' && mkdir '%s'", out, w, out), 0);
	pid = start(&fd, env, argv);
	for (i = 0; i < 60000 && !holds_hidden(out); i++)
		usleep(1000);
	cr_assert(holds_hidden(out), "the run never wrote its output's temporary");
	/* without --keep-work a missing work folder is never made; with it, it is there now */
	cr_expect_eq(file_exists(w), keep, "signal %d, keep %d: the work folder is%s there mid-run", sig, keep,
	    keep ? " not" : "");
	cr_assert_eq(kill(pid, sig), 0);
	o = finish(pid, fd);
	cr_expect_eq(o.status, -1, "signal %d: the run ended with status %d: %s", sig, o.status, o.text);
	cr_expect(!file_exists(w), "signal %d, keep %d: the work folder it made is left", sig, keep);
	cr_expect(!holds_hidden(out), "signal %d, keep %d: a temporary is left", sig, keep);
	free(o.text);
	free(out);
	free(w);
	free(in);
}

Test(commit, big_stopped_by_sigterm_or_sigint_leaves_no_work_folder, .init = make_inputs, .fini = drop_inputs)
{
	interrupt_big(SIGTERM, 0);
	interrupt_big(SIGTERM, 1);
	interrupt_big(SIGINT, 0);
	interrupt_big(SIGINT, 1);
}

Test(commit, big_killed_by_sigkill_leaves_no_work_folder_it_did_not_keep, .init = make_inputs, .fini = drop_inputs)
{
	char *out = path_in(work, "out"), *w = path_in(work, "W"), *in = path_in(in_dir, "a.onnx"), big[4200], target[4200];
	char *argv[] = { big, in, target, "--work", w, "--max-shard-size", "1M", "-n", "-f", NULL, NULL };
	char kill_env[] = "SCS_TEST_KILL_AT=1", *env[] = { kill_env, NULL }, *kept = path_in(work, "W/shards");
	outcome o;
	int count;

	snprintf(big, sizeof(big), "%s/hooked-scs4onnx-big", SCS_HOOKED_TOOLS_DIR);
	snprintf(target, sizeof(target), "%s/big.onnx", out);
	cr_assert_eq(mkdir(out, 0777), 0);
	o = run_env(env, argv);
	cr_assert(o.killed, "%s", o.text);
	free(o.text);
	cr_expect(!file_exists(w), "SIGKILL left the work folder");
	/* with --keep-work the folder is where the shards stay: it may stay, and the next run takes it */
	argv[9] = "--keep-work";
	o = run_env(env, argv);
	cr_assert(o.killed, "%s", o.text);
	free(o.text);
	o = run_env(NULL, argv);
	cr_assert_eq(o.status, 0, "%s", o.text);
	free(o.text);
	free(shard_list(kept, &count));
	cr_expect_geq(count, 2, "kept shards: %d", count);
	free(kept);
	free(out);
	free(w);
	free(in);
}
