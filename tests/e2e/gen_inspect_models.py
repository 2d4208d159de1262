#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the inspect suite (tests/test_inspect.c), each
built so that what scs4onnx-inspect should say of it is known.

Usage:
    /usr/bin/python3 gen_inspect_models.py OUTDIR

Needs python3-onnx and python3-numpy. Every model passes
onnx.checker.check_model. The output is deterministic.

Files written to OUTDIR:

  insp_nested.onnx
      IR 8, opset 17; inputs x float [batch, 8] (batch symbolic), cond bool
      [], trip int64 []; outputs y float [batch, 16], z float [batch, 16],
      nan bool [3]. Main graph: h = MatMul(x, W) (W [8, 16] raw); hb =
      Add(h, B) (B [16] in float_data); hh = Add(hb, Cast(H16)) (H16
      float16 [16] in int32_data); g = Gather(E, idx) (E [20, 16] raw, idx
      int64 [4] in int64_data) and e = MatMul(h, E_T) (E_T [16, 20] =
      E.T: a transposed pair); nan = IsNaN(D64) (D64 float64 [3], exact
      values in double_data: downcast); y = If(cond): then Add(hh, KT)
      with KT a Constant node equal to B, else Add(hh, K2) with K2 a body
      initializer equal to B; z = Identity(Loop(trip, cond, hh)) whose body
      adds L, a body initializer equal to B. B, KT, K2, L: one group of
      identical constants.
  insp_ext.onnx, insp_ext.a.data, insp_ext.b.data
      IR 8, opset 17; y = x + P + Q + R + S, each float [1024] (4096
      bytes): P and Q in insp_ext.a.data at offsets 0 and 4160 (aligned to
      64), R in insp_ext.b.data at 0 and S at 8192 (aligned to 8192; S's
      bytes equal P's); one inline tensor T float [4] raw (y2 = x4 + T).
  insp_map.onnx
      IR 8, opset 17; three constants of 200000, 120000 and 80000 bytes
      (T0, T1, T2, float32 raw), each added to an input of its size: the
      treemap's rectangles take 50, 30 and 20 percent of it.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def raw(name, array):
    return numpy_helper.from_array(array, name)


def save(model, outdir, name):
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(outdir, name))


def make_model(graph, opset=17):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="gen_inspect_models")
    m.ir_version = 8
    return m


def gen_nested(outdir):
    rng = np.random.default_rng(25)
    w = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    e = rng.standard_normal((20, 16)).astype(np.float32)
    h16 = rng.standard_normal(16).astype(np.float16)
    B = helper.make_tensor("B", FLOAT, [16], b.tolist())
    H16 = TensorProto(name="H16", data_type=TensorProto.FLOAT16, dims=[16])
    H16.int32_data.extend(h16.view(np.uint16).astype(np.int32).tolist())
    idx = helper.make_tensor("idx", TensorProto.INT64, [4], [0, 3, 5, 19])
    d64 = TensorProto(name="D64", data_type=TensorProto.DOUBLE, dims=[3])
    d64.double_data.extend([0.5, -1.25, 3.0])
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["KT"], value=numpy_helper.from_array(b.copy(), "KT")),
         helper.make_node("Add", ["hh", "KT"], ["ty"])],
        "then", [], [vi("ty", FLOAT, ["batch", 16])])
    else_g = helper.make_graph(
        [helper.make_node("Add", ["hh", "K2"], ["ey"])],
        "else", [], [vi("ey", FLOAT, ["batch", 16])], initializer=[raw("K2", b.copy())])
    body = helper.make_graph(
        [helper.make_node("Add", ["v", "L"], ["v2"]),
         helper.make_node("Identity", ["c"], ["c2"])],
        "body", [vi("i", TensorProto.INT64, []), vi("c", TensorProto.BOOL, []), vi("v", FLOAT, ["batch", 16])],
        [vi("c2", TensorProto.BOOL, []), vi("v2", FLOAT, ["batch", 16])], initializer=[raw("L", b.copy())])
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["h"]),
        helper.make_node("Add", ["h", "B"], ["hb"]),
        helper.make_node("Cast", ["H16"], ["h16f"], to=FLOAT),
        helper.make_node("Add", ["hb", "h16f"], ["hh"]),
        helper.make_node("Gather", ["E", "idx"], ["g"], axis=0),
        helper.make_node("MatMul", ["h", "E_T"], ["e"]),
        helper.make_node("IsNaN", ["D64"], ["nan"]),
        helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["trip", "cond", "hh"], ["zl"], body=body),
        helper.make_node("Identity", ["zl"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "nested",
        [vi("x", FLOAT, ["batch", 8]), vi("cond", TensorProto.BOOL, []), vi("trip", TensorProto.INT64, [])],
        [vi("y", FLOAT, ["batch", 16]), vi("z", FLOAT, ["batch", 16]), vi("nan", TensorProto.BOOL, [3]),
         vi("g", FLOAT, [4, 16]), vi("e", FLOAT, ["batch", 20])],
        initializer=[raw("W", w), B, H16, raw("E", e), raw("E_T", np.ascontiguousarray(e.T)), idx, d64])
    save(make_model(graph), outdir, "insp_nested.onnx")


def external(tensor, location, offset, length):
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = tensor.external_data.add()
        entry.key = k
        entry.value = v


def gen_ext(outdir):
    rng = np.random.default_rng(26)
    p, q, r = (rng.standard_normal(1024).astype(np.float32) for _ in range(3))
    s = p.copy()
    a = bytearray(4160 + 4096)
    a[0:4096] = p.tobytes()
    a[4160:4160 + 4096] = q.tobytes()
    b = bytearray(8192 + 4096)
    b[0:4096] = r.tobytes()
    b[8192:8192 + 4096] = s.tobytes()
    inits = []
    for name, arr, loc, off in (("P", p, "insp_ext.a.data", 0), ("Q", q, "insp_ext.a.data", 4160),
                                ("R", r, "insp_ext.b.data", 0), ("S", s, "insp_ext.b.data", 8192)):
        t = raw(name, arr)
        external(t, loc, off, 4096)
        inits.append(t)
    inits.append(raw("T", np.array([1, 2, 3, 4], dtype=np.float32)))
    nodes = [
        helper.make_node("Add", ["x", "P"], ["a1"]),
        helper.make_node("Add", ["a1", "Q"], ["a2"]),
        helper.make_node("Add", ["a2", "R"], ["a3"]),
        helper.make_node("Add", ["a3", "S"], ["y"]),
        helper.make_node("Add", ["x4", "T"], ["y2"]),
    ]
    graph = helper.make_graph(nodes, "ext", [vi("x", FLOAT, [1024]), vi("x4", FLOAT, [4])],
                              [vi("y", FLOAT, [1024]), vi("y2", FLOAT, [4])], initializer=inits)
    model = make_model(graph)
    with open(os.path.join(outdir, "insp_ext.a.data"), "wb") as f:
        f.write(a)
    with open(os.path.join(outdir, "insp_ext.b.data"), "wb") as f:
        f.write(b)
    path = os.path.join(outdir, "insp_ext.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    onnx.checker.check_model(path)


def gen_map(outdir):
    inits, nodes, ins, outs = [], [], [], []
    for i, n in enumerate((50000, 30000, 20000)):
        inits.append(raw("T%d" % i, np.full(n, i + 1, dtype=np.float32)))
        nodes.append(helper.make_node("Add", ["x%d" % i, "T%d" % i], ["y%d" % i]))
        ins.append(vi("x%d" % i, FLOAT, [n]))
        outs.append(vi("y%d" % i, FLOAT, [n]))
    save(make_model(helper.make_graph(nodes, "map", ins, outs, initializer=inits)), outdir, "insp_map.onnx")


def main():
    outdir = sys.argv[1]
    gen_nested(outdir)
    gen_ext(outdir)
    gen_map(outdir)


if __name__ == "__main__":
    main()
