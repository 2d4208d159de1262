#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the spill suite: payloads read once, written while
they are hashed (src/io/payload.h, "spill").

Usage:
    /usr/bin/python3 gen_spill_models.py OUTDIR

Files written to OUTDIR:

  spill_mix.onnx     external data (spill_mix.data, every tensor of 1 KiB or
                     more): an initializer U no node reads (the optimizer
                     drops it: the data file then differs from the spill at
                     its first place), float [64,256] constants W1, W3,
                     copies W2 of W1 and W4 of W3, R with W1's bytes as
                     [256,64] (same bytes, another class: both stay), T with
                     W1's values in float_data (a payload of the store), a
                     Constant node C equal to W3, and int64 Gather indices K
                     [512] (narrowed to int32 by the shrink: a payload that
                     changes after it was spilled). Inputs X [64,256].
  spill_inline.onnx  one inline file with raw_data tensors of 2 MiB (longer
                     than the scan's window, so hashed later): A, B (a copy
                     of A), C and D (a copy of C), added to X [512,1024].
  spill_edit.onnx    one inline file: float [1024,1024] (4 MiB) initializers U
                     (read by no node: the optimizer drops it, first in the
                     data file), A, B (a copy of A) and C, and int64 Gather
                     indices K [32768] between B and C, which the shrink
                     narrows to int32: the data file differs from the spill
                     at its start (optimize) or in its middle (shrink), and
                     the filesystem moves the blocks after.
  stream_diverge.onnx
                     external data (stream_diverge.data): initializers whose
                     records an inline stream (src/model/emit.c) writes
                     before the passes (each of 64 KiB or more), where each
                     pass then writes another record: float [128,128] A;
                     float64 D [128,128] (narrowed
                     to float by the shrink: read by an ArgMax); Bt, A
                     transposed, read by a MatMul (the shrink has a Gemm read
                     A with transB=1 instead);
                     U, read by no node (the optimizer drops it); E, a copy
                     of A (the dedup keeps A); a Conv weight W [64,32,3,3]
                     followed by a BatchNormalization (the optimizer folds
                     it into W); F [128,128] last. Inputs X [128,128] and
                     I [1,32,8,8].
  stream_threads.onnx
                     one inline file of 80 MiB: float [2048,2048] (16 MiB)
                     initializers A, B (a copy of A), C, D (a copy of C) and
                     E, added to X in turn: large enough (64 MiB) that a
                     shrink streams them into its inline output without a
                     test hook (the threads suite: two threads at once).
  scattered.onnx     external data in two files (scattered_a.data for the
                     first 150 layers, scattered_b.data for the rest): 300
                     layers, each a MatMul by a float L [64,80] (20 KiB:
                     hashed when the run asks), then by R [80,64], then an
                     Add of a bias b [64] (256 bytes, small: keyed at the end
                     of the scan, asked of the disk ahead of their reads).
                     Bias i holds the values of bias i mod 7, so equal small
                     payloads lie hundreds of payloads apart and in both
                     files; in the first 70 layers R is L transposed (more
                     transposed pairs than the transposed pass asks for at
                     once), in the others R is its own. scattered_inline.onnx
                     is the same model in one file.
  spill_numbered.onnx
                     external data (spill_numbered.data), for numbered
                     data files of 1536 KiB (--max-data-file-size 1536K):
                     float [256,1024] (1 MiB) A, B (a copy of A), float
                     [16000] (62.5 KiB, under the 64 KiB of a large payload)
                     c, [256,1024] D, E (a copy of D), [16000] F, G (a copy
                     of c). Data files hold the large payloads
                     first, then the small ones: A, B, D, E, c, F, G. B does
                     not fit after A nor E after D: the spill starts a file
                     for each and takes it back, the next payload going to
                     the file before again (D starts the second file, c and
                     F go after D), as the layout has them. Y = X + A + B +
                     D + E (X [256,1024]), Z = V + c + F + G (V [16000]).
  spill_unused.onnx  external data (spill_unused.data): 400 float [1024] (4
                     KiB) initializers, of which the first 10 are added to X
                     [1024] and the others read by no node (the optimizer
                     drops them): in files of 4 KiB, a spill of 400 files
                     for a layout of 10.
  spill_heads.onnx   external data (spill_heads.data): float [256,1024] A, B
                     (A but its last element: the same first 4 KiB, other
                     bytes), C (a copy of A) and D (a copy of B): B looks
                     like a copy of A until its end, D like one of A and B.
                     Y = X + A + B + C + D (X [256,1024]).
  spill_qdq.onnx     opset 21, external data (spill_qdq.data): a quantized
                     (QDQ) chain X [1,128] -> Q/DQ -> three MatMuls by
                     dequantized int8 [128,128] weights Q1, Q2 (a copy of
                     Q1) and Q3 (Q1 but its last byte: the same first 4 KiB)
                     with per-channel scales S (float [128]) and zero
                     points.
  spill_ir3.onnx     IR 3, opset 8, inline, every initializer among the
                     graph's inputs and in float_data (typed): float [32,64]
                     A, B (a copy), C, D (a copy of C); Y = X + A + B + C + D.
  spill_sum40.onnx   external data (spill_sum40.data): one Sum of X and 40
                     float [16,32] initializers (20 values, each twice, the
                     even ones in float_data), Y [16,32].
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model_of(nodes, inputs, outputs, inits, name):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_spill_models",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def sum_of(inits, shape, name):
    """Y = X + each initializer in turn (float, of @shape)."""
    nodes, prev = [], "X"
    for k, t in enumerate(inits):
        out = "Y" if k == len(inits) - 1 else "s%d" % (k + 1)
        nodes.append(helper.make_node("Add", [prev, t.name], [out]))
        prev = out
    return model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, shape)],
                    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, shape)], inits, name)


def save_inline(model, outdir, name):
    path = os.path.join(outdir, name)
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    onnx.checker.check_model(path)


def save_external(model, outdir, name, data, check=True):
    """Save @model as OUTDIR/NAME with every tensor of 1 KiB or more in OUTDIR/DATA (made anew); @check:
    with onnx.checker (which knows opsets up to its own release)."""
    if os.path.exists(os.path.join(outdir, data)):
        os.remove(os.path.join(outdir, data))
    onnx.external_data_helper.convert_model_to_external_data(model, all_tensors_to_one_file=True,
                                                             location=data, size_threshold=1024)
    path = os.path.join(outdir, name)
    onnx.save_model(model, path)
    if check:
        onnx.checker.check_model(path)


def spill_mix(outdir):
    rng = np.random.default_rng(26)
    w1 = rng.standard_normal((64, 256)).astype(np.float32)
    w3 = rng.standard_normal((64, 256)).astype(np.float32)
    u = rng.standard_normal((64, 256)).astype(np.float32)
    k = ((np.arange(512, dtype=np.int64) * 37) % 256).astype(np.int64)
    t = helper.make_tensor("T", TensorProto.FLOAT, [64, 256], w1.flatten().tolist())   # float_data
    inits = [numpy_helper.from_array(u, "U"),
             numpy_helper.from_array(w1, "W1"),
             numpy_helper.from_array(w1.copy(), "W2"),
             numpy_helper.from_array(w3, "W3"),
             numpy_helper.from_array(w3.copy(), "W4"),
             numpy_helper.from_array(w1.reshape(256, 64).copy(), "R"),
             t,
             numpy_helper.from_array(k, "K")]
    nodes = [helper.make_node("Constant", [], ["C"], value=numpy_helper.from_array(w3.copy(), "C_value")),
             helper.make_node("Add", ["X", "W1"], ["a1"]),
             helper.make_node("Add", ["a1", "W2"], ["a2"]),
             helper.make_node("Add", ["a2", "W3"], ["a3"]),
             helper.make_node("Add", ["a3", "W4"], ["a4"]),
             helper.make_node("Add", ["a4", "T"], ["a5"]),
             helper.make_node("Add", ["a5", "C"], ["Y"]),
             helper.make_node("MatMul", ["X", "R"], ["Z"]),
             helper.make_node("Gather", ["W3", "K"], ["G"], axis=1)]
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [64, 256])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [64, 256]),
                      helper.make_tensor_value_info("Z", TensorProto.FLOAT, [64, 64]),
                      helper.make_tensor_value_info("G", TensorProto.FLOAT, [64, 512])],
                     inits, "spill_mix")
    save_external(model, outdir, "spill_mix.onnx", "spill_mix.data")


def spill_inline(outdir):
    rng = np.random.default_rng(27)
    a = rng.standard_normal((512, 1024)).astype(np.float32)
    c = rng.standard_normal((512, 1024)).astype(np.float32)
    inits = [numpy_helper.from_array(a, "A"), numpy_helper.from_array(a.copy(), "B"),
             numpy_helper.from_array(c, "C"), numpy_helper.from_array(c.copy(), "D")]
    save_inline(sum_of(inits, [512, 1024], "spill_inline"), outdir, "spill_inline.onnx")


def spill_edit(outdir):
    rng = np.random.default_rng(28)
    u = rng.standard_normal((1024, 1024)).astype(np.float32)
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    c = rng.standard_normal((1024, 1024)).astype(np.float32)
    k = ((np.arange(32768, dtype=np.int64) * 131) % 1024).astype(np.int64)
    inits = [numpy_helper.from_array(u, "U"), numpy_helper.from_array(a, "A"),
             numpy_helper.from_array(a.copy(), "B"), numpy_helper.from_array(k, "K"),
             numpy_helper.from_array(c, "C")]
    nodes = [helper.make_node("Add", ["X", "A"], ["s1"]),
             helper.make_node("Add", ["s1", "B"], ["s2"]),
             helper.make_node("Add", ["s2", "C"], ["Y"]),
             helper.make_node("Gather", ["X", "K"], ["G"], axis=1)]
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1024, 1024])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1024, 1024]),
                      helper.make_tensor_value_info("G", TensorProto.FLOAT, [1024, 32768])], inits, "spill_edit")
    save_inline(model, outdir, "spill_edit.onnx")


def stream_diverge(outdir):
    rng = np.random.default_rng(29)
    a = rng.standard_normal((128, 128)).astype(np.float32)
    d = rng.standard_normal((128, 128)).astype(np.float32).astype(np.float64)   # exact in float
    u = rng.standard_normal((128, 128)).astype(np.float32)
    f = rng.standard_normal((128, 128)).astype(np.float32)
    w = rng.standard_normal((64, 32, 3, 3)).astype(np.float32)
    bn = [numpy_helper.from_array(v.astype(np.float32), n) for v, n in (
        (rng.uniform(0.5, 1.5, 64), "bn_scale"), (rng.standard_normal(64), "bn_bias"),
        (rng.standard_normal(64), "bn_mean"), (rng.uniform(0.5, 1.5, 64), "bn_var"))]
    inits = [numpy_helper.from_array(a, "A"), numpy_helper.from_array(d, "D"),
             numpy_helper.from_array(a.T.copy(), "Bt"), numpy_helper.from_array(u, "U"),
             numpy_helper.from_array(a.copy(), "E"), numpy_helper.from_array(w, "W")] + bn + \
            [numpy_helper.from_array(f, "F")]
    nodes = [helper.make_node("Add", ["X", "A"], ["s1"]),
             helper.make_node("Add", ["s1", "E"], ["s3"]),
             helper.make_node("Add", ["s3", "F"], ["Y"]),
             helper.make_node("MatMul", ["X", "Bt"], ["M"]),
             helper.make_node("ArgMax", ["D"], ["Dc"], axis=1),
             helper.make_node("Conv", ["I", "W"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c1", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["Z"])]
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [128, 128]),
                             helper.make_tensor_value_info("I", TensorProto.FLOAT, [1, 32, 8, 8])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [128, 128]),
                      helper.make_tensor_value_info("M", TensorProto.FLOAT, [128, 128]),
                      helper.make_tensor_value_info("Dc", TensorProto.INT64, [128, 1]),
                      helper.make_tensor_value_info("Z", TensorProto.FLOAT, [1, 64, 8, 8])], inits,
                     "stream_diverge")
    save_external(model, outdir, "stream_diverge.onnx", "stream_diverge.data")


def stream_threads(outdir):
    rng = np.random.default_rng(30)
    a, c, e = (rng.standard_normal((2048, 2048)).astype(np.float32) for _ in range(3))
    inits = [numpy_helper.from_array(a, "A"), numpy_helper.from_array(a.copy(), "B"),
             numpy_helper.from_array(c, "C"), numpy_helper.from_array(c.copy(), "D"),
             numpy_helper.from_array(e, "E")]
    nodes, prev = [], "X"
    for i, name in enumerate("ABCDE"):
        out = "Y" if name == "E" else f"s{i}"
        nodes.append(helper.make_node("Add", [prev, name], [out]))
        prev = out
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2048, 2048])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2048, 2048])], inits, "stream_threads")
    save_inline(model, outdir, "stream_threads.onnx")


def scattered(outdir):
    from onnx import external_data_helper

    rng = np.random.default_rng(31)
    biases = [rng.standard_normal(64).astype(np.float32) for _ in range(7)]
    inits, nodes, prev = [], [], "X"
    for i in range(300):
        low = rng.standard_normal((64, 80)).astype(np.float32) / 8
        r = low.T.copy() if i < 70 else (rng.standard_normal((80, 64)).astype(np.float32) / 8)
        inits += [numpy_helper.from_array(low, f"L{i}"), numpy_helper.from_array(r, f"R{i}"),
                  numpy_helper.from_array(biases[i % 7].copy(), f"b{i}")]
        out = "Y" if i == 299 else f"h{i}"
        nodes += [helper.make_node("MatMul", [prev, f"L{i}"], [f"l{i}"]),
                  helper.make_node("MatMul", [f"l{i}", f"R{i}"], [f"r{i}"]),
                  helper.make_node("Add", [f"r{i}", f"b{i}"], [out])]
        prev = out
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 64])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 64])], inits, "scattered")
    save_inline(model, outdir, "scattered_inline.onnx")
    for name in ("scattered_a.data", "scattered_b.data"):
        if os.path.exists(os.path.join(outdir, name)):
            os.remove(os.path.join(outdir, name))
    for k, t in enumerate(model.graph.initializer):
        external_data_helper.set_external_data(t, "scattered_a.data" if k < 450 else "scattered_b.data")
    path = os.path.join(outdir, "scattered.onnx")
    onnx.save_model(model, path)
    onnx.checker.check_model(path)


def spill_numbered(outdir):
    rng = np.random.default_rng(32)
    a = rng.standard_normal((256, 1024)).astype(np.float32)
    d = rng.standard_normal((256, 1024)).astype(np.float32)
    c = rng.standard_normal(16000).astype(np.float32)
    f = rng.standard_normal(16000).astype(np.float32)
    inits = [numpy_helper.from_array(a, "A"), numpy_helper.from_array(a.copy(), "B"),
             numpy_helper.from_array(c, "c"), numpy_helper.from_array(d, "D"),
             numpy_helper.from_array(d.copy(), "E"), numpy_helper.from_array(f, "F"),
             numpy_helper.from_array(c.copy(), "G")]
    nodes = [helper.make_node("Add", ["X", "A"], ["y1"]),
             helper.make_node("Add", ["y1", "B"], ["y2"]),
             helper.make_node("Add", ["y2", "D"], ["y3"]),
             helper.make_node("Add", ["y3", "E"], ["Y"]),
             helper.make_node("Add", ["V", "c"], ["z1"]),
             helper.make_node("Add", ["z1", "F"], ["z2"]),
             helper.make_node("Add", ["z2", "G"], ["Z"])]
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [256, 1024]),
                             helper.make_tensor_value_info("V", TensorProto.FLOAT, [16000])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [256, 1024]),
                      helper.make_tensor_value_info("Z", TensorProto.FLOAT, [16000])], inits, "spill_numbered")
    save_external(model, outdir, "spill_numbered.onnx", "spill_numbered.data")


def spill_unused(outdir):
    rng = np.random.default_rng(33)
    inits = [numpy_helper.from_array(rng.standard_normal(1024).astype(np.float32), f"W{i}") for i in range(400)]
    nodes = [helper.make_node("Add", ["X" if i == 0 else f"s{i - 1}", f"W{i}"], ["Y" if i == 9 else f"s{i}"])
             for i in range(10)]
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1024])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1024])], inits, "spill_unused")
    save_external(model, outdir, "spill_unused.onnx", "spill_unused.data")


def spill_heads(outdir):
    rng = np.random.default_rng(34)
    a = rng.standard_normal((256, 1024)).astype(np.float32)
    b = a.copy()
    b[-1, -1] += 1.0
    inits = [numpy_helper.from_array(a, "A"), numpy_helper.from_array(b, "B"),
             numpy_helper.from_array(a.copy(), "C"), numpy_helper.from_array(b.copy(), "D")]
    save_external(sum_of(inits, [256, 1024], "spill_heads"), outdir, "spill_heads.onnx", "spill_heads.data")


def spill_qdq(outdir):
    rng = np.random.default_rng(35)
    q1 = rng.integers(-120, 120, (128, 128)).astype(np.int8)
    q3 = q1.copy()
    q3[-1, -1] = 7 if q3[-1, -1] != 7 else 8
    inits = [numpy_helper.from_array(np.array(0.02, dtype=np.float32), "xs"),
             numpy_helper.from_array(np.array(0, dtype=np.int8), "xz"),
             numpy_helper.from_array(rng.uniform(0.001, 0.01, 128).astype(np.float32), "S"),
             numpy_helper.from_array(np.zeros(128, dtype=np.int8), "Z"),
             numpy_helper.from_array(q1, "Q1"), numpy_helper.from_array(q1.copy(), "Q2"),
             numpy_helper.from_array(q3, "Q3")]
    nodes = [helper.make_node("QuantizeLinear", ["X", "xs", "xz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["h0"])]
    for k in (1, 2, 3):
        nodes += [helper.make_node("DequantizeLinear", ["Q%d" % k, "S", "Z"], ["w%d" % k], axis=1),
                  helper.make_node("MatMul", ["h%d" % (k - 1), "w%d" % k], ["h%d" % k if k < 3 else "Y"])]
    graph = helper.make_graph(nodes, "spill_qdq", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 128])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 128])], inits)
    model = helper.make_model(graph, producer_name="scs4onnx-c-gen_spill_models",
                              opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 8
    save_external(model, outdir, "spill_qdq.onnx", "spill_qdq.data", check=False)


def typed(array, name):
    """@array (float32) as a tensor in float_data."""
    t = helper.make_tensor(name, TensorProto.FLOAT, array.shape, array.flatten().tolist())
    assert not t.raw_data
    return t


def spill_ir3(outdir):
    rng = np.random.default_rng(36)
    a = rng.standard_normal((32, 64)).astype(np.float32)
    c = rng.standard_normal((32, 64)).astype(np.float32)
    inits = [typed(a, "A"), typed(a, "B"), typed(c, "C"), typed(c, "D")]
    model = sum_of(inits, [32, 64], "spill_ir3")
    model.graph.input.extend([helper.make_tensor_value_info(t.name, TensorProto.FLOAT, [32, 64]) for t in inits])
    del model.opset_import[:]
    model.opset_import.extend([helper.make_opsetid("", 8)])
    model.ir_version = 3
    save_inline(model, outdir, "spill_ir3.onnx")


def spill_sum40(outdir):
    rng = np.random.default_rng(37)
    values = [rng.standard_normal((16, 32)).astype(np.float32) for _ in range(20)]
    inits = [(typed if k % 2 == 0 else numpy_helper.from_array)(values[k % 20].copy(), "T%02d" % k) for k in range(40)]
    nodes = [helper.make_node("Sum", ["X"] + [t.name for t in inits], ["Y"])]
    model = model_of(nodes, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [16, 32])],
                     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [16, 32])], inits, "spill_sum40")
    save_external(model, outdir, "spill_sum40.onnx", "spill_sum40.data")


def main():
    outdir = sys.argv[1]
    spill_mix(outdir)
    spill_inline(outdir)
    spill_edit(outdir)
    stream_diverge(outdir)
    stream_threads(outdir)
    scattered(outdir)
    spill_numbered(outdir)
    spill_unused(outdir)
    spill_heads(outdir)
    spill_qdq(outdir)
    spill_ir3(outdir)
    spill_sum40(outdir)


if __name__ == "__main__":
    main()
