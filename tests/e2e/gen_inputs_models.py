#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the inputs suite (tests/test_inputs.c): inputs the
tools once misread.

Usage:
    /usr/bin/python3 gen_inputs_models.py OUTDIR

Needs python3-onnx and python3-numpy. Every model passes
onnx.checker.check_model and runs in ONNX Runtime. The output is
deterministic.

Files written to OUTDIR:

  ir3_raw.onnx, ir3_typed.onnx
      ir_version 3, opset 8: every initializer listed among the graph
      inputs, as that IR required, interleaved with the real inputs X
      (float [2,3]) and C (bool []): inputs X, W1, C, W2, idx, A, B, shp.
      W1 and W2 are equal float [3,4] (a duplicate); idx int64 [0, 2]
      (narrowable: Gather's indices); A, B float [4] (Add(A, B) folds);
      shp int64 [3, 4] (Reshape(W2, shp) is a no-op). Y = (X@W1 *
      X@Reshape(W2, shp)) * (A + B), Z = Gather(Y, idx, axis 1), and an If
      on C whose branches read Y and hold Constant nodes: the then branch
      adds K (the bytes of A) and Add(K2, K3) (folds in the branch), the
      else branch subtracts K (the bytes of A again). _raw holds payloads
      in raw_data, _typed in float_data / int64_data.
  defaults_ir8.onnx
      ir_version 8, opset 13: X (float [2,3]) and two equal initializers
      W1, W2 (float [3,4]) that are also graph inputs (overridable
      defaults), and S (int64 [2], equal to nothing) also an input;
      Y = X@W1 * X@W2, Z = Reshape(Y, S).
  qdq13.onnx, qdq19.onnx, qdq21.onnx
      a quantized (QDQ) model at opset 13 / 19 / 21 (ir_version 7 / 8 / 8:
      python3-onnx's checker knows neither IR 9 nor opsets past 17):
      X float [1,2,4,4] -> QuantizeLinear/DequantizeLinear -> Conv whose
      weight is DequantizeLinear(int8 [3,2,3,3], per-axis scales, axis 0)
      and bias DequantizeLinear(int32 [3], per-axis) -> Q/DQ -> Flatten ->
      MatMul by DequantizeLinear(int8 [48,5], per-tensor) -> Add of
      DequantizeLinear(int32 [5], per-tensor) -> Q/DQ -> Y; and Y2 = the
      flattened values times a float weight wf [48] stored as such and
      quantized in the graph: DequantizeLinear(QuantizeLinear(wf)).
  shape_decl.onnx
      ir_version 8, opset 13: input x declared [1,3,"H",W?] (a fixed 1, a
      fixed 3, a symbolic H, an unknown dim), y = Shape(Relu(x)).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tensor(name, arr, typed):
    if not typed:
        return numpy_helper.from_array(arr, name)
    dt = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}[arr.dtype]
    return helper.make_tensor(name, dt, list(arr.shape), arr.flatten().tolist(), raw=False)


def const_node(out, arr):
    return helper.make_node("Constant", [], [out], value=numpy_helper.from_array(arr, out + "_v"))


def ir3(typed):
    w = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4
    a = np.array([1.5, -2, 0.25, 3], dtype=np.float32)
    b = np.array([0.5, 1, -1.25, 2], dtype=np.float32)
    inits = {
        "W1": w, "W2": w.copy(), "idx": np.array([0, 2], dtype=np.int64), "A": a, "B": b,
        "shp": np.array([3, 4], dtype=np.int64),
    }
    then_g = helper.make_graph(
        [const_node("K", a), const_node("K2", np.array([1, 2, 3, 4], dtype=np.float32)),
         const_node("K3", np.array([4, 3, 2, 1], dtype=np.float32)),
         helper.make_node("Add", ["K2", "K3"], ["k23"]),
         helper.make_node("Add", ["Y", "K"], ["t1"]), helper.make_node("Add", ["t1", "k23"], ["t_out"])],
        "then", [], [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, [2, 4])])
    else_g = helper.make_graph(
        [const_node("Ke", a), helper.make_node("Sub", ["Y", "Ke"], ["e_out"])],
        "else", [], [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, [2, 4])])
    nodes = [
        helper.make_node("MatMul", ["X", "W1"], ["a"]),
        helper.make_node("Reshape", ["W2", "shp"], ["w2r"]),
        helper.make_node("MatMul", ["X", "w2r"], ["b"]),
        helper.make_node("Mul", ["a", "b"], ["s"]),
        helper.make_node("Add", ["A", "B"], ["ab"]),
        helper.make_node("Mul", ["s", "ab"], ["Y"]),
        helper.make_node("Gather", ["Y", "idx"], ["Z"], axis=1),
        helper.make_node("If", ["C"], ["I"], then_branch=then_g, else_branch=else_g),
    ]
    vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT if inits[n].dtype == np.float32 else
                                                 TensorProto.INT64, list(inits[n].shape))
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3]), vi("W1"),
              helper.make_tensor_value_info("C", TensorProto.BOOL, []), vi("W2"), vi("idx"), vi("A"), vi("B"),
              vi("shp")]
    g = helper.make_graph(nodes, "ir3", inputs,
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 4]),
                           helper.make_tensor_value_info("Z", TensorProto.FLOAT, [2, 2]),
                           helper.make_tensor_value_info("I", TensorProto.FLOAT, [2, 4])],
                          [tensor(n, v, typed) for n, v in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 8)], ir_version=3,
                             producer_name="gen_inputs_models")


def defaults_ir8():
    w = (np.arange(12, dtype=np.float32).reshape(3, 4) - 4) / 8
    inits = [numpy_helper.from_array(w, "W1"), numpy_helper.from_array(w.copy(), "W2"),
             numpy_helper.from_array(np.array([4, 2], dtype=np.int64), "S")]
    nodes = [
        helper.make_node("MatMul", ["X", "W1"], ["a"]),
        helper.make_node("MatMul", ["X", "W2"], ["b"]),
        helper.make_node("Mul", ["a", "b"], ["Y"]),
        helper.make_node("Reshape", ["Y", "S"], ["Z"]),
    ]
    inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3]),
              helper.make_tensor_value_info("W1", TensorProto.FLOAT, [3, 4]),
              helper.make_tensor_value_info("W2", TensorProto.FLOAT, [3, 4]),
              helper.make_tensor_value_info("S", TensorProto.INT64, [2])]
    g = helper.make_graph(nodes, "defaults", inputs,
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 4]),
                           helper.make_tensor_value_info("Z", TensorProto.FLOAT, [4, 2])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8,
                             producer_name="gen_inputs_models")


def qdq(opset, ir):
    rng = np.random.default_rng(opset)
    f = lambda *v: np.array(v, dtype=np.float32)
    inits = [
        numpy_helper.from_array(f(0.02), "xs"), numpy_helper.from_array(np.array(128, dtype=np.uint8), "xz"),
        numpy_helper.from_array(rng.integers(-100, 100, (3, 2, 3, 3)).astype(np.int8), "wq"),
        numpy_helper.from_array(f(0.01, 0.02, 0.005), "ws"),
        numpy_helper.from_array(np.zeros(3, dtype=np.int8), "wz"),
        numpy_helper.from_array(np.array([100, -50, 7], dtype=np.int32), "bq"),
        numpy_helper.from_array(f(0.0002, 0.0004, 0.0001), "bs"),
        numpy_helper.from_array(f(0.05), "ys"), numpy_helper.from_array(np.array(128, dtype=np.uint8), "yz"),
        numpy_helper.from_array(rng.integers(-120, 120, (48, 5)).astype(np.int8), "mq"),
        numpy_helper.from_array(f(0.003), "ms"), numpy_helper.from_array(np.array(0, dtype=np.int8), "mz"),
        numpy_helper.from_array(np.array([10, -20, 30, -40, 50], dtype=np.int32), "aq"),
        numpy_helper.from_array(f(0.00015), "as"),
        numpy_helper.from_array(f(0.1), "zs"), numpy_helper.from_array(np.array(128, dtype=np.uint8), "zz"),
        numpy_helper.from_array(rng.uniform(-1, 1, 48).astype(np.float32), "wf"),
        numpy_helper.from_array(f(0.008), "fs"), numpy_helper.from_array(np.array(0, dtype=np.int8), "fz"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["X", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], axis=0),
        helper.make_node("DequantizeLinear", ["bq", "bs"], ["bd"], axis=0),
        helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"]),
        helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["cd"]),
        helper.make_node("Flatten", ["cd"], ["fl"]),
        helper.make_node("DequantizeLinear", ["mq", "ms", "mz"], ["md"]),
        helper.make_node("MatMul", ["fl", "md"], ["mm"]),
        helper.make_node("DequantizeLinear", ["aq", "as"], ["ad"]),
        helper.make_node("Add", ["mm", "ad"], ["ma"]),
        helper.make_node("QuantizeLinear", ["ma", "zs", "zz"], ["mq8"]),
        helper.make_node("DequantizeLinear", ["mq8", "zs", "zz"], ["Y"]),
        helper.make_node("QuantizeLinear", ["wf", "fs", "fz"], ["wfq"]),
        helper.make_node("DequantizeLinear", ["wfq", "fs", "fz"], ["wfd"]),
        helper.make_node("Mul", ["fl", "wfd"], ["Y2"]),
    ]
    g = helper.make_graph(nodes, "qdq%d" % opset, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 4, 4])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 5]),
                           helper.make_tensor_value_info("Y2", TensorProto.FLOAT, [1, 48])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir,
                             producer_name="gen_inputs_models")


def shape_decl():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "H", None])
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Shape", ["r"], ["y"])]
    g = helper.make_graph(nodes, "shape_decl", [x], [helper.make_tensor_value_info("y", TensorProto.INT64, [4])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8,
                             producer_name="gen_inputs_models")


def main():
    out = sys.argv[1]
    models = {
        "ir3_raw.onnx": ir3(False), "ir3_typed.onnx": ir3(True), "defaults_ir8.onnx": defaults_ir8(),
        "qdq13.onnx": qdq(13, 7), "qdq19.onnx": qdq(19, 8), "qdq21.onnx": qdq(21, 8),
        "shape_decl.onnx": shape_decl(),
    }
    for name, m in models.items():
        if m.opset_import[0].version <= 17:      # newer than python3-onnx's checker
            onnx.checker.check_model(m)
        onnx.save(m, os.path.join(out, name))


if __name__ == "__main__":
    main()
