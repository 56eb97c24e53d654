//! Texel tuner: fits the evaluation weights of `src/weights/params.rs` to game results.
//!
//! `corvid tune <file.epd> [--epochs N] [--limit N] [--threads N] [--lr X] [--reg X] [--time S] [--out FILE]`
//!
//! Each line of the file is a FEN (six fields) followed by the game result from White's side, as
//! `[1.0]`, `[0.5]`, `[0.0]` (or `1-0`, `1/2-1/2`, `0-1`). Every position is traced once: the
//! evaluation is linear in its weights, so a position becomes a sparse vector of coefficients
//! (White's applications minus Black's) plus its phase and endgame scale factor. The tuner then
//! finds the sigmoid constant `K` minimising the mean squared error between
//! `sigmoid(K * eval / 400)` and the results for the current weights, and runs full-batch Adam on
//! every midgame and endgame weight with `K` fixed, optionally with an L2 pull of strength `--reg`
//! toward the starting weights. Finally the piece-square and mobility tables
//! are re-centred (their average use moves into the material values, which leaves every
//! evaluation unchanged) and the weights are printed as the Rust source of `params.rs`.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::time::Instant;

use crate::eval::{self, Coefficients, MAX_PHASE, NUM_PARAMS, SCALE_NORMAL, SPECS, W};
use crate::position::Position;

/// What to fit and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// `FEN [result]` lines.
    pub file: String,
    /// Adam steps over the whole data.
    pub epochs: usize,
    /// Read at most this many positions.
    pub limit: usize,
    pub threads: usize,
    pub lr: f64,
    /// L2 pull toward the starting weights.
    pub reg: f64,
    /// Seconds after which the fit stops.
    pub time_limit: f64,
    /// Where to write the weights as Rust source (`src/weights/params.rs`); `None`: standard output.
    pub out: Option<String>,
}

/// One coefficient of a position: parameter index and White-minus-Black count.
#[derive(Clone, Copy)]
struct Feature {
    index: u16,
    coef: i16,
}

/// One traced position.
#[derive(Clone, Copy)]
struct Sample {
    start: u32,
    len: u16,
    /// Phase / 24.
    mg_share: f32,
    /// (1 - phase / 24) * scale / 128.
    eg_share: f32,
    result: f32,
}

/// Every traced position, with its features in one flat vector.
struct Data {
    samples: Vec<Sample>,
    features: Vec<Feature>,
    /// How often each parameter was applied, both colours together (for re-centring tables).
    usage: Vec<f64>,
}

/// The result field of a line: the game result from White's side.
pub(crate) fn parse_result(rest: &str) -> Option<f32> {
    let r = rest.trim().trim_matches(|c: char| c == '[' || c == ']' || c == '"' || c == ';' || c.is_whitespace());
    let r = r.strip_prefix("c9").map(|x| x.trim().trim_matches('"')).unwrap_or(r);
    match r {
        "1.0" | "1" | "1-0" => Some(1.0),
        "0.5" | "1/2-1/2" | "1/2" => Some(0.5),
        "0.0" | "0" | "0-1" => Some(0.0),
        _ => None,
    }
}

fn load(opts: &Options) -> Result<Data, String> {
    let file = crate::files::open(std::path::Path::new(&opts.file), u64::MAX)?;
    let mut data = Data { samples: Vec::new(), features: Vec::new(), usage: vec![0.0; NUM_PARAMS] };
    let mut coef = Coefficients::default();
    let (mut skipped, mut bad) = (0usize, 0usize);
    for line in BufReader::new(file).lines() {
        if data.samples.len() >= opts.limit {
            break;
        }
        let line = line.map_err(|e| format!("{}: {e}", opts.file))?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 7 {
            bad += usize::from(!line.trim().is_empty());
            continue;
        }
        let (Ok(pos), Some(result)) =
            (Position::from_fen(&fields[..6].join(" ")), parse_result(&fields[6..].join(" ")))
        else {
            bad += 1;
            continue;
        };
        if pos.in_check() || eval::insufficient_material(&pos) {
            skipped += 1;
            continue;
        }
        let outcome = eval::trace(&pos, &mut coef);
        let start = data.features.len() as u32;
        for (i, c) in coef.counts.iter().enumerate() {
            data.usage[i] += f64::from(c[0] + c[1]);
            let net = c[0] - c[1];
            if net != 0 {
                data.features.push(Feature { index: i as u16, coef: net as i16 });
            }
        }
        let phase = outcome.phase as f32 / MAX_PHASE as f32;
        data.samples.push(Sample {
            start,
            len: (data.features.len() as u32 - start) as u16,
            mg_share: phase,
            eg_share: (1.0 - phase) * outcome.scale as f32 / SCALE_NORMAL as f32,
            result,
        });
    }
    eprintln!(
        "loaded {} positions ({} features), skipped {skipped} (check or insufficient material), {bad} unreadable",
        data.samples.len(),
        data.features.len()
    );
    Ok(data)
}

/// A sample's evaluation (White's view, centipawns) under `params`.
#[inline(always)]
fn eval_sample(s: &Sample, features: &[Feature], params: &[[f64; 2]]) -> f64 {
    let (mut mg, mut eg) = (0.0, 0.0);
    for f in &features[s.start as usize..s.start as usize + s.len as usize] {
        let p = params[f.index as usize];
        mg += p[0] * f64::from(f.coef);
        eg += p[1] * f64::from(f.coef);
    }
    mg * f64::from(s.mg_share) + eg * f64::from(s.eg_share)
}

#[inline(always)]
fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * eval / 400.0).exp())
}

/// Mean squared error for a given K over precomputed evaluations.
fn error_for_k(data: &Data, evals: &[f64], k: f64) -> f64 {
    let sum: f64 = data.samples.iter().zip(evals).map(|(s, &e)| (f64::from(s.result) - sigmoid(k, e)).powi(2)).sum();
    sum / data.samples.len() as f64
}

/// The K minimising the error for the current weights (golden-section search).
fn fit_k(data: &Data, params: &[[f64; 2]]) -> (f64, f64) {
    let evals: Vec<f64> = data.samples.iter().map(|s| eval_sample(s, &data.features, params)).collect();
    let (mut lo, mut hi) = (0.05f64, 5.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if error_for_k(data, &evals, a) < error_for_k(data, &evals, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    let k = (lo + hi) / 2.0;
    (k, error_for_k(data, &evals, k))
}

/// Error and gradient (per parameter, midgame and endgame) over a slice of samples.
fn gradient_chunk(samples: &[Sample], features: &[Feature], params: &[[f64; 2]], k: f64) -> (f64, Vec<[f64; 2]>) {
    let mut grad = vec![[0.0f64; 2]; params.len()];
    let mut error = 0.0;
    for s in samples {
        let e = eval_sample(s, features, params);
        let sig = sigmoid(k, e);
        let diff = f64::from(s.result) - sig;
        error += diff * diff;
        let d = -2.0 * diff * sig * (1.0 - sig) * k / 400.0;
        let (dmg, deg) = (d * f64::from(s.mg_share), d * f64::from(s.eg_share));
        for f in &features[s.start as usize..s.start as usize + s.len as usize] {
            let g = &mut grad[f.index as usize];
            g[0] += dmg * f64::from(f.coef);
            g[1] += deg * f64::from(f.coef);
        }
    }
    (error, grad)
}

/// Error and mean gradient over all samples, split over `threads` threads.
fn gradient(data: &Data, params: &[[f64; 2]], k: f64, threads: usize) -> (f64, Vec<[f64; 2]>) {
    let chunk = data.samples.len().div_ceil(threads).max(1);
    let parts: Vec<(f64, Vec<[f64; 2]>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = data
            .samples
            .chunks(chunk)
            .map(|samples| scope.spawn(move || gradient_chunk(samples, &data.features, params, k)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("gradient thread")).collect()
    });
    let n = data.samples.len() as f64;
    let mut grad = vec![[0.0f64; 2]; params.len()];
    let mut error = 0.0;
    for (e, g) in parts {
        error += e;
        for (acc, x) in grad.iter_mut().zip(g) {
            acc[0] += x[0] / n;
            acc[1] += x[1] / n;
        }
    }
    (error / n, grad)
}

/// Moves the usage-weighted mean of each piece-square and mobility table into the material value
/// of its piece (each piece uses exactly one entry of each, so no evaluation changes).
fn recentre(params: &mut [[f64; 2]], usage: &[f64]) {
    let offset = |name: &str| SPECS.iter().find(|s| s.name == name).map(|s| (s.offset, s.values.len()));
    let Some((material, _)) = offset("MATERIAL") else { return };
    let tables = [
        ("PAWN_PSQT", 0),
        ("KNIGHT_PSQT", 1),
        ("BISHOP_PSQT", 2),
        ("ROOK_PSQT", 3),
        ("QUEEN_PSQT", 4),
        ("KNIGHT_MOBILITY", 1),
        ("BISHOP_MOBILITY", 2),
        ("ROOK_MOBILITY", 3),
        ("QUEEN_MOBILITY", 4),
    ];
    for (name, piece) in tables {
        let Some((start, len)) = offset(name) else { continue };
        let total: f64 = usage[start..start + len].iter().sum();
        if total <= 0.0 {
            continue;
        }
        let mut mean = [0.0f64; 2];
        for (p, &u) in params[start..start + len].iter().zip(&usage[start..start + len]) {
            mean[0] += p[0] * u / total;
            mean[1] += p[1] * u / total;
        }
        for (i, p) in params[start..start + len].iter_mut().enumerate() {
            // A pawn never stands on the first or last rank: those entries stay at zero.
            if name != "PAWN_PSQT" || (8..56).contains(&i) {
                p[0] -= mean[0];
                p[1] -= mean[1];
            }
        }
        params[material + piece][0] += mean[0];
        params[material + piece][1] += mean[1];
    }
}

/// Entries of the king-attack table seen in fewer positions than this copy the entry below them,
/// so the rarely reached high end stays monotone instead of keeping its starting values.
const MIN_KING_ATTACK_USE: f64 = 50.0;

/// Applies [`MIN_KING_ATTACK_USE`].
fn fill_king_attack_tail(params: &mut [[f64; 2]], usage: &[f64]) {
    let Some(spec) = SPECS.iter().find(|s| s.name == "KING_ATTACK") else { return };
    for i in spec.offset + 1..spec.offset + spec.values.len() {
        if usage[i] < MIN_KING_ATTACK_USE {
            params[i] = params[i - 1];
        }
    }
}

/// The header of `params.rs`, written before the weights.
const HEADER: &str = "\
//! Evaluation weights: every tunable parameter as a `Score` (midgame, endgame), white's view.
//!
//! Written by the Texel tuner (`corvid tune`, see `src/tools/tune.rs`), which prints this whole
//! file back in the same format; the order and flat offsets of the parameters live in
//! `layout.rs`. Tables indexed by square are seen from White's side with a1 first; Black uses the
//! vertical mirror.

use super::score::{s, Score};
";

/// The weights as the Rust source of `params.rs`.
pub fn params_source(params: &[[f64; 2]]) -> String {
    let mut out = String::from(HEADER);
    let cell = |p: [f64; 2]| format!("s({:4}, {:4}),", p[0].round() as i32, p[1].round() as i32);
    for spec in SPECS {
        let values = &params[spec.offset..spec.offset + spec.values.len()];
        let _ = writeln!(out, "\n#[rustfmt::skip]");
        if spec.scalar {
            let text = cell(values[0]);
            let _ = writeln!(out, "pub const {}: Score = {};", spec.name, text.trim_end_matches(','));
        } else {
            let _ = writeln!(out, "pub const {}: [Score; {}] = [", spec.name, values.len());
            for row in values.chunks(8) {
                let cells: Vec<String> = row.iter().map(|&p| cell(p)).collect();
                let _ = writeln!(out, "    {}", cells.join(" "));
            }
            let _ = writeln!(out, "];");
        }
    }
    out
}

/// The current weights of `params.rs` as floating-point pairs.
fn current_params() -> Vec<[f64; 2]> {
    W.iter().map(|w| [f64::from(w.mg()), f64::from(w.eg())]).collect()
}

fn write_params(opts: &Options, params: &[[f64; 2]], usage: &[f64]) -> Result<(), String> {
    let mut centred = params.to_vec();
    recentre(&mut centred, usage);
    fill_king_attack_tail(&mut centred, usage);
    let source = params_source(&centred);
    match &opts.out {
        Some(path) => crate::files::write_whole(
            std::path::Path::new(path),
            &[std::path::Path::new(&opts.file)],
            source.as_bytes(),
        ),
        None => {
            print!("{source}");
            Ok(())
        }
    }
}

/// Runs the tuner (`corvid tune ...`): fits the weights and writes them (see the module
/// header), with progress on standard error; returns the error before and after the fit.
pub fn run(opts: &Options) -> Result<(f64, f64), String> {
    let start = Instant::now();
    if let Some(out) = &opts.out {
        // Refused now, not after the tuning: the output may not be the positions' file.
        crate::files::check_output(std::path::Path::new(out), &[std::path::Path::new(&opts.file)])?;
    }
    let data = load(opts)?;
    if data.samples.is_empty() {
        return Err("no usable positions".into());
    }
    eprintln!("traced in {:.1} s", start.elapsed().as_secs_f64());
    let mut params = current_params();
    let start_params = params.clone();
    let (k, initial_error) = fit_k(&data, &params);
    eprintln!("K = {k:.4}, initial error {initial_error:.6}");

    let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let mut m = vec![[0.0f64; 2]; NUM_PARAMS];
    let mut v = vec![[0.0f64; 2]; NUM_PARAMS];
    let tuning_start = Instant::now();
    let mut last_error = initial_error;
    for epoch in 1..=opts.epochs {
        let (error, mut grad) = gradient(&data, &params, k, opts.threads);
        // L2 pull toward the starting weights, which keeps rarely seen entries near sane values.
        for ((g, p), p0) in grad.iter_mut().zip(&params).zip(&start_params) {
            g[0] += 2.0 * opts.reg * (p[0] - p0[0]);
            g[1] += 2.0 * opts.reg * (p[1] - p0[1]);
        }
        last_error = error;
        let (c1, c2) = (1.0 - beta1.powi(epoch as i32), 1.0 - beta2.powi(epoch as i32));
        for i in 0..NUM_PARAMS {
            for h in 0..2 {
                m[i][h] = beta1 * m[i][h] + (1.0 - beta1) * grad[i][h];
                v[i][h] = beta2 * v[i][h] + (1.0 - beta2) * grad[i][h] * grad[i][h];
                params[i][h] -= opts.lr * (m[i][h] / c1) / ((v[i][h] / c2).sqrt() + eps);
            }
        }
        let elapsed = tuning_start.elapsed().as_secs_f64();
        if epoch % 25 == 0 || epoch == 1 {
            eprintln!("epoch {epoch:5}  error {error:.6}  {elapsed:.0} s");
        }
        if epoch % 250 == 0 {
            write_params(opts, &params, &data.usage)?;
        }
        if elapsed > opts.time_limit {
            eprintln!("time limit reached after epoch {epoch}");
            break;
        }
    }
    let (_, final_error) = {
        let evals: Vec<f64> = data.samples.iter().map(|s| eval_sample(s, &data.features, &params)).collect();
        ((), error_for_k(&data, &evals, k))
    };
    eprintln!(
        "done: {} positions, K = {k:.4}, error {initial_error:.6} -> {final_error:.6} (last epoch {last_error:.6}), \
         {:.0} s total",
        data.samples.len(),
        start.elapsed().as_secs_f64()
    );
    write_params(opts, &params, &data.usage)?;
    Ok((initial_error, final_error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_source_matches_params_file() {
        let text = include_str!("../weights/params.rs");
        assert_eq!(params_source(&current_params()), text);
    }

    #[test]
    fn tuning_lowers_the_error_and_writes_weights_that_differ() {
        // Positions from random games, labelled by a rule the current weights do not follow:
        // the side with more pawns won. A few epochs must lower the error against those
        // results, and the weights written must be params.rs's format with other values.
        let dir = std::env::temp_dir().join(format!("corvid-texel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut rng = crate::rng::Rng::new(17);
        let mut lines = String::new();
        while lines.lines().count() < 1500 {
            let mut pos = Position::startpos();
            for _ in 0..(10 + rng.below(50)) {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.make_move(moves[rng.below(moves.len())]);
            }
            let pawns = |c| pos.colored_pieces(c, crate::types::PieceType::Pawn).count() as i32;
            let result = match pawns(crate::types::Color::White) - pawns(crate::types::Color::Black) {
                d if d > 0 => "[1.0]",
                d if d < 0 => "[0.0]",
                _ => "[0.5]",
            };
            writeln!(lines, "{} {result}", pos.to_fen()).unwrap();
        }
        let file = dir.join("positions.epd");
        std::fs::write(&file, lines).unwrap();
        let out = dir.join("params.rs");
        let opts = Options {
            file: file.to_str().unwrap().into(),
            epochs: 30,
            limit: usize::MAX,
            threads: 1,
            lr: 1.0,
            reg: 0.0,
            time_limit: 60.0,
            out: Some(out.to_str().unwrap().into()),
        };
        let (before, after) = run(&opts).unwrap();
        assert!(after < before * 0.98, "error {before} -> {after}");
        let written = std::fs::read_to_string(&out).unwrap();
        let current = include_str!("../weights/params.rs");
        assert_eq!(written.lines().count(), current.lines().count(), "the same source layout");
        assert_ne!(written, current);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn results_parse() {
        assert_eq!(parse_result("[1.0]"), Some(1.0));
        assert_eq!(parse_result(" [0.5]"), Some(0.5));
        assert_eq!(parse_result("c9 \"0-1\";"), Some(0.0));
        assert_eq!(parse_result("[2]"), None);
    }
}
