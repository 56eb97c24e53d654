//! Static evaluation: a tapered, hand-crafted evaluation whose weights are Texel-tuned.
//!
//! The score is computed in packed midgame/endgame [`Score`]s, White's view, then tapered by the
//! game phase (knight and bishop 1, rook 2, queen 4; 24 in all), the endgame half scaled down in
//! drawish endings, and returned from the side to move's point of view in centipawns.
//!
//! The weights themselves live below the position, in `crate::weights`. Files: `pawns` (pawn
//! structure, king shelter, pawn hash table), `terms` (everything else), `tracer` (what the
//! terms report each weight to), `trace` (coefficients for the tuner and the `eval` breakdown).

mod mopup;
mod pawns;
mod terms;
mod trace;
mod tracer;

#[cfg(test)]
pub(crate) mod tests;

pub use crate::weights::{params, psqt, s, Score, Spec, NUM_PARAMS, SPECS, W};
pub use mopup::{bare_king, KNOWN_WIN};
pub use pawns::{PawnEntry, PawnTable};
pub use terms::{insufficient_material, phase, scale_factor, Outcome, MAX_PHASE, SCALE_NORMAL};
pub use trace::{eval_report, trace, trace_terms, TermLine};
pub use tracer::{Coefficients, NoTrace, Tracer};

use crate::position::Position;
use crate::types::Color;

/// Per-thread evaluation state: the pawn hash table.
#[derive(Default)]
pub struct EvalState {
    pub pawns: PawnTable,
}

impl EvalState {
    /// State with a pawn table of `pawn_entries` entries.
    pub fn new(pawn_entries: usize) -> EvalState {
        EvalState { pawns: PawnTable::new(pawn_entries) }
    }

    /// [`evaluate_with`] on this state's pawn table.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        evaluate_with(pos, &mut self.pawns)
    }
}

/// Whether `pos` holds more material than a game can reach: over 16 pieces a side, over 8 pawns,
/// or more promoted pieces (queens past one, rooks, bishops and knights past two) than missing
/// pawns. Board editors make such positions and Corvid plays them, but its evaluations are
/// built for a game's material: the packed terms and the network's accumulators are bounded by
/// it. Such a position is evaluated by [`beyond_game_eval`] instead.
#[inline]
pub fn beyond_game(pos: &Position) -> bool {
    use crate::types::PieceType;
    Color::ALL.iter().any(|&color| {
        let n = |pt| pos.colored_pieces(color, pt).count();
        let pawns = n(PieceType::Pawn);
        let promoted = n(PieceType::Queen).saturating_sub(1)
            + n(PieceType::Rook).saturating_sub(2)
            + n(PieceType::Bishop).saturating_sub(2)
            + n(PieceType::Knight).saturating_sub(2);
        pos.colored(color).count() > 16 || pawns > 8 || promoted + pawns > 8
    })
}

/// The largest evaluation [`beyond_game_eval`] gives: a clear advantage, never a mate or a
/// tablebase score.
pub const BEYOND_GAME_MAX: i32 = 10_000;

/// The evaluation of a position beyond a game's material ([`beyond_game`]): material and
/// piece-square values summed in full-width integers, tapered by phase, for the side to move,
/// within `±BEYOND_GAME_MAX`.
pub fn beyond_game_eval(pos: &Position) -> i32 {
    let (mut mg, mut eg) = (0i32, 0i32);
    for sq in pos.occupied() {
        if let Some(piece) = pos.piece_on(sq) {
            let v = psqt(piece, sq);
            (mg, eg) = (mg + v.mg(), eg + v.eg());
        }
    }
    let phase = phase(pos);
    let white = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    let us = match pos.side_to_move() {
        Color::White => white,
        Color::Black => -white,
    };
    us.clamp(-BEYOND_GAME_MAX, BEYOND_GAME_MAX)
}

/// The evaluation in centipawns from the side to move's point of view, computing the pawn terms
/// afresh (no table, no allocation).
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_inner(pos, None)
}

/// [`evaluate`] with a pawn hash table owned by the caller (one per search thread).
pub fn evaluate_with(pos: &Position, pawns: &mut PawnTable) -> i32 {
    evaluate_inner(pos, Some(pawns))
}

#[inline]
fn evaluate_inner(pos: &Position, pawns: Option<&mut PawnTable>) -> i32 {
    if insufficient_material(pos) {
        return 0;
    }
    if let Some(won) = bare_king(pos) {
        return won;
    }
    if beyond_game(pos) {
        return beyond_game_eval(pos);
    }
    let outcome = terms::evaluate_terms(pos, pawns, &mut NoTrace);
    let white = taper(outcome);
    match pos.side_to_move() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// Material and piece-square values alone (kept incrementally by the position), tapered by
/// phase, for the side to move: the base that a PSQT-residual network corrects.
#[inline]
pub fn material_psqt(pos: &Position) -> i32 {
    if beyond_game(pos) {
        return beyond_game_eval(pos);
    }
    let white = taper(Outcome { score: pos.psq(), phase: phase(pos), scale: SCALE_NORMAL });
    match pos.side_to_move() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// The text of the UCI `eval` command: the per-term breakdown (see [`eval_report`]).
pub fn describe(pos: &Position) -> String {
    eval_report(pos)
}

/// Blends the midgame and (scaled) endgame halves by phase; White's view, truncating toward zero.
#[inline(always)]
pub fn taper(outcome: Outcome) -> i32 {
    let Outcome { score, phase, scale } = outcome;
    let blended = score.mg() * phase * SCALE_NORMAL + score.eg() * (MAX_PHASE - phase) * scale;
    blended / (MAX_PHASE * SCALE_NORMAL)
}
