#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Models with many small constants, for the small-payload paths of the scan,
the compare and the writer (tests/test_e2e_small.c).

  many_small.onnx      6,000 distinct float32 [4] initializers S0..S5999 and
                       500 copies D0..D499 (Dj holds S(7j)'s values), all
                       added in a chain to X [4] in an order that mixes them;
                       and 200 near-copies N0..N199 (S(11k)'s values with the
                       last byte changed), which must stay apart.
  many_small_ext.onnx  the same graph with every initializer in
  many_small_ext.bin   one external data file, side by side (no alignment).
  straddle.onnx        ~6 MiB of float32 [n] initializers W0..W239 whose
                       lengths cycle from 4 bytes to 68 KB, laid end to end,
                       one of them across offset 1 MiB (the end of the
                       scan's first window: the generator checks it) and many
                       across 64 KiB boundaries; copies C* and near-copies
                       M* of some of each length. Every initializer feeds an
                       Identity whose output is a graph output.
  many_distinct.onnx   2,000 distinct small initializers and no copies.
  big_dups.onnx        four distinct 512 KiB float32 initializers B0..B3 and
                       three copies of each (B0_1.., placed after all four),
                       each feeding an Identity whose output is a graph output.
  big_dups_ext.onnx    the same with B0..B3 in big_dups_ext_a.bin and the
  big_dups_ext_a.bin   copies in big_dups_ext_b.bin (the compare maps pages
  big_dups_ext_b.bin   of two data files).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import make_model, save as save_model  # noqa: E402

FLOAT = TensorProto.FLOAT


def vi(name, shape):
    return helper.make_tensor_value_info(name, FLOAT, shape)


def save(graph, outdir, filename):
    return save_model(make_model(graph), outdir, filename)


def near_copy(values):
    """The same values but for the last byte."""
    raw = bytearray(values.tobytes())
    raw[-1] ^= 0x01
    return np.frombuffer(bytes(raw), dtype=values.dtype).copy()


def many_small_tensors(n_distinct, n_dups, n_near):
    rng = np.random.RandomState(20)
    vals = rng.standard_normal((n_distinct, 4)).astype(np.float32)
    vals[:, 0] = np.arange(n_distinct, dtype=np.float32)     # every row distinct
    tensors = [numpy_helper.from_array(vals[i], "S%d" % i) for i in range(n_distinct)]
    tensors += [numpy_helper.from_array(vals[(7 * j) % n_distinct].copy(), "D%d" % j) for j in range(n_dups)]
    tensors += [numpy_helper.from_array(near_copy(vals[(11 * k) % n_distinct]), "N%d" % k)
                for k in range(n_near)]
    return tensors


def add_chain(tensors, name):
    order = sorted(range(len(tensors)), key=lambda i: (i * 7919) % len(tensors))
    nodes, h = [], "X"
    for step, i in enumerate(order):
        out = "Y" if step == len(order) - 1 else "h%d" % step
        nodes.append(helper.make_node("Add", [h, tensors[i].name], [out], name="add%d" % step))
        h = out
    return helper.make_graph(nodes, name, [vi("X", [4])], [vi("Y", [4])], initializer=tensors)


def gen_many_small(outdir):
    save(add_chain(many_small_tensors(6000, 500, 200), "many_small"), outdir, "many_small.onnx")


def externalize(tensors, outdir, location):
    """Move the raw_data of @tensors into data file @location, side by side."""
    image = bytearray()
    for t in tensors:
        data = t.raw_data
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", str(len(image))),
                           ("length", str(len(data)))):
            entry = t.external_data.add()
            entry.key = key
            entry.value = value
        image.extend(data)
    with open(os.path.join(outdir, location), "wb") as fh:
        fh.write(bytes(image))


def gen_many_small_ext(outdir):
    tensors = many_small_tensors(6000, 500, 200)
    externalize(tensors, outdir, "many_small_ext.bin")
    save(add_chain(tensors, "many_small_ext"), outdir, "many_small_ext.onnx")


def gen_straddle(outdir):
    lengths = [1, 3, 250, 1000, 4099, 16385, 17000]      # elements: 4 B .. 68 KB
    rng = np.random.RandomState(21)
    tensors = []
    for i in range(240):
        n = lengths[i % len(lengths)]
        tensors.append(numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "W%d" % i))
    # copies and near-copies of a few of each length, placed among the rest
    extra = []
    for i in range(0, 240, 5):     # 5 and the 7 lengths are coprime: every length
        values = numpy_helper.to_array(tensors[i])
        extra.append(numpy_helper.from_array(values.copy(), "C%d" % i))
        extra.append(numpy_helper.from_array(near_copy(values), "M%d" % i))
    for k, t in enumerate(extra):
        tensors.insert(37 * k % len(tensors), t)
    nodes = [helper.make_node("Identity", [t.name], ["out_" + t.name], name="id_" + t.name) for t in tensors]
    outputs = [vi("out_" + t.name, list(t.dims)) for t in tensors]
    path = save(helper.make_graph(nodes, "straddle", [], outputs, initializer=tensors), outdir, "straddle.onnx")
    # the point of the model: a payload across the first window's end (1 MiB)
    blob = open(path, "rb").read()
    edge = 1 << 20
    for t in tensors:
        at = blob.find(t.raw_data)
        if at < edge < at + len(t.raw_data):
            return
    sys.exit("gen_small_models: no payload of straddle.onnx crosses offset 1 MiB")


def gen_many_distinct(outdir):
    save(add_chain(many_small_tensors(2000, 0, 0), "many_distinct"), outdir, "many_distinct.onnx")


def gen_big_dups(outdir, external=False):
    rng = np.random.RandomState(22)
    first = [numpy_helper.from_array(rng.standard_normal(1 << 17).astype(np.float32), "B%d" % i) for i in range(4)]
    copies = [numpy_helper.from_array(numpy_helper.to_array(t).copy(), "%s_%d" % (t.name, k))
              for k in range(1, 4) for t in first]
    tensors = first + copies
    name = "big_dups_ext" if external else "big_dups"
    if external:
        externalize(first, outdir, name + "_a.bin")
        externalize(copies, outdir, name + "_b.bin")
    nodes = [helper.make_node("Identity", [t.name], ["out_" + t.name], name="id_" + t.name) for t in tensors]
    outputs = [vi("out_" + t.name, [1 << 17]) for t in tensors]
    save(helper.make_graph(nodes, name, [], outputs, initializer=tensors), outdir, name + ".onnx")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(outdir, exist_ok=True)
    gen_many_small(outdir)
    gen_many_small_ext(outdir)
    gen_straddle(outdir)
    gen_many_distinct(outdir)
    gen_big_dups(outdir)
    gen_big_dups(outdir, external=True)


if __name__ == "__main__":
    main()
