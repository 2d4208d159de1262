#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the fold suite (tests/test_fold.c).

Usage:
    /usr/bin/python3 gen_fold_models.py OUTDIR
    /usr/bin/python3 gen_fold_models.py --hold OUTDIR   (fold_hold.onnx only)

Needs python3-onnx and python3-numpy. ir_version 8, default-domain opset
17; every model passes onnx.checker and runs in ONNX Runtime. The output is
deterministic.

Files written to OUTDIR:

  fold_reshape.onnx  the static-shape reshape exporters write: X [2,3,4];
                     Shape(X) -> Gather(0) -> Unsqueeze([0]) -> Concat with
                     [-1] -> Reshape(X) -> Relu -> Y. Four nodes fold
                     (Shape from X's declared dims).
  fold_rotary.onnx   a rotary table: Range(0, 16, 1) float -> Unsqueeze(1),
                     inv_freq [8] -> Unsqueeze(0), Mul -> [16,8], Add to X.
                     Mul's result (512 bytes) is bigger than what it frees:
                     it folds with --fold-grow only.
  fold_chain.onnx    constants through Cast and Transpose: W int64 [3,4] ->
                     Cast(float) -> Transpose -> Mul(0.5) -> MatMul with X
                     [2,4]; float16: Concat, Less, Where of A16, B16 fold,
                     Add(A16, B16) and Cast(A) to float16 stay, all
                     concatenated after XH [64]; int64: Range(0,10,1) -> Div(3) ->
                     Less(2) -> Where(a, Neg(a)) -> Add to XI [10]; Sub,
                     Min, Max, Equal, Not, Concat, Slice, Squeeze, Expand
                     on small constants -> Add to XS [3,2]; an Add of D, an
                     initializer that is also a graph input (stays); a
                     RandomNormal times 0 (stays: non-deterministic).
  fold_tile.onnx     Tile of a [16,16] float constant by [40,40]: 1.6 MB,
                     over the default 1M limit (stays); Add to X [640,640].
  fold_nested.onnx   folding in nested graphs and functions: an If whose
                     branches compute Mul(K, 2) and Neg(K) of an outer
                     constant K (both fold, inside the branch); a Loop whose
                     body computes Mul(K, 0.5) (folds) and casts the
                     iteration number (stays: it changes with the
                     iteration); a call of a model-local function whose
                     body squares a Constant (folds into a Constant node).
  fold_dynamic.onnx  a flattening reshape of X [N,3,4] (N a symbolic dim):
                     Shape(X) -> Slice [0:] -> ReduceProd -> Concat after
                     [-1] -> Reshape(X) -> Y [1,N*12]. The product reads
                     N: nothing folds unless --input-shape X=2,3,4 is given.
  fold_inexact.onnx  results a runtime may round otherwise: Exp, Log, Tanh,
                     Sigmoid, Erf, Sin, Cos, Pow of a [2,8] float constant
                     A (positive), and ReduceSum of A over its 8 columns,
                     each added to X [2,8] (Y0 ... Y8); and Mul(A, 2), which
                     folds bit for bit. With --fold-inexact every node on
                     A folds, else only the Mul.
  fold_op9.onnx, fold_op11.onnx, fold_op13.onnx, fold_op18.onnx,
  fold_op19.onnx, fold_op21.onnx
                     one node per case, every input an initializer, every
                     output a graph output: the operators at that opset
                     (attributes that later became inputs, negative axes
                     and steps, pad modes, integer division and casts of
                     negatives, broadcasting, per-axis and blocked
                     dequantization), so that ONNX Runtime checks each
                     folded value. Every node folds (with --fold-grow).
  fold_stream.onnx   elementwise folds over constants of several store
                     chunks (1 MiB each), every result a graph output:
                     W float [768,2048] (6 MiB) -> Cast(float16),
                     Cast(int32), Add(W, scalar), Mul(W, per-row [768,1]),
                     Greater(W, 0) -> Where(g, W, scalar); Q int8
                     [2048,2048] (4 MiB) -> DequantizeLinear per axis 0
                     (scale and zero point [2048]). These fold (with
                     --fold-grow and a size limit of 64M), a window at a
                     time. Add(P [1100,1,1024], R [1,2,1024]) stays: no
                     input is in step with the output, and P (4.4 MB) is
                     too large to hold.
  fold_hold.onnx     (--hold only: 64 MB, made by the test that reads it)
                     Transpose of a float [4100,4096] constant, 64.06 MiB:
                     over what a whole-tensor kernel may hold (64 MiB),
                     left as too large to hold whatever the size limit.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def save(model, outdir, name):
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(outdir, name))


def model_of(nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="gen_fold_models")


def vi(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def reshape(outdir):
    nodes = [
        helper.make_node("Shape", ["X"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "i0"], ["g0"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["g0", "ax0"], ["u0"], name="unsqueeze"),
        helper.make_node("Concat", ["u0", "m1"], ["c"], name="concat", axis=0),
        helper.make_node("Reshape", ["X", "c"], ["r"], name="reshape"),
        helper.make_node("Relu", ["r"], ["Y"], name="relu"),
    ]
    inits = [const("i0", np.int64(0)), const("ax0", np.array([0], np.int64)), const("m1", np.array([-1], np.int64))]
    save(model_of(nodes, [vi("X", TensorProto.FLOAT, [2, 3, 4])], [vi("Y", TensorProto.FLOAT, [2, 12])], inits),
         outdir, "fold_reshape.onnx")


def rotary(outdir):
    inv = (1.0 / (10000 ** (np.arange(0, 16, 2, dtype=np.float32) / 16))).astype(np.float32)
    nodes = [
        helper.make_node("Range", ["r0", "r16", "r1"], ["pos"], name="range"),
        helper.make_node("Unsqueeze", ["pos", "ax1"], ["pu"], name="unsq_pos"),
        helper.make_node("Unsqueeze", ["inv_freq", "ax0"], ["fu"], name="unsq_inv"),
        helper.make_node("Mul", ["pu", "fu"], ["freqs"], name="mul"),
        helper.make_node("Add", ["X", "freqs"], ["Y"], name="add"),
    ]
    inits = [const("r0", np.float32(0)), const("r16", np.float32(16)), const("r1", np.float32(1)),
             const("ax1", np.array([1], np.int64)), const("ax0", np.array([0], np.int64)), const("inv_freq", inv)]
    save(model_of(nodes, [vi("X", TensorProto.FLOAT, [16, 8])], [vi("Y", TensorProto.FLOAT, [16, 8])], inits),
         outdir, "fold_rotary.onnx")


def chain(outdir):
    rng = np.random.default_rng(11)
    w = rng.integers(-50, 50, size=(3, 4)).astype(np.int64)
    a = (rng.standard_normal(64) * 3).astype(np.float32)
    b = (rng.standard_normal(64) / 7).astype(np.float32)
    nodes = [
        # float: Cast, Transpose, Mul
        helper.make_node("Cast", ["W"], ["wf"], name="cast_w", to=TensorProto.FLOAT),
        helper.make_node("Transpose", ["wf"], ["wt"], name="transpose", perm=[1, 0]),
        helper.make_node("Mul", ["wt", "half"], ["wm"], name="mul_half"),
        helper.make_node("MatMul", ["X", "wm"], ["Y"], name="matmul"),
        # float16: moves and comparisons fold; what rounds to float16 stays
        helper.make_node("Add", ["A16", "B16"], ["abh"], name="add_h"),
        helper.make_node("Cast", ["A"], ["ah"], name="cast_a", to=TensorProto.FLOAT16),
        helper.make_node("Concat", ["A16", "B16"], ["hc"], name="concat_h", axis=0),
        helper.make_node("Less", ["A16", "B16"], ["hl"], name="less_h"),
        helper.make_node("Where", ["hl", "A16", "B16"], ["hw"], name="where_h"),
        helper.make_node("Concat", ["XH", "abh", "ah", "hc", "hw"], ["YH"], name="concat_xh", axis=0),
        # int64: Range, Div, Less, Neg, Where
        helper.make_node("Range", ["i0", "i10", "i1"], ["ia"], name="range_i"),
        helper.make_node("Div", ["ia", "i3"], ["id"], name="div_i"),
        helper.make_node("Less", ["id", "i2"], ["il"], name="less_i"),
        helper.make_node("Neg", ["ia"], ["ineg"], name="neg_i"),
        helper.make_node("Where", ["il", "ia", "ineg"], ["iw"], name="where_i"),
        helper.make_node("Add", ["XI", "iw"], ["YI"], name="add_xi"),
        # small shape work: Sub, Min, Max, Equal, Not, Concat, Slice, Squeeze, Expand
        helper.make_node("Sub", ["s6", "s1"], ["s5"], name="sub_s"),
        helper.make_node("Min", ["s5", "s4", "s9"], ["smin"], name="min_s"),
        helper.make_node("Max", ["smin", "s2"], ["smax"], name="max_s"),
        helper.make_node("Equal", ["smax", "s4"], ["seq"], name="equal_s"),
        helper.make_node("Not", ["seq"], ["snot"], name="not_s"),
        helper.make_node("Cast", ["snot"], ["sf"], name="cast_s", to=TensorProto.FLOAT),
        helper.make_node("Concat", ["sf", "sf", "sf"], ["scat"], name="concat_s", axis=0),
        helper.make_node("Slice", ["scat", "st0", "st2"], ["ssl"], name="slice_s"),
        helper.make_node("Unsqueeze", ["ssl", "ax0"], ["sun"], name="unsq_s"),
        helper.make_node("Squeeze", ["sun", "ax0"], ["ssq"], name="squeeze_s"),
        helper.make_node("Expand", ["ssq", "shape32"], ["sexp"], name="expand_s"),
        helper.make_node("Add", ["XS", "sexp"], ["YS"], name="add_xs"),
        # stays: a graph input's default, a random operator
        helper.make_node("Add", ["D", "half"], ["dd"], name="add_default"),
        helper.make_node("Add", ["XD", "dd"], ["YD"], name="add_xd"),
        helper.make_node("RandomNormal", [], ["rn"], name="random", shape=[2], seed=1.0),
        helper.make_node("Mul", ["rn", "zero"], ["rz"], name="mul_random"),
        helper.make_node("Add", ["XD", "rz"], ["YR"], name="add_xr"),
    ]
    inits = [
        const("W", w), const("half", np.float32(0.5)), const("A", a),
        const("A16", a.astype(np.float16)), const("B16", b.astype(np.float16)),
        const("i0", np.int64(0)), const("i10", np.int64(10)), const("i1", np.int64(1)),
        const("i3", np.int64(3)), const("i2", np.int64(2)),
        const("s6", np.array([6], np.int64)), const("s1", np.array([1], np.int64)),
        const("s4", np.array([4], np.int64)), const("s9", np.array([9], np.int64)),
        const("s2", np.array([2], np.int64)),
        const("st0", np.array([0], np.int64)), const("st2", np.array([2], np.int64)),
        const("ax0", np.array([0], np.int64)), const("shape32", np.array([3, 2], np.int64)),
        const("D", np.array([1.5, -2.0], np.float32)), const("zero", np.float32(0)),
    ]
    inputs = [vi("X", TensorProto.FLOAT, [2, 4]), vi("XH", TensorProto.FLOAT16, [64]),
              vi("XI", TensorProto.INT64, [10]), vi("XS", TensorProto.FLOAT, [3, 2]),
              vi("XD", TensorProto.FLOAT, [2]), vi("D", TensorProto.FLOAT, [2])]
    outputs = [vi("Y", TensorProto.FLOAT, [2, 3]), vi("YH", TensorProto.FLOAT16, [384]),
               vi("YI", TensorProto.INT64, [10]), vi("YS", TensorProto.FLOAT, [3, 2]),
               vi("YD", TensorProto.FLOAT, [2]), vi("YR", TensorProto.FLOAT, [2])]
    save(model_of(nodes, inputs, outputs, inits), outdir, "fold_chain.onnx")
    # the same constants in the typed fields exporters write (float_data, int64_data,
    # int32_data for float16 bits) instead of raw_data
    typed = [helper.make_tensor(t.name, t.data_type, t.dims, numpy_helper.to_array(t).flatten().tolist())
             for t in inits]
    save(model_of(nodes, inputs, outputs, typed), outdir, "fold_chain_typed.onnx")


def tile(outdir):
    t = np.arange(256, dtype=np.float32).reshape(16, 16) / 8
    nodes = [
        helper.make_node("Tile", ["T", "reps"], ["tt"], name="tile"),
        helper.make_node("Add", ["X", "tt"], ["Y"], name="add"),
    ]
    inits = [const("T", t), const("reps", np.array([40, 40], np.int64))]
    save(model_of(nodes, [vi("X", TensorProto.FLOAT, [640, 640])], [vi("Y", TensorProto.FLOAT, [640, 640])], inits),
         outdir, "fold_tile.onnx")


def dynamic(outdir):
    nodes = [
        helper.make_node("Shape", ["X"], ["s"], name="shape"),
        helper.make_node("Slice", ["s", "zero", "big"], ["tail"], name="slice"),
        helper.make_node("ReduceProd", ["tail"], ["prod"], name="prod", keepdims=1),
        helper.make_node("Concat", ["m1", "prod"], ["c"], name="concat", axis=0),
        helper.make_node("Reshape", ["X", "c"], ["r"], name="reshape"),
        helper.make_node("Relu", ["r"], ["Y"], name="relu"),
    ]
    inits = [const("zero", np.array([0], np.int64)), const("big", np.array([100], np.int64)),
             const("m1", np.array([-1], np.int64))]
    save(model_of(nodes, [vi("X", TensorProto.FLOAT, ["N", 3, 4])], [vi("Y", TensorProto.FLOAT, [1, "N12"])], inits),
         outdir, "fold_dynamic.onnx")


def inexact(outdir):
    a = (np.arange(16, dtype=np.float32).reshape(2, 8) + 1) / 7
    nodes = []
    outs = []
    for i, op in enumerate(["Exp", "Log", "Tanh", "Sigmoid", "Erf", "Sin", "Cos"]):
        nodes.append(helper.make_node(op, ["A"], ["f%d" % i], name=op.lower()))
    nodes.append(helper.make_node("Pow", ["A", "p"], ["f7"], name="pow"))
    nodes.append(helper.make_node("ReduceSum", ["A", "ax1"], ["f8"], name="reducesum", keepdims=1))
    nodes.append(helper.make_node("Mul", ["A", "two"], ["f9"], name="mul"))
    for i in range(10):
        nodes.append(helper.make_node("Add", ["X", "f%d" % i], ["Y%d" % i], name="add%d" % i))
        outs.append(vi("Y%d" % i, TensorProto.FLOAT, [2, 8]))
    inits = [const("A", a), const("p", np.float32(2.5)), const("ax1", np.array([1], np.int64)),
             const("two", np.float32(2))]
    save(model_of(nodes, [vi("X", TensorProto.FLOAT, [2, 8])], outs, inits), outdir, "fold_inexact.onnx")


def nested(outdir):
    k = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    then_g = helper.make_graph([
        helper.make_node("Mul", ["K", "two"], ["t1"], name="then_mul"),
        helper.make_node("Add", ["X", "t1"], ["tout"], name="then_add"),
    ], "then", [], [vi("tout", TensorProto.FLOAT, [2, 3])])
    else_g = helper.make_graph([
        helper.make_node("Neg", ["K"], ["e1"], name="else_neg"),
        helper.make_node("Sub", ["X", "e1"], ["eout"], name="else_sub"),
    ], "else", [], [vi("eout", TensorProto.FLOAT, [2, 3])])
    body = helper.make_graph([
        helper.make_node("Mul", ["K", "half"], ["b2"], name="body_mul"),
        helper.make_node("Cast", ["i"], ["b1"], name="body_cast", to=TensorProto.FLOAT),
        helper.make_node("Add", ["v", "b2"], ["v2"], name="body_add"),
        helper.make_node("Mul", ["v2", "b1"], ["v3"], name="body_scale"),
        helper.make_node("Identity", ["cin"], ["cout"], name="body_cond"),
    ], "body", [vi("i", TensorProto.INT64, []), vi("cin", TensorProto.BOOL, []), vi("v", TensorProto.FLOAT, [2, 3])],
        [vi("cout", TensorProto.BOOL, []), vi("v3", TensorProto.FLOAT, [2, 3])])
    fn = helper.make_function("local", "AddSquares", ["x"], ["y"], [
        helper.make_node("Constant", [], ["c"], name="fn_c", value=numpy_helper.from_array(
            np.array([1, 2, 3], np.float32))),
        helper.make_node("Mul", ["c", "c"], ["c2"], name="fn_mul"),
        helper.make_node("Add", ["x", "c2"], ["y"], name="fn_add"),
    ], [helper.make_opsetid("", 17)])
    nodes = [
        helper.make_node("If", ["C"], ["Y"], name="if", then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["trips", "true", "X"], ["L"], name="loop", body=body),
        helper.make_node("AddSquares", ["X"], ["F"], name="call", domain="local"),
    ]
    inits = [const("K", k), const("two", np.float32(2)), const("half", np.float32(0.5)),
             const("trips", np.int64(3)), const("true", np.bool_(True))]
    g = helper.make_graph(nodes, "g", [vi("X", TensorProto.FLOAT, [2, 3]), vi("C", TensorProto.BOOL, [])],
                          [vi("Y", TensorProto.FLOAT, [2, 3]), vi("L", TensorProto.FLOAT, [2, 3]),
                           vi("F", TensorProto.FLOAT, [2, 3])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[fn], producer_name="gen_fold_models")
    save(m, outdir, "fold_nested.onnx")


class Cases:
    """Nodes on initializers, each output a graph output."""

    def __init__(self, opset):
        self.opset, self.nodes, self.inits, self.outputs, self.n = opset, [], [], [], 0

    def init(self, arr):
        name = "c%d" % len(self.inits)
        self.inits.append(const(name, arr))
        return name

    def node(self, op, inputs, n_out=1, elem=None, **attrs):
        ins = [i if isinstance(i, str) else self.init(i) for i in inputs]
        outs = ["y%d_%d" % (self.n, k) for k in range(n_out)]
        self.nodes.append(helper.make_node(op, ins, outs, name="n%d_%s" % (self.n, op), **attrs))
        if elem is None:
            elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.asarray(inputs[0]).dtype]
        for o in outs:
            if self.opset <= 17:
                self.outputs.append(helper.make_empty_tensor_value_info(o))   # inferred at the end
            else:
                self.outputs.append(helper.make_tensor_value_info(o, elem, None))
        self.n += 1

    def save(self, outdir, name):
        g = helper.make_graph(self.nodes, "g", [], self.outputs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="gen_fold_models")
        m.ir_version = 8
        if self.opset <= 17:
            m = onnx.shape_inference.infer_shapes(m)
            del m.graph.value_info[:]
            save(m, outdir, name)
        else:
            onnx.save(m, os.path.join(outdir, name))   # newer than python3-onnx's checker


def opsets(outdir):
    rng = np.random.default_rng(21)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    x3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    xi = rng.integers(-9, 9, size=(4, 5)).astype(np.int32)
    xl = rng.integers(-9, 9, size=(3, 4)).astype(np.int64)
    b1 = rng.integers(0, 2, size=(3, 4)).astype(bool)
    b2 = rng.integers(0, 2, size=(4,)).astype(bool)
    i64 = lambda *v: np.array(v, np.int64)

    c = Cases(9)
    c.node("Slice", [x], starts=[1, 0], ends=[3, -1], axes=[0, 1])
    c.node("Pad", [x], pads=[1, 0, 0, 2], mode="reflect")
    c.node("Pad", [x], pads=[2, 1, 1, 0], mode="edge")
    c.node("Pad", [x], pads=[0, 1, 2, 0], value=1.5)
    c.node("Unsqueeze", [x], axes=[0, 3])
    c.node("Squeeze", [x[None]], axes=[0])
    c.node("Split", [x], 2, axis=1, split=[2, 3])
    c.node("ReduceSum", [xi], axes=[1], keepdims=0)
    c.node("ReduceSum", [x[:, :2]], axes=[1])
    c.node("Tile", [xi, i64(2, 1)])
    c.node("Flatten", [x3], axis=2)
    c.node("Div", [np.array([-7, 7, -7, 9], np.int32), np.array([2, -2, -2, 3], np.int32)])
    c.node("Cast", [np.array([-2.7, 2.7, -0.5, 100.9], np.float32)], elem=TensorProto.INT32, to=TensorProto.INT32)
    c.node("Cast", [np.array([2**40 + 3, -5], np.int64)], elem=TensorProto.FLOAT, to=TensorProto.FLOAT)
    c.node("Cast", [np.array([0.0, 254.9, 3.5], np.float32)], elem=TensorProto.UINT8, to=TensorProto.UINT8)
    c.node("Cast", [np.array([0.1, 1e300, -1e-300], np.float64)], elem=TensorProto.FLOAT, to=TensorProto.FLOAT)
    c.node("Cast", [x], elem=TensorProto.DOUBLE, to=TensorProto.DOUBLE)
    c.node("Cast", [xi], elem=TensorProto.BOOL, to=TensorProto.BOOL)
    c.node("Where", [b1, xl, np.int64(-1)], elem=TensorProto.INT64)
    c.node("Expand", [x[:, :1], i64(2, 4, 3)])
    c.node("Gather", [x, i64(-1, 0, 2)], axis=1)
    c.node("Transpose", [x3], perm=[2, 0, 1])
    c.node("Max", [x[:3, :4], np.array([0, 1, -1, 2], np.float32), np.float32(-0.5)])
    c.node("Min", [x, np.float32(0.25)])
    c.node("Greater", [xl, np.int64(0)], elem=TensorProto.BOOL)
    c.node("Less", [x, x[:1]], elem=TensorProto.BOOL)
    c.node("Equal", [xl, xl[::-1]], elem=TensorProto.BOOL)
    c.node("And", [b1, b2])
    c.node("Or", [b1, b2])
    c.node("Xor", [b1, b2])
    c.node("Not", [b1])
    c.node("Neg", [xi])
    c.node("Abs", [np.array([-128, -3, 5], np.int8)])
    c.node("Sqrt", [np.abs(x).astype(np.float64)])
    c.node("Reciprocal", [x.astype(np.float64)])
    c.node("Mul", [np.array([2**62, 3], np.int64), np.int64(4)])
    c.node("Add", [x, x[:, :1]])
    c.node("ConstantOfShape", [i64(2, 3)], elem=TensorProto.INT32, value=numpy_helper.from_array(np.array([7], np.int32)))
    c.node("ConstantOfShape", [i64(3)], elem=TensorProto.FLOAT)
    c.node("Concat", [xi, xi[:1]], axis=0)
    c.node("Shape", [x3], elem=TensorProto.INT64)
    c.node("Size", [x3], elem=TensorProto.INT64)
    c.node("Identity", [xl])
    c.save(outdir, "fold_op9.onnx")

    c = Cases(11)
    c.node("Pad", [x, i64(1, 2, 0, 1), np.float32(-2.5)])
    c.node("Pad", [xi, i64(0, 1, 1, 0)], mode="reflect")
    c.node("Range", [np.float32(0.1), np.float32(2.0), np.float32(0.3)])
    c.node("Range", [np.int32(10), np.int32(-3), np.int32(-4)])
    c.node("Range", [np.float64(1), np.float64(0), np.float64(0.125)])
    c.node("Squeeze", [x3[:, :1]], axes=[-2])
    c.node("Unsqueeze", [x], axes=[-1, 0])
    c.node("Slice", [x, i64(-1, 10), i64(-10**18, 0), i64(0, 1), i64(-2, -1)])
    c.node("Slice", [x3, i64(1), i64(2**62), i64(-1), i64(3)])
    c.node("ReduceProd", [xl[:, :2]], axes=[1], keepdims=1)
    c.node("ReduceSum", [xl], keepdims=0)
    c.node("Concat", [x3, x3], axis=-1)
    c.node("GatherElements", [x, np.array([[-1, 0], [2, 4]], np.int64)], axis=1)
    c.node("Split", [x3], 3, axis=1)
    c.node("Gather", [x3, np.array([[0, -1], [1, 1]], np.int32)], axis=-1)
    c.node("Flatten", [x3], axis=-1)
    c.save(outdir, "fold_op11.onnx")

    c = Cases(13)
    c.node("ReduceSum", [xi, i64(0, -1)], keepdims=1)
    c.node("ReduceSum", [xi, np.zeros(0, np.int64)], noop_with_empty_axes=1)
    c.node("Split", [x, i64(1, 3)], 2, axis=0)
    c.node("Squeeze", [x3[None], i64(0)])
    c.node("Unsqueeze", [x, i64(1, -1)])
    c.node("Reshape", [x3, i64(0, -1)])
    c.node("DequantizeLinear", [np.array([[-128, 0, 127], [5, -5, 1]], np.int8),
                                np.array([0.5, 0.25, 2.0], np.float32), np.array([1, -2, 0], np.int8)], elem=TensorProto.FLOAT, axis=1)
    c.node("DequantizeLinear", [np.array([0, 255, 7], np.uint8), np.float32(0.1), np.uint8(3)], elem=TensorProto.FLOAT)
    c.node("DequantizeLinear", [np.array([-2**31 + 5, 2**31 - 1], np.int32), np.float32(3e-5)], elem=TensorProto.FLOAT)
    c.save(outdir, "fold_op13.onnx")

    c = Cases(18)
    c.node("Split", [np.arange(7, dtype=np.float32)], 3, num_outputs=3)
    c.node("Pad", [x, i64(1, 2), np.float32(0.5), i64(-1)])
    c.node("ReduceProd", [x[:2, :2], i64(1)], keepdims=0)
    c.node("ReduceProd", [xl[:, :3], i64(0)])
    c.node("Sub", [np.array([3, 250], np.uint8), np.array([5, 10], np.uint8)])
    c.node("Max", [xi[:3, :4], np.array([0, 1, -1, 2], np.int32), np.int32(-3)])
    c.node("Min", [np.array([7, 2**63 + 5], np.uint64), np.uint64(2**63 + 1)])
    c.node("Div", [np.array([200, 7], np.uint8), np.array([3, 2], np.uint8)])
    c.node("Shape", [x3], elem=TensorProto.INT64, start=-2)
    c.node("Shape", [x3], elem=TensorProto.INT64, start=1, end=2)
    c.save(outdir, "fold_op18.onnx")

    c = Cases(19)
    c.node("Pad", [x, i64(2, 1, 1, 3)], mode="wrap")
    c.node("Pad", [xl, i64(1, 1, 1, 1)], mode="edge")
    c.node("CastLike", [xi, np.float64(0)], elem=TensorProto.DOUBLE)
    c.node("Reshape", [np.zeros((0, 3), np.float32), i64(3, 0)], allowzero=1)
    c.save(outdir, "fold_op19.onnx")

    c = Cases(21)
    c.node("DequantizeLinear", [rng.integers(-128, 127, size=(2, 6)).astype(np.int8),
                                np.array([[0.5, 2.0], [0.25, 4.0]], np.float32),
                                np.array([[1, -1], [0, 3]], np.int8)], elem=TensorProto.FLOAT, axis=1, block_size=3)
    c.node("DequantizeLinear", [np.array([0, 65535, 300], np.uint16), np.float32(0.01), np.uint16(10)], elem=TensorProto.FLOAT)
    c.node("Cast", [np.array([-1, 40000], np.int32)], elem=TensorProto.UINT16, to=TensorProto.UINT16)
    c.save(outdir, "fold_op21.onnx")


def streamed(outdir):
    rng = np.random.default_rng(17)
    w = (rng.standard_normal((768, 2048)) * 3000).astype(np.float32)
    w[0, :4] = [65519.0, 65520.0, -1e-8, 0.5 + 2.0 ** -11]     # float16 rounding: overflow, subnormal, a tie
    q = rng.integers(-128, 128, size=(2048, 2048)).astype(np.int8)
    scale = (rng.random(2048) / 50 + 1e-3).astype(np.float32)
    zp = rng.integers(-10, 10, size=2048).astype(np.int8)
    nodes = [
        helper.make_node("Cast", ["W"], ["h"], name="cast_h", to=TensorProto.FLOAT16),
        helper.make_node("Cast", ["W"], ["i"], name="cast_i", to=TensorProto.INT32),
        helper.make_node("Add", ["W", "s"], ["a"], name="add"),
        helper.make_node("Mul", ["W", "v"], ["m"], name="mul"),
        helper.make_node("Greater", ["W", "zero"], ["g"], name="greater"),
        helper.make_node("Where", ["g", "W", "s"], ["w"], name="where"),
        helper.make_node("DequantizeLinear", ["Q", "scale", "zp"], ["d"], name="dequantize", axis=0),
        helper.make_node("Add", ["P", "R"], ["o"], name="add_outer"),
    ]
    inits = [const("W", w), const("s", np.float32(0.375)), const("zero", np.float32(0)),
             const("v", (rng.standard_normal((768, 1)) * 2).astype(np.float32)), const("Q", q),
             const("scale", scale), const("zp", zp),
             const("P", rng.standard_normal((1100, 1, 1024)).astype(np.float32)),
             const("R", rng.standard_normal((1, 2, 1024)).astype(np.float32))]
    outs = [vi("h", TensorProto.FLOAT16, [768, 2048]), vi("i", TensorProto.INT32, [768, 2048]),
            vi("a", TensorProto.FLOAT, [768, 2048]), vi("m", TensorProto.FLOAT, [768, 2048]),
            vi("w", TensorProto.FLOAT, [768, 2048]), vi("d", TensorProto.FLOAT, [2048, 2048]),
            vi("o", TensorProto.FLOAT, [1100, 2, 1024])]
    save(model_of(nodes, [], outs, inits), outdir, "fold_stream.onnx")


def hold(outdir):
    t = np.ones((4100, 4096), np.float32)
    nodes = [helper.make_node("Transpose", ["T"], ["y"], name="transpose", perm=[1, 0])]
    save(model_of(nodes, [], [vi("y", TensorProto.FLOAT, [4096, 4100])], [const("T", t)]), outdir, "fold_hold.onnx")


def main():
    if sys.argv[1] == "--hold":
        hold(sys.argv[2])
        return
    outdir = sys.argv[1]
    reshape(outdir)
    rotary(outdir)
    chain(outdir)
    tile(outdir)
    inexact(outdir)
    dynamic(outdir)
    nested(outdir)
    opsets(outdir)
    streamed(outdir)


if __name__ == "__main__":
    main()
