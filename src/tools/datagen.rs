//! `corvid datagen`: self-play games at a fixed node count from randomised openings, writing
//! quiet positions labelled with the game's result, in the format `corvid tune` reads:
//! `<FEN> [1.0]` (White won), `[0.5]`, `[0.0]`.
//!
//! A position is kept when the side to move is not in check, the search's best move is quiet
//! (no capture, no promotion) and the score is not a mate: the static evaluation should describe
//! such positions without a tactical resolution pending.
//!
//! With `scores`, each line also carries the search's score, for training the network:
//! `<FEN> | <score, centipawns, White's view> | <result, White's view: 1.0, 0.5, 0.0>`.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::position::Position;
use crate::rng::Rng;
use crate::search::{is_material_or_fifty_draw, Limits, NodeCounter, Request, Shared, Silent, Worker};
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
    /// Search with the network (else the hand-crafted evaluation).
    pub use_nnue: bool,
    /// Write `FEN | score | result` lines (the network trainer's format) instead of `FEN [result]`.
    pub scores: bool,
}

/// Plays one game; returns the recorded FENs with the search score (White's view) and the result
/// from White's view (1, 0.5, 0).
fn play_game(rng: &mut Rng, options: &Options) -> (Vec<(String, i32)>, f32) {
    let tt = TranspositionTable::new(8);
    let (stop, pondering) = (AtomicBool::new(false), AtomicBool::new(false));
    let counters = [NodeCounter::default()];
    let mut worker = Worker::new(0);
    worker.use_nnue = options.use_nnue;
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
        let shared = Shared::new(&tt, &stop, &pondering, &counters);
        let result = worker.search(&Request { history: &keys, ..Request::new(&pos, &limits) }, &shared, &mut Silent);
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
            let white_score = if pos.side_to_move() == Color::White { result.score } else { -result.score };
            fens.push((pos.to_fen(), white_score));
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
                let mut rng = Rng::new(options.seed ^ (game as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let (fens, result) = play_game(&mut rng, options);
                let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                for (fen, score) in &fens {
                    let _ = if options.scores {
                        writeln!(out, "{fen} | {score} | {result:.1}")
                    } else {
                        writeln!(out, "{fen} [{result:.1}]")
                    };
                }
                written.fetch_add(fens.len(), Ordering::Relaxed);
            });
        }
    });
    (options.games, written.load(Ordering::Relaxed))
}

/// `corvid label`: searches each `FEN [result]` line of `input` (the tuner's format) for `nodes`
/// nodes and writes `FEN | score | result` for the network trainer (score and result from
/// White's view). Positions in check or with a mate score are skipped. `use_nnue` picks the
/// search's evaluation. Returns (read, written).
pub fn label(input: &str, nodes: u64, threads: usize, use_nnue: bool, out: &mut (impl Write + Send)) -> (usize, usize) {
    let lines: Vec<&str> = input.lines().collect();
    let next = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    let out = Mutex::new(out);
    const CHUNK: usize = 256;
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let tt = TranspositionTable::new(4);
                let (stop, pondering) = (AtomicBool::new(false), AtomicBool::new(false));
                let counters = [NodeCounter::default()];
                let mut worker = Worker::new(0);
                worker.use_nnue = use_nnue;
                let limits = Limits { nodes: Some(nodes), ..Limits::default() };
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= lines.len() {
                        break;
                    }
                    let mut text = String::new();
                    let mut count = 0;
                    for line in &lines[start..(start + CHUNK).min(lines.len())] {
                        let fields: Vec<&str> = line.split_whitespace().collect();
                        if fields.len() < 7 {
                            continue;
                        }
                        let fen = fields[..6].join(" ");
                        let (Ok(pos), Some(result)) =
                            (Position::from_fen(&fen), crate::tools::tune::parse_result(&fields[6..].join(" ")))
                        else {
                            continue;
                        };
                        if pos.in_check() {
                            continue;
                        }
                        stop.store(false, Ordering::Relaxed);
                        tt.new_search();
                        let shared = Shared::new(&tt, &stop, &pondering, &counters);
                        let found = worker.search(&Request::new(&pos, &limits), &shared, &mut Silent);
                        if found.best.is_none() || found.score.abs() >= MATE_BOUND {
                            continue;
                        }
                        let score = if pos.side_to_move() == Color::White { found.score } else { -found.score };
                        text.push_str(&format!("{fen} | {score} | {result:.1}\n"));
                        count += 1;
                    }
                    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                    let _ = out.write_all(text.as_bytes());
                    written.fetch_add(count, Ordering::Relaxed);
                }
            });
        }
    });
    (lines.len(), written.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_produce_labelled_quiet_positions() {
        let options =
            Options { games: 2, nodes: 300, threads: 2, random_plies: 8, seed: 7, scores: false, use_nnue: false };
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

    #[test]
    fn labelling_searches_each_position_and_keeps_its_result() {
        let input = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5]
4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1 [1.0]
3qk3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1 1-0
not a position [1.0]
4k3/8/8/8/8/8/4q3/4K3 w - - 0 1 [0.0]
";
        let mut buffer = Vec::new();
        let (read, written) = label(input, 500, 2, false, &mut buffer);
        assert_eq!(read, 5);
        let text = String::from_utf8(buffer).unwrap();
        // The bad line and the position in check are skipped.
        assert_eq!(written, 3);
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        let fields: Vec<Vec<&str>> = lines.iter().map(|l| l.split(" | ").collect()).collect();
        assert_eq!(fields[1][0], "4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1");
        assert!(fields[1][1].parse::<i32>().unwrap() > 500, "{text}");
        assert_eq!(fields[1][2], "1.0");
        assert_eq!(fields[0][0], "3qk3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1");
        assert!(fields[0][1].parse::<i32>().unwrap() < -500, "{text}");
        assert_eq!(fields[0][2], "1.0");
        assert_eq!(fields[2][2], "0.5");
    }

    #[test]
    fn datagen_writes_scores_for_the_trainer() {
        let options =
            Options { games: 1, nodes: 300, threads: 1, random_plies: 8, seed: 3, scores: true, use_nnue: false };
        let mut buffer = Vec::new();
        let (_, positions) = run(&options, &mut buffer);
        let text = String::from_utf8(buffer).unwrap();
        assert!(positions > 5);
        for line in text.lines() {
            let fields: Vec<&str> = line.split(" | ").collect();
            assert_eq!(fields.len(), 3, "{line}");
            Position::from_fen(fields[0]).unwrap();
            assert!(fields[1].parse::<i32>().unwrap().abs() < MATE_BOUND);
            assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
        }
    }
}
