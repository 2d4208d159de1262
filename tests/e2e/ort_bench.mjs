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

import { SESSION_OPTIONS, loadOrt } from './ort_common.mjs';

function usage(msg) {
  process.stderr.write(`ort_bench: ${msg}\nusage: node ort_bench.mjs [--runs N] [--warmup K] MODEL.onnx ...\n`);
  process.exit(2);
}

async function main() {
  const argv = process.argv.slice(2);
  let runs = 40;
  let warmup = 5;
  const models = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs' || argv[i] === '--warmup') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < (argv[i - 1] === '--runs' ? 1 : 0)) usage(`bad ${argv[i - 1]}`);
      if (argv[i - 1] === '--runs') runs = v;
      else warmup = v;
    } else if (argv[i].startsWith('--')) {
      usage(`unknown option ${argv[i]}`);
    } else {
      models.push(argv[i]);
    }
  }
  if (!models.length) usage('no model');
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
        const data = new Float32Array(n);
        let s = 12345;
        for (let k = 0; k < n; k++) {
          s = (Math.imul(s, 1103515245) + 12345) >>> 0;
          data[k] = (s / 4294967296) * 4 - 2;
        }
        feeds[meta.name] = new ort.Tensor('float32', data, dims);
      }
      cases.push({ path, level, sess, feeds, times: [] });
    }
  }
  for (let r = 0; r < warmup + runs; r++) {
    for (const c of cases) {
      const t0 = process.hrtime.bigint();
      await c.sess.run(c.feeds);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r >= warmup) c.times.push(ms);
    }
  }
  for (const c of cases) {
    const t = [...c.times].sort((a, b) => a - b);
    const mid = t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
    process.stdout.write(`ort_bench: ${c.path} ${c.level} median_ms=${mid.toFixed(3)} min_ms=${t[0].toFixed(3)} runs=${t.length}\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`ort_bench: error: ${e && e.message ? e.message : String(e)}\n`);
  process.exit(1);
});
