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
async function loadModel(paramPath, binPath, opts, printAlways = true) {
  const nf = await nnfold();
  const hasBin = binPath !== null && binPath !== 'null' && binPath !== '';
  const param = readFile(paramPath);
  const bin = hasBin ? readFile(binPath) : null;
  try {
    const m = nf.loadNcnn(param, bin, { ...opts, paramName: paramPath, binName: hasBin ? binPath : '' });
    if (printAlways) printWarnings(m.warnings);
    return m;
  } catch (e) {
    printWarnings(e.warnings);
    throw e;
  }
}

const kRunHelp =
  'usage: nnfold run MODEL.param [MODEL.bin|null] [options]\n' +
  '\n' +
  'Runs a model once. Without a .bin (or with \'null\') the weights are nnfold\'s seeded random\n' +
  'weights. Inputs not given with --input get seeded random values in [-1, 1] (one stream, in\n' +
  'the model\'s input order).\n' +
  '\n' +
  'options:\n' +
  '  --input NAME=FILE.f32   raw little-endian float32 input, outermost-first, dense\n' +
  '  --shape NAME=c,h,w      input shape (needed when the model declares none)\n' +
  '  --seed N                seed for random weights and inputs (default 0)\n' +
  '  --output NAME           blob to extract (repeatable; default: the model\'s outputs)\n' +
  '  --output-dir DIR        write DIR/<escaped blob name>.f32 per output and DIR/summary.json\n' +
  '  --no-simd               use the scalar reference layers\n' +
  'Prints the summary JSON (per output: shape, min, max, mean, first values) to stdout.\n';

async function cmdRun(argv) {
  const a = parseArgs(argv, ['help', 'no-simd'], ['input', 'shape', 'seed', 'output', 'output-dir']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kRunHelp), kOk;
  if (a.positional.length < 1 || a.positional.length > 2) return err(kRunHelp), kUsage;
  const seed = usageValue('run', () => (a.has('seed') ? parseSeed(a.get('seed')) : 0));
  const shapes = usageValue('run', () => parseShapes(a.all('shape')));
  const model = await loadModel(a.positional[0], a.positional[1] ?? 'null', { seed, shapes, simd: !a.has('no-simd') });
  try {
    const inputs = {};
    for (const spec of a.all('input')) {
      const eq = spec.indexOf('=');
      if (eq <= 0) {
        err(`nnfold run: --input expects NAME=FILE.f32, got '${spec}'\n`);
        return kUsage;
      }
      const name = spec.slice(0, eq), file = spec.slice(eq + 1);
      const decl = model.inputs.find((x) => x.name === name);
      if (!decl) throw invalidArgument(`the model has no input named '${name}'`);
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
    const r = model._cliRun(inputs, seed, a.all('output'), dir ? (n) => escapeFileName(n) + '.f32' : null);
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
  '\n' +
  'Shows layers by type, inputs and outputs with inferred shapes, weight sizes and the\n' +
  'estimated peak memory (live tensors + weights). With a .bin, its storage is checked too.\n';

async function cmdInfo(argv) {
  const a = parseArgs(argv, ['help', 'json'], ['shape']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kInfoHelp), kOk;
  if (a.positional.length < 1 || a.positional.length > 2) return err(kInfoHelp), kUsage;
  const shapes = usageValue('info', () => parseShapes(a.all('shape')));
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
  'usage: nnfold convert IN.param IN.bin|null OUT.param OUT.bin [--fp16] [--shape NAME=c,h,w]\n' +
  '\n' +
  'Reads a model and writes it back in nnfold\'s canonical form (no optimization): params in id\n' +
  'order with defaults omitted, floats written so ncnn reads them back exactly, shape hints where\n' +
  'shapes can be inferred. --fp16 stores tagged weight arrays as fp16.\n';

async function cmdConvert(argv) {
  const a = parseArgs(argv, ['help', 'fp16'], ['shape', 'seed']);
  if (!a) return kUsage;
  if (a.has('help')) return out(kConvertHelp), kOk;
  if (a.positional.length !== 4) return err(kConvertHelp), kUsage;
  const shapes = usageValue('convert', () => parseShapes(a.all('shape')));
  const seed = usageValue('convert', () => (a.has('seed') ? parseSeed(a.get('seed')) : 0));
  const model = await loadModel(a.positional[0], a.positional[1], { seed, shapes }, false);
  try {
    let files;
    try {
      files = model.toNcnn({ fp16: a.has('fp16') });
    } catch (e) {
      printWarnings(model.warnings);
      throw e;
    }
    printWarnings([...model.warnings, ...files.warnings]);
    writeFile(a.positional[2], files.paramBytes);
    writeFile(a.positional[3], files.bin);
    return kOk;
  } finally {
    model.dispose();
  }
}

const commands = [
  ['run', cmdRun, 'run a model on given or random inputs'],
  ['info', cmdInfo, 'layers, inferred shapes, weight sizes, estimated memory'],
  ['randomize', cmdRandomize, 'write seeded random weights for a structure-only .param'],
  ['convert', cmdConvert, 'read a model and write it back in canonical form (optionally fp16)'],
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
