#!/usr/bin/env bash
# Configures (once) and builds the release build in build/.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
