// ONNX cases nnfold cannot express exactly are refused with a clear message (exit code 1, the
// node named), never imported silently wrong; malformed files too. Native and wasm CLIs alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DataType, makeModel, nnfold, selectedRunners, tensor, tmpdir } from './harness.mjs';

const f32 = (name, values, dims = [values.length]) => tensor(name, dims, values, DataType.FLOAT);
const i64 = (name, values, dims = [values.length]) => tensor(name, dims, values, DataType.INT64);
const X = [1, 2, 4, 4];

const cases = {
  'unsupported operators listed together': {
    model: { opset: 13, inputs: [{ name: 'x', shape: [1, 6] }], outputs: [{ name: 'y' }], inits: [i64('k', [2])],
      nodes: [{ op: 'Det', inputs: ['x', 'k'], outputs: ['v', 'i'], name: 'det' },
        { op: 'MaxUnpool', inputs: ['v'], outputs: ['e'], name: 'unpool' },
        { op: 'Add', inputs: ['e', 'x'], outputs: ['y'] }] },
    message: /unsupported ONNX operators: Det \('det'\); MaxUnpool \('unpool'\)/,
  },
  'Upsample linear (asymmetric sampling ncnn lacks)': {
    model: { opset: 9, inputs: [{ name: 'x', shape: X }], outputs: [{ name: 'y' }], inits: [f32('s', [1, 1, 2, 2])],
      nodes: [{ op: 'Upsample', inputs: ['x', 's'], outputs: ['y'], attrs: { mode: 'linear' }, name: 'up' }] },
    message: /node 'up' \(Upsample\): linear resize with coordinate_transformation_mode 'asymmetric'/,
  },
  'Slice with step 2': {
    model: { opset: 13, inputs: [{ name: 'x', shape: X }], outputs: [{ name: 'y' }],
      inits: [i64('st', [0]), i64('en', [4]), i64('ax', [3]), i64('sp', [2])],
      nodes: [{ op: 'Slice', inputs: ['x', 'st', 'en', 'ax', 'sp'], outputs: ['y'], name: 'sl' }] },
    message: /node 'sl' \(Slice\): slice step 2/,
  },
  'Resize nearest that ncnn samples differently': {
    model: { opset: 13, inputs: [{ name: 'x', shape: [1, 1, 5, 5] }], outputs: [{ name: 'y' }],
      inits: [f32('roi', [], [0]), f32('sc', [], [0]), i64('sz', [1, 1, 3, 3])],
      nodes: [{ op: 'Resize', inputs: ['x', 'roi', 'sc', 'sz'], outputs: ['y'], attrs: { mode: 'nearest', coordinate_transformation_mode: 'half_pixel', nearest_mode: 'round_prefer_ceil' }, name: 'rs' }] },
    message: /node 'rs' \(Resize\): nearest resize .* samples differently from ncnn's Interp/,
  },
  'runtime Reshape target': {
    model: { opset: 13, inputs: [{ name: 'x', shape: X }, { name: 's', shape: [2] }], outputs: [{ name: 'y' }],
      nodes: [{ op: 'Reshape', inputs: ['x', 's'], outputs: ['y'], name: 'rsh' }] },
    message: /node 'rsh' \(Reshape\): shape \(input 1, 's'\) must be a constant/,
  },
};

const runners = selectedRunners();
for (const [name, c] of Object.entries(cases)) {
  test(`ONNX refused: ${name}`, () => {
    const dir = tmpdir();
    const p = path.join(dir, 'model.onnx');
    fs.writeFileSync(p, makeModel(c.model));
    for (const which of runners) {
      const r = nnfold(which, ['run', p], { allowFail: true });
      assert.equal(r.status, 1, `${which}: exit code ${r.status}, stderr ${r.stderr}`);
      assert.match(r.stderr, c.message, which);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

test('malformed .onnx files give exit code 1 and a message', () => {
  const dir = tmpdir();
  const good = makeModel({ opset: 13, inputs: [{ name: 'x', shape: X }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] });
  const files = {
    'random.onnx': Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 97 + 13) & 255)),
    'truncated.onnx': good.subarray(0, good.length - 9),
    'text.onnx': Buffer.from('7767517\n1 1\nInput x 0 1 x\n'),
    'empty.onnx': Buffer.alloc(0),
  };
  for (const [f, bytes] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, f), bytes);
    for (const which of runners) {
      const r = nnfold(which, ['info', path.join(dir, f)], { allowFail: true });
      assert.equal(r.status, 1, `${which} ${f}: exit code ${r.status}: ${r.stderr}`);
      assert.match(r.stderr, /ONNX|onnx/, `${which} ${f}: ${r.stderr}`);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
