// Shared pieces of the package tests: paths, small models, the documented PRNG written out again,
// and a check that dist/ is built (tests/run_all.sh assembles it after the wasm builds).
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');
export const dist = path.join(root, 'dist');
export const zoo = path.resolve(root, '../shared/zoo/ncnn');
export const haveZoo = fs.existsSync(zoo);
export const haveDist = ['index.mjs', 'nnfold-simd.wasm', 'nnfold-base.wasm'].every((f) => fs.existsSync(path.join(dist, f)));
export const noDist = !haveDist && 'dist/ is not built (npm run build)';

export async function loadApi() {
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
