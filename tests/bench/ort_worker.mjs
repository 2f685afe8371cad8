// onnxruntime-web at one thread count, in a worker thread of the bench process (bench.mjs).
//
// Why a worker: onnxruntime-web reads env.wasm.numThreads once, when its wasm module starts, and
// its backend registry (onnxruntime-common) is one per module graph, so one import of the package
// runs at one thread count for the life of the process. Each worker thread has a module graph of its
// own, so one worker per count puts 1 and N threads in the same process, on the same inputs. In
// Node (20, onnxruntime-web 1.30) the Node build (ort.node.min.mjs) starts its wasm threads as
// worker_threads, which works from inside a worker too; numThreads 1 loads the same
// ort-wasm-simd-threaded module without a pool.
//
// The bench interleaves this worker's runs with nnfold's (measure.mjs), so the worker runs ONE
// timed run per request and times it itself: the message's latency stays outside the timed
// region. A session is opened once per model and kept until `close`.
//
// Protocol (workerData: {threads, wasmPaths}); one request at a time, each answered once:
//   -> {op: 'open', model: name, bytes: Uint8Array, inputs: {name: {data: Float32Array, shape}} | null}
//   <- {ok: true, inputs (the ones used)}: with inputs null (no nnfold model to draw seeded
//      inputs from), deterministic values in [-1, 1] of the declared shape
//   -> {op: 'run'}      <- {ok: true, cpu_ms, wall_ms}: one run of the open session, timed here
//   -> {op: 'outputs'}  <- {ok: true, outputs: {name: Float32Array}}: one more run, its outputs
//   -> {op: 'close'}    <- {ok: true}: the session released (also when none is open)
//   Any failure: <- {ok: false, error: message} (an 'open' that fails leaves no session open).
//   After init: <- {ready: true, version, threads} or {ready: false, error}.
import { parentPort, workerData } from 'node:worker_threads';
import { timeOnce } from './measure.mjs';

const { threads, wasmPaths } = workerData;
let ort;
try {
  ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = wasmPaths;
  ort.env.logLevel = 'error';
  parentPort.postMessage({ ready: true, version: ort.env.versions?.web ?? null, threads });
} catch (e) {
  parentPort.postMessage({ ready: false, error: e.message });
}

let session = null, feeds = null;

async function close() {
  const s = session;
  session = feeds = null;
  await s?.release();
}

async function open(bytes, inputs) {
  await close();
  const s = await ort.InferenceSession.create(bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3, // errors only (not its notes on unused initializers)
  });
  try {
    if (!inputs) {
      // no nnfold model to draw seeded inputs from (no ONNX import): deterministic values in
      // [-1, 1] of the declared shape (dynamic dimensions taken as 1), for ort-web's timing alone
      inputs = {};
      for (const n of s.inputNames) {
        const meta = s.inputMetadata?.find?.((m) => m.name === n);
        const shape = (meta?.shape ?? []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
        const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
        for (let k = 0; k < data.length; k++) data[k] = Math.sin(k * 12.9898) % 1;
        inputs[n] = { data, shape };
      }
    }
    const f = {};
    for (const n of s.inputNames) {
      const x = inputs[n];
      if (!x) throw new Error(`input '${n}' has no counterpart in the nnfold model (${Object.keys(inputs).join(', ')})`);
      f[n] = new ort.Tensor('float32', x.data, x.shape);
    }
    session = s;
    feeds = f;
    return inputs;
  } catch (e) {
    await s.release();
    throw e;
  }
}

const needSession = () => {
  if (!session) throw new Error('no open session (open a model first)');
  return session;
};

parentPort.on('message', async ({ op, bytes, inputs }) => {
  try {
    if (op === 'open') parentPort.postMessage({ ok: true, inputs: await open(bytes, inputs) });
    else if (op === 'run') {
      const s = needSession();
      parentPort.postMessage({ ok: true, ...(await timeOnce(() => s.run(feeds))) });
    } else if (op === 'outputs') {
      const ref = await needSession().run(feeds);
      const outputs = {};
      for (const [n, t] of Object.entries(ref)) outputs[n] = t.data;
      parentPort.postMessage({ ok: true, outputs });
    } else if (op === 'close') {
      await close();
      parentPort.postMessage({ ok: true });
    } else throw new Error(`unknown request '${op}'`);
  } catch (e) {
    parentPort.postMessage({ ok: false, error: e?.message ?? String(e) });
  }
});
