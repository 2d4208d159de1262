#!/usr/bin/env bash
# Benchmark of scs4onnx-check (issue 25's bars: peak memory under 64 MiB, time
# within 1.5x `cat` of the files). Usage: scripts/bench-check.sh [WORKDIR]
# (default $TMPDIR or /tmp; a folder outside the repository, ~9.5 GB free).
# Generates with scripts/gen-model.py
#   inline:   a ~3 GiB model in one .onnx (over protobuf's 2 GiB limit)
#   external: a ~6 GiB model whose tensors are in one external data file
# and prints for each: its bytes, `cat` of its files to /dev/null (wall),
# scs4onnx-check and scs4onnx-check --full (wall, peak RssAnon from
# scripts/measure.py, peak RSS from /usr/bin/time -v, which also counts the
# pages of the files it maps), the bytes it read (rchar of /proc/PID/io:
# read and pread; a checker needs the skeleton and the payloads' lengths,
# not their bytes), and each one's ratio to cat. Timings are
# medians of three runs (RUNS=N for another odd count); peaks the highest.
# The page cache is dropped before every timed run where the machine lets
# us (root outside a container); otherwise every run is warm (the files
# read once before) and the table says so. Removes what it generated
# unless KEEP=1. INLINE_SIZE and EXTERNAL_SIZE (3G, 6G) change the sizes
# for a trial run. Not a test: it prints figures.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh      # seconds_of, measured

work="${1:-${TMPDIR:-/tmp}}/scs-bench-check.$$"
check=${CHECK:-build/tools/scs4onnx-check}
runs=${RUNS:-3}
[ -x "$check" ] || { echo "bench-check: $check: not built (scripts/build.sh)" >&2; exit 1; }
case "$(realpath -m "$work")/" in
"$(realpath .)"/*) echo "bench-check: $work is inside the repository" >&2; exit 2 ;;
esac
mkdir -p "$work"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

gen="/usr/bin/python3 scripts/gen-model.py"
$gen inline "$work/inline.onnx" --size "${INLINE_SIZE:-3G}"
$gen llm "$work/external.onnx" --size "${EXTERNAL_SIZE:-6G}" --external

if sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
	cache=cold
	settle() { sync; echo 3 >/proc/sys/vm/drop_caches; }
else
	cache=warm
	settle() { cat "${files[@]}" >/dev/null; }
fi
echo "bench-check: page cache $cache for every run ($(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB memory)"

median() {       # the middle one of an odd count of numbers
	printf "%s\n" "$@" | sort -g | sed -n "$((($# + 1) / 2))p"
}

rchar_of() {     # bytes the kernel counted a command reading (scripts/measure.py)
	/usr/bin/python3 scripts/measure.py "$@" 2>&1 >/dev/null | sed -n 's/^measure:.* rchar=\([0-9]*\).*/\1/p'
}

max_rss_of() {   # /usr/bin/time -v's peak RSS (KiB) of a command
	/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p'
}

printf "\n%-9s %13s %7s %-8s %8s %6s %14s %14s %12s %6s\n" model bytes cat_s mode check_s ratio peak_RssAnon \
	peak_RSS read_bytes status
for c in inline external; do
	files=("$work/$c.onnx")
	[ -e "$work/$c.onnx.data" ] && files+=("$work/$c.onnx.data")
	bytes=$(stat -c %s "${files[@]}" | paste -sd+ | bc)
	cat_t=()
	for r in $(seq "$runs"); do
		settle
		cat_t+=("$(seconds_of sh -c 'cat "$@" >/dev/null' cat "${files[@]}")")
	done
	cat_s=$(median "${cat_t[@]}")
	for mode in plain full; do
		args=("$work/$c.onnx" -n)
		[ $mode = full ] && args+=(--full)
		wall_t=() top=0 status=0
		for r in $(seq "$runs"); do
			settle
			measured "$check" "${args[@]}"
			wall_t+=("$wall")
			[ "$peak" -gt "$top" ] && top=$peak
		done
		settle
		rss=$(max_rss_of "$check" "${args[@]}")
		read_bytes=$(rchar_of "$check" "${args[@]}")
		"$check" "${args[@]}" >/dev/null 2>&1 || status=$?
		wall=$(median "${wall_t[@]}")
		printf "%-9s %13d %7.2f %-8s %8.2f %6.2f %10d KiB %10d KiB %12d %6s\n" "$c" "$bytes" "$cat_s" "$mode" "$wall" \
			"$(echo "$wall / $cat_s" | bc -l)" "$top" "${rss:-0}" "${read_bytes:-0}" "exit=$status"
	done
done
echo "bars: peak RssAnon < 65536 KiB, ratio <= 1.50 (page cache $cache)"
