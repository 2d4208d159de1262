/*
 * test_measure.c: scripts/ort-basic-compare.sh, the comparison of the
 * default passes with ONNX Runtime's basic-level offline optimizer, on the
 * small transformer-like and MobileNetV2-like models of
 * tests/e2e/gen_bench_models.py.
 *
 * What is asserted: every model's output computes in ONNX Runtime what the
 * original computes (bit for bit for the transformer-like models, whose
 * passes are structural; within the script's tolerance for the CNNs, whose
 * BatchNormalization fusions round differently), passes onnx.checker, and
 * has no more compute nodes than the original; the script itself says DIFF
 * and fails when an output computes something else; its counter reaches
 * nested graphs and leaves Constant nodes out. The node counts
 * against ONNX Runtime's are a figure, printed, not asserted.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

#define setup scratch_setup
#define teardown scratch_teardown

/* the models and whether their passes are structural only (bit for bit) */
static const struct {
	const char *name;
	int exact;
} bench[] = {
	{ "bench_bert13", 1 }, { "bench_bert18", 1 }, { "bench_gpt13", 1 },
	{ "bench_mbv2_13", 0 }, { "bench_mbv2_9", 0 }, { "bench_cnn_mul", 0 },
};
#define N_BENCH (sizeof(bench) / sizeof(bench[0]))

/* The script's output on @models (a space-separated list of quoted paths) with the build @build; its status. */
static int
compare(char **out, const char *build, const char *models)
{
	return run(out, "'%s/scripts/ort-basic-compare.sh' '%s' %s", SCS_TEST_SRC_DIR, build, models);
}

/* The row of model @name in the script's table, as a string of its own (NULL when there is none). */
static char *
row_of(const char *table, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = table; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, name, n) == 0 && p[n] == ' ')
			return strndup(p, strcspn(p, "\n"));
	return NULL;
}

Test(measure, every_bench_model_computes_the_same_after_the_default_passes, .init = setup, .fini = teardown,
    .timeout = 600)
{
	char models[4096] = "", *text, *row, verdict[64], ort[32];
	long before, ours;
	size_t used = 0;

	for (size_t i = 0; i < N_BENCH; i++) {
		char *path = path_in(SCS_TEST_BUILD_DIR, bench[i].name);

		used += (size_t)snprintf(models + used, sizeof(models) - used, "'%s.onnx' ", path);
		free(path);
	}
	cr_assert_eq(compare(&text, SCS_TOOLS_DIR "/..", models), 0, "%s", text);
	fprintf(stderr, "%s", text);
	for (size_t i = 0; i < N_BENCH; i++) {
		row = row_of(text, bench[i].name);
		cr_assert_not_null(row, "%s: no row: %s", bench[i].name, text);
		cr_assert_eq(sscanf(row + strlen(bench[i].name), "%ld %ld %31s %63s", &before, &ours, ort, verdict), 4,
		    "%s", row);
		cr_assert_str_neq(ort, "-", "ONNX Runtime loads %s: %s", bench[i].name, row);
		if (bench[i].exact)
			cr_assert_str_eq(verdict, "same", "structural passes only: bit for bit: %s", row);
		else
			cr_assert(strcmp(verdict, "same") == 0 || verdict[0] == '~', "%s", row);
		cr_assert_leq(ours, before, "the passes never add compute nodes: %s", row);
		free(row);
	}
	cr_assert_not_null(strstr(text, "summary: 6 models compared;"), "%s", text);
	cr_assert_not_null(strstr(text, "differ 0, ours fails 0,"), "%s", text);
	free(text);
}

/* The outputs pass onnx.checker (bench_bert18 is opset 18: newer than the onnx the checker may have). */
Test(measure, every_bench_output_passes_the_checker, .init = setup, .fini = teardown)
{
	char *in, *out, *text;

	for (size_t i = 0; i < N_BENCH; i++) {
		char name[64];

		if (strcmp(bench[i].name, "bench_bert18") == 0)
			continue;
		snprintf(name, sizeof(name), "%s.onnx", bench[i].name);
		in = fixture(name);
		out = path_in(scratch_dir, name);
		cr_assert_eq(run_tool(&text, "scs4onnx-optimize", "'%s' '%s' -n", in, out), 0, "%s: %s", name, text);
		free(text);
		cr_assert_eq(onnx_check(&text, out), 0, "%s: %s", name, text);
		free(text);
		free(out);
		free(in);
	}
}

/*
 * A build whose scs4onnx-optimize writes a model computing something else
 * (the sign of one weight flipped): the script says DIFF for it, lists it, and
 * fails.
 */
Test(measure, an_output_that_computes_something_else_fails_the_script, .init = setup, .fini = teardown,
    .timeout = 600)
{
	char *tools = path_in(scratch_dir, "tools"), *fake = path_in(tools, "scs4onnx-optimize");
	char *in = fixture("bench_bert13.onnx"), *text, *row, models[1024];
	FILE *f;

	cr_assert_eq(mkdir(tools, 0755), 0);
	f = fopen(fake, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\nexec /usr/bin/python3 -c '\n"
	    "import sys, onnx\n"
	    "m = onnx.load(sys.argv[1])\n"
	    "t = next(t for t in m.graph.initializer if t.dims == [16, 16])\n"
	    "b = bytearray(t.raw_data); b[3] ^= 0x80; t.raw_data = bytes(b)\n"
	    "onnx.save(m, sys.argv[2])\n"
	    "' \"$1\" \"$2\"\n");
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(fake, 0755), 0);
	snprintf(models, sizeof(models), "'%s'", in);
	cr_assert_eq(compare(&text, scratch_dir, models), 1, "%s", text);
	row = row_of(text, "bench_bert13");
	cr_assert_not_null(row, "%s", text);
	cr_assert_not_null(strstr(row, "DIFF"), "%s", row);
	cr_assert_not_null(strstr(text, "differ 1,"), "%s", text);
	free(row);
	free(text);
	free(in);
	free(fake);
	free(tools);
}

/* The generator writes the same bytes every time. */
Test(measure, the_bench_models_are_deterministic, .init = setup, .fini = teardown)
{
	char *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/gen_bench_models.py' '%s'", SCS_TEST_SRC_DIR, scratch_dir),
	    0, "%s", text);
	free(text);
	for (size_t i = 0; i < N_BENCH; i++) {
		char name[64], *a, *b;

		snprintf(name, sizeof(name), "%s.onnx", bench[i].name);
		a = fixture(name);
		b = path_in(scratch_dir, name);
		cr_assert_eq(run(&text, "cmp '%s' '%s'", a, b), 0, "%s: %s", name, text);
		free(text);
		free(b);
		free(a);
	}
}

/*
 * The script's counter: nodes of nested graphs count, Constant nodes do not
 * (nested_if.onnx: two Ifs, one inside the other, and four Constants in
 * their branches); a model with float16 values is marked for float16's
 * tolerance.
 */
Test(measure, the_counts_reach_nested_graphs_and_leave_constants_out, .init = setup, .fini = teardown)
{
	char *a = fixture("nested_if.onnx"), *b = fixture("h16_nop_cast_conv.onnx"), *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/node_counts.py' '%s' '%s'", SCS_TEST_SRC_DIR, a, b), 0,
	    "%s", text);
	cr_assert_not_null(strstr(text, "nested_if.onnx\t7\tAdd=3,If=2,Mul=1,Sub=1\t0\n"), "%s", text);
	cr_assert_not_null(strstr(text, "h16_nop_cast_conv.onnx\t4\tAdd=1,Cast=1,Conv=1,Transpose=1\t1\n"), "%s", text);
	free(text);
	free(b);
	free(a);
}
