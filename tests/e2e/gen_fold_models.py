#!/usr/bin/python3
"""Generate the models of the fold suite (tests/test_fold.c).

Usage:
    /usr/bin/python3 gen_fold_models.py OUTDIR

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


def tile(outdir):
    t = np.arange(256, dtype=np.float32).reshape(16, 16) / 8
    nodes = [
        helper.make_node("Tile", ["T", "reps"], ["tt"], name="tile"),
        helper.make_node("Add", ["X", "tt"], ["Y"], name="add"),
    ]
    inits = [const("T", t), const("reps", np.array([40, 40], np.int64))]
    save(model_of(nodes, [vi("X", TensorProto.FLOAT, [640, 640])], [vi("Y", TensorProto.FLOAT, [640, 640])], inits),
         outdir, "fold_tile.onnx")


def main():
    outdir = sys.argv[1]
    reshape(outdir)
    rotary(outdir)
    chain(outdir)
    tile(outdir)


if __name__ == "__main__":
    main()
