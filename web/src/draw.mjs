// Drawing a picture with a detector's results on a canvas: BlazeFace faces (box, keypoints, score)
// and M-LSD line segments. Used by Run (one canvas) and Quantize (fp32 and int8 side by side).
// `result`: {kind: 'faces' | 'lines', items} as web/src/decoders.mjs decodes them, coordinates in
// [0, 1] of the picture; null draws the picture alone.
export function drawDetections(cv, src, result, maxSide = 640) {
  const ctx = cv.getContext('2d');
  const scale = Math.min(1, maxSide / Math.max(src.width, src.height));
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
