//! Criterion benches for the network: an incremental accumulator update for every legal move
//! of a set of positions (quiet moves, captures, castling, en passant, promotions), a refresh,
//! and the output layer.
//!
//! Run with `cargo bench --bench nnue` (add `RUSTFLAGS="-C target-cpu=native"` for the native
//! build).

use std::hint::black_box;

use corvid::nnue::{bucket, network, Accumulator};
use corvid::Position;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const POSITIONS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "3r2k1/p4ppp/1p2p3/2n5/2P5/1P3NP1/P3PP1P/3R2K1 w - - 0 25",
];

fn nnue_benches(c: &mut Criterion) {
    let net = network();
    let roots: Vec<Position> = POSITIONS.iter().map(|f| Position::from_fen(f).expect("bench FEN")).collect();
    let pairs: Vec<(Position, Accumulator, Position)> = roots
        .iter()
        .flat_map(|root| {
            let acc = net.refresh(root);
            root.legal_moves().into_iter().map(move |m| (*root, acc, root.make_move(m)))
        })
        .collect();

    let mut group = c.benchmark_group("nnue");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.bench_function("update_every_legal_move", |b| {
        let mut out = Accumulator::default();
        b.iter(|| {
            for (before, acc, after) in &pairs {
                net.update(black_box(acc), before, after, &mut out);
                black_box(&out);
            }
        })
    });
    group.bench_function("evaluate_every_legal_move", |b| {
        b.iter(|| {
            let mut sum = 0i64;
            for (_, acc, after) in &pairs {
                sum += i64::from(net.evaluate(black_box(acc), after.side_to_move(), bucket(after)));
            }
            sum
        })
    });
    group.throughput(Throughput::Elements(roots.len() as u64));
    group.bench_function("refresh", |b| {
        b.iter(|| roots.iter().map(|p| net.refresh(black_box(p)).values[0][0]).sum::<i16>())
    });
    group.finish();
}

criterion_group!(benches, nnue_benches);
criterion_main!(benches);
