// `nnfold quantize` and `nnfold verify` on int8 models (docs/cli.md, docs/numbers.md).
// quantize: usage errors (exit 2), calibration folders with nothing usable, bad files (exit 1, no
// output written, earlier outputs kept), pictures + .f32 tensors with the per-layer report and the
// report JSON, SAMPLE.INPUT.f32 for several inputs, and the npm CLI (bin/nnfold.mjs: the wasm CLI
// lists the folder through NODERAWFS) giving the native CLI's text and, on the baseline flavour,
// its bytes. verify: an int8 model against its fp32 original reports accuracy (per-output error,
// top-1 agreement for a class vector) without --tolerance and exits 0; with --tolerance it holds it.
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

// ---- nnfold quantize ---------------------------------------------------------------------------

// picture_model.param of the hostile corpus: one [3, 8, 8] input, a 3x3 Convolution
const pictureModel = path.join(hostile, 'picture_model.param');
// two inputs [3, 4, 4] added, then a 1x1 Convolution
const twoInputs = `7767517
4 4
Input a 0 1 a 0=4 1=4 2=3
Input b 0 1 b 0=4 1=4 2=3
BinaryOp add 2 1 a b s 0=0
Convolution conv 1 1 s out 0=2 1=1 5=1 6=6
`;

function calibrationDir(root, files) {
  const d = path.join(root, 'cal');
  fs.mkdirSync(d);
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(d, name), bytes);
  return d;
}

const f32 = (n, k = 1) => Buffer.from(new Float32Array(Array.from({ length: n }, (_, i) => Math.sin(i * k))).buffer);

test('quantize: usage errors exit 2, bad calibration folders exit 1, and nothing is written', { skip: needs(nativeCliFixture) }, () => {
  const dir = tmpdir();
  try {
    const out = [path.join(dir, 'q.param'), path.join(dir, 'q.bin')];
    const help = cli('native', ['quantize', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^usage: nnfold quantize IN.param IN.bin\|null OUT.param OUT.bin --calibration DIR/);
    assert.match(cli('native', ['--help']).stdout, /\n {2}quantize {3}int8 quantization/);
    const good = calibrationDir(dir, { 'a.png': fs.readFileSync(path.join(hostile, 'calib_ok.png')) });
    const usage = [
      ['quantize', pictureModel, 'null', ...out],
      ['quantize', pictureModel, 'null', out[0], '--calibration', good],
      ['quantize', pictureModel, 'null', ...out, '--calibration', good, '--method', 'minmax'],
      ['quantize', pictureModel, 'null', ...out, '--calibration', good, '--rgb', '--bgr'],
      ['quantize', pictureModel, 'null', ...out, '--calibration', good, '--mean', '1,x'],
      ['quantize', pictureModel, 'null', ...out, '--calibration', good, '--max-layer-error', '-1'],
      ['quantize', pictureModel, 'null', ...out, '--calibration', good, '--threads', '0'],
    ];
    for (const args of usage) {
      const r = cli('native', args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    }
    assert.match(cli('native', usage[0]).stderr, /--calibration DIR is required/);
    assert.match(cli('native', usage[2]).stderr, /--method must be kl, aciq or eq, got 'minmax'/);
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    const notes = path.join(dir, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, 'readme.txt'), 'calibration pictures go here');
    const bad = [
      [path.join(dir, 'nowhere'), /calibration folder '.*nowhere' does not exist/],
      [path.join(hostile, 'calib_ok.png'), /is not a folder/],
      [empty, /no usable calibration file in '.*empty': it needs \.png\/\.jpg\/\.jpeg pictures or \.f32 tensors/],
      [notes, /no usable calibration file/],
    ];
    for (const [cal, re] of bad) {
      const r = cli('native', ['quantize', pictureModel, 'null', ...out, '--calibration', cal]);
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, re);
    }
    assert.match(cli('native', ['quantize', pictureModel, 'null', ...out, '--calibration', notes]).stderr,
      /warning: calibration: skipped 'readme.txt' \(not a \.png, \.jpg or \.jpeg picture, nor a \.f32 tensor\)/);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['cal', 'empty', 'notes']);
    // a failure after existing outputs leaves them as they were (no temporary left either)
    fs.writeFileSync(out[0], 'previous');
    const mixed = path.join(dir, 'mixed');
    fs.mkdirSync(mixed);
    fs.copyFileSync(path.join(hostile, 'calib_ok.png'), path.join(mixed, 'a.png'));
    fs.copyFileSync(path.join(hostile, 'calib_truncated.jpg'), path.join(mixed, 'b.jpg'));
    const r = cli('native', ['quantize', pictureModel, 'null', ...out, '--calibration', mixed]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /b\.jpg': truncated JPEG/);
    assert.equal(fs.readFileSync(out[0], 'utf8'), 'previous');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['cal', 'empty', 'mixed', 'notes', 'q.param']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('quantize: pictures and tensors, per-layer report, int8 files that load, verify reports accuracy', { skip: needs(nativeCliFixture) }, () => {
  const dir = tmpdir();
  try {
    const cal = calibrationDir(dir, {
      'a.png': fs.readFileSync(path.join(hostile, 'calib_ok.png')),
      'b.jpg': fs.readFileSync(path.join(hostile, 'calib_ok.jpg')),
      'c.png': fs.readFileSync(path.join(hostile, 'calib_gray.png')),
      'd.f32': fs.readFileSync(path.join(hostile, 'calib_ok.f32')),
      'notes.txt': 'skipped',
    });
    const q = [path.join(dir, 'q.param'), path.join(dir, 'q.bin')];
    const rep = path.join(dir, 'report.json');
    const r = cli('native', ['quantize', pictureModel, 'null', ...q, '--calibration', cal, '--mean', '127.5', '--norm', '0.0078125',
      '--bgr', '--method', 'aciq', '--report', rep, '--threads', '1']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "warning: calibration: skipped 'notes.txt' (not a .png, .jpg or .jpeg picture, nor a .f32 tensor)\n");
    assert.match(r.stdout, /^layer +type +int8 +bottom_scale +weight_scales \(min-max\) +top_scale +error\n/);
    assert.match(r.stdout, /\nconv +Convolution +yes +[0-9.e+-]+ +[0-9.e+-]+-[0-9.e+-]+ +- +[0-9.e+-]+\n/);
    assert.match(r.stdout, /\noutput 'out': err [0-9.e+-]+\n/);
    assert.match(r.stdout, /\nquantized: 1 of 1 layers int8 \(method aciq, 4 samples\); weights \d+ -> \d+ bytes\n$/);
    const report = JSON.parse(fs.readFileSync(rep, 'utf8'));
    assert.equal(report.method, 'aciq');
    assert.equal(report.samples, 4);
    assert.equal(report.layers[0].name, 'conv');
    assert.equal(report.layers[0].int8, true);
    assert.match(fs.readFileSync(q[0], 'utf8'), /\nConvolution +conv .* 8=[12]\b/);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['cal', 'q.bin', 'q.param', 'report.json']);
    // the int8 model loads and runs; verify compares it with the fp32 one by accuracy
    const v = cli('native', ['verify', pictureModel, 'null', ...q]);
    assert.equal(v.status, 0, v.stderr + v.stdout);
    assert.match(v.stdout, /ACCURACY: int8 against fp32/);
    // --keep-fp32 leaves the only layer fp32: nothing to quantize
    const kept = cli('native', ['quantize', pictureModel, 'null', path.join(dir, 'k.param'), path.join(dir, 'k.bin'), '--calibration', cal,
      '--keep-fp32', 'conv']);
    assert.equal(kept.status, 1);
    assert.match(kept.stderr, /nothing to quantize/);
    assert.ok(!fs.existsSync(path.join(dir, 'k.param')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('quantize: a model of several inputs takes SAMPLE.INPUT.f32 files', { skip: needs(nativeCliFixture) }, () => {
  const dir = tmpdir();
  try {
    const model = path.join(dir, 'two.param');
    fs.writeFileSync(model, twoInputs);
    const q = [path.join(dir, 'q.param'), path.join(dir, 'q.bin')];
    const cal = calibrationDir(dir, { 's1.a.f32': f32(48, 1), 's1.b.f32': f32(48, 2), 's2.a.f32': f32(48, 3), 's2.b.f32': f32(48, 4) });
    const r = cli('native', ['quantize', model, 'null', ...q, '--calibration', cal]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /method kl, 2 samples/);
    // a sample missing an input, a file naming no input, a picture for two inputs
    fs.writeFileSync(path.join(cal, 's3.a.f32'), f32(48));
    let e = cli('native', ['quantize', model, 'null', ...q, '--calibration', cal]);
    assert.equal(e.status, 1);
    assert.match(e.stderr, /calibration sample 's3' in '.*' has no tensor for input 'b' \(expected 's3\.b\.f32'\)/);
    fs.rmSync(path.join(cal, 's3.a.f32'));
    fs.writeFileSync(path.join(cal, 's3.f32'), f32(48));
    e = cli('native', ['quantize', model, 'null', ...q, '--calibration', cal]);
    assert.equal(e.status, 1);
    assert.match(e.stderr, /s3\.f32': the model has 2 inputs, so a tensor file is named SAMPLE\.INPUT\.f32 with INPUT one of a, b/);
    fs.rmSync(path.join(cal, 's3.f32'));
    fs.copyFileSync(path.join(hostile, 'calib_ok.png'), path.join(cal, 'p.png'));
    e = cli('native', ['quantize', model, 'null', ...q, '--calibration', cal]);
    assert.equal(e.status, 1);
    assert.match(e.stderr, /pictures calibrate a model of one input; this one has 2/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('quantize: the npm CLI lists the folder and writes the same files as the native CLI', { skip: needs(nativeCliFixture, distFixture) }, () => {
  const dir = tmpdir();
  try {
    const cal = calibrationDir(dir, {
      'a.png': fs.readFileSync(path.join(hostile, 'calib_ok.png')),
      'b.jpg': fs.readFileSync(path.join(hostile, 'calib_ok.jpg')),
      'c.f32': fs.readFileSync(path.join(hostile, 'calib_ok.f32')),
      'z.txt': 'skipped',
    });
    for (const flavour of ['base', 'simd']) {
      const args = (p) => ['quantize', pictureModel, 'null', path.join(dir, `${p}.param`), path.join(dir, `${p}.bin`), '--calibration', cal,
        '--threads', '1'];
      const n = cli('native', args('n'));
      const j = cli('js', args('j'), { flavour });
      assert.equal(j.status, 0, j.stderr);
      assert.equal(j.stderr, n.stderr);
      if (flavour === 'base') {
        // the same scalar arithmetic: the same table, the same files
        assert.equal(j.stdout, n.stdout);
        assert.ok(fs.readFileSync(path.join(dir, 'j.bin')).equals(fs.readFileSync(path.join(dir, 'n.bin'))), 'int8 .bin differs');
        assert.equal(fs.readFileSync(path.join(dir, 'j.param'), 'utf8'), fs.readFileSync(path.join(dir, 'n.param'), 'utf8'));
      } else {
        assert.match(j.stdout, /quantized: 1 of 1 layers int8 \(method kl, 3 samples\)/);
      }
    }
    // errors: the same text and exit code
    for (const c of [['empty', {}], ['bomb', { 'x.png': fs.readFileSync(path.join(hostile, 'calib_bomb.png')) }]]) {
      const d = path.join(dir, c[0]);
      fs.mkdirSync(d);
      for (const [f, b] of Object.entries(c[1])) fs.writeFileSync(path.join(d, f), b);
      const args = ['quantize', pictureModel, 'null', path.join(dir, 'e.param'), path.join(dir, 'e.bin'), '--calibration', d, '--threads', '1'];
      const n = cli('native', args), j = cli('js', args);
      assert.equal(n.status, 1);
      assert.equal(j.status, 1);
      assert.equal(j.stderr, n.stderr);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
