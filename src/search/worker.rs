//! One search thread's worker and its data by lifetime: what it keeps for the game (until
//! `ucinewgame`: killers and the histories, the correction history, the pawn hash table, the
//! network's accumulators), what each search makes anew ([`SearchState`]: the key stack for
//! repetitions, the per-ply stack and principal variations, the counters, the root moves), and
//! on the main thread only, the time manager ([`MainPart`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::history::{self, History};
use super::params::p;
use super::time::{self, Moment, TimeBudget};
use super::{Job, Reporter, SearchResult, Shared, Silent, Weakness};
use crate::eval::PawnTable;
use crate::nnue::{AccumulatorStack, Network};
use crate::tt::{MATE, MATE_BOUND, MAX_PLY};
use crate::types::{Bitboard, Move};

/// Per-ply search state.
#[derive(Clone, Copy)]
pub(super) struct PlyState {
    pub(super) eval: i32,
    /// The move that led to the next ply (`None` for a null move).
    pub(super) mv: Option<Move>,
    /// The continuation-history context of `mv` (`NO_CONTEXT` for a null move).
    pub(super) cont: history::Context,
    /// The move left out of this node's search while testing it for singularity (the other
    /// `excluded`, the MultiPV lines given, is [`SearchState::lines_given`]).
    pub(super) singular_test: Option<Move>,
    /// Double extensions on the path from the root to this ply.
    pub(super) double_extensions: i32,
    /// The late-move reduction of the move now searched from this ply (0 outside a reduced
    /// search): its child adjusts its depth by it in hindsight.
    pub(super) reduction: i32,
    /// How many children of the node at this ply have failed high so far.
    pub(super) cutoffs: i32,
    /// The pawn-history slot of the node at this ply.
    pub(super) pawns: usize,
    /// The squares the opponent of the side to move attacks at this ply.
    pub(super) threats: Bitboard,
}

impl Default for PlyState {
    fn default() -> PlyState {
        PlyState {
            eval: 0,
            mv: None,
            cont: history::NO_CONTEXT,
            singular_test: None,
            double_extensions: 0,
            reduction: 0,
            cutoffs: 0,
            pawns: 0,
            threats: Bitboard::EMPTY,
        }
    }
}

/// A move at the root and what this search learned of it.
#[derive(Clone, Debug)]
pub(super) struct RootMove {
    pub(super) mv: Move,
    /// Its score in the iteration under way, where it raised alpha (`-MATE` otherwise).
    pub(super) score: i32,
    /// Its score in the iteration before.
    pub(super) previous_score: i32,
    /// The running mean of its scores, recent ones weighing more (`-MATE`: none yet).
    pub(super) average: i32,
    /// The selective depth when it last became the principal variation.
    pub(super) seldepth: usize,
    /// Its principal variation then.
    pub(super) pv: Vec<Move>,
    /// Nodes spent under it in this search.
    pub(super) nodes: u64,
}

impl RootMove {
    pub(super) fn new(mv: Move) -> RootMove {
        RootMove { mv, score: -MATE, previous_score: -MATE, average: -MATE, seldepth: 0, pv: Vec::new(), nodes: 0 }
    }
}

/// What one search makes anew: the job's positions and limits as the search reads them, the
/// stacks, the counters and the root moves. Made by [`SearchState::new`] at each search's start,
/// and set back to [`SearchState::idle`] at its end, so that nothing of the search outlives it
/// (the table and the reporter are let go).
pub(super) struct SearchState {
    /// The table, the stop flags and the node counters of every thread of this search.
    pub(super) shared: Arc<Shared>,
    /// Where this thread's progress goes (the main thread's lines; a helper's completed
    /// iterations, for the vote).
    pub(super) reporter: Box<dyn Reporter + Send>,
    /// Keys of the game's earlier positions, then of the search path.
    pub(super) keys: Vec<u64>,
    /// Length of the game part of `keys`.
    pub(super) root_keys: usize,
    /// Length of `keys` at the child of the innermost null move on the path (0 without one):
    /// the repetition scan stops there.
    pub(super) repetition_floor: usize,
    pub(super) stack: Vec<PlyState>,
    pub(super) pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pub(super) pv_len: Vec<usize>,
    pub(super) nodes: u64,
    pub(super) seldepth: usize,
    pub(super) stopped: bool,
    /// Whether the node and time limits apply yet (from the first completed iteration on).
    pub(super) limits_armed: bool,
    pub(super) node_limit: u64,
    /// The running search's playing strength (`UCI_Elo`; none by default).
    pub(super) weakness: Weakness,
    /// The tablebase result of the root, reported instead of the search's score (`None`: the
    /// root is not in the tables).
    pub(super) tb_root_score: Option<i32>,
    /// Whether the search probes the tables below the root.
    pub(super) tb_in_search: bool,
    pub(super) root_moves: Vec<RootMove>,
    /// Root moves whose lines are already given at this depth (`MultiPV`): the next line is
    /// searched without them.
    pub(super) lines_given: Vec<Move>,
    /// The time manager: the main thread's only.
    pub(super) main: Option<MainPart>,
}

impl SearchState {
    /// The state of a search of `job` (whose limits are `limits`: a helper's differ) with
    /// `shared`, reporting to `reporter`; with a main part where `main`.
    pub(super) fn new(job: &Job, shared: Arc<Shared>, reporter: Box<dyn Reporter + Send>, main: bool) -> SearchState {
        let limits = &job.limits;
        let legal = job.root.legal_moves();
        let mut root_moves: Vec<RootMove> = legal
            .iter()
            .copied()
            .filter(|m| job.searchmoves.is_empty() || job.searchmoves.contains(m))
            .map(RootMove::new)
            .collect();
        if root_moves.is_empty() {
            root_moves = legal.iter().copied().map(RootMove::new).collect();
        }
        let mut keys = Vec::with_capacity(job.history.len() + MAX_PLY + 8);
        keys.extend_from_slice(&job.history);
        let main = main.then(|| MainPart::new(job, shared.pondering.load(Ordering::Relaxed)));
        SearchState {
            reporter,
            root_keys: keys.len(),
            keys,
            repetition_floor: 0,
            stack: vec![PlyState::default(); MAX_PLY + 8],
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            stopped: false,
            // Node and time limits apply once the first iteration is complete: every move
            // played was compared with the others at least at depth 1.
            limits_armed: false,
            node_limit: limits.nodes.unwrap_or(u64::MAX).min(limits.weakness.nodes.unwrap_or(u64::MAX)),
            weakness: limits.weakness,
            tb_root_score: None,
            // Without tables the tree's test for a probe is this one flag.
            tb_in_search: shared.syzygy.is_some(),
            shared,
            root_moves,
            lines_given: Vec::new(),
            main,
        }
    }

    /// Between searches: no table, no reporter, nothing allocated.
    pub(super) fn idle() -> SearchState {
        SearchState {
            shared: Arc::clone(Shared::idle()),
            reporter: Box::new(Silent),
            keys: Vec::new(),
            root_keys: 0,
            repetition_floor: 0,
            stack: Vec::new(),
            pv: Vec::new(),
            pv_len: Vec::new(),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            limits_armed: false,
            node_limit: u64::MAX,
            weakness: Weakness::default(),
            tb_root_score: None,
            tb_in_search: false,
            root_moves: Vec::new(),
            lines_given: Vec::new(),
            main: None,
        }
    }
}

/// The main thread's part of a search: the time manager.
pub(super) struct MainPart {
    /// When the search started (the GUI's `go`): reports' times count from it.
    pub(super) start: Moment,
    /// Where the time budget is counted from: `start`, or the moment of `ponderhit`.
    pub(super) clock_start: Moment,
    /// Whether this search began as `go ponder` and has not seen `ponderhit` yet.
    pub(super) ponder_wait: bool,
    pub(super) budget: TimeBudget,
    /// Iterations in a row that kept the best move, and the previous iteration's score.
    pub(super) stability: u32,
    pub(super) previous_score: i32,
}

impl MainPart {
    fn new(job: &Job, pondering: bool) -> MainPart {
        let start = job.since.unwrap_or_else(Moment::now);
        MainPart {
            start,
            clock_start: start,
            ponder_wait: pondering,
            budget: TimeBudget::new(&job.limits, job.overhead, job.root.fullmove_number() as u32),
            stability: 0,
            previous_score: 0,
        }
    }

    /// Whether the search still waits for `ponderhit`; on the first call after it, the time
    /// budget starts counting from now (the GUI's clock started then, not at `go ponder`).
    pub(super) fn pondering(&mut self, shared: &Shared) -> bool {
        if self.ponder_wait && !shared.pondering.load(Ordering::Acquire) {
            self.ponder_wait = false;
            self.clock_start = Moment::now();
        }
        self.ponder_wait
    }

    /// After a completed iteration at `depth` whose result is `result`: whether the time
    /// manager ends the search. Under a clock one legal move is played once an iteration or two
    /// have found a reply to ponder on, and a mate found for us once the depth is twice its
    /// length (a shorter one would have been found by then); then the soft limit, which a
    /// movetime keeps exact and a clock scales by how long the best move has stood, how far the
    /// score fell, and the share of this thread's `nodes` that the best move took.
    pub(super) fn iteration_done(
        &mut self,
        job: &Job,
        shared: &Shared,
        result: &SearchResult,
        depth: i32,
        root_moves: &[RootMove],
        nodes: u64,
    ) -> bool {
        let limits = &job.limits;
        let legal_moves = root_moves.len();
        if limits.clock.is_some() && !self.pondering(shared) {
            let mate_plies = MATE - result.score;
            if (legal_moves == 1 && depth >= p!(TIME_ONE_MOVE_DEPTH))
                || (result.score >= MATE_BOUND && depth >= 2 * mate_plies)
            {
                return true;
            }
        }
        if self.pondering(shared) {
            return false;
        }
        let Some(soft) = self.budget.soft else { return false };
        let scaled = if limits.clock.is_some() && depth >= 4 {
            let best = root_moves.iter().find(|rm| Some(rm.mv) == result.best);
            let best_share = best.map_or(0, |rm| rm.nodes) as f64 / nodes.max(1) as f64;
            let scale =
                time::soft_scale(self.stability, self.previous_score - result.score) * time::node_scale(best_share);
            soft.mul_f64(scale).min(self.budget.hard.unwrap_or(soft))
        } else {
            soft
        };
        self.clock_start.elapsed() >= scaled
    }

    /// Polled now and then: whether the hard limit has passed (never while pondering).
    pub(super) fn hard_limit_reached(&mut self, shared: &Shared) -> bool {
        !self.pondering(shared) && self.budget.hard.is_some_and(|hard| self.clock_start.elapsed() >= hard)
    }
}

/// One search thread's worker: what it keeps for the game, and the state of the search under
/// way.
pub struct Worker {
    // Kept for the game, until `ucinewgame`.
    pub(crate) history: Box<History>,
    pub(crate) correction: history::Correction,
    pub(crate) pawns: PawnTable,
    /// The network's accumulators along the search path.
    pub(super) nnue: Box<AccumulatorStack>,
    /// Evaluate with the network (`UseNNUE`, on by default; else with the hand-crafted evaluation).
    pub use_nnue: bool,
    /// The thread's number in its pool (0 for the main thread, and for a worker searching
    /// alone): helpers stagger their depths by it and count their nodes in its slot.
    pub(super) id: usize,
    // Made anew by each search.
    pub(super) state: SearchState,
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
            id,
            state: SearchState::idle(),
        }
    }

    /// Forgets everything learned (`ucinewgame`).
    pub fn clear(&mut self) {
        let (use_nnue, network) = (self.use_nnue, Arc::clone(self.nnue.network()));
        *self = Worker::new(self.id);
        self.use_nnue = use_nnue;
        self.nnue.set_network(&network);
    }

    /// Evaluates with `net` from the next search on (`EvalFile`; the embedded network by default).
    pub fn set_network(&mut self, net: &Arc<Network>) {
        self.nnue.set_network(net);
    }
}
