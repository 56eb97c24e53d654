//! The computer's side of `corvid play`: its book, its search at the chosen level, hints at
//! full strength, and its answer to a draw offer.

use std::time::Duration;

use super::game::Game;
use crate::book::Book;
use crate::rng::Rng;
use crate::search::{Clock, Iteration, Job, Limits, ReportedScore, Reporter, Searcher, Weakness};
use crate::types::Move;

/// The engine's table (MiB) and the hint's.
const HASH_MB: usize = 64;
const HINT_HASH_MB: usize = 16;
/// Without a clock the engine thinks at most this long a move.
const UNTIMED_MOVE: Duration = Duration::from_secs(5);
/// A hint searches this long, at full strength.
const HINT_TIME: Duration = Duration::from_millis(1500);
/// Offered a draw, the engine accepts when its own score is at most this (centipawns).
pub const DRAW_ACCEPT_CP: i32 = 10;

/// What the engine chose.
pub struct Choice {
    pub best: Option<Move>,
    /// The score from the side to move's point of view (`None` for a book move).
    pub score: Option<ReportedScore>,
    pub from_book: bool,
}

/// The computer player.
pub struct Opponent {
    /// The engine's searcher (one thread) and the hint's, each with its own table.
    searcher: Searcher,
    hints: Searcher,
    /// `None`: full strength.
    pub elo: Option<u32>,
    book: Option<Book>,
    rng: Rng,
    seed: u64,
}

/// Hands each iteration to a closure.
struct Progress<'a>(&'a mut dyn FnMut(&Iteration));

impl Reporter for Progress<'_> {
    fn iteration(&mut self, info: &Iteration) {
        (self.0)(info);
    }
}

impl Opponent {
    /// The computer player; an error when its tables or its search thread cannot be had.
    pub fn new(elo: Option<u32>, book: Option<Book>, seed: u64) -> Result<Opponent, String> {
        Ok(Opponent {
            searcher: Searcher::with_hash(1, HASH_MB)?,
            hints: Searcher::with_hash(1, HINT_HASH_MB)?,
            elo,
            book,
            rng: Rng::new(seed),
            seed,
        })
    }

    /// Forgets the last game (tables, histories) and draws new evaluation errors.
    pub fn new_game(&mut self) {
        self.searcher.clear();
        self.hints.clear();
        self.seed = self.rng.next_u64();
    }

    fn weakness(&self) -> Weakness {
        self.elo.map_or(Weakness::default(), |elo| Weakness::at(elo, self.seed))
    }

    /// The engine's move in the game's position: from the book if it has one there, else a
    /// search at its level within `clock` (its time left and increment; `None`: untimed).
    /// Each iteration goes to `progress` while it searches.
    pub fn choose(
        &mut self,
        game: &Game,
        clock: Option<(Duration, Duration)>,
        progress: &mut dyn FnMut(&Iteration),
        abort: Option<&std::sync::atomic::AtomicBool>,
    ) -> Choice {
        let pos = *game.position();
        if let Some(m) = self.book.as_ref().and_then(|b| b.pick(&pos, &mut self.rng)) {
            return Choice { best: Some(m), score: None, from_book: true };
        }
        let limits = Limits {
            clock: clock.map(|(time, increment)| Clock { time, increment, moves_to_go: None }),
            movetime: clock.is_none().then_some(UNTIMED_MOVE),
            weakness: self.weakness(),
            ..Limits::default()
        };
        let job = Job { history: game.history_keys(), overhead: Duration::from_millis(20), ..Job::new(pos, limits) };
        let (best, score) = answer(self.searcher.search(job, &mut Progress(progress), abort).best());
        Choice { best, score: Some(score), from_book: false }
    }

    /// The best move for the side to move at full strength, and its score.
    pub fn hint(&mut self, game: &Game) -> (Option<Move>, ReportedScore) {
        let pos = *game.position();
        let limits = Limits { movetime: Some(HINT_TIME), ..Limits::default() };
        let job = Job { history: game.history_keys(), ..Job::new(pos, limits) };
        answer(self.hints.search_silently(job).best())
    }

    /// The engine's score of the game's position for the side to move, searched at its level
    /// (for a draw offer).
    pub fn judge(&mut self, game: &Game) -> ReportedScore {
        let pos = *game.position();
        let weakness = self.weakness();
        let nodes = weakness.nodes.unwrap_or(u64::MAX).min(400_000);
        let limits =
            Limits { nodes: Some(nodes), movetime: Some(Duration::from_secs(2)), weakness, ..Limits::default() };
        let job = Job { history: game.history_keys(), ..Job::new(pos, limits) };
        answer(self.searcher.search_silently(job).best()).1
    }
}

/// A search's move and score as the game shows them.
fn answer(result: &crate::search::SearchResult) -> (Option<Move>, ReportedScore) {
    (result.best, ReportedScore::from_internal(result.score))
}
