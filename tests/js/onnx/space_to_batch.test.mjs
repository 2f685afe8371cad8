// Issue 19 item 4 at the ONNX level: a dilated convolution as TensorFlow exporters write it,
// SpaceToBatchND + Conv + BatchToSpaceND spelled as Pad / Reshape / Transpose through 6-D tensors
// (NCHW, and NHWC with the Conv between tf2onnx's Transposes), built with the tests' own writer
// (harness.mjs makeModel). The import rewrite fuse_space_to_batch (src/io/onnx/
// onnx_rewrite_space_to_batch.cpp) makes it one dilated Convolution, and the BatchNormalization
// after it then folds into the Convolution (`convert --optimize`): the layer list a complete
// fusion leaves is asserted and the outputs are compared with onnxruntime-node (1e-4).
// The "must not fire" twins (a second reader of the padded tensor, block sizes that differ between
// SpaceToBatch and BatchToSpace, a pad that is not zeros, a crop larger than the pad) keep the
// batched Conv the pattern spells, which ncnn's batch of 1 cannot run: onnxruntime runs each, and
// nnfold refuses it with the Conv's clear error instead of fusing it into something else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Rng, makeModel, nnfold, numel, relErr, runNnfold, runOrt, tensor, tmpdir, DataType } from './harness.mjs';

const TOL = 1e-4;
const i64 = (name, v) => tensor(name, [v.length], v, DataType.INT64);

// x [1,C,H,W] (NCHW) or [1,H,W,C] (NHWC); block bh x bw; pads [t,l,b,r] on the input, the Conv's
// own pads, crops [t,l,b,r] on the result; `bn` appends a BatchNormalization (NCHW) or a per-channel
// Mul/Add (NHWC); `twin` breaks one condition.
function s2bModel({ nhwc = false, C = 3, H = 10, W = 9, O = 4, k = 3, bh = 2, bw = 2, pads = [2, 2, 2, 3],
  convPads = [0, 0, 0, 0], crops = [0, 0, 0, 1], bn = true, twin = null, seed = 3 } = {}) {
  const rng = new Rng(seed);
  const [pt, pl, pb, pr] = pads;
  const Hp = H + pt + pb, Wp = W + pl + pr;
  assert.ok(Hp % bh === 0 && Wp % bw === 0, 'padded size must be a multiple of the block');
  const Hb = Hp / bh, Wb = Wp / bw;
  const h = Hb + convPads[0] + convPads[2] - (k - 1), w = Wb + convPads[1] + convPads[3] - (k - 1);
  const [ct, cl, cb, cr] = crops;
  // the BatchToSpace block (a twin may use another one with the same product)
  const [oh, ow] = twin === 'blocks' ? [bw, bh] : [bh, bw];
  const inits = [
    tensor('w', [O, C, k, k], rng.fill(O * C * k * k, -0.5, 0.5)), tensor('b', [O], rng.fill(O, -0.1, 0.1)),
    i64('pads', nhwc ? [0, pt, pl, 0, 0, pb, pr, 0] : [0, 0, pt, pl, 0, 0, pb, pr]),
    tensor('pad_value', [], [twin === 'pad_value' ? 0.5 : 0]),
    i64('s6', nhwc ? [1, Hb, bh, Wb, bw, C] : [1, C, Hb, bh, Wb, bw]),
    i64('s4', nhwc ? [bh * bw, Hb, Wb, C] : [bh * bw, C, Hb, Wb]),
    i64('s6o', nhwc ? [oh, ow, 1, h, w, O] : [oh, ow, 1, O, h, w]),
    i64('s4o', nhwc ? [1, h * oh, w * ow, O] : [1, O, h * oh, w * ow]),
    i64('c_starts', [ct, cl]), i64('c_ends', [h * oh - cb, w * ow - cr]), i64('c_axes', nhwc ? [1, 2] : [2, 3]),
  ];
  const nodes = [
    { op: 'Pad', name: 'pad', inputs: ['x', 'pads', 'pad_value'], outputs: ['xp'] },
    { op: 'Reshape', name: 's2b_reshape', inputs: ['xp', 's6'], outputs: ['a6'] },
    { op: 'Transpose', name: 's2b_transpose', inputs: ['a6'], outputs: ['t6'], attrs: { perm: nhwc ? [2, 4, 0, 1, 3, 5] : [3, 5, 0, 1, 2, 4] } },
    { op: 'Reshape', name: 's2b_batch', inputs: ['t6', 's4'], outputs: ['xb'] },
  ];
  let convIn = 'xb', convOut = 'yb';
  if (nhwc) {
    nodes.push({ op: 'Transpose', name: 'to_nchw', inputs: ['xb'], outputs: ['xb_nchw'], attrs: { perm: [0, 3, 1, 2] } });
    convIn = 'xb_nchw';
    convOut = 'yb_nchw';
  }
  nodes.push({ op: 'Conv', name: 'conv', inputs: [convIn, 'w', 'b'], outputs: [convOut], attrs: { pads: convPads } });
  if (nhwc) nodes.push({ op: 'Transpose', name: 'to_nhwc', inputs: ['yb_nchw'], outputs: ['yb'], attrs: { perm: [0, 2, 3, 1] } });
  nodes.push(
    { op: 'Reshape', name: 'b2s_reshape', inputs: ['yb', 's6o'], outputs: ['b6'] },
    { op: 'Transpose', name: 'b2s_transpose', inputs: ['b6'], outputs: ['u6'], attrs: { perm: nhwc ? [2, 3, 0, 4, 1, 5] : [2, 3, 4, 0, 5, 1] } },
    { op: 'Reshape', name: 'b2s_space', inputs: ['u6', 's4o'], outputs: ['ys'] },
    { op: 'Slice', name: 'crop', inputs: ['ys', 'c_starts', 'c_ends', 'c_axes'], outputs: [bn ? 'yc' : 'y'] },
  );
  if (bn && !nhwc) {
    inits.push(tensor('bn_s', [O], rng.fill(O, 0.5, 1.5)), tensor('bn_b', [O], rng.fill(O, -0.2, 0.2)),
      tensor('bn_m', [O], rng.fill(O, -0.2, 0.2)), tensor('bn_v', [O], rng.fill(O, 0.5, 1.5)));
    nodes.push({ op: 'BatchNormalization', name: 'bn', inputs: ['yc', 'bn_s', 'bn_b', 'bn_m', 'bn_v'], outputs: ['y'] });
  } else if (bn) {
    inits.push(tensor('k_mul', [O], rng.fill(O, 0.5, 1.5)), tensor('k_add', [O], rng.fill(O, -0.2, 0.2)));
    nodes.push({ op: 'Mul', name: 'scale', inputs: ['yc', 'k_mul'], outputs: ['ym'] },
      { op: 'Add', name: 'shift', inputs: ['ym', 'k_add'], outputs: ['y'] });
  }
  const outputs = [{ name: 'y' }];
  if (twin === 'second_reader') outputs.push({ name: 'xp' });
  const shape = nhwc ? [1, H, W, C] : [1, C, H, W];
  return { bytes: makeModel({ opset: 13, inputs: [{ name: 'x', shape }], outputs, nodes, inits }), shape };
}

function feeds(shape, seed = 11) { return { x: { data: new Rng(seed).fill(numel(shape)), shape } }; }

function convertOptimized(bytes) {
  const dir = tmpdir('nnfold-s2b-');
  const onnx = path.join(dir, 'm.onnx');
  fs.writeFileSync(onnx, bytes);
  const base = path.join(dir, 'opt');
  const r = nnfold('native', ['convert', onnx, base + '.param', base + '.bin', '--optimize'], { allowFail: true });
  if (r.status !== 0) return { dir, error: r.stderr };
  const lines = fs.readFileSync(base + '.param', 'utf8').trim().split('\n');
  return { dir, files: [base + '.param', base + '.bin'], types: lines.slice(2).map((l) => l.trim().split(/\s+/)[0]), params: lines };
}

async function fused(model, wantTypes, wantDilation = null) {
  const f = feeds(model.shape);
  const ref = await runOrt(model.bytes, f);
  const m = convertOptimized(model.bytes);
  assert.ok(!m.error, m.error);
  assert.deepEqual(m.types, wantTypes, `layers after optimize: ${m.types.join(', ')}`);
  if (wantDilation) {
    const conv = m.params.find((l) => l.startsWith('Convolution'));
    for (const kv of wantDilation) assert.ok(conv.split(/\s+/).includes(kv), `${kv} in ${conv}`);
  }
  // the optimized files and the .onnx itself (import without the optimizer)
  const dir = m.dir;
  for (const model2 of [m.files, path.join(dir, 'm.onnx')]) {
    const { out } = runNnfold('native', model2, f, [], path.join(dir, 'run' + (Array.isArray(model2) ? '-opt' : '')));
    assert.deepEqual(out.y.shape, ref.y.shape);
    const e = relErr(ref.y.data, out.y.data);
    assert.ok(e <= TOL, `err ${e} > ${TOL}`);
  }
}

async function notFused(model) {
  await runOrt(model.bytes, feeds(model.shape));  // a valid graph: the oracle runs it
  const m = convertOptimized(model.bytes);
  assert.ok(m.error, 'expected the unfused batched Conv to be refused');
  assert.match(m.error, /node 'conv' \(Conv\): batch size \d+ \(ncnn runs a batch of 1\)/);
}

test('NCHW SpaceToBatch + Conv + BatchToSpace + BatchNorm -> one dilated Convolution', async () => {
  // dilation 2 (param 2; 12 defaults to it) and pads 2 on every side after the crops (param 4;
  // 14/15/16 default to it)
  await fused(s2bModel(), ['Input', 'Convolution'], ['2=2', '4=2']);
});

test('NCHW with the Conv\'s own pads, a 3x2 block and no BatchNorm', async () => {
  await fused(s2bModel({ bh: 3, bw: 2, pads: [1, 0, 1, 1], H: 10, W: 9, convPads: [1, 1, 1, 1], crops: [1, 0, 2, 1], bn: false }),
    ['Input', 'Convolution'], ['2=2', '12=3']);
});

test('NHWC (the Conv between tf2onnx Transposes) with a per-channel Mul/Add after it', async () => {
  // the input Transpose is absorbed into the input (absorb_input_transpose); the Mul/Add fold
  // through the output Permute into the Convolution
  const m = s2bModel({ nhwc: true });
  const f = feeds(m.shape);
  const ref = await runOrt(m.bytes, f);
  const c = convertOptimized(m.bytes);
  assert.ok(!c.error, c.error);
  assert.deepEqual(c.types, ['Input', 'Convolution', 'Permute'], `layers after optimize: ${c.types.join(', ')}`);
  const { out } = runNnfold('native', c.files, f, [], path.join(c.dir, 'run'));
  assert.deepEqual(out.y.shape, ref.y.shape);
  assert.ok(relErr(ref.y.data, out.y.data) <= TOL);
});

test('must not fire: the padded tensor has a second reader', async () => {
  await notFused(s2bModel({ twin: 'second_reader' }));
});

test('must not fire: BatchToSpace uses other block sizes than SpaceToBatch', async () => {
  await notFused(s2bModel({ twin: 'blocks', bh: 2, bw: 3, pads: [2, 2, 2, 1], W: 9, H: 10, crops: [0, 0, 0, 0] }));
});

test('must not fire: the pad value is not zero', async () => {
  await notFused(s2bModel({ twin: 'pad_value' }));
});

test('must not fire: a crop larger than the pad (a negative pad would be needed)', async () => {
  await notFused(s2bModel({ pads: [0, 2, 2, 3], H: 10, crops: [1, 0, 0, 1] }));
});
