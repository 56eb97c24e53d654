// Corvid as a Web Worker speaking UCI: post it UCI lines, get back every line the engine
// writes, as a GUI reads them from a native engine (the interface of the Stockfish WebAssembly
// workers, so a web GUI written for them drives Corvid too):
//
//   const engine = new Worker("corvid-worker.js");
//   engine.onmessage = (e) => console.log(e.data);   // "uciok", "info depth 12 ...", "bestmove e2e4"
//   engine.postMessage("uci");
//   engine.postMessage("position startpos moves e2e4");
//   engine.postMessage("go movetime 1000");
//
// This worker never searches: it keeps the engine in a worker of its own (corvid-engine.js, the
// same folder, with corvid.wasm) and stays free to hear the page. Two modes (docs/web.md):
//
// - "shared", when the page is cross-origin isolated (served with COOP/COEP): every line goes
//   through a ring in a SharedArrayBuffer that the search reads as it runs. `stop`, `ponderhit`,
//   `isready`, `position` during a search behave as in the native engine; the engine keeps its
//   hash table and histories from search to search.
// - "messages", the fallback on any static host: lines go by postMessage, one at a time, and a
//   running search cannot hear them. This worker covers the gap: it answers `isready` itself
//   during a search; on `stop`, `quit` or a command that needs the engine idle it ends the
//   search by replacing the engine's worker (the module is compiled once) and answers its
//   `bestmove` with the first move of the last principal variation the search reported (or, if
//   it reported none, of a one-ply search in the new worker); on `ponderhit` the new worker
//   searches the same `go` without `ponder`. The hash table and histories are lost each time.
//
// `new Worker("corvid-worker.js?mode=messages")` forces the fallback (for tests). The engine's
// files are found beside this script, or where `?wasm=URL` and `?engine=URL` say (relative to
// this script); a worker started from another origin through a `blob:` script (the npm
// package's `createCorvid` does that) sets `self.corvidUrls = {worker, wasm, engine}` first.
"use strict";

const given = self.corvidUrls || {};
const params = new URL(self.location.href).searchParams;
const here = given.worker || self.location.href;
const forced = given.mode || params.get("mode");
const canShare = typeof SharedArrayBuffer === "function" && self.crossOriginIsolated === true;
const mode = forced === "messages" || !canShare ? "messages" : "shared";
const wasmUrl = new URL(given.wasm || params.get("wasm") || "corvid.wasm", here).href;
// The module built with WebAssembly threads (`Threads` above 1), for the shared mode; beside the
// other unless told. `?threads=none` (or `corvidUrls.threads = "none"`) keeps to one thread.
const threadsParam = given.threads || params.get("threads");
const threadsUrl =
  threadsParam === "none" ? null : new URL(threadsParam || wasmUrl.replace(/corvid\.wasm(?=$|[?#])/, "corvid-threads.wasm"), here).href;
const engineUrl = new URL(given.engine || params.get("engine") || "corvid-engine.js", here).href;

// The engine worker's script, fetched once: a worker started later (the fallback replaces it
// to end a search) needs no server, so the page keeps working offline once loaded.
const engineScript = fetch(engineUrl)
  .then((r) => {
    if (!r.ok) throw new Error(`${engineUrl}: HTTP ${r.status}`);
    return r.blob();
  })
  .then((blob) => URL.createObjectURL(new Blob([blob], { type: "text/javascript" })));

// Compiled once, handed to every engine worker this worker starts. A server that does not send
// wasm as application/wasm defeats streaming compilation, not compilation. A server that answers
// with a page (a single-page app's fallback route, a missing file behind a bundler's dev server)
// is named as such: "got HTML, not WebAssembly, at URL".
function compileFrom(url) {
  return fetch(url).then(async (r) => {
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    const type = r.headers.get("Content-Type") || "";
    if (type.startsWith("application/wasm")) {
      return WebAssembly.compileStreaming(r);
    }
    const bytes = new Uint8Array(await r.arrayBuffer());
    const magic = [0x00, 0x61, 0x73, 0x6d];
    if (!magic.every((b, i) => bytes[i] === b)) {
      const start = new TextDecoder().decode(bytes.subarray(0, 200)).trimStart().toLowerCase();
      const html = type.startsWith("text/html") || start.startsWith("<!doctype html") || start.startsWith("<html");
      throw new Error(html ? `got HTML, not WebAssembly, at ${url}` : `not WebAssembly (${type || "no type"}) at ${url}`);
    }
    return WebAssembly.compile(bytes);
  });
}

// In the shared mode the threaded module, where it is there and the browser runs it; else (or
// in the fallback mode, which has no shared memory for threads) the single-threaded one.
const compiled =
  mode === "shared" && threadsUrl ? compileFrom(threadsUrl).catch(() => compileFrom(wasmUrl)) : compileFrom(wasmUrl);

// The commands that need the engine idle: the native engine stops a running search for them.
const NEEDS_IDLE = new Set(["setoption", "ucinewgame", "position", "go", "bench", "genfens"]);

function words(line) {
  return line.trim().split(/\s+/).filter(Boolean);
}

// A `go` that searches (not `go perft`).
function isSearch(line) {
  const w = words(line);
  return w[0] === "go" && w[1] !== "perft";
}

let inner = null;
let ready = false;

// Every `go` not yet answered, oldest first: {line, pv, synthetic}.
const searches = [];
// What the engine has been told, to tell a new engine worker: each option's last `setoption`,
// the last `position`.
const options = new Map();
let position = null;

function remember(line) {
  const w = words(line);
  if (w[0] === "setoption") {
    const at = w.indexOf("value");
    const name = w.slice(2, at < 0 ? w.length : at).join(" ").toLowerCase();
    if (name !== "clear hash") options.set(name, line);
  } else if (w[0] === "position") {
    position = line;
  } else if (w[0] === "ucinewgame") {
    position = null;
  }
}

function replayLines() {
  return [...options.values(), ...(position ? [position] : [])];
}

// The first move (and the reply) of an `info` line's best line, or null.
function pvOf(line) {
  const w = words(line);
  const multipv = w.indexOf("multipv");
  if (multipv >= 0 && w[multipv + 1] !== "1") return null;
  const at = w.indexOf("pv");
  return at >= 0 && w.length > at + 1 ? w.slice(at + 1) : null;
}

// A line the engine wrote.
function fromEngine(line) {
  const head = searches[0];
  if (line.startsWith("bestmove")) {
    searches.shift();
    if (current !== null) answered++;
  } else if (head && line.startsWith("info")) {
    if (head.synthetic) return; // the one-ply search that stands in for a killed one
    const pv = pvOf(line);
    if (pv) head.pv = pv;
  }
  postMessage(line);
}

// The answer of a search whose engine worker was replaced: its last best line's first move; with
// none, the new worker searches one ply (its info hidden) and its `bestmove` is the answer.
// Returns the line to run first in the new worker, if any.
function answerKilled(search) {
  if (search.pv) {
    const [best, ponder] = search.pv;
    postMessage(ponder ? `bestmove ${best} ponder ${ponder}` : `bestmove ${best}`);
    return null;
  }
  searches.unshift({ line: "go depth 1", pv: null, synthetic: true });
  return "go depth 1";
}

// Where the engine worker is started from: its own URL first (what a page's Content-Security-
// Policy allows with `worker-src 'self'`), else the copy fetched at load (a blob: URL, which
// works offline once the page is loaded, where the policy allows `blob:`). The one that worked
// is kept for the next start.
const FROM = ["url", "blob"];
let from = 0;
// Set once no engine worker could be started: the reason was said, and nothing is retried.
let dead = false;

function startEngine(onReady) {
  ready = false;
  inner = null;
  if (dead) return;
  Promise.all([engineScript, compiled]).then(
    ([blobUrl, module]) => launch(module, blobUrl, onReady, from),
    (why) => giveUp(`cannot load the engine: ${why}`)
  );
}

// Starts the engine worker from FROM[at]; a start that fails before the engine is ready tries
// the next way, and after the last says why, once.
function launch(module, blobUrl, onReady, at) {
  const failed = (why) => {
    if (inner) inner.terminate();
    inner = null;
    if (at + 1 < FROM.length) return launch(module, blobUrl, onReady, at + 1);
    giveUp(
      `cannot start the engine's worker (${why}); a Content-Security-Policy must allow it: ` +
        "worker-src 'self' (and blob: to work offline), script-src 'wasm-unsafe-eval'"
    );
  };
  let worker;
  try {
    worker = new Worker(FROM[at] === "url" ? engineUrl : blobUrl);
  } catch (e) {
    return failed(e.message || String(e));
  }
  inner = worker;
  listen(worker, () => {
    from = at;
    onReady();
  }, failed);
  worker.postMessage({ module, shared: mode === "shared" ? ring.buffer : null });
}

function giveUp(why) {
  if (dead) return;
  dead = true;
  postMessage(`info string error: ${why}`);
}

function listen(worker, onReady, failedStart) {
  worker.onmessage = (e) => {
    // A replaced worker's last words (a `bestmove` of the search its end answered) are not
    // passed on.
    if (worker !== inner) return;
    const data = e.data;
    if (typeof data === "string") return fromEngine(data);
    if (data.ready) {
      ready = true;
      onReady();
    } else if (data.done !== undefined) {
      done();
    } else if (data.quit) {
      inner = null;
      close();
    }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    if (worker !== inner) return;
    // Before the engine was ready this start failed (blocked, or the script not found): the next
    // way is tried. After, the engine crashed: a new one takes over.
    if (!ready) return failedStart(e.message || "unknown error");
    postMessage(`info string error: the engine failed (${e.message || "unknown error"}); restarted`);
    crashed();
  };
}

// ---------------------------------------------------------------- "shared" mode

// The ring (the layout is corvid-engine.js's): two 32-bit counters, then records of a length
// and the line's bytes, padded to 4. Room for lines of up to half a megabyte.
const RING_BYTES = 1 << 20;
const encoder = new TextEncoder();
let ring = null;
const unsent = []; // lines waiting for room in the ring

function newRing() {
  const buffer = new SharedArrayBuffer(8 + RING_BYTES);
  ring = { buffer, head: new Int32Array(buffer, 0, 2), bytes: new Uint8Array(buffer, 8) };
}

function ringWrite(line) {
  const bytes = encoder.encode(line);
  const size = 4 + ((bytes.length + 3) & ~3);
  if (size > RING_BYTES / 2) {
    postMessage(`info string error: a line of ${bytes.length} bytes is too long; ignored`);
    return true;
  }
  const written = Atomics.load(ring.head, 0) >>> 0;
  const read = Atomics.load(ring.head, 1) >>> 0;
  if (((written - read) >>> 0) + size > RING_BYTES) return false;
  const put = (at, byte) => {
    ring.bytes[(at >>> 0) % RING_BYTES] = byte;
  };
  for (let i = 0, n = bytes.length; i < 4; i++, n = Math.floor(n / 256)) put(written + i, n % 256);
  for (let i = 0; i < bytes.length; i++) put(written + 4 + i, bytes[i]);
  Atomics.store(ring.head, 0, (written + size) | 0);
  Atomics.notify(ring.head, 0);
  return true;
}

function sendShared(line) {
  if (unsent.length || !ringWrite(line)) {
    unsent.push(line);
    if (unsent.length === 1) setTimeout(drainUnsent, 1);
  }
}

function drainUnsent() {
  while (unsent.length && ringWrite(unsent[0])) unsent.shift();
  if (unsent.length) setTimeout(drainUnsent, 1);
}

// ---------------------------------------------------------------- "messages" mode

// The lines the engine worker is handling: every line that waited, sent as one batch. The
// engine takes the first and holds the rest as lines that came during its work, so a search
// started from the batch hears the lines behind it (a `stop`, a `ponderhit`, a command that
// needs it idle) by the engine's own rule for held lines (src/uci/inline.rs), the rule of the
// shared mode too; this worker keeps no rule of its own for them.
let current = null;
// The `bestmove` lines the engine has written for the batch it handles. The engine writes its
// last one a moment before it says the batch is done: a line heard in between finds the search
// over, and waits for the batch as any line does.
let answered = 0;
const waiting = []; // lines for the engine, in order, while it handles a batch
let seq = 0;

function dispatchNext() {
  if (!ready || current !== null || !waiting.length) return;
  current = waiting.splice(0);
  answered = 0;
  inner.postMessage({ seq: ++seq, lines: current });
}

// Whether the batch leaves the engine searching, deaf to what comes next: a search that no
// later line of the batch ends.
function endsInSearch(batch) {
  const last = batch.map(isSearch).lastIndexOf(true);
  if (last < 0) return false;
  return !batch.slice(last + 1).some((l) => {
    const c = words(l)[0];
    return c === "stop" || c === "quit" || NEEDS_IDLE.has(c);
  });
}

// Whether the engine is in the search that ends the batch it handles, and cannot hear a line.
function searching() {
  return current !== null && endsInSearch(current) && answered < current.filter(isSearch).length;
}

function done() {
  for (const line of current) remember(line);
  current = null;
  dispatchNext();
}

// The engine worker is replaced, ending the search it runs (`trigger`: the command that ended
// it). The new worker is told the options and position, then what was waiting.
function replaceEngine(trigger) {
  const search = searches.shift();
  if (inner) inner.terminate();
  // What the batch set before its search holds in the new engine too.
  for (const line of current || []) if (!isSearch(line)) remember(line);
  current = null;
  const first = [...replayLines()];
  if (trigger === "ponderhit") {
    searches.unshift(search);
    first.push(search.line.replace(/(^|\s)ponder(?=\s|$)/, " "));
  } else {
    const stand = answerKilled(search);
    if (stand) first.push(stand);
  }
  waiting.unshift(...first);
  startEngine(dispatchNext);
}

function receiveMessages(line) {
  const command = words(line)[0];
  const deaf = searching();
  if (deaf && command === "isready" && !waiting.length) {
    postMessage("readyok");
    return;
  }
  if (deaf && (command === "stop" || command === "quit" || command === "ponderhit" || NEEDS_IDLE.has(command))) {
    replaceEngine(command);
    if (command === "stop" || command === "ponderhit") return;
  }
  waiting.push(line);
  dispatchNext();
}

// ---------------------------------------------------------------- both

function crashed() {
  if (inner) inner.terminate();
  if (mode === "messages") {
    const batch = current;
    const inSearch = searching();
    current = null;
    if (inSearch) {
      for (const line of batch) if (!isSearch(line)) remember(line);
      const search = searches.shift();
      const stand = answerKilled(search);
      waiting.unshift(...replayLines(), ...(stand ? [stand] : []));
    } else {
      waiting.unshift(...replayLines());
    }
    startEngine(dispatchNext);
    return;
  }
  // The lines in the old ring are dropped; every open search is answered by a one-ply search.
  const open = searches.splice(0).filter((s) => !s.synthetic);
  newRing();
  unsent.length = 0;
  startEngine(() => {});
  for (const line of replayLines()) sendShared(line);
  for (const search of open) {
    const stand = answerKilled(search);
    if (stand) sendShared(stand);
  }
}

function receive(line) {
  if (isSearch(line)) searches.push({ line, pv: null, synthetic: false });
  if (mode === "shared") {
    remember(line);
    sendShared(line);
  } else {
    receiveMessages(line);
  }
}

if (mode === "shared") newRing();
startEngine(dispatchNext);

onmessage = (e) => {
  for (const line of String(e.data).split(/\r?\n/)) receive(line);
};
