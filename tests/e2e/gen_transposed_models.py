#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the transposed suite (tests/test_transposed.c):
2-D constants stored twice, once transposed, which scs4onnx-shrink keeps
once (the other read through a Transpose), and near misses it must leave.

Usage:
    /usr/bin/python3 gen_transposed_models.py OUTDIR

Needs python3-onnx and python3-numpy. The models up to opset 17 pass
onnx.checker.check_model (python3-onnx knows no newer opset); every one runs
in ONNX Runtime. The output is deterministic.

Files written to OUTDIR:

  tr_gpt_f32_17.onnx, tr_gpt_f32_21.onnx, tr_gpt_f16_17.onnx, tr_gpt_f16_21.onnx
      a GPT-like tied embedding saved transposed: wte [50, 12] (the Gather
      table) and wte_T [12, 50] = wte.T (the output projection), float32
      or float16, opset 17 (IR 8) or 21 (IR 10). ids3 int64 [2, 5] and
      ids2 int64 [5]; h3 = Gather(wte, ids3) + x3 (float [2, 5, 12]),
      h2 = Gather(wte, ids2) + x2 ([5, 12]); logits3 = MatMul(h3, wte_T)
      (3-D activations), logits2 = MatMul(h2, wte_T) (2-D). _17 holds its
      payloads typed (float_data; int32_data for float16), _21 raw.
  tr_chunk.onnx, tr_chunk_swap.onnx
      as tr_gpt_f32 at opset 17 with wte [600, 512] (1.2 MiB, over one
      store chunk) in float_data (so in the store) and wte_T in raw_data;
      tr_chunk_swap.onnx the other way round.
  tr_if.onnx
      opset 13, an If on cond: the then branch holds the pair P [7, 5] (read
      by MatMul) and P_T [5, 7] (read by Gather) as its own initializers;
      the else branch holds A_T [5, 6] (read by Gather) as a Constant node
      whose pair A [6, 5] is a main-graph initializer read by MatMuls in the
      branch. x float [3, 6], u [3, 7], idx int64 [3]; y [3, 5].
  tr_sibling.onnx
      opset 13, an If whose then branch holds K [6, 4] (read by MatMul) and
      whose else branch holds K_T [4, 6] (read by Gather), Constant nodes:
      siblings, left alone.
  tr_const.onnx
      opset 13, Constant nodes C_T [9, 4] (read by Gather, first in the
      node list) and C [4, 9] (read by MatMuls, after it); y = MatMul(x, C)
      + MatMul(Gather(C_T, idx), C).
  tr_square.onnx
      opset 13, initializers S [8, 8] (read by MatMul) and S_T = S.T (read
      by Gather), a symmetric Q [6, 6] and an identical copy Q2 (dedup's,
      not a transposed pair), both read by MatMuls.
  tr_qdq.onnx
      opset 13, int8 weights W [16, 8] and W_T [8, 16] = W.T, each read by
      a DequantizeLinear (per-tensor scale and zero point) feeding a MatMul.
  tr_ir3.onnx
      IR version 3, opset 8: W [5, 3] (read by MatMul) and W_T [3, 5] = W.T
      (read by Gather), listed among the graph inputs as that IR required.
  tr_near.onnx
      opset 13: N [10, 12] (MatMul) and N_T [12, 10] (Gather), N.T but for
      one element at a position the signature does not sample (row 3,
      column 5 of N_T); R [1, 20] (MatMul) and R_T [20, 1] = R.T (Gather;
      the same bytes: a reshape too); M [3, 4] and M_T [4, 3] = M.T, both
      read by MatMul.
  tr_outputs.onnx
      opset 13: O [4, 6] (read by Gather) and O_T [6, 4] = O.T, a graph
      output; G [3, 5] and G_T [5, 3] = G.T, both graph outputs.
  tr_default.onnx
      IR 8, opset 13: D [3, 5] an initializer that is also a graph input and
      D_T [5, 3] = D.T; t = MatMul(x, D), y = Gather(D_T, idx).
  tr_bf16_op12.onnx, tr_bf16_op13.onnx
      bfloat16 W [4, 6] (read by Concat) and W_T = W.T (read by Gather), at
      opset 12 (Transpose takes no bfloat16 before opset 13) and 13.
  tr_capture.onnx
      opset 13: A [6, 5] in the main graph (read by MatMul); a Loop whose
      body's carried input is also named A holds A_T [5, 6] = A.T as a
      Constant node read by Gather: a Transpose of A there would read the
      body's A.
  tr_pair_a.onnx, tr_pair_b.onnx
      two models sharing a tied weight: _a reads wte_T [12, 50] by a MatMul,
      _b reads wte [50, 12] = wte_T.T by a Gather (for the pass across
      models).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = TensorProto.FLOAT
F16 = TensorProto.FLOAT16
I64 = TensorProto.INT64


def rand(shape, seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def tensor(name, arr, typed):
    """@arr as a TensorProto: raw_data, or typed (float_data, int32_data for float16)."""
    if not typed:
        return numpy_helper.from_array(arr, name)
    if arr.dtype == np.float16:
        t = TensorProto()
        t.name = name
        t.data_type = F16
        t.dims.extend(arr.shape)
        t.int32_data.extend(arr.view(np.uint16).flatten().astype(np.int32).tolist())
        return t
    return helper.make_tensor(name, F32, list(arr.shape), arr.flatten().tolist(), raw=False)


def save(outdir, name, graph, opset, ir=None):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="gen_transposed_models")
    m.ir_version = ir if ir is not None else (10 if opset >= 21 else 8 if opset >= 13 else 7)
    if opset <= 17:
        onnx.checker.check_model(m)
    onnx.save(m, os.path.join(outdir, name))


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def gpt(outdir, name, dtype, opset, typed, v=50, d=12, wte_typed=None, wte_t_typed=None):
    elem = F16 if dtype == np.float16 else F32
    wte = rand((v, d), 7 + v, dtype)
    wte_t = np.ascontiguousarray(wte.T)
    wt = typed if wte_typed is None else wte_typed
    wtt = typed if wte_t_typed is None else wte_t_typed
    nodes = [
        helper.make_node("Gather", ["wte", "ids3"], ["e3"], name="gather3"),
        helper.make_node("Add", ["e3", "x3"], ["h3"], name="add3"),
        helper.make_node("MatMul", ["h3", "wte_T"], ["logits3"], name="lm_head3"),
        helper.make_node("Gather", ["wte", "ids2"], ["e2"], name="gather2"),
        helper.make_node("Add", ["e2", "x2"], ["h2"], name="add2"),
        helper.make_node("MatMul", ["h2", "wte_T"], ["logits2"], name="lm_head2"),
    ]
    g = helper.make_graph(
        nodes, "gpt",
        [vi("ids3", I64, [2, 5]), vi("x3", elem, [2, 5, d]), vi("ids2", I64, [5]), vi("x2", elem, [5, d])],
        [vi("logits3", elem, [2, 5, v]), vi("logits2", elem, [5, v])],
        [tensor("wte", wte, wt), tensor("wte_T", wte_t, wtt)])
    save(outdir, name, g, opset)


def const_node(out, arr, name=None):
    return helper.make_node("Constant", [], [out], name=name or ("const_" + out),
                            value=numpy_helper.from_array(arr, out + "_v"))


def if_model(outdir):
    p = rand((7, 5), 21)
    a = rand((6, 5), 22)
    then_g = helper.make_graph(
        [helper.make_node("MatMul", ["u", "P"], ["t1"], name="then_mm1"),
         helper.make_node("Gather", ["P_T", "idx"], ["t2"], name="then_gather"),
         helper.make_node("MatMul", ["t2", "P"], ["t3"], name="then_mm2"),
         helper.make_node("Add", ["t1", "t3"], ["t_out"], name="then_add")],
        "then", [], [vi("t_out", F32, [3, 5])],
        [numpy_helper.from_array(p, "P"), numpy_helper.from_array(np.ascontiguousarray(p.T), "P_T")])
    else_g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "A"], ["e1"], name="else_mm1"),
         const_node("A_T", np.ascontiguousarray(a.T)),
         helper.make_node("Gather", ["A_T", "idx"], ["e2"], name="else_gather"),
         helper.make_node("MatMul", ["e2", "A"], ["e3"], name="else_mm2"),
         helper.make_node("Add", ["e1", "e3"], ["e_out"], name="else_add")],
        "else", [], [vi("e_out", F32, [3, 5])])
    g = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
        "if_pairs",
        [vi("cond", TensorProto.BOOL, []), vi("x", F32, [3, 6]), vi("u", F32, [3, 7]), vi("idx", I64, [3])],
        [vi("y", F32, [3, 5])], [numpy_helper.from_array(a, "A")])
    save(outdir, "tr_if.onnx", g, 13)


def sibling_model(outdir):
    k = rand((6, 4), 31)
    then_g = helper.make_graph(
        [const_node("K", k), helper.make_node("MatMul", ["x", "K"], ["t_out"], name="then_mm")],
        "then", [], [vi("t_out", F32, [2, 4])])
    else_g = helper.make_graph(
        [const_node("K_T", np.ascontiguousarray(k.T)),
         helper.make_node("Gather", ["K_T", "idx"], ["e1"], name="else_gather"),
         helper.make_node("Slice", ["e1", "starts", "ends"], ["e_out"], name="else_slice")],
        "else", [], [vi("e_out", F32, [2, 4])])
    g = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)],
        "siblings", [vi("cond", TensorProto.BOOL, []), vi("x", F32, [2, 6]), vi("idx", I64, [2])],
        [vi("y", F32, [2, 4])],
        [numpy_helper.from_array(np.array([0, 0], dtype=np.int64), "starts"),
         numpy_helper.from_array(np.array([2, 4], dtype=np.int64), "ends")])
    save(outdir, "tr_sibling.onnx", g, 13)


def const_model(outdir):
    c = rand((4, 9), 41)
    g = helper.make_graph(
        [const_node("C_T", np.ascontiguousarray(c.T)),
         helper.make_node("Gather", ["C_T", "idx"], ["g"], name="gather"),
         const_node("C", c),
         helper.make_node("MatMul", ["x", "C"], ["t"], name="mm1"),
         helper.make_node("MatMul", ["g", "C"], ["t2"], name="mm2"),
         helper.make_node("Add", ["t", "t2"], ["y"], name="add")],
        "consts", [vi("x", F32, [2, 4]), vi("idx", I64, [2])], [vi("y", F32, [2, 9])])
    save(outdir, "tr_const.onnx", g, 13)


def square_model(outdir):
    s = rand((8, 8), 51)
    q = rand((6, 6), 52)
    q = q + q.T
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "S"], ["t"], name="mm1"),
         helper.make_node("Gather", ["S_T", "idx"], ["y"], name="gather"),
         helper.make_node("MatMul", ["z", "Q"], ["u"], name="mm3"),
         helper.make_node("MatMul", ["u", "Q2"], ["w"], name="mm4")],
        "square", [vi("x", F32, [2, 8]), vi("idx", I64, [2]), vi("z", F32, [2, 6])],
        [vi("t", F32, [2, 8]), vi("y", F32, [2, 8]), vi("w", F32, [2, 6])],
        [numpy_helper.from_array(s, "S"), numpy_helper.from_array(np.ascontiguousarray(s.T), "S_T"),
         numpy_helper.from_array(q, "Q"), numpy_helper.from_array(q.copy(), "Q2")])
    save(outdir, "tr_square.onnx", g, 13)


def qdq_model(outdir):
    rng = np.random.default_rng(61)
    w = rng.integers(-128, 128, size=(16, 8)).astype(np.int8)
    g = helper.make_graph(
        [helper.make_node("DequantizeLinear", ["W", "sc", "zp"], ["wf"], name="dq_w"),
         helper.make_node("MatMul", ["x", "wf"], ["y"], name="mm1"),
         helper.make_node("DequantizeLinear", ["W_T", "sc", "zp"], ["wtf"], name="dq_wt"),
         helper.make_node("MatMul", ["z", "wtf"], ["v"], name="mm2")],
        "qdq", [vi("x", F32, [3, 16]), vi("z", F32, [3, 8])], [vi("y", F32, [3, 8]), vi("v", F32, [3, 16])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(np.ascontiguousarray(w.T), "W_T"),
         numpy_helper.from_array(np.array(0.05, dtype=np.float32), "sc"),
         numpy_helper.from_array(np.array(3, dtype=np.int8), "zp")])
    save(outdir, "tr_qdq.onnx", g, 13)


def ir3_model(outdir):
    w = rand((5, 3), 71)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["t"], name="mm1"),
         helper.make_node("Gather", ["W_T", "idx"], ["y"], name="gather")],
        "ir3", [vi("x", F32, [2, 5]), vi("W", F32, [5, 3]), vi("idx", I64, [2]), vi("W_T", F32, [3, 5])],
        [vi("t", F32, [2, 3]), vi("y", F32, [2, 5])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(np.ascontiguousarray(w.T), "W_T")])
    save(outdir, "tr_ir3.onnx", g, 8, ir=3)


def near_model(outdir):
    n = rand((10, 12), 81)
    n_t = np.ascontiguousarray(n.T)
    n_t[3, 5] += 1.0
    r = rand((1, 20), 82)
    mm = rand((3, 4), 83)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "N"], ["t"], name="mm1"),
         helper.make_node("Gather", ["N_T", "idx"], ["y"], name="gather1"),
         helper.make_node("MatMul", ["s", "R"], ["q"], name="mm3"),
         helper.make_node("Gather", ["R_T", "idx"], ["r"], name="gather2"),
         helper.make_node("MatMul", ["a", "M"], ["m1"], name="mm5"),
         helper.make_node("MatMul", ["m1", "M_T"], ["m2"], name="mm6")],
        "near", [vi("x", F32, [2, 10]), vi("idx", I64, [2]), vi("s", F32, [3, 1]), vi("a", F32, [2, 3])],
        [vi("t", F32, [2, 12]), vi("y", F32, [2, 10]), vi("q", F32, [3, 20]), vi("r", F32, [2, 1]),
         vi("m2", F32, [2, 3])],
        [numpy_helper.from_array(n, "N"), numpy_helper.from_array(n_t, "N_T"),
         numpy_helper.from_array(r, "R"), numpy_helper.from_array(np.ascontiguousarray(r.T), "R_T"),
         numpy_helper.from_array(mm, "M"), numpy_helper.from_array(np.ascontiguousarray(mm.T), "M_T")])
    save(outdir, "tr_near.onnx", g, 13)


def outputs_model(outdir):
    o = rand((4, 6), 91)
    gg = rand((3, 5), 92)
    g = helper.make_graph(
        [helper.make_node("Gather", ["O", "idx"], ["y"], name="gather")],
        "outputs", [vi("idx", I64, [2])],
        [vi("y", F32, [2, 6]), vi("O_T", F32, [6, 4]), vi("G", F32, [3, 5]), vi("G_T", F32, [5, 3])],
        [numpy_helper.from_array(o, "O"), numpy_helper.from_array(np.ascontiguousarray(o.T), "O_T"),
         numpy_helper.from_array(gg, "G"), numpy_helper.from_array(np.ascontiguousarray(gg.T), "G_T")])
    save(outdir, "tr_outputs.onnx", g, 13)


def default_model(outdir):
    d = rand((3, 5), 101)
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "D"], ["t"], name="mm1"),
         helper.make_node("Gather", ["D_T", "idx"], ["y"], name="gather")],
        "defaults", [vi("x", F32, [2, 3]), vi("D", F32, [3, 5]), vi("idx", I64, [2])],
        [vi("t", F32, [2, 5]), vi("y", F32, [2, 3])],
        [numpy_helper.from_array(d, "D"), numpy_helper.from_array(np.ascontiguousarray(d.T), "D_T")])
    save(outdir, "tr_default.onnx", g, 13)


def pair_models(outdir):
    wte = rand((50, 12), 57)
    ga = helper.make_graph(
        [helper.make_node("MatMul", ["x", "wte_T"], ["logits"], name="lm_head")],
        "decoder_head", [vi("x", F32, [2, 12])], [vi("logits", F32, [2, 50])],
        [numpy_helper.from_array(np.ascontiguousarray(wte.T), "wte_T")])
    save(outdir, "tr_pair_a.onnx", ga, 13)
    gb = helper.make_graph(
        [helper.make_node("Gather", ["wte", "ids"], ["emb"], name="embed")],
        "encoder_embed", [vi("ids", I64, [3])], [vi("emb", F32, [3, 12])],
        [numpy_helper.from_array(wte, "wte")])
    save(outdir, "tr_pair_b.onnx", gb, 13)


def bf16_model(outdir, opset):
    w = rand((4, 6), 111)
    bits = (w.view(np.uint32) >> 16).astype(np.uint16)     # bfloat16: the high half of each float32

    def bf16(name, arr):
        t = TensorProto()
        t.name = name
        t.data_type = TensorProto.BFLOAT16
        t.dims.extend(arr.shape)
        t.raw_data = np.ascontiguousarray(arr).tobytes()
        return t
    g = helper.make_graph(
        [helper.make_node("Concat", ["W", "W"], ["c"], axis=0, name="cat"),
         helper.make_node("Gather", ["W_T", "idx"], ["y"], name="gather")],
        "bf16", [vi("idx", I64, [2])], [vi("c", TensorProto.BFLOAT16, [8, 6]), vi("y", TensorProto.BFLOAT16, [2, 4])],
        [bf16("W", bits), bf16("W_T", bits.T)])
    save(outdir, "tr_bf16_op%d.onnx" % opset, g, opset)


def capture_model(outdir):
    a = rand((6, 5), 121)
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         const_node("A_T", np.ascontiguousarray(a.T)),
         helper.make_node("Gather", ["A_T", "idx"], ["g"], name="body_gather"),
         helper.make_node("MatMul", ["g", "A"], ["s"], name="body_mm"),
         helper.make_node("Identity", ["A"], ["A_next"], name="body_carry")],
        "body", [vi("iter", I64, []), vi("cond_in", TensorProto.BOOL, []), vi("A", F32, [6, 5])],
        [vi("cond_out", TensorProto.BOOL, []), vi("A_next", F32, [6, 5]), vi("s", F32, [2, 5])])
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "A"], ["t"], name="mm"),
         helper.make_node("Loop", ["trip", "cond", "z"], ["z_out", "scan"], name="loop", body=body)],
        "capture",
        [vi("x", F32, [2, 6]), vi("trip", I64, []), vi("cond", TensorProto.BOOL, []), vi("z", F32, [6, 5]),
         vi("idx", I64, [2])],
        [vi("t", F32, [2, 5]), vi("z_out", F32, [6, 5]), vi("scan", F32, [None, 2, 5])],
        [numpy_helper.from_array(a, "A")])
    save(outdir, "tr_capture.onnx", g, 13)


def main(outdir):
    gpt(outdir, "tr_gpt_f32_17.onnx", np.float32, 17, True)
    gpt(outdir, "tr_gpt_f32_21.onnx", np.float32, 21, False)
    gpt(outdir, "tr_gpt_f16_17.onnx", np.float16, 17, True)
    gpt(outdir, "tr_gpt_f16_21.onnx", np.float16, 21, False)
    gpt(outdir, "tr_chunk.onnx", np.float32, 17, False, v=600, d=512, wte_typed=True, wte_t_typed=False)
    gpt(outdir, "tr_chunk_swap.onnx", np.float32, 17, False, v=600, d=512, wte_typed=False, wte_t_typed=True)
    if_model(outdir)
    sibling_model(outdir)
    const_model(outdir)
    square_model(outdir)
    qdq_model(outdir)
    ir3_model(outdir)
    near_model(outdir)
    outputs_model(outdir)
    default_model(outdir)
    pair_models(outdir)
    bf16_model(outdir, 12)
    bf16_model(outdir, 13)
    capture_model(outdir)


if __name__ == "__main__":
    main(sys.argv[1])
