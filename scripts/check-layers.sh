#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that the library's rooms keep to their levels: every file in src/
# (*.c, *.h, *.def) may include project headers of its own level or lower,
# never higher, and a third-party header only from the rooms listed for it.
# A room is a file's name without its extension (store.c and store.h are the
# room store). Prints one line per violation and exits 1; prints one line and
# exits 0 when there is none. The tables below are the rule; docs/ARCHITECTURE.md
# ("Rooms and levels") describes them.
#
# Usage: scripts/check-layers.sh [ROOT]   (ROOT: the tree holding src/;
#                                          default: this script's project)
set -euo pipefail

# level  rooms (shell patterns)
levels='
0 err num half buf wire hash base64 strmap path progress arena
1 source sink sink_impl commit
2 codec store store_impl store_blob payload
3 dtype opschema opschema_table ortkernels shard scan walk pack attr
4 model sealed array scope rename graph infer infer_* eval eval_*
5 pass pass_* opt opt_* fuse split merge emit npy
6 api api_* abi report scs4onnx
'

# third-party header   rooms that may include it
third_party='
lmdb.h store store_impl store_blob
zstd.h codec
xxhash.h hash
protobuf-c/protobuf-c.h scan model shard emit walk pack
onnx.pb-c.h scan model sealed array shard emit eval walk pack attr
'

root=${1:-"$(dirname "$0")/.."}
if [ ! -d "$root/src" ]; then
	echo "check-layers: $root/src: no such folder" >&2
	exit 2
fi

# The level of room $1 on stdout; status 1 when the table has none.
level_of() {
	local row pat
	while read -ra row; do
		[ "${#row[@]}" -gt 1 ] || continue
		for pat in "${row[@]:1}"; do
			# shellcheck disable=SC2053  # $pat is a pattern on purpose
			if [[ $1 == $pat ]]; then
				echo "${row[0]}"
				return 0
			fi
		done
	done <<<"$levels"
	return 1
}

# The rooms that may include third-party header $1 on stdout; status 1 when
# $1 is not a third-party header of the table.
rooms_for() {
	local hdr rooms
	while read -r hdr rooms; do
		if [ -n "$hdr" ] && [ "$hdr" = "$1" ]; then
			echo "$rooms"
			return 0
		fi
	done <<<"$third_party"
	return 1
}

include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"][^>"]*[>"])'
bad=0
n_files=0
shopt -s nullglob
for file in "$root"/src/*.c "$root"/src/*.h "$root"/src/*.def; do
	name=src/${file##*/}
	room=${file##*/}
	room=${room%.*}
	n_files=$((n_files + 1))
	if ! lvl=$(level_of "$room"); then
		echo "$name: room $room has no level (add it to the table in scripts/check-layers.sh and to docs/ARCHITECTURE.md)"
		bad=1
		continue
	fi
	while IFS= read -r line; do
		# #include "x.h" or #include <x.h>
		[[ $line =~ $include_re ]] || continue
		shown=${BASH_REMATCH[1]}
		inc=${shown:1:${#shown}-2}
		if allowed=$(rooms_for "$inc"); then
			if [[ " $allowed " != *" $room "* ]]; then
				echo "$name: #include $shown: $inc stays in ${allowed// /, }; $room (level $lvl) may not include it"
				bad=1
			fi
			continue
		fi
		case $shown in
		\<*) continue ;;          # libc and POSIX
		esac
		inc_room=${inc##*/}
		inc_room=${inc_room%.*}
		if ! inc_lvl=$(level_of "$inc_room"); then
			echo "$name: #include $shown: $room (level $lvl) includes $inc_room, which has no level"
			bad=1
		elif [ "$inc_lvl" -gt "$lvl" ]; then
			echo "$name: #include $shown: $room (level $lvl) includes $inc_room (level $inc_lvl), a higher level"
			bad=1
		fi
	done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$file" || true)
done

if [ "$bad" -ne 0 ]; then
	exit 1
fi
echo "check-layers: $n_files files in src/ keep to their levels"
