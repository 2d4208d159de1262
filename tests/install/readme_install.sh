#!/usr/bin/env bash
# readme_install.sh SRC SCRATCH MODEL: runs README.md's Install block as
# written, in a copy of the source tree SRC (as a clone has it, with build/
# configured as the quick start leaves it), with DESTDIR=SCRATCH/root, no
# dpkg-architecture (as on the machine scripts/setup.sh prepares) and
# ldconfig run on that root (ldconfig -r, with the system's ld.so.conf);
# it must install no package beyond what the build needs. Then checks what
# a user does next, each as the system would answer with that root in place
# of /: the tools are in a folder of the PATH, the loader finds
# libscs4onnx.so.1, `pkg-config --cflags --libs scs4onnx` answers from
# pkg-config's own search path, docs/API.md's C example builds with it and
# shrinks MODEL, and the system python3 imports scs4onnx_c from a folder on
# its sys.path. The first failure ends it with a line "FAIL: ..." and
# status 1.
#
# SPDX-License-Identifier: MIT
set -uo pipefail
src=$1 scratch=$2 model=$3
root=$scratch/root tree=$scratch/tree
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$root/etc" "$tree" || fail "cannot make $scratch"
for f in "$src"/*; do
	case ${f##*/} in build* | work) continue ;; esac
	cp -a "$f" "$tree/" || fail "cannot copy $f"
done
rm -rf "$tree/tests/e2e/node_modules"
cp -a /etc/ld.so.conf /etc/ld.so.conf.d "$root/etc/" || fail "cannot copy ld.so.conf"

# build/ as the quick start leaves it
(cd "$tree" && meson setup build -Dtests=false) >"$scratch/quick.log" 2>&1 || fail "meson setup build: $(cat "$scratch/quick.log")"

# the first ``` block after "## Install"
block=$(awk '/^## Install$/ { s = 1; next } s && /^```/ { if (b) exit; b = 1; next } b' "$src/README.md")
[ -n "$block" ] || fail "README.md has no Install block"
echo "$block" >"$scratch/install-block.sh"
# as on a machine without dpkg-dev (scripts/setup.sh does not install it),
# where meson's default libdir is not Debian's multiarch one; npm and
# apt-get say they were called (the build packages are here: a build without
# tests installs nothing more, no Node.js, no onnxruntime-node)
mkdir -p "$scratch/bin"
printf '#!/bin/sh\nexit 127\n' >"$scratch/bin/dpkg-architecture"
for t in npm apt-get; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexit 1\n' "$t" "$scratch" >"$scratch/bin/$t"
done
chmod +x "$scratch"/bin/*
(
	cd "$tree" || exit 1
	export DESTDIR=$root PATH=$scratch/bin:$PATH
	ldconfig() { command ldconfig -r "$DESTDIR" "$@"; }
	set -e
	. "$scratch/install-block.sh"
) >"$scratch/block.log" 2>&1 || { tail -n 20 "$scratch/block.log"; fail "the Install block failed"; }
! grep -m 1 'already configured' "$scratch/block.log" || fail "the Install block's options are ignored"
[ ! -e "$scratch/calls" ] || fail "the Install block installs more than the build needs: $(cat "$scratch/calls")"

# the tools, in a folder of the PATH
for t in scs4onnx scs4onnx-shrink scs4onnx-split scs4onnx-merge scs4onnx-big scs4onnx-optimize; do
	found=
	IFS=: read -ra dirs <<<"$PATH"
	for d in "${dirs[@]}"; do [ -x "$root$d/$t" ] && found=$d; done
	[ -n "$found" ] || fail "$t is not installed in a folder of the PATH ($PATH): $(cd "$root" && find . -name "$t")"
done

# the loader
lib=$(ldconfig -r "$root" -p | awk '/libscs4onnx\.so\.1 / { print $NF; exit }')
[ -n "$lib" ] || fail "the loader does not find libscs4onnx.so.1: $(cd "$root" && find . -name 'libscs4onnx.so*')"

# pkg-config, from its own search path (under the root, then the system's
# for the libraries scs4onnx.pc requires)
pc_path=$(pkg-config --variable pc_path pkg-config) || fail "no pkg-config"
rooted=
IFS=: read -ra dirs <<<"$pc_path"
for d in "${dirs[@]}"; do rooted+="$root$d:"; done
flags=$(PKG_CONFIG_LIBDIR=$rooted$pc_path PKG_CONFIG_SYSROOT_DIR=$root pkg-config --cflags --libs scs4onnx 2>&1) ||
	fail "pkg-config --cflags --libs scs4onnx: $flags: $(cd "$root" && find . -name scs4onnx.pc)"

# docs/API.md's C example, built as its first line says
awk '/^```c$/ { b = 1; next } b && /^```$/ { exit } b' "$src/docs/API.md" >"$scratch/shrink.c"
grep -q 'cc shrink.c' "$scratch/shrink.c" || fail "docs/API.md has no C example"
# shellcheck disable=SC2086
cc -o "$scratch/shrink" "$scratch/shrink.c" $flags >"$scratch/cc.log" 2>&1 || fail "cc: $(cat "$scratch/cc.log")"
out=$(LD_LIBRARY_PATH=$root${lib%/*} "$scratch/shrink" "$model" "$scratch/out.onnx" 2>&1) ||
	fail "the C example: $out"
echo "C example: ${out##*$'\n'}"

# the system python3 imports the package from a folder on its sys.path
pkg=$(cd "$root" && find . -type d -name scs4onnx_c | head -n 1)
[ -n "$pkg" ] || fail "no scs4onnx_c is installed"
site=${pkg#.}
site=${site%/scs4onnx_c}
/usr/bin/python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$site" ||
	fail "python3 does not look in $site: $(/usr/bin/python3 -c 'import sys; print(sys.path)')"
out=$(cd "$scratch" && PYTHONPATH=$root$site SCS4ONNX_LIBRARY=$root$lib /usr/bin/python3 -c \
	'import scs4onnx_c; print(scs4onnx_c.__file__)' 2>&1) || fail "import scs4onnx_c: $out"
echo "python3: $out"
echo "OK"
