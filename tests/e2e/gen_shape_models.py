#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the shape suite (tests/test_shape.c): the passes
eliminate_shape_op, eliminate_shape_gather, eliminate_slice_after_shape,
fuse_concat_into_reshape, and fold_constants on the same chains.

Usage:
    /usr/bin/python3 gen_shape_models.py OUTDIR

Needs python3-onnx and python3-numpy. ir_version 8; models up to opset 17
pass onnx.checker (newer ones are written unchecked: the checker here knows
opset 17 at most); all run in ONNX Runtime. The output is deterministic.

Files written to OUTDIR:

  The optimizer's own test cases (onnxoptimizer/test/optimizer_test.py),
  opset 13:
  sh_op.onnx          X [3,2] -> Relu -> X2 (declared [3,2]) -> Shape -> Y.
  sh_gather.onnx      Relu -> X2 [3,2] -> Shape -> Gather([1]) -> Identity -> Y.
  sh_concat1.onnx     X [3,4,5]: Shape -> Gather([0]) -> Concat with [4,5]
                      -> Reshape(X).
  sh_concat2.onnx     X [N,4,5]: Shape -> Concat with [1] -> Reshape(X)
                      -> Y [N,4,5,1] (the optimizer leaves it; the target
                      is [0,4,5,1] here: dim 0 is X's own).
  sh_concat3.onnx     X [N,4,5]: Shape -> Gather([0]) -> Cast(int32) ->
                      Concat with int32 [4,5,1] -> Cast(int64) -> Reshape(X).
  sh_slice.onnx       X [3,4,5]: Shape -> Slice([-1]:[999]) -> Cast(float)
                      -> Mul(X).

  Transformer-like graphs, x [batch, seq, 64] (named dims), 4 heads of 16:
  sh_attn_opN.onnx    N in 13..21: self-attention whose head split and
                      merge reshape by Concat(Unsqueeze(Gather(Shape(x), 0)),
                      Unsqueeze(Gather(Shape(x), 1)), [4], [16]) and by
                      Concat(..., [64]); the head size from Gather(Shape(x),
                      -1) / 4; from opset 15 also Shape(x, end=2) and
                      Shape(x, start=-1) (negative start). Then a Reshape
                      of the flattened output by Concat(Unsqueeze(batch),
                      [-1]).
  sh_attn_op11.onnx   the same at opset 11 (Unsqueeze axes as an attribute).
                      Inference gives q, k, v the names of x's dims, so the
                      targets become [0, 0, 4, 16], [0, 0, 64] and [0, -1].
  sh_attn_op9.onnx    opset 9: Slice of a Shape by attributes, Unsqueeze
                      by attribute.
  sh_nested.onnx      an If on the sign of x's sum whose branches reshape the
                      outer x by targets made from Shape(x): then x by
                      Concat(batch, [-1]) (becomes [0, -1]), and that back
                      by Concat(batch, Gather(Shape(x), [-2, -1])) (stays:
                      the value reshaped is a branch's own, its dims not
                      known there); else x by Concat(batch, Gather(Shape(x),
                      [-2, -1])) (becomes [0, 0, 64]); a Loop body adds x
                      reshaped by Concat(batch, [-1, 16]) (becomes [0, -1,
                      16]) to its carried value.
  sh_refuse.onnx      Reshapes left alone, each for its reason: r_two (two
                      dims of another value), r_minus (a -1 already, and an
                      unknown dim), r_zero (the one -1 but another output
                      dim a copy that may be 0), r_allowzero (allowzero 1 and
                      two dims to copy), r_nameless (the input's dims have
                      no names: nothing proves them the data's), r_narrow
                      (dims through Cast to int32 and another dim that may
                      be 0), r_default (the dims of dflt, a graph input with
                      an initializer: an overridable default, whose dims are
                      not folded into anything); and one done: r_allowone
                      (allowzero, one unknown dim and 64 beside it:
                      [-1, 64]).

  sh_layers.onnx      12 such attentions stacked (opset 17, not flattened),
                      each plus its residual: each layer's Reshapes take
                      their targets from the dims of the layer before.
  Feeds (.npy, for ort_compare --feed-both): x_b1.npy [1,5,64], x_b3.npy
  [3,7,64], x_b6.npy [6,1,64], x_b4s8.npy [4,8,64];
  n_b3.npy [3,4,5], n_b7.npy [7,4,5] and n_b0.npy [0,4,5] for sh_concat2/3.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
I32 = TensorProto.INT32


def save(model, outdir, name, opset):
    model.ir_version = 8
    if opset <= 17:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(outdir, name))


def model_of(nodes, inputs, outputs, inits, opset=13, value_info=None):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits, value_info=value_info or [])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="gen_shape_models")


def vi(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def const(name, arr, dtype=np.int64):
    return numpy_helper.from_array(np.asarray(arr, dtype=dtype), name)


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name or outs[0], **attrs)


# ---- the optimizer's own cases ----

def optimizer_cases(outdir):
    nodes = [node("Relu", ["X"], ["X2"]), node("Shape", ["X2"], ["Y"])]
    save(model_of(nodes, [vi("X", F, [3, 2])], [vi("Y", I64, [2])], [], value_info=[vi("X2", F, [3, 2])]),
         outdir, "sh_op.onnx", 13)

    nodes = [node("Relu", ["X"], ["X2"]), node("Shape", ["X2"], ["X3"]), node("Gather", ["X3", "indices"], ["X4"]),
             node("Identity", ["X4"], ["Y"])]
    save(model_of(nodes, [vi("X", F, [3, 2])], [vi("Y", I64, [1])], [const("indices", [1])],
                  value_info=[vi("X2", F, [3, 2])]), outdir, "sh_gather.onnx", 13)

    nodes = [node("Shape", ["X"], ["X1"]), node("Gather", ["X1", "indices"], ["X2"], axis=0),
             node("Concat", ["X2", "shape"], ["X3"], axis=0), node("Reshape", ["X", "X3"], ["Y"])]
    save(model_of(nodes, [vi("X", F, [3, 4, 5])], [vi("Y", F, [3, 4, 5])],
                  [const("shape", [4, 5]), const("indices", [0]), const("axes", [0])],
                  value_info=[vi("X2", I64, [1])]), outdir, "sh_concat1.onnx", 13)

    nodes = [node("Shape", ["X"], ["X1"]), node("Concat", ["X1", "shape"], ["X2"], axis=0),
             node("Reshape", ["X", "X2"], ["Y"])]
    save(model_of(nodes, [vi("X", F, ["N", 4, 5])], [vi("Y", F, ["N", 4, 5, 1])], [const("shape", [1])]),
         outdir, "sh_concat2.onnx", 13)

    nodes = [node("Shape", ["X"], ["X1"]), node("Gather", ["X1", "indices"], ["X2"], axis=0),
             node("Cast", ["X2"], ["X3"], to=I32), node("Concat", ["X3", "shape"], ["X4"], axis=0),
             node("Cast", ["X4"], ["X5"], to=I64), node("Reshape", ["X", "X5"], ["Y"])]
    save(model_of(nodes, [vi("X", F, ["N", 4, 5])], [vi("Y", F, ["N", 4, 5, 1])],
                  [const("shape", [4, 5, 1], np.int32), const("indices", [0]), const("axes", [0])],
                  value_info=[vi("X3", I32, [1])]), outdir, "sh_concat3.onnx", 13)

    nodes = [node("Shape", ["X"], ["X1"]), node("Slice", ["X1", "start", "end"], ["X2"]),
             node("Cast", ["X2"], ["X3"], to=F), node("Mul", ["X", "X3"], ["Y"])]
    save(model_of(nodes, [vi("X", F, [3, 4, 5])], [vi("Y", F, [3, 4, 5])],
                  [const("start", [-1]), const("end", [999])]), outdir, "sh_slice.onnx", 13)


# ---- transformer-like ----

class Builder:
    def __init__(self, opset, prefix=""):
        self.opset = opset
        self.nodes = []
        self.inits = []
        self.p = prefix
        self.rng = np.random.RandomState(7)

    def c(self, name, arr, dtype=np.int64):
        if all(t.name != self.p + name for t in self.inits):
            self.inits.append(const(self.p + name, arr, dtype))
        return self.p + name

    def w(self, name, shape):
        self.inits.append(numpy_helper.from_array((self.rng.rand(*shape).astype(np.float32) - 0.5) / 4, self.p + name))
        return self.p + name

    def n(self, op, ins, out, **attrs):
        self.nodes.append(node(op, ins, [self.p + out], **attrs))
        return self.p + out

    def unsqueeze0(self, x, out):
        if self.opset >= 13:
            return self.n("Unsqueeze", [x, self.c("ax0", [0])], out)
        return self.n("Unsqueeze", [x], out, axes=[0])

    def dim(self, x, k, out):
        """Gather(Shape(x), k) as a scalar, then Unsqueeze'd to [1]."""
        s = self.n("Shape", [x], out + "_shape")
        g = self.n("Gather", [s, self.c(out + "_i", k)], out + "_g", axis=0)
        return self.unsqueeze0(g, out)


def attention(b, x, flatten=True):
    """Self-attention on x [batch, seq, 64]: 4 heads of 16 (then flattened per batch when @flatten)."""
    op = b.opset
    bt = b.dim(x, 0, "bt")
    sq = b.dim(x, 1, "sq")
    # the head size from the last dim: Gather(Shape(x), -1) / 4 (a negative index)
    hd = b.n("Div", [b.n("Gather", [b.n("Shape", [x], "sx"), b.c("im1", [-1])], "last"), b.c("four", [4])], "hd")
    heads = b.c("heads", [4])
    if op >= 15:
        bs = b.n("Shape", [x], "bs", end=2)                 # [batch, seq]
        split = b.n("Concat", [bs, heads, hd], "split", axis=0)
        hidden = b.n("Shape", [x], "hid", start=-1)          # [64], a negative start
        merge = b.n("Concat", [bs, hidden], "merge", axis=0)
    else:
        split = b.n("Concat", [bt, sq, heads, hd], "split", axis=0)
        merge = b.n("Concat", [bt, sq, b.c("c64", [64])], "merge", axis=0)
    heads_of = {}
    for name in ("q", "k", "v"):
        p = b.n("Add", [b.n("MatMul", [x, b.w("W" + name, [64, 64])], name + "_mm"), b.w("b" + name, [64])], name)
        r = b.n("Reshape", [p, split], name + "_r")
        heads_of[name] = b.n("Transpose", [r], name + "_t", perm=[0, 2, 1, 3] if name != "k" else [0, 2, 3, 1])
    s = b.n("Mul", [b.n("MatMul", [heads_of["q"], heads_of["k"]], "qk"), b.c("scale", [0.25], np.float32)], "sc")
    a = b.n("MatMul", [b.n("Softmax", [s], "sm", axis=-1), heads_of["v"]], "av")
    m = b.n("Reshape", [b.n("Transpose", [a], "at", perm=[0, 2, 1, 3]), merge], "am")
    o = b.n("MatMul", [m, b.w("Wo", [64, 64])], "o")
    if not flatten:
        return o
    # flattened per batch: [batch, -1]
    flat = b.n("Concat", [bt, b.c("m1", [-1])], "flat", axis=0)
    return b.n("Reshape", [o, flat], "of")


def stacked(layers, opset=17):
    """@layers attentions (flatten=False), each plus its residual, on x [batch, seq, 64]: 33 nodes a layer."""
    nodes, inits, x = [], [], "x"
    for i in range(layers):
        b = Builder(opset, "l%d_" % i)
        x = b.n("Add", [x, attention(b, x, flatten=False)], "res")
        nodes += b.nodes
        inits += b.inits
    nodes.append(node("Identity", [x], ["y"], name="out"))
    return model_of(nodes, [vi("x", F, ["batch", "seq", 64])], [vi("y", F, ["batch", "seq", 64])], inits, opset)


def attn_models(outdir):
    for op in range(11, 22):
        if op == 12:
            continue
        b = Builder(op)
        y = attention(b, "x")
        b.nodes.append(node("Identity", [y], ["y"], name="out"))
        m = model_of(b.nodes, [vi("x", F, ["batch", "seq", 64])], [vi("y", F, ["batch", "seq_x_64"])], b.inits, op)
        save(m, outdir, "sh_attn_op%d.onnx" % op, op)


def op9(outdir):
    """Opset 9: Slice by attributes (starts, ends, axes), Unsqueeze by attribute."""
    nodes = [node("Shape", ["x"], ["s"]),
             node("Slice", ["s"], ["bs"], starts=[0], ends=[-1], axes=[0]),      # [batch, seq]
             node("Slice", ["s"], ["last"], starts=[-1], ends=[1000]),          # [64]
             node("Concat", ["bs", "four", "last16"], ["split"], axis=0),
             node("Div", ["last", "four"], ["last16"]),
             node("Reshape", ["x", "split"], ["y"])]
    # keep topological order
    nodes = [nodes[0], nodes[1], nodes[2], nodes[4], nodes[3], nodes[5]]
    m = model_of(nodes, [vi("x", F, ["batch", "seq", 64])], [vi("y", F, ["batch", "seq", 4, 16])],
                 [const("four", [4])], 9)
    save(m, outdir, "sh_attn_op9.onnx", 9)


def nested(outdir):
    then_b = Builder(13, "t_")
    s = then_b.n("Shape", ["x"], "s")
    bt = then_b.dim("x", 0, "bt")
    t1 = then_b.n("Reshape", ["x", then_b.n("Concat", [bt, then_b.c("m1", [-1])], "tgt", axis=0)], "t1")
    g = then_b.n("Gather", [s, then_b.c("i1", [-2, -1])], "g")     # [seq, 64], negative indices
    # back to [batch, seq, 64]: t1's dims are not known in a branch (no declaration), so this one stays
    then_b.n("Reshape", [t1, then_b.n("Concat", [bt, g], "back", axis=0)], "r")
    then_g = helper.make_graph(then_b.nodes, "then", [], [vi("t_r", F, ["batch", "seq", 64])], then_b.inits)

    else_b = Builder(13, "e_")
    s = else_b.n("Shape", ["x"], "s")
    g0 = else_b.unsqueeze0(else_b.n("Gather", [s, else_b.c("i0", 0)], "g0"), "u0")
    g1 = else_b.n("Gather", [s, else_b.c("i1", [-2, -1])], "g1")
    else_b.n("Reshape", ["x", else_b.n("Concat", [g0, g1], "tgt", axis=0)], "r")
    else_g = helper.make_graph(else_b.nodes, "else", [], [vi("e_r", F, ["batch", "seq", 64])], else_b.inits)

    body_b = Builder(13, "l_")
    bt = body_b.dim("x", 0, "bt")
    tgt = body_b.n("Concat", [bt, body_b.c("c", [-1, 16])], "tgt", axis=0)
    r = body_b.n("Reshape", ["x", tgt], "r")
    body_b.n("Identity", ["l_cond_in"], "cond_out")
    body_b.n("Add", ["l_acc_in", r], "acc")
    body_g = helper.make_graph(body_b.nodes, "body",
                               [vi("l_i", I64, []), vi("l_cond_in", TensorProto.BOOL, []),
                                vi("l_acc_in", F, ["batch", "seq_x_4", 16])],
                               [vi("l_cond_out", TensorProto.BOOL, []), vi("l_acc", F, ["batch", "seq_x_4", 16])],
                               body_b.inits)
    nodes = [node("ReduceSum", ["x"], ["sum"], keepdims=0),
             node("Greater", ["sum", "zero"], ["cond"]),
             node("If", ["cond"], ["yi"], then_branch=then_g, else_branch=else_g),
             node("Reshape", ["x", "flat16"], ["acc0"]),
             node("Loop", ["trips", "true", "acc0"], ["yl"], body=body_g)]
    inits = [numpy_helper.from_array(np.array(0, np.float32), "zero"), const("flat16", [0, -1, 16]),
             const("trips", 2), numpy_helper.from_array(np.array(True), "true")]
    m = model_of(nodes, [vi("x", F, ["batch", "seq", 64])], [vi("yi", F, ["batch", "seq", 64]), vi("yl", F, ["batch", "seq_x_4", 16])], inits, 13)
    save(m, outdir, "sh_nested.onnx", 13)


def refusals(outdir):
    b = Builder(14)
    # x [batch, seq, 64]; y [n, 64]; z [batch, m, 64]; u [?, ?, 64] without names
    bt = b.dim("x", 0, "bt")
    sq = b.dim("x", 1, "sq")
    # two dims of another value: y is [n, 64], its dims are not batch and seq
    b.n("Reshape", ["y", b.n("Concat", [bt, sq, b.c("c4", [-1])], "t_two", axis=0)], "r_two")
    # a -1 already and an unknown dim
    b.n("Reshape", ["y", b.n("Concat", [bt, b.c("m1", [-1]), b.c("c16", [16])], "t_minus", axis=0)], "r_minus")
    # one -1 (batch, not z's dim 0 by name? z's dim 0 is batch: use y's n instead), beside a copy that may be 0
    zm = b.dim("z", 1, "zm")
    nb = b.dim("y", 0, "nb")
    b.n("Reshape", ["z", b.n("Concat", [nb, zm, b.c("c64", [64])], "t_zero", axis=0)], "r_zero")
    # allowzero: no copies, so two unknown dims
    b.n("Reshape", ["x", b.n("Concat", [bt, sq, b.c("c64b", [64])], "t_az", axis=0)], "r_allowzero", allowzero=1)
    # allowzero with one unknown dim and 64 beside it: [-1, 64] is exact
    xf = b.n("Reshape", ["x", b.c("f64", [-1, 64])], "xf")
    b.n("Reshape", [xf, b.n("Concat", [b.dim(xf, 0, "xr"), b.c("c64c", [64])], "t_one", axis=0)], "r_allowone",
        allowzero=1)
    # nameless dims: u's dims have no names, q = Relu(u) has them unnamed too
    q = b.n("Relu", ["u"], "q")
    ub = b.dim("u", 0, "ub")
    us = b.dim("u", 1, "us")
    b.n("Reshape", [q, b.n("Concat", [ub, us, b.c("c4b", [4]), b.c("c16b", [16])], "t_nameless", axis=0)],
        "r_nameless")
    # through Cast to int32, with another dim that may be 0
    c32 = b.n("Cast", [b.n("Concat", [bt, sq], "t_bs", axis=0)], "t_bs32", to=I32)
    c32 = b.n("Concat", [c32, b.c("c64i", [64], np.int32)], "t_n32", axis=0)
    b.n("Reshape", ["x", b.n("Cast", [c32], "t_n64", to=I64)], "r_narrow")
    # an overridable default (a graph input with an initializer): its declared dims are not folded into anything
    dd = b.dim("dflt", 0, "dd")
    b.n("Reshape", ["dflt", b.n("Concat", [dd, b.c("m1b", [-1])], "t_default", axis=0)], "r_default")
    outs = ["r_two", "r_minus", "r_zero", "r_allowzero", "r_allowone", "r_nameless", "r_narrow", "r_default"]
    m = model_of(b.nodes, [vi("x", F, ["batch", "seq", 64]), vi("y", F, ["n", 64]), vi("z", F, ["batch", "m", 64]),
                           vi("u", F, [None, None, 64]), vi("dflt", F, [2, 8])],
                 [vi(o, F, [None] * (2 if o in ("r_allowone", "r_default") else 4 if o == "r_nameless" else 3))
                  for o in outs], b.inits + [numpy_helper.from_array(np.ones((2, 8), np.float32), "dflt")], 14)
    save(m, outdir, "sh_refuse.onnx", 14)


def feeds(outdir):
    rng = np.random.RandomState(3)
    for name, shape in (("x_b1", (1, 5, 64)), ("x_b3", (3, 7, 64)), ("x_b6", (6, 1, 64)),
                        ("n_b3", (3, 4, 5)), ("n_b7", (7, 4, 5)), ("n_b0", (0, 4, 5)), ("x_b4s8", (4, 8, 64))):
        np.save(os.path.join(outdir, name + ".npy"), (rng.rand(*shape).astype(np.float32) - 0.5))


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    optimizer_cases(outdir)
    attn_models(outdir)
    op9(outdir)
    nested(outdir)
    refusals(outdir)
    save(stacked(12), outdir, "sh_layers.onnx", 17)
    feeds(outdir)


if __name__ == "__main__":
    main()
