#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate models whose shape rules and folds meet extreme values.

Usage:
    /usr/bin/python3 gen_extreme_models.py OUTDIR [FAMILY ...]

Writes OUTDIR/*.onnx and OUTDIR/list.txt (one model name a line) for the
families named (slice, range, bad, size, signs, pad, resize; default: all). Needs
python3-onnx and python3-numpy; deterministic. tests/test_fold.c runs
scs4onnx-optimize on each (folding with --write-shapes, and --write-shapes
alone) and check_extreme.py compares every output with its input in ONNX
Runtime: values bit for bit, declared dims against computed ones, and a
model ONNX Runtime refuses must stay refused.

Families (one model holds many valid cases, each with its own outputs; an
invalid case, which ONNX Runtime refuses, is a model of its own):

  ext_slice_d{0,1,5}   Slice of X [d] (shape inference, then Shape(Y)
                       folded from it) and of a constant [d] (the
                       evaluator) at every start and end in {INT64_MIN,
                       -INT64_MAX, INT32_MIN, -6, -5, -1, 0, 1, 4, 5, 6,
                       INT32_MAX, INT64_MAX} and step in {INT64_MIN,
                       -INT64_MAX, -2, -1, 1, 2, INT64_MAX}, int64 and
                       int32 indices.
  ext_range            Range of float, double, int16, int32 and int64
                       constants (counts a float difference rounds up, as
                       Range(-3, -0.8, 0.2)), into Shape too.
  ext_size_2p64        X [2^32, 2^32]: Size(X) (the product passes INT64_MAX:
                       not folded) and Shape(Reshape(X, [-1])).
  ext_zero_*, ext_nan_* every kernel of the evaluator (arithmetic, Min and
                       Max of 2, 3 and 5 inputs, comparisons, Abs, Neg,
                       Sqrt, Reciprocal, Where, Pow, Cast, ReduceSum,
                       ReduceProd, data movement) on float, float16 and
                       double constants holding +0, -0, +-1, 2.5, +-inf
                       (ext_zero_*) and NaNs with payloads, negative and
                       signalling (ext_nan_*), every pair of them.
  ext_pad_MODE_B_E_{x,c}
                       Pad of X [3] (into Shape) and of a constant [3] by
                       pads (B, E), B in -4 .. 7, E in {-1, 0, 3}, in
                       each mode: ONNX Runtime refuses negative pads but
                       in constant mode, reflect pads of the dim or more,
                       and an empty axis (wrap: pads in [0, 3] only, as
                       ONNX Runtime returns memory it never set past them).
  ext_resize           Resize of X [1, 1, 7] and Z [1, 1, 13] by scales whose
                       products land on, just off and between integers, into
                       Shape (ONNX Runtime's kernel and its own folding of
                       Shape differ just off an integer).
  ext_bad_*            one invalid node each whose output's Shape or Size
                       would fold: Reshape to [2^32, 2^32], to a count that
                       differs, with two -1; Expand to a dim that does not
                       broadcast; Range of float16; Slice with a repeated
                       axis, step 0, an axis past the rank; Squeeze of a
                       dim not 1; TopK with K past the dim; Transpose with
                       a perm too short; Split into parts that do not add
                       up, or negative; Concat on an axis past the rank, or
                       of dims that differ; MatMul and Gemm of inner dims
                       that differ.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

I64MIN, I64MAX, I32MIN, I32MAX = -2**63, 2**63 - 1, -2**31, 2**31 - 1


def save(outdir, names, name, nodes, inputs, outputs, inits, opset=17):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], ir_version=8)
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(outdir, name + ".onnx"))
    names.append(name + ".onnx")


def out(name, elem, rank):
    """A graph output of known rank and unknown dims (--write-shapes fills them)."""
    return h.make_tensor_value_info(name, elem, [None] * rank)


def slices(outdir, names):
    ends = [I64MIN, -I64MAX, I32MIN, -6, -5, -1, 0, 1, 4, 5, 6, I32MAX, I64MAX]
    steps = [I64MIN, -I64MAX, -2, -1, 1, 2, I64MAX]
    for d in (0, 1, 5):
        nodes, outs, inits = [], [], [nh.from_array(np.arange(d, dtype=np.float32), "C")]
        k = 0
        for s in ends:
            for e in ends:
                for st in steps:
                    # int32 indices where the values fit (a few: the model stays small)
                    it = np.int32 if st in (-1, 1, 2) and I32MIN <= s <= I32MAX and I32MIN <= e <= I32MAX and \
                        (k % 3 == 0) else np.int64
                    inits += [nh.from_array(np.array([s], it), "s%d" % k), nh.from_array(np.array([e], it), "e%d" % k),
                              nh.from_array(np.array([0], it), "a%d" % k), nh.from_array(np.array([st], it), "p%d" % k)]
                    args = ["s%d" % k, "e%d" % k, "a%d" % k, "p%d" % k]
                    nodes += [h.make_node("Slice", ["X"] + args, ["y%d" % k]),
                              h.make_node("Shape", ["y%d" % k], ["sy%d" % k]),
                              h.make_node("Slice", ["C"] + args, ["c%d" % k])]
                    outs += [out("y%d" % k, TP.FLOAT, 1), out("sy%d" % k, TP.INT64, 1), out("c%d" % k, TP.FLOAT, 1)]
                    k += 1
        save(outdir, names, "ext_slice_d%d" % d, nodes, [h.make_tensor_value_info("X", TP.FLOAT, [d])], outs, inits)


def ranges(outdir, names):
    cases = [(-3, -0.8, 0.2), (0, 1, 0.1), (1, 0, -0.1), (-1, 1, 0.2), (0.1, 2.2, 0.3), (10, 4, -2), (3, 9, 3),
             (-5, 5, 1 / 3), (0, 0, 1), (5, 1, 1), (0.5, 0.75, 0.05), (-0.8, -3, -0.2), (1e-3, 1e-2, 1e-3)]
    nodes, outs, inits = [], [], []
    k = 0
    for t, elem in ((np.float32, TP.FLOAT), (np.float64, TP.DOUBLE), (np.int16, TP.INT16), (np.int32, TP.INT32),
                    (np.int64, TP.INT64)):
        for s, l, d in cases:
            if t in (np.int16, np.int32, np.int64):
                s, l, d = int(round(s * 7)), int(round(l * 7)), int(round(d * 7)) or 1
            inits += [nh.from_array(np.array(s, t), "rs%d" % k), nh.from_array(np.array(l, t), "rl%d" % k),
                      nh.from_array(np.array(d, t), "rd%d" % k)]
            nodes += [h.make_node("Range", ["rs%d" % k, "rl%d" % k, "rd%d" % k], ["r%d" % k]),
                      h.make_node("Shape", ["r%d" % k], ["sr%d" % k])]
            outs += [out("r%d" % k, elem, 1), out("sr%d" % k, TP.INT64, 1)]
            k += 1
    # float and double as typed fields too (float_data, double_data)
    for t, elem in ((TP.FLOAT, TP.FLOAT), (TP.DOUBLE, TP.DOUBLE)):
        inits += [h.make_tensor("rs%d" % k, t, [], [-3.0]), h.make_tensor("rl%d" % k, t, [], [-0.8]),
                  h.make_tensor("rd%d" % k, t, [], [0.2])]
        nodes += [h.make_node("Range", ["rs%d" % k, "rl%d" % k, "rd%d" % k], ["r%d" % k]),
                  h.make_node("Shape", ["r%d" % k], ["sr%d" % k])]
        outs += [out("r%d" % k, elem, 1), out("sr%d" % k, TP.INT64, 1)]
        k += 1
    save(outdir, names, "ext_range", nodes, [], outs, inits)


def bad(outdir, names):
    x4 = [h.make_tensor_value_info("X", TP.FLOAT, [4])]

    def one(name, node, inits, opset=17, x2=False):
        nodes = [node, h.make_node("Shape", ["Y"], ["S"]), h.make_node("Size", ["Y"], ["N"])]
        save(outdir, names, name, nodes, [h.make_tensor_value_info("X", TP.FLOAT, [1, 4])] if x2 else x4,
             [out("S", TP.INT64, 1), h.make_tensor_value_info("N", TP.INT64, [])], inits, opset)

    def shape(name, v):
        return nh.from_array(np.array(v, np.int64), name)

    one("ext_bad_reshape_2p64", h.make_node("Reshape", ["X", "sh"], ["Y"]), [shape("sh", [2**32, 2**32])])
    one("ext_bad_reshape_2p63", h.make_node("Reshape", ["X", "sh"], ["Y"]), [shape("sh", [2**62, 4])])
    one("ext_bad_reshape_count", h.make_node("Reshape", ["X", "sh"], ["Y"]), [shape("sh", [3, 2])])
    one("ext_bad_reshape_two_minus1", h.make_node("Reshape", ["X", "sh"], ["Y"]), [shape("sh", [-1, -1])])
    one("ext_bad_reshape_minus2", h.make_node("Reshape", ["X", "sh"], ["Y"]), [shape("sh", [-2, 2])])
    one("ext_bad_reshape_zero_past", h.make_node("Reshape", ["X", "sh"], ["Y"]), [shape("sh", [4, 0])])
    one("ext_bad_reshape_allowzero", h.make_node("Reshape", ["X", "sh"], ["Y"], allowzero=1), [shape("sh", [0, -1])])
    one("ext_bad_reshape_minus1", h.make_node("Reshape", ["X", "sh"], ["Y"]), [shape("sh", [3, -1])])
    one("ext_bad_expand", h.make_node("Expand", ["X", "sh"], ["Y"]), [shape("sh", [3])])
    one("ext_bad_expand_zero", h.make_node("Expand", ["X", "sh"], ["Y"]), [shape("sh", [2, 0])])
    one("ext_bad_slice_axes", h.make_node("Slice", ["X", "st", "en", "ax"], ["Y"]),
        [shape("st", [0, 1]), shape("en", [2, 3]), shape("ax", [0, 0])])
    one("ext_bad_slice_step0", h.make_node("Slice", ["X", "st", "en", "ax", "sp"], ["Y"]),
        [shape("st", [0]), shape("en", [2]), shape("ax", [0]), shape("sp", [0])])
    one("ext_bad_slice_axis", h.make_node("Slice", ["X", "st", "en", "ax"], ["Y"]),
        [shape("st", [0]), shape("en", [2]), shape("ax", [1])])
    one("ext_bad_squeeze", h.make_node("Squeeze", ["X", "ax"], ["Y"]), [shape("ax", [0])])
    one("ext_bad_topk", h.make_node("TopK", ["X", "k"], ["Y", "I"]), [shape("k", [5])])
    one("ext_bad_transpose", h.make_node("Transpose", ["X"], ["Y"], perm=[1]), [])
    one("ext_bad_split_sum", h.make_node("Split", ["X", "sp"], ["Y", "Y2"]), [shape("sp", [1, 2])])
    one("ext_bad_split_negative", h.make_node("Split", ["X", "sp"], ["Y", "Y2"]), [shape("sp", [5, -1])])
    one("ext_bad_concat_axis", h.make_node("Concat", ["X", "X"], ["Y"], axis=1), [])
    one("ext_bad_concat_dims", h.make_node("Concat", ["M", "X"], ["Y"], axis=0),
        [nh.from_array(np.ones((1, 3), np.float32), "M")], x2=True)
    one("ext_bad_matmul", h.make_node("MatMul", ["X", "M"], ["Y"]), [nh.from_array(np.ones((3, 2), np.float32), "M")])
    one("ext_bad_gemm", h.make_node("Gemm", ["X", "M"], ["Y"]), [nh.from_array(np.ones((3, 2), np.float32), "M")],
        x2=True)
    one("ext_bad_flatten_axis", h.make_node("Flatten", ["X"], ["Y"], axis=2), [])
    one("ext_bad_unsqueeze_axis", h.make_node("Unsqueeze", ["X", "ax"], ["Y"]), [shape("ax", [2])])
    one("ext_bad_gather_axis", h.make_node("Gather", ["X", "ix"], ["Y"], axis=1), [shape("ix", [0])])
    one("ext_bad_gather_index", h.make_node("Gather", ["X", "ix"], ["Y"]), [shape("ix", [4])])
    one("ext_bad_tile_negative", h.make_node("Tile", ["X", "r"], ["Y"]), [shape("r", [-1])])
    one("ext_bad_expand_negative", h.make_node("Expand", ["X", "sh"], ["Y"]), [shape("sh", [-1])])
    one("ext_bad_topk_negative", h.make_node("TopK", ["X", "k"], ["Y", "I"]), [shape("k", [-1])])
    one("ext_bad_onehot_depth", h.make_node("OneHot", ["X", "d", "v"], ["Y"]),
        [nh.from_array(np.array(-3, np.int64), "d"), nh.from_array(np.array([0, 1], np.float32), "v")])
    one("ext_bad_depth_to_space", h.make_node("DepthToSpace", ["X", ], ["Y"], blocksize=3), [])
    one("ext_bad_resize_sizes", h.make_node("Resize", ["X", "", "", "sz"], ["Y"]), [shape("sz", [-4])])
    one("ext_bad_constant_of_shape", h.make_node("ConstantOfShape", ["sh"], ["Y"]), [shape("sh", [-2])])
    one("ext_shape_extremes", h.make_node("Shape", ["X"], ["Y"], start=I64MIN, end=I64MAX), [])
    one("ext_bad_slice_huge_step", h.make_node("Slice", ["X", "st", "en", "ax", "sp"], ["Y"]),
        [shape("st", [I64MAX]), shape("en", [I64MIN]), shape("ax", [0]), shape("sp", [I64MIN])])
    x4 = [h.make_tensor_value_info("X", TP.FLOAT, [1, 1, 4])]
    for name, attrs in (("pool_pads_kernel", dict(kernel_shape=[2], pads=[2, 0])),
                        ("pool_kernel_past", dict(kernel_shape=[6])),
                        ("pool_stride0", dict(kernel_shape=[2], strides=[0])),
                        ("pool_pads_negative", dict(kernel_shape=[2], pads=[-1, 0])),
                        ("pool_dilation_huge", dict(kernel_shape=[2], dilations=[I64MAX])),
                        ("pool_stride_huge", dict(kernel_shape=[2], strides=[I64MAX]))):
        for op in ("MaxPool", "AveragePool"):
            if op == "AveragePool" and "dilations" in attrs:
                continue
            one("ext_bad_%s_%s" % (op.lower(), name), h.make_node(op, ["X"], ["Y"], **attrs), [])
    x4 = [h.make_tensor_value_info("X", TP.FLOAT, [4])]
    # Range of float16: not a type the schema allows
    save(outdir, names, "ext_bad_range_f16", [h.make_node("Range", ["a", "b", "c"], ["Y"]),
                                              h.make_node("Shape", ["Y"], ["S"])], [], [out("S", TP.INT64, 1)],
         [nh.from_array(np.array(v, np.float16), n) for n, v in (("a", 0), ("b", 3), ("c", 1))])


def size(outdir, names):
    nodes = [h.make_node("Size", ["X"], ["N"], name="size"), h.make_node("Reshape", ["X", "m1"], ["F"]),
             h.make_node("Shape", ["F"], ["S"])]
    save(outdir, names, "ext_size_2p64", nodes, [h.make_tensor_value_info("X", TP.FLOAT, [2**32, 2**32])],
         [h.make_tensor_value_info("N", TP.INT64, []), out("S", TP.INT64, 1)],
         [nh.from_array(np.array([-1], np.int64), "m1")])


def bits(t, words):
    """An array of element type @t from its raw bit patterns @words."""
    u = {np.float16: np.uint16, np.float32: np.uint32, np.float64: np.uint64}[t]
    return np.array(words, u).view(t)


# bit patterns: +0, -0, 1, -1, 2.5, +inf, -inf, then quiet NaNs with payloads, negative ones, signalling ones
WORDS = {
    np.float16: [0x0000, 0x8000, 0x3c00, 0xbc00, 0x4100, 0x7c00, 0xfc00, 0x7e01, 0xfe02, 0x7c03],
    np.float32: [0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x40200000, 0x7f800000, 0xff800000, 0x7fc00001,
                 0xffc00002, 0x7f800003, 0x7fc12345, 0xff812345],
    np.float64: [0, 1 << 63, 0x3ff0000000000000, 0xbff0000000000000, 0x4004000000000000, 0x7ff0000000000000,
                 0xfff0000000000000, 0x7ff8000000000001, 0xfff8000000000002, 0x7ff0000000000003, 0x7ff8123456789abc],
}


def signs(outdir, names):
    """Every kernel of the evaluator on constants holding +0, -0 (and, in ext_nan_*, NaNs with payloads)."""
    for nan in (False, True):
        for t, elem in ((np.float32, TP.FLOAT), (np.float16, TP.FLOAT16), (np.float64, TP.DOUBLE)):
            w = WORDS[t] if nan else WORDS[t][:7]
            a = bits(t, [x for x in w for y in w])
            b = bits(t, [y for x in w for y in w])
            c = np.array([(i * 7) % 3 == 0 for i in range(len(a))])
            inits = [nh.from_array(a, "A"), nh.from_array(b, "B"), nh.from_array(c, "C"),
                     nh.from_array(a.reshape(len(w), len(w)), "M"),
                     nh.from_array(np.array([1], np.int64), "ax"), nh.from_array(np.array([2, 0, 1], np.int64), "ix"),
                     nh.from_array(bits(t, w[1:2]), "negz"), nh.from_array(np.array(True), "t"),
                     nh.from_array(np.array([1], np.int64), "one"), nh.from_array(np.array([9], np.int64), "nine"),
                     nh.from_array(np.array([-1], np.int64), "minus1")]
            nodes, outs = [], []

            def add(op, ins, oelem=elem, rank=1, **attrs):
                o = "%s%d" % (op, len(nodes))
                nodes.append(h.make_node(op, ins, [o], **attrs))
                outs.append(out(o, oelem, rank))

            for op in ("Add", "Sub", "Mul", "Div", "Min", "Max"):
                add(op, ["A", "B"])
            for op in ("Min", "Max"):
                add(op, ["A", "B", "A"])
                add(op, ["A", "B", "B", "A", "B"])
                add(op, ["A", "negz"])
            for op in ("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"):
                add(op, ["A", "B"], TP.BOOL)
            for op in ("Abs", "Neg", "Sqrt", "Reciprocal", "Identity"):
                add(op, ["A"])
            add("Where", ["C", "A", "B"])
            add("Where", ["t", "negz", "B"])
            add("Pow", ["A", "B"])
            for to in (TP.FLOAT, TP.FLOAT16, TP.DOUBLE):
                if to != elem:
                    add("Cast", ["A"], to, to=to)
            add("ReduceSum", ["M", "ax"], keepdims=0)
            add("ReduceSum", ["M"], rank=2, keepdims=1)
            add("ReduceProd", ["M"], axes=[1], keepdims=0)
            add("Concat", ["A", "B"], axis=0)
            add("Slice", ["A", "one", "nine"])
            add("Gather", ["A", "ix"])
            add("Transpose", ["M"], rank=2)
            add("Expand", ["negz", "nine"])
            add("Reshape", ["M", "minus1"])
            save(outdir, names, "ext_%s_%s" % ("nan" if nan else "zero", np.dtype(t).name), nodes, [], outs, inits)


def pads(outdir, names):
    """Pad in every mode, one model a case (ONNX Runtime refuses many): of X [3] into Shape, and of a constant."""
    for mode in ("constant", "reflect", "edge", "wrap"):
        for b in (-4, -3, -2, -1, 0, 2, 3, 4, 7):
            for e in (-1, 0, 3):
                if mode == "wrap" and (b < 0 or e < 0 or b > 3):
                    continue     # ONNX Runtime writes memory it never set there: nothing to compare with
                p = nh.from_array(np.array([b, e], np.int64), "p")
                save(outdir, names, "ext_pad_%s_%d_%d_x" % (mode, b, e),
                     [h.make_node("Pad", ["X", "p"], ["Y"], mode=mode), h.make_node("Shape", ["Y"], ["S"])],
                     [h.make_tensor_value_info("X", TP.FLOAT, [3])], [out("S", TP.INT64, 1)], [p])
                save(outdir, names, "ext_pad_%s_%d_%d_c" % (mode, b, e), [h.make_node("Pad", ["C", "p"], ["Z"], mode=mode)],
                     [], [out("Z", TP.FLOAT, 1)], [p, nh.from_array(np.array([1, 2, 3], np.float32), "C")])


def resizes(outdir, names):
    """Resize of X [1, 1, 7] and [1, 1, 13] by scales whose products land on, near and between integers."""
    nodes, outs, inits = [], [], []
    for i, sc in enumerate((1.1, 0.3333333, 2.5, 1e-8, 0.142857, 1.0000001, 0.99999994, 3.0000002, 13 / 7, 0.5,
                            100.3, 7 / 13, 2 / 7)):
        inits.append(nh.from_array(np.array([1, 1, sc], np.float32), "s%d" % i))
        for x in ("X", "Z"):
            nodes += [h.make_node("Resize", [x, "", "s%d" % i], ["y%s%d" % (x, i)], mode="nearest"),
                      h.make_node("Shape", ["y%s%d" % (x, i)], ["s%s%d" % (x, i)])]
            outs.append(out("s%s%d" % (x, i), TP.INT64, 1))
    save(outdir, names, "ext_resize", nodes, [h.make_tensor_value_info("X", TP.FLOAT, [1, 1, 7]),
                                              h.make_tensor_value_info("Z", TP.FLOAT, [1, 1, 13])], outs, inits)


FAMILIES = {"slice": slices, "range": ranges, "bad": bad, "size": size, "signs": signs, "pad": pads, "resize": resizes}


def main(argv):
    if len(argv) < 2 or any(f not in FAMILIES for f in argv[2:]):
        sys.stderr.write("usage: gen_extreme_models.py OUTDIR [%s ...]\n" % "|".join(FAMILIES))
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    names = []
    for f in argv[2:] or FAMILIES:
        FAMILIES[f](outdir, names)
    with open(os.path.join(outdir, "list.txt"), "w") as f:
        f.write("\n".join(names) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
