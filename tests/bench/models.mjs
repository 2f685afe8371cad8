// Whole-model timing of the wasm builds in Node: `nnfold run MODEL.param null --runs N` of the
// wasm baseline (scalar kernels) and wasm SIMD CLIs on the ncnn zoo, median ms after warm-up (by
// the running thread's CPU time, which a busy machine does not inflate; wall ms in the JSON), and
// the SIMD speedup. Models that do not load in this checkout (layer types not implemented yet) are
// listed as skipped with the CLI's message. Not a test: nothing is asserted.
//
//   node tests/bench/models.mjs [--runs N] [--warmup W] [--json] [--native] [model ...]
//
// Needs build-wasm-base/ and build-wasm-simd/ (tests/run_all.sh builds them); --native adds the
// native build/ CLI as a third column.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const zoo = path.resolve(root, '../shared/zoo/ncnn');
const args = process.argv.slice(2);
const opt = { runs: 5, warmup: 3, json: false, native: false, models: [] };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--runs') opt.runs = Number(args[++i]);
  else if (a === '--warmup') opt.warmup = Number(args[++i]);
  else if (a === '--json') opt.json = true;
  else if (a === '--native') opt.native = true;
  else if (a === '--help') {
    console.log('usage: node tests/bench/models.mjs [--runs N] [--warmup W] [--json] [--native] [model ...]');
    process.exit(0);
  } else opt.models.push(a);
}

const builds = {
  base: ['/usr/bin/node', '--no-experimental-fetch', path.join(root, 'build-wasm-base/nnfold.js')],
  simd: ['/usr/bin/node', '--no-experimental-fetch', path.join(root, 'build-wasm-simd/nnfold.js')],
};
if (opt.native) builds.native = [path.join(root, 'build/nnfold')];
for (const [name, cmd] of Object.entries(builds)) {
  if (!fs.existsSync(cmd[cmd.length - 1])) {
    console.error(`${cmd[cmd.length - 1]} is missing (${name} build): build it first (tests/run_all.sh)`);
    process.exit(1);
  }
}
if (!fs.existsSync(zoo)) {
  console.error(`no model zoo at ${zoo}`);
  process.exit(1);
}
const extra = { vision_transformer: ['--shape', 'input=3,384,384'] };
const models = opt.models.length
  ? opt.models
  : fs.readdirSync(zoo).filter((f) => f.endsWith('.param') && !f.includes('int8')).map((f) => f.slice(0, -6)).sort();

function timeModel(build, model) {
  const [cmd, ...pre] = builds[build];
  const argv = [...pre, 'run', path.join(zoo, model + '.param'), 'null', '--runs', String(opt.runs), '--warmup',
    String(opt.warmup), ...(extra[model] ?? [])];
  try {
    const out = JSON.parse(execFileSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'pipe'] }));
    return { ms: out.runs.median_cpu_ms ?? out.runs.median_ms, wall_ms: out.runs.median_ms };
  } catch (e) {
    const msg = (e.stderr || e.message || '').toString().trim().split('\n').pop();
    return { error: msg };
  }
}

const rows = [];
if (!opt.json) {
  console.log(`median CPU ms of ${opt.runs} runs after ${opt.warmup} warm-up runs (random weights, seed 0)`);
  console.log(['model'.padEnd(20), 'wasm base'.padStart(10), 'wasm simd'.padStart(10),
    ...(opt.native ? ['native'.padStart(10)] : []), 'speedup'.padStart(8)].join(' '));
}
for (const model of models) {
  const row = { model };
  for (const b of Object.keys(builds)) row[b] = timeModel(b, model);
  if (row.base.ms && row.simd.ms) row.speedup = row.base.ms / row.simd.ms;
  rows.push(row);
  if (!opt.json) {
    const cell = (r) => (r.ms !== undefined ? r.ms.toFixed(1).padStart(10) : '      skip');
    const line = [model.padEnd(20), cell(row.base), cell(row.simd)];
    if (opt.native) line.push(cell(row.native));
    line.push(row.speedup ? (row.speedup.toFixed(2) + 'x').padStart(8) : '       -');
    if (row.base.error || row.simd.error) line.push('  ' + (row.base.error || row.simd.error));
    console.log(line.join(' '));
  }
}
if (opt.json) {
  console.log(JSON.stringify({ runs: opt.runs, warmup: opt.warmup, models: rows }, null, 2));
}
