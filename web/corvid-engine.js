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
"use strict";

let wasm = null;
let ring = null;
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
  return new Uint8Array(wasm.exports.memory.buffer);
}

const imports = {
  env: {
    corvid_now: () => performance.now(),
    corvid_write: (ptr, len) => {
      postMessage(decoder.decode(memory().subarray(ptr, ptr + len)));
    },
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

onmessage = async (event) => {
  const { module, shared } = event.data;
  wasm = await WebAssembly.instantiate(module, imports);
  wasm.exports.corvid_start();
  postMessage({ ready: true });
  if (shared) {
    ring = ringOpen(shared);
    while (!feed(ringReadBlocking(ring))) {
      // Each line runs to its end; lines that came meanwhile were handled inside it.
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
