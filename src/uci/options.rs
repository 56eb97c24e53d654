//! The UCI options: their declarations (`option name ... type ...`), current values, and checked
//! updates. A value out of range or of the wrong kind is refused with a reason and the option
//! keeps its value.

use crate::search::params;
use crate::search::strength::{MAX_ELO, MIN_ELO};

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub ponder: bool,
    pub chess960: bool,
    pub move_overhead_ms: u64,
    pub multipv: usize,
    pub show_wdl: bool,
    /// Evaluate with the network (`UseNNUE`, on by default); off: the hand-crafted, Texel-tuned
    /// evaluation alone.
    pub use_nnue: bool,
    /// The network file in use (`EvalFile`); [`EMBEDDED`] for the one inside the binary.
    pub eval_file: String,
    /// Play from the opening book (`OwnBook`) when one is loaded (`BookFile`).
    pub own_book: bool,
    /// The book file in use; [`NO_BOOK`] for none.
    pub book_file: String,
    /// Play at `elo` instead of full strength (`UCI_LimitStrength`).
    pub limit_strength: bool,
    /// The level played at when `limit_strength` is on (`UCI_Elo`).
    pub elo: u32,
    /// Directories of Syzygy tables (`SyzygyPath`); [`NO_TABLES`] for none.
    pub syzygy_path: String,
    /// `SyzygyProbeDepth`: the search probes at this depth or more.
    pub syzygy_probe_depth: i32,
    /// `SyzygyProbeLimit`: probe positions of at most this many pieces.
    pub syzygy_probe_limit: usize,
    /// `Syzygy50MoveRule`: wins and losses the fifty-move rule spoils count as draws.
    pub syzygy_rule50: bool,
}

/// `BookFile`'s value for no book.
pub const NO_BOOK: &str = "<none>";

/// `SyzygyPath`'s value for no tables.
pub const NO_TABLES: &str = "<empty>";

/// `EvalFile`'s value for the network built into the binary.
pub const EMBEDDED: &str = "<embedded>";

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: 16,
            threads: 1,
            ponder: false,
            chess960: false,
            move_overhead_ms: 10,
            multipv: 1,
            show_wdl: false,
            use_nnue: crate::nnue::ON_BY_DEFAULT,
            eval_file: EMBEDDED.to_string(),
            own_book: false,
            book_file: NO_BOOK.to_string(),
            limit_strength: false,
            elo: DEFAULT_ELO,
            syzygy_path: NO_TABLES.to_string(),
            syzygy_probe_depth: 1,
            syzygy_probe_limit: crate::syzygy::MAX_PIECES,
            syzygy_rule50: true,
        }
    }
}

/// The largest hash accepted (MiB); an allocation that fails is reported and the old table kept.
pub const MAX_HASH_MB: usize = 1 << 25;
pub const MAX_THREADS: usize = 1024;
pub const MAX_OVERHEAD_MS: u64 = 5000;
pub const MAX_MULTIPV: usize = 256;
/// `UCI_Elo`'s default: a club player.
pub const DEFAULT_ELO: u32 = 1500;

/// What an accepted `setoption` asks the engine to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A value the engine reads when it next needs it.
    Stored,
    /// Resize the hash table to this many MiB.
    Resize(usize),
    /// Empty the hash table.
    ClearHash,
    /// Load the network file at this path (`None`: the embedded network); `eval_file` changes
    /// only when it loads.
    LoadNetwork(Option<String>),
    /// Load the Polyglot book at this path (`None`: no book).
    LoadBook(Option<String>),
    /// The playing strength changed: evaluations the table holds were made at another level.
    Strength,
    /// Scan these directories for Syzygy tables (`None`: no tables).
    LoadSyzygy(Option<String>),
}

impl Options {
    /// The `option ...` lines of the `uci` answer.
    pub fn declarations(&self) -> Vec<String> {
        let d = Options::default();
        vec![
            format!("option name Hash type spin default {} min 1 max {MAX_HASH_MB}", d.hash_mb),
            format!("option name Threads type spin default {} min 1 max {MAX_THREADS}", d.threads),
            "option name Clear Hash type button".to_string(),
            format!("option name Ponder type check default {}", d.ponder),
            format!("option name UCI_Chess960 type check default {}", d.chess960),
            format!("option name Move Overhead type spin default {} min 0 max {MAX_OVERHEAD_MS}", d.move_overhead_ms),
            format!("option name MultiPV type spin default {} min 1 max {MAX_MULTIPV}", d.multipv),
            format!("option name UCI_ShowWDL type check default {}", d.show_wdl),
            format!("option name UseNNUE type check default {}", d.use_nnue),
            format!("option name EvalFile type string default {}", d.eval_file),
            format!("option name OwnBook type check default {}", d.own_book),
            format!("option name BookFile type string default {}", d.book_file),
            format!("option name UCI_LimitStrength type check default {}", d.limit_strength),
            format!("option name UCI_Elo type spin default {} min {MIN_ELO} max {MAX_ELO}", d.elo),
            format!("option name SyzygyPath type string default {}", d.syzygy_path),
            format!("option name SyzygyProbeDepth type spin default {} min 1 max 100", d.syzygy_probe_depth),
            format!(
                "option name SyzygyProbeLimit type spin default {} min 0 max {}",
                d.syzygy_probe_limit,
                crate::syzygy::MAX_PIECES
            ),
            format!("option name Syzygy50MoveRule type check default {}", d.syzygy_rule50),
        ]
        .into_iter()
        .chain(tunable_declarations())
        .collect()
    }

    /// Applies `setoption name <name> value <value>`; names are case-insensitive.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, String> {
        let spin = |min: u64, max: u64| -> Result<u64, String> {
            let v = value.ok_or(format!("option '{name}' needs a value from {min} to {max}"))?.trim();
            match v.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!("option '{name}': '{v}' is not a number from {min} to {max}; unchanged")),
            }
        };
        let check = || -> Result<bool, String> {
            match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
                Some("true") => Ok(true),
                Some("false") => Ok(false),
                other => Err(format!("option '{name}': '{}' is not true or false; unchanged", other.unwrap_or(""))),
            }
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "hash" => {
                let mb = spin(1, MAX_HASH_MB as u64)? as usize;
                Ok(Change::Resize(mb))
            }
            "threads" => {
                self.threads = spin(1, MAX_THREADS as u64)? as usize;
                Ok(Change::Stored)
            }
            "clear hash" => Ok(Change::ClearHash),
            "ponder" => {
                self.ponder = check()?;
                Ok(Change::Stored)
            }
            "uci_chess960" => {
                self.chess960 = check()?;
                Ok(Change::Stored)
            }
            "move overhead" => {
                self.move_overhead_ms = spin(0, MAX_OVERHEAD_MS)?;
                Ok(Change::Stored)
            }
            "multipv" => {
                self.multipv = spin(1, MAX_MULTIPV as u64)? as usize;
                Ok(Change::Stored)
            }
            "uci_showwdl" => {
                self.show_wdl = check()?;
                Ok(Change::Stored)
            }
            "usennue" => {
                self.use_nnue = check()?;
                Ok(Change::Stored)
            }
            "uci_limitstrength" => {
                self.limit_strength = check()?;
                Ok(Change::Strength)
            }
            "uci_elo" => {
                self.elo = spin(MIN_ELO as u64, MAX_ELO as u64)? as u32;
                Ok(Change::Strength)
            }
            "syzygypath" => match value.map(str::trim) {
                None | Some("") => Ok(Change::LoadSyzygy(None)),
                Some(v) if v == NO_TABLES => Ok(Change::LoadSyzygy(None)),
                Some(paths) => Ok(Change::LoadSyzygy(Some(paths.to_string()))),
            },
            "syzygyprobedepth" => {
                self.syzygy_probe_depth = spin(1, 100)? as i32;
                Ok(Change::Stored)
            }
            "syzygyprobelimit" => {
                self.syzygy_probe_limit = spin(0, crate::syzygy::MAX_PIECES as u64)? as usize;
                Ok(Change::Stored)
            }
            "syzygy50moverule" => {
                self.syzygy_rule50 = check()?;
                Ok(Change::Stored)
            }
            "ownbook" => {
                self.own_book = check()?;
                Ok(Change::Stored)
            }
            "bookfile" => match value.map(str::trim) {
                None | Some("") => Ok(Change::LoadBook(None)),
                Some(v) if v == NO_BOOK => Ok(Change::LoadBook(None)),
                Some(path) => Ok(Change::LoadBook(Some(path.to_string()))),
            },
            "evalfile" => match value.map(str::trim) {
                None | Some("") => Ok(Change::LoadNetwork(None)),
                Some(v) if v == EMBEDDED => Ok(Change::LoadNetwork(None)),
                Some(path) => Ok(Change::LoadNetwork(Some(path.to_string()))),
            },
            _ => set_tunable(name, value),
        }
    }
}

/// A tune build's options: one spin per search and clock constant (`make TUNE=1`).
fn tunable_declarations() -> Vec<String> {
    if !params::TUNE_BUILD {
        return Vec::new();
    }
    params::TUNABLES
        .iter()
        .map(|t| format!("option name {} type spin default {} min {} max {}", t.name, t.default, t.min, t.max))
        .collect()
}

/// `setoption` of a tunable constant in a tune build; any other name is no option.
#[cfg(feature = "tune")]
fn set_tunable(name: &str, value: Option<&str>) -> Result<Change, String> {
    let t = params::tunable(name.trim()).ok_or_else(|| format!("no such option '{name}'"))?;
    let v = value.map(str::trim).unwrap_or("");
    let n = v
        .parse::<i32>()
        .map_err(|_| format!("option '{}': '{v}' is not a number from {} to {}; unchanged", t.name, t.min, t.max))?;
    params::set(t.name, n)?;
    Ok(Change::Stored)
}

#[cfg(not(feature = "tune"))]
fn set_tunable(name: &str, _value: Option<&str>) -> Result<Change, String> {
    Err(format!("no such option '{name}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tunables_are_options_of_a_tune_build_only() {
        let mut o = Options::default();
        let t = params::tunable("TIME_NODE_FACTOR").unwrap();
        let declared = o.declarations().iter().any(|d| d.starts_with("option name TIME_NODE_FACTOR type spin"));
        assert_eq!(declared, params::TUNE_BUILD);
        let other = (t.default + 1).to_string();
        if params::TUNE_BUILD {
            assert_eq!(o.set("time_node_factor", Some(&other)), Ok(Change::Stored));
            assert_eq!(params::value(t.name), Some(t.default + 1));
            assert!(o.set("TIME_NODE_FACTOR", Some(&(t.max + 1).to_string())).is_err());
            assert!(o.set("TIME_NODE_FACTOR", Some("many")).is_err());
            assert_eq!(params::value(t.name), Some(t.default + 1), "a refused value changes nothing");
            assert_eq!(o.set("TIME_NODE_FACTOR", Some(&t.default.to_string())), Ok(Change::Stored));
        } else {
            assert_eq!(o.set("TIME_NODE_FACTOR", Some(&other)), Err("no such option 'TIME_NODE_FACTOR'".into()));
        }
        assert_eq!(params::value(t.name), Some(t.default));
    }

    #[test]
    fn values_are_checked() {
        let mut o = Options::default();
        assert_eq!(o.set("Threads", Some("2")), Ok(Change::Stored));
        assert_eq!(o.threads, 2);
        assert!(o.set("Threads", Some("0")).is_err());
        assert!(o.set("Threads", Some("two")).is_err());
        assert!(o.set("threads", None).is_err());
        assert_eq!(o.threads, 2, "a refused value leaves the option as it was");
        assert_eq!(o.set("hash", Some("64")), Ok(Change::Resize(64)));
        assert!(o.set("Hash", Some("-1")).is_err());
        assert!(o.set("Hash", Some("99999999999999999999")).is_err());
        assert_eq!(o.set("Clear Hash", None), Ok(Change::ClearHash));
        assert_eq!(o.set("UCI_Chess960", Some("TRUE")), Ok(Change::Stored));
        assert!(o.chess960);
        assert!(o.set("Ponder", Some("maybe")).is_err());
        assert!(o.use_nnue, "the network is on by default");
        assert_eq!(o.set("UseNNUE", Some("false")), Ok(Change::Stored));
        assert!(!o.use_nnue);
        assert!(o.set("UseNNUE", Some("yes")).is_err());
        assert!(!o.use_nnue, "a refused value leaves the option as it was");
        assert_eq!(o.set("UseNNUE", Some("true")), Ok(Change::Stored));
        assert!(o.use_nnue);
        assert_eq!(o.set("Move Overhead", Some("100")), Ok(Change::Stored));
        assert_eq!(o.move_overhead_ms, 100);
        assert!(o.set("Move Overhead", Some("5001")).is_err());
        assert!(o.set("Nonsense", Some("1")).is_err());
        assert_eq!(o.set("MultiPV", Some("3")), Ok(Change::Stored));
        assert_eq!(o.multipv, 3);
        assert!(o.set("MultiPV", Some("0")).is_err());
        assert!(o.set("MultiPV", Some("257")).is_err());
        assert_eq!(o.multipv, 3);
        assert_eq!(o.set("UCI_ShowWDL", Some("true")), Ok(Change::Stored));
        assert!(o.show_wdl);
        assert!(o.set("UCI_ShowWDL", Some("1")).is_err());
        assert_eq!(o.set("EvalFile", Some(" nets/a.nnue ")), Ok(Change::LoadNetwork(Some("nets/a.nnue".into()))));
        assert_eq!(o.set("evalfile", Some("<embedded>")), Ok(Change::LoadNetwork(None)));
        assert_eq!(o.set("EvalFile", None), Ok(Change::LoadNetwork(None)));
        assert_eq!(o.eval_file, EMBEDDED, "the engine records the file once it has loaded it");
        assert_eq!(o.set("OwnBook", Some("true")), Ok(Change::Stored));
        assert!(o.own_book);
        assert_eq!(o.set("BookFile", Some("books/x.bin")), Ok(Change::LoadBook(Some("books/x.bin".into()))));
        assert_eq!(o.set("BookFile", Some("<none>")), Ok(Change::LoadBook(None)));
        assert_eq!(o.set("UCI_LimitStrength", Some("true")), Ok(Change::Strength));
        assert!(o.limit_strength);
        assert_eq!(o.set("UCI_Elo", Some("2000")), Ok(Change::Strength));
        assert_eq!(o.elo, 2000);
        assert!(o.set("UCI_Elo", Some("999")).is_err());
        assert!(o.set("UCI_Elo", Some("3001")).is_err());
        assert!(o.set("UCI_Elo", Some("strong")).is_err());
        assert_eq!(o.elo, 2000);
        assert_eq!(o.set("SyzygyPath", Some(" /a:/b ")), Ok(Change::LoadSyzygy(Some("/a:/b".into()))));
        assert_eq!(o.set("SyzygyPath", Some("<empty>")), Ok(Change::LoadSyzygy(None)));
        assert_eq!(o.set("SyzygyProbeDepth", Some("5")), Ok(Change::Stored));
        assert_eq!(o.syzygy_probe_depth, 5);
        assert!(o.set("SyzygyProbeDepth", Some("0")).is_err());
        assert_eq!(o.set("SyzygyProbeLimit", Some("5")), Ok(Change::Stored));
        assert!(o.set("SyzygyProbeLimit", Some("8")).is_err());
        assert_eq!(o.syzygy_probe_limit, 5);
        assert_eq!(o.set("Syzygy50MoveRule", Some("false")), Ok(Change::Stored));
        assert!(!o.syzygy_rule50);
        let tunables = if params::TUNE_BUILD { params::TUNABLES.len() } else { 0 };
        assert_eq!(o.declarations().len(), 18 + tunables);
    }
}
