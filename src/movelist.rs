//! Fixed-capacity move lists on the stack.
//!
//! Capacity bound: FEN parsing rejects positions whose material could not arise in a game (at most
//! 16 pieces a side, at most 8 pawns, promoted pieces at most the missing pawns), and legal moves
//! keep that invariant. Such a side has at most a king (8 moves + 2 castlings), nine queens (27
//! each), two rooks (14), two bishops (13) and two knights (8): 323 moves, so [`MAX_MOVES`] can
//! never overflow. (The most found in a reachable position is 218.)

use arrayvec::ArrayVec;

use crate::types::Move;

/// The most legal moves any accepted position can have (see the module note).
pub const MAX_MOVES: usize = 324;

/// A list of moves, on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
