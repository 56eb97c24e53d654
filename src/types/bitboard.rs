//! A set of squares in one `u64`: bit `i` is square `i` (a1 = bit 0).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use super::{Color, File, Rank, Square};

/// A set of squares.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);

    /// The squares of a file.
    #[inline(always)]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << file as u32)
    }

    /// The squares of a rank.
    #[inline(always)]
    pub const fn rank(rank: Rank) -> Bitboard {
        Bitboard(0xFF << (8 * rank as u32))
    }

    /// The single-square set.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq as u32)
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn is_nonempty(self) -> bool {
        self.0 != 0
    }

    #[inline(always)]
    pub const fn has(self, sq: Square) -> bool {
        self.0 >> sq as u32 & 1 != 0
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// More than one square in the set.
    #[inline(always)]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The lowest square, if any.
    #[inline(always)]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_masked(self.0.trailing_zeros()))
        }
    }

    /// The lowest square of a set known to be non-empty (a1 for an empty set).
    #[inline(always)]
    pub const fn lsb(self) -> Square {
        Square::from_index_masked(self.0.trailing_zeros())
    }

    /// The set shifted one rank towards the opponent of `color` ("forward" for `color`).
    #[inline(always)]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }

    /// The set shifted one rank backwards for `color`.
    #[inline(always)]
    pub const fn backward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 >> 8),
            Color::Black => Bitboard(self.0 << 8),
        }
    }

    /// Shifted one file towards the a-file (squares on the a-file drop off).
    #[inline(always)]
    pub const fn west(self) -> Bitboard {
        Bitboard((self.0 >> 1) & !0x8080_8080_8080_8080)
    }

    /// Shifted one file towards the h-file (squares on the h-file drop off).
    #[inline(always)]
    pub const fn east(self) -> Bitboard {
        Bitboard((self.0 << 1) & !0x0101_0101_0101_0101)
    }
}

/// Iterates the squares from a1 upwards.
impl Iterator for Bitboard {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tr<Square> for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Square) -> Bitboard {
                Bitboard(self.0 $op (1u64 << rhs as u32))
            }
        }
        impl $tra for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
        impl $tra<Square> for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Square) {
                self.0 = self.0 $op (1u64 << rhs as u32);
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;

    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard(0x{:016X})", self.0)?;
        for rank in Rank::ALL.iter().rev() {
            for file in File::ALL {
                let c = if self.has(Square::from_file_rank(file, *rank)) { 'X' } else { '.' };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iteration_and_shifts() {
        let bb = Bitboard::from_square(Square::A1) | Square::H8 | Square::E4;
        assert_eq!(bb.collect::<Vec<_>>(), vec![Square::A1, Square::E4, Square::H8]);
        assert_eq!(bb.count(), 3);
        assert!(bb.more_than_one());
        assert!(!Bitboard::from_square(Square::C3).more_than_one());
        assert_eq!(Bitboard::from_square(Square::A4).west(), Bitboard::EMPTY);
        assert_eq!(Bitboard::from_square(Square::H4).east(), Bitboard::EMPTY);
        assert_eq!(Bitboard::from_square(Square::D4).east(), Bitboard::from_square(Square::E4));
        assert_eq!(Bitboard::from_square(Square::D4).forward(Color::Black), Bitboard::from_square(Square::D3));
        assert_eq!(Bitboard::file(File::C).count(), 8);
        assert!(Bitboard::rank(Rank::Eighth).has(Square::G8));
    }
}
