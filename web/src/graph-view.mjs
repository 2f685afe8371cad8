// A model graph drawn as SVG: boxes per layer (type, name), edges per blob, laid out by dagre in
// a worker (layout-worker.js). Pan by dragging or arrow keys, zoom by wheel or +/-, 0 fits.
// Names are set with textContent only (a layer name is data, never markup). Labels are hidden
// when zoomed far out, so graphs of hundreds of layers stay light to redraw.
const SVG = 'http://www.w3.org/2000/svg';

const CATEGORY = [
  [/^(Convolution|ConvolutionDepthWise|Deconvolution|DeconvolutionDepthWise|Convolution1D|Convolution3D|InnerProduct|Gemm|MatMul|MultiHeadAttention|RNN|LSTM|GRU)$/, '#dbe6ff'],
  [/^(ReLU|Clip|Sigmoid|Swish|HardSwish|HardSigmoid|GELU|Mish|TanH|PReLU|ELU|SELU|BNLL|Threshold|AbsVal|Exp|Log|Power|Erf|Softplus)$/, '#d9f2e1'],
  [/^(BatchNorm|Scale|LayerNorm|InstanceNorm|GroupNorm|LRN|Normalize|MVN)$/, '#fde5cc'],
  [/^(Pooling|Pooling1D|Pooling3D)$/, '#eadcf7'],
  [/^(BinaryOp|Eltwise|UnaryOp|Reduction|nnfold\..*)$/, '#fff0b8'],
  [/^(Input|MemoryData)$/, '#c9d4e6'],
  [/^(Softmax|DetectionOutput|YoloDetectionOutput|Yolov3DetectionOutput|PriorBox|ArgMax)$/, '#f8d7e3'],
];

// A darker tone of a category colour, for the minimap's dots.
function shade(hex) {
  const v = parseInt(hex.slice(1), 16);
  const f = (c) => Math.round(c * 0.72);
  return `rgb(${f(v >> 16)},${f((v >> 8) & 255)},${f(v & 255)})`;
}

export function colorFor(type) {
  for (const [re, c] of CATEGORY) if (re.test(type)) return c;
  return '#eceff3';
}

const NODE_H = 36;
const CHAR_W = 6.4;

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (parent) parent.appendChild(e);
  return e;
}

const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

let layoutWorker = null;
let layoutSeq = 0;
const layoutPending = new Map();

function layoutGraph(nodes, edges) {
  if (!layoutWorker) {
    layoutWorker = new Worker(new URL('./layout-worker.js', import.meta.url), { type: 'module' });
    layoutWorker.onmessage = ({ data }) => {
      const p = layoutPending.get(data.id);
      layoutPending.delete(data.id);
      if (!p) return;
      if (data.ok) p.resolve(data);
      else p.reject(new Error(`graph layout failed: ${data.message}`));
    };
  }
  const id = ++layoutSeq;
  return new Promise((resolve, reject) => {
    layoutPending.set(id, { resolve, reject });
    layoutWorker.postMessage({ id, nodes, edges });
  });
}

export class GraphView {
  constructor(host, { label, onSelect } = {}) {
    this.host = host;
    this.label = label ?? 'Model graph';
    this.onSelect = onSelect ?? (() => {});
    this.svg = null;
    this.view = { k: 1, x: 0, y: 0 };
    this.byName = new Map();
    this.size = { w: 1, h: 1 };
    this.token = 0;
    this.order = []; // layer names in the model's order (keyboard stepping, search)
    this.cursor = -1;
  }

  clear(message) {
    this.token++;
    this.host.replaceChildren();
    this.host.removeAttribute('tabindex');
    this.svg = null;
    this.byName.clear();
    this.order = [];
    this.cursor = -1;
    this.mini = null;
    if (message) {
      const d = document.createElement('div');
      d.className = 'empty small';
      d.textContent = message;
      this.host.appendChild(d);
    }
  }

  // graph: the package's model.graph(); marks: Map(layer name -> 'fused' | 'changed').
  async show(graph, marks = new Map()) {
    const token = ++this.token;
    this.host.replaceChildren();
    const note = document.createElement('div');
    note.className = 'layout-note';
    note.textContent = `Laying out ${graph.nodes.length} layers…`;
    this.host.appendChild(note);
    const nodes = graph.nodes.map((n) => {
      const chars = Math.max(n.type.length * 1.1, Math.min(n.name.length, 30));
      return { id: n.id, w: Math.max(70, Math.min(230, chars * CHAR_W + 18)), h: NODE_H };
    });
    const edges = [];
    for (const e of graph.edges) if (e.from >= 0) for (const t of e.to) edges.push([e.from, t]);
    const lay = await layoutGraph(nodes, edges);
    if (token !== this.token) return;
    this.#render(graph, nodes, lay, marks);
  }

  #render(graph, sizes, lay, marks) {
    // The SVG is drawn once at the graph's own size and moved/scaled as a whole with a CSS
    // transform (its own compositing layer): panning and zooming then repaint nothing, which
    // keeps graphs of a thousand layers smooth.
    const svg = el('svg', { width: Math.ceil(lay.width), height: Math.ceil(lay.height), viewBox: `0 0 ${Math.ceil(lay.width)} ${Math.ceil(lay.height)}`, 'aria-hidden': 'true' });
    const defs = el('defs', {}, svg);
    const mid = `arrow-${Math.random().toString(36).slice(2, 8)}`;
    const m = el('marker', { id: mid, viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#9aa6bb' }, m);
    const vp = el('g', { class: 'viewport' }, svg);
    const eg = el('g', { class: 'edges' }, vp);
    for (const e of lay.edges) {
      const d = e.points.map((p, i) => `${i ? 'L' : 'M'}${p[0].toFixed(1)},${p[1].toFixed(1)}`).join('');
      el('path', { class: 'gedge', d, 'marker-end': `url(#${mid})` }, eg);
    }
    const ng = el('g', { class: 'nodes' }, vp);
    this.byName.clear();
    graph.nodes.forEach((n, i) => {
      const [x, y] = lay.nodes[String(n.id)];
      const { w, h } = sizes[i];
      const g = el('g', { class: 'gnode', transform: `translate(${(x - w / 2).toFixed(1)},${(y - h / 2).toFixed(1)})` }, ng);
      const mark = marks.get(n.name);
      if (mark) g.classList.add(mark);
      el('rect', { width: w, height: h, rx: 6, fill: colorFor(n.type) }, g);
      const t = el('text', { class: 't', x: 8, y: 15 }, g);
      t.textContent = clip(n.type, 32);
      const nm = el('text', { class: 'n', x: 8, y: 28 }, g);
      nm.textContent = clip(n.name, Math.floor((w - 14) / 6));
      const title = el('title', {}, g);
      title.textContent = `${n.type} ${n.name}`;
      g.addEventListener('click', (ev) => {
        ev.stopPropagation();
        this.onSelect(n);
      });
      this.byName.set(n.name, { g, x, y, w, h, node: n });
    });
    this.order = graph.nodes.map((n) => n.name);
    this.cursor = -1;
    this.size = { w: lay.width, h: lay.height };
    this.engine = lay.engine;
    this.host.replaceChildren(svg);
    this.#minimap(graph, lay);
    this.host.tabIndex = 0;
    this.host.setAttribute('role', 'group');
    this.host.setAttribute('aria-label', `${this.label}: ${graph.nodes.length} layers. Arrow keys pan, plus and minus zoom, 0 fits, N and P step through the layers, Enter shows one.`);
    this.host.setAttribute('aria-live', 'off');
    if (lay.engine !== 'dagre') this.host.title = 'Simplified layout (the graph is too deep for the full layout)';
    else this.host.removeAttribute('title');
    this.svg = svg;
    this.vp = vp;
    this.#bind();
    this.fit();
  }

  // Applies the view on the next frame (wheel and drag events come faster than frames).
  #apply() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (!this.svg) return;
      const { k, x, y } = this.view;
      this.svg.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) scale(${k.toFixed(4)})`;
      this.#drawViewRect();
      const nolabels = k < 0.45;
      if (this.svg.classList.contains('nolabels') !== nolabels) this.svg.classList.toggle('nolabels', nolabels);
    });
  }

  // A minimap in the pane's corner when the graph is larger than the pane: every layer as a dot
  // in its category colour (drawn once), the visible part as a rectangle (redrawn with the view);
  // a click or drag on it centres the view there.
  #minimap(graph, lay) {
    this.mini = null;
    const b = this.#box();
    if (lay.width * 0.7 <= b.w && lay.height * 0.7 <= b.h) return;
    const H = 150;
    const scale = Math.min(H / lay.height, 110 / lay.width);
    const cw = Math.max(24, Math.ceil(lay.width * scale) + 8);
    const ch = Math.ceil(lay.height * scale) + 8;
    const base = document.createElement('canvas');
    base.width = cw;
    base.height = ch;
    const bctx = base.getContext('2d');
    bctx.fillStyle = 'rgba(255,255,255,0.92)';
    bctx.fillRect(0, 0, cw, ch);
    for (const n of graph.nodes) {
      const [x, y] = lay.nodes[String(n.id)];
      bctx.fillStyle = colorFor(n.type) === '#eceff3' ? '#aab3c2' : shade(colorFor(n.type));
      bctx.fillRect(4 + x * scale - 1.5, 4 + y * scale - 1, 3, 2);
    }
    const cv = document.createElement('canvas');
    cv.className = 'minimap';
    cv.width = cw;
    cv.height = ch;
    cv.setAttribute('aria-hidden', 'true');
    cv.title = 'Overview: click to go there';
    const go = (e) => {
      const r = cv.getBoundingClientRect();
      const gx = (e.clientX - r.left - 4) / scale;
      const gy = (e.clientY - r.top - 4) / scale;
      const box = this.#box();
      this.view = { ...this.view, x: box.w / 2 - gx * this.view.k, y: box.h / 2 - gy * this.view.k };
      this.#apply();
    };
    cv.addEventListener('pointerdown', (e) => {
      e.stopPropagation();
      cv.setPointerCapture(e.pointerId);
      go(e);
    });
    cv.addEventListener('pointermove', (e) => {
      if (e.buttons & 1) go(e);
    });
    cv.addEventListener('wheel', (e) => e.stopPropagation());
    this.host.appendChild(cv);
    this.mini = { cv, base, scale };
  }

  #drawViewRect() {
    if (!this.mini) return;
    const { cv, base, scale } = this.mini;
    const ctx = cv.getContext('2d');
    ctx.drawImage(base, 0, 0);
    const b = this.#box();
    const { k, x, y } = this.view;
    ctx.strokeStyle = '#1f4fd1';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(4 + (-x / k) * scale, 4 + (-y / k) * scale, (b.w / k) * scale, (b.h / k) * scale);
  }

  #box() {
    const r = this.host.getBoundingClientRect();
    this.seen = { w: r.width || 400, h: r.height || 400 };
    return this.seen;
  }

  // Whole graph when it fits at a readable scale; a tall graph (the usual chain of layers) is
  // shown from its top at a scale where labels stay readable, to pan down from.
  fit() {
    if (!this.svg) return;
    const b = this.#box();
    const wFit = (b.w - 16) / this.size.w;
    const hFit = (b.h - 16) / this.size.h;
    const k = Math.min(1, Math.max(Math.min(wFit, hFit), Math.min(0.7, wFit)));
    this.view = { k, x: (b.w - this.size.w * k) / 2, y: Math.max(8, (b.h - this.size.h * k) / 2) };
    this.#apply();
    this.#sharpen();
  }

  zoom(factor, cx, cy) {
    if (!this.svg) return;
    const b = this.#box();
    cx ??= b.w / 2;
    cy ??= b.h / 2;
    const k = Math.min(3, Math.max(0.05, this.view.k * factor));
    const f = k / this.view.k;
    this.view = { k, x: cx - (cx - this.view.x) * f, y: cy - (cy - this.view.y) * f };
    this.#apply();
    this.#sharpen();
  }

  // A layer promoted with will-change keeps the scale it was rasterized at; once zooming
  // settles, drop and restore the hint so the text is drawn sharp at the new scale.
  #sharpen() {
    clearTimeout(this.sharpenTimer);
    this.sharpenTimer = setTimeout(() => {
      const svg = this.svg;
      if (!svg) return;
      svg.style.willChange = 'auto';
      requestAnimationFrame(() => requestAnimationFrame(() => { svg.style.willChange = 'transform'; }));
    }, 250);
  }

  pan(dx, dy) {
    if (!this.svg) return;
    this.view.x += dx;
    this.view.y += dy;
    this.#apply();
  }

  // Listeners live on the host (bound once): the SVG inside is replaced on every show().
  #bind() {
    if (this.bound) return;
    this.bound = true;
    const host = this.host;
    // when the pane changes size (the details panel opens beside it, the window turns), what was
    // at the pane's centre stays there
    // (`seen`: the size the current view was computed for; a view set after the resize needs no shift)
    this.#box();
    new ResizeObserver(() => {
      const was = this.seen;
      const now = this.#box();
      if (this.svg && (now.w !== was.w || now.h !== was.h)) {
        this.view.x += (now.w - was.w) / 2;
        this.view.y += (now.h - was.h) / 2;
        this.#apply();
      }
    }).observe(host);
    host.addEventListener('wheel', (e) => {
      if (!this.svg) return;
      e.preventDefault();
      const r = host.getBoundingClientRect();
      this.zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    let drag = null;
    host.addEventListener('pointerdown', (e) => {
      if (e.button !== 0 || !this.svg) return;
      drag = { x: e.clientX, y: e.clientY, id: e.pointerId, captured: false };
    });
    host.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      // capture only once it is a drag, so a click still reaches the layer under the pointer
      if (!drag.captured && Math.abs(dx) + Math.abs(dy) > 3) {
        drag.captured = true;
        host.setPointerCapture(drag.id);
        host.classList.add('dragging');
      }
      if (!drag.captured) return;
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.pan(dx, dy);
    });
    const end = () => {
      drag = null;
      host.classList.remove('dragging');
    };
    host.addEventListener('pointerup', end);
    host.addEventListener('pointercancel', end);
    host.addEventListener('keydown', (e) => {
      if (!this.svg) return;
      const step = 60;
      const keys = {
        ArrowLeft: () => this.pan(step, 0), ArrowRight: () => this.pan(-step, 0),
        ArrowUp: () => this.pan(0, step), ArrowDown: () => this.pan(0, -step),
        '+': () => this.zoom(1.25), '=': () => this.zoom(1.25), '-': () => this.zoom(0.8), 0: () => this.fit(),
        n: () => this.step(1), N: () => this.step(1), p: () => this.step(-1), P: () => this.step(-1),
        Enter: () => this.cursor >= 0 && this.onSelect(this.byName.get(this.order[this.cursor]).node),
      };
      const f = keys[e.key];
      if (f) {
        e.preventDefault();
        f();
      }
    });
  }

  // Emphasises the named layers (null: none) and dims the rest.
  highlight(names) {
    if (!this.svg) return;
    const set = names ? new Set(names) : null;
    let any = false;
    for (const [name, n] of this.byName) {
      const on = !!set && set.has(name);
      n.g.classList.toggle('hl', on);
      any ||= on;
    }
    this.svg.classList.toggle('dim', any);
  }

  select(name) {
    if (!this.svg) return;
    for (const [n, v] of this.byName) v.g.classList.toggle('sel', n === name);
  }

  has(name) {
    return this.byName.has(name);
  }

  // Keyboard reach: moves the cursor to the next/previous layer in model order, centres it and
  // names it (the host's aria-label carries the current layer for screen readers).
  step(dir) {
    if (!this.order.length) return;
    this.cursor = (this.cursor + dir + this.order.length) % this.order.length;
    this.goTo(this.order[this.cursor]);
  }

  // Centres one layer, marks it as the keyboard cursor, and returns its node.
  goTo(name) {
    const v = this.byName.get(name);
    if (!v) return null;
    this.cursor = this.order.indexOf(name);
    for (const [, o] of this.byName) o.g.classList.remove('cursor');
    v.g.classList.add('cursor');
    this.centerOn([name]);
    this.host.setAttribute('aria-description', `layer ${this.cursor + 1} of ${this.order.length}: ${v.node.type} ${name}`);
    return v.node;
  }

  // Layers whose name or type contains `query` (case-insensitive), in model order.
  find(query) {
    const q = query.trim().toLowerCase();
    if (!q) return [];
    return this.order.filter((n) => n.toLowerCase().includes(q) || this.byName.get(n).node.type.toLowerCase().includes(q));
  }

  // Fit to width: the graph's width fills the pane, from the top.
  fitWidth() {
    if (!this.svg) return;
    const b = this.#box();
    const k = Math.min(1.5, Math.max(0.05, (b.w - 16) / this.size.w));
    this.view = { k, x: (b.w - this.size.w * k) / 2, y: 8 };
    this.#apply();
    this.#sharpen();
  }

  // Pans so the named layers are in view (zooming in to a readable scale when far out).
  centerOn(names) {
    if (!this.svg) return;
    const hits = names.map((n) => this.byName.get(n)).filter(Boolean);
    if (!hits.length) return;
    const x0 = Math.min(...hits.map((h) => h.x - h.w / 2)), x1 = Math.max(...hits.map((h) => h.x + h.w / 2));
    const y0 = Math.min(...hits.map((h) => h.y - h.h / 2)), y1 = Math.max(...hits.map((h) => h.y + h.h / 2));
    const b = this.#box();
    let k = Math.max(this.view.k, 0.8);
    k = Math.min(k, (b.w - 40) / Math.max(1, x1 - x0), (b.h - 40) / Math.max(1, y1 - y0), 1.5);
    this.view = { k, x: b.w / 2 - ((x0 + x1) / 2) * k, y: b.h / 2 - ((y0 + y1) / 2) * k };
    this.#apply();
    this.#sharpen();
  }
}
