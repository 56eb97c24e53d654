//! The UCI loop runs commands as if each ran in the order sent, only faster: a `stop` ends every
//! job sent before it (the one running and a `go` waiting behind it, which then answers at
//! once), and `readyok` comes only once everything sent before its `isready` is done. Driven as a
//! GUI or python-chess drives an engine: one write a line, with delays between the lines (a
//! single write of every line hides the races these tests are about).

use std::time::{Duration, Instant};

mod common;

use common::Engine;
use corvid::rng::Rng;
use corvid::Position;

/// The index of the first line that starts with `prefix`.
fn index_of(lines: &[String], prefix: &str) -> Option<usize> {
    lines.iter().position(|l| l.starts_with(prefix))
}

/// `bestmove <m> [ponder <p>]` with moves legal in `pos`, or `bestmove 0000` when it has none.
fn legal_answer(line: &str, pos: &Position) -> bool {
    common::check_bestmove(line, pos).is_ok()
}

#[test]
fn a_stop_after_commands_queued_behind_a_perft_ends_the_perft_and_they_run() {
    // The GUI sends a new game and its position before `stop`: the stop is for the perft
    // running before them, and `readyok` follows once they have run.
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 12");
    e.send_after(300, "ucinewgame");
    e.send_after(20, "position startpos moves e2e4");
    e.send_after(20, "stop");
    e.send_after(20, "isready");
    let lines = e.wait_for("readyok", 3000);
    let stopped = index_of(&lines, "info string perft stopped").expect("the perft was stopped");
    assert!(stopped < lines.len() - 1, "{lines:?}");
    // The position after e2e4 is the one set: Black is to move.
    e.send("go depth 1");
    let lines = e.wait_for("bestmove", 5000);
    let after_e4 = Position::startpos().make_move(Position::startpos().parse_uci_move("e2e4").unwrap());
    assert!(legal_answer(lines.last().unwrap(), &after_e4), "{lines:?}");
}

#[test]
fn a_stop_ends_a_go_infinite_queued_behind_a_perft_too() {
    // `go infinite` waits for the perft; the `stop` sent after it is for both: the search
    // starts and answers at once instead of running for ever.
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 9");
    e.send_after(100, "go infinite");
    e.send_after(20, "stop");
    let lines = e.wait_for("bestmove", 2000);
    let stopped = index_of(&lines, "info string perft stopped").expect("the perft was stopped");
    assert!(stopped < lines.len() - 1, "the perft ends before the search answers: {lines:?}");
    assert!(legal_answer(lines.last().unwrap(), &Position::startpos()), "{lines:?}");
    // Nothing else comes: no second answer, no search left running.
    let later = e.quiet_for(300);
    assert!(!later.iter().any(|l| l.starts_with("bestmove") || l.starts_with("info depth")), "{later:?}");
}

#[test]
fn readyok_comes_after_the_answers_a_stop_asked_for() {
    // `go depth 2` queued behind a perft, then `stop` and `isready`: the stopped perft's line
    // and the search's `bestmove` both come before `readyok`, so a driver that synchronises on
    // `readyok` never reads a stale move as the answer to its next `go`.
    for job in ["go perft 9", "bench 30"] {
        let mut e = Engine::start();
        e.send(job);
        e.send_after(100, "go depth 2");
        e.send("stop");
        e.send("isready");
        let lines = e.wait_for("readyok", 3000);
        let stopped = index_of(&lines, "info string").filter(|&i| lines[i].ends_with("stopped"));
        let best = index_of(&lines, "bestmove");
        assert!(stopped.is_some() && best.is_some(), "{job}: {lines:?}");
        assert!(stopped < best, "{job}: {lines:?}");
        assert!(legal_answer(&lines[best.unwrap()], &Position::startpos()), "{job}: {lines:?}");
        // The next search's answer is its own.
        e.send("position startpos moves g1f3");
        e.send("go depth 3");
        let lines = e.wait_for("bestmove", 5000);
        let after = Position::startpos().make_move(Position::startpos().parse_uci_move("g1f3").unwrap());
        assert!(legal_answer(lines.last().unwrap(), &after), "{job}: {lines:?}");
    }
}

#[test]
fn isready_waits_for_a_stopped_perft_to_say_so() {
    // `stop` then `isready` straight behind it, one write each.
    for _ in 0..5 {
        let mut e = Engine::start();
        e.send("go perft 9");
        e.send_after(50, "stop");
        e.send("isready");
        let lines = e.wait_for("readyok", 2000);
        assert!(index_of(&lines, "info string perft stopped").is_some(), "{lines:?}");
    }
}

#[test]
fn a_running_job_on_its_own_limits_answers_isready_at_once() {
    // Nothing queued: `isready` during a perft or a search is answered at once, as UCI says.
    let mut e = Engine::start();
    for job in ["go perft 9", "go infinite", "go depth 40"] {
        e.send(job);
        e.send_after(100, "isready");
        let t = Instant::now();
        let lines = e.wait_for("readyok", 1000);
        assert!(t.elapsed() < Duration::from_millis(300), "{job}: readyok after {:?}", t.elapsed());
        assert!(!lines.iter().any(|l| l.starts_with("bestmove")), "{job}: {lines:?}");
        e.send("stop");
        e.send("isready");
        e.wait_for("readyok", 2000);
    }
}

/// One command of the random sessions and what it does to the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A search: answered by `bestmove`.
    Go,
    /// `go perft` or `bench`: answered by its total or by its "stopped" line.
    Task,
    Stop,
    IsReady,
    /// `position`, `ucinewgame`, `setoption`: stops a search, waits for a task.
    State,
    Other,
}

/// The positions of the random sessions (and whose move parses them).
const POSITIONS: &[&str] = &[
    "position startpos",
    "position startpos moves e2e4 e7e5 g1f3",
    "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
    "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

fn model_position(line: &str) -> Position {
    let rest = line.strip_prefix("position ").unwrap();
    let (start, moves) = match rest.split_once(" moves ") {
        Some((s, m)) => (s, m.split_whitespace().collect::<Vec<_>>()),
        None => (rest, Vec::new()),
    };
    let mut pos = if start == "startpos" {
        Position::startpos()
    } else {
        Position::from_fen(start.strip_prefix("fen ").unwrap()).unwrap()
    };
    for m in moves {
        pos = pos.make_move(pos.parse_uci_move(m).unwrap());
    }
    pos
}

fn random_command(rng: &mut Rng) -> (String, Kind) {
    let pick = |rng: &mut Rng, items: &[&str]| items[rng.below(items.len())].to_string();
    match rng.below(100) {
        0..=9 => (pick(rng, POSITIONS), Kind::State),
        10..=13 => ("ucinewgame".into(), Kind::State),
        14..=16 => (pick(rng, &["setoption name Hash value 2", "setoption name MultiPV value 1"]), Kind::State),
        17..=24 => ("go perft 12".into(), Kind::Task),
        25..=27 => ("go perft 3".into(), Kind::Task),
        28..=30 => ("bench 30".into(), Kind::Task),
        31..=42 => (pick(rng, &["go depth 2", "go nodes 3000", "go movetime 20", "go wtime 200 btime 200"]), Kind::Go),
        43..=49 => ("go infinite".into(), Kind::Go),
        50..=52 => ("go ponder wtime 5000 btime 5000".into(), Kind::Go),
        53..=54 => ("ponderhit".into(), Kind::Other),
        55..=74 => ("stop".into(), Kind::Stop),
        75..=92 => ("isready".into(), Kind::IsReady),
        _ => ("d".into(), Kind::Other),
    }
}

/// Whether an output line is the last word of a job: its `bestmove`, or a perft's or bench's
/// total or "stopped" line.
fn ends_a_job(line: &str) -> bool {
    line.starts_with("bestmove")
        || line.starts_with("Nodes searched")
        || line == "info string perft stopped"
        || line == "info string bench stopped"
        || (line.ends_with(" nps") && line.contains(" nodes ") && !line.starts_with("info"))
}

#[test]
fn random_sessions_sent_line_by_line_keep_the_order() {
    // Sessions of 60 commands with random delays (0-30 ms, a third of them 0): every job gets
    // exactly one last word, in the order the jobs were sent; each `bestmove` is legal in the
    // position its `go` was sent in; and each `readyok` comes after the last word of every job
    // that a command sent before its `isready` ended: a `stop` ends every job before it, a
    // state command or a new job ends a search before it.
    let seed = std::env::var("CORVID_ORDER_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0D3E_5EED_u64);
    let mut rng = Rng::new(seed);
    for session in 0..6 {
        let mut e = Engine::start();
        let mut sent: Vec<(String, Kind)> = Vec::new();
        for _ in 0..60 {
            let (line, kind) = random_command(&mut rng);
            let delay = if rng.below(3) == 0 { 0 } else { rng.below(31) as u64 };
            e.send_after(delay, &line);
            sent.push((line, kind));
        }
        e.send("stop");
        sent.push(("stop".into(), Kind::Stop));
        e.send("isready");
        sent.push(("isready".into(), Kind::IsReady));
        let readies = sent.iter().filter(|(_, k)| *k == Kind::IsReady).count();
        let mut out = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(20);
        while out.iter().filter(|l: &&String| *l == "readyok").count() < readies {
            let left = deadline.saturating_duration_since(Instant::now());
            match e.lines.recv_timeout(left) {
                Ok(line) => out.push(line),
                Err(_) => panic!(
                    "session {session}: {} readyok of {readies}; sent {sent:?}; got {out:?}",
                    out.iter().filter(|l| *l == "readyok").count()
                ),
            }
        }
        out.extend(e.quiet_for(200));

        // The model: each job's position, and for each isready how many jobs must have ended.
        let mut pos = Position::startpos();
        let mut jobs: Vec<(Kind, Position, String)> = Vec::new();
        let mut must_have_ended = Vec::new();
        let mut ended_by_now = 0;
        for (line, kind) in &sent {
            match kind {
                Kind::Go => {
                    // A new job ends a search before it (and waits for a task).
                    if jobs.last().is_some_and(|j| j.0 == Kind::Go) {
                        ended_by_now = jobs.len();
                    }
                    jobs.push((Kind::Go, pos, line.clone()));
                }
                Kind::Task => {
                    if jobs.last().is_some_and(|j| j.0 == Kind::Go) {
                        ended_by_now = jobs.len();
                    }
                    jobs.push((Kind::Task, pos, line.clone()));
                }
                Kind::Stop => ended_by_now = jobs.len(),
                Kind::State => {
                    if jobs.last().is_some_and(|j| j.0 == Kind::Go) {
                        ended_by_now = jobs.len();
                    }
                    if line.starts_with("position") {
                        pos = model_position(line);
                    } else if line == "ucinewgame" {
                        pos = Position::startpos();
                    }
                }
                Kind::IsReady => must_have_ended.push(ended_by_now),
                Kind::Other => {}
            }
        }
        let words: Vec<&String> = out.iter().filter(|l| ends_a_job(l)).collect();
        assert_eq!(words.len(), jobs.len(), "session {session}: one last word a job; sent {sent:?}; got {out:?}");
        for (i, ((kind, pos, line), word)) in jobs.iter().zip(&words).enumerate() {
            match kind {
                Kind::Go => assert!(
                    legal_answer(word, pos),
                    "session {session}: job {i} '{line}' answered '{word}' in {}; got {out:?}",
                    pos.to_fen()
                ),
                _ => assert!(
                    !word.starts_with("bestmove"),
                    "session {session}: job {i} '{line}' answered '{word}'; sent {sent:?}; got {out:?}"
                ),
            }
        }
        let mut ended = 0;
        let mut ready = 0;
        for line in &out {
            if ends_a_job(line) {
                ended += 1;
            } else if line == "readyok" {
                assert!(
                    ended >= must_have_ended[ready],
                    "session {session}: readyok {ready} after {ended} jobs ended, {} should have; sent {sent:?}; got {out:?}",
                    must_have_ended[ready]
                );
                ready += 1;
            }
        }
        // And the engine is whole: a search from a position set now answers in it.
        e.send("position startpos moves d2d4");
        e.send("go depth 3");
        let lines = e.wait_for("bestmove", 5000);
        assert!(legal_answer(lines.last().unwrap(), &model_position("position startpos moves d2d4")), "{lines:?}");
    }
}
