//! The classic perft positions (start, Kiwipete, positions 3 to 6 of the standard set) to depths
//! that run in seconds in a release build.

use corvid::perft::{divide, perft, PerftHash};
use corvid::Position;

const CASES: &[(&str, &[u64])] = &[
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &[20, 400, 8902, 197281, 4865609, 119060324]),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &[48, 2039, 97862, 4085603, 193690690]),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", &[14, 191, 2812, 43238, 674624, 11030083, 178633661]),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", &[6, 264, 9467, 422333, 15833292]),
    ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", &[6, 264, 9467, 422333, 15833292]),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", &[44, 1486, 62379, 2103487, 89941194]),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2079, 89890, 3894594, 164075551],
    ),
];

#[test]
fn classic_positions() {
    for (fen, counts) in CASES {
        let pos = Position::from_fen(fen).unwrap();
        for (i, &expected) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(perft(&pos, depth), expected, "{fen} depth {depth}");
        }
    }
}

#[test]
fn divide_threads_and_hash_agree() {
    let (fen, counts) = CASES[1];
    let pos = Position::from_fen(fen).unwrap();
    let plain = divide(&pos, 4, 1, None);
    assert_eq!(plain.len(), 48);
    assert_eq!(plain.iter().map(|r| r.1).sum::<u64>(), counts[3]);
    let hash = PerftHash::new(4);
    assert_eq!(divide(&pos, 4, 2, None), plain);
    assert_eq!(divide(&pos, 4, 2, Some(&hash)), plain);
    assert_eq!(divide(&pos, 4, 1, Some(&hash)), plain);
}

#[test]
fn depth_zero_is_one_leaf() {
    assert_eq!(perft(&Position::startpos(), 0), 1);
}
