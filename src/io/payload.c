/*
 * payload.c: payload locations, reads, compares and copies (see payload.h).
 *
 * Payloads of input files compared from mapped pages: a file cut meanwhile
 * (another process truncating it) makes a touched page a SIGBUS. The
 * compare runs guarded: while one runs, a SIGBUS handler is in place (one
 * for the process, counted, so threads share it) that jumps back to the
 * compare of the thread that touched the page, which reports the file as
 * changed; any other SIGBUS goes to the action there was before. Test
 * builds (SCS_TEST_HOOKS) cut file a of a compare to SCS_TEST_CUT_AT_COMPARE
 * bytes just before it, for the tests of that.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/payload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/datafiles.h"
#include "util/buf.h"
#include "util/err.h"

/* The first read-ahead after a jump. */
#define AHEAD_MIN_LEN ((size_t)4 << 10)

/* Bytes of a derived payload read from its source and computed at once
 * (they stay in the cache between the two). */
#define DERIVE_BLOCK_LEN ((size_t)256 << 10)

/* The longest element a derivation computes in (complex128). */
#define DERIVE_MAX_ESIZE 16

/* Bytes of each side mapped at once when comparing from mapped pages. */
#define MAP_WINDOW_LEN ((size_t)32 << 20)

/* Bytes compared from mapped pages, for the run's report (counted by the
 * thread of the call: each call's own). */
static _Thread_local uint64_t mapped_bytes;
/* Bytes the threads a call started read for it (the spill's reader): the call's own reads with its rchar. */
static _Thread_local uint64_t helper_read;

void
scs_payload_at_store(scs_payload *p, const scs_blob *blob)
{
	p->key = blob->key;
	p->where = SCS_AT_STORE;
	p->file = 0;
	p->off = blob->id;
}

/* SCS_PAYLOADS_MAX_OPEN, or an eighth of the process's descriptor limit
 * when that is less: the outputs and the store need descriptors too. */
static size_t
max_open(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 8 < SCS_PAYLOADS_MAX_OPEN)
		return rl.rlim_cur >= 8 ? (size_t)(rl.rlim_cur / 8) : 1;
	return SCS_PAYLOADS_MAX_OPEN;
}

int
scs_payloads_init(scs_payloads *set, scs_store *store)
{
	memset(set, 0, sizeof(*set));
	set->store = store;
	if ((set->piece[0] = malloc(SCS_CHUNK_LEN)) == NULL || (set->piece[1] = malloc(SCS_CHUNK_LEN)) == NULL ||
	    (set->ahead = malloc(SCS_PAYLOADS_AHEAD_LEN)) == NULL || scs_source_pool_new(&set->pool, max_open()) < 0) {
		scs_payloads_dispose(set);
		return scs_err_set(SCS_ENOMEM, "cannot allocate payload buffers");
	}
	return SCS_OK;
}

void
scs_payloads_dispose(scs_payloads *set)
{
	for (size_t i = 0; i < set->n_files; i++)
		scs_source_close(set->files[i]);
	scs_source_pool_free(set->pool);
	for (size_t i = 0; i < set->n_derived; i++)
		if (set->derived[i].dispose)
			set->derived[i].dispose(set->derived[i].state);
	free(set->derived);
	free(set->spilled);
	free(set->recs);
	free(set->spill);
	scs_payloads_stream_free(set);
	free(set->files);
	free(set->items);
	free(set->piece[0]);
	free(set->piece[1]);
	free(set->ahead);
	memset(set, 0, sizeof(*set));
}

int
scs_payloads_add_file(scs_payloads *set, const char *path, uint32_t *out)
{
	scs_source *src;
	struct stat st;
	int rc;

	/* one stat, then a compare a file (a model may name thousands) */
	for (size_t i = 0; stat(path, &st) == 0 && i < set->n_files; i++) {
		if (scs_source_is_file(set->files[i], (uint64_t)st.st_dev, (uint64_t)st.st_ino)) {
			*out = (uint32_t)i;
			return SCS_OK;
		}
	}
	if ((rc = scs_source_open_in(&src, path, set->pool)) < 0)
		return rc;
	if ((rc = scs_grow(&set->files, &set->cap_files, set->n_files, sizeof(*set->files), 4, "the file list")) < 0) {
		scs_source_close(src);
		return rc;
	}
	set->files[set->n_files] = src;
	*out = (uint32_t)set->n_files++;
	return SCS_OK;
}

int
scs_payloads_add(scs_payloads *set, const scs_payload *p, uint32_t *out)
{
	int rc;

	/* ids are 32-bit */
	if (set->n == set->cap && set->cap > UINT32_MAX / 2)
		return scs_err_set(SCS_ENOMEM, "cannot grow the payload table");
	if ((rc = scs_grow(&set->items, &set->cap, set->n, sizeof(*set->items), 64, "the payload table")) < 0)
		return rc;
	set->items[set->n] = *p;
	*out = (uint32_t)set->n++;
	return SCS_OK;
}

static int read_payload(scs_payloads *set, uint32_t id, uint64_t off, void *buf, size_t len, int ahead);

/*
 * Bytes [off, off + len) of derived payload @p: whole elements are read
 * from the source into @buf and computed there, a block at a time; an
 * element cut by either end goes through a small buffer of its own.
 */
static int
read_derived(scs_payloads *set, const scs_payload *p, uint64_t off, uint8_t *buf, size_t len, int ahead)
{
	const scs_derivation *d = &set->derived[p->off];
	uint64_t at = off, stop = off + len;
	uint8_t one[DERIVE_MAX_ESIZE];
	int rc;

	while (at < stop) {
		uint64_t elem = at / d->esize, elem_off = elem * d->esize;
		size_t take;

		if (at == elem_off && stop - at >= d->esize) {
			take = (size_t)((stop - at) / d->esize * d->esize);
			if (take > DERIVE_BLOCK_LEN)
				take = DERIVE_BLOCK_LEN / d->esize * d->esize;
			if ((rc = read_payload(set, p->file, at, buf + (at - off), take, ahead)) < 0 ||
			    (rc = d->apply(set, d->state, elem, buf + (at - off), take / d->esize)) < 0)
				return rc;
		} else {
			uint64_t end = stop < elem_off + d->esize ? stop : elem_off + d->esize;

			take = (size_t)(end - at);
			if ((rc = read_payload(set, p->file, elem_off, one, d->esize, ahead)) < 0 ||
			    (rc = d->apply(set, d->state, elem, one, 1)) < 0)
				return rc;
			memcpy(buf + (at - off), one + (at - elem_off), take);
		}
		at += take;
	}
	return SCS_OK;
}

int
scs_payloads_add_derived(scs_payloads *set, uint32_t source, const scs_derivation *d, uint32_t *out)
{
	scs_payload pl;
	int rc;

	if ((rc = scs_grow(&set->derived, &set->cap_derived, set->n_derived, sizeof(*set->derived), 16,
	    "the list of derived payloads")) < 0) {
		if (d->dispose)
			d->dispose(d->state);
		return rc;
	}
	set->derived[set->n_derived++] = *d;
	if (source >= set->n || d->esize == 0 || d->esize > DERIVE_MAX_ESIZE ||
	    set->items[source].key.len % d->esize)
		return scs_err_set(SCS_EUSAGE, "a payload derived from payload %u by %zu-byte elements", source, d->esize);
	memset(&pl, 0, sizeof(pl));
	pl.key.len = set->items[source].key.len;
	pl.where = SCS_AT_DERIVED;
	pl.file = source;
	pl.off = set->n_derived - 1;
	pl.unkeyed = 1;
	return scs_payloads_add(set, &pl, out);
}

int
scs_payloads_key(scs_payloads *set, uint32_t id, scs_key *out)
{
	scs_payload *p = &set->items[id];
	scs_pieces pc;
	scs_hash h;
	uint8_t *buf;
	int rc;

	if (p->unkeyed) {
		if ((buf = malloc(SCS_CHUNK_LEN)) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot allocate a buffer to hash a payload");
		scs_hash_init(&h);
		scs_payloads_pieces(&pc, set, id, buf);
		pc.exact = 1;
		while ((rc = scs_payloads_next_piece(&pc)) == SCS_OK)
			scs_hash_update(&h, pc.buf, pc.len);
		free(buf);
		if (rc != SCS_DONE)
			return rc;
		scs_hash_final(&p->key, &h);
		p->unkeyed = 0;
	}
	*out = p->key;
	return SCS_OK;
}

/* Read bytes of payload @id; with @ahead, small reads go through the
 * read-ahead buffer. */
static int
read_payload(scs_payloads *set, uint32_t id, uint64_t off, void *buf, size_t len, int ahead)
{
	const scs_payload *p = &set->items[id];
	scs_blob blob;

	if (off > p->key.len || len > p->key.len - off)
		return scs_err_set(SCS_ERANGE, "read past the end of a %llu-byte payload",
		    (unsigned long long)p->key.len);
	if (p->where == SCS_AT_DERIVED)
		return read_derived(set, p, off, buf, len, ahead);
	if (ahead && p->where == SCS_AT_FILE && len <= SCS_PAYLOADS_SMALL_LEN) {
		const uint8_t *q;
		int rc;

		if ((rc = scs_payloads_peek(set, p->file, p->off + off, len, &q)) < 0)
			return rc;
		memcpy(buf, q, len);
		return SCS_OK;
	}
	if (p->where == SCS_AT_FILE)
		return scs_source_read(set->files[p->file], buf, len, p->off + off);
	if (set->store == NULL)
		return scs_err_set(SCS_EUSAGE, "payload %u is in a store that is not open", id);
	blob.key = p->key;
	blob.id = p->off;
	return scs_store_read(set->store, &blob, off, buf, len);
}

int
scs_payloads_read(scs_payloads *set, uint32_t id, uint64_t off, void *buf, size_t len)
{
	return read_payload(set, id, off, buf, len, 1);
}

int
scs_payloads_peek(scs_payloads *set, uint32_t file, uint64_t off, size_t len, const uint8_t **out)
{
	scs_source *src = set->files[file];
	uint64_t size = scs_source_size(src);
	size_t want;
	int rc;

	if (set->ahead_len && set->ahead_file == file && off >= set->ahead_off &&
	    off - set->ahead_off <= set->ahead_len && len <= set->ahead_len - (off - set->ahead_off)) {
		*out = set->ahead + (off - set->ahead_off);
		return SCS_OK;
	}
	if (len > SCS_PAYLOADS_AHEAD_LEN)
		return scs_err_set(SCS_ERANGE, "a %zu-byte read through the read-ahead buffer", len);
	if (off > size || len > size - off)
		return scs_source_read(src, set->ahead, len, off);   /* names the file and the offset */
	/* read ahead twice as far as last time while the reads go forward in
	 * small steps; a jump starts again from AHEAD_MIN_LEN, so a small
	 * payload between large ones costs a few KiB more, not 64 */
	want = AHEAD_MIN_LEN;
	if (set->ahead_len && set->ahead_file == file && off > set->ahead_off &&
	    off - set->ahead_off <= 2 * (uint64_t)set->ahead_len)
		want = 2 * set->ahead_len < SCS_PAYLOADS_AHEAD_LEN ? 2 * set->ahead_len : SCS_PAYLOADS_AHEAD_LEN;
	if (want < len)
		want = len;
	if (want > size - off)
		want = (size_t)(size - off);
	set->ahead_len = 0;
	if ((rc = scs_source_read(src, set->ahead, want, off)) < 0)
		return rc;
	set->ahead_file = file;
	set->ahead_off = off;
	set->ahead_len = want;
	*out = set->ahead;
	return SCS_OK;
}

void
scs_payloads_prefetch(scs_payloads *set, uint32_t id, uint64_t off, uint64_t len)
{
	const scs_payload *p = &set->items[id];
	int fd;

	if (p->where != SCS_AT_FILE || off >= p->key.len || (fd = scs_source_fd(set->files[p->file])) < 0)
		return;
	if (len > p->key.len - off)
		len = p->key.len - off;
	(void)posix_fadvise(fd, (off_t)(p->off + off), (off_t)len, POSIX_FADV_WILLNEED);
}

uint64_t
scs_payloads_helper_read_bytes(void)
{
	return helper_read;
}

uint64_t
scs_payloads_mapped_bytes(void)
{
	return mapped_bytes;
}

/* Map @len bytes of file @file from @off (page-aligned below): *base and
 * *map_len are what to unmap, *out the first wanted byte. */
static int
map_range(scs_payloads *set, uint32_t file, uint64_t off, size_t len, void **base, size_t *map_len,
    const uint8_t **out)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), start = off / page * page;
	scs_source *src = set->files[file];
	void *p;
	int fd;

	if (off > scs_source_size(src) || len > scs_source_size(src) - off)
		return scs_err_set(SCS_ECORRUPT, "%s: offset %llu: %zu bytes wanted, file ends at %llu",
		    scs_source_path(src), (unsigned long long)off, len, (unsigned long long)scs_source_size(src));
	/* the mapping keeps its own reference: the pool may close fd afterwards */
	if ((fd = scs_source_fd(src)) < 0)
		return fd;
	*map_len = (size_t)(off - start) + len;
	if ((p = mmap(NULL, *map_len, PROT_READ, MAP_SHARED, fd, (off_t)start)) == MAP_FAILED)
		return scs_err_errno(errno, "%s: offset %llu: cannot map %zu bytes", scs_source_path(src),
		    (unsigned long long)start, *map_len);
	(void)madvise(p, *map_len, MADV_SEQUENTIAL);
	*base = p;
	*out = (const uint8_t *)p + (off - start);
	return SCS_OK;
}

static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned bus_users;                  /* compares running: the handler is in place while > 0 */
static struct sigaction bus_before;         /* the action it took the place of */
/* this thread's compare, while it runs (volatile: set around a memcmp that
 * does not read it, the store must not be left out) */
static _Thread_local sigjmp_buf *volatile bus_jump;

static void
on_bus(int sig, siginfo_t *info, void *ctx)
{
	struct sigaction dfl;

	if (bus_jump)
		siglongjmp(*bus_jump, 1);
	/* not a compare's: what was there before; the default ends the
	 * process when the faulting access runs again */
	if (bus_before.sa_flags & SA_SIGINFO) {
		bus_before.sa_sigaction(sig, info, ctx);
	} else if (bus_before.sa_handler != SIG_DFL && bus_before.sa_handler != SIG_IGN) {
		bus_before.sa_handler(sig);
	} else {
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGBUS, &dfl, NULL);
	}
}

static void
bus_guard(int on)
{
	struct sigaction act;

	pthread_mutex_lock(&bus_lock);
	if (on && bus_users++ == 0) {
		memset(&act, 0, sizeof(act));
		act.sa_sigaction = on_bus;
		act.sa_flags = SA_SIGINFO;
		sigemptyset(&act.sa_mask);
		sigaction(SIGBUS, &act, &bus_before);
	} else if (!on && --bus_users == 0) {
		sigaction(SIGBUS, &bus_before, NULL);
	}
	pthread_mutex_unlock(&bus_lock);
}

/* memcmp of @len mapped bytes: 1 equal, 0 not, -1 when a page went (SIGBUS). */
static int
mapped_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	sigjmp_buf jump;
	volatile int rc = -1;

	bus_guard(1);
	if (sigsetjmp(jump, 1) == 0) {
		bus_jump = &jump;
		rc = memcmp(a, b, len) == 0;
	}
	bus_jump = NULL;
	bus_guard(0);
	return rc;
}

/* The error for a compare that lost its pages: which of the two files
 * changed, and what it holds now. */
static int
file_changed(scs_payloads *set, uint32_t fa, uint32_t fb)
{
	const scs_source *src = set->files[fa];
	struct stat sb;

	if (stat(scs_source_path(src), &sb) == 0 && (uint64_t)sb.st_size == scs_source_size(src))
		src = set->files[fb];
	if (stat(scs_source_path(src), &sb) < 0)
		return scs_err_set(SCS_EIO, "%s: the file changed while it was read (it is gone now)",
		    scs_source_path(src));
	return scs_err_set(SCS_EIO, "%s: the file changed while it was read (now %llu bytes)", scs_source_path(src),
	    (unsigned long long)sb.st_size);
}

#ifdef SCS_TEST_HOOKS
static void
cut_for_tests(scs_payloads *set, uint32_t file)
{
	const char *v = getenv("SCS_TEST_CUT_AT_COMPARE");

	if (v && *v && truncate(scs_source_path(set->files[file]), (off_t)strtoll(v, NULL, 10)) < 0)
		abort();
}
#endif

/* Compare two payloads that lie in files, window by window from mapped
 * pages: 1 equal, 0 not, < 0 error (a file that was cut meanwhile among
 * them). */
static int
equal_mapped(scs_payloads *set, const scs_payload *a, const scs_payload *b)
{
	uint64_t len = a->key.len, off;
	void *base[2] = { NULL, NULL };
	size_t take, map_len[2];
	const uint8_t *pa, *pb;
	int rc = 1;

	for (off = 0; off < len && rc == 1; off += take) {
		take = len - off > MAP_WINDOW_LEN ? MAP_WINDOW_LEN : (size_t)(len - off);
		if ((rc = map_range(set, a->file, a->off + off, take, &base[0], &map_len[0], &pa)) < 0)
			break;
		if ((rc = map_range(set, b->file, b->off + off, take, &base[1], &map_len[1], &pb)) < 0) {
			munmap(base[0], map_len[0]);
			break;
		}
#ifdef SCS_TEST_HOOKS
		cut_for_tests(set, a->file);
#endif
		rc = mapped_equal(pa, pb, take);
		mapped_bytes += 2 * (uint64_t)take;
		munmap(base[0], map_len[0]);
		munmap(base[1], map_len[1]);
	}
	return rc < 0 ? file_changed(set, a->file, b->file) : rc;
}

/* Payload @id's spill record, NULL when it has none. */
static const scs_spilled *
spilled_of(const scs_payloads *set, uint32_t id)
{
	return id < set->n_spilled_ids && set->spilled[id] ? &set->recs[set->spilled[id] - 1] : NULL;
}

int
scs_payloads_spilled_at(const scs_payloads *set, uint32_t id, uint32_t *file, uint64_t *off)
{
	const scs_spilled *r = spilled_of(set, id);

	if (r) {
		*file = r->file;
		*off = r->off;
	}
	return r != NULL;
}

int
scs_payloads_equal(scs_payloads *set, uint32_t a, uint32_t b)
{
	uint64_t len = set->items[a].key.len;
	const scs_spilled *ra, *rb;
	scs_pieces pa, pb;
	int rc;

	if (a == b)
		return 1;
	if (len != set->items[b].key.len)
		return 0;
	/* both streamed by the spill: their strong digests (and keys) stand for the bytes */
	if ((ra = spilled_of(set, a)) != NULL && (rb = spilled_of(set, b)) != NULL && ra->has_strong &&
	    rb->has_strong && !set->items[a].unkeyed && !set->items[b].unkeyed)
		return scs_key_eq(&set->items[a].key, &set->items[b].key) &&
		    memcmp(ra->strong, rb->strong, SCS_STRONG_LEN) == 0;
	/* the store keeps one blob per distinct content, confirmed on write */
	if (set->items[a].where == SCS_AT_STORE && set->items[b].where == SCS_AT_STORE)
		return set->items[a].off == set->items[b].off;
	if (set->items[a].where == SCS_AT_FILE && set->items[b].where == SCS_AT_FILE && len >= SCS_PAYLOADS_MAP_MIN)
		return equal_mapped(set, &set->items[a], &set->items[b]);
	scs_payloads_pieces(&pa, set, a, set->piece[0]);
	scs_payloads_pieces(&pb, set, b, set->piece[1]);
	/* exact reads: the two copies rarely lie within one read-ahead */
	pa.exact = pb.exact = 1;
	while ((rc = scs_payloads_next_piece(&pa)) == SCS_OK && (rc = scs_payloads_next_piece(&pb)) == SCS_OK)
		if (memcmp(pa.buf, pb.buf, pa.len) != 0)
			return 0;
	return rc == SCS_DONE ? 1 : rc;
}

void
scs_payloads_pieces(scs_pieces *pc, scs_payloads *set, uint32_t id, uint8_t *buf)
{
	pc->set = set;
	pc->id = id;
	pc->buf = buf;
	pc->off = 0;
	pc->len = 0;
	pc->exact = 0;
}

int
scs_payloads_next_piece(scs_pieces *pc)
{
	uint64_t len = pc->set->items[pc->id].key.len;
	int rc;

	pc->off += pc->len;
	if (pc->off >= len) {
		pc->len = 0;
		return SCS_DONE;
	}
	pc->len = len - pc->off > SCS_CHUNK_LEN ? SCS_CHUNK_LEN : (size_t)(len - pc->off);
	if ((rc = read_payload(pc->set, pc->id, pc->off, pc->buf, pc->len, !pc->exact)) < 0)
		return rc;
	return SCS_OK;
}

int
scs_payloads_copy(scs_payloads *set, uint32_t id, scs_sink *sink)
{
	const scs_payload *p = &set->items[id];
	scs_pieces pc;
	int rc, fd;

	if (p->where == SCS_AT_FILE && p->key.len <= SCS_PAYLOADS_SMALL_LEN) {
		const uint8_t *q;

		if ((rc = scs_payloads_peek(set, p->file, p->off, (size_t)p->key.len, &q)) < 0)
			return rc;
		return scs_sink_write(sink, q, (size_t)p->key.len);
	}
	/* the descriptor stays valid through the copy: no other file is touched */
	if (p->where == SCS_AT_FILE)
		return (fd = scs_source_fd(set->files[p->file])) < 0 ? fd : scs_sink_copy_fd(sink, fd, p->off, p->key.len);
	scs_payloads_pieces(&pc, set, id, set->piece[0]);
	while ((rc = scs_payloads_next_piece(&pc)) == SCS_OK)
		if ((rc = scs_sink_write(sink, pc.buf, pc.len)) < 0)
			return rc;
	return rc == SCS_DONE ? SCS_OK : rc;
}

/* ---- the spill ---- */

int
scs_payloads_spill_policy(void)
{
#ifdef SCS_TEST_HOOKS
	const char *v = getenv("SCS_TEST_SPILL");

	if (v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0 || strcmp(v, "2") == 0))
		return *v - '0';
#endif
	return -1;
}

/* Bytes of a payload's head (scs_payloads_head()). */
#define HEAD_LEN 4096u

int
scs_payloads_head(scs_payloads *set, uint32_t id, uint64_t *out)
{
	const scs_payload *p = &set->items[id];
	size_t take = p->key.len < HEAD_LEN ? (size_t)p->key.len : HEAD_LEN;
	uint64_t words[2];
	int rc, fd = -1;

	/* one page, not the read-ahead the kernel would add to a first read */
	if (p->where == SCS_AT_FILE && (fd = scs_source_fd(set->files[p->file])) >= 0)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	rc = read_payload(set, id, 0, set->piece[0], take, 0);
	if (fd >= 0)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL);
	if (rc < 0)
		return rc;
	words[0] = scs_hash64(set->piece[0], take);
	words[1] = p->key.len;
	*out = scs_hash64(words, sizeof(words));
	return SCS_OK;
}

/* The records of one scs_payloads_spill() call by strong digest, for the take-backs. */
typedef struct spill_table {
	uint32_t *slot;           /* record + 1; 0: free */
	size_t mask;
} spill_table;

static size_t
strong_slot(const uint8_t *strong, size_t mask)
{
	uint64_t v;

	memcpy(&v, strong, sizeof(v));
	return (size_t)v & mask;
}

/* The earlier record of @r's bytes and class; NULL when none (then record @ri, @r, goes in). */
static const scs_spilled *
spill_twin(spill_table *t, const scs_payloads *set, const scs_spilled *r, uint32_t ri)
{
	size_t i = strong_slot(r->strong, t->mask);

	for (; t->slot[i]; i = (i + 1) & t->mask) {
		const scs_spilled *o = &set->recs[t->slot[i] - 1];

		if (o->cls == r->cls && scs_key_eq(&set->items[o->id].key, &set->items[r->id].key) &&
		    memcmp(o->strong, r->strong, SCS_STRONG_LEN) == 0)
			return o;
	}
	t->slot[i] = ri + 1;
	return NULL;
}

/* Bytes read at once by the spill: small enough that the hashes find them in the CPU's cache. */
#define SPILL_PIECE_LEN ((size_t)256 << 10)

/*
 * Payloads up to SPILL_AHEAD_MAX bytes among the next SPILL_AHEAD of a
 * spill are asked of the disk ahead (scs_payloads_prefetch()): read when
 * their turn comes, small payloads that lie apart (a layer's norms and
 * biases between its weights, in a run of their own in the output's order)
 * would wait for the disk one after another; a longer one is read
 * sequentially, with the kernel's own read-ahead.
 */
#define SPILL_AHEAD 256
#define SPILL_AHEAD_MAX ((uint64_t)64 << 10)

/*
 * A payload of spill_thread_min() bytes or more in a file is read on a
 * second thread, a ring of SPILL_RING pieces ahead of the thread that hashes
 * and writes them: the kernel's copy of each piece out of the page cache is
 * the larger part of a spill's processor time, and goes on beside the hashing
 * and the writes (docs/BENCHMARKS.md, "A second thread for the reads"). While
 * the reader runs it is the only one to touch @set (its files and
 * descriptors); the writer touches the pieces it was handed, the sink and the
 * digests. The reader takes no signals (they go to the threads that took them
 * before), and its error message is carried over to the writer's thread. When
 * no thread can be made, the payload is read as the smaller ones are.
 */
#define SPILL_RING 4
#define SPILL_THREAD_MIN ((uint64_t)4 << 20)

typedef struct spill_reader {
	scs_payloads *set;
	uint32_t id;
	uint64_t len;
	uint8_t *ring;            /* SPILL_RING pieces of SPILL_PIECE_LEN */
	uint64_t n_read;          /* pieces in the ring, from the first */
	uint64_t n_taken;         /* pieces the writer is done with */
	int rc;                   /* the reader's error, with its message */
	char msg[1024];
	int stop;                 /* the writer stopped: the reader ends */
	pthread_mutex_t mu;
	pthread_cond_t cv;
} spill_reader;

/* The bytes from which a payload in a file is read on a second thread (test
 * builds: SCS_TEST_SPILL_THREAD_MIN bytes, 16 KiB when unset, so that the
 * suites' payloads take both ways; 0: none). */
static uint64_t
spill_thread_min(void)
{
#ifdef SCS_TEST_HOOKS
	const char *v = getenv("SCS_TEST_SPILL_THREAD_MIN");

	if (v && *v) {
		long n = strtol(v, NULL, 10);

		return n > 0 ? (uint64_t)n : UINT64_MAX;
	}
	return (uint64_t)16 << 10;
#else
	return SPILL_THREAD_MIN;
#endif
}

static uint64_t
n_pieces(uint64_t len)
{
	return (len + SPILL_PIECE_LEN - 1) / SPILL_PIECE_LEN;
}

static size_t
piece_len(uint64_t len, uint64_t i)
{
	uint64_t off = i * SPILL_PIECE_LEN;

	return len - off > SPILL_PIECE_LEN ? SPILL_PIECE_LEN : (size_t)(len - off);
}

#ifdef SCS_TEST_HOOKS
/* Test builds: before the third piece of a spilled payload is read (on
 * either thread), its file is cut to SCS_TEST_CUT_AT_SPILL_READ bytes
 * (another process cutting the input while a run reads it). */
static void
cut_at_spill_read(scs_payloads *set, uint32_t id, uint64_t i)
{
	const char *v = getenv("SCS_TEST_CUT_AT_SPILL_READ");

	if (i == 2 && v && *v && set->items[id].where == SCS_AT_FILE &&
	    truncate(scs_source_path(set->files[set->items[id].file]), (off_t)strtoll(v, NULL, 10)) < 0)
		abort();
}
#else
#define cut_at_spill_read(set, id, i) ((void)0)
#endif

static void *
spill_read(void *arg)
{
	spill_reader *r = arg;
	uint64_t n = n_pieces(r->len);
	int rc = SCS_OK, stop;

	for (uint64_t i = 0; i < n; i++) {
		pthread_mutex_lock(&r->mu);
		while (i - r->n_taken >= SPILL_RING && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		stop = r->stop;
		pthread_mutex_unlock(&r->mu);
		if (stop)
			break;
		cut_at_spill_read(r->set, r->id, i);
		rc = read_payload(r->set, r->id, i * SPILL_PIECE_LEN, r->ring + (i % SPILL_RING) * SPILL_PIECE_LEN,
		    piece_len(r->len, i), 0);
		pthread_mutex_lock(&r->mu);
		if (rc < 0) {
			r->rc = rc;
			snprintf(r->msg, sizeof(r->msg), "%s", scs_err_msg());
		} else {
			r->n_read = i + 1;
		}
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (rc < 0)
			break;
	}
	return NULL;
}

/* Start the reader of payload @id into @ring; 0 when it runs, -1 when no thread could be made. */
static int
spill_reader_start(spill_reader *r, pthread_t *th, scs_payloads *set, uint32_t id, uint8_t *ring)
{
	sigset_t all, before;
	int made;

	memset(r, 0, sizeof(*r));
	r->set = set;
	r->id = id;
	r->len = set->items[id].key.len;
	r->ring = ring;
	if (pthread_mutex_init(&r->mu, NULL) != 0)
		return -1;
	if (pthread_cond_init(&r->cv, NULL) != 0) {
		pthread_mutex_destroy(&r->mu);
		return -1;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &before);
	made = pthread_create(th, NULL, spill_read, r) == 0;
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	if (made)
		return 0;
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	return -1;
}

/* Piece @i of the reader's payload, once read; NULL with the reader's error set on this thread. */
static const uint8_t *
spill_reader_take(spill_reader *r, uint64_t i)
{
	int rc;

	pthread_mutex_lock(&r->mu);
	while (r->n_read <= i && r->rc == SCS_OK)
		pthread_cond_wait(&r->cv, &r->mu);
	rc = r->n_read > i ? SCS_OK : r->rc;
	pthread_mutex_unlock(&r->mu);
	if (rc < 0) {
		scs_err_set(rc, "%s", r->msg);
		return NULL;
	}
	return r->ring + (i % SPILL_RING) * SPILL_PIECE_LEN;
}

/* The writer is done with piece @i. */
static void
spill_reader_done(spill_reader *r, uint64_t i)
{
	pthread_mutex_lock(&r->mu);
	r->n_taken = i + 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* Stop the reader (at once, when the writer failed) and wait for it. */
static void
spill_reader_end(spill_reader *r, pthread_t th)
{
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(th, NULL);
	/* its reads count as the run's (scs_payloads_helper_read_bytes()) */
	helper_read += r->n_read == n_pieces(r->len) ? r->len : r->n_read * SPILL_PIECE_LEN;
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
}

/* Append payload @id to @sink: its key (if it has none) and, with @strong, its strong digest (into @r)
 * on the way. */
static int
spill_one(scs_payloads *set, scs_sink *sink, uint32_t id, int strong, scs_spilled *r, uint8_t *ring)
{
	scs_payload *p = &set->items[id];
	uint64_t len = p->key.len, n = n_pieces(len);
	spill_reader rd;
	pthread_t th;
	int reading = 0;      /* 1: the pieces come from the reader thread */
	scs_strong sd;
	scs_hash h;
	int rc = SCS_OK;

	if (strong && (rc = scs_strong_init(&sd)) < 0)
		return rc;
	scs_hash_init(&h);
	if (p->where == SCS_AT_FILE && (rc = scs_source_fd(set->files[p->file])) >= 0)
		(void)posix_fadvise(rc, (off_t)p->off, (off_t)len, POSIX_FADV_SEQUENTIAL);
	rc = SCS_OK;
	if (ring && p->where == SCS_AT_FILE && len >= spill_thread_min())
		reading = spill_reader_start(&rd, &th, set, id, ring) == 0;
	for (uint64_t i = 0; i < n; i++) {
		size_t take = piece_len(len, i);
		const uint8_t *piece = set->piece[0];

		if (reading) {
			if ((piece = spill_reader_take(&rd, i)) == NULL) {
				rc = rd.rc;
				break;
			}
		} else {
			cut_at_spill_read(set, id, i);
			if ((rc = read_payload(set, id, i * SPILL_PIECE_LEN, set->piece[0], take, 0)) < 0)
				break;
		}
		if ((rc = scs_sink_write(sink, piece, take)) < 0)
			break;
		if (p->unkeyed)
			scs_hash_update(&h, piece, take);
		if (strong)
			scs_strong_update(&sd, piece, take);
		if (reading)
			spill_reader_done(&rd, i);
	}
	if (reading)
		spill_reader_end(&rd, th);
	if (rc < 0) {
		if (strong)
			scs_strong_dispose(&sd);
		return rc;
	}
	if (strong) {
		scs_strong_final(&sd, r->strong);
		r->has_strong = 1;
	}
	if (p->unkeyed) {
		scs_hash_final(&p->key, &h);
		p->unkeyed = 0;
	}
	return SCS_OK;
}

void
scs_payloads_stream_free(scs_payloads *set)
{
	if (set->stream == NULL)
		return;
	scs_buf_dispose(&set->stream->lit);
	free(set->stream->segs);
	free(set->stream);
	set->stream = NULL;
}

int
scs_payloads_taken_back(const scs_payloads *set, uint32_t id)
{
	const scs_spilled *r = id < set->n_spilled_ids && set->spilled[id] ? &set->recs[set->spilled[id] - 1] : NULL;

	return r && r->twin != UINT32_MAX;
}

void
scs_payloads_spill_forget(scs_payloads *set)
{
	free(set->spill);
	set->spill = NULL;
	set->n_spill = set->cap_spill = 0;
}

/* Add a file to the spill's: @sink, or the next file @next makes when NULL. */
static int
spill_file(scs_payloads *set, scs_sink *sink, const scs_spill_next *next)
{
	int rc;

	if ((rc = scs_grow(&set->spill, &set->cap_spill, set->n_spill, sizeof(*set->spill), 4, "the spill's files")) < 0)
		return rc;
	if (sink == NULL && (rc = next->open(next->ctx, &sink)) < 0)
		return rc;
	set->spill[set->n_spill++] = sink;
	return SCS_OK;
}

int
scs_payloads_spill(scs_payloads *set, scs_sink *sink, const void *owner, const scs_spill_item *items, size_t n,
    int merge_equal, unsigned align, const scs_spill_next *next, scs_progress_cb progress, void *progress_payload)
{
	uint64_t total = 0, done = 0, reported = 0, max = next ? next->max_len : 0;
	spill_table t = { NULL, 0 };
	size_t cap = 0;
	uint32_t cur = 0;         /* the file being written */
	uint8_t *ring = NULL;     /* the reader thread's pieces (spill_one()); NULL: every payload read here */
	int rc = SCS_OK;

	free(set->spilled);
	free(set->recs);
	set->n_recs = 0;
	set->n_spilled_ids = set->n;
	scs_payloads_spill_forget(set);
	set->spill_owner = owner;
	for (cap = 16; cap < 2 * n; cap *= 2)
		;
	t.mask = cap - 1;
	if ((set->spilled = calloc(set->n ? set->n : 1, sizeof(*set->spilled))) == NULL ||
	    (set->recs = malloc((n ? n : 1) * sizeof(*set->recs))) == NULL ||
	    (t.slot = calloc(cap, sizeof(*t.slot))) == NULL) {
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate the spill's records");
		goto done;
	}
	if ((rc = spill_file(set, sink, NULL)) < 0)
		goto done;
	for (size_t i = 0; i < n; i++)
		total += set->items[items[i].id].key.len;
	for (size_t i = 0; i < n && ring == NULL; i++)
		if (set->items[items[i].id].where == SCS_AT_FILE && set->items[items[i].id].key.len >= spill_thread_min())
			ring = malloc((size_t)SPILL_RING * SPILL_PIECE_LEN);   /* NULL: read on this thread */
	for (size_t i = 0, ahead = 0; i < n; i++) {
		uint32_t id = items[i].id;
		uint64_t len = set->items[id].key.len, start;
		scs_spilled *r = &set->recs[set->n_recs];
		const scs_spilled *twin;

		if (ahead <= i)
			ahead = i + 1;
		for (; ahead < n && ahead < i + SPILL_AHEAD; ahead++)
			if (set->items[items[ahead].id].key.len <= SPILL_AHEAD_MAX)
				scs_payloads_prefetch(set, items[ahead].id, 0, SPILL_AHEAD_MAX);
		if (id >= set->n_spilled_ids || set->spilled[id])
			continue;         /* listed twice */
		sink = set->spill[cur];
		start = (scs_sink_pos(sink) + align - 1) / align * align;
		if (scs_data_file_full(scs_sink_pos(sink), start, len, max)) {
			/* the file before waits for the writer without its buffer */
			if ((rc = scs_sink_rest(sink)) < 0 ||
			    (cur + 1 == set->n_spill && (rc = spill_file(set, NULL, next)) < 0))
				goto done;
			sink = set->spill[++cur];
			start = 0;        /* a file after the current one is empty */
		}
		memset(r, 0, sizeof(*r));
		r->id = id;
		r->file = cur;
		r->off = start + items[i].head_len;
		r->cls = items[i].cls;
		r->twin = UINT32_MAX;
		if ((rc = scs_sink_pad_to(sink, start)) < 0 ||
		    (items[i].head_len && (rc = scs_sink_write(sink, items[i].head, items[i].head_len)) < 0) ||
		    (rc = spill_one(set, sink, id, items[i].strong, r, ring)) < 0 ||
		    (items[i].tail_len && (rc = scs_sink_write(sink, items[i].tail, items[i].tail_len)) < 0))
			goto done;
		set->spilled[id] = (uint32_t)++set->n_recs;
		done += len;
		if (merge_equal && r->cls && r->has_strong && (twin = spill_twin(&t, set, r, (uint32_t)(set->n_recs - 1))) != NULL) {
			/* the same bytes were spilled before: these go, the payload points at those */
			if ((rc = scs_sink_truncate(sink, start)) < 0)
				goto done;
			/* a file these started is empty again: the next payload tries the one before */
			if (start == 0 && cur > 0 && (rc = scs_sink_rest(sink)) == SCS_OK)
				cur--;
			if (rc < 0)
				goto done;
			r->file = twin->file;
			r->off = twin->off;
			r->twin = (uint32_t)(twin - set->recs);
		}
		if (progress && done - reported >= ((uint64_t)64 << 20)) {
			reported = done;
			progress(progress_payload, done, total);
		}
	}
done:
	free(t.slot);
	free(ring);
	if (rc < 0)
		set->n_spilled_ids = 0;
	return rc;
}

int
scs_payloads_reads_from(const scs_payloads *set, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	for (size_t i = 0; i < set->n_files; i++)
		if (scs_source_is_file(set->files[i], (uint64_t)st.st_dev, (uint64_t)st.st_ino))
			return 1;
	return 0;
}
