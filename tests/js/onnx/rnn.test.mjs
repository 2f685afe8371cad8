// ONNX LSTM, GRU and RNN imported as ncnn's LSTM / GRU / RNN layers, against onnxruntime-node
// (docs/numbers.md: 1e-4 for the scalar builds; the SIMD build adds its kernels' 1e-4): forward,
// reverse and bidirectional, initial states given, partly given or absent, layout 0 and 1, the
// sequence output and the final states (any subset), up to 64 steps; the converted .param/.bin
// (ncnn's converter's param ids and weight order) runs the same. Forms ncnn's layers cannot
// compute are refused with an error naming the node and the attribute or input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DataType, Rng, makeModel, nnfold, numel, relErr, runNnfold, runOrt, selectedRunners, tensor, tmpdir } from './harness.mjs';

const budget = { native: 1e-4, base: 1e-4, simd: 2e-4 };
const gatesOf = { LSTM: 4, GRU: 3, RNN: 1 };

// One recurrent node with random weights. opts: {op, dir, T, I, H, layout, states: [bool per
// state input], outputs: [bool per output], attrs, seqLens, opset}
function recurrentModel(o, seed) {
  const rng = new Rng(seed);
  const G = gatesOf[o.op], D = o.dir === 'bidirectional' ? 2 : 1, { T, I, H } = o;
  const layout = o.layout ?? 0;
  const xShape = layout === 0 ? [T, 1, I] : [1, T, I];
  const sShape = layout === 0 ? [D, 1, H] : [1, D, H];
  const scale = 1 / Math.sqrt(H);
  const inits = [
    tensor('W', [D, G * H, I], rng.fill(D * G * H * I, -scale, scale)),
    tensor('R', [D, G * H, H], rng.fill(D * G * H * H, -scale, scale)),
    tensor('B', [D, 2 * G * H], rng.fill(D * 2 * G * H, -0.5, 0.5)),
  ];
  const inputs = [{ name: 'x', shape: xShape }];
  const nodeInputs = ['x', 'W', 'R', 'B', ''];
  if (o.seqLens) {
    inits.push(tensor('sl', [1], o.seqLens, DataType.INT32));
    nodeInputs[4] = 'sl';
  }
  const stateNames = o.op === 'LSTM' ? ['h0', 'c0'] : ['h0'];
  stateNames.forEach((s, k) => {
    if (o.states?.[k]) {
      inputs.push({ name: s, shape: sShape });
      nodeInputs[5 + k] = s;
    } else nodeInputs[5 + k] = '';
  });
  while (nodeInputs.length && nodeInputs[nodeInputs.length - 1] === '') nodeInputs.pop();
  const outNames = o.op === 'LSTM' ? ['y', 'yh', 'yc'] : ['y', 'yh'];
  const want = o.outputs ?? outNames.map(() => true);
  const nodeOutputs = outNames.map((n, k) => (want[k] ? n : ''));
  while (nodeOutputs[nodeOutputs.length - 1] === '') nodeOutputs.pop();
  const attrs = { hidden_size: H, direction: o.dir, ...(o.attrs ?? {}) };
  if (layout) attrs.layout = layout;
  if (o.op === 'GRU' && !('linear_before_reset' in attrs)) attrs.linear_before_reset = 1;
  const model = makeModel({
    opset: o.opset ?? (layout ? 14 : 13),
    inputs,
    outputs: outNames.filter((_, k) => want[k]).map((name) => ({ name })),
    nodes: [{ op: o.op, inputs: nodeInputs, outputs: nodeOutputs, attrs, name: 'rec' }],
    inits,
  });
  const feeds = {};
  for (const i of inputs) feeds[i.name] = { data: rng.fill(numel(i.shape), -1, 1), shape: i.shape };
  return { model, feeds };
}

const cases = {
  'LSTM forward, no initial state, 64 steps': { op: 'LSTM', dir: 'forward', T: 64, I: 5, H: 7 },
  'LSTM reverse only, all outputs': { op: 'LSTM', dir: 'reverse', T: 9, I: 3, H: 6, states: [true, true] },
  'LSTM bidirectional with initial h and c, 64 steps': { op: 'LSTM', dir: 'bidirectional', T: 64, I: 4, H: 5, states: [true, true] },
  'LSTM layout=1, only initial_h given (c starts at zero)': { op: 'LSTM', dir: 'bidirectional', T: 6, I: 3, H: 4, layout: 1, states: [true, false] },
  'LSTM hidden only (Y and Y_c left out)': { op: 'LSTM', dir: 'forward', T: 8, I: 3, H: 4, outputs: [false, true, false] },
  'LSTM cell only, explicit default activations': { op: 'LSTM', dir: 'bidirectional', T: 5, I: 2, H: 3, outputs: [false, false, true],
    attrs: { activations: ['Sigmoid', 'Tanh', 'Tanh', 'Sigmoid', 'Tanh', 'Tanh'] } },
  'GRU forward, no initial state, 64 steps': { op: 'GRU', dir: 'forward', T: 64, I: 6, H: 5 },
  'GRU bidirectional with initial state': { op: 'GRU', dir: 'bidirectional', T: 11, I: 4, H: 3, states: [true] },
  'GRU reverse, layout=1, hidden only': { op: 'GRU', dir: 'reverse', T: 7, I: 5, H: 4, layout: 1, states: [true], outputs: [false, true] },
  'GRU bidirectional, one step': { op: 'GRU', dir: 'bidirectional', T: 1, I: 3, H: 4, states: [true] },
  'LSTM one step, layout=1': { op: 'LSTM', dir: 'forward', T: 1, I: 2, H: 3, layout: 1, states: [false, true] },
  'RNN forward, 64 steps': { op: 'RNN', dir: 'forward', T: 64, I: 3, H: 8 },
  'RNN reverse with sequence_lens = T and explicit Tanh': { op: 'RNN', dir: 'reverse', T: 10, I: 4, H: 5, states: [true],
    seqLens: [10], attrs: { activations: ['Tanh'] } },
  'RNN bidirectional, layout=1': { op: 'RNN', dir: 'bidirectional', T: 12, I: 2, H: 3, layout: 1, states: [true] },
};

const runners = selectedRunners();
let seed = 500;
for (const [name, c] of Object.entries(cases)) {
  const s = seed++;
  test(`ONNX ${name} matches onnxruntime (imported and converted)`, async (t) => {
    const { model, feeds } = recurrentModel(c, s);
    // onnxruntime refuses layout=1 ("Batchwise recurrent operations are not supported"): with a
    // batch of 1 the layout-0 twin (same weights and values) holds the same data in every tensor,
    // only the shapes differ ([T,1,I] vs [1,T,I], [T,D,1,H] vs [1,T,D,H], [D,1,H] vs [1,D,H]).
    let ref;
    if (c.layout === 1) {
      const twin = recurrentModel({ ...c, layout: 0, opset: 14 }, s);
      ref = await runOrt(twin.model, twin.feeds);
      for (const r of Object.values(ref)) r.shape = r.shape.length === 4 ? [1, r.shape[0], r.shape[1], r.shape[3]] : [1, r.shape[0], r.shape[2]];
    } else {
      ref = await runOrt(model, feeds);
    }
    const dir = tmpdir();
    const file = path.join(dir, 'model.onnx');
    fs.writeFileSync(file, model);
    const conv = path.join(dir, 'conv');
    nnfold('native', ['convert', file, conv + '.param', conv + '.bin']);
    // ncnn's converter's params: 0=hidden_size 1=W's size 2=direction, nothing else
    const D = c.dir === 'bidirectional' ? 2 : 1;
    const line = fs.readFileSync(conv + '.param', 'utf8').split('\n').find((l) => l.startsWith(c.op + ' '));
    assert.ok(line, `no ${c.op} layer in the .param`);
    const params = line.trim().split(/\s+/).slice(4).filter((t) => /^\d+=/.test(t));
    const dirCode = { forward: 0, reverse: 1, bidirectional: 2 }[c.dir];
    assert.deepEqual(params, [`0=${c.H}`, `1=${D * gatesOf[c.op] * c.H * c.I}`, ...(dirCode ? [`2=${dirCode}`] : [])], line);
    const runs = runners.map((w) => [w, file]).concat([['native', [conv + '.param', conv + '.bin']]]);
    for (const [which, m] of runs) {
      const { out } = runNnfold(which, m, feeds, [], path.join(dir, which + (Array.isArray(m) ? '-conv' : '')));
      for (const o of Object.keys(ref)) {
        assert.ok(out[o], `${which}: output ${o} missing`);
        assert.deepEqual(out[o].shape, ref[o].shape, `${which} ${o} shape`);
        const e = relErr(ref[o].data, out[o].data);
        t.diagnostic(`${which}${Array.isArray(m) ? ' converted' : ''} ${o}: err ${e.toExponential(2)}`);
        assert.ok(e <= budget[which], `${which}${Array.isArray(m) ? ' converted' : ''} ${o}: err ${e} > ${budget[which]}`);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

const refusals = {
  'batch of 2': [{ op: 'LSTM', dir: 'forward', T: 4, I: 3, H: 2, layout: 1 }, /node 'rec' \(LSTM\): batch size 2/],
  'activations Relu': [{ op: 'RNN', dir: 'forward', T: 4, I: 3, H: 2, attrs: { activations: ['Relu'] } },
    /node 'rec' \(RNN\): attribute activations=\[Relu\] is not supported/],
  'clip': [{ op: 'LSTM', dir: 'forward', T: 4, I: 3, H: 2, attrs: { clip: { f: 3.0 } } }, /node 'rec' \(LSTM\): attribute clip/],
  'input_forget': [{ op: 'LSTM', dir: 'forward', T: 4, I: 3, H: 2, attrs: { input_forget: 1 } },
    /node 'rec' \(LSTM\): attribute input_forget=1 is not supported/],
  'GRU linear_before_reset=0': [{ op: 'GRU', dir: 'forward', T: 4, I: 3, H: 2, attrs: { linear_before_reset: 0 } },
    /node 'rec' \(GRU\): attribute linear_before_reset=0 is not supported/],
  'sequence_lens shorter than T': [{ op: 'GRU', dir: 'forward', T: 4, I: 3, H: 2, seqLens: [3] },
    /node 'rec' \(GRU\): input sequence_lens is not supported/],
};

for (const [name, [c, message]] of Object.entries(refusals)) {
  test(`ONNX recurrent refused: ${name}`, () => {
    let model;
    if (name === 'batch of 2') {
      // X [2, T, I] with layout=1
      const rng = new Rng(9);
      const G = 4, H = 2, I = 3;
      model = makeModel({ opset: 14, inputs: [{ name: 'x', shape: [2, 4, I] }], outputs: [{ name: 'y' }],
        inits: [tensor('W', [1, G * H, I], rng.fill(G * H * I, -1, 1)), tensor('R', [1, G * H, H], rng.fill(G * H * H, -1, 1))],
        nodes: [{ op: 'LSTM', inputs: ['x', 'W', 'R'], outputs: ['y'], attrs: { hidden_size: H, layout: 1 }, name: 'rec' }] });
    } else {
      model = recurrentModel(c, 1).model;
    }
    const dir = tmpdir();
    const p = path.join(dir, 'model.onnx');
    fs.writeFileSync(p, model);
    for (const which of runners) {
      const r = nnfold(which, ['run', p], { allowFail: true });
      assert.equal(r.status, 1, `${which}: exit code ${r.status}, stderr ${r.stderr}`);
      assert.match(r.stderr, message, which);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

test('ONNX LSTM with peepholes P is refused', () => {
  const rng = new Rng(3);
  const H = 2, I = 3;
  const model = makeModel({ opset: 13, inputs: [{ name: 'x', shape: [4, 1, I] }], outputs: [{ name: 'y' }],
    inits: [tensor('W', [1, 4 * H, I], rng.fill(4 * H * I, -1, 1)), tensor('R', [1, 4 * H, H], rng.fill(4 * H * H, -1, 1)),
      tensor('P', [1, 3 * H], rng.fill(3 * H, -1, 1))],
    nodes: [{ op: 'LSTM', inputs: ['x', 'W', 'R', '', '', '', '', 'P'], outputs: ['y'], attrs: { hidden_size: H }, name: 'rec' }] });
  const dir = tmpdir();
  const p = path.join(dir, 'model.onnx');
  fs.writeFileSync(p, model);
  for (const which of runners) {
    const r = nnfold(which, ['run', p], { allowFail: true });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /node 'rec' \(LSTM\): input P \(peephole weights\) is not supported/, which);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
