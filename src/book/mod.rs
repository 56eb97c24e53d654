//! Polyglot opening books (`.bin`): the format most GUIs and book tools write.
//!
//! A book is a sorted list of 16-byte big-endian entries: the position's Polyglot key (`u64`),
//! a move (`u16`: to file, to rank, from file, from rank in three bits each from the lowest,
//! then the promotion piece, 1 knight to 4 queen), a weight (`u16`) and a learn field (`u32`,
//! unused here). Castling is written as the king taking its own rook (`e1h1`), as Corvid's moves
//! are. The key is the XOR of [`random64::RANDOM64`] entries for each piece, each castling right,
//! the en-passant file and White to move.
//!
//! One difference from the letter of the format: Polyglot hashes the en-passant file whenever a
//! pawn of the side to move stands beside the pawn that just made a double step, and Corvid's
//! position keeps the en-passant square only when the capture is legal; the two differ only
//! when that capture would leave the capturer's king in check.

pub mod random64;

use crate::position::Position;
use crate::rng::Rng;
use crate::types::{CastleSide, Color, Move, PieceType};
use random64::RANDOM64;

/// The Polyglot key of `pos`.
pub fn key(pos: &Position) -> u64 {
    let mut key = 0;
    for color in Color::ALL {
        for piece in PieceType::ALL {
            let kind = 2 * piece.index() + usize::from(color == Color::White);
            for sq in pos.colored_pieces(color, piece) {
                key ^= RANDOM64[64 * kind + sq.index()];
            }
        }
    }
    for (i, (color, side)) in [
        (Color::White, CastleSide::King),
        (Color::White, CastleSide::Queen),
        (Color::Black, CastleSide::King),
        (Color::Black, CastleSide::Queen),
    ]
    .into_iter()
    .enumerate()
    {
        if pos.castle_rook(color, side).is_some() {
            key ^= RANDOM64[768 + i];
        }
    }
    if let Some(ep) = pos.ep_square() {
        key ^= RANDOM64[772 + ep.file().index()];
    }
    if pos.side_to_move() == Color::White {
        key ^= RANDOM64[780];
    }
    key
}

/// One entry of a book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    key: u64,
    mv: u16,
    weight: u16,
}

/// A Polyglot book held in memory.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: Vec<Entry>,
}

impl Book {
    /// Reads a book file; the error says why it is not one.
    pub fn load(path: &str) -> Result<Book, String> {
        let bytes = crate::files::read(path, crate::files::MAX_INPUT).map_err(|e| format!("book {e}"))?;
        Book::from_bytes(&bytes).map_err(|e| format!("book {path}: {e}"))
    }

    /// A book from the bytes of a `.bin` file: a whole number of 16-byte entries sorted by key,
    /// as the format requires (a file that is not is taken for something else).
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, String> {
        if bytes.is_empty() || bytes.len() % 16 != 0 {
            return Err(format!("{} bytes is not a whole number of 16-byte Polyglot entries", bytes.len()));
        }
        let entries: Vec<Entry> = bytes
            .chunks_exact(16)
            .map(|e| Entry {
                key: u64::from_be_bytes(e[..8].try_into().expect("8 bytes")),
                mv: u16::from_be_bytes([e[8], e[9]]),
                weight: u16::from_be_bytes([e[10], e[11]]),
            })
            .collect();
        if let Some(i) = entries.windows(2).position(|w| w[0].key > w[1].key) {
            return Err(format!("entry {} is out of key order: not a Polyglot book", i + 2));
        }
        Ok(Book { entries })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The book's moves in `pos` that are legal there, with their weights, in the book's order.
    pub fn moves(&self, pos: &Position) -> Vec<(Move, u16)> {
        let key = key(pos);
        let first = self.entries.partition_point(|e| e.key < key);
        let legal = pos.legal_moves();
        self.entries[first..]
            .iter()
            .take_while(|e| e.key == key)
            .filter_map(|e| {
                let m = decode(e.mv, &legal)?;
                Some((m, e.weight))
            })
            .collect()
    }

    /// A book move for `pos`, drawn with probability proportional to its weight (all alike when
    /// every weight is 0); `None` out of the book.
    pub fn pick(&self, pos: &Position, rng: &mut Rng) -> Option<Move> {
        let moves = self.moves(pos);
        let total: u64 = moves.iter().map(|&(_, w)| u64::from(w)).sum();
        if total == 0 {
            return (!moves.is_empty()).then(|| moves[rng.below(moves.len())].0);
        }
        let mut ticket = rng.next_u64() % total;
        for (m, w) in moves {
            if ticket < u64::from(w) {
                return Some(m);
            }
            ticket -= u64::from(w);
        }
        None
    }
}

/// The legal move a book entry's 16 bits name, if any.
fn decode(raw: u16, legal: &[Move]) -> Option<Move> {
    let square = |shift: u16| ((raw >> shift) & 7) as u8 + 8 * ((raw >> (shift + 3)) & 7) as u8;
    let (to, from) = (square(0), square(6));
    let promotion = match (raw >> 12) & 7 {
        0 => None,
        1 => Some(PieceType::Knight),
        2 => Some(PieceType::Bishop),
        3 => Some(PieceType::Rook),
        4 => Some(PieceType::Queen),
        _ => return None,
    };
    legal.iter().copied().find(|m| m.from() as u8 == from && m.to() as u8 == to && m.promotion() == promotion)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(moves: &str) -> Position {
        let mut pos = Position::startpos();
        for m in moves.split_whitespace() {
            pos = pos.make_move(pos.parse_uci_move(m).unwrap());
        }
        pos
    }

    #[test]
    fn keys_of_the_formats_example_positions() {
        // The values published with the format.
        assert_eq!(key(&after("")), 0x463b96181691fc9c);
        assert_eq!(key(&after("e2e4")), 0x823c9b50fd114196);
        assert_eq!(key(&after("e2e4 d7d5")), 0x0756b94461c50fb0);
        assert_eq!(key(&after("e2e4 d7d5 e4e5")), 0x662fafb965db29d4);
        assert_eq!(key(&after("e2e4 d7d5 e4e5 f7f5")), 0x22a48b5a8e47ff78, "en passant possible: hashed");
        assert_eq!(key(&after("e2e4 d7d5 e4e5 f7f5 e1e2")), 0x652a607ca3f242c1);
        assert_eq!(key(&after("e2e4 d7d5 e4e5 f7f5 e1e2 e8f7")), 0x00fdd303c946bdd9);
        assert_eq!(key(&after("a2a4 b7b5 h2h4 b5b4 c2c4")), 0x3c8123ea7b067637);
        let fen = "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4";
        assert_eq!(key(&Position::from_fen(fen).unwrap()), 0x5c3f9b829b279560);
    }

    fn entry(key: u64, mv: &str, weight: u16) -> [u8; 16] {
        let sq = |s: &str| {
            let b = s.as_bytes();
            u16::from(b[0] - b'a') | u16::from(b[1] - b'1') << 3
        };
        let promo = match mv.as_bytes().get(4) {
            Some(b'n') => 1,
            Some(b'q') => 4,
            _ => 0,
        };
        let raw = sq(&mv[2..4]) | sq(&mv[..2]) << 6 | promo << 12;
        let mut e = [0u8; 16];
        e[..8].copy_from_slice(&key.to_be_bytes());
        e[8..10].copy_from_slice(&raw.to_be_bytes());
        e[10..12].copy_from_slice(&weight.to_be_bytes());
        e
    }

    #[test]
    fn moves_are_found_decoded_and_drawn_by_weight() {
        let start = Position::startpos();
        let k = key(&start);
        // One entry names an illegal move and is left out.
        let bytes: Vec<u8> = [
            entry(k - 1, "h2h3", 5),
            entry(k, "e2e4", 30),
            entry(k, "d2d4", 10),
            entry(k, "g1f3", 0),
            entry(k, "e2e5", 99),
            entry(k + 1, "a2a3", 5),
        ]
        .concat();
        let mut unsorted = bytes.clone();
        unsorted.rotate_left(16);
        assert!(Book::from_bytes(&unsorted).unwrap_err().contains("out of key order"));
        let book = Book::from_bytes(&bytes).unwrap();
        assert_eq!(book.len(), 6);
        let moves: Vec<(String, u16)> =
            book.moves(&start).into_iter().map(|(m, w)| (m.to_uci(false).to_string(), w)).collect();
        assert_eq!(moves, [("e2e4".to_string(), 30), ("d2d4".to_string(), 10), ("g1f3".to_string(), 0)]);
        let mut rng = Rng::new(1);
        let (e4, d4) = (start.parse_uci_move("e2e4").unwrap(), start.parse_uci_move("d2d4").unwrap());
        let draws: Vec<Option<Move>> = (0..40_000).map(|_| book.pick(&start, &mut rng)).collect();
        // 3/4 of the draws for e4: 30,000 expected, one standard deviation 87; within 4 of them.
        let e4_draws = draws.iter().filter(|&&m| m == Some(e4)).count();
        assert!((29_654..=30_346).contains(&e4_draws), "e4 drawn {e4_draws} times of 40,000 (expected 30,000)");
        // A weight of 0 beside weighted moves is never drawn.
        assert_eq!(e4_draws + draws.iter().filter(|&&m| m == Some(d4)).count(), 40_000, "only e4 and d4");
        assert_eq!(book.pick(&after("e2e4"), &mut rng), None, "out of the book");
        // Castling is king takes rook; promotions carry their piece.
        let castle = Position::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let kc = key(&castle);
        let book =
            Book::from_bytes(&[entry(kc, "e1h1", 1), entry(kc, "b7b8n", 1), entry(kc, "e1g1", 1)].concat()).unwrap();
        let moves: Vec<String> = book.moves(&castle).into_iter().map(|(m, _)| m.to_uci(true).to_string()).collect();
        assert_eq!(moves, ["e1h1", "b7b8n"], "e1g1 is no Polyglot castling");
    }

    #[test]
    fn a_broken_book_is_an_error() {
        assert!(Book::from_bytes(&[]).is_err());
        assert!(Book::from_bytes(&[0u8; 17]).is_err());
        assert!(Book::load("/nonexistent/book.bin").unwrap_err().contains("/nonexistent/book.bin"));
    }
}
