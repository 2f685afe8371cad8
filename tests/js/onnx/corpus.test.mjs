// The exporter-made corpus (tests/data/onnx/, written by make_corpus.py with torch 1.13): every
// model runs in onnxruntime-node on seeded inputs; nnfold either matches it (docs/numbers.md: 1e-4
// for the scalar builds, plus the SIMD kernels' budgets on the SIMD build, before and after the
// optimizer) or refuses the model with the clear error listed below, naming the operator and the
// nodes or the tensor it cannot take. The list is the coverage still missing: a model that starts
// to import fails here until its entry moves to the compared set, so it cannot go unnoticed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { Rng, numel, nnfold, relErr, root, runNnfold, selectedRunners, tmpdir } from './harness.mjs';

const dir = path.join(root, 'tests/data/onnx');
const corpus = JSON.parse(fs.readFileSync(path.join(dir, 'corpus.json'), 'utf8'));

// file -> [extra CLI args, expected error text] for the models nnfold cannot import yet
// (vit_block's [3,1,4,20,12] qkv tensor and swin_block's 6-D window partition import since the
// folded view of tensors above 4 axes, docs/shapes-and-files.md)
const refused = {};
// file -> further input shapes to compare (a model whose graph depends on the shapes)
const variants = {
  'if_shape.onnx': [[[1, 3, 16, 16]], [[1, 3, 9, 20]]],  // an even width takes the other branch of its If
};
const budget = { native: 1e-4, base: 1e-4, simd: 1e-4 + 1e-4 + 1e-3 };

function feedsFor(entry, seed) {
  const rng = new Rng(seed);
  const feeds = {};
  for (const s of entry.inputs) {
    const [lo, hi] = s.range;
    const n = numel(s.shape);
    if (s.dtype === 'float32') feeds[s.name] = { dtype: s.dtype, data: rng.fill(n, lo, hi), shape: s.shape };
    else feeds[s.name] = { dtype: s.dtype, data: Array.from({ length: n }, () => lo + (rng.nextU32() % (hi - lo + 1))), shape: s.shape };
  }
  return feeds;
}

async function ortRun(file, feeds) {
  const sess = await ort.InferenceSession.create(file);
  const f = {};
  for (const [name, { dtype, data, shape }] of Object.entries(feeds)) {
    f[name] = dtype === 'int64' ? new ort.Tensor('int64', BigInt64Array.from(data, (x) => BigInt(x)), shape) : new ort.Tensor(dtype, data, shape);
  }
  const res = await sess.run(f);
  const out = {};
  for (const name of sess.outputNames) out[name] = { data: Float32Array.from(res[name].data, Number), shape: res[name].dims.map(Number) };
  return out;
}

test('the corpus lists every committed model, each under 1 MB', () => {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.onnx')).sort();
  assert.deepEqual(corpus.models.map((m) => m.file).sort(), files);
  for (const f of files) assert.ok(fs.statSync(path.join(dir, f)).size < 1 << 20, f);
  for (const f of Object.keys(refused)) assert.ok(files.includes(f), `${f} is listed as refused but not in the corpus`);
});

for (const [k, entry] of corpus.models.entries()) {
  const file = path.join(dir, entry.file);
  if (refused[entry.file]) {
    const [args, message] = refused[entry.file];
    test(`${entry.file}: refused with a clear error (${entry.what})`, async () => {
      await ortRun(file, feedsFor(entry, 7000 + k));  // the oracle runs it
      const r = nnfold('native', ['run', file, ...args], { allowFail: true });
      assert.equal(r.status, 1, r.stderr);
      assert.ok(r.stderr.includes(message), `expected "${message}" in:\n${r.stderr}`);
    });
    continue;
  }
  const compare = (e, seed) => async () => {
    const feeds = feedsFor(e, seed);
    const ref = await ortRun(file, feeds);
    // integer inputs (token ids) reach nnfold as .f32 files of their values, which is how the
    // graph holds them (docs/shapes-and-files.md; .i32 files are not read by the CLI yet)
    const nnFeeds = Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, { ...v, data: Float32Array.from(v.data) }]));
    const tmp = tmpdir();
    const conv = path.join(tmp, 'opt');
    // every input's shape is given, as a user of a model with symbolic dimensions does
    const shapeArgs = e.inputs.flatMap((s) => ['--shape', `${s.name}=${s.shape.join(',')}`]);
    nnfold('native', ['convert', file, conv + '.param', conv + '.bin', '--optimize', ...shapeArgs]);
    const runs = selectedRunners().map((w) => [w, file]).concat([['native', [conv + '.param', conv + '.bin']]]);
    for (const [which, model] of runs) {
      const extra = Array.isArray(model) ? [] : shapeArgs;
      const { out } = runNnfold(which, model, nnFeeds, extra, path.join(tmp, which + (Array.isArray(model) ? '-opt' : '')));
      for (const name of e.outputs) {
        assert.ok(out[name], `${which}: output ${name} missing`);
        assert.deepEqual(out[name].shape, ref[name].shape, `${which} ${name} shape`);
        const err = relErr(ref[name].data, out[name].data);
        assert.ok(err <= budget[which], `${which} ${Array.isArray(model) ? 'optimized ' : ''}${name}: err ${err} > ${budget[which]}`);
      }
    }
  };
  test(`${entry.file} matches onnxruntime before and after the optimizer (${entry.what})`, compare(entry, 7000 + k));
  for (const shapes of variants[entry.file] ?? []) {
    const v = { ...entry, inputs: entry.inputs.map((s, i) => ({ ...s, shape: shapes[i] })) };
    test(`${entry.file} with input shapes ${JSON.stringify(shapes)} matches onnxruntime`, compare(v, 7100 + k));
  }
}
