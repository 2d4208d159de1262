#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the check suite (tests/test_check.c).

Usage:
    /usr/bin/python3 gen_check_models.py OUTDIR

Needs python3-onnx and python3-numpy. The output is deterministic. Each
ck_bad_*.onnx breaks one rule of the ONNX checker, and onnx.checker refuses
it (asserted here and again by the suite); each ck_ok_*.onnx passes it.

Broken on purpose (the rule scs4onnx-check names):

  ck_bad_unsorted       order: a Relu reads what a later Add makes
  ck_bad_twice          ssa: two nodes make 't'
  ck_bad_missing        order: an Add reads a name nothing makes
  ck_bad_unknown_op     operator: Foo in the default domain
  ck_bad_no_domain      operator: a node of a domain the model does not import
  ck_bad_deprecated     operator: Upsample at opset 13 (deprecated since 10)
  ck_bad_attr_type      attribute: LeakyRelu's alpha as an int
  ck_bad_attr_required  attribute: Cast without 'to'
  ck_bad_attr_unknown   attribute: Add with 'foo'
  ck_bad_attr_twice     attribute: Transpose with 'perm' twice
  ck_bad_too_many       arity: Add of three inputs
  ck_bad_required_empty arity: Add whose second input is ""
  ck_bad_body_later     order: an If branch reads a name its graph makes after the If
  ck_bad_body_shadow    ssa: a Loop body makes a name its graph made already
  ck_bad_ir3_init       tensor: IR 3, an initializer that is no graph input
  ck_bad_no_data        tensor: an initializer of dims [2] and no data
  ck_bad_no_dtype       tensor: an initializer of strings with no data type
  ck_bad_string_raw     tensor: a string tensor in raw_data
  ck_bad_dims_payload   tensor: raw_data of 12 bytes for dims [2, 2] float (*)
  ck_bad_typed_payload  tensor: int64_data of 3 values for dims [4] (*)
  ck_bad_ext_offset     external-data: offset and length past the end of the file (*)

(*) stricter than onnx.checker, which passes these (the man page says so).
  ck_bad_no_opset       model: IR 8 and no opset import
  ck_bad_no_ir          model: no ir_version
  ck_bad_metadata       model: a metadata key twice
  ck_bad_input_shape    value-info: a main graph input with no shape
  ck_bad_graph_name     value-info: a graph with no name
  ck_bad_sparse_order   sparse: indices not increasing
  ck_bad_func_order     order: a function body reads what it makes later
  ck_bad_func_outputs   function: a function lists an output twice
  ck_bad_ai_onnx_domain operator: a Relu of domain 'ai.onnx' (onnx.checker finds no schema)

ck_lenient_future_op.onnx: an unknown operator in opset 99 of the default
domain, which we do not refuse (our schemas end before it); onnx.checker does.

Valid, but refused by onnx.checker's full check and by --full (rule infer):

  ck_full_out_type      an Add of floats whose graph output is declared int64
  ck_full_out_rank      a Relu of [2, 2] declared [2, 2, 1]
  ck_full_out_dim       a Relu of [2, 2] declared [2, 3]
  ck_full_in_types      an Add of a float and an int64
  ck_full_axis          a Concat of [2, 2] on axis 2
  ck_full_axes_input    an Unsqueeze (13) of [2, 2] by constant axes [5] (raw_data)
  ck_full_axes_typed    a ReduceSum (13) of [2, 2] by axes [2] in int64_data
  ck_full_axes_node     a Slice of [2, 2] by axes [5] of a Constant node
  ck_full_perm          a Transpose of [2, 2] by perm [0, 2]
  ck_full_squeeze       a Squeeze of axis 0 of [2, 2] (not 1)
  ck_full_broadcast     an Add of [2, 2] and [3]
  ck_full_broadcast3    a Where of bool [3], [2, 2] and [2]
  ck_full_legacy_add    opset 6: Add(c [2], x [2, 2], broadcast=1) declared [2, 2]
  ck_full_matmul        a MatMul of [2, 2] and [3, 2]
  ck_full_gemm_rank     a Gemm of [2, 2] and [2, 2, 2]
  ck_full_conv_rank     a Conv of [1, 2, 4, 4] by weights [3, 2, 3], declared of rank 4
  ck_full_pool_kernel   a MaxPool of [1, 2, 4, 4] with a kernel_shape of 3 dims
  ck_full_conv_low      a Conv of [4] by weights [3]
  ck_full_reshape       a Reshape of [2, 2] to [-1, -1]
  ck_full_untyped       opset 1: Pad, Relu, then Conv (Pad-1's output has no type)
  ck_full_concat_dims   a Concat on axis 0 of [2, 2] and [2, 3]
  ck_full_split_sum     a Split of [2, 2] on axis 0 into constant sizes [1, 2]
  ck_full_expand        an Expand of [2, 2] to [3, 3]
  ck_full_tile          a Tile of [2, 2] by constant repeats [3]
  ck_full_pad_count     a Pad (13) of [2, 2] by two pads
  ck_full_topk_axis     a TopK of [2, 2] on axis 2
  ck_full_depth_rank    a DepthToSpace of [2, 2]

Valid for both full checks, the near twins of the ones above:

  ck_fullok_axis        Concat of [2, 2] on axis -2, Unsqueeze by axes [-3]
  ck_fullok_broadcast   Add of [2, 2] and [1, 2]; of ["n", "m"] and [3]
  ck_fullok_legacy_add  opset 6: Add(x [2, 2], c [2], broadcast=1) declared [2, 2]
  ck_fullok_old_axes    opset 10: ReduceMean by axes [2], ArgMax on axis 2,
                        Unsqueeze by axes [3] of [2, 2] (ONNX's rules do not
                        look before 11)
  ck_fullok_conv_rank   a Conv of [1, 2, 4, 4] by weights [3, 2, 3], declared of rank 3
  ck_fullok_symbolic    MatMul of ["n", "k"] and [3, 2]; Gemm, Reshape to [-1, 4]
  ck_fullok_shapes      the twins of concat_dims ... depth_rank: symbolic dims,
                        sizes that add up, negative axes, ranks that fit
  ck_fullok_untyped     opset 1: Pad declared in value_info, then Conv; Pad, Relu
                        as a graph output

Valid (both checkers pass them):

  ck_ok_nested          a Loop whose body holds an If whose branches read
                        names of both graphs around them
  ck_ok_function        a model-local function called from the main graph
  ck_ok_qdq             QuantizeLinear / DequantizeLinear around a Conv
  ck_ok_typed           initializers in float_data, int64_data, int32_data
                        (float16) and raw_data, a string tensor
  ck_ok_external        two initializers in one external data file
  ck_ok_sparse          a sparse initializer (linear and coordinate indices)
  ck_ok_ir3             IR 3, initializers listed as graph inputs
  ck_ok_optional        Clip and Resize with "" for optional inputs, '__' attributes
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import init, node, vi  # noqa: E402

FLOAT = TensorProto.FLOAT
X = vi("x", FLOAT, [2, 2])
Y = vi("y", FLOAT, [2, 2])
# y's shape as the graph's output: y may then have any shape
YS = [vi("ys", TensorProto.INT64, ["r"])]


# rules we apply where onnx.checker does not look (it passes these)
STRICTER = ("dims_payload", "typed_payload")


def model(nodes, inits=(), inputs=(X,), outputs=(Y,), ir=8, opset=13, name="g", opset_imports=None, **kw):
    if outputs is YS:
        nodes = list(nodes) + [node("Shape", ["y"], ["ys"], "shape")]
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs), list(inits))
    if opset_imports is None:
        opset_imports = [helper.make_opsetid("", opset)] if opset else []
    m = helper.make_model(graph, producer_name="scs4onnx-c-gen_check_models", opset_imports=opset_imports, **kw)
    m.ir_version = ir
    return m


def w(name="w", values=None):
    return init(name, np.ones((2, 2), np.float32) if values is None else values)


def write(m, outdir, filename, valid):
    path = os.path.join(outdir, filename)
    with open(path, "wb") as fh:
        fh.write(m.SerializeToString())
    try:
        onnx.checker.check_model(path)
        passed = True
    except Exception:  # noqa: BLE001 (the checker raises several kinds)
        passed = False
    if passed != valid:
        raise SystemExit("%s: onnx.checker %s it" % (filename, "passes" if passed else "refuses"))
    return path


def add(outputs=("y",), inputs=("x", "w"), name="add"):
    return node("Add", list(inputs), list(outputs), name)


def branch(name, nodes, outputs):
    return helper.make_graph(nodes, name, [], outputs)


def bad_models():
    out = {}
    out["unsorted"] = model([node("Relu", ["t"], ["y"], "relu"), add(["t"])], [w()])
    out["twice"] = model([add(["t"]), node("Relu", ["t"], ["t"], "relu"), node("Relu", ["t"], ["y"], "relu2")], [w()])
    out["missing"] = model([add(inputs=["x", "q"])], [w()])
    out["unknown_op"] = model([node("Foo", ["x"], ["y"], "foo")])
    out["no_domain"] = model([helper.make_node("Bar", ["x"], ["y"], name="bar", domain="com.example")])
    out["deprecated"] = model([node("Upsample", ["x", "s"], ["y"], "up")],
                              [init("s", np.array([1, 1], np.float32))])
    lr = node("LeakyRelu", ["x"], ["y"], "lrelu")
    lr.attribute.extend([helper.make_attribute("alpha", 1)])
    out["attr_type"] = model([lr])
    out["attr_required"] = model([node("Cast", ["x"], ["y"], "cast")])
    out["attr_unknown"] = model([node("Add", ["x", "w"], ["y"], "add", foo=1)], [w()])
    tr = node("Transpose", ["x"], ["y"], "tr", perm=[1, 0])
    tr.attribute.extend([helper.make_attribute("perm", [0, 1])])
    out["attr_twice"] = model([tr])
    out["too_many"] = model([node("Add", ["x", "w", "x"], ["y"], "add")], [w()])
    out["required_empty"] = model([node("Add", ["x", ""], ["y"], "add")])
    cond = init("c", np.array(True))
    then_g = branch("then", [node("Identity", ["later"], ["o"], "then_id")], [vi("o", FLOAT, [2, 2])])
    else_g = branch("else", [node("Identity", ["x"], ["o2"], "else_id")], [vi("o2", FLOAT, [2, 2])])
    out["body_later"] = model([node("If", ["c"], ["i"], "if", then_branch=then_g, else_branch=else_g),
                               node("Relu", ["x"], ["later"], "relu"), node("Add", ["i", "later"], ["y"], "add")],
                              [cond])
    body = helper.make_graph(
        [node("Identity", ["cin"], ["cout"], "b_c"), node("Identity", ["x"], ["t"], "b_t")], "body",
        [vi("it", TensorProto.INT64, []), vi("cin", TensorProto.BOOL, [])],
        [vi("cout", TensorProto.BOOL, []), vi("t", FLOAT, [2, 2])])
    out["body_shadow"] = model([node("Relu", ["x"], ["t"], "relu"),
                                node("Loop", ["n", ""], ["y"], "loop", body=body)],
                               [init("n", np.array(2, np.int64))], outputs=[vi("y", FLOAT, [2, 2, 2])])
    out["ir3_init"] = model([add()], [w()], ir=3, opset=8)
    nd = TensorProto()
    nd.name, nd.data_type = "w", FLOAT
    nd.dims.extend([2])
    out["no_data"] = model([node("Add", ["x", "w"], ["y"], "add")], [nd])
    ns = helper.make_tensor("w", TensorProto.STRING, [1], [b"a"])
    ns.ClearField("data_type")
    out["no_dtype"] = model([node("Identity", ["x"], ["y"], "id")], [ns])
    sr = TensorProto()
    sr.name, sr.data_type, sr.raw_data = "s", TensorProto.STRING, b"ab"
    sr.dims.extend([1])
    out["string_raw"] = model([node("Identity", ["x"], ["y"], "id")], [sr])
    dp = TensorProto()
    dp.name, dp.data_type, dp.raw_data = "w", FLOAT, bytes(12)
    dp.dims.extend([2, 2])
    out["dims_payload"] = model([add()], [dp])
    tp = helper.make_tensor("k", TensorProto.INT64, [4], [1, 2, 3, 4])
    del tp.int64_data[3:]
    out["typed_payload"] = model([node("Identity", ["x"], ["y"], "id")], [tp])
    out["no_opset"] = model([add()], [w()], opset=0)
    out["no_ir"] = model([add()], [w()], ir=0)
    md = model([add()], [w()])
    for k, v in (("a", "1"), ("a", "2")):
        e = md.metadata_props.add()
        e.key, e.value = k, v
    out["metadata"] = md
    out["input_shape"] = model([add()], [w()], inputs=[helper.make_tensor_value_info("x", FLOAT, None)])
    out["graph_name"] = model([add()], [w()], name="")
    vals = numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "sp")
    idx = numpy_helper.from_array(np.array([3, 1], np.int64), "sp_idx")
    sp = helper.make_sparse_tensor(vals, idx, [2, 2])
    m = model([node("Add", ["x", "sp"], ["y"], "add")])
    m.graph.sparse_initializer.extend([sp])
    out["sparse_order"] = m
    out["func_order"] = function_model([node("Relu", ["t"], ["b"], "f_relu"), node("Neg", ["a"], ["t"], "f_neg")],
                                       ["b"])
    out["ai_onnx_domain"] = model([helper.make_node("Relu", ["x"], ["y"], name="relu", domain="ai.onnx")],
                                  opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx", 13)])
    out["func_outputs"] = function_model([node("Neg", ["a"], ["b"], "f_neg")], ["b", "b"])
    return out


def function_model(body, outputs):
    f = helper.make_function("local", "f", ["a"], outputs, body, [helper.make_opsetid("", 13)])
    call = helper.make_node("f", ["x"], outputs[:1], name="call", domain="local")
    graph = helper.make_graph([call], "g", [X], [vi(outputs[0], FLOAT, [2, 2])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)],
                          functions=[f])
    m.ir_version = 8
    return m


def ok_models(outdir):
    out = {}
    # Loop body holding an If whose branches read the body's and the main graph's names
    then_g = branch("then", [node("Add", ["acc", "w"], ["o"], "then_add")], [vi("o", FLOAT, [2, 2])])
    else_g = branch("else", [node("Sub", ["acc", "x"], ["o2"], "else_sub")], [vi("o2", FLOAT, [2, 2])])
    body = helper.make_graph(
        [node("Identity", ["cin"], ["cout"], "b_c"), node("Identity", ["cin"], ["c2"], "b_c2"),
         node("If", ["c2"], ["acc2"], "b_if", then_branch=then_g, else_branch=else_g)], "body",
        [vi("it", TensorProto.INT64, []), vi("cin", TensorProto.BOOL, []), vi("acc", FLOAT, [2, 2])],
        [vi("cout", TensorProto.BOOL, []), vi("acc2", FLOAT, [2, 2])])
    out["nested"] = model([node("Loop", ["n", "t", "x"], ["y"], "loop", body=body)],
                          [w(), init("n", np.array(3, np.int64)), init("t", np.array(True))])
    out["function"] = function_model([node("Neg", ["a"], ["b"], "f_neg")], ["b"])
    out["qdq"] = model([
        node("QuantizeLinear", ["x4", "s", "z"], ["q"], "q"),
        node("DequantizeLinear", ["q", "s", "z"], ["dq"], "dq"),
        node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], "wdq"),
        node("Conv", ["dq", "wd"], ["y4"], "conv")],
        [init("s", np.array(0.1, np.float32)), init("z", np.array(0, np.uint8)),
         init("wq", np.ones((1, 1, 1, 1), np.uint8)), init("ws", np.array(0.5, np.float32)),
         init("wz", np.array(0, np.uint8))],
        inputs=[vi("x4", FLOAT, [1, 1, 2, 2])], outputs=[vi("y4", FLOAT, [1, 1, 2, 2])])
    f16 = helper.make_tensor("h", TensorProto.FLOAT16, [2], np.array([1, 2], np.float16).view(np.uint16).tolist())
    out["typed"] = model([
        node("Add", ["x", "wf"], ["a"], "add"), node("Cast", ["a"], ["b"], "cast", to=TensorProto.FLOAT16),
        node("Add", ["b", "h"], ["c"], "add2"), node("Cast", ["c"], ["d"], "cast2", to=FLOAT),
        node("Reshape", ["d", "k"], ["y"], "reshape")],
        [helper.make_tensor("wf", FLOAT, [2, 2], [1.0, 2.0, 3.0, 4.0]),
         helper.make_tensor("k", TensorProto.INT64, [2], [2, 2]), f16,
         helper.make_tensor("names", TensorProto.STRING, [2], [b"a", b"b"])])
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    b = np.arange(4, 8, dtype=np.float32).reshape(2, 2)
    ta, tb = init("ea", a), init("eb", b)
    blob = b""
    for t in (ta, tb):
        data = t.raw_data
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "ck_ok_external.bin"), ("offset", str(len(blob))), ("length", str(len(data)))):
            e = t.external_data.add()
            e.key, e.value = k, v
        blob += data
    with open(os.path.join(outdir, "ck_ok_external.bin"), "wb") as fh:
        fh.write(blob)
    out["external"] = model([node("Add", ["x", "ea"], ["s"], "add"), node("Add", ["s", "eb"], ["y"], "add2")],
                            [ta, tb])
    vals = numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "sp")
    idx = numpy_helper.from_array(np.array([1, 3], np.int64), "sp_idx")
    vals2 = numpy_helper.from_array(np.array([5.0], np.float32), "sp2")
    idx2 = numpy_helper.from_array(np.array([[1, 0]], np.int64), "sp2_idx")
    m = model([node("Add", ["x", "sp"], ["s"], "add"), node("Add", ["s", "sp2"], ["y"], "add2")])
    m.graph.sparse_initializer.extend([helper.make_sparse_tensor(vals, idx, [2, 2]),
                                       helper.make_sparse_tensor(vals2, idx2, [2, 2])])
    out["sparse"] = m
    out["ir3"] = model([add()], [w()], inputs=[X, vi("w", FLOAT, [2, 2])], ir=3, opset=8)
    clip = node("Clip", ["x", "", "hi"], ["c"], "clip")
    clip.attribute.extend([helper.make_attribute("__hint", 1)])
    out["optional"] = model([clip, node("Resize", ["c", "", "sc"], ["y"], "resize")],
                            [init("hi", np.array(1.0, np.float32)), init("sc", np.ones(2, np.float32))])
    # the external data file stays beside the model
    out["external"].graph.initializer[0].external_data[0].value = "ck_ok_external.bin"
    return out


def full_models():
    """Valid for onnx.checker, refused by its full_check (and by --full)."""
    out = {}
    out["out_type"] = model([add()], [w()], outputs=[vi("y", TensorProto.INT64, [2, 2])])
    out["out_rank"] = model([node("Relu", ["x"], ["y"], "relu")], outputs=[vi("y", FLOAT, [2, 2, 1])])
    out["out_dim"] = model([node("Relu", ["x"], ["y"], "relu")], outputs=[vi("y", FLOAT, [2, 3])])
    out["in_types"] = model([add()], [init("w", np.ones((2, 2), np.int64))])
    # the rules ONNX's inference applies where ranks and dims are known (ys: y's shape, of any length)
    y4 = [vi("y", FLOAT, ["a", "b", "c", "d"])]
    x4 = [vi("x", FLOAT, [1, 2, 4, 4])]
    out["axis"] = model([node("Concat", ["x", "x"], ["y"], "cat", axis=2)], outputs=YS)
    out["axes_input"] = model([node("Unsqueeze", ["x", "ax"], ["y"], "unsq")], [init("ax", np.array([5], np.int64))],
                              outputs=YS)
    out["axes_typed"] = model([node("ReduceSum", ["x", "ax"], ["y"], "sum")],
                              [helper.make_tensor("ax", TensorProto.INT64, [1], [2])], outputs=YS)
    out["axes_node"] = model([
        node("Constant", [], ["ax"], "ax", value=helper.make_tensor("v", TensorProto.INT64, [1], [5])),
        node("Slice", ["x", "st", "en", "ax"], ["y"], "slice")],
        [init("st", np.array([0], np.int64)), init("en", np.array([1], np.int64))], outputs=YS)
    out["perm"] = model([node("Transpose", ["x"], ["y"], "tr", perm=[0, 2])], outputs=YS)
    out["squeeze"] = model([node("Squeeze", ["x", "ax"], ["y"], "sq")], [init("ax", np.array([0], np.int64))],
                           outputs=YS)
    out["broadcast"] = model([add()], [init("w", np.ones(3, np.float32))], outputs=YS)
    out["broadcast3"] = model([node("Where", ["c", "x", "w"], ["y"], "where")],
                              [init("c", np.ones(3, bool)), init("w", np.ones(2, np.float32))], outputs=YS)
    out["legacy_add"] = model([node("Add", ["c", "x"], ["y"], "add", broadcast=1)],
                              [init("c", np.ones(2, np.float32))], opset=6, ir=3,
                              inputs=[X, vi("c", FLOAT, [2])])
    out["matmul"] = model([node("MatMul", ["x", "w"], ["y"], "mm")], [init("w", np.ones((3, 2), np.float32))],
                          outputs=YS)
    out["gemm_rank"] = model([node("Gemm", ["x", "w"], ["y"], "gemm")],
                             [init("w", np.ones((2, 2, 2), np.float32))], outputs=YS)
    out["conv_rank"] = model([node("Conv", ["x", "w"], ["y"], "conv")], [init("w", np.ones((3, 2, 3), np.float32))],
                             inputs=x4, outputs=y4)
    out["pool_kernel"] = model([node("MaxPool", ["x"], ["y"], "pool", kernel_shape=[2, 2, 2])], inputs=x4,
                               outputs=y4)
    out["conv_low"] = model([node("Conv", ["x", "w"], ["y"], "conv")], [init("w", np.ones(3, np.float32))],
                            inputs=[vi("x", FLOAT, [4])], outputs=YS)
    out["reshape"] = model([node("Reshape", ["x", "s"], ["y"], "reshape")], [init("s", np.array([-1, -1], np.int64))],
                           outputs=YS)
    out["untyped"] = model([
        node("Pad", ["x"], ["p"], "pad", paddings=[0] * 8), node("Relu", ["p"], ["r"], "relu"),
        node("Conv", ["r", "w"], ["y"], "conv")], [init("w", np.ones((3, 2, 1, 1), np.float32))],
        inputs=x4, outputs=[vi("y", FLOAT, [1, 3, 4, 4])], opset=1)
    out["concat_dims"] = model([node("Concat", ["x", "w"], ["y"], "cat", axis=0)],
                               [init("w", np.ones((2, 3), np.float32))], outputs=YS)
    out["split_sum"] = model([node("Split", ["x", "s"], ["y", "z"], "split", axis=0)],
                             [init("s", np.array([1, 2], np.int64))], outputs=YS)
    out["expand"] = model([node("Expand", ["x", "s"], ["y"], "expand")], [init("s", np.array([3, 3], np.int64))],
                          outputs=YS)
    out["tile"] = model([node("Tile", ["x", "s"], ["y"], "tile")], [init("s", np.array([3], np.int64))], outputs=YS)
    out["pad_count"] = model([node("Pad", ["x", "p"], ["y"], "pad")], [init("p", np.array([1, 1], np.int64))],
                             outputs=YS)
    out["topk_axis"] = model([node("TopK", ["x", "k"], ["y", "i"], "topk", axis=2)],
                             [init("k", np.array([1], np.int64))], outputs=YS)
    out["depth_rank"] = model([node("DepthToSpace", ["x"], ["y"], "d2s", blocksize=2)], outputs=YS)
    return out


def full_ok_models():
    """The near twins of full_models(): both full checks pass them."""
    out = {}
    x4 = [vi("x", FLOAT, [1, 2, 4, 4])]
    out["axis"] = model([node("Concat", ["x", "x"], ["c"], "cat", axis=-2),
                         node("Unsqueeze", ["c", "ax"], ["y"], "unsq")],
                        [init("ax", np.array([-3], np.int64))], outputs=[vi("y", FLOAT, [1, 4, 2])])
    out["broadcast"] = model([add(("s",)), node("Add", ["n", "v"], ["y"], "add2")],
                             [init("w", np.ones((1, 2), np.float32)), init("v", np.ones(3, np.float32))],
                             inputs=[X, vi("n", FLOAT, ["n", "m"])], outputs=[Y, vi("y", FLOAT, ["n", 3])])
    out["broadcast"].graph.output[0].name = "s"
    out["legacy_add"] = model([node("Add", ["x", "c"], ["y"], "add", broadcast=1)],
                              [init("c", np.ones(2, np.float32))], opset=6, ir=3,
                              inputs=[X, vi("c", FLOAT, [2])])
    out["conv_rank"] = model([node("Conv", ["x", "w"], ["y"], "conv")], [init("w", np.ones((3, 2, 3), np.float32))],
                             inputs=x4, outputs=[vi("y", FLOAT, [1, 3, 2])])
    xn = vi("x", FLOAT, ["n", 2])
    out["shapes"] = model([
        node("Concat", ["x", "n"], ["c"], "cat", axis=0),
        node("Split", ["c", "s"], ["c1", "c2"], "split", axis=-1),
        node("Expand", ["c1", "e"], ["ex"], "expand"),
        node("Tile", ["ex", "t"], ["ti"], "tile"),
        node("Pad", ["ti", "p"], ["pa"], "pad"),
        node("TopK", ["pa", "k"], ["tk", "ti2"], "topk", axis=-2),
        node("DepthToSpace", ["x4"], ["d"], "d2s", blocksize=1),
        node("Shape", ["tk"], ["ys"], "shape")],
        [init("s", np.array([1, 1], np.int64)), init("e", np.array([3, 1, 1], np.int64)),
         init("t", np.array([1, 1, 2], np.int64)), init("p", np.array([0, 0, 0, 0, 0, 0], np.int64)),
         init("k", np.array([1], np.int64))],
        inputs=[vi("x", FLOAT, [2, 2]), xn, vi("x4", FLOAT, [1, 2, 4, 4])],
        outputs=YS + [vi("d", FLOAT, [1, 2, 4, 4])])
    out["shapes"].graph.input[1].name = "n"
    out["old_axes"] = model([node("ReduceMean", ["x"], ["m"], "mean", axes=[2]),
                             node("ArgMax", ["x"], ["a"], "argmax", axis=2),
                             node("Unsqueeze", ["x"], ["u"], "unsq", axes=[3])] +
                            [node("Shape", [v], [v + "s"], "shape_" + v) for v in "mau"], opset=10,
                            outputs=[vi(v + "s", TensorProto.INT64, [v]) for v in "mau"])
    out["symbolic"] = model([node("MatMul", ["a", "w"], ["m"], "mm"), node("Gemm", ["m", "w2"], ["g"], "gemm"),
                             node("Reshape", ["g", "s"], ["y"], "reshape")],
                            [init("w", np.ones((3, 2), np.float32)), init("w2", np.ones((2, 4), np.float32)),
                             init("s", np.array([-1, 4], np.int64))],
                            inputs=[vi("a", FLOAT, ["n", "k"])], outputs=[vi("y", FLOAT, ["n", 4])])
    out["untyped"] = model([
        node("Pad", ["x"], ["p"], "pad", paddings=[0] * 8), node("Conv", ["p", "w"], ["c"], "conv"),
        node("Pad", ["x"], ["q"], "pad2", paddings=[0] * 8), node("Relu", ["q"], ["r"], "relu")],
        [init("w", np.ones((3, 2, 1, 1), np.float32))], inputs=x4,
        outputs=[vi("c", FLOAT, [1, 3, 4, 4]), vi("r", FLOAT, [1, 2, 4, 4])], opset=1)
    out["untyped"].graph.value_info.extend([vi("p", FLOAT, [1, 2, 4, 4])])
    return out


def write_full_ok(m, outdir, filename):
    path = write(m, outdir, filename, True)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    return path


def write_full(m, outdir, filename):
    path = write(m, outdir, filename, True)
    try:
        # the model, not its path: given a path, the full check writes the shapes it infers into the file
        onnx.checker.check_model(onnx.load(path), full_check=True)
    except Exception:  # noqa: BLE001
        return path
    raise SystemExit("%s: onnx.checker's full check passes it" % filename)


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        sys.stderr.write("usage: gen_check_models.py OUTDIR\n")
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    for name, m in sorted(bad_models().items()):
        write(m, outdir, "ck_bad_%s.onnx" % name, name in STRICTER)
    # external data whose offset runs past its file's end (8 bytes of a 16-byte tensor at offset 8)
    t = init("w", np.ones((2, 2), np.float32))
    data = t.raw_data
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "ck_bad_ext_offset.bin"), ("offset", "8"), ("length", "16")):
        e = t.external_data.add()
        e.key, e.value = k, v
    with open(os.path.join(outdir, "ck_bad_ext_offset.bin"), "wb") as fh:
        fh.write(data)
    write(model([add()], [t]), outdir, "ck_bad_ext_offset.onnx", True)
    # an operator this build's schemas do not know, in an opset newer than they know: not refused
    # (onnx.checker 1.12, which knows opset 17, refuses it)
    write(model([node("FutureOp", ["x"], ["y"], "future")], opset=99), outdir, "ck_lenient_future_op.onnx", False)
    for name, m in sorted(full_models().items()):
        write_full(m, outdir, "ck_full_%s.onnx" % name)
    for name, m in sorted(full_ok_models().items()):
        write_full_ok(m, outdir, "ck_fullok_%s.onnx" % name)
    for name, m in sorted(ok_models(outdir).items()):
        write(m, outdir, "ck_ok_%s.onnx" % name, True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
