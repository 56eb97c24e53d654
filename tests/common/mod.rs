//! Helpers shared by the integration tests (each test file that needs them says `mod common;`).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use corvid::rng::Rng;
use corvid::{Move, Position};

/// Runs `corvid ARGS` with `stdin` (then closed): (exit status, stdout, stderr). With a `limit`
/// the process is killed after it, and the status is `None` (a hang).
pub fn run_corvid(args: &[&str], stdin: &str, limit: Option<Duration>) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_corvid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start corvid");
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let started = Instant::now();
    let status = match limit {
        None => None,
        Some(limit) => loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code();
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        },
    };
    let out = child.wait_with_output().unwrap();
    let status = if limit.is_none() { out.status.code() } else { status };
    (status, String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Up to `plies` random legal moves from `start` (fewer where the game ends).
pub fn random_moves(rng: &mut Rng, start: &Position, plies: usize) -> Vec<Move> {
    let mut pos = *start;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[rng.below(legal.len())];
        moves.push(m);
        pos = pos.make_move(m);
    }
    moves
}

/// Starts the `corvid` binary with piped input and output: the process, its input, and its
/// output lines, read on a thread of their own.
pub fn spawn_uci() -> (Child, ChildStdin, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_corvid"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start corvid");
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, stdin, lines)
}

/// The `corvid` binary driven over UCI as a GUI drives it: one write a line, its output read on
/// a thread of its own.
pub struct Engine {
    pub child: Child,
    pub stdin: ChildStdin,
    pub lines: Receiver<String>,
    /// Whether `UCI_Chess960` was last set to true (moves are then written king takes rook).
    pub chess960: bool,
    /// Tests measure response times; one engine process at a time keeps them honest on a
    /// two-core machine.
    _serial: std::sync::MutexGuard<'static, ()>,
}

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Engine {
    /// Starts the engine and waits for `uciok`.
    pub fn start() -> Engine {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let (child, stdin, lines) = spawn_uci();
        let mut e = Engine { child, stdin, lines, chess960: false, _serial: serial };
        e.send("uci");
        e.wait_for("uciok", 5000);
        e
    }

    /// One line, in a write of its own.
    pub fn send(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["setoption", "name", "UCI_Chess960", "value", value] = words.as_slice() {
            self.chess960 = value.eq_ignore_ascii_case("true");
        }
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends `line` after `ms` milliseconds.
    pub fn send_after(&mut self, ms: u64, line: &str) {
        std::thread::sleep(Duration::from_millis(ms));
        self.send(line);
    }

    /// Lines up to and including the first that starts with `prefix`, or what came if it did
    /// not come within `timeout_ms`.
    pub fn try_wait_for(&mut self, prefix: &str, timeout_ms: u64) -> Result<Vec<String>, Vec<String>> {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return Ok(seen);
                    }
                }
                Err(_) => return Err(seen),
            }
        }
    }

    /// Lines up to and including the first that starts with `prefix` (a panic if it does not
    /// come within `timeout_ms`).
    pub fn wait_for(&mut self, prefix: &str, timeout_ms: u64) -> Vec<String> {
        self.try_wait_for(prefix, timeout_ms)
            .unwrap_or_else(|seen| panic!("no '{prefix}' within {timeout_ms} ms; got {seen:?}"))
    }

    /// Everything that arrives within `ms` milliseconds.
    pub fn quiet_for(&mut self, ms: u64) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_millis(ms);
        let mut seen = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            seen.push(line);
        }
        seen
    }

    /// Sets `position`, sends `go`, and returns the move played and the lines up to it. The
    /// `bestmove` line must be well formed with moves legal in that position (`0000` only where
    /// there is no legal move); with `position` empty, legal in the start position.
    pub fn search(&mut self, position: &str, go: &str) -> (String, Vec<String>) {
        self.send(position);
        self.send(go);
        let lines = self.wait_for("bestmove", 30_000);
        let last = lines.last().unwrap();
        let command = if position.is_empty() { "position startpos" } else { position };
        let pos = position_after(command, self.chess960)
            .unwrap_or_else(|| panic!("tests search valid positions only: '{position}'"));
        if let Err(why) = check_bestmove(last, &pos) {
            panic!("'{last}' after '{position}' and '{go}': {why}");
        }
        let best = last.split_whitespace().nth(1).unwrap().to_string();
        (best, lines)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `line` is `bestmove <m> [ponder <p>]` with moves legal in `pos` (written in its notation), or
/// `bestmove 0000` when there is none.
pub fn check_bestmove(line: &str, pos: &Position) -> Result<(), String> {
    let find = |pos: &Position, text: &str| {
        pos.legal_moves().into_iter().find(|m: &Move| m.to_uci(pos.is_chess960()).to_string() == text)
    };
    let words: Vec<&str> = line.split_whitespace().collect();
    let (best, ponder) = match words.as_slice() {
        ["bestmove", "0000"] if !pos.has_legal_move() => return Ok(()),
        ["bestmove", best] => (*best, None),
        ["bestmove", best, "ponder", ponder] => (*best, Some(*ponder)),
        _ => return Err("malformed".into()),
    };
    let m = find(pos, best).ok_or("best move not legal")?;
    if let Some(p) = ponder {
        find(&pos.make_move(m), p).ok_or("ponder move not legal")?;
    }
    Ok(())
}

/// The position a `position startpos|fen ... [moves ...]` command sets, as UCI defines it: the
/// moves up to the first that is not legal (the engine keeps those and says the rest is an
/// error); `None` for a FEN that cannot be read (the engine keeps its previous position).
pub fn position_after(command: &str, chess960: bool) -> Option<Position> {
    let rest = command.trim().strip_prefix("position")?.trim();
    let (start, moves) = match rest.find(" moves") {
        Some(at) => (&rest[..at], rest[at + 6..].split_whitespace().collect::<Vec<_>>()),
        None => (rest, Vec::new()),
    };
    let mut pos = match start.trim() {
        "startpos" => Position::startpos(),
        other => Position::from_fen(other.strip_prefix("fen")?.trim()).ok()?,
    };
    pos.set_chess960(chess960 || pos.is_chess960());
    for text in moves {
        let Some(m) = pos.legal_moves().into_iter().find(|m: &Move| m.to_uci(pos.is_chess960()).to_string() == text)
        else {
            break;
        };
        pos = pos.make_move(m);
    }
    Some(pos)
}

/// Runs `work` on a thread of its own (16 MB of stack) and returns what it returns; fails if it
/// panics or has not finished within `limit` (a hang).
pub fn within<T: Send + 'static>(name: &str, limit: Duration, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = channel();
    let handle = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || {
            let _ = tx.send(work());
        })
        .unwrap();
    match rx.recv_timeout(limit) {
        Ok(value) => {
            handle.join().unwrap();
            value
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{name}: no answer within {limit:?} (a hang?)"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            let _ = handle.join();
            panic!("{name}: panicked");
        }
    }
}

/// Whether this run is CI's (`CI=true`, as `.ci/run` sets): there, data a test needs must be
/// present, and a missing piece is a failure instead of a skip.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Says loudly (past the test harness's capture) that `what` was not checked, and why; under
/// CI that is a failure instead.
pub fn skip(what: &str, why: &str) {
    assert!(!under_ci(), "{what}: {why} (CI must have it)");
    let _ = writeln!(std::io::stderr(), "\n*** SKIPPED {what}: {why} ***\n");
}

/// `../shared/data/<sub>` beside the checkout, or `None` when it is not there (after
/// [`skip`]: loud outside CI, a failure under it).
pub fn shared_data(sub: &str, what: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data").join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        skip(what, &format!("{} not found", dir.display()));
        None
    }
}
