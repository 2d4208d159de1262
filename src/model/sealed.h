/*
 * sealed.h: a loaded model's sealed initializers (see below), their own API;
 * model.h includes it, and its loader (model.c) makes the records.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SEALED_H
#define SCS_SEALED_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "onnx.pb-c.h"
#include "onnx/pack.h"

typedef struct scs_model scs_model;

/*
 * Sealed initializers. A model loaded with scs_model_load_sealed() keeps
 * each initializer of its main graph that holds nothing but a name, dims,
 * an element type and a payload reference as a record of those values
 * (about 50 bytes for a small constant, where its unpacked TensorProto
 * takes about 270); any other initializer gets a record that is opened
 * from the start. The graph's initializers are then its initializer list
 * followed by the live records, in order (a record may be removed).
 *
 * Code that knows of records: scopes (scope.h: names, each constant),
 * scs_model_each_tensor(), the dedup and downcast passes, and the writer
 * (scs_model_pack_more()). A constant they see through a record is a view,
 * valid until the next one is asked for; scs_sealed_keep() makes a tensor
 * that stays. Anything else calls scs_model_unseal() first, which puts every
 * record into the initializer list as a tensor. Records are found by their
 * graph in a list of the thread (a call makes, uses and frees its models in
 * its own thread; arena.h).
 */
typedef struct scs_sealed_tensor {
	Onnx__TensorProto *open;  /* once opened: the tensor that stands for the record */
	uint32_t payload;
	int32_t data_type;
	uint32_t n_dims;          /* the dims follow, then the name (NUL-terminated) */
	uint8_t removed;          /* 1: no longer in the graph */
} scs_sealed_tensor;

struct scs_sealed {
	Onnx__GraphProto *graph;  /* the main graph the records belong to */
	scs_sealed_tensor **items;
	size_t n, cap;
	scs_arena *arena;         /* where records and opened tensors lie */
	Onnx__TensorProto view;   /* the view handed out last ... */
	scs_sealed_tensor *viewed;   /* ... of this record */
};
typedef struct scs_sealed scs_sealed;

/* The records of graph @g; NULL when it has none. */
scs_sealed *scs_sealed_of(const Onnx__GraphProto *g);

/* Record @i of @s as a tensor: the opened one, or a view (valid until the
 * next call on @s); NULL when the record was removed. */
Onnx__TensorProto *scs_sealed_get(scs_sealed *s, size_t i);

/* The name record @r defines. */
const char *scs_sealed_name(const scs_sealed_tensor *r);

/* A tensor that stays for @t: @t itself, or, when @t is a view, the
 * record's tensor opened (NULL on ENOMEM). */
Onnx__TensorProto *scs_sealed_keep(Onnx__TensorProto *t);

/* Add @t (the graph's from now on) at the end of @s's records, as the last
 * of the graph's initializers; SCS_ENOMEM (@t is then still the caller's). */
int scs_sealed_append(scs_sealed *s, Onnx__TensorProto *t);

/* Remove the records whose opened tensors are among @gone (sorted by
 * address), freeing those tensors. */
void scs_sealed_drop(scs_sealed *s, void *const *gone, size_t n_gone);

/* Put every live record of @m into its main graph's initializer list, after
 * what the list holds, and forget the records; nothing when there are none.
 * SCS_ENOMEM. */
int scs_model_unseal(scs_model *m);

/* The writer's hook for @m's records (pack.h); 0 when there are none. */
int scs_model_pack_more(const scs_model *m, scs_pack_more *out);

/* For the loader (model.c). */

/* Add @s to the thread's list, where scs_sealed_of() finds it; SCS_ENOMEM. */
int scs_sealed_register(scs_sealed *s);

/* Take @s off the thread's list. */
void scs_sealed_unregister(const scs_sealed *s);

/* Room for one more record in @s; SCS_ENOMEM. */
int scs_sealed_reserve(scs_sealed *s);

/* A record of initializer @t, which is @alloc's: sealed when it can be
 * (then @t is freed), opened with @t otherwise. NULL on ENOMEM. */
scs_sealed_tensor *scs_sealed_record(scs_arena *arena, Onnx__TensorProto *t);

/* Free @s with the tensors of its live records (not registered, or no longer). */
void scs_sealed_free(scs_sealed *s);

#endif
