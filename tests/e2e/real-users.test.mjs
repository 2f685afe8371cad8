// The page for real users (issue 17), end to end in headless Chromium, every request through the
// logging proxy of harness.mjs:
// - a symbolic-shape ONNX model (made here with the tests' own ONNX writer) opens with a prefilled
//   size form, takes new sizes (the model re-plans), runs (top-5 of 1000 classes, equal to the
//   Node package), optimizes, verifies and times both models honestly; the sizes are remembered;
// - an ncnn .param whose Input declares no shape opens, gets sizes, runs;
// - states: "None" passes disables Optimize, a cancel reads as cancelled and clears the old
//   result, a failed optimize clears the old one, focus moves to each result, Escape cancels, the
//   pass log is one tab stop with arrow keys inside;
// - one zip with every file, safe names, a README line per file, equal to the package's output;
// - graph search in a 450-layer model centres the match; a 1,000-layer graph renders; keyboard
//   stepping through the layers;
// - keyboard only: open -> optimize -> verify -> run -> download, focus on each result;
// - phone (390 px): no horizontal scroll, stacked tables; offline badge counts cached samples and
//   a sample opened once opens with the server stopped;
// - the page's JavaScript stays within 200 KiB gzipped (docs/sizes.md);
// - nothing leaves the page.
// Screenshots at 1366x850 and 390x844 go to tests/artifacts/ (real-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { unzipSync } from 'fflate';
import { root, webDist, skipReason, startProxy, startPage, launch, closeServer, artifacts } from './harness.mjs';
import { encodeModel, DataType } from '../js/onnx/onnx_proto.mjs';
import { chainParam } from './graphs.mjs';

const distIndex = path.join(root, 'dist/index.mjs');
const nf = skipReason ? null : await (await import(distIndex)).init();

// A small image classifier with open sizes: pixels [batch, 3, height, width] -> Conv 3x3 ->
// BatchNormalization (the optimizer folds it) -> Relu -> GlobalAveragePool -> Flatten -> Gemm
// to 1000 classes. Weights from a fixed LCG, so every run builds the same file.
function classifierOnnx() {
  let s = 12345;
  const rnd = (n, scale) => Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return ((s / 2 ** 32) * 2 - 1) * scale;
  });
  const t = (name, dims, data) => ({ name, dims, data_type: DataType.FLOAT, raw_data: Buffer.from(data.buffer) });
  const vi = (name, shape) => ({ name, type: { tensor_type: { elem_type: DataType.FLOAT, shape: { dim: shape.map((d) => (typeof d === 'string' ? { dim_param: d } : { dim_value: d })) } } } });
  const node = (op, inputs, outputs, attribute = []) => ({ op_type: op, name: `${op}_${outputs[0]}`, input: inputs, output: outputs, attribute });
  const ints = (name, v) => ({ name, type: 7, ints: v });
  return encodeModel({
    ir_version: 7,
    producer_name: 'nnfold-tests',
    opset_import: [{ domain: '', version: 13 }],
    graph: {
      name: 'classifier',
      node: [
        node('Conv', ['pixels', 'w', 'b'], ['conv'], [ints('kernel_shape', [3, 3]), ints('pads', [1, 1, 1, 1])]),
        node('BatchNormalization', ['conv', 'gamma', 'beta', 'mean', 'var'], ['bn']),
        node('Relu', ['bn'], ['relu']),
        node('GlobalAveragePool', ['relu'], ['gap']),
        node('Flatten', ['gap'], ['flat']),
        node('Gemm', ['flat', 'fc', 'fcb'], ['logits'], [{ name: 'transB', type: 2, i: 1 }]),
      ],
      initializer: [
        t('w', [8, 3, 3, 3], rnd(216, 0.5)), t('b', [8], rnd(8, 0.1)),
        t('gamma', [8], rnd(8, 0.5).map((x) => 1 + x)), t('beta', [8], rnd(8, 0.1)), t('mean', [8], rnd(8, 0.1)),
        t('var', [8], rnd(8, 0.4).map((x) => 1 + x)),
        t('fc', [1000, 8], rnd(8000, 1)), t('fcb', [1000], rnd(1000, 0.1)),
      ],
      input: [vi('pixels', ['batch', 3, 'height', 'width'])],
      output: [vi('logits', ['batch', 1000])],
    },
  });
}


async function waitIdle(page, timeout = 120000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && !document.body.dataset.busy, null, { timeout });
}
const text = async (page, sel) => ((await page.locator(sel).textContent()) ?? '').trim();
const activeId = (page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.closest('[id]')?.id || '');

// One screenshot per state at the size of its page (1366x850 or 390x844), full page.
async function snap(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  const w = page.viewportSize().width;
  await page.evaluate(() => window.scrollTo(0, 0)); // the sticky section bar at the top, not mid-page
  await page.screenshot({ path: path.join(artifacts, `real-${name}-${w}.png`), fullPage: true });
  // a phone page is too tall to read whole: each card on its own as well
  if (w < 600) {
    // the sticky section bar would be drawn over the card being captured
    await page.evaluate(() => { document.querySelector('.steps').style.position = 'static'; });
    for (const id of ['load', 'summary', 'optimize', 'graph', 'run', 'download']) {
      const card = page.locator(`#${id}`);
      if (await card.isVisible()) await card.screenshot({ path: path.join(artifacts, `real-${name}-${w}-${id}.png`) });
    }
    await page.evaluate(() => { document.querySelector('.steps').style.position = ''; });
  }
}

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

test('the page for real users: open any model, honest speed, states, zip, graph search, phone, offline', { skip: skipReason, timeout: 1200000 }, async (t) => {
  const proxy = await startProxy();
  const sink = await startProxy();
  let { server, port } = await startPage();
  proxy.state.allow = `127.0.0.1:${port}`;
  const origin = `http://127.0.0.1:${port}`;
  const browser = await launch(proxy.port, sink.port);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-real-'));
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1366, height: 850 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const onnxFile = path.join(tmp, 'tiny classifier (symbolic).onnx');
  fs.writeFileSync(onnxFile, classifierOnnx());
  try {
    await page.goto(`${origin}/`);
    await waitIdle(page);

    await t.test('the page JavaScript is within 200 KiB gzipped', () => {
      const js = ['app.js', 'worker.js', 'layout-worker.js', 'sw.js', 'nnfold/index.mjs', 'nnfold/nnfold-simd.mjs'];
      let total = 0;
      for (const f of js) total += zlib.gzipSync(fs.readFileSync(path.join(webDist, f)), { level: 9 }).length;
      t.diagnostic(`page JavaScript: ${(total / 1024).toFixed(1)} KiB gzipped (${js.join(', ')})`);
      assert.ok(total <= 200 * 1024, `${total} bytes gzipped`);
    });

    await t.test('a symbolic-shape ONNX model opens with a prefilled size form, re-plans, runs, optimizes, verifies', async (st) => {
      if (!nf.features.onnx) return st.skip('this build has no ONNX import');
      await page.setInputFiles('#file-input', [onnxFile]);
      await page.waitForFunction(() => document.getElementById('model-name').textContent.startsWith('tiny classifier'), null, { timeout: 60000 });
      await waitIdle(page);
      assert.equal(await page.locator('#load-error').isHidden(), true, await text(page, '#load-error'));
      assert.equal(await page.locator('#shape-needed').isVisible(), true);
      assert.equal(await page.inputValue('#shape-0'), '1, 3, 224, 224');
      assert.match(await text(page, '#shape-needed'), /batch, 3, height, width/);
      assert.match(await text(page, '#shape-intro'), /guesses/);
      assert.equal(await activeId(page), 'model-id', 'focus moves to the loaded model');
      assert.match(await text(page, '#io-table'), /\[1, 3, 224, 224\]/);
      assert.equal(await text(page, '#io-table thead th:nth-child(3)'), 'ONNX shape');
      await snap(page, 'shape-form');
      // new sizes: the model is loaded again at 64x64
      await page.fill('#shape-0', '1,3,64,64');
      await page.press('#shape-0', 'Enter');
      await page.waitForFunction(() => /\[1, 3, 64, 64\]/.test(document.getElementById('io-table').textContent), null, { timeout: 60000 });
      await waitIdle(page);
      assert.match(await text(page, '#shape-intro'), /remembered/);
      // a bad size: a message, the field keeps focus
      await page.fill('#shape-0', '3,64,64');
      await page.press('#shape-0', 'Enter');
      await page.waitForSelector('#load-error:not([hidden])');
      assert.match(await text(page, '#load-error'), /4 positive whole numbers/);
      await page.fill('#shape-0', '1,3,64,64');

      // run on random input: top-5 of 1000 classes, the same as the package in Node
      await page.check('input[name="run-source"][value="random"]');
      await page.fill('#run-seed', '0');
      await page.click('#run-go');
      await page.waitForSelector('#topk-list li', { timeout: 60000 });
      await waitIdle(page);
      assert.equal(await activeId(page), 'run-time');
      const m = nf.loadOnnx(classifierOnnx(), { shapes: { pixels: [1, 3, 64, 64] } });
      const ref = m.run(nf.randomInputs(m, 0)).logits.data;
      const best = [...ref.keys()].sort((a, b) => ref[b] - ref[a]).slice(0, 5);
      const shown = await page.locator('#topk-list li').evaluateAll((li) => li.map((x) => Number(x.dataset.index)));
      assert.deepEqual(shown, best);
      // 1,000 classes: the ImageNet names arrive (fetched on demand), each the name of its index
      await page.waitForSelector('#topk-list[data-labels="imagenet"]', { timeout: 30000 });
      const labels = JSON.parse(fs.readFileSync(path.join(root, 'web/imagenet-labels.json'), 'utf8')).labels;
      const named = await page.locator('#topk-list li').evaluateAll((li) => li.map((x) => [Number(x.dataset.index), x.dataset.label, x.textContent]));
      for (const [i, label, shownText] of named) {
        assert.equal(label, labels[i]);
        assert.ok(shownText.includes(labels[i]) && shownText.includes(`#${i}`), shownText);
      }
      assert.match(await text(page, '#topk'), /ImageNet classes in their usual order/);
      assert.match(fs.readFileSync(path.join(webDist, 'sw.js'), 'utf8'), /"imagenet-labels\.json"/, 'the names are precached for offline use');
      fs.mkdirSync(artifacts, { recursive: true });
      for (const [w, hgt] of [[1366, 850], [390, 844]]) {
        await page.setViewportSize({ width: w, height: hgt });
        await page.locator('#topk').screenshot({ path: path.join(artifacts, `real-topk-labels-${w}.png`) });
      }
      await page.setViewportSize({ width: 1366, height: 850 });
      assert.equal(await text(page, '#out-table thead th:nth-child(2)'), 'ONNX shape');
      assert.match(await text(page, '#out-table tbody'), /\[1, 1000\]/);

      // optimize with the keyboard: focus lands on the verdict; verify and speed filled in
      await page.focus('#opt-run');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#speed-verdict[data-measurable]', { timeout: 180000 });
      await waitIdle(page);
      // every input has a size (given above): no fusion was refused for want of one
      assert.equal(await page.locator('#opt-shapes').isVisible(), false);
      assert.equal(await page.locator('#verify-verdict').getAttribute('data-pass'), 'true', await text(page, '#verify-verdict'));
      assert.equal(await activeId(page), 'verify-verdict');
      const expected = nf.loadOnnx(classifierOnnx(), { shapes: { pixels: [1, 3, 64, 64] } });
      const report = expected.optimize({ explain: true });
      assert.equal(await text(page, '[data-stat="layers"] .value'), `${report.before.layers} → ${report.after.layers}`);
      // speed: two rows with median and IQR; the verdict follows the rule
      const rows = await page.locator('#speed-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({ ...tr.dataset })));
      assert.equal(rows.length, 2);
      const [o, p] = rows.map((r) => ({ med: Number(r.median), iqr: Number(r.iqr) }));
      assert.ok(o.med > 0 && p.med > 0);
      const measurable = Math.abs(o.med - p.med) >= Math.max(o.iqr, p.iqr) && o.med !== p.med;
      assert.equal(await page.locator('#speed-verdict').getAttribute('data-measurable'), String(measurable));
      if (!measurable) assert.match(await text(page, '#speed-verdict'), /No measurable difference/);
      assert.match(await text(page, '#speed-result'), /(one thread|\d+ threads).*rounds after a warm-up, original and optimized alternating/);
      assert.ok((await page.locator('#speed-types-table tbody tr').count()) >= 3);
      await page.locator('#speed-types-table').evaluate((e) => { e.closest('details').open = true; });
      await page.locator('#optimize').scrollIntoViewIfNeeded();
      await snap(page, 'onnx-optimized');

      // zip: every file, safe names, README lines, bytes equal to the package's
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-zip')]);
      assert.equal(dl.suggestedFilename(), 'tiny_classifier_symbolic.opt.zip');
      const zip = unzipSync(fs.readFileSync(await dl.path()));
      const names = Object.keys(zip).sort();
      assert.deepEqual(names, ['README.txt', 'tiny_classifier_symbolic.opt.bin', 'tiny_classifier_symbolic.opt.io.json', 'tiny_classifier_symbolic.opt.param',
        'tiny_classifier_symbolic.report.json', 'tiny_classifier_symbolic.verify.json'].sort());
      for (const n of names) assert.match(n, /^[A-Za-z0-9._-]+$/);
      const files = expected.toNcnn();
      assert.ok(Buffer.from(files.paramBytes).equals(Buffer.from(zip['tiny_classifier_symbolic.opt.param'])));
      assert.ok(Buffer.from(files.bin).equals(Buffer.from(zip['tiny_classifier_symbolic.opt.bin'])));
      const readme = new TextDecoder().decode(zip['README.txt']);
      // the page lists the same files as the zip holds
      const listed = await page.locator('#dl-files li .mono').allTextContents();
      assert.deepEqual(listed.sort(), names);
      for (const n of names) assert.ok(readme.includes(n), `README names ${n}`);
      assert.match(readme, /stock ncnn loads it/);
      m.dispose();
      expected.dispose();
      // the Weights row does not claim a .bin the ONNX file does not have
      assert.doesNotMatch(await text(page, '#summary-table'), /Weights \(\.bin\)/);

      // remembered: a fresh page, the same file, the 64x64 sizes
      await page.goto(`${origin}/?sample=none`);
      await waitIdle(page);
      await page.setInputFiles('#file-input', [onnxFile]);
      await page.waitForFunction(() => /\[1, 3, 64, 64\]/.test(document.getElementById('io-table').textContent), null, { timeout: 60000 });
      assert.equal(await page.inputValue('#shape-0'), '1, 3, 64, 64');
    });

    await t.test('an ncnn Input with no shape: sizes asked, guessed, and it runs', async () => {
      const param = path.join(tmp, 'noshape.param');
      fs.writeFileSync(param, '7767517\n3 3\nInput data 0 1 data\nConvolution conv 1 1 data c 0=4 1=3 4=1 5=1 6=108\nReLU relu 1 1 c out\n');
      await page.setInputFiles('#file-input', [param]);
      await page.waitForSelector('#bin-offer:not([hidden])');
      await page.click('#bin-random');
      await page.waitForFunction(() => !document.getElementById('shape-needed').hidden, null, { timeout: 60000 });
      await waitIdle(page);
      assert.equal(await page.inputValue('#shape-0'), '3, 224, 224');
      assert.match(await text(page, '#shape-needed'), /ncnn blob \[c, h, w\]/);
      await page.fill('#shape-0', '3,32,32');
      await page.click('#shape-apply');
      await page.waitForFunction(() => /\[3, 32, 32\]/.test(document.getElementById('io-table').textContent), null, { timeout: 60000 });
      await waitIdle(page);
      await page.check('input[name="run-source"][value="random"]');
      await page.click('#run-go');
      await page.waitForSelector('#out-table tbody tr[data-output]');
      assert.match(await text(page, '#out-table tbody'), /\[4, 32, 32\]/);
      await snap(page, 'ncnn-noshape');
    });

    await t.test('states: None runs nothing, cancel reads as cancelled, failures clear, Escape, one-tab-stop log', async (st) => {
      if (!nf.features.optimize) return st.skip('no optimizer in this build');
      await page.selectOption('#sample-select', 'zoo-blazeface');
      await page.click('#sample-open');
      await page.waitForFunction(() => document.getElementById('model-name').textContent === 'blazeface', null, { timeout: 60000 });
      await waitIdle(page);
      // None: Optimize is off, and says why
      await page.locator('#opt-passes-box').evaluate((d) => { d.open = true; });
      await page.click('#opt-passes-none');
      assert.equal(await page.locator('#opt-run').isDisabled(), true);
      assert.equal(await page.locator('#opt-passes-note').isVisible(), true);
      assert.match(await text(page, '#opt-passes-count'), /^\(0 of \d+\)$/);
      await page.click('#opt-passes-all');
      assert.equal(await page.locator('#opt-run').isEnabled(), true);
      await page.locator('#opt-passes-box').evaluate((d) => { d.open = false; });
      await page.click('#opt-run');
      await page.waitForSelector('#speed-verdict[data-measurable]', { timeout: 300000 });
      await waitIdle(page);
      // the pass log: one tab stop, arrows move inside
      const stops = await page.locator('#log-table tbody tr[tabindex="0"]').count();
      assert.equal(stops, 1);
      const logRows = await page.locator('#log-table tbody tr[data-layers]').count();
      assert.ok(logRows >= 2, `${logRows} rewrites`);
      await page.focus('#log-table tbody tr[tabindex="0"]');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.evaluate(() => [...document.querySelectorAll('#log-table tbody tr')].indexOf(document.activeElement)), 1);
      await page.keyboard.press('End');
      assert.equal(await page.evaluate(() => [...document.querySelectorAll('#log-table tbody tr')].indexOf(document.activeElement)), logRows - 1);
      assert.equal(await page.locator('#log-table tbody tr[tabindex="0"]').count(), 1);
      // Escape cancels the timing: it reads as cancelled, and no old figure stays
      await page.click('#speed-run');
      await page.waitForSelector('#speed-progress:not([hidden])');
      await page.keyboard.press('Escape');
      await page.waitForSelector('#speed-error:not([hidden])', { timeout: 30000 });
      await waitIdle(page);
      assert.equal(await text(page, '#speed-error'), 'Timing cancelled: no result.');
      assert.equal(await page.locator('#speed-error').getAttribute('class'), 'msg msg-info');
      assert.equal(await page.locator('#speed-table').count(), 0);
      assert.equal(await text(page, '#speed-verdict'), '');
      // a benchmark cancelled: "cancelled", not "failed"
      await page.fill('#bench-runs', '1000');
      await page.click('#bench-go');
      await page.waitForSelector('#bench-progress:not([hidden])');
      await page.waitForTimeout(200);
      await page.click('#bench-cancel');
      await page.waitForSelector('#bench-error:not([hidden])', { timeout: 30000 });
      assert.equal(await text(page, '#bench-error'), 'Benchmark cancelled: no result.');
      await waitIdle(page);
      await snap(page, 'cancelled');
      // a failed optimize (a blob to keep that does not exist) clears the previous PASS and numbers
      assert.equal(await page.locator('#verify-verdict').getAttribute('data-pass'), 'true');
      await page.fill('#opt-keep', 'no_such_blob_anywhere');
      await page.click('#opt-run');
      await page.waitForFunction(() => !document.getElementById('opt-error').hidden || document.getElementById('speed-verdict').dataset.measurable, null, { timeout: 300000 });
      await waitIdle(page);
      if (await page.locator('#opt-error').isVisible()) {
        assert.equal(await page.locator('#opt-result').isHidden(), true);
        assert.equal(await text(page, '#verify-verdict'), '');
        assert.equal(await page.locator('#run-which-opt').isDisabled(), true);
        assert.equal(await activeId(page), 'opt-error');
        await snap(page, 'optimize-failed');
      } else {
        st.diagnostic('keeping an unknown blob is not an error in this build: the failure path was not exercised by it');
      }
      await page.fill('#opt-keep', '');
    });

    await t.test('graph: search in a 450-layer model centres the match; keyboard steps; 1,000 layers render', async () => {
      const p450 = path.join(tmp, 'chain450.param');
      fs.writeFileSync(p450, chainParam(450));
      await page.setInputFiles('#file-input', [p450]);
      // the 224 Convolution-ReLU pairs start collapsed into one block (graph-blocks.test.mjs)
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.layers === '450', null, { timeout: 120000 });
      await waitIdle(page);
      await page.click('#graph-a .gblock');
      await page.waitForFunction(() => document.querySelectorAll('#graph-a svg .gnode').length === 450, null, { timeout: 120000 });
      assert.equal(await page.locator('#graph-a canvas.minimap').count(), 1, 'a minimap for a graph larger than its pane');
      await page.fill('#graph-search', 'conv_block_0301');
      await page.press('#graph-search', 'Enter');
      assert.equal(await text(page, '#graph-hits'), '1 of 1');
      await page.waitForSelector('#graph-a .gnode.cursor');
      await page.waitForTimeout(100); // the view is applied on the next frame
      const centred = await page.evaluate(() => {
        const host = document.getElementById('graph-a').getBoundingClientRect();
        const node = document.querySelector('#graph-a .gnode.cursor').getBoundingClientRect();
        return { dx: Math.abs((node.left + node.right) / 2 - (host.left + host.right) / 2), dy: Math.abs((node.top + node.bottom) / 2 - (host.top + host.bottom) / 2), w: node.width };
      });
      assert.ok(centred.dx < 4 && centred.dy < 4, JSON.stringify(centred));
      assert.ok(centred.w > 60, 'zoomed to a readable size');
      assert.match(await text(page, '#node-details'), /conv_block_0301_with_a_long_exporter_name/);
      // by type: every ReLU, next and previous
      await page.fill('#graph-search', 'relu');
      await page.press('#graph-search', 'Enter');
      assert.equal(await text(page, '#graph-hits'), '1 of 224');
      await page.click('#graph-prev');
      assert.equal(await text(page, '#graph-hits'), '224 of 224');
      // keyboard: the diagram is one tab stop; N steps to the next layer, Enter shows it
      await page.focus('#graph-a');
      await page.keyboard.press('n');
      await page.keyboard.press('Enter');
      assert.match(await text(page, '#node-details'), /conv_block_0449/);
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await snap(page, 'graph-search');
      // 1,000 layers
      const p1000 = path.join(tmp, 'chain1000.param');
      fs.writeFileSync(p1000, chainParam(1000));
      const t0 = Date.now();
      await page.setInputFiles('#file-input', [p1000]);
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.layers === '1000', null, { timeout: 120000 });
      // every layer drawn (the block of 499 pairs expanded)
      await page.click('#graph-blocks');
      await page.waitForFunction(() => document.querySelectorAll('#graph-a svg .gnode').length === 1000, null, { timeout: 120000 });
      const ms = Date.now() - t0;
      // panning and zooming repaint nothing (a CSS transform): 30 zoom steps in a few frames
      const frame = await page.evaluate(async () => {
        const host = document.getElementById('graph-a');
        const t = performance.now();
        for (let i = 0; i < 30; i++) {
          host.dispatchEvent(new WheelEvent('wheel', { deltaY: i % 2 ? 40 : -40, clientX: 100, clientY: 100, bubbles: true, cancelable: true }));
          await new Promise((r) => requestAnimationFrame(r));
        }
        return (performance.now() - t) / 30;
      });
      t.diagnostic(`1,000-layer graph: shown ${ms} ms after the file was given; ${frame.toFixed(1)} ms per zoom frame`);
      // speed is reported (above), never asserted: the page benchmark is where it is measured
      assert.ok(Number.isFinite(frame) && frame > 0, `zoom frames ran: ${frame}`);
    });

    await t.test('keyboard only: open -> optimize -> verify -> run -> download, focus on each result', async (st) => {
      if (!nf.features.optimize) return st.skip('no optimizer in this build');
      await page.goto(`${origin}/?sample=none`);
      await waitIdle(page);
      // the sample list and its Open button, by keyboard
      await page.focus('#sample-select');
      await page.selectOption('#sample-select', 'zoo-blazeface'); // a <select> changes with arrow keys; the value is what matters
      await page.keyboard.press('Tab');
      assert.equal(await activeId(page), 'sample-open');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.getElementById('model-name').textContent === 'blazeface', null, { timeout: 60000 });
      await waitIdle(page);
      assert.equal(await activeId(page), 'model-id');
      await page.focus('#opt-run');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#speed-verdict[data-measurable]', { timeout: 300000 });
      await waitIdle(page);
      assert.equal(await activeId(page), 'verify-verdict');
      assert.equal(await page.locator('#verify-verdict').getAttribute('data-pass'), 'true');
      await page.focus('#verify-run');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.getElementById('verify-verdict').dataset.pass === 'true' && !document.body.dataset.busy, null, { timeout: 120000 });
      assert.equal(await activeId(page), 'verify-verdict');
      await page.focus('input[name="run-source"][value="random"]');
      await page.keyboard.press('Space');
      await page.focus('#run-go');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#out-table tbody tr[data-output]', { timeout: 60000 });
      await waitIdle(page);
      assert.equal(await activeId(page), 'run-time');
      await page.focus('#dl-zip');
      const [dl] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
      assert.equal(dl.suggestedFilename(), 'blazeface.opt.zip');
      const zip = unzipSync(fs.readFileSync(await dl.path()));
      assert.deepEqual(Object.keys(zip).sort(), ['README.txt', 'blazeface.opt.bin', 'blazeface.opt.param', 'blazeface.report.json', 'blazeface.verify.json']);
    });

    await t.test('phone at 390 px: no horizontal scroll, stacked tables', async () => {
      const phone = await browser.context.newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      phone.on('pageerror', (e) => errors.push(String(e)));
      await phone.goto(`${origin}/`);
      await waitIdle(phone);
      await noSideScroll(phone, 'start');
      await snap(phone, 'start');
      if (nf.features.onnx) {
        await phone.setInputFiles('#file-input', [onnxFile]);
        await phone.waitForFunction(() => document.getElementById('model-name').textContent.startsWith('tiny classifier'), null, { timeout: 60000 });
        await waitIdle(phone);
        await noSideScroll(phone, 'shape form');
        await snap(phone, 'shape-form');
      }
      if (nf.features.optimize) {
        await phone.click('#opt-run');
        await phone.waitForSelector('#speed-verdict[data-measurable]', { timeout: 300000 });
        await waitIdle(phone);
        await noSideScroll(phone, 'optimized');
        const cell = phone.locator('#verify-table tbody td').first();
        // a stacked table: rows are blocks, each cell a labelled line (label, value)
        assert.equal(await cell.evaluate((e) => getComputedStyle(e.parentElement).display), 'block');
        assert.equal(await cell.evaluate((e) => getComputedStyle(e).display), 'grid');
        assert.equal(await cell.evaluate((e) => getComputedStyle(e, '::before').content), `"${await cell.getAttribute('data-label')}"`);
        assert.ok(await cell.getAttribute('data-label'));
        await snap(phone, 'optimized');
      }
      await phone.check('input[name="run-source"][value="random"]');
      await phone.click('#run-go');
      await phone.waitForSelector('#out-table tbody tr[data-output]');
      await waitIdle(phone);
      await noSideScroll(phone, 'run');
      await snap(phone, 'run');
      await phone.close();
    });

    await t.test('offline: the badge counts cached samples; one opened online opens with the server stopped', async (st) => {
      if (!nf.features.onnx) return st.skip('the uncached samples are ONNX ones');
      await page.goto(`${origin}/?sample=none`);
      await waitIdle(page);
      await page.waitForFunction(() => document.getElementById('offline-badge').dataset.cached, null, { timeout: 30000 });
      const before = Number(await page.locator('#offline-badge').getAttribute('data-cached'));
      assert.match(await text(page, '#offline-badge'), new RegExp(`works offline · ${before} of \\d+ samples`));
      await page.selectOption('#sample-select', 'mlsd-512-tiny');
      await page.click('#sample-open');
      await page.waitForFunction(() => document.getElementById('model-name').textContent.startsWith('M-LSD tiny 512'), null, { timeout: 120000 });
      await waitIdle(page);
      await page.waitForFunction((n) => Number(document.getElementById('offline-badge').dataset.cached) === n + 1, before, { timeout: 30000 });
      await closeServer(server);
      server = null;
      await page.goto(`${origin}/?sample=mlsd-512-tiny`);
      await waitIdle(page);
      assert.match(await text(page, '#model-name'), /M-LSD tiny 512/);
      assert.equal(await page.locator('#load-error').isHidden(), true);
      await snap(page, 'offline');
    });

    await t.test('nothing left the page; no page errors', () => {
      const foreign = proxy.log.filter((r) => !r.allowed || r.host !== `127.0.0.1:${port}`);
      assert.deepEqual(foreign, []);
      assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
    });
  } finally {
    await browser.close();
    if (server) await closeServer(server);
    for (const p of [proxy, sink]) {
      p.server.closeAllConnections?.();
      p.server.close();
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
