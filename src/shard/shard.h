/*
 * shard.h: the shard format, what split writes and merge reads. A shard is
 * a standard ONNX model that describes itself in metadata_props under the
 * SCS_META_* keys:
 *
 *   scs4onnx.shard   "k/n": this shard's index k (from 0) and the count n
 *   scs4onnx.source  fingerprint of the source model (hex); equal in every
 *                    shard of one split
 *   scs4onnx.header  the header: a ModelProto, base64, holding the source's
 *                    inputs, outputs, opsets and metadata, from which merge
 *                    rebuilds the frame of the merged model
 *
 * Every key starts with SCS_META_PREFIX; merge drops such keys from the
 * merged model. Knows no algorithm of either side.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_SHARD_H
#define SCS_SHARD_H

#include "onnx.pb-c.h"

#define SCS_META_SHARD "scs4onnx.shard"      /* "k/n": this shard's index and the count */
#define SCS_META_SOURCE "scs4onnx.source"    /* fingerprint of the source model (hex) */
#define SCS_META_HEADER "scs4onnx.header"    /* base64 ModelProto: the source's inputs, outputs, opsets, ... */
#define SCS_META_PREFIX "scs4onnx."

/*
 * The value of metadata_props key @key of @m, or NULL when @m has none.
 * The string belongs to @m: it lives as long as that entry of @m; do not
 * free it.
 */
const char *scs_meta_get(const Onnx__ModelProto *m, const char *key);

#endif
