// TopK, ArgMax/ArgMin, Einsum, GatherND and Mod against onnxruntime-node: each model built here,
// run by onnxruntime and by nnfold (every selected build on the .onnx, and the native build on the
// converted .param/.bin/.io.json) on the same seeded inputs. Float outputs within the budgets of
// docs/numbers.md; index outputs (int64 in ONNX) must be equal, be written as .i32 and say
// dtype int64. Ties are made on purpose (Floor of scaled inputs) so the tie rules are compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DataType, Rng, makeModel, nnfold, numel, relErr, runNnfold, runOrt, selectedRunners, tensor, tmpdir } from './harness.mjs';

const budget = { native: 1e-4, base: 1e-4, simd: 1e-4 + 1e-4 + 1e-3 };
const F = DataType.FLOAT, I64 = DataType.INT64;
const i64 = (name, values, dims = [values.length]) => tensor(name, dims, values, I64);
const f32 = (name, values, dims = [values.length]) => tensor(name, dims, values, F);

// x scaled by 2 and floored: values in {-2, -1, 0, 1}, full of ties
const ties = (x, out) => [
  { op: 'Mul', inputs: [x, 'two'], outputs: [out + '_m'] },
  { op: 'Floor', inputs: [out + '_m'], outputs: [out] },
];
const two = f32('two', [2], []);

const cases = {
  'TopK largest, last axis, batch dropped': {
    inputs: [{ name: 'x', shape: [1, 4, 10] }], outputs: [{ name: 'v' }, { name: 'i' }], inits: [i64('k', [3])],
    nodes: [{ op: 'TopK', inputs: ['x', 'k'], outputs: ['v', 'i'] }], ints: ['i'],
  },
  'TopK smallest on axis 1 of [2, 5, 3]': {
    inputs: [{ name: 'x', shape: [2, 5, 3] }], outputs: [{ name: 'v' }, { name: 'i' }], inits: [i64('k', [2])],
    nodes: [{ op: 'TopK', inputs: ['x', 'k'], outputs: ['v', 'i'], attrs: { axis: 1, largest: 0 } }], ints: ['i'],
  },
  'TopK with ties keeps the smaller index first': {
    inputs: [{ name: 'x', shape: [1, 3, 12] }], outputs: [{ name: 'v' }, { name: 'i' }], inits: [i64('k', [5]), two],
    nodes: [...ties('x', 't'), { op: 'TopK', inputs: ['t', 'k'], outputs: ['v', 'i'], attrs: { axis: -1 } }], ints: ['i'],
  },
  'TopK opset 9 (k attribute), indices only used': {
    opset: 9, inputs: [{ name: 'x', shape: [1, 6, 4] }], outputs: [{ name: 'i' }],
    nodes: [{ op: 'TopK', inputs: ['x'], outputs: ['v', 'i'], attrs: { k: 2, axis: 1 } }], ints: ['i'],
  },
  'TopK k = 5 of a classifier head [1, 10] (top-5 indices)': {
    inputs: [{ name: 'x', shape: [1, 10] }], outputs: [{ name: 'v' }, { name: 'i' }], inits: [i64('k', [5])],
    nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['p'], attrs: { axis: -1 } }, { op: 'TopK', inputs: ['p', 'k'], outputs: ['v', 'i'] }],
    ints: ['i'],
  },
  'ArgMax keepdims on the channel axis': {
    inputs: [{ name: 'x', shape: [1, 3, 4, 5] }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'ArgMax', inputs: ['x'], outputs: ['y'], attrs: { axis: 1 } }], ints: ['y'],
  },
  'ArgMax keepdims 0 last axis, with ties': {
    inputs: [{ name: 'x', shape: [1, 4, 9] }], outputs: [{ name: 'y' }], inits: [two],
    nodes: [...ties('x', 't'), { op: 'ArgMax', inputs: ['t'], outputs: ['y'], attrs: { axis: -1, keepdims: 0 } }], ints: ['y'],
  },
  'ArgMin select_last_index with ties (opset 12)': {
    opset: 12, inputs: [{ name: 'x', shape: [2, 7, 3] }], outputs: [{ name: 'y' }], inits: [two],
    nodes: [...ties('x', 't'), { op: 'ArgMin', inputs: ['t'], outputs: ['y'], attrs: { axis: 1, select_last_index: 1 } }], ints: ['y'],
  },
  'ArgMax select_last_index on a vector: ncnn ArgMax': {
    opset: 12, inputs: [{ name: 'x', shape: [16] }], outputs: [{ name: 'y' }], inits: [two], expectLayer: 'ArgMax',
    nodes: [...ties('x', 't'), { op: 'ArgMax', inputs: ['t'], outputs: ['y'], attrs: { select_last_index: 1 } }], ints: ['y'],
  },
  'ArgMax of a batch axis of 1 is zeros': {
    inputs: [{ name: 'x', shape: [1, 5] }], outputs: [{ name: 'y' }, { name: 'z' }],
    nodes: [{ op: 'ArgMax', inputs: ['x'], outputs: ['y'], attrs: { axis: 0 } }, { op: 'Relu', inputs: ['x'], outputs: ['z'] }], ints: ['y'],
  },
  'Einsum batched matmul bij,bjk->bik': {
    inputs: [{ name: 'a', shape: [1, 3, 4] }, { name: 'b', shape: [1, 4, 5] }], outputs: [{ name: 'y' }], expectLayer: 'Einsum',
    nodes: [{ op: 'Einsum', inputs: ['a', 'b'], outputs: ['y'], attrs: { equation: 'bij,bjk->bik' } }],
  },
  'Einsum attention scores bhqd,bhkd->bhqk': {
    inputs: [{ name: 'q', shape: [1, 2, 3, 4] }, { name: 'k', shape: [1, 2, 5, 4] }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'Einsum', inputs: ['q', 'k'], outputs: ['y'], attrs: { equation: 'bhqd,bhkd->bhqk' } }],
  },
  'Einsum implicit output ij,jk': {
    inputs: [{ name: 'a', shape: [3, 4] }, { name: 'b', shape: [4, 2] }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'Einsum', inputs: ['a', 'b'], outputs: ['y'], attrs: { equation: 'ij,jk' } }],
  },
  'Einsum ellipsis ...ij,...jk->...ik': {
    inputs: [{ name: 'a', shape: [2, 3, 4] }, { name: 'b', shape: [2, 4, 5] }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'Einsum', inputs: ['a', 'b'], outputs: ['y'], attrs: { equation: '...ij,...jk->...ik' } }],
  },
  'Einsum transpose, diagonal, trace and dot': {
    inputs: [{ name: 'a', shape: [4, 4] }, { name: 'v', shape: [6] }], outputs: [{ name: 't' }, { name: 'd' }, { name: 'tr' }, { name: 'dot' }],
    nodes: [
      { op: 'Einsum', inputs: ['a'], outputs: ['t'], attrs: { equation: 'ij->ji' } },
      { op: 'Einsum', inputs: ['a'], outputs: ['d'], attrs: { equation: 'ii->i' } },
      { op: 'Einsum', inputs: ['a'], outputs: ['tr'], attrs: { equation: 'ii' } },
      { op: 'Einsum', inputs: ['v', 'v'], outputs: ['dot'], attrs: { equation: 'i,i' } },
    ],
  },
  'Einsum bilinear bn,anm,bm->ba (three inputs)': {
    inputs: [{ name: 'x', shape: [2, 3] }, { name: 'y', shape: [2, 5] }], outputs: [{ name: 'z' }],
    inits: [tensor('W', [4, 3, 5], new Rng(9).fill(60))],
    nodes: [{ op: 'Einsum', inputs: ['x', 'W', 'y'], outputs: ['z'], attrs: { equation: 'bn,anm,bm->ba' } }],
  },
  'GatherND constant index pairs': {
    inputs: [{ name: 'x', shape: [2, 3, 4] }], outputs: [{ name: 'y' }], inits: [i64('idx', [0, 1, 1, -1, 1, 0], [3, 2])],
    nodes: [{ op: 'GatherND', inputs: ['x', 'idx'], outputs: ['y'] }],
  },
  'GatherND batch_dims 1 (opset 12)': {
    opset: 12, inputs: [{ name: 'x', shape: [2, 3, 4] }], outputs: [{ name: 'y' }], inits: [i64('idx', [2, 0, 1, 1], [2, 2, 1])],
    nodes: [{ op: 'GatherND', inputs: ['x', 'idx'], outputs: ['y'], attrs: { batch_dims: 1 } }],
  },
  'GatherND indices computed at run time': {
    inputs: [{ name: 'x', shape: [3, 4, 2] }, { name: 'idx', shape: [5, 2], type: I64, range: [-3, 2] }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'GatherND', inputs: ['x', 'idx'], outputs: ['y'] }],
  },
  'Mod fmod 1 on floats by a constant and by a tensor': {
    inputs: [{ name: 'a', shape: [1, 3, 8] }, { name: 'b', shape: [8] }], outputs: [{ name: 'y' }, { name: 'z' }],
    inits: [f32('d', [0.3], [])],
    nodes: [
      { op: 'Mod', inputs: ['a', 'd'], outputs: ['y'], attrs: { fmod: 1 } },
      { op: 'Add', inputs: ['b', 'two'], outputs: ['b2'] },
      { op: 'Mod', inputs: ['a', 'b2'], outputs: ['z'], attrs: { fmod: 1 } },
    ],
    extraInits: [two],
  },
  'Mod fmod 0 on integers (sign of the divisor)': {
    inputs: [{ name: 'a', shape: [2, 6], type: I64, range: [-9, 9] }], outputs: [{ name: 'y' }, { name: 'z' }],
    inits: [i64('d', [4, -3, 5, -2, 7, 3], [6])],
    nodes: [
      { op: 'Mod', inputs: ['a', 'd'], outputs: ['y'] },
      { op: 'Mod', inputs: ['d', 'a'], outputs: ['z0'] },
      { op: 'Cast', inputs: ['z0'], outputs: ['z'], attrs: { to: 1 } },
    ],
    ints: ['y'], nonzero: true,
  },
  // YOLO-style: centre boxes made positive in the graph, sigmoid class scores, constant limits
  // rows: the selections onnxruntime makes must lie in this range (so the test compares
  // something, and the limit or the suppression acted)
  'NonMaxSuppression YOLO form (centre boxes, score threshold)': nms({ center: 1, limits: [i64('m', [5]), f32('iou', [0.45]), f32('st', [0.3])], rows: [15, 15] }),
  'NonMaxSuppression corner boxes, no score threshold, limit beyond int32': nms({ center: 0, limits: [i64('m', [1e12]), f32('iou', [0.3])], rows: [3, 71] }),
  'NonMaxSuppression negative limit selects nothing': nms({ center: 1, limits: [i64('m', [-2]), f32('iou', [0.5])], rows: [0, 0] }),
};

function nms({ center, limits, rows }) {
  return {
    rows,
    opset: 11,
    inputs: [{ name: 'x', shape: [1, 24, 4] }, { name: 's', shape: [1, 3, 24] }], outputs: [{ name: 'sel' }, { name: 'p' }],
    inits: [f32('bs', [1, 1, 0.5, 0.5]), f32('bo', [0, 0, 0.05, 0.05]), f32('three', [3], []), ...limits],
    nodes: [
      { op: 'Abs', inputs: ['x'], outputs: ['xa'] }, { op: 'Mul', inputs: ['xa', 'bs'], outputs: ['xm'] },
      { op: 'Add', inputs: ['xm', 'bo'], outputs: ['boxes'] },
      { op: 'Mul', inputs: ['s', 'three'], outputs: ['s3'] }, { op: 'Sigmoid', inputs: ['s3'], outputs: ['p'] },
      { op: 'NonMaxSuppression', inputs: ['boxes', 'p', ...limits.map((t) => t.name)], outputs: ['sel'], attrs: { center_point_box: center } },
    ],
    ints: ['sel'],
  };
}

for (const [name, spec0] of Object.entries(cases)) {
  test(`ONNX ${name}`, async () => {
    const spec = { opset: 13, ...spec0, inits: [...(spec0.inits ?? []), ...(spec0.extraInits ?? [])] };
    // index outputs are declared int64, as exporters write them
    spec.outputs = spec.outputs.map((o) => ((spec.ints ?? []).includes(o.name) ? { ...o, type: I64 } : o));
    const bytes = makeModel(spec);
    const dir = tmpdir();
    const onnxPath = path.join(dir, 'model.onnx');
    fs.writeFileSync(onnxPath, bytes);
    const rng = new Rng(7);
    const feeds = {};
    for (const inp of spec.inputs) {
      const n = numel(inp.shape);
      if (inp.type === I64) {
        const [lo, hi] = inp.range;
        const v = Array.from({ length: n }, () => {
          let x = lo + (rng.nextU32() % (hi - lo + 1));
          if (spec.nonzero && x === 0) x = 1;  // divisors
          return x;
        });
        feeds[inp.name] = { data: Float32Array.from(v), shape: inp.shape, type: 'int64' };
      } else {
        feeds[inp.name] = { data: rng.fill(n), shape: inp.shape };
      }
    }
    const ref = await runOrt(bytes, feeds);
    if (spec.rows) {
      const k = ref.sel.shape[0];
      assert.ok(k >= spec.rows[0] && k <= spec.rows[1], `onnxruntime selected ${k} boxes, outside ${spec.rows}`);
    }
    const param = path.join(dir, 'model.param'), bin = path.join(dir, 'model.bin');
    nnfold('native', ['convert', onnxPath, param, bin]);
    if (spec.expectLayer) assert.match(fs.readFileSync(param, 'utf8'), new RegExp(`^${spec.expectLayer}\\s`, 'm'));
    const io = JSON.parse(fs.readFileSync(path.join(dir, 'model.io.json'), 'utf8'));
    for (const o of io.outputs) assert.equal(o.dtype, (spec.ints ?? []).includes(o.name) ? 'int64' : 'float32', `${o.name} dtype`);
    const variants = selectedRunners().map((r) => [r, onnxPath]);
    variants.push(['native', [param, bin]]);
    for (const [which, model] of variants) {
      const { out } = runNnfold(which, model, feeds, [], path.join(dir, which + (Array.isArray(model) ? '-param' : '')));
      const what = `${which} ${Array.isArray(model) ? '.param' : '.onnx'}`;
      for (const [oname, r] of Object.entries(ref)) {
        assert.ok(out[oname], `${what}: output ${oname} missing`);
        assert.deepEqual(out[oname].shape, r.shape, `${what}: ${oname} shape`);
        if ((spec.ints ?? []).includes(oname)) {
          assert.equal(out[oname].dtype, 'int64', `${what}: ${oname} dtype`);
          assert.deepEqual(Array.from(out[oname].data), Array.from(r.data), `${what}: ${oname} indices`);
        } else {
          const e = relErr(r.data, out[oname].data);
          assert.ok(e <= budget[which], `${what} ${oname}: err ${e} > ${budget[which]}`);
        }
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
