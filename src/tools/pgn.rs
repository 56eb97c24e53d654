//! Reading the PGN that match runners write (fastchess, cutechess-cli, OpenBench's workers) into
//! training games: each move's evaluation comment (`{+0.35/12 0.123s}`, `{-M5/20 ...}`: the
//! mover's score in pawns, or a mate distance) becomes the score of the position it was played
//! in, from White's view.
//!
//! Moves before the first evaluation (book moves) move the start position forward; a move after
//! it without one ends what is kept of the game. Variations, NAGs and other comments are
//! skipped; games without a result (`*`) are skipped. A move that is not legal where it stands
//! is an error naming the game and the move.

use super::game::{Game, Wdl};
use crate::position::Position;
use crate::tt::MATE;

/// One game of a PGN file, as written: its tags, its moves with their comments, its result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<(String, Option<String>)>,
    pub result: String,
}

impl PgnGame {
    /// The value of tag `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Splits a PGN text into games.
pub fn read_games(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    let mut in_movetext = false;
    let mut chars = text.chars().peekable();
    let finish = |game: &mut PgnGame, games: &mut Vec<PgnGame>| {
        if !game.moves.is_empty() || !game.tags.is_empty() {
            games.push(std::mem::take(game));
        }
    };
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '[' => {
                if in_movetext {
                    finish(&mut game, &mut games);
                    in_movetext = false;
                }
                chars.next();
                let tag: String = chars.by_ref().take_while(|&c| c != ']').collect();
                if let Some((name, value)) = tag.trim().split_once(char::is_whitespace) {
                    let value = value.trim().trim_matches('"').to_string();
                    game.tags.push((name.to_string(), value));
                }
            }
            '{' => {
                chars.next();
                let comment: String = chars.by_ref().take_while(|&c| c != '}').collect();
                if let Some(last) = game.moves.last_mut() {
                    last.1.get_or_insert(comment);
                }
            }
            ';' => {
                chars.by_ref().take_while(|&c| c != '\n').for_each(drop);
            }
            '(' => {
                let mut depth = 0;
                for c in chars.by_ref() {
                    match c {
                        '(' => depth += 1,
                        ')' if depth == 1 => break,
                        ')' => depth -= 1,
                        _ => {}
                    }
                }
            }
            // A closing bracket with nothing open (a stray `)`, `}` or `]`): skipped, so the
            // reader always moves on.
            ')' | '}' | ']' => {
                chars.next();
            }
            _ => {
                let mut token = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || "{}[]();".contains(c) {
                        break;
                    }
                    token.push(c);
                    chars.next();
                }
                in_movetext = true;
                match token.as_str() {
                    "1-0" | "0-1" | "1/2-1/2" | "*" => {
                        game.result = token;
                        finish(&mut game, &mut games);
                        in_movetext = false;
                    }
                    t if t.starts_with('$') => {}
                    t => {
                        // Move numbers ("12.", "12...") stand apart or stuck to the move.
                        let san = t.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
                        if !san.is_empty() {
                            game.moves.push((san.to_string(), None));
                        }
                    }
                }
            }
        }
    }
    finish(&mut game, &mut games);
    games
}

/// The mover's score in a runner's comment: `+0.35/12 0.123s` is 35 cp, `-M5/20` mated in 5.
pub fn comment_score(comment: &str) -> Option<i32> {
    let first = comment.split(['/', ' ', ',']).next()?.trim();
    let (sign, body) = match first.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, first.strip_prefix('+').unwrap_or(first)),
    };
    if let Some(moves) = body.strip_prefix('M') {
        // Mate in n moves is 2n - 1 plies away; being mated in n, 2n.
        let moves: i32 = moves.parse().ok()?;
        return Some(if sign > 0 { MATE - (2 * moves - 1).max(0) } else { -(MATE - 2 * moves) });
    }
    let pawns: f64 = body.parse().ok()?;
    pawns.is_finite().then(|| sign * (pawns * 100.0).round().clamp(-30_000.0, 30_000.0) as i32)
}

/// The training game of a PGN game: `Ok(None)` for a game without a result or without
/// evaluated moves.
pub fn to_game(pgn: &PgnGame) -> Result<Option<Game>, String> {
    let wdl = match pgn.result.as_str() {
        "1-0" => Wdl::WhiteWin,
        "0-1" => Wdl::BlackWin,
        "1/2-1/2" => Wdl::Draw,
        _ => return Ok(None),
    };
    let mut pos = match pgn.tag("FEN") {
        Some(fen) => Position::from_fen(fen).map_err(|e| format!("FEN tag '{fen}': {e}"))?,
        None => Position::startpos(),
    };
    if pgn.tag("Variant").is_some_and(|v| v.to_ascii_lowercase().contains("960") || v.contains("fischer")) {
        pos.set_chess960(true);
    }
    let mut game: Option<Game> = None;
    for (n, (san, comment)) in pgn.moves.iter().enumerate() {
        let m = pos.parse_san(san).map_err(|e| format!("move {} ({san}): {e}", n + 1))?;
        match (comment.as_deref().and_then(comment_score), game.as_mut()) {
            (Some(score), game_so_far) => {
                let white = if pos.side_to_move() == crate::types::Color::White { score } else { -score };
                let entry = (m, white.clamp(-32_000, 32_000) as i16);
                match game_so_far {
                    Some(g) => g.moves.push(entry),
                    None => game = Some(Game { start: pos, wdl, moves: vec![entry] }),
                }
            }
            // A move without a score after the scored ones: keep what came before.
            (None, Some(_)) => break,
            // A book move: the start moves on.
            (None, None) => {}
        }
        pos = pos.make_move(m);
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stray_closing_brackets_are_skipped() {
        // Each of these once stopped the reader on a character it never consumed: a hang.
        for text in ["1. e4 ) e5 *\n", "1. e4 } e5 *\n", "1. e4 ] e5 *\n", ")}]", "1. e4 e5 )"] {
            let games = read_games(text);
            assert!(games.len() <= 1, "{text:?}");
            if let Some(game) = games.first() {
                let sans: Vec<&str> = game.moves.iter().map(|(s, _)| s.as_str()).collect();
                assert_eq!(sans, ["e4", "e5"], "{text:?}");
            }
        }
    }

    const PGN: &str = r#"[Event "fastchess"]
[White "dev"]
[Black "base"]
[Result "0-1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.31/14 0.212s} Nc6 {-0.25/13 0.2s, extra}
3. Bb5 {+0.40/15 0.3s} ( 3. Bc4 Bc5 ) a6 $1 {-0.30/12} 4. Ba4 {+0.35/16}
Nf6 {-M3/20 0.1s} 0-1

[Event "second"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
[SetUp "1"]
[Result "*"]

1. e4 {+5.00/1} *

[Result "1/2-1/2"]
1.d4 {+0.1/1} d5 {0.00/1} 2.c4 {book} 1/2-1/2
"#;

    #[test]
    fn games_tags_moves_and_comments_are_read() {
        let games = read_games(PGN);
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].tag("White"), Some("dev"));
        assert_eq!(games[0].result, "0-1");
        let sans: Vec<&str> = games[0].moves.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"], "the variation and NAG are skipped");
        assert_eq!(games[0].moves[3].1.as_deref(), Some("-0.25/13 0.2s, extra"));
        assert_eq!(games[1].result, "*");
        assert_eq!(games[2].moves.len(), 3, "move numbers stuck to moves are read");
    }

    #[test]
    fn comments_give_the_movers_score() {
        assert_eq!(comment_score("+0.31/14 0.212s"), Some(31));
        assert_eq!(comment_score("-1.50/3"), Some(-150));
        assert_eq!(comment_score("0.00/1"), Some(0));
        assert_eq!(comment_score("-M3/20 0.1s"), Some(-(MATE - 6)));
        assert_eq!(comment_score("+M1/1"), Some(MATE - 1));
        assert_eq!(comment_score("book"), None);
        assert_eq!(comment_score(""), None);
    }

    #[test]
    fn pgn_games_become_training_games_from_the_first_score() {
        let games = read_games(PGN);
        let game = to_game(&games[0]).unwrap().unwrap();
        // Two book moves move the start; six scored moves follow, scores from White's view.
        assert_eq!(game.start.to_fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
        assert_eq!(game.wdl, Wdl::BlackWin);
        let scores: Vec<i16> = game.moves.iter().map(|&(_, s)| s).collect();
        assert_eq!(scores, [31, 25, 40, 30, 35, (MATE - 6) as i16]);
        assert_eq!(to_game(&games[1]).unwrap(), None, "no result, no game");
        // The third ends at the unscored book move after the scored ones.
        assert_eq!(to_game(&games[2]).unwrap().unwrap().moves.len(), 2);
        let bad = read_games("[Result \"1-0\"]\n1. e4 {+0.1/1} e4 {+0.1/1} 1-0\n");
        assert!(to_game(&bad[0]).unwrap_err().contains("move 2 (e4)"));
    }
}
