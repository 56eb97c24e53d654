//! Tracing: an evaluation that records every weight it applies ([`Coefficients`], from
//! `tracer`), so the tuner can rebuild the score as a linear function of the weights, and the
//! `eval` command can break it down by term.

use super::terms::{self, Outcome};
use super::tracer::Coefficients;
use crate::position::Position;
use crate::types::Color;
use crate::weights::layout::{SPECS, W};
use crate::weights::Score;

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
