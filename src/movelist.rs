//! Fixed-capacity move lists on the stack.
//!
//! Capacity bound. A FEN is accepted with any material (one king a side, no pawn on the first
//! or last rank): board editors make positions no game reaches, with ten queens or twelve pawns.
//! Over every such position, a side with `p` pieces (its king included) has at most
//! `min(16 (64 - p) + 74, 27 p + 2)` legal moves, which is largest at `p = 26`: 682.
//! * By destination: a move ends on one of the `64 - p` squares its own pieces leave free. What
//!   reaches a square is a knight (8 squares) or the nearest piece along one of the 8 lines
//!   from it (a slider, the king one step away, a pawn's push, double push, capture or en
//!   passant capture): at most 16 moves a square. A pawn's move to the last rank is four
//!   (one per promotion) and at most three pawns reach each of its 8 squares: 72 more. Castling
//!   adds at most 2.
//! * By piece: a queen has at most 27 moves, a rook 14, a bishop 13, a pawn 12 (three
//!   promotion squares, four pieces each), a knight or the king 8: at most `27 p`, plus 2
//!   castlings.
//!
//! So [`MAX_MOVES`] can never overflow. (Within a game's material, 16 pieces and 8 pawns a side,
//! the bound is 323; the most found in a reachable position is 218.)

use arrayvec::ArrayVec;

use crate::types::Move;

/// The most legal moves any accepted position can have (see the module note: 682).
pub const MAX_MOVES: usize = 682;

/// A list of moves, on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
