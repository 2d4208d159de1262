/*
 * test_scan.c: every payload encoding read into canonical bytes; unknown fields kept; derived payloads read as computed.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "model/model.h"
#include "scs4onnx.h"
#include "io/store.h"
#include "support.h"

static char *dir;
static scs_store *st;
static scs_model *m;

static void
load_encodings(void)
{
	char *path = fixture("encodings.onnx");

	dir = tmpdir_new();
	cr_assert_eq(scs_store_open(&st, NULL, dir), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_model_load(&m, path, st, NULL), SCS_OK, "%s", scs_err_msg());
	free(path);
}

static void
unload(void)
{
	scs_model_free(m);
	scs_store_close(st);
	tmpdir_remove(dir);
}

static void
expect_bytes(const char *name, const void *want, size_t len)
{
	Onnx__TensorProto *t = find_init(m->proto->graph, name);
	uint8_t got[64];
	uint32_t id;

	cr_assert_not_null(t, "no initializer %s", name);
	cr_assert_eq(scs_model_payload_of(m, t, &id), 1, "%s has no payload", name);
	cr_assert_eq(m->payloads->items[id].key.len, len, "%s: %llu bytes, wanted %zu", name,
	    (unsigned long long)m->payloads->items[id].key.len, len);
	cr_assert_eq(scs_payloads_read(m->payloads, id, 0, got, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, want, len, "%s: canonical bytes differ", name);
}

Test(scan, float_data_and_raw_data_give_the_same_bytes, .init = load_encodings, .fini = unload)
{
	static const uint8_t want[] = { 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0 };
	uint32_t a, b;

	expect_bytes("f32_typed", want, sizeof(want));
	expect_bytes("f32_raw", want, sizeof(want));
	scs_model_payload_of(m, find_init(m->proto->graph, "f32_typed"), &a);
	scs_model_payload_of(m, find_init(m->proto->graph, "f32_raw"), &b);
	cr_assert(scs_key_eq(&m->payloads->items[a].key, &m->payloads->items[b].key), "same content, same key");
	cr_assert_eq(m->payloads->items[a].where, SCS_AT_STORE, "typed data is decoded into the store");
	cr_assert_eq(m->payloads->items[b].where, SCS_AT_FILE, "raw data stays where it lies");
}

Test(scan, integer_fields_decode_by_element_type, .init = load_encodings, .fini = unload)
{
	static const uint8_t i64[] = { 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0, 0, 0, 0, 1, 0, 0, 0 };
	static const uint8_t f16[] = { 0x00, 0x3c, 0x00, 0xc0 };
	static const uint8_t i8[] = { 0xff, 0x7f, 0x80 };
	static const uint8_t b[] = { 1, 0 };
	static const uint8_t u32[] = { 0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0 };
	static const uint8_t u64[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t i4[] = { 0x21, 0x0f };

	expect_bytes("i64_typed", i64, sizeof(i64));
	expect_bytes("f16_typed", f16, sizeof(f16));
	expect_bytes("i8_typed", i8, sizeof(i8));
	expect_bytes("bool_typed", b, sizeof(b));
	expect_bytes("u32_typed", u32, sizeof(u32));
	expect_bytes("u64_typed", u64, sizeof(u64));
	expect_bytes("i4_typed", i4, sizeof(i4));
}

Test(scan, double_and_complex_fields_keep_their_bytes, .init = load_encodings, .fini = unload)
{
	static const uint8_t f64[] = { 0, 0, 0, 0, 0, 0, 0xe0, 0x3f };
	static const uint8_t c64[] = { 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40 };

	expect_bytes("f64_typed", f64, sizeof(f64));
	expect_bytes("c64_typed", c64, sizeof(c64));
}

Test(scan, strings_and_empty_tensors_stay_in_the_skeleton, .init = load_encodings, .fini = unload)
{
	Onnx__TensorProto *s = find_init(m->proto->graph, "strings");
	Onnx__TensorProto *e = find_init(m->proto->graph, "empty");
	uint32_t id;

	cr_assert_not_null(s);
	cr_assert_eq(s->n_string_data, 2);
	cr_assert_eq(s->string_data[0].len, 2);
	cr_assert_arr_eq(s->string_data[0].data, "ab", 2);
	cr_assert_eq(scs_model_payload_of(m, s, &id), 0);
	cr_assert_not_null(e);
	cr_assert_eq(scs_model_payload_of(m, e, &id), 0);
}

Test(scan, unknown_fields_are_kept_in_the_output)
{
	char *in = fixture("tiny.onnx"), *d = tmpdir_new(), *with = path_in(d, "unknown.onnx"),
	     *out = path_in(d, "out.onnx");
	/* field 1000 (varint 42) and field 77 (bytes "hi") appended at the top level */
	static const uint8_t extra[] = { 0xc0, 0x3e, 42, 0xea, 0x04, 2, 'h', 'i' };
	Onnx__ModelProto *got;
	scs_report rep = SCS_REPORT_INIT;
	size_t len;
	uint8_t *bytes = read_all(in, &len);

	bytes = realloc(bytes, len + sizeof(extra));
	memcpy(bytes + len, extra, sizeof(extra));
	write_all(with, bytes, len + sizeof(extra));
	cr_assert_eq(scs_shrink(&rep, with, out, NULL), SCS_OK, "%s", scs_err_msg());
	got = load_proto(out);
	cr_assert_not_null(got);
	cr_assert_eq(got->base.n_unknown_fields, 2, "unknown fields: %u", (unsigned)got->base.n_unknown_fields);
	cr_assert_eq(got->base.unknown_fields[0].tag, 1000);
	cr_assert_eq(got->base.unknown_fields[1].tag, 77);
	cr_assert_eq(got->base.unknown_fields[1].len, 3, "length prefix and two bytes");
	cr_assert_arr_eq(got->base.unknown_fields[1].data, "\002hi", 3);
	free_proto(got);
	scs_report_dispose(&rep);
	free(bytes);
	free(in);
	free(with);
	free(out);
	tmpdir_remove(d);
}

/* element e of a derived payload: the source's bytes, each xor (16 e + its place + 1) */
static int
xor_apply(scs_payloads *set, void *state, uint64_t first, uint8_t *elems, size_t n)
{
	(void)set;
	++*(int *)state;
	for (size_t k = 0; k < n; k++)
		for (size_t b = 0; b < 8; b++)
			elems[k * 8 + b] ^= (uint8_t)((first + k) * 16 + b + 1);
	return SCS_OK;
}

Test(scan, a_derived_payload_reads_as_computed_at_any_offset, .init = load_encodings, .fini = unload)
{
	uint8_t src[24], want[24], got[24];
	int *calls = calloc(1, sizeof(*calls));
	scs_derivation d = { 8, xor_apply, free, calls };
	scs_hash h;
	scs_key key, want_key;
	uint32_t s, id;

	cr_assert_eq(scs_model_payload_of(m, find_init(m->proto->graph, "i64_typed"), &s), 1);
	cr_assert_eq(scs_payloads_read(m->payloads, s, 0, src, sizeof(src)), SCS_OK, "%s", scs_err_msg());
	for (size_t i = 0; i < sizeof(src); i++)
		want[i] = src[i] ^ (uint8_t)(i / 8 * 16 + i % 8 + 1);
	cr_assert_eq(scs_payloads_add_derived(m->payloads, s, &d, &id), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(*calls, 0, "nothing is computed before it is read");
	scs_hash_init(&h);
	scs_hash_update(&h, want, sizeof(want));
	scs_hash_final(&want_key, &h);
	cr_assert_eq(scs_payloads_key(m->payloads, id, &key), SCS_OK, "%s", scs_err_msg());
	cr_assert_gt(*calls, 0, "its digest is computed from its bytes");
	cr_assert(scs_key_eq(&key, &want_key), "the digest is the computed bytes'");
	/* every range, elements cut at either end or both */
	for (size_t off = 0; off <= sizeof(src); off++)
		for (size_t len = 0; off + len <= sizeof(src); len++) {
			memset(got, 0xaa, sizeof(got));
			cr_assert_eq(scs_payloads_read(m->payloads, id, off, got, len), SCS_OK, "%s", scs_err_msg());
			cr_assert_arr_eq(got, want + off, len, "bytes %zu..%zu differ", off, off + len);
		}
	cr_assert_eq(scs_payloads_read(m->payloads, id, 20, got, 8), SCS_ERANGE, "a read past its end is refused");
	cr_assert_eq(scs_payloads_equal(m->payloads, id, s), 0, "it is not its source");
	cr_assert_eq(scs_payloads_equal(m->payloads, id, id), 1);
}
