// Corvid's service worker: keeps the page, its scripts and the engine (corvid.wasm) so that the
// page opens and plays without a network, across reloads, and can be installed as an app.
//
// Cache first: every file of this build is fetched once when the worker installs, into a cache
// named after the build (web/build.sh writes the build's fingerprint below), and served from
// there. A new build is a new worker script: it installs beside the old one, fetching the new
// files, and takes over once no tab runs the old page (the browser's usual rule), so a page never
// mixes the files of two builds; the old cache is then deleted.

const BUILD = "@BUILD@";
const CACHE = `corvid-${BUILD}`;
const FILES = [
  "./",
  "index.html",
  "app.js",
  "style.css",
  "corvid-worker.js",
  "corvid-engine.js",
  "corvid.wasm",
  "corvid-threads.wasm", // @THREADS@ (web/build.sh drops this line when it builds no threaded module)
  "corvid.svg",
  "icon-192.png",
  "icon-512.png",
  "manifest.webmanifest",
];

self.addEventListener("install", (event) => {
  // `cache: "reload"` skips the HTTP cache: the files are this build's, as the server has them.
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: "reload" }))))
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((names) =>
      Promise.all(names.filter((n) => n.startsWith("corvid-") && n !== CACHE).map((n) => caches.delete(n)))
    )
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) {
    return;
  }
  // The worker's own query (`corvid-worker.js?mode=messages`) names the same file. The kept
  // response is handed on as a new one: a response from the cache carries the URL it was kept
  // under, which a worker takes for its own, and the worker would lose its query (a forced
  // fallback ran in the shared mode).
  const query = new URL(request.url).search !== "";
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(request, { ignoreSearch: true }))
      .then((kept) => {
        if (!kept) return fetch(request);
        if (!query) return kept;
        return new Response(kept.body, { status: kept.status, statusText: kept.statusText, headers: kept.headers });
      })
  );
});
