//! Attack lookups over the tables that `build.rs` generates into `OUT_DIR`.
//!
//! Sliders use plain magic bitboards, or `pext` indexing where the build targets a CPU whose `pext`
//! is fast (`cfg(corvid_pext)`, set by `build.rs`: BMI2 enabled, and not AMD before Zen 3, where
//! it is microcoded); the build script lays the table out for whichever indexing it chose.

use crate::types::{Bitboard, Color, Square};

/// Per-square slider data: relevant-occupancy mask, magic, shift and offset into
/// [`SLIDER_ATTACKS`].
#[derive(Clone, Copy)]
pub struct SliderEntry {
    pub mask: u64,
    // Read by the magic indexing only; a `pext` build keeps them for the layout's sake.
    #[cfg_attr(corvid_pext, allow(dead_code))]
    pub magic: u64,
    #[cfg_attr(corvid_pext, allow(dead_code))]
    pub shift: u32,
    pub offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/tables.rs"));

// The table layout and the indexing compiled below agree, and PEXT is chosen only with BMI2.
static_assertions::const_assert!(PEXT_TABLES == cfg!(corvid_pext));
static_assertions::const_assert!(!PEXT_TABLES || cfg!(target_feature = "bmi2"));

#[inline(always)]
fn slider(entry: &SliderEntry, occupied: Bitboard) -> Bitboard {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2", corvid_pext))]
    let index = {
        // SAFETY: `_pext_u64` needs BMI2, which this cfg guarantees is enabled for the target.
        unsafe { std::arch::x86_64::_pext_u64(occupied.0, entry.mask) as usize }
    };
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2", corvid_pext)))]
    let index = ((occupied.0 & entry.mask).wrapping_mul(entry.magic) >> entry.shift) as usize;
    debug_assert!(entry.offset + index < SLIDER_ATTACKS.len());
    // SAFETY: build.rs gives each square `1 << popcount(mask)` entries starting at `offset`, all
    // inside SLIDER_ATTACKS; `index` is below that count: `pext` yields popcount(mask) bits, and
    // the magic index keeps the top `64 - shift == popcount(mask)` bits of the product.
    Bitboard(unsafe { *SLIDER_ATTACKS.get_unchecked(entry.offset + index) })
}

/// The slider lookup this build uses, as the banner, `d` and `bench` name it: `"pext"` or
/// `"magic"`.
pub const SLIDER_LOOKUP: &str = if PEXT_TABLES { "pext" } else { "magic" };

/// Rook attacks from `sq` with the given occupancy.
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    slider(&ROOK_TABLE[sq.index()], occupied)
}

/// Bishop attacks from `sq` with the given occupancy.
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    slider(&BISHOP_TABLE[sq.index()], occupied)
}

/// Queen attacks from `sq` with the given occupancy.
#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Rook attacks from `sq` on an empty board.
#[inline(always)]
pub fn rook_rays(sq: Square) -> Bitboard {
    Bitboard(ROOK_RAYS[sq.index()])
}

/// Bishop attacks from `sq` on an empty board.
#[inline(always)]
pub fn bishop_rays(sq: Square) -> Bitboard {
    Bitboard(BISHOP_RAYS[sq.index()])
}

#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT_ATTACKS[sq.index()])
}

#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING_ATTACKS[sq.index()])
}

/// The squares a pawn of `color` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN_ATTACKS[color.index() * 64 + sq.index()])
}

/// The squares strictly between two squares on a common line; empty if not aligned.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index() * 64 + b.index()])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slow reference: walk each ray square by square.
    fn walk(sq: Square, occupied: u64, dirs: &[(i32, i32)]) -> u64 {
        let mut bb = 0;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file() as i32 + df, sq.rank() as i32 + dr);
            while (0..8).contains(&f) && (0..8).contains(&r) {
                let s = r * 8 + f;
                bb |= 1u64 << s;
                if occupied >> s & 1 != 0 {
                    break;
                }
                f += df;
                r += dr;
            }
        }
        bb
    }

    const ROOK: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    const BISHOP: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

    #[test]
    fn every_slider_lookup_matches_a_ray_walk() {
        // Every subset of every relevant mask (the whole index space), plus random boards with
        // bits outside the masks, which the lookup must ignore.
        for sq in Square::ALL {
            for (table, dirs) in [(&ROOK_TABLE, &ROOK), (&BISHOP_TABLE, &BISHOP)] {
                let mask = table[sq.index()].mask;
                let mut subset = 0u64;
                loop {
                    let expected = walk(sq, subset, dirs);
                    assert_eq!(slider(&table[sq.index()], Bitboard(subset)).0, expected, "{sq} {subset:x}");
                    subset = subset.wrapping_sub(mask) & mask;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
        let mut rng = crate::rng::Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let x = rng.next_u64();
            let occ = x & x.rotate_left(17);
            for sq in Square::ALL {
                assert_eq!(rook_attacks(sq, Bitboard(occ)).0, walk(sq, occ, &ROOK));
                assert_eq!(bishop_attacks(sq, Bitboard(occ)).0, walk(sq, occ, &BISHOP));
            }
        }
    }

    #[test]
    fn the_lookup_named_is_the_lookup_compiled() {
        assert_eq!(SLIDER_LOOKUP, if cfg!(corvid_pext) { "pext" } else { "magic" });
        assert!(LOOKUP_REASON.len() > 10, "{LOOKUP_REASON}");
    }

    #[test]
    fn leapers_between_and_rays() {
        assert_eq!(knight_attacks(Square::A1).count(), 2);
        assert_eq!(knight_attacks(Square::D4).count(), 8);
        assert_eq!(king_attacks(Square::H8).count(), 3);
        assert_eq!(pawn_attacks(Color::White, Square::E4), Bitboard::from_square(Square::D5) | Square::F5);
        assert_eq!(pawn_attacks(Color::Black, Square::A5), Bitboard::from_square(Square::B4));
        assert_eq!(between(Square::A1, Square::D4), Bitboard::from_square(Square::B2) | Square::C3);
        assert_eq!(between(Square::A1, Square::B3), Bitboard::EMPTY);
        for sq in Square::ALL {
            assert_eq!(rook_rays(sq), rook_attacks(sq, Bitboard::EMPTY));
            assert_eq!(bishop_rays(sq), bishop_attacks(sq, Bitboard::EMPTY));
        }
    }
}
