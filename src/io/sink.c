/*
 * sink.c: the byte path of an output (see sink.h): a sink's buffer, its
 * writes through the page cache with the drop behind them, and the
 * kernel's copies. Which file a sink writes, and the name the file gets,
 * are its commit's (commit.c).
 *
 * Test builds (SCS_TEST_HOOKS: the library the test suite links, and its
 * copies of the tools) read SCS_TEST_WRITEBACK_STEP and SCS_TEST_SINK_BUF
 * in this file to drop behind in smaller steps, with a smaller buffer;
 * installed tools and the library have none of it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/err.h"
#include "io/sink_impl.h"

#define SINK_BUF_LEN (1u << 20)

/*
 * Behind the writes. A large output goes through the page cache, and the
 * sink keeps only its last steps of WRITEBACK_STEP bytes there: every step
 * it asks the kernel to start writing the new step to the disk, waits for
 * the step before to be written, then drops that step's pages
 * (POSIX_FADV_DONTNEED). So the disk works while the run goes on, the
 * fsync of the commit waits for the writeback of two steps at most, the
 * output does not push the input's pages out of the cache, and the run
 * writes into pages the cache has just freed rather than fresh ones. Fresh
 * pages were the cost before: a multi-GiB output written through the cache
 * spent most of its time copying into pages the machine had never used (on
 * a virtual machine each one first faults on the host), and writes past the
 * cache (O_DIRECT, which the sink used before) waited for the disk at each
 * buffer; dropping behind is faster than either, in a memory cgroup smaller
 * than the file and outside one (docs/BENCHMARKS.md). Unchanged payloads
 * are copied by the kernel (copy_file_range, which shares the blocks where
 * the filesystem can), in steps too. Best effort: the fsync of the commit
 * reports what fails.
 */
#define WRITEBACK_STEP ((uint64_t)64 << 20)

/* The unit of scs_sink_cut() and scs_sink_open_gap(). */
#define BLOCK_ALIGN ((uint64_t)4096)

#ifdef SCS_TEST_HOOKS
long
scs_sink_hook_value(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : 0;
}
#endif

/* ---- a new sink ---- */

scs_sink *
scs_sink_new(void)
{
	scs_sink *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->fd = -1;
	s->cap = SINK_BUF_LEN;
	s->step = WRITEBACK_STEP;
#ifdef SCS_TEST_HOOKS
	/* tests drop behind in smaller steps (SCS_TEST_WRITEBACK_STEP bytes) and with a smaller buffer
	 * (SCS_TEST_SINK_BUF), so that a few MiB take many steps */
	if (scs_sink_hook_value("SCS_TEST_WRITEBACK_STEP") > 0)
		s->step = (uint64_t)scs_sink_hook_value("SCS_TEST_WRITEBACK_STEP");
	if (scs_sink_hook_value("SCS_TEST_SINK_BUF") > 0 && scs_sink_hook_value("SCS_TEST_SINK_BUF") < (long)SINK_BUF_LEN)
		s->cap = (size_t)scs_sink_hook_value("SCS_TEST_SINK_BUF");
#endif
	if ((s->buf = malloc(SINK_BUF_LEN)) == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

/* ---- writing ---- */

/*
 * @n more bytes are in the file: at each step, start the new step's
 * writeback, wait for the step before's and drop its pages (see "behind
 * the writes").
 */
static void
wrote(scs_sink *s, uint64_t n)
{
	s->in_file += n;
	if (s->in_file - s->written_back < s->step)
		return;
#ifdef SYNC_FILE_RANGE_WRITE
	if (s->written_back > s->dropped)
		(void)sync_file_range(s->fd, (off64_t)s->dropped, (off64_t)(s->written_back - s->dropped),
		    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
	(void)sync_file_range(s->fd, (off64_t)s->written_back, (off64_t)(s->in_file - s->written_back),
	    SYNC_FILE_RANGE_WRITE);
#endif
	if (s->written_back > s->dropped)
		(void)posix_fadvise(s->fd, (off_t)s->dropped, (off_t)(s->written_back - s->dropped), POSIX_FADV_DONTNEED);
	s->dropped = s->written_back;
	s->written_back = s->in_file;
}

/* Write @len bytes at @off; the bytes written, and errno set when short. */
static size_t
pwrite_all(int fd, const uint8_t *p, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pwrite(fd, p + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

/* Append @len bytes to the file, a step at most at a time (the drop keeps up with a long write). */
static int
write_all(scs_sink *s, const uint8_t *p, size_t len)
{
	while (len) {
		size_t take = len > s->step ? (size_t)s->step : len, done = pwrite_all(s->fd, p, take, s->in_file);

		wrote(s, done);
		if (done < take)
			return s->status = scs_err_errno(errno, "%s: write failed", s->target);
		p += take;
		len -= take;
	}
	return SCS_OK;
}

/* The buffer is full: write it. */
static int
drain(scs_sink *s)
{
	if (write_all(s, s->buf, s->n_buf) < 0)
		return s->status;
	s->n_buf = 0;
	return SCS_OK;
}

/* A resting sink's buffer, allocated again for a write. */
static int
awake(scs_sink *s)
{
	if (s->buf || !s->resting)
		return SCS_OK;
	if ((s->buf = malloc(SINK_BUF_LEN)) == NULL)
		return s->status = scs_err_set(SCS_ENOMEM, "%s: cannot allocate a write buffer", s->target);
	s->resting = 0;
	return SCS_OK;
}

/* Write all the buffer holds. */
int
scs_sink_flush(scs_sink *s)
{
	if (s->status < 0)
		return s->status;
	if (write_all(s, s->buf, s->n_buf) < 0)
		return s->status;
	s->n_buf = 0;
	return SCS_OK;
}

int
scs_sink_write(scs_sink *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t take;

	if (s->status < 0 || awake(s) < 0)
		return s->status;
	if (s->buf == NULL)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: written after it was parked", s->target);
	s->pos += len;
	if (len >= s->cap) {
		if (scs_sink_flush(s) < 0)
			return s->status;
		return write_all(s, p, len);
	}
	while (len) {
		if (s->n_buf == s->cap && drain(s) < 0)
			return s->status;
		take = s->cap - s->n_buf;
		if (take > len)
			take = len;
		memcpy(s->buf + s->n_buf, p, take);
		s->n_buf += take;
		p += take;
		len -= take;
	}
	return SCS_OK;
}

/* Bytes copied by copy_file_range, and through the buffer by read_through(),
 * for the run's report (by the thread of the call: each call's own). */
static _Thread_local uint64_t kernel_copied, copied_through;

uint64_t
scs_sink_kernel_copied(void)
{
	return kernel_copied;
}

uint64_t
scs_sink_copied_through(void)
{
	return copied_through;
}

/* Append @len bytes of @fd at @off through the buffer, where the kernel cannot copy. */
static int
read_through(scs_sink *s, int fd, uint64_t off, uint64_t len)
{
	size_t take;
	ssize_t n;

	while (len) {
		if (s->n_buf == s->cap && drain(s) < 0)
			return s->status;
		take = s->cap - s->n_buf;
		if (take > len)
			take = (size_t)len;
		n = pread(fd, s->buf + s->n_buf, take, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return s->status = scs_err_errno(errno, "%s: reading input at offset %llu",
			    s->target, (unsigned long long)off);
		if (n == 0)
			return s->status = scs_err_set(SCS_ECORRUPT,
			    "%s: input ended at offset %llu while copying", s->target, (unsigned long long)off);
		s->n_buf += (size_t)n;
		s->pos += (uint64_t)n;
		copied_through += (uint64_t)n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return SCS_OK;
}

int
scs_sink_copy_fd(scs_sink *s, int fd, uint64_t off, uint64_t len)
{
	loff_t in_off = (loff_t)off, out_off;
	ssize_t n;
	size_t take;

	if (s->status < 0 || awake(s) < 0)
		return s->status;
	if (s->buf == NULL)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: written after it was parked", s->target);
	if (scs_sink_flush(s) < 0)
		return s->status;
	while (len) {
		/* a step at a time, so that the pages behind are dropped as the copy goes */
		take = len > s->step ? (size_t)s->step : (size_t)len;
		out_off = (loff_t)s->in_file;    /* every write says where: the file offset stays 0 */
		n = copy_file_range(fd, &in_off, s->fd, &out_off, take, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;    /* not supported here, or the source ended: fall back */
		len -= (uint64_t)n;
		s->pos += (uint64_t)n;
		kernel_copied += (uint64_t)n;
		wrote(s, (uint64_t)n);
	}
	return read_through(s, fd, (uint64_t)in_off, len);
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

/* The file's bytes from @pos on changed or moved: writeback and the drop start again there. */
static void
behind_at_most(scs_sink *s, uint64_t pos)
{
	if (s->written_back > pos)
		s->written_back = pos;
	if (s->dropped > pos)
		s->dropped = pos;
}

int
scs_sink_truncate(scs_sink *s, uint64_t pos)
{
	if (s->status < 0)
		return s->status;
	if ((s->buf == NULL && !s->resting) || pos > s->pos)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: taken back past its end or after it was parked", s->target);
	if (pos >= s->in_file) {
		/* the bytes are still in the buffer */
		s->n_buf -= (size_t)(s->pos - pos);
		s->pos = pos;
		return SCS_OK;
	}
	if (ftruncate(s->fd, (off_t)pos) < 0)
		return s->status = scs_err_errno(errno, "%s: cannot take back its end", s->target);
	s->in_file = s->pos = pos;
	s->n_buf = 0;
	behind_at_most(s, pos);
	return SCS_OK;
}

/* A fallocate() mode on [off, off + len) of the flushed file: SCS_OK, SCS_EUNSUPPORTED (the filesystem
 * cannot, or not there), or the sink's error. */
static int
move_blocks(scs_sink *s, int mode, uint64_t off, uint64_t len)
{
	if (s->status < 0 || scs_sink_flush(s) < 0)
		return s->status;
	if (off % BLOCK_ALIGN || len % BLOCK_ALIGN || off >= s->pos)
		return SCS_EUNSUPPORTED;
#if defined(FALLOC_FL_COLLAPSE_RANGE) && defined(FALLOC_FL_INSERT_RANGE)
	if (fallocate(s->fd, mode, (off_t)off, (off_t)len) == 0)
		return SCS_OK;
	if (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS)
		return s->status = scs_err_errno(errno, "%s: cannot move its blocks", s->target);
#else
	(void)mode;
#endif
	return SCS_EUNSUPPORTED;
}

int
scs_sink_cut(scs_sink *s, uint64_t off, uint64_t len)
{
	int rc;

	if (len > s->pos - off || s->pos - off - len == 0)
		return SCS_EUNSUPPORTED;          /* the range reaches the end: a truncate's */
	if ((rc = move_blocks(s, FALLOC_FL_COLLAPSE_RANGE, off, len)) == SCS_OK) {
		s->pos -= len;
		s->in_file = s->pos;
		behind_at_most(s, off);
	}
	return rc;
}

int
scs_sink_open_gap(scs_sink *s, uint64_t off, uint64_t len)
{
	int rc;

	if ((rc = move_blocks(s, FALLOC_FL_INSERT_RANGE, off, len)) == SCS_OK) {
		s->pos += len;
		s->in_file = s->pos;
		behind_at_most(s, off);
	}
	return rc;
}

int
scs_sink_write_at(scs_sink *s, uint64_t off, const void *data, size_t len)
{
	if (s->status < 0 || scs_sink_flush(s) < 0)
		return s->status;
	if (off > s->pos || len > s->pos - off)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: written at %llu, past its end", s->target,
		    (unsigned long long)off);
	if (pwrite_all(s->fd, data, len, off) < len)
		return s->status = scs_err_errno(errno, "%s: write failed", s->target);
	return SCS_OK;
}

int
scs_sink_park(scs_sink *s)
{
	int rc = scs_sink_flush(s);

	free(s->buf);
	s->buf = NULL;
	s->resting = 0;
	return rc;
}

int
scs_sink_rest(scs_sink *s)
{
	int rc = scs_sink_flush(s);

	if (rc == SCS_OK && s->buf) {
		free(s->buf);
		s->buf = NULL;
		s->resting = 1;
	}
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
