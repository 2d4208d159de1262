#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the weights a fusion pass wrote against numpy's (gen_fuse_models.py).

Usage:
    /usr/bin/python3 fuse_check.py MODEL.onnx EXPECT.npz

EXPECT.npz holds, under "NODE:SLOT", the tensor that input SLOT of the node
named NODE (in any graph of MODEL, nested ones included) must hold: an
initializer of that graph or an enclosing one, or a Constant node's value.
Element type, dims and every byte must agree (bfloat16 expectations are
uint16 bit patterns). Prints "fuse_check: ok: N tensors bit-identical" or
one "fuse_check: FAIL: ..." line per difference (exit status 1).
"""

import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper


def graphs(g, parents=()):
    """Every graph with the graphs enclosing it (innermost last)."""
    chain = parents + (g,)
    yield chain
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from graphs(a.g, chain)
            for sg in a.graphs:
                yield from graphs(sg, chain)


def value_of(chain, name):
    for g in reversed(chain):
        for t in g.initializer:
            if t.name == name:
                return t
        for n in g.node:
            if n.op_type == "Constant" and name in n.output:
                for a in n.attribute:
                    if a.name == "value":
                        return a.t
                    if a.name == "value_floats":
                        return numpy_helper.from_array(np.array(a.floats, np.float32))
    return None


def bytes_of(t):
    if t.data_type == TensorProto.BFLOAT16:
        if t.raw_data:
            return t.raw_data
        return np.array(t.int32_data, np.uint16).tobytes()
    return numpy_helper.to_array(t).tobytes()


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: fuse_check.py MODEL.onnx EXPECT.npz\n")
        return 2
    model = onnx.load(argv[1])
    expect = np.load(argv[2])
    problems = []
    for key in expect.files:
        node_name, slot = key.rsplit(":", 1)
        slot = int(slot)
        want = expect[key]
        found = None
        for chain in graphs(model.graph):
            for n in chain[-1].node:
                if n.name == node_name:
                    found = (chain, n)
        if found is None:
            problems.append("%s: no node '%s'" % (key, node_name))
            continue
        chain, n = found
        if slot >= len(n.input) or not n.input[slot]:
            problems.append("%s: node '%s' has no input %d" % (key, node_name, slot))
            continue
        t = value_of(chain, n.input[slot])
        if t is None:
            problems.append("%s: input '%s' is not a constant" % (key, n.input[slot]))
            continue
        if list(t.dims) != list(want.shape):
            problems.append("%s: '%s' has dims %s, want %s" % (key, n.input[slot], list(t.dims), list(want.shape)))
            continue
        got = bytes_of(t)
        if got != want.tobytes():
            gv = np.frombuffer(got, dtype=want.dtype)
            wv = want.reshape(-1)
            i = int(np.nonzero(gv != wv)[0][0]) if gv.size == wv.size else 0
            problems.append("%s: '%s' element %d is %r, numpy says %r" % (key, n.input[slot], i, gv[i], wv[i]))
    for p in problems:
        print("fuse_check: FAIL: " + p)
    if problems:
        return 1
    print("fuse_check: ok: %d tensors bit-identical to numpy's" % len(expect.files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
