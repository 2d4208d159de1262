#!/usr/bin/env bash
# Line and branch coverage of src/ by the unit suite (all but the multi-GiB
# e2e_big cases). Builds in build-cov (-Db_coverage=true, unoptimized so
# branches map to the source), runs the suite from zero counts, then prints
# gcovr's summary for src/ and the branch coverage of the files named below.
# Exits 1 when the suite fails. JOBS sets the parallelism (default 2).
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=${JOBS:-2}
files=(src/infer/infer.c src/io/store.c src/io/store_blob.c src/io/sink.c src/io/commit.c src/util/err.c)

[ -f build-cov/build.ninja ] || meson setup build-cov -Db_coverage=true -Dbuildtype=debug >/dev/null
ninja -C build-cov -j"$jobs" >/dev/null
find build-cov -name '*.gcda' -delete
mkdir -p work
if ! build-cov/tests/unit -j"$jobs" --filter='!(e2e_big)/*' >work/coverage.log 2>&1; then
	tail -n 40 work/coverage.log
	echo "coverage: the unit suite failed (see work/coverage.log)"
	exit 1
fi
grep '^\[====\] Synthesis' work/coverage.log

echo "== src/: lines and branches"
gcovr -r . --object-directory build-cov --filter 'src/' --print-summary -o work/coverage.txt
echo "== branches per file"
filters=()
for f in "${files[@]}"; do
	filters+=(--filter "$f")
done
gcovr -r . --object-directory build-cov "${filters[@]}" --branches
