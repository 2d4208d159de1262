#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the models of the padfuse suite (tests/test_padfuse.c): a Pad
folded into the Conv or pool it feeds, Where(Not(c), x, y) rewritten, and
the rewrites ONNX Runtime's basic level makes that stay standard ONNX.

Usage:
    /usr/bin/python3 gen_padfuse_models.py OUTDIR

Needs python3-onnx and python3-numpy. Models are ir_version 8 unless named
otherwise; the output is
deterministic (python3-onnx's checker knows opsets up to 17: the newer
models are checked in ONNX Runtime alone). A model holds several cases side by side, each with its own
input X_<case> and output Z_<case>, so that a test finds a case's last node
by its output. The cases named after onnxoptimizer's tests
(onnxoptimizer/test/optimizer_test.py) build the same graphs, with the pads
an initializer that is no graph input (an overridable default is a case of
its own) and the weights initializers.

Files:

  pad_conv10    opset 10, pads attribute: 2-D (c2d) -> Conv pads [0,0,1,1];
                1-D (c1d) -> [1,1]; Conv with pads [1,1,0,0] (cexist) ->
                [1,1,1,1]; refused: a pad on the channels (rfeat), a negative
                pad (rneg), mode reflect (rrefl), value 1.5 (rval)
  pad_conv2     opset 2 and 1: the pads attribute; "paddings" at opset 1
                (pad_conv1)
  pad_conv11    opset 11, pads input: no value (c2d), value 0 (cval0), 1-D
                (c1d), Conv pads (cexist); refused: value 25 (rval), value -0
                (rnegz), a pad on the channels (rfeat), negative (rneg),
                reflect (rrefl), edge (redge), pads a graph input with a
                default (rdflt, IR 4), pads computed (rcomp), the Pad read by a
                Relu too (rtwo), the Pad a graph output (rout), Conv auto_pad
                SAME_UPPER (rauto), a pad on the batch (rbatch)
  pad_conv13    opset 13, typed encodings: pads in int64_data, the value a
                Constant node in float_data (ctyped); pads and value Constant
                nodes of raw data (cconst); strides and dilations (cstride)
  pad_conv18    opset 18, axes input: axes [2,3] (caxes), axes [-1] (cneg),
                axes [3,2] (cswap); refused: axes [1] with a pad
                (raxch)
  pad_conv19    opset 19: mode wrap refused (rwrap); a plain case (c2d)
  pad_conv21    opset 21: c2d, and a 3-D Conv (c3d)
  pad_pool      opset 13 MaxPool and AveragePool: MaxPool after a Pad of -inf
                (cmax), AveragePool after a Pad of 0 (cavg), AveragePool whose
                own pads count (cavgcnt), uint8 MaxPool after a Pad of 0 (cu8),
                int8 MaxPool after -128 (ci8); refused: MaxPool after a Pad of
                0 (rmax0), AveragePool after a Pad of 1 (ravg1), AveragePool
                whose own pads do not count (ravgown), ceil_mode (rceil),
                MaxPool Indices named (ridx), a pad not below the kernel
                (rbig), int8 MaxPool after 0 (ri8), auto_pad SAME_LOWER (rauto)
  pad_pool10    opset 10: MaxPool after a Pad of -inf (cmax), AveragePool (cavg)
  pad_pool6     opset 6: AveragePool refused (no count_include_pad), MaxPool
                fused (cmax)
  pad_nested    opset 13: Pad -> Conv in an If's branches (pads and weight from
                the main graph), Pad -> MaxPool in a Loop body
  mul_conv      opset 13 Conv -> Mul by one constant per output channel, the
                weights and bias numpy says the fold writes in
                mul_conv.expect.npz (W * s, b * s in float64, rounded once):
                [1,M,1,1] with a bias (cper), Mul(s, y) by a scalar without a
                bias (cscal), [M,1,1] on a group-2 Conv (cgroup), the scale
                and weight in float_data (ctyped), one weight read by two
                Convs, one of them scaled (cshared: the weight is copied);
                refused: a scale varying along a spatial axis (rspat), a graph
                input (rinput), a scale holding inf (rinf), the Conv's output
                read by another node (rtwo)
  mul_conv_wide opset 21 1x1 Conv of 1,000 by 300 channels (a weight of 1.2 MB,
                over one store chunk) -> Mul by [1000,1,1]
  mul_conv_f16  opset 13 float16 Conv -> Mul by [1,M,1,1]
  mul_conv_nest opset 13 Conv -> Mul in an If branch, weight and scale from
                the main graph
  div           opset 13 Div by constants: powers of two, negative ones
                included (cpow), a Constant node's value_float 8 (cscal), a
                divisor in float_data [2,1,1] (ctyped), float16 by 2^-10
                (cf16), a divisor an Add reads too (cshared), in an If branch
                reading the main graph's divisor (cif); refused without
                --fold-inexact: by 3 (rthree); refused: float16 by 2^-16 (its
                reciprocal 65536 is over float16's largest, rf16), by 0
                (rzero), by a graph input (rinput); int32 Div left alone
                (rint)
  div21         opset 21: a divisor of 300,000 powers of two (1.2 MB, over one
                store chunk)
  relu_clip     opset 13 Relu and Clip in a row: Relu -> Clip(0, 6) (c6),
                Clip(-1, 2) (cneg: min becomes 0), Clip(, 3) (cnomin), Clip()
                (cnone), Clip(1, 2) (cpos: min stays); Clip(-1, 4) -> Relu
                (crelu), Clip(-3, -1) -> Relu (cneghi: both bounds 0); Relu ->
                Clip(-1, 5) -> Relu (cchain: one Clip over two rounds); two
                Clips sharing a min of -1 (cshare, cshare2); on an input fed
                with -0, NaN and infinities (X_sp, relu_clip_special.npy:
                csp1 Relu -> Clip(0, 6), csp2 Clip(-1, 4) -> Relu); refused:
                the Relu read by another node too (rtwo), a min that is a
                graph input (rinput)
  relu_clip10   opset 10, the min and max attributes: Relu -> Clip(min -1,
                max 6) (c6), Clip(min -2, max -1) -> Relu (crelu)
  relu_clip21   opset 21 (Relu -> Clip(0, 6), c6) and int32 (Clip(-5, 5) ->
                Relu, cint)
  qkv           opset 13: X [2,3,4] read by three MatMuls of [4,5] weights (c:
                Concat, MatMul, Split with a split input); refused: weights of
                different shapes (rshape), one a graph input (rinput); left
                alone: X read by a fourth node (n4)
  qkv11         opset 11: the Split's split attribute (c); weights [2,4,5]
                batched (cb)
  where         opset 13 (and where9, opset 9): Where(Not(c), x, y) (c1); one
                Not read by two Where (c2); refused: Not a graph output too
                (rout), Not read by an And too (rand), Not read by a Where in
                a Loop body (rnest); Not -> Where inside an If branch (cif)
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
RNG = np.random.RandomState(23)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def i64(name, vals):
    return init(name, np.array(vals, dtype=np.int64))


def weights(name, shape):
    return init(name, RNG.uniform(-1, 1, size=shape).astype(np.float32))


class Graph:
    """Cases side by side: nodes, initializers, inputs, outputs."""

    def __init__(self):
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []

    def case(self, c, xshape, zshape, pad_nodes, op_nodes, inits=(), elem=FLOAT, extra_inputs=()):
        self.inputs.append(vi("X_" + c, elem, xshape))
        self.inputs.extend(extra_inputs)
        self.outputs.append(vi("Z_" + c, elem, zshape))
        self.nodes.extend(pad_nodes)
        self.nodes.extend(op_nodes)
        self.inits.extend(inits)

    def model(self, opset, name, ir=8):
        inputs = list(self.inputs)
        if ir < 4:
            # before IR 4 every initializer is also a graph input
            inputs += [vi(t.name, t.data_type, list(t.dims)) for t in self.inits]
        g = helper.make_graph(self.nodes, name, inputs, self.outputs, self.inits)
        m = helper.make_model(g, producer_name="scs4onnx-c-gen_padfuse_models",
                              opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = ir
        return m


def save(model, outdir, name):
    path = os.path.join(outdir, name + ".onnx")
    with open(path, "wb") as fh:
        fh.write(model.SerializeToString())
    if max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")) <= 17:
        onnx.checker.check_model(path)   # python3-onnx's checker knows opsets up to 17


def pad_attr(c, pads, mode="constant", value=None, key="pads"):
    kw = {key: pads, "mode": mode}
    if value is not None:
        kw["value"] = value
    return [helper.make_node("Pad", ["X_" + c], ["P_" + c], name="pad_" + c, **kw)]


def pad_in(c, pads, mode="constant", value=None, axes=None, value_dt=np.float32):
    """A Pad of opset 11+: pads (and value, axes) initializers named after the case."""
    ins = ["X_" + c, "pads_" + c]
    inits = [i64("pads_" + c, pads)]
    if value is not None or axes is not None:
        if value is None:
            ins.append("")
        else:
            ins.append("value_" + c)
            inits.append(init("value_" + c, np.array(value, dtype=value_dt)))
    if axes is not None:
        ins.append("axes_" + c)
        inits.append(i64("axes_" + c, axes))
    kw = {} if mode == "constant" else {"mode": mode}
    return [helper.make_node("Pad", ins, ["P_" + c], name="pad_" + c, **kw)], inits


def conv(c, wshape, **attrs):
    return ([helper.make_node("Conv", ["P_" + c, "W_" + c], ["Z_" + c], name="conv_" + c, **attrs)],
            [weights("W_" + c, wshape)])


def add_conv(g, c, xshape, zshape, pad_nodes, pad_inits, wshape, **attrs):
    nodes, inits = conv(c, wshape, **attrs)
    g.case(c, xshape, zshape, pad_nodes, nodes, list(pad_inits) + inits)


# ------------------------------------------------------------------ Conv
def gen_conv10(outdir):
    g = Graph()
    add_conv(g, "c2d", (1, 5, 2, 2), (1, 16, 1, 1), pad_attr("c2d", [0, 0, 0, 0, 0, 0, 1, 1]), [], (16, 5, 3, 3))
    add_conv(g, "c1d", (1, 5, 30), (1, 16, 1), pad_attr("c1d", [0, 0, 1, 0, 0, 1]), [], (16, 5, 32))
    add_conv(g, "cexist", (1, 5, 2, 2), (1, 16, 1, 1), pad_attr("cexist", [0, 0, 0, 0, 0, 0, 1, 1]), [],
             (16, 5, 4, 4), pads=[1, 1, 0, 0])
    add_conv(g, "rfeat", (1, 4, 3, 3), (1, 16, 1, 1), pad_attr("rfeat", [0, 1, 0, 0, 0, 0, 0, 0]), [], (16, 5, 3, 3))
    add_conv(g, "rneg", (1, 5, 4, 4), (1, 16, 1, 1), pad_attr("rneg", [0, 0, 0, 0, 0, 0, -1, -1]), [],
             (16, 5, 3, 3))
    add_conv(g, "rrefl", (1, 5, 2, 2), (1, 16, 1, 1), pad_attr("rrefl", [0, 0, 0, 0, 0, 0, 1, 1], mode="reflect"),
             [], (16, 5, 2, 2))
    add_conv(g, "rval", (1, 5, 2, 2), (1, 16, 1, 1), pad_attr("rval", [0, 0, 0, 0, 0, 0, 1, 1], value=1.5), [],
             (16, 5, 3, 3))
    save(g.model(10, "pad_conv10"), outdir, "pad_conv10")
    for opset, key in ((2, "pads"), (1, "paddings")):
        g = Graph()
        add_conv(g, "c2d", (1, 5, 3, 3), (1, 4, 3, 3), pad_attr("c2d", [0, 0, 1, 1, 0, 0, 1, 1], key=key), [],
                 (4, 5, 3, 3))
        save(g.model(opset, "pad_conv%d" % opset, ir=3), outdir, "pad_conv%d" % opset)


def gen_conv11(outdir):
    g = Graph()
    add_conv(g, "c2d", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("c2d", [0, 0, 0, 0, 0, 0, 1, 1]), (16, 5, 3, 3))
    add_conv(g, "cval0", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("cval0", [0, 0, 0, 0, 0, 0, 1, 1], value=0.0),
             (16, 5, 3, 3))
    add_conv(g, "c1d", (1, 5, 30), (1, 16, 1), *pad_in("c1d", [0, 0, 1, 0, 0, 1]), (16, 5, 32))
    add_conv(g, "cexist", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("cexist", [0, 0, 0, 0, 0, 0, 1, 1]), (16, 5, 4, 4),
             pads=[1, 1, 0, 0])
    add_conv(g, "rval", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("rval", [0, 0, 0, 0, 0, 0, 1, 1], value=25.0),
             (16, 5, 3, 3))
    add_conv(g, "rnegz", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("rnegz", [0, 0, 0, 0, 0, 0, 1, 1], value=-0.0),
             (16, 5, 3, 3))
    add_conv(g, "rfeat", (1, 4, 3, 3), (1, 16, 1, 1), *pad_in("rfeat", [0, 1, 0, 0, 0, 0, 0, 0]), (16, 5, 3, 3))
    add_conv(g, "rbatch", (1, 5, 3, 3), (2, 16, 1, 1), *pad_in("rbatch", [0, 0, 0, 0, 1, 0, 0, 0]), (16, 5, 3, 3))
    add_conv(g, "rneg", (1, 5, 4, 4), (1, 16, 1, 1), *pad_in("rneg", [0, 0, 0, 0, 0, 0, -1, -1]), (16, 5, 3, 3))
    add_conv(g, "rrefl", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("rrefl", [0, 0, 0, 0, 0, 0, 1, 1], mode="reflect"),
             (16, 5, 3, 3))
    add_conv(g, "redge", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("redge", [0, 0, 0, 0, 0, 0, 1, 1], mode="edge"),
             (16, 5, 3, 3))
    add_conv(g, "rauto", (1, 5, 2, 2), (1, 16, 3, 3), *pad_in("rauto", [0, 0, 0, 0, 0, 0, 1, 1]), (16, 5, 3, 3),
             auto_pad="SAME_UPPER")
    # the pads computed: Identity of a constant
    nodes, inits = pad_in("rcomp", [0, 0, 0, 0, 0, 0, 1, 1])
    nodes[0].input[1] = "pads_rcomp_id"
    nodes.insert(0, helper.make_node("Identity", ["pads_rcomp"], ["pads_rcomp_id"]))
    add_conv(g, "rcomp", (1, 5, 2, 2), (1, 16, 1, 1), nodes, inits, (16, 5, 3, 3))
    # the Pad read twice; the Pad a graph output
    nodes, inits = pad_in("rtwo", [0, 0, 0, 0, 0, 0, 1, 1])
    nodes.append(helper.make_node("Relu", ["P_rtwo"], ["R_rtwo"]))
    add_conv(g, "rtwo", (1, 5, 2, 2), (1, 16, 1, 1), nodes, inits, (16, 5, 3, 3))
    g.outputs.append(vi("R_rtwo", FLOAT, (1, 5, 3, 3)))
    add_conv(g, "rout", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("rout", [0, 0, 0, 0, 0, 0, 1, 1]), (16, 5, 3, 3))
    g.outputs.append(vi("P_rout", FLOAT, (1, 5, 3, 3)))
    # pads a graph input with a default
    add_conv(g, "rdflt", (1, 5, 2, 2), (1, 16, 1, 1), *pad_in("rdflt", [0, 0, 0, 0, 0, 0, 1, 1]), (16, 5, 3, 3))
    g.inputs.append(vi("pads_rdflt", TensorProto.INT64, (8,)))
    save(g.model(11, "pad_conv11"), outdir, "pad_conv11")


def gen_conv13(outdir):
    g = Graph()
    # typed encodings: pads in int64_data, the value a Constant node in float_data
    pads = helper.make_tensor("pads_ctyped", TensorProto.INT64, (8,), [0, 0, 1, 0, 0, 0, 1, 2])
    value = helper.make_tensor("v", FLOAT, (), [0.0])
    nodes = [helper.make_node("Constant", [], ["value_ctyped"], value=value),
             helper.make_node("Pad", ["X_ctyped", "pads_ctyped", "value_ctyped"], ["P_ctyped"], name="pad_ctyped")]
    add_conv(g, "ctyped", (1, 3, 4, 4), (1, 6, 3, 4), nodes, [pads], (6, 3, 3, 3))
    # pads and value Constant nodes of raw data
    pads = numpy_helper.from_array(np.array([0, 0, 2, 1, 0, 0, 0, 1], dtype=np.int64), "p")
    value = numpy_helper.from_array(np.array(0.0, dtype=np.float32), "v")
    nodes = [helper.make_node("Constant", [], ["pads_cconst"], value=pads),
             helper.make_node("Constant", [], ["value_cconst"], value=value),
             helper.make_node("Pad", ["X_cconst", "pads_cconst", "value_cconst"], ["P_cconst"], name="pad_cconst")]
    add_conv(g, "cconst", (1, 3, 4, 4), (1, 6, 4, 4), nodes, [], (6, 3, 3, 3), pads=[0, 1, 0, 0])
    add_conv(g, "cstride", (1, 3, 7, 7), (1, 6, 3, 2), *pad_in("cstride", [0, 0, 1, 0, 0, 0, 0, 0]), (6, 3, 3, 3),
             strides=[2, 3], dilations=[1, 2])
    save(g.model(13, "pad_conv13"), outdir, "pad_conv13")


def gen_conv18(outdir):
    g = Graph()
    add_conv(g, "caxes", (1, 3, 4, 4), (1, 6, 4, 4), *pad_in("caxes", [1, 1, 1, 1], axes=[2, 3]), (6, 3, 3, 3))
    add_conv(g, "cneg", (1, 3, 4, 4), (1, 6, 2, 4), *pad_in("cneg", [1, 1], axes=[-1]), (6, 3, 3, 3))
    nodes, inits = pad_in("cswap", [2, 0, 0, 1], value=0.0, axes=[3, 2])
    add_conv(g, "cswap", (1, 3, 4, 4), (1, 6, 3, 4), nodes, inits, (6, 3, 3, 3))
    add_conv(g, "raxch", (1, 2, 4, 4), (1, 6, 2, 2), *pad_in("raxch", [1, 0], axes=[1]), (6, 3, 3, 3))
    save(g.model(18, "pad_conv18"), outdir, "pad_conv18")


def gen_conv19_21(outdir):
    g = Graph()
    add_conv(g, "c2d", (1, 3, 4, 4), (1, 6, 4, 4), *pad_in("c2d", [0, 0, 1, 1, 0, 0, 1, 1]), (6, 3, 3, 3))
    add_conv(g, "rwrap", (1, 3, 4, 4), (1, 6, 4, 4), *pad_in("rwrap", [0, 0, 1, 1, 0, 0, 1, 1], mode="wrap"),
             (6, 3, 3, 3))
    save(g.model(19, "pad_conv19"), outdir, "pad_conv19")
    g = Graph()
    add_conv(g, "c2d", (1, 3, 4, 4), (1, 6, 4, 4), *pad_in("c2d", [0, 0, 1, 1, 0, 0, 1, 1]), (6, 3, 3, 3))
    add_conv(g, "c3d", (1, 2, 3, 3, 3), (1, 4, 3, 3, 3), *pad_in("c3d", [0, 0, 1, 0, 1, 0, 0, 1, 0, 1]),
             (4, 2, 2, 3, 2), pads=[0, 1, 0, 0, 0, 0])
    save(g.model(21, "pad_conv21"), outdir, "pad_conv21")


# ------------------------------------------------------------------ pools
def pool(c, op, **attrs):
    return [helper.make_node(op, ["P_" + c], ["Z_" + c], name="pool_" + c, **attrs)]


def gen_pool(outdir):
    g = Graph()
    inf = float("-inf")
    g.case("cmax", (1, 3, 5, 5), (1, 3, 3, 3), *reorder(pad_in("cmax", [0, 0, 1, 0, 0, 0, 0, 1], value=inf),
                                                   pool("cmax", "MaxPool", kernel_shape=[3, 3], strides=[2, 2])))
    g.case("cavg", (1, 3, 5, 5), (1, 3, 5, 5), *reorder(pad_in("cavg", [0, 0, 1, 1, 0, 0, 1, 1]),
                                                   pool("cavg", "AveragePool", kernel_shape=[3, 3])))
    g.case("cavgcnt", (1, 3, 5, 5), (1, 3, 5, 6), *reorder(pad_in("cavgcnt", [0, 0, 1, 0, 0, 0, 1, 1], value=0.0),
                                                      pool("cavgcnt", "AveragePool", kernel_shape=[3, 3],
                                                           pads=[0, 1, 0, 0], count_include_pad=1)))
    g.case("cu8", (1, 2, 4, 4), (1, 2, 5, 5), *reorder(pad_in("cu8", [0, 0, 1, 1, 0, 0, 1, 1], value=0,
                                                              value_dt=np.uint8),
                                                       pool("cu8", "MaxPool", kernel_shape=[2, 2])),
           elem=TensorProto.UINT8)
    g.case("ci8", (1, 2, 4, 4), (1, 2, 5, 5), *reorder(pad_in("ci8", [0, 0, 1, 1, 0, 0, 1, 1], value=-128,
                                                              value_dt=np.int8),
                                                       pool("ci8", "MaxPool", kernel_shape=[2, 2])),
           elem=TensorProto.INT8)
    g.case("rmax0", (1, 3, 5, 5), (1, 3, 5, 5), *reorder(pad_in("rmax0", [0, 0, 1, 1, 0, 0, 1, 1]),
                                                    pool("rmax0", "MaxPool", kernel_shape=[3, 3])))
    g.case("ravg1", (1, 3, 5, 5), (1, 3, 5, 5), *reorder(pad_in("ravg1", [0, 0, 1, 1, 0, 0, 1, 1], value=1.0),
                                                    pool("ravg1", "AveragePool", kernel_shape=[3, 3])))
    g.case("ravgown", (1, 3, 5, 5), (1, 3, 5, 6), *reorder(pad_in("ravgown", [0, 0, 1, 0, 0, 0, 1, 1]),
                                                      pool("ravgown", "AveragePool", kernel_shape=[3, 3],
                                                           pads=[0, 1, 0, 0])))
    g.case("rceil", (1, 3, 5, 5), (1, 3, 3, 3), *reorder(pad_in("rceil", [0, 0, 1, 1, 0, 0, 0, 0], value=inf),
                                                    pool("rceil", "MaxPool", kernel_shape=[2, 2], strides=[2, 2],
                                                         ceil_mode=1)))
    nodes = [helper.make_node("MaxPool", ["P_ridx"], ["Z_ridx", "I_ridx"], name="pool_ridx", kernel_shape=[3, 3])]
    g.case("ridx", (1, 3, 5, 5), (1, 3, 5, 5), *reorder(pad_in("ridx", [0, 0, 1, 1, 0, 0, 1, 1], value=inf), nodes))
    g.outputs.append(vi("I_ridx", TensorProto.INT64, (1, 3, 5, 5)))
    g.case("rbig", (1, 3, 5, 5), (1, 3, 6, 5), *reorder(pad_in("rbig", [0, 0, 2, 0, 0, 0, 0, 0], value=inf),
                                                   pool("rbig", "MaxPool", kernel_shape=[2, 1])))
    g.case("ri8", (1, 2, 4, 4), (1, 2, 5, 5), *reorder(pad_in("ri8", [0, 0, 1, 1, 0, 0, 1, 1], value=0,
                                                              value_dt=np.int8),
                                                       pool("ri8", "MaxPool", kernel_shape=[2, 2])),
           elem=TensorProto.INT8)
    g.case("rauto", (1, 3, 5, 5), (1, 3, 6, 6), *reorder(pad_in("rauto", [0, 0, 1, 1, 0, 0, 0, 0], value=inf),
                                                    pool("rauto", "MaxPool", kernel_shape=[3, 3],
                                                         auto_pad="SAME_LOWER")))
    save(g.model(13, "pad_pool"), outdir, "pad_pool")

    g = Graph()
    g.case("cmax", (1, 3, 5, 5), (1, 3, 3, 3), pad_attr("cmax", [0, 0, 1, 0, 0, 0, 0, 1], value=inf),
           pool("cmax", "MaxPool", kernel_shape=[3, 3], strides=[2, 2]))
    g.case("cavg", (1, 3, 5, 5), (1, 3, 5, 5), pad_attr("cavg", [0, 0, 1, 1, 0, 0, 1, 1]),
           pool("cavg", "AveragePool", kernel_shape=[3, 3]))
    save(g.model(10, "pad_pool10"), outdir, "pad_pool10")
    g = Graph()
    g.case("cmax", (1, 3, 5, 5), (1, 3, 3, 3), pad_attr("cmax", [0, 0, 1, 0, 0, 0, 0, 1], value=inf),
           pool("cmax", "MaxPool", kernel_shape=[3, 3], strides=[2, 2]))
    g.case("ravg", (1, 3, 5, 5), (1, 3, 5, 5), pad_attr("ravg", [0, 0, 1, 1, 0, 0, 1, 1]),
           pool("ravg", "AveragePool", kernel_shape=[3, 3]))
    save(g.model(6, "pad_pool6", ir=3), outdir, "pad_pool6")


def reorder(pad, op_nodes):
    """(pad nodes, op nodes, inits) from pad_in's (nodes, inits) and the op's nodes."""
    return pad[0], op_nodes, pad[1]


# ------------------------------------------------------------------ nested
def gen_nested(outdir):
    then_nodes = [helper.make_node("Pad", ["X", "pads"], ["P_t"], name="pad_then"),
                  helper.make_node("Conv", ["P_t", "W"], ["Z_t"], name="conv_then")]
    else_nodes = [helper.make_node("Pad", ["X", "pads"], ["P_e"], name="pad_else"),
                  helper.make_node("Conv", ["P_e", "W"], ["Z_e"], name="conv_else", pads=[1, 0, 0, 0])]
    then_g = helper.make_graph(then_nodes, "then", [], [vi("Z_t", FLOAT, (1, 6, 4, 4))])
    else_g = helper.make_graph(else_nodes, "else", [], [vi("Z_e", FLOAT, (1, 6, 5, 4))])
    body_nodes = [helper.make_node("Pad", ["x_in", "pads_l", "ninf"], ["p_l"], name="pad_loop"),
                  helper.make_node("MaxPool", ["p_l"], ["x_out"], name="pool_loop", kernel_shape=[3, 3]),
                  helper.make_node("Identity", ["cond_in"], ["cond_out"])]
    body = helper.make_graph(body_nodes, "body",
                             [vi("i", TensorProto.INT64, ()), vi("cond_in", TensorProto.BOOL, ()),
                              vi("x_in", FLOAT, (1, 3, 4, 4))],
                             [vi("cond_out", TensorProto.BOOL, ()), vi("x_out", FLOAT, (1, 3, 4, 4))])
    nodes = [helper.make_node("If", ["C"], ["Z_if"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Loop", ["trips", "", "X"], ["Z_loop"], body=body)]
    g = helper.make_graph(nodes, "pad_nested",
                          [vi("X", FLOAT, (1, 3, 4, 4)), vi("C", TensorProto.BOOL, ())],
                          [vi("Z_if", FLOAT, (1, 6, "h", 4)), vi("Z_loop", FLOAT, (1, 3, 4, 4))],
                          [i64("pads", [0, 0, 1, 1, 0, 0, 1, 1]), weights("W", (6, 3, 3, 3)),
                           i64("pads_l", [0, 0, 1, 1, 0, 0, 1, 1]), i64("trips", 2),
                           init("ninf", np.array(-np.inf, dtype=np.float32))])
    m = helper.make_model(g, producer_name="scs4onnx-c-gen_padfuse_models",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save(m, outdir, "pad_nested")


# ------------------------------------------------------------------ Where
def gen_where(outdir):
    B, T = TensorProto.BOOL, (2, 3)
    for opset in (13, 9):
        nodes = [helper.make_node("Not", ["C_c1"], ["N_c1"], name="not_c1"),
                 helper.make_node("Where", ["N_c1", "X_c1", "Y_c1"], ["Z_c1"], name="where_c1"),
                 helper.make_node("Not", ["C_c2"], ["N_c2"], name="not_c2"),
                 helper.make_node("Where", ["N_c2", "X_c2", "Y_c2"], ["Z_c2"], name="where_c2"),
                 helper.make_node("Where", ["N_c2", "Y_c2", "X_c2"], ["Z_c2b"], name="where_c2b"),
                 helper.make_node("Not", ["C_rout"], ["N_rout"], name="not_rout"),
                 helper.make_node("Where", ["N_rout", "X_rout", "Y_rout"], ["Z_rout"], name="where_rout"),
                 helper.make_node("Not", ["C_rand"], ["N_rand"], name="not_rand"),
                 helper.make_node("Where", ["N_rand", "X_rand", "Y_rand"], ["Z_rand"], name="where_rand"),
                 helper.make_node("And", ["N_rand", "C_rout"], ["A_rand"], name="and_rand")]
        ins, outs = [], []
        for c in ("c1", "c2", "rout", "rand"):
            ins += [vi("C_" + c, B, T), vi("X_" + c, FLOAT, T), vi("Y_" + c, FLOAT, (3,))]
            outs.append(vi("Z_" + c, FLOAT, T))
        outs += [vi("Z_c2b", FLOAT, T), vi("N_rout", B, T), vi("A_rand", B, T)]
        if opset == 13:
            # a Not read in a Loop body (rnest); a Not -> Where inside an If branch (cif)
            body = helper.make_graph(
                [helper.make_node("Where", ["N_rnest", "X_rnest", "Y_rnest"], ["z_body"], name="where_rnest"),
                 helper.make_node("Identity", ["cond_in"], ["cond_out"])],
                "body", [vi("i", TensorProto.INT64, ()), vi("cond_in", B, ())],
                [vi("cond_out", B, ()), vi("z_body", FLOAT, T)])
            then_g = helper.make_graph(
                [helper.make_node("Not", ["C_cif"], ["n_then"], name="not_cif"),
                 helper.make_node("Where", ["n_then", "X_cif", "Y_cif"], ["z_then"], name="where_cif")],
                "then", [], [vi("z_then", FLOAT, T)])
            else_g = helper.make_graph([helper.make_node("Identity", ["X_cif"], ["z_else"])], "else", [],
                                       [vi("z_else", FLOAT, T)])
            nodes += [helper.make_node("Not", ["C_rnest"], ["N_rnest"], name="not_rnest"),
                      helper.make_node("Loop", ["trips", ""], ["Z_rnest"], body=body),
                      helper.make_node("If", ["K_cif"], ["Z_cif"], then_branch=then_g, else_branch=else_g)]
            for c in ("rnest", "cif"):
                ins += [vi("C_" + c, B, T), vi("X_" + c, FLOAT, T), vi("Y_" + c, FLOAT, (3,))]
            ins.append(vi("K_cif", B, ()))
            outs += [vi("Z_rnest", FLOAT, (2, 2, 3)), vi("Z_cif", FLOAT, T)]
        g = helper.make_graph(nodes, "where", ins, outs, [i64("trips", 2)] if opset == 13 else [])
        m = helper.make_model(g, producer_name="scs4onnx-c-gen_padfuse_models",
                              opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        save(m, outdir, "where" if opset == 13 else "where9")


# ------------------------------------------------------------------ Conv -> Mul
def scaled(w, scale, dt):
    """W * s per output channel (axis 0) in float64, rounded once to @dt."""
    s = scale.astype(np.float64).reshape(-1)
    if s.size == 1:
        s = np.full(w.shape[0], s[0])
    return (w.astype(np.float64) * s.reshape((-1,) + (1,) * (w.ndim - 1))).astype(dt)


def mul_case(g, expect, c, xshape, wshape, sshape, bias=True, swap=False, dt=np.float32, group=1, typed=False,
             scale=None):
    """Conv conv_C (weight W_C, bias B_C) -> Mul by S_C into Z_C."""
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dt)) if hasattr(helper, "np_dtype_to_tensor_dtype") else \
        onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
    w = RNG.uniform(-1, 1, size=wshape).astype(dt)
    sc = RNG.uniform(0.25, 2, size=sshape).astype(dt) if scale is None else np.array(scale, dtype=dt)
    ins = ["X_" + c, "W_" + c] + (["B_" + c] if bias else [])
    inits = []
    if typed:
        inits += [helper.make_tensor("W_" + c, elem, wshape, w.reshape(-1).tolist()),
                  helper.make_tensor("S_" + c, elem, sshape, sc.reshape(-1).tolist())]
    else:
        inits += [init("W_" + c, w), init("S_" + c, sc)]
    if bias:
        b = RNG.uniform(-1, 1, size=(wshape[0],)).astype(dt)
        inits.append(init("B_" + c, b))
    nodes = [helper.make_node("Conv", ins, ["Y_" + c], name="conv_" + c, group=group),
             helper.make_node("Mul", ["S_" + c, "Y_" + c] if swap else ["Y_" + c, "S_" + c], ["Z_" + c],
                              name="mul_" + c)]
    zshape = (xshape[0], wshape[0]) + tuple(x - k + 1 for x, k in zip(xshape[2:], wshape[2:]))
    g.case(c, xshape, zshape, [], nodes, inits, elem=elem)
    if expect is not None and np.all(np.isfinite(sc)):
        expect["conv_%s:1" % c] = scaled(w, sc, dt)
        if bias:
            expect["conv_%s:2" % c] = (b.astype(np.float64) * np.broadcast_to(sc.astype(np.float64).reshape(-1),
                                                                               (wshape[0],))).astype(dt)


def gen_mul(outdir):
    g, expect = Graph(), {}
    mul_case(g, expect, "cper", (1, 3, 5, 5), (4, 3, 3, 3), (1, 4, 1, 1))
    mul_case(g, expect, "cscal", (1, 3, 5, 5), (4, 3, 3, 3), (), bias=False, swap=True)
    mul_case(g, expect, "cgroup", (1, 4, 5, 5), (6, 2, 3, 3), (6, 1, 1), group=2)
    mul_case(g, expect, "ctyped", (1, 3, 5, 5), (4, 3, 3, 3), (1, 4, 1, 1), typed=True)
    mul_case(g, None, "rspat", (1, 3, 5, 5), (4, 3, 3, 3), (1, 1, 1, 3))
    mul_case(g, None, "rinf", (1, 3, 5, 5), (4, 3, 3, 3), (1, 4, 1, 1), scale=np.array([1, np.inf, 2, 3]).reshape(
        (1, 4, 1, 1)))
    mul_case(g, None, "rtwo", (1, 3, 5, 5), (4, 3, 3, 3), (1, 4, 1, 1))
    g.nodes.append(helper.make_node("Relu", ["Y_rtwo"], ["R_rtwo"]))
    g.outputs.append(vi("R_rtwo", FLOAT, (1, 4, 3, 3)))
    mul_case(g, None, "rinput", (1, 3, 5, 5), (4, 3, 3, 3), (1, 4, 1, 1))
    g.inits = [t for t in g.inits if t.name != "S_rinput"]
    g.inputs.append(vi("S_rinput", FLOAT, (1, 4, 1, 1)))
    # one weight, two Convs: the scaled one gets a copy
    mul_case(g, expect, "cshared", (1, 3, 5, 5), (4, 3, 3, 3), (1, 4, 1, 1))
    g.nodes.append(helper.make_node("Conv", ["X_cshared", "W_cshared"], ["U_cshared"], name="conv_cshared_other"))
    g.outputs.append(vi("U_cshared", FLOAT, (1, 4, 3, 3)))
    w = [t for t in g.inits if t.name == "W_cshared"][0]
    expect["conv_cshared_other:1"] = numpy_helper.to_array(w)
    save(g.model(13, "mul_conv"), outdir, "mul_conv")
    np.savez(os.path.join(outdir, "mul_conv.expect.npz"), **expect)

    g, expect = Graph(), {}
    mul_case(g, expect, "cwide", (1, 300, 2, 2), (1000, 300, 1, 1), (1000, 1, 1))
    save(g.model(21, "mul_conv_wide"), outdir, "mul_conv_wide")
    np.savez(os.path.join(outdir, "mul_conv_wide.expect.npz"), **expect)

    g, expect = Graph(), {}
    mul_case(g, expect, "cf16", (1, 3, 5, 5), (4, 3, 3, 3), (1, 4, 1, 1), dt=np.float16)
    save(g.model(13, "mul_conv_f16"), outdir, "mul_conv_f16")
    np.savez(os.path.join(outdir, "mul_conv_f16.expect.npz"), **expect)

    # in an If branch, weight and scale from the main graph
    w = RNG.uniform(-1, 1, size=(4, 3, 3, 3)).astype(np.float32)
    sc = RNG.uniform(0.25, 2, size=(1, 4, 1, 1)).astype(np.float32)
    then_g = helper.make_graph([helper.make_node("Conv", ["X", "W"], ["y_t"], name="conv_then"),
                                helper.make_node("Mul", ["y_t", "S"], ["z_t"], name="mul_then")],
                               "then", [], [vi("z_t", FLOAT, (1, 4, 3, 3))])
    else_g = helper.make_graph([helper.make_node("Conv", ["X", "W"], ["z_e"], name="conv_else")],
                               "else", [], [vi("z_e", FLOAT, (1, 4, 3, 3))])
    gr = helper.make_graph([helper.make_node("If", ["C"], ["Z"], then_branch=then_g, else_branch=else_g)],
                           "mul_conv_nest", [vi("X", FLOAT, (1, 3, 5, 5)), vi("C", TensorProto.BOOL, ())],
                           [vi("Z", FLOAT, (1, 4, 3, 3))], [init("W", w), init("S", sc)])
    m = helper.make_model(gr, producer_name="scs4onnx-c-gen_padfuse_models",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    save(m, outdir, "mul_conv_nest")
    np.savez(os.path.join(outdir, "mul_conv_nest.expect.npz"), **{"conv_then:1": scaled(w, sc, np.float32),
                                                                  "conv_else:1": w})


# ------------------------------------------------------------------ Div
def div_case(g, c, xshape, divisor, dt=np.float32, node=None):
    elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
    d = np.array(divisor, dtype=dt)
    zshape = np.broadcast_shapes(tuple(xshape), d.shape)
    inits = [] if node is not None else [init("D_" + c, d)]
    nodes = ([node] if node is not None else []) + [
        helper.make_node("Div", ["X_" + c, "D_" + c], ["Z_" + c], name="div_" + c)]
    g.case(c, xshape, zshape, [], nodes, inits, elem=elem)


def gen_div(outdir):
    g = Graph()
    div_case(g, "cpow", (2, 4), [0.5, 2, -4, 0.125])
    div_case(g, "cscal", (2, 4), 8.0, node=helper.make_node("Constant", [], ["D_cscal"], value_float=8.0))
    g.case("ctyped", (1, 2, 3, 3), (1, 2, 3, 3), [],
           [helper.make_node("Div", ["X_ctyped", "D_ctyped"], ["Z_ctyped"], name="div_ctyped")],
           [helper.make_tensor("D_ctyped", FLOAT, (2, 1, 1), [0.25, 1024.0])])
    div_case(g, "cf16", (2, 3), np.float16(2.0 ** -10), dt=np.float16)
    div_case(g, "cshared", (2, 4), [2, 4, 8, 16])
    g.nodes.append(helper.make_node("Add", ["X_cshared", "D_cshared"], ["A_cshared"]))
    g.outputs.append(vi("A_cshared", FLOAT, (2, 4)))
    div_case(g, "rthree", (2, 4), [2, 3, 4, 8])
    div_case(g, "rf16", (2, 3), np.float16(2.0 ** -16), dt=np.float16)
    div_case(g, "rzero", (2, 4), [2, 0, 4, 8])
    div_case(g, "rinput", (2, 4), [2, 2, 4, 8])
    g.inits = [t for t in g.inits if t.name != "D_rinput"]
    g.inputs.append(vi("D_rinput", FLOAT, (4,)))
    div_case(g, "rint", (2, 4), [2, 2, 4, 8], dt=np.int32)
    then_g = helper.make_graph([helper.make_node("Div", ["X_cif", "D_cif"], ["z_t"], name="div_cif")], "then", [],
                               [vi("z_t", FLOAT, (2, 4))])
    else_g = helper.make_graph([helper.make_node("Identity", ["X_cif"], ["z_e"])], "else", [],
                               [vi("z_e", FLOAT, (2, 4))])
    g.case("cif", (2, 4), (2, 4), [],
           [helper.make_node("If", ["K_cif"], ["Z_cif"], then_branch=then_g, else_branch=else_g)],
           [init("D_cif", np.array([4, 0.25, 2, 0.5], dtype=np.float32))],
           extra_inputs=[vi("K_cif", TensorProto.BOOL, ())])
    save(g.model(13, "div"), outdir, "div")
    g = Graph()
    div_case(g, "cwide", (2, 300000), 2.0 ** RNG.randint(-20, 20, size=300000))
    save(g.model(21, "div21"), outdir, "div21")


# ------------------------------------------------------------------ Relu, Clip
def clip_node(c, x, z, lo, hi, name, dt=np.float32):
    """A Clip of opset 11+ whose bounds (None: left out) are initializers named after the case."""
    ins, inits = [x], []
    for k, v in (("min", lo), ("max", hi)):
        if v is None:
            ins.append("")
        else:
            ins.append("%s_%s" % (k, c))
            inits.append(init("%s_%s" % (k, c), np.array(v, dtype=dt)))
    while ins and ins[-1] == "":
        ins.pop()
    return helper.make_node("Clip", ins, [z], name=name), inits


def relu_clip_case(g, c, lo, hi, order="relu_clip", x=None, dt=np.float32, shape=(2, 5)):
    elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
    xin = x or "X_" + c
    if order == "relu_clip":
        clip, inits = clip_node(c, "Y_" + c, "Z_" + c, lo, hi, "clip_" + c, dt)
        nodes = [helper.make_node("Relu", [xin], ["Y_" + c], name="relu_" + c), clip]
    else:
        clip, inits = clip_node(c, xin, "Y_" + c, lo, hi, "clip_" + c, dt)
        nodes = [clip, helper.make_node("Relu", ["Y_" + c], ["Z_" + c], name="relu_" + c)]
    if x is None:
        g.case(c, shape, shape, [], nodes, inits, elem=elem)
    else:
        g.nodes.extend(nodes)
        g.inits.extend(inits)
        g.outputs.append(vi("Z_" + c, elem, shape))


def gen_relu_clip(outdir):
    g = Graph()
    relu_clip_case(g, "c6", 0.0, 6.0)
    relu_clip_case(g, "cneg", -1.0, 2.0)
    relu_clip_case(g, "cnomin", None, 3.0)
    relu_clip_case(g, "cnone", None, None)
    relu_clip_case(g, "cpos", 1.0, 2.0)
    relu_clip_case(g, "crelu", -1.0, 4.0, order="clip_relu")
    relu_clip_case(g, "cneghi", -3.0, -1.0, order="clip_relu")
    # Relu -> Clip -> Relu
    clip, inits = clip_node("cchain", "R_cchain", "Y_cchain", -1.0, 5.0, "clip_cchain")
    g.case("cchain", (2, 5), (2, 5), [], [helper.make_node("Relu", ["X_cchain"], ["R_cchain"], name="relu_cchain"),
                                          clip,
                                          helper.make_node("Relu", ["Y_cchain"], ["Z_cchain"], name="relu2_cchain")],
           inits)
    # two Clips reading one min of -1
    relu_clip_case(g, "cshare", -1.0, 2.0)
    g.case("cshare2", (2, 5), (2, 5), [], [helper.make_node("Relu", ["X_cshare2"], ["Y_cshare2"], name="relu_cshare2"),
                                           helper.make_node("Clip", ["Y_cshare2", "min_cshare", "max_cshare"],
                                                            ["Z_cshare2"], name="clip_cshare2")])
    # -0, NaN and infinities
    g.inputs.append(vi("X_sp", FLOAT, (8,)))
    relu_clip_case(g, "csp1", 0.0, 6.0, x="X_sp", shape=(8,))
    relu_clip_case(g, "csp2", -1.0, 4.0, order="clip_relu", x="X_sp", shape=(8,))
    np.save(os.path.join(outdir, "relu_clip_special.npy"),
            np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, -1.5, 7.0, 3.0], dtype=np.float32))
    relu_clip_case(g, "rtwo", -1.0, 2.0)
    g.nodes.append(helper.make_node("Neg", ["Y_rtwo"], ["N_rtwo"]))
    g.outputs.append(vi("N_rtwo", FLOAT, (2, 5)))
    relu_clip_case(g, "rinput", -1.0, 2.0)
    g.inits = [t for t in g.inits if t.name != "min_rinput"]
    g.inputs.append(vi("min_rinput", FLOAT, ()))
    save(g.model(13, "relu_clip"), outdir, "relu_clip")

    g = Graph()
    g.case("c6", (2, 5), (2, 5), [], [helper.make_node("Relu", ["X_c6"], ["Y_c6"], name="relu_c6"),
                                      helper.make_node("Clip", ["Y_c6"], ["Z_c6"], name="clip_c6", min=-1.0, max=6.0)])
    g.case("crelu", (2, 5), (2, 5), [], [helper.make_node("Clip", ["X_crelu"], ["Y_crelu"], name="clip_crelu",
                                                          min=-2.0, max=-1.0),
                                         helper.make_node("Relu", ["Y_crelu"], ["Z_crelu"], name="relu_crelu")])
    save(g.model(10, "relu_clip10"), outdir, "relu_clip10")

    g = Graph()
    relu_clip_case(g, "c6", 0.0, 6.0)
    relu_clip_case(g, "cint", -5, 5, order="clip_relu", dt=np.int32)
    save(g.model(21, "relu_clip21"), outdir, "relu_clip21")


# ------------------------------------------------------------------ QKV
def qkv_case(g, c, xshape, wshapes, fourth=False):
    nodes, inits, outs = [], [], []
    for k, ws in zip("qkv", wshapes):
        inits.append(weights("W%s_%s" % (k, c), ws))
        nodes.append(helper.make_node("MatMul", ["X_" + c, "W%s_%s" % (k, c)], ["%s_%s" % (k, c)],
                                      name="mm%s_%s" % (k, c)))
        outs.append(vi("%s_%s" % (k, c), FLOAT, None))
    nodes.append(helper.make_node("Sum", ["q_" + c, "k_" + c, "v_" + c], ["Z_" + c]))
    if fourth:
        nodes.append(helper.make_node("Relu", ["X_" + c], ["R_" + c]))
        g.outputs.append(vi("R_" + c, FLOAT, xshape))
    zshape = np.broadcast_shapes(tuple(xshape[:-1]) + (1,), tuple(wshapes[0][:-2]) + (1, 1))[:-1] + (wshapes[0][-1],)
    g.case(c, xshape, zshape, [], nodes, inits)


def gen_qkv(outdir):
    g = Graph()
    qkv_case(g, "c", (2, 3, 4), [(4, 5)] * 3)
    qkv_case(g, "rshape", (2, 3, 4), [(4, 5), (4, 5), (4, 1)])
    qkv_case(g, "rinput", (2, 3, 4), [(4, 5)] * 3)
    g.inits = [t for t in g.inits if t.name != "Wk_rinput"]
    g.inputs.append(vi("Wk_rinput", FLOAT, (4, 5)))
    qkv_case(g, "n4", (2, 3, 4), [(4, 5)] * 3, fourth=True)
    save(g.model(13, "qkv"), outdir, "qkv")
    g = Graph()
    qkv_case(g, "c", (3, 4), [(4, 6)] * 3)
    qkv_case(g, "cb", (2, 3, 4), [(2, 4, 5)] * 3)
    save(g.model(11, "qkv11"), outdir, "qkv11")


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    gen_conv10(outdir)
    gen_conv11(outdir)
    gen_conv13(outdir)
    gen_conv18(outdir)
    gen_conv19_21(outdir)
    gen_pool(outdir)
    gen_nested(outdir)
    gen_where(outdir)
    gen_mul(outdir)
    gen_div(outdir)
    gen_relu_clip(outdir)
    gen_qkv(outdir)


if __name__ == "__main__":
    main()
