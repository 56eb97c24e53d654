//! NNUE evaluation: a network trained here (`corvid train`) on positions labelled by Corvid's own
//! search, evaluated with an accumulator that is updated incrementally along the search path.
//!
//! Architecture: 768 inputs (colour relative to the perspective x piece type x square, the square
//! mirrored vertically for Black) -> [`HIDDEN`] neurons, computed twice (one accumulator per
//! perspective, shared weights) -> SCReLU (`clamp(x, 0, 1)^2`) of both halves, the side to move's
//! first -> one output, scaled by [`SCALE`] to centipawns. The output layer is chosen among
//! [`OUTPUT_BUCKETS`] by the number of pieces on the board (see [`bucket`]), so that the opening,
//! middlegame and each kind of ending get their own weighting of the same hidden features.
//! Optionally the inputs are king-bucketed (see [`Layout`]): each perspective has a set of 768
//! inputs per bucket of its own king's square, possibly with the board mirrored left to right;
//! a king that changes bucket recomputes its perspective from a [`RefreshCache`].
//!
//! Quantisation: feature weights and biases in units of 1/[`QA`], output weights in units of
//! 1/[`QB`], output bias in units of 1/([`QA`] x [`QB`]). The trainer clips the float weights so
//! that no sum overflows (see [`WEIGHT_CLIP`]).
//!
//! A network's output is the whole evaluation, or a correction added to a base (see [`Base`]):
//! the material and piece-square values, or the whole hand-crafted evaluation of [`crate::eval`].
//! A network with a base depends on those weights: retuning them means retraining it. The
//! search uses it unless the `UseNNUE` option is off (see the README for how it measures against
//! the hand-crafted evaluation).
//!
//! The file format is described in [`format`] (read and written in `file`); the layout of the inputs in `layout`; the
//! accumulators in `accumulator`; the inner loops in `kernels`.

use std::sync::Arc;

use once_cell::sync::Lazy;

use crate::position::Position;
use crate::types::Color;

mod accumulator;
mod file;
pub mod format;
mod kernels;
mod layout;

pub use accumulator::{Accumulator, AccumulatorStack, RefreshCache};
use kernels::screlu_dot;
#[cfg(target_arch = "x86_64")]
pub use kernels::simd;
pub use kernels::{apply_scalar, kernel, screlu_dot_scalar};
pub use layout::{bucket, feature, Layout, View};

/// Whether the engine evaluates with the network unless told otherwise (`UseNNUE`'s default, and
/// that of `bench`, `datagen` and `label`, whose `--hce` and `--nnue` choose).
pub const ON_BY_DEFAULT: bool = true;

pub use format::{INPUTS, MAX_FEATURE_WEIGHT, MAX_KING_BUCKETS, MAX_OUTPUT_WEIGHT, OUTPUT_BUCKETS, QA, QB};

/// Neurons per perspective: the embedded network's (`build.rs` reads it from the file's header,
/// so `make EVALFILE=net.nnue` builds an engine of that network's width).
pub const HIDDEN: usize = embedded::EMBEDDED_HIDDEN;
/// Centipawns per unit of the network's (float) output.
pub const SCALE: i32 = 400;
/// The largest |weight| the trainer keeps (in float units): with it, an accumulator (bias plus 32
/// features, each at most `1.98 x 255 = 505`) stays inside `i16`, and `v * w` of the output
/// layer (`v <= 255`, `|w| <= 126`) inside `i16`, and one perspective's sum inside `i32`.
pub const WEIGHT_CLIP: f32 = 1.98;

/// What a network's output is added to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Nothing: the output is the evaluation.
    None = 0,
    /// Material and piece-square values ([`crate::eval::material_psqt`]).
    Psqt = 1,
    /// The whole hand-crafted evaluation.
    Hce = 2,
}

impl Base {
    pub const ALL: [Base; 3] = [Base::None, Base::Psqt, Base::Hce];

    /// The base's index in the format's magics ([`format::BASE_MAGICS`]).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The magic of a version-1 file (no king buckets).
    pub fn magic(self) -> [u8; 8] {
        let mut magic = [b'1'; 8];
        magic[..7].copy_from_slice(format::BASE_MAGICS[self.index()]);
        magic
    }

    /// The base's value for `pos`, side to move's view, in centipawns.
    pub fn value(self, pos: &Position) -> i32 {
        self.value_with(pos, None)
    }

    /// [`Base::value`] with the search thread's pawn table for the hand-crafted evaluation.
    #[inline]
    pub fn value_with(self, pos: &Position, pawns: Option<&mut crate::eval::PawnTable>) -> i32 {
        match (self, pawns) {
            (Base::None, _) => 0,
            (Base::Psqt, _) => crate::eval::material_psqt(pos),
            (Base::Hce, Some(pawns)) => crate::eval::evaluate_with(pos, pawns),
            (Base::Hce, None) => crate::eval::evaluate(pos),
        }
    }
}

// The output sums fit their lanes up to `MAX_HIDDEN` neurons; the vector kernels take 16 lanes at a time.
static_assertions::const_assert!(HIDDEN <= format::MAX_HIDDEN && HIDDEN % format::HIDDEN_STEP == 0);

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/network.rs"));
}

/// The embedded network, copied by `build.rs` (which checked its header and size).
pub(crate) static EMBEDDED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/corvid.nnue"));

/// The quantised network.
pub struct Network {
    /// 768 rows per king bucket (see [`Layout`]).
    pub(crate) feature_weights: Box<[[i16; HIDDEN]]>,
    pub(crate) feature_bias: [i16; HIDDEN],
    /// Per bucket: `[0]` applies to the side to move's half, `[1]` to the other.
    pub(crate) output_weights: [[[i16; HIDDEN]; 2]; OUTPUT_BUCKETS],
    pub(crate) output_bias: [i32; OUTPUT_BUCKETS],
    /// What the output is added to.
    pub base: Base,
    /// How the inputs depend on the kings.
    pub layout: Layout,
    /// Whether `layout` is the plain one (the views never change).
    plain: bool,
}

/// The commit this binary was built from (`unknown` outside a git checkout).
pub const BUILD_COMMIT: &str = embedded::BUILD_COMMIT;

/// A fingerprint of the embedded network (FNV-1a of its bytes), to name it in data manifests.
pub fn embedded_id() -> u64 {
    EMBEDDED.iter().fold(0xCBF2_9CE4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
}

/// The embedded network, parsed once.
pub fn network() -> &'static Network {
    embedded()
}

/// The embedded network, shared (what a search uses unless `EvalFile` names another).
pub fn embedded() -> &'static Arc<Network> {
    static NETWORK: Lazy<Arc<Network>> =
        Lazy::new(|| Arc::new(Network::from_bytes(EMBEDDED).expect("the embedded network is checked by a unit test")));
    &NETWORK
}

impl Network {
    /// The network's output for `pos` (its side to move) from a fresh accumulator: the whole
    /// evaluation, or the correction to its base.
    pub fn evaluate_position(&self, pos: &Position) -> i32 {
        self.evaluate(&self.refresh(pos), pos.side_to_move(), bucket(pos))
    }

    /// The evaluation the search uses with this network: its output plus its base (0 where the
    /// material cannot mate).
    pub fn evaluate_full(&self, pos: &Position) -> i32 {
        if crate::eval::insufficient_material(pos) {
            0
        } else if crate::eval::beyond_game(pos) {
            // The accumulators are bounded for a game's material only.
            crate::eval::beyond_game_eval(pos)
        } else {
            self.base.value(pos) + self.evaluate_position(pos)
        }
    }

    /// The output in centipawns for the position of `acc` with `side_to_move`, whose output
    /// bucket is `bucket`.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, side_to_move: Color, bucket: usize) -> i32 {
        let weights = &self.output_weights[bucket];
        let us = screlu_dot(&acc.values[side_to_move.index()], &weights[0]);
        let them = screlu_dot(&acc.values[(!side_to_move).index()], &weights[1]);
        let sum = us + them;
        let output = sum / i64::from(QA) + i64::from(self.output_bias[bucket]);
        (output * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }
}

#[cfg(test)]
mod tests;

/// The network's output for `pos` (its side to move), from a fresh accumulator: the whole
/// evaluation, or the correction to its base.
pub fn evaluate(pos: &Position) -> i32 {
    network().evaluate_position(pos)
}

/// The evaluation the search uses with `UseNNUE` on: the network's output plus its base (0 where
/// the material cannot mate).
pub fn evaluate_full(pos: &Position) -> i32 {
    network().evaluate_full(pos)
}
