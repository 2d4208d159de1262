#!/usr/bin/env bash
# Sets up and builds scs4onnx-c, generates a ~300 MB sample model shaped like
# scs4onnx's gmflow sample (six copies of an (8,1200,1200) mask and other
# repeated constants), shrinks it, and checks the result with onnx.checker and
# ONNX Runtime. Work files go to work/demo (removed at the end unless KEEP=1).
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
work=work/demo
mkdir -p "$work"
echo "demo: generating a sample model"
/usr/bin/python3 scripts/gen-model.py gmflow "$work/gmflow.onnx"
echo "demo: shrinking it"
build/tools/scs4onnx-shrink "$work/gmflow.onnx" "$work/gmflow_shrunk.onnx"
ls -l "$work"/gmflow.onnx "$work"/gmflow_shrunk.onnx | awk '{ printf "demo: %12d bytes  %s\n", $5, $9 }'
echo "demo: checking the output"
/usr/bin/python3 tests/e2e/check_model.py "$work/gmflow_shrunk.onnx"
node tests/e2e/ort_compare.mjs "$work/gmflow.onnx" "$work/gmflow_shrunk.onnx"
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
