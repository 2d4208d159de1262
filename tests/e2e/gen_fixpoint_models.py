#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the fixpoint suite (tests/test_fixpoint.c).

Usage:
    /usr/bin/python3 gen_fixpoint_models.py OUTDIR

Needs python3-onnx and python3-numpy. Every model is ir_version 8,
default-domain opset 13, passes onnx.checker.check_model and runs in ONNX
Runtime. The output is deterministic.

Files written to OUTDIR:

  fp_widths.onnx    an int64 constant K (an initializer) and an int64
                    Constant node KC, each read by a Gather (as indices: may
                    narrow) and by a Reshape (as the shape: must stay int64),
                    with the two readers far apart so that a small shard
                    budget puts them in different shards.
  fp_capture.onnx   main initializers W and W2 hold the same values; an If
                    branch's initializer W (equal to the main initializer
                    V) and reads W2 from the outer scope. Merging W2 into W
                    is only possible once the branch's W became V.
  fp_narrow.onnx    an int64 constant A and an int32 constant B with the same
                    values, both Gather indices: equal only after A narrows.
  fp_order.onnx     two equal 1 KiB initializers read first, then a chain of
                    Adds whose Constant nodes sit far from their readers:
                    where the shard cuts fall changes when the model shrinks.
  fp_keep.onnx      quantization_annotation naming an initializer that a
                    nested graph reads (and that equals an earlier one),
                    value_info of initializers and of a Constant, and an
                    initializer that no node reads.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import const_node, init, make_model, node, rng_values, vi  # noqa: E402

FLOAT = TensorProto.FLOAT


def values(seed, shape):
    return rng_values(seed, shape)


def save(graph, outdir, filename):
    path = os.path.join(outdir, filename)
    with open(path, "wb") as fh:
        fh.write(make_model(graph).SerializeToString())
    onnx.checker.check_model(path)
    return path


def gen_widths(outdir):
    k = np.array([2, 6], dtype=np.int64)
    filler = [node("Relu" if i % 2 else "Neg", ["h%d" % i], ["h%d" % (i + 1)], "f%d" % i)
              for i in range(6)]
    nodes = [
        const_node("KC", k.copy()),
        node("Gather", ["T", "K"], ["g"], "gather_k"),
        node("Gather", ["T", "KC"], ["gc"], "gather_kc"),
        node("Identity", ["X"], ["h0"], "id_x"),
    ] + filler + [
        node("Reshape", ["h6", "K"], ["r"], "reshape_k"),
        node("Reshape", ["h6", "KC"], ["rc"], "reshape_kc"),
    ]
    graph = helper.make_graph(
        nodes, "fp_widths",
        [vi("X", FLOAT, [3, 4]), vi("T", FLOAT, [8, 3])],
        [vi("g", FLOAT, [2, 3]), vi("gc", FLOAT, [2, 3]), vi("r", FLOAT, [2, 6]),
         vi("rc", FLOAT, [2, 6])],
        initializer=[init("K", k)])
    return save(graph, outdir, "fp_widths.onnx")


def gen_capture(outdir):
    w = values(11, (4,))
    v = values(12, (4,))
    then_g = helper.make_graph(
        [node("Add", ["W", "W2"], ["tw"], "then_add"),
         node("Add", ["tw", "X"], ["then_out"], "then_add_x")],
        "then", [], [vi("then_out", FLOAT, [4])], initializer=[init("W", v.copy())])
    else_g = helper.make_graph(
        [node("Sub", ["X", "W2"], ["else_out"], "else_sub")],
        "else", [], [vi("else_out", FLOAT, [4])])
    nodes = [
        node("Add", ["X", "W"], ["a"], "add_w"),
        node("Mul", ["a", "V"], ["b"], "mul_v"),
        node("If", ["C"], ["y_if"], "if", then_branch=then_g, else_branch=else_g),
        node("Add", ["b", "y_if"], ["Y"], "add_if"),
    ]
    graph = helper.make_graph(
        nodes, "fp_capture",
        [vi("X", FLOAT, [4]), vi("C", TensorProto.BOOL, [])],
        [vi("Y", FLOAT, [4])],
        initializer=[init("W", w), init("W2", w.copy()), init("V", v)])
    return save(graph, outdir, "fp_capture.onnx")


def gen_narrow(outdir):
    a = np.array([0, 2, 1], dtype=np.int64)
    nodes = [
        node("Gather", ["T", "A"], ["ga"], "gather_a"),
        node("Gather", ["T", "B"], ["gb"], "gather_b"),
        node("Add", ["ga", "gb"], ["Y"], "add"),
    ]
    graph = helper.make_graph(
        nodes, "fp_narrow",
        [vi("T", FLOAT, [4, 5])], [vi("Y", FLOAT, [3, 5])],
        initializer=[init("B", a.astype(np.int32)), init("A", a)])
    return save(graph, outdir, "fp_narrow.onnx")


def gen_order(outdir):
    big = values(21, (16, 16))
    nodes = [const_node("C%d" % i, values(30 + i, (16,))) for i in range(4)]
    nodes.append(node("Add", ["X", "P"], ["p0"], "add_p"))
    nodes.append(node("Add", ["p0", "Q"], ["s0"], "add_q"))
    for i in range(4):
        nodes.append(node("Mul", ["s%d" % i, "s%d" % i], ["m%d" % i], "mul%d" % i))
        nodes.append(node("Add", ["m%d" % i, "C%d" % (3 - i)], ["s%d" % (i + 1)], "add_c%d" % i))
    nodes.append(node("Neg", ["s4"], ["Y"], "neg"))
    graph = helper.make_graph(
        nodes, "fp_order",
        [vi("X", FLOAT, [16, 16])], [vi("Y", FLOAT, [16, 16])],
        initializer=[init("P", big), init("Q", big.copy())])
    return save(graph, outdir, "fp_order.onnx")


def gen_keep(outdir):
    w = values(41, (4,))
    then_g = helper.make_graph(
        [node("Add", ["X", "W2"], ["then_out"], "then_add")],
        "then", [], [vi("then_out", FLOAT, [4])])
    else_g = helper.make_graph(
        [node("Sub", ["X", "W2"], ["else_out"], "else_sub")],
        "else", [], [vi("else_out", FLOAT, [4])])
    nodes = [
        const_node("KC", values(42, (4,))),
        node("Add", ["X", "W1"], ["a"], "add_w1"),
        node("Mul", ["a", "KC"], ["b"], "mul_kc"),
        node("If", ["C"], ["y_if"], "if", then_branch=then_g, else_branch=else_g),
        node("Add", ["b", "y_if"], ["c"], "add_if"),
        node("Mul", ["c", "W2"], ["Y"], "mul_w2"),
    ]
    graph = helper.make_graph(
        nodes, "fp_keep",
        [vi("X", FLOAT, [4]), vi("C", TensorProto.BOOL, [])],
        [vi("Y", FLOAT, [4])],
        initializer=[init("W1", w), init("W2", w.copy()), init("U", values(43, (3,)))],
        value_info=[vi("W1", FLOAT, [4]), vi("KC", FLOAT, [4]), vi("U", FLOAT, [3])])
    ann = graph.quantization_annotation.add()
    ann.tensor_name = "W2"
    e = ann.quant_parameter_tensor_names.add()
    e.key = "SCALE_TENSOR"
    e.value = "W1"
    return save(graph, outdir, "fp_keep.onnx")


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_fixpoint_models.py OUTDIR\n")
        return 2
    os.makedirs(argv[1], exist_ok=True)
    gen_widths(argv[1])
    gen_capture(argv[1])
    gen_narrow(argv[1])
    gen_order(argv[1])
    gen_keep(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
