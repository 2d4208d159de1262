#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the share suite (tests/test_share.c): sets of
models that ship together and hold some weights in common.

Usage:
    /usr/bin/python3 gen_share_models.py OUTDIR

Needs python3-onnx and python3-numpy. Every model passes
onnx.checker.check_model and runs in ONNX Runtime. The output is
deterministic. Integer inputs are indices: ort_compare.mjs feeds 0 or 1.

Files written to OUTDIR (float32 unless said; [64,64] weights are 16 KiB):

  share_dec.onnx, share_dec_past.onnx
      a decoder and a decoder-with-past (ir_version 8, opset 17) sharing
      wte [64,64], w1 [64,64] and w2 [64,64], each with a head of its own
      (head [64,16], 4 KiB, different values; the same name in both).
      dec: ids int64 [1,4] -> Gather(wte) -> MatMul w1 -> Relu -> MatMul w2
      -> MatMul head -> y; and z = that Relu's output times w2b, an
      initializer equal to w2 (a duplicate within the model). dec_past:
      ids int64 [1,1], past [1,3,64] -> Concat(past, Gather(wte, ids)) ->
      present, and the same layers on it -> y. dec holds its payloads in
      raw_data, dec_past in float_data (typed).
  share_big_a.onnx, share_big_b.onnx
      ir_version 8, opset 13: x [1,512] @ wbig [512,768] (1.5 MiB, more
      than one store chunk, the same in both) @ own [768,8] (different) ->
      y. big_a's payloads are typed (float_data), big_b's raw_data.
  share_if_a.onnx, share_if_b.onnx
      ir_version 8, opset 17: if_a: y = x [1,64] @ wif [64,64]. if_b: an If
      on c (bool []) whose then branch is x @ a Constant node holding the
      bytes of wif and whose else branch is x @ wother; the weight shared
      lies inside the If body.
  share_ir3_a.onnx, share_ir3_b.onnx
      ir_version 3, opset 8, every initializer listed among the graph
      inputs: y = (x [1,64] @ wa) @ wb in a, (x @ wa) @ wc in b; wa shared,
      wb and wc different.
  share_nm_a.onnx, share_nm_b.onnx
      ir_version 8, opset 13: y = x [1,64] @ w @ v. Both name their
      initializers w and v: w has different values in each, v the same
      values; and nm_b's u (used as y2 = x @ u) holds nm_a's w.
  share_tri_a.onnx, share_tri_b.onnx, share_tri_c.onnx
      three models, ir_version 8, opset 13: y = x [1,64] @ t0 @ tX @ ownX:
      t0 in all three, t1 in a and b, t2 in b and c; each an own [64,8].
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weight(seed, shape):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def init(name, arr, typed=False):
    if not typed:
        return numpy_helper.from_array(arr, name)
    return helper.make_tensor(name, TensorProto.FLOAT, list(arr.shape), arr.flatten().tolist(), raw=False)


def save(g, path, opset, ir=8):
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="gen_share_models")
    m.ir_version = ir
    onnx.checker.check_model(m)
    onnx.save(m, path)


def decoders(out):
    wte, w1, w2 = weight(1, (64, 64)), weight(2, (64, 64)), weight(3, (64, 64))
    gather = helper.make_node("Gather", ["wte", "ids"], ["e"])
    layers = [
        helper.make_node("MatMul", ["h", "w1"], ["a"]),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["b"]),
        helper.make_node("MatMul", ["b", "head"], ["y"]),
    ]
    dec = helper.make_graph(
        [gather, helper.make_node("Identity", ["e"], ["h"])] + layers + [helper.make_node("MatMul", ["r", "w2b"], ["z"])],
        "dec", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 16]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4, 64])],
        [init("wte", wte), init("w1", w1), init("w2", w2), init("w2b", w2.copy()),
         init("head", weight(4, (64, 16)))])
    save(dec, os.path.join(out, "share_dec.onnx"), 17)
    past = helper.make_graph(
        [gather, helper.make_node("Concat", ["past", "e"], ["h"], axis=1), helper.make_node("Identity", ["h"], ["present"])]
        + layers,
        "dec_past", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 1]),
                     helper.make_tensor_value_info("past", TensorProto.FLOAT, [1, 3, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 16]),
         helper.make_tensor_value_info("present", TensorProto.FLOAT, [1, 4, 64])],
        [init("wte", wte, True), init("w1", w1, True), init("w2", w2, True), init("head", weight(5, (64, 16)), True)])
    save(past, os.path.join(out, "share_dec_past.onnx"), 17)


def chain(name, ws, typed=False, opset=13, ir=8, inputs_too=False, extra=None):
    """y = x [1,64] @ ws[0] @ ws[1] ... (ws: (name, array) pairs)."""
    nodes, cur = [], "x"
    for i, (wn, _) in enumerate(ws):
        nxt = "y" if i == len(ws) - 1 else "h%d" % i
        nodes.append(helper.make_node("MatMul", [cur, wn], [nxt]))
        cur = nxt
    inits = [init(wn, arr, typed) for wn, arr in ws]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ws[0][1].shape[0]])]
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, ws[-1][1].shape[1]])]
    if extra:
        nodes += extra[0]
        inits += extra[1]
        outs += extra[2]
    if inputs_too:
        ins += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in inits]
    return helper.make_graph(nodes, name, ins, outs, inits)


def big(out):
    wbig = weight(10, (512, 768))
    save(chain("big_a", [("wbig", wbig), ("own", weight(11, (768, 8)))], typed=True),
         os.path.join(out, "share_big_a.onnx"), 13)
    save(chain("big_b", [("wbig", wbig), ("own", weight(12, (768, 8)))]), os.path.join(out, "share_big_b.onnx"), 13)


def if_models(out):
    wif, wother = weight(20, (64, 64)), weight(21, (64, 64))
    save(chain("if_a", [("wif", wif)]), os.path.join(out, "share_if_a.onnx"), 17)
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(wif, "k")),
         helper.make_node("MatMul", ["x", "k"], ["t"])],
        "then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, [1, 64])])
    else_g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "wother"], ["f"])],
        "else", [], [helper.make_tensor_value_info("f", TensorProto.FLOAT, [1, 64])])
    g = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "if_b",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
        [init("wother", wother)])
    save(g, os.path.join(out, "share_if_b.onnx"), 17)


def ir3(out):
    wa = weight(30, (64, 64))
    save(chain("ir3_a", [("wa", wa), ("wb", weight(31, (64, 64)))], opset=8, ir=3, inputs_too=True),
         os.path.join(out, "share_ir3_a.onnx"), 8, ir=3)
    save(chain("ir3_b", [("wa", wa), ("wc", weight(32, (64, 64)))], opset=8, ir=3, inputs_too=True),
         os.path.join(out, "share_ir3_b.onnx"), 8, ir=3)


def names(out):
    wa, wb, v = weight(40, (64, 64)), weight(41, (64, 64)), weight(42, (64, 64))
    save(chain("nm_a", [("w", wa), ("v", v)]), os.path.join(out, "share_nm_a.onnx"), 13)
    extra = ([helper.make_node("MatMul", ["x", "u"], ["y2"])], [init("u", wa)],
             [helper.make_tensor_value_info("y2", TensorProto.FLOAT, [1, 64])])
    save(chain("nm_b", [("w", wb), ("v", v)], extra=extra), os.path.join(out, "share_nm_b.onnx"), 13)


def three(out):
    t0, t1, t2 = weight(50, (64, 64)), weight(51, (64, 64)), weight(52, (64, 64))
    save(chain("tri_a", [("t0", t0), ("t1", t1), ("own", weight(53, (64, 8)))]),
         os.path.join(out, "share_tri_a.onnx"), 13)
    save(chain("tri_b", [("t0", t0), ("t1", t1), ("t2", t2), ("own", weight(54, (64, 8)))]),
         os.path.join(out, "share_tri_b.onnx"), 13)
    save(chain("tri_c", [("t0", t0), ("t2", t2), ("own", weight(55, (64, 8)))]),
         os.path.join(out, "share_tri_c.onnx"), 13)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    decoders(out)
    big(out)
    if_models(out)
    ir3(out)
    names(out)
    three(out)


if __name__ == "__main__":
    main()
