#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Adapters for comparing a model whose inputs and outputs a pass renamed on
purpose (rename_input_output) with the model it came from, in ONNX Runtime,
without touching the candidate itself.

Usage:
    /usr/bin/python3 iface_chain.py REFERENCE.onnx CANDIDATE.onnx OUTDIR

Graph inputs and outputs are paired by position (their types must be the
same). OUTDIR/pre.onnx takes each reference input that the candidate names
otherwise and makes the candidate's (Identity); OUTDIR/post.onnx
takes each candidate output named otherwise and makes the reference's
(Identity). Prints the models to run in order, the candidate among them
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
    nodes, ins, outs = [], [], []
    for r, c in zip(r_in, c_in):
        if r.type != c.type:
            sys.stderr.write("iface_chain: input %s (%s in the candidate) changed type\n" % (r.name, c.name))
            return 1
        if r.name == c.name:
            continue
        ins.append(r)
        outs.append(helper.make_tensor_value_info(c.name, c.type.tensor_type.elem_type, None))
        nodes.append(helper.make_node("Identity", [r.name], [c.name]))
    opset = [helper.make_opsetid("", 13)]
    if nodes:
        pre = helper.make_model(helper.make_graph(nodes, "pre", ins, outs), opset_imports=opset)
        pre.ir_version = 8
        chain.append(os.path.join(outdir, "pre.onnx"))
        onnx.save(pre, chain[-1])
    chain.append(argv[2])
    nodes, ins, outs = [], [], []
    for r, c in zip(ref.graph.output, cand.graph.output):
        if r.name == c.name:
            continue
        ins.append(c)
        outs.append(r)
        nodes.append(helper.make_node("Identity", [c.name], [r.name]))
    if nodes:
        post = helper.make_model(helper.make_graph(nodes, "post", ins, outs), opset_imports=opset)
        post.ir_version = 8
        chain.append(os.path.join(outdir, "post.onnx"))
        onnx.save(post, chain[-1])
    print(" ".join("'%s'" % p for p in chain))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
