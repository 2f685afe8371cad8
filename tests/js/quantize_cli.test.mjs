// `nnfold verify` with an int8 model against its fp32 original (CONVENTIONS section 7, docs/cli.md):
// without --tolerance it reports accuracy (per-output error, top-1 agreement for a class vector)
// and exits 0; with --tolerance it holds it. Native CLI (build/nnfold) and the npm CLI
// (bin/nnfold.mjs) give the same output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { distFixture, nativeCliFixture, needs, root, zoo, zooFixture } from './helpers.mjs';

const nativeBin = path.join(root, 'build/nnfold');
const hostile = path.join(root, 'tests/data/hostile');
const int8Zoo = path.join(zoo, '../ncnn-int8');

function cli(which, args, opts = {}) {
  const [cmd, pre] = which === 'native' ? [nativeBin, []] : [process.execPath, [path.join(root, 'bin/nnfold.mjs')]];
  const env = { ...process.env, NNFOLD_WASM: opts.flavour ?? 'base' };
  const r = spawnSync(cmd, [...pre, ...args], { cwd: opts.cwd, env, maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout.toString('latin1'), stderr: r.stderr.toString('latin1') };
}

function tmpdir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-quant-'));
}

test('verify: an int8 model against fp32 reports accuracy without --tolerance, holds one given', { skip: needs(nativeCliFixture) }, () => {
  const dir = tmpdir();
  try {
    // the int8 hostile model (int8_scale_term 101) and an fp32 twin of the same structure
    // (random weights: the numbers differ a lot, which is what the modes must handle)
    const int8Param = path.join(hostile, 'int8conv.param');
    const fp32 = path.join(dir, 'fp32.param');
    fs.writeFileSync(fp32, fs.readFileSync(int8Param, 'utf8').replace(' 8=101', ''));
    const args = ['verify', fp32, 'null', int8Param, path.join(hostile, 'int8_ok.bin')];
    const acc = cli('native', args);
    assert.equal(acc.status, 0, acc.stderr + acc.stdout);
    assert.match(acc.stdout, /^output 'out' \[3,4,4\]: err [0-9.e+-]+\n/);
    assert.match(acc.stdout, /first divergence: not searched \(int8 against fp32\)\n/);
    assert.match(acc.stdout, /ACCURACY: int8 against fp32, no --tolerance: max err [0-9.e+-]+\n$/);
    const j = JSON.parse(cli('native', [...args, '--json']).stdout);
    assert.equal(j.accuracy, true);
    assert.equal(j.passed, true);
    assert.ok(j.max_err > 1e-4, `${j.max_err}`);
    // with a tolerance: held (these weights differ, so it fails with exit code 1)
    const held = cli('native', [...args, '--tolerance', '1e-3']);
    assert.equal(held.status, 1, held.stdout);
    assert.match(held.stdout, /FAIL: max err/);
    assert.equal(JSON.parse(cli('native', [...args, '--tolerance', '1e-3', '--json']).stdout).accuracy, undefined);
    // two fp32 models keep the default tolerance (no accuracy mode)
    const plain = cli('native', ['verify', fp32, 'null', fp32, 'null', '--seed', '3', '--json']);
    assert.equal(JSON.parse(plain.stdout).accuracy, undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('verify: ncnn2int8 squeezenet against its fp32 original, top-1 agreement, native = npm CLI', { skip: needs(nativeCliFixture, zooFixture, distFixture) }, () => {
  const args = ['verify', path.join(zoo, 'squeezenet.param'), 'null', path.join(int8Zoo, 'squeezenet_int8.param'),
    path.join(int8Zoo, 'squeezenet_int8.bin'), '--seed', '1'];
  const n = cli('native', args);
  assert.equal(n.status, 0, n.stderr);
  // the zoo's int8 squeezenet was calibrated from these weights (randomize --seed 1): same class
  assert.match(n.stdout, /^output 'output' \[1000\]: err [0-9.e+-]+, top-1 same \(class \d+\)\n/);
  assert.match(n.stdout, /top-1 agrees on 1 of 1 class output\(s\)\n$/);
  const j = cli('js', args);
  assert.equal(j.status, n.status);
  assert.equal(j.stdout, n.stdout);
  assert.equal(j.stderr, n.stderr);
});
