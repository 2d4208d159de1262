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

median() {       # the middle of any count of numbers (of an even count, the mean of the two middle ones)
	printf "%s\n" "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

cp_seconds() {   # wall seconds of cp of file $1 (read into the page cache first, written copy removed)
	local s
	cat "$1" >/dev/null
	s=$(seconds_of cp "$1" "$1.cp")
	rm -f "$1.cp"
	echo "$s"
}

measured() {     # run a command under scripts/measure.py: sets $wall (s), $peak (RssAnon KiB) and $cpu (s)
	local m
	sync
	m=$(/usr/bin/python3 scripts/measure.py "$@" 2>&1 >/dev/null | grep '^measure:')
	wall=$(echo "$m" | sed 's/.*wall=\([0-9.]*\).*/\1/')
	peak=$(echo "$m" | sed 's/.*peak_rss_anon_kib=\([0-9]*\).*/\1/')
	cpu=$(echo "$m" | sed 's/.*cpu=\([0-9.]*\).*/\1/')
}
