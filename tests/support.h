/*
 * support.h: what the test suites share: scratch folders, files, running
 * the tools and the real checkers (ONNX Runtime via node, onnx.checker),
 * and reading outputs back with protobuf-c (not with the code under test).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_TEST_SUPPORT_H
#define SCS_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "scs4onnx.h"

/* A fresh scratch folder (malloc'd path); remove with tmpdir_remove(). */
char *tmpdir_new(void);
/* SCS_TEST_STRIDE, a count (scripts/test.sh sets it for the sanitizers' pass): the long end-to-end sets
 * take every Nth case alone; "1" when unset or not a count. */
const char *test_stride(void);
void tmpdir_remove(char *dir);

/* A scratch folder for each test: .init = scratch_setup, .fini = scratch_teardown. */
extern char *scratch_dir;
void scratch_setup(void);
void scratch_teardown(void);

/* malloc'd "dir/name". */
char *path_in(const char *dir, const char *name);

/* Path of a fixture built from tests/data or by tests/e2e/gen_models.py. */
char *fixture(const char *name);

/* Whole-file helpers (small files only). read_all returns malloc'd bytes. */
uint8_t *read_all(const char *path, size_t *len);
void write_all(const char *path, const void *data, size_t len);
int file_exists(const char *path);
uint64_t file_size(const char *path);
/* Files in @dir whose names start with @prefix. */
int count_files(const char *dir, const char *prefix);
/* 1 when @path is on ext2/3/4, where large outputs are written past the page cache (sink.c). */
int statfs_is_ext(const char *path);

/* Run a shell command; *out gets its stdout+stderr (malloc'd) when not NULL.
 * Returns the exit status (or -1). */
int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run a built tool: "tool args"; same as run(). */
int run_tool(char **out, const char *tool, const char *args_fmt, ...) __attribute__((format(printf, 3, 4)));

/* Run a built tool with the arguments @args_fmt makes of @a, @b and @extra
 * ("" when NULL), three strings in that order; it must succeed. */
void tool_ok(const char *tool, const char *args_fmt, const char *a, const char *b, const char *extra);

/* The number after "@key": " in the JSON text @text; fails the test when it is missing. */
unsigned long long json_number(const char *text, const char *key);

/* onnx.checker.check_model(path): 0 when it passes; *out has the message. */
int onnx_check(char **out, const char *path);

/* ONNX Runtime: @cand computes what @ref computes for the same inputs
 * (bit for bit); @extra is appended to the command (e.g. --feed ...). */
int ort_same(char **out, const char *ref, const char *cand, const char *extra);

/* Assert that @cand passes onnx.checker and computes what @ref computes in
 * ONNX Runtime, bit for bit (@extra as for ort_same). */
void expect_equivalent(const char *ref, const char *cand, const char *extra);

/* "'dir/shard-000.onnx' 'dir/shard-001.onnx' ..." in name order (malloc'd);
 * *count gets how many. */
char *shard_list(const char *dir, int *count);

/* Every shard in @dir passes onnx.checker, and run in order in ONNX Runtime
 * they compute what @model computes, bit for bit. */
void expect_shards_compute(const char *model, const char *dir);

/* Shrink each shard of folder @shards on its own into new folder @shrunk (same file names). */
void shrink_shards(const char *shards, const char *shrunk);

/* Split @model with budget @max_shard_size ("300", "1K") into @min_shards
 * shards or more, run them in order, merge them back, and run scs4onnx-big
 * with the same budget: each result computes what @model computes. */
void expect_split_merge_big(const char *model, const char *max_shard_size, int min_shards);

/*
 * The data file an output model uses, found by its name beside @model
 * ("<model>.<16 hex digits>.data", the rule of sink.h, spelled out here
 * again): malloc'd path, or NULL when there is none. Fails the test when
 * there are several, or when one has another name ("<model>.data").
 */
char *data_file_beside(const char *model);

/* The data files @model's initializers name, each between spaces (" a b "); NULL when none. */
char *data_locations(const char *model);
/* The one location every external tensor of (small) @model names, read with
 * protobuf-c; NULL when the model is inline. */
char *external_location(const char *model);

/* Read a model with protobuf-c (inline models only). */
Onnx__ModelProto *load_proto(const char *path);
void free_proto(Onnx__ModelProto *m);

/* 1 when @rep's optimizer part lists node @node as left alone for a reason containing @what. */
int report_left_has(const scs_report *rep, const char *node, const char *what);
/* Every refusal of @rep's optimizer part, one "\n  pass: text" each, for messages (a static buffer). */
const char *report_left_all(const scs_report *rep);

/* Lookups in a graph; NULL when absent. */
Onnx__TensorProto *find_init(const Onnx__GraphProto *g, const char *name);
Onnx__NodeProto *find_node_by_output(const Onnx__GraphProto *g, const char *output);
/* Count nodes of @op_type in @g (not nested). */
int count_ops(const Onnx__GraphProto *g, const char *op_type);
/* 1 when any node input of @g (not nested) is @name. */
int uses(const Onnx__GraphProto *g, const char *name);
/* The graph attribute @attr of the first node of @op_type. */
Onnx__GraphProto *subgraph(const Onnx__GraphProto *g, const char *op_type, const char *attr);
int has_input(const Onnx__GraphProto *g, const char *name);

/*
 * Shrink a fixture into a scratch folder and read the output back: used as
 * .init = shrink_setup, .fini = shrink_teardown; then shrink_fixture().
 */
/*
 * A scratch folder (run_dir), an output path a test may set (run_out,
 * malloc'd, freed at teardown) and a report (run_rep, disposed at teardown):
 * .init = run_setup, .fini = run_teardown.
 */
extern char *run_dir;
extern char *run_out;
extern scs_report run_rep;
void run_setup(void);
void run_teardown(void);
/* scs_optimize() of fixture @name into run_out (run_dir/@name), run_rep
 * holding its report; the output, read back (free_proto). */
Onnx__ModelProto *run_optimize(const char *name, const scs_optimize_options *o);
/* run_optimize() of the passes in @passes (NULL-terminated; NULL: the default set). */
Onnx__ModelProto *run_optimize_passes(const char *name, const char *const *passes);

extern char *shrunk_dir;
extern scs_report shrunk_rep;
extern Onnx__ModelProto *shrunk_model;
void shrink_setup(void);
void shrink_teardown(void);
/* Shrink fixture @name with @opts (NULL: defaults); the output's main graph. */
Onnx__GraphProto *shrink_fixture(const char *name, const scs_shrink_options *opts);
/* The bytes of model @model followed by those of its data file
 * ("<model>.<digits>.data", when there is one); malloc'd, *len of them. */
uint8_t *read_model_and_data(const char *model, size_t *len);

#endif
