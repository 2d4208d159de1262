/*
 * payload.h: where each tensor payload's canonical bytes live, and how to
 * read, compare and copy them. A payload either lies verbatim in an input
 * file that outlives the run (raw_data in the .onnx, or an external-data
 * file: only its location is kept, so nothing is copied twice) or in the
 * store (typed-field payloads decoded to raw form, payloads made by passes,
 * and everything when a persistent store is asked to hold bytes).
 *
 * A payload may also be derived: computed from another payload of the same
 * length, element by element, whenever it is read (a weight a fusion pass
 * scales per channel), so that it costs no copy until the output is written.
 *
 * Canonical bytes are the little-endian raw_data form of the tensor,
 * whatever encoding the file used.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_PAYLOAD_H
#define SCS_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/hash.h"
#include "util/progress.h"
#include "io/sink.h"
#include "io/source.h"
#include "io/store.h"

enum { SCS_AT_FILE = 1, SCS_AT_STORE = 2, SCS_AT_DERIVED = 3 };

typedef struct scs_payload {
	scs_key key;        /* digest and length of the canonical bytes (the digest: see scs_payloads_key) */
	uint8_t where;      /* SCS_AT_FILE, SCS_AT_STORE or SCS_AT_DERIVED */
	uint8_t unkeyed;    /* 1: the digest is not computed yet (key.len is) */
	uint32_t file;      /* SCS_AT_FILE: index into the set's files; SCS_AT_DERIVED: the source payload */
	uint64_t off;       /* SCS_AT_FILE: offset of the first byte; SCS_AT_STORE: the blob's id;
	                       SCS_AT_DERIVED: index into the set's derivations */
} scs_payload;

struct scs_payloads;

/*
 * How a derived payload is computed from its source: @apply rewrites, in
 * place, @n elements of @esize bytes that hold elements [first, first + n)
 * of the source, into the derived payload's elements (it may read other
 * payloads of @set, never the derived one itself); < 0 on error. @dispose
 * frees @state (NULL: nothing to free).
 */
typedef struct scs_derivation {
	size_t esize;
	int (*apply)(struct scs_payloads *set, void *state, uint64_t first, uint8_t *elems, size_t n);
	void (*dispose)(void *state);
	void *state;
} scs_derivation;

/* @p lies in the store as @blob. */
void scs_payload_at_store(scs_payload *p, const scs_blob *blob);

/* Input files whose descriptors stay open at once (the rest are opened
 * again when read): a model may have one external data file per tensor.
 * Fewer under a low descriptor limit (an eighth of it). */
#define SCS_PAYLOADS_MAX_OPEN 64

/* Where a payload's bytes went in the spill (below). */
typedef struct scs_spilled {
	uint32_t id;              /* the payload */
	uint32_t file;            /* the spill file its bytes are in (its twin's, when taken back) */
	uint64_t off;             /* its first byte in that file (its twin's, when taken back) */
	uint64_t cls;             /* the class it was spilled with (scs_spill_item) */
	uint32_t twin;            /* UINT32_MAX; or the record of the earlier payload of the same bytes
	                             and class it was taken back for */
	int has_strong;           /* 1: @strong is the strong digest of its bytes */
	uint8_t strong[SCS_STRONG_LEN];
} scs_spilled;

typedef struct scs_payloads {
	scs_payload *items;
	size_t n, cap;
	scs_source **files;
	size_t n_files, cap_files;
	scs_source_pool *pool;  /* the files' descriptors, SCS_PAYLOADS_MAX_OPEN at most */
	scs_derivation *derived;
	size_t n_derived, cap_derived;
	scs_store *store;   /* borrowed; may be NULL until a payload needs it */
	uint8_t *piece[2];  /* two SCS_CHUNK_LEN buffers for copies and compares */
	uint8_t *ahead;     /* SCS_PAYLOADS_AHEAD_LEN bytes of one file, read ahead for small payloads */
	uint32_t ahead_file;
	uint64_t ahead_off;
	size_t ahead_len;   /* 0: nothing held */
	/* the spill's files (scs_payloads_spill()), in order: n_spill 0 when there is none; an entry is
	   NULL once a data file took it */
	scs_sink **spill;
	size_t n_spill, cap_spill;
	const void *spill_owner;  /* what the spill's sinks belong to (their commit), for the writer */
	uint32_t *spilled;        /* per payload id below n_spilled_ids: its record + 1, 0: none */
	size_t n_spilled_ids;
	scs_spilled *recs;        /* kept after the spill ends: the strong digests stand for compares */
	size_t n_recs;
	struct scs_stream_log *stream;   /* an inline stream's log (below); NULL: none */
} scs_payloads;

/*
 * What an inline stream (emit.c) wrote at the start of an output's model
 * file, for the writer to keep what matches and write the rest: the bytes
 * it wrote other than payloads (@lit), in segments each followed by a
 * payload (a segment's literal bytes end at @lit_end; @id UINT32_MAX: no
 * payload follows), the graph's length left open at @len_at (@len_width
 * bytes, written last). The set frees it; @sink belongs to commit @owner.
 */
typedef struct scs_stream_seg {
	uint64_t lit_end;
	uint32_t id;
} scs_stream_seg;

typedef struct scs_stream_log {
	scs_sink *sink;
	const void *owner;
	scs_buf lit;
	scs_stream_seg *segs;
	size_t n_segs, cap_segs;
	uint64_t len_at;
	unsigned len_width;
} scs_stream_log;

/* Free @set's stream log (its sink is its commit's). */
void scs_payloads_stream_free(scs_payloads *set);

/* Payloads up to this long are read through the read-ahead buffer (one read
 * serves the small payloads that lie near each other) and copied into an
 * output through its write buffer; longer ones are copied by the kernel
 * (copy_file_range, which reflinks where the filesystem can). */
#define SCS_PAYLOADS_SMALL_LEN ((size_t)16 << 10)
#define SCS_PAYLOADS_AHEAD_LEN ((size_t)64 << 10)

/* Payloads at least this long are compared from mapped pages of their files
 * (bounded windows, read sequentially), so a compare copies nothing and
 * needs no buffer; shorter ones are read. */
#define SCS_PAYLOADS_MAP_MIN ((uint64_t)64 << 10)

/* @store is borrowed and must outlive the set. */
int scs_payloads_init(scs_payloads *set, scs_store *store);
/* Closes the files the set opened. */
void scs_payloads_dispose(scs_payloads *set);

/* Open @path (or find it open already: same file) and give its index. */
int scs_payloads_add_file(scs_payloads *set, const char *path, uint32_t *out);

/* Append @p; *out is its id. */
int scs_payloads_add(scs_payloads *set, const scs_payload *p, uint32_t *out);

/*
 * Append a payload derived from payload @source by @d (same length, a
 * whole number of @d->esize elements; its digest computed when first
 * asked for); *out is its id. The set owns @d->state from this call on,
 * also when it fails.
 */
int scs_payloads_add_derived(scs_payloads *set, uint32_t source, const scs_derivation *d, uint32_t *out);

/*
 * The key of payload @id into *out: its digest is computed at the first
 * call when the payload was added without one (a large payload of an input
 * file, a derived payload: a constant that a pass replaces is never read),
 * and kept.
 */
int scs_payloads_key(scs_payloads *set, uint32_t id, scs_key *out);

/* Read @len canonical bytes of payload @id from byte @off. */
int scs_payloads_read(scs_payloads *set, uint32_t id, uint64_t off, void *buf, size_t len);

/*
 * Bytes [off, off + len) of file @file (len <= SCS_PAYLOADS_SMALL_LEN),
 * through the read-ahead buffer: *out stays valid until the next call on
 * @set. SCS_ECORRUPT when the range passes the end of the file.
 */
int scs_payloads_peek(scs_payloads *set, uint32_t file, uint64_t off, size_t len, const uint8_t **out);

/*
 * Ask the kernel to start reading bytes [off, off + len) of payload @id
 * (one of a file; others are left alone) and return at once, so that reads
 * of scattered bytes that follow find them in the page cache: a disk serves
 * many requests at once much faster than one after another, which is how a
 * loop of small reads would ask. Best effort: nothing is reported, and a
 * range past the payload's end is cut to it.
 */
void scs_payloads_prefetch(scs_payloads *set, uint32_t id, uint64_t off, uint64_t len);

/* 1 when payloads @a and @b hold the same bytes (compared byte for byte),
 * 0 when not, < 0 on error. */
int scs_payloads_equal(scs_payloads *set, uint32_t a, uint32_t b);

/*
 * A payload read from its start in pieces of SCS_CHUNK_LEN bytes (the last
 * one shorter) into the caller's buffer: after each scs_payloads_next_piece()
 * that gives SCS_OK, bytes [off, off + len) of the payload are in buf.
 */
typedef struct scs_pieces {
	scs_payloads *set;
	uint32_t id;
	uint8_t *buf;             /* SCS_CHUNK_LEN bytes, the caller's */
	uint64_t off;             /* where the piece in buf starts in the payload */
	size_t len;               /* the piece's length; 0 before the first */
	int exact;                /* 1: not through the read-ahead buffer */
} scs_pieces;

/* Start reading payload @id of @set into @buf (SCS_CHUNK_LEN bytes), small
 * pieces of files through the read-ahead buffer (set exact to 1 after this
 * call to read only the piece's bytes). */
void scs_payloads_pieces(scs_pieces *pc, scs_payloads *set, uint32_t id, uint8_t *buf);

/* Read the next piece: SCS_OK, SCS_DONE past the last one, < 0 on error. */
int scs_payloads_next_piece(scs_pieces *pc);

/* Append payload @id's bytes to @sink. */
int scs_payloads_copy(scs_payloads *set, uint32_t id, scs_sink *sink);

/* Payload bytes compared from mapped pages so far, by every set of the
 * process: reads that /proc/self/io does not count (see report.h). */
uint64_t scs_payloads_mapped_bytes(void);

/* Bytes read for the calling thread by threads it started (the spill's
 * reader thread), since the thread began: what its rchar does not count. */
uint64_t scs_payloads_helper_read_bytes(void);

/*
 * The spill: one read of every byte of a model that does not fit in memory.
 * Payloads that a pass must hash (a large one of an input file) and that
 * the writer must copy are read twice, and where the page cache cannot hold
 * the model between the two, twice from the disk. scs_payloads_spill()
 * reads each payload of @items once, in their order, and with the same
 * bytes computes its key (when it has none yet) and, for an item marked
 * strong (one that may equal another), its strong digest (SHA-256), and
 * appends it to @sink at the next multiple of @align (4096: what the
 * data file of an external-data output holds when its payloads are these in
 * this order; 1: an inline stream, each payload between the item's @head and
 * @tail bytes, its tensor's record in the model). With @next (numbered data
 * files of at most @next->max_len bytes each, datafiles.h), a payload that
 * would take the file past that length, in a file that holds something,
 * goes at the start of the next file (@next->open() makes it), as the data
 * files' layout places it. With @merge_equal, a payload
 * whose bytes (length, key and strong digest) and class equal an earlier one's
 * is taken back (the sink truncated to where its item began, and a next file
 * it had started left empty, the one before it taking the next payload
 * again) and records the earlier one as its twin: the dedup that runs next
 * keeps the first copy, so the output holds one.
 *
 * Afterwards scs_payloads_equal() takes two payloads of equal strong
 * digests for equal without reading them (a cryptographic hash: no
 * collision is known for SHA-256, and the content key must match too), and
 * the data files' writer (datafiles.h) keeps what of each spill file matches
 * its layout's file of the same number, from the start to the first place
 * that differs, and writes the rest. The sinks stay the set's (set->spill)
 * until the writer takes them or the caller drops them (on an error too);
 * @owner is what they belong to (their commit).
 */
typedef struct scs_spill_item {
	uint32_t id;              /* the payload */
	uint64_t cls;             /* its tensor's element type and dims, digested (never 0); 0: merge with none */
	int strong;               /* 1: it may equal another item: take its strong digest (else it has none) */
	const uint8_t *head, *tail;  /* bytes written before and after the payload (NULL: none) */
	size_t head_len, tail_len;
} scs_spill_item;

/* Numbered spill files: the longest, and how the next is made. */
typedef struct scs_spill_next {
	uint64_t max_len;
	int (*open)(void *ctx, scs_sink **out);
	void *ctx;
} scs_spill_next;

int scs_payloads_spill(scs_payloads *set, scs_sink *sink, const void *owner, const scs_spill_item *items, size_t n,
    int merge_equal, unsigned align, const scs_spill_next *next, scs_progress_cb progress, void *progress_payload);

/* Forget the spill's files (the caller has dropped them, or they are another's); the records stay. */
void scs_payloads_spill_forget(scs_payloads *set);

/* 1 when payload @id was taken back by the spill (another holds its bytes). */
int scs_payloads_taken_back(const scs_payloads *set, uint32_t id);

/* -1: spill where it pays. Test builds: SCS_TEST_SPILL=0 never spills
 * (the writes of before, to compare with), SCS_TEST_SPILL=1 spills for
 * every output that may be external, SCS_TEST_SPILL=2 streams every output
 * not asked to be external inline (emit.c, "the inline stream"). */
int scs_payloads_spill_policy(void);

/* A digest of payload @id's length and first bytes (4096 at most), read
 * without the read-ahead around them: payloads of equal bytes have equal
 * heads, so payloads of different heads are known to differ before they
 * are read whole. */
int scs_payloads_head(scs_payloads *set, uint32_t id, uint64_t *out);

/* 1 and *@file, *@off where payload @id's bytes lie in the spill (of its
 * own, or its twin's), 0 when it was not spilled. */
int scs_payloads_spilled_at(const scs_payloads *set, uint32_t id, uint32_t *file, uint64_t *off);

/* 1 when @path is one of the set's input files (same device and inode). */
int scs_payloads_reads_from(const scs_payloads *set, const char *path);

#endif
