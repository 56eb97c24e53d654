//! Material plus piece-square values per coloured piece and square, in one lookup table.
//!
//! [`psqt`] is what the position calls on every piece it adds or removes to keep an incremental
//! sum, so it must stay a single table read. The table is built at compile time from
//! `params::MATERIAL` and the six `*_PSQT` tables: White's entry is material plus the table
//! value; Black's is the negation of White's entry on the vertically mirrored square, so the sum
//! over the board is always from White's point of view.

use super::layout::{PSQT_OF, W};
use super::params;
use super::score::Score;
use crate::types::{Piece, Square};

/// `[piece][square]`: material + piece-square value, White positive.
static TABLE: [[Score; 64]; 12] = build();

const fn build() -> [[Score; 64]; 12] {
    let mut table = [[Score::ZERO; 64]; 12];
    let mut pt = 0;
    while pt < 6 {
        let mut sq = 0;
        while sq < 64 {
            let white = params::MATERIAL[pt].add(W[PSQT_OF[pt] + sq]);
            table[pt][sq] = white;
            table[6 + pt][sq ^ 56] = white.neg();
            sq += 1;
        }
        pt += 1;
    }
    table
}

/// Material plus piece-square value of `piece` on `sq`, from White's point of view.
#[inline(always)]
pub fn psqt(piece: Piece, sq: Square) -> Score {
    TABLE[piece.index()][sq.index()]
}
