//! The transposition table, shared by every search thread.
//!
//! Sound without locks: an entry is two `AtomicU64` words, `key ^ data` and `data`. A probe loads
//! both (relaxed) and accepts the entry only if their XOR is the probed key, so an entry torn by
//! two threads writing at once reads as a miss instead of as a wrong move or score. Probes return
//! a copy; the caller still validates the move (`Position::is_legal`) before playing it.
//!
//! Layout: buckets of four 16-byte entries, one cache line each. Replacement keeps, per bucket,
//! the entry worth most: same key first, else the lowest `depth - 4 * age`. `age` is a 6-bit
//! generation bumped at every new search, so entries from old searches are replaced first.
//! Tables of 2 MiB and more start on a huge-page boundary and ask Linux for transparent huge
//! pages, so that random probes do not also miss the TLB.
//!
//! Data word: move (16 bits) | score (16) | static eval (16) | depth + 1 (8) | bound (2) | age (6).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use static_assertions::const_assert_eq;

use crate::types::Move;

/// The largest |score| that is a mate score: mates within `MAX_PLY` plies.
pub const MATE: i32 = 32_000;
/// The longest search line.
pub const MAX_PLY: usize = 128;
/// Scores at or beyond this are mates.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A tablebase win at the root; `TB_WIN - ply` at `ply`, kept below every mate score.
pub const TB_WIN: i32 = MATE_BOUND - 1;
/// The smallest |score| that is a tablebase win or loss (or a mate).
pub const TB_BOUND: i32 = TB_WIN - MAX_PLY as i32;

/// What a stored score says about the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Bound {
    /// No information (an empty entry).
    None = 0,
    /// The true value is at most the score (fail low).
    Upper = 1,
    /// The true value is at least the score (fail high).
    Lower = 2,
    /// The score is exact.
    Exact = 3,
}

/// A copy of a table entry.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TtEntry {
    pub mv: Option<Move>,
    /// Score, already adjusted to the probing ply for mates.
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    words: [[AtomicU64; 2]; 4],
}

const_assert_eq!(std::mem::size_of::<Bucket>(), 64);

/// A mate or tablebase score as stored: relative to the node, not to the root.
#[inline]
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score + ply as i32
    } else if score <= -TB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`score_to_tt`].
#[inline]
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_BOUND {
        score - ply as i32
    } else if score <= -TB_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// How many plies may still be played at a halfmove clock of `halfmove` before the fifty-move
/// rule can end the game.
#[inline]
fn plies_before_fifty(halfmove: u32) -> i32 {
    100 - (halfmove as i32).min(100)
}

/// A decisive score read from the table at `ply` (relative to the root), for a position whose
/// halfmove clock is `halfmove`: the table keeps one entry for a position whatever its clock, so
/// a mate or a tablebase win learned with time to spare may be out of reach when the fifty-move
/// rule is close. Where the mate, or the zeroing move into the tables, is further away from this
/// node than the rule allows, the score is kept just short of decisive: good or bad, not proven.
#[inline]
pub fn fifty_move_safe(score: i32, ply: usize, halfmove: u32) -> i32 {
    let magnitude = score.abs();
    if magnitude < TB_BOUND {
        return score;
    }
    let to_the_end = if magnitude >= MATE_BOUND { MATE - magnitude } else { TB_WIN - magnitude } - ply as i32;
    if to_the_end > plies_before_fifty(halfmove) {
        score.signum() * (TB_BOUND - 1)
    } else {
        score
    }
}

/// Whether a score is decisive: a mate, or a tablebase win or loss.
#[inline]
pub fn is_decisive(score: i32) -> bool {
    score.abs() >= TB_BOUND
}

/// The shared transposition table.
pub struct TranspositionTable {
    /// The allocation; the table proper is `buckets[start..start + len]`, which begins on a
    /// huge-page boundary where the allocation allowed it (see [`huge_page_offset`]).
    buckets: Vec<Bucket>,
    start: usize,
    len: usize,
    age: AtomicU8,
}

/// The size of a transparent huge page on x86-64 and most Linux machines.
const HUGE_PAGE: usize = 2 << 20;

/// How many buckets past `ptr` the first huge-page boundary lies: the table starts there, so
/// that every 2 MiB of it can be one huge page (one TLB entry instead of 512; a probe is a
/// random access, so on a table of many megabytes most of them would otherwise miss the TLB).
fn huge_page_offset(ptr: *const Bucket) -> usize {
    let misalignment = ptr as usize % HUGE_PAGE;
    if misalignment == 0 {
        0
    } else {
        (HUGE_PAGE - misalignment) / std::mem::size_of::<Bucket>()
    }
}

/// Asks the kernel to back `[ptr, ptr + bytes)` with transparent huge pages (Linux, where they
/// are enabled for `madvise`); elsewhere, or if the kernel says no, nothing changes.
fn advise_huge_pages(ptr: *const Bucket, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        let bytes = bytes / HUGE_PAGE * HUGE_PAGE;
        if bytes > 0 && ptr as usize % HUGE_PAGE == 0 {
            // SAFETY: `madvise` only sets a paging hint on memory this process owns (a range of
            // our own allocation, page-aligned, not yet touched); it reads and writes nothing,
            // and a failure leaves the memory as it was, so its result can be ignored.
            unsafe { libc::madvise(ptr as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

impl TranspositionTable {
    /// A table of `mb` mebibytes (at least one bucket). Returns `None` if the memory cannot be
    /// allocated, so the caller can keep its old table. Sizes beyond the memory the system
    /// reports available are refused up front: with overcommit the allocation itself would
    /// succeed and the process would be killed later, while the table is being filled.
    pub fn try_new(mb: usize) -> Option<TranspositionTable> {
        if crate::memory::available_mb().is_some_and(|free| mb > free) {
            return None;
        }
        let count = (mb.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1);
        // Tables of a huge page or more get up to one huge page of slack to start aligned.
        let slack = if count * std::mem::size_of::<Bucket>() >= HUGE_PAGE {
            HUGE_PAGE / std::mem::size_of::<Bucket>()
        } else {
            0
        };
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(count.checked_add(slack)?).ok()?;
        let start = if slack > 0 { huge_page_offset(buckets.as_ptr()).min(slack) } else { 0 };
        // The hint goes in before the zeroing below first touches the pages (`start <= slack`
        // lies inside the capacity just reserved; the pointer is only passed on as an address).
        advise_huge_pages(buckets.as_ptr().wrapping_add(start), count * std::mem::size_of::<Bucket>());
        buckets.resize_with(start + count, Bucket::default);
        Some(TranspositionTable { buckets, start, len: count, age: AtomicU8::new(0) })
    }

    /// A table of `mb` mebibytes; panics only if the allocation fails.
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).expect("transposition table allocation")
    }

    /// Size in MiB.
    pub fn size_mb(&self) -> usize {
        (self.len * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Empties every entry.
    pub fn clear(&mut self) {
        for bucket in &mut self.buckets {
            *bucket = Bucket::default();
        }
        *self.age.get_mut() = 0;
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        let age = self.age.load(Ordering::Relaxed);
        self.age.store((age + 1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto any bucket count without a modulo.
        let index = ((key as u128 * self.len as u128) >> 64) as usize;
        &self.buckets[self.start + index]
    }

    /// Hints the CPU to fetch the bucket of `key`.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let ptr = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: prefetching is only a hint; `ptr` points into our own live allocation.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up; the score comes back adjusted to `ply`.
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtEntry> {
        for entry in &self.bucket(key).words {
            let data = entry[1].load(Ordering::Relaxed);
            if entry[0].load(Ordering::Relaxed) ^ data == key && data != 0 {
                let e = unpack(data);
                return Some(TtEntry { score: score_from_tt(e.score, ply), ..e });
            }
        }
        None
    }

    /// Every stored score (relative to its node), for tests that check what searches leave.
    #[cfg(test)]
    pub(crate) fn stored_scores(&self) -> Vec<i32> {
        let mut scores = Vec::new();
        for bucket in &self.buckets[self.start..self.start + self.len] {
            for entry in &bucket.words {
                let data = entry[1].load(Ordering::Relaxed);
                if data != 0 {
                    scores.push(unpack(data).score);
                }
            }
        }
        scores
    }

    /// [`probe`](Self::probe) for a search node whose position has the halfmove clock
    /// `halfmove`: decisive scores the fifty-move rule could void are read as not proven
    /// ([`fifty_move_safe`]).
    #[inline]
    pub fn probe_at(&self, key: u64, ply: usize, halfmove: u32) -> Option<TtEntry> {
        self.probe(key, ply).map(|e| TtEntry { score: fifty_move_safe(e.score, ply, halfmove), ..e })
    }

    /// Stores a search result (`score` relative to the root at `ply`). An existing entry of the
    /// same key keeps its move when the new result has none.
    #[allow(clippy::too_many_arguments)]
    pub fn store(&self, key: u64, mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound, ply: usize) {
        let age = self.age.load(Ordering::Relaxed) as i32;
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, entry) in bucket.words.iter().enumerate() {
            let data = entry[1].load(Ordering::Relaxed);
            let check = entry[0].load(Ordering::Relaxed);
            if check ^ data == key || data == 0 {
                victim = i;
                break;
            }
            let e = unpack(data);
            let entry_age = (data >> 58) as i32;
            let stale = (age - entry_age) & 63;
            let worth = e.depth - 4 * stale;
            if worth < worst {
                worst = worth;
                victim = i;
            }
        }
        let slot = &bucket.words[victim];
        let old = slot[1].load(Ordering::Relaxed);
        let same_key = slot[0].load(Ordering::Relaxed) ^ old == key && old != 0;
        if same_key {
            let e = unpack(old);
            // Keep a deeper exact-ish result of the same search unless this one is exact.
            if bound != Bound::Exact && e.depth > depth + 3 && (old >> 58) as i32 == age {
                return;
            }
        }
        let mv = mv.or_else(|| same_key.then(|| unpack(old).mv).flatten());
        let data = pack(mv, score_to_tt(score, ply), eval, depth, bound, age as u64);
        slot[0].store(key ^ data, Ordering::Relaxed);
        slot[1].store(data, Ordering::Relaxed);
    }

    /// Permille of sampled entries written in the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) as u64;
        let sample = self.len.min(250);
        let mut used = 0;
        for bucket in &self.buckets[self.start..self.start + sample] {
            for entry in &bucket.words {
                let data = entry[1].load(Ordering::Relaxed);
                if data != 0 && data >> 58 == age {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * 4).max(1)) as u32
    }
}

fn pack(mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound, age: u64) -> u64 {
    let mv = mv.map_or(0, |m| m.raw()) as u64;
    let score = (score.clamp(-MATE, MATE) as i16 as u16) as u64;
    let eval = (eval.clamp(-MATE, MATE) as i16 as u16) as u64;
    // Stored as `depth + 1` in a byte: -1 (an evaluation alone) to 254.
    let depth = (depth.clamp(-1, 254) + 1) as u64;
    mv | score << 16 | eval << 32 | depth << 48 | (bound as u64) << 56 | (age & 63) << 58
}

fn unpack(data: u64) -> TtEntry {
    TtEntry {
        mv: Move::from_raw(data as u16),
        score: (data >> 16) as u16 as i16 as i32,
        eval: (data >> 32) as u16 as i16 as i32,
        depth: (data >> 48) as u8 as i32 - 1,
        bound: match (data >> 56) & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{MoveKind, Square};

    #[test]
    fn store_probe_and_mate_adjustment() {
        let tt = TranspositionTable::new(1);
        let m = Move::new(Square::E2, Square::E4, MoveKind::DoublePush);
        tt.store(0x1234_5678_9ABC_DEF0, Some(m), 57, -12, 7, Bound::Exact, 3);
        let e = tt.probe(0x1234_5678_9ABC_DEF0, 3).unwrap();
        assert_eq!(e, TtEntry { mv: Some(m), score: 57, eval: -12, depth: 7, bound: Bound::Exact });
        assert_eq!(tt.probe(0x1234_5678_9ABC_DEF1, 3), None);

        // Mate in 5 plies from the root, found at ply 3: stored as mate in 2 from the node, and
        // read back at ply 1 as mate in 3 from the root.
        let mate = MATE - 5;
        tt.store(42, None, mate, 0, 4, Bound::Lower, 3);
        assert_eq!(tt.probe(42, 3).unwrap().score, mate);
        assert_eq!(tt.probe(42, 1).unwrap().score, MATE - 3);
        tt.store(43, None, -mate, 0, 4, Bound::Upper, 3);
        assert_eq!(tt.probe(43, 1).unwrap().score, -(MATE - 3));
        assert_eq!(tt.probe(43, 1).unwrap().bound, Bound::Upper);
    }

    #[test]
    fn decisive_scores_beyond_the_fifty_move_rule_are_not_proven() {
        // Mate in 9 plies from a node at ply 3 (the root's mate in 12): proven with 10 plies to
        // go before the rule, not with 8.
        let mate = MATE - 12;
        assert_eq!(fifty_move_safe(mate, 3, 90), mate);
        assert_eq!(fifty_move_safe(mate, 3, 91), mate, "mate on the 100th ply still counts");
        assert_eq!(fifty_move_safe(mate, 3, 92), TB_BOUND - 1);
        assert_eq!(fifty_move_safe(-mate, 3, 92), -(TB_BOUND - 1));
        assert!(!is_decisive(fifty_move_safe(mate, 3, 99)));
        // A tablebase win whose zeroing move is 20 plies from the node.
        let tb = TB_WIN - 25;
        assert_eq!(fifty_move_safe(tb, 5, 80), tb);
        assert_eq!(fifty_move_safe(tb, 5, 81), TB_BOUND - 1);
        assert_eq!(fifty_move_safe(-tb, 5, 81), -(TB_BOUND - 1));
        // Other scores are what they are, at any clock.
        for score in [0, 35, -900, TB_BOUND - 1, -(TB_BOUND - 1)] {
            assert_eq!(fifty_move_safe(score, 7, 99), score);
        }
    }

    #[test]
    fn every_depth_from_minus_one_to_254_reads_back() {
        for depth in [-1, 0, 1, 100, 126, 127, 128, 129, 200, 254] {
            let e = unpack(pack(None, 10, 20, depth, Bound::Lower, 5));
            assert_eq!((e.depth, e.score, e.eval, e.bound), (depth, 10, 20, Bound::Lower), "depth {depth}");
        }
        assert_eq!(unpack(pack(None, 0, 0, 300, Bound::Exact, 0)).depth, 254, "deeper is kept as 254");
        assert_eq!(unpack(pack(None, 0, 0, -7, Bound::None, 0)).depth, -1);
        let tt = TranspositionTable::new(1);
        tt.store(77, None, 5, 5, 200, Bound::Exact, 0);
        assert_eq!(tt.probe(77, 0).unwrap().depth, 200);
    }

    #[test]
    fn replacement_keeps_moves_and_prefers_current_entries() {
        let tt = TranspositionTable::new(1);
        let m = Move::new(Square::G1, Square::F3, MoveKind::Quiet);
        tt.store(7, Some(m), 10, 0, 5, Bound::Lower, 0);
        tt.store(7, None, 20, 0, 6, Bound::Upper, 0);
        assert_eq!(tt.probe(7, 0).unwrap().mv, Some(m), "a result without a move keeps the old move");
        let mut tt = tt;
        tt.clear();
        assert_eq!(tt.probe(7, 0), None);
        assert_eq!(tt.hashfull(), 0);
    }

    #[test]
    fn large_tables_start_on_a_huge_page() {
        for mb in [2, 3, 16] {
            let tt = TranspositionTable::new(mb);
            assert_eq!(tt.size_mb(), mb);
            assert_eq!(tt.len, mb << 14, "64-byte buckets");
            let first = &tt.buckets[tt.start] as *const Bucket as usize;
            assert_eq!(first % HUGE_PAGE, 0, "{mb} MB table at {first:#x}");
            assert!(tt.start + tt.len <= tt.buckets.len());
            // The extreme keys reach the first and the last bucket of the table proper.
            for key in [0, u64::MAX] {
                tt.store(key, None, 5, 0, 3, Bound::Exact, 0);
                assert_eq!(tt.probe(key, 0).unwrap().score, 5);
            }
            assert_eq!(tt.bucket(u64::MAX) as *const Bucket, &tt.buckets[tt.start + tt.len - 1] as *const Bucket);
        }
        let small = TranspositionTable::new(1);
        assert_eq!((small.start, small.len), (0, 1 << 14), "no slack below a huge page");
    }

    #[test]
    fn impossible_sizes_are_refused() {
        assert!(TranspositionTable::try_new(1 << 25).is_none(), "32 TiB cannot be had");
        assert!(TranspositionTable::try_new(2).is_some());
    }

    /// The `n`-th key that falls in bucket `b` of a 1 MB table (2^14 buckets: the top 14 bits).
    fn key_in(b: u64, n: u64) -> u64 {
        (b << 50) | ((n + 1) * 0x1_0001)
    }

    #[test]
    fn hashfull_counts_the_current_searchs_share_of_the_sample() {
        let mut tt = TranspositionTable::new(1);
        assert_eq!(tt.len, 1 << 14);
        assert_eq!(tt.hashfull(), 0);
        // Two entries in each of the first 125 buckets: 250 of the 1,000 sampled slots.
        for b in 0..125 {
            for n in 0..2 {
                tt.store(key_in(b, n), None, 0, 0, 3, Bound::Exact, 0);
            }
        }
        // Entries beyond the sample do not count.
        for b in 250..400 {
            tt.store(key_in(b, 0), None, 0, 0, 3, Bound::Exact, 0);
        }
        assert_eq!(tt.hashfull(), 250);
        tt.store(key_in(0, 2), None, 0, 0, 3, Bound::Exact, 0);
        assert_eq!(tt.hashfull(), 251);
        // A new search: what the old ones left is free to be replaced, and reported as such.
        tt.new_search();
        assert_eq!(tt.hashfull(), 0);
        tt.store(key_in(1, 0), None, 0, 0, 3, Bound::Exact, 0);
        assert_eq!(tt.hashfull(), 1);
        tt.clear();
        assert_eq!(tt.hashfull(), 0);
    }

    #[test]
    fn replacement_evicts_the_least_worth_by_depth_and_age() {
        let tt = TranspositionTable::new(1);
        let keys: Vec<u64> = (0..6).map(|n| key_in(9, n)).collect();
        // A full bucket of deep entries from three searches ago...
        for (i, &k) in keys[..4].iter().enumerate() {
            tt.store(k, None, i as i32, 0, 12 + i as i32, Bound::Exact, 0);
        }
        for _ in 0..3 {
            tt.new_search();
        }
        // ...loses its shallowest-for-its-age entry (depth 12 - 4 x 3 = 0) to a depth-2 result
        // of the current search, and keeps the deeper old ones.
        tt.store(keys[4], None, 40, 0, 2, Bound::Exact, 0);
        assert_eq!(tt.probe(keys[4], 0).map(|e| e.depth), Some(2));
        assert_eq!(tt.probe(keys[0], 0), None, "the least worth was evicted");
        for &k in &keys[1..4] {
            assert!(tt.probe(k, 0).is_some());
        }
        // Worth now: the new depth 2 (current) 2, the old 13, 14, 15 are 1, 2, 3: the old
        // depth 13 goes next, before the shallower entry of the current search.
        tt.store(keys[5], None, 50, 0, 2, Bound::Exact, 0);
        assert_eq!(tt.probe(keys[1], 0), None);
        assert!(tt.probe(keys[4], 0).is_some() && tt.probe(keys[5], 0).is_some());

        // The same key in the same search: a much deeper bound is kept over a shallow bound,
        // not over an exact score; a shallower result of an older search replaces it.
        let k = key_in(20, 0);
        tt.store(k, None, 10, 0, 10, Bound::Lower, 0);
        tt.store(k, None, 20, 0, 5, Bound::Upper, 0);
        assert_eq!(tt.probe(k, 0).map(|e| (e.score, e.depth)), Some((10, 10)));
        tt.store(k, None, 30, 0, 5, Bound::Exact, 0);
        assert_eq!(tt.probe(k, 0).map(|e| (e.score, e.depth)), Some((30, 5)));
        tt.store(k, None, 40, 0, 12, Bound::Lower, 0);
        tt.new_search();
        tt.store(k, None, 50, 0, 3, Bound::Upper, 0);
        assert_eq!(tt.probe(k, 0).map(|e| (e.score, e.depth)), Some((50, 3)));
    }

    #[test]
    fn a_torn_entry_reads_as_a_miss() {
        let tt = TranspositionTable::new(1);
        let (a, b) = (key_in(3, 0), key_in(3, 1));
        tt.store(a, None, 100, 100, 10, Bound::Exact, 0);
        tt.store(b, None, -200, -200, 20, Bound::Lower, 0);
        let bucket = tt.bucket(a);
        // Tear the first slot as two writers of different keys would: the check word of `a`'s
        // write with the data of `b`'s.
        let data_b = bucket.words[1][1].load(Ordering::Relaxed);
        bucket.words[0][1].store(data_b, Ordering::Relaxed);
        assert_eq!(tt.probe(a, 0), None, "a's check word with b's data");
        assert_eq!(tt.probe(b, 0).map(|e| e.score), Some(-200), "b's own slot is whole");
        // And with the data of another result of the same key: the check fails too.
        tt.store(a, None, 100, 100, 10, Bound::Exact, 0);
        let other = pack(None, 55, 55, 11, Bound::Upper, 0);
        let slot = tt
            .bucket(a)
            .words
            .iter()
            .find(|w| w[0].load(Ordering::Relaxed) ^ w[1].load(Ordering::Relaxed) == a)
            .unwrap();
        slot[1].store(other, Ordering::Relaxed);
        assert_eq!(tt.probe(a, 0), None);
    }

    #[test]
    fn writers_of_the_same_key_never_give_a_mixed_entry() {
        // Two threads store different results for the same keys while two others probe: every
        // hit must be one writer's whole result (score, eval, depth and bound together), never
        // a mix of both, and the table must hold one of them at the end.
        let tt = TranspositionTable::new(1);
        let keys: Vec<u64> = (0..64).map(|n| key_in(n * 7, n)).collect();
        let results = [(100, 100, 10, Bound::Exact), (-300, -300, 21, Bound::Lower)];
        let hits = std::sync::atomic::AtomicU64::new(0);
        let writing = std::sync::atomic::AtomicUsize::new(results.len());
        std::thread::scope(|s| {
            for (score, eval, depth, bound) in results {
                let (tt, keys, writing) = (&tt, &keys, &writing);
                s.spawn(move || {
                    for round in 0..20_000 {
                        let key = keys[round % keys.len()];
                        tt.store(key, None, score, eval, depth, bound, 0);
                    }
                    writing.fetch_sub(1, Ordering::Release);
                });
            }
            for _ in 0..2 {
                let (tt, keys, hits, writing) = (&tt, &keys, &hits, &writing);
                s.spawn(move || {
                    // Probing for as long as anyone writes, then one more pass over every key.
                    let mut last_pass = false;
                    while !last_pass {
                        last_pass = writing.load(Ordering::Acquire) == 0;
                        for &key in keys {
                            if let Some(e) = tt.probe(key, 0) {
                                assert!(results.contains(&(e.score, e.eval, e.depth, e.bound)), "a mixed entry: {e:?}");
                                hits.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                });
            }
        });
        assert!(hits.load(Ordering::Relaxed) > 0);
        for &key in &keys {
            let e = tt.probe(key, 0).expect("one writer's result stays");
            assert!(results.contains(&(e.score, e.eval, e.depth, e.bound)));
        }
    }

    #[test]
    fn table_is_shared_across_threads() {
        static_assertions::assert_impl_all!(TranspositionTable: Sync, Send);
        let tt = TranspositionTable::new(1);
        std::thread::scope(|s| {
            for t in 0..2u64 {
                let tt = &tt;
                s.spawn(move || {
                    for k in 0..20_000u64 {
                        let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ t;
                        tt.store(key, None, (k % 100) as i32, 0, (k % 20) as i32, Bound::Exact, 0);
                        if let Some(e) = tt.probe(key, 0) {
                            assert_eq!(e.score, (k % 100) as i32);
                        }
                    }
                });
            }
        });
    }
}
