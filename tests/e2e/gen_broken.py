#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate models broken on purpose, one per rule of onnx.checker (and the
rules issue 25 adds), for tests/test_agree.c through check_agree.py.

Usage:
    /usr/bin/python3 gen_broken.py OUTDIR

Needs python3-onnx and python3-numpy. Every model is ir_version 8 (or the
version its rule is about) and imports opsets the installed onnx knows
(default domain 13 unless the rule needs another), so onnx.checker has a
verdict on each. Each model breaks exactly one rule once, so a checker
names exactly one problem; all else in it is valid (the same graph without
the defect passes onnx.checker). The output is deterministic.

Writes bk_*.onnx, bk_ext.bin (64 bytes, the data file of the external-data
models) and bk_broken.txt, the manifest check_agree.py --expect reads: one
line per model, "FILE RULE ONNX_PLAIN ONNX_FULL DESCRIPTION", RULE the rule
of scs4onnx-check that must name the one problem, ONNX_* the verdict of
onnx.checker.check_model (full_check=False, True): "refuse" or "accept".
RULE "none" marks the bk_ok_* models: valid ones a checker could refuse by
mistake (a graph output nothing makes, untyped body inputs ...), which
onnx.checker accepts and so must scs4onnx-check.
"accept" where onnx.checker has no such rule and issue 25 wants the model
refused (a payload that disagrees with its dims, an external-data offset
past the end of its file).
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
MODELS = []     # (file, rule, onnx plain, onnx full, description)


def vi(name, elem=F, shape=(2,)):
    return helper.make_tensor_value_info(name, elem, list(shape))


def model(nodes, inputs=None, outputs=None, inits=(), opset=13, ir=8, name="g", **kw):
    graph = helper.make_graph(nodes, name, inputs if inputs is not None else [vi("X")],
                              outputs if outputs is not None else [vi("Y")], list(inits))
    imports = kw.pop("imports", None)
    if imports is None:
        imports = [helper.make_opsetid("", opset)]
    m = helper.make_model(graph, opset_imports=imports, producer_name="gen_broken")
    m.ir_version = ir
    for k, v in kw.items():
        getattr(m, k).extend(v)
    return m


def relu(i, o, name=None):
    return helper.make_node("Relu", [i], [o], name=name or o)


def w(name="W", vals=(1.0, 2.0)):
    return numpy_helper.from_array(np.array(vals, dtype=np.float32), name)


def add(outdir, filename, rule, plain, full, what, m):
    with open(os.path.join(outdir, filename), "wb") as f:
        f.write(m.SerializeToString() if isinstance(m, onnx.ModelProto) else m)
    MODELS.append((filename, rule, plain, full, what))


def body(nodes, inputs, outputs, name="body"):
    return helper.make_graph(nodes, name, inputs, outputs)


def if_node(then_nodes, then_out, name="if", cond="C", out="Y"):
    """An If on bool input C whose branches make 'r' (then: @then_nodes)."""
    then_b = body(then_nodes, [], [vi(then_out)], "then")
    else_b = body([helper.make_node("Identity", ["X"], ["e"], name="e")], [], [vi("e")], "else")
    return helper.make_node("If", [cond], [out], name=name, then_branch=then_b, else_branch=else_b)


def nested_if(out):
    """An If whose then_branch holds an If whose then_branch adds outer 'a' to X."""
    inner = if_node([helper.make_node("Add", ["X", "a"], ["t"], name="t")], "t", name="inner", out="u")
    then_b = body([inner], [], [vi("u")], "then")
    else_b = body([helper.make_node("Identity", ["X"], ["e2"], name="e2")], [], [vi("e2")], "else")
    return helper.make_node("If", ["C"], [out], name="outer", then_branch=then_b, else_branch=else_b)


LOOP_INPUTS = [vi("X"), vi("N", TensorProto.INT64, ()), vi("B", TensorProto.BOOL, ())]


def loop(outer, out, carried="v"):
    """A Loop on N, B carrying X; its body adds @outer to the carried value
    (named @carried) and passes the condition on."""
    b = helper.make_graph([helper.make_node("Identity", ["c"], ["co"], name="i"),
                           helper.make_node("Add", [carried, outer], ["vo"], name="j")], "body",
                          [vi("n", TensorProto.INT64, ()), vi("c", TensorProto.BOOL, ()), vi(carried)],
                          [vi("co", TensorProto.BOOL, ()), vi("vo")])
    return helper.make_node("Loop", ["N", "B", "X"], [out], name="l", body=b)


def seq_opt_models():
    """A graph input of sequence type (opset 13) and one of optional type (opset 15)."""
    seq = model([helper.make_node("SequenceLength", ["S"], ["Y"], name="l")],
                inputs=[helper.make_tensor_sequence_value_info("S", F, [2])], outputs=[vi("Y", TensorProto.INT64, ())])
    opt = model([helper.make_node("OptionalHasElement", ["O"], ["Y"], name="o")],
                inputs=[helper.make_value_info("O", helper.make_optional_type_proto(helper.make_tensor_type_proto(F, [2])))],
                outputs=[vi("Y", TensorProto.BOOL, ())], opset=15)
    return [("bk_seq_no_elem.onnx", "sequence", seq), ("bk_optional_no_elem.onnx", "optional", opt)]


def ext_tensor(name, location, offset=0, length=8, dims=(2,)):
    t = TensorProto(name=name, data_type=F, dims=list(dims))
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, v
    return t


def gen(outdir):
    XC = [vi("X"), vi("C", TensorProto.BOOL, ())]

    # order: every input made before its reader
    add(outdir, "bk_unsorted.onnx", "order", "refuse", "refuse", "a node reads a name a later node makes",
        model([relu("a", "Y"), relu("X", "a")]))
    add(outdir, "bk_missing_input.onnx", "order", "refuse", "refuse", "a node reads a name nothing makes",
        model([helper.make_node("Add", ["X", "nowhere"], ["Y"], name="add")]))
    add(outdir, "bk_body_missing.onnx", "order", "refuse", "refuse", "an If branch reads a name no scope makes",
        model([if_node([helper.make_node("Add", ["X", "nowhere"], ["t"], name="t")], "t")], inputs=XC))
    add(outdir, "bk_body_outer_later.onnx", "order", "refuse", "refuse",
        "an If branch reads an outer name made after the If",
        model([if_node([helper.make_node("Add", ["X", "late"], ["t"], name="t")], "t", out="r"),
               relu("X", "late"), helper.make_node("Add", ["r", "late"], ["Y"], name="y")], inputs=XC))
    add(outdir, "bk_nested_later.onnx", "order", "refuse", "refuse",
        "an If in an If's branch reads a name the main graph makes after the outer If",
        model([nested_if("r"), relu("X", "a"), helper.make_node("Add", ["r", "a"], ["Y"], name="y")], inputs=XC))
    add(outdir, "bk_loop_later.onnx", "order", "refuse", "refuse", "a Loop body reads an outer name made after the Loop",
        model([loop("late", "r"), relu("X", "late"), helper.make_node("Add", ["r", "late"], ["Y"], name="y")],
              inputs=LOOP_INPUTS))
    add(outdir, "bk_body_unsorted.onnx", "order", "refuse", "refuse", "an If branch's nodes out of order",
        model([if_node([relu("u", "t"), relu("X", "u")], "t")], inputs=XC))

    add(outdir, "bk_body_shadow.onnx", "ssa", "refuse", "refuse", "an If branch makes a name the outer graph makes",
        model([relu("X", "a"), if_node([relu("X", "a")], "a", out="r"), helper.make_node("Add", ["r", "a"], ["Y"], name="y")],
              inputs=XC))

    # ssa: a name made twice
    add(outdir, "bk_ssa_outputs.onnx", "ssa", "refuse", "refuse", "two nodes make the same name",
        model([relu("X", "a"), helper.make_node("Neg", ["X"], ["a"], name="a2"), relu("a", "Y")]))
    add(outdir, "bk_ssa_input_twice.onnx", "ssa", "refuse", "refuse", "a graph input listed twice",
        model([relu("X", "Y")], inputs=[vi("X"), vi("X")]))
    add(outdir, "bk_ssa_init_twice.onnx", "ssa", "refuse", "refuse", "an initializer listed twice",
        model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[w(), w()]))
    add(outdir, "bk_ssa_node_input.onnx", "ssa", "refuse", "refuse", "a node makes a graph input's name",
        model([relu("X", "X"), relu("X", "Y")]))
    add(outdir, "bk_ssa_node_init.onnx", "ssa", "refuse", "refuse", "a node makes an initializer's name",
        model([relu("X", "W"), helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[w()]))

    # operator
    add(outdir, "bk_unknown_op.onnx", "operator", "refuse", "refuse", "an operator the default domain does not have",
        model([helper.make_node("NoSuchOp", ["X"], ["Y"], name="n")]))
    add(outdir, "bk_op_type_empty.onnx", "operator", "refuse", "refuse", "a node with op_type empty",
        model([helper.make_node("", ["X"], ["Y"], name="n")]))
    add(outdir, "bk_deprecated_op.onnx", "operator", "refuse", "refuse", "Upsample at opset 10 (deprecated there)",
        model([helper.make_node("Upsample", ["X", "S"], ["Y"], name="up")],
              inits=[w("S", (2.0,))], opset=10))
    add(outdir, "bk_no_import.onnx", "operator", "refuse", "refuse", "a node of ai.onnx.ml, a domain not imported",
        model([helper.make_node("Normalizer", ["X"], ["Y"], name="n", domain="ai.onnx.ml", norm="MAX")],
              inputs=[vi("X", F, (1, 2))], outputs=[vi("Y", F, (1, 2))]))

    add(outdir, "bk_no_import_custom.onnx", "operator", "refuse", "refuse", "a node of a custom domain not imported",
        model([helper.make_node("Foo", ["X"], ["Y"], name="f", domain="my.domain")]))

    add(outdir, "bk_domain_ai_onnx.onnx", "operator", "refuse", "refuse",
        "a node of domain 'ai.onnx' (onnx.checker knows the default domain as \"\" only)",
        model([helper.make_node("Relu", ["X"], ["Y"], name="r", domain="ai.onnx")],
              imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx", 13)]))
    add(outdir, "bk_import_ai_onnx_only.onnx", "operator", "refuse", "refuse",
        "the default domain imported as 'ai.onnx' only", model([relu("X", "Y")], imports=[helper.make_opsetid("ai.onnx", 13)]))

    m = model([relu("X", "Y")])
    m.opset_import[0].ClearField("version")
    add(outdir, "bk_opset_no_version.onnx", "operator", "refuse", "refuse", "the default domain imported without version", m)

    # model
    add(outdir, "bk_ir2_opset.onnx", "model", "refuse", "refuse", "IR 2 with an opset import",
        model([relu("X", "Y")], ir=2, opset=1))
    add(outdir, "bk_ir3_no_opset.onnx", "model", "refuse", "refuse", "IR 3 without opset imports",
        model([relu("X", "Y")], ir=3, imports=[]))
    add(outdir, "bk_ir_unset.onnx", "model", "refuse", "refuse", "ir_version not set",
        model([relu("X", "Y")], ir=0))
    m = model([relu("X", "Y")])
    m.metadata_props.extend([onnx.StringStringEntryProto(key="k", value="1"),
                             onnx.StringStringEntryProto(key="k", value="2")])
    add(outdir, "bk_meta_dup.onnx", "model", "refuse", "refuse", "metadata_props with a key twice", m)

    # tensor
    add(outdir, "bk_ir3_init_not_input.onnx", "tensor", "refuse", "refuse", "IR 3: an initializer not among the inputs",
        model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[w()], ir=3, opset=8))
    t = w()
    t.float_data.extend([1.0, 2.0])
    add(outdir, "bk_tensor_two_fields.onnx", "tensor", "refuse", "refuse", "a tensor with raw_data and float_data",
        model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[t]))
    t = TensorProto(name="W", data_type=F, dims=[2])
    add(outdir, "bk_tensor_no_data.onnx", "tensor", "refuse", "refuse", "a tensor of 2 elements without data",
        model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[t]))
    t = TensorProto(name="W", data_type=F, dims=[0])
    t.float_data.append(1.0)
    add(outdir, "bk_tensor_zero_data.onnx", "tensor", "refuse", "refuse", "a tensor of 0 elements with data",
        model([helper.make_node("Concat", ["X", "W"], ["Y"], name="cat", axis=0)], inits=[t]))
    t = TensorProto(name="S", data_type=TensorProto.STRING, dims=[1], raw_data=b"abc")
    add(outdir, "bk_tensor_string_raw.onnx", "tensor", "refuse", "refuse", "a STRING tensor in raw_data",
        model([helper.make_node("Identity", ["S"], ["Y"], name="id")], outputs=[vi("Y", TensorProto.STRING, (1,))],
              inits=[t]))
    t = w()
    t.ClearField("data_type")
    add(outdir, "bk_tensor_dtype_unset.onnx", "tensor", "refuse", "refuse", "a tensor without data_type",
        model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[t]))
    t = TensorProto(name="W", data_type=F, dims=[2], raw_data=np.array([1, 2, 3], dtype=np.float32).tobytes())
    add(outdir, "bk_dims_raw.onnx", "tensor", "accept", "accept", "raw_data of 3 floats for dims [2]",
        model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[t]))
    t = TensorProto(name="W", data_type=F, dims=[2], float_data=[1.0, 2.0, 3.0])
    add(outdir, "bk_dims_typed.onnx", "tensor", "accept", "accept", "float_data of 3 values for dims [2]",
        model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[t]))
    add(outdir, "bk_dims_attr.onnx", "tensor", "accept", "accept",
        "a Constant's value attribute of 3 int64 for dims [3] holding 2",
        model([helper.make_node("Constant", [], ["Y"], name="c", value=TensorProto(
            name="k", data_type=TensorProto.INT64, dims=[3], int64_data=[1, 2]))],
            inputs=[], outputs=[vi("Y", TensorProto.INT64, (3,))]))

    add(outdir, "bk_init_no_name.onnx", "tensor", "refuse", "refuse", "an initializer without name",
        model([relu("X", "Y")], inits=[w("")]))

    m = model([helper.make_node("Constant", [], ["Y"], name="c", value=w("k"))], inputs=[])
    m.graph.node[0].attribute[0].t.ClearField("data_type")
    add(outdir, "bk_attr_tensor_dtype.onnx", "tensor", "refuse", "refuse", "a Constant's value without data_type", m)

    # external-data
    with open(os.path.join(outdir, "bk_ext.bin"), "wb") as f:
        f.write(np.arange(16, dtype=np.float32).tobytes())
    ext = lambda t: model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[t])  # noqa: E731
    add(outdir, "bk_ext_absolute.onnx", "external-data", "refuse", "refuse", "an absolute location",
        ext(ext_tensor("W", "/nonexistent/bk_ext.bin")))
    add(outdir, "bk_ext_absolute_file.onnx", "external-data", "refuse", "refuse",
        "an absolute location naming a file that exists (onnx 1.12 looks for it under the model's folder)",
        ext(ext_tensor("W", "/etc/passwd")))
    add(outdir, "bk_ext_dotdot.onnx", "external-data", "refuse", "refuse", "a location out of the model's folder",
        ext(ext_tensor("W", "../bk_ext.bin")))
    add(outdir, "bk_ext_missing.onnx", "external-data", "refuse", "refuse", "a location that is no file",
        ext(ext_tensor("W", "bk_no_such.bin")))
    add(outdir, "bk_ext_no_location.onnx", "external-data", "refuse", "refuse", "external data without a location",
        ext(ext_tensor("W", None)))
    add(outdir, "bk_ext_offset.onnx", "external-data", "accept", "accept", "an offset past the end of the file",
        ext(ext_tensor("W", "bk_ext.bin", offset=4096)))
    add(outdir, "bk_ext_length.onnx", "external-data", "accept", "accept", "offset + length past the end of the file",
        ext(ext_tensor("W", "bk_ext.bin", offset=60, length=8)))

    # sparse
    def sparse(idx, dims=(4,)):
        vals = numpy_helper.from_array(np.array([1.0, 2.0], dtype=np.float32), "SP")
        ind = numpy_helper.from_array(np.array(idx, dtype=np.int64), "SP_idx")
        return helper.make_sparse_tensor(vals, ind, list(dims))
    for fn, idx, what in (("bk_sparse_range.onnx", [1, 4], "a sparse index past the dense size"),
                          ("bk_sparse_unsorted.onnx", [3, 1], "sparse indices not increasing")):
        m = model([helper.make_node("Add", ["X", "SP"], ["Y"], name="add")], inputs=[vi("X", F, (4,))],
                  outputs=[vi("Y", F, (4,))])
        m.graph.sparse_initializer.append(sparse(idx))
        add(outdir, fn, "sparse", "refuse", "refuse", what, m)
    m = model([helper.make_node("Add", ["X", "SP"], ["Y"], name="add")], inputs=[vi("X", F, (4,))],
              outputs=[vi("Y", F, (4,))])
    m.graph.sparse_initializer.append(sparse([0, 1, 2]))
    add(outdir, "bk_sparse_nnz.onnx", "sparse", "refuse", "refuse", "3 sparse indices for 2 values", m)
    for fn, idx, what in (("bk_sparse2d_range.onnx", [[0, 0], [2, 1]], "a 2-D sparse index past its dim"),
                          ("bk_sparse2d_order.onnx", [[1, 1], [0, 1]], "2-D sparse indices not in lexicographic order")):
        m = model([helper.make_node("Add", ["X", "SP"], ["Y"], name="add")], inputs=[vi("X", F, (2, 2))],
                  outputs=[vi("Y", F, (2, 2))])
        m.graph.sparse_initializer.append(sparse(idx, (2, 2)))
        add(outdir, fn, "sparse", "refuse", "refuse", what, m)

    # attribute
    def sm(**attrs):
        return model([helper.make_node("Softmax", ["X"], ["Y"], name="sm", **attrs)])
    add(outdir, "bk_attr_wrong_type.onnx", "attribute", "refuse", "refuse", "Softmax's axis as a float",
        sm(axis=1.0))
    add(outdir, "bk_attr_unknown.onnx", "attribute", "refuse", "refuse", "an attribute Relu does not have",
        model([helper.make_node("Relu", ["X"], ["Y"], name="r", alpha=0.5)]))
    m = sm(axis=0)
    m.graph.node[0].attribute.append(helper.make_attribute("axis", 0))
    add(outdir, "bk_attr_repeated.onnx", "attribute", "refuse", "refuse", "Softmax's axis twice", m)
    add(outdir, "bk_attr_required.onnx", "attribute", "refuse", "refuse", "Concat without its axis",
        model([helper.make_node("Concat", ["X", "X"], ["Y"], name="cat")], outputs=[vi("Y", F, (4,))]))
    m = sm(axis=0)
    m.graph.node[0].attribute[0].f = 1.0
    add(outdir, "bk_attr_two_fields.onnx", "attribute", "refuse", "refuse", "an attribute with i and f set", m)
    m = sm(axis=0)
    m.graph.node[0].attribute[0].ClearField("type")
    add(outdir, "bk_attr_type_unset.onnx", "attribute", "refuse", "refuse", "IR 8: an attribute without its type", m)
    m = model([if_node([relu("X", "t")], "t")], inputs=XC)
    m.graph.node[0].attribute[0].ClearField("g")
    add(outdir, "bk_attr_graph_unset.onnx", "attribute", "refuse", "refuse", "If's else_branch of type GRAPH without g", m)
    m = model([helper.make_node("Constant", [], ["Y"], name="c", value=w("k"))], inputs=[])
    m.graph.node[0].attribute[0].ClearField("t")
    add(outdir, "bk_attr_tensor_unset.onnx", "attribute", "refuse", "refuse", "Constant's value of type TENSOR without t", m)
    m = sm(axis=0)
    m.graph.node[0].attribute[0].name = ""
    add(outdir, "bk_attr_no_name.onnx", "attribute", "refuse", "refuse", "an attribute without name", m)

    # arity
    add(outdir, "bk_arity_many.onnx", "arity", "refuse", "refuse", "Relu with two inputs",
        model([helper.make_node("Relu", ["X", "X"], ["Y"], name="r")]))
    add(outdir, "bk_arity_few.onnx", "arity", "refuse", "refuse", "Add with one input",
        model([helper.make_node("Add", ["X"], ["Y"], name="a")]))
    add(outdir, "bk_arity_outputs.onnx", "arity", "refuse", "refuse", "Relu with two outputs",
        model([helper.make_node("Relu", ["X"], ["Y", "Z"], name="r")]))
    add(outdir, "bk_arity_empty_name.onnx", "arity", "refuse", "refuse", "\"\" for Add's first input",
        model([helper.make_node("Add", ["", "X"], ["Y"], name="a")]))
    add(outdir, "bk_empty_node.onnx", "arity", "refuse", "refuse", "a node without inputs and outputs",
        model([relu("X", "Y"), helper.make_node("Constant", [], [], name="c", value_float=1.0)]))

    # value-info
    add(outdir, "bk_graph_name.onnx", "value-info", "refuse", "refuse", "the graph's name empty",
        model([relu("X", "Y")], name=""))
    m = model([relu("X", "Y")])
    m.graph.input[0].ClearField("type")
    add(outdir, "bk_input_no_type.onnx", "value-info", "refuse", "refuse", "a graph input without type", m)
    m = model([relu("X", "Y")])
    m.graph.input[0].type.tensor_type.ClearField("elem_type")
    add(outdir, "bk_input_no_elem.onnx", "value-info", "refuse", "refuse", "a graph input without elem_type", m)
    m = model([relu("X", "Y")])
    m.graph.input[0].type.tensor_type.ClearField("shape")
    add(outdir, "bk_input_no_shape.onnx", "value-info", "refuse", "refuse", "a graph input without shape", m)
    m = model([relu("X", "Y")])
    m.graph.output[0].ClearField("type")
    add(outdir, "bk_output_no_type.onnx", "value-info", "refuse", "refuse", "a graph output without type", m)
    for fn, kind, m in seq_opt_models():
        tp = m.graph.input[0].type
        (tp.sequence_type if kind == "sequence" else tp.optional_type).ClearField("elem_type")
        add(outdir, fn, "value-info", "refuse", "refuse", "a graph input of type %s without elem_type" % kind, m)
    add(outdir, "bk_input_no_name.onnx", "value-info", "refuse", "refuse", "a graph input without name",
        model([helper.make_node("Constant", [], ["Y"], name="c", value=w("k"))], inputs=[vi("")]))

    # function (IR 8, model-local): a body breaks the rule it breaks in a graph
    # (named in graph "function DOMAIN.NAME"); "function" is the function's own
    # fields (its opset imports against the model's)
    def fmodel(fnodes, finputs=("x",), foutputs=("y",)):
        fn = helper.make_function("local", "F", list(finputs), list(foutputs), fnodes,
                                  [helper.make_opsetid("", 13)])
        return model([helper.make_node("F", ["X"], ["Y"], name="f", domain="local")],
                     imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)], functions=[fn])
    add(outdir, "bk_func_unknown_op.onnx", "operator", "refuse", "refuse", "a function body with an unknown operator",
        fmodel([helper.make_node("NoSuchOp", ["x"], ["y"], name="n")]))
    add(outdir, "bk_func_unsorted.onnx", "order", "refuse", "refuse", "a function body out of order",
        fmodel([relu("t", "y", name="a"), relu("x", "t", name="b")]))
    fn = helper.make_function("local", "F", ["x"], ["y"], [relu("x", "y")], [helper.make_opsetid("", 12)])
    add(outdir, "bk_func_opset.onnx", "function", "refuse", "refuse", "a function imports opset 12, the model 13",
        model([helper.make_node("F", ["X"], ["Y"], name="f", domain="local")],
              imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)], functions=[fn]))
    add(outdir, "bk_func_ssa.onnx", "ssa", "refuse", "refuse", "a function body making a name twice",
        fmodel([relu("x", "t", name="a"), relu("x", "t", name="b"), relu("t", "y", name="c")]))

    # infer (--full only): a type contradiction
    add(outdir, "bk_infer_type.onnx", "infer", "accept", "refuse", "Add of float and int64",
        model([helper.make_node("Add", ["X", "N"], ["Y"], name="add")], inputs=[vi("X"), vi("N", TensorProto.INT64)]))
    add(outdir, "bk_infer_shape.onnx", "infer", "accept", "refuse", "Add of [2] and [3]",
        model([helper.make_node("Add", ["X", "Z"], ["Y"], name="add")], inputs=[vi("X"), vi("Z", F, (3,))]))


def gen_valid(outdir):
    """Valid models a checker could refuse by mistake: onnx.checker accepts
    each in both modes, so must we (rule "none": no problem)."""
    XC = [vi("X"), vi("C", TensorProto.BOOL, ())]
    ok = lambda name, what, m: add(outdir, name, "none", "accept", "accept", what, m)  # noqa: E731
    ok("bk_ok_output_unmade.onnx", "a graph output nothing makes", model([relu("X", "Y")], outputs=[vi("Y"), vi("Z")]))
    ok("bk_ok_output_is_input.onnx", "no nodes, the input is the output", model([], outputs=[vi("X")]))
    ok("bk_ok_unused_input.onnx", "a graph input nothing reads", model([relu("X", "Y")], inputs=[vi("X"), vi("U")]))
    ok("bk_ok_unused_init.onnx", "an initializer nothing reads", model([relu("X", "Y")], inits=[w()]))
    ok("bk_ok_node_names.onnx", "nodes without names and with one name twice",
       model([helper.make_node("Relu", ["X"], ["a"]), relu("a", "b", name="n"), relu("b", "Y", name="n")]))
    m = model([relu("X", "a"), relu("a", "Y")])
    m.graph.value_info.append(onnx.ValueInfoProto(name="a"))
    ok("bk_ok_value_info_untyped.onnx", "a value_info entry without type", m)
    ok("bk_ok_custom_domain.onnx", "an operator of an imported custom domain",
       model([helper.make_node("Foo", ["X"], ["Y"], name="f", domain="my.domain", any=1)],
             imports=[helper.make_opsetid("", 13), helper.make_opsetid("my.domain", 1)]))
    ok("bk_ok_optional_empty.onnx", "\"\" for Clip's optional min",
       model([helper.make_node("Clip", ["X", "", "M"], ["Y"], name="c")],
             inits=[numpy_helper.from_array(np.array(1.0, dtype=np.float32), "M")]))
    ok("bk_ok_body_outer.onnx", "an If branch reads an outer name made before the If",
       model([relu("X", "a"), if_node([helper.make_node("Add", ["X", "a"], ["t"], name="t")], "t")], inputs=XC))
    loop_body = helper.make_graph([helper.make_node("Identity", ["c"], ["co"], name="i"),
                                   helper.make_node("Identity", ["v"], ["vo"], name="j")], "body",
                                  [onnx.ValueInfoProto(name=n) for n in ("n", "c", "v")],
                                  [onnx.ValueInfoProto(name=n) for n in ("co", "vo")])
    ok("bk_ok_nested_outer.onnx", "an If in an If's branch reads a name the main graph made before",
       model([relu("X", "a"), nested_if("Y")], inputs=XC))
    ok("bk_ok_body_input_shadow.onnx", "a Loop body's input named like an outer value (inputs may shadow)",
       model([loop("X", "Y", carried="X")], inputs=LOOP_INPUTS))
    ok("bk_ok_import_twice.onnx", "the default domain imported twice",
       model([relu("X", "Y")], imports=[helper.make_opsetid("", 13), helper.make_opsetid("", 12)]))
    ok("bk_ok_custom_no_function.onnx", "a node of an imported custom domain no function defines",
       model([helper.make_node("F", ["X"], ["Y"], name="f", domain="local")],
             imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)]))
    for fn, kind, m in seq_opt_models():
        ok(fn.replace("bk_", "bk_ok_").replace("_no_elem", "_input"), "a graph input of type " + kind, m)
    m = model([helper.make_node("Softmax", ["X"], ["Y"], name="s")])
    a = m.graph.node[0].attribute.add()
    a.name, a.ref_attr_name, a.type = "axis", "ax", onnx.AttributeProto.INT
    ok("bk_ok_ref_attr_main.onnx", "a main graph's attribute with ref_attr_name (onnx 1.12 lets it pass)", m)
    ok("bk_ok_body_untyped.onnx", "a Loop body's inputs and outputs without types",
       model([helper.make_node("Loop", ["N", "B", "X"], ["Y"], name="l", body=loop_body)],
             inputs=[vi("X"), vi("N", TensorProto.INT64, ()), vi("B", TensorProto.BOOL, ())]))
    ok("bk_ok_ir3_init_input.onnx", "IR 3: an initializer among the inputs",
       model([helper.make_node("Add", ["X", "W"], ["Y"], name="a")], inputs=[vi("X"), vi("W")], inits=[w()], ir=3, opset=8))
    ok("bk_ok_empty_tensor.onnx", "a tensor of 0 elements without data",
       model([helper.make_node("Concat", ["X", "W"], ["Y"], name="cat", axis=0)],
             inits=[TensorProto(name="W", data_type=F, dims=[0])]))
    ok("bk_ok_external.onnx", "external data inside its file",
       model([helper.make_node("Add", ["X", "W"], ["Y"], name="add")], inits=[ext_tensor("W", "bk_ext.bin", 8, 8)]))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_broken.py OUTDIR\n")
        return 2
    gen(argv[1])
    gen_valid(argv[1])
    with open(os.path.join(argv[1], "bk_broken.txt"), "w") as f:
        f.write("# FILE RULE ONNX_PLAIN ONNX_FULL DESCRIPTION (gen_broken.py)\n")
        for row in MODELS:
            f.write(" ".join(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
