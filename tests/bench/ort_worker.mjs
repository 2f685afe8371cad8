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
// Protocol (workerData: {threads, wasmPaths, timing: {runs, warmupMs, budgetS}}):
//   -> {model: name, bytes: Uint8Array, inputs: {name: {data: Float32Array, shape}} | null}
//   <- {ok: true, result: measure()'s object, inputs (the ones used), outputs: {name: Float32Array}}
//      or {ok: false, error: message}
//   After init: <- {ready: true, version, threads} or {ready: false, error}.
import { parentPort, workerData } from 'node:worker_threads';
import { measure } from './measure.mjs';

const { threads, wasmPaths, timing } = workerData;
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

parentPort.on('message', async ({ model, bytes, inputs }) => {
  let session;
  try {
    session = await ort.InferenceSession.create(bytes, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3, // errors only (not its notes on unused initializers)
    });
    if (!inputs) {
      // no nnfold model to draw seeded inputs from (no ONNX import): deterministic values in
      // [-1, 1] of the declared shape (dynamic dimensions taken as 1), for ort-web's timing alone
      inputs = {};
      for (const n of session.inputNames) {
        const meta = session.inputMetadata?.find?.((m) => m.name === n);
        const shape = (meta?.shape ?? []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
        const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
        for (let k = 0; k < data.length; k++) data[k] = Math.sin(k * 12.9898) % 1;
        inputs[n] = { data, shape };
      }
    }
    const feeds = {};
    for (const n of session.inputNames) {
      const x = inputs[n];
      if (!x) throw new Error(`input '${n}' has no counterpart in the nnfold model (${Object.keys(inputs).join(', ')})`);
      feeds[n] = new ort.Tensor('float32', x.data, x.shape);
    }
    const result = await measure(() => session.run(feeds), timing);
    const ref = await session.run(feeds);
    const outputs = {};
    for (const [n, t] of Object.entries(ref)) outputs[n] = t.data;
    parentPort.postMessage({ ok: true, model, result, inputs, outputs });
  } catch (e) {
    parentPort.postMessage({ ok: false, model, error: e.message });
  } finally {
    await session?.release();
  }
});
