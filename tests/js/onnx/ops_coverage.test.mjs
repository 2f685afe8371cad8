// Operators beyond the per-operator table of ops.test.mjs, as exporters emit them (issue 13): If
// whose condition folds at import once shapes are known (the taken branch is inlined, nested Ifs
// too), against onnxruntime-node on the same seeded inputs (docs/numbers.md budgets), and the
// clear errors for what nnfold cannot take (a condition computed from input values, sub-graphs
// nested deeper than the decoder's limit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { DataType, Rng, makeModel, nnfold, numel, relErr, runNnfold, selectedRunners, tensor, tmpdir } from './harness.mjs';

const budget = { native: 1e-4, base: 1e-4, simd: 1e-4 + 1e-4 + 1e-3 };
const I64 = DataType.INT64;

function w(name, dims, seed = 11) { return tensor(name, dims, new Rng(seed).fill(numel(dims))); }
function i64(name, values, dims = [values.length]) { return tensor(name, dims, values, I64); }

// Runs `spec` in onnxruntime and in every selected nnfold build (the .onnx directly, and the
// native build's converted .param/.bin) on seeded inputs; every output within budget.
async function compare(spec, seed) {
  const rng = new Rng(seed);
  const feeds = {}, ortFeeds = {};
  for (const i of spec.inputs) {
    const n = numel(i.shape);
    if (i.type === DataType.INT64 || i.type === DataType.INT32) {
      // integer inputs (token ids) in [lo, hi]; nnfold reads them as .f32 files of their values
      const [lo, hi] = i.range;
      const v = Array.from({ length: n }, () => lo + (rng.nextU32() % (hi - lo + 1)));
      feeds[i.name] = { data: Float32Array.from(v), shape: i.shape };
      ortFeeds[i.name] = i.type === DataType.INT64
        ? new ort.Tensor('int64', BigInt64Array.from(v, (x) => BigInt(x)), i.shape)
        : new ort.Tensor('int32', Int32Array.from(v), i.shape);
    } else {
      feeds[i.name] = { data: rng.fill(n), shape: i.shape };
      ortFeeds[i.name] = new ort.Tensor('float32', feeds[i.name].data, i.shape);
    }
  }
  const bytes = makeModel(spec);
  const sess = await ort.InferenceSession.create(bytes);
  const res = await sess.run(ortFeeds);
  const ref = {};
  for (const name of sess.outputNames) ref[name] = { data: Float32Array.from(res[name].data, Number), shape: res[name].dims.map(Number) };
  const tmp = tmpdir();
  const file = path.join(tmp, 'model.onnx');
  fs.writeFileSync(file, bytes);
  const conv = path.join(tmp, 'conv');
  nnfold('native', ['convert', file, conv + '.param', conv + '.bin']);
  const runs = selectedRunners().map((which) => [which, file]).concat([['native', [conv + '.param', conv + '.bin']]]);
  for (const [which, model] of runs) {
    const { out } = runNnfold(which, model, feeds, [], path.join(tmp, which + (Array.isArray(model) ? '-conv' : '')));
    for (const [name, r] of Object.entries(ref)) {
      assert.ok(out[name], `${which}: output ${name} missing`);
      assert.deepEqual(out[name].shape, r.shape, `${which} ${name} shape`);
      const e = relErr(r.data, out[name].data);
      assert.ok(e <= budget[which], `${which} ${name}: err ${e} > ${budget[which]}`);
    }
  }
}

function refusal(spec, message) {
  const file = path.join(tmpdir(), 'model.onnx');
  fs.writeFileSync(file, makeModel(spec));
  const r = nnfold('native', ['run', file], { allowFail: true });
  assert.equal(r.status, 1, r.stderr);
  assert.ok(r.stderr.includes(message), `expected "${message}" in:\n${r.stderr}`);
}

// cond = (x's last dimension) % 2 == 0, computed from the shape as torch exports `x.shape[-1] % 2`.
const evenWidth = (x, prefix = '') => [
  { op: 'Shape', inputs: [x], outputs: [prefix + 'shape'] },
  { op: 'Gather', inputs: [prefix + 'shape', 'last'], outputs: [prefix + 'width'], attrs: { axis: 0 } },
  { op: 'Mod', inputs: [prefix + 'width', 'two'], outputs: [prefix + 'rem'] },
  { op: 'Equal', inputs: [prefix + 'rem', 'zero'], outputs: [prefix + 'cond'] },
];
const condInits = () => [i64('last', [-1], []), i64('two', [2], []), i64('zero', [0], [])];

// then: relu(x) + b (b an initializer of the branch); else: sigmoid(x) * W (W an outer initializer)
function ifOnWidth(shape) {
  return {
    inputs: [{ name: 'x', shape }],
    outputs: [{ name: 'y' }],
    inits: [...condInits(), w('W', [shape[3]], 21)],
    nodes: [
      ...evenWidth('x'),
      {
        op: 'If', name: 'pad_check', inputs: ['cond'], outputs: ['y'],
        attrs: {
          then_branch: { g: {
            inits: [w('b', [1, shape[1], 1, 1], 22)],
            nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['t_relu'] }, { op: 'Add', inputs: ['t_relu', 'b'], outputs: ['t_out'] }],
            outputs: [{ name: 't_out' }],
          } },
          else_branch: { g: {
            nodes: [{ op: 'Sigmoid', inputs: ['x'], outputs: ['e_sig'] }, { op: 'Mul', inputs: ['e_sig', 'W'], outputs: ['e_out'] }],
            outputs: [{ name: 'e_out' }],
          } },
        },
      },
    ],
  };
}

test('If on a shape condition: an even width takes then_branch (with its own initializer)', () => compare(ifOnWidth([1, 3, 5, 6]), 1));
test('If on a shape condition: an odd width takes else_branch (reading an outer initializer)', () => compare(ifOnWidth([1, 3, 5, 7]), 2));

// An If inside a branch of an If; the inner branch reads x (two scopes up) and a value of the
// outer branch; the If outputs are used by a node after them and as a graph output; a branch
// that outputs an outer value directly.
test('nested If: the inner branch reads values of both enclosing scopes', () => compare({
  inputs: [{ name: 'x', shape: [1, 2, 4, 6] }],
  outputs: [{ name: 'y' }, { name: 'z' }, { name: 'p' }],
  inits: [...condInits(), w('W', [6], 31)],
  nodes: [
    ...evenWidth('x'),
    {
      op: 'If', name: 'outer', inputs: ['cond'], outputs: ['mid', 'p'],
      attrs: {
        then_branch: { g: {
          nodes: [
            { op: 'Mul', inputs: ['x', 'W'], outputs: ['o_mul'] },
            ...evenWidth('o_mul', 'o_'),
            {
              op: 'If', name: 'inner', inputs: ['o_cond'], outputs: ['o_inner'],
              attrs: {
                then_branch: { g: { nodes: [{ op: 'Add', inputs: ['o_mul', 'x'], outputs: ['i_add'] }], outputs: [{ name: 'i_add' }] } },
                else_branch: { g: { nodes: [{ op: 'Sub', inputs: ['o_mul', 'x'], outputs: ['i_sub'] }], outputs: [{ name: 'i_sub' }] } },
              },
            },
            { op: 'Tanh', inputs: ['x'], outputs: ['o_tanh'] },
          ],
          outputs: [{ name: 'o_inner' }, { name: 'o_tanh' }],
        } },
        // onnxruntime wants an Identity between an outer value and a branch output
        else_branch: { g: { nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['e_x'] }], outputs: [{ name: 'e_x' }, { name: 'e_x' }] } },
      },
    },
    { op: 'Relu', inputs: ['mid'], outputs: ['y'] },
    { op: 'Neg', inputs: ['mid'], outputs: ['z'] },
  ],
}, 3));

test('If whose condition is computed from input values: a clear error naming the node', () => refusal({
  inputs: [{ name: 'x', shape: [1, 2, 3, 4] }],
  outputs: [{ name: 'y' }],
  inits: [tensor('zero_f', [], [0])],
  nodes: [
    { op: 'ReduceMax', inputs: ['x'], outputs: ['m'], attrs: { keepdims: 0 } },
    { op: 'Equal', inputs: ['m', 'zero_f'], outputs: ['cond'] },
    {
      op: 'If', name: 'runtime_if', inputs: ['cond'], outputs: ['y'],
      attrs: {
        then_branch: { g: { nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['a'] }], outputs: [{ name: 'a' }] } },
        else_branch: { g: { nodes: [{ op: 'Neg', inputs: ['x'], outputs: ['b'] }], outputs: [{ name: 'b' }] } },
      },
    },
  ],
}, "the condition of If 'runtime_if' depends on input values"));

test('If whose taken branch holds an unsupported operator: the error names it and the branch', () => refusal({
  inputs: [{ name: 'x', shape: [1, 2, 3, 4] }],
  outputs: [{ name: 'y' }],
  inits: condInits(),
  nodes: [
    ...evenWidth('x'),
    {
      op: 'If', name: 'branchy', inputs: ['cond'], outputs: ['y'],
      attrs: {
        then_branch: { g: { nodes: [{ op: 'Det', inputs: ['x'], outputs: ['a'] }], outputs: [{ name: 'a' }] } },
        else_branch: { g: { nodes: [{ op: 'Neg', inputs: ['x'], outputs: ['b'] }], outputs: [{ name: 'b' }] } },
      },
    },
  ],
}, "in the then_branch of If 'branchy' (taken: its condition is true at import): unsupported ONNX operator: Det"));

// Each level an If whose then_branch holds the next one.
function deepIf(depth) {
  const identity = (k) => ({ g: { nodes: [{ op: 'Identity', inputs: ['x'], outputs: [`e${k}`] }], outputs: [{ name: `e${k}` }] } });
  let g = { nodes: [{ op: 'Relu', inputs: ['x'], outputs: [`r${depth}`] }], outputs: [{ name: `r${depth}` }] };
  for (let d = depth - 1; d >= 1; d--) {
    g = {
      nodes: [{ op: 'If', name: `if${d}`, inputs: ['cond'], outputs: [`r${d}`], attrs: { then_branch: { g }, else_branch: identity(d) } }],
      outputs: [{ name: `r${d}` }],
    };
  }
  return {
    inputs: [{ name: 'x', shape: [1, 2, 3, 4] }],
    outputs: [{ name: 'y' }],
    inits: condInits(),
    nodes: [...evenWidth('x'), { op: 'If', name: 'if0', inputs: ['cond'], outputs: ['y'], attrs: { then_branch: { g }, else_branch: identity(0) } }],
  };
}

test('If nested 30 deep is inlined', () => compare(deepIf(30), 4));

// Protobuf written by hand: protobufjs's encoder itself recurses per level and overflows the JS
// stack long before 3000.
const varint = (v) => {
  const b = [];
  for (; v >= 0x80; v = Math.floor(v / 128)) b.push((v & 0x7f) | 0x80);
  b.push(v);
  return Buffer.from(b);
};
const msg = (tag, payload) => Buffer.concat([varint(tag * 8 + 2), varint(payload.length), payload]);
const str = (tag, s) => msg(tag, Buffer.from(s));
const int = (tag, v) => Buffer.concat([varint(tag * 8), varint(v)]);
const node = (op, inputs, outputs, attrs = []) =>
  Buffer.concat([...inputs.map((x) => str(1, x)), ...outputs.map((x) => str(2, x)), str(4, op), ...attrs]);
const graphAttr = (name, graph) => msg(5, Buffer.concat([str(1, name), int(20, 5), msg(6, graph)]));

test('If nested 3000 deep is a clear error, not a stack overflow', () => {
  const depth = 3000;
  let g = Buffer.concat([msg(1, node('Relu', ['x'], ['r'])), msg(12, str(1, 'r'))]);
  for (let d = 0; d < depth; d++) g = Buffer.concat([msg(1, node('If', ['x'], [`r${d}`], [graphAttr('then_branch', g), graphAttr('else_branch', g.subarray(0, 0))])), msg(12, str(1, `r${d}`))]);
  const dim = (v) => msg(1, int(1, v));
  const input = msg(11, Buffer.concat([str(1, 'x'), msg(2, msg(1, Buffer.concat([int(1, 1), msg(2, Buffer.concat([1, 2, 3, 4].map(dim)))])))]));
  const model = Buffer.concat([int(1, 7), msg(8, Buffer.concat([str(1, ''), int(2, 13)])), msg(7, Buffer.concat([g, input]))]);
  const file = path.join(tmpdir(), 'deep_if.onnx');
  fs.writeFileSync(file, model);
  const r = nnfold('native', ['run', file], { allowFail: true });
  assert.equal(r.status, 1, r.stderr);
  assert.ok(r.stderr.includes('sub-graphs (If/Loop bodies) nested more than 32 deep'), r.stderr);
});

// ScatterND / ScatterElements / GatherElements on constants fold at import (Swin's mask: slice
// assignment on zeros); the result then scales the input so that onnxruntime checks the values.
function foldedScale(op, inits, attrs = {}) {
  return {
    opset: 16,
    inputs: [{ name: 'x', shape: [1, 2, 3, 4] }],
    outputs: [{ name: 'y' }],
    inits,
    nodes: [
      { op, name: 'scatter', inputs: inits.map((t) => t.name), outputs: ['s'], attrs },
      { op: 'Mul', inputs: ['x', 's'], outputs: ['y'] },
    ],
  };
}
const zeros = (name, dims) => tensor(name, dims, new Float32Array(numel(dims)));

test('ScatterND on constants folds (rows of the last axis, negative indices)', () => compare(foldedScale('ScatterND', [
  zeros('data', [1, 2, 3, 4]), i64('idx', [0, 1, 2, 0, 0, 0, 0, -1, -2], [3, 3]), w('upd', [3, 4], 41)]), 5));
test('ScatterND on constants folds (whole planes)', () => compare(foldedScale('ScatterND', [
  zeros('data', [1, 2, 3, 4]), i64('idx', [0, -1], [1, 1, 2]), w('upd', [1, 1, 3, 4], 48)]), 9));
test('ScatterND on constants with reduction add and full-index tuples', () => compare(foldedScale('ScatterND', [
  w('data', [1, 2, 3, 4], 42), i64('idx', [0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 0, 0], [3, 4]), w('upd', [3], 43)], { reduction: 'add' }), 6));
test('ScatterElements on constants folds (axis 2)', () => compare(foldedScale('ScatterElements', [
  zeros('data', [1, 2, 3, 4]), i64('idx', [2, 0, 1, 0, 1, 2, 0, -1], [1, 2, 1, 4]), w('upd', [1, 2, 1, 4], 44)], { axis: 2 }), 7));
test('GatherElements on constants folds (axis -1)', () => compare(foldedScale('GatherElements', [
  w('data', [1, 2, 3, 5], 45), i64('idx', Array.from({ length: 24 }, (_, k) => (k * 7) % 5 - 2), [1, 2, 3, 4])], { axis: -1 }), 8));

// ScatterND on values computed at run time: the nnfold.ScatterND extension layer (constant
// indices become dense offsets at import).
function runtimeScatter(dataShape, idx, idxShape, updShape, attrs = {}) {
  return {
    opset: 16,
    inputs: [{ name: 'x', shape: dataShape }, { name: 'u', shape: updShape }],
    outputs: [{ name: 'y' }],
    inits: [i64('idx', idx, idxShape)],
    nodes: [
      { op: 'Sigmoid', inputs: ['x'], outputs: ['s'] },
      { op: 'ScatterND', name: 'assign', inputs: ['s', 'idx', 'u'], outputs: ['t'], attrs },
      { op: 'Relu', inputs: ['t'], outputs: ['y'] },
    ],
  };
}
test('ScatterND at run time: rows of a 4-D tensor', () => compare(runtimeScatter([1, 2, 3, 4], [0, 1, 2, 0, 0, -1], [2, 3], [2, 4]), 10));
test('ScatterND at run time: single elements with reduction mul', () =>
  compare(runtimeScatter([1, 3, 5], [0, 2, 4, 0, 0, 0, 0, 1, 3], [3, 3], [3], { reduction: 'mul' }), 11));
test('ScatterND at run time: a YOLOv5-style [..., 0:2] assignment on [1, 3, 4, 5, 8]', () => {
  // indices for y[..., 0:2]: every (0, a, i, j, c) with c in {0, 1}, as torch exports it
  const idx = [];
  for (let a = 0; a < 3; a++) for (let i = 0; i < 4; i++) for (let j = 0; j < 5; j++) for (let c = 0; c < 2; c++) idx.push(0, a, i, j, c);
  return compare(runtimeScatter([1, 3, 4, 5, 8], idx, [1, 3, 4, 5, 2, 5], [1, 3, 4, 5, 2]), 12);
});

test('ScatterND with indices computed at run time: a clear error naming the node', () => refusal({
  inputs: [{ name: 'x', shape: [1, 2, 3, 4] }],
  outputs: [{ name: 'y' }],
  inits: [w('upd', [1, 2, 3, 1], 46)],
  nodes: [
    { op: 'Floor', inputs: ['x'], outputs: ['fl'] },
    { op: 'Cast', inputs: ['fl'], outputs: ['idx'], attrs: { to: 7 } },
    { op: 'ScatterND', name: 'assign', inputs: ['x', 'idx', 'upd'], outputs: ['y'] },
  ],
}, "node 'assign' (ScatterND): its indices are computed at run time"));

test('ScatterND with an index out of range: a clear error', () => refusal(foldedScale('ScatterND', [
  zeros('data', [1, 2, 3, 4]), i64('idx', [0, 5], [1, 2]), w('upd', [1, 3, 4], 47)]), 'index 5 is outside [-2, 1]'));

// Not on a mask computed at run time (torch's `~mask`), held as 0/1 floats.
test('Not on a runtime mask, used by Where', () => compare({
  inputs: [{ name: 'x', shape: [1, 2, 3, 4] }],
  outputs: [{ name: 'y' }],
  inits: [tensor('half', [], [0.25])],
  nodes: [
    { op: 'Greater', inputs: ['x', 'half'], outputs: ['m'] },
    { op: 'Not', inputs: ['m'], outputs: ['nm'] },
    { op: 'Where', inputs: ['nm', 'x', 'half'], outputs: ['y'] },
  ],
}, 13));

// Integer graph inputs (docs/shapes-and-files.md): held as float32 values inside the graph.
test('int64 token ids: an embedding lookup (Gather with runtime indices, negative ones too) and a padding mask', () => compare({
  inputs: [{ name: 'ids', shape: [1, 7], type: DataType.INT64, range: [-3, 9] }],
  outputs: [{ name: 'y' }, { name: 'mask' }],
  inits: [w('table', [10, 6], 51), i64('zero', [0], [])],
  nodes: [
    { op: 'Gather', inputs: ['table', 'ids'], outputs: ['emb'], attrs: { axis: 0 } },
    { op: 'Relu', inputs: ['emb'], outputs: ['y'] },
    { op: 'Equal', inputs: ['ids', 'zero'], outputs: ['m'] },
    { op: 'Cast', inputs: ['m'], outputs: ['mask'], attrs: { to: 1 } },
  ],
}, 14));
test('int32 indices gathering along a middle axis of a runtime tensor', () => compare({
  inputs: [{ name: 'x', shape: [1, 3, 5, 4] }, { name: 'i', shape: [2, 3], type: DataType.INT32, range: [-5, 4] }],
  outputs: [{ name: 'y' }],
  nodes: [{ op: 'Gather', inputs: ['x', 'i'], outputs: ['y'], attrs: { axis: 2 } }],
}, 15));
test('Expand that repeats a runtime mask over heads', () => compare({
  inputs: [{ name: 'x', shape: [1, 1, 1, 6] }],
  outputs: [{ name: 'y' }],
  inits: [i64('shape', [1, 4, 6, 6])],
  nodes: [
    { op: 'Sigmoid', inputs: ['x'], outputs: ['s'] },
    { op: 'Expand', inputs: ['s', 'shape'], outputs: ['y'] },
  ],
}, 16));
test('an int8 input: a clear error naming the types nnfold runs', () => refusal({
  inputs: [{ name: 'q', shape: [1, 4], type: DataType.INT8 }],
  outputs: [{ name: 'y' }],
  nodes: [{ op: 'Cast', inputs: ['q'], outputs: ['y'], attrs: { to: 1 } }],
}, "input 'q' has element type int8; nnfold runs float32, int32, int64 and bool inputs"));

// CLI files for integer inputs: .i32 (int32) and .u8, read as the values; beyond +-2^24 is an error.
test('the CLI reads .i32 and .u8 input files as values; an int32 beyond 2^24 is invalid_argument', async () => {
  const spec = {
    inputs: [{ name: 'ids', shape: [1, 5], type: DataType.INT64 }, { name: 'keep', shape: [1, 5], type: DataType.BOOL }],
    outputs: [{ name: 'y' }],
    inits: [w('table', [10, 3], 61)],
    nodes: [
      { op: 'Gather', inputs: ['table', 'ids'], outputs: ['emb'], attrs: { axis: 0 } },
      { op: 'Cast', inputs: ['keep'], outputs: ['kf'], attrs: { to: 1 } },
      { op: 'Unsqueeze', inputs: ['kf', 'ax'], outputs: ['k3'] },
      { op: 'Mul', inputs: ['emb', 'k3'], outputs: ['y'] },
    ],
  };
  spec.inits.push(i64('ax', [2]));
  const ids = [3, 0, 9, 4, 7], keep = [1, 0, 1, 1, 0];
  const bytes = makeModel(spec);
  const sess = await ort.InferenceSession.create(bytes);
  const res = await sess.run({
    ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, 5]),
    keep: new ort.Tensor('bool', Uint8Array.from(keep), [1, 5]),
  });
  const tmp = tmpdir();
  const file = path.join(tmp, 'm.onnx');
  fs.writeFileSync(file, bytes);
  fs.writeFileSync(path.join(tmp, 'ids.i32'), Buffer.from(Int32Array.from(ids).buffer));
  fs.writeFileSync(path.join(tmp, 'keep.u8'), Buffer.from(Uint8Array.from(keep)));
  const r = nnfold('native', ['run', file, '--output-dir', tmp, '--input', `ids=${tmp}/ids.i32`, '--input', `keep=${tmp}/keep.u8`]);
  const out = JSON.parse(r.stdout).outputs.find((o) => o.name === 'y');
  const buf = fs.readFileSync(path.join(tmp, out.file));
  const got = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  assert.ok(relErr(Float32Array.from(res.y.data), got) <= budget.native);
  fs.writeFileSync(path.join(tmp, 'big.i32'), Buffer.from(Int32Array.from([3, 0, (1 << 24) + 1, 4, 7]).buffer));
  const bad = nnfold('native', ['run', file, '--input', `ids=${tmp}/big.i32`, '--input', `keep=${tmp}/keep.u8`], { allowFail: true });
  assert.equal(bad.status, 1, bad.stderr);
  assert.match(bad.stderr, /value 16777217 at 2 is beyond \+-2\^24/);
  fs.writeFileSync(path.join(tmp, 'three.u8'), Buffer.from([1, 2, 3]));
  const short = nnfold('native', ['run', file, '--input', `ids=${tmp}/three.u8`], { allowFail: true });
  assert.equal(short.status, 1, short.stderr);
  assert.ok(short.stderr.includes("three.u8 holds 3 values; input 'ids' needs 5"), short.stderr);
});

test('random inputs for an int64 input are integers in [0, 7] (valid ids for a table of 8 rows)', () => {
  const tmp = tmpdir();
  const file = path.join(tmp, 'm.onnx');
  // the table's rows are 0..7, so the output repeats the ids drawn
  const table = tensor('table', [8, 1], [0, 1, 2, 3, 4, 5, 6, 7]);
  fs.writeFileSync(file, makeModel({
    inputs: [{ name: 'ids', shape: [1, 64], type: DataType.INT64 }],
    outputs: [{ name: 'y' }],
    inits: [table],
    nodes: [{ op: 'Gather', inputs: ['table', 'ids'], outputs: ['y'], attrs: { axis: 0 } }],
  }));
  const r = nnfold('native', ['run', file, '--output-dir', tmp]);
  const out = JSON.parse(r.stdout).outputs[0];
  const buf = fs.readFileSync(path.join(tmp, out.file));
  const ids = Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4));
  assert.equal(ids.length, 64);
  assert.ok(ids.every((v) => Number.isInteger(v) && v >= 0 && v <= 7), ids.join(','));
  assert.ok(new Set(ids).size >= 6, `few distinct ids: ${ids.join(',')}`);
});

// CumSum as ncnn's CumulativeSum (inclusive, forward).
const cumsum = (shape, axis) => ({
  inputs: [{ name: 'x', shape }],
  outputs: [{ name: 'y' }],
  inits: [i64('axis', [axis], [])],
  nodes: [{ op: 'CumSum', inputs: ['x', 'axis'], outputs: ['y'] }],
});
test('CumSum on the last axis of [1, 3, 5]', () => compare(cumsum([1, 3, 5], -1), 17));
test('CumSum on axis 1 of [1, 4, 6]', () => compare(cumsum([1, 4, 6], 1), 18));
test('CumSum on axis 0 of [3, 5] and axis 2 of [1, 2, 3, 4]', async () => {
  await compare(cumsum([3, 5], 0), 19);
  await compare(cumsum([2, 3, 4], 2), 20);
});
test('CumSum with exclusive = 1: a clear error naming the attribute', () => refusal({
  ...cumsum([1, 3, 5], 1),
  nodes: [{ op: 'CumSum', name: 'cs', inputs: ['x', 'axis'], outputs: ['y'], attrs: { exclusive: 1 } }],
}, "node 'cs' (CumSum): attribute exclusive = 1"));

// Clip/Min/Max/Pow with operands computed in the graph, and a scalar (rank 0) graph input.
test('Clip whose lower bound is computed (max - 0.5), upper bound constant', () => compare({
  inputs: [{ name: 'x', shape: [1, 2, 3, 4] }],
  outputs: [{ name: 'y' }],
  inits: [tensor('h', [], [0.5]), tensor('top', [], [0.8])],
  nodes: [
    { op: 'ReduceMax', inputs: ['x'], outputs: ['m'], attrs: { keepdims: 0 } },
    { op: 'Sub', inputs: ['m', 'h'], outputs: ['lo'] },
    { op: 'Clip', inputs: ['x', 'lo', 'top'], outputs: ['y'] },
  ],
}, 21));
test('Clip with only a computed upper bound (min given as empty)', () => compare({
  inputs: [{ name: 'x', shape: [1, 3, 5] }],
  outputs: [{ name: 'y' }],
  nodes: [
    { op: 'ReduceMean', inputs: ['x'], outputs: ['hi'], attrs: { keepdims: 0 } },
    { op: 'Clip', inputs: ['x', '', 'hi'], outputs: ['y'] },
  ],
}, 22));
test('Pow with a runtime exponent, Max of three operands, a scalar graph input', () => compare({
  inputs: [{ name: 'x', shape: [1, 2, 3, 4] }, { name: 'e', shape: [1, 2, 3, 4] }, { name: 's', shape: [] }],
  outputs: [{ name: 'p' }, { name: 'mx' }, { name: 'ms' }],
  inits: [tensor('c', [], [0.1])],
  nodes: [
    { op: 'Abs', inputs: ['x'], outputs: ['a'] },
    { op: 'Add', inputs: ['a', 'c'], outputs: ['a1'] },
    { op: 'Pow', inputs: ['a1', 'e'], outputs: ['p'] },
    { op: 'Max', inputs: ['x', 'e', 'c'], outputs: ['mx'] },
    { op: 'Mul', inputs: ['x', 's'], outputs: ['ms'] },
  ],
}, 23));
