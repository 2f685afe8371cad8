// The Quantize step's pure checks in Node: reading a picture's kind and declared size from its
// first bytes (PNG IHDR, JPEG start-of-frame), and what the page says about a file it leaves out.
// The pictures are made here (tests/js/png.mjs; a JPEG header written byte by byte).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pictureHeader, pictureProblem } from '../../web/src/quantize.mjs';
import { makePng } from './png.mjs';

// SOI, an APP0 segment of 16 bytes, a DQT stub, then SOF`marker` declaring h x w (3 components).
function jpegHeader(w, h, marker = 0xc0) {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
  const dqt = [0xff, 0xdb, 0x00, 0x04, 0x00, 0x00];
  const sof = [0xff, marker, 0x00, 0x11, 0x08, h >> 8, h & 255, w >> 8, w & 255, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return new Uint8Array([0xff, 0xd8, ...app0, ...dqt, ...sof]);
}

test('pictureHeader: PNG and JPEG kinds and declared sizes; anything else is null', () => {
  assert.deepEqual(pictureHeader(makePng(37, 21, 3, () => 7)), { kind: 'PNG', width: 37, height: 21 });
  assert.deepEqual(pictureHeader(makePng(4, 4, 1, () => 0, [40000, 30000])), { kind: 'PNG', width: 40000, height: 30000 });
  assert.deepEqual(pictureHeader(jpegHeader(640, 480)), { kind: 'JPEG', width: 640, height: 480 });
  // progressive JPEG (SOF2); DHT (0xc4) is no frame header and is skipped
  const prog = jpegHeader(1200, 900, 0xc2);
  assert.deepEqual(pictureHeader(prog), { kind: 'JPEG', width: 1200, height: 900 });
  const dht = jpegHeader(10, 10, 0xc4);
  assert.deepEqual(pictureHeader(dht), { kind: 'JPEG', width: 0, height: 0 });
  for (const b of [new TextEncoder().encode('not a picture'), new Uint8Array(0), new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
    new TextEncoder().encode('GIF89a.........................')]) {
    assert.equal(pictureHeader(b), null);
  }
});

test('pictureProblem: non-pictures and image bombs are left out with the reason, pictures pass', () => {
  assert.equal(pictureProblem('a.png', { kind: 'PNG', width: 640, height: 480 }), null);
  assert.equal(pictureProblem('b.jpg', { kind: 'JPEG', width: 8192, height: 8192 }), null); // 2^26 pixels: the limit itself
  assert.match(pictureProblem('notes.txt', null), /^notes\.txt is not a PNG or JPEG picture/);
  assert.match(pictureProblem('bomb.png', { kind: 'PNG', width: 40000, height: 40000 }), /^bomb\.png declares 40,000 × 40,000 pixels: .*not decoded$/);
  assert.match(pictureProblem('wide.png', { kind: 'PNG', width: 40000, height: 2 }), /declares 40,000 × 2 pixels/); // one side too long
  assert.match(pictureProblem('big.jpg', { kind: 'JPEG', width: 9000, height: 9000 }), /81 million|67 million/);
});
