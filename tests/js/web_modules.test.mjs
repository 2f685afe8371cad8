// The page's pure modules in Node: BlazeFace anchors, decoding and weighted NMS on hand-made
// tensors; M-LSD decoding; image layout detection and normalization; sorting dropped files.
// Expected values are worked out here by hand from the models' documented layouts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blazefaceAnchors, decodeBlazeface, findBlazefaceOutputs, findMlsdOutputs, decodeMlsd } from '../../web/src/decoders.mjs';
import { imageLayout, imageToTensor, parseNumberList } from '../../web/src/image.mjs';
import { classifyFiles, planDrop, baseName } from '../../web/src/files.mjs';

const logit = (p) => Math.log(p / (1 - p));
const close = (a, b, eps = 1e-6) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);

test('BlazeFace anchors: 16x16 cells x 2 then 8x8 cells x 6, at cell centres', () => {
  const a = blazefaceAnchors();
  assert.equal(a.length, 896);
  assert.deepEqual(a[0], { x: 0.5 / 16, y: 0.5 / 16 });
  assert.deepEqual(a[1], { x: 0.5 / 16, y: 0.5 / 16 });
  assert.deepEqual(a[2], { x: 1.5 / 16, y: 0.5 / 16 });
  assert.deepEqual(a[32], { x: 0.5 / 16, y: 1.5 / 16 }); // row 1, col 0
  assert.deepEqual(a[511], { x: 15.5 / 16, y: 15.5 / 16 });
  assert.deepEqual(a[512], { x: 0.5 / 8, y: 0.5 / 8 });
  assert.deepEqual(a[517], { x: 0.5 / 8, y: 0.5 / 8 });
  assert.deepEqual(a[518], { x: 1.5 / 8, y: 0.5 / 8 });
  assert.deepEqual(a[895], { x: 7.5 / 8, y: 7.5 / 8 });
});

function blazefaceTensors() {
  const scores = new Float32Array(896).fill(-20);
  const boxes = new Float32Array(896 * 16);
  return { scores, boxes };
}

test('BlazeFace decoding: offsets in input pixels from the anchor, sigmoid scores, threshold', () => {
  const { scores, boxes } = blazefaceTensors();
  // anchor 600: second grid, index 88 = cell 14 (row 1, col 6), anchor 4 -> centre (6.5/8, 1.5/8)
  scores[600] = logit(0.9);
  boxes.set([4, -8, 32, 40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 600 * 16);
  scores[10] = logit(0.7); // below 0.75
  const d = decodeBlazeface(scores, boxes, 128);
  assert.equal(d.length, 1);
  close(d[0].score, 0.9);
  close(d[0].cx, 6.5 / 8 + 4 / 128);
  close(d[0].cy, 1.5 / 8 - 8 / 128);
  close(d[0].w, 32 / 128);
  close(d[0].h, 40 / 128);
  close(d[0].keypoints[0].x, 6.5 / 8 + 1 / 128);
  close(d[0].keypoints[5].y, 1.5 / 8 + 12 / 128);
  assert.equal(decodeBlazeface(scores, boxes, 128, { threshold: 0.6 }).length, 2);
});

test('BlazeFace weighted NMS: overlapping boxes averaged by score, best score kept, far box separate', () => {
  const { scores, boxes } = blazefaceTensors();
  // two overlapping detections on anchors 0 and 1 (same centre 0.5/16), one far away (anchor 895)
  scores[0] = logit(0.8);
  boxes.set([0, 0, 20, 20], 0);
  scores[1] = logit(0.9);
  boxes.set([4, 0, 20, 20], 16);
  scores[895] = logit(0.95);
  boxes.set([0, 0, 10, 10], 895 * 16);
  const d = decodeBlazeface(scores, boxes, 128);
  assert.equal(d.length, 2);
  close(d[0].score, 0.95);
  close(d[1].score, 0.9);
  // x = (0.9 * (a + 4/128) + 0.8 * a) / 1.7
  const a = 0.5 / 16;
  close(d[1].cx, (0.9 * (a + 4 / 128) + 0.8 * a) / 1.7);
  close(d[1].w, 20 / 128);
  // IoU of the two: overlap 16 of 20 px wide -> 16*20 / (400+400-320) = 0.667 >= 0.3: merged;
  // with a 0.7 IoU threshold they stay apart
  assert.equal(decodeBlazeface(scores, boxes, 128, { iouThreshold: 0.7 }).length, 3);
});

test('BlazeFace outputs are found by shape whatever their names and order', () => {
  const o = {
    b: { data: new Float32Array(384 * 16).fill(2), shape: [1, 384, 16] },
    a: { data: new Float32Array(512).fill(1), shape: [1, 512, 1] },
    d: { data: new Float32Array(512 * 16).fill(3), shape: [1, 512, 16] },
    c: { data: new Float32Array(384).fill(4), shape: [1, 384, 1] },
  };
  const f = findBlazefaceOutputs(o);
  assert.equal(f.scores[0], 1);
  assert.equal(f.scores[512], 4);
  assert.equal(f.boxes[0], 3);
  assert.equal(f.boxes[512 * 16], 2);
  assert.equal(findBlazefaceOutputs({ a: o.a }), null);
});

test('M-LSD decoding: centre + displacements, x2 to input pixels, thresholds, local maxima, top-k', () => {
  const h = 8, w = 10;
  const scores = new Float32Array(h * w);
  const offsets = new Float32Array(h * w * 4);
  const put = (y, x, s, off) => {
    scores[y * w + x] = s;
    offsets.set(off, (y * w + x) * 4);
  };
  put(2, 3, 0.9, [-2, 0, 3, 1]); // length hypot(5, 1) = 5.1
  put(2, 4, 0.5, [-1, 0, 1, 0]); // next to a higher score: not a local maximum
  put(6, 8, 0.3, [0, -4, 0, 1]); // length 5
  put(7, 0, 0.05, [0, 0, 5, 0]); // below the score threshold
  put(4, 6, 0.6, [0, 0, 1, 0]); // too short for dist 2
  const segs = decodeMlsd(scores, offsets, h, w, { distThreshold: 2 });
  assert.equal(segs.length, 2);
  close(segs[0].score, 0.9, 1e-7);
  assert.deepEqual([segs[0].x0, segs[0].y0, segs[0].x1, segs[0].y1], [1 / w, 2 / h, 6 / w, 3 / h]);
  assert.deepEqual([segs[1].x0, segs[1].y0, segs[1].x1, segs[1].y1], [8 / w, 2 / h, 8 / w, 7 / h]);
  assert.equal(decodeMlsd(scores, offsets, h, w, { distThreshold: 2, topK: 1 }).length, 1);
  assert.equal(decodeMlsd(scores, offsets, h, w, { distThreshold: 5.05 }).length, 1);
  const found = findMlsdOutputs({ offsets: { data: offsets, shape: [1, h, w, 4] }, scores: { data: scores, shape: [1, h, w, 1] } });
  assert.equal(found.h, h);
  assert.equal(found.w, w);
  assert.equal(found.scores, scores);
});

test('image layout from input shapes: ncnn CHW, ONNX NCHW and NHWC, gray, not an image', () => {
  assert.deepEqual(imageLayout([3, 224, 224]), { layout: 'chw', c: 3, h: 224, w: 224 });
  assert.deepEqual(imageLayout([1, 3, 32, 48]), { layout: 'chw', c: 3, h: 32, w: 48 });
  assert.deepEqual(imageLayout([1, 128, 96, 3]), { layout: 'hwc', h: 128, w: 96, c: 3 });
  assert.deepEqual(imageLayout([1, 320, 320, 4]), { layout: 'hwc', h: 320, w: 320, c: 4 });
  assert.deepEqual(imageLayout([28, 28]), { layout: 'chw', c: 1, h: 28, w: 28 });
  assert.deepEqual(imageLayout([3, 4, 4], 'hwc'), { layout: 'hwc', h: 3, w: 4, c: 4 });
  assert.equal(imageLayout(null), null);
  assert.equal(imageLayout([1000]), null);
  assert.equal(imageLayout([2, 3, 8, 8]), null);
});

test('image to tensor: (pixel - mean) / std per channel, RGB/BGR, planar and interleaved, alpha, gray', () => {
  // 2x1 image: pixel 0 = (10, 20, 30, 255), pixel 1 = (40, 50, 60, 128)
  const px = new Uint8ClampedArray([10, 20, 30, 255, 40, 50, 60, 128]);
  const mean = [1, 2, 3, 0];
  const std = [1, 2, 3, 255];
  const chw = imageToTensor(px, { layout: 'chw', c: 3, h: 1, w: 2 }, { mean, std, order: 'RGB' });
  assert.deepEqual(Array.from(chw), [9, 39, 9, 24, 9, 19]);
  const bgr = imageToTensor(px, { layout: 'hwc', c: 3, h: 1, w: 2 }, { mean, std, order: 'BGR' });
  // BGR: channel 0 takes blue (30, 60) with mean/std of channel 0, channel 2 takes red
  [29, 9, 7 / 3, 59, 24, 37 / 3].forEach((v, i) => close(bgr[i], v, 1e-5));
  const rgba = imageToTensor(px, { layout: 'hwc', c: 4, h: 1, w: 2 }, { mean, std, order: 'RGB' });
  assert.deepEqual(Array.from(rgba).map((v) => Math.round(v * 1e4) / 1e4), [9, 9, 9, 1, 39, 24, 19, 0.502]);
  const gray = imageToTensor(px, { layout: 'chw', c: 1, h: 1, w: 2 }, { mean: [0], std: [1] });
  close(gray[0], 0.299 * 10 + 0.587 * 20 + 0.114 * 30, 1e-4);
  assert.throws(() => imageToTensor(px, { layout: 'chw', c: 3, h: 2, w: 2 }, { mean, std }), /pixels/);
  assert.throws(() => imageToTensor(px, { layout: 'chw', c: 3, h: 1, w: 2 }, { mean, std: [1, 0, 1] }), /std/);
});

test('mean/std lists: one value for all channels, too few values, not numbers', () => {
  assert.deepEqual(parseNumberList('127.5', 3, 'Mean'), [127.5, 127.5, 127.5]);
  assert.deepEqual(parseNumberList('1, 2,3 4', 3, 'Mean'), [1, 2, 3]);
  assert.throws(() => parseNumberList('1, 2', 3, 'Mean'), /3 channels, 2 values/);
  assert.throws(() => parseNumberList('a', 3, 'Std'), /Std: give numbers/);
  assert.throws(() => parseNumberList('', 3, 'Std'), /Std/);
});

test('dropped files: models, weights for the current model, images, and what is not a model', () => {
  const f = (name, type = '') => ({ name, type });
  assert.deepEqual(Object.fromEntries(Object.entries(classifyFiles([f('a.param'), f('a.bin'), f('m.onnx'), f('x.io.json'), f('p.PNG'), f('n.txt')])).map(([k, v]) => [k, v.length])),
    { param: 1, bin: 1, onnx: 1, ioJson: 1, images: 1, other: 1 });
  assert.equal(planDrop([f('a.bin'), f('a.param')], null).action, 'ncnn');
  assert.equal(planDrop([f('a.param')], null).action, 'param-only');
  assert.equal(planDrop([f('m.onnx')], null).action, 'onnx');
  // weights after a .param shown without them; weights first, then the .param
  assert.equal(planDrop([f('a.bin')], { kind: 'ncnn', bin: null }).action, 'bin-for-current');
  assert.equal(planDrop([f('a.bin')], { kind: 'ncnn', bin: new Uint8Array(4) }).action, 'bin-pending');
  assert.equal(planDrop([f('a.bin')], null).action, 'bin-pending');
  assert.equal(planDrop([f('a.bin')], { kind: 'onnx' }).action, 'bin-pending');
  const pending = f('w.bin');
  const later = planDrop([f('a.param')], null, pending);
  assert.equal(later.action, 'ncnn');
  assert.equal(later.bin, pending);
  assert.equal(planDrop([f('a.param'), f('b.bin')], null, pending).bin.name, 'b.bin');
  assert.equal(planDrop([f('photo.jpg', 'image/jpeg')], null).action, 'images');
  assert.match(planDrop([f('notes.txt')], null).message, /notes\.txt is not a model file/);
  assert.match(planDrop([f('a.onnx'), f('b.onnx')], null).message, /one model at a time/);
  assert.match(planDrop([f('a.onnx'), f('b.param')], null).message, /not both/);
  assert.equal(baseName('resnet.opt.param'), 'resnet.opt');
  assert.equal(baseName('m.io.json'), 'm');
});

test('fallback graph layout: ranks follow edges, no overlaps in a rank, a 5000-layer chain without recursion', async () => {
  const { layeredLayout } = await import('../../web/src/layout-worker.mjs');
  // diamond: 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, plus 0 -> 3
  const nodes = [0, 1, 2, 3].map((id) => ({ id, w: 100, h: 30 }));
  const edges = [[0, 1], [0, 2], [1, 3], [2, 3], [0, 3]];
  const l = layeredLayout(nodes, edges);
  const y = (i) => l.nodes[String(i)][1];
  const x = (i) => l.nodes[String(i)][0];
  assert.ok(y(0) < y(1) && y(1) === y(2) && y(2) < y(3));
  assert.ok(Math.abs(x(1) - x(2)) >= 100 + 16, 'nodes of one rank do not overlap');
  for (const i of [0, 1, 2, 3]) assert.ok(x(i) - 50 >= 0 && x(i) + 50 <= l.width && y(i) + 15 <= l.height);
  assert.equal(l.edges.length, 5);
  assert.deepEqual(l.edges[0].points, [[x(0), y(0) + 15], [x(1), y(1) - 15]]);
  const n = 5000;
  const chain = layeredLayout(Array.from({ length: n }, (_, id) => ({ id, w: 80, h: 30 })), Array.from({ length: n - 1 }, (_, i) => [i, i + 1]));
  assert.equal(chain.nodes[String(n - 1)][1] - chain.nodes['0'][1], (n - 1) * (30 + 28));
});
