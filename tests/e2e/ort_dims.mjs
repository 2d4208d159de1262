#!/usr/bin/env node
// ort_dims.mjs - run ONNX models in ONNX Runtime (CPU) and print, one JSON
// line per model, the dims of every output, or the error that stopped it:
//   {"model": PATH, "outputs": {NAME: [DIM, ...], ...}}
//   {"model": PATH, "error": "first line of the message"}
// Inputs are made from their declared dims (unknown dims: 2), every element
// 1 (so that integer inputs stay valid indices and counts). Graph
// optimizations are off: ONNX Runtime's own folding would hide a node that
// fails (a Pad it refuses, read only by a Shape). check_extreme.py compares
// these dims with the shapes a tool declared.
//
// Usage: node ort_dims.mjs MODEL.onnx [MODEL.onnx ...]
// SPDX-License-Identifier: MIT

import { loadOrt, SESSION_OPTIONS } from './ort_common.mjs';

const ort = loadOrt();
const TYPED = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array,
  uint64: BigUint64Array, bool: Uint8Array,
};

function onesOf(meta) {
  const dims = (meta.shape || []).map((d) => (typeof d === 'number' && Number.isInteger(d) && d >= 0 ? d : 2));
  const n = dims.reduce((a, b) => a * b, 1);
  const Ctor = TYPED[meta.type];
  if (!Ctor) throw new Error(`input '${meta.name}' has element type '${meta.type}'`);
  const one = meta.type === 'float16' ? 0x3c00 : meta.type.endsWith('int64') ? 1n : 1;
  return new ort.Tensor(meta.type, new Ctor(n).fill(one), dims);
}

for (const model of process.argv.slice(2)) {
  try {
    const sess = await ort.InferenceSession.create(model, { ...SESSION_OPTIONS, graphOptimizationLevel: 'disabled' });
    const feeds = {};
    for (const meta of sess.inputMetadata) feeds[meta.name] = onesOf(meta);
    const res = await sess.run(feeds);
    const outputs = {};
    for (const [name, t] of Object.entries(res)) outputs[name] = t.dims.map(Number);
    process.stdout.write(JSON.stringify({ model, outputs }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ model, error: String(e.message || e).split('\n')[0] }) + '\n');
  }
}
