#!/usr/bin/env bash
# Benchmark of eliminate_common_subexpression on long chains: for each size
# (SIZES, default "250000 500000 1000000" nodes) generates a chain in
# work/bench-cse (removed at the end unless KEEP=1) whose every step is
# a = Relu(x), b = Relu(x), x' = Add(a, b) (plus one Constant scale read by
# every tenth step twice, as Mul(x, k) and Mul(x, k)), runs
# scs4onnx-optimize -p eliminate_common_subexpression on it and prints the
# nodes before and after, the rounds, the optimizer's stage time (every
# round: the last finds nothing) and that time per node, which stays about
# the same when the pass is linear in the node count; then, as a baseline,
# the stage time of one round of a pass that finds nothing on the chain
# (eliminate_nop_pad: the driver's own work, the snapshot of every round).
# DEFAULT=1 also times the default set on each chain. Not a test: it
# prints figures.
# SPDX-License-Identifier: MIT
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
scripts/build.sh >/dev/null
work=work/bench-cse
rm -rf "$work"
mkdir -p "$work"
sizes=${SIZES:-"250000 500000 1000000"}

gen() {          # gen NODES PATH
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

n, path = int(sys.argv[1]), sys.argv[2]
nodes, x, i = [], "X", 0
while len(nodes) + 3 <= n:
    if i % 10 == 9 and len(nodes) + 6 <= n:
        for op, ins, out in (("Mul", [x, "K"], "m%da" % i), ("Mul", [x, "K"], "m%db" % i),
                             ("Add", ["m%da" % i, "m%db" % i], "y%d" % i)):
            nodes.append(helper.make_node(op, ins, [out], name=out))
        x = "y%d" % i
    for op, ins, out in (("Relu", [x], "a%d" % i), ("Relu", [x], "b%d" % i), ("Add", ["a%d" % i, "b%d" % i], "x%d" % i)):
        nodes.append(helper.make_node(op, ins, [out], name=out))
    x = "x%d" % i
    i += 1
nodes.append(helper.make_node("Identity", [x], ["Y"], name="out"))
graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("X", TensorProto.FLOAT, (4,))],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, (4,))],
                          [numpy_helper.from_array(np.full(4, 0.5, dtype=np.float32), "K")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
with open(path, "wb") as fh:
    fh.write(model.SerializeToString())
print(len(nodes))
PY
}

# run IN OUT [-p PASS]: "nodes_after rounds optimize_seconds cpu_seconds" (cpu: user + system of the
# whole run, scan and write too: the machine may be shared, which stretches wall times, not CPU times)
run() {
	local in=$1 out=$2
	shift 2
	/usr/bin/time -f "CPU %U %S" build/tools/scs4onnx-optimize "$in" "$out" -f "$@" 2>&1 | awk '
		/^INFO: nodes:/ { after = $5; rounds = substr($6, 2) }
		/^INFO: stage optimize:/ { secs = $4 }
		/^CPU / { cpu = $2 + $3 }
		END { print after, rounds, secs, cpu }'
}

per_node() { echo "scale=3; $1 * 1000000 / $2" | bc; }

printf "%-8s %8s %6s %10s %8s %8s %11s %8s %8s\n" nodes after rounds optimize_s us_node cpu_s base_1rd_s us_node \
	cpu_s
for n in $sizes; do
	made=$(gen "$n" "$work/chain_$n.onnx")
	read -r after rounds secs cpu < <(run "$work/chain_$n.onnx" "$work/chain_${n}_cse.onnx" \
		-p eliminate_common_subexpression)
	read -r _ _ base bcpu < <(run "$work/chain_$n.onnx" "$work/chain_${n}_base.onnx" -p eliminate_nop_pad)
	printf "%-8s %8s %6s %10s %8s %8s %11s %8s %8s\n" "$made" "$after" "$rounds" "$secs" "$(per_node "$secs" "$made")" \
		"$cpu" "$base" "$(per_node "$base" "$made")" "$bcpu"
	if [ "${DEFAULT:-0}" = 1 ]; then
		read -r after rounds secs cpu < <(run "$work/chain_$n.onnx" "$work/chain_${n}_all.onnx")
		printf "%-8s %8s %6s %10s %8s %8s  (default set)\n" "$made" "$after" "$rounds" "$secs" \
			"$(per_node "$secs" "$made")" "$cpu"
	fi
	rm -f "$work/chain_$n.onnx" "$work"/chain_"$n"_*.onnx
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$work"
