#!/usr/bin/python3
"""Run onnx.checker.check_model on one or more ONNX files.

Usage:
    /usr/bin/python3 check_model.py MODEL.onnx [MODEL.onnx ...]

Each model is checked by path (not loaded into memory first), so external
data files next to the model are found and models over 2 GiB are allowed.
Prints "check_model: ok: PATH" for each model that passes. On the first
failure prints "check_model: FAIL: PATH: MESSAGE" and exits with status 1.
Needs the Debian package python3-onnx.
"""

import os
import sys

import onnx


def main(argv):
    if len(argv) < 2 or any(a in ("-h", "--help") for a in argv[1:]):
        sys.stderr.write("usage: check_model.py MODEL.onnx [MODEL.onnx ...]\n")
        return 2
    for path in argv[1:]:
        if not os.path.isfile(path):
            print("check_model: FAIL: %s: no such file" % path)
            return 1
        try:
            onnx.checker.check_model(path)
        except Exception as exc:  # ValidationError, protobuf DecodeError, ...
            msg = " ".join(str(exc).split()) or type(exc).__name__
            print("check_model: FAIL: %s: %s" % (path, msg))
            return 1
        print("check_model: ok: %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
