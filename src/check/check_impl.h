/*
 * check_impl.h: what the checker's files share: the walk's state (the
 * model, the opsets in force, whether the graph is the main one), the
 * lexical scopes of names, and the one way a problem is recorded.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_CHECK_IMPL_H
#define SCS_CHECK_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "check/check.h"
#include "util/err.h"
#include "util/strmap.h"

/* The opsets in force: the model's, or a function's. A domain listed twice
 * counts with its last version. */
typedef struct chk_opsets {
	const char **domains;
	int64_t *versions;
	size_t n;
} chk_opsets;

/* The names a graph defines, with the scope it lies in (NULL for a root). */
typedef struct chk_lex {
	scs_strmap names;
	const struct chk_lex *parent;
} chk_lex;

/* Where a problem lies: a graph (by path) and maybe a node of it. */
typedef struct chk_where {
	const char *graph;                  /* NULL: the model itself */
	const Onnx__NodeProto *node;        /* NULL: not about a node */
	size_t index;                       /* the node's index in its graph */
} chk_where;

typedef struct chk {
	const scs_model *m;
	const scs_check_cfg *cfg;
	scs_check_findings *out;
	size_t max;
	int64_t ir;
	const chk_opsets *opsets;           /* in force */
	int main_graph;                     /* 1: checking the main graph (or a function), not a subgraph */
	int rc;                             /* the first error (SCS_ENOMEM) */
} chk;

/* Record a problem of @rule at @w (printf-style sentence). */
void chk_problem(chk *c, int rule, const chk_where *w, const char *fmt, ...) SCS_PRINTF(4, 5);

/* Names: 1 when @name is defined in @l itself / in @l or a scope around it. */
int chk_lex_here(const chk_lex *l, const char *name);
int chk_lex_seen(const chk_lex *l, const char *name);
/* Define @name in @l (borrowed: it must outlive @l); c->rc on ENOMEM. */
void chk_lex_add(chk *c, chk_lex *l, const char *name);

/* Version of @domain in @o (exact spelling); -1 when not imported. */
int64_t chk_opset(const chk_opsets *o, const char *domain);

/* Graph @g at @path (the main graph when c->main_graph), the names of
 * @parent in scope; node @n at @w (check_node.c), the names of @lex in scope
 * for its subgraphs. */
void chk_graph(chk *c, const Onnx__GraphProto *g, const char *path, const chk_lex *parent);
void chk_node(chk *c, const Onnx__NodeProto *n, const chk_where *w, const chk_lex *lex);

/* Tensors (check_tensor.c): @t (described by @what, such as "initializer
 * 'w'") by the tensor rules; a sparse tensor by the sparse rules. */
void chk_tensor(chk *c, const Onnx__TensorProto *t, const chk_where *w, const char *what);
void chk_sparse(chk *c, const Onnx__SparseTensorProto *s, const chk_where *w, const char *what);

/* --full (check_infer.c): the main graph's type and shape contradictions. */
void chk_infer(chk *c);

/* Element count of dims @dims (@n of them): 0 and *out, or -1 when a dim is
 * negative or the count overflows. */
int chk_elems(const int64_t *dims, size_t n, int64_t *out);

#endif
