#!/usr/bin/env node
// ort_bench.mjs - median ONNX Runtime (CPU, one thread) inference time of
// models, with graph optimizations disabled and at the default level
// ('all'), runs interleaved in one process so that the machine's drift
// hits every model alike.
//
// Usage: node ort_bench.mjs [--runs N] [--warmup K] MODEL.onnx ...
//
// Every model gets the same seeded random input (uniform in [-2, 2]) per
// input name. One line per model and level on stdout:
//   ort_bench: MODEL LEVEL median_ms=M min_ms=m runs=N
// SPDX-License-Identifier: MIT

import { SESSION_OPTIONS, benchArgs, benchFloats, loadOrt, medianOf, timeInterleaved } from './ort_common.mjs';

function usage(msg) {
  process.stderr.write(`ort_bench: ${msg}\nusage: node ort_bench.mjs [--runs N] [--warmup K] MODEL.onnx ...\n`);
  process.exit(2);
}

async function main() {
  const { runs, warmup, models } = benchArgs(process.argv.slice(2), usage, 40, 5);
  const ort = loadOrt();
  ort.env.logLevel = 'error';
  const cases = [];
  for (const path of models) {
    for (const level of ['disabled', 'all']) {
      const sess = await ort.InferenceSession.create(path, { ...SESSION_OPTIONS, graphOptimizationLevel: level });
      const feeds = {};
      for (const meta of sess.inputMetadata) {
        const dims = meta.shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
        const n = dims.reduce((a, b) => a * b, 1);
        feeds[meta.name] = new ort.Tensor('float32', benchFloats(n), dims);
      }
      cases.push({ path, level, sess, feeds, times: [] });
    }
  }
  await timeInterleaved(cases, runs, warmup);
  for (const c of cases) {
    const t = c.times;
    process.stdout.write(`ort_bench: ${c.path} ${c.level} median_ms=${medianOf(t).toFixed(3)} min_ms=${t[0].toFixed(3)} runs=${t.length}\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`ort_bench: error: ${e && e.message ? e.message : String(e)}\n`);
  process.exit(1);
});
