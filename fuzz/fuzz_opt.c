/*
 * fuzz_opt.c: a libFuzzer target over the optimizer (scs_optimize, and
 * scs_shrink and scs_big with optimize). An input is a model followed by
 * two bytes of options (OPT_* bits: which passes, the folding settings,
 * shapes, external data, whether shrink and big run too); scripts/fuzz.sh
 * gives every seed its two bytes, as for fuzz_scs.c. The model is written
 * into the private folder (fuzz_common.c) and optimized; every call is
 * held to the same contract as there.
 *
 * The passes: the default set, every pass, one pass alone, or the default
 * set without one (the pass named by four bits), so that each pass also
 * meets graphs no other pass has tidied first.
 *
 * SCS_FUZZ_FIXPOINT=1 also checks that optimizing an optimized model with
 * the same options gives the same bytes again (docs/OPTIMIZER.md: the
 * optimizer's output is a fixed point).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

/* the options, in the input's last two bytes (little-endian) */
enum {
	OPT_PASS_SET = 3 << 0,                  /* the default set, every pass, one pass, the default set but one */
	OPT_PASS = 15 << 2,                     /* which one (modulo the number of passes) */
	OPT_GROW = 1 << 6,                      /* fold_grow */
	OPT_INEXACT = 1 << 7,                   /* fold_inexact */
	OPT_SMALL_FOLD = 1 << 8,                /* fold_size_limit of 64 bytes */
	OPT_WRITE_SHAPES = 1 << 9,
	OPT_EXTERNAL = 1 << 10,                 /* external data */
	OPT_INPUT_SHAPE = 1 << 11,              /* input X takes the dims [2, 3] */
	OPT_SHRINK = 1 << 12,                   /* scs_shrink with optimize too */
	OPT_BIG = 1 << 13,                      /* scs_big with optimize too */
	OPT_BIG_BUDGET = 3 << 14,               /* its shard budget: 64, 300, 1024 or 4096 bytes */
};

enum { SET_DEFAULT, SET_EVERY, SET_ONE, SET_ALL_BUT_ONE };

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_fixpoint;
static const char *pass_names[64];
static size_t n_pass_names;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	scs_optimize_pass_info info;

	fuzz_setup();
	while (n_pass_names < sizeof(pass_names) / sizeof(pass_names[0]) && scs_optimize_pass(n_pass_names, &info))
		pass_names[n_pass_names++] = info.name;
	if (n_pass_names == 0)
		die("the optimizer lists no pass", "scs_optimize_pass");
	check_fixpoint = getenv("SCS_FUZZ_FIXPOINT") && strcmp(getenv("SCS_FUZZ_FIXPOINT"), "1") == 0;
	return 0;
}

/* optimize(optimize(x)) == optimize(x), byte for byte. */
static void
expect_fixpoint(const char *once, const scs_optimize_options *opts)
{
	char twice[FUZZ_PATH_MAX];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	path_again(twice, sizeof(twice), once);
	rc = scs_optimize(&rep, once, twice, opts);
	finish("optimize of an optimized model", rc, &rep, twice);
	if (rc < 0)
		die("optimize refused its own output", scs_err_msg());
	if (!same_bytes(once, twice))
		die("optimize is not a fixed point", once);
}

static void
run_optimize(const scs_optimize_options *oo)
{
	char target[FUZZ_PATH_MAX];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	path_at(target, sizeof(target), out_dir, "optimized.onnx");
	rc = scs_optimize(&rep, in_path, target, oo);
	finish("optimize", rc, &rep, target);
	if (rc == SCS_OK && check_fixpoint)
		expect_fixpoint(target, oo);
	empty_dir(out_dir);
}

static void
run_shrink(const scs_shrink_options *so)
{
	char target[FUZZ_PATH_MAX];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	path_at(target, sizeof(target), out_dir, "shrunk.onnx");
	rc = scs_shrink(&rep, in_path, target, so);
	finish("shrink with optimize", rc, &rep, target);
	empty_dir(out_dir);
}

static void
run_big(const scs_shrink_options *so, uint64_t budget)
{
	scs_big_options bo = SCS_BIG_OPTIONS_INIT;
	char target[FUZZ_PATH_MAX];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	bo.shrink = so;
	bo.max_shard_len = budget;
	bo.work_dir = work_dir;
	path_at(target, sizeof(target), out_dir, "big.onnx");
	rc = scs_big(&rep, in_path, target, &bo);
	finish("big with optimize", rc, &rep, target);
	empty_dir(out_dir);
	empty_dir(work_dir);
	rmdir(work_dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const shapes[] = { "X=2,3" };
	static const uint64_t budgets[] = { 64, 300, 1024, 4096 };
	const char *one[1];
	scs_optimize_options oo;
	scs_shrink_options so;
	unsigned opt, set;

	if (size < 2)
		return 0;
	opt = data[size - 2] | (unsigned)data[size - 1] << 8;
	size -= 2;
	write_file(in_path, data, size);
	oo = (scs_optimize_options)SCS_OPTIMIZE_OPTIONS_INIT;
	set = opt & OPT_PASS_SET;
	one[0] = pass_names[((opt & OPT_PASS) >> 2) % n_pass_names];
	if (set == SET_EVERY) {
		oo.passes = pass_names;
		oo.n_passes = n_pass_names;
	} else if (set == SET_ONE) {
		oo.passes = one;
		oo.n_passes = 1;
	} else if (set == SET_ALL_BUT_ONE) {
		oo.skip = one;
		oo.n_skip = 1;
	}
	oo.fold_grow = (opt & OPT_GROW) != 0;
	oo.fold_inexact = (opt & OPT_INEXACT) != 0;
	oo.fold_size_limit = opt & OPT_SMALL_FOLD ? 64 : 0;
	oo.write_shapes = (opt & OPT_WRITE_SHAPES) != 0;
	oo.external_data = (opt & OPT_EXTERNAL) != 0;
	if (opt & OPT_INPUT_SHAPE) {
		oo.input_shapes = shapes;
		oo.n_input_shapes = 1;
	}
	run_optimize(&oo);
	if (opt & (OPT_SHRINK | OPT_BIG)) {
		so = (scs_shrink_options)SCS_SHRINK_OPTIONS_INIT;
		so.optimize = 1;
		so.fold_size_limit = oo.fold_size_limit;
		so.fold_grow = oo.fold_grow;
		so.fold_inexact = oo.fold_inexact;
		so.input_shapes = oo.input_shapes;
		so.n_input_shapes = oo.n_input_shapes;
		so.write_shapes = oo.write_shapes;
		so.external_data = oo.external_data;
		if (opt & OPT_SHRINK)
			run_shrink(&so);
		if (opt & OPT_BIG)
			run_big(&so, budgets[(opt & OPT_BIG_BUDGET) >> 14]);
	}
	unlink(in_path);
	return 0;
}
