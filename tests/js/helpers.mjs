// Shared pieces of the package tests: paths, small models, the documented PRNG written out again,
// and the fixtures tests need from outside the repository (dist/, the model zoo, ...).
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

export const root = path.resolve(import.meta.dirname, '../..');
export const dist = path.join(root, 'dist');
export const zoo = path.resolve(root, process.env.NNFOLD_ZOO_DIR ?? '../shared/zoo/ncnn');
export const haveZoo = fs.existsSync(zoo) && fs.readdirSync(zoo).some((f) => f.endsWith('.param'));
export const haveDist = ['index.mjs', 'nnfold-simd.wasm', 'nnfold-base.wasm', 'nnfold-simd-threads.wasm',
  'nnfold-simd-threads-node.cjs'].every((f) => fs.existsSync(path.join(dist, f)));

// The flavour the package tests run on. init()'s own default is the threaded flavour in Node (the
// cores, at most 8); the tests pin it: NNFOLD_TEST_THREADS unset or 1 runs them on the
// single-threaded flavours (init({ simd }) -> 'simd' / 'base'), NNFOLD_TEST_THREADS=N > 1 on
// SIMD + threads with N threads wherever they ask for SIMD (tests/run_all.sh runs both).
export const testThreads = (() => {
  const v = process.env.NNFOLD_TEST_THREADS;
  if (v === undefined || v === '') return 1;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`NNFOLD_TEST_THREADS must be a positive integer, got '${v}'`);
  return n;
})();

// The build name init({ simd }) gives in this run.
export function expectedBuild(simd = true) {
  return simd === false ? 'base' : testThreads > 1 ? 'simd-threads' : 'simd';
}

// Missing fixtures never pass silently. `needs(...fixtures)` is a test's `skip` option: false when
// every fixture is present; otherwise a reason naming what is missing and how to get it. Locally
// the test is skipped with that reason. Under CI (CI=true or CI=1) the test is skipped as well and a
// test named "missing fixture: ..." that fails is registered (once per fixture and file), so the run
// fails naming the fixture instead of passing with skips.
export const onCI = process.env.CI === 'true' || process.env.CI === '1';

export function fixture(what, present, how) {
  return { what, present: !!present, how };
}

export function missingFixtureMessage(f) {
  return `missing fixture: ${f.what}; to get it: ${f.how}`;
}

const reportedOnCI = new Set();

export function needs(...fixtures) {
  const missing = fixtures.filter((f) => !f.present);
  if (!missing.length) return false;
  if (onCI) {
    for (const f of missing) {
      if (reportedOnCI.has(f.what)) continue;
      reportedOnCI.add(f.what);
      test(`missing fixture: ${f.what}`, () => { throw new Error(`${missingFixtureMessage(f)} (CI)`); });
    }
  }
  return missing.map(missingFixtureMessage).join(' | ');
}

// The same rule inside a running test (for a subtest or a check that needs the fixture): locally
// skips `t` with the reason, under CI throws it.
export function skipOrFail(t, f) {
  if (onCI) throw new Error(`${missingFixtureMessage(f)} (CI)`);
  t.skip(missingFixtureMessage(f));
}

export const distFixture = fixture('dist/ (the assembled npm package: index.mjs and the three .wasm flavours)', haveDist,
  'build the three wasm flavours and run `node wasm/assemble.mjs` (`npm run build`; tests/run_all.sh shows every step)');
export const zooFixture = fixture(`the ncnn model zoo (.param files) at ${zoo}`, haveZoo,
  "copy the .param files of ncnn's benchmark/ folder (github.com/Tencent/ncnn) there, or set NNFOLD_ZOO_DIR");
export const nativeCliFixture = fixture(`the native CLI at ${path.join(root, 'build/nnfold')}`, fs.existsSync(path.join(root, 'build/nnfold')),
  'cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build --target nnfold');
// A package from package.json's devDependencies under node_modules/.
export function devDependencyFixture(what, file) {
  return fixture(`${what} (${path.relative(root, file)})`, fs.existsSync(file), 'npm install (or npm ci) in the repository');
}


// The package's API with init() defaulting to this run's thread count (testThreads); an explicit
// `threads` option wins.
export async function loadApi() {
  const api = await import(path.join(dist, 'index.mjs'));
  const init = (options) => api.init({ threads: testThreads, ...(options ?? {}) });
  return { ...api, init, default: init };
}

// The package's API as published (init() with its own defaults).
export async function loadRawApi() {
  return import(path.join(dist, 'index.mjs'));
}

// 1x1 convolution (3 outputs from 2 channels, bias) then ReLU on a declared [2, 2, 2] input.
export const convReluParam =
  '7767517\n' +
  '3 3\n' +
  'Input data 0 1 data 0=2 1=2 2=2\n' +
  'Convolution conv 1 1 data conv 0=3 1=1 5=1 6=6\n' +
  'ReLU relu 1 1 conv out\n';
export const convW = [1, -2, 0.5, 0.25, -1, 3]; // [out][in]
export const convB = [0.5, -0.25, 0];

// .bin: tag 0 (raw fp32) + weights, then the untagged bias.
export function convReluBin() {
  const f = new Float32Array(1 + convW.length + convB.length);
  f.set(convW, 1);
  f.set(convB, 1 + convW.length);
  return new Uint8Array(f.buffer);
}

// The expected output of convRelu, computed here in plain loops.
export function convReluExpected(x) {
  const out = new Float32Array(12);
  for (let o = 0; o < 3; o++) {
    for (let i = 0; i < 4; i++) {
      const v = Math.fround(Math.fround(Math.fround(convW[o * 2] * x[i]) + Math.fround(convW[o * 2 + 1] * x[4 + i])) + convB[o]);
      out[o * 4 + i] = v > 0 ? v : 0;
    }
  }
  return out;
}

// Conv, ReLU, max pooling, fully connected, softmax on a declared [3, 8, 8] input (no .bin).
export const smallNetParam =
  '7767517\n' +
  '6 6\n' +
  'Input data 0 1 data 0=8 1=8 2=3\n' +
  'Convolution conv 1 1 data conv 0=4 1=3 4=1 5=1 6=108\n' +
  'ReLU relu 1 1 conv relu\n' +
  'Pooling pool 1 1 relu pool 0=0 1=2 2=2\n' +
  'InnerProduct fc 1 1 pool fc 0=10 1=1 2=640\n' +
  'Softmax prob 1 1 fc prob\n';

// mulberry32 and uniform(-1, 1) in float32 exactly as runtime/random.h documents them.
export function randomUniform(seed, n) {
  let state = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1) >>> 0;
    t = (t ^ (t + Math.imul(t ^ (t >>> 7), t | 61))) >>> 0;
    const r = (t ^ (t >>> 14)) >>> 0;
    const u = Math.fround((r >>> 8) * (1 / 16777216));
    const scaled = Math.fround(2 * u);
    out[i] = Math.fround(-1 + scaled);
  }
  return out;
}

// Zoo models this build can load (others use layer types not implemented yet), via the native CLI
// or the package.
export function zooModels() {
  if (!haveZoo) return [];
  return fs.readdirSync(zoo).filter((f) => f.endsWith('.param') && !f.includes('int8')).map((f) => f.slice(0, -6)).sort();
}
export const zooShapes = { vision_transformer: { input: [3, 384, 384] } };
