#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Take every model of ONNX's conformance suite through the five tools.

Usage:
    /usr/bin/python3 conformance.py --tools BUILD/tools
        [--data /usr/share/libonnx-testdata/data] [--known conformance-known.txt]
        [--jobs 2] [--only SUBSTRING] [--only-tools shrink,optimize] [--work DIR] [--keep]

For every folder DATA/*/*/ with a model.onnx and test_data_set_0/, in a
scratch folder under $TMPDIR:

  shrink  scs4onnx-shrink M s.onnx; run twice: the same bytes; run on its own
          output: the same bytes (a fixed point).
  split   scs4onnx-split M sp/ --max-shard-size 1 (one node a shard, every
          initializer in external data); run twice: the same files.
  merge   scs4onnx-merge sp/ m.onnx; run twice: the same bytes;
          merge(split(m.onnx)) gives m.onnx again.
  big     scs4onnx-big M b.onnx --max-shard-size 1; run twice: the same
          bytes; run on its own output: the same bytes.
  optimize
          scs4onnx-optimize M o.onnx (the default passes); run twice: the
          same bytes; run on its own output: the same bytes (a fixed point).

Then conformance.mjs (one node process, fed as the tools finish) runs the
original in ONNX Runtime on test_data_set_0/input_*.pb, and each output model
(the shards as a chain) on the same inputs: outputs must be bit-identical.
Models ORT cannot feed or run in their original form are skipped (counted).

A tool run ends one of three ways: done (exit 0, nothing on stderr with -n);
refused (exit 1, one line "TOOL: error: ..."); or failed (any other exit, a
signal, a sanitizer report, a hang). A refused valid model is a defect, so it
fails the run like a failure unless the known list (KNOWN: "MODEL TOOL
REASON" lines, '#' comments) names that model and tool. Entries that no
longer match anything are listed as stale.

Prints every problem, then one summary line; exit status 0 when nothing
unlisted went wrong, 1 otherwise, 2 on bad usage.
"""

import argparse
import concurrent.futures
import filecmp
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

TOOLS = ("shrink", "split", "merge", "big", "optimize")
BUDGET = ["--max-shard-size", "1"]
TOOL_TIMEOUT = 120
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


class Problem(Exception):
    """A tool run that did not end as it must: kind is 'refused' or 'failed'."""

    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind
        self.msg = msg


def run_tool(tools_dir, tool, args):
    """Run scs4onnx-TOOL quietly; raise Problem unless it exits 0 silently."""
    exe = os.path.join(tools_dir, "scs4onnx-" + tool)
    try:
        p = subprocess.run([exe] + args + ["-n"], input=b"", stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=TOOL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise Problem("failed", "%s: no answer after %d s" % (tool, TOOL_TIMEOUT)) from None
    err = p.stderr.decode("utf-8", "replace")
    lines = err.splitlines()
    if any(mark in err for mark in SANITIZER_MARKS):
        first = next(l for l in lines if any(mark in l for mark in SANITIZER_MARKS))
        raise Problem("failed", "%s: sanitizer: %s" % (tool, first.strip()))
    if p.returncode < 0:
        raise Problem("failed", "%s: killed by %s%s" % (tool, signal.Signals(-p.returncode).name,
                                                       (": " + lines[-1]) if lines else ""))
    if p.returncode == 1 and len(lines) == 1 and lines[0].startswith("scs4onnx-%s: error: " % tool):
        raise Problem("refused", lines[0])
    if p.returncode != 0 or err:
        raise Problem("failed", "%s: exit %d: %s" % (tool, p.returncode, " | ".join(lines[:3]) or "no message"))


def data_file(model):
    """The data file beside an output model ("MODEL.<16 hex>.data"), or None."""
    base = os.path.basename(model)
    found = [n for n in os.listdir(os.path.dirname(model) or ".")
             if re.fullmatch(re.escape(base) + r"\.[0-9a-f]{16}\.data", n)]
    return os.path.join(os.path.dirname(model), found[0]) if found else None


def same_file(a, b):
    """Byte-equal files, and byte-equal data files when either has one."""
    if not filecmp.cmp(a, b, shallow=False):
        return False
    da, db = data_file(a), data_file(b)
    if da or db:
        return bool(da and db) and filecmp.cmp(da, db, shallow=False)
    return True


def same_dir(a, b):
    """Folders holding the same file names with the same bytes."""
    names = sorted(os.listdir(a))
    if names != sorted(os.listdir(b)):
        return False
    return all(filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False) for n in names)


def shards(folder):
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".onnx"))


def later(notes, step):
    """Run a check made after the tool's first output exists: a Problem is
    noted, not raised, so that the output is still compared in ONNX Runtime."""
    try:
        step()
    except Problem as e:
        notes.append(Problem("failed", e.msg))  # the first run was done: a refusal now is a failure


def expect(ok, msg):
    if not ok:
        raise Problem("failed", msg)


def again(t, tool, args, what):
    """Run the tool on its own output: any problem is a failure."""
    try:
        run_tool(t, tool, args)
    except Problem as e:
        raise Problem("failed", "%s of %s: %s" % (tool, what, e.msg)) from None


def check_model_tool(t, tool, letter, model, w, notes, extra=()):
    """A tool that writes one model: deterministic, and a fixed point on its own output."""
    out, out2, fixed = (os.path.join(w, n) for n in (letter + ".onnx", letter + "_again.onnx", 2 * letter + ".onnx"))
    extra = list(extra)
    run_tool(t, tool, [model, out] + extra)
    later(notes, lambda: (run_tool(t, tool, [model, out2] + extra),
                          expect(same_file(out, out2), "%s: two runs wrote different bytes" % tool)))
    later(notes, lambda: (again(t, tool, [out, fixed] + extra, "its own output"),
                          expect(same_file(out, fixed), "%s: not a fixed point (running it on the output changes it)"
                                 % tool)))
    return [out]


def check_shrink(t, model, w, notes):
    return check_model_tool(t, "shrink", "s", model, w, notes)


def check_split(t, model, w, notes):
    sp, sp2 = os.path.join(w, "sp"), os.path.join(w, "sp_again")
    run_tool(t, "split", [model, sp] + BUDGET)
    later(notes, lambda: (run_tool(t, "split", [model, sp2] + BUDGET),
                          expect(same_dir(sp, sp2), "split: two runs wrote different files")))
    return shards(sp)


def check_merge(t, w, notes):
    sp, out, out2 = os.path.join(w, "sp"), os.path.join(w, "m.onnx"), os.path.join(w, "m_again.onnx")
    run_tool(t, "merge", [sp, out])
    later(notes, lambda: (run_tool(t, "merge", [sp, out2]),
                          expect(same_file(out, out2), "merge: two runs wrote different bytes")))
    later(notes, lambda: (again(t, "split", [out, os.path.join(w, "sp2")] + BUDGET, "merge's output"),
                          again(t, "merge", [os.path.join(w, "sp2"), os.path.join(w, "m2.onnx")], "split(merge's output)"),
                          expect(same_file(out, os.path.join(w, "m2.onnx")),
                                 "merge: merge(split(output)) differs from the output")))
    return [out]


def check_big(t, model, w, notes):
    return check_model_tool(t, "big", "b", model, w, notes, BUDGET)


def check_optimize(t, model, w, notes):
    return check_model_tool(t, "optimize", "o", model, w, notes)


def cands_of(cands, tool):
    return [c for c in cands if c["tool"] == tool]


def take_model(tools_dir, data, work, case, which=TOOLS):
    """Run the tools on one case; returns (job for conformance.mjs, {tool: [Problem, ...]})."""
    folder = os.path.join(work, case.replace("/", "__"))
    os.makedirs(folder)
    model = os.path.join(data, case, "model.onnx")
    inputs = sorted(glob.glob(os.path.join(data, case, "test_data_set_0", "input_*.pb")),
                    key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    cands, problems = [], {}
    steps = (("shrink", lambda notes: check_shrink(tools_dir, model, folder, notes)),
             ("split", lambda notes: check_split(tools_dir, model, folder, notes)),
             ("merge", lambda notes: check_merge(tools_dir, folder, notes)),
             ("big", lambda notes: check_big(tools_dir, model, folder, notes)),
             ("optimize", lambda notes: check_optimize(tools_dir, model, folder, notes)))
    for tool, step in steps:
        if tool not in which:
            continue
        if tool == "merge" and not cands_of(cands, "split"):
            continue  # nothing to merge
        notes = []
        try:
            cands.append({"tool": tool, "models": step(notes)})
        except Problem as e:
            notes.insert(0, e)
        if notes:
            problems[tool] = notes
    return {"id": case, "model": model, "inputs": inputs, "cands": cands}, problems


def read_known(path):
    known = {}
    if not path or not os.path.exists(path):
        return known
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in TOOLS:
                sys.exit("conformance: %s:%d: want 'MODEL TOOL REASON' with TOOL one of %s" %
                         (path, n, ", ".join(TOOLS)))
            known[(parts[0], parts[1])] = parts[2]
    return known


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="ONNX conformance suite through the scs4onnx tools")
    ap.add_argument("--only-tools", default=",".join(TOOLS),
                    help="comma-separated tools to run (default: all; merge needs split)")
    ap.add_argument("--tools", required=True, help="folder of the built tools")
    ap.add_argument("--data", default="/usr/share/libonnx-testdata/data")
    ap.add_argument("--known", default=os.path.join(here, "conformance-known.txt"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="cases whose name holds this text")
    ap.add_argument("--stride", type=int, default=1,
                    help="every Nth case alone, for slow builds (the sanitizers' pass)")
    ap.add_argument("--work", default=None, help="scratch folder (default: a new one under $TMPDIR)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = ap.parse_args()

    cases = sorted(os.path.relpath(os.path.dirname(p), args.data)
                   for p in glob.glob(os.path.join(args.data, "*", "*", "model.onnx"))
                   if os.path.isdir(os.path.join(os.path.dirname(p), "test_data_set_0")))
    cases = [c for c in cases if args.only in c][::max(args.stride, 1)]
    if not cases:
        print("conformance: no models under %s (Debian package libonnx-testdata)" % args.data)
        return 1
    which = tuple(t for t in args.only_tools.split(",") if t)
    if any(t not in TOOLS for t in which):
        ap.error("--only-tools takes some of: " + ", ".join(TOOLS))
    known = read_known(args.known)
    work = args.work or tempfile.mkdtemp(prefix="scs-conformance.")
    os.makedirs(work, exist_ok=True)

    results_path = os.path.join(work, "results.jsonl")
    with open(results_path, "w") as results_file:
        ort = subprocess.Popen(["node", os.path.join(here, "conformance.mjs"), "-"], stdin=subprocess.PIPE,
                               stdout=results_file, text=True)
        lock = threading.Lock()
        tool_problems = {}

        def one(case):
            job, problems = take_model(args.tools, args.data, work, case, which)
            with lock:
                tool_problems[case] = problems
                ort.stdin.write(json.dumps(job) + "\n")
                ort.stdin.flush()

        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for f in [pool.submit(one, c) for c in cases]:
                f.result()
        ort.stdin.close()
        if ort.wait() != 0:
            print("conformance: the ONNX Runtime runner failed (exit %d)" % ort.returncode)
            return 1
    with open(results_path) as f:
        ort_results = {r["id"]: r for r in map(json.loads, f)}

    counts = {"identical": dict.fromkeys(TOOLS, 0), "refused": dict.fromkeys(TOOLS, 0)}
    run_models = skipped = failed = known_hits = 0
    lines, used = [], set()

    def report(case, tool, kind, msg):
        nonlocal failed, known_hits
        msg = msg.replace(work + os.sep, "")
        if (case, tool) in known:
            used.add((case, tool))
            known_hits += 1
            lines.append("known   %s %s: %s: %s" % (case, tool, kind, msg))
        else:
            failed += 1
            lines.append("FAIL    %s %s: %s: %s" % (case, tool, kind, msg))

    for case in cases:
        r = ort_results.get(case)
        if r is None:
            lines.append("FAIL    %s: no answer from the ONNX Runtime runner" % case)
            failed += 1
            continue
        for tool, notes in sorted(tool_problems[case].items()):
            for p in notes:
                if p.kind == "refused":
                    counts["refused"][tool] += 1
                report(case, tool, p.kind, p.msg)
        if "skipped" in r:
            skipped += 1
            lines.append("skipped %s: %s" % (case, r["skipped"]))
            continue
        run_models += 1
        for res in r["results"]:
            if res["ok"]:
                counts["identical"][res["tool"]] += 1
            else:
                report(case, res["tool"], "different outputs", res["msg"])
    for key in sorted(set(known) - used):
        if key[0] in cases:
            lines.append("stale   %s %s: listed as known, but nothing went wrong" % key)

    for line in lines:
        print(line)
    per = lambda d: "/".join(str(d[t]) for t in TOOLS)
    print("conformance: models %d, run %d, identical %s, skipped-by-ORT %d, refused %s, failed %d, known %d "
          "(per tool: %s)" % (len(cases), run_models, per(counts["identical"]), skipped, per(counts["refused"]),
                              failed, known_hits, "/".join(TOOLS)))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
