//! Colours, piece types, coloured pieces and castling sides.

use std::ops::Not;

/// The side a piece belongs to, or the side to move.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The FEN letter, `w` or `b`.
    pub const fn to_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl Not for Color {
    type Output = Color;

    #[inline(always)]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// A kind of piece, without colour.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum PieceType {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl PieceType {
    pub const ALL: [PieceType; 6] =
        [PieceType::Pawn, PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen, PieceType::King];

    /// The pieces a pawn may promote to, strongest first.
    pub const PROMOTIONS: [PieceType; 4] = [PieceType::Queen, PieceType::Rook, PieceType::Bishop, PieceType::Knight];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The piece type with index `index % 6`.
    #[inline(always)]
    pub const fn from_index_wrapping(index: u8) -> PieceType {
        // SAFETY: `PieceType` is `repr(u8)` with exactly the discriminants 0..=5.
        unsafe { std::mem::transmute::<u8, PieceType>(index % 6) }
    }

    /// The lower-case letter (`p n b r q k`).
    pub const fn to_char(self) -> char {
        match self {
            PieceType::Pawn => 'p',
            PieceType::Knight => 'n',
            PieceType::Bishop => 'b',
            PieceType::Rook => 'r',
            PieceType::Queen => 'q',
            PieceType::King => 'k',
        }
    }

    /// The piece type from its letter, either case.
    pub fn from_char(c: char) -> Option<PieceType> {
        Some(match c.to_ascii_lowercase() {
            'p' => PieceType::Pawn,
            'n' => PieceType::Knight,
            'b' => PieceType::Bishop,
            'r' => PieceType::Rook,
            'q' => PieceType::Queen,
            'k' => PieceType::King,
            _ => return None,
        })
    }
}

/// A piece of a colour. The index is `color * 6 + piece_type`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Piece {
    WhitePawn,
    WhiteKnight,
    WhiteBishop,
    WhiteRook,
    WhiteQueen,
    WhiteKing,
    BlackPawn,
    BlackKnight,
    BlackBishop,
    BlackRook,
    BlackQueen,
    BlackKing,
}

impl Piece {
    #[rustfmt::skip]
    pub const ALL: [Piece; 12] = [
        Piece::WhitePawn, Piece::WhiteKnight, Piece::WhiteBishop, Piece::WhiteRook, Piece::WhiteQueen, Piece::WhiteKing,
        Piece::BlackPawn, Piece::BlackKnight, Piece::BlackBishop, Piece::BlackRook, Piece::BlackQueen, Piece::BlackKing,
    ];

    #[inline(always)]
    pub const fn new(color: Color, piece_type: PieceType) -> Piece {
        // SAFETY: `Piece` is `repr(u8)` with exactly the discriminants 0..=11; `color` is 0 or 1
        // and `piece_type` 0..=5, so `color * 6 + piece_type` is one of them.
        unsafe { std::mem::transmute::<u8, Piece>(color as u8 * 6 + piece_type as u8) }
    }

    #[inline(always)]
    pub const fn color(self) -> Color {
        if (self as u8) < 6 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline(always)]
    pub const fn piece_type(self) -> PieceType {
        PieceType::from_index_wrapping(self as u8)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The FEN letter: upper case for White.
    pub const fn to_char(self) -> char {
        let c = self.piece_type().to_char();
        match self.color() {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// The piece from its FEN letter.
    pub fn from_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        PieceType::from_char(c).map(|pt| Piece::new(color, pt))
    }
}

/// The two castling sides. In Chess960 "king side" is the side of the h-file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum CastleSide {
    King,
    Queen,
}

impl CastleSide {
    pub const ALL: [CastleSide; 2] = [CastleSide::King, CastleSide::Queen];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_round_trip() {
        for p in Piece::ALL {
            assert_eq!(Piece::new(p.color(), p.piece_type()), p);
            assert_eq!(Piece::from_char(p.to_char()), Some(p));
        }
        assert_eq!(Piece::from_char('x'), None);
        assert_eq!(std::mem::size_of::<Option<Piece>>(), 1);
    }
}
