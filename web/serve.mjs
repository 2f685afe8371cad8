// `npm start`: serves web/dist on http://localhost:8080 (PORT overrides; HOST too, default
// 127.0.0.1). A small static server: correct MIME types (application/wasm for streaming
// compilation), cross-origin isolation headers (COOP same-origin + COEP require-corp, so the page
// may use SharedArrayBuffer: the threaded WebAssembly flavour, and cancelling work in its
// worker; ISOLATION=0 leaves them out), a Content-Security-Policy that
// keeps every request on this origin, no directory listings, no path escapes.
//
// Also used by the end-to-end tests: `startServer({ root, port })` returns the running server;
// `isolation: false` leaves out COOP/COEP (a static host that cannot set headers: the page then
// runs single-threaded until its service worker adds them).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.onnx': 'application/octet-stream',
  '.param': 'text/plain; charset=utf-8',
  '.bin': 'application/octet-stream',
};

// Embind creates its call wrappers with `new Function` ('unsafe-eval'); wasm compilation needs
// 'wasm-unsafe-eval'. Everything else: this origin only.
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  // blob: the threaded flavour's pthread Workers (wasm/js/index.mjs PTHREAD_WORKER_SOURCE)
  "worker-src 'self' blob:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function startServer({ root, port = 8080, host = '127.0.0.1', log = null, isolation = true } = {}) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let status = 200;
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        status = 405;
        res.writeHead(405, { Allow: 'GET, HEAD' }).end();
        return;
      }
      const url = new URL(req.url, 'http://localhost');
      let rel;
      try {
        rel = decodeURIComponent(url.pathname);
      } catch {
        status = 400;
        res.writeHead(400).end('bad path');
        return;
      }
      if (rel.endsWith('/')) rel += 'index.html';
      const file = path.resolve(base, '.' + rel);
      if ((file !== base && !file.startsWith(base + path.sep)) || rel.includes('\0')) {
        status = 404;
        res.writeHead(404).end('not found');
        return;
      }
      let st;
      try {
        st = fs.statSync(file);
      } catch {
        st = null;
      }
      if (!st || !st.isFile()) {
        status = 404;
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
        return;
      }
      const ext = path.extname(file).toLowerCase();
      const headers = {
        'Content-Type': MIME[ext] ?? 'application/octet-stream',
        'Content-Length': st.size,
        ...(isolation ? {
          'Cross-Origin-Opener-Policy': 'same-origin',
          'Cross-Origin-Embedder-Policy': 'require-corp',
          'Cross-Origin-Resource-Policy': 'same-origin',
        } : {}),
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        // the service worker versions the app; the server only asks browsers to revalidate
        'Cache-Control': 'no-cache',
      };
      res.writeHead(200, headers);
      if (req.method === 'HEAD') res.end();
      else fs.createReadStream(file).pipe(res);
    } finally {
      log?.(req.method, req.url, status);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.join(import.meta.dirname, 'dist');
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    console.error('web/dist is not built: run npm run build');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number (got ${process.env.PORT})`);
    process.exit(2);
  }
  const host = process.env.HOST ?? '127.0.0.1';
  startServer({ root, port, host, isolation: process.env.ISOLATION !== '0' }).then(
    (server) => {
      const a = server.address();
      console.log(`nnfold page: http://${host === '127.0.0.1' ? 'localhost' : host}:${a.port}/`);
    },
    (e) => {
      console.error(`cannot listen on ${host}:${port}: ${e.message}`);
      process.exit(1);
    },
  );
}
