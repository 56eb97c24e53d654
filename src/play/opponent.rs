//! The computer's side of `corvid play`: its book, its search at the chosen level, hints at
//! full strength, and its answer to a draw offer.

use std::sync::mpsc;
use std::time::Duration;

use super::game::Game;
use crate::book::Book;
use crate::rng::Rng;
use crate::search::{Clock, Iteration, Limits, ReportedScore, Reporter, Request, Solo, Weakness, Worker};
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
    worker: Worker,
    solo: Solo,
    hint_worker: Worker,
    hint_solo: Solo,
    /// `None`: full strength.
    pub elo: Option<u32>,
    book: Option<Book>,
    rng: Rng,
    seed: u64,
}

/// Sends each iteration to the thread that prints it.
struct Forward(mpsc::Sender<Iteration>);

impl Reporter for Forward {
    fn iteration(&mut self, info: &Iteration) {
        let _ = self.0.send(info.clone());
    }
}

impl Opponent {
    pub fn new(elo: Option<u32>, book: Option<Book>, seed: u64) -> Opponent {
        Opponent {
            worker: Worker::new(0),
            solo: Solo::new(HASH_MB),
            hint_worker: Worker::new(0),
            hint_solo: Solo::new(HINT_HASH_MB),
            elo,
            book,
            rng: Rng::new(seed),
            seed,
        }
    }

    /// Forgets the last game (tables, histories) and draws new evaluation errors.
    pub fn new_game(&mut self) {
        self.worker.clear();
        self.hint_worker.clear();
        self.solo.tt.clear();
        self.hint_solo.tt.clear();
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
        let history = game.history_keys();
        let request = Request {
            root: &pos,
            history: &history,
            limits: &limits,
            overhead: Duration::from_millis(20),
            searchmoves: &[],
        };
        self.solo.tt.new_search();
        let result = search_on_thread(&mut self.worker, &self.solo, &request, progress);
        Choice { best: result.0, score: Some(result.1), from_book: false }
    }

    /// The best move for the side to move at full strength, and its score.
    pub fn hint(&mut self, game: &Game) -> (Option<Move>, ReportedScore) {
        let pos = *game.position();
        let limits = Limits { movetime: Some(HINT_TIME), ..Limits::default() };
        let history = game.history_keys();
        let request =
            Request { root: &pos, history: &history, limits: &limits, overhead: Duration::ZERO, searchmoves: &[] };
        self.hint_solo.tt.new_search();
        search_on_thread(&mut self.hint_worker, &self.hint_solo, &request, &mut |_| {})
    }

    /// The engine's score of the game's position for the side to move, searched at its level
    /// (for a draw offer).
    pub fn judge(&mut self, game: &Game) -> ReportedScore {
        let pos = *game.position();
        let weakness = self.weakness();
        let nodes = weakness.nodes.unwrap_or(u64::MAX).min(400_000);
        let limits =
            Limits { nodes: Some(nodes), movetime: Some(Duration::from_secs(2)), weakness, ..Limits::default() };
        let history = game.history_keys();
        let request =
            Request { root: &pos, history: &history, limits: &limits, overhead: Duration::ZERO, searchmoves: &[] };
        search_on_thread(&mut self.worker, &self.solo, &request, &mut |_| {}).1
    }
}

/// Searches on a thread with a deep stack while this one hands each iteration to `progress`.
fn search_on_thread(
    worker: &mut Worker,
    solo: &Solo,
    request: &Request,
    progress: &mut dyn FnMut(&Iteration),
) -> (Option<Move>, ReportedScore) {
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("play-search".into())
            .stack_size(16 << 20)
            .spawn_scoped(scope, move || solo.search_reporting(worker, request, &mut Forward(tx)));
        let Ok(handle) = handle else {
            // No thread to be had: the first legal move, rather than no move.
            return (request.root.legal_moves().first().copied(), ReportedScore::Centipawns(0));
        };
        for info in rx {
            progress(&info);
        }
        match handle.join() {
            Ok(result) => (result.best, ReportedScore::from_internal(result.score)),
            Err(_) => (request.root.legal_moves().first().copied(), ReportedScore::Centipawns(0)),
        }
    })
}
