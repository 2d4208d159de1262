#!/usr/bin/env bash
# Sets up, builds and runs every test: first the suite under AddressSanitizer
# + UndefinedBehaviorSanitizer (all but the multi-GiB e2e_big cases, which run
# the same code paths as the small ones, only longer), then the two fuzz
# targets for FUZZ_SECONDS together (default 60, half each; scripts/fuzz.sh),
# then every suite in the normal build, whose Criterion Synthesis line ends
# the log.
# SPDX-License-Identifier: MIT
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1
scripts/build.sh || exit 1
# the rooms keep to their levels (scripts/check-layers.sh, README "How it works")
scripts/check-layers.sh || exit 1
[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null || exit 1
ninja -C build-asan >/dev/null || exit 1

jobs=$(nproc)
status=0
echo "== sanitizers (ASan + UBSan)"
mkdir -p work
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	build-asan/tests/unit -j"$jobs" --filter='!(e2e_big)/*' >work/asan.log 2>&1 || status=1
# failures in full, then the sanitizer run's own summary
grep -v '^\[====\] Synthesis' work/asan.log | tail -n 40
grep '^\[====\] Synthesis' work/asan.log | sed 's/^\[====\] Synthesis/[sanitizers] Synthesis/'
# a sanitizer report in any test process fails the run, even where the test itself passed
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' work/asan.log; then
	echo "sanitizers: reports found (see above and work/asan.log)"
	status=1
fi
# the two libFuzzer targets for a fixed time, split between them: one summary
# line each; a finding fails the run
fuzz_seconds=${FUZZ_SECONDS:-60}
echo "== fuzzing (${fuzz_seconds} s)"
scripts/fuzz.sh $((fuzz_seconds - fuzz_seconds / 2)) scs || status=1
scripts/fuzz.sh $((fuzz_seconds / 2)) opt || status=1
echo "== tests"
build/tests/unit -j"$jobs" || status=1
exit $status
