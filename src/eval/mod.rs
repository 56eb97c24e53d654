//! Placeholder evaluation (material only) until the tuned evaluation lands.

use crate::position::Position;
use crate::types::{Color, PieceType};

/// Pawn hash table (unused by the placeholder).
#[derive(Default)]
pub struct PawnTable {
    _private: (),
}

/// Material balance for the side to move.
pub fn evaluate_with(pos: &Position, _pawns: &mut PawnTable) -> i32 {
    const VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];
    let mut score = 0;
    for pt in PieceType::ALL {
        score += VALUES[pt.index()]
            * (pos.colored_pieces(Color::White, pt).count() as i32
                - pos.colored_pieces(Color::Black, pt).count() as i32);
    }
    if pos.side_to_move() == Color::White {
        score
    } else {
        -score
    }
}

/// [`evaluate_with`] with a fresh pawn table.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, &mut PawnTable::default())
}

/// The evaluation, for the `eval` command.
pub fn describe(pos: &Position) -> String {
    format!("Final evaluation: {} (side to move)", evaluate(pos))
}
