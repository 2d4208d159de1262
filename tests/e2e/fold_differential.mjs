#!/usr/bin/env node
// fold_differential.mjs - the ONNX Runtime side of fold_differential.py: run
// each original model and what the optimizer made of it, report how each
// went and whether the outputs are bit-identical. One process for the whole
// set: fold_differential.py feeds it.
//
// Usage:
//   node fold_differential.mjs JOBS.jsonl > RESULTS.jsonl   (- reads stdin, as jobs come)
//
// JOBS.jsonl, one job a line:
//   {"id": "...", "in": "IN.onnx", "out": "OUT.onnx", "sym": 2}
// Every graph input gets a tensor of its type: symbolic or unknown dims are
// @sym (default 2), the elements a fixed pattern (small integers, halves).
// Both models run with ONNX Runtime's graph optimizations disabled, so that
// its kernels compute every node (its own constant folding would run the
// same kernels, but may decide Shape from its own inference).
//
// RESULTS.jsonl, one line a job, in job order:
//   {"id": ..., "ref": {"ok": true, "outs": {"y": {"type": "float32", "dims": [2, 3]}}}
//                    | {"ok": false, "err": "first line"},
//    "cand": the same for OUT, "diff": ["output y: element 3 differs: ..."]}
// "diff" is present when both ran; "unstable" when IN, run again, gave other
// outputs (a kernel reading past its input). Exit status 0 when every job was read.
// SPDX-License-Identifier: MIT

import fs from 'node:fs';
import readline from 'node:readline';

import { SESSION_OPTIONS, TYPED, compareOutput, loadOrt } from './ort_common.mjs';

// A deterministic tensor for input @meta: dims @sym where not fixed.
function feedFor(ort, meta, sym) {
  if (!meta.isTensor) throw new Error(`input '${meta.name}' is not a tensor`);
  const dims = (meta.shape || []).map((d) => (typeof d === 'number' && Number.isInteger(d) && d >= 0 ? d : sym));
  const n = dims.reduce((a, b) => a * b, 1);
  if (meta.type === 'string') return new ort.Tensor('string', Array.from({ length: n }, (_, i) => `s${i % 3}`), dims);
  const Ctor = TYPED[meta.type];
  if (!Ctor) throw new Error(`input '${meta.name}' has element type '${meta.type}'`);
  const data = new Ctor(n);
  for (let i = 0; i < n; i++) {
    if (meta.type === 'float32' || meta.type === 'float64') data[i] = ((i % 5) - 2) * 0.5;
    else if (meta.type === 'float16') data[i] = [0xc000, 0xbc00, 0x0000, 0x3c00, 0x3800][i % 5];
    else if (meta.type === 'int64' || meta.type === 'uint64') data[i] = BigInt(i % 3);
    else if (meta.type === 'bool') data[i] = i & 1;
    else data[i] = i % 3;
  }
  return new ort.Tensor(meta.type, data, dims);
}

function firstLine(e) {
  return String(e && e.message ? e.message : e).split('\n')[0].slice(0, 300);
}

async function runOne(ort, path, sym) {
  let sess;
  try {
    sess = await ort.InferenceSession.create(path, { ...SESSION_OPTIONS, logSeverityLevel: 4,
      graphOptimizationLevel: 'disabled' });
  } catch (e) {
    return { res: { ok: false, stage: 'load', err: firstLine(e) } };
  }
  try {
    const feeds = {};
    for (const meta of sess.inputMetadata) feeds[meta.name] = feedFor(ort, meta, sym);
    const out = await sess.run(feeds);
    const outs = {};
    for (const name of sess.outputNames) outs[name] = { type: out[name].type, dims: Array.from(out[name].dims) };
    return { res: { ok: true, outs }, names: sess.outputNames, out };
  } catch (e) {
    return { res: { ok: false, stage: 'run', err: firstLine(e) } };
  } finally {
    try {
      await sess.release();
    } catch {
      // gone with the process anyway
    }
  }
}

async function runJob(ort, job) {
  const sym = job.sym || 2;
  const ref = await runOne(ort, job.in, sym);
  const cand = await runOne(ort, job.out, sym);
  const r = { id: job.id, ref: ref.res, cand: cand.res };
  if (ref.res.ok && cand.res.ok) {
    r.diff = [];
    for (const name of ref.names) r.diff.push(...compareOutput(name, ref.out[name], cand.out[name]));
    if (r.diff.length) {
      // a kernel that reads past its input gives other bytes each run: that proves nothing
      const again = await runOne(ort, job.in, sym);
      const self = [];
      if (again.res.ok) for (const name of ref.names) self.push(...compareOutput(name, ref.out[name], again.out[name]));
      if (!again.res.ok || self.length) r.unstable = again.res.ok ? self[0] : again.res.err;
    }
  }
  return r;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 1) {
    process.stderr.write('usage: node fold_differential.mjs JOBS.jsonl > RESULTS.jsonl\n');
    process.exit(1);
  }
  const ort = loadOrt();
  ort.env.logLevel = 'fatal';
  const input = args[0] === '-' ? process.stdin : fs.createReadStream(args[0]);
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const job = JSON.parse(line);
    let r;
    try {
      r = await runJob(ort, job);
    } catch (e) {
      r = { id: job.id, ref: { ok: false, stage: 'runner', err: firstLine(e) }, cand: { ok: false, err: '' } };
    }
    process.stdout.write(JSON.stringify(r) + '\n');
  }
}

main().catch((e) => {
  process.stderr.write(`fold_differential: error: ${e && e.stack ? e.stack : String(e)}\n`);
  process.exit(1);
});
