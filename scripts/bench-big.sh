#!/usr/bin/env bash
# Benchmark of scs4onnx-split and scs4onnx-big on models over 2 GiB. Generates
# in work/bench-big (removed at the end unless KEEP=1):
#   (e) llm:    ~6 GiB LLM-shaped model with external data (per-layer masks and
#               rotary tables, tied embeddings, one ~1 GiB tensor)
#   (i) inline: ~2.5 GiB in a single .onnx
# and prints, for each: the shards split writes and their sizes; big's output
# size, wall time per stage and in all, its ratio to `cp` of the input in the
# same run, and peak RssAnon; and whether big's output equals
# scs4onnx-shrink's on the same input (same bytes). Needs ~30 GB of free disk.
# Then scripts/bench-scale.sh split: a chain of 32,000 nodes split at a 64 KiB
# budget, and at 2x and 4x the nodes (time and memory growth beside cp).
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
work=work/bench-big
rm -rf "$work"
mkdir -p "$work"
tools=build/tools

/usr/bin/python3 scripts/gen-model.py llm "$work/e.onnx" --size 6G --external --big-tensor 1G
/usr/bin/python3 scripts/gen-model.py inline "$work/i.onnx" --size 2.5G

bytes_of() {
	local n=0 f
	for f in "$@"; do [ -e "$f" ] && n=$((n + $(stat -c %s "$f"))); done
	echo $n
}

field() {        # field NAME LINE: the value of NAME=... in a measure.py line
	echo "$2" | sed "s/.*$1=\([0-9.]*\).*/\1/"
}

for c in e i; do
	files=("$work/$c.onnx")
	[ -e "$work/$c.onnx.data" ] && files+=("$work/$c.onnx.data")
	echo
	echo "== ($c) $(bytes_of "${files[@]}") input bytes"
	cat "${files[@]}" >/dev/null
	sync
	mkdir -p "$work/cp"
	t0=$(date +%s.%N)
	cp "${files[@]}" "$work/cp/"
	cp_s=$(echo "$(date +%s.%N) - $t0" | bc)
	rm -rf "$work/cp"
	sync

	m=$(/usr/bin/python3 scripts/measure.py $tools/scs4onnx-split "$work/$c.onnx" "$work/$c-shards" -n 2>&1 | tail -n 1)
	echo "split: $(field wall "$m") s, peak RssAnon $(field peak_rss_anon_kib "$m") KiB; shards:"
	for f in "$work/$c-shards"/*; do printf "   %14d  %s\n" "$(stat -c %s "$f")" "$(basename "$f")"; done
	rm -rf "$work/$c-shards"
	sync

	mkdir -p "$work/big" "$work/shrink"
	m=$(/usr/bin/python3 scripts/measure.py $tools/scs4onnx-big "$work/$c.onnx" "$work/big/out.onnx" -n -f \
		--json "$work/big.json" 2>&1 | tail -n 1)
	wall=$(field wall "$m")
	echo "big: $(bytes_of "$work/big/out.onnx" "$work/big/out.onnx".*.data) output bytes, $wall s," \
		"cp $cp_s s, ratio $(printf %.2f "$(echo "$wall / $cp_s" | bc -l)"), peak RssAnon $(field peak_rss_anon_kib "$m") KiB"
	/usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); \
		print('   stages: ' + ', '.join('%s %.2f s' % (s['name'], s['seconds']) for s in r['stages']))" "$work/big.json"
	sync
	$tools/scs4onnx-shrink "$work/$c.onnx" "$work/shrink/out.onnx" -n -f
	# the same .onnx bytes name the same data file ("out.onnx.<16 hex>.data"), if any
	data=$(cd "$work/big" && ls | grep -E '^out\.onnx\.[0-9a-f]{16}\.data$' || true)
	if cmp -s "$work/big/out.onnx" "$work/shrink/out.onnx" &&
		{ [ -z "$data" ] || cmp -s "$work/big/$data" "$work/shrink/$data"; }; then
		echo "big's output equals scs4onnx-shrink's: same bytes"
	else
		echo "big's output differs from scs4onnx-shrink's"
	fi
	rm -rf "$work/big" "$work/shrink" "$work/big.json"
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
scripts/bench-scale.sh split
