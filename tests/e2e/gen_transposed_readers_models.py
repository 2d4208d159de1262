#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the transposed_readers suite (tests/test_transposed_readers.c).

Usage:
    /usr/bin/python3 gen_transposed_readers_models.py OUTDIR

Needs python3-onnx and python3-numpy. Each model holds a constant X [N, K]
and a constant Y [K, N] that is X transposed (a tied embedding X and its
output projection Y), with readers of Y; the suite rewrites the readers of Y
to read X. The output is deterministic; every model passes onnx.checker and
those without "bad" in their name run in ONNX Runtime.

Files written to OUTDIR (h is the activation, ids int64 indices):

  trr_r2_f32_13.onnx   rank-2 h [5, K], float32, opset 13: MatMul(h, Y) and a
                      Gather of Y; Y an initializer (raw_data).
  trr_r3_f32_13.onnx   rank-3 h [batch, 3, K], float32, opset 13: MatMul(h, Y)
                      and Gather(Y); Y a Constant node (float_data), X an
                      initializer.
  trr_r3_f32_17.onnx   rank-3 h [batch, seq, K], float32, opset 17: MatMul and
                      Gather; Y an initializer, X a Constant node placed after
                      the readers of Y.
  trr_r3_f32_21.onnx   as trr_r3_f32_17 at opset 21, both initializers.
  trr_r2_f16_17.onnx   rank-2 float16 h at opset 17, MatMul and Gather; Y an
                      initializer stored in int32_data.
  trr_r3_f16_21.onnx   rank-3 float16 h at opset 21, MatMul only; Y a Constant
                      node.
  trr_r4_f32_21.onnx   rank-4 h [batch, 2, seq, K] at opset 21, MatMul only.
  trr_mm_only_13.onnx  rank-3 h at opset 13, MatMul only (no Gather).
  trr_gather_only_21.onnx  Gather, Unsqueeze and Add readers of Y, no MatMul.
  trr_bad_add.onnx     MatMul(h, Y) read by an Add (a bias).
  trr_bad_conv.onnx    Y read by a Conv (as its input).
  trr_bad_rank.onnx    MatMul(Relu(h), Y): the rank of its A input is not declared.
  trr_bad_nested.onnx  MatMul(h, Y), and an If branch reading Y.
  trr_bad_mul_in.onnx  MatMul(Mul(h, s), Y): the A input made by a Mul.
  trr_bad_output.onnx  Y also an output of the graph.
  trr_bad_input.onnx  Y also an input of the graph (a default a caller may
                      override).
  trr_bad_f64.onnx     float64 MatMul(h, Y).
  trr_bad_opset10.onnx rank-2 MatMul(h, Y) at opset 10.
  trr_nested_17.onnx  an If whose branches each hold a Constant Y read by a
                      MatMul (h of the main graph) and a Gather; X in the
                      main graph.
  trr_bad_seq13.onnx  rank-3 h [batch, seq, K] at opset 13: a Reshape there
                      would take a sequence of length 0 for "copy the dim".
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import save  # noqa: E402

K = 256       # the width (rows of Y): from 256 on a MatMul of a Transpose node rounds differently
N = 96        # the vocabulary (columns of Y)

IR = {10: 5, 13: 7, 17: 8, 21: 8}


def weights(dtype):
    rng = np.random.RandomState(24)
    x = rng.uniform(-1.0, 1.0, size=(N, K)).astype(dtype)
    return x, np.ascontiguousarray(x.T)


def tensor(name, array, encoding="raw"):
    t = numpy_helper.from_array(array, name)
    if encoding == "typed":
        if array.dtype == np.float32:
            t.ClearField("raw_data")
            t.float_data.extend(array.flatten().tolist())
        elif array.dtype == np.float16:
            t.ClearField("raw_data")
            t.int32_data.extend(array.flatten().view(np.uint16).astype(np.int32).tolist())
    return t


def constant(output, array, encoding="raw"):
    return helper.make_node("Constant", [], [output], name="const_" + output,
                            value=tensor(output + "_value", array, encoding))


def out(name, elem, rank):
    return helper.make_tensor_value_info(name, elem, [None] * rank)


def h_shape(rank, opset, seq=None):
    if rank == 2:
        return [5, K]
    if rank == 3:
        return ["batch", seq or (3 if opset < 14 else "seq"), K]
    return ["batch", 2, "seq", K]


def model(nodes, inputs, outputs, inits, opset, name):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    m = helper.make_model(g, producer_name="scs4onnx-c-gen_transposed_readers",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR[opset]
    return m


def tied(opset, rank, dtype=np.float32, y_as="init", x_as="init", gather=True, encoding="raw",
         extra=None, seq=None):
    """X (Gather table) and Y = X^T (MatMul weight) with their readers."""
    elem = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16, np.float64: TensorProto.DOUBLE}[dtype]
    x, y = weights(dtype)
    nodes, inits = [], []
    if y_as == "const":
        nodes.append(constant("Y", y, encoding))
    else:
        inits.append(tensor("Y", y, encoding))
    readers = [helper.make_node("MatMul", ["h", "Y"], ["logits"], name="lm_head")]
    outputs = [out("logits", elem, rank)]
    if gather:
        readers.append(helper.make_node("Gather", ["Y", "ids"], ["rows"], name="gather_y", axis=0))
        outputs.append(out("rows", elem, 2))
    readers.append(helper.make_node("Gather", ["X", "ids"], ["emb"], name="gather_x", axis=0))
    outputs.append(out("emb", elem, 2))
    if extra:
        extra(readers, outputs, elem)
    nodes += readers
    if x_as == "const":
        nodes.append(constant("X", x))      # after the readers of Y
        nodes = [n for n in nodes if n.output[0] != "emb"] + [n for n in nodes if n.output[0] == "emb"]
    else:
        inits.append(tensor("X", x))
    h = helper.make_tensor_value_info("h", elem, h_shape(rank, opset, seq))
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [4])
    return model(nodes, [h, ids], outputs, inits, opset, "tied")


def gather_only(opset):
    x, y = weights(np.float32)

    def more(readers, outputs, elem):
        readers.append(helper.make_node("Unsqueeze", ["Y", "axes"], ["y3"], name="unsq_y"))
        readers.append(helper.make_node("Add", ["Y", "Y"], ["y2"], name="add_y"))
        outputs.append(out("y3", elem, 3))
        outputs.append(out("y2", elem, 2))
    m = tied(opset, 2, extra=more)
    m.graph.initializer.append(numpy_helper.from_array(np.array([0], dtype=np.int64), "axes"))
    g = m.graph
    keep = [n for n in g.node if n.op_type != "MatMul"]
    del g.node[:]
    g.node.extend(keep)
    outs = [o for o in g.output if o.name != "logits"]
    del g.output[:]
    g.output.extend(outs)
    return m


def bad_add(opset):
    def more(readers, outputs, elem):
        readers[0].output[0] = "mm"
        readers.append(helper.make_node("Add", ["mm", "bias"], ["logits"], name="bias_add"))
    m = tied(opset, 3, extra=more)
    m.graph.initializer.append(numpy_helper.from_array(np.full([N], 0.5, dtype=np.float32), "bias"))
    return m


def bad_conv(opset):
    def more(readers, outputs, elem):
        readers.append(helper.make_node("Unsqueeze", ["Y", "axes"], ["y3"], name="unsq_y"))
        readers.append(helper.make_node("Conv", ["y3", "Y"], ["conv"], name="conv_y"))
        outputs.append(out("conv", elem, 3))
    m = tied(opset, 2, extra=more)
    m.graph.initializer.append(numpy_helper.from_array(np.array([0], dtype=np.int64), "axes"))
    return m


def bad_rank(opset):
    def more(readers, outputs, elem):
        readers[0].input[0] = "hr"
        readers.insert(0, helper.make_node("Relu", ["h"], ["hr"], name="relu_h"))
    return tied(opset, 3, extra=more)


def bad_nested(opset):
    def more(readers, outputs, elem):
        then_g = helper.make_graph([helper.make_node("Identity", ["Y"], ["t_out"], name="then_id")], "then", [],
                                   [out("t_out", elem, 2)])
        else_g = helper.make_graph([helper.make_node("Identity", ["X"], ["e_out"], name="else_id")], "else", [],
                                   [out("e_out", elem, 2)])
        readers.append(helper.make_node("If", ["cond"], ["branch"], name="if_y", then_branch=then_g,
                                        else_branch=else_g))
        outputs.append(out("branch", elem, 2))
    m = tied(opset, 2, extra=more)
    m.graph.input.append(helper.make_tensor_value_info("cond", TensorProto.BOOL, []))
    return m


def bad_mul_in(opset):
    def more(readers, outputs, elem):
        readers[0].input[0] = "hs"
        readers.insert(0, helper.make_node("Mul", ["h", "scale"], ["hs"], name="scale_h"))
    m = tied(opset, 2, extra=more)
    m.graph.initializer.append(numpy_helper.from_array(np.array(0.125, dtype=np.float32), "scale"))
    return m


def bad_output(opset):
    m = tied(opset, 2)
    m.graph.output.append(helper.make_tensor_value_info("Y", TensorProto.FLOAT, [K, N]))
    return m


def nested(opset):
    """Y a Constant node of an If branch, read there by a MatMul and a Gather; X and h in the main graph."""
    x, y = weights(np.float32)
    elem = TensorProto.FLOAT

    def branch(tag, y_name):
        nodes = [constant(y_name, y),
                 helper.make_node("MatMul", ["h", y_name], [tag + "_mm"], name=tag + "_lm_head"),
                 helper.make_node("Gather", [y_name, "ids"], [tag + "_rows"], name=tag + "_gather", axis=0),
                 helper.make_node("Flatten", [tag + "_rows"], [tag + "_flat"], name=tag + "_flatten", axis=0)]
        nodes.append(helper.make_node("Flatten", [tag + "_mm"], [tag + "_mflat"], name=tag + "_mflatten", axis=0))
        nodes.append(helper.make_node("Concat", [tag + "_mflat", tag + "_flat"], [tag + "_out"], name=tag + "_concat",
                                      axis=1))
        return helper.make_graph(nodes, tag, [], [out(tag + "_out", elem, 2)])
    nodes = [helper.make_node("If", ["cond"], ["res"], name="if_tied", then_branch=branch("then", "Y"),
                              else_branch=branch("else", "Y")),
             helper.make_node("Gather", ["X", "ids"], ["emb"], name="gather_x", axis=0)]
    inputs = [helper.make_tensor_value_info("h", elem, h_shape(3, opset)),
              helper.make_tensor_value_info("ids", TensorProto.INT64, [4]),
              helper.make_tensor_value_info("cond", TensorProto.BOOL, [])]
    return model(nodes, inputs, [out("res", elem, 2), out("emb", elem, 2)], [tensor("X", x)], opset, "nested")


def bad_input(opset):
    m = tied(opset, 2)
    m.graph.input.append(helper.make_tensor_value_info("Y", TensorProto.FLOAT, [K, N]))
    return m


def main():
    outdir = sys.argv[1]
    save(tied(13, 2), outdir, "trr_r2_f32_13.onnx")
    save(tied(13, 3, y_as="const", encoding="typed"), outdir, "trr_r3_f32_13.onnx")
    save(tied(17, 3, x_as="const"), outdir, "trr_r3_f32_17.onnx")
    save(tied(21, 3), outdir, "trr_r3_f32_21.onnx")
    save(tied(17, 2, np.float16, encoding="typed"), outdir, "trr_r2_f16_17.onnx")
    save(tied(21, 3, np.float16, y_as="const", gather=False), outdir, "trr_r3_f16_21.onnx")
    save(tied(21, 4, gather=False), outdir, "trr_r4_f32_21.onnx")
    save(tied(13, 3, gather=False), outdir, "trr_mm_only_13.onnx")
    save(gather_only(21), outdir, "trr_gather_only_21.onnx")
    save(bad_add(17), outdir, "trr_bad_add.onnx")
    save(bad_conv(17), outdir, "trr_bad_conv.onnx")
    save(bad_rank(17), outdir, "trr_bad_rank.onnx")
    save(bad_nested(17), outdir, "trr_bad_nested.onnx")
    save(bad_mul_in(17), outdir, "trr_bad_mul_in.onnx")
    save(bad_output(17), outdir, "trr_bad_output.onnx")
    save(bad_input(17), outdir, "trr_bad_input.onnx")
    save(tied(17, 2, np.float64), outdir, "trr_bad_f64.onnx")
    save(tied(10, 2), outdir, "trr_bad_opset10.onnx")
    save(tied(13, 3, seq="seq"), outdir, "trr_bad_seq13.onnx")
    save(nested(17), outdir, "trr_nested_17.onnx")


if __name__ == "__main__":
    main()
