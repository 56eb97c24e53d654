//! `corvid play` driven through pipes as a script would: a legal game to mate against the
//! engine, undo and redo, saving and loading (python-chess reads the file), the clock, and every
//! kind of bad input, which gets one line and changes nothing.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use corvid::Position;

mod common;

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_corvid"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start corvid play")
}

/// Runs `corvid play ARGS` on the whole of `input`; its exit status and output.
fn session(args: &[&str], input: &str) -> (i32, String) {
    let mut child = spawn(args);
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// The lines that follow each `fen` command of a session (every line that parses as a FEN).
fn fens(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.split_whitespace().count() == 6 && Position::from_fen(l).is_ok())
        .map(String::from)
        .collect()
}

/// The engine's moves as announced: `Corvid 0.2.0 plays 3... Bb7 (0.0s, -0.32)` gives `Bb7`.
fn engine_san(line: &str) -> Option<String> {
    let (_, rest) = line.split_once(" plays ")?;
    rest.split_whitespace().nth(1).map(String::from)
}

#[test]
fn a_legal_game_to_mate_against_the_engine() {
    // The player makes pseudo-random legal moves (in SAN and in coordinates, by turns) and the
    // engine, at a modest level and a fast clock, mates; every move it announces must be legal
    // in the test's own copy of the game.
    let mut child = spawn(&["--elo", "2500", "--tc", "2+0"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut pos = Position::startpos();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut transcript = String::new();
    let mut over = false;
    for ply in 0..400 {
        // The player's move.
        let legal = pos.legal_moves();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let m = legal[(state % legal.len() as u64) as usize];
        let text = if ply % 2 == 0 { pos.to_san(m) } else { m.to_uci(false).to_string() };
        writeln!(stdin, "{text}").unwrap();
        pos = pos.make_move(m);
        if !pos.has_legal_move() {
            break; // the player mated or stalemated the engine: possible, if unlikely
        }
        // The engine's reply.
        let reply = loop {
            let line = rx.recv_timeout(Duration::from_secs(60)).expect("the engine replies");
            transcript.push_str(&line);
            transcript.push('\n');
            assert!(!line.starts_with("Illegal") && !line.starts_with("Unknown"), "{line}\n{transcript}");
            if let Some(san) = engine_san(&line) {
                break san;
            }
        };
        let m = pos.parse_san(&reply).unwrap_or_else(|e| panic!("engine move {reply}: {e}\n{transcript}"));
        pos = pos.make_move(m);
        if !pos.has_legal_move() {
            over = true;
            break;
        }
    }
    assert!(over && pos.in_check(), "the engine mates:\n{transcript}");
    writeln!(stdin, "pgn\nquit").unwrap();
    drop(stdin);
    let mut rest = String::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(30)) {
        rest.push_str(&line);
        rest.push('\n');
    }
    assert!(rest.contains("Game over: checkmate, Corvid"), "{rest}");
    // The movetext wraps at 79 columns, wherever the game's length puts the break: read it as
    // words.
    let words = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(rest.contains("[Result \"0-1\"]") && words.contains("{checkmate} 0-1"), "{rest}");
    assert!(child.wait().unwrap().success());
}

#[test]
fn mate_and_stalemate_by_the_player_end_the_game_with_the_reason() {
    let fen = "7k/4Q3/6K1/8/8/8/8/8 w - - 0 1";
    let (code, out) = session(&["--fen", fen, "--tc", "none"], "Qe8#\npgn\nundo\nQf7\nKh6\n");
    assert_eq!(code, 0);
    assert!(out.contains("Game over: checkmate, you win (1-0)"), "{out}");
    assert!(out.contains("[SetUp \"1\"]") && out.contains("1. Qe8# {checkmate} 1-0"), "{out}");
    assert!(out.contains("Game over: stalemate, a draw (1/2-1/2)"), "{out}");
    assert!(out.contains("The game is over (stalemate)"), "a move after the end is refused:\n{out}");
}

#[test]
fn undo_takes_back_the_pair_and_redo_plays_it_again() {
    let (code, out) = session(&["--elo", "1500", "--tc", "5+0"], "e4\nfen\nundo\nfen\nredo\nfen\nundo\nundo\n");
    assert_eq!(code, 0);
    let fens = fens(&out);
    assert_eq!(fens.len(), 3, "{out}");
    let start = Position::startpos().to_fen();
    assert!(fens[0].ends_with(" w KQkq - 0 2") || fens[0].contains(" w ") && fens[0].ends_with(" 2"), "{}", fens[0]);
    assert_eq!(fens[1], start, "undo takes back both moves");
    assert_eq!(fens[2], fens[0], "redo plays both again");
    assert!(out.contains("Nothing of yours to take back."), "{out}");
}

#[test]
fn playing_black_the_engine_opens_and_random_picks_a_side() {
    let (code, out) = session(&["--color", "black", "--elo", "1200", "--tc", "5+0"], "fen\n");
    assert_eq!(code, 0);
    assert!(out.contains("you play Black") && out.contains("plays 1. "), "{out}");
    assert!(fens(&out)[0].contains(" b KQkq "), "{out}");
    let (code, out) = session(&["--color", "random", "--elo", "1200"], "quit\n");
    assert_eq!(code, 0);
    assert!(out.contains("you play White") || out.contains("you play Black"), "{out}");
}

#[test]
fn saved_games_load_back_and_python_chess_reads_them() {
    let dir = std::env::temp_dir().join(format!("corvid-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.pgn");
    let path = file.to_str().unwrap();
    let (code, out) = session(&["--elo", "1500", "--tc", "3+2"], &format!("e4\nd4\nfen\nsave {path}\n"));
    assert_eq!(code, 0);
    assert!(out.contains(&format!("Saved to {path}.")), "{out}");
    let played = fens(&out)[0].clone();
    let text = std::fs::read_to_string(&file).unwrap();
    for tag in ["Event", "Site", "Date", "Round", "White", "Black", "Result"] {
        assert!(text.contains(&format!("[{tag} \"")), "{tag} missing:\n{text}");
    }
    assert!(text.contains("[TimeControl \"180+2\"]") && text.contains("[Result \"*\"]"), "{text}");
    assert!(dir.read_dir().unwrap().count() == 1, "no temporary file left behind");
    // Loaded in a new session, the game is where it was.
    let (code, out) = session(&["--tc", "none"], &format!("load {path}\nfen\n"));
    assert_eq!(code, 0);
    assert_eq!(fens(&out), vec![played.clone()], "{out}");
    // python-chess reads the same moves.
    let script = "import sys, chess.pgn\ng = chess.pgn.read_game(open(sys.argv[1]))\n\
                  assert not g.errors, g.errors\nb = g.end().board()\nprint('FEN', b.fen())\n\
                  print('RESULT', g.headers['Result'])";
    match Command::new("python3").args(["-c", script, path]).output() {
        Ok(o) if o.status.success() => {
            let said = String::from_utf8_lossy(&o.stdout);
            assert!(said.contains(&format!("FEN {played}")), "{said} vs {played}");
            assert!(said.contains("RESULT *"), "{said}");
        }
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("No module named") => {
            common::skip("the python-chess reading of the saved PGN", "pip install chess");
        }
        other => panic!("python-chess could not read the PGN: {other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_gets_one_line_and_changes_nothing() {
    let dir = std::env::temp_dir().join(format!("corvid-play-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.pgn");
    std::fs::write(&broken, "[Event \"x\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Zz1 *\n").unwrap();
    // Knights on b1 and f3 both reach d2.
    let fen = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
    let input = format!(
        "fen\nNd2\nKe2e4\nzz9\nfrobnicate\nmoves z9\nmoves a8\nsave {}/no/such/dir/x.pgn\nload {}/missing.pgn\nload {}\nthink maybe\nsave\nload\nfen\n",
        dir.display(),
        dir.display(),
        broken.display()
    );
    let (code, out) = session(&["--fen", fen, "--tc", "none"], &input);
    assert_eq!(code, 0, "{out}");
    assert_eq!(fens(&out), [fen, fen], "nothing changed the game:\n{out}");
    for expected in [
        "Ambiguous move 'Nd2'",
        "Illegal move 'Ke2e4'",
        "Unknown command or move 'zz9'",
        "Unknown command or move 'frobnicate'",
        "'z9' is not a square",
        "No legal move from a8.",
        "Cannot save: ",
        "nothing written",
        // The system's words differ ("No such file", "File not found"); the error number does not.
        "missing.pgn: ",
        "3. Zz1: malformed",
        "Usage: think on|off",
        "Usage: save FILE",
        "Usage: load FILE",
    ] {
        assert_eq!(out.lines().filter(|l| l.contains(expected)).count(), 1, "'{expected}' once in:\n{out}");
    }
    let missing = out.lines().find(|l| l.contains("missing.pgn: ")).unwrap();
    assert!(missing.contains("(os error 2)"), "not found: {missing}");
    assert!(!dir.join("no").exists());
    // Case and check marks are forgiven where one move fits.
    let (_, out) = session(&["--fen", fen, "--tc", "none", "--elo", "1000"], "NBD2+\n");
    assert!(out.lines().any(|l| l.starts_with("1. Nbd2 ")), "{out}");
    assert!(!out.contains("Illegal") && !out.contains("Unknown"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_clock_runs_out() {
    let mut child = spawn(&["--tc", "0.001+0"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // The move is typed well after the clock (60 ms) has run from the board being shown, however
    // long a busy machine took to start the program and show it.
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.contains("You, White") && l.contains("(to move)")) {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => seen.push(line),
            Err(_) => panic!("no board with the player to move: {seen:?}"),
        }
    }
    std::thread::sleep(Duration::from_millis(400));
    stdin.write_all(b"e4\npgn\nquit\n").unwrap();
    drop(stdin);
    let _ = child.wait();
    // Every line up to the end of the output (the reader ends there).
    seen.extend(rx.iter());
    let out = seen.join("\n");
    assert!(out.contains("Game over: White lost on time") && out.contains("(0-1)"), "{out}");
    assert!(out.contains("[Termination \"time forfeit\"]"), "{out}");
}

#[test]
fn the_flag_falls_while_the_player_thinks_without_typing() {
    let mut child = spawn(&["--tc", "0.005+0"]);
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Nothing is typed, and the input stays open: the 0.3 s clock still runs out.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.contains("White lost on time")) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => panic!("no flag fall with the input open: {seen:?}"),
        }
    }
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn the_players_move_is_shown_before_the_reply_and_scores_say_whose() {
    let (_, out) = session(&["--tc", "none", "--elo", "1500"], "e4\nhint\nquit\n");
    let board_with_e4 = out.find("1. e4\n").expect("the move list after the player's move");
    let reply = out.find(" plays 1... ").expect("the engine's reply");
    assert!(board_with_e4 < reply, "{out}");
    let said = out.lines().find(|l| l.contains(" plays 1... ")).unwrap();
    assert!(said.contains(" for White") || said.contains(" for Black") || said.contains("(level)"), "{said}");
    assert!(out.lines().any(|l| l.starts_with("Hint: ") && (l.contains(" for ") || l.contains("(level)"))), "{out}");
}

#[test]
fn commands_answer() {
    let (code, out) = session(
        &["--elo", "1500", "--tc", "5+0"],
        "help\nmoves\nmoves g1\nhint\nthink on\ne4\nflip\ndraw\nresign\nnew\nquit\nfen\n",
    );
    assert_eq!(code, 0);
    assert!(out.contains("hint              the engine's suggestion"), "{out}");
    assert!(out.contains("Legal moves: Na3 Nc3 Nf3 Nh3 a3 a4"), "{out}");
    assert!(out.contains("Legal moves: Nf3 Nh3"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("Hint: ")), "{out}");
    assert!(out.lines().any(|l| l.trim_start().starts_with("depth  1")), "think on shows the lines:\n{out}");
    assert!(out.contains("     h  g  f  e  d  c  b  a"), "flip:\n{out}");
    assert!(out.contains("accepts the draw") || out.contains("declines the draw"), "{out}");
    assert!(out.matches("you play White").count() == 2, "new starts again:\n{out}");
    assert!(fens(&out).is_empty(), "quit ends the session before the fen:\n{out}");
    // Bad flags are refused by the command line, with a message.
    for args in [&["--color", "green"][..], &["--tc", "fast"], &["--elo", "99999"], &["--fen", "not a fen"]] {
        let (code, out) = session(args, "");
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(out.starts_with("error: "), "{out}");
    }
    // A missing book is a message and no book.
    let (code, out) = session(&["--book", "/no/such/book.bin", "--elo", "1200"], "e4\nquit\n");
    assert_eq!(code, 0);
    assert!(out.contains("No book: ") && out.contains(" plays "), "{out}");
}

#[test]
fn a_draw_offer_is_taken_a_queen_down_and_refused_a_queen_up() {
    // The engine plays Black in both; the player (White, to move) offers a draw at once.
    let without_black_queen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (code, out) = session(&["--color", "white", "--fen", without_black_queen, "--tc", "60+0"], "draw\nfen\nquit\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("accepts the draw") && !out.contains("declines"), "{out}");
    assert!(out.contains("draw agreed"), "the game ends as agreed:\n{out}");

    let without_white_queen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1";
    let (code, out) = session(&["--color", "white", "--fen", without_white_queen, "--tc", "60+0"], "draw\ne4\nquit\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("declines the draw") && !out.contains("accepts"), "{out}");
    assert!(out.contains(" plays 1... "), "the game goes on:\n{out}");
}
