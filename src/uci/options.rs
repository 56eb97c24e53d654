//! The UCI options: their declarations (`option name ... type ...`), current values, and checked
//! updates. A value out of range or of the wrong kind is refused with a reason and the option
//! keeps its value.

use crate::search::params;

/// `BookFile`'s value for no book.
pub const NO_BOOK: &str = "<none>";

/// `SyzygyPath`'s value for no tables.
pub const NO_TABLES: &str = "<empty>";

/// `EvalFile`'s value for the network built into the binary.
pub const EMBEDDED: &str = "<embedded>";
/// `UCI_Opponent` when no GUI has named one.
pub const NO_OPPONENT: &str = "<empty>";

/// The largest hash accepted (MiB); an allocation that fails is reported and the old table kept.
pub const MAX_HASH_MB: usize = 1 << 25;
pub const MAX_THREADS: usize = 1024;
pub const MAX_OVERHEAD_MS: u64 = 5000;
pub const MAX_MULTIPV: usize = 256;
/// `UCI_Elo`'s default: a club player.
pub const DEFAULT_ELO: u32 = 1500;

/// `Skill Level`'s top: full strength.
pub const MAX_SKILL: u32 = 20;

/// The `UCI_Elo` level that `Skill Level` `skill` plays at: Stockfish's own conversion between
/// the two (its `UCI_Elo` is turned into a skill level by `level = ((elo - 1346.6) / 143.4) ^
/// (1 / 0.806)`), inverted. Corvid's levels are fitted to Stockfish's `UCI_Elo`, so a page
/// written for Stockfish's worker gets about the strength it asked for: level 0 is about 1,350,
/// 10 about 2,260; from about 15 up the scale passes Corvid's full strength. `None` for 20.
pub fn skill_elo(skill: u32) -> Option<u32> {
    (skill < MAX_SKILL).then(|| (1346.6 + 143.4 * f64::from(skill).powf(0.806)).round() as u32)
}

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

/// The kind of value an option takes, as the `uci` answer declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number from `min` to `max`.
    Spin { min: u64, max: u64 },
    /// `true` or `false`.
    Check,
    /// No value: setting it does something.
    Button,
    /// Text (a path); empty or `none` means nothing is loaded.
    Text { none: &'static str },
    /// Free text kept as given (`UCI_Opponent`); empty or `none` is none.
    Words { none: &'static str },
}

/// One UCI option as the table declares it: its name, kind, one line of help, and how its
/// current value reads (for the `uci` answer's default).
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub kind: Kind,
    pub help: &'static str,
    show: fn(&Options) -> String,
}

impl Spec {
    /// The `option name ...` line of the `uci` answer.
    pub fn declaration(&self) -> String {
        let default = (self.show)(&Options::default());
        match self.kind {
            Kind::Spin { min, max } => {
                format!("option name {} type spin default {default} min {min} max {max}", self.name)
            }
            Kind::Check => format!("option name {} type check default {default}", self.name),
            Kind::Button => format!("option name {} type button", self.name),
            Kind::Text { .. } | Kind::Words { .. } => {
                format!("option name {} type string default {default}", self.name)
            }
        }
    }

    /// The option's line of the help text: its name, its values and default, what it does.
    pub fn help_line(&self) -> String {
        let default = (self.show)(&Options::default());
        let values = match self.kind {
            Kind::Spin { min, max } => format!("{min}-{max}, default {default}"),
            Kind::Check => format!("true|false, default {default}"),
            Kind::Button => "button".to_string(),
            Kind::Text { none } if default == none => format!("a path, or {none} (the default)"),
            Kind::Text { none } => format!("a path, or {none}; default {default}"),
            Kind::Words { none } => format!("text, or {none} (the default)"),
        };
        format!("  {:<18} {values}: {}", self.name, self.help)
    }
}

/// A value an option holds, read from `setoption`'s text as the option's kind says.
trait Setting: Sized {
    fn read(name: &str, kind: Kind, text: Option<&str>) -> Result<Self, String>;
    fn show(&self) -> String;
}

/// A spin's number, checked against its range.
fn number(name: &str, kind: Kind, text: Option<&str>) -> Result<u64, String> {
    let Kind::Spin { min, max } = kind else { unreachable!("numbers are spins") };
    let v = text.ok_or(format!("option '{name}' needs a value from {min} to {max}"))?.trim();
    match v.parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("option '{name}': '{v}' is not a number from {min} to {max}; unchanged")),
    }
}

macro_rules! spin_setting {
    ($($t:ty),*) => {$(
        impl Setting for $t {
            fn read(name: &str, kind: Kind, text: Option<&str>) -> Result<$t, String> {
                let n = number(name, kind, text)?;
                <$t>::try_from(n).map_err(|_| format!("option '{name}': {n} is too large; unchanged"))
            }
            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
spin_setting!(usize, u64, u32, i32);

impl Setting for bool {
    fn read(name: &str, _kind: Kind, text: Option<&str>) -> Result<bool, String> {
        match text.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            other => Err(format!("option '{name}': '{}' is not true or false; unchanged", other.unwrap_or(""))),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl Setting for String {
    /// The text trimmed; nothing, or only spaces, is the option's `none`.
    fn read(_name: &str, kind: Kind, text: Option<&str>) -> Result<String, String> {
        let (Kind::Text { none } | Kind::Words { none }) = kind else { unreachable!("strings are text options") };
        Ok(match text.map(str::trim) {
            None | Some("") => none.to_string(),
            Some(v) => v.to_string(),
        })
    }
    fn show(&self) -> String {
        self.clone()
    }
}

impl Setting for () {
    fn read(_name: &str, _kind: Kind, _text: Option<&str>) -> Result<(), String> {
        Ok(())
    }
    fn show(&self) -> String {
        String::new()
    }
}

/// What setting an option does: each takes the option's field and the value read.
mod effect {
    use super::{Change, EMBEDDED, NO_BOOK, NO_TABLES};

    /// Kept, read when next needed.
    pub fn store<T>(field: &mut T, v: T) -> Change {
        *field = v;
        Change::Stored
    }

    /// Kept; the table's evaluations were made at the old strength.
    pub fn strength<T>(field: &mut T, v: T) -> Change {
        *field = v;
        Change::Strength
    }

    /// A new table; the size is kept once it is allocated.
    pub fn resize(_field: &mut usize, mb: usize) -> Change {
        Change::Resize(mb)
    }

    pub fn clear_hash(_field: &mut (), _v: ()) -> Change {
        Change::ClearHash
    }

    /// `Some(path)` unless `v` is the option's `none`.
    fn path(v: String, none: &str) -> Option<String> {
        (v != none).then_some(v)
    }

    /// The paths are kept once the engine has read them.
    pub fn load_book(_field: &mut String, v: String) -> Change {
        Change::LoadBook(path(v, NO_BOOK))
    }

    pub fn load_syzygy(_field: &mut String, v: String) -> Change {
        Change::LoadSyzygy(path(v, NO_TABLES))
    }

    pub fn load_network(_field: &mut String, v: String) -> Change {
        Change::LoadNetwork(path(v, EMBEDDED))
    }
}

/// The option table: each option once, with its field, type and default, its UCI name and
/// kind, one line of help, and what setting it does ([`effect`]). The `Options` struct, its
/// default, the `uci` answer, `setoption` and the help text all come from it.
macro_rules! options {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident: $ty:ty = $default:expr, $name:literal, $kind:expr, $effect:ident, $help:literal;
    )*) => {
        /// Current option values.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Options {
            $($(#[doc = $doc])* pub $field: $ty,)*
        }

        impl Default for Options {
            fn default() -> Options {
                Options { $($field: $default,)* }
            }
        }

        /// Every option, in the order the `uci` answer lists them.
        pub const OPTIONS: &[Spec] = &[$(
            Spec { name: $name, kind: $kind, help: $help, show: |o: &Options| Setting::show(&o.$field) },
        )*];

        impl Options {
            /// Applies `setoption name <name> value <value>`; names are case-insensitive. A value
            /// out of range or of the wrong kind is refused with a reason, and the option keeps its
            /// value.
            pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, String> {
                let wanted = name.trim();
                if !offered(wanted) {
                    return Err(format!("option '{wanted}' is not offered here: this build reads no files"));
                }
                $(
                    if wanted.eq_ignore_ascii_case($name) {
                        let v = <$ty as Setting>::read($name, $kind, value)?;
                        return Ok(effect::$effect(&mut self.$field, v));
                    }
                )*
                set_tunable(name, value)
            }
        }
    };
}

options! {
    /// The transposition table's size in MiB (kept once the table is allocated).
    hash_mb: usize = 16, "Hash", Kind::Spin { min: 1, max: MAX_HASH_MB as u64 }, resize,
        "the transposition table, MB";
    threads: usize = 1, "Threads", Kind::Spin { min: 1, max: MAX_THREADS as u64 }, store,
        "search threads";
    clear_hash: () = (), "Clear Hash", Kind::Button, clear_hash, "empties the transposition table";
    ponder: bool = false, "Ponder", Kind::Check, store, "the GUI may search on the opponent's time";
    chess960: bool = false, "UCI_Chess960", Kind::Check, store, "Chess960 castling (king takes rook)";
    move_overhead_ms: u64 = 10, "Move Overhead", Kind::Spin { min: 0, max: MAX_OVERHEAD_MS }, store,
        "ms kept in hand on every move for the GUI and the pipes";
    multipv: usize = 1, "MultiPV", Kind::Spin { min: 1, max: MAX_MULTIPV as u64 }, store,
        "lines searched and shown";
    show_wdl: bool = false, "UCI_ShowWDL", Kind::Check, store, "win/draw/loss per mille in info lines";
    /// Evaluate with the network (`UseNNUE`, on by default); off: the hand-crafted, Texel-tuned
    /// evaluation alone.
    use_nnue: bool = crate::nnue::ON_BY_DEFAULT, "UseNNUE", Kind::Check, store,
        "evaluate with the network (off: the hand-crafted evaluation alone)";
    /// The network file in use (`EvalFile`); [`EMBEDDED`] for the one inside the binary.
    eval_file: String = EMBEDDED.to_string(), "EvalFile", Kind::Text { none: EMBEDDED }, load_network,
        "a network file to evaluate with";
    /// Play from the opening book (`OwnBook`) when one is loaded (`BookFile`).
    own_book: bool = false, "OwnBook", Kind::Check, store, "play from BookFile's book";
    /// The book file in use; [`NO_BOOK`] for none.
    book_file: String = NO_BOOK.to_string(), "BookFile", Kind::Text { none: NO_BOOK }, load_book,
        "a Polyglot opening book";
    /// Play at `elo` instead of full strength (`UCI_LimitStrength`).
    limit_strength: bool = false, "UCI_LimitStrength", Kind::Check, strength, "play at UCI_Elo";
    /// Analysis (`UCI_AnalyseMode`, which GUIs set for their analysis boards): no book move and
    /// full strength, whatever `OwnBook` and `UCI_LimitStrength` say.
    analyse_mode: bool = false, "UCI_AnalyseMode", Kind::Check, strength,
        "analysis: full strength and no book moves";
    /// Who the opponent is (`UCI_Opponent`, as `title elo computer|human name`): kept, not used.
    opponent: String = NO_OPPONENT.to_string(), "UCI_Opponent", Kind::Words { none: NO_OPPONENT }, store,
        "the opponent, as the GUI names it (kept, not used)";
    /// The level played at when `limit_strength` is on (`UCI_Elo`).
    elo: u32 = DEFAULT_ELO, "UCI_Elo",
        Kind::Spin { min: crate::search::strength::MIN_ELO as u64, max: crate::search::strength::MAX_ELO as u64 },
        strength, "the level played at (the top is full strength)";
    /// `Skill Level` as Stockfish's pages set it, 0-20: below 20 the level of
    /// [`skill_elo`] on the `UCI_Elo` scale; `UCI_LimitStrength` takes precedence.
    skill_level: u32 = MAX_SKILL, "Skill Level", Kind::Spin { min: 0, max: MAX_SKILL as u64 }, strength,
        "0-19 play weaker, as Stockfish's levels; 20 is full strength";
    /// Directories of Syzygy tables (`SyzygyPath`); [`NO_TABLES`] for none.
    syzygy_path: String = NO_TABLES.to_string(), "SyzygyPath", Kind::Text { none: NO_TABLES }, load_syzygy,
        "tables' directories, ':'-separated (';' on Windows)";
    /// `SyzygyProbeDepth`: the search probes at this depth or more.
    syzygy_probe_depth: i32 = 1, "SyzygyProbeDepth", Kind::Spin { min: 1, max: 100 }, store,
        "probe the tables at this depth or more";
    /// `SyzygyProbeLimit`: probe positions of at most this many pieces.
    syzygy_probe_limit: usize = crate::syzygy::MAX_PIECES, "SyzygyProbeLimit",
        Kind::Spin { min: 0, max: crate::syzygy::MAX_PIECES as u64 }, store,
        "probe positions of at most this many pieces";
    /// `Syzygy50MoveRule`: wins and losses the fifty-move rule spoils count as draws.
    syzygy_rule50: bool = true, "Syzygy50MoveRule", Kind::Check, store,
        "wins the fifty-move rule spoils count as draws";
}

/// The options that read files, and those that only matter with the tables one of them reads.
pub const FILE_OPTIONS: &[&str] =
    &["EvalFile", "OwnBook", "BookFile", "SyzygyPath", "SyzygyProbeDepth", "SyzygyProbeLimit", "Syzygy50MoveRule"];

/// Whether this build reads files: a bare WebAssembly build (the browser's engine) has none, so
/// it does not offer [`FILE_OPTIONS`].
pub const READS_FILES: bool = !cfg!(all(target_family = "wasm", target_os = "unknown"));

/// Whether this build offers the option `name` (every one but [`FILE_OPTIONS`] without files).
pub fn offered(name: &str) -> bool {
    READS_FILES || !FILE_OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(name.trim()))
}

impl Options {
    /// The `option ...` lines of the `uci` answer: the options this build offers.
    pub fn declarations(&self) -> Vec<String> {
        OPTIONS.iter().filter(|s| offered(s.name)).map(Spec::declaration).chain(tunable_declarations()).collect()
    }
}

/// The options' part of the help text, a line each from the table.
pub fn help() -> String {
    let lines: Vec<String> = OPTIONS.iter().filter(|s| offered(s.name)).map(Spec::help_line).collect();
    format!("Options (setoption name <name> value <v>):\n{}\n", lines.join("\n"))
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
    fn file_options_are_options_and_offered_where_files_are_read() {
        for name in FILE_OPTIONS {
            assert!(OPTIONS.iter().any(|s| s.name == *name), "{name}");
            // This build (native) reads files: every option is offered and declared.
            assert_eq!(offered(name), READS_FILES);
        }
        let o = Options::default();
        assert_eq!(o.declarations().iter().filter(|d| d.starts_with("option name SyzygyPath ")).count(), 1);
        assert!(offered("Hash") && offered(" multipv "));
    }

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
    fn the_table_declares_lists_and_sets_each_option_once() {
        let mut names: Vec<String> = OPTIONS.iter().map(|o| o.name.to_ascii_lowercase()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), OPTIONS.len(), "one entry per name, case aside");
        let help = help();
        let defaults = Options::default();
        for spec in OPTIONS {
            // Listed in the `uci` answer and the help, the help giving the range the table holds.
            let declared = defaults
                .declarations()
                .into_iter()
                .filter(|d| d.starts_with(&format!("option name {} type", spec.name)));
            assert_eq!(declared.count(), 1, "{}", spec.name);
            let line =
                help.lines().find(|l| l.trim_start().starts_with(spec.name)).unwrap_or_else(|| panic!("{}", spec.name));
            match spec.kind {
                Kind::Spin { min, max } => {
                    assert!(line.contains(&format!("{min}-{max}")), "{line}");
                    // The bounds are accepted, one past them refused, and the option unchanged then.
                    let mut o = Options::default();
                    for v in [min, max] {
                        assert!(o.set(spec.name, Some(&v.to_string())).is_ok(), "{} {v}", spec.name);
                    }
                    let kept = o.clone();
                    assert!(o.set(spec.name, Some(&(max + 1).to_string())).is_err(), "{}", spec.name);
                    if min > 0 {
                        assert!(o.set(spec.name, Some(&(min - 1).to_string())).is_err(), "{}", spec.name);
                    }
                    assert!(o.set(spec.name, Some("x")).is_err() && o.set(spec.name, None).is_err());
                    assert_eq!(o, kept, "{}: a refused value changes nothing", spec.name);
                }
                Kind::Check => {
                    // Stored (or a change of strength): the field reads what was set.
                    let mut o = Options::default();
                    let before = spec.declaration();
                    let flipped = !before.ends_with("true");
                    assert!(o.set(&spec.name.to_ascii_uppercase(), Some(&flipped.to_string())).is_ok());
                    assert_eq!((spec.show)(&o), flipped.to_string(), "{}", spec.name);
                    assert!(o.set(spec.name, Some("yes")).is_err());
                    assert_eq!((spec.show)(&o), flipped.to_string(), "{}", spec.name);
                }
                Kind::Button => assert_eq!(Options::default().set(spec.name, None), Ok(Change::ClearHash)),
                Kind::Text { none } => {
                    let mut o = Options::default();
                    assert!(line.contains(none), "{line}");
                    for empty in [None, Some(""), Some("  "), Some(none)] {
                        let change = o.set(spec.name, empty).unwrap();
                        assert!(
                            matches!(
                                change,
                                Change::LoadBook(None) | Change::LoadNetwork(None) | Change::LoadSyzygy(None)
                            ),
                            "{} {empty:?}: {change:?}",
                            spec.name
                        );
                    }
                }
                Kind::Words { none } => {
                    let mut o = Options::default();
                    assert!(line.contains(none), "{line}");
                    assert_eq!(o.set(spec.name, Some(" GM 2800 human Gary Kasparov ")), Ok(Change::Stored));
                    assert_eq!((spec.show)(&o), "GM 2800 human Gary Kasparov");
                    assert_eq!(o.set(spec.name, Some("")), Ok(Change::Stored));
                    assert_eq!((spec.show)(&o), none);
                }
            }
        }
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
        assert_eq!(o.set("Skill Level", Some("0")), Ok(Change::Strength));
        assert_eq!(o.skill_level, 0);
        assert!(o.set("skill level", Some("21")).is_err());
        assert!(o.set("Skill Level", Some("-1")).is_err());
        assert_eq!(o.skill_level, 0, "a refused value leaves the level as it was");
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
        assert_eq!(o.set("UCI_AnalyseMode", Some("true")), Ok(Change::Strength));
        assert!(o.analyse_mode);
        assert_eq!(o.set("UCI_Opponent", Some("IM 2400 computer Some Engine 1.0")), Ok(Change::Stored));
        assert_eq!(o.opponent, "IM 2400 computer Some Engine 1.0");
        assert_eq!(o.declarations().len(), 21 + tunables);
    }
}
