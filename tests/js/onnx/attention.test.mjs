// fuse_qkv_attention (src/io/onnx/onnx_rewrite_attention.cpp) at the ONNX level: the timm-style
// qkv attention block (one qkv MatMul, Reshape to [1, N, 3, heads, d], permute (2,0,3,1,4), q/k/v by
// Split + Squeeze or by Gather) becomes one ncnn MultiHeadAttention layer, with the output
// projection absorbed when it follows, and matches onnxruntime-node within 1e-4 (docs/numbers.md;
// the rewrite moves the scale from the scores onto Q). The "must not fire" twins (a second reader
// of the scores, a batch of 2, a mask added to the scores) keep the 5-D graph, which still imports
// through the folded view (docs/shapes-and-files.md) and matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Rng, makeModel, nnfold, numel, relErr, runNnfold, runOrt, tensor, tmpdir, DataType } from './harness.mjs';

const TOL = 1e-4;
const i64 = (name, v) => tensor(name, [v.length], v, DataType.INT64);

function attention({ B = 1, N = 6, heads = 2, d = 4, Ein = 8, gather = false, proj = true, div = false, twin = null, seed = 4 } = {}) {
  const rng = new Rng(seed);
  const E = heads * d;
  const inits = [
    tensor('wqkv', [Ein, 3 * E], rng.fill(Ein * 3 * E, -0.4, 0.4)), tensor('bqkv', [3 * E], rng.fill(3 * E, -0.1, 0.1)),
    i64('s5', [B, N, 3, heads, d]), i64('s3', [B, N, E]),
    tensor('scale', [], [div ? Math.sqrt(d) : 1 / Math.sqrt(d)]),
  ];
  const nodes = [
    { op: 'MatMul', inputs: ['x', 'wqkv'], outputs: ['qkv0'] },
    { op: 'Add', inputs: ['bqkv', 'qkv0'], outputs: ['qkv'] },
    { op: 'Reshape', name: 'qkv_reshape', inputs: ['qkv', 's5'], outputs: ['q5'] },
    { op: 'Transpose', inputs: ['q5'], outputs: ['t'], attrs: { perm: [2, 0, 3, 1, 4] } },
  ];
  if (gather) {
    for (const [k, name] of ['q', 'k', 'v'].entries()) {
      inits.push(tensor(`i${k}`, [], [k], DataType.INT64));
      nodes.push({ op: 'Gather', inputs: ['t', `i${k}`], outputs: [name], attrs: { axis: 0 } });
    }
  } else {
    inits.push(i64('split', [1, 1, 1]), i64('ax0', [0]));
    nodes.push({ op: 'Split', inputs: ['t', 'split'], outputs: ['q1', 'k1', 'v1'], attrs: { axis: 0 } });
    for (const n of ['q', 'k', 'v']) nodes.push({ op: 'Squeeze', inputs: [`${n}1`, 'ax0'], outputs: [n] });
  }
  nodes.push(
    { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attrs: { perm: [0, 1, 3, 2] } },
    { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['s'] },
    { op: div ? 'Div' : 'Mul', inputs: ['s', 'scale'], outputs: ['ss'] },
  );
  let scores = 'ss';
  if (twin === 'mask') {
    inits.push(tensor('mask', [N, N], rng.fill(N * N, -1, 0)));
    nodes.push({ op: 'Add', inputs: ['ss', 'mask'], outputs: ['sm'] });
    scores = 'sm';
  }
  nodes.push(
    { op: 'Softmax', inputs: [scores], outputs: ['p'], attrs: { axis: -1 } },
    { op: 'MatMul', inputs: ['p', 'v'], outputs: ['o'] },
    { op: 'Transpose', inputs: ['o'], outputs: ['ot'], attrs: { perm: [0, 2, 1, 3] } },
    { op: 'Reshape', inputs: ['ot', 's3'], outputs: [proj ? 'z' : 'y'] },
  );
  if (proj) {
    inits.push(tensor('wo', [E, Ein], rng.fill(E * Ein, -0.4, 0.4)), tensor('bo', [Ein], rng.fill(Ein, -0.1, 0.1)));
    nodes.push({ op: 'MatMul', inputs: ['z', 'wo'], outputs: ['zo'] }, { op: 'Add', inputs: ['zo', 'bo'], outputs: ['y'] });
  }
  const outputs = [{ name: 'y' }];
  if (twin === 'scores_read') outputs.push({ name: 's' });
  return { bytes: makeModel({ opset: 13, inputs: [{ name: 'x', shape: [B, N, Ein] }], outputs, nodes, inits }), shape: [B, N, Ein] };
}

async function check(model, fused) {
  const feeds = { x: { data: new Rng(9).fill(numel(model.shape)), shape: model.shape } };
  const ref = await runOrt(model.bytes, feeds);
  const dir = tmpdir('nnfold-attn-');
  const file = path.join(dir, 'm.onnx');
  fs.writeFileSync(file, model.bytes);
  const base = path.join(dir, 'opt');
  nnfold('native', ['convert', file, base + '.param', base + '.bin', '--optimize']);
  const types = fs.readFileSync(base + '.param', 'utf8').trim().split('\n').slice(2).map((l) => l.trim().split(/\s+/)[0]);
  if (fused) assert.deepEqual(types, ['Input', 'MultiHeadAttention'], types.join(', '));
  else assert.ok(!types.includes('MultiHeadAttention'), types.join(', '));
  for (const m of [file, [base + '.param', base + '.bin']]) {
    const { out } = runNnfold('native', m, feeds, [], path.join(dir, Array.isArray(m) ? 'opt-run' : 'run'));
    for (const name of Object.keys(ref)) {
      assert.deepEqual(out[name].shape, ref[name].shape);
      const e = relErr(ref[name].data, out[name].data);
      assert.ok(e <= TOL, `${name}: err ${e} > ${TOL}`);
    }
  }
}

test('qkv attention with Split/Squeeze and an output projection -> one MultiHeadAttention', async () => {
  await check(attention(), true);
});

test('qkv attention with Gather, a divided scale and no projection -> one MultiHeadAttention', async () => {
  await check(attention({ gather: true, div: true, proj: false, Ein: 8 }), true);
});

test('qkv attention whose width differs from the projection input (Ein 12, E 8) is fused with its projection', async () => {
  await check(attention({ Ein: 12 }), true);
});

test('must not fire: the attention scores are also a graph output', async () => {
  await check(attention({ twin: 'scores_read' }), false);
});

test('must not fire: a batch of 2 (ncnn\'s MultiHeadAttention is batch-free)', async () => {
  await check(attention({ B: 2 }), false);
});

test('must not fire: a mask added to the scores', async () => {
  await check(attention({ twin: 'mask' }), false);
});

test('a model\'s own node of an internal type (nnfold.MultiHeadAttention) is refused, not translated', () => {
  const dir = tmpdir('nnfold-attn-');
  const file = path.join(dir, 'm.onnx');
  fs.writeFileSync(file, makeModel({
    inputs: [{ name: 'x', shape: [1, 4, 8] }],
    outputs: [{ name: 'y' }],
    nodes: [{ op: 'nnfold.MultiHeadAttention', name: 'inject', inputs: ['x'], outputs: ['y'] }],
  }));
  const r = nnfold('native', ['info', file], { allowFail: true });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /unsupported ONNX operator: nnfold\.MultiHeadAttention \('inject'\)/);
});
