/*
 * walk.c: every tensor inside a message, through protobuf-c's descriptors
 * (see walk.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "onnx/walk.h"

/*
 * Every TensorProto inside @msg, found through protobuf-c's descriptors, so
 * no message type that can hold a tensor is ever forgotten.
 */
int
scs_walk_tensors(ProtobufCMessage *msg, scs_tensor_fn fn, void *ctx)
{
	const ProtobufCMessageDescriptor *md = msg->descriptor;
	int rc;

	if (md == &onnx__tensor_proto__descriptor)
		return fn(ctx, (Onnx__TensorProto *)msg);
	for (unsigned i = 0; i < md->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &md->fields[i];
		char *base = (char *)msg;

		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			if (*(uint32_t *)(base + f->quantifier_offset) != f->id)
				continue;
		}
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(size_t *)(base + f->quantifier_offset);
			ProtobufCMessage **arr = *(ProtobufCMessage ***)(base + f->offset);

			for (size_t k = 0; k < n; k++)
				if ((rc = scs_walk_tensors(arr[k], fn, ctx)) != 0)
					return rc;
		} else {
			ProtobufCMessage *sub = *(ProtobufCMessage **)(base + f->offset);

			if (sub && (rc = scs_walk_tensors(sub, fn, ctx)) != 0)
				return rc;
		}
	}
	return 0;
}
