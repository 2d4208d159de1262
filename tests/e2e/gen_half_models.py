#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the float16 and bfloat16 models of the optimize suite's
"which roundings ONNX Runtime skips" tests (tests/test_optimize.c).

Usage:
    /usr/bin/python3 gen_half_models.py OUTDIR

Needs python3-onnx and python3-numpy. Every model passes
onnx.checker.check_model; the output is deterministic.

ONNX Runtime's CPU provider has no float16 kernel for many operators
(Add, Mul, Resize, Softmax, Sigmoid, Conv, Pad, Dropout from opset 13, ...):
it computes them in float, with a Cast to float before and a Cast back to
float16 after, and drops the Casts between two such nodes, so the float16
value between them is never rounded. It also computes in float a node that
has a float16 kernel (Transpose, Identity, Reshape, Cast, Dropout at opset
11, ...) when every node that makes a float16 value it reads, and every
node that reads one it makes, is a node it computes in float (graph inputs
and initializers do not count, but it must read something a node makes; it
has no subgraph and makes no graph output): an "isolated" node. A pass that removes a node that reads
such a value, or that sits between two such nodes, can make a node isolated
that was not, and the roundings between them go. Each float16 model below
is one such case (the pass and its arguments in the test), named h16_*
(one of them, h16_nop_pad_layernorm, the other way: a rounding more);
n16_* are the cases where the removed node was computed in float already,
so that nothing changes.

bfloat16 (b16_*): ONNX Runtime never computes a bfloat16 node in float (it
inserts Casts for float16 only): a model with a bfloat16 node it has no
kernel for does not load, and one it loads computes what it says.

Every float16 model reads X float16 [N,2,4,4] (N symbolic, so that ONNX
Runtime cannot fold a Shape of it) unless said otherwise, and all but
h16_nop_pad_layernorm start with a = Add(X, c) (float in ONNX Runtime: no
float16 kernel).

  h16_fold_shape_resize_op{11,13,18,19,21}
      a -> Transpose -> t; Shape(t) -> Slice [0:2] -> Concat(., [7, 9]) ->
      Resize's sizes; Resize(t) -> Mul(., c) -> Z. With --input-shape the
      sizes fold and the Shape is dead: the Transpose is then isolated.
  h16_dead_shape_softmax
      a -> Transpose -> t -> Softmax -> Z; a dead Shape(t) -> Slice.
  h16_identity_resize
      a -> Identity -> Transpose -> Resize (scales) -> Z (opset 18).
  h16_nop_transpose_sigmoid
      a -> Transpose perm [0,1,2,3] -> Transpose [0,1,3,2] -> Sigmoid -> Z
      (opset 19).
  h16_nop_reshape_resize
      X [2,2,4,4]: a -> Reshape [2,2,4,4] -> Transpose -> Resize -> Z
      (opset 21).
  h16_dead_shape_layernorm, h16_fold_shape_layernorm
      a -> LayerNormalization -> t (opsets 18, 21; a float16 kernel, which
      ONNX Runtime's own optimizations leave in place); a dead Shape(t), or
      Shape(t) -> ... -> Resize's sizes as above; Resize(t) -> Z.
  h16_nop_cast_conv
      a -> Cast to float16 -> Transpose -> Conv 1x1 (float16 weights) -> Z.
  h16_nop_dropout_op11
      a -> Dropout (opset 11: a float16 kernel) -> Transpose -> Resize -> Z.
  h16_consecutive_transposes
      a -> Transpose [0,1,3,2] -> Transpose [0,2,1,3] -> Resize -> Z.
  h16_nop_pad_layernorm
      X -> Transpose -> Pad of zeros -> LayerNormalization -> Resize -> Z
      (opset 18): the LayerNormalization is computed in float while the Pad
      (no float16 kernel) is there, in float16 (its output rounded) once
      it goes: a rounding more.
  n16_nop_dropout_op13
      as h16_nop_dropout_op11 at opset 13, where Dropout has no float16
      kernel.
  n16_fold_tile_concat
      Concat(a, Tile(W)) -> Resize -> Z: the Tile (no float16 kernel) of a
      constant folds; the Concat, isolated before, is isolated still (an
      initializer does not count).
  n16_nop_pad_resize
      a -> Pad of zeros (no float16 kernel) -> Transpose -> Resize -> Z.
  n16_identity_between_floats
      a -> Identity -> Resize -> Z: the Identity was isolated already.
  b16_resize
      X float [N,2,4,4] -> Cast bfloat16 -> Add -> Transpose (a dead Shape
      of it) -> Resize -> Cast float -> Z: ONNX Runtime does not load it.
  b16_moves
      X float [N,2,4,4] -> Cast bfloat16 -> Identity -> Transpose perm
      [0,1,2,3] -> Transpose [0,1,3,2] -> Cast bfloat16 -> Reshape
      [0,2,4,4] -> (a dead Shape of it) -> Concat with itself ->
      Cast float -> Z: every node has a bfloat16 kernel.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import save  # noqa: E402

H = TensorProto.FLOAT16
B = TensorProto.BFLOAT16
F = TensorProto.FLOAT


def model_of(nodes, inputs, outputs, inits, opset):
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_half_models",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def halves(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float16), name)


def bhalves(name, values):
    # bfloat16 as raw_data: the upper 16 bits of each float
    bits = (np.array(values, dtype=np.float32).view(np.uint32) >> 16).astype("<u2")
    t = TensorProto(name=name, data_type=B, dims=[len(values)])
    t.raw_data = bits.tobytes()
    return t


def resize(src, out, opset, inits, sizes=None):
    """A linear Resize of @src; scales [1,1,2,2] unless @sizes names them."""
    if opset < 13:
        if "roi" not in [i.name for i in inits]:
            inits.append(numpy_helper.from_array(np.zeros([0], dtype=np.float32), "roi"))
        if sizes:
            inits.append(numpy_helper.from_array(np.zeros([0], dtype=np.float32), "no_scales"))
            ins = [src, "roi", "no_scales", sizes]
        else:
            inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales"))
            ins = [src, "roi", "scales"]
    elif sizes:
        ins = [src, "", "", sizes]
    else:
        inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales"))
        ins = [src, "", "scales"]
    return helper.make_node("Resize", ins, [out], name="resize", mode="linear")


def half_model(outdir, name, opset, middle, tail, dims=("N", 2, 4, 4), extra_inits=()):
    """X -> Add(X, c) -> a -> @middle nodes (reading a, making t) -> @tail(t) -> Z."""
    inits = [halves("c", [0.3]), *extra_inits]
    nodes = [helper.make_node("Add", ["X", "c"], ["a"], name="add")]
    nodes += middle
    nodes += tail(inits)
    save(model_of(nodes, [helper.make_tensor_value_info("X", H, list(dims))],
                  [helper.make_tensor_value_info("Z", H, ["z0", "z1", "z2", "z3"])], inits, opset), outdir, name)


def shape_chain(src, out, inits):
    """Shape(@src)[0:2] ++ [7, 9] -> @out."""
    inits += [ints("s_begin", [0]), ints("s_end", [2]), ints("hw", [7, 9])]
    return [helper.make_node("Shape", [src], ["shp"], name="shape"),
            helper.make_node("Slice", ["shp", "s_begin", "s_end"], ["nc"], name="slice"),
            helper.make_node("Concat", ["nc", "hw"], [out], name="concat", axis=0)]


def transpose(src, out, perm, name="transpose"):
    return helper.make_node("Transpose", [src], [out], name=name, perm=perm)


def gen_half(outdir):
    for opset in (11, 13, 18, 19, 21):
        def tail(inits, opset=opset):
            return shape_chain("t", "sizes", inits) + [
                resize("t", "y", opset, inits, sizes="sizes"),
                helper.make_node("Mul", ["y", "c"], ["Z"], name="mul")]
        half_model(outdir, "h16_fold_shape_resize_op%d.onnx" % opset, opset,
                   [transpose("a", "t", [0, 1, 3, 2])], tail)

    half_model(outdir, "h16_dead_shape_softmax.onnx", 13, [transpose("a", "t", [0, 1, 3, 2])],
               lambda inits: shape_chain("t", "dead", inits)
               + [helper.make_node("Softmax", ["t"], ["Z"], name="softmax", axis=-1)])
    half_model(outdir, "h16_identity_resize.onnx", 18,
               [helper.make_node("Identity", ["a"], ["ai"], name="identity"), transpose("ai", "t", [0, 1, 3, 2])],
               lambda inits: [resize("t", "Z", 18, inits)])
    half_model(outdir, "h16_nop_transpose_sigmoid.onnx", 19,
               [transpose("a", "an", [0, 1, 2, 3], "nop_transpose"), transpose("an", "t", [0, 1, 3, 2])],
               lambda inits: [helper.make_node("Sigmoid", ["t"], ["Z"], name="sigmoid")])
    half_model(outdir, "h16_nop_reshape_resize.onnx", 21,
               [helper.make_node("Reshape", ["a", "same"], ["ar"], name="nop_reshape"),
                transpose("ar", "t", [0, 1, 3, 2])],
               lambda inits: [resize("t", "Z", 21, inits)], dims=(2, 2, 4, 4), extra_inits=[ints("same", [2, 2, 4, 4])])
    half_model(outdir, "h16_nop_cast_conv.onnx", 13,
               [helper.make_node("Cast", ["a"], ["ac"], name="nop_cast", to=H), transpose("ac", "t", [0, 1, 3, 2])],
               lambda inits: [helper.make_node("Conv", ["t", "w"], ["Z"], name="conv")],
               extra_inits=[numpy_helper.from_array(np.array([[1.25, -0.5], [0.75, 2.0]], dtype=np.float16)
                                                    .reshape(2, 2, 1, 1), "w")])
    for opset, prefix in ((11, "h16"), (13, "n16")):
        half_model(outdir, "%s_nop_dropout_op%d.onnx" % (prefix, opset), opset,
                   [helper.make_node("Dropout", ["a"], ["ad"], name="nop_dropout"), transpose("ad", "t", [0, 1, 3, 2])],
                   lambda inits, opset=opset: [resize("t", "Z", opset, inits)])
    half_model(outdir, "h16_consecutive_transposes.onnx", 13,
               [transpose("a", "a1", [0, 1, 3, 2], "transpose_1"), transpose("a1", "t", [0, 2, 1, 3], "transpose_2")],
               lambda inits: [resize("t", "Z", 13, inits)])
    layer_norm = [halves("gamma", [1.125, 0.875, 1.25, 0.75]), halves("beta", [0.125, -0.25, 0.375, 0.5])]
    half_model(outdir, "h16_dead_shape_layernorm.onnx", 18,
               [helper.make_node("LayerNormalization", ["a", "gamma", "beta"], ["t"], name="layernorm", axis=-1)],
               lambda inits: shape_chain("t", "dead", inits) + [resize("t", "Z", 18, inits)], extra_inits=layer_norm)
    half_model(outdir, "h16_fold_shape_layernorm.onnx", 21,
               [helper.make_node("LayerNormalization", ["a", "gamma", "beta"], ["t"], name="layernorm", axis=-1)],
               lambda inits: shape_chain("t", "sizes", inits) + [resize("t", "Z", 21, inits, sizes="sizes")],
               extra_inits=layer_norm)
    # a rounding more: X -> Transpose (never in float: it reads a graph
    # input) -> Pad of zeros -> LayerNormalization, in float while the Pad
    # (no float16 kernel) is there, in float16 once it goes
    inits = layer_norm + [ints("zeros", [0] * 8)]
    nodes = [transpose("X", "t", [0, 1, 3, 2]),
             helper.make_node("Pad", ["t", "zeros"], ["tp"], name="nop_pad"),
             helper.make_node("LayerNormalization", ["tp", "gamma", "beta"], ["n"], name="layernorm", axis=-1)]
    nodes.append(resize("n", "Z", 18, inits))
    save(model_of(nodes, [helper.make_tensor_value_info("X", H, ["N", 2, 4, 4])],
                  [helper.make_tensor_value_info("Z", H, ["z0", "z1", "z2", "z3"])], inits, 18),
         outdir, "h16_nop_pad_layernorm.onnx")
    # an initializer in place of a node's output counts for nothing
    half_model(outdir, "n16_fold_tile_concat.onnx", 13,
               [helper.make_node("Tile", ["W", "reps"], ["wt"], name="tile"),
                helper.make_node("Concat", ["a", "wt"], ["t"], name="concat", axis=0)],
               lambda inits: [resize("t", "Z", 13, inits)],
               extra_inits=[halves("W", (np.arange(32) / 7).reshape(1, 2, 4, 4)), ints("reps", [1, 1, 1, 1])])
    half_model(outdir, "n16_nop_pad_resize.onnx", 13,
               [helper.make_node("Pad", ["a", "zeros"], ["ap"], name="nop_pad"), transpose("ap", "t", [0, 1, 3, 2])],
               lambda inits: [resize("t", "Z", 13, inits)], extra_inits=[ints("zeros", [0] * 8)])
    half_model(outdir, "n16_identity_between_floats.onnx", 13,
               [helper.make_node("Identity", ["a"], ["t"], name="identity")],
               lambda inits: [resize("t", "Z", 13, inits)])


def gen_bfloat(outdir):
    x = [helper.make_tensor_value_info("X", F, ["N", 2, 4, 4])]
    z = [helper.make_tensor_value_info("Z", F, ["z0", "z1", "z2", "z3"])]

    inits = [bhalves("c", [0.3])]
    nodes = [helper.make_node("Cast", ["X"], ["xb"], name="to_bf16", to=B),
             helper.make_node("Add", ["xb", "c"], ["a"], name="add"),
             transpose("a", "t", [0, 1, 3, 2])]
    nodes += shape_chain("t", "dead", inits)
    nodes += [resize("t", "y", 13, inits), helper.make_node("Cast", ["y"], ["Z"], name="to_float", to=F)]
    save(model_of(nodes, x, z, inits, 13), outdir, "b16_resize.onnx")

    inits = [ints("keep", [0, 2, 4, 4])]
    nodes = [helper.make_node("Cast", ["X"], ["xb"], name="to_bf16", to=B),
             helper.make_node("Identity", ["xb"], ["xi"], name="identity"),
             transpose("xi", "xn", [0, 1, 2, 3], "nop_transpose"),
             transpose("xn", "t", [0, 1, 3, 2]),
             helper.make_node("Cast", ["t"], ["tc"], name="nop_cast", to=B),
             helper.make_node("Reshape", ["tc", "keep"], ["r"], name="nop_reshape")]
    nodes += shape_chain("r", "dead", inits)
    nodes += [helper.make_node("Concat", ["r", "r"], ["y"], name="concat_y", axis=1),
              helper.make_node("Cast", ["y"], ["Z"], name="to_float", to=F)]
    save(model_of(nodes, x, z, inits, 13), outdir, "b16_moves.onnx")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_half_models.py OUTDIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    gen_half(sys.argv[1])
    gen_bfloat(sys.argv[1])


if __name__ == "__main__":
    main()
