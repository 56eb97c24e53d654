//! The UCI front: reads commands, keeps the game, runs searches on a thread of their own, and
//! writes every line of protocol text.
//!
//! The loop never blocks on a search: `isready` is answered at once, `stop`, `ponderhit` and
//! `quit` reach the search through atomics. `go perft` and `bench` run the same way, on a thread
//! of their own that `stop` and `quit` end. Commands that change what a search reads
//! (`position`, `setoption`, `ucinewgame`, a new `go`) first stop and join a running job, so its
//! state is never changed under it and exactly one `bestmove` is written per `go`.

pub mod command;
pub mod options;

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::perft;
use crate::position::Position;
use crate::search::{
    Clock, Iteration, Limits, NodeCounter, ReportedScore, Reporter, Request, ScoreBound, Shared, Worker,
};
use crate::tt::TranspositionTable;
use crate::types::{Color, Move};
use command::{Command, Go, Start};
use options::{Change, Options};

/// The UCI part of the help (`help` in the loop; `corvid help` adds the command line).
pub const HELP: &str = "\
UCI commands:
  uci, debug [on|off], isready, setoption name <name> [value <v>], register, ucinewgame,
  position startpos|fen <fen> [moves <m>...],
  go [searchmoves <m>...] [ponder] [wtime <ms>] [btime <ms>] [winc <ms>] [binc <ms>]
     [movestogo <n>] [depth <n>] [nodes <n>] [mate <n>] [movetime <ms>] [infinite],
  stop, ponderhit, quit
Extensions:
  go perft <depth>                        perft from the current position (stop ends it)
  d                                       show the board, FEN, key, checkers and slider lookup
  eval                                    the static evaluation: hand-crafted terms, network
  bench [depth]                           as 'corvid bench' (stop ends it)
  help                                    this text ('corvid help' lists the command line)
Options: Hash (MB, 1-33554432), Threads (1-1024), Clear Hash, Ponder, UCI_Chess960,
  Move Overhead (ms, 0-5000), MultiPV (1-256), UCI_ShowWDL, UseNNUE (default on; off: the
  hand-crafted evaluation alone).
";

/// Engine name and version for `id name` and the banner.
pub const NAME: &str = concat!("Corvid ", env!("CARGO_PKG_VERSION"));

/// Writes one line to standard output and flushes it (lines from the search thread and the loop
/// never interleave: `println!` holds the stdout lock for the whole line).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A job on its own thread: a search (which gives its workers back), `go perft` or `bench`.
struct Running {
    handle: JoinHandle<Option<Vec<Worker>>>,
    /// A search (which the next command stops) or a task with an end of its own, `go perft` or
    /// `bench` (which the next command waits for; only `stop` and `quit` end it early).
    search: bool,
    /// The GUI's `stop`: ends the job, and releases a search's answer after `go infinite`.
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
}

/// The engine as the protocol sees it.
pub struct Engine {
    position: Position,
    /// Keys of the game's positions before `position`, oldest first (for repetitions).
    history: Vec<u64>,
    options: Options,
    tt: Arc<TranspositionTable>,
    workers: Vec<Worker>,
    running: Option<Running>,
    debug: bool,
}

impl Default for Engine {
    fn default() -> Engine {
        let options = Options::default();
        Engine {
            position: Position::startpos(),
            history: Vec::new(),
            tt: Arc::new(TranspositionTable::new(options.hash_mb)),
            workers: vec![Worker::new(0)],
            options,
            running: None,
            debug: false,
        }
    }
}

/// Whether the loop should go on after a command.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    Continue,
    Quit,
}

impl Engine {
    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Runs the loop until `quit` or the end of input (which counts as `quit`).
    pub fn run(&mut self, input: impl BufRead) {
        // Lines are read as bytes: one that is not UTF-8 (a Latin-1 path, say) is decoded with
        // replacement characters and handled like any other bad input, not taken as the end.
        for line in input.split(b'\n') {
            let Ok(line) = line else { break };
            let line = String::from_utf8_lossy(&line);
            if self.handle(line.trim_end_matches('\r')) == Flow::Quit {
                return;
            }
        }
        self.settle();
    }

    /// Handles one line of input.
    pub fn handle(&mut self, line: &str) -> Flow {
        match command::parse(line) {
            Command::Uci => {
                say(&format!("id name {NAME}"));
                say("id author the Corvid developers");
                for option in self.options.declarations() {
                    say(&option);
                }
                say("uciok");
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => say("readyok"),
            Command::Register => {}
            Command::SetOption { name, value } => {
                self.settle();
                self.set_option(&name, value.as_deref());
            }
            Command::UciNewGame => {
                self.settle();
                if let Some(tt) = Arc::get_mut(&mut self.tt) {
                    tt.clear();
                }
                self.workers.iter_mut().for_each(Worker::clear);
                self.position = Position::startpos();
                self.position.set_chess960(self.options.chess960);
                self.history.clear();
            }
            Command::Position { start, moves } => {
                self.settle();
                self.set_position(start, &moves);
            }
            Command::Go(go) => {
                self.settle();
                self.go(go);
            }
            Command::GoPerft { depth } => {
                self.settle();
                let pos = self.position;
                self.spawn_job("perft", move |stop| {
                    // Written whole at the end: standard output stays free for `readyok`.
                    let mut out = Vec::new();
                    let _ = perft::print_divide(&pos, depth, 1, None, stop, &mut out);
                    say(String::from_utf8_lossy(&out).trim_end());
                });
            }
            Command::Stop => self.stop_job(),
            Command::PonderHit => {
                if let Some(running) = &self.running {
                    running.pondering.store(false, Ordering::Release);
                }
            }
            Command::Quit => {
                self.stop_job();
                return Flow::Quit;
            }
            Command::Display => {
                say(&self.position.to_string());
                say(&lookup_line());
            }
            Command::Eval => {
                say(&crate::eval::describe(&self.position));
                let sign = if self.position.side_to_move() == Color::White { 1 } else { -1 };
                let (raw, full) = (crate::nnue::evaluate(&self.position), crate::nnue::evaluate_full(&self.position));
                if crate::nnue::network().base != crate::nnue::Base::None {
                    say(&format!("network correction {} cp (White's view)", raw * sign));
                }
                say(&format!("network evaluation {} cp (White's view; the search's with UseNNUE on)", full * sign));
            }
            Command::Bench { depth } => {
                self.settle();
                let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
                self.spawn_job("bench", move |stop| {
                    let (threads, hash, nnue) = (1, 16, crate::nnue::ON_BY_DEFAULT);
                    let mut out = Vec::new();
                    match crate::bench::run_with(depth, threads, hash, nnue, stop, &mut out) {
                        Ok(()) => say(String::from_utf8_lossy(&out).trim_end()),
                        Err(why) => say(&format!("info string error: {why}")),
                    }
                });
            }
            Command::Help => say(HELP.trim_end()),
            Command::Invalid(why) => say(&format!("info string error: {why}")),
            Command::Unknown(text) => eprintln!("unknown command: {text}"),
            Command::Empty => {}
        }
        Flow::Continue
    }

    /// Runs `job` (`go perft`, `bench`) on a thread of its own, which `stop` and `quit` end
    /// through the flag it is given.
    fn spawn_job(&mut self, name: &str, job: impl FnOnce(&AtomicBool) + Send + 'static) {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let spawned = std::thread::Builder::new().name(name.into()).stack_size(16 << 20).spawn(move || {
            job(&flag);
            None
        });
        match spawned {
            Ok(handle) => {
                self.running =
                    Some(Running { handle, search: false, stop, pondering: Arc::new(AtomicBool::new(false)) })
            }
            Err(e) => say(&format!("info string error: cannot start {name}: {e}")),
        }
    }

    /// Before a command that reads or changes the engine's state (and at the end of input): a
    /// running search is stopped, a running `go perft` or `bench` finished, as a script that
    /// pipes `go perft 6` expects.
    fn settle(&mut self) {
        if self.running.as_ref().is_some_and(|r| r.search) {
            self.stop_job();
        } else {
            self.join_job();
        }
    }

    /// `stop` and `quit`: ends a running job of any kind at once.
    fn stop_job(&mut self) {
        if let Some(running) = &self.running {
            running.pondering.store(false, Ordering::Release);
            running.stop.store(true, Ordering::Release);
        }
        self.join_job();
    }

    /// Waits for a running job to end (a search writes its `bestmove`) and takes a search's
    /// workers back.
    fn join_job(&mut self) {
        if let Some(running) = self.running.take() {
            match running.handle.join() {
                Ok(Some(workers)) => self.workers = workers,
                Ok(None) => {}
                Err(_) => {
                    // A search thread cannot panic in a correct build; if it did, start afresh.
                    say("info string error: search thread failed; state reset");
                    self.workers = (0..self.options.threads).map(Worker::new).collect();
                }
            }
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match self.options.set(name, value) {
            Ok(Change::Stored) => {
                let n = self.options.threads;
                if self.workers.len() != n {
                    self.workers.truncate(n);
                    while self.workers.len() < n {
                        self.workers.push(Worker::new(self.workers.len()));
                    }
                }
                self.position.set_chess960(self.options.chess960 || self.position.is_chess960());
            }
            Ok(Change::Resize(mb)) => match TranspositionTable::try_new(mb) {
                Some(tt) => {
                    self.tt = Arc::new(tt);
                    self.options.hash_mb = mb;
                }
                None => say(&format!("info string error: cannot allocate {mb} MB of hash; table kept")),
            },
            Ok(Change::ClearHash) => {
                if let Some(tt) = Arc::get_mut(&mut self.tt) {
                    tt.clear();
                }
            }
            Err(why) => say(&format!("info string error: {why}")),
        }
    }

    /// `position`: a bad FEN keeps the previous position; an illegal move stops the move list at
    /// the last legal move. Both are reported.
    fn set_position(&mut self, start: Start, moves: &[String]) {
        let mut pos = match start {
            Start::StartPos => Position::startpos(),
            Start::Fen(fen) => match Position::from_fen(&fen) {
                Ok(pos) => pos,
                Err(e) => return say(&format!("info string error: bad FEN '{fen}': {e}; position unchanged")),
            },
        };
        pos.set_chess960(self.options.chess960 || pos.is_chess960());
        let mut history = Vec::with_capacity(moves.len());
        for text in moves {
            match pos.parse_uci_move(text) {
                Ok(m) => {
                    history.push(pos.key());
                    pos = pos.make_move(m);
                }
                Err(e) => {
                    say(&format!("info string error: {e}; position kept after the last legal move"));
                    break;
                }
            }
        }
        self.position = pos;
        self.history = history;
    }

    fn go(&mut self, go: Go) {
        let pos = self.position;
        let mut searchmoves = Vec::new();
        for text in &go.searchmoves {
            match pos.parse_uci_move(text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => say(&format!("info string error: searchmoves: {e}; ignored")),
            }
        }
        let ms = Duration::from_millis;
        let (mine, theirs) = match pos.side_to_move() {
            Color::White => ((go.wtime, go.winc), (go.btime, go.binc)),
            Color::Black => ((go.btime, go.binc), (go.wtime, go.winc)),
        };
        // Only the other side's clock given: assume ours is the same.
        let (time, inc) = if mine.0.is_some() { mine } else { theirs };
        let clock = time.map(|t| Clock {
            time: ms(t.min(u32::MAX as u64)),
            increment: ms(inc.unwrap_or(0).min(u32::MAX as u64)),
            moves_to_go: go.movestogo.filter(|&m| m > 0),
        });
        let unlimited = clock.is_none() && go.depth.is_none() && go.nodes.is_none() && go.movetime.is_none();
        let limits = Limits {
            depth: go.depth.map(|d| d.clamp(1, 127) as i32),
            nodes: go.nodes,
            movetime: go.movetime.map(|t| ms(t.min(u32::MAX as u64))),
            mate: go.mate.filter(|&m| m > 0),
            clock,
            infinite: go.infinite || (unlimited && go.mate.is_none()),
            multipv: self.options.multipv,
        };
        let infinite = go.infinite;
        let stop = Arc::new(AtomicBool::new(false));
        let pondering = Arc::new(AtomicBool::new(go.ponder));
        let tt = Arc::clone(&self.tt);
        let history = self.history.clone();
        let overhead = ms(self.options.move_overhead_ms);
        let mut workers = std::mem::take(&mut self.workers);
        workers.iter_mut().for_each(|w| w.use_nnue = self.options.use_nnue);
        let chess960 = pos.is_chess960();
        let show_wdl = self.options.show_wdl;
        let (thread_stop, thread_pondering) = (Arc::clone(&stop), Arc::clone(&pondering));
        tt.new_search();

        let handle = std::thread::Builder::new().name("search".into()).stack_size(16 << 20).spawn(move || {
            let started = Instant::now();
            let counters: Vec<NodeCounter> = workers.iter().map(|_| NodeCounter::default()).collect();
            // The search's own stop (a limit reached) is not the GUI's `stop`, which only
            // `thread_stop` carries.
            let search_stop = AtomicBool::new(false);
            let shared = Shared::new(&tt, &search_stop, &thread_pondering, &counters).with_abort(&thread_stop);
            let mut printer = InfoPrinter { chess960, show_wdl };
            let wait = || {
                // After `go infinite` the answer waits for `stop`, after `go ponder` for
                // `ponderhit` or `stop`, even when the search reached a depth, node or mate limit
                // of its own.
                while !thread_stop.load(Ordering::Acquire) && (infinite || thread_pondering.load(Ordering::Acquire)) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            };
            let request =
                Request { root: &pos, history: &history, limits: &limits, overhead, searchmoves: &searchmoves };
            let results = crate::search::run_threads(&mut workers, &request, &shared, &mut printer, wait);
            // With several threads the move comes from a vote; show the line it was chosen from.
            let chosen = crate::search::vote(&results);
            let result = &results[chosen];
            if chosen != 0 && limits.multipv <= 1 {
                printer.iteration(&Iteration {
                    depth: result.depth,
                    seldepth: result.depth as usize,
                    score: ReportedScore::from_internal(result.score),
                    bound: ScoreBound::Exact,
                    nodes: shared.total_nodes(),
                    time: started.elapsed(),
                    hashfull: tt.hashfull(),
                    pv: result.pv.clone(),
                    multipv: 1,
                });
            }
            // The search's totals, all threads counted, as its last word before the move.
            let (nodes, time) = (shared.total_nodes(), started.elapsed());
            say(&format!(
                "info nodes {nodes} nps {} hashfull {} time {}",
                nps(nodes, time),
                tt.hashfull(),
                time.as_millis()
            ));
            let text = match result.best {
                Some(best) => match result.ponder {
                    Some(p) => format!("bestmove {} ponder {}", best.to_uci(chess960), p.to_uci(chess960)),
                    None => format!("bestmove {}", best.to_uci(chess960)),
                },
                None => "bestmove 0000".to_string(),
            };
            say(&text);
            Some(workers)
        });
        match handle {
            Ok(handle) => self.running = Some(Running { handle, search: true, stop, pondering }),
            Err(e) => {
                say(&format!("info string error: cannot start the search thread: {e}"));
                self.workers = (0..self.options.threads).map(Worker::new).collect();
                let fallback = pos.legal_moves().first().map(|m| m.to_uci(chess960).to_string());
                say(&format!("bestmove {}", fallback.unwrap_or_else(|| "0000".into())));
            }
        }
    }
}

/// Which slider lookup this build runs and why (`d`, the banner, `bench`).
pub fn lookup_line() -> String {
    format!("Slider lookup: {} ({})", crate::tables::SLIDER_LOOKUP, crate::tables::LOOKUP_REASON)
}

/// Formats iterations as `info` lines.
struct InfoPrinter {
    chess960: bool,
    show_wdl: bool,
}

impl Reporter for InfoPrinter {
    fn iteration(&mut self, info: &Iteration) {
        say(&info_line(info, self.chess960, self.show_wdl));
    }
}

/// Win, draw and loss chances in permille from a score (`UCI_ShowWDL`). Each side's winning
/// chance is a logistic curve of the score: `1 / (1 + exp((A - cp) / B))` for the side to move,
/// the same with `-cp` for the other, the draw chance the rest. A and B were set so that the
/// expected score `W + D/2` has the slope around 0 that the Texel tuner fitted to game results
/// (K = 1.849) and a level position is about 70% drawn, as between strong engines.
pub fn wdl(score: ReportedScore) -> [u32; 3] {
    const A: f64 = 80.0;
    const B: f64 = 45.0;
    match score {
        ReportedScore::Mate(n) if n > 0 => [1000, 0, 0],
        ReportedScore::Mate(_) => [0, 0, 1000],
        ReportedScore::Centipawns(cp) => {
            let chance = |cp: f64| 1.0 / (1.0 + ((A - cp) / B).exp());
            let win = (chance(cp as f64) * 1000.0).round() as u32;
            let loss = ((chance(-cp as f64) * 1000.0).round() as u32).min(1000 - win);
            [win, 1000 - win - loss, loss]
        }
    }
}

/// Nodes per second of `nodes` searched in `time` (a time under 1 ms counts as 1 ms).
fn nps(nodes: u64, time: Duration) -> u128 {
    nodes as u128 * 1000 / time.as_millis().max(1)
}

/// The `info` line of one iteration.
pub fn info_line(info: &Iteration, chess960: bool, show_wdl: bool) -> String {
    let mut score = match info.score {
        ReportedScore::Centipawns(cp) => format!("cp {cp}"),
        ReportedScore::Mate(n) => format!("mate {n}"),
    };
    if show_wdl {
        let [w, d, l] = wdl(info.score);
        score = format!("{score} wdl {w} {d} {l}");
    }
    let bound = match info.bound {
        ScoreBound::Exact => "",
        ScoreBound::Lower => " lowerbound",
        ScoreBound::Upper => " upperbound",
    };
    let nps = nps(info.nodes, info.time);
    let pv: Vec<String> = info.pv.iter().map(|m: &Move| m.to_uci(chess960).to_string()).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {score}{bound} nodes {} nps {nps} hashfull {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.hashfull,
        info.time.as_millis(),
        pv.join(" ")
    )
}
