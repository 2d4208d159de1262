/*
 * source.c: input files (see source.h). Reads loop over short counts and
 * EINTR; sizes are 64-bit; nothing here maps a whole input.
 */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"

struct scs_source {
	int fd;
	uint64_t size;
	dev_t dev;
	ino_t ino;
	char *path;
};

int
scs_source_open(scs_source **out, const char *path)
{
	scs_source *src;
	struct stat st;
	int rc;

	*out = NULL;
	if ((src = calloc(1, sizeof(*src))) == NULL)
		return scs_err_set(SCS_ENOMEM, "%s: cannot allocate a reader", path);
	src->fd = -1;
	if ((src->path = strdup(path)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a reader", path);
		goto fail;
	}
	/* O_NONBLOCK: a FIFO is refused below instead of waiting for a writer
	 * (on a regular file it changes nothing) */
	if ((src->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		rc = scs_err_errno(errno, "%s: cannot open", path);
		goto fail;
	}
	if (fstat(src->fd, &st) < 0) {
		rc = scs_err_errno(errno, "%s: cannot stat", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = scs_err_set(SCS_EIO, "%s: not a regular file", path);
		goto fail;
	}
	src->size = (uint64_t)st.st_size;
	src->dev = st.st_dev;
	src->ino = st.st_ino;
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
	if (src->fd >= 0)
		close(src->fd);
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
scs_source_fd(const scs_source *src)
{
	return src->fd;
}

int
scs_source_read(scs_source *src, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	ssize_t n;

	if (off > src->size || len > src->size - off)
		return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: %zu bytes wanted, file ends at %llu",
		    src->path, (unsigned long long)off, len, (unsigned long long)src->size);
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
scs_source_is(const scs_source *src, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	return st.st_dev == src->dev && st.st_ino == src->ino;
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
		rc = scs_err_set(SCS_ECORRUPT, "external data file '%s' is missing (%s)", location,
		    strerror(errno));
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

char *
scs_path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

const char *
scs_path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

char *
scs_path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p;

	if ((p = malloc(a + b + 2)) == NULL)
		return NULL;
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}
