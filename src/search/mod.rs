//! The search: iterative deepening with aspiration windows over a principal-variation negamax,
//! quiescence with static exchange evaluation, and the usual selectivity.
//!
//! Files: `worker` (one thread's worker and its data by lifetime), `iterative` (depths,
//! aspiration, MultiPV, the stop and time checks), `alphabeta` (negamax and quiescence),
//! `tablebase` (Syzygy at the root and in the tree), `pool` (the persistent threads), `threads`
//! (lazy SMP: staggered depths, the vote), `picker` (staged move ordering), `history` (killers,
//! histories, correction), `time` (limits, the clock and the time budget), `strength` (levels),
//! `params` (every tuning constant).
//!
//! One search is a [`Job`] (the root, the game before it, the limits) and a [`Shared`] state:
//! the transposition table, the stop flags and per-thread node counters. Each thread's
//! [`Worker`] owns the search it runs: what it keeps for the game (killers, the quiet,
//! continuation, capture and correction histories, the pawn hash table, the accumulators; until
//! `ucinewgame`), the state each search makes anew (key stack, per-ply stack, principal
//! variations, the root moves), and on the main thread the time manager. Only the main thread
//! reads the clock and reports; it reports through the [`Reporter`] trait, so protocol text
//! stays in `uci`. [`Searcher`] is the one face over both ways to run it: the pool's
//! persistent threads, or the caller's own thread ([`Searcher::inline`]: a browser, and callers
//! that already run one search a thread, such as self-play).
//!
//! With one thread and a depth or node limit, the search is deterministic.

mod alphabeta;
pub mod history;
mod iterative;
pub mod params;
pub mod picker;
mod pool;
mod spawn;
pub use spawn::{set_thread_starter, ThreadStarter};
pub mod strength;
mod tablebase;
mod threads;
pub mod time;
mod worker;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::position::Position;
use crate::tt::{TranspositionTable, MATE, MATE_BOUND, TB_BOUND, TB_WIN};
use crate::types::Move;
pub use pool::{Outcome, Searcher};
pub use strength::Weakness;
pub use threads::vote;
pub use time::{set_clock_source, Clock, Limits, Moment, TimeBudget};
pub use worker::Worker;

/// What a tablebase win is reported as (centipawns, less a point a ply to the win), as other
/// engines do: far above any evaluation, below every mate.
pub const TB_WIN_CP: i32 = 20_000;

/// A score as reported, from the side to move's point of view: centipawns or a mate distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportedScore {
    Centipawns(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl ReportedScore {
    /// The report of an internal score (mate scores count plies from the root).
    pub fn from_internal(score: i32) -> ReportedScore {
        if score >= MATE_BOUND {
            ReportedScore::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            ReportedScore::Mate(-(MATE + score) / 2)
        } else if score >= TB_BOUND {
            ReportedScore::Centipawns(TB_WIN_CP - (TB_WIN - score))
        } else if score <= -TB_BOUND {
            ReportedScore::Centipawns(-TB_WIN_CP + (TB_WIN + score))
        } else {
            ReportedScore::Centipawns(score)
        }
    }
}

/// What one search is asked, owned so that persistent threads can take it: the position, the
/// game before it, the limits, and how the answer is given.
#[derive(Clone)]
pub struct Job {
    /// The position searched.
    pub root: Position,
    /// Keys of the game's positions before `root`, oldest first (for repetitions).
    pub history: Vec<u64>,
    /// When the search stops.
    pub limits: Limits,
    /// Time kept in hand for the GUI and the pipes (`Move Overhead`).
    pub overhead: Duration,
    /// If not empty, the root moves to choose among (`go searchmoves`).
    pub searchmoves: Vec<Move>,
    /// The answer waits for `stop` even when the search reaches a limit of its own (`go
    /// infinite`).
    pub wait_for_stop: bool,
    /// The search starts pondering: no clock until `ponderhit`, and the answer waits for it
    /// (or `stop`).
    pub ponder: bool,
    /// The endgame tablebases probed, if any (the engine's own type).
    #[doc(hidden)]
    pub syzygy: Option<Syzygy>,
    /// When the clock started: the moment the GUI's `go` was handled, so that what comes
    /// before the search (a table still being cleared after `ucinewgame`, threads being
    /// started) is counted as the GUI counts it. `None`: when the search starts.
    #[doc(hidden)]
    pub since: Option<Moment>,
}

impl Job {
    /// A search of `root` within `limits`, with no game before it and nothing else asked.
    pub fn new(root: Position, limits: Limits) -> Job {
        Job {
            root,
            history: Vec::new(),
            limits,
            overhead: Duration::ZERO,
            searchmoves: Vec::new(),
            wait_for_stop: false,
            ponder: false,
            syzygy: None,
            since: None,
        }
    }
}

/// Whether a reported score is exact or only a bound (aspiration fail).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    Exact,
    Lower,
    Upper,
}

/// One completed (or aspiration-failed) iteration, for `info` lines.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: i32,
    pub seldepth: usize,
    pub score: ReportedScore,
    pub bound: ScoreBound,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    /// Tablebase probes that found a value, all threads.
    pub tbhits: u64,
    pub pv: Vec<Move>,
    /// 1 for the best line; 2, 3, ... for the next best with `MultiPV`.
    pub multipv: usize,
}

/// Where the main thread sends its progress.
pub trait Reporter {
    fn iteration(&mut self, info: &Iteration);

    /// The root move now searched at `depth` (`number` counts from 1), sent only once a search
    /// has run long enough for a GUI to want it (analysis that would look frozen otherwise).
    fn current_move(&mut self, _depth: i32, _mv: Move, _number: usize) {}

    /// A helper thread completed an iteration: its result so far (the pool votes with it if the
    /// helper has not answered when the main thread is done).
    fn completed(&mut self, _result: &SearchResult) {}
}

/// A reporter that discards everything (bench, tests).
pub struct Silent;

impl Reporter for Silent {
    fn iteration(&mut self, _info: &Iteration) {}
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when the root has no legal move.
    pub best: Option<Move>,
    /// The reply expected to `best` (the move to ponder on), if the search saw one.
    pub ponder: Option<Move>,
    /// Score and depth of the last completed iteration (depth 0: none completed). The score is
    /// the engine's own (mates near `±32,000`): [`SearchResult::reported_score`] says it as
    /// centipawns or moves to mate.
    pub score: i32,
    pub depth: i32,
    /// Nodes this thread searched.
    pub nodes: u64,
    /// The principal variation behind `best` (may be just `best`).
    pub pv: Vec<Move>,
}

impl SearchResult {
    /// The score from the side to move's point of view as a GUI shows it: centipawns, or a mate
    /// in so many moves.
    pub fn reported_score(&self) -> ReportedScore {
        ReportedScore::from_internal(self.score)
    }
}

/// A node counter on its own cache line, so threads never share one.
#[derive(Default)]
#[repr(align(64))]
pub struct NodeCounter(pub AtomicU64);

/// State shared by all threads of one search, owned (the persistent threads of a [`Searcher`]
/// hold it through an `Arc` while they search).
pub struct Shared {
    pub tt: Arc<TranspositionTable>,
    /// Ends the search on every thread. The search sets it itself when it reaches a limit.
    pub stop: AtomicBool,
    /// Set while `go ponder` waits for `ponderhit`: no time limit applies, and the clock starts
    /// when it turns false.
    pub pondering: AtomicBool,
    /// One node counter a thread.
    pub counters: Vec<NodeCounter>,
    /// Set from outside (the GUI's `stop`, `quit`): the main thread turns it into `stop` within
    /// a thousand nodes. Apart from `stop`, so that a search that reached its own limit is
    /// still told from one the GUI ended (after `go infinite` only the latter answers).
    pub abort: AtomicBool,
    /// Syzygy tables and how to use them (none by default).
    pub syzygy: Option<Syzygy>,
    /// Tablebase probes that found a value, all threads.
    pub tbhits: AtomicU64,
}

/// The tablebases a search probes and the `Syzygy*` options.
#[derive(Clone)]
pub struct Syzygy {
    pub tables: Arc<crate::syzygy::Tablebases>,
    /// Probe in the search only at this depth or more (`SyzygyProbeDepth`).
    pub probe_depth: i32,
    /// Probe positions of at most this many pieces (`SyzygyProbeLimit`; [`Shared::with_syzygy`]
    /// lowers it to the most pieces of the tables found).
    pub probe_limit: usize,
    /// Wins beyond the fifty-move rule count as draws (`Syzygy50MoveRule`).
    pub rule50: bool,
}

impl Shared {
    /// The shared state of no search, which a worker holds between searches (a table of one
    /// bucket, never probed).
    pub(crate) fn idle() -> &'static Arc<Shared> {
        static IDLE: std::sync::OnceLock<Arc<Shared>> = std::sync::OnceLock::new();
        IDLE.get_or_init(|| Arc::new(Shared::new(Arc::new(TranspositionTable::new(0)), 1)))
    }

    /// Shared state for `threads` threads that only the search's own limits end.
    pub fn new(tt: Arc<TranspositionTable>, threads: usize) -> Shared {
        Shared {
            tt,
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            counters: (0..threads.max(1)).map(|_| NodeCounter::default()).collect(),
            abort: AtomicBool::new(false),
            syzygy: None,
            tbhits: AtomicU64::new(0),
        }
    }

    /// The same, probing `syzygy`'s tables (when it has any).
    pub fn with_syzygy(self, syzygy: Option<Syzygy>) -> Shared {
        let syzygy = syzygy
            .map(|s| Syzygy { probe_limit: s.probe_limit.min(s.tables.max_pieces), ..s })
            .filter(|s| !s.tables.is_empty() && s.probe_limit > 0);
        Shared { syzygy, ..self }
    }

    /// The same, starting as `go ponder` (waiting for `ponderhit`).
    pub fn pondering(self, pondering: bool) -> Shared {
        self.pondering.store(pondering, Ordering::Relaxed);
        self
    }

    pub fn tbhits(&self) -> u64 {
        self.tbhits.load(Ordering::Relaxed)
    }

    pub fn total_nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }
}

/// What a front with no thread of its own to read its input on heard while a search ran on its
/// thread (a browser's worker): the search polls [`set_interrupt_source`]'s source with its
/// other checks, every thousand nodes or so, on the main thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    /// Nothing that concerns the search.
    Nothing,
    /// End the search as the GUI's `stop` does (`stop`, `quit`, or a command that needs the
    /// engine idle, such as `position`).
    Stop,
    /// `ponderhit`: a pondering search goes on as a normal one, its clock starting now.
    PonderHit,
}

type InterruptSource = Box<dyn FnMut() -> Interrupt>;

thread_local! {
    static INTERRUPT: std::cell::RefCell<Option<InterruptSource>> = const { std::cell::RefCell::new(None) };
}

/// Makes `source` what searches running on this thread poll for the GUI's `stop` and
/// `ponderhit` (`None`: nothing; the pool's threads are told through atomics instead). The
/// source must not set another while it runs.
pub fn set_interrupt_source(source: Option<InterruptSource>) {
    INTERRUPT.with(|s| *s.borrow_mut() = source);
}

/// What this thread's interrupt source says now.
fn poll_interrupt() -> Interrupt {
    INTERRUPT.with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.as_mut().map(|f| f())).unwrap_or(Interrupt::Nothing))
}

/// Whether `pos` is a draw by the fifty-move rule or insufficient material.
pub fn is_material_or_fifty_draw(pos: &Position) -> bool {
    use crate::types::PieceType::*;
    if pos.halfmove_clock() >= 100 && (!pos.in_check() || pos.has_legal_move()) {
        return true;
    }
    let heavy = pos.pieces(Pawn) | pos.pieces(Rook) | pos.pieces(Queen);
    heavy.is_empty() && (pos.pieces(Knight) | pos.pieces(Bishop)).count() <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One worker searching on this thread with a table of its own, both at hand to look into
    /// afterwards (what [`Searcher::inline`] runs, without the searcher around it).
    struct Solo {
        tt: Arc<TranspositionTable>,
    }

    impl Solo {
        fn new(hash_mb: usize) -> Solo {
            Solo { tt: Arc::new(TranspositionTable::new(hash_mb)) }
        }

        fn tt(&self) -> &TranspositionTable {
            &self.tt
        }

        fn search(&self, worker: &mut Worker, job: &Job) -> SearchResult {
            self.search_reporting(worker, job, Box::new(Silent))
        }

        fn search_reporting(&self, worker: &mut Worker, job: &Job, reporter: Box<dyn Reporter + Send>) -> SearchResult {
            let shared = Shared::new(Arc::clone(&self.tt), 1).with_syzygy(job.syzygy.clone());
            worker.search(job, Arc::new(shared), reporter)
        }
    }

    fn play(moves: &str) -> (Position, Vec<u64>) {
        let mut pos = Position::startpos();
        let mut keys = Vec::new();
        for m in moves.split_whitespace() {
            keys.push(pos.key());
            pos = pos.make_move(pos.parse_uci_move(m).unwrap());
        }
        (pos, keys)
    }

    #[test]
    fn repetition_needs_three_in_the_game_and_two_in_the_search() {
        let mut w = Worker::new(0);
        // Start position again after 4 plies: a second occurrence, in the game history only.
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8");
        w.state.keys = keys.clone();
        w.state.root_keys = keys.len();
        assert!(!w.is_repetition(&pos), "twofold before the root is not yet a draw");
        // The same twofold inside the search is.
        w.state.root_keys = 0;
        assert!(w.is_repetition(&pos));
        // A third occurrence in the game is a draw.
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        w.state.keys = keys.clone();
        w.state.root_keys = keys.len();
        assert!(w.is_repetition(&pos));
        // An irreversible move in between breaks the chain (the halfmove clock bounds the look-back).
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8 e2e4 e7e5 g1f3 g8f6 f3g1 f6g8");
        w.state.keys = keys;
        w.state.root_keys = 0;
        assert!(w.is_repetition(&pos));
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8 e2e4");
        w.state.keys = keys;
        assert!(!w.is_repetition(&pos));
    }

    #[test]
    fn under_a_clock_one_legal_move_and_a_found_mate_are_played_without_spending_it() {
        use super::params::p;
        // A minute on the clock would give these searches a second or more, and dozens of plies.
        let clock = time::Clock { time: Duration::from_secs(60), increment: Duration::ZERO, moves_to_go: None };
        let limits = Limits { clock: Some(clock), ..Limits::default() };
        // Kxb2 is White's only move.
        let only = Position::from_fen("k7/8/8/8/8/8/1r6/K6r w - - 0 1").unwrap();
        let solo = Solo::new(8);
        let result = solo.search(&mut Worker::new(0), &Job::new(only, limits.clone()));
        assert_eq!(result.best, Some(only.parse_uci_move("a1b2").unwrap()));
        assert!(result.depth <= p!(TIME_ONE_MOVE_DEPTH), "depth {}", result.depth);
        // A mate in two for White: played once the depth is twice the mate's length.
        let mate = Position::from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
        let solo = Solo::new(8);
        let result = solo.search(&mut Worker::new(0), &Job::new(mate, limits.clone()));
        assert!(result.score >= MATE_BOUND, "{result:?}");
        assert!(result.depth <= 2 * (MATE - result.score), "{result:?}");
        // Without a clock (a node limit here) neither rule applies.
        let limits = Limits { nodes: Some(200_000), ..Limits::default() };
        let result = Solo::new(8).search(&mut Worker::new(0), &Job::new(only, limits.clone()));
        assert!(result.depth > p!(TIME_ONE_MOVE_DEPTH), "depth {}", result.depth);
    }

    #[test]
    fn no_position_before_a_null_move_repeats_one_after_it() {
        let mut w = Worker::new(0);
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8");
        w.state.keys = keys.clone();
        w.state.root_keys = 0;
        assert!(w.is_repetition(&pos));
        // Had the search passed after the first ply, the start position would lie before the
        // pass (the floor is the length of the key stack at the null move's child).
        w.state.repetition_floor = 2;
        assert!(!w.is_repetition(&pos));
        // A position reached after the pass still counts.
        w.state.repetition_floor = 0;
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        w.state.keys = keys;
        w.state.repetition_floor = 4;
        assert!(w.is_repetition(&pos));
    }

    #[test]
    fn material_and_fifty_move_draws() {
        for (fen, draw) in [
            ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", true),
            ("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", true),
            ("8/8/4kb2/8/8/3K4/8/8 w - - 0 1", true),
            ("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1", false),
            ("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1", false),
            ("8/8/4k3/8/8/3K4/4P3/8 w - - 100 80", true),
            ("8/8/4k3/8/8/3K4/4P3/8 w - - 99 80", false),
            // Mate on the hundredth half-move is a mate, not a draw.
            ("7k/5Q2/6K1/8/8/8/8/8 b - - 100 80", true),
            ("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80", false),
        ] {
            assert_eq!(is_material_or_fifty_draw(&Position::from_fen(fen).unwrap()), draw, "{fen}");
        }
    }

    #[test]
    fn without_tablebases_every_score_is_an_evaluation_or_a_mate() {
        // Positions with mates for either side at many distances. No score that a search
        // stores may fall between the evaluations and the mates: that band is the tablebases'
        // (none are loaded), and a score there is a mate moved by a margin or a mean of a
        // mate and an evaluation. Evaluations stay well below 15,000.
        let fens = [
            "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
            "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
            "8/8/8/4k3/8/8/8/KQ6 b - - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            "2q3k1/5ppp/8/8/8/8/r4PPP/1R1Q2K1 b - - 0 1",
            "r4rk1/1b3ppp/pq2p3/1p1nP3/3N1Q2/P1N5/1PP3PP/2KR3R w - - 0 1",
            "1k6/ppp5/8/8/8/8/8/K2Q4 w - - 0 1",
            "6k1/8/6K1/8/8/8/8/5R2 w - - 0 1",
            "8/8/8/8/8/5k2/5p2/5K2 w - - 0 1",
        ];
        for fen in fens {
            let solo = Solo::new(8);
            let mut worker = Worker::new(0);
            let pos = Position::from_fen(fen).unwrap();
            let limits = Limits { nodes: Some(400_000), ..Limits::default() };
            solo.search(&mut worker, &Job::new(pos, limits.clone()));
            for score in solo.tt().stored_scores() {
                assert!(score.abs() < 15_000 || score.abs() >= MATE_BOUND, "{fen}: a stored score of {score}");
            }
        }
    }

    #[test]
    fn a_mate_learned_early_is_no_mate_when_the_fifty_move_rule_is_near() {
        // The same queen ending searched at halfmove 10 (mates are found and stored), then
        // searched with a null window at halfmove 96: four plies before the rule draws, no mate
        // is that close, so no node may return one, whatever the table learned with time to
        // spare (a non-PV node would take the stored mate as a cut-off).
        let solo = Solo::new(8);
        let mut worker = Worker::new(0);
        // How many nodes the mate takes depends on the network's view of the ending (the
        // embedded networks have needed 0.2 M to 0.7 M): the search goes on with larger limits,
        // the table kept, until it is in the table.
        let early = Position::from_fen("8/8/8/4k3/8/8/8/KQ6 w - - 10 60").unwrap();
        let mate = [300_000, 1_000_000, 3_000_000]
            .into_iter()
            .map(|nodes| {
                let limits = Limits { nodes: Some(nodes), ..Limits::default() };
                solo.search(&mut worker, &Job::new(early, limits.clone())).score
            })
            .find(|&score| score >= MATE_BOUND);
        assert!(mate.is_some(), "no mate found within 3 M nodes");
        let late = Position::from_fen("8/8/8/4k3/8/8/8/KQ6 w - - 96 60").unwrap();
        let shared = Arc::new(Shared::new(Arc::clone(&solo.tt), 1));
        // The node searched sits at ply 1, below a root of the same position; no node limit.
        let job = Job::new(late, Limits::default());
        worker.state = worker::SearchState::new(&job, shared, Box::new(Silent), true);
        worker.nnue.reset(&late);
        worker.nnue.push(1, &late);
        for depth in 1..=8 {
            for alpha in [-1, 0, 500] {
                let score = worker.negamax::<false>(&late, depth, alpha, alpha + 1, 1, depth % 2 == 0);
                assert!(score.abs() < TB_BOUND, "depth {depth}, window {alpha}: {score}");
            }
        }
        // And from the root, however long it searches.
        for nodes in [2_000, 300_000] {
            let limits = Limits { nodes: Some(nodes), ..Limits::default() };
            let result = solo.search(&mut worker, &Job::new(late, limits.clone()));
            assert!(result.score.abs() < TB_BOUND, "{nodes} nodes: {result:?}");
        }
    }

    /// Keeps every reported iteration.
    /// Keeps every iteration reported, where the test can read them after the search.
    #[derive(Clone, Default)]
    struct Record(Arc<std::sync::Mutex<Vec<Iteration>>>);

    impl Reporter for Record {
        fn iteration(&mut self, info: &Iteration) {
            self.0.lock().unwrap().push(info.clone());
        }
    }

    impl Record {
        fn lines(&self) -> Vec<Iteration> {
            self.0.lock().unwrap().clone()
        }
    }

    #[test]
    fn a_multipv_search_stopped_after_its_first_line_keeps_that_deeper_line() {
        // MultiPV 3 stopped by node limits from 1,000 to 40,000: the first line of a depth is
        // a search of every move, so once it is done it stands even if the other lines are cut
        // short: it is reported, and its move is played. Without it a stop during the second
        // or third line threw away the deeper first line.
        let pos = Position::from_fen("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5").unwrap();
        let mut partial_depths = 0;
        for nodes in (1_000..=40_000).step_by(1_300) {
            let solo = Solo::new(4);
            let mut worker = Worker::new(0);
            let limits = Limits { nodes: Some(nodes), multipv: 3, ..Limits::default() };
            let record = Record::default();
            let result = solo.search_reporting(&mut worker, &Job::new(pos, limits.clone()), Box::new(record.clone()));
            let lines = record.lines();
            let deepest = lines.iter().map(|i| i.depth).max().unwrap();
            assert_eq!(result.depth, deepest, "{nodes} nodes");
            let at_deepest: Vec<&Iteration> = lines.iter().filter(|i| i.depth == deepest).collect();
            if at_deepest.len() < 3 {
                // Stopped in the second or third line: the first is there, and played.
                partial_depths += 1;
                let first = at_deepest.iter().find(|i| i.multipv == 1).expect("the first line is reported");
                assert_eq!(result.best, first.pv.first().copied(), "{nodes} nodes");
            }
        }
        assert!(partial_depths > 0, "no stop fell after a depth's first line: the test shows nothing");
    }

    #[test]
    fn a_stopped_iterations_new_move_carries_its_own_score() {
        // Node limits that stop an iteration after a new move became best: the result plays it
        // with the score it reached at the new depth, not with the score of the move it
        // replaced (helpers' results are voted on by score, and the last line shown says it).
        // Which stops fall so depends on the network and the search's shape: middlegame
        // positions are walked until a few have been seen.
        let fens = [
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
            "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
            "2r3k1/pp3ppp/4p3/3n4/3P4/P4N2/1P3PPP/2R3K1 b - - 0 25",
            "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
            "rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14",
            "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
            "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
            "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
            "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
            "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
            "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
            "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
        ];
        let mut changed = 0;
        for fen in fens {
            if changed >= 3 {
                break;
            }
            let pos = Position::from_fen(fen).unwrap();
            for nodes in (2_000..=60_000).step_by(700) {
                let solo = Solo::new(4);
                let mut worker = Worker::new(0);
                let limits = Limits { nodes: Some(nodes), ..Limits::default() };
                let record = Record::default();
                let result =
                    solo.search_reporting(&mut worker, &Job::new(pos, limits.clone()), Box::new(record.clone()));
                let lines = record.lines();
                let last = lines.last().unwrap();
                if result.best != last.pv.first().copied() {
                    changed += 1;
                    assert_ne!(
                        ReportedScore::from_internal(result.score),
                        last.score,
                        "{fen}, {nodes} nodes: {:?} played with the score of {:?}",
                        result.best,
                        last.pv.first()
                    );
                }
            }
        }
        assert!(changed > 0, "no stop fell after a new best move: the test shows nothing");
    }

    #[test]
    fn fixed_depth_search_is_deterministic() {
        let run = || {
            let pos =
                Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
            let limits = Limits { depth: Some(7), ..Limits::default() };
            Solo::new(4).search(&mut Worker::new(0), &Job::new(pos, limits.clone()))
        };
        let a = run();
        assert!(a.best.is_some() && a.nodes > 0);
        assert_eq!(a, run());
    }

    #[test]
    fn multipv_lines_after_the_first_leave_the_root_entry_alone() {
        let solo = Solo::new(4);
        // The queen on h4 hangs: the first line (Nxh4) is far ahead of every other.
        let pos = Position::from_fen("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3").unwrap();
        let limits = Limits { depth: Some(8), multipv: 4, ..Limits::default() };
        let mut worker = Worker::new(0);
        let result = solo.search(&mut worker, &Job::new(pos, limits.clone()));
        assert_eq!(result.best, Some(pos.parse_uci_move("f3h4").unwrap()));
        // The root's entry describes the whole root: its move is the best line's, its score
        // that line's score (the later lines searched without that move would say otherwise).
        let entry = solo.tt.probe(pos.key(), 0).expect("the root is stored");
        assert_eq!(entry.mv, result.best);
        assert_eq!(entry.score, result.score);
        assert_eq!(entry.bound, crate::tt::Bound::Exact);
    }

    #[test]
    fn the_vote_weighs_depth_score_and_agreement() {
        let pos = Position::startpos();
        let mv = |text: &str| pos.parse_uci_move(text).unwrap();
        let r = |m: &str, score: i32, depth: i32| SearchResult {
            best: Some(mv(m)),
            ponder: None,
            score,
            depth,
            nodes: 0,
            pv: vec![mv(m)],
        };
        // One thread: its own move.
        assert_eq!(vote(&[r("e2e4", 30, 10)]), 0);
        // Two helpers agreeing outvote the main thread at the same depth.
        assert_eq!(vote(&[r("e2e4", 30, 10), r("d2d4", 30, 10), r("d2d4", 30, 10)]), 1);
        // A deeper helper with a better score wins alone.
        assert_eq!(vote(&[r("e2e4", 20, 10), r("d2d4", 40, 14)]), 1);
        // A shallower, equal helper does not.
        assert_eq!(vote(&[r("e2e4", 30, 12), r("d2d4", 30, 9)]), 0);
        // A proven mate is played, the shortest one first.
        assert_eq!(vote(&[r("e2e4", 30, 20), r("d2d4", MATE - 5, 8)]), 1);
        assert_eq!(vote(&[r("e2e4", MATE - 7, 20), r("d2d4", MATE - 5, 8), r("c2c4", 50, 30)]), 1);
        // A thread that completed no iteration has no say.
        assert_eq!(vote(&[r("e2e4", 0, 0), r("d2d4", 10, 3)]), 1);
        let none = SearchResult { best: None, ponder: None, score: 0, depth: 0, nodes: 0, pv: vec![] };
        assert_eq!(vote(&[none]), 0);
    }
}
