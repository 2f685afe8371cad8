// Second --pre-js of the threaded CLI (nnfold_cli in build-wasm-simd-threads; the npm package's
// dist/nnfold-cli-simd-threads.cjs). Two things Emscripten 3.1.6 needs before the runtime starts:
// - The pthread pool's size. The glue creates PTHREAD_POOL_SIZE Workers when it starts (and
//   PTHREAD_POOL_SIZE_STRICT=2 forbids more), before main() parses its arguments, so the count
//   comes from process.argv here: --threads N (or --threads=N), else the CLI's default, the cores
//   (at most 8); N - 1 Workers since the main thread computes too, and at least 1 (with none the
//   glue never finishes starting). A malformed N is left to the CLI, which reports it.
// - Where the pthread Worker script is: beside this glue under its own base name, .worker.cjs in
//   the package ("type": "module": a CommonJS worker must be .cjs), nnfold.worker.js in the
//   build tree.
// Inside a pthread Worker (which evaluates this glue without __filename) there is nothing to do.
if (typeof __filename !== 'undefined') (function () {
  const os = require('os');
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  let n = Math.min(8, Math.max(1, cores));
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--threads(?:=(.*))?$/.exec(argv[i]);
    if (!m) continue;
    const v = m[1] !== undefined ? m[1] : argv[i + 1];
    if (/^\d{1,2}$/.test(v || '') && Number(v) >= 1 && Number(v) <= 64) n = Number(v);
  }
  Module['nnfoldPoolSize'] = Math.max(1, n - 1);
  const base = __filename.replace(/\.c?js$/, '');
  const worker = [base + '.worker.cjs', base + '.worker.js'].find((f) => require('fs').existsSync(f));
  Module['locateFile'] = (path, dir) => (path.endsWith('.worker.js') && worker ? worker : dir + path);
})();
