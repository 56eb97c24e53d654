//! Helpers shared by the integration tests (each test file that needs them says `mod common;`).
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};
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
