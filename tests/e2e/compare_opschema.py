#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Hold our operator-schema table against the onnx package's own schemas.

Usage:
    /usr/bin/python3 compare_opschema.py OPSCHEMA-DUMP

OPSCHEMA-DUMP is the tests' opschema-dump tool; its --schemas lines give, per
table entry, the attributes (name, AttributeProto.AttributeType, required),
the input and output count ranges and whether any attribute is accepted. For
every schema onnx knows (onnx.defs.get_all_schemas_with_history(): each
version of each operator up to the opsets of the installed onnx), prints one
line per difference:

    DIFF domain:Op-N FIELD: ours X, onnx Y

(FIELD: missing, inputs, outputs, attr NAME, any_attrs; "missing" also for a
table entry within onnx's opset limits that onnx does not have) and last a
line "compared N schemas, M attributes". Whether a schema accepts undeclared
attributes is not in onnx's python API: it is probed through onnx.checker on a
node with the schema's minimum counts and one attribute no schema declares.
Needs the Debian package python3-onnx. Exit status 0 unless the dump fails.
"""

import json
import subprocess
import sys

import onnx
from onnx import checker, defs, helper

PROBE = "scs_undeclared_probe"


def accepts_any_attribute(s):
    """1 when onnx.checker lets a node of @s carry an attribute it does not declare."""
    node = helper.make_node(s.name, ["i%d" % k for k in range(s.min_input)],
                            ["o%d" % k for k in range(max(s.min_output, 1))], domain=s.domain)
    node.attribute.extend([helper.make_attribute(PROBE, 1)])
    ctx = checker.C.CheckerContext()
    ctx.ir_version = onnx.IR_VERSION
    ctx.opset_imports = {s.domain: s.since_version}
    try:
        checker.check_node(node, ctx)
    except checker.ValidationError as e:
        return int("Unrecognized attribute: " + PROBE not in str(e))
    return 1


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: compare_opschema.py OPSCHEMA-DUMP\n")
        return 2
    dump = subprocess.run([argv[1], "--schemas"], check=True, capture_output=True, text=True).stdout
    ours = {}
    for line in dump.splitlines():
        e = json.loads(line)
        ours[(e["domain"], e["op"], e["since"])] = e
    n_schemas = n_attrs = 0
    for s in sorted(defs.get_all_schemas_with_history(), key=lambda s: (s.domain, s.name, s.since_version)):
        key = (s.domain, s.name, s.since_version)
        label = "%s:%s-%d" % key
        n_schemas += 1
        e = ours.get(key)
        if e is None:
            print("DIFF %s missing: ours none, onnx %s" % (label, "deprecated" if s.deprecated else "a schema"))
            continue
        for field, theirs in (("inputs", [s.min_input, s.max_input]), ("outputs", [s.min_output, s.max_output])):
            if e[field] != theirs:
                print("DIFF %s %s: ours %s, onnx %s" % (label, field, e[field], theirs))
        mine = {a[0]: (a[1], a[2]) for a in e["attrs"]}
        theirs = {name: (int(a.type), int(a.required)) for name, a in s.attributes.items()}
        for name in sorted(set(mine) | set(theirs)):
            n_attrs += 1
            if mine.get(name) != theirs.get(name):
                print("DIFF %s attr %s: ours %s, onnx %s" % (label, name,
                      "%d/%d" % mine[name] if name in mine else "none",
                      "%d/%d" % theirs[name] if name in theirs else "none"))
        if not s.deprecated:
            any_attrs = accepts_any_attribute(s)
            if e["any_attrs"] != any_attrs:
                print("DIFF %s any_attrs: ours %d, onnx %d" % (label, e["any_attrs"], any_attrs))
    limits = defs.C.schema_version_map()
    known = {(s.domain, s.name, s.since_version) for s in defs.get_all_schemas_with_history()}
    for key in sorted(ours):
        if key not in known and key[0] in limits and key[2] <= limits[key[0]][1]:
            print("DIFF %s:%s-%d missing: ours a schema, onnx none" % key)
    print("compared %d schemas, %d attributes" % (n_schemas, n_attrs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
