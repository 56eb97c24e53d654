//! Zobrist keys: the incremental keys equal keys computed from scratch along random games, and
//! positions reached by different move orders hash equal.

use corvid::rng::Rng;
use corvid::{Move, Position};

fn play(pos: &Position, moves: &[&str]) -> Position {
    moves.iter().fold(*pos, |p, m| p.make_move(p.parse_uci_move(m).unwrap()))
}

#[test]
fn incremental_keys_match_scratch_keys_along_random_games() {
    let starts = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    let mut rng = Rng::new(0xDEAD_BEEF_CAFE_F00D);
    let mut plies = 0;
    let mut games = 0;
    while plies < 10_000 {
        let mut pos = Position::from_fen(starts[games % starts.len()]).unwrap();
        games += 1;
        for _ in 0..300 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m: Move = moves[rng.below(moves.len())];
            pos = pos.make_move(m);
            plies += 1;
            assert_eq!(pos.compute_keys(), (pos.key(), pos.pawn_key()), "after {m} in game {games}");
            assert_eq!(pos.validate(), Ok(()), "after {m}");
            // The FEN round trip reproduces the same key (and everything else).
            assert_eq!(Position::from_fen(&pos.to_fen()).unwrap().key(), pos.key());
        }
    }
    assert!(games > 30);
}

#[test]
fn transpositions_hash_equal() {
    let start = Position::startpos();
    let a = play(&start, &["g1f3", "g8f6", "b1c3", "b8c6"]);
    let b = play(&start, &["b1c3", "b8c6", "g1f3", "g8f6"]);
    assert_eq!(a.key(), b.key());
    assert_eq!(a, b);

    // A double step that allows no en-passant capture leaves no trace in the key: ending on
    // e2e4 (no black pawn can take) hashes like playing it first.
    let c = play(&start, &["e2e4", "e7e6", "d2d3"]);
    let d = play(&start, &["d2d3", "e7e6", "e2e4"]);
    assert_eq!(c.key(), d.key());

    // When the capture is possible, the en-passant file is part of the key.
    let e = play(&start, &["e2e4", "a7a6", "e4e5", "d7d5"]);
    let f = play(&start, &["e2e4", "d7d6", "e4e5", "d6d5"]);
    assert_eq!(e.ep_square().map(|s| s.to_string()), Some("d6".into()));
    assert_ne!(e.key(), play(&start, &["e2e4", "d7d5", "e4e5", "a7a6"]).key());
    assert_eq!(f.ep_square(), None);

    // Losing a castling right changes the key; different routes to the same rights agree.
    let g = play(&start, &["g1f3", "g8f6", "h1g1", "h8g8", "g1h1", "g8h8"]);
    assert_ne!(g.key(), start.key());
    let h = play(&start, &["g1f3", "g8f6", "h1g1", "h8g8", "g1h1", "g8h8", "f3g1", "f6g8"]);
    assert_eq!(h.to_fen().split(' ').nth(2), Some("Qq"));
    assert_ne!(h.key(), start.key());
}

#[test]
fn null_move_flips_side_and_key() {
    let pos = play(&Position::startpos(), &["e2e4", "d7d5", "e4e5", "f7f5"]);
    assert!(pos.ep_square().is_some());
    let null = pos.make_null_move();
    assert_eq!(null.ep_square(), None);
    assert_ne!(null.key(), pos.key());
    assert_eq!(null.compute_keys(), (null.key(), null.pawn_key()));
    assert_eq!(null.make_null_move().compute_keys().0, null.make_null_move().key());
}
