#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the consec suite (tests/test_consec.c): chains of
two nodes that the optimizer's fuse_consecutive_* passes and
fuse_transpose_into_gemm turn into one (or none).

Usage:
    /usr/bin/python3 gen_consec_models.py OUTDIR

Needs python3-onnx and python3-numpy. Models are ir_version 8 (10 at opset
21); those up to opset 17 pass onnx.checker (python3-onnx knows no newer
opset); every one runs in ONNX Runtime. The output is deterministic. The
graphs of onnxoptimizer's own tests (onnxoptimizer/test/optimizer_test.py)
are here as they are there, except that axes are initializers only (there
they are also graph inputs, whose values a caller may override: that case
is consec_sq13_inputs). Axes constants come both as raw_data and as
int64_data (int32_data for int32 starts).

Files (opset in the name):

  consec_sq13        Squeeze [0,4,5] -> Squeeze [0,3] of X [1,1,2,3,1,1,1,1,8,9],
                     and the same in a Loop body on the Loop's input, the axes
                     from the main graph (onnxoptimizer's test)
  consec_sq13_default  three Squeezes in a row -> one of [0,1,4,5,6,7]
  consec_sq13_random onnxoptimizer's random case with one draw: Squeeze [7,0,5]
                     (unsorted) then [0,1,5] of [1,1,1,3,4,1,6,1,1,9]
  consec_sq13_multi  the first Squeeze's output also read by an Add
  consec_sq13_inputs the axes are graph inputs with defaults (refused)
  consec_sq11        attributes: axes [-10,4,5] then [0,-4] (rank known);
                     Squeeze [0] then a Squeeze without axes of W [1,3,1,2,1]
  consec_sq21        three Squeezes; a Squeeze without axes of X2 [N,1,3]
                     (refused: the dims are not known)
  consec_axes11, consec_axes13
                     32 Squeeze pairs of X [1,2,1,1,3,1,1,4] and 32 Unsqueeze
                     pairs of W [2,3] with drawn axes, each written as itself
                     or as its negative form: every pair joins
  consec_un13        Unsqueeze [1] then [0,3] of X [2,3]; Unsqueeze [0] whose
                     output M is a graph output, then Unsqueeze [0]
  consec_un11        attributes: Unsqueeze [-1] then [-4]
  consec_un21        as consec_un13 at opset 21, axes in int64_data
  consec_su13        Squeeze [1,3] -> Unsqueeze [1,3] -> Relu; Unsqueeze
                     [1,-1] -> Squeeze [1,3] whose output Z is a graph output
                     (an Identity stays); Squeeze [1] -> Unsqueeze [2] (not
                     the identity: stays)
  consec_su11        attributes: Squeeze without axes of [2,1,3,1] -> Unsqueeze [1,3];
                     Unsqueeze [0,2] of [2,3] -> Squeeze without axes (the
                     identity); Unsqueeze [0] of [2,1,3] -> Squeeze without
                     axes (also removes X3's own 1: stays)
  consec_su21        as consec_su13 at opset 21
  consec_ru11, consec_ru13, consec_ru18, consec_ru21
                     onnxoptimizer's test: each of the ten reductions of
                     Abs(X) [5,7,9] with axes [1], [1,2], [2], keepdims 0 and
                     1, each followed by an Unsqueeze of [0], [0,1], [1]
                     (180 pairs, 10 fuse); plus a reduction of every axis then
                     Unsqueeze [0,1,2] (fuses), ReduceMax [-1] then Unsqueeze
                     [2] (fuses), a reduction read twice (refused); from
                     opset 18 a ReduceSum without axes and
                     noop_with_empty_axes (refused)
  consec_cc11        onnxoptimizer's test: Concat(Concat(A,B,C), G,
                     Concat(D,E,F)) on axis 0 -> one Concat of 7 inputs
  consec_cc13        Concats on different axes (refused), an outer axis -3
                     over an inner axis 0 (rank 3: fuses), an inner Concat
                     read twice (refused)
  consec_cc21        three levels of Concat on axis 1
  consec_ls13        onnxoptimizer's tests: Softmax axis 0, 1, 2 -> Log;
                     the Softmax output a graph output (refused); the Log
                     output also read by an Exp; a double Softmax -> Log
  consec_ls_f16   x  a float16 Softmax -> Log (refused: ONNX Runtime's CPU
                     LogSoftmax takes float and double; not run)
  consec_ls11        Softmax without axis (1: flattening) and axis 2 -> Log
  consec_sl13        Slice [1:3] of axis 0 -> Slice [-5:100:2] of axis 2;
                     [1:3] of axis 1 twice (composed: [2:3]); int32 starts
                     and ends (int32_data); axes [-1] then [0]; no axes
                     (0, 1) then axis 2; [1:max:2] then [-3:-1] of axis 2
                     (composed: [3:7:2]); a negative step then axis 1 again
                     (refused); axis 0 of XN [N,6,8] twice (refused: the
                     dim is not known)
  consec_sl9         attributes: Slice axes [0] then axes [-1]; one of
                     [0,1] (no axes attribute) then [2]; [1:6] then [-2:100]
                     of axis 1 (composed: [4:6])
  consec_sl_grid     64 pairs of Slices of axis 2 (then -1) of X [4,6,8]: starts
                     and ends drawn from -10 ... 12 and the int64 extremes,
                     steps 1 to 3: every pair composes into one
  consec_sl21        as the first two of consec_sl13 at opset 21
  consec_tg13        onnxoptimizer's test: Gemm(T(X), T(Y), C), and the same
                     in a Loop body reading Y and C from the main graph
  consec_tg11        a Transpose without perm into A with transA 1; a
                     Transpose also read by a Relu (stays); one Transpose as
                     both A and B of a Gemm
  consec_tg21        as consec_tg13's main graph at opset 21
  consec_norank      X of unknown rank (fed [3,1,1,1] from consec_norank.X.npy):
                     Squeeze [-1] twice, Unsqueeze [-1] twice, Squeeze [-1]
                     -> Unsqueeze [-1], ReduceSum [-1] -> Unsqueeze [-1],
                     Slice axes [-1] then [0], Concat -1 over Concat 3: each
                     refused (negative axis, rank not known); Concat -1 over
                     Concat -1 fuses
  consec_nested      an If whose branches hold each chain (on values of the
                     main graph): every one fuses inside the branch
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def vi(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def ints(name, vals, typed=False, dtype=np.int64):
    """A 1-D integer initializer: raw_data, or int64_data / int32_data (typed)."""
    arr = np.asarray(vals, dtype=dtype)
    if typed:
        elem = I64 if dtype == np.int64 else TensorProto.INT32
        return helper.make_tensor(name, elem, arr.shape, arr.tolist())
    return numpy_helper.from_array(arr, name)


def save(outdir, name, nodes, inputs, outputs, inits, opset, check=True):
    """Outputs given without a shape take the one shape inference finds
    (up to opset 17); with @check, the model must pass onnx.checker."""
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="gen_consec_models")
    m.ir_version = 10 if opset >= 21 else 8
    if opset <= 17:
        inferred = {o.name: o for o in onnx.shape_inference.infer_shapes(m).graph.output}
        for o in m.graph.output:
            if not o.type.tensor_type.HasField("shape") and o.name in inferred:
                o.type.CopyFrom(inferred[o.name].type)
        if check:
            onnx.checker.check_model(m)
    onnx.save(m, os.path.join(outdir, name))


def fake_loop(body_nodes, carried, outs, name="loop"):
    """A Loop run once whose body reads the carried values (as "_NAME") and
    whatever it names from the enclosing graph; outs: (elem, dims, NAME),
    body output "_NAME", Loop output NAME."""
    ins = [vi("i", I64, []), vi("cond", TensorProto.BOOL, [])]
    ins += [vi("_" + n, e, d) for e, d, n in carried]
    bouts = [vi("cond", TensorProto.BOOL, [])] + [vi("_" + n, e, d) for e, d, n in outs]
    body = helper.make_graph(body_nodes, "body_" + name, ins, bouts)
    return [
        helper.make_node("Constant", [], ["trip_" + name], value=helper.make_tensor("t", I64, [], [1])),
        helper.make_node("Constant", [], ["cond_" + name], value=helper.make_tensor("c", TensorProto.BOOL, [], [True])),
        helper.make_node("Loop", ["trip_" + name, "cond_" + name] + [n for _, _, n in carried],
                         [n for _, _, n in outs], body=body, name=name),
    ]


XSQ = [1, 1, 2, 3, 1, 1, 1, 1, 8, 9]


def squeezes(outdir):
    nodes = [helper.make_node("Squeeze", ["X", "X_axes"], ["Y"], name="s1"),
             helper.make_node("Squeeze", ["Y", "Y_axes"], ["Z"], name="s2")]
    nodes += fake_loop([helper.make_node("Squeeze", ["_X", "X_axes"], ["_Y"], name="ls1"),
                        helper.make_node("Squeeze", ["_Y", "Y_axes"], ["_Z2"], name="ls2")],
                       [(F, XSQ, "X")], [(F, [2, 3, 1, 8, 9], "Z2")])
    save(outdir, "consec_sq13.onnx", nodes, [vi("X", F, XSQ)], [vi("Z", F, [2, 3, 1, 8, 9]), vi("Z2", F, [2, 3, 1, 8, 9])],
         [ints("X_axes", [0, 4, 5]), ints("Y_axes", [0, 3], typed=True)], 13)

    nodes = [helper.make_node("Squeeze", ["X", "X_axes"], ["Y"], name="s1"),
             helper.make_node("Squeeze", ["Y", "Y_axes"], ["Z"], name="s2"),
             helper.make_node("Squeeze", ["Z", "Z_axes"], ["A"], name="s3")]
    save(outdir, "consec_sq13_default.onnx", nodes, [vi("X", F, XSQ)], [vi("A", F, [2, 3, 8, 9])],
         [ints("X_axes", [0, 4, 5]), ints("Y_axes", [0, 3]), ints("Z_axes", [2], typed=True)], 13)

    # onnxoptimizer's test_fuse_consecutive_squeezes_random with one draw of its first axes, unsorted
    nodes = [helper.make_node("Squeeze", ["X", "X_axes"], ["Y"], name="s1"),
             helper.make_node("Squeeze", ["Y", "Y_axes"], ["Z"], name="s2")]
    save(outdir, "consec_sq13_random.onnx", nodes, [vi("X", F, [1, 1, 1, 3, 4, 1, 6, 1, 1, 9])],
         [vi("Z", F, [3, 4, 6, 9])], [ints("X_axes", [7, 0, 5]), ints("Y_axes", [0, 1, 5])], 13)

    nodes = [helper.make_node("Squeeze", ["X", "X_axes"], ["Y"], name="s1"),
             helper.make_node("Add", ["Y", "A"], ["Z2"], name="add"),
             helper.make_node("Squeeze", ["Y", "Y_axes"], ["Z"], name="s2")]
    save(outdir, "consec_sq13_multi.onnx", nodes, [vi("X", F, XSQ), vi("A", F, [1])],
         [vi("Z", F, [2, 3, 1, 8, 9]), vi("Z2", F, [1, 2, 3, 1, 1, 8, 9])],
         [ints("X_axes", [0, 4, 5]), ints("Y_axes", [0, 3])], 13)

    nodes = [helper.make_node("Squeeze", ["X", "X_axes"], ["Y"], name="s1"),
             helper.make_node("Squeeze", ["Y", "Y_axes"], ["Z"], name="s2")]
    save(outdir, "consec_sq13_inputs.onnx", nodes,
         [vi("X", F, XSQ), vi("X_axes", I64, [3]), vi("Y_axes", I64, [2])], [vi("Z", F, [2, 3, 1, 8, 9])],
         [ints("X_axes", [0, 4, 5]), ints("Y_axes", [0, 3])], 13)

    nodes = [helper.make_node("Squeeze", ["X"], ["Y"], name="s1", axes=[-10, 4, 5]),
             helper.make_node("Squeeze", ["Y"], ["Z"], name="s2", axes=[0, -4]),
             helper.make_node("Squeeze", ["W"], ["V"], name="w1", axes=[0]),
             helper.make_node("Squeeze", ["V"], ["U"], name="w2")]
    save(outdir, "consec_sq11.onnx", nodes, [vi("X", F, XSQ), vi("W", F, [1, 3, 1, 2, 1])],
         [vi("Z", F, [2, 3, 1, 8, 9]), vi("U", F, [3, 2])], [], 11)

    nodes = [helper.make_node("Squeeze", ["X", "X_axes"], ["Y"], name="s1"),
             helper.make_node("Squeeze", ["Y", "Y_axes"], ["Z"], name="s2"),
             helper.make_node("Squeeze", ["Z", "Z_axes"], ["A"], name="s3"),
             helper.make_node("Squeeze", ["X2", "X2_axes"], ["B1"], name="n1"),
             helper.make_node("Squeeze", ["B1"], ["B"], name="n2")]
    save(outdir, "consec_sq21.onnx", nodes, [vi("X", F, XSQ), vi("X2", F, ["N", 1, 3])],
         [vi("A", F, [2, 3, 8, 9]), vi("B", F, None)],
         [ints("X_axes", [0, 4, 5], typed=True), ints("Y_axes", [0, 3]), ints("Z_axes", [2]),
          ints("X2_axes", [1])], 21)


def unsqueezes(outdir):
    for opset, typed in ((13, False), (21, True)):
        nodes = [helper.make_node("Unsqueeze", ["X", "a1"], ["Y"], name="u1"),
                 helper.make_node("Unsqueeze", ["Y", "a2"], ["Z"], name="u2"),
                 helper.make_node("Unsqueeze", ["X", "a0"], ["M"], name="m1"),
                 helper.make_node("Unsqueeze", ["M", "a0"], ["N"], name="m2")]
        save(outdir, "consec_un%d.onnx" % opset, nodes, [vi("X", F, [2, 3])],
             [vi("Z", F, [1, 2, 1, 1, 3]), vi("M", F, [1, 2, 3]), vi("N", F, [1, 1, 2, 3])],
             [ints("a1", [1], typed), ints("a2", [0, 3], typed), ints("a0", [0], typed)], opset)
    nodes = [helper.make_node("Unsqueeze", ["X"], ["Y"], name="u1", axes=[-1]),
             helper.make_node("Unsqueeze", ["Y"], ["Z"], name="u2", axes=[-4])]
    save(outdir, "consec_un11.onnx", nodes, [vi("X", F, [2, 3])], [vi("Z", F, [1, 2, 3, 1])], [], 11)


def squeeze_unsqueeze(outdir):
    for opset in (13, 21):
        nodes = [helper.make_node("Squeeze", ["X", "a13"], ["S"], name="sq"),
                 helper.make_node("Unsqueeze", ["S", "a13"], ["U"], name="un"),
                 helper.make_node("Relu", ["U"], ["Y"], name="relu"),
                 helper.make_node("Unsqueeze", ["X2", "a1m"], ["U2"], name="un2"),
                 helper.make_node("Squeeze", ["U2", "a13"], ["Z"], name="sq2"),
                 helper.make_node("Squeeze", ["X", "a1"], ["S3"], name="sq3"),
                 helper.make_node("Unsqueeze", ["S3", "a2"], ["W"], name="un3")]
        save(outdir, "consec_su%d.onnx" % opset, nodes, [vi("X", F, [2, 1, 3, 1]), vi("X2", F, [2, 3])],
             [vi("Y", F, [2, 1, 3, 1]), vi("Z", F, [2, 3]), vi("W", F, [2, 3, 1, 1])],
             [ints("a13", [1, 3]), ints("a1m", [1, -1], typed=True), ints("a1", [1]), ints("a2", [2])], opset)
    nodes = [helper.make_node("Squeeze", ["X"], ["S"], name="sq"),
             helper.make_node("Unsqueeze", ["S"], ["U"], name="un", axes=[1, 3]),
             helper.make_node("Relu", ["U"], ["Y"], name="relu"),
             helper.make_node("Unsqueeze", ["X2"], ["V"], name="un2", axes=[0, 2]),
             helper.make_node("Squeeze", ["V"], ["W"], name="sq2"),
             helper.make_node("Relu", ["W"], ["Y2"], name="relu2"),
             helper.make_node("Unsqueeze", ["X3"], ["T"], name="un3", axes=[0]),
             helper.make_node("Squeeze", ["T"], ["Y3"], name="sq3")]
    save(outdir, "consec_su11.onnx", nodes, [vi("X", F, [2, 1, 3, 1]), vi("X2", F, [2, 3]), vi("X3", F, [2, 1, 3])],
         [vi("Y", F, [2, 1, 3, 1]), vi("Y2", F, [2, 3]), vi("Y3", F, [2, 3])], [], 11)


REDUCTIONS = ["ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
              "ReduceProd", "ReduceSum", "ReduceSumSquare"]


def axes_as_input(op, opset):
    if op in ("Squeeze", "Unsqueeze", "ReduceSum"):
        return opset >= 13
    return opset >= 18


def reduce_unsqueeze(outdir):
    for opset in (11, 13, 18, 21):
        nodes = [helper.make_node("Abs", ["X"], ["P"], name="abs")]
        inits = []
        outs = []
        k = 0

        def reduce(op, axes, keepdims, uaxes, extra_out=False, **attrs):
            nonlocal k
            k += 1
            r, u = "r%d" % k, "u%d" % k
            ins = ["P"]
            if axes is not None:
                if axes_as_input(op, opset):
                    inits.append(ints("ra%d" % k, axes, typed=k % 2 == 0))
                    ins.append("ra%d" % k)
                else:
                    attrs["axes"] = axes
            nodes.append(helper.make_node(op, ins, [r], name="red%d" % k, keepdims=keepdims, **attrs))
            if axes_as_input("Unsqueeze", opset):
                inits.append(ints("ua%d" % k, uaxes))
                nodes.append(helper.make_node("Unsqueeze", [r, "ua%d" % k], [u], name="uns%d" % k))
            else:
                nodes.append(helper.make_node("Unsqueeze", [r], [u], name="uns%d" % k, axes=uaxes))
            outs.append(vi(u, F, None))
            if extra_out:
                nodes.append(helper.make_node("Neg", [r], ["neg%d" % k], name="neg%d" % k))
                outs.append(vi("neg%d" % k, F, None))

        for op in REDUCTIONS:
            for a1 in ([1], [1, 2], [2]):
                for a2 in ([0], [0, 1], [1]):
                    for keep in (0, 1):
                        reduce(op, a1, keep, a2)
        reduce("ReduceMean", None, 0, [0, 1, 2])      # every axis
        reduce("ReduceMax", [-1], 0, [2])             # negative axis, rank known
        reduce("ReduceSum", [0], 0, [0], extra_out=True)  # read twice
        if opset >= 18:
            reduce("ReduceSum", None, 0, [0], noop_with_empty_axes=1)
        save(outdir, "consec_ru%d.onnx" % opset, nodes, [vi("X", F, [5, 7, 9])], outs, inits, opset)


def concats(outdir):
    nodes = [helper.make_node("Concat", ["A", "B", "C"], ["X"], name="c1", axis=0),
             helper.make_node("Concat", ["D", "E", "F"], ["Y"], name="c2", axis=0),
             helper.make_node("Concat", ["X", "G", "Y"], ["Z"], name="c3", axis=0)]
    shapes = {"A": [2, 3, 4], "B": [4, 3, 4], "C": [2, 3, 4], "D": [4, 3, 4], "E": [2, 3, 4], "F": [4, 3, 4],
              "G": [4, 3, 4]}
    save(outdir, "consec_cc11.onnx", nodes, [vi(n, F, d) for n, d in shapes.items()], [vi("Z", F, [22, 3, 4])], [],
         11)

    nodes = [helper.make_node("Concat", ["A", "B", "C"], ["X"], name="d1", axis=0),
             helper.make_node("Concat", ["D", "E", "F"], ["Y"], name="d2", axis=1),
             helper.make_node("Concat", ["X", "Y"], ["Z"], name="d3", axis=2),
             helper.make_node("Concat", ["A", "C"], ["P"], name="n1", axis=0),
             helper.make_node("Concat", ["P", "A"], ["Q"], name="n2", axis=-3),
             helper.make_node("Concat", ["A", "C"], ["R"], name="t1", axis=0),
             helper.make_node("Concat", ["R", "R"], ["S"], name="t2", axis=0),
             helper.make_node("Neg", ["R"], ["T"], name="t3")]
    shapes = {"A": [2, 9, 4], "B": [4, 9, 4], "C": [2, 9, 4], "D": [8, 3, 4], "E": [8, 3, 4], "F": [8, 3, 4]}
    save(outdir, "consec_cc13.onnx", nodes, [vi(n, F, d) for n, d in shapes.items()],
         [vi("Z", F, [8, 9, 8]), vi("Q", F, [6, 9, 4]), vi("S", F, [8, 9, 4]), vi("T", F, [4, 9, 4])], [], 13)

    nodes = [helper.make_node("Concat", ["A", "B"], ["X"], name="e1", axis=1),
             helper.make_node("Concat", ["X", "A"], ["Y"], name="e2", axis=1),
             helper.make_node("Concat", ["B", "Y", "X2"], ["Z"], name="e3", axis=-1),
             helper.make_node("Concat", ["A", "A"], ["X2"], name="e4", axis=1)]
    save(outdir, "consec_cc21.onnx", nodes, [vi("A", F, [2, 3]), vi("B", F, [2, 1])], [vi("Z", F, [2, 14])], [],
         21)


def log_softmax(outdir):
    nodes, outs = [], []
    for axis in range(3):
        nodes += [helper.make_node("Softmax", ["X"], ["Y%d" % axis], name="sm%d" % axis, axis=axis),
                  helper.make_node("Log", ["Y%d" % axis], ["Z%d" % axis], name="log%d" % axis)]
        outs.append(vi("Z%d" % axis, F, [5, 7, 11]))
    nodes += [helper.make_node("Softmax", ["X"], ["Ys"], name="sm_side", axis=2),
              helper.make_node("Log", ["Ys"], ["Zs"], name="log_side"),
              helper.make_node("Softmax", ["X"], ["Ym"], name="sm_multi", axis=2),
              helper.make_node("Log", ["Ym"], ["Zm"], name="log_multi"),
              helper.make_node("Exp", ["Zm"], ["Zm1"], name="exp_multi")]
    outs += [vi("Zs", F, [5, 7, 11]), vi("Ys", F, [5, 7, 11]), vi("Zm", F, [5, 7, 11]), vi("Zm1", F, [5, 7, 11])]
    nodes += [helper.make_node("Softmax", ["XD"], ["Yd"], name="sm_double", axis=1),
              helper.make_node("Log", ["Yd"], ["Zd"], name="log_double")]
    outs.append(vi("Zd", TensorProto.DOUBLE, [3, 4]))
    save(outdir, "consec_ls13.onnx", nodes, [vi("X", F, [5, 7, 11]), vi("XD", TensorProto.DOUBLE, [3, 4])], outs, [],
         13)
    nodes = [helper.make_node("Softmax", ["XH"], ["Y"], name="sm_half", axis=1),
             helper.make_node("Log", ["Y"], ["Z"], name="log_half")]
    save(outdir, "consec_ls_f16.onnx", nodes, [vi("XH", TensorProto.FLOAT16, [3, 4])],
         [vi("Z", TensorProto.FLOAT16, [3, 4])], [], 13)
    nodes = [helper.make_node("Softmax", ["X"], ["Y"], name="sm_dflt"),
             helper.make_node("Log", ["Y"], ["Z"], name="log_dflt"),
             helper.make_node("Softmax", ["X"], ["Y2"], name="sm2", axis=2),
             helper.make_node("Log", ["Y2"], ["Z2"], name="log2")]
    save(outdir, "consec_ls11.onnx", nodes, [vi("X", F, [5, 7, 11])], [vi("Z", F, [5, 7, 11]), vi("Z2", F, [5, 7, 11])],
         [], 11)


def slices(outdir):
    for opset in (13, 21):
        nodes = [helper.make_node("Slice", ["X", "s1", "e1", "ax0"], ["Y"], name="a1"),
                 helper.make_node("Slice", ["Y", "s2", "e2", "ax2", "st2"], ["Z"], name="a2"),
                 helper.make_node("Slice", ["X", "s1", "e1", "ax1"], ["Y2"], name="b1"),
                 helper.make_node("Slice", ["Y2", "s1", "e1", "ax1"], ["Z2"], name="b2")]
        inits = [ints("s1", [1]), ints("e1", [3]), ints("ax0", [0]), ints("ax1", [1]),
                 ints("s2", [-5], typed=True), ints("e2", [100]), ints("ax2", [2]), ints("st2", [2])]
        outs = [vi("Z", F, [2, 6, 3]), vi("Z2", F, [4, 1, 8])]
        if opset == 13:
            nodes += [helper.make_node("Slice", ["X", "i1", "i2", "axm"], ["Y3"], name="c1"),
                      helper.make_node("Slice", ["Y3", "i1", "i2", "ax032"], ["Z3"], name="c2"),
                      helper.make_node("Slice", ["X", "s01", "e01"], ["Y4"], name="d1"),
                      helper.make_node("Slice", ["Y4", "s2", "e2", "ax2", "stm"], ["Z4"], name="d2")]
            inits += [ints("i1", [1], typed=True, dtype=np.int32), ints("i2", [-1], typed=True, dtype=np.int32),
                      ints("axm", [-1], typed=True, dtype=np.int32), ints("ax032", [0], typed=True, dtype=np.int32),
                      ints("s01", [1, 0]), ints("e01", [3, 6]), ints("stm", [-1])]
            # one axis twice: step 2 then [-3:-1] (composed: 3,5); a negative step; a dim not known
            nodes += [helper.make_node("Slice", ["X", "s1", "big", "ax2", "two"], ["Y5"], name="f1"),
                      helper.make_node("Slice", ["Y5", "m3", "m1", "axm64"], ["Z5"], name="f2"),
                      helper.make_node("Slice", ["X", "s5", "e0", "ax1", "stm"], ["Y6"], name="g1"),
                      helper.make_node("Slice", ["Y6", "e0", "two", "ax1"], ["Z6"], name="g2"),
                      helper.make_node("Slice", ["XN", "e0", "two", "ax0"], ["Y7"], name="h1"),
                      helper.make_node("Slice", ["Y7", "e0", "s1", "ax0"], ["Z7"], name="h2")]
            inits += [ints("big", [np.iinfo(np.int64).max]), ints("two", [2]), ints("m3", [-3]), ints("m1", [-1]),
                      ints("s5", [5]), ints("e0", [0]), ints("axm64", [-1])]
            outs += [vi("Z3", F, [2, 6, 6]), vi("Z4", F, None), vi("Z5", F, [4, 6, 2]), vi("Z6", F, [4, 2, 8]),
                     vi("Z7", F, None)]
        ins = [vi("X", F, [4, 6, 8])] + ([vi("XN", F, ["N", 6, 8])] if opset == 13 else [])
        save(outdir, "consec_sl%d.onnx" % opset, nodes, ins, outs, inits, opset)
    nodes = [helper.make_node("Slice", ["X"], ["Y"], name="a1", starts=[1], ends=[3], axes=[0]),
             helper.make_node("Slice", ["Y"], ["Z"], name="a2", starts=[-5], ends=[100], axes=[-1]),
             helper.make_node("Slice", ["X"], ["Y2"], name="b1", starts=[1, 0], ends=[3, 4]),
             helper.make_node("Slice", ["Y2"], ["Z2"], name="b2", starts=[2], ends=[7], axes=[2]),
             helper.make_node("Slice", ["X"], ["Y3"], name="c1", starts=[1], ends=[6], axes=[1]),
             helper.make_node("Slice", ["Y3"], ["Z3"], name="c2", starts=[-2], ends=[100], axes=[1])]
    save(outdir, "consec_sl9.onnx", nodes, [vi("X", F, [4, 6, 8])],
         [vi("Z", F, [2, 6, 5]), vi("Z2", F, [2, 4, 5]), vi("Z3", F, [4, 2, 8])], [], 9)


def slice_grid(outdir):
    rng = np.random.default_rng(23)
    ends = [-10, -9, -3, -1, 0, 1, 2, 5, 7, 8, 9, 12, np.iinfo(np.int64).max, np.iinfo(np.int64).min]
    nodes, inits, outs = [], [], []
    for k in range(64):
        s1, e1, s2, e2 = (int(rng.choice(ends)) for _ in range(4))
        p1, p2 = (int(rng.integers(1, 4)) for _ in range(2))
        for name, val in (("s1", s1), ("e1", e1), ("p1", p1), ("s2", s2), ("e2", e2), ("p2", p2)):
            inits.append(ints("%s_%d" % (name, k), [val]))
        nodes += [helper.make_node("Slice", ["X", "s1_%d" % k, "e1_%d" % k, "ax", "p1_%d" % k], ["y%d" % k],
                                   name="p%d" % k),
                  helper.make_node("Slice", ["y%d" % k, "s2_%d" % k, "e2_%d" % k, "axn", "p2_%d" % k], ["z%d" % k],
                                   name="q%d" % k)]
        outs.append(vi("z%d" % k, F, None))
    inits += [ints("ax", [2]), ints("axn", [-1])]
    save(outdir, "consec_sl_grid.onnx", nodes, [vi("X", F, [4, 6, 8])], outs, inits, 13)


def axes_grid(outdir):
    """Squeeze and Unsqueeze pairs with drawn axes, each written as itself or
    as its negative form (the rank is known): every pair joins."""
    rng = np.random.default_rng(29)
    xs = [1, 2, 1, 1, 3, 1, 1, 4]
    for opset in (11, 13):
        nodes, inits, outs = [], [], []

        def axes_of(node_in, out, op, axes, k, tag):
            if opset >= 13:
                inits.append(ints("%s%d" % (tag, k), axes, typed=k % 2 == 1))
                return helper.make_node(op, [node_in, "%s%d" % (tag, k)], [out], name="%s%d" % (tag, k))
            return helper.make_node(op, [node_in], [out], name="%s%d" % (tag, k), axes=axes)

        def signed(axes, rank):
            return [int(a) - rank if rng.integers(2) else int(a) for a in axes]

        for k in range(32):
            ones = [i for i, d in enumerate(xs) if d == 1]
            a1 = sorted(rng.choice(ones, size=int(rng.integers(1, len(ones))), replace=False).tolist())
            mid = [d for i, d in enumerate(xs) if i not in a1]
            ones2 = [i for i, d in enumerate(mid) if d == 1]
            a2 = sorted(rng.choice(ones2, size=int(rng.integers(1, len(ones2) + 1)), replace=False).tolist())
            nodes += [axes_of("X", "sy%d" % k, "Squeeze", signed(a1, len(xs)), k, "sa"),
                      axes_of("sy%d" % k, "sz%d" % k, "Squeeze", signed(a2, len(mid)), k, "sb")]
            outs.append(vi("sz%d" % k, F, None))
        for k in range(32):
            r1 = 2 + int(rng.integers(1, 4))
            a1 = sorted(rng.choice(r1, size=r1 - 2, replace=False).tolist())
            r2 = r1 + int(rng.integers(1, 4))
            a2 = sorted(rng.choice(r2, size=r2 - r1, replace=False).tolist())
            nodes += [axes_of("W", "uy%d" % k, "Unsqueeze", signed(a1, r1), k, "ua"),
                      axes_of("uy%d" % k, "uz%d" % k, "Unsqueeze", signed(a2, r2), k, "ub")]
            outs.append(vi("uz%d" % k, F, None))
        save(outdir, "consec_axes%d.onnx" % opset, nodes, [vi("X", F, xs), vi("W", F, [2, 3])], outs, inits, opset)


def transpose_into_gemm(outdir):
    main = [helper.make_node("Transpose", ["X"], ["A"], name="ta", perm=[1, 0]),
            helper.make_node("Transpose", ["Y"], ["B"], name="tb", perm=[1, 0]),
            helper.make_node("Gemm", ["A", "B", "C"], ["Z"], name="gemm")]
    ins = [vi("X", F, [2, 3]), vi("Y", F, [5, 2]), vi("C", F, [3, 5])]
    nodes = main + fake_loop([helper.make_node("Transpose", ["_X"], ["_A"], name="lta", perm=[1, 0]),
                              helper.make_node("Transpose", ["Y"], ["_B"], name="ltb", perm=[1, 0]),
                              helper.make_node("Gemm", ["_A", "_B", "C"], ["_Z2"], name="lgemm")],
                             [(F, [2, 3], "X")], [(F, [3, 5], "Z2")])
    save(outdir, "consec_tg13.onnx", nodes, ins, [vi("Z", F, [3, 5]), vi("Z2", F, [3, 5])], [], 13)
    save(outdir, "consec_tg21.onnx", main, ins, [vi("Z", F, [3, 5])], [], 21)
    nodes = [helper.make_node("Transpose", ["X"], ["A"], name="ta"),
             helper.make_node("Gemm", ["A", "W"], ["Z"], name="g1", transA=1, alpha=0.5),
             helper.make_node("Transpose", ["V"], ["T"], name="tv", perm=[1, 0]),
             helper.make_node("Gemm", ["X", "T"], ["Z2"], name="g2", transA=1),
             helper.make_node("Relu", ["T"], ["R"], name="relu"),
             helper.make_node("Transpose", ["S"], ["TS"], name="ts", perm=[1, 0]),
             helper.make_node("Gemm", ["TS", "TS", "S"], ["Z3"], name="g3", beta=2.0)]
    save(outdir, "consec_tg11.onnx", nodes,
         [vi("X", F, [2, 3]), vi("W", F, [3, 4]), vi("V", F, [4, 2]), vi("S", F, [3, 3])],
         [vi("Z", F, [2, 4]), vi("Z2", F, [3, 4]), vi("R", F, [2, 4]), vi("Z3", F, [3, 3])], [], 11)


def norank(outdir):
    nodes = [helper.make_node("Squeeze", ["X", "m1"], ["a1"], name="sq1"),
             helper.make_node("Squeeze", ["a1", "m1"], ["A"], name="sq2"),
             helper.make_node("Unsqueeze", ["X", "m1"], ["b1"], name="un1"),
             helper.make_node("Unsqueeze", ["b1", "m1"], ["B"], name="un2"),
             helper.make_node("Squeeze", ["X", "m1"], ["c1"], name="su1"),
             helper.make_node("Unsqueeze", ["c1", "m1"], ["C"], name="su2"),
             helper.make_node("ReduceSum", ["X", "m1"], ["d1"], name="rs", keepdims=0),
             helper.make_node("Unsqueeze", ["d1", "m1"], ["D"], name="ru"),
             helper.make_node("Slice", ["X", "z", "o", "m1"], ["e1"], name="sl1"),
             helper.make_node("Slice", ["e1", "z", "o", "z"], ["E"], name="sl2"),
             helper.make_node("Concat", ["X", "X"], ["f1"], name="cc1", axis=3),
             helper.make_node("Concat", ["f1", "X"], ["F"], name="cc2", axis=-1),
             helper.make_node("Concat", ["X", "X"], ["g1"], name="cd1", axis=-1),
             helper.make_node("Concat", ["g1", "X"], ["G"], name="cd2", axis=-1)]
    save(outdir, "consec_norank.onnx", nodes, [helper.make_tensor_value_info("X", F, None)],
         [vi(n, F, None) for n in "ABCDEFG"], [ints("m1", [-1]), ints("z", [0]), ints("o", [1])], 13, check=False)
    np.save(os.path.join(outdir, "consec_norank.X.npy"),
            np.arange(3, dtype=np.float32).reshape(3, 1, 1, 1) + np.float32(0.25))


NESTED_OUTS = [("u", [1, 2, 1, 1, 3]), ("c", [6, 3]), ("s", [2, 3]), ("l", [1, 1]), ("r", [2, 1]), ("q", [2, 1, 3, 1]),
               ("g", [3, 4])]


def nested(outdir):
    def branch(tag):
        n = lambda *a, **k: helper.make_node(*a, name=tag + k.pop("nm"), **k)
        nodes = [n("Unsqueeze", ["X2", "a1"], [tag + "u1"], nm="u1"),
                 n("Unsqueeze", [tag + "u1", "a03"], [tag + "u"], nm="u2"),
                 n("Concat", ["X2", "X2"], [tag + "c1"], nm="c1", axis=0),
                 n("Concat", [tag + "c1", "X2"], [tag + "c"], nm="c2", axis=0),
                 n("Softmax", ["X2"], [tag + "s1"], nm="sm", axis=1),
                 n("Log", [tag + "s1"], [tag + "s"], nm="log"),
                 n("Slice", ["X2", "one", "two", "zero"], [tag + "l1"], nm="sl1"),
                 n("Slice", [tag + "l1", "one", "two", "one"], [tag + "l"], nm="sl2"),
                 n("ReduceSum", ["X2", "one"], [tag + "r1"], nm="rs", keepdims=0),
                 n("Unsqueeze", [tag + "r1", "one"], [tag + "r"], nm="ru"),
                 n("Squeeze", ["X4", "a13"], [tag + "q1"], nm="sq"),
                 n("Unsqueeze", [tag + "q1", "a13"], [tag + "q2"], nm="un"),
                 n("Relu", [tag + "q2"], [tag + "q"], nm="relu"),
                 n("Transpose", ["X2"], [tag + "t1"], nm="tr", perm=[1, 0]),
                 n("Gemm", [tag + "t1", "W"], [tag + "g"], nm="gemm")]
        outs = [vi(tag + s, F, d) for s, d in NESTED_OUTS]
        return helper.make_graph(nodes, tag + "branch", [], outs)

    outs = [s for s, _ in NESTED_OUTS]
    nodes = [helper.make_node("If", ["cond"], outs, name="if", then_branch=branch("t_"), else_branch=branch("e_"))]
    save(outdir, "consec_nested.onnx", nodes,
         [vi("cond", TensorProto.BOOL, []), vi("X2", F, [2, 3]), vi("X4", F, [2, 1, 3, 1]), vi("W", F, [2, 4])],
         [vi(o, F, d) for o, d in NESTED_OUTS],
         [ints("a1", [1]), ints("a03", [0, 3], typed=True), ints("one", [1]), ints("two", [2]), ints("zero", [0]),
          ints("a13", [1, 3])], 13)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_consec_models.py OUTDIR\n")
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    squeezes(outdir)
    unsqueezes(outdir)
    squeeze_unsqueeze(outdir)
    reduce_unsqueeze(outdir)
    concats(outdir)
    log_softmax(outdir)
    slices(outdir)
    slice_grid(outdir)
    axes_grid(outdir)
    transpose_into_gemm(outdir)
    norank(outdir)
    nested(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
