#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Models for scripts/bench-optimize.sh.

Usage:
    /usr/bin/python3 scripts/gen-fuse-bench.py mobilenetv2 OUT.onnx
    /usr/bin/python3 scripts/gen-fuse-bench.py bigconv OUT.onnx [--gib N]
    /usr/bin/python3 scripts/gen-fuse-bench.py convchain OUT.onnx [--gib N] [--fold-chains]
    /usr/bin/python3 scripts/gen-fuse-bench.py bigcast OUT.onnx [--gib N] [--to float16|int32]
    /usr/bin/python3 scripts/gen-fuse-bench.py foldchain OUT.onnx [--nodes N]

mobilenetv2: MobileNetV2's published layer configuration (Sandler et al.,
table 2: expansion t, channels c, repeats n, stride s), with random weights:
a 3x3 stride-2 Conv of 32 channels, then inverted residual blocks of
1x1 Conv -> BN -> ReLU6 (Clip 0..6), 3x3 depthwise Conv -> BN -> ReLU6,
1x1 Conv -> BN (plus the input when stride 1 and the channels agree), a
1x1 Conv of 1280 channels -> BN -> ReLU6, global average pooling and a
1000-way Gemm. Input 1x3x224x224, float32, opset 13, about 14 MB.

bigconv: one 1x1 Conv whose weight is N GiB of float32 (default 1),
followed by a BatchNormalization, the weight in OUT.onnx.data (external
data), written in pieces so this script's memory stays small. For the
fused weight's memory: the optimizer must fuse it in bounded memory.

bigcast: one Cast (to float16 by default, or --to int32) of a float32
weight [rows, 4096] of N GiB (default 1), in OUT.onnx.data, the result a
graph output: the input of bench-fold.sh's streamed fold.

foldchain: a chain of N nodes (default 2000) over constants, each reading
the one before: Add of 1 and Mul by 0.5 in turn on a float [4], every
tenth a Shape of the value and a Cast of it back to float added in, the
last added to the input X: fold_constants folds all but the last node,
bench-fold.sh times it for growing N.

convchain: a chain of 1x1 Conv -> BatchNormalization -> Relu layers whose
float32 weights (8192 x 8192, 256 MiB each) add up to at least N GiB
(default 3), every payload in the model file itself (raw_data), written
piece by piece; the input of scs4onnx-big --optimize in the benchmark. With
--fold-chains each layer's output also goes through the static-shape
Reshape exporters write, its target computed from the model input's shape
(Shape -> Gather -> Unsqueeze -> Concat), which fold_constants computes
once.
"""

import argparse
import importlib.util
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CONFIG = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


class Builder:
    def __init__(self, seed):
        self.r = np.random.RandomState(seed)
        self.nodes, self.inits, self.k = [], [], 0

    def name(self, base):
        self.k += 1
        return "%s%d" % (base, self.k)

    def conv_bn(self, x, cin, cout, k, stride, group, relu6):
        c = self.name("conv")
        fan_in = (cin // group) * k * k
        w = (self.r.standard_normal((cout, cin // group, k, k)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        self.inits.append(numpy_helper.from_array(w, c + "_w"))
        pad = k // 2
        self.nodes.append(helper.make_node("Conv", [x, c + "_w"], [c + "_y"], name=c, kernel_shape=[k, k],
                                           strides=[stride, stride], pads=[pad] * 4, group=group))
        bn = c + "_bn"
        params = {"scale": self.r.uniform(0.5, 1.5, cout), "B": self.r.uniform(-0.1, 0.1, cout),
                  "mean": self.r.uniform(-0.1, 0.1, cout), "var": self.r.uniform(0.5, 1.5, cout)}
        names = []
        for key, v in params.items():
            names.append(bn + "_" + key)
            self.inits.append(numpy_helper.from_array(v.astype(np.float32), names[-1]))
        self.nodes.append(helper.make_node("BatchNormalization", [c + "_y"] + names, [bn + "_y"], name=bn))
        if not relu6:
            return bn + "_y"
        self.nodes.append(helper.make_node("Clip", [bn + "_y", "zero", "six"], [c + "_r"], name=c + "_relu6"))
        return c + "_r"


def mobilenetv2(path):
    b = Builder(7)
    b.inits += [numpy_helper.from_array(np.array(0, np.float32), "zero"),
                numpy_helper.from_array(np.array(6, np.float32), "six")]
    x = b.conv_bn("input", 3, 32, 3, 2, 1, True)
    cin = 32
    for t, c, n, s in CONFIG:
        for i in range(n):
            stride = s if i == 0 else 1
            h = x
            hidden = cin * t
            if t != 1:
                h = b.conv_bn(h, cin, hidden, 1, 1, 1, True)
            h = b.conv_bn(h, hidden, hidden, 3, stride, hidden, True)
            h = b.conv_bn(h, hidden, c, 1, 1, 1, False)
            if stride == 1 and cin == c:
                y = b.name("add")
                b.nodes.append(helper.make_node("Add", [x, h], [y], name=y))
                h = y
            x, cin = h, c
    x = b.conv_bn(x, cin, 1280, 1, 1, 1, True)
    b.nodes.append(helper.make_node("GlobalAveragePool", [x], ["pool"], name="pool"))
    b.nodes.append(helper.make_node("Flatten", ["pool"], ["flat"], name="flatten"))
    w = (b.r.standard_normal((1000, 1280)) * np.sqrt(1.0 / 1280)).astype(np.float32)
    b.inits += [numpy_helper.from_array(w, "fc_w"), numpy_helper.from_array(np.zeros(1000, np.float32), "fc_b")]
    b.nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1))
    graph = helper.make_graph(b.nodes, "mobilenetv2", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                              [1, 3, 224, 224])], [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                              [1, 1000])], initializer=b.inits)
    model = helper.make_model(graph, producer_name="scs4onnx-c-bench", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    onnx.checker.check_model(path)


def external_weight(path, name, rows, cols, r):
    """A float32 [rows, cols] uniform in [-1, 1) written to path + ".data" 256 rows at a time; its TensorProto."""
    data = path + ".data"
    with open(data, "wb") as fh:
        for first in range(0, rows, 256):
            fh.write(r.uniform(-1, 1, (min(256, rows - first), cols)).astype(np.float32).tobytes())
    wt = TensorProto()
    wt.name = name
    wt.data_type = TensorProto.FLOAT
    wt.dims.extend([rows, cols])
    wt.data_location = TensorProto.EXTERNAL
    for k, v in (("location", os.path.basename(data)), ("offset", "0"), ("length", str(rows * cols * 4))):
        e = wt.external_data.add()
        e.key, e.value = k, v
    return wt


def bigconv(path, gib):
    side = int(np.sqrt(gib * (1 << 30) / 4))
    side -= side % 256
    r = np.random.RandomState(3)
    wt = external_weight(path, "w", side, side, r)
    wt.dims.extend([1, 1])
    inits = [wt]
    names = []
    for key, lo, hi in (("scale", 0.5, 1.5), ("B", -0.1, 0.1), ("mean", -0.1, 0.1), ("var", 0.5, 1.5)):
        names.append("bn_" + key)
        inits.append(numpy_helper.from_array(r.uniform(lo, hi, side).astype(np.float32), names[-1]))
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
             helper.make_node("BatchNormalization", ["c"] + names, ["y"], name="bn")]
    graph = helper.make_graph(nodes, "bigconv", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                              [1, side, 1, 1])], [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                              [1, side, 1, 1])], initializer=inits)
    model = helper.make_model(graph, producer_name="scs4onnx-c-bench", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())


def bigcast(path, gib, to):
    cols = 4096
    rows = int(gib * (1 << 30) / 4 / cols)
    elem = {"float16": TensorProto.FLOAT16, "int32": TensorProto.INT32}[to]
    wt = external_weight(path, "w", rows, cols, np.random.RandomState(5))
    graph = helper.make_graph([helper.make_node("Cast", ["w"], ["y"], name="cast", to=elem)], "bigcast", [],
                              [helper.make_tensor_value_info("y", elem, [rows, cols])], initializer=[wt])
    model = helper.make_model(graph, producer_name="scs4onnx-c-bench", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())


# The protobuf wire helpers of scripts/gen-model.py (a file name with a dash:
# loaded by path).
_spec = importlib.util.spec_from_file_location("gen_model", os.path.join(os.path.dirname(__file__), "gen-model.py"))
_gen_model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_gen_model)
_varint, _field = _gen_model.varint, _gen_model.tag


def convchain(path, gib, fold_chains=False):
    side = 8192
    layer_bytes = side * side * 4
    layers = max(1, int(np.ceil(gib * (1 << 30) / layer_bytes)))
    r = np.random.RandomState(5)
    nodes, small = [], []
    x = "x"
    for i in range(layers):
        names = ["l%d_bn_%s" % (i, k) for k in ("scale", "B", "mean", "var")]
        for n, (lo, hi) in zip(names, ((0.5, 1.5), (-0.1, 0.1), (-0.1, 0.1), (0.5, 1.5))):
            small.append(numpy_helper.from_array(r.uniform(lo, hi, side).astype(np.float32), n))
        nodes += [helper.make_node("Conv", [x, "l%d_w" % i], ["l%d_c" % i], name="l%d_conv" % i),
                  helper.make_node("BatchNormalization", ["l%d_c" % i] + names, ["l%d_b" % i], name="l%d_bn" % i),
                  helper.make_node("Relu", ["l%d_b" % i], ["l%d_r" % i], name="l%d_relu" % i)]
        x = "l%d_r" % i
        if fold_chains:
            p = "l%d_s" % i
            nodes += [helper.make_node("Shape", ["x"], [p + "hape"], name=p + "hape")]
            for d in (0, 1):
                nodes += [helper.make_node("Gather", [p + "hape", "idx%d" % d], [p + "g%d" % d], name=p + "g%d" % d),
                          helper.make_node("Unsqueeze", [p + "g%d" % d, "axis0"], [p + "u%d" % d], name=p + "u%d" % d)]
            nodes += [helper.make_node("Concat", [p + "u0", p + "u1", "one", "one"], [p + "t"], name=p + "t", axis=0),
                      helper.make_node("Reshape", [x, p + "t"], [p + "r"], name=p + "r")]
            x = p + "r"
    if fold_chains:
        small += [numpy_helper.from_array(np.array(0, np.int64), "idx0"),
                  numpy_helper.from_array(np.array(1, np.int64), "idx1"),
                  numpy_helper.from_array(np.array([0], np.int64), "axis0"),
                  numpy_helper.from_array(np.array([1], np.int64), "one")]
    graph = helper.make_graph(nodes, "convchain", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                              [1, side, 1, 1])], [helper.make_tensor_value_info(x, TensorProto.FLOAT,
                              [1, side, 1, 1])], initializer=small)
    model = helper.make_model(graph, producer_name="scs4onnx-c-bench", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    # The big weights are appended as graph initializers (GraphProto field 5,
    # ModelProto field 7) straight onto the serialized model, a piece at a time.
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
        for i in range(layers):
            head = TensorProto()
            head.name = "l%d_w" % i
            head.data_type = TensorProto.FLOAT
            head.dims.extend([side, side, 1, 1])
            meta = head.SerializeToString()
            tensor_len = len(meta) + len(_field(9, 2)) + len(_varint(layer_bytes)) + layer_bytes
            init = _field(5, 2) + _varint(tensor_len)
            fh.write(_field(7, 2) + _varint(len(init) + tensor_len) + init + meta + _field(9, 2) + _varint(layer_bytes))
            rows, a = 512, np.sqrt(6.0 / side)     # He initialisation: activations stay near 1
            for _ in range(0, side, rows):
                fh.write(r.uniform(-a, a, (rows, side)).astype(np.float32).tobytes())


def foldchain(path, n_nodes):
    nodes = []
    x = "c"
    i = 0
    while len(nodes) < n_nodes:
        y = "v%d" % i
        if i % 10 == 9 and len(nodes) + 3 <= n_nodes:
            nodes += [helper.make_node("Shape", [x], [y + "_s"], name=y + "_s"),
                      helper.make_node("Cast", [y + "_s"], [y + "_f"], name=y + "_f", to=TensorProto.FLOAT),
                      helper.make_node("Add", [x, y + "_f"], [y], name=y)]
        else:
            nodes.append(helper.make_node("Add" if i % 2 == 0 else "Mul", [x, "one" if i % 2 == 0 else "half"], [y],
                                          name=y))
        x = y
        i += 1
    nodes.append(helper.make_node("Add", ["X", x], ["Y"], name="out"))
    graph = helper.make_graph(
        nodes, "foldchain", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [4])],
        initializer=[numpy_helper.from_array(np.arange(4, dtype=np.float32), "c"),
                     numpy_helper.from_array(np.array(1, np.float32), "one"),
                     numpy_helper.from_array(np.array(0.5, np.float32), "half")])
    model = helper.make_model(graph, producer_name="scs4onnx-c-bench", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())


def main(argv):
    p = argparse.ArgumentParser(description="models for bench-optimize.sh")
    p.add_argument("kind", choices=["mobilenetv2", "bigconv", "convchain", "bigcast", "foldchain"])
    p.add_argument("out")
    p.add_argument("--gib", type=float)
    p.add_argument("--fold-chains", action="store_true")
    p.add_argument("--to", choices=["float16", "int32"], default="float16")
    p.add_argument("--nodes", type=int, default=2000)
    a = p.parse_args(argv[1:])
    if a.kind == "mobilenetv2":
        mobilenetv2(a.out)
    elif a.kind == "bigconv":
        bigconv(a.out, a.gib or 1.0)
    elif a.kind == "bigcast":
        bigcast(a.out, a.gib or 1.0, a.to)
    elif a.kind == "foldchain":
        foldchain(a.out, a.nodes)
    else:
        convchain(a.out, a.gib or 3.0, a.fold_chains)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
