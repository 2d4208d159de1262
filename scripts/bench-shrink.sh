#!/usr/bin/env bash
# Benchmark of scs4onnx-shrink. Generates four models in work/bench (removed
# at the end unless KEEP=1), shrinks each, and prints a table: input and
# output bytes, wall time, the time of `cp` of the same input files in the
# same run (page cache warm for both; medians of three runs), their ratio,
# peak RssAnon (the highest of the three runs), and the bytes each read
# over the input's size (rchar of /proc/PID/io: read, pread and
# copy_file_range, whose copy into the output the kernel counts as read;
# own_read_x leaves out the copies of unchanged payloads, by copy_file_range
# or, for a large output written direct, through the tool's buffer: what the
# tool read for its own work; read_x_floor is what reading the input once and
# copying the output's constants would count).
#   (a) gmflow: ~300 MB, six copies of an (8,1200,1200) 0/-100 mask and more
#   (b) llm:    ~3 GiB with external data (per-layer masks, rotary tables, tied embeddings)
#   (c) inline: ~2.3 GiB in a single .onnx (over protobuf's 2 GiB limit)
#   (d) many:   4,000 small distinct constants
#   (e) many:   256,000 small distinct constants (~24 MB)
# Needs ~12 GB of free disk. Not a test: it prints figures.
# Then scripts/bench-scale.sh dups: 10,000, 20,000 and 40,000 duplicates
# shrunk, and small: 64,000, 128,000 and 256,000 small distinct constants
# (time and memory growth beside cp, and memory per constant).
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
work=work/bench
rm -rf "$work"
mkdir -p "$work"
gen="/usr/bin/python3 scripts/gen-model.py"
shrink=build/tools/scs4onnx-shrink

$gen gmflow "$work/a.onnx"
$gen llm "$work/b.onnx" --size 3G --external
$gen inline "$work/c.onnx" --size 2.3G
$gen many "$work/d.onnx" --count 4000
$gen many "$work/e.onnx" --count 256000

inputs_of() {    # the model and its external data file, where there is one
	for f in "$work/$1.onnx" "$work/$1.onnx.data"; do [ -e "$f" ] && echo "$f"; done
	return 0
}

bytes_of() {     # total size of the files named
	local n=0 f
	for f in "$@"; do [ -e "$f" ] && n=$((n + $(stat -c %s "$f"))); done
	echo $n
}

. scripts/bench-lib.sh     # seconds_of, median3

runs=3           # each timing is the median of three runs

# shrink fsyncs its output before renaming it into place, so cp is timed
# both plain and followed by sync; the ratio is to plain cp (the stricter).
printf "\n%-4s %13s %13s %6s %8s %6s %9s %6s %14s %7s %10s %8s %12s\n" case input_bytes output_bytes out% shrink_s cp_s \
	cp+sync_s ratio peak_RssAnon read_x own_read_x cp_read_x read_x_floor
for c in a b c d e; do
	mapfile -t files < <(inputs_of "$c")
	in_bytes=$(bytes_of "${files[@]}")
	cat "${files[@]}" >/dev/null                # warm the page cache for every run
	cp_t=() cps_t=() wall_t=() peak=0 rchar=0
	for r in $(seq $runs); do
		mkdir -p "$work/cp"
		cp_t+=("$(seconds_of cp "${files[@]}" "$work/cp/")")
		rm -rf "$work/cp"
		mkdir -p "$work/cp"
		cps_t+=("$(seconds_of sh -c 'cp "$@" && sync' cp "${files[@]}" "$work/cp/")")
		rm -rf "$work/cp"
		sync
		m=$(/usr/bin/python3 scripts/measure.py $shrink "$work/$c.onnx" "$work/$c-out.onnx" -n -f \
			--json "$work/$c.json" 2>&1 | tail -n 1)
		wall_t+=("$(echo "$m" | sed 's/.*wall=\([0-9.]*\).*/\1/')")
		p=$(echo "$m" | sed 's/.*peak_rss_anon_kib=\([0-9]*\).*/\1/')
		[ "$p" -gt "$peak" ] && peak=$p
		rchar=$(echo "$m" | sed 's/.*rchar=\([0-9]*\).*/\1/')
	done
	# what cp reads, counted the same way
	mkdir -p "$work/cp"
	m=$(/usr/bin/python3 scripts/measure.py cp "${files[@]}" "$work/cp/" 2>&1 | tail -n 1)
	cp_rchar=$(echo "$m" | sed 's/.*rchar=\([0-9]*\).*/\1/')
	rm -rf "$work/cp"
	cp_s=$(median3 "${cp_t[@]}")
	cps_s=$(median3 "${cps_t[@]}")
	wall=$(median3 "${wall_t[@]}")
	out_bytes=$(bytes_of "$work/$c-out.onnx" "$work/$c-out.onnx".*.data)
	kernel=$(sed -n 's/.*"bytes_kernel_copied": \([0-9]*\).*/\1/p' "$work/$c.json")
	through=$(sed -n 's/.*"bytes_copied_through": \([0-9]*\).*/\1/p' "$work/$c.json")
	kernel=$((kernel + ${through:-0}))    # copies, by the kernel or through the tool's buffer
	printf "%-4s %13d %13d %5.1f%% %8.2f %6.2f %9.2f %6.2f %10d KiB %7.2f %10.2f %8.2f %12.2f\n" "$c" "$in_bytes" \
		"$out_bytes" "$(echo "100 * $out_bytes / $in_bytes" | bc -l)" "$wall" "$cp_s" "$cps_s" "$(echo "$wall / $cp_s" | bc -l)" \
		"$peak" "$(echo "$rchar / $in_bytes" | bc -l)" "$(echo "($rchar - $kernel) / $in_bytes" | bc -l)" \
		"$(echo "$cp_rchar / $in_bytes" | bc -l)" \
		"$(echo "($in_bytes + $(sed -n 's/.*"constant_bytes_after": \([0-9]*\).*/\1/p' "$work/$c.json")) / $in_bytes" | bc -l)"
	[ "$c" = a ] && { node tests/e2e/ort_compare.mjs "$work/a.onnx" "$work/a-out.onnx" | sed 's/^/   /'; }
	rm -f "$work/$c-out.onnx" "$work/$c-out.onnx".*.data
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
scripts/bench-scale.sh dups
scripts/bench-scale.sh small
