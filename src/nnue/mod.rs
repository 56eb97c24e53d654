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
//! The network travels inside the binary (`corvid.nnue` beside this file, written by the
//! trainer, or the file a build names with `CORVID_EVALFILE`: see `build.rs`). File layout,
//! little-endian: magic `CRVDNET1`, `u32` hidden size, `i16` feature weights (768 rows of
//! `HIDDEN`), `i16` feature biases, per bucket `i16` output weights (`2 x HIDDEN`: side to move,
//! then the other side), then per bucket an `i32` output bias.
//! The magic names the base: `CRVDNET1` none, `CRVDPSQ1` material and piece-square values,
//! `CRVDRES1` the hand-crafted evaluation. Version 2 (the magic ending in `2`) has king-bucketed
//! inputs: after the hidden size, 64 bytes giving the bucket of each square of the perspective's
//! own king (seen from its side), a byte that says whether the board is mirrored left to right
//! when that king is on files e-h, and 3 zero bytes; then 768 rows per bucket (see [`Layout`]).

use std::sync::Arc;

use once_cell::sync::Lazy;

use crate::position::Position;
use crate::types::{Color, PieceType, Square};

/// Whether the engine evaluates with the network unless told otherwise (`UseNNUE`'s default, and
/// that of `bench`, `datagen` and `label`, whose `--hce` and `--nnue` choose).
pub const ON_BY_DEFAULT: bool = true;

/// Inputs of a king bucket: 2 colours x 6 piece types x 64 squares.
pub const INPUTS: usize = 768;
/// The most king buckets a network may have.
pub const MAX_KING_BUCKETS: usize = 32;
/// Neurons per perspective: the embedded network's (`build.rs` reads it from the file's header,
/// so `make EVALFILE=net.nnue` builds an engine of that network's width).
pub const HIDDEN: usize = embedded::EMBEDDED_HIDDEN;
/// Output layers, chosen by piece count.
pub const OUTPUT_BUCKETS: usize = 8;
/// Quantisation of the feature transformer.
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Centipawns per unit of the network's (float) output.
pub const SCALE: i32 = 400;
/// The largest |weight| the trainer keeps (in float units): with it, an accumulator (bias plus 32
/// features, each at most `1.98 x 255 = 505`) stays inside `i16`, and `v * w` of the output
/// layer (`v <= 255`, `|w| <= 126`) inside `i16`, and one perspective's sum inside `i32`.
pub const WEIGHT_CLIP: f32 = 1.98;

/// The largest |feature weight| or |feature bias| a network file may hold: an accumulator is the
/// bias plus at most 32 feature rows, and `33 x 992 = 32,736` stays inside `i16`.
pub const MAX_FEATURE_WEIGHT: i32 = i16::MAX as i32 / 33;
/// The largest |output weight|: `clamp(a, 0, QA) x w` must fit `i16` (`255 x 128 = 32,640`), and
/// then a perspective's sum fits `i32` for up to 256 neurons (`256 x 255 x 32,640 < 2^31`).
pub const MAX_OUTPUT_WEIGHT: i32 = i16::MAX as i32 / QA;

/// What a network's output is added to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Nothing: the output is the evaluation.
    None,
    /// Material and piece-square values ([`crate::eval::material_psqt`]).
    Psqt,
    /// The whole hand-crafted evaluation.
    Hce,
}

impl Base {
    const ALL: [Base; 3] = [Base::None, Base::Psqt, Base::Hce];

    /// The magic of a version-1 file (no king buckets).
    pub fn magic(self) -> &'static [u8; 8] {
        match self {
            Base::None => b"CRVDNET1",
            Base::Psqt => b"CRVDPSQ1",
            Base::Hce => b"CRVDRES1",
        }
    }

    /// The magic of a file of `layout`: version 1 without king buckets, else version 2.
    pub fn magic_for(self, layout: &Layout) -> [u8; 8] {
        let mut magic = *self.magic();
        if !layout.is_plain() {
            magic[7] = b'2';
        }
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

/// How the inputs depend on the perspective's own king: a bucket for each square it may stand
/// on (seen from its side: rank 1 is its back rank), each bucket a set of 768 inputs, and
/// whether the board is mirrored left to right when that king is on files e-h (so that the
/// buckets need cover only files a-d). Without buckets or mirroring (the plain layout) the
/// inputs are the 768 of version-1 networks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub buckets: [u8; 64],
    pub mirror: bool,
}

impl Layout {
    /// One bucket, no mirroring.
    pub const PLAIN: Layout = Layout { buckets: [0; 64], mirror: false };

    /// The layouts the trainer offers by name: `none`; `mirror` (one bucket, mirrored); `4`
    /// (mirrored; the king on its back rank on files a-b, on c-d, on its second rank, further
    /// up); `8` (mirrored; back rank a, b, c, d; second rank a-b, c-d; third and fourth ranks;
    /// further up).
    pub fn named(name: &str) -> Option<Layout> {
        let by_rank_and_file = |f: &dyn Fn(usize, usize) -> u8| {
            let mut buckets = [0u8; 64];
            for (sq, b) in buckets.iter_mut().enumerate() {
                // Files e-h are never looked up with mirroring: they take their mirror's bucket.
                let file = if sq % 8 >= 4 { 7 - sq % 8 } else { sq % 8 };
                *b = f(sq / 8, file);
            }
            Layout { buckets, mirror: true }
        };
        match name {
            "none" | "1" => Some(Layout::PLAIN),
            "mirror" => Some(Layout { buckets: [0; 64], mirror: true }),
            "4" => Some(by_rank_and_file(&|rank, file| match rank {
                0 => (file / 2) as u8,
                1 => 2,
                _ => 3,
            })),
            "8" => Some(by_rank_and_file(&|rank, file| match rank {
                0 => file as u8,
                1 => 4 + (file / 2) as u8,
                2 | 3 => 6,
                _ => 7,
            })),
            _ => None,
        }
    }

    /// The number of buckets.
    pub const fn count(&self) -> usize {
        let (mut i, mut max) = (0, 0);
        while i < 64 {
            if self.buckets[i] > max {
                max = self.buckets[i];
            }
            i += 1;
        }
        max as usize + 1
    }

    /// Whether this is the version-1 layout.
    pub const fn is_plain(&self) -> bool {
        !self.mirror && self.count() == 1
    }

    /// The inputs as seen by `perspective`, whose king stands on `king`.
    #[inline(always)]
    pub fn view(&self, perspective: Color, king: Square) -> View {
        self.view_at(perspective, king.index())
    }

    /// [`Layout::view`] with the king's square as its index (0 = a1).
    #[inline(always)]
    pub fn view_at(&self, perspective: Color, king: usize) -> View {
        let vertical = if perspective == Color::White { 0 } else { 56 };
        let own = king ^ vertical;
        let horizontal = if self.mirror && own % 8 >= 4 { 7 } else { 0 };
        View {
            perspective,
            offset: self.buckets[own ^ horizontal] as u16 * INPUTS as u16,
            flip: (vertical ^ horizontal) as u8,
        }
    }

    /// The 68 bytes of a version-2 header after the hidden size.
    fn to_bytes(self) -> [u8; 68] {
        let mut bytes = [0u8; 68];
        bytes[..64].copy_from_slice(&self.buckets);
        bytes[64] = u8::from(self.mirror);
        bytes
    }

    fn from_bytes(bytes: &[u8]) -> Result<Layout, String> {
        let buckets: [u8; 64] = bytes[..64].try_into().map_err(|_| "short layout".to_string())?;
        let layout = Layout { buckets, mirror: bytes[64] == 1 };
        if bytes[64] > 1 || bytes[65..68] != [0, 0, 0] {
            return Err("bad king-bucket header (mirror byte or padding)".into());
        }
        if layout.count() > MAX_KING_BUCKETS {
            return Err(format!("{} king buckets, at most {MAX_KING_BUCKETS}", layout.count()));
        }
        if (0..layout.count() as u8).any(|b| !layout.buckets.contains(&b)) {
            return Err("a king bucket no square uses".into());
        }
        Ok(layout)
    }
}

/// One perspective's inputs for one placement of its king (see [`Layout::view`]): two views
/// that are equal index every piece alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    perspective: Color,
    /// The first input of the king's bucket.
    offset: u16,
    /// What the squares are XORed with: 56 for Black's view, 7 when mirrored.
    flip: u8,
}

impl View {
    /// The view of `perspective` in the plain layout (the inputs of version-1 networks).
    #[inline(always)]
    pub const fn plain(perspective: Color) -> View {
        View { perspective, offset: 0, flip: if matches!(perspective, Color::White) { 0 } else { 56 } }
    }

    /// The input index of a `color` `piece` on `sq`.
    #[inline(always)]
    pub fn index(self, color: Color, piece: PieceType, sq: Square) -> usize {
        let relative = usize::from(color != self.perspective);
        self.offset as usize + (relative * 6 + piece.index()) * 64 + (sq.index() ^ self.flip as usize)
    }

    /// [`View::index`] of a piece given as `(colour x 6 + piece type) x 64 + square`, the input
    /// index of White's plain view.
    #[inline(always)]
    pub fn index_of_code(self, code: usize) -> usize {
        let relative = usize::from(code / 384 != self.perspective.index());
        self.offset as usize + (relative * 6 + code / 64 % 6) * 64 + ((code % 64) ^ self.flip as usize)
    }
}

// The output sums fit `i32` up to 256 neurons; the vector kernels take 16 lanes at a time.
static_assertions::const_assert!(HIDDEN <= 256 && HIDDEN % 16 == 0);

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

/// One accumulator per perspective (`[Color::index()]`): the hidden layer before activation.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub values: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator { values: [[0; HIDDEN]; 2] }
    }
}

/// The input index of a `color` `piece` on `sq`, seen from `perspective`.
#[inline(always)]
pub fn feature(perspective: Color, color: Color, piece: PieceType, sq: Square) -> usize {
    View::plain(perspective).index(color, piece, sq)
}

/// The output bucket of `pos`: its piece count (kings and pawns included), 2-32, in eight
/// groups of four.
#[inline(always)]
pub fn bucket(pos: &Position) -> usize {
    ((pos.occupied().count() as usize).saturating_sub(1) / 4).min(OUTPUT_BUCKETS - 1)
}

/// The commit this binary was built from (`unknown` outside a git checkout).
pub const BUILD_COMMIT: &str = embedded::BUILD_COMMIT;

/// The kernel the network's inner loops run on this CPU: `avx2` (compiled in, or found at run
/// time), `sse2`, or `scalar`.
pub fn kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if cfg!(target_feature = "avx2") || simd::has_avx2() {
            "avx2"
        } else {
            "sse2"
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "scalar"
    }
}

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

fn read_i16s(bytes: &[u8], out: &mut [i16]) {
    for (value, chunk) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *value = i16::from_le_bytes([chunk[0], chunk[1]]);
    }
}

impl Network {
    /// The size in bytes of a version-1 network file for this build's [`HIDDEN`].
    pub const FILE_SIZE: usize = Network::file_size(&Layout::PLAIN);

    /// The size in bytes of a network file of this build's [`HIDDEN`] and `layout`.
    pub const fn file_size(layout: &Layout) -> usize {
        let header = if layout.is_plain() { 12 } else { 12 + 68 };
        header + 2 * (layout.count() * INPUTS * HIDDEN + HIDDEN + OUTPUT_BUCKETS * 2 * HIDDEN) + 4 * OUTPUT_BUCKETS
    }

    /// The largest network file this build reads.
    pub const MAX_FILE_SIZE: usize =
        12 + 68 + 2 * (MAX_KING_BUCKETS * INPUTS * HIDDEN + HIDDEN + OUTPUT_BUCKETS * 2 * HIDDEN) + 4 * OUTPUT_BUCKETS;

    /// Reads a network file (`EvalFile`): a file larger than any network of this build is
    /// refused before it is read, and its contents are checked as [`Network::from_bytes`]
    /// does. The error names the file.
    pub fn load(path: &str) -> Result<Network, String> {
        let bytes = crate::files::read(path, Self::MAX_FILE_SIZE as u64)?;
        Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
    }

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
        } else {
            self.base.value(pos) + self.evaluate_position(pos)
        }
    }

    /// Parses a network file (see the module header).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let version = |b: &Base, v: u8| {
            let mut magic = *b.magic();
            magic[7] = v;
            bytes.len() >= 12 && bytes[..8] == magic
        };
        let (base, versioned) = if let Some(base) = Base::ALL.into_iter().find(|b| version(b, b'1')) {
            (base, false)
        } else if let Some(base) = Base::ALL.into_iter().find(|b| version(b, b'2')) {
            (base, true)
        } else {
            return Err("not a Corvid network (bad magic)".into());
        };
        let hidden = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        if hidden != HIDDEN {
            return Err(format!("network has {hidden} hidden neurons, this build expects {HIDDEN}"));
        }
        let layout = if versioned {
            if bytes.len() < 12 + 68 {
                return Err("network file too short for its king-bucket header".into());
            }
            let layout = Layout::from_bytes(&bytes[12..12 + 68])?;
            if layout.is_plain() {
                return Err("a version-2 network without king buckets (write version 1)".into());
            }
            layout
        } else {
            Layout::PLAIN
        };
        if bytes.len() != Self::file_size(&layout) {
            return Err(format!("network file has {} bytes, expected {}", bytes.len(), Self::file_size(&layout)));
        }
        let rows = INPUTS * layout.count();
        let mut net = Network {
            feature_weights: vec![[0i16; HIDDEN]; rows].into_boxed_slice(),
            feature_bias: [0; HIDDEN],
            output_weights: [[[0; HIDDEN]; 2]; OUTPUT_BUCKETS],
            output_bias: [0; OUTPUT_BUCKETS],
            base,
            layout,
            plain: layout.is_plain(),
        };
        let mut at = if versioned { 12 + 68 } else { 12 };
        for row in net.feature_weights.iter_mut() {
            read_i16s(&bytes[at..at + 2 * HIDDEN], row);
            at += 2 * HIDDEN;
        }
        read_i16s(&bytes[at..at + 2 * HIDDEN], &mut net.feature_bias);
        at += 2 * HIDDEN;
        for half in net.output_weights.iter_mut().flatten() {
            read_i16s(&bytes[at..at + 2 * HIDDEN], half);
            at += 2 * HIDDEN;
        }
        for bias in net.output_bias.iter_mut() {
            *bias = i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            at += 4;
        }
        net.check_ranges()?;
        Ok(net)
    }

    /// The header of a network file (magic, hidden size, and for version 2 the layout).
    pub fn header(base: Base, hidden: usize, layout: &Layout) -> Vec<u8> {
        let mut bytes = base.magic_for(layout).to_vec();
        bytes.extend_from_slice(&(hidden as u32).to_le_bytes());
        if !layout.is_plain() {
            bytes.extend_from_slice(&layout.to_bytes());
        }
        bytes
    }

    /// Refuses weights that could overflow the integer sums (see [`MAX_FEATURE_WEIGHT`] and
    /// [`MAX_OUTPUT_WEIGHT`]), naming the first such value. Output biases are `i32` added in
    /// `i64`: any value is safe (the search clamps evaluations away from mate scores).
    fn check_ranges(&self) -> Result<(), String> {
        let outside = |value: i16, max: i32| i32::from(value).abs() > max;
        for (input, row) in self.feature_weights.iter().enumerate() {
            if let Some((neuron, &w)) = row.iter().enumerate().find(|(_, &w)| outside(w, MAX_FEATURE_WEIGHT)) {
                return Err(format!(
                    "feature weight {w} (input {input}, neuron {neuron}) is outside +/-{MAX_FEATURE_WEIGHT}: \
                     the accumulator could overflow"
                ));
            }
        }
        if let Some((neuron, &b)) = self.feature_bias.iter().enumerate().find(|(_, &b)| outside(b, MAX_FEATURE_WEIGHT))
        {
            return Err(format!(
                "feature bias {b} (neuron {neuron}) is outside +/-{MAX_FEATURE_WEIGHT}: the accumulator could overflow"
            ));
        }
        for (bucket, halves) in self.output_weights.iter().enumerate() {
            for (half, row) in halves.iter().enumerate() {
                if let Some((neuron, &w)) = row.iter().enumerate().find(|(_, &w)| outside(w, MAX_OUTPUT_WEIGHT)) {
                    return Err(format!(
                        "output weight {w} (bucket {bucket}, half {half}, neuron {neuron}) is outside \
                         +/-{MAX_OUTPUT_WEIGHT}: the output sum could overflow"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The view of `perspective` in `pos`.
    #[inline(always)]
    pub fn view(&self, pos: &Position, perspective: Color) -> View {
        if self.plain {
            return View::plain(perspective);
        }
        self.layout.view(perspective, pos.king(perspective))
    }

    /// The accumulator of `pos` computed from scratch.
    pub fn refresh(&self, pos: &Position) -> Accumulator {
        let mut acc = Accumulator::default();
        for perspective in Color::ALL {
            self.refresh_one(pos, perspective, &mut acc.values[perspective.index()]);
        }
        acc
    }

    /// One perspective's half of [`Network::refresh`].
    fn refresh_one(&self, pos: &Position, perspective: Color, out: &mut [i16; HIDDEN]) {
        let view = self.view(pos, perspective);
        *out = self.feature_bias;
        for color in Color::ALL {
            for piece in PieceType::ALL {
                for sq in pos.colored_pieces(color, piece) {
                    add(out, &self.feature_weights[view.index(color, piece, sq)]);
                }
            }
        }
    }

    /// The accumulator of `after` from `parent`, the accumulator of `before`: only the pieces
    /// that differ between the two boards are applied (two to four for a move, none for a null
    /// move), in one pass over each perspective's values for the usual shapes of a move. A
    /// perspective whose king moved into another bucket or across the mirror is computed
    /// again: from `cache` where there is one, else from scratch.
    pub fn update(&self, parent: &Accumulator, before: &Position, after: &Position, out: &mut Accumulator) {
        self.update_cached(parent, before, after, out, None)
    }

    /// [`Network::update`] with a refresh cache.
    #[inline]
    pub fn update_cached(
        &self,
        parent: &Accumulator,
        before: &Position,
        after: &Position,
        out: &mut Accumulator,
        mut cache: Option<&mut RefreshCache>,
    ) {
        let views = [self.view(after, Color::White), self.view(after, Color::Black)];
        let mut stale = [false; 2];
        if !self.plain {
            for perspective in Color::ALL {
                let p = perspective.index();
                if self.view(before, perspective) != views[p] {
                    stale[p] = true;
                    match cache.as_deref_mut() {
                        Some(cache) => cache.refresh(self, after, perspective, views[p], &mut out.values[p]),
                        None => self.refresh_one(after, perspective, &mut out.values[p]),
                    }
                }
            }
            if stale == [true, true] {
                return;
            }
        }
        // (colour, piece, square) of what left and what arrived: at most two each for a move.
        let mut removed = [(Color::White, PieceType::Pawn, Square::A1); 2];
        let mut added = removed;
        let (mut n_removed, mut n_added) = (0, 0);
        for color in Color::ALL {
            for piece in PieceType::ALL {
                let (old, new) = (before.colored_pieces(color, piece), after.colored_pieces(color, piece));
                let changed = old.0 ^ new.0;
                if changed == 0 {
                    continue;
                }
                for sq in crate::types::Bitboard(old.0 & changed) {
                    if n_removed == 2 {
                        return self.update_slow(parent, before, after, out, stale);
                    }
                    removed[n_removed] = (color, piece, sq);
                    n_removed += 1;
                }
                for sq in crate::types::Bitboard(new.0 & changed) {
                    if n_added == 2 {
                        return self.update_slow(parent, before, after, out, stale);
                    }
                    added[n_added] = (color, piece, sq);
                    n_added += 1;
                }
            }
        }
        for perspective in Color::ALL {
            let p = perspective.index();
            if stale[p] {
                continue;
            }
            let view = views[p];
            let row = |&(c, pt, sq): &(Color, PieceType, Square)| &self.feature_weights[view.index(c, pt, sq)];
            let (parent, out) = (&parent.values[p], &mut out.values[p]);
            match (n_added, n_removed) {
                (1, 1) => apply::<1, 1>(parent, [row(&added[0])], [row(&removed[0])], out),
                (1, 2) => apply::<1, 2>(parent, [row(&added[0])], [row(&removed[0]), row(&removed[1])], out),
                (2, 2) => {
                    apply::<2, 2>(parent, [row(&added[0]), row(&added[1])], [row(&removed[0]), row(&removed[1])], out)
                }
                _ => {
                    *out = *parent;
                    added[..n_added].iter().for_each(|f| add(out, row(f)));
                    removed[..n_removed].iter().for_each(|f| sub(out, row(f)));
                }
            }
        }
    }

    /// [`Network::update`] for boards that differ by more than a move: every change applied in
    /// place, one at a time, to the perspectives not `stale` (already computed).
    #[cold]
    fn update_slow(
        &self,
        parent: &Accumulator,
        before: &Position,
        after: &Position,
        out: &mut Accumulator,
        stale: [bool; 2],
    ) {
        for perspective in Color::ALL {
            let p = perspective.index();
            if stale[p] {
                continue;
            }
            let view = self.view(after, perspective);
            let values = &mut out.values[p];
            *values = parent.values[p];
            for color in Color::ALL {
                for piece in PieceType::ALL {
                    let (old, new) = (before.colored_pieces(color, piece), after.colored_pieces(color, piece));
                    let changed = old.0 ^ new.0;
                    for sq in crate::types::Bitboard(old.0 & changed) {
                        sub(values, &self.feature_weights[view.index(color, piece, sq)]);
                    }
                    for sq in crate::types::Bitboard(new.0 & changed) {
                        add(values, &self.feature_weights[view.index(color, piece, sq)]);
                    }
                }
            }
        }
    }

    /// The output in centipawns for the position of `acc` with `side_to_move`, whose output
    /// bucket is `bucket`.
    #[inline]
    pub fn evaluate(&self, acc: &Accumulator, side_to_move: Color, bucket: usize) -> i32 {
        let weights = &self.output_weights[bucket];
        let us = screlu_dot(&acc.values[side_to_move.index()], &weights[0]);
        let them = screlu_dot(&acc.values[(!side_to_move).index()], &weights[1]);
        let sum = i64::from(us) + i64::from(them);
        let output = sum / i64::from(QA) + i64::from(self.output_bias[bucket]);
        (output * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }
}

/// `out = parent + adds - subs`, lane by lane, in one pass that reads the parent once and
/// writes `out` once (wrapping: the final values fit, see [`MAX_FEATURE_WEIGHT`]). A build for
/// the CPU (`make`) lets the compiler vectorise the loop as widely as the CPU allows; a portable
/// build (SSE2 only) takes the AVX2 kernel where the CPU has it (found at run time, once).
#[inline(always)]
fn apply<const A: usize, const S: usize>(
    parent: &[i16; HIDDEN],
    adds: [&[i16; HIDDEN]; A],
    subs: [&[i16; HIDDEN]; S],
    out: &mut [i16; HIDDEN],
) {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    if simd::has_avx2() {
        // SAFETY: `has_avx2` found AVX2 on this CPU.
        return unsafe { simd::apply_avx2(parent, adds, subs, out) };
    }
    apply_scalar(parent, adds, subs, out)
}

/// [`apply`] lane by lane: the reference the AVX2 kernel is tested against (and, vectorised by
/// the compiler, the kernel of builds for the CPU).
#[inline(always)]
pub fn apply_scalar<const A: usize, const S: usize>(
    parent: &[i16; HIDDEN],
    adds: [&[i16; HIDDEN]; A],
    subs: [&[i16; HIDDEN]; S],
    out: &mut [i16; HIDDEN],
) {
    for i in 0..HIDDEN {
        let mut v = parent[i];
        for row in adds {
            v = v.wrapping_add(row[i]);
        }
        for row in subs {
            v = v.wrapping_sub(row[i]);
        }
        out[i] = v;
    }
}

#[inline(always)]
fn add(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(*w);
    }
}

#[inline(always)]
fn sub(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(*w);
    }
}

/// `sum(clamp(a, 0, QA)^2 * w)`: `clamp(a) * w` fits `i16` (weights are at most
/// [`MAX_OUTPUT_WEIGHT`], checked on load), and the whole sum fits `i32` for up to 256 neurons.
/// With AVX2 (found at run time, once) 16 lanes at a time, else 8 with SSE2 (every x86-64), else
/// the scalar loop; all three give the same sum.
#[inline(always)]
fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    {
        // A build for AVX2 knows it; a portable one asks the CPU.
        if cfg!(target_feature = "avx2") || simd::has_avx2() {
            // SAFETY: the CPU has AVX2 (the build targets it, or `has_avx2` found it).
            return unsafe { simd::screlu_dot_avx2(acc, weights) };
        }
        // SAFETY: SSE2 is part of every x86-64 CPU.
        unsafe { simd::screlu_dot_sse2(acc, weights) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    screlu_dot_scalar(acc, weights)
}

/// [`screlu_dot`] one lane at a time: the reference the vector versions are tested against.
#[inline(always)]
pub fn screlu_dot_scalar(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
    let mut sum = 0i32;
    for (&a, &w) in acc.iter().zip(weights) {
        let v = a.clamp(0, QA as i16);
        sum += i32::from(v.wrapping_mul(w)) * i32::from(v);
    }
    sum
}

/// The output layer's vector kernels (x86-64): clamp to `0..=QA`, multiply by the weight in
/// 16 bits, multiply by the clamped value again and add pairs into 32 bits (`madd`), as the
/// scalar loop does lane by lane.
#[cfg(target_arch = "x86_64")]
pub mod simd {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet known; 1: no AVX2; 2: AVX2.
    static AVX2: AtomicU8 = AtomicU8::new(0);

    /// Whether this CPU has AVX2 (asked once).
    #[inline(always)]
    pub fn has_avx2() -> bool {
        match AVX2.load(Ordering::Relaxed) {
            0 => {
                let has = std::arch::is_x86_feature_detected!("avx2");
                AVX2.store(if has { 2 } else { 1 }, Ordering::Relaxed);
                has
            }
            known => known == 2,
        }
    }

    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot_avx2(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
        const _: () = assert!(HIDDEN % 16 == 0);
        let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
        let mut sum = _mm256_setzero_si256();
        for i in (0..HIDDEN).step_by(16) {
            // SAFETY: `i + 16 <= HIDDEN`, so both 32-byte loads are inside the arrays
            // (unaligned loads).
            let (a, w) = unsafe {
                (_mm256_loadu_si256(acc.as_ptr().add(i).cast()), _mm256_loadu_si256(weights.as_ptr().add(i).cast()))
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(v, w), v));
        }
        let half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256::<1>(sum));
        horizontal_sum(half)
    }

    /// `out = parent + adds - subs` (wrapping), 16 lanes at a time: the accumulator update of
    /// [`super::apply`].
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn apply_avx2<const A: usize, const S: usize>(
        parent: &[i16; HIDDEN],
        adds: [&[i16; HIDDEN]; A],
        subs: [&[i16; HIDDEN]; S],
        out: &mut [i16; HIDDEN],
    ) {
        for i in (0..HIDDEN).step_by(16) {
            // SAFETY: `i + 16 <= HIDDEN` (a multiple of 16), so every 32-byte load and the
            // store are inside their arrays (unaligned accesses).
            unsafe {
                let mut v = _mm256_loadu_si256(parent.as_ptr().add(i).cast());
                for row in adds {
                    v = _mm256_add_epi16(v, _mm256_loadu_si256(row.as_ptr().add(i).cast()));
                }
                for row in subs {
                    v = _mm256_sub_epi16(v, _mm256_loadu_si256(row.as_ptr().add(i).cast()));
                }
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), v);
            }
        }
    }

    /// # Safety
    /// The CPU must have SSE2 (every x86-64 CPU does).
    #[target_feature(enable = "sse2")]
    pub unsafe fn screlu_dot_sse2(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i32 {
        const _: () = assert!(HIDDEN % 8 == 0);
        let (zero, top) = (_mm_setzero_si128(), _mm_set1_epi16(QA as i16));
        let mut sum = _mm_setzero_si128();
        for i in (0..HIDDEN).step_by(8) {
            // SAFETY: `i + 8 <= HIDDEN`, so both 16-byte loads are inside the arrays.
            let (a, w) = unsafe {
                (_mm_loadu_si128(acc.as_ptr().add(i).cast()), _mm_loadu_si128(weights.as_ptr().add(i).cast()))
            };
            let v = _mm_min_epi16(_mm_max_epi16(a, zero), top);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_mullo_epi16(v, w), v));
        }
        horizontal_sum(sum)
    }

    /// The sum of four 32-bit lanes.
    #[inline(always)]
    fn horizontal_sum(v: __m128i) -> i32 {
        let mut lanes = [0i32; 4];
        // SAFETY: `lanes` is 16 bytes, the size of the store.
        unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), v) };
        lanes.iter().fold(0i32, |s, &x| s.wrapping_add(x))
    }
}

/// The refresh cache of king-bucketed networks (a "Finny table"): for each perspective and
/// each view of it (bucket and mirror), the accumulator of the board last computed there and
/// that board's pieces. A king that moves into another view costs the pieces that differ from
/// the last board seen in that view, usually a few, instead of all of them.
pub struct RefreshCache {
    /// `[perspective][bucket * 2 + mirrored]`.
    entries: [Vec<CacheEntry>; 2],
}

#[derive(Clone, Copy)]
struct CacheEntry {
    values: [i16; HIDDEN],
    /// `[colour][piece type]`: the board `values` stand for.
    pieces: [[u64; 6]; 2],
}

impl RefreshCache {
    /// An empty cache for `net`: every entry the empty board (the bias alone).
    pub fn new(net: &Network) -> RefreshCache {
        let entry = CacheEntry { values: net.feature_bias, pieces: [[0; 6]; 2] };
        let n = if net.plain { 0 } else { 2 * net.layout.count() };
        RefreshCache { entries: [vec![entry; n], vec![entry; n]] }
    }

    /// Writes `perspective`'s half of the accumulator of `pos` (whose view is `view`) to `out`,
    /// from the entry of that view, and brings the entry up to `pos`.
    fn refresh(&mut self, net: &Network, pos: &Position, perspective: Color, view: View, out: &mut [i16; HIDDEN]) {
        let slot = view.offset as usize / INPUTS * 2 + usize::from(view.flip & 7 != 0);
        let entry = &mut self.entries[perspective.index()][slot];
        for color in Color::ALL {
            for piece in PieceType::ALL {
                let (old, new) = (entry.pieces[color.index()][piece.index()], pos.colored_pieces(color, piece).0);
                for sq in crate::types::Bitboard(old & !new) {
                    sub(&mut entry.values, &net.feature_weights[view.index(color, piece, sq)]);
                }
                for sq in crate::types::Bitboard(new & !old) {
                    add(&mut entry.values, &net.feature_weights[view.index(color, piece, sq)]);
                }
                entry.pieces[color.index()][piece.index()] = new;
            }
        }
        *out = entry.values;
    }
}

#[cfg(test)]
mod tests;

/// The accumulators along the search path, one entry per ply, computed lazily: [`push`] records
/// the position entered at a ply, and [`evaluate`] brings the accumulators up to date from the
/// nearest computed ply below (nodes cut before their evaluation never pay for an update).
///
/// Invariant: an entry marked computed holds the accumulator of its position; every push clears
/// the mark of its ply, so a computed entry below the current ply is one of the current path.
///
/// [`push`]: AccumulatorStack::push
/// [`evaluate`]: AccumulatorStack::evaluate
pub struct AccumulatorStack {
    net: Arc<Network>,
    entries: Vec<StackEntry>,
    /// For king-bucketed networks (empty otherwise).
    cache: RefreshCache,
}

#[derive(Clone, Copy)]
struct StackEntry {
    acc: Accumulator,
    pos: Position,
    computed: bool,
}

impl AccumulatorStack {
    /// A stack for `plies` plies over the embedded network.
    pub fn new(plies: usize) -> AccumulatorStack {
        let entry = StackEntry { acc: Accumulator::default(), pos: Position::startpos(), computed: false };
        let net = Arc::clone(embedded());
        AccumulatorStack { cache: RefreshCache::new(&net), net, entries: vec![entry; plies.max(1)] }
    }

    /// Evaluates with `net` from the next [`AccumulatorStack::reset`] on.
    pub fn set_network(&mut self, net: &Arc<Network>) {
        if !Arc::ptr_eq(&self.net, net) {
            self.net = Arc::clone(net);
            self.cache = RefreshCache::new(net);
        }
    }

    /// Starts a search at `root` (ply 0), computing its accumulator from scratch.
    pub fn reset(&mut self, root: &Position) {
        let acc = self.net.refresh(root);
        self.entries[0] = StackEntry { acc, pos: *root, computed: true };
    }

    /// Records `pos` as the position at `ply` (at least 1).
    #[inline(always)]
    pub fn push(&mut self, ply: usize, pos: &Position) {
        let entry = &mut self.entries[ply];
        entry.pos = *pos;
        entry.computed = false;
    }

    /// The network's evaluation of the position at `ply`, for its side to move.
    #[inline]
    pub fn evaluate(&mut self, ply: usize) -> i32 {
        let mut base = ply;
        while !self.entries[base].computed {
            base -= 1;
        }
        for k in base + 1..=ply {
            let (below, above) = self.entries.split_at_mut(k);
            let (parent, entry) = (&below[k - 1], &mut above[0]);
            self.net.update_cached(&parent.acc, &parent.pos, &entry.pos, &mut entry.acc, Some(&mut self.cache));
            entry.computed = true;
        }
        let entry = &self.entries[ply];
        self.net.evaluate(&entry.acc, entry.pos.side_to_move(), bucket(&entry.pos))
    }

    /// What the network's output is added to.
    #[inline(always)]
    pub fn base(&self) -> Base {
        self.net.base
    }

    /// The network it evaluates with.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The position recorded at `ply`.
    pub fn position(&self, ply: usize) -> &Position {
        &self.entries[ply].pos
    }
}

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
