// The threaded flavour in Node: how init() picks it and reports the choice, setThreads bounds,
// terminate(), copies (never views over the shared heap) handed to the user, a missing Worker
// file, and a Node script that exits by itself with the pool alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { convReluBin, convReluExpected, convReluParam, dist, distFixture, loadRawApi, needs, smallNetParam } from './helpers.mjs';

function assertCode(fn, code, re) {
  assert.throws(fn, (e) => {
    assert.equal(e.name, 'NnfoldError');
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

// Runs a script with node; resolves {code, stdout, stderr}. A script that never exits is killed
// after `limitMs` (a hang detector, not a timing assertion).
function runNode(source, limitMs = 120000) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-threads-'));
  const file = path.join(dir, 'script.mjs');
  fs.writeFileSync(file, source);
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { timeout: limitMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code: err ? (err.killed ? 'killed' : err.code) : 0, stdout, stderr });
    });
  });
}

const indexUrl = pathToFileURL(path.join(dist, 'index.mjs')).href;

test('init picks the threaded flavour in Node and reports it; threads: 1 is the plain SIMD flavour', { skip: needs(distFixture) }, async () => {
  const api = await loadRawApi();
  assert.equal(api.threadsUnavailableReason(), null);
  assert.equal(api.defaultThreads(), Math.min(8, os.availableParallelism()));
  const nf = await api.init({ threads: 3 });
  assert.equal(nf.build, 'simd-threads');
  assert.equal(nf.threads, 3);
  assert.equal(nf.maxThreads, 3);
  assert.equal(nf.threadsReason, null);
  const m = nf.loadNcnn(convReluParam, convReluBin());
  const x = new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]);
  assert.deepEqual(Array.from(m.run({ data: x }).out.data), Array.from(convReluExpected(x)));
  for (const n of [1, 2, 3]) {
    nf.setThreads(n);
    assert.equal(nf.threads, n);
    assert.deepEqual(Array.from(m.run({ data: x }).out.data), Array.from(convReluExpected(x)));
  }
  // the pool is sized at init and never grows
  assertCode(() => nf.setThreads(4), 'invalid_argument', /\[1, 3\]/);
  assertCode(() => nf.setThreads(0), 'invalid_argument');
  assertCode(() => nf.setThreads(1.5), 'invalid_argument');
  m.dispose();
  nf.terminate();

  const def = await api.init();
  assert.equal(def.build, api.defaultThreads() > 1 ? 'simd-threads' : 'simd');
  assert.equal(def.threads, api.defaultThreads());
  def.terminate();

  const one = await api.init({ threads: 1 });
  assert.equal(one.build, 'simd');
  assert.equal(one.threads, 1);
  assert.equal(one.maxThreads, 1);
  assert.equal(one.threadsReason, null);
  assertCode(() => one.setThreads(2), 'invalid_argument', /single-threaded simd build/);
  one.setThreads(1);
  one.terminate();

  // threads asked for where they cannot run: the fallback says why
  const base = await api.init({ simd: false, threads: 4 });
  assert.equal(base.build, 'base');
  assert.equal(base.threads, 1);
  assert.match(base.threadsReason, /baseline/);
  base.terminate();

  // wasmBinary is one flavour's bytes: single-threaded unless threads are asked for explicitly
  const simdBytes = fs.readFileSync(path.join(dist, 'nnfold-simd.wasm'));
  const viaBinary = await api.init({ wasmBinary: simdBytes });
  assert.equal(viaBinary.build, 'simd');
  viaBinary.terminate();
  const threadedBytes = fs.readFileSync(path.join(dist, 'nnfold-simd-threads.wasm'));
  const viaThreadedBinary = await api.init({ wasmBinary: threadedBytes, threads: 2 });
  assert.equal(viaThreadedBinary.build, 'simd-threads');
  viaThreadedBinary.terminate();

  for (const bad of [0, -1, 1.5, 65, '2', NaN]) {
    await assert.rejects(api.init({ threads: bad }), (e) => e.code === 'invalid_argument' && /threads must be an integer/.test(e.message));
  }
});

test('every typed array handed out is a copy, not a view over the shared heap', { skip: needs(distFixture) }, async () => {
  const { init } = await loadRawApi();
  const nf = await init({ threads: 2 });
  assert.equal(nf.build, 'simd-threads');
  const m = nf.loadNcnn(smallNetParam, null, { seed: 3 });
  const inputs = nf.randomInputs(m, 3);
  const checkCopy = (a, what) => {
    assert.ok(ArrayBuffer.isView(a), what);
    assert.ok(!(a.buffer instanceof SharedArrayBuffer), `${what} is a view over the shared heap`);
    assert.equal(a.byteOffset, 0, `${what} is a view into a larger buffer`);
    assert.equal(a.buffer.byteLength, a.byteLength, `${what} is a view into a larger buffer`);
  };
  checkCopy(inputs.data.data, 'randomInputs data');
  const out = m.run(inputs);
  checkCopy(out.prob.data, 'run output');
  m.optimize();
  const files = m.toNcnn();
  checkCopy(files.paramBytes, 'toNcnn paramBytes');
  checkCopy(files.bin, 'toNcnn bin');
  // what Blob and TextDecoder refuse on shared memory works on them
  assert.equal(new TextDecoder().decode(files.paramBytes), files.param);
  assert.equal(new Blob([files.bin]).size, files.bin.length);
  // the heap grows while the copies stay valid
  const before = out.prob.data.slice();
  const big = nf.loadNcnn('7767517\n2 2\nInput data 0 1 data 0=512 1=512 2=16\nReLU relu 1 1 data out\n', null);
  big.run(nf.randomInputs(big, 1));
  assert.deepEqual(Array.from(out.prob.data), Array.from(before));
  assert.ok(nf.heapStats().heapSize >= 16 * 512 * 512 * 4);
  big.dispose();
  m.dispose();
  nf.terminate();
});

test('terminate() ends the module: later calls fail, models need no dispose, both forms', { skip: needs(distFixture) }, async () => {
  const api = await loadRawApi();
  const a = await api.init({ threads: 2 });
  const b = await api.init({ threads: 2 });
  const m = a.loadNcnn(smallNetParam, null);
  assert.equal(a.alive, true);
  a.terminate();
  assert.equal(a.alive, false);
  assertCode(() => a.loadNcnn(smallNetParam, null), 'invalid_argument', /terminated/);
  assertCode(() => m.run(a.randomInputs(m, 0)), 'invalid_argument', /terminated/);
  m.dispose(); // still safe
  a.terminate(); // twice is fine
  // the module-level terminate() ends every module init() started
  const mb = b.loadNcnn(smallNetParam, null);
  mb.run(b.randomInputs(mb, 0));
  api.terminate();
  assert.equal(b.alive, false);
  assertCode(() => b.loadNcnn(smallNetParam, null), 'invalid_argument', /terminated/);
  // a new module starts after terminate()
  const c = await api.init({ threads: 2 });
  const mc = c.loadNcnn(smallNetParam, null);
  assert.equal(mc.run(c.randomInputs(mc, 0)).prob.data.length, 10);
  c.terminate();
});

test('a Node script that uses the threaded flavour exits by itself; terminate() ends the Workers', { skip: needs(distFixture) }, async () => {
  // no terminate(), no process.exit: the pool's Workers are unref'ed
  const r = await runNode(`
    import { init } from ${JSON.stringify(indexUrl)};
    const nf = await init({ threads: 3 });
    const m = nf.loadNcnn(${JSON.stringify(smallNetParam)}, null);
    const out = m.run(nf.randomInputs(m, 0));
    console.log(JSON.stringify({ build: nf.build, threads: nf.threads, n: out.prob.data.length }));
  `);
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`);
  assert.deepEqual(JSON.parse(r.stdout), { build: 'simd-threads', threads: 3, n: 10 });
  // the Worker threads themselves: Node reports them as active handles until they end
  const t = await runNode(`
    import { init, terminate } from ${JSON.stringify(indexUrl)};
    import { Worker } from 'node:worker_threads';
    const before = process.getActiveResourcesInfo().length;
    const nf = await init({ threads: 3 });
    const m = nf.loadNcnn(${JSON.stringify(smallNetParam)}, null);
    m.run(nf.randomInputs(m, 0));
    terminate();
    // a terminated Worker's thread stops soon after; wait for the resources to drop back
    const t0 = Date.now();
    while (process.getActiveResourcesInfo().filter((x) => x === 'Worker' || x === 'MessagePort').length && Date.now() - t0 < 30000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(JSON.stringify({ alive: nf.alive, left: process.getActiveResourcesInfo().filter((x) => x === 'Worker' || x === 'MessagePort') }));
  `);
  assert.equal(t.code, 0, `exit ${t.code}: ${t.stderr}`);
  assert.deepEqual(JSON.parse(t.stdout), { alive: false, left: [] });
});

test('a missing Worker script or glue is wasm_not_found naming the file', { skip: needs(distFixture) }, async () => {
  const { init } = await loadRawApi();
  const prefix = pathToFileURL(dist + '/').href;
  for (const missing of ['nnfold-simd-threads-node.worker.cjs', 'nnfold-simd-threads-node.cjs', 'nnfold-simd-threads.wasm']) {
    await assert.rejects(
      init({ threads: 2, locateFile: (f) => (f === missing ? pathToFileURL('/nonexistent/' + f).href : new URL(f, prefix).href) }),
      (e) => e.code === 'wasm_not_found' && e.message.includes(missing) && /locateFile/.test(e.message),
    );
  }
  // wasmPaths: a folder without the threaded files
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-threads-'));
  for (const f of ['nnfold-simd.wasm', 'nnfold-base.wasm']) fs.copyFileSync(path.join(dist, f), path.join(dir, f));
  await assert.rejects(init({ threads: 2, wasmPaths: pathToFileURL(dir + '/').href }),
    (e) => e.code === 'wasm_not_found' && /nnfold-simd-threads-node/.test(e.message));
  // the same folder still serves the single-threaded flavours
  const one = await init({ threads: 1, wasmPaths: pathToFileURL(dir + '/').href });
  assert.equal(one.build, 'simd');
  one.terminate();
  fs.rmSync(dir, { recursive: true, force: true });
});
