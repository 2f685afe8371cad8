// The nnfold page: load a model (files or a bundled sample), inspect it, optimize and verify it,
// run it on an image or random input, download the result. All model work happens in
// worker.js (through ModelWorker); this file only drives the UI.
import { $, h, show, fmtBytes, fmtShape, fmtNum, fmtErr, fmtMs, explain, saveFile } from './dom.mjs';
import { ModelWorker } from './worker-client.mjs';
import { GraphView } from './graph-view.mjs';
import { planDrop, baseName } from './files.mjs';
import { imageLayout, parseNumberList, imageToTensor, drawSamplePicture } from './image.mjs';
import { cameraError, openCamera, grabFrame } from './camera.mjs';
import { findBlazefaceOutputs, decodeBlazeface, findMlsdOutputs, decodeMlsd } from './decoders.mjs';
import { drawDetections } from './draw.mjs';
import { setupQuantize, QUANT_ACTION_IDS } from './quantize.mjs';
import { readOnnxInputs, needsShape, guessShape, describeDims } from './onnx-inputs.mjs';
import { safeFileName, zipFiles, topK, speedVerdict, unknownShapesNote, PREPROCESS } from './results.mjs';

const DEFAULT_PRESET = { mean: [0, 0, 0], std: [1, 1, 1], order: 'RGB', decoder: null };
const DECODER_DEFAULTS = { blazeface: 0.75, mlsd: 0.1 };

const S = {
  info: null, // worker init: {build, version, features, passes, cancelShared}
  samples: [],
  source: null, // what is loaded: {kind, name, param, bin, onnx, seed, shapes, paramName, binName, sampleId, structureOnly}
  loaded: null, // the original: {info, graph, inputs, outputs, warnings, structureOnly}
  opt: null, // the optimized: {report, info, graph, inputs, outputs, warnings, options}
  lastOptions: null,
  verify: null,
  preset: DEFAULT_PRESET,
  image: null, // {canvas, name}: the picture for Run, at its own size
  busy: null,
  lastRun: null,
  pendingBin: null, // a .bin dropped before its .param
  formSource: null, // the source the input-size form belongs to (the loaded one, or one that failed to load)
  speed: null,
};

const params = new URLSearchParams(location.search);
const worker = new ModelWorker({
  simd: params.get('simd') === '0' ? false : undefined,
  threads: /^\d+$/.test(params.get('threads') ?? '') ? Number(params.get('threads')) : undefined,
  onRestart: restoreAfterRestart,
  onCrash: () => restartAfterCrash(),
});
// A block expanded or collapsed in one diagram is mirrored in the other (when following the
// selection): the same layers stay side by side.
const mirrorToggle = (other) => (name, open) => {
  if ($('graph-sync').checked) other().toggleAround(name, open);
  updateBlocksButton();
};
const graphA = new GraphView($('graph-a'), { label: 'Original model graph', onSelect: (n) => selectNode(n, 'a'), onToggle: mirrorToggle(() => graphB) });
const graphB = new GraphView($('graph-b'), { label: 'Optimized model graph', onSelect: (n) => selectNode(n, 'b'), onToggle: mirrorToggle(() => graphA) });
// Repeated blocks start collapsed in models this large (both diagrams decided by the original's
// size, so they start alike); smaller models show every layer, their blocks framed.
const COLLAPSE_FROM = 150;
const collapseBlocks = () => (S.loaded?.graph.nodes.length ?? 0) >= COLLAPSE_FROM;
function showGraph(view, graph, marks) {
  view.show(graph, marks, { collapse: collapseBlocks() }).then(updateBlocksButton).catch((e) => view.clear(String(e.message)));
}

// ---------------------------------------------------------------------------------------------
// Messages and busy state
// ---------------------------------------------------------------------------------------------

function setError(id, text) {
  const el = $(id);
  el.textContent = text ?? '';
  el.classList.replace('msg-info', 'msg-error');
  el.setAttribute('role', 'alert');
  show(el, !!text);
}

// A cancel is the user's own choice, not a failure: said in the same place, as information.
function setCancelled(id, text) {
  const el = $(id);
  el.textContent = text;
  el.classList.replace('msg-error', 'msg-info');
  el.setAttribute('role', 'status');
  show(el, true);
}

// Moves keyboard focus to what an action produced (only for actions the user started: the
// start-up sample must not pull focus away from the skip link).
function focusResult(el) {
  if (!el || el.hidden) return;
  if (!el.hasAttribute('tabindex')) el.tabIndex = -1;
  el.focus({ preventScroll: true });
  el.scrollIntoView({ block: 'nearest' });
}

let toastTimer = 0;
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  show(t, true);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => show(t, false), 4000);
}

const ACTION_IDS = ['sample-open', 'bin-random', 'shape-apply', 'opt-run', 'verify-run', 'speed-run', 'run-go', 'profile-go', 'bench-go',
  'dl-zip', 'dl-opt-param', 'dl-opt-bin', 'dl-opt-io', 'dl-report', 'dl-conv-param', 'dl-conv-bin', 'dl-conv-io', 'image-sample', ...QUANT_ACTION_IDS];

function setBusy(kind) {
  S.busy = kind;
  document.body.classList.toggle('busy', !!kind);
  document.body.dataset.busy = kind ?? '';
  for (const id of ACTION_IDS) $(id).disabled = !!kind || !enabledWhenIdle(id);
  // the calibration list's remove buttons: the list is fixed while work runs
  for (const b of document.querySelectorAll('#quant-list button')) b.disabled = !!kind;
  $('file-input').disabled = kind === 'load';
}

function enabledWhenIdle(id) {
  const runnable = !!S.loaded && !S.loaded.structureOnly;
  switch (id) {
    case 'opt-run': return runnable && !!S.info?.features.optimize && selectedPasses() > 0;
    case 'verify-run': return !!S.opt && !!S.info?.features.verify;
    case 'speed-run': return !!S.opt;
    case 'dl-zip': return !!S.opt || (runnable && S.source?.kind === 'onnx');
    case 'run-go': case 'profile-go': case 'bench-go': return runnable;
    case 'dl-opt-param': case 'dl-opt-bin': case 'dl-opt-io': case 'dl-report': return !!S.opt;
    case 'dl-conv-param': case 'dl-conv-bin': case 'dl-conv-io': return runnable && S.source?.kind === 'onnx';
    default: return QUANT_ACTION_IDS.includes(id) ? quant.enabled(id) : true;
  }
}

// Runs a worker request with a progress row (progress element, label, cancel button).
async function withProgress(kind, rowId, barId, labelId, fn) {
  setBusy(kind);
  const row = $(rowId);
  const bar = $(barId);
  show(row, true);
  bar.removeAttribute('value');
  if (labelId) $(labelId).textContent = '';
  const onProgress = ({ done, total, label }) => {
    if (total > 0) {
      bar.max = total;
      bar.value = done;
    }
    if (labelId) $(labelId).textContent = `${label ?? ''} ${total > 0 ? `${done} / ${total}` : ''}`.trim();
  };
  try {
    return await fn(onProgress);
  } finally {
    show(row, false);
    setBusy(null);
  }
}

// One step the user asked for, done the same way for each: what it replaces is cleared first (no
// old number or PASS beside a new error), the worker request runs with its progress row and
// Cancel, `render` shows the answer (null after a failure), a cancel is said as the user's choice
// and a failure as a message, and focus moves to what came out (`focus()`, or the message).
// Returns 'ok', 'cancelled' or 'failed'.
async function runStep(kind, { progress, errorId, request: [type, payload], clear, render, cancelled, failed, focus }) {
  setError(errorId, null);
  clear?.();
  let answer = null;
  let error = null;
  try {
    answer = await withProgress(kind, ...progress, (onProgress) => worker.request(type, payload, { onProgress }));
  } catch (e) {
    error = e;
  }
  render(answer);
  if (error?.code === 'cancelled') setCancelled(errorId, cancelled);
  else if (error) setError(errorId, explain(error, failed));
  if (focus) focusResult(error ? $(errorId) : focus());
  return error ? (error.code === 'cancelled' ? 'cancelled' : 'failed') : 'ok';
}

const CANCEL_BUTTONS = [['load-cancel', true], ['opt-cancel', false], ['verify-cancel', false], ['speed-cancel', false], ['profile-cancel', false], ['bench-cancel', false], ['quant-cancel', false]];
for (const [btn, hard] of CANCEL_BUTTONS) {
  $(btn).addEventListener('click', () => {
    $(btn).disabled = true;
    worker.cancel({ hard }).finally(() => { $(btn).disabled = false; });
  });
}

// Escape stops the camera when it is on; otherwise it cancels whatever runs (the visible Cancel
// button's action).
document.addEventListener('keydown', (e) => {
  // (a camera frame in flight finishes; no frame follows it)
  if (e.key === 'Escape' && cam.stream && (!S.busy || S.busy === 'run')) {
    stopCamera();
    return;
  }
  if (e.key !== 'Escape' || !S.busy) return;
  const btn = CANCEL_BUTTONS.map(([id]) => $(id)).find((b) => b.offsetParent !== null && !b.disabled);
  if (!btn) return;
  e.preventDefault();
  btn.click();
});

// After a hard cancel (or a crash) the new worker has no model: load the current one again,
// and optimize it again with the same options when it had been optimized.
async function restoreAfterRestart(request) {
  if (!S.source) return;
  setBusy('restore');
  show($('load-progress'), true);
  $('load-bar').removeAttribute('value');
  $('load-label').textContent = `reloading ${S.source.name}…`;
  try {
    await request('load', { source: S.source, structureOnly: !!S.source.structureOnly });
    if (S.opt && S.lastOptions) await request('optimize', { options: S.lastOptions });
    quant.modelChanged(); // the new worker has no int8 model
    toast('Stopped. The model was reloaded.');
  } catch (e) {
    setError('load-error', explain(e, 'Reloading the model after cancelling'));
  } finally {
    show($('load-progress'), false);
    setBusy(null);
  }
}

async function restartAfterCrash() {
  toast('The model worker stopped unexpectedly; restarting it.');
  try {
    await worker.restart();
  } catch (e) {
    setError('load-error', explain(e, 'Restarting the model worker'));
  }
}

// The Quantize step (web/src/quantize.mjs): pictures in, the int8 model's size, speed, agreement
// and files out. Its buttons follow setBusy like the others.
const quant = setupQuantize({
  S, worker, runStep, setError, focusResult, toast, explain, setBusy,
  fileStem: () => fileStem(),
  dropEnded: () => dropEnded(),
  resultChanged: () => renderDownloads(),
});

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

async function readFile(file) {
  return new Uint8Array(await file.arrayBuffer());
}

async function fetchBytes(url, onProgress) {
  const res = await fetch(url);
  if (!res.ok) throw Object.assign(new Error(`cannot read ${url} (HTTP ${res.status})`), { code: 'invalid_argument' });
  const total = Number(res.headers.get('Content-Length')) || 0;
  if (!res.body || !total) return new Uint8Array(await res.arrayBuffer());
  const out = new Uint8Array(total);
  let n = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (n + value.length > total) throw new Error(`${url}: more bytes than announced`);
    out.set(value, n);
    n += value.length;
    onProgress?.({ done: n, total, label: 'reading' });
  }
  return n === total ? out : out.slice(0, n);
}

function describeWeights(src, loaded) {
  if (src.kind === 'onnx') return `ONNX import of ${src.name} (${fmtBytes(src.onnx.length)})`;
  if (loaded.structureOnly) return 'structure only: no weights yet';
  if (src.bin) return `weights from ${src.binName} (${fmtBytes(src.bin.length)})`;
  return `nnfold's random weights, seed ${src.seed ?? 0}`;
}

// ---- Input sizes the model leaves open --------------------------------------------------------
// An ONNX input with symbolic sizes (or none) and an ncnn Input with no shape get a form in the
// Model card. The form opens prefilled (sizes remembered for this model, else a guess from the
// exporter's dimension names) and the model is loaded with those sizes at once, so every model
// opens; changing them re-plans the model (it is loaded again; an optimized copy is dropped).

const SHAPES_KEY = 'nnfold.shapes.v1';
const sourceKey = (src) => `${src.name}:${(src.onnx ?? src.param)?.length ?? 0}`;

function savedShapes(src) {
  try {
    return JSON.parse(localStorage.getItem(SHAPES_KEY) ?? '{}')[sourceKey(src)] ?? null;
  } catch {
    return null;
  }
}

function saveShapes(src) {
  try {
    const all = JSON.parse(localStorage.getItem(SHAPES_KEY) ?? '{}');
    all[sourceKey(src)] = src.shapes;
    localStorage.setItem(SHAPES_KEY, JSON.stringify(all));
  } catch {
    // storage full or disabled: the sizes are simply not remembered
  }
}

// ONNX: reads the declared inputs before importing; inputs with open sizes get sizes (remembered,
// given, or guessed) and are listed in `shapeInputs` for the form.
function prepareOnnx(src) {
  if (src.shapeInputs) return src;
  let inputs;
  try {
    inputs = readOnnxInputs(src.onnx);
  } catch {
    return src; // not readable here: the importer gives its own message
  }
  const open = inputs.filter(needsShape);
  if (!open.length) return src;
  const saved = savedShapes(src);
  const shapes = { ...(src.shapes ?? {}) };
  let guessed = false;
  for (const i of open) {
    if (shapes[i.name]) continue;
    if (saved?.[i.name]) shapes[i.name] = saved[i.name];
    else {
      shapes[i.name] = guessShape(i);
      guessed = true;
    }
  }
  return {
    ...src,
    shapes,
    guessed,
    shapeInputs: open.map((i) => ({ name: i.name, rank: i.dims?.length ?? null, hint: `ONNX shape: ${i.dims ? `[${describeDims(i)}]` : 'none declared'}` })),
  };
}

// ncnn: an Input without a shape (0=w 1=h 2=c all missing) is known after loading; the model is
// then loaded again with remembered or guessed sizes ([c, h, w] = [3, 224, 224]).
function ncnnOpenInputs(src, loaded) {
  const given = Object.keys(src.shapes ?? {});
  const missing = loaded.inputs.filter((i) => !i.shape && !given.includes(i.name)).map((i) => i.name);
  return [...new Set([...(src.shapeInputs ?? []).map((i) => i.name), ...given, ...missing])].map((name) => ({
    name, rank: null, hint: 'ncnn blob [c, h, w] (or [h, w], [w]): the .param declares no shape',
  }));
}

function renderShapeForm() {
  const src = S.formSource;
  const list = src?.shapeInputs ?? [];
  show($('shape-needed'), list.length > 0);
  if (!list.length) return;
  $('shape-intro').textContent = src.kind === 'onnx'
    ? `${src.name} leaves some input sizes open. ${src.guessed ? 'These are guesses from its dimension names: check them.' : 'These sizes are remembered for this model.'} Sizes are outermost first, batch included, as in the ONNX file.`
    : `${src.paramName ?? src.name} declares no shape for ${list.length > 1 ? 'these inputs' : 'this input'}. ${src.guessed ? 'A guess: check it.' : ''} Sizes are outermost first, [c, h, w] as ncnn's blob.`;
  $('shape-fields').replaceChildren(...list.flatMap((i, k) => [
    h('label', { for: `shape-${k}` }, i.name),
    h('div', {},
      h('input', { id: `shape-${k}`, type: 'text', inputmode: 'numeric', dataset: { name: i.name, rank: i.rank ?? '' }, value: (src.shapes?.[i.name] ?? []).join(', '),
        spellcheck: 'false', 'aria-describedby': `shape-hint-${k}` }),
      h('div', { id: `shape-hint-${k}`, class: 'muted small' }, i.hint)),
  ]));
}

// an edited size makes a message about the old one stale
$('shape-fields').addEventListener('input', () => setError('load-error', null));

$('shape-needed').addEventListener('submit', (e) => {
  e.preventDefault();
  const src = S.formSource;
  if (!src || S.busy) return;
  const shapes = { ...(src.shapes ?? {}) };
  for (const input of $('shape-fields').querySelectorAll('input')) {
    const parts = input.value.split(/[\s,x×]+/).filter(Boolean).map(Number);
    const rank = Number(input.dataset.rank) || 0;
    const maxRank = src.kind === 'onnx' ? 8 : 4;
    if (!parts.length || parts.length > maxRank || parts.some((d) => !Number.isInteger(d) || d < 1) || (rank && parts.length !== rank)) {
      setError('load-error', rank
        ? `The shape of '${input.dataset.name}' is ${rank} positive whole numbers (its ONNX rank), e.g. ${guessShape({ dims: null }).slice(0, rank).join(',')}.`
        : `The shape of '${input.dataset.name}' is 1 to ${maxRank} positive whole numbers, e.g. 3,224,224.`);
      input.focus();
      return;
    }
    shapes[input.dataset.name] = parts;
  }
  loadSource({ ...src, shapes, guessed: false, structureOnly: false }, { focus: true });
});

async function loadSource(source, { quiet = false, focus = false } = {}) {
  stopCamera();
  setError('load-error', null);
  if (source.kind === 'onnx') source = prepareOnnx(source);
  S.formSource = source;
  renderShapeForm();
  let r;
  try {
    r = await withProgress('load', 'load-progress', 'load-bar', 'load-label', () => {
      $('load-label').textContent = `opening ${source.name}…`;
      return worker.request('load', { source, structureOnly: !!source.structureOnly });
    });
  } catch (e) {
    if (e.code === 'cancelled') {
      toast('Loading cancelled.');
      return false;
    }
    const what = source.kind === 'onnx' ? `Could not open ${source.name}`
      : source.bin ? `Could not open ${source.paramName} with ${source.binName}` : `Could not open ${source.paramName}`;
    setError('load-error', explain(e, what) + (source.shapeInputs ? ' Check the input sizes below.' : ''));
    // the form stays with the model that failed only when its sizes may be the cause
    if (!source.shapeInputs) {
      S.formSource = S.source;
      renderShapeForm();
    }
    if (e.warnings?.length) renderWarnings('load-warnings', e.warnings);
    if (focus) focusResult(source.shapeInputs ? $('shape-fields').querySelector('input') : $('load-error'));
    return false;
  }
  if (source.kind === 'ncnn' && !source.structureOnly) {
    const open = ncnnOpenInputs(source, r);
    const unsized = open.filter((i) => !source.shapes?.[i.name]);
    if (unsized.length) {
      const saved = savedShapes(source);
      const shapes = { ...(source.shapes ?? {}) };
      for (const i of unsized) shapes[i.name] = saved?.[i.name] ?? [3, 224, 224];
      return loadSource({ ...source, shapes, shapeInputs: open, guessed: !saved }, { quiet, focus });
    }
    if (open.length) source = { ...source, shapeInputs: open };
  }
  if (source.shapeInputs) saveShapes(source);
  S.formSource = source;
  S.source = source;
  S.loaded = r;
  S.opt = null;
  S.verify = null;
  S.lastRun = null;
  S.preset = source.preset ?? (source.kind === 'onnx' || !source.sampleId ? DEFAULT_PRESET : S.preset);
  renderModel();
  if (!quiet) document.body.dataset.model = source.name;
  if (focus) focusResult($('model-id'));
  return true;
}

async function openSample(id, { focus = false } = {}) {
  const s = S.samples.find((x) => x.id === id);
  if (!s) return;
  setError('load-error', null);
  let bytes;
  try {
    bytes = await withProgress('load', 'load-progress', 'load-bar', 'load-label', (onProgress) =>
      fetchBytes(s.files.onnx ?? s.files.param, onProgress));
  } catch (e) {
    setError('load-error', explain(e, `Could not read the sample ${s.name}`));
    return;
  }
  const src = s.kind === 'onnx'
    ? { kind: 'onnx', name: `${s.name}.onnx`, onnx: bytes }
    : { kind: 'ncnn', name: s.name, param: bytes, bin: null, seed: s.seed ?? 0, paramName: `${s.name}.param`, binName: `${s.name}.bin` };
  Object.assign(src, { sampleId: s.id, preset: s.preset });
  src.shapes = savedShapes(src) ?? s.shapes;
  await loadSource(src, { focus });
  // the service worker stores a sample as it streams it: count it once that is done
  setTimeout(() => updateOfflineBadge().catch(() => {}), 500);
}

async function handleFiles(fileList) {
  const files = Array.from(fileList ?? []);
  if (!files.length) return;
  if (S.busy) {
    toast('Busy: cancel the current work first.');
    return;
  }
  setError('load-error', null);
  const plan = planDrop(files, S.source, S.pendingBin);
  if (plan.action !== 'bin-pending' && plan.action !== 'images' && plan.action !== 'error') S.pendingBin = null;
  showPendingBin();
  try {
    switch (plan.action) {
      case 'error':
        setError('load-error', plan.message);
        return;
      case 'bin-pending':
        S.pendingBin = plan.bin;
        showPendingBin();
        return;
      case 'images':
        await setImageFile(plan.image);
        document.getElementById('run').scrollIntoView({ block: 'start' });
        return;
      case 'onnx':
        await loadSource({ kind: 'onnx', name: plan.onnx.name, onnx: await readFile(plan.onnx) }, { focus: true });
        return;
      case 'ncnn':
        await loadSource({
          kind: 'ncnn', name: plan.param.name, param: await readFile(plan.param), bin: await readFile(plan.bin),
          paramName: plan.param.name, binName: plan.bin.name,
        }, { focus: true });
        return;
      case 'param-only': {
        // the structure at once (summary, graph); weights when the user gives the .bin or asks
        // for random ones
        await loadSource({
          kind: 'ncnn', name: plan.param.name, param: await readFile(plan.param), bin: null, seed: 0,
          paramName: plan.param.name, binName: `${baseName(plan.param.name)}.bin`, structureOnly: true,
        }, { focus: true });
        return;
      }
      case 'bin-for-current':
        await loadSource({ ...S.source, bin: await readFile(plan.bin), binName: plan.bin.name, structureOnly: false, sampleId: S.source.sampleId }, { focus: true });
        return;
    }
  } catch (e) {
    setError('load-error', explain(e, 'Could not read the dropped files'));
  }
}

// A .bin dropped first waits for its .param.
function showPendingBin() {
  const p = S.pendingBin;
  show($('bin-pending'), !!p);
  $('bin-pending-name').textContent = p ? p.name : '';
}
$('bin-pending-clear').addEventListener('click', () => {
  S.pendingBin = null;
  showPendingBin();
});

$('file-input').addEventListener('change', (e) => {
  handleFiles(e.target.files).finally(() => { e.target.value = ''; });
});
$('sample-open').addEventListener('click', () => openSample($('sample-select').value, { focus: true }));
$('bin-random').addEventListener('click', () => {
  const seed = Number($('bin-seed').value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    setError('load-error', 'The seed is a whole number from 0 to 4294967295.');
    return;
  }
  loadSource({ ...S.source, seed, bin: null, structureOnly: false }, { focus: true });
});

// Drag and drop anywhere on the page: models open, images become the Run input.
let dragDepth = 0;
const hasFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
window.addEventListener('dragenter', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  show($('drop-overlay'), true);
  $('dropzone').classList.add('over');
});
window.addEventListener('dragover', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = 'copy';
});
window.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) {
    show($('drop-overlay'), false);
    $('dropzone').classList.remove('over');
  }
});
function dropEnded() {
  dragDepth = 0;
  show($('drop-overlay'), false);
  $('dropzone').classList.remove('over');
}
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dropEnded();
  handleFiles(e.dataTransfer?.files);
});

// ---------------------------------------------------------------------------------------------
// Rendering the model
// ---------------------------------------------------------------------------------------------

function renderWarnings(id, list) {
  const ul = $(id);
  ul.replaceChildren(...(list ?? []).map((w) => h('li', {}, w)));
  show(ul, !!list?.length);
}

function renderModel() {
  const src = S.source;
  const L = S.loaded;
  show($('model-id'), true);
  $('model-name').textContent = src.name;
  $('model-weights').textContent = describeWeights(src, L);
  renderWarnings('load-warnings', L.warnings);
  // a .param alone: offer random weights
  show($('bin-offer'), src.kind === 'ncnn' && L.structureOnly);
  $('bin-offer-name').textContent = src.paramName ?? src.name;
  renderShapeForm();
  renderSummary();
  renderOptimize();
  showGraph(graphA, L.graph, new Map());
  graphB.clear('Optimize to see the result.');
  // the search's matches were the previous model's layers
  Object.assign(find, { query: '', hits: [], i: -1 });
  $('graph-hits').textContent = '';
  show($('graph-empty'), false);
  show($('graph-body'), true);
  closeDetails();
  $('graph-count-a').textContent = `${L.info.layers} layers`;
  $('graph-count-b').textContent = '';
  $('blob-names').replaceChildren(...[...new Set(L.info.layer_list.flatMap((l) => l.tops))].slice(0, 5000).map((n) => h('option', { value: n })));
  renderRunSetup();
  quant.modelChanged();
  renderDownloads();
  setBusy(S.busy);
}

function summaryRow(label, a, b, better) {
  let cls = null;
  if (better && a !== null && b !== null && a !== b) cls = better(a, b) ? 'delta-down' : 'delta-up';
  return [label, a, b, cls];
}

function renderSummary() {
  const A = S.loaded.info;
  const B = S.opt?.info ?? null;
  show($('summary-empty'), false);
  show($('summary-body'), true);
  const mem = (i) => (i.shapes_known ? fmtBytes(i.memory_bytes) : 'needs input shapes');
  const rows = [
    summaryRow('Layers', A.layers, B?.layers ?? null, (a, b) => b < a),
    // an ONNX file has no .bin: its weights are counted, and the optimized column is the .bin written
    S.source.kind === 'onnx'
      ? ['Weights', fmtBytes(A.weight_values * 4), B ? `${fmtBytes(S.opt.files.bin)} (.bin)` : null, null]
      : ['Weights (.bin)', fmtBytes(A.weights_file_bytes), B ? fmtBytes(S.opt.files.bin) : null,
        B && S.opt.files.bin < A.weights_file_bytes ? 'delta-down' : null],
    ['Weight values', A.weight_values.toLocaleString('en-US'), B ? B.weight_values.toLocaleString('en-US') : null, null],
    ['Estimated memory', mem(A), B ? mem(B) : null, B && B.memory_bytes < A.memory_bytes ? 'delta-down' : null],
  ];
  $('summary-table').tBodies[0].replaceChildren(...rows.map(([k, a, b, cls]) =>
    h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: 'num' }, a ?? '–'), h('td', { class: `num ${cls ?? ''}` }, b ?? '–'))));
  // Shapes written one way (docs/shapes-and-files.md): an ONNX model's inputs and outputs with the
  // ONNX file's names and shapes (batch and layout included), an ncnn model's as ncnn blobs.
  const onnx = S.source.kind === 'onnx';
  $('io-table').tHead.rows[0].cells[2].textContent = onnx ? 'ONNX shape' : 'ncnn blob [c, h, w]';
  const ioRow = (tag, io) => h('tr', {}, h('td', {}, h('span', { class: 'tag-info' }, tag)), h('td', { class: 'mono' }, io.name,
    onnx && io.blob && io.blob !== io.name ? h('span', { class: 'muted small' }, ` (ncnn blob ${io.blob})`) : null),
  h('td', { class: 'mono' }, fmtShape(io.shape), io.layout ? h('span', { class: 'muted small' }, ` ${io.layout}`) : null));
  $('io-table').tBodies[0].replaceChildren(...S.loaded.inputs.map((i) => ioRow('in', i)), ...S.loaded.outputs.map((o) => ioRow('out', o)));
  const types = new Set([...Object.keys(A.layers_by_type), ...Object.keys(B?.layers_by_type ?? {})]);
  const sorted = [...types].sort((x, y) => (A.layers_by_type[y] ?? 0) - (A.layers_by_type[x] ?? 0) || x.localeCompare(y));
  $('types-table').tBodies[0].replaceChildren(...sorted.map((t) => {
    const a = A.layers_by_type[t] ?? 0;
    const b = B ? B.layers_by_type[t] ?? 0 : null;
    return h('tr', {}, h('td', { class: 'mono' }, t), h('td', { class: 'num' }, a),
      h('td', { class: `num ${b !== null && b < a ? 'delta-down' : b !== null && b > a ? 'delta-up' : ''}` }, b ?? '–'));
  }));
}

// ---------------------------------------------------------------------------------------------
// Optimize and verify
// ---------------------------------------------------------------------------------------------

function renderPasses() {
  const names = S.info?.passes ?? [];
  $('opt-passes').replaceChildren(...names.map((n) => h('label', {}, h('input', { type: 'checkbox', value: n, checked: true, onchange: countPasses }), n)));
  countPasses();
  show($('opt-passes-box'), names.length > 0);
}
// "None" means none: with no pass selected nothing would run, so Optimize is off and says why
// (the package reads an empty pass list as "all passes").
function selectedPasses() {
  const boxes = [...$('opt-passes').querySelectorAll('input')];
  return boxes.length ? boxes.filter((b) => b.checked).length : Infinity;
}
function countPasses() {
  const boxes = [...$('opt-passes').querySelectorAll('input')];
  const n = boxes.filter((b) => b.checked).length;
  $('opt-passes-count').textContent = `(${n} of ${boxes.length})`;
  show($('opt-passes-note'), boxes.length > 0 && n === 0);
  if (n === 0) $('opt-passes-box').open = true;
  setBusy(S.busy);
}
$('opt-passes-all').addEventListener('click', () => { for (const b of $('opt-passes').querySelectorAll('input')) b.checked = true; countPasses(); });
$('opt-passes-none').addEventListener('click', () => { for (const b of $('opt-passes').querySelectorAll('input')) b.checked = false; countPasses(); });

function optimizeOptions() {
  const boxes = [...$('opt-passes').querySelectorAll('input')];
  const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
  const keep = $('opt-keep').value.split(',').map((s) => s.trim()).filter(Boolean);
  const o = { fp16: $('opt-fp16').checked, explain: $('opt-explain').checked, keep };
  if (chosen.length !== boxes.length) o.passes = chosen;
  return o;
}

function renderOptimize() {
  show($('opt-empty'), !S.opt);
  show($('opt-result'), !!S.opt);
  show($('log-box'), !!S.opt);
  if (!S.opt) {
    $('opt-error').hidden = true;
    renderVerify();
    renderSpeed();
    return;
  }
  const { report } = S.opt;
  const rewrites = report.passes.reduce((n, p) => n + p.rewrites.length, 0);
  const b = report.before, a = report.after;
  const pct = (x, y) => (x > 0 && y < x ? `${(((x - y) / x) * 100).toFixed(1)}% smaller` : '');
  const stat = (label, value, sub, key) => h('div', { class: 'stat', dataset: { stat: key } }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, value), h('div', { class: 'sub' }, sub));
  $('opt-stats').replaceChildren(
    stat('Layers', `${b.layers} → ${a.layers}`, b.layers > a.layers ? `${b.layers - a.layers} removed` : 'unchanged', 'layers'),
    stat('Rewrites', String(rewrites), `${report.passes.filter((p) => p.rewrites.length).length} passes fired`, 'rewrites'),
    stat(S.source.kind === 'onnx' ? 'Weights → .bin' : 'Weights (.bin)', `${fmtBytes(b.weights_bytes)} → ${fmtBytes(S.opt.files.bin)}`,
      [pct(b.weights_bytes, S.opt.files.bin) || 'same size', S.opt.options.fp16 ? 'fp16 storage' : ''].filter(Boolean).join(', '), 'weights'),
    stat('Est. memory', b.memory_bytes === null ? '–' : `${fmtBytes(b.memory_bytes)} → ${fmtBytes(a.memory_bytes)}`, pct(b.memory_bytes, a.memory_bytes) || '', 'memory'),
  );
  renderUnknownShapes(report.unknown_shapes);
  renderLog();
  renderVerify();
  renderSpeed();
}

// The optimizer refuses fusions whose arithmetic depends on a size it cannot infer; the report
// counts them and names the inputs without a shape. The page says so and leads to the input-size
// form. (The page gives every input a size before optimizing: given, remembered or guessed; so
// with its own loading a count comes from sizes computed inside the model at run time, and the
// inputs list is empty. The form path serves a report that names inputs all the same.)
function renderUnknownShapes(us) {
  const note = unknownShapesNote(us);
  show($('opt-shapes'), !!note);
  if (!note) return;
  $('opt-shapes-text').textContent = note.text;
  show($('opt-shapes-go'), note.inputs.length > 0);
  $('opt-shapes').dataset.refused = String(note.refused);
  $('opt-shapes').dataset.inputs = note.inputs.join(',');
}

$('opt-shapes-go').addEventListener('click', () => {
  const inputs = ($('opt-shapes').dataset.inputs ?? '').split(',').filter(Boolean);
  const src = S.formSource;
  if (!src || !inputs.length) return;
  const listed = new Set((src.shapeInputs ?? []).map((i) => i.name));
  const hint = src.kind === 'onnx' ? 'ONNX shape: none declared' : 'ncnn blob [c, h, w] (or [h, w], [w]): the .param declares no shape';
  const extra = inputs.filter((name) => !listed.has(name)).map((name) => ({ name, rank: null, hint }));
  if (extra.length) S.formSource = { ...src, shapeInputs: [...(src.shapeInputs ?? []), ...extra], guessed: false };
  renderShapeForm();
  const fields = [...$('shape-fields').querySelectorAll('input')];
  focusResult(fields.find((f) => inputs.includes(f.dataset.name) && !f.value) ?? fields[0]);
});

function layersOf(rw) {
  return Array.isArray(rw.layers) ? rw.layers.map(String) : [];
}

function renderLog() {
  const { report } = S.opt;
  const rows = [];
  for (const p of report.passes) {
    for (const rw of p.rewrites) rows.push({ pass: p.name, layers: layersOf(rw), detail: rw.detail ?? '' });
  }
  const tbody = $('log-table').tBodies[0];
  if (!rows.length) {
    tbody.replaceChildren(h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No pass changed this model: it is already as small as the optimizer can make it.')));
  } else {
    tbody.replaceChildren(...rows.map((r) => logRow(r.pass, r.layers, r.detail)));
  }
  rovingRows($('log-table'));
  const skipped = (report.skipped ?? []).map((s) => (typeof s === 'string' ? { pass: '', layers: [], reason: s } : { pass: s.pass ?? '', layers: layersOf(s), reason: s.reason ?? s.detail ?? '' }));
  $('skipped-count').textContent = `(${skipped.length})`;
  show($('skipped-box'), skipped.length > 0 || !!S.opt.options.explain);
  $('skipped-table').tBodies[0].replaceChildren(...(skipped.length ? skipped.map((s) => logRow(s.pass, s.layers, s.reason))
    : [h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No candidate was refused.'))]));
  rovingRows($('skipped-table'));
}

// A log table is one tab stop: its rows take focus in turn with the arrow keys (Home/End to the
// ends), the row last visited keeps the tab stop.
function rovingRows(table) {
  const rows = [...table.tBodies[0].rows].filter((r) => r.dataset.layers);
  rows.forEach((r, i) => { r.tabIndex = i === 0 ? 0 : -1; });
}
for (const id of ['log-table', 'skipped-table']) {
  $(id).addEventListener('keydown', (e) => {
    const rows = [...$(id).tBodies[0].rows].filter((r) => r.dataset.layers);
    const i = rows.indexOf(e.target.closest('tr'));
    if (i < 0) return;
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: rows.length - 1, PageDown: i + 10, PageUp: i - 10 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = rows[Math.max(0, Math.min(rows.length - 1, to))];
    for (const r of rows) r.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
}

let activeRow = null;
function logRow(pass, layers, detail) {
  const tr = h('tr', { tabindex: -1, dataset: { layers: JSON.stringify(layers) } },
    h('td', {}, pass), h('td', {}, layers.join(', ')), h('td', {}, detail));
  const on = () => highlightLayers(layers);
  const off = () => highlightLayers(activeRow ? JSON.parse(activeRow.dataset.layers) : null);
  tr.addEventListener('mouseenter', on);
  tr.addEventListener('mouseleave', off);
  tr.addEventListener('focus', on);
  tr.addEventListener('blur', off);
  const pick = () => {
    activeRow?.classList.remove('active');
    if (activeRow === tr) {
      activeRow = null;
      highlightLayers(null);
      return;
    }
    activeRow = tr;
    tr.classList.add('active');
    highlightLayers(layers);
    // the rewrite's own layers, out of any collapsed block
    graphA.reveal(layers);
    if ($('graph-sync').checked) graphB.reveal(layers.filter((n) => graphB.has(n)));
  };
  tr.addEventListener('click', pick);
  tr.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      pick();
    }
  });
  return tr;
}

function highlightLayers(names) {
  graphA.highlight(names);
  graphB.highlight(names);
}

function selectNode(node, side, { center = true } = {}) {
  const graph = side === 'a' ? S.loaded.graph : S.opt?.graph;
  const box = $('node-details');
  const blobs = graph.edges;
  const params = node.params.map((p) => `${p.name ?? p.id}=${Array.isArray(p.value) ? `[${p.value.slice(0, 16).join(', ')}${p.value.length > 16 ? ', …' : ''}]` : p.value}`).join('  ');
  const io = (ids) => ids.map((i) => `${blobs[i].name} ${fmtShape(blobs[i].shape)}`).join(', ') || '–';
  box.replaceChildren(
    h('div', { class: 'details-head' },
      h('h4', {}, `${node.type} `, h('span', { class: 'mono' }, node.name), h('span', { class: 'muted small' }, side === 'a' ? '  (original)' : '  (optimized)')),
      h('button', { class: 'btn btn-small details-close', type: 'button', 'aria-label': 'Close the layer details', title: 'Close (Escape)', onclick: () => closeDetails({ focus: true }) }, '×')),
    h('dl', {},
      h('dt', {}, 'input blobs'), h('dd', {}, io(node.bottoms)),
      h('dt', {}, 'output blobs'), h('dd', {}, io(node.tops)),
      h('dt', {}, 'params'), h('dd', {}, params || '–'),
      h('dt', {}, 'weights'), h('dd', {}, fmtBytes(node.weights_bytes))),
  );
  box.dataset.side = side;
  show(box, true);
  // the panel first (beside the diagrams or over their right side), then the diagrams centre
  // what is selected in the part the panel leaves free
  placeDetails();
  graphA.select(node.name);
  graphB.select(node.name);
  if (center && $('graph-sync').checked) (side === 'a' ? graphB : graphA).centerOn([node.name]);
}

// The layer details: a column beside the diagrams on wide screens, a panel over the right side of
// the diagrams below 1200 px, a sheet at the bottom of the screen on a phone (style.css). Where
// it covers a diagram, that diagram centres in the part left free.
function placeDetails() {
  const box = $('node-details');
  const over = !box.hidden && getComputedStyle(box).position === 'absolute';
  const r = box.getBoundingClientRect();
  for (const g of [graphA, graphB]) {
    const p = g.host.getBoundingClientRect();
    const covers = over && r.top < p.bottom && r.bottom > p.top && r.left < p.right;
    g.setInset(covers ? p.right - r.left : 0);
  }
}

function closeDetails({ focus = false } = {}) {
  const box = $('node-details');
  const side = box.dataset.side;
  const had = !box.hidden;
  show(box, false);
  placeDetails();
  if (had && focus) (side === 'b' ? graphB : graphA).host.focus({ preventScroll: true });
}
window.addEventListener('resize', () => placeDetails());
// Escape closes the details when nothing runs (a running step's Cancel comes first)
$('graph').addEventListener('keydown', (e) => {
  if (e.key !== 'Escape' || S.busy || $('node-details').hidden) return;
  e.preventDefault();
  closeDetails({ focus: true });
});
// a phone's sheet shows only while the graph is on screen
new IntersectionObserver(([e]) => { document.body.dataset.graphInView = String(e.isIntersecting); }).observe($('graph'));

// "Expand all blocks" / "Collapse all blocks", for both diagrams; shown when there are blocks.
function updateBlocksButton() {
  const btn = $('graph-blocks');
  const n = Math.max(graphA.blockCount, graphB.blockCount);
  show(btn, n > 0);
  const collapsed = [graphA, graphB].some((g) => Number(g.host.dataset.collapsed) > 0);
  btn.textContent = collapsed ? 'Expand all blocks' : 'Collapse all blocks';
  btn.dataset.action = collapsed ? 'expand' : 'collapse';
}
$('graph-blocks').addEventListener('click', async () => {
  const open = $('graph-blocks').dataset.action === 'expand';
  await Promise.all([graphA.setAllExpanded(open), graphB.setAllExpanded(open)]);
  updateBlocksButton();
});

$('graph-body').querySelector('.graph-toolbar').addEventListener('click', (e) => {
  const z = e.target.closest('[data-zoom]')?.dataset.zoom;
  if (!z) return;
  for (const g of [graphA, graphB]) {
    if (z === 'in') g.zoom(1.25);
    else if (z === 'out') g.zoom(0.8);
    else if (z === 'width') g.fitWidth();
    else g.fit();
  }
});

// Search: layers of the original graph (and the optimized one when it has them) whose name or
// type contains the text; Enter / the arrows go to the next / previous match, centred and shown.
const find = { query: '', hits: [], i: -1 };
function findStep(dir) {
  const q = $('graph-search').value;
  if (q !== find.query) {
    find.query = q;
    find.hits = graphA.find(q);
    find.i = dir > 0 ? -1 : 0;
  }
  if (!find.hits.length) {
    $('graph-hits').textContent = q.trim() ? 'no match' : '';
    return;
  }
  find.i = (find.i + dir + find.hits.length) % find.hits.length;
  const name = find.hits[find.i];
  const node = S.loaded.graph.nodes.find((n) => n.name === name);
  // the details first: on a wide screen they open beside the diagrams and narrow them
  if (node) selectNode(node, 'a', { center: false });
  // a layer folded into a collapsed block: the block opens (goTo)
  graphA.goTo(name);
  if ($('graph-sync').checked && graphB.has(name)) graphB.goTo(name);
  $('graph-hits').textContent = `${find.i + 1} of ${find.hits.length}`;
}
$('graph-find').addEventListener('submit', (e) => {
  e.preventDefault();
  findStep(1);
});
$('graph-prev').addEventListener('click', () => findStep(-1));
$('graph-search').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && e.shiftKey) {
    e.preventDefault();
    findStep(-1);
  }
});
$('graph-search').addEventListener('input', () => { $('graph-hits').textContent = ''; });

$('opt-run').addEventListener('click', optimize);

// A failed or cancelled optimize leaves no optimized model (the worker dropped it when it started):
// everything shown about the previous one goes with it, so no old number or PASS stands beside
// the message.
function dropOptimized() {
  const had = !!S.opt;
  S.opt = null;
  S.verify = null;
  S.speed = null;
  S.lastOptions = null;
  activeRow = null;
  renderSummary();
  renderOptimize();
  graphB.clear('Optimize to see the result.');
  $('graph-count-b').textContent = '';
  if (had) showGraph(graphA, S.loaded.graph, new Map());
  $('run-which-opt').disabled = true;
  document.querySelector('input[name="run-which"][value="orig"]').checked = true;
  renderDownloads();
}

async function optimize() {
  const options = optimizeOptions();
  const outcome = await runStep('optimize', {
    progress: ['opt-progress', 'opt-bar', 'opt-label'],
    errorId: 'opt-error',
    request: ['optimize', { options }],
    clear: () => {
      setError('verify-error', null);
      setError('speed-error', null);
    },
    // a failed or cancelled optimize leaves no optimized model (the worker dropped it)
    render: (r) => (r ? showOptimized(r, options) : dropOptimized()),
    cancelled: 'Optimization cancelled. The original model is unchanged; no optimized model.',
    failed: 'Optimizing failed',
    focus: () => null, // on success focus waits for verify and timing, below
  });
  if (outcome !== 'ok') return;
  setBusy(null);
  const checked = S.info.features.verify ? await verify({ focus: false }) : 'ok';
  // a cancel stops the chain: Escape on Verify does not start the timing
  if (S.opt && checked !== 'cancelled') await timeBoth({ focus: false });
  focusResult(S.verify ? $('verify-verdict') : $('opt-stats'));
}

function showOptimized(r, options) {
  S.opt = { ...r, options };
  S.lastOptions = options;
  S.verify = null;
  S.speed = null;
  activeRow = null;
  renderSummary();
  renderOptimize();
  // which layers each rewrite touched: gone from the result (fused) or still there (changed)
  const after = new Set(r.graph.nodes.map((n) => n.name));
  const marksA = new Map();
  const marksB = new Map();
  for (const p of r.report.passes) {
    for (const rw of p.rewrites) {
      for (const n of layersOf(rw)) {
        marksA.set(n, after.has(n) ? 'changed' : 'fused');
        if (after.has(n)) marksB.set(n, 'changed');
      }
    }
  }
  showGraph(graphA, S.loaded.graph, marksA);
  showGraph(graphB, r.graph, marksB);
  $('graph-count-b').textContent = `${r.info.layers} layers`;
  $('run-which-opt').disabled = false;
  document.querySelector('input[name="run-which"][value="opt"]').checked = true;
  renderDownloads();
}

$('verify-run').addEventListener('click', () => verify());

async function verify({ focus = true } = {}) {
  setError('verify-error', null);
  S.verify = null;
  renderVerify();
  const seed = Number($('verify-seed').value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    setError('verify-error', 'The seed is a whole number from 0 to 4294967295.');
    return 'failed';
  }
  const fp16 = !!S.opt?.options.fp16;
  return runStep('verify', {
    progress: ['verify-progress', 'verify-bar', null],
    errorId: 'verify-error',
    request: ['verify', { seed, fp16 }],
    render: (r) => {
      S.verify = r ? { ...r.report, fp16, onFiles: r.files } : null;
      renderVerify();
      renderDownloads(); // the zip's file list names the check only when there is one
    },
    cancelled: 'Verify cancelled: no result.',
    failed: 'Verifying failed',
    focus: focus && (() => $('verify-verdict')),
  });
}

// ---- Speed: original and optimized timed interleaved (worker 'compare') -----------------------
$('speed-run').addEventListener('click', () => timeBoth());

async function timeBoth({ focus = true } = {}) {
  return runStep('speed', {
    progress: ['speed-progress', 'speed-bar', 'speed-label'],
    errorId: 'speed-error',
    request: ['compare', { rounds: 21, budgetMs: 4000 }],
    clear: () => {
      S.speed = null;
      renderSpeed();
    },
    render: (r) => {
      S.speed = r?.report ?? null;
      renderSpeed();
    },
    cancelled: 'Timing cancelled: no result.',
    failed: 'Timing failed',
    focus: focus && (() => $('speed-verdict')),
  });
}

function renderSpeed() {
  const sp = S.speed;
  const verdict = $('speed-verdict');
  verdict.className = 'verdict';
  verdict.textContent = '';
  delete verdict.dataset.measurable;
  if (!sp) {
    $('speed-result').replaceChildren();
    return;
  }
  const v = speedVerdict(sp.orig, sp.opt);
  verdict.textContent = v.text;
  verdict.dataset.measurable = String(v.measurable);
  verdict.className = `verdict ${v.measurable ? (v.faster ? 'pass' : 'fail') : 'neutral'}`;
  const row = (label, m) => h('tr', { dataset: { model: label.toLowerCase(), median: String(m.median_ms), iqr: String(m.iqr_ms) } },
    h('th', { scope: 'row' }, label), h('td', { class: 'num' }, fmtMs(m.median_ms)),
    h('td', { class: 'num' }, `${fmtMs(m.q1_ms)} – ${fmtMs(m.q3_ms)}`), h('td', { class: 'num' }, fmtMs(m.iqr_ms)));
  const types = [...new Set([...Object.keys(sp.orig.types), ...Object.keys(sp.opt.types)])]
    .sort((a, b) => (sp.orig.types[b] ?? 0) - (sp.orig.types[a] ?? 0));
  $('speed-result').replaceChildren(
    h('p', { class: 'small' }, `WebAssembly ${sp.build !== 'base' ? 'SIMD-128' : 'baseline (no SIMD)'} build, ${sp.threads === 1 ? 'one thread' : `${sp.threads} threads`}. ` +
      `${sp.rounds} rounds after a warm-up, original and optimized alternating in each round; ${sp.runsPerRound > 1 ? `each sample is the mean of ${sp.runsPerRound} runs, ` : ''}ms per run.`),
    h('table', { class: 'data', id: 'speed-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col', class: 'num' }, 'median'), h('th', { scope: 'col', class: 'num' }, 'middle half (IQR)'), h('th', { scope: 'col', class: 'num' }, 'IQR'))),
      h('tbody', {}, row('Original', sp.orig), row('Optimized', sp.opt))),
    h('details', { class: 'speed-types' }, h('summary', {}, 'Time per layer type (ms per run, mean of 3 profiled runs of each)'),
      h('div', { class: 'table-scroll' }, h('table', { class: 'data nostack', id: 'speed-types-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Layer type'), h('th', { scope: 'col', class: 'num' }, 'Original'), h('th', { scope: 'col', class: 'num' }, 'Optimized'))),
        h('tbody', {}, ...types.map((t) => h('tr', {}, h('td', { class: 'mono' }, t),
          h('td', { class: 'num' }, t in sp.orig.types ? fmtMs(sp.orig.types[t]) : '–'),
          h('td', { class: 'num' }, t in sp.opt.types ? fmtMs(sp.opt.types[t]) : '–'))))))),
  );
}

function renderVerify() {
  const v = S.verify;
  const fp16 = !!S.opt?.options.fp16;
  const budget = fp16 ? 1e-2 : 1e-4;
  const budgetText = fp16 ? '1e-2' : '1e-4';
  $('verify-budget').textContent = fp16 ? '1e-2 (fp16 storage; checked on the written files)' : '1e-4';
  const verdict = $('verify-verdict');
  const tbody = $('verify-table').tBodies[0];
  if (!v) {
    verdict.textContent = '';
    verdict.className = 'verdict';
    tbody.replaceChildren();
    show($('verify-divergence'), false);
    return;
  }
  const rows = [...(v.outputs ?? []), ...(v.head_inputs ?? []).map((x) => ({ ...x, headInput: true }))];
  let pass = rows.length > 0;
  tbody.replaceChildren(...rows.map((o) => {
    const judged = o.judged !== false;
    const ok = o.err !== null && o.err !== undefined && o.err <= budget;
    if (judged && !ok) pass = false;
    const shape = o.shape_a && o.shape_b && JSON.stringify(o.shape_a) !== JSON.stringify(o.shape_b)
      ? `${fmtShape(o.shape_a)} vs ${fmtShape(o.shape_b)}` : fmtShape(o.shape_a ?? o.shape);
    return h('tr', { dataset: { output: o.name, err: String(o.err) } },
      h('td', { class: 'mono' }, o.name, o.headInput ? h('span', { class: 'muted small' }, ' (detection head input)') : null),
      h('td', { class: 'mono' }, shape),
      h('td', { class: 'num mono' }, fmtErr(o.err)),
      h('td', {}, judged ? h('span', { class: ok ? 'tag-pass' : 'tag-fail' }, ok ? 'pass' : 'fail') : h('span', { class: 'tag-info' }, o.note || 'not judged'),
        o.note && judged ? h('span', { class: 'muted small' }, ` ${o.note}`) : null));
  }));
  verdict.textContent = pass ? `PASS: max err ${fmtErr(v.max_err)} ≤ ${budgetText}` : `FAIL: max err ${fmtErr(v.max_err)} > ${budgetText}`;
  verdict.className = `verdict ${pass ? 'pass' : 'fail'}`;
  verdict.dataset.pass = String(pass);
  const d = v.first_divergence;
  show($('verify-divergence'), !!d || v.blobs_compared > 0);
  $('verify-divergence').textContent = d
    ? `First divergence: blob ${d.blob} after layer ${d.layer} (${d.type}), err ${fmtErr(d.err)}.`
    : v.blobs_compared > 0 ? `All ${v.blobs_compared} blobs both models share agree within the budget.` : '';
}

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------

function runInput() {
  const L = S.opt && document.querySelector('input[name="run-which"]:checked').value === 'opt' ? S.opt : S.loaded;
  return L.inputs[0];
}

function renderRunSetup() {
  stopCamera();
  const L = S.loaded;
  const runnable = !L.structureOnly;
  show($('run-empty'), !runnable);
  show($('run-body'), runnable);
  $('run-empty').textContent = runnable ? '' : 'Give the model weights (its .bin, or random weights) to run it.';
  $('run-which-opt').disabled = !S.opt;
  document.querySelector('input[name="run-which"][value="orig"]').checked = true;
  const p = S.preset ?? DEFAULT_PRESET;
  const lay = imageLayout(L.inputs[0]?.shape);
  const c = lay?.c ?? 3;
  const pad = (arr, fill) => Array.from({ length: c }, (_, i) => arr[i] ?? fill);
  $('pre-mean').value = pad(p.mean, 0).join(', ');
  $('pre-std').value = pad(p.std, 1).join(', ');
  $('pre-order').value = p.order ?? 'RGB';
  $('pre-preset').value = 'model';
  $('pre-layout').value = 'auto';
  const imageOk = !!lay && lay.c >= 1 && lay.c <= 4 && L.inputs.length >= 1;
  const imageRadio = document.querySelector('input[name="run-source"][value="image"]');
  imageRadio.disabled = !imageOk;
  if (!imageOk) document.querySelector('input[name="run-source"][value="random"]').checked = true;
  else imageRadio.checked = true;
  updatePreNote();
  const dec = p.decoder;
  show($('decoder-controls'), !!dec);
  if (dec) {
    $('decoder-threshold').value = DECODER_DEFAULTS[dec];
    $('decoder-threshold-label').textContent = dec === 'blazeface' ? 'Face score threshold' : 'Line score threshold';
  }
  syncSourceControls();
  $('out-table').tBodies[0].replaceChildren(h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'Run the model to see its outputs.')));
  $('run-time').textContent = '';
  $('run-result-text').textContent = '';
  $('profile-chart').replaceChildren();
  $('profile-label').textContent = '';
  $('bench-result').replaceChildren();
  for (const id of ['run-error', 'profile-error', 'bench-error', 'image-error']) setError(id, null);
  drawRunCanvas(null);
}

function updatePreNote() {
  const inp = S.loaded?.inputs[0];
  const lay = imageLayout(inp?.shape, $('pre-layout').value);
  $('pre-note').textContent = !inp ? '' : lay
    ? `Input '${inp.name}' ${fmtShape(inp.shape)}: ${lay.w}×${lay.h}, ${lay.c} channel${lay.c > 1 ? 's' : ''}, ${lay.layout === 'hwc' ? 'interleaved (HWC)' : 'planar (CHW)'}. value = (pixel − mean) / std, pixels 0–255${lay.c === 4 ? ', 4th channel = alpha' : ''}.`
    : `Input '${inp.name}' ${fmtShape(inp.shape)} is not an image: use random input.`;
}
$('pre-layout').addEventListener('change', updatePreNote);

function syncSourceControls() {
  const img = document.querySelector('input[name="run-source"]:checked').value === 'image';
  show($('image-controls'), img);
  if (!img) stopCamera();
}
for (const r of document.querySelectorAll('input[name="run-source"]')) r.addEventListener('change', syncSourceControls);

async function setImageFile(file) {
  stopCamera();
  setError('image-error', null);
  try {
    const bmp = await createImageBitmap(file);
    const canvas = document.createElement('canvas');
    const scale = Math.min(1, 1024 / Math.max(bmp.width, bmp.height));
    canvas.width = Math.max(1, Math.round(bmp.width * scale));
    canvas.height = Math.max(1, Math.round(bmp.height * scale));
    canvas.getContext('2d').drawImage(bmp, 0, 0, canvas.width, canvas.height);
    bmp.close?.();
    S.image = { canvas, name: file.name };
    const imgRadio = document.querySelector('input[name="run-source"][value="image"]');
    if (!imgRadio.disabled) imgRadio.checked = true;
    syncSourceControls();
    drawRunCanvas(null);
    toast(`Image ${file.name} ready: press Run.`);
  } catch {
    setError('image-error', `${file.name} could not be read as an image (PNG, JPEG, WebP, GIF or BMP).`);
  }
}
$('image-input').addEventListener('change', (e) => {
  const f = e.target.files?.[0];
  if (f) setImageFile(f).finally(() => { e.target.value = ''; });
});
$('image-sample').addEventListener('click', () => {
  stopCamera();
  useSamplePicture();
  drawRunCanvas(null);
});

// The camera: each frame becomes the picture and is run (the original or optimized model, as
// chosen), the results drawn on it; the next frame is taken when the result is drawn. Other work
// (optimize, verify, benchmark) takes turns with it: a frame waits while the page is busy. A new
// model, an image, random input, Stop, or a failed run stops the camera.
const cam = { stream: null, frames: 0, fps: 0 };
document.body.dataset.camera = 'off';

$('camera-start').addEventListener('click', async () => {
  setError('image-error', null);
  if (cam.stream) return;
  $('camera-start').disabled = true;
  let opened;
  try {
    opened = await openCamera();
  } catch (e) {
    const err = cameraError(e);
    document.body.dataset.camera = `error-${err.kind}`;
    setError('image-error', err.text);
    focusResult($('image-error'));
    return;
  } finally {
    $('camera-start').disabled = false;
  }
  const { video, stream } = opened;
  cam.stream = stream;
  cam.frames = 0;
  for (const t of stream.getVideoTracks()) t.addEventListener('ended', () => stopCamera('The camera stopped (unplugged, or taken by another app).'));
  const canvas = document.createElement('canvas');
  S.image = { canvas, name: 'camera' };
  show($('camera-start'), false);
  show($('camera-stop'), true);
  show($('camera-status'), true);
  $('camera-status').textContent = 'Camera on: starting…';
  document.body.dataset.camera = 'on';
  $('camera-stop').focus();
  cameraLoop(video, stream);
});

$('camera-stop').addEventListener('click', () => {
  stopCamera();
  $('camera-start').focus();
});

async function cameraLoop(video, stream) {
  let t0 = performance.now();
  let n0 = 0;
  while (cam.stream === stream) {
    if (!S.busy && video.readyState >= 2) {
      grabFrame(video, S.image.canvas);
      const ok = await run({ camera: true });
      if (cam.stream !== stream) break;
      if (!ok) {
        stopCamera('The camera stopped because the run failed (see the message below).');
        break;
      }
      cam.frames++;
      document.body.dataset.cameraFrames = String(cam.frames);
      const now = performance.now();
      if (now - t0 >= 1000) {
        cam.fps = ((cam.frames - n0) * 1000) / (now - t0);
        t0 = now;
        n0 = cam.frames;
      }
      $('camera-status').textContent = `Camera on: ${cam.frames} frame${cam.frames === 1 ? '' : 's'} run` +
        (cam.fps ? `, ${cam.fps.toFixed(1)} per second (as fast as the model runs here)` : '') + '.';
    }
    // the next animation frame (a hidden tab pauses them, and so the camera's runs)
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
  }
}

function stopCamera(message = null) {
  if (!cam.stream) return;
  for (const t of cam.stream.getTracks()) t.stop();
  cam.stream = null;
  show($('camera-start'), true);
  show($('camera-stop'), false);
  document.body.dataset.camera = 'off';
  $('camera-status').textContent = message ?? `Camera off after ${cam.frames} frame${cam.frames === 1 ? '' : 's'}; the last one stays as the picture.`;
  show($('camera-status'), true);
}

function useSamplePicture() {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 512;
  drawSamplePicture(canvas.getContext('2d'), 512);
  S.image = { canvas, name: 'sample picture' };
}

// Shows the run input (the picture, or a note for random input) with the decoded results.
function drawRunCanvas(result) {
  const cv = $('run-canvas');
  const ctx = cv.getContext('2d');
  const img = document.querySelector('input[name="run-source"]:checked')?.value === 'image' ? S.image : null;
  if (!img) {
    cv.width = 480;
    cv.height = 200;
    ctx.fillStyle = '#e9edf4';
    ctx.fillRect(0, 0, cv.width, cv.height);
    ctx.fillStyle = '#5b6576';
    ctx.font = '15px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.fillText('Random input (seeded): no picture to draw on', cv.width / 2, cv.height / 2);
    return;
  }
  drawDetections(cv, img.canvas, result);
}

function imageTensor() {
  const inp = runInput();
  const lay = imageLayout(inp.shape, $('pre-layout').value);
  if (!lay) throw new Error(`input '${inp.name}' ${fmtShape(inp.shape)} is not an image: choose random input`);
  const mean = parseNumberList($('pre-mean').value, lay.c, 'Mean');
  const std = parseNumberList($('pre-std').value, lay.c, 'Std');
  if (!S.image) useSamplePicture();
  const c = document.createElement('canvas');
  c.width = lay.w;
  c.height = lay.h;
  const ctx = c.getContext('2d', { willReadFrequently: true });
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(S.image.canvas, 0, 0, lay.w, lay.h);
  const px = ctx.getImageData(0, 0, lay.w, lay.h).data;
  const data = imageToTensor(px, lay, { mean, std, order: $('pre-order').value });
  return { name: inp.name, tensor: { data, shape: inp.shape }, lay };
}

function stats(data) {
  let min = Infinity, max = -Infinity, sum = 0, n = 0, nonfinite = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) { nonfinite++; continue; }
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    n++;
  }
  return { min: n ? min : null, max: n ? max : null, mean: n ? sum / n : null, nonfinite };
}

$('run-go').addEventListener('click', () => run({ focus: true }));

// Preprocessing presets fill mean and std (for as many channels as the input has; a 4th channel,
// alpha, keeps mean 0 and std 255 so it reads as 1); editing either makes it "custom".
$('pre-preset').addEventListener('change', () => {
  const v = $('pre-preset').value;
  const c = imageLayout(runInput()?.shape, $('pre-layout').value)?.c ?? 3;
  const p = v === 'model' ? S.preset ?? DEFAULT_PRESET : PREPROCESS[v];
  if (!p) return;
  const pick = (arr, i, alpha) => (i < 3 ? arr[i] ?? arr[0] : v === 'model' ? arr[i] ?? alpha : alpha);
  $('pre-mean').value = Array.from({ length: c }, (_, i) => pick(p.mean, i, 0)).join(', ');
  $('pre-std').value = Array.from({ length: c }, (_, i) => pick(p.std, i, 255)).join(', ');
  if (v === 'model') $('pre-order').value = S.preset?.order ?? 'RGB';
});
for (const id of ['pre-mean', 'pre-std']) $(id).addEventListener('input', () => { $('pre-preset').value = 'custom'; });

// Clears what a run shows, so a failed run never leaves the previous run's numbers beside its error.
function clearRunResult() {
  $('out-table').tBodies[0].replaceChildren(h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'Run the model to see its outputs.')));
  $('run-time').textContent = '';
  $('run-result-text').textContent = '';
  $('topk').replaceChildren();
  show($('topk'), false);
  document.body.dataset.detections = '';
  S.lastRun = null;
}

// A classifier's best classes, by index; when the output has exactly 1,000 classes (an ImageNet
// classifier, most likely) the ImageNet names are fetched on first need (imagenet-labels.json,
// data from torchvision, precached for offline use) and written beside the indices. The list is
// shown at once; the names arrive a moment later (the list then has data-labels="imagenet").
let imagenetLabels = null; // Promise<string[] | null>, started once
function loadImagenetLabels() {
  imagenetLabels ??= fetch('./imagenet-labels.json')
    .then((r) => (r.ok ? r.json() : null))
    .then((j) => (Array.isArray(j?.labels) && j.labels.length === 1000 ? j.labels : null))
    .catch(() => null);
  return imagenetLabels;
}

function renderTopK(outputs) {
  const box = $('topk');
  const found = Object.entries(outputs).map(([name, o]) => [name, topK(o, 5)]).find(([, t]) => t);
  show(box, !!found);
  if (!found) {
    box.replaceChildren();
    return;
  }
  const [name, t] = found;
  const imagenet = t.classes === 1000;
  const note = h('p', { class: 'muted small' }, `${t.softmax ? 'Probabilities by softmax of the raw scores. ' : ''}` +
    (imagenet ? '1,000 classes: read as ImageNet classes (loading their names…).' : 'Class indices, not names: the page has no label list for this number of classes.'));
  const list = h('ol', { class: 'topk-list', id: 'topk-list' }, ...t.items.map((c) => h('li', { dataset: { index: String(c.index), prob: String(c.prob) } },
    h('span', { class: 'topk-name' }, h('span', { class: 'mono' }, `class ${c.index}`)),
    h('span', { class: 'bar-wrap' }, h('span', { class: 'bar', style: `width:${Math.max(0.5, c.prob * 100).toFixed(1)}%` })),
    h('span', { class: 'num' }, `${(c.prob * 100).toFixed(1)}%`))));
  box.replaceChildren(h('h4', {}, `Top 5 of ${t.classes.toLocaleString('en-US')} classes `, h('span', { class: 'muted small mono' }, name)), list, note);
  if (!imagenet) return;
  loadImagenetLabels().then((labels) => {
    if (!list.isConnected) return; // a newer result replaced this one
    if (!labels) {
      note.textContent = `${t.softmax ? 'Probabilities by softmax of the raw scores. ' : ''}Class indices: the ImageNet names could not be loaded.`;
      return;
    }
    for (const li of list.children) {
      const i = Number(li.dataset.index);
      li.dataset.label = labels[i];
      li.firstChild.replaceChildren(h('span', { class: 'topk-label' }, labels[i]), ' ', h('span', { class: 'muted mono small' }, `#${i}`));
    }
    list.dataset.labels = 'imagenet';
    note.textContent = `${t.softmax ? 'Probabilities by softmax of the raw scores. ' : ''}Names assume the 1,000 ImageNet classes in their usual order ` +
      '(from torchvision, BSD-3-Clause; see NOTICE). A model trained on other classes gets wrong names: read the indices.';
  });
}

// Returns true when the model ran (camera frames stop on false).
async function run({ focus = false, camera = false } = {}) {
  for (const id of ['run-error', 'image-error']) setError(id, null);
  // a camera frame replaces the last frame's results in place (clearing first would flicker)
  if (!camera) clearRunResult();
  const which = document.querySelector('input[name="run-which"]:checked').value;
  const useImage = document.querySelector('input[name="run-source"]:checked').value === 'image';
  let payload;
  let lay = null;
  try {
    if (useImage) {
      const t = imageTensor();
      lay = t.lay;
      payload = { which, inputs: { [t.name]: t.tensor } };
    } else {
      const seed = Number($('run-seed').value);
      if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error('the seed is a whole number from 0 to 4294967295');
      payload = { which, seed };
    }
  } catch (e) {
    setError(useImage ? 'image-error' : 'run-error', `Cannot make the input: ${e.message}`);
    drawRunCanvas(null);
    if (focus) focusResult($(useImage ? 'image-error' : 'run-error'));
    return false;
  }
  let r;
  try {
    // camera frames do not make the page busy: its buttons stay usable (other work makes the
    // camera wait, see cameraLoop; the worker answers requests in order)
    if (!camera) setBusy('run');
    if (!camera) $('run-time').textContent = 'running…';
    r = await worker.request('run', payload, { transfer: payload.inputs ? Object.values(payload.inputs).map((t) => t.data.buffer) : [] });
  } catch (e) {
    $('run-time').textContent = '';
    setError('run-error', explain(e, 'Running failed'));
    drawRunCanvas(null);
    if (focus) focusResult($('run-error'));
    return false;
  } finally {
    if (!camera) setBusy(null);
  }
  S.lastRun = { which, outputs: r.outputs };
  // shapes written one way: an ONNX model's outputs as the ONNX file declares them
  $('out-table').tHead.rows[0].cells[1].textContent = S.source.kind === 'onnx' ? 'ONNX shape' : 'ncnn blob [c, h, w]';
  $('run-time').textContent = `${fmtMs(r.ms)} on ${which === 'opt' ? 'the optimized' : 'the original'} model`;
  $('out-table').tBodies[0].replaceChildren(...Object.entries(r.outputs).map(([name, o]) => {
    const s = stats(o.data);
    const first = Array.from(o.data.slice(0, 8));
    return h('tr', { dataset: { output: name, min: String(s.min), max: String(s.max), mean: String(s.mean), first: JSON.stringify(first), count: String(o.data.length) } },
      h('td', { class: 'mono' }, name),
      h('td', { class: 'mono' }, fmtShape(o.shape)),
      h('td', { class: 'num' }, fmtNum(s.min)),
      h('td', { class: 'num' }, fmtNum(s.max)),
      h('td', { class: 'num' }, fmtNum(s.mean)),
      h('td', {}, o.data.length ? first.map(fmtNum).join(', ') + (o.data.length > 8 ? ', …' : '') : 'empty (nothing detected)',
        s.nonfinite ? h('span', { class: 'tag-fail' }, ` ${s.nonfinite} non-finite`) : null));
  }));
  // the bundled models' results, drawn on the picture
  const dec = S.preset?.decoder;
  let result = null;
  const thr = Number($('decoder-threshold').value);
  if (dec === 'blazeface') {
    const o = findBlazefaceOutputs(r.outputs);
    if (o) {
      const size = lay?.w ?? imageLayout(runInput().shape)?.w ?? 128;
      result = { kind: 'faces', items: decodeBlazeface(o.scores, o.boxes, size, { threshold: Number.isFinite(thr) ? thr : 0.75 }) };
      $('run-result-text').textContent = `${result.items.length} face${result.items.length === 1 ? '' : 's'} found (score > ${thr}).`;
    }
  } else if (dec === 'mlsd') {
    const o = findMlsdOutputs(r.outputs);
    if (o) {
      result = { kind: 'lines', items: decodeMlsd(o.scores, o.offsets, o.h, o.w, { scoreThreshold: Number.isFinite(thr) ? thr : 0.1 }) };
      $('run-result-text').textContent = `${result.items.length} line segment${result.items.length === 1 ? '' : 's'} found (score > ${thr}, longer than 20 map pixels).`;
    }
  } else {
    $('run-result-text').textContent = '';
  }
  document.body.dataset.detections = result ? String(result.items.length) : '';
  drawRunCanvas(useImage ? result : null);
  if (!dec) renderTopK(r.outputs);
  if (focus) focusResult($('run-time'));
  return true;
}

$('profile-go').addEventListener('click', () => {
  const which = document.querySelector('input[name="run-which"]:checked').value;
  runStep('profile', {
    progress: ['profile-progress', 'profile-bar', null],
    errorId: 'profile-error',
    request: ['profile', { which, runs: 5 }],
    clear: () => {
      $('profile-chart').replaceChildren();
      $('profile-label').textContent = '';
    },
    render: (r) => r && renderProfile(r.report, which),
    cancelled: 'Profiling cancelled: no result.',
    failed: 'Profiling failed',
    focus: () => $('profile-label'),
  });
});

function renderProfile(rep, which) {
  const total = rep.layers.reduce((a, l) => a + l.ms_mean, 0);
  const top = rep.layers.slice().sort((a, b) => b.ms_mean - a.ms_mean);
  const shown = top.slice(0, 24);
  const max = shown[0]?.ms_mean || 1;
  $('profile-label').textContent = `${which === 'opt' ? 'optimized' : 'original'}: ${rep.layers.length} layers, ${fmtMs(total)} per run (mean of ${rep.runs}), peak ${fmtBytes(rep.peak_bytes)}`;
  $('profile-chart').replaceChildren(
    ...shown.map((l) => h('div', { class: 'bar-row', title: `${l.type} ${l.name}: mean ${fmtMs(l.ms_mean)}, min ${fmtMs(l.ms_min)}` },
      h('span', { class: 'bname' }, `${l.type} ${l.name}`),
      h('span', {}, h('div', { class: 'bar', style: `width:${Math.max(0.3, (l.ms_mean / max) * 100).toFixed(1)}%` })),
      h('span', { class: 'bms' }, fmtMs(l.ms_mean)))),
    top.length > shown.length ? h('p', { class: 'muted small' }, `+ ${top.length - shown.length} faster layers, ${fmtMs(top.slice(24).reduce((a, l) => a + l.ms_mean, 0))} together`) : null,
  );
}

$('bench-go').addEventListener('click', () => {
  setError('bench-error', null);
  const runs = Number($('bench-runs').value);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000) {
    setError('bench-error', 'Runs is a whole number from 1 to 1000.');
    return;
  }
  runStep('bench', {
    progress: ['bench-progress', 'bench-bar', 'bench-label'],
    errorId: 'bench-error',
    request: ['bench', { runs }],
    clear: () => $('bench-result').replaceChildren(),
    render: (r) => r && renderBench(r.report),
    cancelled: 'Benchmark cancelled: no result.',
    failed: 'Benchmark failed',
    focus: () => $('bench-result'),
  });
});

function renderBench(rep) {
  const o = rep.models.orig, p = rep.models.opt;
  const row = (label, m) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'num' }, fmtMs(m.median_ms)), h('td', { class: 'num' }, fmtMs(m.min_ms)), h('td', { class: 'num' }, fmtMs(m.max_ms)));
  $('bench-result').replaceChildren(
    h('p', { class: 'small' }, `WebAssembly ${rep.build !== 'base' ? 'SIMD-128' : 'baseline (no SIMD)'} build, median of ${rep.runs} runs after warm-up, ${rep.threads === 1 ? 'one thread' : `${rep.threads} threads`}.`),
    h('table', { class: 'data bench-table', id: 'bench-table' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, 'median'), h('th', { class: 'num' }, 'min'), h('th', { class: 'num' }, 'max'))),
      h('tbody', {}, o ? row('Original', o) : null, p ? row('Optimized', p) : null)),
    // one model after the other: a slow spell of the machine can favour either, so no ratio here
    o && p ? h('p', { class: 'muted small' }, 'The two were timed one after the other; for a comparison that says whether the difference is measurable, see Speed under Optimize (interleaved rounds).') : null,
  );
}

// ---------------------------------------------------------------------------------------------
// Download
// ---------------------------------------------------------------------------------------------

function renderDownloads() {
  const runnable = S.loaded && !S.loaded.structureOnly;
  const conv = runnable && S.source?.kind === 'onnx';
  show($('download-empty'), !S.opt && !conv);
  show($('download-body'), !!S.opt || conv);
  show($('download-opt'), !!S.opt);
  show($('download-conv'), conv);
  show($('dl-opt-io'), S.source?.kind === 'onnx');
  $('dl-opt-sizes').textContent = S.opt ? `.param ${fmtBytes(S.opt.files.param)}, .bin ${fmtBytes(S.opt.files.bin)}` : '';
  setError('download-error', null);
  renderWarnings('download-warnings', []);
  const list = S.source && (S.opt || conv) ? zipPlan(S.opt ? 'opt' : 'orig', null).map((f) => h('li', {}, h('span', { class: 'mono' }, f.name), ` ${f.what}`)) : [];
  $('dl-files').replaceChildren(...list);
  $('dl-zip-note').textContent = list.length ? `${list.length} files, described in README.txt inside` : '';
}

const fileStem = () => safeFileName(baseName(S.source.name));

// The files of the zip and what each is (the same lines go into its README.txt). `stock`: whether
// stock ncnn loads the .param (false when the writer warned of layers only nnfold has; null when
// not known yet).
function zipPlan(which, stock) {
  const stem = which === 'opt' ? `${fileStem()}.opt` : fileStem();
  const onnx = S.source.kind === 'onnx';
  const ncnnNote = stock === false
    ? 'it uses layers stock ncnn lacks (see the warnings): nnfold runs it, stock ncnn needs those layers registered'
    : 'stock ncnn loads it (Net::load_param)';
  const files = [
    { name: `${stem}.param`, what: `the ${which === 'opt' ? 'optimized' : 'converted'} model's structure, ncnn text format; ${ncnnNote}.` },
    { name: `${stem}.bin`, what: `its weights, ncnn .bin${S.opt?.options.fp16 && which === 'opt' ? ' (fp16 storage)' : ''}; load it with the .param (Net::load_model).` },
  ];
  if (onnx) {
    files.push({ name: `${stem}.io.json`, what: 'the ONNX names, shapes and layouts of the inputs and outputs and the ncnn blob holding each; nnfold reads it beside the .param, stock ncnn ignores it (read it to feed the blobs).' });
  }
  if (which === 'opt') files.push({ name: `${fileStem()}.report.json`, what: 'the optimizer report: every rewrite of every pass, skipped candidates, sizes before and after.' });
  if (S.verify) files.push({ name: `${fileStem()}.verify.json`, what: 'the check of the optimized model against the original: per-output error on the same random input.' });
  // the int8 model of the Quantize step, when there is one (quantized from the original)
  files.push(...(quant.zipEntries() ?? []));
  if (S.source.sampleId && onnx) files.push({ name: 'NOTICE.txt', what: 'where the bundled sample model comes from and its license (Apache-2.0).' });
  files.push({ name: 'README.txt', what: 'this list.' });
  return files;
}

$('dl-zip').addEventListener('click', downloadZip);

// The model's files from the worker (the original or the optimized one), their warnings shown;
// null after showing the error when writing failed.
async function writeFiles(which) {
  try {
    setBusy('download');
    const f = await worker.request('files', { which });
    renderWarnings('download-warnings', f.warnings);
    return f;
  } catch (e) {
    setError('download-error', explain(e, 'Writing the files failed'));
    return null;
  } finally {
    setBusy(null);
  }
}

async function downloadZip() {
  setError('download-error', null);
  const which = S.opt ? 'opt' : 'orig';
  const f = await writeFiles(which);
  if (!f) return;
  const stock = !(f.warnings ?? []).some((w) => /stock ncnn|extension layer|custom layer/i.test(w));
  const plan = zipPlan(which, stock);
  const int8 = plan.some((p) => p.part) ? await quant.zipData() : null;
  if (plan.some((p) => p.part) && !int8) return;
  const data = {
    param: f.param,
    bin: f.bin,
    'io.json': f.ioJson ? (typeof f.ioJson === 'string' ? f.ioJson : JSON.stringify(f.ioJson, null, 1)) : null,
    'report.json': S.opt ? JSON.stringify(S.opt.report, null, 2) : null,
    'verify.json': S.verify ? JSON.stringify(S.verify, null, 2) : null,
  };
  const readme = [
    `${S.source.name}: files written by nnfold ${S.info.version} in the browser${which === 'opt' ? ' after optimizing' : ' (ONNX converted to ncnn, not optimized)'}.`,
    '',
    ...plan.map((p) => `${p.name}\n    ${p.what}`),
    '',
  ].join('\n');
  const notice = document.querySelector('#notice p').textContent.replace(/\s+/g, ' ').trim() +
    '\nLicense text: https://www.apache.org/licenses/LICENSE-2.0\n';
  const files = [];
  for (const p of plan) {
    if (p.name === 'README.txt') files.push({ name: p.name, data: readme });
    else if (p.name === 'NOTICE.txt') files.push({ name: p.name, data: notice });
    else if (p.part) {
      if (int8[p.part] === null || int8[p.part] === undefined) {
        setError('download-error', `${p.name} could not be written by this build.`);
        return;
      }
      files.push({ name: p.name, data: int8[p.part] });
    } else {
      const key = Object.keys(data).find((k) => p.name.endsWith(`.${k}`));
      if (data[key] === null || data[key] === undefined) {
        setError('download-error', `${p.name} could not be written by this build.`);
        return;
      }
      files.push({ name: p.name, data: data[key] });
    }
  }
  saveFile(`${fileStem()}${which === 'opt' ? '.opt' : ''}.zip`, zipFiles(files), 'application/zip');
}

async function download(which, part) {
  setError('download-error', null);
  const base = fileStem();
  if (part === 'report') {
    saveFile(`${base}.report.json`, JSON.stringify(S.opt.report, null, 2), 'application/json');
    return;
  }
  const f = await writeFiles(which);
  if (!f) return;
  const stem = which === 'opt' ? `${base}.opt` : base;
  if (part === 'param') saveFile(`${stem}.param`, f.param, 'text/plain');
  else if (part === 'bin') saveFile(`${stem}.bin`, f.bin);
  else if (part === 'io') {
    if (!f.ioJson) {
      setError('download-error', 'Only a model imported from ONNX has an .io.json: a plain ncnn model needs none.');
      return;
    }
    saveFile(`${stem}.io.json`, typeof f.ioJson === 'string' ? f.ioJson : JSON.stringify(f.ioJson, null, 1), 'application/json');
  }
}
for (const [id, which, part] of [['dl-opt-param', 'opt', 'param'], ['dl-opt-bin', 'opt', 'bin'], ['dl-opt-io', 'opt', 'io'], ['dl-report', 'opt', 'report'],
  ['dl-conv-param', 'orig', 'param'], ['dl-conv-bin', 'orig', 'bin'], ['dl-conv-io', 'orig', 'io']]) {
  $(id).addEventListener('click', () => download(which, part));
}

// ---------------------------------------------------------------------------------------------
// Start-up
// ---------------------------------------------------------------------------------------------

// A page from a host that sends no COOP/COEP headers is not isolated on its first load; once the
// service worker (which adds them) controls it, a reload runs the threaded build.
function offerIsolationReload() {
  if (S.info?.isolated !== false || !navigator.serviceWorker?.controller || $('threads-reload')) return;
  const b = h('button', { class: 'btn btn-small', type: 'button', id: 'threads-reload' }, 'Reload to use threads');
  b.addEventListener('click', () => location.reload());
  $('threads-note').append(' The offline service worker now adds the isolation headers. ', b);
}

async function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || params.get('sw') === '0') return;
  try {
    await navigator.serviceWorker.register('./sw.js');
    await navigator.serviceWorker.ready;
    document.body.dataset.offlineReady = 'true';
    await updateOfflineBadge();
  } catch (e) {
    $('offline-badge').title = `offline use unavailable: ${e.message}`;
  }
}

// Which samples open without a network: the small ones are cached at install, the others the
// first time they are opened. The badge counts them and its title names them.
async function updateOfflineBadge() {
  if (document.body.dataset.offlineReady !== 'true' || !S.samples.length || !globalThis.caches) return;
  const cached = [];
  for (const s of S.samples) {
    const files = Object.values(s.files);
    const hits = await Promise.all(files.map((f) => caches.match(new URL(f, location.href).href)));
    if (hits.every(Boolean)) cached.push(s);
  }
  const b = $('offline-badge');
  b.textContent = `works offline · ${cached.length} of ${S.samples.length} samples`;
  b.className = 'badge badge-ok';
  b.dataset.cached = String(cached.length);
  const missing = S.samples.filter((s) => !cached.includes(s)).map((s) => s.name);
  b.title = `Saved for offline use: the page and ${cached.map((s) => s.name).join(', ') || 'no sample'}.` +
    (missing.length ? ` Opened once online, these are saved too: ${missing.join(', ')}.` : '');
  for (const o of $('sample-select').options) {
    const s = S.samples.find((x) => x.id === o.value);
    if (s) o.textContent = `${o.dataset.label ?? o.textContent}${cached.includes(s) ? '' : ' (needs network once)'}`;
  }
}

async function loadSamples() {
  try {
    const res = await fetch('./samples.json');
    S.samples = (await res.json()).samples ?? [];
  } catch {
    S.samples = [];
  }
  const sel = $('sample-select');
  const groups = new Map();
  for (const s of S.samples) {
    if (s.kind === 'onnx' && !S.info.features.onnx) continue;
    if (!groups.has(s.group)) groups.set(s.group, []);
    groups.get(s.group).push(s);
  }
  sel.replaceChildren(...[...groups].map(([g, list]) => h('optgroup', { label: g },
    ...list.map((s) => {
      const label = `${s.name}${s.kind === 'ncnn' ? ` (seed ${s.seed ?? 0})` : ''}`;
      return h('option', { value: s.id, dataset: { label } }, label);
    }))));
  if (!sel.options.length) {
    sel.appendChild(h('option', { value: '' }, 'no samples in this build'));
    sel.disabled = true;
  }
}

function defaultSampleId() {
  const want = params.get('sample');
  if (want === 'none') return null;
  const usable = (s) => s && (s.kind !== 'onnx' || S.info.features.onnx);
  if (want) return usable(S.samples.find((s) => s.id === want)) ? want : null;
  for (const id of ['blazeface-front', 'zoo-mobilenet']) if (usable(S.samples.find((s) => s.id === id))) return id;
  return S.samples.find(usable)?.id ?? null;
}

// Narrow screens stack data tables (style.css): each cell then carries its column's name.
function labelCells(table) {
  const heads = [...(table.tHead?.rows[0]?.cells ?? [])].map((c) => c.textContent.trim());
  for (const row of table.tBodies[0]?.rows ?? []) {
    [...row.cells].forEach((c, i) => {
      if (heads[i] && c.colSpan === 1) c.dataset.label = heads[i];
    });
  }
}
const tableObserver = new MutationObserver((records) => {
  const tables = new Set();
  for (const r of records) {
    const t = r.target.closest?.('table.data');
    if (t) tables.add(t);
    for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      if (n.matches('table.data')) tables.add(n);
      for (const x of n.querySelectorAll('table.data')) tables.add(x);
    }
  }
  for (const t of tables) labelCells(t);
});
tableObserver.observe(document.getElementById('main'), { childList: true, subtree: true });

async function start() {
  registerServiceWorker();
  useSamplePicture();
  setBusy('load');
  try {
    S.info = await worker.start();
  } catch (e) {
    $('build-badge').textContent = 'failed to start';
    setError('load-error', explain(e, 'The nnfold WebAssembly module could not start'));
    return;
  } finally {
    setBusy(null);
  }
  $('build-badge').textContent = `${S.info.build === 'base' ? 'WebAssembly baseline' : 'WebAssembly SIMD-128'} · ${S.info.threads === 1 ? '1 thread' : `${S.info.threads} threads`}`;
  $('build-badge').dataset.build = S.info.build;
  $('build-badge').dataset.threads = String(S.info.threads);
  // Without cross-origin isolation (or SharedArrayBuffer) the model runs on one thread: say why.
  if (S.info.threadsReason) {
    $('threads-note').textContent = `Runs single-threaded: ${S.info.threadsReason}.`;
    $('threads-note').hidden = false;
    offerIsolationReload();
    navigator.serviceWorker?.addEventListener('controllerchange', offerIsolationReload);
  }
  $('version').textContent = S.info.version;
  renderPasses();
  renderOptimize();
  await loadSamples();
  updateOfflineBadge().catch(() => {});
  const id = defaultSampleId();
  if (id) {
    $('sample-select').value = id;
    await openSample(id);
    // a newcomer sees the model at work at once: the sample picture through the detector
    if (S.source?.sampleId === id && S.preset?.decoder && !$('run-go').disabled) await run();
  }
  document.body.dataset.ready = 'true';
}

start();
