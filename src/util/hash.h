/*
 * hash.h: content keys. A key is the 128-bit XXH3 digest (xxHash) of a
 * payload's canonical bytes plus their length. Keys only nominate
 * candidates: two payloads are merged only after their bytes were compared
 * (see payload.h), so a collision costs a compare, never a wrong model.
 *
 * A strong digest is SHA-256 (OpenSSL's libcrypto) of the same bytes: a
 * cryptographic hash, for payloads streamed once and never read again
 * (payload.h, "spill"), whose equality stands for a byte compare.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_HASH_H
#define SCS_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct scs_key {
	uint64_t h[2];      /* the XXH3-128 digest: high half, low half */
	uint64_t len;       /* canonical byte length */
} scs_key;

/*
 * Streaming state; init, update any number of times, final. It holds
 * xxHash's state, which wants 64-byte alignment, somewhere in @state (at
 * @at, which hash.c moves when the struct was copied to another alignment).
 */
#define SCS_HASH_STATE_LEN 704
typedef struct scs_hash {
	uint64_t len;
	size_t at;
	unsigned char state[SCS_HASH_STATE_LEN];
} scs_hash;

void scs_hash_init(scs_hash *h);
void scs_hash_update(scs_hash *h, const void *data, size_t len);
void scs_hash_final(scs_key *out, const scs_hash *h);

/* One-shot digest of @len bytes. */
void scs_hash_bytes(scs_key *out, const void *data, size_t len);

/* 64-bit digest (XXH3-64) of a small buffer (chunk integrity checks, hash tables). */
uint64_t scs_hash64(const void *data, size_t len);

/* 1 when equal (digest and length). */
int scs_key_eq(const scs_key *a, const scs_key *b);

/* Write 32 hex digits of the digest into @out (33 bytes with NUL): what
 * `xxhsum -H128` prints for the same bytes. */
void scs_key_hex(char out[33], const scs_key *k);

/* A strong digest: SHA-256 of the canonical bytes. */
#define SCS_STRONG_LEN 32
typedef struct scs_strong {
	void *ctx;          /* OpenSSL's EVP_MD_CTX */
} scs_strong;

/* Start a strong digest; SCS_ENOMEM when libcrypto cannot (nothing to
 * dispose of then). */
int scs_strong_init(scs_strong *s);
void scs_strong_update(scs_strong *s, const void *data, size_t len);
/* The digest into @out; the state is disposed of. */
void scs_strong_final(scs_strong *s, uint8_t out[SCS_STRONG_LEN]);
/* Drop a state without a digest. */
void scs_strong_dispose(scs_strong *s);

#ifdef SCS_TEST_HOOKS
/*
 * Test builds only: while @on, every content key's digest is zero, so every
 * pair of equal-length payloads collides and must be told apart by the byte
 * compare. scs_hash64 is never weakened.
 */
void scs_hash_collide_for_tests(int on);
#endif

#endif
