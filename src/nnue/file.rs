//! The network file: reading, checking and writing its header.
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

use super::layout::Layout;
use super::{Base, Network, HIDDEN, INPUTS, MAX_FEATURE_WEIGHT, MAX_KING_BUCKETS, MAX_OUTPUT_WEIGHT, OUTPUT_BUCKETS};

pub(super) fn read_i16s(bytes: &[u8], out: &mut [i16]) {
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
}
