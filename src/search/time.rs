//! Search limits and the time manager.
//!
//! From the clock (`wtime/btime/winc/binc/movestogo`) minus `Move Overhead` come a soft limit
//! (no new iteration starts past it) and a hard limit (the search stops mid-iteration). `movetime`
//! is an exact hard limit; `nodes`, `depth` and `mate` are exact limits of their own. While
//! pondering no time limit applies; `ponderhit` starts the clock.
//!
//! Between iterations the soft limit is scaled (`soft_scale`): a best move that has stood for
//! several iterations ends the search early, a best move that just changed or a score that just
//! fell buys more time, within the hard limit; so does a best move that took a small share of the
//! search's nodes (`node_scale`: the other moves were hard to refute).

use std::time::Duration;

use super::params::p;

/// The side to move's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub time: Duration,
    pub increment: Duration,
    pub moves_to_go: Option<u32>,
}

/// What bounds one search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// No new iteration starts once the main thread has searched this many nodes (self-play
    /// data: about the same effort a move, whole iterations only).
    pub soft_nodes: Option<u64>,
    pub movetime: Option<Duration>,
    /// Search for a mate in this many moves (stop once one is found).
    pub mate: Option<u32>,
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
            // What may be spent at all: the clock less the overhead, and never the last bit of it.
            let left = clock.time.saturating_sub(overhead);
            let left = left.max(clock.time.min(Duration::from_millis(1)));
            // Without movestogo the game is taken to last about 35 more moves at its start and
            // fewer as it goes on (15 at the least), so a move's share of the clock grows.
            let start = f64::from(p!(TIME_MOVES_START));
            let slope = f64::from(p!(TIME_MOVES_SLOPE)) / 1000.0;
            let least = f64::from(p!(TIME_MOVES_MIN)).min(start);
            let expected = (start - slope * fullmove as f64).clamp(least, start) as u32;
            let moves = clock.moves_to_go.map_or(expected, |m| m.clamp(1, 50)).max(1);
            let base = left / moves + clock.increment * p!(TIME_INCREMENT_PERCENT) as u32 / 100;
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
            let (soft, hard) = (b.soft.unwrap(), b.hard.unwrap());
            assert!(soft <= hard, "{time} {inc} {mtg:?}");
            assert!(hard <= ms(time).saturating_sub(overhead).max(ms(time.min(1))), "{time} {inc} {mtg:?}: {hard:?}");
        }
        // movestogo 1 uses a good share but not all of the clock
        let last = TimeBudget::new(
            &Limits {
                clock: Some(Clock { time: ms(5000), increment: ms(0), moves_to_go: Some(1) }),
                ..Default::default()
            },
            overhead,
            20,
        );
        assert!(last.hard.unwrap() > ms(2000) && last.hard.unwrap() < ms(4000));
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
