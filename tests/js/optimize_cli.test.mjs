// The native `nnfold optimize` and `nnfold verify` commands: help, exit codes (docs/errors.md:
// 0 ok, 1 bad input or failed check, 2 usage), the report JSON schema (docs/optimizer.md),
// one stderr line per rewrite, byte-identical outputs for the same seed, fp16 storage, cut
// ranges, and optimize -> verify on a zoo model. Needs build/nnfold (tests/run_all.sh builds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { distFixture, needs, root, zoo, zooFixture } from './helpers.mjs';

const nnfold = path.join(root, 'build/nnfold');

function run(args) {
  const r = spawnSync(nnfold, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function tmp() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-opt-'));
}

// Input [3,6,7] -> conv -> ReLU -> Dropout -> global pooling -> 1x1 conv -> ReLU (7 layers, 4 after)
const smallNet = `7767517
7 7
Input            data   0 1 data 0=7 1=6 2=3
Convolution      conv1  1 1 data c1 0=4 1=3 4=1 5=1 6=108
ReLU             relu1  1 1 c1 r1
Dropout          drop   1 1 r1 d
Pooling          gp     1 1 d g 0=1 4=1
Convolution      fc     1 1 g f 0=10 1=1 5=1 6=40
ReLU             relu2  1 1 f out
`;

test('optimize and verify print help and exit 0', () => {
  assert.ok(fs.existsSync(nnfold), `${nnfold} missing: build it first (tests/run_all.sh)`);
  for (const cmd of ['optimize', 'verify']) {
    const r = run([cmd, '--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, new RegExp(`usage: nnfold ${cmd}`));
  }
  const list = run(['optimize', '--list-passes']);
  assert.equal(list.code, 0);
  const names = list.out.trim().split('\n');
  assert.ok(names.includes('fuse_convolution_batchnorm'));
  assert.ok(names.indexOf('fuse_convolution_batchnorm') < names.indexOf('eliminate_orphaned_memorydata'));
});

test('usage errors exit 2, bad input exits 1', () => {
  const dir = tmp();
  const p = path.join(dir, 'm.param');
  fs.writeFileSync(p, smallNet);
  const o = (f) => path.join(dir, f);
  assert.equal(run(['optimize', p]).code, 2);
  assert.equal(run(['optimize', p, 'null', o('a.param'), o('a.bin'), '7']).code, 2);
  assert.equal(run(['optimize', p, 'null', o('a.param'), o('a.bin'), '0', 'relu1', 'gp', 'x']).code, 2);
  assert.equal(run(['optimize', p, 'null', o('a.param'), o('a.bin'), '--bogus']).code, 2);
  assert.equal(run(['optimize', p, 'null', o('a.param'), o('a.bin'), '--seed', 'x']).code, 2);
  const bad = run(['optimize', p, 'null', o('a.param'), o('a.bin'), '--passes=fuse_all']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /unknown pass 'fuse_all'; valid passes: .*fuse_convolution_batchnorm/);
  assert.equal(run(['optimize', o('missing.param'), 'null', o('a.param'), o('a.bin')]).code, 1);
  const keep = run(['optimize', p, 'null', o('a.param'), o('a.bin'), '--keep=nope']);
  assert.equal(keep.code, 1);
  assert.match(keep.err, /nope/);
  assert.equal(run(['optimize', p, 'null', o('a.param'), o('a.bin'), '0', 'nope', 'gp']).code, 1);
  assert.equal(run(['verify', p, 'null']).code, 2);
  assert.equal(run(['verify', p, 'null', o('missing.param'), 'null']).code, 1);
});

test('optimize logs rewrites, writes the report and the same bytes for the same seed', () => {
  const dir = tmp();
  const p = path.join(dir, 'm.param');
  fs.writeFileSync(p, smallNet);
  const o = (f) => path.join(dir, f);
  const r1 = run(['optimize', p, 'null', o('o1.param'), o('o1.bin'), '--seed', '3', `--report=${o('r1.json')}`, '--explain']);
  assert.equal(r1.code, 0, r1.err);
  const lines = r1.err.trim().split('\n');
  assert.ok(lines.includes('fuse_convolution_activation: conv1, relu1: fused ReLU relu1 into Convolution conv1 (activation_type 1)'), r1.err);
  assert.ok(lines.some((l) => l.startsWith('eliminate_dropout: drop: removed Dropout drop')), r1.err);
  assert.ok(lines.some((l) => l.startsWith('replace_convolution_with_innerproduct_after_global_pooling: gp, fc:')), r1.err);
  assert.match(lines.at(-1), /^optimized: 4 rewrites; layers 7 -> 4; weights \d+ -> \d+ bytes \(\.bin \d+ bytes\); memory \d+ -> \d+ bytes$/);
  const rep = JSON.parse(fs.readFileSync(o('r1.json'), 'utf8'));
  assert.deepEqual(Object.keys(rep), ['version', 'passes', 'skipped', 'before', 'after', 'unknown_shapes']);
  assert.deepEqual(rep.unknown_shapes, { refused: 0, inputs: [] });
  assert.equal(typeof rep.version, 'string');
  assert.ok(Array.isArray(rep.passes) && rep.passes.length > 30);
  for (const pass of rep.passes) {
    assert.deepEqual(Object.keys(pass), ['name', 'rewrites']);
    for (const rw of pass.rewrites) {
      assert.deepEqual(Object.keys(rw), ['layers', 'detail']);
      assert.ok(rw.layers.every((n) => typeof n === 'string'));
    }
  }
  assert.equal(rep.passes.reduce((n, pass) => n + pass.rewrites.length, 0), 4);
  assert.ok(Array.isArray(rep.skipped));
  for (const s of rep.skipped) assert.deepEqual(Object.keys(s), ['pass', 'layers', 'reason']);
  for (const k of ['before', 'after']) {
    assert.deepEqual(Object.keys(rep[k]), ['layers', 'weights_bytes', 'memory_bytes']);
    assert.ok(Number.isInteger(rep[k].layers) && Number.isInteger(rep[k].weights_bytes) && Number.isInteger(rep[k].memory_bytes));
  }
  assert.equal(rep.before.layers, 7);
  assert.equal(rep.after.layers, 4);

  // same seed, same bytes; another seed, other weights
  assert.equal(run(['optimize', p, 'null', o('o2.param'), o('o2.bin'), '--seed', '3']).code, 0);
  assert.deepEqual(fs.readFileSync(o('o1.param')), fs.readFileSync(o('o2.param')));
  assert.deepEqual(fs.readFileSync(o('o1.bin')), fs.readFileSync(o('o2.bin')));
  assert.equal(run(['optimize', p, 'null', o('o3.param'), o('o3.bin'), '--seed', '4']).code, 0);
  assert.notDeepEqual(fs.readFileSync(o('o1.bin')), fs.readFileSync(o('o3.bin')));
  // optimizing the result again changes nothing
  const again = run(['optimize', o('o1.param'), o('o1.bin'), o('o4.param'), o('o4.bin')]);
  assert.equal(again.code, 0);
  assert.match(again.err, /^optimized: 0 rewrites;/m);
  assert.deepEqual(fs.readFileSync(o('o1.param')), fs.readFileSync(o('o4.param')));
  assert.deepEqual(fs.readFileSync(o('o1.bin')), fs.readFileSync(o('o4.bin')));

  // verify: the optimized model computes the same thing; text and JSON forms
  const v = run(['verify', p, 'null', o('o1.param'), o('o1.bin'), '--seed', '3']);
  assert.equal(v.code, 0, v.out + v.err);
  assert.match(v.out, /^output 'out' \[10\]: err /m);
  assert.match(v.out, /^first divergence: none \(\d+ shared blobs compared\)$/m);
  assert.match(v.out, /^PASS: max err/m);
  const vj = run(['verify', p, 'null', o('o1.param'), o('o1.bin'), '--seed', '3', '--json']);
  assert.equal(vj.code, 0);
  const j = JSON.parse(vj.out);
  assert.equal(j.passed, true);
  assert.ok(j.max_err <= 1e-4);
  assert.equal(j.outputs[0].name, 'out');
  assert.deepEqual(j.outputs[0].shape_a, [10]);
  assert.equal(j.first_divergence, null);
  // other weights: over tolerance, exit 1, the first diverging layer named
  const vf = run(['verify', p, 'null', o('o3.param'), o('o3.bin'), '--seed', '3', '--json']);
  assert.equal(vf.code, 1);
  const jf = JSON.parse(vf.out);
  assert.equal(jf.passed, false);
  // c1 was fused away: the first shared blob is r1, made by relu1 in A and by conv1 in B
  assert.deepEqual(jf.first_divergence.blob, 'r1');
  assert.equal(jf.first_divergence.layer, 'relu1');
  assert.equal(jf.first_divergence.layer_b, 'conv1');
});

test('fp16 storage (flag 1 or 65536) and cut ranges', () => {
  const dir = tmp();
  const p = path.join(dir, 'm.param');
  fs.writeFileSync(p, smallNet);
  const o = (f) => path.join(dir, f);
  assert.equal(run(['optimize', p, 'null', o('f32.param'), o('f32.bin'), '0', '--seed', '1']).code, 0);
  for (const flag of ['1', '65536']) {
    assert.equal(run(['optimize', p, 'null', o('f16.param'), o('f16.bin'), flag, '--seed', '1']).code, 0);
    const f16 = fs.readFileSync(o('f16.bin'));
    assert.ok(f16.length < fs.readFileSync(o('f32.bin')).length);
    assert.equal(f16.readUInt32LE(0), 0x01306b47);
    const v = run(['verify', p, 'null', o('f16.param'), o('f16.bin'), '--seed', '1', '--tolerance', '1e-2']);
    assert.equal(v.code, 0, v.out);
  }
  // a weight outside fp16's range keeps its array fp32, with a warning naming the layer
  fs.writeFileSync(o('big.param'), '7767517\n2 2\nInput data 0 1 data 0=7 1=6 2=3\n' +
    'Convolution conv1 1 1 data out 0=4 1=3 4=1 5=1 6=108\n');
  const bin = Buffer.alloc(4 + 108 * 4 + 4 * 4);
  for (let i = 0; i < 108; i++) bin.writeFloatLE(i === 5 ? 1e6 : 0.01 * i, 4 + 4 * i);
  fs.writeFileSync(o('big.bin'), bin);
  const big = run(['optimize', o('big.param'), o('big.bin'), o('big16.param'), o('big16.bin'), '1']);
  assert.equal(big.code, 0, big.err);
  assert.match(big.err, /layer 'conv1' \(Convolution\) weight_data has values outside fp16 range; kept as fp32/);
  assert.deepEqual(fs.readFileSync(o('big16.bin')), bin);
  // cut from relu1 to gp: an Input for c1, the output g
  const c = run(['optimize', p, 'null', o('cut.param'), o('cut.bin'), '0', 'relu1', 'gp', '--seed', '1']);
  assert.equal(c.code, 0, c.err);
  const text = fs.readFileSync(o('cut.param'), 'utf8');
  assert.match(text, /^Input\s+c1\s+0 1 c1 .*0=7 1=6 2=4/m);
  assert.doesNotMatch(text, /^Convolution/m);
  assert.match(text, /^Pooling\s+gp\s+1 1 r1 g/m);
  // cutstart alone: to the model's end
  assert.equal(run(['optimize', p, 'null', o('cut2.param'), o('cut2.bin'), '0', 'gp', '--seed', '1']).code, 0);
  const text2 = fs.readFileSync(o('cut2.param'), 'utf8');
  assert.match(text2, /^Input\s+d\s+0 1 d .*0=7 1=6 2=4/m);
  assert.match(text2, /^InnerProduct\s+fc\s+1 1 g out/m);
});

test('optimize then verify a zoo model', { skip: needs(zooFixture) }, () => {
  const dir = tmp();
  const o = (f) => path.join(dir, f);
  const model = path.join(zoo, 'mobilenet.param');
  const r = run(['optimize', model, 'null', o('m.param'), o('m.bin'), '--seed', '1', `--report=${o('r.json')}`]);
  assert.equal(r.code, 0, r.err);
  const v = run(['verify', model, 'null', o('m.param'), o('m.bin'), '--seed', '1', '--json']);
  assert.equal(v.code, 0, v.out + v.err);
  assert.equal(JSON.parse(v.out).passed, true);
});

// The npm CLI (bin/nnfold.mjs: the same C++ built for Node, both flavours) prints and writes what
// the native one does.

function npm(args, cwd, flavour = 'base') {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/nnfold.mjs'), ...args],
    { cwd, env: { ...process.env, NNFOLD_WASM: flavour }, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout.toString('latin1'), err: r.stderr.toString('latin1') };
}
function nat(args, cwd) {
  const r = spawnSync(nnfold, args, { cwd, maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout.toString('latin1'), err: r.stderr.toString('latin1') };
}

test('npm CLI optimize and verify match the native CLI', { skip: needs(distFixture) }, () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'm.param'), smallNet);
  fs.writeFileSync(path.join(dir, 'nos.param'), smallNet.replace('0=7 1=6 2=3', ''));
  const cases = [
    ['optimize', '--help'], ['verify', '--help'], ['optimize', '--list-passes'], ['optimize', 'm.param'],
    ['optimize', 'm.param', 'null', 'o.param', 'o.bin', '9'], ['optimize', 'm.param', 'null', 'o.param', 'o.bin', '--passes=nope'],
    ['optimize', 'missing.param', 'null', 'o.param', 'o.bin'], ['optimize', 'm.param', 'null', 'o.param', 'o.bin', '--keep=nope'],
    ['optimize', 'm.param', 'null', 'o.param', 'o.bin', '0', 'nope'], ['optimize', 'nos.param', 'null', 'o.param', 'o.bin'],
    ['verify', 'm.param', 'null'], ['verify', 'm.param', 'null', 'missing.param', 'null'],
    ['verify', 'm.param', 'null', 'm.param', 'null', '--tolerance', 'x'], ['verify', 'nos.param', 'null', 'nos.param', 'null'],
  ];
  for (const flavour of ['base', 'simd']) {
    for (const args of cases) {
      const n = nat(args, dir), j = npm(args, dir, flavour);
      assert.equal(j.code, n.code, `${flavour}: ${args.join(' ')}\n${n.err}\n${j.err}`);
      assert.equal(j.err, n.err, `${flavour}: ${args.join(' ')}`);
      assert.equal(j.out, n.out, `${flavour}: ${args.join(' ')}`);
    }
  }
  // files, report, lines: the same bytes (optimize runs natively then in wasm, fp32 and fp16, a cut)
  const runs = [
    ['--seed', '3', '--explain'], ['1', '--seed', '2', '--keep=relu1'], ['0', 'relu1', 'gp', '--seed', '1'],
    ['--shape', 'data=3,5,4', '--passes=fuse_convolution_activation,eliminate_dropout'],
  ];
  for (const extra of runs) {
    const model = extra.includes('--shape') ? 'nos.param' : 'm.param';
    const n = nat(['optimize', model, 'null', 'n.param', 'n.bin', ...extra, '--report=n.json'], dir);
    assert.equal(n.code, 0, n.err);
    // the optimizer does not run the model: the SIMD flavour writes the same bytes too
    for (const flavour of ['base', 'simd']) {
      const j = npm(['optimize', model, 'null', 'j.param', 'j.bin', ...extra, '--report=j.json'], dir, flavour);
      assert.equal(j.code, 0, j.err);
      assert.equal(j.err, n.err, `${flavour}: ${extra.join(' ')}`);
      for (const [a, b] of [['n.param', 'j.param'], ['n.bin', 'j.bin'], ['n.json', 'j.json']]) {
        assert.ok(fs.readFileSync(path.join(dir, a)).equals(fs.readFileSync(path.join(dir, b))), `${flavour}: ${a} ${extra.join(' ')}`);
      }
    }
    // verify, text and JSON, passing and failing
    for (const v of [[], ['--json'], ['--tolerance', '0', '--no-divergence'], ['--seed', '9', '--json']]) {
      const args = ['verify', model, 'null', 'n.param', 'n.bin', ...(model === 'nos.param' ? ['--shape', 'data=3,5,4'] : []), ...v];
      const vn = nat(args, dir), vj = npm(args, dir);
      assert.equal(vj.code, vn.code, args.join(' '));
      // errors agree to 5 significant digits (native libm vs the wasm one may differ in the last
      // bits: docs/numbers.md); everything else in the text is identical
      const digits = (s) => s.replace(/-?\d+\.\d+(e[-+]?\d+)?/gi, (x) => Number(x).toPrecision(5));
      assert.equal(digits(vj.out), digits(vn.out), args.join(' '));
      assert.equal(digits(vj.err), digits(vn.err), args.join(' '));
    }
  }
});
