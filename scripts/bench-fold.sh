#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark of constant folding. Generates the fold suite's models
# (tests/e2e/gen_fold_models.py) in work/bench-fold (removed at the end
# unless KEEP=1), runs scs4onnx-optimize on each (the default set, with
# --fold-grow), and prints a table: nodes before and after, file bytes
# before and after, and the median ONNX Runtime inference time (CPU, one
# thread, graph optimizations disabled and at the default level) of both,
# interleaved in one node process (tests/e2e/ort_bench.mjs). Then (unless
# BIGCAST=0) a Cast of a float weight of BIGCAST_GIB GiB (default 1,
# external data; scripts/gen-fuse-bench.py bigcast) to float16 and to int32
# through scs4onnx-optimize --fold-size-limit 2G, beside cp of the weight's
# file: wall time and peak RssAnon (scripts/measure.py), and whether the
# Cast folded. Then (unless CHAIN=0) chains of constants of CHAIN_NODES
# nodes (default 2000 8000 32000 100000; scripts/gen-fuse-bench.py
# foldchain) through scs4onnx-optimize: wall and CPU time, peak RssAnon,
# the optimizer's rounds and the nodes left, and the CPU time per thousand
# nodes, which stays flat when folding grows linearly with a chain's length.
# TOOLS names the folder of the tools (default build/tools).
# Not a test: it prints figures. Needs a build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
work=work/bench-fold
rm -rf "$work"
mkdir -p "$work"
. scripts/bench-lib.sh     # cp_seconds, measured
runs=${RUNS:-40}
tools=${TOOLS:-build/tools}
/usr/bin/python3 tests/e2e/gen_fold_models.py "$work"

nodes() {
	/usr/bin/python3 -c 'import sys, onnx; print(len(onnx.load(sys.argv[1]).graph.node))' "$1"
}

printf '%-16s %7s %7s %9s %9s %12s %12s %12s %12s\n' model nodes folded bytes folded \
	'ms off' 'ms off fold' 'ms all' 'ms all fold'
for m in fold_reshape fold_rotary; do        # ort_bench feeds float inputs only
	"$tools/scs4onnx-optimize" "$work/$m.onnx" "$work/${m}_f.onnx" -f --fold-grow --non-verbose
	bench=$(node tests/e2e/ort_bench.mjs --runs "$runs" "$work/$m.onnx" "$work/${m}_f.onnx")
	ms() { echo "$bench" | awk -v m="$1" -v l="$2" '$2 ~ m"$" && $3 == l { sub("median_ms=", "", $4); print $4 }'; }
	printf '%-16s %7s %7s %9s %9s %12s %12s %12s %12s\n' "$m" "$(nodes "$work/$m.onnx")" \
		"$(nodes "$work/${m}_f.onnx")" "$(stat -c %s "$work/$m.onnx")" "$(stat -c %s "$work/${m}_f.onnx")" \
		"$(ms "/$m.onnx" disabled)" "$(ms "/${m}_f.onnx" disabled)" "$(ms "/$m.onnx" all)" "$(ms "/${m}_f.onnx" all)"
done

if [ "${BIGCAST:-1}" = 1 ]; then
	gib=${BIGCAST_GIB:-1}
	printf "\nCast of a %s GiB float weight (external data), scs4onnx-optimize --fold-size-limit 2G\n" "$gib"
	printf "%-10s %9s %9s %7s %15s %6s\n" to fold_s cp_s ratio peak_RssAnon folded
	for to in float16 int32; do
		/usr/bin/python3 scripts/gen-fuse-bench.py bigcast "$work/cast.onnx" --gib "$gib" --to "$to"
		cp_s=$(cp_seconds "$work/cast.onnx.data")
		measured "$tools/scs4onnx-optimize" "$work/cast.onnx" "$work/cast_f.onnx" -f --fold-size-limit 2G --non-verbose
		casts=$(/usr/bin/python3 -c 'import sys, onnx; g = onnx.load(sys.argv[1], load_external_data=False).graph
print(sum(n.op_type == "Cast" for n in g.node))' "$work/cast_f.onnx")
		printf "%-10s %9s %9.3f %7s %12s KiB %6s\n" "$to" "$wall" "$cp_s" "$(echo "scale=2; $wall / $cp_s" | bc)" \
			"$peak" "$([ "$casts" = 0 ] && echo yes || echo no)"
		rm -f "$work"/cast*
	done
fi
if [ "${CHAIN:-1}" = 1 ]; then
	printf "\nChains of constants (Add, Mul, Shape + Cast in turn), scs4onnx-optimize\n"
	printf "%-8s %9s %9s %12s %8s %6s %17s\n" nodes wall_s cpu_s peak_RssAnon rounds left cpu_ms_per_1k_nodes
	for n in ${CHAIN_NODES:-2000 8000 32000 100000}; do
		/usr/bin/python3 scripts/gen-fuse-bench.py foldchain "$work/chain.onnx" --nodes "$n"
		measured "$tools/scs4onnx-optimize" "$work/chain.onnx" "$work/chain_f.onnx" -f --non-verbose \
			--json "$work/chain.json"
		rounds=$(sed -nE 's/.*"rounds": ([0-9]+).*/\1/p' "$work/chain.json")
		left=$(sed -nE 's/.*"nodes_after": ([0-9]+).*/\1/p' "$work/chain.json")
		printf "%-8s %9s %9s %8s KiB %8s %6s %17s\n" "$n" "$wall" "$cpu" "$peak" "$rounds" "$left" \
			"$(echo "scale=2; $cpu * 1000000 / $n" | bc)"
		rm -f "$work"/chain*
	done
fi
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
