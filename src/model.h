/*
 * model.h: the skeleton in memory (a protobuf-c ModelProto without payload
 * bytes), its payloads, and the graph facts passes share: every tensor,
 * every scope (the main graph, nested If/Loop/Scan bodies, function bodies)
 * with the names it defines, and scope-aware renaming.
 *
 * A tensor's payload is referenced through raw_data: raw_data.len is the
 * payload's length and raw_data.data points into a reserved, inaccessible
 * address range at offset = payload id. So packed sizes computed by
 * protobuf-c are the real sizes, and emit.c recognises the reference when
 * protobuf-c hands it the field. Never dereference such a pointer.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_MODEL_H
#define SCS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "payload.h"
#include "scan.h"
#include "strmap.h"

typedef struct scs_model {
	Onnx__ModelProto *proto;
	scs_payloads *payloads;   /* shared by every model made from or with the owner */
	uint8_t *refs;            /* reserved range (see above), shared likewise */
	char *path;               /* NULL for a model made in memory */
	int owner;                /* 1: this model frees payloads and refs */
} scs_model;

/* Scan @path into a model; typed payloads (and, with opts->hold_bytes,
 * all payloads) go into @store, which must outlive the model. *out is the
 * caller's until scs_model_free(). */
int scs_model_load(scs_model **out, const char *path, scs_store *store, const scs_scan_options *opts);

/* Scan @path into a model whose payloads join @owner's set (so tensors of
 * both can be compared and moved between them). Free it (scs_model_free())
 * before @owner. */
int scs_model_load_with(scs_model **out, const char *path, const scs_model *owner, const scs_scan_options *opts);

/* An empty model (no proto yet) sharing @owner's payloads. Free it
 * (scs_model_free()) before @owner. */
int scs_model_new_with(scs_model **out, const scs_model *owner);

/* NULL is a no-op. */
void scs_model_free(scs_model *m);

/* 1 and *id when @t references a payload, 0 when its data is inline. */
int scs_model_payload_of(const scs_model *m, const Onnx__TensorProto *t, uint32_t *id);

/* 1 and *id when @p is a payload reference (see above), 0 when not. */
int scs_model_ref_id(const scs_model *m, const void *p, uint32_t *id);

/* Make @t reference payload @id (dropping any inline data it had). */
void scs_model_set_payload(scs_model *m, Onnx__TensorProto *t, uint32_t id);

/* Element count of @t; -1 when a dim is negative or the count overflows. */
int64_t scs_tensor_elems(const Onnx__TensorProto *t);

/* 1 when @a and @b have the same element type, dims and contents (payload
 * bytes compared byte for byte, or strings), 0 when not, < 0 on error. */
int scs_tensors_equal(const scs_model *m, const Onnx__TensorProto *a, const Onnx__TensorProto *b);

/* Call @fn on every TensorProto in the model (initializers, attribute
 * tensors, sparse tensors, nested graphs, functions, training info) until it
 * returns non-zero, which is then returned. */
typedef int (*scs_tensor_fn)(void *ctx, Onnx__TensorProto *t);
int scs_model_each_tensor(Onnx__ModelProto *m, scs_tensor_fn fn, void *ctx);

/* A deep copy of @msg (any message of @m's tree), payload references
 * included; NULL on ENOMEM. The caller owns it: put it into @m's tree (which
 * then frees it) or free it with scs_model_free_message(). */
ProtobufCMessage *scs_model_copy(const scs_model *m, ProtobufCMessage *msg);

/* A deep copy of tensor @src (type, dims, data) named @name; NULL on ENOMEM.
 * The caller owns it: put it into @m's tree (which then frees it) or free it
 * with scs_model_free_message(). */
Onnx__TensorProto *scs_tensor_copy_named(const scs_model *m, Onnx__TensorProto *src, const char *name);

/*
 * Insert @item into a protobuf-c repeated message field whose array is
 * *@arr (pass &msg->field) and count *@n: at the end, or first when
 * @front. SCS_ENOMEM (the item is not freed).
 */
int scs_array_insert(void *arr, size_t *n, void *item, int front);

/* A new key/value entry (metadata_props, external_data); NULL on ENOMEM.
 * The caller owns it until it is put into a message (which then frees it);
 * free it alone with protobuf_c_message_free_unpacked(&e->base, NULL). */
Onnx__StringStringEntryProto *scs_entry_new(const char *key, const char *value);

/* Free a protobuf-c message that may hold payload references. */
void scs_model_free_message(const scs_model *m, ProtobufCMessage *msg);

/* The default domain, spelled "" or "ai.onnx". */
int scs_is_onnx_domain(const char *domain);

/* Opset version the model imports for @domain; 0 when none. */
int64_t scs_model_opset(const Onnx__ModelProto *m, const char *domain);

/* ---- scopes ---- */

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

/*
 * A set of renames, each valid from its scope down, until a nested scope
 * defines the old name again (shadowing). Applied in one walk.
 */
typedef struct scs_rename {
	int scope;
	const char *from;             /* borrowed */
	char *to;                     /* owned */
	int64_t next;                 /* the previous rename of the same name, or -1 */
} scs_rename;

typedef struct scs_renames {
	scs_rename *items;
	size_t n, cap;
	scs_strmap last;              /* from -> newest index in items */
} scs_renames;

int scs_renames_add(scs_renames *r, int scope, const char *from, const char *to);
void scs_renames_dispose(scs_renames *r);

/* Rewrite every reference (node inputs, graph outputs of nested scopes,
 * the names in quantization annotations) the renames cover, and drop
 * value_info entries of renamed names. */
int scs_renames_apply(scs_renames *r, scs_scopes *s);

/* Replace the string *@slot (freed) with a copy of @to; SCS_ENOMEM leaves it. */
int scs_name_swap(char **slot, const char *to);

/* The name a reference to @name in scope @at becomes under @r, or NULL when none covers it.
 * Borrowed from @r: valid until scs_renames_dispose(@r); do not free it. */
const char *scs_renames_lookup(const scs_renames *r, const scs_scopes *s, int at, const char *name);

/* The tensor of a Constant node's 'value' attribute, or NULL when @n is not
 * such a node. Borrowed from @n: it lives as long as that attribute; do not
 * free it. */
Onnx__TensorProto *scs_node_constant(const Onnx__NodeProto *n);

/* Call @fn for every constant of every scope: a graph's initializers
 * (@node NULL), then its Constant nodes, until @fn returns non-zero. */
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
