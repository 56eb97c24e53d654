//! The search reads time through one clock (`corvid::search::Moment`), whose source a front can
//! replace: a browser's WebAssembly has no std clock. This file is a process of its own, so the
//! virtual clock it installs reaches no other test.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use corvid::search::{set_clock_source, Job, Limits, Moment, Searcher};
use corvid::Position;

/// Readings of the virtual clock so far.
static READINGS: AtomicU64 = AtomicU64::new(0);

/// A clock that moves a minute on every reading and not at all between them.
fn virtual_clock() -> Duration {
    Duration::from_secs(60 * READINGS.fetch_add(1, Ordering::Relaxed))
}

/// Runs `f` on a thread of its own; fails if it has not returned within `limit` (a search that
/// read std's clock instead of the installed one would run for the whole hour).
fn within<T: Send + 'static>(what: &str, limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()));
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("{what}: no answer within {limit:?}"))
}

#[test]
fn a_front_s_clock_drives_every_time_limit() {
    set_clock_source(virtual_clock).unwrap();
    assert!(set_clock_source(virtual_clock).is_err(), "the first source stays");
    let before = READINGS.load(Ordering::Relaxed);
    let a = Moment::now();
    let b = Moment::now();
    assert_eq!(b.duration_since(a), Duration::from_secs(60));
    assert_eq!(a.duration_since(b), Duration::ZERO, "never negative");
    assert_eq!(a + Duration::from_secs(120), Moment::now(), "three readings, three minutes");
    assert_eq!(a.earlier_by(Duration::from_secs(1 << 40)), Moment::now().earlier_by(Duration::from_secs(1 << 40)));
    assert_eq!(READINGS.load(Ordering::Relaxed), before + 4, "four readings, no more");

    // An hour to think, on a clock that runs a minute a reading: the search ends after some
    // sixty readings, in a fraction of a real second, with a move. On the caller's thread and
    // on the pool's (the UCI front's threads) alike.
    let pos = Position::startpos();
    for clocked in [
        Limits { movetime: Some(Duration::from_secs(3600)), ..Limits::default() },
        Limits {
            clock: Some(corvid::search::Clock {
                time: Duration::from_secs(7200),
                increment: Duration::ZERO,
                moves_to_go: Some(1),
            }),
            ..Limits::default()
        },
    ] {
        let limits = clocked.clone();
        let outcome = within("the caller's thread under the virtual clock", Duration::from_secs(60), move || {
            Searcher::inline_with_hash(8).unwrap().search_silently(Job::new(pos, limits))
        });
        assert!(outcome.best().best.is_some_and(|m| pos.legal_moves().contains(&m)), "{outcome:?}");
        let limits = clocked.clone();
        let outcome = within("the pool under the virtual clock", Duration::from_secs(60), move || {
            let mut searcher = Searcher::with_hash(2, 8).unwrap();
            searcher.search_silently(Job::new(pos, limits))
        });
        let best = outcome.best().best;
        assert!(best.is_some_and(|m| pos.legal_moves().contains(&m)), "{outcome:?}");
        // The answer's time is read from the same clock: whole minutes.
        assert!(outcome.elapsed >= Duration::from_secs(60), "{:?}", outcome.elapsed);
    }
}
