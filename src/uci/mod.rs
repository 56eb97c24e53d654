//! The UCI front: reads commands, keeps the current position, writes answers.
//!
//! This layer owns all protocol text; the engine below reports through return values.

pub mod command;

use std::io::{BufRead, Write};
use std::time::Instant;

use crate::perft;
use crate::position::Position;
use command::{Command, Start};

/// Engine name and version for `id name` and the banner.
pub const NAME: &str = concat!("Corvid ", env!("CARGO_PKG_VERSION"));

/// The state the loop keeps between commands.
#[derive(Default)]
pub struct Uci {
    position: Position,
}

/// Whether the loop should go on after a command.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flow {
    Continue,
    Quit,
}

impl Uci {
    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Runs the loop until `quit` or the end of input.
    pub fn run(&mut self, input: impl BufRead, out: &mut impl Write) -> std::io::Result<()> {
        for line in input.lines() {
            let line = line?;
            if self.handle(&line, out)? == Flow::Quit {
                break;
            }
            out.flush()?;
        }
        Ok(())
    }

    /// Handles one line of input.
    pub fn handle(&mut self, line: &str, out: &mut impl Write) -> std::io::Result<Flow> {
        match command::parse(line) {
            Command::Uci => {
                writeln!(out, "id name {NAME}")?;
                writeln!(out, "id author the Corvid developers")?;
                writeln!(out, "uciok")?;
            }
            Command::IsReady => writeln!(out, "readyok")?,
            Command::UciNewGame => self.position = Position::startpos(),
            Command::Position { start, moves } => self.set_position(start, &moves, out)?,
            Command::GoPerft { depth } => {
                print_divide(&self.position, depth, 1, 0, out)?;
            }
            Command::Display => writeln!(out, "{}", self.position)?,
            Command::Help => write!(out, "{}", crate::cli::HELP)?,
            Command::Quit => return Ok(Flow::Quit),
            Command::Invalid(why) => writeln!(out, "info string error: {why}")?,
            Command::Unknown(text) => eprintln!("unknown command: {text}"),
            Command::Empty => {}
        }
        Ok(Flow::Continue)
    }

    /// `position`: a bad FEN keeps the previous position; an illegal move stops the move list at
    /// the last legal move. Both are reported.
    fn set_position(&mut self, start: Start, moves: &[String], out: &mut impl Write) -> std::io::Result<()> {
        let mut pos = match start {
            Start::StartPos => Position::startpos(),
            Start::Fen(fen) => match Position::from_fen(&fen) {
                Ok(pos) => pos,
                Err(e) => return writeln!(out, "info string error: bad FEN '{fen}': {e}"),
            },
        };
        for text in moves {
            match pos.parse_uci_move(text) {
                Ok(m) => pos = pos.make_move(m),
                Err(e) => {
                    writeln!(out, "info string error: {e}; position kept after the last legal move")?;
                    break;
                }
            }
        }
        self.position = pos;
        Ok(())
    }
}

/// Prints perft per root move, the total, and the speed (the `perft` output format).
pub fn print_divide(
    pos: &Position,
    depth: u32,
    threads: usize,
    hash_mb: usize,
    out: &mut impl Write,
) -> std::io::Result<u64> {
    let start = Instant::now();
    let hash = (hash_mb > 0).then(|| perft::PerftHash::new(hash_mb));
    let chess960 = pos.is_chess960();
    let (results, total) = if depth == 0 {
        (Vec::new(), 1)
    } else {
        let results = perft::divide(pos, depth, threads, hash.as_ref());
        let total = results.iter().map(|r| r.1).sum();
        (results, total)
    };
    let elapsed = start.elapsed();
    for (m, n) in &results {
        writeln!(out, "{}: {n}", m.to_uci(chess960))?;
    }
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    let secs = elapsed.as_secs_f64();
    let nps = if secs > 0.0 { (total as f64 / secs) as u64 } else { 0 };
    let mode = if hash.is_some() { format!(", hashed ({hash_mb} MB)") } else { String::new() };
    writeln!(
        out,
        "Time: {} ms, {nps} nps, {threads} thread{}{mode}",
        elapsed.as_millis(),
        if threads == 1 { "" } else { "s" }
    )?;
    Ok(total)
}
