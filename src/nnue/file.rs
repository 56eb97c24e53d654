//! The network file: reading it (`from_bytes`, `load`) and writing it (`quantised`, the
//! trainer's writer), side by side. The format itself (header, size, ranges) is in `format`,
//! which `build.rs` checks the embedded network with too.
//!
//! The network travels inside the binary (`corvid.nnue` beside this file, written by the
//! trainer, or the file a build names with `CORVID_EVALFILE`: see `build.rs`).

use super::format::{self, Header};
use super::layout::Layout;
use super::{
    Base, Network, HIDDEN, INPUTS, MAX_FEATURE_WEIGHT, MAX_KING_BUCKETS, MAX_OUTPUT_WEIGHT, OUTPUT_BUCKETS, QA, QB,
};

pub(super) fn read_i16s(bytes: &[u8], out: &mut [i16]) {
    for (value, chunk) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *value = i16::from_le_bytes([chunk[0], chunk[1]]);
    }
}

impl Network {
    /// The size in bytes of a version-1 network file for this build's [`HIDDEN`].
    pub const FILE_SIZE: usize = format::file_size(HIDDEN, 1, true);

    /// The size in bytes of a network file of this build's [`HIDDEN`] and `layout`.
    pub const fn file_size(layout: &Layout) -> usize {
        format::file_size(HIDDEN, layout.count(), layout.is_plain())
    }

    /// The largest network file this build reads.
    pub const MAX_FILE_SIZE: usize = format::file_size(HIDDEN, MAX_KING_BUCKETS, false);

    /// Reads a network file (`EvalFile`): a file larger than any network of this build is
    /// refused before it is read, and its contents are checked as [`Network::from_bytes`]
    /// does. The error names the file.
    pub fn load(path: &str) -> Result<Network, String> {
        let bytes = crate::files::read(path, Self::MAX_FILE_SIZE as u64)?;
        Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
    }

    /// Parses a network file: its header, a hidden size this build was made for, its size and
    /// every value's range (see [`format`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let header = Header::read(bytes)?;
        if header.hidden != HIDDEN {
            return Err(format!("network has {} hidden neurons, this build expects {HIDDEN}", header.hidden));
        }
        format::check_body(bytes, &header)?;
        let base = Base::ALL[header.base];
        let layout = Layout { buckets: header.buckets, mirror: header.mirror };
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
        let mut at = header.size();
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
        Ok(net)
    }

    /// The header of a network file of `base`, `hidden` neurons and `layout`.
    pub fn header(base: Base, hidden: usize, layout: &Layout) -> Header {
        Header { base: base.index(), hidden, buckets: layout.buckets, mirror: layout.mirror }
    }

    /// The file of a network given by its float weights (the trainer's writer): `feature_weights`
    /// row by row (768 a king bucket, each `hidden` wide), then the biases, the output weights
    /// (per output bucket the side to move's half, then the other's) and biases, quantised as
    /// the module [`super`] says and held inside the ranges the format allows, so that what is
    /// written always reads.
    pub fn quantised(
        header: &Header,
        feature_weights: impl IntoIterator<Item = f32>,
        feature_bias: &[f32],
        output_weights: &[f32],
        output_bias: &[f32],
    ) -> Vec<u8> {
        let (rows, h) = (header.king_buckets() * INPUTS, header.hidden);
        assert!(feature_bias.len() == h && output_weights.len() == OUTPUT_BUCKETS * 2 * h);
        assert!(output_bias.len() == OUTPUT_BUCKETS);
        let q = |x: f32, scale: i32, max: i32| ((x * scale as f32).round() as i32).clamp(-max, max) as i16;
        let mut bytes = header.to_bytes();
        bytes.reserve(header.file_size() - bytes.len());
        let mut written = 0;
        for w in feature_weights.into_iter().take(rows * h) {
            bytes.extend_from_slice(&q(w, QA, MAX_FEATURE_WEIGHT).to_le_bytes());
            written += 1;
        }
        assert_eq!(written, rows * h, "{rows} rows of {h} feature weights");
        for &w in feature_bias {
            bytes.extend_from_slice(&q(w, QA, MAX_FEATURE_WEIGHT).to_le_bytes());
        }
        for &w in output_weights {
            bytes.extend_from_slice(&q(w, QB, MAX_OUTPUT_WEIGHT).to_le_bytes());
        }
        for &b in output_bias {
            bytes.extend_from_slice(&((b * (QA * QB) as f32).round() as i32).to_le_bytes());
        }
        debug_assert_eq!(bytes.len(), header.file_size());
        bytes
    }
}
