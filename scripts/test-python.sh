#!/usr/bin/env bash
# Runs the Python package's tests (tests/python/test_scs4onnx_c.py).
#
#   scripts/test-python.sh [LIBRARY [TOOLS_DIR]]
#
# LIBRARY is the shared library the package loads (libscs4onnx.so.0) and
# TOOLS_DIR the folder of the scs4onnx-* tools its outputs are compared with
# (default build/tools). Without LIBRARY, one is linked from build/'s static
# libraries into build/python-test/. PYTHONPATH chooses the package tested
# (an installed tree's site-packages); without it, python/ of this tree.
# Needs /usr/bin/python3 with python3-onnx and python3-numpy, and a C compiler.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

lib="${1:-}"
tools="${2:-$root/build/tools}"
if [ -z "$lib" ]; then
	lib="$root/build/python-test/libscs4onnx.so.0"
	mkdir -p "$(dirname "$lib")"
	"${CC:-cc}" -shared -o "$lib" -Wl,-soname,libscs4onnx.so.0 \
		-Wl,--whole-archive "$root/build/src/libscs.a" "$root/build/proto/libscs_proto.a" -Wl,--no-whole-archive \
		-lprotobuf-c -llmdb -lzstd -lm
fi
[ -f "$lib" ] || { echo "test-python.sh: no library at $lib" >&2; exit 2; }
[ -x "$tools/scs4onnx-shrink" ] || { echo "test-python.sh: no scs4onnx-shrink in $tools" >&2; exit 2; }

SCS4ONNX_LIBRARY="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")" \
SCS4ONNX_TOOLS="$(cd "$tools" && pwd)" \
	exec /usr/bin/python3 "$root/tests/python/test_scs4onnx_c.py"
