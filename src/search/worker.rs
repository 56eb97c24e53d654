//! One search thread's own data, kept between searches until `ucinewgame`: killers and the
//! histories, the pawn hash table, the network's accumulators, the key stack for repetitions, the
//! per-ply stack and principal variations, and the limits of the running search.

use std::sync::Arc;

use super::history::{self, History};
use super::time::{Moment, TimeBudget};
use crate::eval::PawnTable;
use crate::nnue::{AccumulatorStack, Network};
use crate::tt::MAX_PLY;
use crate::types::{Bitboard, Move};

/// Per-ply search state.
#[derive(Clone, Copy)]
pub(super) struct PlyState {
    pub(super) eval: i32,
    /// The move that led to the next ply (`None` for a null move).
    pub(super) mv: Option<Move>,
    /// The continuation-history context of `mv` (`NO_CONTEXT` for a null move).
    pub(super) cont: history::Context,
    /// The move left out of this node's search while testing it for singularity.
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

/// One search thread's own data, kept between searches until `ucinewgame`.
pub struct Worker {
    pub(crate) history: Box<History>,
    pub(crate) correction: history::Correction,
    pub(crate) pawns: PawnTable,
    /// The network's accumulators along the search path.
    pub(super) nnue: Box<AccumulatorStack>,
    /// Evaluate with the network (`UseNNUE`, on by default; else with the hand-crafted evaluation).
    pub use_nnue: bool,
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
    // limits of the running search
    pub(super) start: Moment,
    /// Where the time budget is counted from: `start`, or the moment of `ponderhit`.
    pub(super) clock_start: Moment,
    /// Whether this search began as `go ponder` and has not seen `ponderhit` yet.
    pub(super) ponder_wait: bool,
    pub(super) budget: TimeBudget,
    pub(super) node_limit: u64,
    /// The tablebase result of the root, reported instead of the search's score (`None`: the
    /// root is not in the tables).
    pub(super) tb_root_score: Option<i32>,
    /// Whether the search probes the tables below the root.
    pub(super) tb_in_search: bool,
    /// The running search's playing strength (`UCI_Elo`; none by default).
    pub(super) weakness: super::Weakness,
    pub(super) is_main: bool,
    pub(super) id: usize,
    pub(super) root_moves: Vec<Move>,
    /// Nodes spent under each root move (same order as `root_moves`) in this search.
    pub(super) root_nodes: Vec<u64>,
    /// Root moves whose lines are already given at this depth (`MultiPV`): the next line is
    /// searched without them.
    pub(super) lines_given: Vec<Move>,
    /// The score of the root move that last became the principal variation (in the iteration
    /// under way: what a stopped iteration's new best move is worth).
    pub(super) root_score: i32,
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
            repetition_floor: 0,
            stack: vec![PlyState::default(); MAX_PLY + 8],
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            nodes: 0,
            seldepth: 0,
            stopped: false,
            limits_armed: false,
            start: Moment::now(),
            clock_start: Moment::now(),
            ponder_wait: false,
            budget: TimeBudget { soft: None, hard: None },
            node_limit: u64::MAX,
            weakness: super::Weakness::default(),
            tb_root_score: None,
            tb_in_search: true,
            is_main: id == 0,
            id,
            root_moves: Vec::new(),
            root_nodes: Vec::new(),
            lines_given: Vec::new(),
            root_score: 0,
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
