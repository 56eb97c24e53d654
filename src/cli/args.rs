//! The command line's one parser: each subcommand is a [`Spec`] (its operands and flags, each
//! with a line of help), from which come the parsing, `corvid <subcommand> --help`, the usage
//! line of every error and the command list of `corvid help`. A flag's value is checked against
//! its range here, so a nonsense value is refused with a message naming the flag.

use std::str::FromStr;

/// One flag: `--name`, with a value placeholder (`N`, `MB`, `FILE`) or none (a switch).
#[derive(Debug)]
pub struct Flag {
    pub name: &'static str,
    pub value: Option<&'static str>,
    pub help: &'static str,
    /// The subcommand cannot run without it.
    pub required: bool,
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

/// A switch (a flag without a value).
pub const fn switch(name: &'static str, help: &'static str) -> Flag {
    Flag { name, value: None, help, required: false }
}

/// A flag that takes a value.
pub const fn valued(name: &'static str, value: &'static str, help: &'static str) -> Flag {
    Flag { name, value: Some(value), help, required: false }
}

/// A flag that takes a value and must be given.
pub const fn required(name: &'static str, value: &'static str, help: &'static str) -> Flag {
    Flag { name, value: Some(value), help, required: true }
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
            match (flag.value, flag.required) {
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
                let name = match flag.value {
                    Some(v) => format!("{} {v}", flag.name),
                    None => flag.name.to_string(),
                };
                text.push_str(&format!("  {name:<22} {}\n", flag.help));
            }
        }
        text
    }

    /// Splits `args` into operands and flags, checking every flag against the spec. `Ok(None)`:
    /// `--help` or `-h` was given.
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
                let value = match flag.value {
                    Some(v) => Some(it.next().cloned().ok_or_else(|| format!("{} needs a value ({v})", flag.name))?),
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
    fn value(&self, name: &str) -> Option<&str> {
        debug_assert!(self.spec.flags.iter().any(|f| f.name == name), "{name} is not a flag of {}", self.spec.name);
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

    /// The whole number of `name` in `min..=max`, or `default` when it is not given.
    pub fn int<T>(&self, name: &str, default: T, min: T, max: T) -> Result<T, String>
    where
        T: FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        match self.value(name) {
            None => Ok(default),
            Some(v) => in_range(name, v, min, max),
        }
    }

    /// The number of `name` in `min..=max`, or `default` when it is not given.
    pub fn float(&self, name: &str, default: f64, min: f64, max: f64) -> Result<f64, String> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() && (min..=max).contains(&x) => Ok(x),
                _ => Err(format!("{name}: '{v}' is not a number from {min} to {max}")),
            },
        }
    }

    /// Operand `i` as a whole number in `min..=max` (`what` names it in the error).
    pub fn operand_int<T>(&self, i: usize, what: &str, min: T, max: T) -> Result<Option<T>, String>
    where
        T: FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        self.operands.get(i).map(|v| in_range(what, v, min, max)).transpose()
    }
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
            valued("--threads", "N", "threads"),
            valued("--lr", "X", "rate"),
            switch("--nnue", "network"),
            switch("--hce", "hand-crafted"),
        ],
    };

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn synopsis_and_help_come_from_the_spec() {
        assert_eq!(SPEC.synopsis(), "corvid demo <file> [<more>] [--threads N] [--lr X] [--nnue] [--hce]");
        assert!(SPEC.help().contains("  --threads N            threads\n"), "{}", SPEC.help());
        assert!(SPEC.parse(&args("x --help")).unwrap().is_none());
    }

    #[test]
    fn flags_values_and_ranges() {
        let p = SPEC.parse(&args("f --threads 3 --hce --nnue --threads 4")).unwrap().unwrap();
        assert_eq!(p.operands, vec!["f"]);
        assert_eq!(p.int("--threads", 1usize, 1, 8), Ok(4), "the later value wins");
        assert_eq!(p.last_of(&["--nnue", "--hce"]), Some("--nnue"));
        assert_eq!(p.float("--lr", 0.5, 0.0, 1.0), Ok(0.5));
        assert_eq!(p.int("--threads", 1usize, 1, 3), Err("--threads: '4' is not a number from 1 to 3".into()));
        let p = SPEC.parse(&args("f --lr nan")).unwrap().unwrap();
        assert!(p.float("--lr", 0.5, 0.0, 1.0).is_err());
    }

    #[test]
    fn bad_arguments_name_what_is_wrong() {
        assert_eq!(SPEC.parse(&args("")).unwrap_err(), SPEC.usage());
        assert_eq!(SPEC.parse(&args("a b c")).unwrap_err(), SPEC.usage());
        assert!(SPEC.parse(&args("a --bogus")).unwrap_err().starts_with("unknown option '--bogus'"));
        assert_eq!(SPEC.parse(&args("a --threads")).unwrap_err(), "--threads needs a value (N)");
    }
}
