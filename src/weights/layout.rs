//! The flat parameter vector: where each weight of `params.rs` sits, and the weights in one array.
//!
//! The evaluation reads every weight as `W[offset + i]` and reports the same index to its
//! [`Tracer`](crate::eval::Tracer), so the engine's score and the tuner's coefficients cannot
//! disagree. [`SPECS`] lists the parameters in order, which is how the tuner enumerates, reads and
//! prints them back as Rust source.

use super::params;
use super::score::Score;

/// One named parameter (a table or a single weight) of `params.rs`.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The constant's name in `params.rs`.
    pub name: &'static str,
    /// The evaluation term it belongs to (for the `eval` breakdown).
    pub term: &'static str,
    /// Its first index in the flat vector.
    pub offset: usize,
    /// A single `Score` rather than an array.
    pub scalar: bool,
    /// Its current weights.
    pub values: &'static [Score],
}

macro_rules! layout {
    (@offsets $at:expr ;) => {
        /// The number of weights in the flat vector.
        pub const NUM_PARAMS: usize = $at;
    };
    (@offsets $at:expr ; $kind:ident $name:ident $term:literal, $($rest:tt)*) => {
        #[doc = concat!("Offset of `params::", stringify!($name), "`.")]
        pub const $name: usize = $at;
        layout!(@offsets $at + layout!(@len $kind $name) ; $($rest)*);
    };
    (@len array $name:ident) => { params::$name.len() };
    (@len scalar $name:ident) => { 1 };
    (@slice array $name:ident) => { &params::$name };
    (@slice scalar $name:ident) => { &[params::$name] };
    (@scalar array) => { false };
    (@scalar scalar) => { true };
    ($($kind:ident $name:ident $term:literal,)*) => {
        layout!(@offsets 0 ; $($kind $name $term,)*);

        /// Every parameter, in flat-vector order.
        pub static SPECS: &[Spec] = &[$(Spec {
            name: stringify!($name),
            term: $term,
            offset: $name,
            scalar: layout!(@scalar $kind),
            values: layout!(@slice $kind $name),
        },)*];

        /// All weights in one array, indexed by the offsets above.
        pub static W: [Score; NUM_PARAMS] = {
            let mut out = [Score::ZERO; NUM_PARAMS];
            $({
                let src: &[Score] = layout!(@slice $kind $name);
                let mut i = 0;
                while i < src.len() {
                    out[$name + i] = src[i];
                    i += 1;
                }
            })*
            out
        };
    };
}

layout! {
    array MATERIAL "Material",
    array PAWN_PSQT "Piece-square",
    array KNIGHT_PSQT "Piece-square",
    array BISHOP_PSQT "Piece-square",
    array ROOK_PSQT "Piece-square",
    array QUEEN_PSQT "Piece-square",
    array KING_PSQT "Piece-square",
    array KNIGHT_MOBILITY "Mobility",
    array BISHOP_MOBILITY "Mobility",
    array ROOK_MOBILITY "Mobility",
    array QUEEN_MOBILITY "Mobility",
    scalar DOUBLED "Pawn structure",
    scalar ISOLATED "Pawn structure",
    scalar BACKWARD "Pawn structure",
    array PASSED "Passed pawns",
    array PASSED_FREE "Passed pawns",
    array PASSED_OWN_KING "Passed pawns",
    array PASSED_THEIR_KING "Passed pawns",
    array PASSED_SAFE_STOP "Passed pawns",
    array PHALANX "Pawn structure",
    array SUPPORTED "Pawn structure",
    scalar BISHOP_PAIR "Pieces",
    scalar ROOK_OPEN_FILE "Pieces",
    scalar ROOK_SEMI_OPEN_FILE "Pieces",
    scalar ROOK_ON_SEVENTH "Pieces",
    array KING_ATTACK "King safety",
    array KING_SHIELD "King safety",
    array KING_STORM "King safety",
    array THREAT_BY_PAWN "Threats",
    array THREAT_BY_MINOR "Threats",
    array THREAT_BY_ROOK "Threats",
    array HANGING "Threats",
    array SAFE_CHECK "King safety",
    scalar KING_ZONE_WEAK "King safety",
    array KING_OPEN_FILE "King safety",
    array OUTPOST "Pieces",
    scalar BISHOP_PAWNS "Pieces",
    scalar MINOR_BEHIND_PAWN "Pieces",
    scalar THREAT_PAWN_PUSH "Threats",
    array KING_PROTECTOR "Pieces",
    scalar LONG_DIAGONAL "Pieces",
    scalar PAWNLESS_FLANK "King safety",
    scalar SPACE "Space",
    scalar TEMPO "Tempo",
}

/// The offset of the piece-square table of a piece type (pawn first).
pub const PSQT_OF: [usize; 6] = [PAWN_PSQT, KNIGHT_PSQT, BISHOP_PSQT, ROOK_PSQT, QUEEN_PSQT, KING_PSQT];

/// Entries of [`params::KING_ATTACK`]: attack units are clamped to `KING_ATTACK_LEN - 1`.
pub const KING_ATTACK_LEN: usize = params::KING_ATTACK.len();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_tile_the_flat_vector() {
        let mut at = 0;
        for spec in SPECS {
            assert_eq!(spec.offset, at, "{}", spec.name);
            assert!(!spec.scalar || spec.values.len() == 1);
            for (i, &v) in spec.values.iter().enumerate() {
                assert_eq!(W[at + i], v);
            }
            at += spec.values.len();
        }
        assert_eq!(at, NUM_PARAMS);
    }
}
