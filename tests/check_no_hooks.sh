#!/bin/sh
# SPDX-License-Identifier: MIT
# check_no_hooks.sh TOOL... --hooked HOOKED_TOOL...
# The production tools hold no test hook: no *_for_tests function and none
# of the SCS_TEST_* variable names the commit's hooks read. The hooked
# copies the test suite builds must hold both, or this check could not see
# them.
set -u
status=0
hooked=0
for f in "$@"; do
	if [ "$f" = --hooked ]; then
		hooked=1
		continue
	fi
	syms=$(nm -a "$f" 2>/dev/null | grep -c '_for_tests$')
	vars=$(grep -c -a -e 'SCS_TEST_KILL_AT' -e 'SCS_TEST_WRITEBACK_STEP' -e 'SCS_TEST_BREAK_AFTER' "$f")
	if [ "$hooked" = 0 ] && { [ "$syms" -gt 0 ] || [ "$vars" -gt 0 ]; }; then
		echo "$f: holds test hooks ($syms *_for_tests symbols, SCS_TEST_* names: $vars)"
		nm -a "$f" | grep '_for_tests$'
		status=1
	elif [ "$hooked" = 1 ] && { [ "$syms" -eq 0 ] || [ "$vars" -eq 0 ]; }; then
		echo "$f: a hooked tool without its hooks ($syms *_for_tests symbols, SCS_TEST_* names: $vars)"
		status=1
	else
		echo "$f: ok ($syms *_for_tests symbols, SCS_TEST_* names: $vars)"
	fi
done
exit $status
