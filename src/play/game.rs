//! One game as `corvid play` keeps it: the start, the moves, the moves taken back (for `redo`),
//! how it ended, and its PGN (written and read).

use crate::position::Position;
use crate::tools::pgn;
use crate::types::{Color, Move, PieceType};

/// A game's result, as PGN writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
}

impl Outcome {
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// A win for `color`.
    pub fn win_for(color: Color) -> Outcome {
        if color == Color::White {
            Outcome::WhiteWins
        } else {
            Outcome::BlackWins
        }
    }
}

/// How a game ended: its result and the reason, in words (`checkmate`, `threefold repetition`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    pub outcome: Outcome,
    pub reason: String,
    /// Lost on time (PGN's `Termination "time forfeit"`).
    pub on_time: bool,
}

impl Ending {
    fn new(outcome: Outcome, reason: &str) -> Ending {
        Ending { outcome, reason: reason.to_string(), on_time: false }
    }
}

/// The game: the start position, the moves played, those taken back, the ending if any.
#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[0]` is the start, `positions[i + 1]` the position after `moves[i]`.
    positions: Vec<Position>,
    moves: Vec<Move>,
    /// Moves taken back with `undo`, the next one to redo last.
    redo: Vec<Move>,
    /// Set by the rules, by a resignation, an agreed draw or a clock.
    pub ending: Option<Ending>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        let mut game = Game { positions: vec![start], moves: Vec::new(), redo: Vec::new(), ending: None };
        game.ending = game.rules_ending();
        game
    }

    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game has a start")
    }

    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keys of the positions before the current one, oldest first (the search's repetitions).
    pub fn history_keys(&self) -> Vec<u64> {
        self.positions[..self.positions.len() - 1].iter().map(Position::key).collect()
    }

    /// The last move played, if any.
    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().copied()
    }

    /// Plays `m` (legal in the current position) and sees whether the rules end the game; the
    /// moves taken back can no longer be redone.
    pub fn play(&mut self, m: Move) {
        self.push(m);
        self.redo.clear();
    }

    fn push(&mut self, m: Move) {
        let next = self.position().make_move(m);
        self.positions.push(next);
        self.moves.push(m);
        self.ending = self.rules_ending();
    }

    /// Takes back the last move; false if there is none. Whatever ended the game is forgotten.
    pub fn undo(&mut self) -> bool {
        match self.moves.pop() {
            Some(m) => {
                self.positions.pop();
                self.redo.push(m);
                self.ending = self.rules_ending();
                true
            }
            None => false,
        }
    }

    /// Plays again the last move taken back; false if there is none.
    pub fn redo(&mut self) -> bool {
        match self.redo.pop() {
            Some(m) => {
                self.push(m);
                true
            }
            None => false,
        }
    }

    /// How the rules end the game in the current position, if they do: checkmate, stalemate,
    /// the fifty-move rule, threefold repetition, insufficient material.
    pub fn rules_ending(&self) -> Option<Ending> {
        let pos = self.position();
        if !pos.has_legal_move() {
            return Some(if pos.in_check() {
                Ending::new(Outcome::win_for(!pos.side_to_move()), "checkmate")
            } else {
                Ending::new(Outcome::Draw, "stalemate")
            });
        }
        if pos.halfmove_clock() >= 100 {
            return Some(Ending::new(Outcome::Draw, "fifty-move rule"));
        }
        let key = pos.key();
        // Positions that can repeat this one lie within the halfmove clock.
        let back = (pos.halfmove_clock() as usize).min(self.positions.len() - 1);
        let seen = self.positions[self.positions.len() - 1 - back..].iter().filter(|p| p.key() == key).count();
        if seen >= 3 {
            return Some(Ending::new(Outcome::Draw, "threefold repetition"));
        }
        if !can_mate(pos, Color::White) && !can_mate(pos, Color::Black) {
            return Some(Ending::new(Outcome::Draw, "insufficient material"));
        }
        None
    }

    /// The moves in SAN, without numbers: `e4 e5 Nf3`.
    pub fn sans(&self) -> Vec<String> {
        self.moves.iter().zip(&self.positions).map(|(&m, pos)| pos.to_san(m)).collect()
    }

    /// The moves in SAN with move numbers: `1. e4 e5 2. Nf3`.
    pub fn san_moves(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        for (i, &m) in self.moves.iter().enumerate() {
            let pos = &self.positions[i];
            let number = pos.fullmove_number();
            if pos.side_to_move() == Color::White {
                out.push(format!("{number}. {}", pos.to_san(m)));
            } else if i == 0 {
                out.push(format!("{number}... {}", pos.to_san(m)));
            } else {
                out.push(pos.to_san(m));
            }
        }
        out
    }

    /// The game as PGN with the seven standard tags (and `SetUp`/`FEN` from another start),
    /// the time control and how it ended.
    pub fn to_pgn(&self, white: &str, black: &str, time_control: &str, date: &str) -> String {
        let result = self.ending.as_ref().map_or("*", |e| e.outcome.pgn());
        let mut text = String::new();
        let mut tag = |name: &str, value: &str| {
            let value = value.replace('\\', "\\\\").replace('"', "\\\"");
            text.push_str(&format!("[{name} \"{value}\"]\n"));
        };
        tag("Event", "Corvid game");
        tag("Site", "?");
        tag("Date", date);
        tag("Round", "-");
        tag("White", white);
        tag("Black", black);
        tag("Result", result);
        if self.start().to_fen() != Position::startpos().to_fen() {
            tag("SetUp", "1");
            tag("FEN", &self.start().to_fen());
        }
        tag("TimeControl", time_control);
        let termination = match &self.ending {
            None => "unterminated",
            Some(e) if e.on_time => "time forfeit",
            Some(_) => "normal",
        };
        tag("Termination", termination);
        text.push('\n');
        let mut words = self.san_moves();
        if let Some(e) = &self.ending {
            words.push(format!("{{{}}}", e.reason));
        }
        words.push(result.to_string());
        let mut line = String::new();
        for word in words {
            if !line.is_empty() && line.len() + 1 + word.len() > 79 {
                text.push_str(&line);
                text.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        text.push_str(&line);
        text.push('\n');
        text
    }

    /// The first game of a PGN text, or a game from the position of a FEN: the whole text is
    /// read before anything is kept, so an error leaves nothing half-loaded.
    pub fn from_text(text: &str) -> Result<Game, String> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err("empty: neither PGN nor FEN".into());
        }
        if !trimmed.contains(['[', '.']) || Position::from_fen(trimmed).is_ok() {
            return Position::from_fen(trimmed).map(Game::new).map_err(|e| format!("bad FEN: {e}"));
        }
        let games = pgn::read_games(trimmed);
        let first = games.first().ok_or("no PGN game in it")?;
        let start = match first.tag("FEN") {
            Some(fen) => Position::from_fen(fen).map_err(|e| format!("bad FEN tag: {e}"))?,
            None => Position::startpos(),
        };
        let mut game = Game::new(start);
        for (san, _) in &first.moves {
            let pos = game.position();
            let dots = if pos.side_to_move() == Color::White { "." } else { "..." };
            let named = format!("{}{dots} {san}", pos.fullmove_number());
            if game.rules_ending().is_some() {
                return Err(format!("{named} comes after the game has ended"));
            }
            let m = pos.parse_san(san).map_err(|e| format!("{named}: {e}"))?;
            game.play(m);
        }
        if game.moves.is_empty() && first.tags.is_empty() {
            return Err("no PGN game in it".into());
        }
        Ok(game)
    }
}

/// Whether `color` has the material to mate by some sequence of legal moves (FIDE's test for a
/// draw when the other side's flag falls, and for a dead position): not with a lone king, a
/// lone minor piece, or bishops all on squares of one colour against bishops on that colour.
pub fn can_mate(pos: &Position, color: Color) -> bool {
    use PieceType::*;
    let mine = |pt| pos.colored_pieces(color, pt);
    if !(mine(Pawn) | mine(Rook) | mine(Queen)).is_empty() {
        return true;
    }
    let (knights, bishops) = (mine(Knight), mine(Bishop));
    let theirs = pos.colored(!color) & !pos.pieces(King);
    match (knights.count(), bishops.count()) {
        (0, 0) => false,
        // A lone minor piece mates only a king boxed in by its own pieces.
        (1, 0) => !theirs.is_empty(),
        (0, _) => {
            // Bishops on one colour of squares mate only a king boxed in by its own pieces,
            // which needs a piece of the other side that is not a same-coloured bishop, or a
            // knight.
            const LIGHT: u64 = 0x55AA_55AA_55AA_55AA;
            let all_bishops = pos.pieces(Bishop).0;
            let one_colour = all_bishops & LIGHT == 0 || all_bishops & !LIGHT == 0;
            let others = theirs & !pos.pieces(Bishop);
            !one_colour || !others.is_empty()
        }
        _ => true,
    }
}

/// Today's date as PGN writes it (`2026.11.24`), from the system clock (UTC).
pub fn today() -> String {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// The Gregorian date `days` after 1970-01-01 (the proleptic calendar's arithmetic on eras of
/// 400 years).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(moves: &str) -> Game {
        let mut g = Game::new(Position::startpos());
        for san in moves.split_whitespace() {
            let m = g.position().parse_san(san).unwrap_or_else(|e| panic!("{san}: {e}"));
            g.play(m);
        }
        g
    }

    #[test]
    fn every_ending_of_the_rules() {
        let fools = game("f3 e5 g4 Qh4");
        assert_eq!(fools.ending, Some(Ending::new(Outcome::BlackWins, "checkmate")));
        let stalemate = Game::new(Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap());
        assert_eq!(stalemate.ending, Some(Ending::new(Outcome::Draw, "stalemate")));
        let threefold = game("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8");
        assert_eq!(threefold.ending, Some(Ending::new(Outcome::Draw, "threefold repetition")));
        assert!(game("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1").ending.is_none(), "twice is not yet a draw");
        let fifty = Game::new(Position::from_fen("8/8/4k3/8/8/3K4/4P3/8 w - - 100 80").unwrap());
        assert_eq!(fifty.ending, Some(Ending::new(Outcome::Draw, "fifty-move rule")));
        // Mate on the hundredth half-move is mate.
        let mate = Game::new(Position::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80").unwrap());
        assert_eq!(mate.ending.unwrap().reason, "checkmate");
        for (fen, dead) in [
            ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", true),
            ("8/8/4k3/8/8/3KN3/8/8 w - - 0 1", true),
            ("8/8/4k1b1/8/8/3KB3/8/8 w - - 0 1", false), // bishops on squares of both colours
            ("8/8/4kb2/8/8/3KB3/8/8 w - - 0 1", true),   // both on dark squares
            ("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1", false),
            ("8/8/4k3/8/8/3K4/4P3/8 w - - 0 1", false),
            ("8/8/4kn2/8/8/3KN3/8/8 w - - 0 1", false), // a knight can mate a king boxed in by its own knight
        ] {
            let g = Game::new(Position::from_fen(fen).unwrap());
            assert_eq!(g.ending.as_ref().is_some_and(|e| e.reason == "insufficient material"), dead, "{fen}");
        }
    }

    #[test]
    fn undo_redo_and_a_new_move_forgets_the_redo() {
        let mut g = game("e4 e5 Nf3");
        assert!(g.undo() && g.undo());
        assert_eq!(g.san_moves(), ["1. e4"]);
        assert!(g.redo());
        assert_eq!(g.san_moves(), ["1. e4", "e5"]);
        let m = g.position().parse_san("Nc3").unwrap();
        g.play(m);
        assert!(!g.redo(), "a new move ends what could be redone");
        let mut mated = game("f3 e5 g4 Qh4");
        assert!(mated.undo());
        assert!(mated.ending.is_none(), "taking back the mate reopens the game");
        assert!(mated.redo());
        assert_eq!(mated.ending.unwrap().outcome, Outcome::BlackWins);
        let mut empty = Game::new(Position::startpos());
        assert!(!empty.undo() && !empty.redo());
    }

    #[test]
    fn pgn_round_trip() {
        let mut g = game("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7");
        let text = g.to_pgn("You", "Corvid", "600+5", "2026.11.24");
        assert!(text.starts_with("[Event \"Corvid game\"]\n[Site \"?\"]\n[Date \"2026.11.24\"]\n[Round \"-\"]\n"));
        assert!(text.contains("[White \"You\"]\n[Black \"Corvid\"]\n[Result \"*\"]\n[TimeControl \"600+5\"]"));
        assert!(text.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6") && text.trim_end().ends_with('*'));
        assert!(text.lines().all(|l| l.len() <= 80));
        let back = Game::from_text(&text).unwrap();
        assert_eq!(back.moves(), g.moves());
        g.ending = Some(Ending { outcome: Outcome::WhiteWins, reason: "Black resigns".into(), on_time: false });
        let text = g.to_pgn("You", "Corvid", "600+5", "2026.11.24");
        assert!(text.contains("[Result \"1-0\"]") && text.contains("{Black resigns} 1-0"));
        // Another start: SetUp and FEN, and a first move by Black numbered "1...".
        let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1";
        let mut g = Game::new(Position::from_fen(fen).unwrap());
        let m = g.position().parse_san("Kd7").unwrap();
        g.play(m);
        let text = g.to_pgn("Corvid", "You", "-", "2026.11.24");
        assert!(text.contains(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]")) && text.contains("1... Kd7 *"), "{text}");
        assert_eq!(Game::from_text(&text).unwrap().moves(), g.moves());
    }

    #[test]
    fn loading_refuses_what_is_broken() {
        assert!(Game::from_text("").is_err());
        assert!(Game::from_text("1. e4 e5 2. Ke3").unwrap_err().contains("2. Ke3: illegal"));
        assert!(Game::from_text("[FEN \"not a fen\"]\n1. e4 *").unwrap_err().contains("bad FEN"));
        assert!(Game::from_text("not a fen at all").unwrap_err().contains("bad FEN"));
        assert!(Game::from_text("1. f3 e5 2. g4 Qh4# 3. a3 *").unwrap_err().contains("after the game has ended"));
        let g = Game::from_text("8/8/4k3/8/8/3K4/4P3/8 b - - 0 1").unwrap();
        assert_eq!(g.position().side_to_move(), Color::Black);
        assert_eq!(Game::from_text("1. e4 {a comment} e5 (1... c5) 2. Nf3 1/2-1/2").unwrap().moves().len(), 3);
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_781), (2026, 11, 24));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(today().len(), 10);
    }
}
