// The npm CLI (bin/nnfold.mjs starting dist/nnfold-cli-<flavour>.cjs, the C++ CLI built for Node)
// against the native CLI (build/nnfold): the same stdout, stderr and exit codes for help, usage
// errors and bad input in both flavours, and byte-identical files (randomize, convert, run .f32
// outputs) on every zoo model this build loads. The runs use the baseline flavour and the SIMD
// flavour with --no-simd: the same scalar arithmetic as native (docs/numbers.md's 1e-5 budget
// covers what may differ; here nothing does). Also the launcher's own part: flavour choice,
// arguments as given, and a clear error when the package's CLI files are missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { convReluBin, convReluParam, distFixture, nativeCliFixture, needs, root, smallNetParam, zoo, zooFixture, zooModels, zooShapes } from './helpers.mjs';

const nativeBin = path.join(root, 'build/nnfold');
const skip = needs(distFixture, nativeCliFixture);

function cli(which, args, opts = {}) {
  const [cmd, pre] = which === 'native' ? [nativeBin, []] : [process.execPath, [path.join(root, 'bin/nnfold.mjs')]];
  const env = { ...process.env, NNFOLD_WASM: opts.flavour ?? 'base' };
  const r = spawnSync(cmd, [...pre, ...args], { cwd: opts.cwd, env, maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout.toString('latin1'), stderr: r.stderr.toString('latin1') };
}

function same(args, opts = {}) {
  const n = cli('native', args, opts), j = cli('js', args, opts);
  assert.equal(j.status, n.status, `exit code of ${args.join(' ')}: native ${n.status}, npm ${j.status}\n${n.stderr}\n${j.stderr}`);
  assert.equal(j.stderr, n.stderr, `stderr of ${args.join(' ')}`);
  assert.equal(j.stdout, n.stdout, `stdout of ${args.join(' ')}`);
  return n;
}

function sameFile(a, b) {
  const x = fs.readFileSync(a), y = fs.readFileSync(b);
  assert.ok(x.equals(y), `${path.basename(a)}: ${x.length} vs ${y.length} bytes, not identical`);
}

test('help, version and usage errors match the native CLI', { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-cli-'));
  try {
    fs.writeFileSync(path.join(tmp, 'm.param'), convReluParam);
    fs.writeFileSync(path.join(tmp, 'bogus.param'), '7767517\n1 1\nBogusLayer x 0 1 x\n');
    fs.writeFileSync(path.join(tmp, 'short.bin'), convReluBin().subarray(0, 10));
    fs.writeFileSync(path.join(tmp, 'seven.f32'), new Uint8Array(28));
    const cases = [
      [[], 2], [['--help'], 0], [['-h'], 0], [['help'], 0], [['--version'], 0], [['bogus'], 2],
      [['run', '--help'], 0], [['info', '--help'], 0], [['randomize', '--help'], 0], [['convert', '--help'], 0],
      [['run'], 2], [['run', 'a', 'b', 'c'], 2], [['run', 'm.param', '--bogus'], 2], [['run', 'm.param', '--seed'], 2],
      [['run', 'm.param', '--seed', 'x'], 2], [['run', 'm.param', '--seed', '99999999999'], 2],
      [['run', 'm.param', '--shape', 'data=1,x'], 2], [['run', 'm.param', '--shape', 'nope'], 2],
      [['run', 'm.param', '--help=3'], 2], [['info'], 2], [['randomize', 'm.param'], 2], [['convert', 'm.param', 'x'], 2],
      [['run', 'nope.param'], 1], [['info', 'nope.param'], 1], [['info', 'bogus.param'], 1], [['run', 'bogus.param'], 1],
      [['run', 'm.param', 'short.bin'], 1], [['run', 'm.param', '--input', 'data'], 2],
      [['run', 'm.param', '--input', 'nope=seven.f32'], 1], [['run', 'm.param', '--input', 'data=seven.f32'], 1],
      [['run', 'm.param', '--input', 'data=missing.f32'], 1], [['run', 'm.param', '--output', 'nope'], 1],
      [['run', 'm.param', '--shape', 'data=3,2,2'], 1], [['convert', 'nope.param', 'null', 'o.param', 'o.bin'], 1],
      [['randomize', 'bogus.param', 'o.bin'], 1], [['info', 'm.param', '--shape', 'nope=1'], 1],
      [['run', 'm.param', '--threads', '0'], 2], [['run', 'm.param', '--threads', 'x'], 2],
      [['run', 'm.param', '--threads', '65'], 2], [['run', 'm.param', '--threads'], 2], [['info', 'm.param', '--threads', '1'], 2],
      [['verify', 'm.param', 'null', 'm.param', 'null', '--threads', '-1'], 2],
      [['bench', '--help'], 0], [['bench'], 2], [['bench', 'm.bin'], 2], [['bench', 'm.param', '--runs', '0'], 2],
      [['bench', 'm.param', '--layers', 'x'], 2], [['bench', 'm.param', '--shape', 'nope'], 2],
    ];
    for (const flavour of ['base', 'simd']) {
      for (const [args, code] of cases) {
        const r = same(args, { cwd: tmp, flavour });
        assert.equal(r.status, code, `${flavour}: ${args.join(' ')}: exit ${r.status}, expected ${code}\n${r.stderr}`);
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('the launcher: flavours, arguments as given, absolute paths, clear errors', { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-cli-'));
  try {
    // a name with a space, a quote and non-ASCII letters reaches the C++ argv unchanged
    const odd = "m ö'x.param";
    fs.writeFileSync(path.join(tmp, odd), convReluParam);
    fs.writeFileSync(path.join(tmp, 'm.bin'), convReluBin());
    for (const flavour of ['base', 'simd']) {
      const rel = same(['info', odd, 'm.bin'], { cwd: tmp, flavour });
      assert.equal(rel.status, 0, rel.stderr);
      assert.ok(rel.stdout.startsWith(`${Buffer.from(odd).toString('latin1')}: 3 layers`), rel.stdout);
      // absolute paths from another working directory; the output directories are created
      for (const w of ['native', 'js']) {
        const out = path.join(tmp, `out-${w}-${flavour}`, 'sub');
        const r = cli(w, ['run', path.join(tmp, odd), path.join(tmp, 'm.bin'), '--seed', '4', '--output-dir', out, '--output', 'out'], { cwd: os.tmpdir(), flavour });
        assert.equal(r.status, 0, r.stderr);
        assert.equal(fs.statSync(path.join(out, 'out.f32')).size, 48);
      }
      // the same arithmetic as native in the baseline flavour (SIMD layers may sum in another order)
      if (flavour === 'base') sameFile(path.join(tmp, 'out-native-base/sub/out.f32'), path.join(tmp, 'out-js-base/sub/out.f32'));
    }
    // the flavour each one runs: the summary says whether SIMD layers ran
    const simd = JSON.parse(cli('js', ['run', odd, 'm.bin'], { cwd: tmp, flavour: 'simd' }).stdout).simd;
    const base = JSON.parse(cli('js', ['run', odd, 'm.bin'], { cwd: tmp, flavour: 'base' }).stdout).simd;
    assert.deepEqual([simd, base], [true, false]);
    const bad = cli('js', ['--version'], { flavour: 'fast' });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, "nnfold: NNFOLD_WASM must be 'simd', 'base' or 'simd-threads', got 'fast'\n");
    // a package without its CLI files: exit 3 naming the missing file
    const pkg = path.join(tmp, 'pkg');
    fs.mkdirSync(path.join(pkg, 'bin'), { recursive: true });
    fs.mkdirSync(path.join(pkg, 'dist'));
    fs.copyFileSync(path.join(root, 'bin/nnfold.mjs'), path.join(pkg, 'bin/nnfold.mjs'));
    fs.copyFileSync(path.join(root, 'dist/index.mjs'), path.join(pkg, 'dist/index.mjs'));
    fs.writeFileSync(path.join(pkg, 'package.json'), '{"type": "module"}');
    const r = spawnSync(process.execPath, [path.join(pkg, 'bin/nnfold.mjs'), '--version'], { env: { ...process.env, NNFOLD_WASM: 'base' } });
    assert.equal(r.status, 3);
    assert.match(r.stderr.toString(), /^nnfold: .*dist\/nnfold-cli-base\.wasm is missing: this nnfold package is incomplete/);
    assert.equal(r.stdout.length, 0);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('inline models: info, run with given inputs and intermediate outputs, convert', { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-cli-'));
  try {
    fs.writeFileSync(path.join(tmp, 'm.param'), convReluParam);
    fs.writeFileSync(path.join(tmp, 'm.bin'), convReluBin());
    fs.writeFileSync(path.join(tmp, 's.param'), smallNetParam);
    fs.writeFileSync(path.join(tmp, 'x.f32'), new Uint8Array(new Float32Array([1, 2, 3, 4, -1, 0.5, 2, -3]).buffer));
    same(['info', 'm.param', 'm.bin'], { cwd: tmp });
    same(['info', 's.param', '--json'], { cwd: tmp });
    for (const w of ['native', 'js']) {
      const r = cli(w, ['run', 'm.param', 'm.bin', '--input', 'data=x.f32', '--output', 'conv', '--output', 'out', '--output-dir', w], { cwd: tmp });
      assert.equal(r.status, 0, r.stderr);
      const s = cli(w, ['run', 's.param', '--seed', '7', '--output-dir', `${w}-s`], { cwd: tmp });
      assert.equal(s.status, 0, s.stderr);
      const c = cli(w, ['convert', 's.param', 'null', `${w}.param`, `${w}.bin`, '--seed', '3', '--fp16'], { cwd: tmp });
      assert.equal(c.status, 0, c.stderr);
    }
    for (const f of ['conv.f32', 'out.f32']) sameFile(path.join(tmp, 'native', f), path.join(tmp, 'js', f));
    const out = new Float32Array(new Uint8Array(fs.readFileSync(path.join(tmp, 'js', 'out.f32'))).buffer);
    assert.equal(out[0], 3.5); // relu(1*1 + -2*-1 + 0.5), by hand
    sameFile(path.join(tmp, 'native-s', 'prob.f32'), path.join(tmp, 'js-s', 'prob.f32'));
    sameFile(path.join(tmp, 'native.param'), path.join(tmp, 'js.param'));
    sameFile(path.join(tmp, 'native.bin'), path.join(tmp, 'js.bin'));
    const a = JSON.parse(fs.readFileSync(path.join(tmp, 'native', 'summary.json'), 'utf8'));
    const b = JSON.parse(fs.readFileSync(path.join(tmp, 'js', 'summary.json'), 'utf8'));
    for (const s of [a, b]) {
      delete s.ms;
      // the thread count each CLI ran with (native: the machine's cores by default; the wasm CLI
      // has as many as its flavour allows): reported, not part of the parity (outputs are the same
      // bits at any count, tests/cpp/threads)
      assert.ok(Number.isInteger(s.threads) && s.threads >= 1, `threads ${s.threads}`);
      delete s.threads;
    }
    assert.deepEqual(b, a);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('bench: a row per model, JSON with the timing fields, a failing model reported while the others run', { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-cli-'));
  try {
    fs.writeFileSync(path.join(tmp, 'm.param'), convReluParam);
    fs.writeFileSync(path.join(tmp, 'm.bin'), convReluBin());
    fs.writeFileSync(path.join(tmp, 's.param'), smallNetParam);
    for (const w of ['native', 'js']) {
      const t = cli(w, ['bench', 'm.param', 'm.bin', 's.param', '--runs', '2', '--warmup', '1', '--threads', '1', '--layers', '2'], { cwd: tmp });
      assert.equal(t.status, 0, `${w}: ${t.stderr}`);
      const lines = t.stdout.trim().split('\n');
      assert.match(lines[0], /^nnfold bench: 1 thread, 2 runs after 1 warm-up$/);
      const rows = lines.filter((l) => /min = .* max = .* avg = .* median = .* ms$/.test(l));
      assert.deepEqual(rows.map((l) => l.trim().split(/\s+/)[0]), ['m', 's'], t.stdout);
      const j = cli(w, ['bench', 's.param', 'missing.param', 'm.param', '--json', '--runs', '3', '--threads', '1', '--layers', '1'], { cwd: tmp });
      assert.equal(j.status, 1, `${w}: one model failed: exit 1`);
      const r = JSON.parse(j.stdout);
      assert.equal(r.runs, 3);
      assert.equal(r.warmup, 3);
      assert.equal(r.threads, 1);
      assert.deepEqual(r.models.map((m) => m.model), ['s.param', 'missing.param', 'm.param']);
      for (const m of [r.models[0], r.models[2]]) {
        for (const k of ['min_ms', 'max_ms', 'mean_ms', 'median_ms', 'peak_bytes']) assert.ok(Number.isFinite(m[k]) && m[k] >= 0, `${m.model} ${k}: ${m[k]}`);
        assert.ok(m.min_ms <= m.median_ms && m.median_ms <= m.max_ms, JSON.stringify(m));
        assert.equal(m.layers.length, 1);
        assert.ok(m.peak_bytes > 0);
      }
      assert.equal(r.models[1].error, 'invalid_argument');
      assert.match(r.models[1].message, /missing\.param/);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('zoo models: randomize, convert and run give the native bytes', { skip: needs(distFixture, nativeCliFixture, zooFixture), timeout: 900000 }, async (t) => {
  let compared = 0;
  for (const model of zooModels()) {
    const param = path.join(zoo, model + '.param');
    const shapeArgs = Object.entries(zooShapes[model] ?? {}).flatMap(([k, v]) => ['--shape', `${k}=${v.join(',')}`]);
    // the info text (or the error for a model with layer types not implemented yet) is the same
    const info = same(['info', param, ...shapeArgs]);
    if (info.status !== 0) continue;
    await t.test(model, () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `nnfold-cli-${model}-`));
      try {
        const p = (f) => path.join(tmp, f);
        for (const w of ['native', 'js']) {
          const r = cli(w, ['randomize', param, p(`${w}.bin`), '--seed', '1']);
          assert.equal(r.status, 0, r.stderr);
          for (const fp16 of [false, true]) {
            const c = cli(w, ['convert', param, p(`${w}.bin`), p(`${w}${fp16}.param`), p(`${w}${fp16}.bin`), ...shapeArgs, ...(fp16 ? ['--fp16'] : [])]);
            assert.equal(c.status, 0, c.stderr);
          }
        }
        sameFile(p('native.bin'), p('js.bin'));
        for (const fp16 of [false, true]) {
          sameFile(p(`native${fp16}.param`), p(`js${fp16}.param`));
          sameFile(p(`native${fp16}.bin`), p(`js${fp16}.bin`));
        }
        same(['info', param, p('native.bin'), '--json', ...shapeArgs]);
        // runs: the largest models (vision_transformer) only in the randomize/convert checks
        const weights = fs.statSync(p('native.bin')).size;
        if (weights > 64 << 20) return;
        // js-simd with --no-simd runs the reference layers: compared with native --reference (the
        // optimized layers' scalar twins may sum in another order than the reference)
        const runs = [['native', 'base', []], ['js', 'base', []], ['js', 'simd', ['--no-simd']], ['native', 'ref', ['--reference']]];
        const summaries = [];
        for (const [w, flavour, extra] of runs) {
          const dir = p(`run-${w}-${flavour}`);
          // one thread on both sides: peak_bytes is compared, and a split layer holds a scratch
          // buffer per part (the outputs are the same bits at any count: tests/cpp/threads)
          const r = cli(w, ['run', param, p('native.bin'), '--seed', '2', '--output-dir', dir, '--threads', '1', ...shapeArgs, ...extra], { flavour });
          assert.equal(r.status, 0, r.stderr);
          const s = JSON.parse(r.stdout);
          delete s.ms;
          delete s.threads; // the count each CLI ran with: reported, not compared
          summaries.push(s);
        }
        for (const o of summaries[0].outputs) {
          sameFile(p(`run-native-base/${o.file}`), p(`run-js-base/${o.file}`));
          sameFile(p(`run-native-ref/${o.file}`), p(`run-js-simd/${o.file}`));
        }
        assert.deepEqual(summaries[1], summaries[0]);
        // the SIMD module's optimized layers size their workspaces differently: outputs are the
        // same bytes (above), the measured peak is its own
        delete summaries[2].peak_bytes;
        delete summaries[3].peak_bytes;
        assert.deepEqual(summaries[2], summaries[3]);
        compared++;
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
  assert.ok(compared >= 1, 'at least one zoo model ran in both CLIs');
});

// Issue 6: the npm CLI's optimize gives byte-identical files (and the same rewrite log and report)
// to the native CLI on every zoo model this build loads, fp32 and fp16 storage. (The zoo files come
// out of ncnnoptimize already, so most have nothing left to rewrite: the fp16 files still differ
// from the input, and the optimizer's own tests cover the rewrites.)
test('zoo models: optimize gives the native bytes, log and report', { skip: needs(distFixture, nativeCliFixture, zooFixture), timeout: 1800000 }, async (t) => {
  let compared = 0;
  for (const model of zooModels()) {
    const param = path.join(zoo, model + '.param');
    const shapeArgs = Object.entries(zooShapes[model] ?? {}).flatMap(([k, v]) => ['--shape', `${k}=${v.join(',')}`]);
    if (cli('native', ['info', param, ...shapeArgs]).status !== 0) continue;
    await t.test(model, () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `nnfold-opt-${model}-`));
      try {
        const p = (f) => path.join(tmp, f);
        for (const flag of ['0', '1']) {
          const logs = {};
          for (const w of ['native', 'js']) {
            const r = cli(w, ['optimize', param, 'null', p(`${w}${flag}.param`), p(`${w}${flag}.bin`), flag,
              '--seed', '3', `--report=${p(`${w}${flag}.json`)}`, ...shapeArgs]);
            assert.equal(r.status, 0, `${w} optimize ${model}: ${r.stderr}`);
            logs[w] = r.stderr;
          }
          assert.equal(logs.js, logs.native, 'rewrite log');
          sameFile(p(`native${flag}.param`), p(`js${flag}.param`));
          sameFile(p(`native${flag}.bin`), p(`js${flag}.bin`));
          const [a, b] = ['native', 'js'].map((w) => JSON.parse(fs.readFileSync(p(`${w}${flag}.json`), 'utf8')));
          assert.deepEqual(b, a, 'report JSON');
        }
        compared++;
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
  assert.ok(compared >= 12, `optimize compared on ${compared} zoo models`);
});

// An ONNX model through both CLIs: a tf2onnx-style NHWC input (Transpose absorbed at import, so
// inputs are given in NHWC) feeding Conv + Relu. Same stdout/stderr/exit codes for info, usage
// errors and a truncated file; byte-identical run outputs, converted files and .io.json; the
// converted .param picks up its .io.json in both. Expected values by hand from the weights.
test('ONNX: .onnx and a converted .param with its .io.json give the same results in both CLIs', { skip }, async () => {
  const { makeModel, tensor } = await import('./onnx/harness.mjs');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-cli-onnx-'));
  try {
    // w[o][i] for a 1x1 conv from 3 to 2 channels; bias
    const w = [1, -1, 0.5, 0.25, 2, -0.5], b = [0.5, -1];
    const bytes = makeModel({
      inputs: [{ name: 'image', shape: [1, 4, 4, 3] }],
      outputs: [{ name: 'features', shape: [1, 2, 4, 4] }],
      inits: [tensor('w', [2, 3, 1, 1], w), tensor('b', [2], b)],
      nodes: [
        { op: 'Transpose', inputs: ['image'], outputs: ['nchw'], attrs: { perm: [0, 3, 1, 2] } },
        { op: 'Conv', inputs: ['nchw', 'w', 'b'], outputs: ['conv'], attrs: { kernel_shape: [1, 1] } },
        { op: 'Relu', inputs: ['conv'], outputs: ['features'] },
      ],
    });
    fs.writeFileSync(path.join(tmp, 'm.onnx'), bytes);
    fs.writeFileSync(path.join(tmp, 'cut.onnx'), bytes.subarray(0, Math.floor(bytes.length / 2)));
    const x = new Float32Array(48).map((_, i) => ((i * 7) % 11) / 5 - 1);
    fs.writeFileSync(path.join(tmp, 'x.f32'), new Uint8Array(x.buffer));
    const cases = [
      [['info', 'm.onnx'], 0], [['info', 'm.onnx', '--json'], 0], [['info', 'm.onnx', 'm.bin'], 2],
      [['convert', 'm.onnx', 'o.param'], 2], [['run', 'm.onnx', '--shape', 'image=0,4'], 2],
      [['run', 'm.onnx', 'm.bin'], 1], [['info', 'cut.onnx'], 1], [['run', 'm.onnx', '--shape', 'nope=1,4,4,3'], 1],
      [['run', 'm.onnx', '--input', 'image=m.onnx'], 1],
      [['optimize', 'm.onnx', 'null', 'o.param', 'o.bin'], 1], [['verify', 'm.onnx', 'null', 'm.onnx', 'null'], 1],
    ];
    for (const [args, code] of cases) {
      const r = same(args, { cwd: tmp });
      assert.equal(r.status, code, `${args.join(' ')}: exit ${r.status}, expected ${code}\n${r.stderr}`);
    }
    assert.match(same(['info', 'm.onnx'], { cwd: tmp }).stdout, /input {2}image +\[1,4,4,3\] NHWC \(ncnn blob/);
    for (const wh of ['native', 'js']) {
      const r = cli(wh, ['run', 'm.onnx', '--input', 'image=x.f32', '--output-dir', `${wh}-onnx`], { cwd: tmp });
      assert.equal(r.status, 0, r.stderr);
      const c = cli(wh, ['convert', 'm.onnx', `${wh}.param`, `${wh}.bin`], { cwd: tmp });
      assert.equal(c.status, 0, c.stderr);
      const p = cli(wh, ['run', `${wh}.param`, `${wh}.bin`, '--input', 'image=x.f32', '--output-dir', `${wh}-param`], { cwd: tmp });
      assert.equal(p.status, 0, p.stderr);
    }
    for (const f of ['native.param', 'native.bin', 'native.io.json'])
      sameFile(path.join(tmp, f), path.join(tmp, f.replace('native', 'js')));
    for (const d of ['js-onnx', 'native-param', 'js-param']) sameFile(path.join(tmp, 'native-onnx/features.f32'), path.join(tmp, d, 'features.f32'));
    const summaries = ['native-onnx', 'js-onnx', 'native-param', 'js-param'].map((d) => {
      const s = JSON.parse(fs.readFileSync(path.join(tmp, d, 'summary.json'), 'utf8'));
      delete s.ms;
      delete s.simd;
      delete s.peak_bytes;
      delete s.threads;
      return s;
    });
    for (const s of summaries.slice(1)) assert.deepEqual(s, summaries[0]);
    assert.deepEqual(summaries[0].outputs[0].shape, [1, 2, 4, 4]);
    // by hand: features[o][y][x] = relu(b[o] + sum_i w[o][i] * image[y][x][i]) (NHWC input)
    const got = new Float32Array(new Uint8Array(fs.readFileSync(path.join(tmp, 'native-onnx/features.f32'))).buffer);
    for (let o = 0; o < 2; o++) {
      for (let p = 0; p < 16; p++) {
        let v = b[o];
        for (let i = 0; i < 3; i++) v += w[o * 3 + i] * x[p * 3 + i];
        assert.ok(Math.abs(got[o * 16 + p] - Math.max(v, 0)) <= 1e-6, `features[${o}][${p}]: ${got[o * 16 + p]} vs ${Math.max(v, 0)}`);
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
