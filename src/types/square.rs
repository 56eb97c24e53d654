//! Squares (a1 = 0 ... h8 = 63), files and ranks.

use std::fmt;
use std::str::FromStr;

use super::Color;

macro_rules! squares {
    ($($name:ident),* $(,)?) => {
        /// A square of the board, `A1 = 0`, `B1 = 1`, ..., `H8 = 63`.
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        #[repr(u8)]
        #[rustfmt::skip]
        pub enum Square { $($name),* }

        impl Square {
            /// Every square in index order.
            #[rustfmt::skip]
            pub const ALL: [Square; 64] = [$(Square::$name),*];
        }
    };
}

squares!(
    A1, B1, C1, D1, E1, F1, G1, H1, A2, B2, C2, D2, E2, F2, G2, H2, A3, B3, C3, D3, E3, F3, G3, H3, A4, B4, C4, D4, E4,
    F4, G4, H4, A5, B5, C5, D5, E5, F5, G5, H5, A6, B6, C6, D6, E6, F6, G6, H6, A7, B7, C7, D7, E7, F7, G7, H7, A8, B8,
    C8, D8, E8, F8, G8, H8,
);

/// A file, `A` to `H`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum File {
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

/// A rank, `First` to `Eighth` (from White's side).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Rank {
    First,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl File {
    /// All files, a to h.
    pub const ALL: [File; 8] = [File::A, File::B, File::C, File::D, File::E, File::F, File::G, File::H];

    /// The file with this index (0 = a), if it is below 8.
    #[inline]
    pub const fn new(index: u8) -> Option<File> {
        if index < 8 {
            Some(File::ALL[index as usize])
        } else {
            None
        }
    }

    /// The file from its letter, `a`..`h` (either case).
    pub fn from_char(c: char) -> Option<File> {
        let c = c.to_ascii_lowercase();
        ('a'..='h').contains(&c).then(|| File::ALL[(c as u8 - b'a') as usize])
    }

    /// The lower-case letter of this file.
    #[inline]
    pub const fn to_char(self) -> char {
        (b'a' + self as u8) as char
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl Rank {
    /// All ranks, first to eighth.
    pub const ALL: [Rank; 8] =
        [Rank::First, Rank::Second, Rank::Third, Rank::Fourth, Rank::Fifth, Rank::Sixth, Rank::Seventh, Rank::Eighth];

    /// The rank with this index (0 = first), if it is below 8.
    #[inline]
    pub const fn new(index: u8) -> Option<Rank> {
        if index < 8 {
            Some(Rank::ALL[index as usize])
        } else {
            None
        }
    }

    /// The rank from its digit, `1`..`8`.
    pub fn from_char(c: char) -> Option<Rank> {
        ('1'..='8').contains(&c).then(|| Rank::ALL[(c as u8 - b'1') as usize])
    }

    #[inline]
    pub const fn to_char(self) -> char {
        (b'1' + self as u8) as char
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// This rank as seen by `color` (White's third rank is Black's sixth).
    #[inline]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::ALL[7 - self as usize],
        }
    }
}

impl Square {
    /// The square with this index, if it is below 64.
    #[inline]
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square::ALL[index as usize])
        } else {
            None
        }
    }

    /// The square with index `index & 63`: total, for indices known to be in range.
    #[inline(always)]
    pub const fn from_index_masked(index: u32) -> Square {
        // SAFETY: `Square` is `repr(u8)` with exactly the discriminants 0..=63, and `index & 63`
        // is one of them. (Indexing `ALL` instead left a table load in the hot loops.)
        unsafe { std::mem::transmute::<u8, Square>((index & 63) as u8) }
    }

    #[inline(always)]
    pub const fn from_file_rank(file: File, rank: Rank) -> Square {
        Square::ALL[rank as usize * 8 + file as usize]
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn file(self) -> File {
        File::ALL[self as usize & 7]
    }

    #[inline(always)]
    pub const fn rank(self) -> Rank {
        Rank::ALL[self as usize >> 3]
    }

    /// The square mirrored vertically (a1 <-> a8) when `color` is Black; unchanged for White.
    #[inline(always)]
    pub const fn relative_to(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => Square::ALL[self as usize ^ 56],
        }
    }

    /// The square `delta` indices away, if it stays on the board (no file wrap check).
    #[inline(always)]
    pub const fn offset(self, delta: i8) -> Option<Square> {
        let i = self as i16 + delta as i16;
        if i >= 0 && i < 64 {
            Some(Square::ALL[i as usize])
        } else {
            None
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().to_char(), self.rank().to_char())
    }
}

/// A string that is not a square name such as `e4`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next().and_then(File::from_char), chars.next().and_then(Rank::from_char), chars.next()) {
            (Some(file), Some(rank), None) if s.as_bytes()[0].is_ascii_lowercase() => {
                Ok(Square::from_file_rank(file, rank))
            }
            _ => Err(ParseSquareError),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(Square::from_file_rank(sq.file(), sq.rank()), sq);
        }
        assert_eq!("e4".parse::<Square>(), Ok(Square::E4));
        for bad in ["", "e", "e9", "i1", "E4", "e44", "4e"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn relative() {
        assert_eq!(Square::E2.relative_to(Color::Black), Square::E7);
        assert_eq!(Rank::Third.relative_to(Color::Black), Rank::Sixth);
    }
}
