#!/usr/bin/env bash
# Benchmark of the optimizer on deep transformer-like stacks whose Reshapes
# take their targets from the dims of the layer before (scripts/
# gen-shape-layers.py: 33 nodes a layer). Generates stacks of LAYERS layers
# (default "25 50 100 200") in work/bench-shape-layers (removed at the end
# unless KEEP=1), runs the default passes on each with each optimizer given
# (default build/tools/scs4onnx-optimize; give an older build's to compare)
# and prints a table: layers, nodes before and after, rounds (from the
# summary line "INFO: nodes: ... (N rounds)") and wall seconds.
# Not a test: it prints figures.
#
#   scripts/bench-shape-layers.sh [OPTIMIZER ...]
#   LAYERS="25 50" scripts/bench-shape-layers.sh old/scs4onnx-optimize build/tools/scs4onnx-optimize
#
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
tools=("$@")
if [ ${#tools[@]} -eq 0 ]; then
	scripts/build.sh >/dev/null
	tools=(build/tools/scs4onnx-optimize)
fi
work=work/bench-shape-layers
rm -rf "$work"
mkdir -p "$work"

printf '%-8s %-7s %-14s %-7s %-9s %s\n' layers nodes "nodes after" rounds seconds optimizer
for layers in ${LAYERS:-25 50 100 200}; do
	/usr/bin/python3 scripts/gen-shape-layers.py "$layers" "$work/l$layers.onnx"
	for tool in "${tools[@]}"; do
		start=$(date +%s.%N)
		line=$("$tool" "$work/l$layers.onnx" "$work/out.onnx" -f 2>&1 | grep '^INFO: nodes:')
		end=$(date +%s.%N)
		# "INFO: nodes: 826 -> 500 (2 rounds)"
		read -r before after rounds <<<"$(sed -E 's/^INFO: nodes: ([0-9]+) -> ([0-9]+) \(([0-9]+) rounds?\).*/\1 \2 \3/' <<<"$line")"
		printf '%-8s %-7s %-14s %-7s %-9.2f %s\n' "$layers" "$before" "$after" "$rounds" \
		    "$(echo "$end - $start" | bc)" "$tool"
	done
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
