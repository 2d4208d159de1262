/*
 * store_blob.c: what the store holds (see store.h and store.c's opening
 * comment): a blob written by a writer in chunks, compared with the blobs
 * already under its key, indexed, recorded, and read back, every chunk
 * checked. Like store.c, it keeps every LMDB pointer inside.
 *
 * The cut: store.c's comment names the store's parts. Its file, map,
 * transactions, format and reclaim ("Several processes", "Reclaim") stay in
 * store.c, which opens, grows and closes the store; the blobs in it
 * ("Layout" of the index and chunk tables, "Damage", a writer's "Buffers")
 * are here. The two share the store's insides (store_impl.h) and nothing
 * else: this file calls store.c's transactions and its dropping of
 * unindexed chunks, store.c calls nothing here.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io/store.h"

#include <errno.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/codec.h"
#include "util/err.h"
#include "util/num.h"
#include "io/store_impl.h"

struct scs_store_writer {
	scs_store *st;
	MDB_txn *txn;
	uint64_t id;
	uint32_t n_chunks;
	uint32_t n_committed; /* chunks earlier batches committed, unindexed until finish commits */
	uint64_t since_commit;
	scs_hash hash;
	uint64_t room;      /* bytes this transaction may still add to the map */
	uint64_t total;     /* bytes written so far */
	uint8_t *raw;       /* the pending chunk (n_raw bytes); owned by the writer */
	uint8_t *packed;    /* one chunk encoded, with header; owned by the writer */
	size_t n_raw;
};
int
scs_store_find(scs_blob *out, scs_store *st, const scs_key *key)
{
	MDB_txn *txn;
	uint8_t kb[24];
	MDB_val k = { sizeof(kb), kb }, v;
	int mrc, rc;

	if ((mrc = scs_store_txn_begin(st, MDB_RDONLY, &txn)) != 0)
		return scs_store_txn_fail(mrc, "cannot begin a read", st);
	scs_store_key_bytes(kb, key);
	if ((mrc = mdb_get(txn, st->index, &k, &v)) != 0)
		rc = scs_store_mdb_fail(mrc, "blob lookup", st);
	else if ((rc = scs_store_id_of(st, &v, &out->id)) == SCS_OK)
		out->key = *key;
	mdb_txn_abort(txn);
	return rc;
}

static int
id_taken(const scs_store *st, uint64_t id)
{
	return scs_err_set(SCS_ECORRUPT, "%s: blob id %llu is taken already (its id counter went back): the store "
	    "is damaged; remove it or name another folder", st->label, (unsigned long long)id);
}

/* SCS_OK when no chunk and no record names blob @id (a new writer's). */
static int
id_is_new(scs_store *st, MDB_txn *txn, uint64_t id)
{
	MDB_cursor *cur;
	uint8_t kb[12];
	MDB_val k = { sizeof(kb), kb }, v;
	int mrc;

	scs_store_chunk_key(kb, id, 0);
	if ((mrc = mdb_cursor_open(txn, st->chunks, &cur)) != 0)
		return scs_store_mdb_fail(mrc, "cannot open a cursor", st);
	mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	mdb_cursor_close(cur);
	if (mrc == 0 && k.mv_size == sizeof(kb) && scs_store_load_be64(k.mv_data) == id)
		return id_taken(st, id);
	return mrc == 0 || mrc == MDB_NOTFOUND ? SCS_OK : scs_store_mdb_fail(mrc, "cannot read a chunk", st);
}

/* Hand the writer's buffers back to the store and free the writer. */
static void
writer_free(scs_store_writer *w)
{
	w->st->spare[0] = w->raw;
	w->st->spare[1] = w->packed;
	w->st->writing = 0;
	free(w);
}

int
scs_store_writer_open(scs_store_writer **out, scs_store *st)
{
	scs_store_writer *w;
	MDB_val k = { 7, "next_id" }, v;
	uint8_t next[8];
	int mrc, rc = SCS_OK;

	*out = NULL;
	if (st->writing)
		return scs_err_set(SCS_EUSAGE, "%s: a writer is already open", st->label);
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot allocate a store writer");
	w->st = st;
	w->raw = st->spare[0];
	w->packed = st->spare[1];
	st->spare[0] = st->spare[1] = NULL;
	st->writing = 1;
	scs_hash_init(&w->hash);
	if ((rc = scs_store_begin_write(st, 4 * PAGE_COST, &w->txn, &w->room)) < 0) {
		writer_free(w);
		return rc;
	}
	mrc = mdb_get(w->txn, st->meta, &k, &v);
	if (mrc == 0 && v.mv_size == 8)
		w->id = scs_load_le64(v.mv_data);
	else if (mrc == 0)
		rc = scs_err_set(SCS_ECORRUPT, "%s: damaged id counter: remove the store or name another folder",
		    st->label);
	else if (mrc != MDB_NOTFOUND)
		goto fail;
	if (rc < 0 || (rc = id_is_new(st, w->txn, w->id)) < 0) {
		mdb_txn_abort(w->txn);
		writer_free(w);
		return rc;
	}
	scs_store_le64(next, w->id + 1);
	v.mv_size = 8;
	v.mv_data = next;
	if ((mrc = mdb_put(w->txn, st->meta, &k, &v, 0)) != 0)
		goto fail;
	*out = w;
	return SCS_OK;
fail:
	mdb_txn_abort(w->txn);
	writer_free(w);
	return scs_store_mdb_fail(mrc, "cannot reserve a blob id", st);
}

/*
 * Commit what the writer has and begin again with room for @need bytes and
 * for as much again as it wrote so far (up to a batch): a growing blob grows
 * the map geometrically, a small store stays small.
 */
static int
next_batch(scs_store_writer *w, uint64_t need)
{
	scs_store *st = w->st;
	uint64_t ahead = w->total > BATCH_LEN ? BATCH_LEN : w->total;
	int mrc;

	mrc = mdb_txn_commit(w->txn);
	w->txn = NULL;
	w->since_commit = 0;
	if (mrc != 0)
		return scs_store_mdb_fail(mrc, "cannot commit a batch", st);
	w->n_committed = w->n_chunks;
	return scs_store_begin_write(st, need + ahead, &w->txn, &w->room);
}

/*
 * A chunk's check covers its bytes and its place (blob id, index), so a
 * chunk reached under another key than its own fails it too.
 */
static uint64_t
chunk_check(const uint8_t *data, size_t len, uint64_t id, uint32_t idx)
{
	return scs_hash64(data, len) ^ (id * 0x9e3779b97f4a7c15u) ^ ((uint64_t)idx * 0xc2b2ae3d27d4eb4fu);
}

static int
put_chunk(scs_store_writer *w, const uint8_t *data, size_t len)
{
	scs_store *st = w->st;
	uint8_t kb[12];
	MDB_val k = { sizeof(kb), kb }, v;
	size_t packed_len;
	int mrc, rc;

	if ((rc = scs_codec_pack(w->packed + HDR_LEN, st->packed_cap - HDR_LEN, data, len, &packed_len)) < 0)
		return rc;
	memset(w->packed, 0, HDR_LEN);
	w->packed[0] = packed_len ? CODEC_ZSTD : CODEC_RAW;
	scs_store_le32(w->packed + 4, (uint32_t)len);
	scs_store_le64(w->packed + 8, chunk_check(data, len, w->id, w->n_chunks));
	if (!packed_len)
		memcpy(w->packed + HDR_LEN, data, len);
	scs_store_chunk_key(kb, w->id, w->n_chunks);
	v.mv_size = HDR_LEN + (packed_len ? packed_len : len);
	v.mv_data = w->packed;
	if ((v.mv_size + PAGE_COST > w->room || w->since_commit >= BATCH_LEN) &&
	    (rc = next_batch(w, v.mv_size + PAGE_COST)) < 0)
		return rc;
	if ((mrc = mdb_put(w->txn, st->chunks, &k, &v, MDB_NOOVERWRITE)) != 0)
		return mrc == MDB_KEYEXIST ? id_taken(st, w->id) : scs_store_mdb_fail(mrc, "cannot write a chunk", st);
	w->n_chunks++;
	w->since_commit += len;
	w->total += len;
	w->room -= v.mv_size + PAGE_COST;
	return SCS_OK;
}

int
scs_store_writer_write(scs_store_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t take;
	int rc;

	scs_hash_update(&w->hash, data, len);
	while (len) {
		take = SCS_CHUNK_LEN - w->n_raw;
		if (take > len)
			take = len;
		if (w->n_raw == 0 && take == SCS_CHUNK_LEN) {
			if ((rc = put_chunk(w, p, take)) < 0)
				return rc;
		} else {
			memcpy(w->raw + w->n_raw, p, take);
			w->n_raw += take;
			if (w->n_raw == SCS_CHUNK_LEN) {
				w->n_raw = 0;
				if ((rc = put_chunk(w, w->raw, SCS_CHUNK_LEN)) < 0)
					return rc;
			}
		}
		p += take;
		len -= take;
	}
	return SCS_OK;
}

/* The stored form of chunk @idx of blob @id, valid until @txn ends. */
static int
chunk_val(scs_store *st, MDB_txn *txn, uint64_t id, uint32_t idx, MDB_val *v)
{
	uint8_t kb[12];
	MDB_val k = { sizeof(kb), kb };
	int mrc;

	scs_store_chunk_key(kb, id, idx);
	if ((mrc = mdb_get(txn, st->chunks, &k, v)) != 0)
		return mrc == MDB_NOTFOUND ? scs_err_set(SCS_ECORRUPT, "%s: blob %llu: chunk %u is missing",
		    st->label, (unsigned long long)id, idx) : scs_store_mdb_fail(mrc, "cannot read a chunk", st);
	return SCS_OK;
}

/*
 * Decode a stored chunk @v (chunk @idx of blob @id) into @dst, which has
 * room for @cap bytes, and check it; *raw_len its length.
 */
static int
chunk_decode(const scs_store *st, const MDB_val *v, uint64_t id, uint32_t idx, uint8_t *dst, size_t cap,
    size_t *raw_len)
{
	const uint8_t *p = v->mv_data;
	size_t n;
	int rc;

	if (v->mv_size < HDR_LEN || (n = scs_load_le32(p + 4)) > cap)
		return scs_err_set(SCS_ECORRUPT, "%s: blob %llu: chunk %u has a bad header", st->label,
		    (unsigned long long)id, idx);
	if (p[0] == CODEC_ZSTD) {
		if ((rc = scs_codec_unpack(dst, n, p + HDR_LEN, v->mv_size - HDR_LEN)) < 0)
			return scs_err_wrap(rc, "%s: blob %llu: chunk %u", st->label, (unsigned long long)id, idx);
	} else if (p[0] == CODEC_RAW && v->mv_size - HDR_LEN == n) {
		memcpy(dst, p + HDR_LEN, n);
	} else {
		return scs_err_set(SCS_ECORRUPT, "%s: blob %llu: chunk %u has a bad header", st->label,
		    (unsigned long long)id, idx);
	}
	if (chunk_check(dst, n, id, idx) != scs_load_le64(p + 8))
		return scs_err_set(SCS_ECORRUPT, "%s: blob %llu: chunk %u fails its integrity check",
		    st->label, (unsigned long long)id, idx);
	*raw_len = n;
	return SCS_OK;
}

/*
 * 1 when blob @id holds the bytes the writer just stored, 0 when not. Equal
 * packed forms are equal bytes; other pairs are decoded and compared (the
 * same bytes may have been packed by another codec version).
 */
static int
same_blob(scs_store_writer *w, uint64_t id)
{
	scs_store *st = w->st;
	MDB_val a, b;
	size_t na, nb;
	int rc;

	for (uint32_t i = 0; i < w->n_chunks; i++) {
		if ((rc = chunk_val(st, w->txn, w->id, i, &a)) < 0 || (rc = chunk_val(st, w->txn, id, i, &b)) < 0)
			return rc;
		/* the same codec and packed bytes (the check differs by place) */
		if (a.mv_size == b.mv_size && a.mv_size >= HDR_LEN && memcmp(a.mv_data, b.mv_data, 8) == 0 &&
		    memcmp((uint8_t *)a.mv_data + HDR_LEN, (uint8_t *)b.mv_data + HDR_LEN, a.mv_size - HDR_LEN) == 0)
			continue;
		if ((rc = chunk_decode(st, &a, w->id, i, w->raw, SCS_CHUNK_LEN, &na)) < 0 ||
		    (rc = chunk_decode(st, &b, id, i, w->packed, SCS_CHUNK_LEN, &nb)) < 0)
			return rc;
		if (na != nb || memcmp(w->raw, w->packed, na) != 0)
			return 0;
	}
	return 1;
}

static int
drop_chunks(scs_store_writer *w)
{
	uint8_t kb[12];
	MDB_val k = { sizeof(kb), kb };
	int mrc;

	for (uint32_t i = 0; i < w->n_chunks; i++) {
		scs_store_chunk_key(kb, w->id, i);
		if ((mrc = mdb_del(w->txn, w->st->chunks, &k, NULL)) != 0 && mrc != MDB_NOTFOUND)
			return scs_store_mdb_fail(mrc, "cannot drop a duplicate chunk", w->st);
	}
	return SCS_OK;
}

/*
 * Blob @id is recorded under @key (a blob of a store written before records
 * gets its record when a writer finds it); a record of another key is damage.
 */
static int
record_blob(scs_store *st, MDB_txn *txn, uint64_t id, const scs_key *key)
{
	uint8_t rb[12], kb[24];
	MDB_val k = { sizeof(rb), rb }, v = { sizeof(kb), kb };
	int mrc;

	scs_store_chunk_key(rb, id, RECORD_IDX);
	scs_store_key_bytes(kb, key);
	if ((mrc = mdb_put(txn, st->chunks, &k, &v, MDB_NOOVERWRITE)) == 0)
		return SCS_OK;
	if (mrc != MDB_KEYEXIST)
		return scs_store_mdb_fail(mrc, "cannot record a blob", st);
	/* v is the record there */
	if (v.mv_size == sizeof(kb) && memcmp(v.mv_data, kb, sizeof(kb)) == 0)
		return SCS_OK;
	return scs_err_set(SCS_ECORRUPT, "%s: blob %llu is recorded under another content key: the store is "
	    "damaged; remove it or name another folder", st->label, (unsigned long long)id);
}

/* SCS_OK when blob @id is recorded under key @key. */
static int
check_record(scs_store *st, MDB_txn *txn, uint64_t id, const scs_key *key)
{
	uint8_t rb[12], kb[24];
	MDB_val k = { sizeof(rb), rb }, v;
	int mrc;

	scs_store_chunk_key(rb, id, RECORD_IDX);
	scs_store_key_bytes(kb, key);
	if ((mrc = mdb_get(txn, st->chunks, &k, &v)) != 0 && mrc != MDB_NOTFOUND)
		return scs_store_mdb_fail(mrc, "cannot read a blob record", st);
	if (mrc == 0 && v.mv_size == sizeof(kb) && memcmp(v.mv_data, kb, sizeof(kb)) == 0)
		return SCS_OK;
	return scs_err_set(SCS_ECORRUPT, "%s: blob %llu is %s: the store is damaged; remove it or name another "
	    "folder", st->label, (unsigned long long)id, mrc ? "not recorded" : "recorded under another content key");
}

/*
 * Index the writer's blob under its key, or find a blob with the same bytes
 * among those already there and drop the new chunks: *id the blob's id.
 */
static int
index_blob(scs_store_writer *w, const scs_key *key, uint64_t *id)
{
	scs_store *st = w->st;
	MDB_cursor *cur;
	uint8_t kb[24], idb[8];
	MDB_val k = { sizeof(kb), kb }, v;
	int mrc, rc = SCS_OK;

	scs_store_key_bytes(kb, key);
	if ((mrc = mdb_cursor_open(w->txn, st->index, &cur)) != 0)
		return scs_store_mdb_fail(mrc, "cannot open a cursor", st);
	for (mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY); mrc == 0; mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if ((rc = scs_store_id_of(st, &v, id)) < 0 || (rc = same_blob(w, *id)) != 0)
			break;
	}
	mdb_cursor_close(cur);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return (rc = drop_chunks(w)) < 0 ? rc : record_blob(st, w->txn, *id, key);
	if (mrc != 0 && mrc != MDB_NOTFOUND)
		return scs_store_mdb_fail(mrc, "blob lookup", st);
	/* a new blob, or one whose key another blob has: told apart by id */
	scs_store_key_bytes(kb, key);
	k.mv_size = sizeof(kb);
	k.mv_data = kb;
	scs_store_id_bytes(idb, w->id);
	v.mv_size = sizeof(idb);
	v.mv_data = idb;
	if ((mrc = mdb_put(w->txn, st->index, &k, &v, 0)) != 0)
		return scs_store_mdb_fail(mrc, "cannot index a blob", st);
	*id = w->id;
	return record_blob(st, w->txn, *id, key);
}

int
scs_store_writer_finish(scs_blob *out, scs_store_writer *w)
{
	scs_store *st = w->st;
	int mrc, rc;

	if (w->n_raw && (rc = put_chunk(w, w->raw, w->n_raw)) < 0)
		goto done;
	w->n_raw = 0;
	scs_hash_final(&out->key, &w->hash);
	if ((rc = index_blob(w, &out->key, &out->id)) < 0)
		goto done;
	mrc = mdb_txn_commit(w->txn);
	w->txn = NULL;
	if (mrc != 0)
		rc = scs_store_mdb_fail(mrc, "cannot commit", st);
	else
		w->n_committed = 0;     /* indexed, or dropped as a copy */
done:
	scs_store_writer_abort(w);
	return rc;
}

void
scs_store_writer_abort(scs_store_writer *w)
{
	if (w == NULL)
		return;
	if (w->txn)
		mdb_txn_abort(w->txn);
	w->txn = NULL;
	/* the batches it committed name no index entry: give their pages back
	 * (best effort, keeping the caller's message: what stays is reclaimed
	 * when a kept store next opens) */
	if (w->n_committed) {
		char saved[1024];

		snprintf(saved, sizeof(saved), "%s", scs_err_msg());
		if (scs_store_drop_unindexed(w->st, w->id, w->id, NULL, 0) < 0)
			scs_err_set(SCS_OK, "%s", saved);
	}
	writer_free(w);
}

int
scs_store_put(scs_blob *out, scs_store *st, const void *data, size_t len)
{
	scs_store_writer *w;
	int rc;

	if ((rc = scs_store_writer_open(&w, st)) < 0)
		return rc;
	if ((rc = scs_store_writer_write(w, data, len)) < 0) {
		scs_store_writer_abort(w);
		return rc;
	}
	return scs_store_writer_finish(out, w);
}

int
scs_store_read(scs_store *st, const scs_blob *blob, uint64_t off, void *buf, size_t len)
{
	MDB_txn *txn;
	MDB_val v;
	uint8_t *p = buf, *dst;
	size_t in, take, n = 0;
	uint32_t idx;
	int mrc, rc = SCS_OK;

	if (off > blob->key.len || len > blob->key.len - off)
		return scs_err_set(SCS_ECORRUPT, "%s: read past the end of a %llu-byte blob", st->label,
		    (unsigned long long)blob->key.len);
	if ((mrc = scs_store_txn_begin(st, MDB_RDONLY, &txn)) != 0)
		return scs_store_txn_fail(mrc, "cannot begin a read", st);
	if ((rc = check_record(st, txn, blob->id, &blob->key)) < 0)
		len = 0;
	while (len) {
		idx = (uint32_t)(off / SCS_CHUNK_LEN);
		in = (size_t)(off % SCS_CHUNK_LEN);
		/* a whole chunk decodes in place; part of one through read_buf */
		dst = in == 0 && len >= SCS_CHUNK_LEN ? p : st->read_buf;
		if ((rc = chunk_val(st, txn, blob->id, idx, &v)) < 0 ||
		    (rc = chunk_decode(st, &v, blob->id, idx, dst, SCS_CHUNK_LEN, &n)) < 0)
			break;
		if (in >= n || (dst == p && n != SCS_CHUNK_LEN)) {
			rc = scs_err_set(SCS_ECORRUPT, "%s: blob %llu: chunk %u is short", st->label,
			    (unsigned long long)blob->id, idx);
			break;
		}
		take = n - in < len ? n - in : len;
		if (dst != p)
			memcpy(p, st->read_buf + in, take);
		p += take;
		off += take;
		len -= take;
	}
	mdb_txn_abort(txn);
	return rc;
}

#ifdef SCS_TEST_HOOKS
void
scs_store_writer_crash_for_tests(scs_store_writer *w)
{
	if (w->txn)
		mdb_txn_abort(w->txn);
	writer_free(w);
}
#endif
