#!/usr/bin/env node
// ort_tied.mjs - ONNX Runtime (CPU, one thread) figures of the rewrites of a
// tied weight saved transposed (scripts/gen-model.py gpt --variant): are the
// candidates' outputs bit-identical to the original's, how long does a run
// take, and (once) a process that only creates a session and runs it, for
// its peak memory.
//
// Usage:
//   node ort_tied.mjs check ORIGINAL.onnx CANDIDATE.onnx ...
//       at levels disabled, basic, extended and all: each candidate's outputs
//       against the original's at the same level, byte for byte; one line
//       per candidate and level:
//         ort_tied: check CANDIDATE LEVEL same|differs (first difference)
//       and one per level for the original against itself at 'disabled':
//         ort_tied: check ORIGINAL LEVEL vs-disabled same|differs
//       exit status 1 when a candidate differs.
//   node ort_tied.mjs bench [--runs N] [--warmup K] MODEL.onnx ...
//       runs interleaved in one process (so the machine's drift hits every
//       model alike), at levels all and disabled; one line per model and
//       level:
//         ort_tied: bench MODEL LEVEL mean_ms=M median_ms=m min_ms=x runs=N
//   node ort_tied.mjs once MODEL.onnx [LEVEL]
//       creates one session (level all unless LEVEL) and runs it once.
//   node ort_tied.mjs optimized MODEL.onnx LEVEL OUT.onnx
//       creates one session at LEVEL and has the runtime write the model as
//       it optimized it to OUT.onnx.
//
// Inputs: int64 inputs get token ids (i * 7919 + 13) mod 1000 (every
// vocabulary here is larger); float inputs seeded values in [-2, 2], as
// ort_bench.mjs feeds them.
// SPDX-License-Identifier: MIT

import { SESSION_OPTIONS, benchArgs, benchFloats, compareOutput, loadOrt, medianOf, timeInterleaved } from './ort_common.mjs';

const LEVELS = ['disabled', 'basic', 'extended', 'all'];

function usage(msg) {
  process.stderr.write(
    `ort_tied: ${msg}\nusage: node ort_tied.mjs check ORIGINAL CANDIDATE... | bench [--runs N] [--warmup K] MODEL... | once MODEL [LEVEL] | optimized MODEL LEVEL OUT\n`,
  );
  process.exit(2);
}

function feedsOf(ort, sess) {
  const feeds = {};
  for (const meta of sess.inputMetadata) {
    const dims = meta.shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    const n = dims.reduce((a, b) => a * b, 1);
    if (meta.type === 'int64') {
      const data = new BigInt64Array(n);
      for (let k = 0; k < n; k++) data[k] = BigInt((k * 7919 + 13) % 1000);
      feeds[meta.name] = new ort.Tensor('int64', data, dims);
    } else if (meta.type === 'float32') {
      feeds[meta.name] = new ort.Tensor('float32', benchFloats(n), dims);
    } else {
      throw new Error(`input '${meta.name}' has element type '${meta.type}'; only int64 and float32 are fed`);
    }
  }
  return feeds;
}

async function session(ort, path, level) {
  return ort.InferenceSession.create(path, { ...SESSION_OPTIONS, graphOptimizationLevel: level });
}

async function outputsOf(ort, path, level) {
  const sess = await session(ort, path, level);
  const out = await sess.run(feedsOf(ort, sess));
  await sess.release();
  return out;
}

function differences(ref, cand) {
  const problems = [];
  for (const name of Object.keys(ref)) problems.push(...compareOutput(name, ref[name], cand[name]));
  return problems;
}

async function check(ort, paths) {
  if (paths.length < 2) usage('check needs the original and at least one candidate');
  const [orig, ...cands] = paths;
  let bad = false;
  let base = null;
  for (const level of LEVELS) {
    const ref = await outputsOf(ort, orig, level);
    if (base === null) base = ref;
    const self = differences(base, ref);
    process.stdout.write(`ort_tied: check ${orig} ${level} vs-disabled ${self.length ? 'differs (' + self[0] + ')' : 'same'}\n`);
    for (const c of cands) {
      const p = differences(ref, await outputsOf(ort, c, level));
      if (p.length) bad = true;
      process.stdout.write(`ort_tied: check ${c} ${level} ${p.length ? 'differs (' + p[0] + ')' : 'same'}\n`);
    }
  }
  return bad ? 1 : 0;
}

async function bench(ort, args) {
  const { runs, warmup, models } = benchArgs(args, usage, 20, 3);
  const cases = [];
  for (const path of models) {
    for (const level of ['all', 'disabled']) {
      const sess = await session(ort, path, level);
      cases.push({ path, level, sess, feeds: feedsOf(ort, sess), times: [] });
    }
  }
  await timeInterleaved(cases, runs, warmup);
  for (const c of cases) {
    const t = c.times;
    const mid = medianOf(t);
    const mean = t.reduce((a, b) => a + b, 0) / t.length;
    process.stdout.write(
      `ort_tied: bench ${c.path} ${c.level} mean_ms=${mean.toFixed(3)} median_ms=${mid.toFixed(3)} min_ms=${t[0].toFixed(3)} runs=${t.length}\n`,
    );
  }
  return 0;
}

async function once(ort, args) {
  if (args.length < 1 || args.length > 2) usage('once takes MODEL [LEVEL]');
  const level = args[1] || 'all';
  if (!LEVELS.includes(level)) usage(`bad level ${level}`);
  await outputsOf(ort, args[0], level);
  return 0;
}

async function optimized(ort, args) {
  if (args.length !== 3 || !LEVELS.includes(args[1])) usage('optimized takes MODEL LEVEL OUT');
  const sess = await ort.InferenceSession.create(args[0], {
    ...SESSION_OPTIONS,
    graphOptimizationLevel: args[1],
    optimizedModelFilePath: args[2],
  });
  await sess.release();
  return 0;
}

async function main() {
  const [mode, ...args] = process.argv.slice(2);
  const ort = loadOrt();
  ort.env.logLevel = 'error';
  if (mode === 'check') return check(ort, args);
  if (mode === 'bench') return bench(ort, args);
  if (mode === 'once') return once(ort, args);
  if (mode === 'optimized') return optimized(ort, args);
  usage(mode ? `unknown mode ${mode}` : 'no mode');
}

main()
  .then((rc) => process.exit(rc))
  .catch((e) => {
    process.stderr.write(`ort_tied: error: ${e && e.message ? e.message : String(e)}\n`);
    process.exit(1);
  });
