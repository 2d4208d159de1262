/*
 * sink.c: the byte path of an output (see sink.h): a sink's buffer, its
 * writes through the page cache, the kernel's copies, and the direct writes
 * with their writing thread. Which file a sink writes, and the name the file
 * gets, are its commit's (commit.c).
 *
 * Test builds (SCS_TEST_HOOKS: the library the test suite links, and its
 * copies of the tools) read SCS_TEST_DIRECT_* environment variables in this
 * file to turn sinks direct sooner, with smaller buffers, or to make a
 * direct write fail; installed tools and the library have none of it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/err.h"
#include "io/sink_impl.h"

#define SINK_BUF_LEN (1u << 20)

/*
 * Direct writes. A write through the page cache copies every byte into a
 * cache page first, and a multi-GiB output needs that many fresh pages: on
 * ext4 the copy and finding those pages took most of a large run, and twice
 * as long when other large files had just come and gone. So a sink that has
 * written DIRECT_AFTER bytes switches its file to O_DIRECT: whole blocks go
 * from an aligned buffer to the disk, bypassing the cache, written by a
 * thread of the sink's own while the run fills a second buffer (the disk
 * and the run work at once, as writeback does for cached writes); the last
 * partial block goes through the cache when the sink ends. The thread does
 * nothing but pwrite() one buffer at a time and tell how it went. Only on ext2/3/4: where
 * copy_file_range shares blocks instead of copying them (XFS, btrfs, and
 * network filesystems copying on the server), an unchanged payload costs
 * nothing and is better left to it. A filesystem that refuses O_DIRECT, or
 * a direct write it refuses, leaves the sink writing through the cache.
 */
#define DIRECT_AFTER ((uint64_t)64 << 20)
#define DIRECT_BUF_LEN ((size_t)4 << 20)
#define DIRECT_ALIGN ((size_t)4096)
#define EXT_SUPER_MAGIC 0xEF53    /* ext2, ext3 and ext4 share it */

/* The writing thread of a direct sink and its one job. */
typedef struct direct_writer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	const uint8_t *p;         /* the job: @len bytes to write at @off; NULL when there is none */
	size_t len;
	uint64_t off;
	size_t done;              /* bytes of the last job written */
	int err;                  /* its errno when it failed, else 0 */
	int stop;                 /* the thread ends once the job is done */
	int fail;                 /* test builds: the second job fails halfway with this errno */
	unsigned jobs;
} direct_writer;

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
	s->direct_after = DIRECT_AFTER;
	s->direct_len = DIRECT_BUF_LEN;
#ifdef SCS_TEST_HOOKS
	/* tests turn sinks direct sooner (SCS_TEST_DIRECT_AFTER bytes), with
	 * smaller buffers (SCS_TEST_DIRECT_BUF, whole blocks), and make a direct
	 * write fail (SCS_TEST_DIRECT_FAIL: an errno) */
	if (getenv("SCS_TEST_DIRECT_AFTER") && *getenv("SCS_TEST_DIRECT_AFTER"))
		s->direct_after = (uint64_t)scs_sink_hook_value("SCS_TEST_DIRECT_AFTER");
	if (scs_sink_hook_value("SCS_TEST_DIRECT_BUF") >= (long)DIRECT_ALIGN) {
		s->direct_len = (size_t)scs_sink_hook_value("SCS_TEST_DIRECT_BUF") / DIRECT_ALIGN * DIRECT_ALIGN;
		if (s->cap > s->direct_len)
			s->cap = s->direct_len;    /* the first buffer too, so that a small file turns direct */
	}
	s->direct_fail = (int)scs_sink_hook_value("SCS_TEST_DIRECT_FAIL");
#endif
	if ((s->buf = malloc(SINK_BUF_LEN)) == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

void
scs_sink_opened(scs_sink *s)
{
	struct statfs fs;

	if (fstatfs(s->fd, &fs) < 0 || fs.f_type != EXT_SUPER_MAGIC)
		s->direct = -1;    /* see "direct writes" */
}

/* ---- writing ---- */

/* Bytes written between two requests to start their writeback. */
#define WRITEBACK_STEP ((uint64_t)64 << 20)

/* Bytes written with O_DIRECT, for the run's report (counted by the thread
 * of the call, which hands the writing thread its jobs: each call's own). */
static _Thread_local uint64_t direct_written;

uint64_t
scs_sink_direct_written(void)
{
	return direct_written;
}

/*
 * @n more bytes are in the file: every WRITEBACK_STEP, ask the kernel to
 * start writing them to the disk (it returns at once), so that the disk
 * works while the run goes on and the fsync of the commit waits for less.
 * Best effort: the fsync reports what fails.
 */
static void
wrote(scs_sink *s, uint64_t n)
{
	s->in_file += n;
#ifdef SYNC_FILE_RANGE_WRITE
	if (s->in_file - s->written_back >= WRITEBACK_STEP) {
		(void)sync_file_range(s->fd, (off64_t)s->written_back, (off64_t)(s->in_file - s->written_back),
		    SYNC_FILE_RANGE_WRITE);
		s->written_back = s->in_file;
	}
#endif
}

/* 1 when @len more bytes go through the cache as before: the sink will not
 * turn direct, or not yet. */
static int
stays_cached(const scs_sink *s, uint64_t len)
{
	return s->direct == -1 || (s->direct == 0 && s->in_file + s->n_buf + len < s->direct_after);
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

/* Write through the cache (or the first DIRECT_AFTER bytes of a file). */
static int
write_all(scs_sink *s, const uint8_t *p, size_t len)
{
	size_t done = pwrite_all(s->fd, p, len, s->in_file);

	wrote(s, done);
	if (done < len)
		return s->status = scs_err_errno(errno, "%s: write failed", s->target);
	return SCS_OK;
}

/* The file writes through the cache from now on. */
static void
drop_direct_flag(scs_sink *s)
{
	int fl;

	s->direct = -1;
	if ((fl = fcntl(s->fd, F_GETFL)) >= 0 && (fl & O_DIRECT))
		(void)fcntl(s->fd, F_SETFL, fl & ~O_DIRECT);
}

static void *
direct_thread(void *arg)
{
	direct_writer *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->p == NULL && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->p == NULL)
			break;
		pthread_mutex_unlock(&w->mu);
		if (++w->jobs == 2 && w->fail) {    /* test builds only: see scs_commit_open() */
			w->done = pwrite_all(w->fd, w->p, w->len / 2 / DIRECT_ALIGN * DIRECT_ALIGN, w->off);
			errno = w->fail;
		} else {
			w->done = pwrite_all(w->fd, w->p, w->len, w->off);
		}
		w->err = w->done < w->len ? errno : 0;
		pthread_mutex_lock(&w->mu);
		w->p = NULL;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/*
 * Wait for the job in flight. A direct write the file refuses (EINVAL: it
 * takes no O_DIRECT there, or not at that offset) ends the direct writing,
 * and the job's rest goes through the cache; any other failure is the
 * sink's error.
 */
static int
direct_wait(scs_sink *s)
{
	direct_writer *w = s->dw;
	uint64_t off;
	size_t rest;
	int err;

	pthread_mutex_lock(&w->mu);
	while (w->p != NULL)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	if ((err = w->err) == 0)
		return SCS_OK;
	w->err = 0;
	off = w->off + w->done;
	rest = w->len - w->done;
	if (err != EINVAL)
		return s->status = scs_err_errno(err, "%s: write failed", s->target);
	/* only the rest of the last job is missing: the file ends there */
	drop_direct_flag(s);
	s->in_file = off;
	direct_written -= rest;
	return write_all(s, s->spare + w->done, rest);
}

/*
 * End the direct writing: the job in flight done, the thread gone, the file
 * without O_DIRECT, which writes through the cache from now on.
 */
int
scs_sink_leave_direct(scs_sink *s)
{
	direct_writer *w = s->dw;
	int rc;

	if (w == NULL)
		return SCS_OK;
	rc = direct_wait(s);
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
	s->dw = NULL;
	free(s->spare);
	s->spare = NULL;
	drop_direct_flag(s);
	return rc;
}

/*
 * Turn the file direct, at a block boundary of the file (the caller's
 * business): two aligned buffers of @s->direct_len, the first holding what the
 * old one held, and the writing thread. 0 when the sink stays with the cache.
 */
static int
enter_direct(scs_sink *s)
{
	direct_writer *w = NULL;
	uint8_t *buf = NULL, *spare = NULL;
	int fl;

	s->direct = -1;
	if (s->n_buf > s->direct_len ||
	    posix_memalign((void **)&buf, DIRECT_ALIGN, s->direct_len) != 0 ||
	    posix_memalign((void **)&spare, DIRECT_ALIGN, s->direct_len) != 0 ||
	    (w = calloc(1, sizeof(*w))) == NULL)
		goto fail;
	w->fd = s->fd;
	w->fail = s->direct_fail;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if ((fl = fcntl(s->fd, F_GETFL)) < 0 || fcntl(s->fd, F_SETFL, fl | O_DIRECT) < 0)
		goto fail_sync;
	if (pthread_create(&w->thread, NULL, direct_thread, w) != 0) {
		(void)fcntl(s->fd, F_SETFL, fl);
		goto fail_sync;
	}
	memcpy(buf, s->buf, s->n_buf);
	free(s->buf);
	s->buf = buf;
	s->spare = spare;
	s->cap = s->direct_len;
	s->dw = w;
	s->direct = 1;
	return 1;
fail_sync:
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
fail:
	free(w);
	free(spare);
	free(buf);
	return 0;
}

/* The buffer's bytes from @from on move to its start; the rest were written. */
static void
keep_tail(scs_sink *s, size_t from)
{
	memmove(s->buf, s->buf + from, s->n_buf - from);
	s->n_buf -= from;
}

/*
 * A direct sink's buffer is full (whole blocks: @direct_len is a multiple of
 * DIRECT_ALIGN): once the job in flight is done, it becomes the thread's
 * job and the run fills the other buffer.
 */
static int
direct_submit(scs_sink *s)
{
	direct_writer *w = s->dw;
	uint8_t *full = s->buf;

	if (direct_wait(s) < 0)
		return s->status;
	if (s->direct != 1) {    /* refused: the cache takes this buffer too */
		if (write_all(s, s->buf, s->n_buf) < 0)
			return s->status;
		s->n_buf = 0;
		return scs_sink_leave_direct(s);
	}
	s->buf = s->spare;
	s->spare = full;
	pthread_mutex_lock(&w->mu);
	w->p = full;
	w->len = s->n_buf;
	w->off = s->in_file;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	s->in_file += s->n_buf;
	s->written_back = s->in_file;
	direct_written += s->n_buf;
	s->n_buf = 0;
	return SCS_OK;
}

/*
 * The buffer is full: write it. A direct sink hands its whole blocks to its
 * thread; a sink past its @direct_after bytes writes up to a block boundary
 * of the file, then turns direct.
 */
static int
drain(scs_sink *s)
{
	size_t head;

	if (s->direct == 1)
		return direct_submit(s);
	if (s->direct == 0 && s->in_file + s->n_buf >= s->direct_after) {
		/* through the cache up to the last block boundary; the partial block starts the direct buffer */
		head = s->n_buf - (size_t)((s->in_file + s->n_buf) % DIRECT_ALIGN);
		if (write_all(s, s->buf, head) < 0)
			return s->status;
		keep_tail(s, head);
		if (enter_direct(s))
			return SCS_OK;
	}
	if (write_all(s, s->buf, s->n_buf) < 0)
		return s->status;
	s->n_buf = 0;
	return SCS_OK;
}

/* Write all the buffer holds; a direct sink ends its direct writing (its
 * last buffer goes through the cache). */
int
scs_sink_flush(scs_sink *s)
{
	if (s->status < 0 || scs_sink_leave_direct(s) < 0)
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

	if (s->status < 0)
		return s->status;
	if (s->buf == NULL)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: written after it was parked", s->target);
	s->pos += len;
	if (len >= s->cap && stays_cached(s, len)) {
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

/*
 * Append @len bytes of @fd at @off through the buffer: what a direct sink
 * does (a kernel copy would go through the cache), and where the kernel
 * cannot copy.
 */
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

	if (s->status < 0)
		return s->status;
	if (s->buf == NULL)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: written after it was parked", s->target);
	if (!stays_cached(s, len))
		return read_through(s, fd, off, len);
	if (scs_sink_flush(s) < 0)
		return s->status;
	while (len) {
		take = len > (1u << 30) ? (1u << 30) : (size_t)len;
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

int
scs_sink_truncate(scs_sink *s, uint64_t pos)
{
	if (s->status < 0)
		return s->status;
	if (s->buf == NULL || pos > s->pos)
		return s->status = scs_err_set(SCS_EUSAGE, "%s: taken back past its end or after it was parked", s->target);
	if (pos >= s->in_file) {
		/* the bytes are still in the buffer */
		s->n_buf -= (size_t)(s->pos - pos);
		s->pos = pos;
		return SCS_OK;
	}
	/* in the file: the job in flight done first; a direct file goes on at a block boundary only */
	if (s->dw && direct_wait(s) < 0)
		return s->status;
	if (s->dw && pos % DIRECT_ALIGN && scs_sink_leave_direct(s) < 0)
		return s->status;
	if (ftruncate(s->fd, (off_t)pos) < 0)
		return s->status = scs_err_errno(errno, "%s: cannot take back its end", s->target);
	s->in_file = s->pos = pos;
	s->n_buf = 0;
	if (s->written_back > pos)
		s->written_back = pos;
	return SCS_OK;
}

/* A fallocate() mode on [off, off + len) of the flushed file: SCS_OK, SCS_EUNSUPPORTED (the filesystem
 * cannot, or not there), or the sink's error. */
static int
move_blocks(scs_sink *s, int mode, uint64_t off, uint64_t len)
{
	if (s->status < 0 || scs_sink_flush(s) < 0)
		return s->status;
	if (off % DIRECT_ALIGN || len % DIRECT_ALIGN || off >= s->pos)
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
		s->written_back = s->written_back > s->pos ? s->pos : s->written_back;
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
