#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the misc_opt suite (tests/test_misc_opt.c): graph
outputs whose value is a constant, and onnxoptimizer's cases where our
existing passes differ from its tests.

Usage:
    /usr/bin/python3 gen_misc_opt_models.py OUTDIR

Needs python3-onnx and python3-numpy. Models are ir_version 8 unless named
otherwise; each of opset 17 or older passes onnx.checker.check_model
(python3-onnx knows no newer opsets; ONNX Runtime runs those). The output
is deterministic. Node names say what the test expects of each node.

  misc_out_const     opset 13. Shape(X) is the output Y (declared int64
                     [3]); Gather(Shape(X), 1) the output G (declared
                     with the named dim g); the initializer W (float_data) passed
                     through id_p to the output P and read by add_w too;
                     the initializer K (raw_data) passed through cast_k, a
                     Cast to its own type, to the output C. All become the
                     initializers Y, G, P (add_w reads P), C: no node makes
                     an output
  misc_out_twice     opset 21. The initializer W passed through id_p to P
                     and through id_r to R: one Identity goes (W becomes
                     that output), the other stays (both names must stay)
  misc_out_default   opset 13. The initializer W is also a graph input (an
                     overridable default) passed through id_p to P: stays
  misc_out_ir3       IR 3, opset 8. W is an initializer (listed among the
                     inputs, as IR 3 requires) passed through id_p to P:
                     stays (the restored input list would list the output)
  misc_out_nested    opset 13. An If on the input B whose then_branch
                     passes its own initializer K through body_id to its
                     output (stays: a body output no node makes is not
                     written), the else_branch a Neg of X
  misc_tr_default    opset 13. onnxoptimizer's default-perm Transposes:
                     Identity(A) -> Transpose -> Transpose -> Identity (the
                     pair undoes itself: both go); Add -> Transpose ->
                     Transpose to the output C (both go, Add makes C);
                     Transpose -> Transpose from the input I to the output
                     O (one stays, perm identity: both names must stay);
                     a default perm then [0,1,2] (they compose into one)
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def typed(name, array):
    """A float tensor in float_data, not raw_data."""
    a = np.asarray(array, np.float32)
    return helper.make_tensor(name, FLOAT, a.shape, a.flatten().tolist())


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name, **attrs)


def make_model(graph, opset=13, ir=8):
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_misc_opt_models",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = ir
    return model


def save(model, outdir, name):
    path = os.path.join(outdir, name + ".onnx")
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    if model.opset_import[0].version <= 17:   # python3-onnx's checker knows opsets up to 17
        onnx.checker.check_model(path)
    return path


def rnd(seed, shape, dtype=np.float32):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


# ------------------------------------------------------------------ outputs that are constants
def misc_out_const(outdir):
    nodes = [
        node("Shape", ["X"], ["Y"], "shape_y"),
        node("Shape", ["X"], ["s"], "shape_s"),
        node("Gather", ["s", "one"], ["G"], "gather_g", axis=0),
        node("Identity", ["W"], ["P"], "id_p"),
        node("Add", ["X2", "W"], ["A"], "add_w"),
        node("Cast", ["K"], ["C"], "cast_k", to=FLOAT),
    ]
    graph = helper.make_graph(
        nodes, "misc_out_const", [vi("X", FLOAT, [2, 3, 4]), vi("X2", FLOAT, [2, 3])],
        [vi("Y", INT64, [3]), vi("G", INT64, ["g"]), vi("P", FLOAT, [2, 3]), vi("A", FLOAT, [2, 3]),
         vi("C", FLOAT, [4])],
        initializer=[init("one", np.array(1, np.int64)), typed("W", rnd(1, (2, 3))), init("K", rnd(2, (4,)))])
    save(make_model(graph), outdir, "misc_out_const")


def misc_out_twice(outdir):
    graph = helper.make_graph(
        [node("Identity", ["W"], ["P"], "id_p"), node("Identity", ["W"], ["R"], "id_r"),
         node("Relu", ["X"], ["Z"], "relu")],
        "misc_out_twice", [vi("X", FLOAT, [2, 3])],
        [vi("P", FLOAT, [2, 3]), vi("R", FLOAT, [2, 3]), vi("Z", FLOAT, [2, 3])],
        initializer=[init("W", rnd(3, (2, 3)))])
    save(make_model(graph, opset=21, ir=10), outdir, "misc_out_twice")


def misc_out_default(outdir):
    graph = helper.make_graph(
        [node("Identity", ["W"], ["P"], "id_p"), node("Relu", ["X"], ["Z"], "relu")],
        "misc_out_default", [vi("X", FLOAT, [2, 3]), vi("W", FLOAT, [2, 3])],
        [vi("P", FLOAT, [2, 3]), vi("Z", FLOAT, [2, 3])],
        initializer=[init("W", rnd(4, (2, 3)))])
    save(make_model(graph), outdir, "misc_out_default")


def misc_out_ir3(outdir):
    graph = helper.make_graph(
        [node("Identity", ["W"], ["P"], "id_p"), node("Relu", ["X"], ["Z"], "relu")],
        "misc_out_ir3", [vi("X", FLOAT, [2, 3]), vi("W", FLOAT, [2, 3])],
        [vi("P", FLOAT, [2, 3]), vi("Z", FLOAT, [2, 3])],
        initializer=[init("W", rnd(5, (2, 3)))])
    save(make_model(graph, opset=8, ir=3), outdir, "misc_out_ir3")


def misc_out_nested(outdir):
    then_g = helper.make_graph([node("Identity", ["K"], ["t"], "body_id")], "then", [], [vi("t", FLOAT, [2, 3])],
                               initializer=[init("K", rnd(6, (2, 3)))])
    else_g = helper.make_graph([node("Neg", ["X"], ["e"], "body_neg")], "else", [], [vi("e", FLOAT, [2, 3])])
    graph = helper.make_graph(
        [node("If", ["B"], ["Y"], "if_b", then_branch=then_g, else_branch=else_g)],
        "misc_out_nested", [vi("B", TensorProto.BOOL, []), vi("X", FLOAT, [2, 3])], [vi("Y", FLOAT, [2, 3])])
    save(make_model(graph), outdir, "misc_out_nested")


def misc_tr_default(outdir):
    nodes = [
        node("Identity", ["A"], ["X"], "id_a"),
        node("Transpose", ["X"], ["Y"], "tr_1"),
        node("Transpose", ["Y"], ["Z"], "tr_2"),
        node("Identity", ["Z"], ["B"], "id_b"),
        node("Add", ["A", "A"], ["S"], "add_s"),
        node("Transpose", ["S"], ["T"], "tr_3"),
        node("Transpose", ["T"], ["C"], "tr_4"),
        node("Transpose", ["I"], ["J"], "tr_5"),
        node("Transpose", ["J"], ["O"], "tr_6"),
        node("Transpose", ["A"], ["U"], "tr_7"),
        node("Transpose", ["U"], ["D"], "tr_8", perm=[0, 1, 2]),
    ]
    graph = helper.make_graph(
        nodes, "misc_tr_default", [vi("A", FLOAT, [2, 3, 4]), vi("I", FLOAT, [2, 3])],
        [vi("B", FLOAT, [2, 3, 4]), vi("C", FLOAT, [2, 3, 4]), vi("O", FLOAT, [2, 3]), vi("D", FLOAT, [4, 3, 2])])
    save(make_model(graph), outdir, "misc_tr_default")


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    misc_out_const(outdir)
    misc_out_twice(outdir)
    misc_out_default(outdir)
    misc_out_ir3(outdir)
    misc_out_nested(outdir)
    misc_tr_default(outdir)


if __name__ == "__main__":
    main()
