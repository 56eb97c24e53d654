//! Iterative deepening: each depth's lines (one, or `MultiPV`) searched with aspiration windows
//! around the previous depth's scores, the time manager consulted between depths, and the
//! stop, node and time checks polled at every node.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::params::p;
use super::threads::skips;
use super::worker::{SearchState, Worker};
use super::{Iteration, Job, ReportedScore, Reporter, ScoreBound, SearchResult, Shared};
use crate::position::Position;
use crate::tt::{MATE, MATE_BOUND, MAX_PLY};
use crate::types::Move;

/// When the main thread starts naming each root move it searches (`currmove`).
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

impl Worker {
    /// Searches `job` and returns the best move found, with `shared` (the table, the stop flags
    /// and the node counters of every thread of this search); progress goes to `reporter` (the
    /// main thread's lines; a helper's completed iterations). Thread 0 is the main thread: it
    /// alone keeps the clock and reports. Iterative deepening over the root, each depth's
    /// lines (`MultiPV`) searched with aspiration windows; stops at the limits (the main
    /// thread) or when told.
    pub fn search(&mut self, job: &Job, shared: Arc<Shared>, reporter: Box<dyn Reporter + Send>) -> SearchResult {
        self.state = SearchState::new(job, shared, reporter, self.id == 0);
        if self.use_nnue {
            self.nnue.reset(&job.root);
        }
        let result = self.iterate(job);
        // Nothing of the search outlives it: the table and the reporter are let go.
        self.state = SearchState::idle();
        result
    }

    fn iterate(&mut self, job: &Job) -> SearchResult {
        let (root, limits) = (&job.root, &job.limits);
        self.tablebase_root(root);
        let Some(first) = self.state.root_moves.first().map(|rm| rm.mv) else {
            return SearchResult { best: None, ponder: None, score: 0, depth: 0, nodes: 0, pv: Vec::new() };
        };

        let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 1).clamp(1, MAX_PLY as i32 - 1);
        // Helpers search one line; with MultiPV, only the main thread's lines are reported.
        let main = self.state.main.is_some();
        let lines = if main { limits.multipv.clamp(1, self.state.root_moves.len()) } else { 1 };
        let mut result =
            SearchResult { best: Some(first), ponder: None, score: 0, depth: 0, nodes: 0, pv: vec![first] };
        // The score of each line at the previous depth, the centre of its aspiration window.
        let mut scores = vec![0; lines];
        'deepen: for depth in 1..=max_depth {
            // Helpers skip depths in staggered patterns, so that they run ahead of the main
            // thread and of each other and fill the table with deeper results (the last depth
            // is never skipped).
            if !main && depth < max_depth && depth > 1 && skips(self.id, depth) {
                continue;
            }
            for rm in &mut self.state.root_moves {
                rm.previous_score = rm.score;
                rm.score = -MATE;
            }
            self.state.seldepth = 0;
            self.state.lines_given.clear();
            let mut found: Vec<(i32, Vec<Move>)> = Vec::with_capacity(lines);
            for (line, previous) in scores.iter_mut().enumerate() {
                let mut failed_high = None;
                let score = self.aspiration(root, depth, *previous, lines == 1, &result.pv, &mut failed_high);
                if self.state.stopped {
                    if line == 0 {
                        // A stopped iteration still counts if its first (best-ordered) move was
                        // searched, or if a move failed high before the wider search was cut
                        // short. A new move carries the score it has at this depth, not the
                        // old move's (helpers' results are voted on by score).
                        let partial = if self.state.pv_len[0] > 0 {
                            Some((self.pv_root_score(), self.legal_pv(root)))
                        } else {
                            failed_high
                        };
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
                        if main {
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
                    Some(&m) => self.state.lines_given.push(m),
                    None => break,
                }
                found.push((score, pv));
            }
            // Later lines exclude the earlier ones' moves; an unstable search can still score one
            // higher, so the lines are reported best first.
            found.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
            let previous_score = result.score;
            if let Some((score, pv)) = found.first() {
                let kept = result.best == pv.first().copied();
                if let Some(main) = &mut self.state.main {
                    main.stability = if kept { main.stability + 1 } else { 0 };
                }
                result.best = pv.first().copied();
                result.ponder = pv.get(1).copied();
                result.pv = pv.clone();
                result.score = *score;
                result.depth = depth;
            }
            self.state.limits_armed = true;
            if !main {
                let snapshot = SearchResult { score: self.shown_score(result.score), ..result.clone() };
                self.state.reporter.completed(&snapshot);
            }
            if main {
                for (k, (score, pv)) in found.iter().enumerate() {
                    self.report(depth, *score, ScoreBound::Exact, pv.clone(), k + 1);
                }
            }
            // Any thread that completes the depth limit ends the search for all (but with
            // MultiPV the main thread's lines decide).
            if depth == max_depth && limits.depth.is_some() && (main || limits.multipv <= 1) {
                self.state.shared.stop.store(true, Ordering::Release);
            }
            if limits.soft_nodes.is_some_and(|soft| self.state.nodes >= soft) {
                break;
            }
            if let Some(mate) = limits.mate {
                if result.score >= MATE_BOUND && (MATE - result.score + 1) / 2 <= mate as i32 {
                    break;
                }
            }
            // The time manager (the main thread's): one legal move, a mate found, the soft limit.
            let state = &mut self.state;
            if let Some(main) = &mut state.main {
                main.previous_score = previous_score;
                if main.iteration_done(job, &state.shared, &result, depth, &state.root_moves, state.nodes) {
                    break;
                }
            }
        }
        self.flush_nodes();
        result.nodes = self.state.shared.total_nodes();
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
            if self.state.stopped {
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
                && bound != ScoreBound::Exact
                && self.state.main.as_ref().is_some_and(|main| main.start.elapsed() > Duration::from_millis(1000))
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

    /// The score of the root move that last became the principal variation (in the iteration
    /// under way: what a stopped iteration's new best move is worth).
    fn pv_root_score(&self) -> i32 {
        let best = self.state.pv[0][0];
        self.state.root_moves.iter().find(|rm| Some(rm.mv) == best).map_or(-MATE, |rm| rm.score)
    }

    /// The principal variation, cut at the first move that is not legal where it stands (a line
    /// copied from a node that failed high may be stale below it).
    fn legal_pv(&self, root: &Position) -> Vec<Move> {
        let mut pos = *root;
        let mut pv = Vec::new();
        for m in self.state.pv[0][..self.state.pv_len[0]].iter().map_while(|m| *m) {
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
            seldepth: self.state.seldepth.max(depth as usize),
            score: ReportedScore::from_internal(self.shown_score(score)),
            bound,
            nodes: self.state.shared.total_nodes(),
            time: self.state.main.as_ref().map_or(Duration::ZERO, |main| main.start.elapsed()),
            hashfull: self.state.shared.tt.hashfull(),
            tbhits: self.state.shared.tbhits(),
            pv,
            multipv,
        };
        self.state.reporter.iteration(&info);
    }

    /// At the root of the main thread: the move now searched, once the search has run long
    /// enough that a GUI showing analysis would otherwise look frozen.
    #[cold]
    #[inline(never)]
    pub(super) fn announce_root_move(&mut self, depth: i32, mv: Move, number: usize) {
        if self.state.main.as_ref().is_some_and(|main| main.start.elapsed() >= CURRMOVE_AFTER) {
            self.state.reporter.current_move(depth, mv, number);
        }
    }

    /// The score to report: the tables' result where the root is in them and the search found
    /// no mate.
    fn shown_score(&self, score: i32) -> i32 {
        match self.state.tb_root_score {
            Some(tb) if score.abs() < MATE_BOUND => tb,
            _ => score,
        }
    }

    fn flush_nodes(&self) {
        if let Some(c) = self.state.shared.counters.get(self.id) {
            c.0.store(self.state.nodes, Ordering::Relaxed);
        }
    }

    /// Polled at every node: the stop flag, and (main thread) the node and time limits.
    #[inline]
    pub(super) fn check_stop(&mut self) -> bool {
        if self.state.stopped {
            return true;
        }
        if self.state.nodes >= self.state.node_limit && self.state.limits_armed {
            self.state.shared.stop.store(true, Ordering::Relaxed);
        }
        if self.state.nodes & 1023 == 0 {
            self.flush_nodes();
            let state = &mut self.state;
            // With helpers, `go nodes` counts every thread's nodes (one thread counts exactly,
            // above): every thread adds up all counters now and then, so that the limit holds
            // while the main thread waits for a core on a busy machine.
            if state.limits_armed
                && state.node_limit != u64::MAX
                && state.shared.counters.len() > 1
                && state.shared.total_nodes() >= state.node_limit
            {
                state.shared.stop.store(true, Ordering::Relaxed);
            }
            // The main thread's part: the GUI's `stop` (or what a front polled for it hears);
            // the hard time limit.
            if let Some(main) = &mut state.main {
                let shared = &state.shared;
                match super::poll_interrupt() {
                    super::Interrupt::Nothing => {}
                    super::Interrupt::Stop => {
                        shared.pondering.store(false, Ordering::Release);
                        shared.abort.store(true, Ordering::Release);
                    }
                    super::Interrupt::PonderHit => shared.pondering.store(false, Ordering::Release),
                }
                if shared.abort.load(Ordering::Relaxed) {
                    shared.stop.store(true, Ordering::Relaxed);
                }
                if state.limits_armed && main.hard_limit_reached(shared) {
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
        }
        self.state.stopped = self.state.shared.stop.load(Ordering::Relaxed);
        self.state.stopped
    }
}
