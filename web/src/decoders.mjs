// Turning the bundled real models' raw outputs into results drawn on the image. Pure functions
// (no DOM): tested in Node (tests/js/web_decoders.test.mjs). Coordinates are normalized to the
// model input: x right, y down, in [0, 1].

// ---------------------------------------------------------------------------------------------
// BlazeFace (MediaPipe face detection, keijiro's BlazeFaceBarracuda ONNX exports).
//
// Anchors: MediaPipe's SSD anchor calculator for the short-range model gives two feature maps,
// 16x16 cells with 2 anchors each and 8x8 cells with 6 anchors each (896 in all), every anchor
// at its cell centre with a fixed size of 1 (so boxes are offsets in input pixels). keijiro's
// Postprocess1 walks the same layout: index (row * cells + col) * anchors + k, anchor at
// ((col, row) + 0.5) / cells. The back-camera 256x256 model has the same 16/8 grids.
// Each anchor has one score logit and 16 box values: centre x, y, width, height, then six key
// points (x, y): right eye, left eye, nose, mouth, right ear, left ear; all in input pixels
// relative to the anchor centre.
// ---------------------------------------------------------------------------------------------

export const BLAZEFACE_GRIDS = [
  { cells: 16, anchors: 2 },
  { cells: 8, anchors: 6 },
];

export function blazefaceAnchors() {
  const out = [];
  for (const { cells, anchors } of BLAZEFACE_GRIDS) {
    for (let row = 0; row < cells; row++) {
      for (let col = 0; col < cells; col++) {
        for (let k = 0; k < anchors; k++) out.push({ x: (col + 0.5) / cells, y: (row + 0.5) / cells });
      }
    }
  }
  return out;
}

const sigmoid = (x) => 1 / (1 + Math.exp(-x));

// Finds BlazeFace's four outputs by shape (names differ between the ONNX file and a converted
// ncnn model): scores [.., N, 1] and boxes [.., N, 16] for N = 512 (16x16x2) and 384 (8x8x6).
// Returns {scores: Float32Array(896), boxes: Float32Array(896 * 16)} or null.
export function findBlazefaceOutputs(outputs) {
  const byN = { scores: {}, boxes: {} };
  for (const o of Object.values(outputs)) {
    const n = o.data.length;
    if (n === 512 || n === 384) byN.scores[n] = o.data;
    else if (n === 512 * 16 || n === 384 * 16) byN.boxes[n / 16] = o.data;
  }
  if (!byN.scores[512] || !byN.scores[384] || !byN.boxes[512] || !byN.boxes[384]) return null;
  const scores = new Float32Array(896);
  scores.set(byN.scores[512], 0);
  scores.set(byN.scores[384], 512);
  const boxes = new Float32Array(896 * 16);
  boxes.set(byN.boxes[512], 0);
  boxes.set(byN.boxes[384], 512 * 16);
  return { scores, boxes };
}

function iou(a, b) {
  const ax0 = a.cx - a.w / 2, ay0 = a.cy - a.h / 2, ax1 = a.cx + a.w / 2, ay1 = a.cy + a.h / 2;
  const bx0 = b.cx - b.w / 2, by0 = b.cy - b.h / 2, bx1 = b.cx + b.w / 2, by1 = b.cy + b.h / 2;
  const iw = Math.max(0, Math.min(ax1, bx1) - Math.max(ax0, bx0));
  const ih = Math.max(0, Math.min(ay1, by1) - Math.max(ay0, by0));
  const inter = iw * ih;
  const union = a.w * a.h + b.w * b.h - inter;
  return union > 0 ? inter / union : 0;
}

// Detections: [{score, cx, cy, w, h, keypoints: [{x, y}] x6}], normalized, best first.
// `size` is the input's side in pixels. Scores: sigmoid of the logit clipped to +-100 (MediaPipe
// score_clipping_thresh); kept above `threshold` (keijiro's default 0.75). Overlaps are merged by
// MediaPipe's weighted non-maximum suppression: in score order, every remaining detection whose
// IoU with the best one reaches `iouThreshold` (0.3, keijiro's Postprocess2) is averaged into it,
// weighted by score (box and key points), keeping the best score.
export function decodeBlazeface(scores, boxes, size, { threshold = 0.75, iouThreshold = 0.3 } = {}) {
  const anchors = blazefaceAnchors();
  const cands = [];
  for (let i = 0; i < anchors.length; i++) {
    const score = sigmoid(Math.max(-100, Math.min(100, scores[i])));
    if (!(score > threshold)) continue;
    const a = anchors[i];
    const b = boxes.subarray(i * 16, i * 16 + 16);
    const keypoints = [];
    for (let k = 0; k < 6; k++) keypoints.push({ x: a.x + b[4 + 2 * k] / size, y: a.y + b[5 + 2 * k] / size });
    cands.push({ score, cx: a.x + b[0] / size, cy: a.y + b[1] / size, w: b[2] / size, h: b[3] / size, keypoints });
  }
  cands.sort((p, q) => q.score - p.score);
  const used = new Array(cands.length).fill(false);
  const out = [];
  for (let i = 0; i < cands.length; i++) {
    if (used[i]) continue;
    const best = cands[i];
    used[i] = true;
    let wsum = best.score;
    const acc = { cx: best.cx * best.score, cy: best.cy * best.score, w: best.w * best.score, h: best.h * best.score,
      kp: best.keypoints.map((p) => ({ x: p.x * best.score, y: p.y * best.score })) };
    for (let j = i + 1; j < cands.length; j++) {
      if (used[j] || iou(best, cands[j]) < iouThreshold) continue;
      const c = cands[j];
      used[j] = true;
      wsum += c.score;
      acc.cx += c.cx * c.score;
      acc.cy += c.cy * c.score;
      acc.w += c.w * c.score;
      acc.h += c.h * c.score;
      c.keypoints.forEach((p, k) => {
        acc.kp[k].x += p.x * c.score;
        acc.kp[k].y += p.y * c.score;
      });
    }
    out.push({
      score: best.score,
      cx: acc.cx / wsum,
      cy: acc.cy / wsum,
      w: acc.w / wsum,
      h: acc.h / wsum,
      keypoints: acc.kp.map((p) => ({ x: p.x / wsum, y: p.y / wsum })),
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// M-LSD (navervision/mlsd; keijiro's MLSD ONNX exports, the "with alpha" models).
//
// The exports end in the reference decoder's first steps: `scores` [1, H, W, 1] is the centre
// map after sigmoid and 3x3 max-pool suppression, `offsets` [1, H, W, 4] the displacement map
// (start dx, dy, end dx, dy in output-map pixels); the map is half the input size. The reference
// (pred_lines in mlsd's utils.py) then takes the top-k centres (200), keeps those with a score
// over 0.1 and a segment longer than 20 map pixels, and places each segment at
// (x + dx_start, y + dy_start) -> (x + dx_end, y + dy_end), times 2 for input pixels.
// ---------------------------------------------------------------------------------------------

// Finds M-LSD's outputs by shape: [.., H, W, 1] and [.., H, W, 4] with the same H and W.
// Returns {scores, offsets, h, w} or null.
export function findMlsdOutputs(outputs) {
  const list = Object.values(outputs).filter((o) => o.shape && o.shape.length >= 3);
  const sc = list.find((o) => o.shape[o.shape.length - 1] === 1);
  const of = list.find((o) => o.shape[o.shape.length - 1] === 4);
  if (!sc || !of) return null;
  const [h, w] = sc.shape.slice(-3, -1);
  const [h2, w2] = of.shape.slice(-3, -1);
  if (h !== h2 || w !== w2 || sc.data.length !== h * w || of.data.length !== h * w * 4) return null;
  return { scores: sc.data, offsets: of.data, h, w };
}

// Segments: [{score, x0, y0, x1, y1}] normalized to the input, best first.
export function decodeMlsd(scores, offsets, h, w, { scoreThreshold = 0.1, distThreshold = 20, topK = 200 } = {}) {
  const cands = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = scores[y * w + x];
      if (!(s > scoreThreshold)) continue;
      // local maximum in 3x3 (the export already suppressed the rest; this keeps the decoder
      // right for exports that do not)
      let isMax = true;
      for (let dy = -1; dy <= 1 && isMax; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const yy = y + dy, xx = x + dx;
          if ((dy || dx) && yy >= 0 && yy < h && xx >= 0 && xx < w && scores[yy * w + xx] > s) {
            isMax = false;
            break;
          }
        }
      }
      if (isMax) cands.push({ s, x, y });
    }
  }
  cands.sort((a, b) => b.s - a.s);
  const out = [];
  for (const { s, x, y } of cands.slice(0, topK)) {
    const o = (y * w + x) * 4;
    const xs = x + offsets[o], ys = y + offsets[o + 1], xe = x + offsets[o + 2], ye = y + offsets[o + 3];
    if (!(Math.hypot(xs - xe, ys - ye) > distThreshold)) continue;
    out.push({ score: s, x0: xs / w, y0: ys / h, x1: xe / w, y1: ye / h });
  }
  return out;
}
