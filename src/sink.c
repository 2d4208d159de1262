/*
 * sink.c: atomic outputs (see sink.h). The only file that writes or renames
 * files at a user's target path.
 */
#include "sink.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "source.h"

#define SINK_BUF_LEN (1u << 20)
#define MAX_TEMPS 64

/* Registered temporaries; a slot is claimed by writing its path before its flag. */
static struct {
	char path[4096];
	volatile sig_atomic_t used;   /* 0 free, 1 file, 2 folder */
} temps[MAX_TEMPS];

void
scs_temps_register(const char *path, int is_dir)
{
	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temps[i].used || strlen(path) >= sizeof(temps[i].path))
			continue;
		memcpy(temps[i].path, path, strlen(path) + 1);
		temps[i].used = is_dir ? 2 : 1;
		return;
	}
}

void
scs_temps_unregister(const char *path)
{
	for (int i = 0; i < MAX_TEMPS; i++)
		if (temps[i].used && strcmp(temps[i].path, path) == 0)
			temps[i].used = 0;
}

void
scs_temps_remove_all(void)
{
	char name[4096 + 16];
	size_t n;

	for (int i = 0; i < MAX_TEMPS; i++) {
		if (temps[i].used == 1) {
			unlink(temps[i].path);
		} else if (temps[i].used == 2) {
			/* a temporary store holds LMDB's two files */
			n = strlen(temps[i].path);
			memcpy(name, temps[i].path, n);
			memcpy(name + n, "/data.mdb", 10);
			unlink(name);
			memcpy(name + n, "/lock.mdb", 10);
			unlink(name);
			rmdir(temps[i].path);
		}
		temps[i].used = 0;
	}
}

struct scs_sink {
	int fd;
	char *target;
	char *tmp;
	uint8_t *buf;
	size_t n_buf;
	uint64_t pos;
	int status;
};

static mode_t
current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

static char *
sibling_name(const char *target, const char *tag)
{
	char *dir, *name;
	size_t len;

	if ((dir = scs_path_dir(target)) == NULL)
		return NULL;
	len = strlen(dir) + strlen(scs_path_base(target)) + strlen(tag) + 16;
	if ((name = malloc(len)) != NULL)
		snprintf(name, len, "%s/.%s.%sXXXXXX", dir, scs_path_base(target), tag);
	free(dir);
	return name;
}

int
scs_sink_open(scs_sink **out, const char *target)
{
	struct stat st;
	scs_sink *s;
	int rc;

	*out = NULL;
	/*
	 * The output replaces its target by rename, which would turn a device,
	 * a FIFO or a socket (say /dev/null) into a plain file for everyone.
	 */
	if (stat(target, &st) == 0 && !S_ISREG(st.st_mode))
		return scs_err_set(SCS_EUSAGE, "%s: exists and is not a regular file; outputs replace their target", target);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", target);
	s->fd = -1;
	if ((s->target = strdup(target)) == NULL || (s->tmp = sibling_name(target, "tmp")) == NULL ||
	    (s->buf = malloc(SINK_BUF_LEN)) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a writer", target);
		goto fail;
	}
	if ((s->fd = mkostemp(s->tmp, O_CLOEXEC)) < 0) {
		rc = scs_err_errno(errno, "%s: cannot create a temporary file beside it", target);
		free(s->tmp);
		s->tmp = NULL;
		goto fail;
	}
	fchmod(s->fd, 0666 & ~current_umask());
	scs_temps_register(s->tmp, 0);
	*out = s;
	return SCS_OK;
fail:
	scs_sink_abort(s);
	return rc;
}

static int
write_all(scs_sink *s, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(s->fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return s->status = scs_err_errno(errno, "%s: write failed", s->target);
		}
		p += n;
		len -= (size_t)n;
	}
	return SCS_OK;
}

static int
flush(scs_sink *s)
{
	int rc;

	if (s->status < 0)
		return s->status;
	rc = write_all(s, s->buf, s->n_buf);
	s->n_buf = 0;
	return rc;
}

int
scs_sink_write(scs_sink *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t take;

	if (s->status < 0)
		return s->status;
	if (s->buf == NULL)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: written after it was parked", s->target);
	s->pos += len;
	if (len >= SINK_BUF_LEN) {
		if (flush(s) < 0)
			return s->status;
		return write_all(s, p, len);
	}
	while (len) {
		take = SINK_BUF_LEN - s->n_buf;
		if (take > len)
			take = len;
		memcpy(s->buf + s->n_buf, p, take);
		s->n_buf += take;
		p += take;
		len -= take;
		if (s->n_buf == SINK_BUF_LEN && flush(s) < 0)
			return s->status;
	}
	return SCS_OK;
}

int
scs_sink_copy_fd(scs_sink *s, int fd, uint64_t off, uint64_t len)
{
	loff_t in_off = (loff_t)off;
	ssize_t n;
	size_t take;

	if (s->status < 0 || flush(s) < 0)
		return s->status;
	while (len) {
		take = len > (1u << 30) ? (1u << 30) : (size_t)len;
		n = copy_file_range(fd, &in_off, s->fd, NULL, take, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;    /* not supported here, or the source ended: fall back */
		len -= (uint64_t)n;
		s->pos += (uint64_t)n;
	}
	while (len) {
		take = len > SINK_BUF_LEN ? SINK_BUF_LEN : (size_t)len;
		n = pread(fd, s->buf, take, in_off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return s->status = scs_err_errno(errno, "%s: reading input at offset %lld",
			    s->target, (long long)in_off);
		if (n == 0)
			return s->status = scs_err_set(SCS_ECORRUPT,
			    "%s: input ended at offset %lld while copying", s->target, (long long)in_off);
		if (write_all(s, s->buf, (size_t)n) < 0)
			return s->status;
		in_off += n;
		len -= (uint64_t)n;
		s->pos += (uint64_t)n;
	}
	return SCS_OK;
}

int
scs_sink_pad_to(scs_sink *s, uint64_t pos)
{
	static const uint8_t zeros[4096];
	uint64_t gap;

	while (s->status == SCS_OK && s->pos < pos) {
		gap = pos - s->pos;
		scs_sink_write(s, zeros, gap > sizeof(zeros) ? sizeof(zeros) : (size_t)gap);
	}
	return s->status;
}

int
scs_sink_park(scs_sink *s)
{
	int rc = flush(s);

	free(s->buf);
	s->buf = NULL;
	return rc;
}

uint64_t
scs_sink_pos(const scs_sink *s)
{
	return s->pos;
}

int
scs_sink_status(const scs_sink *s)
{
	return s->status;
}

const char *
scs_sink_target(const scs_sink *s)
{
	return s->target;
}

void
scs_sink_abort(scs_sink *s)
{
	if (s == NULL)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->tmp) {
		unlink(s->tmp);
		scs_temps_unregister(s->tmp);
	}
	free(s->tmp);
	free(s->target);
	free(s->buf);
	free(s);
}

int
scs_sink_commit(scs_sink **sinks, size_t n)
{
	char **aside;
	size_t i, done = 0;
	int rc = SCS_OK, fd;

	if ((aside = calloc(n ? n : 1, sizeof(*aside))) == NULL)
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the commit list");
	for (i = 0; rc == SCS_OK && i < n; i++) {
		if ((rc = flush(sinks[i])) < 0)
			break;
		if (fsync(sinks[i]->fd) < 0)
			rc = scs_err_errno(errno, "%s: fsync failed", sinks[i]->target);
	}
	/* keep each existing target under a hidden name until every rename worked */
	for (i = 0; rc == SCS_OK && i < n; i++) {
		if ((aside[i] = sibling_name(sinks[i]->target, "old")) == NULL) {
			rc = scs_err_set(SCS_ENOMEM, "cannot allocate a path");
			break;
		}
		if ((fd = mkstemp(aside[i])) < 0) {
			rc = scs_err_errno(errno, "%s: cannot reserve a name beside it", sinks[i]->target);
			free(aside[i]);
			aside[i] = NULL;
			break;
		}
		close(fd);
		if (rename(sinks[i]->target, aside[i]) < 0) {
			unlink(aside[i]);
			free(aside[i]);
			aside[i] = NULL;
			if (errno != ENOENT)
				rc = scs_err_errno(errno, "%s: cannot set the old file aside", sinks[i]->target);
		}
	}
	for (done = 0; rc == SCS_OK && done < n; done++)
		if (rename(sinks[done]->tmp, sinks[done]->target) < 0)
			rc = scs_err_errno(errno, "%s: cannot rename into place", sinks[done]->target);
	for (i = 0; i < n; i++) {
		if (rc < 0 && i < done)
			unlink(sinks[i]->target);
		if (aside && aside[i]) {
			if (rc < 0)
				rename(aside[i], sinks[i]->target);
			else
				unlink(aside[i]);
			free(aside[i]);
		}
		if (rc == SCS_OK || i < done) {
			scs_temps_unregister(sinks[i]->tmp);
			free(sinks[i]->tmp);
			sinks[i]->tmp = NULL;
		}
		scs_sink_abort(sinks[i]);
	}
	free(aside);
	return rc;
}
