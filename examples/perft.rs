//! Perft through Corvid's library: the leaves below a position, per root move, as move
//! generators are compared.
//!
//!     cargo run --release --example perft -- [DEPTH] [FEN]
//!
//! DEPTH defaults to 6, FEN to the start position. Uses every core and a 256 MiB table.

use std::process::ExitCode;
use std::time::Instant;

use corvid::perft::{divide, PerftHash};
use corvid::Position;

/// The counts per root move (as UCI moves) and their total.
fn count(pos: &Position, depth: u32, threads: usize, hash: &PerftHash) -> (Vec<(String, u64)>, u64) {
    let per_move: Vec<(String, u64)> = divide(pos, depth, threads, Some(hash))
        .into_iter()
        .map(|(m, n)| (m.to_uci(pos.is_chess960()).to_string(), n))
        .collect();
    let total = if depth == 0 { 1 } else { per_move.iter().map(|(_, n)| n).sum() };
    (per_move, total)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth = match args.first().map(|d| d.parse::<u32>()) {
        None => 6,
        Some(Ok(d)) if d <= 20 => d,
        Some(_) => {
            eprintln!("perft: the depth must be a number from 0 to 20, not {:?}", args[0]);
            return ExitCode::FAILURE;
        }
    };
    let pos = match args.get(1..).filter(|fen| !fen.is_empty()) {
        None => Position::startpos(),
        Some(fen) => match Position::from_fen(&fen.join(" ")) {
            Ok(pos) => pos,
            Err(e) => {
                eprintln!("perft: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let hash = PerftHash::new(256);
    let start = Instant::now();
    let (per_move, total) = count(&pos, depth, threads, &hash);
    let seconds = start.elapsed().as_secs_f64();
    for (m, n) in &per_move {
        println!("{m}: {n}");
    }
    println!("\nNodes: {total}");
    println!("Time: {:.3} s, {:.0} nodes a second, {threads} threads", seconds, total as f64 / seconds.max(1e-9));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_counts() {
        // Kiwipete and position 3 of the Chess Programming Wiki's perft results.
        let hash = PerftHash::new(16);
        let kiwipete =
            Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
        assert_eq!(count(&kiwipete, 3, 2, &hash).1, 97_862);
        let pos3 = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
        let (per_move, total) = count(&pos3, 4, 2, &hash);
        assert_eq!(total, 43_238);
        assert_eq!(per_move.len(), 14);
        assert_eq!(count(&Position::startpos(), 0, 1, &hash).1, 1);
    }
}
