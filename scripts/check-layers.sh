#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that the library keeps to its layers. Each folder of src/ is a
# layer; the table below orders them (the only place the order is written;
# docs/ARCHITECTURE.md describes each folder). A file may include a project
# header of its own folder or of a lower layer, named with its folder
# ("io/store.h"), never one of a higher layer nor of another folder of its
# own layer; the files at the top of src/ (api, abi, report) may include
# every folder, and no folder may include them. A third-party header is
# included only by the files listed for it. Prints one line per violation
# and exits 1; prints one line and exits 0 when there is none.
#
# Usage: scripts/check-layers.sh [ROOT]   (ROOT: the tree holding src/;
#                                          default: this script's project)
set -euo pipefail

# layer  folders of src/ ("." is the top of src/)
layers='
0 util
1 io
2 onnx
3 eval
4 model
5 infer
6 shrink shard opt check
7 .
'

# third-party header   files (names without extension) that may include it
third_party='
lmdb.h store store_impl store_blob
zstd.h codec
xxhash.h hash
openssl/evp.h hash
protobuf-c/protobuf-c.h scan model shard emit walk pack
onnx.pb-c.h scan model sealed array shard emit eval walk pack attr
'

root=${1:-"$(dirname "$0")/.."}
if [ ! -d "$root/src" ]; then
	echo "check-layers: $root/src: no such folder" >&2
	exit 2
fi

# The layer of folder $1 (the first part of a path below src/; "." for the
# top) on stdout; status 1 when the table has none.
layer_of() {
	local row
	while read -ra row; do
		[ "${#row[@]}" -gt 1 ] || continue
		for f in "${row[@]:1}"; do
			if [ "$1" = "$f" ]; then
				echo "${row[0]}"
				return 0
			fi
		done
	done <<<"$layers"
	return 1
}

# The files that may include third-party header $1 on stdout; status 1 when
# $1 is not a third-party header of the table.
files_for() {
	local hdr files
	while read -r hdr files; do
		if [ -n "$hdr" ] && [ "$hdr" = "$1" ]; then
			echo "$files"
			return 0
		fi
	done <<<"$third_party"
	return 1
}

# The folder of path $1 below src/ ("." for a file at the top).
folder_of() {
	case $1 in
	*/*) echo "${1%%/*}" ;;
	*) echo . ;;
	esac
}

# How folder $1 is named in a message.
shown_folder() {
	if [ "$1" = . ]; then echo "the top of src/"; else echo "src/$1"; fi
}

include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"][^>"]*[>"])'
bad=0
n_files=0
while IFS= read -r rel; do
	name=src/$rel
	room=${rel##*/}
	room=${room%.*}
	folder=$(folder_of "$rel")
	n_files=$((n_files + 1))
	if ! lvl=$(layer_of "$folder"); then
		echo "$name: folder src/$folder has no layer (add it to the table in scripts/check-layers.sh and to docs/ARCHITECTURE.md)"
		bad=1
		continue
	fi
	while IFS= read -r line; do
		[[ $line =~ $include_re ]] || continue
		shown=${BASH_REMATCH[1]}
		inc=${shown:1:${#shown}-2}
		if allowed=$(files_for "$inc"); then
			if [[ " $allowed " != *" $room "* ]]; then
				echo "$name: #include $shown: $inc stays in ${allowed// /, }; $room may not include it"
				bad=1
			fi
			continue
		fi
		case $shown in
		\<*) continue ;;          # libc, POSIX and the public headers
		esac
		if [ ! -f "$root/src/$inc" ]; then
			# a header of the build (onnx.pb-c.h is in the table above)
			echo "$name: #include $shown: no such file in src/ (a project header is named with its folder)"
			bad=1
			continue
		fi
		inc_folder=$(folder_of "$inc")
		if [ "$inc_folder" = "$folder" ]; then
			continue
		fi
		if ! inc_lvl=$(layer_of "$inc_folder"); then
			echo "$name: #include $shown: $(shown_folder "$inc_folder") has no layer"
			bad=1
		elif [ "$inc_lvl" -gt "$lvl" ]; then
			echo "$name: #include $shown: $(shown_folder "$folder") (layer $lvl) includes $(shown_folder "$inc_folder") (layer $inc_lvl), a higher layer"
			bad=1
		elif [ "$inc_lvl" -eq "$lvl" ]; then
			echo "$name: #include $shown: $(shown_folder "$folder") includes $(shown_folder "$inc_folder"), another folder of its layer ($lvl)"
			bad=1
		fi
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$root/src/$rel" || true)
done < <(cd "$root/src" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \) | sed 's#^\./##' | sort)

if [ "$bad" -ne 0 ]; then
	exit 1
fi
echo "check-layers: $n_files files in src/ keep to the layers of their folders"
