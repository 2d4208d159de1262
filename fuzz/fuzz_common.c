/*
 * fuzz_common.c: the private folder and the contract the libFuzzer targets
 * share (see fuzz_common.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_LEN 32768                  /* each external-data file */

char root[4096];
char in_path[FUZZ_PATH_MAX], out_dir[FUZZ_PATH_MAX], shard_dir[FUZZ_PATH_MAX], work_dir[FUZZ_PATH_MAX];

void
die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz: contract broken: %s: %s\n", what, detail);
	abort();
}

void
path_at(char *out, size_t cap, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, cap, "%s/%s", dir, name) >= cap)
		die("path too long", name);
}

/*
 * Descriptors open on anything in the private folder: the library's own
 * (the sanitizers' symbolizer pipes and libFuzzer's files are elsewhere).
 * With @show, list them on stderr.
 */
static int
count_fds(int show)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[64], target[4096];
	size_t root_len = strlen(root);
	ssize_t n;
	int count = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, root, root_len) == 0 && (target[root_len] == '/' || target[root_len] == '\0')) {
			count++;
			if (show)
				fprintf(stderr, "fuzz: descriptor %s is open on %s\n", e->d_name, target);
		}
	}
	closedir(d);
	return count;
}

void
empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4400];
	struct stat st;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		path_at(path, sizeof(path), dir, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			empty_dir(path);
			rmdir(path);
		} else {
			unlink(path);
		}
	}
	closedir(d);
}

/* A temporary name (".name...") left in @dir by the library. */
static void
expect_no_temporaries(const char *dir, const char *call)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			char what[256];

			snprintf(what, sizeof(what), "%s left a temporary in %s", call, dir);
			closedir(d);
			die(what, e->d_name);
		}
	closedir(d);
}

static void
remove_root(void)
{
	if (root[0] == '\0')
		return;
	empty_dir(root);
	rmdir(root);
	root[0] = '\0';
}

void
write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const uint8_t *p = data;

	if (fd < 0)
		die("cannot create", path);
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("cannot write", path);
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

int
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

void
fuzz_setup(void)
{
	const char *parent = getenv("SCS_FUZZ_TMP");
	static uint8_t bytes[DATA_LEN];
	char path[FUZZ_PATH_MAX];

	if (parent == NULL)
		parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	if (parent == NULL)
		parent = "/tmp";
	path_at(root, sizeof(root), parent, "scs-fuzz.XXXXXX");
	if (mkdtemp(root) == NULL)
		die("cannot make the private folder", root);
	atexit(remove_root);
	path_at(in_path, sizeof(in_path), root, "in.onnx");
	path_at(out_dir, sizeof(out_dir), root, "out");
	path_at(shard_dir, sizeof(shard_dir), root, "shards");
	path_at(work_dir, sizeof(work_dir), root, "work");
	if (mkdir(out_dir, 0777) < 0)
		die("cannot make", out_dir);
	/* varied bytes, so that tensors read from them differ from each other */
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 2654435761u >> 13);
	path_at(path, sizeof(path), root, "external_a.bin");
	write_file(path, bytes, sizeof(bytes));
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i / 7);
	path_at(path, sizeof(path), root, "external_b.bin");
	write_file(path, bytes, sizeof(bytes));
}

void
expect_contract(const char *call, int rc, const char *target)
{
	const char *msg = scs_err_msg();
	char again[FUZZ_PATH_MAX];

	if (rc > 0)
		die(call, "returned a positive code");
	if (rc == SCS_ENOMEM)
		die(call, msg);
	if (rc < 0) {
		if (msg[0] == '\0')
			die(call, "failed without a message");
		if (strchr(msg, '\n'))
			die(call, "the message is more than one line");
		if (target && exists(target))
			die(call, "failed but wrote its target");
	} else if (target && !exists(target)) {
		die(call, "succeeded without writing its target");
	}
	path_at(again, sizeof(again), out_dir, "again");
	expect_no_temporaries(root, call);
	expect_no_temporaries(out_dir, call);
	expect_no_temporaries(again, call);
	expect_no_temporaries(shard_dir, call);
	expect_no_temporaries(work_dir, call);
	if (count_fds(0) > 0) {
		count_fds(1);
		die(call, "a file descriptor was left open");
	}
}

uint8_t *
read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = NULL;
	struct stat st;
	size_t got = 0;

	*len = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1)) != NULL) {
		while (got < (size_t)st.st_size) {
			ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		*len = got;
	}
	close(fd);
	return buf;
}

void
path_again(char *out, size_t cap, const char *once)
{
	char dir[FUZZ_PATH_MAX];
	const char *slash = strrchr(once, '/');

	path_at(dir, sizeof(dir), out_dir, "again");
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		die("cannot make", dir);
	path_at(out, cap, dir, slash ? slash + 1 : once);
}

int
same_bytes(const char *a, const char *b)
{
	size_t a_len, b_len;
	uint8_t *da = read_file(a, &a_len), *db = read_file(b, &b_len);
	int same = da && db && a_len == b_len && memcmp(da, db, a_len) == 0;

	free(da);
	free(db);
	return same;
}

void
finish(const char *call, int rc, scs_report *rep, const char *target)
{
	scs_report_dispose(rep);
	expect_contract(call, rc, target);
}
