#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Conformance models with their inputs made constant, for the fold suite.

Usage:
    /usr/bin/python3 gen_fold_conformance.py OPS OUTDIR [DATA]

OPS is a comma-separated list of operators. For every node test under DATA
(default /usr/share/libonnx-testdata/data/node) whose model is one node of
one of OPS, and whose test_data_set_0 gives every graph input as a tensor,
writes OUTDIR/<test>.onnx: the same model with those inputs as initializers
(no graph inputs left), so that folding can replace the node. Prints one
line per model written ("<test> <op>"), then "written N".
"""

import os
import sys

import onnx


def main():
    ops = set(sys.argv[1].split(","))
    outdir = sys.argv[2]
    data = sys.argv[3] if len(sys.argv) > 3 else "/usr/share/libonnx-testdata/data/node"
    written = 0
    for name in sorted(os.listdir(data)):
        path = os.path.join(data, name, "model.onnx")
        sets = os.path.join(data, name, "test_data_set_0")
        if not name.startswith("test_") or not os.path.exists(path) or not os.path.isdir(sets):
            continue
        m = onnx.load(path)
        g = m.graph
        if len(g.node) != 1 or g.node[0].domain not in ("", "ai.onnx") or g.node[0].op_type not in ops:
            continue
        inits = []
        for k, vi in enumerate(g.input):
            pb = os.path.join(sets, "input_%d.pb" % k)
            if vi.type.WhichOneof("value") != "tensor_type" or not os.path.exists(pb):
                inits = None
                break
            t = onnx.TensorProto()
            with open(pb, "rb") as f:
                t.ParseFromString(f.read())
            if t.data_type in (onnx.TensorProto.STRING, 0):
                inits = None
                break
            if t.data_type == onnx.TensorProto.UINT16 and vi.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16:
                t.data_type = onnx.TensorProto.BFLOAT16     # the suite stores bfloat16 values as uint16
            t.name = vi.name
            inits.append(t)
        if inits is None or any(o.type.WhichOneof("value") != "tensor_type" for o in g.output):
            continue
        del g.input[:]
        g.initializer.extend(inits)
        onnx.save(m, os.path.join(outdir, name + ".onnx"))
        print(name, g.node[0].op_type)
        written += 1
    print("written", written)


if __name__ == "__main__":
    main()
