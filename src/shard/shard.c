/*
 * shard.c: the shard format's one accessor (see shard.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "shard/shard.h"

#include <string.h>

const char *
scs_meta_get(const Onnx__ModelProto *m, const char *key)
{
	for (size_t i = 0; i < m->n_metadata_props; i++)
		if (m->metadata_props[i]->key && strcmp(m->metadata_props[i]->key, key) == 0)
			return m->metadata_props[i]->value;
	return NULL;
}
