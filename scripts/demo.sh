#!/usr/bin/env bash
# scripts/demo.sh: sets up and builds scs4onnx-c, generates a ~300 MB sample
# model shaped like scs4onnx's gmflow sample (six copies of an (8,1200,1200)
# mask and other repeated constants), shrinks it, and checks the result with
# onnx.checker and, when Node.js and onnxruntime-node are there, ONNX Runtime
# (otherwise it says the ONNX Runtime check was skipped).
#
# Work files go to work/demo, removed at the end; KEEP=1 keeps them:
#   KEEP=1 scripts/demo.sh
# DEMO_HW=N makes the sample's masks (8,N,N) instead (a smaller, faster demo);
# NODE=PATH is the Node.js binary for the ONNX Runtime check (default: node).
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_NODE=optional scripts/setup.sh
scripts/build.sh
# ONNX Runtime's telemetry files (/tmp/mat-debug-<pid>.log, ~/.cache/Microsoft) are not wanted
export ORT_DISABLE_TELEMETRY=1
work=work/demo
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"; rmdir work 2>/dev/null || true' EXIT
mkdir -p "$work"
echo "demo: generating a sample model"
/usr/bin/python3 scripts/gen-model.py gmflow "$work/gmflow.onnx" --hw "${DEMO_HW:-1200}"
echo "demo: shrinking it"
build/tools/scs4onnx-shrink "$work/gmflow.onnx" "$work/gmflow_shrunk.onnx" --force
ls -l "$work"/gmflow.onnx "$work"/gmflow_shrunk.onnx | awk '{ printf "demo: %12d bytes  %s\n", $5, $9 }'
echo "demo: checking the output with onnx.checker"
/usr/bin/python3 tests/e2e/check_model.py "$work/gmflow_shrunk.onnx"
if command -v "${NODE:-node}" >/dev/null 2>&1 && [ -d tests/e2e/node_modules/onnxruntime-node ]; then
	echo "demo: checking that ONNX Runtime computes the same"
	"${NODE:-node}" tests/e2e/ort_compare.mjs "$work/gmflow.onnx" "$work/gmflow_shrunk.onnx"
else
	echo "demo: ONNX Runtime check skipped: Node.js or onnxruntime-node is not installed"
fi
echo "demo: the tools are in build/tools/ (scs4onnx-shrink, -split, -merge, -big, -optimize)"
[ "${KEEP:-0}" = 1 ] && echo "demo: work files kept in $work"
exit 0
