#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate small models shaped like what exporters write, for measuring
scs4onnx-optimize against ONNX Runtime's basic-level offline optimizer
(scripts/ort-basic-compare.sh) and for the measure suite (tests/test_measure.c).

Usage:
    /usr/bin/python3 gen_bench_models.py OUTDIR

Needs python3-onnx and python3-numpy. Every model is ir_version 8, passes
onnx.checker.check_model (where the installed onnx knows the opset; ONNX
Runtime checks the others), and is small (under 100 KB); the output is
deterministic (weights from numpy's seeded generator).

Transformer-like, input x[batch, seq, 16] with symbolic batch and seq, two
layers of: LayerNorm as primitives (ReduceMean, Sub, Pow, ReduceMean, Add,
Sqrt, Div, Mul, Add), attention whose head split and merge take their
Reshape targets from Shape -> Gather -> Unsqueeze -> Concat (one Shape node
per use, as exporters write them), Q/K/V and projections as MatMul + Add,
scores divided by a constant, Softmax, and a feed-forward block with Gelu as
primitives (Div, Erf, Add, Mul, Mul); residual Adds.

  bench_bert13   opset 13 (ReduceMean axes an attribute, Unsqueeze axes an input)
  bench_bert18   opset 18 (ReduceMean axes an input)
  bench_gpt13    opset 13, the Reshape targets from Shape -> Slice, the tanh
                 form of Gelu (Pow 3, Mul, Add, Mul, Tanh, Add, Mul, Mul), an
                 additive causal mask, a MatMul against a Transpose of a weight

CNN, MobileNetV2-like, input x[batch, 3, 32, 32] with symbolic batch: stem
Conv 3x3/2 + BatchNormalization + Clip(0, 6), inverted residual blocks
(1x1 expand Conv + BN + Clip, depthwise 3x3 Conv + BN + Clip, 1x1 project
Conv + BN, residual Add where stride 1 and channels match), a 1x1 head Conv +
BN + Clip, GlobalAveragePool, then Flatten or Reshape and Gemm or MatMul + Add.

  bench_mbv2_13  opset 13, Clip bounds as inputs, Flatten -> Gemm
  bench_mbv2_9   opset 9, Clip bounds as attributes, Reshape to a
                 Shape -> Gather -> Unsqueeze -> Concat target -> Gemm
  bench_cnn_mul  opset 13, what ORT's basic level fuses beyond onnxoptimizer:
                 Conv -> Mul and Add of one constant per output channel, Relu
                 -> Clip, Div by a constant, Flatten -> MatMul + Add
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
FLOAT = TensorProto.FLOAT
D, HEADS, FF = 16, 2, 32


class Builder:
    """One graph under construction: nodes, initializers, fresh names."""

    def __init__(self, name, opset, seed):
        self.name, self.opset = name, opset
        self.rng = np.random.RandomState(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def fresh(self, base):
        self.count += 1
        return "%s_%d" % (base, self.count)

    def weight(self, base, shape, scale=0.3):
        n = self.fresh(base)
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), n))
        return n

    def const(self, base, array):
        n = self.fresh(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def op(self, op, inputs, n_out=1, **attrs):
        outs = [self.fresh(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.fresh("n_" + op), **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, inputs, outputs):
        g = helper.make_graph(self.nodes, self.name, inputs, outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="gen_bench_models")
        m.ir_version = IR_VERSION
        if self.opset <= onnx.defs.onnx_opset_version():
            onnx.checker.check_model(m)  # an older onnx knows no newer schema: ONNX Runtime checks those
        return m

    # ---------------------------------------------------------- helpers
    def reduce_mean(self, x):
        if self.opset >= 18:
            return self.op("ReduceMean", [x, self.const("axes", np.array([-1], np.int64))], keepdims=1)
        return self.op("ReduceMean", [x], axes=[-1], keepdims=1)

    def unsqueeze0(self, x):
        if self.opset >= 13:
            return self.op("Unsqueeze", [x, self.const("axes", np.array([0], np.int64))])
        return self.op("Unsqueeze", [x], axes=[0])

    def layer_norm(self, x):
        mean = self.reduce_mean(x)
        d = self.op("Sub", [x, mean])
        var = self.reduce_mean(self.op("Pow", [d, self.const("two", np.array(2.0, np.float32))]))
        std = self.op("Sqrt", [self.op("Add", [var, self.const("eps", np.array(1e-5, np.float32))])])
        y = self.op("Div", [d, std])
        y = self.op("Mul", [y, self.weight("gamma", [D], 0.1)])
        return self.op("Add", [y, self.weight("beta", [D], 0.1)])

    def linear(self, x, n_in, n_out):
        return self.op("Add", [self.op("MatMul", [x, self.weight("w", [n_in, n_out])]), self.weight("b", [n_out], 0.1)])

    def gelu_erf(self, x):
        e = self.op("Erf", [self.op("Div", [x, self.const("sqrt2", np.array(1.4142135, np.float32))])])
        e = self.op("Add", [e, self.const("one", np.array(1.0, np.float32))])
        return self.op("Mul", [self.op("Mul", [x, e]), self.const("half", np.array(0.5, np.float32))])

    def gelu_tanh(self, x):
        c = self.op("Mul", [self.op("Pow", [x, self.const("three", np.array(3.0, np.float32))]),
                            self.const("k", np.array(0.044715, np.float32))])
        t = self.op("Tanh", [self.op("Mul", [self.op("Add", [x, c]), self.const("s", np.array(0.7978846, np.float32))])])
        t = self.op("Add", [t, self.const("one", np.array(1.0, np.float32))])
        return self.op("Mul", [self.op("Mul", [x, self.const("half", np.array(0.5, np.float32))]), t])

    def dims_gather(self, x, tail):
        """Concat of [dim 0 of x], [dim 1 of x] and @tail, each dim from its own Shape -> Gather."""
        parts = []
        for i in (0, 1):
            g = self.op("Gather", [self.op("Shape", [x]), self.const("idx", np.array(i, np.int64))], axis=0)
            parts.append(self.unsqueeze0(g))
        return self.op("Concat", parts + [self.const("tail", np.array(tail, np.int64))], axis=0)

    def dims_slice(self, x, tail):
        """Concat of Shape(x)[0:2] (a Slice) and @tail."""
        s = self.op("Slice", [self.op("Shape", [x]), self.const("st", np.array([0], np.int64)),
                              self.const("en", np.array([2], np.int64)), self.const("ax", np.array([0], np.int64))])
        return self.op("Concat", [s, self.const("tail", np.array(tail, np.int64))], axis=0)


def attention(b, x, gpt):
    dh = D // HEADS
    target = b.dims_slice if gpt else b.dims_gather
    heads = []
    for which in ("q", "k", "v"):
        if gpt and which == "k":
            # a weight stored transposed, as some exporters leave it
            wt = b.weight("wt", [D, D])
            p = b.op("Add", [b.op("MatMul", [x, b.op("Transpose", [wt], perm=[1, 0])]), b.weight("b", [D], 0.1)])
        else:
            p = b.linear(x, D, D)
        r = b.op("Reshape", [p, target(x, [HEADS, dh])])
        heads.append(b.op("Transpose", [r], perm=[0, 2, 3, 1] if which == "k" else [0, 2, 1, 3]))
    q, k, v = heads
    s = b.op("Div", [b.op("MatMul", [q, k]), b.const("scale", np.array(np.sqrt(dh), np.float32))])
    if gpt:
        # causal mask built from the sequence length: Shape -> Gather -> Range
        n = b.op("Gather", [b.op("Shape", [x]), b.const("idx", np.array(1, np.int64))], axis=0)
        zero, one = b.const("z", np.array(0, np.int64)), b.const("o", np.array(1, np.int64))
        r = b.op("Range", [zero, n, one])
        cmp = b.op("Greater", [b.op("Unsqueeze", [r, b.const("axes", np.array([0], np.int64))]),
                               b.op("Unsqueeze", [r, b.const("axes", np.array([1], np.int64))])])
        mask = b.op("Mul", [b.op("Cast", [cmp], to=FLOAT), b.const("neg", np.array(-1e4, np.float32))])
        s = b.op("Add", [s, mask])
    a = b.op("MatMul", [b.op("Softmax", [s], axis=-1), v])
    a = b.op("Transpose", [a], perm=[0, 2, 1, 3])
    a = b.op("Reshape", [a, target(x, [D])])
    return b.linear(a, D, D)


def transformer(name, opset, gpt, seed):
    b = Builder(name, opset, seed)
    h = "x"
    for _ in range(2):
        h = b.op("Add", [h, attention(b, b.layer_norm(h), gpt)])
        f = b.linear(b.layer_norm(h), D, FF)
        f = b.gelu_tanh(f) if gpt else b.gelu_erf(f)
        h = b.op("Add", [h, b.linear(f, FF, D)])
    y = b.layer_norm(h)
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model([helper.make_tensor_value_info("x", FLOAT, ["batch", "seq", D])],
                   [helper.make_tensor_value_info("y", FLOAT, ["batch", "seq", D])])


# ------------------------------------------------------------------ CNN
def bn(b, x, c):
    scale = (b.rng.uniform(0.5, 1.5, c)).astype(np.float32)
    bias = (b.rng.standard_normal(c) * 0.1).astype(np.float32)
    mean = (b.rng.standard_normal(c) * 0.1).astype(np.float32)
    var = (b.rng.uniform(0.5, 1.5, c)).astype(np.float32)
    ins = [x] + [b.const(n, a) for n, a in (("scale", scale), ("bias", bias), ("mean", mean), ("var", var))]
    return b.op("BatchNormalization", ins, epsilon=1e-5)


def per_channel(b, x, c, style):
    """BatchNormalization, or (style 'mul') Mul and Add of [c, 1, 1] constants."""
    if style == "bn":
        return bn(b, x, c)
    s = b.const("s", b.rng.uniform(0.5, 1.5, (c, 1, 1)).astype(np.float32))
    t = b.const("t", (b.rng.standard_normal((c, 1, 1)) * 0.1).astype(np.float32))
    return b.op("Add", [b.op("Mul", [x, s]), t])


def relu6(b, x, style):
    if style == "relu":
        x = b.op("Relu", [x])
    if b.opset >= 11:
        return b.op("Clip", [x, b.const("lo", np.array(0.0, np.float32)), b.const("hi", np.array(6.0, np.float32))])
    return b.op("Clip", [x], min=0.0, max=6.0)


def conv(b, x, cin, cout, k, stride=1, group=1, bias=False):
    w = b.weight("w", [cout, cin // group, k, k], 0.5 / np.sqrt(cin // group * k * k))
    ins = [x, w] + ([b.weight("cb", [cout], 0.1)] if bias else [])
    return b.op("Conv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)


def cnn(name, opset, style, head, seed):
    b = Builder(name, opset, seed)
    norm = "mul" if style == "mul" else "bn"
    act = "relu" if style == "mul" else "clip"
    h = relu6(b, per_channel(b, conv(b, "x", 3, 8, 3, 2), 8, norm), act)
    c = 8
    for cout, stride, t in ((8, 1, 2), (12, 2, 3), (12, 1, 3), (16, 2, 2)):
        e = relu6(b, per_channel(b, conv(b, h, c, c * t, 1), c * t, norm), act)
        e = relu6(b, per_channel(b, conv(b, e, c * t, c * t, 3, stride, group=c * t), c * t, norm), act)
        p = per_channel(b, conv(b, e, c * t, cout, 1, bias=(style == "mul")), cout, norm)
        h = b.op("Add", [h, p]) if stride == 1 and cout == c else p
        c = cout
    h = relu6(b, per_channel(b, conv(b, h, c, 24, 1), 24, norm), act)
    g = b.op("GlobalAveragePool", [h])
    if style == "mul":
        g = b.op("Div", [g, b.const("d", np.array(2.0, np.float32))])
    if head == "flatten_gemm":
        y = b.op("Gemm", [b.op("Flatten", [g], axis=1), b.weight("fc", [10, 24]), b.weight("fcb", [10], 0.1)], transB=1)
    elif head == "reshape_gemm":
        n = b.op("Gather", [b.op("Shape", [g]), b.const("idx", np.array(0, np.int64))], axis=0)
        t = b.op("Concat", [b.unsqueeze0(n), b.const("m1", np.array([-1], np.int64))], axis=0)
        y = b.op("Gemm", [b.op("Reshape", [g, t]), b.weight("fc", [24, 10]), b.weight("fcb", [10], 0.1)])
    else:
        y = b.linear(b.op("Flatten", [g], axis=1), 24, 10)
    b.nodes.append(helper.make_node("Identity", [y], ["y"], name="out"))
    return b.model([helper.make_tensor_value_info("x", FLOAT, ["batch", 3, 32, 32])],
                   [helper.make_tensor_value_info("y", FLOAT, ["batch", 10])])


MODELS = {
    "bench_bert13": lambda: transformer("bert13", 13, False, 1),
    "bench_bert18": lambda: transformer("bert18", 18, False, 2),
    "bench_gpt13": lambda: transformer("gpt13", 13, True, 3),
    "bench_mbv2_13": lambda: cnn("mbv2_13", 13, "clip", "flatten_gemm", 4),
    "bench_mbv2_9": lambda: cnn("mbv2_9", 9, "clip", "reshape_gemm", 5),
    "bench_cnn_mul": lambda: cnn("cnn_mul", 13, "mul", "matmul_add", 6),
}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_bench_models.py OUTDIR\n")
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for name, make in MODELS.items():
        onnx.save(make(), os.path.join(argv[1], name + ".onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
