//! `corvid train`: fits the network to positions labelled by search (`corvid datagen`).
//!
//! Each position's target blends the search score and the game result in win-probability space:
//! `lambda * sigmoid(score / WDL_SCALE) + (1 - lambda) * result`, both from the side to move's view.
//! The loss is the mean squared error between `sigmoid(output cp / WDL_SCALE)` and the target; Adam, the
//! learning rate lowered step by step along a cosine from `--lr` to `--lr-end` (or, with
//! `--schedule steps`, cut to 0.3 of itself at 60% and 85% of the epochs); mini-batches split over
//! threads (each thread sums its gradients, the sums are added before the step). The float weights are clipped to `WEIGHT_CLIP` after
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
//! Packed files are read unpacked (`crate::files::Unpacked`): `.xz` (the self-play store is
//! kept so), `.bz2`, `.gz`, and `.tar` archives such as OpenBench's `.pgn.tar` of `.pgn.bz2`
//! files; `--min-ply`
//! leaves out the positions of a game's first plies (the random opening and the moves just after). The training positions stay in memory when
//! they fit the cache (`--cache`); otherwise each epoch reads the files again, a loader thread
//! filling windows of `--buffer` positions that are shuffled and trained on while the next one is
//! read, so the data may be far larger than the memory.

mod data;
mod model;
mod record;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use crate::nnue::format::{HIDDEN_STEP, MAX_HIDDEN};
use crate::nnue::{Base, Layout, Network, HIDDEN, INPUTS, OUTPUT_BUCKETS};
use crate::rng::Rng;
use data::{data_files, Data, Part, Stream};
use model::{mean_losses, quantise, step_sample, Adam, Params};
use record::Record;

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
    /// Decoupled weight decay (AdamW): each step every parameter shrinks by `lr * weight_decay`
    /// of itself; 0 is plain Adam.
    pub weight_decay: f32,
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
    /// Keeps the last epoch's network rather than the one the measure likes best: for data the
    /// held-out games do not stand for (games against another engine, whose results the
    /// self-play held out in the measure cannot judge), where a match decides instead.
    pub keep_last: bool,
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
            weight_decay: 0.01,
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
            keep_last: false,
        }
    }
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
            self.adam.step(&mut self.p, &first[0], self.lr, 1.0 / batch.len() as f32, self.options.weight_decay);
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
    if !(HIDDEN_STEP..=MAX_HIDDEN).contains(&options.hidden) || options.hidden % HIDDEN_STEP != 0 {
        return Err(format!(
            "--hidden {}: a multiple of {HIDDEN_STEP} from {HIDDEN_STEP} to {MAX_HIDDEN}",
            options.hidden
        ));
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
    let mut stream =
        Stream { mirror: options.mirror, min_ply: options.min_ply, ..Stream::new(files.clone(), options.base)? };
    // The first pass: the held-out games, the number of training positions, and those
    // positions themselves while they fit the cache.
    let first_pass = |stream: &Stream| -> Result<_, String> {
        let (mut valid, mut cache, mut n) = (Data::default(), Some(Data::default()), 0usize);
        let pass = stream.pass(|part, unit| {
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
        Ok((valid, cache, n, pass))
    };
    let (mut valid, mut cache, mut n, pass) = first_pass(&stream)?;
    // Data too small for one game in VALID_EVERY to fall out (a short OpenBench DATAGEN run):
    // the game with the lowest tag is held out, chosen by what it is as the others are.
    if valid.len() == 0 && pass.units >= 2 {
        stream.hold = pass.lowest_tag;
        (valid, cache, n, _) = first_pass(&stream)?;
    }
    let bad = pass.bad;
    if n < 100 || valid.len() == 0 {
        let why = match pass.units {
            0 | 1 => "one game or block of positions at least must be held out and another trained on",
            _ => "too few to train on",
        };
        return Err(format!("{} training and {} held-out positions: {why}", n, valid.len()));
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
    let losses = |p: &Params| {
        let [own, measure] = mean_losses(p, &valid, [options.lambda, MEASURE_LAMBDA], threads);
        (own, measure)
    };
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
        // games better are not kept. With `keep_last` it holds each epoch's as it ends.
        if measure < best.1 || options.keep_last {
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

#[cfg(test)]
mod tests;
