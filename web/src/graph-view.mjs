// A model graph drawn as SVG: boxes per layer (type, name), edges per blob, laid out by dagre in
// a worker (layout-worker.js). Pan by dragging or arrow keys, zoom by wheel or +/-, 0 fits.
// Names are set with textContent only (a layer name is data, never markup). Labels are hidden
// when zoomed far out, so graphs of hundreds of layers stay light to redraw.
//
// Repeated blocks (blocks.mjs) can be collapsed into one box ("6 × 8 layers") and expanded by a
// click or Enter. The model is cut at single-blob cuts into pieces, each laid out on its own
// (and only once) and stacked top to bottom, each piece's entry under the previous one's exit:
// expanding a block changes only its own piece, so everything above it stays where it was and
// everything below moves down as one.
import { findBlocks, typeSummary } from './blocks.mjs';

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
const BLOCK_W = 260;
const BLOCK_H = 60;
const GAP = 28; // between stacked pieces (the layout's rank separation)
const MARGIN = 16; // the layout worker's margin around each piece
const FRAME_PAD = 10;
const FRAME_HEAD = 24;

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

// Started with the first diagram (before any model is open), so its script is loaded and
// compiled by the time the first layout is asked for.
function startLayoutWorker() {
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
}

function layoutPieces(pieces) {
  startLayoutWorker();
  const id = ++layoutSeq;
  return new Promise((resolve, reject) => {
    layoutPending.set(id, { resolve, reject });
    layoutWorker.postMessage({ id, pieces });
  });
}

export class GraphView {
  // onSelect(node): a layer was chosen; onToggle(name, open): the block holding layer `name`
  // was expanded or collapsed by the user (the page mirrors it in the other diagram).
  constructor(host, { label, onSelect, onToggle } = {}) {
    this.host = host;
    this.label = label ?? 'Model graph';
    this.onSelect = onSelect ?? (() => {});
    this.onToggle = onToggle ?? (() => {});
    this.svg = null;
    this.view = { k: 1, x: 0, y: 0 };
    this.size = { w: 1, h: 1 };
    this.inset = { right: 0 };
    this.token = 0;
    this.graph = null;
    this.items = new Map(); // visible boxes: layer name or `#block<id>` -> {key, g, x, y, w, h, node?, block?}
    this.visible = []; // their keys in model order (keyboard stepping)
    this.posOf = new Map();
    this.cursorKey = null;
    this.selected = null;
    this.hlNames = null;
    startLayoutWorker();
  }

  clear(message) {
    this.token++;
    this.host.replaceChildren();
    this.host.removeAttribute('tabindex');
    for (const k of ['layers', 'shown', 'blocks', 'collapsed', 'layoutMs', 'renderMs']) delete this.host.dataset[k];
    this.svg = null;
    this.graph = null;
    this.model = null;
    this.items.clear();
    this.visible = [];
    this.posOf.clear();
    this.cursorKey = null;
    this.selected = null;
    this.hlNames = null;
    this.mini = null;
    if (message) {
      const d = document.createElement('div');
      d.className = 'empty small';
      d.textContent = message;
      this.host.appendChild(d);
    }
  }

  // graph: the package's model.graph(); marks: Map(layer name -> 'fused' | 'changed');
  // collapse: start with the repeated blocks collapsed.
  async show(graph, marks = new Map(), { collapse = false } = {}) {
    const token = ++this.token;
    this.host.replaceChildren();
    const note = document.createElement('div');
    note.className = 'layout-note';
    note.textContent = `Laying out ${graph.nodes.length} layers…`;
    this.host.appendChild(note);
    this.svg = null;
    this.graph = graph;
    this.marks = marks;
    this.model = findBlocks(graph);
    this.blockOf = new Int32Array(graph.nodes.length).fill(-1);
    for (const b of this.model.blocks) for (const rep of b.reps) for (const p of rep) this.blockOf[p] = b.id;
    this.expanded = new Set(collapse ? [] : this.model.blocks.map((b) => b.id));
    // widths in steps of 8 px: repeated blocks' layers (conv2_1/x1, conv2_12/x1) then get equal
    // boxes, and the layout worker reuses one layout for all of them
    this.sizes = graph.nodes.map((n) => {
      const chars = Math.max(n.type.length * 1.1, Math.min(n.name.length, 30));
      return { w: Math.ceil(Math.max(70, Math.min(230, chars * CHAR_W + 18)) / 8) * 8, h: NODE_H };
    });
    this.posOf = new Map(graph.nodes.map((n, i) => [n.name, i]));
    this.blobs = new Map(graph.edges.map((e) => [e.id, e]));
    this.cache = new Map();
    this.cursorKey = null;
    this.selected = null;
    this.hlNames = null;
    this.shift = null;
    await this.#relayout(token);
    if (token !== this.token) return;
    this.fit();
  }

  // The pieces to stack, in order: {key, nodes: [pos]} laid out by the worker, {key, block} for a
  // collapsed block (one box), and frame markers around an expanded block's pieces.
  #pieces() {
    const out = [];
    this.model.parts.forEach((part, i) => {
      if (part.kind === 'run') {
        part.pieces.forEach((nodes, j) => out.push({ key: `r${i}.${j}`, nodes }));
        return;
      }
      const b = part.block;
      if (!this.expanded.has(b.id)) {
        out.push({ key: `b${b.id}`, block: b });
        return;
      }
      out.push({ frame: 'open', block: b });
      b.pieces.forEach((nodes, j) => out.push({ key: `b${b.id}.${j}`, nodes }));
      out.push({ frame: 'close', block: b });
    });
    return out;
  }

  // Lays out what is not laid out yet (one worker request), stacks, draws. The view keeps what
  // was on screen where it was: stacking never moves what is above a change, and the sideways
  // shift from re-centring the whole is taken back in the view.
  async #relayout(token) {
    const t0 = performance.now();
    const pieces = this.#pieces();
    const todo = pieces.filter((p) => p.nodes && !this.cache.has(p.key));
    if (todo.length) {
      const inPiece = new Int32Array(this.graph.nodes.length).fill(-1);
      const req = todo.map((p, j) => {
        for (const pos of p.nodes) inPiece[pos] = j;
        return { nodes: p.nodes.map((pos) => ({ id: pos, w: this.sizes[pos].w, h: this.sizes[pos].h })), edges: [] };
      });
      for (const e of this.graph.edges) {
        const a = this.#pos(e.from);
        if (a < 0 || inPiece[a] < 0) continue;
        for (const t of e.to) {
          const b = this.#pos(t);
          if (b >= 0 && inPiece[b] === inPiece[a]) req[inPiece[a]].edges.push([a, b]);
        }
      }
      const lay = await layoutPieces(req);
      if (token !== this.token) return;
      todo.forEach((p, j) => this.cache.set(p.key, lay.pieces[j]));
    }
    const t1 = performance.now();
    const stacked = this.#stack(pieces);
    // a box's new screen x is view.x' + (x + shift') k; the same as before when view.x' = view.x + (shift - shift') k
    if (this.shift !== null && this.svg) this.view.x += (this.shift - stacked.shift) * this.view.k;
    this.shift = stacked.shift;
    this.#render(stacked);
    const t2 = performance.now();
    this.host.dataset.layoutMs = (t1 - t0).toFixed(1);
    this.host.dataset.renderMs = (t2 - t1).toFixed(1);
  }

  // graph node id -> position in graph.nodes (ids are positions in the package's graph JSON;
  // looked up when they are not)
  #pos(id) {
    if (id < 0) return -1;
    const n = this.graph.nodes[id];
    if (n && n.id === id) return id;
    this.idPos ??= new Map(this.graph.nodes.map((v, i) => [v.id, i]));
    return this.idPos.get(id) ?? -1;
  }

  // The box standing for a layer: its own, or its collapsed block's.
  #keyOf(pos) {
    const b = this.blockOf[pos];
    return b >= 0 && !this.expanded.has(b) ? `#block${b}` : this.graph.nodes[pos].name;
  }

  #stack(pieces) {
    const boxes = []; // {key, x, y, w, h, node?, block?}
    const byKey = new Map();
    const edges = []; // polylines
    const frames = [];
    const cuts = this.model.cuts;
    let y = MARGIN;
    let exit = null; // the box that makes the blob into the next piece
    let frameTop = 0;
    let frameFirst = 0;
    for (const p of pieces) {
      if (p.frame === 'open') {
        frameTop = y;
        frameFirst = boxes.length;
        y += FRAME_HEAD;
        continue;
      }
      if (p.frame === 'close') {
        const inner = boxes.slice(frameFirst);
        let x0 = Math.min(...inner.map((b) => b.x - b.w / 2)) - FRAME_PAD;
        let x1 = Math.max(...inner.map((b) => b.x + b.w / 2)) + FRAME_PAD;
        // its header at the top left, clear of the edge coming down into the first layer
        const head = frameHeadWidth(p.block);
        x0 = Math.min(x0, inner[0].x - 12 - head - 12);
        x1 = Math.max(x1, x0 + head + 24);
        frames.push({ block: p.block, x: x0, y: frameTop, w: x1 - x0, h: y - GAP + FRAME_PAD - frameTop, head });
        y += FRAME_PAD;
        continue;
      }
      const first = p.block ? p.block.reps[0][0] : p.nodes[0];
      const last = p.block ? p.block.reps.at(-1).at(-1) : p.nodes.at(-1);
      let local; // {pos -> [x, y]}, width, height, edges (in the piece's own frame, margins included)
      if (p.block) {
        local = { nodes: { [first]: [MARGIN + BLOCK_W / 2, MARGIN + BLOCK_H / 2] }, width: BLOCK_W + 2 * MARGIN, height: BLOCK_H + 2 * MARGIN, edges: [] };
      } else {
        local = this.cache.get(p.key);
      }
      // the consumers of the blob coming in, to put under the previous piece's exit
      const inBlob = first > 0 ? cuts[first - 1] : -1;
      const entries = inBlob >= 0 ? [...new Set(this.blobs.get(inBlob).to.map((t) => this.#pos(t)))].filter((q) => q >= 0) : [];
      const localX = (q) => local.nodes[String(p.block ? first : q)][0];
      const entryX = entries.length ? entries.reduce((a, q) => a + localX(q), 0) / entries.length : local.width / 2;
      const dx = (exit ? exit.x : entryX) - entryX;
      const dy = y - MARGIN;
      const add = (key, pos, x, yy, w, h, block) => {
        const box = { key, x: x + dx, y: yy + dy, w, h, node: block ? null : this.graph.nodes[pos], block };
        boxes.push(box);
        byKey.set(key, box);
      };
      if (p.block) add(`#block${p.block.id}`, first, ...local.nodes[first], BLOCK_W, BLOCK_H, p.block);
      else for (const pos of p.nodes) add(this.graph.nodes[pos].name, pos, ...local.nodes[String(pos)], this.sizes[pos].w, this.sizes[pos].h, null);
      for (const e of local.edges) edges.push(e.points.map(([px, py]) => [px + dx, py + dy]));
      if (exit) {
        for (const key of new Set(entries.map((q) => this.#keyOf(q)))) {
          const to = byKey.get(key);
          if (to) edges.push([[exit.x, exit.y + exit.h / 2], [to.x, to.y - to.h / 2]]);
        }
      }
      exit = byKey.get(this.#keyOf(last)) ?? null;
      y = dy + local.height - MARGIN + GAP;
    }
    // everything right of the margin; `shift` is what that moved (taken back in the view)
    const x0 = Math.min(...boxes.map((b) => b.x - b.w / 2), ...frames.map((f) => f.x));
    const shift = boxes.length ? MARGIN - x0 : 0;
    let width = 0;
    for (const b of boxes) {
      b.x += shift;
      width = Math.max(width, b.x + b.w / 2 + MARGIN);
    }
    for (const f of frames) {
      f.x += shift;
      width = Math.max(width, f.x + f.w + MARGIN);
    }
    for (const e of edges) for (const pt of e) pt[0] += shift;
    return { boxes, edges, frames, width: Math.max(width, 2 * MARGIN), height: Math.max(y - GAP + MARGIN, 2 * MARGIN), shift };
  }

  #render({ boxes, edges, frames, width, height }) {
    // The SVG is drawn once at the graph's own size and moved/scaled as a whole with a CSS
    // transform (its own compositing layer): panning and zooming then repaint nothing, which
    // keeps graphs of a thousand layers smooth.
    const W = Math.ceil(width), H = Math.ceil(height);
    const svg = el('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'aria-hidden': 'true' });
    const defs = el('defs', {}, svg);
    const mid = `arrow-${Math.random().toString(36).slice(2, 8)}`;
    const m = el('marker', { id: mid, viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#9aa6bb' }, m);
    const vp = el('g', { class: 'viewport' }, svg);
    const fg = el('g', { class: 'frames' }, vp);
    for (const f of frames) {
      const g = el('g', { class: 'gframe', 'data-block': f.block.id }, fg);
      el('rect', { x: f.x.toFixed(1), y: f.y.toFixed(1), width: f.w.toFixed(1), height: f.h.toFixed(1), rx: 8 }, g);
      const head = el('g', { class: 'gframe-head', transform: `translate(${(f.x + 8).toFixed(1)},${(f.y + 16).toFixed(1)})` }, g);
      el('rect', { x: -4, y: -13, width: f.head, height: 18, rx: 4 }, head);
      el('text', {}, head).textContent = `▾ ${blockTitle(f.block)}`;
      el('title', {}, head).textContent = `${blockTitle(f.block)}: ${typeSummary(f.block.unitTypes)} in each. Click to collapse.`;
    }
    const eg = el('g', { class: 'edges' }, vp);
    for (const pts of edges) {
      const d = pts.map((p, i) => `${i ? 'L' : 'M'}${p[0].toFixed(1)},${p[1].toFixed(1)}`).join('');
      el('path', { class: 'gedge', d, 'marker-end': `url(#${mid})` }, eg);
    }
    const ng = el('g', { class: 'nodes' }, vp);
    this.items.clear();
    for (const b of boxes) {
      const g = el('g', { class: 'gnode', transform: `translate(${(b.x - b.w / 2).toFixed(1)},${(b.y - b.h / 2).toFixed(1)})`, 'data-key': b.key }, ng);
      if (b.block) this.#drawBlock(g, b);
      else {
        const n = b.node;
        const mark = this.marks.get(n.name);
        if (mark) g.classList.add(mark);
        el('rect', { width: b.w, height: b.h, rx: 6, fill: colorFor(n.type) }, g);
        el('text', { class: 't', x: 8, y: 15 }, g).textContent = clip(n.type, 32);
        el('text', { class: 'n', x: 8, y: 28 }, g).textContent = clip(n.name, Math.floor((b.w - 14) / 6));
        el('title', {}, g).textContent = `${n.type} ${n.name}`;
      }
      this.items.set(b.key, { ...b, g });
    }
    this.visible = boxes.map((b) => b.key);
    this.size = { w: width, h: height };
    const collapsed = this.model.blocks.filter((b) => !this.expanded.has(b.id)).length;
    Object.assign(this.host.dataset, { layers: this.graph.nodes.length, shown: boxes.filter((b) => !b.block).length, blocks: this.model.blocks.length, collapsed });
    this.host.replaceChildren(svg);
    this.#minimap(boxes, width, height);
    this.host.tabIndex = 0;
    this.host.setAttribute('role', 'group');
    const blocksSaid = this.model.blocks.length ? ` ${this.model.blocks.length} repeated blocks, ${collapsed} collapsed: Enter on a block expands it, C collapses the block around the current layer.` : '';
    this.host.setAttribute('aria-label', `${this.label}: ${this.graph.nodes.length} layers.${blocksSaid} Arrow keys pan, plus and minus zoom, 0 fits, N and P step through the boxes, Enter shows one.`);
    this.host.setAttribute('aria-live', 'off');
    this.svg = svg;
    this.vp = vp;
    // what was emphasised before the redraw, on the boxes that now stand for it
    if (this.hlNames) this.highlight(this.hlNames);
    if (this.selected) this.select(this.selected);
    if (this.cursorKey && !this.items.has(this.cursorKey)) this.cursorKey = null;
    if (this.cursorKey) this.items.get(this.cursorKey).g.classList.add('cursor');
    this.#bind();
    // a new drawing takes the view at once: a frame without it would flash the graph elsewhere
    this.#applyNow();
  }

  // A collapsed block: a stack of cards, "6 × 8 layers" (or the layers' shared name), the unit's
  // layer types, outlined when a pass changed layers inside it.
  #drawBlock(g, b) {
    const blk = b.block;
    g.classList.add('gblock');
    g.dataset.block = blk.id;
    g.dataset.layers = blk.layers;
    let marked = 0;
    for (const rep of blk.reps) for (const p of rep) if (this.marks.has(this.graph.nodes[p].name)) marked++;
    if (marked) g.classList.add('changed');
    const fill = colorFor(mainType(blk.unitTypes));
    el('rect', { class: 'back', x: 6, y: 6, width: b.w - 6, height: b.h - 6, rx: 6, fill }, g);
    el('rect', { class: 'back', x: 3, y: 3, width: b.w - 6, height: b.h - 6, rx: 6, fill }, g);
    el('rect', { width: b.w - 6, height: b.h - 6, rx: 6, fill }, g);
    el('text', { class: 't', x: 8, y: 16 }, g).textContent = clip(`▸ ${blockTitle(blk)}`, 36);
    wrap(typeSummary(blk.unitTypes), Math.floor((b.w - 20) / 6), 2).forEach((line, i) => {
      el('text', { class: 'n', x: 8, y: 31 + 13 * i }, g).textContent = line;
    });
    const first = this.graph.nodes[blk.reps[0][0]].name;
    const lastName = this.graph.nodes[blk.reps.at(-1).at(-1)].name;
    el('title', {}, g).textContent = `${blockTitle(blk)}: ${blk.reps.length} repetitions of ${typeSummary(blk.unitTypes)} ` +
      `(${blk.layers} layers, ${first} … ${lastName})${marked ? `; ${marked} of them rewritten by a pass` : ''}. Click or Enter to expand.`;
  }

  // Expands or collapses one block; `user`: said to onToggle (the page mirrors it).
  async toggle(blockId, open, { user = false } = {}) {
    if (!this.svg || open === this.expanded.has(blockId)) return;
    if (open) this.expanded.add(blockId);
    else this.expanded.delete(blockId);
    const blk = this.model.blocks[blockId];
    // the cursor on a block being opened goes to its first layer; on a layer being folded, to the block
    if (open && this.cursorKey === `#block${blockId}`) this.cursorKey = this.graph.nodes[blk.reps[0][0]].name;
    if (!open && this.cursorKey && this.blockOf[this.posOf.get(this.cursorKey) ?? -1] === blockId) this.cursorKey = `#block${blockId}`;
    if (!(await this.#redo())) return;
    if (user) this.onToggle(this.graph.nodes[blk.reps[0][0]].name, open);
  }

  // A new layout after expanding or collapsing; false when it failed (the layout worker falls back
  // to its own layered layout, so this is a worker that died): the pane then says so.
  async #redo() {
    try {
      await this.#relayout(this.token);
      return true;
    } catch (e) {
      this.clear(String(e.message));
      return false;
    }
  }

  // The block holding layer `name` (in this graph), expanded or collapsed; false when it is in none.
  toggleAround(name, open) {
    const pos = this.posOf.get(name);
    const b = pos === undefined ? -1 : this.blockOf[pos];
    if (b < 0) return false;
    this.toggle(b, open);
    return true;
  }

  async setAllExpanded(open) {
    if (!this.svg) return;
    this.expanded = new Set(open ? this.model.blocks.map((b) => b.id) : []);
    if (this.cursorKey) {
      const pos = this.posOf.get(this.cursorKey);
      if (pos !== undefined) this.cursorKey = this.#keyOf(pos);
      else if (open) this.cursorKey = null;
    }
    if (await this.#redo()) this.fit();
  }

  get blockCount() {
    return this.model?.blocks.length ?? 0;
  }

  // Applies the view on the next frame (wheel and drag events come faster than frames).
  #apply() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.#applyNow();
    });
  }

  #applyNow() {
    if (!this.svg) return;
    const { k, x, y } = this.view;
    this.svg.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) scale(${k.toFixed(4)})`;
    this.#drawViewRect();
    const nolabels = k < 0.45;
    if (this.svg.classList.contains('nolabels') !== nolabels) this.svg.classList.toggle('nolabels', nolabels);
  }

  // A minimap in the pane's corner when the graph is larger than the pane: every box as a dot
  // in its category colour (drawn once per layout), the visible part as a rectangle (redrawn
  // with the view); a click or drag on it centres the view there.
  #minimap(boxes, width, height) {
    this.mini = null;
    const b = this.#box();
    if (width * 0.7 <= b.w && height * 0.7 <= b.h) return;
    const H = 150;
    const scale = Math.min(H / height, 110 / width);
    const cw = Math.max(24, Math.ceil(width * scale) + 8);
    const ch = Math.ceil(height * scale) + 8;
    const base = document.createElement('canvas');
    base.width = cw;
    base.height = ch;
    const bctx = base.getContext('2d');
    bctx.fillStyle = 'rgba(255,255,255,0.92)';
    bctx.fillRect(0, 0, cw, ch);
    for (const bx of boxes) {
      const type = bx.block ? mainType(bx.block.unitTypes) : bx.node.type;
      bctx.fillStyle = colorFor(type) === '#eceff3' ? '#aab3c2' : shade(colorFor(type));
      if (bx.block) bctx.fillRect(4 + bx.x * scale - 3, 4 + bx.y * scale - 2, 6, 4);
      else bctx.fillRect(4 + bx.x * scale - 1.5, 4 + bx.y * scale - 1, 3, 2);
    }
    const cv = document.createElement('canvas');
    cv.className = 'minimap';
    cv.width = cw;
    cv.height = ch;
    cv.style.right = `${6 + this.inset.right}px`;
    cv.setAttribute('aria-hidden', 'true');
    cv.title = 'Overview: click to go there';
    const go = (e) => {
      const r = cv.getBoundingClientRect();
      const gx = (e.clientX - r.left - 4) / scale;
      const gy = (e.clientY - r.top - 4) / scale;
      const box = this.#vbox(true);
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
    const b = this.#vbox();
    const { k, x, y } = this.view;
    ctx.strokeStyle = '#1f4fd1';
    ctx.lineWidth = 1.5;
    ctx.strokeRect(4 + (-x / k) * scale, 4 + (-y / k) * scale, (b.w / k) * scale, (b.h / k) * scale);
  }

  // The pane's size. `seen` is the size the current view was set for: the resize observer shifts
  // the view by half of a change from it. Only what sets a whole view (fit, centring) or the
  // observer itself records it; drawing (the minimap's rectangle) must not, or a change seen
  // between two observer callbacks would never be taken back.
  #box(record = false) {
    const r = this.host.getBoundingClientRect();
    const b = { w: r.width || 400, h: r.height || 400 };
    if (record) this.seen = b;
    return b;
  }

  // The part of the pane not covered by the details panel (an overlay on narrow screens).
  #vbox(record = false) {
    const b = this.#box(record);
    return { w: Math.max(80, b.w - this.inset.right), h: b.h };
  }

  // The details panel covers `right` pixels of this pane's right side (0: none): what was at the
  // centre of the uncovered part stays there, and centring aims at the uncovered part.
  setInset(right) {
    right = Math.max(0, Math.round(right));
    if (right === this.inset.right) return;
    const was = this.inset.right;
    this.inset = { right };
    if (this.mini) this.mini.cv.style.right = `${6 + right}px`;
    if (!this.svg) return;
    this.view.x -= (right - was) / 2;
    this.#apply();
  }

  // Whole graph when it fits at a readable scale; a tall graph (the usual chain of layers) is
  // shown from its top at a scale where labels stay readable, to pan down from.
  fit() {
    if (!this.svg) return;
    const b = this.#vbox(true);
    const wFit = (b.w - 16) / this.size.w;
    const hFit = (b.h - 16) / this.size.h;
    const k = Math.min(1, Math.max(Math.min(wFit, hFit), Math.min(0.7, wFit)));
    this.view = { k, x: (b.w - this.size.w * k) / 2, y: Math.max(8, (b.h - this.size.h * k) / 2) };
    this.#apply();
    this.#sharpen();
  }

  zoom(factor, cx, cy) {
    if (!this.svg) return;
    const b = this.#vbox();
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

  // Listeners live on the host (bound once): the SVG inside is replaced on every layout.
  #bind() {
    if (this.bound) return;
    this.bound = true;
    const host = this.host;
    // when the pane changes size (the details panel opens beside it, the window turns), what was
    // at the pane's centre stays there
    // (`seen`: the size the current view was computed for; a view set after the resize needs no shift)
    this.#box(true);
    new ResizeObserver(() => {
      const was = this.seen;
      const now = this.#box(true);
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
    // one listener for every box (a thousand boxes, one handler)
    host.addEventListener('click', (e) => {
      if (!this.svg) return;
      const head = e.target.closest?.('.gframe');
      const g = e.target.closest?.('.gnode');
      if (g) {
        e.stopPropagation();
        this.#activate(g.dataset.key);
      } else if (head && e.target.closest('.gframe-head')) {
        e.stopPropagation();
        this.toggle(Number(head.dataset.block), false, { user: true });
      }
    });
    host.addEventListener('keydown', (e) => {
      if (!this.svg) return;
      const step = 60;
      const keys = {
        ArrowLeft: () => this.pan(step, 0), ArrowRight: () => this.pan(-step, 0),
        ArrowUp: () => this.pan(0, step), ArrowDown: () => this.pan(0, -step),
        '+': () => this.zoom(1.25), '=': () => this.zoom(1.25), '-': () => this.zoom(0.8), 0: () => this.fit(),
        n: () => this.step(1), N: () => this.step(1), p: () => this.step(-1), P: () => this.step(-1),
        Enter: () => this.cursorKey && this.#activate(this.cursorKey),
        c: () => this.#collapseAtCursor(), C: () => this.#collapseAtCursor(),
      };
      const f = keys[e.key];
      if (f) {
        e.preventDefault();
        f();
      }
    });
  }

  // A box chosen (click, Enter): a block expands, a layer is shown.
  #activate(key) {
    const item = this.items.get(key);
    if (!item) return;
    if (item.block) {
      this.cursorKey = key;
      this.toggle(item.block.id, true, { user: true });
    } else this.onSelect(item.node);
  }

  #collapseAtCursor() {
    const pos = this.posOf.get(this.cursorKey);
    const b = pos === undefined ? -1 : this.blockOf[pos];
    if (b >= 0 && this.expanded.has(b)) {
      this.toggle(b, false, { user: true }).then(() => this.#cursorTo(`#block${b}`));
    }
  }

  // Emphasises the named layers (null: none) and dims the rest; a layer inside a collapsed
  // block emphasises the block.
  highlight(names) {
    this.hlNames = names;
    if (!this.svg) return;
    const keys = new Set((names ?? []).filter((n) => this.posOf.has(n)).map((n) => this.#keyOf(this.posOf.get(n))));
    for (const [key, it] of this.items) it.g.classList.toggle('hl', keys.has(key));
    this.svg.classList.toggle('dim', keys.size > 0);
  }

  select(name) {
    this.selected = name;
    if (!this.svg) return;
    const key = name !== null && this.posOf.has(name) ? this.#keyOf(this.posOf.get(name)) : null;
    for (const [k, it] of this.items) it.g.classList.toggle('sel', k === key);
  }

  has(name) {
    return this.posOf.has(name);
  }

  // Keyboard reach: moves the cursor to the next/previous box in model order (a collapsed block
  // is one stop), centres it and names it (aria-description, for screen readers).
  step(dir) {
    if (!this.visible.length) return;
    const i = this.cursorKey ? this.visible.indexOf(this.cursorKey) : -1;
    const j = i < 0 ? (dir > 0 ? 0 : this.visible.length - 1) : (i + dir + this.visible.length) % this.visible.length;
    this.#cursorTo(this.visible[j]);
  }

  #cursorTo(key) {
    const item = this.items.get(key);
    if (!item) return;
    this.cursorKey = key;
    for (const [, o] of this.items) o.g.classList.remove('cursor');
    item.g.classList.add('cursor');
    this.#center([item]);
    const i = this.visible.indexOf(key);
    const what = item.block ? `repeated block: ${blockTitle(item.block)}, press Enter to expand` : `${item.node.type} ${item.node.name}`;
    this.host.setAttribute('aria-description', `box ${i + 1} of ${this.visible.length}: ${what}`);
  }

  // Centres one layer (expanding the block it is folded into), marks it as the keyboard cursor,
  // and returns its node. `ready` resolves once it is drawn and centred.
  goTo(name) {
    const pos = this.posOf.get(name);
    if (pos === undefined || !this.svg) return null;
    const b = this.blockOf[pos];
    if (b >= 0 && !this.expanded.has(b)) {
      this.cursorKey = name;
      this.ready = this.toggle(b, true).then(() => this.#cursorTo(name));
    } else {
      this.#cursorTo(name);
      this.ready = Promise.resolve();
    }
    return this.graph.nodes[pos];
  }

  // Layers whose name or type contains `query` (case-insensitive), in model order, collapsed
  // blocks included.
  find(query) {
    const q = query.trim().toLowerCase();
    if (!q || !this.graph) return [];
    return this.graph.nodes.filter((n) => n.name.toLowerCase().includes(q) || n.type.toLowerCase().includes(q)).map((n) => n.name);
  }

  // Fit to width: the graph's width fills the pane, from the top.
  fitWidth() {
    if (!this.svg) return;
    const b = this.#vbox(true);
    const k = Math.min(1.5, Math.max(0.05, (b.w - 16) / this.size.w));
    this.view = { k, x: (b.w - this.size.w * k) / 2, y: 8 };
    this.#apply();
    this.#sharpen();
  }

  // Pans so the named layers (or the blocks folding them) are in view, zooming in to a readable
  // scale when far out.
  centerOn(names) {
    if (!this.svg) return;
    const keys = new Set(names.filter((n) => this.posOf.has(n)).map((n) => this.#keyOf(this.posOf.get(n))));
    this.#center([...keys].map((k) => this.items.get(k)).filter(Boolean));
  }

  // Expands the blocks the named layers are folded into, then centres them (the pass log's rows).
  async reveal(names) {
    if (!this.svg) return;
    const closed = new Set(names.filter((n) => this.posOf.has(n)).map((n) => this.blockOf[this.posOf.get(n)]).filter((b) => b >= 0 && !this.expanded.has(b)));
    if (closed.size) {
      for (const b of closed) this.expanded.add(b);
      if (!(await this.#redo())) return;
    }
    this.centerOn(names);
  }

  #center(hits) {
    if (!hits.length) return;
    const x0 = Math.min(...hits.map((h) => h.x - h.w / 2)), x1 = Math.max(...hits.map((h) => h.x + h.w / 2));
    const y0 = Math.min(...hits.map((h) => h.y - h.h / 2)), y1 = Math.max(...hits.map((h) => h.y + h.h / 2));
    const b = this.#vbox(true);
    let k = Math.max(this.view.k, 0.8);
    k = Math.min(k, (b.w - 40) / Math.max(1, x1 - x0), (b.h - 40) / Math.max(1, y1 - y0), 1.5);
    this.view = { k, x: b.w / 2 - ((x0 + x1) / 2) * k, y: b.h / 2 - ((y0 + y1) / 2) * k };
    this.#apply();
    this.#sharpen();
  }
}

// At most `lines` lines of at most `width` characters, broken after commas; the last one clipped.
function wrap(text, width, lines) {
  const out = [''];
  for (const word of text.split(/(?<=, )/)) {
    const cur = out.length - 1;
    if (out[cur] && (out[cur] + word).trimEnd().length > width) {
      if (out.length === lines) {
        out[cur] = clip(`${out[cur]}${word}`.trimEnd(), width);
        return out.map((l) => l.trimEnd());
      }
      out.push('');
    }
    out[out.length - 1] += word;
  }
  return out.map((l) => clip(l.trimEnd(), width));
}

// "conv2 × 6" when the block's layers share a name, else "6 × 8 layers".
function blockTitle(b) {
  const unit = b.reps[0].length;
  return b.name ? `${b.name} × ${b.reps.length}` : `${b.reps.length} × ${unit} layers`;
}

// The header of an expanded block's frame: "▾ 6 × 8 layers" at 11px (about 6.6 px a character).
function frameHeadWidth(b) {
  return Math.ceil((blockTitle(b).length + 2) * 6.6 + 10);
}

// The type that colours a block: its first computing layer (not the Split ncnn inserts).
function mainType(types) {
  return types.find((t) => t !== 'Split') ?? types[0];
}
