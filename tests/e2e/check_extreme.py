#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check a tool's outputs against ONNX Runtime, shapes included.

Usage:
    /usr/bin/python3 check_extreme.py REF.onnx OUT.onnx [REF.onnx OUT.onnx ...]
    /usr/bin/python3 check_extreme.py --list PAIRS   (one "REF<TAB>OUT" a line)

For each pair (a model and what a tool wrote from it):
  - OUT passes onnx.checker;
  - every value OUT declares a shape for (graph outputs and value_info) is
    made a graph output of copies of both models, which ONNX Runtime runs
    (ort_dims.mjs): when it refuses REF, it must refuse OUT too (a tool must
    not make a model that runs out of one that does not); else OUT must run,
    each declared dim that is a number must be the dim ONNX Runtime computes,
    and every output must equal REF's bit for bit (ort_compare.mjs --batch:
    NaN payloads and -0 count).
Prints "check_extreme: ok: N pairs" or one "check_extreme: FAIL: ..." line
per problem and exits 1.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import onnx
from onnx import helper

HERE = os.path.dirname(os.path.abspath(__file__))


def produced(g):
    names = {i.name for i in g.input} | {t.name for t in g.initializer}
    for n in g.node:
        names.update(o for o in n.output if o)
    return names


def declared(m):
    """Name -> (elem type, dims: int or None) of every tensor value OUT declares a shape for."""
    out = {}
    for vi in list(m.graph.output) + list(m.graph.value_info):
        tt = vi.type.tensor_type
        if not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
            continue
        out[vi.name] = (tt.elem_type, [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim])
    return out


def probe(m, names, types, path):
    """@m with every name in @names a graph output (typed from @types), saved at @path."""
    have = {o.name for o in m.graph.output}
    for name in names:
        if name not in have:
            m.graph.output.append(helper.make_tensor_value_info(name, types[name][0], None))
    onnx.save(m, path)


def main(argv):
    if len(argv) == 3 and argv[1] == "--list":
        with open(argv[2]) as f:
            argv = [argv[0]] + [p for line in f if line.strip() for p in line.rstrip("\n").split("\t")]
    pairs = list(zip(argv[1::2], argv[2::2]))
    if not pairs or len(argv) % 2 == 0:
        sys.stderr.write("usage: check_extreme.py REF.onnx OUT.onnx [REF.onnx OUT.onnx ...] | --list PAIRS\n")
        return 2
    fails = []
    tmp = tempfile.mkdtemp(prefix="check_extreme.")
    probes, claims = [], []
    for k, (ref, out) in enumerate(pairs):
        try:
            onnx.checker.check_model(out)
        except Exception as exc:  # ValidationError and others
            fails.append("%s: onnx.checker: %s" % (out, " ".join(str(exc).split())))
            continue
        r, o = onnx.load(ref), onnx.load(out)
        claim = declared(o)
        both = produced(r.graph) & produced(o.graph)
        names = sorted(n for n in claim if n in both)
        rp, op = os.path.join(tmp, "r%d.onnx" % k), os.path.join(tmp, "o%d.onnx" % k)
        probe(r, names, claim, rp)
        probe(o, names, claim, op)
        probes.append((ref, out, rp, op))
        claims.append(claim)
    ran = {}
    if probes:
        res = subprocess.run(["node", os.path.join(HERE, "ort_dims.mjs")] + [p for q in probes for p in q[2:]],
                             capture_output=True, text=True)
        for line in res.stdout.splitlines():
            j = json.loads(line)
            ran[j["model"]] = j
    batch = []
    for (ref, out, rp, op), claim in zip(probes, claims):
        a, b = ran.get(rp, {"error": "no result"}), ran.get(op, {"error": "no result"})
        if "error" in a:
            if "error" not in b:
                fails.append("%s: ONNX Runtime refuses the input (%s) but runs the output" % (out, a["error"]))
            continue
        if "error" in b:
            fails.append("%s: ONNX Runtime runs the input but not the output: %s" % (out, b["error"]))
            continue
        for name, (_, dims) in sorted(claim.items()):
            got = b["outputs"].get(name)
            if got is None:
                continue
            if len(got) != len(dims) or any(d is not None and d != g for d, g in zip(dims, got)):
                fails.append("%s: '%s' declared %s, ONNX Runtime computes %s" % (out, name, dims, got))
        batch.append("%s\t%s" % (rp, op))
    if batch:
        lst = os.path.join(tmp, "pairs.txt")
        with open(lst, "w") as f:
            f.write("\n".join(batch) + "\n")
        res = subprocess.run(["node", os.path.join(HERE, "ort_compare.mjs"), "--batch", lst],
                             capture_output=True, text=True)
        named = {q[2]: q[1] for q in probes}
        for line in res.stdout.splitlines():
            if not line.startswith("ok:"):
                for rp, o in named.items():
                    line = line.replace(rp + ":", o + ":")
                fails.append(line)
    shutil.rmtree(tmp, ignore_errors=True)
    for f in fails:
        print("check_extreme: FAIL: %s" % f)
    if not fails:
        print("check_extreme: ok: %d pairs" % len(pairs))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
