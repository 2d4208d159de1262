/*
 * test_store_shared.c: runs at once on one kept store (--store DIR, "kept
 * and reused"). LMDB takes their writes in turn; the data file, which with
 * MDB_WRITEMAP is as long as the map that last set it, never shrinks under
 * another run's map (store.c), so neither run dies of SIGBUS. Each output is
 * the bytes of the output of a run alone, which computes in ONNX Runtime
 * what its input computes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define TRIALS 20

/* The output of @model shrunk alone with a kept store, checked in ONNX
 * Runtime: malloc'd bytes, *len of them. */
static uint8_t *
reference(const char *dir, const char *model, const char *name, size_t *len)
{
	char *out = path_in(dir, name), *store = path_in(dir, "alone"), *text;
	uint8_t *bytes;

	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s' -n --store '%s'", model, out, store), 0, "%s", text);
	free(text);
	expect_equivalent(model, out, NULL);
	bytes = read_all(out, len);
	free(out);
	free(store);
	return bytes;
}

static void
expect_bytes(const char *dir, const char *name, const uint8_t *want, size_t want_len, int trial)
{
	char *path = path_in(dir, name);
	size_t len;
	uint8_t *got = read_all(path, &len);

	cr_assert_eq(len, want_len, "trial %d: %s has %zu bytes, alone %zu", trial, name, len, want_len);
	cr_assert_arr_eq(got, want, len, "trial %d: %s differs from the output of a run alone", trial, name);
	free(got);
	free(path);
}

/*
 * Two shrinks start together on a new store (both grow its map from the
 * first size): of two models (their payloads differ), and every other
 * trial of one model twice (each finds the other's blobs).
 */
Test(store, two_runs_at_once_on_one_kept_store_both_finish_with_their_own_outputs)
{
	char *dir = tmpdir_new(), *a = fixture("big_dups.onnx"), *b = fixture("straddle.onnx"), *text;
	size_t a_len, b_len;
	uint8_t *a_ref = reference(dir, a, "a_ref.onnx", &a_len), *b_ref = reference(dir, b, "b_ref.onnx", &b_len);

	for (int trial = 0; trial < TRIALS; trial++) {
		const char *second = trial % 2 ? a : b;
		int sa = -1, sb = -1;

		cr_assert_eq(run(&text, "cd '%s' && rm -rf st && { "
		    "('%s/scs4onnx-shrink' '%s' a.onnx -n -f --store st; echo \"status a=$?\") & "
		    "('%s/scs4onnx-shrink' '%s' b.onnx -n -f --store st; echo \"status b=$?\") & wait; }",
		    dir, SCS_TOOLS_DIR, a, SCS_TOOLS_DIR, second), 0, "%s", text);
		cr_assert_not_null(strstr(text, "status a="), "%s", text);
		cr_assert_not_null(strstr(text, "status b="), "%s", text);
		sscanf(strstr(text, "status a="), "status a=%d", &sa);
		sscanf(strstr(text, "status b="), "status b=%d", &sb);
		cr_assert(sa == 0 && sb == 0, "trial %d: exit statuses %d and %d (over 128: a signal): %s", trial, sa, sb,
		    text);
		free(text);
		expect_bytes(dir, "a.onnx", a_ref, a_len, trial);
		expect_bytes(dir, "b.onnx", trial % 2 ? a_ref : b_ref, trial % 2 ? a_len : b_len, trial);
	}
	/* the store the last trial left opens and serves a third run */
	cr_assert_eq(run(&text, "cd '%s' && '%s/scs4onnx-shrink' '%s' c.onnx -n --store st", dir, SCS_TOOLS_DIR, b), 0,
	    "%s", text);
	free(text);
	expect_bytes(dir, "c.onnx", b_ref, b_len, TRIALS);
	free(a_ref);
	free(b_ref);
	free(a);
	free(b);
	tmpdir_remove(dir);
}
