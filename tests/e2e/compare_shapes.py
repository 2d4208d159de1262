#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compare the value_info a model declares with what onnx.shape_inference infers.

Usage:
    /usr/bin/python3 compare_shapes.py MODEL.onnx [MODEL.onnx ...]

For each model, the main graph's value_info is taken as the claim; ONNX
then infers the shapes of a copy whose value_info is emptied
(onnx.shape_inference.infer_shapes, strict mode off). For every value both
know, the element types must be equal, and so must the ranks and every dim
where both give a number (a dim ONNX infers as a number must also be a
number in the claim); and a value ONNX infers must be in the claim. Prints
one line per model:
    compare_shapes: ok: PATH: N values, M with ONNX's shape
or one line per disagreement,
    compare_shapes: DIFF: PATH: NAME: what differs
and exits with status 1 then. Needs python3-onnx (opsets up to 17 with
Debian's 1.12).
"""

import sys

import onnx
from onnx import shape_inference


def facts(vi):
    t = vi.type.tensor_type
    dims = None
    if t.HasField("shape"):
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
    return t.elem_type, dims


def compare(path):
    m = onnx.load(path)
    claim = {vi.name: facts(vi) for vi in m.graph.value_info}
    del m.graph.value_info[:]
    inferred = shape_inference.infer_shapes(m)
    theirs = {vi.name: facts(vi) for vi in inferred.graph.value_info}
    problems = []
    with_shape = 0
    for name, (elem, dims) in sorted(claim.items()):
        if name not in theirs:
            continue
        t_elem, t_dims = theirs[name]
        if t_elem and elem != t_elem:
            problems.append("%s: element type %d, ONNX %d" % (name, elem, t_elem))
        if t_dims is None:
            continue
        with_shape += 1
        if dims is None:
            if any(d is not None for d in t_dims):
                problems.append("%s: no shape, ONNX %s" % (name, t_dims))
            continue
        if len(dims) != len(t_dims):
            problems.append("%s: rank %d, ONNX %d" % (name, len(dims), len(t_dims)))
            continue
        for i, (a, b) in enumerate(zip(dims, t_dims)):
            if b is not None and a != b:
                problems.append("%s: dim %d is %s, ONNX %s" % (name, i, a, b))
    for name in sorted(set(theirs) - set(claim)):
        problems.append("%s: not written, ONNX infers %s" % (name, theirs[name]))
    for p in problems:
        print("compare_shapes: DIFF: %s: %s" % (path, p))
    if not problems:
        print("compare_shapes: ok: %s: %d values, %d with ONNX's shape" % (path, len(claim), with_shape))
    return not problems


def main(argv):
    if len(argv) < 2 or any(a.startswith("-") for a in argv[1:]):
        sys.stderr.write("usage: compare_shapes.py MODEL.onnx [MODEL.onnx ...]\n")
        return 2
    ok = True
    for path in argv[1:]:
        ok = compare(path) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
