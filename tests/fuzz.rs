//! Seeded fuzzing of everything that reads untrusted text.
//!
//! * `uci_loop_survives_100k_fuzzed_lines`: the `corvid` binary gets at least 100,000 input lines
//!   from a xorshift64 generator: valid commands (positions reached by random legal games, every
//!   kind of `go`, options, `perft`, `bench 1`, ...), the same with tokens and bytes mutated,
//!   broken FENs, illegal moves, huge and negative numbers, bad options, garbage, empty, 10 KB and
//!   non-ASCII lines, and bursts of commands in the middle of `go infinite` / `go ponder`. A model
//!   of the engine's position (kept with the library's own parser) checks that every `go` gets
//!   exactly one `bestmove`, legal in its position, and every `isready` its `readyok`; at the end
//!   the engine must still answer `isready`, play a legal move at depth 4 and exit on `quit`.
//!   Bounded: every line is cheap (searches are limited or interrupted by the next command,
//!   `go perft` depth <= 2, `bench` depth 1, Hash <= 8 MB, Threads <= 2) and generation stops
//!   after 100,000 lines. The engine is judged by progress, not speed, so that the test passes
//!   on a busy machine: it fails when the engine reads no input, or gives no answer while
//!   answers are owed, for 30 s, or has not read or answered everything within 10 minutes. The seed can be
//!   changed with `CORVID_FUZZ_SEED`; a failing run leaves its whole input in the target tmp dir.
//! * `move_parser_accepts_exactly_the_legal_moves`: `Position::parse_uci_move` on 100,000+ random
//!   and mutated strings in random positions (standard and Chess960): no panic, and whatever it
//!   accepts is a legal move written in one of its two accepted spellings.
//! * `fen_parser_survives_token_soup`: `Position::from_fen` on 100,000 strings glued from FEN-ish
//!   tokens (byte-level mutation of FENs is in tests/fen.rs): no panic, and what it accepts is
//!   consistent and round-trips through `to_fen`.
//!
//! In release the library tests take well under a second and the UCI test about 15 s.

use std::collections::VecDeque;
use std::io::Write;
use std::process::{Child, ChildStdin, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod common;

use corvid::rng::Rng;
use corvid::uci::command::{self, Command as Uci, Start};
use corvid::uci::options::{Change, Options};
use corvid::{Move, Position};

/// Lines the UCI test must send.
const LINES: usize = 100_000;
/// ... within this time, and the answers to them must come within as much again: a bound for a
/// hang that crawls, far beyond a slow and busy machine (an idle one sends them in 15-20 s).
const DEADLINE: Duration = Duration::from_secs(600);
/// The engine must read some input, and answer the last of it, at least this often.
const STALL: Duration = Duration::from_secs(30);

const SEED: u64 = 0xC0E5_1D5E_ED00_2024;

/// Standard positions, a Chess960 one (Shredder castling) and one whose X-FEN castling names a
/// king on c1 with rooks on a1 and e1 (Chess960 too), positions with castling, en passant,
/// promotions, mate and stalemate.
const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/P6k/8/8/8/8/1p6/K7 w - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "8/8/8/8/8/8/8/K6k w - - 99 150",
];

/// The draws the fuzzer needs on top of the engine's generator.
trait Draws {
    /// lo to hi inclusive.
    fn range(&mut self, lo: u64, hi: u64) -> u64;
    fn one_in(&mut self, n: usize) -> bool;
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T;
}

impl Draws for Rng {
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Plays up to `plies` random legal moves; returns the end position and the moves in the
/// notation of the position's Chess960 flag.
fn random_game(rng: &mut Rng, start: &Position, plies: usize) -> (Position, Vec<String>) {
    let mut pos = *start;
    let mut moves = Vec::new();
    for m in common::random_moves(rng, start, plies) {
        moves.push(m.to_uci(pos.is_chess960()).to_string());
        pos = pos.make_move(m);
    }
    (pos, moves)
}

const UNICODE: &[&str] =
    &["é", "ß", "♔", "♞", "中文", "🐦", "\u{a0}", "\u{2028}", "\u{feff}", "e\u{301}", "Ω", "\u{0}"];

const WEIRD_TOKENS: &[&str] = &[
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "-1",
    "-100",
    "-0",
    "+5",
    "0",
    "1e9",
    "0x10",
    "3.5",
    "abc",
    "NaN",
    "inf",
    "moves",
    "fen",
    "startpos",
    "name",
    "value",
    "go",
    "depth",
    "nodes",
    "infinite",
    "ponder",
    "searchmoves",
    "wtime",
    "movetime",
    "perft",
    "isready",
    "stop",
    "é",
    "♔",
    "🐦",
];

const BAD_MOVES: &[&str] = &[
    "e2e5", "a7a8q", "zz99", "e1g1", "e1c1", "e8g8", "e8c8", "0000", "e2e4e2e4", "a1a1", "a7a8", "e7e8k", "E2E4", "e2",
];

/// What the engine's game state should be after each line, as far as `bestmove` depends on it:
/// the position (with its Chess960 flag) and the options.
struct Model {
    /// The last position set (kept for making lines when a later one was refused).
    pos: Position,
    /// The last `position` was refused: every `go` answers `bestmove 0000` until a good one.
    refused: bool,
    options: Options,
}

impl Model {
    /// Mirrors `corvid::uci::Engine`'s handling of the commands that change the position.
    fn apply(&mut self, cmd: &Uci) {
        match cmd {
            Uci::SetOption { name, value } => {
                if let Ok(Change::Stored) = self.options.set(name, value.as_deref()) {
                    let c960 = self.options.chess960 || self.pos.is_chess960();
                    self.pos.set_chess960(c960);
                }
            }
            Uci::UciNewGame => {
                self.pos = Position::startpos();
                self.pos.set_chess960(self.options.chess960);
                self.refused = false;
            }
            Uci::BadPosition(_) => self.refused = true,
            Uci::Position { start, moves } => {
                let mut pos = match start {
                    Start::StartPos => Position::startpos(),
                    Start::Fen(fen) => match Position::from_fen(fen) {
                        Ok(pos) => pos,
                        Err(_) => {
                            self.refused = true;
                            return;
                        }
                    },
                };
                self.refused = false;
                pos.set_chess960(self.options.chess960 || pos.is_chess960());
                for text in moves {
                    match pos.parse_uci_move(text) {
                        Ok(m) => pos = pos.make_move(m),
                        Err(_) => break,
                    }
                }
                self.pos = pos;
            }
            _ => {}
        }
    }
}

/// Whether a line is safe to send: it must not end the session or start work that is not
/// interrupted by the next command and takes more than a few milliseconds.
fn bounded(cmd: &Uci) -> bool {
    match cmd {
        Uci::Quit => false,
        Uci::Bench { depth } => matches!(depth, Some(d) if *d <= 1),
        Uci::GoPerft { depth } => *depth <= 2,
        Uci::SetOption { name, value } => {
            let number = value.as_deref().and_then(|v| v.trim().parse::<u64>().ok());
            match name.trim().to_ascii_lowercase().as_str() {
                "hash" => !number.is_some_and(|n| n > 8),
                "threads" => !number.is_some_and(|n| n > 2),
                _ => true,
            }
        }
        _ => true,
    }
}

/// Makes UCI input lines.
struct Generator {
    rng: Rng,
    model: Model,
    /// FENs of positions seen in random games, to start `position fen` from.
    seen: Vec<String>,
}

impl Generator {
    fn new(seed: u64) -> Generator {
        Generator {
            rng: Rng::new(seed),
            model: Model { pos: Position::startpos(), refused: false, options: Options::default() },
            seen: FENS.iter().map(|f| f.to_string()).collect(),
        }
    }

    fn chess960(&self) -> bool {
        self.model.options.chess960
    }

    fn fen(&mut self) -> String {
        self.rng.pick(&self.seen).clone()
    }

    /// A random game from the start position or a FEN: (`position ...` prefix, moves).
    fn game(&mut self) -> (String, Vec<String>) {
        let (head, mut start) = if self.rng.one_in(2) {
            ("position startpos".to_string(), Position::startpos())
        } else {
            let fen = self.fen();
            match Position::from_fen(&fen) {
                Ok(pos) => (format!("position fen {fen}"), pos),
                Err(e) => panic!("{fen}: {e}"),
            }
        };
        start.set_chess960(self.chess960() || start.is_chess960());
        let plies = self.rng.below(30);
        let (end, moves) = random_game(&mut self.rng, &start, plies);
        if self.rng.one_in(8) && self.seen.len() < 4000 {
            self.seen.push(end.to_fen());
        }
        (head, moves)
    }

    fn position(&mut self) -> String {
        let (head, moves) = self.game();
        if moves.is_empty() && self.rng.one_in(2) {
            head
        } else {
            format!("{head} moves {}", moves.join(" "))
        }
    }

    fn setoption(&mut self) -> String {
        let r = &mut self.rng;
        match r.below(13) {
            9 => format!(
                "setoption name EvalFile value {}",
                r.pick(&["/nonexistent.nnue", "<embedded>", "", "Cargo.toml"])
            ),
            10 => format!(
                "setoption name BookFile value {}",
                r.pick(&[
                    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/polyglot/book.bin"),
                    "/nonexistent.bin",
                    "Cargo.toml",
                    "<none>"
                ])
            ),
            11 => format!("setoption name OwnBook value {}", r.one_in(2)),
            0 => format!("setoption name Hash value {}", r.range(1, 8)),
            1 => format!("setoption name Threads value {}", r.range(1, 2)),
            2 => format!("setoption name MultiPV value {}", r.range(1, 4)),
            3 => format!("setoption name UCI_Chess960 value {}", r.one_in(2)),
            4 => format!("setoption name Move Overhead value {}", r.range(0, 100)),
            5 => "setoption name Clear Hash".to_string(),
            6 => format!("setoption name Ponder value {}", r.one_in(2)),
            7 => format!("setoption name hash value {}", r.range(1, 8)),
            8 => format!("setoption name UseNNUE value {}", r.one_in(2)),
            _ => format!("setoption name MOVE OVERHEAD value {}", r.range(0, 30)),
        }
    }

    /// A `go` that ends by itself within a few milliseconds.
    fn short_go(&mut self) -> String {
        let r = &mut self.rng;
        match r.below(8) {
            0..=2 => format!("go depth {}", r.range(1, 3)),
            3 => format!("go nodes {}", r.range(1, 2000)),
            4 => format!("go movetime {}", r.range(0, 5)),
            5 => {
                let mut s = format!("go wtime {} btime {}", r.range(0, 300), r.range(0, 300));
                if r.one_in(2) {
                    s += &format!(" winc {} binc {}", r.range(0, 20), r.range(0, 20));
                }
                if r.one_in(2) {
                    s += &format!(" movestogo {}", r.range(1, 40));
                }
                s
            }
            6 => format!("go btime {} winc {}", r.range(0, 100), r.range(0, 10)),
            _ => {
                let legal = self.model.pos.legal_moves();
                let c960 = self.model.pos.is_chess960();
                let mut s = format!("go depth {} searchmoves", r.range(1, 3));
                for _ in 0..1 + r.below(4) {
                    if !legal.is_empty() && !r.one_in(4) {
                        s += &format!(" {}", legal[r.below(legal.len())].to_uci(c960));
                    } else {
                        s += &format!(" {}", r.pick(BAD_MOVES));
                    }
                }
                s
            }
        }
    }

    /// Commands sent while a search runs.
    fn burst(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        for _ in 0..1 + self.rng.below(6) {
            let line = match self.rng.below(14) {
                0..=2 => "isready".to_string(),
                3 => self.position(),
                4 => self.setoption(),
                5 => "ponderhit".to_string(),
                6 => self.short_go(),
                7 => "go infinite".to_string(),
                8 => "d".to_string(),
                9 => "eval".to_string(),
                10 => format!("debug {}", if self.rng.one_in(2) { "on" } else { "off" }),
                11 => self.garbage(),
                12 => "ucinewgame".to_string(),
                _ => "stop".to_string(),
            };
            lines.push(line);
        }
        lines
    }

    /// A search that waits for `stop` (or `ponderhit`), with commands sent during it.
    fn open_search(&mut self) -> Vec<String> {
        let r = &mut self.rng;
        let mut lines = vec![match r.below(7) {
            0 | 1 => "go infinite".to_string(),
            2 => format!("go ponder wtime {} btime {}", r.range(10, 2000), r.range(10, 2000)),
            3 => "go ponder".to_string(),
            4 => format!("go movetime {}", r.range(0, 5)),
            5 => "go".to_string(),
            _ => format!("go mate {}", r.range(1, 3)),
        }];
        lines.extend(self.burst());
        if self.rng.one_in(2) {
            lines.push("ponderhit".to_string());
        }
        lines.push("stop".to_string());
        lines
    }

    fn valid(&mut self) -> Vec<String> {
        let one = |s: &str| vec![s.to_string()];
        match self.rng.below(100) {
            0..=1 => one("uci"),
            2..=9 => one("isready"),
            10..=11 => one("ucinewgame"),
            12..=29 => vec![self.position()],
            30..=49 => vec![self.short_go()],
            50..=57 => self.open_search(),
            58..=65 => vec![self.setoption()],
            66..=70 => one("stop"),
            71..=73 => one("ponderhit"),
            74..=76 => one(if self.rng.one_in(2) { "debug on" } else { "debug off" }),
            77..=81 => one("d"),
            82..=85 => one("eval"),
            86..=87 => one(if self.rng.one_in(2) { "register later" } else { "register name Corvid code 42" }),
            88..=93 => vec![format!("go perft {}", self.rng.range(0, 2))],
            94 if self.rng.one_in(3) => one("bench 1"),
            95 => one("help"),
            96 => vec![format!("genfens {} seed {} book None", self.rng.range(1, 3), self.rng.range(0, 1000))],
            _ => vec![self.position(), self.short_go()],
        }
    }

    fn char_edit(&mut self, text: &str, edits: usize) -> String {
        const ALPHABET: &[u8] = b"abcdefghpnbrqkPNBRQKw12345678/9-0 x";
        let mut chars: Vec<char> = text.chars().collect();
        for _ in 0..edits {
            let at = self.rng.below(chars.len() + 1);
            let c = if self.rng.one_in(10) {
                self.rng.pick(UNICODE).chars().next().unwrap_or('?')
            } else {
                *self.rng.pick(ALPHABET) as char
            };
            match self.rng.below(3) {
                0 if at < chars.len() => chars[at] = c,
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                _ => chars.insert(at, c),
            }
        }
        chars.into_iter().collect()
    }

    /// A token- or character-level mutation of a line.
    fn mutate(&mut self, line: &str) -> String {
        let mut tokens: Vec<String> = line.split(' ').map(str::to_string).collect();
        let n = tokens.len();
        match self.rng.below(10) {
            0 => {
                tokens.remove(self.rng.below(n));
            }
            1 => {
                let i = self.rng.below(n);
                let t = tokens[i].clone();
                tokens.insert(i, t);
            }
            2 => {
                for i in (1..n).rev() {
                    let j = self.rng.below(i + 1);
                    tokens.swap(i, j);
                }
            }
            3 if n > 1 => {
                let i = self.rng.below(n - 1);
                tokens.swap(i, i + 1);
            }
            4 => {
                let i = self.rng.below(n);
                tokens[i] = self.rng.pick(WEIRD_TOKENS).to_string();
            }
            5 => {
                let chars: Vec<char> = line.chars().collect();
                return chars[..self.rng.below(chars.len() + 1)].iter().collect();
            }
            6..=8 => {
                let edits = 1 + self.rng.below(4);
                return self.char_edit(line, edits);
            }
            _ => {
                let i = self.rng.below(n + 1);
                tokens.insert(i, self.rng.pick(WEIRD_TOKENS).to_string());
            }
        }
        let sep = if self.rng.one_in(8) { "  " } else { " " };
        tokens.join(sep)
    }

    fn broken_fen(&mut self) -> String {
        let fen = self.fen();
        let broken = match self.rng.below(6) {
            0..=2 => {
                let edits = 1 + self.rng.below(3);
                self.char_edit(&fen, edits)
            }
            3 => {
                let chars: Vec<char> = fen.chars().collect();
                chars[..self.rng.below(chars.len())].iter().collect()
            }
            4 => format!("{fen} {}", self.rng.pick(WEIRD_TOKENS)),
            _ => {
                let mut fields: Vec<&str> = fen.split(' ').collect();
                fields.remove(self.rng.below(fields.len()));
                fields.join(" ")
            }
        };
        if self.rng.one_in(3) {
            format!("position fen {broken} moves e2e4 e7e5")
        } else {
            format!("position fen {broken}")
        }
    }

    fn illegal_moves(&mut self) -> Vec<String> {
        let (head, mut moves) = self.game();
        let at = self.rng.below(moves.len() + 1);
        let bad = match self.rng.below(5) {
            0..=1 => self.rng.pick(BAD_MOVES).to_string(),
            2 => {
                let files = b"abcdefgh";
                let ranks = b"12345678";
                let mut s = String::new();
                for _ in 0..2 {
                    s.push(*self.rng.pick(files) as char);
                    s.push(*self.rng.pick(ranks) as char);
                }
                s
            }
            3 => moves.get(at.saturating_sub(1)).cloned().unwrap_or_else(|| "e2e4".into()),
            _ => self.garbage().replace(' ', "_"),
        };
        moves.insert(at, bad);
        let mut lines = vec![format!("{head} moves {}", moves.join(" "))];
        if self.rng.one_in(2) {
            lines.push(self.short_go());
        }
        lines
    }

    fn huge_numbers(&mut self) -> Vec<String> {
        let big = *self.rng.pick(&["4294967296", "4294967295", "18446744073709551615", "99999999999999999999"]);
        let line = match self.rng.below(10) {
            0 => format!("go depth {big}"),
            1 => format!("go nodes {big}"),
            2 => format!("go wtime {big} btime {big}"),
            3 => format!("go wtime {big} winc {big} btime 10 binc {big}"),
            4 => format!("go movetime {big}"),
            5 => format!("go movestogo {big} wtime 100 btime 100"),
            6 => format!("go mate {big}"),
            7 => format!("go wtime 10 btime 10 movestogo {big} winc {big}"),
            8 if self.rng.one_in(2) => format!("go perft {big}"),
            8 => format!("genfens {big} seed {big} book None"),
            _ => format!("bench {big}"),
        };
        let mut lines = vec![line];
        if self.rng.one_in(2) {
            lines.push("isready".into());
        }
        lines.push("stop".into());
        lines
    }

    fn negative_numbers(&mut self) -> Vec<String> {
        let line = match self.rng.below(9) {
            0 => "go wtime -100 btime -5".to_string(),
            1 => format!("go wtime -{} btime -{} winc -1 binc -1", self.rng.range(0, 999), self.rng.range(0, 999)),
            2 => "go depth -3".to_string(),
            3 => "go nodes -1".to_string(),
            4 => "go movetime -5".to_string(),
            5 => "go movestogo -1 wtime 100 btime 100".to_string(),
            6 => "go perft -1".to_string(),
            7 => "bench -1".to_string(),
            _ => "go wtime -18446744073709551616 btime 50".to_string(),
        };
        vec![line, "stop".to_string()]
    }

    fn bad_option(&mut self) -> String {
        let r = &mut self.rng;
        match r.below(16) {
            0 => "setoption name Hash value -1".to_string(),
            1 => "setoption name Hash value abc".to_string(),
            2 => "setoption name Hash value 1e9".to_string(),
            3 => "setoption name Hash".to_string(),
            4 => "setoption name Hash value".to_string(),
            5 => "setoption".to_string(),
            6 => "setoption name".to_string(),
            7 => "setoption value 3".to_string(),
            8 => {
                format!("setoption name {} value {}", r.pick(&["Nope", "Hashish", "Skill Levels", "é"]), r.range(0, 9))
            }
            9 => "setoption name Threads value 0".to_string(),
            10 => "setoption name Threads value 99999999999999999999".to_string(),
            11 => "setoption name UCI_Chess960 value maybe".to_string(),
            12 => "setoption name Move Overhead value 5001".to_string(),
            13 => "setoption name MultiPV value 0".to_string(),
            14 => "setoption name Hash value 18446744073709551616".to_string(),
            _ => "setoption name Clear Hash value now".to_string(),
        }
    }

    fn garbage(&mut self) -> String {
        let len = self.rng.below(120);
        (0..len).map(|_| if self.rng.one_in(30) { '\t' } else { (b' ' + self.rng.below(95) as u8) as char }).collect()
    }

    fn long_line(&mut self) -> String {
        const SIZE: usize = 10 * 1024;
        let mut s = match self.rng.below(5) {
            0 => "position startpos moves".to_string(),
            1 => "go depth 2 searchmoves".to_string(),
            2 => "setoption name ".to_string(),
            3 => "position fen ".to_string(),
            _ => String::new(),
        };
        if s.ends_with("moves") {
            // Knights out and back: legal for as long as the line goes (a long repetition).
            while s.len() < SIZE {
                s += " g1f3 g8f6 f3g1 f6g8";
            }
        } else if s.ends_with("searchmoves") {
            while s.len() < SIZE {
                s += &format!(" {}", self.rng.pick(&["e2e4", "d2d4", "g1f3", "e2e5", "zz99"]));
            }
        } else {
            while s.len() < SIZE {
                s += &self.garbage();
            }
        }
        s
    }

    fn unicode(&mut self) -> String {
        let mut line = self.valid().swap_remove(0);
        for _ in 0..1 + self.rng.below(3) {
            let chars: Vec<char> = line.chars().collect();
            let at = self.rng.below(chars.len() + 1);
            let u = *self.rng.pick(UNICODE);
            line = chars[..at].iter().collect::<String>() + u + &chars[at..].iter().collect::<String>();
        }
        line
    }

    /// The next few lines of input.
    fn step(&mut self) -> Vec<String> {
        match self.rng.below(100) {
            0..=44 => self.valid(),
            45..=69 => {
                let mut lines = self.valid();
                let i = self.rng.below(lines.len());
                lines[i] = self.mutate(&lines[i]);
                if lines[i].contains("go") {
                    lines.push("stop".to_string());
                }
                lines
            }
            70..=74 => vec![self.broken_fen()],
            75..=79 => self.illegal_moves(),
            80..=82 => self.huge_numbers(),
            83..=85 => self.negative_numbers(),
            86..=89 => vec![self.bad_option()],
            90..=93 => vec![self.garbage()],
            94 => vec![String::new()],
            95 => vec![" \t ".to_string()],
            96 => vec![self.long_line(), "stop".to_string()],
            97..=98 => vec![self.unicode(), "stop".to_string()],
            _ => {
                let mut lines = self.open_search();
                lines.extend(self.open_search());
                lines
            }
        }
    }
}

/// What the writer thread did.
struct Written {
    stdin: ChildStdin,
    log: Vec<String>,
    /// The model position at each `go`, in order (`None`: after a refused position).
    gos: Vec<Option<Position>>,
    /// The index in `log` of each `go`.
    go_lines: Vec<usize>,
    readies: usize,
    error: Option<std::io::Error>,
}

/// Generates and writes lines until `LINES` are sent, `stop` is raised or the pipe breaks.
fn spawn_writer(
    mut stdin: ChildStdin,
    seed: u64,
    sent: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> JoinHandle<Written> {
    std::thread::spawn(move || {
        let mut gen = Generator::new(seed);
        let mut log: Vec<String> = Vec::with_capacity(LINES + 64);
        let (mut gos, mut go_lines, mut readies, mut error) = (Vec::new(), Vec::new(), 0, None);
        while log.len() < LINES && !stop.load(Ordering::Relaxed) {
            let mut chunk = String::new();
            for line in gen.step() {
                let line = line.replace(['\n', '\r'], " ");
                let cmd = command::parse(&line);
                if !bounded(&cmd) {
                    continue;
                }
                gen.model.apply(&cmd);
                match cmd {
                    Uci::Go(_) => {
                        gos.push((!gen.model.refused).then_some(gen.model.pos));
                        go_lines.push(log.len());
                    }
                    Uci::IsReady => readies += 1,
                    _ => {}
                }
                chunk += &line;
                chunk.push('\n');
                log.push(line);
            }
            if let Err(e) = stdin.write_all(chunk.as_bytes()).and_then(|_| stdin.flush()) {
                error = Some(e);
                break;
            }
            sent.store(log.len(), Ordering::Relaxed);
            // Now and then let the search run: it finishes by itself, `stop` then finds it idle.
            if gen.rng.one_in(10) {
                std::thread::sleep(Duration::from_millis(gen.rng.range(0, 4)));
            }
        }
        Written { stdin, log, gos, go_lines, readies, error }
    })
}

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    bestmoves: Vec<String>,
    readyoks: usize,
    /// Lines of output.
    outputs: usize,
    /// The last lines of output, for failure messages.
    tail: VecDeque<String>,
    _serial: std::sync::MutexGuard<'static, ()>,
}

impl Engine {
    fn start() -> Engine {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let (child, stdin, lines) = common::spawn_uci();
        let mut e = Engine {
            child,
            stdin: Some(stdin),
            lines,
            bestmoves: Vec::new(),
            readyoks: 0,
            outputs: 0,
            tail: VecDeque::new(),
            _serial: serial,
        };
        e.send("uci");
        e.wait_for("uciok", 5000);
        e
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is with the writer");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn record(&mut self, line: &str) {
        self.outputs += 1;
        if line.starts_with("bestmove") {
            self.bestmoves.push(line.to_string());
        } else if line == "readyok" {
            self.readyoks += 1;
        }
        if self.tail.len() == 20 {
            self.tail.pop_front();
        }
        self.tail.push_back(line.chars().take(200).collect());
    }

    /// Takes in all output that arrives within `wait`, and whatever else is already there.
    fn pump(&mut self, wait: Duration) {
        if let Ok(line) = self.lines.recv_timeout(wait) {
            self.record(&line);
            while let Ok(line) = self.lines.try_recv() {
                self.record(&line);
            }
        }
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn wait_for(&mut self, prefix: &str, timeout_ms: u64) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.record(&line);
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no '{prefix}' within {timeout_ms} ms; got {seen:?}"),
            }
        }
    }

    fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("try_wait")
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs tests/uci_oracle.py on the session: every bestmove legal in the position python-chess
/// reads from the lines sent before its `go`. A skip without python-chess (a failure under CI).
fn oracle(log: &[String], go_lines: &[usize], bestmoves: &[String], seed: u64) -> Result<(), String> {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (log_path, gos_path) = (dir.join(format!("oracle-log-{seed}.txt")), dir.join(format!("oracle-gos-{seed}.txt")));
    std::fs::write(&log_path, log.join("\n") + "\n").unwrap();
    let gos: String = go_lines.iter().zip(bestmoves).map(|(i, b)| format!("{i}\t{b}\n")).collect();
    std::fs::write(&gos_path, gos).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/uci_oracle.py");
    let out = match std::process::Command::new("python3").arg(script).arg(&log_path).arg(&gos_path).output() {
        Ok(out) => out,
        Err(e) => {
            common::skip("the python-chess oracle", &format!("python3: {e}"));
            return Ok(());
        }
    };
    let said = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if said.contains("No module named") {
        common::skip("the python-chess oracle", "pip install chess");
        return Ok(());
    }
    eprintln!("{}", said.lines().last().unwrap_or_default());
    if out.status.success() {
        let _ = std::fs::remove_file(&log_path);
        let _ = std::fs::remove_file(&gos_path);
        Ok(())
    } else {
        Err(format!("python-chess disagrees:\n{}", said.lines().take(20).collect::<Vec<_>>().join("\n")))
    }
}

/// Fails with the seed, the last input and output lines, and the whole input saved to a file.
fn fail(why: &str, seed: u64, log: &[String], engine: &Engine) -> ! {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-uci-{seed}.txt"));
    let saved = std::fs::write(&path, log.join("\n") + "\n").map(|_| path.display().to_string());
    let last: Vec<String> = log.iter().rev().take(20).rev().map(|l| l.chars().take(300).collect()).collect();
    panic!(
        "{why}\nseed {seed}, {} lines sent; the engine may lag behind by up to a pipe buffer (64 KB) of input.\n\
         last lines sent:\n  {}\nlast output:\n  {}\nwhole input: {saved:?} (replay: corvid < file)",
        log.len(),
        last.join("\n  "),
        engine.tail.iter().cloned().collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn uci_loop_survives_100k_fuzzed_lines() {
    let seed = std::env::var("CORVID_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(SEED);
    let mut engine = Engine::start();
    let t0 = Instant::now();
    let sent = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = spawn_writer(engine.stdin.take().unwrap(), seed, Arc::clone(&sent), Arc::clone(&stop));

    let mut problem = None;
    let mut progress = (0, Instant::now());
    while !writer.is_finished() {
        engine.pump(Duration::from_millis(20));
        if let Some(status) = engine.exited() {
            problem = Some(format!("the engine died ({status})"));
            break;
        }
        if t0.elapsed() > DEADLINE {
            stop.store(true, Ordering::Relaxed);
        }
        let now = sent.load(Ordering::Relaxed);
        if now != progress.0 {
            progress = (now, Instant::now());
        } else if progress.1.elapsed() > STALL {
            problem = Some(format!("the engine read no input for {STALL:?} (hang?)"));
            let _ = engine.child.kill();
            break;
        }
    }
    let written = writer.join().expect("writer thread");
    let elapsed = t0.elapsed();
    let n = written.log.len();
    eprintln!("fuzz: seed {seed}: {n} lines sent in {:.1} s", elapsed.as_secs_f64());
    if let Some(why) = problem {
        fail(&why, seed, &written.log, &engine);
    }
    if let Some(e) = &written.error {
        fail(&format!("writing to the engine failed: {e}"), seed, &written.log, &engine);
    }
    if n < LINES {
        fail(
            &format!("only {n} of {LINES} lines sent within {DEADLINE:?}: the engine is too slow"),
            seed,
            &written.log,
            &engine,
        );
    }

    // Everything asked was answered: one readyok per isready, one legal bestmove per go.
    engine.stdin = Some(written.stdin);
    engine.send("stop");
    engine.send("isready");
    let readies = written.readies + 1;
    // The engine may still have a pipe buffer of input to work through, and how fast it does
    // depends on the machine and on what else runs there (a build, self-play at nice 19) and on
    // the build (the checked one recomputes a key at every move). It is judged by progress, not
    // by a settle time: it fails only when it stops answering (no line for STALL) or has not
    // caught up within a bound far beyond any slow machine.
    let sync = Instant::now();
    let mut last = (engine.outputs, Instant::now());
    let why = loop {
        if engine.readyoks >= readies {
            break None;
        }
        engine.pump(Duration::from_millis(50));
        if let Some(status) = engine.exited() {
            break Some(format!("the engine exited ({status}) after {} readyok", engine.readyoks));
        }
        if engine.outputs != last.0 {
            last = (engine.outputs, Instant::now());
        } else if last.1.elapsed() > STALL {
            break Some(format!("{} readyok for {readies} isready, then no output for {STALL:?}", engine.readyoks));
        }
        if sync.elapsed() > DEADLINE {
            break Some(format!("{} readyok for {readies} isready after {DEADLINE:?}", engine.readyoks));
        }
    };
    if let Some(why) = why {
        fail(&why, seed, &written.log, &engine);
    }
    if engine.readyoks != readies {
        fail(&format!("{} readyok for {readies} isready", engine.readyoks), seed, &written.log, &engine);
    }
    if engine.bestmoves.len() != written.gos.len() {
        let why = format!("{} bestmove for {} go", engine.bestmoves.len(), written.gos.len());
        fail(&why, seed, &written.log, &engine);
    }
    for (i, (line, pos)) in engine.bestmoves.iter().zip(&written.gos).enumerate() {
        let Some(pos) = pos else {
            if line != "bestmove 0000" {
                fail(&format!("go #{i}: '{line}' after a refused position"), seed, &written.log, &engine);
            }
            continue;
        };
        if let Err(why) = common::check_bestmove(line, pos) {
            let why = format!("go #{i}: '{line}': {why} in {} (chess960 {})", pos.to_fen(), pos.is_chess960());
            fail(&why, seed, &written.log, &engine);
        }
    }
    // The same check with an independent reading of the position commands: python-chess's
    // boards, as the UCI specification defines the commands (tests/uci_oracle.py).
    if let Err(why) = oracle(&written.log, &written.go_lines, &engine.bestmoves, seed) {
        fail(&why, seed, &written.log, &engine);
    }
    eprintln!(
        "fuzz: {} go answered with legal moves, {readies} isready answered, {} lines of output; checked in {:.1} s",
        written.gos.len(),
        engine.outputs,
        t0.elapsed().as_secs_f64()
    );

    // ... and it still plays.
    engine.send("ucinewgame");
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go depth 4");
    let lines = engine.wait_for("bestmove", 10_000);
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap_or("").to_string();
    let pos = ["e2e4", "e7e5"].iter().fold(Position::startpos(), |p, m| p.make_move(p.parse_uci_move(m).unwrap()));
    let m = pos.parse_uci_move(&best).unwrap_or_else(|e| panic!("final bestmove '{best}': {e}"));
    assert!(pos.legal_moves().contains(&m), "{best}");

    engine.send("quit");
    let quit = Instant::now();
    let status = loop {
        if let Some(status) = engine.exited() {
            break status;
        }
        assert!(quit.elapsed() < Duration::from_secs(2), "no exit within 2 s of quit");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(status.success(), "exit status {status}");
}

/// Strings for the move parser: legal moves as written and mutated, castling both ways, bad
/// promotions, random squares, random characters, empty and long strings.
fn move_text(rng: &mut Rng, pos: &Position, legal: &[Move]) -> String {
    const CHARS: &[u8] = b"abcdefghijkpqrnPQRBNK0123456789x-=+# ";
    let c960 = pos.is_chess960();
    let some =
        if legal.is_empty() { "e2e4".to_string() } else { legal[rng.below(legal.len())].to_uci(c960).to_string() };
    let mut chars: Vec<char> = some.chars().collect();
    let square = |rng: &mut Rng| format!("{}{}", (b'a' + rng.below(8) as u8) as char, 1 + rng.below(8));
    match rng.below(13) {
        0 => some,
        1 => {
            // Castling: both spellings, and the king's two-square steps whether legal or not.
            match legal.iter().find(|m| m.is_castle()) {
                Some(m) if rng.one_in(2) => m.to_uci(!rng.one_in(2)).to_string(),
                _ => {
                    let king = pos.king(pos.side_to_move()).to_string();
                    let rank = &king[1..];
                    format!("{king}{}{rank}", *rng.pick(&["g", "c", "h", "a", "b", "f"]))
                }
            }
        }
        2 => {
            let at = rng.below(chars.len());
            chars[at] = *rng.pick(CHARS) as char;
            chars.into_iter().collect()
        }
        3 => {
            let at = rng.below(chars.len());
            chars.remove(at);
            chars.into_iter().collect()
        }
        4 => {
            let at = rng.below(chars.len() + 1);
            chars.insert(at, *rng.pick(CHARS) as char);
            chars.into_iter().collect()
        }
        5 => {
            // A promotion with any piece letter, or none.
            let promo = legal.iter().find(|m| m.is_promotion()).map(|m| m.to_uci(c960).to_string());
            let base = promo.map(|p| p[..4].to_string()).unwrap_or_else(|| some[..4].to_string());
            format!("{base}{}", rng.pick(&["", "q", "r", "b", "n", "k", "p", "Q", "N", "x", "qq", "=q", "1"]))
        }
        6 | 7 => {
            let promo = if rng.one_in(4) { *rng.pick(&["q", "r", "b", "n", "k"]) } else { "" };
            format!("{}{}{promo}", square(rng), square(rng))
        }
        8 => (0..rng.below(8)).map(|_| *rng.pick(CHARS) as char).collect(),
        9 => rng
            .pick(&["", " ", "0000", "(none)", "null", " e2e4", "e2e4 ", "e2\te4", "e2-e4", "O-O", "O-O-O"])
            .to_string(),
        10 => {
            if rng.one_in(2) {
                some.repeat(1 + rng.below(300))
            } else {
                (0..rng.below(2000)).map(|_| (b' ' + rng.below(95) as u8) as char).collect()
            }
        }
        11 => {
            let at = rng.below(chars.len() + 1);
            let head: String = chars[..at].iter().collect();
            let tail: String = chars[at..].iter().collect();
            format!("{head}{}{tail}", rng.pick(UNICODE))
        }
        _ => some.to_uppercase(),
    }
}

#[test]
fn move_parser_accepts_exactly_the_legal_moves() {
    let mut rng = Rng::new(SEED ^ 0x9E37_79B9_7F4A_7C15);
    let starts: Vec<Position> = FENS.iter().map(|f| Position::from_fen(f).unwrap()).collect();
    assert!(starts.iter().any(Position::is_chess960));
    let (mut tried, mut accepted, mut positions, mut chess960) = (0, 0, 0, 0);
    while tried < 100_000 {
        let mut start = *rng.pick(&starts);
        // `setoption name UCI_Chess960 value true` makes standard positions Chess960 ones.
        if rng.one_in(4) {
            start.set_chess960(true);
        }
        let plies = rng.below(60);
        let (pos, _) = random_game(&mut rng, &start, plies);
        let c960 = pos.is_chess960();
        positions += 1;
        chess960 += c960 as usize;
        let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
        for &m in &legal {
            assert_eq!(pos.parse_uci_move(&m.to_uci(c960).to_string()), Ok(m), "{pos:?}");
            assert_eq!(pos.parse_uci_move(&m.to_uci(true).to_string()), Ok(m), "king takes rook: {pos:?}");
        }
        for _ in 0..50 {
            let text = move_text(&mut rng, &pos, &legal);
            tried += 1;
            if let Ok(m) = pos.parse_uci_move(&text) {
                accepted += 1;
                assert!(legal.contains(&m), "'{text}' gave {m:?}, not legal in {} (chess960 {c960})", pos.to_fen());
                let canonical = m.to_uci(c960).to_string();
                assert_eq!(pos.parse_uci_move(&canonical), Ok(m));
                assert!(
                    text == canonical || (m.is_castle() && text == m.to_uci(true).to_string()),
                    "'{text}' accepted as {m:?} (written '{canonical}') in {} (chess960 {c960})",
                    pos.to_fen()
                );
            }
        }
    }
    eprintln!("move parser: {tried} strings in {positions} positions ({chess960} Chess960), {accepted} accepted");
    assert!(accepted > 5_000 && chess960 > 100, "{accepted} accepted, {chess960} Chess960 positions");
}

#[test]
fn fen_parser_survives_token_soup() {
    let mut rng = Rng::new(SEED ^ 0xD1B5_4A32_D192_ED03);
    // Tokens for each of the six fields, from real FENs and random games, plus nonsense.
    let mut fields: [Vec<String>; 6] = Default::default();
    let mut add = |fen: &str| {
        for (i, token) in fen.split(' ').enumerate() {
            fields[i].push(token.to_string());
        }
    };
    for fen in FENS {
        add(fen);
        let start = Position::from_fen(fen).unwrap();
        for _ in 0..20 {
            let plies = rng.below(80);
            add(&random_game(&mut rng, &start, plies).0.to_fen());
        }
    }
    let ranks =
        ["8", "4k3", "3K4", "pppppppp", "PPPPPPPP", "rnbqkbnr", "RNBQKBNR", "p7", "7P", "44", "9", "", "k", "K7"];
    let extra = ["-", "w", "b", "KQkq", "HAha", "e3", "e6", "d6", "0", "1", "65535", "65536", "-1", "x", "é", "/", "♔"];
    let separators = [" ", "  ", "\t", " \u{a0}", "\u{2003}"];
    let mut accepted = 0;
    for _ in 0..100_000 {
        let n = rng.below(9);
        let mut tokens: Vec<String> = Vec::new();
        for slot in 0..n {
            let token = match rng.below(10) {
                0..=6 if slot < 6 => rng.pick(&fields[slot]).clone(),
                7 if slot == 0 => (0..rng.range(6, 9)).map(|_| *rng.pick(&ranks)).collect::<Vec<_>>().join("/"),
                7 | 8 => rng.pick(&extra).to_string(),
                _ => {
                    let field = rng.below(6);
                    rng.pick(&fields[field]).clone()
                }
            };
            tokens.push(token);
        }
        let sep = *rng.pick(&separators);
        let text = tokens.join(sep);
        if let Ok(pos) = Position::from_fen(&text) {
            accepted += 1;
            assert_eq!(pos.validate(), Ok(()), "{text:?}");
            let fen = pos.to_fen();
            assert_eq!(Position::from_fen(&fen).as_ref(), Ok(&pos), "{text:?} printed as {fen}");
            let _ = pos.legal_moves();
        }
    }
    eprintln!("FEN token soup: {accepted} of 100000 accepted");
    assert!(accepted > 1000, "{accepted}");
}
