#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the Python package's tests (tests/python/test_scs4onnx_c.py).
#
#   scripts/test-python.sh [LIBRARY [TOOLS_DIR]]
#
# LIBRARY is the shared library the package loads (libscs4onnx.so.1) and
# TOOLS_DIR the folder of the scs4onnx-* tools its outputs are compared with
# (default build/tools). Without LIBRARY, build/'s own (build/src/).
# PYTHONPATH chooses the package tested
# (an installed tree's site-packages); without it, python/ of this tree.
# Needs /usr/bin/python3 with python3-onnx and python3-numpy, and a C compiler.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

lib="${1:-}"
tools="${2:-$root/build/tools}"
[ -n "$lib" ] || lib="$root/build/src/libscs4onnx.so.1"
[ -f "$lib" ] || { echo "test-python.sh: no library at $lib" >&2; exit 2; }
[ -x "$tools/scs4onnx-shrink" ] || { echo "test-python.sh: no scs4onnx-shrink in $tools" >&2; exit 2; }

SCS4ONNX_LIBRARY="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")" \
SCS4ONNX_TOOLS="$(cd "$tools" && pwd)" \
	exec /usr/bin/python3 "$root/tests/python/test_scs4onnx_c.py"
