/*
 * test_downcast_ops.c: the downcast rule against real software, for every
 * operator the schema table knows. tests/e2e/gen_downcast_ops.py walks the
 * table (through opschema-dump) and builds a one-node model per input the rule
 * lets narrow, at several opsets; each is shrunk by scs4onnx-shrink, must have
 * been narrowed, and must compute bit for bit what its input computed in ONNX
 * Runtime (and pass onnx.checker with full_check where onnx 1.12 knows the
 * opset). Each is also built with the graph inputs of another type variable
 * retyped to every type the schema allows (variants): narrowed or refused,
 * the output must load and compute the same in ONNX Runtime wherever the
 * input does (ONNX Runtime registers some kernels per combination of types,
 * OneHot's). Also the regression models of defects 4 and 5 of issue 6.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* 13, 17: onnx 1.12's checker applies; 26: the newest ONNX Runtime 1.30 loads. */
#define OPSETS "13 17 18 21 26"

/* Build the models into @dir (gen_downcast_ops.py). */
static void
generate(const char *dir)
{
	char *text;

	cr_assert_eq(run(&text, "/usr/bin/python3 '%s/tests/e2e/gen_downcast_ops.py' '%s/opschema-dump' '%s' %s",
	    SCS_TEST_SRC_DIR, SCS_TEST_BUILD_DIR, dir, OPSETS), 0, "%s", text);
	free(text);
}

/* Shrink @dir/@name to @dir/out/@name with a JSON report; the report (malloc'd). */
static char *
shrink(const char *dir, const char *name)
{
	char *text, *report;
	size_t len;
	char json[4096];

	snprintf(json, sizeof(json), "%s/out/%s.json", dir, name);
	cr_assert_eq(run_tool(&text, "scs4onnx-shrink", "'%s/%s' '%s/out/%s' -n --json '%s'", dir, name, dir, name, json),
	    0, "%s: %s", name, text);
	free(text);
	report = (char *)read_all(json, &len);
	cr_assert_not_null(report, "%s: no report", name);
	report[len] = '\0';
	return report;
}

Test(downcast_ops, every_operator_every_narrowable_input)
{
	char *dir = tmpdir_new(), *manifest = path_in(dir, "manifest.tsv"), *pairs = path_in(dir, "pairs.tsv");
	char *checks = path_in(dir, "checks.txt"), *text, line[4096], file[1024], label[2048];
	int n_built = 0, n_skipped = 0, n_checked = 0, n_ok = 0, n_ort_skip = 0, opset;
	int n_variants = 0, n_var_narrowed = 0, n_var_skip = 0;
	FILE *in, *pf, *cf;

	generate(dir);
	run(NULL, "mkdir '%s/out'", dir);
	cr_assert_not_null(in = fopen(manifest, "r"));
	cr_assert_not_null(pf = fopen(pairs, "w"));
	cr_assert_not_null(cf = fopen(checks, "w"));
	while (fgets(line, sizeof(line), in)) {
		char *report;

		if (strncmp(line, "skipped\t", 8) == 0) {
			cr_log_info("skipped: %s", line + 8);
			n_skipped++;
			continue;
		}
		if (strncmp(line, "variant\t", 8) == 0) {
			/* narrowed or refused: judged by ONNX Runtime below */
			cr_assert_eq(sscanf(line, "variant\t%1023[^\t]\t%d\t%2047[^\n]", file, &opset, label), 3,
			    "manifest: %s", line);
			report = shrink(dir, file);
			n_var_narrowed += strstr(report, "\"narrowed\": []") == NULL;
			n_variants++;
		} else {
			cr_assert_eq(sscanf(line, "built\t%1023[^\t]\t%d\t%2047[^\n]", file, &opset, label), 3,
			    "manifest: %s", line);
			report = shrink(dir, file);
			cr_assert_null(strstr(report, "\"narrowed\": []"), "%s (%s) was not narrowed: %s", label, file, report);
			n_built++;
		}
		free(report);
		fprintf(pf, "%s/%s\t%s/out/%s\n", dir, file, dir, file);
		if (opset <= 17) {
			fprintf(cf, "'%s/%s' '%s/out/%s' ", dir, file, dir, file);
			n_checked++;
		}
	}
	fclose(in);
	fclose(pf);
	fclose(cf);
	cr_assert_geq(n_built, 200, "only %d cases built", n_built);

	/* one node process for every pair: its start-up costs more than the runs */
	run(&text, "node '%s/tests/e2e/ort_compare.mjs' --batch '%s' --runs 2", SCS_TEST_SRC_DIR, pairs);
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		if (strncmp(l, "ok: ", 4) == 0)
			n_ok++;
		else if (strncmp(l, "skip: ", 6) == 0 && strstr(l, "__")) {
			n_var_skip++;       /* a variant whose types ONNX Runtime does not load to begin with */
		} else if (strncmp(l, "skip: ", 6) == 0) {
			cr_log_info("ONNX Runtime cannot run the reference: %s", l + 6);
			n_ort_skip++;
		} else
			cr_assert_fail("ONNX Runtime: %s", l);
	}
	free(text);
	cr_assert_eq(n_ok + n_ort_skip + n_var_skip, n_built + n_variants, "ONNX Runtime answered for %d of %d",
	    n_ok + n_ort_skip + n_var_skip, n_built + n_variants);
	cr_assert_leq(n_ort_skip, 10, "ONNX Runtime ran only %d of %d", n_built - n_ort_skip, n_built);

	cr_assert_eq(run(&text, "xargs -a '%s' /usr/bin/python3 '%s/tests/e2e/check_model.py' --full-check --keep-going",
	    checks, SCS_TEST_SRC_DIR), 0, "onnx.checker: %s", text);
	free(text);
	cr_log_info("downcast_ops: %d cases built, %d skipped, %d variants (other inputs retyped; %d narrowed, %d whose "
	    "input ONNX Runtime does not load), %d identical in ONNX Runtime, %d not runnable there, %d checked by "
	    "onnx.checker (inputs and outputs)", n_built, n_skipped, n_variants, n_var_narrowed, n_var_skip, n_ok,
	    n_ort_skip, n_checked);
	free(manifest);
	free(pairs);
	free(checks);
	tmpdir_remove(dir);
}

/* Shrink regression model @name: it must load and compute the same in ONNX Runtime. */
static char *
regression(const char *name, int check)
{
	char *dir = tmpdir_new(), *ref, *out, *text, *report;
	char out_name[256];

	generate(dir);
	run(NULL, "mkdir '%s/out'", dir);
	report = shrink(dir, name);
	snprintf(out_name, sizeof(out_name), "out/%s", name);
	ref = path_in(dir, name);
	out = path_in(dir, out_name);
	if (check)
		expect_equivalent(ref, out, NULL);
	else {
		cr_assert_eq(ort_same(&text, ref, out, NULL), 0, "ONNX Runtime: %s", text);
		free(text);
	}
	free(ref);
	free(out);
	tmpdir_remove(dir);
	return report;
}

Test(downcast_ops, eyelike_without_dtype_keeps_its_input_type)
{
	char *report = regression("regress_eyelike.onnx", 1);

	cr_assert_not_null(strstr(report, "typed by no input"), "%s", report);
	free(report);
}

Test(downcast_ops, random_normal_like_without_dtype_keeps_its_input_type)
{
	free(regression("regress_randomnormallike.onnx", 1));
}

Test(downcast_ops, sequence_construct_keeps_its_element_type)
{
	char *report = regression("regress_sequenceconstruct.onnx", 1);

	cr_assert_not_null(strstr(report, "SequenceConstruct has a sequence"), "%s", report);
	free(report);
}

Test(downcast_ops, split_to_sequence_keeps_its_element_type)
{
	free(regression("regress_splittosequence.onnx", 1));
}

Test(downcast_ops, optional_keeps_its_element_type)
{
	free(regression("regress_optional.onnx", 1));
}

Test(downcast_ops, opset_18_reduce_mean_is_judged_by_its_own_schema)
{
	char *report = regression("regress_reducemean18.onnx", 0);

	cr_assert_not_null(strstr(report, "ReduceMean input 1 'axes' takes only int64"), "%s", report);
	free(report);
}

Test(downcast_ops, an_opset_newer_than_the_table_narrows_nothing)
{
	char *dir = tmpdir_new(), *report;

	generate(dir);
	run(NULL, "mkdir '%s/out'", dir);
	report = shrink(dir, "regress_newer_opset.onnx");
	cr_assert_not_null(strstr(report, "\"narrowed\": []"), "%s", report);
	cr_assert_not_null(strstr(report, "imports ai.onnx opset 29, newer than the operator schemas known here (up to 28)"),
	    "%s", report);
	free(report);
	tmpdir_remove(dir);
}

/* PyTorch's one_hot (int64 indices computed, int64 depth and values Constants): depth keeps int64. */
Test(downcast_ops, one_hot_as_pytorch_exports_it_keeps_a_type_combination_onnx_runtime_has)
{
	static const char *const models[] = { "regress_onehot_torch.onnx", "regress_onehot_torch9.onnx" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		char *report = regression(models[i], 1);

		cr_assert_not_null(strstr(report, "\"narrowed\": []"), "%s: %s", models[i], report);
		cr_assert_not_null(strstr(report, "no ONNX Runtime CPU kernel for OneHot-"), "%s: %s", models[i], report);
		cr_assert_not_null(strstr(report, "depth int32"), "%s: %s", models[i], report);
		free(report);
	}
}

/* With float values, (int64 indices, int32 depth, float values) is a kernel ONNX Runtime has: depth narrows. */
Test(downcast_ops, one_hot_with_float_values_narrows_its_depth)
{
	char *report = regression("regress_onehot_float_values.onnx", 1);

	cr_assert_not_null(strstr(report, "\"narrowed\": [\n"), "%s", report);
	cr_assert_not_null(strstr(report, "\"name\": \"depth\""), "%s", report);
	free(report);
}
