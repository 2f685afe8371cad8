#!/usr/bin/env node
// The npm package's `nnfold` command: the same subcommands, flags, outputs and exit codes as the
// native CLI (src/cli/, CONVENTIONS sections 2 and 7), on the package's WebAssembly module.
// Files are read and written here; everything else goes through the same C++ facade
// (src/api/ModelHandle) the native CLI uses, so outputs are the same bytes.
//
// Exit codes: 0 success, 1 bad input or failed check, 2 usage error, 3 internal error.
// NNFOLD_WASM=base|simd picks the WebAssembly flavour (default: SIMD when supported).
import fs from 'node:fs';
import path from 'node:path';
import { init, NnfoldError } from '../dist/index.mjs';

const kOk = 0, kBadInput = 1, kUsage = 2, kInternal = 3;

const out = (s) => process.stdout.write(s);
const err = (s) => process.stderr.write(s);

class UsageExit extends Error {}

// --name[=value] options; a value may follow as the next argument for value options (native
// parse_args). Returns null after printing the problem.
function parseArgs(argv, flags, takesValue) {
  const a = { positional: [], options: [] };
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i];
    if (s.length > 2 && s.startsWith('--')) {
      let key = s.slice(2), val = '';
      const eq = key.indexOf('=');
      const hasVal = eq >= 0;
      if (hasVal) {
        val = key.slice(eq + 1);
        key = key.slice(0, eq);
      }
      const isFlag = flags.includes(key), isVal = takesValue.includes(key);
      if (!isFlag && !isVal) {
        err(`unknown option --${key} (see --help)\n`);
        return null;
      }
      if (isVal && !hasVal) {
        if (i + 1 >= argv.length) {
          err(`option --${key} needs a value\n`);
          return null;
        }
        val = argv[++i];
      }
      if (isFlag && hasVal && !isVal) {
        err(`option --${key} takes no value\n`);
        return null;
      }
      a.options.push([key, val]);
    } else {
      a.positional.push(s);
    }
  }
  a.has = (k) => a.options.some(([key]) => key === k);
  a.get = (k, def = '') => a.options.find(([key]) => key === k)?.[1] ?? def;
  a.all = (k) => a.options.filter(([key]) => key === k).map(([, v]) => v);
  return a;
}

class CliError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
const invalidArgument = (m) => new CliError('invalid_argument', m);

function exitCodeFor(e) {
  return e.code === 'internal' ? kInternal : kBadInput;
}

function report(cmd, e) {
  err(`nnfold ${cmd}: error: ${e.message}\n`);
  return exitCodeFor(e);
}

function printWarnings(list) {
  for (const w of list ?? []) err(`warning: ${w}\n`);
}

const strerror = {
  ENOENT: 'No such file or directory', EACCES: 'Permission denied', EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory', EROFS: 'Read-only file system', ENOSPC: 'No space left on device',
};

function readFile(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch (e) {
    throw invalidArgument(`cannot open ${p}: ${strerror[e.code] ?? e.message}`);
  }
  if (st.isFile() && st.size > 2 * 1024 * 1024 * 1024) throw new CliError('resource_limit', `${p} is larger than 2 GB`);
  try {
    return fs.readFileSync(p);
  } catch (e) {
    if (e.code === 'EISDIR') throw invalidArgument(`error reading ${p}`);
    throw invalidArgument(`cannot open ${p}: ${strerror[e.code] ?? e.message}`);
  }
}

function writeFile(p, data) {
  try {
    fs.writeFileSync(p, data);
  } catch (e) {
    throw invalidArgument(`cannot write ${p}: ${strerror[e.code] ?? e.message}`);
  }
}

function makeDirs(p) {
  try {
    fs.mkdirSync(p, { recursive: true });
  } catch (e) {
    throw invalidArgument(`cannot create directory ${p}: ${strerror[e.code] ?? e.message}`);
  }
}

// CONVENTIONS section 4: every byte outside [A-Za-z0-9._-] as %XX.
function escapeFileName(name) {
  let s = '';
  for (const b of new TextEncoder().encode(name)) {
    const c = String.fromCharCode(b);
    s += /[A-Za-z0-9._-]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  if (s === '.') return '%2E';
  if (s === '..') return '%2E%2E';
  return s;
}

// parse_int_token: optional sign, digits, fits int32.
function parseIntToken(t) {
  if (!/^[+-]?\d+$/.test(t)) return null;
  const v = Number(t);
  if (!Number.isSafeInteger(v) || v > 2147483647 || v < -2147483648) return null;
  return v;
}

function parseShapes(specs) {
  const shapes = {};
  for (const s of specs) {
    const eq = s.lastIndexOf('=');
    if (eq <= 0) throw invalidArgument(`--shape expects NAME=c,h,w, got '${s}'`);
    const name = s.slice(0, eq), dims = s.slice(eq + 1);
    const list = [];
    for (const tok of dims.split(',')) {
      const v = parseIntToken(tok);
      if (v === null || v <= 0) throw invalidArgument(`--shape ${s}: dimensions must be positive integers`);
      list.push(v);
    }
    if (list.length > 4 || list.reduce((a, b) => a * b, 1) >= 2 ** 62) {
      throw invalidArgument(`--shape ${s}: 1 to 4 dimensions, outermost first (c,h,w)`);
    }
    shapes[name] = list;
  }
  return shapes;
}

// --shape for an .onnx model: the full ONNX shape, batch included (native parse_onnx_shapes).
function parseOnnxShapes(specs) {
  const shapes = {};
  for (const s of specs) {
    const eq = s.lastIndexOf('=');
    if (eq <= 0) throw invalidArgument(`--shape expects NAME=d0,d1,..., got '${s}'`);
    const name = s.slice(0, eq), dims = s.slice(eq + 1);
    const list = [];
    for (const tok of dims.split(',')) {
      const v = parseIntToken(tok);
      if (v === null || v <= 0) throw invalidArgument(`--shape ${s}: dimensions must be positive integers`);
      list.push(v);
    }
    if (list.length > 8) throw invalidArgument(`--shape ${s}: at most 8 dimensions`);
    shapes[name] = list;
  }
  return shapes;
}

const isOnnxPath = (p) => p.length >= 5 && p.slice(-5).toLowerCase() === '.onnx';

// X.param -> X.io.json (other names: X + '.io.json'), as native io_json_path
function ioJsonPath(p) {
  return p.length > 6 && p.endsWith('.param') ? p.slice(0, -6) + '.io.json' : p + '.io.json';
}

// --shape values as the model takes them (native parse_model_shapes)
const parseModelShapes = (modelPath, specs) => (isOnnxPath(modelPath) ? parseOnnxShapes(specs) : parseShapes(specs));

function parseSeed(s) {
  if (s === '' || s.length > 10 || !/^[0-9]+$/.test(s)) throw invalidArgument(`--seed expects a non-negative integer, got '${s}'`);
  const v = Number(s);
  if (v > 0xffffffff) throw invalidArgument('--seed must fit in 32 bits');
  return v;
}

// Usage errors of option values print the message and exit 2 (native: report() then kUsage).
function usageValue(cmd, fn) {
  try {
    return fn();
  } catch (e) {
    report(cmd, e);
    throw new UsageExit();
  }
}

let nfPromise = null;
function nnfold() {
  const which = process.env.NNFOLD_WASM;
  nfPromise ??= init(which === 'base' ? { simd: false } : which === 'simd' ? { simd: true } : {});
  return nfPromise;
}

// Loads a model through the facade; load warnings are printed before any error (as natively).
// An .onnx file is imported; a .param takes the X.io.json beside it when present (native
// load_cli_model).
async function loadModel(paramPath, binPath, opts, printAlways = true) {
  const nf = await nnfold();
  const hasBin = binPath !== null && binPath !== 'null' && binPath !== '';
  if (isOnnxPath(paramPath)) {
    if (hasBin) throw invalidArgument('an .onnx file carries its weights; give no .bin');
    const bytes = readFile(paramPath);
    try {
      const m = nf.loadOnnx(bytes, { shapes: opts.shapes, simd: opts.simd });
      if (printAlways) printWarnings(m.warnings);
      return m;
    } catch (e) {
      printWarnings(e.warnings);
      if (e instanceof NnfoldError) throw new CliError(e.code, `${paramPath}: ${e.message}`);
      throw e;
    }
  }
  const param = readFile(paramPath);
  const bin = hasBin ? readFile(binPath) : null;
  const ioPath = ioJsonPath(paramPath);
  const io = fs.existsSync(ioPath) ? { ioJson: readFile(ioPath), ioJsonName: ioPath } : {};
  try {
    const m = nf.loadNcnn(param, bin, { ...opts, ...io, paramName: paramPath, binName: hasBin ? binPath : '' });
    if (printAlways) printWarnings(m.warnings);
    return m;
  } catch (e) {
    printWarnings(e.warnings);
    throw e;
  }
}

const kRunHelp =
  'usage: nnfold run MODEL.param [MODEL.bin|null] [options]\n' +
  '       nnfold run MODEL.onnx [options]\n' +
  '\n' +
  'Runs a model once. Without a .bin (or with \'null\') the weights are nnfold\'s seeded random\n' +
  'weights. Inputs not given with --input get seeded random values in [-1, 1] (one stream, in\n' +
  'the model\'s input order). An .onnx model, or a .param with the MODEL.io.json that convert\n' +
  'writes beside it, takes and gives tensors under the ONNX names, shapes and layouts.\n' +
  '\n' +
  'options:\n' +
  '  --input NAME=FILE.f32   raw little-endian float32 input, outermost-first, dense\n' +
  '  --shape NAME=c,h,w      input shape (needed when the model declares none); for .onnx\n' +
  '                          models the full ONNX shape, e.g. --shape input=1,3,224,224\n' +
  '  --seed N                seed for random weights and inputs (default 0)\n' +
  '  --output NAME           blob to extract (repeatable; default: the model\'s outputs)\n' +
  '  --output-dir DIR        write DIR/<escaped blob name>.f32 per output and DIR/summary.json\n' +
  '  --reference             use the scalar reference layers instead of the optimized ones\n' +
  '                          (--no-simd is an older name for it)\n' +
  '  --runs N                run N times after the warm-up and report the median time (default 1)\n' +
  '  --warmup W              untimed runs before the timed ones (default 0, or 3 with --runs > 1:\n' +
  '                          wasm engines optimize hot code after it has run for a while)\n' +
  'Prints the summary JSON (per output: shape, min, max, mean, first values) to stdout; with\n' +
  '--runs or --warmup also runs: {count, warmup, median_ms, min_ms, max_ms, median_cpu_ms}.\n';

// CPU time of this (main) thread in ms, as the native CLI's wasm build measures it
// (src/cli/cpu_clock.cpp): Linux's /proc/thread-self/schedstat, else null.
function cpuMs() {
  try {
    const ns = Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

function countOption(a, name, lo) {
  if (!a.has(name)) return null;
  const v = a.get(name);
  const n = v.length <= 12 && /^-?[0-9]+$/.test(v) ? Number(v) : NaN;
  if (!(n >= lo && n <= 100000)) {
    err(`nnfold run: --${name} expects an integer from ${lo} to 100000, got '${v}'\n`);
    throw new UsageExit();
  }
  return n;
}

async function cmdRun(argv) {
  const a = parseArgs(argv, ['help', 'no-simd', 'reference'],
    ['input', 'shape', 'seed', 'output', 'output-dir', 'runs', 'warmup']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kRunHelp), kOk;
  if (a.positional.length < 1 || a.positional.length > 2) return err(kRunHelp), kUsage;
  const runs = countOption(a, 'runs', 1) ?? 1;
  const warmup = countOption(a, 'warmup', 0) ?? (runs > 1 ? 3 : 0);
  const seed = usageValue('run', () => (a.has('seed') ? parseSeed(a.get('seed')) : 0));
  const shapes = usageValue('run', () => parseModelShapes(a.positional[0], a.all('shape')));
  const simd = !a.has('no-simd') && !a.has('reference');  // false: the reference layers
  const model = await loadModel(a.positional[0], a.positional[1] ?? 'null', { seed, shapes, simd });
  try {
    const inputs = {};
    for (const spec of a.all('input')) {
      const eq = spec.indexOf('=');
      if (eq <= 0) {
        err(`nnfold run: --input expects NAME=FILE.f32, got '${spec}'\n`);
        return kUsage;
      }
      const name = spec.slice(0, eq), file = spec.slice(eq + 1);
      // original (ONNX) names of a mapped model, whose blob names are accepted too
      const decl = model.inputs.find((x) => x.name === name || (x.blob !== undefined && x.blob === name));
      if (!decl) throw invalidArgument(`the model has no input named '${name}'`);
      if (decl.blob !== undefined) {
        // the original shape and layout, dense
        const bytes = readFile(file);
        const need = decl.shape.reduce((x, y) => x * y, 1) * 4;
        if (bytes.length !== need) throw invalidArgument(`${file} has ${bytes.length} bytes; input '${decl.name}' needs ${need}`);
        const data = new Float32Array(need / 4);
        new Uint8Array(data.buffer).set(bytes);
        inputs[decl.name] = { data, shape: decl.shape };
        continue;
      }
      if (!decl.shape) throw invalidArgument(`input '${name}' declares no shape; give one with --shape ${name}=c,h,w`);
      const bytes = readFile(file);
      const need = decl.shape.reduce((x, y) => x * y, 1) * 4;
      if (bytes.length !== need) {
        throw invalidArgument(`${file} has ${bytes.length} bytes; input '${name}' of shape [${decl.shape.join(',')}] needs ${need}`);
      }
      const data = new Float32Array(need / 4);
      new Uint8Array(data.buffer).set(bytes);
      inputs[name] = { data, shape: decl.shape };
    }
    const dir = a.get('output-dir');
    let r;
    const times = [], cpuTimes = [];
    for (let i = 0; i < warmup + runs; i++) {
      const c0 = cpuMs();
      r = model._cliRun(inputs, seed, a.all('output'), dir ? (n) => escapeFileName(n) + '.f32' : null);
      const c1 = cpuMs();
      if (i >= warmup) {
        times.push(JSON.parse(r.summary).ms);
        if (c0 !== null && c1 !== null) cpuTimes.push(c1 - c0);
      }
    }
    if (runs > 1 || warmup > 0) {
      const median = (v) => {
        const s = [...v].sort((x, y) => x - y), n = s.length;
        return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
      };
      const summary = JSON.parse(r.summary);
      summary.runs = { count: times.length, warmup, median_ms: median(times), min_ms: Math.min(...times),
        max_ms: Math.max(...times), ...(cpuTimes.length === times.length ? { median_cpu_ms: median(cpuTimes) } : {}) };
      r.summary = JSON.stringify(summary, null, 2) + '\n';
    }
    if (dir) {
      makeDirs(dir);
      for (const name of r.order) {
        const o = r.outputs[name];
        writeFile(path.join(dir, r.files[name]), new Uint8Array(o.data.buffer, o.data.byteOffset, o.data.byteLength));
      }
      writeFile(path.join(dir, 'summary.json'), r.summary);
    }
    out(r.summary);
    return kOk;
  } finally {
    model.dispose();
  }
}

const kInfoHelp =
  'usage: nnfold info MODEL.param [MODEL.bin] [--json] [--shape NAME=c,h,w]\n' +
  '       nnfold info MODEL.onnx [--json] [--shape NAME=d0,d1,...]\n' +
  '\n' +
  'Shows layers by type, inputs and outputs with inferred shapes, weight sizes and the\n' +
  'estimated peak memory (live tensors + weights). With a .bin, its storage is checked too.\n' +
  'An .onnx model (imported), or a .param with the MODEL.io.json that convert writes beside it,\n' +
  'shows its inputs and outputs under the ONNX names, shapes and layouts.\n';

async function cmdInfo(argv) {
  const a = parseArgs(argv, ['help', 'json'], ['shape']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kInfoHelp), kOk;
  const onnx = a.positional.length >= 1 && isOnnxPath(a.positional[0]);
  if (a.positional.length < 1 || a.positional.length > (onnx ? 1 : 2)) return err(kInfoHelp), kUsage;
  const shapes = usageValue('info', () => parseModelShapes(a.positional[0], a.all('shape')));
  const model = await loadModel(a.positional[0], a.positional[1] ?? 'null', { shapes, structureOnly: true });
  try {
    if (a.has('json')) out(model._infoJsonText() + '\n');
    else out(model._infoText(a.positional[0]));
    return kOk;
  } finally {
    model.dispose();
  }
}

const kRandomizeHelp =
  'usage: nnfold randomize MODEL.param OUT.bin [--seed N]\n' +
  '\n' +
  'Writes nnfold\'s seeded random weights (CONVENTIONS section 3) for a structure-only .param:\n' +
  'weights uniform in +-sqrt(3/fan_in), small biases, BatchNorm variance in [0.5, 1.5].\n' +
  'The same seed gives the same bytes in the native CLI, the npm package and the page.\n';

async function cmdRandomize(argv) {
  const a = parseArgs(argv, ['help'], ['seed']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kRandomizeHelp), kOk;
  if (a.positional.length !== 2) return err(kRandomizeHelp), kUsage;
  const seed = usageValue('randomize', () => (a.has('seed') ? parseSeed(a.get('seed')) : 0));
  const model = await loadModel(a.positional[0], 'null', { seed });
  try {
    // only the .bin is written; warnings about the .param (shape hints) do not concern it
    const files = model.toNcnn({ fp16: false });
    writeFile(a.positional[1], files.bin);
    return kOk;
  } finally {
    model.dispose();
  }
}

const kConvertHelp =
  'usage: nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--optimize] [--fp16] [--shape NAME=c,h,w]\n' +
  '       nnfold convert IN.onnx OUT.param OUT.bin [--optimize] [--fp16] [--shape NAME=d0,d1,...]\n' +
  '\n' +
  'Reads a model and writes it back in nnfold\'s canonical form (no optimization): params in id\n' +
  'order with defaults omitted, floats written so ncnn reads them back exactly, shape hints where\n' +
  'shapes can be inferred. --fp16 stores tagged weight arrays as fp16. --optimize runs the\n' +
  'optimizer (nnfold optimize\'s passes) first; blobs named in the io map are kept.\n' +
  'An .onnx model is imported into ncnn layers; OUT.io.json is written beside OUT.param with the\n' +
  'ONNX names, shapes and layouts of its inputs and outputs (nnfold run/info use it; so does a\n' +
  'converted .param given with its IN.io.json). For .onnx inputs with symbolic dimensions give\n' +
  '--shape NAME=d0,d1,... (the full ONNX shape).\n';

async function cmdConvert(argv) {
  const a = parseArgs(argv, ['help', 'fp16', 'optimize'], ['shape', 'seed']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kConvertHelp), kOk;
  const onnx = a.positional.length >= 1 && isOnnxPath(a.positional[0]);
  if (a.positional.length !== (onnx ? 3 : 4)) return err(kConvertHelp), kUsage;
  const shapes = usageValue('convert', () => parseModelShapes(a.positional[0], a.all('shape')));
  const seed = usageValue('convert', () => (a.has('seed') ? parseSeed(a.get('seed')) : 0));
  const model = await loadModel(a.positional[0], onnx ? 'null' : a.positional[1], { seed, shapes }, false);
  try {
    if (a.has('optimize')) {
      // the io map's blobs are kept by the facade's optimize
      let rep;
      try {
        rep = JSON.parse(model._optimizeJsonText({}));
      } catch (e) {
        printWarnings(model.warnings);
        throw e;
      }
      const rewrites = rep.passes.reduce((n, p) => n + p.rewrites.length, 0);
      err(`optimize: ${rewrites} rewrites; layers ${rep.before.layers} -> ${rep.after.layers}\n`);
    }
    let files;
    try {
      files = model.toNcnn({ fp16: a.has('fp16') });
    } catch (e) {
      printWarnings(model.warnings);
      throw e;
    }
    printWarnings([...model.warnings, ...files.warnings]);
    const [outParam, outBin] = a.positional.slice(onnx ? 1 : 2);
    writeFile(outParam, files.paramBytes);
    writeFile(outBin, files.bin);
    if (files.ioJson !== null) writeFile(ioJsonPath(outParam), files.ioJson);
    return kOk;
  } finally {
    model.dispose();
  }
}

// --- optimize and verify (src/cli/cmd_optimize.cpp, cmd_verify.cpp) ---

const kOptimizeHelp =
  'usage: nnfold optimize IN.param IN.bin|null OUT.param OUT.bin [flag [cutstart [cutend]]] [options]\n' +
  '\n' +
  'Fuses and removes layers the way ncnnoptimize does, checking every condition the algebra\n' +
  'needs, and repeats its passes until nothing changes. Outputs agree with the input model\n' +
  'within 1e-4 (check with nnfold verify). One line per rewrite is printed to stderr.\n' +
  '\n' +
  '  IN.bin \'null\'        nnfold\'s seeded random weights (--seed)\n' +
  '  flag                 0 fp32 storage (default); 1 or 65536 fp16 storage of weight arrays\n' +
  '  cutstart [cutend]    keep only the layers from cutstart to cutend (layer names, both\n' +
  '                       included; \'-\' for the model\'s first / last layer); blobs entering the\n' +
  '                       range become inputs. The cut happens before optimizing.\n' +
  '\n' +
  'options:\n' +
  '  --fp16               fp16 storage (same as flag 1)\n' +
  '  --passes=a,b         run only these passes (still in pipeline order)\n' +
  '  --list-passes        print the passes in pipeline order and exit\n' +
  '  --keep=b1,b2         blobs no rewrite may remove or change\n' +
  '  --explain            also print each candidate a pass refused, with the reason\n' +
  '  --report=FILE        write the report JSON (passes, rewrites, skipped, before/after)\n' +
  '  --shape NAME=c,h,w   input shape (needed when the model declares none)\n' +
  '  --seed N             seed for random weights (default 0)\n';

const splitList = (values) => values.flatMap((v) => v.split(',')).filter((x) => x !== '');

// Control characters of user names as \xNN, so that a line stays one line (native report_lines).
const escapeControls = (s) => s.replace(/[\x00-\x1f\x7f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));

// The pipeline's pass names: the report of any optimization lists every pass that ran.
async function passNames() {
  const nf = await nnfold();
  const m = nf.loadNcnn('7767517\n1 1\nInput data 0 1 data 0=1\n', null);
  try {
    return m.optimize().passes.map((p) => p.name);
  } finally {
    m.dispose();
  }
}

async function cmdOptimize(argv) {
  const a = parseArgs(argv, ['help', 'fp16', 'explain', 'list-passes'], ['passes', 'keep', 'report', 'shape', 'seed']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kOptimizeHelp), kOk;
  if (a.has('list-passes')) return out((await passNames()).map((n) => n + '\n').join('')), kOk;
  const pos = a.positional;
  if (pos.length < 4 || pos.length > 7) return err(kOptimizeHelp), kUsage;
  let fp16 = a.has('fp16');
  if (pos.length >= 5) {
    if (pos[4] === '1' || pos[4] === '65536') fp16 = true;
    else if (pos[4] !== '0') return err(`nnfold optimize: flag must be 0 (fp32), 1 or 65536 (fp16), got '${pos[4]}'\n`), kUsage;
  }
  // ncnnoptimize takes cutstart alone too (then the model runs to its end)
  const cutStart = pos.length >= 6 && pos[5] !== '-' ? pos[5] : '';
  const cutEnd = pos.length === 7 && pos[6] !== '-' ? pos[6] : '';
  const passes = splitList(a.all('passes'));
  const keep = splitList(a.all('keep'));
  if (passes.length) {
    const valid = await passNames();
    const bad = passes.find((n) => !valid.includes(n));
    if (bad !== undefined) return err(`nnfold optimize: unknown pass '${bad}'; valid passes: ${valid.join(', ')}\n`), kUsage;
  }
  const shapes = usageValue('optimize', () => parseShapes(a.all('shape')));
  const seed = usageValue('optimize', () => (a.has('seed') ? parseSeed(a.get('seed')) : 0));
  if (isOnnxPath(pos[0])) {
    throw invalidArgument(`optimize takes ncnn models; for an .onnx model use nnfold convert ${pos[0]} OUT.param OUT.bin --optimize (it also writes OUT.io.json)`);
  }
  const model = await loadModel(pos[0], pos[1], { seed, shapes }, false);
  try {
    let text;
    try {
      text = model._optimizeJsonText({ passes, keep, explain: a.has('explain'), cutStart, cutEnd });
    } catch (e) {
      printWarnings(model.warnings);
      throw e;
    }
    const rep = JSON.parse(text);
    // one line per rewrite, then with --explain one per refusal (native report_lines)
    for (const p of rep.passes) {
      for (const r of p.rewrites) err(escapeControls(`${p.name}: ${r.layers.join(', ')}: ${r.detail}`) + '\n');
    }
    for (const k of rep.skipped) err(escapeControls(`${k.pass}: skipped ${k.layers.join(', ')}: ${k.reason}`) + '\n');
    const us = rep.unknown_shapes;
    if (us && us.refused > 0) {
      err(escapeControls(`unknown shapes: ${us.refused} candidate${us.refused === 1 ? '' : 's'} refused` +
        (us.inputs.length ? `; give --shape for: ${us.inputs.join(', ')}` : '')) + '\n');
    }
    let files;
    try {
      files = model.toNcnn({ fp16 });
    } catch (e) {
      printWarnings(model.warnings);
      throw e;
    }
    printWarnings([...model.warnings, ...files.warnings]);
    writeFile(pos[2], files.paramBytes);
    writeFile(pos[3], files.bin);
    if (a.has('report')) writeFile(a.get('report'), text + '\n');
    const rewrites = rep.passes.reduce((n, p) => n + p.rewrites.length, 0);
    const mem = rep.after.memory_bytes === null ? 'unknown' : `${rep.before.memory_bytes} -> ${rep.after.memory_bytes} bytes`;
    err(`optimized: ${rewrites} rewrites; layers ${rep.before.layers} -> ${rep.after.layers}; weights ` +
      `${rep.before.weights_bytes} -> ${rep.after.weights_bytes} bytes (.bin ${files.bin.length} bytes${fp16 ? ', fp16' : ''}); ` +
      `memory ${mem}\n`);
    return kOk;
  } finally {
    model.dispose();
  }
}

const kVerifyHelp =
  'usage: nnfold verify A.param A.bin|null B.param B.bin|null [options]\n' +
  '\n' +
  'Runs both models on the same seeded random inputs (uniform in [-1, 1], in A\'s input order)\n' +
  'and prints, per output (matched by name, shapes must be equal), the error\n' +
  'max|a-b| / max(max|a|, 1e-6), then the first blob both models share (in A\'s execution order)\n' +
  'whose error is over the tolerance, and the layer producing it. Detection outputs are judged\n' +
  'by the tensors feeding their head. Exit code 1 when an error is over the tolerance.\n' +
  '\n' +
  'options:\n' +
  '  --seed N             seed for the inputs and for \'null\' random weights (default 0)\n' +
  '  --shape NAME=c,h,w   input shape (needed when the models declare none)\n' +
  '  --tolerance X        default 1e-4 (the optimizer\'s budget)\n' +
  '  --json               print the result as JSON\n' +
  '  --no-simd            use the scalar reference layers\n' +
  '  --no-divergence      compare outputs only\n';

// printf's %.3g (native err_str); infinite errors are null in the report
function fmtErr(x) {
  if (x === null || !Number.isFinite(x)) return 'inf';
  if (x === 0) return '0';
  const [mant, e] = x.toExponential(2).split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 3) {
    return `${mant.replace(/\.?0+$/, '')}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const f = x.toFixed(2 - exp);
  return f.includes('.') ? f.replace(/\.?0+$/, '') : f;
}

// core/strings.h quote(): names capped at 80 characters, control characters as \xNN
function quote(s) {
  const t = s.length > 80 ? s.slice(0, 77) + '...' : s;
  return `'${escapeControls(t)}'`;
}

function parseTolerance(v) {
  // strtod's decimal syntax, the whole string
  if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) || !(Number(v) >= 0) || !Number.isFinite(Number(v))) {
    throw invalidArgument(`--tolerance expects a non-negative number, got '${v}'`);
  }
  return Number(v);
}

async function cmdVerify(argv) {
  const a = parseArgs(argv, ['help', 'json', 'no-simd', 'no-divergence'], ['seed', 'shape', 'tolerance']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kVerifyHelp), kOk;
  if (a.positional.length !== 4) return err(kVerifyHelp), kUsage;
  const shapes = usageValue('verify', () => parseShapes(a.all('shape')));
  const seed = usageValue('verify', () => (a.has('seed') ? parseSeed(a.get('seed')) : 0));
  const tolerance = usageValue('verify', () => (a.has('tolerance') ? parseTolerance(a.get('tolerance')) : 1e-4));
  const simd = !a.has('no-simd');
  const [pa, ba, pb, bb] = a.positional;
  for (const p of [pa, pb]) {
    if (isOnnxPath(p)) throw invalidArgument(`verify takes ncnn models; convert ${p} first (nnfold convert IN.onnx OUT.param OUT.bin)`);
  }
  const ma = await loadModel(pa, ba, { seed, shapes, simd }, false);
  let mb;
  try {
    // native prints the warnings of both loads together, before an error of the second
    const nf = await nnfold();
    const hasBin = bb !== 'null' && bb !== '';
    try {
      const param = readFile(pb);
      const bin = hasBin ? readFile(bb) : null;
      mb = nf.loadNcnn(param, bin, { seed, simd, paramName: pb, binName: hasBin ? bb : '' });
    } catch (e) {
      printWarnings([...ma.warnings, ...(e.warnings ?? [])]);
      throw e;
    }
    printWarnings([...ma.warnings, ...mb.warnings]);
    const text = nf._verifyJsonText(ma, mb, { seed, tolerance, divergence: !a.has('no-divergence') });
    const r = JSON.parse(text);
    if (a.has('json')) {
      out(text + '\n');
    } else {
      const line = (kind, d) => out(`${kind} ${quote(d.name)} ${d.shape_a ? `[${d.shape_a.join(',')}]` : '[?]'}: err ` +
        `${fmtErr(d.err)}${d.note ? ' - ' + d.note : ''}\n`);
      for (const d of r.outputs) line('output', d);
      for (const d of r.head_inputs) line('head input', d);
      const fd = r.first_divergence;
      if (a.has('no-divergence')) out('first divergence: not searched\n');
      else if (fd) {
        out(`first divergence: blob ${quote(fd.blob)} from layer ${quote(fd.layer)} (${fd.type}; ${quote(fd.layer_b)} in B), ` +
          `err ${fmtErr(fd.err)} (${r.blobs_compared} shared blobs compared)\n`);
      } else out(`first divergence: none (${r.blobs_compared} shared blobs compared)\n`);
      out(`${r.passed ? 'PASS' : 'FAIL'}: max err ${fmtErr(r.max_err)} ${r.passed ? '<=' : '>'} tolerance ${fmtErr(r.tolerance)}\n`);
    }
    return r.passed ? kOk : kBadInput;
  } finally {
    ma.dispose();
    mb?.dispose();
  }
}

const commands = [
  ['run', cmdRun, 'run a model on given or random inputs'],
  ['info', cmdInfo, 'layers, inferred shapes, weight sizes, estimated memory'],
  ['randomize', cmdRandomize, 'write seeded random weights for a structure-only .param'],
  ['convert', cmdConvert, 'read a model and write it back in canonical form (optionally fp16)'],
  ['optimize', cmdOptimize, 'fuse and remove layers (ncnnoptimize\'s passes, exact), to a fixed point'],
  ['verify', cmdVerify, 'run two models on the same random inputs and compare their outputs'],
];

function usage() {
  let s = 'usage: nnfold <command> [args]   (nnfold <command> --help for details)\n\ncommands:\n';
  for (const [name, , summary] of commands) s += `  ${name.padEnd(10)} ${summary}\n`;
  s += '\nexit codes: 0 success, 1 bad input or failed check, 2 usage error, 3 internal error\n';
  return s;
}

async function main(argv) {
  if (argv.length < 1) return err(usage()), kUsage;
  const cmd = argv[0];
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') return out(usage()), kOk;
  if (cmd === '--version') {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return out(`nnfold ${pkg.version}\n`), kOk;
  }
  const c = commands.find(([name]) => name === cmd);
  if (!c) return err(`nnfold: unknown command '${cmd}'\n\n${usage()}`), kUsage;
  try {
    return await c[1](argv.slice(1));
  } catch (e) {
    if (e instanceof UsageExit) return kUsage;
    if (e instanceof NnfoldError || e instanceof CliError) return report(cmd, e);
    err(`nnfold ${cmd}: internal error: ${e?.stack ?? e}\n`);
    return kInternal;
  }
}

// Let stdout drain before exiting (large JSON to a pipe).
const code = await main(process.argv.slice(2));
process.exitCode = code;
