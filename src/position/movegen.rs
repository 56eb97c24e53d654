//! Legal move generation, directly (no pseudo-legal filter).
//!
//! * Double check: king moves only. Single check: other moves must land on the check mask (the
//!   checker or a square between it and the king).
//! * Pinned pieces move only along their pin ray; pins are kept as two ray masks (diagonal and
//!   orthogonal), so a diagonally pinned pawn may only capture along its ray, an orthogonally
//!   pinned one only push along its file, and a pinned knight never moves.
//! * King moves are tested against the attacks with the king taken off the board (so it cannot
//!   "hide" behind itself from a slider).
//! * En passant is tested by playing it on the occupancy (the rank pin through both pawns).
//! * Castling (standard and Chess960): every square the king and rook cross or land on must be
//!   empty but for the two of them, and no square on the king's path may be attacked with both of
//!   them lifted off the board.
//!
//! One generator serves every use through a [`Sink`]: a list sink writes moves, a counting sink
//! only adds popcounts (perft's bulk counting at the last ply).

use super::Position;
use crate::movelist::MoveList;
use crate::tables::{between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::types::{castling_destinations, Bitboard, CastleSide, Color, File, Move, MoveKind, PieceType, Rank, Square};

/// Which moves a generator call produces.
pub trait GenMode {
    /// Captures (en passant included) and every promotion.
    const NOISY: bool;
    /// Non-captures that are not promotions (castling included).
    const QUIET: bool;
}

/// Every legal move.
pub struct AllMoves;
/// Legal captures and promotions.
pub struct Captures;
/// Legal quiet moves: no captures, no promotions.
pub struct Quiets;

impl GenMode for AllMoves {
    const NOISY: bool = true;
    const QUIET: bool = true;
}
impl GenMode for Captures {
    const NOISY: bool = true;
    const QUIET: bool = false;
}
impl GenMode for Quiets {
    const NOISY: bool = false;
    const QUIET: bool = true;
}

/// Receives generated moves, as sets where it can.
trait Sink {
    /// A piece on `from` moving to each of `targets`; those in `enemy` are captures.
    fn piece(&mut self, from: Square, targets: Bitboard, enemy: Bitboard);
    /// Pawn moves of one kind to each of `targets`, each from the square `delta` below it.
    fn pawns(&mut self, targets: Bitboard, delta: i8, kind: MoveKind);
    /// Promotions (all four pieces) to each of `targets`.
    fn promotions(&mut self, targets: Bitboard, delta: i8, capture: bool);
    /// A single move.
    fn one(&mut self, m: Move);
    /// Whether the order of the moves is free (counting sinks): castling is then generated
    /// next to the king's other moves, where the enemy's attack map is at hand.
    const ORDER_FREE: bool = false;
    /// Whether castling on `side`, a right still held, is known (from the parent, see
    /// [`Frontier`]) to be legal if the king is not in check, so the generator need not test it.
    #[inline(always)]
    fn castling_known_legal(&self, _side: CastleSide) -> bool {
        false
    }
}

#[inline(always)]
fn from_of(to: Square, delta: i8) -> Square {
    Square::from_index_masked((to as i32 - delta as i32) as u32)
}

impl Sink for MoveList {
    #[inline(always)]
    fn piece(&mut self, from: Square, targets: Bitboard, enemy: Bitboard) {
        for to in targets & enemy {
            self.push(Move::new(from, to, MoveKind::Capture));
        }
        for to in targets & !enemy {
            self.push(Move::new(from, to, MoveKind::Quiet));
        }
    }

    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, delta: i8, kind: MoveKind) {
        for to in targets {
            self.push(Move::new(from_of(to, delta), to, kind));
        }
    }

    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, delta: i8, capture: bool) {
        for to in targets {
            let from = from_of(to, delta);
            for piece in PieceType::PROMOTIONS {
                self.push(Move::new(from, to, MoveKind::promotion(piece, capture)));
            }
        }
    }

    #[inline(always)]
    fn one(&mut self, m: Move) {
        self.push(m);
    }
}

/// Counts moves without listing them; `.1[side]`: see [`Sink::castling_known_legal`].
struct Counter(u64, [bool; 2]);

impl Sink for Counter {
    const ORDER_FREE: bool = true;

    #[inline(always)]
    fn piece(&mut self, _from: Square, targets: Bitboard, _enemy: Bitboard) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, _delta: i8, _kind: MoveKind) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, _delta: i8, _capture: bool) {
        self.0 += 4 * targets.count() as u64;
    }

    #[inline(always)]
    fn one(&mut self, _m: Move) {
        self.0 += 1;
    }

    #[inline(always)]
    fn castling_known_legal(&self, side: CastleSide) -> bool {
        self.1[side as usize]
    }
}

/// [`Position::gen_side`]'s choices of the side to move.
const SIDE_WHITE: u8 = 0;
const SIDE_BLACK: u8 = 1;
const SIDE_READ: u8 = 2;

/// Perft's last two plies: makes each move (keys left stale) and adds the child's legal moves,
/// counted by popcount. No move list: the moves go from the generator straight to the make, the
/// mover's type read once per piece, not once per move, and a capture's victim looked up only
/// for captures.
///
/// Castling of the children's side to move: where it is legal here but for the side to move
/// (the squares the king and rook cross are empty but for them, and the king's path is not
/// attacked with both lifted off), it is legal in a child that keeps the right and is not in
/// check, unless the move starts or ends on a square to watch: one of those squares (it could
/// fill it), or one from which a queen, knight or king on the path reaches (a piece could attack
/// from there, or a line to the path open; a pawn's squares are among the king's). Those
/// children, and every child of a castling, en passant or promotion, test castling themselves.
struct Frontier<'a> {
    pos: &'a Position,
    child: Position,
    leaves: u64,
    /// Per castling side: the squares that void the parent's verdict (`FULL`: no verdict).
    watch: [Bitboard; 2],
}

impl Frontier<'_> {
    fn new(pos: &Position) -> Frontier<'_> {
        let mut watch = [Bitboard::FULL; 2];
        let us = pos.side;
        let them = !us;
        let king = pos.king(them);
        for side in CastleSide::ALL {
            let Some(rook) = pos.castle_rook(them, side) else { continue };
            let (path, must_be_empty, lifted) = pos.castling_squares(king, rook, side);
            if (must_be_empty & lifted).is_nonempty() {
                continue;
            }
            let mut reach = must_be_empty;
            let mut safe = true;
            for sq in path {
                safe &= !pos.is_attacked(sq, us, lifted);
                reach |= bishop_attacks(sq, lifted) | rook_attacks(sq, lifted) | knight_attacks(sq) | king_attacks(sq);
            }
            if safe {
                watch[side as usize] = reach;
            }
        }
        Frontier { pos, child: *pos, leaves: 0, watch }
    }

    #[inline(always)]
    fn plain<const QUIET: bool>(&mut self, from: Square, to: Square, moved: PieceType, double_push: bool) {
        self.pos.make_plain_bits_into::<QUIET, false>(from, to, moved, moved, double_push, &mut self.child);
        let touched = Bitboard::from_square(from) | to;
        let safe = self.watch.map(|w| (w & touched).is_empty());
        self.leaves += self.child.count_legal_with(Counter(0, safe));
    }

    /// A promotion to `piece` (`QUIET`: not a capture), made by the lean make; the child tests
    /// castling itself (a promotion could take a rook or block a path).
    #[inline(never)]
    fn promotion<const QUIET: bool>(&mut self, from: Square, to: Square, piece: PieceType) {
        self.pos.make_plain_bits_into::<QUIET, true>(from, to, PieceType::Pawn, piece, false, &mut self.child);
        self.leaves += self.child.count_legal();
    }
}

impl Sink for Frontier<'_> {
    const ORDER_FREE: bool = true;

    #[inline(always)]
    fn piece(&mut self, from: Square, targets: Bitboard, enemy: Bitboard) {
        let moved = self.pos.piece_type_on(from);
        for to in targets & enemy {
            self.plain::<false>(from, to, moved, false);
        }
        for to in targets & !enemy {
            self.plain::<true>(from, to, moved, false);
        }
    }

    #[inline(always)]
    fn pawns(&mut self, targets: Bitboard, delta: i8, kind: MoveKind) {
        for to in targets {
            let from = from_of(to, delta);
            match kind {
                MoveKind::Capture => self.plain::<false>(from, to, PieceType::Pawn, false),
                _ => self.plain::<true>(from, to, PieceType::Pawn, kind == MoveKind::DoublePush),
            }
        }
    }

    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, delta: i8, capture: bool) {
        for to in targets {
            let from = from_of(to, delta);
            for piece in PieceType::PROMOTIONS {
                if capture {
                    self.promotion::<false>(from, to, piece);
                } else {
                    self.promotion::<true>(from, to, piece);
                }
            }
        }
    }

    #[inline(always)]
    fn one(&mut self, m: Move) {
        self.pos.make_special_bits_into(m, &mut self.child);
        self.leaves += self.child.count_legal();
    }
}

impl Position {
    #[doc(hidden)]
    /// The number of leaves two plies below (perft 2), without a move list.
    #[inline]
    pub fn perft_frontier(&self) -> u64 {
        let mut frontier = Frontier::new(self);
        self.gen_all_specialised(&mut frontier);
        frontier.leaves
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<AllMoves>(&mut list);
        list
    }

    /// Appends the legal moves of kind `M` to `list`.
    #[inline]
    pub fn generate<M: GenMode>(&self, list: &mut MoveList) {
        self.gen::<M, _>(list, Bitboard::FULL);
    }

    /// The number of legal moves, counted without building a list.
    #[inline]
    pub fn count_legal(&self) -> u64 {
        self.count_legal_with(Counter(0, [false; 2]))
    }

    /// [`Position::count_legal`] with what the caller knows of castling.
    #[inline(always)]
    fn count_legal_with(&self, mut counter: Counter) -> u64 {
        self.gen_all_specialised(&mut counter);
        counter.0
    }

    /// Every legal move into `sink`, the generator specialised on the side to move.
    #[inline(always)]
    fn gen_all_specialised<S: Sink>(&self, sink: &mut S) {
        match self.side {
            Color::White => self.gen_side::<AllMoves, S, SIDE_WHITE>(sink, Bitboard::FULL),
            Color::Black => self.gen_side::<AllMoves, S, SIDE_BLACK>(sink, Bitboard::FULL),
        }
    }

    /// Whether the side to move has any legal move (false: checkmate or stalemate).
    pub fn has_legal_move(&self) -> bool {
        self.count_legal() != 0
    }

    /// Whether `m` is legal here: for moves that come from outside the generator (a hash table,
    /// a killer slot), which may belong to another position.
    pub fn is_legal(&self, m: Move) -> bool {
        let from = m.from();
        match self.piece_on(from) {
            Some(piece) if piece.color() == self.side => {
                let mut list = MoveList::new();
                self.gen::<AllMoves, _>(&mut list, Bitboard::from_square(from));
                list.contains(&m)
            }
            _ => false,
        }
    }

    /// The generator behind every public entry point; `movers` restricts which pieces move.
    #[inline(always)]
    fn gen<M: GenMode, S: Sink>(&self, sink: &mut S, movers: Bitboard) {
        self.gen_side::<M, S, SIDE_READ>(sink, movers);
    }

    /// [`Position::gen`] with the side to move read from the position (`SIDE_READ`), or known at
    /// compile time (`SIDE_WHITE`, `SIDE_BLACK`: perft's counting, whose board lookups and
    /// shifts then are constants; the search keeps the one copy of the code).
    #[inline(always)]
    fn gen_side<M: GenMode, S: Sink, const SIDE: u8>(&self, sink: &mut S, movers: Bitboard) {
        let us = match SIDE {
            SIDE_WHITE => Color::White,
            SIDE_BLACK => Color::Black,
            _ => self.side,
        };
        debug_assert_eq!(us, self.side);
        let them = !us;
        let own = self.colored(us);
        let enemy = self.colored(them);
        let occupied = own | enemy;
        let ksq = self.king(us);

        let mut kinds = Bitboard::EMPTY;
        if M::NOISY {
            kinds |= enemy;
        }
        if M::QUIET {
            kinds |= !occupied;
        }

        if movers.has(ksq) {
            let without_king = occupied ^ ksq;
            let candidates = king_attacks(ksq) & kinds;
            // Two squares or more: one map of the enemy's attacks (with the king lifted off, so
            // it cannot hide behind itself) beats a test per square, whose early exits the CPU
            // mispredicts; callgrind, perft of position 3: 30 -> 22 instructions and 210 -> 51
            // mispredicted branches per thousand leaves. The map is kept (`attacked`) for
            // castling.
            let mut attacked = None;
            let targets = if candidates.more_than_one() {
                let map = self.attack_map(them, without_king);
                attacked = Some(map);
                candidates & !map
            } else {
                let mut targets = Bitboard::EMPTY;
                for to in candidates {
                    if !self.is_attacked(to, them, without_king) {
                        targets |= to;
                    }
                }
                targets
            };
            sink.piece(ksq, targets, enemy);
            // Where the order does not matter, castling while the map is at hand.
            if S::ORDER_FREE && M::QUIET {
                self.gen_castling(sink, us, ksq, occupied, attacked);
            }
        }

        let checkers = self.checkers;
        if checkers.more_than_one() {
            return;
        }
        let check_mask = if checkers.is_nonempty() { between(ksq, checkers.lsb()) | checkers } else { Bitboard::FULL };
        let mask = kinds & check_mask;
        let (pin_diag, pin_orth) = (self.pin_diag, self.pin_orth);

        let knights = self.pieces(PieceType::Knight) & own & movers & !(pin_diag | pin_orth);
        for from in knights {
            sink.piece(from, knight_attacks(from) & mask, enemy);
        }

        let queens = self.pieces(PieceType::Queen);
        let diag = (self.pieces(PieceType::Bishop) | queens) & own & movers & !pin_orth;
        for from in diag & !pin_diag {
            sink.piece(from, bishop_attacks(from, occupied) & mask, enemy);
        }
        for from in diag & pin_diag {
            sink.piece(from, bishop_attacks(from, occupied) & mask & pin_diag, enemy);
        }
        let orth = (self.pieces(PieceType::Rook) | queens) & own & movers & !pin_diag;
        for from in orth & !pin_orth {
            sink.piece(from, rook_attacks(from, occupied) & mask, enemy);
        }
        for from in orth & pin_orth {
            sink.piece(from, rook_attacks(from, occupied) & mask & pin_orth, enemy);
        }

        let pawns = self.pieces(PieceType::Pawn) & own & movers;
        if pawns.is_nonempty() {
            match us {
                Color::White => self.gen_pawns::<M, S, true>(sink, pawns, check_mask),
                Color::Black => self.gen_pawns::<M, S, false>(sink, pawns, check_mask),
            }
        }

        if !S::ORDER_FREE && M::QUIET && movers.has(ksq) {
            self.gen_castling(sink, us, ksq, occupied, None);
        }
    }

    /// Castling moves of `us`, king on `ksq`; `attacked`: see [`Position::castling_legal`].
    #[inline(always)]
    fn gen_castling<S: Sink>(
        &self,
        sink: &mut S,
        us: Color,
        ksq: Square,
        occupied: Bitboard,
        attacked: Option<Bitboard>,
    ) {
        if self.checkers.is_empty() && self.castling.0 != 0 {
            for side in CastleSide::ALL {
                if let Some(rook) = self.castle_rook(us, side) {
                    // Necessary (and cheap): nothing stands between king and rook.
                    if sink.castling_known_legal(side)
                        || ((between(ksq, rook) & occupied).is_empty()
                            && self.castling_legal(ksq, rook, side, attacked))
                    {
                        sink.one(Move::new(ksq, rook, MoveKind::Castle));
                    }
                }
            }
        }
    }

    /// Pawn moves, specialised on the side to move (`WHITE`) so shifts and ranks are constants.
    #[inline(always)]
    fn gen_pawns<M: GenMode, S: Sink, const WHITE: bool>(&self, sink: &mut S, pawns: Bitboard, check_mask: Bitboard) {
        let us = if WHITE { Color::White } else { Color::Black };
        let enemy = self.colored(!us);
        let empty = !self.occupied();
        let (pin_diag, pin_orth) = (self.pin_diag, self.pin_orth);
        let last_rank = Bitboard::rank(Rank::Eighth.relative_to(us));
        let third_rank = Bitboard::rank(Rank::Third.relative_to(us));
        let (push, west, east): (i8, i8, i8) = match us {
            Color::White => (8, 7, 9),
            Color::Black => (-8, -9, -7),
        };

        // Pushes: a diagonally pinned pawn cannot push; a file-pinned one stays on its ray.
        let pushers = pawns & !pin_diag;
        let single = ((pushers & !pin_orth).forward(us) | ((pushers & pin_orth).forward(us) & pin_orth)) & empty;
        let double = (single & third_rank).forward(us) & empty & check_mask;
        let single = single & check_mask;
        if M::QUIET {
            sink.pawns(single & !last_rank, push, MoveKind::Quiet);
            sink.pawns(double, 2 * push, MoveKind::DoublePush);
        }

        if M::NOISY {
            sink.promotions(single & last_rank, push, false);

            // Captures: an orthogonally pinned pawn cannot capture; a diagonally pinned one only
            // along its ray.
            let capturers = pawns & !pin_orth;
            let free = (capturers & !pin_diag).forward(us);
            let pinned = (capturers & pin_diag).forward(us);
            let targets = enemy & check_mask;
            let to_west = (free.west() | (pinned.west() & pin_diag)) & targets;
            let to_east = (free.east() | (pinned.east() & pin_diag)) & targets;
            sink.pawns(to_west & !last_rank, west, MoveKind::Capture);
            sink.pawns(to_east & !last_rank, east, MoveKind::Capture);
            sink.promotions(to_west & last_rank, west, true);
            sink.promotions(to_east & last_rank, east, true);

            if let Some(ep) = self.ep {
                for from in pawn_attacks(!us, ep) & pawns {
                    if self.ep_capture_legal(from, ep) {
                        sink.one(Move::new(from, ep, MoveKind::EnPassant));
                    }
                }
            }
        }
    }

    /// Every square `by` attacks with the occupancy `occupied`.
    #[inline(always)]
    pub(super) fn attack_map(&self, by: Color, occupied: Bitboard) -> Bitboard {
        let pawns = self.colored_pieces(by, PieceType::Pawn).forward(by);
        let mut attacks = pawns.west() | pawns.east() | king_attacks(self.king(by));
        for sq in self.colored_pieces(by, PieceType::Knight) {
            attacks |= knight_attacks(sq);
        }
        let queens = self.colored_pieces(by, PieceType::Queen);
        for sq in self.colored_pieces(by, PieceType::Bishop) | queens {
            attacks |= bishop_attacks(sq, occupied);
        }
        for sq in self.colored_pieces(by, PieceType::Rook) | queens {
            attacks |= rook_attacks(sq, occupied);
        }
        attacks
    }

    /// Whether castling with the king on `ksq` and the rook on `rook` is legal (the side to move
    /// is known not to be in check).
    ///
    /// `attacked`: the enemy's attacks with the king lifted off, if known. With the rook in a
    /// corner, lifting it too opens no line to the king's path (the path is on the rook's rank,
    /// and nothing lies beyond the corner), so the map answers without a test per square.
    fn castling_legal(&self, ksq: Square, rook: Square, side: CastleSide, attacked: Option<Bitboard>) -> bool {
        let (king_path, must_be_empty, lifted) = self.castling_squares(ksq, rook, side);
        if (must_be_empty & lifted).is_nonempty() {
            return false;
        }
        if let Some(map) = attacked.filter(|_| matches!(rook.file(), File::A | File::H)) {
            return (king_path & map).is_empty();
        }
        let them = !self.side;
        king_path.into_iter().all(|sq| !self.is_attacked(sq, them, lifted))
    }

    /// For castling with the king on `ksq` and the rook on `rook`: the king's path (the squares
    /// that must not be attacked), every square king and rook cross or land on (which must be
    /// empty but for them), and the occupancy with both lifted off.
    #[inline(always)]
    fn castling_squares(&self, ksq: Square, rook: Square, side: CastleSide) -> (Bitboard, Bitboard, Bitboard) {
        let (king_to, rook_to) = castling_destinations(side, ksq.rank());
        let king_path = between(ksq, king_to) | king_to;
        let must_be_empty = king_path | between(rook, rook_to) | rook_to;
        (king_path, must_be_empty, self.occupied() ^ ksq ^ rook)
    }
}

/// Why a UCI move string was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveParseError {
    /// Not of the form `e2e4`, `e7e8q` (or `0000`).
    Malformed(String),
    /// Well-formed, but not a legal move in the position.
    Illegal(String),
    /// SAN that fits more than one legal move (`Nd2` with knights on b1 and f3).
    Ambiguous(String),
}

impl std::fmt::Display for MoveParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveParseError::Malformed(s) => write!(f, "malformed move '{s}'"),
            MoveParseError::Illegal(s) => write!(f, "illegal move '{s}'"),
            MoveParseError::Ambiguous(s) => write!(f, "ambiguous move '{s}'"),
        }
    }
}

impl std::error::Error for MoveParseError {}

impl Position {
    /// The legal move written `text` in UCI notation. Castling is accepted as king takes rook
    /// (always) and, outside Chess960 mode, also as the king's two-square step (`e1g1`).
    pub fn parse_uci_move(&self, text: &str) -> Result<Move, MoveParseError> {
        let b = text.as_bytes();
        let square = |i: usize| text.get(i..i + 2).and_then(|s| s.parse::<Square>().ok());
        let promo_ok = match b.len() {
            4 => true,
            5 => matches!(b[4], b'q' | b'r' | b'b' | b'n'),
            _ => false,
        };
        let (Some(from), Some(to), true) = (square(0), square(2), promo_ok) else {
            return Err(MoveParseError::Malformed(text.to_string()));
        };
        let promotion = b.get(4).and_then(|&c| PieceType::from_char(c as char));
        let mut list = MoveList::new();
        self.gen::<AllMoves, _>(&mut list, Bitboard::from_square(from));
        list.into_iter()
            .find(|m| {
                let to_matches = m.to() == to || (m.is_castle() && !self.is_chess960() && m.castle_king_to() == to);
                m.from() == from && to_matches && m.promotion() == promotion
            })
            .ok_or_else(|| MoveParseError::Illegal(text.to_string()))
    }
}
