// The page's Quantize step end to end in headless Chromium (every request through the logging
// proxy, as the other page tests):
// - BlazeFace (bundled) quantized on the page's sample pictures: the int8 .bin is smaller, the speed
//   of both is timed, every output has an error against fp32, and fp32's and int8's faces are drawn
//   side by side; the downloaded int8 .param/.bin load and run in the npm package in Node and hold
//   ncnn2int8's int8 layers; "Download everything" then holds them too (same bytes, README lines);
// - M-LSD (4-channel input: the page makes the tensors) gives lines side by side; Cancel while
//   calibrating is said as such, leaves no int8 model, and the page goes on;
// - a classifier (a zoo structure with random weights) gets a top-1 agreement;
// - a picture dropped on the card joins the calibration list (not Run's input);
// - bad input: a non-picture file and an image bomb among the chosen pictures are left out with a
//   message; a corrupt PNG that passes the header check is refused by nnfold, named and marked in
//   the list, and quantizing works once it is removed; a model with nothing to quantize says so;
// - an int8 model made by ncnn's tools is refused as already quantized;
// - a model whose input is no picture is calibrated on seeded random inputs, said as such;
// Screenshots of the Quantize card at 1366x850 and 390x844 go to tests/artifacts/ (quantize-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, skipReason, startProxy, startPage, launch, closeServer, artifacts } from './harness.mjs';
import { fixture, skipOrFail, zoo as zooDir, zooFixture } from '../js/helpers.mjs';
import { makePng, picture } from '../js/png.mjs';
import { unzipSync } from 'fflate';

const nf = skipReason ? null : await (await import(path.join(root, 'dist/index.mjs'))).init({ threads: 1 });

async function waitIdle(page, timeout = 180000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && !document.body.dataset.busy, null, { timeout });
}
const text = async (page, sel) => ((await page.locator(sel).textContent()) ?? '').trim();

async function snap(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  // the sticky section bar would be drawn over the card being captured
  await page.evaluate(() => { document.querySelector('.steps').style.position = 'static'; });
  await page.locator('#quantize').scrollIntoViewIfNeeded();
  await page.locator('#quantize').screenshot({ path: path.join(artifacts, `quantize-${name}-${page.viewportSize().width}.png`) });
  await page.evaluate(() => { document.querySelector('.steps').style.position = ''; });
}

// Nothing on the page is wider than the window (phones).
async function noSideScroll(page, what) {
  const r = await page.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')].filter((e) => {
      const b = e.getBoundingClientRect();
      return b.width > 0 && b.right > window.innerWidth + 1 && !e.closest('.graph-host, .table-scroll');
    }).slice(0, 5).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`);
    return { sw: document.documentElement.scrollWidth, iw: window.innerWidth, wide };
  });
  assert.ok(r.sw <= r.iw, `${what}: page is ${r.sw}px wide in a ${r.iw}px window; too wide: ${r.wide.join(', ')}`);
}

async function openSample(page, id, namePrefix) {
  await page.selectOption('#sample-select', id);
  await page.click('#sample-open');
  await page.waitForFunction((n) => document.getElementById('model-name').textContent.startsWith(n), namePrefix, { timeout: 60000 });
  await waitIdle(page);
}

// Quantize with what is in the list and wait for the whole step (quantize, compare, time).
// The page's four sample pictures in the list (they are drawn and encoded asynchronously).
async function addSamples(page) {
  await page.click('#quant-samples');
  await page.waitForFunction(() => [...document.querySelectorAll('#quant-list li')].filter((li) => li.dataset.name.startsWith('sample-')).length === 4);
}

// Returns how it ended ('done', 'failed', 'cancelled') and the message shown, if any.
async function quantizeAndWait(page) {
  await page.click('#quant-run');
  await page.waitForFunction(() => document.body.dataset.quant && document.body.dataset.quant !== 'running', null, { timeout: 300000 });
  await waitIdle(page);
  const end = await page.evaluate(() => document.body.dataset.quant);
  const message = (await page.locator('#quant-error').isVisible()) ? await text(page, '#quant-error') : '';
  return { end, message };
}

test('the Quantize step: bundled detectors side by side, a classifier, downloads, bad input', { skip: skipReason, timeout: 900000 }, async (t) => {
  const proxy = await startProxy();
  const sink = await startProxy();
  const { server, port } = await startPage();
  proxy.state.allow = `127.0.0.1:${port}`;
  const origin = `http://127.0.0.1:${port}`;
  const browser = await launch(proxy.port, sink.port);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-quant-'));
  const errors = [];
  try {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.setViewportSize({ width: 1366, height: 850 });
    // One thread (the SIMD flavour): the quantize flow does not depend on the flavour, which the
    // threads page test and the package tests under NNFOLD_TEST_THREADS cover, and timings of one
    // thread are steadier on a loaded machine.
    await page.goto(`${origin}/?threads=1`);
    await waitIdle(page);

    await t.test('BlazeFace on the sample pictures: smaller, timed, compared, faces side by side', async () => {
      await openSample(page, 'blazeface-front', 'BlazeFace front');
      // Run still draws its faces (the drawing is shared with this step's side-by-side view)
      await page.click('#run-go');
      await waitIdle(page);
      assert.match(await text(page, '#run-result-text'), /^1 face found/);
      assert.equal(await page.evaluate(() => document.body.dataset.detections), '1');
      assert.equal(await page.locator('#quant-body').isVisible(), true);
      assert.match(await text(page, '#quant-pre-note'), /resized to 128×128/);
      await addSamples(page);
      assert.match(await text(page, '#quant-count'), /4 pictures/);
      assert.deepEqual(await quantizeAndWait(page), { end: 'done', message: '' });
      assert.match(await text(page, '#quant-verdict'), /int8 model ready: \d+ of \d+ layers int8/);
      const sizes = await page.locator('#quant-stats').evaluate((e) => ({ fp32: Number(e.dataset.fp32Bin), int8: Number(e.dataset.int8Bin) }));
      // the page's bound (PAGE_MAX_LAYER_ERROR) keeps BlazeFace's steepest layers fp32: about 1.7x
      // smaller, not ncnn2int8's 3.5x (docs/quantize.md)
      assert.ok(sizes.int8 > 0 && sizes.int8 < sizes.fp32 / 1.4, `int8 .bin ${sizes.int8} vs fp32 ${sizes.fp32}`);
      // every output compared, each with a finite error
      const rows = await page.locator('#quant-agree-table tbody tr').evaluateAll((trs) => trs.map((r) => r.dataset.err));
      assert.ok(rows.length >= 2, `${rows.length} outputs compared`);
      for (const e of rows) assert.ok(Number.isFinite(Number(e)), `err ${e}`);
      // both drawn: the sample picture has one face, found by fp32 and by int8
      const found = await page.locator('#quant-pair figure').evaluateAll((fs) => fs.map((f) => [f.dataset.model, Number(f.dataset.found)]));
      assert.deepEqual(found.map(([m]) => m), ['fp32', 'int8']);
      assert.ok(found[0][1] >= 1 && found[1][1] >= 1, `faces ${JSON.stringify(found)}`);
      // the speed of both, as the Optimize step times them
      assert.match(await text(page, '#quant-speed-verdict'), /int8 is|No measurable difference/);
      assert.equal(await page.locator('#quant-speed-table tbody tr').count(), 2);
      // another picture in the pair view
      await page.selectOption('#quant-view', '1');
      assert.equal(await page.locator('#quant-pair figure').count(), 2);
      await page.selectOption('#quant-view', '0');
      await snap(page, 'blazeface');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(300);
      await noSideScroll(page, 'the Quantize results on a phone');
      await snap(page, 'blazeface');
      await page.setViewportSize({ width: 1366, height: 850 });

      // the int8 files: downloaded, loaded by the package in Node, int8 layers inside
      const get = async (id) => {
        const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
        const p = path.join(tmp, dl.suggestedFilename());
        await dl.saveAs(p);
        return p;
      };
      const param = await get('#quant-dl-param');
      const bin = await get('#quant-dl-bin');
      const io = await get('#quant-dl-io');
      assert.match(path.basename(param), /\.int8\.param$/);
      const paramText = fs.readFileSync(param, 'utf8');
      assert.ok(/\n(Convolution|ConvolutionDepthWise)\s.*\s8=(1|2|101|102)\b/.test(paramText), 'int8 layers in the .param');
      assert.equal(fs.statSync(bin).size, sizes.int8);
      const m = nf.loadNcnn(fs.readFileSync(param), fs.readFileSync(bin), { ioJson: fs.readFileSync(io, 'utf8') });
      const out = m.run(nf.randomInputs(m, 1));
      assert.ok(Object.keys(out).length >= 2);
      m.dispose();
      await waitIdle(page);

      // "Download everything": the int8 files join the zip (the same bytes as the buttons give),
      // its README and the page's list of its files
      const stem = path.basename(param).replace(/\.int8\.param$/, '');
      const int8Names = ['param', 'bin', 'io.json', 'report.json'].map((x) => `${stem}.int8.${x}`);
      const listed = await page.locator('#dl-files li .mono').allTextContents();
      for (const n of int8Names) assert.ok(listed.includes(n), `${n} in the page's zip list: ${listed.join(', ')}`);
      const [dz] = await Promise.all([page.waitForEvent('download'), page.click('#dl-zip')]);
      const zip = unzipSync(fs.readFileSync(await dz.path()));
      const names = Object.keys(zip);
      for (const n of int8Names) assert.ok(names.includes(n), `${n} in the zip: ${names.join(', ')}`);
      assert.ok(names.includes(`${stem}.param`) && names.includes('README.txt'), names.join(', '));
      assert.ok(Buffer.from(zip[`${stem}.int8.param`]).equals(fs.readFileSync(param)), 'zip int8 .param = the button\'s');
      assert.ok(Buffer.from(zip[`${stem}.int8.bin`]).equals(fs.readFileSync(bin)), 'zip int8 .bin = the button\'s');
      assert.ok(Buffer.from(zip[`${stem}.int8.io.json`]).equals(fs.readFileSync(io)), 'zip int8 .io.json = the button\'s');
      const report = JSON.parse(new TextDecoder().decode(zip[`${stem}.int8.report.json`]));
      assert.ok(Array.isArray(report.layers) && report.layers.some((l) => l.int8), 'the quantization report, int8 layers in it');
      const readme = new TextDecoder().decode(zip['README.txt']);
      for (const n of int8Names) assert.ok(readme.includes(`${n}\n    `), `README.txt describes ${n}`);
      await waitIdle(page);
    });

    await t.test('M-LSD (RGB + alpha input): tensors made by the page, lines side by side', async () => {
      await openSample(page, 'mlsd-320-tiny', 'M-LSD tiny 320');
      assert.match(await text(page, '#quant-pre-note'), /4 channels.*makes the tensors itself/);
      await addSamples(page);
      assert.deepEqual(await quantizeAndWait(page), { end: 'done', message: '' });
      const found = await page.locator('#quant-pair figure').evaluateAll((fs) => fs.map((f) => Number(f.dataset.found)));
      assert.equal(found.length, 2);
      assert.ok(found[0] > 0 && found[1] > 0, `lines ${found}`);
      assert.match(await text(page, '#quant-pair'), /fp32: \d+ lines?.*int8: \d+ lines?/s);
      await snap(page, 'mlsd');

      // Cancel while calibrating: said as the user's choice, no int8 model, the page goes on
      await page.click('#quant-run');
      await page.waitForFunction(() => /calibrating/.test(document.getElementById('quant-label').textContent), null, { timeout: 120000 });
      await page.click('#quant-cancel');
      await page.waitForFunction(() => document.body.dataset.quant !== 'running', null, { timeout: 120000 });
      await waitIdle(page);
      assert.equal(await page.evaluate(() => document.body.dataset.quant), 'cancelled');
      assert.match(await text(page, '#quant-error'), /cancelled/i);
      assert.equal(await page.locator('#quant-error').getAttribute('role'), 'status', 'a cancel is information, not an error');
      assert.equal(await page.locator('#quant-result').isVisible(), false);
      await page.click('#run-go');
      await waitIdle(page);
      assert.equal(await page.locator('#run-error').isVisible(), false, await text(page, '#run-error'));
    });

    await t.test('a classifier: top-1 agreement on the pictures', async (st) => {
      if (!(await page.locator('#sample-select option[value="zoo-squeezenet"]').count())) return skipOrFail(st, zooFixture);
      await openSample(page, 'zoo-squeezenet', 'squeezenet');
      await addSamples(page);
      await page.selectOption('#quant-method', 'aciq');
      assert.deepEqual(await quantizeAndWait(page), { end: 'done', message: '' });
      const top1 = await page.locator('#quant-agree-table tbody tr').evaluateAll((trs) => trs.map((r) => [r.dataset.top1, r.textContent]));
      assert.equal(top1.length, 1);
      assert.ok(Number(top1[0][0]) >= 0 && Number(top1[0][0]) <= 1, `top-1 ${top1[0][0]}`);
      assert.match(top1[0][1], /\d of 4 pictures/);
      assert.match(await text(page, '#quant-stats'), /method ACIQ/);
      assert.equal(await page.locator('#quant-pair').count(), 0, 'no detector to draw for a classifier');
      assert.ok(fs.existsSync(zooDir));
    });

    await t.test('bad input: non-pictures and bombs left out, a corrupt picture named, nothing to quantize', async () => {
      await openSample(page, 'blazeface-front', 'BlazeFace front');
      await page.click('#quant-clear');
      // a picture dropped on the card joins the list (it does not become Run's input)
      const dropped = Array.from(picture(40, 30, 4));
      await page.evaluate((bytes) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
        document.getElementById('quant-drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, dropped);
      await page.waitForSelector('#quant-list li[data-name="dropped.png"]');
      assert.doesNotMatch(await text(page, '#toast'), /dropped\.png ready/);
      await page.click('#quant-clear');
      const good = path.join(tmp, 'good.png');
      fs.writeFileSync(good, picture(96, 80, 2));
      const notes = path.join(tmp, 'notes.txt');
      fs.writeFileSync(notes, 'not a picture');
      const bomb = path.join(tmp, 'bomb.png');
      fs.writeFileSync(bomb, makePng(4, 4, 3, () => 0, [40000, 40000]));
      await page.setInputFiles('#quant-files', [notes, bomb, good]);
      await page.waitForSelector('#quant-error:not([hidden])');
      const msg = await text(page, '#quant-error');
      assert.match(msg, /Left out: notes\.txt is not a PNG or JPEG picture/);
      assert.match(msg, /bomb\.png declares 40,000 × 40,000 pixels/);
      assert.deepEqual(await page.locator('#quant-list li').evaluateAll((l) => l.map((x) => x.dataset.name)), ['good.png']);
      // a PNG whose header is fine and whose data is cut: nnfold refuses it, named
      const cut = path.join(tmp, 'cut.png');
      fs.writeFileSync(cut, picture(64, 64, 3).subarray(0, 90));
      await page.setInputFiles('#quant-files', [cut]);
      await quantizeAndWait(page);
      const err = await text(page, '#quant-error');
      assert.match(err, /cut\.png/);
      assert.match(err, /Remove cut\.png from the pictures/);
      assert.equal(await page.locator('#quant-list li.bad').getAttribute('data-name'), 'cut.png');
      assert.equal(await page.locator('#quant-result').isVisible(), false);
      await snap(page, 'bad-input');
      await page.click('#quant-list li.bad button');
      assert.deepEqual(await quantizeAndWait(page), { end: 'done', message: '' });
      assert.match(await text(page, '#quant-verdict'), /int8 model ready/);

      // a model with nothing to quantize (a .param alone, then random weights)
      const relu = path.join(tmp, 'relu.param');
      fs.writeFileSync(relu, '7767517\n2 2\nInput data 0 1 data 0=32 1=32 2=3\nReLU relu 1 1 data out\n');
      await page.setInputFiles('#file-input', [relu]);
      await page.waitForSelector('#bin-offer:not([hidden])');
      await page.click('#bin-random');
      await waitIdle(page);
      await addSamples(page);
      await quantizeAndWait(page);
      assert.match(await text(page, '#quant-error'), /nothing to quantize/);
      // the page goes on: the model still runs
      await page.click('#run-go');
      await waitIdle(page);
      assert.equal(await page.locator('#run-error').isVisible(), false);
    });

    await t.test('an int8 model (made by ncnn\'s tools): already quantized, said as such', async (st) => {
      const dir = path.join(zooDir, '../ncnn-int8');
      const int8 = fixture(`ncnn's int8 zoo models at ${dir}`, fs.existsSync(path.join(dir, 'squeezenet_int8.bin')),
        'put int8 models made by ncnn2table + ncnn2int8 (with their .bin) in ncnn-int8/ beside the zoo folder (NNFOLD_ZOO_DIR)');
      if (!int8.present) return skipOrFail(st, int8);
      await page.setInputFiles('#file-input', [path.join(dir, 'squeezenet_int8.param'), path.join(dir, 'squeezenet_int8.bin')]);
      await page.waitForFunction(() => document.getElementById('model-name').textContent === 'squeezenet_int8.param', null, { timeout: 60000 });
      await waitIdle(page);
      await addSamples(page);
      const r = await quantizeAndWait(page);
      assert.equal(r.end, 'failed');
      assert.match(r.message, /already quantized.*quantize its fp32 original instead/s);
    });

    await t.test('an input that is no picture: calibrated on seeded random inputs, said as such', async () => {
      const fc = path.join(tmp, 'fc.param');
      fs.writeFileSync(fc, '7767517\n3 3\nInput data 0 1 data 0=16\nInnerProduct fc 1 1 data fc 0=8 1=1 2=128\nReLU relu 1 1 fc out\n');
      await page.setInputFiles('#file-input', [fc]);
      await page.waitForSelector('#bin-offer:not([hidden])');
      await page.click('#bin-random');
      await waitIdle(page);
      assert.equal(await page.locator('#quant-pictures').isVisible(), false);
      assert.match(await text(page, '#quant-pre-note'), /not a picture: the page calibrates on 8 seeded random inputs/);
      assert.deepEqual(await quantizeAndWait(page), { end: 'done', message: '' });
      assert.match(await text(page, '#quant-stats'), /8 random inputs/);
      assert.match(await text(page, '#quant-agree'), /on the 8 random calibration inputs/);
      assert.equal(await page.locator('#quant-agree-table tbody tr').count(), 1);
    });

    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await closeServer(server);
    proxy.server.close();
    sink.server.close();
    assert.ok(proxy.log.every((r) => r.allowed), `requests to other origins: ${JSON.stringify(proxy.log.filter((r) => !r.allowed))}`);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
