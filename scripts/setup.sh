#!/usr/bin/env bash
# Installs what scs4onnx-c needs to build and test, on Debian 12. Idempotent:
# only missing packages are installed. Run as root or with sudo available.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(meson ninja-build pkg-config gcc protobuf-c-compiler libprotobuf-c-dev liblmdb-dev
	libzstd-dev libxxhash-dev libcriterion-dev python3-onnx python3-numpy bc gcovr libonnx-testdata clang libclang-rt-14-dev
	man-db groff-base binutils)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "setup: installing ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# ONNX Runtime for the end-to-end checks: the CPU runtime ships inside the npm
# package; its optional download step is skipped.
if [ ! -d tests/e2e/node_modules/onnxruntime-node ]; then
	echo "setup: installing onnxruntime-node for the end-to-end checks"
	(cd tests/e2e && ONNXRUNTIME_NODE_INSTALL=skip npm ci --onnxruntime-node-install=skip --no-audit --no-fund >/dev/null)
fi
