//! Training data in the binary formats the field's trainers read (bullet, and the engines that
//! share their data), written and read here from the published layouts.
//!
//! * **marlinformat**: one position in 32 bytes ([`PackedBoard`]): occupancy (`u64`), a 4-bit
//!   code for each occupied square in square order (piece type 0-5 for pawn to king, 6 for a
//!   rook that still carries a castling right, plus 8 for Black; the low nibble of byte `i / 2`
//!   holds piece `i` when `i` is even), the side to move in bit 7 and the en-passant square (64:
//!   none) in the low bits of one byte, the halfmove clock (`u8`), the fullmove number (`u16`),
//!   a score (`i16`, centipawns, White's view), the result (0 Black won, 1 draw, 2 White won)
//!   and a spare byte. All little-endian. A file of them is a position file.
//! * **viriformat**: a game ([`Game`]) as its start position (a packed board carrying the
//!   result), then for every move played 4 bytes: the move (`u16`: from | to << 6 | the
//!   promotion piece minus one << 12 | flags << 14, flags 3 promotion, 1 en passant, 2 castling
//!   with the king's move written king-takes-rook) and the search score of the position it was
//!   played in (`i16`, White's view); four zero bytes end the game. About 4 bytes a position,
//!   and whole games, so a trainer can hold games out.

use std::io::{self, Read, Write};

pub use super::game::{Game, Wdl};
use crate::position::Position;
use crate::types::{CastleSide, Color, Move, MoveKind, PieceType, Square};

/// The size of a packed board.
pub const BOARD_BYTES: usize = 32;
/// The piece code of a rook that carries a castling right.
const UNMOVED_ROOK: u8 = 6;

/// One position with its score (centipawns, White's view) and game result.
pub type PackedBoard = [u8; BOARD_BYTES];

/// Packs `pos` with `score` (White's view) and `wdl`.
pub fn pack(pos: &Position, score: i16, wdl: Wdl) -> PackedBoard {
    let mut out = [0u8; BOARD_BYTES];
    let occupied = pos.occupied();
    out[..8].copy_from_slice(&occupied.0.to_le_bytes());
    let unmoved: Vec<Square> =
        Color::ALL.into_iter().flat_map(|c| CastleSide::ALL.map(|side| pos.castle_rook(c, side))).flatten().collect();
    for (i, sq) in occupied.into_iter().enumerate() {
        let piece = pos.piece_on(sq).expect("an occupied square has a piece");
        let mut code = piece.piece_type().index() as u8;
        if unmoved.contains(&sq) {
            code = UNMOVED_ROOK;
        }
        code |= (piece.color() as u8) << 3;
        out[8 + i / 2] |= code << (4 * (i % 2));
    }
    out[24] = ((pos.side_to_move() as u8) << 7) | pos.ep_square().map_or(64, |sq| sq as u8);
    out[25] = pos.halfmove_clock().min(255) as u8;
    out[26..28].copy_from_slice(&pos.fullmove_number().to_le_bytes());
    out[28..30].copy_from_slice(&score.to_le_bytes());
    out[30] = wdl as u8;
    out
}

/// The position, score and result of a packed board; an error for bytes that are no position.
pub fn unpack(bytes: &PackedBoard) -> Result<(Position, i16, Wdl), String> {
    let occupied = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    if occupied.count_ones() > 32 {
        return Err(format!("{} pieces on the board", occupied.count_ones()));
    }
    let mut board = [None; 64];
    let mut rights = String::new();
    for (i, index) in crate::types::Bitboard(occupied).into_iter().enumerate() {
        let nibble = (bytes[8 + i / 2] >> (4 * (i % 2))) & 0xF;
        let color = if nibble & 8 != 0 { Color::Black } else { Color::White };
        let piece = match nibble & 7 {
            UNMOVED_ROOK => {
                let file = (b'a' + (index as u8 & 7)) as char;
                rights.push(if color == Color::White { file.to_ascii_uppercase() } else { file });
                PieceType::Rook
            }
            code => PieceType::ALL.get(code as usize).copied().ok_or(format!("piece code {nibble}"))?,
        };
        board[index as usize] = Some(crate::types::Piece::new(color, piece));
    }
    let placement = crate::position::placement_field(|sq| board[sq as usize]);
    let side = if bytes[24] >> 7 != 0 { 'b' } else { 'w' };
    let ep = match bytes[24] & 0x7F {
        64 => "-".to_string(),
        sq => Square::new(sq).ok_or(format!("en-passant square {sq}"))?.to_string(),
    };
    let rights = if rights.is_empty() { "-".to_string() } else { rights };
    let fullmove = u16::from_le_bytes([bytes[26], bytes[27]]).max(1);
    let fen = format!("{placement} {side} {rights} {ep} {} {fullmove}", bytes[25]);
    let pos = Position::from_fen(&fen).map_err(|e| format!("{fen}: {e}"))?;
    Ok((pos, i16::from_le_bytes([bytes[28], bytes[29]]), Wdl::from_byte(bytes[30])?))
}

/// A move in viriformat's 16 bits.
pub fn encode_move(m: Move) -> u16 {
    let base = m.from() as u16 | (m.to() as u16) << 6;
    match m.kind() {
        MoveKind::EnPassant => base | 1 << 14,
        MoveKind::Castle => base | 2 << 14,
        _ => match m.promotion() {
            Some(piece) => base | ((piece.index() as u16 - 1) & 3) << 12 | 3 << 14,
            None => base,
        },
    }
}

/// The legal move of `pos` written `raw`.
pub fn decode_move(pos: &Position, raw: u16) -> Result<Move, String> {
    pos.legal_moves()
        .into_iter()
        .find(|&m| encode_move(m) == raw)
        .ok_or_else(|| format!("move {raw:#06x} is not legal in {}", pos.to_fen()))
}

/// How the error of [`Game::read`] for a game cut short by the end of the input begins (what a
/// reader of a file that `datagen` is still writing meets at its end).
pub const TRUNCATED: &str = "truncated game";

/// Games in viriformat.
impl Game {
    /// Writes the game in viriformat.
    pub fn write<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        out.write_all(&pack(&self.start, 0, self.wdl))?;
        for &(m, score) in &self.moves {
            // A score of 0 with the null move would read as the end; no legal move encodes as 0.
            out.write_all(&encode_move(m).to_le_bytes())?;
            out.write_all(&score.to_le_bytes())?;
        }
        out.write_all(&[0; 4])
    }

    /// Reads the next game; `Ok(None)` at the clean end of the input, an error for a truncated
    /// game, a board that is no position or a move that is not legal where it stands.
    pub fn read(input: &mut impl Read) -> Result<Option<Game>, String> {
        let mut board = [0u8; BOARD_BYTES];
        match read_full(input, &mut board)? {
            0 => return Ok(None),
            BOARD_BYTES => {}
            n => return Err(format!("{TRUNCATED}: {n} bytes of a 32-byte start position")),
        }
        let (start, _, wdl) = unpack(&board)?;
        let mut pos = start;
        let mut moves = Vec::new();
        loop {
            let mut entry = [0u8; 4];
            if read_full(input, &mut entry)? != 4 {
                return Err(format!("{TRUNCATED} after {} moves", moves.len()));
            }
            if entry == [0; 4] {
                return Ok(Some(Game { start, wdl, moves }));
            }
            let m = decode_move(&pos, u16::from_le_bytes([entry[0], entry[1]]))?;
            moves.push((m, i16::from_le_bytes([entry[2], entry[3]])));
            pos = pos.make_move(m);
        }
    }
}

/// A data file's format, from its name: `.vf` viriformat games, `.bin` marlinformat
/// positions, `.pgn` a match runner's games (read only), anything else `FEN | score | result`
/// text lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Games,
    Boards,
    Pgn,
    Text,
}

impl Format {
    /// Whether data of format `from` can be written as `to`: positions cannot become games.
    pub fn check(from: Format, to: Format) -> Result<(), String> {
        if to == Format::Pgn {
            return Err("PGN is read, not written: write .vf, .bin or text".into());
        }
        if to == Format::Games && !matches!(from, Format::Games | Format::Pgn) {
            return Err("positions cannot be written as games (they have no moves): write .bin or text".into());
        }
        Ok(())
    }

    pub fn of(path: &str) -> Format {
        if path.ends_with(".vf") {
            Format::Games
        } else if path.ends_with(".bin") {
            Format::Boards
        } else if path.ends_with(".pgn") {
            Format::Pgn
        } else {
            Format::Text
        }
    }
}

/// One `FEN | score | result` line: score in centipawns and result (1.0, 0.5, 0.0), both from
/// White's view.
pub fn parse_text(line: &str) -> Result<(Position, i16, Wdl), String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields.as_slice() else {
        return Err(format!("not 'FEN | score | result': {line}"));
    };
    let pos = Position::from_fen(fen).map_err(|e| format!("{fen}: {e}"))?;
    let score: i16 = score.parse().map_err(|_| format!("score '{score}' is not a number"))?;
    let wdl = match *result {
        "1" | "1.0" | "1-0" => Wdl::WhiteWin,
        "0.5" | "1/2-1/2" => Wdl::Draw,
        "0" | "0.0" | "0-1" => Wdl::BlackWin,
        other => return Err(format!("result '{other}' is not 1.0, 0.5 or 0.0")),
    };
    Ok((pos, score, wdl))
}

/// The `FEN | score | result` line of a position.
pub fn text_line(pos: &Position, score: i16, wdl: Wdl) -> String {
    format!("{} | {score} | {:.1}", pos.to_fen(), wdl.white_score())
}

/// Converts `input` (read as `from`) into `output` (written as `to`): games into positions or
/// text, positions into text and back. Returns (games read, positions written). Positions
/// cannot become games (they carry no moves); a bad record stops the conversion with an error
/// naming it.
pub fn convert(
    input: &mut impl io::BufRead,
    from: Format,
    output: &mut impl Write,
    to: Format,
) -> Result<(u64, u64), String> {
    Format::check(from, to)?;
    let io_err = |e: io::Error| e.to_string();
    let emit = |pos: &Position, score: i16, wdl: Wdl, out: &mut dyn Write| -> Result<(), String> {
        match to {
            Format::Boards => out.write_all(&pack(pos, score, wdl)).map_err(io_err),
            _ => writeln!(out, "{}", text_line(pos, score, wdl)).map_err(io_err),
        }
    };
    // A game goes out whole (to games) or position by position.
    let write_game = |game: &Game, output: &mut dyn Write| -> Result<(), String> {
        if to == Format::Games {
            return game.write(output).map_err(io_err);
        }
        game.positions().try_for_each(|(pos, score)| emit(&pos, score, game.wdl, output))
    };
    let (mut games, mut positions) = (0u64, 0u64);
    match from {
        Format::Pgn => {
            let mut text = String::new();
            input.read_to_string(&mut text).map_err(io_err)?;
            for (n, pgn) in super::pgn::read_games(&text).iter().enumerate() {
                if let Some(game) = super::pgn::to_game(pgn).map_err(|e| format!("game {}: {e}", n + 1))? {
                    games += 1;
                    positions += game.moves.len() as u64;
                    write_game(&game, output)?;
                }
            }
        }
        Format::Games => {
            while let Some(game) = Game::read(input).map_err(|e| format!("game {}: {e}", games + 1))? {
                games += 1;
                positions += game.moves.len() as u64;
                write_game(&game, output)?;
            }
        }
        Format::Boards => loop {
            let mut board = [0u8; BOARD_BYTES];
            match read_full(input, &mut board)? {
                0 => break,
                BOARD_BYTES => {}
                n => return Err(format!("board {}: truncated ({n} of 32 bytes)", positions + 1)),
            }
            let (pos, score, wdl) = unpack(&board).map_err(|e| format!("board {}: {e}", positions + 1))?;
            emit(&pos, score, wdl, output)?;
            positions += 1;
        },
        Format::Text => {
            for (n, line) in io::BufRead::lines(&mut *input).enumerate() {
                let line = line.map_err(io_err)?;
                if line.trim().is_empty() {
                    continue;
                }
                let (pos, score, wdl) = parse_text(&line).map_err(|e| format!("line {}: {e}", n + 1))?;
                emit(&pos, score, wdl, output)?;
                positions += 1;
            }
        }
    }
    Ok((games, positions))
}

/// Reads until `buf` is full or the input ends; returns how much was read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> Result<usize, String> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: &[&str] = &[
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 17 42",
        "r3k2r/8/8/8/8/8/8/4K2R b Kq - 3 20",
        "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
    ];

    #[test]
    fn the_start_position_packs_to_the_published_layout() {
        let b = pack(&Position::startpos(), -37, Wdl::WhiteWin);
        assert_eq!(u64::from_le_bytes(b[..8].try_into().unwrap()), 0xFFFF_0000_0000_FFFF);
        // a1 rook with its right (6), b1 knight (1): 0x16; c1 bishop, d1 queen; e1 king, f1 bishop;
        // g1 knight, h1 rook with its right; White's pawns (0); Black's pawns (0 + 8); a8 rook
        // with its right (6 + 8) and b8 knight (1 + 8).
        assert_eq!(b[8..12], [0x16, 0x42, 0x25, 0x61]);
        assert_eq!(b[12..16], [0; 4]);
        assert_eq!(b[16..20], [0x88; 4]);
        assert_eq!(b[20], 0x9E);
        assert_eq!(b[24], 64, "White to move, no en passant");
        assert_eq!((b[25], u16::from_le_bytes([b[26], b[27]])), (0, 1));
        assert_eq!(i16::from_le_bytes([b[28], b[29]]), -37);
        assert_eq!((b[30], b[31]), (2, 0));
    }

    #[test]
    fn boards_round_trip() {
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            for wdl in [Wdl::BlackWin, Wdl::Draw, Wdl::WhiteWin] {
                let (back, score, w) = unpack(&pack(&pos, 123, wdl)).unwrap();
                assert_eq!(back.to_fen(), pos.to_fen(), "{fen}");
                assert_eq!(back.key(), pos.key(), "{fen}");
                assert_eq!((score, w), (123, wdl));
            }
        }
        let mut bad = pack(&Position::startpos(), 0, Wdl::Draw);
        bad[30] = 7;
        assert!(unpack(&bad).is_err());
        bad[30] = 1;
        bad[8] = 0x77;
        assert!(unpack(&bad).is_err(), "piece code 7 is no piece");
    }

    #[test]
    fn games_round_trip_through_bytes() {
        let mut rng = crate::rng::Rng::new(99);
        for fen in FENS {
            let start = Position::from_fen(fen).unwrap();
            let (mut pos, mut moves) = (start, Vec::new());
            for i in 0..60 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                moves.push((m, i as i16 * 7 - 100));
                pos = pos.make_move(m);
            }
            let game = Game { start, wdl: Wdl::Draw, moves };
            let mut bytes = Vec::new();
            game.write(&mut bytes).unwrap();
            assert_eq!(bytes.len(), 32 + 4 * game.moves.len() + 4);
            let mut reader = &bytes[..];
            assert_eq!(Game::read(&mut reader).unwrap().as_ref(), Some(&game), "{fen}");
            assert_eq!(Game::read(&mut reader).unwrap(), None);
            assert_eq!(game.positions().count(), game.moves.len());
            // Truncated anywhere: an error, never a panic.
            for cut in [1, 31, 33, bytes.len() - 1] {
                assert!(Game::read(&mut &bytes[..cut]).is_err(), "cut at {cut}");
            }
        }
    }

    #[test]
    fn conversions_keep_every_position() {
        let start = Position::startpos();
        let mut pos = start;
        let mut moves = Vec::new();
        for text in ["e2e4", "c7c5", "g1f3", "d7d6", "f1b5", "c8d7"] {
            let m = pos.parse_uci_move(text).unwrap();
            moves.push((m, moves.len() as i16 * 10));
            pos = pos.make_move(m);
        }
        let game = Game { start, wdl: Wdl::BlackWin, moves };
        let mut games = Vec::new();
        game.write(&mut games).unwrap();
        game.write(&mut games).unwrap();
        let mut text = Vec::new();
        assert_eq!(convert(&mut &games[..], Format::Games, &mut text, Format::Text), Ok((2, 12)));
        let text = String::from_utf8(text).unwrap();
        assert_eq!(text.lines().next(), Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 0 | 0.0"));
        let mut boards = Vec::new();
        assert_eq!(convert(&mut text.as_bytes(), Format::Text, &mut boards, Format::Boards), Ok((0, 12)));
        assert_eq!(boards.len(), 12 * BOARD_BYTES);
        let mut again = Vec::new();
        convert(&mut &boards[..], Format::Boards, &mut again, Format::Text).unwrap();
        assert_eq!(String::from_utf8(again).unwrap(), text);
        assert!(convert(&mut text.as_bytes(), Format::Text, &mut Vec::new(), Format::Games).is_err());
        let e = convert(&mut "8/8/8/8 w - - 0 1 | 5 | 1.0\n".as_bytes(), Format::Text, &mut Vec::new(), Format::Boards);
        assert!(e.unwrap_err().starts_with("line 1: "));
        assert!(convert(&mut &boards[..40], Format::Boards, &mut Vec::new(), Format::Text).is_err());
    }

    #[test]
    fn moves_encode_as_the_format_says() {
        let pos = Position::from_fen("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1").unwrap();
        let raw = |text: &str| encode_move(pos.parse_uci_move(text).unwrap());
        assert_eq!(raw("e1g1"), 4 | 7 << 6 | 2 << 14, "castling is king takes rook");
        assert_eq!(raw("e1c1"), 4 | 2 << 14);
        assert_eq!(raw("e5d6"), 36 | 43 << 6 | 1 << 14);
        assert_eq!(raw("b7b8q"), 49 | 57 << 6 | 3 << 12 | 3 << 14);
        assert_eq!(raw("b7a8n"), 49 | 56 << 6 | 3 << 14);
        assert_eq!(raw("a1a7"), 48 << 6);
        for m in pos.legal_moves() {
            assert_eq!(decode_move(&pos, encode_move(m)), Ok(m));
        }
        assert!(decode_move(&pos, 1 | 2 << 6).is_err());
    }
}
