/*
 * scs4onnx.h: the public API of scs4onnx-c. One call per tool; an options
 * struct in, a report out. The library prints nothing and never exits: a
 * failing call returns a negative SCS_E* code and scs_err_msg() holds one
 * line naming the file, the offset or tensor, and the problem. On failure
 * no file at the output paths is created or changed. Outputs appear whole:
 * a run killed at any instant leaves the old output or the new one, and no
 * temporary files (see README, "What survives a crash").
 *
 * Installed as <scs4onnx/scs4onnx.h> with <scs4onnx/error.h> (status codes,
 * the message), <scs4onnx/report.h> (what a run did) and
 * <scs4onnx/version.h>; pkg-config --cflags --libs scs4onnx. man 3 scs4onnx
 * describes every call.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS4ONNX_H
#define SCS4ONNX_H

#include <stddef.h>
#include <stdint.h>

/* siblings: found beside this file whichever -I names it */
#include "error.h"
#include "report.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Versions of the structs. Every struct a call reads or fills starts with
 * `unsigned version`, which its _INIT macro sets to the version this header
 * describes; declare each one with it:
 *
 *	scs_shrink_options o = SCS_SHRINK_OPTIONS_INIT;
 *	scs_report rep = SCS_REPORT_INIT;
 *	o.optimize = 1;
 *
 * A struct only ever grows at its end, each growth raising its version,
 * and a new field's default is 0. So a program built against an older
 * header of the same soname keeps working with a newer library: the fields
 * its options lack take their defaults, and its report is filled only as
 * far as its struct reaches. A version of 0 (a struct not set up with its
 * _INIT macro) or newer than the library's is SCS_EUSAGE, before anything
 * is read or written (the report is left as it is). A change no version can
 * absorb comes with a new soname (README, "Compatibility").
 */
#ifdef __cplusplus
#define SCS_STRUCT_INIT_(v) { (v) }
#else
#define SCS_STRUCT_INIT_(v) { .version = (v) }
#endif

/*
 * Threads. The calls of this header keep nothing between calls except
 * what is listed here, so they may run at once in different threads of one
 * process, each with its own report and options:
 *
 * - scs_err_msg() is per thread: read it in the thread whose call failed.
 * - A call's progress callback runs in the thread that made the call,
 *   inside the call.
 * - A call starts no thread. It may start a process of its own, gone when
 *   it returns: a child process (fork(), no exec) that gives the outputs
 *   their names, so that killing the caller cannot stop that half way. The child blocks
 *   every signal; the caller's SIGCHLD handler, if any, sees it end. While
 *   the outputs get their names, the calling thread blocks SIGINT, SIGTERM
 *   and SIGHUP (pthread_sigmask: other threads keep their masks).
 * - No two calls at once may use the same store_dir: LMDB lets a process
 *   open an environment only once (its locks are the process's). A call
 *   without one makes a temporary store of its own, in a folder of its own.
 * - Calls writing into one folder take turns at the moment their outputs
 *   appear (a lock on the folder, as between processes). Give them
 *   different output names: which of two writers of one name ends up there
 *   is not defined.
 * - Where the output's filesystem has no O_TMPFILE (or /proc/self/fd is
 *   missing), outputs are written through named temporaries, listed for
 *   scs_remove_temporaries() in one list of the process (changed under a
 *   lock, with the thread's signals blocked). Elsewhere the list stays
 *   empty.
 * - scs_remove_temporaries() may run in a signal handler at any point of
 *   the thread it interrupts; while another thread is inside a call, only
 *   where that list stays empty (a temporary leaving the list in another
 *   thread may be freed under the handler's feet).
 * - While a call compares payloads through mapped pages of its inputs, a
 *   SIGBUS handler of the library's is in place (installed by the first
 *   such compare of the process, the action that was there before put back
 *   by the last): a page gone because another process cut the file ends
 *   that call with "the file changed while it was read"; any other SIGBUS
 *   goes to the action that was there before.
 * - A report's I/O figures are the calling thread's (with its writing
 *   thread's), whatever other threads read or write at once.
 * - Each call keeps at most 64 input files open (an eighth of the
 *   descriptor limit when that is less), so calls at once add up.
 * - scs_optimize_pass(), scs_optimize_check_names() and scs_version() read
 *   static tables: any thread, any time. scs_report_*() may run at once on
 *   different reports, never on one.
 */

typedef enum scs_mode {
	SCS_MODE_SHRINK = 0,      /* merge repeated constants inside the model */
	SCS_MODE_NPY = 1,         /* move repeated constants to .npy files, as graph inputs */
} scs_mode;

/* Progress of a long step; called a few times a second at most. */
typedef void (*scs_progress_fn)(void *payload, const char *stage, uint64_t done, uint64_t total);

#define SCS_SHRINK_OPTIONS_VERSION 3
#define SCS_SHRINK_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_SHRINK_OPTIONS_VERSION)

typedef struct scs_shrink_options {
	unsigned version;                           /* SCS_SHRINK_OPTIONS_VERSION (SCS_SHRINK_OPTIONS_INIT) */
	scs_mode mode;
	const char *const *forced_op_names;        /* extract the constants of these ops */
	size_t n_forced_op_names;
	const char *const *forced_constant_names;  /* extract these constants */
	size_t n_forced_constant_names;
	int disable_auto_downcast;                  /* 1: no float64->float32 / int64->int32 */
	int optimize;                               /* 1: the optimizer's default passes first (scs_optimize);
	                                               scs_big runs them on the whole model before the split */
	int external_data;                          /* 1: write a data file even when inline fits */
	const char *store_dir;                      /* keep payloads in this store (NULL: temporary) */
	scs_progress_fn progress;
	void *progress_payload;
	uint64_t fold_size_limit;                   /* with optimize: fold_constants' cap on each folded output
	                                               (0: 1 MiB) */
	int fold_grow;                              /* with optimize: 1: also folds that make the model bigger */
	int fold_inexact;                           /* with optimize: 1: also fold the math library's functions
	                                               and float sums of more than two terms */
	const char *const *input_shapes;            /* with optimize: "NAME=1,3,224,224": graph input NAME takes
	                                               these dims (as scs_optimize_options.input_shapes) */
	size_t n_input_shapes;
	int write_shapes;                           /* 1: write the inferred shapes of the main graph's values
	                                               to value_info (scs_big: of the joined model) */
	/* version 2: */
	int initializers_as_constants;              /* 1: from IR version 4 on, initializers also listed as
	                                               graph inputs are constants (no longer inputs in the
	                                               output); below IR 4 they always are */
	int fold_qdq;                               /* with optimize: 1: fold_constants also folds
	                                               QuantizeLinear / DequantizeLinear of constants */
	/* version 3: */
	int keep_transposed;                        /* 1: a 2-D constant equal to another one transposed
	                                               stays a copy of its own (by default the model keeps
	                                               one and reads the other through a Transpose) */
	uint64_t max_data_file_size;                /* external data in numbered files of at most this many
	                                               bytes each (a payload longer than that in a file of
	                                               its own); 0: one data file */
} scs_shrink_options;

/*
 * Shrink the model at @in and write it to @out (with the data file
 * "<out>.<16 hex digits>.data" beside it when external data is written; the
 * digits come from its contents, and the data files of @out's name that the
 * new model does not use, the old output's, are removed). @rep is filled in (also on failure, as far as
 * the run got); release it with scs_report_dispose().
 */
int scs_shrink(scs_report *rep, const char *in, const char *out, const scs_shrink_options *opts);

#define SCS_SPLIT_OPTIONS_VERSION 1
#define SCS_SPLIT_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_SPLIT_OPTIONS_VERSION)

typedef struct scs_split_options {
	unsigned version;                           /* SCS_SPLIT_OPTIONS_VERSION (SCS_SPLIT_OPTIONS_INIT) */
	uint64_t max_shard_len;                     /* 0: 1.8 GiB */
	const char *store_dir;                      /* keep payloads in this store (NULL: temporary) */
	scs_progress_fn progress;
	void *progress_payload;
} scs_split_options;

/*
 * Cut the model at @in into standalone shard models in the folder @dir
 * (shard-000.onnx, ...). @dir must be missing or empty: it appears with every
 * shard at once (a hidden folder beside it, renamed into place), or not at
 * all. rep->shards lists them.
 */
int scs_split(scs_report *rep, const char *in, const char *dir, const scs_split_options *opts);

#define SCS_MERGE_OPTIONS_VERSION 2
#define SCS_MERGE_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_MERGE_OPTIONS_VERSION)

typedef struct scs_merge_options {
	unsigned version;                           /* SCS_MERGE_OPTIONS_VERSION (SCS_MERGE_OPTIONS_INIT) */
	int no_dedup;                               /* 1: no global dedup after joining */
	int external_data;                          /* 1: write a data file even when inline fits */
	const char *store_dir;
	scs_progress_fn progress;
	void *progress_payload;
	/* version 2: */
	uint64_t max_data_file_size;                /* as scs_shrink_options.max_data_file_size */
	int keep_transposed;                        /* as scs_shrink_options.keep_transposed */
} scs_merge_options;

/* Join the shards in @dir (every *.onnx there) into @out, then dedup globally. */
int scs_merge(scs_report *rep, const char *dir, const char *out, const scs_merge_options *opts);

#define SCS_BIG_OPTIONS_VERSION 1
#define SCS_BIG_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_BIG_OPTIONS_VERSION)

typedef struct scs_big_options {
	unsigned version;                           /* SCS_BIG_OPTIONS_VERSION (SCS_BIG_OPTIONS_INIT) */
	const scs_shrink_options *shrink;           /* per shard and for the merged model (NULL: the defaults);
	                                               a pointer, so each struct grows on its own */
	uint64_t max_shard_len;                     /* 0: 1.8 GiB */
	const char *work_dir;                       /* temporary store and kept shards (NULL: beside @out);
	                                               when missing, made only to keep the shards (the
	                                               store, unnamed, goes in its parent), and removed
	                                               at the end or by scs_remove_temporaries() unless
	                                               it keeps them */
	int keep_work;                              /* 1: also write the shards to work_dir/shards (missing or
	                                               empty), after the output */
} scs_big_options;

/*
 * The whole journey in one process, reading @in once: split -> shrink each
 * shard -> merge -> global dedup -> (npy / forced extraction) -> write. The
 * result equals split; scs4onnx-shrink on each shard; merge. rep->stages
 * gives the time of each stage.
 */
int scs_big(scs_report *rep, const char *in, const char *out, const scs_big_options *opts);

#define SCS_OPTIMIZE_OPTIONS_VERSION 3
#define SCS_OPTIMIZE_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_OPTIMIZE_OPTIONS_VERSION)

typedef struct scs_optimize_options {
	unsigned version;                           /* SCS_OPTIMIZE_OPTIONS_VERSION (SCS_OPTIMIZE_OPTIONS_INIT) */
	const char *const *passes;                  /* run only these (onnxoptimizer's names); none: the default set */
	size_t n_passes;
	const char *const *skip;                    /* leave these out */
	size_t n_skip;
	int external_data;                          /* 1: write OUTPUT.data even when inline fits */
	const char *store_dir;                      /* keep payloads in this store (NULL: temporary) */
	scs_progress_fn progress;
	void *progress_payload;
	uint64_t fold_size_limit;                   /* fold_constants' cap on each folded output (0: 1 MiB) */
	int fold_grow;                              /* 1: also folds that make the model bigger */
	int fold_inexact;                           /* 1: also fold the math library's functions (Exp, Pow,
	                                               Tanh, ...) and float sums of more than two terms */
	const char *const *input_shapes;            /* "NAME=1,3,224,224": graph input NAME takes these dims
	                                               (for inference and Shape folding, and in the output) */
	size_t n_input_shapes;
	int write_shapes;                           /* 1: write the inferred shapes of the main graph's values
	                                               to value_info */
	/* version 2: */
	int initializers_as_constants;              /* as scs_shrink_options.initializers_as_constants */
	int fold_qdq;                               /* 1: fold_constants also folds QuantizeLinear /
	                                               DequantizeLinear of constants (by default left for the
	                                               runtime's quantized kernels) */
	/* version 3: */
	uint64_t max_data_file_size;                /* as scs_shrink_options.max_data_file_size */
} scs_optimize_options;

/*
 * Run the optimizer's graph passes on the model at @in until nothing
 * changes, and write the result to @out (as scs_shrink writes). rep lists
 * what each pass changed and, with the reason, what it left alone. An
 * unknown pass name is SCS_EUSAGE, before anything is read.
 */
int scs_optimize(scs_report *rep, const char *in, const char *out, const scs_optimize_options *opts);

#define SCS_SHARE_OPTIONS_VERSION 1
#define SCS_SHARE_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_SHARE_OPTIONS_VERSION)

typedef struct scs_share_options {
	unsigned version;                           /* SCS_SHARE_OPTIONS_VERSION (SCS_SHARE_OPTIONS_INIT) */
	int disable_auto_downcast;                  /* 1: no float64->float32 / int64->int32 */
	const char *store_dir;                      /* keep payloads in this store (NULL: temporary) */
	scs_progress_fn progress;
	void *progress_payload;
	int keep_transposed;                        /* as scs_shrink_options.keep_transposed */
	uint64_t max_data_file_size;                /* as scs_shrink_options.max_data_file_size */
	int dry_run;                                /* 1: every step but the writing: the report says what
	                                               would be written, nothing is */
	int optimize;                               /* 1: the optimizer's default passes on each model first,
	                                               as scs_shrink_options.optimize */
} scs_share_options;

/*
 * Write the @n_models models @models (paths) into the folder @out_dir, each
 * as @out_dir/<its file name>, shrunk as scs_shrink shrinks each (dedup,
 * downcast), and storing each payload once across them all: every payload
 * of 1 KiB or more goes into one data file "shared.<16 hex digits>.data"
 * in @out_dir (the digits come from its contents), which every model
 * references; equal payloads (compared byte for byte) are written once,
 * whichever models hold them. Smaller payloads stay inline. @out_dir must
 * be missing or an empty folder: it appears with every file at once, or
 * not at all. Two models of the same file name are SCS_EUSAGE, before
 * anything is read. rep->models lists each model written (its bytes, and
 * the data bytes only it uses), rep->shared each payload several models
 * use, rep->data_files the data file.
 */
int scs_share(scs_report *rep, const char *out_dir, const char *const *models, size_t n_models,
    const scs_share_options *opts);

#define SCS_INSPECT_OPTIONS_VERSION 1
#define SCS_INSPECT_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_INSPECT_OPTIONS_VERSION)

typedef struct scs_inspect_options {
	unsigned version;                           /* SCS_INSPECT_OPTIONS_VERSION (SCS_INSPECT_OPTIONS_INIT) */
	size_t top;                                 /* the largest constants listed by name (0: 20) */
	const char *tmp_dir;                        /* the temporary store's parent folder (NULL: $TMPDIR,
	                                               else /tmp) */
	scs_progress_fn progress;                   /* stages "scan", "optimize", "scan", "shrink" */
	void *progress_payload;
} scs_inspect_options;

/* What scs_inspect found: opaque, read through the renderers below. */
typedef struct scs_inspect_result scs_inspect_result;

/*
 * Describe the model at @in without writing anything: its inputs and
 * outputs, opsets, node counts by operator (every graph, body and
 * function; the main graph's apart), constant bytes by operator and by
 * tensor, its external data files, the duplicates scs_shrink would merge
 * and what scs_shrink with default options would save (the input's files
 * on disk against the output's, sized as scs_shrink would write it, named
 * like the input), and what scs_optimize's default passes would remove
 * (run on the model in memory). Payload bytes are read only where a pass
 * compares or folds them. *out (NULL on failure) is released with
 * scs_inspect_free(); render it with scs_inspect_text() (the tool's
 * summary), scs_inspect_json() (every figure, as JSON) or
 * scs_inspect_html() (one page, nothing fetched: a treemap of the
 * constants' bytes and the same tables), each a string the caller frees
 * with scs_free (NULL when out of memory).
 */
int scs_inspect(scs_inspect_result **out, const char *in, const scs_inspect_options *opts);
char *scs_inspect_text(const scs_inspect_result *r);
char *scs_inspect_json(const scs_inspect_result *r);
char *scs_inspect_html(const scs_inspect_result *r);
void scs_inspect_free(scs_inspect_result *r);
/*
 * scs_check: the rules of the ONNX checker (onnx.checker) on the model in
 * file @in, of any size, in bounded memory: IR version and opset imports,
 * every node's operator known for its domain and opset, its attributes and
 * input/output counts against the operator's schema, topological order and
 * single assignment in every graph and nested body, value infos, tensors
 * (dims against their payloads), external data locations and ranges, sparse
 * tensors, model-local functions; with opts->full also the type and shape
 * contradictions our inference finds. Each problem is one item of @res
 * (res->n_items 0: the model is valid).
 */
#define SCS_CHECK_OPTIONS_VERSION 1
#define SCS_CHECK_OPTIONS_INIT SCS_STRUCT_INIT_(SCS_CHECK_OPTIONS_VERSION)

typedef struct scs_check_options {
	unsigned version;                           /* SCS_CHECK_OPTIONS_VERSION (SCS_CHECK_OPTIONS_INIT) */
	int full;                                   /* 1: also type and shape contradictions (inference) */
	scs_progress_fn progress;
	void *progress_payload;
} scs_check_options;

/* One problem: the rule ("model", "operator", "arity", "attribute", "order",
 * "ssa", "value-info", "tensor", "external-data", "sparse", "function",
 * "infer"), where (graph: "main", "main/If_3.then_branch", "function
 * DOMAIN.NAME"; NULL for the model itself; node: the node's name, or
 * "#INDEX OP_TYPE" when it has none, NULL when not about a node), what,
 * one sentence, and the node's op_type (NULL when not about a node); all
 * freed by scs_check_result_dispose. */
typedef struct scs_check_item {
	char *rule;
	char *graph;
	char *node;
	char *what;
	const char *op_type;
} scs_check_item;

#define SCS_CHECK_RESULT_VERSION 1
#define SCS_CHECK_RESULT_INIT SCS_STRUCT_INIT_(SCS_CHECK_RESULT_VERSION)

typedef struct scs_check_result {
	unsigned version;                           /* SCS_CHECK_RESULT_VERSION (SCS_CHECK_RESULT_INIT) */
	scs_check_item *items;
	size_t n_items, cap_items;
	uint64_t n_graphs, n_nodes, n_tensors;      /* what was checked */
	uint64_t input_len;                         /* bytes of the model and its data files */
	double seconds;
} scs_check_result;

/* SCS_OK when the model was read and checked (valid when res->n_items is 0);
 * a model the scanner cannot read as ONNX (bad wire format, a payload that
 * disagrees with its dims, a bad external-data location) is one item, not an
 * error; < 0 (message in scs_err_msg) only when the file cannot be opened or
 * read. */
int scs_check(scs_check_result *res, const char *in, const scs_check_options *opts);
/* Free what scs_check put into @res (which stays of its version, empty). */
void scs_check_result_dispose(scs_check_result *res);
/* @res as JSON ({"valid", "problems": [{"rule", "graph", "node", "op_type",
 * "what", "line"}], "graphs", "nodes", "tensors", "input_bytes",
 * "seconds"}), in memory the caller frees with scs_free (NULL when out of
 * memory). */
char *scs_check_result_json(const scs_check_result *res);
/* Problem @item as the one line scs4onnx-check prints (without the model's
 * path), in memory the caller frees with scs_free (NULL when out of memory). */
char *scs_check_item_line(const scs_check_item *item);

typedef struct scs_optimize_pass_info {
	const char *name;                           /* onnxoptimizer's name */
	const char *what;                           /* one line */
	int in_default;                             /* 1: runs when no pass is named */
} scs_optimize_pass_info;

/* The @i-th pass, in the order they run: 1 and *out; 0 past the last. */
/* (out->name and out->what are static strings: valid for the life of the
 * process; do not free them.) */
int scs_optimize_pass(size_t i, scs_optimize_pass_info *out);

/* SCS_OK when every one of @names is a pass; else SCS_EUSAGE naming it and listing the passes. */
int scs_optimize_check_names(const char *const *names, size_t n);

/*
 * Remove the temporary files the library has open that have names (outputs
 * being written where the filesystem has no O_TMPFILE; elsewhere
 * temporaries have no name and vanish with the process), then a work folder
 * scs_big made, while it holds nothing else. Async-signal-safe:
 * call it from a SIGINT/SIGTERM handler before exiting, so an interrupted
 * run leaves nothing behind.
 */
void scs_remove_temporaries(void);

/*
 * For callers that cannot hold an scs_report themselves (bindings through a
 * foreign-function interface): an empty report of the library's version on
 * the heap (NULL when out of
 * memory), released with scs_report_free (which disposes of it; NULL is
 * fine); its JSON text, as the tools' --json writes it, in memory the caller
 * frees with scs_free (NULL when out of memory); and the library's version.
 */
scs_report *scs_report_new(void);
void scs_report_free(scs_report *rep);
char *scs_report_json(const scs_report *rep);
/* Its summary as the tools print it (the INFO lines of scs_report_print), in
 * memory the caller frees with scs_free (NULL when out of memory). */
char *scs_report_text(const scs_report *rep);
void scs_free(void *p);
/* scs_version(): a static string, valid for the life of the process; do not
 * free it. */
const char *scs_version(void);

#ifdef __cplusplus
}
#endif

#endif
