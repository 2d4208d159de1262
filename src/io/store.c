/*
 * store.c: LMDB content-addressed blobs (see store.h): the store opened,
 * its file and map grown, its transactions, its format and its reclaim; the
 * blobs themselves are in store_blob.c (the cut is said there). The only
 * files that include lmdb.h: MDB_* codes become SCS_* codes and messages
 * here, and no LMDB pointer leaves them (chunks are copied or decompressed
 * inside the read transaction).
 *
 * Layout: db "index" maps a 24-byte key (digest, length) to the 8-byte ids
 * of the blobs with that key (sorted duplicates: keys only nominate, so two
 * different blobs may share one); db "chunks" maps (id, chunk index) to a
 * 16-byte header (codec, raw length, check) and the chunk bytes; db "meta"
 * holds the store's format, the next id and the count of chunks given back.
 * Beside a blob's chunks, "chunks" holds its record under (id, RECORD_IDX):
 * the key of the blob the id names, written when a writer finishes with it
 * (next to the chunks, it costs no tree of its own, goes where they go, and
 * a read finds it on their pages).
 * A store of another format is refused when opened. A finished writer's
 * bytes are compared with every blob already under its key, chunk by chunk,
 * and reused only when equal.
 *
 * Damage is refused, never used: each chunk's check covers its bytes and
 * its place (id, index); an id is given to one writer only (a writer whose
 * id already has chunks or a record, as when the id counter went back, is
 * refused, and no chunk is ever written over); and every read confirms that
 * the blob's id is recorded under the key the reader holds. So the bytes a
 * read returns are those the writer of that key stored.
 *
 * Reclaim: a writer commits its chunks in batches, and they are named by no
 * index entry until it finishes. An aborted writer drops them; a kept store
 * opened by no other process (a shared flock on "scs4onnx.lock" in its
 * folder tells) drops every chunk whose id the index does not name, which
 * is what a writer killed between batches leaves.
 *
 * Several processes: LMDB lets them share a kept store (one write
 * transaction at a time, readers beside it), but with MDB_WRITEMAP setting
 * the map's size sets the file's too (ftruncate): a process mapping less
 * than another would cut the file under the other's map, a SIGBUS there.
 * So the file never shrinks: its size changes only under an exclusive
 * flock on it (a descriptor of "data.mdb" of our own), and every map, at
 * open, on growth and on MDB_MAP_RESIZED (another process grew it), spans
 * the whole file. A write transaction checks its room again once it holds
 * LMDB's writer lock, as another process may have used the room seen before.
 *
 * Buffers: a writer owns its pending chunk and its packing buffer from open
 * to finish or abort (lent by the store, so a run of small blobs allocates
 * them once); reads decode into the caller's buffer when they take a whole
 * chunk and into the store's own read buffer otherwise, which nothing else
 * touches. So a read may run while a writer is open, as the downcast does.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/store.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "io/codec.h"
#include "util/err.h"
#include "util/num.h"
#include "util/path.h"
#include "io/sink.h"
#include "io/store_impl.h"

#define MAP_START ((size_t)256 << 10)           /* the map (and, with MDB_WRITEMAP, the file) grows from here */
#define MAP_STEP ((uint64_t)64 << 10)          /* map sizes are whole 64 KiBs */
#define SLACK ((uint64_t)256 << 10)            /* room kept for B-tree and meta pages */
#define CHUNK_COST ((uint64_t)SCS_CHUNK_LEN + 4096 + PAGE_COST)  /* a chunk's worst case in the map */
#define DROP_BATCH 64                           /* chunks dropped per transaction (its free list stays small) */
#define DROP_ROOM ((uint64_t)2 << 20)           /* map room such a transaction may take */

/*
 * The store format, in meta's "format" entry. 1 (no entry): content keys
 * and chunk checks of a digest of the project's own; 2: XXH3 (hash.h).
 */
#define FORMAT 2

static int lock_and_reclaim(scs_store *st, const char *dir);

int
scs_store_mdb_fail(int mrc, const char *what, const scs_store *st)
{
	if (mrc == MDB_NOTFOUND)
		return SCS_ENOTFOUND;
	return scs_err_set(mrc == ENOMEM ? SCS_ENOMEM : SCS_EIO, "%s: %s: %s",
	    st->label, what, mdb_strerror(mrc));
}

void
scs_store_key_bytes(uint8_t out[24], const scs_key *k)
{
	/* big-endian, so LMDB's byte order is the numeric order */
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(k->h[0] >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(k->h[1] >> (56 - 8 * i));
		out[16 + i] = (uint8_t)(k->len >> (56 - 8 * i));
	}
}

void
scs_store_chunk_key(uint8_t out[12], uint64_t id, uint32_t idx)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(id >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		out[8 + i] = (uint8_t)(idx >> (24 - 8 * i));
}

/* A new environment with the store's settings (its tables, its first map). */
static int
env_create(scs_store *st)
{
	int mrc;

	if ((mrc = mdb_env_create(&st->env)) != 0 || (mrc = mdb_env_set_maxdbs(st->env, 4)) != 0 ||
	    (mrc = mdb_env_set_mapsize(st->env, MAP_START)) != 0)
		return scs_store_mdb_fail(mrc, "cannot open", st);
	return SCS_OK;
}

/*
 * A temporary store is a file nobody can reach and that cannot outlive the
 * process: made with O_TMPFILE and opened by LMDB through /proc/self/fd, or
 * (where either is missing) made under a unique name that is unlinked right
 * after LMDB opened it. No lock file: one process uses it.
 */
static int
open_temporary(scs_store *st, const char *parent, unsigned flags)
{
	char via[64], *name;
	int fd, mrc, rc;

	flags |= MDB_NOSUBDIR | MDB_NOLOCK;
	if ((fd = open(parent, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0) {
		snprintf(via, sizeof(via), "/proc/self/fd/%d", fd);
		mrc = mdb_env_open(st->env, via, flags, 0600);
		close(fd);
		if (mrc == 0)
			return SCS_OK;
		mdb_env_close(st->env);
		st->env = NULL;
		if ((rc = env_create(st)) < 0)
			return rc;
	}
	if ((name = scs_path_join(parent, ".scs4onnx-store.XXXXXX")) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	if ((fd = mkostemp(name, O_CLOEXEC)) < 0) {
		free(name);
		return scs_err_errno(errno, "%s: cannot create a temporary store in this folder", parent);
	}
	close(fd);
	mrc = mdb_env_open(st->env, name, flags, 0600);
	unlink(name);
	free(name);
	return mrc ? scs_store_mdb_fail(mrc, "cannot open", st) : SCS_OK;
}

/*
 * Give the map's whole file its disk blocks now, so that with MDB_WRITEMAP a
 * full disk is an error here and never a SIGBUS when a page is touched.
 */
static int
reserve_file(scs_store *st, uint64_t len)
{
	int fd, err;

	if (mdb_env_get_fd(st->env, &fd) != 0)
		return scs_err_set(SCS_EIO, "%s: no file descriptor", st->label);
	err = posix_fallocate(fd, 0, (off_t)len);
	if (err == EINTR)
		err = posix_fallocate(fd, 0, (off_t)len);
	if (err != 0 && err != EOPNOTSUPP && err != EINVAL)
		return scs_err_errno(err, "%s: cannot reserve %llu bytes", st->label, (unsigned long long)len);
	return SCS_OK;
}

/* Reserve the blocks of the whole map as it is now. */
static int
reserve_map(scs_store *st)
{
	MDB_envinfo info;
	int mrc;

	if ((mrc = mdb_env_info(st->env, &info)) != 0)
		return scs_store_mdb_fail(mrc, "cannot read the map size", st);
	return reserve_file(st, info.me_mapsize);
}

/* Take (LOCK_EX) or give back (LOCK_UN) the flock under which a kept
 * store's data file changes size; a temporary store has one process. */
static int
map_lock(scs_store *st, int op)
{
	if (st->map_fd < 0)
		return SCS_OK;
	while (flock(st->map_fd, op) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == ENOLCK || errno == EOPNOTSUPP || errno == EINVAL)
			return SCS_OK;  /* a file system without locks */
		return scs_err_errno(errno, "%s: cannot lock its data file", st->label);
	}
	return SCS_OK;
}

/* The data file's size now. */
static int
data_size(scs_store *st, uint64_t *len)
{
	struct stat sb;
	int fd = st->map_fd;

	if (fd < 0 && mdb_env_get_fd(st->env, &fd) != 0)
		return scs_err_set(SCS_EIO, "%s: no file descriptor", st->label);
	if (fstat(fd, &sb) < 0)
		return scs_err_errno(errno, "%s: cannot read its size", st->label);
	*len = (uint64_t)sb.st_size;
	return SCS_OK;
}

/*
 * Map the whole data file, grown first to @want bytes when it is smaller
 * (its blocks reserved): under the map lock, so the size LMDB cuts the file
 * to is never less than what another process maps. @want 0: take in what
 * another process grew.
 */
static int
map_whole(scs_store *st, uint64_t want)
{
	uint64_t size;
	int mrc, rc, unlock_rc;

	if ((rc = map_lock(st, LOCK_EX)) < 0)
		return rc;
	if ((rc = data_size(st, &size)) == SCS_OK && want > size) {
		rc = reserve_file(st, want);
		size = want;
	}
	if (rc == SCS_OK && size > SIZE_MAX)
		rc = scs_err_set(SCS_ENOMEM, "%s: a map of %llu bytes does not fit", st->label,
		    (unsigned long long)size);
	if (rc == SCS_OK && (mrc = mdb_env_set_mapsize(st->env, (size_t)size)) != 0)
		rc = scs_store_mdb_fail(mrc, "cannot grow the map", st);
	unlock_rc = map_lock(st, LOCK_UN);
	return rc < 0 ? rc : unlock_rc;
}

/* mdb_txn_begin, taking in the map another process grew (MDB_MAP_RESIZED):
 * an MDB_* code, or an SCS_* error already set (negative). A map that does
 * not grow when taken in again is a damaged meta page (pages past any size
 * a map can have). */
int
scs_store_txn_begin(scs_store *st, unsigned flags, MDB_txn **txn)
{
	MDB_envinfo before, after;
	int mrc, rc;

	while ((mrc = mdb_txn_begin(st->env, NULL, flags, txn)) == MDB_MAP_RESIZED) {
		if ((mrc = mdb_env_info(st->env, &before)) != 0)
			break;
		if ((rc = map_whole(st, 0)) < 0)
			return rc;
		if ((mrc = mdb_env_info(st->env, &after)) != 0)
			break;
		if (after.me_mapsize <= before.me_mapsize)
			return scs_err_set(SCS_ECORRUPT, "%s: damaged: its meta page names pages past its end; remove "
			    "it or name another folder", st->label);
	}
	return mrc;
}

/* scs_store_txn_begin()'s failure as an SCS_* error. */
int
scs_store_txn_fail(int mrc, const char *what, const scs_store *st)
{
	return mrc < 0 ? mrc : scs_store_mdb_fail(mrc, what, st);
}

/* Map size and bytes in use; *room what a transaction may still add. */
static int
map_room(scs_store *st, uint64_t *room)
{
	MDB_envinfo info;
	MDB_stat stat;
	uint64_t used;
	int mrc;

	if ((mrc = mdb_env_info(st->env, &info)) != 0 || (mrc = mdb_env_stat(st->env, &stat)) != 0)
		return scs_store_mdb_fail(mrc, "cannot read the map size", st);
	used = ((uint64_t)info.me_last_pgno + 1) * stat.ms_psize;
	*room = info.me_mapsize > used + SLACK ? info.me_mapsize - used - SLACK : 0;
	return SCS_OK;
}

/*
 * Make sure the next write transaction may add @need bytes: the map grows
 * (by half at least, in whole MiBs) while no transaction is open, and its
 * file's blocks are reserved. *room the bytes it may add.
 */
static int
ensure_room(scs_store *st, uint64_t need, uint64_t *room)
{
	MDB_envinfo info;
	uint64_t size;
	int mrc, rc;

	if ((rc = map_room(st, room)) < 0 || *room >= need)
		return rc;
	if ((mrc = mdb_env_info(st->env, &info)) != 0)
		return scs_store_mdb_fail(mrc, "cannot read the map size", st);
	size = info.me_mapsize + (need - *room);
	if (size < info.me_mapsize + info.me_mapsize / 2)
		size = info.me_mapsize + info.me_mapsize / 2;
	size = (size + MAP_STEP - 1) / MAP_STEP * MAP_STEP;
	if ((rc = map_whole(st, size)) < 0)
		return rc;
	return map_room(st, room);
}

/*
 * Begin a write transaction that may add @need bytes to the map; *room
 * (when not NULL) what it may add. The room is looked at again under LMDB's
 * writer lock: another process may have taken what was there before.
 */
int
scs_store_begin_write(scs_store *st, uint64_t need, MDB_txn **txn, uint64_t *room)
{
	uint64_t left;
	int mrc, rc, tries = 0;

	for (;;) {
		if (++tries > 64)
			return scs_err_set(SCS_EIO, "%s: no room for a write after %d tries", st->label, tries - 1);
		if ((rc = ensure_room(st, need, &left)) < 0)
			return rc;
		if ((mrc = scs_store_txn_begin(st, 0, txn)) != 0)
			return scs_store_txn_fail(mrc, "cannot begin a write", st);
		if ((rc = map_room(st, &left)) < 0 || left >= need)
			break;
		mdb_txn_abort(*txn);
	}
	if (rc < 0) {
		mdb_txn_abort(*txn);
		*txn = NULL;
		return rc;
	}
	if (room)
		*room = left;
	return SCS_OK;
}

/*
 * A store of another format is refused: its keys and chunk checks were made
 * by another digest. An empty store is this version's: @txn (a write) marks it.
 */
static int
check_format(scs_store *st, MDB_txn *txn)
{
	MDB_val k = { 6, "format" }, v;
	MDB_stat stat;
	uint8_t word[8];
	uint64_t format = 1;
	int mrc;

	mrc = mdb_get(txn, st->meta, &k, &v);
	if (mrc == 0 && v.mv_size != 8)
		return scs_err_set(SCS_ECORRUPT, "%s: damaged format entry", st->label);
	if (mrc == 0)
		format = scs_load_le64(v.mv_data);
	else if (mrc != MDB_NOTFOUND)
		return scs_store_mdb_fail(mrc, "cannot read its format", st);
	else if ((mrc = mdb_stat(txn, st->meta, &stat)) != 0)
		return scs_store_mdb_fail(mrc, "cannot read its format", st);
	else if (stat.ms_entries == 0) {
		scs_store_le64(word, FORMAT);
		v.mv_size = sizeof(word);
		v.mv_data = word;
		return (mrc = mdb_put(txn, st->meta, &k, &v, 0)) ? scs_store_mdb_fail(mrc, "cannot write its format", st) : SCS_OK;
	}
	if (format != FORMAT)
		return scs_err_set(SCS_EUNSUPPORTED, "%s: written by another version of scs4onnx (store format %llu, "
		    "this version reads format %d): remove it or name another folder", st->label,
		    (unsigned long long)format, FORMAT);
	return SCS_OK;
}

/* Open (or make) file @name in a kept store's folder @dir, for the store's
 * own locks: *fd its descriptor. @what names it in messages. */
static int
open_in(const scs_store *st, const char *dir, const char *name, const char *what, int *fd)
{
	char *path;

	if ((path = scs_path_join(dir, name)) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a path");
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(path);
	if (*fd < 0)
		return scs_err_errno(errno, "%s: cannot open its %s", st->label, what);
	return SCS_OK;
}

/*
 * Open a kept store's environment in folder @dir: its data file is opened
 * first (made empty when missing, which LMDB takes for a new store) and
 * flocked, so the map LMDB sets at open spans the whole file.
 */
static int
open_kept(scs_store *st, const char *dir, unsigned flags)
{
	uint64_t size;
	int mrc, rc, unlock_rc;

	if ((rc = open_in(st, dir, "data.mdb", "data file", &st->map_fd)) < 0 || (rc = map_lock(st, LOCK_EX)) < 0)
		return rc;
	if ((rc = data_size(st, &size)) == SCS_OK && size > MAP_START && size <= SIZE_MAX &&
	    (mrc = mdb_env_set_mapsize(st->env, (size_t)size)) != 0)
		rc = scs_store_mdb_fail(mrc, "cannot open", st);
	if (rc == SCS_OK && (mrc = mdb_env_open(st->env, dir, flags, 0644)) != 0)
		rc = scs_store_mdb_fail(mrc, "cannot open", st);
	if (rc == SCS_OK)
		rc = reserve_map(st);
	unlock_rc = map_lock(st, LOCK_UN);
	return rc < 0 ? rc : unlock_rc;
}

int
scs_store_open(scs_store **out, const char *dir, const char *tmp_parent)
{
	scs_store *st;
	MDB_txn *txn = NULL;
	unsigned flags = MDB_WRITEMAP | MDB_NOSYNC | MDB_NOMETASYNC | MDB_NOTLS;
	int mrc, rc;

	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a store");
	st->packed_cap = HDR_LEN + scs_codec_bound(SCS_CHUNK_LEN);
	st->temporary = dir == NULL;
	st->lock_fd = -1;
	st->map_fd = -1;
	if (dir == NULL && tmp_parent == NULL)
		tmp_parent = ".";
	if ((st->read_buf = malloc(SCS_CHUNK_LEN)) == NULL || (st->spare[0] = malloc(SCS_CHUNK_LEN)) == NULL ||
	    (st->spare[1] = malloc(st->packed_cap)) == NULL ||
	    asprintf(&st->label, dir ? "store %s" : "temporary store in %s", dir ? dir : tmp_parent) < 0) {
		st->label = NULL;
		rc = scs_err_set(SCS_ENOMEM, "cannot allocate a store");
		goto fail;
	}
	if (dir && mkdir(dir, 0777) < 0 && errno != EEXIST) {
		rc = scs_err_errno(errno, "%s: cannot create the store folder", dir);
		goto fail;
	}
	if ((rc = env_create(st)) < 0)
		goto fail;
	if (dir == NULL && ((rc = open_temporary(st, tmp_parent, flags)) < 0 || (rc = reserve_map(st)) < 0))
		goto fail;
	if (dir && (rc = open_kept(st, dir, flags)) < 0)
		goto fail;
	/* a few pages, within the slack the map keeps */
	if ((mrc = scs_store_txn_begin(st, 0, &txn)) != 0) {
		rc = scs_store_txn_fail(mrc, "cannot open its tables", st);
		goto fail;
	}
	if ((mrc = mdb_dbi_open(txn, "index", MDB_CREATE | MDB_DUPSORT, &st->index)) != 0 ||
	    (mrc = mdb_dbi_open(txn, "chunks", MDB_CREATE, &st->chunks)) != 0 ||
	    (mrc = mdb_dbi_open(txn, "meta", MDB_CREATE, &st->meta)) != 0) {
		mdb_txn_abort(txn);
		rc = scs_store_mdb_fail(mrc, "cannot open its tables", st);
		goto fail;
	}
	if ((rc = check_format(st, txn)) < 0) {
		mdb_txn_abort(txn);
		goto fail;
	}
	if ((mrc = mdb_txn_commit(txn)) != 0) {
		rc = scs_store_mdb_fail(mrc, "cannot open its tables", st);
		goto fail;
	}
	if (dir && (rc = lock_and_reclaim(st, dir)) < 0)
		goto fail;
	*out = st;
	return SCS_OK;
fail:
	scs_store_close(st);
	return rc;
}

void
scs_store_close(scs_store *st)
{
	if (st == NULL)
		return;
	if (st->env) {
		/* a kept store is on disk whole when the run ends */
		if (!st->temporary)
			mdb_env_sync(st->env, 1);
		mdb_env_close(st->env);
	}
	if (st->lock_fd >= 0)
		close(st->lock_fd);     /* and with it the flock */
	if (st->map_fd >= 0)
		close(st->map_fd);
	free(st->label);
	free(st->read_buf);
	free(st->spare[0]);
	free(st->spare[1]);
	free(st);
}

/* Ids are stored big-endian, so LMDB's byte order is their order. */
uint64_t
scs_store_load_be64(const void *p)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

/* The id stored in an index value. */
int
scs_store_id_of(const scs_store *st, const MDB_val *v, uint64_t *id)
{
	if (v->mv_size != 8)
		return scs_err_set(SCS_ECORRUPT, "%s: damaged blob index", st->label);
	*id = scs_store_load_be64(v->mv_data);
	return SCS_OK;
}

void
scs_store_id_bytes(uint8_t out[8], uint64_t id)
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(id >> (56 - 8 * i));
}

/* 1 when chunk table key @kb is a blob's record, not a chunk. */
static int
is_record(const uint8_t kb[12])
{
	return kb[8] == 0xff && kb[9] == 0xff && kb[10] == 0xff && kb[11] == 0xff;
}

static int
has_id(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid] == id)
			return 1;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Add @n to the count of chunks given back, in meta, in a transaction of its
 * own: LMDB hands the pages a transaction T freed only to transactions
 * after T + 1, so this small one makes them the next writer's at once.
 */
static int
count_dropped(scs_store *st, uint64_t n)
{
	MDB_txn *txn;
	MDB_val k = { 7, "dropped" }, v;
	uint8_t sum[8];
	int mrc, rc;

	if ((rc = scs_store_begin_write(st, 4 * PAGE_COST, &txn, NULL)) < 0)
		return rc;
	mrc = mdb_get(txn, st->meta, &k, &v);
	if (mrc == 0 && v.mv_size == 8)
		n += scs_load_le64(v.mv_data);
	scs_store_le64(sum, n);
	v.mv_size = 8;
	v.mv_data = sum;
	if ((mrc == 0 || mrc == MDB_NOTFOUND) && (mrc = mdb_put(txn, st->meta, &k, &v, 0)) == 0)
		mrc = mdb_txn_commit(txn);
	else
		mdb_txn_abort(txn);
	return mrc ? scs_store_mdb_fail(mrc, "cannot count dropped chunks", st) : SCS_OK;
}

/*
 * Drop the chunks of every blob id in [@first, @last] that is not among
 * the @n_keep sorted ids @keep, in transactions of DROP_BATCH chunks (each
 * freed chunk lists its pages in the transaction's free list). Only keys
 * are looked at, and the chunks of a kept blob are skipped in one seek.
 */
int
scs_store_drop_unindexed(scs_store *st, uint64_t first, uint64_t last, const uint64_t *keep, size_t n_keep)
{
	MDB_txn *txn = NULL;
	MDB_cursor *cur = NULL;
	uint8_t kb[12];
	MDB_val k, v;
	uint64_t id, n_dropped = 0;
	int mrc = 0, rc = SCS_OK, in_txn = 0;

	scs_store_chunk_key(kb, first, 0);
	for (;;) {
		if (txn == NULL) {
			if ((rc = scs_store_begin_write(st, DROP_ROOM, &txn, NULL)) < 0)
				break;
			if ((mrc = mdb_cursor_open(txn, st->chunks, &cur)) != 0)
				break;
			in_txn = 0;
		}
		k.mv_size = sizeof(kb);
		k.mv_data = kb;
		if ((mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE)) != 0)
			break;
		if (k.mv_size != sizeof(kb)) {
			rc = scs_err_set(SCS_ECORRUPT, "%s: damaged chunk table", st->label);
			break;
		}
		if ((id = scs_store_load_be64(k.mv_data)) > last)
			break;
		if (has_id(keep, n_keep, id)) {
			if (id == UINT64_MAX)
				break;
			scs_store_chunk_key(kb, id + 1, 0);
			continue;
		}
		memcpy(kb, k.mv_data, sizeof(kb));   /* where to look again: the key after this one */
		if ((mrc = mdb_cursor_del(cur, 0)) != 0)
			break;
		n_dropped += !is_record(kb);
		if (++in_txn == DROP_BATCH) {
			mdb_cursor_close(cur);
			cur = NULL;
			mrc = mdb_txn_commit(txn);
			txn = NULL;
			if (mrc != 0)
				break;
		}
	}
	if (cur)
		mdb_cursor_close(cur);
	if (mrc != 0 && mrc != MDB_NOTFOUND) {
		if (txn)
			mdb_txn_abort(txn);
		return scs_store_mdb_fail(mrc, "cannot drop unindexed chunks", st);
	}
	if (rc < 0) {
		if (txn)
			mdb_txn_abort(txn);
		return rc;
	}
	if (txn && (mrc = mdb_txn_commit(txn)) != 0)
		return scs_store_mdb_fail(mrc, "cannot drop unindexed chunks", st);
	return n_dropped ? count_dropped(st, n_dropped) : SCS_OK;
}

static int
cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Give back the chunks no index entry names: those of writers that were
 * aborted or killed between batches. Every id the index names is gathered
 * (8 bytes a blob) and the chunk table is walked by key.
 */
static int
reclaim(scs_store *st)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val k, v;
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0;
	int mrc, rc = SCS_OK;

	if ((mrc = scs_store_txn_begin(st, MDB_RDONLY, &txn)) != 0)
		return scs_store_txn_fail(mrc, "cannot begin a read", st);
	if ((mrc = mdb_cursor_open(txn, st->index, &cur)) != 0) {
		mdb_txn_abort(txn);
		return scs_store_mdb_fail(mrc, "cannot open a cursor", st);
	}
	for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0; mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (scs_grow(&ids, &cap, n, sizeof(*ids), 1024, "the blob ids") < 0) {
			rc = scs_err_set(SCS_ENOMEM, "%s: cannot list the blob ids", st->label);
			break;
		}
		if ((rc = scs_store_id_of(st, &v, &ids[n++])) < 0)
			break;
	}
	mdb_cursor_close(cur);
	mdb_txn_abort(txn);
	if (rc == SCS_OK && mrc != MDB_NOTFOUND)
		rc = scs_store_mdb_fail(mrc, "cannot list the blob ids", st);
	if (rc == SCS_OK) {
		if (n)
			qsort(ids, n, sizeof(*ids), cmp_id);
		rc = scs_store_drop_unindexed(st, 0, UINT64_MAX, ids, n);
	}
	free(ids);
	return rc;
}

/*
 * A kept store may be open in several processes, and a writer's chunks are
 * unindexed until it finishes: reclaim only while no other process has the
 * store open. Each holds a shared flock on "scs4onnx.lock" in the folder;
 * whoever gets it exclusively is alone, reclaims, then shares it.
 */
static int
lock_and_reclaim(scs_store *st, const char *dir)
{
	int rc;

	if ((rc = open_in(st, dir, "scs4onnx.lock", "lock file", &st->lock_fd)) < 0)
		return rc;
	if (flock(st->lock_fd, LOCK_EX | LOCK_NB) == 0)
		rc = reclaim(st);
	else if (errno != EWOULDBLOCK)
		return SCS_OK;          /* a file system without locks: no reclaim */
	while (flock(st->lock_fd, LOCK_SH) < 0) {
		if (errno != EINTR)
			return scs_err_errno(errno, "%s: cannot lock", st->label);
	}
	return rc;
}

#ifdef SCS_TEST_HOOKS
int
scs_store_damage_for_tests(scs_store *st, const scs_blob *blob, uint32_t idx, long at)
{
	MDB_txn *txn;
	uint8_t kb[12];
	MDB_val k = { sizeof(kb), kb }, v, nv;
	uint8_t *copy;
	int mrc, rc;

	if ((rc = scs_store_begin_write(st, 2 * CHUNK_COST, &txn, NULL)) < 0)
		return rc;
	scs_store_chunk_key(kb, blob->id, idx);
	if ((mrc = mdb_get(txn, st->chunks, &k, &v)) != 0) {
		rc = scs_store_mdb_fail(mrc, "no such chunk", st);
		goto done;
	}
	if ((copy = malloc(v.mv_size)) == NULL) {
		rc = SCS_ENOMEM;
		goto done;
	}
	memcpy(copy, v.mv_data, v.mv_size);
	copy[at < 0 ? v.mv_size - (size_t)-at : (size_t)at] ^= 0x5a;
	nv.mv_size = v.mv_size;
	nv.mv_data = copy;
	mrc = mdb_put(txn, st->chunks, &k, &nv, 0);
	free(copy);
	if (mrc != 0) {
		rc = scs_store_mdb_fail(mrc, "cannot rewrite a chunk", st);
		goto done;
	}
	mrc = mdb_txn_commit(txn);
	return mrc ? scs_store_mdb_fail(mrc, "cannot commit", st) : SCS_OK;
done:
	mdb_txn_abort(txn);
	return rc;
}

int
scs_store_misindex_for_tests(scs_store *st, const scs_key *key, uint64_t id)
{
	MDB_txn *txn;
	uint8_t kb[24], idb[8];
	MDB_val k = { sizeof(kb), kb }, v = { sizeof(idb), idb };
	int mrc, rc;

	if ((rc = scs_store_begin_write(st, 4 * PAGE_COST, &txn, NULL)) < 0)
		return rc;
	scs_store_key_bytes(kb, key);
	scs_store_id_bytes(idb, id);
	if ((mrc = mdb_del(txn, st->index, &k, NULL)) != 0 && mrc != MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return scs_store_mdb_fail(mrc, "cannot drop an index entry", st);
	}
	if ((mrc = mdb_put(txn, st->index, &k, &v, 0)) != 0) {
		mdb_txn_abort(txn);
		return scs_store_mdb_fail(mrc, "cannot index a blob", st);
	}
	mrc = mdb_txn_commit(txn);
	return mrc ? scs_store_mdb_fail(mrc, "cannot commit", st) : SCS_OK;
}

int
scs_store_meta_for_tests(scs_store *st, const char *name, uint8_t *old, size_t cap, size_t *old_len,
    const void *val, size_t len)
{
	MDB_txn *txn;
	MDB_val k = { strlen(name), (void *)name }, v;
	int mrc, rc;

	if ((rc = scs_store_begin_write(st, 4 * PAGE_COST, &txn, NULL)) < 0)
		return rc;
	*old_len = 0;
	if ((mrc = mdb_get(txn, st->meta, &k, &v)) == 0) {
		*old_len = v.mv_size;
		memcpy(old, v.mv_data, v.mv_size < cap ? v.mv_size : cap);
	}
	if (val && len) {
		v.mv_size = len;
		v.mv_data = (void *)val;
		mrc = mdb_put(txn, st->meta, &k, &v, 0);
	} else if (val) {
		mrc = mdb_del(txn, st->meta, &k, NULL);
	}
	if (mrc != 0 && mrc != MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return scs_store_mdb_fail(mrc, "cannot change its meta table", st);
	}
	mrc = mdb_txn_commit(txn);
	return mrc ? scs_store_mdb_fail(mrc, "cannot commit", st) : SCS_OK;
}

int
scs_store_stat_for_tests(scs_store *st, uint64_t *n_chunks, uint64_t *n_pages)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_envinfo info;
	MDB_val k, v;
	int mrc;

	if ((mrc = scs_store_txn_begin(st, MDB_RDONLY, &txn)) != 0)
		return scs_store_txn_fail(mrc, "cannot begin a read", st);
	*n_chunks = 0;
	if ((mrc = mdb_cursor_open(txn, st->chunks, &cur)) == 0) {
		/* records are not chunks */
		for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); mrc == 0; mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
			*n_chunks += k.mv_size != 12 || !is_record(k.mv_data);
		mdb_cursor_close(cur);
	}
	mdb_txn_abort(txn);
	if ((mrc != 0 && mrc != MDB_NOTFOUND) || (mrc = mdb_env_info(st->env, &info)) != 0)
		return scs_store_mdb_fail(mrc, "cannot read its statistics", st);
	*n_pages = (uint64_t)info.me_last_pgno + 1;
	return SCS_OK;
}
#endif
