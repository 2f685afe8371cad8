// The page's Quantize step: the loaded fp32 model quantized to int8 in the worker
// (model.quantize: ncnn2table's calibration, ncnn2int8's rewrite) on a handful of pictures, the
// user's or the page's sample pictures; then the int8 model's size, its speed (timed as the
// Optimize step's Speed times original and optimized), its agreement with fp32 on those pictures
// (error per output; top-1 agreement for a class vector; faces or lines side by side for the
// bundled detectors) and its files.
//
// Calibration, by the model's input: 1 or 3 channels, the pictures themselves (decoded by nnfold
// in C++, as `nnfold quantize` and the npm package do, so all three give the same table); 2 or 4
// channels (M-LSD's RGB + alpha), tensors the page makes from the pictures as Run does; an input
// that is no picture (or several inputs), seeded random inputs, said as such.
import { $, h, show, fmtBytes, fmtErr, fmtMs, fmtShape, saveFile } from './dom.mjs';
import { imageLayout, parseNumberList, imageToTensor, drawSamplePicture } from './image.mjs';
import { findBlazefaceOutputs, decodeBlazeface, findMlsdOutputs, decodeMlsd } from './decoders.mjs';
import { drawDetections } from './draw.mjs';
import { speedVerdict } from './results.mjs';

export const QUANT_ACTION_IDS = ['quant-run', 'quant-samples', 'quant-files', 'quant-clear', 'quant-time', 'quant-dl-param', 'quant-dl-bin',
  'quant-dl-io', 'quant-dl-report'];

const MAX_PICTURES = 32;
// The limits nnfold's decoder applies (src/io/picture.h PictureLimits), checked here from the
// header too: the page decodes pictures itself for the agreement check (and for 4-channel
// inputs), and a browser handed an image bomb may try to allocate all of it.
const MAX_PIXELS = 2 ** 26;
const MAX_SIDE = 2 ** 15;
const RANDOM_SAMPLES = 8;
// Layers whose int8 output, run alone on their fp32 input, is further than this from their fp32
// output (docs/numbers.md's relative error, the worst calibration picture) stay fp32. Without a
// bound the bundled BlazeFace and M-LSD lose or gain faces and lines: a few of their BN-folded
// depthwise and 1x1 layers have channels so steep (weights up to 100x the others') that one input
// quantization step swings the output (M-LSD tiny: errors 0.7 and 1.0, lines gained and lost);
// with 0.2 int8 finds the same faces and lines as fp32 on the sample pictures
// (tests/e2e/quantize_accuracy.test.mjs; numbers and the other bounds tried in docs/quantize.md).
export const PAGE_MAX_LAYER_ERROR = 0.2;

// PNG or JPEG and the size its header declares, from the first bytes; null when it is neither.
// PNG: the IHDR chunk right after the signature. JPEG: the first start-of-frame marker.
export function pictureHeader(b) {
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return { kind: 'PNG', width: dv.getUint32(16), height: dv.getUint32(20) };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return { kind: 'JPEG', width: 0, height: 0 };
      const m = b[i + 1];
      if (m === 0xff) { i++; continue; }
      const len = (b[i + 2] << 8) | b[i + 3];
      // SOF0..SOF15 except DHT (c4), JPG (c8), DAC (cc)
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
        return { kind: 'JPEG', height: (b[i + 5] << 8) | b[i + 6], width: (b[i + 7] << 8) | b[i + 8] };
      }
      i += 2 + len;
    }
    return { kind: 'JPEG', width: 0, height: 0 };
  }
  return null;
}

// Why a picture is left out (null when it is fine), from its header.
export function pictureProblem(name, head) {
  if (!head) return `${name} is not a PNG or JPEG picture (nnfold decodes those two, as \`nnfold quantize\` does)`;
  if (head.width > MAX_SIDE || head.height > MAX_SIDE || head.width * head.height > MAX_PIXELS) {
    return `${name} declares ${head.width.toLocaleString('en-US')} × ${head.height.toLocaleString('en-US')} pixels: more than a picture ` +
      `may have here (${MAX_SIDE.toLocaleString('en-US')} a side, ${(MAX_PIXELS / 1e6).toFixed(0)} million in all); not decoded`;
  }
  return null;
}

export function setupQuantize(ctx) {
  const { S, worker, runStep, setError, focusResult, toast, explain } = ctx;
  const Q = { pictures: [], result: null, agree: null, speed: null, view: 0, canvases: [] };

  const input = () => S.loaded?.inputs?.[0];
  const layout = () => (S.loaded?.inputs?.length === 1 ? imageLayout(input()?.shape, $('pre-layout').value) : null);
  // 'pictures' | 'tensors' | 'random'
  const mode = () => {
    const lay = layout();
    if (!lay) return 'random';
    return lay.c === 1 || lay.c === 3 ? 'pictures' : 'tensors';
  };

  function enabled(id) {
    const runnable = !!S.loaded && !S.loaded.structureOnly;
    switch (id) {
      case 'quant-run': return runnable;
      case 'quant-samples': case 'quant-files': return runnable && mode() !== 'random';
      case 'quant-clear': return Q.pictures.length > 0;
      default: return runnable && !!Q.result; // timing and downloads need the int8 model
    }
  }

  // ---- pictures -------------------------------------------------------------------------------

  async function addFiles(files) {
    const left = [];
    for (const file of files) {
      if (Q.pictures.length >= MAX_PICTURES) {
        left.push(`${file.name} (at most ${MAX_PICTURES} pictures: a handful calibrates well)`);
        continue;
      }
      let head = null;
      try {
        head = pictureHeader(new Uint8Array(await file.slice(0, 64 * 1024).arrayBuffer()));
      } catch {
        head = null;
      }
      const problem = pictureProblem(file.name, head);
      if (problem) left.push(problem);
      else Q.pictures.push({ file, name: file.name, width: head.width, height: head.height, bad: false });
    }
    renderList();
    setError('quant-error', left.length ? `Left out: ${left.join('; ')}.` : null);
  }

  // Four pictures drawn from the page's sample picture (as is, mirrored, closer, darker): a face
  // for BlazeFace, edges for M-LSD; PNG files like the ones a user drops.
  async function samplePictures() {
    const size = 512;
    const base = document.createElement('canvas');
    base.width = base.height = size;
    drawSamplePicture(base.getContext('2d'), size);
    const variants = [
      ['sample-1.png', () => {}],
      ['sample-2-mirrored.png', (c) => { c.translate(size, 0); c.scale(-1, 1); }],
      ['sample-3-closer.png', (c) => { c.translate(-size * 0.2, -size * 0.15); c.scale(1.4, 1.4); }],
      ['sample-4-darker.png', null],
    ];
    const files = [];
    for (const [name, tf] of variants) {
      const cv = document.createElement('canvas');
      cv.width = cv.height = size;
      const c = cv.getContext('2d');
      if (tf) tf(c);
      c.drawImage(base, 0, 0);
      if (!tf) {
        c.fillStyle = 'rgba(20, 10, 40, 0.35)';
        c.fillRect(0, 0, size, size);
      }
      const blob = await new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
      files.push(new File([blob], name, { type: 'image/png' }));
    }
    return files;
  }

  function renderList() {
    const ul = $('quant-list');
    ul.replaceChildren(...Q.pictures.map((p, i) => h('li', { class: p.bad ? 'bad' : null, dataset: { name: p.name } },
      h('span', { class: 'mono name' }, p.name),
      h('span', { class: 'muted' }, p.width ? `${p.width}×${p.height}` : ''),
      h('span', { class: 'muted' }, fmtBytes(p.file.size)),
      h('button', {
        class: 'btn btn-small', type: 'button', 'aria-label': `Remove ${p.name}`, disabled: !!S.busy,
        onclick: () => {
          Q.pictures.splice(i, 1);
          renderList();
          setBusyState();
          const next = $('quant-list').querySelectorAll('button')[Math.min(i, Q.pictures.length - 1)];
          (next ?? $('quant-files')).focus();
        },
      }, '✕'))));
    const m = mode();
    $('quant-count').textContent = m === 'random' ? ''
      : Q.pictures.length ? `${Q.pictures.length} picture${Q.pictures.length === 1 ? '' : 's'}` : 'no pictures yet';
    setBusyState();
  }

  // The page's busy state decides the buttons (main.mjs setBusy); refreshed when the list changes.
  function setBusyState() {
    for (const id of QUANT_ACTION_IDS) $(id).disabled = !!S.busy || !enabled(id);
    for (const b of $('quant-list').querySelectorAll('button')) b.disabled = !!S.busy;
  }

  // ---- preprocessing, as Run's fields say -----------------------------------------------------

  function preprocessing() {
    const lay = layout();
    const mean = parseNumberList($('pre-mean').value, lay.c, 'Mean');
    const std = parseNumberList($('pre-std').value, lay.c, 'Std');
    if (std.some((s) => s === 0)) throw new Error('Std must not be 0');
    return { lay, mean, std, order: $('pre-order').value };
  }

  function renderSetup() {
    const L = S.loaded;
    const runnable = !!L && !L.structureOnly;
    show($('quant-empty'), !runnable);
    show($('quant-body'), runnable);
    $('quant-empty').textContent = !L ? 'Load a model to quantize it to int8.' : 'Give the model weights (its .bin, or random weights) to quantize it.';
    if (!runnable) return;
    const m = mode();
    const lay = layout();
    show($('quant-pictures'), m !== 'random');
    const inp = input();
    const cli = h('code', {}, 'nnfold quantize --calibration DIR');
    $('quant-pre-note').replaceChildren(...(m === 'random'
      ? [`The input${L.inputs.length > 1 ? 's' : ` '${inp?.name}' ${fmtShape(inp?.shape)}`} ${L.inputs.length > 1 ? 'are' : 'is'} not a picture: ` +
        `the page calibrates on ${RANDOM_SAMPLES} seeded random inputs, a rough calibration. For a real one, give typical inputs as tensors ` +
        'to the npm package (', h('code', {}, 'model.quantize'), ') or as .f32 files to ', cli, '.']
      : [`Each picture is resized to ${lay.w}×${lay.h} and normalized as in Run (value = (pixel − mean) / std; mean ${$('pre-mean').value}, ` +
        `std ${$('pre-std').value}, ${$('pre-order').value}). `, ...(m === 'tensors'
        ? [`This input has ${lay.c} channels; nnfold's picture decoding gives 1 or 3, so the page makes the tensors itself, as Run does.`]
        : ['nnfold decodes the pictures (PNG, JPEG) as ', cli, ' does.'])]));
    renderList();
  }

  // A new model (or the worker restarted): the int8 model and its results are gone.
  function modelChanged() {
    Q.result = null;
    Q.agree = null;
    Q.speed = null;
    Q.canvases = [];
    for (const p of Q.pictures) p.bad = false;
    setError('quant-error', null);
    renderResult();
    renderSetup();
  }

  // ---- the pictures decoded here (agreement; tensors for 2/4-channel inputs) ------------------

  async function decodeHere(p) {
    let bmp;
    try {
      bmp = await createImageBitmap(p.file);
    } catch {
      throw Object.assign(new Error(`${p.name} could not be decoded by the browser (a corrupt or truncated picture?)`), { picture: p.name });
    }
    const canvas = document.createElement('canvas');
    const scale = Math.min(1, 1024 / Math.max(bmp.width, bmp.height));
    canvas.width = Math.max(1, Math.round(bmp.width * scale));
    canvas.height = Math.max(1, Math.round(bmp.height * scale));
    canvas.getContext('2d').drawImage(bmp, 0, 0, canvas.width, canvas.height);
    bmp.close?.();
    return canvas;
  }

  function tensorOf(canvas, pre) {
    const { lay } = pre;
    const c = document.createElement('canvas');
    c.width = lay.w;
    c.height = lay.h;
    const cx = c.getContext('2d', { willReadFrequently: true });
    cx.imageSmoothingQuality = 'high';
    cx.drawImage(canvas, 0, 0, lay.w, lay.h);
    const data = imageToTensor(cx.getImageData(0, 0, lay.w, lay.h).data, lay, pre);
    return { [input().name]: { data, shape: input().shape } };
  }

  // ---- quantize, compare, time ----------------------------------------------------------------

  // The whole step (quantize, compare, time) is one run for the page: body[data-quant] says
  // 'running', then 'done', 'failed' or 'cancelled' (the steps inside take turns being busy).
  async function quantize() {
    document.body.dataset.quant = 'running';
    let end = 'failed';
    try {
      end = await quantizeSteps();
    } finally {
      document.body.dataset.quant = end;
    }
  }

  async function quantizeSteps() {
    const m = mode();
    setError('quant-error', null);
    for (const p of Q.pictures) p.bad = false;
    renderList();
    if (m !== 'random' && !Q.pictures.length) {
      setError('quant-error', 'Add a handful of pictures first (drop them here or choose them), or use the sample pictures.');
      focusResult($('quant-error'));
      return 'failed';
    }
    const method = $('quant-method').value;
    let payload;
    let pre = null;
    let canvases = [];
    try {
      if (m !== 'random') {
        pre = preprocessing();
        // the pictures are decoded by nnfold first (mode 'pictures'): a file it refuses never
        // reaches the browser's decoder
        if (m === 'tensors') canvases = await Promise.all(Q.pictures.map(decodeHere));
      }
      const maxLayerError = PAGE_MAX_LAYER_ERROR;
      payload = m === 'random' ? { random: RANDOM_SAMPLES, method, maxLayerError }
        : m === 'pictures'
          ? { calibration: Q.pictures.map((p) => p.file), method, maxLayerError, mean: pre.mean, norm: pre.std.map((s) => 1 / s), rgb: pre.order !== 'BGR' }
          : { calibration: canvases.map((c) => tensorOf(c, pre)), method, maxLayerError };
    } catch (e) {
      markBad(e.picture ?? null);
      setError('quant-error', `Cannot make the calibration set: ${e.message}`);
      focusResult($('quant-error'));
      return 'failed';
    }
    const model = S.loaded;
    Q.result = null;
    Q.agree = null;
    Q.speed = null;
    const outcome = await runStep('quant', {
      progress: ['quant-progress', 'quant-bar', 'quant-label'],
      errorId: 'quant-error',
      request: ['quantize', payload],
      clear: renderResult,
      render: (r) => {
        Q.result = r ? { report: r.report, files: r.files, warnings: r.warnings, mode: m, method } : null;
        renderResult();
      },
      cancelled: 'Quantizing cancelled: no int8 model.',
      failed: 'Quantizing failed',
      focus: () => $('quant-verdict'),
    });
    if (outcome !== 'ok') {
      explainFailure();
      return outcome;
    }
    // another model opened meanwhile: its int8 results are not these
    if (S.loaded !== model) return 'cancelled';
    if (m !== 'random' && (await compare(pre, canvases)) !== 'ok') return 'failed';
    if (S.loaded !== model) return 'cancelled';
    await timeBoth();
    return 'done';
  }

  // After a failure: a refused picture is marked in the list (its name is in the message) and the
  // way on is said; a model with nothing to quantize is said as such.
  function explainFailure() {
    const el = $('quant-error');
    const text = el.textContent;
    if (el.hidden || el.getAttribute('role') !== 'alert') return;
    const bad = Q.pictures.find((p) => text.includes(p.name));
    if (bad) {
      markBad(bad.name);
      el.textContent = `${text}${/[.!?]$/.test(text) ? '' : '.'} Remove ${bad.name} from the pictures (✕) and quantize again.`;
    } else if (/no Convolution\/ConvolutionDepthWise\/InnerProduct to quantize/.test(text)) {
      el.textContent = 'This model has nothing to quantize: int8 applies to Convolution, ConvolutionDepthWise and InnerProduct layers, ' +
        'and it has none. Its fp32 form is what runs here.';
    } else if (/already quantized/.test(text)) {
      el.textContent = `${text} An int8 model runs as it is: quantize its fp32 original instead.`;
    }
  }

  function markBad(name) {
    for (const p of Q.pictures) p.bad = p.name === name;
    renderList();
  }

  async function compare(pre, canvases) {
    let inputs;
    try {
      if (!canvases.length) canvases = await Promise.all(Q.pictures.map(decodeHere));
      inputs = canvases.map((c) => tensorOf(c, pre));
    } catch (e) {
      setError('quant-error', `The int8 model is ready, but the pictures could not be compared here: ${e.message}`);
      return 'failed';
    }
    Q.canvases = canvases;
    Q.view = 0;
    return runStep('quant', {
      progress: ['quant-progress', 'quant-bar', 'quant-label'],
      errorId: 'quant-error',
      request: ['agree', { inputs, keep: !!S.preset?.decoder, classes: !S.preset?.decoder }],
      render: (r) => {
        Q.agree = r ? { outputs: r.outputs, runs: r.runs, n: inputs.length, lay: pre.lay } : null;
        renderResult();
      },
      cancelled: 'Comparison cancelled.',
      failed: 'Comparing with fp32 failed',
    });
  }

  // The original and the int8 model timed interleaved, with the Optimize step's rounds and budget.
  async function timeBoth({ focus = false } = {}) {
    Q.speed = null;
    await runStep('quant', {
      progress: ['quant-progress', 'quant-bar', 'quant-label'],
      errorId: 'quant-error',
      request: ['compare', { rounds: 21, budgetMs: 4000, pair: ['orig', 'int8'] }],
      clear: renderSpeed,
      render: (r) => {
        Q.speed = r?.report ?? null;
        renderSpeed();
      },
      cancelled: 'Timing cancelled: no speed result.',
      failed: 'Timing failed',
      focus: focus && (() => $('quant-speed-verdict')),
    });
  }

  // ---- results --------------------------------------------------------------------------------

  function renderResult() {
    ctx.resultChanged?.(); // the page's zip lists the int8 files while there is an int8 model
    const r = Q.result;
    show($('quant-result'), !!r);
    show($('quant-none'), !r);
    const verdict = $('quant-verdict');
    if (!r) {
      verdict.textContent = '';
      $('quant-stats').replaceChildren();
      $('quant-agree').replaceChildren();
      $('quant-layers').replaceChildren();
      renderSpeed();
      setBusyState();
      return;
    }
    const rep = r.report;
    const layers = rep.layers ?? [];
    const q = layers.filter((l) => l.int8).length;
    const f = r.files;
    const ratio = f.int8.bin ? f.fp32.bin / f.int8.bin : null;
    verdict.textContent = `int8 model ready: ${q} of ${layers.length} layers int8, .bin ${ratio ? `${ratio.toFixed(1)}× smaller` : 'written'}`;
    verdict.className = 'verdict pass';
    const stat = (label, value, sub) => h('div', { class: 'stat' }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, value), sub ? h('div', { class: 'sub' }, sub) : null);
    $('quant-stats').replaceChildren(
      stat('Weights (.bin)', `${fmtBytes(f.fp32.bin)} → ${fmtBytes(f.int8.bin)}`, 'fp32 → int8'),
      stat('int8 layers', `${q} of ${layers.length}`, layers.length - q ? `${layers.length - q} stay fp32 (see the table)` : 'all quantizable layers'),
      stat('Calibration', `${rep.samples} ${r.mode === 'random' ? 'random inputs' : 'pictures'}`, `method ${String(rep.method ?? r.method).toUpperCase()}`),
    );
    $('quant-stats').dataset.fp32Bin = String(f.fp32.bin);
    $('quant-stats').dataset.int8Bin = String(f.int8.bin);
    renderAgree();
    renderLayers(layers);
    renderSpeed();
    show($('quant-dl-io'), S.source?.kind === 'onnx');
    setBusyState();
  }

  function renderAgree() {
    const box = $('quant-agree');
    const a = Q.agree;
    const r = Q.result;
    if (!a) {
      // random calibration: the report's own numbers (the calibration inputs are the comparison)
      const outs = r?.mode === 'random' ? r.report.outputs ?? [] : [];
      box.replaceChildren(...(outs.length ? [
        h('p', { class: 'small' }, `Agreement with fp32 on the ${r.report.samples} random calibration inputs (the report's figures).`),
        agreeTable(outs.map((o) => ({ name: o.name, shape: null, err: o.error, top1: o.top1_agreement === null || o.top1_agreement === undefined ? null : { rate: o.top1_agreement } }))),
      ] : []));
      return;
    }
    const rows = a.outputs.map((o) => ({ name: o.name, shape: o.shape, err: o.err, top1: o.top1 ? { same: o.top1.same, of: o.top1.of } : null }));
    const parts = [
      h('p', { class: 'small' }, `fp32 and int8 on the same ${a.n} picture${a.n === 1 ? '' : 's'}: per output err = max|a−b| / max(max|a|, 1e-6), ` +
        'the worst picture; top-1 agreement where an output is one class vector. A quantized model is judged by accuracy, not held to a budget.'),
      agreeTable(rows),
    ];
    if (a.runs?.length) parts.push(renderPair());
    box.replaceChildren(...parts);
  }

  function agreeTable(rows) {
    return h('table', { class: 'data', id: 'quant-agree-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Output'), h('th', { scope: 'col' }, 'Shape'), h('th', { scope: 'col', class: 'num' }, 'err vs fp32'),
        h('th', { scope: 'col' }, 'Top-1 agreement'))),
      h('tbody', {}, ...rows.map((o) => h('tr', { dataset: { output: o.name, err: String(o.err), top1: o.top1 ? (o.top1.rate ?? o.top1.same / o.top1.of).toString() : '' } },
        h('td', { class: 'mono' }, o.name), h('td', { class: 'mono' }, o.shape ? fmtShape(o.shape) : '–'),
        h('td', { class: 'num' }, fmtErr(o.err)),
        h('td', {}, !o.top1 ? h('span', { class: 'muted' }, S.preset?.decoder ? '– (detector output)' : 'not a class vector')
          : o.top1.rate !== undefined ? `${(o.top1.rate * 100).toFixed(0)}%` : `${o.top1.same} of ${o.top1.of} pictures`)))));
  }

  // The bundled detectors: the chosen picture with fp32's and int8's faces or lines, side by side.
  function decode(outputs) {
    const dec = S.preset?.decoder;
    const thr = Number($('decoder-threshold').value);
    if (dec === 'blazeface') {
      const o = findBlazefaceOutputs(outputs);
      return o ? { kind: 'faces', items: decodeBlazeface(o.scores, o.boxes, Q.agree.lay.w, { threshold: Number.isFinite(thr) ? thr : 0.75 }) } : null;
    }
    if (dec === 'mlsd') {
      const o = findMlsdOutputs(outputs);
      return o ? { kind: 'lines', items: decodeMlsd(o.scores, o.offsets, o.h, o.w, { scoreThreshold: Number.isFinite(thr) ? thr : 0.1 }) } : null;
    }
    return null;
  }

  function renderPair() {
    const a = Q.agree;
    const k = Math.min(Q.view, a.runs.length - 1);
    const run = a.runs[k];
    const src = Q.canvases[k];
    const what = (res) => (!res ? 'no result' : res.kind === 'faces' ? `${res.items.length} face${res.items.length === 1 ? '' : 's'}`
      : `${res.items.length} line${res.items.length === 1 ? '' : 's'}`);
    const side = (label, outputs, key) => {
      const res = decode(outputs);
      const cv = h('canvas', { class: 'quant-canvas', 'aria-label': `${label}: ${what(res)} on ${Q.pictures[k]?.name ?? 'the picture'}` });
      if (src) drawDetections(cv, src, res, 480);
      return h('figure', { class: 'quant-side', dataset: { model: key, found: String(res?.items.length ?? 0) } }, cv, h('figcaption', {}, h('strong', {}, label), `: ${what(res)}`));
    };
    const nav = a.runs.length > 1 ? h('div', { class: 'inline-form' },
      h('label', { for: 'quant-view' }, 'Picture'),
      h('select', { id: 'quant-view', onchange: (e) => { Q.view = Number(e.target.value); renderAgree(); $('quant-view')?.focus(); } },
        ...a.runs.map((_, i) => h('option', { value: String(i), selected: i === k }, Q.pictures[i]?.name ?? `picture ${i + 1}`)))) : null;
    return h('div', { class: 'quant-pair-box' }, h('h4', {}, S.preset.decoder === 'blazeface' ? 'Faces found, fp32 and int8' : 'Lines found, fp32 and int8'),
      nav, h('div', { class: 'quant-pair', id: 'quant-pair' }, side('fp32', run.fp32, 'fp32'), side('int8', run.int8, 'int8')));
  }

  function renderLayers(layers) {
    const num = (x) => (x === null || x === undefined ? '–' : Number(x).toPrecision(4));
    $('quant-layers').replaceChildren(h('details', {}, h('summary', {}, `Layers (${layers.length}): scales and error per layer`),
      h('div', { class: 'table-scroll' }, h('table', { class: 'data', id: 'quant-layers-table' },
        h('thead', {}, h('tr', {}, ...['Layer', 'Type', 'int8', 'Input scale', 'Weight scales', 'err vs fp32'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...layers.map((l) => h('tr', { dataset: { layer: l.name, int8: String(!!l.int8) } },
          h('td', { class: 'mono' }, l.name), h('td', { class: 'mono' }, l.type),
          h('td', {}, l.int8 ? h('span', { class: 'tag-pass' }, 'int8') : h('span', { class: 'muted' }, `fp32${l.reason ? `: ${l.reason}` : ''}`)),
          h('td', { class: 'num' }, num(l.bottom_scale)),
          h('td', { class: 'num' }, l.weight_scale_min === null || l.weight_scale_min === undefined ? '–' : `${num(l.weight_scale_min)} – ${num(l.weight_scale_max)}`),
          h('td', { class: 'num' }, l.error === null || l.error === undefined ? '–' : fmtErr(l.error)))))))));
  }

  function renderSpeed() {
    const sp = Q.speed;
    const v = $('quant-speed-verdict');
    v.className = 'verdict';
    v.textContent = '';
    if (!sp) {
      $('quant-speed').replaceChildren();
      return;
    }
    const verdict = speedVerdict(sp.orig, sp.opt, 'int8');
    v.textContent = verdict.text;
    v.dataset.measurable = String(verdict.measurable);
    v.className = `verdict ${verdict.measurable ? (verdict.faster ? 'pass' : 'fail') : 'neutral'}`;
    const row = (label, m) => h('tr', { dataset: { model: label, median: String(m.median_ms) } }, h('th', { scope: 'row' }, label),
      h('td', { class: 'num' }, fmtMs(m.median_ms)), h('td', { class: 'num' }, `${fmtMs(m.q1_ms)} – ${fmtMs(m.q3_ms)}`));
    $('quant-speed').replaceChildren(
      h('p', { class: 'small' }, `${sp.rounds} rounds after a warm-up, fp32 and int8 alternating, ${sp.threads === 1 ? 'one thread' : `${sp.threads} threads`}; ms per run on a seeded random input.`),
      h('table', { class: 'data', id: 'quant-speed-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col', class: 'num' }, 'median'), h('th', { scope: 'col', class: 'num' }, 'middle half (IQR)'))),
        h('tbody', {}, row('fp32', sp.orig), row('int8', sp.opt))));
  }

  // ---- downloads: the int8 model as ncnn2int8's files -----------------------------------------

  async function download(part) {
    setError('quant-error', null);
    const stem = `${ctx.fileStem()}.int8`;
    if (part === 'report') {
      saveFile(`${stem}.report.json`, JSON.stringify(Q.result.report, null, 2), 'application/json');
      return;
    }
    let f;
    try {
      ctx.setBusy('download');
      f = await worker.request('files', { which: 'int8' });
    } catch (e) {
      setError('quant-error', explain(e, 'Writing the int8 files failed'));
      return;
    } finally {
      ctx.setBusy(null);
    }
    const ul = $('quant-warnings');
    ul.replaceChildren(...(f.warnings ?? []).map((w) => h('li', {}, w)));
    show(ul, !!f.warnings?.length);
    if (part === 'param') saveFile(`${stem}.param`, f.param, 'text/plain');
    else if (part === 'bin') saveFile(`${stem}.bin`, f.bin);
    else if (f.ioJson) saveFile(`${stem}.io.json`, typeof f.ioJson === 'string' ? f.ioJson : JSON.stringify(f.ioJson, null, 1), 'application/json');
  }

  // ---- the int8 files in the page's "Download everything" zip (main.mjs) -----------------------

  // null before a quantization; then the int8 files, named as the buttons above name them. `part`
  // says which of zipData's entries holds the bytes.
  function zipEntries() {
    if (!Q.result) return null;
    const stem = `${ctx.fileStem()}.int8`;
    const out = [
      { name: `${stem}.param`, part: 'param', what: 'the int8 model quantized from the original on the Quantize step\'s calibration set, ncnn text format as ncnn2int8 writes it (int8_scale_term on the int8 layers).' },
      { name: `${stem}.bin`, part: 'bin', what: 'its weights: int8 for the int8 layers, with their scales, ncnn .bin; load it with the int8 .param.' },
    ];
    if (S.source?.kind === 'onnx') out.push({ name: `${stem}.io.json`, part: 'io', what: 'the ONNX names, shapes and layouts of the int8 model\'s inputs and outputs and the ncnn blob holding each.' });
    out.push({ name: `${stem}.report.json`, part: 'report', what: 'the quantization report: per layer int8 or kept fp32 and why, its error against fp32.' });
    return out;
  }

  // The bytes of zipEntries() from the worker: { param, bin, io, report } (io null for an ncnn
  // model); null after showing the error when writing failed.
  async function zipData() {
    if (!Q.result) return null;
    let f;
    try {
      f = await worker.request('files', { which: 'int8' });
    } catch (e) {
      setError('download-error', explain(e, 'Writing the int8 files failed'));
      return null;
    }
    const io = f.ioJson ? (typeof f.ioJson === 'string' ? f.ioJson : JSON.stringify(f.ioJson, null, 1)) : null;
    return { param: f.param, bin: f.bin, io, report: JSON.stringify(Q.result.report, null, 2) };
  }

  // ---- wiring -----------------------------------------------------------------------------------

  $('quant-files').addEventListener('change', (e) => {
    addFiles(Array.from(e.target.files ?? [])).finally(() => { e.target.value = ''; });
  });
  $('quant-samples').addEventListener('click', async () => {
    // Quantize waits for the pictures being drawn
    $('quant-run').disabled = true;
    $('quant-samples').disabled = true;
    try {
      Q.pictures = Q.pictures.filter((p) => !p.name.startsWith('sample-'));
      await addFiles(await samplePictures());
      toast('Four sample pictures added.');
    } finally {
      setBusyState();
    }
  });
  $('quant-clear').addEventListener('click', () => {
    Q.pictures = [];
    setError('quant-error', null);
    renderList();
    $('quant-files').focus();
  });
  $('quant-run').addEventListener('click', () => quantize());
  $('quant-time').addEventListener('click', () => timeBoth({ focus: true }));
  for (const [id, part] of [['quant-dl-param', 'param'], ['quant-dl-bin', 'bin'], ['quant-dl-io', 'io'], ['quant-dl-report', 'report']]) {
    $(id).addEventListener('click', () => download(part));
  }
  // Pictures dropped on this card are calibration pictures (elsewhere on the page an image becomes
  // Run's input): handled here, before the page-wide drop handler.
  const zone = $('quant-drop');
  zone.addEventListener('dragover', (e) => {
    if (!Array.from(e.dataTransfer?.types ?? []).includes('Files')) return;
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    e.stopPropagation();
    zone.classList.remove('over');
    ctx.dropEnded();
    if (S.busy) {
      toast('Busy: cancel the current work first.');
      return;
    }
    addFiles(Array.from(e.dataTransfer?.files ?? []));
  });
  // the note repeats Run's preprocessing: refreshed after Run's own handlers have filled the fields
  for (const id of ['pre-mean', 'pre-std', 'pre-order', 'pre-layout', 'pre-preset']) {
    for (const ev of ['change', 'input']) $(id).addEventListener(ev, () => setTimeout(() => S.loaded && renderSetup()));
  }

  return { enabled, modelChanged, renderSetup, addFiles, zipEntries, zipData };
}
