/*
 * strmap.h: an open-addressing map from NUL-terminated strings to an
 * integer, for name indices. Keys are borrowed: they must outlive the map.
 * A map whose values are all 1 (a set of names) keeps no values: 8 bytes a
 * slot instead of 16, until another value is put.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_STRMAP_H
#define SCS_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct scs_strmap {
	const char **keys;
	int64_t *vals;      /* NULL: every value is 1 */
	size_t n, cap;
} scs_strmap;

#define SCS_STRMAP_INIT { NULL, NULL, 0, 0 }

/* 1 when @s is one of the strings of @list (ended by NULL). */
int scs_str_listed(const char *s, const char *const *list);

/* Insert or overwrite; SCS_ENOMEM. */
int scs_strmap_put(scs_strmap *m, const char *key, int64_t val);
/* Make room for @n keys in all, so that putting them grows nothing; SCS_ENOMEM. */
int scs_strmap_reserve(scs_strmap *m, size_t n);
/* 1 and *val when present, 0 when not (val may be NULL). */
int scs_strmap_get(const scs_strmap *m, const char *key, int64_t *val);
void scs_strmap_dispose(scs_strmap *m);

/*
 * A name no one has yet (malloc'd; NULL on ENOMEM): @base itself when
 * @try_base and @taken(@ctx, @base) says 0 (an empty name is never fresh),
 * else the first of @base@suffix1, @base@suffix2, ... @taken says 0 to.
 * The one generator of new names (the optimizer's NAME_opt1, the merge's
 * NAME_scs1).
 */
char *scs_fresh_name(const char *base, const char *suffix, int (*taken)(void *ctx, const char *name), void *ctx,
    int try_base);

#endif
