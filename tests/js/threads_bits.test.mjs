// The threaded flavour computes the same bits as the single-threaded SIMD flavour (docs/numbers.md:
// each output summed in one fixed order whatever thread computes it), at 1, 2 and 3
// threads, on every fp32 and int8 zoo model (random weights, seed 1) and on ONNX corpus models
// (tests/data/onnx), optimized as the page and the CLI run them. Outputs are compared as raw
// bytes, detection heads included: with the same arithmetic a near-tie cannot flip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { distFixture, haveZoo, loadRawApi, needs, root, zoo, zooFixture } from './helpers.mjs';

const shapes = { vision_transformer: { input: [3, 384, 384] } };
// Detection heads with random weights may select nothing (an empty output compares nothing): the
// tensors they consume are compared too (kept through the optimizer), as in zoo_builds.test.mjs.
const headInputs = {
  mobilenet_ssd: ['mbox_loc', 'mbox_conf_flatten', 'mbox_priorbox'],
  'yolov4-tiny': ['29_208', '36_259'],
};
const onnxModels = ['convnext_block', 'yolov5_head', 'lstm_bidir_2layer', 'gru_batch_first', 'rnn_tanh', 'logmel', 'text_encoder',
  'vit_block', 'swin_block', 'vit_block_batch2'];
const threadCounts = [1, 2, 3];

function sameBits(a, b, what) {
  assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort(), `${what}: output names`);
  let values = 0;
  for (const name of Object.keys(a)) {
    assert.deepEqual(b[name].shape, a[name].shape, `${what} ${name}: shape`);
    const x = new Uint8Array(a[name].data.buffer, a[name].data.byteOffset, a[name].data.byteLength);
    const y = new Uint8Array(b[name].data.buffer, b[name].data.byteOffset, b[name].data.byteLength);
    assert.equal(y.length, x.length, `${what} ${name}: length`);
    // first differing element, for the message
    const i = x.findIndex((v, k) => v !== y[k]);
    assert.equal(i, -1, `${what} ${name}: differs at element ${i >> 2} (${a[name].data[i >> 2]} vs ${b[name].data[i >> 2]})`);
    values += a[name].data.length;
  }
  return values;
}

// Runs `load(nf)` on the single-threaded SIMD module and on the threaded one at each thread count.
async function compare(t, label, load) {
  const { init } = await loadRawApi();
  const single = await init({ threads: 1 });
  const threaded = await init({ threads: Math.max(...threadCounts) });
  try {
    assert.equal(single.build, 'simd');
    assert.equal(threaded.build, 'simd-threads', threaded.threadsReason ?? '');
    const ref = load(single);
    let compared = 0;
    for (const n of threadCounts) {
      threaded.setThreads(n);
      assert.equal(threaded.threads, n);
      compared += sameBits(ref, load(threaded), `${label} at ${n} thread${n > 1 ? 's' : ''}`);
    }
    assert.ok(compared > 0, `${label}: compared nothing`);
  } finally {
    single.terminate();
    threaded.terminate();
  }
}

function runModel(nf, m, extra = []) {
  try {
    m.optimize({ keep: extra });
    const outputs = extra.length ? [...m.outputs.map((o) => o.name), ...extra] : undefined;
    return m.run(nf.randomInputs(m, 1), { outputs });
  } finally {
    m.dispose();
  }
}

const zooModels = haveZoo ? fs.readdirSync(zoo).filter((f) => f.endsWith('.param')).map((f) => f.slice(0, -6)).sort() : [];

test('zoo models: threaded flavour = SIMD flavour, bit for bit, at 1, 2 and 3 threads', { skip: needs(distFixture, zooFixture) }, async (t) => {
  assert.ok(zooModels.length >= 12, `expected the zoo's models, found ${zooModels.length}`);
  for (const model of zooModels) {
    await t.test(model, async () => {
      const param = fs.readFileSync(path.join(zoo, model + '.param'));
      await compare(t, model, (nf) => runModel(nf, nf.loadNcnn(param, null, { seed: 1, shapes: shapes[model] }), headInputs[model]));
    });
  }
});

test('ONNX corpus models: threaded flavour = SIMD flavour, bit for bit, at 1, 2 and 3 threads', { skip: needs(distFixture) }, async (t) => {
  for (const model of onnxModels) {
    await t.test(model, async () => {
      const bytes = fs.readFileSync(path.join(root, 'tests/data/onnx', model + '.onnx'));
      await compare(t, model, (nf) => runModel(nf, nf.loadOnnx(bytes)));
    });
  }
});
