#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the nop suite (tests/test_nop.c): the no-op
eliminations (eliminate_nop_concat, _expand, _flatten, _monotone_argmax,
_split, _with_unit, _slice, eliminate_consecutive_idempotent_ops, nop).

Usage:
    /usr/bin/python3 gen_nop_models.py OUTDIR

Needs python3-onnx and python3-numpy. Models are ir_version 8, opset 13
unless named otherwise; each passes onnx.checker.check_model and runs in
ONNX Runtime (but unit_op6 and bad). The graphs of onnxoptimizer's own test cases
(onnxoptimizer/test/optimizer_test.py) come first, under the names of
those tests; the others add the cases its tests leave out. Each NAME
below is written as nop_NAME.onnx. The output is deterministic.

onnxoptimizer's cases:
  flatten_not_nop     Identity -> Flatten axis 2 of [1,10,3,1,1] (stays)
  flatten_axis0_out   Add -> Flatten axis 0 of [1,10], a graph output
  flatten_axis0       Identity -> Flatten axis 0 of [1,10] (declared)
  flatten_axis1       Identity -> Flatten axis 1 of [2,3]
  expand              Expand of X [3,2] to [1,1] (int64_data) -> Identity
  with_unit           the chain Mul(X, one), Mul(one, .), Add(., zero),
                      Add(zero, .), Sub(., zero), Div(., one), Pow(., one),
                      Sub(zero, .), Cast to bool, Or(false, .), And(true, .),
                      Identity (zero is +0.0)
  argmax_exp          Exp -> ArgMax axis 1
  argmax_softmax      Softmax axis 2 -> ArgMax axis 2, LogSoftmax axis 0 ->
                      ArgMax axis 1 (another axis)
  argmax_log          Log -> ArgMax, Sqrt -> ArgMax
  preserve_vi         three Transposes, value_info of the first's output

Ours:
  concat              Concat of one input (axis 0, and axis -1 of a graph
                      input straight to a graph output: stays), Concat of
                      two (stays)
  split               Split of one output: without split, with split [4]
                      (the dim), with split a graph input with a default
                      (overridable: stays);
                      split_op11: the split attribute [4]
  expand_more         Expand of X [3,1] to [3,4] (bigger: stays), to [2,3,1]
                      (another rank: stays), of N [n,2] to [1,2] (goes) and
                      to [2,2] (dim 0 not known: stays)
  flatten_more        Flatten axis -1 of [2,3] (goes), axis 2 of [4,1]
                      (goes), axis 0 of [n,3] (not known: stays), axis 1 of
                      [2,3,4] (stays)
  unit_zero           float Add(X, +0.0) (stays), Add(X, -0.0) (goes),
                      Sub(X, +0.0) (goes), Sub(X, -0.0) (stays),
                      Add(-0.0, X) (goes), int64 Add(I, 0) and Sub(I, 0)
                      (go), Sub(0, I) (Neg), Sub(-0.0, X) and
                      Sub(+0.0, X) (stay); feeds with -0.0 and NaN:
                      nop_unit_zero.X.npy
  unit_shape          Mul(X [3,1], ones [3,4]) (bigger: stays),
                      Mul(X [2], ones [1,2]) (another rank: stays),
                      Mul(N [n,3], ones [3]) (goes), Mul(N, ones [2,3]) (dim 0
                      not known: stays), Div(one, X) (stays), float16
                      Mul by 1 in int32_data (goes), Pow(X, int64 1) (goes),
                      Mul by 1600 ones in float_data (goes), Mul by 1599 ones
                      and a 2 at the end (stays), Pow(int64 L, 1) (stays:
                      ONNX Runtime rounds it through double; feed
                      nop_unit_shape.L.npy holds 3431000368545368591)
  unit_op6            opset 6 Mul(X [2,3], one [3], broadcast=1) (goes; IR 3;
                      ONNX Runtime has no Mul before opset 7: not run)
  idempotent          Relu -> Relu (second goes), Ceil -> Ceil whose first is
                      also read by Neg (second goes), Floor -> Floor ->
                      Floor, Sign -> Sign where both outputs are graph
                      outputs (stays), Round -> Round (a graph output),
                      Reshape [6,4] -> Reshape [2,12] (reads R), Reshape
                      [6,4] -> Reshape [0,2,2] (a 0 copies 6, not 2: stays)
  slice               Slice of [2,3,4]: axis 1 [0, INT64_MAX) (goes), axes
                      0 and 2 [0, 2) and [-5, 100) (goes), axis 2 [0, 3)
                      (stays), axis 1 step 2 (stays), int32 starts and ends
                      (goes); of N [n,3]: axis 0 [0, INT64_MAX) (goes), axis
                      0 [0, 10) (not known: stays), starts a graph input
                      (stays)
  slice_op9           opset 9 Slice with attributes: axis 1 [0, 3) of
                      [2,3] (goes), axis 1 [1, 3) (stays)
  bad                 what ONNX Runtime refuses stays so: Concat of a scalar,
                      Split on axis 5 of [2,3] (not run)
  nested              a Loop whose body holds Concat of one input, Split of
                      one output, Mul by a scalar 1, Relu -> Relu; an If
                      whose branch holds Flatten axis 1 of [2,3] (declared)
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
I64_MAX = np.iinfo(np.int64).max


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def typed(name, dtype, dims, vals):
    """A tensor in the typed fields (float_data, int64_data, int32_data)."""
    return helper.make_tensor(name, dtype, dims, vals)


def save(outdir, name, nodes, inputs, outputs, inits=(), value_info=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits), value_info=list(value_info))
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_nop_models",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset >= 7 else 3
    path = os.path.join(outdir, "nop_" + name + ".onnx")
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    onnx.checker.check_model(path)


def node(op, ins, outs, name, **attrs):
    return helper.make_node(op, ins, outs, name=name, **attrs)


def optimizer_cases(out):
    save(out, "flatten_not_nop",
         [node("Identity", ["A"], ["X"], "id"), node("Flatten", ["X"], ["B"], "flat", axis=2)],
         [vi("A", F, (1, 10, 3, 1, 1))], [vi("B", F, (10, 3))])
    save(out, "flatten_axis0_out",
         [node("Add", ["X", "Y"], ["A"], "add"), node("Flatten", ["A"], ["B"], "flat", axis=0)],
         [vi("X", F, (1, 10)), vi("Y", F, (1, 10))], [vi("B", F, (1, 10))], value_info=[vi("A", F, (1, 10))])
    save(out, "flatten_axis0",
         [node("Identity", ["A"], ["X"], "id"), node("Flatten", ["X"], ["B"], "flat", axis=0)],
         [vi("A", F, (1, 10))], [vi("B", F, (1, 10))], value_info=[vi("X", F, (1, 10))])
    save(out, "flatten_axis1",
         [node("Identity", ["A"], ["X"], "id"), node("Flatten", ["X"], ["B"], "flat", axis=1)],
         [vi("A", F, (2, 3))], [vi("B", F, (2, 3))], value_info=[vi("X", F, (2, 3))])
    save(out, "expand",
         [node("Expand", ["X", "shape"], ["X2"], "expand"), node("Identity", ["X2"], ["Y"], "id")],
         [vi("X", F, (3, 2))], [vi("Y", F, (3, 2))], [typed("shape", I64, [2], [1, 1])])
    nodes = [node("Mul", ["X", "one"], ["X1"], "mul1"), node("Mul", ["one", "X1"], ["X2"], "mul2"),
             node("Add", ["X2", "zero"], ["X3"], "add1"), node("Add", ["zero", "X3"], ["X4"], "add2"),
             node("Sub", ["X4", "zero"], ["X5"], "sub1"), node("Div", ["X5", "one"], ["X6"], "div"),
             node("Pow", ["X6", "one"], ["X7"], "pow"), node("Sub", ["zero", "X7"], ["X8"], "sub2"),
             node("Cast", ["X8"], ["X9"], "cast", to=TensorProto.BOOL),
             node("Or", ["bool_zero", "X9"], ["X10"], "or"), node("And", ["bool_one", "X10"], ["X11"], "and"),
             node("Identity", ["X11"], ["Y"], "id")]
    save(out, "with_unit", nodes, [vi("X", F, (3, 2))], [vi("Y", TensorProto.BOOL, (3, 2))],
         [typed("one", F, [2], [1, 1]), typed("zero", F, [2], [0, 0]),
          typed("bool_one", TensorProto.BOOL, [2], [1, 1]), typed("bool_zero", TensorProto.BOOL, [2], [0, 0])],
         value_info=[vi("X9", TensorProto.BOOL, (3, 2)), vi("X10", TensorProto.BOOL, (3, 2))])
    save(out, "argmax_exp",
         [node("Exp", ["X"], ["Y"], "exp"), node("ArgMax", ["Y"], ["Z"], "argmax", axis=1)],
         [vi("X", F, (5, 7, 11))], [vi("Z", I64, (5, 1, 11))])
    save(out, "argmax_softmax",
         [node("Softmax", ["X"], ["Y"], "softmax", axis=2), node("ArgMax", ["Y"], ["Z"], "argmax", axis=2),
          node("LogSoftmax", ["X"], ["Y2"], "logsoftmax", axis=0), node("ArgMax", ["Y2"], ["Z2"], "argmax2", axis=1)],
         [vi("X", F, (5, 7, 11))], [vi("Z", I64, (5, 7, 1)), vi("Z2", I64, (5, 1, 11))])
    save(out, "argmax_log",
         [node("Log", ["X"], ["Y"], "log"), node("ArgMax", ["Y"], ["Z"], "argmax", axis=0),
          node("Sqrt", ["X"], ["Y2"], "sqrt"), node("ArgMax", ["Y2"], ["Z2"], "argmax2", axis=0)],
         [vi("X", F, (5, 7))], [vi("Z", I64, (1, 7)), vi("Z2", I64, (1, 7))])
    save(out, "preserve_vi",
         [node("Transpose", ["X"], ["Y"], "t1", perm=[1, 0, 2]), node("Transpose", ["Y"], ["Z"], "t2", perm=[2, 0, 1]),
          node("Transpose", ["Z"], ["A"], "t3", perm=[2, 0, 1])],
         [vi("X", F, (2, 3, 4))], [vi("A", F, (2, 4, 3))], value_info=[vi("Y", F, (3, 2, 4))])


def our_cases(out):
    save(out, "concat",
         [node("Concat", ["X"], ["c1"], "cat1", axis=0), node("Relu", ["c1"], ["Y"], "relu"),
          node("Concat", ["X"], ["Z"], "cat_io", axis=-1),
          node("Concat", ["X", "Y"], ["W"], "cat2", axis=0)],
         [vi("X", F, (2, 3))], [vi("Y", F, (2, 3)), vi("Z", F, (2, 3)), vi("W", F, (4, 3))])
    save(out, "split",
         [node("Split", ["X"], ["s1"], "split_none", axis=1), node("Relu", ["s1"], ["Y"], "relu"),
          node("Split", ["X", "four"], ["s2"], "split_four", axis=-1), node("Neg", ["s2"], ["Z"], "neg"),
          node("Split", ["X", "S"], ["s3"], "split_input", axis=1), node("Abs", ["s3"], ["W"], "abs")],
         [vi("X", F, (2, 4)), vi("S", I64, (1,))], [vi("Y", F, (2, 4)), vi("Z", F, (2, 4)), vi("W", F, (2, 4))],
         [init("four", np.array([4], np.int64)), init("S", np.array([4], np.int64))])
    save(out, "split_op11",
         [node("Split", ["X"], ["s1"], "split_attr", axis=1, split=[4]), node("Relu", ["s1"], ["Y"], "relu")],
         [vi("X", F, (2, 4))], [vi("Y", F, (2, 4))], opset=11)
    save(out, "expand_more",
         [node("Expand", ["X", "s34"], ["e1"], "grow", ), node("Relu", ["e1"], ["Y1"], "r1"),
          node("Expand", ["X", "s231"], ["e2"], "rank", ), node("Relu", ["e2"], ["Y2"], "r2"),
          node("Expand", ["N", "s12"], ["e3"], "keep_n"), node("Relu", ["e3"], ["Y3"], "r3"),
          node("Expand", ["N", "s42"], ["e4"], "unknown_n"), node("Relu", ["e4"], ["Y4"], "r4")],
         [vi("X", F, (3, 1)), vi("N", F, ("n", 2))],
         [vi("Y1", F, (3, 4)), vi("Y2", F, (2, 3, 1)), vi("Y3", F, ("n", 2)), vi("Y4", F, (2, 2))],
         [init("s34", np.array([3, 4], np.int64)), init("s231", np.array([2, 3, 1], np.int64)),
          init("s12", np.array([1, 2], np.int64)), init("s42", np.array([2, 2], np.int64))])
    save(out, "flatten_more",
         [node("Flatten", ["X"], ["f1"], "minus1", axis=-1), node("Relu", ["f1"], ["Y1"], "r1"),
          node("Flatten", ["W"], ["f2"], "axis2", axis=2), node("Relu", ["f2"], ["Y2"], "r2"),
          node("Flatten", ["N"], ["f3"], "unknown", axis=0), node("Relu", ["f3"], ["Y3"], "r3"),
          node("Flatten", ["T"], ["f4"], "rank3", axis=1), node("Relu", ["f4"], ["Y4"], "r4")],
         [vi("X", F, (2, 3)), vi("W", F, (4, 1)), vi("N", F, ("n", 3)), vi("T", F, (2, 3, 4))],
         [vi("Y1", F, (2, 3)), vi("Y2", F, (4, 1)), vi("Y3", F, (1, None)), vi("Y4", F, (2, 12))])
    zf = lambda name, v: init(name, np.array(v, np.float32))
    save(out, "unit_zero",
         [node("Add", ["X", "pz"], ["a1"], "add_pos"), node("Neg", ["a1"], ["Y1"], "r1"),
          node("Add", ["X", "nz"], ["a2"], "add_neg"), node("Neg", ["a2"], ["Y2"], "r2"),
          node("Sub", ["X", "pz"], ["a3"], "sub_pos"), node("Neg", ["a3"], ["Y3"], "r3"),
          node("Sub", ["X", "nz"], ["a4"], "sub_neg"), node("Neg", ["a4"], ["Y4"], "r4"),
          node("Add", ["nz", "X"], ["a5"], "add_neg_first"), node("Neg", ["a5"], ["Y5"], "r5"),
          node("Add", ["I", "iz"], ["b1"], "add_int"), node("Neg", ["b1"], ["Y6"], "r6"),
          node("Sub", ["I", "iz"], ["b2"], "sub_int"), node("Neg", ["b2"], ["Y7"], "r7"),
          node("Sub", ["iz", "I"], ["b3"], "zero_minus"), node("Neg", ["b3"], ["Y8"], "r8"),
          node("Sub", ["nz", "X"], ["a6"], "neg_zero_minus"), node("Neg", ["a6"], ["Y9"], "r9"),
          node("Sub", ["pz", "X"], ["a7"], "pos_zero_minus"), node("Neg", ["a7"], ["Y10"], "r10")],
         [vi("X", F, (2, 3)), vi("I", I64, (2, 3))],
         [vi("Y%d" % i, I64 if i in (6, 7, 8) else F, (2, 3)) for i in range(1, 11)],
         [zf("pz", [0.0, 0.0, 0.0]), zf("nz", -0.0), init("iz", np.array(0, np.int64))])
    np.save(os.path.join(out, "nop_unit_zero.X.npy"),
            np.array([[-0.0, 0.0, 1.5], [-2.0, float("nan"), -0.0]], np.float32))
    save(out, "unit_shape",
         [node("Mul", ["X31", "ones34"], ["m1"], "grow"), node("Relu", ["m1"], ["Y1"], "r1"),
          node("Mul", ["X2", "ones12"], ["m2"], "rank"), node("Relu", ["m2"], ["Y2"], "r2"),
          node("Mul", ["N", "ones3"], ["m3"], "keep_n"), node("Relu", ["m3"], ["Y3"], "r3"),
          node("Mul", ["N", "ones23"], ["m4"], "unknown_n"), node("Relu", ["m4"], ["Y4"], "r4"),
          node("Div", ["one", "X2"], ["m5"], "one_over"), node("Relu", ["m5"], ["Y5"], "r5"),
          node("Mul", ["H", "h_one"], ["m6"], "half"), node("Relu", ["m6"], ["Y6"], "r6"),
          node("Pow", ["X2", "i_one"], ["m7"], "pow_int"), node("Relu", ["m7"], ["Y7"], "r7"),
          node("Mul", ["B", "big_ones"], ["m8"], "big"), node("Relu", ["m8"], ["Y8"], "r8"),
          node("Mul", ["B", "big_last2"], ["m9"], "big_last"), node("Relu", ["m9"], ["Y9"], "r9"),
          node("Pow", ["L", "i_one"], ["m10"], "pow_i64"), node("Neg", ["m10"], ["Y10"], "r10")],
         [vi("X31", F, (3, 1)), vi("X2", F, (2,)), vi("N", F, ("n", 3)), vi("H", TensorProto.FLOAT16, (2, 2)),
          vi("B", F, (40, 40)), vi("L", I64, (2,))],
         [vi("Y1", F, (3, 4)), vi("Y2", F, (1, 2)), vi("Y3", F, ("n", 3)), vi("Y4", F, (2, 3)), vi("Y5", F, (2,)),
          vi("Y6", TensorProto.FLOAT16, (2, 2)), vi("Y7", F, (2,)), vi("Y8", F, (40, 40)), vi("Y9", F, (40, 40)),
          vi("Y10", I64, (2,))],
         [zf("ones34", np.ones((3, 4))), zf("ones12", np.ones((1, 2))), zf("ones3", np.ones(3)),
          zf("ones23", np.ones((2, 3))), zf("one", 1.0),
          typed("h_one", TensorProto.FLOAT16, [], [1.0]),
          init("i_one", np.array(1, np.int64)),
          typed("big_ones", F, [40, 40], [1.0] * 1600),
          typed("big_last2", F, [40, 40], [1.0] * 1599 + [2.0])])
    np.save(os.path.join(out, "nop_unit_shape.L.npy"), np.array([3431000368545368591, -7], np.int64))
    save(out, "unit_op6",
         [node("Mul", ["X", "one3"], ["m"], "mul_bcast", broadcast=1), node("Relu", ["m"], ["Y"], "relu")],
         [vi("X", F, (2, 3)), vi("one3", F, (3,))], [vi("Y", F, (2, 3))], [zf("one3", [1, 1, 1])], opset=6)
    save(out, "idempotent",
         [node("Relu", ["X"], ["a1"], "relu1"), node("Relu", ["a1"], ["a2"], "relu2"), node("Neg", ["a2"], ["Y1"], "n1"),
          node("Ceil", ["X"], ["c1"], "ceil1"), node("Ceil", ["c1"], ["c2"], "ceil2"), node("Neg", ["c1"], ["Y2"], "n2"),
          node("Add", ["c2", "c1"], ["Y3"], "add"),
          node("Floor", ["X"], ["f1"], "floor1"), node("Floor", ["f1"], ["f2"], "floor2"),
          node("Floor", ["f2"], ["f3"], "floor3"), node("Neg", ["f3"], ["Y4"], "n4"),
          node("Sign", ["X"], ["S1"], "sign1"), node("Sign", ["S1"], ["S2"], "sign2"),
          node("Round", ["X"], ["o1"], "round1"), node("Round", ["o1"], ["Y5"], "round2"),
          node("Reshape", ["R", "s64"], ["r1"], "reshape1"), node("Reshape", ["r1", "s212"], ["Y6"], "reshape2"),
          node("Reshape", ["R", "s64"], ["q1"], "reshape3"), node("Reshape", ["q1", "s022"], ["Y7"], "reshape4")],
         [vi("X", F, (2, 3)), vi("R", F, (2, 3, 4))],
         [vi("Y1", F, (2, 3)), vi("Y2", F, (2, 3)), vi("Y3", F, (2, 3)), vi("Y4", F, (2, 3)), vi("S1", F, (2, 3)),
          vi("S2", F, (2, 3)), vi("Y5", F, (2, 3)), vi("Y6", F, (2, 12)), vi("Y7", F, (6, 2, 2))],
         [init("s64", np.array([6, 4], np.int64)), init("s212", np.array([2, 12], np.int64)),
          init("s022", np.array([0, 2, 2], np.int64))])
    i64 = lambda name, v: init(name, np.array(v, np.int64))
    save(out, "slice",
         [node("Slice", ["X", "z1", "max1", "ax1"], ["l1"], "whole_axis1"), node("Relu", ["l1"], ["Y1"], "r1"),
          node("Slice", ["X", "z2", "e2", "ax02"], ["l2"], "axes_0_2"), node("Relu", ["l2"], ["Y2"], "r2"),
          node("Slice", ["X", "z1", "e3", "ax2"], ["l3"], "cuts"), node("Relu", ["l3"], ["Y3"], "r3"),
          node("Slice", ["X", "z1", "max1", "ax1", "two"], ["l4"], "step2"), node("Relu", ["l4"], ["Y4"], "r4"),
          node("Slice", ["X", "z32", "e32"], ["l5"], "int32"), node("Relu", ["l5"], ["Y5"], "r5"),
          node("Slice", ["N", "z1", "max1"], ["l6"], "n_whole"), node("Relu", ["l6"], ["Y6"], "r6"),
          node("Slice", ["N", "z1", "ten"], ["l7"], "n_ten"), node("Relu", ["l7"], ["Y7"], "r7"),
          node("Slice", ["X", "S", "max1", "ax1"], ["l8"], "starts_input"), node("Relu", ["l8"], ["Y8"], "r8")],
         [vi("X", F, (2, 3, 4)), vi("N", F, ("n", 3)), vi("S", I64, (1,))],
         [vi("Y1", F, (2, 3, 4)), vi("Y2", F, (2, 3, 4)), vi("Y3", F, (2, 3, 3)), vi("Y4", F, (2, 2, 4)),
          vi("Y5", F, (2, 3, 4)), vi("Y6", F, ("n", 3)), vi("Y7", F, (None, 3)), vi("Y8", F, (2, None, 4))],
         [i64("z1", [0]), i64("max1", [I64_MAX]), i64("ax1", [1]), i64("z2", [0, -5]), i64("e2", [2, 100]),
          i64("ax02", [0, 2]), i64("e3", [3]), i64("ax2", [2]), i64("two", [2]),
          init("z32", np.array([0, 0, 0], np.int32)), init("e32", np.array([2, 3, 4], np.int32)),
          i64("ten", [10])])
    save(out, "slice_op9",
         [node("Slice", ["X"], ["l1"], "attr_whole", starts=[0], ends=[3], axes=[1]), node("Relu", ["l1"], ["Y1"], "r1"),
          node("Slice", ["X"], ["l2"], "attr_cuts", starts=[1], ends=[3], axes=[1]), node("Relu", ["l2"], ["Y2"], "r2")],
         [vi("X", F, (2, 3))], [vi("Y1", F, (2, 3)), vi("Y2", F, (2, 2))], opset=9)
    save(out, "bad",
         [node("Concat", ["S"], ["c"], "cat_scalar", axis=0), node("Neg", ["c"], ["Y1"], "n1"),
          node("Split", ["X"], ["s"], "split_axis5", axis=5), node("Neg", ["s"], ["Y2"], "n2")],
         [vi("S", F, ()), vi("X", F, (2, 3))], [vi("Y1", F, ()), vi("Y2", F, (2, 3))])
    # a Loop of 2 iterations; its body's no-ops read the carried value
    body = helper.make_graph(
        [node("Concat", ["v_in"], ["b1"], "body_cat", axis=0), node("Split", ["b1"], ["b2"], "body_split", axis=0),
         node("Mul", ["b2", "b_one"], ["b3"], "body_mul"), node("Relu", ["b3"], ["b4"], "body_relu1"),
         node("Relu", ["b4"], ["b5"], "body_relu2"), node("Identity", ["cond_in"], ["cond_out"], "body_cond"),
         node("Add", ["b5", "v_in"], ["v_out"], "body_add")],
        "body", [vi("i", I64, ()), vi("cond_in", TensorProto.BOOL, ()), vi("v_in", F, (2, 3))],
        [vi("cond_out", TensorProto.BOOL, ()), vi("v_out", F, (2, 3))],
        [init("b_one", np.array(1.0, np.float32))])
    then_g = helper.make_graph([node("Flatten", ["X"], ["t1"], "then_flat", axis=1), node("Neg", ["t1"], ["t2"], "then_neg")],
                               "then", [], [vi("t2", F, (2, 3))])
    else_g = helper.make_graph([node("Abs", ["X"], ["e1"], "else_abs")], "else", [], [vi("e1", F, (2, 3))])
    save(out, "nested",
         [node("Loop", ["trips", "", "X"], ["Y"], "loop", body=body),
          node("If", ["C"], ["Z"], "if", then_branch=then_g, else_branch=else_g)],
         [vi("X", F, (2, 3)), vi("C", TensorProto.BOOL, ())], [vi("Y", F, (2, 3)), vi("Z", F, (2, 3))],
         [init("trips", np.array(2, np.int64))])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    optimizer_cases(out)
    our_cases(out)


if __name__ == "__main__":
    main()
