/*
 * test_precommit.c: every call that writes a model checks what it is about
 * to write against the rules its input passed (src/precommit.h), on the
 * models of tests/e2e/gen_precommit_models.py. A test build breaks the
 * models after the pass SCS_TEST_BREAK_AFTER names (a name made twice): the
 * call returns SCS_ECHECK with one line naming the output, the pass and the
 * rule, the tool exits 1 with that line, and nothing is written (an existing
 * output stays as it was, no temporary is left). An input that already
 * fails a rule still goes through, also when a pass breaks that rule again;
 * a valid output is never refused, and the report times the checks.
 *
 * SPDX-License-Identifier: MIT
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* The calls under test, each on fixture @model writing @out (a file, or a folder for split and share). */
enum call { SHRINK, SHRINK_OPT, OPTIMIZE, SPLIT, MERGE, BIG, BIG_OPT, SHARE };

static int
call(enum call c, const char *model, const char *out, scs_report *rep)
{
	char *in = fixture(model), shards[4096];
	scs_shrink_options so = SCS_SHRINK_OPTIONS_INIT;
	scs_optimize_options oo = SCS_OPTIMIZE_OPTIONS_INIT;
	scs_split_options sp = SCS_SPLIT_OPTIONS_INIT;
	scs_merge_options mo = SCS_MERGE_OPTIONS_INIT;
	scs_big_options bo = SCS_BIG_OPTIONS_INIT;
	scs_share_options sh = SCS_SHARE_OPTIONS_INIT;
	const char *pair[2] = { in, NULL };
	char *other = fixture(strcmp(model, "pc_nested.onnx") == 0 ? "pc_valid.onnx" : "pc_nested.onnx");
	scs_report ignored = SCS_REPORT_INIT;
	int rc = SCS_EUSAGE;

	*rep = (scs_report)SCS_REPORT_INIT;
	snprintf(shards, sizeof(shards), "%s.shards", out);     /* merge's input */
	sp.max_shard_len = 100;     /* several shards of these small models */
	so.optimize = c == SHRINK_OPT || c == BIG_OPT;
	bo.shrink = &so;
	bo.max_shard_len = 100;
	pair[1] = other;
	switch (c) {
	case SHRINK:
	case SHRINK_OPT:
		rc = scs_shrink(rep, in, out, &so);
		break;
	case OPTIMIZE:
		rc = scs_optimize(rep, in, out, &oo);
		break;
	case SPLIT:
		rc = scs_split(rep, in, out, &sp);
		break;
	case MERGE:
		/* the shards made by split, the break asked of the merge only */
		{
			char *brk = getenv("SCS_TEST_BREAK_AFTER") ? strdup(getenv("SCS_TEST_BREAK_AFTER")) : NULL;

			unsetenv("SCS_TEST_BREAK_AFTER");
			cr_assert_eq(scs_split(&ignored, in, shards, &sp), SCS_OK, "%s", scs_err_msg());
			scs_report_dispose(&ignored);
			if (brk)
				setenv("SCS_TEST_BREAK_AFTER", brk, 1);
			free(brk);
		}
		rc = scs_merge(rep, shards, out, &mo);
		break;
	case BIG:
	case BIG_OPT:
		rc = scs_big(rep, in, out, &bo);
		break;
	case SHARE:
		rc = scs_share(rep, out, pair, 2, &sh);
		break;
	}
	free(in);
	free(other);
	return rc;
}

static const char *const call_names[] = { "shrink", "shrink --optimize", "optimize", "split", "merge", "big",
	"big --optimize", "share" };

/* The pass each call is broken after, on pc_valid.onnx. */
static const struct {
	enum call c;
	const char *pass;
} breaks[] = {
	{ SHRINK, "dedup" },
	{ SHRINK, "downcast" },
	{ SHRINK, "transposed" },
	{ SHRINK_OPT, "fuse_matmul_add_bias_into_gemm" },
	{ SHRINK_OPT, "eliminate_identity" },
	{ OPTIMIZE, "fuse_matmul_add_bias_into_gemm" },
	{ OPTIMIZE, "eliminate_identity" },
	{ SPLIT, "split" },
	{ MERGE, "merge" },
	{ MERGE, "dedup" },
	{ MERGE, "transposed" },
	{ MERGE, "sort" },
	{ BIG, "merge" },
	{ BIG, "downcast" },
	{ BIG, "transposed" },
	{ BIG, "sort" },
	{ BIG_OPT, "fuse_matmul_add_bias_into_gemm" },
	{ SHARE, "dedup" },
	{ SHARE, "transposed" },
	{ SHARE, "share" },
};

static int
is_folder_call(enum call c)
{
	return c == SPLIT || c == SHARE;
}

/* The refusal's line: the output, the pass, the rule; and nothing at @out. */
static void
expect_refused(int rc, const char *what, const char *out, const char *pass)
{
	char head[1024], at[256];

	cr_expect_eq(rc, SCS_ECHECK, "%s: %d, not SCS_ECHECK: %s", what, rc, scs_err_msg());
	snprintf(head, sizeof(head), "%s: not written: ", out);
	snprintf(at, sizeof(at), "after pass '%s' graph 'main'", pass);
	cr_expect_eq(strncmp(scs_err_msg(), head, strlen(head)), 0, "%s: %s", what, scs_err_msg());
	cr_expect_not_null(strstr(scs_err_msg(), at), "%s: no \"%s\": %s", what, at, scs_err_msg());
	cr_expect_not_null(strstr(scs_err_msg(), ": ssa: "), "%s: the rule not named: %s", what, scs_err_msg());
	cr_expect_not_null(strstr(scs_err_msg(), "(the input passed this rule)"), "%s: %s", what, scs_err_msg());
	cr_expect_null(strchr(scs_err_msg(), '\n'), "%s: not one line: %s", what, scs_err_msg());
	cr_expect_not(file_exists(out), "%s: %s was written", what, out);
}

/* Each call broken after each of its passes: refused with the pass named, nothing written. */
Test(precommit, refused_naming_the_pass, .init = scratch_setup, .fini = scratch_teardown)
{
	int n_merges = 0;

	for (size_t i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		char what[256], name[64], *out;
		scs_report rep;
		int rc;

		snprintf(what, sizeof(what), "%s broken after %s", call_names[breaks[i].c], breaks[i].pass);
		snprintf(name, sizeof(name), is_folder_call(breaks[i].c) ? "out%zu" : "out%zu.onnx", i);
		out = path_in(scratch_dir, name);
		setenv("SCS_TEST_BREAK_AFTER", breaks[i].pass, 1);
		rc = call(breaks[i].c, "pc_valid.onnx", out, &rep);
		unsetenv("SCS_TEST_BREAK_AFTER");
		expect_refused(rc, what, out, breaks[i].pass);
		n_merges += breaks[i].c == MERGE;
		scs_report_dispose(&rep);
		free(out);
	}
	/* the scratch folder holds only the merges' input shards (and . and ..): no temporary left */
	cr_expect_eq(count_files(scratch_dir, ""), 2 + n_merges, "files left in %s", scratch_dir);
}

/* A node moved after its reader: the refusal names the node and the order rule. */
Test(precommit, order_broken, .init = scratch_setup, .fini = scratch_teardown)
{
	static const struct {
		enum call c;
		const char *pass;
	} runs[] = { { SHRINK, "dedup" }, { SHRINK, "transposed" }, { SHARE, "share" } };

	setenv("SCS_TEST_BREAK_HOW", "order", 1);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char name[64], at[256], *out;
		scs_report rep;
		int rc;

		snprintf(name, sizeof(name), runs[i].c == SHARE ? "out%zu" : "out%zu.onnx", i);
		out = path_in(scratch_dir, name);
		setenv("SCS_TEST_BREAK_AFTER", runs[i].pass, 1);
		rc = call(runs[i].c, "pc_valid.onnx", out, &rep);
		unsetenv("SCS_TEST_BREAK_AFTER");
		cr_expect_eq(rc, SCS_ECHECK, "%s: %d: %s", call_names[runs[i].c], rc, scs_err_msg());
		/* pc_valid's first node, mm, now after add, which reads its output */
		snprintf(at, sizeof(at), "after pass '%s' graph 'main', node 'add' (Add): order: input 'xw' ", runs[i].pass);
		cr_expect_not_null(strstr(scs_err_msg(), at), "%s: no \"%s\": %s", call_names[runs[i].c], at, scs_err_msg());
		cr_expect_not(file_exists(out), "%s: written", call_names[runs[i].c]);
		scs_report_dispose(&rep);
		free(out);
	}
	unsetenv("SCS_TEST_BREAK_HOW");
}

/* Split's shards each checked: the refusal names the shard. */
Test(precommit, split_names_the_shard, .init = scratch_setup, .fini = scratch_teardown)
{
	char *out = path_in(scratch_dir, "shards");
	scs_report rep;
	int rc;

	setenv("SCS_TEST_BREAK_AFTER", "split", 1);
	rc = call(SPLIT, "pc_valid.onnx", out, &rep);
	unsetenv("SCS_TEST_BREAK_AFTER");
	expect_refused(rc, "split", out, "split");
	cr_expect_not_null(strstr(scs_err_msg(), ": not written: shard 0: after pass 'split'"), "%s", scs_err_msg());
	scs_report_dispose(&rep);
	free(out);
}

/* An output already there stays as it was when the new one is refused. */
Test(precommit, existing_output_untouched, .init = scratch_setup, .fini = scratch_teardown)
{
	static const enum call calls[] = { SHRINK, OPTIMIZE, MERGE, BIG };
	static const char old[] = "the output of an earlier run";

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		char *out = path_in(scratch_dir, "out.onnx"), *text;
		size_t len;
		scs_report rep;
		int rc;

		write_all(out, old, sizeof(old));
		setenv("SCS_TEST_BREAK_AFTER", calls[i] == OPTIMIZE ? "eliminate_identity" : "transposed", 1);
		rc = call(calls[i], "pc_valid.onnx", out, &rep);
		unsetenv("SCS_TEST_BREAK_AFTER");
		cr_expect_eq(rc, SCS_ECHECK, "%s: %d: %s", call_names[calls[i]], rc, scs_err_msg());
		text = (char *)read_all(out, &len);
		cr_expect(len == sizeof(old) && memcmp(text, old, len) == 0, "%s: the existing output changed",
		    call_names[calls[i]]);
		free(text);
		scs_report_dispose(&rep);
		free(out);
	}
}

/* The tools print the line and exit 1, writing nothing. */
Test(precommit, tools_exit_1, .init = scratch_setup, .fini = scratch_teardown)
{
	static const struct {
		const char *tool, *args, *target, *pass;
	} runs[] = {
		{ "shrink", "'%s' out.onnx", "out.onnx", "dedup" },
		{ "shrink", "'%s' out.onnx --optimize", "out.onnx", "fuse_matmul_add_bias_into_gemm" },
		{ "optimize", "'%s' out.onnx", "out.onnx", "fuse_matmul_add_bias_into_gemm" },
		{ "split", "'%s' out", "out", "split" },
		{ "big", "'%s' out.onnx", "out.onnx", "transposed" },
		{ "share", "out '%s' '%s'", "out", "share" },
	};
	char *model = fixture("pc_valid.onnx"), *other = fixture("pc_nested.onnx");

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char args[2048], want[512], *text;
		int status;

		snprintf(args, sizeof(args), runs[i].args, model, other);
		status = run(&text, "cd '%s' && SCS_TEST_BREAK_AFTER=%s '%s/hooked-scs4onnx-%s' %s -n", scratch_dir,
		    runs[i].pass, SCS_HOOKED_TOOLS_DIR, runs[i].tool, args);
		cr_expect_eq(status, 1, "%s %s: exit %d: %s", runs[i].tool, args, status, text);
		snprintf(want, sizeof(want), "scs4onnx-%s: error: %s: not written: ", runs[i].tool, runs[i].target);
		cr_expect_not_null(strstr(text, want), "%s: no \"%s\": %s", runs[i].tool, want, text);
		snprintf(want, sizeof(want), "after pass '%s' graph 'main'", runs[i].pass);
		cr_expect_not_null(strstr(text, want), "%s: %s", runs[i].tool, text);
		cr_expect_eq(count_files(scratch_dir, ""), 2, "%s: files left in %s", runs[i].tool, scratch_dir);
		free(text);
	}
	free(model);
	free(other);
}

/* Inputs that already fail a rule (a node order, a name made twice, a missing shape, a custom operator) go
 * through every call, also when a pass breaks the same rule again. */
Test(precommit, failing_input_goes_through, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const models[] = { "pc_unsorted.onnx", "pc_twice.onnx", "pc_noshape.onnx", "pc_custom.onnx",
		"unsorted.onnx", "absent_attr_type.onnx" };
	static const enum call calls[] = { SHRINK, SHRINK_OPT, OPTIMIZE, SPLIT, MERGE, BIG };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++) {
			char name[64], *out;
			scs_report rep;
			int rc;

			snprintf(name, sizeof(name), calls[k] == SPLIT ? "out%zu_%zu" : "out%zu_%zu.onnx", i, k);
			out = path_in(scratch_dir, name);
			rc = call(calls[k], models[i], out, &rep);
			cr_expect_eq(rc, SCS_OK, "%s on %s: %s", call_names[calls[k]], models[i], scs_err_msg());
			cr_expect(file_exists(out), "%s on %s: no output", call_names[calls[k]], models[i]);
			scs_report_dispose(&rep);
			free(out);
		}
}

/* A name made twice in the input: a pass making another one is not refused (the input failed that rule). */
Test(precommit, rule_failed_before_not_refused, .init = scratch_setup, .fini = scratch_teardown)
{
	char *out = path_in(scratch_dir, "out.onnx");
	scs_report rep;

	setenv("SCS_TEST_BREAK_AFTER", "dedup", 1);
	cr_expect_eq(call(SHRINK, "pc_twice.onnx", out, &rep), SCS_OK, "%s", scs_err_msg());
	unsetenv("SCS_TEST_BREAK_AFTER");
	cr_expect(file_exists(out));
	scs_report_dispose(&rep);
	free(out);
}

/* Valid models through every call: written, valid for onnx.checker, the checks' time in the report. */
Test(precommit, valid_outputs_written, .init = scratch_setup, .fini = scratch_teardown)
{
	static const char *const models[] = { "pc_valid.onnx", "pc_ir3.onnx", "pc_nested.onnx" };

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		for (enum call c = SHRINK; c <= SHARE; c++) {
			char name[64], *out, *text;
			scs_report rep;
			size_t s = 0;

			snprintf(name, sizeof(name), is_folder_call(c) ? "out%zu_%d" : "out%zu_%d.onnx", i, (int)c);
			out = path_in(scratch_dir, name);
			cr_expect_eq(call(c, models[i], out, &rep), SCS_OK, "%s on %s: %s", call_names[c], models[i],
			    scs_err_msg());
			while (s < rep.n_stages && strcmp(rep.stages[s].name, "check") != 0)
				s++;
			cr_expect_lt(s, rep.n_stages, "%s on %s: no check stage", call_names[c], models[i]);
			if (!is_folder_call(c)) {
				cr_expect_eq(onnx_check(&text, out), 0, "%s on %s: %s", call_names[c], models[i], text);
				free(text);
			}
			scs_report_dispose(&rep);
			free(out);
		}
}
