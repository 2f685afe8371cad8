// The hostile-input corpus (tests/data/hostile/cases.tsv) through the npm package, both flavours:
// every case throws an Error with the table's `code` and message fragment (or loads and runs,
// with the warning), and afterwards the same module still runs a model correctly. The
// 'calibrate' rows (a calibration file for a model) go through the npm CLI, as the table says:
// `nnfold quantize` on a folder holding only that file exits 1 with the message (0 for 'ok'),
// and writes nothing when it fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { convReluBin, convReluExpected, convReluParam, loadApi, distFixture, needs, root } from './helpers.mjs';

const dir = path.join(root, 'tests/data/hostile');
const cases = fs.readFileSync(path.join(dir, 'cases.tsv'), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => { const [file, companion, stage, expect, fragment = ''] = l.split('\t'); return { file, companion, stage, expect, fragment }; });

// A 'calibrate' row through the npm CLI: exit code, stderr, files written.
function calibrate(c, flavour) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-hostile-'));
  try {
    const cal = path.join(tmp, 'cal');
    fs.mkdirSync(cal);
    fs.copyFileSync(path.join(dir, c.file), path.join(cal, c.file));
    const r = spawnSync(process.execPath, [path.join(root, 'bin/nnfold.mjs'), 'quantize', path.join(dir, c.companion), 'null',
      path.join(tmp, 'q.param'), path.join(tmp, 'q.bin'), '--calibration', cal, '--threads', '1'],
    { env: { ...process.env, NNFOLD_WASM: flavour }, encoding: 'latin1' });
    return { status: r.status, stderr: r.stderr, written: fs.readdirSync(tmp).filter((f) => f !== 'cal') };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function attempt(nf, c) {
  const bytes = fs.readFileSync(path.join(dir, c.file));
  let m = null;
  try {
    if (c.file.endsWith('.onnx')) {
      m = nf.loadOnnx(bytes);
    } else {
      const bin = c.companion === 'random' || c.companion === 'none' ? null : fs.readFileSync(path.join(dir, c.companion));
      const opts = { paramName: c.file, binName: c.companion, structureOnly: c.companion === 'none' };
      m = nf.loadNcnn(bytes, bin, opts);
    }
    const warnings = m.warnings;
    if (c.stage === 'run') m.run(nf.randomInputs(m, 1));
    return { ok: true, warnings };
  } catch (e) {
    return { ok: false, error: e };
  } finally {
    m?.dispose();
  }
}

for (const simd of [undefined, false]) {
  test(`[${simd === false ? 'base' : 'simd'}] hostile files: each gives its error code and message, then a model still runs`, { skip: needs(distFixture) }, async (t) => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    assert.ok(cases.length >= 40);
    for (const c of cases) {
      const label = `${c.file} + ${c.companion} (${c.stage})`;
      if (c.stage === 'calibrate') {
        const r = calibrate(c, simd === false ? 'base' : 'simd');
        if (c.expect === 'ok') {
          assert.equal(r.status, 0, `${label}: ${r.stderr}`);
          assert.deepEqual(r.written.sort(), ['q.bin', 'q.param'], label);
        } else {
          assert.equal(r.status, 1, `${label}: exit ${r.status}: ${r.stderr}`);
          assert.ok(r.stderr.includes(c.fragment), `${label}: stderr ${JSON.stringify(r.stderr)} lacks ${JSON.stringify(c.fragment)}`);
          assert.deepEqual(r.written, [], `${label}: files written on failure`);
        }
        continue;
      }
      const r = attempt(nf, c);
      if (c.expect === 'ok' || c.expect === 'warning') {
        assert.ok(r.ok, `${label}: ${r.error?.code} ${r.error?.message}`);
        if (c.expect === 'warning') assert.ok(r.warnings.some((w) => w.includes(c.fragment)), `${label}: warnings ${JSON.stringify(r.warnings)}`);
        continue;
      }
      assert.ok(!r.ok, `${label} loaded`);
      assert.ok(r.error instanceof Error, `${label}: not an Error: ${r.error}`);
      assert.equal(r.error.code, c.expect, `${label}: ${r.error.message}`);
      assert.ok(r.error.message.includes(c.fragment), `${label}: message ${JSON.stringify(r.error.message)} lacks ${JSON.stringify(c.fragment)}`);
    }
    // the module is still healthy: a good model gives the right numbers
    const x = new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]);
    const m = nf.loadNcnn(convReluParam, convReluBin());
    assert.deepEqual(Array.from(m.run({ data: x }).out.data), Array.from(convReluExpected(x)));
    m.dispose();
  });
}
