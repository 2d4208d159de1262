/*
 * array.h: protobuf-c list helpers: growing a repeated message field, and the
 * key/value entries of metadata_props and external_data.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_ARRAY_H
#define SCS_ARRAY_H

#include <stddef.h>

#include "onnx.pb-c.h"

/*
 * Insert @item into a protobuf-c repeated message field whose array is
 * *@arr (pass &msg->field) and count *@n: at the end, or first when
 * @front. SCS_ENOMEM (the item is not freed).
 */
int scs_array_insert(void *arr, size_t *n, void *item, int front);

/* Replace attribute @a->name of @n with @a, or add it; @a is owned by @n
 * afterwards, also on failure. @a NULL (an allocation that failed) is
 * SCS_ENOMEM, like a failure to grow the list. */
int scs_attr_put(Onnx__NodeProto *n, Onnx__AttributeProto *a);

/* scs_attr_put() of a new INT or INTS attribute @name holding @v. */
int scs_attr_put_int(Onnx__NodeProto *n, const char *name, int64_t v);
int scs_attr_put_ints(Onnx__NodeProto *n, const char *name, const int64_t *v, size_t len);

/* A new key/value entry (metadata_props, external_data); NULL on ENOMEM.
 * The caller owns it until it is put into a message (which then frees it);
 * free it alone with protobuf_c_message_free_unpacked(&e->base, NULL). */
Onnx__StringStringEntryProto *scs_entry_new(const char *key, const char *value);

#endif
