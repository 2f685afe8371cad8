// End-to-end harness for the page: the page's own static server (web/serve.mjs) on an ephemeral
// port, a logging HTTP proxy every browser request goes through (so requests to any other origin
// are seen at the browser level, workers and the service worker included), and headless
// Chromium with a fresh profile.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { startServer } from '../../web/serve.mjs';
import { distFixture, fixture, needs } from '../js/helpers.mjs';

export const root = path.resolve(import.meta.dirname, '../..');
export const webDist = path.join(root, 'web/dist');
export const artifacts = path.join(root, 'tests/artifacts');
export const chromiumPath = process.env.NNFOLD_CHROMIUM ?? '/usr/bin/chromium';

let playwright = null;
try {
  playwright = await import('playwright-core');
} catch {
  playwright = null;
}

// The page test's `skip` option (false when everything is there; see needs() in tests/js/helpers.mjs).
export const skipReason = needs(
  distFixture,
  fixture('web/dist (the built page)', fs.existsSync(path.join(webDist, 'index.html')), 'node web/build.mjs (npm run build)'),
  fixture(`Chromium at ${chromiumPath}`, fs.existsSync(chromiumPath), 'apt-get install chromium, or set NNFOLD_CHROMIUM'),
  fixture('playwright-core (node_modules)', playwright, 'npm install (or npm ci) in the repository'));

// A forward proxy for plain HTTP (absolute-form request targets) and CONNECT. It logs every
// request and forwards only to `allow` (host:port); anything else gets 403 and stays logged.
export function startProxy() {
  const log = [];
  const state = { allow: null };
  const server = http.createServer((req, res) => {
    let target;
    try {
      target = new URL(req.url);
    } catch {
      log.push({ method: req.method, url: req.url, allowed: false });
      res.writeHead(400).end();
      return;
    }
    const allowed = target.host === state.allow;
    log.push({ method: req.method, url: target.href, host: target.host, allowed });
    if (!allowed) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('blocked by the test proxy');
      return;
    }
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end('upstream unreachable');
    });
    req.pipe(up);
  });
  server.on('connect', (req, socket) => {
    log.push({ method: 'CONNECT', url: req.url, host: req.url, allowed: false });
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, log, state, port: server.address().port })));
}

export async function startPage() {
  const server = await startServer({ root: webDist, port: 0 });
  return { server, port: server.address().port };
}

// Headless Chromium (the flags in `launch` below; playwright's launch gives it a fresh temporary
// --user-data-dir) and one browser context, the page's, whose every request goes through the
// logging proxy: playwright sets that proxy on the context (CDP createBrowserContext), so it
// carries the page's, its workers' and its service worker's requests, and '<-loopback>' sends
// localhost through it too. Chromium's own service traffic (component updates, sign-in:
// Debian's launcher gives it Google API keys) belongs to no page; it goes to `sinkPort`, a
// proxy that refuses everything, so it neither leaves the machine nor mixes into the page's log.
//
// Chromium's autofill asks Google about the page's form fields from the page's own context;
// AutofillServerCommunication turns that off. A --disable-features of ours replaces
// playwright's, so the list repeats playwright's entries (same reasons: no startup traffic, no
// surprises in automation).
const DISABLED_FEATURES = [
  // playwright-core's list
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades', 'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
  // ours
  'AutofillServerCommunication', 'Translate', 'InterestFeedContentSuggestions',
];

// `extraArgs`: more Chromium flags for one test (e.g. the fake camera).
export async function launch(proxyPort, sinkPort, extraArgs = []) {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--disable-features=${DISABLED_FEATURES.join(',')}`, ...extraArgs];
  if (sinkPort) args.push(`--proxy-server=http://127.0.0.1:${sinkPort}`);
  const browser = await playwright.chromium.launch({ executablePath: chromiumPath, args });
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1440, height: 1000 },
    ...(proxyPort ? { proxy: { server: `http://127.0.0.1:${proxyPort}`, bypass: '<-loopback>' } } : {}),
  });
  return {
    context,
    async close() {
      await browser.close();
    },
  };
}

export function closeServer(server) {
  server.closeAllConnections?.();
  return new Promise((r) => server.close(() => r()));
}

// A full-page screenshot, taken from the top (the sticky section bar would otherwise be drawn
// where the viewport happened to be).
export async function shot(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

