//! `genfens`: varied, playable openings for match runners, as OpenBench asks of an engine when it
//! builds a test's book on its workers (`corvid "genfens N seed S book <None|file.epd>" quit`
//! prints `N` lines `info string genfens <FEN>`).
//!
//! Each opening is a start (the standard position, or a random line of the book) followed by
//! random legal moves: 8 or 9 plies from the start position, 2 or 3 from a book position. It is
//! kept when the side to move has a legal move, it has not been given before, and a short search
//! (a fixed number of nodes, one thread) scores it within [`MAX_SCORE`] centipawns: balanced
//! enough to be worth playing from both sides. Everything follows from the seed, so the same
//! command gives the same openings on every machine.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use crate::position::Position;
use crate::rng::Rng;
use crate::search::{Limits, NodeCounter, Request, Shared, Silent, Worker};
use crate::tt::{TranspositionTable, MATE_BOUND};

/// Openings scored further from equality than this (centipawns) are dropped.
pub const MAX_SCORE: i32 = 300;
/// Nodes of the search that scores an opening.
pub const SEARCH_NODES: u64 = 2_000;

/// The start positions of a book: the first four fields of each line (EPD), with the move
/// counters where the line has them. Lines that do not parse are skipped; the error is for a
/// file that cannot be read or holds no position.
pub fn read_book(path: &str) -> Result<Vec<Position>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("book {path}: {e}"))?;
    let positions: Vec<Position> = text.lines().filter_map(book_position).collect();
    if positions.is_empty() {
        return Err(format!("book {path}: no position in it"));
    }
    Ok(positions)
}

fn book_position(line: &str) -> Option<Position> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 4 {
        return None;
    }
    let counters = match fields.get(4..6) {
        Some([h, f]) if h.parse::<u32>().is_ok() && f.parse::<u32>().is_ok() => format!("{h} {f}"),
        _ => "0 1".to_string(),
    };
    Position::from_fen(&format!("{} {counters}", fields[..4].join(" "))).ok()
}

/// `count` openings from `starts` (the standard position when empty), each as a FEN, in the
/// order found. Stops early (with fewer) only if the starts cannot give that many distinct
/// playable positions in `1000 x count` tries.
pub fn generate(count: usize, seed: u64, starts: &[Position]) -> Vec<String> {
    let standard = [Position::startpos()];
    let (starts, from_book) = if starts.is_empty() { (&standard[..], false) } else { (starts, true) };
    let mut rng = Rng::new(seed ^ 0x6E0F_E75E_ED00_0001);
    let tt = TranspositionTable::new(2);
    let (stop, pondering) = (AtomicBool::new(false), AtomicBool::new(false));
    let counters = [NodeCounter::default()];
    let mut worker = Worker::new(0);
    let limits = Limits { nodes: Some(SEARCH_NODES), ..Limits::default() };
    let mut seen = HashSet::new();
    let mut found = Vec::with_capacity(count);
    let mut tries = 0usize;
    while found.len() < count && tries < count.saturating_mul(1000).max(1000) {
        tries += 1;
        let mut pos = starts[rng.below(starts.len())];
        let plies = if from_book { 2 } else { 8 } + rng.below(2);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.make_move(moves[rng.below(moves.len())]);
        }
        if !pos.has_legal_move() || seen.contains(&pos.key()) {
            continue;
        }
        stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let shared = Shared::new(&tt, &stop, &pondering, &counters);
        let result = worker.search(&Request::new(&pos, &limits), &shared, &mut Silent);
        if result.score.abs() >= MATE_BOUND || result.score.abs() > MAX_SCORE {
            continue;
        }
        seen.insert(pos.key());
        found.push(pos.to_fen());
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_distinct_playable_balanced_and_follow_the_seed() {
        let a = generate(40, 5, &[]);
        assert_eq!(a.len(), 40);
        assert_eq!(a, generate(40, 5, &[]), "the same seed gives the same openings");
        assert_ne!(a, generate(40, 6, &[]), "another seed gives others");
        let mut keys = HashSet::new();
        for fen in &a {
            let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert!(pos.has_legal_move(), "{fen}");
            assert!(keys.insert(pos.key()), "{fen} twice");
            // 8 or 9 plies from the start: move 5 with White or Black to move.
            let fullmove: u32 = fen.split_whitespace().nth(5).unwrap().parse().unwrap();
            assert_eq!(fullmove, 5, "{fen}");
        }
    }

    #[test]
    fn book_lines_are_read_as_epd_or_fen_and_bad_lines_skipped() {
        let dir = std::env::temp_dir().join(format!("corvid-genfens-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let book = dir.join("book.epd");
        std::fs::write(
            &book,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - hmvc 0; fmvn 2;\n\
             not a position\n\
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n",
        )
        .unwrap();
        let starts = read_book(book.to_str().unwrap()).unwrap();
        assert_eq!(starts.len(), 2);
        assert_eq!(starts[1].to_fen(), "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let openings = generate(10, 1, &starts);
        assert_eq!(openings.len(), 10);
        let empty = dir.join("empty.epd");
        std::fs::write(&empty, "nothing here\n").unwrap();
        assert!(read_book(empty.to_str().unwrap()).unwrap_err().contains("no position"));
        assert!(read_book("/nonexistent/book.epd").is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
