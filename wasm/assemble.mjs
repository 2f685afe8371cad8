// Assembles dist/ from the three wasm build trees and the JS sources: the npm package's runtime
// files. Run by `npm run build` (wasm/build.sh) and tests/run_all.sh after the wasm builds.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const sources = [
  ['wasm/js/index.mjs', 'index.mjs'],
  ['wasm/js/index.d.ts', 'index.d.ts'],
  ['build-wasm-simd/nnfold-simd.mjs', 'nnfold-simd.mjs'],
  ['build-wasm-simd/nnfold-simd.wasm', 'nnfold-simd.wasm'],
  ['build-wasm-base/nnfold-base.mjs', 'nnfold-base.mjs'],
  ['build-wasm-base/nnfold-base.wasm', 'nnfold-base.wasm'],
  // SIMD + threads for browsers: ES module glue, .wasm and the pthread Worker script (a classic
  // script that imports the glue from the URL the JS layer gives it)
  ['build-wasm-simd-threads/nnfold-simd-threads.mjs', 'nnfold-simd-threads.mjs'],
  ['build-wasm-simd-threads/nnfold-simd-threads.wasm', 'nnfold-simd-threads.wasm'],
  ['build-wasm-simd-threads/nnfold-simd-threads.worker.js', 'nnfold-simd-threads.worker.js'],
  // the same for Node: CommonJS glue and Worker, hence .cjs in this "type": "module" package; its
  // .wasm is the browser build's (checked below: the same bytes)
  ['build-wasm-simd-threads/nnfold-simd-threads-node.js', 'nnfold-simd-threads-node.cjs'],
  ['build-wasm-simd-threads/nnfold-simd-threads-node.worker.js', 'nnfold-simd-threads-node.worker.cjs'],
  // the `nnfold` command (bin/nnfold.mjs): the C++ CLI built for Node, CommonJS, hence .cjs in
  // this "type": "module" package; its pre-js finds the .wasm under the glue's own base name
  ['build-wasm-simd/nnfold.js', 'nnfold-cli-simd.cjs'],
  ['build-wasm-simd/nnfold.wasm', 'nnfold-cli-simd.wasm'],
  ['build-wasm-base/nnfold.js', 'nnfold-cli-base.cjs'],
  ['build-wasm-base/nnfold.wasm', 'nnfold-cli-base.wasm'],
  // the threaded CLI (bin/nnfold.mjs runs it for --threads N > 1) and its pthread Worker script;
  // its pre-js finds the worker as <glue base name>.worker.cjs
  ['build-wasm-simd-threads/nnfold.js', 'nnfold-cli-simd-threads.cjs'],
  ['build-wasm-simd-threads/nnfold.wasm', 'nnfold-cli-simd-threads.wasm'],
  ['build-wasm-simd-threads/nnfold.worker.js', 'nnfold-cli-simd-threads.worker.cjs'],
];
const missing = sources.filter(([src]) => !fs.existsSync(path.join(root, src))).map(([src]) => src);
if (missing.length) {
  console.error(`assemble: missing ${missing.join(', ')} (build the three flavours first, targets nnfold_js and nnfold_cli, and nnfold_js_node for simd-threads: npm run build)`);
  process.exit(1);
}
// The Node link of the threaded flavour must give the browser link's module (only the JS glue
// differs between ENVIRONMENT=web,worker and node), since the package ships one .wasm for both.
{
  const web = fs.readFileSync(path.join(root, 'build-wasm-simd-threads/nnfold-simd-threads.wasm'));
  const nodeWasm = path.join(root, 'build-wasm-simd-threads/nnfold-simd-threads-node.wasm');
  if (!fs.existsSync(nodeWasm) || !web.equals(fs.readFileSync(nodeWasm))) {
    console.error('assemble: build-wasm-simd-threads/nnfold-simd-threads-node.wasm differs from nnfold-simd-threads.wasm ' +
      '(or is missing): the package ships one threaded .wasm for browsers and Node');
    process.exit(1);
  }
}
fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(dist, { recursive: true });
for (const [src, dst] of sources) fs.copyFileSync(path.join(root, src), path.join(dist, dst));
// dist/index.mjs carries the browser pthread Worker script's source (PTHREAD_WORKER_SOURCE: the
// default Workers start from a blob: URL of it; see the comment there).
{
  const marker = 'const PTHREAD_WORKER_SOURCE = null;';
  const index = fs.readFileSync(path.join(dist, 'index.mjs'), 'utf8');
  if (index.split(marker).length !== 2) {
    console.error(`assemble: wasm/js/index.mjs must contain "${marker}" exactly once`);
    process.exit(1);
  }
  const worker = fs.readFileSync(path.join(dist, 'nnfold-simd-threads.worker.js'), 'utf8');
  fs.writeFileSync(path.join(dist, 'index.mjs'), index.replace(marker, () => `const PTHREAD_WORKER_SOURCE = ${JSON.stringify(worker)};`));
}
for (const f of ['nnfold-simd.wasm', 'nnfold-base.wasm', 'nnfold-simd-threads.wasm']) {
  const bytes = fs.readFileSync(path.join(dist, f));
  const gz = zlib.gzipSync(bytes, { level: 9 }).length;
  console.log(`assemble: dist/${f} ${(bytes.length / 1024).toFixed(0)} KiB, ${(gz / 1024).toFixed(0)} KiB gzipped`);
}
