//! Standard algebraic notation (SAN) output, for EPD test suites (`bm`/`am` fields) and people.

use super::Position;
use crate::types::{CastleSide, Move, PieceType};

impl Position {
    /// `m` (legal here) in SAN: `Nf3`, `exd5`, `Raxd1`, `e8=Q+`, `O-O`, `Qh7#`.
    pub fn to_san(&self, m: Move) -> String {
        let mut san = String::with_capacity(8);
        if m.is_castle() {
            san.push_str(if m.castle_side() == CastleSide::King { "O-O" } else { "O-O-O" });
        } else {
            let piece = self.piece_type_on(m.from());
            if piece == PieceType::Pawn {
                if m.is_capture() {
                    san.push(m.from().file().to_char());
                }
            } else {
                san.push(piece.to_char().to_ascii_uppercase());
                // Disambiguate among the same piece type reaching the same square.
                let rivals: Vec<Move> = self
                    .legal_moves()
                    .into_iter()
                    .filter(|o| {
                        o.to() == m.to()
                            && o.from() != m.from()
                            && !o.is_castle()
                            && self.piece_type_on(o.from()) == piece
                    })
                    .collect();
                if !rivals.is_empty() {
                    let same_file = rivals.iter().any(|o| o.from().file() == m.from().file());
                    let same_rank = rivals.iter().any(|o| o.from().rank() == m.from().rank());
                    if !same_file {
                        san.push(m.from().file().to_char());
                    } else if !same_rank {
                        san.push(m.from().rank().to_char());
                    } else {
                        san.push_str(&m.from().to_string());
                    }
                }
            }
            if m.is_capture() {
                san.push('x');
            }
            san.push_str(&m.to().to_string());
            if let Some(p) = m.promotion() {
                san.push('=');
                san.push(p.to_char().to_ascii_uppercase());
            }
        }
        let after = self.make_move(m);
        if after.in_check() {
            san.push(if after.has_legal_move() { '+' } else { '#' });
        }
        san
    }
}

#[cfg(test)]
mod tests {
    use crate::position::Position;

    fn san(fen: &str, uci: &str) -> String {
        let pos = Position::from_fen(fen).unwrap();
        pos.to_san(pos.parse_uci_move(uci).unwrap())
    }

    #[test]
    fn notation() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(san(start, "g1f3"), "Nf3");
        assert_eq!(san(start, "e2e4"), "e4");
        assert_eq!(san("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5"), "exd5");
        assert_eq!(san("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"), "O-O");
        assert_eq!(san("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"), "O-O-O");
        assert_eq!(san("3k4/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"), "a8=Q+");
        assert_eq!(san("1k6/8/1K6/8/8/8/8/7R w - - 0 1", "h1h8"), "Rh8#");
        // Disambiguation by file, by rank, and by both.
        assert_eq!(san("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "a1d1"), "Rad1");
        assert_eq!(san("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3"), "R1a3");
        assert_eq!(san("k7/8/8/8/8/2Q1Q3/8/2Q1K3 w - - 0 1", "c3d2"), "Qc3d2");
    }
}
