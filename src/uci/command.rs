//! UCI input, parsed once per line into a typed [`Command`].
//!
//! Parsing never fails: a line that is not a known command becomes [`Command::Unknown`], and
//! argument problems become [`Command::Invalid`] with a message, so the loop can report them.

/// Where a `position` command starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    /// `position startpos|fen <fen> [moves <m>...]`; moves are checked when applied.
    Position {
        start: Start,
        moves: Vec<String>,
    },
    /// `go perft <depth>`.
    GoPerft {
        depth: u32,
    },
    /// `d`: print the board.
    Display,
    Help,
    Quit,
    /// A known command with bad arguments, with the reason.
    Invalid(String),
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
        ["isready"] => Command::IsReady,
        ["ucinewgame"] => Command::UciNewGame,
        ["quit"] => Command::Quit,
        ["d"] => Command::Display,
        ["help"] => Command::Help,
        ["position", rest @ ..] => parse_position(rest),
        ["go", "perft", depth] => match depth.parse::<u32>() {
            Ok(depth) if depth <= 64 => Command::GoPerft { depth },
            _ => Command::Invalid(format!("perft depth must be a number from 0 to 64, not '{depth}'")),
        },
        ["go", "perft", ..] => Command::Invalid("usage: go perft <depth>".into()),
        _ => Command::Unknown(line.trim().to_string()),
    }
}

fn parse_position(words: &[&str]) -> Command {
    let (start, rest) = match words {
        ["startpos", rest @ ..] => (Start::StartPos, rest),
        ["fen", rest @ ..] => {
            let end = rest.iter().position(|&w| w == "moves").unwrap_or(rest.len());
            if end == 0 {
                return Command::Invalid("position fen: missing FEN".into());
            }
            (Start::Fen(rest[..end].join(" ")), &rest[end..])
        }
        _ => return Command::Invalid("usage: position startpos|fen <fen> [moves <move>...]".into()),
    };
    let moves = match rest {
        [] => Vec::new(),
        ["moves", moves @ ..] => moves.iter().map(|m| m.to_string()).collect(),
        _ => return Command::Invalid(format!("position: expected 'moves', found '{}'", rest[0])),
    };
    Command::Position { start, moves }
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
        assert!(matches!(parse("position fen moves e2e4"), Command::Invalid(_)));
        assert!(matches!(parse("position"), Command::Invalid(_)));
        assert!(matches!(parse("position startpos e2e4"), Command::Invalid(_)));
        assert_eq!(parse("xyzzy 3"), Command::Unknown("xyzzy 3".into()));
        assert_eq!(parse(""), Command::Empty);
    }
}
