//! Tracing: the evaluation reports every weight it applies, so the tuner can rebuild the score as
//! a linear function of the weights, and the `eval` command can break it down by term.
//!
//! The evaluation is generic over [`Tracer`]. The engine uses [`NoTrace`], whose `add` is empty and
//! whose `ACTIVE` is `false`, so the calls compile away; [`Coefficients`] records, per parameter,
//! how many times it was applied for White and for Black.

use super::terms::{self, Outcome};
use crate::position::Position;
use crate::types::Color;
use crate::weights::layout::{NUM_PARAMS, SPECS, W};
use crate::weights::Score;

/// Receives every application of a weight: parameter `index` (see `layout.rs`), applied `count`
/// times in favour of `color`.
pub trait Tracer {
    /// Whether anything is recorded (a cached pawn entry would skip recording, so tracing
    /// evaluations bypass the pawn table).
    const ACTIVE: bool;
    fn add(&mut self, index: usize, color: Color, count: i32);
}

/// The engine's tracer: records nothing.
pub struct NoTrace;

impl Tracer for NoTrace {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn add(&mut self, _index: usize, _color: Color, _count: i32) {}
}

/// Per parameter, the number of times it was applied for White (`[0]`) and for Black (`[1]`).
#[derive(Clone, Debug)]
pub struct Coefficients {
    pub counts: Vec<[i32; 2]>,
}

impl Default for Coefficients {
    fn default() -> Coefficients {
        Coefficients { counts: vec![[0; 2]; NUM_PARAMS] }
    }
}

impl Coefficients {
    /// Zeroes every count.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = [0; 2]);
    }
}

impl Tracer for Coefficients {
    const ACTIVE: bool = true;
    #[inline]
    fn add(&mut self, index: usize, color: Color, count: i32) {
        self.counts[index][color.index()] += count;
    }
}

/// Evaluates `pos` recording coefficients into `coef` (cleared first); returns the packed score
/// (White's view, before tapering), the phase and the endgame scale factor.
pub fn trace(pos: &Position, coef: &mut Coefficients) -> Outcome {
    coef.clear();
    terms::evaluate_terms(pos, None, coef)
}

/// One line of the `eval` breakdown: a term's name with White's and Black's contributions (each
/// from its own side's point of view; the net effect is White's minus Black's).
pub type TermLine = (String, Score, Score);

/// The evaluation broken down by term, for the UCI `eval` command. The last line, "Total", holds
/// the sums; [`super::evaluate`] tapers and scales `White - Black` of it.
pub fn trace_terms(pos: &Position) -> Vec<TermLine> {
    let mut coef = Coefficients::default();
    trace(pos, &mut coef);
    let mut lines: Vec<TermLine> = Vec::new();
    let mut total = [Score::ZERO; 2];
    for spec in SPECS {
        let mut side = [Score::ZERO; 2];
        let range = spec.offset..spec.offset + spec.values.len();
        for (&w, counts) in W[range.clone()].iter().zip(&coef.counts[range]) {
            side[0] += w * counts[0];
            side[1] += w * counts[1];
        }
        total[0] += side[0];
        total[1] += side[1];
        match lines.iter_mut().find(|line| line.0 == spec.term) {
            Some(line) => {
                line.1 += side[0];
                line.2 += side[1];
            }
            None => lines.push((spec.term.to_string(), side[0], side[1])),
        }
    }
    lines.push(("Total".to_string(), total[0], total[1]));
    lines
}

/// The breakdown as a text table (midgame and endgame for each side and the difference), then
/// the phase, the scale factor and the final score, as the `eval` command prints it.
pub fn eval_report(pos: &Position) -> String {
    use std::fmt::Write;
    let mut coef = Coefficients::default();
    let outcome = trace(pos, &mut coef);
    let mut out = String::new();
    let _ = writeln!(out, "{:>16} | {:>11} | {:>11} | {:>11}", "term", "white", "black", "total");
    let _ = writeln!(out, "{:>16} | {:>5} {:>5} | {:>5} {:>5} | {:>5} {:>5}", "", "mg", "eg", "mg", "eg", "mg", "eg");
    for (name, white, black) in trace_terms(pos) {
        let net = white - black;
        let _ = writeln!(
            out,
            "{name:>16} | {:>5} {:>5} | {:>5} {:>5} | {:>5} {:>5}",
            white.mg(),
            white.eg(),
            black.mg(),
            black.eg(),
            net.mg(),
            net.eg()
        );
    }
    let white_view = super::evaluate(pos) * if pos.side_to_move() == Color::White { 1 } else { -1 };
    let _ = writeln!(out, "phase {} / 24, endgame scale {} / 128", outcome.phase, outcome.scale);
    let _ = write!(out, "final evaluation {white_view} cp (White's view)");
    out
}
