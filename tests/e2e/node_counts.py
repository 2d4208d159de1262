#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Count the compute nodes of ONNX models, for scripts/ort-basic-compare.sh.

Usage:
    /usr/bin/python3 node_counts.py MODEL.onnx ...

A compute node is any node but Constant (of the default domain), in the
main graph and in every nested graph (If branches, Loop and Scan bodies) and
function body. For each model one line on stdout:

    MODEL<TAB>COUNT<TAB>OP=N,OP=N,...<TAB>HALF

the op histogram sorted by op name, an op of another domain written
DOMAIN:OP; HALF is 1 when a graph input, output, value_info or initializer
of the main graph is float16 or bfloat16 (ONNX Runtime's CPU provider
computes some of those nodes in float, so outputs differ by more than
float32 rounding), else 0. A model that does not parse: MODEL<TAB>-<TAB>MESSAGE. External
data is not read.
"""

import collections
import sys

import onnx


def count_graph(graph, hist):
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            continue
        key = node.op_type if node.domain in ("", "ai.onnx") else node.domain + ":" + node.op_type
        hist[key] += 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                count_graph(attr.g, hist)
            for g in attr.graphs:
                count_graph(g, hist)


def has_half(graph):
    half = (onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16)
    values = list(graph.input) + list(graph.output) + list(graph.value_info)
    return any(v.type.tensor_type.elem_type in half for v in values) or \
        any(t.data_type in half for t in graph.initializer)


def main(argv):
    for path in argv[1:]:
        try:
            model = onnx.load(path, load_external_data=False)
        except Exception as e:  # a model the reader rejects is a line, not a stop
            print("%s\t-\t%s\t0" % (path, str(e).splitlines()[0] if str(e) else type(e).__name__))
            continue
        hist = collections.Counter()
        count_graph(model.graph, hist)
        for f in model.functions:
            count_graph(f, hist)
        print("%s\t%d\t%s\t%d" % (path, sum(hist.values()), ",".join("%s=%d" % kv for kv in sorted(hist.items())),
                                   has_half(model.graph)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
