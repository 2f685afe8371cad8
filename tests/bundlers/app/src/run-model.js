// The app's model work, shared by the page, its module worker and the Node reference run in
// tests/bundlers/bundlers.test.mjs: import the package by name, load a small network with nnfold's
// seeded random weights, run it on seeded random inputs, optimize it, run it again.
import init from 'nnfold';

// Convolution -> BatchNorm -> ReLU -> pooling -> fully connected -> softmax on a [3, 8, 8] input;
// the optimizer folds the BatchNorm and the ReLU into the convolution (7 layers -> 5).
export const param = `7767517
7 7
Input data 0 1 data 0=8 1=8 2=3
Convolution conv 1 1 data conv 0=4 1=3 4=1 5=1 6=108
BatchNorm bn 1 1 conv bn 0=4
ReLU relu 1 1 bn relu
Pooling pool 1 1 relu pool 0=0 1=2 2=2
InnerProduct fc 1 1 pool fc 0=10 1=1 2=640
Softmax prob 1 1 fc prob
`;

export async function runModel(initOptions) {
  try {
    const nf = await init(initOptions);
    const model = nf.loadNcnn(param, null, { seed: 7 });
    const inputs = nf.randomInputs(model, 3);
    const before = Array.from(model.run(inputs).prob.data);
    const layersBefore = model.info().layers;
    const report = model.optimize();
    const after = Array.from(model.run(inputs).prob.data);
    const result = {
      build: nf.build,
      threads: nf.threads,
      threadsReason: nf.threadsReason,
      isolated: globalThis.crossOriginIsolated === true,
      layersBefore,
      layersAfter: model.info().layers,
      rewrites: report.passes.filter((p) => p.rewrites.length).map((p) => p.name),
      before,
      after,
    };
    model.dispose();
    return result;
  } catch (e) {
    return { error: { name: e?.name, code: e?.code, message: String(e?.message ?? e) } };
  }
}
