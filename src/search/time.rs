//! Search limits and the time manager.
//!
//! From the clock (`wtime/btime/winc/binc/movestogo`) come a soft limit (no new iteration starts
//! past it) and a hard limit (the search stops mid-iteration). The clock is shared among the moves
//! still planned for, with `Move Overhead` kept in hand for each of them (the GUI's delay is paid
//! on every move) and the hard limit never past the clock less one overhead. `movetime`
//! is an exact hard limit; `nodes`, `depth` and `mate` are exact limits of their own. While
//! pondering no time limit applies; `ponderhit` starts the clock.
//!
//! Between iterations the soft limit is scaled (`soft_scale`): a best move that has stood for
//! several iterations ends the search early, a best move that just changed or a score that just
//! fell buys more time, within the hard limit; so does a best move that took a small share of the
//! search's nodes (`node_scale`: the other moves were hard to refute).

use std::time::Duration;

use super::params::p;
pub use crate::clock::{set_clock_source, Moment};

/// Without movestogo, how many more moves the clock's reserve plans for where the increment does
/// not pay for the overhead (sudden death): games without an increment run long.
const RESERVE_MOVES: u32 = 50;

/// The least the clock's reserve holds, in overheads, however much the increments pay.
const RESERVE_FLOOR: u32 = 5;

/// The side to move's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left.
    pub time: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves until the next time control, if the control counts moves.
    pub moves_to_go: Option<u32>,
}

/// What bounds one search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Search this many plies deep at most.
    pub depth: Option<i32>,
    /// Search this many nodes at most (every thread's together).
    pub nodes: Option<u64>,
    /// No new iteration starts once the main thread has searched this many nodes (self-play
    /// data: about the same effort a move, whole iterations only).
    pub soft_nodes: Option<u64>,
    /// Search this long at most.
    pub movetime: Option<Duration>,
    /// Search for a mate in this many moves (stop once one is found).
    pub mate: Option<u32>,
    /// The side to move's clock: the search spends a share of it.
    pub clock: Option<Clock>,
    /// `go infinite`: search until `stop`.
    pub infinite: bool,
    /// How many best lines to search and report (`MultiPV`; 0 counts as 1).
    pub multipv: usize,
    /// A playing strength below the full one (`UCI_Elo`): a node budget and evaluation errors.
    pub weakness: super::strength::Weakness,
}

/// Soft and hard time limits of one search (`None`: unlimited).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

impl TimeBudget {
    /// The budget for `limits` at move `fullmove` of the game, keeping `overhead` in hand for
    /// the GUI and the pipes.
    pub fn new(limits: &Limits, overhead: Duration, fullmove: u32) -> TimeBudget {
        if limits.infinite {
            return TimeBudget { soft: None, hard: None };
        }
        let mut budget = TimeBudget { soft: None, hard: None };
        if let Some(clock) = limits.clock {
            // Without movestogo the game is taken to last about 35 more moves at its start and
            // fewer as it goes on (15 at the least), so a move's share of the clock grows.
            let start = f64::from(p!(TIME_MOVES_START));
            let slope = f64::from(p!(TIME_MOVES_SLOPE)) / 1000.0;
            let least = f64::from(p!(TIME_MOVES_MIN)).min(start);
            let expected = (start - slope * fullmove as f64).clamp(least, start) as u32;
            let moves = clock.moves_to_go.map_or(expected, |m| m.clamp(1, 50)).max(1);
            // What these moves may spend: the clock and a share of the increments to come, less
            // the overhead of every one of them and two more. The GUI's delay is paid on each
            // move, not once: a reserve of the overhead for each move still planned means that
            // a GUI slower than the increment eats the reserve, not the clock, and that the
            // search spends about the increment alone once the clock is down to the reserve.
            let increments = clock.increment * (moves - 1) * p!(TIME_INCREMENT_PERCENT) as u32 / 100;
            // Without movestogo and with an increment smaller than the overhead, each move
            // drains the clock by the difference however little is searched: the reserve then
            // covers the game running to RESERVE_MOVES more moves, not just the moves planned.
            let longer = match clock.moves_to_go {
                None => overhead.saturating_sub(clock.increment) * RESERVE_MOVES.saturating_sub(moves),
                Some(_) => Duration::ZERO,
            };
            // The share of each increment the plan leaves unspent pays for that move's delay
            // already: where it covers the overhead (8+0.08: 20 ms against 10), holding an
            // overhead a move on top of it only takes time from the search. The credit grows
            // from nothing where the unspent share is half the overhead or less (1+0.01: 2.5 ms)
            // to a whole overhead a move where it is the overhead or more; the reserve is never
            // less than RESERVE_FLOOR overheads.
            let unspent = clock.increment * (100 - p!(TIME_INCREMENT_PERCENT)).max(0) as u32 / 100;
            let credit = (unspent * 2).saturating_sub(overhead).min(overhead);
            let reserve = (overhead * (moves + 2)).saturating_sub(credit * moves).max(overhead * RESERVE_FLOOR);
            let pool = (clock.time + increments).saturating_sub(reserve + longer);
            let base = pool / moves;
            // Never past the clock less one overhead, and never the last bit of it.
            let left = clock.time.saturating_sub(overhead).max(clock.time.min(Duration::from_millis(1)));
            let soft = base.min(left * p!(TIME_SOFT_MAX_PERCENT) as u32 / 100);
            let hard =
                (base * p!(TIME_HARD_FACTOR) as u32).min(left * p!(TIME_HARD_MAX_PERCENT) as u32 / 100).max(soft);
            budget = TimeBudget { soft: Some(soft), hard: Some(hard) };
        }
        if let Some(movetime) = limits.movetime {
            let t = movetime.saturating_sub(overhead).max(Duration::from_millis(1).min(movetime));
            budget.hard = Some(budget.hard.map_or(t, |h| h.min(t)));
            budget.soft = Some(budget.soft.map_or(t, |s| s.min(t)));
        }
        budget
    }
}

/// The factor applied to the soft limit after an iteration: `stability` is the number of
/// consecutive iterations that kept the best move, `score_drop` how many centipawns the score
/// fell since the previous iteration (negative when it rose).
pub fn soft_scale(stability: u32, score_drop: i32) -> f64 {
    let percent = match stability {
        0 => p!(TIME_STABILITY_0),
        1 => p!(TIME_STABILITY_1),
        2 => p!(TIME_STABILITY_2),
        3 => p!(TIME_STABILITY_3),
        4 => p!(TIME_STABILITY_4),
        5 => p!(TIME_STABILITY_5),
        _ => p!(TIME_STABILITY_6),
    };
    let stable = f64::from(percent) / 100.0;
    let drop = p!(TIME_SCORE_DROP);
    let falling = 1.0 + score_drop.clamp(-drop / 4, drop) as f64 / f64::from(drop);
    stable * falling
}

/// The factor applied to the soft limit for the share of this search's nodes that went into the
/// current best move: a move that took nearly all of them is clear, one that took few was
/// contested.
pub fn node_scale(best_share: f64) -> f64 {
    (f64::from(p!(TIME_NODE_BASE)) / 100.0 - best_share.clamp(0.0, 1.0)) * f64::from(p!(TIME_NODE_FACTOR)) / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        let overhead = ms(10);
        for (time, inc, mtg) in [
            (100, 0, None),
            (1, 0, None),
            (0, 0, None),
            (60_000, 600, None),
            (8_000, 80, None),
            (5_000, 0, Some(1)),
            (300_000, 0, Some(40)),
            (50, 1000, None),
        ] {
            let limits = Limits {
                clock: Some(Clock { time: ms(time), increment: ms(inc), moves_to_go: mtg }),
                ..Limits::default()
            };
            let b = TimeBudget::new(&limits, overhead, 20);
            let hard = b.hard.unwrap();
            assert!(hard <= ms(time).saturating_sub(overhead).max(ms(time.min(1))), "{time} {inc} {mtg:?}: {hard:?}");
            // Something to search with wherever the clock or the increment pays for the reserve
            // (below it, a move at once is the right answer: the delays alone drain the clock).
            if time >= 1000 || inc >= 2 * overhead.as_millis() as u64 {
                assert!(b.soft.unwrap() >= ms(1), "{time} {inc} {mtg:?}: {b:?}");
            }
        }
        // With one move to go the next control's time comes only after this move; the move
        // may take half the clock at most (the old rule took 75%, and a GUI slower than the
        // overhead then flagged on the last move of a control), and not much less than that.
        for time in [1_000, 5_000, 60_000] {
            let last = TimeBudget::new(
                &Limits {
                    clock: Some(Clock { time: ms(time), increment: ms(0), moves_to_go: Some(1) }),
                    ..Default::default()
                },
                overhead,
                20,
            );
            let hard = last.hard.unwrap().as_millis() as u64;
            assert!((time * 2 / 5..=time / 2).contains(&hard), "{time} ms, movestogo 1: hard limit {hard} ms");
        }
    }

    /// Plays `moves` moves of a game at `base_ms`+`inc_ms` (every `per` moves `base_ms` more when
    /// `per` is set: a repeating control, movestogo given), each move spending the soft limit
    /// and then `delay_ms` more in the GUI and the pipes; returns the least the clock held
    /// before a move.
    fn least_clock(base_ms: u64, inc_ms: u64, per: Option<u32>, moves: u32, delay_ms: u64, overhead_ms: u64) -> i64 {
        let mut time = base_ms as i64;
        let mut least = time;
        for n in 0..moves {
            let moves_to_go = per.map(|p| p - n % p);
            let clock = Clock { time: ms(time.max(0) as u64), increment: ms(inc_ms), moves_to_go };
            let b = TimeBudget::new(&Limits { clock: Some(clock), ..Limits::default() }, ms(overhead_ms), n + 1);
            time -= b.soft.unwrap().as_millis() as i64 + delay_ms as i64;
            time += inc_ms as i64;
            if per.is_some_and(|p| (n + 1) % p == 0) {
                time += base_ms as i64;
            }
            least = least.min(time);
        }
        least
    }

    #[test]
    fn a_gui_as_slow_as_the_overhead_leaves_a_reserve_on_the_clock() {
        // Each move delayed by the overhead (10 ms) on top of what the search spends, or by
        // 2 ms (fastchess): the clock must keep a reserve of several overheads through a long
        // game, not drain towards zero, where a GUI's one slower move loses on time. In sudden
        // death the delays alone add up to more than any reserve in the end: 150 moves at 10 ms
        // are 1.5 s, and such games rarely last that long.
        let cases = [
            ((1_000, 10, None), 10, 300, 50),
            ((1_000, 10, None), 2, 300, 100),
            ((8_000, 80, None), 10, 300, 100),
            ((60_000, 600, None), 10, 300, 100),
            ((120_000, 0, None), 10, 150, 100),
            ((120_000, 0, None), 2, 300, 100),
            ((4_000, 0, Some(40)), 10, 300, 100),
        ];
        for ((base, inc, per), delay, moves, kept) in cases {
            let least = least_clock(base, inc, per, moves, delay, 10);
            assert!(least >= kept, "{base}+{inc} {per:?}, {delay} ms a move: the clock fell to {least} ms");
        }
        // A GUI twice as slow as the overhead, where the increment pays for it.
        for (base, inc, per) in [(8_000, 80, None), (60_000, 600, None), (4_000, 0, Some(40))] {
            let least = least_clock(base, inc, per, 300, 20, 10);
            assert!(least >= 50, "{base}+{inc} {per:?}, 20 ms a move: the clock fell to {least} ms");
        }
    }

    #[test]
    fn an_increment_that_pays_for_the_overhead_leaves_the_search_its_time() {
        // Where the increment's unspent share covers the GUI's delay (8+0.08, 60+0.6), the
        // overhead costs the search at most a percent of its time; where it does not (1+0.01,
        // 2+0), the overhead of every move still planned is held back.
        let soft = |time, inc, overhead| {
            let clock = Clock { time: ms(time), increment: ms(inc), moves_to_go: None };
            let b = TimeBudget::new(&Limits { clock: Some(clock), ..Limits::default() }, ms(overhead), 1);
            b.soft.unwrap().as_secs_f64()
        };
        for (time, inc) in [(8_000, 80), (60_000, 600)] {
            let share = soft(time, inc, 10) / soft(time, inc, 0);
            assert!(share >= 0.99, "{time}+{inc}: {share}");
        }
        for (time, inc) in [(1_000, 10), (2_000, 0)] {
            let share = soft(time, inc, 10) / soft(time, inc, 0);
            assert!(share <= 0.75, "{time}+{inc}: {share}");
        }
    }

    #[test]
    fn every_movestogo_keeps_the_clock_with_any_increment_and_overhead() {
        // Repeating controls of 1 to 60 moves (movestogo counting down from the control's
        // length to 1), with and without an increment, at overheads from none to 50 ms, the GUI
        // as slow as the overhead: three controls never empty the clock, and every move gets
        // a budget inside it.
        for per in [1, 2, 3, 5, 10, 20, 39, 40, 50, 51, 60] {
            for inc in [0, 50] {
                for overhead in [0, 10, 50] {
                    let base = 200 * u64::from(per) + 4 * overhead;
                    let least = least_clock(base, inc, Some(per), 3 * per, overhead, overhead);
                    assert!(least > 0, "{per} moves in {base} ms + {inc}, overhead {overhead}: {least} ms left");
                    for mtg in 1..=per {
                        let clock = Clock { time: ms(base), increment: ms(inc), moves_to_go: Some(mtg) };
                        let b = TimeBudget::new(&Limits { clock: Some(clock), ..Limits::default() }, ms(overhead), 1);
                        let hard = b.hard.unwrap();
                        assert!(hard <= ms(base - overhead), "{per}/{mtg} {base}+{inc} o{overhead}: {b:?}");
                        assert!(b.soft.unwrap() > Duration::ZERO, "{per}/{mtg} {base}+{inc} o{overhead}: {b:?}");
                    }
                }
            }
        }
        // Beyond 50 moves to go the budget is the same as at 50 (the clock is planned 50
        // moves ahead at most).
        let at = |mtg| {
            let clock = Clock { time: ms(60_000), increment: ms(100), moves_to_go: Some(mtg) };
            TimeBudget::new(&Limits { clock: Some(clock), ..Limits::default() }, ms(10), 1)
        };
        assert_eq!(at(51), at(50));
        assert_eq!(at(500), at(50));
        assert!(at(49).soft > at(50).soft);
    }

    #[test]
    fn a_moves_share_of_the_clock_grows_with_the_game_and_the_hard_limit_keeps_half() {
        let at = |fullmove| {
            let clock = Clock { time: ms(8_000), increment: ms(80), moves_to_go: None };
            TimeBudget::new(&Limits { clock: Some(clock), ..Limits::default() }, ms(10), fullmove)
        };
        let (early, middle, late) = (at(1), at(20), at(60));
        assert!(early.soft < middle.soft && middle.soft < late.soft, "{early:?} {middle:?} {late:?}");
        for b in [early, middle, late] {
            assert!(b.hard.unwrap() <= ms(3_995), "at most half of what is left: {b:?}");
            assert!(b.hard.unwrap() >= b.soft.unwrap() * 3, "room for the soft limit to grow: {b:?}");
        }
    }

    #[test]
    fn soft_scaling_follows_stability_and_score() {
        assert!(soft_scale(0, 0) > soft_scale(1, 0) && soft_scale(1, 0) > soft_scale(6, 0));
        assert_eq!(soft_scale(6, 0), soft_scale(60, 0));
        assert!(soft_scale(3, 50) > soft_scale(3, 0) && soft_scale(3, 0) > soft_scale(3, -50));
        assert_eq!(soft_scale(3, 100), soft_scale(3, 900));
        let (lo, hi) = (soft_scale(99, -99), soft_scale(0, 999));
        assert!(lo > 0.5 && hi <= 4.0, "{lo} {hi}");
    }

    #[test]
    fn node_share_scaling() {
        assert!(node_scale(0.2) > node_scale(0.5) && node_scale(0.5) > node_scale(0.9));
        assert_eq!(node_scale(1.0), node_scale(7.0));
        assert!(node_scale(1.0) > 0.6 && node_scale(0.0) < 2.0);
    }

    #[test]
    fn movetime_and_infinite() {
        let b = TimeBudget::new(&Limits { movetime: Some(ms(500)), ..Default::default() }, ms(10), 1);
        assert_eq!(b.hard, Some(ms(490)));
        let b = TimeBudget::new(&Limits { infinite: true, movetime: Some(ms(5)), ..Default::default() }, ms(10), 1);
        assert_eq!(b, TimeBudget { soft: None, hard: None });
        let b = TimeBudget::new(&Limits { depth: Some(5), ..Default::default() }, ms(10), 1);
        assert_eq!(b, TimeBudget { soft: None, hard: None });
    }
}
