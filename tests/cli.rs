//! Drives the `corvid` binary: perft output format, perft-suite results and exit status, the
//! minimal UCI loop, and clear errors (never a panic) on bad arguments.

mod common;

fn corvid(args: &[&str], stdin: &str) -> (i32, String, String) {
    let (code, out, err) = common::run_corvid(args, stdin, None);
    (code.unwrap_or(-1), out, err)
}

#[test]
fn perft_prints_divide_total_and_speed() {
    let (code, out, _) = corvid(&["perft", "3"], "");
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 20 + 3, "{out}");
    assert!(lines.contains(&"e2e4: 600"));
    assert!(lines.contains(&"Nodes searched: 8902"));
    assert!(lines.last().unwrap().contains("nps"));

    let (code, out, _) =
        corvid(&["perft", "2", "r3k2r/8/8/8/8/8/8/R3K2R", "w", "KQkq", "-", "0", "1", "--threads", "2"], "");
    assert_eq!(code, 0);
    assert!(out.contains("e1g1: ") && out.contains("Nodes searched: 568"), "{out}");

    let (code, out, _) = corvid(&["perft", "4", "--hash", "4"], "");
    assert_eq!(code, 0);
    assert!(out.contains("Nodes searched: 197281") && out.contains("hashed"), "{out}");

    // Chess960 output writes castling as king takes rook.
    let (_, out, _) = corvid(&["perft", "1", "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "--chess960"], "");
    assert!(out.contains("e1h1: 1") && out.contains("e1a1: 1"), "{out}");
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    // A perft suite and an EPD test suite of one line each, so that the table's size is what
    // fails (an empty file is refused as a suite before any table is made).
    let dir = std::env::temp_dir();
    let suite_path = dir.join(format!("corvid-perft-suite-{}.epd", std::process::id()));
    std::fs::write(&suite_path, "1k6/8/1K6/8/8/8/8/7R w - - 0 1 ;D1 19\n").unwrap();
    let suite = suite_path.to_str().unwrap();
    let epd_path = dir.join(format!("corvid-test-suite-{}.epd", std::process::id()));
    std::fs::write(&epd_path, "1k6/8/1K6/8/8/8/8/7R w - - bm Rh8; id \"m1\";\n").unwrap();
    let epd = epd_path.to_str().unwrap();
    for args in [
        &["perft"][..],
        &["perft", "x"],
        &["perft", "-1"],
        &["perft", "3", "not a fen"],
        &["perft", "3", "--threads"],
        &["perft", "3", "--threads", "many"],
        &["perft", "3", "--bogus"],
        &["perft-suite"],
        &["perft-suite", "/nonexistent/file.epd"],
        &["frobnicate"],
        // More memory than the machine has: a clear error, not an abort.
        &["perft", "3", "--hash", "1048576"],
        &["perft-suite", suite, "--hash", "1048576"],
        &["bench", "1", "--hash", "1048576"],
        &["epd", epd, "--hash", "1048576"],
    ] {
        let (code, _, err) = corvid(args, "");
        assert_eq!(code, 2, "{args:?}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        if args.contains(&"1048576") {
            assert!(err.contains("cannot allocate"), "{args:?}: {err}");
        }
    }
    let _ = std::fs::remove_file(&suite_path);
    let _ = std::fs::remove_file(&epd_path);
}

#[test]
fn perft_suite_reports_and_sets_exit_status() {
    let dir = std::env::temp_dir().join(format!("corvid-suite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.epd");
    std::fs::write(
        &good,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902\n\
         bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 ;D1 21 ;D2 528\n",
    )
    .unwrap();
    let (code, out, _) = corvid(&["perft-suite", good.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().last(), Some("5 passed, 0 failed"));
    let (code, out, _) = corvid(&["perft-suite", good.to_str().unwrap(), "--max-depth", "1", "--threads", "2"], "");
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("2 passed, 0 failed"));

    let bad = dir.join("bad.epd");
    std::fs::write(&bad, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n").unwrap();
    let (code, out, _) = corvid(&["perft-suite", bad.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert!(out.contains("FAIL line 1") && out.contains("depth 2 expected 401 got 400"), "{out}");
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn uci_loop_basics_and_bad_input() {
    let input = "uci\nisready\nposition startpos moves e2e4 e7e5\n\
                 position fen not/a/fen w - - 0 1\nd\nposition startpos moves e2e4 e2e4 d7d5\nd\n\
                 xyzzy\ngo perft banana\nquit\nisready\n";
    let (code, out, err) = corvid(&[], input);
    assert_eq!(code, 0);
    assert!(out.contains("id name Corvid") && out.contains("uciok") && out.contains("readyok"));
    assert!(out.contains("info string error: bad FEN"), "{out}");
    // After the bad FEN there is no position: not the previous one (after 1.e4 e5) either.
    assert!(out.contains("info string error: no position"), "{out}");
    assert!(!out.contains("Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"), "{out}");
    // The illegal second e2e4 stops the list after the first move.
    assert!(out.contains("info string error: illegal move 'e2e4'"), "{out}");
    assert!(out.contains("Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"), "{out}");
    assert!(err.contains("unknown command: xyzzy"));
    assert!(out.contains("info string error: perft depth"));
    // Nothing after quit is answered.
    assert_eq!(out.matches("readyok").count(), 1);
    // Commands given as arguments are a script: each runs to its end, `quit` included.
    let (code, out, _) = corvid(&["position startpos moves e2e4 e7e5", "go perft 1", "go perft 4", "quit"], "");
    assert_eq!(code, 0);
    assert!(out.contains("Nodes searched: 29") && out.contains("Nodes searched: 728887"), "{out}");
    assert!(!out.contains("stopped"), "{out}");
}

#[test]
fn genfens_as_openbench_runs_it() {
    let run = |args: &[&str]| {
        let (code, out, _) = corvid(args, "");
        assert_eq!(code, 0);
        out.lines().filter_map(|l| l.strip_prefix("info string genfens ").map(str::to_string)).collect::<Vec<_>>()
    };
    let fens = run(&["genfens 8 seed 5 book None", "quit"]);
    assert_eq!(fens.len(), 8);
    let mut distinct = fens.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 8);
    assert_eq!(fens, run(&["genfens 8 seed 5 book None", "quit"]), "deterministic by seed");
    // An EvalFile given first (as OpenBench does for private networks) and a book that is not there.
    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/src/nnue/corvid.nnue");
    let (code, out, _) = corvid(
        &[&format!("setoption name EvalFile value {net}"), "genfens 3 seed 1 book /nonexistent.epd", "quit"],
        "",
    );
    // The error is in the exit status too, and no openings come: openings from another start
    // would be a book the test did not ask for.
    assert_eq!(code, 2);
    assert!(out.contains("info string error: genfens: book /nonexistent.epd"), "{out}");
    assert_eq!(out.matches("info string genfens ").count(), 0, "{out}");
    let (code, out, _) = corvid(&["genfens 0 seed 1 book None", "quit"], "");
    assert!(code == 2 && out.contains("info string error: genfens: the count '0'"), "{out}");
    let (code, out, _) = corvid(&["genfens 5 seed x book None", "quit"], "");
    assert!(code == 2 && out.contains("the seed 'x'") && !out.contains("count"), "{out}");
    // A book of finished games and bare kings: nothing to play from, said so.
    let dir = std::env::temp_dir().join(format!("corvid-genfens-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let finished = dir.join("finished.epd");
    std::fs::write(&finished, "7k/5Q2/6K1/8/8/8/8/8 b - -\n8/8/4k3/8/8/3K4/8/8 w - -\n8/8/4k3/8/8/3KB3/8/8 w - -\n")
        .unwrap();
    let (code, out, _) = corvid(&[&format!("genfens 4 seed 1 book {}", finished.display()), "quit"], "");
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("finished or dead draws"), "{out}");
    // One playable position among them: every opening comes from it, or the shortfall is said.
    let mixed = dir.join("mixed.epd");
    std::fs::write(&mixed, "8/8/4k3/8/8/3K4/8/8 w - -\nr3k3/8/8/8/8/8/8/4K2R w Kq -\n").unwrap();
    let (_, out, _) = corvid(&[&format!("genfens 20 seed 1 book {}", mixed.display()), "quit"], "");
    let fens: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("info string genfens ")).collect();
    for fen in &fens {
        let pos = corvid::Position::from_fen(fen).unwrap();
        assert!(pos.pieces(corvid::PieceType::Rook).count() >= 1, "bare kings: {fen}");
    }
    assert!(fens.len() == 20 || out.contains(&format!("only {} of 20", fens.len())), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Ctrl-C during `datagen` stops it cleanly: the games in play are written, the manifest counts
/// them, a summary is printed, and what the file holds is exactly the first games of the run, so
/// the same command resumes it without a gap or a repeat.
#[cfg(unix)]
#[test]
fn datagen_stops_on_ctrl_c_with_a_summary_and_a_file_that_resumes() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let dir = std::env::temp_dir().join(format!("corvid-datagen-int-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let games_in = |manifest: &std::path::Path| -> Option<usize> {
        let text = std::fs::read_to_string(manifest).ok()?;
        corvid::tools::datagen::Manifest::parse(&text).ok().map(|m| m.games)
    };
    let manifest = dir.join("stopped.vf.manifest");
    let child = Command::new(env!("CARGO_BIN_EXE_corvid"))
        .args(["datagen", "stopped.vf", "--games", "100000", "--nodes", "200", "--threads", "2", "--seed", "9"])
        .env("CORVID_DATA", &dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start corvid");
    let started = Instant::now();
    while games_in(&manifest).unwrap_or(0) < 4 {
        assert!(started.elapsed() < Duration::from_secs(120), "no games written");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A second run on the same file while the first writes it is refused, and changes nothing
    // (the comparison below would see a cut or doubled game). Unguarded, it would cut the first
    // run's game in writing as a killed run's and, asked for no more than the 4 games there, end.
    let (code, second, err) = corvid(
        &["datagen", manifest.with_extension("").to_str().unwrap(), "--games", "4", "--nodes", "200", "--seed", "9"],
        "",
    );
    assert_ne!(code, 0, "{second}\n{err}");
    assert!(err.contains("another process is writing it"), "{second}\n{err}");
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("stopping"), "{stderr}");
    assert!(stdout.starts_with("stopped: ") && stdout.contains("goes on from there"), "{stdout}");
    let n = games_in(&manifest).unwrap();
    assert!((4..100_000).contains(&n), "{n}");
    assert!(stdout.contains(&format!("it holds {n} games")), "{stdout}");

    // The same games, played without a stop by one thread, in their own file.
    let (code, whole, err) = corvid(
        &[
            "datagen",
            dir.join("whole.vf").to_str().unwrap(),
            "--games",
            &n.to_string(),
            "--nodes",
            "200",
            "--threads",
            "1",
            "--seed",
            "9",
        ],
        "",
    );
    assert_eq!(code, 0, "{whole}\n{err}");
    let text = |vf: &str| {
        let txt = dir.join(format!("{vf}.txt"));
        let (code, out, err) = corvid(&["convert", dir.join(vf).to_str().unwrap(), txt.to_str().unwrap()], "");
        assert_eq!(code, 0, "{out}\n{err}");
        assert!(out.starts_with(&format!("{n} games")), "{out}");
        let mut lines: Vec<String> = std::fs::read_to_string(txt).unwrap().lines().map(str::to_owned).collect();
        lines.sort();
        lines
    };
    let (stopped, whole) = (text("stopped.vf"), text("whole.vf"));
    assert!(
        stopped == whole,
        "the stopped run's {} positions differ from the whole run's {}",
        stopped.len(),
        whole.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn version_names_the_build_its_level_and_this_processors_artefact() {
    let (code, out, _) = corvid(&["--version"], "");
    assert_eq!(code, 0);
    let version = env!("CARGO_PKG_VERSION");
    assert!(out.starts_with(&format!("Corvid {version}\n")), "{out}");
    // This test build is `target-cpu=native` (.cargo/config.toml), which `--version` must say,
    // with the level that names, and the artefact to take here: at least that level.
    let built = out.lines().find(|l| l.starts_with("built for ")).unwrap_or_else(|| panic!("{out}"));
    let this = out.lines().find(|l| l.starts_with("this CPU: ")).unwrap_or_else(|| panic!("{out}"));
    if cfg!(target_arch = "x86_64") {
        assert!(built.contains("x86-64") && built.contains("target-cpu=native"), "{built}");
        let levels = ["x86-64-v4", "x86-64-v3", "x86-64-v2", "x86-64"];
        let rank = |line: &str, prefix: &str| {
            let level = line.trim_start_matches(prefix).split([',', ' ']).next().unwrap().trim_end_matches("-magic");
            levels.iter().position(|l| *l == level).unwrap_or_else(|| panic!("{line}"))
        };
        assert!(rank(this, "this CPU: ") <= rank(built, "built for "), "{built} / {this}");
        let system = if cfg!(windows) {
            "windows"
        } else if cfg!(target_os = "macos") {
            "macos"
        } else {
            "linux"
        };
        assert!(this.contains(&format!("release artefact corvid-{system}-x86-64")), "{this}");
        // No version in the name: `releases/latest/download/NAME` links last from release to release.
        assert!(!this.contains(version), "{this}");
    }
}
