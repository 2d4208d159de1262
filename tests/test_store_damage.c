/*
 * test_store_damage.c: a damaged kept store is refused, never used. A store
 * made by runs on three models is damaged, each time a copy of it: every
 * entry of its meta table (the blob id counter, the format, the count of
 * chunks given back) set to other values, every field of LMDB's meta pages
 * flipped, and single random bytes of its data file flipped. Then each model is shrunk again with it: the run
 * either writes the output a run without damage writes (or one ONNX
 * Runtime finds computing what the input computes) or exits 1 with one
 * error line and writes nothing; never another model, never a signal.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/num.h"
#include "io/store.h"
#include "support.h"

#define N_MODELS 5
#define N_FLIPS 40
#define PAGE 4096

/* store_old: eight float tensors of one shape; dup_mixed: float tensors of
 * one length, plain and typed; typed_pair: two float_data tensors of one
 * length over a chunk; gather_typed: int64 indices over two chunks that
 * narrow to int32 (a blob derived in the run); and store_new, made after the
 * damage only: store_old's last tensor (an old blob) and eight new ones,
 * whose ids, when the counter went back, are those of old blobs. */
static const char *const models[N_MODELS] = { "store_old.onnx", "dup_mixed.onnx", "typed_pair.onnx",
	"gather_typed.onnx", "store_new.onnx" };

static char *dir;
static uint8_t *refs[N_MODELS];
static size_t ref_lens[N_MODELS];

static int
shrink(char **text, const char *model, const char *store)
{
	char *in = fixture(model);
	int status;

	/* timeout turns a hang into status 124 */
	status = run(text, "cd '%s' && rm -f out.onnx && timeout 120 '%s/scs4onnx-shrink' '%s' out.onnx -n --store '%s'", dir,
	    SCS_TOOLS_DIR, in, store);
	free(in);
	return status;
}

/* The pristine store (dir/pristine), made by a run on each model but the
 * last; the outputs (the last one's with a store of its own) are the
 * references, checked once in ONNX Runtime. */
static void
setup(void)
{
	char *text, *out, *in;

	dir = tmpdir_new();
	out = path_in(dir, "out.onnx");
	for (int i = 0; i < N_MODELS; i++) {
		cr_assert_eq(shrink(&text, models[i], i < N_MODELS - 1 ? "pristine" : "apart"), 0, "%s", text);
		free(text);
		in = fixture(models[i]);
		expect_equivalent(in, out, NULL);
		free(in);
		refs[i] = read_all(out, &ref_lens[i]);
	}
	free(out);
}

static void
teardown(void)
{
	for (int i = 0; i < N_MODELS; i++) {
		free(refs[i]);
		refs[i] = NULL;
	}
	tmpdir_remove(dir);
	dir = NULL;
}

/* dir/st, a fresh copy of the pristine store, opened here (malloc'd path). */
static char *
fresh_copy(scs_store **st)
{
	char *text, *where = path_in(dir, "st");

	cr_assert_eq(run(&text, "rm -rf '%s' && cp -r '%s/pristine' '%s'", where, dir, where), 0, "%s", text);
	free(text);
	if (st)
		cr_assert_eq(scs_store_open(st, where, NULL), SCS_OK, "%s", scs_err_msg());
	return where;
}

/* Shrink model @i with the damaged store dir/st: its own output, or a refusal. */
static void
expect_refused_or_right(const char *damage, int i)
{
	char *text, *out = path_in(dir, "out.onnx"), *in, *check;
	uint8_t *got;
	size_t len;
	int status;

	{
		status = shrink(&text, models[i], "st");
		if (status == 1) {
			cr_assert_not_null(strstr(text, "error: "), "%s, %s: %s", damage, models[i], text);
			cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "%s, %s: one line: %s", damage,
			    models[i], text);
			cr_assert_not(file_exists(out), "%s, %s: refused, yet an output was written", damage, models[i]);
			free(text);
			free(out);
			return;
		}
		cr_assert_eq(status, 0, "%s, %s: exit status %d: %s", damage, models[i], status, text);
		free(text);
		got = read_all(out, &len);
		if (len != ref_lens[i] || memcmp(got, refs[i], len) != 0) {
			/* other bytes: ONNX Runtime judges */
			in = fixture(models[i]);
			status = ort_same(&check, in, out, NULL);
			cr_assert(status == 0 && strstr(check, "identical"), "%s, %s: exit 0 with another model: %s",
			    damage, models[i], check);
			free(check);
			free(in);
		}
		free(got);
	}
	free(out);
}

/* Set meta entry @name of a fresh copy to @len bytes of @val (0: removed),
 * and shrink each model with it, each with a copy of its own. */
static void
meta_case(const char *name, const void *val, size_t len, const char *what)
{
	scs_store *st;
	char *where, damage[160];
	uint8_t old[16];
	size_t old_len;

	snprintf(damage, sizeof(damage), "meta %s %s", name, what);
	for (int i = 0; i < N_MODELS; i++) {
		where = fresh_copy(&st);
		cr_assert_eq(scs_store_meta_for_tests(st, name, old, sizeof(old), &old_len, val ? val : "", len),
		    SCS_OK, "%s", scs_err_msg());
		scs_store_close(st);
		expect_refused_or_right(damage, i);
		free(where);
	}
}

/* The value of meta entry @name in the pristine store (0 when absent). */
static uint64_t
meta_value(const char *name)
{
	scs_store *st;
	char *where = fresh_copy(&st);
	uint8_t old[16] = { 0 };
	size_t old_len;

	cr_assert_eq(scs_store_meta_for_tests(st, name, old, sizeof(old), &old_len, NULL, 0), SCS_OK, "%s",
	    scs_err_msg());
	scs_store_close(st);
	free(where);
	return old_len == 8 ? scs_load_le64(old) : 0;
}

Test(store, every_field_of_a_kept_store_s_meta_table_changed_is_refused_or_harmless, .init = setup,
    .fini = teardown, .timeout = 600)
{
	static const char *const names[] = { "next_id", "format", "dropped" };
	uint8_t word[9] = { 0 };
	char what[64];

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		uint64_t v = meta_value(names[f]);
		uint64_t values[] = { 0, 1, v - 1, v - 2, v / 2, v + 1, UINT64_MAX, UINT64_MAX - 1 };

		for (int bit = 0; bit < 64; bit++) {
			if (bit >= 8 && bit < 62)
				continue;    /* counters this small: higher bits only make them larger */
			scs_store_le64(word, v ^ (uint64_t)1 << bit);
			snprintf(what, sizeof(what), "bit %d flipped", bit);
			meta_case(names[f], word, 8, what);
		}
		for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
			scs_store_le64(word, values[k]);
			snprintf(what, sizeof(what), "= %llu (was %llu)", (unsigned long long)values[k],
			    (unsigned long long)v);
			meta_case(names[f], word, 8, what);
		}
		meta_case(names[f], word, 4, "cut to 4 bytes");
		meta_case(names[f], word, 9, "grown to 9 bytes");
		meta_case(names[f], NULL, 0, "removed");
	}
}

/* Byte @at of a fresh copy's data file xor @mask, and shrink model @i with it. */
static void
flip_case(uint64_t at, uint8_t mask, int i, const char *damage)
{
	char *where = fresh_copy(NULL), *data = path_in(where, "data.mdb");
	uint8_t *bytes;
	size_t len;

	bytes = read_all(data, &len);
	cr_assert_gt(len, at);
	bytes[at] ^= mask;
	write_all(data, bytes, len);
	free(bytes);
	expect_refused_or_right(damage, i);
	free(data);
	free(where);
}

Test(store, random_byte_flips_of_a_kept_store_are_refused_or_harmless, .init = setup, .fini = teardown,
    .timeout = 600)
{
	scs_store *st;
	char *where = fresh_copy(&st), damage[96];
	uint64_t n_chunks, n_pages, x = 0x9e3779b97f4a7c15u;

	cr_assert_eq(scs_store_stat_for_tests(st, &n_chunks, &n_pages), SCS_OK, "%s", scs_err_msg());
	scs_store_close(st);
	free(where);
	for (int f = 0; f < N_FLIPS; f++) {
		uint64_t at, mask;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		at = x % (n_pages * PAGE);
		mask = x >> 56 ? x >> 56 : 1;
		snprintf(damage, sizeof(damage), "byte %llu of %llu xor 0x%02x", (unsigned long long)at,
		    (unsigned long long)(n_pages * PAGE), (unsigned)mask);
		for (int i = 0; i < N_MODELS; i++)
			flip_case(at, (uint8_t)mask, i, damage);
	}
}

/*
 * LMDB's own meta record, both copies (pages 0 and 1): every 8-byte field
 * after the page header (magic, version, address, map size, the two trees'
 * roots, depths, page and entry counts, the last page, the transaction id)
 * with its lowest and its highest bit flipped.
 */
Test(store, every_field_of_lmdb_s_meta_pages_flipped_is_refused_or_harmless, .init = setup, .fini = teardown,
    .timeout = 600)
{
	/* the models whose runs take new ids and read old blobs */
	static const int which[] = { N_MODELS - 1, 2 };
	char damage[96];

	for (uint64_t page = 0; page < 2; page++) {
		for (uint64_t field = 16; field <= 152; field += 8) {
			for (int hi = 0; hi < 2; hi++) {
				uint64_t at = page * PAGE + field + (hi ? 7 : 0);

				snprintf(damage, sizeof(damage), "meta page %llu, byte %llu xor 0x%02x",
				    (unsigned long long)page, (unsigned long long)(field + (hi ? 7 : 0)), hi ? 0x80u : 1u);
				for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++)
					flip_case(at, hi ? 0x80 : 1, which[i], damage);
			}
		}
	}
}
