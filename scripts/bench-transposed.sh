#!/usr/bin/env bash
# Benchmark of the two rewrites of a tied weight saved transposed (issue 24):
# a GPT-like model (scripts/gen-model.py gpt) holds its embedding wte [V, D]
# for Gather and again transposed, wte_T [D, V], for the output MatMul. The
# candidates keep wte only: `transpose` computes wte_T with a Transpose node
# (perm [1, 0]), `gemm` replaces the MatMul by Gemm(h, wte, transB=1), with
# Reshape around it for rank-3 activations.
#
# For float32 and float16, activations of rank 3 and 2, opsets 17 and 21,
# the script writes the three variants and prints, per variant, in ONNX
# Runtime (CPU, one thread; tests/e2e/ort_tied.mjs):
#   same     are the outputs bit-identical to the original's at levels
#            disabled, basic, extended and all (one letter each: y or n);
#            the original's row compares itself with its own outputs at
#            level disabled
#   all_ms, disabled_ms
#            mean inference time at levels all (the default) and disabled
#            (runs interleaved in one process), and the ratio to the
#            original's
#   maxrss   the maximum resident set (/usr/bin/time) of a process that
#            creates a session at level all and runs it once, and that
#            process's wall time (node's start, the load, one run)
# Given a build directory, the original is also shrunk by its
# scs4onnx-shrink and the result measured in the same way (row `shrunk`).
# Then a check whether ONNX Runtime folds the Transpose of the initializer at
# level basic (the optimized model written by the runtime, its node types),
# and with LARGE=SIZE the memory of the three variants at about SIZE.
#
# Usage: scripts/bench-transposed.sh [BUILD]
#   VOCAB (32000), WIDTH (1024), LAYERS (2), SEQ (32), RUNS (10) set the
#   size and the timed runs; DTYPES, RANKS and OPSETS the cases (all);
#   LARGE=SIZE (such as 2.2G) adds the memory of the variants at that size.
# Models go to a temporary folder outside the tree, removed at the end.
# Not a test: it prints figures and asserts nothing on time.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-}
V=${VOCAB:-32000} D=${WIDTH:-1024} L=${LAYERS:-2} S=${SEQ:-32} runs=${RUNS:-10}
dtypes=${DTYPES:-"float32 float16"} ranks=${RANKS:-"3 2"} opsets=${OPSETS:-"17 21"}
gen="/usr/bin/python3 scripts/gen-model.py"
tied="node tests/e2e/ort_tied.mjs"
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-transposed.XXXXXX")
trap 'rm -rf "$work"' EXIT

shrink=
if [ -n "$build" ]; then
	shrink=$build/tools/scs4onnx-shrink
	[ -x "$shrink" ] || { echo "bench-transposed: no $shrink" >&2; exit 1; }
	if ! "$shrink" --help | grep -q -- '--keep-transposed'; then
		echo "bench-transposed: this scs4onnx-shrink has no rewrite of transposed copies (no --keep-transposed):"
		echo "  its row shows the shrink of identical constants only"
	fi
fi

variants="original transpose gemm"
[ -n "$shrink" ] && variants="$variants shrunk"

echo "gpt: V=$V D=$D layers=$L tokens=$S; ONNX Runtime $(node -p "require('./tests/e2e/node_modules/onnxruntime-node/package.json').version"), CPU, one thread; $runs timed runs"
printf "\n%-7s %5s %4s %-9s %9s %4s %9s %6s %11s %6s %10s %7s\n" dtype opset rank variant model_MiB same \
	all_ms x_orig disabled_ms x_orig maxrss_MiB load+1_s
for dt in $dtypes; do
	for op in $opsets; do
		for rk in $ranks; do
			for v in original transpose gemm; do
				$gen gpt "$work/$v.onnx" --vocab "$V" --width "$D" --layers "$L" --seq "$S" \
					--dtype "$dt" --opset "$op" --rank "$rk" --variant "$v" 2>/dev/null
			done
			[ -n "$shrink" ] && "$shrink" "$work/original.onnx" "$work/shrunk.onnx" -n
			models=()
			for v in $variants; do models+=("$work/$v.onnx"); done
			check=$($tied check "${models[@]}" || true)
			bench=$($tied bench --runs "$runs" --warmup 2 "${models[@]}")
			mean_of() {   # mean_of VARIANT LEVEL
				echo "$bench" | grep " $work/$1.onnx $2 " | sed 's/.*mean_ms=\([0-9.]*\).*/\1/'
			}
			for v in $variants; do
				same=
				for lv in disabled basic extended all; do
					if echo "$check" | grep -q " $work/$v.onnx $lv \(vs-disabled \)\?same"; then
						same=${same}y
					else
						same=${same}n
					fi
				done
				/usr/bin/time -f "%M %e" -o "$work/time" $tied once "$work/$v.onnx" all
				read -r rss secs <"$work/time"
				a=$(mean_of "$v" all)
				d=$(mean_of "$v" disabled)
				printf "%-7s %5s %4s %-9s %9.1f %4s %9.1f %6.3f %11.1f %6.3f %10.1f %7.2f\n" "$dt" "$op" "$rk" "$v" \
					"$(echo "$(stat -c %s "$work/$v.onnx") / 1048576" | bc -l)" "$same" "$a" \
					"$(echo "$a / $(mean_of original all)" | bc -l)" "$d" \
					"$(echo "$d / $(mean_of original disabled)" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$secs"
			done
			rm -f "$work"/*.onnx
		done
	done
done

# Does ONNX Runtime fold the Transpose of an initializer at level basic? The
# model it writes after optimizing (float32 at the size above) lists its nodes.
$gen gpt "$work/transpose.onnx" --vocab "$V" --width "$D" --layers "$L" --seq "$S" --variant transpose 2>/dev/null
echo
for lv in disabled basic; do
	$tied optimized "$work/transpose.onnx" $lv "$work/opt.onnx"
	echo "transpose variant after level $lv: $(/usr/bin/python3 -c 'import onnx, sys
m = onnx.load(sys.argv[1])
print("nodes " + " ".join(n.op_type for n in m.graph.node) + "; initializers " +
      " ".join("%s%s" % (i.name, list(i.dims)) for i in m.graph.initializer))' "$work/opt.onnx")"
done
rm -f "$work"/*.onnx*

# LARGE=SIZE: the three variants in float16 at about SIZE (V scaled; external
# data over 2 GiB): maximum resident set and wall time of a process that
# loads the model and runs it once, at levels disabled, basic and all.
[ -n "${LARGE:-}" ] || exit 0
echo
printf "%-9s %12s %-8s %10s %7s\n" variant bytes level maxrss_MiB load+1_s
for v in original transpose gemm; do
	$gen gpt "$work/$v.onnx" --size "$LARGE" --width "$D" --layers "$L" --seq "$S" --dtype float16 \
		--variant "$v" 2>/dev/null
	bytes=$(cat "$work/$v.onnx"* | wc -c)
	for lv in disabled basic all; do
		sync
		/usr/bin/time -f "%M %e" -o "$work/time" $tied once "$work/$v.onnx" $lv
		read -r rss secs <"$work/time"
		printf "%-9s %12d %-8s %10.1f %7.2f\n" "$v" "$bytes" "$lv" "$(echo "$rss / 1024" | bc -l)" "$secs"
	done
	rm -f "$work"/*.onnx*
done
