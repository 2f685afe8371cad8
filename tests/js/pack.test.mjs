// The published package: `npm pack` gives a tarball with exactly the whitelisted files (nothing in
// it points to a missing file), `npm publish --dry-run` accepts it, package.json has what a
// registry page and a user need, and installed offline into an empty folder (the package has no
// runtime dependencies) it imports by name from ES modules, CommonJS (`require`) and
// worker_threads, runs a model in Node, and its `nnfold` bin works. Also the download budget of a
// page that uses dist/ as it is (docs/sizes.md); tests/bundlers measures bundled pages.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { convReluBin, convReluExpected, convReluParam, dist, distFixture, haveDist, needs, root } from './helpers.mjs';

// docs/sizes.md: a page downloads one .wasm flavour (at most 768 KiB gzipped) and at most
// 200 KiB gzipped of JavaScript.
const kWasmGzipBudget = 768 * 1024;
const kJsGzipBudget = 200 * 1024;
const gz = (f) => zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length;

const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// init()'s default in Node: the threaded flavour when the machine has more than one core
const defaultBuild = os.availableParallelism() > 1 ? 'simd-threads' : 'simd';

let tmp, packed, app;
before(() => {
  if (!haveDist) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-pack-'));
  packed = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp], root))[0];
  app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', '--offline', '--no-package-lock', path.join(tmp, packed.filename)], app);
  fs.writeFileSync(path.join(app, 'model.param'), convReluParam);
  fs.writeFileSync(path.join(app, 'model.bin'), convReluBin());
});
after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const input = [1, 2, 3, 4, -1, 0.5, 2, -3];
const expected = Array.from(convReluExpected(new Float32Array(input)));
const node = (file, src) => {
  fs.writeFileSync(path.join(app, file), src);
  return JSON.parse(execFileSync(process.execPath, [file], { cwd: app, encoding: 'utf8' }));
};

test('package.json: publishable, licensed, linked, with the .wasm files exported', () => {
  assert.equal(pkg.private, undefined, 'a private package cannot be published');
  assert.equal(pkg.license, 'Apache-2.0');
  assert.match(fs.readFileSync(path.join(root, 'LICENSE'), 'utf8'), /^\s*Apache License\s+Version 2\.0, January 2004/);
  assert.match(fs.readFileSync(path.join(root, 'NOTICE'), 'utf8'), /ncnn[\s\S]*BSD 3-Clause[\s\S]*ONNX[\s\S]*Apache License 2\.0/);
  assert.match(pkg.repository?.url ?? '', /^git\+https:\/\/github\.com\/[\w-]+\/[\w-]+\.git$/);
  assert.match(pkg.homepage ?? '', /^https:\/\//);
  assert.match(pkg.bugs?.url ?? '', /^https:\/\/.*\/issues$/);
  assert.ok(Array.isArray(pkg.keywords) && pkg.keywords.includes('ncnn') && pkg.keywords.includes('onnx') && pkg.keywords.includes('webassembly'));
  assert.match(pkg.engines?.node ?? '', /20\.19/);
  assert.deepEqual(pkg.exports['.'], { types: './dist/index.d.ts', default: './dist/index.mjs' });
  assert.equal(pkg.exports['./nnfold-simd.wasm'], './dist/nnfold-simd.wasm');
  assert.equal(pkg.exports['./nnfold-base.wasm'], './dist/nnfold-base.wasm');
  assert.equal(pkg.exports['./nnfold-simd-threads.wasm'], './dist/nnfold-simd-threads.wasm');
  assert.equal(pkg.exports['./nnfold-simd-threads.worker.js'], './dist/nnfold-simd-threads.worker.js');
  assert.equal(pkg.exports['./nnfold-simd-threads.mjs'], './dist/nnfold-simd-threads.mjs');
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}), [], 'no runtime dependencies');
  assert.match(fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8'), /## Versioning policy[\s\S]*JavaScript API[\s\S]*CLI[\s\S]*\.io\.json/);
});

test('npm pack: exactly the whitelisted files, none pointing to a missing one; npm publish --dry-run passes', { skip: needs(distFixture), timeout: 120000 }, () => {
  const files = packed.files.map((f) => f.path).sort();
  // npm adds package.json, README.md and LICENSE itself; everything else comes from "files"
  const listed = (f) => ['package.json', 'README.md', 'LICENSE'].includes(f) ||
    pkg.files.some((w) => (w.endsWith('/') ? f.startsWith(w) : f === w));
  assert.deepEqual(files.filter((f) => !listed(f)), [], 'files outside the whitelist');
  for (const w of pkg.files) assert.ok(files.some((f) => (w.endsWith('/') ? f.startsWith(w) : f === w)), `${w} is whitelisted but not packed`);
  for (const f of ['LICENSE', 'NOTICE', 'CHANGELOG.md', 'README.md', 'examples/node-optimize.mjs', 'examples/worker/index.html']) {
    assert.ok(files.includes(f), `${f} in the tarball`);
  }
  // every export, the types and the bin are in it
  for (const target of [...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e))), pkg.types, ...Object.values(pkg.bin)]) {
    assert.ok(files.includes(target.replace(/^\.\//, '')), `${target} (exports/types/bin) in the tarball`);
  }
  // README.md's relative links and the examples' relative imports resolve inside the tarball
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  for (const [, link] of readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    if (/^[a-z]+:/.test(link)) continue;
    const target = path.posix.normalize(link).replace(/\/$/, '');
    assert.ok(files.some((f) => f === target || f.startsWith(target + '/')), `README.md links to ${link}, which the tarball lacks`);
  }
  for (const f of files.filter((x) => x.startsWith('examples/') && /\.(mjs|js|html)$/.test(x))) {
    const src = fs.readFileSync(path.join(root, f), 'utf8');
    for (const [, spec] of src.matchAll(/(?:from\s+|import\(\s*|src=)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(f), spec));
      assert.ok(files.includes(target), `${f} imports ${spec} (${target}), which the tarball lacks`);
    }
  }
  // every dist/ file is listed in README.md's "What the package contains"
  for (const f of files.filter((x) => x.startsWith('dist/'))) assert.ok(readme.includes(f), `README.md does not list ${f}`);
  const out = JSON.parse(npm(['publish', '--dry-run', '--json', '--tag', 'dry-run-test'], root));
  const dry = out.nnfold ?? out; // npm 11 keys the report by package name
  assert.equal(dry.name, 'nnfold');
  assert.equal(dry.version, pkg.version);
  assert.deepEqual(dry.files.map((f) => f.path).sort(), files);
});

// What makes bundlers work without configuration (docs/development.md): one literal
// new URL('./nnfold-<flavour>.wasm', import.meta.url) per flavour, literal dynamic imports of the
// glue, and no import of a Node built-in anywhere in the shipped JavaScript.
test('dist/ JavaScript: literal asset URLs, no Node built-in imports', { skip: needs(distFixture) }, () => {
  const index = fs.readFileSync(path.join(dist, 'index.mjs'), 'utf8');
  for (const flavour of ['simd', 'base', 'simd-threads']) {
    assert.equal(index.split(`new URL('./nnfold-${flavour}.wasm', import.meta.url)`).length - 1, 1, `one literal URL for nnfold-${flavour}.wasm`);
    assert.ok(index.includes(`import('./nnfold-${flavour}.mjs')`), `a literal dynamic import of nnfold-${flavour}.mjs`);
  }
  // the threaded flavour's Worker script and the glue that Worker imports: literal URLs too
  for (const f of ['nnfold-simd-threads.worker.js', 'nnfold-simd-threads.mjs']) {
    assert.equal(index.split(`new URL('./${f}', import.meta.url)`).length - 1, 1, `one literal URL for ${f}`);
  }
  for (const f of ['index.mjs', 'nnfold-simd.mjs', 'nnfold-base.mjs', 'nnfold-simd-threads.mjs', 'nnfold-simd-threads.worker.js']) {
    const src = fs.readFileSync(path.join(dist, f), 'utf8');
    assert.doesNotMatch(src, /\bimport\s*\(\s*['"`](node:|fs|path|url|module|worker_threads)/, `${f}: dynamic import of a Node built-in`);
    assert.doesNotMatch(src, /\bfrom\s*['"](node:|fs['"]|path['"])/, `${f}: static import of a Node built-in`);
    assert.doesNotMatch(src, /\brequire\s*\(\s*['"]/, `${f}: require() of a module`);
  }
});

test('installed from the tarball: ES module import by name runs a model', { skip: needs(distFixture) }, () => {
  const r = node('main.mjs', `
    import fs from 'node:fs';
    import init from 'nnfold';
    const nf = await init();
    const m = nf.loadNcnn(fs.readFileSync('model.param', 'utf8'), fs.readFileSync('model.bin'));
    const out = m.run({ data: new Float32Array(${JSON.stringify(input)}) });
    console.log(JSON.stringify({ build: nf.build, out: Array.from(out.out.data), shape: out.out.shape }));
    m.dispose();
  `);
  assert.equal(r.build, defaultBuild);
  assert.deepEqual(r.shape, [3, 2, 2]);
  assert.deepEqual(r.out, expected);
  // a .wasm that is not where it is said to be: an NnfoldError naming the options
  const e = node('missing.mjs', `
    import init from 'nnfold';
    init({ wasmPaths: new URL('file:///nonexistent/') }).then(() => console.log('{}'), (e) => console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })));
  `);
  assert.equal(e.name, 'NnfoldError');
  assert.equal(e.code, 'wasm_not_found');
  assert.match(e.message, defaultBuild === 'simd' ? /file:\/\/\/nonexistent\/nnfold-simd\.wasm.*wasmPaths.*locateFile/
    : /file:\/\/\/nonexistent\/nnfold-simd-threads-node\.cjs.*wasmPaths.*locateFile/);
});

test('installed from the tarball: CommonJS require(\'nnfold\') (Node >= 20.19)', { skip: needs(distFixture) }, () => {
  const r = node('main.cjs', `
    const fs = require('node:fs');
    const { init, NnfoldError } = require('nnfold');
    init({ simd: false }).then((nf) => {
      const m = nf.loadNcnn(fs.readFileSync('model.param', 'utf8'), fs.readFileSync('model.bin'));
      const out = m.run({ data: new Float32Array(${JSON.stringify(input)}) });
      let code = null;
      try { m.run({ nope: new Float32Array(1) }); } catch (e) { code = e instanceof NnfoldError && e.code; }
      const wasm = ['nnfold/nnfold-simd.wasm', 'nnfold/nnfold-base.wasm'].map((s) => fs.statSync(require.resolve(s)).size);
      console.log(JSON.stringify({ build: nf.build, out: Array.from(out.out.data), code, def: typeof require('nnfold').default, wasm }));
    });
  `);
  assert.equal(r.build, 'base');
  assert.deepEqual(r.out, expected);
  assert.equal(r.code, 'invalid_argument');
  assert.equal(r.def, 'function');
  // the exported .wasm files resolve (to copy them in a build script)
  assert.deepEqual(r.wasm, ['simd', 'base'].map((f) => fs.statSync(path.join(dist, `nnfold-${f}.wasm`)).size));
});

test('installed from the tarball: in a worker_threads Worker', { skip: needs(distFixture) }, () => {
  fs.writeFileSync(path.join(app, 'thread.mjs'), `
    import fs from 'node:fs';
    import { parentPort } from 'node:worker_threads';
    import init from 'nnfold';
    const nf = await init();
    const m = nf.loadNcnn(fs.readFileSync('model.param', 'utf8'), fs.readFileSync('model.bin'));
    const out = m.run({ data: new Float32Array(${JSON.stringify(input)}) }).out.data;
    parentPort.postMessage({ build: nf.build, out }, [out.buffer]);
  `);
  const r = node('threads.mjs', `
    import { Worker } from 'node:worker_threads';
    const w = new Worker(new URL('./thread.mjs', import.meta.url));
    w.once('message', (m) => { console.log(JSON.stringify({ build: m.build, out: Array.from(m.out) })); });
    w.once('error', (e) => { console.log(JSON.stringify({ error: String(e) })); });
  `);
  assert.equal(r.error, undefined, r.error);
  assert.equal(r.build, defaultBuild);
  assert.deepEqual(r.out, expected);
});

test('installed from the tarball: the nnfold bin', { skip: needs(distFixture) }, () => {
  const bin = path.join(app, 'node_modules/.bin/nnfold');
  assert.match(execFileSync(bin, ['--version'], { encoding: 'utf8' }), /^nnfold \d+\.\d+\.\d+\n$/);
  const info = JSON.parse(execFileSync(bin, ['info', 'model.param', 'model.bin', '--json'], { cwd: app, encoding: 'utf8' }));
  assert.equal(info.layers, 3);
  // the C++ CLI for Node in both flavours, no node flags: files written, the command's exit code
  fs.writeFileSync(path.join(app, 'x.f32'), new Uint8Array(new Float32Array(input).buffer));
  // (the threaded CLI with --threads 2: its pool is sized from the argument before main runs)
  for (const flavour of ['simd', 'base', 'simd-threads']) {
    const env = { ...process.env, NNFOLD_WASM: flavour };
    const threads = flavour === 'simd-threads' ? ['--threads', '2'] : [];
    const summary = JSON.parse(execFileSync(bin, ['run', 'model.param', 'model.bin', '--input', 'data=x.f32', '--output-dir', flavour, ...threads],
      { cwd: app, env, encoding: 'utf8' }));
    assert.equal(summary.threads, flavour === 'simd-threads' ? 2 : 1, flavour);
    const got = new Float32Array(new Uint8Array(fs.readFileSync(path.join(app, flavour, 'out.f32'))).buffer);
    assert.deepEqual(Array.from(got), expected);
    const r = spawnSync(bin, ['run', 'missing.param'], { cwd: app, env, encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.equal(r.stderr, 'nnfold run: error: cannot open missing.param: No such file or directory\n');
  }
});

test('a page using dist/ unbundled downloads one .wasm and its JS within the budget', { skip: needs(distFixture) }, (t) => {
  for (const flavour of ['simd', 'base', 'simd-threads']) {
    const wasm = gz(path.join(dist, `nnfold-${flavour}.wasm`));
    // the threaded flavour's page also loads the pthread Worker script
    const js = gz(path.join(dist, 'index.mjs')) + gz(path.join(dist, `nnfold-${flavour}.mjs`)) +
      (flavour === 'simd-threads' ? gz(path.join(dist, 'nnfold-simd-threads.worker.js')) : 0);
    t.diagnostic(`${flavour}: nnfold-${flavour}.wasm ${(wasm / 1024).toFixed(1)} KiB gzipped, index.mjs + nnfold-${flavour}.mjs ${(js / 1024).toFixed(1)} KiB gzipped`);
    assert.ok(wasm <= kWasmGzipBudget, `nnfold-${flavour}.wasm: ${wasm} bytes gzipped, budget ${kWasmGzipBudget}`);
    assert.ok(js <= kJsGzipBudget, `JS of the ${flavour} flavour: ${js} bytes gzipped, budget ${kJsGzipBudget}`);
  }
});
