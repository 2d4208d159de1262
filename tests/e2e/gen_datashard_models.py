#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Models of many constants for the data files in numbered pieces
(--max-data-file-size; tests/test_datashard.c).

  ds_many.onnx    opset 17: 120 distinct float32 initializers W0..W119 of
                  1.2 KB to 50 KB (about 2 MB), G of 300 KB (longer than a
                  64 KiB maximum), a copy D5 of W5 (dedup merges it), SA
                  [1024] and SB [32, 32] holding the same bytes (dedup leaves
                  them apart: other dims), an If on the input C whose then
                  branch holds a 12 KB Constant and whose else branch holds
                  a 4 KB one; every constant feeds an Identity (or an Add
                  with X) whose output is a graph output.
  ds_ir3.onnx     IR version 3, opset 8: ten float32 initializers of 4 to
                  29 KB, each also a graph input (as IR 3 lists them), each
                  feeding an Identity whose output is a graph output.
  ds_typed.onnx   opset 21: constants in the typed fields (float_data,
                  int64_data, int32_data for float16, double_data), each
                  over 1 KiB, twelve of them, and two raw float32 ones;
                  each feeds an Identity whose output is a graph output.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import save  # noqa: E402

FLOAT = TensorProto.FLOAT


def model(graph, opset):
    m = helper.make_model(graph, producer_name="scs4onnx-c-gen_datashard_models",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8   # the newest the installed onnx.checker knows
    return m


def out_of(t):
    return helper.make_tensor_value_info("Y_" + t.name, t.data_type, list(t.dims))


def gen_many(outdir):
    rng = np.random.RandomState(24)
    sizes = [300, 1024, 2250, 4250, 7500, 12500]    # floats: 1.2 KB to 50 KB
    inits = []
    for i in range(120):
        inits.append(numpy_helper.from_array(rng.standard_normal(sizes[(i * 5) % len(sizes)]).astype(np.float32),
                                             "W%d" % i))
    inits.insert(60, numpy_helper.from_array(rng.standard_normal(75000).astype(np.float32), "G"))
    w5 = numpy_helper.to_array(inits[5])
    inits.append(numpy_helper.from_array(w5.copy(), "D5"))
    same = rng.standard_normal(1024).astype(np.float32)
    inits.append(numpy_helper.from_array(same, "SA"))
    inits.append(numpy_helper.from_array(same.reshape(32, 32).copy(), "SB"))
    nodes = [helper.make_node("Identity", [t.name], ["Y_" + t.name], name="id_" + t.name) for t in inits]
    outputs = [out_of(t) for t in inits]
    bias = rng.standard_normal(16).astype(np.float32)
    inits.append(numpy_helper.from_array(bias, "B"))
    nodes.append(helper.make_node("Add", ["X", "B"], ["Y_X"], name="add_b"))
    outputs.append(helper.make_tensor_value_info("Y_X", FLOAT, [16]))

    def branch(name, n, seed):
        vals = np.random.RandomState(seed).standard_normal(n).astype(np.float32)
        c = helper.make_node("Constant", [], [name + "_c"], name=name + "_const",
                             value=numpy_helper.from_array(vals, name + "_v"))
        return helper.make_graph([c], name, [], [helper.make_tensor_value_info(name + "_c", FLOAT, [None])])

    nodes.append(helper.make_node("If", ["C"], ["Y_if"], name="if",
                                  then_branch=branch("then", 3000, 1), else_branch=branch("else", 1000, 2)))
    outputs.append(helper.make_tensor_value_info("Y_if", FLOAT, [None]))
    graph = helper.make_graph(nodes, "ds_many",
                              [helper.make_tensor_value_info("X", FLOAT, [16]),
                               helper.make_tensor_value_info("C", TensorProto.BOOL, [])],
                              outputs, initializer=inits)
    return save(model(graph, 17), outdir, "ds_many.onnx")


def gen_typed(outdir):
    rng = np.random.RandomState(25)
    inits = []
    for i in range(3):
        v = rng.standard_normal(700 + 300 * i).astype(np.float32)
        inits.append(helper.make_tensor("F%d" % i, FLOAT, [v.size], v.tolist()))
        w = rng.randint(-2**40, 2**40, size=400 + 100 * i).astype(np.int64)
        inits.append(helper.make_tensor("L%d" % i, TensorProto.INT64, [w.size], w.tolist()))
        h = rng.standard_normal(1500 + 500 * i).astype(np.float16)
        t = TensorProto(name="H%d" % i, data_type=TensorProto.FLOAT16, dims=[h.size])
        t.int32_data.extend(h.view(np.uint16).astype(np.int32).tolist())
        inits.append(t)
        d = rng.standard_normal(300 + 50 * i)
        inits.append(helper.make_tensor("E%d" % i, TensorProto.DOUBLE, [d.size], d.tolist()))
    for i in range(2):
        inits.append(numpy_helper.from_array(rng.standard_normal(5000).astype(np.float32), "R%d" % i))
    for t in inits:
        assert not t.HasField("raw_data") or t.name.startswith("R"), t.name
    nodes = [helper.make_node("Identity", [t.name], ["Y_" + t.name], name="id_" + t.name) for t in inits]
    graph = helper.make_graph(nodes, "ds_typed", [], [out_of(t) for t in inits], initializer=inits)
    return save(model(graph, 21), outdir, "ds_typed.onnx")


def gen_ir3(outdir):
    rng = np.random.RandomState(26)
    inits = [numpy_helper.from_array(rng.standard_normal(1000 + 700 * i).astype(np.float32), "P%d" % i)
             for i in range(10)]
    nodes = [helper.make_node("Identity", [t.name], ["Y_" + t.name], name="id_" + t.name) for t in inits]
    graph = helper.make_graph(nodes, "ds_ir3", [out_of(t) for t in inits], [out_of(t) for t in inits],
                              initializer=inits)
    for v, t in zip(graph.input, inits):
        v.name = t.name
    m = helper.make_model(graph, producer_name="scs4onnx-c-gen_datashard_models",
                          opset_imports=[helper.make_opsetid("", 8)])
    m.ir_version = 3
    return save(m, outdir, "ds_ir3.onnx")


GENERATORS = [gen_many, gen_typed, gen_ir3]

if __name__ == "__main__":
    from gen_models import main
    sys.exit(main(sys.argv, GENERATORS, "gen_datashard_models"))
