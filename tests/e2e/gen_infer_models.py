#!/usr/bin/python3
"""Generate the ONNX models the shape inference tests (tests/test_infer.c) split.

Usage:
    /usr/bin/python3 gen_infer_models.py OUTDIR

Needs python3-onnx and python3-numpy, like gen_models.py (whose helpers it
uses). No model declares value_info: every tensor a split cuts is described
by what scs4onnx infers. Every model passes onnx.checker and runs in ONNX
Runtime. The output is deterministic.

Files written to OUTDIR:

  concat70.onnx     70 Adds of X [2,3] (initializers of shapes [3], [1,3],
                    [2,3]) joined by one Concat with 70 inputs, then 12 Muls.
  sum70.onnx        60 Muls of X and 10 initializers summed by one Sum with
                    70 inputs (broadcasting [3], [1,3] and [2,3]), then 12
                    Muls.
  relu254_split.onnx  254 Relus, then a Split with two outputs: the value
                    facts grow while the Split's outputs are added.
  split80.onnx      200 Relus, then a Split into 80 outputs, added up again
                    by a chain of Adds.
  ops_*.onnx        chains of operators whose outputs a split cuts, one
                    model per family of shape rules (see OPS below).
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import init, main, make_model, node, rng_values, save, vi  # noqa: E402

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=None, name="g"):
    m = make_model(helper.make_graph(nodes, name, inputs, outputs, list(inits)))
    if opset:
        m.opset_import[0].version = opset
    return m


def mul_tail(src, count, seed, width=3):
    """count Muls by [width] initializers after @src, the last making Y: cuts fall among them."""
    nodes, inits, prev = [], [], src
    for i in range(count):
        out = "Y" if i == count - 1 else "%s_m%d" % (src, i)
        inits.append(init("K%d" % i, rng_values(seed + i, (width,))))
        nodes.append(node("Mul", [prev, "K%d" % i], [out], "tail_%d" % i))
        prev = out
    return nodes, inits


def relu_chain(src, count, prefix="r"):
    nodes, prev = [], src
    for i in range(count):
        nodes.append(node("Relu", [prev], ["%s%d" % (prefix, i)], "relu_%d" % i))
        prev = "%s%d" % (prefix, i)
    return nodes, prev


# ---------------------------------------------------------------- many inputs
BCAST_SHAPES = [(3,), (1, 3), (2, 3)]


def gen_concat70(outdir):
    inits = [init("C%d" % i, rng_values(100 + i, BCAST_SHAPES[i % 3])) for i in range(70)]
    nodes = [node("Add", ["X", "C%d" % i], ["a%d" % i], "add_%d" % i) for i in range(70)]
    nodes.append(node("Concat", ["a%d" % i for i in range(70)], ["cat"], "concat70", axis=0))
    tail, tail_inits = mul_tail("cat", 12, 170)
    graph_in = [vi("X", FLOAT, [2, 3])]
    return save(model(nodes + tail, graph_in, [vi("Y", FLOAT, [140, 3])], inits + tail_inits), outdir, "concat70.onnx")


def gen_sum70(outdir):
    inits = [init("M%d" % i, rng_values(200 + i, BCAST_SHAPES[i % 3])) for i in range(60)]
    inits += [init("S%d" % i, rng_values(300 + i, BCAST_SHAPES[i % 2])) for i in range(10)]
    nodes = [node("Mul", ["X", "M%d" % i], ["b%d" % i], "mul_%d" % i) for i in range(60)]
    nodes.append(node("Sum", ["b%d" % i for i in range(60)] + ["S%d" % i for i in range(10)], ["sum"], "sum70"))
    tail, tail_inits = mul_tail("sum", 12, 370)
    graph_in = [vi("X", FLOAT, [2, 3])]
    return save(model(nodes + tail, graph_in, [vi("Y", FLOAT, [2, 3])], inits + tail_inits), outdir, "sum70.onnx")


# ---------------------------------------------------------------- many outputs
def gen_relu254_split(outdir):
    # X and Y, then 254 Relu outputs: 256 facts, so the Split's first output grows them
    nodes, last = relu_chain("X", 254)
    nodes.append(node("Split", [last], ["s0", "s1"], "split2", axis=1))
    nodes.append(node("Mul", ["s0", "s1"], ["Y"], "mul"))
    graph = ([vi("X", FLOAT, [2, 4])], [vi("Y", FLOAT, [2, 2])])
    return save(model(nodes, *graph), outdir, "relu254_split.onnx")


def gen_split80(outdir):
    # 202 facts before the Split: they grow past 256 at its 55th output
    nodes, last = relu_chain("X", 200)
    nodes.append(node("Split", [last], ["s%d" % i for i in range(80)], "split80", axis=1))
    acc = "s0"
    for i in range(1, 80):
        out = "Y" if i == 79 else "acc%d" % i
        nodes.append(node("Add", [acc, "s%d" % i], [out], "add_%d" % i))
        acc = out
    graph = ([vi("X", FLOAT, [2, 80])], [vi("Y", FLOAT, [2, 1])])
    return save(model(nodes, *graph), outdir, "split80.onnx")


GENERATORS = [gen_concat70, gen_sum70, gen_relu254_split, gen_split80]


if __name__ == "__main__":
    sys.exit(main(sys.argv, GENERATORS, "gen_infer_models"))
