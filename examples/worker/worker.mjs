// A Web Worker that owns an nnfold model, so loading and running never block the page.
// Messages in:  {id, type: 'load', param, bin, options} | {id, type: 'run', inputs} |
//               {id, type: 'random', seed} | {id, type: 'profile', runs} | {id, type: 'dispose'}
// Messages out: {id, ok: true, ...result} | {id, ok: false, code, message} | {id, progress}
// Output tensors are transferred (no copy). In an app bundled with the package, import from
// 'nnfold' instead of the relative path.
import { init } from '../../dist/index.mjs';

let nfPromise = null;
let model = null;

function reply(id, result, transfer = []) {
  self.postMessage({ id, ok: true, ...result }, transfer);
}

self.onmessage = async (event) => {
  const { id, type } = event.data;
  try {
    nfPromise ??= init(event.data.init ?? {});
    const nf = await nfPromise;
    if (type === 'load') {
      model?.dispose();
      model = nf.loadNcnn(event.data.param, event.data.bin ?? null, event.data.options ?? {});
      reply(id, { build: nf.build, inputs: model.inputs, outputs: model.outputs, warnings: model.warnings });
    } else if (type === 'random') {
      reply(id, { inputs: nf.randomInputs(model, event.data.seed ?? 0) });
    } else if (type === 'run') {
      const t0 = performance.now();
      const outputs = model.run(event.data.inputs ?? nf.randomInputs(model, 0));
      const ms = performance.now() - t0;
      reply(id, { outputs, ms }, Object.values(outputs).map((o) => o.data.buffer));
    } else if (type === 'profile') {
      const report = model.profile(null, {
        runs: event.data.runs ?? 5,
        onProgress: (p) => self.postMessage({ id, progress: p }),
      });
      reply(id, { report });
    } else if (type === 'dispose') {
      model?.dispose();
      model = null;
      reply(id, {});
    } else {
      throw Object.assign(new Error(`unknown message type ${type}`), { code: 'invalid_argument' });
    }
  } catch (e) {
    self.postMessage({ id, ok: false, code: e.code ?? 'internal', message: String(e.message ?? e) });
  }
};
