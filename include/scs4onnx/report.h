/*
 * scs4onnx/report.h: what a run did, as the tools print it (scs4onnx's INFO
 * lines) and as JSON. Plain data; every string is owned by the report, which
 * the calls of <scs4onnx/scs4onnx.h> fill in and scs_report_dispose()
 * releases.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS4ONNX_REPORT_H
#define SCS4ONNX_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct scs_report_group {
	char *canonical;          /* the name every copy now uses */
	char **names;             /* the names merged into it */
	size_t n_names;
	int dtype;
	uint64_t bytes;           /* one copy's payload bytes */
	int lifted;               /* 1: the copy now lives in an enclosing graph */
} scs_report_group;

typedef struct scs_report_item {
	char *name;
	char *detail;             /* e.g. "float64 -> float32", a refusal's reason, a path */
} scs_report_item;

typedef struct scs_report_list {
	scs_report_item *items;
	size_t n, cap;
} scs_report_list;

typedef struct scs_report_stage {
	char name[16];            /* "scan", "split", "shrink", "merge", "dedup", "write" */
	double seconds;
	uint64_t bytes;           /* what the stage produced or read, 0 when it is not about bytes */
} scs_report_stage;

#define SCS_REPORT_MAX_STAGES 12

/* What one optimizer pass did over the whole run. */
typedef struct scs_report_pass {
	char name[48];
	uint64_t changes;         /* entries it added to changes */
	uint64_t refusals;        /* entries it added to left */
} scs_report_pass;

#define SCS_REPORT_MAX_PASSES 32

/* The report's version: see "Versions of the structs" in scs4onnx.h. A
 * report given to a call is SCS_REPORT_INIT'd, or disposed of since its last
 * call (scs_report_dispose keeps its version). */
#define SCS_REPORT_VERSION 4
#ifdef __cplusplus
#define SCS_REPORT_INIT { SCS_REPORT_VERSION }
#else
#define SCS_REPORT_INIT { .version = SCS_REPORT_VERSION }
#endif

typedef struct scs_report {
	unsigned version;         /* SCS_REPORT_VERSION (SCS_REPORT_INIT) */
	uint64_t n_constants;     /* non-scalar constants studied */
	uint64_t n_scalars;       /* scalars, left alone */
	scs_report_group *groups;
	size_t n_groups, cap_groups;
	scs_report_list skipped;  /* duplicates that could not be merged, and why */
	scs_report_list narrowed; /* constants downcast */
	scs_report_list refused;  /* downcast candidates refused, and why */
	scs_report_list npy;      /* constants exported: name, .npy path */
	scs_report_list unexported; /* constants asked for but not exported, and why */
	scs_report_list npy_renamed; /* exported under another .npy name than scs4onnx's: name, new name and why */
	uint64_t bytes_before;    /* payload bytes the graph referenced before */
	uint64_t bytes_after;     /* ... and after */
	uint64_t input_len;       /* input file bytes (with external data) */
	uint64_t output_len;      /* output .onnx bytes */
	uint64_t output_data_len; /* output .data bytes, 0 when inline */
	int external;             /* 1 when OUTPUT.data was written */
	scs_report_list shards;   /* shard files written (split): path, bytes */
	size_t n_shards;          /* shards made (split, big) or joined (merge) */
	int optimized;            /* 1: the optimizer ran */
	int optimize_only;        /* 1: scs4onnx-optimize (no dedup summary) */
	scs_report_list changes;  /* optimizer: pass name, then "subject: what it did" */
	scs_report_list left;     /* optimizer: pass name, then "subject: why it left it alone" */
	scs_report_pass passes[SCS_REPORT_MAX_PASSES];   /* the first SCS_REPORT_MAX_PASSES passes that ran, in
	                                                    table order (every one: pass_list, version 3) */
	size_t n_passes;
	uint64_t nodes_before;    /* nodes in every graph and function, before the optimizer */
	uint64_t nodes_after;     /* ... and after */
	unsigned rounds;          /* optimizer rounds until nothing changed */
	scs_report_stage stages[SCS_REPORT_MAX_STAGES];
	size_t n_stages;
	double seconds;
	/* I/O of the run, from /proc/thread-self/io (the calling thread's, with
	 * the bytes its writing thread wrote; /proc/self/io where the kernel has
	 * no thread-self) at its start and at the end of each stage (has_io 0
	 * where /proc is not there). bytes_read is rchar: every
	 * byte asked of the kernel by read, pread and copy_file_range (a kernel
	 * copy into an output counts as read), from the page cache or the disk.
	 * read_bytes would count only what came from the disk: 0 on a warm
	 * cache, so it says nothing of how often the tool reads a byte. Pages a
	 * compare reads through a mapping are not in rchar: they are
	 * bytes_mapped. bytes_read less bytes_kernel_copied and
	 * bytes_copied_through (below) is what the tool read for its own work. */
	int has_io;
	uint64_t bytes_read;
	uint64_t bytes_written;   /* wchar: write, pwrite and copy_file_range's output */
	uint64_t bytes_mapped;    /* payload bytes compared from mapped pages */
	uint64_t bytes_kernel_copied; /* bytes copy_file_range copied into outputs */
	uint64_t io_start[4];     /* rchar (with the reads of the threads the run starts), wchar, mapped and
	                             kernel-copied bytes when the run began */
	uint64_t npy_len;         /* bytes of the .npy files written (npy mode, forced extraction) */
	int split_only;           /* 1: scs4onnx-split (no dedup summary) */
	/* bytes of bytes_written that went to the disk with O_DIRECT, past the
	 * page cache: always 0 now that outputs go through the cache and leave
	 * only their last steps in it (docs/ARCHITECTURE.md, "Large outputs");
	 * kept for the layout */
	uint64_t bytes_written_direct;
	uint64_t io_start_direct; /* ... when the run began: 0 */
	/* bytes of input files copied unchanged into outputs through the tool's
	 * buffer (where copy_file_range is refused):
	 * like bytes_kernel_copied, in bytes_read, yet not read for the run's own
	 * work */
	uint64_t bytes_copied_through;
	uint64_t io_start_copied; /* ... when the run began */
	/* version 2: initializers also listed among the main graph's inputs, and what
	 * they were taken for (SCS_DEFAULTS_*) */
	uint64_t n_default_inputs;
	int default_inputs_rule;
	/* version 3: every pass that ran, in table order (passes[] above holds
	 * only the first SCS_REPORT_MAX_PASSES of them); owned by the report */
	scs_report_pass *pass_list;
	size_t n_pass_list;
	/* version 4: constants now read through a Transpose of an equal one
	 * (name, "Transpose(KEPT)" and what it held), and the bytes that saved */
	scs_report_list transposed;
	uint64_t bytes_transposed;
	/* version 4: the data files written (path, bytes): one, or several with
	 * max_data_file_size; scs_share's shared one(s) */
	scs_report_list data_files;
	/* version 4: scs_share: each model written (path, what it weighs and
	 * holds of its own), and each payload held by more than one model
	 * (a constant's name, which models share it and its bytes) */
	scs_report_list models;
	scs_report_list shared;
} scs_report;

/* default_inputs_rule: */
#define SCS_DEFAULTS_LEFT 0            /* IR >= 4: defaults a caller may override, left alone */
#define SCS_DEFAULTS_CONSTANT_IR3 1    /* IR < 4: constants (that IR listed every initializer) */
#define SCS_DEFAULTS_CONSTANT_ASKED 2  /* IR >= 4: constants, as the options asked */

/* Human summary, one fact a line, prefixed "INFO: " like scs4onnx. */
void scs_report_print(const scs_report *r, FILE *f);

/* The same as a JSON object. */
int scs_report_write_json(const scs_report *r, FILE *f);

/* Free everything the report owns; it is empty afterwards (of the same
 * version). A report of version 0 or newer than the library's is left
 * alone (scs_report_print prints nothing, scs_report_write_json is
 * SCS_EUSAGE). */
void scs_report_dispose(scs_report *r);

#ifdef __cplusplus
}
#endif

#endif
