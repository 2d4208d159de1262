#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the small ONNX test models used by the scs4onnx-c end-to-end tests.

Usage:
    /usr/bin/python3 gen_models.py OUTDIR

Needs only the Debian packages python3-onnx (1.12 or newer) and python3-numpy.
Every model is ir_version 8, default-domain opset 13, passes
onnx.checker.check_model (by path) and runs in ONNX Runtime
(check with: node ort_compare.mjs OUTDIR/NAME.onnx OUTDIR/NAME.onnx).
The output is deterministic: the same files are written on every run.

Files written to OUTDIR (names are fixed; the C tests refer to them):

  dup_basic.onnx      identical float initializers W1/W2/W3, a Constant node
                      equal to W1, duplicate scalars S/S2 ([]), duplicate
                      1-element tensors O1/O1b ([1]), an initializer D that is
                      also a graph input (overridable default, same values as
                      W1), and an initializer G that is itself a graph output
                      with a duplicate G2 used elsewhere. Outputs: Y, G.
  dup_encodings.onnx  the same values stored in different TensorProto
                      encodings: float raw_data / float_data, int64 raw_data /
                      int64_data, float16 raw_data / int32_data (bit
                      patterns), double double_data / raw_data, and a string
                      tensor stored twice in string_data.
  dup_mixed.onnx      initializers of every kind in one list (raw_data, one
                      with a doc_string, float_data, a string tensor) and
                      copies of three of them, read by an Add chain.
  if_outer.onnx       If whose two branches each hold a Constant with the same
                      float [4] value C and use the outer-scope initializer M
                      and input X.
  shadow.onnx         main initializers A and B hold the same values, and two
                      subgraphs define their own tensor named A: an If branch
                      with a subgraph initializer A (other values) and a Loop
                      body with a loop-carried input named A. Both subgraphs
                      use A and the outer B, so renaming B to A inside them
                      would capture the wrong value.
  downcast.onnx       int64 Reshape shape and Gather indices, an int64 constant
                      added to an int64 activation, float64 constants (one
                      exactly representable in float32, one not) through
                      Cast(to=FLOAT), and an int64 constant > 2^31 through
                      Cast(to=FLOAT).
  external.onnx       initializers stored as external data across two files,
  external_a.bin      external_a.bin and external_b.bin (offsets 4096-aligned),
  external_b.bin      two of them larger than 4 KiB, with duplicates between
                      and within the files.
  loop_dup.onnx       Loop (trip count is a graph input) whose body holds a
                      Constant equal to the main-graph initializer K.
  nested_if.onnx      If inside If; the same constant in both inner branches,
                      twice in the outer else branch and once in the main graph.
  func_dup.onnx       a model-local function (domain "local") whose body holds
                      two equal Constant nodes.
  downcast_join.onnx  a constant read by Equal beside an int64 input and then
                      by Slice with another constant: neither may narrow.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
OPSET = 13
FLOAT = TensorProto.FLOAT


def rng_values(seed, shape, dtype=np.float32):
    rng = np.random.RandomState(seed)
    return rng.uniform(-1.5, 1.5, size=shape).astype(dtype)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def vi(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def const_node(output, array, name=None):
    return helper.make_node(
        "Constant", [], [output], name=name or ("const_" + output),
        value=numpy_helper.from_array(np.asarray(array), output + "_value"))


def node(op, inputs, outputs, name, **attrs):
    return helper.make_node(op, inputs, outputs, name=name, **attrs)


def make_model(graph):
    model = helper.make_model(
        graph, producer_name="scs4onnx-c-gen_models",
        opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    return model


def save(model, outdir, filename):
    path = os.path.join(outdir, filename)
    # Serialize directly: onnx.save may rewrite external data references.
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    onnx.checker.check_model(path)
    return path


# ---------------------------------------------------------------- dup_basic
def gen_dup_basic(outdir):
    w = rng_values(1, (3, 4))
    s = np.array(1.25, dtype=np.float32)           # shape []
    o = np.array([0.375], dtype=np.float32)        # shape [1]
    g = rng_values(2, (3, 4))
    inits = [
        init("W1", w), init("W2", w.copy()), init("W3", w.copy()),
        init("S", s), init("S2", s.copy()),
        init("O1", o), init("O1b", o.copy()),
        init("D", w.copy()),          # also a graph input below
        init("G", g),                 # directly a graph output
        init("G2", g.copy()),
    ]
    nodes = [
        node("Add", ["X", "W1"], ["t1"], "add_w1"),
        node("Add", ["t1", "W2"], ["t2"], "add_w2"),
        node("Add", ["t2", "W3"], ["t3"], "add_w3"),
        const_node("Cw", w.copy(), name="const_w"),
        node("Add", ["t3", "Cw"], ["t4"], "add_cw"),
        node("Mul", ["t4", "S"], ["t5"], "mul_s"),
        node("Mul", ["t5", "S2"], ["t6"], "mul_s2"),
        node("Add", ["t6", "O1"], ["t7"], "add_o1"),
        node("Mul", ["t7", "O1b"], ["t8"], "mul_o1b"),
        node("Add", ["t8", "D"], ["t9"], "add_d"),
        node("Add", ["t9", "G2"], ["Y"], "add_g2"),
    ]
    graph = helper.make_graph(
        nodes, "dup_basic",
        [vi("X", FLOAT, [2, 3, 4]), vi("D", FLOAT, [3, 4])],
        [vi("Y", FLOAT, [2, 3, 4]), vi("G", FLOAT, [3, 4])],
        initializer=inits)
    return save(make_model(graph), outdir, "dup_basic.onnx")


# ------------------------------------------------------------ dup_encodings
def tensor_raw(name, array, data_type):
    t = TensorProto()
    t.name = name
    t.data_type = data_type
    t.dims.extend(array.shape)
    t.raw_data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return t


def gen_dup_encodings(outdir):
    f = rng_values(3, (4, 4))
    f_raw = tensor_raw("F_raw", f, TensorProto.FLOAT)
    f_typed = TensorProto(name="F_typed", data_type=TensorProto.FLOAT, dims=[4, 4])
    f_typed.float_data.extend(f.ravel().tolist())

    l = np.array([3, -1, 0, 1 << 40, -(1 << 35)], dtype=np.int64)
    l_raw = tensor_raw("L_raw", l, TensorProto.INT64)
    l_typed = TensorProto(name="L_typed", data_type=TensorProto.INT64, dims=[5])
    l_typed.int64_data.extend(int(v) for v in l)

    h = np.array([0.5, -2.0, 65504.0], dtype=np.float16)
    h_raw = tensor_raw("H_raw", h, TensorProto.FLOAT16)
    h_typed = TensorProto(name="H_typed", data_type=TensorProto.FLOAT16, dims=[3])
    # float16 values are stored as their bit patterns in int32_data
    h_typed.int32_data.extend(int(v) for v in h.view(np.uint16))

    d = np.array([[0.1, -3.5], [1e-300, 2.0 ** 60]], dtype=np.float64)
    d_typed = TensorProto(name="Dd_typed", data_type=TensorProto.DOUBLE, dims=[2, 2])
    d_typed.double_data.extend(d.ravel().tolist())
    d_raw = tensor_raw("Dd_raw", d, TensorProto.DOUBLE)

    strs = [b"hello", b"w\xc3\xb6rld"]
    s1 = TensorProto(name="Str1", data_type=TensorProto.STRING, dims=[2])
    s1.string_data.extend(strs)
    s2 = TensorProto(name="Str2", data_type=TensorProto.STRING, dims=[2])
    s2.string_data.extend(strs)

    inits = [f_raw, f_typed, l_raw, l_typed, h_raw, h_typed, d_typed, d_raw, s1, s2]
    nodes = [
        node("Add", ["X", "F_raw"], ["f1"], "add_f_raw"),
        node("Mul", ["f1", "F_typed"], ["Yf"], "mul_f_typed"),
        node("Add", ["I", "L_raw"], ["l1"], "add_l_raw"),
        node("Add", ["l1", "L_typed"], ["Yi"], "add_l_typed"),
        node("Cast", ["H_raw"], ["h_raw_f"], "cast_h_raw", to=FLOAT),
        node("Cast", ["H_typed"], ["h_typed_f"], "cast_h_typed", to=FLOAT),
        node("Add", ["Xh", "h_raw_f"], ["h1"], "add_h_raw"),
        node("Mul", ["h1", "h_typed_f"], ["Yh"], "mul_h_typed"),
        node("Add", ["Xd", "Dd_typed"], ["d1"], "add_d_typed"),
        node("Mul", ["d1", "Dd_raw"], ["Yd"], "mul_d_raw"),
        node("Concat", ["Str1", "Str2"], ["Ys"], "concat_str", axis=0),
    ]
    graph = helper.make_graph(
        nodes, "dup_encodings",
        [vi("X", FLOAT, [4, 4]), vi("I", TensorProto.INT64, [5]),
         vi("Xh", FLOAT, [3]), vi("Xd", TensorProto.DOUBLE, [2, 2])],
        [vi("Yf", FLOAT, [4, 4]), vi("Yi", TensorProto.INT64, [5]),
         vi("Yh", FLOAT, [3]), vi("Yd", TensorProto.DOUBLE, [2, 2]),
         vi("Ys", TensorProto.STRING, [4])],
        initializer=inits)
    return save(make_model(graph), outdir, "dup_encodings.onnx")


# ----------------------------------------------------------------- if_outer
def gen_if_outer(outdir):
    m = rng_values(4, (4,))
    c = np.array([1.5, -0.25, 3.0, 0.125], dtype=np.float32)
    then_g = helper.make_graph(
        [const_node("then_C", c, name="then_const_c"),
         node("Add", ["X", "M"], ["then_xm"], "then_add_xm"),
         node("Add", ["then_xm", "then_C"], ["then_out"], "then_add_c")],
        "then_branch", [], [vi("then_out", FLOAT, [4])])
    else_g = helper.make_graph(
        [const_node("else_C", c.copy(), name="else_const_c"),
         node("Mul", ["X", "M"], ["else_xm"], "else_mul_xm"),
         node("Sub", ["else_xm", "else_C"], ["else_out"], "else_sub_c")],
        "else_branch", [], [vi("else_out", FLOAT, [4])])
    graph = helper.make_graph(
        [node("If", ["cond"], ["Y"], "if_main", then_branch=then_g, else_branch=else_g)],
        "if_outer",
        [vi("X", FLOAT, [4]), vi("cond", TensorProto.BOOL, [])],
        [vi("Y", FLOAT, [4])],
        initializer=[init("M", m)])
    return save(make_model(graph), outdir, "if_outer.onnx")


# ------------------------------------------------------------------- shadow
def gen_shadow(outdir):
    v = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    w = np.array([-10.0, 20.5, 0.25], dtype=np.float32)
    u = np.array([7.0, -0.5, 4.0], dtype=np.float32)

    # If: the then branch has its own initializer named A (values w) and adds
    # the outer B (values v); the else branch uses the outer A and B.
    then_g = helper.make_graph(
        [node("Add", ["A", "B"], ["sh_then_ab"], "sh_then_add_ab"),
         node("Add", ["sh_then_ab", "X"], ["sh_then_out"], "sh_then_add_x")],
        "shadow_then", [], [vi("sh_then_out", FLOAT, [3])],
        initializer=[init("A", w)])
    else_g = helper.make_graph(
        [node("Mul", ["A", "B"], ["sh_else_ab"], "sh_else_mul_ab"),
         node("Sub", ["sh_else_ab", "X"], ["sh_else_out"], "sh_else_sub_x")],
        "shadow_else", [], [vi("sh_else_out", FLOAT, [3])])

    # Loop: the body's loop-carried input is named A (initial value U, then
    # updated), and the body also uses the outer B.
    body = helper.make_graph(
        [node("Identity", ["lp_cond_in"], ["lp_cond_out"], "lp_cond"),
         node("Mul", ["A", "B"], ["lp_ab"], "lp_mul_ab"),
         node("Add", ["lp_ab", "B"], ["lp_next"], "lp_add_b")],
        "shadow_loop_body",
        [vi("lp_iter", TensorProto.INT64, []), vi("lp_cond_in", TensorProto.BOOL, []),
         vi("A", FLOAT, [3])],
        [vi("lp_cond_out", TensorProto.BOOL, []), vi("lp_next", FLOAT, [3])])

    nodes = [
        node("If", ["cond"], ["Yif"], "sh_if", then_branch=then_g, else_branch=else_g),
        node("Loop", ["trip", "", "U"], ["Yloop"], "sh_loop", body=body),
        node("Add", ["X", "A"], ["x_a"], "main_add_a"),
        node("Mul", ["x_a", "B"], ["Ymain"], "main_mul_b"),
    ]
    graph = helper.make_graph(
        nodes, "shadow",
        [vi("X", FLOAT, [3]), vi("cond", TensorProto.BOOL, []),
         vi("trip", TensorProto.INT64, [])],
        [vi("Yif", FLOAT, [3]), vi("Yloop", FLOAT, [3]), vi("Ymain", FLOAT, [3])],
        initializer=[init("A", v), init("B", v.copy()), init("U", u)])
    return save(make_model(graph), outdir, "shadow.onnx")


# ----------------------------------------------------------------- downcast
def gen_downcast(outdir):
    inits = [
        init("shape34", np.array([3, 4], dtype=np.int64)),
        init("gidx", np.array([0, 1], dtype=np.int64)),
        init("iadd", np.array([5, -7], dtype=np.int64)),
        init("f64_exact", np.array([0.5, -1.25, 3.0], dtype=np.float64)),
        init("f64_inexact", np.array([0.1, 1.0 / 3.0], dtype=np.float64)),
        init("i64_big", np.array([(1 << 31) + 5, 3], dtype=np.int64)),
        init("f64_cast", np.array([0.5, 2.0], dtype=np.float64)),
    ]
    # IsNaN, IsInf and ArgMax give booleans and indices, whatever the precision
    # of their input; Cast's output type comes from an attribute, not a type
    # variable, so its input stays as it is.
    nodes = [
        node("Reshape", ["X", "shape34"], ["Yreshape"], "reshape"),
        node("Gather", ["X", "gidx"], ["Ygather"], "gather", axis=0),
        node("Add", ["I", "iadd"], ["Yint"], "add_int"),
        node("IsNaN", ["f64_exact"], ["Ynan_exact"], "isnan_exact"),
        node("IsInf", ["f64_inexact"], ["Yinf_inexact"], "isinf_inexact"),
        node("ArgMax", ["i64_big"], ["Yargmax_big"], "argmax_big", axis=0),
        node("Cast", ["f64_cast"], ["Ycast"], "cast", to=FLOAT),
    ]
    graph = helper.make_graph(
        nodes, "downcast",
        [vi("X", FLOAT, [2, 6]), vi("I", TensorProto.INT64, [2])],
        [vi("Yreshape", FLOAT, [3, 4]), vi("Ygather", FLOAT, [2, 6]),
         vi("Yint", TensorProto.INT64, [2]), vi("Ynan_exact", TensorProto.BOOL, [3]),
         vi("Yinf_inexact", TensorProto.BOOL, [2]), vi("Yargmax_big", TensorProto.INT64, [1]),
         vi("Ycast", FLOAT, [2])],
        initializer=inits)
    return save(make_model(graph), outdir, "downcast.onnx")


# ----------------------------------------------------------------- external
def set_external(tensor, location, offset):
    """Move tensor's raw_data into the data file image `files[location]`."""
    data = tensor.raw_data
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    del tensor.external_data[:]
    for key, value in (("location", location), ("offset", str(offset)),
                       ("length", str(len(data)))):
        entry = tensor.external_data.add()
        entry.key = key
        entry.value = value
    return data


def gen_external(outdir):
    big = rng_values(5, (40, 40))           # 6400 bytes
    small = rng_values(6, (8,))
    other = rng_values(7, (40, 40))         # 6400 bytes, distinct values
    tensors = {
        "E1": init("E1", big),              # external_a.bin
        "E2": init("E2", big.copy()),       # external_b.bin (dup of E1)
        "E3": init("E3", small),            # external_a.bin
        "E4": init("E4", small.copy()),     # external_b.bin (dup of E3)
        "E5": init("E5", other),            # external_b.bin
        "E6": init("E6", small.copy()),     # external_a.bin (dup of E3, same file)
        "E7": init("E7", small.copy()),     # stays inline (dup of E3)
    }
    layout = {"external_a.bin": ["E1", "E3", "E6"],
              "external_b.bin": ["E2", "E4", "E5"]}
    for location, names in layout.items():
        image = bytearray()
        for name in names:
            offset = (len(image) + 4095) // 4096 * 4096
            image.extend(b"\0" * (offset - len(image)))
            image.extend(set_external(tensors[name], location, offset))
        with open(os.path.join(outdir, location), "wb") as fh:
            fh.write(bytes(image))
    nodes = [
        node("Add", ["X", "E1"], ["e1"], "add_e1"),
        node("Mul", ["e1", "E2"], ["e2"], "mul_e2"),
        node("Add", ["e2", "E5"], ["Y"], "add_e5"),
        node("Add", ["Xs", "E3"], ["e3"], "add_e3"),
        node("Mul", ["e3", "E4"], ["e4"], "mul_e4"),
        node("Add", ["e4", "E6"], ["e6"], "add_e6"),
        node("Sub", ["e6", "E7"], ["Z"], "sub_e7"),
    ]
    graph = helper.make_graph(
        nodes, "external",
        [vi("X", FLOAT, [40, 40]), vi("Xs", FLOAT, [8])],
        [vi("Y", FLOAT, [40, 40]), vi("Z", FLOAT, [8])],
        initializer=list(tensors.values()))
    # save() checks by path, so the checker also verifies the data files.
    return save(make_model(graph), outdir, "external.onnx")


# ----------------------------------------------------------------- loop_dup
def gen_loop_dup(outdir):
    k = np.array([0.5, -1.0, 2.25], dtype=np.float32)
    body = helper.make_graph(
        [node("Identity", ["ld_cond_in"], ["ld_cond_out"], "ld_cond"),
         const_node("ld_K", k.copy(), name="ld_const_k"),
         node("Add", ["ld_v", "ld_K"], ["ld_v_next"], "ld_add_k")],
        "loop_dup_body",
        [vi("ld_iter", TensorProto.INT64, []), vi("ld_cond_in", TensorProto.BOOL, []),
         vi("ld_v", FLOAT, [3])],
        [vi("ld_cond_out", TensorProto.BOOL, []), vi("ld_v_next", FLOAT, [3])])
    nodes = [
        node("Loop", ["N", "", "X"], ["loop_out"], "loop", body=body),
        node("Mul", ["loop_out", "K"], ["Y"], "mul_k"),
    ]
    graph = helper.make_graph(
        nodes, "loop_dup",
        [vi("N", TensorProto.INT64, []), vi("X", FLOAT, [3])],
        [vi("Y", FLOAT, [3])],
        initializer=[init("K", k)])
    return save(make_model(graph), outdir, "loop_dup.onnx")


# ---------------------------------------------------------------- nested_if
def gen_nested_if(outdir):
    p = np.array([2.0, -0.5, 0.75, 8.0], dtype=np.float32)
    inner_then = helper.make_graph(
        [const_node("in_then_P", p.copy(), name="in_then_const_p"),
         node("Add", ["X", "in_then_P"], ["in_then_out"], "in_then_add")],
        "inner_then", [], [vi("in_then_out", FLOAT, [4])])
    inner_else = helper.make_graph(
        [const_node("in_else_P", p.copy(), name="in_else_const_p"),
         node("Sub", ["X", "in_else_P"], ["in_else_out"], "in_else_sub")],
        "inner_else", [], [vi("in_else_out", FLOAT, [4])])
    outer_then = helper.make_graph(
        [node("If", ["c2"], ["out_then_out"], "inner_if",
              then_branch=inner_then, else_branch=inner_else)],
        "outer_then", [], [vi("out_then_out", FLOAT, [4])])
    outer_else = helper.make_graph(
        [const_node("out_else_P", p.copy(), name="out_else_const_p"),
         const_node("out_else_Q", p.copy(), name="out_else_const_q"),
         node("Mul", ["X", "out_else_P"], ["out_else_xp"], "out_else_mul"),
         node("Add", ["out_else_xp", "out_else_Q"], ["out_else_out"], "out_else_add")],
        "outer_else", [], [vi("out_else_out", FLOAT, [4])])
    nodes = [
        node("If", ["c1"], ["if_out"], "outer_if",
             then_branch=outer_then, else_branch=outer_else),
        node("Add", ["if_out", "P0"], ["Y"], "add_p0"),
    ]
    graph = helper.make_graph(
        nodes, "nested_if",
        [vi("X", FLOAT, [4]), vi("c1", TensorProto.BOOL, []), vi("c2", TensorProto.BOOL, [])],
        [vi("Y", FLOAT, [4])],
        initializer=[init("P0", p)])
    return save(make_model(graph), outdir, "nested_if.onnx")


# ------------------------------------------------------------ func_dup
def gen_func_dup(outdir):
    k = rng_values(31, [4])
    fn = helper.make_function(
        "local", "AddTwice", ["x"], ["y"],
        [const_node("fk1", k), const_node("fk2", k.copy()),
         node("Add", ["x", "fk1"], ["ft"], "f_add1"),
         node("Add", ["ft", "fk2"], ["y"], "f_add2")],
        [helper.make_opsetid("", OPSET)])
    graph = helper.make_graph(
        [node("AddTwice", ["X"], ["Y"], "call", domain="local")], "func_dup",
        [vi("X", FLOAT, [4])], [vi("Y", FLOAT, [4])])
    model = helper.make_model(
        graph, producer_name="scs4onnx-c-gen_models", functions=[fn],
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("local", 1)])
    model.ir_version = IR_VERSION
    return save(model, outdir, "func_dup.onnx")


# ---------------------------------------------------------- downcast_join
def gen_downcast_join(outdir):
    """`one` is read by Equal beside an int64 activation (so it must stay
    int64) and, after that, by Slice together with `zero`: the refusal must
    reach every constant the Slice joins with it."""
    inits = [init("one", np.array([1], dtype=np.int64)),
             init("zero", np.array([0], dtype=np.int64))]
    nodes = [node("Equal", ["t", "one"], ["e"], "equal"),
             node("Slice", ["x", "zero", "one", "one"], ["y"], "slice")]
    graph = helper.make_graph(
        nodes, "downcast_join",
        [vi("t", TensorProto.INT64, [1]), vi("x", FLOAT, [2, 4])],
        [vi("e", TensorProto.BOOL, [1]), vi("y", FLOAT, [2, 1])],
        initializer=inits)
    return save(make_model(graph), outdir, "downcast_join.onnx")


# ---------------------------------------------------------------- dup_mixed
def gen_dup_mixed(outdir):
    """Initializers of every kind in one list: plain ones (raw_data), one
    with a doc_string, one in float_data, a string tensor, and copies of
    plain and documented ones; each but the strings read by a node. Dedup must keep the
    survivors in their order with every field they had."""
    a = rng_values(11, (2, 3))
    b = rng_values(12, (2, 3))
    c = rng_values(13, (2, 3))
    doc = init("B_doc", b)
    doc.doc_string = "documented"
    typed = helper.make_tensor("C_typed", FLOAT, [2, 3], c.flatten().tolist())
    inits = [init("A", a), doc, typed,
             helper.make_tensor("S_str", TensorProto.STRING, [2], [b"x", b"yz"]),
             init("A2", a.copy()), init("B2", b.copy()), init("C2", c.copy()),
             init("E", rng_values(14, (2, 3)))]
    nodes = [node("Add", ["X", "A"], ["t1"], "add_a"),
             node("Add", ["t1", "B_doc"], ["t2"], "add_b"),
             node("Add", ["t2", "C_typed"], ["t3"], "add_c"),
             node("Add", ["t3", "A2"], ["t4"], "add_a2"),
             node("Add", ["t4", "B2"], ["t5"], "add_b2"),
             node("Add", ["t5", "C2"], ["t6"], "add_c2"),
             node("Add", ["t6", "E"], ["Y"], "add_e")]
    graph = helper.make_graph(
        nodes, "dup_mixed", [vi("X", FLOAT, [2, 3])], [vi("Y", FLOAT, [2, 3])],
        initializer=inits)
    return save(make_model(graph), outdir, "dup_mixed.onnx")


GENERATORS = [gen_dup_basic, gen_dup_encodings, gen_if_outer, gen_shadow,
              gen_downcast, gen_external, gen_loop_dup, gen_nested_if, gen_func_dup,
              gen_downcast_join, gen_dup_mixed]


def main(argv, generators=None, prog="gen_models"):
    """Write the models of @generators (these of this file when None) to argv[1]."""
    if len(argv) != 2 or argv[1].startswith("-"):
        sys.stderr.write("usage: %s.py OUTDIR\n" % prog)
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    for gen in generators or GENERATORS:
        path = gen(outdir)
        print("%s: wrote %s" % (prog, path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
