//! Iterative deepening: each depth's lines (one, or `MultiPV`) searched with aspiration windows
//! around the previous depth's scores, the time manager consulted between depths, and the
//! stop, node and time checks polled at every node.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::params::p;
use super::threads::skips;
use super::time::{self, Moment, TimeBudget};
use super::worker::Worker;
use super::{Iteration, ReportedScore, Reporter, Request, ScoreBound, SearchResult, Shared};
use crate::position::Position;
use crate::tt::{MATE, MATE_BOUND, MAX_PLY};
use crate::types::Move;

/// When the main thread starts naming each root move it searches (`currmove`).
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

/// One thread's view of one `go`: its own worker and the state every thread shares. The search
/// (`run`, `negamax`, `qsearch`) runs on it; the worker's fields are reached through it.
pub(super) struct Search<'a> {
    pub(super) worker: &'a mut Worker,
    pub(super) shared: &'a Shared,
    /// Where the main thread's progress goes.
    pub(super) reporter: &'a mut dyn Reporter,
}

impl Deref for Search<'_> {
    type Target = Worker;
    fn deref(&self) -> &Worker {
        self.worker
    }
}

impl DerefMut for Search<'_> {
    fn deref_mut(&mut self) -> &mut Worker {
        self.worker
    }
}

impl Worker {
    /// Searches `request.root` for `request.limits` and returns the best move found; progress
    /// goes to `reporter` (the main thread's only).
    pub fn search(&mut self, request: &Request, shared: &Shared, reporter: &mut dyn Reporter) -> SearchResult {
        Search { worker: self, shared, reporter }.run(request)
    }
}

impl Search<'_> {
    /// Iterative deepening over `request.root`, each depth's lines (`MultiPV`) searched with
    /// aspiration windows; stops at the limits (the main thread) or when told.
    pub(super) fn run(&mut self, request: &Request) -> SearchResult {
        let Request { root, history, limits, overhead, searchmoves, since } = *request;
        self.start = since.unwrap_or_else(Moment::now);
        self.clock_start = self.start;
        self.ponder_wait = self.shared.pondering.load(Ordering::Relaxed);
        self.budget = TimeBudget::new(limits, overhead, root.fullmove_number() as u32);
        self.pv_len[0] = 0;
        self.pv[0][0] = None;
        self.weakness = limits.weakness;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX).min(limits.weakness.nodes.unwrap_or(u64::MAX));
        self.nodes = 0;
        self.stopped = false;
        // Node and time limits apply once the first iteration is complete: every move played
        // was compared with the others at least at depth 1.
        self.limits_armed = false;
        self.keys.clear();
        self.keys.extend_from_slice(history);
        self.root_keys = self.keys.len();
        self.repetition_floor = 0;
        if self.use_nnue {
            self.nnue.reset(root);
        }
        self.lines_given.clear();
        let legal = root.legal_moves();
        self.root_moves = legal.iter().copied().filter(|m| searchmoves.is_empty() || searchmoves.contains(m)).collect();
        if self.root_moves.is_empty() {
            self.root_moves = legal.to_vec();
        }
        self.root_nodes = vec![0; self.root_moves.len()];
        self.tablebase_root(root);
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
            self.lines_given.clear();
            let mut found: Vec<(i32, Vec<Move>)> = Vec::with_capacity(lines);
            for (line, previous) in scores.iter_mut().enumerate() {
                let mut failed_high = None;
                let score = self.aspiration(root, depth, *previous, lines == 1, &result.pv, &mut failed_high);
                if self.stopped {
                    if line == 0 {
                        // A stopped iteration still counts if its first (best-ordered) move was
                        // searched, or if a move failed high before the wider search was cut
                        // short. A new move carries the score it has at this depth, not the
                        // old move's (helpers' results are voted on by score).
                        let partial =
                            if self.pv_len[0] > 0 { Some((self.root_score, self.legal_pv(root))) } else { failed_high };
                        if let Some((score, pv)) = partial {
                            if let Some(&best) = pv.first() {
                                if result.best != Some(best) {
                                    result.score = score;
                                }
                                result.best = Some(best);
                                result.ponder = pv.get(1).copied();
                                result.pv = pv;
                            }
                        }
                    } else {
                        // MultiPV: the lines finished at this depth, the first of them a search
                        // of every move, stand; they are reported and the best one played.
                        found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
                        if let Some((score, pv)) = found.first() {
                            result.best = pv.first().copied();
                            result.ponder = pv.get(1).copied();
                            result.pv = pv.clone();
                            result.score = *score;
                            result.depth = depth;
                        }
                        if self.is_main {
                            for (k, (score, pv)) in found.iter().enumerate() {
                                self.report(depth, *score, ScoreBound::Exact, pv.clone(), k + 1);
                            }
                        }
                    }
                    break 'deepen;
                }
                *previous = score;
                let pv = self.legal_pv(root);
                match pv.first() {
                    Some(&m) => self.lines_given.push(m),
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
            self.limits_armed = true;
            if !self.is_main {
                let snapshot = SearchResult { score: self.shown_score(result.score), ..result.clone() };
                self.reporter.completed(&snapshot);
            }
            if self.is_main {
                for (k, (score, pv)) in found.iter().enumerate() {
                    self.report(depth, *score, ScoreBound::Exact, pv.clone(), k + 1);
                }
            }
            // Any thread that completes the depth limit ends the search for all (but with
            // MultiPV the main thread's lines decide).
            if depth == max_depth && limits.depth.is_some() && (self.is_main || limits.multipv <= 1) {
                self.shared.stop.store(true, Ordering::Release);
            }
            if limits.soft_nodes.is_some_and(|soft| self.nodes >= soft) {
                break;
            }
            if let Some(mate) = limits.mate {
                if result.score >= MATE_BOUND && (MATE - result.score + 1) / 2 <= mate as i32 {
                    break;
                }
            }
            if self.is_main && limits.clock.is_some() && !self.pondering() {
                // Nothing to choose: one legal move is played once an iteration or two have
                // found a reply to ponder on. A mate found for us is played once the depth is
                // twice its length (a shorter one would have been found by then): the time is
                // the rest of the game's.
                let mate_plies = MATE - result.score;
                if (self.root_moves.len() == 1 && depth >= p!(TIME_ONE_MOVE_DEPTH))
                    || (result.score >= MATE_BOUND && depth >= 2 * mate_plies)
                {
                    break;
                }
            }
            if self.is_main && !self.pondering() {
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
        self.flush_nodes();
        result.nodes = self.shared.total_nodes();
        result.score = self.shown_score(result.score);
        result
    }

    /// One line of one iteration with an aspiration window around `previous`, widened on each
    /// fail (after a fail high, searched a ply shallower each time, up to
    /// `ASPIRATION_FAIL_HIGH_MAX`; a fail low goes back to the full depth). Bound fails of a
    /// single-line search are reported once the search has run a second, a fail low with the
    /// last iteration's line (`previous_line`: no move beat the bound). The score and line of
    /// the last fail high are left in `failed_high` (a better move than the last iteration's, if
    /// the search stops before the wider window settles it).
    fn aspiration(
        &mut self,
        root: &Position,
        depth: i32,
        previous: i32,
        report_bounds: bool,
        previous_line: &[Move],
        failed_high: &mut Option<(i32, Vec<Move>)>,
    ) -> i32 {
        let mut delta = p!(ASPIRATION_DELTA);
        let (mut alpha, mut beta) = if depth >= p!(ASPIRATION_MIN_DEPTH) && previous.abs() < MATE_BOUND {
            ((previous - delta).max(-MATE), (previous + delta).min(MATE))
        } else {
            (-MATE, MATE)
        };
        // Each fail high searches the wider window a ply shallower (a fail low resets it): a
        // move that beat the window is confirmed sooner, and the full depth comes next iteration.
        let mut fail_highs = 0;
        loop {
            let s = self.negamax::<true>(root, (depth - fail_highs).max(1), alpha, beta, 0, false);
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
                let mut pv = self.legal_pv(root);
                if pv.is_empty() {
                    pv = previous_line.to_vec();
                }
                self.report(depth, s, bound, pv, 1);
            }
            match bound {
                ScoreBound::Upper => {
                    fail_highs = 0;
                    beta = (alpha + beta) / 2;
                    alpha = (s - delta).max(-MATE);
                }
                ScoreBound::Lower => {
                    let pv = self.legal_pv(root);
                    if !pv.is_empty() {
                        *failed_high = Some((s, pv));
                    }
                    beta = (s + delta).min(MATE);
                    fail_highs = (fail_highs + 1).min(p!(ASPIRATION_FAIL_HIGH_MAX));
                }
                ScoreBound::Exact => return s,
            }
            delta += delta / 2;
        }
    }

    /// Whether the search still waits for `ponderhit`; on the first call after it, the time
    /// budget starts counting from now (the GUI's clock started then, not at `go ponder`).
    fn pondering(&mut self) -> bool {
        if self.ponder_wait && !self.shared.pondering.load(Ordering::Acquire) {
            self.ponder_wait = false;
            self.clock_start = Moment::now();
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

    fn report(&mut self, depth: i32, score: i32, bound: ScoreBound, pv: Vec<Move>, multipv: usize) {
        self.flush_nodes();
        let info = Iteration {
            depth,
            seldepth: self.seldepth.max(depth as usize),
            score: ReportedScore::from_internal(self.shown_score(score)),
            bound,
            nodes: self.shared.total_nodes(),
            time: self.start.elapsed(),
            hashfull: self.shared.tt.hashfull(),
            tbhits: self.shared.tbhits(),
            pv,
            multipv,
        };
        self.reporter.iteration(&info);
    }

    /// At the root of the main thread: the move now searched, once the search has run long
    /// enough that a GUI showing analysis would otherwise look frozen.
    #[cold]
    #[inline(never)]
    pub(super) fn announce_root_move(&mut self, depth: i32, mv: Move, number: usize) {
        if self.start.elapsed() >= CURRMOVE_AFTER {
            self.reporter.current_move(depth, mv, number);
        }
    }

    /// The score to report: the tables' result where the root is in them and the search found
    /// no mate.
    fn shown_score(&self, score: i32) -> i32 {
        match self.tb_root_score {
            Some(tb) if score.abs() < MATE_BOUND => tb,
            _ => score,
        }
    }

    fn flush_nodes(&self) {
        if let Some(c) = self.shared.counters.get(self.id) {
            c.0.store(self.nodes, Ordering::Relaxed);
        }
    }

    /// Polled at every node: the stop flag, and (main thread) the node and time limits.
    #[inline]
    pub(super) fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.node_limit && self.limits_armed {
            self.shared.stop.store(true, Ordering::Relaxed);
        }
        if self.nodes & 1023 == 0 {
            self.flush_nodes();
            // With helpers, `go nodes` counts every thread's nodes (one thread counts exactly,
            // above; here the main thread adds up all counters now and then).
            if self.is_main
                && self.limits_armed
                && self.node_limit != u64::MAX
                && self.shared.counters.len() > 1
                && self.shared.total_nodes() >= self.node_limit
            {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
            if self.is_main && self.shared.abort.load(Ordering::Relaxed) {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
            if self.is_main && self.limits_armed && !self.pondering() {
                if let Some(hard) = self.budget.hard {
                    if self.clock_start.elapsed() >= hard {
                        self.shared.stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
        self.stopped = self.shared.stop.load(Ordering::Relaxed);
        self.stopped
    }
}
