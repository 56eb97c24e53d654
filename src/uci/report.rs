//! Protocol text: `info` lines of the search, the WDL model of `UCI_ShowWDL`, and the writer
//! every line goes through.

use std::io::Write;
use std::time::Duration;

use crate::search::{Iteration, ReportedScore, Reporter, ScoreBound, SearchResult};
use crate::types::Move;

/// Writes one line to standard output and flushes it (lines from the search thread and the loop
/// never interleave: `println!` holds the stdout lock for the whole line), or to this thread's
/// output ([`set_output`]) where one is set.
pub fn say(line: &str) {
    if line.starts_with("info string error") {
        ERRORS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    if written_to_output(line) {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Writes a complaint about the input that is no protocol line (an unknown command) to
/// standard error, or to this thread's output where one is set (a browser's worker has no
/// standard error: its user should see it all the same).
pub fn complain(line: &str) {
    if !written_to_output(line) {
        eprintln!("{line}");
    }
}

type Output = Box<dyn FnMut(&str)>;

thread_local! {
    static OUTPUT: std::cell::RefCell<Option<Output>> = const { std::cell::RefCell::new(None) };
}

/// Makes `output` take every line the engine writes on this thread (`None`: standard output
/// again). A front without standard output sets it (a browser's worker posts each line to its
/// page); an engine that searches on this thread ([`super::InlineEngine`]) then writes all of
/// its lines here.
pub fn set_output(output: Option<Output>) {
    OUTPUT.with(|o| *o.borrow_mut() = output);
}

/// Gives `line` to this thread's output, if it has one.
fn written_to_output(line: &str) -> bool {
    OUTPUT.with(|o| match o.try_borrow_mut() {
        Ok(mut o) => o.as_mut().map(|write| write(line)).is_some(),
        Err(_) => false,
    })
}

/// How many errors this process has reported (`info string error: ...`): commands given on the
/// command line end with exit status 2 when there was one, so a script sees them.
pub static ERRORS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Which slider lookup this build runs and why (`d`, the banner, `bench`).
pub fn lookup_line() -> String {
    format!("Slider lookup: {} ({})", crate::tables::SLIDER_LOOKUP, crate::tables::LOOKUP_REASON)
}

/// Formats iterations as `info` lines.
pub(super) struct InfoPrinter {
    pub(super) chess960: bool,
    pub(super) show_wdl: bool,
    /// The first move and the depth of the last best line (`multipv 1`) written, so that the
    /// search's last word can be made to agree with its `bestmove` and the depth behind it.
    pub(super) last_best: Option<Move>,
    pub(super) last_depth: i32,
}

impl InfoPrinter {
    pub(super) fn new(chess960: bool, show_wdl: bool) -> Self {
        InfoPrinter { chess960, show_wdl, last_best: None, last_depth: 0 }
    }

    /// Keeps what the search's last word is compared with: the best line's move and depth.
    fn record(&mut self, info: &Iteration) {
        if info.multipv == 1 {
            self.last_best = info.pv.first().copied();
            self.last_depth = info.depth;
        }
    }

    /// Whether the result played needs a line of its own as the search's last word: it starts
    /// with another move than the last best line shown, or it is deeper (a helper thread's,
    /// chosen by the vote after it completed an iteration the main thread had not).
    pub(super) fn must_show(&self, result: &SearchResult) -> bool {
        result.best.is_some() && (self.last_best != result.best || result.depth > self.last_depth)
    }
}

impl Reporter for InfoPrinter {
    fn iteration(&mut self, info: &Iteration) {
        self.record(info);
        say(&info_line(info, self.chess960, self.show_wdl));
    }

    fn current_move(&mut self, depth: i32, mv: Move, number: usize) {
        say(&format!("info depth {depth} currmove {} currmovenumber {number}", mv.to_uci(self.chess960)));
    }
}

/// Win, draw and loss chances in permille from a score (`UCI_ShowWDL`). Each side's winning
/// chance is a logistic curve of the score: `1 / (1 + exp((A - cp) / B))` for the side to move,
/// the same with `-cp` for the other, the draw chance the rest. A and B were set so that the
/// expected score `W + D/2` has the slope around 0 that the Texel tuner fitted to game results
/// (K = 1.849) and a level position is about 70% drawn, as between strong engines.
pub fn wdl(score: ReportedScore) -> [u32; 3] {
    const A: f64 = 80.0;
    const B: f64 = 45.0;
    match score {
        ReportedScore::Mate(n) if n > 0 => [1000, 0, 0],
        ReportedScore::Mate(_) => [0, 0, 1000],
        ReportedScore::Centipawns(cp) => {
            let chance = |cp: f64| 1.0 / (1.0 + ((A - cp) / B).exp());
            let win = (chance(cp as f64) * 1000.0).round() as u32;
            let loss = ((chance(-cp as f64) * 1000.0).round() as u32).min(1000 - win);
            [win, 1000 - win - loss, loss]
        }
    }
}

/// Nodes per second of `nodes` searched in `time` (a time under 1 ms counts as 1 ms).
pub(super) fn nps(nodes: u64, time: Duration) -> u128 {
    nodes as u128 * 1000 / time.as_millis().max(1)
}

/// The `info` line of one iteration. The bound follows the score at once and `wdl` comes after
/// it (python-chess, and so lichess-bot, reads a bound only right after the score); a line with
/// no moves has no `pv` at all.
pub fn info_line(info: &Iteration, chess960: bool, show_wdl: bool) -> String {
    let mut score = match info.score {
        ReportedScore::Centipawns(cp) => format!("cp {cp}"),
        ReportedScore::Mate(n) => format!("mate {n}"),
    };
    match info.bound {
        ScoreBound::Exact => {}
        ScoreBound::Lower => score.push_str(" lowerbound"),
        ScoreBound::Upper => score.push_str(" upperbound"),
    }
    if show_wdl {
        let [w, d, l] = wdl(info.score);
        score = format!("{score} wdl {w} {d} {l}");
    }
    let nps = nps(info.nodes, info.time);
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {score} nodes {} nps {nps} hashfull {} tbhits {} time {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.hashfull,
        info.tbhits,
        info.time.as_millis(),
    );
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for m in &info.pv {
            line.push_str(&format!(" {}", m.to_uci(chess960)));
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    fn iteration(bound: ScoreBound, pv: Vec<Move>) -> Iteration {
        Iteration {
            depth: 12,
            seldepth: 20,
            score: ReportedScore::Centipawns(35),
            bound,
            nodes: 1000,
            time: Duration::from_millis(10),
            hashfull: 3,
            tbhits: 0,
            pv,
            multipv: 1,
        }
    }

    #[test]
    fn the_bound_follows_the_score_before_wdl() {
        let line = info_line(&iteration(ScoreBound::Lower, Vec::new()), false, true);
        assert!(line.contains("score cp 35 lowerbound wdl "), "{line}");
        let line = info_line(&iteration(ScoreBound::Upper, Vec::new()), false, false);
        assert!(line.contains("score cp 35 upperbound nodes "), "{line}");
        let line = info_line(&iteration(ScoreBound::Exact, Vec::new()), false, true);
        assert!(line.contains("score cp 35 wdl ") && !line.contains("bound"), "{line}");
    }

    #[test]
    fn the_last_word_shows_a_deeper_or_other_result_played() {
        let pos = Position::startpos();
        let [e4, d4] = ["e2e4", "d2d4"].map(|m| pos.parse_uci_move(m).unwrap());
        let mut printer = InfoPrinter::new(false, false);
        printer.record(&iteration(ScoreBound::Exact, vec![e4]));
        let result = |best, depth| SearchResult { best, ponder: None, score: 30, depth, nodes: 1, pv: vec![] };
        // The main thread's own last line: nothing more to say.
        assert!(!printer.must_show(&result(Some(e4), 12)));
        assert!(!printer.must_show(&result(Some(e4), 11)));
        // A helper's deeper iteration with the same move, or another move: shown.
        assert!(printer.must_show(&result(Some(e4), 13)));
        assert!(printer.must_show(&result(Some(d4), 12)));
        // No move (mate or stalemate at the root): the caller says the score its own way.
        assert!(!printer.must_show(&result(None, 0)));
        // A second line of MultiPV does not stand for the move played.
        let mut second = iteration(ScoreBound::Exact, vec![d4]);
        (second.multipv, second.depth) = (2, 14);
        printer.record(&second);
        assert!(!printer.must_show(&result(Some(e4), 12)));
    }

    #[test]
    fn a_line_without_moves_has_no_pv() {
        let line = info_line(&iteration(ScoreBound::Upper, Vec::new()), false, false);
        assert!(!line.contains(" pv"), "{line}");
        let e4 = Position::startpos().parse_uci_move("e2e4").unwrap();
        let line = info_line(&iteration(ScoreBound::Exact, vec![e4]), false, false);
        assert!(line.ends_with(" time 10 pv e2e4"), "{line}");
    }
}
