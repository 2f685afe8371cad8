// The graph view's repeated blocks and its details panel, end to end in headless Chromium (every
// request through the logging proxy of harness.mjs):
// - DenseNet-121 (486 layers, made by graphs.mjs) opens with its four dense blocks collapsed
//   ("6 × 8 layers" ...); a click expands one and a click on its frame's header collapses it,
//   the block staying where it was on screen; the keyboard reaches a block (N), expands it
//   (Enter) and collapses it again (C); search finds a layer folded into a collapsed block,
//   expands the block and centres the layer;
// - layout times of DenseNet-121 and a 1,000-layer chain, collapsed and expanded (reported, not
//   asserted: timings are never test assertions);
// - the optimized DenseNet-121 (random weights) keeps the rewrite marks on its collapsed blocks in
//   both diagrams; a pass-log row highlights the block holding its layers and, picked, opens it;
// - the layer details at 1024 px sit over the diagrams' right side without pushing them down,
//   and the diagram underneath centres the selection in the part left free; at 390 px a sheet
//   at the bottom of the screen, no horizontal scroll.
// Screenshots at 1366x850, 1024x768 and 390x844 go to tests/artifacts/ (blocks-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { skipReason, startProxy, startPage, launch, closeServer, artifacts } from './harness.mjs';
import { densenet121Param, chainParam } from './graphs.mjs';

async function waitIdle(page, timeout = 120000) {
  await page.waitForFunction(() => document.body.dataset.ready === 'true' && !document.body.dataset.busy, null, { timeout });
}

async function snap(page, name, { fullPage = true } = {}) {
  fs.mkdirSync(artifacts, { recursive: true });
  const w = page.viewportSize().width;
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(artifacts, `blocks-${name}-${w}.png`), fullPage });
  // the graph card alone, to read (a full page is too tall to see the diagrams in)
  if (fullPage) {
    // (the sticky section bar would be drawn over the card)
    await page.evaluate(() => { document.querySelector('.steps').style.position = 'static'; });
    await page.locator('#graph').screenshot({ path: path.join(artifacts, `blocks-${name}-${w}-graph.png`) });
    await page.evaluate(() => { document.querySelector('.steps').style.position = ''; });
  }
}

// The graph's host dataset: layers, shown (layer boxes drawn), blocks, collapsed, layoutMs, renderMs.
const graphState = (page, id = 'graph-a') => page.evaluate((i) => ({ ...document.getElementById(i).dataset }), id);
// A box's rectangle in its pane (pane coordinates: the page may scroll between two looks), by
// its key (a layer name, or #block<N>).
const boxRect = (page, key, id = 'graph-a') => page.evaluate(([k, i]) => {
  const g = [...document.querySelectorAll(`#${i} .gnode`)].find((e) => e.dataset.key === k);
  if (!g) return null;
  const r = g.querySelector('rect:not(.back)').getBoundingClientRect();
  const h = document.getElementById(i).getBoundingClientRect();
  return { left: r.left - h.left, top: r.top - h.top, right: r.right - h.left, bottom: r.bottom - h.top, cx: (r.left + r.right) / 2 - h.left, cy: (r.top + r.bottom) / 2 - h.top };
}, [key, id]);
const frameRect = (page, block) => page.evaluate((b) => {
  const r = document.querySelector(`#graph-a .gframe[data-block="${b}"] > rect`)?.getBoundingClientRect();
  const h = document.getElementById('graph-a').getBoundingClientRect();
  return r ? { left: r.left - h.left, top: r.top - h.top } : null;
}, block);
const nextFrame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

async function openParam(page, file, layers) {
  await page.setInputFiles('#file-input', [file]);
  await page.waitForFunction((n) => document.getElementById('graph-a').dataset.layers === String(n) && document.querySelector('#graph-a svg'), layers, { timeout: 120000 });
  await waitIdle(page);
  await nextFrame(page);
}

test('graph view: repeated blocks collapse and expand, search opens them, details beside the diagrams', { skip: skipReason, timeout: 900000 }, async (t) => {
  const proxy = await startProxy();
  const sink = await startProxy();
  const { server, port } = await startPage();
  proxy.state.allow = `127.0.0.1:${port}`;
  const origin = `http://127.0.0.1:${port}`;
  const browser = await launch(proxy.port, sink.port);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-blocks-'));
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1366, height: 850 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const densenet = path.join(tmp, 'densenet121.param');
  fs.writeFileSync(densenet, densenet121Param());
  try {
    await page.goto(`${origin}/?sample=none`);
    await waitIdle(page);

    await t.test('DenseNet-121: four dense blocks collapsed; click expands in place, the frame header collapses', async () => {
      const t0 = Date.now();
      await openParam(page, densenet, 486);
      const ms = Date.now() - t0;
      const st = await graphState(page);
      t.diagnostic(`DenseNet-121 (486 layers), blocks collapsed: shown ${ms} ms after the file was given (layout ${st.layoutMs} ms, drawing ${st.renderMs} ms)`);
      assert.equal(st.blocks, '4');
      assert.equal(st.collapsed, '4');
      assert.equal(Number(st.shown), 486 - (6 + 12 + 24 + 16) * 8);
      const labels = await page.locator('#graph-a .gblock text.t').allTextContents();
      assert.deepEqual(labels, ['▸ 6 × 8 layers', '▸ 12 × 8 layers', '▸ 24 × 8 layers', '▸ 16 × 8 layers']);
      // the unit's layer types, on two lines
      assert.equal((await page.locator('#graph-a .gblock').first().locator('text.n').allTextContents()).join(' '), 'Split, BatchNorm ×2, ReLU ×2, Convolution ×2, Concat');
      assert.equal(await page.locator('#graph-a .gblock').first().getAttribute('data-layers'), '48');
      assert.equal(await page.locator('#graph-blocks').textContent(), 'Expand all blocks');
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await snap(page, 'densenet-collapsed');

      // expand the first block by a click: it opens where it was; what is above it does not move
      const before = await boxRect(page, '#block0');
      const above = await boxRect(page, 'pool1');
      await page.click('#graph-a .gblock[data-block="0"]');
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.collapsed === '3');
      await nextFrame(page);
      const frame = await frameRect(page, 0);
      assert.ok(Math.abs(frame.top - before.top) < 1, `the block's top stays: ${before.top} -> ${frame.top}`);
      const aboveNow = await boxRect(page, 'pool1');
      assert.ok(Math.abs(aboveNow.top - above.top) < 1 && Math.abs(aboveNow.left - above.left) < 1, 'the layers above stay');
      assert.equal(Number((await graphState(page)).shown), 486 - (12 + 24 + 16) * 8);
      assert.ok(await boxRect(page, 'conv2_6/x2'), 'the layers inside are drawn');
      assert.match(await page.locator('#graph-a .gframe-head text').first().textContent(), /^▾ 6 × 8 layers/);
      await snap(page, 'densenet-expanded-one');
      // its frame's header collapses it again, in the same place
      await page.click('#graph-a .gframe[data-block="0"] .gframe-head');
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.collapsed === '4');
      await nextFrame(page);
      const again = await boxRect(page, '#block0');
      assert.ok(Math.abs(again.top - before.top) < 1 && Math.abs(again.left - before.left) < 1, 'collapsed where it was');
    });

    await t.test('keyboard: N reaches a block, Enter expands it, C collapses it', async () => {
      await page.focus('#graph-a');
      const cursor = () => page.evaluate(() => document.querySelector('#graph-a .gnode.cursor')?.dataset.key ?? null);
      // N steps through the boxes in model order, a collapsed block being one stop
      let key = null;
      for (let i = 0; i < 12 && !key?.startsWith('#block'); i++) {
        await page.keyboard.press('n');
        key = await cursor();
      }
      assert.match(key, /^#block\d$/);
      const block = Number(key.slice('#block'.length));
      assert.match(await page.locator('#graph-a').getAttribute('aria-description'), /repeated block: \d+ × 8 layers, press Enter to expand/);
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.collapsed === '3');
      // the cursor moves to the block's first layer (a Split), the next one is its first BatchNorm
      assert.match(await cursor(), /^splitncnn_\d+$/);
      await page.keyboard.press('n');
      await page.keyboard.press('Enter');
      assert.match(await page.locator('#node-details').textContent(), new RegExp(`BatchNorm conv${block + 2}_1/x1/bn`));
      await page.focus('#graph-a');
      await page.keyboard.press('c');
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.collapsed === '4');
      assert.equal(await cursor(), key);
    });

    await t.test('search finds a layer in a collapsed block, opens the block, centres the layer', async () => {
      await page.fill('#graph-search', 'relu4_13/x2');
      await page.press('#graph-search', 'Enter');
      assert.equal(await page.locator('#graph-hits').textContent(), '1 of 1');
      await page.waitForFunction(() => document.querySelector('#graph-a .gnode.cursor')?.dataset.key === 'relu4_13/x2', null, { timeout: 30000 });
      await nextFrame(page);
      const st = await graphState(page);
      assert.equal(st.collapsed, '3', 'only the third block opened');
      const node = await boxRect(page, 'relu4_13/x2');
      const host = await page.evaluate(() => {
        const r = document.getElementById('graph-a').getBoundingClientRect();
        return { cx: r.width / 2, cy: r.height / 2 };
      });
      assert.ok(Math.abs(node.cx - host.cx) < 4 && Math.abs(node.cy - host.cy) < 4, `centred: ${JSON.stringify({ node, host })}`);
      assert.match(await page.locator('#node-details').textContent(), /ReLU relu4_13\/x2/);
      // a type search counts the layers in collapsed blocks too
      await page.fill('#graph-search', 'concat');
      await page.press('#graph-search', 'Enter');
      assert.equal(await page.locator('#graph-hits').textContent(), '1 of 58');
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await snap(page, 'densenet-search');
    });

    await t.test('layout times: DenseNet-121 and a 1,000-layer chain, collapsed and expanded (reported)', async () => {
      let t0 = Date.now();
      await page.click('#graph-blocks');
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.collapsed === '0', null, { timeout: 120000 });
      let st = await graphState(page);
      assert.equal(st.shown, '486');
      t.diagnostic(`DenseNet-121 expanded (486 layer boxes): ${Date.now() - t0} ms after the click (layout ${st.layoutMs} ms, drawing ${st.renderMs} ms)`);
      assert.equal(await page.locator('#graph-blocks').textContent(), 'Collapse all blocks');
      const chain = path.join(tmp, 'chain1000.param');
      fs.writeFileSync(chain, chainParam(1000));
      t0 = Date.now();
      await openParam(page, chain, 1000);
      st = await graphState(page);
      t.diagnostic(`1,000-layer chain, collapsed (one block of 499 Convolution-ReLU pairs): ${Date.now() - t0} ms after the file was given (layout ${st.layoutMs} ms, drawing ${st.renderMs} ms)`);
      assert.equal(st.collapsed, '1');
      assert.equal(await page.locator('#graph-a .gblock text.t').textContent(), '▸ 499 × 2 layers');
      t0 = Date.now();
      await page.click('#graph-blocks');
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.shown === '1000', null, { timeout: 120000 });
      st = await graphState(page);
      const frame = await page.evaluate(async () => {
        const host = document.getElementById('graph-a');
        const t = performance.now();
        for (let i = 0; i < 30; i++) {
          host.dispatchEvent(new WheelEvent('wheel', { deltaY: i % 2 ? 40 : -40, clientX: 100, clientY: 100, bubbles: true, cancelable: true }));
          await new Promise((r) => requestAnimationFrame(r));
        }
        return (performance.now() - t) / 30;
      });
      t.diagnostic(`1,000-layer chain expanded: ${Date.now() - t0} ms after the click (layout ${st.layoutMs} ms, drawing ${st.renderMs} ms); ${frame.toFixed(1)} ms per zoom frame`);
    });

    await t.test('optimized DenseNet-121: blocks keep the rewrite marks; a log row highlights the block and, picked, opens it', async () => {
      // at 64x64 with nnfold's random weights: each dense layer's 1x1 Convolution takes in the BatchNorm after it
      const small = path.join(tmp, 'densenet121_64.param');
      fs.writeFileSync(small, densenet121Param({ size: 64 }));
      await openParam(page, small, 486);
      assert.equal(await page.locator('#graph-hits').textContent(), '', 'the previous model\'s matches are gone');
      await page.click('#bin-random');
      await waitIdle(page);
      assert.equal((await graphState(page)).collapsed, '4');
      await page.click('#opt-run');
      await page.waitForSelector('#speed-verdict[data-measurable]', { timeout: 300000 });
      await waitIdle(page);
      assert.equal(await page.locator('#verify-verdict').getAttribute('data-pass'), 'true');
      await page.waitForFunction(() => document.querySelector('#graph-b svg') && document.querySelector('#graph-a svg'), null, { timeout: 60000 });
      assert.equal((await graphState(page, 'graph-b')).collapsed, '4', 'the optimized model starts collapsed too');
      assert.equal(await page.locator('#graph-a .gblock.changed').count(), 4, 'each collapsed block holds rewritten layers: outlined');
      assert.equal(await page.locator('#graph-b .gblock.changed').count(), 4);
      // a log row whose layers are folded into a collapsed block of the original
      const row = await page.evaluate(() => {
        const keys = new Set([...document.querySelectorAll('#graph-a .gnode')].map((g) => g.dataset.key));
        const rows = [...document.querySelectorAll('#log-table tbody tr[data-layers]')];
        const i = rows.findIndex((r) => JSON.parse(r.dataset.layers).some((n) => !keys.has(n)));
        return i < 0 ? null : { i, folded: JSON.parse(rows[i].dataset.layers).find((n) => !keys.has(n)) };
      });
      assert.ok(row, 'a rewrite inside a collapsed block');
      const tr = page.locator('#log-table tbody tr[data-layers]').nth(row.i);
      await tr.scrollIntoViewIfNeeded();
      await tr.hover();
      assert.ok(await page.locator('#graph-a .gblock.hl').count() >= 1, 'hovering highlights the block');
      const collapsedBefore = Number((await graphState(page)).collapsed);
      await tr.click();
      await page.waitForFunction((n) => Number(document.getElementById('graph-a').dataset.collapsed) < n, collapsedBefore);
      const inside = row.folded;
      await page.waitForFunction((n) => [...document.querySelectorAll('#graph-a .gnode.hl')].some((g) => g.dataset.key === n), inside);
      assert.ok(await page.locator('#graph-a .gnode.fused').count() >= 6, 'the opened block shows the marks on its layers');
      assert.ok(await page.locator('#graph-a .gnode.changed').count() >= 6);
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await snap(page, 'optimized-highlight');
      // following the selection, a block opened in one diagram opens in the other
      const bBefore = Number((await graphState(page, 'graph-b')).collapsed);
      await page.focus('#graph-a');
      let key = null;
      for (let i = 0; i < 100 && !key?.startsWith('#block'); i++) {
        await page.keyboard.press('n');
        key = await page.evaluate(() => document.querySelector('#graph-a .gnode.cursor')?.dataset.key ?? null);
      }
      await page.keyboard.press('Enter');
      await page.waitForFunction((n) => Number(document.getElementById('graph-b').dataset.collapsed) === n - 1, bBefore);
    });

    await t.test('1024 px: the details sit over the diagrams\' right side; the diagrams stay in place', async () => {
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.goto(`${origin}/?sample=none`);
      await waitIdle(page);
      await openParam(page, densenet, 486);
      await page.locator('#graph').scrollIntoViewIfNeeded();
      const panesBefore = await page.evaluate(() => ['graph-a', 'graph-b'].map((id) => document.getElementById(id).getBoundingClientRect().toJSON()));
      await page.click('#graph-a .gnode[data-key="conv1"]');
      await page.waitForSelector('#node-details:not([hidden])');
      const r = await page.evaluate(() => {
        const d = document.getElementById('node-details');
        return {
          details: d.getBoundingClientRect().toJSON(),
          position: getComputedStyle(d).position,
          panes: ['graph-a', 'graph-b'].map((id) => document.getElementById(id).getBoundingClientRect().toJSON()),
          sw: document.documentElement.scrollWidth,
          iw: window.innerWidth,
        };
      });
      assert.equal(r.position, 'absolute');
      assert.deepEqual(r.panes, panesBefore, 'the diagrams neither moved nor shrank');
      const panesTop = Math.min(...r.panes.map((p) => p.top));
      const panesBottom = Math.max(...r.panes.map((p) => p.bottom));
      assert.ok(r.details.top >= panesTop - 1 && r.details.bottom <= panesBottom + 1, `over the diagrams, not below: ${JSON.stringify(r.details)}`);
      assert.ok(r.details.right <= r.panes[1].right + 1 && r.details.left > r.panes[1].left, 'over the optimized pane\'s right side');
      assert.ok(r.sw <= r.iw, 'no horizontal scroll');
      assert.match(await page.locator('#node-details').textContent(), /Convolution conv1/);
      // a layer searched for in a diagram the panel covers is centred in the part left free: the
      // one-column layout (< 900 px) puts the panel over the original's pane
      await page.setViewportSize({ width: 860, height: 768 });
      await page.fill('#graph-search', 'relu5_16/x2');
      await page.press('#graph-search', 'Enter');
      await page.waitForFunction(() => document.querySelector('#graph-a .gnode.cursor')?.dataset.key === 'relu5_16/x2', null, { timeout: 30000 });
      await nextFrame(page);
      const free = await page.evaluate(() => {
        const d = document.getElementById('node-details').getBoundingClientRect();
        const host = document.getElementById('graph-a').getBoundingClientRect();
        const g = [...document.querySelectorAll('#graph-a .gnode')].find((e) => e.dataset.key === 'relu5_16/x2').getBoundingClientRect();
        return { detailsLeft: d.left, hostLeft: host.left, hostRight: host.right, hostTop: host.top, hostBottom: host.bottom, node: g.toJSON(), detailsTop: d.top, detailsBottom: d.bottom };
      });
      assert.ok(free.detailsTop < free.hostBottom && free.detailsBottom > free.hostTop, 'the panel covers part of the original\'s pane');
      const cx = (free.node.left + free.node.right) / 2;
      assert.ok(free.node.right <= free.detailsLeft, `the layer is clear of the panel: ${JSON.stringify(free)}`);
      assert.ok(Math.abs(cx - (free.hostLeft + free.detailsLeft) / 2) < 4, `centred in the free part: ${JSON.stringify(free)}`);
      await page.setViewportSize({ width: 1024, height: 768 });
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await snap(page, 'details-overlay', { fullPage: false });
      // Escape closes it, focus back on the diagram
      await page.focus('#graph-a');
      await page.keyboard.press('Escape');
      assert.equal(await page.locator('#node-details').isHidden(), true);
      await page.setViewportSize({ width: 1366, height: 850 });
      await page.click('[data-zoom="fit"]');
      await nextFrame(page);
      // (the search above opened the last block)
      await page.click('#graph-a .gblock[data-block="1"]');
      await page.waitForFunction(() => document.getElementById('graph-a').dataset.collapsed === '2');
      await page.fill('#graph-search', 'relu3_2/x2');
      await page.press('#graph-search', 'Enter');
      await page.waitForFunction(() => document.querySelector('#graph-a .gnode.cursor')?.dataset.key === 'relu3_2/x2');
      assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('node-details')).position), 'static', 'a column of its own');
      await page.locator('#graph').scrollIntoViewIfNeeded();
      await snap(page, 'details-beside');
    });

    await t.test('390 px phone: the details are a sheet at the bottom of the screen; no horizontal scroll', async () => {
      const phone = await browser.context.newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      phone.on('pageerror', (e) => errors.push(String(e)));
      await phone.goto(`${origin}/?sample=none`);
      await waitIdle(phone);
      await openParam(phone, densenet, 486);
      await phone.locator('#graph-a').scrollIntoViewIfNeeded();
      await phone.click('#graph-a .gblock[data-block="0"]');
      await phone.waitForFunction(() => document.getElementById('graph-a').dataset.collapsed === '3');
      await phone.click('#graph-a .gnode[data-key="splitncnn_0"]');
      await phone.waitForSelector('#node-details:not([hidden])');
      const r = await phone.evaluate(() => {
        const d = document.getElementById('node-details');
        const b = d.getBoundingClientRect();
        return { position: getComputedStyle(d).position, left: b.left, right: b.right, bottom: b.bottom, height: b.height, iw: window.innerWidth, ih: window.innerHeight, sw: document.documentElement.scrollWidth };
      });
      assert.equal(r.position, 'fixed');
      assert.ok(Math.abs(r.left) < 1 && Math.abs(r.right - r.iw) < 1 && Math.abs(r.bottom - r.ih) < 1, JSON.stringify(r));
      assert.ok(r.height <= r.ih * 0.45 + 1, 'at most 45% of the screen');
      assert.ok(r.sw <= r.iw, `no horizontal scroll: ${r.sw} > ${r.iw}`);
      await snap(phone, 'details-sheet', { fullPage: false });
      // scrolled away from the graph, the sheet goes; the close button closes it
      await phone.evaluate(() => window.scrollTo(0, 0));
      await phone.waitForFunction(() => getComputedStyle(document.getElementById('node-details')).display === 'none');
      await phone.locator('#graph-a').scrollIntoViewIfNeeded();
      await phone.waitForFunction(() => getComputedStyle(document.getElementById('node-details')).display !== 'none');
      await phone.click('#node-details .details-close');
      assert.equal(await phone.locator('#node-details').isHidden(), true);
      await snap(phone, 'graph');
      await phone.close();
    });

    await t.test('nothing left the page; no page errors', () => {
      const foreign = proxy.log.filter((r) => !r.allowed || r.host !== `127.0.0.1:${port}`);
      assert.deepEqual(foreign, []);
      assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
    });
  } finally {
    await browser.close();
    await closeServer(server);
    for (const p of [proxy, sink]) {
      p.server.closeAllConnections?.();
      p.server.close();
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
