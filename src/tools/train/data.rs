//! The trainer's data: positions as samples, the files they come from, the held-out split.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::super::packed::{self, Format, Game};
use super::{BLOCK, VALID_EVERY, VALID_MAX};
use crate::nnue::{bucket, feature, Base, SCALE};
use crate::position::Position;
use crate::tt::MATE_BOUND;
use crate::types::{Color, PieceType, Square};

/// One training position: features from White's perspective (Black's are derived) and target.
#[derive(Clone, Copy)]
pub(super) struct Sample {
    pub(super) start: u32,
    pub(super) len: u8,
    pub(super) bucket: u8,
    pub(super) stm: Color,
    /// The squares of the white and the black king.
    pub(super) kings: [u8; 2],
    /// The game's result for the side to move, in halves (0 loss, 1 draw, 2 win).
    pub(super) result: u8,
    /// The search score as a win probability for the side to move.
    pub(super) score: f32,
    /// The base's value in output units (`cp / SCALE`).
    pub(super) base: f32,
}

impl Sample {
    /// The target with the search score weighted `lambda` against the result.
    pub(super) fn target(&self, lambda: f32) -> f32 {
        lambda * self.score + (1.0 - lambda) * f32::from(self.result) / 2.0
    }
}

/// Training positions: their features side by side, and a [`Sample`] for each.
#[derive(Default)]
pub(super) struct Data {
    pub(super) samples: Vec<Sample>,
    pub(super) features: Vec<u16>,
}

impl Data {
    pub(super) fn len(&self) -> usize {
        self.samples.len()
    }

    pub(super) fn clear(&mut self) {
        self.samples.clear();
        self.features.clear();
    }

    pub(super) fn append(&mut self, other: &Data) {
        let offset = self.features.len() as u32;
        self.features.extend_from_slice(&other.features);
        self.samples.extend(other.samples.iter().map(|s| Sample { start: s.start + offset, ..*s }));
    }

    /// Adds `pos` with its search score and the game's result (both White's view).
    pub(super) fn push(&mut self, pos: &Position, score: f32, result: f32, base: Base) {
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

    pub(super) fn features_of(&self, s: &Sample) -> &[u16] {
        &self.features[s.start as usize..s.start as usize + s.len as usize]
    }
}

/// Centipawns per unit of the win-probability sigmoid: `sigmoid(cp / WDL_SCALE)`. The tuner
/// finds `K = 1.97` for the hand-crafted evaluation on game results (`sigmoid(K cp / 400)`), so
/// about 400 / 1.97; with it the search scores and the results in a target agree on what an
/// advantage is worth, and the network keeps the evaluation's centipawn scale.
pub(super) const WDL_SCALE: f32 = 200.0;

pub(super) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Appends the code of every piece of `pos` to `out`: `(colour x 6 + piece type) x 64 +
/// square`, the index of White's plain view (see [`crate::nnue::View::index_of_code`]).
pub(super) fn push_features(pos: &Position, out: &mut Vec<u16>) {
    for color in Color::ALL {
        for piece in PieceType::ALL {
            for sq in pos.colored_pieces(color, piece) {
                out.push(feature(Color::White, color, piece, sq) as u16);
            }
        }
    }
}

/// The data files of `inputs`: each file as named, and each directory's `.vf`, `.bin`, `.pgn`
/// and `.txt` files (each also packed: `.xz`, `.bz2`, `.gz`, `.tar`) in the order of their names.
pub(super) fn data_files(inputs: &[String]) -> Result<Vec<PathBuf>, String> {
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
                let name = crate::files::Packing::of(&name).1;
                [".vf", ".bin", ".pgn", ".txt"].iter().any(|k| name.ends_with(k))
            })
            .collect();
        if found.is_empty() {
            return Err(format!(
                "{input}: no training data in this directory (.vf, .bin, .pgn or .txt files, or .xz, .bz2, .gz or .tar of them)"
            ));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// The ply of `pos` in its game, from the standard start (its fullmove number and side to move).
pub(super) fn game_ply(pos: &Position) -> u32 {
    2 * u32::from(pos.fullmove_number().max(1) - 1) + u32::from(pos.side_to_move() == Color::Black)
}

/// What identifies a game, whatever file it is in and wherever: its start and its first moves.
pub(super) fn game_key(game: &Game) -> u64 {
    game.moves.iter().take(8).fold(game.start.key(), |key, (m, _)| mix(key ^ u64::from(m.raw())))
}

/// A 64-bit finaliser (SplitMix64's): every bit of the input moves about half the output's.
pub(super) fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Which side of the split a unit of data falls on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Train,
    Valid,
}

/// The training data on disk, read in order and split into units (see the module header).
pub(super) struct Stream {
    pub(super) files: Vec<PathBuf>,
    /// The bytes of each file read: its size when the training started, so that every epoch
    /// reads the same data from a file that `datagen` is still appending to.
    pub(super) sizes: Vec<u64>,
    pub(super) base: Base,
    /// About one unit in this many is held out (0: none).
    pub(super) valid_every: u64,
    pub(super) valid_max: usize,
    /// Training units also yield their positions reflected left to right (see [`mirrored`]).
    pub(super) mirror: bool,
    /// See [`Options::min_ply`].
    pub(super) min_ply: u32,
    /// The tag of one unit held out whatever `valid_every` says (see [`Stream::lowest_tag`]):
    /// for data too small for one unit in `valid_every` to fall out.
    pub(super) hold: Option<u64>,
}

/// What one pass over a stream saw besides its units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Pass {
    /// Text lines that could not be read.
    pub(super) bad: usize,
    /// Units with positions.
    pub(super) units: u64,
    /// The lowest unit tag (a game's mixed key, a block's place): the unit
    /// [`Stream::hold`] picks where none was held out, chosen by what it is, as the others are.
    pub(super) lowest_tag: Option<u64>,
}

/// `pos` reflected left to right, files a and h swapped, when it has no castling rights: then
/// the reflection is the same position for the rules, with the same score and result. Held-out
/// games are never reflected.
pub(super) fn mirrored(pos: &Position) -> Option<Position> {
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
pub(super) struct Unit {
    pub(super) data: Data,
    pub(super) reflected: Data,
}

impl Unit {
    pub(super) fn push(&mut self, stream: &Stream, pos: &Position, score: f32, result: f32) {
        self.data.push(pos, score, result, stream.base);
        if let Some(m) = mirrored(pos).filter(|_| stream.mirror) {
            self.reflected.push(&m, score, result, stream.base);
        }
    }
}

impl Stream {
    pub(super) fn new(files: Vec<PathBuf>, base: Base) -> Result<Stream, String> {
        let sizes = files
            .iter()
            .map(|f| std::fs::metadata(f).map(|m| m.len()).map_err(|e| format!("{}: {e}", f.display())))
            .collect::<Result<_, _>>()?;
        Ok(Stream {
            files,
            sizes,
            base,
            valid_every: VALID_EVERY,
            valid_max: VALID_MAX,
            mirror: false,
            min_ply: 0,
            hold: None,
        })
    }

    /// Reads `path`'s first `size` bytes (all of it if packed: `.xz`, `.bz2`, `.gz` or a `.tar`
    /// archive, unpacked by [`crate::files::Unpacked`]) into `read`, and then checks that the
    /// unpacking ended well.
    pub(super) fn open(
        path: &Path,
        size: u64,
        read: &mut dyn FnMut(&mut dyn BufRead) -> Result<(), String>,
    ) -> Result<(), String> {
        let name = path.display();
        if crate::files::Packing::of(&path.to_string_lossy()).0 == crate::files::Packing::Plain {
            let file = std::fs::File::open(path).map_err(|e| format!("{name}: {e}"))?;
            return read(&mut BufReader::with_capacity(1 << 20, file.take(size)));
        }
        let mut unpacked = crate::files::Unpacked::open(path)?;
        // Stopped early (an error), the unpacking tools are stopped with it (dropped).
        read(&mut BufReader::with_capacity(1 << 20, &mut unpacked))?;
        unpacked.finish()
    }

    /// Reads every file, handing each unit to `sink` with its part; returns the number of
    /// unreadable text lines skipped. Of games, the positions worth training on are kept: not in
    /// check, the move played quiet, the score not a mate. A training unit's reflections follow
    /// it as a unit of their own.
    pub(super) fn run(&self, sink: impl FnMut(Part, &Data) -> Result<(), String>) -> Result<usize, String> {
        self.pass(sink).map(|p| p.bad)
    }

    /// [`Stream::run`], with what the pass saw.
    pub(super) fn pass(&self, mut sink: impl FnMut(Part, &Data) -> Result<(), String>) -> Result<Pass, String> {
        let (mut index, mut held, mut bad) = (0u64, 0usize, 0usize);
        let mut lowest: Option<u64> = None;
        // `key`: what a game is (see `game_key`); blocks of positions go by their place.
        let mut emit = |unit: &mut Unit, key: Option<u64>| -> Result<(), String> {
            if unit.data.len() == 0 {
                return Ok(());
            }
            index += 1;
            let tag = key.map_or(index, mix);
            lowest = Some(lowest.map_or(tag, |l| l.min(tag)));
            let chosen = self.hold == Some(tag) || (self.valid_every > 0 && tag % self.valid_every == 0);
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
            let format = Format::of(crate::files::Packing::of(&plain).1);
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
                        for (n, pgn) in crate::tools::pgn::read_games(&text).iter().enumerate() {
                            let game =
                                crate::tools::pgn::to_game(pgn).map_err(|e| format!("{name}: game {}: {e}", n + 1))?;
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
        Ok(Pass { bad, units: index, lowest_tag: lowest })
    }
}
