/*
 * fuzz_common.h: what the libFuzzer targets share (fuzz_common.c): the
 * private folder each process works in, and the contract every public
 * call is held to. A breach aborts, so libFuzzer keeps the input.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_FUZZ_COMMON_H
#define SCS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "scs4onnx.h"

#define FUZZ_PATH_MAX 4200

/*
 * The private folder (under $SCS_FUZZ_TMP, else /dev/shm, else $TMPDIR or
 * /tmp; removed at exit) and the paths in it: the input model, the output
 * folder, a shard folder and a work folder (made and removed by the
 * targets). The folder holds two external-data files (external_a.bin,
 * external_b.bin, as the test fixture external.onnx names them).
 */
extern char root[4096];
extern char in_path[FUZZ_PATH_MAX], out_dir[FUZZ_PATH_MAX], shard_dir[FUZZ_PATH_MAX], work_dir[FUZZ_PATH_MAX];

/* Make the private folder and its data files (from LLVMFuzzerInitialize). */
void fuzz_setup(void);

/* Report a broken contract and abort. */
void die(const char *what, const char *detail) __attribute__((noreturn));

/* "dir/name" into @out (@cap bytes); too long a path is a broken contract. */
void path_at(char *out, size_t cap, const char *dir, const char *name);

/* Remove everything inside @dir (not @dir itself). */
void empty_dir(const char *dir);

void write_file(const char *path, const void *data, size_t len);
int exists(const char *path);

/* The whole file (malloc'd; NULL when it cannot be read), *len its length. */
uint8_t *read_file(const char *path, size_t *len);

/*
 * The path, in a folder of its own under the output folder (made here), of a
 * second output of the same name as output @once: a model with external
 * data names its data file after itself, so only outputs of one name can
 * be compared byte for byte.
 */
void path_again(char *out, size_t cap, const char *once);

/* 1 when the files @a and @b hold the same bytes. */
int same_bytes(const char *a, const char *b);

/*
 * What every call owes, failed or not: a failure returns a negative code
 * other than SCS_ENOMEM (inputs are small: running out of memory means an
 * allocation sized by a claimed length), leaves one line of message and
 * nothing at @target (NULL: no single target); success writes @target; no
 * temporary file or store outlives a call; no descriptor stays open.
 */
void expect_contract(const char *call, int rc, const char *target);

/* Release the report of @call and hold the call to the contract. */
void finish(const char *call, int rc, scs_report *rep, const char *target);

#endif
