/*
 * pass.h: the passes over a loaded model. Each works on the skeleton and
 * its payloads, returns what it did in its own result (the public calls
 * turn those into the report), and leaves a model that computes exactly
 * what it computed before.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_PASS_H
#define SCS_PASS_H

#include "model/model.h"
#include "onnx/opschema.h"

/* A pass's "name: detail" entry: what it did to a constant, or why it left
 * it alone (both malloc'd). */
typedef struct scs_pass_note {
	char *name;
	char *detail;
} scs_pass_note;

typedef struct scs_pass_notes {
	scs_pass_note *items;
	size_t n, cap;
} scs_pass_notes;

/* Add "name: detail" (both copied; @detail NULL: ""). SCS_ENOMEM. */
int scs_pass_notes_add(scs_pass_notes *l, const char *name, const char *detail);
/* Drop the entries from @n on. */
void scs_pass_notes_truncate(scs_pass_notes *l, size_t n);
void scs_pass_notes_dispose(scs_pass_notes *l);

/* A merged group of scs_pass_dedup(): every copy now uses @canonical. */
typedef struct scs_dedup_group {
	char *canonical;
	char **names;             /* the names merged into it */
	size_t n_names;
	int dtype;
	uint64_t bytes;           /* one copy's payload bytes */
	int lifted;               /* 1: the copy now lives in an enclosing graph */
} scs_dedup_group;

/* What scs_pass_dedup() studied, merged and could not merge. Zeroed before
 * the first pass; each pass adds to it. */
typedef struct scs_dedup_result {
	uint64_t n_constants;     /* non-scalar constants studied */
	uint64_t n_scalars;       /* scalars, left alone */
	scs_dedup_group *groups;  /* in the order they merged */
	size_t n_groups, cap_groups;
	scs_pass_notes skipped;   /* duplicates that could not be merged, and why */
} scs_dedup_result;

void scs_dedup_result_dispose(scs_dedup_result *r);

/*
 * Merge identical non-scalar constants (initializers and Constant-node
 * values, every scope): same element type, dims and bytes (compared byte
 * for byte). Graph inputs are never candidates; graph outputs keep their
 * definition. Copies in sibling scopes are lifted into their nearest common
 * enclosing graph. Repeats until a further run would merge nothing more
 * (a merge may end a nested definition that refused a rename).
 * Adds n_constants, n_scalars, groups and skipped to @res.
 */
int scs_pass_dedup(scs_model *m, scs_dedup_result *res);

/*
 * Count what scs_pass_dedup() would study (n_constants, n_scalars), merging
 * nothing: for a run that dedups its model in pieces, so that each
 * constant of the input is counted once.
 */
int scs_pass_dedup_count(scs_model *m, scs_dedup_result *res);

/*
 * Append to @order the names of the constants scs_pass_dedup() studies, in
 * the order it meets them (each graph's initializers, then its Constant
 * nodes; the main graph first): where they first appear in the model, for
 * scs_report_order_groups(). SCS_ENOMEM.
 */
int scs_pass_dedup_order(scs_model *m, scs_pass_notes *order);

/* What scs_pass_transposed() rewrote and left alone. Zeroed before the
 * first pass; each pass adds to it. */
typedef struct scs_transposed_result {
	scs_pass_notes rewritten; /* the copies removed, read through Gemm(transB=1) or a Transpose: name,
	                             "Transpose(KEPT) [A, B] float16, 196.3 MiB" */
	scs_pass_notes skipped;   /* copies equal to another transposed, left alone, and why */
	uint64_t bytes;           /* payload bytes the rewritten copies held */
} scs_transposed_result;

/*
 * One copy of each 2-D constant that @models (sharing one payload set when
 * more than one) also hold transposed: where Y [B, A] equals X [A, B]
 * transposed (element type of whole bytes, compared byte for byte; the
 * candidates as scs_pass_dedup() takes them, in the main graph and the
 * bodies nested in it; identical copies are dedup's), the copy met first
 * is kept when its scope encloses the other's (else the other one when
 * its scope encloses the first's; a graph output is never rewritten;
 * copies in sibling scopes are left alone, with a reason in res->skipped),
 * and the other becomes a Transpose (perm [1, 0]) of it under its own
 * name, so its readers are unchanged. A copy in a later model reads a new
 * constant of its own model (a fresh name) holding the kept copy's
 * payload. Reads the payloads in pieces, a few MiB at a time.
 */
int scs_pass_transposed(scs_model *const *models, size_t n_models, scs_transposed_result *res);
void scs_transposed_result_dispose(scs_transposed_result *r);

/* 1 when the signatures of a [@rows, @cols] constant read its element (@i, @j) (for tests). */
int scs_pass_transposed_sampled(int64_t rows, int64_t cols, int64_t i, int64_t j);
#ifdef SCS_TEST_HOOKS
/* Test builds only: confirm in blocks of at most @len bytes (0: the default). */
void scs_pass_transposed_block_for_tests(size_t len);
#endif

/*
 * Lossless downcast: float64 -> float32 and int64 -> int32 constants, only
 * where every value survives the round trip exactly and every consumer's
 * operator schema accepts the narrower type at that input, with all
 * constants that share a type variable narrowed together, and never where
 * that type variable also types an output or a non-constant input, nor
 * where an output's type could follow the input by inference (see
 * scs_pass_downcast_narrowable). Unknown operators are never narrowed, nor
 * anything in a model importing an opset newer than the schema table knows.
 * Adds to @res what it narrowed and what it refused.
 */
typedef struct scs_downcast_result {
	scs_pass_notes narrowed;  /* constants downcast: name, "float64 -> float32" */
	scs_pass_notes refused;   /* candidates refused, and why */
} scs_downcast_result;

int scs_pass_downcast(scs_model *m, scs_downcast_result *res);
void scs_downcast_result_dispose(scs_downcast_result *r);

/*
 * The schema half of the rule: may actual input @i of @s change from its wide
 * element type to @narrow (SCS_DT_FLOAT or SCS_DT_INT32), every other input
 * bound to the same type variable changing with it, without any output's
 * type changing? Only when the operator is of the default domain and not
 * deprecated; @i binds to a formal typed by a type variable (not a concrete
 * type) that allows @narrow and types no output; no argument of the operator
 * is a seq/optional/map type or a heterogeneous variadic; and every output is
 * a concrete type, a variable with one allowed type, or a variable that also
 * types an input; and, for SCS_DT_FLOAT, no output can be floating-point or
 * string (the precision of the arithmetic is not in the schema).
 * @return 1 when it may; 0 when not, with a one-line reason naming the
 *         operator, the input and its formal in @why (at most @why_len bytes).
 */
int scs_pass_downcast_narrowable(const scs_opschema *s, size_t i, int narrow, char *why, size_t why_len);

/* One constant moved out of the model, to be written as a .npy file. */
typedef struct scs_extracted {
	char *file;               /* file name (no folder), also the new graph input's name */
	char *constant;           /* the constant's name in the input model */
	int dtype;
	int64_t *dims;
	size_t n_dims;
	uint32_t payload;
} scs_extracted;

typedef struct scs_extract_list {
	scs_extracted *items;
	size_t n, cap;
} scs_extract_list;

void scs_extract_list_dispose(scs_extract_list *l);

typedef struct scs_extract_options {
	int groups;                               /* npy mode: every merged group's constant ... */
	const char *const *group_names;           /* ... by its canonical name */
	size_t n_group_names;
	const char *const *op_names;              /* the constants read by nodes of these names */
	size_t n_op_names;
	const char *const *constant_names;        /* these constants */
	size_t n_constant_names;
	const char *out_path;                     /* the output model, for file names */
} scs_extract_options;

/*
 * npy mode and forced extraction: each chosen non-scalar constant of the
 * main graph is removed and becomes a graph input of the same type and
 * shape, named like its .npy file (as scs4onnx names it); @res lists what
 * to write. Constants that cannot move (graph outputs, nested graphs,
 * types NumPy lacks) are in res->unexported with the reason.
 */
typedef struct scs_extract_result {
	scs_extract_list extracted;   /* what to write */
	scs_pass_notes unexported;    /* constants asked for but not exported, and why */
	scs_pass_notes renamed;       /* exported under another .npy name than scs4onnx's: name, new name and why */
} scs_extract_result;

int scs_pass_extract(scs_model *m, const scs_extract_options *opts, scs_extract_result *res);
void scs_extract_result_dispose(scs_extract_result *r);

/*
 * Initializers that are also graph inputs (of the main graph; a nested
 * body's inputs are its operator's). Below IR version 4 they are
 * constants (that IR listed every initializer among the inputs); from IR
 * 4 on they are defaults a caller may override, left alone, unless
 * @as_constants. scs_pass_defaults_lift() counts them
 * (d->n_listed) and, when they are constants, takes their
 * entries out of the input list (d->constants says so), so
 * that every pass sees plain initializers. scs_pass_defaults_restore()
 * then lists the initializers of @m (the model lifted, or one made from
 * it) among its inputs again when its IR requires it: the lifted entries
 * of those still there, in their places (with the type the initializer
 * has now), and new entries for new initializers last. Above IR 3 nothing
 * is written back: the constants are no longer inputs. @d NULL: nothing.
 */
typedef struct scs_defaults {
	Onnx__ValueInfoProto **vi;   /* the entries taken out, in input order */
	size_t *before;              /* how many inputs that stayed preceded each */
	size_t n;
	int below_ir4;               /* 1: written back by scs_pass_defaults_restore() */
	size_t n_listed;             /* initializers found among the inputs */
	int constants;               /* 1: taken for constants (below IR 4, or @as_constants) */
} scs_defaults;

int scs_pass_defaults_lift(scs_defaults *d, scs_model *m, int as_constants);
int scs_pass_defaults_restore(const scs_defaults *d, scs_model *m);
/* scs_pass_defaults_restore() for a model that is written and then worked on
 * further (scs4onnx-big's kept shards): scs_pass_defaults_undo() takes the
 * entries written back out again. */
typedef struct scs_defaults_undo {
	Onnx__ValueInfoProto **was;  /* the input list before */
	size_t n;
} scs_defaults_undo;

int scs_pass_defaults_restore_for(const scs_defaults *d, scs_model *m, scs_defaults_undo *u);
void scs_pass_defaults_undo(scs_defaults_undo *u, scs_model *m);

/* Free what @d holds (entries of @m's tree). */
void scs_defaults_dispose(scs_defaults *d, scs_model *m);

/* A graph input entry @name of element type @dtype and fixed dims (malloc'd
 * pieces: the tree it joins frees it); NULL on ENOMEM. */
Onnx__ValueInfoProto *scs_value_info_new(const char *name, int dtype, const int64_t *dims, size_t n_dims);

/* A new Constant node whose value is @t (the node's from then on), its
 * output named like @t; NULL on ENOMEM, @t then freed. Put it into a
 * model's tree, which then frees it. */
Onnx__NodeProto *scs_constant_node_new(Onnx__TensorProto *t);

/* qsort()/bsearch() order of pointers (to void *) by address. */
int scs_pass_cmp_ptr(const void *pa, const void *pb);

/* Payload bytes referenced by every tensor of the model. */
uint64_t scs_pass_payload_bytes(scs_model *m);

/*
 * The readers of a constant @copy (dims [K, N], element type @dtype) of
 * graph @g of @m, when constant @kept (visible in @g) holds it transposed
 * ([N, K]): scs_transposed_readers_check() says whether every reader can
 * read @kept instead, changing nothing; scs_transposed_readers_rewrite()
 * then rewrites them:
 * - a MatMul reading @copy as B becomes Gemm(A, @kept, transB=1) (rank-2
 *   A), or, for A of rank 3 and more, Reshape(A, [-1, K]) -> Gemm ->
 *   Reshape to Shape(A) without its last dim and [N], under the MatMul's
 *   output name (needs opset 11; a Slice of Shape below opset 15; the dims
 *   of A but the first and the last known and not 0 below opset 14). Only
 *   for float and float16 (measured bit-identical in ONNX Runtime at every
 *   level, where a MatMul of a Transpose node is not), where ONNX Runtime
 *   has the Gemm kernel, and refused where one of its fusions would take
 *   the MatMul elsewhere (read by Add, Mul, Div or BatchNormalization, A
 *   made by Transpose, Mul or Div);
 * - a reader that moves data or computes element by element (Gather,
 *   GatherElements, GatherND, Identity, Reshape, Flatten, Squeeze,
 *   Unsqueeze, Slice, Concat, Expand, Add, Sub, Mul, Div, Cast) reads a new
 *   Transpose node of @kept (perm [1, 0]) named @copy, at the front of @g
 *   or right after @kept's Constant node in @g;
 * - any other reader, a nested graph reading @copy, or @copy an input or
 *   an output of @g: refused.
 * The rank of A comes from @shapes (may be NULL) or else from @g's inputs,
 * value_info and outputs. The rewrite leaves @copy's definition (an
 * initializer or a Constant node) for the caller to remove; the new nodes
 * and values get names no scope uses.
 * check: 1 when it can, 0 with a one-line reason in @why (naming the node),
 * < 0 on error. rewrite: SCS_OK; SCS_EUSAGE when check() says no (nothing
 * changed); SCS_ENOMEM may leave @g half rewritten: the caller gives the
 * model up.
 */
#define SCS_TRANSPOSED_MAX_RANK 16

typedef struct scs_transposed_shapes {
	/* rank of value @name (its dims, -1 where unknown, into @dims[0 .. @max)), or -1 */
	int (*fn)(void *ctx, const char *name, int64_t *dims, int max);
	void *ctx;
} scs_transposed_shapes;

int scs_transposed_readers_check(scs_model *m, Onnx__GraphProto *g, const char *copy, int dtype, const int64_t dims[2],
    const scs_transposed_shapes *shapes, char *why, size_t why_len);
int scs_transposed_readers_rewrite(scs_model *m, Onnx__GraphProto *g, const char *copy, const char *kept, int dtype,
    const int64_t dims[2], const scs_transposed_shapes *shapes);

#endif
