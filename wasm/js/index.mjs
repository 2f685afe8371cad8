// nnfold's JavaScript API: the idiomatic layer over the Embind module (wasm/bindings.cpp). One
// place for defaults, argument checks, typed arrays, errors as `Error`s with a `code`, and
// dispose(). Works in Node 20.19+, browser pages and Web Workers, bundled or not; types in
// index.d.ts.
//
// Files next to this one (dist/): nnfold-simd.{mjs,wasm}, nnfold-base.{mjs,wasm}, the threaded
// flavour nnfold-simd-threads.wasm with its browser glue and pthread Worker script
// nnfold-simd-threads.{mjs,worker.js} and its Node ones nnfold-simd-threads-node.{cjs,worker.cjs}.
//
// Bundlers: this file names each .wasm with one literal `new URL('./nnfold-<flavour>.wasm',
// import.meta.url)` (defaultFileUrl below), the form webpack 5, Vite and Rollup's asset plugins
// rewrite into an emitted asset; the glue is reached by a literal dynamic import (a chunk). It
// imports no Node built-in: in Node the .wasm is read with `process.getBuiltinModule('node:fs')`
// (Node 20.16+), which no browser bundler follows, so nothing needs ignoring or polyfilling.

const SIMD_PROBE = new Uint8Array([
  // (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt drop ...)): the probe
  // wasm-feature-detect uses; validates only where SIMD-128 is supported.
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

const isNode = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string' &&
  typeof window === 'undefined' && typeof importScripts !== 'function';

/** Every failure of this package: an Error with a string `code` (see index.d.ts ErrorCode). */
export class NnfoldError extends Error {
  constructor(code, message, options) {
    super(message, options);
    this.name = 'NnfoldError';
    this.code = code;
  }
}

function fail(code, message) {
  throw new NnfoldError(code, message);
}

/** True when this JavaScript engine accepts WebAssembly SIMD-128. */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// The files a flavour loads by default, beside this file. Each is one literal
// `new URL('./file', import.meta.url)` expression on purpose: bundlers only recognise (and emit)
// the asset when the path is a literal string, not a template. Evaluated lazily: in a bundle
// without `import.meta` (an IIFE) it throws, and init() turns that into a wasm_not_found error.
// The threaded flavour's Worker script and the glue it loads are named the same way: the Worker is
// started by Emscripten's glue with a URL this file hands it (locateFile), and the Worker imports
// the glue from the URL it is given (mainScriptUrlOrBlob), so both must be emitted files whose
// URL survives bundling. Node's files (nnfold-simd-threads-node.*) are not named by a literal:
// they are never fetched by a browser, so bundlers need not see them.
function defaultFileUrl(file) {
  switch (file) {
    case 'nnfold-simd.wasm': return new URL('./nnfold-simd.wasm', import.meta.url).href;
    case 'nnfold-base.wasm': return new URL('./nnfold-base.wasm', import.meta.url).href;
    case 'nnfold-simd-threads.wasm': return new URL('./nnfold-simd-threads.wasm', import.meta.url).href;
    case 'nnfold-simd-threads.worker.js': return new URL('./nnfold-simd-threads.worker.js', import.meta.url).href;
    case 'nnfold-simd-threads.mjs': return new URL('./nnfold-simd-threads.mjs', import.meta.url).href;
    default: return new URL(file, hereUrl()).href;
  }
}

// import.meta.url read through a function: webpack replaces a bare `new URL(name, import.meta.url)`
// with a non-literal name by a context module of the whole folder.
function hereUrl() {
  return import.meta.url;
}

const locateHelp = 'pass init({ wasmPaths: \'/folder/with/the/wasm/files/\' }), init({ locateFile: (file) => url }) ' +
  'or init({ wasmBinary: bytes }); the files are nnfold/dist/nnfold-simd.wasm, nnfold/dist/nnfold-base.wasm and, ' +
  'for threads, nnfold/dist/nnfold-simd-threads.wasm with nnfold-simd-threads.worker.js and nnfold-simd-threads.mjs ' +
  '(importable as \'nnfold/nnfold-simd.wasm\', \'nnfold/nnfold-base.wasm\', \'nnfold/nnfold-simd-threads.wasm\', ' +
  '\'nnfold/nnfold-simd-threads.worker.js\' and \'nnfold/nnfold-simd-threads.mjs\')';

// The browser build's pthread Worker script (Emscripten's worker.js: it receives the compiled
// module and imports the glue from the URL it is sent), written in here by wasm/assemble.mjs.
// By default the pool's Workers start from a blob: URL of it rather than from the shipped file:
// bundlers rewrite that small classic script (Vite inlines it as a data: URL, whose opaque
// origin cannot import the glue; Vite's dev server injects an `import` statement into it) and
// Emscripten starts it as a classic Worker. A blob: Worker shares the page's origin and
// cross-origin isolation; a Content-Security-Policy needs `worker-src blob:`, or name the file
// (wasmPaths / locateFile) to start the Workers from it.
const PTHREAD_WORKER_SOURCE = null;

// wasmPaths object keys for the threaded flavour's Worker script and its glue.
const PATH_KEYS = {
  'nnfold-simd-threads.worker.js': 'worker',
  'nnfold-simd-threads.mjs': 'glue',
  'nnfold-simd-threads-node.worker.cjs': 'worker',
  'nnfold-simd-threads-node.cjs': 'glue',
};

// Where one of the package's files is, as a URL string: wasmPaths (a folder, or an object by
// flavour for the .wasm and `worker` / `glue` for the threaded flavour's other files), else
// locateFile, else beside this file. flavour names the .wasm key.
function fileUrl(file, flavour, opts) {
  const wp = opts.wasmPaths;
  try {
    if (typeof wp === 'string' || wp instanceof URL) {
      const dir = String(wp);
      return new URL(file, new URL(dir.endsWith('/') ? dir : dir + '/', baseUrl())).href;
    }
    const key = file.endsWith('.wasm') ? flavour : PATH_KEYS[file];
    if (wp && typeof wp === 'object' && key && wp[key] !== undefined) return new URL(String(wp[key]), baseUrl()).href;
    if (typeof opts.locateFile === 'function') {
      let prefix = '';
      try {
        prefix = new URL('./', import.meta.url).href;
      } catch { /* no import.meta.url (an IIFE bundle): the locator gets an empty prefix */ }
      return new URL(String(opts.locateFile(file, prefix)), baseUrl()).href;
    }
    return defaultFileUrl(file);
  } catch (e) {
    if (e instanceof NnfoldError) throw e;
    throw new NnfoldError('wasm_not_found', `cannot locate ${file}: ${e?.message ?? e}; ${locateHelp}`, { cause: e });
  }
}

function baseUrl() {
  if (typeof location === 'object' && location && location.href) return location.href;
  return import.meta.url;
}

// Node: the .wasm read from disk (a file: URL).
async function readWasmFile(url, file) {
  // process.getBuiltinModule (Node 20.16+) rather than importing node:fs: browser bundlers
  // would try to resolve (and fail on, or polyfill) an import of a Node built-in.
  if (typeof process.getBuiltinModule !== 'function') {
    fail('unsupported', `reading ${file} from disk needs Node 20.16 or later (process.getBuiltinModule); or pass init({ wasmBinary: bytes })`);
  }
  const fs = process.getBuiltinModule('node:fs');
  const { fileURLToPath } = process.getBuiltinModule('node:url');
  try {
    return new Uint8Array(await fs.promises.readFile(fileURLToPath(url)));
  } catch (e) {
    throw new NnfoldError('wasm_not_found', `cannot read ${file} from ${url}: ${e?.message ?? e}; ${locateHelp}`, { cause: e });
  }
}

// Browsers and workers: the response to stream-compile when the server says application/wasm,
// else the bytes. A missing file is a wasm_not_found error, including the HTML page that
// single-page-app servers (a dev server's fallback) answer with status 200.
async function fetchWasm(url, file) {
  let res;
  try {
    res = await fetch(url, { credentials: 'same-origin' });
  } catch (e) {
    throw new NnfoldError('wasm_not_found', `cannot fetch ${file} from ${url}: ${e?.message ?? e}; ${locateHelp}`, { cause: e });
  }
  if (!res.ok) fail('wasm_not_found', `cannot fetch ${file} from ${url}: HTTP ${res.status}; ${locateHelp}`);
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('application/wasm') && typeof WebAssembly.instantiateStreaming === 'function') return res;
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length < 4 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    fail('wasm_not_found', `${url} is not ${file}: the server answered with ${bytes.length} bytes of ` +
      `${type || 'unknown type'}, not a WebAssembly module; ${locateHelp}`);
  }
  return bytes;
}

function toBytes(x, what) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  fail('invalid_argument', `${what} must be a Uint8Array or an ArrayBuffer`);
}

// maxDims: 4 for ncnn blobs; 8 for the original (ONNX) shapes of an imported model's tensors
function checkShape(shape, what, maxDims = 4) {
  if (!Array.isArray(shape) || shape.length < 1 || shape.length > maxDims ||
      !shape.every((d) => Number.isInteger(d) && d >= 1 && d <= 0x7fffffff)) {
    fail('invalid_argument', maxDims === 4
      ? `${what}: a shape is 1 to 4 positive integers, outermost first (e.g. [3, 224, 224])`
      : `${what}: a shape is 1 to ${maxDims} positive integers, outermost first (e.g. [1, 3, 224, 224])`);
  }
  return shape.slice();
}

function normShapes(shapes, maxDims = 4) {
  if (shapes === undefined || shapes === null) return {};
  if (typeof shapes !== 'object' || Array.isArray(shapes)) {
    fail('invalid_argument', maxDims === 4 ? 'shapes must be an object {inputName: [c, h, w]}'
      : 'shapes must be an object {inputName: [d0, d1, ...]}');
  }
  const out = {};
  for (const [k, v] of Object.entries(shapes)) out[k] = checkShape(v, `shape of input '${k}'`, maxDims);
  return out;
}

function checkSeed(seed, what = 'seed') {
  if (seed === undefined) return 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) fail('invalid_argument', `${what} must be an integer in [0, 2^32)`);
  return seed;
}

function optionsOf(o, what) {
  if (o === undefined) return {};
  if (o === null || typeof o !== 'object' || Array.isArray(o)) fail('invalid_argument', `${what} options must be an object`);
  return o;
}

const product = (shape) => shape.reduce((a, b) => a * b, 1);

// Wraps a user progress callback so that it never throws into wasm (an exception unwinding through
// C++ frames would skip destructors): returning false cancels; an exception cancels too and is
// rethrown (instead of the cancellation error) once the call has returned.
function wrapProgress(fn) {
  if (fn === undefined || fn === null) return { cb: undefined, run: (f) => f() };
  if (typeof fn !== 'function') fail('invalid_argument', 'onProgress must be a function');
  let error = null;
  return {
    cb: (done, total, stage) => {
      try {
        return fn(stage === undefined ? { done, total } : { done, total, stage }) !== false;
      } catch (e) {
        error = e;
        return false;
      }
    },
    run(f) {
      let r;
      try {
        r = f();
      } catch (e) {
        if (error) throw error;
        throw e;
      }
      if (error) throw error;
      return r;
    },
  };
}

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((h) => { try { h.delete(); } catch { /* module gone */ } })
  : null;

class Nnfold {
  #M;
  #dead = null;
  #threads;
  #maxThreads;

  constructor(M, build, threads = 1, threadsReason = null) {
    this.#M = M;
    const info = JSON.parse(M.buildInfo());
    /** 'simd-threads', 'simd' or 'base': which WebAssembly flavour runs. */
    this.build = build;
    this.version = info.version;
    this.features = Object.freeze({ ...info.features });
    /** Why more than one thread was asked for and this module runs one, else null. */
    this.threadsReason = threadsReason;
    this.#threads = 1;
    this.#maxThreads = threads;
    live.add(this);
    Object.freeze(this);
  }

  /** Threads the models of this module run on (1 without the threaded flavour). */
  get threads() {
    return this.#threads;
  }

  /** The most threads setThreads() accepts: the pool sized at init() (1 without threads). */
  get maxThreads() {
    return this.#maxThreads;
  }

  /** False once terminate() ended this module. */
  get alive() {
    return this.#dead === null;
  }

  /**
   * Runs later calls on `n` threads, 1 to maxThreads (the pool is sized at init and never
   * grows). Results do not depend on it: every output is summed in one fixed order.
   */
  setThreads(n) {
    if (!Number.isInteger(n) || n < 1 || n > this.#maxThreads) {
      fail('invalid_argument', this.#maxThreads === 1
        ? `threads must be 1: this module is the single-threaded ${this.build} build${this.threadsReason ? ` (${this.threadsReason})` : ''}`
        : `threads must be an integer in [1, ${this.#maxThreads}] (the pool init() started; init({ threads }) sizes it)`);
    }
    if (this.build === 'simd-threads') {
      this._call(this.#M, 'setNumThreads', n);
      unrefWorkers(this.#M);
    }
    this.#threads = n;
  }

  /**
   * Ends this module: the threaded flavour's Workers stop and every later call (and every call on
   * its models) fails. Models need no dispose() after it. Safe to call twice.
   */
  terminate() {
    if (this.#dead) return;
    live.delete(this);
    if (this.build === 'simd-threads') {
      try {
        this.#M.shutdownThreads();
      } catch { /* the module failed earlier: its Workers are ended below all the same */ }
      endWorkers(this.#M);
    }
    this.#dead = 'it was terminated (terminate())';
  }

  // The heap as bytes now. With threads the heap is a SharedArrayBuffer that another thread may
  // have grown: the glue's HEAPU8 is then an old, shorter view until the main thread notices, so
  // the view is rebuilt from the memory itself.
  _heapU8() {
    const M = this.#M;
    const mem = M.wasmMemory;
    if (mem && M.HEAPU8.buffer !== mem.buffer) return new Uint8Array(mem.buffer);
    return M.HEAPU8;
  }

  // Calls a binding method, turning its {value} / {error, code, message} result into a value or
  // an NnfoldError; a trap (which Emscripten cannot recover from) makes the module unusable.
  _call(target, method, ...args) {
    if (this.#dead) {
      if (this.#dead === 'it was terminated (terminate())') fail('invalid_argument', 'this nnfold module was terminated (terminate())');
      fail('internal', `the nnfold module stopped working earlier: ${this.#dead}`);
    }
    let r;
    try {
      r = target[method](...args);
    } catch (e) {
      if (e instanceof NnfoldError) throw e;
      this.#dead = String(e?.message ?? e);
      throw new NnfoldError('internal', `nnfold module failure in ${method}: ${this.#dead}`, { cause: e });
    }
    if (r && r.error) {
      const e = new NnfoldError(r.code, r.message);
      const w = JSON.parse(r.warnings);
      if (w.length) e.warnings = w;
      throw e;
    }
    return r ? r.value : undefined;
  }

  // Copies bytes into malloc'ed heap memory; returns [ptr, len]; the caller frees.
  _copyIn(bytes) {
    const M = this.#M;
    const p = M._malloc(Math.max(bytes.length, 1));
    if (!p) fail('resource_limit', `out of memory: cannot place ${bytes.length} bytes in the WebAssembly heap (at most 4 GB)`);
    this._heapU8().set(bytes, p); // the heap read after malloc: growth replaces it
    return [p, bytes.length];
  }

  _free(p) {
    this.#M._free(p);
  }

  _newHandle() {
    return new this.#M.WasmModel();
  }

  /**
   * Loads an ncnn model: .param text (string or bytes) and .bin bytes, or null for nnfold's seeded
   * random weights.
   */
  loadNcnn(param, bin = null, options) {
    options = optionsOf(options, 'loadNcnn');
    if (typeof param !== 'string') param = toBytes(param, 'param');
    else param = new TextEncoder().encode(param);
    const hasBin = bin !== null && bin !== undefined;
    const binBytes = hasBin ? toBytes(bin, 'bin') : null;
    const opts = {
      seed: checkSeed(options.seed),
      shapes: normShapes(options.shapes),
      simd: options.simd !== false,
      paramName: options.paramName ?? 'model.param',
      binName: options.binName ?? 'model.bin',
      structureOnly: !!options.structureOnly,
    };
    if (options.ioJson !== undefined && options.ioJson !== null) {
      // the OUT.io.json that convert / toNcnn() wrote: text, bytes or the parsed object
      let io = options.ioJson;
      if (io instanceof Uint8Array || io instanceof ArrayBuffer) io = new TextDecoder().decode(toBytes(io, 'ioJson'));
      else if (typeof io === 'object') io = JSON.stringify(io);
      if (typeof io !== 'string') fail('invalid_argument', 'ioJson must be the .io.json text, bytes or object');
      opts.ioJson = io;
      opts.ioJsonName = options.ioJsonName ?? 'model.io.json';
    }
    const h = this._newHandle();
    let pp = 0, bp = 0;
    try {
      const [p, pl] = this._copyIn(param);
      pp = p;
      let bl = 0;
      if (hasBin) [bp, bl] = this._copyIn(binBytes);
      const warnings = JSON.parse(this._call(h, 'loadNcnn', pp, pl, bp, bl, hasBin, JSON.stringify(opts)));
      return new Model(this, h, warnings);
    } catch (e) {
      h.delete();
      throw e;
    } finally {
      if (pp) this._free(pp);
      if (bp) this._free(bp);
    }
  }

  /** Imports an ONNX model (needs a build with ONNX import: see `features.onnx`). */
  loadOnnx(bytes, options) {
    options = optionsOf(options, 'loadOnnx');
    const data = toBytes(bytes, 'onnx bytes');
    // shapes: full ONNX shapes (batch included) by ONNX input name
    const opts = { shapes: normShapes(options.shapes, 8), simd: options.simd !== false };
    const h = this._newHandle();
    let p = 0;
    try {
      let l;
      [p, l] = this._copyIn(data);
      const warnings = JSON.parse(this._call(h, 'loadOnnx', p, l, JSON.stringify(opts)));
      return new Model(this, h, warnings);
    } catch (e) {
      h.delete();
      throw e;
    } finally {
      if (p) this._free(p);
    }
  }

  /**
   * Runs two models on the same seeded random inputs and compares their outputs (docs/numbers.md):
   * per output error and the first layer where they diverge.
   */
  verify(a, b, options) {
    options = optionsOf(options, 'verify');
    if (!(a instanceof Model) || !(b instanceof Model)) fail('invalid_argument', 'verify(a, b) takes two models');
    const opts = { seed: checkSeed(options.seed) };
    if (options.tolerance !== undefined) {
      if (typeof options.tolerance !== 'number' || !(options.tolerance >= 0) || !Number.isFinite(options.tolerance)) {
        fail('invalid_argument', 'tolerance must be a non-negative number');
      }
      opts.tolerance = options.tolerance;
    }
    if (options.divergence !== undefined) opts.divergence = !!options.divergence;
    const pr = wrapProgress(options.onProgress);
    return JSON.parse(pr.run(() => this._call(this.#M, 'verify', a._handle(), b._handle(), JSON.stringify(opts), pr.cb)));
  }

  /** Seeded random inputs (docs/numbers.md): U(-1, 1), one stream in input order. */
  randomInputs(model, seed = 0) {
    if (!(model instanceof Model)) fail('invalid_argument', 'randomInputs(model, seed) takes a model');
    const h = model._handle();
    try {
      const names = JSON.parse(this._call(h, 'randomInputs', checkSeed(seed)));
      const dtypes = new Map(model.inputs.map((io) => [io.name, io.dtype]));
      const out = {};
      for (const n of names) {
        const v = this._call(h, 'inputView', n);
        const dtype = dtypes.get(n) ?? 'float32';
        // integer and bool inputs come back in a typed array run() takes for them (the values,
        // integers in [0, 7] or 0/1, are exact in either type)
        const data = dtype === 'bool' ? Uint8Array.from(v.view) : dtype === 'float32' ? v.view.slice() : Int32Array.from(v.view);
        out[n] = { data, shape: JSON.parse(v.shape), dtype };
      }
      return out;
    } finally {
      h.clearInputs();
    }
  }

  /**
   * Bytes of the WebAssembly heap: `allocated` (live malloc'ed bytes, dlmalloc's mallinfo),
   * `free` (held by the allocator for reuse), `heapSize` (memory.buffer, which only grows).
   */
  heapStats() {
    const s = this.#M.heapStats();
    return { allocated: s.allocated, free: s.free, heapSize: this._heapU8().length };
  }
}

// ---- quantize(): options and calibration items ------------------------------------------------

const QUANT_METHODS = ['kl', 'aciq', 'eq'];

function quantizeOptions(o) {
  const method = o.method ?? 'kl';
  if (!QUANT_METHODS.includes(method)) fail('invalid_argument', `method must be one of ${QUANT_METHODS.map((m) => `'${m}'`).join(', ')} (got ${JSON.stringify(method)})`);
  const out = { method, keepFp32: o.keepFp32 === undefined ? [] : strList(o.keepFp32, 'keepFp32'), optimize: o.optimize !== false };
  if (o.maxLayerError !== undefined) {
    if (typeof o.maxLayerError !== 'number' || !Number.isFinite(o.maxLayerError) || o.maxLayerError < 0) {
      fail('invalid_argument', 'maxLayerError must be a non-negative number (0: no bound)');
    }
    out.maxLayerError = o.maxLayerError;
  }
  return out;
}

// mean / norm: a number or 1 to 4 numbers (one per channel); value = (pixel - mean) * norm, as
// ncnn's substract_mean_normalize.
function quantizePictureOptions(o) {
  const list = (x, what) => {
    if (x === undefined) return [];
    const a = typeof x === 'number' ? [x] : x;
    if (!Array.isArray(a) || a.length < 1 || a.length > 4 || !a.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      fail('invalid_argument', `${what} must be a finite number or an array of 1 to 4 (one per channel)`);
    }
    return a.slice();
  };
  if (o.rgb !== undefined && typeof o.rgb !== 'boolean') fail('invalid_argument', 'rgb must be a boolean (false: BGR)');
  return { mean: list(o.mean, 'mean'), norm: list(o.norm, 'norm'), rgb: o.rgb !== false };
}

function checkSignal(signal) {
  if (signal === undefined || signal === null) return null;
  if (typeof signal !== 'object' || typeof signal.aborted !== 'boolean') fail('invalid_argument', 'signal must be an AbortSignal');
  return signal;
}

function cancelledBy(signal) {
  throw new NnfoldError('cancelled', signal?.aborted ? 'quantize cancelled (the signal was aborted)' : 'quantize cancelled',
    signal?.aborted ? { cause: signal.reason } : undefined);
}

function abortIfAborted(signal) {
  if (signal?.aborted) cancelledBy(signal);
}

const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;

// {bytes, name} for an encoded picture (a Blob read here), else {value}: a tensor or a record by
// input name, told apart once the model's inputs are known (#addTensorSample).
async function calibrationItem(x, i) {
  const what = `calibration[${i}]`;
  if (x instanceof Uint8Array || x instanceof ArrayBuffer) return { bytes: toBytes(x, what), name: what };
  if (isBlob(x)) {
    const name = typeof x.name === 'string' && x.name ? x.name : what;
    let buf;
    try {
      buf = await x.arrayBuffer();
    } catch (e) {
      throw new NnfoldError('invalid_argument', `${name}: cannot read the file: ${e?.message ?? e}`, { cause: e });
    }
    return { bytes: new Uint8Array(buf), name };
  }
  if (x instanceof Float32Array || Array.isArray(x) || (x && typeof x === 'object' && !ArrayBuffer.isView(x))) return { value: x };
  fail('invalid_argument', `${what} must be an encoded PNG/JPEG picture (Uint8Array, ArrayBuffer, Blob) or a tensor ` +
    `({data: Float32Array, shape}, a Float32Array, or {inputName: data}); got ${x === null ? 'null' : ArrayBuffer.isView(x) ? x.constructor.name : typeof x}`);
}

class Model {
  #nf;
  #h;
  #io = null;
  #warnings;

  constructor(nf, h, warnings) {
    this.#nf = nf;
    this.#h = h;
    this.#warnings = warnings;
    registry?.register(this, h, this);
  }

  _handle() {
    if (!this.#h) fail('invalid_argument', 'this model was disposed');
    return this.#h;
  }

  #call(method, ...args) {
    return this.#nf._call(this._handle(), method, ...args);
  }

  #ioInfo() {
    this._handle();
    if (!this.#io) this.#io = JSON.parse(this.#call('ioJson'));
    return this.#io;
  }

  /**
   * Inputs with their shapes, outermost first (null when the model declares none). For an ONNX
   * import (or a .param loaded with its .io.json) the ONNX names and shapes, with `blob` and
   * `layout`.
   */
  get inputs() {
    return this.#ioInfo().inputs.map(ioEntry);
  }

  /** Outputs with their inferred shapes (null when unknown or data-dependent). */
  get outputs() {
    return this.#ioInfo().outputs.map(ioEntry);
  }

  /** True when this model runs SIMD layers. */
  get simd() {
    return this.#ioInfo().simd;
  }

  /** Warnings from loading (and optimizing). */
  get warnings() {
    this._handle();
    return this.#warnings.slice();
  }

  get disposed() {
    return this.#h === null;
  }

  /** Sets input shapes (for inputs that declare none, or to run at another size). */
  setInputShapes(shapes) {
    this.#call('setInputShapes', JSON.stringify(normShapes(shapes)));
    this.#io = null;
  }

  /** Summary: layers, layers by type, weights, estimated memory, inputs/outputs, layer list. */
  info() {
    const j = JSON.parse(this.#call('infoJson'));
    j.warnings = this.#warnings.slice();
    return j;
  }

  /** Nodes and edges for drawing the graph. */
  graph() {
    return JSON.parse(this.#call('graphJson'));
  }

  /** Runs the optimizer; returns its report (docs/optimizer.md). */
  optimize(options) {
    options = optionsOf(options, 'optimize');
    const opts = {
      fp16: !!options.fp16,
      explain: !!options.explain,
      passes: options.passes === undefined ? [] : strList(options.passes, 'passes'),
      keep: options.keep === undefined ? [] : strList(options.keep, 'keep'),
    };
    for (const k of ['cutStart', 'cutEnd']) {
      if (options[k] === undefined || options[k] === null) continue;
      if (typeof options[k] !== 'string') fail('invalid_argument', `${k} must be a layer name`);
      opts[k] = options[k];
    }
    const pr = wrapProgress(options.onProgress);
    const r = pr.run(() => this.#call('optimize', JSON.stringify(opts), pr.cb));
    this.#io = null;
    return JSON.parse(r);
  }

  /**
   * ncnn files: `param` (text), `paramBytes` (the same, as written), `bin`, and `ioJson` (the
   * OUT.io.json text for an ONNX import or a model loaded with one, else null).
   */
  toNcnn(options) {
    options = optionsOf(options, 'toNcnn');
    const fp16 = options.fp16 === undefined ? -1 : options.fp16 ? 1 : 0;
    const { warnings, io_json: ioJson } = JSON.parse(this.#call('toNcnn', fp16));
    const h = this._handle();
    try {
      const paramBytes = h.paramView().slice();
      const bin = h.binView().slice();
      return { param: new TextDecoder().decode(paramBytes), paramBytes, bin, ioJson, warnings };
    } finally {
      h.clearFiles();
    }
  }

  /**
   * Runs the model. inputs: {name: data | {data, shape}}; bare data takes the input's known shape.
   * data by the input's dtype: float32 a Float32Array or number[]; int32/int64 an Int32Array, a
   * BigInt64Array or integer number[] (within +-2^24); bool a Uint8Array or boolean/0-1 array.
   * Returns {name: {data, shape, dtype}} for the model's outputs (or the blobs listed in
   * options.outputs): data a Float32Array, or for an ONNX integer output (TopK/ArgMax indices) an
   * Int32Array and for a bool output a Uint8Array.
   */
  run(inputs, options) {
    options = optionsOf(options, 'run');
    const h = this._handle();
    try {
      this.#setInputs(inputs);
      return this.#runPrepared(options.outputs);
    } finally {
      h.clearInputs();
      h.clearOutputs();
    }
  }

  /** Per-layer times over `runs` runs (after a warm-up run); inputs default to random (seed 0). */
  profile(inputs, options) {
    options = optionsOf(options, 'profile');
    const runs = options.runs ?? 10;
    if (!Number.isInteger(runs) || runs < 1 || runs > 100000) fail('invalid_argument', 'runs must be an integer in [1, 100000]');
    const h = this._handle();
    const pr = wrapProgress(options.onProgress);
    try {
      if (inputs === undefined || inputs === null) this.#call('randomInputs', 0);
      else this.#setInputs(inputs);
      return JSON.parse(pr.run(() => this.#call('profile', runs, pr.cb)));
    } finally {
      h.clearInputs();
    }
  }

  /** Frees the model's memory; any later call fails with an Error. Safe to call twice. */
  dispose() {
    if (!this.#h) return;
    registry?.unregister(this);
    const h = this.#h;
    this.#h = null;
    h.delete();
  }

  #setInputs(inputs) {
    for (const x of this.#checkInputs(inputs)) {
      const view = this.#call('prepareInput', x.name, JSON.stringify(x.shape));
      view.set(x.data); // at once: a later allocation may grow (and detach) the heap
    }
  }

  // Checks `inputs` against the declared inputs: [{name, shape (as the facade takes it), data
  // (the float32 values the graph holds)}].
  #checkInputs(inputs) {
    if (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs) || ArrayBuffer.isView(inputs)) {
      fail('invalid_argument', 'inputs must be an object {inputName: typed array | number[] | {data, shape}}');
    }
    const known = this.#ioInfo().inputs;
    const out = [];
    for (const [name, value] of Object.entries(inputs)) {
      const decl = known.find((x) => x.name === name);
      if (!decl) {
        fail('invalid_argument', `the model has no input named '${name}' (inputs: ${known.map((x) => `'${x.name}'`).join(', ')})`);
      }
      let data, shape;
      const mapped = decl.blob !== undefined;  // an ONNX tensor: its original shape, any rank
      if (isInputData(value)) {
        data = value;
        if (!decl.shape) fail('invalid_argument', `input '${name}' declares no shape: pass {data, shape} or set shapes`);
        shape = decl.shape;
      } else if (value && typeof value === 'object' && 'data' in value) {
        data = value.data;
        if (!isInputData(data)) fail('invalid_argument', `input '${name}': data must be ${expectedData(decl.dtype)}`);
        shape = value.shape === undefined ? decl.shape : checkShape(value.shape, `input '${name}'`, mapped ? 8 : 4);
        if (!shape) fail('invalid_argument', `input '${name}' declares no shape: pass {data, shape} or set shapes`);
        if (mapped && shape.join(',') !== decl.shape.join(',')) {
          fail('shape_mismatch', `input '${name}' of this imported model has the shape [${decl.shape.join(',')}] (layout ` +
            `${decl.layout || 'as declared'}); got [${shape.join(',')}] (other shapes: give them to loadOnnx)`);
        }
      } else {
        fail('invalid_argument', `input '${name}' must be ${expectedData(decl.dtype)} or {data, shape}`);
      }
      if (data.length !== product(shape)) {
        fail('shape_mismatch', `input '${name}' has ${data.length} values; shape [${shape.join(',')}] needs ${product(shape)}`);
      }
      data = toGraphValues(name, decl.dtype, data);
      // an original shape of more than 4 dims travels flat (the facade checks the count)
      out.push({ name, shape: shape.length > 4 ? [product(shape)] : shape, data });
    }
    return out;
  }

  /**
   * Quantizes this fp32 model to int8 (ncnn2table's calibration, ncnn2int8's rewrite) on a
   * calibration set: encoded PNG/JPEG pictures (Uint8Array, ArrayBuffer, Blob/File) resized to
   * the input and normalized with mean/norm/rgb, or tensors ({data, shape}, a Float32Array, or a
   * record by input name). Resolves to {model: a new Model holding the int8 model, report}.
   * Blobs are read first; the rest runs synchronously, so `signal` is seen before that part and
   * at each progress step.
   */
  async quantize(options) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      fail('invalid_argument', 'quantize options must be an object with `calibration` (an array of pictures or tensors)');
    }
    const opts = quantizeOptions(options);
    const signal = checkSignal(options.signal);
    const cal = options.calibration;
    if (!Array.isArray(cal) || cal.length === 0) {
      fail('invalid_argument', 'calibration must be a non-empty array of encoded pictures (Uint8Array, ArrayBuffer, Blob) ' +
        'or tensors ({data, shape}, Float32Array, or {inputName: data} for several inputs)');
    }
    const picture = quantizePictureOptions(options);
    // Blobs (Files) are read before anything touches the module: after this no await, so nothing
    // else can run on this model (or dispose it) between the calls below.
    const items = [];
    for (let i = 0; i < cal.length; i++) items.push(await calibrationItem(cal[i], i));
    abortIfAborted(signal);
    const pr = wrapProgress(options.onProgress);
    const progress = (stage) => (done, total) => {
      if (signal?.aborted) return false;
      return pr.cb ? pr.cb(done, total, stage) : true;
    };
    const h = this._handle();
    const nf = this.#nf;
    let out = null;
    try {
      h.clearSamples();
      const reading = progress('reading');
      for (let i = 0; i < items.length; i++) {
        const it = items[i];
        if (it.bytes) {
          let p = 0;
          try {
            let len;
            [p, len] = nf._copyIn(it.bytes);
            this.#call('pictureSample', p, len, it.name, JSON.stringify(picture));
          } finally {
            if (p) nf._free(p);
          }
        } else {
          this.#addTensorSample(it, i);
        }
        if (!pr.run(() => reading(i + 1, items.length))) cancelledBy(signal);
      }
      out = nf._newHandle();
      const cb = progress('quantizing');
      const r = JSON.parse(pr.run(() => this.#call('quantize', out, JSON.stringify(opts), cb)));
      const model = new Model(nf, out, r.warnings);
      out = null;
      return { model, report: JSON.parse(r.report) };
    } catch (e) {
      // a cancel through the signal reads as such, not as the core's generic "cancelled"
      if (signal?.aborted && e instanceof NnfoldError && e.code === 'cancelled') cancelledBy(signal);
      throw e;
    } finally {
      // (after a trap the module is unusable: the original error is the one to see)
      try {
        if (this.#h) h.clearSamples();
        out?.delete();
      } catch { /* module gone */ }
    }
  }

  // One tensor calibration sample: every input of the model, checked as run() checks inputs.
  #addTensorSample(it, i) {
    const known = this.#ioInfo().inputs;
    const x = it.value;
    // a record by input name when every key names an input; else one input's value
    const keys = isInputData(x) ? [] : Object.keys(x);
    let record = keys.length && keys.every((k) => known.some((io) => io.name === k)) ? x : null;
    if (!record) {
      if (!isInputData(x) && !('data' in x)) {
        fail('invalid_argument', `calibration[${i}]: an object is {data, shape} or {inputName: data} with the model's ` +
          `input names (${known.map((io) => `'${io.name}'`).join(', ')}); got keys ${keys.map((k) => `'${k}'`).join(', ') || 'none'}`);
      }
      if (known.length !== 1) {
        fail('invalid_argument', `calibration[${i}]: this model has ${known.length} inputs ` +
          `(${known.map((x) => `'${x.name}'`).join(', ')}): give each sample as {inputName: data | {data, shape}}`);
      }
      record = { [known[0].name]: x };
    }
    const missing = known.filter((x) => !(x.name in record)).map((x) => `'${x.name}'`);
    if (missing.length) fail('invalid_argument', `calibration[${i}]: no value for input ${missing.join(', ')}`);
    let list;
    try {
      list = this.#checkInputs(record);
    } catch (e) {
      if (e instanceof NnfoldError) throw new NnfoldError(e.code, `calibration[${i}]: ${e.message}`);
      throw e;
    }
    // a sample has the model's input shapes (run() may re-plan for others; calibration cannot)
    for (const x of list) {
      const decl = known.find((io) => io.name === x.name);
      if (decl.shape && decl.blob === undefined && x.shape.join(',') !== decl.shape.join(',')) {
        fail('shape_mismatch', `calibration[${i}]: input '${x.name}' has the shape [${x.shape.join(',')}]; the model takes ` +
          `[${decl.shape.join(',')}]`);
      }
    }
    this.#call('beginSample');
    for (const x of list) {
      const view = this.#call('sampleInput', x.name, JSON.stringify(x.shape));
      view.set(x.data); // at once: a later allocation may grow (and detach) the heap
    }
  }

  #runPrepared(wanted) {
    const w = wanted === undefined ? [] : strList(wanted, 'outputs');
    const r = JSON.parse(this.#call('run', JSON.stringify(w)));
    const out = {};
    const dtypes = new Map(this.#ioInfo().outputs.map((io) => [io.name, io.dtype]));
    for (const o of r.outputs) {
      const view = this.#call('outputView', o.name);
      // index-valued outputs (TopK, ArgMax: ONNX int64/int32) come back as an Int32Array and
      // boolean ones as a Uint8Array (docs/shapes-and-files.md); the graph holds them as float32
      // integers below 2^24, so the conversion is exact
      const dtype = dtypes.get(o.name) ?? 'float32';
      const data = dtype === 'float32' ? view.slice()
        : dtype === 'bool' ? Uint8Array.from(view, (v) => (v !== 0 ? 1 : 0)) : Int32Array.from(view, (v) => Math.round(v));
      out[o.name] = { data, shape: o.shape, dtype };
    }
    return out;
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Model.prototype[Symbol.dispose] = function dispose() {
    this.dispose();
  };
}

function ioEntry(x) {
  const e = { name: x.name, shape: x.shape, dtype: x.dtype, dim_names: x.dim_names.slice() };
  if (x.blob !== undefined) {
    e.blob = x.blob;
    e.layout = x.layout;
  }
  return e;
}

// Element types at the interface (docs/shapes-and-files.md): an ONNX int32/int64/bool input is
// held as float32 values inside the graph, so its integers must lie within +-2^24, the range in
// which float32 holds every integer exactly.
const INT_LIMIT = 1 << 24;

function isInputData(x) {
  return Array.isArray(x) || x instanceof Float32Array || x instanceof Int32Array ||
    (typeof BigInt64Array === 'function' && x instanceof BigInt64Array) || x instanceof Uint8Array;
}

function expectedData(dtype) {
  if (dtype === 'bool') return 'a Uint8Array or an array of booleans or 0/1 numbers';
  if (dtype === 'int32' || dtype === 'int64') return 'an Int32Array, a BigInt64Array or an array of integers';
  return 'a Float32Array or an array of numbers';
}

function kindOf(data) {
  return Array.isArray(data) ? 'an array' : data.constructor.name;
}

// The input's values as the Float32Array the graph holds, after checking the array kind against
// the input's dtype and each integer against +-2^24.
function toGraphValues(name, dtype, data) {
  const wrongKind = () => fail('invalid_argument', `input '${name}' (${dtype}) takes ${expectedData(dtype)}; got ${kindOf(data)}`);
  if (dtype === 'int32' || dtype === 'int64') {
    const big = typeof BigInt64Array === 'function' && data instanceof BigInt64Array;
    if (!big && !(data instanceof Int32Array) && !Array.isArray(data)) wrongKind();
    const out = new Float32Array(data.length);
    for (let k = 0; k < data.length; k++) {
      const v = data[k];
      if (big) {
        if (v > BigInt(INT_LIMIT) || v < -BigInt(INT_LIMIT)) beyond(name, v, k);
        out[k] = Number(v);
        continue;
      }
      if (typeof v !== 'number' || !Number.isInteger(v)) {
        fail('invalid_argument', `input '${name}' (${dtype}): value ${String(v)} at ${k} is not an integer`);
      }
      if (v > INT_LIMIT || v < -INT_LIMIT) beyond(name, v, k);
      out[k] = v;
    }
    return out;
  }
  if (dtype === 'bool') {
    if (!(data instanceof Uint8Array) && !Array.isArray(data)) wrongKind();
    const out = new Float32Array(data.length);
    for (let k = 0; k < data.length; k++) {
      const v = data[k];
      if (typeof v !== 'boolean' && v !== 0 && v !== 1 && !(data instanceof Uint8Array)) {
        fail('invalid_argument', `input '${name}' (bool): value ${String(v)} at ${k} is not a boolean, 0 or 1`);
      }
      out[k] = v ? 1 : 0;  // a Uint8Array byte is true when nonzero, as in ONNX
    }
    return out;
  }
  if (!(data instanceof Float32Array) && !Array.isArray(data)) wrongKind();
  return data;
}

function beyond(name, v, k) {
  fail('invalid_argument', `input '${name}': value ${String(v)} at ${k} is beyond +-2^24, which float32 cannot hold ` +
    'exactly inside the graph');
}

function strList(x, what) {
  if (!Array.isArray(x) || !x.every((s) => typeof s === 'string')) fail('invalid_argument', `${what} must be an array of strings`);
  return x.slice();
}

// Thread counts (docs: README "Threads"): the default is the cores this context reports, at most
// DEFAULT_MAX_THREADS; an explicit count may go up to MAX_THREADS (each thread is a Worker).
const DEFAULT_MAX_THREADS = 8;
const MAX_THREADS = 64;

function availableCores() {
  try {
    if (isNode) {
      const os = typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('node:os') : null;
      if (os) return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
      return 1;
    }
    const n = globalThis.navigator?.hardwareConcurrency;
    return Number.isInteger(n) && n >= 1 ? n : 1;
  } catch {
    return 1;
  }
}

/** The thread count init() uses when `threads` is not given: the cores, at most 8. */
export function defaultThreads() {
  return Math.max(1, Math.min(DEFAULT_MAX_THREADS, availableCores()));
}

/**
 * Why this context cannot run the threaded flavour, or null when it can: WebAssembly SIMD-128,
 * SharedArrayBuffer and, in browsers, a cross-origin isolated page (COOP/COEP headers) that can
 * start Workers.
 */
export function threadsUnavailableReason() {
  if (!simdSupported()) return 'the threaded build needs WebAssembly SIMD-128, which this engine lacks';
  if (typeof SharedArrayBuffer !== 'function') {
    return isNode ? 'this Node has no SharedArrayBuffer'
      : 'SharedArrayBuffer is not available: the page is not cross-origin isolated (serve it with the headers ' +
        'Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)';
  }
  if (isNode) return typeof process.getBuiltinModule === 'function' ? null : 'threads in Node need Node 20.16 or later (process.getBuiltinModule)';
  if (globalThis.crossOriginIsolated !== true) {
    return 'the page is not cross-origin isolated (serve it with the headers Cross-Origin-Opener-Policy: same-origin ' +
      'and Cross-Origin-Embedder-Policy: require-corp)';
  }
  if (typeof Worker !== 'function') return 'this context cannot start Workers';
  return null;
}

function checkThreads(n) {
  if (n === undefined || n === null) return undefined;
  if (!Number.isInteger(n) || n < 1 || n > MAX_THREADS) fail('invalid_argument', `threads must be an integer in [1, ${MAX_THREADS}]`);
  return n;
}

// Modules that init() started and terminate() has not ended.
const live = new Set();

/**
 * Ends every module init() started: the threaded flavour's Workers stop (Node scripts exit even
 * without it: the Workers are unref'ed); every later call on those modules and their models fails.
 * Safe to call twice.
 */
export function terminate() {
  for (const nf of [...live]) nf.terminate();
}

// Browsers: a Worker script (or the glue it imports) that is missing makes the Worker fail
// asynchronously, where Emscripten 3.1.6 cannot report it (init would wait forever): check first.
async function checkScript(url, file) {
  let res;
  try {
    res = await fetch(url, { credentials: 'same-origin' });
  } catch (e) {
    throw new NnfoldError('wasm_not_found', `cannot fetch ${file} from ${url}: ${e?.message ?? e}; ${locateHelp}`, { cause: e });
  }
  if (!res.ok) fail('wasm_not_found', `cannot fetch ${file} from ${url}: HTTP ${res.status}; ${locateHelp}`);
  const type = res.headers.get('content-type') ?? '';
  await res.arrayBuffer().catch(() => {});
  if (type.startsWith('text/html')) {
    fail('wasm_not_found', `${url} is not ${file}: the server answered with an HTML page; ${locateHelp}`);
  }
}

// Node: a file that is missing is reported before the glue tries it (a Worker that cannot load its
// script throws an uncaught error in Node, out of init's reach).
function nodeFilePath(url, file) {
  if (!url.startsWith('file:')) {
    fail('wasm_not_found', `in Node, ${file} must be a file: URL or path (got ${url}); ${locateHelp}`);
  }
  const fs = process.getBuiltinModule('node:fs');
  const { fileURLToPath } = process.getBuiltinModule('node:url');
  const p = fileURLToPath(url);
  if (!fs.existsSync(p)) fail('wasm_not_found', `cannot read ${file} from ${url}: no such file; ${locateHelp}`);
  return p;
}

/**
 * Loads the WebAssembly module. Flavours: 'simd-threads' (SIMD-128 + a pool of Workers), when
 * more than one thread is asked for (the default: the cores, at most 8) and the context allows it
 * (threadsUnavailableReason), else 'simd' when the engine validates a SIMD probe, else 'base'
 * (`simd: false` forces the baseline, single-threaded). In Node the files are read from disk; in
 * browsers and workers they are fetched from next to this file, or from `wasmPaths` / `locateFile`.
 */
export async function init(options) {
  options = optionsOf(options, 'init');
  const supported = simdSupported();
  if (options.simd === true && !supported) fail('unsupported', 'this engine does not support WebAssembly SIMD');
  const explicitThreads = checkThreads(options.threads);
  const hasBinary = options.wasmBinary !== undefined && options.wasmBinary !== null;
  // wasmBinary holds one flavour's bytes: without an explicit thread count they are the
  // single-threaded flavour's, as before threads existed.
  const asked = explicitThreads ?? (hasBinary ? 1 : defaultThreads());
  let flavour = options.simd === false ? 'base' : supported ? 'simd' : 'base';
  let threadsReason = null;
  if (asked > 1) {
    threadsReason = options.simd === false ? 'simd: false asks for the baseline build, which is single-threaded'
      : threadsUnavailableReason();
    if (!threadsReason) flavour = 'simd-threads';
  }
  const threads = flavour === 'simd-threads' ? asked : 1;
  const nodeThreads = flavour === 'simd-threads' && isNode;
  const fileBase = nodeThreads ? 'nnfold-simd-threads-node' : `nnfold-${flavour}`;
  // one .wasm per flavour: the threaded flavour's Node glue loads the browser build's module
  // (the same bytes; wasm/assemble.mjs checks it)
  const file = `nnfold-${flavour}.wasm`;
  const moduleArgs = {};
  let glue;
  if (nodeThreads) {
    // CommonJS glue for Node's worker_threads, loaded through require so that no bundler follows it.
    const gluePath = nodeFilePath(fileUrl('nnfold-simd-threads-node.cjs', flavour, options), 'nnfold-simd-threads-node.cjs');
    const workerPath = nodeFilePath(fileUrl('nnfold-simd-threads-node.worker.cjs', flavour, options), 'nnfold-simd-threads-node.worker.cjs');
    const { createRequire } = process.getBuiltinModule('node:module');
    try {
      glue = { default: createRequire(hereUrl())(gluePath) };
    } catch (e) {
      throw new NnfoldError('wasm_not_found', `cannot load ${gluePath}: ${e?.message ?? e}`, { cause: e });
    }
    moduleArgs.mainScriptUrlOrBlob = gluePath;
    moduleArgs.workerPath = workerPath;
  } else {
    try {
      glue = flavour === 'simd' ? await import('./nnfold-simd.mjs')
        : flavour === 'base' ? await import('./nnfold-base.mjs')
          : await import('./nnfold-simd-threads.mjs');
    } catch (e) {
      throw new NnfoldError('wasm_not_found', `cannot load ${fileBase}.mjs, the JavaScript glue beside nnfold's index.mjs ` +
        `(a bundler must keep it as a chunk): ${e?.message ?? e}`, { cause: e });
    }
    if (flavour === 'simd-threads') {
      const wp = options.wasmPaths;
      const namedWorker = typeof options.locateFile === 'function' || typeof wp === 'string' || wp instanceof URL ||
        (wp && typeof wp === 'object' && wp.worker !== undefined);
      const glueUrl = fileUrl('nnfold-simd-threads.mjs', flavour, options);
      let workerUrl;
      if (!namedWorker && PTHREAD_WORKER_SOURCE) {
        workerUrl = URL.createObjectURL(new Blob([PTHREAD_WORKER_SOURCE], { type: 'text/javascript' }));
        await checkScript(glueUrl, 'nnfold-simd-threads.mjs');
      } else {
        workerUrl = fileUrl('nnfold-simd-threads.worker.js', flavour, options);
        await Promise.all([checkScript(workerUrl, 'nnfold-simd-threads.worker.js'), checkScript(glueUrl, 'nnfold-simd-threads.mjs')]);
      }
      moduleArgs.mainScriptUrlOrBlob = glueUrl;
      moduleArgs.workerPath = workerUrl;
    }
  }
  let url = null;
  // Always a locateFile: without one the glue computes its own `new URL(file, import.meta.url)`,
  // which throws a bare TypeError where a bundle has no import.meta.url (an IIFE).
  const workerPath = moduleArgs.workerPath;
  delete moduleArgs.workerPath;
  moduleArgs.locateFile = (path) => (path.endsWith('.wasm') && url ? url : path.endsWith('.worker.js') && workerPath ? workerPath : path);
  if (flavour === 'simd-threads') moduleArgs.nnfoldPoolSize = poolSize(threads);
  let rejectStart = null;
  const startFailed = new Promise((_, reject) => { rejectStart = reject; });
  if (hasBinary) {
    moduleArgs.wasmBinary = toBytes(options.wasmBinary, 'wasmBinary');
  } else {
    url = fileUrl(file, flavour, options);
    if (isNode && url.startsWith('file:')) {
      moduleArgs.wasmBinary = await readWasmFile(url, file);
    } else {
      const source = await fetchWasm(url, file);
      if (source instanceof Uint8Array) {
        moduleArgs.wasmBinary = source;
      } else {
        // Compiles while downloading. Emscripten never settles its promise when this hook fails
        // asynchronously, so the failure rejects startFailed, which init() races against it.
        moduleArgs.instantiateWasm = (imports, receive) => {
          WebAssembly.instantiateStreaming(source, imports).then((r) => receive(r.instance, r.module), rejectStart);
          return {};
        };
      }
    }
  }
  // Emscripten's own messages while starting go into the error, not the console. A pool Worker
  // that fails to start is only reported through printErr ("worker sent an error!"): it ends the
  // start instead of leaving init() waiting for that Worker forever.
  let starting = true;
  const startLog = [];
  moduleArgs.print = (s) => console.log(s);
  moduleArgs.printErr = (s) => {
    if (!starting) return console.warn(s);
    startLog.push(String(s));
    if (/sent an error/.test(String(s))) rejectStart(new Error(String(s)));
  };
  let M;
  try {
    M = await Promise.race([glue.default(moduleArgs), startFailed]);
  } catch (e) {
    const why = startLog.length ? startLog.join('; ') : String(e?.message ?? e);
    endWorkers(moduleArgs);
    throw new NnfoldError('internal', `cannot start the nnfold WebAssembly module (${flavour}) from ${url ?? 'the given bytes'}: ${why}`, { cause: e });
  } finally {
    starting = false;
  }
  const nf = new Nnfold(M, flavour, threads, threadsReason);
  if (flavour === 'simd-threads') {
    try {
      nf.setThreads(threads);
    } catch (e) {
      nf.terminate();
      throw e;
    }
  }
  return nf;
}

// Workers in the Emscripten pool for a module of `threads` threads: the calling thread computes
// too (src/core/parallel.h), so threads - 1 Workers.
function poolSize(threads) {
  return Math.max(1, threads - 1);
}

// The Workers of a threaded module (Emscripten's PThread: the pool and those running threads).
function workersOf(M) {
  const P = M?.PThread;
  return P ? [...(P.unusedWorkers ?? []), ...(P.runningWorkers ?? [])] : [];
}

// Node: Emscripten 3.1.6 never unrefs its Workers, so a script that loaded the threaded flavour
// would never exit. Unref'ed, they no longer hold the event loop (the pool never grows, so once
// after start and once after threads are created covers every Worker).
function unrefWorkers(M) {
  if (!isNode) return;
  for (const w of workersOf(M)) if (typeof w.unref === 'function') w.unref();
}

// Stops every Worker of a module (or of a failed start's Module object).
function endWorkers(M) {
  try {
    if (M?.PThread?.terminateAllThreads) M.PThread.terminateAllThreads();
    else for (const w of workersOf(M)) w.terminate();
  } catch {
    for (const w of workersOf(M)) { try { w.terminate(); } catch { /* gone */ } }
  }
}

export { Model };
export default init;
