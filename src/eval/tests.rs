//! Evaluation tests: colour symmetry, insufficient material, phase bounds, the pawn table, and
//! the trace reproducing the engine's score.

use super::*;
use crate::position::Position;

const FENS: [&str; 22] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/ppp1n1pp/2nbbp2/4p3/N3P3/4BNP1/PPP2PBP/R2R2K1 b kq - 6 11",
    "7k/b7/7P/8/1p6/8/2B2p2/5K2 b - - 63 138",
    "3rk2r/ppRnbpp1/4pn1p/7P/3pP3/1N1B1P2/PP1BKP2/7R b k - 3 19",
    "r3b3/5pk1/2p1p1pq/1pP1P2p/1P1Q1P2/rB1R2P1/6PK/3R4 b - - 0 54",
    "r5k1/5pp1/r7/P1Ppp3/1P3P2/6q1/4QR2/1R3K2 w - - 0 37",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 1 8",
    "8/8/4k3/8/2K5/8/3P4/8 w - - 0 1",
    "8/5pk1/6p1/8/8/6P1/5PK1/3B4 w - - 0 1",
    "8/5pk1/5bp1/8/8/6P1/5PK1/3B4 b - - 0 1",
    "6k1/8/8/8/8/8/8/4KNN1 w - - 0 1",
    "6k1/8/8/8/8/8/3r4/4KB2 w - - 0 1",
    "rnbqkb1r/pp1p1ppp/5n2/2pPp3/8/8/PPP1PPPP/RNBQKBNR w KQkq c6 0 4",
    "2kr3r/pp1q1ppp/2n1bn2/2bpp3/4P3/2NP1N2/PPPBBPPP/R2QK2R w KQ - 4 9",
    "8/1P6/8/8/8/8/6k1/K7 w - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
    "r2q1rk1/1b2bppp/p2p1n2/1p2p3/3NP3/1BN1B3/PPP2PPP/R2Q1RK1 w - - 0 12",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "1k6/8/8/8/8/8/8/1KQ5 b - - 0 1",
    "r4rk1/pp3ppp/8/3q4/3Q4/8/PP3PPP/R4RK1 w - - 0 20",
    "8/8/8/3k4/8/8/8/2BNK3 w - - 0 1",
];

/// The colour-flipped FEN: ranks mirrored, colours and side to move swapped.
pub(crate) fn mirror_fen(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let swap = |c: char| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
    let board: Vec<String> = fields[0].split('/').rev().map(|rank| rank.chars().map(swap).collect()).collect();
    let side = if fields[1] == "w" { "b" } else { "w" };
    let castling = if fields[2] == "-" {
        "-".to_string()
    } else {
        let swapped: String = fields[2].chars().map(swap).collect();
        let mut upper: Vec<char> = swapped.chars().filter(char::is_ascii_uppercase).collect();
        let lower: Vec<char> = swapped.chars().filter(char::is_ascii_lowercase).collect();
        upper.extend(lower);
        upper.into_iter().collect()
    };
    let ep = if fields[3] == "-" {
        "-".to_string()
    } else {
        let b = fields[3].as_bytes();
        format!("{}{}", b[0] as char, (b'1' + b'8' - b[1]) as char)
    };
    format!("{} {side} {castling} {ep} {} {}", board.join("/"), fields[4], fields[5])
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"))
}

#[test]
fn evaluation_is_colour_symmetric() {
    for fen in FENS {
        let (a, b) = (pos(fen), pos(&mirror_fen(fen)));
        assert_eq!(evaluate(&a), evaluate(&b), "{fen} vs {}", mirror_fen(fen));
        assert_eq!(a.psq(), -b.psq(), "{fen}");
    }
}

#[test]
fn start_position_is_about_even() {
    let v = evaluate(&Position::startpos());
    assert!(v.abs() <= 40, "startpos {v}");
}

#[test]
fn insufficient_material_is_zero() {
    for fen in ["8/8/4k3/8/8/3K4/8/8 w - - 0 1", "8/8/4k3/8/8/3K4/8/6N1 b - - 0 1", "8/8/4k3/8/8/3K4/8/6b1 w - - 0 1"] {
        assert!(insufficient_material(&pos(fen)));
        assert_eq!(evaluate(&pos(fen)), 0, "{fen}");
    }
    assert!(!insufficient_material(&pos("8/8/4k3/8/8/3K4/8/5NN1 w - - 0 1")));
    assert!(!insufficient_material(&pos("8/8/4k3/8/8/3K4/7P/8 w - - 0 1")));
}

#[test]
fn phase_and_scale_stay_in_bounds() {
    let mut coef = Coefficients::default();
    for fen in FENS {
        let outcome = trace(&pos(fen), &mut coef);
        assert!((0..=MAX_PHASE).contains(&outcome.phase), "{fen}");
        assert!((0..=SCALE_NORMAL).contains(&outcome.scale), "{fen}");
    }
    assert_eq!(trace(&Position::startpos(), &mut coef).phase, MAX_PHASE);
    assert_eq!(trace(&pos("8/8/4k3/8/8/3K4/7P/8 w - - 0 1"), &mut coef).phase, 0);
    // Opposite-coloured bishops and lone minor pieces are scaled down.
    assert!(trace(&pos("8/5pk1/5bp1/8/8/6P1/5PK1/3B4 b - - 0 1"), &mut coef).scale < SCALE_NORMAL);
    assert_eq!(trace(&pos("8/8/8/3k4/8/8/8/2B1K3 w - - 0 1"), &mut coef).scale, 0);
    assert_eq!(trace(&pos("8/8/8/3k4/8/8/8/2BNK3 w - - 0 1"), &mut coef).scale, SCALE_NORMAL);
}

#[test]
fn pawn_table_hit_equals_miss() {
    let mut table = PawnTable::new(64);
    for fen in FENS {
        let p = pos(fen);
        let fresh = evaluate(&p);
        let miss = evaluate_with(&p, &mut table);
        let hit = evaluate_with(&p, &mut table);
        assert_eq!((miss, hit), (fresh, fresh), "{fen}");
    }
    let mut state = EvalState::new(16);
    for fen in FENS.iter().chain(FENS.iter()) {
        assert_eq!(state.evaluate(&pos(fen)), evaluate(&pos(fen)));
    }
}

#[test]
fn trace_reconstructs_the_score() {
    let mut coef = Coefficients::default();
    for fen in FENS {
        let p = pos(fen);
        // Neither the dead draw nor the bare king's known win is a term of the tuned function.
        if insufficient_material(&p) || super::bare_king(&p).is_some() {
            continue;
        }
        let outcome = trace(&p, &mut coef);
        let mut sum = Score::ZERO;
        for (i, c) in coef.counts.iter().enumerate() {
            sum += W[i] * (c[0] - c[1]);
        }
        assert_eq!(sum, outcome.score, "{fen}");
        let white = taper(Outcome { score: sum, ..outcome });
        let stm = if p.side_to_move() == crate::types::Color::White { white } else { -white };
        assert_eq!(stm, evaluate(&p), "{fen}");
        // The same in floating point, as the tuner computes it.
        let (mut mg, mut eg) = (0.0f64, 0.0f64);
        for (i, c) in coef.counts.iter().enumerate() {
            mg += f64::from(W[i].mg() * (c[0] - c[1]));
            eg += f64::from(W[i].eg() * (c[0] - c[1]));
        }
        let phase = f64::from(outcome.phase) / f64::from(MAX_PHASE);
        let float = mg * phase + eg * (1.0 - phase) * f64::from(outcome.scale) / f64::from(SCALE_NORMAL);
        assert!((float - f64::from(white)).abs() < 1.0, "{fen}: {float} vs {white}");
        let terms = trace_terms(&p);
        let total = terms.last().expect("a total line");
        assert_eq!(total.1 - total.2, outcome.score, "{fen}");
    }
}

#[test]
fn mirror_fen_round_trips() {
    for fen in FENS {
        assert_eq!(mirror_fen(&mirror_fen(fen)), fen);
    }
}

#[test]
fn report_mentions_every_term() {
    let report = eval_report(&Position::startpos());
    for term in ["Material", "Mobility", "King safety", "Threats", "Tempo", "final evaluation"] {
        assert!(report.contains(term), "{report}");
    }
}

/// How many times parameter `index` was applied for White and for Black in `fen`.
fn applied(fen: &str, index: usize) -> [i32; 2] {
    let mut coef = Coefficients::default();
    trace(&pos(fen), &mut coef);
    coef.counts[index]
}

#[test]
fn outposts_need_a_guard_and_no_enemy_pawn_that_can_chase() {
    use crate::weights::layout::OUTPOST;
    // Knight on d5 guarded by e4; Black's pawns on a7 and h7 can never attack d5.
    assert_eq!(applied("4k3/p6p/8/3N4/4P3/8/8/4K3 w - - 0 1", OUTPOST), [1, 0]);
    // ... but a pawn on c7 can (c6), and without e4 nothing guards it.
    assert_eq!(applied("4k3/p1p4p/8/3N4/4P3/8/8/4K3 w - - 0 1", OUTPOST), [0, 0]);
    assert_eq!(applied("4k3/p6p/8/3N4/8/8/4P3/4K3 w - - 0 1", OUTPOST), [0, 0]);
    // The bishop entry, for Black: a bishop on e4 guarded by d5, no white pawn on d or f files.
    assert_eq!(applied("4k3/8/8/3p4/4b3/8/P6P/4K3 w - - 0 1", OUTPOST + 1), [0, 1]);
}

#[test]
fn safe_checks_count_squares_the_defence_does_not_cover() {
    use crate::weights::layout::SAFE_CHECK;
    let knight = SAFE_CHECK + crate::types::PieceType::Knight.index();
    // Of the knight checks on g8 (e7, f6, h6) the knight on e4 reaches f6, and nothing guards it.
    assert_eq!(applied("6k1/5p1p/8/8/4N3/8/8/4K3 w - - 0 1", knight), [1, 0]);
    // A pawn on g7 guards f6.
    assert_eq!(applied("6k1/5ppp/8/8/4N3/8/8/4K3 w - - 0 1", knight), [0, 0]);
}

#[test]
fn pawn_push_threats_and_open_king_files() {
    use crate::weights::layout::{KING_OPEN_FILE, THREAT_PAWN_PUSH};
    // d4-d5 would attack the knight on e6; d5 is not attacked by a black pawn.
    assert_eq!(applied("4k3/8/4n3/8/3P4/8/8/4K3 w - - 0 1", THREAT_PAWN_PUSH), [1, 0]);
    // With a black pawn on c6 guarding d5 the push is not safe.
    assert_eq!(applied("4k3/8/2p1n3/8/3P4/8/8/4K3 w - - 0 1", THREAT_PAWN_PUSH), [0, 0]);
    // White's king on g1 with no g-pawn: half-open (Black has g7), Black's king on b8: fully open.
    let fen = "1k6/6p1/8/8/8/8/5P1P/6K1 w - - 0 1";
    assert_eq!(applied(fen, KING_OPEN_FILE), [1, 0]);
    assert_eq!(applied(fen, KING_OPEN_FILE + 1), [0, 1]);
}

#[test]
fn space_and_pawnless_flanks() {
    use crate::weights::layout::{PAWNLESS_FLANK, SPACE};
    // Kings on g1 and b8, pawns only on the a- and b-files: White's flank (e-h) is bare.
    assert_eq!(applied("1k6/pp6/8/8/8/8/PP6/6K1 w - - 0 1", PAWNLESS_FLANK), [1, 0]);
    // Space from the start position: c3-f3 and c4-f4 for each side (c2-f2 hold pawns).
    assert_eq!(applied("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", SPACE), [8, 8]);
    // After 1.d4 e6 2.e4: White has d2 e2 c3 d3 e3 f3 c4 f4, and d2 d3 e2 e3 behind its centre
    // pawns count twice (12); Black has e7 (behind e6, twice) c6 d6 f6, while d4 and e4 take
    // c5 d5 e5 f5 (5).
    assert_eq!(applied("rnbqkbnr/pppp1ppp/4p3/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2", SPACE), [12, 5]);
}

#[test]
fn bishops_on_long_diagonals() {
    use crate::weights::layout::LONG_DIAGONAL;
    // A bishop on b2 sees d4 and e5 through an empty centre; a pawn on d4 blocks it.
    assert_eq!(applied("4k3/8/8/8/8/8/1B6/4K3 w - - 0 1", LONG_DIAGONAL), [1, 0]);
    assert_eq!(applied("4k3/8/8/8/3P4/8/1B6/4K3 w - - 0 1", LONG_DIAGONAL), [0, 0]);
}
