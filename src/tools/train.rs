//! `corvid train`: fits the network to positions labelled by search (`corvid datagen --scores`).
//!
//! Each position's target blends the search score and the game result in win-probability space:
//! `lambda * sigmoid(score / WDL_SCALE) + (1 - lambda) * result`, both from the side to move's view.
//! The loss is the mean squared error between `sigmoid(output cp / WDL_SCALE)` and the target; Adam with a step
//! decay of the learning rate; mini-batches split over threads (each thread sums its gradients,
//! the sums are added before the step). The float weights are clipped to [`WEIGHT_CLIP`] after
//! every step and quantised once at the end (see the module header of [`super`]). With a base
//! (`--base psqt|hce`), the network learns a correction: its output is added to the base's value
//! before the sigmoid.

use std::io::{BufRead, BufReader, Read, Write};
use std::time::Instant;

use super::packed::{self, Format, Game};
use crate::nnue::{bucket, feature, Base, Network, HIDDEN, INPUTS, OUTPUT_BUCKETS, QA, QB, SCALE, WEIGHT_CLIP};
use crate::position::Position;
use crate::rng::Rng;
use crate::tt::MATE_BOUND;
use crate::types::{Color, PieceType};

/// Training settings.
#[derive(Clone, Debug)]
pub struct Options {
    pub file: String,
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
    /// Epochs after which the learning rate is multiplied by 0.3 (fractions of `epochs`).
    pub decay_at: [f32; 2],
}

/// One training position: features from White's perspective (Black's are derived) and target.
struct Sample {
    start: u32,
    len: u8,
    bucket: u8,
    stm: Color,
    target: f32,
    /// The base's value in output units (`cp / SCALE`).
    base: f32,
}

struct Data {
    samples: Vec<Sample>,
    features: Vec<u16>,
    /// The first sample of each game, where the data has games (viriformat, PGN).
    game_starts: Vec<u32>,
}

/// The float network.
#[derive(Clone)]
struct Params {
    /// `INPUTS x HIDDEN`, row per input.
    fw: Vec<f32>,
    fb: Vec<f32>,
    /// `OUTPUT_BUCKETS x 2 x HIDDEN`: per bucket, side to move, then the other side.
    ow: Vec<f32>,
    ob: Vec<f32>,
}

impl Params {
    fn zeros() -> Params {
        Params {
            fw: vec![0.0; INPUTS * HIDDEN],
            fb: vec![0.0; HIDDEN],
            ow: vec![0.0; OUTPUT_BUCKETS * 2 * HIDDEN],
            ob: vec![0.0; OUTPUT_BUCKETS],
        }
    }

    fn random(seed: u64) -> Params {
        let mut rng = Rng::new(seed | 1);
        let mut next = move |scale: f32| rng.signed_unit() * scale;
        let mut p = Params::zeros();
        let fs = 1.0 / (INPUTS as f32).sqrt();
        p.fw.iter_mut().for_each(|w| *w = next(fs));
        let os = 1.0 / ((2 * HIDDEN) as f32).sqrt();
        p.ow.iter_mut().for_each(|w| *w = next(os));
        p
    }

    /// The float weights a quantised network stands for: training goes on from where the run
    /// that wrote it stopped, up to the rounding of its quantisation.
    fn dequantised(net: &Network) -> Params {
        let mut p = Params::zeros();
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

/// The black-perspective index of a white-perspective feature.
fn flip(f: u16) -> usize {
    let f = f as usize;
    let (kind, sq) = (f / 64, f % 64);
    let (relative, piece) = (kind / 6, kind % 6);
    ((1 - relative) * 6 + piece) * 64 + (sq ^ 56)
}

/// Appends the White-perspective input index of every piece of `pos` to `out`.
fn push_features(pos: &Position, out: &mut Vec<u16>) {
    for color in Color::ALL {
        for piece in PieceType::ALL {
            for sq in pos.colored_pieces(color, piece) {
                out.push(feature(Color::White, color, piece, sq) as u16);
            }
        }
    }
}

/// Reads the training data in any of Corvid's formats (by the file's name, see
/// [`Format::of`]): `FEN | score | result` text, marlinformat boards, viriformat games or a
/// match runner's PGN. Of games, the positions worth training on are kept: not in check, the
/// move played quiet, the score not a mate. Returns the data and the number of text lines
/// skipped as unreadable.
fn load(path: &str, lambda: f32, base: Base) -> Result<(Data, usize), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut reader = BufReader::new(file);
    let mut data = Data { samples: Vec::new(), features: Vec::new(), game_starts: Vec::new() };
    let mut bad = 0;
    let add = |data: &mut Data, pos: &Position, score: f32, result: f32| {
        let stm = pos.side_to_move();
        let (score, result) = match stm {
            Color::White => (score, result),
            Color::Black => (-score, 1.0 - result),
        };
        let target = lambda * sigmoid(score / WDL_SCALE) + (1.0 - lambda) * result;
        let start = data.features.len() as u32;
        push_features(pos, &mut data.features);
        let len = (data.features.len() as u32 - start) as u8;
        let base = base.value(pos) as f32 / SCALE as f32;
        data.samples.push(Sample { start, len, bucket: bucket(pos) as u8, stm, target, base });
    };
    let add_game = |data: &mut Data, game: &Game| {
        data.game_starts.push(data.samples.len() as u32);
        for ((pos, score), &(m, _)) in game.positions().zip(&game.moves) {
            if !pos.in_check() && !m.is_capture() && !m.is_promotion() && i32::from(score).abs() < MATE_BOUND {
                add(data, &pos, f32::from(score), game.wdl.white_score());
            }
        }
    };
    match Format::of(path) {
        Format::Text => {
            for line in reader.lines() {
                let line = line.map_err(|e| format!("{path}: {e}"))?;
                if line.trim().is_empty() {
                    continue;
                }
                match packed::parse_text(&line) {
                    Ok((pos, score, wdl)) => add(&mut data, &pos, f32::from(score), wdl.white_score()),
                    Err(_) => bad += 1,
                }
            }
        }
        Format::Boards => loop {
            let mut board = [0u8; packed::BOARD_BYTES];
            match reader.read_exact(&mut board) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(format!("{path}: {e}")),
            }
            let (pos, score, wdl) = packed::unpack(&board).map_err(|e| format!("{path}: {e}"))?;
            add(&mut data, &pos, f32::from(score), wdl.white_score());
        },
        Format::Games => {
            while let Some(game) = Game::read(&mut reader).map_err(|e| format!("{path}: {e}"))? {
                add_game(&mut data, &game);
            }
        }
        Format::Pgn => {
            let mut text = String::new();
            reader.read_to_string(&mut text).map_err(|e| format!("{path}: {e}"))?;
            for (n, pgn) in super::pgn::read_games(&text).iter().enumerate() {
                if let Some(game) = super::pgn::to_game(pgn).map_err(|e| format!("{path}: game {}: {e}", n + 1))? {
                    add_game(&mut data, &game);
                }
            }
        }
    }
    Ok((data, bad))
}

/// The input index of white-perspective feature `f` from `perspective`.
fn index(f: u16, perspective: Color) -> usize {
    if perspective == Color::White {
        f as usize
    } else {
        flip(f)
    }
}

/// The float network's output for the features `feats` (White's perspective) with `stm` to
/// move; leaves both accumulators (side to move first) in `hidden`.
fn forward(p: &Params, feats: &[u16], stm: Color, bucket: usize, hidden: &mut [f32]) -> f32 {
    let (us, them) = hidden.split_at_mut(HIDDEN);
    us.copy_from_slice(&p.fb);
    them.copy_from_slice(&p.fb);
    for &f in feats {
        let (a, b) = (index(f, stm), index(f, !stm));
        let (ra, rb) = (&p.fw[a * HIDDEN..(a + 1) * HIDDEN], &p.fw[b * HIDDEN..(b + 1) * HIDDEN]);
        us.iter_mut().zip(ra).for_each(|(h, w)| *h += w);
        them.iter_mut().zip(rb).for_each(|(h, w)| *h += w);
    }
    let mut out = p.ob[bucket];
    for (h, w) in hidden.iter().zip(&p.ow[bucket * 2 * HIDDEN..(bucket + 1) * 2 * HIDDEN]) {
        let c = h.clamp(0.0, 1.0);
        out += c * c * w;
    }
    out
}

/// Forward and (with `grad`) backward pass of one sample; returns its squared error.
fn step_sample(p: &Params, data: &Data, s: &Sample, grad: Option<&mut Params>, hidden: &mut [f32]) -> f32 {
    let feats = &data.features[s.start as usize..s.start as usize + s.len as usize];
    let b = s.bucket as usize;
    let out = forward(p, feats, s.stm, b, hidden) + s.base;
    let stretch = SCALE as f32 / WDL_SCALE;
    let pred = sigmoid(out * stretch);
    let err = pred - s.target;
    let Some(g) = grad else { return err * err };
    let d_out = 2.0 * err * pred * (1.0 - pred) * stretch;
    g.ob[b] += d_out;
    // d hidden, reusing `hidden` after the output gradient is taken.
    let bucket_weights = b * 2 * HIDDEN..(b + 1) * 2 * HIDDEN;
    for ((h, w), gw) in hidden.iter_mut().zip(&p.ow[bucket_weights.clone()]).zip(g.ow[bucket_weights].iter_mut()) {
        let c = h.clamp(0.0, 1.0);
        *gw += d_out * c * c;
        *h = if *h > 0.0 && *h < 1.0 { d_out * w * 2.0 * c } else { 0.0 };
    }
    let (dus, dthem) = hidden.split_at(HIDDEN);
    g.fb.iter_mut().zip(dus.iter().zip(dthem)).for_each(|(gb, (x, y))| *gb += x + y);
    for &f in feats {
        let (a, b) = (index(f, s.stm), index(f, !s.stm));
        g.fw[a * HIDDEN..(a + 1) * HIDDEN].iter_mut().zip(dus).for_each(|(gw, d)| *gw += d);
        g.fw[b * HIDDEN..(b + 1) * HIDDEN].iter_mut().zip(dthem).for_each(|(gw, d)| *gw += d);
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

/// Mean loss over `samples` (indices into `data`), over `threads` threads.
fn mean_loss(p: &Params, data: &Data, samples: &[u32], threads: usize) -> f64 {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut hidden = vec![0.0; 2 * HIDDEN];
                    part.iter()
                        .map(|&i| f64::from(step_sample(p, data, &data.samples[i as usize], None, &mut hidden)))
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    total / samples.len().max(1) as f64
}

/// The quantised network file of `p`.
fn quantise(p: &Params, base: Base) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(Network::FILE_SIZE);
    bytes.extend_from_slice(base.magic());
    bytes.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
    let q = |x: f32, scale: i32| ((x * scale as f32).round() as i32).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
    for &w in p.fw.iter().chain(&p.fb) {
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

/// Trains from `options.file` and writes the network to `options.out`; progress on `log`.
pub fn train(options: &Options, log: &mut impl Write) -> Result<(), String> {
    let started = Instant::now();
    // The starting network is read first: a wrong one is refused before the data is loaded.
    let mut p = match &options.init {
        None => Params::random(options.seed),
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
            let net = Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
            if net.base != options.base {
                return Err(format!("{path}: the network's base is {:?}, not {:?} (--base)", net.base, options.base));
            }
            let _ = writeln!(log, "starting from {path}");
            Params::dequantised(&net)
        }
    };
    let (data, bad) = load(&options.file, options.lambda, options.base)?;
    let n = data.samples.len();
    if n < 100 {
        return Err(format!("{}: {n} usable positions, too few to train on", options.file));
    }
    let _ = writeln!(log, "{n} positions ({bad} lines skipped), loaded in {:.1}s", started.elapsed().as_secs_f64());
    let (mut train, valid) = split(n, &data.game_starts);
    let _ = writeln!(log, "{} positions for training, the last {} held out", train.len(), valid.len());
    let mut rng = Rng::new(options.seed | 1);

    let mut adam = Adam { m: Params::zeros(), v: Params::zeros(), t: 0 };
    let threads = options.threads.max(1);
    let mut grads: Vec<Params> = (0..threads).map(|_| Params::zeros()).collect();
    let mut lr = options.lr;
    let write = |p: &Params| {
        std::fs::write(&options.out, quantise(p, options.base)).map_err(|e| format!("{}: {e}", options.out))
    };
    let mut best = (0, mean_loss(&p, &data, &valid, threads));
    let _ = writeln!(log, "epoch 0 validation loss {:.6}", best.1);
    write(&p)?;
    for epoch in 1..=options.epochs {
        if options.decay_at.iter().any(|&f| epoch == (f * options.epochs as f32).round() as usize + 1) {
            lr *= 0.3;
        }
        for i in (1..train.len()).rev() {
            train.swap(i, rng.below(i + 1));
        }
        let mut train_loss = 0.0f64;
        let (epoch_start, mut last_line, mut done) = (Instant::now(), Instant::now(), 0usize);
        for batch in train.chunks(options.batch.max(1)) {
            let chunk = batch.len().div_ceil(threads);
            let p_ref = &p;
            let data_ref = &data;
            let losses: Vec<f64> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .chunks(chunk)
                    .zip(grads.iter_mut())
                    .map(|(part, g)| {
                        s.spawn(move || {
                            g.clear();
                            let mut hidden = vec![0.0; 2 * HIDDEN];
                            part.iter()
                                .map(|&i| {
                                    f64::from(step_sample(
                                        p_ref,
                                        data_ref,
                                        &data_ref.samples[i as usize],
                                        Some(g),
                                        &mut hidden,
                                    ))
                                })
                                .sum::<f64>()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap_or(0.0)).collect()
            });
            train_loss += losses.iter().sum::<f64>();
            let used = batch.len().div_ceil(chunk);
            let (first, rest) = grads.split_at_mut(1);
            for g in &rest[..used - 1] {
                first[0].add(g);
            }
            adam.step(&mut p, &first[0], lr, 1.0 / batch.len() as f32);
            // Within a long epoch, a line every ten seconds: how far, how fast, how long to go.
            done += batch.len();
            if last_line.elapsed().as_secs() >= 10 {
                last_line = Instant::now();
                let secs = epoch_start.elapsed().as_secs_f64();
                let rate = done as f64 / secs;
                let _ = writeln!(
                    log,
                    "  epoch {epoch}: {done} of {} positions, {rate:.0}/s, train loss {:.6}, {:.0}s left",
                    train.len(),
                    train_loss / done as f64,
                    (train.len() - done) as f64 / rate
                );
            }
        }
        let valid_loss = mean_loss(&p, &data, &valid, threads);
        let _ = writeln!(
            log,
            "epoch {epoch} lr {lr:.6} train loss {:.6} validation loss {valid_loss:.6} ({:.1}s this epoch, {:.0}s in all)",
            train_loss / train.len() as f64,
            epoch_start.elapsed().as_secs_f64(),
            started.elapsed().as_secs_f64()
        );
        // The file always holds the best network so far, the starting one included: an
        // interrupted run leaves it usable, and epochs that only fit the training games better
        // are not kept.
        if valid_loss < best.1 {
            best = (epoch, valid_loss);
            write(&p)?;
        }
    }
    let _ = writeln!(log, "network of epoch {} (validation loss {:.6}) written to {}", best.0, best.1, options.out);
    Ok(())
}

/// The training and validation positions of a file of `n`: the last 2% (at most 200,000) are
/// held out. `datagen` writes each game's positions together, so these are whole games the
/// network never sees (where the data marks its games, `game_starts`, the cut moves to the
/// next game's start); positions drawn at random from all games would share games (and so
/// results and near-identical boards) with the training set and reward memorising them.
fn split(n: usize, game_starts: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let held = (n / 50).min(200_000);
    let mut cut = (n - held) as u32;
    if let Some(&start) = game_starts.iter().find(|&&s| s >= cut && (s as usize) < n) {
        cut = start;
    }
    ((0..cut).collect(), (cut..n as u32).collect())
}

/// `corvid train <data> --out FILE [...]`.
#[cfg(test)]
mod tests {
    use super::*;

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
        // float one up to the truncations of its divisions.
        let mut p = Params::random(11);
        let on_grid = |w: &mut f32, scale: f32, q: i32| *w = (*w * scale * q as f32).round() / q as f32;
        p.fw.iter_mut().for_each(|w| on_grid(w, 8.0, QA));
        p.fb.iter_mut().for_each(|w| *w = 77.0 / QA as f32);
        p.ow.iter_mut().for_each(|w| on_grid(w, 10.0, QB));
        p.ob.iter_mut().enumerate().for_each(|(i, b)| *b = (1000.0 + 300.0 * i as f32) / (QA * QB) as f32);
        let net = Network::from_bytes(&quantise(&p, Base::None)).expect("the trainer writes a valid file");
        let mut hidden = vec![0.0; 2 * HIDDEN];
        let mut sum_size = 0.0;
        for line in labelled_lines(200) {
            let fen = line.split('|').next().unwrap().trim();
            let pos = Position::from_fen(fen).unwrap();
            let float = forward(&p, &features(&pos), pos.side_to_move(), bucket(&pos), &mut hidden) * SCALE as f32;
            let quantised = net.evaluate(&net.refresh(&pos), pos.side_to_move(), bucket(&pos)) as f32;
            assert!((float - quantised).abs() <= 1.5, "{fen}: float {float}, quantised {quantised}");
            sum_size += float.abs();
        }
        assert!(sum_size / 200.0 > 100.0, "the test network's outputs are too small to compare");
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
        let (from_games, bad) = load(vf.to_str().unwrap(), 0.75, Base::None).unwrap();
        assert_eq!(bad, 0);
        assert_eq!(from_games.samples.len(), kept.len());
        assert_eq!(from_games.game_starts, vec![0, 6], "six quiet positions in the first game");
        let (from_text, _) = load(text.to_str().unwrap(), 0.75, Base::None).unwrap();
        assert!(from_text.game_starts.is_empty());
        assert_eq!(from_text.features, from_games.features);
        let targets = |d: &Data| d.samples.iter().map(|s| s.target).collect::<Vec<_>>();
        assert_eq!(targets(&from_text), targets(&from_games));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn validation_is_the_tail_of_the_file() {
        let (train, valid) = split(1_000, &[]);
        assert_eq!(train, (0..980).collect::<Vec<u32>>());
        assert_eq!(valid, (980..1_000).collect::<Vec<u32>>());
        // With games marked, the held-out part starts at a game's first position.
        let (train, valid) = split(1_000, &[0, 500, 975, 990]);
        assert_eq!((train.len(), valid.first()), (990, Some(&990)));
        let (train, valid) = split(20_000_000, &[]);
        assert_eq!((train.len(), valid.len()), (19_800_000, 200_000));
        assert_eq!((train.last(), valid.first()), (Some(&19_799_999), Some(&19_800_000)));
    }

    #[test]
    fn the_embedded_network_survives_dequantising() {
        let net = crate::nnue::network();
        assert_eq!(quantise(&Params::dequantised(net), net.base), crate::nnue::EMBEDDED);
    }

    #[test]
    fn training_fits_a_material_signal() {
        let path = std::env::temp_dir().join(format!("corvid-train-{}.txt", std::process::id()));
        let out = std::env::temp_dir().join(format!("corvid-train-{}.nnue", std::process::id()));
        let mut text = labelled_lines(24_000).join("\n");
        text.push_str("\nnot a line\n");
        std::fs::write(&path, text).unwrap();
        let options = Options {
            file: path.to_string_lossy().into_owned(),
            out: out.to_string_lossy().into_owned(),
            epochs: 12,
            batch: 64,
            lr: 0.002,
            lambda: 1.0,
            threads: 2,
            seed: 3,
            decay_at: [0.6, 0.85],
            base: Base::None,
            init: None,
        };
        let mut log = Vec::new();
        train(&options, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        let losses: Vec<f64> = log
            .lines()
            .filter(|l| l.starts_with("epoch "))
            .filter_map(|l| l.split("validation loss ").nth(1))
            .map(|v| v.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        assert!(log.contains("(1 lines skipped)"), "{log}");
        assert_eq!(losses.len(), 13, "{log}");
        assert!(losses[12] < losses[0] * 0.25, "{log}");
        // The file holds the epoch with the lowest validation loss.
        let best = losses.iter().copied().fold(f64::MAX, f64::min);
        assert!(log.contains(&format!("(validation loss {best:.6}) written")), "{log}");
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
        let mut log = Vec::new();
        train(&again, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        let start: f64 = log
            .lines()
            .find_map(|l| l.strip_prefix("epoch 0 validation loss "))
            .map(|v| v.trim().parse().unwrap())
            .unwrap_or_else(|| panic!("{log}"));
        assert!((start - best).abs() <= best * 0.1, "started at {start}, the best epoch had {best}\n{log}");
        // A step so large that every epoch is worse than the start: the starting network is
        // what comes out, byte for byte.
        let ruined = Options { lr: 5.0, epochs: 2, ..again.clone() };
        let mut log = Vec::new();
        train(&ruined, &mut log).unwrap();
        let log = String::from_utf8(log).unwrap();
        assert!(log.contains("network of epoch 0 "), "{log}");
        assert_eq!(std::fs::read(&tuned).unwrap(), std::fs::read(&out).unwrap(), "{log}");
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
