//! The network file's format: its constants, its header, its size and the range of every value,
//! in one dependency-free file. `build.rs` includes it to check the network it embeds (a wrong
//! file fails the build, not the engine); the engine reads with it (`file.rs`, `from_bytes`) and
//! the trainer writes with it (`file.rs`, `quantised`).
//!
//! Little-endian throughout. The header: an 8-byte magic, the base's seven letters (`CRVDNET`
//! none, `CRVDPSQ` material and piece-square values, `CRVDRES` the hand-crafted evaluation) and
//! the version (`1` plain, `2` king-bucketed); the hidden size (`u32`); for version 2, 64 bytes
//! giving the bucket of each square of the perspective's own king (seen from its side), a byte
//! saying whether the board is mirrored left to right when that king is on files e-h, and 3
//! zero bytes. Then the values: `i16` feature weights (768 rows per king bucket, each of the
//! hidden size), `i16` feature biases, per output bucket the `i16` output weights (side to move's
//! half, then the other's), and per output bucket an `i32` output bias.

/// Inputs of a king bucket: 2 colours x 6 piece types x 64 squares.
pub const INPUTS: usize = 768;
/// Output layers, chosen by piece count.
pub const OUTPUT_BUCKETS: usize = 8;
/// The most king buckets a network may have.
pub const MAX_KING_BUCKETS: usize = 32;
/// The widest hidden layer an engine takes (each vector lane of the output sum, a quarter of the
/// neurons at most, fits `i32` up to it: [`MAX_LANE_SUM`]), and the step its width goes in (the
/// vector kernels take 16 lanes at a time).
pub const MAX_HIDDEN: usize = 512;
pub const HIDDEN_STEP: usize = 16;
/// Quantisation of the feature transformer.
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// The largest |feature weight| or |feature bias| a file may hold: an accumulator is the bias
/// plus at most 32 feature rows, and `33 x 992 = 32,736` stays inside `i16`.
pub const MAX_FEATURE_WEIGHT: i32 = i16::MAX as i32 / 33;
/// The largest |output weight|: `clamp(a, 0, QA) x w` must fit `i16` (`255 x 128 = 32,640`).
pub const MAX_OUTPUT_WEIGHT: i32 = i16::MAX as i32 / QA;
/// The largest sum one 32-bit lane of the output kernels adds up: the narrowest kernels (four
/// `i32` lanes, as SSE2's and WebAssembly's) give each lane a quarter of the neurons, each at
/// most `QA x QA x MAX_OUTPUT_WEIGHT`; the lanes are then added in `i64`.
pub const MAX_LANE_SUM: i64 = (MAX_HIDDEN as i64 / 4) * QA as i64 * (QA * MAX_OUTPUT_WEIGHT) as i64;
const _: () = assert!(MAX_LANE_SUM < i32::MAX as i64);
/// The magic's first seven bytes, by base: none, material and piece-square, hand-crafted.
pub const BASE_MAGICS: [&[u8; 7]; 3] = [b"CRVDNET", b"CRVDPSQ", b"CRVDRES"];
/// Bytes of the plain header (magic and hidden size), and of version 2's king-bucket part.
pub const PLAIN_HEADER: usize = 12;
pub const BUCKET_HEADER: usize = 68;

/// The size of a network file of `hidden` neurons and `king_buckets` buckets (`plain`: a
/// version-1 file, one bucket without mirroring).
pub const fn file_size(hidden: usize, king_buckets: usize, plain: bool) -> usize {
    let header = if plain { PLAIN_HEADER } else { PLAIN_HEADER + BUCKET_HEADER };
    header + 2 * (king_buckets * INPUTS * hidden + hidden + OUTPUT_BUCKETS * 2 * hidden) + 4 * OUTPUT_BUCKETS
}

/// A network file's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Index into [`BASE_MAGICS`].
    pub base: usize,
    pub hidden: usize,
    /// The bucket of each square of the perspective's own king.
    pub buckets: [u8; 64],
    /// Whether the board is mirrored when that king is on files e-h.
    pub mirror: bool,
}

impl Header {
    /// The number of king buckets.
    pub fn king_buckets(&self) -> usize {
        self.buckets.iter().copied().max().unwrap_or(0) as usize + 1
    }

    /// Whether this is a version-1 (plain) network: one bucket, no mirroring.
    pub fn is_plain(&self) -> bool {
        !self.mirror && self.king_buckets() == 1
    }

    /// Bytes of the header.
    pub fn size(&self) -> usize {
        file_size(0, 0, self.is_plain()) - 4 * OUTPUT_BUCKETS
    }

    /// The `i16` feature weights and biases.
    pub fn feature_values(&self) -> usize {
        self.king_buckets() * INPUTS * self.hidden + self.hidden
    }

    /// The whole file's size.
    pub fn file_size(&self) -> usize {
        file_size(self.hidden, self.king_buckets(), self.is_plain())
    }

    /// The header's bytes.
    pub fn to_bytes(self) -> Vec<u8> {
        let mut bytes = BASE_MAGICS[self.base].to_vec();
        bytes.push(if self.is_plain() { b'1' } else { b'2' });
        bytes.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        if !self.is_plain() {
            bytes.extend_from_slice(&self.buckets);
            bytes.extend_from_slice(&[u8::from(self.mirror), 0, 0, 0]);
        }
        bytes
    }

    /// Reads and checks the header at the start of `bytes`: the magic, a hidden size an engine
    /// can take, and for version 2 a king-bucket part that is well formed, uses every bucket
    /// and is not the plain layout (that is version 1).
    pub fn read(bytes: &[u8]) -> Result<Header, String> {
        let magic = bytes.get(..8).ok_or("not a Corvid network (shorter than its magic)")?;
        let base = BASE_MAGICS.iter().position(|m| magic[..7] == m[..]).ok_or("not a Corvid network (bad magic)")?;
        let versioned = match magic[7] {
            b'1' => false,
            b'2' => true,
            _ => return Err("not a Corvid network (bad magic)".into()),
        };
        let size: [u8; 4] =
            bytes.get(8..12).and_then(|b| b.try_into().ok()).ok_or("network file too short for its header")?;
        let hidden = u32::from_le_bytes(size) as usize;
        if hidden == 0 || hidden > MAX_HIDDEN || hidden % HIDDEN_STEP != 0 {
            return Err(format!(
                "{hidden} hidden neurons; an engine takes a multiple of {HIDDEN_STEP} up to {MAX_HIDDEN}"
            ));
        }
        let mut header = Header { base, hidden, buckets: [0; 64], mirror: false };
        if versioned {
            let part = bytes
                .get(PLAIN_HEADER..PLAIN_HEADER + BUCKET_HEADER)
                .ok_or("network file too short for its king-bucket header")?;
            header.buckets.copy_from_slice(&part[..64]);
            header.mirror = part[64] == 1;
            if part[64] > 1 || part[65..68] != [0, 0, 0] {
                return Err("bad king-bucket header (mirror byte or padding)".into());
            }
            if header.king_buckets() > MAX_KING_BUCKETS {
                return Err(format!("{} king buckets, at most {MAX_KING_BUCKETS}", header.king_buckets()));
            }
            if (0..header.king_buckets() as u8).any(|b| !header.buckets.contains(&b)) {
                return Err("a king bucket no square uses".into());
            }
            if header.is_plain() {
                return Err("a version-2 network without king buckets (write version 1)".into());
            }
        }
        Ok(header)
    }
}

/// Checks a whole network file: its header, its size, and that no value lies outside what the
/// integer sums of the inference can hold. Returns the header.
pub fn check(bytes: &[u8]) -> Result<Header, String> {
    let header = Header::read(bytes)?;
    check_body(bytes, &header)?;
    Ok(header)
}

/// [`check`] after the header: the size and the values' ranges.
pub fn check_body(bytes: &[u8], header: &Header) -> Result<(), String> {
    let expected = header.file_size();
    if bytes.len() != expected {
        return Err(format!("network file has {} bytes, expected {expected} for its header", bytes.len()));
    }
    let values = bytes[header.size()..expected - 4 * OUTPUT_BUCKETS].chunks_exact(2);
    let feature_values = header.feature_values();
    let rows = header.king_buckets() * INPUTS;
    for (i, w) in values.map(|c| i32::from(i16::from_le_bytes([c[0], c[1]]))).enumerate() {
        if i < rows * header.hidden && w.abs() > MAX_FEATURE_WEIGHT {
            let (input, neuron) = (i / header.hidden, i % header.hidden);
            return Err(format!(
                "feature weight {w} (input {input}, neuron {neuron}) is outside +/-{MAX_FEATURE_WEIGHT}: \
                 the accumulator could overflow"
            ));
        }
        if (rows * header.hidden..feature_values).contains(&i) && w.abs() > MAX_FEATURE_WEIGHT {
            let neuron = i - rows * header.hidden;
            return Err(format!(
                "feature bias {w} (neuron {neuron}) is outside +/-{MAX_FEATURE_WEIGHT}: the accumulator could overflow"
            ));
        }
        if i >= feature_values && w.abs() > MAX_OUTPUT_WEIGHT {
            let at = i - feature_values;
            let (bucket, half, neuron) = (at / (2 * header.hidden), at / header.hidden % 2, at % header.hidden);
            return Err(format!(
                "output weight {w} (bucket {bucket}, half {half}, neuron {neuron}) is outside \
                 +/-{MAX_OUTPUT_WEIGHT}: the output sum could overflow"
            ));
        }
    }
    Ok(())
}
