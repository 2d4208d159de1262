/*
 * attr.c: a node's attributes by name (see attr.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "attr.h"

#include <string.h>

const Onnx__AttributeProto *
scs_attr_find(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
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
