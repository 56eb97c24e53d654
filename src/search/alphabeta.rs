//! Principal-variation negamax and quiescence search.
//!
//! Selectivity, each with the reason it is safe enough:
//! * transposition cut-offs in non-PV nodes (a quiet hash move that cuts gets its history
//!   bonus, as if it had been searched); mate-distance pruning;
//! * static evaluations corrected by the correction history (how far searches of the same pawn
//!   structure, of the same pieces of either side and after the same move have landed from
//!   their static evaluation) before any margin is applied;
//! * reverse futility: a static eval far above beta at low depth is trusted;
//! * ProbCut: at depth 5+, a capture that wins material (SEE) and beats beta + 200 in a
//!   quiescence search and then a search 4 plies shallower cuts the node;
//! * null move (not in check, not twice in a row, not without pieces: zugzwang guard);
//! * internal iterative reduction: no hash move at depth 4+ means this node was never searched
//!   well, so search it a ply shallower first;
//! * late-move pruning, futility pruning and history pruning of quiet moves that give no check
//!   at low depth, SEE pruning of losing moves (checks included);
//! * late-move reductions in 1/1024 ply from a log-log table, adjusted by PV, improvement,
//!   cut-node, check, killers and history (capture history for captures, which are reduced much
//!   less when they lose no material), more for quiets where the evaluation lies far below alpha,
//!   less where the correction history moved the evaluation far (it is uncertain), more for
//!   quiet moves where the hash move is a capture or promotion (the quiets are then unlikely to
//!   be better) and where more than two children have already failed high (the node is likely
//!   to fail high anyway); in PV nodes a move with a good record may be searched a ply deeper. A
//!   reduced move that beats alpha is searched again at full depth, a ply deeper if it beat the
//!   best score by a margin, a ply shallower if it barely reached it, and what that search finds
//!   teaches the continuation histories;
//! * singular extension: a hash move with a lower bound from a deep enough search is tested by a
//!   reduced search of the other moves against a margin below its score; if none reaches it, the
//!   hash move is the only good move and is searched a ply deeper, two plies outside PV nodes
//!   when the others fall 20 below the margin (at most six such double extensions on one path).
//!   If the other moves beat the margin and the margin is itself above beta, two moves fail high
//!   and the node is cut (multi-cut); if only the hash move's score is above beta, or the node
//!   is expected to fail high anyway (a cut node), it is searched a ply shallower;
//! * check extension: a move that gives check and loses no material (SEE) is searched a ply
//!   deeper; a check that loses material is pruned like any losing move.
//!
//! Draws: repetition (twofold inside the search, threefold with the game history), the fifty-move
//! rule, insufficient material.

use arrayvec::ArrayVec;

use super::history::{self, NO_CONTEXT};
use super::is_material_or_fifty_draw;
use super::params::p;
use super::picker::{captured_type, MovePicker};
use super::tablebase::TbProbe;
use super::worker::Worker;
use crate::eval;
use crate::position::Position;
use crate::tt::{is_decisive, Bound, TtEntry, MATE, MATE_BOUND, MAX_PLY, TB_BOUND};
use crate::types::{Move, Piece, PieceType};

const INFINITY: i32 = MATE + 1;

/// From this halfmove clock on the table's bounds no longer cut nodes off (the fifty-move rule is
/// near, and an entry may come from the same position with more moves in hand).
const TT_CUT_HALFMOVE_LIMIT: u32 = 90;

/// Late-move reductions are counted in 1/1024 ply, so that each term can weigh a fraction of a
/// ply; the reduction is rounded down to whole plies once, when the child is searched.
const PLY: i32 = 1024;

/// The late-move reduction at `depth` for the `n`th move, before adjustments, in 1/1024 ply:
/// `LMR_BASE + ln(depth) ln(n) / LMR_DIVISOR` (both constants in hundredths).
fn lmr_formula(depth: usize, n: usize) -> i32 {
    let (base, divisor) = (f64::from(p!(LMR_BASE)) / 100.0, f64::from(p!(LMR_DIVISOR)) / 100.0);
    ((base + (depth as f64).ln() * (n as f64).ln() / divisor) * f64::from(PLY)) as i32
}

/// [`lmr_formula`], from a table computed once (`[depth][move number]`, both below 64).
#[cfg(not(feature = "tune"))]
#[inline]
fn lmr_reduction(depth: usize, n: usize) -> i32 {
    use std::sync::OnceLock;
    static TABLE: OnceLock<[[i32; 64]; 64]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                *r = lmr_formula(d, n);
            }
        }
        t
    })[depth][n]
}

/// [`lmr_formula`] computed each time: in a tune build its constants change between searches.
#[cfg(feature = "tune")]
#[inline]
fn lmr_reduction(depth: usize, n: usize) -> i32 {
    lmr_formula(depth, n)
}

/// Whether a table entry's score and bound settle the node for the window `alpha..beta`.
fn bound_cuts(e: &TtEntry, alpha: i32, beta: i32) -> bool {
    match e.bound {
        Bound::Exact => true,
        Bound::Lower => e.score >= beta,
        Bound::Upper => e.score <= alpha,
        Bound::None => false,
    }
}

/// `static_eval` moved to the table's score where the entry's bound says the true score lies
/// beyond it (never to a decisive score: what is compared with an evaluation stays one).
fn sharpened(entry: Option<TtEntry>, static_eval: i32) -> i32 {
    match entry {
        Some(e) if !is_decisive(e.score) => match e.bound {
            Bound::Lower if e.score > static_eval => e.score,
            Bound::Upper if e.score < static_eval => e.score,
            Bound::Exact => e.score,
            _ => static_eval,
        },
        _ => static_eval,
    }
}

impl Worker {
    /// The root move in slot `i` raised alpha with `score`: it is the principal variation now,
    /// and carries the score, the running mean, the selective depth and the line.
    #[cold]
    #[inline(never)]
    fn root_move_raised_alpha(&mut self, i: usize, score: i32) {
        let state = &mut self.state;
        let line = state.pv[0][..state.pv_len[0]].iter().map_while(|m| *m).collect();
        let rm = &mut state.root_moves[i];
        rm.score = score;
        rm.average = if rm.average == -MATE { score } else { (2 * score + rm.average) / 3 };
        rm.seldepth = state.seldepth;
        rm.pv = line;
    }

    /// Makes `m` followed by the child's principal variation the variation of `ply`.
    fn update_pv(&mut self, ply: usize, m: Move) {
        self.state.pv[ply][ply] = Some(m);
        let child_len = self.state.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.state.pv[ply][i] = self.state.pv[ply + 1][i];
        }
        self.state.pv_len[ply] = child_len;
    }

    /// The static evaluation of `pos`, the position at `ply`, for the side to move: the network
    /// (or the hand-crafted evaluation where the `UseNNUE` option is off).
    #[inline]
    pub(super) fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let eval = if self.use_nnue {
            debug_assert_eq!(self.nnue.position(ply).key(), pos.key(), "accumulator stack out of step at ply {ply}");
            if eval::insufficient_material(pos) {
                return 0;
            }
            // A bare king against mating material: a known win the network cannot see.
            if let Some(won) = eval::bare_king(pos) {
                won
            } else if eval::beyond_game(pos) {
                // More material than a game reaches (a board editor's position): the network's
                // accumulators are bounded for a game's material only.
                eval::beyond_game_eval(pos)
            } else {
                self.nnue.base().value_with(pos, Some(&mut self.pawns)) + self.nnue.evaluate(ply)
            }
        } else {
            eval::evaluate_with(pos, &mut self.pawns)
        };
        // A level below full strength misjudges every position a little (`UCI_Elo`).
        if self.state.weakness.noise != 0 {
            eval + self.state.weakness.error(pos.key())
        } else {
            eval
        }
    }

    /// The history contexts of the node at `ply`: the moves one, two and four plies back, and
    /// its pawn-history slot (set when the node was entered).
    #[inline]
    fn contexts(&self, ply: usize) -> history::Contexts {
        let back = |n: usize| if ply >= n { self.state.stack[ply - n].cont } else { NO_CONTEXT };
        history::Contexts {
            moves: [back(1), back(2), back(4)],
            pawns: self.state.stack[ply].pawns,
            threats: self.state.stack[ply].threats,
        }
    }

    /// The correction-history keys of `pos`, the position at `ply`.
    #[inline]
    fn correction_keys(&self, pos: &Position, ply: usize) -> history::CorrectionKeys {
        let back = |n: usize| if ply >= n { self.state.stack[ply - n].cont } else { NO_CONTEXT };
        history::CorrectionKeys::of(pos, back(1), [back(2), back(4)])
    }

    /// `raw` corrected by the correction history, kept clear of decisive scores.
    #[inline]
    fn corrected(&self, pos: &Position, keys: &history::CorrectionKeys, raw: i32) -> i32 {
        let c = self.correction.get(pos.side_to_move(), keys);
        (raw + c).clamp(-TB_BOUND + 1, TB_BOUND - 1)
    }

    /// Whether the position at the end of the key stack repeats an earlier one (twice inside
    /// the search, or three times counting the game before the root).
    pub(super) fn is_repetition(&self, pos: &Position) -> bool {
        let key = pos.key();
        let len = self.state.keys.len();
        let reach = (pos.halfmove_clock() as usize).min(len - self.state.repetition_floor);
        let mut seen = 0;
        let mut i = 2;
        while i <= reach {
            let index = len - i;
            if self.state.keys[index] == key {
                if index >= self.state.root_keys {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
            i += 2;
        }
        false
    }
}

impl Worker {
    /// [`Worker::evaluate`] for a position the table does not know, whose evaluation the table
    /// then keeps (no bound, no depth) for the next visit: most nodes end in a cut-off that
    /// stores nothing (a null move, reverse futility, stand pat), and their positions recur.
    #[inline]
    fn evaluate_and_store(&mut self, pos: &Position, ply: usize) -> i32 {
        let eval = self.evaluate(pos, ply);
        self.state.shared.tt.store(pos.key(), None, 0, eval, -1, Bound::None, ply);
        eval
    }

    /// Makes `mv` (`None`: the null move) in `pos`, the node at `ply`, and steps into the child,
    /// which it returns: the child's table entry fetched ahead, its accumulator, the ply's move
    /// and continuation context, the parent's key on the repetition stack. Every child is made
    /// and entered here, and left with [`Worker::leave`].
    #[inline(always)]
    fn make_and_enter(&mut self, pos: &Position, ply: usize, mv: Option<Move>) -> Position {
        let (child, cont) = match mv {
            Some(m) => (pos.make_move(m), history::context(pos.moved_piece(m), m)),
            None => (pos.make_null_move(), NO_CONTEXT),
        };
        self.state.shared.tt.prefetch(child.key());
        if self.use_nnue {
            self.nnue.push(ply + 1, &child);
        }
        self.state.stack[ply].mv = mv;
        self.state.stack[ply].cont = cont;
        self.state.keys.push(pos.key());
        child
    }

    /// Undoes [`Worker::make_and_enter`]'s key (the rest is overwritten by the next child).
    #[inline(always)]
    fn leave(&mut self) {
        self.state.keys.pop();
    }

    pub(super) fn negamax<const PV: bool>(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        cut_node: bool,
    ) -> i32 {
        // Step 1. Entry: the window is well formed and zero-width outside PV nodes, the ply
        // inside the stack; a node with no depth left is a quiescence search.
        debug_assert!(-INFINITY <= alpha && alpha < beta && beta <= INFINITY, "window {alpha}..{beta}");
        debug_assert!(PV || alpha + 1 == beta, "a non-PV node with the window {alpha}..{beta}");
        debug_assert!(ply < MAX_PLY, "ply {ply}");
        debug_assert!(depth < 2 * MAX_PLY as i32, "depth {depth}");
        if depth <= 0 {
            return self.qsearch::<PV>(pos, alpha, beta, ply);
        }
        // Step 2. The stop, and the node counted.
        // A node entered after the stop (the move loops above it unwind) is not searched, and
        // not counted: `go nodes N` reports exactly N.
        if self.state.stopped {
            return 0;
        }
        self.state.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        // Step 3. Draws (rules and repetition), the deepest ply, and mate-distance pruning.
        let root = ply == 0;
        // Inside a singularity test this node is searched without one of its moves: its result
        // is no bound on the node, so the table is neither trusted nor written.
        let singular_test = self.state.stack[ply].singular_test;
        self.state.pv_len[ply] = ply;
        self.state.seldepth = self.state.seldepth.max(ply);
        let in_check = pos.in_check();

        if !root {
            if is_material_or_fifty_draw(pos) || self.is_repetition(pos) {
                return 0;
            }
            if ply >= MAX_PLY - 1 {
                return if in_check { 0 } else { self.evaluate(pos, ply) };
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 4. The transposition table: its move, and a cut-off where its bound settles it.
        let key = pos.key();
        self.state.stack[ply].pawns = history::pawn_slot(pos);
        let halfmove = u32::from(pos.halfmove_clock());
        let entry = self.state.shared.tt.probe_at(key, ply, halfmove);
        let tt_move = entry.and_then(|e| e.mv).filter(|&m| pos.is_legal(m));
        let tt_noisy = tt_move.is_some_and(|m| m.is_capture() || m.is_promotion());
        if let Some(e) = entry {
            // Not near the fifty-move rule: the entry may have been stored with more moves in
            // hand than this position has, and a draw by the rule is then out of its sight.
            if !PV
                && singular_test.is_none()
                && e.depth >= depth
                && halfmove < TT_CUT_HALFMOVE_LIMIT
                && bound_cuts(&e, alpha, beta)
            {
                // A quiet hash move that cuts off here earns the bonus it would have earned by
                // searching: the ordering of the nodes that do search learns from it.
                if let Some(m) = tt_move.filter(|m| e.score >= beta && !m.is_capture() && !m.is_promotion()) {
                    self.state.stack[ply].threats = pos.attacks_by(!pos.side_to_move());
                    let conts = self.contexts(ply);
                    self.history.update_quiets(pos.side_to_move(), ply, depth, conts, (pos.moved_piece(m), m), &[]);
                }
                return e.score;
            }
        }

        // Step 5. The tablebases.
        // In the tablebases: a win or loss ends the node where its bound cuts, a draw always.
        // Where it does not cut, a PV node keeps it as a bound of its own: a win is the least
        // it scores, a loss the most, whatever the moves below find (without it, a table win
        // entered inside a wide window came back as the evaluation of the line searched).
        // (Only the flag and the halfmove clock are tested here; the rest is out of line.)
        let (mut tb_floor, mut tb_ceiling) = (-INFINITY, INFINITY);
        if self.state.tb_in_search && pos.halfmove_clock() == 0 && !root && singular_test.is_none() {
            match self.tablebase_cut(pos, depth, alpha, beta, ply, entry, in_check) {
                Some(TbProbe::Cut(score)) => return score,
                Some(TbProbe::Floor(score)) if PV => {
                    tb_floor = score;
                    alpha = alpha.max(score);
                }
                Some(TbProbe::Ceiling(score)) if PV => tb_ceiling = score,
                _ => {}
            }
        }

        // Step 6. The static evaluation, corrected, and whether it improves on two plies back;
        // the parent's reduction judged in hindsight.
        // The table keeps the evaluation uncorrected; the correction is applied on top.
        let raw_eval = if in_check {
            -INFINITY
        } else if let Some(e) = entry {
            e.eval
        } else {
            self.evaluate_and_store(pos, ply)
        };
        // Looked up once: the correction is read here and learned at the end of the node.
        let correction_keys = self.correction_keys(pos, ply);
        let static_eval = if in_check { -INFINITY } else { self.corrected(pos, &correction_keys, raw_eval) };
        let eval = if in_check { static_eval } else { sharpened(entry, static_eval) };
        // How far the correction history moved the evaluation: the larger, the less it is trusted.
        let correction = if in_check { 0 } else { (static_eval - raw_eval).abs() };
        // A node in check has no evaluation of its own: it carries the one of two plies back,
        // so that the node two plies on compares with a real evaluation, not minus infinity.
        self.state.stack[ply].eval = match (in_check, ply >= 2) {
            (false, _) => static_eval,
            (true, true) => self.state.stack[ply - 2].eval,
            (true, false) => -INFINITY,
        };
        let improving = !in_check && ply >= 2 && static_eval > self.state.stack[ply - 2].eval;
        self.history.clear_killers(ply + 1);
        self.state.stack[ply + 1].cutoffs = 0;
        // Hindsight: the parent reduced this node a lot; if the evaluations say the position is
        // no better for the side that moved into it than before, the reduction was too much.
        if !in_check && ply >= 1 && singular_test.is_none() {
            let prior = self.state.stack[ply - 1].reduction;
            let parent_eval = self.state.stack[ply - 1].eval;
            if prior >= p!(HINDSIGHT_REDUCTION) && static_eval + parent_eval <= 0 {
                depth += 1;
            } else if prior >= 2 && depth >= 2 && static_eval + parent_eval > p!(HINDSIGHT_MARGIN) {
                depth -= 1;
            }
        }

        if !PV && !in_check && singular_test.is_none() {
            // Step 7. Reverse futility pruning and the null move.
            // Reverse futility pruning.
            if depth <= p!(RFP_MAX_DEPTH)
                && !is_decisive(beta)
                && eval - p!(RFP_MARGIN) * (depth - improving as i32) - correction * p!(RFP_CORRECTION) / 1024 >= beta
            {
                // Fail firm: halfway to beta, an evaluation is no proof of the full margin (the
                // evaluation is never decisive; beta is not here, so neither is the mean).
                return (eval + beta) / 2;
            }
            // Null-move pruning.
            let us = pos.side_to_move();
            let pieces = pos.colored(us) & !(pos.pieces(PieceType::Pawn) | pos.pieces(PieceType::King));
            if cut_node
                && depth >= p!(NMP_MIN_DEPTH)
                && eval >= beta
                && pieces.is_nonempty()
                && ply >= 1
                && self.state.stack[ply - 1].mv.is_some()
                && beta.abs() < MATE_BOUND
            {
                // A noisy hash move: the position's threat is a capture, which the pass leaves
                // standing; the null move is then more likely to be refuted at any depth.
                let r = p!(NMP_BASE)
                    + depth / p!(NMP_DEPTH_DIVISOR)
                    + ((eval - beta) / p!(NMP_EVAL_DIVISOR)).min(p!(NMP_EVAL_MAX))
                    + p!(NMP_AFTER_NOISY_TT) * tt_noisy as i32;
                let child = self.make_and_enter(pos, ply, None);
                // No position before a null move repeats one after it: the pass is no move.
                let child_len = self.state.keys.len();
                let floor = std::mem::replace(&mut self.state.repetition_floor, child_len);
                let score = -self.negamax::<false>(&child, depth - r, -beta, -beta + 1, ply + 1, !cut_node);
                self.state.repetition_floor = floor;
                self.leave();
                if self.state.stopped {
                    return 0;
                }
                // A mate or tablebase win after passing is not proven for the node itself.
                if score >= beta {
                    return if score >= TB_BOUND { beta } else { score };
                }
            }
        }

        // Step 8. ProbCut.
        // ProbCut: a capture whose reduced search beats beta by a margin would cut this node.
        let probcut_beta = beta + p!(PROBCUT_MARGIN);
        if !PV
            && !in_check
            && singular_test.is_none()
            && depth >= p!(PROBCUT_MIN_DEPTH)
            && !is_decisive(beta)
            && !entry.is_some_and(|e| e.depth >= depth - p!(PROBCUT_TT_DEPTH) && e.score < probcut_beta)
        {
            let noisy_tt = tt_move.filter(|m| m.is_capture() || m.is_promotion());
            let mut picker = MovePicker::new_quiescence(pos, noisy_tt);
            while let Some(m) = picker.next(pos, &self.history) {
                if !pos.see_ge(m, probcut_beta - static_eval) {
                    continue;
                }
                let child = self.make_and_enter(pos, ply, Some(m));
                let mut score = -self.qsearch::<false>(&child, -probcut_beta, -probcut_beta + 1, ply + 1);
                if score >= probcut_beta {
                    score = -self.negamax::<false>(
                        &child,
                        depth - p!(PROBCUT_REDUCTION),
                        -probcut_beta,
                        -probcut_beta + 1,
                        ply + 1,
                        !cut_node,
                    );
                }
                self.leave();
                if self.state.stopped {
                    return 0;
                }
                if score >= probcut_beta {
                    self.state.shared.tt.store(
                        key,
                        Some(m),
                        score,
                        raw_eval,
                        depth - p!(PROBCUT_TT_DEPTH),
                        Bound::Lower,
                        ply,
                    );
                    // Fail firm: the margin was the search's, not the node's; a mate or a
                    // tablebase result is returned as it is, never moved by a margin.
                    return if is_decisive(score) { score } else { score - (probcut_beta - beta) };
                }
            }
        }

        // Step 9. Internal iterative reduction.
        if depth >= p!(IIR_MIN_DEPTH) && tt_move.is_none() && (PV || cut_node) && singular_test.is_none() {
            depth -= 1;
        }

        // Step 10. The moves, best-ordered first.
        let killers = self.history.killers(ply);
        // The opponent's attacks, for the butterfly history's threat slots and, by class of
        // attacker, the picker's order of quiets (only nodes that search moves need them).
        let threats = pos.attack_levels(!pos.side_to_move());
        self.state.stack[ply].threats = threats[3];
        let conts = self.contexts(ply);
        if root {
            self.state.stack[0].double_extensions = 0;
        }
        let double_extensions = self.state.stack[ply].double_extensions;
        let mut picker = MovePicker::new(pos, tt_move, killers, conts);
        picker.set_threats(threats);
        let mut best_score = tb_floor;
        let mut best_move = None;
        let mut move_count = 0;
        let mut quiets: ArrayVec<(Piece, Move), 64> = ArrayVec::new();
        let mut noisies: ArrayVec<(Piece, Move, PieceType), 32> = ArrayVec::new();
        let side = pos.side_to_move();
        let lmp_limit = (p!(LMP_BASE) + depth * depth) / if improving { 1 } else { 2 };

        while let Some(m) = picker.next(pos, &self.history) {
            // At the root: the move's slot among the root moves and the node count before it.
            let root_slot = if root {
                match self.state.root_moves.iter().position(|r| r.mv == m) {
                    Some(i) if !self.state.lines_given.contains(&m) => Some((i, self.state.nodes)),
                    _ => continue,
                }
            } else {
                None
            };
            if Some(m) == singular_test {
                continue;
            }
            move_count += 1;
            if root && self.state.main.is_some() {
                self.announce_root_move(depth, m, move_count as usize);
            }
            // The child's table entry is fetched now, while the move is judged and made: fetched
            // when the child is entered, it came too late (docs/search.md).
            self.state.shared.tt.prefetch(pos.key_after_hint(m));
            let quiet = !m.is_capture() && !m.is_promotion();
            let piece = pos.moved_piece(m);
            let history = if quiet { self.history.quiet_score(side, piece, m, conts) } else { 0 };

            // Step 11. Pruning at low depth, before the move is made.
            // Pruning is decided before the move is made: most moves it drops at low depth are
            // never paid for.
            let gives_check = pos.gives_check(m);
            // Late-move pruning: past the limit only quiet checks are searched; the picker
            // yields no other quiet move after this one.
            if !root && best_score > -MATE_BOUND && quiet && depth <= p!(LMP_MAX_DEPTH) && move_count > lmp_limit {
                picker.skip_quiets();
                if !gives_check {
                    continue;
                }
            }
            // What the picker already knows of the move's exchange (`Some(true)`: it loses no
            // material), so that SEE is not computed again.
            let known_see = picker.known_see();
            // Quiet moves that give check are not pruned by history or futility: mating attacks
            // are made of them. A move that loses material is SEE-pruned, check or not.
            if !root && best_score > -MATE_BOUND {
                if quiet && !gives_check {
                    // History pruning: a quiet move that has failed here again and again.
                    if depth <= p!(HISTORY_PRUNE_MAX_DEPTH) && history < -p!(HISTORY_PRUNE_MARGIN) * depth {
                        continue;
                    }
                    if !in_check
                        && depth <= p!(FUTILITY_MAX_DEPTH)
                        && eval
                            + p!(FUTILITY_BASE)
                            + p!(FUTILITY_MARGIN) * depth
                            + correction * p!(FUTILITY_CORRECTION) / 1024
                            <= alpha
                    {
                        // The margin does not depend on the move: every later quiet that gives
                        // no check fails it too, so none is scored or yielded.
                        picker.skip_quiets();
                        continue;
                    }
                } else if !quiet && !gives_check && !in_check && depth <= p!(CAPTURE_FUTILITY_MAX_DEPTH) {
                    // Capture futility: even the victim and a margin per ply do not reach alpha.
                    let victim =
                        if m.is_capture() { crate::position::SEE_VALUES[captured_type(pos, m).index()] } else { 0 };
                    if eval + victim + p!(CAPTURE_FUTILITY_BASE) + p!(CAPTURE_FUTILITY_MARGIN) * depth <= alpha {
                        continue;
                    }
                }
                if quiet {
                    if depth <= p!(SEE_QUIET_MAX_DEPTH) && !pos.see_ge(m, -p!(SEE_QUIET_MARGIN) * depth * depth) {
                        continue;
                    }
                } else if depth <= p!(SEE_NOISY_MAX_DEPTH)
                    && known_see != Some(true)
                    && !pos.see_ge(m, -p!(SEE_NOISY_MARGIN) * depth)
                {
                    continue;
                }
            }
            // Whether the move loses material (computed once, for noisy moves and checks).
            let loses = || match known_see {
                Some(good) => !good,
                None => !pos.see_ge(m, 0),
            };

            // Step 12. Extensions: checks, and the singular hash move.
            // A check that does not lose material is searched a ply deeper.
            let mut extension = (gives_check && !loses()) as i32;
            if let Some(e) = entry
                .filter(|_| !root && depth >= p!(SINGULAR_MIN_DEPTH) && singular_test.is_none() && Some(m) == tt_move)
            {
                if matches!(e.bound, Bound::Lower | Bound::Exact)
                    && e.depth >= depth - p!(SINGULAR_TT_DEPTH)
                    && !is_decisive(e.score)
                {
                    let singular_beta = e.score - p!(SINGULAR_MARGIN) * depth;
                    self.state.stack[ply].singular_test = Some(m);
                    let score =
                        self.negamax::<false>(pos, (depth - 1) / 2, singular_beta - 1, singular_beta, ply, cut_node);
                    self.state.stack[ply].singular_test = None;
                    if self.state.stopped {
                        return 0;
                    }
                    if score < singular_beta {
                        // Far below the margin: the only move by a distance, two plies deeper
                        // (a bounded number of times on one path).
                        let margin =
                            (p!(DOUBLE_EXTENSION_MARGIN) - correction * p!(DOUBLE_EXTENSION_CORRECTION) / 1024).max(0);
                        let double =
                            !PV && score < singular_beta - margin && double_extensions < p!(DOUBLE_EXTENSIONS_MAX);
                        extension = if double { 2 } else { 1 };
                    } else if singular_beta >= beta {
                        return singular_beta;
                    } else if e.score >= beta || cut_node {
                        extension = -1;
                    }
                }
            }

            // Step 13. The move made, and the child searched: the first move with the full
            // window, the others reduced (late-move reductions), searched again where they beat
            // alpha.
            // Made after the singularity test, whose own children take the accumulator slot of
            // `ply + 1`.
            let child = self.make_and_enter(pos, ply, Some(m));
            let new_depth = depth - 1 + extension;
            self.state.stack[ply + 1].double_extensions = double_extensions + (extension >= 2) as i32;

            let mut score;
            if move_count == 1 {
                score = -self.negamax::<PV>(&child, new_depth, -beta, -alpha, ply + 1, !PV && !cut_node);
            } else {
                // The reduction in 1/1024 ply, then in whole plies.
                let mut r = 0;
                if depth >= p!(LMR_MIN_DEPTH) && move_count > 1 + 2 * (PV as i32) {
                    r = lmr_reduction(depth.min(63) as usize, move_count.min(63) as usize);
                    r += p!(LMR_NON_PV) * !PV as i32;
                    r += p!(LMR_NOT_IMPROVING) * !improving as i32;
                    r += p!(LMR_CUT_NODE) * cut_node as i32;
                    r -= p!(LMR_GIVES_CHECK) * gives_check as i32;
                    r -= p!(LMR_KILLER) * (Some(m) == killers[0] || Some(m) == killers[1]) as i32;
                    if quiet {
                        r -= history * PLY / p!(LMR_HISTORY_DIVISOR);
                        // Far below alpha, a quiet move is unlikely to lift the score to it.
                        if !in_check {
                            r += ((alpha - eval).max(0) * p!(LMR_EVAL_GAP)).min(p!(LMR_EVAL_GAP_MAX));
                        }
                    } else {
                        // A capture or promotion: one that loses no material is reduced much
                        // less; each by what its captures have done before.
                        r -= p!(LMR_GOOD_NOISY) * !loses() as i32;
                        r -= self.history.capture(piece, m, captured_type(pos, m)) * PLY
                            / p!(LMR_CAPTURE_HISTORY_DIVISOR);
                    }
                    // An evaluation the correction history moved far is uncertain: look deeper.
                    r -= correction * p!(LMR_CORRECTION);
                    r += p!(LMR_AFTER_NOISY_TT) * (quiet && tt_noisy) as i32;
                    // Children that keep failing high: this node will likely fail high too.
                    r += p!(LMR_CUTOFF_NODE) * (self.state.stack[ply + 1].cutoffs > p!(LMR_CUTOFFS)) as i32;
                    // In a PV node a move with a good enough record is searched a ply deeper.
                    let least = if PV { -PLY } else { 0 };
                    r = r.clamp(least, (new_depth - 1).max(0) * PLY) / PLY;
                }
                let reduced = new_depth - r;
                self.state.stack[ply].reduction = r;
                score = -self.negamax::<false>(&child, reduced, -alpha - 1, -alpha, ply + 1, true);
                self.state.stack[ply].reduction = 0;
                let mut full = new_depth.max(reduced);
                if score > alpha && r > 0 {
                    // How far the reduced search beat the best move so far says how deep to
                    // look again: well above it, a ply deeper; barely, a ply shallower.
                    let deeper = best_score > -MATE_BOUND
                        && score > best_score + p!(DEEPER_BASE) + p!(DEEPER_MARGIN) * new_depth;
                    let shallower = score < best_score + p!(SHALLOWER_MARGIN);
                    full += deeper as i32 - shallower as i32;
                    if full > reduced {
                        score = -self.negamax::<false>(&child, full, -alpha - 1, -alpha, ply + 1, !cut_node);
                        // What the deeper search found teaches the continuation histories.
                        if quiet {
                            let bonus = history::History::bonus(full);
                            let bonus = if score > alpha { bonus } else { -bonus };
                            self.history.reward_continuations(piece, m, conts, bonus);
                        }
                    }
                }
                if PV && score > alpha && score < beta {
                    score = -self.negamax::<true>(&child, full, -beta, -alpha, ply + 1, false);
                }
            }
            self.leave();
            if let Some((i, before)) = root_slot {
                self.state.root_moves[i].nodes += self.state.nodes - before;
            }
            if self.state.stopped {
                return 0;
            }

            // Step 14. A new best move; a cut-off teaches the histories.
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    if PV {
                        self.update_pv(ply, m);
                        if let Some((i, _)) = root_slot {
                            self.root_move_raised_alpha(i, score);
                        }
                    }
                    if alpha >= beta {
                        self.state.stack[ply].cutoffs += 1;
                        if quiet {
                            self.history.update_quiets(side, ply, depth, conts, (piece, m), &quiets);
                            self.history.update_captures(depth, None, &noisies);
                        } else {
                            let best = (piece, m, captured_type(pos, m));
                            self.history.update_captures(depth, Some(best), &noisies);
                        }
                        break;
                    }
                }
            }
            if Some(m) != best_move {
                if quiet {
                    let _ = quiets.try_push((piece, m));
                } else {
                    let _ = noisies.try_push((piece, m, captured_type(pos, m)));
                }
            }
        }

        // Step 15. No move: mate or stalemate (in a singularity test: no other move).
        if move_count == 0 {
            return if singular_test.is_some() {
                alpha
            } else if in_check {
                -MATE + ply as i32
            } else {
                0
            };
        }
        // Step 16. The result stored, the correction history taught.
        // Without one of its moves a node's result is no bound on it: inside a singularity test,
        // and at the root of a MultiPV line after the first (which leaves the better lines'
        // moves out). Neither the table nor the correction history learns from it.
        if singular_test.is_some() || (root && !self.state.lines_given.is_empty()) {
            return best_score;
        }
        best_score = best_score.min(tb_ceiling);

        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_move.is_some() {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let noisy_best = best_move.is_some_and(|m| m.is_capture() || m.is_promotion());
        // A bound says something about the evaluation's error only on the side it bounds.
        let informative = match bound {
            Bound::Lower => best_score > static_eval,
            Bound::Upper => best_score < static_eval,
            _ => true,
        };
        // A node that fails low was a good move for the opponent who moved into it: their
        // quiet move gets the bonus a cut-off would have earned it.
        if bound == Bound::Upper && ply >= 1 {
            let (prev, cont) = (self.state.stack[ply - 1].mv, self.state.stack[ply - 1].cont);
            let quiet_prev = prev.filter(|m| !m.is_capture() && !m.is_promotion());
            if let (Some(prev), Some(piece)) = (quiet_prev, history::context_piece(cont)) {
                let conts = self.contexts(ply - 1);
                self.history.reward_quiet(!pos.side_to_move(), piece, prev, conts, history::History::bonus(depth));
            }
        }
        if !in_check && !noisy_best && !is_decisive(best_score) && informative {
            self.correction.update(pos.side_to_move(), &correction_keys, depth, best_score - static_eval);
        }
        self.state.shared.tt.store(key, best_move, best_score, raw_eval, depth, bound, ply);
        best_score
    }

    fn qsearch<const PV: bool>(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        debug_assert!(-INFINITY <= alpha && alpha < beta && beta <= INFINITY, "window {alpha}..{beta}");
        debug_assert!(PV || alpha + 1 == beta, "a non-PV node with the window {alpha}..{beta}");
        debug_assert!(ply < MAX_PLY, "ply {ply}");
        if self.state.stopped {
            return 0;
        }
        self.state.nodes += 1;
        if self.check_stop() {
            return 0;
        }
        if PV {
            self.state.pv_len[ply] = ply;
        }
        self.state.seldepth = self.state.seldepth.max(ply);
        if is_material_or_fifty_draw(pos) || self.is_repetition(pos) {
            return 0;
        }
        let in_check = pos.in_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { 0 } else { self.evaluate(pos, ply) };
        }

        let key = pos.key();
        let halfmove = u32::from(pos.halfmove_clock());
        let entry = self.state.shared.tt.probe_at(key, ply, halfmove);
        if let Some(e) = entry {
            if !PV && halfmove < TT_CUT_HALFMOVE_LIMIT && bound_cuts(&e, alpha, beta) {
                return e.score;
            }
        }
        let tt_move = entry.and_then(|e| e.mv).filter(|&m| pos.is_legal(m));

        let mut best_score = -INFINITY;
        let mut raw_eval = -INFINITY;
        let mut static_eval = -INFINITY;
        if !in_check {
            raw_eval = match entry {
                Some(e) => e.eval,
                None => self.evaluate_and_store(pos, ply),
            };
            static_eval = self.corrected(pos, &self.correction_keys(pos, ply), raw_eval);
            let stand_pat = sharpened(entry, static_eval);
            if stand_pat >= beta {
                // Fail firm: the evaluation is no proof of how far above beta (unless beta is
                // decisive: the mean would be neither an evaluation nor a mate).
                return if is_decisive(beta) { stand_pat } else { (stand_pat + beta) / 2 };
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }

        // Where the correction history moved the evaluation far, a capture may lose a little by
        // static exchange and still be searched (the node's own figure, once, not per capture).
        let see_floor = if in_check { 0 } else { -((static_eval - raw_eval).abs() * p!(QS_SEE_CORRECTION) / 1024) };
        let mut picker = MovePicker::new_quiescence(pos, tt_move);
        let mut best_move = None;
        let mut moves = 0;
        // A recapture on the square of the last move is never cut by the move count.
        let recapture_square = if ply >= 1 { self.state.stack[ply - 1].mv.map(|m| m.to()) } else { None };
        while let Some(m) = picker.next(pos, &self.history) {
            moves += 1;
            // In check, once one evasion has saved the king, the quiet ones are not searched
            // (captures of the checker still are).
            if in_check && best_score > -MATE_BOUND && !m.is_capture() && !m.is_promotion() {
                continue;
            }
            if !in_check && best_score > -MATE_BOUND {
                // Move-count pruning: the best captures come first; past a few, only
                // recaptures and promotions are still worth a look.
                if moves > p!(QS_MOVE_COUNT) && Some(m.to()) != recapture_square && !m.is_promotion() {
                    continue;
                }
                // Delta pruning: even winning the victim cannot lift the score to alpha.
                if m.promotion().is_none() && m.is_capture() {
                    let victim = if m.is_en_passant() { PieceType::Pawn } else { pos.piece_type_on(m.to()) };
                    let gain = crate::position::SEE_VALUES[victim.index()];
                    let futility = static_eval + gain + p!(DELTA_MARGIN);
                    if futility <= alpha {
                        // What the capture could at most bring is still a bound on the node.
                        best_score = best_score.max(futility);
                        continue;
                    }
                }
                if picker.known_see() != Some(true) && !pos.see_ge(m, see_floor) {
                    continue;
                }
            }
            // The child's correction is looked up by this move.
            let child = self.make_and_enter(pos, ply, Some(m));
            let score = -self.qsearch::<PV>(&child, -beta, -alpha, ply + 1);
            self.leave();
            if self.state.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if PV {
                        self.update_pv(ply, m);
                    }
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && moves == 0 {
            return -MATE + ply as i32;
        }
        let bound = if best_score >= beta { Bound::Lower } else { Bound::Upper };
        self.state.shared.tt.store(key, best_move, best_score, raw_eval, 0, bound, ply);
        best_score
    }
}
