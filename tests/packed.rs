//! The training data Corvid writes, read back by the trainer's own reader (the `bulletformat`
//! crate of bullet): every square, the side to move's score and result agree.

use bulletformat::chess::MarlinFormat;
use bulletformat::{BulletFormat, DataLoader};
use corvid::tools::packed::{pack, Wdl};
use corvid::Position;
use corvid::{Color, PieceType};

#[test]
fn bullet_reads_the_boards_corvid_packs() {
    let mut rng = corvid::rng::Rng::new(2024);
    let mut written = Vec::new();
    for start in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
    ] {
        let mut pos = Position::from_fen(start).unwrap();
        for ply in 0..80 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let score = (ply as i16 - 40) * 13;
            let wdl = [Wdl::BlackWin, Wdl::Draw, Wdl::WhiteWin][ply % 3];
            written.push((pos, score, wdl));
            pos = pos.make_move(moves[rng.below(moves.len())]);
        }
    }
    let path = std::env::temp_dir().join(format!("corvid-marlin-{}.bin", std::process::id()));
    let bytes: Vec<u8> = written.iter().flat_map(|(pos, score, wdl)| pack(pos, *score, *wdl)).collect();
    std::fs::write(&path, bytes).unwrap();
    let mut read = Vec::new();
    DataLoader::<MarlinFormat>::new(&path, 1).unwrap().map_positions(|b| read.push(*b));
    std::fs::remove_file(&path).ok();
    assert_eq!(read.len(), written.len());
    assert!(read.len() > 200);
    for (board, (pos, score, wdl)) in read.into_iter().zip(written) {
        assert_eq!(board.occ(), pos.occupied().0);
        let mut squares = 0;
        for (code, sq) in board {
            let piece = pos.piece_on(corvid::Square::new(sq).unwrap()).unwrap();
            let color = if code & 8 != 0 { Color::Black } else { Color::White };
            let kind = if code & 7 == 6 { PieceType::Rook } else { PieceType::ALL[(code & 7) as usize] };
            assert_eq!((color, kind), (piece.color(), piece.piece_type()), "{} square {sq}", pos.to_fen());
            squares += 1;
        }
        assert_eq!(squares, pos.occupied().count());
        let stm_sign = if pos.side_to_move() == Color::White { 1 } else { -1 };
        assert_eq!(board.score(), score * stm_sign, "{}", pos.to_fen());
        let white_result = wdl as u8 as f32 / 2.0;
        let stm_result = if stm_sign == 1 { white_result } else { 1.0 - white_result };
        assert_eq!(board.result(), stm_result, "{}", pos.to_fen());
    }
}
