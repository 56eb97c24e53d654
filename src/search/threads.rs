//! Lazy SMP: the main thread and its helpers search the same root, sharing the table; helpers
//! skip depths in staggered patterns, and the move played comes from a vote.

use super::SearchResult;
use crate::tt::MATE_BOUND;
use crate::types::Move;

/// Whether helper thread `id` skips iteration `depth`: thread `id` belongs to a group that
/// searches blocks of `size` depths and skips the next `size`, each thread of the group with its
/// own phase (1: every other depth; 2 and 3: two on, two off, in two phases; ...).
pub(super) fn skips(id: usize, depth: i32) -> bool {
    const SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
    const PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];
    let i = (id.max(1) - 1) % SIZE.len();
    ((depth + PHASE[i]) / SIZE[i]) % 2 == 1
}

/// Which thread's result to play: a vote weighted by each thread's score (above the worst) and
/// completed depth, so a move found by several threads, or deeper, wins over the main thread's
/// alone. A proven mate is kept (the shortest wins); a thread that completed no iteration has no
/// vote. Returns an index into `results`; 0 (the main thread) when nobody else qualifies.
pub fn vote(results: &[SearchResult]) -> usize {
    let voters: Vec<usize> =
        (0..results.len()).filter(|&i| results[i].best.is_some() && results[i].depth > 0).collect();
    let Some(min) = voters.iter().map(|&i| results[i].score).min() else {
        return 0;
    };
    let weight = |r: &SearchResult| (r.score - min + 14) as i64 * r.depth as i64;
    let mut votes: Vec<(Move, i64)> = Vec::new();
    for &i in &voters {
        let r = &results[i];
        let best = r.best.expect("voters have a move");
        match votes.iter_mut().find(|(m, _)| *m == best) {
            Some((_, v)) => *v += weight(r),
            None => votes.push((best, weight(r))),
        }
    }
    let votes_for = |r: &SearchResult| votes.iter().find(|(m, _)| Some(*m) == r.best).map_or(0, |(_, v)| *v);
    let mut chosen = if voters.contains(&0) { 0 } else { voters[0] };
    for &i in &voters {
        let (r, c) = (&results[i], &results[chosen]);
        let better = if c.score >= MATE_BOUND {
            r.score > c.score
        } else if r.score >= MATE_BOUND {
            true
        } else {
            r.score > -MATE_BOUND
                && (votes_for(r) > votes_for(c) || (votes_for(r) == votes_for(c) && weight(r) > weight(c)))
        };
        if better {
            chosen = i;
        }
    }
    chosen
}
