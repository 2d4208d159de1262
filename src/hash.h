/*
 * hash.h: content keys. A key is a 128-bit non-cryptographic digest of a
 * payload's canonical bytes plus their length. Keys only nominate
 * candidates: two payloads are merged only after their bytes were compared
 * (see payload.h), so a collision costs a compare, never a wrong model.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_HASH_H
#define SCS_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct scs_key {
	uint64_t h[2];
	uint64_t len;       /* canonical byte length */
} scs_key;

/* Streaming state; init, update any number of times, final. */
typedef struct scs_hash {
	uint64_t v[4];
	uint8_t tail[32];
	size_t n_tail;
	uint64_t len;
} scs_hash;

void scs_hash_init(scs_hash *h);
void scs_hash_update(scs_hash *h, const void *data, size_t len);
void scs_hash_final(scs_key *out, const scs_hash *h);

/* One-shot digest of @len bytes. */
void scs_hash_bytes(scs_key *out, const void *data, size_t len);

/* 64-bit digest of a small buffer (chunk integrity checks, hash tables). */
uint64_t scs_hash64(const void *data, size_t len);

/* 1 when equal (digest and length). */
int scs_key_eq(const scs_key *a, const scs_key *b);

/* Write 32 hex digits of the digest into @out (33 bytes with NUL). */
void scs_key_hex(char out[33], const scs_key *k);

/*
 * Tests only: while @on, every digest is zero, so every pair of equal-length
 * payloads collides and must be told apart by the byte compare.
 */
void scs_hash_force_collisions(int on);

#endif
