// corvid-chess: the engine as a Web Worker speaking UCI (dist/corvid-worker.js, the classic
// worker, usable on its own as Stockfish's workers are), and this ES module to start it from
// wherever its three files are served and to read what it says.

/** Where the files are unless told: beside this module when it is served as it is, else the
 * page's own folder (a bundle: copy the files to the public folder, or pass `baseUrl`). */
function defaultBase() {
  try {
    const url = new URL("./dist/", import.meta.url);
    if (url.protocol === "http:" || url.protocol === "https:") return url.href;
  } catch {
    // import.meta.url is not a URL in some bundles.
  }
  return typeof document !== "undefined" ? document.baseURI : self.location.href;
}

/** Starts the engine's worker and waits for `uciok`. */
export async function createCorvid(options = {}) {
  const base = new URL(options.baseUrl ?? defaultBase(), typeof document !== "undefined" ? document.baseURI : self.location.href);
  const urls = {
    worker: new URL(options.workerUrl ?? "corvid-worker.js", base).href,
    wasm: new URL(options.wasmUrl ?? "corvid.wasm", base).href,
    engine: new URL(options.engineUrl ?? "corvid-engine.js", base).href,
    threads: options.threadsUrl === null ? "none" : new URL(options.threadsUrl ?? "corvid-threads.wasm", base).href,
  };
  const here = typeof location !== "undefined" ? location.origin : "";
  let worker;
  if (new URL(urls.worker).origin === here) {
    const url = new URL(urls.worker);
    url.searchParams.set("wasm", urls.wasm);
    url.searchParams.set("engine", urls.engine);
    url.searchParams.set("threads", urls.threads);
    if (options.mode) url.searchParams.set("mode", options.mode);
    worker = new Worker(url.href);
  } else {
    // A worker's script must come from the page's origin: a one-line script of this origin
    // loads the engine's from the other one, and tells it where it lives.
    const config = JSON.stringify({ ...urls, mode: options.mode });
    const shim = `self.corvidUrls = ${config}; importScripts(${JSON.stringify(urls.worker)});`;
    worker = new Worker(URL.createObjectURL(new Blob([shim], { type: "text/javascript" })));
  }
  const corvid = new Corvid(worker);
  try {
    await corvid.waitFor((line) => line === "uciok", options.timeout ?? 30000, () => corvid.send("uci"));
  } catch (e) {
    corvid.terminate();
    throw e;
  }
  return corvid;
}

/** The engine: UCI lines in, every line it writes out. */
export class Corvid {
  constructor(worker) {
    this.worker = worker;
    this.listeners = new Set();
    this.failure = null;
    worker.onmessage = (e) => {
      const line = String(e.data);
      if (line.startsWith("info string error: cannot")) this.failure = new Error(line.slice("info string error: ".length));
      for (const listener of [...this.listeners]) listener(line);
    };
    worker.onerror = (e) => {
      this.failure = new Error(e.message || "the engine's worker failed");
      for (const listener of [...this.listeners]) listener(`info string error: ${this.failure.message}`);
    };
  }

  /** Posts UCI lines (one, or several separated by newlines). */
  send(lines) {
    for (const line of String(lines).split("\n")) {
      if (line.trim()) this.worker.postMessage(line);
    }
  }

  /** Calls `listener` with every line the engine writes; returns what stops it. */
  onLine(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first line for which `test` holds, after `then` (run once listening) posts what
   * should bring it; rejects after `timeout` ms, or when the engine cannot start. */
  waitFor(test, timeout = 30000, then = () => {}) {
    return new Promise((resolve, reject) => {
      const lines = [];
      const done = (f) => {
        clearTimeout(timer);
        stop();
        f();
      };
      const stop = this.onLine((line) => {
        lines.push(line);
        if (this.failure) return done(() => reject(this.failure));
        if (test(line)) done(() => resolve(line));
      });
      const timer = setTimeout(() => done(() => reject(new Error(`no answer within ${timeout} ms (last: ${lines.slice(-3).join(" | ")})`))), timeout);
      if (this.failure) return done(() => reject(this.failure));
      then();
    });
  }

  /** Searches `position` (a `position ...` line) with `go` (a `go ...` line) and resolves with
   * the best move, the move to ponder and every `info` line read. */
  async search(position, go = "go movetime 1000", timeout = 600000) {
    const info = [];
    const stop = this.onLine((line) => {
      const parsed = parseInfo(line);
      if (parsed) info.push(parsed);
    });
    try {
      const line = await this.waitFor((l) => l.startsWith("bestmove"), timeout, () => this.send(`${position}\n${go}`));
      return { ...parseBestMove(line), info };
    } finally {
      stop();
    }
  }

  /** Ends the running search (its `bestmove` follows). */
  stop() {
    this.send("stop");
  }

  /** Ends the engine and its worker. */
  terminate() {
    this.listeners.clear();
    this.worker.terminate();
  }
}

const NUMBERS = ["depth", "seldepth", "multipv", "nodes", "nps", "time", "hashfull", "tbhits", "currmovenumber"];

/** An `info` line read into its fields; `null` for any other line (and for `info string`). */
export function parseInfo(line) {
  const w = String(line).trim().split(/\s+/);
  if (w[0] !== "info" || w[1] === "string") return null;
  const info = {};
  for (let i = 1; i < w.length; i++) {
    const key = w[i];
    if (NUMBERS.includes(key)) {
      info[key] = Number(w[++i]);
    } else if (key === "score") {
      const score = {};
      for (i++; i < w.length; i++) {
        if (w[i] === "cp" || w[i] === "mate") score[w[i]] = Number(w[++i]);
        else if (w[i] === "lowerbound" || w[i] === "upperbound") score.bound = w[i] === "lowerbound" ? "lower" : "upper";
        else break;
      }
      i--;
      info.score = score;
    } else if (key === "wdl") {
      info.wdl = [Number(w[i + 1]), Number(w[i + 2]), Number(w[i + 3])];
      i += 3;
    } else if (key === "currmove") {
      info.currmove = w[++i];
    } else if (key === "pv") {
      info.pv = w.slice(i + 1);
      break;
    }
  }
  return info;
}

/** A `bestmove` line read: the move (`null` for `0000` or `(none)`: no legal move, or no
 * position) and the move to ponder, if given; `null` for any other line. */
export function parseBestMove(line) {
  const w = String(line).trim().split(/\s+/);
  if (w[0] !== "bestmove") return null;
  const move = w[1] === "0000" || w[1] === "(none)" ? null : w[1];
  return w[2] === "ponder" && w[3] ? { move, ponder: w[3] } : { move };
}
