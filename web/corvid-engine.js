// Corvid's engine thread: a dedicated worker started by corvid-worker.js (never by a page). It
// runs the WebAssembly engine, whose search runs inside the call that handles a `go`. How lines
// reach it depends on what the page can give:
//
// - "shared" (the page is cross-origin isolated): lines come through a ring buffer in a
//   SharedArrayBuffer that corvid-worker.js writes. When idle this worker blocks on it
//   (Atomics.wait); during a search the engine reads it every thousand nodes or so
//   (`corvid_read`), so `stop`, `ponderhit`, `isready` and the rest are heard at once.
// - "messages" (no shared memory): lines come by postMessage, a batch a message: the first is
//   handled and the rest are read by the engine as lines that came during its work (as from the
//   ring), so a search started from a batch hears the lines behind it; what comes in later
//   messages it cannot hear until it ends, and corvid-worker.js covers that.
//
// To corvid-worker.js it posts each line the engine writes (a string), and objects:
// {ready: true} once started, {done: seq} after each batch in "messages" mode, {quit: true}.
//
// In "shared" mode the module may be corvid-threads.wasm (built with WebAssembly threads): its
// memory is shared, and each search thread beyond the first is a worker running this same
// script, started when the engine asks (`corvid_spawn`: `setoption name Threads`). Such a
// thread worker instantiates the module on the same memory, takes a stack and a thread-local
// block of its own, and runs the thread's body (`corvid_thread_main`) until the engine lets the
// thread go; it reads and writes no lines.
"use strict";

let wasm = null;
let ring = null;
// The shared memory of a threaded module (null for the single-threaded one).
let sharedMemory = null;
let compiledModule = null;
// Thread workers started and not yet running their thread's body.
let starting = [];
// A search thread's stack (the main thread's is the module's own).
const THREAD_STACK = 8 << 20;
// In "messages" mode, the lines of the batch not yet read.
let held = [];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// The ring: a header of two 32-bit counters (bytes written, bytes read; both wrap at 2^32), then
// `capacity` bytes of records, each a 32-bit length and the line's UTF-8 bytes, padded to 4.
// corvid-worker.js writes, this worker reads. The same layout is written there.
const HEADER_BYTES = 8;

function ringOpen(buffer) {
  return {
    head: new Int32Array(buffer, 0, 2),
    bytes: new Uint8Array(buffer, HEADER_BYTES),
    capacity: buffer.byteLength - HEADER_BYTES,
  };
}

function ringByte(r, at) {
  return r.bytes[at % r.capacity];
}

// The next record's length and where its bytes start, or null when the ring is empty.
function ringPeek(r) {
  const written = Atomics.load(r.head, 0) >>> 0;
  const read = Atomics.load(r.head, 1) >>> 0;
  if (written === read) return null;
  let length = 0;
  for (let i = 3; i >= 0; i--) length = length * 256 + ringByte(r, read + i);
  return { read, length };
}

function ringTake(r, peeked, into) {
  for (let i = 0; i < peeked.length; i++) into[i] = ringByte(r, peeked.read + 4 + i);
  const next = (peeked.read + 4 + ((peeked.length + 3) & ~3)) >>> 0;
  Atomics.store(r.head, 1, next | 0);
}

// Blocks until a line is there, then takes it.
function ringReadBlocking(r) {
  for (;;) {
    const peeked = ringPeek(r);
    if (peeked) {
      const line = new Uint8Array(peeked.length);
      ringTake(r, peeked, line);
      return decoder.decode(line);
    }
    Atomics.wait(r.head, 0, Atomics.load(r.head, 1));
  }
}

function memory() {
  return new Uint8Array((sharedMemory || wasm.exports.memory).buffer);
}

// Starts a thread worker for the engine's `task` (see src/web/threads.rs): 0, or -1 when it
// cannot be.
function spawnThread(task) {
  try {
    const e = wasm.exports;
    const stack = e.corvid_alloc(THREAD_STACK, 16);
    const tls = e.corvid_alloc(e.__tls_size.value, e.__tls_align.value);
    if (!stack || !tls) return -1;
    const worker = new Worker(self.location.href);
    starting.push(
      new Promise((resolve) => {
        worker.onmessage = (m) => {
          if (m.data && m.data.started) resolve();
          else if (typeof m.data === "string") postMessage(m.data);
        };
        worker.onerror = (m) => {
          postMessage(`info string error: a search thread failed (${m.message || "unknown error"})`);
          resolve();
        };
      })
    );
    worker.postMessage({ thread: { module: compiledModule, memory: sharedMemory, task, stackTop: stack + THREAD_STACK, tls } });
    return 0;
  } catch (err) {
    return -1;
  }
}

// A thread worker: the module on the engine's memory, this thread's stack and thread-local
// block, then the thread's body; the worker ends when the body returns.
async function runThread({ module, memory: mem, task, stackTop, tls }) {
  sharedMemory = mem;
  // The engine's clock and writer; no lines to read, no threads of its own to start.
  const env = { ...imports.env, corvid_read: () => -1, corvid_spawn: () => -1, memory: mem };
  wasm = await WebAssembly.instantiate(module, { env });
  wasm.exports.__stack_pointer.value = stackTop;
  wasm.exports.__wasm_init_tls(tls);
  postMessage({ started: true });
  wasm.exports.corvid_thread_main(task);
  close();
}

const imports = {
  env: {
    // One clock for every thread's worker: each worker's performance.now() has its own origin.
    corvid_now: () => performance.timeOrigin + performance.now(),
    corvid_write: (ptr, len) => {
      // A copy: TextDecoder does not read shared memory.
      postMessage(decoder.decode(memory().slice(ptr, ptr + len)));
    },
    corvid_spawn: (task) => spawnThread(task),
    // The next line that arrived during a search, without waiting (see src/web.rs).
    corvid_read: (ptr, cap) => {
      if (!ring) {
        if (!held.length) return -1;
        const bytes = encoder.encode(held[0]);
        if (bytes.length > cap) return -2 - bytes.length;
        held.shift();
        memory().set(bytes, ptr);
        return bytes.length;
      }
      const peeked = ringPeek(ring);
      if (!peeked) return -1;
      if (peeked.length > cap) return -2 - peeked.length;
      ringTake(ring, peeked, memory().subarray(ptr, ptr + peeked.length));
      return peeked.length;
    },
  },
};

// Hands one line to the engine; true after `quit`.
function feed(line) {
  const bytes = encoder.encode(line);
  const ptr = wasm.exports.corvid_input(bytes.length);
  memory().set(bytes, ptr);
  return wasm.exports.corvid_line(bytes.length) === 1;
}

// Waits (letting this worker's events run) until the thread workers started by the last line
// run their threads' bodies: a new worker may need this one's events to start, and the engine
// waits for its threads (`isready`, the next `go`) by blocking.
async function threadsStarted() {
  while (starting.length) {
    const now = starting;
    starting = [];
    await Promise.all(now);
  }
}

// Whether the module was built with threads: it imports its memory (shared).
function threaded(module) {
  return WebAssembly.Module.imports(module).some((i) => i.kind === "memory");
}

onmessage = async (event) => {
  if (event.data.thread) return runThread(event.data.thread);
  const { module, shared } = event.data;
  compiledModule = module;
  if (threaded(module)) {
    // The module's own minimum (64 MiB) and maximum (2 GiB, the largest `Hash` with room).
    sharedMemory = new WebAssembly.Memory({ initial: 1024, maximum: 32768, shared: true });
    imports.env.memory = sharedMemory;
  }
  wasm = await WebAssembly.instantiate(module, imports);
  if (sharedMemory) wasm.exports.corvid_threads(Math.max(1, navigator.hardwareConcurrency || 1));
  wasm.exports.corvid_start();
  postMessage({ ready: true });
  if (shared) {
    ring = ringOpen(shared);
    for (;;) {
      // Each line runs to its end; lines that came meanwhile were handled inside it.
      if (feed(ringReadBlocking(ring))) break;
      if (starting.length) await threadsStarted();
    }
    postMessage({ quit: true });
    close();
    return;
  }
  onmessage = (e) => {
    held = e.data.lines.slice();
    let quit = false;
    while (held.length && !quit) quit = feed(held.shift());
    held = [];
    postMessage({ done: e.data.seq });
    if (quit) {
      postMessage({ quit: true });
      close();
    }
  };
};
