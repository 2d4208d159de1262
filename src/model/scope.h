/*
 * scope.h: the scopes of a model (the main graph, nested If/Loop/Scan bodies,
 * function bodies) with the names each defines, and the constants in them.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SCOPE_H
#define SCS_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "util/strmap.h"

typedef struct scs_scope {
	Onnx__GraphProto *graph;      /* NULL for a function body */
	Onnx__FunctionProto *func;    /* the function, for a function body */
	int parent;                   /* -1 for a root (main graph, function, training graph) */
	int depth;
	scs_strmap defs;              /* names defined here: inputs, initializers, node outputs */
	scs_strmap pinned;            /* names that must keep their definition: inputs and outputs */
	scs_strmap inputs;            /* a graph's inputs */
} scs_scope;

typedef struct scs_scopes {
	scs_scope *items;
	size_t n;
} scs_scopes;

/* Node array and count of a scope (graph or function body): pointers to the
 * fields of its graph or function (*@n to the count), so that the caller may
 * grow or shrink the array. They live as long as that message; do not free
 * them. */
Onnx__NodeProto ***scs_scope_nodes(scs_scope *s, size_t **n);

/* Index every scope of @m. Scopes refer into @m: rebuild after edits that
 * add or remove definitions. */
int scs_scopes_build(scs_scopes *out, Onnx__ModelProto *m);
void scs_scopes_dispose(scs_scopes *s);

/* Index of the scope of graph @g, or -1. */
int scs_scopes_of(const scs_scopes *s, const Onnx__GraphProto *g);

/* 1 when scope @a is @b or encloses it. */
int scs_scope_encloses(const scs_scopes *s, int a, int b);

/* Nearest scope enclosing both @a and @b (-1 when they share no root). */
int scs_scope_common(const scs_scopes *s, int a, int b);

/* The tensor of a Constant node's 'value' attribute, or NULL when @n is not
 * such a node. Borrowed from @n: it lives as long as that attribute; do not
 * free it. */
Onnx__TensorProto *scs_node_constant(const Onnx__NodeProto *n);

/* Call @fn for every constant of every scope: a graph's initializers
 * (@node NULL; a sealed one as a view, which @fn passes to
 * scs_sealed_keep() to keep it, model.h), then its Constant nodes, until
 * @fn returns non-zero. */
typedef int (*scs_constant_fn)(void *ctx, int scope, Onnx__TensorProto *t, Onnx__NodeProto *node,
    const char *name);
int scs_scopes_each_constant(scs_scopes *s, scs_constant_fn fn, void *ctx);

/* Remove (and free) initializer @t or node @node from scope @s; 0 when it
 * was not there. */
int scs_scope_drop_initializer(const scs_model *m, scs_scope *s, Onnx__TensorProto *t);
int scs_scope_drop_node(const scs_model *m, scs_scope *s, Onnx__NodeProto *node);

/* 1 when @name is defined in any scope of @s. */
int scs_scopes_defined_anywhere(const scs_scopes *s, const char *name);

#endif
