// `npm run bench` (tests/bench/bench.mjs) in its smoke setting: --json --runs 1 on the smallest zoo
// model. Checks the one JSON object's schema (every value present, numbers finite and positive, the
// two package flavours both timed), never the timings themselves. Needs dist/ and the zoo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { distFixture, needs, root, zooFixture } from './helpers.mjs';

const kernelBench = path.join(root, 'build-wasm-simd/tests/bench/nnfold_kernel_bench.js');
const finitePos = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;

test('npm run bench --json --runs 1 prints one object with the documented schema', {
  skip: needs(distFixture, zooFixture),
  timeout: 300000,
}, () => {
  const out = execFileSync(process.execPath,
    [path.join(root, 'tests/bench/bench.mjs'), '--json', '--runs', '1', '--warmup-ms', '100', 'blazeface'],
    { encoding: 'utf8', maxBuffer: 1 << 24 });
  const j = JSON.parse(out); // exactly one JSON value on stdout
  assert.equal(typeof j.machine, 'object');
  assert.equal(typeof j.machine.cpu, 'string');
  assert.ok(Number.isInteger(j.machine.cores) && j.machine.cores > 0);
  assert.equal(j.machine.node, process.version);

  for (const runtime of ['nnfold-baseline', 'nnfold-simd']) {
    const rows = j.results.filter((r) => r.runtime === runtime);
    assert.equal(rows.length, 1, `one ${runtime} row`);
    const r = rows[0];
    assert.equal(r.model, 'blazeface');
    assert.ok(finitePos(r.median_ms), `${runtime} median_ms ${r.median_ms}`);
    assert.ok(finitePos(r.min_ms), `${runtime} min_ms ${r.min_ms}`);
    assert.ok(r.min_ms <= r.median_ms);
    assert.equal(r.runs, 1);
  }
  // the filter left out the other zoo models and the ONNX models
  assert.deepEqual([...new Set(j.results.map((r) => r.model))], ['blazeface']);
  for (const r of j.results) assert.ok(['nnfold-simd', 'nnfold-baseline', 'onnxruntime-web'].includes(r.runtime));

  if (fs.existsSync(kernelBench)) {
    assert.ok(finitePos(j.peak_gflops), `peak_gflops ${j.peak_gflops}`);
    const names = j.kernels.map((k) => k.name);
    for (const want of ['gemm.256', 'conv1x1.128', 'conv3x3.64', 'dwconv3x3.128']) assert.ok(names.includes(want), `kernel ${want} in ${names}`);
    for (const k of j.kernels) {
      assert.equal(typeof k.name, 'string');
      assert.ok(finitePos(k.gflops), `${k.name} gflops ${k.gflops}`);
    }
  } else {
    assert.equal(j.peak_gflops, null);
    assert.ok(j.skipped.some((s) => s.model === 'kernels'), 'a missing kernel bench is reported as skipped');
  }
});
