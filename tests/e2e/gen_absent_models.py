#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of fields left out (tests/test_optimize.c, "absent").

Usage:
    /usr/bin/python3 gen_absent_models.py OUTDIR

Needs python3-onnx and python3-numpy. ir_version 8, default-domain opset 13.
Every field ONNX lets a writer leave out is left out somewhere, and the
fields it does not (op_type, an attribute's name) are left out or empty
in models the optimizer must leave as they are. The output is deterministic.

Files written to OUTDIR:

  absent_runs.onnx    runs. No node has a name or a domain field; optional
                      inputs and outputs are "" (Clip without min, Dropout
                      without ratio and mask, Pad without the
                      constant value); a foldable chain (Shape, Gather,
                      Unsqueeze, Concat, Reshape of constants), an If on a
                      Constant true whose branch nodes have no names either,
                      and Identity and Transpose pairs to remove.
  absent_attr_type.onnx
                      not valid (ir_version 8 wants an attribute's type):
                      the attributes of a Constant, a Cast and a Transpose
                      have no type field; the three fold into one constant
                      added to X.
  absent_attr_type_ref.onnx
                      runs: the same model with the types, to compare with.
  absent_op.onnx      not valid: the node writing 'u' has no op_type.
  absent_op_empty.onnx
                      not valid: node 'bad' has op_type "".
  absent_op_branch.onnx
                      not valid: a node without op_type in the then_branch
                      of an If on the input C.
  absent_op_loop.onnx not valid: a nameless node without op_type and without
                      outputs in a Loop body.
  absent_op_function.onnx
                      not valid: a node without op_type in a model-local
                      function's body.
  absent_attr_name.onnx
                      not valid: node 'tr' (Transpose) has an attribute
                      without a name (perm [1, 0] otherwise).

  absent_vi_name.onnx not valid: a graph output and a value_info without a
                      name beside a foldable Add (--write-shapes crashed on
                      them).

Each of the models left as they are also holds a foldable Add of two
constants and an Identity, so that a pass that went ahead would show.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import OPSET, init, main, make_model, save, vi  # noqa: E402
from gen_optimize_models import write_unchecked  # noqa: E402

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def bare(op, inputs, outputs, **attrs):
    """A node with neither a name nor a domain field."""
    n = helper.make_node(op, inputs, outputs, **attrs)
    n.ClearField("name")
    n.ClearField("domain")
    return n


def constant(output, array):
    return bare("Constant", [], [output], value=init(output + "_v", array))


def gen_runs(outdir):
    then_g = helper.make_graph(
        [bare("Neg", ["X"], ["t0"]), bare("Identity", ["t0"], ["then_out"])],
        "then_branch", [], [vi("then_out", FLOAT, [2, 3])])
    else_g = helper.make_graph([bare("Abs", ["X"], ["else_out"])], "else_branch", [],
                               [vi("else_out", FLOAT, [2, 3])])
    nodes = [
        # the shape [3, 2] from X's dims: Shape, Gather, Unsqueeze, Concat fold
        bare("Shape", ["X"], ["xs"]),
        bare("Gather", ["xs", "one"], ["d1"]),
        bare("Gather", ["xs", "zero"], ["d0"]),
        bare("Unsqueeze", ["d1", "ax0"], ["d1u"]),
        bare("Unsqueeze", ["d0", "ax0"], ["d0u"]),
        bare("Concat", ["d1u", "d0u"], ["shape"], axis=0),
        bare("Transpose", ["X"], ["xt"], perm=[1, 0]),
        bare("Reshape", ["xt", "shape"], ["xr"]),
        bare("Transpose", ["xr"], ["xrt"], perm=[1, 0]),
        bare("Transpose", ["xrt"], ["xrtt"], perm=[1, 0]),
        bare("Transpose", ["xrtt"], ["back"], perm=[1, 0]),
        constant("k", np.array(True)),
        bare("If", ["k"], ["branch"], then_branch=then_g, else_branch=else_g),
        bare("Clip", ["back", "", "cmax"], ["clipped"]),
        bare("Dropout", ["clipped"], ["dropped", ""]),
        bare("Pad", ["dropped", "pads", ""], ["padded"]),
        bare("Add", ["a", "b"], ["ab"]),
        bare("Identity", ["ab"], ["ab_id"]),
        bare("Add", ["padded", "ab_id"], ["s"]),
        bare("Add", ["s", "branch"], ["Y"]),
    ]
    graph = helper.make_graph(
        nodes, "absent_runs", [vi("X", FLOAT, [2, 3])], [vi("Y", FLOAT, [2, 3])],
        initializer=[init("one", np.array(1, dtype=np.int64)), init("zero", np.array(0, dtype=np.int64)),
                     init("ax0", np.array([0], dtype=np.int64)), init("cmax", np.array(0.5, dtype=np.float32)),
                     init("pads", np.zeros(4, dtype=np.int64)),
                     init("a", np.array([1.5, -2.0, 3.25], dtype=np.float32)),
                     init("b", np.array([0.25, 4.0, -1.0], dtype=np.float32))])
    return save(make_model(graph), outdir, "absent_runs.onnx")


def attr_type_model(typed):
    nodes = [
        constant("c", np.arange(6, dtype=np.int64).reshape(2, 3) - 2),
        bare("Cast", ["c"], ["cf"], to=FLOAT),
        bare("Transpose", ["cf"], ["ct"], perm=[1, 0]),
        bare("Add", ["X", "ct"], ["Y"]),
    ]
    if not typed:
        for n in nodes:
            for a in n.attribute:
                a.ClearField("type")
    graph = helper.make_graph(nodes, "absent_attr_type", [vi("X", FLOAT, [3, 2])], [vi("Y", FLOAT, [3, 2])])
    return make_model(graph)


def gen_attr_type(outdir):
    return write_unchecked(attr_type_model(False), outdir, "absent_attr_type.onnx")


def gen_attr_type_ref(outdir):
    return save(attr_type_model(True), outdir, "absent_attr_type_ref.onnx")


def left_alone(name, bad, nested=None, functions=None):
    """Main graph: Y = bad_out + (a + b) through an Identity, around @bad."""
    nodes = [bare("Add", ["a", "b"], ["ab"]), bare("Identity", ["ab"], ["ab_id"])]
    nodes += bad
    nodes.append(helper.make_node("Add", ["u", "ab_id"], ["Y"], name="add_y"))
    graph = helper.make_graph(
        nodes, name, [vi("X", FLOAT, [3]), vi("C", BOOL, [])], [vi("Y", FLOAT, [3])],
        initializer=[init("a", np.array([1.5, -2.0, 3.25], dtype=np.float32)),
                     init("b", np.array([0.25, 4.0, -1.0], dtype=np.float32))])
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("local", 1)] if functions else [])
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_absent_models", opset_imports=opsets,
                              functions=functions or [])
    model.ir_version = make_model(graph).ir_version
    return model


def gen_op(outdir):
    n = bare("Relu", ["X"], ["u"])
    n.ClearField("op_type")
    return write_unchecked(left_alone("absent_op", [n]), outdir, "absent_op.onnx")


def gen_op_empty(outdir):
    n = helper.make_node("Relu", ["X"], ["u"], name="bad")
    n.op_type = ""
    return write_unchecked(left_alone("absent_op_empty", [n]), outdir, "absent_op_empty.onnx")


def gen_op_branch(outdir):
    inner = bare("Neg", ["X"], ["then_out"])
    inner.ClearField("op_type")
    then_g = helper.make_graph([inner], "then_branch", [], [vi("then_out", FLOAT, [3])])
    else_g = helper.make_graph([bare("Abs", ["X"], ["else_out"])], "else_branch", [], [vi("else_out", FLOAT, [3])])
    model = left_alone("absent_op_branch", [helper.make_node("If", ["C"], ["u"], name="if_c", then_branch=then_g,
                                                             else_branch=else_g)])
    return write_unchecked(model, outdir, "absent_op_branch.onnx")


def gen_op_loop(outdir):
    inner = bare("Neg", ["v"], [])
    inner.ClearField("op_type")
    body = helper.make_graph(
        [inner, bare("Identity", ["cond"], ["cond_out"]), bare("Relu", ["v"], ["v_out"])], "body",
        [vi("i", INT64, []), vi("cond", BOOL, []), vi("v", FLOAT, [3])],
        [vi("cond_out", BOOL, []), vi("v_out", FLOAT, [3])])
    model = left_alone("absent_op_loop", [helper.make_node("Loop", ["n", "", "X"], ["u"], name="loop", body=body)])
    model.graph.initializer.append(init("n", np.array(2, dtype=np.int64)))
    return write_unchecked(model, outdir, "absent_op_loop.onnx")


def gen_op_function(outdir):
    inner = bare("Neg", ["x"], ["y"])
    inner.ClearField("op_type")
    fn = helper.make_function("local", "Odd", ["x"], ["y"], [inner], [helper.make_opsetid("", OPSET)])
    model = left_alone("absent_op_function", [helper.make_node("Odd", ["X"], ["u"], name="call", domain="local")],
                       functions=[fn])
    return write_unchecked(model, outdir, "absent_op_function.onnx")


def gen_attr_name(outdir):
    n = helper.make_node("Transpose", ["X"], ["u"], name="tr", perm=[0])
    n.attribute[0].ClearField("name")
    return write_unchecked(left_alone("absent_attr_name", [n]), outdir, "absent_attr_name.onnx")


def gen_vi_name(outdir):
    graph = helper.make_graph(
        [bare("Add", ["a", "b"], ["ab"]), bare("Add", ["X", "ab"], ["Y"])], "absent_vi_name",
        [vi("X", FLOAT, [3])], [vi("Y", FLOAT, [3]), vi("gone", FLOAT, [3])],
        initializer=[init("a", np.array([1.5, -2.0, 3.25], dtype=np.float32)),
                     init("b", np.array([0.25, 4.0, -1.0], dtype=np.float32))],
        value_info=[vi("ab", FLOAT, [3]), vi("gone2", FLOAT, [None])])
    graph.output[1].ClearField("name")
    graph.value_info[1].ClearField("name")
    return write_unchecked(make_model(graph), outdir, "absent_vi_name.onnx")


GENERATORS = [gen_runs, gen_attr_type, gen_attr_type_ref, gen_op, gen_op_empty, gen_op_branch, gen_op_loop,
              gen_op_function, gen_attr_name, gen_vi_name]

if __name__ == "__main__":
    sys.exit(main(sys.argv, GENERATORS, "gen_absent_models"))
