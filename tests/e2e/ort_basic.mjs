#!/usr/bin/env node
// ort_basic.mjs - write what ONNX Runtime's offline optimizer makes of a
// model at its 'basic' level (the semantics-preserving rewrites: constant
// folding, redundant node elimination, the standard-operator fusions), for
// comparing node counts with scs4onnx-optimize (scripts/ort-basic-compare.sh).
//
// Usage:
//   node ort_basic.mjs INPUT.onnx OUTPUT.onnx [--level basic|extended|all]
//   node ort_basic.mjs --batch LIST [--level ...]
//
// The session is created on the CPU with graphOptimizationLevel LEVEL
// (default basic) and optimizedModelFilePath OUTPUT; nothing is run. With
// --batch, LIST holds one "INPUT<TAB>OUTPUT" a line, all done in one process;
// for each one line on stdout:
//   ok: INPUT
//   FAIL: INPUT: MESSAGE        the runtime does not load the model
// Exit status 1 when any failed.
// SPDX-License-Identifier: MIT

import fs from 'node:fs';

import { SESSION_OPTIONS, loadOrt } from './ort_common.mjs';

function usage(msg) {
  if (msg) process.stderr.write(`ort_basic: ${msg}\n`);
  process.stderr.write(
    'usage: node ort_basic.mjs INPUT.onnx OUTPUT.onnx [--level basic|extended|all]\n' +
      '       node ort_basic.mjs --batch LIST [--level basic|extended|all]\n',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { level: 'basic', batch: null, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--level' || a === '--batch') {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      if (a === '--level') opts.level = argv[++i];
      else opts.batch = argv[++i];
    } else if (a.startsWith('--')) {
      usage(`unknown option ${a}`);
    } else {
      opts.positional.push(a);
    }
  }
  if (!['basic', 'extended', 'all'].includes(opts.level)) usage(`bad --level '${opts.level}'`);
  if (opts.batch !== null ? opts.positional.length !== 0 : opts.positional.length !== 2) {
    usage(opts.batch !== null ? '--batch takes no models' : 'need INPUT.onnx and OUTPUT.onnx');
  }
  return opts;
}

// The pairs to do: [input, output].
function pairsOf(opts) {
  if (opts.batch === null) return [opts.positional];
  return fs
    .readFileSync(opts.batch, 'utf8')
    .split('\n')
    .filter((l) => l.length)
    .map((l) => {
      const t = l.split('\t');
      if (t.length !== 2) usage(`${opts.batch}: want INPUT<TAB>OUTPUT, got '${l}'`);
      return t;
    });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  ort.env.logLevel = 'error';
  let failed = 0;
  for (const [input, output] of pairsOf(opts)) {
    try {
      const sess = await ort.InferenceSession.create(input, {
        ...SESSION_OPTIONS,
        graphOptimizationLevel: opts.level,
        optimizedModelFilePath: output,
      });
      await sess.release();
      if (!fs.existsSync(output)) throw new Error('the runtime wrote no optimized model');
      process.stdout.write(`ok: ${input}\n`);
    } catch (e) {
      failed++;
      process.stdout.write(`FAIL: ${input}: ${String(e.message || e).split('\n')[0]}\n`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main();
