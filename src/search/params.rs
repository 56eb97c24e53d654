//! The search's and the clock's tuning constants in one place: margins, depth limits and divisors
//! of every pruning, reduction and extension rule in `alphabeta`, the aspiration window of
//! `iterative`, the history bonus, and the time manager's shares and factors. Each was measured
//! where it was introduced (see `docs/search.md`); change one of the search's and the `Bench:`
//! signature changes with it.
//!
//! Every constant is declared once, in `tunables!`, with the range it may be tuned in. Code
//! reads one as `p!(NAME)`. In the normal build that is the constant itself. In a build with the
//! `tune` feature (`make TUNE=1`) each is an atomic the UCI option of the same name sets, so that
//! a tuner (OpenBench's SPSA, `docs/scripts/spsa.py`) can play one binary at many settings;
//! `corvid spsa` prints them as OpenBench's SPSA input. At its defaults the tune build searches
//! exactly like the normal one (the same `bench`).

/// One tunable constant: its name (the UCI option of a tune build), its value and its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
}

impl Tunable {
    /// The perturbation SPSA ends with: a twentieth of the range, at least half a unit (smaller
    /// steps of an integer do nothing).
    pub fn c_end(&self) -> f64 {
        (f64::from(self.max - self.min) / 20.0).max(0.5)
    }

    /// Its line of OpenBench's SPSA input: `name, int, value, min, max, c_end, r_end`.
    pub fn openbench_line(&self) -> String {
        format!("{}, int, {}, {}, {}, {}, 0.002", self.name, self.default, self.min, self.max, self.c_end())
    }
}

macro_rules! tunables {
    ($( $(#[doc = $doc:literal])* $name:ident = $value:literal, $min:literal ..= $max:literal; )*) => {
        /// Every tunable constant, in the order of this file.
        pub const TUNABLES: &[Tunable] = &[
            $( Tunable { name: stringify!($name), default: $value, min: $min, max: $max }, )*
        ];

        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            pub const $name: i32 = $value;
            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            pub static $name: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new($value);
        )*

        /// The cells of a tune build, in the order of [`TUNABLES`].
        #[cfg(feature = "tune")]
        static CELLS: &[&std::sync::atomic::AtomicI32] = &[ $( &$name, )* ];
    };
}

/// Reads a tunable: the constant in the normal build, the option's current value in a tune build.
#[cfg(not(feature = "tune"))]
macro_rules! p {
    ($name:ident) => {
        $crate::search::params::$name
    };
}
#[cfg(feature = "tune")]
macro_rules! p {
    ($name:ident) => {
        $crate::search::params::$name.load(std::sync::atomic::Ordering::Relaxed)
    };
}
pub(crate) use p;

/// OpenBench's SPSA input for every tunable, one line each, with no newline after the last:
/// OpenBench reads each line of the field it is pasted into, and an empty last line makes it
/// reject the whole input as "Malformed SPSA Input".
pub fn openbench_input() -> String {
    TUNABLES.iter().map(Tunable::openbench_line).collect::<Vec<_>>().join("\n")
}

/// Whether this build takes the tunables as UCI options (`make TUNE=1`).
pub const TUNE_BUILD: bool = cfg!(feature = "tune");

/// The tunable called `name` (case-insensitive).
pub fn tunable(name: &str) -> Option<&'static Tunable> {
    TUNABLES.iter().find(|t| t.name.eq_ignore_ascii_case(name))
}

/// The cell of the tunable `name` (case-insensitive), in a tune build.
#[cfg(feature = "tune")]
fn cell(name: &str) -> Option<&'static std::sync::atomic::AtomicI32> {
    TUNABLES.iter().position(|t| t.name.eq_ignore_ascii_case(name)).map(|i| CELLS[i])
}

/// Sets the tunable `name` to `value` (a tune build's `setoption`); a value outside its range
/// is refused.
#[cfg(feature = "tune")]
pub fn set(name: &str, value: i32) -> Result<(), String> {
    let t = tunable(name).ok_or_else(|| format!("no such option '{name}'"))?;
    if !(t.min..=t.max).contains(&value) {
        return Err(format!("option '{}': {value} is not from {} to {}; unchanged", t.name, t.min, t.max));
    }
    cell(name).expect("every tunable has a cell").store(value, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// The current value of the tunable `name`.
pub fn value(name: &str) -> Option<i32> {
    #[cfg(feature = "tune")]
    {
        cell(name).map(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }
    #[cfg(not(feature = "tune"))]
    {
        tunable(name).map(|t| t.default)
    }
}

tunables! {
    /// Aspiration: the first window's half-width around the previous score, from this depth on.
    ASPIRATION_DELTA = 20, 8..=50;
    ASPIRATION_MIN_DEPTH = 4, 2..=8;
    /// Aspiration: a fail high searches the wider window a ply shallower, up to this many plies.
    ASPIRATION_FAIL_HIGH_MAX = 3, 0..=6;

    /// Reverse futility pruning: a node whose evaluation beats beta by `RFP_MARGIN` per ply (one
    /// ply less when improving) returns it, up to this depth.
    RFP_MAX_DEPTH = 8, 4..=12;
    RFP_MARGIN = 81, 40..=160;
    /// Reverse futility pruning: the margin grows by this many 1/1024 centipawns per centipawn
    /// of the static evaluation's correction (an evaluation the correction moved far is
    /// uncertain).
    RFP_CORRECTION = 512, 0..=1536;

    /// Null move: from this depth, reduced by `NMP_BASE + depth / NMP_DEPTH_DIVISOR` and one more
    /// ply per `NMP_EVAL_DIVISOR` of evaluation above beta (at most `NMP_EVAL_MAX`).
    NMP_MIN_DEPTH = 3, 1..=6;
    NMP_BASE = 3, 2..=5;
    NMP_DEPTH_DIVISOR = 4, 2..=8;
    NMP_EVAL_DIVISOR = 192, 100..=400;
    NMP_EVAL_MAX = 3, 1..=6;
    /// Null move: this many plies more where the hash move is a capture or promotion.
    NMP_AFTER_NOISY_TT = 1, 0..=3;

    /// ProbCut: from this depth, a capture that beats beta by the margin in a search
    /// `PROBCUT_REDUCTION` plies shallower cuts the node.
    PROBCUT_MIN_DEPTH = 5, 3..=8;
    PROBCUT_MARGIN = 205, 100..=400;
    PROBCUT_REDUCTION = 4, 2..=6;
    /// A table entry at least this much shallower than the node says nothing about ProbCut.
    PROBCUT_TT_DEPTH = 3, 1..=6;

    /// Internal iterative reduction: a node without a hash move, from this depth.
    IIR_MIN_DEPTH = 4, 2..=8;

    /// Late-move pruning: quiets after `(LMP_BASE + depth^2)` moves (half that when not
    /// improving), up to this depth.
    LMP_MAX_DEPTH = 8, 4..=12;
    LMP_BASE = 3, 1..=8;

    /// History pruning: a quiet whose history is below `-HISTORY_PRUNE_MARGIN x depth`, up to this
    /// depth.
    HISTORY_PRUNE_MAX_DEPTH = 4, 2..=8;
    HISTORY_PRUNE_MARGIN = 3208, 1000..=6000;

    /// Futility pruning of quiets: evaluation + `FUTILITY_BASE + FUTILITY_MARGIN x depth` at most
    /// alpha, up to this depth.
    FUTILITY_MAX_DEPTH = 6, 3..=10;
    FUTILITY_BASE = 103, 40..=200;
    FUTILITY_MARGIN = 93, 40..=180;
    /// Futility pruning of quiets: the margin grows by this many 1/1024 centipawns per centipawn
    /// of the correction.
    FUTILITY_CORRECTION = 512, 0..=1536;
    /// Futility pruning of captures that give no check: evaluation + the victim's value +
    /// `CAPTURE_FUTILITY_BASE + CAPTURE_FUTILITY_MARGIN x depth` at most alpha, up to this depth.
    CAPTURE_FUTILITY_MAX_DEPTH = 6, 3..=10;
    CAPTURE_FUTILITY_BASE = 150, 50..=400;
    CAPTURE_FUTILITY_MARGIN = 120, 50..=250;

    /// SEE pruning: a quiet losing more than `SEE_QUIET_MARGIN x depth^2`, up to
    /// `SEE_QUIET_MAX_DEPTH`; a capture losing more than `SEE_NOISY_MARGIN x depth`, up to
    /// `SEE_NOISY_MAX_DEPTH`.
    SEE_QUIET_MAX_DEPTH = 8, 4..=12;
    SEE_QUIET_MARGIN = 40, 15..=90;
    SEE_NOISY_MAX_DEPTH = 6, 3..=10;
    SEE_NOISY_MARGIN = 86, 40..=180;

    /// Singular extensions: from this depth, for a hash move whose entry is at most
    /// `SINGULAR_TT_DEPTH` plies shallower; the margin below its score is
    /// `SINGULAR_MARGIN x depth`.
    SINGULAR_MIN_DEPTH = 8, 5..=10;
    SINGULAR_TT_DEPTH = 3, 1..=5;
    SINGULAR_MARGIN = 2, 1..=4;
    /// A second ply of extension when the rest fall this far below the margin, at most
    /// `DOUBLE_EXTENSIONS_MAX` times on one path.
    DOUBLE_EXTENSION_MARGIN = 19, 5..=50;
    /// The double extension's margin shrinks (to no less than 0) by this many 1/1024 centipawns
    /// per centipawn of the correction.
    DOUBLE_EXTENSION_CORRECTION = 256, 0..=1024;
    DOUBLE_EXTENSIONS_MAX = 6, 2..=12;

    /// Late-move reductions: `LMR_BASE / 100 + ln(depth) ln(move number) / (LMR_DIVISOR / 100)`,
    /// from `LMR_MIN_DEPTH`, less one ply per `LMR_HISTORY_DIVISOR` of history.
    LMR_BASE = 78, 25..=150;
    LMR_DIVISOR = 234, 150..=350;
    LMR_MIN_DEPTH = 3, 2..=5;
    LMR_HISTORY_DIVISOR = 11888, 4096..=24576;
    /// LMR's adjustments in 1/1024 ply: more outside PV nodes, where the node is not improving,
    /// in cut nodes, for a quiet after a noisy hash move and where the node's children keep
    /// failing high (`LMR_CUTOFFS`); less for a move that gives check and for a killer.
    LMR_NON_PV = 1024, 0..=2048;
    LMR_NOT_IMPROVING = 1024, 0..=2048;
    LMR_CUT_NODE = 1024, 0..=2048;
    LMR_GIVES_CHECK = 1024, 0..=2048;
    LMR_KILLER = 1024, 0..=2048;
    LMR_AFTER_NOISY_TT = 1024, 0..=2048;
    LMR_CUTOFF_NODE = 1024, 0..=2048;
    /// LMR of quiets: 1/1024 ply more per centipawn the evaluation lies below alpha, at most
    /// `LMR_EVAL_GAP_MAX`.
    LMR_EVAL_GAP = 3, 0..=10;
    LMR_EVAL_GAP_MAX = 1024, 0..=3072;
    /// LMR of captures and promotions: less for one that loses no material, and less (or more)
    /// by a ply per `LMR_CAPTURE_HISTORY_DIVISOR` of capture history.
    LMR_GOOD_NOISY = 2048, 0..=4096;
    LMR_CAPTURE_HISTORY_DIVISOR = 8192, 2048..=32768;
    /// LMR: 1/1024 ply less per centipawn of the static evaluation's correction.
    LMR_CORRECTION = 6, 0..=16;
    /// After a reduced move beats alpha: a ply deeper when it beat the best by
    /// `DEEPER_BASE + DEEPER_MARGIN x depth`, a ply shallower when by less than
    /// `SHALLOWER_MARGIN`.
    DEEPER_BASE = 36, 10..=100;
    DEEPER_MARGIN = 2, 0..=8;
    SHALLOWER_MARGIN = 11, 0..=30;

    /// Quiescence delta pruning: a capture whose victim cannot lift the evaluation to alpha by
    /// this much more.
    DELTA_MARGIN = 245, 50..=400;
    /// LMR: a ply more where more than this many children of the node have failed high (it
    /// is likely to fail high again, and its remaining moves matter less).
    LMR_CUTOFFS = 2, 1..=6;
    /// Quiescence move-count pruning: after this many captures, only recaptures and promotions.
    QS_MOVE_COUNT = 3, 1..=8;
    /// Quiescence SEE pruning: a capture may lose this many 1/1024 centipawns per centipawn of
    /// the correction and still be searched (where the evaluation is uncertain).
    QS_SEE_CORRECTION = 512, 0..=2048;

    /// Hindsight: a node its parent reduced by at least `HINDSIGHT_REDUCTION` plies is searched a
    /// ply deeper when the position is no better for the side that moved into it, a node reduced
    /// by two or more a ply shallower when the two evaluations sum above `HINDSIGHT_MARGIN`.
    HINDSIGHT_REDUCTION = 3, 2..=5;
    HINDSIGHT_MARGIN = 153, 50..=300;

    /// Move order: a quiet move of a knight or bishop, rook or queen that leaves a square attacked
    /// by a lesser piece (a pawn; a pawn or minor; a pawn, minor or rook) is scored this much
    /// higher, one that moves onto such a square this much lower.
    ORDER_THREAT_MINOR = 8000, 0..=16000;
    ORDER_THREAT_ROOK = 12000, 0..=24000;
    ORDER_THREAT_QUEEN = 16000, 0..=32000;
    /// Move order: a quiet direct check that loses no material is scored this much higher.
    ORDER_CHECK = 8000, 0..=16000;

    /// The history bonus of a cut-off at `depth`: `HISTORY_BONUS_SCALE x depth -
    /// HISTORY_BONUS_OFFSET`, at most `HISTORY_BONUS_MAX`.
    HISTORY_BONUS_SCALE = 174, 80..=340;
    HISTORY_BONUS_OFFSET = 112, 0..=300;
    HISTORY_BONUS_MAX = 1706, 800..=3200;

    /// The clock, without movestogo: the game is taken to last `TIME_MOVES_START -
    /// TIME_MOVES_SLOPE / 1000 x move number` more moves, at least `TIME_MOVES_MIN`.
    TIME_MOVES_START = 35, 20..=50;
    TIME_MOVES_SLOPE = 400, 0..=800;
    TIME_MOVES_MIN = 15, 8..=30;
    /// The soft limit (base): the moves' share of the clock plus `TIME_INCREMENT_PERCENT` of the
    /// increments to come, less an overhead for each move, at most `TIME_SOFT_MAX_PERCENT` of the
    /// clock.
    TIME_INCREMENT_PERCENT = 75, 40..=100;
    TIME_SOFT_MAX_PERCENT = 40, 20..=60;
    /// The hard limit: `TIME_HARD_FACTOR x base`, at most `TIME_HARD_MAX_PERCENT` of the clock.
    TIME_HARD_FACTOR = 8, 3..=12;
    TIME_HARD_MAX_PERCENT = 50, 30..=75;
    /// The soft limit's factor (percent) after 0, 1, ... 6 or more iterations with the same best
    /// move.
    TIME_STABILITY_0 = 200, 120..=300;
    TIME_STABILITY_1 = 150, 100..=250;
    TIME_STABILITY_2 = 120, 80..=200;
    TIME_STABILITY_3 = 105, 70..=150;
    TIME_STABILITY_4 = 95, 60..=130;
    TIME_STABILITY_5 = 85, 50..=120;
    TIME_STABILITY_6 = 75, 40..=110;
    /// A score that fell by this many centipawns since the last iteration doubles the soft limit
    /// (a rise of a quarter of it takes a quarter off).
    TIME_SCORE_DROP = 100, 40..=250;
    /// The factor for the best move's share of the nodes:
    /// `(TIME_NODE_BASE / 100 - share) x TIME_NODE_FACTOR / 100`.
    TIME_NODE_BASE = 150, 110..=200;
    TIME_NODE_FACTOR = 130, 80..=200;
    /// With one legal move, the search under a clock ends after this depth.
    TIME_ONE_MOVE_DEPTH = 4, 1..=8;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_starts_inside_its_range_under_a_unique_name() {
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(t.min < t.max && (t.min..=t.max).contains(&t.default), "{t:?}");
            assert!(TUNABLES[..i].iter().all(|o| !o.name.eq_ignore_ascii_case(t.name)), "{} twice", t.name);
            // (A tune build's options test changes one while this runs.)
            if !TUNE_BUILD {
                assert_eq!(value(t.name), Some(t.default), "{} reads its default", t.name);
            }
        }
        assert_eq!(tunable("rfp_margin").map(|t| t.name), Some("RFP_MARGIN"));
        assert_eq!(p!(RFP_MARGIN), value("RFP_MARGIN").unwrap());
    }

    #[test]
    fn openbench_input_is_one_line_a_tunable_and_no_empty_line() {
        let input = openbench_input();
        assert!(!input.ends_with('\n') && !input.starts_with('\n'), "{input:?}");
        // As OpenBench reads it: every line, split at commas, has seven fields.
        let lines: Vec<&str> = input.split('\n').collect();
        assert_eq!(lines.len(), TUNABLES.len());
        for (line, t) in lines.iter().zip(TUNABLES) {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[0], t.name);
            assert_eq!(fields[1], "int");
            let value: f64 = fields[2].parse().unwrap();
            let (min, max): (f64, f64) = (fields[3].parse().unwrap(), fields[4].parse().unwrap());
            assert!(min <= value && value <= max, "{line}");
            assert!(fields[5].parse::<f64>().unwrap() > 0.0 && fields[6].parse::<f64>().unwrap() > 0.0, "{line}");
        }
    }

    #[test]
    fn openbench_lines_have_seven_fields() {
        // The value is whatever the last tune left; the range and the steps follow from the range.
        let rfp = tunable("RFP_MARGIN").unwrap();
        assert_eq!(rfp.openbench_line(), format!("RFP_MARGIN, int, {}, 40, 160, 6, 0.002", rfp.default));
        let small = tunable("SINGULAR_MARGIN").unwrap();
        assert_eq!(small.openbench_line(), format!("SINGULAR_MARGIN, int, {}, 1, 4, 0.5, 0.002", small.default));
    }
}
