/*
 * attr.c: a node's attributes by name (see attr.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/attr.h"

#include <stdlib.h>
#include <string.h>

/* The index of the first attribute of @n named @name, or n->n_attribute. */
static size_t
attr_index(const Onnx__NodeProto *n, const char *name)
{
	size_t i;

	for (i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
			break;
	return i;
}

const Onnx__AttributeProto *
scs_attr_find(const Onnx__NodeProto *n, const char *name)
{
	size_t i = attr_index(n, name);

	return i < n->n_attribute ? n->attribute[i] : NULL;
}

Onnx__AttributeProto **
scs_attr_slot(Onnx__NodeProto *n, const char *name)
{
	size_t i = attr_index(n, name);

	return i < n->n_attribute ? &n->attribute[i] : NULL;
}

int64_t
scs_attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt)
{
	const Onnx__AttributeProto *a = scs_attr_find(n, name);

	return a ? a->i : dflt;
}

float
scs_attr_float(const Onnx__NodeProto *n, const char *name, float dflt)
{
	const Onnx__AttributeProto *a = scs_attr_find(n, name);

	return a ? a->f : dflt;
}

int
scs_attr_is(const Onnx__NodeProto *n, const char *name, const char *value, int dflt_match)
{
	const Onnx__AttributeProto *a = scs_attr_find(n, name);

	if (a == NULL)
		return dflt_match;
	return a->s.len == strlen(value) && memcmp(a->s.data, value, a->s.len) == 0;
}

Onnx__AttributeProto *
scs_attr_new(const char *name, Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = malloc(sizeof(*a));

	if (a == NULL)
		return NULL;
	onnx__attribute_proto__init(a);
	if ((a->name = strdup(name)) == NULL) {
		free(a);
		return NULL;
	}
	a->has_type = 1;
	a->type = type;
	return a;
}
