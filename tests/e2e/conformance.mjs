#!/usr/bin/env node
// conformance.mjs - run ONNX's conformance models and what the tools made of
// them in ONNX Runtime (CPU), on the suite's own inputs, and compare outputs
// bit for bit. One process for the whole suite: conformance.py feeds it.
//
// Usage:
//   node conformance.mjs JOBS.jsonl > RESULTS.jsonl     (- reads the jobs from stdin,
//                                                      as they come)
//
// JOBS.jsonl, one job a line:
//   {"id": "node/test_abs", "model": "M.onnx", "inputs": ["input_0.pb", ...],
//    "cands": [{"tool": "shrink", "models": ["out.onnx"]},
//              {"tool": "split", "models": ["shard-000.onnx", "shard-001.onnx"]}, ...]}
// A candidate's models run in order, each taking its inputs by name from the
// reference's inputs and the outputs of the models before it (a shard chain;
// a single model is a chain of one).
//
// Inputs are TensorProto files (input_N.pb); a tensor whose name is an input
// of the model feeds that input, otherwise it feeds the N-th input. Element
// types: those onnxruntime-node takes (not bfloat16, float8, complex), in
// raw_data or the typed fields.
//
// RESULTS.jsonl, one line a job, in job order:
//   {"id": ..., "skipped": "why"}          the reference cannot be fed or run
//                                          (or gives different outputs run twice)
//   {"id": ..., "results": [{"tool": "shrink", "ok": true}, {"tool": "big",
//    "ok": false, "msg": "output y: element 3 differs: ..."}]}
// Exit status 0 when every job was read, 1 on bad usage or unreadable jobs.
// SPDX-License-Identifier: MIT

import fs from 'node:fs';
import readline from 'node:readline';

import { SESSION_OPTIONS, compareOutput, loadOrt, runChain } from './ort_common.mjs';

const PROG = 'conformance';

// ------------------------------------------------------------------ TensorProto
// Field numbers from onnx.proto: TensorProto.
const F_DIMS = 1;
const F_DATA_TYPE = 2;
const F_FLOAT_DATA = 4;
const F_INT32_DATA = 5;
const F_STRING_DATA = 6;
const F_INT64_DATA = 7;
const F_NAME = 8;
const F_RAW_DATA = 9;
const F_DOUBLE_DATA = 10;
const F_UINT64_DATA = 11;

// data_type -> [onnxruntime-node type, typed array, element bytes]
const ELEM = {
  1: ['float32', Float32Array, 4],
  2: ['uint8', Uint8Array, 1],
  3: ['int8', Int8Array, 1],
  4: ['uint16', Uint16Array, 2],
  5: ['int16', Int16Array, 2],
  6: ['int32', Int32Array, 4],
  7: ['int64', BigInt64Array, 8],
  8: ['string', null, 0],
  9: ['bool', Uint8Array, 1],
  10: ['float16', Uint16Array, 2],
  11: ['float64', Float64Array, 8],
  12: ['uint32', Uint32Array, 4],
  13: ['uint64', BigUint64Array, 8],
};

class Reader {
  constructor(buf, file) {
    this.buf = buf;
    this.pos = 0;
    this.file = file;
  }

  bad(what) {
    return new Error(`${this.file}: offset ${this.pos}: ${what}`);
  }

  varint() {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.buf.length) throw this.bad('truncated varint');
      const b = this.buf[this.pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v & 0xffffffffffffffffn;
    }
    throw this.bad('varint longer than 10 bytes');
  }

  bytes() {
    const len = Number(this.varint());
    if (len > this.buf.length - this.pos) throw this.bad('length runs past the end');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw this.bad(`wire type ${wire}`);
    if (this.pos > this.buf.length) throw this.bad('field runs past the end');
  }

  // The values of a repeated scalar field, packed (wire 2) or one (@wire).
  repeated(wire, scalarWire, out) {
    if (wire === 2 && scalarWire !== 2) {
      const sub = new Reader(this.bytes(), this.file);
      while (sub.pos < sub.buf.length) out.push(sub.scalar(scalarWire));
    } else {
      out.push(this.scalar(wire));
    }
  }

  scalar(wire) {
    if (wire === 0) return this.varint();
    const n = wire === 5 ? 4 : 8;
    if (n > this.buf.length - this.pos) throw this.bad('truncated fixed field');
    const v = wire === 5 ? this.buf.readFloatLE(this.pos) : this.buf.readDoubleLE(this.pos);
    this.pos += n;
    return v;
  }
}

function signed64(v) {
  return BigInt.asIntN(64, v);
}

// A TensorProto file -> { name, tensor }; throws for what cannot be fed.
function readTensorProto(ort, file) {
  const r = new Reader(fs.readFileSync(file), file);
  const dims = [];
  const vals = [];
  const strings = [];
  let type = 0;
  let name = '';
  let raw = null;
  while (r.pos < r.buf.length) {
    const key = Number(r.varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (field === F_DIMS) r.repeated(wire, 0, dims);
    else if (field === F_DATA_TYPE) type = Number(r.varint());
    else if (field === F_FLOAT_DATA) r.repeated(wire, 5, vals);
    else if (field === F_DOUBLE_DATA) r.repeated(wire, 1, vals);
    else if (field === F_INT32_DATA || field === F_INT64_DATA || field === F_UINT64_DATA) r.repeated(wire, 0, vals);
    else if (field === F_STRING_DATA) strings.push(r.bytes().toString('utf8'));
    else if (field === F_NAME) name = r.bytes().toString('utf8');
    else if (field === F_RAW_DATA) raw = r.bytes();
    else r.skip(wire);
  }
  const elem = ELEM[type];
  if (!elem) throw new Error(`${file}: element type ${type} cannot be fed to onnxruntime-node`);
  const [ortType, Ctor, size] = elem;
  const shape = dims.map((d) => Number(signed64(d)));
  const n = shape.reduce((a, b) => a * b, 1);
  if (ortType === 'string') {
    if (strings.length !== n) throw new Error(`${file}: ${strings.length} strings for ${n} elements`);
    return { name, tensor: new ort.Tensor('string', strings, shape) };
  }
  let data;
  if (raw !== null) {
    if (raw.length !== n * size) throw new Error(`${file}: raw_data is ${raw.length} bytes, want ${n * size}`);
    const copy = new Uint8Array(raw.length);
    copy.set(raw);
    data = new Ctor(copy.buffer, 0, n);
  } else {
    if (vals.length !== n) throw new Error(`${file}: ${vals.length} values for ${n} elements`);
    data = new Ctor(n);
    for (let i = 0; i < n; i++) {
      const v = vals[i];
      if (typeof v === 'number') data[i] = v;
      else if (Ctor === BigInt64Array) data[i] = signed64(v);
      else if (Ctor === BigUint64Array) data[i] = v;
      else data[i] = Number(signed64(v)); // int32_data / uint64_data: the typed array narrows
    }
  }
  return { name, tensor: new ort.Tensor(ortType, data, shape) };
}

// ------------------------------------------------------------------ jobs
const sessions = [];

async function open(ort, path) {
  const s = await ort.InferenceSession.create(path, { ...SESSION_OPTIONS, logSeverityLevel: 4 });
  sessions.push(s);
  return s;
}

async function releaseAll() {
  while (sessions.length) {
    try {
      await sessions.pop().release();
    } catch {
      // a session that cannot be released is gone with the process anyway
    }
  }
}

function differences(refSess, refOut, pool) {
  const problems = [];
  for (const name of refSess.outputNames) problems.push(...compareOutput(name, refOut[name], pool[name]));
  return problems;
}

async function runReference(ort, job) {
  const ref = await open(ort, job.model);
  const feeds = {};
  job.inputs.forEach((file, i) => {
    const { name, tensor } = readTensorProto(ort, file);
    const key = ref.inputNames.includes(name) ? name : ref.inputNames[i];
    if (key === undefined) throw new Error(`${file}: the model has only ${ref.inputNames.length} inputs`);
    feeds[key] = tensor;
  });
  for (const name of ref.inputNames) if (!(name in feeds)) throw new Error(`no value for input ${name}`);
  return { ref, feeds, out: await ref.run(feeds) };
}

async function runJob(ort, job) {
  let ref;
  try {
    ref = await runReference(ort, job);
  } catch (e) {
    return { id: job.id, skipped: e.message.split('\n')[0] };
  }
  const results = [];
  let again = null;
  for (const cand of job.cands) {
    let problems;
    try {
      const chain = [];
      for (const p of cand.models) chain.push(await open(ort, p));
      problems = differences(ref.ref, ref.out, await runChain(chain, cand.models, ref.feeds));
    } catch (e) {
      problems = [e.message.split('\n')[0]];
    }
    if (problems.length && again === null) {
      // random operators: a model that differs from itself proves nothing
      try {
        const fresh = await open(ort, job.model);
        again = differences(ref.ref, ref.out, await fresh.run(ref.feeds));
      } catch (e) {
        again = [e.message.split('\n')[0]];
      }
      if (again.length) return { id: job.id, skipped: `the original's outputs differ between runs: ${again[0]}` };
    }
    results.push(problems.length ? { tool: cand.tool, ok: false, msg: problems.join('; ') } : { tool: cand.tool, ok: true });
  }
  return { id: job.id, results };
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 1 || (args[0].startsWith('-') && args[0] !== '-')) {
    process.stderr.write(`usage: node conformance.mjs JOBS.jsonl > RESULTS.jsonl\n`);
    process.exit(1);
  }
  const ort = loadOrt();
  ort.env.logLevel = 'fatal';
  const lines = readline.createInterface({ input: args[0] === '-' ? process.stdin : fs.createReadStream(args[0]), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const job = JSON.parse(line);
    const result = await runJob(ort, job);
    await releaseAll();
    process.stdout.write(JSON.stringify(result) + '\n');
  }
}

main().catch((e) => {
  process.stderr.write(`${PROG}: error: ${e && e.message ? e.message : String(e)}\n`);
  process.exit(1);
});
