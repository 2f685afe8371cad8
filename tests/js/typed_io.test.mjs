// Integer and boolean ONNX inputs through the JavaScript API (docs/shapes-and-files.md): run()
// takes Int32Array / BigInt64Array / integer arrays for int32 and int64 inputs and Uint8Array /
// boolean arrays for bool inputs, held as float32 inside the graph; `inputs[i]` carry `dtype` and
// `dim_names`; returned tensors carry `dtype`. onnxruntime-node is the oracle, on both wasm
// flavours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { distFixture, expectedBuild, loadApi, needs, root } from './helpers.mjs';
import { DataType, makeModel, relErr, tensor } from './onnx/harness.mjs';

// docs/numbers.md: nnfold against onnxruntime, relative to the largest reference value
const TOL = 1e-4;

function assertCode(fn, code, re) {
  assert.throws(fn, (e) => {
    assert.equal(e.name, 'NnfoldError');
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    assert.match(e.message, re);
    return true;
  });
}

// Token ids in [0, 99] (the text encoder's vocabulary), fixed so a failure reproduces.
const ids = Array.from({ length: 16 }, (_, k) => (k * 37 + 11) % 100);

// ids (int32, symbolic batch) -> rows of a table, times the bool mask `keep` (symbolic batch):
// y[0, t, :] = table[ids[t]] * keep[t].
function maskModel() {
  const table = Array.from({ length: 30 }, (_, k) => ((k * 13) % 17) / 4 - 2);
  return makeModel({
    inputs: [{ name: 'ids', shape: ['batch', 5], type: DataType.INT32 }, { name: 'keep', shape: ['batch', 5], type: DataType.BOOL }],
    outputs: [{ name: 'y' }],
    inits: [tensor('table', [10, 3], table), tensor('ax', [1], [2], DataType.INT64)],
    nodes: [
      { op: 'Gather', inputs: ['table', 'ids'], outputs: ['emb'], attrs: { axis: 0 } },
      { op: 'Cast', inputs: ['keep'], outputs: ['kf'], attrs: { to: 1 } },
      { op: 'Unsqueeze', inputs: ['kf', 'ax'], outputs: ['k3'] },
      { op: 'Mul', inputs: ['emb', 'k3'], outputs: ['y'] },
    ],
  });
}

for (const simd of [undefined, false]) {
  const flavour = expectedBuild(simd);

  test(`[${flavour}] int64 token ids: BigInt64Array, Int32Array and number[] match onnxruntime`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    assert.equal(nf.build, flavour);
    const bytes = fs.readFileSync(path.join(root, 'tests/data/onnx/text_encoder.onnx'));
    const sess = await ort.InferenceSession.create(bytes);
    const ref = await sess.run({ ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, 16]) });
    const want = Float32Array.from(ref.logits.data);

    const m = nf.loadOnnx(bytes);
    assert.equal(m.inputs.length, 1);
    assert.equal(m.inputs[0].name, 'ids');
    assert.equal(m.inputs[0].dtype, 'int64');
    assert.deepEqual(m.inputs[0].shape, [1, 16]);
    assert.deepEqual(m.inputs[0].dim_names, [null, null]);  // fixed dims name nothing
    assert.equal(m.outputs[0].dtype, 'float32');
    assert.equal(m.outputs[0].dim_names.length, m.outputs[0].shape.length);

    for (const [what, input] of [
      ['BigInt64Array', BigInt64Array.from(ids, BigInt)],
      ['Int32Array', Int32Array.from(ids)],
      ['number[]', ids.slice()],
      ['{data, shape}', { data: Int32Array.from(ids), shape: [1, 16] }],
    ]) {
      const out = m.run({ ids: input });
      assert.equal(out.logits.dtype, 'float32', what);
      assert.ok(out.logits.data instanceof Float32Array, what);
      assert.deepEqual(out.logits.shape, Array.from(ref.logits.dims, Number), what);
      const e = relErr(want, out.logits.data);
      assert.ok(e <= TOL, `${what}: relative error ${e} > ${TOL}`);
    }

    // random inputs come back as integers in [0, 7] in an Int32Array, and run as given
    const r = nf.randomInputs(m, 9);
    assert.equal(r.ids.dtype, 'int64');
    assert.ok(r.ids.data instanceof Int32Array);
    assert.ok(r.ids.data.every((v) => v >= 0 && v <= 7));
    const refR = await sess.run({ ids: new ort.Tensor('int64', BigInt64Array.from(r.ids.data, BigInt), [1, 16]) });
    assert.ok(relErr(Float32Array.from(refR.logits.data), m.run(r).logits.data) <= TOL);

    // 2^24 is the last integer float32 holds exactly (with every smaller one)
    const big = BigInt64Array.from(ids, BigInt);
    big[3] = 16777217n;
    assertCode(() => m.run({ ids: big }), 'invalid_argument', /input 'ids': value 16777217 at 3 is beyond \+-2\^24/);
    const neg = Int32Array.from(ids);
    neg[5] = -16777217;
    assertCode(() => m.run({ ids: neg }), 'invalid_argument', /input 'ids': value -16777217 at 5 is beyond \+-2\^24/);
    const huge = ids.slice();
    huge[0] = 2 ** 40;
    assertCode(() => m.run({ ids: huge }), 'invalid_argument', /input 'ids': value 1099511627776 at 0 is beyond/);
    const frac = ids.slice();
    frac[2] = 1.5;
    assertCode(() => m.run({ ids: frac }), 'invalid_argument', /input 'ids' \(int64\): value 1.5 at 2 is not an integer/);
    // the wrong kind of array for an int64 input names the kinds it takes
    for (const wrong of [Float32Array.from(ids), Uint8Array.from(ids), { data: Float64Array.from(ids), shape: [1, 16] }]) {
      assertCode(() => m.run({ ids: wrong }), 'invalid_argument',
        /input 'ids'.*an Int32Array, a BigInt64Array or an array of integers/);
    }
    // the model still runs after the refusals
    assert.ok(relErr(want, m.run({ ids: Int32Array.from(ids) }).logits.data) <= TOL);
    m.dispose();
  });

  test(`[${flavour}] int32 ids and a bool mask: dtype, dim_names, Uint8Array and boolean[] match onnxruntime`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const bytes = maskModel();
    const tokens = [3, 0, 9, 4, 7], keep = [1, 0, 1, 1, 0];
    const sess = await ort.InferenceSession.create(bytes);
    const ref = await sess.run({
      ids: new ort.Tensor('int32', Int32Array.from(tokens), [1, 5]),
      keep: new ort.Tensor('bool', Uint8Array.from(keep), [1, 5]),
    });
    const want = Float32Array.from(ref.y.data);

    const m = nf.loadOnnx(bytes, { shapes: { ids: [1, 5], keep: [1, 5] } });
    assert.deepEqual(m.inputs.map((io) => [io.name, io.dtype, io.shape, io.dim_names]), [
      ['ids', 'int32', [1, 5], ['batch', null]],
      ['keep', 'bool', [1, 5], ['batch', null]],
    ]);
    assert.deepEqual(m.outputs.map((io) => io.dtype), ['float32']);

    for (const [what, input] of [
      ['Int32Array + Uint8Array', { ids: Int32Array.from(tokens), keep: Uint8Array.from(keep) }],
      ['BigInt64Array + boolean[]', { ids: BigInt64Array.from(tokens, BigInt), keep: keep.map((v) => v === 1) }],
      ['number[] + 0/1 number[]', { ids: tokens.slice(), keep: keep.slice() }],
      // a nonzero byte is true, as in ONNX
      ['Uint8Array with 255 for true', { ids: Int32Array.from(tokens), keep: Uint8Array.from(keep, (v) => v * 255) }],
    ]) {
      const out = m.run(input);
      assert.equal(out.y.dtype, 'float32', what);
      assert.deepEqual(out.y.shape, [1, 5, 3], what);
      const e = relErr(want, out.y.data);
      assert.ok(e <= TOL, `${what}: relative error ${e} > ${TOL}`);
    }
    // masked rows are exactly zero (-0 where the table row is negative: x * 0)
    const y = m.run({ ids: Int32Array.from(tokens), keep: Uint8Array.from(keep) }).y.data;
    assert.ok(y.subarray(3, 6).every((v) => v === 0) && y.subarray(12, 15).every((v) => v === 0), String(y));
    assert.ok(y.subarray(0, 3).some((v) => v !== 0), String(y));

    const r = nf.randomInputs(m, 2);
    assert.equal(r.keep.dtype, 'bool');
    assert.ok(r.keep.data instanceof Uint8Array);
    assert.ok(r.keep.data.every((v) => v === 0 || v === 1));
    assert.ok(r.ids.data instanceof Int32Array);
    assert.equal(m.run(r).y.data.length, 15);

    const ids32 = Int32Array.from(tokens);
    for (const wrong of [Float32Array.from(keep), Int32Array.from(keep), BigInt64Array.from(keep, BigInt)]) {
      assertCode(() => m.run({ ids: ids32, keep: wrong }), 'invalid_argument',
        /input 'keep' \(bool\) takes a Uint8Array or an array of booleans or 0\/1 numbers; got [A-Za-z0-9]+Array/);
    }
    assertCode(() => m.run({ ids: ids32, keep: [1, 0, 2, 1, 0] }), 'invalid_argument',
      /input 'keep' \(bool\): value 2 at 2 is not a boolean, 0 or 1/);
    assertCode(() => m.run({ ids: Int32Array.from([3, 0, 9, 4, 1 << 25]), keep: Uint8Array.from(keep) }), 'invalid_argument',
      /input 'ids': value 33554432 at 4 is beyond \+-2\^24/);
    m.dispose();
  });

  test(`[${flavour}] float inputs take Float32Array and number[] only; outputs carry dtype float32`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const m = nf.loadOnnx(makeModel({
      inputs: [{ name: 'x', shape: [1, 4] }],
      outputs: [{ name: 'y' }],
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
    }));
    assert.equal(m.inputs[0].dtype, 'float32');
    const x = [-1, 2, -3, 4];
    for (const input of [Float32Array.from(x), x, { data: Float32Array.from(x), shape: [1, 4] }]) {
      const out = m.run({ x: input });
      assert.deepEqual(out.y, { data: Float32Array.from([0, 2, 0, 4]), shape: [1, 4], dtype: 'float32' });
    }
    for (const wrong of [Int32Array.from(x), BigInt64Array.from(x, BigInt), Uint8Array.from([1, 2, 3, 4])]) {
      assertCode(() => m.run({ x: wrong }), 'invalid_argument', /input 'x' \(float32\) takes a Float32Array or an array of numbers; got /);
    }
    assert.equal(nf.randomInputs(m, 1).x.dtype, 'float32');
    assert.ok(nf.randomInputs(m, 1).x.data instanceof Float32Array);
    m.dispose();
  });
}
