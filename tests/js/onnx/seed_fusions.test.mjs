// The fusions of issue 19 at the ONNX level: small graphs shaped the way exporters write them
// (built with the tests' own writer, harness.mjs makeModel), converted with `nnfold convert
// --optimize` by the native CLI, the layer count a complete fusion leaves asserted, and the
// optimized model's outputs compared with onnxruntime-node (1e-4, docs/numbers.md), each with
// a "must not fire" twin.
//
// Covered here: per-channel affine math with nothing to fold into (after pooling or a concat),
// written as Mul/Add/Sub/Div with constants or as Keras' fused=False BatchNormalization in small
// ops (center / scale on and off), which becomes one Scale layer; scalar chains; a Convolution
// between NHWC transposes followed by a small-op BatchNorm on [C] (NHWC and NCHW, with and without
// the convolution's bias, fixed and unknown sizes), which leaves the Convolution and one Permute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Rng, makeModel, nnfold, relErr, runNnfold, runOrt, tensor, tmpdir } from './harness.mjs';

const TOL = 1e-4;

// Converts with --optimize (the user's path); with `optArgs` (e.g. --keep=m), converts plain and
// runs `nnfold optimize` with them, the conversion's .io.json (input/output layouts) carried over.
// Returns the optimized model's files and its layer types.
function convertOptimized(bytes, optArgs = [], convertArgs = []) {
  const dir = tmpdir('nnfold-seed-');
  const onnx = path.join(dir, 'm.onnx');
  fs.writeFileSync(onnx, bytes);
  const base = path.join(dir, 'opt');
  if (optArgs.length === 0) {
    nnfold('native', ['convert', onnx, base + '.param', base + '.bin', '--optimize', ...convertArgs]);
  } else {
    const plain = path.join(dir, 'plain');
    nnfold('native', ['convert', onnx, plain + '.param', plain + '.bin', ...convertArgs]);
    nnfold('native', ['optimize', plain + '.param', plain + '.bin', base + '.param', base + '.bin', ...optArgs]);
    fs.copyFileSync(plain + '.io.json', base + '.io.json');
  }
  const lines = fs.readFileSync(base + '.param', 'utf8').trim().split('\n');
  const types = lines.slice(2).map((l) => l.trim().split(/\s+/)[0]);
  return { dir, onnx, files: [base + '.param', base + '.bin'], types };
}

async function check(bytes, feeds, wantTypes, extra = [], convertArgs = []) {
  const ref = await runOrt(bytes, feeds);
  const m = convertOptimized(bytes, extra, convertArgs);
  if (wantTypes) assert.deepEqual([...m.types].sort(), [...wantTypes].sort(), `layers after optimize: ${m.types.join(', ')}`);
  const { out } = runNnfold('native', m.files, feeds, [], path.join(m.dir, 'run'));
  for (const name of Object.keys(ref)) {
    assert.ok(out[name], `output ${name} missing`);
    assert.deepEqual(out[name].shape, ref[name].shape, `${name} shape`);
    const e = relErr(ref[name].data, out[name].data);
    assert.ok(e <= TOL, `${name}: err ${e} > ${TOL}`);
  }
  return m;
}

const C = 6, H = 5, W = 7;

function feeds(seed, shape = [1, C, H, W]) {
  return { x: { data: new Rng(seed).fill(shape.reduce((a, b) => a * b, 1)), shape } };
}

// Keras BatchNormalization(fused=False) at inference, as tf2onnx writes it before constant folding:
// rsqrt(var + eps) * gamma, then x * that + (beta - mean * that). `center` false drops beta,
// `scale` false drops gamma. The constants are per channel, shaped [C,1,1] for NCHW.
function smallOpBN(rng, input, output, { center = true, scale = true, cshape = [C, 1, 1] } = {}) {
  const n = C;
  const pos = (k) => Float32Array.from(rng.fill(n, 0.5, 2.0));
  const inits = [tensor('bn_var', cshape, pos()), tensor('bn_eps', [], [1e-3]), tensor('bn_mean', cshape, rng.fill(n))];
  const nodes = [
    { op: 'Add', inputs: ['bn_var', 'bn_eps'], outputs: ['bn_ve'] },
    { op: 'Sqrt', inputs: ['bn_ve'], outputs: ['bn_sd'] },
    { op: 'Reciprocal', inputs: ['bn_sd'], outputs: ['bn_rs'] },
  ];
  let mulBy = 'bn_rs';
  if (scale) {
    inits.push(tensor('bn_gamma', cshape, pos()));
    nodes.push({ op: 'Mul', inputs: ['bn_rs', 'bn_gamma'], outputs: ['bn_k'] });
    mulBy = 'bn_k';
  }
  nodes.push({ op: 'Mul', inputs: [input, mulBy], outputs: ['bn_xk'] });
  nodes.push({ op: 'Mul', inputs: ['bn_mean', mulBy], outputs: ['bn_mk'] });
  if (center) {
    inits.push(tensor('bn_beta', cshape, rng.fill(n)));
    nodes.push({ op: 'Sub', inputs: ['bn_beta', 'bn_mk'], outputs: ['bn_shift'] });
    nodes.push({ op: 'Add', inputs: ['bn_xk', 'bn_shift'], outputs: [output] });
  } else {
    nodes.push({ op: 'Sub', inputs: ['bn_xk', 'bn_mk'], outputs: [output] });
  }
  return { nodes, inits };
}

const pool = { op: 'MaxPool', inputs: ['x'], outputs: ['p'], attrs: { kernel_shape: [3, 3], strides: [1, 1], pads: [1, 1, 1, 1] } };

for (const center of [true, false]) {
  for (const scale of [true, false]) {
    test(`small-op BatchNorm (center ${center}, scale ${scale}) after a pooling becomes one Scale`, async () => {
      const bn = smallOpBN(new Rng(11), 'p', 'y', { center, scale });
      const bytes = makeModel({
        inputs: [{ name: 'x', shape: [1, C, H, W] }],
        outputs: [{ name: 'y' }],
        nodes: [pool, ...bn.nodes],
        inits: bn.inits,
      });
      await check(bytes, feeds(1), ['Input', 'Pooling', 'Scale']);
    });
  }
}

test('per-channel Mul + Add after a channel Concat becomes one Scale ([C] and [C,1,1] constants)', async () => {
  for (const cshape of [[C, 1, 1], [1, C, 1, 1]]) {
    const rng = new Rng(3);
    const bytes = makeModel({
      inputs: [{ name: 'x', shape: [1, C / 2, H, W] }, { name: 'z', shape: [1, C / 2, H, W] }],
      outputs: [{ name: 'y' }],
      nodes: [
        { op: 'Concat', inputs: ['x', 'z'], outputs: ['c'], attrs: { axis: 1 } },
        { op: 'Mul', inputs: ['c', 's'], outputs: ['m'] },
        { op: 'Div', inputs: ['m', 'd'], outputs: ['q'] },
        { op: 'Sub', inputs: ['q', 't'], outputs: ['y'] },
      ],
      inits: [tensor('s', cshape, rng.fill(C)), tensor('d', cshape, rng.fill(C, 0.5, 2)), tensor('t', cshape, rng.fill(C))],
    });
    const f = { x: feeds(4, [1, C / 2, H, W]).x, z: feeds(5, [1, C / 2, H, W]).x };
    await check(bytes, f, ['Input', 'Input', 'Concat', 'Scale']);
  }
});

test('a scalar chain shrinks to one multiply and one add', async () => {
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [1, C, H, W] }],
    outputs: [{ name: 'y' }],
    nodes: [
      pool,
      { op: 'Mul', inputs: ['p', 'a'], outputs: ['m1'] },
      { op: 'Add', inputs: ['m1', 'b'], outputs: ['m2'] },
      { op: 'Div', inputs: ['m2', 'c'], outputs: ['m3'] },
      { op: 'Sub', inputs: ['m3', 'b'], outputs: ['y'] },
    ],
    inits: [tensor('a', [], [1.5]), tensor('b', [], [0.25]), tensor('c', [], [4])],
  });
  await check(bytes, feeds(2), ['Input', 'Pooling', 'BinaryOp', 'BinaryOp']);
});

test('must not fire: a constant that is not per channel, a second reader, a kept blob', async () => {
  const rng = new Rng(9);
  // [1,C,H,W] constant: elementwise, not per channel: the Mul stays (its Add still becomes a Scale)
  const full = makeModel({
    inputs: [{ name: 'x', shape: [1, C, H, W] }],
    outputs: [{ name: 'y' }],
    nodes: [pool, { op: 'Mul', inputs: ['p', 's'], outputs: ['m'] }, { op: 'Add', inputs: ['m', 't'], outputs: ['y'] }],
    inits: [tensor('s', [1, C, H, W], rng.fill(C * H * W)), tensor('t', [C, 1, 1], rng.fill(C))],
  });
  const a = await check(full, feeds(6));
  assert.ok(a.types.includes('BinaryOp') && a.types.includes('MemoryData'), a.types.join(', '));
  // the blob between the Mul and the Add is also a model output: two Scales, m keeps its values
  const second = makeModel({
    inputs: [{ name: 'x', shape: [1, C, H, W] }],
    outputs: [{ name: 'y' }, { name: 'm' }],
    nodes: [pool, { op: 'Mul', inputs: ['p', 's'], outputs: ['m'] }, { op: 'Add', inputs: ['m', 't'], outputs: ['y'] }],
    inits: [tensor('s', [C, 1, 1], rng.fill(C)), tensor('t', [C, 1, 1], rng.fill(C))],
  });
  const b = await check(second, feeds(7), ['Input', 'Pooling', 'Scale', 'Scale']);
  // kept with --keep: the same
  const single = makeModel({
    inputs: [{ name: 'x', shape: [1, C, H, W] }],
    outputs: [{ name: 'y' }],
    nodes: [pool, { op: 'Mul', inputs: ['p', 's'], outputs: ['m'] }, { op: 'Add', inputs: ['m', 't'], outputs: ['y'] }],
    inits: [tensor('s', [C, 1, 1], rng.fill(C)), tensor('t', [C, 1, 1], rng.fill(C))],
  });
  await check(single, feeds(8), ['Input', 'Pooling', 'Scale', 'Scale'], ['--keep=m']);
  assert.ok(b);
});

// Keras NHWC: x [1,H,W,3] -> Transpose to NCHW -> Conv -> Transpose back -> small-op BN on [C]
// (constants of shape [C]: along the last axis). NCHW: no transposes, constants [C,1,1].
function convBN({ nhwc, bias, center, scale, unknown = false }) {
  const rng = new Rng(21);
  const Cin = 3;
  const nodes = [];
  const inits = [tensor('w', [C, Cin, 3, 3], rng.fill(C * Cin * 9))];
  let cin = 'x';
  if (nhwc) {
    nodes.push({ op: 'Transpose', inputs: ['x'], outputs: ['xt'], attrs: { perm: [0, 3, 1, 2] } });
    cin = 'xt';
  }
  const convIn = [cin, 'w'];
  if (bias) {
    inits.push(tensor('b', [C], rng.fill(C)));
    convIn.push('b');
  }
  nodes.push({ op: 'Conv', inputs: convIn, outputs: ['c'], attrs: { kernel_shape: [3, 3], pads: [1, 1, 1, 1] } });
  let bnIn = 'c';
  if (nhwc) {
    nodes.push({ op: 'Transpose', inputs: ['c'], outputs: ['ct'], attrs: { perm: [0, 2, 3, 1] } });
    bnIn = 'ct';
  }
  const bn = smallOpBN(rng, bnIn, 'y', { center, scale, cshape: nhwc ? [C] : [C, 1, 1] });
  const shape = nhwc ? (unknown ? [1, 'H', 'W', Cin] : [1, H, W, Cin]) : (unknown ? [1, Cin, 'H', 'W'] : [1, Cin, H, W]);
  return {
    bytes: makeModel({ inputs: [{ name: 'x', shape }], outputs: [{ name: 'y' }], nodes: [...nodes, ...bn.nodes], inits: [...inits, ...bn.inits] }),
    feedShape: nhwc ? [1, H, W, Cin] : [1, Cin, H, W],
  };
}

for (const nhwc of [true, false]) {
  for (const bias of [true, false]) {
    for (const [center, scale] of [[true, true], [false, true], [true, false], [false, false]]) {
      test(`Conv${nhwc ? ' between NHWC transposes' : ' (NCHW)'}${bias ? ' with bias' : ''} + small-op BN (center ${center}, scale ${scale}) folds`, async () => {
        const m = convBN({ nhwc, bias, center, scale });
        await check(m.bytes, feeds(30, m.feedShape), nhwc ? ['Input', 'Convolution', 'Permute'] : ['Input', 'Convolution']);
      });
    }
  }
}

test('NHWC and NCHW Conv + small-op BN with symbolic sizes (given at conversion) fold', async () => {
  for (const nhwc of [true, false]) {
    const m = convBN({ nhwc, bias: true, center: true, scale: true, unknown: true });
    await check(m.bytes, feeds(31, m.feedShape), nhwc ? ['Input', 'Convolution', 'Permute'] : ['Input', 'Convolution'], [],
      ['--shape', `x=${m.feedShape.join(',')}`]);
  }
});

test('must not fire (NHWC): the transposed blob is also a model output', async () => {
  const m = convBN({ nhwc: true, bias: true, center: true, scale: true });
  // same graph, with 'ct' (the NHWC conv output) also an output: the Permute cannot move below the BN
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [1, H, W, 3] }],
    outputs: [{ name: 'y' }, { name: 'ct' }],
    nodes: [
      { op: 'Transpose', inputs: ['x'], outputs: ['xt'], attrs: { perm: [0, 3, 1, 2] } },
      { op: 'Conv', inputs: ['xt', 'w'], outputs: ['c'], attrs: { kernel_shape: [3, 3], pads: [1, 1, 1, 1] } },
      { op: 'Transpose', inputs: ['c'], outputs: ['ct'], attrs: { perm: [0, 2, 3, 1] } },
      { op: 'Mul', inputs: ['ct', 's'], outputs: ['m'] },
      { op: 'Add', inputs: ['m', 't'], outputs: ['y'] },
    ],
    inits: [tensor('w', [C, 3, 3, 3], new Rng(5).fill(C * 27)), tensor('s', [C], new Rng(6).fill(C)), tensor('t', [C], new Rng(7).fill(C))],
  });
  // the constants run along the NHWC output's last axis, which no Scale can take: all stays
  await check(bytes, feeds(32, m.feedShape), ['Input', 'Convolution', 'Permute', 'MemoryData', 'BinaryOp', 'MemoryData', 'BinaryOp']);
});

// MatMul (+ bias Add) -> Reshape to 4D -> (NHWC: Transpose to NCHW) -> BatchNormalization ->
// (Transpose back) -> Reshape to the MatMul's shape: the seed's MatMul + BN, folded into one
// InnerProduct whatever the layout, bias, or how the sizes were given.
function matmulBN({ nhwc, bias, symbolic = false }) {
  const rng = new Rng(41);
  const K = 8, N = C;
  const nodes = [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['mm'] }];
  const inits = [tensor('w', [K, N], rng.fill(K * N)), tensor('shp', [4], nhwc ? [1, 1, 1, N] : [1, N, 1, 1], 7),
    tensor('shp2', [2], [1, N], 7), tensor('g', [N], rng.fill(N)), tensor('bb', [N], rng.fill(N)),
    tensor('mean', [N], rng.fill(N)), tensor('var', [N], rng.fill(N, 0.5, 2))];
  let cur = 'mm';
  if (bias) {
    inits.push(tensor('bias', [N], rng.fill(N)));
    nodes.push({ op: 'Add', inputs: ['mm', 'bias'], outputs: ['mb'] });
    cur = 'mb';
  }
  nodes.push({ op: 'Reshape', inputs: [cur, 'shp'], outputs: ['r'] });
  cur = 'r';
  if (nhwc) {
    nodes.push({ op: 'Transpose', inputs: ['r'], outputs: ['rt'], attrs: { perm: [0, 3, 1, 2] } });
    cur = 'rt';
  }
  nodes.push({ op: 'BatchNormalization', inputs: [cur, 'g', 'bb', 'mean', 'var'], outputs: ['bn'], attrs: { epsilon: 1e-3 } });
  cur = 'bn';
  if (nhwc) {
    nodes.push({ op: 'Transpose', inputs: ['bn'], outputs: ['bt'], attrs: { perm: [0, 2, 3, 1] } });
    cur = 'bt';
  }
  nodes.push({ op: 'Reshape', inputs: [cur, 'shp2'], outputs: ['y'] });
  return makeModel({ inputs: [{ name: 'x', shape: symbolic ? ['B', K] : [1, K] }], outputs: [{ name: 'y' }], nodes, inits });
}

for (const nhwc of [true, false]) {
  for (const bias of [true, false]) {
    for (const symbolic of [false, true]) {
      test(`MatMul${bias ? ' + bias' : ''} -> Reshape -> ${nhwc ? 'Transpose -> BN -> Transpose' : 'BN'} -> Reshape (${symbolic ? 'symbolic' : 'fixed'} sizes) is one InnerProduct`, async () => {
        const bytes = matmulBN({ nhwc, bias, symbolic });
        await check(bytes, { x: { data: new Rng(42).fill(8), shape: [1, 8] } }, ['Input', 'InnerProduct'], [],
          symbolic ? ['--shape', 'x=1,8'] : []);
      });
    }
  }
}

test('must not fire: MatMul + BN where the reshaped blob has a second reader', async () => {
  // (with the Reshape's output itself a model output, the onnxruntime-node used here segfaults; a second reader
  // asks the same question)
  const rng = new Rng(43);
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [1, 8] }],
    outputs: [{ name: 'y' }, { name: 'z' }],
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['mm'] },
      { op: 'Reshape', inputs: ['mm', 'shp'], outputs: ['r'] },
      { op: 'BatchNormalization', inputs: ['r', 'g', 'bb', 'mean', 'var'], outputs: ['y'] },
      { op: 'Relu', inputs: ['r'], outputs: ['z'] },
    ],
    inits: [tensor('w', [8, C], rng.fill(8 * C)), tensor('shp', [4], [1, C, 1, 1], 7), tensor('g', [C], rng.fill(C)),
      tensor('bb', [C], rng.fill(C)), tensor('mean', [C], rng.fill(C)), tensor('var', [C], rng.fill(C, 0.5, 2))],
  });
  const m = await check(bytes, { x: { data: new Rng(44).fill(8), shape: [1, 8] } });
  assert.ok(m.types.includes('BatchNorm'), m.types.join(', '));
});

test('optimize says how many candidates unknown shapes refused and which --shape unlocks them', () => {
  const dir = tmpdir('nnfold-seed-');
  const param = path.join(dir, 'm.param');
  fs.writeFileSync(param, '7767517\n6 6\nInput data 0 1 data\nReLU r 1 1 data x\nMemoryData s 0 1 s 0=3\n' +
    'MemoryData t 0 1 t 0=3\nBinaryOp mul 2 1 x s m 0=2\nBinaryOp add 2 1 m t out 0=0\n');
  const o = (f) => path.join(dir, f);
  const r = nnfold('native', ['optimize', param, 'null', o('a.param'), o('a.bin'), `--report=${o('a.json')}`]);
  const lines = r.stderr.trim().split('\n');
  assert.match(lines.at(-2), /^unknown shapes: \d+ candidates? refused; give --shape for: data$/, r.stderr);
  const rep = JSON.parse(fs.readFileSync(o('a.json'), 'utf8'));
  assert.ok(rep.unknown_shapes.refused >= 1);
  assert.deepEqual(rep.unknown_shapes.inputs, ['data']);
  // with the shape: the Mul and Add become one Scale, nothing left to report
  const r2 = nnfold('native', ['optimize', param, 'null', o('b.param'), o('b.bin'), '--shape', 'data=3,6,7', `--report=${o('b.json')}`]);
  assert.ok(!r2.stderr.includes('unknown shapes'), r2.stderr);
  assert.deepEqual(JSON.parse(fs.readFileSync(o('b.json'), 'utf8')).unknown_shapes, { refused: 0, inputs: [] });
  assert.match(fs.readFileSync(o('b.param'), 'utf8'), /\nScale +mul /);
});

// Batched MatMul with a constant B and a constant bias Add (the seed's BatchMatMul + BiasAdd):
// the bias goes into the InnerProduct ncnn runs it with, for 2D, 3D and 4D inputs.
for (const xs of [[5, 8], [1, 5, 8], [1, 2, 5, 8], [2, 5, 8]]) {
  test(`MatMul [${xs}] x constant [8,6] + bias [6]: the bias folds (${xs.length}D)`, async () => {
    const rng = new Rng(51);
    const bytes = makeModel({
      inputs: [{ name: 'x', shape: xs }], outputs: [{ name: 'y' }],
      nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['mm'] }, { op: 'Add', inputs: ['b', 'mm'], outputs: ['y'] }],
      inits: [tensor('w', [8, 6], rng.fill(48)), tensor('b', [6], rng.fill(6))],
    });
    const m = await check(bytes, { x: { data: new Rng(52).fill(xs.reduce((a, b) => a * b, 1)), shape: xs } });
    assert.ok(!m.types.includes('BinaryOp') && !m.types.includes('MemoryData'), m.types.join(', '));
    assert.equal(m.types.filter((t) => t === 'InnerProduct').length, 1, m.types.join(', '));
  });
}

test('must not fire: batched MatMul + a bias that varies along the rows', async () => {
  const rng = new Rng(53);
  const bytes = makeModel({
    inputs: [{ name: 'x', shape: [1, 2, 5, 8] }], outputs: [{ name: 'y' }],
    nodes: [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['mm'] }, { op: 'Add', inputs: ['mm', 'b'], outputs: ['y'] }],
    inits: [tensor('w', [8, 6], rng.fill(48)), tensor('b', [5, 1], rng.fill(5))],
  });
  const m = await check(bytes, { x: { data: new Rng(54).fill(80), shape: [1, 2, 5, 8] } });
  assert.ok(m.types.includes('BinaryOp'), m.types.join(', '));
});
