// The page's pure modules added for issue 17, in Node (no browser): reading an ONNX file's
// inputs (the tests' own ONNX writer makes the files), size guesses from dimension names, safe
// file names, the zip (read back with fflate's unzip), top-k, and the speed verdict's rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { encodeModel, DataType } from '../js/onnx/onnx_proto.mjs';
import { readOnnxInputs, needsShape, guessShape, describeDims } from '../../web/src/onnx-inputs.mjs';
import { safeFileName, zipFiles, topK, speedVerdict, unknownShapesNote } from '../../web/src/results.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { needs, zoo, zooFixture } from '../js/helpers.mjs';

const vi = (name, shape) => ({
  name,
  type: { tensor_type: { elem_type: DataType.FLOAT, shape: shape ? { dim: shape.map((d) => (typeof d === 'string' ? { dim_param: d } : { dim_value: d })) } : undefined } },
});

test('ONNX inputs: names, fixed and symbolic dims, no shape, weights listed as inputs skipped', () => {
  const bytes = encodeModel({
    ir_version: 7,
    graph: {
      name: 'g',
      node: [{ op_type: 'Add', input: ['x', 'w'], output: ['y'] }],
      initializer: [{ name: 'w', dims: [1], data_type: DataType.FLOAT, raw_data: Buffer.alloc(4 * 1024 * 1024) }],
      input: [vi('x', ['N', 3, 'height', 'width']), vi('w', [1]), vi('tokens', null), vi('fixed', [1, 8])],
      output: [vi('y', null)],
    },
  });
  const inputs = readOnnxInputs(bytes);
  assert.deepEqual(inputs.map((i) => i.name), ['x', 'tokens', 'fixed']);
  assert.deepEqual(inputs[0].dims, [{ value: null, name: 'N' }, { value: 3, name: null }, { value: null, name: 'height' }, { value: null, name: 'width' }]);
  assert.equal(inputs[0].elemType, DataType.FLOAT);
  assert.equal(inputs[1].dims, null);
  assert.deepEqual(inputs.map(needsShape), [true, true, false]);
  assert.equal(describeDims(inputs[0]), 'N, 3, height, width');
  assert.throws(() => readOnnxInputs(new TextEncoder().encode('<html>not a model</html>')));
  assert.throws(() => readOnnxInputs(bytes.subarray(0, bytes.length - 100)));
});

test('size guesses: batch 1, NCHW and NHWC spatial 224, channels 3, sequences 128, fixed kept', () => {
  const d = (...xs) => ({ dims: xs.map((x) => (typeof x === 'string' ? { value: null, name: x } : { value: x, name: null })) });
  assert.deepEqual(guessShape(d('batch', 3, 'height', 'width')), [1, 3, 224, 224]);
  assert.deepEqual(guessShape(d('N', 'H', 'W', 3)), [1, 224, 224, 3]);
  assert.deepEqual(guessShape(d('unk__1', 3, 'unk__2', 'unk__3')), [1, 3, 224, 224]);
  assert.deepEqual(guessShape(d('batch', 'channels', 32, 32)), [1, 3, 32, 32]);
  assert.deepEqual(guessShape(d('batch', 'sequence_length')), [1, 128]);
  assert.deepEqual(guessShape(d(1, 'p', 4)), [1, 1, 4]);
  assert.deepEqual(guessShape({ dims: null }), [1, 3, 224, 224]);
});

test('file names: safe on every OS, extension kept, device names and dot-files defused', () => {
  assert.equal(safeFileName('BlazeFace front 128', '.opt.zip'), 'BlazeFace_front_128.opt.zip');
  assert.equal(safeFileName('../../etc/passwd', '.param'), 'etc_passwd.param');
  assert.equal(safeFileName('con', '.param'), 'con_.param');
  assert.equal(safeFileName('LPT1.model'), 'LPT1_.model');
  assert.equal(safeFileName('a:b*c?"d<e>f|g'), 'a_b_c_d_e_f_g');
  assert.equal(safeFileName('.hidden.'), 'hidden');
  assert.equal(safeFileName('名前'), 'model');
  assert.ok(safeFileName('x'.repeat(500), '.bin').length <= 120);
  assert.ok(safeFileName('x'.repeat(500), '.bin').endsWith('.bin'));
});

test('zip: every file back byte for byte', () => {
  const bin = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) & 255);
  const zip = unzipSync(zipFiles([{ name: 'm.param', data: '7767517\n' }, { name: 'm.bin', data: bin }]));
  assert.deepEqual(Object.keys(zip), ['m.param', 'm.bin']);
  assert.equal(new TextDecoder().decode(zip['m.param']), '7767517\n');
  assert.ok(Buffer.from(bin).equals(Buffer.from(zip['m.bin'])));
});

test('top-k: one axis of scores; softmax unless already probabilities; not for feature maps', () => {
  const logits = new Float32Array(1000).fill(0);
  logits[7] = 5;
  logits[900] = 4;
  const t = topK({ data: logits, shape: [1, 1000] }, 3);
  assert.equal(t.classes, 1000);
  assert.equal(t.softmax, true);
  assert.deepEqual(t.items.map((x) => x.index), [7, 900, 0]);
  const z = Math.exp(5) + Math.exp(4) + 998;
  assert.ok(Math.abs(t.items[0].prob - Math.exp(5) / z) < 1e-9);
  const probs = new Float32Array(10).fill(0.05);
  probs[3] = 0.55;
  const p = topK({ data: probs, shape: [10] }, 2);
  assert.equal(p.softmax, false);
  assert.equal(p.items[0].index, 3);
  assert.ok(Math.abs(p.items[0].prob - 0.55) < 1e-6);
  assert.equal(topK({ data: new Float32Array(64), shape: [4, 4, 4] }), null);
  assert.equal(topK({ data: new Float32Array(4), shape: [4] }), null);
});

test('speed verdict: medians closer than the larger IQR are no measurable difference', () => {
  const m = (median_ms, iqr_ms) => ({ median_ms, iqr_ms });
  assert.equal(speedVerdict(m(10, 1), m(9.2, 0.2)).measurable, false);
  assert.equal(speedVerdict(m(10, 0.2), m(9.2, 1)).measurable, false);
  assert.equal(speedVerdict(m(10, 0), m(10, 0)).measurable, false);
  const f = speedVerdict(m(10, 0.5), m(8, 0.5));
  assert.equal(f.measurable, true);
  assert.equal(f.faster, true);
  assert.match(f.text, /1\.25× as fast/);
  const s = speedVerdict(m(8, 0.5), m(10, 0.5));
  assert.equal(s.faster, false);
  assert.match(s.text, /slower: 1\.25× the time/);
});

test('unknown shapes: refused fusions counted, the inputs to size named; nothing said when none', () => {
  assert.equal(unknownShapesNote(undefined), null); // a report from before the key existed
  assert.equal(unknownShapesNote({ refused: 0, inputs: [] }), null);
  const one = unknownShapesNote({ refused: 1, inputs: ['data'] });
  assert.deepEqual(one, { refused: 1, inputs: ['data'], text: '1 fusion needs input sizes: give sizes for data, then optimize again.' });
  const two = unknownShapesNote({ refused: 3, inputs: ['a', 'b'] });
  assert.equal(two.text, '3 fusions need input sizes: give sizes for a, b, then optimize again.');
  // refused with every input sized: a size computed inside the model; no input to point at
  const none = unknownShapesNote({ refused: 2, inputs: [] });
  assert.deepEqual(none.inputs, []);
  assert.match(none.text, /^2 fusions need input sizes that the page cannot infer/);
});

test('camera errors: each getUserMedia failure in words a person can act on', async () => {
  const { cameraError } = await import('../../web/src/camera.mjs');
  const dom = (name) => ({ name, message: 'x' });
  assert.equal(cameraError(dom('NotAllowedError')).kind, 'denied');
  assert.match(cameraError(dom('NotAllowedError')).text, /denied\. Allow the camera/);
  assert.equal(cameraError(dom('SecurityError')).kind, 'denied');
  assert.equal(cameraError(dom('NotFoundError')).kind, 'none');
  assert.equal(cameraError(dom('OverconstrainedError')).kind, 'none');
  assert.equal(cameraError(dom('NotReadableError')).kind, 'busy');
  assert.match(cameraError(dom('NoMediaDevices')).text, /HTTPS or localhost/);
  const other = cameraError({ name: 'TypeError', message: 'odd' });
  assert.deepEqual(other, { kind: 'other', text: 'The camera could not start: odd.' });
});

test('repeated blocks: DenseNet-121\'s dense blocks 6/12/24/16, a chain, the zoo\'s ResNet and MobileNet', async () => {
  const { findBlocks, cutBlobs, commonName, typeSummary } = await import('../../web/src/blocks.mjs');
  const { densenet121Param, chainParam, paramGraph } = await import('./graphs.mjs');
  const dn = paramGraph(densenet121Param());
  assert.equal(dn.nodes.length, 486);
  const d = findBlocks(dn);
  assert.deepEqual(d.blocks.map((b) => b.reps.length), [6, 12, 24, 16]);
  for (const b of d.blocks) {
    assert.deepEqual(b.unitTypes, ['Split', 'BatchNorm', 'ReLU', 'Convolution', 'BatchNorm', 'ReLU', 'Convolution', 'Concat']);
    assert.equal(b.layers, b.reps.length * 8);
    assert.ok(b.reps.every((r) => r.length === 8));
  }
  // every layer exactly once, in model order, across the parts
  const flat = d.parts.flatMap((p) => (p.kind === 'run' ? p.nodes : p.block.reps.flat()));
  assert.deepEqual(flat, dn.nodes.map((_, i) => i));
  assert.equal(typeSummary(d.blocks[0].unitTypes), 'Split, BatchNorm ×2, ReLU ×2, Convolution ×2, Concat');
  // the transitions between the blocks stay plain layers (BN, ReLU, Conv, Pool)
  assert.deepEqual(d.parts.map((p) => (p.kind === 'run' ? p.nodes.length : `x${p.block.reps.length}`)), [5, 'x6', 4, 'x12', 4, 'x24', 4, 'x16', 5]);

  // cuts: after a dense layer's Concat (one blob onward), never inside it (two blobs cross)
  const cuts = cutBlobs(dn);
  const concat = dn.nodes.findIndex((n) => n.name === 'concat_2_1');
  assert.equal(dn.edges[cuts[concat]].from, concat);
  assert.equal(cuts[concat - 1], -1, 'inside the dense layer the Split\'s second output crosses too');

  // a 1,000-layer chain of Convolution, ReLU: one block of 499 pairs between the Input and the last layer
  const chain = findBlocks(paramGraph(chainParam(1000)));
  assert.deepEqual(chain.parts.map((p) => (p.kind === 'run' ? p.nodes.length : `x${p.block.reps.length}`)), [1, 'x499', 1]);
  // laid out in pieces: a plain chain in pieces of at most maxPiece layers, each dense layer alone
  const runs = findBlocks(paramGraph(chainParam(300)), { minLayers: 1e9, maxPiece: 120 });
  assert.deepEqual(runs.parts.map((p) => p.pieces.map((q) => q.length)), [[120, 120, 60]]);
  assert.deepEqual(d.blocks[0].pieces.map((q) => q.length), [8, 8, 8, 8, 8, 8]);
  assert.deepEqual(d.parts[0].pieces, [[0, 1, 2, 3, 4]]);
  // nothing repeats: no block; small repeats (under minLayers) stay plain
  assert.equal(findBlocks(paramGraph(chainParam(5))).blocks.length, 0);

  assert.equal(commonName(['/features/denseblock1/denselayer1/conv1', '/features/denseblock1/denselayer2/norm2']), 'features/denseblock1');
  assert.equal(commonName(['conv2_1/x1', 'relu2_1/x1']), null);
});

test('repeated blocks in the zoo: ResNet-18\'s four stages, MobileNet\'s 13 depthwise/pointwise pairs, ShuffleNetV2\'s units', { skip: needs(zooFixture) }, async () => {
  const { findBlocks } = await import('../../web/src/blocks.mjs');
  const { paramGraph } = await import('./graphs.mjs');
  const read = (name) => paramGraph(fs.readFileSync(path.join(zoo, `${name}.param`), 'utf8'));
  // a stage: a projection block (Split, 3 Convolution, Eltwise), ReLU, an identity block, ReLU
  assert.deepEqual(findBlocks(read('resnet18')).blocks.map((b) => [b.reps.length, b.reps[0].length, b.name]), [[4, 11, 'res']]);
  assert.deepEqual(findBlocks(read('mobilenet')).blocks.map((b) => [b.reps.length, b.unitTypes]), [[13, ['ConvolutionDepthWise', 'Convolution']]]);
  // stages of 4, 8 and 4 units, the first of each a downsampling unit of its own shape
  assert.deepEqual(findBlocks(read('shufflenet_v2')).blocks.map((b) => b.reps.length), [3, 7, 3]);
});

test('layout pieces: a chain laid out directly, a branching piece by dagre, a repeated shape reused under its own ids', async () => {
  const { layoutPiece } = await import('../../web/src/layout-worker.mjs');
  const box = (id) => ({ id, w: 80, h: 36 });
  const chain = layoutPiece([box(0), box(1), box(2)], [[0, 1], [1, 2]]);
  assert.equal(chain.engine, 'layered');
  assert.ok(chain.nodes['0'][1] < chain.nodes['1'][1] && chain.nodes['1'][1] < chain.nodes['2'][1], 'top to bottom');
  assert.equal(chain.nodes['0'][0], chain.nodes['2'][0], 'on one axis');
  // a residual block: Split -> Conv -> Add, Split -> Add
  const a = layoutPiece([box(10), box(11), box(12)], [[10, 11], [11, 12], [10, 12]]);
  assert.equal(a.engine, 'dagre');
  // the same shape under other ids: the same places, edges renamed
  const b = layoutPiece([box(20), box(21), box(22)], [[20, 21], [21, 22], [20, 22]]);
  assert.deepEqual(Object.values(b.nodes), Object.values(a.nodes));
  assert.deepEqual(Object.keys(b.nodes).sort(), ['20', '21', '22']);
  assert.deepEqual(b.edges.map((e) => [e.from, e.to]).sort(), [[20, 21], [20, 22], [21, 22]]);
  assert.deepEqual(b.edges.map((e) => e.points), a.edges.map((e) => e.points));
  // other box sizes: laid out afresh
  const c = layoutPiece([{ id: 30, w: 200, h: 36 }, box(31), box(32)], [[30, 31], [31, 32], [30, 32]]);
  assert.notDeepEqual(Object.values(c.nodes), Object.values(a.nodes));
});
