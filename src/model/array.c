/*
 * array.c: protobuf-c list helpers (see array.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "model/array.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/err.h"

int
scs_array_insert(void *arr, size_t *n, void *item, int front)
{
	void ***a = arr, **grown;
	size_t cap = 4;

	/*
	 * The array's capacity is not recorded (protobuf-c allocates exactly
	 * *n), so ask for the next power of two each time: realloc leaves a
	 * block already that large in place, and appends cost amortized O(1).
	 */
	while (cap < *n + 1)
		cap *= 2;
	if ((grown = scs_arena_grow(*a, *n * sizeof(void *), cap * sizeof(void *))) == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot grow a message list");
	if (front) {
		memmove(grown + 1, grown, *n * sizeof(void *));
		grown[0] = item;
	} else {
		grown[*n] = item;
	}
	*a = grown;
	(*n)++;
	return SCS_OK;
}

Onnx__StringStringEntryProto *
scs_entry_new(const char *key, const char *value)
{
	Onnx__StringStringEntryProto *e = malloc(sizeof(*e));

	if (e == NULL)
		return NULL;
	onnx__string_string_entry_proto__init(e);
	e->key = strdup(key);
	e->value = strdup(value);
	if (!e->key || !e->value) {
		protobuf_c_message_free_unpacked(&e->base, NULL);
		return NULL;
	}
	return e;
}
