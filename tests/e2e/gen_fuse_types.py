#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Build the models of fuse/every_fusion_on_every_element_type.

Usage: /usr/bin/python3 gen_fuse_types.py OUTDIR

Every fusion pass, on every element type the schemas of its operators allow
at the opset used: one small model per (pass, element type) that the pass
would fuse if the type let it. Whether ONNX Runtime loads the model or not
is not decided here: the test loads both the model and its output, and an
output must load (and compute the same, within the stated tolerance for the
arithmetic fusions) wherever its input did. Also the placement cases: a
MatMul + Add whose C is made by a node listed between them (also inside an
If branch), and a Conv whose
BatchNormalization's parameters or Add's constant are Constant nodes listed
between the two.

OUTDIR/manifest.tsv: one line a model, "FILE<TAB>PASS<TAB>TOL<TAB>FUSES":
TOL is "-" for bit-identical outputs, else REL,ABS for ort_compare's --tol;
FUSES is 1 where the pass must fuse (float32: ONNX Runtime has every kernel),
0 where it may refuse.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

T = TensorProto
NP = {T.FLOAT: np.float32, T.DOUBLE: np.float64, T.FLOAT16: np.float16, T.INT8: np.int8,
      T.INT16: np.int16, T.INT32: np.int32, T.INT64: np.int64, T.UINT8: np.uint8,
      T.UINT16: np.uint16, T.UINT32: np.uint32, T.UINT64: np.uint64, T.BOOL: np.bool_}
NAME = {v: k.lower() for k, v in T.DataType.items()}
FLOATS = [T.FLOAT, T.FLOAT16, T.DOUBLE, T.BFLOAT16]
# MatMul-13 and Gemm-13 take these
MATMUL = FLOATS + [T.INT32, T.INT64, T.UINT32, T.UINT64]
# Transpose-13 takes every tensor type; these are the ones numpy writes
TRANSPOSE = FLOATS + [T.INT8, T.INT16, T.INT32, T.INT64, T.UINT8, T.UINT16, T.UINT32, T.UINT64,
                      T.BOOL, T.STRING]
# the tolerance of the arithmetic fusions, per element type
TOL = {T.FLOAT: "1e-5,1e-5", T.DOUBLE: "1e-12,1e-12", T.FLOAT16: "1e-2,1e-2", T.BFLOAT16: "1e-1,1e-1"}


def tensor(name, values, dt):
    """A constant of @dt from small integer-valued @values (exact in every type)."""
    arr = np.array(values)
    if dt == T.BFLOAT16:
        bits = (arr.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        return helper.make_tensor(name, dt, arr.shape, bits.tobytes(), raw=True)
    if dt == T.STRING:
        return helper.make_tensor(name, dt, arr.shape, [str(v).encode() for v in arr.reshape(-1)])
    return numpy_helper.from_array(arr.astype(NP[dt]), name)


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def model(nodes, inputs, outputs, inits, opset):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="gen_fuse_types")
    m.ir_version = 8
    return m


def matmul_add(dt, c_between=False):
    """MatMul [3,4] x [4,5] + C[5]; with @c_between, C is Relu(c0) listed between the two."""
    b = tensor("B", np.arange(20).reshape(4, 5) % 3, dt)
    nodes = [helper.make_node("MatMul", ["A", "B"], ["m"], name="mm")]
    inputs, inits = [vi("A", dt, [3, 4])], [b]
    if c_between:
        nodes.append(helper.make_node("Abs", ["c0"], ["C"], name="absc"))
        inputs.append(vi("c0", dt, [5]))
    else:
        inits.append(tensor("C", [1, 2, 0, 1, 3], dt))
    nodes.append(helper.make_node("Add", ["m", "C"], ["Y"], name="add"))
    return model(nodes, inputs, [vi("Y", dt, [3, 5])], inits, 13)


def matmul_add_nested(dt):
    """matmul_add(dt, c_between=True) inside an If's then branch (the else branch a MatMul alone)."""
    b = tensor("B", np.arange(20).reshape(4, 5) % 3, dt)
    then = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["m"], name="mm"),
         helper.make_node("Abs", ["c0"], ["C"], name="absc"),
         helper.make_node("Add", ["m", "C"], ["Yt"], name="add")],
        "then", [], [vi("Yt", dt, [3, 5])], value_info=[vi("m", dt, [3, 5]), vi("C", dt, [5])])
    other = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["Ye"], name="mm_else")], "else", [],
                              [vi("Ye", dt, [3, 5])])
    node = helper.make_node("If", ["cond"], ["Y"], name="if", then_branch=then, else_branch=other)
    return model([node], [vi("cond", T.BOOL, []), vi("A", dt, [3, 4]), vi("c0", dt, [5])], [vi("Y", dt, [3, 5])],
                 [b], 13)


def bn_params(n, dt, pre):
    return [tensor(pre + "s", [1, 2, 1, 2, 1, 2][:n], dt), tensor(pre + "b", [0, 1, 2, 0, 1, 2][:n], dt),
            tensor(pre + "m", [1, 0, 1, 0, 1, 0][:n], dt), tensor(pre + "v", [3, 1, 3, 1, 3, 1][:n], dt)]


def bn_into_gemm(dt, mm):
    """Gemm (or MatMul) [3,4] x [4,5] -> BatchNormalization over the 5 features; opset 15 (bfloat16)."""
    p = bn_params(5, dt, "bn_")
    if mm:
        first = helper.make_node("MatMul", ["A", "B"], ["g"], name="mm")
        inits = [tensor("B", np.arange(20).reshape(4, 5) % 3, dt)]
    else:
        first = helper.make_node("Gemm", ["A", "B", "C"], ["g"], name="gemm")
        inits = [tensor("B", np.arange(20).reshape(4, 5) % 3, dt), tensor("C", [1, 0, 2, 1, 0], dt)]
    bn = helper.make_node("BatchNormalization", ["g"] + [t.name for t in p], ["Y"], name="bn", epsilon=1.0)
    return model([first, bn], [vi("A", dt, [3, 4])], [vi("Y", dt, [3, 5])], inits + p, 15)


def conv_then(dt, what, between=False):
    """Conv [1,2,4,4] by [3,2,1,1] -> BatchNormalization, or + Add of [1,3,1,1]; with @between, the second
    node's constants are Constant nodes listed between the two."""
    w = tensor("W", np.arange(6).reshape(3, 2, 1, 1) % 3, dt)
    conv = helper.make_node("Conv", ["X", "W"], ["c"], name="conv")
    if what == "bn":
        p = bn_params(3, dt, "bn_")
        second = helper.make_node("BatchNormalization", ["c"] + [t.name for t in p], ["Y"], name="bn", epsilon=1.0)
    else:
        p = [tensor("a", np.array([1, 2, 0]).reshape(1, 3, 1, 1), dt)]
        second = helper.make_node("Add", ["c", "a"], ["Y"], name="add")
    if between:
        nodes, inits = [conv] + [helper.make_node("Constant", [], [t.name], value=t) for t in p] + [second], [w]
    else:
        nodes, inits = [conv, second], [w] + p
    return model(nodes, [vi("X", dt, [1, 2, 4, 4])], [vi("Y", dt, [1, 3, 4, 4])], inits, 13)


def transposes(dt):
    t1 = helper.make_node("Transpose", ["X"], ["t"], name="t1", perm=[1, 2, 0])
    t2 = helper.make_node("Transpose", ["t"], ["Y"], name="t2", perm=[2, 0, 1])
    return model([t1, t2], [vi("X", dt, [2, 3, 4])], [vi("Y", dt, [2, 3, 4])], [], 13)


def cases():
    """(file stem, pass, dtype, model, tol, fuses)"""
    for dt in MATMUL:
        yield ("matmul_add_" + NAME[dt], "fuse_matmul_add_bias_into_gemm", dt, matmul_add(dt), TOL.get(dt),
               dt == T.FLOAT)
        yield ("matmul_add_between_" + NAME[dt], "fuse_matmul_add_bias_into_gemm", dt, matmul_add(dt, True),
               TOL.get(dt), dt == T.FLOAT)
    for dt in [T.FLOAT, T.INT32]:
        yield ("matmul_add_nested_" + NAME[dt], "fuse_matmul_add_bias_into_gemm", dt, matmul_add_nested(dt),
               TOL.get(dt), dt == T.FLOAT)
    for dt in FLOATS:
        yield ("bn_gemm_" + NAME[dt], "fuse_bn_into_gemm", dt, bn_into_gemm(dt, False), TOL[dt], dt == T.FLOAT)
        yield ("bn_matmul_" + NAME[dt], "fuse_bn_into_gemm", dt, bn_into_gemm(dt, True), TOL[dt], dt == T.FLOAT)
    for dt in [T.FLOAT, T.FLOAT16, T.DOUBLE]:           # Conv-13's types
        yield ("bn_conv_" + NAME[dt], "fuse_bn_into_conv", dt, conv_then(dt, "bn"), TOL[dt], dt == T.FLOAT)
        yield ("add_bias_" + NAME[dt], "fuse_add_bias_into_conv", dt, conv_then(dt, "add"), TOL[dt], dt == T.FLOAT)
    # the second node's constants made between the two nodes
    yield ("bn_conv_between_float", "fuse_bn_into_conv", T.FLOAT, conv_then(T.FLOAT, "bn", True), TOL[T.FLOAT], True)
    yield ("add_bias_between_float", "fuse_add_bias_into_conv", T.FLOAT, conv_then(T.FLOAT, "add", True),
           TOL[T.FLOAT], True)
    for dt in TRANSPOSE:
        yield ("transposes_" + NAME[dt], "fuse_consecutive_transposes", dt, transposes(dt), None, True)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    lines = []
    for stem, pass_name, _dt, m, tol, fuses in cases():
        with open(os.path.join(outdir, stem + ".onnx"), "wb") as fp:
            fp.write(m.SerializeToString())
        lines.append("%s.onnx\t%s\t%s\t%d" % (stem, pass_name, tol or "-", 1 if fuses else 0))
    with open(os.path.join(outdir, "manifest.tsv"), "w") as fp:
        fp.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
