#!/usr/bin/env node
// Load an ncnn model, optimize it when this build has the optimizer, check the result, and write
// the files: the build-script use of the npm package.
//
//   node examples/node-optimize.mjs IN.param [IN.bin|null] OUT_DIR [--fp16]
//
// Without a .bin (or with null) the model gets nnfold's seeded random weights, which is enough to
// see what the optimizer does to a structure. In a project, import from 'nnfold'.
import fs from 'node:fs';
import path from 'node:path';
import { init } from '../dist/index.mjs';

const args = process.argv.slice(2);
const fp16 = args.includes('--fp16');
const pos = args.filter((a) => !a.startsWith('--'));
if (pos.length < 2 || pos.length > 3) {
  console.error('usage: node examples/node-optimize.mjs IN.param [IN.bin|null] OUT_DIR [--fp16]');
  process.exit(2);
}
const [paramPath, binPath, outDir] = pos.length === 3 ? pos : [pos[0], 'null', pos[1]];

const nf = await init();
console.log(`nnfold ${nf.version} (${nf.build} build)`);
const bin = binPath === 'null' ? null : fs.readFileSync(binPath);
const model = nf.loadNcnn(fs.readFileSync(paramPath), bin, { paramName: paramPath, binName: binPath });
for (const w of model.warnings) console.warn(`warning: ${w}`);
const before = model.info();
console.log(`loaded: ${before.layers} layers, ${before.weights_file_bytes} bytes of weights`);

// outputs before, on fixed random inputs, to check the optimized model against
const inputs = nf.randomInputs(model, 1);
const reference = model.run(inputs);

if (nf.features.optimize) {
  const report = model.optimize({
    fp16,
    onProgress: ({ done, total }) => process.stdout.write(`\roptimizing ${done}/${total}`),
  });
  process.stdout.write('\n');
  for (const pass of report.passes) {
    if (pass.rewrites.length) console.log(`  ${pass.name}: ${pass.rewrites.length} rewrite(s)`);
  }
  console.log(`layers ${report.before.layers} -> ${report.after.layers}`);
  // docs/numbers.md: max|a-b| / max(max|ref|, 1e-6) per output
  const after = model.run(inputs);
  for (const [name, ref] of Object.entries(reference)) {
    const got = after[name].data;
    let maxRef = 0, maxDiff = 0;
    for (let i = 0; i < ref.data.length; i++) {
      maxRef = Math.max(maxRef, Math.abs(ref.data[i]));
      maxDiff = Math.max(maxDiff, Math.abs(ref.data[i] - got[i]));
    }
    console.log(`  ${name}: err ${(maxDiff / Math.max(maxRef, 1e-6)).toExponential(2)}`);
  }
} else {
  console.log('this build has no optimizer yet: writing the model in canonical form');
}

const files = model.toNcnn({ fp16 });
for (const w of files.warnings) console.warn(`warning: ${w}`);
fs.mkdirSync(outDir, { recursive: true });
const base = path.basename(paramPath, '.param');
fs.writeFileSync(path.join(outDir, `${base}.param`), files.paramBytes);
fs.writeFileSync(path.join(outDir, `${base}.bin`), files.bin);
console.log(`wrote ${path.join(outDir, base)}.param (${files.paramBytes.length} bytes) and .bin (${files.bin.length} bytes)`);
model.dispose();
