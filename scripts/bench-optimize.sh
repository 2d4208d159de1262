#!/usr/bin/env bash
# Benchmark of the optimizer's fusions. Generates a MobileNetV2-shaped model
# (scripts/gen-fuse-bench.py: the published layer configuration, random
# weights, 1x3x224x224 input) in work/bench-optimize (removed at the end
# unless KEEP=1), runs the default passes on it and prints a table: nodes,
# BatchNormalization nodes, file bytes, and the median ONNX Runtime
# inference time (CPU, one thread) with graph optimizations disabled and at
# the default level, both models interleaved in one node process
# (tests/e2e/ort_bench.mjs); then the ratios, and the largest difference of
# the outputs (graph optimizations disabled).
#
# BIG=1 also fuses a 1x1 Conv whose weight is 1 GiB (BIG_GIB=N for another
# size) and reports wall time, cp of the same input, and peak RssAnon; then
# a Conv/BN model over 3 GiB goes through scs4onnx-big --optimize, measured
# the same way, CHAIN_RUNS times (default 3; CHAIN_GIB=N for another size).
#
# Runs the passes with build/tools/scs4onnx-optimize when it exists, else
# with the test helper build/tests/opt-run. Not a test: it prints figures.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
scripts/build.sh >/dev/null
work=work/bench-optimize
rm -rf "$work"
mkdir -p "$work"
runs=${RUNS:-40}

if [ -x build/tools/scs4onnx-optimize ]; then
	optimize() { build/tools/scs4onnx-optimize "$1" "$2" -f --non-verbose; }
else
	optimize() { build/tests/opt-run "$1" "$2" 2>/dev/null; }
fi

count() {        # count NODES|BN MODEL
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys, onnx
m = onnx.load(sys.argv[2], load_external_data=False)
n = m.graph.node
print(len(n) if sys.argv[1] == "NODES" else sum(1 for x in n if x.op_type == "BatchNormalization"))
PY
}

/usr/bin/python3 scripts/gen-fuse-bench.py mobilenetv2 "$work/mnv2.onnx"
optimize "$work/mnv2.onnx" "$work/mnv2_opt.onnx"
cmp_line=$(node tests/e2e/ort_compare.mjs "$work/mnv2.onnx" "$work/mnv2_opt.onnx" --graph-opt disabled \
	--tol 1e-4,1e-4 --runs 4)
bench=$(node tests/e2e/ort_bench.mjs --runs "$runs" "$work/mnv2.onnx" "$work/mnv2_opt.onnx")
ms() { echo "$bench" | awk -v p="$1" -v l="$2" '$2 == p && $3 == l { sub("median_ms=", "", $4); print $4 }'; }

b_dis=$(ms "$work/mnv2.onnx" disabled) b_all=$(ms "$work/mnv2.onnx" all)
a_dis=$(ms "$work/mnv2_opt.onnx" disabled) a_all=$(ms "$work/mnv2_opt.onnx" all)
printf "\nMobileNetV2-shaped model, 1x3x224x224, ONNX Runtime CPU 1 thread, median of %s interleaved runs\n" "$runs"
printf "%-8s %6s %4s %11s %14s %14s\n" model nodes BN file_bytes ort_disabled_ms ort_default_ms
printf "%-8s %6s %4s %11s %14s %14s\n" before "$(count NODES "$work/mnv2.onnx")" "$(count BN "$work/mnv2.onnx")" \
	"$(stat -c %s "$work/mnv2.onnx")" "$b_dis" "$b_all"
printf "%-8s %6s %4s %11s %14s %14s\n" after "$(count NODES "$work/mnv2_opt.onnx")" "$(count BN "$work/mnv2_opt.onnx")" \
	"$(stat -c %s "$work/mnv2_opt.onnx")" "$a_dis" "$a_all"
printf "%-8s %6s %4s %11s %14s %14s\n" ratio "" "" "" "$(echo "scale=3; $a_dis / $b_dis" | bc)" \
	"$(echo "scale=3; $a_all / $b_all" | bc)"
echo "outputs: ${cmp_line#ort_compare: }"

# cp_s: seconds of `cp FILE` into the page cache; cp_sync_s: with the `sync`
# that writes it out (the tools fsync their output before renaming it)
cp_time() {
	local t0 t1 t2
	t0=$(date +%s.%N); cp "$1" "$work/cp.copy"; t1=$(date +%s.%N); sync; t2=$(date +%s.%N)
	cp_s=$(echo "$t1 - $t0" | bc)
	cp_sync_s=$(echo "$t2 - $t0" | bc)
	rm -f "$work/cp.copy"
	sync
}

if [ "${BIG:-0}" = 1 ]; then
	gib=${BIG_GIB:-1}
	/usr/bin/python3 scripts/gen-fuse-bench.py bigconv "$work/big.onnx" --gib "$gib"
	cat "$work/big.onnx" "$work/big.onnx.data" >/dev/null
	sync
	cp_time "$work/big.onnx.data"
	if [ -x build/tools/scs4onnx-optimize ]; then
		cmd=(build/tools/scs4onnx-optimize "$work/big.onnx" "$work/big_opt.onnx" -f --non-verbose)
	else
		cmd=(build/tests/opt-run "$work/big.onnx" "$work/big_opt.onnx")
	fi
	m=$(/usr/bin/python3 scripts/measure.py "${cmd[@]}" 2>&1 >/dev/null | grep '^measure:')
	wall=$(echo "$m" | sed 's/.*wall=\([0-9.]*\).*/\1/')
	peak=$(echo "$m" | sed 's/.*peak_rss_anon_kib=\([0-9]*\).*/\1/')
	printf "\n1x1 Conv -> BN, weight %s GiB (external data)\n" "$gib"
	printf "%-10s %9s %9s %9s %7s %15s %5s\n" case fuse_s cp_s cp+sync ratio peak_RssAnon BN
	printf "%-10s %9s %9.3f %9.3f %7s %12s KiB %5s\n" bigconv "$wall" "$cp_s" "$cp_sync_s" \
		"$(echo "scale=2; $wall / $cp_s" | bc)" "$peak" "$(count BN "$work/big_opt.onnx")"
	rm -f "$work"/big*

	# A model over 2 GiB through scs4onnx-big --optimize (CHAIN_GIB, default
	# 3.1: thirteen 1x1 Conv -> BN -> Relu layers of 256 MiB weights, inline).
	# Checked against the same model through scs4onnx-big without --optimize
	# (ONNX Runtime cannot open the inline input itself).
	chain_gib=${CHAIN_GIB:-3.1}
	/usr/bin/python3 scripts/gen-fuse-bench.py convchain "$work/chain.onnx" --gib "$chain_gib" --fold-chains
	cat "$work/chain.onnx" >/dev/null
	sync
	printf "\nConv -> BN -> Relu chain with static-shape Reshapes, %s bytes inline, scs4onnx-big --optimize\n" \
		"$(stat -c %s "$work/chain.onnx")"
	printf "%-10s %9s %9s %9s %7s %15s %14s\n" case big_s cp_s cp+sync ratio peak_RssAnon direct_bytes
	# CHAIN_RUNS (default 3) runs, each right after its own cp, sync and rm
	for run in $(seq 1 "${CHAIN_RUNS:-3}"); do
		rm -f "$work"/chain_opt*
		sync
		cp_time "$work/chain.onnx"
		m=$(/usr/bin/python3 scripts/measure.py build/tools/scs4onnx-big "$work/chain.onnx" "$work/chain_opt.onnx" -f \
			--optimize --non-verbose --json "$work/chain.json" 2>&1 >/dev/null | grep '^measure:')
		wall=$(echo "$m" | sed 's/.*wall=\([0-9.]*\).*/\1/')
		peak=$(echo "$m" | sed 's/.*peak_rss_anon_kib=\([0-9]*\).*/\1/')
		direct=$(sed -n 's/.*"bytes_written_direct": \([0-9]*\).*/\1/p' "$work/chain.json")
		printf "%-10s %9s %9.3f %9.3f %7s %12s KiB %14s\n" "convchain" "$wall" "$cp_s" "$cp_sync_s" \
			"$(echo "scale=2; $wall / $cp_s" | bc)" "$peak" "${direct:-0}"
	done
	build/tools/scs4onnx-big "$work/chain.onnx" "$work/chain_ref.onnx" -f --non-verbose
	chain_cmp=$(node tests/e2e/ort_compare.mjs "$work/chain_ref.onnx" "$work/chain_opt.onnx" --graph-opt disabled \
		--tol 1e-4,1e-4 --runs 2)
	printf "BatchNormalization left %s, nodes %s -> %s\n" "$(count BN "$work/chain_opt.onnx")" \
		"$(count NODES "$work/chain_ref.onnx")" "$(count NODES "$work/chain_opt.onnx")"
	echo "outputs: ${chain_cmp#ort_compare: }"
	rm -f "$work"/chain*
fi
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
