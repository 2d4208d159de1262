/*
 * test_hash.c: content keys.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

/* The bytes of the vectors below: byte i is i * 31 + 7 (mod 256). */
static uint8_t *
pattern(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	cr_assert_not_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + 7);
	return p;
}

/* What `xxhsum -H128` and `xxhsum -H3` (xxHash 0.8.1) print for those bytes. */
static const struct {
	size_t len;
	const char *h128, *h64;
} vectors[] = {
	{ 0, "99aa06d3014798d86001c324468d497f", "2d06800538d394c2" },
	{ 1, "495b62073ef70ca44c5cca45d0f4811f", "4c5cca45d0f4811f" },
	{ 240, "de57aab31e77a2ff93e173833f75ab66", "ccc7375172c41f03" },
	{ 241, "92b991a7192f3f080b3b630948ce4a00", "0b3b630948ce4a00" },
	{ 1 << 20, "e3503d8de40743b7269eb834f6c110a9", "269eb834f6c110a9" },
};

Test(hash, keys_are_xxh3_128_as_xxhsum_prints_them)
{
	for (size_t v = 0; v < sizeof(vectors) / sizeof(vectors[0]); v++) {
		uint8_t *data = pattern(vectors[v].len);
		char hex[33], h64[17];
		scs_key one, streamed;
		scs_hash h;

		scs_hash_bytes(&one, data, vectors[v].len);
		scs_hash_init(&h);
		scs_hash_update(&h, data, vectors[v].len);
		scs_hash_final(&streamed, &h);
		scs_key_hex(hex, &one);
		cr_assert_str_eq(hex, vectors[v].h128, "%zu bytes", vectors[v].len);
		cr_assert_eq(one.len, vectors[v].len);
		cr_assert(scs_key_eq(&one, &streamed), "%zu bytes streamed", vectors[v].len);
		snprintf(h64, sizeof(h64), "%016llx", (unsigned long long)scs_hash64(data, vectors[v].len));
		cr_assert_str_eq(h64, vectors[v].h64, "%zu bytes, 64-bit", vectors[v].len);
		free(data);
	}
}

Test(hash, a_stream_in_uneven_pieces_gives_the_same_key)
{
	static const size_t pieces[] = { 1, 7, 63, 64, 65, 239, 240, 241, 255, 256, 257, 1023, 4095, 65537, 0 };
	size_t n = (size_t)1 << 20, off = 0, i = 0;
	uint8_t *data = pattern(n);
	char hex[33];
	scs_hash h;
	scs_key k;

	scs_hash_init(&h);
	while (off < n) {
		size_t take = pieces[i++ % (sizeof(pieces) / sizeof(pieces[0]))];

		if (take > n - off)
			take = n - off;
		scs_hash_update(&h, data + off, take);
		off += take;
	}
	scs_hash_final(&k, &h);
	scs_key_hex(hex, &k);
	cr_assert_str_eq(hex, "e3503d8de40743b7269eb834f6c110a9");
	cr_assert_eq(k.len, n);
	free(data);
}

/* A state copied to another address (another alignment) mid-stream goes on
 * as the original. */
Test(hash, a_copied_state_goes_on)
{
	size_t n = 100000;
	uint8_t *data = pattern(n);
	scs_key want, got;
	scs_hash h;

	scs_hash_bytes(&want, data, n);
	for (size_t shift = 0; shift < 64; shift += 8) {
		uint8_t *room = aligned_alloc(64, (sizeof(scs_hash) + 127) / 64 * 64);
		scs_hash *moved = (scs_hash *)(void *)(room + shift);

		cr_assert_not_null(room);
		scs_hash_init(&h);
		scs_hash_update(&h, data, 1000);
		memcpy(moved, &h, sizeof(h));
		scs_hash_update(moved, data + 1000, n - 1000 - 7);
		memcpy(&h, moved, sizeof(h));
		scs_hash_update(&h, data + n - 7, 7);
		memcpy(moved, &h, sizeof(h));
		scs_hash_final(&got, moved);
		cr_assert(scs_key_eq(&want, &got), "copied at offset %zu", shift);
		free(room);
	}
	free(data);
}

Test(hash, streaming_equals_one_shot_for_any_split)
{
	uint8_t data[1000];
	scs_key whole, parts;
	scs_hash h;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 31 + 7);
	scs_hash_bytes(&whole, data, sizeof(data));
	for (size_t cut = 0; cut <= sizeof(data); cut += 37) {
		scs_hash_init(&h);
		scs_hash_update(&h, data, cut);
		scs_hash_update(&h, data + cut, sizeof(data) - cut);
		scs_hash_final(&parts, &h);
		cr_assert(scs_key_eq(&whole, &parts), "split at %zu changed the key", cut);
	}
	cr_assert_eq(whole.len, sizeof(data));
}

Test(hash, one_changed_byte_or_length_changes_the_key)
{
	uint8_t a[64] = { 0 }, b[64] = { 0 };
	scs_key ka, kb, kshort;

	b[63] = 1;
	scs_hash_bytes(&ka, a, sizeof(a));
	scs_hash_bytes(&kb, b, sizeof(b));
	scs_hash_bytes(&kshort, a, sizeof(a) - 1);
	cr_assert_not(scs_key_eq(&ka, &kb));
	cr_assert_not(scs_key_eq(&ka, &kshort));
	cr_assert_neq(ka.h[0], kb.h[0]);
	cr_assert_neq(ka.h[1], kb.h[1]);
}

Test(hash, forced_collisions_make_equal_length_keys_equal)
{
	uint8_t a[16] = { 1 }, b[16] = { 2 };
	scs_key ka, kb;

	scs_hash_collide_for_tests(1);
	scs_hash_bytes(&ka, a, sizeof(a));
	scs_hash_bytes(&kb, b, sizeof(b));
	scs_hash_collide_for_tests(0);
	cr_assert(scs_key_eq(&ka, &kb), "the test hook must collide");
	cr_assert_neq(scs_hash64(a, sizeof(a)), scs_hash64(b, sizeof(b)), "integrity checks are never weakened");
}
