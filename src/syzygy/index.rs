//! The Syzygy format's index arithmetic: how a placement of pieces becomes a position number in
//! a table. Every table here is computed from its definition at first use (the format fixes
//! their values; `tests` checks a few against the published ones).
//!
//! Squares are numbered a1 = 0 ... h8 = 63. Pawnless tables fold the board by its symmetries
//! onto the triangle a1-d1-d4 (ten squares); pawn tables fold it onto the files a-d.

use once_cell::sync::Lazy;

/// Rank minus file: zero on the a1-h8 diagonal, negative below it (b1), positive above (a2).
#[inline]
pub fn offdiag(sq: usize) -> i32 {
    (sq >> 3) as i32 - (sq & 7) as i32
}

/// The square mirrored in the a1-h8 diagonal.
#[inline]
pub fn flipdiag(sq: usize) -> usize {
    ((sq >> 3) | (sq << 3)) & 63
}

/// The triangle's squares in index order: b1 c1 d1 c2 d2 d3 (off the diagonal), then a1 b2 c3
/// d4 (on it).
const TRIANGLE_SQUARES: [usize; 10] = [1, 2, 3, 10, 11, 19, 0, 9, 18, 27];

/// `C(n, k)`, 0 where `k > n` or `n < 0`.
pub fn binomial(n: i64, k: i64) -> u64 {
    if n < 0 || k < 0 || k > n {
        return 0;
    }
    let (mut num, mut den) = (1u128, 1u128);
    for i in 0..k as u128 {
        num *= n as u128 - i;
        den *= i + 1;
    }
    (num / den) as u64
}

pub struct Tables {
    /// Each square's triangle index (0-9) once folded by the board's symmetries.
    pub triangle: [usize; 64],
    /// Squares off the diagonal (either side, the two halves share numbers) 0-27 in order
    /// below the diagonal; the diagonal's 28-35.
    pub lower: [usize; 64],
    /// a1..h8 0-7, h1..a8 8-15, else 0.
    pub diag: [usize; 64],
    /// Pawn squares (ranks 2-7) by file pair: (rank - 1) + 6 * folded file.
    pub flap: [usize; 64],
    /// Pawn squares in the order the format counts further pawns of the leading group.
    pub ptwist: [usize; 64],
    /// The inverse of `flap` on files a-d.
    pub invflap: [usize; 24],
    /// The two kings' placement number (462 of them), triangle index then the other king's
    /// square; `None` for kings in contact or folded away.
    pub kk: [[Option<u16>; 64]; 10],
    /// Leading pawn groups: the first position number of each leading square.
    pub pawn_idx: [[u64; 24]; 6],
    /// Leading pawn groups: the count of placements on each file (a-d).
    pub pawn_factor: [[u64; 4]; 6],
}

fn adjacent_or_same(a: usize, b: usize) -> bool {
    let (fa, ra, fb, rb) = ((a & 7) as i32, (a >> 3) as i32, (b & 7) as i32, (b >> 3) as i32);
    (fa - fb).abs() <= 1 && (ra - rb).abs() <= 1
}

fn build() -> Tables {
    let mut t = Tables {
        triangle: [0; 64],
        lower: [0; 64],
        diag: [0; 64],
        flap: [0; 64],
        ptwist: [0; 64],
        invflap: [0; 24],
        kk: [[None; 64]; 10],
        pawn_idx: [[0; 24]; 6],
        pawn_factor: [[0; 4]; 6],
    };
    for sq in 0..64 {
        let (file, rank) = (sq & 7, sq >> 3);
        let (mut f, mut r) = (file.min(7 - file), rank.min(7 - rank));
        if f < r {
            std::mem::swap(&mut f, &mut r);
        }
        t.triangle[sq] = TRIANGLE_SQUARES.iter().position(|&s| s == r * 8 + f).expect("folds into the triangle");
        if file == rank {
            t.diag[sq] = rank;
        } else if file + rank == 7 {
            t.diag[sq] = 8 + rank;
        }
        if (1..7).contains(&rank) {
            let folded = file.min(7 - file);
            t.flap[sq] = (rank - 1) + 6 * folded;
            t.ptwist[sq] = 12 * (3 - folded) + 2 * (6 - rank) + usize::from(file < 4);
        }
    }
    let mut n = 0;
    for sq in 0..64 {
        if (sq & 7) > (sq >> 3) {
            t.lower[sq] = n;
            t.lower[flipdiag(sq)] = n;
            n += 1;
        } else if (sq & 7) == (sq >> 3) {
            t.lower[sq] = 28 + (sq >> 3);
        }
    }
    for (j, slot) in t.invflap.iter_mut().enumerate() {
        *slot = 8 * (j % 6 + 1) + j / 6;
    }
    // Kings: a first king off the diagonal pairs with any square not next to it; one on the
    // diagonal, first with the squares below the diagonal, and after every other pair with
    // those on it (the other king above the diagonal is the mirror image of one below).
    let mut next = 0u16;
    for (i, &k1) in TRIANGLE_SQUARES.iter().enumerate() {
        for k2 in 0..64 {
            if adjacent_or_same(k1, k2) || (i >= 6 && offdiag(k2) >= 0) {
                continue;
            }
            t.kk[i][k2] = Some(next);
            next += 1;
        }
    }
    for (i, &k1) in TRIANGLE_SQUARES.iter().enumerate().skip(6) {
        for k2 in (0..64).filter(|&s| offdiag(s) == 0) {
            if !adjacent_or_same(k1, k2) {
                t.kk[i][k2] = Some(next);
                next += 1;
            }
        }
    }
    debug_assert_eq!(next, 462);
    for extra in 0..6 {
        for file in 0..4 {
            let mut s = 0;
            for j in 6 * file..6 * file + 6 {
                t.pawn_idx[extra][j] = s;
                s += if extra == 0 { 1 } else { binomial(t.ptwist[t.invflap[j]] as i64, extra as i64) };
            }
            t.pawn_factor[extra][file] = s;
        }
    }
    t
}

pub static TABLES: Lazy<Tables> = Lazy::new(build);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_have_the_formats_values() {
        let t = &*TABLES;
        assert_eq!(&t.triangle[..8], &[6, 0, 1, 2, 2, 1, 0, 6]);
        assert_eq!(&t.triangle[24..32], &[2, 4, 5, 9, 9, 5, 4, 2]);
        assert_eq!(&t.lower[..8], &[28, 0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(&t.lower[16..24], &[1, 7, 30, 13, 14, 15, 16, 17]);
        assert_eq!(&t.diag[56..64], &[15, 0, 0, 0, 0, 0, 0, 7]);
        assert_eq!(&t.flap[8..16], &[0, 6, 12, 18, 18, 12, 6, 0]);
        assert_eq!(&t.ptwist[8..16], &[47, 35, 23, 11, 10, 22, 34, 46]);
        assert_eq!(&t.ptwist[48..56], &[37, 25, 13, 1, 0, 12, 24, 36]);
        assert_eq!(&t.invflap[..7], &[8, 16, 24, 32, 40, 48, 9]);
        // The king pairs: a few published entries, and 462 in all.
        assert_eq!(t.kk[0][3], Some(0));
        assert_eq!(t.kk[0][8], None);
        assert_eq!(t.kk[6][2], Some(339));
        assert_eq!(t.kk[6][18], Some(441));
        assert_eq!(t.kk[8][0], Some(452));
        assert_eq!(t.kk[9][63], Some(461));
        assert_eq!(t.kk.iter().flatten().filter(|k| k.is_some()).count(), 462);
        assert_eq!(binomial(5, 2), 10);
        assert_eq!(binomial(2, 5), 0);
        assert_eq!(binomial(-1, 1), 0);
    }
}
