/*
 * fuzz_scs.c: a libFuzzer target over the public calls (scs4onnx.h). An
 * input is a model followed by two bytes of options (OPT_* bits: mode,
 * downcast, external data, budgets, ...). The model is written as a file
 * into a private folder and goes through scs_shrink, scs_split + scs_merge
 * (a small shard budget, so split really cuts) and scs_big. Options at the
 * end, not a hash of the input, so that libFuzzer can shorten a crash input
 * without changing the path it takes; scripts/fuzz.sh gives every seed its
 * two bytes.
 *
 * Beyond what ASan, UBSan and LeakSanitizer see, each call is held to the
 * "Bad input" contract: a failure returns a negative code other than
 * SCS_ENOMEM (inputs are small: running out of memory means an allocation
 * sized by a claimed length), leaves one line of message and nothing at the
 * target; no temporary file or store outlives a call; no descriptor stays
 * open. A breach aborts, so libFuzzer keeps the input as a crash file.
 *
 * The private folder and the contract are fuzz_common.c's, shared with
 * fuzz_opt.c.
 *
 * An input holding SHARD_SEP is a set of shards instead: the pieces between
 * separators become shard-000.onnx, shard-001.onnx, ... and go through
 * scs_merge alone (scripts/fuzz.sh seeds such sets from split fixtures), so
 * that merge's checks of shard headers, indices and contents see mutated
 * shards, not only those split just wrote.
 *
 * SCS_FUZZ_FIXPOINT=1 also checks that shrinking a shrunk model gives the
 * same bytes again (docs/TOOLS.md: every tool is a fixed point).
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

#define SHARD_SEP "#scs-fuzz-shard#"     /* between the shards of a shard set */

/* the options, in the input's last two bytes (little-endian) */
enum {
	OPT_NPY = 1 << 0,                       /* shrink and big: npy mode */
	OPT_NO_DOWNCAST = 1 << 1,
	OPT_EXTERNAL = 1 << 2,                  /* shrink and big: external data */
	OPT_FORCED = 1 << 3,                    /* forced extraction by op and constant names */
	OPT_SPLIT_BUDGET = 3 << 4,              /* split: 64, 300, 1024 or 4096 bytes */
	OPT_MERGE_NO_DEDUP = 1 << 6,
	OPT_MERGE_EXTERNAL = 1 << 7,
	OPT_BIG_BUDGET = 3 << 8,                /* big: the same four budgets */
	OPT_BIG_WORK = 1 << 10,                 /* big: --work in the private folder */
	OPT_BIG_KEEP = 1 << 11,                 /* with OPT_BIG_WORK: --keep-work */
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_fixpoint;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	check_fixpoint = getenv("SCS_FUZZ_FIXPOINT") && strcmp(getenv("SCS_FUZZ_FIXPOINT"), "1") == 0;
	return 0;
}

/* shrink(shrink(x)) == shrink(x), byte for byte. */
static void
expect_fixpoint(const char *once, const scs_shrink_options *opts)
{
	char twice[4200];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	path_again(twice, sizeof(twice), once);
	rc = scs_shrink(&rep, once, twice, opts);
	scs_report_dispose(&rep);
	expect_contract("shrink of a shrunk model", rc, twice);
	if (rc < 0)
		die("shrink refused its own output", scs_err_msg());
	if (!same_bytes(once, twice))
		die("shrink is not a fixed point", once);
}

static void
run_shrink(const scs_shrink_options *so)
{
	char target[4200];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	path_at(target, sizeof(target), out_dir, "shrunk.onnx");
	rc = scs_shrink(&rep, in_path, target, so);
	finish("shrink", rc, &rep, target);
	if (rc == SCS_OK && check_fixpoint && so->mode == SCS_MODE_SHRINK && so->n_forced_op_names == 0)
		expect_fixpoint(target, so);
	empty_dir(out_dir);
}

/* Merge the shards in the shard folder. */
static void
merge_shards(const char *call, unsigned opt)
{
	scs_merge_options mo = SCS_MERGE_OPTIONS_INIT;
	char target[4200];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	mo.no_dedup = (opt & OPT_MERGE_NO_DEDUP) != 0;
	mo.external_data = (opt & OPT_MERGE_EXTERNAL) != 0;
	path_at(target, sizeof(target), out_dir, "merged.onnx");
	rc = scs_merge(&rep, shard_dir, target, &mo);
	finish(call, rc, &rep, target);
}

static void
run_split_merge(uint64_t budget, unsigned opt)
{
	scs_split_options sp = SCS_SPLIT_OPTIONS_INIT;
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	sp.max_shard_len = budget;
	rc = scs_split(&rep, in_path, shard_dir, &sp);
	finish("split", rc, &rep, NULL);
	if (rc == SCS_OK)
		merge_shards("merge", opt);
	empty_dir(shard_dir);
	rmdir(shard_dir);
	empty_dir(out_dir);
}

static void
run_big(const scs_shrink_options *so, uint64_t budget, unsigned opt)
{
	scs_big_options bo = SCS_BIG_OPTIONS_INIT;
	char target[4200];
	scs_report rep = SCS_REPORT_INIT;
	int rc;

	bo.shrink = so;
	bo.max_shard_len = budget;
	if (opt & OPT_BIG_WORK) {
		bo.work_dir = work_dir;
		bo.keep_work = (opt & OPT_BIG_KEEP) != 0;
	}
	path_at(target, sizeof(target), out_dir, "big.onnx");
	rc = scs_big(&rep, in_path, target, &bo);
	finish("big", rc, &rep, target);
	empty_dir(out_dir);
	empty_dir(work_dir);
	rmdir(work_dir);
}

/* The pieces of @data between separators as shards, merged. */
static void
run_merge_of_pieces(const uint8_t *data, size_t size, unsigned opt)
{
	const size_t sep_len = strlen(SHARD_SEP);
	const uint8_t *p = data, *end = data + size, *next;
	char name[32], path[4300];

	if (mkdir(shard_dir, 0777) < 0)
		die("cannot make", shard_dir);
	for (int k = 0; p <= end && k < 100; k++) {
		next = memmem(p, (size_t)(end - p), SHARD_SEP, sep_len);
		snprintf(name, sizeof(name), "shard-%03d.onnx", k);
		path_at(path, sizeof(path), shard_dir, name);
		write_file(path, p, (size_t)((next ? next : end) - p));
		if (next == NULL)
			break;
		p = next + sep_len;
	}
	merge_shards("merge of a shard set", opt);
	empty_dir(shard_dir);
	rmdir(shard_dir);
	empty_dir(out_dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const op_names[] = { "const_w", "Gather", "n0" };
	static const char *const constant_names[] = { "W1", "A", "E1", "w" };
	static const uint64_t budgets[] = { 64, 300, 1024, 4096 };
	scs_shrink_options so = SCS_SHRINK_OPTIONS_INIT;
	unsigned opt;

	if (size < 2)
		return 0;
	opt = data[size - 2] | (unsigned)data[size - 1] << 8;
	size -= 2;
	if (memmem(data, size, SHARD_SEP, strlen(SHARD_SEP))) {
		run_merge_of_pieces(data, size, opt);
		return 0;
	}
	write_file(in_path, data, size);
	so.mode = opt & OPT_NPY ? SCS_MODE_NPY : SCS_MODE_SHRINK;
	so.disable_auto_downcast = (opt & OPT_NO_DOWNCAST) != 0;
	so.external_data = (opt & OPT_EXTERNAL) != 0;
	if (opt & OPT_FORCED) {
		so.forced_op_names = op_names;
		so.n_forced_op_names = sizeof(op_names) / sizeof(op_names[0]);
		so.forced_constant_names = constant_names;
		so.n_forced_constant_names = sizeof(constant_names) / sizeof(constant_names[0]);
	}
	run_shrink(&so);
	run_split_merge(budgets[(opt & OPT_SPLIT_BUDGET) >> 4], opt);
	run_big(&so, budgets[(opt & OPT_BIG_BUDGET) >> 8], opt);
	unlink(in_path);
	return 0;
}
