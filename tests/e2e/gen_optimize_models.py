#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the optimize suite (tests/test_optimize.c).

Usage:
    /usr/bin/python3 gen_optimize_models.py OUTDIR

Needs python3-onnx and python3-numpy. The models are ir_version 8,
default-domain opset 13; those named "runs" below pass
onnx.checker.check_model and run in ONNX Runtime, so that the optimizer's
output can be compared with them. The output is deterministic.

Files written to OUTDIR:

  opt_identity.onnx   runs. Identity chains and Identities as graph
                      outputs: X -> id_a -> id_b -> Relu -> id_y (output Y:
                      Relu takes the name); id_z (output Z) of the input X
                      stays; id_p (output P) of the initializer W goes (W
                      becomes the initializer P);
                      Neg -> id_q (output Q) and id_r (output R) of the same
                      value (the first goes, the second stays).
  opt_if_identity.onnx
                      runs. xi = Identity(X) in the main graph, read inside
                      both branches of an If on the input C (goes: the
                      branches read X). The then_branch's output is an
                      Identity of an Identity of xi (the first goes, the
                      second stays: a body output may not name an outer
                      value); the else_branch's output is an Identity of a
                      Neg made in the branch (goes).
  opt_loop_dead.onnx  runs. A Loop of 3 iterations whose body holds dead
                      nodes (Mul, Relu of it, Neg of the outer X) beside
                      the live Add; its cond passes through an Identity of a
                      body input (stays); a dead Sigmoid in the main graph,
                      an unused initializer U and an unused initializer D
                      that is also a graph input (stays).
  opt_if_const.onnx   runs. An If on a Constant true: its then_branch (which
                      defines an initializer W and a value s, names the main
                      graph also defines) replaces it; its output is the
                      graph output Y1. A second If, on an initializer CD
                      that is also a graph input (an overridable default),
                      stays.
  opt_nops.onnx       runs. No-op Cast (float to float; a Cast to double
                      stays), Dropout without training_mode, Dropout with
                      training_mode constant false, Dropout whose mask is read
                      (stays), Dropout with training_mode a graph input
                      (stays), Pad with constant zero pads, Pad with pads a
                      graph input (stays), Reshape to the same shape (as
                      [2,3,4] and as [0,0,-1]), a real Reshape, on X2 of shape
                      [N,3]: Reshape to [-1,3] (goes), [0,3] (goes), [2,3]
                      (stays: dim 0 unknown), Transpose with perm [0,1,2],
                      two Transposes composing to the identity, two composing
                      to [2,1,0], a Transpose without perm on a rank-1 value.
  opt_function.onnx   runs. A model-local function whose body holds an
                      Identity and a dead node; the call is left alone.
  opt_custom.onnx     a dead node of a custom domain (stays) beside a dead
                      Relu (goes).
  opt_values.onnx     constants in every encoding the rewriting tools read:
                      f_raw / f_typed float32 [1.5, -2.25, 3, 0.1] in
                      raw_data / float_data; h_raw float16 [1, -0.5, 65504];
                      bf_raw bfloat16 [1, -2]; d_typed double_data [0.1,
                      -1e300]; i64_typed int64_data [-5, 0, 2^40]; u8_raw uint8
                      [255, 7]; big float32 [300000] with element i = i / 2
                      (over one store chunk); Constant nodes cf (value_floats
                      [1, 2]), ci (value_ints [3, -4]), cs (value_float 2.5),
                      cv (value: int32 [7, -8]); dflt, an initializer that is
                      also a graph input.
  opt_capture.onnx    not a valid model (a branch defines X again, which
                      ONNX forbids): y = Identity(X) is read in that branch,
                      so reading X there instead would read the branch's X.
  opt_odd.onnx        not a valid model: nodes each pass must look at and
                      leave alone: Identity without input or with an empty
                      one, Transpose with a perm out of range, Transposes
                      whose perms differ in length, Reshape by a string
                      constant, Pad by float pads, Dropout whose
                      training_mode has two elements, an If on a constant
                      with no then_branch, an If whose branch has fewer
                      outputs, a Cast without `to`, a Cast to type 999.
  opt_cycle.onnx      not a valid model: two nodes read each other.
  opt_twice.onnx      not a valid model: two nodes make the value y.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import IR_VERSION, OPSET, const_node, init, main, make_model, node, rng_values, save, vi  # noqa: E402

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def write_unchecked(model, outdir, filename):
    """For models that are wrong on purpose: onnx.checker would refuse them."""
    path = os.path.join(outdir, filename)
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    return path


def gen_identity(outdir):
    nodes = [
        node("Identity", ["X"], ["a"], "id_a"),
        node("Identity", ["a"], ["b"], "id_b"),
        node("Relu", ["b"], ["c"], "relu_c"),
        node("Identity", ["c"], ["Y"], "id_y"),
        node("Identity", ["X"], ["Z"], "id_z"),
        node("Identity", ["W"], ["P"], "id_p"),
        node("Neg", ["X"], ["d"], "neg_d"),
        node("Identity", ["d"], ["Q"], "id_q"),
        node("Identity", ["d"], ["R"], "id_r"),
    ]
    graph = helper.make_graph(
        nodes, "opt_identity", [vi("X", FLOAT, [2, 3])],
        [vi("Y", FLOAT, [2, 3]), vi("Z", FLOAT, [2, 3]), vi("P", FLOAT, [2, 3]), vi("Q", FLOAT, [2, 3]),
         vi("R", FLOAT, [2, 3])],
        initializer=[init("W", rng_values(71, (2, 3)))],
        value_info=[vi("a", FLOAT, [2, 3]), vi("b", FLOAT, [2, 3]), vi("c", FLOAT, [2, 3])])
    return save(make_model(graph), outdir, "opt_identity.onnx")


def gen_if_identity(outdir):
    then_g = helper.make_graph(
        [node("Identity", ["xi"], ["then_t"], "then_id_t"),
         node("Identity", ["then_t"], ["then_out"], "then_id_out")],
        "then_branch", [], [vi("then_out", FLOAT, [4])])
    else_g = helper.make_graph(
        [node("Neg", ["xi"], ["else_e"], "else_neg"),
         node("Identity", ["else_e"], ["else_out"], "else_id_out")],
        "else_branch", [], [vi("else_out", FLOAT, [4])])
    graph = helper.make_graph(
        [node("Identity", ["X"], ["xi"], "id_main"),
         node("If", ["C"], ["Y"], "if_c", then_branch=then_g, else_branch=else_g)],
        "opt_if_identity", [vi("X", FLOAT, [4]), vi("C", BOOL, [])], [vi("Y", FLOAT, [4])])
    return save(make_model(graph), outdir, "opt_if_identity.onnx")


def gen_loop_dead(outdir):
    body = helper.make_graph(
        [node("Identity", ["cond_in"], ["cond_out"], "body_cond"),
         node("Add", ["v_in", "X"], ["v_out"], "body_add"),
         node("Mul", ["v_in", "v_in"], ["dead1"], "body_dead_mul"),
         node("Relu", ["dead1"], ["dead2"], "body_dead_relu"),
         node("Neg", ["X"], ["dead3"], "body_dead_neg")],
        "loop_body",
        [vi("i", INT64, []), vi("cond_in", BOOL, []), vi("v_in", FLOAT, [2])],
        [vi("cond_out", BOOL, []), vi("v_out", FLOAT, [2])])
    nodes = [
        node("Loop", ["M", "T", "V0"], ["V"], "loop", body=body),
        node("Sigmoid", ["X"], ["dead_main"], "main_dead_sigmoid"),
        node("Add", ["V", "D"], ["Y"], "add_d"),
    ]
    graph = helper.make_graph(
        nodes, "opt_loop_dead", [vi("X", FLOAT, [2]), vi("V0", FLOAT, [2]), vi("D", FLOAT, [2])],
        [vi("Y", FLOAT, [2])],
        initializer=[init("M", np.array(3, dtype=np.int64)), init("T", np.array(True)),
                     init("U", rng_values(72, (5,))), init("D", rng_values(73, (2,))),
                     init("DU", rng_values(74, (3,)))])
    # DU: an unused initializer that is also a graph input
    graph.input.extend([vi("DU", FLOAT, [3])])
    return save(make_model(graph), outdir, "opt_loop_dead.onnx")


def gen_if_const(outdir):
    w_main = rng_values(75, (2, 3))
    w_then = rng_values(76, (2, 3))
    then_g = helper.make_graph(
        [node("Add", ["X", "W"], ["s"], "then_add"),
         node("Relu", ["s"], ["then_out"], "then_relu")],
        "then_branch", [], [vi("then_out", FLOAT, [2, 3])],
        initializer=[init("W", w_then)])
    else_g = helper.make_graph(
        [node("Neg", ["X"], ["else_out"], "else_neg")],
        "else_branch", [], [vi("else_out", FLOAT, [2, 3])])
    then2 = helper.make_graph([node("Abs", ["X"], ["t2_out"], "t2_abs")], "then2", [],
                              [vi("t2_out", FLOAT, [2, 3])])
    else2 = helper.make_graph([node("Sigmoid", ["X"], ["e2_out"], "e2_sig")], "else2", [],
                              [vi("e2_out", FLOAT, [2, 3])])
    nodes = [
        const_node("K", np.array(True), name="const_k"),
        node("If", ["K"], ["Y1"], "if_const", then_branch=then_g, else_branch=else_g),
        node("Mul", ["X", "W"], ["s"], "main_mul"),
        node("If", ["CD"], ["t"], "if_default", then_branch=then2, else_branch=else2),
        node("Add", ["s", "t"], ["Y2"], "main_add"),
    ]
    graph = helper.make_graph(
        nodes, "opt_if_const", [vi("X", FLOAT, [2, 3]), vi("CD", BOOL, [])],
        [vi("Y1", FLOAT, [2, 3]), vi("Y2", FLOAT, [2, 3])],
        initializer=[init("W", w_main), init("CD", np.array(False))])
    return save(make_model(graph), outdir, "opt_if_const.onnx")


def gen_nops(outdir):
    i64 = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    nodes = [
        node("Cast", ["X"], ["c1"], "cast_same", to=FLOAT),
        node("Cast", ["c1"], ["c2"], "cast_double", to=TensorProto.DOUBLE),
        node("Cast", ["c2"], ["o_cast"], "cast_back", to=FLOAT),
        node("Dropout", ["X"], ["d1"], "dropout_plain"),
        node("Dropout", ["X", "", "TF"], ["d2"], "dropout_false"),
        node("Dropout", ["X"], ["d3", "mask"], "dropout_mask"),
        node("Cast", ["mask"], ["o_mask"], "cast_mask", to=FLOAT),
        node("Dropout", ["X", "", "TM"], ["d4"], "dropout_input"),
        node("Pad", ["X", "pads0"], ["p1"], "pad_zero"),
        node("Pad", ["X", "PADS"], ["o_pad"], "pad_input"),
        node("Reshape", ["X", "shape_same"], ["r1"], "reshape_same"),
        node("Reshape", ["X", "shape_00m"], ["r2"], "reshape_00m"),
        node("Reshape", ["X", "shape_64"], ["o_r3"], "reshape_real"),
        node("Reshape", ["X2", "shape_m3"], ["q1"], "reshape2_m3"),
        node("Reshape", ["X2", "shape_03"], ["q2"], "reshape2_03"),
        node("Reshape", ["X2", "shape_23"], ["o_q3"], "reshape2_23"),
        node("Transpose", ["X"], ["t1"], "transpose_id", perm=[0, 1, 2]),
        node("Transpose", ["X"], ["t2"], "transpose_a", perm=[1, 0, 2]),
        node("Transpose", ["t2"], ["t3"], "transpose_b", perm=[1, 0, 2]),
        node("Transpose", ["X"], ["t4"], "transpose_c", perm=[2, 0, 1]),
        node("Transpose", ["t4"], ["o_t5"], "transpose_d", perm=[0, 2, 1]),
        node("ReduceMean", ["X"], ["flat"], "reduce_flat", axes=[1, 2], keepdims=0),
        node("Transpose", ["flat"], ["t6"], "transpose_rank1"),
        node("Sum", ["c1", "d1", "d2", "d3", "d4", "p1", "r1", "r2", "t1", "t3"], ["o_sum"], "sum"),
        node("Add", ["q1", "q2"], ["o_q"], "add_q"),
        node("Neg", ["t6"], ["o_t6"], "neg_t6"),
    ]
    graph = helper.make_graph(
        nodes, "opt_nops",
        [vi("X", FLOAT, [2, 3, 4]), vi("X2", FLOAT, ["N", 3]), vi("TM", BOOL, []), vi("PADS", INT64, [6])],
        [vi("o_cast", FLOAT, [2, 3, 4]), vi("o_mask", FLOAT, [2, 3, 4]), vi("o_pad", FLOAT, ["p0", "p1", "p2"]),
         vi("o_r3", FLOAT, [6, 4]), vi("o_q3", FLOAT, [2, 3]), vi("o_t5", FLOAT, [4, 3, 2]),
         vi("o_sum", FLOAT, [2, 3, 4]), vi("o_q", FLOAT, ["N", 3]), vi("o_t6", FLOAT, [2])],
        initializer=[init("TF", np.array(False)), init("pads0", i64([0] * 6)),
                     init("shape_same", i64([2, 3, 4])), init("shape_00m", i64([0, 0, -1])),
                     init("shape_64", i64([6, 4])), init("shape_m3", i64([-1, 3])),
                     init("shape_03", i64([0, 3])), init("shape_23", i64([2, 3]))])
    return save(make_model(graph), outdir, "opt_nops.onnx")


def gen_function(outdir):
    fn = helper.make_function(
        "local", "Twice", ["x"], ["y"],
        [node("Identity", ["x"], ["fx"], "f_id"),
         node("Neg", ["x"], ["f_dead"], "f_dead_neg"),
         node("Add", ["fx", "fx"], ["y"], "f_add")],
        [helper.make_opsetid("", OPSET)])
    graph = helper.make_graph(
        [node("Twice", ["X"], ["Y"], "call", domain="local")], "opt_function",
        [vi("X", FLOAT, [4])], [vi("Y", FLOAT, [4])])
    model = helper.make_model(
        graph, producer_name="scs4onnx-c-gen_optimize_models", functions=[fn],
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("local", 1)])
    model.ir_version = IR_VERSION
    return save(model, outdir, "opt_function.onnx")


def gen_custom(outdir):
    graph = helper.make_graph(
        [node("Foo", ["X"], ["dead_custom"], "custom_foo", domain="com.example"),
         node("Relu", ["X"], ["dead_relu"], "dead_relu"),
         node("Neg", ["X"], ["Y"], "neg")],
        "opt_custom", [vi("X", FLOAT, [4])], [vi("Y", FLOAT, [4])])
    model = helper.make_model(
        graph, producer_name="scs4onnx-c-gen_optimize_models",
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.example", 1)])
    model.ir_version = IR_VERSION
    return write_unchecked(model, outdir, "opt_custom.onnx")


def gen_values(outdir):
    f = np.array([1.5, -2.25, 3.0, 0.1], dtype=np.float32)
    f_typed = helper.make_tensor("f_typed", FLOAT, [4], f.tolist())
    bf = helper.make_tensor("bf_raw", TensorProto.BFLOAT16, [2], b"\x80\x3f\x00\xc0", raw=True)
    d_typed = helper.make_tensor("d_typed", TensorProto.DOUBLE, [2], [0.1, -1e300])
    i64_typed = helper.make_tensor("i64_typed", INT64, [3], [-5, 0, 2 ** 40])
    inits = [init("f_raw", f), f_typed, init("h_raw", np.array([1.0, -0.5, 65504.0], dtype=np.float16)), bf,
             d_typed, i64_typed, init("u8_raw", np.array([255, 7], dtype=np.uint8)),
             init("big", np.arange(300000, dtype=np.float32) / np.float32(2)),
             init("dflt", np.array([4.0], dtype=np.float32))]
    nodes = [
        helper.make_node("Constant", [], ["cf"], name="const_cf", value_floats=[1.0, 2.0]),
        helper.make_node("Constant", [], ["ci"], name="const_ci", value_ints=[3, -4]),
        helper.make_node("Constant", [], ["cs"], name="const_cs", value_float=2.5),
        const_node("cv", np.array([7, -8], dtype=np.int32), name="const_cv"),
        node("Add", ["X", "dflt"], ["Y"], "add_dflt"),
    ]
    graph = helper.make_graph(nodes, "opt_values", [vi("X", FLOAT, [1]), vi("dflt", FLOAT, [1])],
                              [vi("Y", FLOAT, [1])], initializer=inits)
    return save(make_model(graph), outdir, "opt_values.onnx")


def gen_capture(outdir):
    then_g = helper.make_graph(
        [node("Abs", ["Z"], ["X"], "then_abs_shadow"), node("Add", ["X", "y"], ["then_out"], "then_add")],
        "then_branch", [], [vi("then_out", FLOAT, [4])])
    else_g = helper.make_graph([node("Neg", ["y"], ["else_out"], "else_neg")], "else_branch", [],
                               [vi("else_out", FLOAT, [4])])
    graph = helper.make_graph(
        [node("Identity", ["X"], ["y"], "id_y"),
         node("If", ["C"], ["Y"], "if_c", then_branch=then_g, else_branch=else_g)],
        "opt_capture", [vi("X", FLOAT, [4]), vi("Z", FLOAT, [4]), vi("C", BOOL, [])], [vi("Y", FLOAT, [4])])
    return write_unchecked(make_model(graph), outdir, "opt_capture.onnx")


def gen_odd(outdir):
    short = helper.make_graph([node("Neg", ["X"], ["b_out"], "b_neg")], "short", [], [vi("b_out", FLOAT, [4])])
    nodes = [
        node("Identity", [], ["i0"], "id_none"),
        node("Identity", [""], ["i1"], "id_empty"),
        node("Transpose", ["X"], ["t0"], "tr_range", perm=[5, 0]),
        node("Transpose", ["X"], ["t1"], "tr_a", perm=[0]),
        node("Transpose", ["t1"], ["t2"], "tr_b", perm=[1, 0, 2]),
        node("Reshape", ["X", "sshape"], ["r0"], "reshape_str"),
        node("Pad", ["X", "fpads"], ["p0"], "pad_float"),
        node("Dropout", ["X", "", "tm2"], ["d0"], "dropout_two"),
        node("If", ["K"], ["f0"], "if_nothen", else_branch=short),
        node("If", ["K"], ["f1", "f2"], "if_short", then_branch=short, else_branch=short),
        node("Cast", ["X"], ["c0"], "cast_noto"),
        node("Cast", ["X"], ["c1"], "cast_999", to=999),
        node("Sum", ["i0", "i1", "t0", "t2", "r0", "p0", "d0", "f0", "f1", "f2", "c0", "c1"], ["Y"], "sum"),
    ]
    graph = helper.make_graph(
        nodes, "opt_odd", [vi("X", FLOAT, [4])], [vi("Y", FLOAT, [4])],
        initializer=[helper.make_tensor("sshape", TensorProto.STRING, [1], [b"4"]),
                     init("fpads", np.zeros(2, dtype=np.float32)), init("tm2", np.array([False, False])),
                     init("K", np.array(True))])
    return write_unchecked(make_model(graph), outdir, "opt_odd.onnx")


def gen_cycle(outdir):
    graph = helper.make_graph(
        [node("Relu", ["b"], ["a"], "relu_a"),
         node("Neg", ["a"], ["b"], "neg_b"),
         node("Identity", ["a"], ["y"], "id_y"),
         node("Identity", ["X"], ["z"], "id_z"),
         node("Abs", ["z"], ["Z"], "abs_z")],
        "opt_cycle", [vi("X", FLOAT, [4])], [vi("y", FLOAT, [4]), vi("Z", FLOAT, [4])])
    return write_unchecked(make_model(graph), outdir, "opt_cycle.onnx")


def gen_twice(outdir):
    graph = helper.make_graph(
        [node("Relu", ["X"], ["y"], "relu_y"),
         node("Neg", ["X"], ["y"], "neg_y"),
         node("Identity", ["y"], ["z"], "id_z"),
         node("Abs", ["z"], ["Z"], "abs_z")],
        "opt_twice", [vi("X", FLOAT, [4])], [vi("Z", FLOAT, [4])])
    return write_unchecked(make_model(graph), outdir, "opt_twice.onnx")


GENERATORS = [gen_identity, gen_if_identity, gen_loop_dead, gen_if_const, gen_nops, gen_function, gen_custom,
              gen_values, gen_capture, gen_odd, gen_cycle, gen_twice]

if __name__ == "__main__":
    sys.exit(main(sys.argv, GENERATORS, "gen_optimize_models"))
