#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Differential test of constant folding and shape inference against ONNX Runtime.

Usage:
    /usr/bin/python3 fold_differential.py --tools BUILD/tools
        [--known fold-differential-known.txt] [--count N --seed S]
        [--only SUBSTRING] [--jobs 2] [--work DIR] [--keep] [--list]

Makes small models, one node of every operator the evaluator has a kernel
for (src/eval/eval.c) at opsets 21, 19, 18, 13, 11, 9 and 7 (those defining it),
on every element type its schema allows, and short chains (Shape, Gather,
Concat, Reshape; Range then Mul; Cast chains; Slice of Shape). Their inputs
are constants with edge values: signed zeros, NaNs of several payloads and
signs, infinities, denormals, the extremes of each integer type, INT64_MIN
and INT64_MAX as indices, axes and attributes, negative axes, empty tensors,
scalars, broadcasting shapes, in raw_data and in the typed fields. A second
form of many cases takes the data input as a graph input of partly known
shape, so that shape inference decides (the node stays; --write-shapes
declares its output).

Each model IN goes through
    scs4onnx-optimize IN OUT -p fold_constants,eliminate_unused_initializer
        --fold-grow --write-shapes -n
and is judged, ONNX Runtime (fold_differential.mjs) being the judge:
  tool      the optimizer exits 0 silently (exit 1 with one line is a
            refusal, a defect when ONNX Runtime runs IN);
  checker   onnx.checker passes on OUT whenever it passes on IN;
  output    when ONNX Runtime runs IN it runs OUT, outputs bit-identical;
  fixed     when ONNX Runtime refuses IN, OUT does not run either;
  shape     every dim OUT declares (graph outputs, value_info) of a graph
            output equals the dim ONNX Runtime gives it.

The fixed set (no --count) is the same every run. --count N adds N cases
drawn with --seed S (default 1) from the same generators with random
values, shapes and encodings, for longer hunts ("rnd-S-K-..." ids).

Mismatches are printed one a line, "CLASS ID: detail"; a case id listed in
KNOWN (lines "ID CLASS", '#' comments) is printed as known instead. Ends
with one summary line; exit status 0 when nothing unlisted went wrong.
"""

import argparse
import concurrent.futures
import functools
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

import numpy as np
import onnx
from onnx import TensorProto as TP, helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSETS = (21, 19, 18, 13, 11, 9, 7)
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")

# element types ONNX Runtime's node binding can feed and read
TYPES = {
    "float": (TP.FLOAT, np.float32), "double": (TP.DOUBLE, np.float64), "float16": (TP.FLOAT16, np.float16),
    "int8": (TP.INT8, np.int8), "int16": (TP.INT16, np.int16), "int32": (TP.INT32, np.int32),
    "int64": (TP.INT64, np.int64), "uint8": (TP.UINT8, np.uint8), "uint16": (TP.UINT16, np.uint16),
    "uint32": (TP.UINT32, np.uint32), "uint64": (TP.UINT64, np.uint64), "bool": (TP.BOOL, np.bool_),
}
BY_ENUM = {v[0]: k for k, v in TYPES.items()}
SCHEMA_NAME = {"tensor(%s)" % k: k for k in TYPES}
FLOATS = ("float", "double", "float16")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def f32_bits(u):
    return np.array([u], dtype=np.uint32).view(np.float32)[0]


def f64_bits(u):
    return np.array([u], dtype=np.uint64).view(np.float64)[0]


def f16_bits(u):
    return np.array([u], dtype=np.uint16).view(np.float16)[0]


LOCAL = threading.local()      # .rng: a random case's generator (None: the fixed values)


def edges(t):
    """Edge values of type @t, a 1-D array; for a random case shuffled, some
    replaced by random values of the type (random bits for floats)."""
    e = fixed_edges(t)
    rng = getattr(LOCAL, "rng", None)
    if rng is None:
        return e
    e = e.copy()
    rng.shuffle(e)
    raw = e.view(np.uint8).reshape(len(e), -1)
    for k in range(len(e)):
        if rng.random() < 0.3 and t != "bool":
            raw[k] = np.frombuffer(rng.randbytes(raw.shape[1]), np.uint8)
    return e


def fixed_edges(t):
    """The fixed edge values of type @t."""
    if t == "float":
        bits = [0x00000000, 0x80000000, 0x7fc00000, 0xffc00000, 0x7fc00123, 0xff812345, 0x7f800001,
                0x7f800000, 0xff800000, 0x00000001, 0x80000001, 0x007fffff, 0x7f7fffff, 0xff7fffff,
                0x3f800000, 0xbfc00000, 0x40200000, 0xc0200000, 0x3f000000, 0x4f000000, 0xdf000000,
                0x5f000000, 0x477fe000, 0x33800000]
        return np.array([f32_bits(b) for b in bits], dtype=np.float32)
    if t == "double":
        bits = [0, 1 << 63, 0x7ff8000000000000, 0xfff8000000000000, 0x7ff8000000000123,
                0xfff0000000012345, 0x7ff0000000000001, 0x7ff0000000000000, 0xfff0000000000000, 1,
                (1 << 63) | 1, 0x7fefffffffffffff, 0x3ff0000000000000, 0xbff8000000000000,
                0x4004000000000000, 0xc004000000000000, 0x3fe0000000000000, 0x43e0000000000000,
                0xc3e0000000000000, 0x47efffffe0000000, 0x36a0000000000000]
        return np.array([f64_bits(b) for b in bits], dtype=np.float64)
    if t == "float16":
        bits = [0x0000, 0x8000, 0x7e00, 0xfe00, 0x7e12, 0xfd01, 0x7c01, 0x7c00, 0xfc00, 0x0001, 0x8001,
                0x03ff, 0x7bff, 0xfbff, 0x3c00, 0xbe00, 0x4100, 0xc100, 0x3800]
        return np.array([f16_bits(b) for b in bits], dtype=np.float16)
    if t == "bool":
        return np.array([False, True, True, False, True, False, False, True], dtype=np.bool_)
    info = np.iinfo(TYPES[t][1])
    vals = [0, 1, 2, 7, info.max, info.max - 1, info.max // 2 + 1]
    if info.min < 0:
        vals += [-1, -2, -7, info.min, info.min + 1]
    else:
        vals += [128 % (info.max + 1), info.max // 3]
    return np.array(vals, dtype=TYPES[t][1])


def small(t, n=6):
    """Ordinary values of type @t (no extremes), @n of them."""
    base = [1, -2, 3, 0, -1, 2, 5, -3, 4, 1, -4, 6]
    if t == "bool":
        return np.array([v > 0 for v in base[:n]], dtype=np.bool_)
    if t in FLOATS:
        return np.array([v * 0.5 for v in base[:n]], dtype=TYPES[t][1])
    if t.startswith("uint"):
        return np.array([abs(v) for v in base[:n]], dtype=TYPES[t][1])
    return np.array(base[:n], dtype=TYPES[t][1])


# ------------------------------------------------------------------ tensors
def tensor(name, arr, typed):
    """A TensorProto of @arr: raw_data, or (typed) the field the type uses."""
    arr = np.asarray(arr)
    elem = [v[0] for v in TYPES.values() if np.dtype(v[1]) == arr.dtype][0]
    tp = TP()
    tp.name = name
    tp.data_type = elem
    tp.dims.extend(arr.shape)
    flat = arr.reshape(-1)
    if not typed:
        tp.raw_data = flat.tobytes()
        return tp
    if elem == TP.FLOAT:
        tp.float_data.extend(struct.unpack("<%df" % flat.size, flat.tobytes()))
    elif elem == TP.DOUBLE:
        tp.double_data.extend(flat.tolist())
    elif elem == TP.FLOAT16:
        tp.int32_data.extend(flat.view(np.uint16).astype(np.int32).tolist())
    elif elem in (TP.INT64,):
        tp.int64_data.extend(flat.tolist())
    elif elem in (TP.UINT32, TP.UINT64):
        tp.uint64_data.extend(int(v) for v in flat.tolist())
    else:
        tp.int32_data.extend(int(v) for v in flat.tolist())
    return tp


class Case:
    """One model: constants, graph inputs, nodes, outputs."""

    def __init__(self, cid, opset):
        self.id = cid
        self.opset = opset
        self.inits, self.consts, self.inputs, self.nodes, self.outputs = [], [], [], [], []
        self.n = 0
        self.typed = False
        self.as_node = False
        # set when ONNX Runtime's own result is undefined (a kernel that reads
        # past its input): its outputs prove nothing, and the node must stay
        self.undefined = None

    def const(self, arr, name=None):
        name = name or "c%d" % self.n
        self.n += 1
        tp = tensor(name, arr, self.typed)
        if self.as_node:
            self.consts.append(helper.make_node("Constant", [], [name], value=tp))
        else:
            self.inits.append(tp)
        return name

    def undefine(self, op):
        """ONNX Runtime's result of @op (None: of nothing) is undefined here."""
        self.undefined = op

    def input(self, t, dims, name=None):
        name = name or "x%d" % self.n
        self.n += 1
        self.inputs.append(helper.make_tensor_value_info(name, TYPES[t][0], dims))
        return name

    def node(self, op, ins, n_out=1, **attrs):
        outs = ["v%d" % (self.n + k) for k in range(n_out)]
        self.n += n_out
        self.nodes.append(helper.make_node(op, ins, outs, **attrs))
        return outs if n_out > 1 else outs[0]

    def out(self, name):
        self.outputs.append(name)

    def model(self):
        # each output a graph output through an Identity, so that --write-shapes
        # declares the node's own output in value_info
        nodes = self.consts + self.nodes
        outs = []
        for k, name in enumerate(self.outputs):
            nodes.append(helper.make_node("Identity", [name], ["y%d" % k]))
            outs.append("y%d" % k)
        g = helper.make_graph(nodes, "g", self.inputs, [], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 10 if self.opset >= 21 else 9 if self.opset >= 19 else 8 if self.opset >= 15 else 7
        try:
            inf = onnx.shape_inference.infer_shapes(m)
            types = {v.name: v.type for v in list(inf.graph.value_info) + list(inf.graph.output)}
        except Exception:
            types = {}
        for k, name in enumerate(self.outputs):
            ty = types.get(name)
            if ty is not None and ty.tensor_type.elem_type:
                vi = helper.make_tensor_value_info("y%d" % k, ty.tensor_type.elem_type, None)
                # (onnx 1.12 infers some of the older opsets' nodes wrongly: no rank there)
                if ty.tensor_type.HasField("shape") and self.opset >= 13:
                    # the rank, dims unknown: --write-shapes fills them in
                    vi.type.tensor_type.shape.dim.extend(
                        [onnx.TensorShapeProto.Dimension(dim_param="d%d_%d" % (k, a))
                         for a in range(len(ty.tensor_type.shape.dim))])
                m.graph.output.append(vi)
            else:
                m.graph.output.append(onnx.ValueInfoProto(name="y%d" % k))
        return m


# ------------------------------------------------------------------ schemas
def defined(op, opset):
    try:
        s = onnx.defs.get_schema(op, min(opset, 17))
    except Exception:
        return None
    return s if opset >= s.since_version or opset > 17 else None


def types_of(op, opset, which=0):
    """Element types the schema (as of @opset) allows for input @which."""
    s = defined(op, opset)
    if s is None:
        return []
    tname = s.inputs[which].typeStr
    for c in s.type_constraints:
        if c.type_param_str == tname:
            return [SCHEMA_NAME[x] for x in c.allowed_type_strs if x in SCHEMA_NAME]
    return [SCHEMA_NAME[tname]] if tname in SCHEMA_NAME else []


def out_types_of(op, opset):
    s = defined(op, opset)
    tname = s.outputs[0].typeStr
    for c in s.type_constraints:
        if c.type_param_str == tname:
            return [SCHEMA_NAME[x] for x in c.allowed_type_strs if x in SCHEMA_NAME]
    return []


def i64(v):
    return np.array(v, dtype=np.int64)


# ------------------------------------------------------------------ generators
# Each yields (variant, build) where build(case) fills the case; the driver
# makes one case per opset, type and variant.

UNARY = ("Abs", "Neg", "Sqrt", "Reciprocal", "Not", "Identity", "Acos", "Asin", "Atan", "Cos", "Cosh", "Erf",
         "Exp", "Log", "Sigmoid", "Sin", "Sinh", "Tan", "Tanh")
BINARY = ("Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual",
          "And", "Or", "Xor")
MATH = ("Acos", "Asin", "Atan", "Cos", "Cosh", "Erf", "Exp", "Log", "Sigmoid", "Sin", "Sinh", "Tan", "Tanh", "Pow")


def gen_unary(op, t, opset):
    yield "edges", lambda c: c.out(c.node(op, [c.const(edges(t))]))
    yield "scalar", lambda c: c.out(c.node(op, [c.const(edges(t)[-1].reshape(()))]))
    yield "empty", lambda c: c.out(c.node(op, [c.const(np.zeros((2, 0), TYPES[t][1]))]))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 3])]))


def int_divisors(t):
    e = edges(t)
    return e[(e != 0) & ((e != -1) if t not in INTS[4:] else True)]


def gen_binary(op, t, opset):
    e = edges(t)
    b = e
    if op == "Div" and t in INTS:
        b = int_divisors(t)
    if op == "Pow" and t in INTS:
        e, b = small(t), np.array([0, 1, 2, 3], dtype=TYPES[t][1])
    yield "outer", lambda c: c.out(c.node(op, [c.const(e.reshape(-1, 1)), c.const(b.reshape(1, -1))]))
    yield "scalar", lambda c: c.out(c.node(op, [c.const(e[:1].reshape(())), c.const(b[-1:].reshape(()))]))
    yield "bcast-empty", lambda c: c.out(c.node(op, [c.const(np.zeros((0, 1), TYPES[t][1])),
                                                    c.const(b[:3].reshape(1, 3))]))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 1]), c.const(b[:3].reshape(1, 3))]))
    if op == "Div" and t in INTS and t not in INTS[4:]:
        info = np.iinfo(TYPES[t][1])
        a = np.array([info.max, info.min + 1, 7, -7, 0], dtype=TYPES[t][1])
        yield "by-minus-one", lambda c: c.out(c.node(op, [c.const(a), c.const(np.array(-1, TYPES[t][1]))]))
        yield "trunc", lambda c: c.out(c.node(op, [c.const(np.array([7, -7, 7, -7, 1, -1], TYPES[t][1])),
                                                  c.const(np.array([2, 2, -2, -2, 3, 3], TYPES[t][1]))]))


def gen_variadic(op, t, opset):
    e = edges(t)
    yield "outer2", lambda c: c.out(c.node(op, [c.const(e.reshape(-1, 1)), c.const(e.reshape(1, -1))]))
    k = e[:8]
    yield "outer3", lambda c: c.out(c.node(op, [c.const(k.reshape(-1, 1, 1)), c.const(k.reshape(1, -1, 1)),
                                               c.const(k.reshape(1, 1, -1))]))
    yield "one", lambda c: c.out(c.node(op, [c.const(e)]))
    yield "same", lambda c: (lambda n: c.out(c.node(op, [n, n])))(c.const(e))


def gen_where(op, t, opset):
    e = edges(t)
    cond = np.array([[True], [False]])
    yield "outer", lambda c: c.out(c.node(op, [c.const(cond.reshape(2, 1, 1)), c.const(e.reshape(-1, 1)),
                                              c.const(e[::-1].reshape(1, -1))]))
    yield "scalar-cond", lambda c: c.out(c.node(op, [c.const(np.array(False)), c.const(e), c.const(e[:1])]))
    yield "empty", lambda c: c.out(c.node(op, [c.const(np.zeros((0, 1), np.bool_)), c.const(e[:2]),
                                              c.const(e[:1])]))


def gen_cast(op, t, opset):
    targets = out_types_of(op, opset) if op == "Cast" else types_of(op, opset, 1)
    for to in targets:
        if op == "Cast":
            yield "to-" + to, lambda c, to=to: c.out(c.node(op, [c.const(edges(t))], to=TYPES[to][0]))
        else:
            yield "like-" + to, lambda c, to=to: c.out(c.node(op, [c.const(edges(t)), c.const(small(to, 1))]))


def gen_dequantize(op, t, opset):
    e = edges(t)
    scales = [("float", np.float32)] + ([("float16", np.float16)] if opset >= 19 else [])
    for sn, sd in scales:
        sc = np.array([f32_bits(0x00000001), -0.0, 0.5, 3e38, float("inf"), float("nan")], dtype=sd) \
            if sn == "float" else np.array([0.5, -0.0, 65504, 6e-8], dtype=sd)
        for k, s in enumerate(sc):
            yield "s%s%d" % (sn, k), lambda c, s=s, sd=sd: c.out(c.node(op, [c.const(e), c.const(np.array(s, sd))]))
        if t != "int32":
            zp = e[-1]
            yield "zp-" + sn, lambda c, sd=sd, zp=zp: c.out(c.node(op, [c.const(e), c.const(np.array(0.25, sd)),
                                                                     c.const(np.array(zp, TYPES[t][1]))]))
        if opset >= 13:
            yield "axis-" + sn, lambda c, sd=sd: c.out(c.node(op, [c.const(e[:4].reshape(2, 2)),
                                                                  c.const(np.array([0.5, -2], sd)) ], axis=-1))


def gen_concat(op, t, opset):
    e = edges(t)
    yield "neg-axis", lambda c: c.out(c.node(op, [c.const(e[:4].reshape(2, 2)), c.const(e[4:6].reshape(2, 1))],
                                             axis=-1))
    yield "empty", lambda c: c.out(c.node(op, [c.const(np.zeros((0, 3), TYPES[t][1])),
                                               c.const(e[:3].reshape(1, 3))], axis=0))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 2]), c.const(e[:2].reshape(1, 2))], axis=-2))


def gen_constant_of_shape(op, t, opset):
    for k, v in enumerate(edges(t)[:6]):
        yield "v%d" % k, lambda c, v=v: c.out(c.node(op, [c.const(i64([2, 1]))],
                                                      value=tensor("v", np.array([v]), False)))
    yield "zero-dim", lambda c: c.out(c.node(op, [c.const(i64([3, 0]))], value=tensor("v", small(t, 1), False)))
    yield "rank0", lambda c: c.out(c.node(op, [c.const(i64([]))], value=tensor("v", small(t, 1), False)))
    yield "negative", lambda c: c.out(c.node(op, [c.const(i64([2, -1]))], value=tensor("v", small(t, 1), False)))


def gen_expand(op, t, opset):
    e = edges(t)
    for k, sh in enumerate(([2, 1, 3], [1], [3, 1], [0, 3], [-1, 3], [1, 1, 1, 1])):
        yield "s%d" % k, lambda c, sh=sh: c.out(c.node(op, [c.const(e[4:7].reshape(1, 3)), c.const(i64(sh))]))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 1]), c.const(i64([2, 1, 4]))]))


def gen_flatten(op, t, opset):
    a = small(t, 12).reshape(2, 3, 2)
    for ax in (0, 1, 3, -1, -3, 4, -4):
        yield "axis%d" % ax, lambda c, ax=ax: c.out(c.node(op, [c.const(a)], axis=ax))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 0, 3])], axis=-1))


def gen_gather(op, t, opset):
    a = edges(t)[:6].reshape(2, 3) if len(edges(t)) >= 6 else small(t, 6).reshape(2, 3)
    for k, (idx, ax) in enumerate((([-1, 0, -3], 1), ([[1, -2]], 0), (-2, 0), ([], 1), ([2, 3], 1),
                                   ([I64_MIN], 0), ([I64_MAX], 1))):
        for it in ("int64", "int32"):
            if it == "int32" and (idx in ([I64_MIN], [I64_MAX])):
                continue
            yield "i%d-%s" % (k, it), lambda c, idx=idx, ax=ax, it=it: c.out(c.node(
                op, [c.const(a), c.const(np.array(idx, TYPES[it][1]))], axis=ax))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 3]), c.const(i64([-1, 0]))], axis=-1))


def gen_gather_elements(op, t, opset):
    a = small(t, 6).reshape(2, 3)
    for k, (idx, ax) in enumerate((([[-1, 0], [2, -3]], 1), ([[1, -2, 0]], 0), ([[3]], 1), ([[I64_MIN]], 0))):
        yield "i%d" % k, lambda c, idx=idx, ax=ax: c.out(c.node(op, [c.const(a), c.const(i64(idx))], axis=ax))


def gen_pad(op, t, opset):
    a = edges(t)[:6].reshape(2, 3) if len(edges(t)) >= 6 else small(t, 6).reshape(2, 3)
    modes = ["constant", "reflect", "edge"] + (["wrap"] if opset >= 19 else [])
    for mode in modes:
        for k, pads in enumerate(([1, 2, 0, 1], [0, -1, 1, 0], [0, 2, 0, 2], [-2, 0, 0, 0], [0, 5, 0, 0])):
            # wrap with a pad longer than its axis: ONNX Runtime reads past the input
            beyond = mode == "wrap" and any(p > d for p, d in zip(pads, [2, 3, 2, 3]))
            if opset < 11:
                yield "%s-p%d" % (mode, k), lambda c, pads=pads, mode=mode: c.out(c.node(
                    op, [c.const(a)], pads=pads, mode=mode, value=-0.0))
            else:
                yield "%s-p%d" % (mode, k), lambda c, pads=pads, mode=mode, beyond=beyond: c.undefine(
                    "Pad" if beyond else None) or c.out(c.node(
                        op, [c.const(a), c.const(i64(pads)), c.const(edges(t)[1:2].reshape(()))], mode=mode))
    if opset >= 18:
        yield "axes", lambda c: c.out(c.node(op, [c.const(a), c.const(i64([1, 2])), c.const(small(t, 1).reshape(())),
                                                  c.const(i64([-1]))]))
        yield "axes-big", lambda c: c.out(c.node(op, [c.const(a), c.const(i64([1, 2])), c.const(small(t, 1).reshape(())),
                                                      c.const(i64([I64_MIN]))]))
    if opset >= 11:
        yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 3]), c.const(i64([0, -1, 1, 2]))]))


def gen_range(op, t, opset):
    d = TYPES[t][1]
    if t in FLOATS:
        rs = [(-3, -0.8, 0.2), (0, 1, 0.1), (1, 0, -0.3), (0, 0, 1), (-0.0, 1, 0.5), (0, 10, 3), (0.1, 0.7, 0.1),
              (5, 1, 1), (1e7, 1e7 + 5, 1)]
    else:
        info = np.iinfo(d)
        rs = [(0, 10, 3), (10, 0, -3), (0, 0, 1), (5, 1, 1), (info.max - 5, info.max, 2), (info.min, info.min + 4, 1),
              (-7, 7, 7)]
    for k, (a, b, s) in enumerate(rs):
        yield "r%d" % k, lambda c, a=a, b=b, s=s: c.out(c.node(op, [c.const(np.array(a, d)), c.const(np.array(b, d)),
                                                                 c.const(np.array(s, d))]))


def gen_reduce(op, t, opset):
    e = edges(t)
    n = len(e) - len(e) % 2
    a = e[:n].reshape(2, -1)
    axes_input = opset >= (13 if op == "ReduceSum" else 18)
    for k, axes in enumerate(([1], [-2], [0, 1], None, [])):
        for keep in (0, 1):
            attrs = {"keepdims": keep}
            if axes_input:
                ins = lambda c, axes=axes: [c.const(a)] + ([c.const(i64(axes))] if axes is not None else [])
                yield "a%d-k%d" % (k, keep), lambda c, ins=ins, attrs=attrs: c.out(c.node(op, ins(c), **attrs))
                if axes == []:
                    yield "a%d-k%d-noop" % (k, keep), lambda c, ins=ins, attrs=attrs: c.out(
                        c.node(op, ins(c), noop_with_empty_axes=1, **attrs))
            elif axes:
                yield "a%d-k%d" % (k, keep), lambda c, axes=axes, attrs=attrs: c.out(c.node(op, [c.const(a)], axes=axes,
                                                                                            **attrs))
            elif axes is None:
                yield "a%d-k%d" % (k, keep), lambda c, attrs=attrs: c.out(c.node(op, [c.const(a)], **attrs))
    yield "empty", lambda c: c.out(c.node(op, [c.const(np.zeros((0, 3), TYPES[t][1]))], keepdims=0))
    yield "small", lambda c: c.out(c.node(op, [c.const(small(t, 2))], keepdims=0))


def gen_reshape(op, t, opset):
    a = small(t, 6).reshape(2, 3)
    for k, sh in enumerate(([3, 2], [-1], [0, -1], [3, 0], [-1, 0], [1, 1, 6, 1], [2, -1, 1], [0, 3, 0])):
        yield "s%d" % k, lambda c, sh=sh: c.out(c.node(op, [c.const(a), c.const(i64(sh))]))
    if opset >= 14:
        yield "allowzero", lambda c: c.out(c.node(op, [c.const(np.zeros((0, 3), TYPES[t][1])), c.const(i64([3, 0]))],
                                                  allowzero=1))
        yield "allowzero0", lambda c: c.out(c.node(op, [c.const(a), c.const(i64([0, 3]))], allowzero=1))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 3, 2]), c.const(i64([0, -1]))]))
    yield "x2", lambda c: c.out(c.node(op, [c.input(t, ["N", 3, 2]), c.const(i64([-1, 2]))]))


def gen_shape(op, t, opset):
    a = np.zeros((2, 0, 3, 1), TYPES[t][1])
    yield "plain", lambda c: c.out(c.node(op, [c.const(a)]))
    yield "scalar", lambda c: c.out(c.node(op, [c.const(small(t, 1).reshape(()))]))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, [2, 0, 3])]))
    yield "xsym", lambda c: c.out(c.node(op, [c.input(t, ["N", 3])]))
    if op == "Shape" and opset >= 15:
        for s, e in ((1, None), (-2, None), (None, -1), (I64_MIN, I64_MAX), (I64_MAX, I64_MIN), (3, 1), (-10, 10),
                     (0, 0), (4, 5), (-5, -4)):
            attrs = {k: v for k, v in (("start", s), ("end", e)) if v is not None}
            yield "se%s_%s" % (s, e), lambda c, attrs=attrs: c.out(c.node(op, [c.input(t, [2, 0, 3, 1])], **attrs))
            yield "cse%s_%s" % (s, e), lambda c, attrs=attrs: c.out(c.node(op, [c.const(a)], **attrs))


def gen_slice(op, t, opset):
    a = small(t, 12).reshape(3, 4)
    specs = [([1], [3], [0], [1]), ([-1], [-5], [1], [-1]), ([10], [-10], [0], [-1]), ([5], [0], [1], [-1]),
             ([0], [I64_MAX], [1], [2]), ([I64_MIN], [I64_MAX], [-1], [1]), ([I64_MAX], [I64_MIN], [1], [-1]),
             ([-100], [100], [0], [3]), ([0, 1], [2, 3], [-1, 0], [1, 1]), ([2], [2], [0], [1]),
             ([0], [4], [1], [I64_MAX]), ([3], [0], [1], [I64_MIN]), ([-1], [I64_MIN], [1], [-2])]
    for k, (s, e, ax, st) in enumerate(specs):
        if opset < 10:
            if st == [1] or st == [1, 1]:
                yield "s%d" % k, lambda c, s=s, e=e, ax=ax: c.out(c.node(op, [c.const(a)], starts=s, ends=e, axes=ax))
            continue
        for it in ("int64", "int32"):
            if it == "int32" and any(abs(v) > 1 << 30 for v in s + e + st):
                continue
            d = TYPES[it][1]
            yield "s%d-%s" % (k, it), lambda c, s=s, e=e, ax=ax, st=st, d=d: c.out(c.node(
                op, [c.const(a), c.const(np.array(s, d)), c.const(np.array(e, d)), c.const(np.array(ax, d)),
                     c.const(np.array(st, d))]))
            yield "x%d-%s" % (k, it), lambda c, s=s, e=e, ax=ax, st=st, d=d: c.out(c.node(
                op, [c.input(t, [3, "N"]), c.const(np.array(s, d)), c.const(np.array(e, d)), c.const(np.array(ax, d)),
                     c.const(np.array(st, d))]))


def gen_split(op, t, opset):
    a = small(t, 12).reshape(2, 6)
    for k, sp in enumerate(([2, 4], [0, 6], [1, 1, 4], [6])):
        if opset >= 13:
            yield "s%d" % k, lambda c, sp=sp: [c.out(o) for o in (lambda r: r if isinstance(r, list) else [r])(
                c.node(op, [c.const(a), c.const(i64(sp))], n_out=len(sp), axis=-1))]
        else:
            yield "s%d" % k, lambda c, sp=sp: [c.out(o) for o in (lambda r: r if isinstance(r, list) else [r])(
                c.node(op, [c.const(a)], n_out=len(sp), axis=-1, split=sp))]
    for n in (2, 3, 4, 5):
        if opset >= 18:
            yield "num%d" % n, lambda c, n=n: [c.out(o) for o in c.node(op, [c.const(a)], n_out=n, axis=1,
                                                                       num_outputs=n)]
        else:
            yield "even%d" % n, lambda c, n=n: [c.out(o) for o in c.node(op, [c.const(a)], n_out=n, axis=1)]


def gen_squeeze(op, t, opset):
    a = small(t, 6).reshape(1, 2, 1, 3)
    axes_list = ([0], [-2], [0, 2], None, [-4, -2], [1]) if op == "Squeeze" else ([0], [-1], [0, 5], [-5, 1], [4, 0])
    for k, axes in enumerate(axes_list):
        if axes is None:
            yield "all", lambda c: c.out(c.node(op, [c.const(a)]))
        elif opset >= 13:
            yield "a%d" % k, lambda c, axes=axes: c.out(c.node(op, [c.const(a), c.const(i64(axes))]))
            yield "x%d" % k, lambda c, axes=axes: c.out(c.node(op, [c.input(t, [1, "N", 1, 3]), c.const(i64(axes))]))
        else:
            yield "a%d" % k, lambda c, axes=axes: c.out(c.node(op, [c.const(a)], axes=axes))
    if op == "Unsqueeze" and opset >= 13:
        yield "scalar", lambda c: c.out(c.node(op, [c.const(small(t, 1).reshape(())), c.const(i64([0, -1]))]))


def gen_tile(op, t, opset):
    a = edges(t)[:8].reshape(2, 4)
    for k, r in enumerate(([2, 1], [0, 3], [1, 1], [3, 2])):
        yield "r%d" % k, lambda c, r=r: c.out(c.node(op, [c.const(a), c.const(i64(r))]))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 2]), c.const(i64([2, 0]))]))


def gen_transpose(op, t, opset):
    a = small(t, 12).reshape(2, 3, 2)
    for k, p in enumerate(([2, 0, 1], [0, 1, 2], None, [1, 2, 0])):
        attrs = {"perm": p} if p is not None else {}
        yield "p%d" % k, lambda c, attrs=attrs: c.out(c.node(op, [c.const(a)], **attrs))
    yield "empty", lambda c: c.out(c.node(op, [c.const(np.zeros((2, 0, 3), TYPES[t][1]))], perm=[2, 0, 1]))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 0, 3])], perm=[2, 0, 1]))


def gen_size(op, t, opset):
    yield from gen_shape(op, t, opset)


def gen_arg(op, t, opset):
    e = edges(t)
    if t in FLOATS:
        e = e[~np.isnan(e)]
    n = len(e) - len(e) % 2
    ties = np.concatenate([e[:n], e[:n][::-1]]).reshape(4, -1)    # every value twice: ties along both axes
    for ax in (0, 1, -1, -2):
        for keep in (0, 1):
            for last in ((0, 1) if opset >= 12 else (None,)):
                attrs = {"axis": ax, "keepdims": keep}
                if last is not None:
                    attrs["select_last_index"] = last
                yield "a%d-k%d-l%s" % (ax, keep, last), lambda c, attrs=attrs: c.out(c.node(op, [c.const(ties)],
                                                                                             **attrs))
    yield "nan", lambda c: c.out(c.node(op, [c.const(edges(t).reshape(1, -1))], axis=1))
    yield "empty-axis", lambda c: c.out(c.node(op, [c.const(np.zeros((2, 0), TYPES[t][1]))], axis=1))
    yield "empty-other", lambda c: c.out(c.node(op, [c.const(np.zeros((0, 3), TYPES[t][1]))], axis=1))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 3])], axis=1))


def gen_isx(op, t, opset):
    e = edges(t)
    if op == "IsInf":
        for pos in (0, 1):
            for neg in (0, 1):
                yield "p%d-n%d" % (pos, neg), lambda c, pos=pos, neg=neg: c.out(c.node(
                    op, [c.const(e)], detect_positive=pos, detect_negative=neg))
    else:
        yield "edges", lambda c: c.out(c.node(op, [c.const(e)]))
    yield "scalar", lambda c: c.out(c.node(op, [c.const(e[-1].reshape(()))]))
    yield "empty", lambda c: c.out(c.node(op, [c.const(np.zeros((2, 0), TYPES[t][1]))]))
    yield "x", lambda c: c.out(c.node(op, [c.input(t, ["N", 3])]))


GENERATORS = {"Concat": gen_concat, "ConstantOfShape": gen_constant_of_shape, "Expand": gen_expand,
              "Flatten": gen_flatten, "Gather": gen_gather, "GatherElements": gen_gather_elements, "Pad": gen_pad,
              "Range": gen_range, "ReduceProd": gen_reduce, "ReduceSum": gen_reduce, "Reshape": gen_reshape,
              "Shape": gen_shape, "Size": gen_size, "Slice": gen_slice, "Split": gen_split, "Squeeze": gen_squeeze,
              "Unsqueeze": gen_squeeze, "Tile": gen_tile, "Transpose": gen_transpose, "Where": gen_where,
              "Max": gen_variadic, "Min": gen_variadic, "Cast": gen_cast, "CastLike": gen_cast,
              "DequantizeLinear": gen_dequantize, "ArgMax": gen_arg, "ArgMin": gen_arg, "IsInf": gen_isx,
              "IsNaN": gen_isx}
for _op in UNARY:
    GENERATORS[_op] = gen_unary
for _op in BINARY:
    GENERATORS[_op] = gen_binary


def data_types(op, opset):
    if op == "ConstantOfShape":
        return list(TYPES)
    if op == "Where":
        return types_of(op, opset, 1)
    if op in ("Shape", "Size"):
        return ["float", "int64", "bool", "float16"]
    return types_of(op, opset, 0)


# ------------------------------------------------------------------ chains
def chains():
    """Short chains at one opset each: (id, opset, build)."""
    def shape_gather_concat_reshape(c):
        x = c.input("float", ["N", 3, 4])
        s = c.node("Shape", [x])
        g = c.node("Gather", [s, c.const(i64([-1, 0]))], axis=0)
        cc = c.node("Concat", [g, c.const(i64([-1]))], axis=0)
        c.out(c.node("Reshape", [x, cc]))
        c.out(cc)

    def const_shape_chain(c):
        a = c.const(np.zeros((2, 3, 0, 5), np.float32))
        s = c.node("Shape", [a])
        g = c.node("Gather", [s, c.const(i64(-1))], axis=0)
        u = c.node("Unsqueeze", [g, c.const(i64([0]))])
        cc = c.node("Concat", [u, c.const(i64([0, -1]))], axis=0)
        c.out(c.node("Reshape", [c.const(np.zeros((5, 2, 0), np.float32)), cc]))

    def range_mul(c, t, a, b, s, m):
        d = TYPES[t][1]
        r = c.node("Range", [c.const(np.array(a, d)), c.const(np.array(b, d)), c.const(np.array(s, d))])
        c.out(c.node("Mul", [r, c.const(np.array(m, d))]))

    def cast_chain(c, ts, vals):
        v = c.const(vals)
        for t in ts:
            v = c.node("Cast", [v], to=TYPES[t][0])
        c.out(v)

    def slice_of_shape(c, s, e, st, dims):
        x = c.input("float", dims)
        sh = c.node("Shape", [x])
        c.out(c.node("Slice", [sh, c.const(i64([s])), c.const(i64([e])), c.const(i64([0])), c.const(i64([st]))]))

    def size_chain(c, dims):
        x = c.input("float", dims)
        n = c.node("Size", [x])
        c.out(c.node("Range", [c.const(i64(0)), n, c.const(i64(1))]))

    def cos_of_shape(c, dims, value):
        x = c.input("float", dims)
        c.out(c.node("ConstantOfShape", [c.node("Shape", [x])], value=tensor("v", np.array([value], np.float32), False)))

    def expand_of_shape(c):
        x = c.input("float", ["N", 1, 3])
        y = c.const(np.ones((4, 1), np.float32))
        c.out(c.node("Expand", [y, c.node("Shape", [x])]))

    out = []
    for opset in (21, 13):
        out.append(("chain.shape-gather-concat-reshape.op%d" % opset, opset, shape_gather_concat_reshape))
        out.append(("chain.const-shape.op%d" % opset, opset, const_shape_chain))
        out.append(("chain.expand-of-shape.op%d" % opset, opset, expand_of_shape))
        for k, args in enumerate((("float", -3, -0.8, 0.2, -0.0), ("float", 0, 1, 0.1, 3.0), ("double", 0.1, 0.7, 0.1, 1.0),
                                  ("int32", 2147483640, 2147483647, 3, 2), ("int64", 0, 10, 3, I64_MAX),
                                  ("float", 1, 0, -0.3, float("nan")))):
            out.append(("chain.range-mul%d.op%d" % (k, opset), opset, lambda c, args=args: range_mul(c, *args)))
        casts = ((["double", "float", "float16"], np.array([1e-8, 65520, 7e-8, 1 / 3, -0.0], np.float64)),
                 (["float", "int32", "float"], np.array([2.5, -2.5, 3e9, float("nan"), -0.9], np.float32)),
                 (["int64", "int8", "int64"], np.array([300, -129, 127, I64_MIN], np.int64)),
                 (["int64", "float", "int64"], np.array([(1 << 53) + 1, I64_MAX, -1], np.int64)),
                 (["float", "bool", "float"], np.array([-0.0, float("nan"), 1e-45, 0.0], np.float32)),
                 (["float16", "float", "float16"], np.array([0x7e01, 0xfc00, 0x8001], np.uint16).view(np.float16)),
                 (["uint64", "double", "uint64"], np.array([(1 << 64) - 1, 1 << 63, 3], np.uint64)),
                 (["int32", "uint8", "int32"], np.array([-1, 256, 255, -128], np.int32)))
        for k, (ts, vals) in enumerate(casts):
            out.append(("chain.cast%d.op%d" % (k, opset), opset, lambda c, ts=ts, vals=vals: cast_chain(c, ts, vals)))
        for k, (s, e, st) in enumerate(((-1, -5, -1), (10, -10, -1), (0, I64_MAX, 2), (I64_MIN, I64_MAX, 1),
                                        (I64_MAX, I64_MIN, -1), (3, 0, -1), (-1, I64_MIN, -1), (1, 3, I64_MAX),
                                        (2, -10, I64_MIN))):
            out.append(("chain.slice-of-shape%d.op%d" % (k, opset), opset,
                        lambda c, s=s, e=e, st=st: slice_of_shape(c, s, e, st, ["N", 3, 4, 5])))
        for k, dims in enumerate(([2, 0, 3], ["N", 3], [4, 5])):
            out.append(("chain.size-range%d.op%d" % (k, opset), opset, lambda c, dims=dims: size_chain(c, dims)))
            out.append(("chain.cos-of-shape%d.op%d" % (k, opset), opset,
                        lambda c, dims=dims: cos_of_shape(c, dims, -0.0)))
    return out


# ------------------------------------------------------------------ the set
def remake(gen, op, t, opset, variant):
    """The build of one variant, made now (a random case's values are drawn as it is made)."""
    return dict(gen(op, t, opset))[variant]


MOVING = ("Concat", "Expand", "Flatten", "Gather", "GatherElements", "Pad", "Reshape", "Shape", "Size", "Slice",
          "Split", "Squeeze", "Unsqueeze", "Tile", "Transpose", "Identity")


def fixed_cases(ops, every=False):
    """The cases of the fixed set: (id, opset, make, typed, as_node), make()
    giving the function that fills a Case. At
    opset 21 every element type of the operators that compute, and of those
    that move elements one type of each size; float (or the first type the
    schema allows) at the older opsets. @every: every type at every opset."""
    out = []
    k = 0
    for op in ops:
        gen = GENERATORS.get(op)
        if gen is None:
            continue
        for opset in OPSETS:
            if defined(op, opset) is None:
                continue
            # the math library's operators: the newest and one older opset
            if op in MATH and opset not in (21, 11):
                continue
            types = data_types(op, opset)
            if not every and opset != 21:
                types = [t for t in types if t == "float"] or types[:1]
            elif not every and op in MOVING:
                types = [t for t in types if t in ("float", "int64", "float16", "uint8")]
            for t in types:
                for variant, _ in gen(op, t, opset):
                    k += 1
                    out.append(("%s.op%d.%s.%s" % (op, opset, t, variant), opset,
                                functools.partial(remake, gen, op, t, opset, variant), k % 3 == 1, k % 5 == 2))
    for cid, opset, build in chains():
        k += 1
        out.append((cid, opset, lambda build=build: build, k % 2 == 0, False))
    return out


def random_cases(ops, count, seed):
    """@count cases drawn from every case of the generators, with random
    encodings and edge values shuffled and partly replaced by random ones."""
    rng = random.Random(seed)
    pool = fixed_cases(ops, True)
    out = []
    for k in range(count):
        cid, opset, make, _, _ = rng.choice(pool)
        out.append(("rnd-%d-%d-%s" % (seed, k, cid), opset, make, rng.random() < 0.5, rng.random() < 0.3))
    return out


# ------------------------------------------------------------------ running
def checker_ok(path):
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return True
    except Exception:
        return False


def optimize(tools, src, dst):
    exe = os.path.join(tools, "scs4onnx-optimize")
    try:
        p = subprocess.run([exe, src, dst, "-p", "fold_constants,eliminate_unused_initializer", "--fold-grow",
                            "--write-shapes", "-n"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        return "failed", "no answer after 60 s"
    err = p.stderr.decode("utf-8", "replace").strip()
    if any(m in err for m in SANITIZER_MARKS) or p.returncode < 0:
        return "failed", "exit %d: %s" % (p.returncode, err.splitlines()[0] if err else "")
    if p.returncode == 1 and len(err.splitlines()) == 1:
        return "refused", err
    if p.returncode != 0 or err:
        return "failed", "exit %d: %s" % (p.returncode, err.splitlines()[0] if err else "")
    return "done", ""


def declared_dims(path):
    """{graph output name: [dims or None]} from OUT's graph outputs and value_info."""
    m = onnx.load(path)
    outs = {o.name for o in m.graph.output}
    found = {}
    for vi in list(m.graph.output) + list(m.graph.value_info):
        if vi.name not in outs or not vi.type.tensor_type.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim]
        found.setdefault(vi.name, []).append(dims)
    # an Identity's input declared in value_info: the graph output it makes
    for n in m.graph.node:
        if n.op_type == "Identity" and n.output[0] in outs:
            for vi in m.graph.value_info:
                if vi.name == n.input[0] and vi.type.tensor_type.HasField("shape"):
                    found.setdefault(n.output[0], []).append(
                        [d.dim_value if d.HasField("dim_value") else None for d in vi.type.tensor_type.shape.dim])
    return found


def prepare(tools, work, case):
    cid, opset, make, typed, as_node = case
    c = Case(cid, opset)
    c.typed, c.as_node = typed, as_node
    LOCAL.rng = random.Random(cid) if cid.startswith("rnd-") else None
    try:
        make()(c)
    finally:
        LOCAL.rng = None
    m = c.model()
    folder = os.path.join(work, "%06d" % abs(hash(cid) % 1000000))
    os.makedirs(folder, exist_ok=True)
    src = os.path.join(folder, cid.replace("/", "_") + ".in.onnx")
    dst = os.path.join(folder, cid.replace("/", "_") + ".out.onnx")
    onnx.save(m, src)
    status, msg = optimize(tools, src, dst)
    r = {"id": cid, "in": src, "out": dst, "tool": status, "msg": msg, "undefined": c.undefined}
    if status == "done":
        r["chk_in"] = checker_ok(src)
        r["chk_out"] = checker_ok(dst) if r["chk_in"] else None
        r["declared"] = declared_dims(dst)
        if c.undefined:
            r["kept"] = any(n.op_type == c.undefined for n in onnx.load(dst).graph.node)
    return r


def judge(prep, ort):
    """The mismatches of one case: [(class, detail)]."""
    found = []
    ref, cand = ort["ref"], ort["cand"]
    if prep["tool"] != "done":
        if ref.get("ok") or prep["tool"] == "failed":
            found.append(("tool-" + prep["tool"], prep["msg"]))
        return found
    if prep["chk_in"] and not prep["chk_out"]:
        found.append(("checker", "onnx.checker passes on IN, not on OUT"))
    if prep["undefined"]:
        # ONNX Runtime's outputs prove nothing; the evaluator must not have folded it
        if not prep["kept"]:
            found.append(("folded-undefined", "%s folded, where its result is undefined" % prep["undefined"]))
        return found or [("undefined", "ONNX Runtime's %s reads past its input: not compared" % prep["undefined"])]
    if ref.get("ok") and ort.get("unstable"):
        return [("unstable", "ONNX Runtime gives IN other outputs run again: %s" % ort["unstable"])]
    if ref.get("ok"):
        if not cand.get("ok"):
            found.append(("runs-no-more", "%s: %s" % (cand.get("stage"), cand.get("err"))))
        elif ort.get("diff"):
            found.append(("output", "; ".join(ort["diff"])))
        if cand.get("ok"):
            for name, lists in prep["declared"].items():
                actual = ref["outs"].get(name, {}).get("dims")
                for dims in lists:
                    if actual is None:
                        continue
                    if len(dims) != len(actual) or any(d is not None and d != a for d, a in zip(dims, actual)):
                        found.append(("shape", "%s declared %s, ONNX Runtime gives %s" % (name, dims, actual)))
                        break
    elif cand.get("ok"):
        found.append(("fixed", "ONNX Runtime refuses IN (%s: %s), runs OUT" % (ref.get("stage"), ref.get("err"))))
    return found


def read_known(path):
    known = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split()
                if len(parts) < 2:
                    sys.exit("fold_differential: %s:%d: want 'ID CLASS'" % (path, n))
                known[parts[0]] = parts[1]
    return known


def kernel_ops(src_dir):
    """The operators of src/eval/eval.c's kernels[]."""
    import re
    with open(os.path.join(src_dir, "src", "eval", "eval.c"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("kernels[] = {"):]
    table = table[:table.index("};")]
    return re.findall(r'\{ "([A-Za-z]+)",', table)


def main():
    ap = argparse.ArgumentParser(description="constant folding and shape inference against ONNX Runtime")
    ap.add_argument("--tools", required=True, help="folder of the built tools")
    ap.add_argument("--known", default=os.path.join(HERE, "fold-differential-known.txt"))
    ap.add_argument("--count", type=int, default=0, help="add N random cases")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="cases whose id holds this text")
    ap.add_argument("--stride", type=int, default=1,
                    help="every Nth case alone, for slow builds (the sanitizers' pass)")
    ap.add_argument("--no-fixed", action="store_true", help="only the random cases")
    ap.add_argument("--every", action="store_true", help="every element type at every opset (about 19000 cases)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--work", default=None)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--list", action="store_true", help="print the case ids and stop")
    args = ap.parse_args()

    ops = kernel_ops(os.path.dirname(os.path.dirname(HERE)))
    cases = [] if args.no_fixed else fixed_cases(ops, args.every)
    if args.count:
        cases += random_cases(ops, args.count, args.seed)
    cases = [c for c in cases if args.only in c[0]][::max(args.stride, 1)]
    ids = [c[0] for c in cases]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        sys.exit("fold_differential: duplicate case ids: %s" % ", ".join(dup[:5]))
    if args.list:
        for i in ids:
            print(i)
        return 0
    known = read_known(args.known)
    work = args.work or tempfile.mkdtemp(prefix="scs-folddiff.")
    os.makedirs(work, exist_ok=True)
    try:
        return run_all(args, cases, ids, known, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run_all(args, cases, ids, known, work):
    """Prepare, run and judge @cases; prints the report; the exit status."""
    ort = subprocess.Popen(["node", os.path.join(HERE, "fold_differential.mjs"), "-"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    preps = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for prep in pool.map(lambda c: prepare(args.tools, work, c), cases):
            preps[prep["id"]] = prep
            ort.stdin.write(json.dumps({"id": prep["id"], "in": prep["in"], "out": prep["out"]}) + "\n")
            ort.stdin.flush()
    ort.stdin.close()
    results = {}
    for line in ort.stdout:
        r = json.loads(line)
        results[r["id"]] = r
    if ort.wait() != 0:
        print("fold_differential: the ONNX Runtime runner failed (exit %d)" % ort.returncode)
        return 1

    counts = {}
    failed = known_hits = ran = 0
    used = set()
    failures = []  # printed again after the summary, where a log's tail shows them
    for cid in ids:
        r = results.get(cid)
        if r is None:
            failures.append("FAIL runner %s: no answer from the ONNX Runtime runner" % cid)
            print(failures[-1])
            failed += 1
            continue
        ran += bool(r["ref"].get("ok"))
        for cls, detail in judge(preps[cid], r):
            if cls in ("unstable", "undefined") and cid not in known:
                # proves nothing either way: counted, not failed
                counts[cls] = counts.get(cls, 0) + 1
                print("%s %s: %s" % (cls, cid, detail))
                continue
            counts[cls] = counts.get(cls, 0) + 1
            if cid in known:
                used.add(cid)
                known_hits += 1
                print("known %s %s: %s" % (cls, cid, detail))
            else:
                failed += 1
                failures.append("FAIL %s %s: %s" % (cls, cid, detail))
                print(failures[-1])
    for cid in sorted(set(known) - used):
        if cid in results:
            print("stale %s: listed as known (%s), but nothing went wrong" % (cid, known[cid]))
    print("fold_differential: cases %d, run by ONNX Runtime %d, mismatches %s, failed %d, known %d" % (
        len(ids), ran, ", ".join("%s %d" % kv for kv in sorted(counts.items())) or "none", failed, known_hits))
    for line in failures:
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
