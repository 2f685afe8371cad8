// Index-valued and boolean ONNX outputs through the JavaScript API (docs/shapes-and-files.md):
// TopK's and ArgMax's int64 indices come back as an Int32Array with dtype 'int64', a mask as a
// Uint8Array with dtype 'bool', NonMaxSuppression's data-dependent [K, 3] with the shape this run
// produced (an empty one when nothing is selected); all equal to onnxruntime-node's, on both
// wasm flavours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ort from 'onnxruntime-node';
import { distFixture, loadApi, needs } from './helpers.mjs';
import { DataType, Rng, makeModel, relErr, tensor } from './onnx/harness.mjs';

const I64 = DataType.INT64;

// x [1, 4, 6] -> top-3 values and indices along the last axis, ArgMax over axis 1, x > 0
function headModel() {
  return makeModel({
    inputs: [{ name: 'x', shape: [1, 4, 6] }],
    outputs: [{ name: 'v' }, { name: 'i', type: I64 }, { name: 'a', type: I64 }, { name: 'pos', type: DataType.BOOL }],
    inits: [tensor('k', [1], [3], I64), tensor('zero', [], [0])],
    nodes: [
      { op: 'TopK', inputs: ['x', 'k'], outputs: ['v', 'i'] },
      { op: 'ArgMax', inputs: ['x'], outputs: ['a'], attrs: { axis: 1, keepdims: 0 } },
      { op: 'Greater', inputs: ['x', 'zero'], outputs: ['pos'] },
    ],
  });
}

function nmsModel(limit) {
  return makeModel({
    opset: 11,
    inputs: [{ name: 'b', shape: [1, 8, 4] }, { name: 's', shape: [1, 2, 8] }],
    outputs: [{ name: 'sel', type: I64 }],
    inits: [tensor('m', [1], [limit], I64), tensor('iou', [1], [0.3])],
    nodes: [
      { op: 'Abs', inputs: ['b'], outputs: ['ba'] },
      { op: 'NonMaxSuppression', inputs: ['ba', 's', 'm', 'iou'], outputs: ['sel'], attrs: { center_point_box: 1 } },
    ],
  });
}

for (const simd of [undefined, false]) {
  const flavour = simd === false ? 'base' : 'simd';

  test(`[${flavour}] TopK/ArgMax indices are Int32Array (dtype int64), a mask Uint8Array (bool), equal to onnxruntime`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const bytes = headModel();
    const x = new Rng(3).fill(24);
    const sess = await ort.InferenceSession.create(bytes);
    const ref = await sess.run({ x: new ort.Tensor('float32', x, [1, 4, 6]) });
    const m = nf.loadOnnx(bytes);
    assert.deepEqual(m.outputs.map((o) => [o.name, o.dtype]), [['v', 'float32'], ['i', 'int64'], ['a', 'int64'], ['pos', 'bool']]);
    const out = m.run({ x });
    assert.ok(out.v.data instanceof Float32Array && out.v.dtype === 'float32');
    assert.ok(relErr(Float32Array.from(ref.v.data), out.v.data) <= 1e-6);
    for (const n of ['i', 'a']) {
      assert.ok(out[n].data instanceof Int32Array, `${n}: ${out[n].data.constructor.name}`);
      assert.equal(out[n].dtype, 'int64');
      assert.deepEqual(out[n].shape, ref[n].dims.map(Number), n);
      assert.deepEqual(Array.from(out[n].data), Array.from(ref[n].data, Number), n);
    }
    assert.ok(out.pos.data instanceof Uint8Array && out.pos.dtype === 'bool');
    assert.deepEqual(Array.from(out.pos.data), Array.from(ref.pos.data, Number));
    m.dispose();
  });

  test(`[${flavour}] NonMaxSuppression: [K, 3] indices as this run selected them, empty for a negative limit`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const rng = new Rng(4);
    const b = rng.fill(32), s = rng.fill(16, 0, 1);
    for (const limit of [3, -1]) {
      const bytes = nmsModel(limit);
      const sess = await ort.InferenceSession.create(bytes);
      const ref = await sess.run({ b: new ort.Tensor('float32', b, [1, 8, 4]), s: new ort.Tensor('float32', s, [1, 2, 8]) });
      const m = nf.loadOnnx(bytes);
      assert.deepEqual(m.outputs[0].shape, [-1, 3]);
      const out = m.run({ b, s });
      assert.ok(out.sel.data instanceof Int32Array);
      assert.equal(out.sel.dtype, 'int64');
      const k = Number(ref.sel.dims[0]);
      assert.ok(limit < 0 ? k === 0 : k >= 2, `onnxruntime selected ${k}`);
      assert.deepEqual(out.sel.shape, [k, 3]);
      assert.deepEqual(Array.from(out.sel.data), Array.from(ref.sel.data, Number));
      m.dispose();
    }
  });
}
