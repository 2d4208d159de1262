/*
 * rename.h: scope-aware renaming: a set of renames, each valid from its scope
 * down, applied to every reference in one walk.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_RENAME_H
#define SCS_RENAME_H

#include <stddef.h>
#include <stdint.h>

#include "model/scope.h"
#include "util/strmap.h"

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

#endif
