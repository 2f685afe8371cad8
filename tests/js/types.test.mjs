// The package's one .d.ts compiles (`tsc --noEmit`) against usage files that import `nnfold`
// through package.json's exports map and reject the misuses marked @ts-expect-error, under each
// tsconfig in tests/js/types/: strict with exactOptionalPropertyTypes everywhere, and
//   tsconfig.json          node16-style ESM resolution (nodenext), DOM + esnext.disposable (`using`)
//   tsconfig.browser.json  bundler resolution, a browser-only lib (no Symbol.dispose, no @types/node)
//   tsconfig.worker.json   bundler resolution, the webworker lib only
//   tsconfig.node.json     node16 resolution, es2022 + @types/node (its own Symbol.dispose)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dist, root } from './helpers.mjs';

const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const haveTypes = fs.existsSync(path.join(dist, 'index.d.ts'));
const skip = (!fs.existsSync(tsc) && 'typescript not installed') || (!haveTypes && 'dist/ not built');
const dir = path.join(root, 'tests/js/types');

for (const config of fs.readdirSync(dir).filter((f) => /^tsconfig.*\.json$/.test(f)).sort()) {
  test(`index.d.ts compiles under tests/js/types/${config}`, { skip }, () => {
    const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join(dir, config)], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc -p ${config} failed:\n${r.stdout}${r.stderr}`);
  });
}
