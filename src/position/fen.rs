//! FEN parsing and printing: standard FEN, X-FEN (`KQkq` naming the outermost rook) and
//! Shredder-FEN (rook files `HAha`) castling, for standard chess and Chess960.
//!
//! Parsing validates everything a move generator relies on and names the first problem found in
//! a typed [`FenError`]; it never panics. An en-passant square that is well-formed but allows no
//! legal capture is dropped (the key then matches every transposition).

use std::fmt;

use super::{CastlingRights, Position};
use crate::types::{Bitboard, CastleSide, Color, File, Piece, PieceType, Rank, Square};

/// Why a FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Not 4 to 6 space-separated fields (board, side, castling, en passant, clocks).
    FieldCount(usize),
    /// The board field does not have 8 ranks separated by `/`.
    RankCount(usize),
    /// A character in the board field that is neither a piece letter nor a digit 1-8.
    BadPieceChar(char),
    /// A rank (counted from the eighth, as written) that covers more than 8 squares.
    RankTooLong(Rank),
    /// A rank that covers fewer than 8 squares.
    RankTooShort(Rank),
    /// A side without a king.
    MissingKing(Color),
    /// A side with more than one king.
    ExtraKing(Color),
    /// A pawn on the first or last rank.
    PawnOnBackRank(Square),
    /// The side-to-move field is not `w` or `b`.
    BadSideToMove(String),
    /// The side that is not to move is in check.
    OpponentInCheck,
    /// The castling field has a character other than `KQkqA-Ha-h` or `-`, or repeats a right.
    BadCastling(String),
    /// A castling right whose king is not on its back rank.
    CastlingWithoutKing(char),
    /// A castling right without a rook of that colour on the named square (or side).
    CastlingWithoutRook(char),
    /// The en-passant field is not `-` or a square name.
    BadEnPassant(String),
    /// An en-passant square no double pawn step could have produced.
    ImpossibleEnPassant(Square),
    /// The half-move clock is not a number in range.
    BadHalfmoveClock(String),
    /// The full-move number is not a positive number in range.
    BadFullmoveNumber(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount(n) => write!(f, "expected 4 to 6 fields, found {n}"),
            FenError::RankCount(n) => write!(f, "expected 8 ranks in the board field, found {n}"),
            FenError::BadPieceChar(c) => write!(f, "bad piece letter '{c}'"),
            FenError::RankTooLong(r) => write!(f, "rank {} has more than 8 squares", r.to_char()),
            FenError::RankTooShort(r) => write!(f, "rank {} has fewer than 8 squares", r.to_char()),
            FenError::MissingKing(c) => write!(f, "{} has no king", color_name(*c)),
            FenError::ExtraKing(c) => write!(f, "{} has more than one king", color_name(*c)),
            FenError::PawnOnBackRank(sq) => write!(f, "pawn on {sq}, on the first or last rank"),
            FenError::BadSideToMove(s) => write!(f, "side to move must be 'w' or 'b', not '{s}'"),
            FenError::OpponentInCheck => write!(f, "the side not to move is in check"),
            FenError::BadCastling(s) => write!(f, "bad castling field '{s}'"),
            FenError::CastlingWithoutKing(c) => write!(f, "castling right '{c}' without its king on the back rank"),
            FenError::CastlingWithoutRook(c) => write!(f, "castling right '{c}' without its rook"),
            FenError::BadEnPassant(s) => write!(f, "bad en-passant field '{s}'"),
            FenError::ImpossibleEnPassant(sq) => write!(f, "impossible en-passant square {sq}"),
            FenError::BadHalfmoveClock(s) => write!(f, "bad half-move clock '{s}'"),
            FenError::BadFullmoveNumber(s) => write!(f, "bad full-move number '{s}'"),
        }
    }
}

impl std::error::Error for FenError {}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl Position {
    /// Parses a FEN (4 to 6 fields; missing clocks default to `0 1`).
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let mut pos = Position::empty();
        parse_board(&mut pos, fields[0])?;
        validate_material(&pos)?;

        pos.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSideToMove(other.to_string())),
        };
        parse_castling(&mut pos, fields[2])?;
        let ep = parse_ep(&pos, fields[3])?;

        if let Some(s) = fields.get(4) {
            pos.halfmove = s.parse().map_err(|_| FenError::BadHalfmoveClock(s.to_string()))?;
        }
        if let Some(s) = fields.get(5) {
            pos.fullmove = match s.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(FenError::BadFullmoveNumber(s.to_string())),
            };
        }

        let them = !pos.side;
        if pos.is_attacked(pos.king(them), pos.side, pos.occupied()) {
            return Err(FenError::OpponentInCheck);
        }
        pos.update_checks_and_pins();
        if let Some(ep) = ep {
            if pos.ep_capture_possible(ep) {
                pos.ep = Some(ep);
            }
        }
        (pos.key, pos.pawn_key) = pos.compute_keys();
        debug_assert!(pos.validate().is_ok());
        Ok(pos)
    }

    /// The FEN of this position. Castling is written `KQkq` when that names the rook
    /// unambiguously (the outermost one on its side), else with the rook's file (Shredder style).
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(90);
        s.push_str(&placement_field(|sq| self.piece_on(sq)));
        s.push(' ');
        s.push(self.side.to_char());
        s.push(' ');
        let before = s.len();
        for color in Color::ALL {
            for side in CastleSide::ALL {
                if let Some(rook) = self.castle_rook(color, side) {
                    let outermost = outermost_rook(self, color, side) == Some(rook);
                    let c = if outermost {
                        if side == CastleSide::King {
                            'k'
                        } else {
                            'q'
                        }
                    } else {
                        rook.file().to_char()
                    };
                    s.push(if color == Color::White { c.to_ascii_uppercase() } else { c });
                }
            }
        }
        if s.len() == before {
            s.push('-');
        }
        s.push(' ');
        match self.ep {
            Some(sq) => s.push_str(&sq.to_string()),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }
}

fn parse_board(pos: &mut Position, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = Rank::ALL[7 - i];
        let mut file = 0u32;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return Err(FenError::BadPieceChar(c));
                }
                file += d;
            } else {
                let piece = Piece::from_char(c).ok_or(FenError::BadPieceChar(c))?;
                if file >= 8 {
                    return Err(FenError::RankTooLong(rank));
                }
                pos.add_piece(piece, Square::from_file_rank(File::ALL[file as usize], rank));
                file += 1;
            }
            if file > 8 {
                return Err(FenError::RankTooLong(rank));
            }
        }
        if file < 8 {
            return Err(FenError::RankTooShort(rank));
        }
    }
    Ok(())
}

fn validate_material(pos: &Position) -> Result<(), FenError> {
    for color in Color::ALL {
        match pos.colored_pieces(color, PieceType::King).count() {
            0 => return Err(FenError::MissingKing(color)),
            1 => {}
            _ => return Err(FenError::ExtraKing(color)),
        }
    }
    let back_ranks = Bitboard::rank(Rank::First) | Bitboard::rank(Rank::Eighth);
    if let Some(sq) = (pos.pieces(PieceType::Pawn) & back_ranks).first() {
        return Err(FenError::PawnOnBackRank(sq));
    }
    Ok(())
}

/// The rook furthest from the king on `side` of the back rank (the one `K`/`Q` names in X-FEN).
fn outermost_rook(pos: &Position, color: Color, side: CastleSide) -> Option<Square> {
    let ksq = pos.king(color);
    let rooks = pos.colored_pieces(color, PieceType::Rook) & Bitboard::rank(ksq.rank());
    let mut candidates = rooks.filter(|r| match side {
        CastleSide::King => r.file() > ksq.file(),
        CastleSide::Queen => r.file() < ksq.file(),
    });
    match side {
        CastleSide::King => candidates.last(),
        CastleSide::Queen => candidates.next(),
    }
}

fn parse_castling(pos: &mut Position, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let bad = || FenError::BadCastling(field.to_string());
    if field.len() > 4 {
        return Err(bad());
    }
    // Chess960 is recognised by the geometry (king off e, or a castling rook off a/h), not by the
    // notation: Shredder letters for the standard setup still describe standard chess.
    let mut chess960 = false;
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let back = Rank::First.relative_to(color);
        let ksq = pos.king(color);
        if ksq.rank() != back {
            if c.is_ascii_alphabetic() {
                return Err(FenError::CastlingWithoutKing(c));
            }
            return Err(bad());
        }
        let (side, rook) = match c.to_ascii_lowercase() {
            'k' => (CastleSide::King, outermost_rook(pos, color, CastleSide::King)),
            'q' => (CastleSide::Queen, outermost_rook(pos, color, CastleSide::Queen)),
            f @ 'a'..='h' => {
                let file = File::from_char(f).ok_or_else(bad)?;
                let sq = Square::from_file_rank(file, back);
                let side = if file > ksq.file() { CastleSide::King } else { CastleSide::Queen };
                let is_rook = pos.piece_on(sq) == Some(Piece::new(color, PieceType::Rook));
                (side, is_rook.then_some(sq))
            }
            _ => return Err(bad()),
        };
        let rook = rook.ok_or(FenError::CastlingWithoutRook(c))?;
        let bit = CastlingRights::bit(color, side);
        if pos.castling.0 & bit != 0 {
            return Err(bad());
        }
        pos.castling.0 |= bit;
        pos.castle_rooks[color as usize * 2 + side as usize] = rook;
        if ksq.file() != File::E || !matches!(rook.file(), File::A | File::H) {
            chess960 = true;
        }
    }
    pos.chess960 = chess960;
    pos.update_castle_watch();
    Ok(())
}

/// Parses the en-passant field; checks that a double step could have produced it.
/// The first field of a FEN: the board rank by rank from the eighth, `piece_on` telling what
/// stands on each square.
pub fn placement_field(piece_on: impl Fn(Square) -> Option<crate::types::Piece>) -> String {
    let mut s = String::with_capacity(72);
    for rank in Rank::ALL.iter().rev() {
        let mut empty = 0;
        for file in File::ALL {
            match piece_on(Square::from_file_rank(file, *rank)) {
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(p.to_char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if *rank != Rank::First {
            s.push('/');
        }
    }
    s
}

fn parse_ep(pos: &Position, field: &str) -> Result<Option<Square>, FenError> {
    if field == "-" {
        return Ok(None);
    }
    let sq: Square = field.parse().map_err(|_| FenError::BadEnPassant(field.to_string()))?;
    let us = pos.side;
    let them = !us;
    // The square behind the pawn that moved: sixth rank for the side to move, empty, with the
    // moved pawn in front of it and its start square empty.
    let plausible = sq.rank() == Rank::Sixth.relative_to(us)
        && pos.piece_on(sq).is_none()
        && Square::new((sq as i16 + if us == Color::White { 8 } else { -8 }) as u8)
            .is_some_and(|start| pos.piece_on(start).is_none())
        && Square::new((sq as i16 + if us == Color::White { -8 } else { 8 }) as u8)
            .is_some_and(|pawn| pos.piece_on(pawn) == Some(Piece::new(them, PieceType::Pawn)));
    if plausible {
        Ok(Some(sq))
    } else {
        Err(FenError::ImpossibleEnPassant(sq))
    }
}
