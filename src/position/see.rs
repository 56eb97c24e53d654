//! Static exchange evaluation: the material balance of the capture sequence on one square, each
//! side always recapturing with its least valuable attacker and free to stop.
//!
//! Sliders behind the pieces that leave the square join in (x-rays: attackers are recomputed on
//! the shrinking occupancy). Pins are ignored, as usual; the king captures last and only when the
//! square is no longer defended.

use super::Position;
use crate::tables::{bishop_attacks, rook_attacks};
use crate::types::{Bitboard, Color, Move, PieceType};

/// Piece values for exchange evaluation (centipawns); the king is priceless.
pub const SEE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

impl Position {
    /// Whether the exchange started by `m` wins at least `threshold` centipawns for the mover.
    pub fn see_ge(&self, m: Move, threshold: i32) -> bool {
        if m.is_castle() {
            return threshold <= 0;
        }
        let (from, to) = (m.from(), m.to());
        let mut gain = if m.is_en_passant() {
            SEE_VALUES[PieceType::Pawn.index()]
        } else if self.occupied().has(to) {
            SEE_VALUES[self.piece_type_on(to).index()]
        } else {
            0
        };
        let mut next_victim = self.piece_type_on(from);
        if let Some(promoted) = m.promotion() {
            gain += SEE_VALUES[promoted.index()] - SEE_VALUES[PieceType::Pawn.index()];
            next_victim = promoted;
        }
        // The mover's balance if the opponent does not recapture.
        let mut balance = gain - threshold;
        if balance < 0 {
            return false;
        }
        // ... and if the opponent takes the moved piece for nothing.
        balance -= SEE_VALUES[next_victim.index()];
        if balance >= 0 {
            return true;
        }

        let mut occupied = self.occupied() ^ from | to;
        if m.is_en_passant() {
            occupied ^= Bitboard::from_square(to).backward(self.side_to_move());
        }
        let queens = self.pieces(PieceType::Queen);
        let diag = self.pieces(PieceType::Bishop) | queens;
        let orth = self.pieces(PieceType::Rook) | queens;
        let mut attackers = self.attackers_to(to, occupied) & occupied;
        let mut side: Color = !self.side_to_move();

        loop {
            let mine = attackers & self.colored(side);
            if mine.is_empty() {
                break;
            }
            // The least valuable attacker.
            let Some(pt) = PieceType::ALL.into_iter().find(|&pt| (mine & self.pieces(pt)).is_nonempty()) else {
                break;
            };
            let sq = (mine & self.pieces(pt)).lsb();
            side = !side;
            // Negamax: the side now to recapture must do better than the current balance.
            balance = -balance - 1 - SEE_VALUES[pt.index()];
            if balance >= 0 {
                // A king may only take if the opponent has nothing left on the square.
                if pt == PieceType::King && (attackers & self.colored(side)).is_nonempty() {
                    side = !side;
                }
                break;
            }
            occupied ^= sq;
            if matches!(pt, PieceType::Pawn | PieceType::Bishop | PieceType::Queen) {
                attackers |= bishop_attacks(to, occupied) & diag;
            }
            if matches!(pt, PieceType::Rook | PieceType::Queen) {
                attackers |= rook_attacks(to, occupied) & orth;
            }
            attackers &= occupied;
        }
        // The side that ran out of good captures (or stopped) loses the exchange.
        side != self.side_to_move()
    }
}

#[cfg(test)]
mod tests {
    use crate::position::Position;

    fn see(fen: &str, mv: &str, threshold: i32) -> bool {
        let pos = Position::from_fen(fen).unwrap();
        let m = pos.parse_uci_move(mv).unwrap();
        pos.see_ge(m, threshold)
    }

    #[test]
    fn exchanges() {
        // Rook takes an undefended pawn: +100.
        let fen = "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1";
        assert!(see(fen, "e1e5", 100));
        assert!(!see(fen, "e1e5", 101));
        // Knight takes a pawn defended by a pawn: 100 - 320.
        let fen = "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1";
        assert!(see(fen, "d3e5", -220));
        assert!(!see(fen, "d3e5", -219));
        // Pawn takes a defended knight: +320 - 100 at worst, so at least +220.
        let fen = "4k3/8/3p4/4n3/3P4/8/8/4K3 w - - 0 1";
        assert!(see(fen, "d4e5", 220));
        // Queen takes a pawn defended by a rook behind a rook (x-ray): loses the queen.
        let fen = "3r2k1/3r4/8/3p4/8/8/3Q4/3R2K1 w - - 0 1";
        assert!(!see(fen, "d2d5", 0));
        // Rook takes, backed by the queen behind it (x-ray): pawn wins, rook traded for rook.
        let fen = "3r2k1/8/8/3p4/8/8/3R4/3Q2K1 w - - 0 1";
        assert!(see(fen, "d2d5", 0));
        // Quiet move onto a square attacked by a pawn loses the piece.
        let fen = "4k3/8/4p3/8/8/2N5/8/4K3 w - - 0 1";
        assert!(!see(fen, "c3d5", 0));
        assert!(see(fen, "c3d5", -320));
        // En passant is an even pawn trade here.
        let fen = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1";
        assert!(see(fen, "e5d6", 100));
        // A rook taking a pawn the king defends loses 400 ...
        let fen = "4k3/4p3/8/8/8/8/8/4RK2 w - - 0 1";
        assert!(!see(fen, "e1e7", 0));
        assert!(see(fen, "e1e7", -400));
        // ... but with a second rook behind it the king cannot recapture.
        let fen = "4k3/4p3/8/8/8/8/4R3/4RK2 w - - 0 1";
        assert!(see(fen, "e2e7", 100));
    }
}
