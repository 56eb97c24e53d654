//! The UCI front: reads commands, keeps the game, runs searches on a thread of their own, and
//! writes every line of protocol text. Files: this loop, `command` (the typed parser),
//! `options` (the option table), `job` (the running search, `go perft`, `bench`) and `report`
//! (`info` lines and the WDL model).
//!
//! The loop never blocks on a search: input is read on a thread of its own, `isready` is
//! answered at once while a search or a perft runs on its own limits, `stop`, `ponderhit` and
//! `quit` reach the search through atomics. The search runs on the searcher's persistent
//! threads; `go perft` and `bench` run on a thread of their own that `stop` and `quit` end.
//! Commands run as if each ran in the order sent, only faster. Commands that change what a
//! search reads (`position`, `setoption`, `ucinewgame`, a new `go`) first stop a running search,
//! or wait for a perft or bench while the loop reads on: lines behind them are held in order,
//! except `quit`, which ends everything, and `stop`, which ends every job sent before it (the
//! perft running and any job held behind it, which then starts and answers at once). `readyok`
//! comes once everything sent before its `isready` is done, a stopped job's last word included,
//! and exactly one `bestmove` is written per `go`. Commands given as arguments are a script:
//! each runs to its end before the next (a search waiting for `stop` aside).

pub mod command;
mod inline;
mod job;
pub mod options;
mod report;

use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use crate::nnue::Network;
use crate::perft;
use crate::position::Position;
use crate::search::Searcher;
use crate::tt::TranspositionTable;
use crate::types::Color;
use command::{Command, Start};
pub use inline::InlineEngine;
use options::{Change, Options};
use report::say;

/// The UCI part of the help (`help` in the loop; `corvid help` adds the command line): the
/// commands, then the options from their table.
pub fn help() -> String {
    format!("{COMMANDS}{}", options::help())
}

/// The commands of the help text.
const COMMANDS: &str = "\
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
";

/// Engine name and version.
pub const NAME: &str = concat!("Corvid ", env!("CARGO_PKG_VERSION"));

/// The name with the commit it was built from, for `id name` (match records tell builds apart).
pub fn id_name() -> String {
    format!("{NAME} ({})", crate::nnue::BUILD_COMMIT)
}

/// What `corvid --version` says: the version, the commit, how this binary was built (the level
/// of instruction sets, the slider lookup, the network's kernel), and which release artefact
/// this processor should run.
pub fn version() -> String {
    format!(
        "{NAME}\ncommit {}\n{}\n{} sliders, {} network kernel, {} profile",
        crate::nnue::BUILD_COMMIT,
        crate::cpu::describe(),
        crate::tables::SLIDER_LOOKUP,
        crate::nnue::kernel(),
        if cfg!(debug_assertions) { "debug" } else { "release" }
    )
}

/// The engine as the protocol sees it.
pub struct Engine {
    position: Position,
    /// Keys of the game's positions before `position`, oldest first (for repetitions).
    history: Vec<u64>,
    options: Options,
    /// The search threads and the table.
    searcher: Searcher,
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
    /// A running `go perft` or `bench`.
    task: Option<job::Task>,
    /// Whether the running search answers only after `stop` or `ponderhit`.
    search_waits_for_stop: bool,
    /// The last `position` was refused: nothing is searched until a good one comes (a move of
    /// the position before would be illegal in the GUI's, or an analysis of the wrong board).
    no_position: bool,
    /// A `go infinite` or `go ponder` without a position, whose `bestmove 0000` waits for the
    /// `stop` or `ponderhit` (or whatever else ends a search) as a search's would.
    null_answer_waits: bool,
    /// Lines read while waiting for a task, handled after it in their order, each with whether
    /// a `stop` sent after it has ended it before it began.
    deferred: VecDeque<(String, bool)>,
    /// `quit` (or the end of input) was read while waiting for a task.
    quit_requested: bool,
    /// The input is a script (commands given as arguments): each command runs to its end.
    script: bool,
    debug: bool,
}

/// Lines of input, read on a thread of their own so that the loop can wait for work and still
/// hear `stop`, `isready` and `quit`.
pub struct Input {
    lines: Receiver<String>,
}

impl Input {
    /// Reads `reader` line by line on its own thread. Lines are read as bytes: one that is not
    /// UTF-8 (a Latin-1 path, say) is decoded with replacement characters and handled like any
    /// other bad input, not taken as the end.
    pub fn from_reader(reader: impl BufRead + Send + 'static) -> Input {
        let (tx, lines) = mpsc::channel();
        let spawned = std::thread::Builder::new().name("input".into()).spawn(move || {
            for line in reader.split(b'\n') {
                let Ok(line) = line else { break };
                let text = String::from_utf8_lossy(&line).trim_end_matches('\r').to_string();
                if tx.send(text).is_err() {
                    break;
                }
            }
        });
        if let Err(e) = spawned {
            eprintln!("error: cannot start the input thread: {e}");
        }
        Input { lines }
    }

    /// The given lines, then the end.
    pub fn from_lines(lines: &[String]) -> Input {
        let (tx, rx) = mpsc::channel();
        for line in lines {
            let _ = tx.send(line.clone());
        }
        Input { lines: rx }
    }

    /// The next line; `None` at the end of input.
    fn next(&mut self) -> Option<String> {
        self.lines.recv().ok()
    }

    /// The next line if one comes within `wait`: `None` if none came, `Some(None)` at the end.
    fn next_within(&mut self, wait: Duration) -> Option<Option<String>> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(Some(line)),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(None),
        }
    }
}

impl Default for Engine {
    fn default() -> Engine {
        let options = Options::default();
        let searcher = Searcher::new(options.threads, TranspositionTable::new(options.hash_mb))
            .expect("the process can start one search thread");
        Engine::with_searcher(options, searcher)
    }
}

impl Engine {
    /// An engine that searches on the thread that hands it its lines ([`Searcher::inline`]),
    /// starting no thread at all: [`InlineEngine`] drives it.
    fn single_threaded() -> Engine {
        let options = Options::default();
        let searcher = Searcher::inline(TranspositionTable::new(options.hash_mb));
        Engine::with_searcher(options, searcher)
    }

    fn with_searcher(options: Options, searcher: Searcher) -> Engine {
        Engine {
            position: Position::startpos(),
            history: Vec::new(),
            searcher,
            network: Arc::clone(crate::nnue::embedded()),
            book: None,
            book_rng: crate::rng::Rng::new(clock_seed()),
            noise_seed: clock_seed(),
            tablebases: None,
            options,
            task: None,
            search_waits_for_stop: false,
            no_position: false,
            null_answer_waits: false,
            deferred: VecDeque::new(),
            quit_requested: false,
            script: false,
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

    /// Runs the loop until `quit` or the end of input (which counts as `quit`: running work is
    /// stopped, nobody waits for it).
    pub fn run(&mut self, mut input: Input) {
        loop {
            let (line, stopped) = match self.deferred.pop_front() {
                Some(held) => held,
                None if self.quit_requested => break,
                None => match input.next() {
                    Some(line) => (line, false),
                    None => break,
                },
            };
            if self.handle(&line, &mut input, stopped) == Flow::Quit {
                return;
            }
        }
        if self.script {
            self.settle(&mut input);
        }
        self.stop_all();
    }

    /// Handles one line, read by the caller (an engine searching on its thread: nothing more is
    /// read here).
    fn handle_line(&mut self, line: &str) -> Flow {
        self.handle(line, &mut Input::from_lines(&[]), false)
    }

    /// Runs `lines` as a script: each command to its end before the next (a search that waits
    /// for `stop` aside), then `quit`.
    pub fn run_script(&mut self, lines: &[String]) {
        self.script = true;
        self.run(Input::from_lines(lines));
    }

    /// Handles one line of input; `input` is read on while a perft or bench must be waited for.
    /// `stopped`: a `stop` sent after this line came before it could run, so a job it starts
    /// ends at once (a search with its `bestmove`, a perft or bench with its "stopped" line).
    fn handle(&mut self, line: &str, input: &mut Input, stopped: bool) -> Flow {
        match command::parse(line) {
            Command::Uci => {
                say(&format!("id name {}", id_name()));
                say("id author the Corvid developers");
                for option in self.options.declarations() {
                    // An engine that searches on its caller's thread offers the threads it can
                    // start besides (none, or the page's cores).
                    if self.searcher.is_inline() && option.starts_with("option name Threads ") {
                        let max = self.searcher.max_threads();
                        say(&format!("option name Threads type spin default 1 min 1 max {max}"));
                        continue;
                    }
                    say(&option);
                }
                say("uciok");
            }
            Command::Debug(on) => self.debug = on,
            // During a search: at once. Else once new search threads have their workers, so a
            // GUI that waits for `readyok` after `Threads` starts its clock on a ready engine.
            Command::IsReady => {
                if !self.searcher.is_searching() {
                    self.searcher.wait_ready();
                }
                say("readyok")
            }
            Command::Register => {}
            Command::SetOption { name, value } => {
                self.settle(input);
                self.set_option(&name, value.as_deref());
            }
            Command::UciNewGame => {
                self.settle(input);
                self.searcher.clear();
                self.noise_seed = self.book_rng.next_u64();
                self.position = Position::startpos();
                self.position.set_chess960(self.options.chess960);
                self.history.clear();
                self.no_position = false;
            }
            Command::Position { start, moves } => {
                self.settle(input);
                self.set_position(start, &moves);
            }
            Command::Go(go) => {
                let stopped = self.settle(input) || stopped;
                if self.no_position {
                    say("info string error: no position (the last one was refused); send a good one");
                    if go.infinite || go.ponder {
                        self.null_answer_waits = true;
                    } else {
                        say("bestmove 0000");
                    }
                } else {
                    self.go(go);
                }
                if stopped {
                    self.stop_all();
                }
            }
            Command::GoPerft { depth } => {
                if self.settle(input) || stopped {
                    return say_stopped("perft");
                }
                if self.no_position {
                    say("info string error: perft: no position (the last one was refused)");
                    return Flow::Continue;
                }
                let pos = self.position;
                self.spawn_task("perft", move |stop| {
                    // Written whole at the end: standard output stays free for `readyok`.
                    let mut out = Vec::new();
                    let _ = perft::print_divide(&pos, depth, 1, None, stop, &mut out);
                    say(String::from_utf8_lossy(&out).trim_end());
                });
            }
            Command::Stop => self.stop_all(),
            Command::PonderHit => self.ponderhit(),
            Command::Quit => {
                // A script's work runs to its end first.
                if self.script {
                    self.settle(input);
                }
                self.stop_all();
                return Flow::Quit;
            }
            Command::Display | Command::Eval if self.no_position => {
                say("info string error: no position (the last one was refused)");
            }
            Command::Display => {
                say(&self.position.to_string());
                say(&lookup_line());
            }
            Command::Eval if crate::eval::beyond_game(&self.position) => {
                let sign = if self.position.side_to_move() == Color::White { 1 } else { -1 };
                say(&format!(
                    "more material than a game can reach: material and piece-square values only, {} cp \
                     (White's view; the search's evaluation)",
                    crate::eval::beyond_game_eval(&self.position) * sign
                ));
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
                if let Some(won) = crate::eval::bare_king(&self.position) {
                    say(&format!(
                        "bare king against mating material: the search evaluates {} cp (White's view)",
                        won * sign
                    ));
                }
            }
            Command::Bench { depth } => {
                if self.settle(input) || stopped {
                    return say_stopped("bench");
                }
                let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
                // One thread and a fresh 16 MB table, as `corvid bench`, evaluating as the
                // searches do: with `EvalFile`'s network, or without one where `UseNNUE` is off.
                let (nnue, network) = (self.options.use_nnue, Arc::clone(&self.network));
                self.spawn_task("bench", move |stop| {
                    let (threads, hash) = (1, 16);
                    let mut out = Vec::new();
                    match crate::bench::run_with(depth, threads, hash, nnue, &network, stop, &mut out) {
                        Ok(()) => say(String::from_utf8_lossy(&out).trim_end()),
                        Err(why) => say(&format!("info string error: {why}")),
                    }
                });
            }
            Command::Genfens { count, seed, book } => {
                // Run here, to its end: OpenBench sends `quit` right after it.
                self.settle(input);
                // A book that cannot be read gives no openings: openings from the standard
                // position instead would be a test's book other than the one asked for.
                let starts = match book.as_deref().map(crate::genfens::read_book) {
                    None => Vec::new(),
                    Some(Ok(starts)) => starts,
                    Some(Err(why)) => {
                        say(&format!("info string error: genfens: {why}; no openings"));
                        return Flow::Continue;
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
            Command::Help => say(help().trim_end()),
            // A `position` that cannot be read is refused as a bad FEN is.
            Command::BadPosition(why) => {
                self.no_position = true;
                say(&format!("info string error: {why}; no position until a good one"));
            }
            Command::Invalid(why) => say(&format!("info string error: {why}")),
            Command::Unknown(text) => report::complain(&format!("unknown command: {text}")),
            Command::Empty => {}
        }
        Flow::Continue
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match self.options.set(name, value) {
            Ok(Change::Stored) => {
                let n = self.options.threads;
                if self.searcher.threads() != n {
                    let set = self.searcher.set_threads(n);
                    let had = self.searcher.threads();
                    match set {
                        Err(why) => say(&format!("info string error: Threads: {why}")),
                        Ok(()) if had < n => say(&format!(
                            "info string Threads {n}: searching with {had}, the most for this machine's cores"
                        )),
                        Ok(()) => {}
                    }
                    self.options.threads = had;
                }
                self.position.set_chess960(self.options.chess960 || self.position.is_chess960());
            }
            Ok(Change::Resize(mb)) => match TranspositionTable::try_new(mb) {
                Some(tt) => {
                    self.searcher.set_table(tt);
                    self.options.hash_mb = mb;
                }
                None => say(&format!("info string error: cannot allocate {mb} MB of hash; table kept")),
            },
            // The table's evaluations were made at the old strength.
            Ok(Change::ClearHash | Change::Strength) => self.searcher.clear_table(),
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

    /// What `UCI_LimitStrength` and `UCI_Elo`, or else `Skill Level`, take away from the next
    /// search (nothing in analysis, `UCI_AnalyseMode`). As in Stockfish, `UCI_LimitStrength`
    /// decides which of the two applies.
    pub(crate) fn weakness(&self) -> crate::search::Weakness {
        let elo = if self.options.analyse_mode {
            None
        } else if self.options.limit_strength {
            Some(self.options.elo)
        } else {
            options::skill_elo(self.options.skill_level)
        };
        elo.map_or_else(crate::search::Weakness::default, |elo| crate::search::Weakness::at(elo, self.noise_seed))
    }

    /// `position`: after a bad FEN there is no position, and every `go` answers `bestmove 0000`
    /// until a good one comes; an illegal move stops the move list at the last legal move (as
    /// Stockfish does). Both are reported.
    fn set_position(&mut self, start: Start, moves: &[String]) {
        let mut pos = match start {
            Start::StartPos => Position::startpos(),
            Start::Fen(fen) => match Position::from_fen(&fen) {
                Ok(pos) => pos,
                Err(e) => {
                    self.no_position = true;
                    return say(&format!("info string error: bad FEN '{fen}': {e}; no position until a good one"));
                }
            },
        };
        self.no_position = false;
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

/// The last word of a `go perft` or `bench` that a `stop` ended before it began.
fn say_stopped(job: &str) -> Flow {
    say(&format!("info string {job} stopped"));
    Flow::Continue
}

/// How many `info string error` lines this process has written.
pub fn errors_reported() -> usize {
    report::ERRORS.load(std::sync::atomic::Ordering::Relaxed)
}

/// A seed from the clock, for what should differ from one run to the next.
#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64) | 1
}

/// A bare WebAssembly build has no time of day (`SystemTime::now` panics there): the seed comes
/// from the front's clock (a browser's `performance.now()`, microseconds since the page opened)
/// and the address of a fresh allocation.
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
fn clock_seed() -> u64 {
    let nanos = crate::clock::Moment::now().duration_since(crate::clock::Moment::default()).as_nanos() as u64;
    let place = Box::into_raw(Box::new(0u8)) as u64;
    // SAFETY: the pointer was just made by `Box::into_raw` and is given back once.
    drop(unsafe { Box::from_raw(place as *mut u8) });
    crate::rng::Rng::new(nanos ^ place.rotate_left(32)).next_u64() | 1
}
