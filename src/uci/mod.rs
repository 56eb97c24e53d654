//! The UCI front: reads commands, keeps the game, runs searches on a thread of their own, and
//! writes every line of protocol text. Files: this loop, `command` (the typed parser),
//! `options` (the option table), `job` (the running search, `go perft`, `bench`) and `report`
//! (`info` lines and the WDL model).
//!
//! The loop never blocks on a search: `isready` is answered at once, `stop`, `ponderhit` and
//! `quit` reach the search through atomics. `go perft` and `bench` run the same way, on a thread
//! of their own that `stop` and `quit` end. Commands that change what a search reads
//! (`position`, `setoption`, `ucinewgame`, a new `go`) first stop and join a running job, so its
//! state is never changed under it and exactly one `bestmove` is written per `go`.

pub mod command;
mod job;
pub mod options;
mod report;

use std::io::BufRead;
use std::sync::Arc;

use crate::nnue::Network;
use crate::perft;
use crate::position::Position;
use crate::search::Worker;
use crate::tt::TranspositionTable;
use crate::types::Color;
use command::{Command, Start};
use options::{Change, Options};
use report::say;

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
  genfens <n> seed <s> book <None|file>   n openings for OpenBench, as 'info string genfens <fen>'
  help                                    this text ('corvid help' lists the command line)
Options: Hash (MB, 1-33554432), Threads (1-1024), Clear Hash, Ponder, UCI_Chess960,
  Move Overhead (ms, 0-5000), MultiPV (1-256), UCI_ShowWDL, UseNNUE (default on; off: the
  hand-crafted evaluation alone), EvalFile (a network file), OwnBook, BookFile (a Polyglot book),
  UCI_LimitStrength, UCI_Elo (1000-2600: play at that level instead of full strength),
  SyzygyPath (tables' directories, ':'-separated; ';' on Windows), SyzygyProbeDepth,
  SyzygyProbeLimit, Syzygy50MoveRule.
";

/// Engine name and version for `id name` and the banner.
pub const NAME: &str = concat!("Corvid ", env!("CARGO_PKG_VERSION"));

/// The engine as the protocol sees it.
pub struct Engine {
    position: Position,
    /// Keys of the game's positions before `position`, oldest first (for repetitions).
    history: Vec<u64>,
    options: Options,
    tt: Arc<TranspositionTable>,
    workers: Vec<Worker>,
    /// The network the searches evaluate with (`EvalFile`).
    network: Arc<Network>,
    /// The opening book (`BookFile`), played from when `OwnBook` is on.
    book: Option<Arc<crate::book::Book>>,
    /// Draws book moves among their weights.
    book_rng: crate::rng::Rng,
    /// Chooses a limited strength's evaluation errors; drawn anew for each game.
    noise_seed: u64,
    /// The Syzygy tables found on `SyzygyPath`.
    tablebases: Option<Arc<crate::syzygy::Tablebases>>,
    running: Option<job::Running>,
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
            network: Arc::clone(crate::nnue::embedded()),
            book: None,
            book_rng: crate::rng::Rng::new(clock_seed()),
            noise_seed: clock_seed(),
            tablebases: None,
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
                self.noise_seed = self.book_rng.next_u64();
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
            Command::PonderHit => self.ponderhit(),
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
                let (raw, full) =
                    (self.network.evaluate_position(&self.position), self.network.evaluate_full(&self.position));
                if self.network.base != crate::nnue::Base::None {
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
            Command::Genfens { count, seed, book } => {
                // Run here, to its end: OpenBench sends `quit` right after it.
                self.settle();
                let starts = match book.as_deref().map(crate::genfens::read_book) {
                    None => Vec::new(),
                    Some(Ok(starts)) => starts,
                    Some(Err(why)) => {
                        say(&format!("info string error: genfens: {why}; starting from the standard position"));
                        Vec::new()
                    }
                };
                let (found, short) = crate::genfens::generate_all(count, seed, &starts);
                for fen in found {
                    say(&format!("info string genfens {fen}"));
                }
                if let Some(why) = short {
                    say(&format!("info string error: {why}"));
                }
            }
            Command::Help => say(HELP.trim_end()),
            Command::Invalid(why) => say(&format!("info string error: {why}")),
            Command::Unknown(text) => eprintln!("unknown command: {text}"),
            Command::Empty => {}
        }
        Flow::Continue
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
            // The table's evaluations were made at the old strength.
            Ok(Change::ClearHash | Change::Strength) => {
                if let Some(tt) = Arc::get_mut(&mut self.tt) {
                    tt.clear();
                }
            }
            Ok(Change::LoadBook(None)) => {
                self.book = None;
                self.options.book_file = options::NO_BOOK.to_string();
            }
            Ok(Change::LoadBook(Some(path))) => match crate::book::Book::load(&path) {
                Ok(book) => {
                    say(&format!("info string BookFile: {path}, {} entries", book.len()));
                    self.book = Some(Arc::new(book));
                    self.options.book_file = path;
                }
                Err(why) => {
                    say(&format!("info string error: BookFile: {why}; no book"));
                    self.book = None;
                    self.options.book_file = options::NO_BOOK.to_string();
                }
            },
            Ok(Change::LoadSyzygy(None)) => {
                self.tablebases = None;
                self.options.syzygy_path = options::NO_TABLES.to_string();
            }
            Ok(Change::LoadSyzygy(Some(paths))) => {
                let (tables, problems) = crate::syzygy::Tablebases::open(&paths);
                for problem in problems {
                    say(&format!("info string error: SyzygyPath: {problem}"));
                }
                let (wdl, dtz) = tables.counts();
                say(&format!(
                    "info string SyzygyPath: {wdl} WDL and {dtz} DTZ tables, up to {} pieces",
                    tables.max_pieces
                ));
                self.tablebases = (!tables.is_empty()).then(|| Arc::new(tables));
                self.options.syzygy_path = paths;
            }
            Ok(Change::LoadNetwork(None)) => {
                self.network = Arc::clone(crate::nnue::embedded());
                self.options.eval_file = options::EMBEDDED.to_string();
                say("info string EvalFile: the embedded network");
            }
            Ok(Change::LoadNetwork(Some(path))) => match Network::load(&path) {
                Ok(net) => {
                    say(&format!("info string EvalFile: loaded {path} ({:?} base)", net.base));
                    self.network = Arc::new(net);
                    self.options.eval_file = path;
                }
                Err(why) => say(&format!("info string error: EvalFile: {why}; still using {}", self.options.eval_file)),
            },
            Err(why) => say(&format!("info string error: {why}")),
        }
    }

    /// What `UCI_LimitStrength` and `UCI_Elo` take away from the next search.
    pub(crate) fn weakness(&self) -> crate::search::Weakness {
        if self.options.limit_strength {
            crate::search::Weakness::at(self.options.elo, self.noise_seed)
        } else {
            crate::search::Weakness::default()
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
}

pub use report::{info_line, lookup_line, wdl};

/// How many `info string error` lines this process has written.
pub fn errors_reported() -> usize {
    report::ERRORS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A seed from the clock, for what should differ from one run to the next.
fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) | 1
}
