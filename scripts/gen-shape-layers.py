#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write a stack of LAYERS transformer-like attention layers to OUT (the
shape suite's stacked(): each layer's head split and merge Reshapes take
their targets from Shape, Gather, Unsqueeze and Concat of the dims of the
layer before; x [batch, seq, 64] -> y [batch, seq, 64], 33 nodes a layer),
for scripts/bench-shape-layers.sh.
Usage:
    /usr/bin/python3 gen-shape-layers.py LAYERS OUT
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import gen_shape_models as g  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: gen-shape-layers.py LAYERS OUT\n")
        return 2
    out = os.path.abspath(sys.argv[2])
    g.save(g.stacked(int(sys.argv[1])), os.path.dirname(out), os.path.basename(out), 17)
    return 0


if __name__ == "__main__":
    sys.exit(main())
