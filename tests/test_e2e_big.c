/*
 * test_e2e_big.c: a single inline .onnx over 2 GiB, which protobuf-based
 * tools cannot open, is read and shrunk; the output (external data, as it
 * stays over 2 GiB) passes onnx.checker and computes in ONNX Runtime what
 * the same model written with external data computes. Generated here and
 * removed after (about 7 GB of disk for a minute).
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* The scratch folder lives in fixtures, so a failing test still removes its gigabytes. */
static char *big_dir;

static void
make_dir(void)
{
	big_dir = tmpdir_new();
}

static void
drop_dir(void)
{
	tmpdir_remove(big_dir);
}

Test(e2e_big, an_inline_model_over_2_gib_is_read_and_shrunk, .timeout = 900, .init = make_dir, .fini = drop_dir)
{
	char *dir = big_dir, *in = path_in(dir, "inline.onnx"), *ref = path_in(dir, "ref.onnx"),
	     *out = path_in(dir, "out.onnx"), *data, *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' inline '%s' --size 2.3G", SCS_TEST_SRC_DIR, in),
	    0, "%s", text);
	free(text);
	cr_assert_gt(file_size(in), (uint64_t)2 << 30, "the input must pass 2 GiB");
	/* the same model (same generator, size and seed) with external data, which ONNX Runtime loads */
	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' llm '%s' --size 2.3G --external",
	    SCS_TEST_SRC_DIR, ref), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s' '%s'", in, out), 0, "%s", text);
	cr_assert_not_null(strstr(text, "INFO: merged: "), "nothing merged: %s", text);
	free(text);
	data = data_file_beside(out);
	cr_assert_not_null(data, "an output over 2 GiB goes to external data");
	cr_assert_lt(file_size(out) + file_size(data), file_size(in), "the output is not smaller");
	run(NULL, "rm -f '%s'", in);
	expect_equivalent(ref, out, NULL);
	free(in);
	free(ref);
	free(out);
	free(data);
}

/* split; shrink each; merge -- and big -- on @in, in @dir; both outputs must be the same bytes.
 * @big and @step have the same file name in two folders, as external data names its file. */
static void
big_and_stepwise_agree(const char *dir, const char *in, const char *big, const char *step)
{
	char *text;

	cr_assert_eq(run(&text,
	    "set -e; cd '%s'; mkdir -p big step; T='%s'; '%s/scs4onnx-split' '%s' shards -n; mkdir shrunk; "
	    "for f in shards/*.onnx; do \"$T/scs4onnx-shrink\" \"$f\" shrunk/$(basename \"$f\") -n; done; rm -rf shards; "
	    "\"$T/scs4onnx-merge\" shrunk '%s' -n; rm -rf shrunk",
	    dir, SCS_TOOLS_DIR, SCS_TOOLS_DIR, in, step), 0, "%s", text);
	free(text);
	cr_assert_eq(run_tool(&text, "scs4onnx-big", "'%s' '%s' -n", in, big), 0, "%s", text);
	free(text);
	/* the same .onnx bytes name the same data file, which must hold the same bytes */
	cr_assert_eq(run(&text, "cmp '%s' '%s'", step, big), 0, "big and the stepwise pipeline differ: %s", text);
	free(text);
	{
		char *a = data_file_beside(step), *b = data_file_beside(big);

		cr_assert_eq(a == NULL, b == NULL, "one wrote a data file, the other not");
		if (a) {
			cr_assert_str_eq(strrchr(a, '/'), strrchr(b, '/'));
			cr_assert_eq(run(&text, "cmp '%s' '%s'", a, b), 0, "the data files differ: %s", text);
			free(text);
		}
		free(a);
		free(b);
	}
}

Test(e2e_big, a_several_gib_external_data_model_through_big_and_the_pipeline, .timeout = 1800, .init = make_dir, .fini = drop_dir)
{
	char *dir = big_dir, *in = path_in(dir, "llm.onnx"), *big = path_in(dir, "big/out.onnx"),
	     *step = path_in(dir, "step/out.onnx"), *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' llm '%s' --size 3G --external --big-tensor 600M",
	    SCS_TEST_SRC_DIR, in), 0, "%s", text);
	free(text);
	big_and_stepwise_agree(dir, in, big, step);
	run(NULL, "rm -f '%s' '%s'.*.data", step, step);
	expect_equivalent(in, big, NULL);
	free(in);
	free(big);
	free(step);
}

Test(e2e_big, an_inline_model_over_2_gib_through_big_and_the_pipeline, .timeout = 1800, .init = make_dir, .fini = drop_dir)
{
	char *dir = big_dir, *in = path_in(dir, "inline.onnx"), *ref = path_in(dir, "ref.onnx"),
	     *big = path_in(dir, "big/out.onnx"), *step = path_in(dir, "step/out.onnx"), *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' inline '%s' --size 2.3G", SCS_TEST_SRC_DIR, in), 0,
	    "%s", text);
	free(text);
	big_and_stepwise_agree(dir, in, big, step);
	run(NULL, "rm -f '%s' '%s' '%s'.*.data", in, step, step);
	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' llm '%s' --size 2.3G --external", SCS_TEST_SRC_DIR,
	    ref), 0, "%s", text);
	free(text);
	expect_equivalent(ref, big, NULL);
	free(in);
	free(ref);
	free(big);
	free(step);
}

/*
 * A model over 2 GiB whose tied embedding is stored again transposed (the
 * output projection [H, V] read by a MatMul): scs4onnx-big, with shards
 * that put the two copies apart, keeps the Gather's copy and the MatMul
 * reads it through Gemm(transB=1), in bounded memory; the output computes
 * what the input computes in ONNX Runtime at levels disabled and all, and
 * the stepwise pipeline (split, shrink each, merge) writes the same bytes.
 */
Test(e2e_big, a_transposed_tied_embedding_over_2_gib_through_big, .timeout = 1800, .init = make_dir, .fini = drop_dir)
{
	char *dir = big_dir, *in = path_in(dir, "tied.onnx"), *big = path_in(dir, "big/out.onnx"),
	     *step = path_in(dir, "step/out.onnx"), *json = path_in(dir, "r.json"), *text, *j;
	size_t len;
	long rss_kib;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/scripts/gen-model.py' llm '%s' --size 2.3G --external --tied-transposed",
	    SCS_TEST_SRC_DIR, in), 0, "%s", text);
	free(text);
	big_and_stepwise_agree(dir, in, big, step);
	run(NULL, "rm -f '%s' '%s'.*.data", step, step);
	/* again with the report, and its peak memory */
	cr_assert_eq(run(&text, "/usr/bin/time -f 'rss %%M' '%s/scs4onnx-big' '%s' '%s/again.onnx' -n --max-shard-size 256M "
	    "--json '%s'", SCS_TOOLS_DIR, in, dir, json), 0, "%s", text);
	cr_assert_not_null(strstr(text, "rss "), "%s", text);
	rss_kib = strtol(strstr(text, "rss ") + 4, NULL, 10);
	free(text);
	cr_assert_lt(rss_kib, 1L << 20, "scs4onnx-big peaked at %ld KiB", rss_kib);
	j = (char *)read_all(json, &len);
	cr_assert_not_null(j);
	j[len] = '\0';
	cr_assert_not_null(strstr(j, "{\"name\": \"lm_head.weight\", \"rewrite\": \"Gemm(transB=1) of model.embed_tokens.weight "),
	    "%.2000s", strstr(j, "\"transposed\"") ? strstr(j, "\"transposed\"") : j);
	cr_assert_null(strstr(j, "\"n_shards\": 1,"), "the copies must fall into different shards");
	free(j);
	run(NULL, "rm -f '%s/again.onnx' '%s/again.onnx'.*.data", dir, dir);
	expect_equivalent(in, big, "--graph-opt all");
	cr_assert_eq(ort_same(&text, in, big, "--graph-opt disabled"), 0, "ONNX Runtime at level disabled: %s", text);
	free(text);
	free(in);
	free(big);
	free(step);
	free(json);
}
