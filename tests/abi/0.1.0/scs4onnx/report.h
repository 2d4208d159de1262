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

typedef struct scs_report {
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
	scs_report_pass passes[SCS_REPORT_MAX_PASSES];   /* the passes that ran, in table order */
	size_t n_passes;
	uint64_t nodes_before;    /* nodes in every graph and function, before the optimizer */
	uint64_t nodes_after;     /* ... and after */
	unsigned rounds;          /* optimizer rounds until nothing changed */
	scs_report_stage stages[SCS_REPORT_MAX_STAGES];
	size_t n_stages;
	double seconds;
} scs_report;

/* Human summary, one fact a line, prefixed "INFO: " like scs4onnx. */
void scs_report_print(const scs_report *r, FILE *f);

/* The same as a JSON object. */
int scs_report_write_json(const scs_report *r, FILE *f);

/* Free everything the report owns; it is empty afterwards. */
void scs_report_dispose(scs_report *r);

#ifdef __cplusplus
}
#endif

#endif
