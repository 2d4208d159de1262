#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run onnx.checker.check_model on one or more ONNX files.

Usage:
    /usr/bin/python3 check_model.py [--full-check] [--keep-going] MODEL.onnx [MODEL.onnx ...]

Each model is checked by path (not loaded into memory first), so external
data files next to the model are found and models over 2 GiB are allowed.
Prints "check_model: ok: PATH" for each model that passes. On the first
failure prints "check_model: FAIL: PATH: MESSAGE" and exits with status 1;
with --keep-going it checks the rest too (still exit status 1).
--full-check also runs strict shape and type inference (full_check=True).
Needs the Debian package python3-onnx.
"""

import os
import sys

import onnx


def main(argv):
    flags = [a for a in argv[1:] if a in ("--full-check", "--keep-going")]
    paths = [a for a in argv[1:] if a not in flags]
    if not paths or any(a in ("-h", "--help") or a.startswith("--") for a in paths):
        sys.stderr.write("usage: check_model.py [--full-check] [--keep-going] MODEL.onnx [MODEL.onnx ...]\n")
        return 2
    status = 0
    for path in paths:
        if not os.path.isfile(path):
            msg = "no such file"
        else:
            try:
                onnx.checker.check_model(path, full_check="--full-check" in flags)
                msg = None
            except Exception as exc:  # ValidationError, InferenceError, protobuf DecodeError, ...
                msg = " ".join(str(exc).split()) or type(exc).__name__
        if msg is None:
            print("check_model: ok: %s" % path)
            continue
        print("check_model: FAIL: %s: %s" % (path, msg))
        status = 1
        if "--keep-going" not in flags:
            break
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
