//! UCI input, parsed once per line into a typed [`Command`].
//!
//! Parsing never fails: a line that is not a known command becomes [`Command::Unknown`], and
//! argument problems become [`Command::Invalid`] with a message, so the loop can report them.
//! Moves stay text here; they become `Move`s only by matching the legal moves of a position.

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// The parameters of `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub searchmoves: Vec<String>,
    pub ponder: bool,
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    /// Parameters that could not be read (an unknown word, a value that is not a number): each
    /// is reported and left out, and the search still runs, so the `go` gets its `bestmove`.
    pub problems: Vec<String>,
}

impl Go {
    /// Whether anything ends the search on its own (or `stop` is awaited explicitly).
    pub fn has_limit(&self) -> bool {
        self.infinite
            || self.ponder
            || self.wtime.is_some()
            || self.btime.is_some()
            || self.depth.is_some()
            || self.nodes.is_some()
            || self.mate.is_some()
            || self.movetime.is_some()
    }
}

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register,
    UciNewGame,
    /// `position startpos|fen <fen> [moves <m>...]`; moves are checked when applied.
    Position {
        start: Start,
        moves: Vec<String>,
    },
    Go(Go),
    /// `go perft <depth>`.
    GoPerft {
        depth: u32,
    },
    Stop,
    PonderHit,
    Quit,
    /// `d`: print the board.
    Display,
    /// `eval`: the static evaluation term by term.
    Eval,
    /// `bench [depth]`.
    Bench {
        depth: Option<u32>,
    },
    /// `genfens <count> seed <seed> book <None|file> [extra...]` (OpenBench's opening builder).
    Genfens {
        count: usize,
        seed: u64,
        book: Option<String>,
    },
    Help,
    /// A known command with bad arguments, with the reason.
    Invalid(String),
    /// A `position` that cannot be read, with the reason: the engine then has no position.
    BadPosition(String),
    /// Not a command this engine knows.
    Unknown(String),
    /// A blank line.
    Empty,
}

/// Parses one line of UCI input.
pub fn parse(line: &str) -> Command {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [] => Command::Empty,
        ["uci"] => Command::Uci,
        ["debug"] | ["debug", "on"] => Command::Debug(true),
        ["debug", "off"] => Command::Debug(false),
        ["debug", ..] => Command::Invalid("usage: debug [on|off]".into()),
        ["isready"] => Command::IsReady,
        ["setoption", rest @ ..] => parse_setoption(rest),
        ["register", ..] => Command::Register,
        ["ucinewgame"] => Command::UciNewGame,
        ["stop"] => Command::Stop,
        ["ponderhit"] => Command::PonderHit,
        ["quit"] => Command::Quit,
        ["d"] => Command::Display,
        ["eval"] => Command::Eval,
        ["help"] => Command::Help,
        ["bench"] => Command::Bench { depth: None },
        ["bench", depth] => match depth.parse::<u32>() {
            Ok(d) if (1..=64).contains(&d) => Command::Bench { depth: Some(d) },
            _ => Command::Invalid(format!("bench depth must be a number from 1 to 64, not '{depth}'")),
        },
        ["genfens", count, "seed", seed, "book", book, ..] => match (count.parse::<usize>(), seed.parse::<u64>()) {
            (Ok(count), Ok(seed)) if (1..=100_000).contains(&count) => {
                let book = (!book.eq_ignore_ascii_case("none")).then(|| book.to_string());
                Command::Genfens { count, seed, book }
            }
            (Ok(_), Ok(_)) | (Err(_), _) => {
                Command::Invalid(format!("genfens: the count '{count}' is not a number from 1 to 100000"))
            }
            (Ok(_), Err(_)) => Command::Invalid(format!("genfens: the seed '{seed}' is not a number from 0 to 2^64-1")),
        },
        ["genfens", ..] => Command::Invalid("usage: genfens <count> seed <seed> book <None|file> [extra]".into()),
        ["position", rest @ ..] => parse_position(rest),
        ["go", "perft", depth] => match depth.parse::<u32>() {
            Ok(depth) if depth <= 64 => Command::GoPerft { depth },
            _ => Command::Invalid(format!("perft depth must be a number from 0 to 64, not '{depth}'")),
        },
        ["go", "perft", ..] => Command::Invalid("usage: go perft <depth>".into()),
        ["go", rest @ ..] => parse_go(rest),
        _ => Command::Unknown(line.trim().to_string()),
    }
}

fn parse_setoption(words: &[&str]) -> Command {
    let ["name", rest @ ..] = words else {
        return Command::Invalid("usage: setoption name <name> [value <value>]".into());
    };
    let split = rest.iter().position(|&w| w == "value");
    let (name, value) = match split {
        Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
        None => (rest.join(" "), None),
    };
    if name.is_empty() {
        return Command::Invalid("setoption: missing option name".into());
    }
    Command::SetOption { name, value }
}

fn parse_position(words: &[&str]) -> Command {
    let (start, rest) = match words {
        ["startpos", rest @ ..] => (Start::StartPos, rest),
        ["fen", rest @ ..] => {
            let end = rest.iter().position(|&w| w == "moves").unwrap_or(rest.len());
            if end == 0 {
                return Command::BadPosition("position fen: missing FEN".into());
            }
            (Start::Fen(rest[..end].join(" ")), &rest[end..])
        }
        _ => return Command::BadPosition("usage: position startpos|fen <fen> [moves <move>...]".into()),
    };
    let moves = match rest {
        [] => Vec::new(),
        ["moves", moves @ ..] => moves.iter().map(|m| m.to_string()).collect(),
        _ => return Command::BadPosition(format!("position: expected 'moves', found '{}'", rest[0])),
    };
    Command::Position { start, moves }
}

const GO_KEYWORDS: [&str; 12] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

/// A non-negative number; negative values (a clock already overrun) read as 0, values too large
/// saturate, a fraction is cut to its whole part (`3.5` is 3).
fn number(keyword: &str, text: Option<&&str>) -> Result<u64, String> {
    let Some(text) = text.filter(|t| !GO_KEYWORDS.contains(t)) else {
        return Err(format!("go: '{keyword}' needs a number"));
    };
    if let Some(x) = text.parse::<f64>().ok().filter(|x| x.is_finite() && text.contains('.')) {
        return Ok(x.max(0.0).min(u64::MAX as f64) as u64);
    }
    if let Ok(n) = text.parse::<u64>() {
        return Ok(n);
    }
    match text.parse::<i128>() {
        Ok(n) if n < 0 => Ok(0),
        Ok(_) => Ok(u64::MAX),
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => Ok(u64::MAX),
        Err(_) => Err(format!("go: '{keyword}' needs a number, not '{text}'")),
    }
}

fn parse_go(words: &[&str]) -> Command {
    let mut go = Go::default();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        i += 1;
        // The value is taken unless it is the next keyword (`go depth movetime 100`).
        let num = |i: &mut usize| -> Result<u64, String> {
            let n = number(word, words.get(*i));
            if words.get(*i).is_some_and(|w| !GO_KEYWORDS.contains(w)) {
                *i += 1;
            }
            n
        };
        let small = |n: u64| n.min(u32::MAX as u64) as u32;
        let result = match word {
            "searchmoves" => {
                while i < words.len() && !GO_KEYWORDS.contains(&words[i]) {
                    go.searchmoves.push(words[i].to_string());
                    i += 1;
                }
                Ok(())
            }
            "ponder" => {
                go.ponder = true;
                Ok(())
            }
            "infinite" => {
                go.infinite = true;
                Ok(())
            }
            "wtime" => num(&mut i).map(|n| go.wtime = Some(n)),
            "btime" => num(&mut i).map(|n| go.btime = Some(n)),
            "winc" => num(&mut i).map(|n| go.winc = Some(n)),
            "binc" => num(&mut i).map(|n| go.binc = Some(n)),
            "movestogo" => num(&mut i).map(|n| go.movestogo = Some(small(n))),
            "depth" => num(&mut i).map(|n| go.depth = Some(small(n))),
            "nodes" => num(&mut i).map(|n| go.nodes = Some(n)),
            "mate" => num(&mut i).map(|n| go.mate = Some(small(n))),
            "movetime" => num(&mut i).map(|n| go.movetime = Some(n)),
            other => Err(format!("go: unknown parameter '{other}'")),
        };
        if let Err(why) = result {
            go.problems.push(why);
        }
    }
    Command::Go(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands() {
        assert_eq!(parse("  uci "), Command::Uci);
        assert_eq!(parse("go perft 5"), Command::GoPerft { depth: 5 });
        assert!(matches!(parse("go perft x"), Command::Invalid(_)));
        assert!(matches!(parse("go perft 99999999999"), Command::Invalid(_)));
        assert_eq!(
            parse("position startpos moves e2e4 e7e5"),
            Command::Position { start: Start::StartPos, moves: vec!["e2e4".into(), "e7e5".into()] }
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/8/8/K6k w - - 0 1"),
            Command::Position { start: Start::Fen("8/8/8/8/8/8/8/K6k w - - 0 1".into()), moves: vec![] }
        );
        assert!(matches!(parse("position fen moves e2e4"), Command::BadPosition(_)));
        assert!(matches!(parse("position"), Command::BadPosition(_)));
        assert!(matches!(parse("position startpos e2e4"), Command::BadPosition(_)));
        assert_eq!(parse("xyzzy 3"), Command::Unknown("xyzzy 3".into()));
        assert_eq!(parse(""), Command::Empty);
        assert_eq!(parse("debug off"), Command::Debug(false));
        assert_eq!(parse("bench 7"), Command::Bench { depth: Some(7) });
        assert_eq!(parse("genfens 8 seed 5 book None"), Command::Genfens { count: 8, seed: 5, book: None });
        assert_eq!(
            parse("genfens 2 seed 9 book Books/x.epd extra words"),
            Command::Genfens { count: 2, seed: 9, book: Some("Books/x.epd".into()) }
        );
        for bad in ["genfens", "genfens 8", "genfens 0 seed 1 book None", "genfens 8 seed x book None"] {
            assert!(matches!(parse(bad), Command::Invalid(_)), "{bad}");
        }
        assert!(matches!(parse("bench 0"), Command::Invalid(_)));
    }

    #[test]
    fn parses_go() {
        let Command::Go(go) = parse("go wtime 1000 btime -50 winc 10 binc 99999999999999999999999 movestogo 5") else {
            panic!()
        };
        assert_eq!(go.wtime, Some(1000));
        assert_eq!(go.btime, Some(0), "a negative clock reads as 0");
        assert_eq!(go.binc, Some(u64::MAX), "huge numbers saturate");
        assert_eq!(go.movestogo, Some(5));
        let Command::Go(go) = parse("go searchmoves e2e4 d2d4 depth 3 ponder") else { panic!() };
        assert_eq!(go.searchmoves, vec!["e2e4", "d2d4"]);
        assert_eq!(go.depth, Some(3));
        assert!(go.ponder);
        assert_eq!(parse("go"), Command::Go(Go::default()));
        // What cannot be read is reported and left out; the rest of the line still counts.
        let go = |line: &str| match parse(line) {
            Command::Go(go) => go,
            other => panic!("{line}: {other:?}"),
        };
        for bad in ["go depth", "go depth x", "go sideways", "go depth abc", "go foo"] {
            let g = go(bad);
            assert_eq!(g.problems.len(), 1, "{bad}");
            assert!(!g.has_limit(), "{bad}");
        }
        assert_eq!(go("go depth 3.5").depth, Some(3));
        assert!(go("go depth 3.5").problems.is_empty());
        let g = go("go depth movetime 100");
        assert_eq!((g.depth, g.movetime, g.problems.len()), (None, Some(100), 1));
        let g = go("go nodes 5x wtime 900");
        assert_eq!((g.nodes, g.wtime, g.problems.len()), (None, Some(900), 1));
    }

    #[test]
    fn parses_setoption() {
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Command::SetOption { name: "Move Overhead".into(), value: Some("30".into()) }
        );
        assert_eq!(parse("setoption name Clear Hash"), Command::SetOption { name: "Clear Hash".into(), value: None });
        assert!(matches!(parse("setoption Hash 5"), Command::Invalid(_)));
        assert!(matches!(parse("setoption name"), Command::Invalid(_)));
    }
}
