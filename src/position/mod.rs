//! The board: a `Copy` position with copy-make.
//!
//! Invariants (checked by [`Position::validate`] in debug builds after every make):
//! * `by_type` and `by_color` agree (every piece has one type and one colour); there is no
//!   mailbox: copying it and reading it back right after byte-sized writes stalled copy-make
//!   (store forwarding), and a branchless bitboard lookup is as fast;
//! * `key` and `pawn_key` equal the keys computed from scratch;
//! * `checkers` are the enemy pieces giving check to the side to move, and `pin_diag` /
//!   `pin_orth` are the rays (king excluded, pinner included) along which the side to move has an
//!   absolutely pinned piece;
//! * `ep` is set only when an en-passant capture is legal, so transpositions hash equal;
//! * the material is one a game could reach (see `movelist` for why that bounds the move count).
//!
//! Bits and keys change only in [`Position::add_piece`], [`Position::remove_piece`] and
//! [`Position::move_piece`], so they cannot drift apart.

mod chess960;
mod fen;
mod make;
mod movegen;
mod san;
mod see;

pub use fen::{placement_field, FenError};
pub use movegen::{AllMoves, Captures, GenMode, MoveParseError, Quiets};
pub use see::SEE_VALUES;

use std::fmt;

use crate::tables::{
    between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks, rook_attacks, rook_rays,
};
use crate::types::{Bitboard, CastleSide, Color, File, Move, Piece, PieceType, Rank, Square};
use crate::weights::{psqt, Score};
use crate::zobrist;

/// Castling rights: bit `color * 2 + side` (side 0 = king side, 1 = queen side).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CastlingRights(pub u8);

impl CastlingRights {
    #[inline(always)]
    pub const fn bit(color: Color, side: CastleSide) -> u8 {
        1 << (color as u8 * 2 + side as u8)
    }

    #[inline(always)]
    pub const fn has(self, color: Color, side: CastleSide) -> bool {
        self.0 & Self::bit(color, side) != 0
    }
}

/// A chess position (standard or Chess960), cheap to copy.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    by_type: [Bitboard; 6],
    by_color: [Bitboard; 2],
    key: u64,
    pawn_key: u64,
    /// Material plus piece-square values, White's view (the evaluation's incremental part).
    psq: Score,
    checkers: Bitboard,
    pin_diag: Bitboard,
    pin_orth: Bitboard,
    /// The castling rook of each right (`color * 2 + side`); meaningful while the right is held.
    castle_rooks: [Square; 4],
    /// The squares of the kings and rooks whose move or capture loses a held castling right.
    castle_watch: Bitboard,
    side: Color,
    ep: Option<Square>,
    castling: CastlingRights,
    halfmove: u16,
    fullmove: u16,
    chess960: bool,
}

static_assertions::const_assert!(std::mem::size_of::<Position>() <= 128);

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        Position::from_fen(Position::START_FEN).expect("the start position parses")
    }

    pub const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// A copy of the position, the copy of copy-make. On WebAssembly it is eight 16-byte loads
    /// and stores: the compiler makes a 128-byte copy a `memory.copy`, which V8 runs as a call
    /// (about 4 ns against 2 for the vectors in Chromium 156), twice a node.
    #[inline(always)]
    pub fn duplicate(&self) -> Position {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            use core::arch::wasm32::{v128, v128_load};
            static_assertions::const_assert_eq!(std::mem::size_of::<Position>(), 128);
            let from = self as *const Position as *const v128;
            // SAFETY: `self` is a valid 128-byte position, read as 8 unaligned vectors; it has
            // no padding (its fields' sizes add up to 128), so every byte read is initialised,
            // and the bytes put back together are those of a valid `Position`.
            unsafe {
                std::mem::transmute::<[v128; 8], Position>([
                    v128_load(from),
                    v128_load(from.add(1)),
                    v128_load(from.add(2)),
                    v128_load(from.add(3)),
                    v128_load(from.add(4)),
                    v128_load(from.add(5)),
                    v128_load(from.add(6)),
                    v128_load(from.add(7)),
                ])
            }
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        {
            *self
        }
    }

    /// An empty board with White to move (a building block for FEN parsing).
    fn empty() -> Position {
        Position {
            by_type: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            key: 0,
            pawn_key: 0,
            psq: Score::ZERO,
            checkers: Bitboard::EMPTY,
            pin_diag: Bitboard::EMPTY,
            pin_orth: Bitboard::EMPTY,
            castle_rooks: [Square::H1, Square::A1, Square::H8, Square::A8],
            castle_watch: Bitboard::EMPTY,
            side: Color::White,
            ep: None,
            castling: CastlingRights(0),
            halfmove: 0,
            fullmove: 1,
            chess960: false,
        }
    }

    // ---- the one mutation point for bits, keys and the material/PSQT sum ----

    #[inline(always)]
    fn toggle_keys(&mut self, piece: Piece, sq: Square) {
        let k = zobrist::piece(piece, sq);
        self.key ^= k;
        if matches!(piece.piece_type(), PieceType::Pawn | PieceType::King) {
            self.pawn_key ^= k;
        }
    }

    #[inline(always)]
    fn add_piece(&mut self, piece: Piece, sq: Square) {
        self.add_piece_bits::<true>(piece, sq);
    }

    /// [`Position::add_piece`]; without `KEYS`, the bitboards only (see `make_move_bits_into`).
    #[inline(always)]
    fn add_piece_bits<const KEYS: bool>(&mut self, piece: Piece, sq: Square) {
        self.by_type[piece.piece_type().index()] |= sq;
        self.by_color[piece.color().index()] |= sq;
        if KEYS {
            self.toggle_keys(piece, sq);
            self.psq += psqt(piece, sq);
        }
    }

    #[inline(always)]
    fn remove_piece_bits<const KEYS: bool>(&mut self, piece: Piece, sq: Square) {
        self.by_type[piece.piece_type().index()] ^= sq;
        self.by_color[piece.color().index()] ^= sq;
        if KEYS {
            self.toggle_keys(piece, sq);
            self.psq -= psqt(piece, sq);
        }
    }

    #[inline(always)]
    fn move_piece_bits<const KEYS: bool>(&mut self, piece: Piece, from: Square, to: Square) {
        let bb = Bitboard::from_square(from) | to;
        self.by_type[piece.piece_type().index()] ^= bb;
        self.by_color[piece.color().index()] ^= bb;
        if KEYS {
            self.toggle_keys(piece, from);
            self.toggle_keys(piece, to);
            self.psq += psqt(piece, to) - psqt(piece, from);
        }
    }

    // ---- accessors ----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        let color = if self.by_color[0].has(sq) {
            Color::White
        } else if self.by_color[1].has(sq) {
            Color::Black
        } else {
            return None;
        };
        Some(Piece::new(color, self.piece_type_on(sq)))
    }

    /// The piece that `m`, a move of the side to move, moves.
    #[inline(always)]
    pub fn moved_piece(&self, m: Move) -> Piece {
        Piece::new(self.side_to_move(), self.piece_type_on(m.from()))
    }

    /// The type of the piece on an occupied square, branch-free (a pawn for an empty square).
    #[inline(always)]
    pub fn piece_type_on(&self, sq: Square) -> PieceType {
        let bit = |pt: PieceType| (self.by_type[pt.index()].0 >> sq as u32) as u8 & 1;
        let index = bit(PieceType::Knight)
            | (bit(PieceType::Bishop) * 2)
            | (bit(PieceType::Rook) * 3)
            | (bit(PieceType::Queen) * 4)
            | (bit(PieceType::King) * 5);
        PieceType::from_index_wrapping(index)
    }

    #[inline(always)]
    pub fn pieces(&self, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()]
    }

    #[inline(always)]
    pub fn colored(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn colored_pieces(&self, color: Color, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()] & self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The king square of `color` (every accepted position has exactly one king a side).
    #[inline(always)]
    pub fn king(&self, color: Color) -> Square {
        self.colored_pieces(color, PieceType::King).lsb()
    }

    /// The full Zobrist key.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[doc(hidden)]
    /// The Zobrist key of pawns and kings.
    #[inline(always)]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }

    #[doc(hidden)]
    /// A hash of the pieces of `color` other than pawns (kings included), for the search's
    /// correction history: computed on demand from the bitboards, not kept incrementally.
    #[inline]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        let own = self.by_color[color.index()];
        let mut h = color as u64 + 1;
        for pt in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen, PieceType::King] {
            h = (h ^ (self.by_type[pt.index()] & own).0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            h ^= h >> 29;
        }
        h
    }

    #[doc(hidden)]
    /// A hash of the minor pieces and kings of both sides, for the search's correction history:
    /// computed on demand from the bitboards, as [`Position::non_pawn_key`].
    #[inline]
    pub fn minor_key(&self) -> u64 {
        let mut h = 0x2545_F491_4F6C_DD1D_u64;
        for pt in [PieceType::Knight, PieceType::Bishop, PieceType::King] {
            for color in [Color::White, Color::Black] {
                h = (h ^ (self.by_type[pt.index()] & self.by_color[color.index()]).0)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15);
                h ^= h >> 29;
            }
        }
        h
    }

    #[doc(hidden)]
    /// Material plus piece-square values of every piece, White's view, kept incrementally.
    #[inline(always)]
    pub fn psq(&self) -> Score {
        self.psq
    }

    /// Enemy pieces giving check.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.is_nonempty()
    }

    /// The side to move's absolutely pinned pieces.
    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        (self.pin_diag | self.pin_orth) & self.colored(self.side)
    }

    /// The en-passant target square, present only when an en-passant capture is legal.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    #[inline(always)]
    pub fn castling(&self) -> CastlingRights {
        self.castling
    }

    /// The rook that castles for `color` on `side`, if that right is still held.
    pub fn castle_rook(&self, color: Color, side: CastleSide) -> Option<Square> {
        self.castling.has(color, side).then(|| self.castle_rooks[color as usize * 2 + side as usize])
    }

    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// Whether moves are written in Chess960 form (castling as king takes rook) and FENs with
    /// file letters where `KQkq` would be ambiguous.
    #[inline(always)]
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    pub fn set_chess960(&mut self, chess960: bool) {
        self.chess960 = chess960;
    }

    // ---- attacks ----

    /// Every piece of either colour that attacks `sq`, with the given occupancy.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let diag = self.pieces(PieceType::Bishop) | self.pieces(PieceType::Queen);
        let orth = self.pieces(PieceType::Rook) | self.pieces(PieceType::Queen);
        (pawn_attacks(Color::White, sq) & self.colored_pieces(Color::Black, PieceType::Pawn))
            | (pawn_attacks(Color::Black, sq) & self.colored_pieces(Color::White, PieceType::Pawn))
            | (knight_attacks(sq) & self.pieces(PieceType::Knight))
            | (king_attacks(sq) & self.pieces(PieceType::King))
            | (bishop_attacks(sq, occupied) & diag)
            | (rook_attacks(sq, occupied) & orth)
    }

    /// Every square a piece of `by` attacks (or defends) on this board.
    pub fn attacks_by(&self, by: Color) -> Bitboard {
        self.attack_map(by, self.occupied())
    }

    #[doc(hidden)]
    /// The squares `by` attacks, by rising class of attacker: `[0]` by its pawns, `[1]` by its
    /// pawns and minor pieces, `[2]` by those and its rooks, `[3]` by every piece, king and queens
    /// included. A piece standing on `[0]`, `[1]` or `[2]` (a minor, a rook, a queen) is attacked
    /// by something worth less.
    pub fn attack_levels(&self, by: Color) -> [Bitboard; 4] {
        let occupied = self.occupied();
        let pawns = self.colored_pieces(by, PieceType::Pawn).forward(by);
        let by_pawns = pawns.west() | pawns.east();
        let mut minors = by_pawns;
        for sq in self.colored_pieces(by, PieceType::Knight) {
            minors |= knight_attacks(sq);
        }
        for sq in self.colored_pieces(by, PieceType::Bishop) {
            minors |= bishop_attacks(sq, occupied);
        }
        let mut rooks = minors;
        for sq in self.colored_pieces(by, PieceType::Rook) {
            rooks |= rook_attacks(sq, occupied);
        }
        let mut all = rooks | king_attacks(self.king(by));
        for sq in self.colored_pieces(by, PieceType::Queen) {
            all |= bishop_attacks(sq, occupied) | rook_attacks(sq, occupied);
        }
        [by_pawns, minors, rooks, all]
    }

    /// Whether `by` attacks `sq` with the given occupancy. Branch-free: all five lookups are
    /// made and combined, which beats early exits whose branches the CPU cannot predict.
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let them = self.colored(by);
        let queens = self.pieces(PieceType::Queen);
        let diag = (self.pieces(PieceType::Bishop) | queens) & them;
        let orth = (self.pieces(PieceType::Rook) | queens) & them;
        let leapers = (pawn_attacks(!by, sq) & self.pieces(PieceType::Pawn))
            | (knight_attacks(sq) & self.pieces(PieceType::Knight))
            | (king_attacks(sq) & self.pieces(PieceType::King));
        // A slider lookup (a load from a large table) only for sliders on an empty board's ray.
        (leapers & them).is_nonempty()
            || ((bishop_rays(sq) & diag).is_nonempty() && (bishop_attacks(sq, occupied) & diag).is_nonempty())
            || ((rook_rays(sq) & orth).is_nonempty() && (rook_attacks(sq, occupied) & orth).is_nonempty())
    }

    /// Recomputes the squares whose moves lose castling rights.
    fn update_castle_watch(&mut self) {
        let kings = Color::ALL.map(|c| self.colored_pieces(c, PieceType::King));
        self.castle_watch = castle_watch_of(self.castling.0, &self.castle_rooks, kings);
    }

    /// Recomputes `checkers` and the pin rays for the side to move.
    #[inline(always)]
    fn update_checks_and_pins(&mut self) {
        let us = self.side;
        (self.checkers, self.pin_diag, self.pin_orth) =
            checks_and_pins(&self.by_type, self.colored(us), self.colored(!us), us);
    }

    #[doc(hidden)]
    /// Keys computed from scratch (the incremental ones must always equal these).
    pub fn compute_keys(&self) -> (u64, u64) {
        let mut key = zobrist::side(self.side) ^ zobrist::castling(self.castling.0);
        let mut pawn_key = 0;
        for sq in self.occupied() {
            if let Some(piece) = self.piece_on(sq) {
                let k = zobrist::piece(piece, sq);
                key ^= k;
                if matches!(piece.piece_type(), PieceType::Pawn | PieceType::King) {
                    pawn_key ^= k;
                }
            }
        }
        if let Some(ep) = self.ep {
            key ^= zobrist::ep_file(ep.file().index());
        }
        (key, pawn_key)
    }

    /// Checks every invariant; returns a description of the first broken one.
    pub fn validate(&self) -> Result<(), String> {
        if (self.colored(Color::White) & self.colored(Color::Black)).is_nonempty() {
            return Err("a square is in both colours".into());
        }
        let typed = self.by_type.iter().fold(Bitboard::EMPTY, |all, &bb| all | bb);
        let overlapping = self.by_type.iter().map(|bb| bb.count()).sum::<u32>() != typed.count();
        if typed != self.occupied() || overlapping {
            return Err("piece-type and colour bitboards disagree".into());
        }
        let mut watch = Bitboard::EMPTY;
        for color in Color::ALL {
            for side in CastleSide::ALL {
                if let Some(rook) = self.castle_rook(color, side) {
                    watch |= Bitboard::from_square(rook) | self.king(color);
                }
            }
        }
        if watch != self.castle_watch {
            return Err("castling watch squares are stale".into());
        }
        if self.compute_keys() != (self.key, self.pawn_key) {
            return Err("incremental key differs from the key computed from scratch".into());
        }
        let psq_sum = Color::ALL
            .into_iter()
            .flat_map(|c| PieceType::ALL.map(|pt| (c, pt)))
            .flat_map(|(c, pt)| self.colored_pieces(c, pt).map(move |sq| psqt(Piece::new(c, pt), sq)))
            .fold(Score::ZERO, |a, b| a + b);
        if psq_sum != self.psq {
            return Err("incremental material/PSQT sum differs from the sum computed from scratch".into());
        }
        let mut fresh = *self;
        fresh.update_checks_and_pins();
        if (fresh.checkers, fresh.pin_diag, fresh.pin_orth) != (self.checkers, self.pin_diag, self.pin_orth) {
            return Err("cached checkers or pins are stale".into());
        }
        Ok(())
    }
}

impl fmt::Display for Position {
    /// A board diagram, then the FEN, key and checkers (the `d` command).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, " +---+---+---+---+---+---+---+---+")?;
        for rank in Rank::ALL.iter().rev() {
            for file in File::ALL {
                let c = self.piece_on(Square::from_file_rank(file, *rank)).map_or(' ', Piece::to_char);
                write!(f, " | {c}")?;
            }
            writeln!(f, " | {}", rank.to_char())?;
            writeln!(f, " +---+---+---+---+---+---+---+---+")?;
        }
        writeln!(f, "   a   b   c   d   e   f   g   h")?;
        writeln!(f)?;
        writeln!(f, "Fen: {}", self.to_fen())?;
        writeln!(f, "Key: {:016X}", self.key)?;
        write!(f, "Checkers:")?;
        for sq in self.checkers {
            write!(f, " {sq}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

/// The enemy pieces that check the king of `us` and the rays (king excluded, pinner included)
/// of its diagonal and orthogonal pins: `(checkers, pin_diag, pin_orth)`, from the bitboards
/// alone (so a make can compute them before it writes the child).
#[inline(always)]
fn checks_and_pins(
    by_type: &[Bitboard; 6],
    own: Bitboard,
    enemy: Bitboard,
    us: Color,
) -> (Bitboard, Bitboard, Bitboard) {
    let ksq = (by_type[PieceType::King.index()] & own).lsb();
    let occupied = own | enemy;
    let queens = by_type[PieceType::Queen.index()];

    let mut checkers = (knight_attacks(ksq) & by_type[PieceType::Knight.index()] & enemy)
        | (pawn_attacks(us, ksq) & by_type[PieceType::Pawn.index()] & enemy);

    let mut pin_orth = Bitboard::EMPTY;
    for sniper in rook_rays(ksq) & (by_type[PieceType::Rook.index()] | queens) & enemy {
        let blockers = between(ksq, sniper) & occupied;
        if blockers.is_empty() {
            checkers |= sniper;
        } else if !blockers.more_than_one() && (blockers & own).is_nonempty() {
            // (a lone enemy blocker is no pin; two or more blockers are none either)
            pin_orth |= between(ksq, sniper) | sniper;
        }
    }
    let mut pin_diag = Bitboard::EMPTY;
    for sniper in bishop_rays(ksq) & (by_type[PieceType::Bishop.index()] | queens) & enemy {
        let blockers = between(ksq, sniper) & occupied;
        if blockers.is_empty() {
            checkers |= sniper;
        } else if !blockers.more_than_one() && (blockers & own).is_nonempty() {
            pin_diag |= between(ksq, sniper) | sniper;
        }
    }
    (checkers, pin_diag, pin_orth)
}

/// The castling rights (bits of [`CastlingRights`]) left of `rights` after a move from `from`
/// to `to`; `king_moved`: the colour of the king that moved, if a king moved.
#[inline(always)]
fn rights_after(rights: u8, rooks: &[Square; 4], king_moved: Option<Color>, from: Square, to: Square) -> u8 {
    let mut rights = rights;
    if let Some(color) = king_moved {
        rights &= !(3 << (color as u8 * 2));
    }
    for (i, &rook) in rooks.iter().enumerate() {
        if rook == from || rook == to {
            rights &= !(1 << i);
        }
    }
    rights
}

/// The squares of the kings (`kings`, by colour) and rooks whose move or capture loses one of
/// `rights`.
#[inline(always)]
fn castle_watch_of(rights: u8, rooks: &[Square; 4], kings: [Bitboard; 2]) -> Bitboard {
    let mut watch = Bitboard::EMPTY;
    for (i, &rook) in rooks.iter().enumerate() {
        if rights >> i & 1 != 0 {
            watch |= kings[i / 2] | rook;
        }
    }
    watch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attack_maps_agree_with_attackers_square_by_square() {
        // Pawns on both edges (no wrap across the board), sliders blocked and unblocked, the
        // kings, a promotion square; each side's map against each square's attackers.
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "7k/P6p/8/8/8/8/p6P/K7 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            for by in Color::ALL {
                let map = pos.attacks_by(by);
                for sq in Square::ALL {
                    let attacked = (pos.attackers_to(sq, pos.occupied()) & pos.colored(by)).is_nonempty();
                    assert_eq!(map.has(sq), attacked, "{fen}: {by:?} on {sq}");
                }
                // Each level holds exactly the squares attacked by its classes of piece.
                let levels = pos.attack_levels(by);
                let classes: [&[PieceType]; 3] = [
                    &[PieceType::Pawn],
                    &[PieceType::Pawn, PieceType::Knight, PieceType::Bishop],
                    &[PieceType::Pawn, PieceType::Knight, PieceType::Bishop, PieceType::Rook],
                ];
                for (level, pieces) in classes.iter().enumerate() {
                    let attackers = pieces.iter().fold(Bitboard::EMPTY, |acc, &pt| acc | pos.colored_pieces(by, pt));
                    for sq in Square::ALL {
                        let attacked = (pos.attackers_to(sq, pos.occupied()) & attackers).is_nonempty();
                        assert_eq!(levels[level].has(sq), attacked, "{fen}: {by:?} level {level} on {sq}");
                    }
                }
                assert_eq!(levels[3], map);
            }
        }
    }
}
