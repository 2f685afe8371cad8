// `npm pack` gives a tarball with exactly the whitelisted files; installed offline into an empty
// folder (the package has no runtime dependencies), it imports by name, runs a model in Node, and
// its `nnfold` bin works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { convReluBin, convReluExpected, convReluParam, dist, noDist, root } from './helpers.mjs';

// The README's size budget: one flavour's .wasm, gzipped (a page downloads one).
const kWasmGzipBudget = 512 * 1024;

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });

test('npm pack -> offline install in an empty folder -> import and run', { skip: noDist, timeout: 120000 }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-pack-'));
  try {
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp], root));
    const files = packed[0].files.map((f) => f.path).sort();
    assert.deepEqual(files, ['README.md', 'bin/nnfold.mjs', 'dist/index.d.ts', 'dist/index.mjs', 'dist/nnfold-base.mjs',
      'dist/nnfold-base.wasm', 'dist/nnfold-cli-base.cjs', 'dist/nnfold-cli-base.wasm', 'dist/nnfold-cli-simd.cjs',
      'dist/nnfold-cli-simd.wasm', 'dist/nnfold-simd.mjs', 'dist/nnfold-simd.wasm', 'package.json']);
    const tgz = path.join(tmp, packed[0].filename);
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    npm(['install', '--offline', '--no-package-lock', tgz], app);
    fs.writeFileSync(path.join(app, 'model.param'), convReluParam);
    fs.writeFileSync(path.join(app, 'model.bin'), convReluBin());
    fs.writeFileSync(path.join(app, 'main.mjs'), `
      import fs from 'node:fs';
import zlib from 'node:zlib';
      import init from 'nnfold';
      const nf = await init();
      const m = nf.loadNcnn(fs.readFileSync('model.param', 'utf8'), fs.readFileSync('model.bin'));
      const out = m.run({ data: new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]) });
      console.log(JSON.stringify({ build: nf.build, out: Array.from(out.out.data), shape: out.out.shape }));
      m.dispose();
    `);
    const r = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' }));
    assert.equal(r.build, 'simd');
    assert.deepEqual(r.shape, [3, 2, 2]);
    assert.deepEqual(r.out, Array.from(convReluExpected(new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]))));
    // the bin, as users call it
    const bin = path.join(app, 'node_modules/.bin/nnfold');
    assert.match(execFileSync(bin, ['--version'], { encoding: 'utf8' }), /^nnfold \d+\.\d+\.\d+\n$/);
    const info = JSON.parse(execFileSync(bin, ['info', 'model.param', 'model.bin', '--json'], { cwd: app, encoding: 'utf8' }));
    assert.equal(info.layers, 3);
    // the C++ CLI for Node in both flavours, no node flags: files written, the command's exit code
    fs.writeFileSync(path.join(app, 'x.f32'), new Uint8Array(new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]).buffer));
    for (const flavour of ['simd', 'base']) {
      const env = { ...process.env, NNFOLD_WASM: flavour };
      execFileSync(bin, ['run', 'model.param', 'model.bin', '--input', 'data=x.f32', '--output-dir', flavour], { cwd: app, env, stdio: 'ignore' });
      const got = new Float32Array(new Uint8Array(fs.readFileSync(path.join(app, flavour, 'out.f32'))).buffer);
      assert.deepEqual(Array.from(got), Array.from(convReluExpected(new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]))));
      const r = spawnSync(bin, ['run', 'missing.param'], { cwd: app, env, encoding: 'utf8' });
      assert.equal(r.status, 1);
      assert.equal(r.stderr, 'nnfold run: error: cannot open missing.param: No such file or directory\n');
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('each .wasm flavour stays within the gzipped size budget', { skip: noDist }, () => {
  for (const f of ['nnfold-simd.wasm', 'nnfold-base.wasm']) {
    const gz = zlib.gzipSync(fs.readFileSync(path.join(dist, f)), { level: 9 }).length;
    assert.ok(gz <= kWasmGzipBudget, `${f}: ${gz} bytes gzipped, budget ${kWasmGzipBudget}`);
  }
});
