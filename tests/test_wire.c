/*
 * test_wire.c: varints, tags and their failures.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <string.h>

#include "util/err.h"
#include "util/wire.h"

Test(wire, varints_of_every_length_round_trip)
{
	uint8_t bytes[SCS_WIRE_VARINT_MAX];
	uint64_t got;
	size_t used, n;

	for (int bits = 0; bits <= 64; bits++) {
		uint64_t v = bits == 64 ? UINT64_MAX : (bits ? (1ull << bits) - 1 : 0);

		n = scs_wire_put_varint(bytes, v);
		cr_assert_eq(n, scs_wire_varint_len(v), "length of %llu", (unsigned long long)v);
		cr_assert_eq(n, bits ? (size_t)(bits + 6) / 7 : 1, "value with %d bits took %zu bytes", bits, n);
		cr_assert_eq(scs_wire_get_varint(&got, bytes, n, &used), SCS_OK, "%s", scs_err_msg());
		cr_assert_eq(got, v, "got %llu, wanted %llu", (unsigned long long)got, (unsigned long long)v);
		cr_assert_eq(used, n);
	}
}

Test(wire, varint_longer_than_ten_bytes_is_corrupt)
{
	uint8_t bytes[11];
	uint64_t value;
	size_t used;

	memset(bytes, 0x80, sizeof(bytes));
	cr_assert_eq(scs_wire_get_varint(&value, bytes, sizeof(bytes), &used), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "varint"), "message was: %s", scs_err_msg());
}

Test(wire, tenth_byte_past_64_bits_is_corrupt)
{
	uint8_t bytes[10] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
	uint64_t value;
	size_t used;

	cr_assert_eq(scs_wire_get_varint(&value, bytes, sizeof(bytes), &used), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "64 bits"), "message was: %s", scs_err_msg());
}

Test(wire, varint_cut_by_the_window_asks_for_more)
{
	uint8_t bytes[2] = { 0x80, 0x80 };
	uint64_t value;
	size_t used;

	cr_assert_eq(scs_wire_get_varint(&value, bytes, sizeof(bytes), &used), SCS_DONE);
}

Test(wire, tags_split_and_bad_ones_are_refused)
{
	uint32_t field;
	uint8_t wt;

	cr_assert_eq(scs_wire_split_tag((7u << 3) | 2, &field, &wt), SCS_OK);
	cr_assert_eq(field, 7);
	cr_assert_eq(wt, SCS_WIRE_LEN);
	cr_assert_eq(scs_wire_split_tag(2, &field, &wt), SCS_ECORRUPT, "field 0 must be refused");
	cr_assert_eq(scs_wire_split_tag((1u << 3) | 7, &field, &wt), SCS_ECORRUPT, "wire type 7 must be refused");
	cr_assert_eq(scs_wire_split_tag((uint64_t)1 << 40, &field, &wt), SCS_ECORRUPT, "huge field numbers");
}
