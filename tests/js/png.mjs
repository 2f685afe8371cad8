// PNG files made in tests (calibration pictures, image bombs): 8-bit, stored as one zlib stream of
// unfiltered rows (the PNG specification, RFC 2083), with CRCs.
import zlib from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

// An 8-bit PNG of `channels` (1 gray, 3 RGB, 4 RGBA) whose samples are pixel(x, y, ch);
// `declared` overrides the header's size (an image bomb declares far more than it holds).
export function makePng(w, h, channels, pixel, declared = null) {
  const colorType = { 1: 0, 2: 4, 3: 2, 4: 6 }[channels];
  const raw = Buffer.alloc(h * (1 + w * channels));
  for (let y = 0; y < h; y++) {
    raw[y * (1 + w * channels)] = 0; // filter: none
    for (let x = 0; x < w; x++) for (let c = 0; c < channels; c++) raw[y * (1 + w * channels) + 1 + x * channels + c] = pixel(x, y, c);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(declared ? declared[0] : w, 0);
  ihdr.writeUInt32BE(declared ? declared[1] : h, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  const sig = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return new Uint8Array(Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]));
}

// Smooth gradients with a per-picture twist: pictures that differ, like a small photo set.
export const picture = (w, h, k, channels = 3) =>
  makePng(w, h, channels, (x, y, c) => Math.round(127.5 + 120 * Math.sin((x * (c + 1) + y * (k + 2)) / (7 + k))) & 255);
