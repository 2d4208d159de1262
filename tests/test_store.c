/* test_store.c: the LMDB payload store. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store.h"
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
	scs_key key;

	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	cr_assert_eq(scs_store_put(&key, st, data, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(key.len, len);
	cr_assert_eq(scs_store_has(st, &key), 1);
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
	scs_key key;

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
	scs_key k1, k2, k3;
	char got[16];

	cr_assert_eq(scs_store_put(&k1, st, a, sizeof(a)), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_put(&k2, st, a, sizeof(a)), SCS_OK, "%s", scs_err_msg());
	cr_assert(scs_key_eq(&k1, &k2));
	scs_hash_bytes(&k3, b, sizeof(b));
	cr_assert_eq(scs_store_has(st, &k3), 0);
	cr_assert_eq(scs_store_read(st, &k3, 0, got, sizeof(b)), SCS_ENOTFOUND);
}

Test(store, a_damaged_chunk_is_detected_on_read, .init = open_store, .fini = close_store)
{
	size_t len = SCS_CHUNK_LEN + 100;
	uint8_t *data = malloc(len), *got = malloc(len);
	scs_key key;

	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 7919u >> 3);
	cr_assert_eq(scs_store_put(&key, st, data, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(scs_store_damage_for_tests(st, &key, 1), SCS_OK, "%s", scs_err_msg());
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
	scs_key key;
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
	scs_key key;

	cr_assert_eq(scs_store_writer_open(&w, st), SCS_OK, "%s", scs_err_msg());
	for (size_t i = 0; i < n_pieces; i++) {
		for (size_t j = 0; j < piece; j++)
			buf[j] = (uint8_t)((i * 131 + j * 2654435761u) >> 7);
		cr_assert_eq(scs_store_writer_write(w, buf, piece), SCS_OK, "piece %zu: %s", i, scs_err_msg());
	}
	cr_assert_eq(scs_store_writer_finish(&key, w), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(key.len, piece * n_pieces);
	/* the last piece, read back from the far end of the blob */
	cr_assert_eq(scs_store_read(st, &key, (n_pieces - 1) * piece, got, piece), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, buf, piece);
	free(buf);
	free(got);
}
