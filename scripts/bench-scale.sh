#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How time and memory grow with the number of nodes and constants, beside
# `cp` of the same input in the same run. Small files, under a minute:
#   split: scs4onnx-split of a chain of 32,000 / 64,000 / 128,000 Adds, each
#          with its own constant (gen-model.py many), at a 64 KiB budget
#   dups:  scs4onnx-shrink of 10,000 / 20,000 / 40,000 copies of one constant
#          (gen-model.py dups), each added in a chain
#   small: scs4onnx-shrink of 64,000 / 128,000 / 256,000 small distinct
#          constants (gen-model.py many; 24 MB at 4x): memory per constant
# Usage: scripts/bench-scale.sh [split|dups|small|all] (default all). For each row:
# the input bytes; the tool's wall time, its CPU time (user + system) and
# the wall time of `cp` (medians of three runs, after a sync); the ratio of
# the wall times; growth, the tool's CPU time over the 1x row's (CPU time,
# as a busy machine stretches wall times); and peak RssAnon (the highest of
# the three runs) in all and per node or constant. Linear work keeps growth
# near 1, 2, 4. Models go to work/bench-scale, removed at the end unless
# KEEP=1. TOOLS=DIR takes the tools from DIR instead of build/tools (to
# compare builds); BEFORE=DIR adds the wall time and peak RssAnon of the
# tools in DIR (another build, say main's), measured in the same runs. Not a
# test: it prints figures.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
case "$what" in split | dups | small | all) ;; *) echo "usage: $0 [split|dups|small|all]" >&2; exit 2 ;; esac
scripts/setup.sh
scripts/build.sh
work=work/bench-scale
rm -rf "$work"
mkdir -p "$work"
gen="/usr/bin/python3 scripts/gen-model.py"
tools=${TOOLS:-build/tools}   # TOOLS=DIR measures the tools of another build
runs=3

. scripts/bench-lib.sh     # seconds_of, median3

field() {        # field NAME LINE: the value of NAME=... in a measure.py line
	echo "$2" | sed "s/.*$1=\([0-9.]*\).*/\1/"
}

# run_tool DIR TOOL IN OUT: the measure.py line of TOOL of the build in DIR
run_tool() {
	rm -rf "$4" "$4.onnx"
	sync
	if [ "$2" = split ]; then
		/usr/bin/python3 scripts/measure.py "$1/scs4onnx-split" "$3" "$4" --max-shard-size 64K -n 2>&1 | tail -n 1
	else
		/usr/bin/python3 scripts/measure.py "$1/scs4onnx-shrink" "$3" "$4.onnx" -n -f 2>&1 | tail -n 1
	fi
}

# table MODE BASE: one row per scale (1x, 2x, 4x of BASE items) of the
# gen-model kind MODE reads through the tool it measures
table() {
	local mode=$1 base=$2 kind tool unit first="" scale n in out wall cpu cp_s m p peak bpeak
	case "$mode" in
	split) kind=many tool=split unit=node ;;
	dups) kind=dups tool=shrink unit=constant ;;
	small) kind=many tool=shrink unit=constant ;;
	esac
	printf "\n%-6s %3s %8s %11s %7s %7s %6s %6s %7s %14s %9s" "$tool" x "${unit}s" input_bytes wall_s cpu_s cp_s ratio \
		growth peak_RssAnon "B/$unit"
	[ -z "${BEFORE:-}" ] || printf " %13s %20s" before_wall_s before_peak_RssAnon
	printf "\n"
	for scale in 1 2 4; do
		n=$((base * scale))
		in="$work/$kind-$n.onnx"
		$gen "$kind" "$in" --count "$n" 2>/dev/null
		cat "$in" >/dev/null                    # the page cache warm for every run
		local walls=() cpus=() cps=() bwalls=()
		peak=0 bpeak=0
		out="$work/out"
		for _ in $(seq $runs); do
			mkdir -p "$work/cp"
			cps+=("$(seconds_of cp "$in" "$work/cp/")")
			rm -rf "$work/cp"
			m=$(run_tool "$tools" "$tool" "$in" "$out")
			walls+=("$(field wall "$m")")
			cpus+=("$(field cpu "$m")")
			p=$(field peak_rss_anon_kib "$m")
			[ "$p" -gt "$peak" ] && peak=$p
			if [ -n "${BEFORE:-}" ]; then
				m=$(run_tool "$BEFORE" "$tool" "$in" "$out")
				bwalls+=("$(field wall "$m")")
				p=$(field peak_rss_anon_kib "$m")
				[ "$p" -gt "$bpeak" ] && bpeak=$p
			fi
		done
		wall=$(median3 "${walls[@]}")
		cpu=$(median3 "${cpus[@]}")
		cp_s=$(median3 "${cps[@]}")
		[ -n "$first" ] || first=$cpu
		printf "%-6s %3s %8d %11d %7.3f %7.3f %6.3f %6.1f %7.2f %10d KiB %9d" "$tool" "${scale}x" "$n" "$(stat -c %s "$in")" \
			"$wall" "$cpu" "$cp_s" "$(echo "$wall / $cp_s" | bc -l)" "$(echo "$cpu / $first" | bc -l)" "$peak" \
			"$((peak * 1024 / n))"
		[ -z "${BEFORE:-}" ] || printf " %13.3f %16d KiB" "$(median3 "${bwalls[@]}")" "$bpeak"
		printf "\n"
		if [ "$tool" = split ] && [ "$scale" = 1 ]; then
			echo "   the ${n}-node chain at 64 KiB: $(ls "$out" | wc -l) shards in $wall s ($cpu s of CPU)"
		fi
		rm -rf "$out" "$out.onnx" "$in"
	done
}

case "$what" in split | all) table split 32000 ;; esac
case "$what" in dups | all) table dups 10000 ;; esac
case "$what" in small | all) table small 64000 ;; esac
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
