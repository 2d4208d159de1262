/*
 * test_store.c: the LMDB payload store.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "onnx.pb-c.h"
#include "io/store.h"
#include "support.h"

static char *dir;
static scs_store *st;

static void
open_store(void)
{
	dir = tmpdir_new();
	cr_assert_eq(scs_store_open(&st, NULL, dir), SCS_OK, "%s", scs_err_msg());
}

static void
close_store(void)
{
	scs_store_close(st);
	tmpdir_remove(dir);
}

Test(store, put_then_read_back_any_range, .init = open_store, .fini = close_store)
{
	size_t len = 3 * SCS_CHUNK_LEN + 12345;
	uint8_t *data = malloc(len), *got = malloc(len);
	scs_blob key;

	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	cr_assert_eq(scs_store_put(&key, st, data, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(key.key.len, len);
	{
		scs_blob found;

		cr_assert_eq(scs_store_find(&found, st, &key.key), SCS_OK, "%s", scs_err_msg());
		cr_assert_eq(found.id, key.id);
	}
	cr_assert_eq(scs_store_read(st, &key, 0, got, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, data, len);
	cr_assert_eq(scs_store_read(st, &key, SCS_CHUNK_LEN - 5, got, 10), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, data + SCS_CHUNK_LEN - 5, 10);
	cr_assert_eq(scs_store_read(st, &key, len - 1, got, 2), SCS_ECORRUPT, "reading past the end");
	free(data);
	free(got);
}

Test(store, compressible_and_random_chunks_both_read_back, .init = open_store, .fini = close_store)
{
	size_t len = 2 * SCS_CHUNK_LEN;
	uint8_t *mask = malloc(len), *got = malloc(len);
	scs_blob key;

	for (size_t i = 0; i < len; i++)
		mask[i] = (i / 4) % 7 == 0 ? 0xc8 : 0;    /* a 0/-100 style mask compresses */
	cr_assert_eq(scs_store_put(&key, st, mask, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_read(st, &key, 0, got, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, mask, len);
	free(mask);
	free(got);
}

Test(store, equal_blobs_are_stored_once_and_unknown_keys_are_not_found, .init = open_store, .fini = close_store)
{
	const char a[] = "same bytes", b[] = "other byte";
	scs_blob k1, k2, found;
	scs_key k3;

	cr_assert_eq(scs_store_put(&k1, st, a, sizeof(a)), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&k2, st, a, sizeof(a)), SCS_OK, "%s", scs_err_msg());
	cr_assert(scs_key_eq(&k1.key, &k2.key));
	cr_assert_eq(k1.id, k2.id, "the second put reuses the first blob");
	scs_hash_bytes(&k3, b, sizeof(b));
	cr_assert_eq(scs_store_find(&found, st, &k3), SCS_ENOTFOUND);
}

/* The whole of @blob reads back as @want. */
static void
expect_blob(const scs_blob *blob, const uint8_t *want, size_t len)
{
	uint8_t *got = malloc(len);

	cr_assert_eq(scs_store_read(st, blob, 0, got, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, want, len);
	free(got);
}

/* With every digest forced to zero, blobs of equal length share one key:
 * the store must keep different bytes apart and still reuse equal ones. */
Test(store, a_key_hit_is_confirmed_byte_for_byte, .init = open_store, .fini = close_store)
{
	size_t len = 2 * SCS_CHUNK_LEN + 77;
	uint8_t *a = malloc(len), *b = malloc(len);
	scs_blob ka, kb, ka2, kb2;

	for (size_t i = 0; i < len; i++)
		a[i] = b[i] = (uint8_t)(i * 2654435761u >> 11);
	b[len - 1] ^= 1;        /* differ in the last chunk only */
	scs_hash_collide_for_tests(1);
	cr_assert_eq(scs_store_put(&ka, st, a, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&kb, st, b, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&ka2, st, a, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&kb2, st, b, len), SCS_OK, "%s", scs_err_msg());
	scs_hash_collide_for_tests(0);
	cr_assert(scs_key_eq(&ka.key, &kb.key), "the hook must collide");
	cr_assert_neq(ka.id, kb.id, "different bytes under one key are two blobs");
	cr_assert_eq(ka2.id, ka.id);
	cr_assert_eq(kb2.id, kb.id);
	expect_blob(&ka, a, len);
	expect_blob(&kb, b, len);
	free(a);
	free(b);
}

/* A read while a writer is open (the downcast reads its source as it
 * writes the narrowed copy) must leave the writer's pending bytes alone. */
Test(store, a_read_between_writes_leaves_the_writer_intact, .init = open_store, .fini = close_store)
{
	size_t len = 3 * SCS_CHUNK_LEN + 5, half = SCS_CHUNK_LEN / 2;
	uint8_t *src = malloc(len), *out = malloc(len), *got = malloc(len);
	scs_store_writer *w;
	scs_blob ks, ko;

	for (size_t i = 0; i < len; i++) {
		src[i] = (uint8_t)(i * 40503u >> 5);
		out[i] = (uint8_t)~src[i];
	}
	cr_assert_eq(scs_store_put(&ks, st, src, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_writer_open(&w, st), SCS_OK, "%s", scs_err_msg());
	for (size_t off = 0; off < len; off += half) {
		size_t take = len - off < half ? len - off : half;

		cr_assert_eq(scs_store_read(st, &ks, off, got, take), SCS_OK, "%s", scs_err_msg());
		cr_assert_arr_eq(got, src + off, take);
		cr_assert_eq(scs_store_writer_write(w, out + off, take), SCS_OK, "%s", scs_err_msg());
	}
	cr_assert_eq(scs_store_writer_finish(&ko, w), SCS_OK, "%s", scs_err_msg());
	expect_blob(&ko, out, len);
	free(src);
	free(out);
	free(got);
}

/* A damaged index that sends a key to another blob of the same length must
 * not hand out that blob's bytes: a key hit is only a nomination. */
Test(store, a_damaged_index_never_returns_another_blob, .init = open_store, .fini = close_store)
{
	size_t len = SCS_CHUNK_LEN + 300;
	uint8_t *a = malloc(len), *b = malloc(len);
	scs_blob ka, kb, again;

	for (size_t i = 0; i < len; i++) {
		a[i] = (uint8_t)(i * 2246822519u >> 9);
		b[i] = (uint8_t)(i * 3266489917u >> 9);
	}
	cr_assert_eq(scs_store_put(&ka, st, a, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&kb, st, b, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_misindex_for_tests(st, &ka.key, kb.id), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&again, st, a, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_neq(again.id, kb.id, "the bytes under the damaged entry are not A's");
	expect_blob(&again, a, len);
	expect_blob(&kb, b, len);
	free(a);
	free(b);
}

Test(store, a_damaged_chunk_is_detected_on_read, .init = open_store, .fini = close_store)
{
	size_t len = SCS_CHUNK_LEN + 100;
	uint8_t *data = malloc(len), *got = malloc(len);
	scs_blob key;

	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 7919u >> 3);
	cr_assert_eq(scs_store_put(&key, st, data, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_damage_for_tests(st, &key, 1, -1), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_read(st, &key, 0, got, 100), SCS_OK, "chunk 0 is intact: %s", scs_err_msg());
	cr_assert_eq(scs_store_read(st, &key, 0, got, len), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "integrity"), "message was: %s", scs_err_msg());
	free(data);
	free(got);
}

Test(store, a_named_store_keeps_its_blobs_across_opens)
{
	char *d = tmpdir_new(), *where = path_in(d, "store");
	scs_store *s1, *s2;
	scs_blob key;
	char got[6];

	cr_assert_eq(scs_store_open(&s1, where, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&key, s1, "kept!", 6), SCS_OK, "%s", scs_err_msg());
	scs_store_close(s1);
	cr_assert(file_exists(where), "a named store stays on disk");
	cr_assert_eq(scs_store_open(&s2, where, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_read(s2, &key, 0, got, 6), SCS_OK, "%s", scs_err_msg());
	cr_assert_str_eq(got, "kept!");
	scs_store_close(s2);
	free(where);
	tmpdir_remove(d);
}

Test(store, a_blob_over_several_batches_grows_the_map_and_reads_back, .init = open_store, .fini = close_store)
{
	size_t piece = 1 << 20, n_pieces = 200;
	uint8_t *buf = malloc(piece), *got = malloc(piece);
	scs_store_writer *w;
	scs_blob key;

	cr_assert_eq(scs_store_writer_open(&w, st), SCS_OK, "%s", scs_err_msg());
	for (size_t i = 0; i < n_pieces; i++) {
		for (size_t j = 0; j < piece; j++)
			buf[j] = (uint8_t)((i * 131 + j * 2654435761u) >> 7);
		cr_assert_eq(scs_store_writer_write(w, buf, piece), SCS_OK, "piece %zu: %s", i, scs_err_msg());
	}
	cr_assert_eq(scs_store_writer_finish(&key, w), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(key.key.len, piece * n_pieces);
	/* the last piece, read back from the far end of the blob */
	cr_assert_eq(scs_store_read(st, &key, (n_pieces - 1) * piece, got, piece), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, buf, piece);
	free(buf);
	free(got);
}

/* Gather over 300,000 int64 indices (2.4 MB, over two store chunks) whose
 * bytes live in the store; the downcast reads them while it writes the
 * int32 copy. @args are scs4onnx-shrink's extra arguments. */
static void
expect_narrowed_gather_computes_the_same(const char *model, const char *args)
{
	char *scratch = tmpdir_new(), *in = fixture(model), *out = path_in(scratch, "out.onnx"), *text;
	Onnx__ModelProto *m;
	Onnx__TensorProto *idx;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n %s", in, out, args), 0, "%s", text);
	free(text);
	m = load_proto(out);
	cr_assert_not_null(m);
	idx = find_init(m->graph, "idx");
	cr_assert_not_null(idx);
	cr_assert_eq(idx->data_type, ONNX__TENSOR_PROTO__DATA_TYPE__INT32, "the indices narrow");
	free_proto(m);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
	tmpdir_remove(scratch);
}

Test(store, typed_indices_over_a_chunk_narrow_to_the_same_values)
{
	expect_narrowed_gather_computes_the_same("gather_typed.onnx", "");
}

Test(store, raw_indices_held_in_a_named_store_narrow_to_the_same_values)
{
	char *scratch = tmpdir_new(), *where = path_in(scratch, "kept-store"), *args;

	cr_assert_gt(asprintf(&args, "--store '%s'", where), 0);
	expect_narrowed_gather_computes_the_same("gather_raw.onnx", args);
	/* a second run finds every blob in the kept store already */
	expect_narrowed_gather_computes_the_same("gather_raw.onnx", args);
	free(args);
	free(where);
	tmpdir_remove(scratch);
}

/* float_data constants are decoded into the store; with colliding keys the
 * dedup byte compare must read two blobs, not one blob twice. */
Test(store, colliding_store_resident_constants_never_merge, .init = shrink_setup, .fini = shrink_teardown)
{
	char *in = fixture("typed_pair.onnx"), *out = path_in(shrunk_dir, "out.onnx");
	Onnx__GraphProto *g;

	scs_hash_collide_for_tests(1);
	g = shrink_fixture("typed_pair.onnx", NULL);
	scs_hash_collide_for_tests(0);
	cr_assert_not_null(find_init(g, "A"));
	cr_assert_not_null(find_init(g, "B"), "B differs from A in its last element");
	cr_assert_null(find_init(g, "A2"), "A2 equals A");
	cr_assert_eq(shrunk_rep.n_groups, 1, "groups: %zu", shrunk_rep.n_groups);
	expect_equivalent(in, out, NULL);
	free(in);
	free(out);
}

Test(store, damaged_headers_and_missing_chunks_are_named, .init = open_store, .fini = close_store)
{
	size_t len = 2 * SCS_CHUNK_LEN;
	uint8_t *data = malloc(len), *got = malloc(len);
	scs_blob key, longer;

	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 17);
	cr_assert_eq(scs_store_put(&key, st, data, len), SCS_OK, "%s", scs_err_msg());
	/* the codec byte of chunk 0, the length field of chunk 1 */
	cr_assert_eq(scs_store_damage_for_tests(st, &key, 0, 0), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_read(st, &key, 0, got, 10), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "chunk 0 has a bad header"), "%s", scs_err_msg());
	cr_assert_eq(scs_store_damage_for_tests(st, &key, 1, 6), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_read(st, &key, SCS_CHUNK_LEN, got, 10), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "chunk 1 has a bad header"), "%s", scs_err_msg());
	/* a blob said to be longer than what was stored: its id is recorded
	 * under its own key, not this one */
	longer = key;
	longer.key.len = len + 5;
	cr_assert_eq(scs_store_read(st, &longer, len, got, 5), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "recorded under another content key"), "%s", scs_err_msg());
	cr_assert_eq(scs_store_read(st, &key, len, got, 1), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "past the end"), "%s", scs_err_msg());
	free(data);
	free(got);
}

Test(store, a_compressed_chunk_that_fails_to_decode_is_named, .init = open_store, .fini = close_store)
{
	size_t len = SCS_CHUNK_LEN;
	uint8_t *zeros = calloc(1, len), *got = malloc(len);
	scs_blob key;

	cr_assert_eq(scs_store_put(&key, st, zeros, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_damage_for_tests(st, &key, 0, 17), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_read(st, &key, 0, got, len), SCS_ECORRUPT);
	cr_assert_not_null(strstr(scs_err_msg(), "chunk 0"), "%s", scs_err_msg());
	free(zeros);
	free(got);
}

Test(store, one_writer_at_a_time, .init = open_store, .fini = close_store)
{
	scs_store_writer *w1, *w2;

	cr_assert_eq(scs_store_writer_open(&w1, st), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_writer_open(&w2, st), SCS_EUSAGE);
	cr_assert_null(w2);
	scs_store_writer_abort(w1);
	cr_assert_eq(scs_store_writer_open(&w2, st), SCS_OK, "after an abort a writer opens: %s", scs_err_msg());
	scs_store_writer_abort(w2);
	scs_store_writer_abort(NULL);
}

Test(store, a_store_folder_that_is_a_file_is_refused)
{
	char *d = tmpdir_new(), *where = path_in(d, "store");
	scs_store *s;

	write_all(where, "not a folder", 12);
	cr_assert_lt(scs_store_open(&s, where, NULL), 0);
	cr_assert_null(s);
	cr_assert_not_null(strstr(scs_err_msg(), where), "%s", scs_err_msg());
	cr_assert_lt(scs_store_open(&s, NULL, where), 0, "nor can a temporary store go under a file");
	cr_assert_not_null(strstr(scs_err_msg(), where), "%s", scs_err_msg());
	free(where);
	tmpdir_remove(d);
}

/* Set (or with @format 0 drop) the "format" entry of the kept store @where,
 * as another version of the project would have left it. */
static void
set_format(const char *where, uint64_t format)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta;
	uint8_t word[8];
	MDB_val k = { 6, "format" }, v = { sizeof(word), word };

	for (int i = 0; i < 8; i++)
		word[i] = (uint8_t)(format >> (8 * i));
	cr_assert_eq(mdb_env_create(&env), 0);
	cr_assert_eq(mdb_env_set_maxdbs(env, 4), 0);
	cr_assert_eq(mdb_env_open(env, where, 0, 0644), 0);
	cr_assert_eq(mdb_txn_begin(env, NULL, 0, &txn), 0);
	cr_assert_eq(mdb_dbi_open(txn, "meta", 0, &meta), 0);
	if (format)
		cr_assert_eq(mdb_put(txn, meta, &k, &v, 0), 0);
	else
		cr_assert_eq(mdb_del(txn, meta, &k, NULL), 0);
	cr_assert_eq(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
}

/* Stores of the hand-written digest (format 1, no format entry) or of a later
 * format hold keys and chunk checks this version would not match: refused. */
Test(store, a_kept_store_of_another_format_is_refused)
{
	char *d = tmpdir_new(), *where = path_in(d, "store");
	static const struct {
		uint64_t format;
		const char *says;
	} cases[] = { { 0, "store format 1," }, { 3, "store format 3," } };
	scs_store *s;
	scs_blob key;

	cr_assert_eq(scs_store_open(&s, where, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&key, s, "kept!", 6), SCS_OK, "%s", scs_err_msg());
	scs_store_close(s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		set_format(where, cases[i].format);
		cr_assert_eq(scs_store_open(&s, where, NULL), SCS_EUNSUPPORTED, "format %llu opened",
		    (unsigned long long)cases[i].format);
		cr_assert_null(s);
		cr_assert_not_null(strstr(scs_err_msg(), cases[i].says), "%s", scs_err_msg());
		cr_assert_not_null(strstr(scs_err_msg(), where), "%s", scs_err_msg());
	}
	set_format(where, 2);
	cr_assert_eq(scs_store_open(&s, where, NULL), SCS_OK, "this version's format opens: %s", scs_err_msg());
	scs_store_close(s);
	free(where);
	tmpdir_remove(d);
}
