// The camera as the Run input, in headless Chromium with its fake camera
// (--use-fake-device-for-media-stream: a moving test pattern; --use-fake-ui-for-media-stream:
// permission granted without a prompt): the bundled detectors (BlazeFace, M-LSD) run frame after
// frame with their results drawn; Stop and Escape stop the stream; a denied permission and a
// missing camera (the browser's own errors, raised by a stubbed getUserMedia: the fake UI always
// grants) are explained in words. Screenshots at 1366x850 and 390x844 in tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { skipReason, startProxy, startPage, launch, closeServer, artifacts } from './harness.mjs';

const FAKE_CAMERA = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'];

async function waitIdle(page, timeout = 120000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && !document.body.dataset.busy, null, { timeout });
}
const text = async (page, sel) => ((await page.locator(sel).textContent()) ?? '').trim();
const frames = (page) => page.evaluate(() => Number(document.body.dataset.cameraFrames ?? 0));

async function snap(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  await page.locator('#run').scrollIntoViewIfNeeded();
  await page.locator('#run').screenshot({ path: path.join(artifacts, `camera-${name}-${page.viewportSize().width}.png`) });
}

// Runs at least `n` more frames and checks each detector's result was decoded and drawn.
async function runFrames(page, n) {
  const start = await frames(page);
  await page.waitForFunction((k) => Number(document.body.dataset.cameraFrames ?? 0) >= k, start + n, { timeout: 120000 });
  const r = await page.evaluate(() => {
    const cv = document.getElementById('run-canvas');
    const px = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    const colours = new Set();
    for (let i = 0; i < px.length; i += 4 * 97) colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    return { w: cv.width, h: cv.height, colours: colours.size, detections: document.body.dataset.detections };
  });
  // the fake camera's frame (640x480 asked for), not the sample picture (square)
  assert.notEqual(r.w, r.h, `canvas ${r.w}x${r.h}`);
  assert.ok(r.colours > 4, `the canvas shows a picture (${r.colours} colours sampled)`);
  assert.match(r.detections, /^\d+$/, 'the detector decoded the frame');
}

test('the camera feeds the bundled detectors; stop; denied and missing cameras explained', { skip: skipReason, timeout: 600000 }, async (t) => {
  const proxy = await startProxy();
  const sink = await startProxy();
  const { server, port } = await startPage();
  proxy.state.allow = `127.0.0.1:${port}`;
  const origin = `http://127.0.0.1:${port}`;
  const browser = await launch(proxy.port, sink.port, FAKE_CAMERA);
  const errors = [];
  try {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setViewportSize({ width: 1366, height: 850 });
    await page.goto(`${origin}/`);
    await waitIdle(page);

    await t.test('BlazeFace: frames run and are drawn until Stop', async () => {
      await page.selectOption('#sample-select', 'blazeface-front');
      await page.click('#sample-open');
      await page.waitForFunction(() => document.getElementById('model-name').textContent.startsWith('BlazeFace front'), null, { timeout: 60000 });
      await waitIdle(page);
      assert.equal(await page.locator('#camera-start').isVisible(), true);
      await page.click('#camera-start');
      await page.waitForFunction(() => document.body.dataset.camera === 'on', null, { timeout: 30000 });
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'camera-stop');
      await runFrames(page, 3);
      assert.match(await text(page, '#run-result-text'), /\d+ faces? found/);
      assert.match(await text(page, '#camera-status'), /^Camera on: \d+ frames? run/);
      await snap(page, 'blazeface');
      await page.setViewportSize({ width: 390, height: 844 });
      await runFrames(page, 1);
      await snap(page, 'blazeface');
      await page.setViewportSize({ width: 1366, height: 850 });
      await page.click('#camera-stop');
      await page.waitForFunction(() => document.body.dataset.camera === 'off');
      await waitIdle(page);
      const stopped = await frames(page);
      await page.waitForTimeout(600);
      assert.equal(await frames(page), stopped, 'no frame runs after Stop');
      assert.match(await text(page, '#camera-status'), new RegExp(`^Camera off after ${stopped} frames`));
      assert.equal(await page.locator('#camera-start').isVisible(), true);
      assert.equal(await page.locator('#camera-stop').isVisible(), false);
    });

    await t.test('M-LSD: line segments from camera frames; Escape stops; a new model stops too', async () => {
      const id = await page.evaluate(() => [...document.querySelectorAll('#sample-select option')].map((o) => o.value).find((v) => v.startsWith('mlsd-320')));
      assert.ok(id, 'an M-LSD 320 sample is listed');
      await page.selectOption('#sample-select', id);
      await page.click('#sample-open');
      await page.waitForFunction(() => document.getElementById('model-name').textContent.startsWith('M-LSD'), null, { timeout: 60000 });
      await waitIdle(page);
      await page.click('#camera-start');
      await runFrames(page, 2);
      assert.match(await text(page, '#run-result-text'), /\d+ line segments? found/);
      await snap(page, 'mlsd');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.body.dataset.camera === 'off', null, { timeout: 30000 });
      // camera on again, then a new model: the camera stops with it
      await page.click('#camera-start');
      await page.waitForFunction(() => document.body.dataset.camera === 'on', null, { timeout: 30000 });
      await page.selectOption('#sample-select', 'blazeface-front');
      await page.click('#sample-open');
      await page.waitForFunction(() => document.body.dataset.camera === 'off', null, { timeout: 60000 });
      await waitIdle(page);
    });

    for (const [name, re, kind] of [['NotAllowedError', /Camera access was denied\. Allow the camera/, 'denied'], ['NotFoundError', /No camera was found/, 'none']]) {
      await t.test(`getUserMedia fails with ${name}: the page says what to do`, async () => {
        const p = await browser.context.newPage();
        p.on('pageerror', (e) => errors.push(String(e)));
        await p.addInitScript((n) => {
          navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('stubbed', n));
        }, name);
        await p.setViewportSize({ width: 1366, height: 850 });
        await p.goto(`${origin}/`);
        await waitIdle(p);
        await p.click('#camera-start');
        await p.waitForSelector('#image-error:not([hidden])');
        assert.match(await text(p, '#image-error'), re);
        assert.equal(await p.evaluate(() => document.body.dataset.camera), `error-${kind}`);
        assert.equal(await p.evaluate(() => document.activeElement?.id), 'image-error');
        assert.equal(await p.locator('#camera-stop').isVisible(), false);
        if (kind === 'denied') await snap(p, 'denied');
        await p.close();
      });
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await closeServer(server);
    await closeServer(proxy.server);
    await closeServer(sink.server);
  }
});
