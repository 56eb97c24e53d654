//! Syzygy tablebases in the search: at the root, the legal moves ranked by DTZ (by WDL where a
//! DTZ table is missing) and only those that keep the best result under the fifty-move rule
//! searched; inside the tree, WDL probes after captures and pawn moves, whose wins and losses
//! become scores just below mate ([`TB_WIN`]) that the table stores like mates, by distance.

use std::sync::atomic::Ordering;

use super::worker::{RootMove, Worker};
use crate::position::Position;
use crate::tt::{Bound, TtEntry, MATE, MAX_PLY, TB_WIN};
use crate::types::Move;

/// What a probe inside the tree says about a node.
pub(super) enum TbProbe {
    /// The node's score: a draw, or a win or loss whose bound cuts.
    Cut(i32),
    /// A win that does not reach beta: the least the node scores.
    Floor(i32),
    /// A loss above alpha: the most the node scores.
    Ceiling(i32),
}

/// Ranks are DTZ-based: a win within the fifty-move rule ranks `MAX_DTZ`, a later win less.
const MAX_DTZ: i32 = 1 << 18;

/// The DTZ a zeroing move gives, by the WDL it keeps.
fn dtz_before_zeroing(wdl: i32) -> i32 {
    wdl.signum() * if wdl.abs() == 2 { 1 } else { 101 }
}

impl Worker {
    /// How many times `key` occurs among the game's positions (before the root, and the root)
    /// within the last `reach` plies.
    fn occurrences(&self, root: &Position, key: u64, reach: usize) -> usize {
        let game = &self.state.keys[..self.state.root_keys];
        let recent = &game[game.len().saturating_sub(reach)..];
        recent.iter().filter(|&&k| k == key).count() + usize::from(root.key() == key && reach > 0)
    }

    /// Ranks the root moves by the tables and keeps the best; sets the score to report and
    /// whether the search still probes. Nothing changes where the root is not in the tables.
    pub(super) fn tablebase_root(&mut self, root: &Position) {
        let shared = std::sync::Arc::clone(&self.state.shared);
        let Some(syzygy) = &shared.syzygy else { return };
        if self.state.root_moves.is_empty() {
            return;
        }
        let pieces = root.occupied().count() as usize;
        if pieces > syzygy.probe_limit || root.castling().0 != 0 {
            return;
        }
        let tables = &*syzygy.tables;
        let cnt50 = root.halfmove_clock() as i32;
        let repeated = self.occurrences(root, root.key(), root.halfmove_clock() as usize) > 1;
        let moves: Vec<Move> = self.state.root_moves.iter().map(|rm| rm.mv).collect();
        let by_dtz = |search: &Worker, m: Move| -> Result<i32, String> {
            let child = root.make_move(m);
            let mate = child.in_check() && !child.has_legal_move();
            let dtz = if child.halfmove_clock() == 0 {
                dtz_before_zeroing(-tables.probe_wdl(&child)?)
            } else if search.occurrences(root, child.key(), child.halfmove_clock() as usize) >= 2
                || (child.halfmove_clock() >= 100 && !mate)
            {
                0
            } else if mate {
                1
            } else {
                let d = -tables.probe_dtz(&child)?;
                d + d.signum()
            };
            Ok(if dtz > 0 {
                if dtz + cnt50 <= 99 && !repeated {
                    MAX_DTZ
                } else {
                    MAX_DTZ - (dtz + cnt50)
                }
            } else if dtz < 0 {
                if -dtz * 2 + cnt50 < 100 {
                    -MAX_DTZ
                } else {
                    -MAX_DTZ + (-dtz + cnt50)
                }
            } else {
                0
            })
        };
        let by_wdl = |search: &Worker, m: Move| -> Result<i32, String> {
            let child = root.make_move(m);
            let mut wdl = if search.occurrences(root, child.key(), child.halfmove_clock() as usize) >= 2 {
                0
            } else {
                -tables.probe_wdl(&child)?
            };
            if !syzygy.rule50 {
                wdl = wdl.signum() * 2;
            }
            Ok([-MAX_DTZ, -MAX_DTZ + 101, 0, MAX_DTZ - 101, MAX_DTZ][(wdl + 2) as usize])
        };
        let dtz_ranks: Result<Vec<i32>, String> = moves.iter().map(|&m| by_dtz(self, m)).collect();
        let (ranks, with_dtz) = match dtz_ranks {
            Ok(ranks) => (ranks, true),
            Err(_) => match moves.iter().map(|&m| by_wdl(self, m)).collect::<Result<Vec<i32>, String>>() {
                Ok(ranks) => (ranks, false),
                Err(_) => return,
            },
        };
        self.state.shared.tbhits.fetch_add(moves.len() as u64, Ordering::Relaxed);
        let best = ranks.iter().copied().max().unwrap_or(0);
        self.state.root_moves =
            moves.iter().zip(&ranks).filter(|(_, &r)| r == best).map(|(&m, _)| RootMove::new(m)).collect();
        // A win ranks MAX_DTZ - 99 or more only where it comes before the fifty-move rule
        // (a repeated root lowers the rank of a win in time by at most 99); below that it is
        // cursed: the rule draws it. Likewise a loss the rule saves (blessed).
        let bound = if syzygy.rule50 { MAX_DTZ - 99 } else { 1 };
        self.state.tb_root_score = Some(if best >= bound {
            TB_WIN
        } else if best > 0 {
            1
        } else if best == 0 {
            0
        } else if best > -bound {
            -1
        } else {
            -TB_WIN
        });
        // With DTZ the root moves already make progress; a drawn or lost root gains nothing.
        self.state.tb_in_search = !with_dtz && best > 0;
    }

    /// At a node after a capture or pawn move, where the position is in the tables: the
    /// table's score if it ends the node (a draw, or a win or loss whose bound cuts), stored in
    /// the transposition table; else the win as a floor or the loss as a ceiling of the node's
    /// score. Out of line: a probe is rare, the search's loop is hot.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tablebase_cut(
        &mut self,
        pos: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        entry: Option<TtEntry>,
        in_check: bool,
    ) -> Option<TbProbe> {
        let (score, bound) = self.tablebase_probe(pos, depth, ply)?;
        match bound {
            Bound::Lower if score < beta => return Some(TbProbe::Floor(score)),
            Bound::Upper if score > alpha => return Some(TbProbe::Ceiling(score)),
            _ => {}
        }
        // The entry keeps an evaluation, as every entry of a node out of check does (in check
        // the search never reads it).
        let eval = match entry {
            _ if in_check => -MATE,
            Some(e) => e.eval,
            None => self.evaluate(pos, ply),
        };
        let depth = (depth + 6).min(MAX_PLY as i32 - 1);
        self.state.shared.tt.store(pos.key(), None, score, eval, depth, bound, ply);
        Some(TbProbe::Cut(score))
    }

    /// A WDL probe of `pos` at `ply` where the options allow one: the score and its bound.
    fn tablebase_probe(&mut self, pos: &Position, depth: i32, ply: usize) -> Option<(i32, Bound)> {
        if pos.castling().0 != 0 {
            return None;
        }
        let syzygy = self.state.shared.syzygy.as_ref()?;
        let pieces = pos.occupied().count() as usize;
        let limit = syzygy.probe_limit;
        if pieces > limit || (pieces == limit && depth < syzygy.probe_depth) {
            return None;
        }
        let wdl = syzygy.tables.probe_wdl(pos).ok()?;
        self.state.shared.tbhits.fetch_add(1, Ordering::Relaxed);
        let draw = i32::from(syzygy.rule50);
        Some(if wdl > draw {
            (TB_WIN - ply as i32, Bound::Lower)
        } else if wdl < -draw {
            (-TB_WIN + ply as i32, Bound::Upper)
        } else {
            // A win or loss the fifty-move rule spoils counts as a draw, a point from even.
            (wdl, Bound::Exact)
        })
    }
}
