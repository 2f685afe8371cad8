// Assembles dist/ from the two wasm build trees and the JS sources: the npm package's runtime
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
  // the `nnfold` command (bin/nnfold.mjs): the C++ CLI built for Node, CommonJS, hence .cjs in
  // this "type": "module" package; its pre-js finds the .wasm under the glue's own base name
  ['build-wasm-simd/nnfold.js', 'nnfold-cli-simd.cjs'],
  ['build-wasm-simd/nnfold.wasm', 'nnfold-cli-simd.wasm'],
  ['build-wasm-base/nnfold.js', 'nnfold-cli-base.cjs'],
  ['build-wasm-base/nnfold.wasm', 'nnfold-cli-base.wasm'],
];
const missing = sources.filter(([src]) => !fs.existsSync(path.join(root, src))).map(([src]) => src);
if (missing.length) {
  console.error(`assemble: missing ${missing.join(', ')} (build both flavours first, targets nnfold_js and nnfold_cli: npm run build)`);
  process.exit(1);
}
fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(dist, { recursive: true });
for (const [src, dst] of sources) fs.copyFileSync(path.join(root, src), path.join(dist, dst));
for (const f of ['nnfold-simd.wasm', 'nnfold-base.wasm']) {
  const bytes = fs.readFileSync(path.join(dist, f));
  const gz = zlib.gzipSync(bytes, { level: 9 }).length;
  console.log(`assemble: dist/${f} ${(bytes.length / 1024).toFixed(0)} KiB, ${(gz / 1024).toFixed(0)} KiB gzipped`);
}
