// examples/node-optimize.mjs end to end: writes a model that loads back and gives the same outputs
// (the optimizer is used when the build has it; the error budget is docs/numbers.md's 1e-4,
// fp16 storage adds 1e-2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadApi, distFixture, needs, root, smallNetParam } from './helpers.mjs';

test('examples/node-optimize.mjs writes a model equivalent to its input', { skip: needs(distFixture) }, async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-example-'));
  try {
    const { init } = await loadApi();
    const nf = await init();
    const original = nf.loadNcnn(smallNetParam, null, { seed: 4 });
    const files = original.toNcnn();
    fs.writeFileSync(path.join(tmp, 'small.param'), files.paramBytes);
    fs.writeFileSync(path.join(tmp, 'small.bin'), files.bin);
    for (const fp16 of [false, true]) {
      const out = path.join(tmp, fp16 ? 'out16' : 'out');
      const log = execFileSync(process.execPath, [path.join(root, 'examples/node-optimize.mjs'), path.join(tmp, 'small.param'),
        path.join(tmp, 'small.bin'), out, ...(fp16 ? ['--fp16'] : [])], { encoding: 'utf8' });
      assert.match(log, /wrote /);
      const m = nf.loadNcnn(fs.readFileSync(path.join(out, 'small.param')), fs.readFileSync(path.join(out, 'small.bin')));
      const inputs = nf.randomInputs(m, 3);
      const a = original.run(inputs).prob.data, b = m.run(inputs).prob.data;
      const err = Math.max(...a.map((v, i) => Math.abs(v - b[i]))) / Math.max(...a.map(Math.abs), 1e-6);
      assert.ok(err <= (fp16 ? 1e-2 + 1e-4 : 1e-4), `err ${err}`);
      if (fp16) assert.ok(fs.statSync(path.join(out, 'small.bin')).size < files.bin.length * 0.6);
      m.dispose();
    }
    original.dispose();
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
