/*
 * strmap.c: string-keyed open-addressing map (see strmap.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "util/strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/err.h"

static uint64_t
str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	/* FNV's low bits mix poorly (the table indexes by them): finish with a full avalanche */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static size_t
slot(const scs_strmap *m, const char *key)
{
	size_t i = (size_t)str_hash(key) & (m->cap - 1);

	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Move the keys into a table of @cap slots (a power of two). */
static int
grow_to(scs_strmap *m, size_t cap)
{
	scs_strmap bigger = { NULL, NULL, 0, cap };
	size_t i, j;

	if ((bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys))) == NULL ||
	    (m->vals && (bigger.vals = malloc(bigger.cap * sizeof(*bigger.vals))) == NULL)) {
		free(bigger.keys);
		return scs_err_set(SCS_ENOMEM, "cannot grow a name index");
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		j = slot(&bigger, m->keys[i]);
		bigger.keys[j] = m->keys[i];
		if (m->vals)
			bigger.vals[j] = m->vals[i];
		bigger.n++;
	}
	free(m->keys);
	free(m->vals);
	*m = bigger;
	return SCS_OK;
}

int
scs_strmap_reserve(scs_strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while ((n + 1) * 2 > cap) {
		if (cap > SIZE_MAX / 4)
			return scs_err_set(SCS_ENOMEM, "cannot grow a name index");
		cap *= 2;
	}
	return cap > m->cap ? grow_to(m, cap) : SCS_OK;
}

int
scs_strmap_put(scs_strmap *m, const char *key, int64_t val)
{
	size_t i;
	int rc;

	if ((m->n + 1) * 2 > m->cap && (rc = grow_to(m, m->cap ? m->cap * 2 : 64)) < 0)
		return rc;
	if (val != 1 && m->vals == NULL) {
		if ((m->vals = malloc(m->cap * sizeof(*m->vals))) == NULL)
			return scs_err_set(SCS_ENOMEM, "cannot grow a name index");
		for (i = 0; i < m->cap; i++)
			m->vals[i] = 1;
	}
	i = slot(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->n++;
	}
	if (m->vals)
		m->vals[i] = val;
	return SCS_OK;
}

int
scs_strmap_get(const scs_strmap *m, const char *key, int64_t *val)
{
	size_t i;

	if (m->cap == 0)
		return 0;
	i = slot(m, key);
	if (!m->keys[i])
		return 0;
	if (val)
		*val = m->vals ? m->vals[i] : 1;
	return 1;
}

int
scs_str_listed(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

void
scs_strmap_dispose(scs_strmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

char *
scs_fresh_name(const char *base, const char *suffix, int (*taken)(void *ctx, const char *name), void *ctx,
    int try_base)
{
	size_t len = strlen(base) + strlen(suffix) + 32;
	char *name = malloc(len);

	if (name == NULL)
		return NULL;
	if (try_base) {
		snprintf(name, len, "%s", base);
		if (name[0] != '\0' && !taken(ctx, name))
			return name;
	}
	for (unsigned i = 1;; i++) {
		snprintf(name, len, "%s%s%u", base, suffix, i);
		if (!taken(ctx, name))
			return name;
	}
}
