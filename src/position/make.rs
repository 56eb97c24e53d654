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
        *out = self.duplicate();
        out.apply::<true>(m, moved, captured);
    }

    #[doc(hidden)]
    /// [`Position::make_move_into`] for perft: the bitboards, side, castling rights, en passant,
    /// checkers and pins (everything move generation reads) are the child's; the keys, the
    /// material/PSQT sum and the move counters are left as they were (stale).
    ///
    /// Quiet moves, double pushes and captures (nearly every move) compute the child's fields in
    /// registers and store each once, word by word: the general make copies the parent and then
    /// reads and rewrites single words of the copy, which waits on the wide copy's stores.
    #[inline(always)]
    pub fn make_move_bits_into(&self, m: Move, out: &mut Position) {
        let kind = m.kind();
        if matches!(kind, MoveKind::Quiet | MoveKind::DoublePush | MoveKind::Capture) {
            let moved = self.piece_type_on(m.from());
            self.make_plain_bits_into::<false, false>(
                m.from(),
                m.to(),
                moved,
                moved,
                kind == MoveKind::DoublePush,
                out,
            );
        } else {
            self.make_special_bits_into(m, out);
        }
    }

    /// [`Position::make_move_bits_into`] of castling, en passant and promotions: the general make
    /// without the keys.
    #[inline(never)]
    pub(super) fn make_special_bits_into(&self, m: Move, out: &mut Position) {
        let (moved, captured) = (self.piece_type_on(m.from()), self.piece_type_on(m.to()));
        *out = self.duplicate();
        out.apply::<false>(m, moved, captured);
    }

    /// [`Position::make_move_bits_into`] of a quiet move, double push, capture or promotion of a
    /// `moved` from `from` to `to`, where it becomes a `placed` (`moved` but for promotions,
    /// `PROMO`). Fields it does not name in its doc keep what `out` held. `QUIET`: the caller
    /// knows `to` is empty (no capture to look for).
    #[inline(always)]
    pub(super) fn make_plain_bits_into<const QUIET: bool, const PROMO: bool>(
        &self,
        from: Square,
        to: Square,
        moved: PieceType,
        placed: PieceType,
        double_push: bool,
        out: &mut Position,
    ) {
        let us = self.side;
        let them = !us;
        let path = Bitboard::from_square(from) | to;
        let enemy = self.colored(them);
        let (moved, captured, victim) = if QUIET {
            debug_assert!(!enemy.has(to));
            (moved.index(), usize::MAX, Bitboard::EMPTY)
        } else {
            (moved.index(), self.piece_type_on(to).index(), enemy & to)
        };
        // Branch-free: the moved type loses `from` and gains `to`; the captured type (read as a
        // pawn on an empty square) loses `to` only when there was a victim.
        let placed = placed.index();
        let by_type: [Bitboard; 6] = std::array::from_fn(|t| {
            let mut bb = self.by_type[t];
            if PROMO {
                if t == moved {
                    bb ^= from;
                }
                if t == placed {
                    bb ^= to;
                }
            } else if t == moved {
                bb ^= path;
            }
            if t == captured {
                bb ^= victim;
            }
            bb
        });
        let own = self.colored(us) ^ path;
        let enemy = enemy ^ victim;

        let mut by_color = [Bitboard::EMPTY; 2];
        by_color[us.index()] = own;
        by_color[them.index()] = enemy;
        let mut castling = self.castling;
        let mut castle_watch = self.castle_watch;
        if (castle_watch & path).is_nonempty() {
            let king_moved = (moved == PieceType::King.index()).then_some(us);
            let rights = super::rights_after(castling.0, &self.castle_rooks, king_moved, from, to);
            castling = CastlingRights(rights);
            let kings = by_color.map(|bb| bb & by_type[PieceType::King.index()]);
            castle_watch = super::castle_watch_of(rights, &self.castle_rooks, kings);
        }

        let (checkers, pin_diag, pin_orth) = super::checks_and_pins(&by_type, enemy, own, them);
        // Word by word (volatile: not merged into wide stores), so that the generator's
        // word-sized reads of the child right after are forwarded from these stores. (Written as
        // one struct, the child came out slower than the general make: 0.176 s against 0.151 s
        // at start perft 6.)
        for (slot, bb) in out.by_type.iter_mut().zip(by_type) {
            put(slot, bb);
        }
        put(&mut out.by_color[0], by_color[0]);
        put(&mut out.by_color[1], by_color[1]);
        put(&mut out.checkers, checkers);
        put(&mut out.pin_diag, pin_diag);
        put(&mut out.pin_orth, pin_orth);
        put(&mut out.castle_watch, castle_watch);
        put(&mut out.side, them);
        put(&mut out.ep, None);
        put(&mut out.castling, castling);
        put(&mut out.castle_rooks, self.castle_rooks);
        put(&mut out.chess960, self.chess960);
        if double_push {
            let ep = Square::from_index_masked((from as u32 + to as u32) / 2);
            if (pawn_attacks(us, ep) & by_type[PieceType::Pawn.index()] & enemy).is_nonempty()
                && out.ep_capture_possible(ep)
            {
                out.ep = Some(ep);
            }
        }
        #[cfg(debug_assertions)]
        {
            let mut full = *self;
            let kind = if PROMO {
                MoveKind::promotion(PieceType::ALL[placed], victim.is_nonempty())
            } else if double_push {
                MoveKind::DoublePush
            } else if victim.is_nonempty() {
                MoveKind::Capture
            } else {
                MoveKind::Quiet
            };
            full.apply::<false>(Move::new(from, to, kind), self.piece_type_on(from), self.piece_type_on(to));
            debug_assert!(
                (full.by_type, full.by_color, full.checkers, full.pin_diag, full.pin_orth, full.ep)
                    == (out.by_type, out.by_color, out.checkers, out.pin_diag, out.pin_orth, out.ep)
                    && (full.castling, full.castle_watch, full.side) == (out.castling, out.castle_watch, out.side),
                "lean make of {from}{to} in {self:?}"
            );
        }
    }

    /// The body of every make: `moved` is the type on `from`, `captured` the type on `to` (read
    /// only for captures).
    #[inline(always)]
    fn apply<const KEYS: bool>(&mut self, m: Move, moved: PieceType, captured: PieceType) {
        #[cfg(debug_assertions)]
        let before = *self;
        let p = self;
        let us = p.side;
        let them = !us;
        let (from, to) = (m.from(), m.to());
        debug_assert!(p.colored(us).has(from), "apply: no own piece on {from} in {p:?} for {m:?}");
        let piece = Piece::new(us, moved);

        if let Some(ep) = p.ep.take() {
            if KEYS {
                p.key ^= zobrist::ep_file(ep.file().index());
            }
        }
        p.halfmove = p.halfmove.saturating_add(1);
        if us == Color::Black {
            p.fullmove = p.fullmove.saturating_add(1);
        }

        match m.kind() {
            MoveKind::Quiet => {
                p.move_piece_bits::<KEYS>(piece, from, to);
                if piece.piece_type() == PieceType::Pawn {
                    p.halfmove = 0;
                }
            }
            MoveKind::DoublePush => {
                p.move_piece_bits::<KEYS>(piece, from, to);
                p.halfmove = 0;
            }
            MoveKind::Capture => {
                p.remove_piece_bits::<KEYS>(Piece::new(them, captured), to);
                p.move_piece_bits::<KEYS>(piece, from, to);
                p.halfmove = 0;
            }
            MoveKind::EnPassant => {
                let victim = Square::from_index_masked((to as u32 & 7) | (from as u32 & 56));
                p.remove_piece_bits::<KEYS>(Piece::new(them, PieceType::Pawn), victim);
                p.move_piece_bits::<KEYS>(piece, from, to);
                p.halfmove = 0;
            }
            MoveKind::Castle => {
                let rook = Piece::new(us, PieceType::Rook);
                p.remove_piece_bits::<KEYS>(piece, from);
                p.remove_piece_bits::<KEYS>(rook, to);
                p.add_piece_bits::<KEYS>(piece, m.castle_king_to());
                p.add_piece_bits::<KEYS>(rook, m.castle_rook_to());
            }
            _ => {
                // Promotions, with or without a capture.
                if m.is_capture() {
                    p.remove_piece_bits::<KEYS>(Piece::new(them, captured), to);
                }
                p.remove_piece_bits::<KEYS>(piece, from);
                let promoted = m.promotion().unwrap_or(PieceType::Queen);
                p.add_piece_bits::<KEYS>(Piece::new(us, promoted), to);
                p.halfmove = 0;
            }
        }

        if (p.castle_watch & (Bitboard::from_square(from) | to)).is_nonempty() {
            p.update_castling(piece, from, to);
        }

        p.side = them;
        if KEYS {
            p.key ^= zobrist::side_toggle();
        }
        p.update_checks_and_pins();

        if m.kind() == MoveKind::DoublePush {
            let ep = Square::from_index_masked((from as u32 + to as u32) / 2);
            if p.ep_capture_possible(ep) {
                p.ep = Some(ep);
                if KEYS {
                    p.key ^= zobrist::ep_file(ep.file().index());
                }
            }
        }

        #[cfg(debug_assertions)]
        assert!(!KEYS || p.validate().is_ok(), "{:?} after {m:?} in {before:?}", p.validate());
    }

    /// Castling rights lost by a move of `piece` from `from` to `to`.
    #[inline]
    fn update_castling(&mut self, piece: Piece, from: Square, to: Square) {
        let old = self.castling.0;
        let king_moved = (piece.piece_type() == PieceType::King).then_some(piece.color());
        let rights = super::rights_after(old, &self.castle_rooks, king_moved, from, to);
        if rights != old {
            self.castling = CastlingRights(rights);
            self.key ^= zobrist::castling(old) ^ zobrist::castling(rights);
            self.update_castle_watch();
        }
    }

    #[doc(hidden)]
    /// The key after `m`, for fetching the child's table entry before the move is made: exact
    /// for a quiet move, double push or capture that changes no castling right and allows no en
    /// passant capture (nearly every move a search makes); for the others another key (a fetch
    /// wasted, nothing worse).
    #[inline(always)]
    pub fn key_after_hint(&self, m: Move) -> u64 {
        let (from, to) = (m.from(), m.to());
        let piece = Piece::new(self.side, self.piece_type_on(from));
        let mut key = self.key ^ zobrist::side_toggle() ^ zobrist::piece(piece, from) ^ zobrist::piece(piece, to);
        if m.kind() == MoveKind::Capture {
            key ^= zobrist::piece(Piece::new(!self.side, self.piece_type_on(to)), to);
        }
        if let Some(ep) = self.ep {
            key ^= zobrist::ep_file(ep.file().index());
        }
        key
    }

    /// The position with the side to move passing (for null-move pruning). Must not be called in
    /// check; in debug builds it panics then, in release the result is unspecified.
    #[must_use]
    pub fn make_null_move(&self) -> Position {
        debug_assert!(!self.in_check(), "null move in check");
        let mut p = self.duplicate();
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

/// Stores `value` in `slot` as a store of its own, which the compiler may not merge with its
/// neighbours into a wider one.
#[inline(always)]
fn put<T: Copy>(slot: &mut T, value: T) {
    // SAFETY: a `&mut T` is valid for writes and aligned, and `T: Copy` has no destructor to skip.
    unsafe { std::ptr::write_volatile(slot, value) }
}
