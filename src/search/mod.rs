//! The search: iterative deepening with aspiration windows over a principal-variation negamax,
//! quiescence with static exchange evaluation, and the usual selectivity (see `alphabeta`).
//!
//! Shared between threads: the transposition table, the stop flag and per-thread node counters
//! (`Shared`). Per thread (`Worker`, kept across `go` until `ucinewgame`): killers, the quiet,
//! continuation, capture and correction histories, the pawn hash table and the key stack for
//! repetitions. Only the main thread reads the clock and
//! reports; it reports through the [`Reporter`] trait, so protocol text stays in `uci`.
//!
//! With one thread and a depth or node limit, the search is deterministic.

mod alphabeta;
pub mod history;
pub mod picker;
pub mod time;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::eval::PawnTable;
use crate::nnue::AccumulatorStack;
use crate::position::Position;
use crate::tt::{TranspositionTable, MATE, MATE_BOUND, MAX_PLY};
use crate::types::Move;
use history::History;
pub use time::{Clock, Limits, TimeBudget};

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Centipawns(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    pub fn from_internal(score: i32) -> Score {
        if score >= MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            Score::Mate(-(MATE + score) / 2)
        } else {
            Score::Centipawns(score)
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
    pub score: Score,
    pub bound: ScoreBound,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    pub pv: Vec<Move>,
    /// 1 for the best line; 2, 3, ... for the next best with `MultiPV`.
    pub multipv: usize,
}

/// Where the main thread sends its progress.
pub trait Reporter {
    fn iteration(&mut self, info: &Iteration);
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
    pub ponder: Option<Move>,
    /// Score and depth of the last completed iteration (depth 0: none completed).
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    /// The principal variation behind `best` (may be just `best`).
    pub pv: Vec<Move>,
}

/// A node counter on its own cache line, so threads never share one.
#[derive(Default)]
#[repr(align(64))]
pub struct NodeCounter(pub AtomicU64);

/// State shared by all threads of one search.
pub struct Shared<'a> {
    pub tt: &'a TranspositionTable,
    /// Ends the search on every thread. The search sets it itself when it reaches a limit.
    pub stop: &'a AtomicBool,
    /// Set while `go ponder` waits for `ponderhit`: no time limit applies, and the clock starts
    /// when it turns false.
    pub pondering: &'a AtomicBool,
    pub counters: &'a [NodeCounter],
    /// Set from outside (the GUI's `stop`, `quit`): the main thread turns it into `stop` within
    /// a thousand nodes. Apart from `stop`, so that a search that reached its own limit is
    /// still told from one the GUI ended (after `go infinite` only the latter answers).
    pub abort: &'a AtomicBool,
}

/// An `abort` flag that nothing sets, for searches nobody ends from outside.
static NEVER: AtomicBool = AtomicBool::new(false);

impl<'a> Shared<'a> {
    /// Shared state that only the search's own limits end.
    pub fn new(
        tt: &'a TranspositionTable,
        stop: &'a AtomicBool,
        pondering: &'a AtomicBool,
        counters: &'a [NodeCounter],
    ) -> Shared<'a> {
        Shared { tt, stop, pondering, counters, abort: &NEVER }
    }

    /// The same, ended also when `abort` is set.
    pub fn with_abort(self, abort: &'a AtomicBool) -> Shared<'a> {
        Shared { abort, ..self }
    }

    pub fn total_nodes(&self) -> u64 {
        self.counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }
}

/// Per-ply search state.
#[derive(Clone, Copy)]
struct PlyState {
    eval: i32,
    /// The move that led to the next ply (`None` for a null move).
    mv: Option<Move>,
    /// The continuation-history context of `mv` (`NO_CONTEXT` for a null move).
    cont: history::Context,
    /// The move left out of this node's search while testing it for singularity.
    excluded: Option<Move>,
    /// Double extensions on the path from the root to this ply.
    double_extensions: i32,
}

impl Default for PlyState {
    fn default() -> PlyState {
        PlyState { eval: 0, mv: None, cont: history::NO_CONTEXT, excluded: None, double_extensions: 0 }
    }
}

/// One search thread's own data, kept between searches until `ucinewgame`.
pub struct Worker {
    pub(crate) history: Box<History>,
    pub(crate) correction: history::Correction,
    pub(crate) pawns: PawnTable,
    /// The network's accumulators along the search path.
    nnue: Box<AccumulatorStack>,
    /// Evaluate with the network (`UseNNUE`, on by default; else with the hand-crafted evaluation).
    pub use_nnue: bool,
    /// Keys of the game's earlier positions, then of the search path.
    keys: Vec<u64>,
    /// Length of the game part of `keys`.
    root_keys: usize,
    stack: Vec<PlyState>,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: Vec<usize>,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    // limits of the running search
    start: Instant,
    /// Where the time budget is counted from: `start`, or the moment of `ponderhit`.
    clock_start: Instant,
    /// Whether this search began as `go ponder` and has not seen `ponderhit` yet.
    ponder_wait: bool,
    budget: TimeBudget,
    node_limit: u64,
    is_main: bool,
    id: usize,
    root_moves: Vec<Move>,
    /// Nodes spent under each root move (same order as `root_moves`) in this search.
    root_nodes: Vec<u64>,
    /// Root moves already given a line at this depth (`MultiPV`).
    excluded: Vec<Move>,
}

impl Default for Worker {
    fn default() -> Worker {
        Worker::new(0)
    }
}

impl Worker {
    /// A fresh worker; thread `id` 0 is the main thread.
    pub fn new(id: usize) -> Worker {
        Worker {
            history: Box::default(),
            correction: history::Correction::default(),
            pawns: PawnTable::default(),
            nnue: Box::new(AccumulatorStack::new(MAX_PLY + 8)),
            use_nnue: crate::nnue::ON_BY_DEFAULT,
            keys: Vec::with_capacity(1024),
            root_keys: 0,
            stack: vec![PlyState::default(); MAX_PLY + 8],
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            stopped: false,
            start: Instant::now(),
            clock_start: Instant::now(),
            ponder_wait: false,
            budget: TimeBudget { soft: None, hard: None },
            node_limit: u64::MAX,
            is_main: id == 0,
            id,
            root_moves: Vec::new(),
            root_nodes: Vec::new(),
            excluded: Vec::new(),
        }
    }

    /// Forgets everything learned (`ucinewgame`).
    pub fn clear(&mut self) {
        let use_nnue = self.use_nnue;
        *self = Worker::new(self.id);
        self.use_nnue = use_nnue;
    }

    /// Searches `root` (reached after the positions whose keys are `history`, oldest first) and
    /// returns the best move found. `searchmoves`, if not empty, restricts the root moves.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &mut self,
        root: &Position,
        history: &[u64],
        limits: &Limits,
        overhead: Duration,
        searchmoves: &[Move],
        shared: &Shared,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.start = Instant::now();
        self.clock_start = self.start;
        self.ponder_wait = shared.pondering.load(Ordering::Relaxed);
        self.budget = TimeBudget::new(limits, overhead);
        self.pv_len[0] = 0;
        self.pv[0][0] = None;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.nodes = 0;
        self.stopped = false;
        self.keys.clear();
        self.keys.extend_from_slice(history);
        self.root_keys = self.keys.len();
        if self.use_nnue {
            self.nnue.reset(root);
        }
        self.excluded.clear();
        let legal = root.legal_moves();
        self.root_moves = legal.iter().copied().filter(|m| searchmoves.is_empty() || searchmoves.contains(m)).collect();
        if self.root_moves.is_empty() {
            self.root_moves = legal.to_vec();
        }
        self.root_nodes = vec![0; self.root_moves.len()];
        let Some(&first) = self.root_moves.first() else {
            return SearchResult { best: None, ponder: None, score: 0, depth: 0, nodes: 0, pv: Vec::new() };
        };

        let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 1).clamp(1, MAX_PLY as i32 - 1);
        // Helpers search one line; with MultiPV, only the main thread's lines are reported.
        let lines = if self.is_main { limits.multipv.clamp(1, self.root_moves.len()) } else { 1 };
        let mut result =
            SearchResult { best: Some(first), ponder: None, score: 0, depth: 0, nodes: 0, pv: vec![first] };
        // The score of each line at the previous depth, the centre of its aspiration window.
        let mut scores = vec![0; lines];
        // Iterations in a row that kept the best move, and the previous iteration's score.
        let mut stability = 0;
        let mut previous_score;
        'deepen: for depth in 1..=max_depth {
            // Helpers skip depths in staggered patterns, so that they run ahead of the main
            // thread and of each other and fill the table with deeper results (the last depth
            // is never skipped).
            if !self.is_main && depth < max_depth && depth > 1 && skips(self.id, depth) {
                continue;
            }
            self.seldepth = 0;
            self.excluded.clear();
            let mut found: Vec<(i32, Vec<Move>)> = Vec::with_capacity(lines);
            for (line, previous) in scores.iter_mut().enumerate() {
                let score = self.aspiration(root, depth, *previous, lines == 1, shared, reporter);
                if self.stopped {
                    // A stopped iteration still counts if its first (best-ordered) move was searched.
                    if line == 0 && self.pv_len[0] > 0 {
                        let pv = self.legal_pv(root);
                        if let Some(&best) = pv.first() {
                            result.best = Some(best);
                            result.ponder = pv.get(1).copied();
                            result.pv = pv;
                        }
                    }
                    break 'deepen;
                }
                *previous = score;
                let pv = self.legal_pv(root);
                match pv.first() {
                    Some(&m) => self.excluded.push(m),
                    None => break,
                }
                found.push((score, pv));
            }
            // Later lines exclude the earlier ones' moves; an unstable search can still score one
            // higher, so the lines are reported best first.
            found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
            previous_score = result.score;
            if let Some((score, pv)) = found.first() {
                stability = if result.best == pv.first().copied() { stability + 1 } else { 0 };
                result.best = pv.first().copied();
                result.ponder = pv.get(1).copied();
                result.pv = pv.clone();
                result.score = *score;
                result.depth = depth;
            }
            if self.is_main {
                for (k, (score, pv)) in found.iter().enumerate() {
                    self.report(depth, *score, ScoreBound::Exact, pv.clone(), k + 1, shared, reporter);
                }
            }
            // Any thread that completes the depth limit ends the search for all (but with
            // MultiPV the main thread's lines decide).
            if depth == max_depth && limits.depth.is_some() && (self.is_main || limits.multipv <= 1) {
                shared.stop.store(true, Ordering::Release);
            }
            if let Some(mate) = limits.mate {
                if result.score >= MATE_BOUND && (MATE - result.score + 1) / 2 <= mate as i32 {
                    break;
                }
            }
            if self.is_main && !self.pondering(shared) {
                if let Some(soft) = self.budget.soft {
                    // A movetime is exact; a clock's soft limit follows the search's stability.
                    let scaled = if limits.clock.is_some() && depth >= 4 {
                        let best_nodes = result
                            .best
                            .and_then(|b| self.root_moves.iter().position(|&m| m == b))
                            .map_or(0, |i| self.root_nodes[i]);
                        let best_share = best_nodes as f64 / self.nodes.max(1) as f64;
                        let scale =
                            time::soft_scale(stability, previous_score - result.score) * time::node_scale(best_share);
                        soft.mul_f64(scale).min(self.budget.hard.unwrap_or(soft))
                    } else {
                        soft
                    };
                    if self.clock_start.elapsed() >= scaled {
                        break;
                    }
                }
            }
        }
        self.flush_nodes(shared);
        result.nodes = shared.total_nodes();
        result
    }

    /// One line of one iteration with an aspiration window around `previous`, widened on each
    /// fail. Bound fails of a single-line search are reported once the search has run a second.
    fn aspiration(
        &mut self,
        root: &Position,
        depth: i32,
        previous: i32,
        report_bounds: bool,
        shared: &Shared,
        reporter: &mut dyn Reporter,
    ) -> i32 {
        let mut delta = 20;
        let (mut alpha, mut beta) = if depth >= 4 && previous.abs() < MATE_BOUND {
            ((previous - delta).max(-MATE), (previous + delta).min(MATE))
        } else {
            (-MATE, MATE)
        };
        loop {
            let s = self.negamax::<true>(root, depth, alpha, beta, 0, false, shared);
            if self.stopped {
                return s;
            }
            let bound = if s <= alpha {
                ScoreBound::Upper
            } else if s >= beta {
                ScoreBound::Lower
            } else {
                ScoreBound::Exact
            };
            if report_bounds
                && self.is_main
                && bound != ScoreBound::Exact
                && self.start.elapsed() > Duration::from_millis(1000)
            {
                let pv = self.legal_pv(root);
                self.report(depth, s, bound, pv, 1, shared, reporter);
            }
            match bound {
                ScoreBound::Upper => {
                    beta = (alpha + beta) / 2;
                    alpha = (s - delta).max(-MATE);
                }
                ScoreBound::Lower => beta = (s + delta).min(MATE),
                ScoreBound::Exact => return s,
            }
            delta += delta / 2;
        }
    }

    /// Whether the search still waits for `ponderhit`; on the first call after it, the time
    /// budget starts counting from now (the GUI's clock started then, not at `go ponder`).
    fn pondering(&mut self, shared: &Shared) -> bool {
        if self.ponder_wait && !shared.pondering.load(Ordering::Acquire) {
            self.ponder_wait = false;
            self.clock_start = Instant::now();
        }
        self.ponder_wait
    }

    /// The principal variation, cut at the first move that is not legal where it stands (a line
    /// copied from a node that failed high may be stale below it).
    fn legal_pv(&self, root: &Position) -> Vec<Move> {
        let mut pos = *root;
        let mut pv = Vec::new();
        for m in self.pv[0][..self.pv_len[0]].iter().map_while(|m| *m) {
            if !pos.is_legal(m) {
                break;
            }
            pos = pos.make_move(m);
            pv.push(m);
        }
        pv
    }

    #[allow(clippy::too_many_arguments)]
    fn report(
        &self,
        depth: i32,
        score: i32,
        bound: ScoreBound,
        pv: Vec<Move>,
        multipv: usize,
        shared: &Shared,
        reporter: &mut dyn Reporter,
    ) {
        self.flush_nodes(shared);
        reporter.iteration(&Iteration {
            depth,
            seldepth: self.seldepth.max(depth as usize),
            score: Score::from_internal(score),
            bound,
            nodes: shared.total_nodes(),
            time: self.start.elapsed(),
            hashfull: shared.tt.hashfull(),
            pv,
            multipv,
        });
    }

    fn flush_nodes(&self, shared: &Shared) {
        if let Some(c) = shared.counters.get(self.id) {
            c.0.store(self.nodes, Ordering::Relaxed);
        }
    }

    /// Polled at every node: the stop flag, and (main thread) the node and time limits.
    #[inline]
    fn check_stop(&mut self, shared: &Shared) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.node_limit {
            shared.stop.store(true, Ordering::Relaxed);
        }
        if self.nodes & 1023 == 0 {
            self.flush_nodes(shared);
            // With helpers, `go nodes` counts every thread's nodes (one thread counts exactly,
            // above; here the main thread adds up all counters now and then).
            if self.is_main
                && self.node_limit != u64::MAX
                && shared.counters.len() > 1
                && shared.total_nodes() >= self.node_limit
            {
                shared.stop.store(true, Ordering::Relaxed);
            }
            if self.is_main && shared.abort.load(Ordering::Relaxed) {
                shared.stop.store(true, Ordering::Relaxed);
            }
            if self.is_main && !self.pondering(shared) {
                if let Some(hard) = self.budget.hard {
                    if self.clock_start.elapsed() >= hard {
                        shared.stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
        self.stopped = shared.stop.load(Ordering::Relaxed);
        self.stopped
    }
}

/// Whether helper thread `id` skips iteration `depth`: thread `id` belongs to a group that
/// searches blocks of `size` depths and skips the next `size`, each thread of the group with its
/// own phase (1: every other depth; 2 and 3: two on, two off, in two phases; ...).
fn skips(id: usize, depth: i32) -> bool {
    const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    let i = (id.max(1) - 1) % SIZE.len();
    ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
}

/// Runs one search on every worker: worker 0 (the main thread) here with `limits` and
/// `reporter`, the others as helper threads without limits of their own (they stop when the main
/// thread does). Once the main thread is done, `before_stop` runs (the UCI front waits there for
/// `stop` or `ponderhit` after `go infinite` / `go ponder`), then every helper is stopped and
/// joined. Returns the results, main thread first, for [`vote`].
#[allow(clippy::too_many_arguments)]
pub fn run_threads(
    workers: &mut [Worker],
    pos: &Position,
    history: &[u64],
    limits: &Limits,
    overhead: Duration,
    searchmoves: &[Move],
    shared: &Shared,
    reporter: &mut dyn Reporter,
    before_stop: impl FnOnce(),
) -> Vec<SearchResult> {
    let helper_limits = Limits { depth: limits.depth, infinite: true, multipv: limits.multipv, ..Limits::default() };
    std::thread::scope(|s| {
        let (main, helpers) = workers.split_first_mut().expect("at least one worker");
        let mut handles = Vec::with_capacity(helpers.len());
        for helper in helpers {
            let helper_limits = &helper_limits;
            let spawned = std::thread::Builder::new().stack_size(16 << 20).spawn_scoped(s, move || {
                helper.search(pos, history, helper_limits, overhead, searchmoves, shared, &mut Silent)
            });
            // Without the thread the search goes on with fewer helpers.
            if let Ok(handle) = spawned {
                handles.push(handle);
            }
        }
        let result = main.search(pos, history, limits, overhead, searchmoves, shared, reporter);
        before_stop();
        shared.stop.store(true, Ordering::Release);
        let mut results = vec![result];
        results.extend(handles.into_iter().filter_map(|h| h.join().ok()));
        results
    })
}

/// Which thread's result to play: a vote weighted by each thread's score (above the worst) and
/// completed depth, so a move found by several threads, or deeper, wins over the main thread's
/// alone. A proven mate is kept (the shortest wins); a thread that completed no iteration has no
/// vote. Returns an index into `results`; 0 (the main thread) when nobody else qualifies.
pub fn vote(results: &[SearchResult]) -> usize {
    let voters: Vec<usize> =
        (0..results.len()).filter(|&i| results[i].best.is_some() && results[i].depth > 0).collect();
    let Some(min) = voters.iter().map(|&i| results[i].score).min() else {
        return 0;
    };
    let weight = |r: &SearchResult| (r.score - min + 14) as i64 * r.depth as i64;
    let mut votes: Vec<(Move, i64)> = Vec::new();
    for &i in &voters {
        let r = &results[i];
        let best = r.best.expect("voters have a move");
        match votes.iter_mut().find(|(m, _)| *m == best) {
            Some((_, v)) => *v += weight(r),
            None => votes.push((best, weight(r))),
        }
    }
    let votes_for = |r: &SearchResult| votes.iter().find(|(m, _)| Some(*m) == r.best).map_or(0, |(_, v)| *v);
    let mut chosen = if voters.contains(&0) { 0 } else { voters[0] };
    for &i in &voters {
        let (r, c) = (&results[i], &results[chosen]);
        let better = if c.score >= MATE_BOUND {
            r.score > c.score
        } else if r.score >= MATE_BOUND {
            true
        } else {
            r.score > -MATE_BOUND
                && (votes_for(r) > votes_for(c) || (votes_for(r) == votes_for(c) && weight(r) > weight(c)))
        };
        if better {
            chosen = i;
        }
    }
    chosen
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
        w.keys = keys.clone();
        w.root_keys = keys.len();
        assert!(!w.is_repetition(&pos), "twofold before the root is not yet a draw");
        // The same twofold inside the search is.
        w.root_keys = 0;
        assert!(w.is_repetition(&pos));
        // A third occurrence in the game is a draw.
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        w.keys = keys.clone();
        w.root_keys = keys.len();
        assert!(w.is_repetition(&pos));
        // An irreversible move in between breaks the chain (the halfmove clock bounds the look-back).
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8 e2e4 e7e5 g1f3 g8f6 f3g1 f6g8");
        w.keys = keys;
        w.root_keys = 0;
        assert!(w.is_repetition(&pos));
        let (pos, keys) = play("g1f3 g8f6 f3g1 f6g8 e2e4");
        w.keys = keys;
        assert!(!w.is_repetition(&pos));
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
    fn fixed_depth_search_is_deterministic() {
        let run = || {
            let tt = TranspositionTable::new(4);
            let (stop, pondering) = (AtomicBool::new(false), AtomicBool::new(false));
            let counters = [NodeCounter::default()];
            let shared = Shared::new(&tt, &stop, &pondering, &counters);
            let pos =
                Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
            let limits = Limits { depth: Some(7), ..Limits::default() };
            Worker::new(0).search(&pos, &[], &limits, Duration::ZERO, &[], &shared, &mut Silent)
        };
        let a = run();
        assert!(a.best.is_some() && a.nodes > 0);
        assert_eq!(a, run());
    }

    #[test]
    fn multipv_lines_after_the_first_leave_the_root_entry_alone() {
        let tt = TranspositionTable::new(4);
        let (stop, pondering) = (AtomicBool::new(false), AtomicBool::new(false));
        let counters = [NodeCounter::default()];
        let shared = Shared::new(&tt, &stop, &pondering, &counters);
        // The queen on h4 hangs: the first line (Nxh4) is far ahead of every other.
        let pos = Position::from_fen("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3").unwrap();
        let limits = Limits { depth: Some(8), multipv: 4, ..Limits::default() };
        let mut worker = Worker::new(0);
        let result = worker.search(&pos, &[], &limits, Duration::ZERO, &[], &shared, &mut Silent);
        assert_eq!(result.best, Some(pos.parse_uci_move("f3h4").unwrap()));
        // The root's entry describes the whole root: its move is the best line's, its score
        // that line's score (the later lines searched without that move would say otherwise).
        let entry = tt.probe(pos.key(), 0).expect("the root is stored");
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
