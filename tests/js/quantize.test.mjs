// model.quantize() through the npm package, both single-threaded flavours: int8 models made from a
// zoo model (random weights) calibrated on tensors and from a small net calibrated on pictures
// (PNGs made here); the int8 model runs, is written as ncnn2int8's files, reads back and gives the
// same bits; bad calibration input gives clear errors (and the module still works after them);
// repeated quantizations do not leak.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { distFixture, expectedBuild, loadApi, needs, smallNetParam, testThreads, zoo, zooFixture } from './helpers.mjs';
import { makePng, picture } from './png.mjs';

// ---- helpers ---------------------------------------------------------------------------------

async function rejects(promise, code, re) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof Error, `not an Error: ${e}`);
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

// docs/numbers.md: max|a - b| / max(max|ref|, 1e-6)
function relErr(ref, x) {
  let d = 0, m = 0;
  for (let i = 0; i < ref.length; i++) {
    d = Math.max(d, Math.abs(ref[i] - x[i]));
    m = Math.max(m, Math.abs(ref[i]));
  }
  return d / Math.max(m, 1e-6);
}

const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);

// The int8 model written as ncnn files, read back: same outputs, bit for bit.
function roundTrip(nf, int8, inputs) {
  const files = int8.toNcnn();
  const again = nf.loadNcnn(files.paramBytes, files.bin);
  try {
    const a = int8.run(inputs);
    const b = again.run(inputs);
    for (const k of Object.keys(a)) assert.deepEqual(Array.from(b[k].data), Array.from(a[k].data), `output ${k} after re-reading`);
  } finally {
    again.dispose();
  }
  return files;
}

// Layers that ncnn2int8 makes int8 carry int8_scale_term (param 8 of Convolution and
// InnerProduct, 8 of ConvolutionDepthWise too) in the written .param.
const int8Layers = (param) => param.split('\n').filter((l) => /^(Convolution|ConvolutionDepthWise|InnerProduct)\s/.test(l) && /\s8=(1|2|101|102)\b/.test(l));

const zooParam = (name) => fs.readFileSync(path.join(zoo, `${name}.param`), 'utf8');

// Under NNFOLD_TEST_THREADS > 1 (tests/run_all.sh's second pass) `undefined` is SIMD + threads; the
// baseline flavour has no threads and already ran in the first pass.
const flavours = testThreads > 1 ? [undefined] : [undefined, false];
const label = (simd) => expectedBuild(simd); // 'simd', 'base' or 'simd-threads'

for (const simd of flavours) {
  test(`[${label(simd)}] squeezenet (random weights) quantized on tensors: int8 runs, agrees with fp32, writes and re-reads`, { skip: needs(distFixture, zooFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const fp32 = nf.loadNcnn(zooParam('squeezenet'), null, { seed: 3 });
    const samples = [1, 2, 3, 4].map((s) => nf.randomInputs(fp32, s).data);
    const stages = new Set();
    let calls = 0;
    const { model: int8, report } = await fp32.quantize({
      calibration: samples.map((x) => ({ data: x.data, shape: x.shape })),
      method: 'kl',
      onProgress: ({ done, total, stage }) => {
        calls++;
        stages.add(stage);
        assert.ok(done <= total);
      },
    });
    try {
      assert.deepEqual([...stages].sort(), ['quantizing', 'reading']);
      assert.ok(calls >= 5);
      assert.equal(report.method, 'kl');
      assert.equal(report.samples, 4);
      const q = report.layers.filter((l) => l.int8);
      assert.ok(q.length >= 20, `${q.length} int8 layers`);
      for (const l of q) {
        assert.ok(l.bottom_scale > 0 && Number.isFinite(l.bottom_scale), `${l.name} bottom_scale ${l.bottom_scale}`);
        assert.ok(l.weight_scale_min > 0 && l.weight_scale_max >= l.weight_scale_min, `${l.name} weight scales`);
      }
      assert.ok(report.bytes_after < report.bytes_before / 3, `${report.bytes_after} vs ${report.bytes_before} bytes`);
      assert.equal(report.outputs.length, 1);
      assert.ok(Number.isFinite(report.outputs[0].error));
      // the fp32 model is untouched and still runs; the int8 one has the same interface
      assert.deepEqual(int8.inputs.map((x) => [x.name, x.shape]), fp32.inputs.map((x) => [x.name, x.shape]));
      assert.deepEqual(int8.outputs.map((x) => x.name), fp32.outputs.map((x) => x.name));
      const out = fp32.outputs[0].name;
      let worst = 0;
      for (const x of samples) {
        const a = fp32.run({ data: x }); const b = int8.run({ data: x });
        assert.equal(b[out].data.length, a[out].data.length);
        worst = Math.max(worst, relErr(a[out].data, b[out].data));
      }
      // int8 differs from fp32 (it is quantized), not wildly (random-weight nets reach a few %)
      assert.ok(worst > 0 && worst < 0.5, `worst error on the calibration set ${worst}`);
      const files = roundTrip(nf, int8, { data: samples[0] });
      assert.ok(int8Layers(files.param).length >= 20, 'the written .param has int8 layers');
      assert.ok(files.bin.length < report.bytes_before / 3);
    } finally {
      int8.dispose();
      fp32.dispose();
    }
  });

  test(`[${label(simd)}] a net quantized on pictures (PNG bytes, Blobs): every method, mean/norm/rgb, top-1 kept`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const fp32 = nf.loadNcnn(smallNetParam, null, { seed: 5 });
    const pics = [0, 1, 2, 3, 4, 5].map((k) => picture(24 + k, 20 + 2 * k, k));
    const calibration = [...pics.slice(0, 3), new Blob([pics[3]]), pics[4].buffer.slice(0), new File([pics[5]], 'six.png')];
    for (const method of ['kl', 'aciq', 'eq']) {
      const { model: int8, report } = await fp32.quantize({ calibration, method, mean: [127.5, 127.5, 127.5], norm: 1 / 127.5, rgb: false });
      try {
        assert.equal(report.method, method);
        assert.equal(report.samples, 6);
        assert.deepEqual(report.layers.filter((l) => l.int8).map((l) => l.type).sort(), ['Convolution', 'InnerProduct']);
        const top1 = report.outputs[0].top1_agreement;
        assert.ok(top1 === null || (top1 >= 0 && top1 <= 1), `top1_agreement ${top1}`);
        const x = nf.randomInputs(fp32, 9);
        const a = fp32.run(x).prob.data;
        const b = int8.run(x).prob.data;
        assert.ok(relErr(a, b) < 0.25, `${method}: error ${relErr(a, b)}`);
        roundTrip(nf, int8, x);
      } finally {
        int8.dispose();
      }
    }
    // keepFp32 names layers that stay fp32, with the reason in the report
    const { model: kept, report } = await fp32.quantize({ calibration: pics, keepFp32: ['fc'] });
    try {
      const fc = report.layers.find((l) => l.name === 'fc');
      assert.equal(fc.int8, false);
      assert.notEqual(fc.reason, '');
      assert.equal(int8Layers(kept.toNcnn().param).length, 1);
    } finally {
      kept.dispose();
      fp32.dispose();
    }
  });

  test(`[${label(simd)}] bad calibration input: clear errors, nothing left behind, the module still works`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const m = nf.loadNcnn(smallNetParam, null, { seed: 5 });
    const good = picture(16, 16, 1);
    const q = (opts) => m.quantize(opts);
    await rejects(q(), 'invalid_argument', /options must be an object/);
    await rejects(q({}), 'invalid_argument', /calibration must be a non-empty array/);
    await rejects(q({ calibration: [] }), 'invalid_argument', /non-empty array/);
    await rejects(q({ calibration: ['photo.png'] }), 'invalid_argument', /calibration\[0\] must be an encoded PNG\/JPEG picture/);
    await rejects(q({ calibration: [good], method: 'minmax' }), 'invalid_argument', /method must be one of 'kl', 'aciq', 'eq'/);
    await rejects(q({ calibration: [good], mean: [1, 2, 3, 4, 5] }), 'invalid_argument', /mean must be/);
    await rejects(q({ calibration: [good], norm: [NaN] }), 'invalid_argument', /norm must be/);
    await rejects(q({ calibration: [good], maxLayerError: -1 }), 'invalid_argument', /maxLayerError/);
    await rejects(q({ calibration: [good], keepFp32: 'fc' }), 'invalid_argument', /keepFp32 must be an array of strings/);
    await rejects(q({ calibration: [good], signal: 'stop' }), 'invalid_argument', /signal must be an AbortSignal/);
    // a file that is not a picture, named in the message (a File's name, else its index)
    await rejects(q({ calibration: [good, new File(['not a picture'], 'notes.txt')] }), 'invalid_argument', /notes\.txt/);
    await rejects(q({ calibration: [good, new TextEncoder().encode('<html>')] }), 'invalid_argument', /calibration\[1\]/);
    // a truncated PNG
    await rejects(q({ calibration: [good.subarray(0, 60)] }), 'invalid_argument', /calibration\[0\]/);
    // an image bomb: 40000 x 40000 declared in a few hundred bytes, refused before decoding
    const before = nf.heapStats().heapSize;
    const bomb = picture(4, 4, 0);
    const bombBytes = makePng(4, 4, 3, () => 0, [40000, 40000]);
    await rejects(q({ calibration: [bomb, new File([bombBytes], 'bomb.png')] }), 'resource_limit', /bomb\.png/);
    assert.ok(nf.heapStats().heapSize - before < 64 << 20, 'the bomb was not decoded');
    // tensors of the wrong size or shape, missing inputs, unknown keys
    await rejects(q({ calibration: [new Float32Array(5)] }), 'shape_mismatch', /calibration\[0\]: input 'data' has 5 values/);
    await rejects(q({ calibration: [{ data: new Float32Array(3 * 8 * 8), shape: [3, 64] }] }), 'shape_mismatch', /calibration\[0\]/);
    await rejects(q({ calibration: [{ image: new Float32Array(3) }] }), 'invalid_argument', /calibration\[0\]: an object is \{data, shape\}/);
    // cancelling: onProgress returning false, an aborted signal (before, and from onProgress)
    await rejects(q({ calibration: [good, good], onProgress: () => false }), 'cancelled');
    await rejects(q({ calibration: [good], signal: AbortSignal.abort() }), 'cancelled', /signal/);
    const ctl = new AbortController();
    await rejects(q({ calibration: [good, good], signal: ctl.signal, onProgress: ({ stage }) => { if (stage === 'quantizing') ctl.abort(); } }), 'cancelled', /signal/);
    // a throwing onProgress: its own error comes back
    await rejects(q({ calibration: [good], onProgress: () => { throw Object.assign(new Error('mine'), { code: 'mine' }); } }), 'mine');

    // pictures for a model that cannot take them: two inputs, or 4 channels
    const two = nf.loadNcnn('7767517\n4 4\nInput a 0 1 a 0=4 1=4 2=3\nInput b 0 1 b 0=4 1=4 2=3\n' +
      'BinaryOp add 2 1 a b s 0=0\nConvolution conv 1 1 s out 0=2 1=1 6=6\n', null);
    await rejects(two.quantize({ calibration: [good] }), 'invalid_argument', /one input|exactly one|2 inputs|inputs/);
    await rejects(two.quantize({ calibration: [new Float32Array(48)] }), 'invalid_argument', /has 2 inputs/);
    await rejects(two.quantize({ calibration: [{ a: new Float32Array(48) }] }), 'invalid_argument', /no value for input 'b'/);
    // ... while a record by input name works
    const r2 = await two.quantize({ calibration: [{ a: new Float32Array(48).fill(0.5), b: { data: new Float32Array(48).fill(-0.25), shape: [3, 4, 4] } }] });
    assert.equal(r2.report.samples, 1);
    r2.model.dispose();
    two.dispose();
    const four = nf.loadNcnn('7767517\n2 2\nInput data 0 1 data 0=8 1=8 2=4\nConvolution conv 1 1 data out 0=2 1=1 6=8\n', null);
    await rejects(four.quantize({ calibration: [good] }), 'invalid_argument', /4 channels|channel/);
    four.dispose();
    // nothing to quantize, and a model already int8
    const relu = nf.loadNcnn('7767517\n2 2\nInput data 0 1 data 0=4 1=4 2=3\nReLU relu 1 1 data out\n', null);
    await rejects(relu.quantize({ calibration: [good] }), 'unsupported', /nothing to quantize|no Convolution/);
    relu.dispose();
    const { model: int8 } = await m.quantize({ calibration: [good] });
    await rejects(int8.quantize({ calibration: [good] }), 'unsupported', /int8/);
    int8.dispose();
    // a disposed model
    const gone = nf.loadNcnn(smallNetParam, null);
    gone.dispose();
    await rejects(gone.quantize({ calibration: [good] }), 'invalid_argument', /disposed/);

    // after all that the module and the model still quantize and run
    const { model: ok, report } = await m.quantize({ calibration: [good, picture(9, 11, 2)] });
    assert.equal(report.samples, 2);
    assert.equal(ok.run(nf.randomInputs(ok, 1)).prob.data.length, 10);
    ok.dispose();
    m.dispose();
  });

  test(`[${label(simd)}] 200 quantize/run/dispose cycles, failed ones included, do not leak`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const fp32 = nf.loadNcnn(smallNetParam, null, { seed: 1 });
    const pics = [picture(12, 12, 0), picture(10, 14, 1)];
    const x = nf.randomInputs(fp32, 2);
    const cycle = async (i) => {
      const { model } = await fp32.quantize({ calibration: i % 2 ? pics : [x.data.data, nf.randomInputs(fp32, i).data.data], method: ['kl', 'aciq', 'eq'][i % 3] });
      assert.equal(model.run(x).prob.data.length, 10);
      model.toNcnn();
      model.dispose();
      await assert.rejects(fp32.quantize({ calibration: [pics[0], new Uint8Array([1, 2, 3])] }));
    };
    for (let i = 0; i < 10; i++) await cycle(i);
    const before = nf.heapStats();
    for (let i = 0; i < 200; i++) await cycle(i);
    const grown = nf.heapStats().allocated - before.allocated;
    assert.ok(grown <= 64 * 1024, `live heap bytes grew by ${grown}`);
    // an int8 model never disposed does show up: the measure can see a leak
    const kept = [];
    for (let i = 0; i < 5; i++) kept.push((await fp32.quantize({ calibration: pics })).model);
    for (const k of kept) k.run(x);
    assert.ok(nf.heapStats().allocated - before.allocated > 5 * 2000);
    for (const k of kept) k.dispose();
    fp32.dispose();
  });
}
