//! The engine's small typed vocabulary: squares, files, ranks, colours, pieces, bitboards and moves.
//!
//! Every type is `Copy` and `#[repr(u8)]` (or a thin wrapper over an integer), so arrays indexed by
//! them need no bounds checks and every unchecked conversion has a checked twin.

mod bitboard;
mod chess_move;
mod piece;
mod square;

pub use bitboard::Bitboard;
pub use chess_move::{castling_destinations, Move, MoveKind, UciMove};
pub use piece::{CastleSide, Color, Piece, PieceType};
pub use square::{File, Rank, Square};
