#!/usr/bin/env bash
# Sets up, builds and runs every test: first the suite under AddressSanitizer
# + UndefinedBehaviorSanitizer (all but the multi-GiB e2e_big cases, which run
# the same code paths as the small ones, only longer), then the threads suite
# under ThreadSanitizer (threads-run, in build-tsan), then the fuzzer for
# FUZZ_SECONDS (default 60; scripts/fuzz.sh), then every suite in the normal
# build, whose Criterion Synthesis line ends the log.
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
# the library's calls at once in several threads, in a clang ThreadSanitizer
# build of threads-run alone (Criterion's runner does not start under TSan):
# a race report fails the run
echo "== threads (ThreadSanitizer)"
if { [ -f build-tsan/build.ninja ] ||
	CC=clang meson setup build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null; } &&
	ninja -C build-tsan tests/threads-run >/dev/null; then
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/threads-run >work/tsan.log 2>&1 || status=1
	tail -n 40 work/tsan.log
	if grep -q 'WARNING: ThreadSanitizer' work/tsan.log; then
		echo "threads: ThreadSanitizer reports found (see work/tsan.log)"
		status=1
	fi
else
	echo "threads: cannot build the ThreadSanitizer build (build-tsan)"
	status=1
fi
# the libFuzzer target for a fixed time: one summary line; a finding fails the run
echo "== fuzzing (${FUZZ_SECONDS:-60} s)"
scripts/fuzz.sh "${FUZZ_SECONDS:-60}" || status=1
echo "== tests"
build/tests/unit -j"$jobs" || status=1
exit $status
