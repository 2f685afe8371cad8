// Every supported ONNX operator (opsets 9-17): a small model built here, run by onnxruntime-node
// (the oracle) and by nnfold on the same seeded inputs, err <= 1e-4 (docs/numbers.md) on the
// scalar builds and 1e-4 + 1e-4 + 1e-3 on the SIMD build. nnfold runs the .onnx directly in every
// selected build (native, wasm baseline, wasm SIMD: the import runs in wasm too) and the native
// build also converts to .param/.bin/.io.json and runs that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DataType, Rng, makeModel, nnfold, numel, relErr, runNnfold, runOrt, selectedRunners, tensor, tmpdir } from './harness.mjs';

const budget = { native: 1e-4, base: 1e-4, simd: 1e-4 + 1e-4 + 1e-3 };
const F = DataType.FLOAT, I64 = DataType.INT64;

// deterministic constant data
function data(n, seed, lo = -1, hi = 1) { return new Rng(seed).fill(n, lo, hi); }
function w(name, dims, seed = 11, lo = -1, hi = 1) { return tensor(name, dims, data(numel(dims), seed, lo, hi)); }
function i64(name, values, dims = [values.length]) { return tensor(name, dims, values, I64); }
function f32(name, values, dims = [values.length]) { return tensor(name, dims, values, F); }

// One-node model: op(x[, more inputs]) -> y
function one(op, shapes, attrs = {}, { opset = 13, inits = [], extraInputs = [], outShape } = {}) {
  const inputs = shapes.map((s, k) => ({ name: `x${k}`, shape: s }));
  return {
    opset,
    inputs,
    outputs: [{ name: 'y', shape: outShape }],
    nodes: [{ op, inputs: [...inputs.map((i) => i.name), ...extraInputs], outputs: ['y'], attrs }],
    inits,
  };
}

const X4 = [1, 3, 6, 7];
const cases = {
  // --- convolution family
  'Conv 3x3 pad 1 bias': one('Conv', [[1, 3, 7, 9]], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] },
    { inits: [w('W', [4, 3, 3, 3]), w('B', [4], 12)], extraInputs: ['W', 'B'] }),
  'Conv stride 2 asymmetric pads dilation': one('Conv', [[1, 2, 9, 8]], { strides: [2, 2], pads: [0, 1, 2, 0], dilations: [2, 1] },
    { inits: [w('W', [3, 2, 3, 2])], extraInputs: ['W'] }),
  'Conv depthwise group': one('Conv', [[1, 4, 6, 6]], { group: 4, pads: [1, 1, 1, 1] },
    { inits: [w('W', [4, 1, 3, 3]), w('B', [4], 3)], extraInputs: ['W', 'B'] }),
  'Conv group 2': one('Conv', [[1, 4, 5, 5]], { group: 2 }, { inits: [w('W', [6, 2, 3, 3])], extraInputs: ['W'] }),
  'Conv SAME_UPPER stride 2': one('Conv', [[1, 3, 7, 8]], { auto_pad: 'SAME_UPPER', strides: [2, 2], kernel_shape: [3, 3] },
    { inits: [w('W', [2, 3, 3, 3])], extraInputs: ['W'] }),
  'Conv SAME_LOWER': one('Conv', [[1, 2, 6, 6]], { auto_pad: 'SAME_LOWER', kernel_shape: [2, 2] },
    { inits: [w('W', [2, 2, 2, 2])], extraInputs: ['W'] }),
  'Conv 1D': one('Conv', [[1, 3, 10]], { pads: [1, 2], strides: [2] }, { inits: [w('W', [5, 3, 3]), w('B', [5])], extraInputs: ['W', 'B'] }),
  'ConvTranspose stride 2 output_padding': one('ConvTranspose', [[1, 3, 4, 5]], { strides: [2, 2], pads: [1, 1, 1, 1], output_padding: [1, 1] },
    { inits: [w('W', [3, 2, 3, 3]), w('B', [2], 5)], extraInputs: ['W', 'B'] }),
  'ConvTranspose depthwise': one('ConvTranspose', [[1, 4, 3, 3]], { group: 4, strides: [2, 2] },
    { inits: [w('W', [4, 1, 2, 2])], extraInputs: ['W'] }),
  'ConvTranspose output_shape': one('ConvTranspose', [[1, 2, 4, 4]], { strides: [2, 2], output_shape: [8, 8] },
    { inits: [w('W', [2, 3, 3, 3])], extraInputs: ['W'] }),
  BatchNormalization: one('BatchNormalization', [X4], { epsilon: 1e-3 }, {
    inits: [w('s', [3], 1), w('b', [3], 2), w('m', [3], 3), w('v', [3], 4, 0.5, 1.5)], extraInputs: ['s', 'b', 'm', 'v'],
  }),
  InstanceNormalization: one('InstanceNormalization', [X4], { epsilon: 1e-5 }, { inits: [w('s', [3], 1), w('b', [3], 2)], extraInputs: ['s', 'b'] }),
  'LayerNormalization last axis': one('LayerNormalization', [[1, 5, 16]], { axis: -1, epsilon: 1e-5 },
    { opset: 17, inits: [w('s', [16], 1), w('b', [16], 2)], extraInputs: ['s', 'b'] }),
  'LayerNormalization two axes no bias': one('LayerNormalization', [[1, 4, 3, 5]], { axis: 2 },
    { opset: 17, inits: [w('s', [3, 5], 1)], extraInputs: ['s'] }),

  // --- activations
  Relu: one('Relu', [X4]),
  LeakyRelu: one('LeakyRelu', [X4], { alpha: 0.15 }),
  'PRelu per channel': one('PRelu', [X4], {}, { inits: [w('s', [3, 1, 1], 2, 0, 0.5)], extraInputs: ['s'] }),
  'PRelu scalar slope': one('PRelu', [X4], {}, { inits: [f32('s', [0.2], [1])], extraInputs: ['s'] }),
  'PRelu broadcast along W': one('PRelu', [X4], {}, { inits: [w('s', [7], 2, 0, 0.5)], extraInputs: ['s'] }),
  'Clip attributes (opset 9)': one('Clip', [X4], { min: -0.3, max: 0.6 }, { opset: 9 }),
  'Clip inputs (opset 13)': one('Clip', [X4], {}, { inits: [f32('lo', [-0.25], []), f32('hi', [0.5], [])], extraInputs: ['lo', 'hi'] }),
  'Clip max only': {
    opset: 13, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 'y' }], inits: [f32('hi', [0.4], [])],
    nodes: [{ op: 'Clip', inputs: ['x', '', 'hi'], outputs: ['y'] }],
  },
  Sigmoid: one('Sigmoid', [X4]),
  HardSigmoid: one('HardSigmoid', [X4], { alpha: 0.3, beta: 0.4 }),
  HardSwish: one('HardSwish', [[1, 3, 6, 7]], {}, { opset: 14 }),
  Tanh: one('Tanh', [X4]),
  Elu: one('Elu', [X4], { alpha: 0.7 }),
  Erf: one('Erf', [X4]),
  'Softmax axis 1 (opset 13)': one('Softmax', [[1, 5, 3, 4]], { axis: 1 }),
  'Softmax last axis (opset 13)': one('Softmax', [[1, 3, 9]], {}),
  'Softmax axis 1 coerced (opset 11)': one('Softmax', [[1, 5, 3, 4]], { axis: 1 }, { opset: 11 }),
  'Softmax axis 2 coerced single (opset 11)': one('Softmax', [[1, 3, 8, 1]], { axis: 2 }, { opset: 11 }),

  // --- arithmetic
  'Add same shape': one('Add', [X4, X4]),
  'Add per-channel constant': one('Add', [X4], {}, { inits: [w('c', [3, 1, 1])], extraInputs: ['c'] }),
  'Sub scalar constant': one('Sub', [X4], {}, { inits: [f32('c', [0.25], [])], extraInputs: ['c'] }),
  'Sub constant minus x': { opset: 13, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 'y' }], inits: [f32('c', [0.5], [])],
    nodes: [{ op: 'Sub', inputs: ['c', 'x'], outputs: ['y'] }] },
  'Mul broadcast lower rank runtime': one('Mul', [X4, [7]]),
  'Mul broadcast first operand': one('Mul', [[1, 3, 1, 7], X4]),
  'Div runtime': { opset: 13, inputs: [{ name: 'a', shape: X4 }, { name: 'b', shape: X4 }], outputs: [{ name: 'y' }],
    inits: [f32('two', [2], [])],
    nodes: [{ op: 'Abs', inputs: ['b'], outputs: ['ab'] }, { op: 'Add', inputs: ['ab', 'two'], outputs: ['den'] },
      { op: 'Div', inputs: ['a', 'den'], outputs: ['y'] }] },
  'Div constant by x': { opset: 13, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 'y' }], inits: [f32('c', [3], []), f32('one5', [1.5], [])],
    nodes: [{ op: 'Abs', inputs: ['x'], outputs: ['a'] }, { op: 'Add', inputs: ['a', 'one5'], outputs: ['d'] },
      { op: 'Div', inputs: ['c', 'd'], outputs: ['y'] }] },
  'Pow square and cube': { opset: 13, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 'y2' }, { name: 'y3' }],
    inits: [f32('two', [2], []), f32('three', [3], [])],
    nodes: [{ op: 'Pow', inputs: ['x', 'two'], outputs: ['y2'] }, { op: 'Pow', inputs: ['x', 'three'], outputs: ['y3'] }] },
  'Sqrt Exp Log Neg Abs': { opset: 13, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 's' }, { name: 'e' }, { name: 'l' }, { name: 'n' }],
    inits: [f32('eps', [0.1], [])],
    nodes: [{ op: 'Abs', inputs: ['x'], outputs: ['a'] }, { op: 'Sqrt', inputs: ['a'], outputs: ['s'] },
      { op: 'Exp', inputs: ['x'], outputs: ['e'] }, { op: 'Add', inputs: ['a', 'eps'], outputs: ['ae'] },
      { op: 'Log', inputs: ['ae'], outputs: ['l'] }, { op: 'Neg', inputs: ['x'], outputs: ['n'] }] },
  'Min Max Sum variadic': { opset: 13, inputs: [{ name: 'a', shape: X4 }, { name: 'b', shape: X4 }, { name: 'c', shape: [1, 3, 1, 1] }],
    outputs: [{ name: 'mn' }, { name: 'mx' }, { name: 'sm' }],
    nodes: [{ op: 'Min', inputs: ['a', 'b', 'c'], outputs: ['mn'] }, { op: 'Max', inputs: ['a', 'b', 'c'], outputs: ['mx'] },
      { op: 'Sum', inputs: ['a', 'b', 'c'], outputs: ['sm'] }] },
  'Equal Greater Less Where': { opset: 13, inputs: [{ name: 'a', shape: X4 }, { name: 'b', shape: [1, 3, 1, 7] }],
    outputs: [{ name: 'eq', type: DataType.BOOL }, { name: 'gt' }, { name: 'w' }, { name: 'ws' }],
    inits: [f32('zero', [0], []), f32('half', [0.5], [])],
    nodes: [{ op: 'Relu', inputs: ['a'], outputs: ['ra'] }, { op: 'Equal', inputs: ['ra', 'zero'], outputs: ['eq'] },
      { op: 'Greater', inputs: ['a', 'b'], outputs: ['g'] }, { op: 'Cast', inputs: ['g'], outputs: ['gt'], attrs: { to: 1 } },
      { op: 'Less', inputs: ['a', 'half'], outputs: ['l'] }, { op: 'Where', inputs: ['l', 'a', 'b'], outputs: ['w'] },
      { op: 'Where', inputs: ['g', 'half', 'a'], outputs: ['ws'] }] },

  // --- matrix products
  'MatMul constant B (rows)': one('MatMul', [[1, 4, 8]], {}, { inits: [w('B', [8, 5])], extraInputs: ['B'] }),
  'MatMul constant B (vector)': one('MatMul', [[1, 8]], {}, { inits: [w('B', [8, 6])], extraInputs: ['B'] }),
  'MatMul runtime batched': one('MatMul', [[1, 2, 3, 4], [1, 2, 4, 5]]),
  'Gemm transB bias': one('Gemm', [[1, 6]], { transB: 1 }, { inits: [w('B', [4, 6]), w('C', [4], 3)], extraInputs: ['B', 'C'] }),
  'Gemm alpha beta rows': one('Gemm', [[3, 5]], { alpha: 0.5, beta: { f: 2 } }, { inits: [w('B', [5, 4]), w('C', [1, 4], 3)], extraInputs: ['B', 'C'] }),

  // --- shapes
  Flatten: one('Flatten', [X4], { axis: 1 }),
  'Reshape 0 and -1': one('Reshape', [X4], {}, { inits: [i64('s', [0, 3, -1])], extraInputs: ['s'] }),
  'Transpose NCHW to NHWC': one('Transpose', [X4], { perm: [0, 2, 3, 1] }),
  'Transpose swap middle': one('Transpose', [[1, 3, 4, 5]], { perm: [0, 2, 1, 3] }),
  'Transpose channel shuffle 5D': {
    opset: 13, inputs: [{ name: 'x', shape: [1, 6, 3, 4] }], outputs: [{ name: 'y' }],
    inits: [i64('s1', [1, 2, 3, 3, 4]), i64('s2', [1, 6, 3, 4])],
    nodes: [{ op: 'Reshape', inputs: ['x', 's1'], outputs: ['r'] }, { op: 'Transpose', inputs: ['r'], outputs: ['t'], attrs: { perm: [0, 2, 1, 3, 4] } },
      { op: 'Reshape', inputs: ['t', 's2'], outputs: ['y'] }] },
  'Concat channels': one('Concat', [X4, [1, 2, 6, 7]], { axis: 1 }),
  'Concat width with constant': one('Concat', [X4], { axis: 3 }, { inits: [w('c', [1, 3, 6, 2])], extraInputs: ['c'] }),
  'Concat height': one('Concat', [[1, 3, 2, 7], X4], { axis: 2 }),
  'Split equal': { opset: 13, inputs: [{ name: 'x', shape: [1, 6, 4, 5] }], outputs: [{ name: 'a' }, { name: 'b' }],
    nodes: [{ op: 'Split', inputs: ['x'], outputs: ['a', 'b'], attrs: { axis: 1 } }] },
  'Split sizes input (opset 13)': { opset: 13, inputs: [{ name: 'x', shape: [1, 3, 4, 7] }], outputs: [{ name: 'a' }, { name: 'b' }, { name: 'c' }],
    inits: [i64('sp', [2, 4, 1])], nodes: [{ op: 'Split', inputs: ['x', 'sp'], outputs: ['a', 'b', 'c'], attrs: { axis: -1 } }] },
  'Split attribute (opset 11)': { opset: 11, inputs: [{ name: 'x', shape: [1, 5, 4] }], outputs: [{ name: 'a' }, { name: 'b' }],
    nodes: [{ op: 'Split', inputs: ['x'], outputs: ['a', 'b'], attrs: { axis: 1, split: [2, 3] } }] },
  'Slice negative and large bounds': one('Slice', [X4], {}, {
    inits: [i64('st', [1, -5]), i64('en', [2147483647, -1]), i64('ax', [2, 3])], extraInputs: ['st', 'en', 'ax'] }),
  'Slice channels': one('Slice', [X4], {}, { inits: [i64('st', [1]), i64('en', [3]), i64('ax', [1])], extraInputs: ['st', 'en', 'ax'] }),
  'Squeeze Unsqueeze': { opset: 13, inputs: [{ name: 'x', shape: [1, 3, 1, 5] }], outputs: [{ name: 'y' }, { name: 'z' }],
    inits: [i64('a2', [2]), i64('a0', [0, 3])],
    nodes: [{ op: 'Squeeze', inputs: ['x', 'a2'], outputs: ['y'] }, { op: 'Unsqueeze', inputs: ['y', 'a0'], outputs: ['z'] }] },
  'Squeeze Unsqueeze attributes (opset 11)': { opset: 11, inputs: [{ name: 'x', shape: [1, 3, 1, 5] }], outputs: [{ name: 'z' }],
    nodes: [{ op: 'Squeeze', inputs: ['x'], outputs: ['y'], attrs: { axes: [2] } }, { op: 'Unsqueeze', inputs: ['y'], outputs: ['z'], attrs: { axes: [3] } }] },
  'Pad constant value': one('Pad', [X4], { mode: 'constant' }, { inits: [i64('p', [0, 0, 1, 2, 0, 1, 0, 3]), f32('v', [0.5], [])], extraInputs: ['p', 'v'] }),
  'Pad reflect': one('Pad', [X4], { mode: 'reflect' }, { inits: [i64('p', [0, 0, 2, 1, 0, 0, 1, 3])], extraInputs: ['p'] }),
  'Pad edge': one('Pad', [X4], { mode: 'edge' }, { inits: [i64('p', [0, 0, 1, 1, 0, 0, 2, 2])], extraInputs: ['p'] }),
  'Pad channels (opset 9 attributes)': one('Pad', [X4], { pads: [0, 1, 0, 0, 0, 2, 0, 0], value: 0.25 }, { opset: 9 }),

  // --- pooling
  'MaxPool 3x3 stride 2 pad 1': one('MaxPool', [[1, 3, 9, 8]], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }),
  'MaxPool ceil_mode': one('MaxPool', [[1, 2, 8, 7]], { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 }),
  'MaxPool SAME_UPPER': one('MaxPool', [[1, 2, 7, 7]], { kernel_shape: [2, 2], strides: [2, 2], auto_pad: 'SAME_UPPER' }),
  'AveragePool exclude pad': one('AveragePool', [[1, 3, 7, 7]], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }),
  'AveragePool include pad': one('AveragePool', [[1, 3, 7, 7]], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], count_include_pad: 1 }),
  'AveragePool ceil_mode': one('AveragePool', [[1, 2, 8, 8]], { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 }),
  GlobalAveragePool: one('GlobalAveragePool', [X4]),
  GlobalMaxPool: one('GlobalMaxPool', [X4]),
  'ReduceMean spatial keepdims': one('ReduceMean', [X4], { axes: [2, 3], keepdims: 1 }),
  'ReduceSum axes input no keepdims': one('ReduceSum', [X4], { keepdims: 0 }, { inits: [i64('ax', [1])], extraInputs: ['ax'] }),
  'ReduceMax channel': one('ReduceMax', [X4], { axes: [1] }),
  'ReduceMean all': one('ReduceMean', [X4], { keepdims: 0 }),

  // --- resampling
  'Resize nearest asymmetric floor x2': one('Resize', [[1, 2, 4, 5]], { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' },
    { inits: [f32('roi', [], [0]), f32('sc', [1, 1, 2, 2])], extraInputs: ['roi', 'sc'] }),
  'Resize nearest default half_pixel x2': one('Resize', [[1, 2, 4, 5]], { mode: 'nearest' },
    { inits: [f32('roi', [], [0]), f32('sc', [1, 1, 2, 2])], extraInputs: ['roi', 'sc'] }),
  'Resize linear half_pixel sizes': one('Resize', [[1, 2, 5, 4]], { mode: 'linear' },
    { inits: [f32('roi', [], [0]), f32('sc', [], [0]), i64('sz', [1, 2, 9, 11])], extraInputs: ['roi', 'sc', 'sz'] }),
  'Resize linear align_corners': one('Resize', [[1, 2, 5, 4]], { mode: 'linear', coordinate_transformation_mode: 'align_corners' },
    { inits: [f32('roi', [], [0]), f32('sc', [1, 1, 2, 2])], extraInputs: ['roi', 'sc'] }),
  'Resize linear pytorch_half_pixel': one('Resize', [[1, 2, 5, 4]], { mode: 'linear', coordinate_transformation_mode: 'pytorch_half_pixel' },
    { inits: [f32('roi', [], [0]), f32('sc', [1, 1, 2, 3])], extraInputs: ['roi', 'sc'] }),
  'Resize cubic half_pixel': one('Resize', [[1, 2, 6, 5]], { mode: 'cubic' },
    { inits: [f32('roi', [], [0]), f32('sc', [1, 1, 2, 2])], extraInputs: ['roi', 'sc'] }),
  'Resize nearest (opset 10)': one('Resize', [[1, 2, 3, 4]], { mode: 'nearest' }, { opset: 10, inits: [f32('sc', [1, 1, 2, 3])], extraInputs: ['sc'] }),
  'Upsample nearest (opset 9)': one('Upsample', [[1, 2, 3, 4]], { mode: 'nearest' }, { opset: 9, inits: [f32('sc', [1, 1, 2, 2])], extraInputs: ['sc'] }),
  'DepthToSpace DCR': one('DepthToSpace', [[1, 8, 3, 4]], { blocksize: 2 }),
  'DepthToSpace CRD': one('DepthToSpace', [[1, 8, 3, 4]], { blocksize: 2, mode: 'CRD' }),
  SpaceToDepth: one('SpaceToDepth', [[1, 3, 4, 6]], { blocksize: 2 }),

  // --- folded at import / removed
  'Identity Dropout': { opset: 12, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['i'] }, { op: 'Dropout', inputs: ['i'], outputs: ['d'] }, { op: 'Relu', inputs: ['d'], outputs: ['y'] }] },
  // integer Div truncates, Mod (fmod 0) takes the divisor's sign: folded at import on negative operands
  'Integer Div and Mod folded': {
    opset: 13, inputs: [{ name: 'x', shape: [1, 4, 2, 3] }], outputs: [{ name: 'y' }],
    inits: [i64('a', [-7, 7, -8, 9]), i64('b', [2, -2, 3, -4]), i64('s', [4, 1, 1])],
    nodes: [
      { op: 'Div', inputs: ['a', 'b'], outputs: ['q'] },
      { op: 'Mod', inputs: ['a', 'b'], outputs: ['m'] },
      { op: 'Cast', inputs: ['q'], outputs: ['qf'], attrs: { to: 1 } },
      { op: 'Cast', inputs: ['m'], outputs: ['mf'], attrs: { to: 1 } },
      { op: 'Reshape', inputs: ['qf', 's'], outputs: ['qr'] },
      { op: 'Reshape', inputs: ['mf', 's'], outputs: ['mr'] },
      { op: 'Mul', inputs: ['x', 'qr'], outputs: ['xq'] },
      { op: 'Add', inputs: ['xq', 'mr'], outputs: ['y'] },
    ] },
  'Constant ConstantOfShape Shape Gather Cast chain': {
    opset: 13, inputs: [{ name: 'x', shape: [1, 3, 4, 5] }], outputs: [{ name: 'y' }, { name: 'z' }],
    inits: [i64('i0', [0], []), i64('i1', [1], []), i64('ax0', [0]), i64('m1', [-1])],
    nodes: [
      { op: 'Shape', inputs: ['x'], outputs: ['shp'] },
      { op: 'Gather', inputs: ['shp', 'i0'], outputs: ['n'], attrs: { axis: 0 } },
      { op: 'Gather', inputs: ['shp', 'i1'], outputs: ['c'], attrs: { axis: 0 } },
      { op: 'Unsqueeze', inputs: ['n', 'ax0'], outputs: ['nu'] },
      { op: 'Unsqueeze', inputs: ['c', 'ax0'], outputs: ['cu'] },
      { op: 'Concat', inputs: ['nu', 'cu', 'm1'], outputs: ['newshape'], attrs: { axis: 0 } },
      { op: 'Reshape', inputs: ['x', 'newshape'], outputs: ['r'] },
      { op: 'Constant', inputs: [], outputs: ['k'], attrs: { value: { t: tensor('kv', [], [0.75]) } } },
      { op: 'Cast', inputs: ['shp'], outputs: ['shpf'], attrs: { to: 1 } },
      { op: 'ConstantOfShape', inputs: ['cu'], outputs: ['ones'], attrs: { value: { t: tensor('one', [1], [1.5]) } } },
      { op: 'Mul', inputs: ['r', 'k'], outputs: ['y'] },
      { op: 'Gather', inputs: ['shpf', 'i1'], outputs: ['cf'], attrs: { axis: 0 } },
      { op: 'Add', inputs: ['x', 'cf'], outputs: ['xc'] },
      { op: 'ReduceSum', inputs: ['ones'], outputs: ['s3'], attrs: { keepdims: 0 } },
      { op: 'Mul', inputs: ['xc', 's3'], outputs: ['z'] },
    ] },
  'Gather constant index on runtime tensor': one('Gather', [X4], { axis: 1 }, { inits: [i64('i', [2], [])], extraInputs: ['i'] }),
  'Cast float to int64 and back': { opset: 13, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 'y' }], inits: [f32('k', [3], [])],
    nodes: [{ op: 'Mul', inputs: ['x', 'k'], outputs: ['m'] }, { op: 'Cast', inputs: ['m'], outputs: ['i'], attrs: { to: 7 } },
      { op: 'Cast', inputs: ['i'], outputs: ['y'], attrs: { to: 1 } }] },
  'GELU as Erf subgraph': {
    opset: 13, inputs: [{ name: 'x', shape: [1, 4, 6] }], outputs: [{ name: 'y' }], expectLayer: 'GELU',
    inits: [f32('sqrt2', [Math.SQRT2], []), f32('one', [1], []), f32('half', [0.5], [])],
    nodes: [{ op: 'Div', inputs: ['x', 'sqrt2'], outputs: ['d'] }, { op: 'Erf', inputs: ['d'], outputs: ['e'] },
      { op: 'Add', inputs: ['e', 'one'], outputs: ['a'] }, { op: 'Mul', inputs: ['x', 'a'], outputs: ['m'] },
      { op: 'Mul', inputs: ['m', 'half'], outputs: ['y'] }] },
  'NHWC input Transpose absorbed': {
    opset: 13, inputs: [{ name: 'x', shape: [1, 6, 5, 3] }], outputs: [{ name: 'y' }], expectLayout: 'NHWC',
    inits: [w('mean', [3], 4), f32('s', [0.5], []), w('W', [4, 3, 3, 3], 9)],
    nodes: [{ op: 'Sub', inputs: ['x', 'mean'], outputs: ['a'] }, { op: 'Mul', inputs: ['a', 's'], outputs: ['b'] },
      { op: 'Transpose', inputs: ['b'], outputs: ['t'], attrs: { perm: [0, 3, 1, 2] } },
      { op: 'Conv', inputs: ['t', 'W'], outputs: ['c'], attrs: { pads: [1, 1, 1, 1] } },
      { op: 'Transpose', inputs: ['c'], outputs: ['y'], attrs: { perm: [0, 2, 3, 1] } }] },
  'Transpose pair cancels': {
    opset: 13, inputs: [{ name: 'x', shape: X4 }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['r'] }, { op: 'Transpose', inputs: ['r'], outputs: ['t'], attrs: { perm: [0, 2, 3, 1] } },
      { op: 'Transpose', inputs: ['t'], outputs: ['u'], attrs: { perm: [0, 3, 1, 2] } }, { op: 'Sigmoid', inputs: ['u'], outputs: ['y'] }] },
};

const dirs = [];
for (const [name, spec] of Object.entries(cases)) {
  test(`ONNX ${name}`, async (t) => {
    const bytes = makeModel(spec);
    const dir = tmpdir();
    dirs.push(dir);
    const onnxPath = path.join(dir, 'model.onnx');
    fs.writeFileSync(onnxPath, bytes);
    const rng = new Rng(5);
    const feeds = {};
    for (const inp of spec.inputs) feeds[inp.name] = { data: rng.fill(numel(inp.shape)), shape: inp.shape };
    const ref = await runOrt(bytes, feeds);
    // convert (native) and check what it wrote
    const param = path.join(dir, 'model.param'), bin = path.join(dir, 'model.bin');
    nnfold('native', ['convert', onnxPath, param, bin]);
    const io = JSON.parse(fs.readFileSync(path.join(dir, 'model.io.json'), 'utf8'));
    if (spec.expectLayer) assert.match(fs.readFileSync(param, 'utf8'), new RegExp(`^${spec.expectLayer}\\s`, 'm'));
    if (spec.expectLayout) assert.equal(io.inputs[0].layout, spec.expectLayout);
    const variants = selectedRunners().map((r) => [r, onnxPath]);
    variants.push(['native', [param, bin]]);
    for (const [which, model] of variants) {
      const { out } = runNnfold(which, model, feeds, [], path.join(dir, which + (Array.isArray(model) ? '-param' : '')));
      for (const [oname, r] of Object.entries(ref)) {
        assert.ok(out[oname], `${which}: output ${oname} missing`);
        assert.deepEqual(out[oname].shape, r.shape, `${which}: ${oname} shape`);
        const e = relErr(r.data, out[oname].data);
        assert.ok(e <= budget[which], `${which} ${Array.isArray(model) ? '.param' : '.onnx'} ${oname}: err ${e} > ${budget[which]}`);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
}
