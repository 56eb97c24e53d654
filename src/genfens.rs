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

use crate::position::Position;
use crate::rng::Rng;
use crate::search::{Job, Limits, Searcher};
use crate::tt::{TranspositionTable, MATE_BOUND};

/// Openings scored further from equality than this (centipawns) are dropped.
pub const MAX_SCORE: i32 = 300;
/// Nodes of the search that scores an opening.
pub const SEARCH_NODES: u64 = 2_000;

/// The start positions of a book: the first four fields of each line (EPD), with the move
/// counters where the line has them. Lines that do not parse are skipped, and so are finished
/// games (no legal move) and dead draws (too little material to mate, the fifty-move rule); the
/// error is for a file that cannot be read or holds no position to play from.
pub fn read_book(path: &str) -> Result<Vec<Position>, String> {
    let text = crate::files::read_to_string(path, crate::files::MAX_INPUT).map_err(|e| format!("book {e}"))?;
    let read: Vec<Position> = text.lines().filter_map(book_position).collect();
    let playable: Vec<Position> = read.iter().copied().filter(playable).collect();
    if playable.is_empty() {
        return Err(match read.len() {
            0 => format!("book {path}: no position in it"),
            n => format!("book {path}: all {n} positions are finished or dead draws"),
        });
    }
    Ok(playable)
}

/// Whether a game can go on from `pos`: a legal move, and material to win with.
fn playable(pos: &Position) -> bool {
    pos.has_legal_move() && !crate::search::is_material_or_fifty_draw(pos)
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

/// Random playable openings: random legal moves from a start, kept when a short search finds
/// them balanced. Holds its own small table and search thread, so it never touches a game's.
pub struct Openings {
    searcher: Searcher,
    limits: Limits,
}

impl Default for Openings {
    fn default() -> Openings {
        Openings {
            searcher: Searcher::inline(TranspositionTable::new(2)),
            limits: Limits { nodes: Some(SEARCH_NODES), ..Limits::default() },
        }
    }
}

impl Openings {
    /// `plies` random legal moves from `start`, then the position if it has a legal move and
    /// the search scores it within [`MAX_SCORE`]; `None` otherwise (try again).
    pub fn try_one(&mut self, rng: &mut Rng, start: &Position, plies: usize) -> Option<Position> {
        let mut pos = *start;
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return None;
            }
            pos = pos.make_move(moves[rng.below(moves.len())]);
        }
        if !playable(&pos) {
            return None;
        }
        let score = self.verdict(&pos);
        (score.abs() < MATE_BOUND && score.abs() <= MAX_SCORE).then_some(pos)
    }

    /// The score that decides whether `pos` is balanced: a search of [`SEARCH_NODES`] from
    /// empty tables, so the verdict is the position's alone and not that of the searches before
    /// it (`datagen` threads take games in any order and still play the same).
    fn verdict(&mut self, pos: &Position) -> i32 {
        self.searcher.clear();
        self.searcher.search_silently(Job::new(*pos, self.limits.clone())).best().score
    }
}

/// `count` openings from `starts` (the standard position when empty), each as a FEN, in the
/// order found. Stops early (with fewer) only if the starts cannot give that many distinct
/// playable positions in `1000 x count` tries; [`generate_all`] makes that an error.
pub fn generate(count: usize, seed: u64, starts: &[Position]) -> Vec<String> {
    let standard = [Position::startpos()];
    let (starts, from_book) = if starts.is_empty() { (&standard[..], false) } else { (starts, true) };
    let mut rng = Rng::new(seed ^ 0x6E0F_E75E_ED00_0001);
    let mut openings = Openings::default();
    let mut seen = HashSet::new();
    let mut found = Vec::with_capacity(count);
    let mut tries = 0usize;
    while found.len() < count && tries < count.saturating_mul(1000).max(1000) {
        tries += 1;
        let start = starts[rng.below(starts.len())];
        let plies = if from_book { 2 } else { 8 } + rng.below(2);
        if let Some(pos) = openings.try_one(&mut rng, &start, plies) {
            if seen.insert(pos.key()) {
                found.push(pos.to_fen());
            }
        }
    }
    found
}

/// [`generate`], with an error that says how many were found when that is fewer than `count`
/// (what was found comes with it).
pub fn generate_all(count: usize, seed: u64, starts: &[Position]) -> (Vec<String>, Option<String>) {
    let found = generate(count, seed, starts);
    let short = (found.len() < count).then(|| {
        format!(
            "genfens: only {} of {count} distinct playable openings from these starts (too few, or mostly finished)",
            found.len()
        )
    });
    (found, short)
}

/// A Double Fischer Random start: each side's back rank drawn on its own from the 960 Chess960
/// arrangements (bishops on squares of both colours, the king between the rooks), pawns in
/// front, every castling right.
pub fn dfrc_start(rng: &mut Rng) -> Position {
    let white = rng.below(960) as u16;
    let black = rng.below(960) as u16;
    Position::double_chess960(white, black).expect("both below 960")
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
        // Balanced: a search as the generator's own scores every opening within MAX_SCORE, and
        // one ten times longer does not find more than two pawns beyond that (random plies
        // alone leave a side far ahead in a good share of positions, counted below).
        let mut judge = Openings::default();
        let mut deeper = Openings::default();
        deeper.limits.nodes = Some(SEARCH_NODES * 10);
        for fen in &a {
            let pos = Position::from_fen(fen).unwrap();
            assert!(judge.verdict(&pos).abs() <= MAX_SCORE, "{fen}");
            let second = deeper.verdict(&pos);
            assert!(second.abs() <= MAX_SCORE + 200, "{fen}: {second}");
        }
        let mut rng = Rng::new(11);
        let unbalanced = (0..200)
            .filter(|_| {
                let mut p = Position::startpos();
                for _ in 0..8 {
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        return false;
                    }
                    p = p.make_move(moves[rng.below(moves.len())]);
                }
                p.has_legal_move() && judge.verdict(&p).abs() > MAX_SCORE
            })
            .count();
        assert!(unbalanced >= 20, "the filter has something to refuse: {unbalanced} of 200");
    }

    #[test]
    fn dfrc_starts_are_legal_with_every_castling_right() {
        let mut rng = Rng::new(3);
        for _ in 0..50 {
            let pos = dfrc_start(&mut rng);
            assert_eq!(Position::from_fen(&pos.to_fen()).unwrap().key(), pos.key(), "{}", pos.to_fen());
            assert!(pos.has_legal_move());
            assert_eq!(pos.castling().0, 15, "{}", pos.to_fen());
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
