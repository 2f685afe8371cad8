// Image input: where the picture goes in a model's input tensor (layout from the input's shape),
// the normalization, and the page's own sample picture. The tensor code is pure (tested in Node).

// How an input shape (outermost first, as the package reports it) holds an image:
// - [c, h, w] (ncnn blob) or [1, c, h, w] (ONNX NCHW): planar, layout 'chw';
// - [1, h, w, c] (ONNX NHWC, e.g. TensorFlow exports such as BlazeFace and M-LSD): 'hwc';
// - [h, w]: one channel.
// Returns {layout, h, w, c} or null when the shape is not an image (or unknown).
export function imageLayout(shape, override = 'auto') {
  if (!Array.isArray(shape)) return null;
  const s = shape.slice();
  if (s.length === 4 && s[0] === 1) s.shift();
  else if (s.length === 4) return null;
  if (s.length === 2) return { layout: 'chw', c: 1, h: s[0], w: s[1] };
  if (s.length !== 3) return null;
  const chw = { layout: 'chw', c: s[0], h: s[1], w: s[2] };
  const hwc = { layout: 'hwc', h: s[0], w: s[1], c: s[2] };
  if (override === 'chw') return chw;
  if (override === 'hwc') return hwc;
  const small = (x) => x >= 1 && x <= 4;
  if (small(s[0]) && !small(s[2])) return chw;
  if (small(s[2]) && !small(s[0])) return hwc;
  return shape.length === 4 && small(s[2]) ? hwc : chw;
}

// Parses "a, b, c" into numbers (one value repeats for every channel).
export function parseNumberList(text, channels, what) {
  const parts = String(text).split(/[\s,;]+/).filter(Boolean);
  const nums = parts.map(Number);
  if (!parts.length || nums.some((x) => !Number.isFinite(x))) throw new Error(`${what}: give numbers separated by commas`);
  if (nums.length === 1) return new Array(channels).fill(nums[0]);
  if (nums.length < channels) throw new Error(`${what}: the input has ${channels} channels, ${nums.length} values given`);
  return nums.slice(0, channels);
}

// RGBA pixels (w * h * 4, 0..255) of an image already resized to the input -> Float32Array in
// the input's layout: value = (pixel - mean[c]) / std[c]; channel order RGB or BGR for the first
// three channels, alpha as the fourth; one channel is the luma (BT.601).
export function imageToTensor(rgba, { h, w, c, layout }, { mean, std, order = 'RGB' }) {
  if (rgba.length !== w * h * 4) throw new Error(`image has ${rgba.length / 4} pixels; the input needs ${w}x${h}`);
  if (c < 1 || c > 4) throw new Error(`an image has 1, 3 or 4 channels; this input has ${c}`);
  if (std.some((s) => s === 0)) throw new Error('std must not be 0');
  const out = new Float32Array(w * h * c);
  const src = order === 'BGR' ? [2, 1, 0, 3] : [0, 1, 2, 3];
  const plane = w * h;
  for (let i = 0; i < plane; i++) {
    const p = i * 4;
    for (let k = 0; k < c; k++) {
      let v;
      if (c === 1) v = 0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2];
      else if (c === 2) v = rgba[p + k];
      else v = rgba[p + src[k]];
      const x = (v - mean[k]) / std[k];
      if (layout === 'hwc') out[i * c + k] = x;
      else out[k * plane + i] = x;
    }
  }
  return out;
}

// The page's sample picture, drawn (no photo ships with the page): a person in a room, so the
// face detector has a face and the line detector has edges. Drawn at `size` x `size`.
export function drawSamplePicture(ctx, size) {
  const S = size;
  const g = (x0, y0, x1, y1, stops) => {
    const gr = ctx.createLinearGradient(x0 * S, y0 * S, x1 * S, y1 * S);
    for (const [o, c] of stops) gr.addColorStop(o, c);
    return gr;
  };
  const ell = (cx, cy, rx, ry, fill, rot = 0) => {
    ctx.beginPath();
    ctx.ellipse(cx * S, cy * S, rx * S, ry * S, rot, 0, Math.PI * 2);
    ctx.fillStyle = fill;
    ctx.fill();
  };
  const rect = (x, y, w, h, fill) => {
    ctx.fillStyle = fill;
    ctx.fillRect(x * S, y * S, w * S, h * S);
  };
  // wall, floor
  rect(0, 0, 1, 1, g(0, 0, 1, 1, [[0, '#d9cbb4'], [1, '#b9a88f']]));
  rect(0, 0.8, 1, 0.2, g(0, 0.8, 0, 1, [[0, '#7a5a3c'], [1, '#5c4128']]));
  ctx.strokeStyle = '#4a3320';
  ctx.lineWidth = S * 0.006;
  ctx.beginPath();
  ctx.moveTo(0, 0.8 * S);
  ctx.lineTo(S, 0.8 * S);
  ctx.stroke();
  // window with frame and panes (straight edges for the line detector)
  rect(0.06, 0.1, 0.3, 0.38, '#f3efe6');
  rect(0.08, 0.12, 0.26, 0.34, g(0, 0.12, 0, 0.46, [[0, '#9cc7ee'], [1, '#d9ecfb']]));
  rect(0.2, 0.12, 0.02, 0.34, '#f3efe6');
  rect(0.08, 0.28, 0.26, 0.02, '#f3efe6');
  // shelf with books
  rect(0.68, 0.2, 0.28, 0.02, '#6b4a2d');
  rect(0.68, 0.4, 0.28, 0.02, '#6b4a2d');
  const books = ['#8c2f39', '#2f5d8c', '#3d7a4a', '#c9a227', '#5b3f8c', '#b5522f'];
  let x = 0.7;
  for (let i = 0; i < 9; i++) {
    const w = 0.022 + ((i * 7) % 3) * 0.006;
    const h = 0.12 + ((i * 5) % 4) * 0.012;
    rect(x, 0.2 - h, w, h, books[i % books.length]);
    rect(x + 0.002, 0.4 - h * 0.9, w, h * 0.9, books[(i + 2) % books.length]);
    x += w + 0.004;
  }
  // picture frame on the wall
  rect(0.42, 0.06, 0.18, 0.12, '#3b2a1a');
  rect(0.435, 0.075, 0.15, 0.09, g(0.43, 0.07, 0.58, 0.16, [[0, '#6fa06f'], [1, '#c7d98f']]));
  // person: shoulders, neck, hair, face
  ell(0.5, 1.02, 0.34, 0.24, g(0, 0.8, 0, 1, [[0, '#34507a'], [1, '#233a5c']]));
  ell(0.5, 0.78, 0.07, 0.1, '#d9a383');
  ell(0.5, 0.44, 0.2, 0.25, '#3b2718');
  const skin = ctx.createRadialGradient(0.47 * S, 0.46 * S, 0.02 * S, 0.5 * S, 0.5 * S, 0.24 * S);
  skin.addColorStop(0, '#f4cfb3');
  skin.addColorStop(0.7, '#e3b08f');
  skin.addColorStop(1, '#c98f6e');
  ell(0.5, 0.5, 0.16, 0.215, skin);
  ell(0.5, 0.31, 0.17, 0.075, '#3b2718');
  for (const sx of [-1, 1]) {
    ell(0.5 + sx * 0.168, 0.51, 0.02, 0.04, '#dba07f');
    ell(0.5 + sx * 0.068, 0.46, 0.038, 0.017, '#fbf8f3');
    ell(0.5 + sx * 0.068, 0.46, 0.016, 0.016, '#5a3b22');
    ell(0.5 + sx * 0.068, 0.46, 0.0075, 0.0075, '#111');
    ell(0.5 + sx * 0.068 - 0.005, 0.455, 0.003, 0.003, '#fff');
    ell(0.5 + sx * 0.07, 0.418, 0.044, 0.009, '#3b2718', -sx * 0.12);
  }
  ell(0.5, 0.53, 0.018, 0.05, 'rgba(190, 130, 100, 0.35)');
  ell(0.5, 0.565, 0.028, 0.012, 'rgba(150, 90, 70, 0.55)');
  ell(0.5, 0.625, 0.05, 0.016, '#b5524f');
  ell(0.5, 0.62, 0.045, 0.006, '#8e3634');
}
