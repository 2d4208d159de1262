/*
 * commit.c: outputs that appear whole or not at all (see commit.h): the
 * commit protocol, and the list of named temporaries the signal handler
 * removes. The only file that names or removes files at a user's output
 * path; the bytes reach the temporaries through their sinks (sink.c).
 *
 * A commit runs in three parts. The parent flushes and fsyncs every
 * temporary, takes the folder's lock, blocks SIGINT/SIGTERM/SIGHUP and plans
 * (hidden names, which targets exist, what killed runs left). A child process
 * (the committer) then does the naming steps and answers with a status. If
 * the child dies first, the parent does the same steps itself; if the parent
 * dies, the child carries on. Every step can be done twice: each one first
 * looks whether its file already has its name (same device and inode), so
 * whoever finishes a commit starts it from the top.
 *
 * Test builds (SCS_TEST_HOOKS: the library the test suite links, and its
 * copies of the tools) read SCS_TEST_* environment variables in this file to
 * kill or slow the commit at a given step; installed tools and the library
 * have none of it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/err.h"
#include "util/path.h"
#include "io/sink_impl.h"

#define RAND_LEN 6
#define TMP_SUFFIX ".scs-tmp"     /* a hidden temporary file: ".NAME.XXXXXX.scs-tmp" */
#define DIR_SUFFIX ".scs-dir"     /* a hidden folder being built: ".NAME.XXXXXX.scs-dir" */

/* ---- named temporaries, for the signal handler ---- */

/* A list the signal handler can walk at any time: nodes are linked in and
 * out with every signal of the thread blocked, one thread at a time (the
 * lock), and never change while linked. */
typedef struct temp_node {
	struct temp_node *volatile next;
	int is_dir;               /* a folder a run made: removed when empty, after the files */
	char path[];
} temp_node;

static temp_node *volatile temps;
static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;

/* Block every signal of this thread (pthread_sigmask: sigprocmask is not
 * defined in a process of several threads). */
static void
hold_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

/* hold_signals(), and take the list's lock. */
static void
block_all(sigset_t *old)
{
	hold_signals(old);
	pthread_mutex_lock(&temps_lock);
}

static void
unblock_all(const sigset_t *old)
{
	pthread_mutex_unlock(&temps_lock);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static temp_node *
temps_add_kind(const char *path, int is_dir)
{
	size_t len = strlen(path) + 1;
	temp_node *n = malloc(sizeof(*n) + len);
	sigset_t old;

	if (n == NULL)
		return NULL;
	n->is_dir = is_dir;
	memcpy(n->path, path, len);
	block_all(&old);
	n->next = temps;
	temps = n;
	unblock_all(&old);
	return n;
}

static void
temps_drop(temp_node *n)
{
	temp_node *volatile *p;
	sigset_t old;

	if (n == NULL)
		return;
	block_all(&old);
	for (p = &temps; *p; p = &(*p)->next) {
		if (*p == n) {
			*p = n->next;
			break;
		}
	}
	unblock_all(&old);
	free(n);
}

static temp_node *
temps_add(const char *path)
{
	return temps_add_kind(path, 0);
}

void
scs_temps_remove_all(void)
{
	for (temp_node *n = temps; n; n = n->next)
		if (!n->is_dir)
			unlink(n->path);
	/* the newest first: a folder made inside another goes before it */
	for (temp_node *n = temps; n; n = n->next)
		if (n->is_dir)
			rmdir(n->path);
}

scs_temp_dir *
scs_temp_dir_add(const char *path)
{
	return (scs_temp_dir *)temps_add_kind(path, 1);
}

void
scs_temp_dir_drop(scs_temp_dir *d)
{
	temps_drop((temp_node *)d);
}

/* ---- sinks and commits ---- */

struct scs_commit {
	int folder;               /* 1: the commit makes the folder @base in @tmp_dir */
	char *dir;                /* where the files go: the folder of the files, or the new folder */
	char *tmp_dir;            /* where temporaries live: @dir for files, its parent for a folder */
	char *base;               /* folder: the new folder's name in @tmp_dir */
	char *hidden_dir;         /* folder: the hidden folder built at commit time */
	int dfd;                  /* @tmp_dir, opened; its flock orders commits */
	int named_temps;          /* 1: no O_TMPFILE (tests force it) */
	scs_sink **sinks;
	size_t n, cap;
	char **stale;             /* names under @dfd a killed run or the old output left: removed after the switch */
	size_t n_stale;
	char **stale_dirs;        /* hidden folders a killed run left (emptied first, then removed) */
	size_t n_stale_dirs;
};

#ifdef SCS_TEST_HOOKS
static int force_named;

void
scs_commit_named_temporaries_for_tests(int on)
{
	force_named = on;
}
#endif

/* The process's umask: read from /proc/self/status ("Umask:", Linux 4.7
 * and later), since umask() can only be read by setting it, which would
 * change it for an instant under the other threads' files. Without /proc,
 * by umask() all the same. */
static mode_t
current_umask(void)
{
	char line[128];
	unsigned long v;
	int found = 0;
	FILE *f = fopen("/proc/self/status", "re");
	mode_t m;

	if (f) {
		while (!found && fgets(line, sizeof(line), f))
			found = sscanf(line, "Umask: %lo", &v) == 1;
		fclose(f);
		if (found)
			return (mode_t)v & 0777;
	}
	m = umask(0);
	umask(m);
	return m;
}

/* RAND_LEN letters and digits, different on each call. */
static void
random_chars(char out[RAND_LEN + 1])
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	static uint64_t counter;   /* calls in other threads count too: atomic */
	uint8_t r[RAND_LEN];
	struct timespec ts;
	uint64_t x;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		x = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
		    (__atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) * 0x9e3779b97f4a7c15u);
		for (size_t i = 0; i < sizeof(r); i++, x >>= 8)
			r[i] = (uint8_t)x;
	}
	for (size_t i = 0; i < RAND_LEN; i++)
		out[i] = digits[r[i] % 36];
	out[RAND_LEN] = '\0';
}

/* ".NAME.XXXXXX<suffix>" with random letters for the Xs; malloc'd. */
static char *
hidden_name(const char *name, const char *suffix)
{
	char rnd[RAND_LEN + 1], *out;

	random_chars(rnd);
	if (asprintf(&out, ".%s.%s%s", name, rnd, suffix) < 0)
		return NULL;
	return out;
}

/* Is @entry a hidden name made by hidden_name(@name, @suffix)? */
static int
is_hidden_of(const char *name, const char *entry, const char *suffix)
{
	size_t n = strlen(name), ns = strlen(suffix);

	return entry[0] == '.' && strncmp(entry + 1, name, n) == 0 && entry[1 + n] == '.' &&
	    strlen(entry) == 2 + n + RAND_LEN + ns && strcmp(entry + 2 + n + RAND_LEN, suffix) == 0;
}

char *
scs_sink_spill_name(const char *model_name)
{
	char *name = malloc(strlen(model_name) + sizeof(".spill"));

	if (name)
		sprintf(name, "%s.spill", model_name);
	return name;
}

char *
scs_sink_data_name(const char *model_name, const char *token)
{
	char *out;

	if (asprintf(&out, "%s.%.*s.data", model_name, SCS_DATA_TOKEN_LEN, token) < 0)
		return NULL;
	return out;
}

char *
scs_sink_data_part_name(const char *model_name, const char *token, uint32_t k, uint32_t n)
{
	int width = 5;
	char *out;

	for (uint32_t v = n; v >= 100000; v /= 10)
		width++;
	if (asprintf(&out, "%s.%.*s-%0*lu-of-%0*lu.data", model_name, SCS_DATA_TOKEN_LEN, token, width,
	    (unsigned long)k + 1, width, (unsigned long)n) < 0)
		return NULL;
	return out;
}

/* The length of the run of decimal digits at @s. */
static size_t
digits_at(const char *s)
{
	size_t i = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* Is @s (up to ".data") "-K-of-N" as scs_sink_data_part_name() writes it: one width of 5 or more, 1 <= K <= N? */
static int
is_part_suffix(const char *s)
{
	size_t wk, wn;
	unsigned long long k, n;

	if (s[0] != '-' || (wk = digits_at(s + 1)) < 5 || strncmp(s + 1 + wk, "-of-", 4) != 0 ||
	    (wn = digits_at(s + 5 + wk)) != wk || strcmp(s + 5 + wk + wn, ".data") != 0 || wk > 10)
		return 0;
	k = strtoull(s + 1, NULL, 10);
	n = strtoull(s + 5 + wk, NULL, 10);
	return k >= 1 && k <= n;
}

int
scs_sink_is_data_of(const char *model_name, const char *name)
{
	size_t n = strlen(model_name), len = strlen(name);

	if (strncmp(name, model_name, n) != 0 || name[n] != '.')
		return 0;
	if (strcmp(name + n, ".data") == 0)
		return 1;    /* what versions before the content-named data files wrote */
	if (len < n + 1 + SCS_DATA_TOKEN_LEN + 5)
		return 0;
	for (size_t i = n + 1; i < n + 1 + SCS_DATA_TOKEN_LEN; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return 0;
	if (len == n + 1 + SCS_DATA_TOKEN_LEN + 5)
		return strcmp(name + len - 5, ".data") == 0;
	return is_part_suffix(name + n + 1 + SCS_DATA_TOKEN_LEN);
}

static void
sink_free(scs_sink *s)
{
	if (s == NULL)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->tmp && s->c)
		unlinkat(s->c->dfd, s->tmp, 0);    /* ENOENT once it has its name */
	temps_drop(s->reg);
	free(s->name);
	free(s->target);
	free(s->tmp);
	free(s->hidden);
	free(s->buf);
	free(s);
}

static void
commit_free(scs_commit *c)
{
	for (size_t i = 0; i < c->n; i++)
		sink_free(c->sinks[i]);
	for (size_t i = 0; i < c->n_stale; i++)
		free(c->stale[i]);
	for (size_t i = 0; i < c->n_stale_dirs; i++)
		free(c->stale_dirs[i]);
	if (c->dfd >= 0)
		close(c->dfd);
	free(c->stale);
	free(c->stale_dirs);
	free(c->sinks);
	free(c->dir);
	free(c->tmp_dir);
	free(c->base);
	free(c->hidden_dir);
	free(c);
}

void
scs_commit_abort(scs_commit *c)
{
	if (c)
		commit_free(c);
}

static scs_commit *
commit_new(void)
{
	scs_commit *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->dfd = -1;
#ifdef SCS_TEST_HOOKS
	c->named_temps = force_named || scs_sink_hook_value("SCS_TEST_NO_TMPFILE") > 0;
#endif
	return c;
}

int
scs_commit_files(scs_commit **out, const char *dir)
{
	scs_commit *c;
	int rc;

	*out = NULL;
	if ((c = commit_new()) == NULL || (c->dir = strdup(dir)) == NULL || (c->tmp_dir = strdup(dir)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", dir);
		goto fail;
	}
	if ((c->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = scs_err_errno(errno, "%s: cannot open the folder", dir);
		goto fail;
	}
	*out = c;
	return SCS_OK;
fail:
	scs_commit_abort(c);
	return rc;
}

/* 1 when folder @fd (consumed) holds nothing, 0 when it holds something, < 0 on error. */
static int
folder_empty(int fd, const char *path)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int empty = 1;

	if (d == NULL) {
		close(fd);
		return scs_err_errno(errno, "%s: cannot list the folder", path);
	}
	while (empty && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty;
}

int
scs_commit_folder(scs_commit **out, const char *dir)
{
	scs_commit *c;
	struct stat st;
	char *path = NULL, *real = NULL;
	size_t len;
	int rc, fd;

	*out = NULL;
	if ((c = commit_new()) == NULL || (path = strdup(dir)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", dir);
		goto fail;
	}
	for (len = strlen(path); len > 1 && path[len - 1] == '/'; len--)
		path[len - 1] = '\0';
	if (stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			rc = scs_err_set(SCS_EUSAGE, "%s: exists and is not a folder", dir);
			goto fail;
		}
		if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			rc = scs_err_errno(errno, "%s: cannot open the folder", dir);
			goto fail;
		}
		if ((rc = folder_empty(fd, dir)) <= 0) {
			if (rc == 0)
				rc = scs_err_set(SCS_EUSAGE, "%s: the folder is not empty; give an empty or new folder", dir);
			goto fail;
		}
		/* the folder itself is replaced, wherever links lead to it */
		if ((real = realpath(path, NULL)) == NULL) {
			rc = scs_err_errno(errno, "%s: cannot resolve the path", dir);
			goto fail;
		}
		free(path);
		path = real;
		real = NULL;
	} else if (errno != ENOENT) {
		rc = scs_err_errno(errno, "%s: cannot look at the folder", dir);
		goto fail;
	}
	if ((c->tmp_dir = scs_path_dir(path)) == NULL || (c->base = strdup(scs_path_base(path))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", dir);
		goto fail;
	}
	if (strcmp(path, "/") == 0 || strcmp(c->base, ".") == 0 || strcmp(c->base, "..") == 0 || c->base[0] == '\0') {
		rc = scs_err_set(SCS_EUSAGE, "%s: cannot be replaced; give an empty or new folder", dir);
		goto fail;
	}
	if ((c->dfd = open(c->tmp_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = scs_err_errno(errno, "%s: cannot open the folder it goes in, %s", dir, c->tmp_dir);
		goto fail;
	}
	c->folder = 1;
	c->dir = path;
	*out = c;
	return SCS_OK;
fail:
	free(path);
	free(real);
	scs_commit_abort(c);
	return rc;
}

const char *
scs_commit_tmp_dir(const scs_commit *c)
{
	return c->tmp_dir;
}

/* A nameless temporary in the folder @c->dfd: O_TMPFILE, nameable through /proc. */
static int
open_nameless(scs_commit *c)
{
	int fd;

	if (c->named_temps || access("/proc/self/fd", X_OK) != 0)
		return -1;
	fd = openat(c->dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
	return fd;
}

/* A hidden named temporary, locked while we live, registered for the signal handler. */
static int
open_named(scs_commit *c, scs_sink *s)
{
	const char *stem = c->folder ? c->base : s->name;
	char *path = NULL;
	sigset_t old;
	int rc = SCS_OK;

	if (asprintf(&path, "%s/.%s.XXXXXX" TMP_SUFFIX, c->tmp_dir, stem) < 0)
		return scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", s->target);
	/* made and locked under a shared lock on the folder, so a commit's sweep never sees it unlocked,
	 * and registered before a signal handler can run, so that an interrupted run never leaves it */
	while (flock(c->dfd, LOCK_SH) < 0 && errno == EINTR)
		;
	hold_signals(&old);      /* temps_add takes the list's lock itself */
	if ((s->fd = mkostemps(path, (int)strlen(TMP_SUFFIX), O_CLOEXEC)) < 0) {
		rc = scs_err_errno(errno, "%s: cannot create a temporary file beside it", s->target);
	} else {
		flock(s->fd, LOCK_EX | LOCK_NB);
		fchmod(s->fd, 0666 & ~current_umask());
		if ((s->reg = temps_add(path)) == NULL || (s->tmp = strdup(scs_path_base(path))) == NULL) {
			unlink(path);
			rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", s->target);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	flock(c->dfd, LOCK_UN);
	free(path);
	return rc;
}

int
scs_commit_open(scs_sink **out, scs_commit *c, const char *name, scs_sink_role role)
{
	scs_sink *s;
	struct stat st;
	int rc;

	*out = NULL;
	if ((s = scs_sink_new()) == NULL)
		return scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", name);
	s->role = role;
	if ((s->name = strdup(name)) == NULL || (s->target = scs_path_join(c->dir, name)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", name);
		goto fail;
	}
	if (strchr(name, '/') || !*name) {
		rc = scs_err_set(SCS_EUSAGE, "%s: not a file name", name);
		goto fail;
	}
	/* an output replaces its target, which would turn a device, a FIFO or a socket (say /dev/null) into a file */
	if (!c->folder && fstatat(c->dfd, name, &st, 0) == 0 && !S_ISREG(st.st_mode)) {
		rc = scs_err_set(SCS_EUSAGE, "%s: exists and is not a regular file; outputs replace their target", s->target);
		goto fail;
	}
	if (scs_grow(&c->sinks, &c->cap, c->n, sizeof(*c->sinks), 8, "the commit's files") < 0) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", s->target);
		goto fail;
	}
	if ((s->fd = open_nameless(c)) < 0 && (rc = open_named(c, s)) < 0)
		goto fail;
	if (fstat(s->fd, &st) < 0) {
		rc = scs_err_errno(errno, "%s: cannot look at its temporary file", s->target);
		goto fail;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->c = c;
	c->sinks[c->n++] = s;
	*out = s;
	return SCS_OK;
fail:
	s->c = c;
	sink_free(s);
	return rc;
}

int
scs_commit_rename(scs_commit *c, scs_sink *s, const char *name)
{
	char *n, *target;
	struct stat st;

	if (strchr(name, '/') || !*name)
		return scs_err_set(SCS_EUSAGE, "%s: not a file name", name);
	if (!c->folder && fstatat(c->dfd, name, &st, 0) == 0 && !S_ISREG(st.st_mode))
		return scs_err_set(SCS_EUSAGE, "%s/%s: exists and is not a regular file; outputs replace their target",
		    c->dir, name);
	if ((n = strdup(name)) == NULL || (target = scs_path_join(c->dir, name)) == NULL) {
		free(n);
		return scs_err_set(SCS_ENOMEM, "%s: cannot allocate a name", name);
	}
	free(s->name);
	free(s->target);
	s->name = n;
	s->target = target;
	return SCS_OK;
}

void
scs_commit_drop(scs_commit *c, scs_sink *s)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->sinks[i] == s) {
			memmove(&c->sinks[i], &c->sinks[i + 1], (c->n - i - 1) * sizeof(*c->sinks));
			c->n--;
			sink_free(s);
			return;
		}
	}
}

/* ---- the commit ---- */

typedef struct run_ctx {
	scs_commit *c;
	int hooks;                /* test builds: the hooks act */
	int child;                /* 1 in the committer process */
	pid_t tool;               /* the process that runs the tool */
	unsigned step;
} run_ctx;

#ifdef SCS_TEST_HOOKS
static void
hook_note(const char *what, unsigned step)
{
	char line[160];
	int n = snprintf(line, sizeof(line), "scs4onnx: test hook: %s before commit step %u\n", what, step);

	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

/* SCS_TEST_COMMIT_DELAY_MS, SCS_TEST_KILL_AT (the tool), SCS_TEST_KILL_COMMITTER_AT, SCS_TEST_KILL_GROUP_AT. */
static void
hook(run_ctx *x)
{
	long delay = scs_sink_hook_value("SCS_TEST_COMMIT_DELAY_MS");

	if (delay > 0)
		usleep((useconds_t)delay * 1000);
	if (scs_sink_hook_value("SCS_TEST_KILL_AT") == (long)x->step) {
		hook_note("killing the tool", x->step);
		if (!x->child)
			raise(SIGKILL);
		kill(x->tool, SIGKILL);
		/* go on once the tool is gone (this process is handed to another parent then) */
		for (int i = 0; i < 10000 && getppid() == x->tool; i++)
			usleep(1000);
	}
	if (scs_sink_hook_value("SCS_TEST_KILL_COMMITTER_AT") == (long)x->step) {
		hook_note("killing the committer", x->step);
		raise(SIGKILL);
	}
	if (scs_sink_hook_value("SCS_TEST_KILL_GROUP_AT") == (long)x->step) {
		hook_note("killing the process group", x->step);
		kill(0, SIGKILL);
	}
}
#endif

/* Before every step that changes a folder. */
static void
step(run_ctx *x)
{
	x->step++;
#ifdef SCS_TEST_HOOKS
	if (x->hooks)
		hook(x);
#endif
}

/* Does @name under @dfd name the file of @s? */
static int
is_ours(int dfd, const char *name, const scs_sink *s)
{
	struct stat st;

	return name && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == s->dev && st.st_ino == s->ino;
}

/* Give the nameless file @fd the name @name under @dfd (fails with EEXIST when taken). */
static int
link_nameless(int fd, int dfd, const char *name)
{
	char via[64];

	snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, via, dfd, name, AT_SYMLINK_FOLLOW);
}

/* Give @s its name under @dfd: linked when the name is free, else linked to
 * its hidden name and renamed over the old file in one step. */
static int
place(run_ctx *x, scs_sink *s, int dfd)
{
	if (is_ours(dfd, s->name, s)) {
		if (s->hidden && is_ours(dfd, s->hidden, s)) {
			step(x);
			unlinkat(dfd, s->hidden, 0);
		}
		return SCS_OK;
	}
	if (s->tmp) {
		step(x);
		if (renameat(x->c->dfd, s->tmp, dfd, s->name) < 0)
			return scs_err_errno(errno, "%s: cannot rename into place", s->target);
		return SCS_OK;
	}
	if (!is_ours(dfd, s->hidden, s)) {
		if (!s->existed || s->hidden == NULL) {
			step(x);
			if (link_nameless(s->fd, dfd, s->name) == 0)
				return SCS_OK;
			if (errno != EEXIST || s->hidden == NULL)
				return scs_err_errno(errno, "%s: cannot link into place", s->target);
		}
		step(x);
		if (link_nameless(s->fd, dfd, s->hidden) < 0)
			return scs_err_errno(errno, "%s: cannot link beside it", s->target);
	}
	step(x);
	if (renameat(dfd, s->hidden, dfd, s->name) < 0)
		return scs_err_errno(errno, "%s: cannot rename into place", s->target);
	return SCS_OK;
}

/* The sink whose naming is the switch: the model, else the last one named. */
static scs_sink *
switch_sink(const scs_commit *c)
{
	scs_sink *last = NULL;

	for (size_t i = 0; i < c->n; i++) {
		if (c->sinks[i]->role == SCS_SINK_MODEL)
			return c->sinks[i];
		if (last == NULL || c->sinks[i]->role >= last->role)
			last = c->sinks[i];
	}
	return last;
}

/* Has the switch happened (by this commit's committer or by anyone finishing it)? */
static int
switched(const scs_commit *c)
{
	struct stat st;
	int fd, done;

	if (!c->folder)
		return c->n == 0 || is_ours(c->dfd, switch_sink(c)->name, switch_sink(c));
	if (c->n == 0)
		return fstatat(c->dfd, c->hidden_dir, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		    fstatat(c->dfd, c->base, &st, 0) == 0;
	if ((fd = openat(c->dfd, c->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	done = is_ours(fd, c->sinks[0]->name, c->sinks[0]);
	close(fd);
	return done;
}

/* Files: the files of their own, then the data file, then the model. */
static int
place_files(run_ctx *x)
{
	scs_commit *c = x->c;
	int rc;

	for (int role = SCS_SINK_FILE; role <= SCS_SINK_MODEL; role++)
		for (size_t i = 0; i < c->n; i++)
			if ((int)c->sinks[i]->role == role && (rc = place(x, c->sinks[i], c->dfd)) < 0)
				return rc;
	return SCS_OK;
}

/* A folder: every file into the hidden folder, which is synced and renamed over the target. */
static int
build_folder(run_ctx *x)
{
	scs_commit *c = x->c;
	int hfd, rc = SCS_OK;

	step(x);
	if (mkdirat(c->dfd, c->hidden_dir, 0777) < 0 && errno != EEXIST)
		return scs_err_errno(errno, "%s: cannot create a folder beside it", c->dir);
	if ((hfd = openat(c->dfd, c->hidden_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return scs_err_errno(errno, "%s: cannot open the folder made beside it", c->dir);
	for (size_t i = 0; rc == SCS_OK && i < c->n; i++)
		rc = place(x, c->sinks[i], hfd);
	if (rc == SCS_OK) {
		step(x);
		if (fsync(hfd) < 0)
			rc = scs_err_errno(errno, "%s: fsync of the new folder failed", c->dir);
	}
	close(hfd);
	if (rc < 0)
		return rc;
	step(x);
	if (renameat(c->dfd, c->hidden_dir, c->dfd, c->base) < 0) {
		if (errno == ENOTEMPTY || errno == EEXIST)
			return scs_err_set(SCS_EUSAGE, "%s: the folder is not empty any more; nothing was written", c->dir);
		return scs_err_errno(errno, "%s: cannot rename the new folder into place", c->dir);
	}
	return SCS_OK;
}

/* Undo what a failed commit named before its switch. */
static void
roll_back(scs_commit *c)
{
	int hfd;

	if (c->folder) {
		if ((hfd = openat(c->dfd, c->hidden_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			for (size_t i = 0; i < c->n; i++)
				if (is_ours(hfd, c->sinks[i]->name, c->sinks[i]))
					unlinkat(hfd, c->sinks[i]->name, 0);
			close(hfd);
		}
		unlinkat(c->dfd, c->hidden_dir, AT_REMOVEDIR);
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		scs_sink *s = c->sinks[i];

		if (is_ours(c->dfd, s->hidden, s))
			unlinkat(c->dfd, s->hidden, 0);
		/* a name that was taken keeps its new file: a data file holds what the old one held */
		if (!s->existed && is_ours(c->dfd, s->name, s))
			unlinkat(c->dfd, s->name, 0);
	}
}

/* The naming steps, from wherever they stand; also after a committer died. */
static int
execute(run_ctx *x)
{
	scs_commit *c = x->c;
	int rc;

	if (!switched(c)) {
		if ((rc = c->folder ? build_folder(x) : place_files(x)) < 0) {
			roll_back(c);
			return rc;
		}
	}
	/* what the old output and killed runs left: files first, then their folders */
	for (size_t i = 0; i < c->n_stale; i++) {
		step(x);
		unlinkat(c->dfd, c->stale[i], 0);
	}
	for (size_t i = 0; i < c->n_stale_dirs; i++) {
		step(x);
		unlinkat(c->dfd, c->stale_dirs[i], AT_REMOVEDIR);
	}
	step(x);
	if (fsync(c->dfd) < 0 && errno != EINVAL)
		return scs_err_errno(errno, "%s: written, but its folder could not be synced",
		    c->folder ? c->dir : switch_sink(c)->target);
	return SCS_OK;
}

static int
add_name(char ***list, size_t *n, const char *a, const char *b)
{
	char **grown = realloc(*list, (*n + 1) * sizeof(**list));

	if (grown == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the commit plan");
	*list = grown;
	if ((grown[*n] = b ? scs_path_join(a, b) : strdup(a)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate the commit plan");
	(*n)++;
	return SCS_OK;
}

/* A hidden temporary under @dfd whose writer is gone: nobody holds its lock. */
static int
unlocked(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), free_;

	if (fd < 0)
		return 0;
	free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_;
}

/* A hidden folder a killed commit left: its files, then itself. */
static int
add_stale_dir(scs_commit *c, const char *name)
{
	int fd = openat(c->dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc = SCS_OK;
	struct dirent *e;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return SCS_OK;
	}
	while (rc == SCS_OK && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			rc = add_name(&c->stale, &c->n_stale, name, e->d_name);
	closedir(d);
	return rc < 0 ? rc : add_name(&c->stale_dirs, &c->n_stale_dirs, name, NULL);
}

/* Is @entry something the commit removes after its switch? */
static int
is_stale(scs_commit *c, const char *entry, unsigned char type)
{
	const scs_sink *model = NULL;
	char *spill;
	int data = 0;

	if (c->folder) {
		if (is_hidden_of(c->base, entry, TMP_SUFFIX))
			return unlocked(c->dfd, entry);
		return 0;
	}
	for (size_t i = 0; i < c->n; i++) {
		const scs_sink *s = c->sinks[i];

		if (is_hidden_of(s->name, entry, TMP_SUFFIX) && !is_ours(c->dfd, entry, s) && unlocked(c->dfd, entry))
			return 1;
		if (s->role == SCS_SINK_MODEL)
			model = s;
		if (s->role == SCS_SINK_DATA && strcmp(entry, s->name) == 0)
			data = 1;
	}
	if (model == NULL)
		return 0;
	/* a killed run's spill (its temporary, where there is no O_TMPFILE), whatever name it was to take */
	if ((spill = scs_sink_spill_name(model->name)) != NULL) {
		int hidden = is_hidden_of(spill, entry, TMP_SUFFIX);

		free(spill);
		if (hidden) {
			for (size_t i = 0; i < c->n; i++)
				if (is_ours(c->dfd, entry, c->sinks[i]))
					return 0;
			return unlocked(c->dfd, entry);
		}
	}
	/* the data files of the model's name it does not use (any of its own): the old model's, or a killed run's */
	return (type == DT_REG || type == DT_UNKNOWN) && scs_sink_is_data_of(model->name, entry) && !data;
}

/* Under the lock: hidden names, which names are taken, and what to remove after the switch. */
static int
plan(scs_commit *c)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd, rc = SCS_OK;

	if (c->folder) {
		if (fstatat(c->dfd, c->base, &st, 0) == 0) {
			if (!S_ISDIR(st.st_mode))
				return scs_err_set(SCS_EUSAGE, "%s: exists and is not a folder", c->dir);
			if ((fd = openat(c->dfd, c->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
				return scs_err_errno(errno, "%s: cannot open the folder", c->dir);
			if ((rc = folder_empty(fd, c->dir)) < 0)
				return rc;
			if (rc == 0)
				return scs_err_set(SCS_EUSAGE, "%s: the folder is not empty any more; nothing was written", c->dir);
			rc = SCS_OK;
		}
		do {
			free(c->hidden_dir);
			if ((c->hidden_dir = hidden_name(c->base, DIR_SUFFIX)) == NULL)
				return scs_err_set(SCS_ENOMEM, "cannot allocate the commit plan");
		} while (fstatat(c->dfd, c->hidden_dir, &st, AT_SYMLINK_NOFOLLOW) == 0);
	}
	for (size_t i = 0; !c->folder && i < c->n; i++) {
		scs_sink *s = c->sinks[i];

		s->existed = fstatat(c->dfd, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
		if (s->tmp)
			continue;
		do {
			free(s->hidden);
			if ((s->hidden = hidden_name(s->name, TMP_SUFFIX)) == NULL)
				return scs_err_set(SCS_ENOMEM, "cannot allocate the commit plan");
		} while (fstatat(c->dfd, s->hidden, &st, AT_SYMLINK_NOFOLLOW) == 0);
	}
	if ((fd = openat(c->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || (d = fdopendir(fd)) == NULL) {
		rc = scs_err_errno(errno, "%s: cannot list the folder", c->tmp_dir);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (rc == SCS_OK && (e = readdir(d)) != NULL) {
		if (c->folder && is_hidden_of(c->base, e->d_name, DIR_SUFFIX))
			rc = add_stale_dir(c, e->d_name);
		else if (is_stale(c, e->d_name, e->d_type))
			rc = add_name(&c->stale, &c->n_stale, e->d_name, NULL);
	}
	closedir(d);
	return rc;
}

static int
write_full(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		if ((n = write(fd, p, len)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Run the steps in a child process, so that killing the tool cannot stop a
 * commit half way; when the child dies first, finish here.
 */
static int
run_guarded(scs_commit *c)
{
	run_ctx x = { c, 1, 0, getpid(), 0 };
	struct { int32_t rc; char msg[1024]; } answer;
	size_t got = 0;
	ssize_t n;
	int p[2], status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return execute(&x);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return execute(&x);
	}
	if (pid == 0) {
		sigset_t all;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, NULL);
		close(p[0]);
		x.child = 1;
		answer.rc = execute(&x);
		snprintf(answer.msg, sizeof(answer.msg), "%s", answer.rc < 0 ? scs_err_msg() : "");
		write_full(p[1], &answer, sizeof(answer.rc) + strlen(answer.msg));
		_exit(0);
	}
	close(p[1]);
	while (got < sizeof(answer) - 1) {
		n = read(p[0], (char *)&answer + got, sizeof(answer) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got >= sizeof(answer.rc)) {
		((char *)&answer)[got] = '\0';
		if (answer.rc < 0)
			return scs_err_set(answer.rc, "%s", answer.msg);
		return SCS_OK;
	}
	/* the committer died before it answered: its steps are done again, from where they stand */
	x.hooks = 0;
	return execute(&x);
}

int
scs_commit_run(scs_commit *c)
{
	sigset_t stop, old;
	int rc = SCS_OK, locked;

	for (size_t i = 0; rc == SCS_OK && i < c->n; i++) {
		if ((rc = scs_sink_flush(c->sinks[i])) < 0)
			break;
		if (fsync(c->sinks[i]->fd) < 0)
			rc = scs_err_errno(errno, "%s: fsync failed", c->sinks[i]->target);
	}
	if (rc < 0) {
		commit_free(c);
		return rc;
	}
	/* commits into one folder take turns; a filesystem without flock goes without */
	while ((locked = flock(c->dfd, LOCK_EX)) < 0 && errno == EINTR)
		;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if ((rc = plan(c)) == SCS_OK)
		rc = run_guarded(c);
	/* the named temporaries have their names now, or are removed with the sinks */
	for (size_t i = 0; i < c->n; i++) {
		scs_sink *s = c->sinks[i];

		if (rc == SCS_OK) {
			free(s->tmp);
			s->tmp = NULL;
		}
	}
	if (locked == 0)
		flock(c->dfd, LOCK_UN);
	commit_free(c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
