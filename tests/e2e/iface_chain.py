#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Adapters for comparing a model whose inputs and outputs a pass renamed on
purpose (rename_input_output) with the model it came from, in ONNX Runtime,
without touching the candidate itself.

Usage:
    /usr/bin/python3 iface_chain.py REFERENCE.onnx CANDIDATE.onnx OUTDIR

Graph inputs and outputs are paired by position (their types must be the
same). OUTDIR/pre1.onnx and pre2.onnx take each reference input that the
candidate names otherwise and make the candidate's (Identity nodes, through
names of their own, so that names the two models use at other positions
work); OUTDIR/post1.onnx and post2.onnx take each candidate output named
otherwise and make the reference's. Prints the models to run in order, the candidate among them
(an adapter with nothing to do is left out), for
    node ort_compare.mjs REFERENCE.onnx $(iface_chain.py ...) --chain
"""

import os
import sys

import onnx
from onnx import helper


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: iface_chain.py REFERENCE.onnx CANDIDATE.onnx OUTDIR\n")
        return 2
    ref, cand, outdir = onnx.load(argv[1]), onnx.load(argv[2]), argv[3]
    inits = {t.name for t in ref.graph.initializer}
    r_in = [v for v in ref.graph.input if v.name not in inits]
    c_in = [v for v in cand.graph.input if v.name not in {t.name for t in cand.graph.initializer}]
    if len(r_in) != len(c_in) or len(ref.graph.output) != len(cand.graph.output):
        sys.stderr.write("iface_chain: the models have different numbers of inputs or outputs\n")
        return 1
    chain = []
    opset = [helper.make_opsetid("", 13)]

    def stage(name, pairs, types):
        """A model of Identity nodes from each pair's first name to its second."""
        nodes = [helper.make_node("Identity", [a], [b]) for a, b in pairs]
        ins = [helper.make_tensor_value_info(a, types[a], None) for a, _ in pairs]
        outs = [helper.make_tensor_value_info(b, types[a], None) for a, b in pairs]
        m = helper.make_model(helper.make_graph(nodes, name, ins, outs), opset_imports=opset)
        m.ir_version = 8
        chain.append(os.path.join(outdir, name + ".onnx"))
        onnx.save(m, chain[-1])

    # two stages each way, through names of their own, so that a name both models use at other positions works
    def adapt(name, pairs):
        if not pairs:
            return
        types = {a: t for a, _, t in pairs}
        types.update({"iface_%s_%d" % (name, k): t for k, (_, _, t) in enumerate(pairs)})
        mid = ["iface_%s_%d" % (name, k) for k in range(len(pairs))]
        stage(name + "1", [(a, m) for (a, _, _), m in zip(pairs, mid)], types)
        stage(name + "2", [(m, b) for (_, b, _), m in zip(pairs, mid)], types)

    pairs = []
    for r, c in zip(r_in, c_in):
        if r.type != c.type:
            sys.stderr.write("iface_chain: input %s (%s in the candidate) changed type\n" % (r.name, c.name))
            return 1
        if r.name != c.name:
            pairs.append((r.name, c.name, r.type.tensor_type.elem_type))
    adapt("pre", pairs)
    chain.append(argv[2])
    pairs = [(c.name, r.name, c.type.tensor_type.elem_type)
             for r, c in zip(ref.graph.output, cand.graph.output) if r.name != c.name]
    adapt("post", pairs)
    print(" ".join("'%s'" % p for p in chain))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
