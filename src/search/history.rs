//! Move-ordering memory of one search thread, kept across `go` commands until `ucinewgame`:
//! two killer moves per ply, a butterfly history of quiet moves (side, whether the opponent
//! attacks the from- and the to-square, from, to) and a
//! continuation history (the piece and destination of the move one, two and four plies back, then the
//! piece and destination of this move), which learns replies rather than moves.
//!
//! One update rule: the quiet move that caused a beta cut-off gets a bonus, every quiet tried
//! before it the same amount as a malus, and both go through the "gravity" formula
//! `h += b - h * |b| / MAX`, which keeps values inside `±MAX` without clamping. A quiet move's
//! score is the sum of its butterfly entry, its three continuation entries and its pawn-history
//! entry (the piece and destination in positions of the same pawn structure, a slot chosen by
//! the pawn key: which plans suit a structure).
//!
//! Captures and promotions have their own capture history (moving piece, destination, captured
//! piece type), updated by the same rule and added to the victim's value when ordering them.
//!
//! The correction history is of another kind: per side to move and pawn structure (a slot
//! chosen by the pawn key), and likewise per side to move and each side's pieces other than
//! pawns, and per side to move and the move before, corrections added to later static
//! evaluations of the same structure, the same pieces or after the same move. Each learns the
//! residual, how far a node's search result fell from its evaluation *as corrected*, so the
//! tables together converge on the evaluation's error instead of each learning all of it.

use super::params::p;
use crate::position::Position;
use crate::tt::MAX_PLY;
use crate::types::{Bitboard, Color, Move, Piece, PieceType};

/// History values stay within `±MAX_HISTORY`.
pub const MAX_HISTORY: i32 = 16_384;

/// A continuation context: the piece and destination of an earlier move, `piece * 64 + to`;
/// `NO_CONTEXT` (a null move, or before the root) reads as an all-zero table that is never
/// written.
pub type Context = usize;

/// What a quiet move is scored in: the contexts of the moves one, two and four plies back, the
/// pawn-history slot of the position (its pawn structure, [`pawn_slot`]) and the squares the
/// opponent attacks (a move out of attack, or into it, has a butterfly entry of its own).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Contexts {
    pub moves: [Context; 3],
    pub pawns: usize,
    pub threats: Bitboard,
}

impl Contexts {
    /// No earlier move, no pawn structure, no threat (quiescence evasions, tests): every
    /// continuation and pawn entry reads 0.
    pub const NONE: Contexts = Contexts { moves: [NO_CONTEXT; 3], pawns: NO_PAWNS, threats: Bitboard::EMPTY };
}

/// The butterfly table's threat slot of `m`: whether its from- and to-squares are attacked.
#[inline]
fn threat_slot(threats: Bitboard, m: Move) -> usize {
    2 * threats.has(m.from()) as usize + threats.has(m.to()) as usize
}

/// Slots of the pawn history (positions are told apart by their pawn keys modulo this).
const PAWN_SLOTS: usize = 512;

/// The pawn slot of "no structure": an all-zero table that is never written.
pub const NO_PAWNS: usize = PAWN_SLOTS;

/// The pawn-history slot of `pos`.
#[inline]
pub fn pawn_slot(pos: &Position) -> usize {
    pos.pawn_key() as usize % PAWN_SLOTS
}

/// The context of "no move".
pub const NO_CONTEXT: Context = 12 * 64;

/// The context a move of `piece` to `m.to()` creates.
#[inline]
pub fn context(piece: Piece, m: Move) -> Context {
    piece.index() * 64 + m.to().index()
}

/// The piece of a context made by [`context`] (`None` for `NO_CONTEXT`).
#[inline]
pub fn context_piece(c: Context) -> Option<Piece> {
    (c != NO_CONTEXT).then(|| Piece::ALL[c / 64])
}

/// One continuation table: `[piece][to]` of the reply.
type ContTable = [[i16; 64]; 12];

/// Slots of each correction table per side.
const CORRECTION_SLOTS: usize = 16_384;
/// Correction entries are kept in 1/`CORRECTION_GRAIN` centipawns.
const CORRECTION_GRAIN: i32 = 256;
/// The largest correction one table holds, in centipawns.
const CORRECTION_MAX: i32 = 64;

/// The keys a position's corrections are looked up by: its pawn structure (pawns and kings),
/// White's and Black's pieces other than pawns, its minor pieces (knights, bishops and kings of
/// both sides), the move that led to it, and that move paired with the moves two and four plies
/// before it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CorrectionKeys {
    pub pawns: u64,
    pub non_pawn: [u64; 2],
    pub minor: u64,
    /// The continuation context of the move before (`NO_CONTEXT` after a null move or at the
    /// root).
    pub last_move: Context,
    /// The contexts of the moves two and four plies before (`NO_CONTEXT` where there is none).
    pub earlier: [Context; 2],
}

impl CorrectionKeys {
    /// The keys of `pos`, reached by a move of context `last_move`, the moves two and four
    /// plies before it of contexts `earlier`.
    #[inline]
    pub fn of(pos: &Position, last_move: Context, earlier: [Context; 2]) -> CorrectionKeys {
        CorrectionKeys {
            pawns: pos.pawn_key(),
            non_pawn: [pos.non_pawn_key(Color::White), pos.non_pawn_key(Color::Black)],
            minor: pos.minor_key(),
            last_move,
            earlier,
        }
    }
}

/// Running averages by a pair of moves:
/// `[earlier move's context][last move's context]`, in grains, as `i16` (the most a table holds,
/// `CORRECTION_MAX x CORRECTION_GRAIN`, fits). The side to move is implied by the pieces.
struct PairTable(Vec<[i16; NO_CONTEXT + 1]>);

impl PairTable {
    fn new() -> PairTable {
        PairTable(vec![[0; NO_CONTEXT + 1]; NO_CONTEXT + 1])
    }

    #[inline]
    fn get(&self, earlier: Context, last: Context) -> i32 {
        i32::from(self.0[earlier][last])
    }

    fn update(&mut self, earlier: Context, last: Context, step: i32) {
        let entry = &mut self.0[earlier][last];
        let most = CORRECTION_MAX * CORRECTION_GRAIN;
        *entry = (i32::from(*entry) + step).clamp(-most, most) as i16;
    }
}

/// One table of running averages, `[side to move][slot]`.
struct CorrectionTable(Vec<[i32; CORRECTION_SLOTS]>);

impl CorrectionTable {
    fn new() -> CorrectionTable {
        CorrectionTable(vec![[0; CORRECTION_SLOTS]; 2])
    }

    #[inline]
    fn get(&self, side: Color, key: u64) -> i32 {
        self.0[side.index()][key as usize % CORRECTION_SLOTS]
    }

    /// Moves the entry by `step` (in grains), keeping it within `±CORRECTION_MAX`.
    fn update(&mut self, side: Color, key: u64, step: i32) {
        let entry = &mut self.0[side.index()][key as usize % CORRECTION_SLOTS];
        let most = CORRECTION_MAX * CORRECTION_GRAIN;
        *entry = (*entry + step).clamp(-most, most);
    }
}

/// Static-evaluation corrections by side to move: one table by pawn structure, one by each
/// side's other pieces, one by the minor pieces, one by the move before, and one by that move
/// paired with each of the moves two and four plies before it (the same table). The pawn table
/// counts fully, the others half each.
pub struct Correction {
    pawns: CorrectionTable,
    non_pawn: [CorrectionTable; 2],
    minor: CorrectionTable,
    last_move: CorrectionTable,
    pairs: PairTable,
}

impl Default for Correction {
    fn default() -> Correction {
        Correction {
            pawns: CorrectionTable::new(),
            non_pawn: [CorrectionTable::new(), CorrectionTable::new()],
            minor: CorrectionTable::new(),
            last_move: CorrectionTable::new(),
            pairs: PairTable::new(),
        }
    }
}

impl Correction {
    /// The correction, in centipawns, for `side` to move in a position of keys `keys`.
    #[inline]
    pub fn get(&self, side: Color, keys: &CorrectionKeys) -> i32 {
        let pawns = self.pawns.get(side, keys.pawns);
        let mut others = self.non_pawn[0].get(side, keys.non_pawn[0])
            + self.non_pawn[1].get(side, keys.non_pawn[1])
            + self.minor.get(side, keys.minor)
            + self.last_move.get(side, keys.last_move as u64);
        // After a null move the pair says nothing (its row would be shared by every null move).
        if keys.last_move != NO_CONTEXT {
            others += self.pairs.get(keys.earlier[0], keys.last_move) + self.pairs.get(keys.earlier[1], keys.last_move);
        }
        (2 * pawns + others) / (2 * CORRECTION_GRAIN)
    }

    /// Moves every entry of the position by a share of `residual` (search score minus the
    /// corrected static evaluation), the larger the deeper the search was.
    pub fn update(&mut self, side: Color, keys: &CorrectionKeys, depth: i32, residual: i32) {
        let weight = (depth + 1).min(16);
        let step = residual.clamp(-CORRECTION_MAX, CORRECTION_MAX) * CORRECTION_GRAIN * weight / 256;
        self.pawns.update(side, keys.pawns, step);
        for (table, &key) in self.non_pawn.iter_mut().zip(&keys.non_pawn) {
            table.update(side, key, step);
        }
        self.minor.update(side, keys.minor, step);
        self.last_move.update(side, keys.last_move as u64, step);
        if keys.last_move != NO_CONTEXT {
            for &earlier in &keys.earlier {
                self.pairs.update(earlier, keys.last_move, step);
            }
        }
    }
}

/// Killers and history of one thread.
pub struct History {
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    /// `[side][threat slot][from][to]`.
    butterfly: [[[[i16; 64]; 64]; 4]; 2],
    /// Indexed by `Context`, then by the reply; `NO_CONTEXT + 1` tables.
    continuation: Vec<ContTable>,
    /// `[piece][to][captured piece type]`; a promotion without capture counts as capturing a pawn.
    captures: [[[i16; 6]; 64]; 12],
    /// Quiet moves by pawn structure: `[pawn slot][piece][to]`; `NO_PAWNS + 1` tables.
    pawn: Vec<ContTable>,
}

impl Default for History {
    fn default() -> History {
        History {
            killers: [[None; 2]; MAX_PLY + 2],
            butterfly: [[[[0; 64]; 64]; 4]; 2],
            continuation: vec![[[0; 64]; 12]; NO_CONTEXT + 1],
            captures: [[[0; 6]; 64]; 12],
            pawn: vec![[[0; 64]; 12]; PAWN_SLOTS + 1],
        }
    }
}

impl History {
    /// The two killers of `ply`.
    #[inline]
    pub fn killers(&self, ply: usize) -> [Option<Move>; 2] {
        self.killers[ply.min(MAX_PLY + 1)]
    }

    /// Clears the killers of the ply below (each new node starts with fresh children).
    #[inline]
    pub fn clear_killers(&mut self, ply: usize) {
        if ply < MAX_PLY + 2 {
            self.killers[ply] = [None; 2];
        }
    }

    /// The butterfly history score of a quiet move of `side` where the opponent attacks
    /// `threats`.
    #[inline]
    pub fn quiet(&self, side: Color, threats: Bitboard, m: Move) -> i32 {
        self.butterfly[side.index()][threat_slot(threats, m)][m.from().index()][m.to().index()] as i32
    }

    /// The history score of a quiet move of `piece` in `conts`: butterfly, the three
    /// continuation entries (one, two and four plies back) and the pawn-history entry.
    #[inline]
    pub fn quiet_score(&self, side: Color, piece: Piece, m: Move, conts: Contexts) -> i32 {
        let (p, to) = (piece.index(), m.to().index());
        self.quiet(side, conts.threats, m)
            + conts.moves.iter().map(|&c| self.continuation[c][p][to] as i32).sum::<i32>()
            + self.pawn[conts.pawns][p][to] as i32
    }

    /// The capture-history score of a capture or promotion of `piece` taking `captured`.
    #[inline]
    pub fn capture(&self, piece: Piece, m: Move, captured: PieceType) -> i32 {
        self.captures[piece.index()][m.to().index()][captured.index()] as i32
    }

    /// Records a cut-off at `depth`: the noisy move `best` (if the cut-off move was noisy) is
    /// rewarded, the noisy `tried` before it are punished.
    pub fn update_captures(
        &mut self,
        depth: i32,
        best: Option<(Piece, Move, PieceType)>,
        tried: &[(Piece, Move, PieceType)],
    ) {
        let bonus = Self::bonus(depth);
        if let Some((p, m, c)) = best {
            Self::gravity(&mut self.captures[p.index()][m.to().index()][c.index()], bonus);
        }
        for &(p, m, c) in tried {
            Self::gravity(&mut self.captures[p.index()][m.to().index()][c.index()], -bonus);
        }
    }

    /// The bonus for a cut-off at `depth`.
    #[inline]
    pub fn bonus(depth: i32) -> i32 {
        (p!(HISTORY_BONUS_SCALE) * depth - p!(HISTORY_BONUS_OFFSET)).clamp(0, p!(HISTORY_BONUS_MAX))
    }

    fn gravity(entry: &mut i16, bonus: i32) {
        let h = *entry as i32;
        *entry = (h + bonus - h * bonus.abs() / MAX_HISTORY) as i16;
    }

    fn update_one(&mut self, side: Color, piece: Piece, m: Move, conts: Contexts, bonus: i32) {
        let slot = threat_slot(conts.threats, m);
        Self::gravity(&mut self.butterfly[side.index()][slot][m.from().index()][m.to().index()], bonus);
        self.reward_continuations(piece, m, conts, bonus);
        if conts.pawns != NO_PAWNS {
            Self::gravity(&mut self.pawn[conts.pawns][piece.index()][m.to().index()], bonus);
        }
    }

    /// Gives the quiet move `m` of `piece` the `bonus` (negative: a malus) in the continuation
    /// tables of `conts` alone.
    pub fn reward_continuations(&mut self, piece: Piece, m: Move, conts: Contexts, bonus: i32) {
        for c in conts.moves {
            if c != NO_CONTEXT {
                Self::gravity(&mut self.continuation[c][piece.index()][m.to().index()], bonus);
            }
        }
    }

    /// Gives the quiet move `m` of `piece` the `bonus` (negative: a malus) in the contexts
    /// `conts`, without touching the killers.
    pub fn reward_quiet(&mut self, side: Color, piece: Piece, m: Move, conts: Contexts, bonus: i32) {
        self.update_one(side, piece, m, conts, bonus);
    }

    /// Records a quiet cut-off: `best` is rewarded, the `tried` quiets before it are punished;
    /// each move comes with the piece that makes it.
    pub fn update_quiets(
        &mut self,
        side: Color,
        ply: usize,
        depth: i32,
        conts: Contexts,
        best: (Piece, Move),
        tried: &[(Piece, Move)],
    ) {
        let bonus = Self::bonus(depth);
        self.update_one(side, best.0, best.1, conts, bonus);
        for &(piece, m) in tried {
            self.update_one(side, piece, m, conts, -bonus);
        }
        let best = best.1;
        let k = &mut self.killers[ply.min(MAX_PLY + 1)];
        if k[0] != Some(best) {
            k[1] = k[0];
            k[0] = Some(best);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{MoveKind, Square};

    #[test]
    fn corrections_converge_and_stay_bounded() {
        let mut c = Correction::default();
        let keys = CorrectionKeys { pawns: 77, non_pawn: [3, 4], minor: 5, last_move: 9, earlier: [11, 12] };
        // A position whose evaluation is 30 too low, searched again and again: each search
        // teaches the residual left after the correction.
        for _ in 0..500 {
            let residual = 30 - c.get(Color::White, &keys);
            c.update(Color::White, &keys, 10, residual);
        }
        // Together the tables correct the 30, not several times it: the pawn table counts once,
        // the six others (each side's pieces, the minor pieces, the last move, the two pairs)
        // half each, and all moved alike, so each holds a quarter of it.
        let full = c.get(Color::White, &keys);
        assert!((28..=31).contains(&full), "{full}");
        let near = |got: i32, eighths: i32| (got - full * eighths / 8).abs() <= 2;
        // The other side to move shares only the pairs (kept by moves alone: the pieces that
        // moved say whose they were).
        assert!(near(c.get(Color::Black, &keys), 2), "{}", c.get(Color::Black, &keys));
        let other_pawns = CorrectionKeys { pawns: 78, ..keys };
        assert!(near(c.get(Color::White, &other_pawns), 6), "the other tables still apply");
        // Another last move: its own table and both pairs (keyed by it) say nothing.
        let other_move = CorrectionKeys { last_move: 10, ..keys };
        assert!(near(c.get(Color::White, &other_move), 5), "pawns, pieces and minors still apply");
        let other_pieces = CorrectionKeys { non_pawn: [5, 6], minor: 6, last_move: 10, ..keys };
        assert!(near(c.get(Color::White, &other_pieces), 2), "the pawn table still applies");
        let other_earlier = CorrectionKeys { earlier: [13, 14], ..keys };
        assert!(near(c.get(Color::White, &other_earlier), 6), "only the pairs changed");
        let none = CorrectionKeys { pawns: 78, non_pawn: [5, 6], minor: 6, last_move: 10, earlier: [13, 14] };
        assert_eq!(c.get(Color::White, &none), 0);
        // After a null move (no last move) the pairs say nothing.
        let null = CorrectionKeys { last_move: NO_CONTEXT, ..keys };
        assert!(c.get(Color::White, &null) < full);
        // An error no correction can reach: each table stops at its bound.
        let mut c = Correction::default();
        for _ in 0..500 {
            let residual = -10_000 - c.get(Color::Black, &keys);
            c.update(Color::Black, &keys, 20, residual);
        }
        let most = -4 * CORRECTION_MAX;
        assert!((most..=most + 8).contains(&c.get(Color::Black, &keys)), "{}", c.get(Color::Black, &keys));
    }

    #[test]
    fn correction_keys_follow_each_sides_pieces() {
        let pos = Position::from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4").unwrap();
        let keys = CorrectionKeys::of(&pos, NO_CONTEXT, [NO_CONTEXT; 2]);
        // A white knight moves: White's piece key and the minor-piece key change, nothing else.
        let m = pos.parse_uci_move("f3g5").unwrap();
        let after = CorrectionKeys::of(&pos.make_move(m), NO_CONTEXT, [NO_CONTEXT; 2]);
        assert_ne!(after.non_pawn[0], keys.non_pawn[0]);
        assert_ne!(after.minor, keys.minor);
        assert_eq!((after.pawns, after.non_pawn[1]), (keys.pawns, keys.non_pawn[1]));
        // A rook or queen move leaves the minor key alone.
        let q = Position::from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPPQPPP/R1B1KB1R w KQkq - 4 4").unwrap();
        let qkeys = CorrectionKeys::of(&q, NO_CONTEXT, [NO_CONTEXT; 2]);
        let qm = q.parse_uci_move("e2d3").unwrap();
        let qafter = CorrectionKeys::of(&q.make_move(qm), NO_CONTEXT, [NO_CONTEXT; 2]);
        assert_eq!(qafter.minor, qkeys.minor);
        assert_ne!(qafter.non_pawn[0], qkeys.non_pawn[0]);
        // A pawn move changes the pawn key only.
        let m = pos.parse_uci_move("d2d3").unwrap();
        let after = CorrectionKeys::of(&pos.make_move(m), NO_CONTEXT, [NO_CONTEXT; 2]);
        assert_ne!(after.pawns, keys.pawns);
        assert_eq!((after.non_pawn, after.minor), (keys.non_pawn, keys.minor));
        // The same pieces of the other colour on the mirrored squares key differently.
        assert_ne!(keys.non_pawn[0], keys.non_pawn[1]);
    }

    #[test]
    fn every_context_slot_is_learned_and_scored() {
        let knight = Piece::WhiteKnight;
        let reply = Move::new(Square::G1, Square::F3, MoveKind::Quiet);
        let earlier = context(Piece::BlackPawn, Move::new(Square::E7, Square::E5, MoveKind::Quiet));
        assert_eq!(context_piece(earlier), Some(Piece::BlackPawn));
        assert_eq!(context_piece(context(knight, reply)), Some(knight));
        assert_eq!(context_piece(NO_CONTEXT), None);
        for slot in 0..3 {
            let mut h = Box::<History>::default();
            let mut conts = Contexts { pawns: 5, ..Contexts::NONE };
            conts.moves[slot] = earlier;
            h.update_quiets(Color::White, 0, 10, conts, (knight, reply), &[]);
            let butterfly = h.quiet(Color::White, Bitboard::EMPTY, reply);
            assert!(butterfly > 0);
            // Butterfly, the one context and the pawn slot learned the same bonus.
            assert_eq!(h.quiet_score(Color::White, knight, reply, conts), 3 * butterfly, "slot {slot}");
            let other_pawns = Contexts { pawns: 1, ..Contexts::NONE };
            assert_eq!(h.quiet_score(Color::White, knight, reply, other_pawns), butterfly);
        }
    }

    #[test]
    fn a_move_out_of_or_into_attack_learns_apart() {
        // The same knight move with its from-square attacked, its to-square, both or neither:
        // four butterfly entries, and a cut-off teaches only the one it happened in.
        let mut h = Box::<History>::default();
        let (knight, m) = (Piece::WhiteKnight, Move::new(Square::G1, Square::F3, MoveKind::Quiet));
        let slots = [
            Bitboard::EMPTY,
            Bitboard::from_square(Square::F3),
            Bitboard::from_square(Square::G1),
            Bitboard::from_square(Square::G1) | Square::F3,
        ];
        for (i, &threats) in slots.iter().enumerate() {
            let conts = Contexts { threats, ..Contexts::NONE };
            h.update_quiets(Color::White, 0, 10, conts, (knight, m), &[]);
            for (j, &other) in slots.iter().enumerate() {
                let score = h.quiet(Color::White, other, m);
                assert_eq!(score > 0, j <= i, "taught slots 0..={i}, read slot {j}: {score}");
            }
            // Squares the move does not touch do not change its slot.
            assert_eq!(h.quiet(Color::White, threats | Square::E4, m), h.quiet(Color::White, threats, m));
        }
    }

    #[test]
    fn bounded_updates_and_killers() {
        let mut h = Box::<History>::default();
        let good = Move::new(Square::G1, Square::F3, MoveKind::Quiet);
        let bad = Move::new(Square::B1, Square::A3, MoveKind::Quiet);
        let knight = Piece::WhiteKnight;
        let prev = Move::new(Square::E7, Square::E5, MoveKind::Quiet);
        let conts = Contexts {
            moves: [context(Piece::BlackPawn, prev), NO_CONTEXT, NO_CONTEXT],
            pawns: 7,
            threats: Bitboard::EMPTY,
        };
        for _ in 0..1000 {
            h.update_quiets(Color::White, 3, 20, conts, (knight, good), &[(knight, bad)]);
        }
        assert!(
            h.quiet(Color::White, Bitboard::EMPTY, good) > 0
                && h.quiet(Color::White, Bitboard::EMPTY, good) <= MAX_HISTORY
        );
        assert!(
            h.quiet(Color::White, Bitboard::EMPTY, bad) < 0
                && h.quiet(Color::White, Bitboard::EMPTY, bad) >= -MAX_HISTORY
        );
        assert_eq!(h.quiet(Color::Black, Bitboard::EMPTY, good), 0);
        // The reply to ...e5 scores its butterfly, continuation and pawn entries; with no context
        // and another pawn structure only the butterfly entry counts, and the "no move" table
        // stays empty.
        let with = h.quiet_score(Color::White, knight, good, conts);
        let without = h.quiet_score(Color::White, knight, good, Contexts::NONE);
        assert_eq!(without, h.quiet(Color::White, Bitboard::EMPTY, good));
        assert!(with > without && with <= 3 * MAX_HISTORY);
        assert!(h.quiet_score(Color::White, knight, bad, conts) < h.quiet(Color::White, Bitboard::EMPTY, bad));
        assert!(h.continuation[NO_CONTEXT].iter().flatten().all(|&v| v == 0));
        h.update_quiets(Color::White, 3, 20, Contexts::NONE, (knight, good), &[]);
        assert!(h.pawn[NO_PAWNS].iter().flatten().all(|&v| v == 0), "the no-structure table stays empty");
        assert_eq!(h.killers(3), [Some(good), None]);
        h.update_quiets(Color::White, 3, 2, conts, (knight, bad), &[]);
        assert_eq!(h.killers(3), [Some(bad), Some(good)]);

        let takes = Move::new(Square::F3, Square::E5, MoveKind::Capture);
        let other = Move::new(Square::F3, Square::D4, MoveKind::Capture);
        for _ in 0..1000 {
            h.update_captures(20, Some((knight, takes, PieceType::Pawn)), &[(knight, other, PieceType::Pawn)]);
        }
        let (good, bad) = (h.capture(knight, takes, PieceType::Pawn), h.capture(knight, other, PieceType::Pawn));
        assert!((1..=MAX_HISTORY).contains(&good) && (-MAX_HISTORY..0).contains(&bad));
        assert_eq!(h.capture(knight, takes, PieceType::Rook), 0);
    }
}
