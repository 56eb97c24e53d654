//! `corvid datagen`: self-play games at a fixed node count from randomised openings, writing
//! quiet positions labelled with the game's result, in the format `corvid tune` reads:
//! `<FEN> [1.0]` (White won), `[0.5]`, `[0.0]`.
//!
//! A position is kept when the side to move is not in check, the search's best move is quiet
//! (no capture, no promotion) and the score is not a mate: the static evaluation should describe
//! such positions without a tactical resolution pending.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::position::Position;
use crate::search::{is_material_or_fifty_draw, Limits, NodeCounter, Shared, Silent, Worker};
use crate::tt::{TranspositionTable, MATE_BOUND};
use crate::types::Color;

/// How to generate.
#[derive(Clone, Debug)]
pub struct Options {
    pub games: usize,
    pub nodes: u64,
    pub threads: usize,
    /// Random plies played from the start position before recording.
    pub random_plies: usize,
    pub seed: u64,
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Plays one game; returns the recorded FENs and the result from White's view (1, 0.5, 0).
fn play_game(rng: &mut Rng, options: &Options) -> (Vec<String>, f32) {
    let tt = TranspositionTable::new(8);
    let (stop, pondering) = (AtomicBool::new(false), AtomicBool::new(false));
    let counters = [NodeCounter::default()];
    let mut worker = Worker::new(0);
    let limits = Limits { nodes: Some(options.nodes), ..Limits::default() };

    // A random opening that still has moves for both sides.
    let mut pos = Position::startpos();
    let mut keys = Vec::new();
    for _ in 0..options.random_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        keys.push(pos.key());
        pos = pos.make_move(moves[rng.below(moves.len())]);
    }

    let mut fens = Vec::new();
    let mut decisive = 0;
    for _ply in 0..400 {
        if !pos.has_legal_move() {
            let result = match (pos.in_check(), pos.side_to_move()) {
                (false, _) => 0.5,
                (true, Color::White) => 0.0,
                (true, Color::Black) => 1.0,
            };
            return (fens, result);
        }
        let repeated = keys.iter().filter(|&&k| k == pos.key()).count() >= 2;
        if is_material_or_fifty_draw(&pos) || repeated {
            return (fens, 0.5);
        }
        stop.store(false, Ordering::Relaxed);
        tt.new_search();
        let shared = Shared { tt: &tt, stop: &stop, pondering: &pondering, counters: &counters };
        let result = worker.search(&pos, &keys, &limits, Duration::ZERO, &[], &shared, &mut Silent);
        let Some(best) = result.best else { return (fens, 0.5) };
        // Adjudicate clear wins to save time.
        if result.score.abs() >= 1500 && result.score.abs() < MATE_BOUND {
            decisive += 1;
            if decisive >= 6 {
                let white_ahead = (result.score > 0) == (pos.side_to_move() == Color::White);
                return (fens, if white_ahead { 1.0 } else { 0.0 });
            }
        } else {
            decisive = 0;
        }
        if !pos.in_check() && !best.is_capture() && !best.is_promotion() && result.score.abs() < MATE_BOUND {
            fens.push(pos.to_fen());
        }
        keys.push(pos.key());
        pos = pos.make_move(best);
    }
    (fens, 0.5)
}

/// Generates `options.games` games over `options.threads` threads, writing to `out`.
/// Returns (games, positions) written.
pub fn run(options: &Options, out: &mut (impl Write + Send)) -> (usize, usize) {
    let next = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    let out = Mutex::new(out);
    std::thread::scope(|s| {
        for _ in 0..options.threads.max(1) {
            s.spawn(|| loop {
                let game = next.fetch_add(1, Ordering::Relaxed);
                if game >= options.games {
                    break;
                }
                let mut rng = Rng(options.seed ^ (game as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let (fens, result) = play_game(&mut rng, options);
                let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                for fen in &fens {
                    let _ = writeln!(out, "{fen} [{result:.1}]");
                }
                written.fetch_add(fens.len(), Ordering::Relaxed);
            });
        }
    });
    (options.games, written.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_produce_labelled_quiet_positions() {
        let options = Options { games: 2, nodes: 300, threads: 2, random_plies: 8, seed: 7 };
        let mut buffer = Vec::new();
        let (games, positions) = run(&options, &mut buffer);
        assert_eq!(games, 2);
        let text = String::from_utf8(buffer).unwrap();
        assert_eq!(text.lines().count(), positions);
        assert!(positions > 10);
        for line in text.lines() {
            let (fen, label) = line.rsplit_once(' ').unwrap();
            assert!(["[1.0]", "[0.5]", "[0.0]"].contains(&label), "{line}");
            let pos = Position::from_fen(fen).unwrap();
            assert!(!pos.in_check());
        }
    }
}
