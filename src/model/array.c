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
#include "onnx/attr.h"
#include "model/model.h"

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

int
scs_attr_put(Onnx__NodeProto *n, Onnx__AttributeProto *a)
{
	Onnx__AttributeProto **slot;

	if (a == NULL)
		return scs_err_set(SCS_ENOMEM, "cannot make an attribute");
	if ((slot = scs_attr_slot(n, a->name)) != NULL) {
		scs_model_free_part(&(*slot)->base);
		*slot = a;
		return SCS_OK;
	}
	if (scs_array_insert(&n->attribute, &n->n_attribute, a, 0) < 0) {
		protobuf_c_message_free_unpacked(&a->base, NULL);
		return scs_err_set(SCS_ENOMEM, "cannot add an attribute");
	}
	return SCS_OK;
}

int
scs_attr_put_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = scs_attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);

	if (a) {
		a->has_i = 1;
		a->i = v;
	}
	return scs_attr_put(n, a);
}

int
scs_attr_put_ints(Onnx__NodeProto *n, const char *name, const int64_t *v, size_t len)
{
	Onnx__AttributeProto *a = scs_attr_new(name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);

	if (a && (a->ints = malloc((len ? len : 1) * sizeof(*v))) == NULL) {
		protobuf_c_message_free_unpacked(&a->base, NULL);
		a = NULL;
	}
	if (a) {
		if (len)
			memcpy(a->ints, v, len * sizeof(*v));
		a->n_ints = len;
	}
	return scs_attr_put(n, a);
}
