// Shared pieces of the ONNX import tests: a small ONNX model builder (protobufjs with the public
// onnx.proto subset in onnx_proto.mjs), nnfold's seeded PRNG (docs/numbers.md, mulberry32 as
// documented in src/runtime/random.h), onnxruntime-node as the oracle, and the nnfold CLI runners
// (native, and the wasm builds under Node).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { encodeModel, AttrType, DataType } from './onnx_proto.mjs';

export const root = path.resolve(import.meta.dirname, '../../..');

// ---------------------------------------------------------------------------------------------
// PRNG: mulberry32, uniform floats built exactly as the C++ Rng does (float32 steps)

export class Rng {
  constructor(seed) { this.state = seed >>> 0; }
  nextU32() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1) >>> 0;
    t = (t ^ (t + Math.imul(t ^ (t >>> 7), t | 61))) >>> 0;
    return (t ^ (t >>> 14)) >>> 0;
  }
  uniform01() { return Math.fround((this.nextU32() >>> 8) * (1 / 16777216)); }
  uniform(a, b) {
    const range = Math.fround(b - a);
    const scaled = Math.fround(range * this.uniform01());
    return Math.fround(a + scaled);
  }
  fill(n, a = -1, b = 1) {
    const v = new Float32Array(n);
    for (let i = 0; i < n; i++) v[i] = this.uniform(a, b);
    return v;
  }
}

export const numel = (shape) => shape.reduce((a, b) => a * b, 1);

// ---------------------------------------------------------------------------------------------
// model builder

// Attribute values: integers -> INT, other numbers -> FLOAT, {f: x} forces FLOAT, arrays of
// integers -> INTS, arrays of strings -> STRINGS, {floats: [...]} -> FLOATS, strings -> STRING, {t: tensor} -> TENSOR,
// {g: {nodes, outputs, inits, inputs}} -> GRAPH (an If branch; its nodes may read outer values).
function attribute(name, v) {
  if (typeof v === 'string') return { name, type: AttrType.STRING, s: Buffer.from(v) };
  if (typeof v === 'number') {
    return Number.isInteger(v) ? { name, type: AttrType.INT, i: v } : { name, type: AttrType.FLOAT, f: v };
  }
  if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string')) return { name, type: AttrType.STRINGS, strings: v.map((x) => Buffer.from(x)) };
  if (Array.isArray(v)) return { name, type: AttrType.INTS, ints: v };
  if (v && 'f' in v) return { name, type: AttrType.FLOAT, f: v.f };
  if (v && 'floats' in v) return { name, type: AttrType.FLOATS, floats: v.floats };
  if (v && 't' in v) return { name, type: AttrType.TENSOR, t: v.t };
  if (v && 'g' in v) return { name, type: AttrType.GRAPH, g: graphProto({ name, inputs: [], ...v.g }) };
  throw new Error(`attribute ${name}: unsupported value`);
}

// tensor('w', [2,3], Float32Array | number[], DataType.FLOAT)
export function tensor(name, dims, data, type = DataType.FLOAT) {
  const t = { name, dims, data_type: type };
  if (type === DataType.FLOAT) t.raw_data = Buffer.from(new Float32Array(data).buffer);
  else if (type === DataType.INT64) t.raw_data = Buffer.from(new BigInt64Array(Array.from(data, (x) => BigInt(x))).buffer);
  else if (type === DataType.INT32) t.raw_data = Buffer.from(new Int32Array(data).buffer);
  else if (type === DataType.BOOL || type === DataType.UINT8) t.raw_data = Buffer.from(Uint8Array.from(data));
  else throw new Error('tensor: unsupported type');
  return t;
}

function valueInfo(v) {
  const dim = (v.shape ?? []).map((d) => (typeof d === 'string' ? { dim_param: d } : { dim_value: d }));
  return { name: v.name, type: { tensor_type: { elem_type: v.type ?? DataType.FLOAT, shape: v.shape ? { dim } : undefined } } };
}

// makeModel({opset, inputs: [{name, shape}], outputs: [{name, shape?}], nodes: [{op, inputs, outputs,
//   attrs, name}], inits: [tensor(...)]}) -> Buffer
export function makeModel({ opset = 13, inputs, outputs, nodes, inits = [] }) {
  return encodeModel({
    ir_version: opset >= 15 ? 8 : 7,
    producer_name: 'nnfold-tests',
    opset_import: [{ domain: '', version: opset }],
    graph: graphProto({ name: 'g', inputs, outputs, nodes, inits }),
  });
}

function graphProto({ name, inputs, outputs, nodes, inits = [] }) {
  return {
    name,
    node: nodes.map((n, k) => ({
      name: n.name ?? `${n.op}_${k}`,
      op_type: n.op,
      input: n.inputs,
      output: n.outputs,
      attribute: Object.entries(n.attrs ?? {}).map(([a, v]) => attribute(a, v)),
    })),
    initializer: inits,
    input: inputs.map(valueInfo),
    output: outputs.map(valueInfo),
  };
}

// ---------------------------------------------------------------------------------------------
// oracle and runners

export async function runOrt(bytes, feeds) {
  const sess = await ort.InferenceSession.create(bytes);
  const ortFeeds = {};
  // a feed with type 'int64' (integer values in a Float32Array) goes in as int64
  for (const [name, { data, shape, type }] of Object.entries(feeds)) {
    ortFeeds[name] = type === 'int64' ? new ort.Tensor('int64', BigInt64Array.from(data, (v) => BigInt(v)), shape)
      : new ort.Tensor('float32', data, shape);
  }
  const res = await sess.run(ortFeeds);
  const out = {};
  for (const name of sess.outputNames) {
    const t = res[name];
    out[name] = { data: Float32Array.from(t.data, (x) => Number(x)), shape: t.dims.map(Number) };
  }
  return out;
}

export const runners = {
  native: [path.join(root, 'build/nnfold')],
  base: ['/usr/bin/node', '--no-experimental-fetch', path.join(root, 'build-wasm-base/nnfold.js')],
  simd: ['/usr/bin/node', '--no-experimental-fetch', path.join(root, 'build-wasm-simd/nnfold.js')],
};

// Runners to use: NNFOLD_RUNNERS=native,base,simd (default all three; tests/run_all.sh builds them).
export function selectedRunners() {
  const names = (process.env.NNFOLD_RUNNERS ?? 'native,base,simd').split(',').filter(Boolean);
  for (const n of names) {
    const bin = runners[n][runners[n].length - 1];
    if (!fs.existsSync(bin)) throw new Error(`${bin} missing: build it first (tests/run_all.sh builds every flavour)`);
  }
  return names;
}

export function nnfold(which, args, { allowFail = false } = {}) {
  const [cmd, ...pre] = runners[which];
  const r = spawnSync(cmd, [...pre, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0 && !allowFail)
    throw new Error(`nnfold ${args.join(' ')} (${which}) exited ${r.status}:\n${r.stderr}`);
  return r;
}

export function tmpdir(prefix = 'nnfold-onnx-') { return fs.mkdtempSync(path.join(os.tmpdir(), prefix)); }

export function readF32(file) {
  const buf = fs.readFileSync(file);
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

// An output file as float values, by its extension: .f32, .i32 (integer outputs), .u8 (bool).
export function readOutput(file) {
  const buf = fs.readFileSync(file);
  const bytes = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  if (file.endsWith('.i32')) return Float32Array.from(new Int32Array(bytes));
  if (file.endsWith('.u8')) return Float32Array.from(new Uint8Array(bytes));
  return new Float32Array(bytes);
}

export function escapeName(name) {
  let out = '';
  for (const b of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9._-]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  if (out === '.') return '%2E';
  if (out === '..') return '%2E%2E';
  return out || '%00';
}

// Runs a model with nnfold on given inputs (original layout). `model` is the path of an .onnx, or
// [param, bin]. Returns {name: {data, shape}} by output name, plus the summary.
export function runNnfold(which, model, feeds, extraArgs = [], dir = tmpdir()) {
  fs.mkdirSync(dir, { recursive: true });
  const args = ['run', ...[model].flat(), '--output-dir', dir, ...extraArgs];
  for (const [name, { data, type }] of Object.entries(feeds)) {
    // integer feeds as .i32 files (the extension names the type)
    const f = path.join(dir, 'in_' + escapeName(name) + (type === 'int64' ? '.i32' : '.f32'));
    const typed = type === 'int64' ? Int32Array.from(data) : data;
    fs.writeFileSync(f, Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength));
    args.push('--input', `${name}=${f}`);
  }
  const r = nnfold(which, args);
  const summary = JSON.parse(r.stdout);
  const out = {};
  for (const o of summary.outputs) out[o.name] = { data: readOutput(path.join(dir, o.file)), shape: o.shape, dtype: o.dtype };
  return { out, summary, stderr: r.stderr };
}

// docs/numbers.md: max|a-b| / max(max|ref|, 1e-6)
export function relErr(ref, got) {
  if (ref.length !== got.length) return Infinity;
  let maxRef = 0, maxDiff = 0;
  for (let i = 0; i < ref.length; i++) {
    maxRef = Math.max(maxRef, Math.abs(ref[i]));
    const d = Math.abs(ref[i] - got[i]);
    if (Number.isNaN(d)) return Infinity;
    maxDiff = Math.max(maxDiff, d);
  }
  return maxDiff / Math.max(maxRef, 1e-6);
}

export { DataType };
