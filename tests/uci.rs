//! Drives the engine over UCI as a match runner would: mates found with the right `score mate N`,
//! mated and stalemated roots, bad input, `bench` determinism, `go infinite` + `stop`, pondering,
//! and `quit` in the middle of a search.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::Engine;

fn last_score(lines: &[String]) -> Option<String> {
    let info = lines.iter().rev().find(|l| l.starts_with("info depth"))?;
    let words: Vec<&str> = info.split_whitespace().collect();
    let i = words.iter().position(|&w| w == "score")?;
    Some(format!("{} {}", words[i + 1], words[i + 2]))
}

#[test]
fn finds_mates_with_the_right_score() {
    let mut e = Engine::start();
    let cases = [
        ("position fen 1k6/8/1K6/8/8/8/8/7R w - - 0 1", "mate 1", "h1h8"),
        // Mate in 2: 1.Nf6+ gxf6 2.Bxf7#
        ("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", "mate 2", "d5f6"),
        // Mate in 3 (distance confirmed with Stockfish).
        ("position fen r1b3kr/ppp1Bp1p/1b6/n2P4/2p3q1/2Q2N2/P4PPP/RN2R1K1 w - - 1 1", "mate 3", ""),
    ];
    // `go mate N` searches until a mate in N or fewer is proven, however deep that takes (the
    // search's shape is not fixed: no depth is demanded), then reports its distance.
    for (position, score, best) in cases {
        let n = score.split_whitespace().nth(1).unwrap();
        let (got, lines) = e.search(position, &format!("go mate {n}"));
        assert_eq!(last_score(&lines).as_deref(), Some(score), "{position}: {lines:?}");
        if !best.is_empty() {
            assert_eq!(got, best, "{position}");
        }
    }
    // Being mated: the score is negative for the side to move (a node budget, no depth).
    let (_, lines) = e
        .search("position fen r2qkb1r/pp2nppp/3p1N2/2p1N1B1/2BnP3/3P4/PPP2PPP/R2bK2R b KQkq - 2 10", "go nodes 200000");
    assert_eq!(last_score(&lines).as_deref(), Some("mate -1"), "{lines:?}");
}

#[test]
fn mated_and_stalemated_roots_answer_0000() {
    let mut e = Engine::start();
    let (best, lines) =
        e.search("position fen rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", "go depth 5");
    assert_eq!(best, "0000");
    // A GUI shows the root's score: mated, or a draw.
    assert!(lines.iter().any(|l| l == "info depth 0 score mate 0"), "{lines:?}");
    let (best, lines) = e.search("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "go movetime 100");
    assert_eq!(best, "0000");
    assert!(lines.iter().any(|l| l == "info depth 0 score cp 0"), "{lines:?}");
    // still alive and playing
    let (best, _) = e.search("position startpos", "go depth 3");
    assert_ne!(best, "0000");
}

#[test]
fn every_go_is_answered_even_with_parameters_that_cannot_be_read() {
    let mut e = Engine::start();
    for go in ["go depth abc", "go foo", "go depth 3.5", "go nodes", "go depth movetime 200", "go wtime x btime y"] {
        // (`search` checks that the move is legal after 1.e4.)
        let (_, lines) = e.search("position startpos moves e2e4", go);
        if go != "go depth 3.5" {
            assert!(lines.iter().any(|l| l.starts_with("info string error: go:")), "{go}: {lines:?}");
        }
        // Exactly one answer: nothing more arrives.
        let more = e.quiet_for(300);
        assert!(!more.iter().any(|l| l.starts_with("bestmove")), "{go}: {more:?}");
    }
}

#[test]
fn a_node_limit_below_one_iteration_still_compares_every_move() {
    // Mate in one: even ten nodes play the mate, found by a complete first iteration.
    let mut e = Engine::start();
    for nodes in [1, 10, 50] {
        let (best, lines) = e.search("position fen 1k6/8/1K6/8/8/8/8/7R w - - 0 1", &format!("go nodes {nodes}"));
        assert_eq!(best, "h1h8", "go nodes {nodes}: {lines:?}");
        assert_eq!(last_score(&lines).as_deref(), Some("mate 1"), "{lines:?}");
    }
}

#[test]
fn bad_input_never_confuses_the_engine() {
    // Each bad line on its own gets its own error, before the `readyok` that follows it; a
    // blank line is no command and gets nothing.
    let mut e = Engine::start();
    for (line, error) in [
        ("position fen not a fen", true),
        ("position fen 8/8/8/8/8/8/8/8 w - - 0 1", true),
        ("position startpos moves e2e4 e7e5 g1g8", true),
        ("position startpos moves e2e4 zz99", true),
        ("setoption name Hash value banana", true),
        ("setoption name Threads value 0", true),
        ("setoption name Nope value 3", true),
        // An unknown command is named on stderr, leaving the protocol's stream clean.
        ("xyzzy", false),
        ("", false),
        ("\t  ", false),
    ] {
        e.send(line);
        e.send("isready");
        let lines = e.wait_for("readyok", 10_000);
        let errors = lines.iter().filter(|l| l.starts_with("info string error")).count();
        assert_eq!(errors, usize::from(error), "'{line}': {lines:?}");
        assert_eq!(lines.len(), 1 + errors, "'{line}': {lines:?}");
    }
    // A `go` whose parameters cannot be read says so and still plays, once.
    let (_, lines) = e.search("position startpos", "go depth x");
    assert!(lines.iter().any(|l| l.starts_with("info string error: go")), "{lines:?}");
    // A clock already below zero is no error (some GUIs send it past their own grace): a move
    // at once, from a search of one iteration.
    let (_, lines) = e.search("position startpos", "go wtime -100 btime -100");
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("info depth 2 ")), "{lines:?}");
    // The illegal move left the game after 1.e4 e5, and the engine still plays from there.
    e.send("position startpos moves e2e4 e7e5 g1g8");
    e.send("d");
    let lines = e.wait_for("Fen:", 5000);
    assert_eq!(lines.last().unwrap(), "Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    // A move legal after 1.e4 e5 (checked by `search`).
    e.search("position startpos moves e2e4 e7e5 g1g8", "go depth 4");
    drop(e);
    // go without a position searches the start position
    let mut fresh = Engine::start();
    fresh.search("", "go depth 2");
}

/// The answers of `go`s sent after a refused position: each one error line and one `bestmove
/// 0000`, never a move of the position before.
fn refused_answers(e: &mut Engine, go: &str) -> Vec<String> {
    e.send(go);
    let lines = e.wait_for("bestmove", 10_000);
    assert_eq!(lines.last().unwrap(), "bestmove 0000", "'{go}': {lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info string error: no position")), "'{go}': {lines:?}");
    lines
}

#[test]
fn a_refused_position_is_never_searched_as_another_one() {
    // A GUI that sends a FEN Corvid refuses must not get a move of the position before (illegal
    // in the GUI's, or an analysis of the wrong board): every `go` answers `bestmove 0000` with
    // an error until a good `position` comes. Line by line, as a GUI sends them.
    let mut e = Engine::start();
    e.search("position startpos moves e2e4", "go depth 3");
    for bad in ["position fen 8/8/8/8/8/8/8/8 w - - 0 1", "position fen not a fen", "position", "position fen"] {
        e.send(bad);
        for go in ["go depth 3", "go movetime 50", "go nodes 1000", "go wtime 1000 btime 1000"] {
            refused_answers(&mut e, go);
        }
        e.send("go perft 2");
        e.send("d");
        e.send("isready");
        let lines = e.wait_for("readyok", 5_000);
        assert_eq!(lines.iter().filter(|l| l.starts_with("info string error: ")).count(), 2, "{bad}: {lines:?}");
        assert!(!lines.iter().any(|l| l.starts_with("Fen:") || l.contains("Nodes searched")), "{bad}: {lines:?}");
    }
    // Infinite and ponder: the `0000` waits for `stop` or `ponderhit`, as a search's move would.
    e.send("go infinite");
    assert!(!e.quiet_for(300).iter().any(|l| l.starts_with("bestmove")), "bestmove before stop");
    e.send("isready");
    e.wait_for("readyok", 1_000);
    e.send("stop");
    assert_eq!(e.wait_for("bestmove", 1_000).last().unwrap(), "bestmove 0000");
    e.send("go ponder wtime 1000 btime 1000");
    assert!(!e.quiet_for(300).iter().any(|l| l.starts_with("bestmove")), "bestmove before ponderhit");
    e.send("ponderhit");
    assert_eq!(e.wait_for("bestmove", 1_000).last().unwrap(), "bestmove 0000");
    assert!(!e.quiet_for(300).iter().any(|l| l.starts_with("bestmove")), "one bestmove a go");
    // A new position ends a waiting `go infinite` as it ends a search: its `0000` first, then
    // the good position is searched.
    e.send("go infinite");
    e.send_after(100, "position startpos moves d2d4");
    e.send("go depth 3");
    let mut lines = e.wait_for("bestmove", 5_000);
    lines.extend(e.wait_for("bestmove", 10_000));
    let answers: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(answers.len(), 2, "{lines:?}");
    assert_eq!(answers[0], "bestmove 0000");
    let after_d4 = common::position_after("position startpos moves d2d4", false).unwrap();
    common::check_bestmove(answers[1], &after_d4).unwrap();
    // `ucinewgame` starts from the standard position again.
    e.send("position fen not a fen");
    e.send("ucinewgame");
    e.search("", "go depth 3");
    // An illegal move in the list is not a refused position: the game up to it is searched
    // (as Stockfish does and GUIs' checkers expect).
    e.search("position startpos moves e2e4 e7e5 g1g8", "go depth 3");
    drop(e);

    // All at once, as a script sends it: each `go` answered once, in order.
    let mut e = Engine::start();
    for line in [
        "position fen not a fen",
        "go depth 5",
        "go infinite",
        "stop",
        "position startpos",
        "go depth 4",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "go nodes 5000",
        "isready",
    ] {
        e.send(line);
    }
    let lines = e.wait_for("readyok", 20_000);
    let answers: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(answers.len(), 4, "{lines:?}");
    assert_eq!(
        (answers[0].as_str(), answers[1].as_str(), answers[3].as_str()),
        ("bestmove 0000", "bestmove 0000", "bestmove 0000")
    );
    common::check_bestmove(answers[2], &corvid::Position::startpos()).unwrap();
}

#[test]
fn go_infinite_waits_for_stop_and_isready_answers_during_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    let early = e.quiet_for(300);
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {early:?}");
    let t = Instant::now();
    e.send("isready");
    e.wait_for("readyok", 1000);
    assert!(t.elapsed() < Duration::from_millis(500), "isready must be answered at once");
    e.send("stop");
    let lines = e.wait_for("bestmove", 1000);
    assert_eq!(lines.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
    // exactly one bestmove: nothing more arrives
    let after = e.quiet_for(300);
    assert!(!after.iter().any(|l| l.starts_with("bestmove")), "{after:?}");
    e.send("stop");
    assert!(e.quiet_for(200).is_empty(), "stop while idle writes nothing");
}

#[test]
fn ponder_then_ponderhit() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    e.send("go ponder wtime 2000 btime 2000");
    let early = e.quiet_for(300);
    assert!(!early.iter().any(|l| l.starts_with("bestmove")));
    e.send("ponderhit");
    let lines = e.wait_for("bestmove", 3000);
    assert!(lines.last().unwrap().starts_with("bestmove "));
}

#[test]
fn a_search_that_reaches_its_own_limit_in_infinite_mode_waits_for_stop() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite depth 3");
    let early = e.quiet_for(500);
    assert!(early.iter().any(|l| l.starts_with("info depth 3 ")), "the search ran: {early:?}");
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {early:?}");
    e.send("stop");
    e.wait_for("bestmove", 1000);
    // A mate limit is the search's own too.
    e.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    e.send("go infinite mate 1");
    let early = e.quiet_for(500);
    assert!(early.iter().any(|l| l.contains("score mate 1")), "{early:?}");
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {early:?}");
    e.send("stop");
    let lines = e.wait_for("bestmove", 1000);
    assert_eq!(lines.last().unwrap(), "bestmove a1a8");
}

#[test]
fn a_ponder_search_that_reaches_its_depth_waits_for_ponderhit_or_stop() {
    let mut e = Engine::start();
    for release in ["ponderhit", "stop"] {
        e.send("position startpos moves e2e4");
        e.send("go ponder depth 2 wtime 60000 btime 60000");
        let early = e.quiet_for(500);
        assert!(early.iter().any(|l| l.starts_with("info depth 2 ")), "the search ran: {early:?}");
        assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before {release}: {early:?}");
        let t = Instant::now();
        e.send(release);
        e.wait_for("bestmove", 1000);
        assert!(t.elapsed() < Duration::from_millis(300), "{release} answered after {:?}", t.elapsed());
    }
}

impl Engine {
    /// Starts `job` (`go perft 9`, `bench 30`: minutes of work), checks that `isready` is
    /// answered at once while it runs and that `stop` ends it with `stopped`; returns the lines
    /// up to that one.
    fn job_answers_isready_and_stops(&mut self, job: &str, stopped: &str) -> Vec<String> {
        self.send(job);
        std::thread::sleep(Duration::from_millis(150));
        let t = Instant::now();
        self.send("isready");
        self.wait_for("readyok", 1000);
        assert!(t.elapsed() < Duration::from_millis(300), "isready waited {:?} for '{job}'", t.elapsed());
        self.send("stop");
        self.wait_for(stopped, 1000)
    }
}

#[test]
fn go_perft_runs_beside_the_loop_and_stops() {
    let mut e = Engine::start();
    e.send("position startpos");
    let lines = e.job_answers_isready_and_stops("go perft 9", "info string perft stopped");
    assert!(!lines.iter().any(|l| l.starts_with("Nodes searched")), "a stopped perft gives no total: {lines:?}");
    // The engine is whole afterwards: a new perft counts right.
    e.send("go perft 3");
    let lines = e.wait_for("Nodes searched", 5000);
    assert_eq!(lines.last().unwrap(), "Nodes searched: 8902");
    // And quit ends a long one at once.
    e.send("go perft 9");
    std::thread::sleep(Duration::from_millis(100));
    e.quits_within(Duration::from_millis(500));
}

#[test]
fn commands_behind_a_perft_or_bench_still_hear_stop_and_quit() {
    // A command that must wait for the job (position, ucinewgame, setoption, go, bench) does
    // not stop the loop from reading the `stop` and `quit` behind it. The `stop` ends the job
    // and the waiting command if that is a job too (a search answers at once, a bench says it
    // was stopped), all before the `readyok` of the `isready` sent after it (tests/order.rs
    // has these orders line by line with delays).
    for (job, waiting, last_word) in [
        ("go perft 12", "position startpos", None),
        ("bench 30", "ucinewgame", None),
        ("go perft 12", "setoption name Hash value 2", None),
        ("bench 30", "go depth 3", Some("bestmove")),
        ("go perft 12", "bench 30", Some("info string bench stopped")),
    ] {
        let mut e = Engine::start();
        e.send(job);
        e.send(waiting);
        e.send("stop");
        e.send("isready");
        let lines = e.wait_for("readyok", 3000);
        let stopped = if job == "bench 30" { "info string bench stopped" } else { "info string perft stopped" };
        assert!(lines.iter().any(|l| l == stopped), "{job}, {waiting}: {lines:?}");
        if let Some(word) = last_word {
            assert_eq!(lines.iter().filter(|l| l.starts_with(word)).count(), 1, "{job}, {waiting}: {lines:?}");
        }
        e.send("isready");
        let lines = e.wait_for("readyok", 3000);
        assert_eq!(lines, ["readyok"], "nothing is left running: {job}, {waiting}");
        e.send(job);
        e.send(waiting);
        std::thread::sleep(Duration::from_millis(50));
        e.quits_within(Duration::from_millis(1000));
    }
}

#[test]
fn the_end_of_input_ends_a_perft_or_bench() {
    for job in ["go perft 12", "bench 30"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_corvid"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{job}").unwrap();
        std::thread::sleep(Duration::from_millis(100));
        drop(stdin);
        let t = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if t.elapsed() > Duration::from_secs(3) {
                let _ = child.kill();
                panic!("{job}: still running after its input closed");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[test]
fn many_threads_keep_the_limits_and_hear_quit() {
    // Far more threads than cores: the engine starts at most eight a core and says so, the
    // threads are kept between searches, a short search still answers in time for its clock,
    // and quit is heard during a search.
    let mut e = Engine::start();
    e.send("setoption name Threads value 1000");
    e.send("isready");
    // Each thread allocates its worker before readyok: more than 20 s for a thousand on two
    // busy cores once (it failed so under two busy loops): a bound for a hang, not a speed.
    let lines = e.wait_for("readyok", 180_000);
    assert!(lines.iter().any(|l| l.starts_with("info string Threads 1000: searching with ")), "{lines:?}");
    for _ in 0..3 {
        let t = Instant::now();
        e.search("position startpos", "go wtime 2000 btime 2000");
        assert!(t.elapsed() < Duration::from_millis(2000), "lost on time: {:?}", t.elapsed());
    }
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    // Ending a thousand searching threads takes the system a while when the cores are busy
    // with other work (over 5 s under two busy loops): the bound is for a quit never heard.
    e.quits_within(Duration::from_secs(60));
}

#[test]
fn bench_runs_beside_the_loop_and_stops() {
    let mut e = Engine::start();
    let lines = e.job_answers_isready_and_stops("bench 30", "info string bench stopped");
    assert!(!lines.iter().any(|l| l.ends_with(" nps")), "a stopped bench gives no total: {lines:?}");
    e.send("bench 30");
    std::thread::sleep(Duration::from_millis(200));
    e.quits_within(Duration::from_millis(500));
}

#[test]
fn bench_is_deterministic_in_one_process() {
    let mut e = Engine::start();
    e.send("bench 6");
    let first = e.wait_for_nodes();
    assert!(first > 0);
    e.send("ucinewgame");
    e.send("bench 6");
    assert_eq!(e.wait_for_nodes(), first, "after ucinewgame");
    // After a search that taught the engine's own workers and table something.
    e.send("position startpos moves e2e4 c7c5");
    e.send("go depth 9");
    e.wait_for("bestmove", 30_000);
    e.send("bench 6");
    assert_eq!(e.wait_for_nodes(), first, "after a search");
    e.send("bench 6");
    assert_eq!(e.wait_for_nodes(), first, "twice in a row");
}

#[test]
fn bench_is_deterministic() {
    let run = |extra: &str| {
        let mut e = Engine::start();
        if !extra.is_empty() {
            e.send(extra);
        }
        e.send("bench 6");
        e.wait_for_nodes()
    };
    let a = run("");
    assert!(a > 0);
    assert_eq!(a, run("ucinewgame"));
    assert_eq!(a, run("setoption name Hash value 64"));
}

impl Engine {
    fn wait_for_nodes(&mut self) -> u64 {
        let deadline = Instant::now() + Duration::from_secs(60);
        while let Ok(line) = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            let words: Vec<&str> = line.split_whitespace().collect();
            if let [n, "nodes", _, "nps"] = words.as_slice() {
                return n.parse().unwrap();
            }
        }
        panic!("no '<N> nodes <M> nps' line");
    }
}

impl Engine {
    /// Sends `quit` and checks that the process is gone within `limit`.
    fn quits_within(&mut self, limit: Duration) {
        let t = Instant::now();
        self.send("quit");
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            assert!(t.elapsed() < limit, "quit took more than {limit:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

#[test]
fn quit_ends_the_process_mid_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.quits_within(Duration::from_millis(200));
}

/// The time budget the engine computes for `go` in `position` with the default Move Overhead.
fn budget(position: &str, go: &str) -> corvid::search::TimeBudget {
    let pos = common::position_after(position, false).unwrap();
    let words: Vec<&str> = go.split_whitespace().collect();
    let ms =
        |key: &str| words.iter().position(|&w| w == key).map(|i| Duration::from_millis(words[i + 1].parse().unwrap()));
    let own = if pos.side_to_move() == corvid::Color::White { "wtime" } else { "btime" };
    let inc = if pos.side_to_move() == corvid::Color::White { "winc" } else { "binc" };
    let limits = corvid::search::Limits {
        clock: ms(own).map(|time| corvid::search::Clock {
            time,
            increment: ms(inc).unwrap_or_default(),
            moves_to_go: words.iter().position(|&w| w == "movestogo").map(|i| words[i + 1].parse().unwrap()),
        }),
        movetime: ms("movetime"),
        ..Default::default()
    };
    let overhead = Duration::from_millis(corvid::uci::options::Options::default().move_overhead_ms);
    corvid::search::TimeBudget::new(&limits, overhead, u32::from(pos.fullmove_number()))
}

/// The `time` (ms) of the last info line: how long the engine says it searched.
fn reported_ms(lines: &[String]) -> Option<u64> {
    let info = lines.iter().rev().find(|l| l.starts_with("info") && l.contains(" time "))?;
    field(info, "time")?.split_whitespace().next()?.parse().ok()
}

#[test]
fn short_clocks_still_get_a_legal_move_in_time() {
    // The engine's own account of its time (the `time` of its last report) never reaches past
    // what the GUI gave it: its hard limit plus the Move Overhead it keeps in hand for the
    // stop check's granularity, a thread preempted on a loaded machine, and the report. The
    // wall clock here only guards against a hang, since a loaded two-core machine delays the
    // pipes by tens of milliseconds.
    let mut e = Engine::start();
    let position = "position startpos moves e2e4 e7e5";
    for go in ["go wtime 100 btime 100", "go wtime 20 btime 20", "go movetime 50", "go wtime 300 btime 300 movestogo 1"]
    {
        let hard = budget(position, go).hard.unwrap();
        assert!(hard < Duration::from_millis(300), "{go}: {hard:?}");
        let t = Instant::now();
        let (_, lines) = e.search(position, go);
        assert!(t.elapsed() < Duration::from_secs(2), "{go}: a hang, {:?}", t.elapsed());
        let spent = reported_ms(&lines).unwrap_or_else(|| panic!("{go}: no report with a time: {lines:?}"));
        let overhead = corvid::uci::options::Options::default().move_overhead_ms;
        assert!(spent <= hard.as_millis() as u64 + overhead, "{go}: searched {spent} ms, hard limit {hard:?}");
    }
}

#[test]
fn node_and_depth_limits_are_exact() {
    // One thread: `go nodes N` stops at N nodes once the first iteration is done (it always
    // completes, to compare every move), and `go depth N` reports depth N and nothing deeper.
    let mut e = Engine::start();
    for nodes in [5_000u64, 20_000, 123_457] {
        let (_, lines) = e.search("position startpos moves d2d4", &format!("go nodes {nodes}"));
        // The closing report, after the last iteration's lines, counts every node searched.
        assert_eq!(total_nodes(&lines), nodes, "{lines:?}");
    }
    for depth in [1, 5, 9] {
        let (_, lines) = e.search("position startpos", &format!("go depth {depth}"));
        let deepest = lines
            .iter()
            .filter_map(|l| l.strip_prefix("info depth ")?.split_whitespace().next()?.parse::<i32>().ok())
            .max();
        assert_eq!(deepest, Some(depth), "{lines:?}");
    }
}

#[test]
fn ponderhit_starts_the_clock() {
    // After pondering 2.5 s, the limits count from `ponderhit` (when our clock started), not
    // from `go ponder`: the engine then still thinks until at least its soft limit scaled by
    // the most the time manager can take off (the least stability factor, a quarter off for a
    // rising score, the least node factor), and at most its hard limit. Limits counted from
    // `go ponder` would be long past and answer at once. The search's own `time` counts from
    // `go`; the wall clock from `ponderhit` bounds it from below, and the pipes add to it.
    let position = "position startpos moves e2e4";
    let go = "go wtime 20000 btime 20000";
    let b = budget(position, go);
    let (soft, hard) = (b.soft.unwrap(), b.hard.unwrap());
    let p = |name: &str| f64::from(corvid::search::params::value(name).unwrap());
    let least_stability = (0..7).map(|i| p(&format!("TIME_STABILITY_{i}"))).fold(f64::MAX, f64::min) / 100.0;
    let least_nodes = (p("TIME_NODE_BASE") / 100.0 - 1.0) * p("TIME_NODE_FACTOR") / 100.0;
    let least = soft.mul_f64(least_stability * 0.75 * least_nodes);
    assert!(least > Duration::from_millis(50), "{least:?}: too short to tell from an answer at once");
    let mut e = Engine::start();
    e.send(position);
    e.send(&format!("go ponder {}", go.strip_prefix("go ").unwrap()));
    let early = e.quiet_for(2500);
    assert!(!early.iter().any(|l| l.starts_with("bestmove")));
    let t = Instant::now();
    e.send("ponderhit");
    let lines = e.wait_for("bestmove", 5000);
    let waited = t.elapsed();
    assert!(waited >= least, "answered {waited:?} after ponderhit, before {least:?}");
    assert!(waited <= hard + Duration::from_millis(500), "answered {waited:?} after ponderhit; hard limit {hard:?}");
    common::check_bestmove(lines.last().unwrap(), &common::position_after(position, false).unwrap()).unwrap();
}

/// The words after `key` in an info line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words.iter().position(|&w| w == key)?;
    words.get(i + 1).copied()
}

#[test]
fn multipv_reports_ordered_distinct_lines() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 3");
    let (best, lines) = e.search("position startpos", "go depth 8");
    let last: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 8 ")).collect();
    assert_eq!(last.len(), 3, "{lines:?}");
    let mut firsts = Vec::new();
    let mut scores = Vec::new();
    for (k, line) in last.iter().enumerate() {
        assert_eq!(field(line, "multipv"), Some((k + 1).to_string().as_str()), "{line}");
        scores.push(field(line, "cp").unwrap().parse::<i32>().unwrap());
        firsts.push(field(line, "pv").unwrap().to_string());
    }
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "lines out of order: {scores:?}");
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "each line starts with another move: {last:?}");
    assert_eq!(field(last[0], "pv"), Some(best.as_str()), "bestmove is the first line's move");
    // Fewer legal moves than lines: one line per move.
    e.send("setoption name MultiPV value 8");
    let (_, lines) = e.search("position fen 7k/8/8/8/8/8/6PP/7K w - - 0 1", "go depth 4");
    assert_eq!(lines.iter().filter(|l| l.starts_with("info depth 4 ")).count(), 5, "Kg1, g3, g4, h3, h4: {lines:?}");
}

#[test]
fn show_wdl_adds_permille_chances() {
    let mut e = Engine::start();
    e.send("setoption name UCI_ShowWDL value true");
    let (_, lines) = e.search("position startpos", "go depth 5");
    for line in lines.iter().filter(|l| l.starts_with("info depth")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let i = words.iter().position(|&w| w == "wdl").expect("wdl field");
        let wdl: Vec<u32> = words[i + 1..i + 4].iter().map(|w| w.parse().unwrap()).collect();
        assert_eq!(wdl.iter().sum::<u32>(), 1000, "{line}");
    }
    // A won position shows mostly wins.
    let (_, lines) = e.search("position fen 4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1", "go depth 5");
    let line = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert_eq!(field(line, "wdl"), Some("1000"), "{line}");
}

#[test]
fn threads_search_vote_and_stop_quickly() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.search("position startpos moves e2e4", "go depth 8");
    // Both threads end on `stop`.
    e.send("go infinite");
    e.quiet_for(300);
    let t = Instant::now();
    e.send("stop");
    e.wait_for("bestmove", 1000);
    assert!(t.elapsed() < Duration::from_millis(100), "stop took {:?}", t.elapsed());
    // Changing Threads and Hash between searches is safe.
    for (threads, hash) in [(3, 8), (1, 32), (2, 1)] {
        e.send(&format!("setoption name Threads value {threads}"));
        e.send(&format!("setoption name Hash value {hash}"));
        e.search("position startpos", "go movetime 50");
    }
    // `go nodes` counts the nodes of both threads: the closing totals line shows about the limit.
    e.send("setoption name Threads value 2");
    let (_, lines) = e.search("position startpos", "go nodes 200000");
    let totals = &lines[lines.len() - 2];
    let nodes: u64 = field(totals, "nodes").and_then(|n| n.parse().ok()).expect(totals);
    assert!(totals.starts_with("info nodes") && (200_000..=215_000).contains(&nodes), "{totals}");
    // A mate is found and played with two threads.
    let (best, lines) = e.search("position fen 1k6/8/1K6/8/8/8/8/7R w - - 0 1", "go depth 6");
    assert_eq!(best, "h1h8");
    assert_eq!(last_score(&lines).as_deref(), Some("mate 1"));
}

#[test]
fn searchmoves_and_go_mate() {
    let mut e = Engine::start();
    let (best, _) = e.search("position startpos", "go depth 5 searchmoves a2a3 h2h3");
    assert!(best == "a2a3" || best == "h2h3", "{best}");
    // `go mate 2` stops once the mate in 2 is proven.
    let (best, lines) =
        e.search("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", "go mate 2");
    assert_eq!(best, "d5f6");
    assert_eq!(last_score(&lines).as_deref(), Some("mate 2"));
}

#[test]
fn a_hash_too_large_for_the_machine_is_refused_and_the_table_kept() {
    let mut e = Engine::start();
    e.send("setoption name Hash value 33554432");
    e.send("isready");
    let lines = e.wait_for("readyok", 10_000);
    assert!(lines.iter().any(|l| l.contains("cannot allocate 33554432 MB")), "{lines:?}");
    e.search("position startpos", "go depth 6");
    e.send("setoption name Hash value 64");
    e.send("isready");
    let lines = e.wait_for("readyok", 10_000);
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
}

#[test]
fn chess960_castling_in_and_out() {
    let mut e = Engine::start();
    // Standard chess: castling is the king's two-square move.
    let (best, _) = e.search("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "go depth 3 searchmoves e1g1");
    assert_eq!(best, "e1g1");
    // Chess960: king takes rook, from Shredder-FEN (HBha) and X-FEN (KQkq: the outer rooks).
    e.send("setoption name UCI_Chess960 value true");
    for fen in ["r3k2r/8/8/8/8/8/8/1R2K2R w HBha - 0 1", "r3k2r/8/8/8/8/8/8/1R2K2R w KQkq - 0 1"] {
        let (best, lines) = e.search(&format!("position fen {fen}"), "go depth 3 searchmoves e1b1");
        assert_eq!(best, "e1b1", "{lines:?}");
        let (best, _) = e.search(&format!("position fen {fen}"), "go depth 3 searchmoves e1h1");
        assert_eq!(best, "e1h1", "{fen}");
        // The castling moves are accepted in a move list and land king and rook where they belong.
        e.send(&format!("position fen {fen} moves e1b1 e8h8"));
        e.send("d");
        let fen_line = e.wait_for("Fen:", 5000).pop().unwrap();
        assert!(fen_line.starts_with("Fen: r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2"), "{fen_line}");
    }
    // Chosen by the search, not forced: with the king on b1 beside its rook on a1, castling
    // long (king to c1, rook to d1) is the only mate; the rook cannot reach d1 on its own.
    let (best, lines) = e.search("position fen 2rkr3/2p1p3/8/8/8/8/PP6/RK6 w A - 0 1", "go depth 6");
    assert_eq!(best, "b1a1", "{lines:?}");
    assert_eq!(last_score(&lines).as_deref(), Some("mate 1"), "{lines:?}");
}

#[test]
fn a_line_that_is_not_utf8_is_just_bad_input() {
    let mut e = Engine::start();
    e.stdin.write_all(b"isready\n\xff\xfe garbage\nposition fen \xe9\n").unwrap();
    e.send("isready");
    e.wait_for("readyok", 5000);
    e.wait_for("readyok", 5000);
    e.search("position startpos", "go depth 3");
}

#[test]
fn the_network_evaluation_searches_and_reports() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.wait_for("uciok", 5000);
    assert!(lines.iter().any(|l| l == "option name UseNNUE type check default true"), "{lines:?}");
    let (best, lines) = e.search("position fen 1k6/8/1K6/8/8/8/8/7R w - - 0 1", "go mate 1");
    assert_eq!(last_score(&lines).as_deref(), Some("mate 1"), "{lines:?}");
    assert_eq!(best, "h1h8");
    let (_, lines) =
        e.search("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", "go mate 2");
    assert_eq!(last_score(&lines).as_deref(), Some("mate 2"), "{lines:?}");
    // A queen up: the network's search sees it.
    let (_, lines) = e.search("position fen 4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1", "go depth 6");
    let score = last_score(&lines).unwrap();
    let cp: i32 = score.strip_prefix("cp ").and_then(|v| v.parse().ok()).unwrap_or(0);
    assert!(cp > 500, "{score}");
    e.send("eval");
    let lines = e.wait_for("network evaluation", 5_000);
    assert!(lines.iter().any(|l| l.starts_with("final evaluation")), "{lines:?}");
    e.send("setoption name UseNNUE value maybe");
    e.send("isready");
    let lines = e.wait_for("readyok", 5_000);
    assert!(lines.iter().any(|l| l.contains("UseNNUE")), "{lines:?}");
    // Off: the hand-crafted evaluation alone still mates.
    e.send("setoption name UseNNUE value false");
    let (best, lines) = e.search("position fen 1k6/8/1K6/8/8/8/8/7R w - - 0 1", "go depth 6");
    assert_eq!(last_score(&lines).as_deref(), Some("mate 1"), "{lines:?}");
    assert_eq!(best, "h1h8");
}

/// The `network evaluation N cp` of `eval` in the current position.
fn network_eval(e: &mut Engine) -> i32 {
    e.send("eval");
    let lines = e.wait_for("network evaluation", 5_000);
    let words: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    words[2].parse().unwrap()
}

#[test]
fn evalfile_loads_a_network_and_refuses_bad_files_keeping_the_one_in_use() {
    let dir = std::env::temp_dir().join(format!("corvid-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let embedded = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/src/nnue/corvid.nnue")).unwrap();
    // Another network of the same layout: every output bias raised by 1.5 pawns' worth.
    let mut other = embedded.clone();
    let biases = other.len() - 32;
    for chunk in other[biases..].chunks_exact_mut(4) {
        let b = i32::from_le_bytes(chunk.try_into().unwrap()) + 150 * 255 * 64 / 400;
        chunk.copy_from_slice(&b.to_le_bytes());
    }
    let mut overflowing = embedded.clone();
    overflowing[12..14].copy_from_slice(&5000i16.to_le_bytes());
    let files = [("other.nnue", &other[..]), ("short.nnue", &embedded[..1000]), ("overflow.nnue", &overflowing[..])];
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();

    let mut e = Engine::start();
    let lines = e.wait_for_option_list();
    assert!(lines.iter().any(|l| l == "option name EvalFile type string default <embedded>"), "{lines:?}");
    e.send("position startpos moves e2e4");
    let base = network_eval(&mut e);
    e.send(&format!("setoption name EvalFile value {}", path("other.nnue")));
    let lines = e.wait_for("info string EvalFile", 5_000);
    assert!(lines.last().unwrap().contains("loaded"), "{lines:?}");
    let white_to_move_gain = base - network_eval(&mut e);
    assert!((140..=160).contains(&white_to_move_gain.abs()), "the new network evaluates: {white_to_move_gain}");
    let (best, _) = e.search("position startpos moves e2e4", "go depth 6");
    assert_ne!(best, "0000");
    // Bad files are refused with the reason, and the loaded network stays.
    for (name, reason) in
        [("missing.nnue", "(os error 2)"), ("short.nnue", "1000 bytes"), ("overflow.nnue", "feature weight 5000")]
    {
        e.send(&format!("setoption name EvalFile value {}", path(name)));
        let lines = e.wait_for("info string error: EvalFile", 5_000);
        let line = lines.last().unwrap();
        assert!(line.contains(reason) && line.contains("still using") && line.contains("other.nnue"), "{line}");
    }
    e.send("position startpos moves e2e4");
    assert_eq!(base - network_eval(&mut e), white_to_move_gain, "the network in use was kept");
    // `bench` searches with the network loaded, as the searches do.
    e.send("bench 6");
    let other_bench = e.wait_for_nodes();
    e.send("setoption name EvalFile value <embedded>");
    e.wait_for("info string EvalFile: the embedded network", 5_000);
    assert_eq!(network_eval(&mut e), base);
    e.send("bench 6");
    let embedded_bench = e.wait_for_nodes();
    assert_ne!(other_bench, embedded_bench, "bench 6 searched the same with both networks");
    e.send(&format!("setoption name EvalFile value {}", path("other.nnue")));
    e.wait_for("info string EvalFile", 5_000);
    e.send("bench 6");
    assert_eq!(e.wait_for_nodes(), other_bench, "bench with a network is its own signature");
    std::fs::remove_dir_all(&dir).ok();
}

impl Engine {
    /// Sends `uci` and returns the lines up to `uciok`.
    fn wait_for_option_list(&mut self) -> Vec<String> {
        self.send("uci");
        self.wait_for("uciok", 5_000)
    }
}

/// The `nodes` of the search's closing `info nodes ...` line.
fn total_nodes(lines: &[String]) -> u64 {
    let last = lines.iter().rev().find(|l| l.starts_with("info nodes")).expect("a closing info line");
    field(last, "nodes").unwrap().parse().unwrap()
}

#[test]
fn limited_strength_searches_less_and_still_takes_a_hanging_queen() {
    let mut e = Engine::start();
    // Full strength to depth 12 first, then the lowest level: its node budget ends the search.
    let (_, full) = e.search("position startpos", "go depth 12");
    assert!(total_nodes(&full) > 5_000, "{full:?}");
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1000");
    let (_, weak) = e.search("position startpos", "go depth 12");
    assert!(total_nodes(&weak) <= 60, "the 1000 level's budget is 50 nodes: {weak:?}");
    // A queen left hanging is taken even so (the evaluation errors are far smaller than a queen).
    for _ in 0..3 {
        e.send("ucinewgame");
        let (best, lines) = e.search(
            "position fen rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3",
            "go wtime 60000 btime 60000",
        );
        assert_eq!(best, "f3h4", "{lines:?}");
    }
    // However small its budget, the level compares every move at depth 1 before it plays one:
    // in middlegames of 30-50 moves, and a mate in one is played.
    for fen in [
        "r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14",
        "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
        "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
        "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    ] {
        let (best, lines) = e.search(&format!("position fen {fen}"), "go wtime 60000 btime 60000");
        let depth1 = lines.iter().rev().find(|l| l.starts_with("info depth ")).expect("an iteration is shown");
        assert!(field(depth1, "pv").is_some_and(|pv| pv == best), "{fen}: {lines:?}");
        assert!(!depth1.starts_with("info depth 0"), "{lines:?}");
    }
    let (best, _) = e.search("position fen 1k6/8/1K6/8/8/8/8/7R w - - 0 1", "go wtime 60000 btime 60000");
    assert_eq!(best, "h1h8");
    // Higher levels search more; out-of-range levels are refused and the level kept.
    e.send("setoption name UCI_Elo value 2000");
    let (_, mid) = e.search("position startpos", "go depth 30");
    // A level's budget is a node limit, exact with one thread.
    let budget = corvid::search::Weakness::at(2000, 0).nodes.unwrap();
    assert_eq!(total_nodes(&mid), budget, "2000 searches its budget of {budget} nodes");
    // Refused both (each with its error), the level stays 2000: the same budget, not the 50
    // nodes of level 1000 nor the unlimited search of full strength.
    for elo in [999, 2601] {
        e.send(&format!("setoption name UCI_Elo value {elo}"));
        e.send("isready");
        let said = e.wait_for("readyok", 5000);
        assert!(said.iter().any(|l| l.starts_with("info string error") && l.contains("UCI_Elo")), "{elo}: {said:?}");
    }
    let (_, still) = e.search("position startpos", "go depth 30");
    assert_eq!(total_nodes(&still), budget, "{still:?}");
    // In analysis (`UCI_AnalyseMode`) the level does not hold: full strength.
    e.send("setoption name UCI_AnalyseMode value true");
    let (_, analysis) = e.search("position startpos", "go depth 12");
    assert!(total_nodes(&analysis) > 5_000, "{analysis:?}");
    e.send("setoption name UCI_AnalyseMode value false");
    let (_, again) = e.search("position startpos", "go depth 30");
    assert_eq!(total_nodes(&again), budget, "{again:?}");
    // Off again: full strength.
    e.send("setoption name UCI_LimitStrength value false");
    let (_, off) = e.search("position startpos", "go depth 12");
    assert!(total_nodes(&off) > 5_000, "{off:?}");
}

#[test]
fn skill_level_plays_stockfishs_levels_unless_uci_limit_strength_says_otherwise() {
    use corvid::search::Weakness;
    use corvid::uci::options::skill_elo;
    let budget = |skill: u32| Weakness::at(skill_elo(skill).unwrap(), 0).nodes.unwrap();
    let mut e = Engine::start();
    // Pages written for Stockfish's worker set `Skill Level` first: 0 is its weakest level, a
    // node budget on the `UCI_Elo` scale, exact with one thread.
    e.send("setoption name Skill Level value 0");
    let (_, weak) = e.search("position startpos", "go depth 30");
    assert_eq!(total_nodes(&weak), budget(0), "{weak:?}");
    e.send("setoption name Skill Level value 10");
    let (_, mid) = e.search("position startpos", "go depth 30");
    assert_eq!(total_nodes(&mid), budget(10), "{mid:?}");
    assert!(budget(10) > budget(0));
    // Out of range: refused with an error, the level kept.
    for bad in ["21", "-1", "strong"] {
        e.send(&format!("setoption name Skill Level value {bad}"));
        e.send("isready");
        let said = e.wait_for("readyok", 5000);
        assert!(
            said.iter().any(|l| l.starts_with("info string error") && l.contains("Skill Level")),
            "{bad}: {said:?}"
        );
    }
    let (_, kept) = e.search("position startpos", "go depth 30");
    assert_eq!(total_nodes(&kept), budget(10), "{kept:?}");
    // `UCI_LimitStrength` decides between the two, as in Stockfish: on, `UCI_Elo` holds.
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 1000");
    let (_, elo) = e.search("position startpos", "go depth 30");
    assert!(total_nodes(&elo) <= 60, "{elo:?}");
    e.send("setoption name UCI_LimitStrength value false");
    let (_, back) = e.search("position startpos", "go depth 30");
    assert_eq!(total_nodes(&back), budget(10), "{back:?}");
    // Analysis is full strength whatever the level; so is level 20.
    e.send("setoption name UCI_AnalyseMode value true");
    let (_, analysis) = e.search("position startpos", "go depth 12");
    assert!(total_nodes(&analysis) > 5_000, "{analysis:?}");
    e.send("setoption name UCI_AnalyseMode value false");
    e.send("setoption name Skill Level value 20");
    let (_, full) = e.search("position startpos", "go depth 12");
    assert!(total_nodes(&full) > 5_000, "{full:?}");
}

#[test]
fn syzygy_options_report_what_they_found_and_the_search_uses_the_tables() {
    let Some(tables) = common::shared_data("syzygy", "the search's use of Syzygy tables") else { return };
    let tables = tables.to_str().unwrap();
    let mut e = Engine::start();
    // The list separator is ';' on Windows, ':' elsewhere.
    let sep = if cfg!(windows) { ';' } else { ':' };
    e.send(&format!("setoption name SyzygyPath value /no/such/dir{sep}{tables}"));
    e.send("isready");
    let lines = e.wait_for("readyok", 5000);
    assert!(lines.iter().any(|l| l.starts_with("info string error: SyzygyPath: /no/such/dir: ")), "{lines:?}");
    assert!(lines.iter().any(|l| l == "info string SyzygyPath: 40 WDL and 40 DTZ tables, up to 5 pieces"), "{lines:?}");
    // KRvK, won: the result is reported as a tablebase win, the probes counted.
    let (best, lines) = e.search("position fen 8/8/8/8/8/2k5/8/KR6 w - - 0 1", "go depth 6");
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert_eq!(field(last, "cp"), Some("20000"), "{last}");
    assert!(field(last, "tbhits").unwrap().parse::<u64>().unwrap() > 0, "{last}");
    assert_ne!(best, "0000");
    // KRvKR, drawn.
    let (_, lines) = e.search("position fen 8/8/8/3k4/3r4/8/3RK3/8 w - - 0 1", "go depth 6");
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert_eq!(field(last, "cp"), Some("0"), "{last}");
    // Off again: no probes.
    e.send("setoption name SyzygyPath value <empty>");
    let (_, lines) = e.search("position fen 8/8/8/8/8/2k5/8/KR6 w - - 0 1", "go depth 6");
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert_eq!(field(last, "tbhits"), Some("0"), "{last}");
}

#[test]
fn the_last_line_shown_begins_with_the_move_played() {
    // A node limit stops the search inside an iteration at a place that depends only on the
    // limit; across many limits about 2% of the stops fall where the unfinished iteration has
    // already preferred another move, which is then played (fastchess warns "Bestmove does not
    // match beginning of last PV" unless a line with that move is shown before it).
    let mut e = Engine::start();
    let mut searches = 0;
    for fen in corvid::bench::POSITIONS {
        for nodes in (1_000..6_000).step_by(250) {
            e.send("ucinewgame");
            let (best, lines) = e.search(&format!("position fen {fen}"), &format!("go nodes {nodes}"));
            // The first move of the last `info` line that carries a line.
            let last_pv = lines.iter().rev().find_map(|l| field(l, "pv").filter(|_| l.starts_with("info")));
            assert_eq!(last_pv, Some(best.as_str()), "{fen} nodes {nodes}: {lines:?}");
            searches += 1;
        }
    }
    assert_eq!(searches, 44 * 20);
}

#[test]
fn clear_hash_empties_the_table_and_keeps_the_rest() {
    // Three engines search the same position twice, learning the same histories the first time.
    // Between the searches one presses Clear Hash, one gets a fresh table by resizing (8 MB to
    // 16 and back), one keeps its table. The first two must search the second time exactly
    // alike (an empty table, the same histories); the third, helped by its table, differently.
    let position = "position fen r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let second = |between: &[&str]| {
        let mut e = Engine::start();
        e.send("setoption name Hash value 8");
        e.search(position, "go depth 9");
        for line in between {
            e.send(line);
        }
        let (_, lines) = e.search(position, "go depth 9");
        total_nodes(&lines)
    };
    let cleared = second(&["setoption name Clear Hash"]);
    let resized = second(&["setoption name Hash value 16", "setoption name Hash value 8"]);
    let kept = second(&[]);
    assert_eq!(cleared, resized, "Clear Hash leaves an empty table as a new one does");
    assert_ne!(cleared, kept, "the table kept changes the search (or the test shows nothing)");
}

#[test]
fn a_repetition_through_the_games_moves_is_a_draw() {
    // White, a queen and a rook up, and Black have shuffled their kings: Black's Kh8 now
    // brings the position after 0 moves back a third time. Black, lost otherwise, takes the
    // draw, with a score of 0. The same board without the game before it is simply lost.
    let start = "7k/6pp/8/8/8/8/8/QR4K1 w - - 0 1";
    let mut e = Engine::start();
    let (best, lines) =
        e.search(&format!("position fen {start} moves g1h1 h8g8 h1g1 g8h8 g1h1 h8g8 h1g1"), "go depth 8");
    assert_eq!(best, "g8h8", "{lines:?}");
    assert_eq!(last_score(&lines).as_deref(), Some("cp 0"), "{lines:?}");
    let after = "6k1/6pp/8/8/8/8/8/QR4K1 b - - 7 4";
    let (_, lines) = e.search(&format!("position fen {after}"), "go depth 8");
    let score = last_score(&lines).unwrap();
    let lost =
        score.starts_with("mate -") || score.strip_prefix("cp ").is_some_and(|cp| cp.parse::<i32>().unwrap() < -500);
    assert!(lost, "{score}");
}

#[test]
fn several_threads_report_multipv_lines_and_find_a_deeper_tactic() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 3");
    // MultiPV with helpers: the main thread's lines, best first, each from another move, the
    // move played first among them.
    e.send("setoption name MultiPV value 3");
    let (best, lines) = e.search("position startpos moves e2e4 e7e5", "go depth 9");
    let last: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 9 ")).collect();
    assert_eq!(last.len(), 3, "{lines:?}");
    let mut firsts: Vec<&str> = last.iter().map(|l| field(l, "pv").unwrap()).collect();
    let scores: Vec<i32> = last.iter().map(|l| field(l, "cp").unwrap().parse().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert_eq!(firsts[0], best);
    firsts.sort_unstable();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{last:?}");
    // A mate in three (confirmed with Stockfish) proven by three threads, searching and voting
    // together, with its distance.
    e.send("setoption name MultiPV value 1");
    for _ in 0..3 {
        e.send("ucinewgame");
        let (_, lines) =
            e.search("position fen r1b3kr/ppp1Bp1p/1b6/n2P4/2p3q1/2Q2N2/P4PPP/RN2R1K1 w - - 1 1", "go mate 3");
        assert_eq!(last_score(&lines).as_deref(), Some("mate 3"), "{lines:?}");
    }
}

#[test]
fn tablebase_results_follow_the_fifty_move_rule_and_its_options() {
    let Some(dir) = common::shared_data("syzygy", "the root's tablebase results") else { return };
    let tables = dir.to_str().unwrap();
    let wdl_only = std::env::temp_dir().join(format!("corvid-wdl-only-{}", std::process::id()));
    std::fs::create_dir_all(&wdl_only).unwrap();
    std::fs::copy(dir.join("KRvK.rtbw"), wdl_only.join("KRvK.rtbw")).unwrap();
    // The copy keeps the shared folder's read-only mode, which Windows will not delete.
    let mut mode = std::fs::metadata(wdl_only.join("KRvK.rtbw")).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    mode.set_readonly(false);
    std::fs::set_permissions(wdl_only.join("KRvK.rtbw"), mode).unwrap();
    let reader = corvid::syzygy::Tablebases::open(tables).0;
    let score_and_move = |options: &[String], fen: &str| {
        let mut e = Engine::start();
        for o in options {
            e.send(o);
        }
        let (best, lines) = e.search(&format!("position fen {fen}"), "go depth 8");
        let score = last_score(&lines).unwrap();
        let pos = corvid::Position::from_fen(fen).unwrap();
        let m = pos.parse_uci_move(&best).unwrap();
        (score, reader.probe_wdl(&pos.make_move(m)).unwrap())
    };
    let path = |dir: &str| vec![format!("setoption name SyzygyPath value {dir}")];
    // KRvK, 27 plies from mate with the best play: a win at halfmove 0 or 70, a draw by the
    // fifty-move rule at 95 (cursed: reported as a draw, a point above even, and the move
    // played still keeps the win in case the defence errs); for Black a loss the rule saves.
    let won = "8/8/8/8/8/2k5/8/KR6 w - - 0 1";
    for halfmove in [0, 70] {
        let fen = won.replace(" 0 1", &format!(" {halfmove} 1"));
        assert_eq!(score_and_move(&path(tables), &fen), ("cp 20000".into(), -2), "{fen}");
    }
    let late = "8/8/8/8/8/2k5/8/KR6 w - - 95 1";
    assert_eq!(score_and_move(&path(tables), late), ("cp 1".into(), -2), "cursed by the clock");
    let saved = "8/8/8/8/8/2k5/8/KR6 b - - 95 1";
    assert_eq!(score_and_move(&path(tables), saved).0, "cp -1", "blessed by the clock");
    // Syzygy50MoveRule off: the rule is not counted, a win is a win.
    let mut off = path(tables);
    off.push("setoption name Syzygy50MoveRule value false".into());
    assert_eq!(score_and_move(&off, late), ("cp 20000".into(), -2));
    assert_eq!(score_and_move(&off, saved).0, "cp -20000");
    // WDL tables alone (no DTZ): the root is ranked by WDL and the win still kept.
    assert_eq!(score_and_move(&path(wdl_only.to_str().unwrap()), won), ("cp 20000".into(), -2));
    std::fs::remove_dir_all(&wdl_only).unwrap();
}
