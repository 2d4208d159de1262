/*
 * opt.h: the optimizer (scs4onnx-optimize, --optimize): graph passes under
 * onnxoptimizer's names, and the rewriting tools they share.
 *
 * Adding a pass is adding one file and one line:
 *
 *   src/opt_<name>.c     int scs_opt_<name>(scs_opt_ctx *ctx, int *changed)
 *   src/opt/opt_passes.def   SCS_OPT_PASS(<name>, <in default set: 0/1>, "what it does, one line")
 *
 * (and the file to src/meson.build). The table's order is the order the
 * passes run in each round; the driver (scs_opt_run) repeats rounds until
 * no pass changes anything.
 *
 * How a pass works. It looks at the model through @ctx (scopes, uses,
 * producers, constants, shapes: all a snapshot taken at the last commit)
 * and queues its edits: forwarding a node's output to its input, renames,
 * dropped nodes and initializers. Queued edits are applied together by
 * scs_opt_commit(), which the driver calls after each pass (a pass that
 * needs to look at its own results calls it itself). Between commits,
 * nothing a pass queued is freed, so every pointer it holds stays valid;
 * in-place edits (scs_opt_set_input, attributes, scs_opt_insert_node,
 * scs_opt_add_constant) are visible at once but are not in the snapshot
 * (no uses, no producer) until the commit.
 *
 * What every pass keeps (see docs/OPTIMIZER.md): graph inputs and outputs
 * keep their names, order, types and shapes; a constant that is also a graph
 * input (an overridable default) is never folded (below IR 4, or with
 * --initializers-as-constants, such entries are taken out of the input list
 * before the passes run: pass.h, scs_pass_defaults_lift); nodes of an operator
 * without a known schema, of an opset newer than the schema table, or with
 * attributes that refer to a function's attributes are never touched
 * (scs_opt_is_op says so); a node whose rewrite is not possible is left as
 * it was and the refusal is reported with its reason (scs_opt_refuse), never
 * an error. Errors (< 0) are for memory, I/O and a damaged store.
 *
 * Payloads are read and written in pieces (scs_opt_read_*, scs_opt_writer),
 * never whole, so a pass's memory does not grow with the model.
 *
 * A fusion, for instance: scs_opt_each_op finds the second node, its
 * input's scs_opt_producer the first, scs_opt_n_uses / scs_opt_is_pinned
 * say whether the first's output feeds only it; scs_opt_constant and
 * scs_opt_read_doubles read the parameters; an scs_opt_writer makes the new
 * weight, scs_opt_tensor_new (named by scs_opt_fresh_name) and
 * scs_opt_add_constant put it in the graph (the old one stays for its other
 * readers; eliminate_unused_initializer or scs_opt_drop_initializer removes
 * it); scs_opt_set_input points the first node at it; scs_opt_forward
 * removes the second node, its readers reading the first's output.
 *
 * The passes (opt/passes/) include this header and nothing of each other. The optimizer's own files (opt.c: table, driver,
 * record; opt_snapshot.c, opt_const.c, opt_edit.c: the tools above) also
 * share the private opt_impl.h.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_OPT_H
#define SCS_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "infer/infer.h"
#include "model/model.h"
#include "model/scope.h"

typedef struct scs_opt_state scs_opt_state;

/* What the passes may be told (NULL settings: the defaults). */
typedef struct scs_opt_settings {
	uint64_t fold_size_limit;           /* fold_constants: cap on each folded output; 0: 1 MiB */
	int fold_grow;                      /* fold_constants: 1: also folds that make the model bigger */
	int fold_inexact;                   /* fold_constants: 1: also results a runtime may round otherwise */
	int fold_qdq;                       /* fold_constants: 1: also QuantizeLinear / DequantizeLinear */
	/* called after each pass ran and its edits were committed (@changed 0: it changed nothing); < 0 stops the
	 * run with that status; 1: it changed the model itself (the snapshot is taken again). NULL: none */
	int (*after_pass)(void *payload, scs_model *m, const char *pass, int changed);
	void *after_pass_payload;
} scs_opt_settings;

#define SCS_OPT_FOLD_SIZE_LIMIT ((uint64_t)1 << 20)

/* ---- what a run did ---- */

/* One line of the record: a pass's name (the table's) or "optimize" for the model as a whole, and the text. */
typedef struct scs_opt_line {
	const char *pass;                   /* static: not owned */
	char *text;                         /* "subject: what it did" or "subject: why it left it alone"; owned */
} scs_opt_line;

typedef struct scs_opt_lines {
	scs_opt_line *items;
	size_t n, cap;
} scs_opt_lines;

/* What one pass did over the whole run. */
typedef struct scs_opt_count {
	const char *name;                   /* the table's name of the pass */
	uint64_t changes;                   /* lines it added to changes */
	uint64_t refusals;                  /* lines it added to left */
} scs_opt_count;

#define SCS_OPT_MAX_PASSES 128

/*
 * What a run of the passes did, for the caller to report: the changes made
 * and the nodes left alone with why (each refusal once), per pass in table
 * order, the node counts and the rounds. Dispose with
 * scs_opt_result_dispose (it is empty afterwards).
 */
typedef struct scs_opt_result {
	scs_opt_lines changes;              /* in the order made */
	scs_opt_lines left;
	scs_opt_count passes[SCS_OPT_MAX_PASSES];   /* the passes that ran, in table order */
	size_t n_passes;
	uint64_t nodes_before;              /* nodes in every graph and function, before the passes */
	uint64_t nodes_after;               /* ... and after */
	unsigned rounds;                    /* rounds until nothing changed (0: none ran) */
} scs_opt_result;

void scs_opt_result_dispose(scs_opt_result *r);

typedef struct scs_opt_ctx {
	scs_model *m;
	scs_opt_result *res;                /* where scs_opt_report records */
	scs_scopes scopes;                  /* every graph and function body; rebuilt by scs_opt_commit */
	const struct scs_opt_pass *pass;    /* the pass running (for reports) */
	scs_opt_state *st;                  /* private: opt_impl.h */
	const scs_opt_settings *settings;   /* NULL: the defaults */
} scs_opt_ctx;

/* ---- the pass table ---- */

typedef struct scs_opt_pass {
	const char *name;                   /* onnxoptimizer's name */
	const char *what;                   /* one line for --list-passes */
	int in_default;                     /* 1: runs without -p */
	int (*run)(scs_opt_ctx *ctx, int *changed);   /* sets *changed to 1 when it queued or made an edit */
} scs_opt_pass;

#define SCS_OPT_PASS(name, dflt, what) int scs_opt_##name(scs_opt_ctx *ctx, int *changed);
#include "opt/opt_passes.def"
#undef SCS_OPT_PASS

extern const scs_opt_pass scs_opt_passes[];
extern const size_t scs_opt_n_passes;

/* The pass called @name, or NULL: an entry of the static scs_opt_passes table,
 * valid for the life of the process; do not free it. */
const scs_opt_pass *scs_opt_find(const char *name);

/*
 * Run passes on @m until a round changes nothing: the default set, or the
 * @n_only passes named in @only (in table order), minus those in @skip.
 * Fills *@res (emptied first; dispose of it also after a failure).
 * SCS_EUSAGE names an unknown pass and lists the known ones. A model whose
 * graph has a cycle, or defines a name twice in one graph, or carries
 * training_info, is left as it was (reported, not an error).
 */
int scs_opt_run(scs_model *m, scs_opt_result *res, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip);

/* The same with @settings (NULL: the defaults) for the passes. */
int scs_opt_run_with(scs_model *m, scs_opt_result *res, const char *const *only, size_t n_only, const char *const *skip,
    size_t n_skip, const scs_opt_settings *settings);

/*
 * Write what shape inference knows of each value the main graph's nodes
 * make (element type; rank and dims where known, named dims by their
 * dim_param) to its value_info, for values the model declares nowhere yet
 * (not a graph output, not in value_info); and rewrite the declared shapes
 * (graph outputs, value_info) whose unknown dims inference knows, as a
 * number or a name. *n_written gets the count of both.
 */
int scs_opt_write_shapes(scs_model *m, size_t *n_written);

/*
 * A context on @m for running passes by hand (scs_opt_run does this
 * itself): the snapshot is built; ctx->pass may be set for reports, which
 * are added to *@res (the caller's: scs_opt_end leaves it).
 * Release with scs_opt_end (also after a failed begin: a no-op).
 */
int scs_opt_begin(scs_opt_ctx *ctx, scs_model *m, scs_opt_result *res);
void scs_opt_end(scs_opt_ctx *ctx);

/* SCS_OK when every name is a pass; else SCS_EUSAGE naming the first unknown one and listing the known. */
int scs_opt_check_names(const char *const *names, size_t n);

/* ---- visiting ---- */

typedef int (*scs_opt_node_fn)(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, void *payload);

/*
 * Call @fn on every node of every scope, enclosing scopes before the ones
 * nested in them, each scope's nodes in topological order. Nodes dropped
 * since the last commit, and nodes inside them, are not visited; nodes
 * inserted since are not either. Stops at the first @fn result < 0.
 */
int scs_opt_each_node(scs_opt_ctx *ctx, scs_opt_node_fn fn, void *payload);

/*
 * Call @fn(ctx, scope, node, NULL) on every node that scs_opt_is_op()
 * accepts for @op_type, in scs_opt_each_node's order. @fn returns 1 when
 * it changed (or queued a change of) something, which sets *@changed; 0
 * when not; < 0 on error, which stops the walk.
 */
int scs_opt_each_op(scs_opt_ctx *ctx, const char *op_type, scs_opt_node_fn fn, int *changed);

/*
 * 1 when @node is @op_type of the default domain and passes may touch it:
 * a schema is known for the opset its scope imports, that opset is not
 * newer than the schema table, and no attribute refers to a function's
 * attribute. When the type matches but the node may not be touched, the
 * refusal is reported and 0 returned. 0 for any other node; < 0 on error.
 */
int scs_opt_is_op(scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node, const char *op_type);

/* The opset that scope @scope imports for @domain ("" / "ai.onnx" / NULL: default); 0 when none. */
int64_t scs_opt_opset(const scs_opt_ctx *ctx, int scope, const char *domain);

/* ---- names, definitions, uses ---- */

/* The scope whose definition of @name a reference from scope @scope reads; -1 when none defines it. */
int scs_opt_def_scope(const scs_opt_ctx *ctx, int scope, const char *name);

/* 1 when @name is a graph input of scope @scope (a graph, or a function's input). */
int scs_opt_is_input(const scs_opt_ctx *ctx, int scope, const char *name);

/* 1 when @name, defined in @scope, must keep its name: a graph input or output, or named by a quantization annotation. */
int scs_opt_is_pinned(const scs_opt_ctx *ctx, int scope, const char *name);

/*
 * These three answer from the snapshot of the last commit with pointers into
 * the model: borrowed, valid until the scs_opt_commit() that drops them (a
 * node or initializer a pass queued for removal stays valid until then); do
 * not free them.
 */

/* The node of scope @scope that outputs @name, or NULL (an input, an initializer, undefined). */
Onnx__NodeProto *scs_opt_producer(const scs_opt_ctx *ctx, int scope, const char *name);

/* The initializer @name of scope @scope (a graph), or NULL. */
Onnx__TensorProto *scs_opt_initializer(const scs_opt_ctx *ctx, int scope, const char *name);

/* The node whose attribute holds scope @scope's graph; NULL for a root (main graph, function). */
Onnx__NodeProto *scs_opt_scope_owner(const scs_opt_ctx *ctx, int scope);

enum {
	SCS_OPT_USE_INPUT = 1,              /* a node input */
	SCS_OPT_USE_OUTPUT = 2,             /* a graph (or function) output */
	SCS_OPT_USE_ANNOTATION = 3,         /* a quantization annotation */
};

typedef struct scs_opt_use {
	int kind;
	int scope;                          /* where the reference is */
	Onnx__NodeProto *node;              /* SCS_OPT_USE_INPUT: the reading node */
	size_t index;                       /* INPUT: its input slot; OUTPUT: the output's position */
	int64_t next;                       /* private */
} scs_opt_use;

/*
 * The references to value @name defined in scope @scope, from @scope and
 * every nested scope that does not define @name again: the first, then
 * scs_opt_next_use(); NULL at the end. Borrowed, valid until the next commit.
 */
const scs_opt_use *scs_opt_first_use(const scs_opt_ctx *ctx, int scope, const char *name);
const scs_opt_use *scs_opt_next_use(const scs_opt_ctx *ctx, const scs_opt_use *u);

/* How many references scs_opt_first_use() lists. */
size_t scs_opt_n_uses(const scs_opt_ctx *ctx, int scope, const char *name);

/*
 * A name no scope defines or reads, and none handed out before: @base, or
 * @base with a suffix "_opt<N>". *out is owned by @ctx (valid for the whole
 * run; copy it into the model).
 */
int scs_opt_fresh_name(const char **out, scs_opt_ctx *ctx, const char *base);

/* ---- what is known of a value ---- */

/*
 * Element type and shape of @name as read from scope @scope, into @out
 * (elem 0 and rank -1 where unknown): for the main graph from
 * declarations and inference (infer.h), for nested scopes from the
 * declarations of the defining graph and the constants' own dims.
 * 1 when anything is known, 0 when nothing.
 */
int scs_opt_facts(scs_opt_ctx *ctx, int scope, const char *name, scs_vfacts *out);

/*
 * A declaration of main-graph value @name for a graph input or output: its
 * element type and what inference knows of its dims (named dims by name).
 * 1 and *@out (the caller's: put it into the model, or free it with
 * scs_model_free_part), 0 when its element type is not known.
 */
int scs_opt_declare(Onnx__ValueInfoProto **out, scs_opt_ctx *ctx, const char *name);

/*
 * Whether broadcasting a value of @n dims @dims against a value with facts
 * @x (as Add, Expand, ... do) leaves @x's shape: 1 when it does (n <= the
 * rank, each dim 1 or the same as @x's known dim); 0 when it provably does
 * not (more dims, or a dim other than 1 where @x's known dim differs); -1
 * when that depends on what is not known: *@at is the dim of @x (counted
 * from the front) whose size is not known, or -1 for its rank.
 */
int scs_opt_broadcast_keeps(const scs_vfacts *x, const int64_t *dims, size_t n, int *at);

/* A constant value: an initializer (not a graph input) or a Constant node's value. */
typedef struct scs_opt_const {
	Onnx__TensorProto *t;               /* the tensor; NULL for value_float(s) / value_int(s) */
	Onnx__NodeProto *node;              /* the Constant node; NULL for an initializer */
	const Onnx__AttributeProto *attr;   /* value_float, value_floats, value_int or value_ints; else NULL */
	int scope;                          /* where it is defined */
	int dtype;                          /* element type (SCS_DT_*) */
	size_t rank;
	int64_t n_elems;
} scs_opt_const;

/* Dim @i of @c (i < c->rank). */
int64_t scs_opt_const_dim(const scs_opt_const *c, size_t i);

/*
 * The constant that @name, read from scope @scope, is. 1 and *out when it
 * is one; 0 when not, with the reason in @why (a graph input, an
 * overridable default, a node's output, a sparse or string value, ...).
 */
int scs_opt_constant(scs_opt_const *out, scs_opt_ctx *ctx, int scope, const char *name, char *why, size_t why_len);

/* 1 when scs_opt_read_doubles / _int64s can read element type @dtype (numbers and bool). */
int scs_opt_readable(int dtype);

/*
 * Elements [@first, @first + @count) of @c, converted exactly (doubles hold
 * every float16, bfloat16, float and 32-bit integer exactly; int64 and
 * uint64 above 2^53 round) or, for int64s, truncated toward zero from
 * floating point. Reads through the payload set in pieces of at most
 * SCS_CHUNK_LEN bytes. SCS_ERANGE past the end, SCS_EUNSUPPORTED for a type
 * scs_opt_readable() refuses.
 */
int scs_opt_read_doubles(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, double *out);
int scs_opt_read_int64s(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t first, size_t count, int64_t *out);

/*
 * A new payload written in pieces into the store: open, put elements
 * (any number of calls), finish. Doubles are rounded once, to nearest
 * even, to the element type (float16, bfloat16, float, double; integer
 * types take the value truncated toward zero, wrapped to the width);
 * int64s are stored in the element type's width. The store allows one
 * writer at a time: finish (or abort) one before opening the next.
 */
typedef struct scs_opt_writer {
	scs_opt_ctx *ctx;
	void *w;                            /* scs_store_writer */
	int dtype;
	uint8_t *buf;
	size_t used;
	uint64_t n_elems;
} scs_opt_writer;

int scs_opt_writer_open(scs_opt_writer *w, scs_opt_ctx *ctx, int dtype);
int scs_opt_writer_put_doubles(scs_opt_writer *w, const double *v, size_t n);
int scs_opt_writer_put_int64s(scs_opt_writer *w, const int64_t *v, size_t n);
/* @len bytes already in raw_data's layout for the element type (a whole number of elements). */
int scs_opt_writer_put_raw(scs_opt_writer *w, const void *bytes, size_t len);

/* Bytes [@off, @off + @len) of @c's payload in raw_data's layout, read in pieces; value_float(s) and
 * value_int(s) give their float32 / int64 bytes. SCS_ERANGE past the end. */
int scs_opt_read_raw(scs_opt_ctx *ctx, const scs_opt_const *c, uint64_t off, size_t len, void *out);
/* *payload names the new payload (for scs_opt_tensor_new). Frees @w's resources on every path. */
int scs_opt_writer_finish(uint32_t *payload, scs_opt_writer *w);
/* NULL-safe; a writer never opened or already finished is a no-op. */
void scs_opt_writer_abort(scs_opt_writer *w);

/* ---- building ---- */

/* A new tensor @name (copied) of @dtype and @dims whose data is @payload; NULL on ENOMEM.
 * The caller owns it until scs_opt_add_constant() takes it (on every path);
 * otherwise free it with scs_model_free_message(). */
Onnx__TensorProto *scs_opt_tensor_new(scs_opt_ctx *ctx, const char *name, int dtype, const int64_t *dims, size_t n_dims,
    uint32_t payload);

/*
 * Add constant tensor @t (its name fresh, from scs_opt_fresh_name) to scope
 * @scope: an initializer of a graph, or a Constant node before @before (NULL:
 * first) in a function body. The scope owns @t afterwards, also on failure.
 */
int scs_opt_add_constant(scs_opt_ctx *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *before);

/* A new default-domain node; names are copied; NULL on ENOMEM. Free with scs_opt_node_free unless inserted. */
Onnx__NodeProto *scs_opt_node_new(const char *op_type, const char *name, const char *const *inputs, size_t n_inputs,
    const char *const *outputs, size_t n_outputs);
void scs_opt_node_free(scs_opt_ctx *ctx, Onnx__NodeProto *node);

/* Put @node into scope @scope before @before (NULL: at the end). The scope owns it afterwards, also on failure. */
int scs_opt_insert_node(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *before, Onnx__NodeProto *node);

/* Set (add or replace) attribute @name of @node. */
int scs_opt_set_attr_int(Onnx__NodeProto *node, const char *name, int64_t v);
int scs_opt_set_attr_float(Onnx__NodeProto *node, const char *name, float v);
int scs_opt_set_attr_ints(Onnx__NodeProto *node, const char *name, const int64_t *v, size_t n);

/* ---- editing (applied by scs_opt_commit) ---- */

/* Make input @i of @node read @name now (the old name is freed at the commit); an @i past the
 * last input adds it (optional inputs in between left out, ""). */
int scs_opt_set_input(scs_opt_ctx *ctx, Onnx__NodeProto *node, size_t i, const char *name);

/* Make the string *@slot of the model (a name, an op type) a copy of @name now; the old one, which may key the
 * snapshot, is freed at the commit (never free such a string in place between commits). */
int scs_opt_set_name(scs_opt_ctx *ctx, char **slot, const char *name);

/* Remove @node of scope @scope (with the graphs in its attributes) at the commit. */
int scs_opt_drop_node(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node);

/* 1 when @node, or a node it is nested in, is to be dropped at the commit. */
int scs_opt_is_dropped(const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *node);

/* Remove initializer @t of scope @scope at the commit. */
int scs_opt_drop_initializer(scs_opt_ctx *ctx, int scope, Onnx__TensorProto *t);

/*
 * Make every reference to the value @from defined in scope @scope read @to
 * (a name visible in @scope) at the commit, in @scope and every scope
 * nested in it that does not define @from again.
 * 1 when queued; 0 when a scope in between defines @to (the rename would
 * capture it) or the rename chains with another queued one (*why says
 * which; the chaining case asks the driver for another round).
 */
int scs_opt_rename(scs_opt_ctx *ctx, int scope, const char *from, const char *to, char *why, size_t why_len);

/*
 * Rename the value defined at *@slot (a node output or an initializer's
 * name in scope @scope) to @to, with every reference to it, at the commit.
 * As scs_opt_rename for the return value.
 */
int scs_opt_rename_def(scs_opt_ctx *ctx, int scope, char **slot, const char *to, char *why, size_t why_len);

/*
 * For a node that passes input @in through unchanged as output @out
 * (Identity, a no-op Cast, Dropout in inference, ...): make every reader
 * of the output read the input, and drop the node. When the output must
 * keep its name (a graph output, a nested body's output, an annotation),
 * the input's producer in the same scope is renamed to it instead; when
 * the input is an initializer of the main graph (IR 4 and above) and the
 * output a graph output, the initializer is. Other outputs of the node
 * must be unread.
 * 1 when queued (and reported); 0 when refused (and reported, with the
 * reason: e.g. an output that must keep its name fed by a graph input, a
 * nested body's initializer or an outer-scope value, since a graph output may not name
 * an outer value directly); < 0 on error.
 */
int scs_opt_forward(scs_opt_ctx *ctx, int scope, Onnx__NodeProto *node, size_t in, size_t out);

/* The model was edited in place (not through these tools): the next commit rebuilds the snapshot. */
void scs_opt_touch(scs_opt_ctx *ctx);

/* Ask for another round although nothing changed (an edit waits for another's commit). */
void scs_opt_defer(scs_opt_ctx *ctx);

/*
 * Apply what was queued: renames, then dropped initializers and nodes
 * (nested ones first), then rebuild the snapshot (scopes, uses, producers,
 * shapes). Value info of values that no longer exist is removed. A pass
 * that removed or freed parts of the model in place (not through the
 * queue) commits with nothing queued: then only the snapshot is rebuilt,
 * and the stale one is not looked at.
 */
int scs_opt_commit(scs_opt_ctx *ctx);

/* ---- reporting ---- */

/*
 * Record what the running pass did to @node (NULL: the value @value, or,
 * both NULL, the graph) of scope @scope when @refusal is 0, or what it left
 * alone and why when 1. The subject names the node (name and op type) or
 * the value and, for nested scopes, the graph it is in. A refusal already
 * reported for the same subject is not repeated in later rounds.
 */
int scs_opt_report(scs_opt_ctx *ctx, int refusal, int scope, const Onnx__NodeProto *node, const char *value,
    const char *fmt, ...) SCS_PRINTF(6, 7);

#define scs_opt_did(ctx, scope, node, ...) scs_opt_report((ctx), 0, (scope), (node), NULL, __VA_ARGS__)
#define scs_opt_refuse(ctx, scope, node, ...) scs_opt_report((ctx), 1, (scope), (node), NULL, __VA_ARGS__)
#define scs_opt_did_value(ctx, scope, name, ...) scs_opt_report((ctx), 0, (scope), NULL, (name), __VA_ARGS__)
#define scs_opt_refuse_value(ctx, scope, name, ...) scs_opt_report((ctx), 1, (scope), NULL, (name), __VA_ARGS__)

#endif
