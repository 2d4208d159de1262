/*
 * test_store_reclaim.c: a writer commits its chunks in batches before its
 * blob is indexed. An aborted writer gives them back at once; those of a
 * writer killed between batches are given back when its kept store next
 * opens, unless another process has the store open (its writer may be
 * between batches).
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "io/store.h"
#include "support.h"

#define OVER_A_BATCH ((size_t)70 << 20)   /* the store commits a writer's chunks every 64 MiB at least */

/* Open a writer and give it @len bytes that do not compress. */
static scs_store_writer *
write_unfinished(scs_store *st, size_t len)
{
	uint8_t *buf = malloc(SCS_CHUNK_LEN);
	scs_store_writer *w;
	uint64_t x = 88172645463325252u;

	cr_assert_eq(scs_store_writer_open(&w, st), SCS_OK, "%s", scs_err_msg());
	for (size_t off = 0; off < len; off += SCS_CHUNK_LEN) {
		for (size_t i = 0; i < SCS_CHUNK_LEN; i += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(buf + i, &x, 8);
		}
		cr_assert_eq(scs_store_writer_write(w, buf, SCS_CHUNK_LEN), SCS_OK, "%s", scs_err_msg());
	}
	free(buf);
	return w;
}

static uint64_t
chunks_in(scs_store *st, uint64_t *pages)
{
	uint64_t n, p;

	cr_assert_eq(scs_store_stat_for_tests(st, &n, &p), SCS_OK, "%s", scs_err_msg());
	if (pages)
		*pages = p;
	return n;
}

/* A blob of three chunks that must survive every reclaim. */
static scs_blob
put_kept(scs_store *st, uint8_t **data, size_t *len)
{
	scs_blob blob;

	*len = 2 * SCS_CHUNK_LEN + 999;
	*data = malloc(*len);
	for (size_t i = 0; i < *len; i++)
		(*data)[i] = (uint8_t)(i * 2654435761u >> 13);
	cr_assert_eq(scs_store_put(&blob, st, *data, *len), SCS_OK, "%s", scs_err_msg());
	return blob;
}

static void
expect_reads_back(scs_store *st, const scs_blob *blob, const uint8_t *data, size_t len)
{
	uint8_t *got = malloc(len);

	cr_assert_eq(scs_store_read(st, blob, 0, got, len), SCS_OK, "%s", scs_err_msg());
	cr_assert_arr_eq(got, data, len);
	free(got);
}

Test(store, an_aborted_writer_leaves_no_chunks_and_its_pages_are_reused)
{
	char *dir = tmpdir_new();
	scs_store *st;
	uint8_t *data;
	size_t len;
	uint64_t before, pages_once, pages_twice;
	scs_blob kept;

	cr_assert_eq(scs_store_open(&st, NULL, dir), SCS_OK, "%s", scs_err_msg());
	kept = put_kept(st, &data, &len);
	before = chunks_in(st, NULL);
	cr_assert_eq(before, 3);
	scs_store_writer_abort(write_unfinished(st, OVER_A_BATCH));
	cr_assert_eq(chunks_in(st, &pages_once), before, "chunks left by the aborted writer");
	scs_store_writer_abort(write_unfinished(st, OVER_A_BATCH));
	cr_assert_eq(chunks_in(st, &pages_twice), before);
	cr_assert_lt(pages_twice - pages_once, (OVER_A_BATCH / 4096) / 2,
	    "a second aborted writer took new pages: %llu -> %llu", (unsigned long long)pages_once,
	    (unsigned long long)pages_twice);
	expect_reads_back(st, &kept, data, len);
	scs_store_close(st);
	free(data);
	tmpdir_remove(dir);
}

Test(store, a_kept_store_reopened_after_a_killed_writer_is_reclaimed)
{
	char *dir = tmpdir_new(), *where = path_in(dir, "store"), *model = fixture("encodings.onnx"),
	     *out = path_in(dir, "out.onnx"), *text;
	scs_store *st;
	uint8_t *data;
	size_t len;
	uint64_t before, orphaned, with_run;
	scs_blob kept;

	cr_assert_eq(scs_store_open(&st, where, NULL), SCS_OK, "%s", scs_err_msg());
	kept = put_kept(st, &data, &len);
	before = chunks_in(st, NULL);
	scs_store_writer_crash_for_tests(write_unfinished(st, OVER_A_BATCH));
	orphaned = chunks_in(st, NULL) - before;
	cr_assert_gt(orphaned, 1, "the killed writer committed batches: %llu chunks", (unsigned long long)orphaned);
	/* another process opens the store meanwhile: it must leave those chunks alone */
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n --store '%s'", model, out, where), 0, "%s", text);
	free(text);
	with_run = chunks_in(st, NULL);
	cr_assert_geq(with_run, before + orphaned, "chunks went while the store was open here too");
	scs_store_close(st);
	/* alone now: what no index entry names goes */
	cr_assert_eq(scs_store_open(&st, where, NULL), SCS_OK, "%s", scs_err_msg());
	cr_assert_eq(chunks_in(st, NULL), with_run - orphaned);
	expect_reads_back(st, &kept, data, len);
	scs_store_close(st);
	free(data);
	free(model);
	free(out);
	free(where);
	tmpdir_remove(dir);
}
