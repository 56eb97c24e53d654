//! A move in 16 bits.
//!
//! ```text
//!  15..12  11..6  5..0
//!  kind    to     from
//! ```
//!
//! Castling is stored as "king takes own rook" (`to` is the rook's square), which is unambiguous in
//! Chess960 as well as in standard chess; [`Move::to_uci`] prints the standard `e1g1` form unless
//! Chess960 output is asked for. The all-zero pattern (a1a1, quiet) is never a move, so a move is a
//! `NonZeroU16` and `Option<Move>` costs nothing extra.

use std::fmt;
use std::num::NonZeroU16;

use static_assertions::const_assert_eq;

use super::{CastleSide, File, PieceType, Rank, Square};

/// What a move does besides moving a piece from `from` to `to`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum MoveKind {
    Quiet = 0,
    DoublePush = 1,
    Castle = 2,
    EnPassant = 3,
    Capture = 4,
    PromoteKnight = 8,
    PromoteBishop = 9,
    PromoteRook = 10,
    PromoteQueen = 11,
    CapturePromoteKnight = 12,
    CapturePromoteBishop = 13,
    CapturePromoteRook = 14,
    CapturePromoteQueen = 15,
}

impl MoveKind {
    /// Decoding table for the four kind bits; `None` for the unused codes 5 to 7.
    const DECODE: [Option<MoveKind>; 16] = [
        Some(MoveKind::Quiet),
        Some(MoveKind::DoublePush),
        Some(MoveKind::Castle),
        Some(MoveKind::EnPassant),
        Some(MoveKind::Capture),
        None,
        None,
        None,
        Some(MoveKind::PromoteKnight),
        Some(MoveKind::PromoteBishop),
        Some(MoveKind::PromoteRook),
        Some(MoveKind::PromoteQueen),
        Some(MoveKind::CapturePromoteKnight),
        Some(MoveKind::CapturePromoteBishop),
        Some(MoveKind::CapturePromoteRook),
        Some(MoveKind::CapturePromoteQueen),
    ];

    /// The promotion kind for a piece type (`capture` selects the capturing variant).
    #[inline(always)]
    pub const fn promotion(piece: PieceType, capture: bool) -> MoveKind {
        let base = match piece {
            PieceType::Knight => 8,
            PieceType::Bishop => 9,
            PieceType::Rook => 10,
            _ => 11,
        };
        match Self::DECODE[base + if capture { 4 } else { 0 }] {
            Some(kind) => kind,
            None => MoveKind::Quiet,
        }
    }
}

/// A move: from-square, to-square and kind, in 16 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Move(NonZeroU16);

const_assert_eq!(std::mem::size_of::<Move>(), 2);
const_assert_eq!(std::mem::size_of::<Option<Move>>(), 2);

impl Move {
    /// Builds a move. A move from a square to itself is never built by the generator; this
    /// constructor maps the single all-zero pattern to a harmless non-zero one so it stays total.
    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        let bits = from as u16 | (to as u16) << 6 | (kind as u16) << 12;
        match NonZeroU16::new(bits) {
            Some(nz) => Move(nz),
            // a1a1 quiet: encode as a1a1 double push, equally never legal.
            None => Move(NonZeroU16::MIN.saturating_add(1 << 12)),
        }
    }

    /// The move from its 16-bit encoding, if the pattern is a valid one.
    pub const fn from_raw(bits: u16) -> Option<Move> {
        if MoveKind::DECODE[(bits >> 12) as usize].is_none() {
            return None;
        }
        match NonZeroU16::new(bits) {
            Some(nz) => Some(Move(nz)),
            None => None,
        }
    }

    /// The 16-bit encoding.
    #[inline(always)]
    pub const fn raw(self) -> u16 {
        self.0.get()
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index_masked(self.0.get() as u32)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index_masked((self.0.get() >> 6) as u32)
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match MoveKind::DECODE[(self.0.get() >> 12) as usize] {
            Some(kind) => kind,
            None => MoveKind::Quiet,
        }
    }

    /// Captures, en passant included.
    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        let k = self.0.get() >> 12;
        k == MoveKind::Capture as u16 || k == MoveKind::EnPassant as u16 || k >= 12
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0.get() >> 15 != 0
    }

    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.0.get() >> 12 == MoveKind::Castle as u16
    }

    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.0.get() >> 12 == MoveKind::EnPassant as u16
    }

    /// The piece a promotion makes.
    #[inline(always)]
    pub const fn promotion(self) -> Option<PieceType> {
        if !self.is_promotion() {
            return None;
        }
        Some(match (self.0.get() >> 12) & 3 {
            0 => PieceType::Knight,
            1 => PieceType::Bishop,
            2 => PieceType::Rook,
            _ => PieceType::Queen,
        })
    }

    /// For a castling move, the side (the rook's file against the king's).
    #[inline]
    pub const fn castle_side(self) -> CastleSide {
        if (self.to() as u8 & 7) > (self.from() as u8 & 7) {
            CastleSide::King
        } else {
            CastleSide::Queen
        }
    }

    /// The king's destination for a castling move: g- or c-file of its rank.
    #[inline]
    pub const fn castle_king_to(self) -> Square {
        castling_destinations(self.castle_side(), self.from().rank()).0
    }

    /// The rook's destination for a castling move: f- or d-file of its rank.
    #[inline]
    pub const fn castle_rook_to(self) -> Square {
        castling_destinations(self.castle_side(), self.from().rank()).1
    }

    /// Long algebraic UCI notation. Castling is `e1g1` unless `chess960`, then king-takes-rook.
    pub fn to_uci(self, chess960: bool) -> UciMove {
        UciMove { mv: self, chess960 }
    }
}

/// Where king and rook stand after castling on `side` on `rank` (the same in Chess960): the
/// king on the g- or c-file, the rook on the f- or d-file.
#[inline]
pub const fn castling_destinations(side: CastleSide, rank: Rank) -> (Square, Square) {
    let (king, rook) = match side {
        CastleSide::King => (File::G, File::F),
        CastleSide::Queen => (File::C, File::D),
    };
    (Square::from_file_rank(king, rank), Square::from_file_rank(rook, rank))
}

/// Display adapter for [`Move::to_uci`].
#[derive(Clone, Copy)]
pub struct UciMove {
    mv: Move,
    chess960: bool,
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.mv;
        let to = if m.is_castle() && !self.chess960 { m.castle_king_to() } else { m.to() };
        write!(f, "{}{}", m.from(), to)?;
        if let Some(p) = m.promotion() {
            write!(f, "{}", p.to_char())?;
        }
        Ok(())
    }
}

impl fmt::Display for Move {
    /// UCI notation with king-takes-rook castling (the internal form).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_uci(true).fmt(f)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({:?})", self, self.kind())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        let kinds = MoveKind::DECODE.iter().flatten().copied().collect::<Vec<_>>();
        assert_eq!(kinds.len(), 13);
        for from in Square::ALL {
            for to in Square::ALL {
                for &kind in &kinds {
                    if from == to {
                        continue;
                    }
                    let m = Move::new(from, to, kind);
                    assert_eq!((m.from(), m.to(), m.kind()), (from, to, kind));
                    assert_eq!(Move::from_raw(m.raw()), Some(m));
                    let promo = matches!(kind as u8, 8..=15);
                    assert_eq!(m.is_promotion(), promo);
                    assert_eq!(m.is_capture(), matches!(kind as u8, 3 | 4 | 12..=15));
                }
            }
        }
        assert_eq!(Move::from_raw(0), None);
        assert_eq!(Move::from_raw(5 << 12 | 9), None);
    }

    #[test]
    fn uci_text() {
        let castle = Move::new(Square::E1, Square::H1, MoveKind::Castle);
        assert_eq!(castle.to_uci(false).to_string(), "e1g1");
        assert_eq!(castle.to_uci(true).to_string(), "e1h1");
        let long = Move::new(Square::E8, Square::A8, MoveKind::Castle);
        assert_eq!(long.to_uci(false).to_string(), "e8c8");
        let promo = Move::new(Square::B7, Square::A8, MoveKind::promotion(PieceType::Knight, true));
        assert_eq!(promo.to_string(), "b7a8n");
        assert_eq!(promo.promotion(), Some(PieceType::Knight));
    }
}
