//! Pawn structure and the pawn shield / storm in front of each king, with a pawn hash table.
//!
//! Everything here depends only on the pawns and the kings, which is exactly what
//! `Position::pawn_key` hashes, so the result is cached per key in a [`PawnTable`] (one per search
//! thread, owned by the caller). Passed pawns are also stored so that the terms that depend on
//! other pieces (a free path to promotion) can be added after the probe.

use super::tracer::{NoTrace, Tracer};
use crate::position::Position;
use crate::tables::pawn_attacks;
use crate::types::{Bitboard, Color, File, PieceType, Square};
use crate::weights::layout::{self as idx, W};
use crate::weights::Score;

/// A cached pawn evaluation.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct PawnEntry {
    key: u64,
    /// Pawn-structure and king-shelter score, White minus Black.
    pub score: Score,
    /// Each colour's passed pawns.
    pub passed: [Bitboard; 2],
}

/// A direct-mapped pawn hash table.
pub struct PawnTable {
    entries: Vec<PawnEntry>,
}

impl Default for PawnTable {
    fn default() -> PawnTable {
        PawnTable::new(8192)
    }
}

impl PawnTable {
    /// A table of `entries` entries (rounded up to a power of two, at least one).
    pub fn new(entries: usize) -> PawnTable {
        PawnTable { entries: vec![PawnEntry::default(); entries.max(1).next_power_of_two()] }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = PawnEntry::default());
    }

    /// The pawn evaluation of `pos`, from the table or computed and stored.
    #[inline]
    pub fn probe(&mut self, pos: &Position) -> PawnEntry {
        let key = pos.pawn_key();
        let slot = (key as usize) & (self.entries.len() - 1);
        let entry = self.entries[slot];
        // Key 0 marks an empty slot; a real position with key 0 is simply never cached.
        if entry.key == key && key != 0 {
            return entry;
        }
        let fresh = evaluate_pawns(pos, &mut NoTrace);
        self.entries[slot] = PawnEntry { key, ..fresh };
        fresh
    }
}

/// The squares on ranks strictly ahead of `sq` for `color` (all files).
#[inline(always)]
pub(crate) fn ranks_ahead(color: Color, sq: Square) -> Bitboard {
    let r = sq.rank().index() as u32;
    match color {
        Color::White => Bitboard(if r == 7 { 0 } else { !0u64 << (8 * (r + 1)) }),
        Color::Black => Bitboard((1u64 << (8 * r)) - 1),
    }
}

/// The files beside `file`.
#[inline(always)]
pub(crate) fn adjacent_files(file: File) -> Bitboard {
    let f = Bitboard::file(file);
    f.west() | f.east()
}

/// All squares a set of `color` pawns attacks.
#[inline(always)]
pub(crate) fn pawn_attack_set(color: Color, pawns: Bitboard) -> Bitboard {
    let ahead = pawns.forward(color);
    ahead.west() | ahead.east()
}

/// The highest square of a non-empty set.
#[inline(always)]
fn msb(bb: Bitboard) -> Square {
    Square::from_index_masked(63 - bb.0.leading_zeros())
}

/// Chebyshev distance between two squares.
#[inline(always)]
pub(crate) fn distance(a: Square, b: Square) -> i32 {
    let df = (a.file() as i32 - b.file() as i32).abs();
    let dr = (a.rank() as i32 - b.rank() as i32).abs();
    df.max(dr)
}

/// Applies weight `index` `n` times for `color`.
#[inline(always)]
fn apply<T: Tracer>(t: &mut T, index: usize, color: Color, n: i32) -> Score {
    t.add(index, color, n);
    W[index] * n
}

/// Computes the pawn entry of `pos` (key left zero), reporting every weight to `t`.
pub fn evaluate_pawns<T: Tracer>(pos: &Position, t: &mut T) -> PawnEntry {
    let mut entry = PawnEntry::default();
    let mut side_scores = [Score::ZERO; 2];
    for us in Color::ALL {
        let (score, passed) = evaluate_side(pos, us, t);
        side_scores[us.index()] = score;
        entry.passed[us.index()] = passed;
    }
    entry.score = side_scores[0] - side_scores[1];
    entry
}

/// One side's pawn structure and king shelter, from its own point of view; and its passed pawns.
fn evaluate_side<T: Tracer>(pos: &Position, us: Color, t: &mut T) -> (Score, Bitboard) {
    let them = !us;
    let own = pos.colored_pieces(us, PieceType::Pawn);
    let enemy = pos.colored_pieces(them, PieceType::Pawn);
    let enemy_attacks = pawn_attack_set(them, enemy);
    let our_king = pos.king(us);
    let their_king = pos.king(them);
    let mut score = Score::ZERO;
    let mut passed = Bitboard::EMPTY;

    for sq in own {
        let rr = sq.rank().relative_to(us).index();
        let file_bb = Bitboard::file(sq.file());
        let adjacent = adjacent_files(sq.file());
        let ahead = ranks_ahead(us, sq);
        let stop = Square::from_index_masked(Bitboard::from_square(sq).forward(us).0.trailing_zeros());

        let doubled = (own & ahead & file_bb).is_nonempty();
        if doubled {
            score += apply(t, idx::DOUBLED, us, 1);
        }
        let isolated = (own & adjacent).is_empty();
        if isolated {
            score += apply(t, idx::ISOLATED, us, 1);
        } else {
            // No friendly pawn beside or behind on the adjacent files can ever defend it, and an
            // enemy pawn guards its stop square.
            let helpers = own & adjacent & !ranks_ahead(us, sq);
            if helpers.is_empty() && enemy_attacks.has(stop) {
                score += apply(t, idx::BACKWARD, us, 1);
            }
        }
        if (pawn_attacks(them, sq) & own).is_nonempty() {
            score += apply(t, idx::SUPPORTED + rr, us, 1);
        }
        let sq_bb = Bitboard::from_square(sq);
        if ((sq_bb.west() | sq_bb.east()) & own).is_nonempty() {
            score += apply(t, idx::PHALANX + rr, us, 1);
        }
        if !doubled && (enemy & ahead & (file_bb | adjacent)).is_empty() {
            passed |= sq;
            score += apply(t, idx::PASSED + rr, us, 1);
            // Each king's distance to the stop square, weighted by how far the pawn is.
            score += apply(t, idx::PASSED_OWN_KING + rr, us, distance(our_king, stop));
            score += apply(t, idx::PASSED_THEIR_KING + rr, us, distance(their_king, stop));
        }
    }

    // No pawn at all on the king's side of the board (files a-d, c-f or e-h).
    let flank = match our_king.file().index() {
        0..=2 => 0x0F0F_0F0F_0F0F_0F0Fu64,
        3..=4 => 0x3C3C_3C3C_3C3C_3C3Cu64,
        _ => 0xF0F0_F0F0_F0F0_F0F0u64,
    };
    if ((own | enemy) & Bitboard(flank)).is_empty() {
        score += apply(t, idx::PAWNLESS_FLANK, us, 1);
    }

    // Space: central squares (files c-f) on our ranks 2-4 that no enemy pawn attacks and no pawn
    // of ours stands on; those behind one of our pawns count twice.
    let ranks = match us {
        Color::White => 0x0000_0000_3C3C_3C00u64,
        Color::Black => 0x003C_3C3C_0000_0000u64,
    };
    let space = Bitboard(ranks) & !own & !enemy_attacks;
    let mut behind = own.backward(us);
    behind = behind | behind.backward(us);
    behind = behind | behind.backward(us);
    let n = (space.count() + (space & behind).count()) as i32;
    if n != 0 {
        score += apply(t, idx::SPACE, us, n);
    }

    // No pawn of ours on the king's own file: half-open (0) or fully open (1).
    let king_file = Bitboard::file(our_king.file());
    if (own & king_file).is_empty() {
        let open = usize::from((enemy & king_file).is_empty());
        score += apply(t, idx::KING_OPEN_FILE + open, us, 1);
    }

    // Shelter and storm on the king's file and its neighbours (kept inside b..g).
    let kf = our_king.file().index().clamp(1, 6);
    let king_rank_and_ahead = ranks_ahead(us, our_king) | Bitboard::rank(our_king.rank());
    for f in kf - 1..=kf + 1 {
        let file_bb = Bitboard::file(File::ALL[f]);
        let shield = own & file_bb & king_rank_and_ahead;
        let shield_rank = if shield.is_empty() {
            0
        } else {
            let nearest = if us == Color::White { shield.lsb() } else { msb(shield) };
            nearest.rank().relative_to(us).index()
        };
        score += apply(t, idx::KING_SHIELD + shield_rank, us, 1);
        let storm = enemy & file_bb;
        if storm.is_nonempty() {
            let nearest = if us == Color::White { storm.lsb() } else { msb(storm) };
            let storm_rank = nearest.rank().relative_to(us).index();
            score += apply(t, idx::KING_STORM + storm_rank, us, 1);
        }
    }
    (score, passed)
}
