/*
 * source.c: input files (see source.h). Reads loop over short counts and
 * EINTR; sizes are 64-bit; nothing here maps a whole input. A pool keeps
 * its open sources on a list, most recently used first, and closes the
 * last one's descriptor when it needs one more than its bound (or when the
 * process runs out of descriptors).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/path.h"

struct scs_source {
	int fd;                   /* -1 while its pool has let it go */
	uint64_t size;
	dev_t dev;
	ino_t ino;
	char *path;
	scs_source_pool *pool;    /* NULL: the descriptor stays open */
	scs_source *newer, *older; /* on the pool's list while fd >= 0 */
};

struct scs_source_pool {
	size_t max_open, n_open;
	scs_source *newest, *oldest;
};

int
scs_source_pool_new(scs_source_pool **out, size_t max_open)
{
	if ((*out = calloc(1, sizeof(**out))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a file pool");
	(*out)->max_open = max_open ? max_open : 1;
	return SCS_OK;
}

void
scs_source_pool_free(scs_source_pool *pool)
{
	free(pool);
}

static void
unlink_open(scs_source *src)
{
	scs_source_pool *pool = src->pool;

	if (src->newer)
		src->newer->older = src->older;
	else
		pool->newest = src->older;
	if (src->older)
		src->older->newer = src->newer;
	else
		pool->oldest = src->newer;
	src->newer = src->older = NULL;
	pool->n_open--;
}

static void
link_newest(scs_source *src)
{
	scs_source_pool *pool = src->pool;

	src->older = pool->newest;
	src->newer = NULL;
	if (pool->newest)
		pool->newest->newer = src;
	else
		pool->oldest = src;
	pool->newest = src;
	pool->n_open++;
}

/* Let the least recently used descriptor of @pool go; 0 when none is open. */
static int
let_oldest_go(scs_source_pool *pool)
{
	scs_source *old = pool->oldest;

	if (old == NULL)
		return 0;
	unlink_open(old);
	close(old->fd);
	old->fd = -1;
	return 1;
}

/*
 * Open src->path and check what is there: a regular file, and when @again,
 * the file it was (same device, inode and size).
 */
static int
open_file(scs_source *src, int again)
{
	struct stat st;
	int fd;

	if (src->pool)
		while (src->pool->n_open >= src->pool->max_open && let_oldest_go(src->pool))
			;
	/* O_NONBLOCK: a FIFO is refused below instead of waiting for a writer
	 * (on a regular file it changes nothing) */
	while ((fd = open(src->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		if ((errno != EMFILE && errno != ENFILE) || src->pool == NULL || !let_oldest_go(src->pool))
			return scs_err_errno(errno, "%s: cannot open", src->path);
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return scs_err_errno(errno, "%s: cannot stat", src->path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return scs_err_set(SCS_EIO, "%s: not a regular file", src->path);
	}
	if (again && (st.st_dev != src->dev || st.st_ino != src->ino || (uint64_t)st.st_size != src->size)) {
		close(fd);
		return scs_err_set(SCS_EIO, "%s: the file changed while it was read (another file, or another size, is there now)",
		    src->path);
	}
	src->fd = fd;
	src->size = (uint64_t)st.st_size;
	src->dev = st.st_dev;
	src->ino = st.st_ino;
	if (src->pool)
		link_newest(src);
	return SCS_OK;
}

/* Make src->fd usable, and the pool's most recently used. */
static int
touch(scs_source *src)
{
	if (src->pool == NULL)
		return SCS_OK;
	if (src->fd < 0)
		return open_file(src, 1);
	if (src->pool->newest != src) {
		unlink_open(src);
		link_newest(src);
	}
	return SCS_OK;
}

int
scs_source_open_in(scs_source **out, const char *path, scs_source_pool *pool)
{
	scs_source *src;
	int rc;

	*out = NULL;
	if ((src = calloc(1, sizeof(*src))) == NULL)
		return scs_err_set(SCS_ENOMEM, "%s: cannot allocate a reader", path);
	src->fd = -1;
	src->pool = pool;
	if ((src->path = strdup(path)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a reader", path);
		goto fail;
	}
	if ((rc = open_file(src, 0)) < 0)
		goto fail;
	*out = src;
	return SCS_OK;
fail:
	scs_source_close(src);
	return rc;
}

void
scs_source_close(scs_source *src)
{
	if (src == NULL)
		return;
	if (src->fd >= 0) {
		if (src->pool)
			unlink_open(src);
		close(src->fd);
	}
	free(src->path);
	free(src);
}

uint64_t
scs_source_size(const scs_source *src)
{
	return src->size;
}

const char *
scs_source_path(const scs_source *src)
{
	return src->path;
}

int
scs_source_fd(scs_source *src)
{
	int rc;

	if ((rc = touch(src)) < 0)
		return rc;
	return src->fd;
}

int
scs_source_read(scs_source *src, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	ssize_t n;
	int rc;

	if (off > src->size || len > src->size - off)
		return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: %zu bytes wanted, file ends at %llu",
		    src->path, (unsigned long long)off, len, (unsigned long long)src->size);
	if ((rc = touch(src)) < 0)
		return rc;
	while (len) {
		n = pread(src->fd, p, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return scs_err_errno(errno, "%s: offset %llu: read failed", src->path,
			    (unsigned long long)off);
		}
		if (n == 0)
			return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: file shrank while reading",
			    src->path, (unsigned long long)off);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return SCS_OK;
}

int
scs_source_is_file(const scs_source *src, uint64_t dev, uint64_t ino)
{
	return (uint64_t)src->dev == dev && (uint64_t)src->ino == ino;
}

static int
has_dotdot(const char *loc)
{
	const char *p = loc;

	while (*p) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\\' || p[2] == '\0'))
			return 1;
		while (*p && *p != '/' && *p != '\\')
			p++;
		while (*p == '/' || *p == '\\')
			p++;
	}
	return 0;
}

int
scs_source_resolve_external(char **out, const char *dir, const char *location)
{
	char *joined = NULL, *real = NULL, *realdir = NULL;
	size_t n;
	int rc;

	*out = NULL;
	if (location[0] == '\0')
		return scs_err_set(SCS_ECORRUPT, "external data location is empty");
	if (location[0] == '/' || location[0] == '\\' || (location[0] && location[1] == ':'))
		return scs_err_set(SCS_ECORRUPT, "external data location '%s' is absolute", location);
	if (has_dotdot(location))
		return scs_err_set(SCS_ECORRUPT, "external data location '%s' contains '..'", location);
	if ((joined = scs_path_join(dir, location)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if ((realdir = realpath(dir, NULL)) == NULL) {
		rc = scs_err_errno(errno, "%s: cannot resolve the model's folder", dir);
		goto done;
	}
	if ((real = realpath(joined, NULL)) == NULL) {
		rc = scs_err_set(SCS_ECORRUPT, "external data file '%s' is missing from the folder '%s' (%s)", location,
		    dir, strerror(errno));
		goto done;
	}
	n = strlen(realdir);
	if (strncmp(real, realdir, n) != 0 || (real[n] != '/' && !(n == 1 && realdir[0] == '/'))) {
		rc = scs_err_set(SCS_ECORRUPT, "external data location '%s' resolves outside the model's folder",
		    location);
		goto done;
	}
	*out = joined;
	joined = NULL;
	rc = SCS_OK;
done:
	free(joined);
	free(real);
	free(realdir);
	return rc;
}
