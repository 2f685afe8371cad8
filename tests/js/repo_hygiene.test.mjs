// The repository stands on its own: code, tests and docs cite the repository's docs/ folder, never
// the team's agreement outside it (the file named below by parts, so this test does not find itself).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outside = ['CONVEN' + 'TIONS', '../shared/' + 'STYLE', '../shared/' + 'TOOLCHAIN'];
const skipDirs = new Set(['node_modules', 'dist', 'artifacts', 'corpus', 'findings', 'generated']);
const textExt = /\.(c|cc|cpp|h|hpp|mjs|js|cjs|ts|json|md|html|css|py|sh|cmake|txt|tsv)$/;

function* files(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (skipDirs.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (textExt.test(e.name) || e.name === 'CMakeLists.txt') yield p;
  }
}

test('src, wasm, web, tests, bin and docs cite no file outside the repository', () => {
  const hits = [];
  let n = 0;
  for (const top of ['src', 'wasm', 'web', 'tests', 'bin', 'docs']) {
    const dir = path.join(root, top);
    if (!fs.existsSync(dir)) continue;
    for (const f of files(dir)) {
      n++;
      const text = fs.readFileSync(f, 'utf8');
      text.split('\n').forEach((line, i) => {
        for (const o of outside) if (line.includes(o)) hits.push(`${path.relative(root, f)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.ok(n > 200, `read ${n} files`);
  assert.deepEqual(hits, [], 'cite docs/ instead:\n' + hits.join('\n'));
});
