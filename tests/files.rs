//! The tools that read and write files, driven through the binary as a careless user would:
//! an input named as the output (however it is spelled) is refused and left whole, an output
//! appears whole or not at all, devices, FIFOs and directories are refused before they are read,
//! and malformed PGN ends in bounded time. Each case once lost a file or hung.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

/// Runs `corvid ARGS` with `stdin`, killed after `limit`: the status `None` when it had to be
/// killed (a hang).
fn corvid_within(args: &[&str], stdin: &str, limit: Duration) -> (Option<i32>, String, String) {
    common::run_corvid(args, stdin, Some(limit))
}

#[cfg_attr(not(unix), allow(dead_code))]
fn corvid(args: &[&str]) -> (Option<i32>, String, String) {
    corvid_within(args, "", Duration::from_secs(60))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("corvid-files-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A small `.vf` file of two games, made by the engine.
#[cfg_attr(not(unix), allow(dead_code))]
fn games(dir: &Path) -> PathBuf {
    let vf = dir.join("d.vf");
    let (code, out, err) = corvid(&["datagen", s(&vf), "--games", "2", "--nodes", "200", "--seed", "3"]);
    assert_eq!(code, Some(0), "{out}{err}");
    vf
}

#[test]
fn stray_closing_brackets_in_pgn_end_in_time() {
    let dir = scratch("pgn");
    for (i, text) in ["1. e4 ) e5 *\n", "1. e4 } e5 1-0\n", "] 1. d4 *\n"].iter().enumerate() {
        let pgn = dir.join(format!("{i}.pgn"));
        std::fs::write(&pgn, text).unwrap();
        let (code, out, err) =
            corvid_within(&["convert", s(&pgn), s(&dir.join(format!("{i}.txt")))], "", Duration::from_secs(20));
        assert_eq!(code, Some(0), "{text:?}: a hang or a failure\n{out}{err}");
        // `play`'s load reads the same PGN.
        let (code, out, _) =
            corvid_within(&["play", "--tc", "none"], &format!("load {}\nquit\n", s(&pgn)), Duration::from_secs(20));
        assert_eq!(code, Some(0), "{text:?}: play's load\n{out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

// Unix only: symbolic links, /dev/full and mkfifo.
#[cfg(unix)]
#[test]
fn an_input_named_as_the_output_is_refused_and_kept() {
    let dir = scratch("same");
    let vf = games(&dir);
    let bytes = std::fs::read(&vf).unwrap();
    let txt = dir.join("d.txt");
    assert_eq!(corvid(&["convert", s(&vf), s(&txt)]).0, Some(0));
    let text = std::fs::read(&txt).unwrap();
    let link = dir.join("link.vf");
    std::os::unix::fs::symlink(&vf, &link).unwrap();
    let dotted = format!("{}/./d.vf", s(&dir));
    let dotted_txt = format!("{}/./d.txt", s(&dir));
    let net = dir.join("net.nnue");
    for args in [
        vec!["convert", s(&vf), &dotted],
        vec!["convert", s(&vf), s(&link)],
        vec!["label", s(&txt), &dotted_txt],
        vec!["tune", s(&txt), "--out", &dotted_txt, "--epochs", "1"],
        vec!["train", s(&vf), "--out", s(&link), "--epochs", "1"],
        vec!["train", s(&dir), "--out", &dotted, "--epochs", "1"],
        vec!["datagen", &dotted_txt, "--book", s(&txt), "--games", "1"],
    ] {
        let (code, out, err) = corvid(&args);
        assert_eq!(code, Some(2), "{args:?}\n{out}{err}");
        assert!(err.contains("both an input"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(&vf).unwrap(), bytes, "the games are untouched");
    assert_eq!(std::fs::read(&txt).unwrap(), text, "the positions are untouched");
    // The network a training starts from is an input too.
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/src/nnue/corvid.nnue"), &net).unwrap();
    let (code, _, err) = corvid(&["train", s(&txt), "--init", s(&net), "--out", s(&net), "--epochs", "1"]);
    assert!(code == Some(2) && err.contains("both an input"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

// Unix only: symbolic links, /dev/full and mkfifo.
#[cfg(unix)]
#[test]
fn a_failed_conversion_leaves_the_old_output() {
    let dir = scratch("partial");
    let vf = games(&dir);
    let truncated = dir.join("cut.vf");
    let bytes = std::fs::read(&vf).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() - 7]).unwrap();
    let out_path = dir.join("out.txt");
    std::fs::write(&out_path, "kept\n").unwrap();
    let (code, _, err) = corvid(&["convert", s(&truncated), s(&out_path)]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cut.vf"), "the error names the input: {err}");
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), "kept\n");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().contains("partial")), "{left:?}");
    // A device is not a place to write a conversion to, and says so.
    let (code, _, err) = corvid(&["convert", s(&vf), "/dev/full"]);
    assert!(code == Some(2) && err.contains("/dev/full") && !err.contains("d.vf"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

// Unix only: symbolic links, /dev/full and mkfifo.
#[cfg(unix)]
#[test]
fn devices_fifos_and_directories_are_refused_before_reading() {
    let dir = scratch("devices");
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = dir.join("out.txt");
    for input in ["/dev/zero", "/dev/urandom", s(&fifo), s(&dir)] {
        for args in [
            vec!["convert", input, s(&out)],
            vec!["label", input, s(&out)],
            vec!["epd", input],
            vec!["perft-suite", input],
            vec!["tune", input],
            vec!["train", s(&out), "--init", input, "--out", s(&dir.join("n.nnue"))],
        ] {
            let (code, o, err) = corvid_within(&args, "", Duration::from_secs(20));
            assert_eq!(code, Some(2), "{args:?}: a hang or a wrong status\n{o}{err}");
            assert!(err.starts_with("error: "), "{args:?}: {err}");
        }
        // The engine's own files: a message, the engine goes on and answers.
        let uci = format!(
            "setoption name EvalFile value {input}\nsetoption name BookFile value {input}\nisready\ngo depth 2\nquit\n"
        );
        let (code, o, _) = corvid_within(&[], &uci, Duration::from_secs(20));
        assert_eq!(code, Some(0), "{input}: {o}");
        assert!(o.contains("info string error: EvalFile") && o.contains("info string error: BookFile"), "{o}");
        assert!(o.contains("readyok") && o.contains("bestmove "), "{o}");
        let (code, o, _) = corvid_within(&["play", "--book", input, "--tc", "none"], "quit\n", Duration::from_secs(20));
        assert!(code == Some(0) && o.contains("No book: "), "{input}: {o}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

// Unix only: symbolic links, /dev/full and mkfifo.
#[cfg(unix)]
#[test]
fn play_saves_only_to_regular_files_and_through_links() {
    let dir = scratch("save");
    let target = dir.join("target.pgn");
    std::fs::write(&target, "old").unwrap();
    let link = dir.join("link.pgn");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    // The file is there: the first save asks, and `n` keeps it; `y` replaces it (through the link).
    let input = format!("e4\nsave {}\nn\nsave {}\ny\nsave /dev/full\nsave {}\nquit\n", s(&link), s(&link), s(&dir));
    let (code, out, _) = corvid_within(&["play", "--tc", "none", "--elo", "1000"], &input, Duration::from_secs(30));
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out.matches("exists. Replace it? (y/n)").count(), 2, "{out}");
    assert!(out.contains("Not saved;"), "{out}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is kept");
    assert!(std::fs::read_to_string(&target).unwrap().contains("1. e4"), "written through the link");
    assert!(out.contains("/dev/full: not a regular file"), "{out}");
    assert!(out.contains("is a directory"), "{out}");
    let meta = std::fs::metadata("/dev/full").unwrap();
    assert!(!meta.is_file(), "the device is still a device");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn play_answers_a_line_that_is_not_utf8_and_plays_on() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_corvid"))
        .args(["play", "--tc", "none", "--elo", "1000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"e4\n\xe9\nd4\nfen\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.contains("Unknown command or move"), "{out}");
    // The move after the bad line is played: two white moves in the game.
    assert!(out.lines().any(|l| l.starts_with("1. e4 ") && l.contains(" 2. d4")), "{out}");
}

#[test]
fn the_wrong_file_for_a_suite_or_a_labelling_is_an_error_and_makes_nothing() {
    // A PGN given where a test suite, a perft suite or positions to label belong: each once
    // reported "solved 0 of 0", "0 passed, 0 failed" or "0 positions written" with status 0
    // (and an empty output), as if the run had succeeded.
    let dir = scratch("wrong");
    let pgn = dir.join("games.pgn");
    std::fs::write(&pgn, "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n").unwrap();
    let labelled = dir.join("labelled.txt");
    for (args, says) in [
        (vec!["epd", s(&pgn), "--movetime", "10"], "no line of the suite is an EPD position"),
        (vec!["perft-suite", s(&pgn)], "no ';D<depth> <count>' entry"),
        (vec!["label", s(&pgn), s(&labelled), "--nodes", "10"], "no line is a position as 'FEN [result]'"),
    ] {
        let (code, out, err) = corvid(&args);
        assert_eq!(code, Some(2), "{args:?}\n{out}{err}");
        assert!(err.contains(says), "{args:?}\n{out}{err}");
    }
    assert!(!labelled.exists(), "no output is made from nothing");
    std::fs::remove_dir_all(&dir).ok();
}

/// A match runner's game with evaluation comments, as OpenBench's workers and fastchess write it.
#[cfg(unix)]
fn runner_game(round: u32, moves: &str, result: &str) -> String {
    format!("[Event \"t\"]\n[Round \"{round}\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n")
}

/// Whether the system has `tool` (the unpacking tools are the system's own).
#[cfg(unix)]
fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// OpenBench keeps a DATAGEN test's games as a `.pgn.tar` of `.pgn.bz2` files: `convert` and
/// `train` read it (and `.bz2`, `.xz`, `.gz`, a tar of plain files) as the PGN it holds, the same
/// games and positions; a damaged or mixed archive is an error that names the file and writes
/// nothing.
#[cfg(unix)]
#[test]
fn openbench_datagen_archives_and_compressed_pgn_read_as_the_pgn() {
    for tool in ["tar", "bzip2", "xz", "gzip"] {
        if !have(tool) {
            assert!(std::env::var_os("CI").is_none(), "{tool} is missing under CI");
            eprintln!("skipped: no {tool}");
            return;
        }
    }
    let dir = scratch("packed");
    // Five games of knights going out and back, 62 plies each (enough positions to train on),
    // each from its own first moves.
    let shuffle = |round: u32, opening: &str, white: [&str; 2], black: [&str; 2], result: &str| {
        let mut moves = opening.to_string();
        for n in 0..30 {
            let (w, b) = (white[n % 2], black[n % 2]);
            moves += &format!(" {}. {w} {{+0.{n:02}/9 0.1s}} {b} {{-0.{n:02}/9 0.1s}}", n + 2);
        }
        runner_game(round, &moves, result)
    };
    let parts = [
        shuffle(1, "1. e4 {+0.31/10 0.1s} e5 {-0.25/10 0.1s}", ["Nf3", "Ng1"], ["Nf6", "Ng8"], "1/2-1/2"),
        shuffle(2, "1. d4 {+0.20/9 0.1s} d5 {-0.18/9 0.1s}", ["Nc3", "Nb1"], ["Nc6", "Nb8"], "1-0"),
        shuffle(3, "1. c4 {+0.10/8 0.1s} e5 {-0.12/8 0.1s}", ["Nh3", "Ng1"], ["Na6", "Nb8"], "0-1"),
        shuffle(4, "1. e3 {+0.05/8 0.1s} e6 {-0.05/8 0.1s}", ["Ne2", "Ng1"], ["Ne7", "Ng8"], "1/2-1/2"),
        shuffle(5, "1. g3 {+0.12/8 0.1s} g6 {-0.11/8 0.1s}", ["Na3", "Nb1"], ["Nh6", "Ng8"], "1-0"),
    ];
    let sh = |command: &str| {
        let status = Command::new("sh").arg("-c").arg(command).current_dir(&dir).status().unwrap();
        assert!(status.success(), "{command}");
    };
    for (i, part) in parts.iter().enumerate() {
        std::fs::write(dir.join(format!("p{i}.pgn")), part).unwrap();
    }
    std::fs::write(dir.join("all.pgn"), parts.concat()).unwrap();
    sh("for i in 0 1 2 3 4; do bzip2 -k p$i.pgn; done && tar -cf games.pgn.tar p?.pgn.bz2");
    sh("tar -cf plain.pgn.tar p?.pgn && bzip2 -k all.pgn && xz -k all.pgn && gzip -k all.pgn");
    let text = |input: &str| {
        let out = dir.join(format!("{input}.txt"));
        let (code, stdout, err) = corvid(&["convert", s(&dir.join(input)), s(&out)]);
        assert_eq!(code, Some(0), "{input}: {stdout}{err}");
        assert!(stdout.starts_with("5 games, "), "{input}: {stdout}");
        std::fs::read_to_string(out).unwrap()
    };
    let plain = text("all.pgn");
    assert!(plain.lines().count() >= 300, "{plain}");
    for packed in ["games.pgn.tar", "plain.pgn.tar", "all.pgn.bz2", "all.pgn.xz", "all.pgn.gz"] {
        assert_eq!(text(packed), plain, "{packed}");
    }

    // `train` takes the archive, named or in a directory, with the positions of the PGN.
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::copy(dir.join("games.pgn.tar"), data.join("games.pgn.tar")).unwrap();
    let net = dir.join("n.nnue");
    let (code, out, err) = corvid(&["train", s(&data), "--out", s(&net), "--epochs", "1", "--base", "hce"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let record = std::fs::read_to_string(dir.join("n.nnue.json")).unwrap();
    let positions =
        |record: &str| record.split("\"positions\": ").nth(1).unwrap().split('}').next().unwrap().to_string();
    let (code, out, err) =
        corvid(&["train", s(&dir.join("all.pgn")), "--out", s(&net), "--epochs", "1", "--base", "hce"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let plain_record = std::fs::read_to_string(dir.join("n.nnue.json")).unwrap();
    assert_eq!(positions(&record), positions(&plain_record));

    // A damaged stream, an archive of mixed packing and a file that is no archive: an error
    // naming the file, and no output.
    let bz = std::fs::read(dir.join("all.pgn.bz2")).unwrap();
    std::fs::write(dir.join("cut.pgn.bz2"), &bz[..bz.len() / 2]).unwrap();
    sh("tar -cf mixed.pgn.tar p0.pgn p1.pgn.bz2 && cp all.pgn fake.pgn.tar");
    for (input, why) in [
        ("cut.pgn.bz2", "bzip2 failed"),
        ("mixed.pgn.tar", "packed in different ways"),
        ("fake.pgn.tar", "not a tar archive"),
    ] {
        let out = dir.join("bad.txt");
        let (code, stdout, err) = corvid(&["convert", s(&dir.join(input)), s(&out)]);
        assert_eq!(code, Some(2), "{input}: {stdout}{err}");
        assert!(err.contains(input) && err.contains(why), "{input}: {err}");
        assert!(!out.exists(), "{input}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
