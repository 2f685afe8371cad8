// The missing-fixture rule of helpers.mjs (needs / skipOrFail): a probe test file that needs an
// absent fixture is run in a child `node --test`, once locally (skipped, with what is missing and
// how to get it) and once with CI=true (the run fails, naming the fixture).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const helpers = pathToFileURL(path.join(import.meta.dirname, 'helpers.mjs')).href;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-fixture-'));
const probe = path.join(dir, 'probe.test.mjs');
fs.writeFileSync(probe, `
import { test } from 'node:test';
import { fixture, needs, skipOrFail } from ${JSON.stringify(helpers)};
const absent = fixture('the probe zoo at /nonexistent/zoo', false, 'put the probe files there');
const present = fixture('a present file', true, 'nothing to do');
test('needs an absent fixture', { skip: needs(present, absent) }, () => { throw new Error('ran without its fixture'); });
test('needs a present fixture', { skip: needs(present) }, () => {});
test('a subtest needs an absent fixture', async (t) => {
  await t.test('inner', (st) => { skipOrFail(st, absent); if (!process.env.CI) return; throw new Error('not reached'); });
});
`);

// The probe run with CI set or unset; NNFOLD_ZOO_DIR points nowhere so that helpers.mjs's own
// fixtures do not depend on this machine (dist/ may or may not be built: only the probe's names are
// checked).
function runProbe(ci) {
  const env = { ...process.env, NNFOLD_ZOO_DIR: path.join(dir, 'no-zoo') };
  delete env.CI;
  delete env.NODE_TEST_CONTEXT; // set by the outer runner: the child would refuse to run as a test file
  if (ci) env.CI = ci;
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', probe], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

test('locally a missing fixture skips, saying what is missing and how to get it', () => {
  const r = runProbe(null);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /ok \d+ - needs an absent fixture # SKIP missing fixture: the probe zoo at \/nonexistent\/zoo; to get it: put the probe files there/);
  assert.match(r.out, /ok \d+ - inner # SKIP missing fixture: the probe zoo/);
  assert.match(r.out, /ok \d+ - needs a present fixture\n/);
  assert.doesNotMatch(r.out, /not ok/);
});

for (const ci of ['true', '1']) {
  test(`under CI=${ci} a missing fixture fails the run, naming it`, () => {
    const r = runProbe(ci);
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /not ok \d+ - missing fixture: the probe zoo at \/nonexistent\/zoo/);
    assert.match(r.out, /missing fixture: the probe zoo at \/nonexistent\/zoo; to get it: put the probe files there \(CI\)/);
    assert.match(r.out, /not ok \d+ - inner/);
    // the dependent test itself is not run without its fixture
    assert.doesNotMatch(r.out, /ran without its fixture/);
    assert.match(r.out, /ok \d+ - needs a present fixture\n/);
  });
}

test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
