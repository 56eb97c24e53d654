//! Zobrist keys, computed at compile time from a fixed-seed generator (no run-time init).
//!
//! The position key XORs: one key per (piece, square), the side to move (when Black), one key per
//! castling-rights mask, and the en-passant file only while an en-passant capture is really
//! possible. The pawn key covers pawns (and both kings, which pawn-structure terms read).

use crate::types::{Color, Piece, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

struct Keys {
    pieces: [[u64; 64]; 12],
    castling: [u64; 16],
    ep_file: [u64; 8],
    side: u64,
}

const KEYS: Keys = {
    let mut state = 0x5EED_C0A7_1D00_0001u64;
    let mut keys = Keys { pieces: [[0; 64]; 12], castling: [0; 16], ep_file: [0; 8], side: 0 };
    let mut p = 0;
    while p < 12 {
        let mut s = 0;
        while s < 64 {
            let (next, k) = splitmix(state);
            state = next;
            keys.pieces[p][s] = k;
            s += 1;
        }
        p += 1;
    }
    // Castling keys: one per right, XOR-combined, so removing a right is one XOR as well.
    let mut rights = [0u64; 4];
    let mut i = 0;
    while i < 4 {
        let (next, k) = splitmix(state);
        state = next;
        rights[i] = k;
        i += 1;
    }
    let mut mask = 0;
    while mask < 16 {
        let mut bit = 0;
        while bit < 4 {
            if mask >> bit & 1 != 0 {
                keys.castling[mask] ^= rights[bit];
            }
            bit += 1;
        }
        mask += 1;
    }
    let mut f = 0;
    while f < 8 {
        let (next, k) = splitmix(state);
        state = next;
        keys.ep_file[f] = k;
        f += 1;
    }
    keys.side = splitmix(state).1;
    keys
};

static TABLE: Keys = KEYS;

#[inline(always)]
pub fn piece(piece: Piece, sq: Square) -> u64 {
    TABLE.pieces[piece.index()][sq.index()]
}

/// The key of a castling-rights mask (bit layout of `CastlingRights`).
#[inline(always)]
pub fn castling(mask: u8) -> u64 {
    TABLE.castling[(mask & 15) as usize]
}

#[inline(always)]
pub fn ep_file(file: usize) -> u64 {
    TABLE.ep_file[file & 7]
}

/// XORed in when Black is to move.
#[inline(always)]
pub fn side(color: Color) -> u64 {
    match color {
        Color::White => 0,
        Color::Black => TABLE.side,
    }
}

/// XORed into every key when the side to move changes.
#[inline(always)]
pub fn side_toggle() -> u64 {
    TABLE.side
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = TABLE.pieces.iter().flatten().copied().collect();
        all.extend_from_slice(&TABLE.castling[1..]);
        all.extend_from_slice(&TABLE.ep_file);
        all.push(TABLE.side);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
        assert!(all.iter().all(|&k| k != 0));
    }
}
