// Repeated blocks of a model graph, for the graph view: ResNet's bottlenecks, DenseNet's dense
// layers, MobileNet's inverted residuals, a transformer's encoder layers. Pure (no DOM), so it is
// tested in Node (tests/e2e/page-modules.test.mjs).
//
// Cuts. With the layers in the model's order (ncnn files and the ONNX importer keep a topological
// order), the place after layer i is a cut when exactly one blob crosses it and layer i makes that
// blob: everything above reaches everything below through that one blob, so the two sides can be
// laid out apart and stacked. A blob nobody reads (a model output) crosses nothing.
//
// Blocks. Each segment (the layers between two cuts) gets a signature: its layer types in order
// and, per layer, which earlier layers of the segment feed it. A block is k segments repeated
// r >= 2 times back to back with equal signatures (a tandem repeat) covering at least
// `minLayers` layers. Scanning left to right, the unit repeated most often wins, the shorter on
// a tie: DenseNet's dense layer x6, not three pairs of them, nor "6 dense layers, a transition,
// 6 dense layers" x2 (which also repeats, across a stage boundary); "X X Y" x3 rather than the
// pair "X X". Params are not compared: a stage's blocks differ in channels.

// The blob that crosses the cut after each layer (-1: that place is not a cut).
export function cutBlobs(graph) {
  const n = graph.nodes.length;
  const pos = new Map(graph.nodes.map((v, i) => [v.id, i]));
  // delta: a difference array over places (place i is after layer i); a blob made by layer
  // `from` and last read by layer `last` crosses places from .. last-1
  const delta = new Int32Array(n + 1);
  for (const e of graph.edges) {
    if (!e.to.length) continue;
    const from = e.from >= 0 ? (pos.get(e.from) ?? -1) : -1; // -1: an input without a layer
    let last = -1;
    for (const t of e.to) last = Math.max(last, pos.get(t) ?? -1);
    if (last <= from) continue;
    delta[Math.max(from, 0)]++;
    delta[last]--;
  }
  // a cut also needs layer i to be the maker of the one crossing blob
  const made = new Int32Array(n).fill(-1);
  for (const e of graph.edges) {
    const from = e.from >= 0 ? pos.get(e.from) : undefined;
    if (from === undefined) continue;
    if (e.to.some((t) => (pos.get(t) ?? -1) > from)) made[from] = made[from] === -1 ? e.id : -2;
  }
  const out = new Int32Array(n).fill(-1);
  let live = 0;
  for (let i = 0; i < n - 1; i++) {
    live += delta[i];
    if (live === 1 && made[i] >= 0) out[i] = made[i];
  }
  return out;
}

// Segments: runs of layer positions between cuts.
export function segments(graph, cuts = cutBlobs(graph)) {
  const segs = [];
  let cur = [];
  for (let i = 0; i < graph.nodes.length; i++) {
    cur.push(i);
    if (cuts[i] >= 0) {
      segs.push(cur);
      cur = [];
    }
  }
  if (cur.length) segs.push(cur);
  return segs;
}

function signature(graph, seg, pos, producer) {
  const local = new Map(seg.map((p, j) => [p, j]));
  return seg.map((p) => {
    const v = graph.nodes[p];
    const feeds = v.bottoms.map((b) => local.get(pos.get(producer.get(b))) ?? -1).sort((a, b) => a - b);
    return `${v.type}(${feeds.join(',')})`;
  }).join(';');
}

function prefixLength(names) {
  if (names.length < 2) return 0;
  let len = names[0].length;
  for (const s of names) {
    let i = 0;
    while (i < len && i < s.length && s[i] === names[0][i]) i++;
    len = i;
  }
  return len;
}

// A name for a block: the longest prefix its layer names share, cut back to a separator
// (`conv2_1/x1/bn` ... `conv2_6/x2/conv` -> `conv2`); null when they share nothing useful.
export function commonName(names) {
  if (!names.length) return null;
  let p = names[0];
  for (const s of names) {
    let i = 0;
    while (i < p.length && i < s.length && p[i] === s[i]) i++;
    p = p.slice(0, i);
    if (!p) return null;
  }
  if (names.length > 1 && !/[/._:-]$/.test(p)) {
    const cut = Math.max(...['/', '.', '_', ':', '-'].map((c) => p.lastIndexOf(c)));
    p = cut > 0 ? p.slice(0, cut) : p;
  }
  p = p.replace(/[/._:-]+$/, '').replace(/^[/._:-]+/, '');
  return p.length >= 3 ? p : null;
}

// The layer types of a block's unit, each once, in order of first appearance, with a count when
// it repeats: "Split, Convolution ×3, Eltwise".
export function typeSummary(types) {
  const counts = new Map();
  for (const t of types) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([t, c]) => (c > 1 ? `${t} ×${c}` : t)).join(', ');
}

// What the graph view lays out as one piece: each segment of several layers on its own (a dense
// layer, a residual block: small, so dagre is quick), and runs of one-layer segments (a plain
// chain) together, at most maxPiece layers. Pieces meet at cuts, so they stack.
function layoutPieces(segs, maxPiece) {
  const out = [];
  let chain = [];
  for (const s of segs) {
    if (s.length === 1 && chain.length < maxPiece) {
      chain.push(s[0]);
      continue;
    }
    if (chain.length) out.push(chain);
    chain = [];
    if (s.length === 1) chain.push(s[0]);
    else out.push(s);
  }
  if (chain.length) out.push(chain);
  return out;
}

// The graph's parts in order: runs of plain layers and blocks, each with the pieces it is laid
// out in (layoutPieces). Positions are indices into graph.nodes.
//   parts: [{kind: 'run', nodes: [pos], pieces: [[pos]]} | {kind: 'block', block}]
//   blocks: [{id, reps: [[pos]], pieces: [[pos]], unitTypes: [type], layers, name}]
//   cuts: cutBlobs(graph)
export function findBlocks(graph, { minLayers = 6, maxUnit = 32, maxPiece = 120 } = {}) {
  const cuts = cutBlobs(graph);
  const segs = segments(graph, cuts);
  const pos = new Map(graph.nodes.map((v, i) => [v.id, i]));
  const producer = new Map(graph.edges.map((e) => [e.id, e.from]));
  const ids = new Map();
  const sig = segs.map((s) => {
    const key = signature(graph, s, pos, producer);
    if (!ids.has(key)) ids.set(key, ids.size);
    return ids.get(key);
  });
  const size = segs.map((s) => s.length);
  // Every start's best repeat: for each unit length k, eq[i] says segment i equals segment
  // i + k, and run[i] counts the equal places from i on (right to left, O(n) per k); the unit at
  // i then repeats 1 + floor(run[i] / k) times.
  const n = segs.length;
  const best = new Array(n).fill(null);
  const run = new Int32Array(n + 1);
  for (let k = 1; k <= maxUnit && 2 * k <= n; k++) {
    run[n] = 0;
    for (let i = n - 1; i >= 0; i--) run[i] = i + k < n && sig[i] === sig[i + k] ? run[i + 1] + 1 : 0;
    let unit = 0; // layers in segments i .. i+k-1, slid along
    for (let j = 0; j < k; j++) unit += size[j];
    for (let i = 0; i + 2 * k <= n; i++) {
      if (i) unit += size[i + k - 1] - size[i - 1];
      const r = 1 + Math.floor(run[i] / k);
      if (r < 2 || unit * r < minLayers) continue;
      const b = best[i];
      if (!b || r > b.r) best[i] = { i, k, r };
    }
  }
  // Two alignments of the same repeat (MobileNet: Conv+DW or DW+Conv pairs) are told apart by
  // the names: the one whose repetitions' layers share longer name prefixes (conv2_1/dw and
  // conv2_1/sep) follows the model's own grouping. Measured on the first two repetitions.
  const cands = best.filter(Boolean);
  for (const c of cands) {
    c.score = 0;
    for (let q = 0; q < 2; q++) {
      const names = segs.slice(c.i + q * c.k, c.i + (q + 1) * c.k).flat().filter((p) => graph.nodes[p].type !== 'Split').map((p) => graph.nodes[p].name);
      c.score += prefixLength(names);
    }
  }
  // The most repeated first; a repeat overlapping one already taken is dropped (each start had
  // its own candidate, so what follows a taken block is still considered).
  const taken = new Int32Array(n).fill(-1);
  const chosen = [];
  for (const c of cands.sort((a, b) => b.r - a.r || a.k - b.k || b.score - a.score || a.i - b.i)) {
    const end = c.i + c.k * c.r;
    let free = true;
    for (let j = c.i; j < end && free; j++) free = taken[j] < 0;
    if (!free) continue;
    for (let j = c.i; j < end; j++) taken[j] = chosen.length;
    chosen.push(c);
  }
  chosen.sort((a, b) => a.i - b.i);
  const parts = [];
  const blocks = [];
  let runSegs = [];
  const flushRun = () => {
    if (runSegs.length) parts.push({ kind: 'run', nodes: runSegs.flat(), pieces: layoutPieces(runSegs, maxPiece) });
    runSegs = [];
  };
  let next = 0;
  for (const c of chosen) {
    for (; next < c.i; next++) runSegs.push(segs[next]);
    flushRun();
    const reps = [];
    for (let q = 0; q < c.r; q++) reps.push(segs.slice(c.i + q * c.k, c.i + (q + 1) * c.k).flat());
    const all = reps.flat();
    const block = {
      id: blocks.length,
      reps,
      // laid out when expanded: the pieces of each repetition
      pieces: Array.from({ length: c.r }, (_, q) => layoutPieces(segs.slice(c.i + q * c.k, c.i + (q + 1) * c.k), maxPiece)).flat(),
      unitTypes: reps[0].map((p) => graph.nodes[p].type),
      layers: all.length,
      // ncnn's converters name the Split layers they insert splitncnn_N: not the model's names
      name: commonName(all.filter((p) => graph.nodes[p].type !== 'Split').map((p) => graph.nodes[p].name)),
    };
    blocks.push(block);
    parts.push({ kind: 'block', block });
    next = c.i + c.k * c.r;
  }
  for (; next < n; next++) runSegs.push(segs[next]);
  flushRun();
  return { parts, blocks, cuts };
}
