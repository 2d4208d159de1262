/*
 * test_hash.c: content keys.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

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

	scs_hash_force_collisions(1);
	scs_hash_bytes(&ka, a, sizeof(a));
	scs_hash_bytes(&kb, b, sizeof(b));
	scs_hash_force_collisions(0);
	cr_assert(scs_key_eq(&ka, &kb), "the test hook must collide");
	cr_assert_neq(scs_hash64(a, sizeof(a)), scs_hash64(b, sizeof(b)), "integrity checks are never weakened");
}
