#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the check before every commit (tests/test_precommit.c).

Usage:
    /usr/bin/python3 gen_precommit_models.py OUTDIR

Needs python3-onnx and python3-numpy. The output is deterministic.

Files written to OUTDIR:

  pc_valid.onnx   valid, ir_version 8, opset 13: y = (x [2,8] @ w) + b, z = x @ w2 with w2 a copy of w (dedup
                  merges it), v = Identity(x) @ wt with wt = w transposed (the transposed pass rewrites it),
                  weights in raw_data and float_data.
  pc_ir3.onnx     valid, ir_version 3, opset 8: the same graph, every initializer listed among the inputs.
  pc_nested.onnx  valid, ir_version 8, opset 17: an If on c whose branches read w and its copy w2.
  pc_custom.onnx  the same as pc_valid plus a node of com.example's MyOp (opset com.example 1) reading y.
  pc_noshape.onnx not valid: the graph output y has an element type and no shape.
  pc_twice.onnx   not valid: the graph input x is listed twice (a name made twice).
  pc_unsorted.onnx
                  not valid: pc_valid with its nodes in reverse order.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weight(seed, shape):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


W = weight(1, (8, 8))
B = weight(2, (8,))


def inits(typed_copy=True):
    w2 = helper.make_tensor("w2", TensorProto.FLOAT, [8, 8], W.flatten().tolist(), raw=False) if typed_copy \
        else numpy_helper.from_array(W.copy(), "w2")
    return [numpy_helper.from_array(W, "w"), w2, numpy_helper.from_array(np.ascontiguousarray(W.T), "wt"),
            numpy_helper.from_array(B, "b")]


def nodes():
    return [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="mm"),
        helper.make_node("Add", ["xw", "b"], ["y"], name="add"),
        helper.make_node("MatMul", ["x", "w2"], ["z"], name="mm2"),
        helper.make_node("Identity", ["x"], ["xi"], name="id"),
        helper.make_node("MatMul", ["xi", "wt"], ["v"], name="mmt"),
    ]


def io(name, shape=(2, 8)):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def model(graph, opsets, ir=8, check=True):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          producer_name="gen_precommit_models")
    m.ir_version = ir
    if check:
        onnx.checker.check_model(m)
    return m


def main(out):
    outs = [io("y"), io("z"), io("v")]
    onnx.save(model(helper.make_graph(nodes(), "pc_valid", [io("x")], outs, inits()), [("", 13)]),
              os.path.join(out, "pc_valid.onnx"))

    ir3_inits = inits()
    ir3_inputs = [io("x")] + [helper.make_tensor_value_info(t.name, TensorProto.FLOAT, list(t.dims))
                              for t in ir3_inits]
    onnx.save(model(helper.make_graph(nodes(), "pc_ir3", ir3_inputs, outs, ir3_inits), [("", 8)], ir=3),
              os.path.join(out, "pc_ir3.onnx"))

    then_g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["t"], name="then_mm")], "then", [],
                               [io("t")])
    else_g = helper.make_graph([helper.make_node("MatMul", ["x", "w2"], ["e"], name="else_mm")], "else", [],
                               [io("e")])
    nested = helper.make_graph([helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_g,
                                                 else_branch=else_g)], "pc_nested",
                               [io("x"), helper.make_tensor_value_info("c", TensorProto.BOOL, [])], [io("y")],
                               inits()[:2])
    onnx.save(model(nested, [("", 17)]), os.path.join(out, "pc_nested.onnx"))

    custom = nodes() + [helper.make_node("MyOp", ["y"], ["u"], name="custom", domain="com.example")]
    onnx.save(model(helper.make_graph(custom, "pc_custom", [io("x")], outs + [io("u")], inits()),
                    [("", 13), ("com.example", 1)]), os.path.join(out, "pc_custom.onnx"))

    noshape = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None), io("z"), io("v")]
    onnx.save(model(helper.make_graph(nodes(), "pc_noshape", [io("x")], noshape, inits()), [("", 13)],
                    check=False), os.path.join(out, "pc_noshape.onnx"))

    onnx.save(model(helper.make_graph(nodes(), "pc_twice", [io("x"), io("x")], outs, inits()), [("", 13)],
                    check=False), os.path.join(out, "pc_twice.onnx"))

    onnx.save(model(helper.make_graph(nodes()[::-1], "pc_unsorted", [io("x")], outs, inits()), [("", 13)],
                    check=False), os.path.join(out, "pc_unsorted.onnx"))


if __name__ == "__main__":
    main(sys.argv[1])
