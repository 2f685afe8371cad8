// Every fp32 zoo model (random weights, seed 1) runs in the native CLI and in the wasm builds of
// the same CLI under Node; outputs agree within docs/numbers.md's budgets:
//   native vs wasm baseline (same arithmetic)        1e-5
//   wasm baseline vs wasm SIMD (reordered sums, fast exp, Winograd)  1e-4 + 1e-3
// Detection heads are compared on the tensors they consume (near-ties flip the final selection).
// Needs the zoo (tests/js/helpers.mjs zooFixture), build/, build-wasm-base/ and build-wasm-simd/ (tests/run_all.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { haveZoo, needs, root, zoo, zooFixture } from './helpers.mjs';

const runners = {
  native: [path.join(root, 'build/nnfold')],
  // no node flags: the CLI's pre-js reads its .wasm with fs (wasm/cli_pre.js), as the npm bin needs
  base: ['/usr/bin/node', path.join(root, 'build-wasm-base/nnfold.js')],
  simd: ['/usr/bin/node', path.join(root, 'build-wasm-simd/nnfold.js')],
};
// tensors feeding the detection heads, compared instead of the heads' data-dependent outputs
const headInputs = {
  mobilenet_ssd: ['mbox_loc', 'mbox_conf_flatten', 'mbox_priorbox'],
  'yolov4-tiny': ['29_208', '36_259'],
};
const extraArgs = { vision_transformer: ['--shape', 'input=3,384,384'] };

function run(which, model, outDir, outputs) {
  const [cmd, ...pre] = runners[which];
  const args = [...pre, 'run', path.join(zoo, model + '.param'), 'null', '--seed', '1', '--output-dir', outDir,
    ...(extraArgs[model] ?? []), ...outputs.flatMap((o) => ['--output', o])];
  const out = execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out);
}

function relErr(a, b) {
  assert.equal(a.length, b.length);
  let maxRef = 0, maxDiff = 0;
  for (let i = 0; i < a.length; i++) {
    maxRef = Math.max(maxRef, Math.abs(a[i]));
    maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
  }
  return maxDiff / Math.max(maxRef, 1e-6);
}

function readF32(file) {
  const buf = fs.readFileSync(file);
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
}

const models = haveZoo ? fs.readdirSync(zoo).filter((f) => f.endsWith('.param') && !f.includes('int8')).map((f) => f.slice(0, -6)) : [];

test('zoo models agree across native, wasm baseline and wasm SIMD builds', { skip: needs(zooFixture) }, async (t) => {
  for (const w of Object.values(runners)) {
    const bin = w[w.length - 1];
    assert.ok(fs.existsSync(bin), `${bin} missing: run tests/run_all.sh (it builds all flavours first)`);
  }
  for (const model of models) {
    await t.test(model, () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-zoo-'));
      const results = {};
      for (const which of Object.keys(runners)) {
        const dir = path.join(tmp, which);
        results[which] = run(which, model, dir, headInputs[model] ?? []);
        results[which].dir = dir;
      }
      const nat = results.native;
      assert.ok(nat.outputs.length > 0);
      for (const o of nat.outputs) {
        const a = readF32(path.join(nat.dir, o.file));
        assert.ok(a.every(Number.isFinite), `${model} ${o.name}: non-finite values`);
        const base = readF32(path.join(results.base.dir, o.file));
        const simd = readF32(path.join(results.simd.dir, o.file));
        const e1 = relErr(a, base), e2 = relErr(base, simd);
        assert.ok(e1 <= 1e-5, `${model} ${o.name}: native vs wasm baseline err ${e1}`);
        assert.ok(e2 <= 1.1e-3, `${model} ${o.name}: wasm baseline vs SIMD err ${e2}`);
      }
      fs.rmSync(tmp, { recursive: true, force: true });
    });
  }
});
