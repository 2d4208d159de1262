/*
 * attr.h: a node's attributes by name: the one reader the shape rules,
 * the evaluator and the optimizer share.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_ATTR_H
#define SCS_ATTR_H

#include <stdint.h>

#include "onnx.pb-c.h"

/* Attribute @name of @n (the first of that name), or NULL. */
const Onnx__AttributeProto *scs_attr_find(const Onnx__NodeProto *n, const char *name);

/* Where @n keeps attribute @name (the first of that name), to replace it in place, or NULL. */
Onnx__AttributeProto **scs_attr_slot(Onnx__NodeProto *n, const char *name);

/* The integer or float of attribute @name of @n, or @dflt when absent. */
int64_t scs_attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt);
float scs_attr_float(const Onnx__NodeProto *n, const char *name, float dflt);

/* A new attribute @name (copied) of @type, with no value yet; NULL on ENOMEM. The caller owns it until it is put
 * into a node (which then frees it); free it alone with protobuf_c_message_free_unpacked(&a->base, NULL). */
Onnx__AttributeProto *scs_attr_new(const char *name, Onnx__AttributeProto__AttributeType type);

/* 1 when @n's string attribute @name is @value (@dflt_match when the attribute is absent). */
int scs_attr_is(const Onnx__NodeProto *n, const char *name, const char *value, int dflt_match);

#endif
