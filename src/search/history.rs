//! Move-ordering memory of one search thread: two killer moves per ply and a butterfly history
//! of quiet moves, kept across `go` commands until `ucinewgame`.
//!
//! One update rule: the quiet move that caused a beta cut-off gets a bonus, every quiet tried
//! before it the same amount as a malus, and both go through the "gravity" formula
//! `h += b - h * |b| / MAX`, which keeps values inside `±MAX` without clamping.

use crate::tt::MAX_PLY;
use crate::types::{Color, Move};

/// History values stay within `±MAX_HISTORY`.
pub const MAX_HISTORY: i32 = 16_384;

/// Killers and history of one thread.
pub struct History {
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    butterfly: [[[i16; 64]; 64]; 2],
}

impl Default for History {
    fn default() -> History {
        History { killers: [[None; 2]; MAX_PLY + 2], butterfly: [[[0; 64]; 64]; 2] }
    }
}

impl History {
    /// The two killers of `ply`.
    #[inline]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply.min(MAX_PLY + 1)]
    }

    /// Clears the killers of the ply below (each new node starts with fresh children).
    #[inline]
    pub fn clear_killers(&mut self, ply: usize) {
        if ply < MAX_PLY + 2 {
            self.killers[ply] = [None; 2];
        }
    }

    /// The history score of a quiet move of `side`.
    #[inline]
    pub fn quiet(&self, side: Color, m: Move) -> i32 {
        self.butterfly[side.index()][m.from().index()][m.to().index()] as i32
    }

    /// The bonus for a cut-off at `depth`.
    #[inline]
    pub fn bonus(depth: i32) -> i32 {
        (170 * depth - 120).clamp(0, 1600)
    }

    fn gravity(entry: &mut i16, bonus: i32) {
        let h = *entry as i32;
        *entry = (h + bonus - h * bonus.abs() / MAX_HISTORY) as i16;
    }

    /// Records a quiet cut-off: `best` is rewarded, the `tried` quiets before it are punished.
    pub fn update_quiets(&mut self, side: Color, ply: usize, depth: i32, best: Move, tried: &[Move]) {
        let bonus = Self::bonus(depth);
        let s = side.index();
        Self::gravity(&mut self.butterfly[s][best.from().index()][best.to().index()], bonus);
        for m in tried {
            Self::gravity(&mut self.butterfly[s][m.from().index()][m.to().index()], -bonus);
        }
        let k = &mut self.killers[ply.min(MAX_PLY + 1)];
        if k[0] != Some(best) {
            k[1] = k[0];
            k[0] = Some(best);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{MoveKind, Square};

    #[test]
    fn bounded_updates_and_killers() {
        let mut h = Box::<History>::default();
        let good = Move::new(Square::G1, Square::F3, MoveKind::Quiet);
        let bad = Move::new(Square::B1, Square::A3, MoveKind::Quiet);
        for _ in 0..1000 {
            h.update_quiets(Color::White, 3, 20, good, &[bad]);
        }
        assert!(h.quiet(Color::White, good) > 0 && h.quiet(Color::White, good) <= MAX_HISTORY);
        assert!(h.quiet(Color::White, bad) < 0 && h.quiet(Color::White, bad) >= -MAX_HISTORY);
        assert_eq!(h.quiet(Color::Black, good), 0);
        assert_eq!(h.killers(3), [Some(good), None]);
        h.update_quiets(Color::White, 3, 2, bad, &[]);
        assert_eq!(h.killers(3), [Some(bad), Some(good)]);
    }
}
