//! `Score`: a (midgame, endgame) pair of evaluation terms packed in one `i32`.
//!
//! Layout: the value is `(eg << 16) + mg`, so adding, subtracting and multiplying two packed
//! scores by an integer work on both halves at once (the carry from a negative `mg` is undone by
//! the rounding in [`Score::eg`]). Both halves must stay inside the `i16` range.

use std::fmt;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A midgame and an endgame value in one word.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Score(i32);

impl Score {
    pub const ZERO: Score = Score(0);

    /// Packs a midgame and an endgame value (each in the `i16` range).
    #[inline(always)]
    pub const fn new(mg: i32, eg: i32) -> Score {
        Score((eg << 16).wrapping_add(mg))
    }

    /// The midgame half.
    #[inline(always)]
    pub const fn mg(self) -> i32 {
        self.0 as i16 as i32
    }

    /// The endgame half.
    #[inline(always)]
    pub const fn eg(self) -> i32 {
        (self.0.wrapping_add(0x8000) >> 16) as i16 as i32
    }

    /// `self + other`, usable in constants.
    #[inline(always)]
    pub const fn add(self, other: Score) -> Score {
        Score(self.0.wrapping_add(other.0))
    }

    /// `self - other`, usable in constants.
    #[inline(always)]
    pub const fn sub(self, other: Score) -> Score {
        Score(self.0.wrapping_sub(other.0))
    }

    /// `-self`, usable in constants.
    #[inline(always)]
    pub const fn neg(self) -> Score {
        Score(self.0.wrapping_neg())
    }

    /// `self * n`, usable in constants.
    #[inline(always)]
    pub const fn mul(self, n: i32) -> Score {
        Score(self.0.wrapping_mul(n))
    }
}

/// Shorthand for [`Score::new`], used by the parameter tables.
#[inline(always)]
pub const fn s(mg: i32, eg: i32) -> Score {
    Score::new(mg, eg)
}

impl Add for Score {
    type Output = Score;
    #[inline(always)]
    fn add(self, rhs: Score) -> Score {
        Score::add(self, rhs)
    }
}

impl Sub for Score {
    type Output = Score;
    #[inline(always)]
    fn sub(self, rhs: Score) -> Score {
        Score::sub(self, rhs)
    }
}

impl Neg for Score {
    type Output = Score;
    #[inline(always)]
    fn neg(self) -> Score {
        Score::neg(self)
    }
}

impl Mul<i32> for Score {
    type Output = Score;
    #[inline(always)]
    fn mul(self, rhs: i32) -> Score {
        Score::mul(self, rhs)
    }
}

impl AddAssign for Score {
    #[inline(always)]
    fn add_assign(&mut self, rhs: Score) {
        *self = *self + rhs;
    }
}

impl SubAssign for Score {
    #[inline(always)]
    fn sub_assign(&mut self, rhs: Score) {
        *self = *self - rhs;
    }
}

impl fmt::Debug for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s({}, {})", self.mg(), self.eg())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_survive_arithmetic() {
        for (a, b) in [(0, 0), (-1, 1), (1, -1), (-300, -700), (1200, -32000), (-32000, 32000), (5, 0)] {
            let x = Score::new(a, b);
            assert_eq!((x.mg(), x.eg()), (a, b));
            assert_eq!(((-x).mg(), (-x).eg()), (-a, -b));
            let y = Score::new(7, -9);
            let sum = x + y;
            assert_eq!((sum.mg(), sum.eg()), (a + 7, b - 9));
            let diff = x - y;
            assert_eq!((diff.mg(), diff.eg()), (a - 7, b + 9));
        }
        let z = Score::new(-12, 34) * 3;
        assert_eq!((z.mg(), z.eg()), (-36, 102));
        let mut acc = Score::ZERO;
        acc += Score::new(-5, -5);
        acc -= Score::new(10, -20);
        assert_eq!((acc.mg(), acc.eg()), (-15, 15));
    }
}
