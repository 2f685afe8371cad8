// The hostile-input corpus (tests/data/hostile/cases.tsv) through the npm package, both flavours:
// every case throws an Error with the table's `code` and message fragment (or loads and runs,
// with the warning), and afterwards the same module still runs a model correctly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { convReluBin, convReluExpected, convReluParam, loadApi, distFixture, needs, root } from './helpers.mjs';

const dir = path.join(root, 'tests/data/hostile');
const cases = fs.readFileSync(path.join(dir, 'cases.tsv'), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => { const [file, companion, stage, expect, fragment = ''] = l.split('\t'); return { file, companion, stage, expect, fragment }; });

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
      const r = attempt(nf, c);
      const label = `${c.file} + ${c.companion} (${c.stage})`;
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
