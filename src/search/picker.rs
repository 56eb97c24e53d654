//! The staged move picker: the hash move, then good captures and promotions (MVV-LVA, checked by
//! SEE), the two killers, quiet moves by history (and by the threats they escape, walk into or
//! make), and last the captures that lose material.
//!
//! Every stage yields legal moves only (the generator is legal; the hash move and killers are
//! validated with `Position::is_legal`), and no move is yielded twice.

use arrayvec::ArrayVec;

use super::history::{Contexts, History};
use super::params::p;
use crate::movelist::{MoveList, MAX_MOVES};
use crate::position::{AllMoves, Captures, Position, Quiets, SEE_VALUES};
use crate::tables::{bishop_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::types::{Bitboard, Move, PieceType};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    GenNoisy,
    GoodNoisy,
    Killers,
    GenQuiets,
    Quiets,
    BadNoisy,
    Evasions,
    Done,
}

/// Yields the moves of a node in search order.
pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 2],
    killer_index: usize,
    /// Continuation contexts of the two moves before this node, for quiet-move scores.
    conts: Contexts,
    moves: MoveList,
    scores: ArrayVec<i32, MAX_MOVES>,
    index: usize,
    bad: MoveList,
    bad_index: usize,
    /// Quiescence: captures and promotions only (and no bad captures).
    noisy_only: bool,
    /// Set by [`MovePicker::skip_quiets`]: no further quiet move is yielded unless it gives check.
    skip_quiets: bool,
    /// The opponent's attacks by class ([`Position::attack_levels`]), set by
    /// [`MovePicker::set_threats`]; empty (no threat term) until then.
    threats: [Bitboard; 4],
}

/// What a quiet move's order adds to its history: a bonus for taking a piece out of an attack by
/// something worth less, a malus for moving it into one, and a bonus for a direct check that
/// loses no material. `checks` holds, by piece type, the squares from which that piece would
/// check the enemy king.
#[inline]
fn quiet_order(pos: &Position, m: Move, threats: &[Bitboard; 4], checks: &[Bitboard; 6]) -> i32 {
    let pt = pos.moved_piece(m).piece_type();
    let (danger, weight) = match pt {
        PieceType::Knight | PieceType::Bishop => (threats[0], p!(ORDER_THREAT_MINOR)),
        PieceType::Rook => (threats[1], p!(ORDER_THREAT_ROOK)),
        PieceType::Queen => (threats[2], p!(ORDER_THREAT_QUEEN)),
        _ => (Bitboard::EMPTY, 0),
    };
    let threat = if danger.has(m.to()) {
        -weight
    } else if danger.has(m.from()) {
        weight
    } else {
        0
    };
    let check = if checks[pt.index()].has(m.to()) && pos.see_ge(m, 0) { p!(ORDER_CHECK) } else { 0 };
    threat + check
}

/// The squares from which each piece type of the side to move would give a direct check.
fn check_squares(pos: &Position) -> [Bitboard; 6] {
    let us = pos.side_to_move();
    let ksq = pos.king(!us);
    let occupied = pos.occupied();
    let (bishop, rook) = (bishop_attacks(ksq, occupied), rook_attacks(ksq, occupied));
    let mut checks = [Bitboard::EMPTY; 6];
    checks[PieceType::Pawn.index()] = pawn_attacks(!us, ksq);
    checks[PieceType::Knight.index()] = knight_attacks(ksq);
    checks[PieceType::Bishop.index()] = bishop;
    checks[PieceType::Rook.index()] = rook;
    checks[PieceType::Queen.index()] = bishop | rook;
    checks
}

/// The piece type a noisy move takes for capture history: a promotion without capture (and en
/// passant) counts as taking a pawn.
pub fn captured_type(pos: &Position, m: Move) -> PieceType {
    if m.is_capture() && !m.is_en_passant() {
        pos.piece_type_on(m.to())
    } else {
        PieceType::Pawn
    }
}

/// The victim's value (sixteen times its SEE value, a queen promotion counting as a queen) plus
/// the capture history: the most valuable victim first, and among equal victims the captures
/// that have cut off before.
fn noisy_score(pos: &Position, m: Move, history: &History) -> i32 {
    let captured = captured_type(pos, m);
    let victim = if m.is_capture() { SEE_VALUES[captured.index()] } else { 0 };
    let promo = match m.promotion() {
        Some(PieceType::Queen) => SEE_VALUES[PieceType::Queen.index()],
        Some(_) => -SEE_VALUES[PieceType::Queen.index()],
        None => 0,
    };
    16 * (victim + promo) + history.capture(pos.moved_piece(m), m, captured)
}

impl MovePicker {
    /// A picker for a full-width node reached by moves with the continuation contexts `conts`.
    pub fn new(pos: &Position, tt_move: Option<Move>, killers: [Option<Move>; 2], conts: Contexts) -> MovePicker {
        let stage = if pos.in_check() { Stage::Evasions } else { Stage::TtMove };
        MovePicker {
            stage,
            tt_move,
            killers,
            killer_index: 0,
            conts,
            moves: MoveList::new(),
            scores: ArrayVec::new(),
            index: 0,
            bad: MoveList::new(),
            bad_index: 0,
            noisy_only: false,
            skip_quiets: false,
            threats: [Bitboard::EMPTY; 4],
        }
    }

    /// The opponent's attacks by class of attacker ([`Position::attack_levels`]), for the
    /// quiets' order: moves out of and into attacks by lesser pieces, and direct checks.
    pub fn set_threats(&mut self, threats: [Bitboard; 4]) {
        self.threats = threats;
    }

    /// A picker for quiescence: good captures and promotions, or every evasion when in check.
    pub fn new_quiescence(pos: &Position, tt_move: Option<Move>) -> MovePicker {
        let tt_move = tt_move.filter(|m| pos.in_check() || m.is_capture());
        let mut picker = MovePicker::new(pos, tt_move, [None; 2], Contexts::NONE);
        picker.noisy_only = true;
        picker
    }

    /// Picks the best-scored remaining move of `moves[index..]`.
    fn select(&mut self) -> Option<Move> {
        if self.index >= self.moves.len() {
            return None;
        }
        let mut best = self.index;
        for i in self.index + 1..self.moves.len() {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.index, best);
        self.scores.swap(self.index, best);
        self.index += 1;
        Some(self.moves[self.index - 1])
    }

    /// From now on, yields no quiet move but checks (the search prunes the others): the quiets
    /// are neither scored nor sorted, only scanned once for checks, and evasions skip theirs.
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    fn is_special(&self, m: Move) -> bool {
        Some(m) == self.tt_move || Some(m) == self.killers[0] || Some(m) == self.killers[1]
    }

    /// What the picker learned of the exchange of the move it last gave: `Some(true)` for a
    /// capture it found to lose no material (SEE), `Some(false)` for one it found to lose some,
    /// `None` where it did not look (the hash move, killers, quiets, evasions).
    #[inline]
    pub fn known_see(&self) -> Option<bool> {
        match self.stage {
            Stage::GoodNoisy => Some(true),
            Stage::BadNoisy => Some(false),
            _ => None,
        }
    }

    /// The next move, or `None` when the node has none left.
    pub fn next(&mut self, pos: &Position, history: &History) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenNoisy;
                    if let Some(m) = self.tt_move {
                        return Some(m);
                    }
                }
                Stage::GenNoisy => {
                    pos.generate::<Captures>(&mut self.moves);
                    // Scores are written in place: collecting into a new list and moving it in
                    // copied all 1,300 bytes of it.
                    self.scores.clear();
                    self.scores.extend(self.moves.iter().map(|&m| noisy_score(pos, m, history)));
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => match self.select() {
                    Some(m) if Some(m) == self.tt_move => {}
                    Some(m) => {
                        if pos.see_ge(m, 0) {
                            return Some(m);
                        }
                        self.bad.push(m);
                    }
                    None => {
                        self.stage = if self.noisy_only { Stage::Done } else { Stage::Killers };
                    }
                },
                Stage::Killers => {
                    if self.killer_index >= 2 {
                        self.stage = Stage::GenQuiets;
                        continue;
                    }
                    let k = self.killers[self.killer_index];
                    self.killer_index += 1;
                    if let Some(m) = k {
                        if Some(m) != self.tt_move
                            && !m.is_capture()
                            && !m.is_promotion()
                            && pos.is_legal(m)
                            && (!self.skip_quiets || pos.gives_check(m))
                        {
                            return Some(m);
                        }
                    }
                }
                Stage::GenQuiets => {
                    self.moves.clear();
                    self.index = 0;
                    pos.generate::<Quiets>(&mut self.moves);
                    if !self.skip_quiets {
                        let side = pos.side_to_move();
                        let conts = self.conts;
                        let (threats, checks) = (self.threats, check_squares(pos));
                        self.scores.clear();
                        self.scores.extend(self.moves.iter().map(|&m| {
                            history.quiet_score(side, pos.moved_piece(m), m, conts)
                                + quiet_order(pos, m, &threats, &checks)
                        }));
                    }
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets if self.skip_quiets => {
                    // Only the checks are left to yield: found in one pass, unsorted.
                    while let Some(&m) = self.moves.get(self.index) {
                        self.index += 1;
                        if !self.is_special(m) && pos.gives_check(m) {
                            return Some(m);
                        }
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::Quiets => match self.select() {
                    Some(m) if self.is_special(m) => {}
                    Some(m) => return Some(m),
                    None => self.stage = Stage::BadNoisy,
                },
                Stage::BadNoisy => {
                    if let Some(&m) = self.bad.get(self.bad_index) {
                        self.bad_index += 1;
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Evasions => {
                    if self.moves.is_empty() && self.index == 0 {
                        pos.generate::<AllMoves>(&mut self.moves);
                        let side = pos.side_to_move();
                        let conts = self.conts;
                        let tt_move = self.tt_move;
                        self.scores.clear();
                        self.scores.extend(self.moves.iter().map(|&m| {
                            if Some(m) == tt_move {
                                1 << 24
                            } else if m.is_capture() || m.is_promotion() {
                                (1 << 20) + noisy_score(pos, m, history)
                            } else {
                                history.quiet_score(side, pos.moved_piece(m), m, conts)
                            }
                        }));
                    }
                    match self.select() {
                        Some(m) if self.skip_quiets && !m.is_capture() && !m.is_promotion() && !pos.gives_check(m) => {}
                        Some(m) => return Some(m),
                        None => self.stage = Stage::Done,
                    }
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Color;

    fn collect(pos: &Position, tt_move: Option<Move>, killers: [Option<Move>; 2]) -> Vec<Move> {
        let history = Box::<History>::default();
        let mut picker = MovePicker::new(pos, tt_move, killers, Contexts::NONE);
        std::iter::from_fn(|| picker.next(pos, &history)).collect()
    }

    #[test]
    fn quiets_escape_threats_first_walk_into_them_last_and_checks_come_early() {
        // The knight on e4 is attacked by the pawn on d5; the rook can check from c8 where nothing
        // takes it, or walk onto c4 where the pawn takes it. With no history at all, the order
        // of quiets is the threat and check terms alone.
        let pos = Position::from_fen("4k3/8/8/3p4/4N3/8/8/2R1K3 w - - 0 1").unwrap();
        let history = Box::<History>::default();
        let mut picker = MovePicker::new(&pos, None, [None; 2], Contexts::NONE);
        picker.set_threats(pos.attack_levels(Color::Black));
        let order: Vec<String> = std::iter::from_fn(|| picker.next(&pos, &history)).map(|m| m.to_string()).collect();
        assert_eq!(order.len(), pos.legal_moves().len());
        let at = |m: &str| order.iter().position(|x| x == m).unwrap_or_else(|| panic!("{m} in {order:?}"));
        // The two knight checks escape and check: first.
        assert!(at("e4d6").max(at("e4f6")) < 2, "{order:?}");
        // Every knight move (out of the pawn's attack) and the safe rook check come before every
        // king move and every other rook move.
        let early = ["e4c3", "e4c5", "e4d2", "e4f2", "e4g3", "e4g5", "c1c8"];
        let neutral = ["e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "c1c2", "c1c3", "c1b1", "c1a1"];
        for e in early {
            for n in neutral.iter().filter(|n| order.contains(&n.to_string())) {
                assert!(at(e) < at(n), "{e} before {n}: {order:?}");
            }
        }
        // The rook onto the pawn's square of attack comes last.
        assert_eq!(order.last().map(String::as_str), Some("c1c4"), "{order:?}");
    }

    #[test]
    fn yields_every_legal_move_once() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
            "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1",
        ];
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let legal = pos.legal_moves();
            let mut expected: Vec<u16> = legal.iter().map(|m| m.raw()).collect();
            expected.sort_unstable();
            let other = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap().legal_moves();
            // hash move and killers from this node, from another position, or absent
            let candidates = [None, legal.first().copied(), legal.last().copied(), other.first().copied()];
            for tt in candidates {
                for k0 in candidates {
                    let tt = tt.filter(|&m| pos.is_legal(m));
                    let got = collect(&pos, tt, [k0, legal.get(3).copied()]);
                    let mut raw: Vec<u16> = got.iter().map(|m| m.raw()).collect();
                    raw.sort_unstable();
                    assert_eq!(raw, expected, "{fen} tt {tt:?} killer {k0:?}");
                    if let Some(t) = tt {
                        assert_eq!(got[0], t, "hash move first");
                    }
                }
            }
        }
    }

    #[test]
    fn skipping_quiets_leaves_the_noisy_moves_and_the_checks() {
        let history = Box::<History>::default();
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "3R4/8/q4k2/2B5/1NK5/3b4/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/3qr3/4K3 w - - 0 1",
            "r1b3kr/ppp1Bp1p/1b6/n2P4/2p3q1/2Q2N2/P4PPP/RN2R1K1 w - - 1 1",
            "7k/8/8/8/8/8/1R6/K5R1 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let legal = pos.legal_moves();
            let quiet = |m: &Move| !m.is_capture() && !m.is_promotion();
            let first_quiet = legal.iter().find(|m| quiet(m)).copied();
            let checking_quiet = legal.iter().find(|&m| quiet(m) && pos.gives_check(*m)).copied();
            // Skipped at once, after the first move (a quiet hash move where there is one), or
            // after a killer has come.
            for (tt, killer, before) in [(None, None, 0), (first_quiet, None, 1), (None, first_quiet, usize::MAX)] {
                let mut picker = MovePicker::new(&pos, tt, [killer.or(checking_quiet), None], Contexts::NONE);
                let mut got = Vec::new();
                while got.len() < before.min(1) || (before == usize::MAX && !got.contains(&killer.unwrap())) {
                    got.push(picker.next(&pos, &history).unwrap());
                }
                let yielded_before = got.clone();
                picker.skip_quiets();
                got.extend(std::iter::from_fn(|| picker.next(&pos, &history)));
                let mut expected: Vec<u16> = legal
                    .iter()
                    .filter(|&m| !quiet(m) || pos.gives_check(*m) || yielded_before.contains(m))
                    .map(|m| m.raw())
                    .collect();
                let mut raw: Vec<u16> = got.iter().map(|m| m.raw()).collect();
                expected.sort_unstable();
                raw.sort_unstable();
                assert_eq!(raw, expected, "{fen}: tt {tt:?} killer {killer:?}");
            }
        }
    }

    #[test]
    fn what_the_picker_says_of_a_moves_exchange_is_true() {
        let history = Box::<History>::default();
        let (mut good, mut bad) = (0, 0);
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r1b3kr/ppp1Bp1p/1b6/n2P4/2p3q1/2Q2N2/P4PPP/RN2R1K1 w - - 1 1",
            "rnbqkb1r/pp1p1ppp/5n2/2pPp3/4P3/2N5/PPP2PPP/R1BQKBNR w KQkq - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let noisy = pos.legal_moves().iter().copied().find(|m| m.is_capture());
            let mut picker = MovePicker::new(&pos, noisy, [None; 2], Contexts::NONE);
            while let Some(m) = picker.next(&pos, &history) {
                match picker.known_see() {
                    Some(known) => {
                        assert!(m.is_capture() || m.is_promotion(), "{fen} {m}");
                        assert_eq!(known, pos.see_ge(m, 0), "{fen} {m}");
                        if known {
                            good += 1;
                        } else {
                            bad += 1;
                        }
                    }
                    None => assert!(Some(m) == noisy || !(m.is_capture() || m.is_promotion()), "{fen} {m}"),
                }
            }
        }
        assert!(good > 0 && bad > 0, "both kinds met ({good} good, {bad} bad)");
    }

    #[test]
    fn quiescence_yields_noisy_moves_or_all_evasions() {
        let history = Box::<History>::default();
        let pos = Position::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1").unwrap();
        let mut picker = MovePicker::new_quiescence(&pos, None);
        let got: Vec<Move> = std::iter::from_fn(|| picker.next(&pos, &history)).collect();
        assert!(!got.is_empty() && got.iter().all(|m| m.is_capture() || m.is_promotion()));
        assert!(got.iter().all(|&m| pos.see_ge(m, 0)), "only captures that do not lose material");
        let check = Position::from_fen("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1").unwrap();
        let mut picker = MovePicker::new_quiescence(&check, None);
        let got: Vec<Move> = std::iter::from_fn(|| picker.next(&check, &history)).collect();
        assert_eq!(got.len(), check.legal_moves().len());
    }
}
