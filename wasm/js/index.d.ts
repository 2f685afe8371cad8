// Types of the nnfold npm package (dist/index.mjs). Shapes are listed outermost first
// ([c, h, w] for an ncnn blob), as everywhere in nnfold (docs/shapes-and-files.md).

/**
 * `code` of every error the package throws: the C++ core's error codes (`error_code_name`).
 * - `invalid_model`: malformed .param/.bin/.onnx bytes
 * - `unsupported`: something this build does not implement (e.g. the optimizer or ONNX import
 *   before they land: "... is not available in this build")
 * - `invalid_argument`: a wrong call (unknown input name, bad option, a disposed model)
 * - `shape_mismatch`: inputs whose shapes do not fit the model
 * - `resource_limit`: a model or tensor that does not fit in memory (WebAssembly: 4 GB at most)
 * - `cancelled`: a progress callback returned false
 * - `wasm_not_found`: init() could not load the `.wasm` (or its JavaScript glue): the message names
 *   the URL it tried; point `wasmPaths`, `locateFile` or `wasmBinary` at the package's files
 * - `internal`: a bug in nnfold
 */
export type ErrorCode =
  | 'invalid_model'
  | 'unsupported'
  | 'invalid_argument'
  | 'shape_mismatch'
  | 'resource_limit'
  | 'cancelled'
  | 'wasm_not_found'
  | 'internal';

/** The Error class of every failure; `message` is the core's message (file, line, layer, blob). */
export class NnfoldError extends Error {
  readonly name: 'NnfoldError';
  readonly code: ErrorCode;
  /** Warnings found before the failure (e.g. while reading a model), when there were any. */
  warnings?: string[];
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown });
}

/** Outermost-first dimensions, 1 to 4 positive integers: `[c, h, w]`, `[h, w]`, `[w]`, `[c, d, h, w]`. */
export type Shape = number[];

/** Input shapes by input name. */
export type ShapeMap = Record<string, Shape>;

export interface InitOptions {
  /**
   * `undefined` (default): the SIMD-128 build when `WebAssembly.validate` accepts a tiny SIMD
   * module, else the baseline build. `false` forces the baseline; `true` requires SIMD (an
   * `unsupported` error where the engine lacks it).
   */
  simd?: boolean | undefined;
  /**
   * Threads models run on, 1 to 64. Default: the cores this context reports
   * (`navigator.hardwareConcurrency`, Node's `os.availableParallelism()`), at most 8; 1 with
   * `wasmBinary` (its bytes are one flavour's). More than 1 loads the SIMD + threads flavour with a
   * pool of that many threads, sized now and never grown, when the context allows it (SIMD-128,
   * SharedArrayBuffer and, in browsers, a cross-origin isolated page that can start Workers);
   * otherwise the single-threaded flavour runs and `Nnfold.threadsReason` says why. `1` starts no
   * Worker at all.
   */
  threads?: number | undefined;
  /**
   * Emscripten-style locator: given a file name (`nnfold-simd.wasm`, `nnfold-base.wasm`,
   * `nnfold-simd-threads.wasm`, `nnfold-simd-threads.worker.js`, `nnfold-simd-threads.mjs`; in
   * Node the threaded flavour's `nnfold-simd-threads-node.{wasm,cjs,worker.cjs}`) and the folder
   * of this package's `index.mjs`, returns the URL to load it from.
   */
  locateFile?: ((file: string, prefix: string) => string | URL) | undefined;
  /**
   * Where the files are: a folder URL (relative to the page) holding them, or one URL per
   * flavour's .wasm plus, for the threaded flavour, its Worker script (`worker`) and the glue the
   * Worker imports (`glue`). Wins over `locateFile`. Default: beside `index.mjs`, written as
   * `new URL('./nnfold-simd.wasm', import.meta.url)` so bundlers emit the file; in Node read from
   * disk. The files are also exported as `nnfold/nnfold-simd.wasm`, `nnfold/nnfold-base.wasm`,
   * `nnfold/nnfold-simd-threads.wasm`, `nnfold/nnfold-simd-threads.worker.js` and
   * `nnfold/nnfold-simd-threads.mjs`.
   */
  wasmPaths?: string | URL | {
    simd?: string | URL | undefined;
    base?: string | URL | undefined;
    'simd-threads'?: string | URL | undefined;
    worker?: string | URL | undefined;
    glue?: string | URL | undefined;
  } | undefined;
  /** The .wasm bytes of the flavour that will be chosen (skips fetching/reading). */
  wasmBinary?: ArrayBuffer | Uint8Array | undefined;
}

/** Progress of a long operation; return `false` from the callback to cancel (`cancelled` error). */
export interface Progress {
  done: number;
  total: number;
}
export type ProgressCallback = (p: Progress) => boolean | void;

export interface LoadOptions {
  /** Seed of nnfold's random weights when no .bin is given (default 0). */
  seed?: number | undefined;
  /** Input shapes: needed for inputs that declare none, or to run at another size. */
  shapes?: ShapeMap | undefined;
  /** `false` runs the scalar reference layers even in the SIMD build. */
  simd?: boolean | undefined;
  /**
   * Only the structure (and the .bin when given): no random weights are drawn, so even a huge
   * model loads quickly. info() and graph() work; run, profile, toNcnn and optimize throw.
   */
  structureOnly?: boolean | undefined;
  /** Names used in error messages (default `model.param` / `model.bin`). */
  paramName?: string | undefined;
  binName?: string | undefined;
  /**
   * The `.io.json` written beside a converted ONNX model (`toNcnn().ioJson`, `nnfold convert`):
   * the model then takes and gives tensors under the ONNX names, shapes and layouts, as the
   * imported model did. Text, bytes or the parsed object.
   */
  ioJson?: string | Uint8Array | ArrayBuffer | object | undefined;
  /** Name of that file in error messages (default `model.io.json`). */
  ioJsonName?: string | undefined;
}

export interface OnnxLoadOptions {
  /**
   * Full ONNX shapes (batch included, up to 8 dims) by ONNX input name: for inputs with symbolic
   * dimensions, or to import at another size.
   */
  shapes?: { [inputName: string]: number[] } | undefined;
  simd?: boolean | undefined;
}

export interface IoInfo {
  name: string;
  /**
   * Outermost first; `null` when unknown (no declared shape, or data-dependent). For a tensor of
   * an ONNX import, its ONNX shape (batch included, up to 8 dims).
   */
  shape: number[] | null;
  /** ONNX imports (and models loaded with `ioJson`): the ncnn blob holding the tensor. */
  blob?: string;
  /**
   * ONNX imports: "NHWC" when the tensor is given transposed from the ncnn blob (a tf2onnx input
   * Transpose absorbed at import), "" when the blob holds it in its declared order.
   */
  layout?: string;
  /**
   * Element type at the interface. ONNX int32/int64/bool inputs are held as float32 values inside
   * the graph (docs/shapes-and-files.md); ncnn blobs are always 'float32'.
   */
  dtype: DType;
  /**
   * One entry per entry of `shape` (empty when `shape` is null): the exporter's symbolic name of
   * the dimension (e.g. "batch", "sequence"), or null where it is fixed or unnamed. Always all
   * null for ncnn blobs and for outputs, which name no dimension.
   */
  dim_names: (string | null)[];
}

/** Element types at the interface. */
export type DType = 'float32' | 'int32' | 'int64' | 'bool';

/** A tensor: dense float32 values, outermost-first layout (the `.f32` file layout). */
export interface Tensor {
  data: Float32Array;
  shape: Shape;
  /** 'float32' for every output for now (index-valued outputs are not produced yet). */
  dtype: 'float32';
}

/**
 * Input values, by the input's dtype (any other kind is `invalid_argument`):
 * - 'float32': Float32Array or number[];
 * - 'int32' / 'int64': Int32Array, BigInt64Array or number[] of integers, each within +-2^24
 *   (float32 holds those exactly; beyond is `invalid_argument`);
 * - 'bool': Uint8Array (nonzero is true) or an array of booleans / 0 / 1.
 */
export type InputData = Float32Array | Int32Array | BigInt64Array | Uint8Array | number[] | boolean[];

/** A seeded random input (`randomInputs`), in a typed array `run` takes for its dtype. */
export interface RandomInput {
  data: Float32Array | Int32Array | Uint8Array;
  shape: Shape;
  dtype: DType;
}

/** Inputs by name: the data (takes the input's known shape) or `{data, shape}`. */
export type Inputs = Record<string, InputData | { data: InputData; shape?: Shape }>;

/**
 * Outputs by name. A data-dependent output (a detection head) may be empty: nothing detected gives
 * `data.length === 0`.
 */
export type Outputs = Record<string, OutputTensor>;

/**
 * One output. ONNX integer outputs (TopK, ArgMax, ArgMin indices; int32/int64) come back as an
 * `Int32Array`, boolean ones as a `Uint8Array`; everything else (and every ncnn blob) as float32.
 * Narrow on `dtype` to get the array type.
 */
export type OutputTensor =
  | { data: Float32Array; shape: Shape | null; dtype: 'float32' }
  | { data: Int32Array; shape: Shape | null; dtype: 'int32' | 'int64' }
  | { data: Uint8Array; shape: Shape | null; dtype: 'bool' };

export interface RunOptions {
  /** Blobs to extract (default: the model's outputs); intermediate blobs are allowed. */
  outputs?: string[] | undefined;
}

export interface ProfileOptions {
  /** Timed runs after one untimed warm-up run (default 10). */
  runs?: number | undefined;
  /** Called after the warm-up and after each run. */
  onProgress?: ProgressCallback | undefined;
}

export interface ProfileReport {
  runs: number;
  /** Total time of each run, ms. */
  run_ms: number[];
  peak_bytes: number;
  /** Layers that ran, in execution order. */
  layers: { index: number; name: string; type: string; ms_mean: number; ms_min: number }[];
}

/** `model.info()`: the JSON `nnfold info --json` prints, plus the load warnings. */
export interface ModelInfo {
  layers: number;
  layers_by_type: Record<string, number>;
  weight_values: number;
  weights_file_bytes: number;
  /** Estimated peak of live tensors plus weights; 0 when shapes are unknown. */
  memory_bytes: number;
  shapes_known: boolean;
  shape_error?: string;
  inputs: IoInfo[];
  outputs: IoInfo[];
  layer_list: {
    type: string;
    name: string;
    weights_bytes: number;
    bottoms: string[];
    tops: string[];
    top_shapes: (Shape | null)[];
  }[];
  warnings: string[];
}

/** `model.graph()`: data for drawing. Node ids index layers; edge ids index blobs. */
export interface GraphJson {
  nodes: {
    id: number;
    type: string;
    name: string;
    /** Params present in the .param (defaults omitted); `name` from ncnn's param table. */
    params: { id: number; name: string | null; value: number | null | string | (number | null)[]; length?: number }[];
    weights_bytes: number;
    bottoms: number[];
    tops: number[];
  }[];
  edges: {
    id: number;
    name: string;
    shape: Shape | null;
    /** Producing node id; -1 for none. */
    from: number;
    to: number[];
  }[];
}

export interface OptimizeOptions {
  /** Store weights as fp16 when written with toNcnn() (the writer's decision; default fp32). */
  fp16?: boolean | undefined;
  /** Pass names to run (ncnnoptimize's names, e.g. `fuse_convolution_batchnorm`); default all. */
  passes?: string[] | undefined;
  /** Blob or layer names that must survive optimization. */
  keep?: string[] | undefined;
  /** Also report why candidate rewrites were skipped. */
  explain?: boolean | undefined;
  /**
   * ncnnoptimize's cutstart/cutend: keep only the layers from `cutStart` to `cutEnd` (names, both
   * included; omitted = the first/last layer). Blobs entering the range become inputs.
   */
  cutStart?: string | undefined;
  cutEnd?: string | undefined;
  onProgress?: ProgressCallback | undefined;
}

/** The optimizer's report (docs/optimizer.md), the same JSON as `nnfold optimize --report`. */
export interface OptimizeReport {
  /** nnfold's version. */
  version: string;
  /** Every pass that ran, in pipeline order, with its rewrites over all rounds. */
  passes: { name: string; rewrites: { layers: string[]; detail: string }[] }[];
  /** With `explain`: the candidates passes still refused at the fixed point, and why. */
  skipped: { pass: string; layers: string[]; reason: string }[];
  /** `memory_bytes` (estimated peak: live tensors + weights) is null when shapes are unknown. */
  before: { layers: number; weights_bytes: number; memory_bytes: number | null };
  after: { layers: number; weights_bytes: number; memory_bytes: number | null };
  /** Candidates refused only because shapes are unknown, and the inputs without a shape (give them). */
  unknown_shapes: { refused: number; inputs: string[] };
}

export interface VerifyOptions {
  /** Seed of the shared random inputs (default 0). */
  seed?: number | undefined;
  /** Error budget (default 1e-4, the optimizer's); `passed` is max_err <= tolerance. */
  tolerance?: number | undefined;
  /** Also search the first layer where the models diverge (default true). */
  divergence?: boolean | undefined;
  onProgress?: ProgressCallback | undefined;
}

/** One compared blob of `nf.verify()`: shapes outermost first, err per docs/numbers.md. */
export interface VerifyBlob {
  name: string;
  shape_a: number[] | null;
  shape_b: number[] | null;
  /** null when infinite (shapes differ, a blob is missing, NaNs disagree). */
  err: number | null;
  /** false for detection outputs: the tensors feeding the head decide (`head_inputs`). */
  judged: boolean;
  note?: string;
}

/** `nf.verify()`: per-output error (docs/numbers.md) and where the models first diverge. */
export interface VerifyReport {
  passed: boolean;
  tolerance: number;
  max_err: number | null;
  seed: number;
  outputs: VerifyBlob[];
  head_inputs: VerifyBlob[];
  /** Blobs both models share compared in A's execution order (up to the first divergence). */
  blobs_compared: number;
  first_divergence: { blob: string; layer: string; type: string; layer_b: string; err: number | null } | null;
}

/** Calibration methods of ncnn2table: KL divergence, ACIQ, EQ (equalization search). */
export type CalibrationMethod = 'kl' | 'aciq' | 'eq';

/**
 * One calibration sample:
 * - an encoded PNG or JPEG picture (`Uint8Array`, `ArrayBuffer`, or a `Blob`/`File`, whose name
 *   is used in messages), for a model with one input of 1 or 3 channels and known height and
 *   width: resized bilinearly to the input and normalized with `mean`/`norm`/`rgb`;
 * - a tensor for a model with one input: `{data, shape?}` or a bare `Float32Array`/`number[]`
 *   (the input's declared shape), as `run()` takes it;
 * - a value for every input by name, `{inputName: data | {data, shape}}`, for models with several.
 */
export type CalibrationItem =
  | Uint8Array
  | ArrayBuffer
  | Blob
  | Float32Array
  | number[]
  | { data: InputData; shape?: Shape }
  | Record<string, InputData | { data: InputData; shape?: Shape }>;

/** Progress of `quantize`: `stage` 'reading' (calibration samples) then 'quantizing'. */
export interface QuantizeProgress extends Progress {
  stage: 'reading' | 'quantizing';
}

export interface QuantizeOptions {
  /** The calibration set: a handful of typical inputs (pictures or tensors); at least one. */
  calibration: CalibrationItem[];
  /** ncnn2table's method (default 'kl'). */
  method?: CalibrationMethod | undefined;
  /**
   * Pictures only: value = (pixel - mean) * norm, per channel of the model input (one number or
   * one per channel; defaults 0 and 1), as ncnn's `substract_mean_normalize`.
   */
  mean?: number | number[] | undefined;
  norm?: number | number[] | undefined;
  /** Pictures only: channel order the model expects (default true; false: BGR). */
  rgb?: boolean | undefined;
  /** Layer names to leave fp32 (as ncnn2int8 allows). */
  keepFp32?: string[] | undefined;
  /**
   * > 0: a layer whose int8 output differs from its fp32 output by more than this relative error
   * (docs/numbers.md's measure, worst over the calibration set) stays fp32. Default 0: no bound.
   */
  maxLayerError?: number | undefined;
  /** Run the optimizer first, as ncnn2int8 expects an ncnnoptimize'd model (default true). */
  optimize?: boolean | undefined;
  /** Return false to cancel (`cancelled` error). */
  onProgress?: ((p: QuantizeProgress) => boolean | void) | undefined;
  /**
   * Cancels with a `cancelled` error. Checked before the work starts and at every progress step
   * (the work itself is synchronous: abort it from `onProgress` or before it starts).
   */
  signal?: AbortSignal | undefined;
}

/** A quantized layer (or one left fp32, with the reason) in the quantize report. */
export interface QuantizeLayer {
  name: string;
  type: string;
  int8: boolean;
  /** Why the layer stays fp32; "" when it is int8. */
  reason: string;
  bottom_scale: number | null;
  weight_scale_min: number | null;
  weight_scale_max: number | null;
  /** Set when the layer's output is requantized for the next int8 layer (ncnn2int8's fusion). */
  top_scale: number | null;
  /** Relative error of this layer's output against fp32 over the calibration set. */
  error: number | null;
}

/** `model.quantize()`'s report, the JSON `nnfold quantize` writes (src/quant/quantize.h). */
export interface QuantizeReport {
  method: CalibrationMethod;
  /** Calibration samples used. */
  samples: number;
  layers: QuantizeLayer[];
  /** Per output: error against fp32 over the set; top-1 agreement for one class vector, else null. */
  outputs: { name: string; error: number | null; top1_agreement: number | null }[];
  /** Weight bytes of the fp32 model and of the int8 one. */
  bytes_before: number;
  bytes_after: number;
}

export interface QuantizeResult {
  /** A new model holding the int8 model (same inputs and outputs); dispose it when done. */
  model: Model;
  report: QuantizeReport;
}

export interface NcnnFiles {
  /** The .param text. */
  param: string;
  /** The .param exactly as written (names are bytes; use this to write the file). */
  paramBytes: Uint8Array;
  bin: Uint8Array;
  /**
   * For an ONNX import (or a model loaded with `ioJson`): the `.io.json` text to write beside the
   * `.param` (docs/shapes-and-files.md); `null` for a plain ncnn model.
   */
  ioJson: string | null;
  warnings: string[];
}

export interface HeapStats {
  /** Live malloc'ed bytes in the WebAssembly heap (dlmalloc mallinfo). */
  allocated: number;
  /** Bytes the allocator holds free for reuse. */
  free: number;
  /** Size of WebAssembly memory (only ever grows). */
  heapSize: number;
}

/** A loaded model. Free it with dispose() (or `using` where Symbol.dispose exists). */
export class Model {
  private constructor();
  /** Inputs with their shapes. */
  readonly inputs: IoInfo[];
  /** Outputs with their inferred shapes. */
  readonly outputs: IoInfo[];
  /** True when this model runs SIMD layers. */
  readonly simd: boolean;
  /** Warnings from loading (a blob with two consumers, int tokens for float params, ...). */
  readonly warnings: string[];
  readonly disposed: boolean;
  /** Sets input shapes (all at once: inputs not listed go back to their declared shape). */
  setInputShapes(shapes: ShapeMap): void;
  info(): ModelInfo;
  graph(): GraphJson;
  /**
   * Optimizes the model in place (ncnnoptimize's passes and more, to a fixed point). Throws
   * `unsupported` in builds without the optimizer (see `Nnfold.features.optimize`).
   */
  optimize(options?: OptimizeOptions): OptimizeReport;
  /** The model as ncnn files (canonical form; fp16 storage when `fp16`, or as set by optimize). */
  toNcnn(options?: { fp16?: boolean | undefined }): NcnnFiles;
  /**
   * Runs the model once. Each input's data must suit its `dtype` (see `InputData`). Throws
   * `shape_mismatch` / `invalid_argument` for wrong inputs.
   */
  run(inputs: Inputs, options?: RunOptions): Outputs;
  /** Per-layer times; inputs default to random inputs with seed 0. */
  profile(inputs?: Inputs | null, options?: ProfileOptions): ProfileReport;
  /**
   * Quantizes this fp32 model to int8 as ncnn's ncnn2table + ncnn2int8 do, calibrated on
   * `options.calibration`; this model is left unchanged. The int8 model runs here and writes
   * ncnn2int8's format with `toNcnn()`. Rejects with `invalid_argument` for bad calibration items
   * (naming the item or file), `resource_limit` for an image bomb, `unsupported` for a model with
   * nothing to quantize or one already int8, `cancelled`.
   */
  quantize(options: QuantizeOptions): Promise<QuantizeResult>;
  /** Frees the model; later calls throw `invalid_argument`. Safe to call twice. */
  dispose(): void;
}

/**
 * `model[Symbol.dispose]()` (and so `using model = ...`) where the TypeScript lib declares
 * `Symbol.dispose` (esnext.disposable, es2025+ or @types/node); with an older or browser-only lib
 * the member is simply not declared, instead of failing to compile. At run time it exists wherever
 * the engine has `Symbol.dispose`.
 */
type DisposeMember = SymbolConstructor extends { readonly dispose: infer S extends symbol } ? { [K in S]: () => void } : {};
export interface Model extends DisposeMember {}

/** The loaded module: create models with it. */
export interface Nnfold {
  /** Which WebAssembly flavour runs. */
  readonly build: 'simd-threads' | 'simd' | 'base';
  /** Threads models run on now (1 without the threaded flavour). */
  readonly threads: number;
  /** The pool init() started: the most `setThreads` accepts (1 without the threaded flavour). */
  readonly maxThreads: number;
  /** Why more than one thread was asked for and one runs (no isolation, no SIMD, ...), else null. */
  readonly threadsReason: string | null;
  /** False once `terminate()` ended this module. */
  readonly alive: boolean;
  /** Runs later calls on `n` threads, 1 to `maxThreads`; results do not depend on it. */
  setThreads(n: number): void;
  /**
   * Ends this module: the threaded flavour's Workers stop; every later call on it or its models
   * throws `invalid_argument`. Safe to call twice.
   */
  terminate(): void;
  readonly version: string;
  /** Parts that depend on the build: the optimizer, verify, ONNX import. */
  readonly features: { readonly optimize: boolean; readonly verify: boolean; readonly onnx: boolean };
  /**
   * Loads an ncnn model: `.param` text (string or bytes) and `.bin` bytes, or `null` for nnfold's
   * seeded random weights (docs/numbers.md).
   */
  loadNcnn(param: string | Uint8Array | ArrayBuffer, bin?: Uint8Array | ArrayBuffer | null, options?: LoadOptions): Model;
  /**
   * Imports an ONNX model; inputs/outputs keep the ONNX names and shapes. Throws `unsupported` in
   * builds without ONNX import (see `features.onnx`).
   */
  loadOnnx(bytes: Uint8Array | ArrayBuffer, options?: OnnxLoadOptions): Model;
  /**
   * Runs both models on the same seeded random inputs and compares outputs. Throws `unsupported`
   * in builds without verify (see `features.verify`).
   */
  verify(a: Model, b: Model, options?: VerifyOptions): VerifyReport;
  /**
   * Seeded random inputs, U(-1, 1), the same values as the CLI and the native library; integer
   * inputs get integers in [0, 7] (an Int32Array), bool inputs 0 or 1 (a Uint8Array).
   */
  randomInputs(model: Model, seed?: number): Record<string, RandomInput>;
  heapStats(): HeapStats;
}

/** Loads the WebAssembly module (SIMD + threads, SIMD or baseline: see `InitOptions.threads`). */
export function init(options?: InitOptions): Promise<Nnfold>;
export default init;

/** True when this engine accepts WebAssembly SIMD-128. */
export function simdSupported(): boolean;

/** Why this context cannot run the threaded flavour, or null when it can. */
export function threadsUnavailableReason(): string | null;

/** The thread count init() picks when `threads` is not given: the cores, at most 8. */
export function defaultThreads(): number;

/** Ends every module init() started (their Workers, and every later call on them). */
export function terminate(): void;
