#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate src/onnx/opschema_table.c: the ONNX operator-schema facts (formal
inputs/outputs, type variables and the types they allow, attributes, input and
output count ranges) that the lossless downcast pass and the checker consult,
for every version of every operator up to the newest opset ONNX publishes.

Usage:
  scripts/gen-opschema.py CHANGELOG.md CHANGELOG-ML.md --origin TEXT [-o OUTPUT]

The inputs are ONNX's operator changelogs, docs/Changelog.md and
docs/Changelog-ml.md of the ONNX repository (github.com/onnx/onnx, Apache
License 2.0). They are not kept in this repository (Changelog.md is over
1 MiB); the table in src/onnx/opschema_table.c was made from the files of ONNX
commit f7546912001b (VERSION_NUMBER 1.23.0), whose SHA-256 sums the generated
file records. --origin is the text recorded as their origin (the ONNX commit
and version); OUTPUT defaults to src/onnx/opschema_table.c.

Only the markdown is read, by our own parser, not the onnx python package
(Debian's stops at opset 17). The layout it relies on, per operator version:

  ### <a name="[domain.]Op-N"></a>**[domain.]Op-N**</a>
  #### Attributes                   <dt><tt>name</tt> : int (default is 0)</dt>, : list of ints (required), ...
  #### Inputs (min - max)           <dl> of  <dt><tt>name</tt> (flags) : TYPE</dt>
  #### Outputs                      flags: optional, variadic, heterogeneous, ...
  #### Type Constraints             <dt><tt>T</tt> : tensor(float), seq(tensor(int64)), ...</dt>

and the section headers "## Version N of ... operator set", which give the
newest opset of each domain. "(min - max)" is there when the counts differ
(max "&#8734;" with a variadic last formal); without it both are the number of
formals. Anything else in the layout stops the generator
with a message rather than being guessed at. The output is sorted by
(domain, op_type, since_version) in byte order so that the C side can
binary-search it; the same inputs always give the same bytes.
"""

import argparse
import hashlib
import os
import re
import sys

# TensorProto.DataType numbers (onnx.proto); the changelogs name types by these spellings.
ELEM = {
	"float": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
	"string": 8, "bool": 9, "float16": 10, "double": 11, "uint32": 12, "uint64": 13,
	"complex64": 14, "complex128": 15, "bfloat16": 16, "float8e4m3fn": 17,
	"float8e4m3fnuz": 18, "float8e5m2": 19, "float8e5m2fnuz": 20, "uint4": 21, "int4": 22,
	"float4e2m1": 23, "float8e8m0": 24, "uint2": 25, "int2": 26,
}

DOMAINS = ("ai.onnx.preview.training", "ai.onnx.preview", "ai.onnx.ml")
HEADING = re.compile(r'^### <a name="([A-Za-z0-9_.]+)-(\d+)"></a>')
SECTION = re.compile(r"^#### (Version|Attributes|Inputs|Outputs|Type Constraints)\b(?: \((\d+) - (\d+|&#8734;)\))?")
VERSION = re.compile(r"^## Version (\d+) of (?:the default ONNX|the '([a-z.]+)') operator set$")
ENTRY = re.compile(r"^<dt><tt>([A-Za-z0-9_]+(?:\.\.\.)?)</tt>(?: \(([a-z, -]+)\))? : (.+)</dt>$")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
TENSOR = re.compile(r"^tensor\(([a-z0-9]+)\)$")
FLAGS = {"optional", "variadic", "heterogeneous", "differentiable", "non-differentiable"}
ATTR = re.compile(r"^<dt><tt>([A-Za-z0-9_]+)</tt> : ([a-z_ ]+?)(?: \((required)\)| \(default is .*\))?</dt>$")
INT_MAX = 2147483647

# AttributeProto.AttributeType numbers, by the spelling ONNX's documentation
# generator gives each (the lower-case enum name; "list of" + it for the plural ones).
ATTR_TYPES = {
	"float": 1, "int": 2, "string": 3, "tensor": 4, "graph": 5, "sparse_tensor": 11,
	"type_proto": 13, "list of floats": 6, "list of ints": 7, "list of strings": 8,
	"list of tensors": 9, "list of graphs": 10, "list of sparse_tensors": 12,
	"list of type_protos": 14,
}

# Schemas that accept attributes they do not declare (ONNX's AllowUncheckedAttributes);
# the changelogs do not show this, so it is listed here from ONNX's sources.
ANY_ATTRS = {("", "LayerNormalization", 17)}


def die(where, msg):
	sys.exit("gen-opschema: %s: %s" % (where, msg))


class Schema:
	def __init__(self, domain, op, since, where):
		self.domain, self.op, self.since, self.where = domain, op, since, where
		self.inputs, self.outputs, self.tcs, self.attrs = [], [], [], []
		self.deprecated = 0
		self.ranges = {}      # "Inputs"/"Outputs" -> (min, max) from the section header


def split_types(text):
	"""'tensor(a), seq(tensor(b)), map(int64, float)' -> its members."""
	out, depth, cur = [], 0, ""
	for ch in text:
		if ch == "," and depth == 0:
			out.append(cur.strip())
			cur = ""
			continue
		depth += ch == "("
		depth -= ch == ")"
		cur += ch
	out.append(cur.strip())
	return out


def parse(path, default_domain):
	"""The schemas of one changelog, and {domain: newest opset} from its section headers."""
	schemas, newest = [], {}
	cur, section = None, None
	with open(path, encoding="utf-8") as fp:
		for lineno, line in enumerate(fp, 1):
			line = line.rstrip("\n")
			where = "%s:%d" % (os.path.basename(path), lineno)
			m = VERSION.match(line)
			if m:
				dom = m.group(2) or default_domain
				newest[dom] = max(newest.get(dom, 0), int(m.group(1)))
				cur, section = None, None
				continue
			m = HEADING.match(line)
			if m:
				name, dom = m.group(1), default_domain
				for d in DOMAINS:
					if name.startswith(d + "."):
						name, dom = name[len(d) + 1:], d
				if not IDENT.match(name):
					die(where, "operator name %r" % name)
				cur, section = Schema(dom, name, int(m.group(2)), where), None
				cur.deprecated = int("** (deprecated)</a>" in line)
				schemas.append(cur)
				continue
			if line.startswith("#"):
				m = SECTION.match(line)
				section = m.group(1) if m and cur else None
				if section and m.group(2):
					if section not in ("Inputs", "Outputs"):
						die(where, "a count range on %s" % section)
					hi = INT_MAX if m.group(3) == "&#8734;" else int(m.group(3))
					cur.ranges[section] = (int(m.group(2)), hi)
				continue
			if cur is None or section not in ("Attributes", "Inputs", "Outputs", "Type Constraints"):
				continue
			if not line.startswith("<dt>"):
				continue
			if section == "Attributes":
				m = ATTR.match(line)
				if not m:
					die(where, "unexpected attribute entry %r" % line)
				if m.group(2) not in ATTR_TYPES:
					die(where, "unknown attribute type %r" % m.group(2))
				cur.attrs.append((m.group(1), ATTR_TYPES[m.group(2)], int(m.group(3) is not None)))
				continue
			m = ENTRY.match(line)
			if not m:
				die(where, "unexpected entry %r" % line)
			name, flags, typ = m.group(1), m.group(2), m.group(3)
			if section == "Type Constraints":
				if flags:
					die(where, "flags on type constraint %s" % name)
				cur.tcs.append((name, split_types(typ)))
				continue
			flags = set(f.strip() for f in flags.split(",")) if flags else set()
			if flags - FLAGS:
				die(where, "unknown flags %s" % sorted(flags - FLAGS))
			(cur.inputs if section == "Inputs" else cur.outputs).append((name, flags, typ))
	return schemas, newest


def type_bits(member, where):
	"""(tensor mask bit, 1 if the member is not a plain tensor type) for one type string."""
	m = TENSOR.match(member)
	if m:
		if m.group(1) not in ELEM:
			die(where, "unknown element type %r" % member)
		return 1 << ELEM[m.group(1)], 0
	if re.match(r"^(seq|optional|map|sparse_tensor)\(", member):
		return 0, 1
	die(where, "unknown type %r" % member)


def c_str(s):
	if s and not re.match(r"^[A-Za-z0-9_.]+$", s):
		die("output", "unexpected identifier %r" % s)
	return '"' + s + '"'


def arg_row(s, formal, tv_index, is_last):
	"""C initializer for one scs_opschema_arg."""
	name, flags, typ = formal
	name = name.rstrip(".")      # "outputs..." (Split-1) names a variadic formal
	variadic = int("variadic" in flags)
	if variadic and not is_last:
		die(s.where, "variadic formal %s is not last" % name)
	if typ in tv_index:
		tv, concrete, container = tv_index[typ], 0, 0
	elif IDENT.match(typ):
		die(s.where, "formal %s names unknown type variable %s" % (name, typ))
	else:
		tv = -1
		concrete, container = type_bits(typ, s.where)
	return "\t{ %s, %2d, 0x%x, %d, %d, %d, %d }," % (
		c_str(name), tv, concrete, container, variadic, int("optional" in flags),
		int("heterogeneous" in flags))


def count_range(s, section, formals):
	"""(min, max) actual arguments: the changelog's "(min - max)", else onnx's rule
	(min: the formals up to the last single one, a variadic counting its minimum
	arity, 1; max: the formals, unbounded with a variadic last), which must agree
	with the header where one is given."""
	lo = hi = 0
	for name, flags, typ in formals:
		if "variadic" in flags:
			lo, hi = hi + 1, INT_MAX
		elif "optional" in flags:
			hi += 1
		else:
			hi += 1
			lo = hi
	if section not in s.ranges:
		if lo != hi:
			die(s.where, "%s: no count range given, but the formals allow %d - %d" % (section, lo, hi))
		return lo, hi
	given = s.ranges[section]
	variadic = hi == INT_MAX
	# A variadic's minimum arity (0 or more) is only in the header: its min may be lower.
	if given[1] != hi or (given[0] != lo and not (variadic and given[0] < lo)):
		die(s.where, "%s: the header says %d - %d, the formals %d - %d" % (section, given[0], given[1], lo, hi))
	return given


def c_bound(n):
	return "INT_MAX" if n == INT_MAX else str(n)


def sha256(path):
	with open(path, "rb") as fp:
		return hashlib.sha256(fp.read()).hexdigest()


def main():
	ap = argparse.ArgumentParser(description="Generate src/onnx/opschema_table.c from ONNX's changelogs.")
	ap.add_argument("changelog")
	ap.add_argument("changelog_ml")
	ap.add_argument("--origin", required=True, help="where the files come from (ONNX commit and version)")
	ap.add_argument("-o", "--output", default="src/onnx/opschema_table.c")
	args = ap.parse_args()

	schemas, newest = parse(args.changelog, "")
	ml, newest_ml = parse(args.changelog_ml, "ai.onnx.ml")
	schemas += ml
	for dom, v in newest_ml.items():
		newest[dom] = max(newest.get(dom, 0), v)
	schemas.sort(key=lambda s: (s.domain.encode(), s.op.encode(), s.since))
	keys = [(s.domain, s.op, s.since) for s in schemas]
	if len(set(keys)) != len(keys):
		die("input", "duplicate (domain, op_type, since_version)")
	for s in schemas:
		if s.since > newest.get(s.domain, 0):
			die(s.where, "%s-%d is newer than its domain's newest opset" % (s.op, s.since))
		if len(s.inputs) > 255 or len(s.outputs) > 255 or len(s.tcs) > 255:
			die(s.where, "too many formals")

	arg_lines, tv_lines, attr_lines, schema_lines = [], [], [], []
	n_args = n_tvs = n_attrs = 0
	for s in schemas:
		label = "%s%s-%d" % (s.domain + ":" if s.domain else "", s.op, s.since)
		tv_index = {}
		tv_base = n_tvs
		if s.tcs:
			tv_lines.append("\t/* [%d] %s */" % (tv_base, label))
		for name, members in s.tcs:
			if name in tv_index:
				die(s.where, "type variable %s given twice" % name)
			tv_index[name] = len(tv_index)
			mask = container = 0
			for t in members:
				bit, cont = type_bits(t, s.where)
				mask |= bit
				container |= cont
			tv_lines.append("\t{ %s, 0x%x, %d }," % (c_str(name), mask, container))
			n_tvs += 1
		in_base = n_args
		if s.inputs or s.outputs:
			arg_lines.append("\t/* [%d] %s */" % (in_base, label))
		for i, f in enumerate(s.inputs):
			arg_lines.append(arg_row(s, f, tv_index, i == len(s.inputs) - 1))
			n_args += 1
		out_base = n_args
		for i, f in enumerate(s.outputs):
			arg_lines.append(arg_row(s, f, tv_index, i == len(s.outputs) - 1))
			n_args += 1
		attrs = sorted(s.attrs, key=lambda a: a[0].encode())
		if len({a[0] for a in attrs}) != len(attrs):
			die(s.where, "an attribute given twice")
		if len(attrs) > 255:
			die(s.where, "too many attributes")
		attr_base = n_attrs
		if attrs:
			attr_lines.append("\t/* [%d] %s */" % (attr_base, label))
		for name, typ, req in attrs:
			attr_lines.append("\t{ %s, %d, %d }," % (c_str(name), typ, req))
			n_attrs += 1
		in_range = count_range(s, "Inputs", s.inputs)
		out_range = count_range(s, "Outputs", s.outputs)
		key = (s.domain, s.op, s.since)
		schema_lines.append("\t{ %s, %s, %d, %d, %d, %d, %d, %s, %s, %s, %d, %s, %s, %s, %s, %s, %d }," % (
			c_str(s.domain), c_str(s.op), s.since, len(s.inputs), len(s.outputs), len(s.tcs),
			s.deprecated,
			"A + %d" % in_base if s.inputs else "NULL",
			"A + %d" % out_base if s.outputs else "NULL",
			"V + %d" % tv_base if s.tcs else "NULL",
			len(attrs), "T + %d" % attr_base if attrs else "NULL",
			c_bound(in_range[0]), c_bound(in_range[1]), c_bound(out_range[0]), c_bound(out_range[1]),
			int(key in ANY_ATTRS)))
	missing = ANY_ATTRS - {(s.domain, s.op, s.since) for s in schemas}
	if missing:
		die("ANY_ATTRS", "no such schema %s" % sorted(missing))

	n_ops = len({(s.domain, s.op) for s in schemas})
	sources = [(args.changelog, "Changelog.md"), (args.changelog_ml, "Changelog-ml.md")]
	out = ["/*",
		" * src/onnx/opschema_table.c - ONNX operator schemas as C data, for opschema.c.",
		" *",
		" * GENERATED by scripts/gen-opschema.py from ONNX's operator changelogs:"]
	for path, label in sources:
		out.append(" *   %s (%d bytes, SHA-256 %s)" % (label, os.path.getsize(path), sha256(path)))
	out += [" * of %s (Apache License 2.0)." % args.origin,
		" * Do not edit by hand: re-run the generator instead.",
		" * SPDX-License-Identifier: MIT",
		" *",
		" * %d schemas of %d operators, sorted by (domain, op_type, since_version)." % (len(schemas), n_ops),
		" * Newest opsets: %s." % ", ".join("%s %d" % (d or "ai.onnx", v) for d, v in sorted(newest.items())),
		" * Schema rows are { domain, op_type, since_version, n_inputs, n_outputs, n_type_vars,",
		" * deprecated, inputs, outputs, type_vars, n_attrs, attrs, min_inputs, max_inputs,",
		" * min_outputs, max_outputs, any_attrs }.",
		" * Argument rows are { name, type_var, concrete mask, container, variadic, optional,",
		" * heterogeneous }; type variable rows are { name, allowed mask, container }; masks hold",
		" * bit (1 << TensorProto.DataType) per allowed tensor element type; container is 1",
		" * where a seq, optional or map type is allowed. Attribute rows are { name,",
		" * AttributeProto.AttributeType, required }, sorted by name within a schema.",
		" */",
		"",
		"#include <limits.h>",
		"",
		'#include "onnx/opschema.h"',
		"",
		"static const scs_opschema_arg A[] = {"]
	out += arg_lines
	out += ["};", "", "static const scs_opschema_typevar V[] = {"]
	out += tv_lines
	out += ["};", "", "static const scs_opschema_attr T[] = {"]
	out += attr_lines
	out += ["};", "", "const scs_opschema scs_opschema_table[] = {"]
	out += schema_lines
	out += ["};", "",
		"const size_t scs_opschema_table_len = sizeof(scs_opschema_table) / sizeof(scs_opschema_table[0]);",
		"",
		"const scs_opschema_domain scs_opschema_domains[] = {"]
	out += ["\t{ %s, %d }," % (c_str(d), v) for d, v in sorted(newest.items())]
	out += ["};", "",
		"const size_t scs_opschema_domains_len = sizeof(scs_opschema_domains) / sizeof(scs_opschema_domains[0]);",
		""]
	with open(args.output, "w", encoding="ascii", newline="\n") as fp:
		fp.write("\n".join(out))
	sys.stderr.write("gen-opschema: %d schemas, %d operators, %d args, %d type vars, %d attributes, newest %s -> %s\n"
		% (len(schemas), n_ops, n_args, n_tvs, n_attrs, newest, args.output))
	return 0


if __name__ == "__main__":
	sys.exit(main())
