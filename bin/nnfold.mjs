#!/usr/bin/env node
// The npm package's `nnfold` command. The command itself is the C++ CLI (src/cli/), compiled to
// WebAssembly for Node and shipped as dist/nnfold-cli-<flavour>.cjs + .wasm: the one
// implementation of the subcommands, their texts, files and exit codes (docs/errors.md and
// docs/cli.md). This launcher only picks the flavour and starts that module, which reads its arguments
// from process.argv, works on the real file system relative to the current directory (NODERAWFS)
// and ends the process with the command's exit code.
//
// NNFOLD_WASM=base|simd|simd-threads picks the flavour. Default: SIMD + threads when the command
// runs on more than one thread (--threads N; without it the cores, at most 8, as the native CLI)
// and the engine has SIMD and SharedArrayBuffer (the threaded module's pthread pool is sized from
// --threads when it starts: wasm/cli_threads_pre.js); else SIMD when supported; else the baseline.
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
const { simdSupported, threadsUnavailableReason, defaultThreads } = await import(need('index.mjs'));
const which = process.env.NNFOLD_WASM ?? '';
if (!['', 'simd', 'base', 'simd-threads'].includes(which)) fail(kUsage, `NNFOLD_WASM must be 'simd', 'base' or 'simd-threads', got '${which}'`);
const supported = simdSupported();
if (which.startsWith('simd') && !supported) fail(kInternal, `NNFOLD_WASM=${which}, but this JavaScript engine does not support WebAssembly SIMD`);
if (which === 'simd-threads' && threadsUnavailableReason()) fail(kInternal, `NNFOLD_WASM=simd-threads, but ${threadsUnavailableReason()}`);
// the thread count the command will ask for (the CLI itself validates the value)
function askedThreads() {
  const argv = process.argv.slice(2);
  let n = defaultThreads();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--threads(?:=(.*))?$/.exec(argv[i]);
    if (m) n = Number(m[1] ?? argv[i + 1]);
  }
  return n;
}
const flavour = which || (!supported ? 'base' : askedThreads() > 1 && !threadsUnavailableReason() ? 'simd-threads' : 'simd');

need(`nnfold-cli-${flavour}.wasm`);
if (flavour === 'simd-threads') need('nnfold-cli-simd-threads.worker.cjs');
createRequire(import.meta.url)(need(`nnfold-cli-${flavour}.cjs`));
