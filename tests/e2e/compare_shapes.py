#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compare the value_info a model declares with what onnx.shape_inference infers.

Usage:
    /usr/bin/python3 compare_shapes.py [--data-prop] MODEL.onnx [MODEL.onnx ...]

With --data-prop, ONNX infers with its data propagation (the values of
Shape and of small integer computations on it reach Reshape's target).

For each model, the main graph's value_info is taken as the claim; ONNX
then infers the shapes of a copy whose value_info is emptied
(onnx.shape_inference.infer_shapes, strict mode off). For every value both
know, the element types must be equal, and so must the ranks and every dim
where both give a number (a dim ONNX infers as a number must also be a
number in the claim); a dim ONNX names (dim_param, but for the unk__N names
it makes up for dims it does not know) must have that name in the claim, and
a dim the claim names must not be a number or another name in ONNX's; and a
value ONNX infers must be in the claim. Prints
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


def dim(d):
    """A dim's number, its name (a str), or None when unknown and nameless (ONNX's made-up unk__N too)."""
    if d.HasField("dim_value"):
        return d.dim_value
    if d.HasField("dim_param") and d.dim_param and not d.dim_param.startswith("unk__"):
        return d.dim_param
    return None


def facts(vi):
    t = vi.type.tensor_type
    dims = None
    if t.HasField("shape"):
        dims = [dim(d) for d in t.shape.dim]
    return t.elem_type, dims


def dim_judge(a, b):
    """Our dim @a against ONNX's @b: None when they agree, else "differs" or "unknown" (ONNX knows more)."""
    if b is None or a == b:
        return None
    if a is None or (isinstance(a, str) and isinstance(b, int)):
        return "unknown"
    return "differs"


def judge(ours, theirs):
    """What differs between our facts and ONNX's of one value: (kind, text) or None.
    kind "differs": a type, rank or dim that contradicts ONNX's; "unknown": ONNX knows more."""
    elem, dims = ours
    t_elem, t_dims = theirs
    if t_elem and elem != t_elem:
        return "differs", "element type %d; ONNX: %d" % (elem, t_elem)
    if t_dims is None:
        return None
    if dims is None:
        return "unknown", "no shape; ONNX: %s" % t_dims
    if len(dims) != len(t_dims):
        return "differs", "rank %d; ONNX: %d" % (len(dims), len(t_dims))
    kinds = [dim_judge(a, b) for a, b in zip(dims, t_dims)]
    for kind in ("differs", "unknown"):
        if kind in kinds:
            return kind, "dims %s; ONNX: %s" % (dims, t_dims)
    return None


def compare(path, data_prop=False):
    m = onnx.load(path)
    claim = {vi.name: facts(vi) for vi in m.graph.value_info}
    del m.graph.value_info[:]
    inferred = shape_inference.infer_shapes(m, data_prop=data_prop)
    theirs = {vi.name: facts(vi) for vi in inferred.graph.value_info}
    problems = []
    with_shape = 0
    for name, ours in sorted(claim.items()):
        if name not in theirs:
            continue
        with_shape += theirs[name][1] is not None
        found = judge(ours, theirs[name])
        if found:
            problems.append("%s: %s" % (name, found[1]))
    for name in sorted(set(theirs) - set(claim)):
        problems.append("%s: not written, ONNX infers %s" % (name, theirs[name]))
    for p in problems:
        print("compare_shapes: DIFF: %s: %s" % (path, p))
    if not problems:
        print("compare_shapes: ok: %s: %d values, %d with ONNX's shape" % (path, len(claim), with_shape))
    return not problems


def main(argv):
    data_prop = len(argv) > 1 and argv[1] == "--data-prop"
    paths = argv[2:] if data_prop else argv[1:]
    if not paths or any(a.startswith("-") for a in paths):
        sys.stderr.write("usage: compare_shapes.py [--data-prop] MODEL.onnx [MODEL.onnx ...]\n")
        return 2
    ok = True
    for path in paths:
        ok = compare(path, data_prop) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
