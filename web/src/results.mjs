// Turning the worker's numbers into what a person reads and keeps: the speed verdict, a
// classifier's top classes, preprocessing presets, file names safe on every OS, the zip of all
// files. Pure apart from fflate (tested in Node).
import { zipSync, strToU8 } from 'fflate';

// Names on Windows that are devices whatever the extension (CON.param is not a file there).
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

// A file name that every OS accepts and that stays inside the folder it is saved to: characters
// outside [A-Za-z0-9._-] become '_', no leading dot or dash, no trailing dot, Windows device
// names (with any extension) get a '_' after the name, at most 120 characters. `ext` (e.g. '.opt.param') is kept as is.
export function safeFileName(stem, ext = '') {
  let s = String(stem).normalize('NFC').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/_+/g, '_');
  s = s.replace(/^[._-]+/, '').replace(/[._]+$/, '');
  if (!s) s = 'model';
  if (RESERVED.test(s.split('.')[0])) s = s.replace(/^[^.]*/, (m) => `${m}_`); // LPT1.x is a device too
  return s.slice(0, 120 - ext.length) + ext;
}

// files: [{name, data: Uint8Array | string}] -> the zip's bytes (stored dates fixed so the same
// files give the same zip).
export function zipFiles(files) {
  const entries = {};
  const mtime = new Date(Date.UTC(2020, 0, 1));
  for (const f of files) entries[f.name] = [typeof f.data === 'string' ? strToU8(f.data) : f.data, { mtime, level: f.name.endsWith('.bin') ? 1 : 6 }];
  return zipSync(entries);
}

// The median and interquartile range of each model's ms per run -> a verdict that does not claim
// more than the measurement shows: medians closer than the larger IQR are "no measurable
// difference". `name`: what the second model is called ('Optimized', 'int8').
export function speedVerdict(orig, opt, name = 'Optimized') {
  const diff = orig.median_ms - opt.median_ms;
  const noise = Math.max(orig.iqr_ms, opt.iqr_ms);
  if (Math.abs(diff) < noise || diff === 0) {
    return { measurable: false, faster: false, text: `No measurable difference (medians ${fmt(orig.median_ms)} and ${fmt(opt.median_ms)} ms differ by less than the spread, ${fmt(noise)} ms)` };
  }
  const ratio = orig.median_ms / opt.median_ms;
  return diff > 0
    ? { measurable: true, faster: true, text: `${name} is ${ratio.toFixed(2)}× as fast (${fmt(orig.median_ms)} → ${fmt(opt.median_ms)} ms per run)` }
    : { measurable: true, faster: false, text: `${name} is slower: ${(1 / ratio).toFixed(2)}× the time (${fmt(orig.median_ms)} → ${fmt(opt.median_ms)} ms per run)` };
}

const fmt = (ms) => (ms < 10 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(1));

// An output that looks like class scores: one axis of 2 to 100,000 values (others 1), at least 10
// values. -> [{index, score, prob}] best first, with softmax probabilities when the scores are not
// probabilities already (all in [0, 1] and summing to about 1).
export function topK(output, k = 5) {
  const shape = output.shape ?? [output.data.length];
  const n = output.data.length;
  const axes = shape.filter((d) => d > 1);
  if (axes.length !== 1 || n < 10 || n > 100000) return null;
  const d = output.data;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(d[i])) return null;
    sum += d[i];
    if (d[i] < min) min = d[i];
    if (d[i] > max) max = d[i];
  }
  const isProb = min >= 0 && max <= 1 && Math.abs(sum - 1) < 1e-2;
  let z = 0;
  if (!isProb) for (let i = 0; i < n; i++) z += Math.exp(d[i] - max);
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => d[b] - d[a]).slice(0, k);
  return { classes: n, softmax: !isProb, items: idx.map((i) => ({ index: i, score: d[i], prob: isProb ? d[i] : Math.exp(d[i] - max) / z })) };
}

// The optimizer report's unknown_shapes ({refused, inputs}: fusion candidates refused because a
// size they depend on is unknown, and the inputs without a shape) -> what the page says, or null
// when nothing was refused (reports from before the key existed included).
export function unknownShapesNote(us) {
  const refused = Number.isInteger(us?.refused) ? us.refused : 0;
  if (refused <= 0) return null;
  const inputs = Array.isArray(us.inputs) ? us.inputs.map(String) : [];
  const what = `${refused} fusion${refused === 1 ? '' : 's'} need${refused === 1 ? 's' : ''} input sizes`;
  return {
    refused,
    inputs,
    text: inputs.length
      ? `${what}: give sizes for ${inputs.join(', ')}, then optimize again.`
      : `${what} that the page cannot infer from the model (a size computed at run time).`,
  };
}

// Preprocessing presets: value = (pixel - mean) / std with pixels 0..255.
export const PREPROCESS = {
  imagenet: { mean: [123.675, 116.28, 103.53], std: [58.395, 57.12, 57.375] },
  unit: { mean: [0, 0, 0], std: [255, 255, 255] },
  sym: { mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5] },
  raw: { mean: [0, 0, 0], std: [1, 1, 1] },
};
