#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the ONNX models the shape inference tests (tests/test_infer.c) split.

Usage:
    /usr/bin/python3 gen_infer_models.py OUTDIR

Needs python3-onnx and python3-numpy, like gen_models.py (whose helpers it
uses). No model declares value_info: every tensor a split cuts is described
by what scs4onnx infers. Every model passes onnx.checker and runs in ONNX
Runtime. The output is deterministic.

Files written to OUTDIR:

  concat70.onnx     70 Adds of X [2,3] (initializers of shapes [3], [1,3],
                    [2,3]) joined by one Concat with 70 inputs, then 12 Muls.
  sum70.onnx        60 Muls of X and 10 initializers summed by one Sum with
                    70 inputs (broadcasting [3], [1,3] and [2,3]), then 12
                    Muls.
  relu254_split.onnx  254 Relus, then a Split with two outputs: the value
                    facts grow while the Split's outputs are added.
  split80.onnx      200 Relus, then a Split into 80 outputs, added up again
                    by a chain of Adds.
  ops_matmul.onnx   MatMul (batched, vector, dot), Gemm, Transpose, Gather,
                    Flatten.
  ops_reshape.onnx  Reshape, Unsqueeze, Squeeze, Shape (start), Expand,
                    ConstantOfShape, Size, Range, Cast, NonZero (opset 15).
  ops_reduce.onnx   reductions with axes as attribute, input or none,
                    ArgMax/ArgMin, Concat, TopK, Cast, CastLike, Greater,
                    Where, Not (opset 15).
  ops_conv.onnx     Conv (auto_pad SAME_UPPER and SAME_LOWER, dilations,
                    asymmetric pads, group), MaxPool (ceil_mode, a ceil_mode
                    window starting in the end padding, dilations, with
                    SAME_UPPER, Indices),
                    AveragePool, LpPool, GlobalAveragePool, ConvTranspose
                    (output_shape, pads with output_padding and dilations,
                    SAME_UPPER with group) (opset 17). Each value the tests
                    read goes through an Identity to a graph output.
  ops_nn.onnx       BatchNormalization in training mode, LayerNormalization's
                    Mean and InvStdDev, DepthToSpace, SpaceToDepth, OneHot,
                    GatherND, Split (sizes, equal parts), Resize (scales,
                    sizes), Einsum (explicit, implicit), LSTM, RNN,
                    NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss,
                    HannWindow, Unique, EyeLike, GridSample, GatherElements,
                    DynamicQuantizeLinear, If with declared branch outputs,
                    Scan and Loop (opset 17), the same way.
  ops_windows.onnx  40 Conv, MaxPool, AveragePool, LpPool and ConvTranspose
                    nodes on X [1,3,13,11] with seeded random kernels,
                    strides, dilations, pads or auto_pad, ceil_mode and
                    output_padding, each probed the same way.
  ops_symbolic.onnx inputs with named dims (X [batch,seq,8], ...) through
                    elementwise ops and broadcasting, MatMul, Transpose,
                    Reshape with 0, Concat, Unsqueeze/Squeeze, Conv, MaxPool,
                    Gemm, Flatten, Gather, Slice, ReduceMean, Pad, TopK and an If whose
                    branches read an outer value (opset 17), probed the same
                    way: the names must reach the values.
  ops_propagate.onnx  X [batch,seq,64] reshaped by targets made of its own
                    dims (opset 17): Shape (whole, end=2, start=-1), Gather
                    by a scalar, a [1] and a [-1], Slice, Unsqueeze/Squeeze,
                    Cast to int32 and back, Concat, Div and Mul of numbers;
                    ConstantOfShape of a slice of the shape. Probed.
  ops_propagate_zero.onnx  targets whose named dims may be a 0 that copies
                    another dim (Z [seq,batch,64] by [batch,-1] and
                    [batch,seq,64]; with allowzero they stay), probed.
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_models import init, main, make_model, node, rng_values, save, vi  # noqa: E402

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=None, name="g"):
    m = make_model(helper.make_graph(nodes, name, inputs, outputs, list(inits)))
    if opset:
        m.opset_import[0].version = opset
    return m


def mul_tail(src, count, seed, width=3):
    """count Muls by [width] initializers after @src, the last making Y: cuts fall among them."""
    nodes, inits, prev = [], [], src
    for i in range(count):
        out = "Y" if i == count - 1 else "%s_m%d" % (src, i)
        inits.append(init("K%d" % i, rng_values(seed + i, (width,))))
        nodes.append(node("Mul", [prev, "K%d" % i], [out], "tail_%d" % i))
        prev = out
    return nodes, inits


def relu_chain(src, count, prefix="r"):
    nodes, prev = [], src
    for i in range(count):
        nodes.append(node("Relu", [prev], ["%s%d" % (prefix, i)], "relu_%d" % i))
        prev = "%s%d" % (prefix, i)
    return nodes, prev


# ---------------------------------------------------------------- many inputs
BCAST_SHAPES = [(3,), (1, 3), (2, 3)]


def gen_concat70(outdir):
    inits = [init("C%d" % i, rng_values(100 + i, BCAST_SHAPES[i % 3])) for i in range(70)]
    nodes = [node("Add", ["X", "C%d" % i], ["a%d" % i], "add_%d" % i) for i in range(70)]
    nodes.append(node("Concat", ["a%d" % i for i in range(70)], ["cat"], "concat70", axis=0))
    tail, tail_inits = mul_tail("cat", 12, 170)
    graph_in = [vi("X", FLOAT, [2, 3])]
    return save(model(nodes + tail, graph_in, [vi("Y", FLOAT, [140, 3])], inits + tail_inits), outdir, "concat70.onnx")


def gen_sum70(outdir):
    inits = [init("M%d" % i, rng_values(200 + i, BCAST_SHAPES[i % 3])) for i in range(60)]
    inits += [init("S%d" % i, rng_values(300 + i, BCAST_SHAPES[i % 2])) for i in range(10)]
    nodes = [node("Mul", ["X", "M%d" % i], ["b%d" % i], "mul_%d" % i) for i in range(60)]
    nodes.append(node("Sum", ["b%d" % i for i in range(60)] + ["S%d" % i for i in range(10)], ["sum"], "sum70"))
    tail, tail_inits = mul_tail("sum", 12, 370)
    graph_in = [vi("X", FLOAT, [2, 3])]
    return save(model(nodes + tail, graph_in, [vi("Y", FLOAT, [2, 3])], inits + tail_inits), outdir, "sum70.onnx")


# ---------------------------------------------------------------- many outputs
def gen_relu254_split(outdir):
    # X and Y, then 254 Relu outputs: 256 facts, so the Split's first output grows them
    nodes, last = relu_chain("X", 254)
    nodes.append(node("Split", [last], ["s0", "s1"], "split2", axis=1))
    nodes.append(node("Mul", ["s0", "s1"], ["Y"], "mul"))
    graph = ([vi("X", FLOAT, [2, 4])], [vi("Y", FLOAT, [2, 2])])
    return save(model(nodes, *graph), outdir, "relu254_split.onnx")


def gen_split80(outdir):
    # 202 facts before the Split: they grow past 256 at its 55th output
    nodes, last = relu_chain("X", 200)
    nodes.append(node("Split", [last], ["s%d" % i for i in range(80)], "split80", axis=1))
    acc = "s0"
    for i in range(1, 80):
        out = "Y" if i == 79 else "acc%d" % i
        nodes.append(node("Add", [acc, "s%d" % i], [out], "add_%d" % i))
        acc = out
    graph = ([vi("X", FLOAT, [2, 80])], [vi("Y", FLOAT, [2, 1])])
    return save(model(nodes, *graph), outdir, "split80.onnx")


# ---------------------------------------------------------------- operator families
def ints(name, values):
    return init(name, np.array(values, dtype=np.int64))


def out(name, rank, elem_type=FLOAT):
    """A graph output of known rank and unknown dims: inference describes the rest."""
    return vi(name, elem_type, [None] * rank)


def gen_ops_matmul(outdir):
    inits = [init("W1", rng_values(400, (4, 5))), ints("I", [[0, 1], [1, 0]]), init("W2", rng_values(401, (3,))),
             init("W3", rng_values(402, (2,))), init("W4", rng_values(403, (3, 2))), init("W5", rng_values(404, (5, 4))),
             init("B5", rng_values(405, (4,))), init("W6", rng_values(406, (2, 1, 4, 2))), ints("I0", 0)]
    nodes = [
        node("MatMul", ["X", "W1"], ["t1"], "matmul_batch"),            # [2,3,5]
        node("Transpose", ["t1"], ["t2"], "transpose_perm", perm=[1, 0, 2]),   # [3,2,5]
        node("Transpose", ["t2"], ["t3"], "transpose_reverse"),         # [5,2,3]
        node("Gather", ["t3", "I"], ["t4"], "gather_axis1", axis=1),    # [5,2,2,3]
        node("MatMul", ["t4", "W2"], ["t5"], "matmul_vector_right"),    # [5,2,2]
        node("MatMul", ["W3", "t5"], ["t6"], "matmul_vector_left"),     # [5,2]
        node("Gemm", ["t6", "W4"], ["t7"], "gemm_trans_b", transB=1),   # [5,3]
        node("Gemm", ["t7", "W5", "B5"], ["t8"], "gemm_trans_a", transA=1),    # [3,4]
        node("MatMul", ["t8", "W6"], ["t9"], "matmul_broadcast"),       # [2,1,3,2]
        node("Flatten", ["t9"], ["t10"], "flatten"),                    # [2,6]
        node("Gather", ["t10", "I0"], ["t11"], "gather_scalar"),        # [6]
        node("MatMul", ["t11", "t11"], ["t12"], "matmul_dot"),          # []
        node("Add", ["t9", "t12"], ["Y"], "add_scalar"),                # [2,1,3,2]
    ]
    return save(model(nodes, [vi("X", FLOAT, [2, 3, 4])], [out("Y", 4)], inits), outdir, "ops_matmul.onnx")


def gen_ops_reshape(outdir):
    inits = [ints("shape_0m1", [0, -1]), ints("axes_0m1", [0, -1]), ints("axes_0", [0]), ints("shape_m132", [-1, 3, 2]),
             ints("shape_32", [3, 2]), ints("shape_2111", [2, 1, 1, 1]), ints("zero", 0), ints("one", 1)]
    nodes = [
        node("Reshape", ["X", "shape_0m1"], ["a"], "reshape_keep_infer"),     # [2,12]
        node("Unsqueeze", ["a", "axes_0m1"], ["b"], "unsqueeze"),             # [1,2,12,1]
        node("Squeeze", ["b", "axes_0"], ["c"], "squeeze_axes"),              # [2,12,1]
        node("Squeeze", ["c"], ["d"], "squeeze_ones"),                        # [2,12]
        node("Reshape", ["d", "shape_m132"], ["e"], "reshape_infer_first"),   # [4,3,2]
        node("Shape", ["e"], ["f"], "shape_from_1", start=1),                 # [2]
        node("ConstantOfShape", ["shape_32"], ["g"], "constant_of_shape",
             value=helper.make_tensor("v", FLOAT, [1], [1.5])),               # [3,2]
        node("Expand", ["e", "shape_2111"], ["h"], "expand"),                 # [2,4,3,2]
        node("Add", ["h", "g"], ["i"], "add"),                                # [2,4,3,2]
        node("Flatten", ["i"], ["j"], "flatten_axis2", axis=2),               # [8,6]
        node("Size", ["j"], ["k"], "size"),                                   # []
        node("Range", ["zero", "k", "one"], ["l"], "range"),                  # [48]
        node("Cast", ["l"], ["m"], "cast_float", to=FLOAT),                   # [48]
        node("NonZero", ["f"], ["o"], "nonzero"),                             # [1,?]
    ]
    outputs = [out("i", 4), out("f", 1, INT64), out("m", 1), out("o", 2, INT64)]
    return save(model(nodes, [vi("X", FLOAT, [2, 3, 4])], outputs, inits, opset=15), outdir, "ops_reshape.onnx")


def gen_ops_reduce(outdir):
    inits = [ints("axes_1", [1]), ints("K", [3]), init("zero_d", np.array(0.0, dtype=np.float64))]
    nodes = [
        node("ReduceSum", ["X", "axes_1"], ["a"], "reducesum_axes_input", keepdims=0),   # [2,4]
        node("ReduceMean", ["a"], ["b"], "reducemean_axes_attr", axes=[-1]),            # [2,1]
        node("ReduceMax", ["X"], ["c"], "reducemax_all"),                               # [1,1,1]
        node("ArgMax", ["X"], ["d"], "argmax", axis=2, keepdims=0),                     # [2,3] int64
        node("ArgMin", ["X"], ["e"], "argmin", axis=-1),                                # [2,3,1] int64
        node("ReduceSum", ["X"], ["f"], "reducesum_noop", noop_with_empty_axes=1),      # [2,3,4]
        node("Concat", ["X", "f"], ["g"], "concat_last", axis=-1),                      # [2,3,8]
        node("Add", ["g", "c"], ["h"], "add_broadcast"),                                # [2,3,8]
        node("TopK", ["h", "K"], ["i", "i_idx"], "topk"),                               # [2,3,3], int64
        node("Cast", ["d"], ["j"], "cast_double", to=TensorProto.DOUBLE),               # [2,3]
        node("CastLike", ["i", "j"], ["k"], "castlike"),                                # [2,3,3] double
        node("Greater", ["k", "zero_d"], ["l"], "greater"),                             # bool
        node("Where", ["l", "k", "zero_d"], ["m"], "where"),                            # [2,3,3] double
        node("Not", ["l"], ["n"], "not"),                                               # bool
    ]
    outputs = [out("b", 2), out("e", 3, INT64), out("i_idx", 3, INT64), out("m", 3, TensorProto.DOUBLE),
               out("n", 3, TensorProto.BOOL)]
    return save(model(nodes, [vi("X", FLOAT, [2, 3, 4])], outputs, inits, opset=15), outdir, "ops_reduce.onnx")


def probed(nodes, probes, inputs, inits, filename, outdir):
    """The model of @nodes whose values @probes ((name, rank, elem_type)) each reach a graph output through
    an Identity (so that --write-shapes writes them)."""
    outputs = []
    for name, rank, elem in probes:
        nodes.append(node("Identity", [name], ["out_" + name], "probe_" + name))
        outputs.append(out("out_" + name, rank, elem))
    return save(model(nodes, inputs, outputs, inits, opset=17), outdir, filename)


def gen_ops_conv(outdir):
    inits = [init("W433", rng_values(500, (4, 3, 3, 3))), init("W422", rng_values(501, (4, 3, 2, 2))),
             init("W233", rng_values(502, (2, 3, 3, 3))), init("W613", rng_values(503, (6, 1, 3, 3))),
             init("T323", rng_values(504, (3, 2, 3, 3))), init("T313", rng_values(505, (3, 1, 3, 3)))]
    nodes = [
        node("Conv", ["X", "W433"], ["conv_same_upper"], "conv_su", strides=[2, 2], auto_pad="SAME_UPPER"),  # [1,4,5,5]
        node("Conv", ["X", "W422"], ["conv_same_lower"], "conv_sl", strides=[3, 3], auto_pad="SAME_LOWER"),  # [1,4,4,3]
        node("Conv", ["X", "W233"], ["conv_dilated"], "conv_dil", dilations=[2, 1], pads=[1, 0, 1, 2],
             strides=[1, 2]),                                                                     # [1,2,8,5]
        node("Conv", ["X", "W613"], ["conv_group"], "conv_grp", group=3),                        # [1,6,8,7]
        node("MaxPool", ["X"], ["pool_ceil", "pool_ceil_idx"], "maxpool_ceil", kernel_shape=[3, 3],
             strides=[2, 2], ceil_mode=1),                                                        # [1,3,5,4]
        node("MaxPool", ["X"], ["pool_ceil_pad"], "maxpool_ceil_pad", kernel_shape=[2, 2], strides=[2, 2],
             pads=[1, 1, 1, 1], ceil_mode=1),                                                     # [1,3,6,?]
        node("MaxPool", ["X"], ["pool_dilated"], "maxpool_dil", kernel_shape=[2, 2], dilations=[2, 3]),  # [1,3,8,6]
        node("MaxPool", ["X"], ["pool_same_dilated"], "maxpool_same_dil", kernel_shape=[3, 1], dilations=[2, 1],
             auto_pad="SAME_UPPER"),                                                              # [1,3,?,9]
        node("AveragePool", ["X"], ["avg_same_lower"], "avgpool_sl", kernel_shape=[3, 3], strides=[2, 2],
             auto_pad="SAME_LOWER"),                                                              # [1,3,5,5]
        node("LpPool", ["X"], ["lp"], "lppool", kernel_shape=[2, 2], pads=[0, 0, 1, 1]),          # [1,3,10,9]
        node("GlobalAveragePool", ["X"], ["gap"], "gap"),                                         # [1,3,1,1]
        node("ConvTranspose", ["X", "T323"], ["convt_output_shape"], "convt_os", strides=[2, 2],
             output_shape=[20, 18]),                                                              # [1,2,20,18]
        node("ConvTranspose", ["X", "T323"], ["convt_pads"], "convt_pads", strides=[3, 2], pads=[1, 2, 1, 0],
             output_padding=[1, 1], dilations=[1, 2]),                                            # [1,2,29,20]
        node("ConvTranspose", ["X", "T313"], ["convt_same"], "convt_same", strides=[2, 2], group=3,
             auto_pad="SAME_UPPER"),                                                              # [1,3,20,18]
    ]
    probes = [(v, 4, FLOAT) for v in ("conv_same_upper", "conv_same_lower", "conv_dilated", "conv_group", "pool_ceil",
                                      "pool_ceil_pad", "pool_dilated", "pool_same_dilated", "avg_same_lower", "lp",
                                      "gap", "convt_output_shape", "convt_pads", "convt_same")]
    probes.append(("pool_ceil_idx", 4, INT64))
    return probed(nodes, probes, [vi("X", FLOAT, [1, 3, 10, 9])], inits, "ops_conv.onnx", outdir)


def gen_ops_windows(outdir):
    """40 convolution and pooling windows of random (seeded) attributes over X [1,3,13,11]."""
    rng = np.random.RandomState(700)
    nodes, inits, probes = [], [], []
    for i in range(40):
        op = ["Conv", "MaxPool", "AveragePool", "LpPool", "ConvTranspose"][rng.randint(5)]
        k = [int(rng.randint(1, 5)), int(rng.randint(1, 5))]
        s = [int(rng.randint(1, 4)), int(rng.randint(1, 4))]
        d = [int(rng.randint(1, 3)), int(rng.randint(1, 3))]
        attrs = {"kernel_shape": k, "strides": s}
        pad = ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"][rng.randint(4)]
        if op == "MaxPool" or (op in ("Conv", "ConvTranspose") and not pad.startswith("SAME")):
            attrs["dilations"] = d     # ONNX Runtime's Conv takes no dilations with SAME
        if pad == "NOTSET":
            attrs["pads"] = [int(rng.randint(0, k[a % 2])) for a in range(4)]
        else:
            attrs["auto_pad"] = pad
        if op in ("MaxPool", "AveragePool"):
            attrs["ceil_mode"] = int(rng.randint(2))
        inputs = ["X"]
        if op == "Conv":
            inits.append(init("W%d" % i, rng_values(800 + i, (2, 3, k[0], k[1]))))
            inputs.append("W%d" % i)
        elif op == "ConvTranspose":
            inits.append(init("W%d" % i, rng_values(800 + i, (3, 2, k[0], k[1]))))
            inputs.append("W%d" % i)
            attrs["output_padding"] = [int(rng.randint(s[a])) for a in range(2)]
        nodes.append(node(op, inputs, ["w%d" % i], "window_%d" % i, **attrs))
        probes.append(("w%d" % i, 4, FLOAT))
    return probed(nodes, probes, [vi("X", FLOAT, [1, 3, 13, 11])], inits, "ops_windows.onnx", outdir)


def branch(name, value):
    """A branch of an If: a [2,3] constant, declared so."""
    return helper.make_graph([node("Constant", [], [name + "_c"], name + "_c", value=helper.make_tensor(
        name + "_v", FLOAT, [2, 3], [value] * 6))], name, [], [vi(name + "_c", FLOAT, [2, 3])])


def gen_ops_nn(outdir):
    inits = [init("scale3", rng_values(600, (3,))), init("bias3", rng_values(601, (3,))),
             init("mean3", np.zeros(3, np.float32)), init("var3", np.ones(3, np.float32)),
             init("scale9", rng_values(602, (10, 9))), ints("onehot_idx", [[0, 1, 4], [3, 2, 1]]), ints("depth", 5),
             init("onehot_values", np.array([0.0, 1.0], np.float32)), init("nd_data", rng_values(603, (2, 3, 4))),
             ints("nd_idx", [[[0, 1]], [[2, 3]]]), ints("split_37", [3, 7]),
             init("scales", np.array([1.0, 1.0, 2.0, 0.5], np.float32)), ints("sizes", [1, 3, 5, 5]),
             init("mm_a", rng_values(604, (2, 3, 4))), init("mm_b", rng_values(605, (2, 4, 5))),
             init("lstm_w", rng_values(606, (2, 24, 4))), init("lstm_r", rng_values(607, (2, 24, 6))),
             init("rnn_x", rng_values(608, (2, 5, 4))), init("rnn_w", rng_values(609, (1, 7, 4))),
             init("rnn_r", rng_values(610, (1, 7, 7))), init("seq_x", rng_values(611, (5, 2, 4))),
             init("loss_x", rng_values(612, (2, 5, 3))), ints("loss_t", [[0, 4, 2], [1, 3, 3]]), ints("win", 8),
             init("uniq_x", np.array([[1, 2, 3], [1, 2, 3], [4, 5, 6], [1, 2, 3]], np.float32)),
             init("eye_x", np.zeros((4, 5), np.float32)), init("grid", rng_values(613, (1, 6, 7, 2))),
             ints("ge_idx", [[0, 1], [2, 0], [1, 1], [4, 3]]), init("cond", np.array(True)),
             init("state2", np.zeros(2, np.float32)), init("seq32", rng_values(614, (3, 2))), ints("trips", 4)]
    nodes = [
        node("BatchNormalization", ["X", "scale3", "bias3", "mean3", "var3"], ["bn", "bn_mean", "bn_var"], "bn",
             training_mode=1),                                                         # [1,3,10,9], [3], [3]
        node("LayerNormalization", ["X", "scale9"], ["ln", "ln_mean", "ln_inv"], "ln", axis=2),   # [1,3,1,1]
        node("Concat", ["X", "X", "X", "X"], ["x12"], "concat", axis=1),               # [1,12,10,9]
        node("DepthToSpace", ["x12"], ["d2s"], "d2s", blocksize=2, mode="CRD"),        # [1,3,20,18]
        node("SpaceToDepth", ["d2s"], ["s2d"], "s2d", blocksize=2),                    # [1,12,10,9]
        node("OneHot", ["onehot_idx", "depth", "onehot_values"], ["onehot"], "onehot", axis=1),   # [2,5,3]
        node("GatherND", ["nd_data", "nd_idx"], ["gathernd"], "gathernd", batch_dims=1),   # [2,1]
        node("Split", ["X", "split_37"], ["split_a", "split_b"], "split_sizes", axis=2),   # [1,3,3,9], [1,3,7,9]
        node("Split", ["X"], ["split_c", "split_d", "split_e"], "split_equal", axis=1),    # [1,1,10,9] each
        node("Resize", ["X", "", "scales"], ["resize_scales"], "resize_scales"),       # [1,3,20,4]
        node("Resize", ["X", "", "", "sizes"], ["resize_sizes"], "resize_sizes"),      # [1,3,5,5]
        node("Einsum", ["mm_a", "mm_b"], ["einsum"], "einsum", equation="bij,bjk->bik"),   # [2,3,5]
        node("Einsum", ["mm_a"], ["einsum_implicit"], "einsum_implicit", equation="bji"),  # b, i, j: [2,4,3]
        node("LSTM", ["seq_x", "lstm_w", "lstm_r"], ["lstm_y", "lstm_h", "lstm_c"], "lstm", hidden_size=6,
             direction="bidirectional"),                                               # [5,2,2,6], [2,2,6]
        node("RNN", ["rnn_x", "rnn_w", "rnn_r"], ["rnn_y", "rnn_h"], "rnn", hidden_size=7),  # [2,1,5,7], [1,5,7]
        node("NegativeLogLikelihoodLoss", ["loss_x", "loss_t"], ["nll"], "nll", reduction="none"),    # [2,3]
        node("SoftmaxCrossEntropyLoss", ["loss_x", "loss_t"], ["sce", "sce_log_prob"], "sce"),     # [], [2,5,3]
        node("HannWindow", ["win"], ["hann"], "hann"),                                 # [8]
        node("Unique", ["uniq_x"], ["uniq_y", "uniq_idx", "uniq_inv", "uniq_count"], "unique", axis=0),
        node("EyeLike", ["eye_x"], ["eye"], "eyelike", dtype=INT64),                   # [4,5] int64
        node("GridSample", ["X", "grid"], ["grid_sample"], "gridsample"),              # [1,3,6,7]
        node("GatherElements", ["eye_x", "ge_idx"], ["gather_elements"], "gather_elements", axis=1),  # [4,2]
        node("DynamicQuantizeLinear", ["X"], ["dq_y", "dq_scale", "dq_zero"], "dql"),  # [1,3,10,9] uint8, [], []
        node("If", ["cond"], ["if_out"], "if", then_branch=branch("then", 1.0), else_branch=branch("else", 2.0)),
        node("Scan", ["state2", "seq32"], ["scan_state", "scan_out"], "scan", num_scan_inputs=1, body=helper.make_graph(
            [node("Add", ["s", "x"], ["s_next"], "add"), node("Identity", ["s_next"], ["y"], "copy")], "scan_body",
            [vi("s", FLOAT, [2]), vi("x", FLOAT, [2])], [vi("s_next", FLOAT, [2]), vi("y", FLOAT, [2])])),
        node("Loop", ["trips", "", "state2"], ["loop_state", "loop_out"], "loop", body=helper.make_graph(
            [node("Identity", ["c"], ["c_out"], "cond"), node("Add", ["v", "v"], ["v_next"], "double"),
             node("Identity", ["v_next"], ["v_scan"], "copy")], "loop_body",
            [vi("i", INT64, []), vi("c", TensorProto.BOOL, []), vi("v", FLOAT, [2])],
            [vi("c_out", TensorProto.BOOL, []), vi("v_next", FLOAT, [2]), vi("v_scan", FLOAT, [2])])),
    ]
    u8 = TensorProto.UINT8
    probes = [("bn_mean", 1, FLOAT), ("bn_var", 1, FLOAT), ("ln_mean", 4, FLOAT), ("ln_inv", 4, FLOAT),
              ("d2s", 4, FLOAT), ("s2d", 4, FLOAT), ("onehot", 3, FLOAT), ("gathernd", 2, FLOAT),
              ("split_a", 4, FLOAT), ("split_b", 4, FLOAT), ("split_e", 4, FLOAT), ("resize_scales", 4, FLOAT),
              ("resize_sizes", 4, FLOAT), ("einsum", 3, FLOAT), ("einsum_implicit", 3, FLOAT), ("lstm_y", 4, FLOAT),
              ("lstm_c", 3, FLOAT), ("rnn_y", 4, FLOAT), ("rnn_h", 3, FLOAT), ("nll", 2, FLOAT), ("sce", 0, FLOAT),
              ("sce_log_prob", 3, FLOAT), ("hann", 1, FLOAT), ("uniq_y", 2, FLOAT), ("uniq_inv", 1, INT64),
              ("eye", 2, INT64), ("grid_sample", 4, FLOAT), ("gather_elements", 2, FLOAT), ("dq_y", 4, u8),
              ("dq_scale", 0, FLOAT), ("dq_zero", 0, u8), ("if_out", 2, FLOAT),
              ("scan_state", 1, FLOAT), ("scan_out", 2, FLOAT), ("loop_state", 1, FLOAT), ("loop_out", 2, FLOAT)]
    return probed(nodes, probes, [vi("X", FLOAT, [1, 3, 10, 9])], inits, "ops_nn.onnx", outdir)


def sym_branch(name, op):
    """A branch of an If: @op of the outer value a, declared [batch, seq, 8]."""
    return helper.make_graph([node(op, ["a"], [name + "_y"], name + "_op")], name, [],
                             [vi(name + "_y", FLOAT, ["batch", "seq", 8])])


def gen_ops_symbolic(outdir):
    inits = [init("bias8", rng_values(700, (8,))), init("W8x16", rng_values(701, (8, 16))),
             ints("shape_0044", [0, 0, 4, 4]), ints("shape_0m1", [0, -1]), ints("axis1", [1]),
             init("Wc", rng_values(702, (4, 3, 3, 3))), init("Wg", rng_values(703, (8, 5))), ints("idx", 1),
             ints("starts", [0]), ints("ends", [4]), ints("axis2", [2]), init("cond", np.array(True)),
             ints("pads", [0, 0, 1, 0, 0, 2]), ints("k2", [2]), ints("zero", [0]), ints("all", [2**63 - 1])]
    nodes = [
        node("Relu", ["X"], ["a"], "relu"),                                               # [batch,seq,8]
        node("Add", ["a", "bias8"], ["b"], "add_bias"),                                    # [batch,seq,8]
        node("Mul", ["b", "S"], ["c"], "mul_s"),                       # S [batch,1,8]: [batch,seq,8]
        node("Add", ["c", "T"], ["d"], "add_t"),                       # T [1,seq,8]: [batch,seq,8]
        node("Add", ["a", "U"], ["e"], "add_u"),                       # U [2,1,1]: [2,seq,8]
        node("MatMul", ["d", "W8x16"], ["mm"], "matmul"),                                  # [batch,seq,16]
        node("Transpose", ["d"], ["dt"], "transpose_d", perm=[0, 2, 1]),                   # [batch,8,seq]
        node("MatMul", ["d", "dt"], ["scores"], "matmul_scores"),                          # [batch,seq,seq]
        node("Transpose", ["mm"], ["mmt"], "transpose", perm=[1, 0, 2]),                  # [seq,batch,16]
        node("Reshape", ["mm", "shape_0044"], ["heads"], "reshape_heads"),                # [batch,seq,4,4]
        node("Reshape", ["mm", "shape_0m1"], ["flat"], "reshape_flat"),                   # [batch,?]
        node("Concat", ["a", "b"], ["cat_last"], "concat_last", axis=2),                  # [batch,seq,16]
        node("Concat", ["a", "b"], ["cat_seq"], "concat_seq", axis=1),                    # [batch,?,8]
        node("Unsqueeze", ["a", "axis1"], ["unsq"], "unsqueeze"),                         # [batch,1,seq,8]
        node("Squeeze", ["unsq", "axis1"], ["sq"], "squeeze"),                            # [batch,seq,8]
        node("Conv", ["I", "Wc"], ["conv"], "conv"),                                      # [batch,4,14,14]
        node("MaxPool", ["conv"], ["pool"], "pool", kernel_shape=[2, 2], strides=[2, 2]),  # [batch,4,7,7]
        node("Gemm", ["G", "Wg"], ["gemm"], "gemm"),                                      # [batch,5]
        node("Flatten", ["a"], ["flatten"], "flatten", axis=1),                          # [batch,?]
        node("Gather", ["a", "idx"], ["gather"], "gather", axis=2),                       # [batch,seq]
        node("Slice", ["a", "starts", "ends", "axis2"], ["slice"], "slice"),              # [batch,seq,4]
        node("Slice", ["a", "zero", "all", "axis1"], ["slice_all"], "slice_all"),         # [batch,seq,8]
        node("ReduceMean", ["a"], ["mean"], "reduce_mean", axes=[2], keepdims=0),         # [batch,seq]
        node("Pad", ["a", "pads"], ["pad"], "pad"),                                       # [batch,seq,11]
        node("TopK", ["a", "k2"], ["top", "top_idx"], "topk"),                            # [batch,seq,2] twice
        node("If", ["cond"], ["if_out"], "if", then_branch=sym_branch("then", "Relu"),
             else_branch=sym_branch("else", "Neg")),                                       # [batch,seq,8]
    ]
    probes = [(v, r, FLOAT) for v, r in (("b", 3), ("c", 3), ("d", 3), ("e", 3), ("mm", 3), ("scores", 3),
                                        ("mmt", 3), ("heads", 4), ("flat", 2), ("cat_last", 3), ("cat_seq", 3),
                                        ("sq", 3), ("pool", 4), ("gemm", 2), ("flatten", 2), ("gather", 2),
                                        ("slice", 3), ("slice_all", 3), ("mean", 2), ("pad", 3), ("top", 3), ("if_out", 3))]
    probes.append(("top_idx", 3, INT64))
    inputs = [vi("X", FLOAT, ["batch", "seq", 8]), vi("S", FLOAT, ["batch", 1, 8]), vi("T", FLOAT, [1, "seq", 8]),
              vi("U", FLOAT, [2, 1, 1]), vi("I", FLOAT, ["batch", 3, 16, 16]), vi("G", FLOAT, ["batch", 8])]
    return probed(nodes, probes, inputs, inits, "ops_symbolic.onnx", outdir)


def gen_ops_propagate(outdir):
    inits = [ints("i0", 0), ints("i1", [1]), ints("im1", [-1]), ints("ax0", [0]), ints("four", [4]), ints("two", [2]),
             ints("h4", [4]), ints("m1", [-1]), ints("c64", [64]), ints("s0", [0]), ints("s2", [2]), ints("s3", [3])]
    nodes = [
        node("Shape", ["X"], ["sx"], "shape"),
        node("Gather", ["sx", "i0"], ["b0"], "gather_scalar"),                            # batch, a scalar
        node("Unsqueeze", ["b0", "ax0"], ["ub"], "unsqueeze_b"),                           # [batch]
        node("Gather", ["sx", "i1"], ["s1"], "gather_1"),                                  # [seq]
        node("Gather", ["sx", "im1"], ["last"], "gather_last"),                            # [64]
        node("Div", ["last", "four"], ["hd"], "div_head"),                                 # [16]
        node("Concat", ["ub", "s1", "h4", "hd"], ["split"], "concat_split", axis=0),
        node("Reshape", ["X", "split"], ["p_split"], "reshape_split"),                     # [batch,seq,4,16]
        node("Shape", ["X"], ["bs"], "shape_end", end=2),                                  # [batch,seq]
        node("Shape", ["X"], ["hid"], "shape_start", start=-1),                            # [64]
        node("Concat", ["bs", "hid"], ["merge"], "concat_merge", axis=0),
        node("Reshape", ["p_split", "merge"], ["p_merge"], "reshape_merge"),               # [batch,seq,64]
        node("Slice", ["sx", "s0", "s2"], ["sl"], "slice_shape"),                          # [batch,seq]
        node("Cast", ["sl"], ["sl32"], "cast32", to=TensorProto.INT32),
        node("Cast", ["sl32"], ["sl64"], "cast64", to=INT64),
        node("Concat", ["sl64", "h4", "m1"], ["cast_t"], "concat_cast", axis=0),
        node("Reshape", ["X", "cast_t"], ["p_cast"], "reshape_cast"),                      # [batch,seq,4,16]
        node("Mul", ["hd", "two"], ["hd2"], "mul_head"),                                   # [32]
        node("Concat", ["ub", "m1", "hd2"], ["half_t"], "concat_half", axis=0),
        node("Reshape", ["X", "half_t"], ["p_half"], "reshape_half"),                      # [batch,?,32]
        node("Squeeze", ["s1", "ax0"], ["s1s"], "squeeze_seq"),                            # seq, a scalar
        node("Unsqueeze", ["s1s", "ax0"], ["s1u"], "unsqueeze_seq"),
        node("Concat", ["ub", "s1u", "c64"], ["sq_t"], "concat_sq", axis=0),
        node("Reshape", ["p_split", "sq_t"], ["p_sq"], "reshape_sq"),                      # [batch,seq,64]
        node("Slice", ["sx", "s2", "s3"], ["sl2"], "slice_last"),                          # [64]
        node("ConstantOfShape", ["sl2"], ["p_cos"], "constant_of_shape"),                  # [64]
    ]
    probes = [("p_split", 4, FLOAT), ("p_merge", 3, FLOAT), ("p_cast", 4, FLOAT), ("p_half", 3, FLOAT),
              ("p_sq", 3, FLOAT), ("p_cos", 1, FLOAT)]
    return probed(nodes, probes, [vi("X", FLOAT, ["batch", "seq", 64])], inits, "ops_propagate.onnx", outdir)


def gen_ops_propagate_zero(outdir):
    inits = [ints("i0", [0]), ints("i1", [1]), ints("m1", [-1]), ints("c64", [64])]
    nodes = [
        node("Shape", ["X"], ["sx"], "shape"),
        node("Gather", ["sx", "i0"], ["b"], "gather_b"),
        node("Gather", ["sx", "i1"], ["s"], "gather_s"),
        node("Concat", ["b", "m1"], ["t1"], "concat_1", axis=0),
        node("Reshape", ["Z", "t1"], ["z_flat"], "reshape_flat"),                # [?,?]: batch may be 0 (Z's seq copied)
        node("Concat", ["b", "s", "c64"], ["t2"], "concat_2", axis=0),
        node("Reshape", ["Z", "t2"], ["z_bs"], "reshape_bs"),                    # [?,?,64]
        node("Reshape", ["Z", "t2"], ["z_az"], "reshape_allowzero", allowzero=1),  # [batch,seq,64]
        node("Reshape", ["X", "t2"], ["x_bs"], "reshape_own"),                   # [batch,seq,64]: its own dims
    ]
    probes = [("z_flat", 2, FLOAT), ("z_bs", 3, FLOAT), ("z_az", 3, FLOAT), ("x_bs", 3, FLOAT)]
    inputs = [vi("X", FLOAT, ["batch", "seq", 64]), vi("Z", FLOAT, ["seq", "batch", 64])]
    return probed(nodes, probes, inputs, inits, "ops_propagate_zero.onnx", outdir)


GENERATORS = [gen_concat70, gen_sum70, gen_relu254_split, gen_split80, gen_ops_matmul, gen_ops_reshape,
              gen_ops_reduce, gen_ops_conv, gen_ops_nn, gen_ops_windows, gen_ops_symbolic,
              gen_ops_propagate, gen_ops_propagate_zero]


if __name__ == "__main__":
    sys.exit(main(sys.argv, GENERATORS, "gen_infer_models"))
