#!/usr/bin/env node
// The npm package's `nnfold` command. The command itself is the C++ CLI (src/cli/), compiled to
// WebAssembly for Node and shipped as dist/nnfold-cli-<flavour>.cjs + .wasm: the one
// implementation of the subcommands, their texts, files and exit codes (docs/errors.md and
// docs/cli.md). This launcher only picks the flavour and starts that module, which reads its arguments
// from process.argv, works on the real file system relative to the current directory (NODERAWFS)
// and ends the process with the command's exit code.
//
// NNFOLD_WASM=base|simd picks the flavour (default: SIMD when the engine supports it).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const kUsage = 2, kInternal = 3;
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

function fail(code, message) {
  process.stderr.write(`nnfold: ${message}\n`);
  process.exit(code);
}

function need(file) {
  if (!fs.existsSync(dist + file)) fail(kInternal, `${dist + file} is missing: this nnfold package is incomplete (in a checkout: npm run build)`);
  return dist + file;
}

// The API's own feature test (WebAssembly.validate on a tiny SIMD-128 module), so the CLI and
// init() choose the same flavour.
const { simdSupported } = await import(need('index.mjs'));
const which = process.env.NNFOLD_WASM ?? '';
if (!['', 'simd', 'base'].includes(which)) fail(kUsage, `NNFOLD_WASM must be 'simd' or 'base', got '${which}'`);
const supported = simdSupported();
if (which === 'simd' && !supported) fail(kInternal, 'NNFOLD_WASM=simd, but this JavaScript engine does not support WebAssembly SIMD');
const flavour = which || (supported ? 'simd' : 'base');

need(`nnfold-cli-${flavour}.wasm`);
createRequire(import.meta.url)(need(`nnfold-cli-${flavour}.cjs`));
