//! The search's tuning constants in one place: margins, depth limits and divisors of every
//! pruning, reduction and extension rule in `alphabeta`, and the aspiration window of
//! `iterative`. Each was measured where it was introduced (see `docs/search.md`); change one and
//! the `Bench:` signature changes with it.

/// Aspiration: the first window's half-width around the previous score, from this depth on.
pub const ASPIRATION_DELTA: i32 = 20;
pub const ASPIRATION_MIN_DEPTH: i32 = 4;

/// Reverse futility pruning: a node whose evaluation beats beta by `RFP_MARGIN` per ply (one ply
/// less when improving) returns it, up to this depth.
pub const RFP_MAX_DEPTH: i32 = 8;
pub const RFP_MARGIN: i32 = 80;

/// Null move: from this depth, reduced by `NMP_BASE + depth / NMP_DEPTH_DIVISOR` and one more
/// ply per `NMP_EVAL_DIVISOR` of evaluation above beta (at most `NMP_EVAL_MAX`).
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 4;
pub const NMP_EVAL_DIVISOR: i32 = 200;
pub const NMP_EVAL_MAX: i32 = 3;

/// ProbCut: from this depth, a capture that beats beta by the margin in a search
/// `PROBCUT_REDUCTION` plies shallower cuts the node.
pub const PROBCUT_MIN_DEPTH: i32 = 5;
pub const PROBCUT_MARGIN: i32 = 200;
pub const PROBCUT_REDUCTION: i32 = 4;
/// A table entry at least this much shallower than the node says nothing about ProbCut.
pub const PROBCUT_TT_DEPTH: i32 = 3;

/// Internal iterative reduction: a node without a hash move, from this depth.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Late-move pruning: quiets after `(LMP_BASE + depth^2)` moves (half that when not improving),
/// up to this depth.
pub const LMP_MAX_DEPTH: i32 = 8;
pub const LMP_BASE: i32 = 3;

/// History pruning: a quiet whose history is below `-HISTORY_PRUNE_MARGIN x depth`, up to this
/// depth.
pub const HISTORY_PRUNE_MAX_DEPTH: i32 = 4;
pub const HISTORY_PRUNE_MARGIN: i32 = 3_000;

/// Futility pruning of quiets: evaluation + `FUTILITY_BASE + FUTILITY_MARGIN x depth` at most
/// alpha, up to this depth.
pub const FUTILITY_MAX_DEPTH: i32 = 6;
pub const FUTILITY_BASE: i32 = 100;
pub const FUTILITY_MARGIN: i32 = 90;

/// SEE pruning: a quiet losing more than `SEE_QUIET_MARGIN x depth^2`, up to `SEE_QUIET_MAX_DEPTH`;
/// a capture losing more than `SEE_NOISY_MARGIN x depth`, up to `SEE_NOISY_MAX_DEPTH`.
pub const SEE_QUIET_MAX_DEPTH: i32 = 8;
pub const SEE_QUIET_MARGIN: i32 = 40;
pub const SEE_NOISY_MAX_DEPTH: i32 = 6;
pub const SEE_NOISY_MARGIN: i32 = 90;

/// Singular extensions: from this depth, for a hash move whose entry is at most
/// `SINGULAR_TT_DEPTH` plies shallower; the margin below its score is `SINGULAR_MARGIN x depth`.
pub const SINGULAR_MIN_DEPTH: i32 = 8;
pub const SINGULAR_TT_DEPTH: i32 = 3;
pub const SINGULAR_MARGIN: i32 = 2;
/// A second ply of extension when the rest fall this far below the margin, at most
/// `DOUBLE_EXTENSIONS_MAX` times on one path.
pub const DOUBLE_EXTENSION_MARGIN: i32 = 20;
pub const DOUBLE_EXTENSIONS_MAX: i32 = 6;

/// Late-move reductions: `LMR_BASE + ln(depth) ln(move number) / LMR_DIVISOR`, from
/// `LMR_MIN_DEPTH`, less one ply per `LMR_HISTORY_DIVISOR` of history.
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_HISTORY_DIVISOR: i32 = 12_288;
/// After a reduced move beats alpha: a ply deeper when it beat the best by
/// `DEEPER_BASE + DEEPER_MARGIN x depth`, a ply shallower when by less than `SHALLOWER_MARGIN`.
pub const DEEPER_BASE: i32 = 40;
pub const DEEPER_MARGIN: i32 = 2;
pub const SHALLOWER_MARGIN: i32 = 10;

/// Quiescence delta pruning: a capture whose victim cannot lift the evaluation to alpha by this
/// much more.
pub const DELTA_MARGIN: i32 = 200;
