// Errors at the JavaScript boundary (docs/errors.md): thousands of failures of every kind
// leave the module healthy (exceptions are caught in C++ and returned as values; a 3.1.6 build
// without exception catching would corrupt its stack after a few thousand), and memory exhaustion
// is a resource_limit error, not an abort.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convReluBin, convReluExpected, convReluParam, loadApi, distFixture, needs } from './helpers.mjs';

const x = new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]);

for (const simd of [undefined, false]) {
  test(`[${simd === false ? 'base' : 'simd'}] 4,000 failures, then a correct run`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const m = nf.loadNcnn(convReluParam, convReluBin());
    const gone = nf.loadNcnn(convReluParam, null);
    gone.dispose();
    nf.loadNcnn(convReluParam, null).dispose();
    const heapBefore = nf.heapStats().allocated;
    const bin = convReluBin();
    const codes = {};
    const cases = [
      () => nf.loadNcnn('7767517\n1 1\nBogusLayer x 0 1 x\n', null), // unknown type: unsupported
      () => nf.loadNcnn(convReluParam, bin.subarray(0, 17)), // truncated .bin
      () => m.run({ data: { data: new Float32Array(12), shape: [3, 2, 2] } }), // C++ shape inference
      () => m.run({ nope: x }), // JS check
      () => m.run({}, { outputs: ['nope'] }), // C++ Net::run
      () => m.setInputShapes({ conv: [1] }), // C++ facade
      () => gone.run({ data: x }), // use after dispose
      () => m.optimize(), // unsupported in this build (or a real optimization when it lands)
    ];
    for (let i = 0; i < 4000; i++) {
      try {
        cases[i % cases.length]();
        if (i % cases.length !== 7) assert.fail(`case ${i % cases.length} did not throw`);
      } catch (e) {
        if (e.code === undefined) throw e;
        codes[e.code] = (codes[e.code] ?? 0) + 1;
      }
    }
    assert.ok(codes.unsupported >= 500 && codes.invalid_model >= 500 && codes.shape_mismatch >= 500 && codes.invalid_argument >= 2000, JSON.stringify(codes));
    assert.deepEqual(Array.from(m.run({ data: x }).out.data), Array.from(convReluExpected(x)));
    // failed loads freed what they had allocated
    const grown = nf.heapStats().allocated - heapBefore;
    assert.ok(grown < 64 * 1024, `heap grew by ${grown} bytes over 4,000 failures`);
    m.dispose();
  });
}

test('tensor limits: a huge input shape is resource_limit before anything is allocated', { skip: needs(distFixture) }, async () => {
  const { init } = await loadApi();
  const nf = await init({ simd: false });
  const m = nf.loadNcnn('7767517\n2 2\nInput data 0 1 data\nReLU relu 1 1 data out\n', null);
  m.setInputShapes({ data: [3, 30000, 30000] }); // 10.8 GB
  assert.throws(() => nf.randomInputs(m), (e) => e.code === 'resource_limit' && /single-tensor limit/.test(e.message));
  m.setInputShapes({ data: [4] });
  assert.deepEqual(Array.from(m.run({ data: [1, -2, 3, -4] }).out.data), [1, 0, 3, 0]);
  m.dispose();
});

test('a full WebAssembly heap is resource_limit, and the module recovers', { skip: needs(distFixture), timeout: 180000 }, async () => {
  const { init } = await loadApi();
  const nf = await init({ simd: false });
  // 1 GiB of fp32 weights per model: the 4 GB heap cannot hold the third copy
  const n = 16384 * 16384;
  const param = `7767517\n2 2\nInput data 0 1 data 0=16384\nInnerProduct fc 1 1 data fc 0=16384 1=0 2=${n}\n`;
  const bin = new Uint8Array(4 + n * 4);
  const models = [];
  let error = null;
  try {
    for (let i = 0; i < 5; i++) models.push(nf.loadNcnn(param, bin));
  } catch (e) {
    error = e;
  }
  assert.ok(error, 'loading 5 GiB of weights must fail');
  assert.equal(error.code, 'resource_limit', error.message);
  assert.match(error.message, /4 GB/);
  assert.ok(models.length >= 1 && models.length <= 3, `${models.length} models loaded`);
  for (const m of models) m.dispose();
  assert.ok(nf.heapStats().allocated < 16 * 1024 * 1024, 'the weights were freed');
  const m = nf.loadNcnn(convReluParam, convReluBin());
  assert.deepEqual(Array.from(m.run({ data: x }).out.data), Array.from(convReluExpected(x)));
  m.dispose();
});
