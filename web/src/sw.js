// nnfold page service worker: after the first visit the page works with the network off.
// web/build.mjs fills in the version (a hash of the built files) and the precache list (the app
// shell, both wasm flavours, the samples list and the small samples). Every request the page
// makes is to its own origin; this worker answers same-origin GETs from its cache first and
// caches what it fetches (the larger samples, opened once), so nothing is fetched twice.
// A new build has a new version: it installs beside the old cache, takes over, and deletes it.
// Every response it serves carries the cross-origin isolation headers (COOP same-origin, COEP
// require-corp): a static host that cannot set headers still gets an isolated page, and so the
// threaded WebAssembly flavour, once this worker controls the page (from the next load on; the
// page offers a reload), and so does the page offline.
const VERSION = '__VERSION__';
const CACHE = `nnfold-page-${VERSION}`;
const PRECACHE = __PRECACHE__;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((c) => c.addAll(PRECACHE.map((p) => new Request(p, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('nnfold-page-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'version') event.source?.postMessage({ version: VERSION, precached: PRECACHE.length });
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  event.respondWith(respond(req, url));
});

// The response with the isolation headers added (same-origin responses only reach here).
function isolated(res) {
  if (res.type === 'opaque' || res.type === 'opaqueredirect' || res.status === 0) return res;
  const headers = new Headers(res.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  headers.set('Cross-Origin-Resource-Policy', 'same-origin');
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

async function respond(req, url) {
  return isolated(await lookup(req, url));
}

async function lookup(req, url) {
  const cache = await caches.open(CACHE);
  // navigations (with or without a query) get the app shell
  const key = req.mode === 'navigate' ? new URL('./', self.location.href).href : url.origin + url.pathname;
  const hit = await cache.match(key);
  if (hit) return hit;
  let res;
  try {
    res = await fetch(req);
  } catch (e) {
    return new Response(`offline, and ${url.pathname} was not saved for offline use`, {
      status: 503,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    });
  }
  if (res.ok && res.type === 'basic') cache.put(key, res.clone()).catch(() => {});
  return res;
}
