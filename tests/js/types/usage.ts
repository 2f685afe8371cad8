// Compiled by tests/js/types.test.mjs with `tsc --noEmit` under every tsconfig*.json here (strict,
// exactOptionalPropertyTypes; browser-only, worker-only and Node libs): the package's one .d.ts,
// imported by its package name through the `exports` map, used the way the README shows. The
// misuses marked below with expect-error directives must be rejected (tsc fails on an unused
// directive), so the types are not `any`. `using` / Symbol.dispose: usage-disposable.ts.
import init, { NnfoldError, Model, simdSupported, terminate, threadsUnavailableReason, defaultThreads } from 'nnfold';
import type { CalibrationItem, DType, ErrorCode, GraphJson, InitOptions, Inputs, ModelInfo, Nnfold, Outputs, ProfileReport, QuantizeReport } from 'nnfold';

async function main(): Promise<void> {
  const opts: InitOptions = { simd: simdSupported(), wasmPaths: '/assets/', locateFile: (f, prefix) => prefix + f };
  const nf: Nnfold = await init(opts);
  // an explicit undefined is "not given" (exactOptionalPropertyTypes)
  await init({ simd: undefined, wasmPaths: undefined, locateFile: undefined, wasmBinary: undefined });
  await init({ wasmPaths: new URL('https://cdn.example/nnfold/dist/') });
  await init({ wasmPaths: { simd: '/a/nnfold-simd.wasm', base: new URL('https://cdn.example/nnfold-base.wasm') } });
  const maybeSeed: number | undefined = opts.simd ? 1 : undefined;
  nf.loadNcnn('7767517\n...', null, { seed: maybeSeed, shapes: undefined });
  const build: 'simd-threads' | 'simd' | 'base' = nf.build;
  const canOptimize: boolean = nf.features.optimize;
  // threads: the count, the pool, why not, and ending the Workers
  const threaded = await init({ threads: defaultThreads(), wasmPaths: { 'simd-threads': '/t.wasm', worker: '/t.worker.js', glue: '/t.mjs' } });
  const threads: number = threaded.threads + threaded.maxThreads;
  const why: string | null = threaded.threadsReason ?? threadsUnavailableReason();
  const alive: boolean = threaded.alive;
  threaded.setThreads(1);
  threaded.terminate();
  terminate();
  void threads, why, alive;
  // @ts-expect-error: threads is a number
  await init({ threads: 'all' });

  const model: Model = nf.loadNcnn('7767517\n...', null, { seed: 1, shapes: { data: [3, 224, 224] } });
  const fromBytes = nf.loadNcnn(new Uint8Array(10), new ArrayBuffer(8), { simd: false, structureOnly: true });
  for (const io of model.inputs) {
    const name: string = io.name;
    const dims: number[] | null = io.shape;
    const dtype: DType = io.dtype;
    const dimName: string | null | undefined = io.dim_names[0];
    void name, dims, dtype, dimName;
  }
  const inputs = nf.randomInputs(model, 7);
  const out: Outputs = model.run(inputs, { outputs: ['prob'] });
  const probOut = out.prob;
  // outputs are a union on dtype (ONNX index outputs are Int32Array): narrow before use
  const prob: Float32Array = probOut.dtype === 'float32' ? probOut.data : Float32Array.from(probOut.data);
  model.run({ data: new Float32Array(3 * 224 * 224) });
  model.run({ data: { data: new Float32Array(12), shape: [3, 2, 2] } });
  const outDtype: DType = out.prob.dtype;
  // integer and bool inputs (ONNX int32/int64/bool; docs/shapes-and-files.md)
  const typed: Inputs = {
    ids: new BigInt64Array([101n, 2023n]),
    ids32: { data: new Int32Array([101, 2023]), shape: [1, 2] },
    idsList: [101, 2023],
    mask: new Uint8Array([1, 0]),
    maskList: [true, false],
  };
  model.run(typed);
  const randomDtype: DType = inputs['data']?.dtype ?? 'float32';
  void outDtype, randomDtype;

  const info: ModelInfo = model.info();
  const layers: number = info.layers;
  const g: GraphJson = model.graph();
  const firstEdgeShape: number[] | null = g.edges[0].shape;
  const files = model.toNcnn({ fp16: true });
  const param: string = files.param;
  const bin: Uint8Array = files.bin;
  const p: ProfileReport = model.profile(null, { runs: 3, onProgress: ({ done, total }) => done < total });
  const ms: number = p.layers[0].ms_mean;

  if (canOptimize) {
    const report = model.optimize({ fp16: true, passes: ['fuse_convolution_batchnorm'], keep: ['prob'], explain: true, onProgress: () => {} });
    const after: number = report.after.layers;
    void after;
  }
  const io: string | null = files.ioJson;
  try {
    const onnx = nf.loadOnnx(new Uint8Array(0), { shapes: { input: [1, 3, 224, 224] } });
    const layout: string | undefined = onnx.inputs[0].layout;
    const blob: string | undefined = onnx.outputs[0].blob;
    const again = nf.loadNcnn(param, bin, { ioJson: io ?? undefined, ioJsonName: 'm.io.json' });
    void layout, blob, again;
  } catch (e) {
    if (e instanceof NnfoldError) {
      const code: ErrorCode = e.code;
      const message: string = e.message;
      void code, message;
    }
  }
  // quantization: pictures (bytes, Blobs) or tensors in; a new model and the report out
  const controller = new AbortController();
  const calibration: CalibrationItem[] = [
    new Uint8Array(8), new ArrayBuffer(8), new Blob([new Uint8Array(8)]),
    { data: new Float32Array(12), shape: [3, 2, 2] }, new Float32Array(12), { data: new Float32Array(12), mask: [1, 0] },
  ];
  const q = await model.quantize({
    calibration, method: 'aciq', mean: [127.5, 127.5, 127.5], norm: 1 / 127.5, rgb: false, keepFp32: ['conv1'],
    maxLayerError: 0.05, optimize: true, signal: controller.signal,
    onProgress: ({ done, total, stage }) => stage === 'quantizing' && done < total,
  });
  const int8: Model = q.model;
  const qr: QuantizeReport = q.report;
  const top1: number | null | undefined = qr.outputs[0]?.top1_agreement;
  const kept: string[] = qr.layers.filter((l) => !l.int8).map((l) => `${l.name}: ${l.reason}`);
  const smaller: number = qr.bytes_before / qr.bytes_after;
  int8.toNcnn();
  int8.dispose();
  void top1, kept, smaller;
  // @ts-expect-error: no such calibration method
  await model.quantize({ calibration, method: 'minmax' });
  // @ts-expect-error: calibration is required
  await model.quantize({ method: 'kl' });
  // @ts-expect-error: a string is no calibration item
  await model.quantize({ calibration: ['photo.png'] });

  const heap: number = nf.heapStats().allocated;
  model.dispose();
  fromBytes.dispose();

  // @ts-expect-error: inputs are Float32Array, number[] or {data, shape}, not strings
  model.run({ data: 'pixels' });
  // @ts-expect-error: a Float64Array is no input kind
  model.run({ data: new Float64Array(4) });
  // @ts-expect-error: no such dtype
  const badDtype: DType = 'float16';
  // @ts-expect-error: the bin is bytes or null
  nf.loadNcnn('7767517', 'weights.bin');
  // @ts-expect-error: build is 'simd-threads' | 'simd' | 'base'
  const wrong: 'wasm' = nf.build;
  // @ts-expect-error: no such error code
  const badCode: ErrorCode = 'oops';
  // @ts-expect-error: fp16 is a boolean
  model.toNcnn({ fp16: 'yes' });
  // @ts-expect-error: Model has no public constructor
  new Model();
  // @ts-expect-error: simd is a boolean
  await init({ simd: 'yes' });
  const e = new NnfoldError('wasm_not_found', 'x');
  const code2: ErrorCode = e.code;
  void code2;

  void build, prob, layers, firstEdgeShape, param, bin, ms, heap, wrong, badCode;
}

void main;
