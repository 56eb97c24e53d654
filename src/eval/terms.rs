//! The evaluation terms beyond the pawn table: material and piece-square values, mobility, piece
//! bonuses, king safety, threats, tempo, then the game phase and the endgame scale factor.
//!
//! Every weight is read as `W[index]` through [`apply`], which also reports the index to the
//! tracer; the engine's `NoTrace` makes that free. Each side's terms are summed from its own
//! point of view and the result is White's minus Black's.

use super::pawns::{self, PawnEntry, PawnTable};
use super::tracer::Tracer;
use crate::position::Position;
use crate::tables::{bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks};
use crate::types::{Bitboard, Color, PieceType, Rank, Square};
use crate::weights::layout::{self as idx, KING_ATTACK_LEN, W};
use crate::weights::Score;

/// The unscaled result: packed score (White's view, tempo included), phase and endgame scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub score: Score,
    /// 0 (bare kings and pawns) to [`MAX_PHASE`] (all pieces).
    pub phase: i32,
    /// Endgame scale out of [`SCALE_NORMAL`].
    pub scale: i32,
}

/// The phase of the full set of pieces: knight and bishop 1, rook 2, queen 4.
pub const MAX_PHASE: i32 = 24;
/// The endgame scale factor of a normal position.
pub const SCALE_NORMAL: i32 = 128;

const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Attack units that a piece attacking the enemy king zone contributes (pawn and king unused).
const KING_ATTACKER_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// Material in centipawns for the scaling rules (fixed, not tuned).
const SCALE_VALUE: [i32; 6] = [100, 320, 330, 500, 900, 0];

/// Light squares (b1, d1, ..., a2, ...).
const LIGHT_SQUARES: Bitboard = Bitboard(0x55AA_55AA_55AA_55AA);

/// d4, e4, d5, e5.
const CENTRE: Bitboard = Bitboard(0x0000_0018_1800_0000);

/// Applies weight `index` `n` times for `color`.
#[inline(always)]
fn apply<T: Tracer>(t: &mut T, index: usize, color: Color, n: i32) -> Score {
    t.add(index, color, n);
    W[index] * n
}

/// What the piece loop learns about one side's attacks.
#[derive(Clone, Copy, Default)]
struct Attacks {
    by_type: [Bitboard; 6],
    all: Bitboard,
    /// Pieces attacking the enemy king zone, and their summed weights.
    king_attackers: i32,
    king_units: i32,
}

/// Every term except the final tapering; `pawns` is the pawn table to use (`None` computes the
/// pawn terms afresh, which a recording tracer needs).
pub fn evaluate_terms<T: Tracer>(pos: &Position, pawns: Option<&mut PawnTable>, t: &mut T) -> Outcome {
    let mut side = [Score::ZERO; 2];

    // Material and piece-square values.
    let psq = pos.psq();
    if T::ACTIVE {
        for color in Color::ALL {
            for pt in PieceType::ALL {
                for sq in pos.colored_pieces(color, pt) {
                    t.add(idx::MATERIAL + pt.index(), color, 1);
                    t.add(idx::PSQT_OF[pt.index()] + sq.relative_to(color).index(), color, 1);
                }
            }
        }
    }

    let pawn_entry: PawnEntry = match pawns {
        Some(table) if !T::ACTIVE => table.probe(pos),
        _ => pawns::evaluate_pawns(pos, t),
    };

    let mut attacks = [Attacks::default(); 2];
    for us in Color::ALL {
        pieces(pos, us, &mut side[us.index()], &mut attacks[us.index()], t);
    }
    for us in Color::ALL {
        let them = !us;
        let (ours, theirs) = (&attacks[us.index()], &attacks[them.index()]);
        side[us.index()] += king_attack(pos, us, ours, theirs, t);
        side[us.index()] += threats(pos, us, ours, theirs, t);
        side[us.index()] += free_passers(pos, us, pawn_entry.passed[us.index()], theirs, t);
    }
    let stm = pos.side_to_move();
    side[stm.index()] += apply(t, idx::TEMPO, stm, 1);

    let score = psq + pawn_entry.score + side[0] - side[1];
    Outcome { score, phase: phase(pos), scale: scale_factor(pos, score.eg()) }
}

/// The game phase: [`MAX_PHASE`] with all pieces on the board, 0 with pawns and kings only.
#[inline]
pub fn phase(pos: &Position) -> i32 {
    let phase = PieceType::ALL.iter().map(|&pt| PHASE_WEIGHT[pt.index()] * pos.pieces(pt).count() as i32).sum::<i32>();
    phase.min(MAX_PHASE)
}

/// Mobility, bishop pair and rook files for `us`; fills in the attack maps, `out`.
///
/// `out` is written in place, not returned: WebAssembly's compiler stored a returned `Attacks`
/// word by word into a temporary and then copied it in 16-byte loads, which wait on those
/// stores (store forwarding fails): 18% of the hand-crafted evaluation's time in Chromium.
fn pieces<T: Tracer>(pos: &Position, us: Color, score: &mut Score, out: &mut Attacks, t: &mut T) {
    let them = !us;
    let occupied = pos.occupied();
    let own = pos.colored(us);
    let our_pawns = pos.colored_pieces(us, PieceType::Pawn);
    let their_pawns = pos.colored_pieces(them, PieceType::Pawn);
    let pawn_attacks = pawns::pawn_attack_set(us, our_pawns);
    let area = !own & !pawns::pawn_attack_set(them, their_pawns);
    let their_king = pos.king(them);
    let zone = king_attacks(their_king) | their_king;
    let outposts = outpost_squares(us, our_pawns, their_pawns);

    let mut att = Attacks::default();
    att.by_type[PieceType::Pawn.index()] = pawn_attacks;
    att.by_type[PieceType::King.index()] = king_attacks(pos.king(us));

    for pt in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen] {
        for sq in pos.colored_pieces(us, pt) {
            let a = match pt {
                PieceType::Knight => knight_attacks(sq),
                PieceType::Bishop => bishop_attacks(sq, occupied),
                PieceType::Rook => rook_attacks(sq, occupied),
                _ => queen_attacks(sq, occupied),
            };
            att.by_type[pt.index()] |= a;
            let mobility = (a & area).count() as usize;
            let table = match pt {
                PieceType::Knight => idx::KNIGHT_MOBILITY,
                PieceType::Bishop => idx::BISHOP_MOBILITY,
                PieceType::Rook => idx::ROOK_MOBILITY,
                _ => idx::QUEEN_MOBILITY,
            };
            *score += apply(t, table + mobility, us, 1);
            if (a & zone).is_nonempty() {
                att.king_attackers += 1;
                att.king_units += KING_ATTACKER_WEIGHT[pt.index()];
            }
            match pt {
                PieceType::Rook => *score += rook_bonuses(pos, us, sq, t),
                PieceType::Knight | PieceType::Bishop => *score += minor_bonuses(pos, us, pt, sq, outposts, t),
                _ => {}
            }
        }
    }
    if pos.colored_pieces(us, PieceType::Bishop).more_than_one() {
        *score += apply(t, idx::BISHOP_PAIR, us, 1);
    }
    att.all = att.by_type.iter().fold(Bitboard::EMPTY, |all, &bb| all | bb);
    *out = att;
}

/// Squares on our ranks 4 to 6 guarded by a pawn of ours that no enemy pawn can ever attack
/// (none on an adjacent file further up the board).
#[inline]
fn outpost_squares(us: Color, our_pawns: Bitboard, their_pawns: Bitboard) -> Bitboard {
    let ranks = match us {
        Color::White => Bitboard(0x0000_FFFF_FF00_0000),
        Color::Black => Bitboard(0x0000_00FF_FFFF_0000),
    };
    // Every square some enemy pawn attacks now or after advancing.
    let mut span = pawns::pawn_attack_set(!us, their_pawns);
    for _ in 0..5 {
        span = span | span.forward(!us);
    }
    ranks & pawns::pawn_attack_set(us, our_pawns) & !span
}

/// A knight or bishop of `us` on `sq`: on one of our `outposts`, with a pawn right in front of
/// it, its distance to our king; for a bishop also a long diagonal and the pawns of ours on its
/// square colour.
#[inline]
fn minor_bonuses<T: Tracer>(
    pos: &Position,
    us: Color,
    pt: PieceType,
    sq: Square,
    outposts: Bitboard,
    t: &mut T,
) -> Score {
    let mut score = Score::ZERO;
    let minor = usize::from(pt == PieceType::Bishop);
    if outposts.has(sq) {
        score += apply(t, idx::OUTPOST + minor, us, 1);
    }
    if (Bitboard::from_square(sq).forward(us) & pos.pieces(PieceType::Pawn)).is_nonempty() {
        score += apply(t, idx::MINOR_BEHIND_PAWN, us, 1);
    }
    score += apply(t, idx::KING_PROTECTOR + minor, us, pawns::distance(sq, pos.king(us)));
    if pt == PieceType::Bishop {
        // Sweeping both central squares of a long diagonal through the pawns.
        if (bishop_attacks(sq, pos.pieces(PieceType::Pawn)) & CENTRE).more_than_one() {
            score += apply(t, idx::LONG_DIAGONAL, us, 1);
        }
        let colour = if LIGHT_SQUARES.has(sq) { LIGHT_SQUARES } else { !LIGHT_SQUARES };
        let n = (pos.colored_pieces(us, PieceType::Pawn) & colour).count() as i32;
        if n != 0 {
            score += apply(t, idx::BISHOP_PAWNS, us, n);
        }
    }
    score
}

/// Open and half-open files, and the seventh rank, for a rook of `us` on `sq`.
#[inline]
fn rook_bonuses<T: Tracer>(pos: &Position, us: Color, sq: Square, t: &mut T) -> Score {
    let mut score = Score::ZERO;
    let file = Bitboard::file(sq.file());
    if (pos.colored_pieces(us, PieceType::Pawn) & file).is_empty() {
        if (pos.pieces(PieceType::Pawn) & file).is_empty() {
            score += apply(t, idx::ROOK_OPEN_FILE, us, 1);
        } else {
            score += apply(t, idx::ROOK_SEMI_OPEN_FILE, us, 1);
        }
    }
    if sq.rank().relative_to(us) == Rank::Seventh {
        let them = !us;
        let their_seventh = Bitboard::rank(Rank::Seventh.relative_to(us));
        let their_eighth = Bitboard::rank(Rank::Eighth.relative_to(us));
        if (pos.colored_pieces(them, PieceType::Pawn) & their_seventh).is_nonempty() || their_eighth.has(pos.king(them))
        {
            score += apply(t, idx::ROOK_ON_SEVENTH, us, 1);
        }
    }
    score
}

/// The attack on the enemy king by `us`: a table over attack units (attacker weights plus the
/// attacked squares of the king zone), applied once at least two pieces take part.
///
/// Apart from the table: each safe check (a square from which a piece of ours could check, that
/// it attacks, and that no enemy piece guards), and each square of the king zone that we attack
/// and that only the king or queen defends.
fn king_attack<T: Tracer>(pos: &Position, us: Color, ours: &Attacks, theirs: &Attacks, t: &mut T) -> Score {
    let them = !us;
    let their_king = pos.king(them);
    let occupied = pos.occupied();
    let mut score = Score::ZERO;

    let safe = !pos.colored(us) & !theirs.all;
    let diagonal = bishop_attacks(their_king, occupied);
    let straight = rook_attacks(their_king, occupied);
    for (pt, from) in [
        (PieceType::Knight, knight_attacks(their_king)),
        (PieceType::Bishop, diagonal),
        (PieceType::Rook, straight),
        (PieceType::Queen, diagonal | straight),
    ] {
        let n = (ours.by_type[pt.index()] & from & safe).count() as i32;
        if n != 0 {
            score += apply(t, idx::SAFE_CHECK + pt.index(), us, n);
        }
    }

    let zone = king_attacks(their_king);
    let defenders = theirs.by_type[PieceType::Pawn.index()]
        | theirs.by_type[PieceType::Knight.index()]
        | theirs.by_type[PieceType::Bishop.index()]
        | theirs.by_type[PieceType::Rook.index()];
    let weak = (ours.all & zone & !defenders).count() as i32;
    if weak != 0 {
        score += apply(t, idx::KING_ZONE_WEAK, us, weak);
    }

    if ours.king_attackers < 2 {
        return score;
    }
    let zone = zone | their_king;
    let units = ours.king_units + (ours.all & zone).count() as i32;
    let index = (units as usize).min(KING_ATTACK_LEN - 1);
    score + apply(t, idx::KING_ATTACK + index, us, 1)
}

/// Enemy pieces that `us` attacks with a pawn, a minor or a rook, and enemy pieces that `us`
/// attacks while nothing defends them (the king never counts as a victim).
fn threats<T: Tracer>(pos: &Position, us: Color, ours: &Attacks, theirs: &Attacks, t: &mut T) -> Score {
    let them = !us;
    let victims = pos.colored(them) & !pos.pieces(PieceType::King);
    let by_pawn = ours.by_type[PieceType::Pawn.index()] & victims & !pos.pieces(PieceType::Pawn);
    let by_minor = (ours.by_type[PieceType::Knight.index()] | ours.by_type[PieceType::Bishop.index()]) & victims;
    let by_rook = ours.by_type[PieceType::Rook.index()] & victims;
    let hanging = ours.all & victims & !theirs.all;
    let mut score = Score::ZERO;

    // Pawn pushes (one square, or two from the start) to squares no enemy pawn attacks and that
    // are guarded by us or not attacked by them, which would then attack an enemy piece.
    let empty = !pos.occupied();
    let our_pawns = pos.colored_pieces(us, PieceType::Pawn);
    let single = our_pawns.forward(us) & empty;
    let double = (single & Bitboard::rank(Rank::Third.relative_to(us))).forward(us) & empty;
    let pushes = (single | double) & !theirs.by_type[PieceType::Pawn.index()] & (ours.all | !theirs.all);
    let push_threats = (pawns::pawn_attack_set(us, pushes) & victims & !pos.pieces(PieceType::Pawn)).count() as i32;
    if push_threats != 0 {
        score += apply(t, idx::THREAT_PAWN_PUSH, us, push_threats);
    }
    for pt in [PieceType::Pawn, PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen] {
        let of_type = pos.pieces(pt);
        for (set, table) in [
            (by_pawn, idx::THREAT_BY_PAWN),
            (by_minor, idx::THREAT_BY_MINOR),
            (by_rook, idx::THREAT_BY_ROOK),
            (hanging, idx::HANGING),
        ] {
            let n = (set & of_type).count() as i32;
            if n != 0 {
                score += apply(t, table + pt.index(), us, n);
            }
        }
    }
    score
}

/// Passed pawns of `us` whose way to the promotion square is empty, and those whose next square
/// is empty and not attacked by the enemy.
fn free_passers<T: Tracer>(pos: &Position, us: Color, passed: Bitboard, theirs: &Attacks, t: &mut T) -> Score {
    let mut score = Score::ZERO;
    let occupied = pos.occupied();
    for sq in passed {
        let rr = sq.rank().relative_to(us).index();
        let path = pawns::ranks_ahead(us, sq) & Bitboard::file(sq.file());
        if (path & occupied).is_empty() {
            score += apply(t, idx::PASSED_FREE + rr, us, 1);
        }
        let stop = Bitboard::from_square(sq).forward(us);
        if (stop & (occupied | theirs.all)).is_empty() {
            score += apply(t, idx::PASSED_SAFE_STOP + rr, us, 1);
        }
    }
    score
}

/// Non-pawn material of `color` in centipawns (fixed values).
fn non_pawn_material(pos: &Position, color: Color) -> i32 {
    [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen]
        .iter()
        .map(|&pt| SCALE_VALUE[pt.index()] * pos.colored_pieces(color, pt).count() as i32)
        .sum()
}

/// How much of the endgame score to keep, out of [`SCALE_NORMAL`], in drawish endings: the
/// stronger side (by the endgame score `eg`) without pawns and at most a minor piece ahead, or
/// with only two knights against a bare king; and opposite-coloured bishops.
pub fn scale_factor(pos: &Position, eg: i32) -> i32 {
    let strong = if eg >= 0 { Color::White } else { Color::Black };
    let weak = !strong;
    let strong_npm = non_pawn_material(pos, strong);
    let weak_npm = non_pawn_material(pos, weak);
    if pos.colored_pieces(strong, PieceType::Pawn).is_empty() {
        if strong_npm - weak_npm < SCALE_VALUE[PieceType::Rook.index()] - 100 {
            return if strong_npm <= SCALE_VALUE[PieceType::Bishop.index()] { 0 } else { 16 };
        }
        let knights_only = pos.colored_pieces(strong, PieceType::Knight).count() == 2
            && strong_npm == 2 * SCALE_VALUE[PieceType::Knight.index()];
        if knights_only && weak_npm == 0 && pos.colored_pieces(weak, PieceType::Pawn).is_empty() {
            return 0;
        }
    }
    let white_bishops = pos.colored_pieces(Color::White, PieceType::Bishop);
    let black_bishops = pos.colored_pieces(Color::Black, PieceType::Bishop);
    if white_bishops.count() == 1
        && black_bishops.count() == 1
        && (white_bishops & LIGHT_SQUARES).is_empty() != (black_bishops & LIGHT_SQUARES).is_empty()
    {
        let bishops_only =
            strong_npm == SCALE_VALUE[PieceType::Bishop.index()] && weak_npm == SCALE_VALUE[PieceType::Bishop.index()];
        return if bishops_only { 64 } else { 96 };
    }
    SCALE_NORMAL
}

/// Whether neither side can possibly mate: bare kings, or a single minor piece and no pawns.
pub fn insufficient_material(pos: &Position) -> bool {
    let heavy = pos.pieces(PieceType::Pawn) | pos.pieces(PieceType::Rook) | pos.pieces(PieceType::Queen);
    let minors = pos.pieces(PieceType::Knight) | pos.pieces(PieceType::Bishop);
    heavy.is_empty() && !minors.more_than_one()
}
