#!/usr/bin/env bash
# Sets up, builds and runs the tests, saying first what it runs and about
# how long, then one line per stage with the time since the start, then only
# the failures and a summary; each stage's whole log is in build/test-logs/.
#
#   scripts/test.sh           every test: first the suite under AddressSanitizer
#                             + UndefinedBehaviorSanitizer (all but the multi-GiB
#                             e2e_big cases, which run the same code paths as the
#                             small ones, only longer), then the threads suite
#                             under ThreadSanitizer (threads-run, in build-tsan),
#                             then the two fuzz targets for FUZZ_SECONDS (default 60,
#                             half each; scripts/fuzz.sh), then every suite in the normal
#                             build; about 20 minutes on two cores
#   scripts/test.sh --quick   the unit tier alone (the tests that need neither
#                             Python nor Node), in the normal build; a few minutes
#
# The Criterion Synthesis line of the last stage ends the output. Exit status
# 1 when anything failed.
# SPDX-License-Identifier: MIT
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
jobs=$(nproc)
fuzz_seconds=${FUZZ_SECONDS:-60}
# the suites the unit tier leaves out (tests/meson.build: e2e_suites, large_suites)
unit_filter='!(e2e|downcast_ops|conformance|install|e2e_big)/*'
logs=build/test-logs
start=$SECONDS

if [ $quick = 1 ]; then
	echo "test: the unit tier ($jobs jobs): setup, build, then the tests that need neither Python nor Node;"
	echo "test: a few minutes on two cores; only failures and a summary are printed, logs in $logs/"
else
	echo "test: every test ($jobs jobs): setup and build, then under ASan + UBSan (about 45 minutes on two"
	echo "test: cores), threads under TSan (1 minute), two fuzzers ($fuzz_seconds s), every suite (25 minutes):"
	echo "test: about 75 minutes on two cores; only failures and a summary are printed, logs in $logs/"
	echo "test: (scripts/test.sh --quick: the unit tier alone, a few minutes)"
fi

# "[m:ss] what": a stage begins
stage() {
	local t=$((SECONDS - start))
	printf '[%d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*"
}

# The failures of a Criterion log: the assertion messages and the FAIL,
# crash and error lines (not what passing tests print).
failures() {
	grep -E '^\[(----|FAIL|ERR |WARN)\]' "$1" | grep -v '^\[----\] Criterion v' | tail -n 200
}

# Status 0 when the Criterion summary of log $1 says that tests ran and every
# one passed.
every_test_passed() {
	grep '^\[====\] Synthesis' "$1" |
		awk '{ ok = $4 > 0 && $4 == $7 && $10 == 0 && $13 == 0 } END { exit ok ? 0 : 1 }'
}

stage "setup and build"
scripts/setup.sh || exit 1
scripts/build.sh || exit 1
# the folders keep to their layers (scripts/check-layers.sh, docs/ARCHITECTURE.md)
scripts/check-layers.sh || exit 1
mkdir -p "$logs"
status=0

if [ $quick = 1 ]; then
	stage "unit tier"
	SCS_TEST_TIER=unit build/tests/unit -j"$jobs" --filter="$unit_filter" >"$logs/unit.log" 2>&1 || status=1
	failures "$logs/unit.log"
	stage "done"
	grep '^\[====\] Synthesis' "$logs/unit.log" || { echo "test: the unit tier did not finish (see $logs/unit.log)"; status=1; }
	exit $status
fi

stage "build under the sanitizers (build-asan)"
[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null || exit 1
ninja -C build-asan >/dev/null || exit 1
stage "tests under ASan + UBSan"
# (the runner's own exit status is not the verdict here: LeakSanitizer fails it
# for the allocation Criterion's runner keeps; the summary and the reports are)
# Left to the last stage: e2e_big (models of gigabytes) and spill's every-fixture comparison (some
# 2000 runs of the tools on every fixture, byte for byte, which takes an hour under the sanitizers;
# the spill's other tests run its paths here on models chosen to reach them). The conformance suite
# and the differential set run every fifth case here (SCS_TEST_STRIDE: 25 minutes each whole under
# the sanitizers), every case in the last stage.
SCS_TEST_STRIDE=5 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	build-asan/tests/unit -j"$jobs" --filter='!(e2e_big/*|spill/every_fixture_shrinks_to_the_same_bytes)' \
	>"$logs/asan.log" 2>&1
failures "$logs/asan.log"
grep '^\[====\] Synthesis' "$logs/asan.log" | sed 's/^\[====\] Synthesis/[sanitizers] Synthesis/'
every_test_passed "$logs/asan.log" || status=1
# a sanitizer report in any test process fails the run, even where the test itself passed
# (scripts/sanitizer-reports.awk: a leak of Criterion's runner alone is not ours)
if ! awk -f scripts/sanitizer-reports.awk "$logs/asan.log" >"$logs/asan-reports.log"; then
	head -n 40 "$logs/asan-reports.log"
	echo "sanitizers: reports found (see $logs/asan.log)"
	status=1
fi

# the library's calls at once in several threads, in a clang ThreadSanitizer
# build of threads-run alone (Criterion's runner does not start under TSan):
# a race report fails the run
stage "threads under ThreadSanitizer (build-tsan)"
if { [ -f build-tsan/build.ninja ] ||
	CC=clang meson setup build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null; } &&
	ninja -C build-tsan tests/threads-run >/dev/null; then
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/threads-run >"$logs/tsan.log" 2>&1 || {
		tail -n 40 "$logs/tsan.log"
		status=1
	}
	if grep -q 'WARNING: ThreadSanitizer' "$logs/tsan.log"; then
		echo "threads: ThreadSanitizer reports found (see $logs/tsan.log)"
		status=1
	fi
else
	echo "threads: cannot build the ThreadSanitizer build (build-tsan)"
	status=1
fi

# the two libFuzzer targets for a fixed time, split between them: one
# summary line each; a finding fails the run
stage "fuzzing ($fuzz_seconds s)"
scripts/fuzz.sh $((fuzz_seconds - fuzz_seconds / 2)) scs || status=1
scripts/fuzz.sh $((fuzz_seconds / 2)) opt || status=1

stage "every test"
build/tests/unit -j"$jobs" >"$logs/unit.log" 2>&1 || status=1
failures "$logs/unit.log"
stage "done"
grep '^\[====\] Synthesis' "$logs/unit.log" || { echo "test: the tests did not finish (see $logs/unit.log)"; status=1; }
exit $status
