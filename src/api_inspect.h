/*
 * api_inspect.h: what scs_inspect found (the public scs_inspect_result),
 * shared by api_inspect.c, which fills it, and api_inspect_render.c,
 * which renders it as text, JSON and HTML.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_API_INSPECT_H
#define SCS_API_INSPECT_H

#include <stddef.h>
#include <stdint.h>

#include "scs4onnx.h"

/* One dim of a graph input or output: a number, a symbolic name, or "?". */
typedef struct insp_dim {
	char *text;
	int fixed;                /* 1: a number */
} insp_dim;

typedef struct insp_value {
	char *name;
	char *type;               /* "float32", "sequence", ... */
	insp_dim *dims;
	size_t n_dims;
	int has_shape;            /* 0: rank unknown */
} insp_value;

typedef struct insp_opset {
	char *domain;
	int64_t version;
} insp_opset;

/* One operator ("Conv", or "domain:Op" outside the default domain). */
typedef struct insp_op {
	char *op;
	uint64_t main;            /* nodes in the main graph */
	uint64_t all;             /* nodes in every graph, body and function */
	uint64_t bytes;           /* bytes of the constants it reads (a constant counts for each operator reading it) */
	uint64_t tensors;         /* the constants it reads */
} insp_op;

/* One constant (an initializer or a Constant node's value, in any graph). */
typedef struct insp_tensor {
	char *name;
	int dtype;
	int64_t *dims;
	size_t n_dims;
	uint64_t bytes;           /* its payload's bytes */
	int file;                 /* -2: no payload (strings); -1: inline in typed fields; 0: inline raw_data;
	                             k > 0: external, in files[k] */
	uint32_t *readers;        /* the operators (indices in ops) reading it, each once */
	size_t n_readers;
} insp_tensor;

/* One input file: the .onnx (files[0]), then its external data files. */
typedef struct insp_file {
	char *path;
	uint64_t bytes;           /* the file's size */
	uint64_t tensors;         /* tensors whose payload lies in it */
	uint64_t tensor_bytes;    /* their bytes */
	uint64_t align;           /* the largest power of two (up to 1 MiB) dividing each of their offsets; 0: none */
} insp_file;

struct scs_inspect_result {
	char *path;
	size_t top;
	int64_t ir_version;
	char *producer, *producer_version;
	insp_opset *opsets;
	size_t n_opsets;
	insp_value *inputs, *outputs;
	size_t n_inputs, n_outputs;
	size_t n_default_inputs;  /* initializers also listed among the main graph's inputs */
	insp_op *ops;
	size_t n_ops, cap_ops;
	uint64_t nodes_main, nodes_all;
	size_t n_graphs;          /* graphs, bodies and functions */
	insp_tensor *tensors;
	size_t n_tensors, cap_tensors;
	uint64_t const_bytes;
	uint64_t unread_bytes, n_unread;   /* constants no node reads (graph outputs, unused) */
	insp_file *files;
	size_t n_files;
	uint64_t input_len;       /* every input file's bytes */
	scs_report shrink;        /* shrink's passes with default options: groups, transposed, narrowed;
	                             input_len, and output_len + output_data_len as scs_shrink writes them */
	size_t shrink_data_files;
	scs_report optimize;      /* the optimizer's default passes: nodes, changes by pass, payload bytes */
};

#endif
