//! FEN parsing and printing: round trips, X-FEN and Shredder-FEN castling, and malformed input
//! rejected with the error that names the problem (never a panic).

use corvid::FenError;
use corvid::Position;
use corvid::{CastleSide, Color, Rank, Square};

#[test]
fn round_trips() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "4k3/8/8/8/8/8/8/4K2R w K - 99 150",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
        "2r1kr2/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1",
        "8/8/8/8/8/8/8/K6k b - - 0 1",
    ] {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(pos.to_fen(), fen);
        assert_eq!(Position::from_fen(&pos.to_fen()).unwrap(), pos);
    }
}

#[test]
fn short_fen_and_normalisation() {
    // Four fields: the clocks default to 0 1.
    let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - -").unwrap();
    assert_eq!(pos.to_fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    // A well-formed en-passant square without a legal capture is dropped.
    let pos = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
    assert_eq!(pos.ep_square(), None);
    assert_eq!(pos.to_fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    // ... and kept when one exists.
    let pos = Position::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
    assert_eq!(pos.ep_square(), Some(Square::E3));
    // Shredder-FEN and X-FEN describe the same Chess960 rights.
    let shredder = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9").unwrap();
    let xfen = Position::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9").unwrap();
    assert_eq!(shredder.key(), xfen.key());
    assert_eq!(shredder.castle_rook(Color::White, CastleSide::Queen), Some(Square::F1));
    assert_eq!(shredder.castle_rook(Color::Black, CastleSide::King), Some(Square::H8));
    assert!(shredder.is_chess960());
    assert!(!Position::startpos().is_chess960());
    // Outermost rooks named by file are printed as KQkq.
    let files = Position::from_fen("2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1").unwrap();
    assert_eq!(files.to_fen(), "2r1kr2/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1");
    // X-FEN with an inner rook is written with its file.
    let inner = Position::from_fen("4k3/8/8/8/8/8/8/R1R1K3 w Q - 0 1").unwrap();
    assert_eq!(inner.castle_rook(Color::White, CastleSide::Queen), Some(Square::A1));
    let inner = Position::from_fen("4k3/8/8/8/8/8/8/R1R1K3 w C - 0 1").unwrap();
    assert_eq!(inner.castle_rook(Color::White, CastleSide::Queen), Some(Square::C1));
    assert_eq!(inner.to_fen(), "4k3/8/8/8/8/8/8/R1R1K3 w C - 0 1");
}

#[test]
fn malformed_fens_are_rejected_with_the_right_error() {
    use FenError::*;
    let k = "8/8/8/8/8/8/8/K6k";
    let cases: Vec<(String, FenError)> = vec![
        (String::new(), FieldCount(0)),
        ("   ".into(), FieldCount(0)),
        (k.into(), FieldCount(1)),
        (format!("{k} w"), FieldCount(2)),
        (format!("{k} w -"), FieldCount(3)),
        (format!("{k} w - - 0 1 extra"), FieldCount(7)),
        ("8/8/8/8/8/8/K6k w - - 0 1".into(), RankCount(7)),
        ("8/8/8/8/8/8/8/8/K6k w - - 0 1".into(), RankCount(9)),
        ("8/8/8/8/8/8/8/K6k/ w - - 0 1".into(), RankCount(9)),
        ("8/8/8/8/8/8/8/K6x w - - 0 1".into(), BadPieceChar('x')),
        ("8/8/8/8/8/8/8/K0k6 w - - 0 1".into(), BadPieceChar('0')),
        ("9/8/8/8/8/8/8/K6k w - - 0 1".into(), BadPieceChar('9')),
        ("8/8/8/8/8/8/8/K6\u{2654} w - - 0 1".into(), BadPieceChar('\u{2654}')),
        ("8/8/8/8/8/8/8/K-6k w - - 0 1".into(), BadPieceChar('-')),
        ("8/8/8/8/8/8/8/K7k w - - 0 1".into(), RankTooLong(Rank::First)),
        ("ppppppppp/8/8/8/8/8/8/K6k w - - 0 1".into(), RankTooLong(Rank::Eighth)),
        ("8/8/8/44k/8/8/8/K7 w - - 0 1".into(), RankTooLong(Rank::Fifth)),
        ("8/8/8/8/8/8/8/K5k w - - 0 1".into(), RankTooShort(Rank::First)),
        ("7/8/8/8/8/8/8/K6k w - - 0 1".into(), RankTooShort(Rank::Eighth)),
        ("8/8/8//8/8/8/K6k w - - 0 1".into(), RankTooShort(Rank::Fifth)),
        ("8/8/8/8/8/8/8/7k w - - 0 1".into(), MissingKing(Color::White)),
        ("8/8/8/8/8/8/8/K7 w - - 0 1".into(), MissingKing(Color::Black)),
        ("8/8/8/8/8/8/8/8 w - - 0 1".into(), MissingKing(Color::White)),
        ("8/8/8/8/8/8/8/KK5k w - - 0 1".into(), ExtraKing(Color::White)),
        ("kk6/8/8/8/8/8/8/K7 w - - 0 1".into(), ExtraKing(Color::Black)),
        ("P6k/8/8/8/8/8/8/K7 w - - 0 1".into(), PawnOnBackRank(Square::A8)),
        ("7k/8/8/8/8/8/8/K6p w - - 0 1".into(), PawnOnBackRank(Square::H1)),
        (format!("{k} x - - 0 1"), BadSideToMove("x".into())),
        (format!("{k} W - - 0 1"), BadSideToMove("W".into())),
        (format!("{k} white - - 0 1"), BadSideToMove("white".into())),
        ("k6R/8/8/8/8/8/8/K7 w - - 0 1".into(), OpponentInCheck),
        ("k7/8/8/8/8/1n6/8/K7 b - - 0 1".into(), OpponentInCheck),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkqK - 0 1".into(), BadCastling("KQkqK".into())),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KX - 0 1".into(), BadCastling("KX".into())),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KK - 0 1".into(), BadCastling("KK".into())),
        ("r3k2r/8/8/8/8/8/8/R3K2R w -- - 0 1".into(), BadCastling("--".into())),
        ("r3k2r/8/8/8/8/8/8/R3K2R w K1 - 0 1".into(), BadCastling("K1".into())),
        ("r3k2r/8/8/8/8/8/4K3/R6R w K - 0 1".into(), CastlingWithoutKing('K')),
        ("r6r/4k3/8/8/8/8/8/R3K2R w q - 0 1".into(), CastlingWithoutKing('q')),
        ("r3k2r/8/8/8/8/8/8/R3K3 w K - 0 1".into(), CastlingWithoutRook('K')),
        ("4k3/8/8/8/8/8/8/R3K2R w Kq - 0 1".into(), CastlingWithoutRook('q')),
        ("r3k2r/8/8/8/8/8/8/R3K2R w C - 0 1".into(), CastlingWithoutRook('C')),
        ("r3k2r/8/8/8/8/8/8/R3K2R w E - 0 1".into(), CastlingWithoutRook('E')),
        (format!("{k} w - e9 0 1"), BadEnPassant("e9".into())),
        (format!("{k} w - z3 0 1"), BadEnPassant("z3".into())),
        (format!("{k} w - e 0 1"), BadEnPassant("e".into())),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d3 0 1".into(), ImpossibleEnPassant(Square::D3)),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1".into(), ImpossibleEnPassant(Square::E6)),
        ("4k3/8/3n4/3pP3/8/8/8/4K3 w - d6 0 1".into(), ImpossibleEnPassant(Square::D6)),
        ("4k3/3n4/8/3pP3/8/8/8/4K3 w - d6 0 1".into(), ImpossibleEnPassant(Square::D6)),
        (format!("{k} w - - x 1"), BadHalfmoveClock("x".into())),
        (format!("{k} w - - -1 1"), BadHalfmoveClock("-1".into())),
        (format!("{k} w - - 99999999999 1"), BadHalfmoveClock("99999999999".into())),
        (format!("{k} w - - 0 0"), BadFullmoveNumber("0".into())),
        (format!("{k} w - - 0 abc"), BadFullmoveNumber("abc".into())),
        (format!("{k} w - - 0 1.5"), BadFullmoveNumber("1.5".into())),
        (format!("{k} w - - 0 -3"), BadFullmoveNumber("-3".into())),
    ];
    assert!(cases.len() >= 40);
    for (fen, expected) in cases {
        assert_eq!(Position::from_fen(&fen).err(), Some(expected), "{fen:?}");
    }
}

#[test]
fn mutated_fens_never_panic() {
    // Byte-level mutations of valid FENs: every result is either a position that passes its own
    // consistency check or a typed error.
    let seeds = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "2r1kr2/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1",
    ];
    let alphabet = b"pnbrqkPNBRQK12345678/ wb-KQkqABCDEFGHabcdefgh0x9";
    let mut rng = corvid::rng::Rng::new(0x1234_5678_9ABC_DEF1);
    let mut next = || rng.next_u64();
    let mut accepted = 0;
    for i in 0..200_000 {
        let mut bytes = seeds[i % seeds.len()].as_bytes().to_vec();
        for _ in 0..1 + next() % 3 {
            let at = (next() % bytes.len() as u64) as usize;
            let c = alphabet[(next() % alphabet.len() as u64) as usize];
            match next() % 3 {
                0 => bytes[at] = c,
                1 => bytes.insert(at, c),
                _ => {
                    bytes.remove(at);
                }
            }
            if bytes.is_empty() {
                bytes.push(b'8');
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(pos) = Position::from_fen(&text) {
            accepted += 1;
            assert_eq!(pos.validate(), Ok(()), "{text}");
            assert_eq!(Position::from_fen(&pos.to_fen()).as_ref(), Ok(&pos), "{text}");
            let _ = pos.count_legal();
        }
    }
    assert!(accepted > 1000, "mutations should also produce valid positions ({accepted})");
}

#[test]
fn side_to_move_may_be_in_check() {
    let pos = Position::from_fen("k6R/8/8/8/8/8/8/K7 b - - 0 1").unwrap();
    assert!(pos.in_check());
    assert_eq!(pos.side_to_move(), Color::Black);
}
