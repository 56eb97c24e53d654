//! Standard algebraic notation (SAN): output for EPD test suites (`bm`/`am` fields), PGN and
//! people, and a forgiving reader for what people and PGN files write.

use super::{MoveParseError, Position};
use crate::types::{CastleSide, File, Move, PieceType, Rank, Square};

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

impl Position {
    /// The legal move written `text` in SAN (`Nf3`, `exd5`, `O-O`, `e8=Q`), forgiving what can
    /// be forgiven without doubt: check and annotation marks, a missing or extra `x`, `0-0` for
    /// `O-O`, `e8Q` for `e8=Q`, lower-case piece letters (`nf3`; `b` is a pawn's file first, a
    /// bishop if no pawn move fits), a needless disambiguation (`Ngf3`), and UCI coordinates
    /// (`g1f3`). A text that fits two legal moves is ambiguous, not guessed.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveParseError> {
        let malformed = || MoveParseError::Malformed(text.to_string());
        let mut s: String = text.trim().trim_end_matches(['+', '#', '!', '?']).to_string();
        if let Some(stripped) = s.strip_suffix("e.p.").or_else(|| s.strip_suffix("ep")) {
            s = stripped.trim_end().to_string();
        }
        let castle = match s.as_str() {
            "O-O" | "0-0" | "o-o" => Some(CastleSide::King),
            "O-O-O" | "0-0-0" | "o-o-o" => Some(CastleSide::Queen),
            _ => None,
        };
        let legal = self.legal_moves();
        if let Some(side) = castle {
            return legal
                .into_iter()
                .find(|m| m.is_castle() && m.castle_side() == side)
                .ok_or_else(|| MoveParseError::Illegal(text.to_string()));
        }
        if let Ok(m) = self.parse_uci_move(&s) {
            return Ok(m);
        }
        let s: Vec<char> = s.chars().filter(|c| !matches!(c, 'x' | 'X' | ':' | '-' | '=')).collect();
        // A promotion piece after the destination square.
        let (s, promotion) = match s.as_slice() {
            [rest @ .., rank, p] if rank.is_ascii_digit() && "QRBNqrbn".contains(*p) => {
                let mut body = rest.to_vec();
                body.push(*rank);
                (body, PieceType::from_char(p.to_ascii_lowercase()))
            }
            _ => (s, None),
        };
        let [hints @ .., file, rank] = s.as_slice() else { return Err(malformed()) };
        let to: Square = format!("{file}{rank}").parse().map_err(|_| malformed())?;
        // The piece letter, if any, then the disambiguation (a file, a rank, or both).
        let readings: Vec<(PieceType, &[char])> = match hints {
            [p, rest @ ..] if "KQRBN".contains(*p) => {
                vec![(PieceType::from_char(p.to_ascii_lowercase()).unwrap(), rest)]
            }
            ['b', rest @ ..] => vec![(PieceType::Pawn, hints), (PieceType::Bishop, rest)],
            [p, rest @ ..] if "kqrn".contains(*p) => vec![(PieceType::from_char(*p).unwrap(), rest)],
            _ => vec![(PieceType::Pawn, hints)],
        };
        for (piece, hints) in readings {
            let (mut file_hint, mut rank_hint) = (None, None);
            for &c in hints {
                match c {
                    'a'..='h' if file_hint.is_none() => file_hint = File::ALL.get(c as usize - 'a' as usize).copied(),
                    '1'..='8' if rank_hint.is_none() => rank_hint = Rank::ALL.get(c as usize - '1' as usize).copied(),
                    _ => return Err(malformed()),
                }
            }
            let fits: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|m| {
                    !m.is_castle()
                        && m.to() == to
                        && self.piece_type_on(m.from()) == piece
                        && m.promotion() == promotion
                        && file_hint.map_or(true, |f| m.from().file() == f)
                        && rank_hint.map_or(true, |r| m.from().rank() == r)
                })
                .collect();
            match fits.as_slice() {
                [] => continue,
                [m] => return Ok(*m),
                _ => return Err(MoveParseError::Ambiguous(text.to_string())),
            }
        }
        Err(MoveParseError::Illegal(text.to_string()))
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
