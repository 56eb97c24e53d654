//! Positions a board editor makes (issue 80, item 2): more than 16 pieces a side, more than 8
//! pawns, more promoted pieces than missing pawns. Corvid accepts every FEN with one king a side,
//! no pawn on the first or last rank and the side not to move out of check, as Stockfish and
//! shakmaty (`ignore_too_much_material`) do for analysis boards; its move generator agrees with
//! python-chess's on them, its move list holds every move of the busiest, and it searches them
//! and answers a legal move.

use std::io::Write;
use std::process::{Command, Stdio};

use corvid::perft::perft;
use corvid::rng::Rng;
use corvid::Position;
use corvid::MAX_MOVES;

mod common;

/// Hand-picked: the four the old rule refused (the last with 270 legal moves, more than any game
/// can reach, and with Black to move stalemate), one with 257 found by a hill climb, twelve
/// pawns a side with castling and en passant, and eleven knights against eleven bishops.
const EDITOR_FENS: &[&str] = &[
    "k7/8/8/8/8/8/PPPPPPPP/QQQQKQQQ w - - 0 1",
    "k7/pppppppp/p7/8/8/8/8/K7 b - - 0 1",
    "k7/8/8/8/8/N7/PPPPPPPP/RNBQKBNR w KQ - 0 1",
    "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1",
    "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ b - - 0 1",
    "BQQ2QBk/Q2QQ3/Q5QK/Q6Q/Q6Q/Q6Q/Q6Q/1QQQQQQQ w - - 0 1",
    "r3k2r/ppp1pppp/pp6/3pP3/8/PP6/PPPPPPPP/R3K2R w KQkq d6 0 1",
    "nnnnk3/nnnn4/nnn5/8/8/5BBB/4BBBB/3KBBBB b - - 0 1",
];

/// Random positions beyond a game's material: two kings and 20-50 other pieces, kept where
/// Corvid accepts the FEN.
fn random_positions(rng: &mut Rng, count: usize) -> Vec<String> {
    let letters = ['P', 'N', 'B', 'R', 'Q', 'p', 'n', 'b', 'r', 'q'];
    let mut found = Vec::new();
    while found.len() < count {
        let mut board = [None; 64];
        let place = |rng: &mut Rng, piece: char, board: &mut [Option<char>; 64]| loop {
            let sq = (rng.next_u64() % 64) as usize;
            let back = !(8..56).contains(&sq);
            if board[sq].is_none() && !(back && piece.eq_ignore_ascii_case(&'p')) {
                board[sq] = Some(piece);
                return;
            }
        };
        place(rng, 'K', &mut board);
        place(rng, 'k', &mut board);
        let others = 20 + (rng.next_u64() % 31) as usize;
        for _ in 0..others {
            let piece = letters[(rng.next_u64() % letters.len() as u64) as usize];
            place(rng, piece, &mut board);
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    Some(c) => {
                        if empty > 0 {
                            fen += &empty.to_string();
                            empty = 0;
                        }
                        fen.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen += &empty.to_string();
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        let side = if rng.next_u64() % 2 == 0 { "w" } else { "b" };
        let fen = format!("{fen} {side} - - 0 1");
        if Position::from_fen(&fen).is_ok() {
            found.push(fen);
        }
    }
    found
}

#[test]
fn editor_positions_are_accepted_as_written() {
    for fen in EDITOR_FENS {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(pos.to_fen(), *fen);
        assert!(corvid::eval::beyond_game(&pos), "{fen}");
    }
    // What still makes no position: two kings a side, a pawn on the last rank, the side not to
    // move in check.
    for fen in [
        "kk6/8/8/8/8/8/8/QQQQKQQQ w - - 0 1",
        "k6P/8/8/8/8/8/PPPPPPPP/QQQQKQQQ w - - 0 1",
        "kQQQQQQQ/QQQQQQQQ/8/8/8/8/8/K7 w - - 0 1",
    ] {
        assert!(Position::from_fen(fen).is_err(), "{fen}");
    }
}

#[test]
fn the_move_list_holds_the_busiest_position() {
    let mut rng = Rng::new(802);
    let mut most = 0;
    for fen in EDITOR_FENS.iter().map(|f| f.to_string()).chain(random_positions(&mut rng, 400)) {
        let pos = Position::from_fen(&fen).unwrap();
        let n = pos.legal_moves().len();
        assert_eq!(n as u64, perft(&pos, 1), "{fen}");
        most = most.max(n);
    }
    // Above what a game can reach (218), below the list's proven bound.
    assert!((270..=MAX_MOVES).contains(&most), "{most}");
}

/// python-chess's perft of each FEN to its depth, computed by its own move generator.
fn python_perft(cases: &[(String, u32)]) -> Option<Vec<u64>> {
    let script = "import sys, chess\n\
        def perft(b, d):\n\
        \x20   if d == 1: return b.legal_moves.count()\n\
        \x20   n = 0\n\
        \x20   for m in b.legal_moves:\n\
        \x20       b.push(m); n += perft(b, d - 1); b.pop()\n\
        \x20   return n\n\
        for line in sys.stdin:\n\
        \x20   fen, d = line.rstrip('\\n').split(';')\n\
        \x20   print(perft(chess.Board(fen), int(d)), flush=True)\n";
    let child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(_) => {
            common::skip("perft against python-chess", "python3 is missing");
            return None;
        }
    };
    let mut input = child.stdin.take().unwrap();
    for (fen, depth) in cases {
        writeln!(input, "{fen};{depth}").unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No module named 'chess'") {
            common::skip("perft against python-chess", "pip install chess");
            return None;
        }
        panic!("python-chess failed: {err}");
    }
    Some(String::from_utf8_lossy(&out.stdout).lines().map(|l| l.parse().unwrap()).collect())
}

#[test]
fn perft_of_editor_positions_agrees_with_python_chess() {
    let mut rng = Rng::new(803);
    let fens: Vec<String> = EDITOR_FENS.iter().map(|f| f.to_string()).chain(random_positions(&mut rng, 60)).collect();
    // Depth 3 where the tree is small enough for python-chess in a few seconds, else 2.
    let cases: Vec<(String, u32)> = fens
        .iter()
        .map(|fen| {
            let pos = Position::from_fen(fen).unwrap();
            let depth = if perft(&pos, 2) <= 3_000 { 3 } else { 2 };
            (fen.clone(), depth)
        })
        .collect();
    let Some(theirs) = python_perft(&cases) else { return };
    assert_eq!(theirs.len(), cases.len());
    for ((fen, depth), &want) in cases.iter().zip(&theirs) {
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(perft(&pos, *depth), want, "perft {depth} of {fen}");
    }
}

#[test]
fn editor_positions_are_searched_and_answered_with_a_legal_move() {
    let mut rng = Rng::new(804);
    let fens: Vec<String> = EDITOR_FENS.iter().map(|f| f.to_string()).chain(random_positions(&mut rng, 12)).collect();
    let mut engine = common::Engine::start();
    for fen in &fens {
        let pos = Position::from_fen(fen).unwrap();
        let (best, info) = engine.search(&format!("position fen {fen}"), "go nodes 20000");
        let legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        if legal.is_empty() {
            assert_eq!(best, "0000", "{fen}");
        } else {
            assert!(legal.contains(&best), "{fen}: bestmove {best} {info:?}");
        }
        // No score a search could only give by overflow: within a clear advantage or a mate.
        for line in info.iter().filter(|l| l.contains(" score cp ")) {
            let cp: i32 = line.split(" score cp ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
            assert!(cp.abs() <= 20_000, "{fen}: {line}");
        }
    }
    engine.send("position fen BQQ2QBk/Q2QQ3/Q5QK/Q6Q/Q6Q/Q6Q/Q6Q/1QQQQQQQ w - - 0 1");
    engine.send("eval");
    let said = engine.wait_for("more material than a game can reach", 10_000);
    assert!(said.last().unwrap().contains("cp"), "{said:?}");
}
