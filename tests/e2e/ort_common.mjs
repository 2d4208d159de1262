// ort_common.mjs - what the ONNX Runtime checks share: loading
// onnxruntime-node, the session options (CPU, one thread, for repeatable
// results) and the bit-for-bit comparison of output tensors.
// SPDX-License-Identifier: MIT

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// onnxruntime-node, or an Error naming the setup step.
// ONNX Runtime's telemetry is off in every process these scripts start, run
// by the suite or by hand: with it on, the runtime leaves
// /tmp/mat-debug-<pid>.log, /tmp/.ses and ~/.cache/Microsoft behind.
export function loadOrt() {
  process.env.ORT_DISABLE_TELEMETRY = '1';
  try {
    return require('onnxruntime-node');
  } catch (e) {
    throw new Error(
      `cannot load onnxruntime-node (run 'npm install --onnxruntime-node-install=skip' in tests/e2e): ${e.message}`,
    );
  }
}

export const SESSION_OPTIONS = {
  executionProviders: ['cpu'],
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  logSeverityLevel: 3,
};

// The typed array holding each element type onnxruntime-node takes and gives (float16 as its bits).
export const TYPED = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  int8: Int8Array,
  int16: Int16Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
};

export function halfBitsToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

// ------------------------------------------------------------------ compare
function bytesOf(tensor) {
  const d = tensor.data;
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

function elemSize(tensor) {
  return tensor.data.BYTES_PER_ELEMENT || 1;
}

function fmtValue(type, data, i) {
  if (i >= data.length) return '<missing>';
  const v = data[i];
  const hex = (x, w) => '0x' + x.toString(16).padStart(w, '0');
  switch (type) {
    case 'float32': {
      // the bits as stored: a number written back would lose a NaN's payload
      const bits = new Uint32Array(data.buffer, data.byteOffset, data.length)[i];
      return `${Object.is(v, -0) ? '-0' : String(v)} (${hex(bits, 8)})`;
    }
    case 'float64': {
      const bits = new BigUint64Array(data.buffer, data.byteOffset, data.length)[i];
      return `${Object.is(v, -0) ? '-0' : String(v)} (${hex(bits, 16)})`;
    }
    case 'float16': {
      const f = halfBitsToFloat(v);
      return `${Object.is(f, -0) ? '-0' : String(f)} (${hex(v, 4)})`;
    }
    case 'string':
      return JSON.stringify(v);
    case 'bool':
      return v ? 'true' : v === 0 ? 'false' : `bool(${v})`;
    default:
      return String(v);
  }
}

export function compareOutput(name, ref, cand) {
  const problems = [];
  if (cand === undefined) return [`output ${name}: missing from candidate`];
  if (ref.type !== cand.type) {
    return [`output ${name}: element type differs: reference ${ref.type} candidate ${cand.type}`];
  }
  const rd = Array.from(ref.dims);
  const cd = Array.from(cand.dims);
  if (rd.length !== cd.length || rd.some((d, i) => d !== cd[i])) {
    return [`output ${name}: dims differ: reference [${rd.join(',')}] candidate [${cd.join(',')}]`];
  }
  if (ref.type === 'string') {
    const a = ref.data;
    const b = cand.data;
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (i >= a.length || i >= b.length || a[i] !== b[i]) {
        problems.push(
          `output ${name}: element ${i} differs: reference ${fmtValue('string', a, i)} candidate ${fmtValue('string', b, i)}`,
        );
        break;
      }
    }
    return problems;
  }
  const ra = bytesOf(ref);
  const ca = bytesOf(cand);
  if (ra.equals(ca)) return problems;
  const n = Math.min(ra.length, ca.length);
  let byte = 0;
  while (byte < n && ra[byte] === ca[byte]) byte++;
  if (ref.type === 'int4' || ref.type === 'uint4') {
    const idx = byte * 2 + (byte < n && (ra[byte] & 0x0f) === (ca[byte] & 0x0f) ? 1 : 0);
    const nib = (buf, i) => (i >> 1 < buf.length ? String((buf[i >> 1] >> ((i & 1) * 4)) & 0x0f) : '<missing>');
    problems.push(`output ${name}: element ${idx} differs: reference nibble ${nib(ra, idx)} candidate nibble ${nib(ca, idx)}`);
    return problems;
  }
  const idx = Math.floor(byte / elemSize(ref));
  problems.push(
    `output ${name}: element ${idx} differs: reference ${fmtValue(ref.type, ref.data, idx)} candidate ${fmtValue(cand.type, cand.data, idx)}`,
  );
  return problems;
}

// Run @sessions in order (the shards of a split model, or one model): each
// takes its inputs by name from @feeds and the outputs of the runs before it.
// @paths name the sessions in errors. Returns every value made, feeds
// included; throws an Error naming the model that could not run.
export async function runChain(sessions, paths, feeds) {
  const pool = { ...feeds };
  for (let k = 0; k < sessions.length; k++) {
    const f = {};
    for (const name of sessions[k].inputNames) {
      if (!(name in pool)) throw new Error(`${paths[k]}: input ${name} is made by no earlier shard and is no model input`);
      f[name] = pool[name];
    }
    let out;
    try {
      out = await sessions[k].run(f);
    } catch (e) {
      throw new Error(`cannot run shard ${paths[k]}: ${e.message}`);
    }
    Object.assign(pool, out);
  }
  return pool;
}

// ------------------------------------------------------------------ timing
// The benchmarks' command line: [--runs N] [--warmup K] MODEL...; @usage(msg)
// exits. Returns { runs, warmup, models } (@runs and @warmup the defaults).
export function benchArgs(argv, usage, runs, warmup) {
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
  return { runs, warmup, models };
}

// Run every case ({ sess, feeds, times }) @warmup + @runs times, interleaved
// so that the machine's drift hits every case alike; the last @runs times
// (ms) go to each case's times, which come back sorted.
export async function timeInterleaved(cases, runs, warmup) {
  for (let r = 0; r < warmup + runs; r++) {
    for (const c of cases) {
      const t0 = process.hrtime.bigint();
      await c.sess.run(c.feeds);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r >= warmup) c.times.push(ms);
    }
  }
  for (const c of cases) c.times.sort((a, b) => a - b);
}

export function medianOf(sorted) {
  const t = sorted;
  return t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
}

// @n seeded float32 values in [-2, 2]: the benchmarks' float inputs.
export function benchFloats(n) {
  const data = new Float32Array(n);
  let s = 12345;
  for (let k = 0; k < n; k++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    data[k] = (s / 4294967296) * 4 - 2;
  }
  return data;
}
