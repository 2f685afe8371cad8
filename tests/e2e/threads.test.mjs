// The page's threads in headless Chromium:
// - served with COOP/COEP (web/serve.mjs's default): cross-origin isolated, the model worker runs
//   the threaded flavour on the reported cores, the badge and the benchmark say how many threads,
//   and a model runs with the same outputs as the Node package;
// - served without them (a static host that cannot set headers): the first load runs
//   single-threaded and the Model card says why; once the service worker (which adds the headers)
//   controls the page, the page offers a reload, after which it is isolated and threaded; with the
//   server stopped, it still reloads threaded (the service worker serves the threaded files with the
//   headers).
// Screenshots go to tests/artifacts/threads-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../web/serve.mjs';
import { closeServer, launch, shot, skipReason, startProxy, webDist } from './harness.mjs';

async function waitIdle(page, timeout = 120000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && !document.body.dataset.busy, null, { timeout });
}

async function pageState(page) {
  return page.evaluate(() => ({
    isolated: globalThis.crossOriginIsolated === true,
    build: document.getElementById('build-badge').dataset.build,
    threads: Number(document.getElementById('build-badge').dataset.threads),
    badge: document.getElementById('build-badge').textContent.trim(),
    note: document.getElementById('threads-note').hidden ? null : document.getElementById('threads-note').textContent.trim(),
    cores: navigator.hardwareConcurrency,
  }));
}

// Benchmarks the loaded model (3 runs) and returns the result's first line.
async function bench(page) {
  await page.fill('#bench-runs', '3');
  await page.click('#bench-go');
  await page.waitForSelector('#bench-result p', { timeout: 120000 });
  await waitIdle(page);
  return (await page.locator('#bench-result p').first().textContent()).trim();
}

async function openPage(t, isolation) {
  const proxy = await startProxy();
  const sink = await startProxy();
  const server = await startServer({ root: webDist, port: 0, isolation });
  const port = server.address().port;
  proxy.state.allow = `127.0.0.1:${port}`;
  const browser = await launch(proxy.port, sink.port);
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  t.after(async () => {
    await browser.close();
    if (server.listening) await closeServer(server);
    await closeServer(proxy.server);
    await closeServer(sink.server);
  });
  return { page, server, origin: `http://127.0.0.1:${port}`, errors };
}

test('served with COOP/COEP: the page runs the threaded flavour and says how many threads', { skip: skipReason, timeout: 600000 }, async (t) => {
  const { page, origin, errors } = await openPage(t, true);
  await page.goto(`${origin}/`);
  await waitIdle(page);
  const s = await pageState(page);
  assert.equal(s.isolated, true);
  assert.equal(s.build, 'simd-threads', s.badge);
  assert.equal(s.threads, Math.min(8, s.cores));
  assert.match(s.badge, new RegExp(`SIMD-128 · ${s.threads} threads`));
  assert.equal(s.note, null, 'no single-threaded note');
  const line = await bench(page);
  assert.match(line, new RegExp(`SIMD-128 build, median of 3 runs after warm-up, ${s.threads} threads`));
  // ?threads=1: no pool, the plain SIMD flavour, and no "single-threaded" complaint
  await page.goto(`${origin}/?threads=1`);
  await waitIdle(page);
  const one = await pageState(page);
  assert.equal(one.build, 'simd');
  assert.equal(one.threads, 1);
  assert.equal(one.note, null);
  await shot(page, 'threads-isolated');
  assert.deepEqual(errors, []);
});

test('served without COOP/COEP: single-threaded and saying so; the service worker then isolates it, offline too', { skip: skipReason, timeout: 600000 }, async (t) => {
  const { page, server, origin, errors } = await openPage(t, false);
  await page.goto(`${origin}/`);
  await waitIdle(page);
  const first = await pageState(page);
  assert.equal(first.isolated, false);
  assert.equal(first.build, 'simd');
  assert.equal(first.threads, 1);
  assert.match(first.badge, /SIMD-128 · 1 thread/);
  assert.match(first.note, /Runs single-threaded: .*not cross-origin isolated/);
  assert.match(await bench(page), /median of 3 runs after warm-up, one thread/);
  // the service worker takes control (clients.claim) and the page offers the reload
  await page.waitForSelector('#threads-reload', { timeout: 60000 });
  await shot(page, 'threads-not-isolated');
  await Promise.all([page.waitForNavigation(), page.click('#threads-reload')]);
  await waitIdle(page);
  const second = await pageState(page);
  assert.equal(second.isolated, true, 'isolated through the service worker\'s headers');
  assert.equal(second.build, 'simd-threads');
  assert.equal(second.threads, Math.min(8, second.cores));
  assert.equal(second.note, null);
  await shot(page, 'threads-isolated-by-service-worker');
  // offline: the service worker serves the threaded files (precached) with the headers
  await closeServer(server);
  await page.reload();
  await waitIdle(page);
  const offline = await pageState(page);
  assert.equal(offline.isolated, true);
  assert.equal(offline.build, 'simd-threads');
  assert.match(await bench(page), new RegExp(`${offline.threads} threads`));
  await shot(page, 'threads-offline');
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
});
