#!/usr/bin/env bash
# Bytes read from the disk and wall time of scs4onnx-shrink, -big, -optimize
# and -merge on models larger than the memory they may use: each command runs
# with a cold page cache inside a memory cgroup (MEM, default 1G), so a file
# read twice comes from the disk twice, as it does for a 40 GB model on a
# 32 GB machine. Beside each tool, `cp` of the same files in the same cgroup,
# interleaved with the tools, gives the floor: reading the input once and
# writing as many bytes.
#
# Generates in WORK (default work/bench-cold; the models are removed at the end
# unless KEEP=1, and WORK when that leaves it empty) three models of about SIZE
# bytes (default 3G) with scripts/gen-model.py:
#   (e) llm --external                 external data, few duplicates (the
#                                      tied embedding and the small per-layer
#                                      tables: 8% of the payload bytes)
#   (i) inline                         the same in one .onnx (over 2 GiB from
#                                      SIZE=2.1G on)
#   (d) llm --external --seq 448 --hidden 2048
#                                      about a third of the bytes duplicates:
#                                      the rotary tables and causal mask of a
#                                      448-token sequence ([448,2048] twice and
#                                      [448,448]) copied in every layer beside
#                                      its distinct [2048,2048] weight, and the
#                                      tied embedding: 34% at 3G, 33% at 400M.
#                                      2048 is the hidden size gen-model picks
#                                      from SIZE=256M up; fixed, the share
#                                      holds below that too. gen-model's
#                                      summary line, printed, gives the
#                                      payload bytes left after dedup.
# Then, per model, RUNS rounds (default 5) of: cp of its files into an output
# folder on the same disk, the same cp then `sync` of the copies (cp+fsync: the
# copy made as durable as the tools make their outputs, which they fsync before
# they end), then scs4onnx-shrink, -big and -optimize IN OUT -n -f
# (CMDS="shrink big" picks the tools, MODELS="e i" the models; cp and
# cp+fsync always run; BEFORE=DIR adds the tools of another build, each run right after its
# twin, "before:shrink" in the output), and scs4onnx-merge of the model's
# shards (CMDS=merge; scs4onnx-split cuts the model into shards of at most
# 1.8 GiB once, before the rounds, unmeasured: merge's read ratio is to the
# shards' bytes). ARGS="..." adds options to every tool (ARGS="--max-data-file-size
# 1G": numbered data files). NOSYNC=1 adds each tool run under eatmydata
# (Debian's eatmydata: fsync, fdatasync and sync_file_range made no-ops),
# "nosync:shrink" in the output: the output left in the page cache as cp
# leaves its copy, not durable; what the tools' wall is without the wait for
# the disk, to set beside cp's. BPS=300M throttles the disk WORK is on to
# that many bytes a second of reads and as many of writes, at once (cgroup
# v1's blkio.throttle.read_bps_device and write_bps_device of the blkio
# hierarchy's root, so that the kernel's writeback of cp's copy is throttled
# as the tools' own writes are; the rules are taken back at the end): a disk
# that reads and writes at the same time, each at BPS, as many disks do and
# some do not. Pick BPS below what the disk reads and writes at its slowest,
# and the walls stop moving with the disk's own speed. Cold
# only; on cgroup v2 it says it needs v1 and exits 1. Before every command the previous
# output is removed, `sync` runs and the page cache is dropped (echo 3 >
# /proc/sys/vm/drop_caches); a second later (the machine's other processes
# have read back what they run on) the command runs in the cgroup through
# `sh -c 'echo $$ > GROUP/cgroup.procs && exec CMD'`, under scripts/measure.py,
# which stays outside the group and gives:
#   - the wall time from the command's start to its end (what it leaves dirty
#     in the page cache, at most MEM in the cgroup, is not waited for);
#   - the bytes read from the disk: the difference of pgpgin of /proc/vmstat
#     (KiB) over the command. The count is the whole machine's: every
#     process's reads count, so the machine should be otherwise idle (the
#     command's own binary and libraries, read cold, are a few MiB of it);
#   - the peak RssAnon of the command's process (sampled from
#     /proc/PID/status every 5 ms): the tool's own memory. The cgroup's own
#     peak is not used: it counts the page cache the command fills, which
#     reaches the limit for any large file;
#   - the exit status: a failing run (an error, or the cgroup's OOM killer) is
#     printed with its last line of stderr, and the script exits 1 at the end.
# Prints, per model, its input bytes and per command: the median wall and its
# ratio to cp's median in the same run of the script, the median GiB read from
# the disk and its ratio to the input's bytes, the highest peak RssAnon, and
# the wall and GiB read of each run; then which commands meet the bars of
# issue 26 (read <= 1.1x the input, median wall <= 1.15x cp's) and, with
# BEFORE, each tool's median wall over the build before's: printed, not
# asserted.
#
# Cold (the default) needs root, a memory cgroup and a writable
# /proc/sys/vm/drop_caches; without them it says what is missing in one line
# and exits 1 without measuring. The group is made for the run and removed at
# the end: with cgroup v2 (a hierarchy with the memory controller) a child of
# the hierarchy's root with memory.max (+memory is added to the root's
# cgroup.subtree_control when missing, and taken back at the end); with cgroup
# v1, a child of the memory group the script runs in, with
# memory.limit_in_bytes. CGROUP_PARENT=DIR makes it under another group.
# COLD=0 measures the same without the cgroup and with a warm cache (the
# model's files, or for merge its shards, read just before each command; no
# root needed): the "no
# slower than today" figures, with BEFORE=DIR.
#
#   SIZE=3G MEM=1G RUNS=5 scripts/bench-cold.sh
#   COLD=0 BEFORE=../old/build/tools MODELS="e i" CMDS="shrink big" scripts/bench-cold.sh
# Builds with scripts/setup.sh and scripts/build.sh unless NO_BUILD=1; the
# tools are those of build/tools, or of TOOLS=DIR. Needs about 2x SIZE of
# free disk in WORK (one model and one output at a time; 4x with KEEP=1).
# cp's own read ratio is the check of a run: near 1.0 the count is clean. A
# busy machine adds its reads, and in a cgroup much smaller than the file cp
# itself may read up to 2x, run to run (read-ahead evicted before use: seen
# at SIZE=400M MEM=256M), so the small sizes only check the script.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

size=${SIZE:-3G}
mem=${MEM:-1G}
runs=${RUNS:-5}
cold=${COLD:-1}
nosync=${NOSYNC:-0}
bps=${BPS:-}
work=${WORK:-work/bench-cold}
models=${MODELS:-e i d}
cmds=${CMDS:-shrink big optimize merge}
tools=${TOOLS:-build/tools}
before=${BEFORE:-}

usage() {
	echo "bench-cold: $*" >&2
	exit 2
}
for m in $models; do case $m in e | i | d) ;; *) usage "MODELS: unknown model '$m' (e, i, d)" ;; esac done
for c in $cmds; do case $c in shrink | big | optimize | merge) ;; *) usage "CMDS: unknown command '$c' (shrink, big, optimize, merge)" ;; esac done
read -r -a args <<<"${ARGS:-}"
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage "RUNS: '$runs' is not a positive count"
[[ $cold =~ ^[01]$ ]] || usage "COLD: '$cold' is neither 0 nor 1"
[[ $nosync =~ ^[01]$ ]] || usage "NOSYNC: '$nosync' is neither 0 nor 1"
mem_bytes=$(numfmt --from=iec "$mem" 2>/dev/null) || usage "MEM: '$mem' is not a size (1G, 512M)"
bps_bytes=""
if [ -n "$bps" ]; then
	bps_bytes=$(numfmt --from=iec "$bps" 2>/dev/null) || usage "BPS: '$bps' is not a size a second (300M)"
	[ "$bps_bytes" -gt 0 ] || usage "BPS: '$bps' is not a size a second (300M)"
	[ "$cold" = 1 ] || usage "BPS: the disk is throttled for cold runs only (COLD=1)"
fi

group=""        # the cgroup made for the run
subtree=""      # the cgroup.subtree_control the script added +memory to
throttled=()    # the blkio.throttle files the script wrote a rule into, and the device: "FILE MAJ:MIN"
child=""        # the process the script waits for (in a session of its own: the group of its processes is -$child)
made_work=0     # WORK's files are the script's to remove: [eid].onnx, [ed].onnx.data, [eid].shards/, out/, gen.log, cmd.err

# Stops what the script started, removes the group and the files it made in
# WORK (the models kept when KEEP=1), and WORK when that leaves it empty.
# shellcheck disable=SC2317 # run by the traps
cleanup() {
	local p _
	trap - EXIT INT TERM
	if [ -n "$child" ]; then
		kill -TERM -- "-$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if [ -n "$group" ] && [ -d "$group" ]; then
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			[ -s "$group/cgroup.procs" ] || break
			while read -r p; do kill -KILL "$p" 2>/dev/null || true; done <"$group/cgroup.procs"
			sleep 0.2
		done
		rmdir "$group" 2>/dev/null || echo "bench-cold: could not remove the cgroup $group" >&2
	fi
	if [ -n "$subtree" ]; then
		echo -memory >"$subtree" 2>/dev/null || true
	fi
	for p in "${throttled[@]}"; do
		echo "${p#* } 0" >"${p%% *}" 2>/dev/null || echo "bench-cold: could not take back the rule in ${p%% *}" >&2
	done
	if [ "$made_work" = 1 ]; then
		rm -rf "$work/out" "$work/gen.log" "$work/cmd.err" "$work"/[eid].shards
		[ "${KEEP:-0}" = 1 ] || rm -f "$work"/[eid].onnx "$work"/[ed].onnx.data
		rmdir "$work" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# Makes the memory cgroup of the run (sets $group) or says in one line what is
# missing.
make_group() {
	local missing=() line v1 v2 own parent name=scs4onnx-bench-cold.$$
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	v1=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,memory,/ { print $2; exit }' /proc/mounts)
	[ "$(id -u)" = 0 ] || missing+=("root (to drop the page cache and to run commands in a cgroup: run it with sudo)")
	if [ -n "$v2" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
		v1=""
	elif [ -z "$v1" ]; then
		v2=""
		missing+=("a memory cgroup (a cgroup2 hierarchy with the memory controller, or cgroup v1's memory hierarchy mounted)")
	else
		v2=""
	fi
	if [ ${#missing[@]} = 0 ] && ! { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
		missing+=("a writable /proc/sys/vm/drop_caches (a container's /proc/sys is read-only: run it on the host)")
	fi
	if [ ${#missing[@]} != 0 ]; then
		printf -v line '%s; ' "${missing[@]}"
		echo "bench-cold: cannot measure with a cold cache in a memory cgroup: needs $line""COLD=0 measures with a warm cache and no cgroup" >&2
		exit 1
	fi
	if [ -n "${CGROUP_PARENT:-}" ] && [ ! -e "$CGROUP_PARENT/cgroup.procs" ]; then
		echo "bench-cold: cannot measure in a memory cgroup: CGROUP_PARENT=$CGROUP_PARENT is not a cgroup folder" >&2
		exit 1
	fi
	if [ -n "$v2" ]; then
		parent=${CGROUP_PARENT:-$v2}
		if ! grep -qw memory "$parent/cgroup.subtree_control"; then
			if ! { echo +memory >"$parent/cgroup.subtree_control"; } 2>/dev/null; then
				echo "bench-cold: cannot measure in a memory cgroup: the cgroup $parent refuses +memory in its cgroup.subtree_control (a group with processes of its own cannot delegate; CGROUP_PARENT=DIR names another parent)" >&2
				exit 1
			fi
			subtree=$parent/cgroup.subtree_control
		fi
		mkdir "$parent/$name"
		group=$parent/$name
		echo "$mem_bytes" >"$group/memory.max"
		[ ! -e "$group/memory.swap.max" ] || echo 0 >"$group/memory.swap.max"
		cgroup_kind="cgroup v2, memory.max"
	else
		own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
		parent=${CGROUP_PARENT:-$v1$own}
		[ -d "$parent" ] || parent=$v1   # the script's own group is not in this mount's view
		mkdir "$parent/$name"
		group=$parent/$name
		echo "$mem_bytes" >"$group/memory.limit_in_bytes"
		cgroup_kind="cgroup v1, memory.limit_in_bytes"
	fi
	if ! sh -c 'echo $$ >"$0"' "$group/cgroup.procs" 2>/dev/null; then
		echo "bench-cold: cannot measure in a memory cgroup: a process cannot join $group" >&2
		exit 1
	fi
}

# Throttles the disk WORK is on to BPS each way (sets $throttle_kind), or says
# in one line what is missing.
throttle_disk() {
	local root src disk majmin f at=$work
	root=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,blkio,/ { print $2; exit }' /proc/mounts)
	if [ -z "$root" ] || [ ! -w "$root/blkio.throttle.read_bps_device" ]; then
		echo "bench-cold: BPS=$bps throttles the disk through cgroup v1's blkio hierarchy, which this machine does not mount (with cgroup v2 alone it is not done here)" >&2
		exit 1
	fi
	while [ ! -e "$at" ]; do at=$(dirname "$at"); done    # WORK is made later
	src=$(findmnt -no SOURCE -T "$at" 2>/dev/null || true)
	disk=$(lsblk -ndo PKNAME "$src" 2>/dev/null || true)
	[ -n "$disk" ] && disk=/dev/$disk || disk=$src
	majmin=$(lsblk -ndo MAJ:MIN "$disk" 2>/dev/null | tr -d ' ' || true)
	if [ -z "$majmin" ]; then
		echo "bench-cold: BPS=$bps: cannot tell the disk $work is on (findmnt gives '${src:-nothing}')" >&2
		exit 1
	fi
	for f in read write; do
		if ! { echo "$majmin $bps_bytes" >"$root/blkio.throttle.${f}_bps_device"; } 2>/dev/null; then
			echo "bench-cold: BPS=$bps: the kernel refuses a $f throttle on $disk ($majmin)" >&2
			exit 1
		fi
		throttled+=("$root/blkio.throttle.${f}_bps_device $majmin")
	done
	throttle_kind="; $disk throttled to $bps/s of reads and $bps/s of writes at once"
}

wrap=()
throttle_kind=""
if [ "$cold" = 1 ]; then
	[ -z "$bps" ] || throttle_disk
	make_group
	# shellcheck disable=SC2016 # $$ and $@ are the wrapper shell's
	wrap=(sh -c 'echo $$ >"$0" && exec "$@"' "$group/cgroup.procs")
fi

if [ "${NO_BUILD:-0}" != 1 ]; then
	scripts/setup.sh
	scripts/build.sh
fi
names=(cp cp+fsync)        # what each round runs, in order
if [ "$nosync" = 1 ] && ! command -v eatmydata >/dev/null; then
	echo "bench-cold: NOSYNC=1 runs the tools under eatmydata, which is not installed (apt-get install eatmydata)" >&2
	exit 1
fi
for c in $cmds; do
	[ -x "$tools/scs4onnx-$c" ] || { echo "bench-cold: no $tools/scs4onnx-$c (build first, or TOOLS=DIR)" >&2; exit 1; }
	names+=("$c")
	[ "$nosync" = 0 ] || names+=("nosync:$c")
	[ -n "$before" ] || continue
	[ -x "$before/scs4onnx-$c" ] || { echo "bench-cold: no $before/scs4onnx-$c (BEFORE=DIR: the tools of the build before)" >&2; exit 1; }
	names+=("before:$c")
done

mkdir -p "$work"
made_work=1
out=$work/out

# waits for the background process $child; its exit status
wait_child() {
	local s=0
	wait "$child" || s=$?
	child=""
	return $s
}

gen() {          # gen NAME KIND [OPTIONS...]: the model NAME.onnx in WORK
	local name=$1 kind=$2
	shift 2
	setsid /usr/bin/python3 scripts/gen-model.py "$kind" "$work/$name.onnx" --size "$size" "$@" 2>"$work/gen.log" &
	child=$!
	wait_child || { cat "$work/gen.log" >&2; exit 1; }
	sed -n 's/^gen-model: /   /p' "$work/gen.log"
}

oom_kills() {    # the count of processes the cgroup's OOM killer stopped
	[ -n "$group" ] || return 0
	{ cat "$group/memory.oom_control" "$group/memory.events" 2>/dev/null || true; } | awk '$1 == "oom_kill" { print $2 }'
}

# run_one NAME: one measured run of NAME (cp, a tool, before:TOOL or nosync:TOOL) on the model of
# ${files[@]}; sets $wall, $kib (pgpgin), $peak (RssAnon KiB), $status, $err
run_one() {
	local m cmd oom0
	rm -rf "$out"
	mkdir -p "$out"
	if [ "$cold" = 1 ]; then
		sync
		echo 3 >/proc/sys/vm/drop_caches
		sleep 1   # the machine's other processes read back what they run on, before the count starts
	else
		case $1 in
		merge | before:merge | nosync:merge) cat "$shards"/* >/dev/null ;;
		*) cat "${files[@]}" >/dev/null ;;
		esac
		sync
	fi
	case $1 in
	cp) cmd=(cp "${files[@]}" "$out/") ;;
	cp+fsync)
		# the copy made durable, as the tools make their outputs (each file fsynced before the run ends)
		# shellcheck disable=SC2016 # $1 and $@ are the wrapper shell's
		cmd=(sh -c 'o=$1; shift; cp "$@" "$o/" && sync "$o"/*' sh "$out" "${files[@]}")
		;;
	merge) cmd=("$tools/scs4onnx-merge" "$shards" "$out/out.onnx" -n -f "${args[@]}") ;;
	before:merge) cmd=("$before/scs4onnx-merge" "$shards" "$out/out.onnx" -n -f "${args[@]}") ;;
	before:*) cmd=("$before/scs4onnx-${1#before:}" "${files[0]}" "$out/out.onnx" -n -f "${args[@]}") ;;
	nosync:merge) cmd=(eatmydata "$tools/scs4onnx-merge" "$shards" "$out/out.onnx" -n -f "${args[@]}") ;;
	nosync:*) cmd=(eatmydata "$tools/scs4onnx-${1#nosync:}" "${files[0]}" "$out/out.onnx" -n -f "${args[@]}") ;;
	*) cmd=("$tools/scs4onnx-$1" "${files[0]}" "$out/out.onnx" -n -f "${args[@]}") ;;
	esac
	oom0=$(oom_kills)
	setsid /usr/bin/python3 scripts/measure.py "${wrap[@]}" "${cmd[@]}" >/dev/null 2>"$work/cmd.err" &
	child=$!
	wait_child || true
	m=$(grep '^measure:' "$work/cmd.err" | tail -n 1 || true)
	wall=$(echo "$m" | sed -n 's/.* wall=\([0-9.]*\).*/\1/p')
	kib=$(echo "$m" | sed -n 's/.* pgpgin_kib=\([0-9]*\).*/\1/p')
	peak=$(echo "$m" | sed -n 's/.* peak_rss_anon_kib=\([0-9]*\).*/\1/p')
	status=$(echo "$m" | sed -n 's/.* exit=\(-\?[0-9]*\).*/\1/p')
	err=$(grep -v '^measure:' "$work/cmd.err" | tail -n 1 || true)
	[ -n "$status" ] || status="?"
	case $status in
	-*) err="killed by signal ${status#-}${err:+; $err}" ;;
	esac
	if [ "$cold" = 1 ] && [ "$(oom_kills)" != "$oom0" ]; then
		err="the cgroup's OOM killer stopped it (MEM=$mem)${err:+; $err}"
	fi
}

bytes_of() {
	local n=0 f
	for f in "$@"; do n=$((n + $(stat -c %s "$f"))); done
	echo $n
}

if [ "$cold" = 1 ]; then
	echo "cold cache, in a memory cgroup of $mem ($cgroup_kind)$throttle_kind; runs of each command: $runs; SIZE=$size"
else
	echo "warm cache (files read before each command), no cgroup; runs of each command: $runs; SIZE=$size"
fi

summary=()
failed=0
for model in $models; do
	case $model in
	e) what="llm, external data, few duplicates"; gen_args=(llm --external) ;;
	i) what="one inline file"; gen_args=(inline) ;;
	d) what="llm, external data, about a third duplicates"; gen_args=(llm --external --seq 448 --hidden 2048) ;;
	esac
	echo
	echo "== ($model) $what"
	gen "$model" "${gen_args[@]}"
	files=("$work/$model.onnx")
	[ ! -e "$work/$model.onnx.data" ] || files+=("$work/$model.onnx.data")
	input=$(bytes_of "${files[@]}")
	echo "   input: $input bytes ($(awk -v b="$input" 'BEGIN { printf "%.2f", b / 2^30 }') GiB)"
	shards=$work/$model.shards
	shards_input=$input
	if [[ " $cmds " == *" merge "* ]]; then
		rm -rf "$shards"
		"$tools/scs4onnx-split" "${files[0]}" "$shards" -n || { echo "bench-cold: scs4onnx-split of ($model) failed" >&2; exit 1; }
		shards_input=$(bytes_of "$shards"/*)
		echo "   shards for merge: $(find "$shards" -type f | wc -l) files, $shards_input bytes"
	fi

	declare -A walls=() reads=() peaks=() fails=() meds=() kibs=()
	for ((r = 1; r <= runs; r++)); do
		for c in "${names[@]}"; do
			run_one "$c"
			walls[$c]="${walls[$c]:-} $wall"
			reads[$c]="${reads[$c]:-} $kib"
			[ "${peaks[$c]:-0}" -ge "${peak:-0}" ] || peaks[$c]=$peak
			if [ "$status" != 0 ]; then
				fails[$c]="${fails[$c]:-}; run $r: exit $status${err:+: $err}"
				failed=1
			fi
		done
	done
	rm -rf "$out" "$work/cmd.err" "$shards"

	for c in "${names[@]}"; do
		# shellcheck disable=SC2086 # the lists are words
		meds[$c]=$(median ${walls[$c]})
		# shellcheck disable=SC2086
		kibs[$c]=$(median ${reads[$c]})
	done
	for c in "${names[@]}"; do
		in_c=$input
		case $c in merge | before:merge | nosync:merge) in_c=$shards_input ;; esac
		awk -v c="$c" -v ws="${walls[$c]}" -v ks="${reads[$c]}" -v m="${meds[$c]}" -v cpm="${meds[cp]}" \
			-v k="${kibs[$c]}" -v in_b="$in_c" -v p="${peaks[$c]:-0}" 'BEGIN {
			n = split(ws, w, " "); s = ""
			for (i = 1; i <= n; i++) s = s sprintf(" %.2f", w[i])
			n = split(ks, r, " "); g = ""
			for (i = 1; i <= n; i++) g = g sprintf(" %.2f", r[i] / 2^20)
			printf "   %-15s median %.2f s, %.2fx cp; read %.2f GiB, %.2fx input; peak RssAnon %.1f MiB\n", c, m,
				(cpm > 0 ? m / cpm : 0), k / 2^20, k * 1024 / in_b, p / 1024
			printf "   %-15s runs: wall%s s; read%s GiB\n", "", s, g }'
		[ -z "${fails[$c]:-}" ] || echo "   $c FAILED: ${fails[$c]#; }"
		case $c in cp | cp+fsync) continue ;; esac
		if [ -n "${fails[$c]:-}" ] || [ -n "${fails[cp]:-}" ]; then
			summary+=("$(printf "(%s) %-15s FAILED (see above)" "$model" "$c")")
		elif [ "$cold" = 1 ]; then
			summary+=("$(awk -v c="$c" -v mo="$model" -v m="${meds[$c]}" -v cpm="${meds[cp]}" -v k="${kibs[$c]}" \
				-v cfm="${meds[cp+fsync]}" -v in_b="$in_c" 'BEGIN {
				r = k * 1024 / in_b; w = (cpm > 0 ? m / cpm : 0); wf = (cfm > 0 ? m / cfm : 0)
				printf "(%s) %-15s read %.2fx input: %s; wall %.2fx cp: %s (%.2fx cp+fsync)", mo, c, r,
					(r <= 1.1 ? "meets 1.1x" : "OVER 1.1x"), w, (w <= 1.15 ? "meets 1.15x" : "OVER 1.15x"), wf }')")
		fi
	done
	if [ -n "$before" ]; then
		for c in $cmds; do
			[ -z "${fails[$c]:-}${fails[before:$c]:-}" ] || continue
			summary+=("$(awk -v c="$c" -v mo="$model" -v m="${meds[$c]}" -v mb="${meds[before:$c]}" -v k="${kibs[$c]}" \
				-v kb="${kibs[before:$c]}" -v p="${peaks[$c]:-0}" -v pb="${peaks[before:$c]:-0}" 'BEGIN {
				w = (mb > 0 ? m / mb : 0)
				printf "(%s) %-15s median wall %.2fx before'"'"'s (%.2f s, before %.2f s): %s; read %.2f GiB, before %.2f GiB;" \
					" peak RssAnon %.1f MiB, before %.1f MiB", mo, c, w, m, mb,
					(w <= 1 ? "no slower" : sprintf("slower by %.0f%%", 100 * (w - 1))), k / 2^20, kb / 2^20, p / 1024, pb / 1024 }')")
		done
	fi
	unset walls reads peaks fails meds kibs
	rm -f "$work/gen.log"
	[ "${KEEP:-0}" = 1 ] || rm -f "${files[@]}"
done

echo
if [ "$cold" = 1 ]; then
	echo "== issue 26's bars (cold cache, in the cgroup: read <= 1.1x the input, median wall <= 1.15x cp's)${before:+; against the build before}"
else
	echo "== warm cache, no cgroup: issue 26 asks for walls no slower than today's${before:+ (the build before)}"
	[ -n "$before" ] || echo "   BEFORE=DIR (the tools of the build before) runs them in the same rounds, for the comparison"
fi
[ ${#summary[@]} = 0 ] || printf "   %s\n" "${summary[@]}"
exit $failed
