// Types of corvid-chess's ES module, and of the lines the engine speaks (UCI).

/** Where the engine's three files are served, and how it runs. */
export interface CorvidOptions {
  /** The folder of corvid-worker.js, corvid-engine.js, corvid.wasm and corvid-threads.wasm
   * (default: beside this module when it is served unbundled, else the page's folder). Another
   * origin (a CDN) works. */
  baseUrl?: string | URL;
  /** The classic worker script (default `corvid-worker.js` in `baseUrl`). */
  workerUrl?: string | URL;
  /** The WebAssembly module (default `corvid.wasm` in `baseUrl`). */
  wasmUrl?: string | URL;
  /** The engine's own worker script (default `corvid-engine.js` in `baseUrl`). */
  engineUrl?: string | URL;
  /** The module built with WebAssembly threads, used on cross-origin isolated pages so that
   * `setoption name Threads` can go up to the machine's cores (default `corvid-threads.wasm` in
   * `baseUrl`; `null`: one thread, without fetching it). */
  threadsUrl?: string | URL | null;
  /** `"messages"` forces the fallback that needs no cross-origin isolation (for tests). */
  mode?: "messages";
  /** Milliseconds to wait for `uciok` (default 30000). */
  timeout?: number;
}

/** A score as an `info` line gives it: centipawns or moves to mate, from the side to move. */
export interface Score {
  cp?: number;
  mate?: number;
  /** Present when the score is only a bound (an aspiration window's fail). */
  bound?: "lower" | "upper";
}

/** An `info` line's fields (those present). */
export interface Info {
  depth?: number;
  seldepth?: number;
  multipv?: number;
  score?: Score;
  /** Win, draw, loss per mille (with `setoption name UCI_ShowWDL value true`). */
  wdl?: [number, number, number];
  nodes?: number;
  nps?: number;
  /** Milliseconds since the search began. */
  time?: number;
  hashfull?: number;
  tbhits?: number;
  currmove?: string;
  currmovenumber?: number;
  /** The principal variation, UCI moves (`e2e4`, `e7e8q`). */
  pv?: string[];
}

/** A `bestmove` line: the move (`null` when there is none) and the move to ponder. */
export interface BestMove {
  move: string | null;
  ponder?: string;
}

/** What `Corvid.search` resolves with. */
export interface SearchResult extends BestMove {
  info: Info[];
}

/** Every command the engine takes is a UCI line: `uci`, `isready`, `ucinewgame`,
 * `setoption name <name> value <value>` (Hash, Threads, MultiPV, Skill Level 0-20, UCI_Elo,
 * UCI_LimitStrength, UCI_AnalyseMode, UCI_ShowWDL, UCI_Chess960, Move Overhead, Ponder),
 * `position startpos|fen <fen> [moves ...]`, `go [wtime ms] [btime ms] [winc ms] [binc ms]
 * [movestogo n] [depth n] [nodes n] [mate n] [movetime ms] [infinite] [ponder]
 * [searchmoves ...]`, `stop`, `ponderhit`, `quit`. */
export type UciCommand = string;

/** Every line the engine writes: `id ...`, `option ...`, `uciok`, `readyok`, `info ...`,
 * `bestmove <move> [ponder <move>]`. */
export type UciLine = string;

export declare class Corvid {
  /** The classic worker underneath (post UCI lines to it directly, as to Stockfish's). */
  readonly worker: Worker;
  /** Posts UCI lines: one, or several separated by newlines. */
  send(lines: UciCommand): void;
  /** Calls `listener` with every line the engine writes; returns what stops it. */
  onLine(listener: (line: UciLine) => void): () => void;
  /** The first line for which `test` holds, after `then` posts what should bring it. */
  waitFor(test: (line: UciLine) => boolean, timeout?: number, then?: () => void): Promise<UciLine>;
  /** `position` and `go` lines searched; resolves at `bestmove`. */
  search(position: UciCommand, go?: UciCommand, timeout?: number): Promise<SearchResult>;
  /** Ends the running search (its `bestmove` follows). */
  stop(): void;
  /** Ends the engine and its worker. */
  terminate(): void;
}

/** Starts the engine and resolves once it has said `uciok`; rejects with the reason when it
 * cannot start (for example "got HTML, not WebAssembly, at URL"). */
export declare function createCorvid(options?: CorvidOptions): Promise<Corvid>;

/** An `info` line's fields; `null` for any other line and for `info string`. */
export declare function parseInfo(line: UciLine): Info | null;

/** A `bestmove` line read; `null` for any other line. */
export declare function parseBestMove(line: UciLine): BestMove | null;
