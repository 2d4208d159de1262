#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the extra suite (tests/test_extra.c): onnxoptimizer's
passes outside the default set.

Usage:
    /usr/bin/python3 gen_extra_models.py OUTDIR

Needs python3-onnx and python3-numpy. Models are ir_version 8, opset 13
unless named otherwise; each of opset 17 or older passes
onnx.checker.check_model (python3-onnx knows no newer opsets; ONNX Runtime
runs those). The output is
deterministic. Node names say what the test expects of each node.

  extra_add          adjust_add: onnxoptimizer's Add(bias, MatMul(X, W)); an
                     Add of a Constant node (int64_data) and a computed value
                     inside an If branch; Adds left as they are: constant
                     second (k_second), both constant (k_both), a graph input
                     with a default first (k_default)
  extra_add_op6      x  opset 6: Add(c, X) with broadcast=1 (refused: the
                     second input broadcasts only) and without (swapped)
  extra_add_op21     opset 21: Add(c, Relu(X)) with c in float_data
  extra_einsum       replace_einsum_with_matmul: onnxoptimizer's two cases
                     ("bhid,bhjd->bhij" of X with itself: Transpose + MatMul;
                     "bhij,bhjd->bhid" then Identity: MatMul), rank 2 with
                     spaces ("ij , jk -> ik"), float64, int64, one inside a
                     Loop body reading an outer value; refusals: a diagonal
                     (r_diag "bii,bij->bij"), an ellipsis (r_ell), an implicit
                     output (r_impl), an output in another order (r_order)
  extra_einsum_op21  opset 21: "bij,bkj->bik" (Transpose + MatMul)
  extra_slice        adjust_slice_and_matmul: MatMul(Slice(A rows), B) (opset
                     13, steps input), batch rows of a rank-3 A by a rank-2 B;
                     refusals: the summed axis sliced (r_last), a batch axis B
                     has too (r_batch), the Slice read twice (r_twice); a Slice
                     with no axes input left alone (k_noaxes); one in an If
                     branch
  extra_slice_op9    x  opset 9: Slice with attributes (left alone)
  extra_rename       rename_input_output: onnxoptimizer's case (X -> Expand ->
                     Identity -> Y, an initializer beside)
  extra_rename_env   onnxoptimizer's case for the patterns of the environment:
                     Add(X, X1) -> Identity -> Y
  extra_rename_more  inputs X, X1 and D (with a default: keeps its name), X read
                     in an If branch too, output Y read by another node and
                     described in value_info, outputs Y, Z, W
  extra_rename_clash refusals: a value already called input_0 (X keeps its
                     name), Q both an input and an output (both keep it);
                     output Y is renamed
  extra_rename_swap  inputs named input_1, input_0 and outputs output_1,
                     output_0: each ends with the name of its position, over
                     rounds (through fresh names), with no refusal
  extra_dtype        rewrite_input_dtype: int64 ids read by a Gather and inside
                     a Loop body, int64 trip count n, a float input (left), an
                     int64 input with a default (left), an int64 input that is
                     also a graph output (refused), one nothing reads; the
                     values ONNX Runtime gets, as int64 for the model and int32
                     for its rewrite: extra_dtype_{ids,n,u}{64,32}.npy
  extra_dtype_op5    x  opset 5 (IR 3): Cast names its type as a string there:
                     refused
  extra_split        split_init / split_predict: an initializer read by the
                     predict side directly (W), init-side chains (Transpose,
                     Mul by a Constant node; Add of two initializers) read by
                     predict-side nodes, an init-side graph output (C), a
                     default read by the predict side (D), an init-side value
                     read only inside an If branch (k, by a node there that
                     reads nothing of the predict side), the If itself
  extra_split_ir3    IR 3, opset 8: every initializer is also an input
  extra_split_random x  a RandomUniform (predict side, though it reads no
                     input) and what it feeds
  extra_split_none   nothing comes from constants: split_init refuses,
                     split_predict changes nothing
  extra_lift         lift_lexical_references: onnxoptimizer's example (a Loop
                     whose body reads X and Y of the main graph), and an If
                     inside that body reading W5 of the main graph (which the
                     Loop reads then too) and the body's own _Y3
  extra_caffe2       onnxoptimizer's model for split_predict with
                     lift_lexical_references (its bytes, as its test has them:
                     a Loop whose body reads the Constant "2" of the main graph)
  extra_empty        onnxoptimizer's test_get_available_passes: a graph of
                     nothing, which every pass takes
  extra_names        set_unique_name_for_nodes: onnxoptimizer's Add + Identity
                     without names; a node already named "Add_1" (kept, and no
                     other node takes it), unnamed nodes in an If branch
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


def node(op, ins, outs, name=None, **attrs):
    return helper.make_node(op, ins, outs, name=name, **attrs)


def make_model(graph, opset=13, ir=8):
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_extra_models",
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


# ------------------------------------------------------------------ adjust_add
def extra_add(outdir):
    then_g = helper.make_graph(
        [node("Constant", [], ["k"], name="t_const",
              value=helper.make_tensor("k", INT64, [3], [5, -7, 9])),
         node("Add", ["k", "cnt"], ["t_sum"], name="swap_nested")],
        "then", [], [vi("t_sum", INT64, [3])])
    else_g = helper.make_graph([node("Neg", ["cnt"], ["e_neg"], name="e_neg")], "else", [], [vi("e_neg", INT64, [3])])
    g = helper.make_graph(
        [node("MatMul", ["X", "W"], ["mm"], name="mm"),
         node("Add", ["bias", "mm"], ["Y"], name="swap_bias"),
         node("Add", ["X", "c"], ["Y2"], name="k_second"),
         node("Add", ["c", "c"], ["cc"], name="k_both"),
         node("Add", ["D", "X"], ["Y3"], name="k_default"),
         node("Mul", ["Y3", "cc"], ["Y4"], name="mul"),
         node("ReduceSum", ["X"], ["s"], name="sum", keepdims=0),
         node("Greater", ["s", "zero"], ["cond"], name="gt"),
         node("If", ["cond"], ["Z"], name="if", then_branch=then_g, else_branch=else_g)],
        "extra_add",
        [vi("X", FLOAT, [2, 3]), vi("cnt", INT64, [3]), vi("D", FLOAT, [3])],
        [vi("Y", FLOAT, [2, 4]), vi("Y2", FLOAT, [2, 3]), vi("Y4", FLOAT, [2, 3]), vi("Z", INT64, [3])],
        [init("W", rnd(1, [3, 4])), init("bias", rnd(2, [4])), init("c", rnd(3, [3])), init("D", rnd(4, [3])),
         init("zero", np.float32(0))])
    save(make_model(g), outdir, "extra_add")


def extra_add_op6(outdir):
    g = helper.make_graph(
        [node("Add", ["c", "X"], ["Y"], name="r_bcast", broadcast=1),
         node("Add", ["c23", "X"], ["Y2"], name="swap_same")],
        "extra_add_op6", [vi("X", FLOAT, [2, 3]), vi("c", FLOAT, [3]), vi("c23", FLOAT, [2, 3])], [vi("Y", FLOAT, [2, 3]), vi("Y2", FLOAT, [2, 3])],
        [init("c", rnd(5, [3])), init("c23", rnd(6, [2, 3]))])
    save(make_model(g, opset=6, ir=3), outdir, "extra_add_op6")


def extra_add_op21(outdir):
    c = helper.make_tensor("c", FLOAT, [3], [0.5, -1.25, 3.0])   # float_data
    g = helper.make_graph(
        [node("Relu", ["X"], ["r"], name="relu"), node("Add", ["c", "r"], ["Y"], name="swap")],
        "extra_add_op21", [vi("X", FLOAT, [2, 3])], [vi("Y", FLOAT, [2, 3])], [c])
    save(make_model(g, opset=21), outdir, "extra_add_op21")


# ------------------------------------------------------------------ einsum
def extra_einsum(outdir):
    body = helper.make_graph(
        [node("Einsum", ["carry", "Wl"], ["next"], name="in_loop", equation="ij,jk->ik"),
         node("Identity", ["cond_in"], ["cond_out"], name="cond_id")],
        "body", [vi("iter", INT64, []), vi("cond_in", TensorProto.BOOL, []), vi("carry", FLOAT, [2, 2])],
        [vi("cond_out", TensorProto.BOOL, []), vi("next", FLOAT, [2, 2])])
    g = helper.make_graph(
        [node("Einsum", ["X", "X"], ["Y"], name="tr_self", equation="bhid,bhjd->bhij"),
         node("Einsum", ["X", "X6"], ["Y1"], name="plain", equation="bhij,bhjd->bhid"),
         node("Identity", ["Y1"], ["Z"], name="id"),
         node("Einsum", ["A", "B"], ["AB"], name="spaces", equation="ij , jk -> ik"),
         node("Einsum", ["A64", "B64"], ["AB64"], name="f64", equation="ij,jk->ik"),
         node("Einsum", ["I", "J"], ["IJ"], name="i64", equation="bij,bkj->bik"),
         node("Loop", ["trips", "", "S"], ["S_out"], name="loop", body=body),
         node("Einsum", ["D3", "D3b"], ["Rd"], name="r_diag", equation="bii,bij->bij"),
         node("Einsum", ["A", "B"], ["Re"], name="r_ell", equation="...j,jk->...k"),
         node("Einsum", ["A", "B"], ["Ri"], name="r_impl", equation="ij,jk"),
         node("Einsum", ["A", "B"], ["Ro"], name="r_order", equation="ij,jk->ki")],
        "extra_einsum",
        [vi("X", FLOAT, [3, 4, 5, 6]), vi("X6", FLOAT, [3, 4, 6, 5]), vi("A", FLOAT, [2, 3]), vi("B", FLOAT, [3, 4]),
         vi("A64", TensorProto.DOUBLE, [2, 3]), vi("B64", TensorProto.DOUBLE, [3, 4]), vi("I", INT64, [2, 3, 4]),
         vi("J", INT64, [2, 5, 4]), vi("S", FLOAT, [2, 2]), vi("D3", FLOAT, [2, 3, 3]), vi("D3b", FLOAT, [2, 3, 4])],
        [vi("Y", FLOAT, [3, 4, 5, 5]), vi("Z", FLOAT, [3, 4, 5, 5]), vi("AB", FLOAT, [2, 4]),
         vi("AB64", TensorProto.DOUBLE, [2, 4]), vi("IJ", INT64, [2, 3, 5]), vi("S_out", FLOAT, [2, 2]),
         vi("Rd", FLOAT, [2, 3, 4]), vi("Re", FLOAT, [2, 4]), vi("Ri", FLOAT, [2, 4]), vi("Ro", FLOAT, [4, 2])],
        [init("Wl", rnd(7, [2, 2])), init("trips", np.int64(3))])
    save(make_model(g), outdir, "extra_einsum")


def extra_einsum_op21(outdir):
    g = helper.make_graph(
        [node("Einsum", ["P", "Q"], ["R"], name="tr", equation="bij,bkj->bik")],
        "extra_einsum_op21", [vi("P", FLOAT, [2, 3, 4]), vi("Q", FLOAT, [2, 5, 4])], [vi("R", FLOAT, [2, 3, 5])])
    save(make_model(g, opset=21), outdir, "extra_einsum_op21")


# ------------------------------------------------------------------ slice + matmul
def i64(name, values):
    return init(name, np.array(values, dtype=np.int64))


def extra_slice(outdir):
    then_g = helper.make_graph(
        [node("Slice", ["A", "st", "en_t", "ax0"], ["t_s"], name="t_slice"),
         node("MatMul", ["t_s", "B"], ["t_y"], name="move_nested")],
        "then", [], [vi("t_y", FLOAT, [2, 3])])
    else_g = helper.make_graph([node("MatMul", ["A2", "B"], ["e_y"], name="e_mm")], "else", [], [vi("e_y", FLOAT, [2, 3])])
    g = helper.make_graph(
        [node("Slice", ["A", "st", "en", "ax0", "step2"], ["s1"], name="slice_rows"),
         node("MatMul", ["s1", "B"], ["mm1"], name="move_rows"),
         node("Add", ["mm1", "X"], ["Y"], name="add"),
         node("Slice", ["A3", "st3", "en3", "ax01"], ["s2"], name="slice_batch"),
         node("MatMul", ["s2", "B"], ["Y2"], name="move_batch"),
         node("Slice", ["A", "st", "en", "ax1"], ["s3"], name="slice_last"),
         node("MatMul", ["s3", "B2"], ["Y3"], name="r_last"),
         node("Slice", ["A4", "st0", "en1", "ax0"], ["s4"], name="slice_b"),
         node("MatMul", ["s4", "B4"], ["Y4"], name="r_batch"),
         node("Slice", ["A", "st", "en", "ax0"], ["s5"], name="slice_twice"),
         node("MatMul", ["s5", "B"], ["Y5"], name="r_twice"),
         node("Neg", ["s5"], ["Y5n"], name="neg"),
         node("Slice", ["A", "st2", "en2"], ["s6"], name="slice_noaxes"),
         node("MatMul", ["s6", "B"], ["Y6"], name="k_noaxes"),
         node("ReduceSum", ["X"], ["xs"], name="sum", keepdims=0),
         node("Greater", ["xs", "zero"], ["cond"], name="gt"),
         node("If", ["cond"], ["Y7"], name="if", then_branch=then_g, else_branch=else_g)],
        "extra_slice",
        [vi("X", FLOAT, [2, 3])],
        [vi("Y", FLOAT, [2, 3]), vi("Y2", FLOAT, [2, 4, 3]), vi("Y3", FLOAT, [6, 3]), vi("Y4", FLOAT, [4, 6, 3]),
         vi("Y5", FLOAT, [4, 3]), vi("Y5n", FLOAT, [4, 4]), vi("Y6", FLOAT, [2, 3]), vi("Y7", FLOAT, [2, 3])],
        [init("A", rnd(10, [6, 4])), init("B", rnd(11, [4, 3])), init("B2", rnd(12, [3, 3])),
         init("A2", rnd(13, [2, 4])), init("A3", rnd(14, [3, 5, 4])), init("A4", rnd(15, [4, 6, 4])),
         init("B4", rnd(16, [4, 4, 3])), i64("st", [1]), i64("en", [5]), i64("en_t", [3]), i64("st0", [0]), i64("en1", [1]), i64("ax0", [0]), i64("ax1", [-1]),
         i64("step2", [2]), i64("st3", [1, 0]), i64("en3", [3, 4]), i64("ax01", [0, -2]), i64("st2", [0, 0]),
         i64("en2", [2, 4]), init("zero", np.float32(0))])
    save(make_model(g), outdir, "extra_slice")


def extra_slice_op9(outdir):
    g = helper.make_graph(
        [node("Slice", ["A"], ["s"], name="slice", starts=[1], ends=[3], axes=[0]),
         node("MatMul", ["s", "B"], ["Y"], name="k_attr")],
        "extra_slice_op9", [], [vi("Y", FLOAT, [2, 3])], [init("A", rnd(20, [6, 4])), init("B", rnd(21, [4, 3]))])
    save(make_model(g, opset=9, ir=4), outdir, "extra_slice_op9")


# ------------------------------------------------------------------ names
def extra_names(outdir):
    then_g = helper.make_graph([node("Relu", ["X"], ["t"])], "then", [], [vi("t", FLOAT, [3, 2])])
    else_g = helper.make_graph([node("Neg", ["X"], ["e"]), node("Relu", ["e"], ["e2"])], "else", [],
                               [vi("e2", FLOAT, [3, 2])])
    g = helper.make_graph(
        [node("Add", ["X", "X1"], ["X2"]),
         node("Identity", ["X2"], ["Y"]),
         node("Add", ["X2", "X"], ["X3"], name="Add_1"),
         node("ReduceSum", ["X3"], ["s"], keepdims=0),
         node("Greater", ["s", "zero"], ["cond"]),
         node("If", ["cond"], ["Z"], then_branch=then_g, else_branch=else_g)],
        "extra_names", [vi("X", FLOAT, [3, 2]), vi("X1", FLOAT, [3, 2])],
        [vi("Y", FLOAT, [3, 2]), vi("Z", FLOAT, [3, 2])], [init("zero", np.float32(0))])
    save(make_model(g), outdir, "extra_names")


# ------------------------------------------------------------------ interface
def extra_rename(outdir):
    g = helper.make_graph(
        [node("Expand", ["X", "shape"], ["X2"]), node("Identity", ["X2"], ["Y"])],
        "extra_rename", [vi("X", FLOAT, [3, 2])], [vi("Y", FLOAT, [3, 2])], [i64("shape", [1, 1])])
    save(make_model(g), outdir, "extra_rename")


def extra_rename_env(outdir):
    g = helper.make_graph(
        [node("Add", ["X", "X1"], ["X2"]), node("Identity", ["X2"], ["Y"])],
        "extra_rename_env", [vi("X", FLOAT, [3, 2]), vi("X1", FLOAT, [3, 2])], [vi("Y", FLOAT, [3, 2])])
    save(make_model(g), outdir, "extra_rename_env")


def extra_rename_more(outdir):
    then_g = helper.make_graph([node("Mul", ["Y", "X"], ["t"], name="t_mul")], "then", [], [vi("t", FLOAT, [3, 2])])
    else_g = helper.make_graph([node("Neg", ["X1"], ["e"], name="e_neg")], "else", [], [vi("e", FLOAT, [3, 2])])
    g = helper.make_graph(
        [node("Add", ["X", "X1"], ["A"], name="add"),
         node("Relu", ["A"], ["Y"], name="relu"),
         node("ReduceSum", ["Y"], ["s"], name="sum", keepdims=0),
         node("Greater", ["s", "zero"], ["cond"], name="gt"),
         node("If", ["cond"], ["Z"], name="if", then_branch=then_g, else_branch=else_g),
         node("Add", ["Y", "D"], ["W"], name="add_d")],
        "extra_rename_more", [vi("X", FLOAT, [3, 2]), vi("D", FLOAT, [2]), vi("X1", FLOAT, [3, 2])],
        [vi("Y", FLOAT, [3, 2]), vi("Z", FLOAT, [3, 2]), vi("W", FLOAT, [3, 2])],
        [init("D", rnd(30, [2])), init("zero", np.float32(0))], value_info=[vi("A", FLOAT, [3, 2])])
    save(make_model(g), outdir, "extra_rename_more")


def extra_rename_clash(outdir):
    g = helper.make_graph(
        [node("Relu", ["X"], ["input_0"], name="relu"), node("Add", ["input_0", "Q"], ["Y"], name="add")],
        "extra_rename_clash", [vi("X", FLOAT, [3, 2]), vi("Q", FLOAT, [3, 2])],
        [vi("Y", FLOAT, [3, 2]), vi("Q", FLOAT, [3, 2])])
    save(make_model(g), outdir, "extra_rename_clash")


def extra_rename_swap(outdir):
    g = helper.make_graph(
        [node("Relu", ["input_1"], ["output_1"], name="relu"), node("Neg", ["input_0"], ["output_0"], name="neg")],
        "extra_rename_swap", [vi("input_1", FLOAT, [3, 2]), vi("input_0", FLOAT, [3, 2])],
        [vi("output_1", FLOAT, [3, 2]), vi("output_0", FLOAT, [3, 2])])
    save(make_model(g), outdir, "extra_rename_swap")


def extra_dtype(outdir):
    body = helper.make_graph(
        [node("Cast", ["ids"], ["idf"], name="b_cast", to=FLOAT),
         node("Add", ["carry", "idf"], ["next"], name="b_add"),
         node("Identity", ["cond_in"], ["cond_out"], name="b_cond")],
        "body", [vi("iter", INT64, []), vi("cond_in", TensorProto.BOOL, []), vi("carry", FLOAT, [4])],
        [vi("cond_out", TensorProto.BOOL, []), vi("next", FLOAT, [4])])
    g = helper.make_graph(
        [node("Gather", ["emb", "ids"], ["E"], name="gather"),
         node("Loop", ["n", "", "x"], ["L"], name="loop", body=body),
         node("Add", ["d", "one"], ["DD"], name="add_d")],
        "extra_dtype",
        [vi("ids", INT64, [4]), vi("n", INT64, []), vi("x", FLOAT, [4]), vi("d", INT64, [2]), vi("p", INT64, [2]),
         vi("u", INT64, [3])],
        [vi("E", FLOAT, [4, 3]), vi("L", FLOAT, [4]), vi("DD", INT64, [2]), vi("p", INT64, [2])],
        [init("emb", rnd(31, [5, 3])), init("d", np.array([3, 4], dtype=np.int64)), init("one", np.int64(1))])
    save(make_model(g), outdir, "extra_dtype")
    for name, values in (("ids", [-1, 4, 2, 0]), ("n", 3), ("u", [7, -8, 2147483647])):
        for bits in (64, 32):
            np.save(os.path.join(outdir, "extra_dtype_%s%d.npy" % (name, bits)),
                    np.array(values, dtype=np.int64 if bits == 64 else np.int32))


def extra_dtype_op5(outdir):
    g = helper.make_graph(
        [node("Gather", ["emb", "ids"], ["E"], name="gather")],
        "extra_dtype_op5", [vi("ids", INT64, [4]), vi("emb", FLOAT, [5, 3])], [vi("E", FLOAT, [4, 3])],
        [init("emb", rnd(32, [5, 3]))])
    save(make_model(g, opset=5, ir=3), outdir, "extra_dtype_op5")


# ------------------------------------------------------------------ split
def extra_split(outdir):
    then_g = helper.make_graph([node("Add", ["k", "z23"], ["t"], name="t_add")], "then", [], [vi("t", FLOAT, [2, 3])],
                               [init("z23", rnd(46, [2, 3]))])
    else_g = helper.make_graph([node("Add", ["h", "bs"], ["e"], name="e_add")], "else", [], [vi("e", FLOAT, [2, 3])])
    g = helper.make_graph(
        [node("Transpose", ["W"], ["wt"], name="i_tr"),
         node("Constant", [], ["two"], name="i_two", value=helper.make_tensor("two", FLOAT, [], [2.0])),
         node("Mul", ["wt", "two"], ["w2"], name="i_mul"),
         node("Add", ["b", "s"], ["bs"], name="i_add"),
         node("Neg", ["bs"], ["C"], name="i_neg"),
         node("Abs", ["b"], ["ab"], name="i_abs"),
         node("Sqrt", ["ab"], ["k"], name="i_sqrt"),
         node("MatMul", ["X", "W"], ["h"], name="p_mm"),
         node("Add", ["h", "bs"], ["Y"], name="p_add"),
         node("Gemm", ["X", "w2"], ["Z"], name="p_gemm", transB=1),
         node("Add", ["X", "D"], ["DD"], name="p_addd"),
         node("ReduceSum", ["X"], ["xs"], name="p_sum", keepdims=0),
         node("Greater", ["xs", "zero"], ["cond"], name="p_gt"),
         node("If", ["cond"], ["I"], name="p_if", then_branch=then_g, else_branch=else_g)],
        "extra_split", [vi("X", FLOAT, [2, 4]), vi("D", FLOAT, [4])],
        [vi("Y", FLOAT, [2, 3]), vi("Z", FLOAT, [2, 3]), vi("C", FLOAT, [3]), vi("DD", FLOAT, [2, 4]),
         vi("I", FLOAT, [2, 3])],
        [init("W", rnd(40, [4, 3])), init("b", rnd(41, [3])), init("s", rnd(42, [3])), init("D", rnd(43, [4])),
         init("zero", np.float32(0))])
    save(make_model(g), outdir, "extra_split")


def extra_split_ir3(outdir):
    g = helper.make_graph(
        [node("Transpose", ["W"], ["wt"], name="i_tr"), node("MatMul", ["X", "wt"], ["Y"], name="p_mm")],
        "extra_split_ir3", [vi("X", FLOAT, [2, 4]), vi("W", FLOAT, [3, 4])], [vi("Y", FLOAT, [2, 3])],
        [init("W", rnd(44, [3, 4]))])
    save(make_model(g, opset=8, ir=3), outdir, "extra_split_ir3")


def extra_split_random(outdir):
    g = helper.make_graph(
        [node("RandomUniform", [], ["r"], name="p_rand", shape=[2, 3], seed=1.0),
         node("Abs", ["W"], ["aw"], name="i_abs"),
         node("Mul", ["r", "aw"], ["Y"], name="p_mul")],
        "extra_split_random", [], [vi("Y", FLOAT, [2, 3])], [init("W", rnd(45, [2, 3]))])
    save(make_model(g), outdir, "extra_split_random")


def extra_split_none(outdir):
    g = helper.make_graph([node("Relu", ["X"], ["Y"], name="p_relu")], "extra_split_none",
                          [vi("X", FLOAT, [2, 4])], [vi("Y", FLOAT, [2, 4])])
    save(make_model(g), outdir, "extra_split_none")


# ------------------------------------------------------------------ lift_lexical_references
def extra_lift(outdir):
    then_g = helper.make_graph([node("Add", ["W5", "_Y3"], ["it"], name="in_add")], "then", [],
                               [vi("it", FLOAT, [5])])
    else_g = helper.make_graph([node("Neg", ["_Y3"], ["ie"], name="in_neg")], "else", [], [vi("ie", FLOAT, [5])])
    body = helper.make_graph(
        [node("Identity", ["X"], ["_Y2"], name="b_id2"),
         node("Identity", ["Y"], ["_Y3"], name="b_id3"),
         node("If", ["cond"], ["_Y4"], name="inner_if", then_branch=then_g, else_branch=else_g)],
        "body_graph", [vi("i", INT64, []), vi("cond", TensorProto.BOOL, [])],
        [vi("cond", TensorProto.BOOL, []), vi("_Y2", FLOAT, [5]), vi("_Y3", FLOAT, [5]), vi("_Y4", FLOAT, [5])])
    g = helper.make_graph(
        [node("Identity", ["X"], ["Y"], name="id"),
         node("Constant", [], ["trip_count"], name="trips", value=helper.make_tensor("t", INT64, [], [10])),
         node("Constant", [], ["condition"], name="cond", value=helper.make_tensor("c", TensorProto.BOOL, [], [1])),
         node("Loop", ["trip_count", "condition"], ["Y2", "Y3", "Y4"], name="loop", body=body)],
        "test", [vi("X", FLOAT, [5]), vi("W5", FLOAT, [5])],
        [vi("Y", FLOAT, [5]), vi("Y2", FLOAT, [None, 5]), vi("Y3", FLOAT, [None, 5]), vi("Y4", FLOAT, [None, 5])])
    save(make_model(g), outdir, "extra_lift")


CAFFE2 = (b'\x08\x06\x12\x07pytorch\x1a\x031.9:\xe5\x02\n\'\x12\x011"\x08Constant*\x18\n\x05value*\x0c\x10\x07J\x08'
          b'\x05\x00\x00\x00\x00\x00\x00\x00\xa0\x01\x04\n \x12\x012"\x08Constant*\x11\n\x05value*\x05\x10\tJ\x01\x01'
          b'\xa0\x01\x04\n\xd1\x01\n\x011\n\x012\n\x03x.1\x12\x013"\x04Loop*\xba\x01\n\x04body2\xae\x01\n\x1a\n\x04x.11'
          b'\n\x03i.1\x12\x017\x1a\x05Add_0"\x03Add\n\x1c\n\x012\x12\x018\x1a\nIdentity_1"\x08Identity\x12\x11'
          b'torch-jit-export1Z\r\n\x03i.1\x12\x06\n\x04\x08\x07\x12\x00Z\x0e\n\x04cond\x12\x06\n\x04\x08\t\x12\x00Z\x1a'
          b'\n\x04x.11\x12\x12\n\x10\x08\x07\x12\x0c\n\x02\x08\x01\n\x02\x08\x02\n\x02\x08\x03b\x0b\n\x018\x12\x06\n'
          b'\x04\x08\t\x12\x00b\x17\n\x017\x12\x12\n\x10\x08\x07\x12\x0c\n\x02\x08\x01\n\x02\x08\x02\n\x02\x08\x03'
          b'\xa0\x01\x05\x12\x10torch-jit-exportZ\x19\n\x03x.1\x12\x12\n\x10\x08\x07\x12\x0c\n\x02\x08\x01\n\x02\x08'
          b'\x02\n\x02\x08\x03b\x17\n\x013\x12\x12\n\x10\x08\x07\x12\x0c\n\x02\x08\x01\n\x02\x08\x02\n\x02\x08\x03'
          b'B\x02\x10\t')


def extra_caffe2(outdir):
    save(onnx.load_from_string(CAFFE2), outdir, "extra_caffe2")


def extra_empty(outdir):
    save(make_model(helper.make_graph([], "dummy_graph", [], [])), outdir, "extra_empty")


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    extra_add(outdir)
    extra_add_op6(outdir)
    extra_add_op21(outdir)
    extra_einsum(outdir)
    extra_einsum_op21(outdir)
    extra_slice(outdir)
    extra_slice_op9(outdir)
    extra_names(outdir)
    extra_rename(outdir)
    extra_rename_env(outdir)
    extra_rename_more(outdir)
    extra_rename_clash(outdir)
    extra_rename_swap(outdir)
    extra_dtype(outdir)
    extra_dtype_op5(outdir)
    extra_split(outdir)
    extra_split_ir3(outdir)
    extra_split_random(outdir)
    extra_split_none(outdir)
    extra_lift(outdir)
    extra_caffe2(outdir)
    extra_empty(outdir)


if __name__ == "__main__":
    main()
