/*
 * hash.c: content keys over xxHash's XXH3 (128 bits for keys, 64 for
 * checks), and strong digests over libcrypto's SHA-256. The only file that
 * includes xxhash.h and OpenSSL's headers. Keys are not cryptographic, by
 * design (see hash.h). The state is kept 64-byte aligned, as the AVX2 and
 * AVX-512 code the x86 dispatcher may pick loads it.
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/hash.h"

#include <stdio.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY  /* XXH3_state_t's size, to keep it in scs_hash */
#include <xxhash.h>
#ifdef SCS_XXH_DISPATCH
#include <xxh_x86dispatch.h>     /* XXH3 calls go to the SSE2, AVX2 or AVX-512 code, as the CPU has */
#endif
#include <openssl/evp.h>

#include "util/err.h"

#define STATE_ALIGN 64

_Static_assert(sizeof(XXH3_state_t) + STATE_ALIGN - 1 <= SCS_HASH_STATE_LEN,
    "scs_hash cannot hold an aligned XXH3_state_t");
_Static_assert(_Alignof(XXH3_state_t) <= STATE_ALIGN, "XXH3_state_t wants more alignment");

#ifdef SCS_TEST_HOOKS
static int weak;

void
scs_hash_collide_for_tests(int on)
{
	weak = on;
}
#endif

/* Where in @h->state an aligned state starts. */
static size_t
aligned_at(const scs_hash *h)
{
	uintptr_t p = (uintptr_t)h->state;

	return (size_t)(((p + STATE_ALIGN - 1) & ~(uintptr_t)(STATE_ALIGN - 1)) - p);
}

/* @h's xxHash state, moved into place when @h was copied since. */
static XXH3_state_t *
state_of(scs_hash *h)
{
	size_t at = aligned_at(h);

	if (at != h->at) {
		memmove(h->state + at, h->state + h->at, sizeof(XXH3_state_t));
		h->at = at;
	}
	return (XXH3_state_t *)(void *)(h->state + at);
}

void
scs_hash_init(scs_hash *h)
{
	h->len = 0;
	h->at = aligned_at(h);
	XXH3_128bits_reset(state_of(h));
}

void
scs_hash_update(scs_hash *h, const void *data, size_t len)
{
	if (len == 0)
		return;     /* data may be NULL then */
	h->len += len;
	XXH3_128bits_update(state_of(h), data, len);
}

static void
set_key(scs_key *out, XXH128_hash_t d, uint64_t len)
{
#ifdef SCS_TEST_HOOKS
	if (weak)
		d.high64 = d.low64 = 0;
#endif
	out->h[0] = d.high64;
	out->h[1] = d.low64;
	out->len = len;
}

void
scs_hash_final(scs_key *out, const scs_hash *h)
{
	size_t at = aligned_at(h);
	XXH3_state_t moved;

	if (at == h->at) {
		set_key(out, XXH3_128bits_digest((const XXH3_state_t *)(const void *)(h->state + at)), h->len);
		return;
	}
	memcpy(&moved, h->state + h->at, sizeof(moved));
	set_key(out, XXH3_128bits_digest(&moved), h->len);
}

void
scs_hash_bytes(scs_key *out, const void *data, size_t len)
{
	set_key(out, XXH3_128bits(data, len), len);
}

uint64_t
scs_hash64(const void *data, size_t len)
{
	return XXH3_64bits(data, len);
}

int
scs_key_eq(const scs_key *a, const scs_key *b)
{
	return a->h[0] == b->h[0] && a->h[1] == b->h[1] && a->len == b->len;
}

void
scs_key_hex(char out[33], const scs_key *k)
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)k->h[0],
	    (unsigned long long)k->h[1]);
}

int
scs_strong_init(scs_strong *s)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	s->ctx = ctx;
	if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		s->ctx = NULL;
		return scs_err_set(SCS_ENOMEM, "cannot start a SHA-256 digest");
	}
	return SCS_OK;
}

void
scs_strong_update(scs_strong *s, const void *data, size_t len)
{
	(void)EVP_DigestUpdate(s->ctx, data, len);
}

void
scs_strong_final(scs_strong *s, uint8_t out[SCS_STRONG_LEN])
{
	unsigned n = SCS_STRONG_LEN;

	(void)EVP_DigestFinal_ex(s->ctx, out, &n);
	scs_strong_dispose(s);
}

void
scs_strong_dispose(scs_strong *s)
{
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
}
