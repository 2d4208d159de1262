#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the cse suite (tests/test_cse.c):
eliminate_common_subexpression, eliminate_duplicate_initializer and
extract_constant_to_initializer.

Usage:
    /usr/bin/python3 gen_cse_models.py OUTDIR

Needs python3-onnx and python3-numpy. Models are ir_version 8, opset 13
unless named otherwise; each passes onnx.checker.check_model except those
marked x. The output is deterministic.

Files (r: ONNX Runtime runs it; x: it does not, checked by structure only):

  cse_basic       r  Add(X, Y) twice, each read by a Relu (the Relus merge in
                     the same walk, once the Adds did); Gemm twice with the same
                     attributes written in different orders, once with another
                     alpha; LeakyRelu of alpha 0.1 and 0.2; Split twice (two
                     outputs each); Cast of the same input to two types
  cse_basic21     r  the same at opset 21 (Split with its split input)
  cse_basic11     r  the same at opset 11 (Split without its split input)
  cse_nested      r  Add(X, Y) in the main graph, again after an If whose then
                     branch computes Add(X, Y) too (it stays: merging it would
                     change what the branch reads) and whose else branch
                     computes Add(X, Y) twice (they merge there); a Loop whose
                     body computes Relu of its carried value twice
  cse_bodies      r  a model-local function whose body computes Relu(x) twice
                     (they merge) and Neg(x) twice, the second a function
                     output (the first makes it); a Loop body computing
                     Relu(v) read by a scan output's Neg, then Relu(v) again as
                     the body's carried output (the first makes it)
  cse_random      x  opset 15: RandomNormalLike, RandomUniformLike, Bernoulli,
                     Multinomial, RandomNormal, RandomUniform twice each,
                     Dropout with training_mode true twice, and a node of a
                     custom domain twice, each pair added: nothing merges
  cse_const       r  Constant nodes of 262,145 floats (over one store chunk):
                     two equal in raw_data, one equal in float_data, one whose
                     raw bytes differ in their last byte only; each added to X.
                     The equal ones merge, then the Adds reading them
  cse_outputs     r  nodes whose outputs are graph outputs: Relu(X) twice, both
                     outputs (both stay); Sigmoid(X) read inside, then again as
                     a graph output (the first makes the output); Tanh(X) as a
                     graph output, then again read inside (the second goes)
  dupinit         r  onnxoptimizer's case: Add(A, I_0) then Add(B, I_1), I_0
                     and I_1 equal: one initializer left, read by both
  dupinit_more    r  float initializers over one chunk: equal in raw_data, equal
                     in float_data, differing in the last byte, equal bytes but
                     other dims, and an equal one that is also a graph input
                     (an overridable default: stays); int64 ones equal in
                     int64_data and raw_data
  extract         r  onnxoptimizer's case: Conv, a Constant bias, Add: the
                     Constant becomes initializer 'A'
  extract_more    r  a Constant that is a graph output (stays), one in float_data,
                     a value_floats Constant, and a Constant inside an If branch
                     (stays a node: only the main graph's move)
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
BIG = (1 << 20) // 4 + 1          # floats in a value one byte over a store chunk (SCS_CHUNK_LEN)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def make_model(graph, opset=13, extra_opsets=()):
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_cse_models", opset_imports=imports)
    model.ir_version = 8
    return model


def save(model, outdir, name, check=True):
    path = os.path.join(outdir, name + ".onnx")
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    if check:
        onnx.checker.check_model(path)
    return path


def raw_tensor(name, array):
    return numpy_helper.from_array(np.ascontiguousarray(array), name)


def typed_tensor(name, array):
    array = np.asarray(array)
    elem = {np.dtype(np.float32): FLOAT, np.dtype(np.int64): TensorProto.INT64}[array.dtype]
    return helper.make_tensor(name, elem, array.shape, array.reshape(-1).tolist(), raw=False)


def last_byte_differs(array):
    """@array (float32) with the last byte of its raw bytes changed."""
    b = bytearray(np.ascontiguousarray(array, dtype=np.float32).tobytes())
    b[-1] ^= 0x01
    return np.frombuffer(bytes(b), dtype=np.float32).reshape(array.shape)


# ------------------------------------------------------------------ eliminate_common_subexpression
def gen_basic(outdir, opset, name):
    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 8
    split_attr = {} if opset >= 13 else {"axis": 0}
    split_in = ["Y", "parts"] if opset >= 18 else ["Y"]
    nodes = [
        helper.make_node("Add", ["X", "Y"], ["a1"], name="add1"),
        helper.make_node("Add", ["X", "Y"], ["a2"], name="add2"),
        helper.make_node("Relu", ["a1"], ["r1"], name="relu1"),
        helper.make_node("Relu", ["a2"], ["r2"], name="relu2"),
        helper.make_node("Mul", ["r1", "r2"], ["Z"], name="mul"),
        helper.make_node("Gemm", ["X", "W"], ["g1"], name="gemm1", alpha=0.5, beta=2.0, transB=1),
        helper.make_node("Gemm", ["X", "W"], ["g2"], name="gemm2", transB=1, beta=2.0, alpha=0.5),
        helper.make_node("Gemm", ["X", "W"], ["g3"], name="gemm3", alpha=0.25, beta=2.0, transB=1),
        helper.make_node("Sum", ["g1", "g2", "g3"], ["G"], name="sum"),
        helper.make_node("LeakyRelu", ["X"], ["l1"], name="leaky1", alpha=0.1),
        helper.make_node("LeakyRelu", ["X"], ["l2"], name="leaky2", alpha=0.2),
        helper.make_node("Sub", ["l1", "l2"], ["L"], name="sub"),
        helper.make_node("Split", split_in, ["s1a", "s1b"], name="split1", **split_attr),
        helper.make_node("Split", split_in, ["s2a", "s2b"], name="split2", **split_attr),
        helper.make_node("Concat", ["s1a", "s2b", "s2a", "s1b"], ["S"], name="concat", axis=0),
        helper.make_node("Cast", ["X"], ["c1"], name="cast1", to=TensorProto.INT32),
        helper.make_node("Cast", ["X"], ["c2"], name="cast2", to=TensorProto.INT64),
        helper.make_node("Cast", ["c1"], ["C1"], name="cast3", to=TensorProto.FLOAT),
        helper.make_node("Cast", ["c2"], ["C2"], name="cast4", to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(nodes, name, [vi("X", FLOAT, (2, 4)), vi("Y", FLOAT, (2, 4))],
                              [vi("Z", FLOAT, (2, 4)), vi("G", FLOAT, (2, 3)), vi("L", FLOAT, (2, 4)),
                               vi("S", FLOAT, (4, 4)), vi("C1", FLOAT, (2, 4)), vi("C2", FLOAT, (2, 4))],
                              [raw_tensor("W", w), raw_tensor("parts", np.array([1, 1], dtype=np.int64))])
    save(make_model(graph, opset), outdir, name)


def gen_nested(outdir):
    then_g = helper.make_graph(
        [helper.make_node("Add", ["X", "Y"], ["t1"], name="then_add"),
         helper.make_node("Mul", ["t1", "t1"], ["t_out"], name="then_mul")],
        "then", [], [vi("t_out", FLOAT, (2, 4))])
    else_g = helper.make_graph(
        [helper.make_node("Add", ["X", "Y"], ["e1"], name="else_add1"),
         helper.make_node("Add", ["X", "Y"], ["e2"], name="else_add2"),
         helper.make_node("Sub", ["e1", "e2"], ["e_out"], name="else_sub")],
        "else", [], [vi("e_out", FLOAT, (2, 4))])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         helper.make_node("Relu", ["v_in"], ["b1"], name="body_relu1"),
         helper.make_node("Relu", ["v_in"], ["b2"], name="body_relu2"),
         helper.make_node("Add", ["b1", "b2"], ["v_out"], name="body_add")],
        "body", [vi("i", TensorProto.INT64, ()), vi("cond_in", TensorProto.BOOL, ()), vi("v_in", FLOAT, (2, 4))],
        [vi("cond_out", TensorProto.BOOL, ()), vi("v_out", FLOAT, (2, 4))])
    nodes = [
        helper.make_node("Add", ["X", "Y"], ["a1"], name="add1"),
        helper.make_node("If", ["C"], ["f"], name="if", then_branch=then_g, else_branch=else_g),
        helper.make_node("Add", ["X", "Y"], ["a2"], name="add2"),
        helper.make_node("Sum", ["a1", "f", "a2"], ["Z"], name="sum"),
        helper.make_node("Loop", ["N", "", "X"], ["L"], name="loop", body=body),
    ]
    graph = helper.make_graph(nodes, "cse_nested",
                              [vi("X", FLOAT, (2, 4)), vi("Y", FLOAT, (2, 4)), vi("C", TensorProto.BOOL, ()),
                               vi("N", TensorProto.INT64, ())],
                              [vi("Z", FLOAT, (2, 4)), vi("L", FLOAT, (2, 4))])
    save(make_model(graph), outdir, "cse_nested")


def gen_bodies(outdir):
    fn = helper.make_function(
        "local.fn", "F", ["x"], ["y", "n2"],
        [helper.make_node("Relu", ["x"], ["a"], name="f_relu1"),
         helper.make_node("Relu", ["x"], ["b"], name="f_relu2"),
         helper.make_node("Neg", ["x"], ["n1"], name="f_neg1"),
         helper.make_node("Add", ["a", "b"], ["s"], name="f_add"),
         helper.make_node("Add", ["s", "n1"], ["y"], name="f_add2"),
         helper.make_node("Neg", ["x"], ["n2"], name="f_neg2")],
        [helper.make_opsetid("", 13)])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         helper.make_node("Relu", ["v_in"], ["t"], name="body_relu1"),
         helper.make_node("Neg", ["t"], ["scan"], name="body_neg"),
         helper.make_node("Relu", ["v_in"], ["v_out"], name="body_relu2")],
        "body", [vi("i", TensorProto.INT64, ()), vi("cond_in", TensorProto.BOOL, ()), vi("v_in", FLOAT, (2, 4))],
        [vi("cond_out", TensorProto.BOOL, ()), vi("v_out", FLOAT, (2, 4)), vi("scan", FLOAT, (2, 4))])
    nodes = [
        helper.make_node("F", ["X"], ["Y", "N"], name="call", domain="local.fn"),
        helper.make_node("Loop", ["T", "", "X"], ["L", "S"], name="loop", body=body),
    ]
    graph = helper.make_graph(nodes, "cse_bodies", [vi("X", FLOAT, (2, 4)), vi("T", TensorProto.INT64, ())],
                              [vi("Y", FLOAT, (2, 4)), vi("N", FLOAT, (2, 4)), vi("L", FLOAT, (2, 4)),
                               vi("S", FLOAT, (None, 2, 4))])
    model = make_model(graph, 13, [("local.fn", 1)])
    model.functions.extend([fn])
    save(model, outdir, "cse_bodies")


def gen_random(outdir):
    t = helper.make_tensor("t", TensorProto.BOOL, (), [True])
    nodes = [
        helper.make_node("Constant", [], ["train"], name="train", value=t),
        helper.make_node("Constant", [], ["train2"], name="train2", value=t),
    ]
    outs = []
    twice = [("RandomNormalLike", ["X"], {}), ("RandomUniformLike", ["X"], {}), ("Bernoulli", ["P"], {}),
             ("Multinomial", ["Lg"], {"sample_size": 3}), ("RandomNormal", [], {"shape": [2, 4]}),
             ("RandomUniform", [], {"shape": [2, 4]}), ("Dropout", ["X", "", "train"], {}),
             ("Frob", ["X"], {"domain": "custom.ops"})]
    for op, ins, attrs in twice:
        # both read inside the graph (an Add of the two): only their sum is a graph output
        for k in (1, 2):
            nodes.append(helper.make_node(op, ins, ["%s_%d" % (op, k)], name="%s_%d" % (op.lower(), k), **attrs))
        nodes.append(helper.make_node("Add", ["%s_1" % op, "%s_2" % op], [op + "_sum"], name=op.lower() + "_sum"))
        outs.append(op + "_sum")
    graph = helper.make_graph(nodes, "cse_random",
                              [vi("X", FLOAT, (2, 4)), vi("P", FLOAT, (2, 4)), vi("Lg", FLOAT, (2, 4))],
                              [vi(o, TensorProto.INT32 if o.startswith("Multinomial") else FLOAT, None) for o in outs])
    save(make_model(graph, 15, [("custom.ops", 1)]), outdir, "cse_random", check=False)


def gen_const(outdir):
    v = (np.arange(BIG, dtype=np.float32) % 1000) / 7
    odd = last_byte_differs(v)
    nodes = [
        helper.make_node("Constant", [], ["k1"], name="k1", value=raw_tensor("k1v", v)),
        helper.make_node("Constant", [], ["k2"], name="k2", value=raw_tensor("k2v", v)),
        helper.make_node("Constant", [], ["k3"], name="k3", value=typed_tensor("k3v", v)),
        helper.make_node("Constant", [], ["k4"], name="k4", value=raw_tensor("k4v", odd)),
        helper.make_node("Add", ["X", "k1"], ["a1"], name="add1"),
        helper.make_node("Add", ["X", "k2"], ["a2"], name="add2"),
        helper.make_node("Add", ["X", "k3"], ["a3"], name="add3"),
        helper.make_node("Add", ["X", "k4"], ["a4"], name="add4"),
        helper.make_node("Concat", ["a1", "a2", "a3", "a4"], ["Z"], name="concat", axis=0),
    ]
    graph = helper.make_graph(nodes, "cse_const", [vi("X", FLOAT, (BIG,))], [vi("Z", FLOAT, (4 * BIG,))])
    save(make_model(graph), outdir, "cse_const")


def gen_outputs(outdir):
    nodes = [
        helper.make_node("Relu", ["X"], ["O1"], name="relu1"),
        helper.make_node("Relu", ["X"], ["O2"], name="relu2"),
        helper.make_node("Sigmoid", ["X"], ["s1"], name="sig1"),
        helper.make_node("Neg", ["s1"], ["O4"], name="neg_s"),
        helper.make_node("Sigmoid", ["X"], ["O3"], name="sig2"),
        helper.make_node("Tanh", ["X"], ["O5"], name="tanh1"),
        helper.make_node("Tanh", ["X"], ["t2"], name="tanh2"),
        helper.make_node("Neg", ["t2"], ["O6"], name="neg_t"),
    ]
    outs = [vi(o, FLOAT, (2, 4)) for o in ("O1", "O2", "O3", "O4", "O5", "O6")]
    graph = helper.make_graph(nodes, "cse_outputs", [vi("X", FLOAT, (2, 4))], outs)
    save(make_model(graph), outdir, "cse_outputs")


# ------------------------------------------------------------------ eliminate_duplicate_initializer
def gen_dupinit(outdir):
    i = (np.arange(5, dtype=np.float32) - 2) / 3
    nodes = [helper.make_node("Add", ["A", "I_0"], ["B"]), helper.make_node("Add", ["B", "I_1"], ["C"])]
    graph = helper.make_graph(nodes, "test", [vi("A", FLOAT, (5,))], [vi("C", FLOAT, (5,))],
                              [raw_tensor("I_0", i), raw_tensor("I_1", i)])
    save(make_model(graph), outdir, "dupinit")


def gen_dupinit_more(outdir):
    v = (np.arange(BIG, dtype=np.float32) % 977) / 5
    odd = last_byte_differs(v)
    n = np.arange(6, dtype=np.int64) * 3 - 7
    inits = [raw_tensor("W_raw", v), raw_tensor("W_raw2", v), typed_tensor("W_typed", v),
             raw_tensor("W_odd", odd), raw_tensor("W_dims", v[:BIG - 1].reshape(2, (BIG - 1) // 2)),
             raw_tensor("W_1d", v[:BIG - 1]), raw_tensor("W_in", v), typed_tensor("N_typed", n),
             raw_tensor("N_raw", n)]
    names = ["W_raw", "W_raw2", "W_typed", "W_odd", "W_in"]
    nodes = [helper.make_node("Add", ["X", w], ["a_" + w]) for w in names]
    nodes.append(helper.make_node("Concat", ["a_" + w for w in names], ["Z"], axis=0))
    nodes.append(helper.make_node("Reshape", ["W_dims", "W_flat"], ["wf"]))
    nodes.append(helper.make_node("Add", ["wf", "W_1d"], ["D"]))
    nodes.append(helper.make_node("Add", ["N_typed", "N_raw"], ["M"]))
    inits.append(raw_tensor("W_flat", np.array([-1], dtype=np.int64)))
    graph = helper.make_graph(nodes, "dupinit_more", [vi("X", FLOAT, (BIG,)), vi("W_in", FLOAT, (BIG,))],
                              [vi("Z", FLOAT, (5 * BIG,)), vi("D", FLOAT, (BIG - 1,)), vi("M", TensorProto.INT64, (6,))],
                              inits)
    save(make_model(graph), outdir, "dupinit_more")


# ------------------------------------------------------------------ extract_constant_to_initializer
def gen_extract(outdir):
    bias = (np.arange(16, dtype=np.float32) - 8) / 4
    conv = helper.make_node("Conv", ["X", "Y"], ["Z"])
    constant = helper.make_node("Constant", [], ["A"], value=helper.make_tensor(
        name="bias", data_type=FLOAT, dims=(16, 1, 1), vals=bias.tolist()))
    add = helper.make_node("Add", ["Z", "A"], ["B"])
    graph = helper.make_graph([conv, constant, add], "test",
                              [vi("X", FLOAT, (1, 5, 3, 3)), vi("Y", FLOAT, (16, 5, 3, 3))],
                              [vi("B", FLOAT, (1, 16, 1, 1))])
    save(make_model(graph), outdir, "extract")


def gen_extract_more(outdir):
    v = np.arange(4, dtype=np.float32) / 3
    then_g = helper.make_graph(
        [helper.make_node("Constant", [], ["tk"], name="then_const", value=raw_tensor("tkv", v)),
         helper.make_node("Add", ["X", "tk"], ["t_out"], name="then_add")],
        "then", [], [vi("t_out", FLOAT, (4,))])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["X"], ["e_out"], name="else_neg")], "else", [], [vi("e_out", FLOAT, (4,))])
    nodes = [
        helper.make_node("Constant", [], ["K_out"], name="k_out", value=raw_tensor("kov", v)),
        helper.make_node("Constant", [], ["k_typed"], name="k_typed", value=typed_tensor("ktv", v)),
        helper.make_node("Constant", [], ["k_floats"], name="k_floats", value_floats=[0.5, 1.5, -2.0, 3.25]),
        helper.make_node("Add", ["X", "k_typed"], ["a1"], name="add1"),
        helper.make_node("Mul", ["a1", "k_floats"], ["Z"], name="mul"),
        helper.make_node("If", ["C"], ["F"], name="if", then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(nodes, "extract_more", [vi("X", FLOAT, (4,)), vi("C", TensorProto.BOOL, ())],
                              [vi("Z", FLOAT, (4,)), vi("K_out", FLOAT, (4,)), vi("F", FLOAT, (4,))])
    save(make_model(graph), outdir, "extract_more")


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_cse_models.py OUTDIR\n")
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    gen_basic(outdir, 13, "cse_basic")
    gen_basic(outdir, 21, "cse_basic21")
    gen_basic(outdir, 11, "cse_basic11")
    gen_nested(outdir)
    gen_bodies(outdir)
    gen_random(outdir)
    gen_const(outdir)
    gen_outputs(outdir)
    gen_dupinit(outdir)
    gen_dupinit_more(outdir)
    gen_extract(outdir)
    gen_extract_more(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
