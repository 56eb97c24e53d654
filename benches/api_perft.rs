//! Perft as a crate user writes it, through each library's public face, side by side on one
//! machine (issue 80, item 6): Corvid's `legal_moves`, `make_move` and `count_legal` at the last
//! ply, against cozy-chess's `generate_moves`, `play_unchecked` and the move sets' `len` at the
//! last ply; and Corvid's own `perft` (the engine's, which counts the last two plies by popcount
//! without making the moves) beside them.
//!
//! Run with `cargo bench --bench api_perft`. cozy-chess is built with its default features (as
//! `cozy-chess = "0.3"` gives it): magic lookups, no PEXT.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const POSITIONS: [(&str, &str, u32); 3] = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
    ("endgame", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6),
];

/// Perft through Corvid's public face: every move made, the last ply counted.
fn corvid_api_perft(pos: &corvid::Position, depth: u32) -> u64 {
    if depth <= 1 {
        return if depth == 1 { pos.count_legal() } else { 1 };
    }
    pos.legal_moves().iter().map(|&m| corvid_api_perft(&pos.make_move(m), depth - 1)).sum()
}

/// Perft through cozy-chess's public face, the same way.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    if depth <= 1 {
        if depth == 0 {
            return 1;
        }
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
        return nodes;
    }
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            nodes += cozy_perft(&child, depth - 1);
        }
        false
    });
    nodes
}

fn api_perft(c: &mut Criterion) {
    for (name, fen, depth) in POSITIONS {
        let pos = corvid::Position::from_fen(fen).unwrap();
        let board = cozy_chess::Board::from_fen(fen, false).unwrap();
        let nodes = corvid::perft::perft(&pos, depth);
        // The three count the same leaves, or the comparison means nothing.
        assert_eq!(corvid_api_perft(&pos, depth), nodes, "{name}");
        assert_eq!(cozy_perft(&board, depth), nodes, "{name}");
        let mut group = c.benchmark_group(format!("perft {depth} {name}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function("corvid public API", |b| b.iter(|| corvid_api_perft(black_box(&pos), depth)));
        group.bench_function("cozy-chess public API", |b| b.iter(|| cozy_perft(black_box(&board), depth)));
        group.bench_function("corvid perft", |b| b.iter(|| corvid::perft::perft(black_box(&pos), depth)));
        group.finish();
    }
}

criterion_group!(benches, api_perft);
criterion_main!(benches);
