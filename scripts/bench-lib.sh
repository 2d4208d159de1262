# SPDX-License-Identifier: MIT
# Helpers the benchmark scripts share (sourced, not run).

seconds_of() {   # wall seconds of a command, after a sync so earlier writes do not count
	local t0 t1
	sync
	t0=$(date +%s.%N)
	"$@"
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

median3() {      # the middle of three numbers
	printf "%s\n" "$@" | sort -g | sed -n 2p
}
