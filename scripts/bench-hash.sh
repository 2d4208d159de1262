#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark of the content digest (src/util/hash.c), before and after a change.
#  1. MB/s (of CPU time) of the key (1 MiB updates) and of the 64-bit chunk
#     check over 1 GiB in memory (scripts/bench-hash.c), for this tree's hash.c and for
#     that of revision BEFORE (default: the commit before src/util/hash.c moved to
#     XXH3), each compiled with -O2 as the build does.
#  2. scs4onnx-shrink of a ~1 GiB model (scripts/gen-model.py llm --size 1G,
#     in one file) with this tree's tool and with BEFORE's (built under
#     work/bench-hash/before), and cp of the same file, in the same run: page
#     cache warm, medians of three runs. SHRINK=0 skips this part.
# Needs ~4 GB of free disk and 1.1 GB of memory. Not a test: it prints figures.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
work=work/bench-hash
mkdir -p "$work"
before=${BEFORE:-$(git log -1 --follow --format=%H -S XXH3_128bits -- src/util/hash.c)^}
before=$(git rev-parse --short "$before")
cc=${CC:-cc}

# 1. the digest alone
rm -rf "$work/src-before"
mkdir -p "$work/src-before"
for f in hash.c hash.h; do
	# (src/ was one folder before it took a folder a layer)
	git show "$before:src/util/$f" >"$work/src-before/$f" 2>/dev/null || git show "$before:src/$f" >"$work/src-before/$f"
done
flags=$(pkg-config --cflags --libs libxxhash)
grep -q SCS_XXH_DISPATCH build/build.ninja && flags+=" -DSCS_XXH_DISPATCH"   # meson.build found the x86 dispatcher
# shellcheck disable=SC2086
$cc -O2 -Isrc -Isrc/util -o "$work/hash-now" scripts/bench-hash.c src/util/hash.c $flags
$cc -O2 -I"$work/src-before" -Isrc -Isrc/util -o "$work/hash-before" scripts/bench-hash.c "$work/src-before/hash.c"
echo "digest over 1 GiB in memory, MB/s of CPU time, best of 5:"
printf "  %-16s " "before ($before)"
"$work/hash-before"
printf "  %-16s " "now"
"$work/hash-now"
[ "${SHRINK:-1}" = 1 ] || exit 0

# 2. a shrink of ~1 GiB
if [ ! -x "$work/before/build/tools/scs4onnx-shrink" ]; then
	rm -rf "$work/before"
	mkdir -p "$work/before"
	git archive "$before" | tar -x -C "$work/before"
	(cd "$work/before" && meson setup build -Dtests=false >/dev/null && ninja -C build tools/scs4onnx-shrink >/dev/null)
fi
model=$work/m.onnx
[ -f "$model" ] || /usr/bin/python3 scripts/gen-model.py llm "$model" --size 1G
cat "$model" >/dev/null
wall() {         # wall seconds of a command (scripts/measure.py)
	/usr/bin/python3 scripts/measure.py "$@" 2>&1 >/dev/null | sed -n 's/^measure: wall=\([0-9.]*\).*/\1/p'
}
declare -A t
for r in 1 2 3; do
	t[cp]+="$(wall cp "$model" "$work/copy.onnx") "
	rm -f "$work/copy.onnx"
	t[before]+="$(wall "$work/before/build/tools/scs4onnx-shrink" "$model" "$work/out.onnx" --non-verbose) "
	rm -f "$work/out.onnx"*
	t[now]+="$(wall build/tools/scs4onnx-shrink "$model" "$work/out.onnx" --non-verbose) "
	rm -f "$work/out.onnx"*
done
median() { printf "%s\n" $1 | sort -g | sed -n 2p; }
cp_s=$(median "${t[cp]}")
echo "shrink of $(stat -c %s "$model") bytes (gen-model.py llm --size 1G), median of 3 (runs: cp ${t[cp]}; before ${t[before]}; now ${t[now]}):"
for v in cp before now; do
	s=$(median "${t[$v]}")
	printf "  %-16s %7.2f s  %6.2f x cp\n" "$v" "$s" "$(echo "$s / $cp_s" | bc -l)"
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$work/m.onnx" "$work/before"
