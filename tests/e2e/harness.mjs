// End-to-end harness for the page: the page's own static server (web/serve.mjs) on an ephemeral
// port, a logging HTTP proxy every browser request goes through (so requests to any other origin
// are seen at the browser level, workers and the service worker included), and headless
// Chromium with a fresh profile.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../../web/serve.mjs';

export const root = path.resolve(import.meta.dirname, '../..');
export const webDist = path.join(root, 'web/dist');
export const artifacts = path.join(root, 'tests/artifacts');
export const chromiumPath = '/usr/bin/chromium';

let playwright = null;
try {
  playwright = await import('playwright-core');
} catch {
  playwright = null;
}

export const skipReason =
  (!fs.existsSync(path.join(webDist, 'index.html')) && 'web/dist is not built (npm run build)') ||
  (!fs.existsSync(chromiumPath) && 'no /usr/bin/chromium') ||
  (!playwright && 'no playwright-core') ||
  false;

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

export async function launch(proxyPort) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nnfold-e2e-'));
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-features=OptimizationHints,MediaRouter,Translate'];
  if (proxyPort) args.push(`--proxy-server=http://127.0.0.1:${proxyPort}`, '--proxy-bypass-list=<-loopback>');
  // a fresh profile directory (Chromium's --user-data-dir, given through playwright's
  // persistent context) holding the service worker and its cache for the whole test
  const context = await playwright.chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    args,
    acceptDownloads: true,
    viewport: { width: 1440, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export function closeServer(server) {
  server.closeAllConnections?.();
  return new Promise((r) => server.close(() => r()));
}

export function shot(page, name) {
  fs.mkdirSync(artifacts, { recursive: true });
  return page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

export { net };
