/*
 * walk.h: the descriptor walk: every TensorProto inside a protobuf-c
 * message, found through the descriptors protobuf-c generates, so no message
 * type that can hold a tensor is ever forgotten.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SCS_WALK_H
#define SCS_WALK_H

#include "onnx.pb-c.h"

typedef int (*scs_tensor_fn)(void *ctx, Onnx__TensorProto *t);

/* Call @fn on every TensorProto inside @msg (@msg itself when it is one),
 * depth first in field order, until it returns non-zero, which is then
 * returned; 0 when every call gave 0. */
int scs_walk_tensors(ProtobufCMessage *msg, scs_tensor_fn fn, void *ctx);

#endif
