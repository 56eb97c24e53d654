//! Perft: counts the leaf nodes of the legal move tree, the oracle for move generation and the
//! benchmark users run.
//!
//! Bulk counting: at depth 1 the legal moves are counted by popcount, never made. `divide`
//! reports per root move; roots can be split over threads, and deep counts can use a
//! [`PerftHash`] shared by all threads (lock-free, see its notes).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::position::Position;
use crate::types::Move;

/// The number of leaves `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = *pos;
                pos.make_move_into(m, &mut child);
                if depth == 2 {
                    child.count_legal()
                } else {
                    perft(&child, depth - 1)
                }
            })
            .sum(),
    }
}

/// Perft with a transposition table for the subtrees at depth 2 and more.
pub fn perft_hashed(pos: &Position, depth: u32, hash: &PerftHash) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    if let Some(n) = hash.probe(pos.key(), depth) {
        return n;
    }
    let n = pos.legal_moves().iter().map(|&m| perft_hashed(&pos.make_move(m), depth - 1, hash)).sum();
    hash.store(pos.key(), depth, n);
    n
}

/// Perft per root move, in generation order. `threads` (at least 1) share the root moves; a
/// hash table, if given, is shared by all of them.
pub fn divide(pos: &Position, depth: u32, threads: usize, hash: Option<&PerftHash>) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    if depth == 0 {
        return Vec::new();
    }
    let count = |m: Move| {
        let child = pos.make_move(m);
        match hash {
            Some(h) => perft_hashed(&child, depth - 1, h),
            None => perft(&child, depth - 1),
        }
    };
    let threads = threads.clamp(1, moves.len().max(1));
    if threads == 1 {
        return moves.iter().map(|&m| (m, count(m))).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<AtomicU64> = moves.iter().map(|_| AtomicU64::new(0)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&m) = moves.get(i) else { break };
                results[i].store(count(m), Ordering::Relaxed);
            });
        }
    });
    moves.iter().zip(&results).map(|(&m, n)| (m, n.load(Ordering::Relaxed))).collect()
}

/// A perft transposition table: 16-byte entries of two atomic words, `key ^ data` and `data`,
/// where `data = count << 8 | depth`. A torn write (two threads storing at once) fails the
/// `key` check on probe and reads as a miss, so no lock is needed and no wrong count is returned.
pub struct PerftHash {
    entries: Vec<[AtomicU64; 2]>,
    mask: usize,
}

impl PerftHash {
    /// A table of at most `mb` mebibytes (rounded down to a power of two entries; 1 MiB minimum).
    pub fn new(mb: usize) -> PerftHash {
        let wanted = (mb.max(1) << 20) / std::mem::size_of::<[AtomicU64; 2]>();
        let len = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        let entries = (0..len).map(|_| [AtomicU64::new(0), AtomicU64::new(0)]).collect();
        PerftHash { entries, mask: len - 1 }
    }

    fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        let e = &self.entries[key as usize & self.mask];
        let (check, data) = (e[0].load(Ordering::Relaxed), e[1].load(Ordering::Relaxed));
        (check ^ data == key && data & 0xFF == depth as u64).then_some(data >> 8)
    }

    fn store(&self, key: u64, depth: u32, count: u64) {
        let e = &self.entries[key as usize & self.mask];
        let data = count << 8 | depth as u64 & 0xFF;
        // Deeper subtrees are worth more; keep an entry of greater depth.
        let old = e[1].load(Ordering::Relaxed);
        if old & 0xFF <= depth as u64 || e[0].load(Ordering::Relaxed) ^ old == 0 {
            e[0].store(key ^ data, Ordering::Relaxed);
            e[1].store(data, Ordering::Relaxed);
        }
    }
}

/// One `;Dk n` check of a perft suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteCheck {
    pub line: usize,
    pub fen: String,
    pub depth: u32,
    pub expected: u64,
    /// The count, or the reason the FEN was rejected.
    pub got: Result<u64, String>,
}

impl SuiteCheck {
    pub fn passed(&self) -> bool {
        self.got == Ok(self.expected)
    }
}

/// How to run a suite.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    /// Skip entries deeper than this.
    pub max_depth: u32,
    /// Worker threads, each taking whole positions.
    pub threads: usize,
    /// Hash size per thread in MiB (0: no hash).
    pub hash_mb: usize,
}

impl Default for SuiteOptions {
    fn default() -> SuiteOptions {
        SuiteOptions { max_depth: u32::MAX, threads: 1, hash_mb: 0 }
    }
}

/// A line of a suite file: the FEN and its `(depth, count)` entries.
pub type SuiteLine = (usize, String, Vec<(u32, u64)>);

/// Parses `FEN ;D1 n ;D2 n ...` lines (blank lines and `#` comments skipped).
pub fn parse_suite(text: &str) -> Result<Vec<SuiteLine>, String> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let mut parts = raw.split(';');
        let fen = parts.next().unwrap_or_default().trim().to_string();
        let mut entries = Vec::new();
        for part in parts {
            let mut words = part.split_whitespace();
            let (Some(d), Some(n), None) = (words.next(), words.next(), words.next()) else {
                return Err(format!("line {}: bad entry '{}'", i + 1, part.trim()));
            };
            let depth = d.strip_prefix('D').and_then(|d| d.parse().ok());
            match (depth, n.parse()) {
                (Some(depth), Ok(n)) => entries.push((depth, n)),
                _ => return Err(format!("line {}: bad entry '{}'", i + 1, part.trim())),
            }
        }
        lines.push((i + 1, fen, entries));
    }
    Ok(lines)
}

/// Runs every entry (up to `max_depth`) of the parsed suite; results in file order.
pub fn run_suite(lines: &[SuiteLine], options: &SuiteOptions) -> Vec<SuiteCheck> {
    let run_line = |(line, fen, entries): &SuiteLine, hash: Option<&PerftHash>| -> Vec<SuiteCheck> {
        let pos = Position::from_fen(fen).map_err(|e| e.to_string());
        entries
            .iter()
            .filter(|(d, _)| *d <= options.max_depth)
            .map(|&(depth, expected)| SuiteCheck {
                line: *line,
                fen: fen.clone(),
                depth,
                expected,
                got: pos.clone().map(|p| match hash {
                    Some(h) => perft_hashed(&p, depth, h),
                    None => perft(&p, depth),
                }),
            })
            .collect()
    };
    let next = AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Vec<SuiteCheck>>> = lines.iter().map(|_| Default::default()).collect();
    std::thread::scope(|s| {
        for _ in 0..options.threads.max(1) {
            s.spawn(|| {
                let hash = (options.hash_mb > 0).then(|| PerftHash::new(options.hash_mb));
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(line) = lines.get(i) else { break };
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = run_line(line, hash.as_ref());
                }
            });
        }
    });
    slots.into_iter().flat_map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_lines_parse() {
        let lines = parse_suite("# c\n\n8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9\n").unwrap();
        assert_eq!(lines, vec![(3, "8/8/8/8/8/8/8/K6k w - - 0 1".to_string(), vec![(1, 3), (2, 9)])]);
        assert!(parse_suite("x ;D1").is_err());
        assert!(parse_suite("x ;Dq 4").is_err());
    }

    #[test]
    fn hashed_and_threaded_agree_with_plain() {
        let pos = Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
        let plain: Vec<_> = divide(&pos, 3, 1, None);
        let hash = PerftHash::new(1);
        assert_eq!(divide(&pos, 3, 2, Some(&hash)), plain);
        assert_eq!(divide(&pos, 3, 2, Some(&hash)), plain, "second run reads the filled table");
        assert_eq!(plain.iter().map(|x| x.1).sum::<u64>(), 97862);
    }
}
