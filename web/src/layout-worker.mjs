// Lays graphs out off the page's thread (hundreds of layers take a moment).
// In: {id, pieces: [{nodes: [{id, w, h}], edges: [[from, to]]}]}; out: {id, ok, pieces: [{nodes:
// {id: [x, y]}, edges: [{from, to, points: [[x, y], ...]}], width, height, engine}]} (centres,
// in pixels, margins included). The graph view cuts a model into pieces at single-blob cuts
// (blocks.mjs) and stacks them, so each piece is small and laid out once.
//
// dagre first. Its ranking and ordering recurse along paths, and a worker's stack is small: a
// chain of a thousand or more layers overflows it. Then (or when dagre fails in any other way)
// a plain layered layout of our own takes over: rank = longest path from the inputs (Kahn's
// order, no recursion), order within a rank by the mean position of the predecessors, straight
// edges. It crosses more edges than dagre but handles any size in linear time.
import { graphlib, layout } from '@dagrejs/dagre';

const NODESEP = 16;
const RANKSEP = 28;
const MARGIN = 16;

function dedupEdges(edges) {
  const seen = new Set();
  const out = [];
  for (const [a, b] of edges) {
    const k = `${a}>${b}`;
    if (a === b || seen.has(k)) continue;
    seen.add(k);
    out.push([a, b]);
  }
  return out;
}

function dagreLayout(nodes, edges) {
  const g = new graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: NODESEP, ranksep: RANKSEP, edgesep: 8, marginx: MARGIN, marginy: MARGIN });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(String(n.id), { width: n.w, height: n.h });
  for (const [a, b] of edges) g.setEdge(String(a), String(b));
  layout(g);
  const outNodes = {};
  for (const v of g.nodes()) {
    const n = g.node(v);
    outNodes[v] = [n.x, n.y];
  }
  const outEdges = g.edges().map((e) => ({ from: Number(e.v), to: Number(e.w), points: g.edge(e).points.map((p) => [p.x, p.y]) }));
  const gg = g.graph();
  return { nodes: outNodes, edges: outEdges, width: gg.width, height: gg.height, engine: 'dagre' };
}

export function layeredLayout(nodes, edges) {
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const succ = nodes.map(() => []);
  const pred = nodes.map(() => []);
  const indeg = new Array(nodes.length).fill(0);
  for (const [a, b] of edges) {
    const ia = index.get(a), ib = index.get(b);
    if (ia === undefined || ib === undefined) continue;
    succ[ia].push(ib);
    pred[ib].push(ia);
    indeg[ib]++;
  }
  // longest-path ranks in Kahn's order; nodes left on a cycle (not in a valid model) go last
  const rank = new Array(nodes.length).fill(0);
  const queue = [];
  for (let i = 0; i < nodes.length; i++) if (!indeg[i]) queue.push(i);
  const order = [];
  for (let q = 0; q < queue.length; q++) {
    const i = queue[q];
    order.push(i);
    for (const j of succ[i]) {
      rank[j] = Math.max(rank[j], rank[i] + 1);
      if (--indeg[j] === 0) queue.push(j);
    }
  }
  if (order.length < nodes.length) {
    const maxRank = Math.max(0, ...rank);
    for (let i = 0; i < nodes.length; i++) if (indeg[i] > 0) rank[i] = maxRank + 1;
  }
  const ranks = [];
  for (let i = 0; i < nodes.length; i++) (ranks[rank[i]] ??= []).push(i);
  const x = new Array(nodes.length).fill(0);
  let width = 0;
  const rowH = [];
  for (let r = 0; r < ranks.length; r++) {
    const row = ranks[r] ?? [];
    // barycentre of the predecessors placed already; sources keep their input order
    const key = (i) => (pred[i].length ? pred[i].reduce((s, p) => s + x[p], 0) / pred[i].length : i * 1e-6);
    row.sort((a, b) => key(a) - key(b));
    // pack the row left to right, then centre it on where its nodes want to be (the mean of
    // the keys), so rows stay under their predecessors instead of drifting sideways
    let cursor = 0;
    let placed = 0, wanted = 0;
    for (const i of row) {
      x[i] = cursor + nodes[i].w / 2;
      cursor += nodes[i].w + NODESEP;
      placed += x[i];
      wanted += r === 0 ? x[i] : key(i);
    }
    const shift = row.length ? (wanted - placed) / row.length : 0;
    for (const i of row) x[i] += shift;
    rowH[r] = Math.max(0, ...row.map((i) => nodes[i].h));
  }
  const minX = Math.min(...nodes.map((n, i) => x[i] - n.w / 2));
  const y = [];
  let top = MARGIN;
  for (let r = 0; r < ranks.length; r++) {
    y[r] = top + rowH[r] / 2;
    top += rowH[r] + RANKSEP;
  }
  const outNodes = {};
  nodes.forEach((n, i) => {
    x[i] += MARGIN - minX;
    width = Math.max(width, x[i] + n.w / 2 + MARGIN);
    outNodes[String(n.id)] = [x[i], y[rank[i]]];
  });
  const outEdges = [];
  for (const [a, b] of edges) {
    const ia = index.get(a), ib = index.get(b);
    if (ia === undefined || ib === undefined) continue;
    outEdges.push({
      from: a,
      to: b,
      points: [[x[ia], y[rank[ia]] + nodes[ia].h / 2], [x[ib], y[rank[ib]] - nodes[ib].h / 2]],
    });
  }
  return { nodes: outNodes, edges: outEdges, width, height: top - RANKSEP + MARGIN, engine: 'layered' };
}

// dagre for a piece that branches; a plain chain (each layer feeding the next, nothing else)
// gains nothing from it and is laid out directly, as is a piece too large for dagre to finish
// quickly (its cost grows faster than the layer count).
// Repeated blocks give many pieces of one shape (58 dense layers in DenseNet-121): a piece with
// the same box sizes and edges as one laid out before reuses that layout, renumbered.
const memo = new Map();
function memoKey(nodes, edges) {
  const at = new Map(nodes.map((n, i) => [n.id, i]));
  return `${nodes.map((n) => `${n.w}x${n.h}`).join(',')}|${edges.map(([a, b]) => `${at.get(a)}-${at.get(b)}`).join(',')}`;
}

export function layoutPiece(nodes, rawEdges) {
  const key = memoKey(nodes, rawEdges);
  const seen = memo.get(key);
  if (seen) {
    // the same layout under this piece's ids (positions in the list match)
    const ids = nodes.map((n) => n.id);
    const out = { ...seen, nodes: {}, edges: seen.edges.map((e) => ({ ...e, from: ids[e.from], to: ids[e.to] })) };
    seen.order.forEach((_, i) => { out.nodes[String(ids[i])] = seen.nodes[String(seen.order[i])]; });
    out.order = ids;
    return out;
  }
  const result = layoutFresh(nodes, rawEdges);
  // edges stored by list position, so they can be renamed for the next piece of this shape
  const at = new Map(nodes.map((n, i) => [n.id, i]));
  if (memo.size > 2000) memo.clear();
  memo.set(key, { ...result, order: nodes.map((n) => n.id), edges: result.edges.map((e) => ({ ...e, from: at.get(e.from), to: at.get(e.to) })) });
  return result;
}

function layoutFresh(nodes, rawEdges) {
  const edges = dedupEdges(rawEdges);
  const outs = new Map(), ins = new Map();
  for (const [a, b] of edges) {
    outs.set(a, (outs.get(a) ?? 0) + 1);
    ins.set(b, (ins.get(b) ?? 0) + 1);
  }
  const chain = edges.length === nodes.length - 1 && [...outs.values(), ...ins.values()].every((c) => c === 1);
  if (chain || nodes.length > 400) return layeredLayout(nodes, edges);
  try {
    return dagreLayout(nodes, edges);
  } catch {
    return layeredLayout(nodes, edges);
  }
}

if (typeof self === 'object' && typeof self.postMessage === 'function' && typeof window === 'undefined') {
  self.onmessage = ({ data }) => {
    const { id } = data;
    let pieces;
    try {
      pieces = data.pieces.map((p) => layoutPiece(p.nodes, p.edges));
    } catch (e) {
      self.postMessage({ id, ok: false, message: String(e?.message ?? e) });
      return;
    }
    self.postMessage({ id, ok: true, pieces });
  };
}
