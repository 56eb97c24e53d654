//! Move generator invariants: the captures and quiet generators partition the legal moves,
//! `is_legal` agrees with the generator, and UCI move text parses to the generated moves.

use corvid::{AllMoves, Captures, MoveParseError, Quiets};
use corvid::{Move, MoveList, Position};
use corvid::{MoveKind, Square};

mod common;

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
    "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
    "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1",
];

fn sorted(list: &MoveList) -> Vec<u16> {
    let mut v: Vec<u16> = list.iter().map(|m| m.raw()).collect();
    v.sort_unstable();
    v
}

/// The positions of `FENS` and, `plies` times over, the children of every position so far.
fn positions_below(plies: usize) -> Vec<Position> {
    let mut positions: Vec<Position> = FENS.iter().map(|f| Position::from_fen(f).unwrap()).collect();
    for _ in 0..plies {
        let next: Vec<Position> =
            positions.iter().flat_map(|p| p.legal_moves().into_iter().map(move |m| p.make_move(m))).collect();
        positions.extend(next);
    }
    positions
}

#[test]
fn captures_and_quiets_partition_all_moves() {
    // and every position one and two plies below them
    let positions = positions_below(2);
    for pos in &positions {
        let all = pos.legal_moves();
        let (mut noisy, mut quiet) = (MoveList::new(), MoveList::new());
        pos.generate::<Captures>(&mut noisy);
        pos.generate::<Quiets>(&mut quiet);
        assert!(noisy.iter().all(|m| m.is_capture() || m.is_promotion()), "{pos:?}");
        assert!(quiet.iter().all(|m| !m.is_capture() && !m.is_promotion()), "{pos:?}");
        let mut both = noisy.clone();
        both.extend(quiet.iter().copied());
        assert_eq!(sorted(&both), sorted(&all), "{pos:?}");
        let mut dedup = sorted(&all);
        dedup.dedup();
        assert_eq!(dedup.len(), all.len(), "duplicates in {pos:?}");
        assert_eq!(pos.count_legal(), all.len() as u64);
        let mut generic = MoveList::new();
        pos.generate::<AllMoves>(&mut generic);
        assert_eq!(generic, all);
        for &m in &all {
            assert!(pos.is_legal(m), "{m:?} in {pos:?}");
            assert_eq!(pos.parse_uci_move(&m.to_uci(pos.is_chess960()).to_string()), Ok(m));
            assert_eq!(m.is_capture(), pos.piece_on(m.to()).is_some() && !m.is_castle() || m.is_en_passant());
        }
    }
}

#[test]
fn is_legal_rejects_every_other_encoding() {
    // All 2^16 bit patterns: exactly the generated moves are legal.
    for fen in FENS {
        let pos = Position::from_fen(fen).unwrap();
        let legal = sorted(&pos.legal_moves());
        let accepted: Vec<u16> =
            (1..=u16::MAX).filter(|&bits| Move::from_raw(bits).is_some_and(|m| pos.is_legal(m))).collect();
        assert_eq!(accepted, legal, "{fen}");
    }
}

#[test]
fn uci_move_parsing() {
    let pos = Position::startpos();
    assert!(matches!(pos.parse_uci_move("e2e5"), Err(MoveParseError::Illegal(_))));
    assert!(matches!(pos.parse_uci_move("e7e5"), Err(MoveParseError::Illegal(_))));
    for bad in ["", "e2", "e2e", "e2e4q5", "e9e4", "i2i4", "E2E4", "e2e4x", "0000", "e2-e4"] {
        assert!(matches!(pos.parse_uci_move(bad), Err(MoveParseError::Malformed(_))), "{bad}");
    }
    // Castling: e1g1 and e1h1 both mean O-O in standard chess; the move is stored king-takes-rook.
    let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let m = castle.parse_uci_move("e1g1").unwrap();
    assert_eq!((m.kind(), m.to()), (MoveKind::Castle, Square::H1));
    assert_eq!(castle.parse_uci_move("e1h1"), Ok(m));
    assert_eq!(castle.parse_uci_move("e1c1").unwrap().to(), Square::A1);
    // Chess960: only king-takes-rook, so f1g1 stays a king move.
    let frc = Position::from_fen("3k4/8/8/8/8/8/8/4RK1R w H - 0 1").unwrap();
    assert!(frc.is_chess960());
    assert_eq!(frc.parse_uci_move("f1g1").unwrap().kind(), MoveKind::Quiet);
    assert_eq!(frc.parse_uci_move("f1h1").unwrap().kind(), MoveKind::Castle);
    // Promotions need their piece letter.
    let promo = Position::from_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1").unwrap();
    assert!(promo.parse_uci_move("a7a8").is_err());
    assert_eq!(promo.parse_uci_move("a7a8n").unwrap().kind(), MoveKind::PromoteKnight);
}

#[test]
fn chess960_castling_rules() {
    // King b1, rook a1, enemy rook on the far side: castling a-side puts the king on c1 and the
    // rook on d1.
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/RK6 w Q - 0 1").unwrap();
    let m = pos.parse_uci_move("b1a1").unwrap();
    let after = pos.make_move(m);
    assert_eq!(after.to_fen(), "4k3/8/8/8/8/8/8/2KR4 b - - 1 1");
    // The castling rook shields the king's destination from an enemy rook: not legal.
    let pinned = Position::from_fen("4k3/8/8/8/8/8/8/1KR3r1 w K - 0 1").unwrap();
    assert!(pinned.legal_moves().iter().all(|m| !m.is_castle()));
    // King already on its destination (g1), rook on h1: only the rook moves.
    let still = Position::from_fen("4k3/8/8/8/8/8/8/6KR w K - 0 1").unwrap();
    let m = still.parse_uci_move("g1h1").unwrap();
    assert_eq!(still.make_move(m).to_fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
    // A square the king passes through is attacked: not legal; attacked square only on the rook's
    // path: legal.
    let through = Position::from_fen("3rk3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap();
    assert!(through.legal_moves().iter().all(|m| !m.is_castle()));
    let rook_path = Position::from_fen("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap();
    assert!(rook_path.legal_moves().iter().any(|m| m.is_castle()));
    // Lifting a rook that is not in a corner opens the line behind it: the queen on a1 attacks
    // c1, the king's destination, once the b1 rook is lifted. The counting generator answers
    // castling from the attack map of the king's moves, which sees the rook as a blocker: it may
    // do so only for rooks in a corner.
    let behind = Position::from_fen("4k3/8/8/8/8/8/8/qR1K4 w B - 0 1").unwrap();
    assert!(behind.legal_moves().iter().all(|m| !m.is_castle()), "{behind:?}");
    for pos in [&pinned, &through, &rook_path, &behind] {
        assert_eq!(pos.count_legal(), pos.legal_moves().len() as u64, "{pos:?}");
    }
}

/// The positions above, three plies below them, and the first 200 positions of every perft
/// suite (standard and Chess960, where `../shared` is there) with a ply below each; `what` names
/// the test for the message when `../shared` is missing.
fn positions_and_suites(what: &str) -> Vec<Position> {
    let mut positions = positions_below(3);
    let suites = common::shared_data("perft", what);
    let files = suites.into_iter().flat_map(|dir| std::fs::read_dir(dir).unwrap()).flatten().map(|e| e.path());
    for suite in files.filter(|p| p.extension().is_some_and(|e| e == "epd")) {
        let Ok(text) = std::fs::read_to_string(suite) else { continue };
        for line in text.lines().take(200) {
            let Ok(pos) = Position::from_fen(line.split(';').next().unwrap().trim()) else { continue };
            positions.extend(pos.legal_moves().into_iter().map(|m| pos.make_move(m)));
            positions.push(pos);
        }
    }
    positions
}

/// `gives_check` answers, without making the move, what the position after it says, over every
/// legal move of [`positions_and_suites`].
#[test]
fn gives_check_agrees_with_making_the_move() {
    let positions = positions_and_suites("gives_check on the perft suites' positions");
    let (mut checks, mut moves) = (0, 0);
    for pos in &positions {
        for m in pos.legal_moves() {
            let expected = pos.make_move(m).in_check();
            assert_eq!(pos.gives_check(m), expected, "{} in {}", m.to_uci(pos.is_chess960()), pos.to_fen());
            checks += expected as usize;
            moves += 1;
        }
    }
    assert!(moves > 1_000_000 && checks > 20_000, "{moves} moves, {checks} checks");
}

/// The key the search prefetches before making a move is the child's key for every quiet move,
/// double push and capture that changes no castling right and leaves no en passant capture
/// (over [`positions_and_suites`], Chess960 among them): more than four moves in five even
/// there, in positions chosen for castling, en passant and promotions.
#[test]
fn the_prefetched_key_is_the_childs_key() {
    let positions = positions_and_suites("the prefetch key on the perft suites' positions");
    let (mut exact, mut moves) = (0, 0);
    for pos in &positions {
        for m in pos.legal_moves() {
            let child = pos.make_move(m);
            moves += 1;
            let plain = matches!(m.kind(), MoveKind::Quiet | MoveKind::DoublePush | MoveKind::Capture);
            if plain && child.castling() == pos.castling() && child.ep_square().is_none() {
                assert_eq!(pos.key_after_hint(m), child.key(), "{} in {}", m.to_uci(pos.is_chess960()), pos.to_fen());
                exact += 1;
            }
        }
    }
    assert!(moves > 100_000 && exact * 5 > moves * 4, "{exact} of {moves} moves checked");
}

/// Perft's frontier (the last two plies through the lean make, with castling verdicts carried
/// over from the parent) counts what the general make and the plain counter count, child by
/// child summed, in every position of random games from the test positions (Chess960 ones
/// among them, with castling paths that moves open and close).
#[test]
fn perft_frontier_equals_make_and_count() {
    let mut rng = corvid::rng::Rng::new(0xC0FF_EE11);
    let mut checked = 0;
    for fen in FENS {
        for _game in 0..40 {
            let mut pos = Position::from_fen(fen).unwrap();
            for _ply in 0..60 {
                let moves = pos.legal_moves();
                let expected: u64 = moves.iter().map(|&m| pos.make_move(m).count_legal()).sum();
                assert_eq!(pos.perft_frontier(), expected, "{pos:?}");
                checked += 1;
                if moves.is_empty() {
                    break;
                }
                pos = pos.make_move(moves[rng.below(moves.len())]);
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}
