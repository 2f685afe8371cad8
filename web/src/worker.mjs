// The page's model worker: owns the nnfold module and the models, so loading, optimizing,
// verifying, running and benchmarking never block the page. One request at a time (the page
// queues nothing: it disables the buttons of work in progress).
//
// Messages in: {id, type, ...}; out: {id, ok: true, ...} | {id, ok: false, code, message,
// warnings?} | {id, progress: {done, total, label?}}.
//
// Models: `orig` as loaded (or imported from ONNX), `opt` a second copy optimized in place, `int8`
// the original quantized (model.quantize, on the page's calibration pictures). The
// worker keeps the source bytes so it can make the copy (and the page keeps them too, to reload
// after a hard cancel, which terminates this worker).
//
// Cancelling: the page may share an Int32Array over a SharedArrayBuffer (the page is
// cross-origin isolated); progress callbacks return false once it holds 1, which ends the
// operation with a `cancelled` error (the page clears it before each request). Without it the
// page terminates and restarts the worker.
import { init } from 'nnfold';

let nfPromise = null;
let nf = null;
let cancelFlag = null;
let source = null;
let orig = null;
let opt = null;
let int8 = null;

const PROBE_PARAM = '7767517\n2 2\nInput data 0 1 data 0=4\nReLU relu 1 1 data out\n';

const cancelled = () => cancelFlag !== null && Atomics.load(cancelFlag, 0) !== 0;

function progressFor(id, label) {
  let last = 0;
  return ({ done, total }) => {
    const now = performance.now();
    if (now - last > 50 || done === total) {
      last = now;
      self.postMessage({ id, progress: { done, total, label } });
    }
    return !cancelled();
  };
}

function fail(code, message) {
  throw Object.assign(new Error(message), { code });
}

function describe(model, extra = {}) {
  const info = model.info();
  return {
    info,
    graph: model.graph(),
    inputs: model.inputs,
    outputs: model.outputs,
    warnings: model.warnings,
    ...extra,
  };
}

// Loads a model from the page's source description.
function load(src, structureOnly = false) {
  const shapes = src.shapes && Object.keys(src.shapes).length ? src.shapes : undefined;
  if (src.kind === 'onnx') return nf.loadOnnx(src.onnx, { shapes });
  return nf.loadNcnn(src.param, src.bin ?? null, {
    seed: src.seed ?? 0,
    shapes,
    paramName: src.paramName,
    binName: src.binName,
    structureOnly,
  });
}

// Names of the optimizer's passes, in pipeline order: the report of a full run lists every pass
// that ran, so optimizing a two-layer model gives the list without a second source of truth.
function passNames() {
  const m = nf.loadNcnn(PROBE_PARAM, null);
  try {
    return m.optimize({}).passes.map((p) => p.name);
  } catch {
    return [];
  } finally {
    m.dispose();
  }
}

// Input shapes to carry over to a re-read copy (inputs whose file declares none).
function shapesOf(m) {
  const s = {};
  for (const i of m.inputs) if (i.shape) s[i.name] = i.shape;
  return Object.keys(s).length ? s : undefined;
}

function model(which) {
  const m = which === 'opt' ? opt : which === 'int8' ? int8 : orig;
  if (!m) fail('invalid_argument', which === 'opt' ? 'optimize the model first' : which === 'int8' ? 'quantize the model first' : 'load a model first');
  return m;
}

function median(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Median and interquartile range (quartiles by linear interpolation between order statistics).
function spread(xs) {
  const s = xs.slice().sort((x, y) => x - y);
  const q = (p) => {
    const i = (s.length - 1) * p;
    const lo = Math.floor(i);
    return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (i - lo);
  };
  return { median_ms: q(0.5), q1_ms: q(0.25), q3_ms: q(0.75), iqr_ms: q(0.75) - q(0.25) };
}

// docs/numbers.md: max|a - b| / max(max|a|, 1e-6); non-finite values make it infinite (null).
function relErr(a, b) {
  let d = 0;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.abs(a[i] - b[i]);
    if (!Number.isFinite(x)) return null;
    if (x > d) d = x;
    if (Math.abs(a[i]) > m) m = Math.abs(a[i]);
  }
  return d / Math.max(m, 1e-6);
}

// One class vector: a single axis of at least 2 values, the others 1 ([N], [1, N], [N, 1, 1]).
const classVector = (o) => (o.shape ?? [o.data.length]).filter((d) => d > 1).length === 1 && o.data.length >= 2;

function argmax(d) {
  let best = 0;
  for (let i = 1; i < d.length; i++) if (d[i] > d[best]) best = i;
  return best;
}

const handlers = {
  async init(msg) {
    if (msg.cancel) cancelFlag = new Int32Array(msg.cancel);
    // The threaded flavour when the page is cross-origin isolated (its Workers start from this
    // worker, so the page's main thread never waits on them), else one thread; `threads` in the
    // query sets the count (1 = no pool).
    const opts = msg.simd === false ? { simd: false } : {};
    if (msg.threads !== undefined) opts.threads = msg.threads;
    nfPromise ??= init(opts);
    nf = await nfPromise;
    return {
      build: nf.build, version: nf.version, features: { ...nf.features }, passes: passNames(), cancelShared: !!cancelFlag,
      threads: nf.threads, threadsReason: nf.threadsReason, isolated: globalThis.crossOriginIsolated === true,
    };
  },

  // A model that fails to load leaves the current one in place (the page stays usable).
  load(msg) {
    const m = load(msg.source, !!msg.structureOnly);
    let d;
    try {
      d = describe(m, { structureOnly: !!msg.structureOnly, build: nf.build });
    } catch (e) {
      m.dispose();
      throw e;
    }
    opt?.dispose();
    opt = null;
    int8?.dispose();
    int8 = null;
    orig?.dispose();
    orig = m;
    source = msg.source;
    return d;
  },

  optimize(msg, id) {
    if (!source) fail('invalid_argument', 'load a model first');
    opt?.dispose();
    opt = null;
    const m = load(source);
    try {
      const report = m.optimize({ ...msg.options, onProgress: progressFor(id, 'optimizing') });
      // the sizes of the files as they will be downloaded (fp16 storage is decided when writing)
      const f = m.toNcnn();
      opt = m;
      return { report, files: { param: f.paramBytes.length, bin: f.bin.length }, ...describe(m) };
    } catch (e) {
      m.dispose();
      throw e;
    }
  },

  // fp32: the optimized model in memory against the original. fp16 storage is a property of the
  // written files (the model in memory keeps fp32 weights), so then the check runs on what the
  // user downloads: the optimized files with fp16 weights, read back, against the original (as
  // ncnn files too for an ONNX import, so both sides name their outputs by ncnn blob).
  verify(msg, id) {
    if (!orig || !opt) fail('invalid_argument', 'optimize the model first');
    const onProgress = progressFor(id, 'verifying');
    const seed = msg.seed ?? 0;
    if (!msg.fp16) return { report: nf.verify(orig, opt, { seed, onProgress }), files: false };
    const temps = [];
    try {
      const reread = (m, fp16) => {
        const f = m.toNcnn({ fp16 });
        const r = nf.loadNcnn(f.paramBytes, f.bin, { shapes: source.kind === 'ncnn' ? shapesOf(m) : undefined });
        temps.push(r);
        return r;
      };
      const a = source.kind === 'onnx' ? reread(orig, false) : orig;
      const b = reread(opt, true);
      return { report: nf.verify(a, b, { seed, onProgress }), files: true };
    } finally {
      for (const t of temps) t.dispose();
    }
  },

  // Inputs not given (all of them for a random run) get seeded random values.
  run(msg) {
    const m = model(msg.which);
    const given = msg.inputs ?? {};
    const missing = m.inputs.some((i) => !(i.name in given));
    const inputs = missing ? { ...nf.randomInputs(m, msg.seed ?? 0), ...given } : given;
    const t0 = performance.now();
    const outputs = m.run(inputs);
    const ms = performance.now() - t0;
    return { outputs, ms, transfer: Object.values(outputs).map((o) => o.data.buffer) };
  },

  profile(msg, id) {
    const m = model(msg.which);
    const inputs = msg.inputs ?? null;
    return { report: m.profile(inputs, { runs: msg.runs ?? 5, onProgress: progressFor(id, 'profiling') }) };
  },

  // Median wall time of `runs` runs of each model, after a time-based warm-up: V8 first runs wasm
  // with its baseline compiler and recompiles hot functions with TurboFan later, so early runs
  // are slower than the steady state.
  bench(msg, id) {
    const runs = msg.runs;
    if (!Number.isInteger(runs) || runs < 1 || runs > 1000) fail('invalid_argument', 'runs must be an integer from 1 to 1000');
    const which = (msg.which ?? ['orig', 'opt']).filter((w) => (w === 'opt' ? opt : orig));
    const total = which.length * runs;
    const report = { build: nf.build, threads: nf.threads, runs, models: {} };
    const progress = progressFor(id, 'benchmarking');
    let done = 0;
    for (const w of which) {
      const m = model(w);
      const inputs = nf.randomInputs(m, 0);
      const warmEnd = performance.now() + 300;
      let warm = 0;
      do {
        m.run(inputs);
        warm++;
        if (!progress({ done, total })) fail('cancelled', 'benchmark cancelled');
      } while (warm < 2 || performance.now() < warmEnd);
      const times = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        m.run(inputs);
        times.push(performance.now() - t0);
        done++;
        if (!progress({ done, total })) fail('cancelled', 'benchmark cancelled');
      }
      report.models[w] = { median_ms: median(times), min_ms: Math.min(...times), max_ms: Math.max(...times), warmup_runs: warm };
    }
    return { report };
  },

  // Original against optimized, timed honestly: both warmed up, then measured in interleaved
  // rounds (the order alternating each round) so that a slow spell of the machine (another tab, a
  // GC, thermal throttling) hits both alike. A round times a batch of runs long enough (~5 ms)
  // for the timer's resolution; each sample is ms per run. Then one profile of each for the time
  // per layer type. Rounds stop at `rounds` or after `budgetMs` (at least 5 rounds).
  // `pair`: the two models (default original and optimized; the quantize step times original and int8).
  compare(msg, id) {
    const [wa, wb] = msg.pair ?? ['orig', 'opt'];
    const a = model(wa);
    const b = model(wb);
    const rounds = Math.max(5, Math.min(100, msg.rounds ?? 21));
    const budgetMs = msg.budgetMs ?? 4000;
    const progress = progressFor(id, 'timing');
    const ia = nf.randomInputs(a, 0);
    const ib = nf.randomInputs(b, 0);
    const check = (done) => {
      if (!progress({ done, total: rounds + 2 })) fail('cancelled', 'timing cancelled');
    };
    const warm = (m, inputs) => {
      const end = performance.now() + 300;
      const t = [];
      do {
        const t0 = performance.now();
        m.run(inputs);
        t.push(performance.now() - t0);
        check(0);
      } while (t.length < 2 || performance.now() < end);
      return median(t);
    };
    const per = Math.max(1, Math.ceil(5 / Math.max(0.001, Math.min(warm(a, ia), warm(b, ib)))));
    const batch = (m, inputs) => {
      const t0 = performance.now();
      for (let i = 0; i < per; i++) m.run(inputs);
      return (performance.now() - t0) / per;
    };
    const ta = [];
    const tb = [];
    const start = performance.now();
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        ta.push(batch(a, ia));
        tb.push(batch(b, ib));
      } else {
        tb.push(batch(b, ib));
        ta.push(batch(a, ia));
      }
      check(r + 1);
      if (r >= 4 && performance.now() - start > budgetMs) break;
    }
    const byType = (m, inputs) => {
      const rep = m.profile(inputs, { runs: 3 });
      const t = {};
      for (const l of rep.layers) t[l.type] = (t[l.type] ?? 0) + l.ms_mean;
      return t;
    };
    const typesA = byType(a, ia);
    check(rounds + 1);
    const typesB = byType(b, ib);
    return {
      report: {
        build: nf.build,
        threads: nf.threads,
        rounds: ta.length,
        runsPerRound: per,
        orig: { samples: ta, ...spread(ta), types: typesA },
        opt: { samples: tb, ...spread(tb), types: typesB },
      },
    };
  },

  files(msg) {
    const m = model(msg.which);
    const f = m.toNcnn(msg.fp16 === undefined ? undefined : { fp16: !!msg.fp16 });
    // ONNX-imported models also describe their original inputs/outputs (docs/shapes-and-files.md)
    const io = f.ioJson ?? f.io_json ?? f.io ?? null;
    return {
      param: f.paramBytes,
      bin: f.bin,
      ioJson: io,
      warnings: f.warnings,
      transfer: [f.paramBytes.buffer, f.bin.buffer],
    };
  },

  // The original quantized to int8 (it replaces an earlier int8 model). `calibration`: as
  // model.quantize takes it (the page sends picture Files, decoded by nnfold in C++ as the CLI and
  // the package decode them, or tensors it made); or `random`: that many seeded random inputs, for
  // a model whose input is no picture. Returns the report and both models' file sizes.
  async quantize(msg, id) {
    const m = model('orig');
    int8?.dispose();
    int8 = null;
    const reading = progressFor(id, 'reading pictures');
    const quantizing = progressFor(id, 'calibrating and quantizing');
    const calibration = msg.random
      ? Array.from({ length: msg.random }, (_, k) => Object.fromEntries(Object.entries(nf.randomInputs(m, k + 1)).map(([n, v]) => [n, { data: v.data, shape: v.shape }])))
      : msg.calibration;
    const { model: q, report } = await m.quantize({
      calibration,
      method: msg.method,
      maxLayerError: msg.maxLayerError,
      mean: msg.mean,
      norm: msg.norm,
      rgb: msg.rgb,
      onProgress: (p) => (p.stage === 'reading' ? reading(p) : quantizing(p)),
    });
    try {
      const a = m.toNcnn();
      const b = q.toNcnn();
      const r = { report, files: { fp32: { param: a.paramBytes.length, bin: a.bin.length }, int8: { param: b.paramBytes.length, bin: b.bin.length } }, warnings: q.warnings };
      int8 = q;
      return r;
    } catch (e) {
      q.dispose();
      throw e;
    }
  },

  // The original and the int8 model on the same inputs (one set per picture): per output the
  // error (docs/numbers.md's measure, worst over the pictures) and, for an output of one class
  // vector, how often both pick the same top class (`classes: false`: the outputs are a detector's,
  // no class vectors). `keep`: also return every output of both (for the page's face and line
  // decoders).
  agree(msg) {
    const a = model('orig');
    const b = model('int8');
    const per = {};
    const outs = [];
    for (const inputs of msg.inputs) {
      const oa = a.run(inputs);
      const ob = b.run(inputs);
      for (const [name, x] of Object.entries(oa)) {
        const y = ob[name];
        const e = (per[name] ??= { name, shape: x.shape, err: 0, top1: null, samples: 0 });
        e.samples++;
        if (!y || y.data.length !== x.data.length) {
          e.err = null;
          continue;
        }
        if (e.err !== null) {
          const r = relErr(x.data, y.data);
          e.err = r === null ? null : Math.max(e.err, r);
        }
        if (msg.classes !== false && classVector(x)) {
          e.top1 ??= { same: 0, of: 0 };
          e.top1.of++;
          if (argmax(x.data) === argmax(y.data)) e.top1.same++;
        }
      }
      if (msg.keep) outs.push({ fp32: oa, int8: ob });
    }
    const transfer = outs.flatMap((o) => [...Object.values(o.fp32), ...Object.values(o.int8)].map((t) => t.data.buffer));
    return { outputs: Object.values(per), runs: msg.keep ? outs : null, transfer };
  },

  heap() {
    return { heap: nf.heapStats() };
  },
};

self.onmessage = async ({ data }) => {
  const { id, type } = data;
  try {
    if (type !== 'init') {
      if (!nfPromise) fail('internal', 'worker used before init');
      nf = await nfPromise;
    }
    const h = handlers[type];
    if (!h) fail('invalid_argument', `unknown request ${type}`);
    const result = await h(data, id);
    const transfer = result.transfer ?? [];
    delete result.transfer;
    self.postMessage({ id, ok: true, ...result }, transfer);
  } catch (e) {
    self.postMessage({
      id,
      ok: false,
      code: e?.code ?? 'internal',
      message: String(e?.message ?? e),
      warnings: e?.warnings,
    });
  }
};
