// Corvid's page: a game against the engine, or analysis. The rules (legal moves, SAN, endings,
// PGN) come from Corvid itself: the page runs its own instance of corvid.wasm for them (the
// `corvid_describe`, `corvid_pgn` and `corvid_import` exports); the engine plays and analyses
// in corvid-worker.js, spoken to in UCI. Nothing is fetched from anywhere but this folder.
"use strict";

const FILES = "abcdefgh";
// The pieces, drawn here as SVG on a 45-unit square (the same on every system, unlike font
// glyphs): each a list of [kind, data], kinds "body" (filled and outlined), "ball" (a circle
// "cx cy r", the same), "line" (an inner line in the contrasting colour).
const SHAPES = {
  p: [["body", "M22.5 8.5C25 8.5 27 10.5 27 13C27 14.6 26.2 15.9 25 16.7C27.6 17.8 29 20 29 22.5C29 24.3 28.2 25.9 26.8 27C30.5 28.6 33.5 32.5 33.5 37.5H11.5C11.5 32.5 14.5 28.6 18.2 27C16.8 25.9 16 24.3 16 22.5C16 20 17.4 17.8 20 16.7C18.8 15.9 18 14.6 18 13C18 10.5 20 8.5 22.5 8.5Z"]],
  r: [
    ["body", "M11 37.5H34V34H31.5L30 20.5H32V11.5H28V14.5H24.5V11.5H20.5V14.5H17V11.5H13V20.5H15L13.5 34H11Z"],
    ["line", "M15 20.5H30M13.5 34H31.5"],
  ],
  n: [
    ["body", "M14 37.5H34C34 30 33.2 22 31.2 17C29.6 13 26.6 10.2 23.2 9.6L22 6.8L19.6 10C16 12 13 16 11.6 20.4L10.6 23.8C10.3 25.3 11.4 26.6 12.8 26.3L15.2 25.6C16.7 25.2 18 24.5 19.1 23.5C20.5 23.1 21.6 23.5 22 24.6C19 28 15.5 31.6 14 37.5Z"],
    ["ball", "18.6 15.6 1.3"],
    ["line", "M30.2 19.5C31.2 24 31.5 30 31.3 35"],
  ],
  b: [
    ["ball", "22.5 9.2 2.4"],
    ["body", "M22.5 11.6C27.5 15 30.5 20 30.5 24.5C30.5 27.5 28.5 29.5 26 30.5L27.5 33H17.5L19 30.5C16.5 29.5 14.5 27.5 14.5 24.5C14.5 20 17.5 15 22.5 11.6Z"],
    ["body", "M12 37.5C12 35.3 13.5 33 16 33H29C31.5 33 33 35.3 33 37.5Z"],
    ["line", "M25.6 17.5L20.8 23.5M19 30.5H26"],
  ],
  q: [
    ["body", "M10.5 17L17 26L16.5 13.5L20.5 24L22.5 12L24.5 24L28.5 13.5L28 26L34.5 17L30.5 31H14.5Z"],
    ["body", "M14.5 31H30.5L31.5 34.5L33 37.5H12L13.5 34.5Z"],
    ["ball", "10.5 17 2.1"], ["ball", "16.5 13.5 2.1"], ["ball", "22.5 12 2.1"], ["ball", "28.5 13.5 2.1"], ["ball", "34.5 17 2.1"],
    ["line", "M13.6 34.5H31.4"],
  ],
  k: [
    ["body", "M21.3 5.5H23.7V8.1H26.3V10.5H23.7V13.6H21.3V10.5H18.7V8.1H21.3Z"],
    ["body", "M22.5 13.6C25 13.6 26.5 15.6 26 18.3C29 16.3 34.5 16.8 34.5 22.3C34.5 26.3 31.6 29.4 30 31H15C13.4 29.4 10.5 26.3 10.5 22.3C10.5 16.8 16 16.3 19 18.3C18.5 15.6 20 13.6 22.5 13.6Z"],
    ["body", "M15 31H30L31.2 34.5L32.5 37.5H12.5L13.8 34.5Z"],
    ["line", "M22.5 18.5V30.5M13.8 34.5H31.2"],
  ],
};

// A piece ("K", "n", ...) as an SVG element of class `piece w` or `piece b`.
function pieceSvg(piece) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 45 45");
  svg.setAttribute("class", `piece ${piece === piece.toUpperCase() ? "w" : "b"}`);
  svg.setAttribute("aria-hidden", "true");
  for (const [kind, data] of SHAPES[piece.toLowerCase()]) {
    let shape;
    if (kind === "ball") {
      const [cx, cy, r] = data.split(" ");
      shape = document.createElementNS(ns, "circle");
      Object.entries({ cx, cy, r }).forEach(([k, v]) => shape.setAttribute(k, v));
      shape.setAttribute("class", "body");
    } else {
      shape = document.createElementNS(ns, "path");
      shape.setAttribute("d", data);
      shape.setAttribute("class", kind);
    }
    svg.append(shape);
  }
  return svg;
}
const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ the rules (corvid.wasm)

const Rules = {
  exports: null,
  out: [],
  encoder: new TextEncoder(),
  decoder: new TextDecoder(),

  async load() {
    const env = {
      corvid_now: () => performance.now(),
      corvid_write: (ptr, len) => {
        const bytes = new Uint8Array(this.exports.memory.buffer, ptr, len);
        this.out.push(this.decoder.decode(bytes));
      },
      corvid_read: () => -1,
    };
    let instance;
    try {
      ({ instance } = await WebAssembly.instantiateStreaming(fetch("corvid.wasm"), { env }));
    } catch (e) {
      const bytes = await (await fetch("corvid.wasm")).arrayBuffer();
      ({ instance } = await WebAssembly.instantiate(bytes, { env }));
    }
    this.exports = instance.exports;
  },

  call(name, text) {
    const bytes = this.encoder.encode(text);
    const ptr = this.exports.corvid_input(bytes.length);
    new Uint8Array(this.exports.memory.buffer).set(bytes, ptr);
    this.out = [];
    this.exports[name](bytes.length);
    return this.out;
  },

  // The state of the game from `start` with `moves` (src/web/rules.rs says every line).
  describe(start, moves) {
    const state = { legal: [], legalSan: [], san: [], ending: null, error: null };
    for (const line of this.call("corvid_describe", `${start}\n${moves.join(" ")}`)) {
      const at = line.indexOf(" ");
      const key = at < 0 ? line : line.slice(0, at);
      const rest = at < 0 ? "" : line.slice(at + 1);
      const list = () => rest.split(" ").filter(Boolean);
      if (key === "fen") state.fen = rest;
      else if (key === "turn") state.turn = rest;
      else if (key === "check") state.check = rest === "1";
      else if (key === "legal") state.legal = list();
      else if (key === "legalsan") state.legalSan = list();
      else if (key === "san") state.san = list();
      else if (key === "numbers") [state.firstNumber, state.firstColour] = [Number(list()[0]), list()[1]];
      else if (key === "ending" && rest !== "none") {
        const space = rest.indexOf(" ");
        state.ending = { result: rest.slice(0, space), reason: rest.slice(space + 1) };
      } else if (key === "material") [state.whiteCanMate, state.blackCanMate] = list().map((x) => x === "1");
      else if (key === "error") state.error = rest;
    }
    return state;
  },

  pgn(start, moves, white, black, timeControl, date, ending) {
    return this.call("corvid_pgn", [start, moves.join(" "), white, black, timeControl, date, ending].join("\n")).join("\n");
  },

  import(text) {
    const lines = this.call("corvid_import", text);
    const found = {};
    for (const line of lines) {
      const at = line.indexOf(" ");
      found[at < 0 ? line : line.slice(0, at)] = at < 0 ? "" : line.slice(at + 1);
    }
    if (found.error !== undefined) return { error: found.error };
    return { start: found.start, moves: found.moves.split(" ").filter(Boolean) };
  },
};

// ------------------------------------------------------------------ the engine (UCI worker)

const Engine = {
  worker: null,
  ready: false,
  // Every `go` not yet answered, oldest first: {kind: "move" | "analysis", game, ply, stale}.
  open: [],
  sent: { level: null, multipv: null },

  start() {
    this.worker = new Worker("corvid-worker.js");
    this.worker.onmessage = (e) => this.line(String(e.data));
    this.worker.onerror = (e) => say(`The engine failed to start: ${e.message || "unknown error"}`);
    this.send("uci");
    this.send("isready");
  },

  send(line) {
    this.worker.postMessage(line);
  },

  line(line) {
    if (line === "readyok" && !this.ready) {
      this.ready = true;
      this.readyAt = performance.now(); // milliseconds since the page began to load
      engineReady();
      return;
    }
    if (line.startsWith("bestmove")) {
      const search = this.open.shift();
      if (search && !search.stale) bestMove(search, line.split(" ")[1]);
      return;
    }
    if (line.startsWith("info") && this.open.length) {
      const search = this.open[0];
      if (!search.stale && search.kind === "analysis") analysisInfo(line);
      if (!search.stale && search.kind === "move") {
        const m = line.match(/ score (cp|mate) (-?\d+)(?! (lowerbound|upperbound))/);
        if (m && line.includes(" pv ")) search.score = { kind: m[1], value: Number(m[2]) };
      }
    }
  },

  // Ends the searches under way: their answers will be ignored.
  stop() {
    if (this.open.some((s) => !s.stale)) this.send("stop");
    for (const s of this.open) s.stale = true;
  },

  // The options a search needs, sent only when they change (a new strength empties the table).
  options(level, multipv) {
    if (this.sent.level !== level) {
      this.send(`setoption name UCI_LimitStrength value ${level === "full" ? "false" : "true"}`);
      if (level !== "full") this.send(`setoption name UCI_Elo value ${level}`);
      this.sent.level = level;
    }
    if (this.sent.multipv !== multipv) {
      this.send(`setoption name MultiPV value ${multipv}`);
      this.sent.multipv = multipv;
    }
  },

  go(kind, position, go) {
    this.stop();
    this.send(position);
    this.send(go);
    this.open.push({ kind, game: game.id, ply: game.moves.length, stale: false });
  },
};

// ------------------------------------------------------------------ the game

const game = {
  id: 0,
  start: "startpos",
  moves: [],
  state: null,
  human: "white",
  level: "1800",
  clock: null, // {base, inc} in milliseconds, or null
  time: { white: 0, black: 0 },
  ticking: null, // the side whose clock runs, and since when: {side, since}
  over: null, // {result, reason} when a clock, a resignation or the rules ended it
  analysing: false,
  flipped: false,
  // Corvid's own score after each of its moves in a game, White's side: {ply, cp} (a mate as
  // +/-1000), for the graph shown when the game is over.
  scores: [],
  lowTimeSaid: false,
};

function other(side) {
  return side === "white" ? "black" : "white";
}

function positionCommand() {
  const start = game.start === "startpos" ? "startpos" : `fen ${game.start}`;
  return game.moves.length ? `position ${start} moves ${game.moves.join(" ")}` : `position ${start}`;
}

function refresh() {
  game.state = Rules.describe(game.start, game.moves);
  if (game.state.ending && !game.over) game.over = game.state.ending;
  render();
}

function engineSide() {
  return other(game.human);
}

function newGame() {
  Engine.stop();
  game.id++;
  const colour = $("colour").value;
  game.human = colour === "random" ? (Math.random() < 0.5 ? "white" : "black") : colour;
  game.flipped = game.human === "black";
  game.level = $("level").value;
  const tc = $("tc").value;
  game.clock = tc === "none" ? null : { base: Number(tc.split("+")[0]) * 1000, inc: Number(tc.split("+")[1]) * 1000 };
  game.time = { white: game.clock ? game.clock.base : 0, black: game.clock ? game.clock.base : 0 };
  game.ticking = null;
  game.over = null;
  game.moves = [];
  game.start = "startpos";
  game.scores = [];
  game.lowTimeSaid = false;
  selected = null;
  view = null;
  Engine.send("ucinewgame");
  refresh();
  say(game.human === "white" ? "Your move." : "Corvid plays White.");
  next();
}

// Whose turn it is decides what happens next: the engine plays or analyses, or waits.
function next() {
  stopClock();
  const state = game.state;
  if (game.over) {
    announce();
    if (game.analysing) analyse();
    return;
  }
  if (game.analysing) {
    analyse();
    return;
  }
  // As on lichess, the clocks start once both sides have made their first move.
  if (game.clock && Engine.ready && game.moves.length >= 2) startClock(state.turn);
  if (state.turn === engineSide()) think();
}

function think() {
  if (!Engine.ready) return;
  Engine.options(game.level, 1);
  let go = "go movetime 2000";
  if (game.clock) {
    const t = game.time;
    go = `go wtime ${Math.max(1, Math.round(t.white))} btime ${Math.max(1, Math.round(t.black))} winc ${game.clock.inc} binc ${game.clock.inc}`;
  }
  Engine.go("move", positionCommand(), go);
  say("Corvid is thinking…");
}

function bestMove(search, move) {
  if (search.kind !== "move" || search.game !== game.id || search.ply !== game.moves.length) return;
  if (game.over || game.analysing || game.state.turn !== engineSide()) return;
  if (!game.state.legal.includes(move)) return say(`Corvid answered ${move}, which is not legal here.`);
  if (search.score) {
    const own = search.score.kind === "mate" ? Math.sign(search.score.value) * 1000 : Math.max(-1000, Math.min(1000, search.score.value));
    game.scores.push({ ply: game.moves.length + 1, cp: game.state.turn === "white" ? own : -own });
  }
  play(move);
}

// Plays `move` (UCI, legal) for the side to move.
function play(move) {
  const mover = game.state.turn;
  if (game.clock && game.ticking) {
    chargeClock();
    game.time[mover] += game.clock.inc;
  }
  game.moves.push(move);
  selected = null;
  view = null;
  refresh();
  const san = game.state.san[game.state.san.length - 1] || "";
  Sound.play(/[+#]$/.test(san) ? "check" : san.includes("x") ? "capture" : "move");
  if (!game.over) say(game.state.turn === game.human || game.analysing ? (game.state.check ? "Check!" : "Your move.") : "");
  next();
}

function undo() {
  Engine.stop();
  if (!game.moves.length) return;
  // One move in analysis; in a game, back to the person's last turn before their last move.
  game.moves.pop();
  while (!game.analysing && game.moves.length && Rules.describe(game.start, game.moves).turn !== game.human) {
    game.moves.pop();
  }
  game.over = null;
  selected = null;
  view = null;
  game.scores = game.scores.filter((s) => s.ply <= game.moves.length);
  refresh();
  say("Move taken back.");
  next();
}

function resign() {
  if (game.over || game.analysing) return;
  Engine.stop();
  stopClock();
  game.over = { result: game.human === "white" ? "0-1" : "1-0", reason: `${cap(game.human)} resigns` };
  render();
  announce();
}

function cap(text) {
  return text[0].toUpperCase() + text.slice(1);
}

function announce() {
  const over = game.over;
  const words = {
    "1-0": "White wins",
    "0-1": "Black wins",
    "1/2-1/2": "Draw",
  };
  say(`${words[over.result]}: ${over.reason}.`);
}

// ------------------------------------------------------------------ clocks

function startClock(side) {
  game.ticking = { side, since: performance.now() };
}

// Takes the running clock's time off it.
function chargeClock() {
  if (!game.ticking) return;
  const now = performance.now();
  game.time[game.ticking.side] -= now - game.ticking.since;
  game.ticking.since = now;
}

function stopClock() {
  chargeClock();
  game.ticking = null;
}

function tick() {
  if (game.ticking && !game.over) {
    chargeClock();
    const side = game.ticking.side;
    if (side === game.human && !game.analysing && game.time[side] < 10000 && !game.lowTimeSaid) {
      game.lowTimeSaid = true;
      Sound.play("low");
    }
    if (game.time[side] <= 0) {
      game.time[side] = 0;
      Engine.stop();
      game.ticking = null;
      // FIDE: a flag falls to a draw when the other side cannot mate by any series of moves.
      const canMate = side === "white" ? game.state.blackCanMate : game.state.whiteCanMate;
      game.over = canMate
        ? { result: side === "white" ? "0-1" : "1-0", reason: "time forfeit" }
        : { result: "1/2-1/2", reason: "timeout against insufficient material" };
      render();
      announce();
    }
  }
  renderClocks();
}

function clockText(ms) {
  if (!game.clock) return "–";
  const total = Math.max(0, ms);
  const minutes = Math.floor(total / 60000);
  const seconds = Math.floor((total % 60000) / 1000);
  const text = `${minutes}:${String(seconds).padStart(2, "0")}`;
  return total < 10000 ? `${text}.${Math.floor((total % 1000) / 100)}` : text;
}

// ------------------------------------------------------------------ analysis

const analysis = { running: false, lines: [], depth: 0, speed: "" };

function analyse() {
  if (!Engine.ready) return;
  analysis.lines = [];
  analysis.depth = 0;
  if (game.state.legal.length === 0 || !analysis.running) {
    Engine.stop();
    renderAnalysis();
    return;
  }
  Engine.options("full", Number($("multipv").value));
  Engine.go("analysis", positionCommand(), "go infinite");
  renderAnalysis();
}

function analysisInfo(line) {
  const w = line.split(" ");
  const at = (key) => w.indexOf(key);
  if (at("pv") < 0 || at("score") < 0 || w.includes("lowerbound") || w.includes("upperbound")) {
    if (at("nps") >= 0) analysis.speed = `${Math.round(Number(w[at("nps") + 1]) / 1000)} kN/s`;
    return;
  }
  const multipv = at("multipv") >= 0 ? Number(w[at("multipv") + 1]) : 1;
  const kind = w[at("score") + 1];
  let value = Number(w[at("score") + 2]);
  // The score is the side to move's; shown from White's side.
  if (game.state.turn === "black") value = -value;
  const depth = Number(w[at("depth") + 1]);
  analysis.lines[multipv - 1] = { kind, value, depth, pv: w.slice(at("pv") + 1) };
  if (multipv === 1) analysis.depth = depth;
  if (at("nps") >= 0) analysis.speed = `${Math.round(Number(w[at("nps") + 1]) / 1000)} kN/s`;
  scheduleAnalysisRender();
}

function scoreText(line) {
  if (line.kind === "mate") return `${line.value > 0 ? "" : "-"}#${Math.abs(line.value)}`;
  const pawns = line.value / 100;
  return `${pawns > 0 ? "+" : ""}${pawns.toFixed(2)}`;
}

let analysisRenderQueued = false;
function scheduleAnalysisRender() {
  if (analysisRenderQueued) return;
  analysisRenderQueued = true;
  setTimeout(() => {
    analysisRenderQueued = false;
    renderAnalysis();
  }, 150);
}

function renderAnalysis() {
  $("analysis-toggle").disabled = !game.analysing;
  $("analysis-toggle").textContent = analysis.running ? "Stop" : "Go";
  renderOverlays();
  const list = $("lines");
  list.textContent = "";
  if (!game.analysing) {
    $("eval").textContent = "–";
    $("depth").textContent = "–";
    $("speed").textContent = "";
    return;
  }
  const best = analysis.lines[0];
  $("eval").textContent = best ? scoreText(best) : "–";
  $("depth").textContent = analysis.depth || "–";
  $("speed").textContent = analysis.speed;
  for (const line of analysis.lines) {
    if (!line) continue;
    const item = document.createElement("li");
    const score = document.createElement("b");
    score.textContent = scoreText(line);
    item.append(score, ` ${numbered(Rules.describe(game.start, [...game.moves, ...line.pv.slice(0, 14)]).san.slice(game.moves.length), game.moves.length)}`);
    list.append(item);
  }
}

// ------------------------------------------------------------------ the board

let selected = null; // the square whose piece was picked up
let focusSquare = "e2";

function squares() {
  const out = [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const file = game.flipped ? 7 - col : col;
      const rank = game.flipped ? row : 7 - row;
      out.push(FILES[file] + (rank + 1));
    }
  }
  return out;
}

// The pieces of a FEN by square: {e1: "K", ...}.
function piecesOf(fen) {
  const pieces = {};
  const rows = fen.split(" ")[0].split("/");
  rows.forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else pieces[FILES[file++] + (8 - i)] = ch;
    }
  });
  return pieces;
}

function buildBoard() {
  const board = $("board");
  board.textContent = "";
  for (const sq of squares()) {
    const cell = document.createElement("button");
    cell.type = "button";
    cell.className = "sq";
    cell.dataset.square = sq;
    cell.setAttribute("role", "gridcell");
    cell.tabIndex = sq === focusSquare ? 0 : -1;
    const file = FILES.indexOf(sq[0]);
    const rank = Number(sq[1]) - 1;
    if ((file + rank) % 2 === 1) cell.classList.add("light");
    board.append(cell);
  }
}

function render() {
  const state = shownState();
  const pieces = piecesOf(state.fen);
  const shown = view === null ? game.moves.length : view;
  const last = game.moves[shown - 1];
  const targets = selected ? state.legal.filter((m) => m.startsWith(selected)).map((m) => m.slice(2, 4)) : [];
  const order = squares();
  const cells = $("board").children;
  if (cells.length !== 64 || cells[0].dataset.square !== order[0]) buildBoard();
  for (const cell of $("board").children) {
    const sq = cell.dataset.square;
    const piece = pieces[sq];
    cell.textContent = "";
    if (piece) {
      cell.append(pieceSvg(piece));
    }
    const file = sq[0];
    const rank = sq[1];
    if (rank === (game.flipped ? "8" : "1")) cell.append(coord("file", file));
    if (file === (game.flipped ? "h" : "a")) cell.append(coord("rank", rank));
    cell.classList.toggle("last", !!last && (last.slice(0, 2) === sq || last.slice(2, 4) === sq));
    cell.classList.toggle("selected", selected === sq);
    cell.classList.toggle("target", targets.includes(sq));
    cell.classList.toggle("occupied", !!piece);
    const king = state.turn === "white" ? "K" : "k";
    cell.classList.toggle("check", state.check && piece === king);
    const name = piece ? `${piece === piece.toUpperCase() ? "white" : "black"} ${pieceName(piece)}` : "empty";
    cell.setAttribute("aria-label", `${sq}, ${name}`);
  }
  $("turn").textContent = game.state.turn;
  $("result").textContent = game.over ? game.over.result : "*";
  renderMoves();
  renderClocks();
  renderMaterial(pieces);
  renderViewing();
  renderPgn();
  renderAnalysis();
  renderGraph();
}

function coord(kind, text) {
  const span = document.createElement("span");
  span.className = `coord ${kind}`;
  span.textContent = text;
  return span;
}

function pieceName(piece) {
  return { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" }[piece.toLowerCase()];
}

// SAN moves with their numbers, starting after `played` moves of the game.
function numbered(sans, played) {
  const state = game.state;
  let number = state.firstNumber;
  let white = state.firstColour === "white";
  for (let i = 0; i < played; i++) {
    if (!white) number++;
    white = !white;
  }
  const out = [];
  sans.forEach((san, i) => {
    if (white) out.push(`${number}. ${san}`);
    else out.push(i === 0 ? `${number}… ${san}` : san);
    if (!white) number++;
    white = !white;
  });
  return out.join(" ");
}

// The moves as a table of rows, one move number a row (White's move, Black's): rows wrap as
// the game grows, so the list keeps the panel's width on any screen.
function renderMoves() {
  const box = $("moves");
  box.textContent = "";
  const state = game.state;
  let number = state.firstNumber;
  let white = state.firstColour === "white";
  const cell = (className, text) => {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = text;
    box.append(span);
  };
  state.san.forEach((san, i) => {
    if (white || i === 0) cell("n", `${number}.`);
    if (!white && i === 0) cell("m none", "…");
    cell("m" + (i === state.san.length - 1 ? " current" : "") + (view === i + 1 ? " viewed" : ""), san);
    box.lastChild.dataset.ply = String(i + 1);
    if (!white) number++;
    white = !white;
  });
  if (view === null) box.scrollTop = box.scrollHeight;
}

function playerNames() {
  const corvid = game.level === "full" ? "Corvid" : `Corvid (level ${game.level})`;
  if (game.analysing) return { white: "?", black: "?" };
  return game.human === "white" ? { white: "You", black: corvid } : { white: corvid, black: "You" };
}

function renderClocks() {
  const names = playerNames();
  const top = game.flipped ? "white" : "black";
  const bottom = other(top);
  for (const [place, side] of [["top", top], ["bottom", bottom]]) {
    $(`name-${place}`).textContent = `${cap(side)}: ${names[side] === "?" ? "analysis" : names[side]}`;
    $(`time-${place}`).textContent = clockText(game.time[side]);
    $(`clock-${place}`).classList.toggle("running", !!game.ticking && game.ticking.side === side);
    $(`clock-${place}`).classList.toggle("low", !!game.clock && game.time[side] < 10000);
  }
}

function today() {
  const d = new Date();
  return `${d.getUTCFullYear()}.${String(d.getUTCMonth() + 1).padStart(2, "0")}.${String(d.getUTCDate()).padStart(2, "0")}`;
}

function pgnText() {
  const names = playerNames();
  const tc = game.clock ? `${game.clock.base / 1000}+${game.clock.inc / 1000}` : "-";
  const ending = game.over && !game.state.ending ? `${game.over.result} ${game.over.reason}` : "";
  return Rules.pgn(game.start, game.moves, names.white, names.black, tc, today(), ending);
}

function renderPgn() {
  $("pgn").textContent = pgnText();
}

// ------------------------------------------------------------------ looking back

// The ply shown while looking back through the moves (0: the start), null for the game's
// position. The game goes on meanwhile (Corvid's move, the clocks); a move on the board, a click
// on it, End or "Back to the game" return to the game's position.
let view = null;

function shownState() {
  return view === null ? game.state : Rules.describe(game.start, game.moves.slice(0, view));
}

function showPly(ply) {
  view = ply === null || ply >= game.moves.length ? null : Math.max(0, ply);
  selected = null;
  render();
}

function renderViewing() {
  $("viewing").hidden = view === null;
  if (view !== null) $("viewing-text").textContent = view === 0 ? "The start" : `After move ${numbered([game.state.san[view - 1]], view - 1)}`;
}

// The arrow keys step through the moves (Home, End: the start, the game's position), except
// where they already mean something (a text field, a list, the board's own squares).
function keyOnPage(e) {
  const t = e.target;
  if (t.closest && (t.closest("input, textarea, select, [data-square]") || t.isContentEditable)) return;
  const at = view === null ? game.moves.length : view;
  const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: null }[e.key];
  if (to === undefined || (typeof to === "number" && to < 0)) return;
  e.preventDefault();
  showPly(to);
}

// ------------------------------------------------------------------ material, overlays, graph

const VALUE = { q: 9, r: 5, b: 3, n: 3, p: 1 };

// Beside each player: the pieces they have more of than the other side, and the points ahead.
function renderMaterial(pieces) {
  const count = { white: {}, black: {} };
  for (const piece of Object.values(pieces)) {
    const side = piece === piece.toUpperCase() ? "white" : "black";
    const t = piece.toLowerCase();
    count[side][t] = (count[side][t] || 0) + 1;
  }
  // The pieces a side has more of, drawn in the other side's colour (as captured pieces are).
  const extra = { white: [], black: [] };
  let points = 0;
  for (const t of "qrbnp") {
    const d = (count.white[t] || 0) - (count.black[t] || 0);
    for (let i = 0; i < Math.abs(d); i++) (d > 0 ? extra.white : extra.black).push(d > 0 ? t : t.toUpperCase());
    points += d * VALUE[t];
  }
  const top = game.flipped ? "white" : "black";
  for (const [place, side] of [["top", top], ["bottom", other(top)]]) {
    const ahead = side === "white" ? points : -points;
    const box = $(`material-${place}`);
    box.textContent = "";
    box.append(...extra[side].map(pieceSvg));
    if (ahead > 0) box.append(` +${ahead}`);
  }
}

// Analysis draws its best move as an arrow and its score as a bar beside the board.
function renderOverlays() {
  const arrows = $("arrows");
  arrows.textContent = "";
  const best = analysis.lines[0];
  const showing = game.analysing && view === null && !!best && best.pv.length > 0;
  $("evalbar").hidden = !showing;
  if (!showing) return;
  const white = best.kind === "mate" ? (best.value > 0 ? 100 : 0) : 50 + 50 * (2 / (1 + Math.exp(-best.value / 250)) - 1);
  $("evalbar-fill").style.height = `${white.toFixed(1)}%`;
  $("evalbar").classList.toggle("flipped", game.flipped);
  $("evalbar").dataset.white = white.toFixed(1);
  const move = best.pv[0];
  const at = (sq) => {
    const file = FILES.indexOf(sq[0]);
    const rank = Number(sq[1]) - 1;
    return game.flipped ? [7 - file + 0.5, rank + 0.5] : [file + 0.5, 7 - rank + 0.5];
  };
  const [x1, y1] = at(move.slice(0, 2));
  const [x2, y2] = at(move.slice(2, 4));
  const len = Math.hypot(x2 - x1, y2 - y1);
  const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
  const head = 0.38;
  const [bx, by] = [x2 - ux * head, y2 - uy * head];
  const ns = "http://www.w3.org/2000/svg";
  const line = document.createElementNS(ns, "line");
  for (const [k, v] of Object.entries({ x1, y1, x2: bx, y2: by })) line.setAttribute(k, v.toFixed(3));
  const tip = document.createElementNS(ns, "polygon");
  const points = [
    [x2, y2],
    [bx - uy * 0.22, by + ux * 0.22],
    [bx + uy * 0.22, by - ux * 0.22],
  ];
  tip.setAttribute("points", points.map((p) => p.map((v) => v.toFixed(3)).join(",")).join(" "));
  const arrow = document.createElementNS(ns, "g");
  arrow.dataset.move = move;
  arrow.append(line, tip);
  arrows.append(arrow);
}

// After a game, Corvid's own evaluation move by move (White's side, clamped to +/-10 pawns).
function renderGraph() {
  const box = $("graph-box");
  const points = game.scores;
  box.hidden = !game.over || game.analysing || points.length < 2;
  if (box.hidden) return;
  const svg = $("graph");
  svg.textContent = "";
  const ns = "http://www.w3.org/2000/svg";
  const last = Math.max(...points.map((p) => p.ply), 1);
  const axis = document.createElementNS(ns, "line");
  for (const [k, v] of Object.entries({ x1: 0, y1: 20, x2: 100, y2: 20 })) axis.setAttribute(k, v);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", points.map((p) => `${((p.ply / last) * 100).toFixed(2)},${(20 - (p.cp / 1000) * 19).toFixed(2)}`).join(" "));
  svg.append(axis, line);
  svg.dataset.points = String(points.length);
}

// ------------------------------------------------------------------ sound

// Short tones made in the page (no sound files): a move, a capture, a check, and the person's
// clock under ten seconds. Off until switched on; the choice is kept in the browser.
const Sound = {
  on: (() => {
    try {
      return localStorage.getItem("corvid-sound") === "on";
    } catch {
      return false;
    }
  })(),
  context: null,
  played: [], // what was played, for the tests
  TONES: {
    move: [[520, 0.045]],
    capture: [[330, 0.06], [220, 0.08]],
    check: [[660, 0.06], [990, 0.09]],
    low: [[880, 0.09], [0, 0.06], [880, 0.09]],
  },
  play(kind) {
    if (!this.on) return;
    this.played.push(kind);
    try {
      this.context = this.context || new AudioContext();
      let at = this.context.currentTime + 0.01;
      for (const [pitch, length] of this.TONES[kind]) {
        if (pitch) {
          const tone = this.context.createOscillator();
          const level = this.context.createGain();
          tone.frequency.value = pitch;
          level.gain.setValueAtTime(0.15, at);
          level.gain.exponentialRampToValueAtTime(0.001, at + length);
          tone.connect(level).connect(this.context.destination);
          tone.start(at);
          tone.stop(at + length);
        }
        at += length;
      }
    } catch {
      // No audio here: the game goes on silently.
    }
  },
};

// ------------------------------------------------------------------ dragging

// A piece is dragged with a mouse, a pen or a finger (pointer events): picked up on its square,
// it follows the pointer and is put down on the square under it, as a click on that square
// would move it. A press that does not move stays a click (click-click works as before).
let drag = null;
let suppressClick = false;

function pointerDown(e) {
  const cell = e.target.closest("[data-square]");
  if (!cell || e.button > 0 || view !== null || !game.state || !humanMayMove()) return;
  const sq = cell.dataset.square;
  if (!game.state.legal.some((m) => m.startsWith(sq))) return;
  drag = { from: sq, x: e.clientX, y: e.clientY, ghost: null, id: e.pointerId };
  cell.setPointerCapture && cell.setPointerCapture(e.pointerId);
  cell.addEventListener("pointermove", pointerMove);
  cell.addEventListener("pointerup", pointerUp, { once: true });
  cell.addEventListener("pointercancel", pointerCancel, { once: true });
}

function pointerMove(e) {
  if (!drag || e.pointerId !== drag.id) return;
  if (!drag.ghost) {
    if (Math.hypot(e.clientX - drag.x, e.clientY - drag.y) < 5) return;
    const piece = document.querySelector(`[data-square="${drag.from}"] .piece`);
    if (!piece) return;
    selected = drag.from;
    render();
    const lifted = document.querySelector(`[data-square="${drag.from}"] .piece`);
    drag.ghost = lifted.cloneNode(true);
    drag.ghost.classList.add("ghost");
    document.body.append(drag.ghost);
    lifted.classList.add("lifted");
  }
  e.preventDefault();
  drag.ghost.style.left = `${e.clientX}px`;
  drag.ghost.style.top = `${e.clientY}px`;
}

function endDrag(cell) {
  cell.removeEventListener("pointermove", pointerMove);
  if (drag && drag.ghost) drag.ghost.remove();
  const was = drag;
  drag = null;
  return was;
}

function pointerUp(e) {
  const cell = e.currentTarget;
  const was = endDrag(cell);
  if (!was || !was.ghost) return;
  // The click that follows a drag is not a click.
  suppressClick = true;
  setTimeout(() => (suppressClick = false), 0);
  const under = document.elementFromPoint(e.clientX, e.clientY);
  const target = under && under.closest && under.closest("[data-square]");
  if (target && target.dataset.square !== was.from) {
    clickSquare(target.dataset.square);
  } else {
    render();
  }
}

function pointerCancel(e) {
  endDrag(e.currentTarget);
  selected = null;
  render();
}

// ------------------------------------------------------------------ moving

function humanMayMove() {
  return game.analysing || (!game.over && game.state.turn === game.human);
}

function clickSquare(sq) {
  if (view !== null) {
    // A click on the board while looking back returns to the game's position.
    showPly(null);
    return;
  }
  if (!game.state || !humanMayMove()) return;
  const state = game.state;
  if (selected && selected !== sq) {
    const moves = state.legal.filter((m) => m.startsWith(selected + sq));
    if (moves.length === 1) return play(moves[0]);
    if (moves.length > 1) return choosePromotion(moves);
  }
  const mine = state.legal.some((m) => m.startsWith(sq));
  selected = mine && selected !== sq ? sq : null;
  render();
}

// The four pieces in a column over the promotion square, from the board's edge inwards.
function choosePromotion(moves) {
  const dialog = $("promotion");
  const choices = $("promotion-choices");
  const target = moves[0].slice(2, 4);
  const rect = document.querySelector(`[data-square="${target}"]`).getBoundingClientRect();
  const white = game.state.turn === "white";
  const atTop = (target[1] === "8") !== game.flipped;
  choices.classList.toggle("up", !atTop);
  choices.style.left = `${rect.left}px`;
  choices.style.top = atTop ? `${rect.top}px` : "";
  choices.style.bottom = atTop ? "" : `${window.innerHeight - rect.bottom}px`;
  for (const button of choices.children) {
    const piece = button.dataset.piece;
    button.textContent = "";
    button.append(pieceSvg(white ? piece.toUpperCase() : piece));
  }
  dialog.hidden = false;
  choices.querySelector("button").focus();
  const close = (move) => {
    dialog.hidden = true;
    dialog.onclick = null;
    dialog.onkeydown = null;
    if (move) play(move);
    else {
      selected = null;
      render();
    }
  };
  dialog.onclick = (e) => {
    const button = e.target.closest("button");
    close(button ? moves.find((m) => m[4] === button.dataset.piece) : null);
  };
  dialog.onkeydown = (e) => {
    if (e.key === "Escape") close(null);
  };
}

// A move typed in SAN (`Nf3`, `exd5`, `O-O`, `e8=Q`) or UCI (`g1f3`).
function typedMove(text) {
  const state = game.state;
  const clean = (s) => s.replace(/[+#!?]/g, "").replace(/0/g, "O").replace("=", "").toLowerCase();
  const typed = text.trim();
  if (state.legal.includes(typed.toLowerCase())) return typed.toLowerCase();
  const exact = state.legalSan.indexOf(typed.replace(/[+#!?]/g, ""));
  if (exact >= 0) return state.legal[exact];
  const found = state.legalSan.map(clean).indexOf(clean(typed));
  return found >= 0 ? state.legal[found] : null;
}

function say(text) {
  $("status").textContent = text;
}

// ------------------------------------------------------------------ wiring

function engineReady() {
  say(game.state.turn === game.human ? "Your move." : "");
  next();
}

function keyOnBoard(e) {
  const sq = e.target.dataset && e.target.dataset.square;
  if (!sq) return;
  const steps = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
  const step = steps[e.key];
  if (!step) return;
  e.preventDefault();
  const dir = game.flipped ? -1 : 1;
  const file = Math.min(7, Math.max(0, FILES.indexOf(sq[0]) + step[0] * dir));
  const rank = Math.min(8, Math.max(1, Number(sq[1]) + step[1] * dir));
  focusSquare = FILES[file] + rank;
  for (const cell of $("board").children) cell.tabIndex = cell.dataset.square === focusSquare ? 0 : -1;
  document.querySelector(`[data-square="${focusSquare}"]`).focus();
}

function wire() {
  $("board").addEventListener("click", (e) => {
    if (suppressClick) return;
    const cell = e.target.closest("[data-square]");
    if (cell) {
      focusSquare = cell.dataset.square;
      clickSquare(cell.dataset.square);
    }
  });
  $("board").addEventListener("keydown", keyOnBoard);
  $("board").addEventListener("pointerdown", pointerDown);
  $("moves").addEventListener("click", (e) => {
    const ply = e.target.dataset && e.target.dataset.ply;
    if (ply) showPly(Number(ply));
  });
  $("live").addEventListener("click", () => showPly(null));
  document.addEventListener("keydown", keyOnPage);
  $("sound").checked = Sound.on;
  $("sound").addEventListener("change", () => {
    Sound.on = $("sound").checked;
    try {
      localStorage.setItem("corvid-sound", Sound.on ? "on" : "off");
    } catch {
      // Storage refused (a private window): the switch holds for this page only.
    }
    if (Sound.on) Sound.play("move");
  });
  $("move-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("move-input");
    if (!humanMayMove()) return say(game.over ? "The game is over." : "It is Corvid's move.");
    const move = typedMove(input.value);
    if (!move) return say(`${input.value || "That"} is not a legal move here.`);
    input.value = "";
    play(move);
  });
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("resign").addEventListener("click", resign);
  $("flip").addEventListener("click", () => {
    game.flipped = !game.flipped;
    render();
  });
  $("level").addEventListener("change", () => {
    game.level = $("level").value;
    render();
  });
  $("analyse").addEventListener("change", () => {
    Engine.stop();
    game.analysing = $("analyse").checked;
    analysis.running = game.analysing;
    if (game.analysing) {
      stopClock();
      say("Analysis: move for both sides.");
    } else {
      // Back to the game: the person plays the side to move, on the clocks as they were.
      game.human = game.state.turn;
      game.flipped = game.human === "black";
      say(game.state.check ? "Check! Your move." : "Your move.");
    }
    render();
    next();
  });
  $("multipv").addEventListener("change", () => {
    if (game.analysing && analysis.running) analyse();
  });
  $("analysis-toggle").addEventListener("click", () => {
    analysis.running = !analysis.running;
    if (analysis.running) analyse();
    else {
      Engine.stop();
      renderAnalysis();
    }
  });
  $("copy-pgn").addEventListener("click", () => copy(pgnText(), "PGN"));
  $("copy-fen").addEventListener("click", () => copy(game.state.fen, "FEN"));
  $("download-pgn").addEventListener("click", () => {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([pgnText()], { type: "application/x-chess-pgn" }));
    link.download = `corvid-${today().replace(/\./g, "-")}.pgn`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  });
  $("import").addEventListener("click", () => {
    const found = Rules.import($("import-text").value);
    if (found.error) return say(`Not loaded: ${found.error}`);
    Engine.stop();
    game.id++;
    game.start = found.start;
    game.moves = found.moves;
    game.over = null;
    game.clock = null;
    selected = null;
    refresh();
    if (!game.analysing) {
      game.human = game.state.turn;
      game.flipped = game.human === "black";
    }
    const check = game.state.check ? "Check! " : "";
    say(`Loaded: ${game.moves.length} moves. ${check}${game.analysing ? "" : "Your move."}`.trim());
    render();
    next();
  });
}

function copy(text, what) {
  if (navigator.clipboard) {
    navigator.clipboard.writeText(text).then(
      () => say(`${what} copied.`),
      () => say(`${what} could not be copied.`)
    );
  }
}

async function main() {
  wire();
  try {
    await Rules.load();
  } catch (e) {
    say(`Corvid could not load: ${e.message}`);
    return;
  }
  game.level = $("level").value;
  refresh();
  Engine.start();
  newGame();
  setInterval(tick, 100);
  keepForOffline();
}

// The service worker (sw.js) keeps this build's files, so the page opens without a network and
// can be installed; where it cannot run (a file: page, a browser without it) the page works as
// before, online. `Offline.ready` resolves once every file is kept.
const Offline = { ready: null };

function keepForOffline() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) {
    Offline.ready = Promise.resolve(false);
    return;
  }
  Offline.ready = navigator.serviceWorker
    .register("sw.js")
    .then(() => navigator.serviceWorker.ready)
    .then(() => true)
    .catch((e) => {
      console.warn(`Corvid works online only here: ${e.message}`);
      return false;
    });
}

main();
