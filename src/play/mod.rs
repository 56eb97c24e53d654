//! `corvid play`: a game against the engine in the terminal, for a person.
//!
//! The board from the player's side (Unicode pieces, or ASCII where the output is not a UTF-8
//! terminal or `--ascii` asks for it), the last move marked, both clocks, the moves in SAN.
//! Moves in SAN or coordinates; commands for hints, legal moves, taking back, saving and
//! loading. Input that is not a terminal works the same, a move or command a line, so scripts
//! and tests can play. Files: `game` (the game, its rules and PGN), `board` (drawing),
//! `opponent` (the engine's side).

pub mod board;
pub mod game;
mod opponent;

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use crate::book::Book;
use crate::position::{MoveParseError, Position};
use crate::search::{Iteration, ReportedScore};
use crate::types::{Color, Move, Square};
use board::Glyphs;
use game::{Ending, Game, Outcome};
use opponent::Opponent;

/// The colour the player asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    White,
    Black,
    Random,
}

/// A time control: minutes for the game plus seconds a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
}

impl TimeControl {
    /// `MIN+INC` (`10+5`, `0.5+0`, `3`), or `none` for no clocks.
    pub fn parse(text: &str) -> Result<Option<TimeControl>, String> {
        if text.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        let bad = || format!("--tc: '{text}' is not MIN+INC (minutes and seconds a move, as 10+5) or none");
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let minutes: f64 = base.trim().parse().map_err(|_| bad())?;
        let seconds: f64 = inc.trim().parse().map_err(|_| bad())?;
        if !(minutes.is_finite() && seconds.is_finite())
            || minutes <= 0.0
            || minutes > 1440.0
            || !(0.0..=600.0).contains(&seconds)
        {
            return Err(bad());
        }
        Ok(Some(TimeControl {
            base: Duration::from_secs_f64(minutes * 60.0),
            increment: Duration::from_secs_f64(seconds),
        }))
    }

    /// PGN's `TimeControl` value: seconds, `+` increment.
    fn pgn(tc: Option<TimeControl>) -> String {
        match tc {
            None => "-".into(),
            Some(tc) if tc.increment.is_zero() => format!("{}", tc.base.as_secs()),
            Some(tc) => format!("{}+{}", tc.base.as_secs(), tc.increment.as_secs_f64()),
        }
    }
}

/// What `corvid play` was asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub side: Side,
    pub tc: Option<TimeControl>,
    /// The engine's level (`None`: full strength).
    pub elo: Option<u32>,
    pub book: Option<String>,
    pub fen: Option<String>,
    pub ascii: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            side: Side::White,
            tc: Some(TimeControl { base: Duration::from_secs(600), increment: Duration::from_secs(5) }),
            elo: None,
            book: None,
            fen: None,
            ascii: false,
        }
    }
}

const HELP: &str = "\
Moves: SAN (Nf3, exd5, O-O, e8=Q; case and check marks forgiven) or coordinates (g1f3, e7e8q).
Commands:
  help              this text
  hint              the engine's suggestion for you
  moves [square]    your legal moves, or those of the piece on a square
  undo, redo        take back your last move (and the engine's reply), play it again
  flip              turn the board around
  fen, pgn          the position as FEN, the game as PGN
  save FILE         write the game as PGN
  load FILE         a game from a PGN or FEN file (or a FEN typed after load)
  resign, draw      give up, or offer a draw (the engine accepts when its score says so)
  new               a new game with the same settings
  think on|off      show the engine's lines while it thinks
  quit              leave";

/// Whether the environment's locale asks for UTF-8.
fn utf8_locale() -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .next()
        .is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("utf-8") || v.contains("utf8")
        })
}

/// `m:ss`, with tenths under twenty seconds.
fn clock_text(d: Duration) -> String {
    let secs = d.as_secs();
    if d < Duration::from_secs(20) {
        format!("{}:{:02}.{}", secs / 60, secs % 60, d.subsec_millis() / 100)
    } else {
        format!("{}:{:02}", secs / 60, secs % 60)
    }
}

/// A score of the side `mover` as a person reads it, with whose advantage it is: `+0.35 for
/// White`, `mate in 3 for Black`, `0.00 (level)`.
fn whose(score: ReportedScore, mover: Color) -> String {
    let white = if mover == Color::White { score } else { negate(score) };
    match white {
        ReportedScore::Centipawns(0) => "0.00 (level)".to_string(),
        ReportedScore::Centipawns(cp) if cp > 0 => format!("+{:.2} for White", cp as f64 / 100.0),
        ReportedScore::Centipawns(cp) => format!("+{:.2} for Black", -cp as f64 / 100.0),
        ReportedScore::Mate(n) if n > 0 => format!("mate in {n} for White"),
        ReportedScore::Mate(n) => format!("mate in {} for Black", -n),
    }
}

/// The score from the other side's point of view.
fn negate(score: ReportedScore) -> ReportedScore {
    match score {
        ReportedScore::Centipawns(cp) => ReportedScore::Centipawns(-cp),
        ReportedScore::Mate(n) => ReportedScore::Mate(-n),
    }
}

/// A line of moves in SAN from `pos`, as far as they are legal.
fn san_line(pos: &Position, moves: &[Move]) -> String {
    let mut pos = *pos;
    let mut words = Vec::new();
    for &m in moves {
        if !pos.legal_moves().contains(&m) {
            break;
        }
        words.push(pos.to_san(m));
        pos = pos.make_move(m);
    }
    words.join(" ")
}

/// A game session: the game, the clocks, the player's side and the engine.
struct Session<W: Write> {
    out: W,
    options: Options,
    start: Position,
    game: Game,
    human: Color,
    /// The board is drawn with this colour at the bottom.
    bottom: Color,
    glyphs: Glyphs,
    think: bool,
    terminal: bool,
    /// Time left, White's then Black's (unused without a time control).
    clocks: [Duration; 2],
    /// When the side to move began thinking.
    turn_started: Instant,
    engine: Opponent,
    rng: crate::rng::Rng,
    /// Lines written since the line of the board that shows the player's clock (at the bottom
    /// of the board; `None` when it is not on screen to update), and the clock text shown there.
    clock_line: Option<(usize, String)>,
    /// The game's plies when it was last saved (or started or loaded): leaving with more asks
    /// whether to save.
    saved_plies: usize,
}

/// A line of input, or its end.
enum Line {
    Text(String),
    End,
}

/// Input read on a thread of its own, so that the loop can keep the clocks while it waits.
struct Input {
    lines: std::sync::mpsc::Receiver<Line>,
}

impl Input {
    /// Reads `reader` line by line, as bytes (a line that is not UTF-8 is one bad line, not the
    /// end). From a terminal, reading goes on after an end of input (Ctrl-D), which a terminal
    /// can give more than once.
    fn new(reader: impl BufRead + Send + 'static, terminal: bool) -> Input {
        let (tx, lines) = std::sync::mpsc::channel();
        let _ = std::thread::Builder::new().name("play-input".into()).spawn(move || {
            let mut reader = reader;
            loop {
                let mut line = Vec::new();
                let read = reader.read_until(b'\n', &mut line);
                let sent = match read {
                    Ok(0) | Err(_) => tx.send(Line::End),
                    Ok(_) => tx.send(Line::Text(String::from_utf8_lossy(&line).trim().to_string())),
                };
                if sent.is_err() || (!terminal && !matches!(read, Ok(n) if n > 0)) {
                    break;
                }
            }
        });
        Input { lines }
    }

    /// The next line if one comes within `wait` (`None`: none yet).
    fn within(&self, wait: Duration) -> Option<Line> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => Some(line),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Some(Line::End),
        }
    }

    /// The next line, waiting as long as it takes.
    fn next(&self) -> Line {
        self.lines.recv().unwrap_or(Line::End)
    }
}

/// What the loop does after a line of input.
enum Next {
    Continue,
    Quit,
}

/// Plays games on `input` and `output` until `quit` or the end of input. `terminal`: the input
/// is a person at a terminal (a prompt, running clocks, an offer to save before leaving);
/// `utf8`: the output can show Unicode pieces.
pub fn run(
    options: Options,
    input: impl BufRead + Send + 'static,
    output: impl Write,
    terminal: bool,
    utf8: bool,
) -> Result<(), String> {
    let start = match &options.fen {
        None => Position::startpos(),
        Some(fen) => Position::from_fen(fen).map_err(|e| format!("--fen: {e}"))?,
    };
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    let mut notes = Vec::new();
    let book = match &options.book {
        None => None,
        Some(path) => match Book::load(path) {
            Ok(book) => {
                notes.push(format!("Book: {path}, {} entries.", book.len()));
                Some(book)
            }
            Err(why) => {
                notes.push(format!("No book: {why}."));
                None
            }
        },
    };
    let glyphs = if options.ascii || !utf8 { Glyphs::Ascii } else { Glyphs::Unicode };
    let engine = Opponent::new(options.elo, book, seed)?;
    let input = Input::new(input, terminal);
    let mut session = Session {
        out: output,
        start,
        game: Game::new(start),
        human: Color::White,
        bottom: Color::White,
        glyphs,
        think: false,
        terminal,
        clocks: [Duration::ZERO; 2],
        turn_started: Instant::now(),
        engine,
        rng: crate::rng::Rng::new(seed ^ 0x5eed),
        options,
        clock_line: None,
        saved_plies: 0,
    };
    session.new_game();
    for note in notes {
        session.say(&note);
    }
    session.play(&input);
    Ok(())
}

/// Runs `corvid play` on the process's own standard input and output. Ctrl-C offers to save the
/// game and leaves (a second Ctrl-C leaves at once).
pub fn run_on_terminal(options: Options) -> Result<(), String> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let (terminal, utf8) = (stdin.is_terminal(), stdout.is_terminal() && utf8_locale());
    crate::interrupt::install("\n(Ctrl-C again leaves at once)\n");
    run(options, std::io::BufReader::new(stdin), stdout.lock(), terminal, utf8)
}

impl<W: Write> Session<W> {
    fn say(&mut self, text: &str) {
        let _ = writeln!(self.out, "{text}");
        let _ = self.out.flush();
        if let Some((lines, _)) = &mut self.clock_line {
            *lines += text.lines().count().max(1);
        }
    }

    fn engine_name(&self) -> String {
        match self.engine.elo {
            Some(elo) => format!("{} ({elo})", crate::uci::NAME),
            None => crate::uci::NAME.to_string(),
        }
    }

    fn player_name() -> String {
        std::env::var("USER").ok().filter(|u| !u.is_empty()).unwrap_or_else(|| "Player".into())
    }

    /// Starts a game from the start position with the options' colour and clocks.
    fn new_game(&mut self) {
        self.human = match self.options.side {
            Side::White => Color::White,
            Side::Black => Color::Black,
            Side::Random if self.rng.below(2) == 0 => Color::White,
            Side::Random => Color::Black,
        };
        self.bottom = self.human;
        self.game = Game::new(self.start);
        self.saved_plies = 0;
        let base = self.options.tc.map_or(Duration::ZERO, |tc| tc.base);
        self.clocks = [base; 2];
        self.engine.new_game();
        let colour = if self.human == Color::White { "White" } else { "Black" };
        let tc = self.options.tc.map_or("no clock".to_string(), |tc| {
            format!("{}+{}", tc.base.as_secs_f64() / 60.0, tc.increment.as_secs_f64())
        });
        let level = self.engine.elo.map_or("full strength".to_string(), |e| format!("level {e}"));
        let text = format!("{}: you play {colour}, {tc}, {level}. Type 'help' for the commands.", crate::uci::NAME);
        self.say(&text);
        self.show();
        self.turn_started = Instant::now();
    }

    /// The board with the clocks, then the moves so far.
    fn show(&mut self) {
        let note = |s: &Session<W>, color: Color| {
            let who = if color == s.human { "You".to_string() } else { s.engine_name() };
            let side = if color == Color::White { "White" } else { "Black" };
            let to_move =
                if s.game.ending.is_none() && s.game.position().side_to_move() == color { "  (to move)" } else { "" };
            match s.options.tc {
                Some(_) => format!("{who}, {side}  {}{to_move}", clock_text(s.clocks[color.index()])),
                None => format!("{who}, {side}{to_move}"),
            }
        };
        let (top, bottom) = (note(self, !self.bottom), note(self, self.bottom));
        let text = board::render(self.game.position(), self.game.last_move(), self.bottom, self.glyphs, &top, &bottom);
        let _ = write!(self.out, "{text}");
        // The player's clock is beside the bottom rank when the board is seen from their side;
        // the footer line follows it.
        self.clock_line = (self.bottom == self.human).then(|| (1, bottom.clone()));
        let moves = self.game.san_moves();
        if !moves.is_empty() {
            let mut line = String::new();
            for word in moves {
                if line.len() + word.len() + 1 > 78 {
                    self.say(line.trim_end());
                    line.clear();
                }
                line.push_str(&word);
                line.push(' ');
            }
            self.say(line.trim_end());
        }
        if let Some(ending) = self.game.ending.clone() {
            self.announce(&ending);
        }
    }

    fn announce(&mut self, ending: &Ending) {
        let who = match ending.outcome {
            Outcome::Draw => "a draw".to_string(),
            o if (o == Outcome::WhiteWins) == (self.human == Color::White) => "you win".to_string(),
            _ => format!("{} wins", crate::uci::NAME),
        };
        let text = format!(
            "Game over: {}, {who} ({}). 'new' starts another game, 'save FILE' keeps this one.",
            ending.reason,
            ending.outcome.pgn()
        );
        self.say(&text);
    }

    /// The loop: the engine moves when it is its turn; the player's lines are read and handled
    /// while the player's clock runs (on screen in a terminal) and falls when it is out.
    /// `quit`, Ctrl-D and Ctrl-C leave, offering first to save a game with unsaved moves.
    fn play(&mut self, input: &Input) {
        loop {
            if crate::interrupt::STOP.swap(false, std::sync::atomic::Ordering::SeqCst) {
                self.say("");
                break self.leave(input);
            }
            if self.game.ending.is_none() && self.game.position().side_to_move() != self.human {
                self.engine_move();
                continue;
            }
            if self.terminal {
                let _ = write!(self.out, "{}> ", if self.game.ending.is_none() { "Your move" } else { "Command" });
                let _ = self.out.flush();
            }
            let line = loop {
                if let Some(line) = input.within(Duration::from_millis(100)) {
                    break Some(line);
                }
                if crate::interrupt::STOP.load(std::sync::atomic::Ordering::SeqCst) {
                    break None;
                }
                if self.flag_fell() {
                    break None;
                }
                self.tick_clock();
            };
            match line {
                None => continue,
                Some(Line::End) => break self.leave(input),
                Some(Line::Text(text)) => {
                    // The player's Enter moved the cursor a line down.
                    if let Some((lines, _)) = &mut self.clock_line {
                        *lines += 1;
                    }
                    if let Next::Quit = self.handle(&text, input) {
                        break self.leave(input);
                    }
                }
            }
        }
    }

    /// The player's time left on their move (their clock less the time since it started).
    fn human_time_left(&self) -> Option<Duration> {
        self.options.tc?;
        let to_move = self.game.position().side_to_move();
        (self.game.ending.is_none() && to_move == self.human)
            .then(|| self.clocks[to_move.index()].saturating_sub(self.turn_started.elapsed()))
    }

    /// While the player thinks: their flag falls the moment their time is out.
    fn flag_fell(&mut self) -> bool {
        if self.human_time_left() != Some(Duration::ZERO) {
            return false;
        }
        if self.terminal {
            self.say("");
        }
        self.charge_clock();
        self.show();
        true
    }

    /// In a terminal, the player's clock on the board counts down as they think (the line is
    /// rewritten in place, the cursor put back where the player types).
    fn tick_clock(&mut self) {
        let (Some(left), true) = (self.human_time_left(), self.terminal) else { return };
        let Some((lines, shown)) = &self.clock_line else { return };
        let side = if self.human == Color::White { "White" } else { "Black" };
        let text = format!("You, {side}  {}  (to move)", clock_text(left));
        if &text == shown {
            return;
        }
        // The note starts after the rank, eight squares of three columns, the rank and 4 spaces.
        let column = 4 + 3 * 8 + 3 + 4 + 1;
        let _ = write!(self.out, "\x1b7\x1b[{}A\x1b[{column}G\x1b[K{text}\x1b8", lines + 1);
        let _ = self.out.flush();
        let lines = *lines;
        self.clock_line = Some((lines, text));
    }

    /// Before leaving: a game with moves not yet saved is offered a file (at a terminal).
    fn leave(&mut self, input: &Input) {
        if !self.terminal || self.game.moves().len() <= self.saved_plies {
            return;
        }
        let _ = write!(self.out, "Save the game before leaving? A file name saves it, Enter leaves: ");
        let _ = self.out.flush();
        if let Line::Text(name) = input.next() {
            if !name.is_empty() {
                self.save(&name, input);
            }
        }
    }

    /// Subtracts the side to move's thinking time from its clock; true if its flag fell, in
    /// which case the game is over.
    fn charge_clock(&mut self) -> bool {
        let Some(tc) = self.options.tc else { return false };
        let color = self.game.position().side_to_move();
        let spent = self.turn_started.elapsed();
        let clock = &mut self.clocks[color.index()];
        if spent > *clock {
            *clock = Duration::ZERO;
            let opponent_can_mate = game::can_mate(self.game.position(), !color);
            let side = if color == Color::White { "White" } else { "Black" };
            self.game.ending = Some(if opponent_can_mate {
                Ending { outcome: Outcome::win_for(!color), reason: format!("{side} lost on time"), on_time: true }
            } else {
                Ending {
                    outcome: Outcome::Draw,
                    reason: format!("{side} ran out of time, but the other side cannot mate"),
                    on_time: true,
                }
            });
            return true;
        }
        *clock = *clock - spent + tc.increment;
        false
    }

    /// The engine's turn: book or search, then the board.
    fn engine_move(&mut self) {
        let color = self.game.position().side_to_move();
        if self.terminal {
            let clock = self
                .options
                .tc
                .map_or(String::new(), |_| format!(", its clock {}", clock_text(self.clocks[color.index()])));
            self.say(&format!("{} is thinking{clock}...", crate::uci::NAME));
        }
        let clock = self.options.tc.map(|tc| (self.clocks[color.index()], tc.increment));
        let think = self.think;
        let pos = *self.game.position();
        let out = &mut self.out;
        let started = Instant::now();
        let mut progress = |info: &Iteration| {
            if think {
                let _ = writeln!(
                    out,
                    "  depth {:>2}  {:>18}  {:>9} nodes  {:>5.1}s  {}",
                    info.depth,
                    whose(info.score, color),
                    info.nodes,
                    info.time.as_secs_f64(),
                    san_line(&pos, &info.pv)
                );
                let _ = out.flush();
            }
        };
        let choice = self.engine.choose(&self.game, clock, &mut progress, Some(&crate::interrupt::STOP));
        let spent = started.elapsed();
        if self.charge_clock() {
            self.show();
            return;
        }
        let Some(m) = choice.best else {
            // Only a position without legal moves has no move, and that game is over.
            self.game.ending = self.game.rules_ending();
            return;
        };
        let number = pos.fullmove_number();
        let dots = if color == Color::White { "." } else { "..." };
        let how = if choice.from_book { "book".to_string() } else { format!("{:.1}s", spent.as_secs_f64()) };
        let score = choice.score.map_or(String::new(), |s| format!(", {}", whose(s, color)));
        let text = format!("{} plays {number}{dots} {} ({how}{score})", crate::uci::NAME, pos.to_san(m));
        self.say(&text);
        self.game.play(m);
        self.show();
        self.turn_started = Instant::now();
    }

    /// Reads a move as a person writes it: SAN or coordinates, forgiving case where that leaves
    /// one reading.
    fn read_move(&self, text: &str) -> Result<Move, MoveParseError> {
        let pos = self.game.position();
        let first = pos.parse_san(text);
        if first.is_ok() {
            return first;
        }
        // `NF3`, `E4`, `BXC4`: squares in capitals, the piece letter (if any) kept.
        let mut readings = Vec::new();
        let lower = text.to_ascii_lowercase();
        let mut chars = text.chars();
        let piece_kept: String = chars.next().into_iter().chain(chars.as_str().to_ascii_lowercase().chars()).collect();
        for candidate in [lower, piece_kept] {
            if let Ok(m) = pos.parse_san(&candidate) {
                if !readings.contains(&m) {
                    readings.push(m);
                }
            }
        }
        match readings.as_slice() {
            [m] => Ok(*m),
            [_, _, ..] => Err(MoveParseError::Ambiguous(text.to_string())),
            [] => first,
        }
    }

    fn handle(&mut self, line: &str, input: &Input) -> Next {
        let (word, rest) = line.split_once(char::is_whitespace).map_or((line, ""), |(w, r)| (w, r.trim()));
        match word.to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => self.say(HELP),
            "quit" | "exit" => return Next::Quit,
            "hint" => self.hint(),
            "moves" => self.list_moves(rest),
            "undo" | "takeback" => self.undo(),
            "redo" => self.redo(),
            "flip" => {
                self.bottom = !self.bottom;
                self.show();
            }
            "fen" => {
                let fen = self.game.position().to_fen();
                self.say(&fen);
            }
            "pgn" => {
                let text = self.pgn();
                let _ = write!(self.out, "{text}");
            }
            "save" => self.save(rest, input),
            "load" => self.load(rest),
            "resign" => {
                if self.over() {
                    return Next::Continue;
                }
                let side = if self.human == Color::White { "White" } else { "Black" };
                let ending = Ending {
                    outcome: Outcome::win_for(!self.human),
                    reason: format!("{side} resigns"),
                    on_time: false,
                };
                self.game.ending = Some(ending.clone());
                self.announce(&ending);
            }
            "draw" => self.offer_draw(),
            "new" => self.new_game(),
            "think" => match rest.to_ascii_lowercase().as_str() {
                "on" => {
                    self.think = true;
                    self.say("The engine's lines will be shown while it thinks.");
                }
                "off" => {
                    self.think = false;
                    self.say("The engine thinks quietly.");
                }
                _ => self.say("Usage: think on|off"),
            },
            _ => self.human_move(line),
        }
        Next::Continue
    }

    /// True (with a message) if the game is over.
    fn over(&mut self) -> bool {
        if let Some(ending) = &self.game.ending {
            let text = format!("The game is over ({}): 'undo', 'new' or 'load' to play on.", ending.reason);
            self.say(&text);
            return true;
        }
        false
    }

    fn human_move(&mut self, text: &str) {
        if self.over() {
            return;
        }
        let m = match self.read_move(text) {
            Ok(m) => m,
            Err(MoveParseError::Ambiguous(_)) => {
                let text = format!("Ambiguous move '{text}': say which piece (Nbd2, R1e2) or give coordinates.");
                return self.say(&text);
            }
            Err(MoveParseError::Illegal(_)) => {
                let text = format!("Illegal move '{text}' ('moves' lists the legal ones).");
                return self.say(&text);
            }
            Err(_) => {
                let text = format!("Unknown command or move '{text}' ('help' lists the commands).");
                return self.say(&text);
            }
        };
        if self.charge_clock() {
            self.show();
            return;
        }
        self.game.play(m);
        // The player's move is on the board before the engine thinks about its reply.
        self.show();
        self.turn_started = Instant::now();
    }

    fn hint(&mut self) {
        if self.over() {
            return;
        }
        let (best, score) = self.engine.hint(&self.game);
        let text = match best {
            Some(m) => format!("Hint: {} ({})", self.game.position().to_san(m), whose(score, self.human)),
            None => "No legal move.".to_string(),
        };
        self.say(&text);
    }

    fn list_moves(&mut self, square: &str) {
        let pos = *self.game.position();
        let from = if square.is_empty() {
            None
        } else {
            match square.to_ascii_lowercase().parse::<Square>() {
                Ok(sq) => Some(sq),
                Err(_) => return self.say(&format!("'{square}' is not a square (e2, g8).")),
            }
        };
        let mut moves: Vec<String> = pos
            .legal_moves()
            .iter()
            .filter(|m| from.map_or(true, |sq| m.from() == sq))
            .map(|&m| pos.to_san(m))
            .collect();
        moves.sort();
        let text = match (moves.is_empty(), from) {
            (true, Some(sq)) => format!("No legal move from {sq}."),
            (true, None) => "No legal move.".to_string(),
            (false, _) => format!("Legal moves: {}", moves.join(" ")),
        };
        self.say(&text);
    }

    /// Takes back the player's last move and the engine's reply to it (one move if the engine
    /// has not replied).
    fn undo(&mut self) {
        let mine_last = self.game.position().side_to_move() != self.human;
        let plies = if mine_last { 1 } else { 2 };
        if self.game.moves().len() < plies {
            return self.say("Nothing of yours to take back.");
        }
        for _ in 0..plies {
            self.game.undo();
        }
        self.show();
        self.turn_started = Instant::now();
    }

    /// Plays again what `undo` took back: the player's move and the engine's reply.
    fn redo(&mut self) {
        if !self.game.redo() {
            return self.say("Nothing to redo.");
        }
        if self.game.ending.is_none() && self.game.position().side_to_move() != self.human {
            self.game.redo();
        }
        self.show();
        self.turn_started = Instant::now();
    }

    fn offer_draw(&mut self) {
        if self.over() {
            return;
        }
        let score = self.engine.judge(&self.game);
        // The score is the side to move's; the engine's own is the other way round when it is
        // the player's turn.
        let own = if self.game.position().side_to_move() == self.human { negate(score) } else { score };
        let accept = match own {
            ReportedScore::Centipawns(cp) => cp <= opponent::DRAW_ACCEPT_CP,
            ReportedScore::Mate(n) => n < 0,
        };
        if accept {
            let ending = Ending { outcome: Outcome::Draw, reason: "draw agreed".into(), on_time: false };
            self.game.ending = Some(ending.clone());
            self.say(&format!("{} accepts the draw.", crate::uci::NAME));
            self.announce(&ending);
        } else {
            let engine_side = !self.human;
            let text = format!("{} declines the draw (its score: {}).", crate::uci::NAME, whose(own, engine_side));
            self.say(&text);
        }
    }

    fn pgn(&self) -> String {
        let (me, engine) = (Self::player_name(), self.engine_name());
        let (white, black) = if self.human == Color::White { (me, engine) } else { (engine, me) };
        self.game.to_pgn(&white, &black, &TimeControl::pgn(self.options.tc), &game::today())
    }

    /// Writes the PGN to a temporary file beside `path` and renames it over `path`, so a
    /// failure never leaves half a file where a saved game was. A file that is there is
    /// replaced only when the player says yes.
    fn save(&mut self, path: &str, input: &Input) {
        if path.is_empty() {
            return self.say("Usage: save FILE");
        }
        if std::path::Path::new(path).is_file() {
            let _ = write!(self.out, "{path} exists. Replace it? (y/n) ");
            let _ = self.out.flush();
            let yes = matches!(input.next(), Line::Text(answer) if answer.eq_ignore_ascii_case("y") || answer.eq_ignore_ascii_case("yes"));
            if !self.terminal {
                self.say("");
            }
            if !yes {
                return self.say(&format!("Not saved; {path} kept."));
            }
        }
        let text = self.pgn();
        match crate::files::write_whole(std::path::Path::new(path), &[], text.as_bytes()) {
            Ok(()) => {
                self.saved_plies = self.game.moves().len();
                self.say(&format!("Saved to {path}."));
            }
            Err(e) => self.say(&format!("Cannot save: {e}; nothing written.")),
        }
    }

    fn load(&mut self, what: &str) {
        if what.is_empty() {
            return self.say("Usage: load FILE (PGN or FEN)");
        }
        let text = match crate::files::read(what, crate::files::MAX_INPUT) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            // Not a file: perhaps a FEN typed in.
            Err(e) if Position::from_fen(what).is_err() => {
                return self.say(&format!("Cannot load: {e}; game unchanged."));
            }
            Err(_) => what.to_string(),
        };
        match Game::from_text(&text) {
            Ok(game) => {
                self.start = *game.start();
                self.game = game;
                self.saved_plies = self.game.moves().len();
                self.engine.new_game();
                self.say(&format!("Loaded {what}."));
                self.show();
                self.turn_started = Instant::now();
            }
            Err(why) => self.say(&format!("Cannot load {what}: {why}; game unchanged.")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls() {
        let tc = TimeControl::parse("10+5").unwrap().unwrap();
        assert_eq!((tc.base, tc.increment), (Duration::from_secs(600), Duration::from_secs(5)));
        let tc = TimeControl::parse("0.5").unwrap().unwrap();
        assert_eq!((tc.base, tc.increment), (Duration::from_secs(30), Duration::ZERO));
        assert_eq!(TimeControl::parse("none"), Ok(None));
        for bad in ["", "x", "10+", "-1+0", "0+5", "5+-1", "nan+1", "inf", "100000"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(TimeControl::pgn(TimeControl::parse("10+5").unwrap()), "600+5");
        assert_eq!(TimeControl::pgn(TimeControl::parse("3").unwrap()), "180");
        assert_eq!(TimeControl::pgn(None), "-");
    }

    #[test]
    fn clock_and_score_text() {
        assert_eq!(clock_text(Duration::from_secs(600)), "10:00");
        assert_eq!(clock_text(Duration::from_millis(9_450)), "0:09.4");
        // Scores say whose advantage they are, whoever is to move.
        assert_eq!(whose(ReportedScore::Centipawns(-35), Color::White), "+0.35 for Black");
        assert_eq!(whose(ReportedScore::Centipawns(-35), Color::Black), "+0.35 for White");
        assert_eq!(whose(ReportedScore::Centipawns(120), Color::Black), "+1.20 for Black");
        assert_eq!(whose(ReportedScore::Centipawns(0), Color::Black), "0.00 (level)");
        assert_eq!(whose(ReportedScore::Mate(3), Color::Black), "mate in 3 for Black");
        assert_eq!(whose(ReportedScore::Mate(-2), Color::Black), "mate in 2 for White");
    }
}
