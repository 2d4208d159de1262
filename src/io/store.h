/*
 * store.h: content-addressed payload bytes in an LMDB environment.
 *
 * A blob is stored once per content key, in chunks of SCS_CHUNK_LEN bytes;
 * each chunk carries a 64-bit check of its bytes that every read verifies,
 * and is zstd-compressed only where that pays (codec.h). The environment
 * uses MDB_WRITEMAP and commits in bounded batches, so writing a large
 * payload never gathers dirty pages on the heap.
 *
 * A blob is named by its id (scs_blob), not by its key alone: a key only
 * nominates, and two different blobs with one key (a collision) are both
 * kept, each under its own id. A writer's blob is reused in place of a new
 * one only after its bytes compared equal. An id is given once (a store
 * whose id counter went back is refused), and is recorded with its blob's
 * key, which every read confirms.
 *
 * Several processes may have one kept store open at once (store.c: how its
 * file grows under their maps).
 *
 * What may overlap: at most one writer is open at a time; while it is open,
 * scs_store_read and scs_store_find may be called (the
 * writer's pending chunk is its own, and reads use their own buffer), and
 * see only blobs already finished. A store is used by one thread.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_STORE_H
#define SCS_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

#define SCS_CHUNK_LEN ((size_t)1 << 20)

typedef struct scs_store scs_store;
typedef struct scs_store_writer scs_store_writer;

/* A stored blob: its content key and the id that names it in the store. */
typedef struct scs_blob {
	scs_key key;
	uint64_t id;
} scs_blob;

/*
 * Open the store in folder @dir, creating it when missing. With @dir NULL, a
 * temporary store is made in a new folder under @tmp_parent and removed by
 * scs_store_close(). A kept store that no other process has open gives back
 * the chunks no index entry names (writers killed between batches).
 * *out is the caller's until scs_store_close().
 */
int scs_store_open(scs_store **out, const char *dir, const char *tmp_parent);

/* NULL is a no-op. Removes a temporary store's folder. */
void scs_store_close(scs_store *st);

/* A blob stored under @key (the first, when several share it); SCS_ENOTFOUND
 * when none. */
int scs_store_find(scs_blob *out, scs_store *st, const scs_key *key);

/* Start a blob whose key is known only at the end. One writer at a time.
 * *out lives until scs_store_writer_finish() or scs_store_writer_abort()
 * frees it. */
int scs_store_writer_open(scs_store_writer **out, scs_store *st);
int scs_store_writer_write(scs_store_writer *w, const void *data, size_t len);
/* Finish: *out names the blob; a blob with the same key whose bytes compare
 * equal is reused, one with other bytes is kept apart. Frees @w on every
 * path. */
int scs_store_writer_finish(scs_blob *out, scs_store_writer *w);
/* Drop an unfinished blob, with the chunks its earlier batches committed.
 * NULL is a no-op. */
void scs_store_writer_abort(scs_store_writer *w);

/* Store @len bytes in one call. */
int scs_store_put(scs_blob *out, scs_store *st, const void *data, size_t len);

/*
 * Read @len bytes of @blob starting at byte @off into @buf.
 * @return SCS_OK; SCS_ECORRUPT when a chunk is missing or fails its check,
 * the blob's id is not recorded under its key, or the range passes the
 * blob's end.
 */
int scs_store_read(scs_store *st, const scs_blob *blob, uint64_t off, void *buf, size_t len);

#ifdef SCS_TEST_HOOKS
/* Test builds only (the library the test suite links), to damage a store or
 * look into it. */
/* Flip byte @at of the stored form of chunk @idx of @blob (its header is the
 * first 16 bytes; @at < 0 counts from the end). */
int scs_store_damage_for_tests(scs_store *st, const scs_blob *blob, uint32_t idx, long at);
/* Make @key's index entry name blob @id (and nothing else). */
int scs_store_misindex_for_tests(scs_store *st, const scs_key *key, uint64_t id);
/* The chunk entries and the pages the map uses. */
int scs_store_stat_for_tests(scs_store *st, uint64_t *n_chunks, uint64_t *n_pages);
/* Entry @name of the store's meta table: its value (up to @cap bytes) into
 * @old, *old_len its length (0: none); then, with @val, set to @len bytes
 * of @val (@len 0: removed). */
int scs_store_meta_for_tests(scs_store *st, const char *name, uint8_t *old, size_t cap, size_t *old_len,
    const void *val, size_t len);
/* End @w as a killed process would, leaving the batches it committed in
 * place (and frees @w). */
void scs_store_writer_crash_for_tests(scs_store_writer *w);
#endif

#endif
