// The package as an app developer gets it: `npm pack`, installed offline into a fresh project,
// imported BY NAME from a tiny app (tests/bundlers/app/) that loads a network with nnfold's seeded
// random weights, runs it, optimizes it and runs it again. The app is built with each common
// bundler with nothing beyond the bundler's defaults, then opened in one headless Chromium; its
// outputs must equal the same code's outputs in Node (the package's own Node path).
//
//   Vite            production build and dev server; the page and a module worker
//   webpack 5       mode 'production', output.path only; the page and a module worker
//   Rollup          @rollup/plugin-node-resolve + @web/rollup-plugin-import-meta-assets (the
//                   plugin that emits files named by `new URL('...', import.meta.url)`); the page
//   esbuild         ESM bundle + the README's recipe: copy the package's .wasm files beside it
//   esbuild (IIFE)  no import.meta.url: init() fails with wasm_not_found naming `wasmPaths` (and
//                   so do a wrong folder, 404, and an HTML page served instead of the .wasm);
//                   it works given `wasmPaths`
//
// Each page's downloads (JS + .wasm, gzipped) are measured against docs/sizes.md's budget.
//
// Threads: served without COOP/COEP the pages run the single-threaded SIMD flavour and say why;
// the Vite (build and dev server) and webpack apps are also served cross-origin isolated, where
// they must find the threaded flavour's .wasm, its pthread Worker script and the glue that Worker
// imports (the hard part: Emscripten starts that Worker itself), and give the same numbers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromiumPath, closeServer, launch } from '../e2e/harness.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const dist = path.join(root, 'dist');
const kWasmGzipBudget = 768 * 1024;   // one flavour's .wasm (docs/sizes.md)
const kJsGzipBudget = 200 * 1024;     // the page's JavaScript

async function optional(name) {
  try {
    return await import(name);
  } catch {
    return null;
  }
}
const [playwright, vite, webpackMod, rollupMod, nodeResolveMod, metaAssetsMod, esbuild] = await Promise.all(
  ['playwright-core', 'vite', 'webpack', 'rollup', '@rollup/plugin-node-resolve', '@web/rollup-plugin-import-meta-assets', 'esbuild'].map(optional));

const missing = [['playwright-core', playwright], ['vite', vite], ['webpack', webpackMod], ['rollup', rollupMod],
  ['@rollup/plugin-node-resolve', nodeResolveMod], ['@web/rollup-plugin-import-meta-assets', metaAssetsMod], ['esbuild', esbuild]]
  .filter(([, m]) => !m).map(([n]) => n);
const skipReason =
  (!['index.mjs', 'nnfold-simd.wasm', 'nnfold-base.wasm'].every((f) => fs.existsSync(path.join(dist, f))) && 'dist/ is not built (npm run build)') ||
  (!fs.existsSync(chromiumPath) && `no ${chromiumPath}`) ||
  (missing.length && `dev dependencies not installed: ${missing.join(', ')} (npm install)`) ||
  false;
// CI has everything: there a missing piece is a failure, not a skip.
if (skipReason && process.env.CI === 'true') throw new Error(`bundler tests cannot run: ${skipReason}`);

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const gzipSize = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;

let tmp, app, out, browser, reference;

const isolationHeaders = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

// A static server for one built app at the server's root (Vite's default `base` is '/'); it logs
// the files it serves, to measure what the page downloaded. `isolated`: with COOP/COEP.
function serveDir(dir, isolated = false) {
  const served = [];
  const s = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.resolve(dir, '.' + (rel.endsWith('/') ? rel + 'index.html' : rel));
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    served.push(file);
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store',
      ...(isolated ? isolationHeaders : {}) });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve({ server: s, served, url: `http://127.0.0.1:${s.address().port}/` })));
}

// Builds nothing: serves `dir`, opens the app, checks sizes, closes the server.
async function openBuilt(t, name, dir, isolated = false) {
  const srv = await serveDir(dir, isolated);
  try {
    const { result } = await openApp(srv.url);
    checkSizes(t, name, srv.served);
    return result;
  } finally {
    await closeServer(srv.server);
  }
}

before(async () => {
  if (skipReason) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-bundlers-'));
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: root, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] }));
  app = path.join(tmp, 'app');
  fs.cpSync(path.join(import.meta.dirname, 'app'), app, { recursive: true });
  execFileSync('npm', ['install', '--offline', '--no-package-lock', path.join(tmp, packed[0].filename)], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  out = path.join(tmp, 'out');
  fs.mkdirSync(out);
  // The reference: the same app code in Node, importing the installed package by name.
  reference = await (await import(path.join(app, 'src/run-model.js'))).runModel();
  assert.equal(reference.error, undefined, JSON.stringify(reference.error));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const relErr = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i]))) / Math.max(...b.map(Math.abs), 1e-6);

// One run of the app (page or worker) against the Node reference: same build, same numbers
// (the same wasm on the same inputs: 1e-6 leaves room only for nothing; the threaded flavour
// computes the same bits), the optimizer's rewrites and an unchanged result after it
// (docs/numbers.md: 1e-4). Not isolated: the SIMD flavour, saying why not threads; isolated: the
// threaded flavour on Chromium's reported cores.
function checkRun(r, where, isolated = false) {
  assert.ok(r, `${where}: no result`);
  assert.equal(r.error, undefined, `${where}: ${JSON.stringify(r.error)}`);
  assert.equal(r.isolated, isolated, `${where}: crossOriginIsolated`);
  if (isolated) {
    assert.equal(r.build, 'simd-threads', `${where}: the threaded flavour in an isolated page (${r.threadsReason})`);
    assert.ok(r.threads >= 2 && r.threads <= 8, `${where}: ${r.threads} threads`);
    assert.equal(r.threadsReason, null);
  } else {
    assert.equal(r.build, 'simd', `${where}: the SIMD flavour in Chromium`);
    assert.equal(r.threads, 1);
    assert.match(r.threadsReason, /cross-origin isolated/, `${where}: the reason threads are off`);
  }
  assert.equal(r.before.length, 10);
  assert.ok(Math.abs(r.before.reduce((a, b) => a + b, 0) - 1) < 1e-5, `${where}: softmax sums to 1`);
  assert.ok(relErr(r.before, reference.before) <= 1e-6, `${where}: outputs differ from Node's: ${r.before} vs ${reference.before}`);
  assert.deepEqual([r.layersBefore, r.layersAfter], [7, 5], `${where}: BatchNorm and ReLU fused into the convolution`);
  assert.deepEqual(r.rewrites, reference.rewrites);
  assert.ok(relErr(r.after, r.before) <= 1e-4, `${where}: optimized outputs`);
}

// Opens url, waits for window.__nnfold, and returns it with the console and page errors.
async function openApp(url) {
  const page = await browser.context.newPage();
  const log = [];
  page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__nnfold !== undefined, null, { timeout: 60000 }).catch((e) => {
      throw new Error(`${url}: no result (${e.message})\n${log.join('\n')}`);
    });
    return { result: await page.evaluate(() => window.__nnfold), log };
  } finally {
    await page.close();
  }
}

// What the page downloaded (the served files): .js and .wasm, gzipped, against the budget.
function checkSizes(t, name, served) {
  const files = [...new Set(served)];
  const wasm = files.filter((f) => f.endsWith('.wasm'));
  const js = files.filter((f) => /\.m?js$/.test(f));
  const wasmGz = wasm.reduce((a, f) => a + gzipSize(f), 0);
  const jsGz = js.reduce((a, f) => a + gzipSize(f), 0);
  t.diagnostic(`${name}: page downloads ${js.length} JS file(s) ${(jsGz / 1024).toFixed(1)} KiB gzipped + ` +
    `${wasm.map((f) => path.basename(f)).join(', ')} ${(wasmGz / 1024).toFixed(1)} KiB gzipped`);
  assert.equal(wasm.length, 1, `${name}: one .wasm flavour downloaded (${wasm.join(', ')})`);
  assert.ok(wasmGz <= kWasmGzipBudget, `${name}: .wasm ${wasmGz} bytes gzipped > ${kWasmGzipBudget}`);
  assert.ok(jsGz <= kJsGzipBudget, `${name}: JS ${jsGz} bytes gzipped > ${kJsGzipBudget}`);
}

const page = (dir, script, module = true) =>
  fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><meta charset="utf-8"><title>nnfold</title><script ${module ? 'type="module" ' : ''}src="./${script}"></script>\n`);

test('bundled apps run the package in Chromium with the bundlers\' defaults', { skip: skipReason, timeout: 600000 }, async (t) => {
  await t.test('Vite: production build, page and module worker', async (t) => {
    // `vite build` in the app folder: no vite.config, the output in out/vite
    await vite.build({ root: app, configFile: false, logLevel: 'error', build: { outDir: path.join(out, 'vite') } });
    const result = await openBuilt(t, 'vite build', path.join(out, 'vite'));
    checkRun(result.page, 'vite build page');
    checkRun(result.worker, 'vite build worker');
    const threaded = await openBuilt(t, 'vite build, isolated', path.join(out, 'vite'), true);
    checkRun(threaded.page, 'vite build page, isolated', true);
    checkRun(threaded.worker, 'vite build worker, isolated', true);
  });

  await t.test('Vite: dev server, page and module worker (no optimizeDeps settings)', async () => {
    const dev = await vite.createServer({ root: app, configFile: false, logLevel: 'error', server: { host: '127.0.0.1', port: 0 } });
    await dev.listen();
    try {
      const { result } = await openApp(dev.resolvedUrls.local[0]);
      checkRun(result.page, 'vite dev page');
      checkRun(result.worker, 'vite dev worker');
    } finally {
      await dev.close();
    }
    // the dev server with the isolation headers (its `server.headers` option)
    const iso = await vite.createServer({ root: app, configFile: false, logLevel: 'error', server: { host: '127.0.0.1', port: 0, headers: isolationHeaders } });
    await iso.listen();
    try {
      const { result } = await openApp(iso.resolvedUrls.local[0]);
      checkRun(result.page, 'vite dev page, isolated', true);
      checkRun(result.worker, 'vite dev worker, isolated', true);
    } finally {
      await iso.close();
    }
  });

  await t.test('webpack 5: mode production, page and module worker', async (t) => {
    const dir = path.join(out, 'webpack');
    // webpack's defaults (entry ./src/index.js) with only the output folder given
    const stats = await new Promise((resolve, reject) => webpackMod.default({ context: app, mode: 'production', output: { path: dir } },
      (err, s) => (err ? reject(err) : resolve(s))));
    assert.ok(!stats.hasErrors(), stats.toString({ all: false, errors: true }));
    page(dir, 'main.js', false);
    const result = await openBuilt(t, 'webpack', dir);
    checkRun(result.page, 'webpack page');
    checkRun(result.worker, 'webpack worker');
    const threaded = await openBuilt(t, 'webpack, isolated', dir, true);
    checkRun(threaded.page, 'webpack page, isolated', true);
    checkRun(threaded.worker, 'webpack worker, isolated', true);
  });

  await t.test('Rollup: node-resolve + import-meta-assets, page', async (t) => {
    const dir = path.join(out, 'rollup');
    const bundle = await rollupMod.rollup({
      input: path.join(app, 'src/page.js'),
      plugins: [nodeResolveMod.nodeResolve(), metaAssetsMod.importMetaAssets()],
      onwarn: (w) => t.diagnostic(`rollup: ${w.message}`),
    });
    await bundle.write({ dir, format: 'es' });
    await bundle.close();
    page(dir, 'page.js');
    const result = await openBuilt(t, 'rollup', dir);
    checkRun(result.page, 'rollup page');
  });

  await t.test('esbuild: ESM bundle + the .wasm files copied beside it (README recipe)', async (t) => {
    const dir = path.join(out, 'esbuild');
    await esbuild.build({ entryPoints: [path.join(app, 'src/page.js')], bundle: true, format: 'esm', outfile: path.join(dir, 'main.js'), logLevel: 'error' });
    for (const f of ['nnfold-simd.wasm', 'nnfold-base.wasm']) fs.copyFileSync(path.join(app, 'node_modules/nnfold/dist', f), path.join(dir, f));
    page(dir, 'main.js');
    const result = await openBuilt(t, 'esbuild', dir);
    checkRun(result.page, 'esbuild page');
  });

  await t.test('esbuild IIFE (no import.meta.url): wasm_not_found naming wasmPaths; then runs with wasmPaths', async (t) => {
    const dir = path.join(out, 'esbuild-iife');
    await esbuild.build({ entryPoints: [path.join(app, 'src/iife.js')], bundle: true, format: 'iife', outfile: path.join(dir, 'main.js'), logLevel: 'silent' });
    for (const f of ['nnfold-simd.wasm', 'nnfold-base.wasm']) fs.copyFileSync(path.join(app, 'node_modules/nnfold/dist', f), path.join(dir, f));
    page(dir, 'main.js', false);
    const result = await openBuilt(t, 'esbuild IIFE', dir);
    assert.ok(result.error, 'init() without wasmPaths failed');
    assert.equal(result.error.name, 'NnfoldError');
    assert.equal(result.error.code, 'wasm_not_found');
    assert.match(result.error.message, /nnfold-simd\.wasm/);
    assert.match(result.error.message, /wasmPaths/);
    assert.match(result.error.message, /locateFile/);
    assert.equal(result.missing?.code, 'wasm_not_found', JSON.stringify(result.missing));
    assert.match(result.missing.message, /\/missing\/nnfold-simd\.wasm: HTTP 404.*wasmPaths/);
    assert.equal(result.html?.code, 'wasm_not_found', JSON.stringify(result.html));
    assert.match(result.html.message, /index\.html is not nnfold-simd\.wasm: .* bytes of text\/html, not a WebAssembly module.*wasmPaths/);
    checkRun(result.page, 'esbuild IIFE page with wasmPaths');
  });
});
