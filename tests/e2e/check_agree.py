#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Does scs4onnx-check agree with onnx.checker?

Usage:
    /usr/bin/python3 check_agree.py --tool SCS4ONNX_CHECK [--expect MANIFEST]
        [--known LIST] [--plain-only] [--flat] [--skip PREFIX] PATH [PATH ...]

Each PATH is a model file or a folder (every *.onnx under it, recursively;
with --flat only those in the folder itself; --skip leaves out the files
whose names begin with PREFIX).
For each model the version of onnx installed knows (IR version and every
opset import of the model and its functions within what that onnx knows;
other domains are not limited), onnx.checker.check_model is run by path in
both modes (full_check=False and True; the full check runs its shape
inference into /dev/null, never over the model), and the tool runs once,
with --full --json: its verdict without --full is its items other than
rule "infer" (the rule only --full adds; on the conformance suite and every
fixture, the same lines a run without --full prints). A model the tool
refuses in plain mode is refused with --full too.

Prints one line per disagreement:
    DISAGREE MODE MODEL: onnx: VERDICT[: MESSAGE] | ours: VERDICT[: FIRST LINE]
and a summary:
    check_agree: models N, known K, agreed A, refused by both R, full agreed
    FA, full refused by both FR, disagreements D, skipped S (REASONS)
    [, broken B, as expected E]

--expect MANIFEST names models broken on purpose (lines "FILE RULE
ONNX_PLAIN ONNX_FULL DESCRIPTION", FILE relative to the manifest's folder,
ONNX_* "refuse" or "accept": onnx.checker's verdict, recorded). Each such
model (the tool run without --full too, for its own count of lines) must
be refused by the tool without --full with exactly one problem,
of rule RULE (rule "infer": valid without --full, one problem with it;
rule "none": a valid model, no problem in either mode), and refused with
--full; onnx.checker's verdicts must be the recorded ones.
Where onnx accepts a model the tool refuses (a rule onnx.checker does not
have), that is not a disagreement: the manifest says so. A model of the
manifest the folders do not reach is checked all the same.

--known LIST names disagreements not resolved yet (lines "MODEL MODE WHY":
MODEL the end of a model's path, "bk_unsorted.onnx" or
"test_PixelShuffle/model.onnx"; MODE plain, full or run): such a
disagreement prints as KNOWN and does not count; an entry whose model runs
and agrees now prints as STALE and counts as a disagreement, so the list
only shrinks. The summary then ends ", known disagreements K" (with
--expect, ", broken B, as expected E, known KB" first: KB the broken
models whose only disagreements are known).

Exit status: 0 when nothing disagrees, 1 otherwise, 2 on bad usage.
Needs the Debian package python3-onnx.
"""

import json
import os
import subprocess
import sys
import tempfile

import onnx
import onnx.defs
from onnx import onnx_cpp2py_export as C

RULES = ("model", "operator", "arity", "attribute", "order", "ssa", "value-info", "tensor",
         "external-data", "sparse", "function", "infer")


def known_opsets():
    """The newest opset of each domain this onnx has schemas for."""
    newest = {}
    for s in onnx.defs.get_all_schemas_with_history():
        newest[s.domain] = max(newest.get(s.domain, 0), s.since_version)
    newest[""] = max(newest.get("", 0), onnx.defs.onnx_opset_version())
    newest["ai.onnx"] = newest[""]
    newest.setdefault("ai.onnx.training", 1)
    return newest


def models_under(path, flat, skip):
    if not os.path.isdir(path):
        yield path
        return
    for root, dirs, files in os.walk(path, followlinks=True):
        dirs.sort()
        if flat:
            dirs.clear()
        for f in sorted(files):
            if f.endswith(".onnx") and not (skip and f.startswith(skip)):
                yield os.path.join(root, f)


def why_unknown(path, newest):
    """None when this onnx knows the model, else why not. A file onnx cannot
    parse is known (onnx.checker refuses it)."""
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception:  # DecodeError and the like: the checker's verdict is a refusal
        return None
    if m.ir_version > onnx.IR_VERSION:
        return "IR newer than %d" % onnx.IR_VERSION
    imports = list(m.opset_import)
    for f in m.functions:
        imports += list(f.opset_import)
    for op in imports:
        top = newest.get(op.domain)
        if top is not None and op.version > top:
            return "opset newer than %s %d" % (op.domain or "ai.onnx", top)
    types = set(onnx.TensorProto.DataType.values())
    for t in tensors_of(m):
        if t.data_type not in types:
            return "a data type newer than this onnx"
    return None


def tensors_of(m):
    """Every tensor of @m: initializers (sparse ones' values and indices) and
    attribute tensors, in every graph, body and function."""
    def graph(g):
        yield from g.initializer
        for sp in g.sparse_initializer:
            yield sp.values
            yield sp.indices
        yield from nodes(g.node)

    def nodes(ns):
        for n in ns:
            for a in n.attribute:
                if a.HasField("t"):
                    yield a.t
                yield from a.tensors
                if a.HasField("g"):
                    yield from graph(a.g)
                for g in a.graphs:
                    yield from graph(g)

    yield from graph(m.graph)
    for f in m.functions:
        yield from nodes(f.node)


def one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def onnx_verdicts(path):
    """onnx.checker's message in each mode (None: valid). The full check is
    check_model(path, full_check=True) without its write over the model."""
    try:
        C.checker.check_model_path(path)
    except Exception as exc:
        msg = one_line(exc)
        return msg, msg
    try:
        C.shape_inference.infer_shapes_path(path, os.devnull, True, True, False)
    except Exception as exc:
        return None, one_line(exc)
    return None, None


class Ours:
    """The tool's verdict: its items, the exit status, the first line."""

    def __init__(self, tool, path, full, scratch):
        js = os.path.join(scratch, "check.json")
        args = [tool, path, "--json", js, "-n"] + (["--full"] if full else [])
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.status = p.returncode
        self.lines = [l for l in p.stdout.decode("utf-8", "replace").splitlines() if l.strip()]
        self.stderr = " ".join(p.stderr.decode("utf-8", "replace").split())
        self.items = None
        try:
            with open(js) as f:
                doc = json.load(f)
            self.items = doc.get("problems", doc.get("items"))
            os.unlink(js)
        except (OSError, ValueError, AttributeError):
            pass
        if self.items is None:     # no JSON: the rule from each line
            self.items = [{"rule": rule_of(l), "line": l} for l in self.lines]
        for i, it in enumerate(self.items):
            it.setdefault("line", self.lines[i] if i < len(self.lines) else str(it))

    def failed(self):
        """A crash or a usage error: no verdict."""
        if self.status not in (0, 1):
            return "exit %d: %s" % (self.status, self.stderr)
        if self.status == 1 and not self.items and not self.lines:
            return "exit 1 with no problem named: %s" % self.stderr
        if self.status == 0 and self.items:
            return "exit 0 with %d problems" % len(self.items)
        return None

    def plain(self):
        return [it for it in self.items if it.get("rule") != "infer"]


def rule_of(line):
    for r in RULES:
        if (": %s: " % r) in line:
            return r
    return None


def verdict(msg):
    return "valid" if msg is None else "refused: " + msg


def ours_verdict(items):
    return "valid" if not items else "refused: %s" % items[0]["line"]


def read_manifest(path):
    expect = {}
    base = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, rule, plain, full, what = line.rstrip("\n").split(" ", 4)
            expect[os.path.join(base, name)] = (rule, plain, full, what)
    return expect


def read_known(path):
    known = {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                model, mode, why = (line.rstrip("\n").split(" ", 2) + [""])[:3]
                known[(model, mode)] = why
    return known


def known_entry(known, path, mode):
    for (model, m) in known:
        if m == mode and (path == model or path.endswith("/" + model)):
            return (model, m)
    return None


def main(argv):
    tool, manifest, known_list, plain_only, flat, skip, paths = None, None, None, False, False, None, []
    it = iter(argv[1:])
    for a in it:
        if a == "--tool":
            tool = next(it, None)
        elif a == "--expect":
            manifest = next(it, None)
        elif a == "--known":
            known_list = next(it, None)
        elif a == "--plain-only":
            plain_only = True
        elif a == "--flat":
            flat = True
        elif a == "--skip":
            skip = next(it, None)
        elif a.startswith("-"):
            paths = None
            break
        else:
            paths.append(a)
    if not tool or paths is None or (not paths and not manifest):
        sys.stderr.write("usage: check_agree.py --tool SCS4ONNX_CHECK [--expect MANIFEST] [--known LIST] [--plain-only] [--flat] "
                         "[--skip PREFIX] PATH ...\n")
        return 2
    if not os.access(tool, os.X_OK):
        sys.stderr.write("check_agree.py: %s: no such program\n" % tool)
        return 2
    expect = read_manifest(manifest) if manifest else {}
    known = read_known(known_list) if known_list else {}
    seen_known = set()
    newest = known_opsets()
    models = []
    for p in paths:
        models += [os.path.abspath(m) for m in models_under(p, flat, skip)]
    seen = set(models)
    models += sorted(m for m in expect if m not in seen)

    count = dict.fromkeys(("models", "known", "plain agreed", "plain both", "full agreed", "full both",
                           "disagree", "known disagree", "broken", "as expected", "broken known"), 0)
    skipped = {}
    out = []

    def disagreement(mode, path, theirs, ours_text):
        """Count and print one; True when the known list has it."""
        entry = known_entry(known, path, mode)
        if entry is not None:
            seen_known.add(entry)
            count["known disagree"] += 1
        else:
            count["disagree"] += 1
        out.append("%s %s %s: onnx: %s | ours: %s" % ("KNOWN" if entry else "DISAGREE", mode, path, theirs, ours_text))
        return entry is not None

    def judge(mode, path, theirs, mine):
        """Plain agreement: both refuse or both pass."""
        if (theirs is None) == (not mine):
            count[mode + " agreed"] += 1
            count[mode + " both"] += theirs is not None
        else:
            disagreement(mode, path, verdict(theirs), ours_verdict(mine))

    def judge_broken(path, exp, theirs, mine_plain, mine_full):
        """A model broken on purpose: onnx's recorded verdicts, our one line."""
        rule, recorded, what = exp[0], {"plain": exp[1], "full": exp[2]}, exp[3]
        ok, all_known = True, True
        for mode in ("plain",) if plain_only else ("plain", "full"):
            if (theirs[mode] is None) != (recorded[mode] == "accept"):
                ok = False
                all_known &= disagreement(mode, path, verdict(theirs[mode]),
                             "recorded onnx.checker verdict: %s (%s)" % (recorded[mode], what))
        want = 0 if rule in ("infer", "none") else 1
        if len(mine_plain) != want or (want and mine_plain[0].get("rule") != rule):
            ok = False
            all_known &= disagreement("plain", path, verdict(theirs["plain"]), "expected %d problem(s) of rule %s (%s), got %d: %s"
                         % (want, rule, what, len(mine_plain), " / ".join(i["line"] for i in mine_plain)))
        want_full = {"none": 0, "infer": 1}.get(rule)
        if not plain_only and (not mine_full if want_full is None else len(mine_full) != want_full):
            ok = False
            all_known &= disagreement("full", path, verdict(theirs["full"]), "expected %s (%s), got: %s"
                         % ("no problem" if rule == "none" else "a refusal of rule " + rule, what,
                            " / ".join(i["line"] for i in mine_full) or "valid"))
        count["broken"] += 1
        count["as expected"] += ok
        count["broken known"] += not ok and all_known
        return ok

    with tempfile.TemporaryDirectory(prefix="check_agree.") as scratch:
        for path in models:
            count["models"] += 1
            why = why_unknown(path, newest)
            if why is not None:
                skipped[why] = skipped.get(why, 0) + 1
                continue
            count["known"] += 1
            theirs = dict(zip(("plain", "full"), onnx_verdicts(path)))
            ours = Ours(tool, path, not plain_only, scratch)
            bad = ours.failed()
            modes = {"run"} | ({"plain"} if plain_only else {"plain", "full"})
            stale = [e for e in (known_entry(known, path, m) for m in modes) if e is not None]
            if bad:
                if path in expect:
                    count["broken"] += 1
                    count["broken known"] += disagreement("run", path, verdict(theirs["plain"]), "the tool failed: " + bad)
                else:
                    disagreement("run", path, verdict(theirs["plain"]), "the tool failed: " + bad)
            elif path in expect:
                # the line count is the plain run's own, not --full's items less "infer"
                plain = Ours(tool, path, False, scratch) if not plain_only else ours
                if plain.failed():
                    count["broken"] += 1
                    count["broken known"] += disagreement("run", path, verdict(theirs["plain"]),
                                                          "the tool failed without --full: " + plain.failed())
                else:
                    judge_broken(path, expect[path], theirs, plain.items, ours.items)
            else:
                judge("plain", path, theirs["plain"], ours.plain())
                if not plain_only:
                    judge("full", path, theirs["full"], ours.items)
            for e in stale:
                if e not in seen_known:
                    count["disagree"] += 1
                    out.append("STALE %s %s: agrees now: remove \"%s %s\" from %s" % (e[1], path, e[0], e[1], known_list))
    for line in out:
        print(line)
    reasons = ", ".join("%s: %d" % (k, v) for k, v in sorted(skipped.items()))
    summary = ("check_agree: models %d, known %d, agreed %d, refused by both %d, full agreed %d, "
               "full refused by both %d, disagreements %d, skipped %d (%s)"
               % (count["models"], count["known"], count["plain agreed"], count["plain both"], count["full agreed"],
                  count["full both"], count["disagree"], sum(skipped.values()), reasons or "none"))
    if expect:
        summary += ", broken %d, as expected %d" % (count["broken"], count["as expected"])
    if known:
        if expect:
            summary += ", known %d" % count["broken known"]
        summary += ", known disagreements %d" % count["known disagree"]
    print(summary)
    return 1 if count["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
