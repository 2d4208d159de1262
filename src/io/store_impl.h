/*
 * store_impl.h: the store's insides, shared by the store (store.c: its
 * file, map, transactions and reclaim) and its blobs (store_blob.c).
 * Private to the two, the only files that include lmdb.h.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_STORE_IMPL_H
#define SCS_STORE_IMPL_H

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>

#include "io/store.h"

#define BATCH_LEN ((uint64_t)64 << 20)         /* commit a writer's chunks at least this often */
#define PAGE_COST 16384                        /* a chunk's pages beyond its bytes, at most */
#define HDR_LEN 16
#define RECORD_IDX UINT32_MAX                   /* a blob's record, after its chunks */

enum { CODEC_RAW = 0, CODEC_ZSTD = 1 };

struct scs_store {
	MDB_env *env;
	MDB_dbi index, chunks, meta;
	char *label;        /* "store DIR" or "temporary store in DIR", for messages */
	int temporary;
	uint8_t *read_buf;  /* one decoded chunk, for reads that take part of one */
	uint8_t *spare[2];  /* a writer's buffers while no writer holds them */
	size_t packed_cap;
	int writing;
	int lock_fd;        /* a kept store: shared flock on its lock file while open, -1 otherwise */
	int map_fd;         /* a kept store: its data file, flocked while its size changes; -1 otherwise */
};

/* LMDB's code @mrc as an SCS_* error, with the store and @what in the message. */
int scs_store_mdb_fail(int mrc, const char *what, const scs_store *st);

/* The index key of content key @k: big-endian, so LMDB's byte order is the numeric order. */
void scs_store_key_bytes(uint8_t out[24], const scs_key *k);

/* The chunk table key of chunk @idx of blob @id (RECORD_IDX: its record). */
void scs_store_chunk_key(uint8_t out[12], uint64_t id, uint32_t idx);

/* mdb_txn_begin, taking in the map another process grew (MDB_MAP_RESIZED):
 * an MDB_* code, or an SCS_* error already set (negative). A map that does
 * not grow when taken in again is a damaged meta page (pages past any size
 * a map can have). */
int scs_store_txn_begin(scs_store *st, unsigned flags, MDB_txn **txn);

/* scs_store_txn_begin()'s failure as an SCS_* error. */
int scs_store_txn_fail(int mrc, const char *what, const scs_store *st);

/*
 * Begin a write transaction that may add @need bytes to the map; *room
 * (when not NULL) what it may add. The room is looked at again under LMDB's
 * writer lock: another process may have taken what was there before.
 */
int scs_store_begin_write(scs_store *st, uint64_t need, MDB_txn **txn, uint64_t *room);

/* Ids are stored big-endian, so LMDB's byte order is their order. */
uint64_t scs_store_load_be64(const void *p);

/* The id stored in an index value. */
int scs_store_id_of(const scs_store *st, const MDB_val *v, uint64_t *id);

/* @id as stored: big-endian. */
void scs_store_id_bytes(uint8_t out[8], uint64_t id);

/*
 * Drop the chunks of every blob id in [@first, @last] that is not among
 * the @n_keep sorted ids @keep, in transactions of DROP_BATCH chunks (each
 * freed chunk lists its pages in the transaction's free list). Only keys
 * are looked at, and the chunks of a kept blob are skipped in one seek.
 */
int scs_store_drop_unindexed(scs_store *st, uint64_t first, uint64_t last, const uint64_t *keep, size_t n_keep);

#endif
