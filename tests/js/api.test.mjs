// The npm package's API in Node, on both WebAssembly flavours (SIMD picked by detection, and the
// forced baseline): every call, values checked against hand computation / independent loops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  convReluBin, convReluExpected, convReluParam, dist, distFixture, expectedBuild, loadApi, needs, randomUniform, smallNetParam,
} from './helpers.mjs';

function assertCode(fn, code, re) {
  assert.throws(fn, (e) => {
    assert.equal(e.name, 'NnfoldError');
    assert.ok(e instanceof Error);
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

test('init picks SIMD when the engine validates the probe, baseline on request', { skip: needs(distFixture) }, async () => {
  const { init, simdSupported } = await loadApi();
  assert.equal(simdSupported(), true, 'Node 20 supports wasm SIMD');
  const nf = await init();
  assert.equal(nf.build, expectedBuild());
  const base = await init({ simd: false });
  assert.equal(base.build, 'base');
  assert.match(nf.version, /^\d+\.\d+\.\d+/);
  // every build has the optimizer, verify and ONNX import
  assert.deepEqual({ ...nf.features }, { optimize: true, verify: true, onnx: true });
  // the .wasm located explicitly: wasmPaths (folder), locateFile, wasmBinary
  const viaPaths = await init({ simd: false, wasmPaths: pathToFileURL(dist + '/').href });
  assert.equal(viaPaths.build, 'base');
  let asked = null;
  const viaLocate = await init({ locateFile: (f, prefix) => { asked = f; return new URL(f, prefix).href; } });
  assert.equal(asked, expectedBuild() === 'simd-threads' ? 'nnfold-simd-threads.wasm' : 'nnfold-simd.wasm');
  assert.equal(viaLocate.build, expectedBuild());
  const bytes = fs.readFileSync(path.join(dist, 'nnfold-base.wasm'));
  const viaBinary = await init({ simd: false, wasmBinary: bytes });
  assert.equal(viaBinary.build, 'base');
  await assert.rejects(init({ simd: false, wasmPaths: pathToFileURL('/nonexistent/').href }), /ENOENT|no such file/i);
  await assert.rejects(init({ simd: false, wasmBinary: new Uint8Array([1, 2, 3]) }), (e) => e.code === 'internal');
});

for (const simd of [undefined, false]) {
  const flavour = expectedBuild(simd);

  test(`[${flavour}] run: hand-computed conv+relu, every input form`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    assert.equal(nf.build, flavour);
    const m = nf.loadNcnn(convReluParam, convReluBin());
    assert.deepEqual(m.inputs, [{ name: 'data', shape: [2, 2, 2], dtype: 'float32', dim_names: [null, null, null] }]);
    assert.deepEqual(m.outputs, [{ name: 'out', shape: [3, 2, 2], dtype: 'float32', dim_names: [null, null, null] }]);
    assert.deepEqual(m.warnings, []);
    const x = new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]);
    const want = convReluExpected(x);
    assert.equal(want[0], 3.5); // relu(1*1 + -2*-1 + 0.5)
    for (const input of [x, { data: x }, { data: x, shape: [2, 2, 2] }, Array.from(x), { data: Array.from(x) }]) {
      const out = m.run({ data: input });
      assert.deepEqual(Object.keys(out), ['out']);
      assert.deepEqual(out.out.shape, [3, 2, 2]);
      assert.ok(out.out.data instanceof Float32Array);
      assert.deepEqual(Array.from(out.out.data), Array.from(want));
    }
    // an intermediate blob on request
    const mid = m.run({ data: x }, { outputs: ['conv'] });
    assert.deepEqual(Object.keys(mid), ['conv']);
    assert.ok(mid.conv.data.some((v) => v < 0), 'before ReLU some values are negative');
    // the same bytes given as an ArrayBuffer / param bytes
    const m2 = nf.loadNcnn(new TextEncoder().encode(convReluParam), convReluBin().buffer);
    assert.deepEqual(Array.from(m2.run({ data: x }).out.data), Array.from(want));
    m.dispose();
    m2.dispose();
  });

  test(`[${flavour}] randomInputs follow the documented PRNG; random weights are seeded`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const m = nf.loadNcnn(smallNetParam, null, { seed: 3 });
    const r = nf.randomInputs(m, 42);
    assert.deepEqual(Object.keys(r), ['data']);
    assert.deepEqual(r.data.shape, [3, 8, 8]);
    assert.deepEqual(Array.from(r.data.data), Array.from(randomUniform(42, 192)));
    assert.deepEqual(Array.from(nf.randomInputs(m).data.data), Array.from(randomUniform(0, 192)));
    const p1 = m.run(r).prob.data;
    assert.equal(p1.length, 10);
    assert.ok(Math.abs(p1.reduce((a, b) => a + b, 0) - 1) < 1e-5);
    // same seed, same weights; another seed, other weights
    const same = nf.loadNcnn(smallNetParam, null, { seed: 3 });
    const other = nf.loadNcnn(smallNetParam, null, { seed: 4 });
    assert.deepEqual(Array.from(same.run(r).prob.data), Array.from(p1));
    assert.notDeepEqual(Array.from(other.run(r).prob.data), Array.from(p1));
    // the random weights are the native ones: toNcnn's .bin starts with tag 0 then U(-k, k),
    // k = sqrt(3 / fan_in) = sqrt(3 / 27) for the 3x3x3 convolution
    const bin = new DataView(same.toNcnn().bin.buffer);
    assert.equal(bin.getUint32(0, true), 0);
    const first = randomUniform(3, 1)[0]; // U(-1,1) from the same stream, rescaled below
    const k = Math.fround(Math.sqrt(3 / 27));
    const u = (first + 1) / 2; // exact: the first draw as U(0,1)
    const expectW = Math.fround(-k + Math.fround(Math.fround(2 * k) * Math.fround(u)));
    assert.equal(bin.getFloat32(4, true), expectW);
    for (const x of [m, same, other]) x.dispose();
  });

  test(`[${flavour}] info, graph, toNcnn round trip, fp16`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const m = nf.loadNcnn(smallNetParam, null, { seed: 9 });
    const info = m.info();
    assert.equal(info.layers, 6);
    assert.equal(info.layers_by_type.InnerProduct, 1);
    assert.equal(info.weight_values, 108 + 4 + 640 + 10);
    assert.deepEqual(info.outputs, [{ name: 'prob', shape: [10] }]);
    assert.equal(info.shapes_known, true);
    assert.ok(info.memory_bytes > (108 + 4 + 640 + 10) * 4);
    assert.deepEqual(info.warnings, []);
    const g = m.graph();
    assert.equal(g.nodes.length, 6);
    assert.equal(g.edges.length, 6);
    const fc = g.nodes.find((n) => n.name === 'fc');
    assert.equal(fc.type, 'InnerProduct');
    assert.equal(fc.weights_bytes, 4 + 640 * 4 + 10 * 4);
    assert.deepEqual(fc.params.find((p) => p.id === 0), { id: 0, name: 'num_output', value: 10 });
    const pool = g.edges.find((e) => e.name === 'pool');
    assert.deepEqual(pool.shape, [4, 4, 4]);
    assert.equal(g.nodes.find((n) => n.id === pool.from).name, 'pool');
    assert.deepEqual(pool.to, [fc.id]);

    const files = m.toNcnn();
    assert.equal(typeof files.param, 'string');
    assert.ok(files.param.startsWith('7767517\n'));
    assert.deepEqual(files.paramBytes, new TextEncoder().encode(files.param));
    assert.equal(files.bin.length, 4 + 108 * 4 + 4 * 4 + 4 + 640 * 4 + 10 * 4);
    const back = nf.loadNcnn(files.param, files.bin);
    const inputs = nf.randomInputs(m, 5);
    assert.deepEqual(Array.from(back.run(inputs).prob.data), Array.from(m.run(inputs).prob.data));
    const half = m.toNcnn({ fp16: true });
    assert.ok(half.bin.length < files.bin.length * 0.6, `${half.bin.length} vs ${files.bin.length}`);
    const back16 = nf.loadNcnn(half.param, half.bin);
    const a = back16.run(inputs).prob.data, b = m.run(inputs).prob.data;
    const err = Math.max(...a.map((v, i) => Math.abs(v - b[i]))) / Math.max(...b.map(Math.abs));
    assert.ok(err < 1e-2, `fp16 err ${err}`);
    for (const x of [m, back, back16]) x.dispose();
  });

  test(`[${flavour}] profile with progress and cancellation`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const m = nf.loadNcnn(smallNetParam, null);
    const seen = [];
    const p = m.profile(null, { runs: 3, onProgress: (pr) => { seen.push([pr.done, pr.total]); } });
    assert.deepEqual(seen, [[0, 3], [1, 3], [2, 3], [3, 3]]);
    assert.equal(p.runs, 3);
    assert.equal(p.run_ms.length, 3);
    assert.deepEqual(p.layers.map((l) => l.type), ['Input', 'Convolution', 'ReLU', 'Pooling', 'InnerProduct', 'Softmax']);
    assert.ok(p.layers.every((l) => l.ms_min <= l.ms_mean + 1e-9 && l.ms_min >= 0));
    const withInputs = m.profile(nf.randomInputs(m, 1), { runs: 1 });
    assert.equal(withInputs.runs, 1);
    assertCode(() => m.profile(null, { runs: 5, onProgress: ({ done }) => done < 2 }), 'cancelled');
    // a callback that throws: its own error comes back, and the model keeps working
    const boom = new Error('boom');
    assert.throws(() => m.profile(null, { runs: 2, onProgress: () => { throw boom; } }), (e) => e === boom);
    assertCode(() => m.profile(null, { runs: 0 }), 'invalid_argument');
    assert.equal(m.run(nf.randomInputs(m, 1)).prob.data.length, 10);
    m.dispose();
  });

  test(`[${flavour}] optimize and verify refuse bad arguments and leave the model usable`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const m = nf.loadNcnn(smallNetParam, null);
    assertCode(() => m.optimize({ passes: 'all' }), 'invalid_argument');
    assertCode(() => nf.verify(m, {}), 'invalid_argument');
    // the model is unaffected
    assert.equal(m.run(nf.randomInputs(m)).prob.data.length, 10);
    m.dispose();
  });

  test(`[${flavour}] input shapes: undeclared inputs, setInputShapes, explicit shapes`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const undeclared = '7767517\n2 2\nInput data 0 1 data\nReLU relu 1 1 data out\n';
    const m = nf.loadNcnn(undeclared, null);
    assert.deepEqual(m.inputs, [{ name: 'data', shape: null, dtype: 'float32', dim_names: [] }]);
    assertCode(() => nf.randomInputs(m), 'invalid_argument', /declares no shape/);
    assertCode(() => m.run({ data: new Float32Array(4) }), 'invalid_argument', /declares no shape/);
    const out = m.run({ data: { data: new Float32Array([-1, 2, -3, 4]), shape: [2, 2] } });
    assert.deepEqual(out.out, { data: new Float32Array([0, 2, 0, 4]), shape: [2, 2], dtype: 'float32' });
    m.setInputShapes({ data: [5] });
    assert.deepEqual(m.inputs, [{ name: 'data', shape: [5], dtype: 'float32', dim_names: [null] }]);
    assert.deepEqual(m.outputs, [{ name: 'out', shape: [5], dtype: 'float32', dim_names: [null] }]);
    assert.deepEqual(m.run({ data: [1, -1, 2, -2, 3] }).out.data, new Float32Array([1, 0, 2, 0, 3]));
    assertCode(() => m.setInputShapes({ nope: [1] }), 'invalid_argument', /not an input/);
    assertCode(() => m.setInputShapes({ data: [0] }), 'invalid_argument');
    const withShape = nf.loadNcnn(undeclared, null, { shapes: { data: [1, 3] } });
    assert.deepEqual(withShape.inputs[0].shape, [1, 3]);
    m.dispose();
    withShape.dispose();
  });

  test(`[${flavour}] errors: bad bytes, wrong inputs, use after dispose`, { skip: needs(distFixture) }, async () => {
    const { init, NnfoldError } = await loadApi();
    const nf = await init({ simd });
    assertCode(() => nf.loadNcnn('garbage', null), 'invalid_model', /7767517/);
    assertCode(() => nf.loadNcnn(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]), null), 'invalid_model');
    assertCode(() => nf.loadNcnn(convReluParam, convReluBin().subarray(0, 20)), 'invalid_model', /conv/);
    assertCode(() => nf.loadNcnn(convReluParam, new Uint8Array(1000)), 'invalid_model');
    assertCode(() => nf.loadNcnn(42, null), 'invalid_argument');
    assertCode(() => nf.loadNcnn(convReluParam, 'not bytes'), 'invalid_argument');
    assertCode(() => nf.loadNcnn(convReluParam, null, { seed: -1 }), 'invalid_argument');
    assertCode(() => nf.loadNcnn(convReluParam, null, null), 'invalid_argument', /options must be an object/);
    assertCode(() => nf.loadNcnn(convReluParam, null, { shapes: { data: [2, 'x'] } }), 'invalid_argument');
    assertCode(() => nf.loadNcnn(convReluParam, null, { shapes: { conv: [2, 2, 2] } }), 'invalid_argument', /not an input/);
    const m = nf.loadNcnn(convReluParam, convReluBin());
    assertCode(() => m.run({ data: new Float32Array(7) }), 'shape_mismatch', /needs 8/);
    assertCode(() => m.run({ data: { data: new Float32Array(12), shape: [3, 2, 2] } }), 'shape_mismatch', /conv/);
    assertCode(() => m.run({ data: { data: new Float32Array(8), shape: [2, 2, 3] } }), 'shape_mismatch');
    assertCode(() => m.run({ nope: new Float32Array(8) }), 'invalid_argument', /no input named 'nope'/);
    assertCode(() => m.run({}), 'invalid_argument', /not given/);
    assertCode(() => m.run(null), 'invalid_argument');
    assertCode(() => m.run({ data: new Float32Array(8) }, 'out'), 'invalid_argument', /options must be an object/);
    assertCode(() => m.toNcnn([]), 'invalid_argument');
    assertCode(() => m.run({ data: 'x' }), 'invalid_argument');
    assertCode(() => m.run({ data: new Float32Array(8) }, { outputs: ['nope'] }), 'invalid_argument', /no blob named/);
    assertCode(() => m.run({ data: { data: new Float32Array(8), shape: [2, 2, 2, 1, 1] } }), 'invalid_argument');
    // bad calls left nothing behind: a correct run still gives the right values
    const x = new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]);
    assert.deepEqual(Array.from(m.run({ data: x }).out.data), Array.from(convReluExpected(x)));
    // structure only: describes, does not run
    const s = nf.loadNcnn(smallNetParam, null, { structureOnly: true });
    assert.equal(s.info().weight_values, 762);
    assertCode(() => s.run(nf.randomInputs(s)), 'invalid_argument', /structure only/);
    s.dispose();
    // dispose: twice is fine, any later call fails clearly
    assert.equal(m.disposed, false);
    m.dispose();
    m.dispose();
    assert.equal(m.disposed, true);
    for (const call of [() => m.run({ data: x }), () => m.info(), () => m.inputs, () => m.toNcnn(), () => m.graph(),
      () => nf.randomInputs(m), () => m.profile(), () => m.optimize(), () => m.warnings]) {
      assertCode(call, 'invalid_argument', /disposed/);
    }
    assert.ok(new NnfoldError('internal', 'x') instanceof Error);
  });

  test(`[${flavour}] Symbol.dispose and heap stats`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    nf.loadNcnn(smallNetParam, null).dispose(); // first use sets up the layer registry (kept)
    const before = nf.heapStats();
    assert.ok(before.allocated > 0 && before.heapSize >= before.allocated);
    const m = nf.loadNcnn(smallNetParam, null);
    assert.ok(nf.heapStats().allocated > before.allocated + 762 * 4, 'the weights live in the heap');
    if (typeof Symbol.dispose === 'symbol') {
      m[Symbol.dispose]();
      assert.equal(m.disposed, true);
    } else {
      m.dispose();
    }
    assert.ok(nf.heapStats().allocated <= before.allocated + 1024);
  });

  // ONNX through the package: a tf2onnx-style NHWC input (Transpose absorbed) into Conv 1x1 +
  // Relu, plus the conv output as a second output. Values by hand from the weights.
  test(`[${flavour}] ONNX: the ONNX interface, run, randomInputs, optimize, toNcnn ioJson round trip`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const { makeModel, tensor } = await import('./onnx/harness.mjs');
    const w = [1, -1, 0.5, 0.25, 2, -0.5], b = [0.5, -1];
    const bytes = makeModel({
      inputs: [{ name: 'image', shape: [1, 2, 2, 3] }],
      outputs: [{ name: 'features', shape: [1, 2, 2, 2] }, { name: 'conv', shape: [1, 2, 2, 2] }],
      inits: [tensor('w', [2, 3, 1, 1], w), tensor('b', [2], b)],
      nodes: [
        { op: 'Transpose', inputs: ['image'], outputs: ['nchw'], attrs: { perm: [0, 3, 1, 2] } },
        { op: 'Conv', inputs: ['nchw', 'w', 'b'], outputs: ['conv'], attrs: { kernel_shape: [1, 1] } },
        { op: 'Relu', inputs: ['conv'], outputs: ['features'] },
      ],
    });
    const expectOut = (x, out) => {
      assert.deepEqual(out.features.shape, [1, 2, 2, 2]);
      assert.deepEqual(out.conv.shape, [1, 2, 2, 2]);
      for (let o = 0; o < 2; o++) {
        for (let p = 0; p < 4; p++) {
          let v = b[o];
          for (let i = 0; i < 3; i++) v += w[o * 3 + i] * x[p * 3 + i];
          assert.ok(Math.abs(out.conv.data[o * 4 + p] - v) <= 1e-5, `conv[${o}][${p}]`);
          assert.ok(Math.abs(out.features.data[o * 4 + p] - Math.max(v, 0)) <= 1e-5, `features[${o}][${p}]`);
        }
      }
    };
    const m = nf.loadOnnx(bytes);
    assert.equal(m.inputs.length, 1);
    assert.equal(m.inputs[0].name, 'image');
    assert.deepEqual(m.inputs[0].shape, [1, 2, 2, 3]);
    assert.equal(m.inputs[0].layout, 'NHWC');
    assert.equal(typeof m.inputs[0].blob, 'string');
    assert.deepEqual(m.outputs.map((o) => o.name), ['features', 'conv']);
    const x = new Float32Array(12).map((_, i) => ((i * 7) % 11) / 5 - 1);
    expectOut(x, m.run({ image: x }));
    expectOut(x, m.run({ image: { data: x, shape: [1, 2, 2, 3] } }));
    // the ncnn layout is not accepted for an imported input
    assertCode(() => m.run({ image: { data: x, shape: [3, 2, 2] } }), 'shape_mismatch', /\[1,2,2,3\]/);
    // random inputs in the ONNX shape, from the documented stream
    const r = nf.randomInputs(m, 4);
    assert.deepEqual(r.image.shape, [1, 2, 2, 3]);
    assert.deepEqual(Array.from(r.image.data), Array.from(randomUniform(4, 12)));
    expectOut(r.image.data, m.run(r));
    // the optimizer keeps `conv` (an ONNX output that Relu also reads)
    m.optimize();
    expectOut(x, m.run({ image: x }));
    const f = m.toNcnn();
    assert.equal(typeof f.ioJson, 'string');
    assert.equal(JSON.parse(f.ioJson).inputs[0].layout, 'NHWC');
    // the converted files with their .io.json: the same interface again; without: plain ncnn
    const back = nf.loadNcnn(f.paramBytes, f.bin, { ioJson: f.ioJson });
    assert.deepEqual(back.inputs[0].shape, [1, 2, 2, 3]);
    expectOut(x, back.run({ image: x }));
    assert.equal(back.toNcnn().ioJson, f.ioJson);
    const plain = nf.loadNcnn(f.paramBytes, f.bin);
    assert.equal(plain.inputs[0].blob, undefined);
    assert.equal(plain.toNcnn().ioJson, null);
    assertCode(() => nf.loadNcnn(f.paramBytes, f.bin, { ioJson: '{"format": 1' }), 'invalid_model');
    assertCode(() => nf.loadOnnx(bytes, { shapes: { nope: [1, 2, 2, 3] } }), 'invalid_argument', /nope/);
    for (const x of [m, back, plain]) x.dispose();
  });
}
