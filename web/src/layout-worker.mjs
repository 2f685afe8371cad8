// Lays graphs out with dagre off the page's thread (hundreds of layers take a moment).
// In: {id, nodes: [{id, w, h}], edges: [[from, to]]}; out: {id, ok, nodes: {id: [x, y]},
// edges: [{from, to, points: [[x, y], ...]}], width, height} (centres, in pixels).
import { graphlib, layout } from '@dagrejs/dagre';

self.onmessage = ({ data }) => {
  const { id, nodes, edges } = data;
  try {
    const g = new graphlib.Graph();
    g.setGraph({ rankdir: 'TB', nodesep: 16, ranksep: 28, edgesep: 8, marginx: 16, marginy: 16 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const n of nodes) g.setNode(String(n.id), { width: n.w, height: n.h });
    const seen = new Set();
    for (const [a, b] of edges) {
      const k = `${a}>${b}`;
      if (a === b || seen.has(k)) continue;
      seen.add(k);
      g.setEdge(String(a), String(b));
    }
    layout(g);
    const outNodes = {};
    for (const v of g.nodes()) {
      const n = g.node(v);
      outNodes[v] = [n.x, n.y];
    }
    const outEdges = g.edges().map((e) => ({ from: Number(e.v), to: Number(e.w), points: g.edge(e).points.map((p) => [p.x, p.y]) }));
    const gg = g.graph();
    self.postMessage({ id, ok: true, nodes: outNodes, edges: outEdges, width: gg.width, height: gg.height });
  } catch (e) {
    self.postMessage({ id, ok: false, message: String(e?.message ?? e) });
  }
};
