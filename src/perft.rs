//! Perft: counts the leaf nodes of the legal move tree, the oracle for move generation and the
//! benchmark users run.
//!
//! Bulk counting: at depth 1 the legal moves are counted by popcount, never made. At depth 2
//! the moves go from the generator straight into a make (no move list) that writes only what
//! the generator reads (the bitboards, side, rights, en passant, checkers and pins; the keys and
//! the evaluation's sum stay stale: perft never reads them), and the child is counted. `divide`
//! reports per root move; roots can be split over threads, and deep counts can use a
//! [`PerftHash`] shared by all threads (lock-free, see its notes).

use crate::clock::Moment;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crate::position::Position;
use crate::types::Move;

/// The number of leaves `depth` plies below `pos`.
///
/// ```
/// use corvid::{perft::perft, Position};
///
/// // Kiwipete, the published counts.
/// let pos = Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
/// assert_eq!(perft(&pos, 1), 48);
/// assert_eq!(perft(&pos, 3), 97_862);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal(),
        2 => pos.perft_frontier(),
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = *pos;
                pos.make_move_bits_into(m, &mut child);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// Perft with a transposition table for the subtrees at depth 2 and more.
pub fn perft_hashed(pos: &Position, depth: u32, hash: &PerftHash) -> u64 {
    count(pos, depth, Some(hash), &AtomicBool::new(false))
}

/// Subtrees this deep or shallower are counted without looking at the stop flag (a few
/// milliseconds at most), so the check costs nothing measurable.
const STOP_CHECK_DEPTH: u32 = 4;

/// The leaves below `pos`, with the table if given; returns early (a wrong count, which the
/// caller discards) once `stop` is set. A count cut short is never stored.
fn count(pos: &Position, depth: u32, hash: Option<&PerftHash>, stop: &AtomicBool) -> u64 {
    if depth <= 1 || (hash.is_none() && depth <= STOP_CHECK_DEPTH) {
        return perft(pos, depth);
    }
    if let Some(n) = hash.and_then(|h| h.probe(pos.key(), depth)) {
        return n;
    }
    if depth > STOP_CHECK_DEPTH && stop.load(Ordering::Relaxed) {
        return 0;
    }
    let n = pos.legal_moves().iter().map(|&m| count(&pos.make_move(m), depth - 1, hash, stop)).sum();
    if let Some(h) = hash.filter(|_| !stop.load(Ordering::Relaxed)) {
        h.store(pos.key(), depth, n);
    }
    n
}

/// Perft per root move, in generation order. `threads` (at least 1) share the work; a hash
/// table, if given, is shared by all of them.
///
/// ```
/// use corvid::perft::{divide, PerftHash};
/// use corvid::Position;
///
/// let pos = Position::startpos();
/// let hash = PerftHash::new(16);
/// let counts = divide(&pos, 5, 2, Some(&hash));
/// assert_eq!(counts.len(), 20);
/// assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), 4_865_609);
/// let e4 = pos.parse_uci_move("e2e4").unwrap();
/// assert_eq!(counts.iter().find(|(m, _)| *m == e4).unwrap().1, 405_385);
/// ```
pub fn divide(pos: &Position, depth: u32, threads: usize, hash: Option<&PerftHash>) -> Vec<(Move, u64)> {
    divide_until(pos, depth, threads, hash, &AtomicBool::new(false)).unwrap_or_default()
}

/// Work items per thread that the split aims for: enough that the last items to finish are
/// small beside the whole, whatever the sizes of the subtrees.
const ITEMS_PER_THREAD: usize = 64;

/// The positions one ply below `items` (each keeping the index of its root move), in order.
fn deepen(items: &[(usize, Position)]) -> Vec<(usize, Position)> {
    items.iter().flat_map(|(i, p)| p.legal_moves().iter().map(|&m| (*i, p.make_move(m))).collect::<Vec<_>>()).collect()
}

/// [`divide`] that gives up when `stop` is set (`None`: stopped, no count is trusted).
///
/// With several threads the tree is split a few plies down (one ply more while there are
/// fewer than `ITEMS_PER_THREAD` positions a thread), and the threads take the positions
/// from one queue: a root move's subtree is shared by every thread instead of falling to one,
/// so the threads finish together (the root moves of the start position differ in size
/// tenfold).
pub fn divide_until(
    pos: &Position,
    depth: u32,
    threads: usize,
    hash: Option<&PerftHash>,
    stop: &AtomicBool,
) -> Option<Vec<(Move, u64)>> {
    let moves = pos.legal_moves();
    if depth == 0 {
        return Some(Vec::new());
    }
    let results: Vec<(Move, u64)> = if threads <= 1 || depth <= 2 {
        moves.iter().map(|&m| (m, count(&pos.make_move(m), depth - 1, hash, stop))).collect()
    } else {
        let mut plies = 1;
        let mut items: Vec<(usize, Position)> = moves.iter().enumerate().map(|(i, &m)| (i, pos.make_move(m))).collect();
        while plies < depth - 1 && plies < 4 && items.len() < threads * ITEMS_PER_THREAD {
            plies += 1;
            items = deepen(&items);
        }
        let next = AtomicUsize::new(0);
        let counts: Vec<AtomicU64> = moves.iter().map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|s| {
            for _ in 0..threads.min(items.len()) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((root, p)) = items.get(i) else { break };
                    counts[*root].fetch_add(count(p, depth - plies, hash, stop), Ordering::Relaxed);
                });
            }
        });
        moves.iter().zip(&counts).map(|(&m, n)| (m, n.load(Ordering::Relaxed))).collect()
    };
    (!stop.load(Ordering::Relaxed)).then_some(results)
}

/// The five standard positions `perft-bench` counts: name, FEN, depth, and the leaves at that
/// depth and one ply less (published counts; position 5 at depth 6 as other generators give it).
pub(crate) const BENCH_POSITIONS: [(&str, &str, u32, u64, u64); 5] = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 7, 3_195_901_860, 119_060_324),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 6, 8_031_647_685, 193_690_690),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 8, 3_009_794_393, 178_633_661),
    ("position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 6, 706_045_033, 15_833_292),
    ("position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 6, 3_048_196_529, 89_941_194),
];

/// Counts the five standard positions (one ply shallower with `shallow`) with `threads`, no
/// table, and prints one line each and the geometric mean of the speeds: the table users
/// compare generators by. A count that is not the published one is an error.
pub(crate) fn bench_table(threads: usize, shallow: bool, out: &mut impl Write) -> Result<(), String> {
    let rows: Vec<(&str, &str, u32, u64)> = BENCH_POSITIONS
        .iter()
        .map(
            |&(name, fen, depth, full, one_less)| {
                if shallow {
                    (name, fen, depth - 1, one_less)
                } else {
                    (name, fen, depth, full)
                }
            },
        )
        .collect();
    table(&rows, threads, out)
}

/// [`bench_table`] for any rows of name, FEN, depth and expected leaves.
fn table(rows: &[(&str, &str, u32, u64)], threads: usize, out: &mut impl Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let plural = if threads == 1 { "" } else { "s" };
    writeln!(out, "perft, {threads} thread{plural}, no hash, bulk counting").map_err(io)?;
    writeln!(out, "{:<12} {:>5} {:>15} {:>10} {:>12}", "position", "depth", "leaves", "ms", "M leaves/s")
        .map_err(io)?;
    let mut log_sum = 0.0;
    let never = AtomicBool::new(false);
    for &(name, fen, depth, expected) in rows {
        let pos = Position::from_fen(fen).map_err(|e| format!("{name}: {e}"))?;
        let start = Moment::now();
        let counts = divide_until(&pos, depth, threads, None, &never).unwrap_or_default();
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        let leaves: u64 = counts.iter().map(|c| c.1).sum();
        if leaves != expected {
            return Err(format!("{name}, depth {depth}: {leaves} leaves where {expected} are published"));
        }
        let speed = leaves as f64 / secs / 1e6;
        log_sum += speed.ln();
        writeln!(out, "{name:<12} {depth:>5} {leaves:>15} {:>10.0} {speed:>12.1}", secs * 1000.0).map_err(io)?;
    }
    let mean = (log_sum / rows.len().max(1) as f64).exp();
    writeln!(out, "{:<12} {:>5} {:>15} {:>10} {mean:>12.1}", "geo. mean", "", "", "").map_err(io)?;
    out.flush().map_err(io)
}

/// Prints perft per root move, the total, and the speed (the `perft` and `go perft` output);
/// returns the total, or `None` (after a line saying so) when `stop` cut it short.
pub(crate) fn print_divide(
    pos: &Position,
    depth: u32,
    threads: usize,
    hash: Option<&PerftHash>,
    stop: &AtomicBool,
    out: &mut impl Write,
) -> std::io::Result<Option<u64>> {
    let start = Moment::now();
    let chess960 = pos.is_chess960();
    let Some(results) = divide_until(pos, depth, threads, hash, stop) else {
        writeln!(out, "info string perft stopped")?;
        out.flush()?;
        return Ok(None);
    };
    let total = if depth == 0 { 1 } else { results.iter().map(|r| r.1).sum() };
    let elapsed = start.elapsed();
    for (m, n) in &results {
        writeln!(out, "{}: {n}", m.to_uci(chess960))?;
    }
    writeln!(out)?;
    writeln!(out, "Nodes searched: {total}")?;
    let secs = elapsed.as_secs_f64();
    let nps = if secs > 0.0 { (total as f64 / secs) as u64 } else { 0 };
    let mode = hash.map_or(String::new(), |h| format!(", hashed ({} MB)", h.size_mb()));
    let plural = if threads == 1 { "" } else { "s" };
    writeln!(out, "Time: {} ms, {nps} nps, {threads} thread{plural}{mode}", elapsed.as_millis())?;
    out.flush()?;
    Ok(Some(total))
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
    /// Panics if the memory cannot be had; [`PerftHash::try_new`] is the fallible twin.
    pub fn new(mb: usize) -> PerftHash {
        Self::try_new(mb).expect("perft hash allocation")
    }

    /// [`PerftHash::new`], or `None` when the memory cannot be had: more than the system reports
    /// available (with overcommit the allocation would succeed and the process be killed while
    /// filling it), or an allocation that fails.
    pub fn try_new(mb: usize) -> Option<PerftHash> {
        if crate::memory::available_mb().is_some_and(|free| mb > free) {
            return None;
        }
        let wanted = (mb.max(1).checked_mul(1 << 20)?) / std::mem::size_of::<[AtomicU64; 2]>();
        let len = 1usize << (usize::BITS - 1 - wanted.leading_zeros());
        let mut entries = Vec::new();
        entries.try_reserve_exact(len).ok()?;
        entries.extend((0..len).map(|_| [AtomicU64::new(0), AtomicU64::new(0)]));
        Some(PerftHash { entries, mask: len - 1 })
    }

    /// The table's size in MiB.
    pub fn size_mb(&self) -> usize {
        (self.entries.len() * std::mem::size_of::<[AtomicU64; 2]>()) >> 20
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
    /// Whether the count is the one expected.
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

/// Parses `FEN ;D1 n ;D2 n ...` lines (blank lines and `#` comments skipped). A line without
/// an entry is an error, and so is a text without a line: a suite that checks nothing passes
/// nothing.
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
        if entries.is_empty() {
            return Err(format!("line {}: no ';D<depth> <count>' entry after the FEN", i + 1));
        }
        lines.push((i + 1, fen, entries));
    }
    if lines.is_empty() {
        return Err("no perft entries (lines of 'FEN ;D1 <count> ;D2 <count> ...')".into());
    }
    Ok(lines)
}

/// Runs every entry (up to `max_depth`) of the parsed suite; results in file order.
/// The error says that a thread's table could not be allocated (nothing is run then).
pub fn run_suite(lines: &[SuiteLine], options: &SuiteOptions) -> Result<Vec<SuiteCheck>, String> {
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
    // Every thread's table is allocated before any runs, so a size too large fails at once.
    let threads = options.threads.max(1);
    let mut tables = Vec::with_capacity(threads);
    for _ in 0..threads {
        tables.push(match options.hash_mb {
            0 => None,
            mb => Some(
                PerftHash::try_new(mb)
                    .ok_or_else(|| format!("--hash: cannot allocate {mb} MB for each of {threads} threads"))?,
            ),
        });
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Vec<SuiteCheck>>> = lines.iter().map(|_| Default::default()).collect();
    std::thread::scope(|s| {
        for hash in tables {
            let (next, slots, run_line) = (&next, &slots, &run_line);
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(line) = lines.get(i) else { break };
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = run_line(line, hash.as_ref());
            });
        }
    });
    Ok(slots.into_iter().flat_map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner())).collect())
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
        // A FEN without entries, or a file of none (the wrong file), checks nothing: an error,
        // not "0 passed, 0 failed".
        let e = parse_suite("# c\n8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3\n8/8/8/8/8/8/8/K6k w - - 0 1\n").unwrap_err();
        assert!(e.starts_with("line 3: no"), "{e}");
        for text in ["", "# only a comment\n\n", "garbage\n"] {
            assert!(parse_suite(text).is_err(), "{text:?}");
        }
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

    #[test]
    fn the_split_work_adds_up_per_root_move() {
        // Depths whose split stops at one, two and three plies below the root, with one to
        // many threads (more threads than work items included).
        let pos = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
        for depth in 3..=5 {
            let plain = divide(&pos, depth, 1, None);
            for threads in [2, 3, 16, 300] {
                assert_eq!(divide(&pos, depth, threads, None), plain, "depth {depth}, {threads} threads");
            }
        }
        assert_eq!(divide(&pos, 5, 7, None).iter().map(|x| x.1).sum::<u64>(), 674_624);
        // A stalemate and a king in check with two moves.
        for fen in ["7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "7k/8/8/8/8/8/8/K5rr w - - 0 1"] {
            let pos = Position::from_fen(fen).unwrap();
            for depth in 1..=4 {
                assert_eq!(divide(&pos, depth, 4, None), divide(&pos, depth, 1, None), "{fen} depth {depth}");
            }
        }
    }

    #[test]
    fn a_stopped_count_is_no_count_and_leaves_the_table_clean() {
        let pos = Position::startpos();
        let stop = AtomicBool::new(true);
        let hash = PerftHash::new(1);
        assert_eq!(divide_until(&pos, 6, 1, Some(&hash), &stop), None);
        assert_eq!(divide_until(&pos, 6, 2, None, &stop), None);
        // Nothing the stopped count stored may be wrong.
        let running = AtomicBool::new(false);
        let counts = divide_until(&pos, 5, 1, Some(&hash), &running).unwrap();
        assert_eq!(counts.iter().map(|x| x.1).sum::<u64>(), 4_865_609);
        let mut out = Vec::new();
        assert_eq!(print_divide(&pos, 6, 1, None, &stop, &mut out).unwrap(), None);
        assert_eq!(String::from_utf8(out).unwrap(), "info string perft stopped\n");
    }

    #[test]
    fn the_bench_table_prints_a_row_a_position_and_refuses_a_wrong_count() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let rows = [("start", start, 3, 8902), ("position 3", BENCH_POSITIONS[2].1, 4, 43_238)];
        let mut out = Vec::new();
        table(&rows, 2, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2 + rows.len() + 1, "{text}");
        assert!(lines[0].contains("2 threads"), "{text}");
        let row: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(row[..4], ["position", "3", "4", "43238"], "{text}");
        assert!(lines[4].starts_with("geo. mean"), "{text}");
        // One leaf off is refused, with the position named.
        let wrong = [("position 3", BENCH_POSITIONS[2].1, 4, 43_239)];
        let e = table(&wrong, 1, &mut Vec::new()).unwrap_err();
        assert!(e.contains("position 3") && e.contains("43238"), "{e}");
    }

    #[test]
    fn a_table_larger_than_the_machine_is_refused() {
        assert!(PerftHash::try_new(1 << 40).is_none());
        assert!(PerftHash::try_new(usize::MAX).is_none());
        assert_eq!(PerftHash::try_new(2).map(|h| h.size_mb()), Some(2));
    }
}
