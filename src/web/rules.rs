//! The page's rules (issue 67): what a web page asks of Corvid's own position and move
//! generator about a game, in text (no second chess library in the page). A game is its start
//! (`startpos` or a FEN) and its moves in UCI; each function answers lines of `key value...`.
//! Compiled on every target, so that it is tested natively; `super` exports it to WebAssembly.

use crate::play::game::{Ending, Game, Outcome};
use crate::position::Position;
use crate::types::Color;

/// The game played from `start` with `moves` (UCI): the moves that are legal are kept, up to
/// the first that is not (an `error` line then says which).
fn replay(start: &str, moves: &str) -> (Game, Option<String>) {
    let start = start.trim();
    let position = if start.is_empty() || start == "startpos" {
        Ok(Position::startpos())
    } else {
        Position::from_fen(start).map_err(|e| format!("bad FEN '{start}': {e}"))
    };
    let mut game = match position {
        Ok(pos) => Game::new(pos),
        Err(why) => return (Game::new(Position::startpos()), Some(why)),
    };
    for text in moves.split_whitespace() {
        if game.ending.is_some() {
            return (game, Some(format!("{text}: the game is over")));
        }
        match game.position().parse_uci_move(text) {
            Ok(m) => game.play(m),
            Err(e) => return (game, Some(format!("{e}"))),
        }
    }
    (game, None)
}

/// Lines 1 and 2 of `input`: the start and the moves.
fn start_and_moves(input: &str) -> (&str, &str) {
    let mut lines = input.lines();
    (lines.next().unwrap_or(""), lines.next().unwrap_or(""))
}

/// The state of the game `input` (line 1 the start, line 2 the moves in UCI):
///
/// ```text
/// fen <FEN of the current position>
/// turn white|black
/// check 0|1
/// legal <every legal move in UCI>
/// legalsan <the same moves in SAN, in the same order>
/// san <each move played, in SAN>
/// numbers <the first move's number> <white|black: who played it>
/// ending none | ending <1-0|0-1|1/2-1/2> <reason: checkmate, stalemate, ...>
/// material <1 if White can still mate, else 0> <the same for Black>
/// error <why>      (only for a bad start or move: the game stops before it)
/// ```
pub fn describe(input: &str) -> String {
    let (start, moves) = start_and_moves(input);
    let (game, error) = replay(start, moves);
    let pos = game.position();
    let first = game.start();
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    line(format!("fen {}", pos.to_fen()));
    line(format!("turn {}", color(pos.side_to_move())));
    line(format!("check {}", u8::from(pos.in_check())));
    let moves = pos.legal_moves();
    let legal: Vec<String> = moves.iter().map(|m| m.to_uci(false).to_string()).collect();
    line(format!("legal {}", legal.join(" ")));
    let legal_san: Vec<String> = moves.iter().map(|&m| pos.to_san(m)).collect();
    line(format!("legalsan {}", legal_san.join(" ")));
    line(format!("san {}", game.sans().join(" ")));
    line(format!("numbers {} {}", first.fullmove_number(), color(first.side_to_move())));
    match &game.ending {
        Some(ending) => line(format!("ending {} {}", ending.outcome.pgn(), ending.reason)),
        None => line("ending none".to_string()),
    }
    let can = |c| u8::from(crate::play::game::can_mate(pos, c));
    line(format!("material {} {}", can(Color::White), can(Color::Black)));
    if let Some(why) = error {
        line(format!("error {why}"));
    }
    out
}

/// The game as PGN. `input`: line 1 the start, line 2 the moves in UCI, then White's name,
/// Black's name, the time control (PGN's `TimeControl`: `300+3`, `-`), the date
/// (`2026.11.29`), and how it ended if not by the rules: `<result> <reason>`, with
/// `time forfeit` as the reason of a lost clock (`0-1 time forfeit`, `1-0 Black resigns`), or
/// nothing.
pub fn pgn(input: &str) -> String {
    let mut lines = input.lines().skip(2);
    let (start, moves) = start_and_moves(input);
    let (mut game, _) = replay(start, moves);
    let mut field = || lines.next().unwrap_or("").trim().to_string();
    let (white, black, time_control, date, ending) = (field(), field(), field(), field(), field());
    if game.ending.is_none() {
        if let Some((result, reason)) = ending.split_once(' ') {
            let outcome = match result {
                "1-0" => Some(Outcome::WhiteWins),
                "0-1" => Some(Outcome::BlackWins),
                "1/2-1/2" => Some(Outcome::Draw),
                _ => None,
            };
            if let Some(outcome) = outcome {
                let on_time = reason == "time forfeit";
                game.ending = Some(Ending { outcome, reason: reason.to_string(), on_time });
            }
        }
    }
    let or = |text: String, default: &str| if text.is_empty() { default.to_string() } else { text };
    game.to_pgn(&or(white, "?"), &or(black, "?"), &or(time_control, "-"), &or(date, "????.??.??"))
}

/// A game read from a PGN text (its first game) or a FEN: `start <FEN>` and `moves <UCI...>`,
/// or `error <why>` (nothing half-read).
pub fn import(text: &str) -> String {
    match Game::from_text(text) {
        Ok(game) => {
            let moves: Vec<String> = game.moves().iter().map(|m| m.to_uci(false).to_string()).collect();
            format!("start {}\nmoves {}\n", game.start().to_fen(), moves.join(" "))
        }
        Err(why) => format!("error {why}\n"),
    }
}

fn color(c: Color) -> &'static str {
    if c == Color::White {
        "white"
    } else {
        "black"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field<'a>(report: &'a str, key: &str) -> &'a str {
        report
            .lines()
            .find_map(|l| {
                l.strip_prefix(key).and_then(|rest| rest.strip_prefix(' ').or((rest.is_empty()).then_some("")))
            })
            .unwrap_or_else(|| panic!("no {key} in {report}"))
    }

    #[test]
    fn a_game_is_described_from_its_moves() {
        let report = describe("startpos\ne2e4 e7e5 g1f3");
        assert_eq!(field(&report, "turn"), "black");
        assert_eq!(field(&report, "san"), "e4 e5 Nf3");
        assert_eq!(
            field(&report, "legal").split(' ').count(),
            Position::from_fen(field(&report, "fen")).unwrap().legal_moves().len()
        );
        assert_eq!(field(&report, "ending"), "none");
        assert_eq!(field(&report, "numbers"), "1 white");
        let (uci, san) = (field(&report, "legal"), field(&report, "legalsan"));
        assert_eq!(uci.split(' ').count(), san.split(' ').count());
        let knight = uci.split(' ').position(|m| m == "b8c6").unwrap();
        assert_eq!(san.split(' ').nth(knight), Some("Nc6"));
        assert!(!report.contains("error"));
    }

    #[test]
    fn the_endings_are_the_rules() {
        // Fool's mate.
        let report = describe("startpos\nf2f3 e7e5 g2g4 d8h4");
        assert_eq!(field(&report, "ending"), "0-1 checkmate");
        assert_eq!(field(&report, "check"), "1");
        assert_eq!(field(&report, "legal"), "");
        let report = describe("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\n");
        assert_eq!(field(&report, "ending"), "1/2-1/2 stalemate");
        let report = describe("startpos\ng1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        assert_eq!(field(&report, "ending"), "1/2-1/2 threefold repetition");
        let report = describe("8/8/4k3/8/8/3NK3/8/8 w - - 0 1\n");
        assert_eq!(field(&report, "ending"), "1/2-1/2 insufficient material");
        assert_eq!(field(&report, "material"), "0 0");
        // A move after the end is refused.
        let report = describe("startpos\nf2f3 e7e5 g2g4 d8h4 e1f2");
        assert!(field(&report, "error").contains("over"), "{report}");
    }

    #[test]
    fn bad_input_keeps_what_is_legal_and_says_why() {
        let report = describe("startpos\ne2e4 e7e5 e1e3 d2d4");
        assert_eq!(field(&report, "san"), "e4 e5");
        assert!(report.contains("error"), "{report}");
        let report = describe("rnbqkbnr/pppppppp/8 w KQkq - 0 1\ne2e4");
        assert!(field(&report, "error").starts_with("bad FEN"), "{report}");
        assert_eq!(field(&report, "san"), "", "nothing played from a bad start");
        assert!(import("1. e4 e5 2. Ke3").starts_with("error "));
        assert!(import("").starts_with("error "));
        assert!(import("not a fen at all").starts_with("error "));
    }

    #[test]
    fn pgn_out_and_back_in_is_the_same_game() {
        let moves = "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6 f1e2 e7e5 e1g1";
        let text =
            pgn(&format!("startpos\n{moves}\nPerson\nCorvid (level 1500)\n300+3\n2026.11.29\n0-1 White resigns"));
        assert!(text.contains("[White \"Person\"]") && text.contains("[Result \"0-1\"]"), "{text}");
        assert!(text.contains("7. O-O"), "{text}");
        let back = import(&text);
        assert_eq!(field(&back, "moves"), moves);
        assert_eq!(field(&back, "start"), Position::startpos().to_fen());
        // From a set-up position, with a clock lost.
        let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
        let text = pgn(&format!("{fen}\ne2e4 e8d7\nA\nB\n60+0\n2026.11.29\n1-0 time forfeit"));
        assert!(text.contains("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]"), "{text}");
        assert!(text.contains("time forfeit"), "{text}");
        let back = import(&text);
        assert_eq!(field(&back, "start"), fen);
        assert_eq!(field(&back, "moves"), "e2e4 e8d7");
        // A FEN alone is a game without moves.
        assert_eq!(field(&import(fen), "moves"), "");
    }
}
