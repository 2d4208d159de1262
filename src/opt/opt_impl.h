/*
 * opt_impl.h: the optimizer's private state and the functions its own
 * files share: opt.c (the table, driver and record), opt_snapshot.c,
 * opt_const.c and opt_edit.c. Internal to those four: the passes
 * (opt/passes/) and fuse.c see the optimizer through opt.h only.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_OPT_IMPL_H
#define SCS_OPT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "opt/opt.h"
#include "model/rename.h"
#include "util/strmap.h"

/* A set of pointers (open addressing; NULL is never a member). */
typedef struct ptrset {
	const void **items;
	size_t n, cap;
} ptrset;

typedef struct queued_drop {
	int scope;
	Onnx__NodeProto *node;              /* or */
	Onnx__TensorProto *init;
} queued_drop;

typedef struct slot_rename {
	char **slot;                        /* a node output or an initializer's name */
	char *to;                           /* owned */
} slot_rename;

struct scs_opt_state {
	/* the snapshot: per scope (n_scopes of each), rebuilt by scs_opt_refresh() */
	size_t n_scopes;
	scs_strmap *first_use;              /* name defined here -> index into uses */
	scs_strmap *producer;               /* node output -> index into producers */
	Onnx__NodeProto **producers;
	size_t n_producers, cap_producers;
	scs_strmap *init;                   /* initializer name -> index into inits */
	Onnx__TensorProto **inits;
	size_t n_inits, cap_inits;
	Onnx__NodeProto **owner;
	const char **attr_name;
	char **label;
	Onnx__NodeProto ***order;           /* nodes in topological order */
	size_t *n_order;
	char **cycle;                       /* the cycle message of a scope, or NULL */
	scs_opt_use *uses;
	size_t n_uses, cap_uses;
	scs_strmap names;                   /* every name defined or read */
	scs_infer infer;
	int have_infer;

	/* queued since the last commit */
	scs_renames renames;
	scs_strmap targets;                 /* names a queued rename leads to */
	slot_rename *slots;
	size_t n_slots, cap_slots;
	queued_drop *drops;
	size_t n_drops, cap_drops;
	ptrset dropped;
	char **garbage;
	size_t n_garbage, cap_garbage;
	int dirty;
	int deferred;

	/* the whole run */
	char **owned;                       /* fresh names and refusal keys */
	size_t n_owned, cap_owned;
	scs_strmap taken;
	scs_strmap refused;
	uint8_t *rbuf;
};


/* ---- small containers (opt_snapshot.c) ---- */

/* Make room for one more element of @size in *@arr (count @n, capacity *@cap). */
int scs_opt_grow(void *arr, size_t *cap, size_t n, size_t size);

/* @p in @s; add @p to @s; free @s's memory (it is empty afterwards). */
int scs_opt_ptrset_has(const ptrset *s, const void *p);
int scs_opt_ptrset_add(ptrset *s, const void *p);
void scs_opt_ptrset_dispose(ptrset *s);

/* ---- state and snapshot (opt_snapshot.c) ---- */

/* Free the snapshot (kept: the queue and what the whole run holds). */
void scs_opt_snapshot_dispose(scs_opt_ctx *ctx);

/* Keep @s (malloc'd; NULL: SCS_ENOMEM) until the end of the run; freed on failure too. */
int scs_opt_own(scs_opt_ctx *ctx, char *s);

/* "node 'n' (Op)" or "Op node writing 'y'", then where it is. */
void scs_opt_subject_of(char *out, size_t len, const scs_opt_ctx *ctx, int scope, const Onnx__NodeProto *n);

/* Rebuild the snapshot from the model. */
int scs_opt_refresh(scs_opt_ctx *ctx);

/* ---- the queue (opt_edit.c) ---- */

/* Forget what was queued since the last commit. */
void scs_opt_queue_dispose(scs_opt_state *st);

#endif
