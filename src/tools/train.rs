//! `corvid train`: fits the network to positions labelled by search (`corvid datagen`).
//!
//! Each position's target blends the search score and the game result in win-probability space:
//! `lambda * sigmoid(score / WDL_SCALE) + (1 - lambda) * result`, both from the side to move's view.
//! The loss is the mean squared error between `sigmoid(output cp / WDL_SCALE)` and the target; Adam, the
//! learning rate lowered step by step along a cosine from `--lr` to `--lr-end` (or, with
//! `--schedule steps`, cut to 0.3 of itself at 60% and 85% of the epochs); mini-batches split over
//! threads (each thread sums its gradients, the sums are added before the step). The float weights are clipped to [`WEIGHT_CLIP`] after
//! every step and quantised once at the end (see the module header of [`super`]). With a base
//! (`--base psqt|hce`), the network learns a correction: its output is added to the base's value
//! before the sigmoid.
//!
//! The data streams from disk: one pass reads every file in order, unit by unit (a game where the
//! data has games, else a block of [`BLOCK`] consecutive positions, which `datagen` writes game
//! by game), and sets about one unit in [`VALID_EVERY`] aside for validation (whole games the
//! network never trains on, at most [`VALID_MAX`] positions). A game is held out by what it is
//! (a hash of its start and first moves), not by where it lies, so the same games are held out
//! whatever other files, their order or the settings: the held-out loss with the fixed blend
//! [`MEASURE_LAMBDA`] (the *measure*) is one scale for every recipe, and picks the epoch kept.
//! Files ending in `.xz` are read through `xz -dc` (the self-play store is kept so); `--min-ply`
//! leaves out the positions of a game's first plies (the random opening and the moves just after). The training positions stay in memory when
//! they fit the cache (`--cache`); otherwise each epoch reads the files again, a loader thread
//! filling windows of `--buffer` positions that are shuffled and trained on while the next one is
//! read, so the data may be far larger than the memory.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use super::packed::{self, Format, Game};
use crate::nnue::{bucket, feature, Base, Layout, Network, HIDDEN, INPUTS, OUTPUT_BUCKETS, QA, QB, SCALE, WEIGHT_CLIP};
use crate::position::Position;
use crate::rng::Rng;
use crate::tt::MATE_BOUND;
use crate::types::{Color, PieceType, Square};

/// Positions in a unit of data without games (text, marlinformat boards).
pub const BLOCK: usize = 256;
/// One unit in this many is held out for validation.
pub const VALID_EVERY: u64 = 50;
/// The most positions held out.
pub const VALID_MAX: usize = 200_000;
/// The most training positions the cache may hold (feature offsets are `u32`).
pub const MAX_CACHE: usize = 100_000_000;
/// The weight of the search score in the held-out measure's targets, the same for every run
/// whatever its `--lambda` (the loss with each run's own targets favours high lambdas by
/// construction: search scores are easier to predict than results).
pub const MEASURE_LAMBDA: f32 = 0.5;

/// How the learning rate falls over the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// From `lr` to `lr_end` along half a cosine, step by step.
    Cosine,
    /// `lr`, cut to 0.3 of itself after `decay_at` of the epochs (the schedule before the cosine).
    Steps,
}

/// Training settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Data files, or directories whose data files (`.vf`, `.bin`, `.pgn`, `.txt`) are all read.
    pub inputs: Vec<String>,
    pub out: String,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// Weight of the search score in the target (the rest is the game result).
    pub lambda: f32,
    pub threads: usize,
    pub seed: u64,
    /// What the network's output is added to.
    pub base: Base,
    /// A network file to start from (fine-tuning) instead of random weights; its base must be
    /// `base`.
    pub init: Option<String>,
    /// How the learning rate falls.
    pub schedule: Schedule,
    /// The learning rate at the end of a cosine schedule.
    pub lr_end: f32,
    /// Epochs after which the learning rate is multiplied by 0.3 (fractions of `epochs`), in
    /// the step schedule.
    pub decay_at: [f32; 2],
    /// Positions of a game before this ply (counted from the standard start: the fullmove
    /// number's) are not trained on or held out. Games only (text and boards have no plies).
    pub min_ply: u32,
    /// Neurons per perspective (an engine build embeds networks of its own [`HIDDEN`]).
    pub hidden: usize,
    /// King buckets and mirroring of the inputs.
    pub layout: Layout,
    /// The most training positions kept in memory between epochs; with more, every epoch reads
    /// the files again.
    pub cache: usize,
    /// Positions shuffled together when the data is read from disk every epoch.
    pub buffer: usize,
    /// Trains also on each training position without castling rights reflected left to right.
    pub mirror: bool,
}

impl Options {
    /// The defaults `corvid train` uses, for `inputs` and `out`.
    pub fn new(inputs: Vec<String>, out: String) -> Options {
        Options {
            inputs,
            out,
            epochs: 30,
            batch: 16384,
            lr: 0.001,
            lambda: 0.75,
            threads: 1,
            seed: 1,
            base: Base::None,
            init: None,
            schedule: Schedule::Cosine,
            lr_end: 1e-5,
            decay_at: [0.6, 0.85],
            min_ply: 0,
            hidden: HIDDEN,
            layout: Layout::PLAIN,
            cache: 40_000_000,
            buffer: 4_000_000,
            mirror: false,
        }
    }
}

/// One training position: features from White's perspective (Black's are derived) and target.
#[derive(Clone, Copy)]
struct Sample {
    start: u32,
    len: u8,
    bucket: u8,
    stm: Color,
    /// The squares of the white and the black king.
    kings: [u8; 2],
    /// The game's result for the side to move, in halves (0 loss, 1 draw, 2 win).
    result: u8,
    /// The search score as a win probability for the side to move.
    score: f32,
    /// The base's value in output units (`cp / SCALE`).
    base: f32,
}

impl Sample {
    /// The target with the search score weighted `lambda` against the result.
    fn target(&self, lambda: f32) -> f32 {
        lambda * self.score + (1.0 - lambda) * f32::from(self.result) / 2.0
    }
}

/// Training positions: their features side by side, and a [`Sample`] for each.
#[derive(Default)]
struct Data {
    samples: Vec<Sample>,
    features: Vec<u16>,
}

impl Data {
    fn len(&self) -> usize {
        self.samples.len()
    }

    fn clear(&mut self) {
        self.samples.clear();
        self.features.clear();
    }

    fn append(&mut self, other: &Data) {
        let offset = self.features.len() as u32;
        self.features.extend_from_slice(&other.features);
        self.samples.extend(other.samples.iter().map(|s| Sample { start: s.start + offset, ..*s }));
    }

    /// Adds `pos` with its search score and the game's result (both White's view).
    fn push(&mut self, pos: &Position, score: f32, result: f32, base: Base) {
        let stm = pos.side_to_move();
        let (score, result) = match stm {
            Color::White => (score, result),
            Color::Black => (-score, 1.0 - result),
        };
        let (score, result) = (sigmoid(score / WDL_SCALE), (result * 2.0).round().clamp(0.0, 2.0) as u8);
        let start = self.features.len() as u32;
        push_features(pos, &mut self.features);
        let len = (self.features.len() as u32 - start) as u8;
        let base = base.value(pos) as f32 / SCALE as f32;
        let kings = [pos.king(Color::White).index() as u8, pos.king(Color::Black).index() as u8];
        self.samples.push(Sample { start, len, bucket: bucket(pos) as u8, stm, kings, result, score, base });
    }

    fn features_of(&self, s: &Sample) -> &[u16] {
        &self.features[s.start as usize..s.start as usize + s.len as usize]
    }
}

/// The float network.
#[derive(Clone)]
struct Params {
    hidden: usize,
    layout: Layout,
    /// `INPUTS x buckets x hidden`, row per input; with king buckets, `INPUTS` more rows after
    /// them, the factoriser: a piece on a square has the same weights in every bucket, plus the
    /// bucket's own. What all buckets share is learnt from all positions, so bucketed networks
    /// train as fast as plain ones at first; the file holds the sums.
    fw: Vec<f32>,
    fb: Vec<f32>,
    /// `OUTPUT_BUCKETS x 2 x hidden`: per bucket, side to move, then the other side.
    ow: Vec<f32>,
    ob: Vec<f32>,
}

impl Params {
    fn zeros(hidden: usize, layout: Layout) -> Params {
        Params {
            hidden,
            layout,
            fw: vec![0.0; Params::rows(&layout) * hidden],
            fb: vec![0.0; hidden],
            ow: vec![0.0; OUTPUT_BUCKETS * 2 * hidden],
            ob: vec![0.0; OUTPUT_BUCKETS],
        }
    }

    /// Feature rows: `INPUTS` a bucket, and the factoriser's where there are buckets.
    fn rows(layout: &Layout) -> usize {
        INPUTS * (layout.count() + usize::from(layout.count() > 1))
    }

    /// The factoriser's row of input `index` (in bucket terms), where there is one.
    #[inline(always)]
    fn factor(&self, index: usize) -> Option<usize> {
        let count = self.layout.count();
        (count > 1).then(|| count * INPUTS + index % INPUTS)
    }

    /// Random weights; with a factoriser, the buckets' own rows start at zero (the network
    /// starts as a plain one and the buckets learn what differs).
    fn random(seed: u64, hidden: usize, layout: Layout) -> Params {
        let mut rng = Rng::new(seed | 1);
        let mut next = move |scale: f32| rng.signed_unit() * scale;
        let mut p = Params::zeros(hidden, layout);
        let fs = 1.0 / (INPUTS as f32).sqrt();
        let own = if layout.count() > 1 { layout.count() * INPUTS * hidden } else { 0 };
        p.fw[own..].iter_mut().for_each(|w| *w = next(fs));
        let os = 1.0 / ((2 * hidden) as f32).sqrt();
        p.ow.iter_mut().for_each(|w| *w = next(os));
        p
    }

    /// The float weights a quantised network stands for: training goes on from where the run
    /// that wrote it stopped, up to the rounding of its quantisation.
    fn dequantised(net: &Network) -> Params {
        let mut p = Params::zeros(HIDDEN, net.layout);
        let (qa, qb) = (QA as f32, QB as f32);
        for (row, out) in net.feature_weights.iter().zip(p.fw.chunks_exact_mut(HIDDEN)) {
            out.iter_mut().zip(row).for_each(|(w, &q)| *w = f32::from(q) / qa);
        }
        p.fb.iter_mut().zip(&net.feature_bias).for_each(|(w, &q)| *w = f32::from(q) / qa);
        let output = net.output_weights.iter().flatten().flatten();
        p.ow.iter_mut().zip(output).for_each(|(w, &q)| *w = f32::from(q) / qb);
        p.ob.iter_mut().zip(&net.output_bias).for_each(|(b, &q)| *b = q as f32 / (qa * qb));
        p
    }

    /// `self` with `hidden` neurons, the new ones with small random feature weights and zero
    /// output weights: the same function, and room to learn more (a 128-wide network grown to
    /// 256 starts where it was).
    fn widened(&self, hidden: usize, seed: u64) -> Params {
        let old = self.hidden;
        let fresh = Params::random(seed, hidden, self.layout);
        let mut p = Params::zeros(hidden, self.layout);
        for (input, row) in p.fw.chunks_exact_mut(hidden).enumerate() {
            row[..old].copy_from_slice(&self.fw[input * old..(input + 1) * old]);
            row[old..].copy_from_slice(&fresh.fw[input * hidden + old..(input + 1) * hidden]);
        }
        p.fb[..old].copy_from_slice(&self.fb);
        for (halves, old_halves) in p.ow.chunks_exact_mut(hidden).zip(self.ow.chunks_exact(old)) {
            halves[..old].copy_from_slice(old_halves);
        }
        p.ob.copy_from_slice(&self.ob);
        p
    }

    /// A plain network's weights as the shared weights (the factoriser) of a network of
    /// `layout`, the buckets' own rows zero: without mirroring the same function, with it the
    /// same knowledge seen from the mirrored side where the king is on files e-h.
    fn bucketed(&self, layout: Layout) -> Params {
        let mut p = Params::zeros(self.hidden, layout);
        let own = INPUTS * layout.count() * self.hidden;
        p.fw[own..].copy_from_slice(&self.fw);
        p.fb.copy_from_slice(&self.fb);
        p.ow.copy_from_slice(&self.ow);
        p.ob.copy_from_slice(&self.ob);
        p
    }

    fn add(&mut self, other: &Params) {
        let pairs = [
            (&mut self.fw, &other.fw),
            (&mut self.fb, &other.fb),
            (&mut self.ow, &other.ow),
            (&mut self.ob, &other.ob),
        ];
        for (a, b) in pairs {
            a.iter_mut().zip(b.iter()).for_each(|(x, y)| *x += y);
        }
    }

    fn clear(&mut self) {
        for v in [&mut self.fw, &mut self.fb, &mut self.ow, &mut self.ob] {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
    }
}

/// Centipawns per unit of the win-probability sigmoid: `sigmoid(cp / WDL_SCALE)`. The tuner
/// finds `K = 1.97` for the hand-crafted evaluation on game results (`sigmoid(K cp / 400)`), so
/// about 400 / 1.97; with it the search scores and the results in a target agree on what an
/// advantage is worth, and the network keeps the evaluation's centipawn scale.
const WDL_SCALE: f32 = 200.0;

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Appends the code of every piece of `pos` to `out`: `(colour x 6 + piece type) x 64 +
/// square`, the index of White's plain view (see [`crate::nnue::View::index_of_code`]).
fn push_features(pos: &Position, out: &mut Vec<u16>) {
    for color in Color::ALL {
        for piece in PieceType::ALL {
            for sq in pos.colored_pieces(color, piece) {
                out.push(feature(Color::White, color, piece, sq) as u16);
            }
        }
    }
}

/// The data files of `inputs`: each file as named, and each directory's `.vf`, `.bin`, `.pgn`
/// and `.txt` files (each also compressed, `.xz`) in the order of their names.
fn data_files(inputs: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for input in inputs {
        let path = Path::new(input);
        let meta = std::fs::metadata(path).map_err(|e| format!("{input}: {e}"))?;
        if !meta.is_dir() {
            crate::files::check_input(path)?;
            files.push(path.to_path_buf());
            continue;
        }
        let mut found: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("{input}: {e}"))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .filter(|p| {
                let name = p.to_string_lossy();
                let name = name.strip_suffix(".xz").unwrap_or(&name);
                [".vf", ".bin", ".pgn", ".txt"].iter().any(|k| name.ends_with(k))
            })
            .collect();
        if found.is_empty() {
            return Err(format!(
                "{input}: no training data in this directory (.vf, .bin, .pgn or .txt files, or .xz of them)"
            ));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// The ply of `pos` in its game, from the standard start (its fullmove number and side to move).
fn game_ply(pos: &Position) -> u32 {
    2 * u32::from(pos.fullmove_number().max(1) - 1) + u32::from(pos.side_to_move() == Color::Black)
}

/// What identifies a game, whatever file it is in and wherever: its start and its first moves.
fn game_key(game: &Game) -> u64 {
    game.moves.iter().take(8).fold(game.start.key(), |key, (m, _)| mix(key ^ u64::from(m.raw())))
}

/// A 64-bit finaliser (SplitMix64's): every bit of the input moves about half the output's.
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Which side of the split a unit of data falls on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Train,
    Valid,
}

/// The training data on disk, read in order and split into units (see the module header).
struct Stream {
    files: Vec<PathBuf>,
    /// The bytes of each file read: its size when the training started, so that every epoch
    /// reads the same data from a file that `datagen` is still appending to.
    sizes: Vec<u64>,
    base: Base,
    /// About one unit in this many is held out (0: none).
    valid_every: u64,
    valid_max: usize,
    /// Training units also yield their positions reflected left to right (see [`mirrored`]).
    mirror: bool,
    /// See [`Options::min_ply`].
    min_ply: u32,
}

/// `pos` reflected left to right, files a and h swapped, when it has no castling rights: then
/// the reflection is the same position for the rules, with the same score and result. Held-out
/// games are never reflected.
fn mirrored(pos: &Position) -> Option<Position> {
    if pos.castling().0 != 0 {
        return None;
    }
    let flip = |sq: Square| Square::from_index_masked(sq.index() as u32 ^ 7);
    let placement = crate::position::placement_field(|sq| pos.piece_on(flip(sq)));
    let stm = if pos.side_to_move() == Color::White { 'w' } else { 'b' };
    let ep = pos.ep_square().map_or("-".to_string(), |sq| flip(sq).to_string());
    let fen = format!("{placement} {stm} - {ep} {} {}", pos.halfmove_clock(), pos.fullmove_number());
    Position::from_fen(&fen).ok()
}

/// A unit being read: its positions, and their reflections where [`Stream::mirror`] asks.
#[derive(Default)]
struct Unit {
    data: Data,
    reflected: Data,
}

impl Unit {
    fn push(&mut self, stream: &Stream, pos: &Position, score: f32, result: f32) {
        self.data.push(pos, score, result, stream.base);
        if let Some(m) = mirrored(pos).filter(|_| stream.mirror) {
            self.reflected.push(&m, score, result, stream.base);
        }
    }
}

impl Stream {
    fn new(files: Vec<PathBuf>, base: Base) -> Result<Stream, String> {
        let sizes = files
            .iter()
            .map(|f| std::fs::metadata(f).map(|m| m.len()).map_err(|e| format!("{}: {e}", f.display())))
            .collect::<Result<_, _>>()?;
        Ok(Stream { files, sizes, base, valid_every: VALID_EVERY, valid_max: VALID_MAX, mirror: false, min_ply: 0 })
    }

    /// Reads `path`'s first `size` bytes (all of it if compressed, through `xz -dc`) into `read`,
    /// and then checks that `xz` ended well.
    fn open(
        path: &Path,
        size: u64,
        read: &mut dyn FnMut(&mut dyn BufRead) -> Result<(), String>,
    ) -> Result<(), String> {
        let name = path.display();
        if !path.to_string_lossy().ends_with(".xz") {
            let file = std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?;
            return read(&mut BufReader::with_capacity(1 << 20, file.take(size)));
        }
        let mut child = std::process::Command::new("xz")
            .args(["-dc", "--"])
            .arg(path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| {
                format!("{name}: cannot run xz to decompress it ({e}); install xz, or decompress it first (xz -dk)")
            })?;
        let stdout = child.stdout.take().expect("piped");
        let result = read(&mut BufReader::with_capacity(1 << 20, stdout));
        // Stopped early (an error, or the trainer done with it): xz is not left running.
        if result.is_err() {
            let _ = child.kill();
        }
        let output = child.wait_with_output().map_err(|e| format!("{name}: xz: {e}"))?;
        result?;
        if !output.status.success() {
            let why = String::from_utf8_lossy(&output.stderr);
            return Err(format!("{name}: xz failed: {}", why.trim()));
        }
        Ok(())
    }

    /// Reads every file, handing each unit to `sink` with its part; returns the number of
    /// unreadable text lines skipped. Of games, the positions worth training on are kept: not in
    /// check, the move played quiet, the score not a mate. A training unit's reflections follow
    /// it as a unit of their own.
    fn run(&self, mut sink: impl FnMut(Part, &Data) -> Result<(), String>) -> Result<usize, String> {
        let (mut index, mut held, mut bad) = (0u64, 0usize, 0usize);
        // `key`: what a game is (see `game_key`); blocks of positions go by their place.
        let mut emit = |unit: &mut Unit, key: Option<u64>| -> Result<(), String> {
            if unit.data.len() == 0 {
                return Ok(());
            }
            index += 1;
            let chosen = match key {
                Some(key) => self.valid_every > 0 && mix(key) % self.valid_every == 0,
                None => self.valid_every > 0 && index % self.valid_every == 0,
            };
            let valid = chosen && held < self.valid_max;
            let part = if valid { Part::Valid } else { Part::Train };
            if valid {
                held += unit.data.len();
            }
            sink(part, &unit.data)?;
            if part == Part::Train && unit.reflected.len() > 0 {
                sink(part, &unit.reflected)?;
            }
            unit.data.clear();
            unit.reflected.clear();
            Ok(())
        };
        let mut unit = Unit::default();
        let add_game = |unit: &mut Unit, game: &Game| {
            for ((pos, score), &(m, _)) in game.positions().zip(&game.moves) {
                if game_ply(&pos) >= self.min_ply
                    && !pos.in_check()
                    && !m.is_capture()
                    && !m.is_promotion()
                    && i32::from(score).abs() < MATE_BOUND
                {
                    unit.push(self, &pos, f32::from(score), game.wdl.white_score());
                }
            }
        };
        for (path, &size) in self.files.iter().zip(&self.sizes) {
            let name = path.display();
            let plain = path.to_string_lossy();
            let format = Format::of(plain.strip_suffix(".xz").unwrap_or(&plain));
            Stream::open(path, size, &mut |reader| {
                match format {
                    Format::Text => {
                        for line in reader.lines() {
                            let line = line.map_err(|e| format!("{name}: {e}"))?;
                            if line.trim().is_empty() {
                                continue;
                            }
                            match packed::parse_text(&line) {
                                Ok((pos, score, wdl)) => unit.push(self, &pos, f32::from(score), wdl.white_score()),
                                Err(_) => bad += 1,
                            }
                            if unit.data.len() >= BLOCK {
                                emit(&mut unit, None)?;
                            }
                        }
                    }
                    Format::Boards => loop {
                        let mut board = [0u8; packed::BOARD_BYTES];
                        match reader.read_exact(&mut board) {
                            Ok(()) => {}
                            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                            Err(e) => return Err(format!("{name}: {e}")),
                        }
                        let (pos, score, wdl) = packed::unpack(&board).map_err(|e| format!("{name}: {e}"))?;
                        unit.push(self, &pos, f32::from(score), wdl.white_score());
                        if unit.data.len() >= BLOCK {
                            emit(&mut unit, None)?;
                        }
                    },
                    Format::Games => loop {
                        match Game::read(&mut &mut *reader) {
                            Ok(Some(game)) => {
                                add_game(&mut unit, &game);
                                emit(&mut unit, Some(game_key(&game)))?;
                            }
                            Ok(None) => break,
                            // The game `datagen` was writing when the training started.
                            Err(e) if e.starts_with(packed::TRUNCATED) => break,
                            Err(e) => return Err(format!("{name}: {e}")),
                        }
                    },
                    Format::Pgn => {
                        let mut text = String::new();
                        reader.read_to_string(&mut text).map_err(|e| format!("{name}: {e}"))?;
                        for (n, pgn) in super::pgn::read_games(&text).iter().enumerate() {
                            let game = super::pgn::to_game(pgn).map_err(|e| format!("{name}: game {}: {e}", n + 1))?;
                            if let Some(game) = game {
                                add_game(&mut unit, &game);
                                emit(&mut unit, Some(game_key(&game)))?;
                            }
                        }
                    }
                }
                // A file's last block is a unit of its own: units never span files.
                emit(&mut unit, None)
            })?;
        }
        Ok(bad)
    }
}

/// The float network's output for the pieces `feats` (see [`push_features`]) with `stm` to
/// move and the kings on `kings`; leaves both accumulators (side to move first) in `hidden`.
fn forward(p: &Params, feats: &[u16], stm: Color, kings: [u8; 2], bucket: usize, hidden: &mut [f32]) -> f32 {
    let h = p.hidden;
    let (us, them) = hidden.split_at_mut(h);
    us.copy_from_slice(&p.fb);
    them.copy_from_slice(&p.fb);
    let (vu, vt) = views(p, stm, kings);
    for &f in feats {
        let (a, b) = (vu.index_of_code(f as usize), vt.index_of_code(f as usize));
        let (ra, rb) = (&p.fw[a * h..(a + 1) * h], &p.fw[b * h..(b + 1) * h]);
        us.iter_mut().zip(ra).for_each(|(x, w)| *x += w);
        them.iter_mut().zip(rb).for_each(|(x, w)| *x += w);
        if let (Some(fa), Some(fb)) = (p.factor(a), p.factor(b)) {
            let (ra, rb) = (&p.fw[fa * h..(fa + 1) * h], &p.fw[fb * h..(fb + 1) * h]);
            us.iter_mut().zip(ra).for_each(|(x, w)| *x += w);
            them.iter_mut().zip(rb).for_each(|(x, w)| *x += w);
        }
    }
    let mut out = p.ob[bucket];
    for (x, w) in hidden.iter().zip(&p.ow[bucket * 2 * h..(bucket + 1) * 2 * h]) {
        let c = x.clamp(0.0, 1.0);
        out += c * c * w;
    }
    out
}

/// The views of the side to move and of the other side.
fn views(p: &Params, stm: Color, kings: [u8; 2]) -> (crate::nnue::View, crate::nnue::View) {
    (p.layout.view_at(stm, kings[stm.index()] as usize), p.layout.view_at(!stm, kings[(!stm).index()] as usize))
}

/// Forward and (with `grad`) backward pass of one sample, its target blended by `lambda`;
/// returns its squared error.
fn step_sample(p: &Params, data: &Data, s: &Sample, lambda: f32, grad: Option<&mut Params>, hidden: &mut [f32]) -> f32 {
    let h = p.hidden;
    let feats = data.features_of(s);
    let b = s.bucket as usize;
    let out = forward(p, feats, s.stm, s.kings, b, hidden) + s.base;
    let stretch = SCALE as f32 / WDL_SCALE;
    let pred = sigmoid(out * stretch);
    let err = pred - s.target(lambda);
    let Some(g) = grad else { return err * err };
    let d_out = 2.0 * err * pred * (1.0 - pred) * stretch;
    g.ob[b] += d_out;
    // d hidden, reusing `hidden` after the output gradient is taken.
    let bucket_weights = b * 2 * h..(b + 1) * 2 * h;
    for ((x, w), gw) in hidden.iter_mut().zip(&p.ow[bucket_weights.clone()]).zip(g.ow[bucket_weights].iter_mut()) {
        let c = x.clamp(0.0, 1.0);
        *gw += d_out * c * c;
        *x = if *x > 0.0 && *x < 1.0 { d_out * w * 2.0 * c } else { 0.0 };
    }
    let (dus, dthem) = hidden.split_at(h);
    g.fb.iter_mut().zip(dus.iter().zip(dthem)).for_each(|(gb, (x, y))| *gb += x + y);
    let (vu, vt) = views(p, s.stm, s.kings);
    for &f in feats {
        let (a, b) = (vu.index_of_code(f as usize), vt.index_of_code(f as usize));
        g.fw[a * h..(a + 1) * h].iter_mut().zip(dus).for_each(|(gw, d)| *gw += d);
        g.fw[b * h..(b + 1) * h].iter_mut().zip(dthem).for_each(|(gw, d)| *gw += d);
        if let (Some(fa), Some(fb)) = (p.factor(a), p.factor(b)) {
            g.fw[fa * h..(fa + 1) * h].iter_mut().zip(dus).for_each(|(gw, d)| *gw += d);
            g.fw[fb * h..(fb + 1) * h].iter_mut().zip(dthem).for_each(|(gw, d)| *gw += d);
        }
    }
    err * err
}

struct Adam {
    m: Params,
    v: Params,
    t: i32,
}

impl Adam {
    fn step(&mut self, p: &mut Params, g: &Params, lr: f32, scale: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t);
        let c2 = 1.0 - B2.powi(self.t);
        let update = |w: &mut f32, g: f32, m: &mut f32, v: &mut f32| {
            let g = g * scale;
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *w -= lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
            *w = w.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        };
        let groups = [
            (&mut p.fw, &g.fw, &mut self.m.fw, &mut self.v.fw),
            (&mut p.fb, &g.fb, &mut self.m.fb, &mut self.v.fb),
            (&mut p.ow, &g.ow, &mut self.m.ow, &mut self.v.ow),
            (&mut p.ob, &g.ob, &mut self.m.ob, &mut self.v.ob),
        ];
        for (w, g, m, v) in groups {
            for i in 0..w.len() {
                update(&mut w[i], g[i], &mut m[i], &mut v[i]);
            }
        }
    }
}

/// Mean loss over every sample of `data` (targets blended by `lambda`), over `threads` threads.
fn mean_loss(p: &Params, data: &Data, lambda: f32, threads: usize) -> f64 {
    let chunk = data.len().div_ceil(threads.max(1)).max(1);
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = data
            .samples
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut hidden = vec![0.0; 2 * p.hidden];
                    part.iter()
                        .map(|sample| f64::from(step_sample(p, data, sample, lambda, None, &mut hidden)))
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    total / data.len().max(1) as f64
}

/// The quantised network file of `p`.
fn quantise(p: &Params, base: Base) -> Vec<u8> {
    let mut bytes = Network::header(base, p.hidden, &p.layout);
    let q = |x: f32, scale: i32| ((x * scale as f32).round() as i32).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
    // A bucket's row plus the factoriser's, kept inside the clip each is trained within.
    let h = p.hidden;
    for (row, weights) in p.fw.chunks_exact(h).take(INPUTS * p.layout.count()).enumerate() {
        let shared = p.factor(row).map(|f| &p.fw[f * h..(f + 1) * h]);
        for (i, &w) in weights.iter().enumerate() {
            let w = (w + shared.map_or(0.0, |s| s[i])).clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
            bytes.extend_from_slice(&q(w, QA).to_le_bytes());
        }
    }
    for &w in &p.fb {
        bytes.extend_from_slice(&q(w, QA).to_le_bytes());
    }
    for &w in &p.ow {
        bytes.extend_from_slice(&q(w, QB).to_le_bytes());
    }
    for &b in &p.ob {
        bytes.extend_from_slice(&((b * (QA * QB) as f32).round() as i32).to_le_bytes());
    }
    bytes
}

/// The optimiser and what one epoch's progress lines need.
struct Fit<'a, W: Write> {
    p: Params,
    adam: Adam,
    grads: Vec<Params>,
    options: &'a Options,
    lr: f32,
    log: &'a mut W,
    /// This epoch: its number, start, positions done of `total`, their summed loss, last line.
    epoch: usize,
    epoch_start: Instant,
    total: usize,
    done: usize,
    loss: f64,
    last_line: Instant,
}

impl<W: Write> Fit<'_, W> {
    /// Trains on `data` in the order `order` (indices of its samples), a mini-batch a step.
    fn train_on(&mut self, data: &Data, order: &[u32]) {
        let threads = self.grads.len();
        let lambda = self.options.lambda;
        for batch in order.chunks(self.options.batch.max(1)) {
            if self.options.schedule == Schedule::Cosine {
                self.lr = cosine_lr(self.options, self.epoch, self.done as f64 / self.total.max(1) as f64);
            }
            let chunk = batch.len().div_ceil(threads);
            let p_ref = &self.p;
            let losses: Vec<f64> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .chunks(chunk)
                    .zip(self.grads.iter_mut())
                    .map(|(part, g)| {
                        s.spawn(move || {
                            g.clear();
                            let mut hidden = vec![0.0; 2 * p_ref.hidden];
                            part.iter()
                                .map(|&i| {
                                    let sample = &data.samples[i as usize];
                                    f64::from(step_sample(p_ref, data, sample, lambda, Some(g), &mut hidden))
                                })
                                .sum::<f64>()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap_or(0.0)).collect()
            });
            self.loss += losses.iter().sum::<f64>();
            let used = batch.len().div_ceil(chunk);
            let (first, rest) = self.grads.split_at_mut(1);
            for g in &rest[..used - 1] {
                first[0].add(g);
            }
            self.adam.step(&mut self.p, &first[0], self.lr, 1.0 / batch.len() as f32);
            // Within a long epoch, a line every ten seconds: how far, how fast, how long to go.
            self.done += batch.len();
            if self.last_line.elapsed().as_secs() >= 10 {
                self.last_line = Instant::now();
                let rate = self.done as f64 / self.epoch_start.elapsed().as_secs_f64();
                let _ = writeln!(
                    self.log,
                    "  epoch {}: {} of {} positions, {rate:.0}/s, train loss {:.6}, {:.0}s left",
                    self.epoch,
                    self.done,
                    self.total,
                    self.loss / self.done as f64,
                    self.total.saturating_sub(self.done) as f64 / rate
                );
            }
        }
    }
}

/// The cosine schedule's learning rate `progress` (0 to 1) into epoch `epoch` (from 1).
fn cosine_lr(options: &Options, epoch: usize, progress: f64) -> f32 {
    let run = ((epoch.max(1) - 1) as f64 + progress.clamp(0.0, 1.0)) / options.epochs.max(1) as f64;
    let (start, end) = (f64::from(options.lr), f64::from(options.lr_end));
    (end + (start - end) * 0.5 * (1.0 + (std::f64::consts::PI * run).cos())) as f32
}

/// Shuffles `0..n` with `rng`.
fn shuffled(n: usize, rng: &mut Rng) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

/// Trains from `options.inputs` and writes the network to `options.out`; progress on `log`.
pub fn train(options: &Options, log: &mut impl Write) -> Result<(), String> {
    let started = Instant::now();
    if !(16..=256).contains(&options.hidden) || options.hidden % 16 != 0 {
        return Err(format!("--hidden {}: a multiple of 16 from 16 to 256", options.hidden));
    }
    // The output may be none of the inputs: the data, or the network it starts from.
    let files = data_files(&options.inputs)?;
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).chain(options.init.as_deref().map(Path::new)).collect();
    crate::files::check_output(Path::new(&options.out), &inputs)?;
    // The run's settings and losses go beside the network, under its name and `.json`.
    let record_path = PathBuf::from(format!("{}.json", options.out));
    crate::files::check_output(&record_path, &inputs)?;
    // The starting network is read first: a wrong one is refused before the data is loaded.
    let p = match &options.init {
        None => Params::random(options.seed, options.hidden, options.layout),
        Some(path) => {
            let bytes = crate::files::read(path, Network::MAX_FILE_SIZE as u64)?;
            let net = Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
            if net.base != options.base {
                return Err(format!("{path}: the network's base is {:?}, not {:?} (--base)", net.base, options.base));
            }
            let bucketing = net.layout.is_plain() && !options.layout.is_plain();
            if net.layout != options.layout && !bucketing {
                return Err(format!("{path}: the network's king buckets differ from --king-buckets"));
            }
            if options.hidden < HIDDEN {
                return Err(format!("{path}: the network has {HIDDEN} neurons, --hidden asks for fewer"));
            }
            match options.hidden {
                HIDDEN => writeln!(log, "starting from {path}"),
                wider => writeln!(log, "starting from {path}, widened from {HIDDEN} to {wider} neurons"),
            }
            .map_err(|e| e.to_string())?;
            let mut p = Params::dequantised(&net);
            if bucketing {
                let _ = writeln!(log, "its weights become the king buckets' shared weights (the factoriser)");
                p = p.bucketed(options.layout);
            }
            p.widened(options.hidden, options.seed)
        }
    };
    let stream =
        Stream { mirror: options.mirror, min_ply: options.min_ply, ..Stream::new(files.clone(), options.base)? };
    // The first pass: the held-out games, the number of training positions, and those
    // positions themselves while they fit the cache.
    let (mut valid, mut cache, mut n) = (Data::default(), Some(Data::default()), 0usize);
    let bad = stream.run(|part, unit| {
        match part {
            Part::Valid => valid.append(unit),
            Part::Train => {
                n += unit.len();
                if cache.as_ref().is_some_and(|c| c.len() + unit.len() > options.cache.min(MAX_CACHE)) {
                    cache = None;
                }
                if let Some(c) = &mut cache {
                    c.append(unit);
                }
            }
        }
        Ok(())
    })?;
    if n < 100 || valid.len() == 0 {
        return Err(format!("{} training and {} held-out positions: too few to train on", n, valid.len()));
    }
    let _ = writeln!(
        log,
        "{n} positions for training and {} held out, from {} file(s) ({bad} lines skipped), read in {:.1}s; {}",
        valid.len(),
        stream.files.len(),
        started.elapsed().as_secs_f64(),
        if cache.is_some() {
            "kept in memory".to_string()
        } else {
            format!("read from disk every epoch, {} at a time shuffled", options.buffer)
        }
    );
    let _ = writeln!(
        log,
        "network: {} x {INPUTS} inputs{} -> {} x 2 -> {OUTPUT_BUCKETS} output buckets, base {:?}",
        options.layout.count(),
        if options.layout.mirror { " (mirrored)" } else { "" },
        options.hidden,
        options.base
    );
    let threads = options.threads.max(1);
    let hidden = options.hidden;
    let mut fit = Fit {
        p,
        adam: Adam { m: Params::zeros(hidden, options.layout), v: Params::zeros(hidden, options.layout), t: 0 },
        grads: (0..threads).map(|_| Params::zeros(hidden, options.layout)).collect(),
        options,
        lr: options.lr,
        log,
        epoch: 0,
        epoch_start: Instant::now(),
        total: n,
        done: 0,
        loss: 0.0,
        last_line: Instant::now(),
    };
    let mut rng = Rng::new(options.seed | 1);
    let write = |p: &Params| crate::files::write_whole(Path::new(&options.out), &[], &quantise(p, options.base));
    // Each epoch's validation loss (the run's own targets) and measure (the common ones).
    let losses =
        |p: &Params| (mean_loss(p, &valid, options.lambda, threads), mean_loss(p, &valid, MEASURE_LAMBDA, threads));
    let mut record = Record::new(options, &stream, n, valid.len());
    let (valid0, measure0) = losses(&fit.p);
    let mut best = (0, measure0, valid0);
    let _ = writeln!(fit.log, "epoch 0 validation loss {valid0:.6} measure {measure0:.6}");
    record.epoch(0, options.lr, None, valid0, measure0, 0.0);
    write(&fit.p)?;
    record.write(&record_path, &inputs, best)?;
    for epoch in 1..=options.epochs {
        if options.schedule == Schedule::Steps
            && options.decay_at.iter().any(|&f| epoch == (f * options.epochs as f32).round() as usize + 1)
        {
            fit.lr *= 0.3;
        }
        (fit.epoch, fit.epoch_start, fit.last_line, fit.done, fit.loss) =
            (epoch, Instant::now(), Instant::now(), 0, 0.0);
        match &cache {
            Some(data) => {
                let order = shuffled(data.len(), &mut rng);
                fit.train_on(data, &order);
            }
            None => {
                // A loader thread reads the next window while this one trains on the last.
                let (tx, rx) = mpsc::sync_channel::<Data>(1);
                let window = options.buffer.max(1);
                let stream = &stream;
                std::thread::scope(|s| -> Result<(), String> {
                    // The sender moves into the loader: the windows end when it does.
                    let loader = s.spawn(move || {
                        let mut buf = Data::default();
                        stream.run(|part, unit| {
                            if part == Part::Train {
                                buf.append(unit);
                                if buf.len() >= window {
                                    tx.send(std::mem::take(&mut buf)).map_err(|_| "the trainer stopped".to_string())?;
                                }
                            }
                            Ok(())
                        })?;
                        tx.send(buf).map_err(|_| "the trainer stopped".to_string())
                    });
                    for data in rx.iter() {
                        let order = shuffled(data.len(), &mut rng);
                        fit.train_on(&data, &order);
                    }
                    loader.join().map_err(|_| "the data loader failed".to_string())?.map(|_| ())
                })?;
            }
        }
        let (valid_loss, measure) = losses(&fit.p);
        let train_loss = fit.loss / fit.done.max(1) as f64;
        let _ = writeln!(
            fit.log,
            "epoch {epoch} lr {:.2e} train loss {train_loss:.6} validation loss {valid_loss:.6} measure {measure:.6} ({:.1}s this epoch, {:.0}s in all)",
            fit.lr,
            fit.epoch_start.elapsed().as_secs_f64(),
            started.elapsed().as_secs_f64()
        );
        record.epoch(epoch, fit.lr, Some(train_loss), valid_loss, measure, started.elapsed().as_secs_f64());
        // The file always holds the best network so far by the measure, the starting one
        // included: an interrupted run leaves it usable, and epochs that only fit the training
        // games better are not kept.
        if measure < best.1 {
            best = (epoch, measure, valid_loss);
            write(&fit.p)?;
        }
        record.write(&record_path, &inputs, best)?;
    }
    let _ = writeln!(
        fit.log,
        "network of epoch {} (measure {:.6}, validation loss {:.6}) written to {}, the run's record to {}",
        best.0,
        best.1,
        best.2,
        options.out,
        record_path.display()
    );
    Ok(())
}

/// Quotes `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What a run was (its settings and data) and how it went (each epoch's losses), written as
/// JSON beside the network after every epoch, so the network can be made again and compared.
struct Record {
    head: String,
    epochs: Vec<String>,
}

impl Record {
    fn new(options: &Options, stream: &Stream, train: usize, held_out: usize) -> Record {
        let files: Vec<String> = stream
            .files
            .iter()
            .zip(&stream.sizes)
            .map(|(f, size)| format!("{{\"file\": {}, \"bytes\": {size}}}", json_string(&f.to_string_lossy())))
            .collect();
        let schedule = match options.schedule {
            Schedule::Cosine => format!("\"cosine\", \"lr_end\": {:e}", options.lr_end),
            Schedule::Steps => {
                format!("\"steps\", \"decay_at\": [{}, {}]", options.decay_at[0], options.decay_at[1])
            }
        };
        let base = match options.base {
            Base::None => "none",
            Base::Psqt => "psqt",
            Base::Hce => "hce",
        };
        let init = options.init.as_deref().map_or("null".to_string(), json_string);
        let head = format!(
            "  \"engine\": \"corvid {}\",\n  \"network\": {},\n  \"data\": [\n    {}\n  ],\n  \
             \"positions\": {{\"train\": {train}, \"held_out\": {held_out}}},\n  \
             \"settings\": {{\"epochs\": {}, \"batch\": {}, \"lr\": {:e}, \"schedule\": {schedule}, \
             \"lambda\": {}, \"measure_lambda\": {MEASURE_LAMBDA}, \"min_ply\": {}, \"seed\": {}, \
             \"threads\": {}, \"base\": \"{base}\", \"init\": {init}, \"hidden\": {}, \
             \"king_buckets\": {{\"by_square\": {:?}, \"mirrored\": {}}}, \
             \"mirror\": {}, \"valid_every\": {}, \"valid_max\": {}}}",
            env!("CARGO_PKG_VERSION"),
            json_string(&options.out),
            files.join(",\n    "),
            options.epochs,
            options.batch,
            options.lr,
            options.lambda,
            options.min_ply,
            options.seed,
            options.threads,
            options.hidden,
            options.layout.buckets,
            options.layout.mirror,
            options.mirror,
            stream.valid_every,
            stream.valid_max,
        );
        Record { head, epochs: Vec::new() }
    }

    fn epoch(&mut self, epoch: usize, lr: f32, train: Option<f64>, valid: f64, measure: f64, seconds: f64) {
        let train = train.map_or("null".to_string(), |t| format!("{t:.6}"));
        self.epochs.push(format!(
            "{{\"epoch\": {epoch}, \"lr\": {lr:e}, \"train_loss\": {train}, \"validation_loss\": {valid:.6}, \
             \"measure\": {measure:.6}, \"seconds\": {seconds:.1}}}"
        ));
    }

    fn write(&self, path: &Path, inputs: &[&Path], best: (usize, f64, f64)) -> Result<(), String> {
        let text = format!(
            "{{\n{},\n  \"epochs\": [\n    {}\n  ],\n  \"kept\": {{\"epoch\": {}, \"measure\": {:.6}, \"validation_loss\": {:.6}}}\n}}\n",
            self.head,
            self.epochs.join(",\n    "),
            best.0,
            best.1,
            best.2
        );
        crate::files::write_whole(path, inputs, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything a file holds, without a split: the data, each unit's size, the lines skipped.
    fn load_all(path: &Path) -> (Data, Vec<usize>, usize) {
        let stream = Stream { valid_every: 0, ..Stream::new(vec![path.to_path_buf()], Base::None).unwrap() };
        let (mut data, mut units) = (Data::default(), Vec::new());
        let bad = stream
            .run(|part, unit| {
                assert_eq!(part, Part::Train);
                units.push(unit.len());
                data.append(unit);
                Ok(())
            })
            .unwrap();
        (data, units, bad)
    }

    fn features(pos: &Position) -> Vec<u16> {
        let mut out = Vec::new();
        push_features(pos, &mut out);
        out
    }

    /// Positions from random walks, labelled with a material score (White's view).
    fn labelled_lines(count: usize) -> Vec<String> {
        let values = [100, 300, 300, 500, 900, 0];
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        let mut lines = Vec::new();
        while lines.len() < count {
            let mut pos = Position::startpos();
            for _ in 0..30 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.make_move(moves[rng.below(moves.len())]);
                let material = |c: Color| -> i32 {
                    PieceType::ALL.iter().map(|&pt| values[pt.index()] * pos.colored_pieces(c, pt).count() as i32).sum()
                };
                let score = material(Color::White) - material(Color::Black);
                let result = if score > 0 {
                    "1.0"
                } else if score < 0 {
                    "0.0"
                } else {
                    "0.5"
                };
                lines.push(format!("{} | {score} | {result}", pos.to_fen()));
            }
        }
        lines
    }

    #[test]
    fn quantised_network_matches_the_float_network() {
        // Weights on the quantisation grid (as the trainer's would be after rounding), large enough
        // for outputs of hundreds of centipawns: the integer network must then agree with the
        // float one up to the truncations of its divisions. For every layout: the trainer's
        // inputs are the engine's.
        for name in ["none", "mirror", "4", "8"] {
            let layout = Layout::named(name).unwrap();
            let mut p = Params::random(11, HIDDEN, layout);
            // Every row random (the buckets' own rows start at zero), the factoriser's small
            // enough that no sum is clipped.
            let own = INPUTS * layout.count() * HIDDEN;
            let mut rng = Rng::new(99);
            p.fw[..own].iter_mut().for_each(|w| *w = rng.signed_unit() / (INPUTS as f32).sqrt());
            p.fw[own..].iter_mut().for_each(|w| *w *= 0.25);
            let on_grid = |w: &mut f32, scale: f32, q: i32| *w = (*w * scale * q as f32).round() / q as f32;
            p.fw.iter_mut().for_each(|w| on_grid(w, 8.0, QA));
            p.fb.iter_mut().for_each(|w| *w = 77.0 / QA as f32);
            p.ow.iter_mut().for_each(|w| on_grid(w, 10.0, QB));
            p.ob.iter_mut().enumerate().for_each(|(i, b)| *b = (1000.0 + 300.0 * i as f32) / (QA * QB) as f32);
            let bytes = quantise(&p, Base::None);
            assert_eq!(bytes.len(), Network::file_size(&layout), "{name}");
            let net = Network::from_bytes(&bytes).expect("the trainer writes a valid file");
            assert_eq!(net.layout, layout);
            let mut hidden = vec![0.0; 2 * HIDDEN];
            let mut sum_size = 0.0;
            for line in labelled_lines(200) {
                let fen = line.split('|').next().unwrap().trim();
                let pos = Position::from_fen(fen).unwrap();
                let kings = [pos.king(Color::White).index() as u8, pos.king(Color::Black).index() as u8];
                let float =
                    forward(&p, &features(&pos), pos.side_to_move(), kings, bucket(&pos), &mut hidden) * SCALE as f32;
                let quantised = net.evaluate(&net.refresh(&pos), pos.side_to_move(), bucket(&pos)) as f32;
                assert!((float - quantised).abs() <= 1.5, "{name} {fen}: float {float}, quantised {quantised}");
                sum_size += float.abs();
            }
            assert!(sum_size / 200.0 > 100.0, "the test network's outputs are too small to compare");
        }
    }

    #[test]
    fn games_boards_and_text_load_alike() {
        let dir = std::env::temp_dir().join(format!("corvid-train-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Two games: the quiet moves out of check are the positions kept.
        let mut games = Vec::new();
        let mut kept = Vec::new();
        for line in [
            ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6"],
            ["d2d4", "d7d5", "c2c4", "d5c4", "e2e3", "b7b5", "a2a4", "c7c6"],
        ] {
            let start = Position::startpos();
            let (mut pos, mut moves) = (start, Vec::new());
            for (i, text) in line.iter().enumerate() {
                let m = pos.parse_uci_move(text).unwrap();
                if !pos.in_check() && !m.is_capture() {
                    kept.push(packed::text_line(&pos, i as i16 * 10, packed::Wdl::Draw));
                }
                moves.push((m, i as i16 * 10));
                pos = pos.make_move(m);
            }
            games.push(Game { start, wdl: packed::Wdl::Draw, moves });
        }
        let mut bytes = Vec::new();
        games.iter().for_each(|g| g.write(&mut bytes).unwrap());
        let vf = dir.join("d.vf");
        std::fs::write(&vf, &bytes).unwrap();
        let text = dir.join("d.txt");
        std::fs::write(&text, kept.join("\n") + "\n").unwrap();
        let (from_games, units, bad) = load_all(&vf);
        assert_eq!(bad, 0);
        assert_eq!(from_games.len(), kept.len());
        assert_eq!(units, vec![6, kept.len() - 6], "a unit a game: six quiet positions in the first");
        let (from_text, units, _) = load_all(&text);
        assert_eq!(units, vec![kept.len()], "text: one block");
        assert_eq!(from_text.features, from_games.features);
        let targets = |d: &Data| d.samples.iter().map(|s| s.target(0.75)).collect::<Vec<_>>();
        assert_eq!(targets(&from_text), targets(&from_games));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// What `stream` trains on and what it holds out.
    fn split_of(stream: &Stream) -> (Data, Data) {
        let (mut train, mut valid) = (Data::default(), Data::default());
        stream
            .run(|part, unit| {
                match part {
                    Part::Train => train.append(unit),
                    Part::Valid => valid.append(unit),
                }
                Ok(())
            })
            .unwrap();
        (train, valid)
    }

    /// Random games of `plies` plies each (fewer where one ends), scored by their ply.
    fn random_games(count: usize, plies: usize, seed: u64) -> Vec<Game> {
        let mut rng = Rng::new(seed);
        (0..count)
            .map(|g| {
                let start = Position::startpos();
                let (mut pos, mut moves) = (start, Vec::new());
                for ply in 0..plies + g % 7 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    let m = legal[rng.below(legal.len())];
                    moves.push((m, ply as i16));
                    pos = pos.make_move(m);
                }
                Game { start, wdl: packed::Wdl::from_white_score([0.0, 0.5, 1.0][g % 3]), moves }
            })
            .collect()
    }

    #[test]
    fn reflections_are_the_same_positions_for_the_rules() {
        assert!(mirrored(&Position::startpos()).is_none(), "castling rights tell the wings apart");
        let pos = Position::from_fen("4k3/8/8/2pP4/8/8/1N6/4K2R w - c6 0 2").unwrap();
        let m = mirrored(&pos).unwrap();
        assert_eq!(m.to_fen(), "3k4/8/8/4Pp2/8/8/6N1/R2K4 w - f6 0 2");
        assert_eq!(mirrored(&m).unwrap().to_fen(), pos.to_fen());
        assert_eq!(crate::perft::perft(&m, 3), crate::perft::perft(&pos, 3));
        // Every position of random games without castling rights: the reflection has as many
        // moves a ply and two plies on, and its inputs are the original's with the files swapped.
        let mut seen = 0;
        for game in random_games(40, 80, 9) {
            for (pos, _) in game.positions() {
                let Some(m) = mirrored(&pos) else { continue };
                seen += 1;
                assert_eq!(crate::perft::perft(&m, 2), crate::perft::perft(&pos, 2), "{}", pos.to_fen());
                let swap = |f: u16| f & !7 | (7 - (f & 7));
                let mut ours: Vec<u16> = features(&pos).into_iter().map(swap).collect();
                let mut theirs = features(&m);
                ours.sort_unstable();
                theirs.sort_unstable();
                assert_eq!(ours, theirs, "{}", pos.to_fen());
            }
        }
        assert!(seen > 500, "{seen}");
    }

    #[test]
    fn reflections_are_trained_on_and_never_held_out() {
        let dir = std::env::temp_dir().join(format!("corvid-train-mirror-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let games = random_games(100, 60, 31);
        let mut bytes = Vec::new();
        games.iter().for_each(|g| g.write(&mut bytes).unwrap());
        let vf = dir.join("g.vf");
        std::fs::write(&vf, &bytes).unwrap();
        let split = |mirror: bool, valid_every: u64| {
            split_of(&Stream { mirror, valid_every, ..Stream::new(vec![vf.clone()], Base::Hce).unwrap() })
        };
        // Without a split: one reflection for each kept position without castling rights.
        let kept_without_castling: usize = games
            .iter()
            .map(|g| {
                g.positions()
                    .zip(&g.moves)
                    .filter(|((p, _), (m, _))| !p.in_check() && !m.is_capture() && !m.is_promotion())
                    .filter(|((p, _), _)| p.castling().0 == 0)
                    .count()
            })
            .sum();
        assert!(kept_without_castling > 100, "{kept_without_castling}");
        let (all, _) = split(false, 0);
        let (all_m, _) = split(true, 0);
        assert_eq!(all_m.len(), all.len() + kept_without_castling);
        // With one game in four held out: those stay as they are, reflections only train.
        let (train, valid) = split(false, 4);
        let (train_m, valid_m) = split(true, 4);
        let key = |d: &Data| {
            d.samples.iter().map(|s| (s.target(0.75).to_bits(), s.stm, s.len, s.base.to_bits())).collect::<Vec<_>>()
        };
        assert_eq!(key(&valid_m), key(&valid), "the held-out games stay as they are");
        assert!(train_m.len() > train.len());
        // Each reflection keeps its position's target, side to move and piece count.
        let originals = key(&train);
        let (mut i, mut j) = (0, 0);
        let reflections = key(&train_m);
        while j < reflections.len() {
            if i < originals.len() && reflections[j] == originals[i] {
                i += 1;
            } else {
                let (t, stm, len, _) = reflections[j];
                assert!(originals.iter().any(|o| o.0 == t && o.1 == stm && o.2 == len));
            }
            j += 1;
        }
        assert_eq!(i, originals.len(), "the training positions come first and in order");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn held_out_games_are_whole_and_chosen_by_what_they_are() {
        let dir = std::env::temp_dir().join(format!("corvid-train-units-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let games = random_games(120, 20, 77);
        let mut bytes = Vec::new();
        games.iter().for_each(|g| g.write(&mut bytes).unwrap());
        let vf = dir.join("g.vf");
        std::fs::write(&vf, &bytes).unwrap();
        // Each game alone, as the stream without a split reads it.
        let per_game: Vec<Data> = games
            .iter()
            .map(|g| {
                let mut one = Vec::new();
                g.write(&mut one).unwrap();
                let path = dir.join("one.vf");
                std::fs::write(&path, one).unwrap();
                load_all(&path).0
            })
            .collect();
        // About one game in ten held out (one in 50 in use: too few among 120 games), chosen by
        // what each game is: those and no others, whole.
        let split = |files: Vec<PathBuf>, valid_max: usize, min_ply: u32| {
            split_of(&Stream { valid_max, valid_every: 10, min_ply, ..Stream::new(files, Base::None).unwrap() })
        };
        let chosen: Vec<usize> = (0..games.len()).filter(|&g| mix(game_key(&games[g])) % 10 == 0).collect();
        assert!((4..=30).contains(&chosen.len()), "{chosen:?}");
        let (train, valid) = split(vec![vf.clone()], VALID_MAX, 0);
        let mut expected = Data::default();
        chosen.iter().for_each(|&g| expected.append(&per_game[g]));
        assert_eq!(valid.features, expected.features);
        assert_eq!(train.len() + valid.len(), per_game.iter().map(Data::len).sum::<usize>());
        // The same games wherever they lie: the file's games in reverse order, after another
        // file of other games, hold out the same positions (in their new order).
        let reversed = dir.join("reversed.vf");
        let mut bytes_reversed = Vec::new();
        games.iter().rev().for_each(|g| g.write(&mut bytes_reversed).unwrap());
        std::fs::write(&reversed, &bytes_reversed).unwrap();
        let others = dir.join("others.vf");
        let mut other_bytes = Vec::new();
        let other_games = random_games(60, 20, 78);
        other_games.iter().for_each(|g| g.write(&mut other_bytes).unwrap());
        std::fs::write(&others, &other_bytes).unwrap();
        let (_, valid_elsewhere) = split(vec![others.clone(), reversed.clone()], VALID_MAX, 0);
        let mut expected_elsewhere = Data::default();
        for g in other_games.iter().filter(|g| mix(game_key(g)) % 10 == 0) {
            let mut one = Vec::new();
            g.write(&mut one).unwrap();
            let path = dir.join("one.vf");
            std::fs::write(&path, one).unwrap();
            expected_elsewhere.append(&load_all(&path).0);
        }
        chosen.iter().rev().for_each(|&g| expected_elsewhere.append(&per_game[g]));
        assert_eq!(valid_elsewhere.features, expected_elsewhere.features);
        // `--min-ply` leaves out early positions, not games: the held-out games are the same,
        // each without its first plies.
        let (train_late, valid_late) = split(vec![vf.clone()], VALID_MAX, 12);
        let late = |d: &Data| d.len();
        assert!(late(&valid_late) < valid.len() && late(&valid_late) > 0);
        let later_than_12: usize = chosen
            .iter()
            .map(|&g| {
                games[g]
                    .positions()
                    .zip(&games[g].moves)
                    .filter(|((p, _), (m, _))| {
                        game_ply(p) >= 12 && !p.in_check() && !m.is_capture() && !m.is_promotion()
                    })
                    .count()
            })
            .sum();
        assert_eq!(valid_late.len(), later_than_12);
        assert!(train_late.len() < train.len());
        // The cap on held-out positions ends the split after the first game that reaches it.
        let (train, valid) = split(vec![vf.clone()], 1, 0);
        assert_eq!(valid.features, per_game[chosen[0]].features);
        assert_eq!(train.len() + valid.len(), per_game.iter().map(Data::len).sum::<usize>());
        // A file that datagen is still writing: the half-written game at its end is left out,
        // and what is appended after the training started is not read.
        let whole = load_all(&vf).0;
        let stream = Stream { valid_every: 0, ..Stream::new(vec![vf.clone()], Base::None).unwrap() };
        let mut growing = bytes.clone();
        growing.extend_from_slice(&bytes[..70]);
        std::fs::write(&vf, &growing).unwrap();
        assert_eq!(load_all(&vf).0.features, whole.features);
        growing.extend_from_slice(&bytes);
        std::fs::write(&vf, &growing).unwrap();
        let mut read = Data::default();
        stream
            .run(|_, unit| {
                read.append(unit);
                Ok(())
            })
            .unwrap();
        assert_eq!(read.features, whole.features);
        // A game that is wrong inside the file is an error that names the file.
        let mut broken = bytes.clone();
        broken[40] ^= 0x3f;
        std::fs::write(&vf, &broken).unwrap();
        let err = Stream::new(vec![vf.clone()], Base::None).unwrap().run(|_, _| Ok(())).unwrap_err();
        assert!(err.contains("g.vf"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn compressed_files_read_as_the_plain_ones() {
        let dir = std::env::temp_dir().join(format!("corvid-train-xz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let games = random_games(30, 40, 5);
        let mut bytes = Vec::new();
        games.iter().for_each(|g| g.write(&mut bytes).unwrap());
        let vf = dir.join("g.vf");
        std::fs::write(&vf, &bytes).unwrap();
        let status = std::process::Command::new("xz").args(["-k", "-z"]).arg(&vf).status();
        assert!(status.is_ok_and(|s| s.success()), "xz is needed to make the test's file");
        let xz = dir.join("g.vf.xz");
        let (plain, plain_units, _) = load_all(&vf);
        let (unpacked, units, _) = load_all(&xz);
        assert!(plain.len() > 100);
        assert_eq!(units, plain_units);
        assert_eq!(unpacked.features, plain.features);
        // A directory lists the compressed file as data.
        std::fs::remove_file(&vf).unwrap();
        let files = data_files(&[dir.to_string_lossy().into_owned()]).unwrap();
        assert_eq!(files, vec![xz.clone()]);
        // A damaged one is an error that names it, not a short read taken for the whole.
        let mut damaged = std::fs::read(&xz).unwrap();
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0x55;
        std::fs::write(&xz, &damaged).unwrap();
        let stream = Stream { valid_every: 0, ..Stream::new(vec![xz.clone()], Base::None).unwrap() };
        let err = stream.run(|_, _| Ok(())).unwrap_err();
        assert!(err.contains("g.vf.xz"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn data_files_expand_directories_and_refuse_what_is_not_data() {
        let dir = std::env::temp_dir().join(format!("corvid-train-files-{}", std::process::id()));
        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        for name in ["b.vf", "a.bin", "c.txt", "b.vf.manifest", "notes.md"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let d = dir.to_string_lossy().into_owned();
        let files = data_files(&[d.clone(), format!("{d}/notes.md")]).unwrap();
        let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.bin", "b.vf", "c.txt", "notes.md"], "a named file is read whatever its name");
        let err = data_files(&[empty.to_string_lossy().into_owned()]).unwrap_err();
        assert!(err.contains("no training data"), "{err}");
        assert!(data_files(&[format!("{d}/missing.vf")]).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_embedded_network_survives_dequantising() {
        let net = crate::nnue::network();
        assert_eq!(quantise(&Params::dequantised(net), net.base), crate::nnue::EMBEDDED);
    }

    /// Trains with `options`, which must succeed; returns the log.
    fn run(options: &Options) -> String {
        let mut log = Vec::new();
        train(options, &mut log).unwrap();
        String::from_utf8(log).unwrap()
    }

    /// The values after `what` on each epoch line of a training log, epoch 0 first.
    fn epoch_values(log: &str, what: &str) -> Vec<f64> {
        log.lines()
            .filter(|l| l.starts_with("epoch "))
            .filter_map(|l| l.split(what).nth(1))
            .map(|v| v.split_whitespace().next().unwrap().parse().unwrap())
            .collect()
    }

    /// The validation losses of a training log, epoch 0 first.
    fn validation_losses(log: &str) -> Vec<f64> {
        epoch_values(log, "validation loss ")
    }

    #[test]
    fn streaming_from_disk_trains_a_wider_network() {
        let path = std::env::temp_dir().join(format!("corvid-stream-{}.txt", std::process::id()));
        let out = std::env::temp_dir().join(format!("corvid-stream-{}.nnue", std::process::id()));
        std::fs::write(&path, labelled_lines(24_000).join("\n")).unwrap();
        let options = Options {
            epochs: 8,
            batch: 64,
            lr: 0.002,
            lambda: 1.0,
            threads: 2,
            seed: 5,
            hidden: 256,
            cache: 0,
            buffer: 3_000,
            ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
        };
        let log = run(&options);
        assert!(log.contains("read from disk every epoch, 3000 at a time"), "{log}");
        let losses = validation_losses(&log);
        assert_eq!(losses.len(), 9, "{log}");
        assert!(losses[8] < losses[0] * 0.3, "{log}");
        // The same data kept in memory: the same held-out positions, so the same starting loss.
        let mut cached_log = Vec::new();
        train(&Options { epochs: 1, cache: 1 << 20, ..options.clone() }, &mut cached_log).unwrap();
        let cached_log = String::from_utf8(cached_log).unwrap();
        assert!(cached_log.contains("kept in memory"), "{cached_log}");
        assert_eq!(validation_losses(&cached_log)[0], losses[0], "{cached_log}");
        // A 256-wide file: its header and size say so, and a build of another width refuses it
        // with a reason.
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 256);
        assert_eq!(bytes.len(), 12 + 2 * (INPUTS * 256 + 256 + OUTPUT_BUCKETS * 2 * 256) + 4 * OUTPUT_BUCKETS);
        if HIDDEN != 256 {
            let err = Network::from_bytes(&bytes).err().expect("another width");
            assert!(err.contains("256"), "{err}");
        }
        // King buckets (4, mirrored, with the factoriser) learn the same signal.
        let bucketed = Options { hidden: 32, epochs: 4, layout: Layout::named("4").unwrap(), ..options.clone() };
        let log = run(&bucketed);
        assert!(log.contains("network: 4 x 768 inputs (mirrored) -> 32 x 2"), "{log}");
        let losses = validation_losses(&log);
        assert!(losses[4] < losses[0] * 0.5, "{log}");
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(&bytes[..8], b"CRVDNET2");
        assert_eq!(bytes.len(), 80 + 2 * (4 * INPUTS * 32 + 32 + OUTPUT_BUCKETS * 2 * 32) + 4 * OUTPUT_BUCKETS);
        assert_eq!(bytes[12..76], Layout::named("4").unwrap().buckets);
        for hidden in [0, 100, 512] {
            let err = train(&Options { hidden, ..options.clone() }, &mut Vec::new()).unwrap_err();
            assert!(err.contains("--hidden"), "{err}");
        }
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&out);
    }

    #[test]
    fn the_measure_is_one_scale_and_the_learning_rate_falls_to_its_end() {
        let path = std::env::temp_dir().join(format!("corvid-measure-{}.txt", std::process::id()));
        let out = std::env::temp_dir().join(format!("corvid-measure-{}.nnue", std::process::id()));
        std::fs::write(&path, labelled_lines(14_000).join("\n")).unwrap();
        let options = Options {
            epochs: 4,
            batch: 64,
            lr: 0.002,
            lr_end: 2e-5,
            threads: 2,
            seed: 8,
            hidden: 32,
            ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
        };
        // The same network on the same held-out positions: the same measure whatever the run's
        // lambda, where the loss on the run's own targets differs.
        let (high, low) =
            (run(&Options { lambda: 0.9, ..options.clone() }), run(&Options { lambda: 0.1, ..options.clone() }));
        let measure = |log: &str| epoch_values(log, "measure ")[0];
        assert_eq!(measure(&high), measure(&low), "{high}\n{low}");
        assert_ne!(validation_losses(&high)[0], validation_losses(&low)[0]);
        // Cosine: the rate falls every epoch and ends at --lr-end; steps: cut by 0.3 twice.
        let rates = epoch_values(&low, " lr ");
        assert_eq!(rates.len(), 4, "{low}");
        assert!(rates.windows(2).all(|w| w[1] < w[0]), "{low}");
        assert!((rates[3] - 2e-5).abs() < 1e-6, "{low}");
        let steps = run(&Options { schedule: Schedule::Steps, epochs: 8, ..options.clone() });
        let rates = epoch_values(&steps, " lr ");
        let cuts: Vec<f64> = rates.windows(2).map(|w| w[1] / w[0]).filter(|r| (r - 1.0).abs() > 1e-3).collect();
        assert_eq!(cuts.len(), 2, "{steps}");
        assert!(cuts.iter().all(|r| (r - 0.3).abs() < 1e-3), "{steps}");
        // The record beside the network: the settings and every epoch, as JSON.
        let record = std::fs::read_to_string(format!("{}.json", options.out)).unwrap();
        for wanted in ["\"schedule\": \"steps\"", "\"measure_lambda\": 0.5", "\"min_ply\": 0", "\"kept\": {\"epoch\": "]
        {
            assert!(record.contains(wanted), "{wanted} in {record}");
        }
        assert_eq!(record.matches("\"measure\": ").count(), 9 + 1, "epochs 0-8 and the kept one: {record}");
        let depth = record.chars().try_fold(0i32, |d, c| {
            let d = d + i32::from(c == '{' || c == '[') - i32::from(c == '}' || c == ']');
            (d >= 0).then_some(d)
        });
        assert_eq!(depth, Some(0), "balanced: {record}");
        // The record may not overwrite an input either.
        let onto_data = Options { out: path.to_string_lossy().trim_end_matches(".txt").to_string(), ..options.clone() };
        let renamed = format!("{}.json", onto_data.out);
        std::fs::copy(&path, &renamed).unwrap();
        let err = train(&Options { inputs: vec![renamed.clone()], ..onto_data }, &mut Vec::new()).unwrap_err();
        assert!(err.contains("both an input"), "{err}");
        for f in [path.to_string_lossy().into_owned(), renamed, options.out.clone(), format!("{}.json", options.out)] {
            let _ = std::fs::remove_file(f);
        }
    }

    #[test]
    fn training_fits_a_material_signal() {
        let path = std::env::temp_dir().join(format!("corvid-train-{}.txt", std::process::id()));
        let out = std::env::temp_dir().join(format!("corvid-train-{}.nnue", std::process::id()));
        let mut text = labelled_lines(24_000).join("\n");
        text.push_str("\nnot a line\n");
        std::fs::write(&path, text).unwrap();
        let options = Options {
            epochs: 12,
            batch: 64,
            lr: 0.002,
            lambda: 1.0,
            threads: 2,
            seed: 3,
            ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
        };
        let log = run(&options);
        let losses = validation_losses(&log);
        assert!(log.contains("(1 lines skipped)"), "{log}");
        assert_eq!(losses.len(), 13, "{log}");
        assert!(losses[12] < losses[0] * 0.25, "{log}");
        // The file holds the epoch with the lowest measure.
        let measures = epoch_values(&log, "measure ");
        assert_eq!(measures.len(), 13, "{log}");
        let best = measures.iter().copied().fold(f64::MAX, f64::min);
        assert!(log.contains(&format!("(measure {best:.6}, validation")), "{log}");
        // Fresh positions (the walks go on past the training ones): a side a minor piece or more
        // ahead must be seen ahead.
        let net = Network::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
        let (mut agree, mut total) = (0, 0);
        for line in labelled_lines(28_000).iter().skip(24_000) {
            let fields: Vec<&str> = line.split('|').map(str::trim).collect();
            let score: i32 = fields[1].parse().unwrap();
            if score.abs() < 300 {
                continue;
            }
            let pos = Position::from_fen(fields[0]).unwrap();
            let white_view = net.evaluate(&net.refresh(&pos), pos.side_to_move(), bucket(&pos))
                * if pos.side_to_move() == Color::White { 1 } else { -1 };
            total += 1;
            agree += usize::from((white_view > 0) == (score > 0));
        }
        assert!(total > 100 && agree * 10 >= total * 9, "{agree} of {total} agree\n{log}");

        // Fine-tuning starts where the first run ended: the same held-out positions score as
        // they did after its best epoch (up to quantisation), not as random weights do.
        let tuned = std::env::temp_dir().join(format!("corvid-train-{}-tuned.nnue", std::process::id()));
        let again = Options {
            init: Some(options.out.clone()),
            out: tuned.to_string_lossy().into_owned(),
            epochs: 1,
            lr: 1e-6,
            ..options.clone()
        };
        let log = run(&again);
        let start = *epoch_values(&log, "measure ").first().unwrap_or_else(|| panic!("{log}"));
        assert!((start - best).abs() <= best * 0.1, "started at {start}, the best epoch had {best}\n{log}");
        // A step so large that every epoch is worse than the start: the starting network is
        // what comes out, byte for byte.
        let ruined = Options { lr: 5.0, epochs: 2, ..again.clone() };
        let log = run(&ruined);
        assert!(log.contains("network of epoch 0 "), "{log}");
        assert_eq!(std::fs::read(&tuned).unwrap(), std::fs::read(&out).unwrap(), "{log}");
        // Grown to twice the width, the network starts as the same function: the same loss.
        if HIDDEN <= 128 {
            let log = run(&Options { hidden: 2 * HIDDEN, epochs: 1, ..again.clone() });
            assert!(log.contains("widened from"), "{log}");
            assert_eq!(epoch_values(&log, "measure ")[0], start, "{log}");
        }
        // Bucketed without mirroring (four buckets by pairs of ranks), the plain network's
        // weights shared by every bucket: the same function, the same loss.
        let mut by_ranks = Layout::PLAIN;
        by_ranks.buckets.iter_mut().enumerate().for_each(|(sq, b)| *b = (sq / 16) as u8);
        let log = run(&Options { layout: by_ranks, epochs: 1, ..again.clone() });
        assert!(log.contains("the factoriser"), "{log}");
        assert!((epoch_values(&log, "measure ")[0] - start).abs() < 1e-6, "{log}");
        // A bucketed network does not start a network of other buckets.
        let four = Options { layout: Layout::named("4").unwrap(), init: Some(options.out.clone()), ..again.clone() };
        train(&four, &mut Vec::new()).unwrap();
        let elsewhere = format!("{}.eight", again.out);
        let eight = Options {
            layout: Layout::named("8").unwrap(),
            init: Some(again.out.clone()),
            out: elsewhere,
            ..again.clone()
        };
        assert!(train(&eight, &mut Vec::new()).unwrap_err().contains("king buckets"));
        // Nor is the network it starts from its output.
        let onto_itself = Options { init: Some(again.out.clone()), ..again.clone() };
        assert!(train(&onto_itself, &mut Vec::new()).unwrap_err().contains("both an input"));
        let wrong_base = Options { base: Base::Psqt, ..again.clone() };
        let err = train(&wrong_base, &mut Vec::new()).unwrap_err();
        assert!(err.contains("base"), "{err}");
        let missing = Options { init: Some("/nonexistent/net.nnue".into()), ..again };
        assert!(train(&missing, &mut Vec::new()).is_err());
        let _ = std::fs::remove_file(&tuned);
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&out);
    }
}
