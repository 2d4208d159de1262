#!/usr/bin/env bash
# Runs every tool of two builds on the same models and compares what they
# write: the output files and folders byte for byte (cmp), the exit status,
# and the messages and --json reports with their timings taken out. For a
# change that must not change behaviour (a move, a split, a clean-up): build
# the tree before it into one folder and after it into another, then
#
#   scripts/same-outputs.sh BUILD_BEFORE BUILD_AFTER [MODEL...]
#
# The models default to the test fixtures of BUILD_AFTER (BUILD_AFTER/tests/
# *.onnx, made by its test build) and the models of ONNX's conformance suite
# (Debian's libonnx-testdata) when it is installed. Each model goes through
# shrink (default, --json, -m npy), optimize (default, and --fold-grow
# --write-shapes), split at 4 KiB and merge of the shards, and big. Prints
# one line per difference and a summary line; exit status 1 on a difference.
# SAME_OUTPUTS_MAX caps the number of models (default: all).
# SPDX-License-Identifier: MIT
set -uo pipefail

if [ $# -lt 2 ] || [ ! -x "$1/tools/scs4onnx-shrink" ] || [ ! -x "$2/tools/scs4onnx-shrink" ]; then
	echo "usage: scripts/same-outputs.sh BUILD_BEFORE BUILD_AFTER [MODEL...]  (two build folders with tools/)" >&2
	exit 2
fi
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
shift 2
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
	shopt -s nullglob
	models=("$after"/tests/*.onnx)
	if [ -d /usr/share/libonnx-testdata/data ]; then
		while IFS= read -r f; do models+=("$f"); done < <(find /usr/share/libonnx-testdata/data -name model.onnx | sort)
	fi
fi
for n in "${!models[@]}"; do
	models[$n]=$(realpath -- "${models[$n]}") || exit 2
done
if [ -n "${SAME_OUTPUTS_MAX:-}" ] && [ "${#models[@]}" -gt "$SAME_OUTPUTS_MAX" ]; then
	models=("${models[@]:0:$SAME_OUTPUTS_MAX}")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/scs-same.XXXXXX") || exit 2
[ -n "${SAME_OUTPUTS_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# The jobs: a name and the arguments after the tool; IN, OUT, DIR and JSON
# stand for the model, the output, a folder and a report.
jobs=(
	"shrink|scs4onnx-shrink IN OUT"
	"shrink-json|scs4onnx-shrink IN OUT --json JSON"
	"shrink-npy|scs4onnx-shrink IN OUT -m npy"
	"optimize|scs4onnx-optimize IN OUT --json JSON"
	"optimize-fold|scs4onnx-optimize IN OUT --fold-grow --write-shapes"
	"split|scs4onnx-split IN DIR --max-shard-size 4K"
	"merge|scs4onnx-merge DIR OUT"
	"big|scs4onnx-big IN OUT --json JSON"
)

# Timings, the I/O counters (the process's own reads of /proc count in them)
# and the build's own folder are the only things allowed to differ.
normalize() {
	sed -E -e 's/[0-9]+\.[0-9]+ s\b/T s/g' -e 's/"seconds": [0-9.]+/"seconds": T/g' -e 's/"bytes_(read|written)": [0-9]+/"bytes_\1": N/g' \
		-e 's/[0-9.]+ (Mi|Gi|Ki)?B\/s/R/g' -e "s#$before#BUILD#g; s#$after#BUILD#g" "$1"
}

# run_job BUILD SIDE MODEL_INDEX MODEL JOB: runs one job in WORK/SIDE/N.
run_job() {
	local build=$1 side=$2 n=$3 model=$4 spec=$5 here args tool a
	here=$work/$side/$n
	mkdir -p "$here"
	read -ra args <<<"${spec#*|}"
	tool=${args[0]}
	args=("${args[@]:1}")
	for a in "${!args[@]}"; do
		case ${args[$a]} in
		IN) args[$a]=$model ;;
		OUT) args[$a]=out.onnx ;;
		DIR) args[$a]=shards ;;
		JSON) args[$a]=report.json ;;
		esac
	done
	(cd "$here" && "$build/tools/$tool" "${args[@]}" </dev/null >stdout 2>stderr; echo $? >status)
}

differ=0 runs=0
report() {
	echo "differs: $*"
	differ=$((differ + 1))
}
for n in "${!models[@]}"; do
	model=${models[$n]}
	for spec in "${jobs[@]}"; do
		name=${spec%%|*}
		# merge reads the shards split made: keep them; every other job starts clean
		if [ "$name" != merge ]; then
			rm -rf "$work/before/$n" "$work/after/$n"
		else
			rm -f "$work/before/$n/out.onnx" "$work/after/$n/out.onnx"
		fi
		run_job "$before" before "$n" "$model" "$spec"
		run_job "$after" after "$n" "$model" "$spec"
		runs=$((runs + 1))
		b=$work/before/$n a=$work/after/$n
		for f in status stdout stderr report.json; do
			[ -e "$b/$f" ] || [ -e "$a/$f" ] || continue
			if ! cmp -s <(normalize "$b/$f" 2>/dev/null) <(normalize "$a/$f" 2>/dev/null); then
				report "$name $model: $f"
				diff <(normalize "$b/$f" 2>/dev/null) <(normalize "$a/$f" 2>/dev/null) | sed -n '2,7s/^/    /p'
			fi
		done
		while IFS= read -r f; do
			[ -e "$a/$f" ] || { report "$name $model: $f only before"; continue; }
			cmp -s "$b/$f" "$a/$f" || report "$name $model: $f"
		done < <(cd "$b" && find . -type f ! -name status ! -name stdout ! -name stderr ! -name report.json | sort)
		while IFS= read -r f; do
			[ -e "$b/$f" ] || report "$name $model: $f only after"
		done < <(cd "$a" && find . -type f | sort)
	done
done
echo "same-outputs: ${#models[@]} models, $runs runs of each build, $differ differences"
[ "$differ" -eq 0 ]
