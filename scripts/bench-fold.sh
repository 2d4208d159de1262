#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark of constant folding. Generates the fold suite's models
# (tests/e2e/gen_fold_models.py) in work/bench-fold (removed at the end
# unless KEEP=1), runs scs4onnx-optimize on each (the default set, with
# --fold-grow), and prints a table: nodes before and after, file bytes
# before and after, and the median ONNX Runtime inference time (CPU, one
# thread, graph optimizations disabled and at the default level) of both,
# interleaved in one node process (tests/e2e/ort_bench.mjs). Not a test: it
# prints figures. Needs a build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
work=work/bench-fold
rm -rf "$work"
mkdir -p "$work"
runs=${RUNS:-40}
/usr/bin/python3 tests/e2e/gen_fold_models.py "$work"

nodes() {
	/usr/bin/python3 -c 'import sys, onnx; print(len(onnx.load(sys.argv[1]).graph.node))' "$1"
}

printf '%-16s %7s %7s %9s %9s %12s %12s %12s %12s\n' model nodes folded bytes folded \
	'ms off' 'ms off fold' 'ms all' 'ms all fold'
for m in fold_reshape fold_rotary; do        # ort_bench feeds float inputs only
	build/tools/scs4onnx-optimize "$work/$m.onnx" "$work/${m}_f.onnx" --fold-grow --non-verbose
	bench=$(node tests/e2e/ort_bench.mjs --runs "$runs" "$work/$m.onnx" "$work/${m}_f.onnx")
	ms() { echo "$bench" | awk -v m="$1" -v l="$2" '$2 ~ m"$" && $3 == l { sub("median_ms=", "", $4); print $4 }'; }
	printf '%-16s %7s %7s %9s %9s %12s %12s %12s %12s\n' "$m" "$(nodes "$work/$m.onnx")" \
		"$(nodes "$work/${m}_f.onnx")" "$(stat -c %s "$work/$m.onnx")" "$(stat -c %s "$work/${m}_f.onnx")" \
		"$(ms "/$m.onnx" disabled)" "$(ms "/${m}_f.onnx" disabled)" "$(ms "/$m.onnx" all)" "$(ms "/${m}_f.onnx" all)"
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
