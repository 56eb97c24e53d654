//! Criterion benches for the core: perft 5 from the start position and Kiwipete, legal move
//! generation over 25 fixed positions, `make_move`, and leaf counting.
//!
//! Run with `cargo bench` (add `RUSTFLAGS="-C target-cpu=native"` for the native build).

use std::hint::black_box;

use corvid::perft::perft;
use corvid::Position;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Openings, middlegames, endgames, checks, pins, promotions, en passant, Chess960.
const POSITIONS: [&str; 25] = [
    START,
    KIWIPETE,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 0 4",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 4 10",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 3 11",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2N2B2/PPPQ2PP/R4R1K b - - 0 13",
    "3r2k1/p4ppp/1p2p3/2n5/2P5/1P3NP1/P3PP1P/3R2K1 w - - 0 25",
    "8/5pk1/6p1/3R4/7P/6P1/r4PK1/8 b - - 3 40",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 50",
    "8/8/8/8/8/5k2/5p2/5K2 w - - 0 60",
    "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 30",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1",
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
    "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
    "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1",
    "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "n1n4k/1P6/8/8/8/6pp/8/5NNK w - - 0 1",
];

fn perft_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft5");
    group.sample_size(10);
    for (name, fen) in [("startpos", START), ("kiwipete", KIWIPETE)] {
        let pos = Position::from_fen(fen).unwrap();
        group.throughput(Throughput::Elements(perft(&pos, 5)));
        group.bench_function(name, |b| b.iter(|| perft(black_box(&pos), 5)));
    }
    group.finish();
}

fn generation_benches(c: &mut Criterion) {
    let positions: Vec<Position> = POSITIONS.iter().map(|f| Position::from_fen(f).unwrap()).collect();
    let moves: Vec<_> = positions.iter().map(|p| p.legal_moves()).collect();
    let total: usize = moves.iter().map(|m| m.len()).sum();

    let mut group = c.benchmark_group("generation");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("legal_moves_25_positions", |b| {
        b.iter(|| positions.iter().map(|p| black_box(p).legal_moves().len()).sum::<usize>())
    });
    group.bench_function("count_legal_25_positions", |b| {
        b.iter(|| positions.iter().map(|p| black_box(p).count_legal()).sum::<u64>())
    });
    group.finish();

    let mut group = c.benchmark_group("make");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("make_move_every_legal_move", |b| {
        b.iter(|| {
            let mut keys = 0u64;
            for (pos, list) in positions.iter().zip(&moves) {
                for &m in list {
                    keys ^= black_box(pos).make_move(m).key();
                }
            }
            keys
        })
    });
    group.finish();
}

criterion_group!(benches, perft_benches, generation_benches);
criterion_main!(benches);
