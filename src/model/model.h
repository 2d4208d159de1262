/*
 * model.h: the skeleton in memory (a protobuf-c ModelProto without payload
 * bytes), its payloads, every tensor in it, and deep copies. Scopes are in
 * scope.h, renaming in rename.h, repeated-field helpers in array.h, the
 * descriptor walk in walk.h.
 *
 * A tensor's payload is referenced by value: the tensor's private field
 * scs_payload (proto/onnx.proto) holds the payload's id in the set, and its
 * raw_data is empty. The id travels with copies (protobuf-c packs and
 * unpacks it like any field) and needs nothing special to free. Only
 * src/onnx/pack.c turns the reference into bytes: it writes the payload as
 * raw_data and never the private field, so a skeleton is sized with
 * scs_pack_size() and written with scs_pack_write(), never with
 * protobuf-c's packing, which knows nothing of payloads.
 *
 * A loaded model's messages, strings and small arrays lie in an arena
 * (arena.h) that lives as long as the model owning the payloads: drop a
 * piece of the tree with scs_arena_release() or scs_model_free_part(), and
 * grow an array of it with scs_arena_grow(), never with free() or realloc().
 * A model loaded for shrinking keeps its main graph's initializers sealed,
 * as small records instead of tensors (sealed.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_MODEL_H
#define SCS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "onnx.pb-c.h"
#include "onnx/pack.h"
#include "io/payload.h"
#include "onnx/scan.h"
#include "model/sealed.h"
#include "util/strmap.h"
#include "onnx/walk.h"

typedef struct scs_model {
	Onnx__ModelProto *proto;
	scs_payloads *payloads;   /* shared by every model made from or with the owner */
	scs_arena *arena;         /* the unpacked trees, shared likewise */
	char *path;               /* NULL for a model made in memory */
	int owner;                /* 1: this model frees payloads and the arena */
	struct scs_sealed *sealed;   /* the main graph's sealed initializers (sealed.h); NULL: none */
} scs_model;

/* Scan @path into a model; typed payloads (and, with opts->hold_bytes,
 * all payloads) go into @store, which must outlive the model. *out is the
 * caller's until scs_model_free(). */
int scs_model_load(scs_model **out, const char *path, scs_store *store, const scs_scan_options *opts);

/* scs_model_load() keeping the main graph's initializers sealed (above). */
int scs_model_load_sealed(scs_model **out, const char *path, scs_store *store, const scs_scan_options *opts);

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

/* Make @t reference payload @id of @m's set (dropping any inline raw_data
 * it had). */
void scs_model_set_payload(scs_model *m, Onnx__TensorProto *t, uint32_t id);

/* Bytes @msg (any message of @m's tree) takes when written: payloads at
 * their length (scs_pack_size()). */
uint64_t scs_model_packed_size(const scs_model *m, const ProtobufCMessage *msg);

/* Element count of @t; -1 when a dim is negative or the count overflows. */
int64_t scs_tensor_elems(const Onnx__TensorProto *t);

/* 1 when @a and @b have the same element type, dims and contents (payload
 * bytes compared byte for byte, or strings), 0 when not, < 0 on error. */
int scs_tensors_equal(const scs_model *m, const Onnx__TensorProto *a, const Onnx__TensorProto *b);

/* Call @fn on every TensorProto in the model (initializers, attribute
 * tensors, sparse tensors, nested graphs, functions, training info) until it
 * returns non-zero, which is then returned (scs_walk_tensors on the model). */
int scs_model_each_tensor(Onnx__ModelProto *m, scs_tensor_fn fn, void *ctx);

/* The same tensors in the order a data file places their payloads: the
 * main graph's initializers first (sealed ones included), in the writer's
 * runs (scs_pack_init_run(): the order the model file lists them), then
 * every other tensor in scs_model_each_tensor()'s order (Constant nodes,
 * nested graphs, functions, ...). Initializers first, as a dedup keeps an
 * initializer over a Constant node of the same value and the optimizer
 * makes Constant nodes initializers at the end of the list: what a data
 * file written before the passes ran (payload.h, "spill") expects. */
int scs_model_each_placed(Onnx__ModelProto *m, scs_tensor_fn fn, void *ctx);

/* A deep copy of @msg (any message of @m's tree), payload references
 * included; NULL on ENOMEM. The caller owns it: put it into @m's tree (which
 * then frees it) or free it with scs_model_free_message(). */
ProtobufCMessage *scs_model_copy(const scs_model *m, ProtobufCMessage *msg);

/* scs_model_copy() into @m's arena: for copies that stay until the payload
 * owner is freed (split's shards, merge's output), without a malloc header
 * on each piece; freeing it gives nothing back before then. */
ProtobufCMessage *scs_model_copy_kept(const scs_model *m, ProtobufCMessage *msg);

/* A deep copy of tensor @src (type, dims, data) named @name; NULL on ENOMEM.
 * The caller owns it: put it into @m's tree (which then frees it) or free it
 * with scs_model_free_message(). */
Onnx__TensorProto *scs_tensor_copy_named(const scs_model *m, Onnx__TensorProto *src, const char *name);

/* Free a message of @m's tree that is not in the tree (or the tree's
 * root); its pieces may lie in the arena (payload references are plain
 * values: nothing else to do). NULL is a no-op. */
void scs_model_free_message(const scs_model *m, ProtobufCMessage *msg);

/* The same without the model: protobuf_c_message_free_unpacked() for a
 * message whose pieces may lie in an arena. */
void scs_model_free_part(ProtobufCMessage *msg);

/* The default domain, spelled "" or "ai.onnx". */
int scs_is_onnx_domain(const char *domain);

/* Opset version the model imports for @domain; 0 when none. */
int64_t scs_model_opset(const Onnx__ModelProto *m, const char *domain);

#endif
