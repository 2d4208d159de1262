#!/usr/bin/env bash
# Fuzzes one libFuzzer target for SECONDS (default 60): TARGET scs (the
# default: shrink, split + merge and big; fuzz/fuzz_scs.c) or opt (the
# optimizer: scs_optimize, and shrink and big with optimize; fuzz/fuzz_opt.c).
# Configures build-fuzz (clang, -Dfuzz=true, ASan + UBSan), builds the
# target, seeds it with the test fixtures, runs it in one process (one job,
# one worker) and prints the executions, exec/s, coverage (cov and ft from
# libFuzzer's final stats), the corpus size and any crash files.
# Exit status 1 on a crash, a leak, a timeout, an out-of-memory or a broken
# contract (fuzz/fuzz_common.c), or when the build fails.
#
# The corpus grows across runs in build-fuzz/fuzz-work/corpus (fuzz-opt-work for the
# optimizer); findings land in its artifacts folder (replay one:
# build-fuzz/fuzz/scs-fuzz FILE, or scs-fuzz-opt) and the whole log in its
# fuzz.log. FUZZ_DIR moves the folder, FUZZ_MAX_LEN caps the input size
# (default 65536 bytes), FUZZ_ARGS adds libFuzzer flags.
# SPDX-License-Identifier: MIT
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
target=${2:-scs}
max_len=${FUZZ_MAX_LEN:-65536}
case $seconds in
'' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [scs|opt]" >&2; exit 2 ;;
esac
case $target in
scs) exe=build-fuzz/fuzz/scs-fuzz dir=${FUZZ_DIR:-build-fuzz/fuzz-work} ;;
opt) exe=build-fuzz/fuzz/scs-fuzz-opt dir=${FUZZ_DIR:-build-fuzz/fuzz-opt-work} ;;
*) echo "usage: scripts/fuzz.sh [SECONDS] [scs|opt]" >&2; exit 2 ;;
esac

scripts/setup.sh || exit 1
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		>/dev/null || exit 1
fi
ninja -C build-fuzz >/dev/null || exit 1

mkdir -p "$dir/corpus" "$dir/artifacts"
# the seeds: every fixture model the tests build that fits the length cap, and
# for scs a shard set for merge made of it (split at 300 bytes, the shards
# joined by the separator the target cuts at, SHARD_SEP in fuzz/fuzz_scs.c).
# An input ends in two bytes of options: a seed's come from its name.
# (fuzz_scs.c reads 12 bits of options, fuzz_opt.c 16)
high=15
[ "$target" = scs ] || high=255
options() {
	local h
	h=$(cksum <<<"$1" | cut -d' ' -f1)
	printf '%b' "$(printf '\\x%02x\\x%02x' $((h & 255)) $(((h >> 8) & high)))"
}
sep='#scs-fuzz-shard#'
rm -rf "$dir/seeds" "$dir/split"
mkdir -p "$dir/seeds"
for f in build-fuzz/tests/*.onnx; do
	name=$(basename "$f" .onnx)
	[ "$(stat -c %s "$f")" -lt "$max_len" ] || continue
	{ cat "$f"; options "$name"; } >"$dir/seeds/$name"
	[ "$target" = scs ] || continue
	ASAN_OPTIONS=detect_leaks=0 build-fuzz/tools/scs4onnx-split "$f" "$dir/split" --max-shard-size 300 \
		>/dev/null 2>&1 || continue
	shards=("$dir"/split/shard-*.onnx)
	# two shards or more, and no external data (the set is one input)
	if [ ${#shards[@]} -ge 2 ] && ! compgen -G "$dir/split/*.data" >/dev/null; then
		for s in "${shards[@]}"; do
			[ "$s" = "${shards[0]}" ] || printf '%s' "$sep"
			cat "$s"
		done >"$dir/seeds/shards-$name"
		options "shards-$name" >>"$dir/seeds/shards-$name"
		[ "$(stat -c %s "$dir/seeds/shards-$name")" -le "$max_len" ] || rm "$dir/seeds/shards-$name"
	fi
	rm -rf "$dir/split"
done

# the target's private folders go here (in memory where /dev/shm is), removed
# at the end even when a crash kept the target from removing its own
tmp=$(mktemp -d /dev/shm/scs4onnx-fuzz.XXXXXX 2>/dev/null) || tmp=$(mktemp -d "$dir/tmp.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export SCS_FUZZ_TMP=$tmp
marker=$dir/.started
touch "$marker"
# UBSan reports stop the input (so libFuzzer keeps it); leaks are checked per input
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
started=$SECONDS
# shellcheck disable=SC2086
timeout $((seconds + 600)) "$exe" \
	-max_total_time="$seconds" -max_len="$max_len" -timeout=20 -malloc_limit_mb=256 -rss_limit_mb=2048 \
	-dict=fuzz/onnx.dict -print_final_stats=1 -artifact_prefix="$dir/artifacts/" ${FUZZ_ARGS:-} \
	"$dir/corpus" "$dir/seeds" >"$dir/fuzz.log" 2>&1
status=$?
elapsed=$((SECONDS - started))

# the last status line ("#N DONE cov: C ft: F corp: U/S ...") and the final stats
last=$(grep -E '^#[0-9]+[[:space:]]+[A-Z]+[[:space:]]+cov:' "$dir/fuzz.log" | tail -n 1)
field() { sed -nE "s/.* $1: ([^ ]+).*/\\1/p" <<<"$last"; }
# (a crash may print the stats twice)
runs=$(sed -nE 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -n 1)
rate=$(sed -nE 's/^stat::average_exec_per_sec: *//p' "$dir/fuzz.log" | tail -n 1)
[ -n "$runs" ] || runs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
units=$(find "$dir/corpus" -type f | wc -l)
corpus_len=$(du -sk "$dir/corpus" | cut -f1)
mapfile -t found < <(find "$dir/artifacts" -type f -newer "$marker" \
	\( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)

for f in "${found[@]}"; do
	echo "fuzz: finding $f ($(stat -c %s "$f") bytes); replay: $exe $f"
done
if [ ${#found[@]} -gt 0 ] || [ "$status" -ne 0 ]; then
	grep -E 'contract broken|ERROR: |SUMMARY: |runtime error:' "$dir/fuzz.log" | head -n 5
fi
echo "fuzz $target: ${elapsed} s, ${runs:-0} runs (${rate:-0}/s), cov ${last:+$(field cov)}, ft ${last:+$(field ft)}," \
	"corpus ${units} inputs (${corpus_len} KiB), findings ${#found[@]}"
if [ ${#found[@]} -gt 0 ] || [ "$status" -ne 0 ]; then
	echo "fuzz $target: failed (exit status $status; see $dir/fuzz.log)"
	exit 1
fi
exit 0
