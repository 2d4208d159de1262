#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models that reach payloads living in the store.

Usage:
    /usr/bin/python3 gen_store_models.py OUTDIR

Typed encodings (int64_data, float_data, ...) are decoded into the payload
store, and so is everything under --store; raw_data payloads are otherwise
read from the input file. These models put payloads of more than one store
chunk (1 MiB) where the downcast and the dedup compare read them.

Files written to OUTDIR:

  gather_typed.onnx  Gather(X[1000,3], idx) with 300,000 int64 indices kept
                     in int64_data (2.4 MB decoded, over two store chunks);
                     the indices narrow to int32.
  gather_raw.onnx    the same with the indices in raw_data.
  typed_pair.onnx    two float_data constants A and B of equal type, dims and
                     length but different values (and a copy A2 of A), so
                     colliding keys must be told apart by their bytes.
  store_old.onnx     eight distinct float constants T0..T7 of one shape,
                     added to X in turn;
  store_new.onnx     T7 of store_old first, then eight new constants N0..N7
                     of the same shape: run on a kept store that held
                     store_old and whose id counter went back, T7 finds its
                     old blob and the new ones take the ids of old blobs,
                     T7's among them.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

N_INDICES = 300_000


def save(model, outdir, filename):
    path = os.path.join(outdir, filename)
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    onnx.checker.check_model(path)


def make_model(nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, "store", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_store_models",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def indices():
    # varied values, every one a valid row of X (negatives count from the end)
    return ((np.arange(N_INDICES, dtype=np.int64) * 7919) % 1999) - 999


def gather(outdir, filename, typed):
    idx = indices()
    if typed:
        t = helper.make_tensor("idx", TensorProto.INT64, idx.shape, idx.tolist())
        assert len(t.int64_data) == N_INDICES and not t.raw_data
    else:
        t = numpy_helper.from_array(idx, "idx")
        assert t.raw_data
    model = make_model(
        [helper.make_node("Gather", ["X", "idx"], ["Y"], name="gather", axis=0)],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1000, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [N_INDICES, 3])],
        [t])
    save(model, outdir, filename)


def typed_pair(outdir):
    n = 300_000          # 1.2 MB each: over one store chunk
    a = (np.arange(n, dtype=np.float32) % 97) * 0.25
    b = a.copy()
    b[n - 1] += 1.0      # differs only in the last chunk
    inits = [helper.make_tensor(name, TensorProto.FLOAT, [n], vals.tolist())
             for name, vals in (("A", a), ("B", b), ("A2", a))]
    for t in inits:
        assert t.float_data and not t.raw_data
    nodes = [helper.make_node("Add", ["X", "A"], ["s1"], name="add_a"),
             helper.make_node("Add", ["s1", "B"], ["s2"], name="add_b"),
             helper.make_node("Add", ["s2", "A2"], ["Y"], name="add_a2")]
    model = make_model(
        nodes,
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [n])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [n])],
        inits)
    save(model, outdir, "typed_pair.onnx")


def add_chain(outdir, filename, consts):
    nodes = []
    prev = "X"
    for i, (name, _) in enumerate(consts):
        out = "Y" if i == len(consts) - 1 else "s%d" % i
        nodes.append(helper.make_node("Add", [prev, name], [out], name="add_" + name))
        prev = out
    inits = [numpy_helper.from_array(vals, name) for name, vals in consts]
    model = make_model(
        nodes,
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])],
        inits)
    save(model, outdir, filename)


def store_old_new(outdir):
    def const(seed):
        return ((np.arange(6, dtype=np.float32) - 3 + seed) * 0.5).reshape(2, 3)
    old = [("T%d" % i, const(i)) for i in range(8)]
    new = [("N%d" % i, const(20 + i)) for i in range(8)]
    add_chain(outdir, "store_old.onnx", old)
    add_chain(outdir, "store_new.onnx", [old[7]] + new)


def main(argv):
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    gather(outdir, "gather_typed.onnx", typed=True)
    gather(outdir, "gather_raw.onnx", typed=False)
    typed_pair(outdir)
    store_old_new(outdir)


if __name__ == "__main__":
    main(sys.argv)
