#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the external data files beside a model (tests/test_datashard.c).

Usage:
    /usr/bin/python3 check_datafiles.py MODEL.onnx numbered|single|none|any [--max BYTES] [--copies]

Looks at the files of MODEL's folder named as its data files
("MODEL.onnx.<16 hex>.data", "MODEL.onnx.<16 hex>-K-of-N.data", the older
"MODEL.onnx.data") and at every tensor of the model (every graph, nested
bodies, Constant values, functions), read without its data:

  numbered  every data file is numbered: one digest, one width of 5 digits
            or more, N the number of files there, K from 1 to N, and the
            names sorted as text are in the order of K;
  single    one data file, "MODEL.onnx.<16 hex>.data";
  none      no data file (and no tensor with external data);
  any       the files the model names, whatever their names (a set several
            models share); others may be there (what a killed run may leave
            for the next one to remove).

Every external tensor names one of those files (a bare name), at an offset
that is a multiple of 4096, with a length that is its dims' bytes, inside
the file; every data file is named by a tensor (but with any); places in
a file do not overlap; no two places hold equal bytes (a payload is written
once; --copies: they may, as a single data file has them); with
--max, no file is longer than BYTES unless it holds one payload, longer than
BYTES. Then onnx.load(MODEL) alone must load every tensor. Prints
"check_datafiles: ok: files=F places=P shared=S largest=L" (S: places that
several tensors name; L: the longest file) and exits 0, else one line
"check_datafiles: FAIL: ..." and exits 1.
"""

import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, mapping, numpy_helper


def fail(msg):
    print("check_datafiles: FAIL: %s" % msg)
    sys.exit(1)


def tensors_of_graph(g, out):
    out.extend(g.initializer)
    for n in g.node:
        tensors_of_nodes([n], out)


def tensors_of_nodes(nodes, out):
    for n in nodes:
        for a in n.attribute:
            if a.HasField("t"):
                out.append(a.t)
            out.extend(a.tensors)
            if a.HasField("g"):
                tensors_of_graph(a.g, out)
            for g in a.graphs:
                tensors_of_graph(g, out)


def expected_len(t):
    if t.data_type == TensorProto.STRING:
        return None
    n = int(np.prod(list(t.dims))) if len(t.dims) else 1
    if t.data_type == TensorProto.BFLOAT16:
        return 2 * n
    return np.dtype(mapping.TENSOR_TYPE_TO_NP_TYPE[t.data_type]).itemsize * n


def main(argv):
    if len(argv) < 3 or argv[2] not in ("numbered", "single", "none", "any"):
        sys.stderr.write(__doc__)
        return 2
    path, mode = argv[1], argv[2]
    max_len = int(argv[argv.index("--max") + 1]) if "--max" in argv else 0
    folder, base = os.path.split(os.path.abspath(path))
    pat = re.compile(re.escape(base) + r"\.(?:([0-9a-f]{16})(?:-([0-9]+)-of-([0-9]+))?\.)?data$")
    files = sorted(f for f in os.listdir(folder) if pat.match(f))
    sizes = {f: os.path.getsize(os.path.join(folder, f)) for f in files}
    if mode == "none" and files:
        fail("data files beside an inline model: %s" % files)
    if mode == "single" and (len(files) != 1 or pat.match(files[0]).group(2) or not pat.match(files[0]).group(1)):
        fail("not one data file <model>.<16 hex>.data: %s" % files)
    if mode == "numbered":
        if not files:
            fail("no data file")
        groups = [pat.match(f).groups() for f in files]
        if any(g[1] is None for g in groups):
            fail("a data file without a number: %s" % files)
        if len({g[0] for g in groups}) != 1:
            fail("data files of several digests: %s" % files)
        widths = {len(g[1]) for g in groups} | {len(g[2]) for g in groups}
        if len(widths) != 1 or min(widths) < 5:
            fail("numbers of several widths or under 5 digits: %s" % files)
        if any(int(g[2]) != len(files) for g in groups):
            fail("%d files, but the names say otherwise: %s" % (len(files), files))
        if [int(g[1]) for g in groups] != list(range(1, len(files) + 1)):
            fail("the names sorted are not 1..N in order: %s" % files)
    m = onnx.load(path, load_external_data=False)
    tensors = []
    tensors_of_graph(m.graph, tensors)
    for f in m.functions:
        tensors_of_nodes(f.node, tensors)
    places = {}
    for t in tensors:
        if t.data_location != TensorProto.EXTERNAL:
            continue
        kv = {e.key: e.value for e in t.external_data}
        loc = kv.get("location")
        if mode == "any" and loc not in sizes and "/" not in loc and os.path.isfile(os.path.join(folder, loc)):
            sizes[loc] = os.path.getsize(os.path.join(folder, loc))
        if loc not in sizes:
            fail("%s: location %r is not a data file beside the model (%s)" % (t.name, loc, files))
        off, length = int(kv.get("offset", "0")), int(kv.get("length", "-1"))
        if off % 4096:
            fail("%s: offset %d is not a multiple of 4096" % (t.name, off))
        if expected_len(t) is not None and length != expected_len(t):
            fail("%s: length %d, its dims take %d" % (t.name, length, expected_len(t)))
        if off + length > sizes[loc]:
            fail("%s: [%d, %d) past the end of %s (%d bytes)" % (t.name, off, off + length, loc, sizes[loc]))
        places.setdefault((loc, off, length), []).append(t.name)
    if mode == "none" and places:
        fail("external tensors without data files")
    named = {p[0] for p in places}
    if mode == "any":
        files = sorted(named)
    if set(files) != named:
        fail("data files no tensor names: %s" % sorted(set(files) - named))
    contents = {}
    for (loc, off, length) in sorted(places):
        with open(os.path.join(folder, loc), "rb") as fh:
            fh.seek(off)
            data = fh.read(length)
        if data in contents and "--copies" not in argv:
            fail("the same bytes twice: %s and %s" % (places[(loc, off, length)], contents[data]))
        contents[data] = places[(loc, off, length)]
    for f in files:
        in_file = sorted((off, length) for (loc, off, length) in places if loc == f)
        for a, b in zip(in_file, in_file[1:]):
            if a[0] + a[1] > b[0]:
                fail("%s: places [%d, +%d) and [%d, +%d) overlap" % (f, a[0], a[1], b[0], b[1]))
        if max_len and sizes[f] > max_len and not (len(in_file) == 1 and in_file[0][1] > max_len):
            fail("%s: %d bytes, over the maximum %d, and not one payload longer than it (%s)"
                 % (f, sizes[f], max_len, in_file))
    loaded = onnx.load(path)
    all_tensors = []
    tensors_of_graph(loaded.graph, all_tensors)
    for t in all_tensors:
        if t.data_location == TensorProto.EXTERNAL:
            fail("%s: onnx.load left it external" % t.name)
        a = numpy_helper.to_array(t)
        if a.size != (int(np.prod(list(t.dims))) if len(t.dims) else 1):
            fail("%s: onnx.load gave %d elements" % (t.name, a.size))
    shared = sum(1 for v in places.values() if len(v) > 1)
    print("check_datafiles: ok: files=%d places=%d shared=%d largest=%d"
          % (len(files), len(places), shared, max(sizes[f] for f in files) if files else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
