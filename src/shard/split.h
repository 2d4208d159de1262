/*
 * split.h: cutting a model's main graph into standalone shard models, each
 * under a size budget, and the metadata that lets merge put them together.
 *
 * Each shard is a standard ONNX model: its inputs are the original graph
 * inputs it uses plus the cut tensors it consumes; its outputs are the
 * original outputs it makes plus the cut tensors later shards consume.
 * Initializers and Constant nodes are copied into every shard that reads
 * them; a node with nested graphs stays whole. Shards describe themselves
 * in metadata_props (the format is in shard.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SPLIT_H
#define SCS_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* The default budget: 1.8 GiB, headroom under protobuf's 2 GiB. */
#define SCS_SPLIT_DEFAULT_LEN ((uint64_t)1932735283)

typedef struct scs_shards {
	scs_model **items;        /* share the source's payloads; free before it */
	size_t n;
} scs_shards;

/*
 * Cut @m (unchanged) into shards whose serialized size stays under
 * @max_len where it can: a tensor of @max_len or more counts for nothing,
 * as it goes to external data beside its shard.
 */
int scs_split_model(scs_shards *out, scs_model *m, uint64_t max_len);

/* Free the shards, the first one last (it may own the others' payloads). */
void scs_shards_dispose(scs_shards *s);

#endif
