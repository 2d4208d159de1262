#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Build the models of the downcast_ops suite.

Usage: /usr/bin/python3 gen_downcast_ops.py OPSCHEMA_DUMP OUTDIR OPSET...

"Every operator, every narrowable input": OPSCHEMA_DUMP (the opschema-dump
tool) prints the schema table and the downcast rule's verdict for every
default-domain operator in force at each OPSET. For each input the rule lets
narrow (int64 -> int32 or float64 -> float32, where the wide type is allowed
too) this writes a one-node model in which that input, and every input bound
to the same type variable, is a constant of the wide type, with values that
survive narrowing; the other inputs are graph inputs (or constants) with
values valid for the operator. Operators without a recipe below are listed,
not built.

Also writes the regression models of defects the suite pins down (regress_*).

Each case is built again (once per operator version) with the graph inputs
of one other type variable retyped to each type the schema allows there
("variant"): where a runtime registers kernels per combination of types
(OneHot), whether a narrowing loads depends on those types too. A variant
may be narrowed or refused; either way its output must load wherever its
input does.

OUTDIR/manifest.tsv: one line a case, "built<TAB>FILE<TAB>OPSET<TAB>CASE",
"variant<TAB>FILE<TAB>OPSET<TAB>CASE" or "skipped<TAB>-<TAB>OPSET<TAB>CASE: why".
"""

import json
import os
import subprocess
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, shape_inference

INT64, DOUBLE = TensorProto.INT64, TensorProto.DOUBLE
FLOAT, INT32 = TensorProto.FLOAT, TensorProto.INT32
NP = {INT64: np.int64, DOUBLE: np.float64}


def vi(name, dt, shape):
    return helper.make_tensor_value_info(name, dt, shape)


def const(name, values, dt, shape=None):
    arr = np.array(values, dtype=NP[dt])
    if shape is not None:
        arr = arr.reshape(shape)
    return numpy_helper.from_array(arr, name)


class Case:
    """One node: its inputs (names; "" for an omitted optional one), graph inputs, initializers."""

    def __init__(self, k=0):
        self.inputs, self.graph_inputs, self.inits, self.attrs = [], [], [], {}
        self.k = k                          # the input being narrowed

    def data(self, name, shape, dt=FLOAT):
        self.inputs.append(name)
        self.graph_inputs.append(vi(name, dt, shape))

    def const(self, name, values, dt, shape=None):
        self.inputs.append(name)
        self.inits.append(const(name, values, dt, shape))

    def omit(self):
        self.inputs.append("")


# Recipes: (case, wide dtype of the narrowed variable, opset) -> None, or a reason to skip.
# Every input sharing the narrowed input's type variable is a constant of @w.

def r_reduce_index(c, w, opset):            # ArgMax, ArgMin
    c.const("data", [[0.5, -1.25, 3.0], [2.0, 2.0, -4.0]] if w == DOUBLE else [[5, -7, 3], [2, 2, -4]], w)
    c.attrs["axis"] = 1


def r_compare(c, w, opset):                 # Equal, Less, ...
    c.const("a", [0.5, -1.25, 3.0, 2.0] if w == DOUBLE else [5, -7, 3, 2], w)
    c.const("b", [0.5, 1.25, 2.0, 2.0] if w == DOUBLE else [5, 7, 2, 2], w)


def r_float_test(c, w, opset):              # IsNaN, IsInf
    c.const("x", [1.0, float("inf"), float("nan"), -2.5, float("-inf")], w)


def r_nonzero(c, w, opset):
    c.const("x", [[1.0, 0.0], [0.0, 3.0]] if w == DOUBLE else [[1, 0], [0, 3]], w)


def r_shape(c, w, opset):                   # Shape, Size
    c.const("data", [[1, 2, 3], [4, 5, 6]], w)


def r_castlike(c, w, opset):
    c.const("input", [1, -2, 3], w)
    c.data("target", [1])


def r_center_crop_pad(c, w, opset):
    c.data("input", [4, 5])
    c.const("shape", [3, 7], w)


def r_cum(c, w, opset):                     # CumSum, CumProd
    c.data("x", [2, 3])
    c.const("axis", 1, w, [])


def r_dft(c, w, opset):
    c.data("input", [1, 8, 1])
    c.const("dft_length", 8, w, [])


def r_gather(c, w, opset):
    c.data("data", [3, 4])
    c.const("indices", [0, 2, -1], w)


def r_gather_elements(c, w, opset):
    c.data("data", [3, 4])
    c.const("indices", [[0, 1, 2, -1]], w)


def r_nll(c, w, opset):                     # NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
    c.data("input", [2, 3])
    c.const("target", [0, 2], w)


def r_onehot(c, w, opset):
    # narrowing depth: indices computed (int64, as PyTorch's one_hot exports them); depth a scalar
    if c.k == 1:
        c.data("indices", [3], INT64)
    else:
        c.const("indices", [0, 2, 1], w)
    c.const("depth", 3, w, [])
    c.data("values", [2])


def r_pad(c, w, opset):
    c.data("data", [2, 3])
    c.inputs.append("pads")
    c.inits.append(const("pads", [1, 2], INT64))
    c.omit()
    c.const("axes", [1], w)


def r_pow(c, w, opset):
    c.data("x", [3])
    c.const("y", [2, 1, 3], w)


def r_stft(c, w, opset):
    c.data("signal", [1, 16, 1])
    c.const("frame_step", 4, w, [])
    c.omit()
    c.const("frame_length", 8, w, [])


def r_scatter_elements(c, w, opset):
    c.data("data", [3, 3])
    c.const("indices", [[1, 0, 2]], w)
    c.data("updates", [1, 3])


def r_slice(c, w, opset):
    c.data("data", [4, 5])
    c.const("starts", [1, 0], w)
    c.const("ends", [3, 5], w)
    c.const("axes", [0, -1], w)
    c.const("steps", [1, 2], w)


def r_tfidf(c, w, opset):
    c.const("x", [[1, 2, 3, 1]], w)
    c.attrs.update(mode="TF", min_gram_length=1, max_gram_length=1, max_skip_count=0,
                   ngram_counts=[0], ngram_indexes=[0, 1, 2], pool_int64s=[1, 2, 3])


RECIPES = {
    "ArgMax": r_reduce_index, "ArgMin": r_reduce_index,
    "Equal": r_compare, "Greater": r_compare, "GreaterOrEqual": r_compare,
    "Less": r_compare, "LessOrEqual": r_compare,
    "IsNaN": r_float_test, "IsInf": r_float_test, "NonZero": r_nonzero,
    "Shape": r_shape, "Size": r_shape, "CastLike": r_castlike,
    "CenterCropPad": r_center_crop_pad, "CumSum": r_cum, "CumProd": r_cum, "DFT": r_dft,
    "Gather": r_gather, "GatherElements": r_gather_elements,
    "NegativeLogLikelihoodLoss": r_nll, "SoftmaxCrossEntropyLoss": r_nll,
    "OneHot": r_onehot, "Pad": r_pad, "Pow": r_pow, "STFT": r_stft,
    "ScatterElements": r_scatter_elements, "Slice": r_slice, "TfIdfVectorizer": r_tfidf,
}


def make_model(nodes, inputs, outputs, inits, opset):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="gen_downcast_ops")
    model.ir_version = 8 if opset <= 17 else 10
    if opset <= 17:
        # onnx 1.12's checker wants output shapes: take them from its shape inference
        inferred = shape_inference.infer_shapes(model).graph.output
        for out, inf in zip(model.graph.output, inferred):
            if not out.type.tensor_type.HasField("shape") and inf.type.tensor_type.HasField("shape"):
                out.type.tensor_type.shape.CopyFrom(inf.type.tensor_type.shape)
    return model


def build_case(schema, k, narrow):
    """(model, None) or (None, why not)."""
    op, opset = schema["op"], schema["opset"]
    wide = DOUBLE if narrow == FLOAT else INT64
    recipe = RECIPES.get(op)
    if recipe is None:
        return None, "no recipe for %s" % op
    c = Case(k)
    why = recipe(c, wide, opset)
    if why:
        return None, why
    # the recipe must have made input k (and every input on its variable) a constant of the wide type
    names = {t.name: t for t in c.inits}
    tv = schema["inputs"][k]["tv"]
    for j, formal in enumerate(schema["inputs"]):
        if formal["tv"] == tv and j < len(c.inputs) and c.inputs[j]:
            t = names.get(c.inputs[j])
            if t is None or t.data_type != wide:
                return None, "recipe for %s leaves input %d on %s non-constant" % (op, j, tv)
    if k >= len(c.inputs) or not c.inputs[k]:
        return None, "recipe for %s omits input %d" % (op, k)
    while c.inputs and c.inputs[-1] == "":
        c.inputs.pop()
    outs = ["y%d" % i for i in range(len(schema["outputs"]))]
    if op == "Pad" or op == "DFT" or op == "STFT" or op == "CumSum" or op == "CumProd":
        outs = outs[:1]
    node = helper.make_node(op, c.inputs, outs, **c.attrs)
    # output types are left to inference: outputs declared without element type would not pass
    # the checker, so take them from onnx's shape inference where it knows the opset, else by rule
    return (c, node, outs), None


def output_types(schema, case, wide):
    """Element type of each output: concrete, or the element type bound to its variable."""
    c, node, outs = case
    binding = {}
    for j, name in enumerate(c.inputs):
        if not name or j >= len(schema["inputs"]):
            continue
        tv = schema["inputs"][j]["tv"]
        if not tv:
            continue
        for t in c.inits:
            if t.name == name:
                binding[tv] = t.data_type
        for g in c.graph_inputs:
            if g.name == name:
                binding[tv] = g.type.tensor_type.elem_type
    types = []
    for j, _ in enumerate(outs):
        f = schema["outputs"][j]
        if f["tv"] in binding:
            types.append(binding[f["tv"]])
        elif len(f["types"]) == 1:
            types.append(f["types"][0])
        else:
            return None
    return types


# element types a graph input of a variant may take (those ort_compare feeds)
FEEDABLE = [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16, TensorProto.INT8, TensorProto.INT16,
            INT32, INT64, TensorProto.UINT8, TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64,
            TensorProto.BOOL, TensorProto.STRING]


def variants(schema, case, k):
    """The case again with the graph inputs of one other type variable retyped, for every type it allows:
    a runtime may register kernels per combination of types (OneHot), so a narrowing is judged against
    the types of the inputs it is not narrowing too. Yields (suffix, case)."""
    c, node, outs = case
    narrowed_tv = schema["inputs"][k]["tv"]
    by_tv = {}
    for j, name in enumerate(c.inputs):
        if not name or j >= len(schema["inputs"]):
            continue
        tv = schema["inputs"][j]["tv"]
        if tv and tv != narrowed_tv and any(g.name == name for g in c.graph_inputs):
            by_tv.setdefault(tv, (j, []))[1].append(name)
    for tv, (j, names) in sorted(by_tv.items()):
        for t in schema["inputs"][j]["types"]:
            if t not in FEEDABLE or all(g.type.tensor_type.elem_type == t for g in c.graph_inputs if g.name in names):
                continue
            v = Case(k)
            v.inputs, v.inits, v.attrs = list(c.inputs), list(c.inits), dict(c.attrs)
            v.graph_inputs = [vi(g.name, t, [d.dim_value for d in g.type.tensor_type.shape.dim])
                              if g.name in names else g for g in c.graph_inputs]
            yield "%s_%s" % (tv, TensorProto.DataType.Name(t).lower()), (v, node, outs)


def regressions():
    """name -> (model, opset): the defects 4 and 5 of issue 6, as models."""
    out = {}
    i64 = lambda n, v, s=None: const(n, v, INT64, s)  # noqa: E731

    # EyeLike without dtype: the output's type is the input's
    out["regress_eyelike"] = make_model(
        [helper.make_node("EyeLike", ["c"], ["y"], k=1)], [], [vi("y", INT64, [3, 3])],
        [i64("c", [[5, 6, 7], [8, 9, 10], [11, 12, 13]])], 13)
    # RandomNormalLike without dtype (seeded, so both runs draw the same numbers)
    out["regress_randomnormallike"] = make_model(
        [helper.make_node("RandomNormalLike", ["c"], ["y"], seed=3.0)], [], [vi("y", DOUBLE, [2, 3])],
        [const("c", [[0.5, 1.0, 2.0], [4.0, 8.0, 16.0]], DOUBLE)], 13)
    # SequenceConstruct: the sequence's element type is the tensors'
    out["regress_sequenceconstruct"] = make_model(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
         helper.make_node("SequenceAt", ["s", "pos"], ["y"])],
        [vi("pos", INT64, [])], [vi("y", INT64, [3])],
        [i64("a", [1, 2, 3]), i64("b", [4, 5, 6])], 13)
    # SplitToSequence: likewise
    out["regress_splittosequence"] = make_model(
        [helper.make_node("SplitToSequence", ["c", "split"], ["s"]),
         helper.make_node("SequenceAt", ["s", "pos"], ["y"])],
        [vi("pos", INT64, [])], [vi("y", INT64, [2])],
        [i64("c", [1, 2, 3, 4]), i64("split", [2, 2])], 13)
    # Optional: the optional's element type is the tensor's
    out["regress_optional"] = make_model(
        [helper.make_node("Optional", ["c"], ["o"]),
         helper.make_node("OptionalGetElement", ["o"], ["y"])],
        [], [vi("y", INT64, [3])], [i64("c", [7, 8, 9])], 15)
    # opset 18: ReduceMean's axes is an input (tensor(int64)); equal to a Slice's axes, dedup
    # merges them, and opset-17 schemas called the merged constant narrowable
    x = vi("x", FLOAT, [4, 5])
    out["regress_reducemean18"] = make_model(
        [helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["s"]),
         helper.make_node("ReduceMean", ["x", "raxes"], ["r"], keepdims=1),
         helper.make_node("Add", ["s", "r"], ["y"])],
        [x], [vi("y", FLOAT, None)],
        [i64("starts", [1]), i64("ends", [3]), i64("axes", [1]), i64("raxes", [1])], 18)
    # PyTorch's one_hot: int64 indices computed, depth and values int64 Constants. ONNX Runtime has no
    # OneHot kernel for int32 depth beside int64 indices and values, whatever the schema allows
    def onehot(depth, values, opset, depth_node):
        nodes, inits = [], []
        for name, t in (("depth", depth), ("values", values)):
            if name == "values" or depth_node:
                nodes.append(helper.make_node("Constant", [], [name], value=t))
            else:
                inits.append(t)
        nodes.append(helper.make_node("OneHot", ["indices", "depth", "values"], ["y"], axis=-1))
        return make_model(nodes, [vi("indices", INT64, [4])], [vi("y", values.data_type, [4, 3])], inits, opset)
    out["regress_onehot_torch"] = onehot(i64("depth", 3, []), i64("values", [0, 1]), 13, True)
    out["regress_onehot_torch9"] = onehot(i64("depth", 3, []), i64("values", [0, 1]), 9, False)
    # float values: (int64, int32, float) is a kernel ONNX Runtime has, so depth narrows
    fv = numpy_helper.from_array(np.array([0.0, 1.0], dtype=np.float32), "values")
    out["regress_onehot_float_values"] = onehot(i64("depth", 3, []), fv, 13, False)
    # a model importing an opset newer than the table knows narrows nothing
    out["regress_newer_opset"] = make_model(
        [helper.make_node("Gather", ["x", "idx"], ["y"])], [x], [vi("y", FLOAT, None)],
        [i64("idx", [0, 2])], 29)
    return out


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    dump, outdir, opsets = argv[1], argv[2], argv[3:]
    os.makedirs(outdir, exist_ok=True)
    text = subprocess.run([dump] + opsets, check=True, capture_output=True, text=True).stdout
    manifest, varied = [], set()
    for line in text.splitlines():
        schema = json.loads(line)
        for k, formal in enumerate(schema["inputs"]):
            for narrow_s, verdict in formal["narrow"].items():
                narrow = int(narrow_s)
                wide = DOUBLE if narrow == FLOAT else INT64
                if verdict or wide not in formal["types"]:
                    continue
                label = "%s-%d input %d '%s' %s" % (schema["op"], schema["since"], k, formal["name"],
                                                    "int64->int32" if wide == INT64 else "float64->float32")
                case, why = build_case(schema, k, narrow)
                types = output_types(schema, case, wide) if case else None
                if case and types is None:
                    why = "cannot tell %s's output types" % schema["op"]
                if why:
                    manifest.append("skipped\t-\t%d\t%s: %s" % (schema["opset"], label, why))
                    continue
                c, node, outs = case
                outputs = [vi(n, t, None) for n, t in zip(outs, types)]
                model = make_model([node], c.graph_inputs, outputs, c.inits, schema["opset"])
                name = "%s_o%d_i%d_%s.onnx" % (schema["op"], schema["opset"], k,
                                               "i64" if wide == INT64 else "f64")
                with open(os.path.join(outdir, name), "wb") as fp:
                    fp.write(model.SerializeToString())
                manifest.append("built\t%s\t%d\t%s" % (name, schema["opset"], label))
                # the other inputs' types, once per operator version: narrowed or refused, the
                # output must load wherever the input does
                key = (schema["op"], schema["since"], k, narrow)
                if key in varied:
                    continue
                varied.add(key)
                for suffix, var in variants(schema, case, k):
                    types = output_types(schema, var, wide)
                    if types is None:
                        continue
                    v, vnode, vouts = var
                    try:
                        model = make_model([vnode], v.graph_inputs, [vi(n, t, None) for n, t in zip(vouts, types)],
                                           v.inits, schema["opset"])
                    except Exception as e:  # noqa: BLE001 (onnx's inference refuses a type: not a case)
                        manifest.append("skipped\t-\t%d\t%s with %s: %s" % (schema["opset"], label, suffix,
                                                                          str(e).split("\n")[0]))
                        continue
                    vname = name[:-5] + "__" + suffix + ".onnx"
                    with open(os.path.join(outdir, vname), "wb") as fp:
                        fp.write(model.SerializeToString())
                    manifest.append("variant\t%s\t%d\t%s with %s" % (vname, schema["opset"], label, suffix))
    for name, model in regressions().items():
        with open(os.path.join(outdir, name + ".onnx"), "wb") as fp:
            fp.write(model.SerializeToString())
    with open(os.path.join(outdir, "manifest.tsv"), "w") as fp:
        fp.write("\n".join(manifest) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
