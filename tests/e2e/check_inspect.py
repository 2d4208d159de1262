#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks of scs4onnx-inspect's JSON and HTML for the inspect suite
(tests/test_inspect.c). Each command prints "ok" when everything holds,
else one line per difference.

Usage:
    check_inspect.py get JSON KEY ...
        each KEY's value, one a line (JSON-encoded): KEY is dotted, a list
        element chosen by its index or by FIELD=VALUE
        ("constants.largest.name=B.bytes", "files.list.1.bytes").
    check_inspect.py nodes JSON MODEL
        the node counts by operator (main graph, and every graph, body and
        function) against python3-onnx's count of MODEL.
    check_inspect.py vs-optimize INSPECT.json OPTIMIZE.json
        the optimize dry run against scs4onnx-optimize's report: nodes
        before and after, rounds, each pass's changes and refusals, the
        constant bytes before and after.
    check_inspect.py vs-shrink INSPECT.json SHRINK.json INPUT.onnx OUTDIR
        "shrink would save" against what scs4onnx-shrink saved: the input's
        files (INPUT.onnx and the data files it names) less every file in
        OUTDIR, sizes on disk; and against the shrink report's figures.
    check_inspect.py treemap PAGE.html SHOT.png
        the page fetches nothing (no http: or https: reference, no
        external script, style or font); in the screenshot the treemap's
        rectangles of the three largest constants take pixels in
        proportion to their bytes (within 10 percent) and cover at least
        90 percent of the treemap's area (less their labels and borders).
"""

import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def lookup(doc, key):
    for part in key.split("."):
        if isinstance(doc, list) and part.isdigit():
            doc = doc[int(part)] if int(part) < len(doc) else None
        elif isinstance(doc, list):
            field, value = part.split("=", 1)
            found = [e for e in doc if str(e.get(field)) == value]
            if not found:
                return None
            doc = found[0]
        elif isinstance(doc, dict):
            doc = doc.get(part)
        else:
            return None
    return doc


def cmd_get(args):
    doc = json.load(open(args[0]))
    for key in args[1:]:
        print(json.dumps(lookup(doc, key)))


def count_graph(graph, main, hist_all, hist_main):
    import onnx
    for node in graph.node:
        key = node.op_type if node.domain in ("", "ai.onnx") else node.domain + ":" + node.op_type
        hist_all[key] += 1
        if main:
            hist_main[key] += 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                count_graph(attr.g, False, hist_all, hist_main)
            for g in attr.graphs:
                count_graph(g, False, hist_all, hist_main)


def cmd_nodes(args):
    import onnx
    doc = json.load(open(args[0]))
    model = onnx.load(args[1], load_external_data=False)
    hist_all, hist_main = collections.Counter(), collections.Counter()
    count_graph(model.graph, True, hist_all, hist_main)
    for f in model.functions:
        for node in f.node:
            key = node.op_type if node.domain in ("", "ai.onnx") else node.domain + ":" + node.op_type
            hist_all[key] += 1
    bad = []
    got = {e["op"]: e for e in doc["nodes"]["by_operator"]}
    for op in set(got) | set(hist_all):
        e = got.get(op, {"main": 0, "all": 0})
        if e["all"] != hist_all[op] or e["main"] != hist_main[op]:
            bad.append("%s: main %d all %d, onnx counts %d and %d" % (op, e["main"], e["all"], hist_main[op], hist_all[op]))
    if doc["nodes"]["all"] != sum(hist_all.values()) or doc["nodes"]["main"] != sum(hist_main.values()):
        bad.append("totals %d/%d, onnx counts %d/%d" % (doc["nodes"]["main"], doc["nodes"]["all"],
                                                      sum(hist_main.values()), sum(hist_all.values())))
    print("\n".join(bad) if bad else "ok")


def cmd_vs_optimize(args):
    ins = json.load(open(args[0]))["optimize"]
    rep = json.load(open(args[1]))
    opt = rep["optimize"]
    bad = []
    for k in ("nodes_before", "nodes_after", "rounds"):
        if ins[k] != opt[k]:
            bad.append("%s: %s, scs4onnx-optimize %s" % (k, ins[k], opt[k]))
    for k in ("constant_bytes_before", "constant_bytes_after"):
        if ins[k] != rep[k]:
            bad.append("%s: %s, scs4onnx-optimize %s" % (k, ins[k], rep[k]))
    if ins["nodes_removed"] != opt["nodes_before"] - opt["nodes_after"]:
        bad.append("nodes_removed %s" % ins["nodes_removed"])
    if ins["constant_bytes_freed"] != rep["constant_bytes_before"] - rep["constant_bytes_after"]:
        bad.append("constant_bytes_freed %s" % ins["constant_bytes_freed"])
    a = [(p["name"], p["changes"], p["left"]) for p in ins["passes"]]
    b = [(p["name"], p["changes"], p["left"]) for p in opt["passes"]]
    if a != b:
        bad.append("passes %s, scs4onnx-optimize %s" % (a, b))
    print("\n".join(bad) if bad else "ok")


def input_files(model_path):
    import onnx
    model = onnx.load(model_path, load_external_data=False)
    files = {os.path.abspath(model_path)}
    base = os.path.dirname(os.path.abspath(model_path))

    def tensors(graph):
        for t in graph.initializer:
            yield t
        for node in graph.node:
            for attr in node.attribute:
                if attr.HasField("t"):
                    yield attr.t
                if attr.HasField("g"):
                    yield from tensors(attr.g)
                for g in attr.graphs:
                    yield from tensors(g)
    for t in tensors(model.graph):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            for e in t.external_data:
                if e.key == "location":
                    files.add(os.path.join(base, e.value))
    return files


def cmd_vs_shrink(args):
    ins = json.load(open(args[0]))["shrink"]
    rep = json.load(open(args[1]))
    in_bytes = sum(os.path.getsize(f) for f in input_files(args[2]))
    out_bytes = sum(os.path.getsize(os.path.join(args[3], f)) for f in os.listdir(args[3]) if not f.endswith(".json"))
    bad = []
    if ins["input_bytes"] != in_bytes:
        bad.append("input_bytes %d, on disk %d" % (ins["input_bytes"], in_bytes))
    if ins["output_bytes"] != out_bytes:
        bad.append("output_bytes %d, scs4onnx-shrink wrote %d" % (ins["output_bytes"], out_bytes))
    if ins["saves"] != in_bytes - out_bytes:
        bad.append("saves %d, scs4onnx-shrink saved %d" % (ins["saves"], in_bytes - out_bytes))
    for k, r in (("input_bytes", "input_bytes"), ("output_model_bytes", "output_bytes"),
                 ("output_data_bytes", "output_data_bytes"), ("constant_bytes_before", "constant_bytes_before"),
                 ("constant_bytes_after", "constant_bytes_after")):
        if ins[k] != rep[r]:
            bad.append("%s %d, scs4onnx-shrink's report %d" % (k, ins[k], rep[r]))
    print("\n".join(bad) if bad else "ok")


def cmd_treemap(args):
    import png_colours
    page = open(args[0], encoding="utf-8").read()
    bad = []
    if re.search(r"https?:", page, re.I):
        bad.append("the page names an http(s) address")
    if re.search(r"<script[^>]*\bsrc=|<link\b|@import|url\(", page, re.I):
        bad.append("the page loads a script, style sheet, font or image")
    svg = re.search(r'<svg id="treemap" width="(\d+)" height="(\d+)"', page)
    if not svg:
        print("no treemap in the page")
        return
    area = int(svg.group(1)) * int(svg.group(2))
    rects = re.findall(r'<title>[^<]* (\d+) bytes</title><rect [^>]*fill="#([0-9a-f]{6})"', page)
    if len(rects) < 3:
        print("%d rectangles in the treemap, 3 wanted" % len(rects))
        return
    total = sum(int(b) for b, _ in rects)
    width, height, bpp, rows = png_colours.read_png(args[1])
    counts = png_colours.count(rows, width, bpp, [c for _, c in rects[:3]])
    covered = 0
    for (nbytes, colour), n in zip(rects[:3], counts):
        want = area * int(nbytes) / total
        covered += n
        if abs(n - want) > 0.1 * want:
            bad.append("#%s: %d pixels, %d wanted for %s bytes of %d" % (colour, n, want, nbytes, total))
    if len(rects) == 3 and covered < 0.9 * area:
        bad.append("the rectangles cover %d of the treemap's %d pixels" % (covered, area))
    print("\n".join(bad) if bad else "ok")


def main():
    cmds = {"get": cmd_get, "nodes": cmd_nodes, "vs-optimize": cmd_vs_optimize, "vs-shrink": cmd_vs_shrink,
            "treemap": cmd_treemap}
    cmds[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
