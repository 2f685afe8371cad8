// The nnfold page: load a model (files or a bundled sample), inspect it, optimize and verify it,
// run it on an image or random input, download the result. All model work happens in
// worker.js (through ModelWorker); this file only drives the UI.
import { $, h, show, fmtBytes, fmtShape, fmtNum, fmtErr, fmtMs, explain, saveFile } from './dom.mjs';
import { ModelWorker } from './worker-client.mjs';
import { GraphView } from './graph-view.mjs';
import { planDrop, baseName } from './files.mjs';
import { imageLayout, parseNumberList, imageToTensor, drawSamplePicture } from './image.mjs';
import { findBlazefaceOutputs, decodeBlazeface, findMlsdOutputs, decodeMlsd } from './decoders.mjs';

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
};

const params = new URLSearchParams(location.search);
const worker = new ModelWorker({
  simd: params.get('simd') === '0' ? false : undefined,
  onRestart: restoreAfterRestart,
  onCrash: () => restartAfterCrash(),
});
const graphA = new GraphView($('graph-a'), { label: 'Original model graph', onSelect: (n) => selectNode(n, 'a') });
const graphB = new GraphView($('graph-b'), { label: 'Optimized model graph', onSelect: (n) => selectNode(n, 'b') });

// ---------------------------------------------------------------------------------------------
// Messages and busy state
// ---------------------------------------------------------------------------------------------

function setError(id, text) {
  const el = $(id);
  el.textContent = text ?? '';
  show(el, !!text);
}

let toastTimer = 0;
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  show(t, true);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => show(t, false), 4000);
}

const ACTION_IDS = ['sample-open', 'bin-random', 'shape-apply', 'opt-run', 'verify-run', 'run-go', 'profile-go', 'bench-go',
  'dl-opt-param', 'dl-opt-bin', 'dl-opt-io', 'dl-report', 'dl-conv-param', 'dl-conv-bin', 'dl-conv-io', 'image-sample'];

function setBusy(kind) {
  S.busy = kind;
  document.body.classList.toggle('busy', !!kind);
  document.body.dataset.busy = kind ?? '';
  for (const id of ACTION_IDS) $(id).disabled = !!kind || !enabledWhenIdle(id);
  $('file-input').disabled = kind === 'load';
}

function enabledWhenIdle(id) {
  const runnable = !!S.loaded && !S.loaded.structureOnly;
  switch (id) {
    case 'opt-run': return runnable && !!S.info?.features.optimize;
    case 'verify-run': return !!S.opt && !!S.info?.features.verify;
    case 'run-go': case 'profile-go': case 'bench-go': return runnable;
    case 'dl-opt-param': case 'dl-opt-bin': case 'dl-opt-io': case 'dl-report': return !!S.opt;
    case 'dl-conv-param': case 'dl-conv-bin': case 'dl-conv-io': return runnable && S.source?.kind === 'onnx';
    default: return true;
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

for (const [btn, hard] of [['load-cancel', true], ['opt-cancel', false], ['verify-cancel', false], ['profile-cancel', false], ['bench-cancel', false]]) {
  $(btn).addEventListener('click', () => {
    $(btn).disabled = true;
    worker.cancel({ hard }).finally(() => { $(btn).disabled = false; });
  });
}

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

async function loadSource(source, { quiet = false } = {}) {
  setError('load-error', null);
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
    setError('load-error', explain(e, what));
    if (e.warnings?.length) renderWarnings('load-warnings', e.warnings);
    return false;
  }
  S.source = source;
  S.loaded = r;
  S.opt = null;
  S.verify = null;
  S.lastRun = null;
  S.preset = source.preset ?? (source.kind === 'onnx' || !source.sampleId ? DEFAULT_PRESET : S.preset);
  renderModel();
  if (!quiet) document.body.dataset.model = source.name;
  return true;
}

async function openSample(id) {
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
  Object.assign(src, { sampleId: s.id, preset: s.preset, shapes: s.shapes });
  await loadSource(src);
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
        await loadSource({ kind: 'onnx', name: plan.onnx.name, onnx: await readFile(plan.onnx) });
        return;
      case 'ncnn':
        await loadSource({
          kind: 'ncnn', name: plan.param.name, param: await readFile(plan.param), bin: await readFile(plan.bin),
          paramName: plan.param.name, binName: plan.bin.name,
        });
        return;
      case 'param-only': {
        // the structure at once (summary, graph); weights when the user gives the .bin or asks
        // for random ones
        await loadSource({
          kind: 'ncnn', name: plan.param.name, param: await readFile(plan.param), bin: null, seed: 0,
          paramName: plan.param.name, binName: `${baseName(plan.param.name)}.bin`, structureOnly: true,
        });
        return;
      }
      case 'bin-for-current':
        await loadSource({ ...S.source, bin: await readFile(plan.bin), binName: plan.bin.name, structureOnly: false, sampleId: S.source.sampleId });
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
$('sample-open').addEventListener('click', () => openSample($('sample-select').value));
$('bin-random').addEventListener('click', () => {
  const seed = Number($('bin-seed').value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    setError('load-error', 'The seed is a whole number from 0 to 4294967295.');
    return;
  }
  loadSource({ ...S.source, seed, bin: null, structureOnly: false });
});
$('shape-apply').addEventListener('click', () => {
  const shapes = { ...(S.source.shapes ?? {}) };
  for (const input of $('shape-fields').querySelectorAll('input')) {
    const parts = input.value.split(/[\s,x×]+/).filter(Boolean).map(Number);
    if (!parts.length || parts.length > 4 || parts.some((d) => !Number.isInteger(d) || d < 1)) {
      setError('load-error', `The shape of '${input.dataset.name}' is 1 to 4 positive whole numbers, e.g. 3,224,224.`);
      input.focus();
      return;
    }
    shapes[input.dataset.name] = parts;
  }
  loadSource({ ...S.source, shapes });
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
window.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  show($('drop-overlay'), false);
  $('dropzone').classList.remove('over');
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
  // inputs without a shape
  const unknown = L.inputs.filter((i) => !i.shape);
  show($('shape-needed'), unknown.length > 0 && !L.structureOnly);
  $('shape-fields').replaceChildren(...unknown.flatMap((i, k) => [
    h('label', { for: `shape-${k}` }, i.name),
    h('input', { id: `shape-${k}`, type: 'text', dataset: { name: i.name }, placeholder: 'c,h,w', spellcheck: 'false' }),
  ]));
  renderSummary();
  renderOptimize();
  graphA.show(L.graph, new Map()).catch((e) => graphA.clear(String(e.message)));
  graphB.clear('Optimize to see the result.');
  show($('graph-empty'), false);
  show($('graph-body'), true);
  show($('node-details'), false);
  $('graph-count-a').textContent = `${L.info.layers} layers`;
  $('graph-count-b').textContent = '';
  $('blob-names').replaceChildren(...[...new Set(L.info.layer_list.flatMap((l) => l.tops))].slice(0, 5000).map((n) => h('option', { value: n })));
  renderRunSetup();
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
    ['Weights (.bin)', fmtBytes(A.weights_file_bytes), B ? fmtBytes(S.opt.files.bin) : null,
      B && S.opt.files.bin < A.weights_file_bytes ? 'delta-down' : null],
    ['Weight values', A.weight_values.toLocaleString('en-US'), B ? B.weight_values.toLocaleString('en-US') : null, null],
    ['Estimated memory', mem(A), B ? mem(B) : null, B && B.memory_bytes < A.memory_bytes ? 'delta-down' : null],
  ];
  $('summary-table').tBodies[0].replaceChildren(...rows.map(([k, a, b, cls]) =>
    h('tr', {}, h('th', { scope: 'row' }, k), h('td', { class: 'num' }, a ?? '–'), h('td', { class: `num ${cls ?? ''}` }, b ?? '–'))));
  $('io-table').tBodies[0].replaceChildren(
    ...A.inputs.map((i) => h('tr', {}, h('td', {}, h('span', { class: 'tag-info' }, 'in')), h('td', { class: 'mono' }, i.name), h('td', { class: 'mono' }, fmtShape(i.shape)))),
    ...A.outputs.map((o) => h('tr', {}, h('td', {}, h('span', { class: 'tag-info' }, 'out')), h('td', { class: 'mono' }, o.name), h('td', { class: 'mono' }, fmtShape(o.shape)))),
  );
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
function countPasses() {
  const boxes = [...$('opt-passes').querySelectorAll('input')];
  $('opt-passes-count').textContent = `(${boxes.filter((b) => b.checked).length} of ${boxes.length})`;
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
    stat('Weights (.bin)', `${fmtBytes(b.weights_bytes)} → ${fmtBytes(S.opt.files.bin)}`,
      [pct(b.weights_bytes, S.opt.files.bin) || 'same size', S.opt.options.fp16 ? 'fp16 storage' : ''].filter(Boolean).join(', '), 'weights'),
    stat('Est. memory', b.memory_bytes === null ? '–' : `${fmtBytes(b.memory_bytes)} → ${fmtBytes(a.memory_bytes)}`, pct(b.memory_bytes, a.memory_bytes) || '', 'memory'),
  );
  renderLog();
  renderVerify();
}

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
  const skipped = (report.skipped ?? []).map((s) => (typeof s === 'string' ? { pass: '', layers: [], reason: s } : { pass: s.pass ?? '', layers: layersOf(s), reason: s.reason ?? s.detail ?? '' }));
  $('skipped-count').textContent = `(${skipped.length})`;
  show($('skipped-box'), skipped.length > 0 || !!S.opt.options.explain);
  $('skipped-table').tBodies[0].replaceChildren(...(skipped.length ? skipped.map((s) => logRow(s.pass, s.layers, s.reason))
    : [h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No candidate was refused.'))]));
}

let activeRow = null;
function logRow(pass, layers, detail) {
  const tr = h('tr', { tabindex: 0, dataset: { layers: JSON.stringify(layers) } },
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
    graphA.centerOn(layers);
    if ($('graph-sync').checked) graphB.centerOn(layers.filter((n) => graphB.has(n)));
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

function selectNode(node, side) {
  const graph = side === 'a' ? S.loaded.graph : S.opt?.graph;
  graphA.select(node.name);
  graphB.select(node.name);
  if ($('graph-sync').checked) (side === 'a' ? graphB : graphA).centerOn([node.name]);
  const box = $('node-details');
  const blobs = graph.edges;
  const params = node.params.map((p) => `${p.name ?? p.id}=${Array.isArray(p.value) ? `[${p.value.slice(0, 16).join(', ')}${p.value.length > 16 ? ', …' : ''}]` : p.value}`).join('  ');
  const io = (ids) => ids.map((i) => `${blobs[i].name} ${fmtShape(blobs[i].shape)}`).join(', ') || '–';
  box.replaceChildren(
    h('h4', {}, `${node.type} `, h('span', { class: 'mono' }, node.name), h('span', { class: 'muted small' }, side === 'a' ? '  (original)' : '  (optimized)')),
    h('dl', {},
      h('dt', {}, 'inputs'), h('dd', {}, io(node.bottoms)),
      h('dt', {}, 'outputs'), h('dd', {}, io(node.tops)),
      h('dt', {}, 'params'), h('dd', {}, params || '–'),
      h('dt', {}, 'weights'), h('dd', {}, fmtBytes(node.weights_bytes))),
  );
  show(box, true);
}

$('graph-body').querySelector('.graph-toolbar').addEventListener('click', (e) => {
  const z = e.target.closest('[data-zoom]')?.dataset.zoom;
  if (!z) return;
  for (const g of [graphA, graphB]) {
    if (z === 'in') g.zoom(1.25);
    else if (z === 'out') g.zoom(0.8);
    else g.fit();
  }
});

$('opt-run').addEventListener('click', optimize);

async function optimize() {
  setError('opt-error', null);
  setError('verify-error', null);
  const options = optimizeOptions();
  let r;
  try {
    r = await withProgress('optimize', 'opt-progress', 'opt-bar', 'opt-label', (onProgress) =>
      worker.request('optimize', { options }, { onProgress }));
  } catch (e) {
    setError('opt-error', e.code === 'cancelled' ? 'Optimization cancelled; the original model is unchanged.' : explain(e, 'Optimizing failed'));
    return;
  }
  S.opt = { ...r, options };
  S.lastOptions = options;
  S.verify = null;
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
  graphA.show(S.loaded.graph, marksA).catch((e) => graphA.clear(String(e.message)));
  graphB.show(r.graph, marksB).catch((e) => graphB.clear(String(e.message)));
  $('graph-count-b').textContent = `${r.info.layers} layers`;
  $('run-which-opt').disabled = false;
  document.querySelector('input[name="run-which"][value="opt"]').checked = true;
  renderDownloads();
  setBusy(null);
  if (S.info.features.verify) await verify();
}

$('verify-run').addEventListener('click', verify);

async function verify() {
  setError('verify-error', null);
  const seed = Number($('verify-seed').value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    setError('verify-error', 'The seed is a whole number from 0 to 4294967295.');
    return;
  }
  const fp16 = !!S.opt?.options.fp16;
  try {
    const r = await withProgress('verify', 'verify-progress', 'verify-bar', null, (onProgress) =>
      worker.request('verify', { seed, fp16 }, { onProgress }));
    S.verify = { ...r.report, fp16, onFiles: r.files };
  } catch (e) {
    S.verify = null;
    setError('verify-error', explain(e, 'Verifying failed'));
  }
  renderVerify();
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
}
for (const r of document.querySelectorAll('input[name="run-source"]')) r.addEventListener('change', syncSourceControls);

async function setImageFile(file) {
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
  useSamplePicture();
  drawRunCanvas(null);
});

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
  const src = img.canvas;
  const scale = Math.min(1, 640 / Math.max(src.width, src.height));
  cv.width = Math.round(src.width * scale);
  cv.height = Math.round(src.height * scale);
  ctx.drawImage(src, 0, 0, cv.width, cv.height);
  if (!result) return;
  const W = cv.width, H = cv.height;
  const lw = Math.max(2, W / 220);
  if (result.kind === 'faces') {
    for (const f of result.items) {
      ctx.strokeStyle = '#ff2d6f';
      ctx.lineWidth = lw;
      ctx.strokeRect((f.cx - f.w / 2) * W, (f.cy - f.h / 2) * H, f.w * W, f.h * H);
      ctx.fillStyle = '#ffd400';
      for (const p of f.keypoints) {
        ctx.beginPath();
        ctx.arc(p.x * W, p.y * H, lw * 1.3, 0, Math.PI * 2);
        ctx.fill();
      }
      const label = `face ${(f.score * 100).toFixed(0)}%`;
      ctx.font = `${Math.round(lw * 6)}px system-ui, sans-serif`;
      const tw = ctx.measureText(label).width;
      const x = (f.cx - f.w / 2) * W, y = Math.max(lw * 7, (f.cy - f.h / 2) * H);
      ctx.fillStyle = '#ff2d6f';
      ctx.fillRect(x, y - lw * 7, tw + lw * 3, lw * 7);
      ctx.fillStyle = '#fff';
      ctx.fillText(label, x + lw * 1.5, y - lw * 1.5);
    }
  } else if (result.kind === 'lines') {
    ctx.lineCap = 'round';
    for (const s of result.items) {
      ctx.strokeStyle = '#ff2d6f';
      ctx.lineWidth = lw;
      ctx.beginPath();
      ctx.moveTo(s.x0 * W, s.y0 * H);
      ctx.lineTo(s.x1 * W, s.y1 * H);
      ctx.stroke();
      ctx.fillStyle = '#00c2ff';
      for (const [x, y] of [[s.x0, s.y0], [s.x1, s.y1]]) {
        ctx.beginPath();
        ctx.arc(x * W, y * H, lw * 1.1, 0, Math.PI * 2);
        ctx.fill();
      }
    }
  }
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

$('run-go').addEventListener('click', run);

async function run() {
  for (const id of ['run-error', 'image-error']) setError(id, null);
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
    return;
  }
  let r;
  try {
    setBusy('run');
    $('run-time').textContent = 'running…';
    r = await worker.request('run', payload, { transfer: payload.inputs ? Object.values(payload.inputs).map((t) => t.data.buffer) : [] });
  } catch (e) {
    $('run-time').textContent = '';
    setError('run-error', explain(e, 'Running failed'));
    return;
  } finally {
    setBusy(null);
  }
  S.lastRun = { which, outputs: r.outputs };
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
}

$('profile-go').addEventListener('click', async () => {
  setError('profile-error', null);
  const which = document.querySelector('input[name="run-which"]:checked').value;
  let r;
  try {
    r = await withProgress('profile', 'profile-progress', 'profile-bar', null, (onProgress) =>
      worker.request('profile', { which, runs: 5 }, { onProgress }));
  } catch (e) {
    setError('profile-error', explain(e, 'Profiling failed'));
    return;
  }
  const rep = r.report;
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
});

$('bench-go').addEventListener('click', async () => {
  setError('bench-error', null);
  const runs = Number($('bench-runs').value);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000) {
    setError('bench-error', 'Runs is a whole number from 1 to 1000.');
    return;
  }
  let r;
  try {
    r = await withProgress('bench', 'bench-progress', 'bench-bar', 'bench-label', (onProgress) =>
      worker.request('bench', { runs }, { onProgress }));
  } catch (e) {
    setError('bench-error', explain(e, 'Benchmark failed'));
    return;
  }
  const rep = r.report;
  const o = rep.models.orig, p = rep.models.opt;
  const row = (label, m) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'num' }, fmtMs(m.median_ms)), h('td', { class: 'num' }, fmtMs(m.min_ms)), h('td', { class: 'num' }, fmtMs(m.max_ms)));
  $('bench-result').replaceChildren(
    h('p', { class: 'small' }, `WebAssembly ${rep.build === 'simd' ? 'SIMD-128' : 'baseline (no SIMD)'} build, median of ${rep.runs} runs after warm-up, one thread.`),
    h('table', { class: 'data bench-table', id: 'bench-table' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, 'median'), h('th', { class: 'num' }, 'min'), h('th', { class: 'num' }, 'max'))),
      h('tbody', {}, o ? row('Original', o) : null, p ? row('Optimized', p) : null)),
    o && p ? h('p', { class: 'small' }, `Optimized runs in ${((p.median_ms / o.median_ms) * 100).toFixed(0)}% of the original's time (${(o.median_ms / p.median_ms).toFixed(2)}× speed).`) : null,
  );
});

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
}

async function download(which, part) {
  setError('download-error', null);
  const base = baseName(S.source.name);
  if (part === 'report') {
    saveFile(`${base}.report.json`, JSON.stringify(S.opt.report, null, 2), 'application/json');
    return;
  }
  let f;
  try {
    setBusy('download');
    f = await worker.request('files', { which });
  } catch (e) {
    setError('download-error', explain(e, 'Writing the files failed'));
    return;
  } finally {
    setBusy(null);
  }
  renderWarnings('download-warnings', f.warnings);
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

async function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || params.get('sw') === '0') return;
  try {
    await navigator.serviceWorker.register('./sw.js');
    await navigator.serviceWorker.ready;
    const b = $('offline-badge');
    b.textContent = 'works offline';
    b.className = 'badge badge-ok';
    document.body.dataset.offlineReady = 'true';
  } catch (e) {
    $('offline-badge').title = `offline use unavailable: ${e.message}`;
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
    ...list.map((s) => h('option', { value: s.id }, `${s.name}${s.kind === 'ncnn' ? ` (seed ${s.seed ?? 0})` : ''}`)))));
  if (!sel.options.length) {
    sel.appendChild(h('option', { value: '' }, 'no samples in this build'));
    sel.disabled = true;
  }
}

function defaultSample() {
  const want = params.get('sample');
  if (want === 'none') return null;
  const usable = (s) => s && (s.kind !== 'onnx' || S.info.features.onnx);
  if (want) return usable(S.samples.find((s) => s.id === want)) ? want : null;
  for (const id of ['blazeface-front', 'zoo-mobilenet']) if (usable(S.samples.find((s) => s.id === id))) return id;
  return S.samples.find(usable)?.id ?? null;
}

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
  $('build-badge').textContent = S.info.build === 'simd' ? 'WebAssembly SIMD-128' : 'WebAssembly baseline';
  $('build-badge').dataset.build = S.info.build;
  $('version').textContent = S.info.version;
  renderPasses();
  renderOptimize();
  await loadSamples();
  const id = defaultSample();
  if (id) {
    $('sample-select').value = id;
    await openSample(id);
    // a newcomer sees the model at work at once: the sample picture through the detector
    if (S.source?.sampleId === id && S.preset?.decoder && !$('run-go').disabled) await run();
  }
  document.body.dataset.ready = 'true';
}

start();
