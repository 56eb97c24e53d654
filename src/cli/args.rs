//! The command line's one parser: each subcommand is a [`Spec`] (its operands and flags, each
//! with a line of help), from which come the parsing, `corvid <subcommand> --help`, the usage
//! line of every error and the command list of `corvid help`. A flag's value is checked against
//! its range here, so a nonsense value is refused with a message naming the flag.

use std::str::FromStr;

/// What a flag takes after its name.
#[derive(Clone, Copy, Debug)]
pub enum Takes {
    /// Nothing: a switch.
    Nothing,
    /// A whole number from `min` to `max`.
    Int { min: u64, max: u64 },
    /// A number from `min` to `max`.
    Float { min: f64, max: f64 },
    /// One of these words.
    Word(&'static [&'static str]),
    /// Any text (a file, a FEN, a time control), checked by the subcommand.
    Text,
}

/// What applies when a flag is not given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    /// Nothing (the subcommand goes without).
    Nothing,
    Int(u64),
    Float(f64),
    Word(&'static str),
    /// Worked out when the subcommand runs, as these words say (`every core`).
    Said(&'static str),
}

/// One flag: `--name`, what it takes (with its range or its words) and its default, from which
/// come its line of help, the check of its value, and the value itself.
#[derive(Debug)]
pub struct Flag {
    pub name: &'static str,
    /// The value's placeholder in the synopsis (`N`, `MB`, `FILE`); words show themselves.
    pub value: &'static str,
    pub help: &'static str,
    pub takes: Takes,
    pub default: Default,
    /// The subcommand cannot run without it.
    pub required: bool,
}

/// A switch (a flag without a value).
pub const fn switch(name: &'static str, help: &'static str) -> Flag {
    Flag { name, value: "", help, takes: Takes::Nothing, default: Default::Nothing, required: false }
}

/// A whole number from `min` to `max`.
pub const fn int(
    name: &'static str,
    value: &'static str,
    help: &'static str,
    (min, max): (u64, u64),
    default: Default,
) -> Flag {
    Flag { name, value, help, takes: Takes::Int { min, max }, default, required: false }
}

/// A number from `min` to `max`.
pub const fn float(
    name: &'static str,
    value: &'static str,
    help: &'static str,
    (min, max): (f64, f64),
    default: Default,
) -> Flag {
    Flag { name, value, help, takes: Takes::Float { min, max }, default, required: false }
}

/// One of `words`.
pub const fn word(name: &'static str, help: &'static str, words: &'static [&'static str], default: Default) -> Flag {
    Flag { name, value: "", help, takes: Takes::Word(words), default, required: false }
}

/// Any text.
pub const fn text(name: &'static str, value: &'static str, help: &'static str, default: Default) -> Flag {
    Flag { name, value, help, takes: Takes::Text, default, required: false }
}

/// Any text, which must be given.
pub const fn required(name: &'static str, value: &'static str, help: &'static str) -> Flag {
    Flag { name, value, help, takes: Takes::Text, default: Default::Nothing, required: true }
}

/// Maxima this large are written "or more" (they stand for "no limit").
const UNBOUNDED: u64 = 1 << 53;

impl Flag {
    /// What the synopsis writes after the name: the placeholder, or the words (`a|b|c`);
    /// `None` for a switch.
    pub fn placeholder(&self) -> Option<String> {
        match self.takes {
            Takes::Nothing => None,
            Takes::Word(words) => Some(words.join("|")),
            _ => Some(self.value.to_string()),
        }
    }

    /// The help line's text: what it is, then its range and its default, from the table.
    pub fn describe(&self) -> String {
        let range = match self.takes {
            Takes::Int { min, max } if max >= UNBOUNDED => Some(format!("{min} or more")),
            Takes::Int { min, max } => Some(format!("{min}-{max}")),
            Takes::Float { min, max } if max.is_infinite() => Some(format!("{min} or more")),
            Takes::Float { min, max } => Some(format!("{min}-{max}")),
            _ => None,
        };
        let default = match self.default {
            Default::Nothing => None,
            Default::Int(n) => Some(format!("default {n}")),
            Default::Float(x) => Some(format!("default {x}")),
            Default::Word(w) | Default::Said(w) => Some(format!("default {w}")),
        };
        match [range, default].into_iter().flatten().collect::<Vec<_>>().join("; ") {
            extra if extra.is_empty() => self.help.to_string(),
            extra => format!("{} ({extra})", self.help),
        }
    }

    /// `v` checked against what the flag takes: an error that names the flag and the range.
    fn check(&self, v: &str) -> Result<(), String> {
        let name = self.name;
        match self.takes {
            Takes::Nothing | Takes::Text => Ok(()),
            Takes::Int { min, max } => match v.parse::<u64>() {
                Ok(x) if (min..=max).contains(&x) => Ok(()),
                _ if max >= UNBOUNDED => Err(format!("{name}: '{v}' is not a whole number of {min} or more")),
                _ => Err(format!("{name}: '{v}' is not a number from {min} to {max}")),
            },
            Takes::Float { min, max } => match v.parse::<f64>() {
                Ok(x) if !x.is_nan() && (min..=max).contains(&x) && (x.is_finite() || max.is_infinite()) => Ok(()),
                _ if max.is_infinite() => Err(format!("{name}: '{v}' is not a number of {min} or more")),
                _ => Err(format!("{name}: '{v}' is not a number from {min} to {max}")),
            },
            Takes::Word(words) if words.contains(&v) => Ok(()),
            Takes::Word(words) => Err(format!("{name}: '{v}' is not one of {}", words.join(", "))),
        }
    }
}

/// One subcommand: its name, operands (as the synopsis writes them), what it does, its flags.
#[derive(Debug)]
pub struct Spec {
    pub name: &'static str,
    pub operands: &'static str,
    /// Operands needed at least, and allowed at most.
    pub arity: (usize, usize),
    pub about: &'static str,
    pub flags: &'static [Flag],
}

/// `text` wrapped to lines of at most `width` characters, each after `indent`.
pub fn wrap(text: &str, indent: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str(&format!("{indent}{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}{line}\n"));
    }
    out
}

impl Spec {
    /// `corvid <name> <operands> [--flag V] ...`, on one line.
    pub fn synopsis(&self) -> String {
        let mut line = format!("corvid {}", self.name);
        if !self.operands.is_empty() {
            line = format!("{line} {}", self.operands);
        }
        for flag in self.flags {
            match (flag.placeholder(), flag.required) {
                (Some(v), true) => line.push_str(&format!(" {} {v}", flag.name)),
                (Some(v), false) => line.push_str(&format!(" [{} {v}]", flag.name)),
                (None, _) => line.push_str(&format!(" [{}]", flag.name)),
            }
        }
        line
    }

    /// The usage error: `usage: <synopsis>`.
    pub fn usage(&self) -> String {
        format!("usage: {}", self.synopsis())
    }

    /// `corvid <name> --help`: the synopsis, what it does, and each flag.
    pub fn help(&self) -> String {
        let mut text = format!("{}\n\n{}", self.usage(), wrap(self.about, "", 96));
        if !self.flags.is_empty() {
            text.push('\n');
            for flag in self.flags {
                let name = match flag.placeholder() {
                    Some(v) => format!("{} {v}", flag.name),
                    None => flag.name.to_string(),
                };
                // A name too long for its column gets a line of its own.
                if name.len() > 22 {
                    text.push_str(&format!("  {name}\n  {:22} {}\n", "", flag.describe()));
                } else {
                    text.push_str(&format!("  {name:<22} {}\n", flag.describe()));
                }
            }
        }
        text
    }

    /// Splits `args` into operands and flags, checking every flag and its value against the
    /// spec. `Ok(None)`: `--help` or `-h` was given.
    pub fn parse(&'static self, args: &[String]) -> Result<Option<Parsed>, String> {
        let mut parsed = Parsed { spec: self, operands: Vec::new(), flags: Vec::new() };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            if arg == "--help" || arg == "-h" {
                return Ok(None);
            }
            if arg.starts_with("--") {
                let flag = self
                    .flags
                    .iter()
                    .find(|f| f.name == arg)
                    .ok_or_else(|| format!("unknown option '{arg}' ({})", self.usage()))?;
                let value = match flag.placeholder() {
                    Some(v) => {
                        let value = it.next().ok_or_else(|| format!("{} needs a value ({v})", flag.name))?;
                        flag.check(value)?;
                        Some(value.clone())
                    }
                    None => None,
                };
                parsed.flags.push((flag.name, value));
            } else {
                parsed.operands.push(arg.clone());
            }
        }
        let (least, most) = self.arity;
        let missing = self.flags.iter().any(|f| f.required && !parsed.switch(f.name));
        if parsed.operands.len() < least || parsed.operands.len() > most || missing {
            return Err(self.usage());
        }
        Ok(Some(parsed))
    }
}

/// A subcommand's arguments, checked against its [`Spec`].
#[derive(Debug)]
pub struct Parsed {
    spec: &'static Spec,
    pub operands: Vec<String>,
    /// In the order given: a later flag of the same name wins.
    flags: Vec<(&'static str, Option<String>)>,
}

impl Parsed {
    fn flag(&self, name: &str) -> &'static Flag {
        let spec: &'static Spec = self.spec;
        spec.flags.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name} is not a flag of {}", spec.name))
    }

    fn value(&self, name: &str) -> Option<&str> {
        self.flag(name);
        self.flags.iter().rev().find(|(n, _)| *n == name).and_then(|(_, v)| v.as_deref())
    }

    /// Whether the switch `name` was given.
    pub fn switch(&self, name: &str) -> bool {
        self.flags.iter().any(|(n, _)| *n == name)
    }

    /// Which of the switches in `names` came last, if any.
    pub fn last_of(&self, names: &[&'static str]) -> Option<&'static str> {
        self.flags.iter().rev().map(|(n, _)| *n).find(|n| names.contains(n))
    }

    /// The text value of `name`, if given.
    pub fn text(&self, name: &str) -> Option<String> {
        self.value(name).map(str::to_string)
    }

    /// The whole number of `name` (checked when parsed), or its default from the table.
    pub fn int<T: TryFrom<u64>>(&self, name: &str) -> T {
        match self.flag(name).default {
            Default::Int(n) => self.int_or(name, convert(name, n)),
            other => panic!("{name}: no number as its default in the table ({other:?})"),
        }
    }

    /// The whole number of `name` if given.
    pub fn int_given<T: TryFrom<u64>>(&self, name: &str) -> Option<T> {
        self.value(name).map(|v| convert(name, v.parse::<u64>().expect("checked when parsed")))
    }

    /// The whole number of `name`, or `default` (worked out by the caller, as the table says).
    pub fn int_or<T: TryFrom<u64>>(&self, name: &str, default: T) -> T {
        self.int_given(name).unwrap_or(default)
    }

    /// The number of `name` (checked when parsed), or its default from the table.
    pub fn float(&self, name: &str) -> f64 {
        match self.flag(name).default {
            Default::Float(x) => self.float_or(name, x),
            other => panic!("{name}: no number as its default in the table ({other:?})"),
        }
    }

    /// The number of `name`, or `default` (worked out by the caller, as the table says).
    pub fn float_or(&self, name: &str, default: f64) -> f64 {
        self.value(name).map_or(default, |v| v.parse().expect("checked when parsed"))
    }

    /// The word given for `name` (one of the table's), or the table's default.
    pub fn word(&self, name: &str) -> &'static str {
        let flag = self.flag(name);
        let Takes::Word(words) = flag.takes else { panic!("{name} takes no words") };
        match self.value(name) {
            Some(v) => words.iter().find(|w| **w == v).expect("checked when parsed"),
            None => match flag.default {
                Default::Word(w) => w,
                other => panic!("{name}: no word as its default in the table ({other:?})"),
            },
        }
    }

    /// The word given for `name`, if any.
    pub fn word_given(&self, name: &str) -> Option<&'static str> {
        self.value(name).is_some().then(|| self.word(name))
    }

    /// Operand `i` as a whole number in `min..=max` (`what` names it in the error).
    pub fn operand_int<T>(&self, i: usize, what: &str, min: T, max: T) -> Result<Option<T>, String>
    where
        T: FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        self.operands.get(i).map(|v| in_range(what, v, min, max)).transpose()
    }
}

/// A checked value as the caller's type: the table's ranges fit the types the subcommands
/// read them as (a test parses every maximum).
fn convert<T: TryFrom<u64>>(name: &str, n: u64) -> T {
    T::try_from(n).unwrap_or_else(|_| panic!("{name}: {n} does not fit the type it is read as"))
}

fn in_range<T>(name: &str, v: &str, min: T, max: T) -> Result<T, String>
where
    T: FromStr + PartialOrd + std::fmt::Display + Copy,
{
    match v.parse::<T>() {
        Ok(x) if x >= min && x <= max => Ok(x),
        _ => Err(format!("{name}: '{v}' is not a number from {min} to {max}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPEC: Spec = Spec {
        name: "demo",
        operands: "<file> [<more>]",
        arity: (1, 2),
        about: "A demonstration.",
        flags: &[
            int("--threads", "N", "threads", (1, 8), Default::Int(1)),
            float("--lr", "X", "rate", (0.0, 1.0), Default::Float(0.5)),
            int("--games", "N", "games", (1, u64::MAX), Default::Said("all")),
            word("--base", "what to add to", &["none", "hce"], Default::Word("none")),
            text("--out", "FILE", "where", Default::Nothing),
            switch("--nnue", "network"),
            switch("--hce", "hand-crafted"),
        ],
    };

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn synopsis_and_help_come_from_the_table() {
        assert_eq!(
            SPEC.synopsis(),
            "corvid demo <file> [<more>] [--threads N] [--lr X] [--games N] [--base none|hce] [--out FILE] [--nnue] [--hce]"
        );
        let help = SPEC.help();
        for line in [
            "  --threads N            threads (1-8; default 1)\n",
            "  --lr X                 rate (0-1; default 0.5)\n",
            "  --games N              games (1 or more; default all)\n",
            "  --base none|hce        what to add to (default none)\n",
            "  --out FILE             where\n",
            "  --nnue                 network\n",
        ] {
            assert!(help.contains(line), "{line:?} in {help}");
        }
        assert!(SPEC.parse(&args("x --help")).unwrap().is_none());
    }

    #[test]
    fn values_come_checked_with_the_tables_defaults() {
        let p = SPEC.parse(&args("f --threads 3 --hce --nnue --threads 4")).unwrap().unwrap();
        assert_eq!(p.operands, vec!["f"]);
        assert_eq!(p.int::<usize>("--threads"), 4, "the later value wins");
        assert_eq!(p.last_of(&["--nnue", "--hce"]), Some("--nnue"));
        assert_eq!(p.float("--lr"), 0.5);
        assert_eq!(p.word("--base"), "none");
        assert_eq!(p.word_given("--base"), None);
        assert_eq!(p.int_or::<u64>("--games", 7), 7);
        assert_eq!(p.text("--out"), None);
        let p = SPEC.parse(&args("f --games 18446744073709551615 --base hce --lr 1")).unwrap().unwrap();
        assert_eq!(p.int_or::<u64>("--games", 7), u64::MAX);
        assert_eq!(p.word("--base"), "hce");
        assert_eq!(p.float("--lr"), 1.0);
        for (bad, error) in [
            ("f --threads 9", "--threads: '9' is not a number from 1 to 8"),
            ("f --threads 0", "--threads: '0' is not a number from 1 to 8"),
            ("f --threads -1", "--threads: '-1' is not a number from 1 to 8"),
            ("f --games 0", "--games: '0' is not a whole number of 1 or more"),
            ("f --lr nan", "--lr: 'nan' is not a number from 0 to 1"),
            ("f --lr 1.5", "--lr: '1.5' is not a number from 0 to 1"),
            ("f --base psqt", "--base: 'psqt' is not one of none, hce"),
        ] {
            assert_eq!(SPEC.parse(&args(bad)).unwrap_err(), error, "{bad}");
        }
    }

    #[test]
    fn bad_arguments_name_what_is_wrong() {
        assert_eq!(SPEC.parse(&args("")).unwrap_err(), SPEC.usage());
        assert_eq!(SPEC.parse(&args("a b c")).unwrap_err(), SPEC.usage());
        assert!(SPEC.parse(&args("a --bogus")).unwrap_err().starts_with("unknown option '--bogus'"));
        assert_eq!(SPEC.parse(&args("a --threads")).unwrap_err(), "--threads needs a value (N)");
        assert_eq!(SPEC.parse(&args("a --base")).unwrap_err(), "--base needs a value (none|hce)");
    }
}
