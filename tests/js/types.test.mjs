// The package's one .d.ts compiles (`tsc --noEmit`) against a usage file that imports `nnfold`
// through package.json's exports map, and rejects the misuses marked @ts-expect-error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { devDependencyFixture, dist, fixture, needs, root } from './helpers.mjs';

const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const types = fixture('dist/index.d.ts', fs.existsSync(path.join(dist, 'index.d.ts')), 'node wasm/assemble.mjs (npm run build)');

test('index.d.ts compiles against tests/js/types/usage.ts', { skip: needs(devDependencyFixture('typescript', tsc), types) }, () => {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(root, 'tests/js/types/tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});
