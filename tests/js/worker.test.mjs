// The package in a Web Worker in Chromium: examples/worker/ served from a localhost static server
// imports dist/index.mjs in a module worker, finds its .wasm next to itself (or via wasmPaths),
// and runs a model with hand-checkable weights. SIMD by detection, baseline on request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { convReluExpected, distFixture, fixture, needs, root } from './helpers.mjs';

const chromium = '/usr/bin/chromium';
let playwright = null;
try {
  playwright = await import('playwright-core');
} catch {
  playwright = null;
}
const skip = needs(distFixture, fixture(`Chromium at ${chromium}`, fs.existsSync(chromium), 'apt-get install chromium'),
  fixture('playwright-core (node_modules)', playwright, 'npm install (or npm ci) in the repository'));

const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };

// Serves the repository's examples/ and dist/ (and dist/ again under /alt-wasm/) on 127.0.0.1.
function serve() {
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    requests.push(url.pathname);
    let rel = decodeURIComponent(url.pathname);
    if (rel.startsWith('/alt-wasm/')) rel = '/dist/' + rel.slice('/alt-wasm/'.length);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(root, '.' + rel);
    const allowed = [path.join(root, 'examples') + path.sep, path.join(root, 'dist') + path.sep];
    if (!allowed.some((d) => file.startsWith(d)) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, requests, port: server.address().port })));
}

test('a Web Worker (and a page) in Chromium imports the package and runs a model', { skip, timeout: 120000 }, async () => {
  const { server, requests, port } = await serve();
  // playwright's launch() gives the browser a fresh temporary profile (--user-data-dir) itself
  let browser = null;
  try {
    browser = await playwright.chromium.launch({
      executablePath: chromium,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const expected = Array.from(convReluExpected(new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3])));
    const cases = [
      ['?demo', 'simd', '/dist/nnfold-simd.wasm'],
      ['?demo&simd=0', 'base', '/dist/nnfold-base.wasm'],
      ['?demo&wasmPaths=/alt-wasm/', 'simd', '/alt-wasm/nnfold-simd.wasm'],
    ];
    for (const [query, build, wasmPath] of cases) {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      requests.length = 0;
      await page.goto(`http://127.0.0.1:${port}/examples/worker/index.html${query}`);
      await page.waitForFunction(() => window.__nnfoldResult !== undefined, null, { timeout: 60000 });
      const r = await page.evaluate(() => window.__nnfoldResult);
      assert.equal(r.error, undefined, `${query}: ${r.code}: ${r.error}`);
      assert.equal(r.build, build, query);
      assert.deepEqual(r.inputs, [{ name: 'data', shape: [2, 2, 2], dtype: 'float32', dim_names: [null, null, null] }]);
      assert.deepEqual(r.outputs.out.shape, [3, 2, 2]);
      assert.deepEqual(r.outputs.out.first, expected, query);
      assert.ok(requests.includes(wasmPath), `${query}: ${wasmPath} not requested (${requests.join(', ')})`);
      assert.deepEqual(errors, []);
      await page.close();
    }
    // the same package on a page's main thread
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/examples/worker/index.html`);
    const main = await page.evaluate(async () => {
      const { init } = await import('/dist/index.mjs');
      const nf = await init();
      const m = nf.loadNcnn('7767517\n2 2\nInput data 0 1 data 0=4\nReLU relu 1 1 data out\n', null);
      const out = m.run({ data: new Float32Array([1, -2, 3, -4]) });
      let code = null;
      try { m.run({ data: new Float32Array(3) }); } catch (e) { code = e.code; }
      m.dispose();
      return { build: nf.build, out: Array.from(out.out.data), code };
    });
    assert.deepEqual(main, { build: 'simd', out: [1, 0, 3, 0], code: 'shape_mismatch' });
    await page.close();
  } finally {
    await browser?.close();
    server.closeAllConnections();
    server.close();
  }
});
