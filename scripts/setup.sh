#!/usr/bin/env bash
# Installs what scs4onnx-c needs to build and test, on Debian 12. Idempotent:
# only missing packages are installed, each named here (no Recommends are
# pulled in). Run as root or with sudo available.
# SPDX-License-Identifier: MIT
#
#   scripts/setup.sh              everything; fails when anything cannot be installed
#   scripts/setup.sh --build-only what building and installing need (meson setup
#                                 -Dtests=false): no test toolchain, no Node.js
#   SETUP_NODE=optional scripts/setup.sh
#                                 Node.js and onnxruntime-node (only the ONNX
#                                 Runtime checks need them) are tried, and a
#                                 failure is a note, not an error (the demo)
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=0
case "${1:-}" in
--build-only) build_only=1 ;;
"") ;;
*) echo "usage: scripts/setup.sh [--build-only]" >&2; exit 2 ;;
esac

# build: compiler, C library headers, meson, the libraries; tests: Criterion,
# onnx.checker (python3-onnx), bc, gcovr, ONNX's conformance models, clang and
# its runtime for the fuzzer, mount (the limits suite's private tmpfs), mawk
# (awk in the scripts); bsdutils (script, for the progress test),
# util-linux (unshare) and coreutils are essential, named all the same; man-db,
# groff-base and binutils (nm) for the man and install suites; chromium for
# the inspect suite (its HTML page rendered headless)
build_packages=(gcc libc6-dev meson ninja-build pkg-config protobuf-c-compiler libprotobuf-c-dev liblmdb-dev
	libzstd-dev libxxhash-dev libssl-dev)
packages=("${build_packages[@]}" libcriterion-dev python3-onnx python3-numpy bc gcovr libonnx-testdata clang libclang-rt-14-dev
	mount mawk bsdutils util-linux coreutils man-db groff-base binutils chromium)
node_packages=()
command -v node >/dev/null 2>&1 || node_packages+=(nodejs)
command -v npm >/dev/null 2>&1 || node_packages+=(npm ca-certificates)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
updated=0

# apt-get install of the packages of $@ not installed yet
apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	echo "setup: installing ${missing[*]}"
	if [ $updated = 0 ]; then
		$sudo apt-get update -qq || return 1
		updated=1
	fi
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

if [ $build_only = 1 ]; then
	apt_install "${build_packages[@]}"
	exit
fi
apt_install "${packages[@]}"

# ONNX Runtime for the end-to-end checks: the CPU runtime ships inside the npm
# package; its optional download step is skipped.
node_setup() {
	[ ${#node_packages[@]} -eq 0 ] || apt_install "${node_packages[@]}" || return 1
	if [ ! -d tests/e2e/node_modules/onnxruntime-node ]; then
		echo "setup: installing onnxruntime-node for the end-to-end checks"
		(cd tests/e2e && ONNXRUNTIME_NODE_INSTALL=skip npm ci --onnxruntime-node-install=skip --no-audit --no-fund >/dev/null)
	fi
}
if [ "${SETUP_NODE:-required}" = optional ]; then
	node_setup || echo "setup: note: Node.js or onnxruntime-node could not be installed; the ONNX Runtime checks will be skipped"
else
	node_setup
fi
