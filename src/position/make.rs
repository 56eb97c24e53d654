//! Copy-make: a legal move (or a null move) applied to a copy of the position.

use super::{CastlingRights, Position};
use crate::tables::{bishop_attacks, pawn_attacks, rook_attacks};
use crate::types::{Bitboard, Color, Move, MoveKind, Piece, PieceType, Square};
use crate::zobrist;

impl Position {
    /// The position after `m`, which must be legal here (from the generator, `is_legal`, or
    /// `parse_uci_move`). A move that is not is a caller bug: debug builds panic on it, release
    /// builds return an unspecified (but memory-safe) position.
    #[must_use]
    #[inline(always)]
    pub fn make_move(&self, m: Move) -> Position {
        let mut p = *self;
        self.make_move_into(m, &mut p);
        p
    }

    /// Writes the position after `m` into `out`: the form for hot loops. The child is built in the
    /// caller's frame, and everything read from the board is read from `self` before the copy.
    /// (Returning the child by value, or reading the copy right after writing it, made the CPU
    /// wait on store forwarding: a wide store followed by narrow loads of the same bytes.)
    #[inline(always)]
    pub fn make_move_into(&self, m: Move, out: &mut Position) {
        let (moved, captured) = (self.piece_type_on(m.from()), self.piece_type_on(m.to()));
        *out = *self;
        out.apply(m, moved, captured);
    }

    /// The body of every make: `moved` is the type on `from`, `captured` the type on `to` (read
    /// only for captures).
    #[inline(always)]
    fn apply(&mut self, m: Move, moved: PieceType, captured: PieceType) {
        #[cfg(debug_assertions)]
        let before = *self;
        let p = self;
        let us = p.side;
        let them = !us;
        let (from, to) = (m.from(), m.to());
        debug_assert!(p.colored(us).has(from), "apply: no own piece on {from} in {p:?} for {m:?}");
        let piece = Piece::new(us, moved);

        if let Some(ep) = p.ep.take() {
            p.key ^= zobrist::ep_file(ep.file().index());
        }
        p.halfmove = p.halfmove.saturating_add(1);
        if us == Color::Black {
            p.fullmove = p.fullmove.saturating_add(1);
        }

        match m.kind() {
            MoveKind::Quiet => {
                p.move_piece(piece, from, to);
                if piece.piece_type() == PieceType::Pawn {
                    p.halfmove = 0;
                }
            }
            MoveKind::DoublePush => {
                p.move_piece(piece, from, to);
                p.halfmove = 0;
            }
            MoveKind::Capture => {
                p.remove_piece(Piece::new(them, captured), to);
                p.move_piece(piece, from, to);
                p.halfmove = 0;
            }
            MoveKind::EnPassant => {
                let victim = Square::from_index_masked((to as u32 & 7) | (from as u32 & 56));
                p.remove_piece(Piece::new(them, PieceType::Pawn), victim);
                p.move_piece(piece, from, to);
                p.halfmove = 0;
            }
            MoveKind::Castle => {
                let rook = Piece::new(us, PieceType::Rook);
                p.remove_piece(piece, from);
                p.remove_piece(rook, to);
                p.add_piece(piece, m.castle_king_to());
                p.add_piece(rook, m.castle_rook_to());
            }
            _ => {
                // Promotions, with or without a capture.
                if m.is_capture() {
                    p.remove_piece(Piece::new(them, captured), to);
                }
                p.remove_piece(piece, from);
                let promoted = m.promotion().unwrap_or(PieceType::Queen);
                p.add_piece(Piece::new(us, promoted), to);
                p.halfmove = 0;
            }
        }

        if (p.castle_watch & (Bitboard::from_square(from) | to)).is_nonempty() {
            p.update_castling(piece, from, to);
        }

        p.side = them;
        p.key ^= zobrist::side_toggle();
        p.update_checks_and_pins();

        if m.kind() == MoveKind::DoublePush {
            let ep = Square::from_index_masked((from as u32 + to as u32) / 2);
            if p.ep_capture_possible(ep) {
                p.ep = Some(ep);
                p.key ^= zobrist::ep_file(ep.file().index());
            }
        }

        #[cfg(debug_assertions)]
        assert!(p.validate().is_ok(), "{:?} after {m:?} in {before:?}", p.validate());
    }

    /// Castling rights lost by a move of `piece` from `from` to `to`.
    #[inline]
    fn update_castling(&mut self, piece: Piece, from: Square, to: Square) {
        let old = self.castling.0;
        let mut rights = old;
        if piece.piece_type() == PieceType::King {
            rights &= !(3 << (piece.color() as u8 * 2));
        }
        for (i, &rook) in self.castle_rooks.iter().enumerate() {
            if rook == from || rook == to {
                rights &= !(1 << i);
            }
        }
        if rights != old {
            self.castling = CastlingRights(rights);
            self.key ^= zobrist::castling(old) ^ zobrist::castling(rights);
            self.update_castle_watch();
        }
    }

    /// The position with the side to move passing (for null-move pruning). Must not be called in
    /// check; in debug builds it panics then, in release the result is unspecified.
    #[must_use]
    pub fn make_null_move(&self) -> Position {
        debug_assert!(!self.in_check(), "null move in check");
        let mut p = *self;
        if let Some(ep) = p.ep.take() {
            p.key ^= zobrist::ep_file(ep.file().index());
        }
        p.halfmove = p.halfmove.saturating_add(1);
        p.side = !p.side;
        p.key ^= zobrist::side_toggle();
        p.update_checks_and_pins();
        p
    }

    /// Whether the legal move `m` gives check: the same answer as `make_move(m).in_check()`,
    /// without making it (so the search can prune a move before paying for it). The moved piece
    /// checks from its new square, or a slider of ours sees the king once the move has lifted
    /// its piece (and, en passant, the captured pawn) off the line; castling checks with the rook.
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let ksq = self.king(!us);
        let (from, to) = (m.from(), m.to());
        // The occupancy after the move, and our pieces that stay where they are.
        let (occupied, ours, lands) = if m.kind() == MoveKind::Castle {
            // `to` is the rook's square (king takes rook); the rook checks from its new square.
            let (king_to, rook_to) = (m.castle_king_to(), m.castle_rook_to());
            let occupied = (self.occupied() ^ from ^ to) | king_to | rook_to;
            let ours = self.colored(us) & !(Bitboard::from_square(from) | to);
            (occupied, ours, rook_attacks(rook_to, occupied))
        } else {
            let mut occupied = (self.occupied() ^ from) | to;
            if m.kind() == MoveKind::EnPassant {
                occupied ^= Square::from_index_masked((to as u32 & 7) | (from as u32 & 56));
            }
            let lands = match m.promotion().unwrap_or_else(|| self.piece_type_on(from)) {
                PieceType::Pawn => pawn_attacks(us, to),
                PieceType::Knight => crate::tables::knight_attacks(to),
                PieceType::Bishop => bishop_attacks(to, occupied),
                PieceType::Rook => rook_attacks(to, occupied),
                PieceType::Queen => bishop_attacks(to, occupied) | rook_attacks(to, occupied),
                PieceType::King => Bitboard::EMPTY,
            };
            (occupied, self.colored(us) & !Bitboard::from_square(from), lands)
        };
        if lands.has(ksq) {
            return true;
        }
        let queens = self.pieces(PieceType::Queen);
        let diag = (self.pieces(PieceType::Bishop) | queens) & ours;
        let orth = (self.pieces(PieceType::Rook) | queens) & ours;
        (bishop_attacks(ksq, occupied) & diag).is_nonempty() || (rook_attacks(ksq, occupied) & orth).is_nonempty()
    }

    /// Whether the side to move has a legal en-passant capture onto `ep` (the square behind a
    /// pawn of the other side that has just made a double step).
    pub(super) fn ep_capture_possible(&self, ep: Square) -> bool {
        let us = self.side;
        let capturers = pawn_attacks(!us, ep) & self.colored_pieces(us, PieceType::Pawn);
        capturers.into_iter().any(|from| self.ep_capture_legal(from, ep))
    }

    /// Whether the en-passant capture `from` x `ep` leaves the own king safe. Checked by playing it
    /// on the occupancy: this covers pins along the rank through both pawns, diagonal pins, and
    /// checks the capture does or does not resolve.
    #[inline]
    pub(super) fn ep_capture_legal(&self, from: Square, ep: Square) -> bool {
        let us = self.side;
        let them = !us;
        let victim = Square::from_index_masked((ep as u32 & 7) | (from as u32 & 56));
        let ksq = self.king(us);
        let occupied = (self.occupied() ^ from ^ victim) | ep;
        let enemy = self.colored(them) ^ victim;
        let queens = self.pieces(PieceType::Queen);
        let diag = (self.pieces(PieceType::Bishop) | queens) & enemy;
        let orth = (self.pieces(PieceType::Rook) | queens) & enemy;
        let leapers = (crate::tables::knight_attacks(ksq) & self.pieces(PieceType::Knight) & enemy)
            | (pawn_attacks(us, ksq) & self.pieces(PieceType::Pawn) & enemy);
        leapers.is_empty()
            && (bishop_attacks(ksq, occupied) & diag).is_empty()
            && (rook_attacks(ksq, occupied) & orth).is_empty()
    }
}
