#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate, at test time, the ONNX models of the edge-case suites.

Usage:
    /usr/bin/python3 gen_edge_models.py KIND OUTDIR

Needs python3-onnx and python3-numpy, like gen_models.py (whose helpers it
uses). Each KIND writes one model (and its data files) into OUTDIR; the
tests make them in their own scratch folder, so nothing large is kept in
the build tree. The output is deterministic.

KINDs:

  reshape_overflow  reshape_overflow.onnx: constant shapes and declared dims
                    whose products or sums pass INT64_MAX (Reshape with
                    [2^32, 2^32, 4] and with [-1, 2^62, 4] of an input of dims
                    [2^40, 2^40, 2^40], Flatten of that input, Concat of four
                    [2^62, 2], ConstantOfShape [2^62, 4] flattened), each
                    followed by Relus so a split cuts among them. Passes onnx.checker; the model cannot run
                    (no runtime holds such tensors).
  many_files        many_files.onnx: 1,100 float initializers [4], each in its
                    own external data file w_NNNN.bin, pairwise equal (550
                    distinct values), summed into Y from X [4]. Runs in ONNX
                    Runtime.
  npy_clash         npy_clash.onnx: constants named "x:y" and "x_y" (each
                    repeated, with different values) and a graph input named
                    like the .npy file "x:y" would get ("out_exported_x_y_1.npy"
                    for an output called out.onnx), so npy mode must pick
                    names that clash with nothing. Runs in ONNX Runtime.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import init, make_model, node, rng_values, save, set_external, vi  # noqa: E402

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


def ints(name, values):
    return init(name, np.array(values, dtype=np.int64))


def relus(src, count, prefix):
    nodes, prev = [], src
    for i in range(count):
        out = "%s_r%d" % (prefix, i)
        nodes.append(node("Relu", [prev], [out], "%s_relu%d" % (prefix, i)))
        prev = out
    return nodes, prev


def gen_reshape_overflow(outdir):
    big = 1 << 40
    inits = [ints("shape_over", [1 << 32, 1 << 32, 4]), ints("shape_infer", [-1, 1 << 62, 4]),
             ints("shape_cos", [1 << 62, 4])]
    nodes, outs = [], []
    for name, op, inputs, rank, attrs in [
            ("a", "Reshape", ["X", "shape_over"], 3, {}),
            ("b", "Reshape", ["H", "shape_infer"], 3, {}),
            ("c", "Flatten", ["H"], 2, {"axis": 1}),
            ("d", "Concat", ["L", "L", "L", "L"], 2, {"axis": 0}),
            ("e", "ConstantOfShape", ["shape_cos"], 2, {}),
            ("f", "Flatten", ["e"], 2, {"axis": 0})]:
        nodes.append(node(op, inputs, [name], "make_" + name, **attrs))
        chain, last = relus(name, 3, name)
        nodes += chain
        outs.append(vi(last, FLOAT, [None] * rank))
    graph = helper.make_graph(nodes, "reshape_overflow", [vi("X", FLOAT, [2, 3]), vi("H", FLOAT, [big, big, big]), vi("L", FLOAT, [1 << 62, 2])],
                              outs, inits)
    return save(make_model(graph), outdir, "reshape_overflow.onnx")


def gen_many_files(outdir, count=1100):
    inits, nodes, prev = [], [], "X"
    for i in range(count):
        t = init("w%04d" % i, rng_values(1000 + i // 2, (4,)))
        location = "w_%04d.bin" % i
        with open(os.path.join(outdir, location), "wb") as fh:
            fh.write(set_external(t, location, 0))
        inits.append(t)
        out = "Y" if i == count - 1 else "s%04d" % i
        nodes.append(node("Add", [prev, t.name], [out], "add%04d" % i))
        prev = out
    graph = helper.make_graph(nodes, "many_files", [vi("X", FLOAT, [4])], [vi("Y", FLOAT, [4])], inits)
    return save(make_model(graph), outdir, "many_files.onnx")


def gen_npy_clash(outdir):
    a, b = rng_values(21, (2, 3)), rng_values(22, (2, 3))
    inits = [init("x:y", a), init("x:y_copy", a.copy()), init("x_y", b), init("x_y_copy", b.copy())]
    nodes = [
        node("Add", ["X", "x:y"], ["t1"], "add_xy"),
        node("Mul", ["t1", "x:y_copy"], ["t2"], "mul_xy"),
        node("Sub", ["t2", "x_y"], ["t3"], "sub_x_y"),
        node("Mul", ["t3", "x_y_copy"], ["t4"], "mul_x_y"),
        node("Add", ["t4", "out_exported_x_y_1.npy"], ["Y"], "add_taken"),
    ]
    graph = helper.make_graph(nodes, "npy_clash",
                              [vi("X", FLOAT, [2, 3]), vi("out_exported_x_y_1.npy", FLOAT, [2, 3])],
                              [vi("Y", FLOAT, [2, 3])], inits)
    return save(make_model(graph), outdir, "npy_clash.onnx")


KINDS = {"reshape_overflow": gen_reshape_overflow, "many_files": gen_many_files, "npy_clash": gen_npy_clash}


def main(argv):
    if len(argv) != 3 or argv[1] not in KINDS:
        sys.stderr.write("usage: gen_edge_models.py {%s} OUTDIR\n" % ",".join(sorted(KINDS)))
        return 2
    os.makedirs(argv[2], exist_ok=True)
    print("gen_edge_models: wrote %s" % KINDS[argv[1]](argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
