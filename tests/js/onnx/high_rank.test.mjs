// Tensors above ncnn's 4 axes at the ONNX level (docs/shapes-and-files.md):
// 5-D and 6-D graphs built with the tests' own writer (harness.mjs makeModel) run in
// onnxruntime-node and in nnfold (each selected runner, plain and after `convert --optimize`).
// Graphs that only move data must give the same bits as onnxruntime; arithmetic ones are held to
// 1e-4 (docs/numbers.md; plus the SIMD kernels' 1e-4 on the SIMD build). What nnfold cannot take
// is a clear error naming the node, the shape and the rank.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Rng, makeModel, nnfold, numel, relErr, runNnfold, runOrt, selectedRunners, tensor, tmpdir, DataType } from './harness.mjs';

const budget = { native: 1e-4, base: 1e-4, simd: 2e-4 };

// Runs `bytes` everywhere; `exact` asks for bit-identical outputs (data movement only), for every
// output or for those in `exactOutputs`.
async function check(bytes, inputs, { exact = false, exactOutputs = [], seed = 1 } = {}) {
  const rng = new Rng(seed);
  const feeds = Object.fromEntries(inputs.map((i) => [i.name, { data: rng.fill(numel(i.shape)), shape: i.shape }]));
  const ref = await runOrt(bytes, feeds);
  const dir = tmpdir('nnfold-nd-');
  const file = path.join(dir, 'm.onnx');
  fs.writeFileSync(file, bytes);
  const opt = path.join(dir, 'opt');
  nnfold('native', ['convert', file, opt + '.param', opt + '.bin', '--optimize']);
  const runs = selectedRunners().map((w) => [w, file]).concat([['native', [opt + '.param', opt + '.bin']]]);
  for (const [which, model] of runs) {
    const label = `${which}${Array.isArray(model) ? ' optimized' : ''}`;
    const { out } = runNnfold(which, model, feeds, [], path.join(dir, label.replace(' ', '-')));
    for (const name of Object.keys(ref)) {
      assert.ok(out[name], `${label}: output ${name} missing`);
      assert.deepEqual(out[name].shape, ref[name].shape, `${label} ${name} shape`);
      if (exact || exactOutputs.includes(name)) {
        assert.deepEqual(Buffer.from(out[name].data.buffer), Buffer.from(ref[name].data.buffer), `${label} ${name}: not bit-identical`);
      } else {
        const e = relErr(ref[name].data, out[name].data);
        assert.ok(e <= budget[which], `${label} ${name}: err ${e} > ${budget[which]}`);
      }
    }
  }
  return { dir, opt };
}

function refused(bytes, message) {
  const dir = tmpdir('nnfold-nd-');
  const file = path.join(dir, 'm.onnx');
  fs.writeFileSync(file, bytes);
  const r = nnfold('native', ['info', file], { allowFail: true });
  assert.equal(r.status, 1, r.stderr);
  for (const m of [message].flat()) assert.ok(r.stderr.includes(m), `expected "${m}" in:\n${r.stderr}`);
}

const i64 = (name, v) => tensor(name, [v.length], v, DataType.INT64);

test('a 6-D transpose whose six axes all move (several Permutes) is bit-identical', async () => {
  const shape = [2, 3, 4, 5, 3, 2];
  const perm = [5, 3, 1, 4, 2, 0];
  const bytes = makeModel({
    inputs: [{ name: 'x', shape }],
    outputs: [{ name: 'y' }],
    nodes: [{ op: 'Transpose', inputs: ['x'], outputs: ['y'], attrs: { perm } }],
  });
  await check(bytes, [{ name: 'x', shape }], { exact: true });
});

test('6-D window partition and its inverse (Swin) around a Relu is bit-identical', async () => {
  // [1, 8, 12, 5] -> [1, 2, 4, 3, 4, 5] -> perm (0,1,3,2,4,5) -> [6, 4, 4, 5] -> back
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [1, 8, 12, 5] }],
    outputs: [{ name: 'y' }],
    inits: [i64('s6', [1, 2, 4, 3, 4, 5]), i64('s4', [-1, 4, 4, 5]), i64('s6b', [1, 2, 3, 4, 4, 5]), i64('s_out', [1, 8, 12, 5])],
    nodes: [
      { op: 'Reshape', inputs: ['x', 's6'], outputs: ['a'] },
      { op: 'Transpose', inputs: ['a'], outputs: ['b'], attrs: { perm: [0, 1, 3, 2, 4, 5] } },
      { op: 'Reshape', inputs: ['b', 's4'], outputs: ['w'] },
      { op: 'Relu', inputs: ['w'], outputs: ['r'] },
      { op: 'Reshape', inputs: ['r', 's6b'], outputs: ['c'] },
      { op: 'Transpose', inputs: ['c'], outputs: ['d'], attrs: { perm: [0, 1, 3, 2, 4, 5] } },
      { op: 'Reshape', inputs: ['d', 's_out'], outputs: ['y'] },
    ],
  });
  await check(bytes, [{ name: 'x', shape: [1, 8, 12, 5] }], { exact: true });
});

test('batch-moved attention with batch 2 (qkv [2, N, 3, heads, d] permuted (2,0,3,1,4)) matches', async () => {
  const B = 2, N = 5, heads = 2, d = 4;
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [B, N, 3 * heads * d] }],
    outputs: [{ name: 'y' }],
    inits: [i64('s5', [B, N, 3, heads, d]), i64('split', [1, 1, 1]), i64('ax0', [0]), tensor('scale', [], [1 / Math.sqrt(d)]),
      i64('s3', [B, N, heads * d])],
    nodes: [
      { op: 'Reshape', inputs: ['x', 's5'], outputs: ['q5'] },
      { op: 'Transpose', inputs: ['q5'], outputs: ['qkv'], attrs: { perm: [2, 0, 3, 1, 4] } },
      { op: 'Split', inputs: ['qkv', 'split'], outputs: ['q1', 'k1', 'v1'], attrs: { axis: 0 } },
      { op: 'Squeeze', inputs: ['q1', 'ax0'], outputs: ['q'] },
      { op: 'Squeeze', inputs: ['k1', 'ax0'], outputs: ['k'] },
      { op: 'Squeeze', inputs: ['v1', 'ax0'], outputs: ['v'] },
      { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attrs: { perm: [0, 1, 3, 2] } },
      { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['s'] },
      { op: 'Mul', inputs: ['s', 'scale'], outputs: ['ss'] },
      { op: 'Softmax', inputs: ['ss'], outputs: ['p'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'v'], outputs: ['o'] },
      { op: 'Transpose', inputs: ['o'], outputs: ['ot'], attrs: { perm: [0, 2, 1, 3] } },
      { op: 'Reshape', inputs: ['ot', 's3'], outputs: ['y'] },
    ],
  });
  await check(bytes, [{ name: 'x', shape: [B, N, 3 * heads * d] }]);
});

test('a 5-D input through Slice, Concat, Gather, Split, Softmax and Reduce matches', async () => {
  const shape = [2, 3, 4, 5, 6];
  const bytes = makeModel({
    inputs: [{ name: 'x', shape }],
    outputs: [{ name: 'y' }, { name: 'g' }, { name: 's1' }, { name: 'm' }],
    inits: [i64('st', [1]), i64('en', [3]), i64('ax', [2]), tensor('idx', [], [1], DataType.INT64), i64('sp', [2, 4]),
      i64('rax', [1, 3])],
    nodes: [
      { op: 'Slice', inputs: ['x', 'st', 'en', 'ax'], outputs: ['sl'] },               // [2,3,2,5,6]
      { op: 'Concat', inputs: ['sl', 'x'], outputs: ['c'], attrs: { axis: 2 } },       // [2,3,6,5,6]
      { op: 'Softmax', inputs: ['c'], outputs: ['sm'], attrs: { axis: 1 } },
      { op: 'ReduceSum', inputs: ['sm', 'rax'], outputs: ['y'], attrs: { keepdims: 0 } },  // [2,6,6]
      { op: 'Gather', inputs: ['x', 'idx'], outputs: ['g'], attrs: { axis: 3 } },       // [2,3,4,6]
      { op: 'Split', inputs: ['x', 'sp'], outputs: ['s1', 's2'], attrs: { axis: 4 } },  // [2,3,4,5,2]
      { op: 'ReduceMax', inputs: ['s2'], outputs: ['m'], attrs: { axes: [0, 2], keepdims: 1 } },
    ],
    opset: 13,
  });
  // Gather and Split only move data: bit-identical
  await check(bytes, [{ name: 'x', shape }], { exactOutputs: ['g', 's1'] });
});

test('5-D and 6-D elementwise broadcasting and batched MatMul match', async () => {
  const rng = new Rng(5);
  const bytes = makeModel({
    inputs: [{ name: 'a', shape: [2, 3, 2, 4, 5] }, { name: 'b', shape: [2, 3, 2, 5, 3] }],
    outputs: [{ name: 'y' }, { name: 'z' }, { name: 'w' }],
    inits: [tensor('c', [3, 1, 4, 1], rng.fill(12)), tensor('wt', [3, 6], rng.fill(18)), tensor('e', [2, 1, 1, 1, 1, 3], rng.fill(6))],
    nodes: [
      { op: 'Add', inputs: ['a', 'c'], outputs: ['ac'] },           // [2,3,2,4,5] + [3,1,4,1]
      { op: 'Sigmoid', inputs: ['ac'], outputs: ['as'] },
      { op: 'MatMul', inputs: ['as', 'b'], outputs: ['y'] },        // [2,3,2,4,3]
      { op: 'MatMul', inputs: ['y', 'wt'], outputs: ['z'] },        // constant B: InnerProduct rows
      { op: 'Mul', inputs: ['y', 'e'], outputs: ['w'] },            // to 6-D [2,2,3,2,4,3]
    ],
  });
  await check(bytes, [{ name: 'a', shape: [2, 3, 2, 4, 5] }, { name: 'b', shape: [2, 3, 2, 5, 3] }]);
});

test('Expand to 5-D and 6-D (repeating data) and on a 5-D input matches bit for bit', async () => {
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [2, 3, 1, 5] }],
    outputs: [{ name: 'y' }, { name: 'z' }],
    inits: [i64('s5', [2, 2, 3, 4, 5]), i64('s6', [3, 2, 2, 3, 4, 5])],
    nodes: [
      { op: 'Expand', inputs: ['x', 's5'], outputs: ['y'] },
      { op: 'Expand', inputs: ['y', 's6'], outputs: ['z'] },
    ],
  });
  await check(bytes, [{ name: 'x', shape: [2, 3, 1, 5] }], { exact: true });
});

test('Tile of runtime tensors (4-D on two axes, 6-D) is bit-identical', async () => {
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [1, 3, 4, 5] }, { name: 'w', shape: [2, 1, 3, 1, 2, 2] }],
    outputs: [{ name: 'y' }, { name: 'z' }],
    inits: [i64('r4', [1, 2, 1, 3]), i64('r6', [1, 2, 1, 2, 1, 3])],
    nodes: [
      { op: 'Tile', inputs: ['x', 'r4'], outputs: ['y'] },
      { op: 'Tile', inputs: ['w', 'r6'], outputs: ['z'] },
    ],
  });
  await check(bytes, [{ name: 'x', shape: [1, 3, 4, 5] }, { name: 'w', shape: [2, 1, 3, 1, 2, 2] }], { exact: true });
});

test('above 4 axes, what nnfold cannot take is a clear error naming the node, shape and rank', () => {
  // an operator without a high-rank path
  refused(makeModel({
    inputs: [{ name: 'x', shape: [2, 3, 4, 5, 6] }],
    outputs: [{ name: 'y' }],
    inits: [tensor('g', [6], new Float32Array(6).fill(1))],
    nodes: [{ op: 'InstanceNormalization', name: 'inorm', inputs: ['x', 'g', 'g'], outputs: ['y'] }],
  }), ["node 'inorm' (InstanceNormalization)", '[2,3,4,5,6] (rank 5'], );
  // an output of such a rank from an operator without one
  refused(makeModel({
    inputs: [{ name: 'x', shape: [2, 3, 4, 5] }],
    outputs: [{ name: 'y' }],
    inits: [tensor('zero', [], [0]), tensor('k', [2, 1, 1, 1, 1], [1, 2])],
    nodes: [
      { op: 'Greater', inputs: ['x', 'zero'], outputs: ['c'] },
      { op: 'Where', name: 'wh', inputs: ['c', 'x', 'k'], outputs: ['y'] },
    ],
  }), ["node 'wh' (Where)", '[2,2,3,4,5] (rank 5']);
  // broadcasting that alternates along 6 axes
  refused(makeModel({
    inputs: [{ name: 'a', shape: [2, 1, 2, 1, 2, 1] }, { name: 'b', shape: [1, 2, 1, 2, 1, 2] }],
    outputs: [{ name: 'y' }],
    nodes: [{ op: 'Add', name: 'alt', inputs: ['a', 'b'], outputs: ['y'] }],
  }), ["node 'alt' (Add)", 'alternates along more than 4 axes (rank 6)']);
  // rank 7
  refused(makeModel({
    inputs: [{ name: 'x', shape: [2, 2, 2, 2, 2, 2, 2] }],
    outputs: [{ name: 'y' }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
  }), ['[2,2,2,2,2,2,2] has rank 7', 'up to 6 dimensions']);
  // a 6-D size that overflows 64 bits
  refused(makeModel({
    inputs: [{ name: 'x', shape: [65536, 65536, 65536, 65536, 65536, 2] }],
    outputs: [{ name: 'y' }],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
  }), ['is too large']);
});
