/*
 * merge.h: shards back into one model, by tensor name (see shard.h for
 * what a shard carries). Works from the shard models alone: shards that
 * other tools changed (renamed or merged initializers, rewritten nodes)
 * merge as long as their inputs and outputs keep their names.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_MERGE_H
#define SCS_MERGE_H

#include <stddef.h>

#include "model/model.h"

/*
 * Join @shards (any order: their metadata gives it; all sharing one payload
 * set) into *out, a new model sharing that set. @labels[i] names shard i in
 * messages (its file). Refuses a missing shard, shards of another model,
 * two shards with the same index, a cut tensor no earlier shard makes, and
 * same-named initializers or Constants with different contents.
 * Free *out (scs_model_free()) before the model that owns the payload set.
 */
int scs_merge_models(scs_model **out, scs_model *const *shards, const char *const *labels, size_t n);

#endif
