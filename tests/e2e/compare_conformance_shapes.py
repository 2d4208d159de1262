#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Shape inference of scs4onnx-optimize --write-shapes against onnx.shape_inference
on the node models of ONNX's conformance suite.

Usage:
    /usr/bin/python3 compare_conformance_shapes.py TOOLS_DIR WORK_DIR [DATA_DIR]

DATA_DIR defaults to /usr/share/libonnx-testdata/data/node (Debian's
libonnx-testdata). For every test_*/model.onnx whose default-domain opset
the installed onnx knows: each output of its node(s) is renamed NAME__v and
an Identity makes NAME of it, so that the node's outputs are values inside
the graph; scs4onnx-optimize -p eliminate_deadend --write-shapes writes what
it infers of them to value_info, and compare_shapes.py's rules compare that
with what onnx.shape_inference infers (element types; dims wherever ONNX
infers them). Models ONNX cannot infer are skipped.

Prints one line per disagreement, "TEST: VALUE: KIND: what", sorted (the
__v suffix dropped; KIND "unknown" where ONNX infers more than we do,
"differs" where a type, rank or dim contradicts ONNX's), then a summary line
on stderr. Exit status 0 when nothing contradicts ONNX, 1 otherwise, 2 on
bad usage.
"""

import os
import subprocess
import sys

import onnx
from onnx import helper, shape_inference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_shapes import facts, judge  # noqa: E402

MAX_OPSET = onnx.defs.onnx_opset_version()


def wrap(m):
    g = m.graph
    outs = [o for n in g.node for o in n.output if o]
    for n in g.node:
        for i, o in enumerate(n.output):
            if o:
                n.output[i] = o + "__v"
        for i, x in enumerate(n.input):
            if x in outs:
                n.input[i] = x + "__v"
    for o in outs:
        g.node.append(helper.make_node("Identity", [o + "__v"], [o]))
    del g.value_info[:]
    return [o + "__v" for o in outs]


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    tools, work = argv[1], argv[2]
    data = argv[3] if len(argv) == 4 else "/usr/share/libonnx-testdata/data/node"
    lines, models, skipped, values, differs = [], 0, 0, 0, 0
    for name in sorted(os.listdir(data)):
        path = os.path.join(data, name, "model.onnx")
        if not name.startswith("test_") or not os.path.exists(path):
            continue
        m = onnx.load(path)
        opset = max([o.version for o in m.opset_import if o.domain in ("", "ai.onnx")] or [0])
        if opset > MAX_OPSET or len(m.graph.node) == 0 or m.functions:
            skipped += 1
            continue
        names = wrap(m)
        src = os.path.join(work, name + ".onnx")
        dst = os.path.join(work, name + ".shapes.onnx")
        try:
            theirs_model = shape_inference.infer_shapes(m)
        except Exception:
            skipped += 1
            continue
        onnx.save(m, src)
        r = subprocess.run([os.path.join(tools, "scs4onnx-optimize"), src, dst, "-p", "eliminate_deadend",
                            "--write-shapes", "-n"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            lines.append("%s: differs: the tool refused it: %s" % (name, r.stderr.strip().splitlines()[-1:]))
            differs += 1
            continue
        models += 1
        ours = {vi.name: facts(vi) for vi in onnx.load(dst).graph.value_info}
        theirs = {vi.name: facts(vi) for vi in theirs_model.graph.value_info}
        for v in names:
            label = "%s: %s" % (name, v[:-3])
            if v not in theirs:
                continue
            values += 1
            if v not in ours:
                lines.append("%s: unknown: not inferred; ONNX: %s %s" % ((label,) + theirs[v]))
                continue
            found = judge(ours[v], theirs[v])
            if found:
                lines.append("%s: %s: %s" % ((label,) + found))
                differs += found[0] == "differs"
        for p in (src, dst):
            os.remove(p)
    for line in sorted(lines):
        print(line)
    sys.stderr.write("models %d, skipped %d, values %d, ONNX knows more %d, contradicting %d\n"
                     % (models, skipped, values, len(lines) - differs, differs))
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
