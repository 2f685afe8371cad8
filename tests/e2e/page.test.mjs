// The page end to end in headless Chromium, every request through a logging proxy:
// - it opens on a bundled sample and shows the summary and the graph;
// - a zoo model with a .bin written by `nnfold randomize` is optimized: the pass log, the counts
//   and the Verify figures appear and agree with the package's own report, and the downloaded
//   files are byte-identical to the CLI's `nnfold optimize` output;
// - a bundled ONNX sample runs: outputs equal the Node package's on the same (seeded) input, and
//   the sample picture gives a face (BlazeFace) and line segments (M-LSD) drawn on the image;
// - a non-model file and a truncated .bin give their messages and the page still works;
// - after the first visit, with the server stopped, the page reloads and optimizes (service
//   worker);
// - no request ever goes to another origin (the proxy saw every request, workers included).
// Screenshots of each state go to tests/artifacts/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, skipReason, startProxy, startPage, launch, closeServer, shot } from './harness.mjs';
import { missingFixtureMessage, nativeCliFixture, onCI, skipOrFail, zoo as zooDir, zooFixture } from '../js/helpers.mjs';

const distIndex = path.join(root, 'dist/index.mjs');

// The package in Node: the reference for the page's numbers.
const nf = skipReason ? null : await (await import(distIndex)).init();

// The zoo model for the optimize test: the first one this build loads whose optimization
// rewrites something (benchncnn's structures are mostly optimized already; blazeface's explicit
// Padding layers fold into its convolutions), else the first one present.
function pickZooModel() {
  if (!fs.existsSync(zooDir)) return null;
  let loadable = null;
  for (const name of ['blazeface', 'mobilenet_v2', 'resnet18', 'squeezenet', 'googlenet', 'mobilenet']) {
    const file = path.join(zooDir, `${name}.param`);
    if (!fs.existsSync(file)) continue;
    const m = nf.loadNcnn(fs.readFileSync(file, 'utf8'), null);
    try {
      const rep = m.optimize({});
      if (rep.passes.some((p) => p.rewrites.length)) return name;
      loadable ??= name;
    } finally {
      m.dispose();
    }
  }
  return loadable;
}

async function waitIdle(page, timeout = 120000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && !document.body.dataset.busy, null, { timeout });
}

async function visibleText(page, sel) {
  return (await page.locator(sel).textContent())?.trim() ?? '';
}

const relErr = (a, b) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-6);

test('the page in Chromium: load, optimize, verify, run, download, errors, offline, same origin only', { skip: skipReason, timeout: 900000 }, async (t) => {
  const proxy = await startProxy();
  const sink = await startProxy(); // Chromium's own traffic: refused, never forwarded
  let { server, port } = await startPage();
  proxy.state.allow = `127.0.0.1:${port}`;
  const origin = `http://127.0.0.1:${port}`;
  const browser = await launch(proxy.port, sink.port);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-page-'));
  const page = await browser.context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  try {
    await t.test('opens on a bundled sample: summary, graph, build, offline-ready', async () => {
      await page.goto(`${origin}/`);
      await waitIdle(page);
      assert.ok(await page.locator('#model-name').textContent(), 'a sample is loaded');
      assert.match(await visibleText(page, '#build-badge'), /WebAssembly (SIMD-128|baseline)/);
      const layers = Number(await page.locator('#summary-table tbody tr:first-child td:nth-child(2)').textContent());
      assert.ok(layers > 0);
      await page.waitForSelector('#graph-a svg .gnode', { timeout: 30000 });
      assert.equal(await page.locator('#graph-a svg .gnode').count(), layers);
      await page.waitForFunction(() => document.body.dataset.offlineReady === 'true', null, { timeout: 30000 });
      await shot(page, '01-start');
    });

    await t.test('a zoo model with its .bin: optimize, log, counts, verify, byte-identical downloads', async (st) => {
      const name = pickZooModel();
      if (!name) return skipOrFail(st, zooFixture);
      const param = path.join(tmp, `${name}.param`);
      const bin = path.join(tmp, `${name}.bin`);
      fs.copyFileSync(path.join(zooDir, `${name}.param`), param);
      execFileSync(process.execPath, [path.join(root, 'bin/nnfold.mjs'), 'randomize', param, bin, '--seed', '7']);
      // the reference: the package's optimizer on the same files
      const m = nf.loadNcnn(fs.readFileSync(param), fs.readFileSync(bin));
      const layersBefore = m.info().layers;
      const report = m.optimize({ explain: true });
      const expected = m.toNcnn();
      m.dispose();
      const rewrites = report.passes.reduce((n, p) => n + p.rewrites.length, 0);

      await page.setInputFiles('#file-input', [param, bin]);
      await page.waitForFunction((n) => document.getElementById('model-name').textContent === `${n}.param`, name, { timeout: 60000 });
      await waitIdle(page);
      assert.match(await visibleText(page, '#model-weights'), new RegExp(`weights from ${name}\\.bin`));
      assert.equal(Number(await page.locator('#summary-table tbody tr:first-child td:nth-child(2)').textContent()), layersBefore);
      await page.click('#opt-run');
      await page.waitForSelector('#verify-verdict[data-pass]', { timeout: 180000 });
      await waitIdle(page);
      // the log: one row per rewrite, pass names from the report
      if (rewrites) {
        assert.equal(await page.locator('#log-table tbody tr').count(), rewrites);
        const firstPass = report.passes.find((p) => p.rewrites.length);
        assert.equal(await page.locator('#log-table tbody tr:first-child td:first-child').textContent(), firstPass.name);
      } else {
        assert.match(await visibleText(page, '#log-table tbody'), /No pass changed this model/);
      }
      const skippedRows = await page.locator('#skipped-table tbody tr[data-layers]').count();
      assert.equal(skippedRows, report.skipped.length);
      assert.equal(await visibleText(page, '[data-stat="layers"] .value'), `${report.before.layers} → ${report.after.layers}`);
      assert.equal(await visibleText(page, '[data-stat="rewrites"] .value'), String(rewrites));
      assert.equal(Number(await page.locator('#summary-table tbody tr:first-child td:nth-child(3)').textContent()), report.after.layers);
      // verify: a row per output with a number, and a pass
      const verdict = page.locator('#verify-verdict');
      assert.equal(await verdict.getAttribute('data-pass'), 'true', await verdict.textContent());
      const rows = page.locator('#verify-table tbody tr');
      assert.ok((await rows.count()) >= 1);
      const err = Number(await rows.first().getAttribute('data-err'));
      assert.ok(Number.isFinite(err) && err <= 1e-4, `err ${err}`);
      assert.match(await rows.first().locator('td:nth-child(3)').textContent(), /^(0|\d\.\d\de[-+]\d+)$/);
      // both graphs drawn; hovering a log row highlights its layers
      assert.equal(await page.locator('#graph-b svg .gnode').count(), report.after.layers);
      if (rewrites) {
        await page.hover('#log-table tbody tr:first-child');
        assert.ok((await page.locator('#graph-a svg .gnode.hl').count()) >= 1);
      }
      await shot(page, '02-optimized');

      // downloads
      const files = {};
      for (const [btn, part] of [['#dl-opt-param', 'param'], ['#dl-opt-bin', 'bin']]) {
        const [dl] = await Promise.all([page.waitForEvent('download'), page.click(btn)]);
        assert.equal(dl.suggestedFilename(), `${name}.opt.${part}`);
        files[part] = fs.readFileSync(await dl.path());
      }
      assert.ok(Buffer.from(expected.paramBytes).equals(files.param), 'optimized .param equals the package optimizer output');
      assert.ok(Buffer.from(expected.bin).equals(files.bin), 'optimized .bin equals the package optimizer output');
      // and with the native CLI (tests/run_all.sh builds it before the JavaScript tests)
      if (!nativeCliFixture.present) {
        if (onCI) throw new Error(`${missingFixtureMessage(nativeCliFixture)} (CI)`);
        st.diagnostic(`compared with the package optimizer only: ${missingFixtureMessage(nativeCliFixture)}`);
      } else {
        const op = path.join(tmp, 'cli.param'), ob = path.join(tmp, 'cli.bin');
        execFileSync(path.join(root, 'build/nnfold'), ['optimize', param, bin, op, ob]);
        assert.ok(fs.readFileSync(op).equals(files.param), 'downloaded .param is byte-identical to nnfold optimize');
        assert.ok(fs.readFileSync(ob).equals(files.bin), 'downloaded .bin is byte-identical to nnfold optimize');
      }
    });

    await t.test('profile, benchmark, cancel (stepwise and hard), fp16 storage', async (st) => {
      assert.ok(await page.locator('#run-body').isVisible(), 'the model from the steps before is runnable');
      // per-layer times
      await page.click('#profile-go');
      await page.waitForSelector('#profile-chart .bar-row', { timeout: 120000 });
      await waitIdle(page);
      assert.match(await visibleText(page, '#profile-label'), /\d+ layers, .* per run/);
      // benchmark: median of N runs of each model, naming the wasm build
      await page.fill('#bench-runs', '5');
      await page.click('#bench-go');
      await page.waitForSelector('#bench-table', { timeout: 120000 });
      await waitIdle(page);
      assert.match(await visibleText(page, '#bench-result'), /WebAssembly (SIMD-128|baseline \(no SIMD\)) build, median of 5 runs/);
      const hasOpt = await page.locator('#run-which-opt').isEnabled();
      assert.equal(await page.locator('#bench-table tbody tr').count(), hasOpt ? 2 : 1);
      await shot(page, '03-profile-bench');
      // cancel a long benchmark: stops at its next run (the flag in shared memory), models kept
      await page.fill('#bench-runs', '1000');
      await page.click('#bench-go');
      await page.waitForSelector('#bench-progress:not([hidden])');
      await page.waitForTimeout(300);
      await page.click('#bench-cancel');
      await page.waitForSelector('#bench-error:not([hidden])', { timeout: 30000 });
      assert.match(await visibleText(page, '#bench-error'), /cancelled/);
      await waitIdle(page);
      await page.check('input[name="run-source"][value="random"]');
      await page.click('#run-go');
      await page.waitForSelector('#out-table tbody tr[data-output]');
      await waitIdle(page);
      // cancel loading, which has no steps: the worker is restarted and the model reloaded
      const current = await page.locator('#model-name').textContent();
      if (await page.locator('#sample-select option[value="zoo-vision_transformer"]').count()) {
        await page.selectOption('#sample-select', 'zoo-vision_transformer');
        await page.click('#sample-open');
        await page.waitForFunction(() => /opening/.test(document.getElementById('load-label').textContent), null, { timeout: 30000 });
        await page.click('#load-cancel');
        await page.waitForFunction(() => /reloaded/.test(document.getElementById('toast').textContent), null, { timeout: 120000 });
        await waitIdle(page);
        assert.equal(await page.locator('#model-name').textContent(), current);
        await page.click('#run-go');
        await page.waitForSelector('#run-error', { state: 'hidden' });
        await page.waitForFunction(() => /on the (original|optimized) model/.test(document.getElementById('run-time').textContent), null, { timeout: 60000 });
      }
      // fp16 storage: checked on the written files against 1e-2, smaller .bin
      await page.check('#opt-fp16');
      await page.click('#opt-run');
      await page.waitForSelector('#verify-verdict[data-pass]', { timeout: 180000 });
      await waitIdle(page);
      assert.match(await visibleText(page, '#verify-budget'), /1e-2/);
      assert.equal(await page.locator('#verify-verdict').getAttribute('data-pass'), 'true', await visibleText(page, '#verify-verdict'));
      assert.match(await visibleText(page, '[data-stat="weights"] .sub'), /% smaller/);
      await page.uncheck('#opt-fp16');
    });

    await t.test('bundled ONNX samples: outputs equal the Node package on the same input; faces and lines drawn', async (st) => {
      const sample = JSON.parse(fs.readFileSync(path.join(root, 'web/dist/samples.json'), 'utf8')).samples.find((s) => s.id === 'blazeface-front');
      await page.selectOption('#sample-select', 'blazeface-front');
      await page.click('#sample-open');
      await page.waitForFunction(() => document.getElementById('model-name').textContent.startsWith('BlazeFace front'), null, { timeout: 60000 });
      await waitIdle(page);
      // seeded random input
      await page.check('input[name="run-source"][value="random"]');
      await page.fill('#run-seed', '3');
      await page.click('#run-go');
      await page.waitForSelector('#out-table tbody tr[data-output]', { timeout: 60000 });
      const m = nf.loadOnnx(fs.readFileSync(path.join(root, 'web/dist', sample.files.onnx)));
      const ref = m.run(nf.randomInputs(m, 3));
      m.dispose();
      const rows = await page.locator('#out-table tbody tr[data-output]').evaluateAll((trs) => trs.map((tr) => ({ ...tr.dataset })));
      assert.deepEqual(rows.map((r) => r.output).sort(), Object.keys(ref).sort());
      for (const r of rows) {
        const data = ref[r.output].data;
        assert.equal(Number(r.count), data.length, r.output);
        const first = JSON.parse(r.first);
        first.forEach((v, i) => assert.ok(relErr(v, data[i]) <= 1e-5, `${r.output}[${i}]: page ${v}, node ${data[i]}`));
        let mn = Infinity, mx = -Infinity;
        for (const v of data) { mn = Math.min(mn, v); mx = Math.max(mx, v); }
        assert.ok(relErr(Number(r.min), mn) <= 1e-5 && relErr(Number(r.max), mx) <= 1e-5, r.output);
      }
      // the sample picture: a face
      await page.check('input[name="run-source"][value="image"]');
      await page.click('#image-sample');
      await page.click('#run-go');
      await page.waitForFunction(() => document.body.dataset.detections !== '' && document.body.dataset.detections !== undefined, null, { timeout: 60000 });
      await waitIdle(page);
      assert.ok(Number(await page.evaluate(() => document.body.dataset.detections)) >= 1, await visibleText(page, '#run-result-text'));
      await page.locator('#run').scrollIntoViewIfNeeded();
      await shot(page, '04-run-blazeface');
      // M-LSD: line segments on the same picture
      await page.selectOption('#sample-select', 'mlsd-320-tiny');
      await page.click('#sample-open');
      await page.waitForFunction(() => document.getElementById('model-name').textContent.startsWith('M-LSD tiny 320'), null, { timeout: 60000 });
      await waitIdle(page);
      await page.evaluate(() => { document.body.dataset.detections = ''; });
      await page.click('#run-go');
      await page.waitForFunction(() => document.body.dataset.detections, null, { timeout: 120000 });
      assert.ok(Number(await page.evaluate(() => document.body.dataset.detections)) >= 4, await visibleText(page, '#run-result-text'));
      await shot(page, '05-run-mlsd');
    });

    await t.test('a non-model file and a truncated .bin: plain messages, and the page still works', async () => {
      const before = await page.locator('#model-name').textContent();
      const notes = path.join(tmp, 'notes.txt');
      fs.writeFileSync(notes, 'not a model\n');
      await page.setInputFiles('#file-input', [notes]);
      await page.waitForSelector('#load-error:not([hidden])');
      assert.match(await visibleText(page, '#load-error'), /notes\.txt is not a model file/);
      // a truncated .bin: half of a valid one
      const zooParam = fs.existsSync(path.join(zooDir, 'mobilenet.param')) ? path.join(zooDir, 'mobilenet.param') : null;
      const param = path.join(tmp, 'small.param');
      if (zooParam) fs.copyFileSync(zooParam, param);
      else fs.writeFileSync(param, '7767517\n2 2\nInput data 0 1 data 0=4 1=4 2=3\nConvolution conv 1 1 data out 0=8 1=3 4=1 5=1 6=216\n');
      const full = path.join(tmp, 'small-full.bin');
      execFileSync(process.execPath, [path.join(root, 'bin/nnfold.mjs'), 'randomize', param, full]);
      const bytes = fs.readFileSync(full);
      const cut = path.join(tmp, 'small.bin');
      fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
      await page.setInputFiles('#file-input', [param, cut]);
      await page.waitForFunction(() => /truncated/.test(document.getElementById('load-error').textContent), null, { timeout: 60000 });
      const msg = await visibleText(page, '#load-error');
      assert.match(msg, /small\.bin is truncated/);
      assert.match(msg, /not a valid model/);
      await shot(page, '06-errors');
      // still usable: the model loaded before is still there and runs
      assert.equal(await page.locator('#model-name').textContent(), before);
      await page.check('input[name="run-source"][value="random"]');
      await page.click('#run-go');
      await page.waitForSelector('#out-table tbody tr[data-output]');
      await waitIdle(page);
      // and a good model loads after the errors, its .bin given first and the .param after
      await page.setInputFiles('#file-input', [full]);
      await page.waitForSelector('#bin-pending:not([hidden])');
      assert.match(await visibleText(page, '#bin-pending'), /small-full\.bin received/);
      await page.setInputFiles('#file-input', [param]);
      await page.waitForFunction(() => document.getElementById('model-name').textContent === 'small.param', null, { timeout: 60000 });
      assert.equal(await page.locator('#load-error').isHidden(), true);
      assert.match(await visibleText(page, '#model-weights'), /weights from small-full\.bin/);
      assert.equal(await page.locator('#bin-pending').isHidden(), true);
    });

    await t.test('hostile files (tests/data/hostile): the table\'s message as text, markup never markup, then a good model', async () => {
      const hostile = path.join(root, 'tests/data/hostile');
      const table = fs.readFileSync(path.join(hostile, 'cases.tsv'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'))
        .map((l) => { const [file, companion, stage, expect, fragment] = l.split('\t'); return { file, companion, stage, expect, fragment }; });
      const dialogs = [];
      page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
      const pick = ['html_as_param.param', 'markup_type.param', 'markup_layer_name.param', 'control_chars_type.param',
        'png_as_param.param', 'truncated.onnx', 'markup_names.onnx', 'png_as_onnx.onnx'];
      for (const file of pick) {
        const c = table.find((r) => r.file === file && r.stage === 'load');
        assert.ok(c, file);
        // a copy under the same name (the page names the file in its message)
        const copy = path.join(tmp, file);
        fs.copyFileSync(path.join(hostile, file), copy);
        await page.evaluate(() => { document.getElementById('load-error').textContent = ''; });
        await page.setInputFiles('#file-input', [copy]);
        await page.waitForFunction(() => document.getElementById('load-error').textContent.length > 0, null, { timeout: 60000 });
        const msg = await visibleText(page, '#load-error');
        assert.ok(msg.includes(c.fragment), `${file}: ${msg}`);
        if (file.endsWith('.param')) assert.ok(msg.includes(file), `${file}: the message names the file: ${msg}`);
        // markup in a message is shown as text
        if (c.fragment.includes('<')) assert.ok((await page.locator('#load-error').innerHTML()).includes('&lt;'), file);
      }
      // a .bin that is a PNG, with its .param
      const param = path.join(tmp, 'conv.param');
      fs.copyFileSync(path.join(hostile, 'conv.param'), param);
      const png = path.join(tmp, 'png_as_bin.bin');
      fs.copyFileSync(path.join(hostile, 'png_as_bin.bin'), png);
      await page.setInputFiles('#file-input', [param, png]);
      await page.waitForFunction(() => /png_as_bin\.bin is truncated/.test(document.getElementById('load-error').textContent), null, { timeout: 60000 });
      // markup in names and messages stayed text: no element was made from it, no script ran
      const injected = await page.evaluate(() => document.querySelectorAll('[onerror], [onload], img[src="x"]').length);
      assert.equal(injected, 0);
      assert.deepEqual(dialogs, []);
      await shot(page, '07-hostile');
      // a model whose names are markup loads, and shows them as text
      const named = path.join(tmp, 'markup_valid_names.param');
      fs.copyFileSync(path.join(hostile, 'markup_valid_names.param'), named);
      await page.setInputFiles('#file-input', [named]);
      await page.waitForFunction(() => document.getElementById('model-name').textContent === 'markup_valid_names.param', null, { timeout: 60000 });
      await waitIdle(page);
      assert.equal(await page.locator('#load-error').isHidden(), true);
      assert.ok((await page.locator('body').textContent()).includes('<img/src=x/onerror=alert(1)>'));
      // and a good model with NaN weights: loads with the warning and runs
      const nanBin = path.join(tmp, 'nan_weights.bin');
      fs.copyFileSync(path.join(hostile, 'nan_weights.bin'), nanBin);
      await page.setInputFiles('#file-input', [param, nanBin]);
      await page.waitForFunction(() => document.getElementById('model-name').textContent === 'conv.param', null, { timeout: 60000 });
      await waitIdle(page);
      assert.match(await visibleText(page, '#load-warnings'), /NaN\/Inf/);
      await page.check('input[name="run-source"][value="random"]');
      await page.click('#run-go');
      await page.waitForSelector('#out-table tbody tr[data-output]');
      await waitIdle(page);
      assert.equal(await page.evaluate(() => document.querySelectorAll('[onerror], [onload], img[src="x"]').length), 0);
      assert.deepEqual(dialogs, []);
    });

    await t.test('offline: with the server stopped the page reloads and optimizes (service worker)', async () => {
      await closeServer(server);
      server = null;
      await page.goto(`${origin}/?sample=blazeface-front`);
      await waitIdle(page);
      assert.ok(await page.locator('#model-name').textContent(), 'the default sample opens from the cache');
      await page.click('#opt-run');
      await page.waitForSelector('#opt-result:not([hidden])', { timeout: 120000 });
      await waitIdle(page);
      assert.ok((await page.locator('#log-table tbody tr').count()) >= 1);
      await shot(page, '07-offline');
    });

    await t.test('every request went to the page origin (proxy log, browser level)', () => {
      assert.ok(proxy.log.length >= 5, `the proxy saw ${proxy.log.length} requests`);
      const foreign = proxy.log.filter((r) => !r.allowed || r.host !== `127.0.0.1:${port}`);
      assert.deepEqual(foreign, []);
      const paths = proxy.log.map((r) => new URL(r.url).pathname);
      assert.ok(paths.some((p) => p.endsWith('.wasm')), 'the worker fetched its wasm through the proxy');
      assert.ok(paths.includes('/sw.js'), 'the service worker script came through the proxy');
      assert.deepEqual(pageErrors.filter((e) => !/Failed to load resource/.test(e)), []);
      // what Chromium itself tried outside any page (refused by the sink), for the record
      if (sink.log.length) t.diagnostic(`Chromium's own service requests (refused): ${[...new Set(sink.log.map((r) => r.host))].join(', ')}`);
      assert.ok(!sink.log.some((r) => r.host === `127.0.0.1:${port}`), 'no page request bypassed the page context proxy');
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
