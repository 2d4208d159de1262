#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the fuse suite (tests/test_fuse.c) and, for each
model a pass recomputes weights in, the values it must write.

Usage:
    /usr/bin/python3 gen_fuse_models.py OUTDIR

Needs python3-onnx and python3-numpy. Models are ir_version 8, opset 13
unless named otherwise; each passes onnx.checker.check_model. The output is
deterministic.

For a model NAME.onnx whose weights a fusion recomputes, NAME.expect.npz
holds, under "NODE:SLOT", the tensor that input SLOT of node NODE must hold
afterwards, computed here with numpy from the ONNX operator definitions:
s = scale / sqrt(var + epsilon) in float64, W * s, (f * b - mean) * s + B
(f: Gemm's beta), b + a for a bias, rounded once to the element type
(numpy's float64 -> float16 / float32 conversions round to nearest even;
bfloat16 is rounded here). fuse_check.py compares them bit for bit.

Files (r: ONNX Runtime runs it; x: it does not, checked by value only):

  bn_conv1d       r  Conv 1-D with bias, pads -> BN
  bn_conv2d       r  Conv 2-D, no bias, dilations -> BN whose parameters are
                     Constant nodes (raw tensor, float_data, value_floats) and
                     an initializer in float_data; BN output read twice
  bn_conv3d       r  Conv 3-D with bias, strides -> BN, a graph output
  bn_conv_group   r  Conv group 3 with bias -> BN -> Relu
  bn_conv_dw      r  depthwise Conv -> BN -> Clip -> 1x1 Conv -> BN
  bn_conv_f16     r  float16 Conv with bias -> BN
  bn_conv_f64     x  float64 Conv -> BN (ONNX Runtime has no float64 Conv)
  bn_conv_wide    r  float16 1x1 Conv of 8,300 channels -> BN: a weight over one
                     store chunk, channel factors over one window (8,192)
  bn_conv_typed   r  opset 18 1x1 Conv whose weight (1.28 MB, over one store
                     chunk) is in float_data -> BN
  bn_convt        r  ConvTranspose group 2, strides, output_padding, bias -> BN
  bn_convt1d      r  ConvTranspose 1-D, no bias, dilations -> BN
  bn_gemm         r  Gemm transB=1 alpha=0.5 beta=2 C[N] -> BN
  bn_gemm_noc     r  Gemm transA=1, no C, beta=0.7 -> BN
  bn_gemm_crows   r  Gemm C[M,1] beta=1.5 -> BN
  bn_gemm_f64     r  float64 Gemm, scalar C, beta=0.25 -> BN
  bn_gemm_bf16    x  bfloat16 Gemm transB=1 C[1,N] -> BN (opset 15)
  bn_gemm_wide    r  Gemm B[3,9000] (transB=0) -> BN: every row of B runs
                     through more channel factors than one window holds
  bn_matmul       r  MatMul [4,5] x [5,6] -> BN
  bn_shared       r  one weight read by two Conv -> BN pairs and a ReduceSum;
                     another read by two Conv -> BN pairs only
  bn_nested       r  Conv -> BN inside an If branch, weights from the main graph
  add_bias        r  Conv + Add of [1,C,1,1], of a scalar (Add(a, y)), of [C,1,1]
  matmul_add      r  MatMul + Add of C[N], of C[M,N] (Add(C, y)), of C[M,1]
  chain           r  Conv -> Add -> BN -> Relu and MatMul -> Add -> BN: the
                     passes feed each other over rounds
  fuse_refuse     r  one Conv -> BN that fuses, and beside it every refusal:
                     Conv output read by another node (r_used), Conv output a
                     graph output (r_out), BN scale a graph input with a default
                     (r_input), Conv weight a graph input (r_winput), BN mean
                     computed (r_comp), Add of a graph input (r_addin), Add
                     varying along a spatial axis (r_addspat)
  fuse_train      x  opset 15 BN with training_mode=1 and its two extra outputs
  fuse_train9     x  opset 9 BN with the four extra outputs of training
  fuse_bad        x  bad input: BN parameters longer than the channels (b_len),
                     BN parameters of different lengths (b_mix), a Conv weight
                     of rank 2 (b_rank), group not dividing the channels
                     (b_group), var + epsilon = 0 (b_zero), a BN of a custom
                     domain (b_custom), Gemm C of the wrong width (b_gemmc)
"""

import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
F64 = np.float64
ONNX_OF = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.float64: TensorProto.DOUBLE}


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def make_model(graph, opset=13, extra_opsets=()):
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_fuse_models", opset_imports=imports)
    model.ir_version = 8
    return model


def save(model, outdir, name, expect=None, check=True):
    path = os.path.join(outdir, name + ".onnx")
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    if check:
        onnx.checker.check_model(path)
    if expect is not None:
        np.savez(os.path.join(outdir, name + ".expect.npz"), **expect)
    return path


# ------------------------------------------------------------------ rounding
def to_bf16_bits(x):
    """float64 array -> bfloat16 bits, rounded once to nearest, ties to even (normal values)."""
    out = np.zeros(x.shape, dtype=np.uint16)
    flat = x.reshape(-1)
    res = out.reshape(-1)
    for i, v in enumerate(flat):
        v = float(v)
        if v == 0.0:
            r = 0.0
        else:
            m, e = math.frexp(v)           # v = m * 2**e, 0.5 <= |m| < 1
            r = round(m * 256.0) * 2.0 ** (e - 8)   # 8 significant bits; round() ties to even
        res[i] = np.array([r], dtype=np.float32).view(np.uint32)[0] >> 16
    return out


def bf16_tensor(name, bits, dims):
    return helper.make_tensor(name, TensorProto.BFLOAT16, dims, bits.tobytes(), raw=True)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(F64)


def rounded(x, dt):
    return x.astype(dt)


# ------------------------------------------------------------------ values
class Rng:
    def __init__(self, seed):
        self.r = np.random.RandomState(seed)

    def u(self, shape, lo=-1.5, hi=1.5, dt=np.float32):
        return self.r.uniform(lo, hi, size=shape).astype(dt)

    def bn(self, c, dt=np.float32):
        return {"scale": self.u((c,), dt=dt), "B": self.u((c,), dt=dt), "mean": self.u((c,), dt=dt),
                "var": self.u((c,), 0.25, 2.0, dt=dt)}


def scale_of(p, eps):
    return p["scale"].astype(F64) / np.sqrt(p["var"].astype(F64) + F64(np.float32(eps)))


def bn_nodes(name, x, y, p, eps, style="init"):
    """A BatchNormalization node and its parameters (initializers, or Constant nodes of several encodings)."""
    names = [name + "_" + k for k in ("scale", "B", "mean", "var")]
    inits, nodes = [], []
    for k, n in zip(("scale", "B", "mean", "var"), names):
        if style == "init":
            inits.append(init(n, p[k]))
        elif k == "scale":      # Constant, raw_data tensor
            nodes.append(helper.make_node("Constant", [], [n], name="c_" + n, value=init(n + "_v", p[k])))
        elif k == "B":          # Constant, float_data tensor
            nodes.append(helper.make_node("Constant", [], [n], name="c_" + n, value=helper.make_tensor(
                n + "_v", FLOAT, p[k].shape, p[k].tolist(), raw=False)))
        elif k == "mean":       # Constant, value_floats
            nodes.append(helper.make_node("Constant", [], [n], name="c_" + n, value_floats=p[k].tolist()))
        else:                   # initializer in float_data
            inits.append(helper.make_tensor(n, FLOAT, p[k].shape, p[k].tolist(), raw=False))
    nodes.append(helper.make_node("BatchNormalization", [x] + names, [y], name=name, epsilon=eps))
    return nodes, inits


def conv_bn(name, x, y, W, b, p, eps, rng_unused=None, transpose=False, style="init", expect=None, **attrs):
    """Conv (or ConvTranspose) 'name' -> BN 'name_bn'; expectation of the fused weight and bias."""
    dt = W.dtype.type
    op = "ConvTranspose" if transpose else "Conv"
    ins = [x, name + "_W"] + ([name + "_B"] if b is not None else [])
    inits = [init(name + "_W", W)] + ([init(name + "_B", b)] if b is not None else [])
    nodes = [helper.make_node(op, ins, [name + "_y"], name=name, **attrs)]
    bn, bn_inits = bn_nodes(name + "_bn", name + "_y", y, p, eps, style)
    if expect is not None:
        s = scale_of(p, eps)
        group = attrs.get("group", 1)
        if transpose:
            C, Mg = W.shape[0], W.shape[1]
            cg = C // group
            smap = np.array([[s[(c // cg) * Mg + j] for j in range(Mg)] for c in range(C)])
            ws = W.astype(F64) * smap.reshape(smap.shape + (1,) * (W.ndim - 2))
        else:
            ws = W.astype(F64) * s.reshape((-1,) + (1,) * (W.ndim - 1))
        old = b.astype(F64) if b is not None else np.zeros(s.shape)
        bias = (old - p["mean"].astype(F64)) * s + p["B"].astype(F64)
        expect[name + ":1"] = rounded(ws, dt)
        expect[name + ":2"] = rounded(bias, dt)
    return nodes + bn, inits + bn_inits


def gemm_bn(name, a, y, B, C, p, eps, alpha=1.0, beta=1.0, transA=0, transB=0, matmul=False, expect=None,
            bf16=False):
    dt = B.dtype.type
    if bf16:
        bits_b = to_bf16_bits(B.astype(F64))
        inits = [bf16_tensor(name + "_W", bits_b, B.shape)]
        Bv = bf16_values(bits_b)
    else:
        inits = [init(name + "_W", B)]
        Bv = B.astype(F64)
    ins = [a, name + "_W"]
    Cv = None
    if C is not None:
        ins.append(name + "_C")
        if bf16:
            bits_c = to_bf16_bits(C.astype(F64))
            inits.append(bf16_tensor(name + "_C", bits_c, C.shape))
            Cv = bf16_values(bits_c)
        else:
            inits.append(init(name + "_C", C))
            Cv = C.astype(F64)
    if matmul:
        nodes = [helper.make_node("MatMul", ins, [name + "_y"], name=name)]
    else:
        attrs = {"transA": transA, "transB": transB}
        if alpha != 1.0:
            attrs["alpha"] = alpha
        if beta != 1.0:
            attrs["beta"] = beta
        nodes = [helper.make_node("Gemm", ins, [name + "_y"], name=name, **attrs)]
    if bf16:
        pb = {k: to_bf16_bits(v.astype(F64)) for k, v in p.items()}
        names = [name + "_bn_" + k for k in ("scale", "B", "mean", "var")]
        bn_inits = [bf16_tensor(n, pb[k], [len(pb[k])]) for k, n in zip(("scale", "B", "mean", "var"), names)]
        bn = [helper.make_node("BatchNormalization", [name + "_y"] + names, [y], name=name + "_bn", epsilon=eps)]
        p = {k: bf16_values(v) for k, v in pb.items()}
    else:
        bn, bn_inits = bn_nodes(name + "_bn", name + "_y", y, p, eps)
    if expect is not None:
        s = scale_of(p, eps)
        ws = Bv * (s.reshape(-1, 1) if transB else s.reshape(1, -1))
        n = len(s)
        if Cv is None:
            old = np.zeros((n,))
        elif Cv.ndim == 2:
            old = np.broadcast_to(Cv, (Cv.shape[0], n))
        else:
            old = np.broadcast_to(Cv.reshape(-1), (n,))
        bias = (F64(np.float32(beta)) * old - p["mean"].astype(F64)) * s + p["B"].astype(F64)
        if bf16:
            expect[name + ":1"] = to_bf16_bits(ws)
            expect[name + ":2"] = to_bf16_bits(bias)
        else:
            expect[name + ":1"] = rounded(ws, dt)
            expect[name + ":2"] = rounded(bias, dt)
    return nodes + bn, inits + bn_inits


def one(outdir, name, x_shape, y_shape, body, dt=np.float32, opset=13, run_check=True, x="X"):
    expect = {}
    nodes, inits = body(expect)
    elem = ONNX_OF[dt]
    graph = helper.make_graph(nodes, name, [vi(x, elem, x_shape)], [vi("Y", elem, y_shape)], initializer=inits)
    save(make_model(graph, opset), outdir, name, expect, run_check)


# ------------------------------------------------------------------ models
def gen_convs(outdir):
    r = Rng(11)
    one(outdir, "bn_conv1d", [2, 4, 16], [2, 6, 16], lambda e: conv_bn(
        "conv", "X", "Y", r.u((6, 4, 3)), r.u((6,)), r.bn(6), 1e-3, expect=e, pads=[1, 1]))

    def conv2d(e):
        nodes, inits = conv_bn("conv", "X", "bn_y", r.u((8, 3, 3, 3)), None, r.bn(8), 1e-5, style="const",
                               expect=e, dilations=[2, 2], pads=[2, 2, 2, 2])
        nodes += [helper.make_node("Relu", ["bn_y"], ["r"], name="relu"),
                  helper.make_node("Sigmoid", ["bn_y"], ["g"], name="sig"),
                  helper.make_node("Add", ["r", "g"], ["Y"], name="sum")]
        return nodes, inits
    one(outdir, "bn_conv2d", [1, 3, 12, 12], [1, 8, 12, 12], conv2d)
    one(outdir, "bn_conv3d", [1, 2, 6, 6, 6], [1, 4, 2, 2, 2], lambda e: conv_bn(
        "conv", "X", "Y", r.u((4, 2, 3, 3, 3)), r.u((4,)), r.bn(4), 1e-5, expect=e, strides=[2, 2, 2]))

    def group(e):
        nodes, inits = conv_bn("conv", "X", "bn_y", r.u((9, 2, 3, 3)), r.u((9,)), r.bn(9), 1e-5, expect=e,
                               group=3, strides=[2, 2], pads=[1, 1, 1, 1])
        return nodes + [helper.make_node("Relu", ["bn_y"], ["Y"], name="relu")], inits
    one(outdir, "bn_conv_group", [1, 6, 10, 10], [1, 9, 5, 5], group)

    def dw(e):
        n1, i1 = conv_bn("dw", "X", "a", r.u((8, 1, 3, 3)), None, r.bn(8), 1e-5, expect=e, group=8, pads=[1, 1, 1, 1])
        clip = [init("lo", np.array(0, np.float32)), init("hi", np.array(6, np.float32))]
        n2 = [helper.make_node("Clip", ["a", "lo", "hi"], ["c"], name="relu6")]
        n3, i3 = conv_bn("pw", "c", "Y", r.u((4, 8, 1, 1)), None, r.bn(4), 1e-5, expect=e)
        return n1 + n2 + n3, i1 + clip + i3
    one(outdir, "bn_conv_dw", [1, 8, 10, 10], [1, 4, 10, 10], dw)
    one(outdir, "bn_conv_f16", [1, 3, 8, 8], [1, 5, 6, 6], lambda e: conv_bn(
        "conv", "X", "Y", r.u((5, 3, 3, 3), dt=np.float16), r.u((5,), dt=np.float16), r.bn(5, np.float16), 1e-5,
        expect=e), dt=np.float16)
    one(outdir, "bn_conv_f64", [1, 3, 8, 8], [1, 5, 6, 6], lambda e: conv_bn(
        "conv", "X", "Y", r.u((5, 3, 3, 3), dt=F64), r.u((5,), dt=F64), r.bn(5, F64), 1e-5, expect=e), dt=F64)
    one(outdir, "bn_conv_wide", [1, 80, 2, 2], [1, 8300, 2, 2], lambda e: conv_bn(
        "conv", "X", "Y", r.u((8300, 80, 1, 1), dt=np.float16), r.u((8300,), dt=np.float16),
        r.bn(8300, np.float16), 1e-5, expect=e), dt=np.float16)
    def typed(e):
        nodes, inits = conv_bn("conv", "X", "Y", r.u((640, 500, 1, 1)), r.u((640,)), r.bn(640), 1e-5, expect=e)
        w = inits[0]
        inits[0] = helper.make_tensor(w.name, TensorProto.FLOAT, list(w.dims),
                                      numpy_helper.to_array(w).ravel().tolist())
        return nodes, inits
    one(outdir, "bn_conv_typed", [1, 500, 2, 2], [1, 640, 2, 2], typed, opset=18)
    one(outdir, "bn_convt", [1, 4, 5, 5], [1, 6, 10, 10], lambda e: conv_bn(
        "convt", "X", "Y", r.u((4, 3, 3, 3)), r.u((6,)), r.bn(6), 1e-5, transpose=True, expect=e, group=2,
        strides=[2, 2], output_padding=[1, 1], pads=[1, 1, 1, 1]))
    one(outdir, "bn_convt1d", [1, 3, 7], [1, 2, 13], lambda e: conv_bn(
        "convt", "X", "Y", r.u((3, 2, 4)), None, r.bn(2), 1e-5, transpose=True, expect=e, dilations=[2]))


def gen_gemms(outdir):
    r = Rng(23)
    one(outdir, "bn_gemm", [3, 5], [3, 6], lambda e: gemm_bn(
        "gemm", "X", "Y", r.u((6, 5)), r.u((6,)), r.bn(6), 1e-5, alpha=0.5, beta=2.0, transB=1, expect=e))
    one(outdir, "bn_gemm_noc", [5, 3], [3, 4], lambda e: gemm_bn(
        "gemm", "X", "Y", r.u((5, 4)), None, r.bn(4), 1e-5, beta=0.7, transA=1, expect=e))
    one(outdir, "bn_gemm_crows", [3, 5], [3, 4], lambda e: gemm_bn(
        "gemm", "X", "Y", r.u((5, 4)), r.u((3, 1)), r.bn(4), 1e-5, beta=1.5, expect=e))
    one(outdir, "bn_gemm_f64", [2, 3], [2, 4], lambda e: gemm_bn(
        "gemm", "X", "Y", r.u((3, 4), dt=F64), np.array(0.375, F64), r.bn(4, F64), 1e-5, beta=0.25, expect=e),
        dt=F64)
    expect = {}
    nodes, inits = gemm_bn("gemm", "X", "Y", r.u((4, 3)), r.u((1, 4)), r.bn(4), 1e-5, transB=1, expect=expect,
                           bf16=True)
    graph = helper.make_graph(nodes, "bn_gemm_bf16", [vi("X", TensorProto.BFLOAT16, [2, 3])],
                              [vi("Y", TensorProto.BFLOAT16, [2, 4])], initializer=inits)
    save(make_model(graph, 15), outdir, "bn_gemm_bf16", expect)
    one(outdir, "bn_gemm_wide", [2, 3], [2, 9000], lambda e: gemm_bn(
        "gemm", "X", "Y", r.u((3, 9000)), r.u((9000,)), r.bn(9000), 1e-5, expect=e))
    one(outdir, "bn_matmul", [4, 5], [4, 6], lambda e: gemm_bn(
        "mm", "X", "Y", r.u((5, 6)), None, r.bn(6), 1e-5, matmul=True, expect=e))


def gen_shared(outdir):
    r = Rng(31)
    expect = {}
    W, W2 = r.u((4, 3, 3, 3)), r.u((5, 4, 1, 1))
    nodes, inits = [], [init("W", W), init("W2", W2)]
    for name, x, w, out in (("ca", "X", "W", "ya"), ("cb", "X", "W", "yb"), ("cc", "ya", "W2", "yc"),
                            ("cd", "yb", "W2", "yd")):
        p = r.bn(w == "W" and 4 or 5)
        nodes.append(helper.make_node("Conv", [x, w], [name + "_y"], name=name, pads=[1 if w == "W" else 0] * 4))
        bn, bi = bn_nodes(name + "_bn", name + "_y", out, p, 1e-5)
        nodes += bn
        inits += bi
        s = scale_of(p, 1e-5)
        Wv = W if w == "W" else W2
        expect[name + ":1"] = (Wv.astype(F64) * s.reshape(-1, 1, 1, 1)).astype(np.float32)
        expect[name + ":2"] = ((0 - p["mean"].astype(F64)) * s + p["B"].astype(F64)).astype(np.float32)
    nodes.append(helper.make_node("ReduceSum", ["W"], ["WS"], name="wsum", keepdims=0))
    expect["wsum:0"] = W
    graph = helper.make_graph(nodes, "bn_shared", [vi("X", FLOAT, [1, 3, 6, 6])],
                              [vi("yc", FLOAT, [1, 5, 6, 6]), vi("yd", FLOAT, [1, 5, 6, 6]), vi("WS", FLOAT, [])],
                              initializer=inits)
    save(make_model(graph), outdir, "bn_shared", expect)


def gen_nested(outdir):
    r = Rng(37)
    expect = {}
    W, W2, p = r.u((4, 3, 3, 3)), r.u((4, 3, 3, 3)), r.bn(4)
    bn, bi = bn_nodes("inner_bn", "inner_y", "t_out", p, 1e-5)
    then_g = helper.make_graph([helper.make_node("Conv", ["X", "W"], ["inner_y"], name="inner")] + bn, "then", [],
                               [vi("t_out", FLOAT, [1, 4, 4, 4])])
    else_g = helper.make_graph([helper.make_node("Conv", ["X", "W2"], ["e_out"], name="other")], "else", [],
                               [vi("e_out", FLOAT, [1, 4, 4, 4])])
    s = scale_of(p, 1e-5)
    expect["inner:1"] = (W.astype(F64) * s.reshape(-1, 1, 1, 1)).astype(np.float32)
    expect["inner:2"] = ((0 - p["mean"].astype(F64)) * s + p["B"].astype(F64)).astype(np.float32)
    nodes = [helper.make_node("If", ["cond"], ["Y"], name="if", then_branch=then_g, else_branch=else_g)]
    graph = helper.make_graph(nodes, "bn_nested", [vi("X", FLOAT, [1, 3, 6, 6]), vi("cond", TensorProto.BOOL, [])],
                              [vi("Y", FLOAT, [1, 4, 4, 4])], initializer=[init("W", W), init("W2", W2)] + bi)
    save(make_model(graph), outdir, "bn_nested", expect)


def gen_add_bias(outdir):
    r = Rng(41)
    expect = {}
    Wa, ba, a1 = r.u((5, 4, 3, 3)), r.u((5,)), r.u((1, 5, 1, 1))
    Wb, a2 = r.u((5, 4, 3, 3)), r.u(())
    Wc, bc, a3 = r.u((5, 4, 1, 1)), r.u((5,)), r.u((5, 1, 1))
    nodes = [
        helper.make_node("Conv", ["X", "Wa", "ba"], ["ca"], name="conv_a"),
        helper.make_node("Add", ["ca", "a1"], ["ya"], name="add_a"),
        helper.make_node("Conv", ["X", "Wb"], ["cb"], name="conv_b"),
        helper.make_node("Add", ["a2", "cb"], ["yb"], name="add_b"),
        helper.make_node("Conv", ["X", "Wc", "bc"], ["cc"], name="conv_c"),
        helper.make_node("Add", ["cc", "a3"], ["yc"], name="add_c"),
    ]
    expect["conv_a:2"] = (ba.astype(F64) + a1.reshape(-1).astype(F64)).astype(np.float32)
    expect["conv_b:2"] = (np.zeros(5) + F64(a2)).astype(np.float32)
    expect["conv_c:2"] = (bc.astype(F64) + a3.reshape(-1).astype(F64)).astype(np.float32)
    inits = [init("Wa", Wa), init("ba", ba), init("a1", a1), init("Wb", Wb), init("a2", a2), init("Wc", Wc),
             init("bc", bc), init("a3", a3)]
    graph = helper.make_graph(nodes, "add_bias", [vi("X", FLOAT, [1, 4, 6, 6])],
                              [vi("ya", FLOAT, [1, 5, 4, 4]), vi("yb", FLOAT, [1, 5, 4, 4]),
                               vi("yc", FLOAT, [1, 5, 6, 6])], initializer=inits)
    save(make_model(graph), outdir, "add_bias", expect)


def gen_matmul_add(outdir):
    r = Rng(43)
    nodes = [
        helper.make_node("MatMul", ["A", "B1"], ["m1"], name="mm1"),
        helper.make_node("Add", ["m1", "C1"], ["y1"], name="add1"),
        helper.make_node("MatMul", ["A", "B2"], ["m2"], name="mm2"),
        helper.make_node("Add", ["C2", "m2"], ["y2"], name="add2"),
        helper.make_node("MatMul", ["A", "B3"], ["m3"], name="mm3"),
        helper.make_node("Add", ["m3", "C3"], ["y3"], name="add3"),
    ]
    inits = [init("B1", r.u((4, 5))), init("C1", r.u((5,))), init("B2", r.u((4, 5))), init("C2", r.u((3, 5))),
             init("B3", r.u((4, 5))), init("C3", r.u((3, 1)))]
    graph = helper.make_graph(nodes, "matmul_add", [vi("A", FLOAT, [3, 4])],
                              [vi("y1", FLOAT, [3, 5]), vi("y2", FLOAT, [3, 5]), vi("y3", FLOAT, [3, 5])],
                              initializer=inits)
    save(make_model(graph), outdir, "matmul_add", {})


def gen_chain(outdir):
    r = Rng(47)
    expect = {}
    W, a, p = r.u((4, 3, 3, 3)), r.u((1, 4, 1, 1)), r.bn(4)
    B, C, q = r.u((5, 6)), r.u((6,)), r.bn(6)
    bn1, bi1 = bn_nodes("bn1", "s1", "b1", p, 1e-5)
    bn2, bi2 = bn_nodes("bn2", "t1", "Y2", q, 1e-5)
    nodes = [helper.make_node("Conv", ["X", "W"], ["c1"], name="conv"),
             helper.make_node("Add", ["c1", "a"], ["s1"], name="add")] + bn1 + [
             helper.make_node("Relu", ["b1"], ["Y"], name="relu"),
             helper.make_node("MatMul", ["A", "B"], ["m1"], name="mm"),
             helper.make_node("Add", ["m1", "C"], ["t1"], name="addmm")] + bn2
    s = scale_of(p, 1e-5)
    expect["conv:1"] = (W.astype(F64) * s.reshape(-1, 1, 1, 1)).astype(np.float32)
    bias1 = a.reshape(-1).astype(np.float32).astype(F64)       # the Add's bias first, rounded to float
    expect["conv:2"] = ((bias1 - p["mean"].astype(F64)) * s + p["B"].astype(F64)).astype(np.float32)
    t = scale_of(q, 1e-5)
    # the Gemm takes the Add's place and name (C may be made between the MatMul and the Add)
    expect["addmm:1"] = (B.astype(F64) * t.reshape(1, -1)).astype(np.float32)
    expect["addmm:2"] = ((C.astype(F64) - q["mean"].astype(F64)) * t + q["B"].astype(F64)).astype(np.float32)
    graph = helper.make_graph(nodes, "chain", [vi("X", FLOAT, [1, 3, 6, 6]), vi("A", FLOAT, [2, 5])],
                              [vi("Y", FLOAT, [1, 4, 4, 4]), vi("Y2", FLOAT, [2, 6])],
                              initializer=[init("W", W), init("a", a), init("B", B), init("C", C)] + bi1 + bi2)
    save(make_model(graph), outdir, "chain", expect)


def gen_refuse(outdir):
    r = Rng(53)
    nodes, inits, outs, ins = [], [], [], [vi("X", FLOAT, [1, 3, 6, 6])]

    def conv(name, w=None):
        inits.append(init(name + "_W", r.u((4, 3, 3, 3)) if w is None else w))
        nodes.append(helper.make_node("Conv", ["X", name + "_W"], [name + "_y"], name=name))

    def bn(name, x, y, p=None, override=None):
        p = p or r.bn(4)
        n, i = bn_nodes(name, x, y, p, 1e-5)
        if override:
            n[-1].input[override[0]] = override[1]
            i = [t for t in i if t.name != name + "_" + ("scale", "B", "mean", "var")[override[0] - 1]]
        nodes.extend(n)
        inits.extend(i)
        outs.append(vi(y, FLOAT, [1, 4, 4, 4]))

    conv("r_ok")
    bn("r_ok_bn", "r_ok_y", "yk")
    conv("r_used")
    bn("r_used_bn", "r_used_y", "yu")
    nodes.append(helper.make_node("Relu", ["r_used_y"], ["yr"], name="r_used_relu"))
    outs.append(vi("yr", FLOAT, [1, 4, 4, 4]))
    conv("r_out")
    bn("r_out_bn", "r_out_y", "yo")
    outs.append(vi("r_out_y", FLOAT, [1, 4, 4, 4]))
    conv("r_input")
    inits.append(init("gi", r.u((4,))))
    ins.append(vi("gi", FLOAT, [4]))
    bn("r_input_bn", "r_input_y", "yi", override=(1, "gi"))
    ins.append(vi("Wi", FLOAT, [4, 3, 3, 3]))
    nodes.append(helper.make_node("Conv", ["X", "Wi"], ["r_winput_y"], name="r_winput"))
    bn("r_winput_bn", "r_winput_y", "yw")
    conv("r_comp")
    inits.append(init("mraw", r.u((4,))))
    nodes.append(helper.make_node("Abs", ["mraw"], ["mabs"], name="r_comp_abs"))
    bn("r_comp_bn", "r_comp_y", "yc", override=(3, "mabs"))
    conv("r_addin")
    ins.append(vi("ai", FLOAT, [1, 4, 1, 1]))
    nodes.append(helper.make_node("Add", ["r_addin_y", "ai"], ["ya"], name="r_addin_add"))
    outs.append(vi("ya", FLOAT, [1, 4, 4, 4]))
    conv("r_addspat")
    inits.append(init("aspat", r.u((1, 1, 1, 4))))
    nodes.append(helper.make_node("Add", ["r_addspat_y", "aspat"], ["ys"], name="r_addspat_add"))
    outs.append(vi("ys", FLOAT, [1, 4, 4, 4]))
    graph = helper.make_graph(nodes, "fuse_refuse", ins, outs, initializer=inits)
    save(make_model(graph), outdir, "fuse_refuse")


def gen_train(outdir):
    r = Rng(59)
    p = r.bn(4)
    names = ["t_" + k for k in ("scale", "B", "mean", "var")]
    inits = [init("W", r.u((4, 3, 3, 3)))] + [init(n, p[k]) for n, k in zip(names, ("scale", "B", "mean", "var"))]
    nodes = [helper.make_node("Conv", ["X", "W"], ["c"], name="conv"),
             helper.make_node("BatchNormalization", ["c"] + names, ["Y", "rm", "rv"], name="bn_train",
                              training_mode=1)]
    graph = helper.make_graph(nodes, "fuse_train", [vi("X", FLOAT, [2, 3, 6, 6])],
                              [vi("Y", FLOAT, [2, 4, 4, 4]), vi("rm", FLOAT, [4]), vi("rv", FLOAT, [4])],
                              initializer=inits)
    save(make_model(graph, 15), outdir, "fuse_train")
    nodes = [helper.make_node("Conv", ["X", "W"], ["c"], name="conv"),
             helper.make_node("BatchNormalization", ["c"] + names, ["Y", "m", "v", "sm", "sv"], name="bn_train9")]
    graph = helper.make_graph(nodes, "fuse_train9", [vi("X", FLOAT, [2, 3, 6, 6])],
                              [vi("Y", FLOAT, [2, 4, 4, 4])], initializer=inits)
    save(make_model(graph, 9), outdir, "fuse_train9")


def gen_bad(outdir):
    r = Rng(61)
    nodes, inits, outs = [], [], []

    def conv_bn_raw(name, w, p, custom=False, **attrs):
        inits.append(init(name + "_W", w))
        nodes.append(helper.make_node("Conv", ["X", name + "_W"], [name + "_y"], name=name, **attrs))
        names = [name + "_" + k for k in ("scale", "B", "mean", "var")]
        inits.extend(init(n, p[k]) for n, k in zip(names, ("scale", "B", "mean", "var")))
        nodes.append(helper.make_node("BatchNormalization", [name + "_y"] + names, [name + "_o"], name=name + "_bn",
                                      domain="custom.bn" if custom else ""))
        outs.append(vi(name + "_o", FLOAT, None))

    conv_bn_raw("b_len", r.u((4, 3, 3, 3)), r.bn(5))
    mix = r.bn(4)
    mix["var"] = r.u((3,), 0.5, 1.0)
    conv_bn_raw("b_mix", r.u((4, 3, 3, 3)), mix)
    conv_bn_raw("b_rank", r.u((4, 3)), r.bn(4))
    conv_bn_raw("b_group", r.u((3, 1, 3, 3)), r.bn(3), group=2)
    zero = r.bn(4)
    zero["var"] = np.full((4,), -1e-5, np.float32)
    conv_bn_raw("b_zero", r.u((4, 3, 3, 3)), zero)
    conv_bn_raw("b_custom", r.u((4, 3, 3, 3)), r.bn(4), custom=True)
    inits.extend([init("gB", r.u((3, 4))), init("gC", r.u((5,)))])
    nodes.append(helper.make_node("Gemm", ["A", "gB", "gC"], ["g_y"], name="b_gemmc"))
    names = ["g_" + k for k in ("scale", "B", "mean", "var")]
    gp = r.bn(4)
    inits.extend(init(n, gp[k]) for n, k in zip(names, ("scale", "B", "mean", "var")))
    nodes.append(helper.make_node("BatchNormalization", ["g_y"] + names, ["g_o"], name="b_gemmc_bn"))
    outs.append(vi("g_o", FLOAT, None))
    graph = helper.make_graph(nodes, "fuse_bad", [vi("X", FLOAT, [1, 3, 6, 6]), vi("A", FLOAT, [2, 3])], outs,
                              initializer=inits)
    save(make_model(graph, 13, [("custom.bn", 1)]), outdir, "fuse_bad", check=False)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_fuse_models.py OUTDIR\n")
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    gen_convs(outdir)
    gen_gemms(outdir)
    gen_shared(outdir)
    gen_nested(outdir)
    gen_add_bias(outdir)
    gen_matmul_add(outdir)
    gen_chain(outdir)
    gen_refuse(outdir)
    gen_train(outdir)
    gen_bad(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
