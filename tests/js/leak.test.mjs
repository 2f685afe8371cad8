// Leak check: after a warm-up, 1,000 load/optimize/run/dispose cycles keep the allocator's live bytes
// (dlmalloc mallinfo, exposed as heapStats().allocated; memory.buffer only ever grows) within a
// stated bound: 64 KiB over the warmed-up level, far below one cycle's ~10 KiB of weights times
// 1,000.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi, distFixture, needs, smallNetParam } from './helpers.mjs';

const kBound = 64 * 1024;

for (const simd of [undefined, false]) {
  test(`[${simd === false ? 'base' : 'simd'}] 1,000 load/optimize/run/dispose cycles do not leak`, { skip: needs(distFixture) }, async () => {
    const { init } = await loadApi();
    const nf = await init({ simd });
    const cycle = (i) => {
      const m = nf.loadNcnn(smallNetParam, null, { seed: i });
      const report = m.optimize();
      assert.equal(report.after.layers, report.before.layers - 1); // ReLU fused into conv
      const out = m.run(nf.randomInputs(m, i));
      assert.equal(out.prob.data.length, 10);
      m.toNcnn();
      m.info();
      m.dispose();
    };
    for (let i = 0; i < 20; i++) cycle(i);
    const before = nf.heapStats();
    for (let i = 0; i < 1000; i++) cycle(i);
    const after = nf.heapStats();
    const grown = after.allocated - before.allocated;
    assert.ok(grown <= kBound, `live heap bytes grew by ${grown} (bound ${kBound})`);
    // models that are never disposed do show up: the measure can see a leak
    const kept = [];
    for (let i = 0; i < 10; i++) kept.push(nf.loadNcnn(smallNetParam, null));
    assert.ok(nf.heapStats().allocated - after.allocated > 10 * 762 * 4);
    for (const m of kept) m.dispose();
  });
}
