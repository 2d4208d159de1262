/*
 * hash.c: a four-lane multiply-rotate digest, 32 bytes a step, 128 bits out
 * (two differently mixed folds of the 256-bit state). Fast enough to hash
 * payloads at memory speed; not cryptographic, by design (see hash.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "hash.h"

#include <stdio.h>
#include <string.h>

#include "num.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static int weak;

void
scs_hash_force_collisions(int on)
{
	weak = on;
}

static inline uint64_t
rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t
lane(uint64_t acc, uint64_t in)
{
	return rotl(acc + in * P2, 31) * P1;
}

static inline uint64_t
avalanche(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void
stripes(scs_hash *h, const uint8_t *p, size_t n)
{
	uint64_t v0 = h->v[0], v1 = h->v[1], v2 = h->v[2], v3 = h->v[3];
	size_t i;

	for (i = 0; i < n; i++, p += 32) {
		v0 = lane(v0, scs_load_le64(p));
		v1 = lane(v1, scs_load_le64(p + 8));
		v2 = lane(v2, scs_load_le64(p + 16));
		v3 = lane(v3, scs_load_le64(p + 24));
	}
	h->v[0] = v0;
	h->v[1] = v1;
	h->v[2] = v2;
	h->v[3] = v3;
}

void
scs_hash_init(scs_hash *h)
{
	h->v[0] = P1 + P2;
	h->v[1] = P2;
	h->v[2] = 0;
	h->v[3] = 0 - P1;
	h->n_tail = 0;
	h->len = 0;
}

void
scs_hash_update(scs_hash *h, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t take;

	if (len == 0)
		return;     /* data may be NULL then */
	h->len += len;
	if (h->n_tail) {
		take = 32 - h->n_tail;
		if (take > len)
			take = len;
		memcpy(h->tail + h->n_tail, p, take);
		h->n_tail += take;
		p += take;
		len -= take;
		if (h->n_tail < 32)
			return;
		stripes(h, h->tail, 1);
		h->n_tail = 0;
	}
	stripes(h, p, len / 32);
	p += len / 32 * 32;
	len %= 32;
	memcpy(h->tail, p, len);
	h->n_tail = len;
}

static void
digest(scs_key *out, const scs_hash *h)
{
	uint64_t a, b, w;
	size_t i;

	a = rotl(h->v[0], 1) + rotl(h->v[1], 7) + rotl(h->v[2], 12) + rotl(h->v[3], 18);
	b = (h->v[0] ^ rotl(h->v[1], 23)) * P3 + (rotl(h->v[2], 41) ^ h->v[3]) * P4;
	a ^= h->len * P5;
	b ^= h->len * P1;
	for (i = 0; i + 8 <= h->n_tail; i += 8) {
		w = scs_load_le64(h->tail + i);
		a = rotl(a ^ lane(0, w), 27) * P1 + P4;
		b = rotl(b ^ lane(P5, w), 29) * P2 + P3;
	}
	for (; i < h->n_tail; i++) {
		a = rotl(a ^ (h->tail[i] * P5), 11) * P1;
		b = rotl(b ^ (h->tail[i] * P3), 13) * P2;
	}
	out->h[0] = avalanche(a);
	out->h[1] = avalanche(b ^ out->h[0]);
	out->len = h->len;
}

void
scs_hash_final(scs_key *out, const scs_hash *h)
{
	digest(out, h);
	if (weak)
		out->h[0] = out->h[1] = 0;
}

void
scs_hash_bytes(scs_key *out, const void *data, size_t len)
{
	scs_hash h;

	scs_hash_init(&h);
	scs_hash_update(&h, data, len);
	scs_hash_final(out, &h);
}

uint64_t
scs_hash64(const void *data, size_t len)
{
	scs_hash h;
	scs_key k;

	/* integrity checks and tables are never weakened */
	scs_hash_init(&h);
	scs_hash_update(&h, data, len);
	digest(&k, &h);
	return k.h[0];
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
