#!/usr/bin/env node
// ort_compare.mjs - run two ONNX models in ONNX Runtime (CPU) on the same
// deterministic inputs and check that their outputs are bit-identical.
//
// Usage:
//   node ort_compare.mjs REFERENCE.onnx CANDIDATE.onnx
//        [--feed NAME=FILE.npy ...] [--feed-both NAME=FILE.npy ...]
//        [--seed N] [--runs K] [--graph-opt disabled|basic|extended|all]
//        [--tol REL,ABS]
//
// Setup (once, in this directory):
//   npm install --onnxruntime-node-install=skip
//
// For every input that REFERENCE's session lists (inputMetadata) a tensor is
// made with a seeded PRNG (--seed, default 1; each input's stream also
// depends on its name, so input order does not matter):
//   - symbolic or unknown dims become 2,
//   - float16/float32/float64: uniform in [-2, 2],
//   - integer types: 0 or 1 (safe as indices and trip counts),
//   - bool: random, string: short random ASCII strings.
// CANDIDATE gets the same tensor for each name it also lists as an input;
// a reference input missing from CANDIDATE is an error. --feed NAME=FILE.npy
// gives CANDIDATE an extra input (for example an initializer that was moved
// out to a .npy file); it overrides a generated tensor of the same name.
// --feed-both NAME=FILE.npy feeds the same .npy tensor to both models
// instead of a generated one. Only names that both sessions list as inputs
// are accepted: onnxruntime-node silently ignores feeds for other names, and
// it does not list (so cannot override) an initializer that is also a graph
// input.
// --runs K repeats the comparison with seeds N, N+1, ..., N+K-1 (default 1),
// so that random If conditions and Loop trip counts take both values.
//
// .npy files: format versions 1, 2 and 3, little-endian dtypes f2 f4 f8 i1 i2
// i4 i8 u1 u2 u4 u8 b1, C order only.
//
// Every output of REFERENCE is compared with CANDIDATE's output of the same
// name: element type, dims and the raw bytes (so NaN payloads and -0 count;
// strings must be equal). Output on success, exit status 0:
//   ort_compare: ok: N outputs identical
// Otherwise one line per problem (output name, first differing element index
// and both values) and exit status 1. Load or run errors: a message, exit 1.
//
// --batch LIST: compare many pairs in one process (ONNX Runtime's start-up
// costs more than a small model's run). LIST has one "REFERENCE<TAB>CANDIDATE"
// a line; for each the result is one line on stdout:
//   ok: REFERENCE          the outputs are identical
//   skip: REFERENCE: ...   the reference itself does not load or run
//   FAIL: REFERENCE: ...   the candidate does not load or run, or differs
// Exit status 1 when any pair failed. --feed, --feed-both and --chain do not
// combine with --batch.
//
// --chain: CANDIDATE is a list of shard models (as scs4onnx-split writes
// them), run in order; each shard takes its inputs from the reference's
// inputs and the outputs of the shards before it, and the reference's outputs
// are compared with the values of the same names the chain made.
//   node ort_compare.mjs REFERENCE.onnx SHARD0.onnx SHARD1.onnx ... --chain
//
// --tol REL,ABS: floating-point outputs (float16, float32, float64) may
// differ from the reference by ABS + REL * |reference| per element (for
// passes that change arithmetic, e.g. a BatchNormalization folded into a
// Conv); other outputs are still compared bit for bit. On success it prints
//   ort_compare: ok: N outputs within REL,ABS; largest difference D
//   (relative R)
// D over every element of every run, R the largest of D / (the output's
// largest |reference| value), output by output. Pair it with --graph-opt disabled, so that ONNX
// Runtime's own fusions do not make both models compute the same wrong thing.
//
// Models are loaded by path, so external data files resolve relative to the
// model file. Sessions run with one intra-op thread for repeatable results.
// SPDX-License-Identifier: MIT

import fs from 'node:fs';
import os from 'node:os';

import { SESSION_OPTIONS, TYPED, compareOutput, halfBitsToFloat, loadOrt, runChain } from './ort_common.mjs';

const PROG = 'ort_compare';

function usage(msg) {
  if (msg) process.stderr.write(`${PROG}: ${msg}\n`);
  process.stderr.write(
    'usage: node ort_compare.mjs REFERENCE.onnx CANDIDATE.onnx ' +
      '[--feed NAME=FILE.npy ...] [--feed-both NAME=FILE.npy ...] [--seed N] [--runs K] ' +
      '[--graph-opt disabled|basic|extended|all] [--tol REL,ABS]\n' +
      '       node ort_compare.mjs REFERENCE.onnx SHARD0.onnx SHARD1.onnx ... --chain [--seed N] [--runs K] ' +
      '[--graph-opt ...] [--tol REL,ABS]\n' +
      '       node ort_compare.mjs --batch LIST [--seed N] [--runs K] [--graph-opt ...] [--tol REL,ABS]\n',
  );
  process.exit(1);
}

// An error that ends one comparison; main prints it. @reference: the
// reference model itself failed (a batch skips such pairs).
class Failure extends Error {
  constructor(msg, reference = false) {
    super(msg);
    this.reference = reference;
  }
}

function fail(msg, reference = false) {
  throw new Failure(msg, reference);
}

// ------------------------------------------------------------------ args
function parseArgs(argv) {
  const opts = { positional: [], feeds: [], feedsBoth: [], seed: 1, runs: 1, graphOpt: null, chain: false, batch: null, tol: null };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let val = null;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (eq > 0 && ['--feed', '--feed-both', '--seed', '--runs', '--graph-opt', '--batch', '--tol'].includes(a.slice(0, eq))) {
      val = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    const next = () => {
      if (val !== null) return val;
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--feed' || a === '--feed-both') {
      const spec = next();
      const k = spec.indexOf('=');
      if (k <= 0 || k === spec.length - 1) usage(`bad ${a} value '${spec}' (want NAME=FILE.npy)`);
      (a === '--feed' ? opts.feeds : opts.feedsBoth).push({ name: spec.slice(0, k), file: spec.slice(k + 1) });
    } else if (a === '--seed') {
      const s = next();
      if (!/^\d+$/.test(s)) usage(`bad --seed '${s}' (want a non-negative integer)`);
      opts.seed = Number(BigInt(s) & 0xffffffffn);
    } else if (a === '--runs') {
      const r = next();
      if (!/^\d+$/.test(r) || Number(r) < 1 || Number(r) > 1000) usage(`bad --runs '${r}' (want 1..1000)`);
      opts.runs = Number(r);
    } else if (a === '--graph-opt') {
      const g = next();
      if (!['disabled', 'basic', 'extended', 'all'].includes(g)) usage(`bad --graph-opt '${g}'`);
      opts.graphOpt = g;
    } else if (a === '--tol') {
      const t = next();
      const m = /^([0-9.eE+-]+),([0-9.eE+-]+)$/.exec(t);
      if (!m || !(Number(m[1]) >= 0) || !(Number(m[2]) >= 0)) usage(`bad --tol '${t}' (want REL,ABS, e.g. 1e-5,1e-6)`);
      opts.tol = { rel: Number(m[1]), abs: Number(m[2]), maxAbs: 0, maxRel: 0 };
    } else if (a === '--chain') {
      opts.chain = true;
    } else if (a === '--batch') {
      opts.batch = next();
    } else if (a === '-h' || a === '--help') {
      usage();
    } else if (a.startsWith('--')) {
      usage(`unknown option ${a}`);
    } else {
      opts.positional.push(a);
    }
  }
  if (opts.batch !== null) {
    if (opts.positional.length || opts.chain || opts.feeds.length || opts.feedsBoth.length) {
      usage('--batch takes no models, --feed, --feed-both or --chain');
    }
  } else if (opts.chain ? opts.positional.length < 2 : opts.positional.length !== 2) {
    usage(opts.chain ? 'need REFERENCE.onnx and at least one shard' : 'need exactly REFERENCE.onnx and CANDIDATE.onnx');
  }
  return opts;
}

// ------------------------------------------------------------------ PRNG
// mulberry32, seeded per input from (seed, FNV-1a hash of the input name).
function fnv1a(str) {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(str, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function makeRng(seed, name) {
  let s = (Math.imul(seed >>> 0, 0x9e3779b1) ^ fnv1a(name)) >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// float32 -> IEEE half bits (round to nearest even).
const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);
function floatToHalfBits(v) {
  f32buf[0] = v;
  const x = u32buf[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}

// ------------------------------------------------------------------ tensors
function randomTensor(ort, meta, seed) {
  if (!meta.isTensor) throw new Error(`input '${meta.name}' is not a tensor; cannot generate a value`);
  const dims = (meta.shape || []).map((d) => (typeof d === 'number' && Number.isInteger(d) && d >= 0 ? d : 2));
  const n = dims.reduce((a, b) => a * b, 1);
  const rng = makeRng(seed, meta.name);
  const type = meta.type;
  if (type === 'string') {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const data = [];
    for (let i = 0; i < n; i++) {
      const len = 1 + Math.floor(rng() * 8);
      let s = '';
      for (let j = 0; j < len; j++) s += alphabet[Math.floor(rng() * alphabet.length)];
      data.push(s);
    }
    return new ort.Tensor('string', data, dims);
  }
  if (type === 'int4' || type === 'uint4') {
    const data = new (type === 'int4' ? Int8Array : Uint8Array)(Math.ceil(n / 2));
    for (let i = 0; i < n; i++) if (rng() < 0.5) data[i >> 1] |= i & 1 ? 0x10 : 0x01;
    return new ort.Tensor(type, data, dims);
  }
  const Ctor = TYPED[type];
  if (!Ctor) throw new Error(`input '${meta.name}' has unsupported element type '${type}'`);
  const data = new Ctor(n);
  for (let i = 0; i < n; i++) {
    const r = rng();
    if (type === 'float32' || type === 'float64') data[i] = r * 4 - 2;
    else if (type === 'float16') data[i] = floatToHalfBits(r * 4 - 2);
    else if (type === 'int64' || type === 'uint64') data[i] = r < 0.5 ? 0n : 1n;
    else data[i] = r < 0.5 ? 0 : 1;
  }
  return new ort.Tensor(type, data, dims);
}

// ------------------------------------------------------------------ .npy
const NPY_TYPES = {
  f2: ['float16', Uint16Array, 2],
  f4: ['float32', Float32Array, 4],
  f8: ['float64', Float64Array, 8],
  i1: ['int8', Int8Array, 1],
  i2: ['int16', Int16Array, 2],
  i4: ['int32', Int32Array, 4],
  i8: ['int64', BigInt64Array, 8],
  u1: ['uint8', Uint8Array, 1],
  u2: ['uint16', Uint16Array, 2],
  u4: ['uint32', Uint32Array, 4],
  u8: ['uint64', BigUint64Array, 8],
  b1: ['bool', Uint8Array, 1],
};

function readNpy(ort, file) {
  const buf = fs.readFileSync(file);
  const magic = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY
  if (buf.length < 10 || !buf.subarray(0, 6).equals(magic)) throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  let hlen;
  let hstart;
  if (major === 1) {
    hlen = buf.readUInt16LE(8);
    hstart = 10;
  } else if (major === 2 || major === 3) {
    if (buf.length < 12) throw new Error(`${file}: truncated header`);
    hlen = buf.readUInt32LE(8);
    hstart = 12;
  } else {
    throw new Error(`${file}: unsupported .npy version ${major}.${buf[7]}`);
  }
  if (hstart + hlen > buf.length) throw new Error(`${file}: truncated header`);
  const header = buf.subarray(hstart, hstart + hlen).toString(major === 3 ? 'utf8' : 'latin1');
  const descrM = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(header);
  const fortranM = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(header);
  const shapeM = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descrM || !fortranM || !shapeM) throw new Error(`${file}: cannot parse header ${JSON.stringify(header)}`);
  if (fortranM[1] === 'True') throw new Error(`${file}: fortran_order arrays are not supported`);
  const descr = descrM[1];
  const m = /^([<|=>])([a-z]\d+)$/.exec(descr);
  if (!m || !NPY_TYPES[m[2]]) throw new Error(`${file}: unsupported dtype '${descr}'`);
  const [ortType, Ctor, size] = NPY_TYPES[m[2]];
  if (m[1] === '>' && size > 1) throw new Error(`${file}: big-endian dtype '${descr}' is not supported`);
  if (m[1] === '=' && size > 1 && os.endianness() !== 'LE') {
    throw new Error(`${file}: native-endian dtype on a big-endian host is not supported`);
  }
  const dims = shapeM[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      if (!/^\d+L?$/.test(s)) throw new Error(`${file}: bad shape entry '${s}'`);
      return Number.parseInt(s, 10);
    });
  const n = dims.reduce((a, b) => a * b, 1);
  const dataStart = hstart + hlen;
  const nbytes = n * size;
  if (buf.length - dataStart !== nbytes) {
    throw new Error(`${file}: data is ${buf.length - dataStart} bytes, expected ${nbytes} for shape (${dims.join(',')}) ${descr}`);
  }
  // Copy into a fresh, aligned buffer.
  const bytes = new Uint8Array(nbytes);
  bytes.set(buf.subarray(dataStart, dataStart + nbytes));
  const data = new Ctor(bytes.buffer, 0, n);
  if (ortType === 'bool') {
    for (let i = 0; i < n; i++) if (data[i] > 1) throw new Error(`${file}: bool element ${i} is ${data[i]}, not 0 or 1`);
  }
  return new ort.Tensor(ortType, data, dims);
}

// ------------------------------------------------------------------ main
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = loadOrt();
  } catch (e) {
    fail(e.message);
  }
  ort.env.logLevel = 'error';
  const sessOpts = { ...SESSION_OPTIONS };
  if (opts.graphOpt) sessOpts.graphOptimizationLevel = opts.graphOpt;

  if (opts.batch !== null) {
    let failed = 0;
    for (const line of fs.readFileSync(opts.batch, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const [refPath, candPath] = line.split('\t');
      try {
        const problems = await comparePair(ort, sessOpts, opts, refPath, candPath, [candPath]);
        if (problems.length) failed++;
        process.stdout.write(problems.length ? `FAIL: ${refPath}: ${problems.join('; ')}\n` : `ok: ${refPath}\n`);
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        if (!e.reference) failed++;
        process.stdout.write(`${e.reference ? 'skip' : 'FAIL'}: ${refPath}: ${e.message.split('\n')[0]}\n`);
      }
    }
    process.exit(failed ? 1 : 0);
  }
  const problems = await comparePair(ort, sessOpts, opts, opts.positional[0], opts.positional[1], opts.positional.slice(1));
  if (problems.length) {
    for (const p of problems) process.stdout.write(`${PROG}: ${p}\n`);
    process.exit(1);
  }
}

// Load both models (or the chain), run them on the same inputs --runs times;
// the problems found (empty: identical). Throws Failure.
async function comparePair(ort, sessOpts, opts, refPath, candPath, chainPaths) {
  for (const p of [refPath, ...chainPaths]) {
    if (!fs.existsSync(p)) fail(`${p}: no such file`);
  }
  let refSess;
  let candSess;
  try {
    refSess = await ort.InferenceSession.create(refPath, sessOpts);
  } catch (e) {
    fail(`cannot load reference ${refPath}: ${e.message}`, true);
  }
  const chain = [];
  for (const p of opts.chain ? chainPaths : []) {
    try {
      chain.push(await ort.InferenceSession.create(p, sessOpts));
    } catch (e) {
      fail(`cannot load shard ${p}: ${e.message}`);
    }
  }
  try {
    candSess = opts.chain ? { inputNames: refSess.inputNames } : await ort.InferenceSession.create(candPath, sessOpts);
  } catch (e) {
    fail(`cannot load candidate ${candPath}: ${e.message}`);
  }

  const both = {};
  const extra = {};
  try {
    for (const f of opts.feedsBoth) both[f.name] = readNpy(ort, f.file);
    for (const f of opts.feeds) extra[f.name] = readNpy(ort, f.file);
  } catch (e) {
    fail(e.message);
  }

  const problems = [];
  const candInputs = new Set(candSess.inputNames);
  for (const name of refSess.inputNames) {
    if (!candInputs.has(name) && !(name in extra)) problems.push(`input ${name}: reference input is not an input of candidate`);
  }
  for (const name of candSess.inputNames) {
    if (!refSess.inputNames.includes(name) && !(name in extra) && !(name in both)) {
      problems.push(`input ${name}: candidate input has no value (not a reference input, no --feed)`);
    }
  }
  // onnxruntime-node drops feeds whose names it does not list as inputs, so
  // a misspelt or non-overridable name must not pass silently.
  for (const name of Object.keys(extra)) {
    if (!candInputs.has(name)) problems.push(`input ${name}: --feed names no input of candidate`);
  }
  for (const name of Object.keys(both)) {
    if (!refSess.inputNames.includes(name) || !candInputs.has(name)) {
      problems.push(`input ${name}: --feed-both names no input of both models`);
    }
  }
  if (problems.length) return problems;

  for (let r = 0; r < opts.runs; r++) {
    const seed = (opts.seed + r) >>> 0;
    const refFeeds = {};
    try {
      for (const meta of refSess.inputMetadata) refFeeds[meta.name] = randomTensor(ort, meta, seed);
    } catch (e) {
      fail(e.message);
    }
    Object.assign(refFeeds, both);
    const candFeeds = {};
    for (const [name, t] of Object.entries(refFeeds)) if (candInputs.has(name)) candFeeds[name] = t;
    Object.assign(candFeeds, extra);

    let refOut;
    let candOut;
    try {
      refOut = await refSess.run(refFeeds);
    } catch (e) {
      fail(`cannot run reference ${refPath}: ${e.message}`, true);
    }
    try {
      candOut = opts.chain ? await runChain(chain, chainPaths, candFeeds) : await candSess.run(candFeeds);
    } catch (e) {
      fail(`cannot run candidate ${candPath}: ${e.message}`);
    }
    const suffix = opts.runs > 1 ? ` (seed ${seed})` : '';
    for (const name of refSess.outputNames) {
      const found = opts.tol
        ? compareWithin(name, refOut[name], candOut[name], opts.tol)
        : compareOutput(name, refOut[name], candOut[name]);
      for (const p of found) problems.push(p + suffix);
    }
    if (problems.length) return problems;
  }
  if (opts.batch === null && opts.tol) {
    const t = opts.tol;
    process.stdout.write(
      `${PROG}: ok: ${refSess.outputNames.length} outputs within ${t.rel},${t.abs}; ` +
        `largest difference ${t.maxAbs.toExponential(3)} (relative to the output's range ${t.maxRel.toExponential(3)})\n`,
    );
  } else if (opts.batch === null) {
    process.stdout.write(`${PROG}: ok: ${refSess.outputNames.length} outputs identical\n`);
  }
  return problems;
}

// Like compareOutput, but floating-point elements may differ by
// tol.abs + tol.rel * |reference|; records the largest differences in @tol.
function compareWithin(name, ref, cand, tol) {
  const floats = ['float16', 'float32', 'float64'];
  if (cand === undefined || ref.type !== cand.type || !floats.includes(ref.type)) return compareOutput(name, ref, cand);
  const rd = Array.from(ref.dims);
  const cd = Array.from(cand.dims);
  if (rd.length !== cd.length || rd.some((d, i) => d !== cd[i]) || ref.data.length !== cand.data.length) {
    return compareOutput(name, ref, cand);
  }
  const val = ref.type === 'float16' ? halfBitsToFloat : (x) => x;
  let big = 0;
  let worst = 0;
  for (let i = 0; i < ref.data.length; i++) {
    const a = val(ref.data[i]);
    const b = val(cand.data[i]);
    if (Number.isNaN(a) || Number.isNaN(b)) {
      if (Number.isNaN(a) && Number.isNaN(b)) continue;
      return [`output ${name}: element ${i} differs: reference ${a} candidate ${b}`];
    }
    if (Number.isFinite(a)) big = Math.max(big, Math.abs(a));
    if (a === b) continue;
    const d = Math.abs(a - b);
    if (!(d <= tol.abs + tol.rel * Math.abs(a))) {
      return [`output ${name}: element ${i} differs by ${d} (over ${tol.rel},${tol.abs}): reference ${a} candidate ${b}`];
    }
    tol.maxAbs = Math.max(tol.maxAbs, d);
    worst = Math.max(worst, d);
  }
  if (big > 0) tol.maxRel = Math.max(tol.maxRel, worst / big);
  return [];
}

main().catch((e) => {
  process.stderr.write(`${PROG}: error: ${e instanceof Failure ? e.message : e && e.stack ? e.stack : String(e)}\n`);
  process.exit(1);
});
